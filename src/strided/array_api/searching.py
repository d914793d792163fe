"""Searching functions of the standard: ``argmax``, ``argmin``, ``count_nonzero``, ``nonzero``,
``searchsorted``, ``where``.

>>> import strided.array_api as xp
>>> xp.argmax(xp.asarray([1, 9, 3]))
tensor(1)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dtypes import int64
from ..errors import StridedValueError
from ..tensor import Tensor
from ._core import arrays, check_array, computed, quiet

__all__ = ["argmax", "argmin", "count_nonzero", "nonzero", "searchsorted", "where"]


def argmax(x: Tensor, /, *, axis: int | None = None, keepdims: bool = False) -> Tensor:
    """The index of the first maximum along ``axis`` (None: of the flattened array), int64."""
    return computed("argmax", (x,), np.argmax(x._np(), axis=axis, keepdims=keepdims).astype(int64.numpy))


def argmin(x: Tensor, /, *, axis: int | None = None, keepdims: bool = False) -> Tensor:
    """The index of the first minimum along ``axis`` (None: of the flattened array), int64."""
    return computed("argmin", (x,), np.argmin(x._np(), axis=axis, keepdims=keepdims).astype(int64.numpy))


def count_nonzero(x: Tensor, /, *, axis: Any = None, keepdims: bool = False) -> Tensor:
    """The number of nonzero elements along ``axis`` (None: all), int64."""
    out = np.count_nonzero(x._np(), axis=axis, keepdims=keepdims)
    return computed("count_nonzero", (x,), np.asarray(out, dtype=int64.numpy))


def nonzero(x: Tensor, /) -> tuple[Tensor, ...]:
    """For each axis, the indices of the nonzero elements (int64 arrays); ``x`` needs dims."""
    check_array(x, "nonzero")
    if x.ndim == 0:
        raise StridedValueError("array_api.nonzero(): a 0-d array has no indices; reshape it to (1,) first")
    return tuple(computed("nonzero", (x,), i.astype(int64.numpy)) for i in np.nonzero(x._np()))


def searchsorted(x1: Tensor, x2: Tensor, /, *, side: str = "left", sorter: Tensor | None = None) -> Tensor:
    """Where each element of ``x2`` would go in the sorted 1-d ``x1`` (``sorter``: argsort of x1)."""
    s = None if sorter is None else sorter._np()
    out = np.searchsorted(x1._np(), x2._np() if isinstance(x2, Tensor) else x2, side=side, sorter=s)
    return computed("searchsorted", (x1, x2), np.asarray(out, dtype=int64.numpy))


def where(condition: Tensor, x1: Any, x2: Any, /) -> Tensor:
    """Elements of ``x1`` where ``condition``, else of ``x2`` (arrays or Python scalars), broadcast."""
    with quiet():
        return computed("where", (condition, x1, x2), np.where(*arrays(condition, x1, x2)))
