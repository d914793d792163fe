"""Utility functions of the standard: ``all``, ``any``, ``diff``.

>>> import strided.array_api as xp
>>> xp.all(xp.asarray([True, False]))
tensor(False)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..tensor import Tensor
from ._core import computed

__all__ = ["all", "any", "diff"]


def _axis(axis: Any) -> Any:
    return tuple(axis) if isinstance(axis, list) else axis


def all(x: Tensor, /, *, axis: Any = None, keepdims: bool = False) -> Tensor:  # noqa: A001
    """Whether every element along ``axis`` is nonzero (bool)."""
    return computed("all", (x,), np.all(x._np(), axis=_axis(axis), keepdims=keepdims))


def any(x: Tensor, /, *, axis: Any = None, keepdims: bool = False) -> Tensor:  # noqa: A001
    """Whether any element along ``axis`` is nonzero (bool)."""
    return computed("any", (x,), np.any(x._np(), axis=_axis(axis), keepdims=keepdims))


def diff(x: Tensor, /, *, axis: int = -1, n: int = 1, prepend: Tensor | None = None,
         append: Tensor | None = None) -> Tensor:
    """The ``n``-th forward difference along ``axis`` (``prepend``/``append`` joined first)."""
    kw = {}
    if prepend is not None:
        kw["prepend"] = prepend._np()
    if append is not None:
        kw["append"] = append._np()
    return computed("diff", (x, prepend, append), np.diff(x._np(), n=n, axis=axis, **kw))
