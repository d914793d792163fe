"""Linear algebra functions of the main namespace: ``matmul``, ``matrix_transpose``, ``tensordot``,
``vecdot``.

>>> import strided.array_api as xp
>>> xp.matmul(xp.ones((2, 3)), xp.ones((3, 4))).shape
(2, 4)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import StridedValueError
from ..tensor import Tensor
from ._core import computed, quiet

__all__ = ["matmul", "matrix_transpose", "tensordot", "vecdot"]


def matmul(x1: Tensor, x2: Tensor, /) -> Tensor:
    """The matrix product (1-d operands are vectors; leading dims broadcast)."""
    with quiet():
        return computed("matmul", (x1, x2), np.matmul(x1._np(), x2._np()))


def matrix_transpose(x: Tensor, /) -> Tensor:
    """The last two axes swapped: a view (``x.mT``)."""
    if x.ndim < 2:
        raise StridedValueError(f"array_api.matrix_transpose(): x must have at least 2 dims, got shape {x.shape}")
    return x.mT


def tensordot(x1: Tensor, x2: Tensor, /, *, axes: Any = 2) -> Tensor:
    """The sum of products over ``axes`` (an int: the last n of x1 with the first n of x2; or two
    sequences of axes)."""
    if not isinstance(axes, int):
        axes = tuple(tuple(a) for a in axes)
    with quiet():
        return computed("tensordot", (x1, x2), np.tensordot(x1._np(), x2._np(), axes=axes))


def vecdot(x1: Tensor, x2: Tensor, /, *, axis: int = -1) -> Tensor:
    """The dot product along ``axis`` (x1 conjugated), the other axes broadcast."""
    with quiet():
        return computed("vecdot", (x1, x2), np.vecdot(x1._np(), x2._np(), axis=axis))
