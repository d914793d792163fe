"""``nn.Dropout`` (``F.dropout``): zeroes elements with probability ``p`` in training mode
(scaling the rest by 1 / (1 - p)); the identity in eval mode.

>>> import strided.nn as nn
>>> d = nn.Dropout(0.25).eval()
>>> d, d(strided.ones(3)).tolist()
(Dropout(p=0.25, inplace=False), [1.0, 1.0, 1.0])
"""

from __future__ import annotations

from ...errors import StridedValueError
from ...tensor import Tensor
from ..functional import dropout
from .module import Module

__all__ = ["Dropout"]


class Dropout(Module):
    """Randomly zero elements while ``training`` (draws from strided's generator)."""

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise StridedValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"
