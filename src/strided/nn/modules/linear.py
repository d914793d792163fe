"""``nn.Identity`` and ``nn.Linear`` (``F.linear``), with PyTorch's parameters and initialization.

>>> import strided.nn as nn
>>> nn.Linear(3, 2)
Linear(in_features=3, out_features=2, bias=True)
"""

from __future__ import annotations

import math
from typing import Any

from ...tensor import Tensor
from .. import init
from ..functional import linear
from ._factory import new_parameter
from .module import Module

__all__ = ["Identity", "Linear", "NonDynamicallyQuantizableLinear", "reset_like_linear"]


def reset_like_linear(weight: Tensor, bias: Tensor | None) -> None:
    """PyTorch's default draw of a linear or convolution layer: ``weight`` from
    kaiming_uniform_(a=sqrt(5)) (U(-1/sqrt(fan_in), 1/sqrt(fan_in))), ``bias`` from
    U(-1/sqrt(fan_in), 1/sqrt(fan_in)) (zeros for a zero fan-in, where PyTorch's convolutions
    leave the bias unwritten)."""
    init.kaiming_uniform_(weight, a=math.sqrt(5))
    if bias is not None:
        fan_in, _ = init._calculate_fan_in_and_fan_out(weight)
        bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
        init.uniform_(bias, -bound, bound)


class Identity(Module):
    """Returns its input (the arguments of the constructor are ignored, as PyTorch's)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:
        return input


class Linear(Module):
    """``y = x @ weight.T + bias``; ``weight`` (out_features, in_features) and ``bias``
    (out_features,) drawn as PyTorch's: kaiming_uniform_(a=sqrt(5)), i.e. U(-1/sqrt(in), 1/sqrt(in)),
    and the bias U(-1/sqrt(in), 1/sqrt(in)).

    >>> lin = nn.Linear(3, 2, bias=False)
    >>> lin.weight.shape, lin.bias, lin(strided.ones(5, 3)).shape
    ((2, 3), None, (5, 2))
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = new_parameter(out_features, in_features, device=device, dtype=dtype)
        if bias:
            self.bias = new_parameter(out_features, device=device, dtype=dtype)
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        reset_like_linear(self.weight, self.bias)

    def forward(self, input: Tensor) -> Tensor:
        return linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class NonDynamicallyQuantizableLinear(Linear):
    """``MultiheadAttention.out_proj``'s class (PyTorch's name, which its repr prints)."""
