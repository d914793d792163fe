"""Indexing functions of the standard: ``take`` and ``take_along_axis`` (new memory).

>>> import strided.array_api as xp
>>> xp.take(xp.asarray([10, 20, 30]), xp.asarray([2, 0]))
tensor([30, 10])
"""

from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from ._core import check_array, moved

__all__ = ["take", "take_along_axis"]


def take(x: Tensor, indices: Tensor, /, *, axis: int | None = None) -> Tensor:
    """The elements of ``x`` at ``indices`` (1-d, integer) along ``axis`` (optional for a 1-d ``x``)."""
    check_array(x, "take")
    if axis is None:
        axis = 0
    return moved("take", (x, indices), np.take(x._np(), indices._np(), axis=axis),
                 f"{indices.numel()} indices gathered along axis {axis} into new memory")


def take_along_axis(x: Tensor, indices: Tensor, /, *, axis: int = -1) -> Tensor:
    """The elements of ``x`` at ``indices`` (same ndim, broadcasting) along ``axis``."""
    check_array(x, "take_along_axis")
    return moved("take_along_axis", (x, indices), np.take_along_axis(x._np(), indices._np(), axis=axis),
                 f"elements gathered along axis {axis} into new memory")
