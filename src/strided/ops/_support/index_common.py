"""Shared checks and index arithmetic of the indexing functions (``gather``, ``scatter_``,
``index_select``, ``index_add_``, ``masked_fill_``, ...).

Every indexing function validates everything first — argument kinds, index dtype and rank,
shapes, every index value against its size, the target's writability — and only then writes,
so a failed call leaves its target untouched (stricter than PyTorch, which may write part of
the target before it finds a bad index). The helpers here raise PyTorch's error class with a
first line compatible with PyTorch's own, then lines in the tensor's numbers and a fix.

Index arithmetic is NumPy's: an index tensor becomes an int64 array (:func:`index_array`), and
:func:`storage_index` turns "index along ``dim``, every other dim counted" into positions in the
target's flat storage, so one ``np.take`` / ``np.put`` / ``ufunc.at`` on the 1-D storage reads or
writes any strided layout in place.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ... import layout as L
from ...args import is_number, type_name
from ...dispatch import memory_overlap, shares_storage
from ...dtypes import TORCH_NAME, DType, int32, int64, scalar_overflow
from ...errors import StridedRuntimeError, StridedTypeError, join_lines
from ...kernels import check_writable
from ...messages import partial_overlap, read_after_write
from ...scalars import filled, numpy_scalar, parse_int
from ...tensor import Tensor


def scalar_name(dtype: DType) -> str:
    """PyTorch's name of ``dtype`` in messages (``Float``, ``Long``, ...)."""
    return TORCH_NAME[dtype.name]


def tensor_of(value: Any, op: str, name: str, pos: int) -> Tensor:
    """``value`` if it is a strided tensor, else PyTorch's TypeError for the argument."""
    if isinstance(value, Tensor):
        return value
    raise StridedTypeError(
        join_lines(
            f"{op}(): argument '{name}' (position {pos}) must be Tensor, not {type_name(value)}",
            f"got {value!r:.60}; make a tensor first: strided.tensor(data)"
            + (", dtype=strided.int64" if name in ("index", "indices") else ""),
        )
    )


def wrap_dim(dim: Any, ndim: int) -> int:
    """``dim`` wrapped into ``[0, max(ndim, 1))`` (a 0-d tensor has dim 0 and -1, as in PyTorch)."""
    return L.wrap_dim(dim, ndim)


def check_index_dtype(index: Tensor, op: str, allowed: tuple[DType, ...], first_line: str,
                      cls: type = StridedRuntimeError) -> None:
    """Refuse an index tensor whose dtype is not in ``allowed``, with PyTorch's ``first_line``."""
    if index._dtype in allowed:
        return
    names = " or ".join(d.name for d in allowed)
    raise cls(
        join_lines(
            first_line,
            f"{op} was given an index tensor of dtype {index._dtype.name} and shape {index.shape}; "
            f"index tensors hold positions as {names}",
            "fix: convert it first: index.to(strided.int64)"
            + ("; for a bool mask use masked_select/masked_fill or nonzero()" if index._dtype.name == "bool" else ""),
        )
    )


LONG = (int64,)
INT_OR_LONG = (int32, int64)


def index_array(index: Tensor, target: Tensor | None = None) -> np.ndarray:
    """The index tensor's values as an int64 NumPy array (a view where it already is int64,
    unless it shares memory with the ``target`` about to be written: then a copy, so the
    indices are read before anything is written)."""
    arr = index._np()
    if arr.dtype != np.int64:
        return arr.astype(np.int64)
    if target is not None and shares_memory(index, target):
        return arr.copy()
    return arr


def check_bounds(idx: np.ndarray, size: int, dim: int, op: str, cls: type, first: str,
                 negative_ok: bool = False, what: str = "index") -> np.ndarray:
    """Check every value of ``idx`` against ``size``; return ``idx`` with negative values wrapped
    when ``negative_ok`` (PyTorch's ``index_fill_``, ``take``), else refuse them as PyTorch does.

    ``first`` is PyTorch's first line, formatted with ``index``, ``dim`` and ``size``.
    """
    if idx.size == 0:
        return idx
    lo = -size if negative_ok else 0
    if not negative_ok:
        if in_range(idx, size):
            return idx
    else:
        low, high = _min_max(idx)
        if low >= lo and high < size:
            return np.where(idx < 0, idx + size, idx) if low < 0 else idx
    bad = (idx < lo) | (idx >= size)
    where = tuple(int(i) for i in np.argwhere(bad)[0])
    value = int(idx[where])
    count = int(np.count_nonzero(bad))
    valid = f"{-size} to {size - 1}" if negative_ok else f"0 to {size - 1}"
    if size == 0:
        valid = "none: the dimension is empty"
    at = f" at position {list(where)} of the {what}" if idx.ndim else ""
    raise cls(
        join_lines(
            first.format(index=value, dim=dim, size=size),
            f"{op}: the {what} holds {value}{at}, but dim {dim} has size {size} "
            f"(valid {what} values: {valid}); {count} of the {idx.size} {what} values are out of range",
            "nothing was written" if op.endswith("_") else "",
            f"fix: keep the {what} values within the size, e.g. {what}.clamp(0, {max(size - 1, 0)}) "
            f"or {what} % {max(size, 1)}",
        )
    )


def in_range(idx: np.ndarray, size: int) -> bool:
    """Whether every value of the int64 array ``idx`` is in ``[0, size)``: one pass, the greatest
    value read as unsigned (a negative int64 is then larger than any size)."""
    if idx.size == 0:
        return True
    if idx.dtype != np.int64:
        low, high = _min_max(idx)
        return low >= 0 and high < size
    return int(idx.view(np.uint64).max()) < size


def _min_max(idx: np.ndarray) -> tuple[int, int]:
    """The least and greatest index, read from memory once: block by block (each block stays in
    cache between its ``min`` and its ``max``) for a large contiguous index."""
    if idx.size <= BLOCK or not idx.flags.c_contiguous:
        return idx.min(), idx.max()
    flat = idx.reshape(-1)
    lows, highs = [], []
    for start in range(0, flat.size, BLOCK):
        block = flat[start : start + BLOCK]
        lows.append(block.min())
        highs.append(block.max())
    return min(lows), max(highs)


def check_target(target: Tensor, op: str, number_fill: bool = False, updates: bool = False) -> None:
    """The write path's checks on an in-place target (:func:`strided.kernels.check_writable`):
    writable memory, and no element sharing a memory location with another (an expanded
    tensor) — except for one number filled everywhere (``number_fill``), which PyTorch allows."""
    check_writable(target._storage, target._layout, op, number_fill, updates)


# (the memory tests, over typed aliases too, are the dispatch layer's: the write path uses them)
shares_memory = shares_storage
overlap = memory_overlap


def check_no_overlap(target: Tensor, other: Any, op: str, name: str) -> None:
    """PyTorch's ``assert_no_overlap`` between an in-place target and an input it reads (the
    index, the source): the same memory read and written, fully or in part, is refused; layouts
    PyTorch cannot judge (not dense) are let through, and read before anything is written."""
    if not isinstance(other, Tensor) or not shares_memory(target, other):
        return
    tl, ol = target._layout, other._layout
    status = overlap(target, other)
    if status is L.OverlapStatus.PARTIAL or status is L.OverlapStatus.FULL:
        raise partial_overlap(op, tl, ol, L.storage_extent(tl), L.storage_extent(ol),
                              f"fix: pass a copy of the {name}: x.{op}(..., {name}.clone(), ...)")


def refuse_stale_read(target: Tensor, other: Any, op: str, name: str, where: Any) -> None:
    """After :func:`check_no_overlap`: where ``other`` (read) shares ``target``'s memory in a
    layout PyTorch lets through ("too hard" to check), its kernel computes in its loop's order;
    refuse where that loop reads an element after writing it (``where()``: the loop's model,
    :mod:`strided.kernels.torch_index_loops`, giving the positions or None), since strided reads
    ``other`` first and would give another number. Typed aliases of one buffer (different
    storages) are not modelled: read first, as before."""
    if not isinstance(other, Tensor) or other._storage is not target._storage:
        return
    if memory_overlap(target, other) is not L.OverlapStatus.TOO_HARD:
        return
    at = where()
    if at is not None:
        raise read_after_write(op, target._layout, other._layout, at,
                               f"fix: pass a copy of the {name}: x.{op}(..., {name}.clone(), ...)")


def check_same_dtype(target: Tensor, source: Tensor, op: str, first: str) -> None:
    """PyTorch's refusal of a source whose dtype is not the target's (no implicit cast)."""
    if source._dtype is target._dtype:
        return
    raise StridedRuntimeError(
        join_lines(
            first,
            f"{op} writes a {source._dtype.name} source into a {target._dtype.name} tensor; "
            "this op does not convert",
            f"fix: convert the source first: source.to(strided.{target._dtype.name})",
        )
    )


def fill_value(value: Any, target_dtype: DType, op: str, numel: int) -> Any:
    """The value a fill-like op (``masked_fill_``, ``index_fill_``, ``scatter_(value=)``) writes:
    a Python number after PyTorch's overflow check; a 0-d tensor is read as its number first
    (PyTorch calls ``value.item()``: the same checks, so 1+1j is refused for a float target, not
    cut to 1.0, and 1e6 for float16)."""
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise StridedRuntimeError(
                join_lines(
                    f"{op} only supports a 0-dimensional value tensor, but got tensor with "
                    f"{value.ndim} dimension(s).",
                    f"the value has shape {value.shape}; {op} writes one value into every selected element",
                    "fix: pass a number or a 0-d tensor (value.item() or value[0])",
                )
            )
        value = value._np()[()].item()
    if isinstance(value, np.generic) and value.dtype.kind in "biufc":
        value = numpy_scalar(value)  # (PyTorch's Scalar: np.complex64 is its real part, np.True_ 1.0)
    if not is_number(value):
        raise StridedTypeError(
            join_lines(
                f"{op}() received an invalid combination of arguments - got value of type "
                f"{type_name(value)}, but expected (Number value) or (Tensor value)",
                f"got {value!r:.60}; pass a number or a 0-d tensor",
            )
        )
    if value.__class__ is int:
        value = parse_int(value, op)  # (PyTorch reads an int Scalar as int64, or uint64 from 2**63)
    if target_dtype.kind in "iu" and isinstance(value, float) and np.isfinite(value):
        # PyTorch checks the float itself first (c10::overflows: -0.5 or 255.9 into uint8 is
        # refused, not truncated to 0 or 255 and written), then truncates it
        refused = scalar_overflow(value, target_dtype)
        if refused is not None:
            raise StridedRuntimeError(join_lines(
                refused, f"{op} writes {value!r} into a {target_dtype.name} tensor, outside its range",
                f"fix: a value in the {target_dtype.name} range, or convert the tensor first"))
        value = int(value)  # PyTorch truncates a float written into an integer tensor
        if value == 2**63:  # (2.0**63 passes that check, float(INT64_MAX) being 2**63; x86's
            value = -(2**63)  # conversion gives the "integer indefinite", INT64_MIN)
    return filled(value, target_dtype, op, max(numel, 2))


def other_dims_grid(shape: tuple[int, ...], strides: tuple[int, ...], dim: int, offset: int) -> np.ndarray:
    """``offset + sum(i_d * strides[d] for d != dim)`` over ``shape``, as a broadcastable int64
    array (size 1 along ``dim``): each element's storage position, before its index along ``dim``."""
    base = np.full((1,) * len(shape), offset, dtype=np.int64)
    for d, (n, s) in enumerate(zip(shape, strides)):
        if d == dim or n == 1 or s == 0:
            continue
        view = [1] * len(shape)
        view[d] = n
        base = base + (np.arange(n, dtype=np.int64) * s).reshape(view)
    return base


def storage_index(idx: np.ndarray, strides: tuple[int, ...], dim: int, offset: int) -> np.ndarray:
    """Storage positions of ``t[..., idx[i], ...]`` (``idx`` along ``dim``, every other dim counted
    from 0 over ``idx``'s own shape) in a tensor with ``strides`` and ``offset``: a fresh int64
    array of ``idx``'s shape."""
    lin = idx * strides[dim] if strides[dim] != 1 else idx.astype(np.int64, copy=True)
    if idx.size <= _SMALL:  # (the same grid, remembered: see storage_blocks)
        lin += _small_grid(idx.shape, strides, dim, offset)
    else:
        lin += other_dims_grid(idx.shape, strides, dim, offset)
    return lin


# Storage positions are computed a block at a time (about 32K of them, 256 KB of int64, which
# stays in cache with the index block and the values read or written), and each block is consumed
# at once (np.take / np.put / ufunc.at): the whole position array of a large gather would be
# written to memory and read back, which costs as much as the gather itself.
BLOCK = 1 << 15


# An index of at most this many elements has its grid of other-dim positions cached: the cache
# holds at most 64 such read-only grids (2 MB of int64).
_SMALL = 1 << 12


@functools.lru_cache(maxsize=64)
def _small_grid(shape: tuple[int, ...], strides: tuple[int, ...], dim: int, offset: int) -> np.ndarray:
    """:func:`other_dims_grid` over ``shape``, broadcast to it: a contiguous, read-only array."""
    grid = np.ascontiguousarray(np.broadcast_to(other_dims_grid(shape, strides, dim, offset), shape))
    grid.setflags(write=False)
    return grid


def storage_blocks(idx: np.ndarray, strides: tuple[int, ...], dim: int, offset: int):  # noqa: ANN201
    """Yield ``(start, stop, base, positions)``: for consecutive row-major runs ``start:stop`` of
    the index's elements, their storage positions (as :func:`storage_index`) less ``base`` (>= 0),
    a 1-D int64 array that is overwritten by the next block (use it before asking for the next).

    Consumers read or write ``storage[base:]`` at ``positions``: the block's offset along dim 0 is
    folded into that slice instead of being added to every position (one pass less per block).
    """
    if idx.ndim == 0:
        idx = idx.reshape(1)
    n0 = idx.shape[0]
    per = idx.size // n0 if n0 else 0
    if per == 0:
        return
    step = max(1, BLOCK // per)
    s = strides[dim]
    if n0 <= step and idx.size <= _SMALL:  # one small block: its grid is remembered (a loop's
        grid = _small_grid(idx.shape, strides, dim, offset)  # same call needs the same grid)
        if s == 1:
            lin = np.add(idx, grid)
        else:
            lin = np.multiply(idx, s)
            lin += grid
        yield 0, idx.size, 0, lin.reshape(-1)
        return
    rows = min(step, n0)
    s0 = strides[0] if dim != 0 else 0  # how the positions move from one block to the next
    # the positions of the first block's grid (every dim but ``dim``), laid out like the block
    # itself so that the per-block add reads two contiguous arrays
    grid = other_dims_grid((rows,) + idx.shape[1:], strides, dim, offset)
    grid = np.ascontiguousarray(np.broadcast_to(grid, (rows,) + idx.shape[1:]))
    buf = np.empty(rows * per, np.int64)
    for r0 in range(0, n0, step):
        r1 = min(r0 + step, n0)
        m = r1 - r0
        lin = buf[: m * per].reshape((m,) + idx.shape[1:])
        g = grid[:m]
        if s == 1:
            np.add(idx[r0:r1], g, out=lin)
        else:
            np.multiply(idx[r0:r1], s, out=lin)
            lin += g
        base = r0 * s0
        if base < 0:  # (a negative stride along dim 0: positions fall below the first block's)
            lin += base
            base = 0
        yield r0 * per, r1 * per, base, lin.reshape(-1)


# PyTorch's CPU scatter kernels (scatter_add_, scatter_(reduce=), scatter_reduce_, and index_add_'s
# scatter_add_ path) work on a float32 copy of a float16 / bfloat16 target (opmath): the values
# accumulate in float32, each element rounded once at the end, and the source is read before
# anything is written back (measured, torch 2.13: equal to the float32 run rounded, whatever
# the index's repeats; an aliasing source gives the read-first result).
OPMATH_DTYPES = frozenset(("float16", "bfloat16"))


def opmath_at(ufunc: np.ufunc, arr: np.ndarray, lin: np.ndarray, vals: np.ndarray) -> None:
    """``ufunc.at(arr, lin, vals)`` as PyTorch's scatter kernels run it on float16/bfloat16
    storage ``arr``: every element at ``lin`` (1-D storage positions, repeats allowed) gathered
    into float32, the values (broadcast to ``lin``) combined there in ``lin``'s order, and each
    touched element rounded back once. Untouched elements are not rewritten."""
    uniq, inv = np.unique(lin, return_inverse=True)
    acc = arr[uniq].astype(np.float32)
    ufunc.at(acc, inv, np.broadcast_to(np.asarray(vals).reshape(-1) if np.ndim(vals) else vals,
                                       lin.shape).astype(np.float32))
    arr[uniq] = acc.astype(arr.dtype)
