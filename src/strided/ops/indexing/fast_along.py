"""The small-call fast path shared by ``gather``, ``take_along_dim`` and the out-of-place scatters
(``scatter``, ``scatter_add``, ``scatter_reduce``): row-major operands and an int64 index whose
every value is already in range, read as flat runs and turned into positions with one NumPy call.

:func:`along_positions` checks its preconditions cheaply and answers None otherwise, so the
caller takes its general path (which makes the same checks one by one and raises PyTorch's
errors). The positions are those the general path computes (``storage_blocks`` /
``storage_index`` on a row-major tensor at offset 0): ``index * stride[dim]`` plus the grid of the
other dims, remembered per layout; a fast result is bit for bit the general path's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...dtypes import bool_, float32, float64, int32, int64
from ...kernels.native import kernel
from ...tensor import Tensor
from .._support.index_common import _SMALL, other_dims_grid
from .._support.memo import Memo
from .._support.operands import _cinfo, flat_run

# the dtypes every op of the family has a kernel for (no support.check to run)
FAST_DTYPES = frozenset((float32, float64, int32, int64))


def _grid(key: tuple[tuple[int, ...], tuple[int, ...], int]) -> np.ndarray:
    ishape, strides, d = key
    grid = np.ascontiguousarray(np.broadcast_to(other_dims_grid(ishape, strides, d, 0), ishape)).reshape(-1)
    grid.setflags(write=False)
    return grid


# (index shape, row-major strides of the tensor read or written, dim) -> the flat read-only grid
# of the other dims' positions: at most 64 grids of at most _SMALL int64 each (2 MB); a Memo
# stops growing when full (later layouts compute their grid per call).
_GRIDS = Memo(_grid, limit=64)
_umax = np.maximum.reduce  # (the ufunc itself: ndarray.max's Python wrapper costs as much again)


def _compiled() -> tuple[Any, Any, Any, Any, Any, Any, Any]:
    """The copy kernel's ``(along_tensors, slices_tensors, search_tensors, nonzero_flat,
    masked_tensors, window_scatter, isin_tensors)``:
    :func:`along_positions` / :func:`along_slices`'s checks, the op's writes and the result Tensor
    in one C call (a (3, 4) gather: 3.5 us -> ~1 us; the checks and NumPy calls on tiny arrays
    were most of it), set up with the plan table; Nones where the kernel is not built (or built
    before it had them), or with ``STRIDED_NATIVE=0``. Each answers None where a precondition
    fails: the caller's Python fast path, then its general path, decide."""
    k = kernel()
    if k is None or not hasattr(k, "isin_tensors"):
        return None, None, None, None, None, None, None
    kinds = (float32, float64, int32, int64, bool_)  # (the C side's kinds 0-4, in this order)
    k.index_setup(_cinfo, np.empty, kinds, tuple(t.numpy for t in kinds), _SMALL)
    return (k.along_tensors, k.slices_tensors, k.search_tensors, k.nonzero_flat, k.masked_tensors, k.window_scatter,
            k.isin_tensors)


# along_tensors(op, self, dim, index, src): gather 0, scatter 1, scatter_add / "sum" 2, "prod" 3
# (+4: include_self=False); slices_tensors(op, self, dim, index, source): index_select 0,
# index_copy 1, index_add 2, index_reduce "prod" 3 (+4: include_self=False), index_fill 8 (a
# Python float for a float self, an int for an integer one), index_put_'s 1 / 2 in place (+16:
# True where written). Out of place, each returns a new Tensor, or None. search_tensors(seq,
# values, right): searchsorted's int64 Tensor, or None; nonzero_flat(t): nonzero's positions,
# column by column, as a fresh int64 array, or None; masked_tensors(op, self, mask, x): the
# out-of-place masked_fill 0 (x a number) / masked_scatter 1 (x the source), or None;
# window_scatter(x, src, window): the view scatters' copy of x with src at the Layout window, or None;
# isin_tensors(elements, test, invert): isin's bool Tensor for a test of at most 64 elements, or None.
ALONG_C, SLICES_C, SEARCH_C, NONZERO_C, MASKED_C, WINDOW_C, ISIN_C = _compiled()


def along_positions(self: Any, dim: Any, index: Any) -> tuple[np.ndarray, np.ndarray, int] | None:
    """``(flat, positions, d)`` for a call along ``dim`` of the row-major tensor ``self`` at the
    row-major int64 ``index`` (same number of dims, no larger than ``self`` in the others, 1 to
    ``_SMALL`` elements, every value in ``[0, size)``): ``flat`` is ``self``'s flat run (no copy),
    ``positions`` the fresh int64 positions in it, in the index's row-major order, ``d`` the
    wrapped dim. None when any precondition fails (then nothing was computed).

    >>> x = strided.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> flat, pos, d = along_positions(x, -1, strided.tensor([[1, 1], [0, 1]]))
    >>> pos.tolist(), d
    ([1, 1, 2, 3], 1)
    """
    if type(self) is not Tensor or type(index) is not Tensor or index._dtype is not int64 or type(dim) is not int:
        return None
    shape = self._layout.shape
    ishape = index._layout.shape
    nd = len(shape)
    if nd == 0 or len(ishape) != nd or self._dtype not in FAST_DTYPES:
        return None
    d = dim + nd if dim < 0 else dim
    if not 0 <= d < nd:
        return None
    for e in range(nd):
        if ishape[e] > shape[e] and e != d:
            return None
    iinfo = _cinfo[ishape]
    if not 0 < iinfo[1] <= _SMALL:
        return None
    idx = flat_run(index, iinfo)
    info = _cinfo[shape]
    flat = flat_run(self, info)
    if idx is None or flat is None:
        return None
    if int(_umax(idx.view(np.uint64))) >= shape[d]:  # (a negative value reads as a huge one)
        return None
    strides = info[0]
    s = strides[d]
    grid = _GRIDS[(ishape, strides, d)]
    pos = np.add(idx, grid) if s == 1 else np.multiply(idx, s)
    if s != 1:
        pos += grid
    return flat, pos, d


def source_run(src: Any, self: Any, index: Any) -> np.ndarray | None:
    """The flat run of a scatter's ``src`` when it is a row-major tensor of ``self``'s dtype and
    exactly the index's shape (the values read, one per index element), else None."""
    if type(src) is not Tensor or src._dtype is not self._dtype:
        return None
    shape = index._layout.shape
    if src._layout.shape != shape:
        return None
    return flat_run(src, _cinfo[shape])


def along_slices(self: Any, dim: Any, index: Any) -> tuple[np.ndarray, np.ndarray, int, tuple[int, int, int]] | None:
    """``(flat, idx, d, (outer, size, inner))`` for a call on the slices of the row-major tensor
    ``self`` at positions ``index`` (a row-major 1-D int64 tensor of 1 to ``_SMALL`` values, every
    one in ``[0, size)``) along ``dim`` (``index_select``, ``index_add``, ``index_copy``,
    ``index_fill``): ``flat`` is ``self``'s flat run, which reads as ``(outer, size, inner)`` with
    dim ``d`` in the middle; ``idx`` the index's values (no copy). None when a precondition fails.

    >>> x = strided.arange(6.0).reshape(2, 3)
    >>> flat, idx, d, three = along_slices(x, 1, strided.tensor([2, 0]))
    >>> flat.reshape(three).take(idx, axis=1).tolist(), d
    ([[[2.0], [0.0]], [[5.0], [3.0]]], 1)
    """
    if type(self) is not Tensor or type(index) is not Tensor or index._dtype is not int64 or type(dim) is not int:
        return None
    shape = self._layout.shape
    ishape = index._layout.shape
    nd = len(shape)
    if nd == 0 or len(ishape) != 1 or not 0 < ishape[0] <= _SMALL or self._dtype not in FAST_DTYPES:
        return None
    d = dim + nd if dim < 0 else dim
    if not 0 <= d < nd:
        return None
    info = _cinfo[shape]
    if not info[1]:  # (an empty tensor: the general path, whose checks differ by case)
        return None
    idx = flat_run(index, _cinfo[ishape])
    flat = flat_run(self, info)
    if idx is None or flat is None:
        return None
    size = shape[d]
    if int(_umax(idx.view(np.uint64))) >= size:
        return None
    inner = info[0][d]
    return flat, idx, d, (info[1] // (size * inner), size, inner)


def slice_source(source: Any, self: Any, d: int, n: int) -> np.ndarray | None:
    """The flat run of ``index_add``/``index_copy``'s ``source`` when it is a row-major tensor of
    ``self``'s dtype and exactly ``self``'s shape with ``n`` along ``d``, else None."""
    if type(source) is not Tensor or source._dtype is not self._dtype:
        return None
    shape = self._layout.shape
    want = shape[:d] + (n,) + shape[d + 1:]
    if source._layout.shape != want:
        return None
    return flat_run(source, _cinfo[want])
