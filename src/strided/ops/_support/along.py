"""Shared plumbing of the ops that work along one dim: sorting, scans, top-k (no data of their own).

The kernels compute on a NumPy view with the working dim moved last (:func:`moved_last`, zero-copy
whatever the strides) and return fresh C-contiguous arrays in that moved order;
:func:`tensor_from_moved` turns such an array into the result tensor with the strides PyTorch gives
it, adopting the array's memory when those strides are its own, else copying it once into place.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import layout as L
from ...args import arg_type_name, is_dim_int
from ...dispatch import adopted, result
from ...dtypes import DType
from ...errors import StridedIndexError, StridedTypeError, join_lines
from ...tensor import Tensor
from .index_common import storage_blocks
from .reduce_args import shape_text


def one_dim(t: Tensor, dim: Any, op: str) -> int:
    """``dim`` wrapped against ``t``'s rank (a 0-d tensor takes 0 and -1), PyTorch's errors plus the op."""
    if type(dim) is not int and not is_dim_int(dim):  # (a plain int: no kind test needed)
        raise StridedTypeError(
            join_lines(
                f"{op}(): argument 'dim' must be int, not {type(dim).__name__}",
                f"got dim={dim!r:.40}; name one dim of the tensor of shape {shape_text(t.shape)} by its "
                "position (an int; negative counts from the end)",
            )
        )
    try:
        return L.wrap_dim(dim.__index__(), len(t._layout.shape))
    except StridedIndexError as err:
        raise StridedIndexError(
            join_lines(str(err), f"in {op}(dim={dim!r}) of a tensor of shape {shape_text(t.shape)}")
        ) from None


def flag(value: Any, op: str, name: str) -> bool:
    """A bool argument as PyTorch's parser takes it: a Python bool (PyTorch 2.13 refuses NumPy's:
    "topk(): argument 'sorted' must be bool, not numpy.bool"); None reads as False where
    PyTorch's ``bool?`` allows it, e.g. ``stable=None``."""
    if value.__class__ is bool:
        return value
    if value is None and name == "stable":
        return False
    raise StridedTypeError(
        join_lines(
            f"{op}(): argument '{name}' must be bool, not {arg_type_name(value)}",
            f"got {name}={value!r:.40}; pass True or False",
        )
    )


def moved_last(t: Tensor, d: int) -> np.ndarray:
    """A zero-copy NumPy view of ``t`` with dim ``d`` last; a 0-d tensor reads as shape (1,)."""
    x = t._np()
    if x.ndim == 0:
        return x.reshape(1)
    return x if d == x.ndim - 1 else np.moveaxis(x, d, -1)


# row-index columns (``arange(rows)[:, None]``, read-only) of :func:`take_last`, by row count
_ROWS: dict[int, np.ndarray] = {}


def take_last(x: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """``np.take_along_axis(x, idx, axis=-1)`` for in-range integer ``idx`` of ``x``'s rank (a
    fresh C-contiguous array of ``idx``'s shape, the same elements), without take_along_axis's
    per-call index building for 1-d and 2-d ``x`` (the small-size cost of topk and its kin).
    """
    if x.ndim == 1:
        return x[idx]
    if x.ndim == 2 and idx.shape[0] == x.shape[0] and x.shape[0] <= 4096:
        rows = _ROWS.get(x.shape[0])
        if rows is None:
            rows = np.arange(x.shape[0], dtype=np.intp)[:, None]
            rows.setflags(write=False)
            if len(_ROWS) < 256:  # (bounded; dict writes are atomic under the GIL)
                _ROWS[x.shape[0]] = rows
        return x[rows, idx]
    return np.take_along_axis(x, idx, axis=-1)


def take_moved(t: Tensor, d: int, idx: np.ndarray) -> np.ndarray:
    """``np.take_along_axis(moved_last(t, d), idx, axis=-1)`` for int64 ``idx`` already within
    ``[0, size)``: a fresh C-contiguous array of ``idx``'s shape.

    Read on the flat storage at positions computed a block at a time (one ``np.take`` per block),
    not through take_along_axis's broadcast fancy index: 5-10x faster on large inputs, most of
    all when ``d`` is not the last dim and the moved view is strided.
    """
    lay = t._layout
    if not lay.shape:
        return np.take_along_axis(moved_last(t, d), idx, axis=-1)
    strides = lay.strides[:d] + lay.strides[d + 1:] + (lay.strides[d],)
    return _take_blocks(t, strides, idx.ndim - 1, idx)


def take_in_place(t: Tensor, d: int, idx: np.ndarray) -> np.ndarray:
    """``np.take_along_axis(t's view, idx, axis=d)`` (``idx`` in ``t``'s own dim order, int64,
    within ``[0, size)``): a fresh C-contiguous array of ``idx``'s shape, read as :func:`take_moved`."""
    return _take_blocks(t, t._layout.strides, d, idx)


def _take_blocks(t: Tensor, strides: tuple[int, ...], d: int, idx: np.ndarray) -> np.ndarray:
    arr = t._storage.array
    out = np.empty(idx.shape, arr.dtype)
    flat = out.reshape(-1)
    for start, stop, base, lin in storage_blocks(idx, strides, d, t._layout.offset):
        np.take(arr[base:], lin, out=flat[start:stop], mode="wrap")
    return out


def tensor_from_array(arr: np.ndarray, shape: tuple[int, ...], dtype: DType) -> Tensor:
    """A contiguous result of ``shape`` holding ``arr``'s elements in row-major order (``arr`` fresh,
    not a view of any tensor's memory; its buffer is adopted when it is C-contiguous)."""
    arr = np.ascontiguousarray(arr, dtype=dtype.numpy)
    return adopted(arr.reshape(-1), L.Layout._trusted(shape, L.contiguous_strides(shape), 0), dtype)


def tensor_from_moved(
    arr: np.ndarray, shape: tuple[int, ...], d: int, dtype: DType, strides: tuple[int, ...] | None = None
) -> Tensor:
    """The result of ``shape`` (dim ``d`` in place) holding ``arr`` (computed with dim ``d`` last,
    fresh, not a view of any tensor's memory), with ``strides`` (dense; default contiguous).

    When ``arr``'s own memory order already is ``strides``, its buffer becomes the result's storage
    (nothing copied); otherwise it is written once into a fresh result.
    """
    if arr.dtype != dtype.numpy:
        arr = arr.astype(dtype.numpy)
    if strides is None:
        strides = L.contiguous_strides(shape)
        if shape and d == len(shape) - 1 and arr.size and arr.flags.c_contiguous:
            # (the common case: the moved order is the result's own, nothing to compare)
            return adopted(arr.reshape(-1), L.Layout._trusted(shape, strides, 0), dtype)
    if not shape:  # 0-d: arr is (1,)
        return adopted(np.ascontiguousarray(arr).reshape(1), L.Layout._trusted((), (), 0), dtype)
    back = np.moveaxis(arr, -1, d) if d != len(shape) - 1 else arr
    item = arr.itemsize
    if arr.flags.c_contiguous and arr.size and tuple(s // item for s in back.strides) == tuple(strides):
        return adopted(arr.reshape(-1), L.Layout._trusted(shape, tuple(strides), 0), dtype)
    out = result(shape, dtype, tuple(strides))
    if arr.size:
        np.copyto(out._np(), back, casting="unsafe")
    return out
