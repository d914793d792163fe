"""NumPy's reduces of large float32/float64 rows by compiled kernels: NumPy's bits, PyTorch's speed.

Sums (:func:`add_reduce`):

NumPy sums a contiguous run with its pairwise algorithm (eight scalar accumulators per block of
128 elements, blocks combined in a fixed tree), one dependency chain at a time: about 1.2x
PyTorch's time for a 4 MB float32 sum. ``strided.kernels._rowkernel`` runs the same additions in
the same order with the eight accumulators as one vector and independent blocks side by side
(see its source), so :func:`add_reduce` returns exactly what ``np.add.reduce`` returns, bit for
bit, in PyTorch's time. tests/test_native_rows.py compares the two on every path taken here.

It takes the kernel where NumPy's own call is one pairwise sum per result over a contiguous run:
a full sum of a C- or Fortran-contiguous array (NumPy walks it as one run in memory order), or a
sum over one dim of unit stride of a 1-d or 2-d array (one pairwise sum per row); the input in
its own dtype (no ``dtype=`` cast, no ``out=``) and at least :data:`MIN_ELEMENTS` elements (below,
the call's own overhead is what matters and NumPy's is as small). Everything else goes to
``np.add.reduce`` unchanged, as do all calls when the kernel is not built, with
``STRIDED_NATIVE=0`` and inside :func:`strided.kernels.native.disabled`.

Extremes (:func:`max_reduce`, :func:`min_reduce`, behind ``amax``/``amin``/``aminmax``): NumPy's
row-by-row reduce of a 2-d array costs about 1.4x PyTorch's (its per-row overhead), and its full
reduction of a C- or Fortran-contiguous array ~1.1x the kernel's (1M float32: 50 us against 46;
PyTorch 46-66). The kernel takes the rows of a large 2-d float array and the whole of a large
contiguous one (four vector max/min chains per row); the largest element of a row is
one value, whatever the order, except where it is a zero (NumPy picks -0.0 or 0.0 by its loop)
or NaN (which payload): those rows are recomputed by NumPy.

Columns (:func:`_columns`, behind the sums, means and extremes over the outer dim of a 2-d array
whose rows are contiguous: ``t.sum(0)`` of a row-major matrix, ``t.amax(1)`` of a transpose):
NumPy walks such an array row by row, reading and writing its whole output once per row; the
kernel makes the same operations in the same order four rows a pass over a chunk of the output
held in L1 (1M float32: 64-75 us -> 51 us for sums, 83-100 -> 62-75 for extremes; PyTorch's
column sum ~100-300 us).

>>> x = np.arange(1 << 15, dtype=np.float32)
>>> add_reduce(x).tobytes() == np.add.reduce(x).tobytes()
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from . import native

# Below this many elements the kernel's gain (a few hundred ns at 16 K float32) is within the
# Python checks' cost; NumPy's call is taken.
MIN_ELEMENTS = 1 << 14

_numpy_add_reduce = np.add.reduce
_numpy_max_reduce = np.maximum.reduce
_numpy_min_reduce = np.minimum.reduce
_FLOATS = frozenset({np.dtype(np.float32), np.dtype(np.float64)})
_kernel: Any = None
_loaded = False


def _kernel_module() -> Any:
    """The compiled module (None: not built, ``STRIDED_NATIVE=0``, or disabled in this context)."""
    global _kernel, _loaded
    if not _loaded:
        _kernel = native._compiled("_rowkernel")
        _loaded = True  # (a race imports the same module twice: harmless)
    return _kernel if native.enabled_here() else None


_UNSET = object()


def _accessor(name: str) -> Callable[[], Any]:
    """The getter of the compiled module's function ``name``: the function where the kernel is on
    in this context; None when it is not built (or built before it had the function),
    ``STRIDED_NATIVE=0`` or inside :func:`strided.kernels.native.disabled`. (One closure per
    function: the getter is on small ops' paths, where a second call level costs ~60 ns.)"""
    found: list[Any] = [_UNSET]

    def get() -> Any:
        f = found[0]
        if f is _UNSET:
            # (the module as loaded, whatever this context: a first call inside native.disabled()
            # must not remember None for good)
            k = _kernel if _loaded else native._compiled("_rowkernel")
            f = found[0] = getattr(k, name, None) if k is not None else None
        if f is None:
            return None
        if not native._open_blocks[0]:  # (native.enabled_here's first test, without its call)
            return f if native._enabled.get() else None
        return f if native.enabled_here() else None

    get.__name__ = get.__qualname__ = name
    return get


extreme_rows_at = _accessor("extreme_rows_at")
extreme_rows_at.__doc__ = """The compiled ``extreme_rows_at(storage, offset, count, stride, length, out, mode)`` (the
smallest or largest element of each of ``count`` strided rows of a float buffer; how many results
are a zero or NaN, -1 where not taken; see its C doc), or None (see :func:`_accessor`)."""
extreme_all = _accessor("extreme_all")
extreme_all.__doc__ = """The compiled ``extreme_all(x, out, mode)`` (the largest or smallest element of a
whole contiguous float run, see its C doc), or None (see :func:`_accessor`)."""
histc_count = _accessor("histc")
histc_count.__doc__ = """The compiled ``histc(x, out, lo, hi)`` (histc's counts of a contiguous float run in
the element type, see its C doc), or None (see :func:`_accessor`)."""
arg_cols = _accessor("arg_cols")
arg_cols.__doc__ = """The compiled ``arg_cols(x, out, outer, rows, inner, largest)`` (argmax / argmin along
the middle dim of a C-contiguous (outer, rows, inner) float run, NumPy's indices, see its C doc),
or None (see :func:`_accessor`)."""
variance_one = _accessor("variance_one")
variance_one.__doc__ = """The compiled ``variance_one(x, denominator, root)`` (the float32 variance, or its square
root, of a whole C-contiguous float32 run as :func:`strided.kernels.reduce.variance_parts` computes
one result, bit for bit; None where not taken, see its C doc), or None (see :func:`_accessor`)."""
cdist2 = _accessor("cdist2")
cdist2.__doc__ = """The compiled ``cdist2(x1, x2, out)`` (cdist's p = 2 distances of two C-contiguous 2-D
point sets, NumPy's bits, see its C doc), or None (see :func:`_accessor`)."""

bn_eval = _accessor("bn_eval")
bn_eval.__doc__ = """The compiled ``bn_eval(x, out, rm, rv, w, b, eps)`` (batch_norm's evaluation steps over a
C-contiguous (N, C) float run, NumPy's bits; False where not taken, see its C doc), or None (see :func:`_accessor`)."""
ln_rows = _accessor("ln_rows")
ln_rows.__doc__ = """The compiled ``ln_rows(x, y, mean, r, w, b, eps)`` (layer_norm's rows of a C-contiguous float
run: their means, ``r = 1 / sqrt(var + eps)`` and ``(x - mean) * r * w + b``, NumPy's steps' bits where
NumPy's einsum sums as its baseline build does; False where not taken, see its C doc), or None
(see :func:`_accessor`)."""
lse_shift = _accessor("lse_shift")
lse_shift.__doc__ = """The compiled ``lse_shift(x, work, m)`` (logsumexp's first steps over the rows of a C-contiguous
float run: each row's max, an infinite one made 0, into ``m``, and ``x - m`` into ``work``, the values
NumPy's maximum.reduce and subtract give; False where not taken, see its C doc), or None (see
:func:`_accessor`)."""
nll_sum = _accessor("nll_sum")
nll_sum.__doc__ = """The compiled ``nll_sum(logp, target, classes)`` (nll_loss's sum of ``-logp[i, target[i]]``
in PyTorch's cascade over C-contiguous runs; None for an index out of range or a NaN sum, see its
C doc), or None (see :func:`_accessor`)."""


def add_reduce(x: Any, axis: Any = 0, dtype: Any = None, out: Any = None, keepdims: bool = False) -> Any:
    """``np.add.reduce(x, axis, dtype, out, keepdims)``, the same result bit for bit, by the
    compiled pairwise sum where it applies (see the module doc). Positional like NumPy's, and
    ``axis`` defaults to 0 as NumPy's does.

    >>> m = np.ones((4, 8192), dtype=np.float64)
    >>> add_reduce(m, 1, None, None, True).tolist()
    [[8192.0], [8192.0], [8192.0], [8192.0]]
    """
    if (x.__class__ is np.ndarray and x.size >= MIN_ELEMENTS and dtype is None and out is None
            and x.dtype in _FLOATS and x.dtype.isnative and x.flags.aligned):
        plan = _plan(x, axis)
        if plan is not None:
            kernel = _kernel_module()
            if kernel is not None:
                return _run(kernel, x, plan, keepdims)
        else:
            got = _columns(x, axis, 3)
            # (a NaN sum's payload: which NaN operand the compiled add returns is the compiler's
            # choice, a + b and b + a being the same to C; NumPy's call decides it)
            if got is not None and not got[2]:
                return got[0].reshape(got[1][4 if keepdims else 5])
    return _numpy_add_reduce(x, axis, dtype, out, keepdims)


def nan_zero_add_reduce(x: np.ndarray, axis: Any, keepdims: bool) -> Any:
    """``np.add.reduce(np.where(np.isnan(x), 0, x), axis, keepdims=keepdims)`` (nansum's sums), the
    same bits, by the kernel reading each NaN as 0, in one pass without the temporary (1M float32
    holding NaNs: ~0.9 ms -> ~0.06); None where the kernel does not take the call (see
    :func:`add_reduce`: the caller makes NumPy's).

    >>> nan_zero_add_reduce(np.array([1.0, np.nan, 2.0] * 8192), None, False)
    np.float64(24576.0)
    """
    if (x.__class__ is np.ndarray and x.size >= MIN_ELEMENTS and x.dtype in _FLOATS and x.dtype.isnative
            and x.flags.aligned):
        plan = _plan(x, axis)
        if plan is not None:
            kernel = _kernel_module()
            if kernel is not None:
                return _run(kernel, x, plan, keepdims, True)
    return None


def max_reduce(x: Any, axis: Any = 0, dtype: Any = None, out: Any = None, keepdims: bool = False) -> Any:
    """``np.maximum.reduce(x, axis, dtype, out, keepdims)``, the same result bit for bit; the
    largest element of each unit-stride row of a large 2-d float array by the compiled kernel.

    >>> m = np.arange(32768.0).reshape(2, 16384)
    >>> max_reduce(m, 1).tolist(), float(max_reduce(m, None))
    ([16383.0, 32767.0], 32767.0)
    """
    if dtype is None and out is None:
        got = _extreme_reduce(x, axis, 1, keepdims)
        if got is not None:
            return got
    return _numpy_max_reduce(x, axis, dtype, out, keepdims)


def min_reduce(x: Any, axis: Any = 0, dtype: Any = None, out: Any = None, keepdims: bool = False) -> Any:
    """``np.minimum.reduce(x, axis, dtype, out, keepdims)``, as :func:`max_reduce`.

    >>> min_reduce(np.arange(32768.0).reshape(2, 16384), 1, None, None, True).tolist()
    [[0.0], [16384.0]]
    """
    if dtype is None and out is None:
        got = _extreme_reduce(x, axis, 0, keepdims)
        if got is not None:
            return got
    return _numpy_min_reduce(x, axis, dtype, out, keepdims)


def _extreme_reduce(x: Any, axis: Any, mode: int, keepdims: bool) -> Any:
    """:func:`max_reduce` (mode 1) or :func:`min_reduce` (0) by the kernel: the rows of a 2-d array
    (``axis`` an int) or the whole of a contiguous one (None); None where the kernel does not
    take the call."""
    if axis.__class__ is int:
        got = _extremes(x, axis, mode, rows_only=True)
        if got is not None:
            return got[0].reshape(got[-1][4 if keepdims else 5])
    elif axis is None:
        got = _extremes(x, None, mode, rows_only=False)
        if got is not None:
            return got[0].reshape(got[-1][4]) if keepdims else got[0][0]  # (NumPy's scalar)
    return None


def minmax_reduce(x: Any, axis: Any) -> tuple[Any, Any]:
    """``(np.minimum.reduce(x, axis, keepdims=True), np.maximum.reduce(x, axis, keepdims=True))``,
    the same bits, in one pass over a large float array's rows or over the whole of a contiguous
    one (NumPy's two calls read it twice).

    >>> lo, hi = minmax_reduce(np.arange(32768.0), None)
    >>> lo.tolist(), hi.tolist()
    ([0.0], [32767.0])
    """
    got = _extremes(x, axis, 2, rows_only=False)
    if got is None:
        return _numpy_min_reduce(x, axis, None, None, True), _numpy_max_reduce(x, axis, None, None, True)
    plan = got[2]
    return got[0].reshape(plan[4]), got[1].reshape(plan[4])


# At most this many rows whose extreme is a zero or NaN are recomputed one by one with NumPy;
# more, and NumPy's one call computes them all.
_UNSURE_ROWS = 8
_REDUCES = (_numpy_min_reduce, _numpy_max_reduce)


def _extremes(x: Any, axis: Any, mode: int, rows_only: bool) -> tuple[np.ndarray, ...] | None:
    """The kernel's extremes of ``x``'s rows (mode 0: smallest, 1: largest, 2: both), each a flat
    array of the row count, with NumPy's bits; then the plan, last. None where the kernel does
    not apply (``rows_only``: NumPy's own full and column reductions are as fast as PyTorch's,
    so only rows of a 2-d array are taken). A row whose extreme is a zero (-0.0 or 0.0: which
    one NumPy returns depends on its loop) or NaN (which payload) is recomputed by NumPy's call
    on that row, the call NumPy's reduce makes for it."""
    if not (x.__class__ is np.ndarray and x.size >= MIN_ELEMENTS and x.dtype in _FLOATS and x.dtype.isnative
            and x.flags.aligned and (x.ndim == 2 or not rows_only)):
        return None
    plan = _plan(x, axis)
    columns = plan is None and mode != 2
    if columns:
        got = _columns(x, axis, mode)  # (a column's extreme, as a row's, is one value but for zeros/NaN)
        if got is None:
            return None
        found, plan, unsure = got
        count = len(found)
        if not unsure:  # (no result is a zero or NaN: each is the one value it can be)
            return found, plan
    else:
        if plan is None or (rows_only and plan[5] is None) or plan[3] == 0:
            return None
        kernel = _kernel_module()
        if kernel is None:
            return None
        address, count, stride, length = plan[:4]
        found = np.empty(count * (2 if mode == 2 else 1), dtype=x.dtype)
        if not kernel.extreme_rows(address, x.itemsize, count, stride, length, found, mode):
            # (no result is a zero or NaN: each is the one value it can be)
            return (found, plan) if mode != 2 else (found[:count], found[count:], plan)
    return settle_extremes(x, axis, mode, found, count, plan, columns)


def settle_extremes(x: np.ndarray, axis: Any, mode: int, found: np.ndarray, count: int, plan: Plan,
                    columns: bool = False) -> tuple[np.ndarray, ...]:
    """The kernel's extremes ``found`` of ``x`` over ``axis`` (``count`` results; mode 2: the
    smallest ``count``, then the largest), with each zero or NaN result replaced by NumPy's: the
    parts (one, or two for mode 2), then ``plan``, last (see :func:`_extremes`). ``columns``: the
    results are :func:`_columns`'."""
    parts = [found[:count], found[count:]] if mode == 2 else [found]
    reduces = _REDUCES if mode == 2 else (_REDUCES[mode],)
    for part, numpy_reduce in zip(parts, reduces):
        unsure = np.flatnonzero((part == 0) | (part != part))
        # (a column's zero or NaN is NumPy's 2-d call's: its 1-d call on the column alone walks
        # it otherwise, keeping the last NaN where the 2-d call keeps the first)
        if count == 1 or columns or len(unsure) > _UNSURE_ROWS:
            if len(unsure):
                part[...] = numpy_reduce(x, axis, None, None, True).reshape(-1)
            continue
        rows = x if plan[4][1] == 1 else x.T  # (2-d, count > 1: result i is row i of x or of x.T)
        for i in unsure:
            part[i] = numpy_reduce(rows[i])
    return (*parts, plan)


# (the array, whose element [0, ..., 0] starts row 0: the kernels read its address from the
# buffer; row count, row stride in bytes, row length, the result's shape with the reduced dims
# kept, its shape without them: None for a full sum's scalar)
Plan = tuple[np.ndarray, int, int, int, tuple[int, ...], "tuple[int, ...] | None"]


def _plan(x: np.ndarray, axis: Any) -> Plan | None:
    """The rows of a sum that NumPy computes as one pairwise sum per row; None otherwise."""
    ndim = x.ndim
    if axis is None or (axis.__class__ is tuple and len(axis) == ndim and sorted(
            a % ndim if a.__class__ is int and -ndim <= a < ndim else -1 for a in axis) == list(range(ndim))):
        if not (x.flags.c_contiguous or x.flags.f_contiguous):
            return None
        return x, 1, 0, x.size, (1,) * ndim, None
    if axis.__class__ is tuple and len(axis) == 1:
        axis = axis[0]
    if axis.__class__ is not int or not -ndim <= axis < ndim:
        return None  # (NumPy raises its own error)
    axis %= ndim
    if x.strides[axis] != x.itemsize:
        return None
    if ndim == 1:
        return x, 1, 0, x.shape[0], (1,), None
    if ndim != 2:
        return None
    other = 1 - axis
    if abs(x.strides[other]) <= x.itemsize:
        # (rows that repeat or slide by one element: NumPy keeps the other dim as its inner loop
        # and adds element by element; its bits are not one pairwise sum per row)
        return None
    kept = (x.shape[0], 1) if axis == 1 else (1, x.shape[1])
    return x, x.shape[other], x.strides[other], x.shape[axis], kept, (x.shape[other],)


def _columns(x: np.ndarray, axis: Any, mode: int) -> tuple[np.ndarray, Plan, int] | None:
    """The kernel's reduce of a 2-d float array over a dim whose other dim has unit stride (mode
    0: the smallest, 1: the largest, 3: the sum of each column), its plan, and how many results
    are NaN or (extremes) a zero, the ones NumPy's call must decide; None where it does
    not apply. NumPy's reduce of such an array walks it row by row into its output (the unit-stride
    dim innermost), and the kernel makes the same operations in the same order, four rows a pass
    (_rowkernel.c's DEFINE_COLS). Taken only where every row lies after the one before it, apart
    (a reduced dim of stride 0, negative or overlapping the rows: NumPy may order its loops
    otherwise), rows of at least two elements (one column is one contiguous run to NumPy: its
    pairwise sum), and for at least :data:`MIN_ELEMENTS` elements."""
    if not (x.__class__ is np.ndarray and x.ndim == 2 and axis.__class__ is int and -2 <= axis < 2
            and x.size >= MIN_ELEMENTS and x.dtype in _FLOATS and x.dtype.isnative and x.flags.aligned):
        return None
    axis %= 2
    other = 1 - axis
    if x.shape[other] < 2 or x.strides[other] != x.itemsize or x.strides[axis] < x.shape[other] * x.itemsize:
        return None
    kernel = _kernel_module()
    if kernel is None:
        return None
    cols = x.shape[other]
    found = np.empty(cols, dtype=x.dtype)
    unsure = kernel.cols(x, x.itemsize, x.shape[axis], x.strides[axis], cols, found, mode)
    kept = (1, cols) if axis == 0 else (cols, 1)
    return found, (x, 1, 0, 0, kept, (cols,)), unsure


def _run(kernel: Any, x: np.ndarray, plan: Plan, keepdims: bool, nan_zero: bool = False) -> np.ndarray:
    """The sums of ``plan``'s rows (``nan_zero``: each NaN read as 0), shaped as ``np.add.reduce``
    shapes them."""
    address, count, stride, length, kept, dropped = plan
    result = np.empty(count, dtype=x.dtype)
    kernel.rows(address, x.itemsize, count, stride, length, result, nan_zero)  # (the kernel reads its address)
    if keepdims:
        return result.reshape(kept)
    return result[0] if dropped is None else result.reshape(dropped)  # (a full sum: NumPy's scalar)

pool_windows = _accessor("pool_windows")
pool_windows.__doc__ = """The compiled ``pool_windows(storage, out, offset, ...)`` (max / average pooling's windows
of a float32 / float64 input read from its strides, PyTorch's CPU loops, see _pool_windows.h), or
None (see :func:`_accessor`)."""
