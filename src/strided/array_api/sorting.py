"""Sorting functions of the standard: ``sort`` and ``argsort`` (stable by default, ``descending=``).

>>> import strided.array_api as xp
>>> xp.argsort(xp.asarray([3, 1, 3]), descending=True)
tensor([0, 2, 1])
"""

from __future__ import annotations

import numpy as np

from ..dtypes import int64
from ..tensor import Tensor
from ._core import check_array, computed, normalize_axis

__all__ = ["argsort", "sort"]


def argsort(x: Tensor, /, *, axis: int = -1, descending: bool = False, stable: bool = True) -> Tensor:
    """The indices that sort ``x`` along ``axis``; equal elements keep their order (stable).

    Descending and stable: sort the reversed array ascending, then map the indices back, so
    ties keep their original order.
    """
    check_array(x, "argsort")
    if x.ndim == 0:
        return computed("argsort", (x,), np.zeros((), dtype=int64.numpy))
    axis = normalize_axis(axis, x.ndim, "argsort")
    a = x._np()
    if not descending:
        out = np.argsort(a, axis=axis, kind="stable")
    else:
        n = a.shape[axis]
        out = n - 1 - np.flip(np.argsort(np.flip(a, axis), axis=axis, kind="stable"), axis)
    return computed("argsort", (x,), out.astype(int64.numpy))


def sort(x: Tensor, /, *, axis: int = -1, descending: bool = False, stable: bool = True) -> Tensor:
    """``x`` sorted along ``axis`` (ascending, or ``descending``), new memory."""
    check_array(x, "sort")
    if x.ndim == 0:
        return computed("sort", (x,), x._np().copy())
    axis = normalize_axis(axis, x.ndim, "sort")
    out = np.sort(x._np(), axis=axis, kind="stable")
    if descending:
        out = np.flip(out, axis).copy()
    return computed("sort", (x,), out)
