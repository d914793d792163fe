"""PyTorch's bits for ``maximum`` / ``minimum`` and ``clamp`` with tensor bounds where the value
alone does not decide them: a tie of two zeros of opposite signs, and a NaN.

PyTorch's CPU kernels (``cpu_kernel_vec``) compute these in two loops that disagree there
(measured on x86-64 PyTorch 2.13; :mod:`strided.kernels.torch_loops` says which elements each
loop takes):

- the vectorized loop (``vec::maximum(a, b)`` / ``vec::minimum``; clamp is
  ``minimum(maximum(x, lo), hi)``): a tie returns the *second* operand (the ``max_ps`` /
  ``min_ps`` instructions'), so ``maximum(0.0, -0.0)`` is ``-0.0``; a NaN operand gives the NaN
  whose bits are all ones (the NaN mask OR-ed in: its sign bit set);
- the scalar loop (``std::max(a, b)`` / ``std::min``, clamp ``min(max(x, lo), hi)``): a tie
  returns the *first* operand, so ``maximum(0.0, -0.0)`` is ``0.0``; a NaN operand gives the
  canonical quiet NaN (``quiet_NaN()``: sign bit clear).

The vector step is 64 bytes of elements (16 float32, 8 float64, 32 float16 / bfloat16), on
AVX2 and AVX512 builds alike.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import native
from .fpstate import QUIET, quiet_reset, quiet_set
from .torch_loops import GRAIN_SIZE, scalar_loop_mask, torch_threads

_UINT = {2: np.uint16, 4: np.uint32, 8: np.uint64}


def step_of(dtype: np.dtype) -> int:
    """The elements one step of PyTorch's vectorized minimum/maximum loop takes for ``dtype``."""
    return 64 // dtype.itemsize


def _canonical_nan(dtype: np.dtype) -> int:
    """The bits of ``quiet_NaN()`` in ``dtype`` (bfloat16's is float32's top half)."""
    size = dtype.itemsize
    if size == 8:
        return 0x7FF8000000000000
    if size == 4:
        return 0x7FC00000
    return 0x7FC0 if dtype.name == "bfloat16" else 0x7E00


def floating(dtype: np.dtype) -> bool:
    """Whether ``dtype`` is a real float dtype (bfloat16 included), the dtypes this module fixes."""
    return dtype.kind == "f" or dtype.name == "bfloat16"


def flat_mask(n: int, dtype: np.dtype, threads: int | None = None) -> np.ndarray | None:
    """The scalar-loop mask of a loop over one contiguous row of ``n`` elements (operands of one
    dense layout: TensorIterator merges every dim), None where the vector loop takes them all."""
    return scalar_loop_mask((n,), (1,), True, [((n,), (1,))], step=step_of(dtype), threads=threads)


def loop_mask(shape: tuple[int, ...], out_strides: tuple[int, ...], fresh: bool,
              inputs: Sequence[tuple[tuple[int, ...], tuple[int, ...]] | None], dtype: np.dtype) -> np.ndarray | None:
    """:func:`strided.kernels.torch_loops.scalar_loop_mask` with this dtype's step."""
    return scalar_loop_mask(shape, out_strides, fresh, inputs, step=step_of(dtype))


def fix(kind: str, operands: Sequence[Any], res: np.ndarray,
        scalar: np.ndarray | None | Callable[[], np.ndarray | None]) -> None:
    """Rewrite, in place, the elements of ``res`` (``kind``'s result of ``operands`` as NumPy
    computed it: right wherever it is neither a zero nor a NaN) that PyTorch's kernel returns with
    other bits: ``kind`` "max" / "min" (operands ``a, b``) or "clamp" (``x, lo, hi``); each operand
    an array (or scalar) broadcastable to ``res``, in ``res``'s dtype. ``scalar``: the mask of the
    elements PyTorch's scalar loop computes (None: none of them), or a function that makes it
    (called only where ``res`` has a zero or a NaN). Only zeros and NaNs of ``res`` are read
    again: one pass over ``res`` where it has none."""
    if res.size == 0 or not floating(res.dtype):
        return
    if callable(scalar):
        if not _has_zero_or_nan(res):
            return
        scalar = scalar()
    if res.ndim == 0:  # (a 0-d result: its one element, as a 1-d view, nonzero needs)
        one = None if scalar is None else np.asarray(scalar).reshape(1)
        fix(kind, [np.reshape(o, (1,)) for o in operands], res.reshape(1), one)
        return
    token = quiet_set(QUIET)
    try:
        wide = res.astype(np.float32) if res.dtype.itemsize == 2 else res  # (bfloat16's compares are slow)
        cand = wide == 0
        cand |= wide != wide
        if not cand.any():
            return
        where = np.nonzero(cand)
        exact = [np.broadcast_to(np.asarray(o, res.dtype), res.shape)[where] for o in operands]
        ops = [o.astype(wide.dtype) for o in exact]  # (compared in float32 for 2-byte types: exact)
        in_scalar = np.zeros(len(where[0]), bool) if scalar is None else np.asarray(scalar)[where]
        # which operand each loop returns (0, 1, 2): the result is one of them, bits and all
        if kind == "clamp":
            x, lo, hi = ops
            up = x > lo
            vec = np.where(np.where(up, x, lo) < hi, np.where(up, 0, 1), 2)
            low = x < lo
            sca = np.where(hi < np.where(low, lo, x), 2, np.where(low, 1, 0))
        elif kind == "max":
            a, b = ops
            vec, sca = np.where(a > b, 0, 1), np.where(a < b, 1, 0)
        else:
            a, b = ops
            vec, sca = np.where(a < b, 0, 1), np.where(b < a, 1, 0)
        pick = np.where(in_scalar, sca, vec)
        u = _UINT[res.dtype.itemsize]
        bits = [o.view(u) for o in exact]
        got = np.choose(pick, bits)
        nan = np.zeros(len(got), bool)
        for o in ops:
            nan |= o != o
        if nan.any():
            got[nan & ~in_scalar] = np.iinfo(u).max  # (the vector loop's NaN mask: all ones)
            if kind == "clamp":  # (the scalar loop's std::max / std::min pass a NaN input through)
                nan = ops[1] != ops[1]
                nan |= ops[2] != ops[2]
            got[nan & in_scalar] = _canonical_nan(res.dtype)
        got = got.view(res.dtype)
        res[where] = got
    finally:
        quiet_reset(token)


def _has_zero_or_nan(res: np.ndarray) -> bool:
    token = quiet_set(QUIET)
    try:
        return not np.abs(res).min() > 0  # (NaN: the min is NaN)
    finally:
        quiet_reset(token)


def fix_flat(kind: str, operands: Sequence[Any], res: np.ndarray) -> None:
    """:func:`fix` of a 1-D result over one contiguous row (the operands' one dense layout)."""
    n = res.size
    if n == 0 or not floating(res.dtype):
        return
    fix(kind, operands, res, lambda: flat_mask(n, res.dtype))


def row_of(n: int) -> int:
    """The pieces (of ``n`` elements in all) PyTorch's loop over one contiguous row runs apart:
    the chunks ``at::parallel_for`` cuts from 32768 elements on (:mod:`.torch_loops`), else ``n``."""
    threads = torch_threads()
    if n < GRAIN_SIZE or threads <= 1:
        return max(n, 1)
    chunks = min(threads, -(-n // GRAIN_SIZE))
    return -(-n // chunks)


def extreme_fresh(is_max: bool, x: np.ndarray, y: np.ndarray) -> np.ndarray | None:
    """The compiled maximum (``is_max``) / minimum with PyTorch's bits of two float32 / float64
    arrays of one shape and dtype read as one contiguous row; None where the kernel is not built,
    off here, or refuses them."""
    k = native.special()
    if k is None or x.shape != y.shape or x.dtype is not y.dtype:
        return None
    res = np.empty(x.shape, x.dtype)
    n = x.size
    if n == 0:  # (nothing to compute; the kernel refuses an empty row)
        return res
    return res if k.torch_extreme(x, y, res, is_max, n if n < GRAIN_SIZE else row_of(n)) else None


def extreme_loop(is_max: bool) -> Callable[[np.ndarray, np.ndarray], np.ndarray | None]:
    """The compiled maximum (``is_max``) / minimum with PyTorch's bits as a BinaryOp's ``native``:
    a fresh array for two float32 / float64 arrays of one shape and dtype (one contiguous row in
    PyTorch's loop), None where the kernel is not built, off here, or refuses them.

    >>> r = extreme_loop(True)(np.array([0.0, -0.0]), np.array([-0.0, 0.0]))
    >>> r is None or [str(v) for v in r] == ["0.0", "-0.0"]
    True
    """
    def fresh(x: np.ndarray, y: np.ndarray) -> np.ndarray | None:
        # (a small row, the fast path's common case: one C call that makes its own output, instead
        # of extreme_fresh's np.empty and five-argument call; a third of a small maximum's time)
        if x.size < GRAIN_SIZE:
            k = native.special()
            return None if k is None else k.torch_extreme_fresh(x, y, is_max)
        return extreme_fresh(is_max, x, y)

    return fresh


# the two loops for a one-row call (a clamp_min / clamp_max by a tensor bound, the binary fast path)
MAXIMUM_FRESH = extreme_loop(True)
MINIMUM_FRESH = extreme_loop(False)
