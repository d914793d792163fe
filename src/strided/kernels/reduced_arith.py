"""The compiled bfloat16 add/sub/mul/div (and ``alpha * y + x``) with PyTorch's bits, and the
float16/bfloat16 two-operand kernel the binary ops' fast paths call (``strided.kernels._halfkernel``).

PyTorch computes a bfloat16 add/sub/mul/div in float32 and rounds to nearest even; its vector
loop (steps of :data:`~strided.kernels.torch_loops.HALF_STEP` elements) makes every NaN 0xFFFF,
its scalar loop (each ``at::parallel_for`` chunk's last ``len % HALF_STEP`` elements) 0x7FC0
(:mod:`strided.kernels.reduced_nans`). The compiled loop gives both natively, for one
TensorIterator row: two flat runs in memory order.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from . import native
from .elementwise import _F16, half_into, paired_runs
from .torch_loops import GRAIN_SIZE, HALF_STEP, parallel_chunks, torch_threads

__all__ = ["bf16_alpha_fresh", "bf16_chunk", "bf16_into", "bf16_scalar_fresh", "bf16_through_float32", "reduced_loop"]


def bf16_chunk(n: int) -> int:
    """The length of each ``at::parallel_for`` chunk PyTorch cuts a flat row of ``n`` elements into
    (0: one chunk, below the grain size)."""
    if n < GRAIN_SIZE:
        return 0
    return -(-n // parallel_chunks(n, torch_threads()))


def bf16_into(code: int, x: Any, y: Any, out: np.ndarray, alpha: float = 0.0) -> bool:
    """``out[...] = x op y`` (``code``: 0 add, 1 sub, 2 mul, 3 div; 4 ``fma(alpha, x, y)``; 5 PyTorch's
    ``add(y, x, alpha=)``: the fma in its vector steps, ``y + bfloat16(alpha * x)`` in its scalar rest) for
    three bfloat16 arrays of one shape, all C-contiguous (one PyTorch row, NaNs by its loop split)
    or all F-contiguous (elements paired the same), ``out`` writable and not overlapping an operand
    otherwise than element for element: True when it ran; False (nothing written) where the kernel
    is not built or off here, or the operands are not such arrays."""
    k = native.half()
    if k is None or out.dtype.kind != "V" or (runs := paired_runs(x, y, out)) is None:  # (bfloat16: "V")
        return False
    return bool(k.bf16(*runs, code, alpha, bf16_chunk(out.size), HALF_STEP))


def bf16_scalar_fresh(code: int, x: np.ndarray, s: float) -> np.ndarray | None:
    """``x op s`` (``code``: 0 add, 1 sub, 2 mul, 3 div) of a flat C-contiguous bfloat16 run ``x``
    and PyTorch's scalar operand ``s`` (a float32 value as a Python float: the caller rounds the
    number as PyTorch does, add/sub to bfloat16, mul/div to float32), into a fresh run: PyTorch's
    bits, NaNs by its loop split (the scalar rides along its vector loop). None where the kernel is
    not built or off here (nothing computed: the caller's other path)."""
    k = native.half()
    if k is None or not x.flags.c_contiguous:
        return None
    res = np.empty(x.shape, x.dtype)
    return res if k.bf16(x, s, res, code, 0.0, bf16_chunk(res.size), HALF_STEP) else None


def bf16_alpha_fresh(x: np.ndarray, y: np.ndarray, scale: float) -> np.ndarray | None:
    """PyTorch's ``add(x, y, alpha=)`` of two flat C-contiguous bfloat16 runs of one length into a fresh
    run (``scale``: alpha rounded to bfloat16, negated for sub, as a float; op 5 of :func:`bf16_into`),
    None where the kernel is not built or off here."""
    k = native.half()
    if k is None or not (x.flags.c_contiguous and y.flags.c_contiguous) or len(x) != len(y):
        return None
    res = np.empty(x.shape, x.dtype)
    return res if k.bf16(y, x, res, 5, scale, bf16_chunk(res.size), HALF_STEP) else None


# (below this many elements the caller's one ufunc call is quicker than the three passes' calls)
_THROUGH_MIN = 256


def bf16_through_float32(f32: Callable[[np.ndarray], np.ndarray],
                         fused_op: int | None = None) -> Callable[[np.ndarray], np.ndarray | None]:
    """A bfloat16 unary op of a flat C-contiguous run the way PyTorch's VML-style bfloat16 kernels
    compute it: each element widened to float32 (exact), ``f32`` (a float32 kernel that gives
    PyTorch's float32 bits), rounded to nearest even, every NaN 0xFFFF. The function returns None
    where the conversion kernel is not built or off here, or for a run under ``_THROUGH_MIN``
    elements (the caller's other path, the same bits).

    ``fused_op``: where ``f32`` is ``_sleefkernel.run(x, out, fused_op, 0, 0, -1, -1)`` (exp_fresh,
    tanh_fresh), the three passes (widen, ``f32``, narrow: the run's float32 copy written and read
    back) are made in one compiled pass, ``run_bf16`` (a stack buffer of a few hundred elements at
    a time; the same conversion functions and float32 block function: the same bits) where the
    compiled modules are on."""
    def run(x: np.ndarray) -> np.ndarray | None:
        if not x.flags.c_contiguous or x.size < _THROUGH_MIN:
            return None
        if fused_op is not None and (s := native.sleef()) is not None:
            res = np.empty(x.shape, x.dtype)
            if s.run_bf16(x, res, fused_op):  # (False: nothing written, the three passes then)
                return res
        k = native.half()
        if k is None:
            return None
        return three_passes(f32, x, k)

    return run


def three_passes(f32: Callable[[np.ndarray], np.ndarray], x: np.ndarray, k: Any) -> np.ndarray:
    """``f32`` of the C-contiguous bfloat16 ``x`` in three passes: ``k.bf16_widen`` (``k``: the
    compiled ``_halfkernel``) into a float32 copy, ``f32``, ``k.bf16_narrow`` (nearest even, NaN
    0xFFFF) into a fresh result. The unfused form of :func:`bf16_through_float32` (and its
    reference in the tests)."""
    wide = np.empty(x.shape, np.float32)
    k.bf16_widen(x, wide)
    res = np.empty(x.shape, x.dtype)
    k.bf16_narrow(f32(wide), res)
    return res


def _fresh(x: np.ndarray, y: np.ndarray, code: int) -> np.ndarray | None:
    """``x op y`` into a fresh array (float16: NumPy's bits, bfloat16: PyTorch's), None where the
    kernel refuses (not built, off here, other operands): the caller's ufunc then."""
    res = np.empty(x.shape, x.dtype)
    if x.dtype == _F16:
        return res if half_into(code, x, y, res) else None
    if x.dtype.kind != "V":
        return None
    return res if bf16_into(code, x, y, res) else None


def reduced_loop(code: int) -> Callable[[np.ndarray, np.ndarray], np.ndarray | None]:
    """The compiled float16/bfloat16 loop ``code`` (0 add, 1 sub, 2 mul, 3 div) as a two-operand
    kernel (a BinaryOp's ``native``): a fresh array for two contiguous arrays of one shape and
    dtype (float16: NumPy's ufunc's bits, NaN payloads included; bfloat16: PyTorch's, NaNs
    included, for two flat runs in memory order), None where the kernel is not built, off in this
    context, or refuses them.

    >>> import ml_dtypes
    >>> b = np.array([1.0, 3.0], ml_dtypes.bfloat16)
    >>> r = reduced_loop(0)(b, b)
    >>> r is None or r.astype(np.float32).tolist() == [2.0, 6.0]
    True
    """
    return functools.partial(_fresh, code=code)
