"""Statistical functions of the standard: ``cumulative_prod``, ``cumulative_sum``, ``max``, ``mean``,
``min``, ``prod``, ``std``, ``sum``, ``var`` — ``axis=`` (an int, a tuple, None), ``keepdims=``,
``correction=`` and ``dtype=`` as the standard names them.

Sums and products of integers accumulate in the default integer dtype of their signedness
(int64, uint64) unless ``dtype=`` says otherwise, as the standard asks.

>>> import strided.array_api as xp
>>> xp.sum(xp.asarray([[1, 2], [3, 4]], dtype=xp.int8), axis=0).dtype
strided.int64
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import StridedValueError
from ..tensor import Tensor
from ._core import computed, np_dtype, quiet

__all__ = ["cumulative_prod", "cumulative_sum", "max", "mean", "min", "prod", "std", "sum", "var"]


def _axis(axis: Any) -> Any:
    return tuple(axis) if isinstance(axis, list) else axis


def _acc_dtype(x: Tensor, dtype: Any) -> np.dtype:
    """The accumulation dtype: ``dtype`` if given, else int64/uint64 for integers and bool, else x's."""
    given = np_dtype(dtype)
    if given is not None:
        return given
    kind = x.dtype.kind
    if kind in "bi":
        return np.dtype(np.int64)
    if kind == "u":
        return np.dtype(np.uint64)
    return x.dtype.numpy


def _reduce(name: str, fn: Any, x: Tensor, **kw: Any) -> Tensor:
    with quiet():
        return computed(name, (x,), fn(x._np(), **kw))


def sum(x: Tensor, /, *, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> Tensor:  # noqa: A001
    """The sum over ``axis`` (None: all elements)."""
    return _reduce("sum", np.sum, x, axis=_axis(axis), dtype=_acc_dtype(x, dtype), keepdims=keepdims)


def prod(x: Tensor, /, *, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> Tensor:
    """The product over ``axis`` (None: all elements)."""
    return _reduce("prod", np.prod, x, axis=_axis(axis), dtype=_acc_dtype(x, dtype), keepdims=keepdims)


def max(x: Tensor, /, *, axis: Any = None, keepdims: bool = False) -> Tensor:  # noqa: A001
    """The maximum over ``axis``; NaN propagates; ValueError for an empty reduction."""
    return _reduce("max", np.max, x, axis=_axis(axis), keepdims=keepdims)


def min(x: Tensor, /, *, axis: Any = None, keepdims: bool = False) -> Tensor:  # noqa: A001
    """The minimum over ``axis``; NaN propagates; ValueError for an empty reduction."""
    return _reduce("min", np.min, x, axis=_axis(axis), keepdims=keepdims)


def mean(x: Tensor, /, *, axis: Any = None, keepdims: bool = False) -> Tensor:
    """The arithmetic mean over ``axis`` (floating-point input)."""
    return _reduce("mean", np.mean, x, axis=_axis(axis), keepdims=keepdims)


def std(x: Tensor, /, *, axis: Any = None, correction: float = 0.0, keepdims: bool = False) -> Tensor:
    """The standard deviation over ``axis``, dividing by ``N - correction``."""
    return _reduce("std", np.std, x, axis=_axis(axis), ddof=correction, keepdims=keepdims)


def var(x: Tensor, /, *, axis: Any = None, correction: float = 0.0, keepdims: bool = False) -> Tensor:
    """The variance over ``axis``, dividing by ``N - correction``."""
    return _reduce("var", np.var, x, axis=_axis(axis), ddof=correction, keepdims=keepdims)


def _cumulative(name: str, fn: Any, x: Tensor, axis: int | None, dtype: Any, include_initial: bool) -> Tensor:
    if axis is None:
        if x.ndim > 1:
            raise StridedValueError(f"array_api.{name}(): axis is required for an array of {x.ndim} dims")
        axis = 0
    a = x._np().reshape(1) if x.ndim == 0 else x._np()
    with quiet():
        return computed(name, (x,), fn(a, axis=axis, dtype=_acc_dtype(x, dtype), include_initial=include_initial))


def cumulative_sum(x: Tensor, /, *, axis: int | None = None, dtype: Any = None,
                   include_initial: bool = False) -> Tensor:
    """Running sums along ``axis`` (optional for 1-d input); ``include_initial`` starts with 0.

    >>> xp.cumulative_sum(xp.asarray([1, 2, 3]), include_initial=True)
    tensor([0, 1, 3, 6])
    """
    return _cumulative("cumulative_sum", np.cumulative_sum, x, axis, dtype, include_initial)


def cumulative_prod(x: Tensor, /, *, axis: int | None = None, dtype: Any = None,
                    include_initial: bool = False) -> Tensor:
    """Running products along ``axis`` (optional for 1-d input); ``include_initial`` starts with 1."""
    return _cumulative("cumulative_prod", np.cumulative_prod, x, axis, dtype, include_initial)
