"""The distance modules: ``CosineSimilarity``, calling ``F.cosine_similarity``.

>>> import strided.nn as nn
>>> nn.CosineSimilarity(dim=0)(strided.tensor([1.0, 0.0]), strided.tensor([2.0, 0.0])).item()
1.0
"""

from __future__ import annotations

from ...tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = ["CosineSimilarity"]


class CosineSimilarity(Module):
    """The cosine of the angle between two tensors along ``dim``."""

    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return F.cosine_similarity(x1, x2, self.dim, self.eps)
