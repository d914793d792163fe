"""``nn.LayerNorm`` (``F.layer_norm``): weight ones, bias zeros, as PyTorch's.

>>> import strided.nn as nn
>>> nn.LayerNorm(4), nn.LayerNorm((2, 3), elementwise_affine=False)
(LayerNorm((4,), eps=1e-05, elementwise_affine=True, bias=True), LayerNorm((2, 3), eps=1e-05, elementwise_affine=False, bias=False))
"""

from __future__ import annotations

import numbers
from typing import Any

from ...tensor import Tensor
from .. import init
from ..functional import layer_norm
from ._factory import new_parameter
from .module import Module

__all__ = ["LayerNorm"]


class LayerNorm(Module):
    """Normalize over the trailing ``normalized_shape`` dims, then scale and shift (when
    ``elementwise_affine``; ``bias=False`` drops the shift)."""

    def __init__(self, normalized_shape: Any, eps: float = 1e-5, elementwise_affine: bool = True, bias: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = new_parameter(*self.normalized_shape, device=device, dtype=dtype)
            if bias:
                self.bias = new_parameter(*self.normalized_shape, device=device, dtype=dtype)
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.elementwise_affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input: Tensor) -> Tensor:
        return layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, "
                f"bias={self.bias is not None}")
