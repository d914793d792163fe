"""Argument handling shared by reductions and matrix products.

Pure helpers, no data: parsing ``dim`` / ``keepdim`` the way PyTorch does,
the result shape of a reduction; outputs come from :func:`strided.dispatch.result_array`. PyTorch's names for
dtypes live in :mod:`strided.dtypes` (re-exported here for the ops' messages);
the int and bool readers in :mod:`strided.args`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ... import layout as L
from ...args import is_dim_int
from ...dtypes import DType, to_dtype
from ...errors import StridedIndexError, StridedRuntimeError, StridedTypeError, join_lines
from ...tensor import Tensor


def shape_text(shape: Sequence[int]) -> str:
    """``(2, 3)`` for a shape, ``()`` for 0-d, as in the detail lines of messages."""
    return "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


def reduction_dims(
    t: Tensor, dim: Any, op: str, allow_tuple: bool = True, empty_means_all: bool = True
) -> tuple[int, ...] | None:
    """Wrap ``dim`` (None, an int, or a tuple/list of ints) against ``t``'s rank.

    Returns None for "every dim" (``dim=None``, or an empty tuple when
    ``empty_means_all``, as ``sum``/``mean``/``var`` treat it), else the wrapped
    dims in the order given. Raises IndexError for a dim out of range,
    RuntimeError for a repeated dim, TypeError for a tuple where PyTorch takes one int.
    """
    if dim is None:
        return None
    ndim = len(t._layout.shape)
    if isinstance(dim, (tuple, list)):
        if not allow_tuple:
            raise StridedTypeError(
                join_lines(
                    f"{op}(): argument 'dim' (position 1) must be int, not {type(dim).__name__}",
                    f"{op} reduces one dim at a time; call it once per dim, "
                    f"e.g. t.{op}({dim[0] if dim else 0}) and then again on the result",
                )
            )
        dims = tuple(dim)
        if not dims and empty_means_all:
            return None
    else:
        dims = (dim,)
    for d in dims:
        if not is_dim_int(d):
            raise StridedTypeError(
                join_lines(
                    f"{op}(): argument 'dim' must be an int or a tuple of ints, but got "
                    f"{type(d).__name__} {d!r}",
                    f"dims of a tensor of shape {shape_text(t.shape)} are whole numbers 0..{max(ndim - 1, 0)} "
                    f"(or -{max(ndim, 1)}..-1 from the end); e.g. t.{op}(dim={min(ndim - 1, 1) if ndim else 0})"
                    + (f" or a tuple such as t.{op}(dim=(0, 1))" if allow_tuple and ndim >= 2 else ""),
                )
            )
    wrapped = []
    for d in dims:
        try:
            wrapped.append(L.wrap_dim(d.__index__(), ndim))
        except StridedIndexError as err:
            raise StridedIndexError(
                join_lines(str(err), f"in {op}(dim={dim!r}) of a tensor of shape {shape_text(t.shape)}")
            ) from None
    seen: set[int] = set()
    for d in wrapped:
        if d in seen:
            raise StridedRuntimeError(
                join_lines(
                    f"dim {d} appears multiple times in the list of dims",
                    f"{op}(dim={dim!r}) of a tensor of shape {shape_text(t.shape)}: after wrapping "
                    f"negative dims the dims are {tuple(wrapped)}; name each dim once",
                )
            )
        seen.add(d)
    return tuple(wrapped)


def numpy_axes(dims: tuple[int, ...] | None, ndim: int) -> tuple[int, ...] | None:
    """NumPy's ``axis=`` for wrapped dims; a 0-d tensor's dim 0 is no axis at all."""
    if dims is None or ndim == 0:
        return None if dims is None else ()
    return dims


def reduced_shape(shape: tuple[int, ...], dims: tuple[int, ...] | None, keepdim: bool) -> tuple[int, ...]:
    """The result shape: reduced dims dropped, or kept with size 1 under ``keepdim``."""
    if dims is None:
        if not keepdim:
            return ()
        dims = tuple(range(len(shape)))
    if keepdim:
        return tuple(1 if d in dims else s for d, s in enumerate(shape))
    return tuple(s for d, s in enumerate(shape) if d not in dims)


def reduced_count(shape: tuple[int, ...], dims: tuple[int, ...] | None) -> int:
    """How many elements each output element reduces over."""
    if dims is None or not shape:  # a 0-d tensor's dim 0 holds its one element
        return L.product(shape)
    return L.product([shape[d] for d in dims])



def optional_dtype(dtype: Any) -> DType | None:
    """Resolve a ``dtype=`` argument (None stays None)."""
    return None if dtype is None else to_dtype(dtype)
