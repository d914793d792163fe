"""``nn.Flatten`` and ``nn.Unflatten``: ``Tensor.flatten`` / ``Tensor.unflatten`` as modules
(views where the strides allow, as the methods).

>>> import strided.nn as nn
>>> nn.Flatten()(strided.zeros(2, 3, 4)).shape, nn.Unflatten(1, (2, 2))(strided.zeros(3, 4)).shape
((2, 12), (3, 2, 2))
"""

from __future__ import annotations

from typing import Any

from ...tensor import Tensor
from .module import Module

__all__ = ["Flatten", "Unflatten"]


class Flatten(Module):
    """``input.flatten(start_dim, end_dim)`` (dims 1... by default: the batch dim stays)."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input: Tensor) -> Tensor:
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """``input.unflatten(dim, unflattened_size)``."""

    def __init__(self, dim: int, unflattened_size: Any) -> None:
        super().__init__()
        self.dim = dim
        self.unflattened_size = unflattened_size

    def forward(self, input: Tensor) -> Tensor:
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
