"""PyTorch's CPU sort order, ties included: which position comes first among equal values.

PyTorch's ``sort`` (and ``argsort``, ``msort``) with ``stable=False`` sorts each row's (value,
position) pairs with GCC's ``std::sort`` and a comparator of values only (NaN largest, or first
when descending): introsort, not stable, so among equal values (repeated numbers, -0.0 and 0.0,
several NaN) the positions come back in the order its partitions leave them. The one exception:
a 1-d integer tensor of at least 32,768 elements sorted ascending goes through fbgemm's radix
sort, which is stable. Its ``mode`` sorts the pairs with a plain ``<`` the same way and reads the
last pair of the longest run.

Here: the compiled ``stl_argsort`` (:mod:`strided.kernels._specialkernel`, the same algorithm
step for step) wherever it is built. A row without ties has one order, which NumPy's faster sort
finds too: large inputs are sorted by NumPy and only their rows with ties are sorted again by
the compiled kernel. Without the kernel (``STRIDED_NATIVE=0``, no C compiler) rows with ties are
redone by :mod:`.stl_select` (the same algorithm in Python) up to :data:`STEPS_MAX` elements in
all, and keep NumPy's order beyond (the values are right either way; only which of equal
elements comes first, and so the sign of a zero, may then differ from PyTorch's).

>>> x = np.array([1.0, 0.0, 1.0, 0.0] * 5)
>>> [int(i) for i in argsort(x, descending=False, stable=False)[:4]]  # (PyTorch's: not 1, 3, 5, 7)
[1, 19, 17, 15]
"""

from __future__ import annotations

import numpy as np

from ...dtypes import np_kind
from ...kernels.native import special
from .stl_select import _larger, _smaller, _sort

__all__ = ["STEPS_MAX", "argsort", "equal_bits_may_differ", "numpy_argsort", "sort_keys", "sorted_values"]

# Comparators of the compiled kernel: aten's KeyValueCompAsc / KeyValueCompDesc (mode's plain <,
# 2: strided.ops.reductions.order_stats._compiled_mode).
_ASCENDING, _DESCENDING = 0, 1
# Up to this many elements the compiled sort runs on every row (about as fast as NumPy's there,
# and no search for ties); above, NumPy sorts and the kernel redoes the rows with ties.
_SMALL = 1 << 12
# The Python fallback's budget: about 2 us per element.
STEPS_MAX = 1 << 12
# fbgemm's radix sort (stable) takes 1-d integer sorts from at::internal::GRAIN_SIZE elements on.
_RADIX_MIN = 32768


def argsort(x: np.ndarray, descending: bool, stable: bool) -> np.ndarray:
    """Indices (int64, fresh, C-contiguous, ``x``'s shape) that sort ``x`` along its last axis in
    PyTorch's order: NaN largest; ``stable``: ties in their original order; otherwise ties in
    ``std::sort``'s order (see the module's docstring). ``x.ndim`` is the tensor's own rank."""
    n = x.shape[-1] if x.ndim else 1
    if stable or n < 2 or (x.ndim == 1 and not descending and np_kind(x.dtype) in "iu" and x.size >= _RADIX_MIN):
        return numpy_argsort(x, descending, "stable")
    comparator = _DESCENDING if descending else _ASCENDING
    kernel = special()
    if kernel is not None and x.size <= _SMALL:
        return _compiled(kernel, x, comparator)
    idx = numpy_argsort(x, descending, None)
    _redo_ties(kernel, x, idx, comparator)
    return idx


def sorted_values(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """``x`` sorted ascending along ``axis`` (fresh, C-contiguous), PyTorch's bits: NumPy's sort,
    unless ``x`` holds elements that are equal with other bits (-0.0 and 0.0, NaN with other
    payloads), whose order is then PyTorch's."""
    s = np.sort(x, axis=axis)
    if np_kind(x.dtype) == "f" and s.size and equal_bits_may_differ(s):
        moved = np.moveaxis(x, axis, -1)
        exact = np.take_along_axis(moved, argsort(moved, False, False), axis=-1)
        return np.ascontiguousarray(np.moveaxis(exact, -1, axis))
    return s


def numpy_argsort(x: np.ndarray, descending: bool, kind: str | None) -> np.ndarray:
    """NumPy's argsort (NaN last); descending sorts the reversed rows and reverses the answer
    back, so NaN come first and, with a stable sort, ties keep their original order. (topk orders
    its candidates so, then redoes rows with ties by PyTorch's own selection steps.)"""
    if not descending:
        return np.argsort(x, axis=-1, kind=kind)
    n = x.shape[-1]
    idx = np.argsort(x[..., ::-1], axis=-1, kind=kind)[..., ::-1]
    return np.subtract(n - 1, idx, dtype=np.int64)


def sort_keys(x: np.ndarray) -> np.ndarray:
    """``x`` as the kernel's keys, 2-d C-contiguous: float32/float64 as they are, float16 and
    bfloat16 as float32 and the integers and bool as int64 (every one exactly, the order and
    the equalities unchanged), uint64 as it is."""
    kind = np_kind(x.dtype)
    if x.dtype in (np.float32, np.float64) or x.dtype == np.uint64:
        key = x.dtype
    elif kind == "f":
        key = np.dtype(np.float32)
    else:
        key = np.dtype(np.int64)
    return np.ascontiguousarray(x, dtype=key).reshape(-1, x.shape[-1] if x.ndim else 1)


def _compiled(kernel: object, x: np.ndarray, comparator: int) -> np.ndarray:
    keys = sort_keys(x)
    idx = np.empty(keys.shape, np.int64)
    if keys.size:
        kernel.stl_argsort(keys, idx, keys.shape[1], comparator)  # type: ignore[attr-defined]  # (fresh: no overlap)
    return idx.reshape(x.shape)


def _tied_rows(x: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """The rows (of ``x`` read as 2-d) whose sorted values hold two equal neighbours (NaN pairs too)."""
    n = x.shape[-1]
    s = np.take_along_axis(x, idx, axis=-1).reshape(-1, n)
    tied = s[:, 1:] == s[:, :-1]
    if np_kind(x.dtype) == "f":
        nan = np.isnan(s)
        tied |= nan[:, 1:] & nan[:, :-1]
    return np.flatnonzero(tied.any(axis=1))


def _redo_ties(kernel: object, x: np.ndarray, idx: np.ndarray, comparator: int) -> None:
    """Sort again, in PyTorch's order, the rows of ``idx`` (NumPy's answer, fresh) with ties."""
    rows = _tied_rows(x, idx)
    if not rows.size:
        return
    n = x.shape[-1]
    flat_x, flat_idx = x.reshape(-1, n), idx.reshape(-1, n)  # (idx is fresh: a view)
    if kernel is not None:
        flat_idx[rows] = _compiled(kernel, flat_x[rows], comparator)
        return
    if rows.size * n > STEPS_MAX:
        return  # (the Python steps would take too long: NumPy's order, see the module's docstring)
    comp = _larger if comparator == _DESCENDING else _smaller
    for r in rows:
        pairs = [(v, j) for j, v in enumerate(flat_x[r].tolist())]
        _sort(pairs, 0, n, comp)
        flat_idx[r] = [j for _, j in pairs]


_min_reduce, _abs = np.minimum.reduce, np.abs
_SMALL_CHECK = 64  # (elements: equal_bits_may_differ's Python test up to here)
_PLAIN_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def equal_bits_may_differ(s: np.ndarray) -> bool:
    """Whether rows ``s``, sorted by NumPy's default sort, may hold elements with other bits
    than PyTorch's sort gives: two zeros (-0.0 and 0.0 are equal: their order is the sort's), or
    any NaN (NumPy's SIMD quicksort writes each NaN back as its canonical NaN: a NaN's sign and
    payload are lost, np.sort of ``[-nan]`` rows is ``[nan]``)."""
    if s.size <= _SMALL_CHECK and s.dtype in _PLAIN_FLOATS:
        # (a small run's values read in Python: a tenth of np.abs and the reduction's calls; the
        # float sum is NaN where some value is, and where inf meets -inf, then the full test runs)
        values = s.ravel().tolist()
        total = sum(values)
        if total == total and 0.0 not in values:  # (0.0 in: -0.0 too, they are equal)
            return False
    elif _min_reduce(_abs(s), axis=None) > 0:  # (no zero and no NaN, which propagates: one pass, the common answer)
        return False
    return bool(np.count_nonzero(s == 0) > 1 or np.isnan(s).any())

