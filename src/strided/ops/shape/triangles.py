"""Triangles, diagonals and grids, with PyTorch's semantics: ``tril``/``triu`` (and the in-place
``tril_``/``triu_``), ``diag``, ``diag_embed``, ``diagflat``, ``block_diag`` (copies into new memory,
reported to the copy ledger with a reason), ``meshgrid`` (views: each input expanded, stride 0
along the other dims, as PyTorch's are) and ``cartesian_prod`` (a copy).

NumPy reads the inputs in place and writes into the result's memory; a diagonal is written
through the diagonal's own layout (:func:`strided.layout.diagonal`), never element by element.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np

from ... import layout as L
from ...args import int_arg
from ...device import parse_device
from ...dispatch import OPEN, adopted, copied, result_array
from ...dtypes import (
    TORCH_NAME,
    DType,
    bool_,
    default_float,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    to_dtype,
    uint8,
)
from ...errors import StridedNotImplementedError, StridedRuntimeError, join_lines
from ...gradients import grad_zeros, linear, seal
from ...kernels import native, numpy_view
from ...kernels.blocked import copy_into
from ...kernels.memory import check_writable, flat_run
from ...layout import Layout, memo
from ...layout import plans as P
from ...opdef import Kind, declare
from ...tensor import Tensor, tensor_arg
from .._support import support
from .._support.memo import Memo
from .._support.operands import _cinfo
from .._support.out import write_out
from .._support.promotion import TORCH_NAMES, can_cast, promote_types
from ..registry import backward, method
from .joining import tensor_list

__all__ = [
    "block_diag", "cartesian_prod", "diag", "diag_embed", "diagflat", "meshgrid", "tril", "tril_", "triu",
    "triu_",
]


# ---------------------------------------------------------------- tril, triu


def _keep_mask(shape: tuple[int, ...], k: int, lower: bool) -> np.ndarray:
    """The (rows, cols) bool mask of the elements ``tril`` (``lower``) or ``triu`` keeps (read-only:
    a small one is shared by the calls that ask for it)."""
    n, m = shape[-2], shape[-1]
    # A diagonal beyond the matrix keeps all or nothing, as -n and m do: clamped there, np.tri's
    # aranges never see an int64 overflow (diagonal=-2**63 raised NumPy's OverflowError).
    k = min(max(k, -n), m)
    if n * m <= _SMALL_MASK:
        return _small_mask(n, m, k, lower)
    return _mask(n, m, k, lower)


def _mask(n: int, m: int, k: int, lower: bool) -> np.ndarray:
    return np.tri(n, m, k, dtype=bool) if lower else ~np.tri(n, m, k - 1, dtype=bool)


_SMALL_MASK = 1 << 14  # (elements: the cache holds at most 32 masks of 16 KB)


@functools.lru_cache(maxsize=32)
def _small_mask(n: int, m: int, k: int, lower: bool) -> np.ndarray:
    mask = _mask(n, m, k, lower)
    mask.setflags(write=False)
    return mask


def _check_matrix(t: Tensor, op: str) -> None:
    if len(t._layout.shape) < 2:
        raise StridedRuntimeError(
            join_lines(
                f"{op.rstrip('_')}: input tensor must have at least 2 dimensions",
                f"the tensor has shape {t._layout.shape}; {op} keeps a triangle of the last two dims "
                "(a 1-D tensor could be made a row first: t.unsqueeze(0))",
            )
        )


# The dtypes of tril/triu's fast path: each op's supported ones among NumPy's plain types, with the
# zero np.where writes outside the triangle (the general path's ``target[...] = 0``), a 0-d array (np.where
# takes it faster than a NumPy scalar: measured 1.7 against 2.5 µs on a (3, 4) float32).
_ZEROS = {
    lower: {d: np.zeros((), d.numpy) for d in (bool_, uint8, int8, int16, int32, int64, float16, float32, float64)
            if not support.refused("tril" if lower else "triu", d)}
    for lower in (True, False)
}


def _fast_triangle(input: Any, diagonal: Any, lower: bool) -> Tensor | None:
    """``tril``/``triu`` of a non-empty row-major tensor, nobody listening: one ``np.where`` of the
    flat run (seen in its shape), the kept-elements mask and the dtype's zero, its fresh
    row-major result adopted (the general path's values, bit for bit); else None."""
    if OPEN or input.__class__ is not Tensor or diagonal.__class__ is not int:
        return None
    lay = input._layout
    shape = lay.shape
    plan = _SMALL_PLAN[(shape, diagonal, lower, input._dtype)]
    if plan is not None:  # a small matrix stack: flat_run inlined (its checks, in its order)
        info, zeroed, zero = plan
        if lay.strides != info[0]:
            return None
        n = info[1]
        run = input._storage.array
        if lay.offset or len(run) != n:
            run = run[lay.offset : lay.offset + n]
            if len(run) != n:
                return None
        # a copy of the run with the zero written at the positions outside the triangles: the
        # np.where's elements, at a third of its cost on a small tensor
        res = run.copy()
        res[zeroed] = zero
        return adopted(res, info[2], input._dtype)
    zero = _ZEROS[lower].get(input._dtype)
    if zero is None or len(shape) < 2 or not -_INT64 <= diagonal < _INT64:
        return None
    info = _cinfo[shape]
    run = flat_run(input, info) if info[1] else None
    if run is None:
        return None
    res = np.empty(info[1], run.dtype)
    if _tri_copy(run, res, shape, diagonal, lower):
        return adopted(res, info[2], input._dtype)
    res = np.where(_keep_mask(shape, diagonal, lower), run.reshape(shape), zero)
    return adopted(res.reshape(-1), info[2], input._dtype)


def _tri_copy(src: np.ndarray | None, out: np.ndarray, shape: tuple[int, ...], k: int, lower: bool) -> bool:
    """Whether the compiled ``tri_copy`` wrote ``tril`` (``lower``) / ``triu`` of diagonal ``k`` of
    the row-major ``src`` (None: ``out`` itself, in place) into the row-major ``out`` of ``shape``:
    each row's kept elements copied as they are, the others zero bytes (every dtype's zero), row by
    row (np.where's mask and select read and write every element three times); False (nothing
    written) without the kernel or under :data:`_SMALL_MASK` elements (the cached mask is cheaper)."""
    if out.size <= _SMALL_MASK or (kern := native.special()) is None:
        return False
    n, m = shape[-2], shape[-1]
    return bool(kern.tri_copy(src, out, n, m, min(max(k, -n), m), lower))


@functools.lru_cache(maxsize=64)
def _zeroed_positions(shape: tuple[int, ...], k: int, lower: bool) -> np.ndarray:
    """The flat row-major positions, in a tensor of ``shape`` (at most :data:`_SMALL_MASK`
    elements), of the elements ``tril`` (``lower``) or ``triu`` of diagonal ``k`` (clamped to
    ``[-rows, cols]`` by the caller, as :func:`_keep_mask` clamps it) sets to zero: every matrix's
    positions outside :func:`_keep_mask`'s. Read-only: shared by the calls that ask for it."""
    n, m = shape[-2], shape[-1]
    outside = np.flatnonzero(~_keep_mask(shape, k, lower))
    flat = (np.arange(L.product(shape[:-2]))[:, None] * (n * m) + outside).reshape(-1)
    flat.setflags(write=False)
    return flat


# (shape, diagonal, lower) -> _zeroed_positions' answer, the diagonal clamped as _keep_mask clamps
# it: a dict lookup per call where the clamp and the lru_cache call were a tenth of a small tril
_ZEROED = Memo(lambda key: _zeroed_positions(key[0], min(max(key[1], -key[0][-2]), key[0][-1]), key[2]), limit=256)



def _small_plan(key: tuple[tuple[int, ...], int, bool, Any]) -> tuple[tuple, np.ndarray, np.ndarray] | None:
    """For ``(shape, diagonal, lower, dtype)``: (the shape's ``_cinfo`` entry, :data:`_ZEROED`'s
    positions, the dtype's zero in :data:`_ZEROS`) where ``shape`` is a non-empty stack of matrices
    of at most :data:`_SMALL_MASK` elements (the copy-and-zero path's case), the op supports the
    dtype and the diagonal is an int64, else None (1-d, 0-d, empty, large, refused, far)."""
    shape, diagonal, lower, dtype = key
    zero = _ZEROS[lower].get(dtype)
    if zero is None or len(shape) < 2 or not -_INT64 <= diagonal < _INT64:
        return None
    info = _cinfo[shape]
    if not info[1] or info[1] > _SMALL_MASK:
        return None
    return info, _ZEROED[key[:3]], zero


# (shape, diagonal, lower, dtype) -> _small_plan's answer: one look-up per small call where the
# dtype's zero, the diagonal's range, the shape's _cinfo and _ZEROED were four (with flat_run's
# call, a third of a small tril's own time)
_SMALL_PLAN = Memo(_small_plan, limit=256)

_INT64 = 1 << 63


def _triangle(input: Tensor, diagonal: Any, lower: bool) -> Tensor:
    """``tril``/``triu``'s general path (the caller has tried :func:`_fast_triangle`)."""
    op = "tril" if lower else "triu"
    t = tensor_arg(input, op)
    k = int_arg(diagonal, op, "diagonal", 2)
    _check_matrix(t, op)
    if t.numel():  # (uint16/32/64: PyTorch has no kernel; an empty tensor runs none)
        support.check(op, t._dtype, (t,))
    shape = t._layout.shape
    out, target = result_array(shape, t._dtype)  # PyTorch: row-major whatever the input's layout
    if out.numel():
        if target.flags.c_contiguous and target.size > _SMALL_MASK and native.special() is not None:
            copy_into(target, t._np())  # (the compiled blocked copy: any layout into the row-major result)
            if _tri_copy(None, target.reshape(-1), shape, k, lower):
                return copied(op, (t,), out, lambda: f"{op}: the {'lower' if lower else 'upper'} triangle "
                              f"(diagonal={k}) written into new memory")
        target[...] = 0
        np.copyto(target, t._np(), where=_keep_mask(shape, k, lower))
    side = "lower" if lower else "upper"
    return copied(op, (t,), out, lambda: f"{op}: the {side} triangle (diagonal={k}) written into new memory")


def _triangle_(self: Tensor, diagonal: Any, lower: bool) -> Tensor:
    op = "tril_" if lower else "triu_"
    t = tensor_arg(self, op)
    k = int_arg(diagonal, op, "diagonal", 1)
    _check_matrix(t, op)
    # Note: PyTorch writes into an expanded (stride-0) target; strided refuses, as its other
    # in-place writes do, before anything is written.
    if t.numel():
        support.check(op.rstrip("_"), t._dtype, (t,))
    check_writable(t._storage, t._layout, op)
    if t.numel():
        run = flat_run(t, _cinfo[t._layout.shape])
        if run is None or not _tri_copy(None, run, t._layout.shape, k, lower):
            np.copyto(t._np(), 0, casting="unsafe", where=~_keep_mask(t._layout.shape, k, lower))
    return t


@method("tril")
def tril(input: Tensor, diagonal: int = 0, *, out: Any = None) -> Tensor:
    """The lower triangle of the last two dims (elements with ``col <= row + diagonal``), others
    0, in new row-major memory (``torch.tril``).

    >>> strided.tril(strided.ones(2, 2)).tolist()
    [[1.0, 0.0], [1.0, 1.0]]
    """
    if out is not None:  # (PyTorch's out= takes only the result's dtype)
        return write_out(out, tril(input, diagonal), "tril", (input, diagonal), "matmul")
    fast = _fast_triangle(input, diagonal, True)
    return fast if fast is not None else _triangle(input, diagonal, True)


@method("triu")
def triu(input: Tensor, diagonal: int = 0, *, out: Any = None) -> Tensor:
    """The upper triangle of the last two dims (``col >= row + diagonal``), others 0 (``torch.triu``).

    >>> strided.triu(strided.ones(3, 3, dtype=strided.int64)).tolist()
    [[1, 1, 1], [0, 1, 1], [0, 0, 1]]
    """
    if out is not None:  # (PyTorch's out= takes only the result's dtype)
        return write_out(out, triu(input, diagonal), "triu", (input, diagonal), "matmul")
    fast = _fast_triangle(input, diagonal, False)
    return fast if fast is not None else _triangle(input, diagonal, False)


def tril_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None, device: Any = None) -> Tensor:
    """The (row, column) indices of the lower triangle of a ``row`` x ``col`` matrix (elements
    with ``c <= r + offset``), as a (2, N) int64 tensor in row-major order (``torch.tril_indices``).

    >>> strided.tril_indices(3, 3).tolist()
    [[0, 1, 1, 2, 2, 2], [0, 0, 1, 0, 1, 2]]
    """
    if dtype is None and device is None and (fast := _pairs_copy(row, col, offset, True)) is not None:
        return fast
    return _triangle_indices(row, col, offset, dtype, device, "tril_indices")


def triu_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None, device: Any = None) -> Tensor:
    """The (row, column) indices of the upper triangle of a ``row`` x ``col`` matrix (elements
    with ``c >= r + offset``), as a (2, N) int64 tensor in row-major order (``torch.triu_indices``).

    >>> strided.triu_indices(2, 3, 1).tolist()
    [[0, 0, 1], [1, 2, 2]]
    """
    if dtype is None and device is None and (fast := _pairs_copy(row, col, offset, False)) is not None:
        return fast
    return _triangle_indices(row, col, offset, dtype, device, "triu_indices")


def _pairs_copy(row: Any, col: Any, offset: Any, lower: bool) -> Tensor | None:
    """``tril_indices``/``triu_indices``'s common call (int sizes of a small matrix, an int offset,
    the default dtype and device): a copy of the remembered pairs in their row-major layout, the
    general path's int64 result; None for anything else (the general path checks and says why)."""
    hit = _PAIRS.get((row, col, offset, lower)) if row.__class__ is int and col.__class__ is int and \
        offset.__class__ is int else None  # (the classes first: 3.0 and True hash as 3 and 1 do)
    if hit is None:
        if row.__class__ is not int or col.__class__ is not int or offset.__class__ is not int or row < 0 or \
                col < 0 or row * col > _MEMO_ELEMENTS or not -_FAR_OFFSET < offset < _FAR_OFFSET:
            return None
        pairs = _small_index_pairs(row, col, offset, lower)
        hit = (pairs.reshape(-1), _cinfo[pairs.shape][2])
        if len(_PAIRS) < 256:
            _PAIRS[(row, col, offset, lower)] = hit
    return adopted(hit[0].copy(), hit[1], int64)


# (row, col, offset, lower) -> the pairs' flat read-only int64 run and (2, N) row-major layout
_PAIRS: dict[tuple[int, int, int, bool], tuple[np.ndarray, Any]] = {}


def _triangle_indices(row: Any, col: Any, offset: Any, dtype: Any, device: Any, op: str) -> Tensor:
    if device is not None:
        parse_device(device, op)
    row, col, offset = int_arg(row, op, "row", 1), int_arg(col, op, "col", 2), int_arg(offset, op, "offset", 3)
    dt = int64 if dtype is None else to_dtype(dtype)
    if dt not in (int32, int64):  # (PyTorch's kernel is instantiated for these two only)
        raise StridedNotImplementedError(join_lines(
            f'"{op}" not implemented for \'{TORCH_NAME[dt.name]}\'',
            f"fix: dtype=strided.int64 (the default) or strided.int32, then .to({dt!r})"))
    for name, v in (("row", row), ("col", col)):
        if v < 0:
            raise StridedRuntimeError(join_lines(f"{name} must be non-negative, got{v}",
                                                 f"{op}({row}, {col}) asks for a matrix with a negative size"))
    lower = op == "tril_indices"
    if row * col <= _MEMO_ELEMENTS:
        pairs = _small_index_pairs(row, col, offset, lower)
        # (new memory, filled: astype's fresh C-ordered copy, the unsafe cast np.copyto would make,
        # becomes the storage -- without copyto's Python wrapper and a separate allocation)
        return adopted(pairs.astype(dt.numpy).reshape(-1), _cinfo[pairs.shape][2], dt)
    runs = _triangle_runs(row, col, offset, lower)
    t, arr = result_array((2, int(runs[1].sum())), dt)
    k = native.special()
    # (the compiled fill: the same pairs in two passes of writes; offsets beyond 2**62 stay with NumPy)
    if k is None or not -_FAR_OFFSET < offset < _FAR_OFFSET or not k.tri_indices(arr, row, col, offset, lower):
        _fill_index_pairs(runs, arr)
    return t


_FAR_OFFSET = 1 << 62


def _triangle_runs(row: int, col: int, offset: int, lower: bool) -> tuple[np.ndarray, np.ndarray]:
    """(first column, number of columns) of each row of a triangle: each row's columns are one
    run, ``[0, min(col, r + offset + 1))`` below, ``[max(0, r + offset), col)`` above."""
    r = np.arange(row, dtype=np.int64)
    if lower:
        return np.zeros(row, dtype=np.int64), np.clip(r + (offset + 1), 0, col)
    start = np.clip(r + offset, 0, col)
    return start, col - start


def _fill_index_pairs(runs: tuple[np.ndarray, np.ndarray], out: np.ndarray) -> np.ndarray:
    """The (2, N) (row, column) pairs of the runs, row by row, written into ``out`` (no (row, col)
    mask: the row of each element repeats, its column is its position in its row's run)."""
    start, counts = runs
    total = out.shape[1]
    out[0] = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
    first = np.cumsum(counts) - counts  # each row's first position
    np.subtract(np.arange(total, dtype=np.int64), np.repeat(first - start, counts), out=out[1], casting="unsafe")
    return out


_MEMO_ELEMENTS = 4096  # triangles of matrices up to this size are kept, read-only (at most 64 KB each)


@functools.lru_cache(maxsize=64)
def _small_index_pairs(row: int, col: int, offset: int, lower: bool) -> np.ndarray:
    runs = _triangle_runs(row, col, offset, lower)
    pairs = _fill_index_pairs(runs, np.empty((2, int(runs[1].sum())), dtype=np.int64))
    pairs.flags.writeable = False
    return pairs


@backward("tril")
def tril_backward(out: Tensor, input: Tensor, diagonal: int = 0) -> Any:  # noqa: A002
    """TrilBackward0: the gradient's lower triangle (the zeroed elements got none)."""
    return "TrilBackward0", (input,), lambda g: (tril(g, diagonal),), ()


@backward("triu")
def triu_backward(out: Tensor, input: Tensor, diagonal: int = 0) -> Any:  # noqa: A002
    """TriuBackward0: the gradient's upper triangle."""
    return "TriuBackward0", (input,), lambda g: (triu(g, diagonal),), ()


@method("tril_")
def tril_(self: Tensor, diagonal: int = 0) -> Tensor:
    """In-place ``tril``: zeroes the elements above the ``diagonal`` and returns the tensor.

    >>> strided.ones(2, 2, dtype=strided.int64).tril_().tolist()
    [[1, 0], [1, 1]]
    """
    return _triangle_(self, diagonal, True)


@method("triu_")
def triu_(self: Tensor, diagonal: int = 0) -> Tensor:
    """In-place ``triu``: zeroes the elements below the ``diagonal`` and returns the tensor.

    >>> strided.ones(2, 2, dtype=strided.int64).triu_(1).tolist()
    [[0, 1], [0, 0]]
    """
    return _triangle_(self, diagonal, False)


# ---------------------------------------------------------------- diag family


def _zeros(shape: tuple[int, ...], dtype: DType) -> tuple[Tensor, np.ndarray]:
    """A new row-major tensor of zeros and the NumPy array of its memory in ``shape``: NumPy's
    zeroed allocation adopted (cheaper than an empty result filled with 0; the same bytes)."""
    info = _cinfo[shape]
    try:
        flat = np.zeros(info[1], dtype.numpy)
    except (ValueError, MemoryError, OverflowError):  # (the allocator's error, PyTorch's text)
        out, target = result_array(shape, dtype)
        target[...] = 0
        return out, target
    return adopted(flat, info[2], dtype), flat.reshape(shape)


def _write_diagonal(out: Tensor, values: np.ndarray, offset: int, dim1: int, dim2: int) -> None:
    """Write ``values`` into ``out``'s diagonal through the diagonal's layout (no element loop)."""
    full = out._layout
    key = (full.shape, full.strides, full.offset, offset, dim1, dim2)
    lay = memo.DIAGONAL.get(key) or memo.decide(memo.DIAGONAL, key)
    if lay.__class__ is not Layout:  # (not a plain view: the layout layer's own answer or error)
        lay = L.diagonal(full, offset, dim1, dim2)
    if L.product(lay.shape):
        np.copyto(numpy_view(out._storage, lay), values)


def _embed_1d(t: Tensor, values: np.ndarray, k: int, op: str) -> Tensor:
    n = values.shape[0] + abs(k)
    out, _ = _zeros((n, n), t._dtype)
    _write_diagonal(out, values, k, 0, 1)
    return copied(op, (t,), out, lambda: f"{op}: {values.shape[0]} values laid on diagonal {k} of a new "
                  f"({n}, {n}) matrix")


# ---------------------------------------------------------------- the scatter fast paths
# diag_embed, diagflat and block_diag of small row-major tensors, nobody listening: NumPy's zeroed
# allocation with the inputs' flat runs written at remembered flat positions (one fancy-index
# assignment per input: the elements the general paths copy through the diagonal's or the block's
# view, bit for bit), adopted with the row-major layout the general paths give their result.

# (input elements: up to this many a position index is remembered, 8 bytes each)
_SCATTER_MAX = 1024


def _positions(full: Layout, lay: Layout) -> np.ndarray:
    """The read-only flat positions, in a row-major tensor of layout ``full``, of the elements of
    its view ``lay``, in ``lay``'s row-major order (so ``flat[positions] = run`` writes ``run``
    through the view)."""
    base = np.arange(L.product(full.shape), dtype=np.intp)
    view = np.lib.stride_tricks.as_strided(base[lay.offset:], lay.shape, [s * base.itemsize for s in lay.strides])
    out = view.reshape(-1).copy()
    out.setflags(write=False)
    return out


def _embed_plan(key: tuple) -> tuple[Layout, np.ndarray] | None:
    """:data:`_EMBED`'s entry: ``diag_embed(t, offset, dim1, dim2)`` of a small tensor of ``shape``
    as (the result's row-major layout, the flat positions of its diagonal), or None where the
    general path decides (dims refused or the same, no diagonal element)."""
    shape, k, dim1, dim2 = key
    nd = len(shape) + 1
    if not (-nd <= dim1 < nd and -nd <= dim2 < nd):
        return None
    d1, d2 = dim1 % nd, dim2 % nd
    if d1 == d2 or not shape or not 0 < L.product(shape) <= _SCATTER_MAX:
        return None
    n = shape[-1] + abs(k)
    sizes = list(shape[:-1])
    lo, hi = sorted((d1, d2))
    sizes.insert(lo, n)
    sizes.insert(hi, n)
    full = _cinfo[tuple(sizes)][2]
    lay = L.diagonal_layout(full, k, d1, d2)
    if lay.__class__ is not Layout or lay.shape != shape:
        return None
    return full, _positions(full, lay)


# (shape, offset, dim1, dim2: plain ints) -> diag_embed's plan (or None: the general path)
_EMBED = Memo(_embed_plan, limit=256)


def _flat_embed_plan(key: tuple[int, int]) -> tuple[Layout, np.ndarray]:
    """:data:`_FLAT_EMBED`'s entry: ``n`` values laid on diagonal ``k`` of a new square matrix (the
    row-major layout, the values' flat positions)."""
    n, k = key
    m = n + abs(k)
    full = _cinfo[(m, m)][2]
    return full, _positions(full, L.diagonal_layout(full, k, 0, 1))


# (elements, offset) -> diagflat's plan
_FLAT_EMBED = Memo(_flat_embed_plan, limit=256)


def _fast_embed(t: Any, k: Any, dim1: Any, dim2: Any) -> Tensor | None:
    """``diag_embed(t, k, dim1, dim2)`` (``dim1`` None: ``diagflat(t, k)``) of a small row-major
    tensor, nobody listening: the scatter fast path; else None."""
    if (OPEN or t.__class__ is not Tensor or k.__class__ is not int or not -_SCATTER_MAX <= k <= _SCATTER_MAX):
        return None
    shape = t._layout.shape
    info = _cinfo[shape]
    if not 0 < info[1] <= _SCATTER_MAX:
        return None
    run = flat_run(t, info)
    if run is None:
        return None
    if dim1 is None:
        plan = _FLAT_EMBED[(info[1], k)]
    elif dim1.__class__ is int and dim2.__class__ is int:
        plan = _EMBED[(shape, k, dim1, dim2)]
        if plan is None:
            return None
    else:
        return None
    full = plan[0]
    flat = np.zeros(_cinfo[full.shape][1], t._dtype.numpy)
    flat[plan[1]] = run
    return adopted(flat, full, t._dtype)


@method("diag")
def diag(input: Tensor, diagonal: int = 0, *, out: Any = None) -> Tensor:
    """1-D ``(n,)``: a new square matrix with ``input`` on the ``diagonal``; 2-D: a copy of that
    diagonal (``torch.diag``; for a view of a diagonal use ``t.diagonal()``).

    >>> strided.diag(strided.tensor([1, 2])).tolist()
    [[1, 0], [0, 2]]
    """
    if out is None and not OPEN and input.__class__ is Tensor and diagonal.__class__ is int \
            and len((src := input._layout).shape) == 2:  # (the common call: no argument to check)
        lay = memo.DIAGONAL.get((src.shape, src.strides, src.offset, diagonal, 0, 1))
        if lay.__class__ is Layout and lay.shape[0]:  # (a diagonal made before: its copy, adopted)
            return adopted(numpy_view(input._storage, lay).copy(), _cinfo[lay.shape][2], input._dtype)
    t = tensor_arg(input, "diag")
    k = int_arg(diagonal, "diag", "diagonal", 2)
    nd = len(t._layout.shape)
    if out is not None:
        made = diag(t, k)
        if nd == 1 and isinstance(out, Tensor) and not can_cast(made._dtype, out._dtype):
            raise StridedRuntimeError(join_lines(  # (PyTorch's diag_embed path words it so)
                f"diag: result type {TORCH_NAMES[made._dtype]} can't be cast to the desired out= type "
                f"{TORCH_NAMES[out._dtype]}",
                f"diag makes a {made._dtype.name} matrix; out= is {out._dtype.name}",
                f"fix: pass out=strided.empty(0, dtype=strided.{made._dtype.name})",
            ))
        return write_out(out, made, "diag", (t,), same_dtype="" if nd == 1 else "matmul")
    if nd == 1:
        return _embed_1d(t, t._np(), k, "diag")
    if nd != 2:
        raise StridedRuntimeError(
            join_lines(f"diag(): Supports 1D or 2D tensors. Got {nd}D",
                       f"the tensor has shape {t._layout.shape}; for the diagonals of a batch of matrices "
                       "use t.diagonal(0, -2, -1) (a view), or t.reshape(-1) first for diagflat")
        )
    src = t._layout
    key = (src.shape, src.strides, src.offset, k, 0, 1)
    lay = memo.DIAGONAL.get(key) or memo.decide(memo.DIAGONAL, key)
    if not OPEN and lay.__class__ is Layout and lay.shape[0]:  # the diagonal's copy, adopted
        return adopted(numpy_view(t._storage, lay).copy(), _cinfo[lay.shape][2], t._dtype)
    lay = L.diagonal(src, k, 0, 1)
    out, target = result_array(lay.shape, t._dtype)
    if out.numel():
        np.copyto(target, numpy_view(t._storage, lay))
    return copied("diag", (t,), out,
                  lambda: f"diag: diagonal {k} of a {t._layout.shape} matrix copied into new memory "
                  "(t.diagonal() is the view)")


@backward("diag")
def diag_backward(out: Tensor, input: Tensor, diagonal: int = 0) -> Any:  # noqa: A002
    """1-D input: DiagEmbedBackward0, the gradient's diagonal (a view); 2-D input: PyTorch 2.13's
    DiagonalBackward0_copy, the gradient laid on the diagonal of zeros."""
    shape = input._layout.shape
    if len(shape) == 1:
        return "DiagEmbedBackward0", (input,), lambda g: (g.diagonal(diagonal),), ()

    def laid(g: Tensor) -> Tensor:
        z = grad_zeros(shape, g._dtype)
        _write_diagonal(z, g._np(), diagonal, 0, 1)
        return z

    # (linear in g: its adjoint reads the diagonal back, for create_graph)
    return "DiagonalBackward0_copy", (input,), lambda g: (linear("DiagonalBackwardBackward0", g, laid,
                                                                  lambda gg: gg.diagonal(diagonal)),), ()


@method("diagflat")
def diagflat(input: Tensor, offset: int = 0) -> Tensor:
    """A new square matrix with the flattened ``input`` on diagonal ``offset`` (``torch.diagflat``).

    >>> strided.diagflat(strided.tensor([1, 2])).tolist()
    [[1, 0], [0, 2]]
    """
    fast = _fast_embed(input, offset, None, None)
    if fast is not None:
        return fast
    t = tensor_arg(input, "diagflat")
    k = int_arg(offset, "diagflat", "offset", 2)
    return _embed_1d(t, t._np().reshape(-1), k, "diagflat")


@backward("diagflat")
def diagflat_backward(out: Tensor, input: Tensor, offset: int = 0) -> Any:  # noqa: A002
    """DiagEmbedBackward0: the gradient's diagonal, reshaped to the input (views: a diagonal is
    1-D, so any reshape of it is a view)."""
    shape = input._layout.shape
    return "DiagEmbedBackward0", (input,), lambda g: (g.diagonal(offset).reshape(shape),), ()


@method("diag_embed")
def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """A new tensor whose diagonals (in the plane of ``dim1``, ``dim2``, shifted by ``offset``) hold
    the last dim of ``input``; the rest is 0 (``torch.diag_embed``).

    >>> strided.diag_embed(strided.ones(4, 3)).shape
    (4, 3, 3)
    """
    fast = _fast_embed(input, offset, dim1, dim2)
    if fast is not None:
        return fast
    t = tensor_arg(input, "diag_embed")
    k = int_arg(offset, "diag_embed", "offset", 2)
    shape = t._layout.shape
    nd = len(shape) + 1
    d1, d2 = L.wrap_dim(dim1, nd), L.wrap_dim(dim2, nd)
    if d1 == d2:
        raise StridedRuntimeError(
            join_lines(f"diagonal dimensions cannot be identical {dim1}, {dim2}",
                       f"both name dim {d1} of the {nd}-d result; pick two different dims")
        )
    n = shape[-1] + abs(k)
    sizes = list(shape[:-1])
    lo, hi = sorted((d1, d2))
    sizes.insert(lo, n)
    sizes.insert(hi, n)
    out, _ = _zeros(tuple(sizes), t._dtype)
    _write_diagonal(out, t._np(), k, d1, d2)
    return copied("diag_embed", (t,), out,
                  lambda: f"diag_embed: the last dim laid on diagonal {k} of dims ({d1}, {d2}) in new memory")


@backward("diag_embed")
def diag_embed_backward(out: Tensor, input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Any:  # noqa: A002
    """DiagEmbedBackward0: the gradient's diagonals in the plane of ``dim1``, ``dim2`` (a view)."""
    return "DiagEmbedBackward0", (input,), lambda g: (g.diagonal(offset, dim1, dim2),), ()


def _blocks_plan(shapes: tuple[tuple[int, ...], ...]) -> tuple[Layout, tuple[np.ndarray, ...]] | None:
    """:data:`_BLOCKS`' entry: ``block_diag`` of small non-empty tensors of ``shapes`` (0-d as 1x1,
    1-D as one row) as (the result's row-major layout, each block's flat positions in it), or None
    where the general path decides (a 3-d input, an empty block, a big one)."""
    blocks = []
    for shape in shapes:
        if len(shape) > 2 or not 0 < L.product(shape) <= _SCATTER_MAX:
            return None
        blocks.append((1, 1) if not shape else (1, shape[0]) if len(shape) == 1 else shape)
    rows, cols = sum(b[0] for b in blocks), sum(b[1] for b in blocks)
    full = _cinfo[(rows, cols)][2]
    positions, r, c = [], 0, 0
    for b in blocks:
        positions.append(_positions(full, Layout._trusted(b, (cols, 1), r * cols + c)))
        r, c = r + b[0], c + b[1]
    return full, tuple(positions)


# (the inputs' shapes) -> block_diag's plan (or None: the general path)
_BLOCKS = Memo(_blocks_plan, limit=256)


def _fast_blocks(tensors: tuple) -> Tensor | None:
    """``block_diag(*tensors)`` of small row-major tensors of one dtype, nobody listening: the
    scatter fast path; else None."""
    if OPEN or not tensors:
        return None
    dtype = tensors[0]._dtype if tensors[0].__class__ is Tensor else None
    shapes, runs = [], []
    for t in tensors:
        if t.__class__ is not Tensor or t._dtype is not dtype:
            return None
        shape = t._layout.shape
        run = flat_run(t, _cinfo[shape])
        if run is None:
            return None
        shapes.append(shape)
        runs.append(run)
    plan = _BLOCKS[tuple(shapes)]
    if plan is None:
        return None
    flat = np.zeros(_cinfo[plan[0].shape][1], dtype.numpy)
    for where, run in zip(plan[1], runs):
        flat[where] = run
    return adopted(flat, plan[0], dtype)


def block_diag(*tensors: Tensor) -> Tensor:
    """The tensors (0-d as 1x1, 1-D as one row, 2-D as is) placed corner to corner on the
    diagonal of a new matrix of zeros, in their promoted dtype (``torch.block_diag``).

    >>> strided.block_diag(strided.ones(1, 1), strided.ones(2)).tolist()
    [[1.0, 0.0, 0.0], [0.0, 1.0, 1.0]]
    """
    fast = _fast_blocks(tensors)
    if fast is not None:
        return fast
    tensors = tensor_list(tensors, "block_diag")
    blocks = []
    dtype = tensors[0]._dtype if tensors else default_float()
    for i, t in enumerate(tensors):
        shape = t._layout.shape
        if len(shape) > 2:
            raise StridedRuntimeError(
                join_lines(
                    "torch.block_diag: Input tensors must have 2 or fewer dimensions. "
                    f"Input {i} has {len(shape)} dimensions",
                    f"input {i} has shape {shape}; flatten it to a matrix first, e.g. t.flatten(0, -2)",
                )
            )
        dtype = promote_types(dtype, t._dtype)
        blocks.append(t._np().reshape((1, 1) if not shape else (1, shape[0]) if len(shape) == 1 else shape))
    rows = sum(b.shape[0] for b in blocks)
    cols = sum(b.shape[1] for b in blocks)
    if not tensors:
        rows = 1  # PyTorch: block_diag() is an empty (1, 0) matrix
    out, target = _zeros((rows, cols), dtype)
    r = c = 0
    for b in blocks:  # one block copy per input
        np.copyto(target[r:r + b.shape[0], c:c + b.shape[1]], b, casting="unsafe")
        r += b.shape[0]
        c += b.shape[1]
    return copied("block_diag", tuple(tensors), out,
                  lambda: f"block_diag: {len(blocks)} blocks laid on the diagonal of a new ({rows}, {cols}) matrix")


@backward("block_diag", operands="any")
def block_diag_backward(out: Tensor, *tensors: Tensor) -> Any:
    """BlockDiagBackward0: each input's gradient is its block of the gradient (a view),
    reshaped to the input (0-d from 1x1, 1-D from one row: views too)."""
    shapes = [t._layout.shape for t in tensors]

    def grad(g: Tensor) -> tuple:
        out = []
        r = c = 0
        for shape in shapes:
            rows, cols = (1, 1) if not shape else (1, shape[0]) if len(shape) == 1 else shape
            block = g[r:r + rows, c:c + cols]
            out.append(block if len(shape) == 2 else block.reshape(shape))
            r += rows
            c += cols
        return tuple(out)

    return "BlockDiagBackward0", tuple(tensors), grad, ()


# ---------------------------------------------------------------- grids


def _grid_inputs(tensors: tuple, op: str) -> list[Tensor]:
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    tensors = tensor_list(tensors, op)
    if not tensors:
        raise StridedRuntimeError(
            join_lines("meshgrid expects a non-empty TensorList",
                       f"{op} was given no tensors; pass at least one: strided.{op}(a, b)")
        )
    return tensors


def _check_grid(tensors: Sequence[Tensor]) -> None:
    for t in tensors:
        if len(t._layout.shape) > 1:
            raise StridedRuntimeError(
                join_lines(
                    "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: a tensor of shape "
                    f"{t._layout.shape}",
                    "each input gives the coordinates along one axis; flatten it first: t.reshape(-1)",
                )
            )
    first = tensors[0]._dtype
    for t in tensors:
        if t._dtype is not first:
            raise StridedRuntimeError(
                join_lines("meshgrid expects all tensors to have the same dtype",
                           f"got {first.name} and {t._dtype.name}; convert them to one: t.to(strided.{first.name})")
            )


def meshgrid(*tensors: Tensor, indexing: str | None = None) -> tuple[Tensor, ...]:
    """Coordinate grids: input ``i`` expanded along every other axis (views, stride 0 there).

    ``indexing="ij"`` (the default) gives grids of shape ``(len(t0), len(t1), ...)``; ``"xy"``
    swaps the first two axes (NumPy's and MATLAB's convention).

    # Note: PyTorch warns when ``indexing`` is not given; strided takes "ij" silently.

    >>> [g.shape for g in strided.meshgrid(strided.arange(2), strided.arange(3), indexing="xy")]
    [(3, 2), (3, 2)]
    """
    ts = _grid_inputs(tensors, "meshgrid")
    mode = "ij" if indexing is None else indexing
    if mode not in ("ij", "xy"):
        raise StridedRuntimeError(
            join_lines(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {mode}',
                       'indexing="ij" gives (len(a), len(b)) grids; "xy" gives (len(b), len(a))')
        )
    _check_grid(ts)
    swap = mode == "xy" and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    sizes = tuple(L.product(t._layout.shape) for t in ts)
    grids = []
    plain = min(sizes) > 1  # (no size-1 axis: a 1-D input's grid is its stride on its axis, 0 on the others)
    for i, t in enumerate(ts):
        lay = t._layout
        if plain and len(lay.shape) == 1:
            grids.append(t._view(Layout._trusted(sizes, (0,) * i + lay.strides + (0,) * (len(ts) - i - 1), lay.offset)))
            continue
        view_shape = tuple(sizes[i] if j == i else 1 for j in range(len(ts)))
        viewed = P.view(t._layout, view_shape)[0]
        grids.append(t._view(L.expand(viewed, sizes)))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


def _axis_sum(g: Tensor, axis: int, shape: tuple[int, ...]) -> Tensor:
    """``g`` summed over every axis but ``axis``, shaped as ``shape`` (an input of a grid)."""
    others = tuple(a for a in range(len(g._layout.shape)) if a != axis)
    return (g.sum(others) if others else g).reshape(shape)


@backward("meshgrid", operands="any")
def meshgrid_backward(out: tuple, *tensors: Any, indexing: str | None = None) -> Any:
    """ExpandBackward0: one node for all the grids; input ``i``'s gradient is its grid's gradient
    summed over the other axes.

    # Note: PyTorch records one ExpandBackward0 per grid; strided one node with an output per grid.
    """
    ts = _grid_inputs(tensors, "meshgrid")
    n = len(ts)
    axes = list(range(n))
    if indexing == "xy" and n >= 2:
        axes[0], axes[1] = 1, 0
    shapes = [t._layout.shape for t in ts]

    def grad(*grads: Any) -> tuple:
        return tuple(None if g is None else _axis_sum(g, axes[i], shapes[i]) for i, g in enumerate(grads))

    return "ExpandBackward0", tuple(ts), grad, (), "multi"


def cartesian_prod(*tensors: Tensor) -> Tensor:
    """Every combination of one element from each 1-D tensor, as the rows of a new ``(N, k)``
    tensor (``torch.cartesian_prod``); one tensor is returned as it is.

    >>> strided.cartesian_prod(strided.tensor([1, 2]), strided.tensor([3])).tolist()
    [[1, 3], [2, 3]]
    """
    ts = tensor_list(tensors, "cartesian_prod")
    for t in ts:
        if len(t._layout.shape) != 1:
            raise StridedRuntimeError(
                join_lines(f"Expect a 1D vector, but got shape {list(t._layout.shape)}",
                           "each input lists the values of one factor; flatten it first: t.reshape(-1)")
            )
    if len(ts) == 1:
        return ts[0]  # as PyTorch: the tensor itself
    ts = _grid_inputs(tuple(ts), "cartesian_prod")
    _check_grid(ts)
    sizes = tuple(t._layout.shape[0] for t in ts)
    n = L.product(sizes)
    out, target = result_array((n, len(ts)), ts[0]._dtype)
    if n:
        grid = target.reshape((*sizes, len(ts)))  # row r of the result is one grid point
        for i, t in enumerate(ts):  # one broadcast copy per input (column i of the rows)
            view_shape = tuple(sizes[i] if j == i else 1 for j in range(len(ts)))
            np.copyto(grid[..., i], t._np().reshape(view_shape))
    return copied("cartesian_prod", tuple(ts), out,
                  lambda: f"cartesian_prod: {n} combinations of {len(ts)} tensors written into new memory")



@backward("cartesian_prod", operands="any")
def cartesian_prod_backward(out: Tensor, *tensors: Tensor) -> Any:
    """StackBackward0: input ``i``'s gradient is column ``i`` of the gradient (a view) seen as the
    grid, summed over the other inputs' axes."""
    if len(tensors) == 1:
        return None  # the tensor itself
    sizes = tuple(t._layout.shape[0] for t in tensors)

    def grad(g: Tensor) -> tuple:
        return tuple(_axis_sum(g[:, i].reshape(sizes), i, (sizes[i],)) for i in range(len(sizes)))

    return "StackBackward0", tuple(tensors), grad, ()


seal(globals())  # (last: this module's ops with a backward rule become their recording entries)
# the kinds of this module's ops, in the op registry (after the seal: the forwards are the entries)
declare(Kind.VIEW, "meshgrid")
declare(Kind.ALLOC, "tril_indices triu_indices")
declare(Kind.COPY, "tril triu diag diag_embed diagflat block_diag cartesian_prod")
