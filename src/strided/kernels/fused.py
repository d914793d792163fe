"""Fused multiply-adds: ``a * b + c`` rounded once, as PyTorch's CPU kernels compute
``add(other, alpha=)``, ``sub(alpha=)``, ``lerp`` and ``addcmul`` (``vec::fmadd``; the compiler
contracts their scalar loops too), where NumPy's arithmetic rounds the product and the sum apart
(about 10% of float32 elements differ by an ulp after one such op; over an optimizer's steps the
two drift apart by hundreds of ulps where updates cancel).

- float32 (and float16, whose kernels compute in float32): a product of two float32 numbers is
  exact in float64; the sum is rounded to float64, then to float32 (then float16); that double
  rounding differs from a true fma only when the float64 sum lies within 2**-29 ulp of a float32
  tie.
- float64: the compiled ``fma64`` (C99's ``fma``, exact) where :func:`.native.special` is on;
  else (``STRIDED_NATIVE=0``, no compiler) Dekker's error-free product and Knuth's two-sum (``p + e == a * b``, ``s + t == p + c``
  exactly), then ``s + (t + e)``: the correctly rounded fma but for rare double-rounding ties
  (a ``c`` below an ulp of the product's error) and where the error terms turn subnormal
  (results below about 2**-960 may be an ulp off).
- any other dtype: the plain ``a * b + c`` (integers are exact; complex kernels do not fuse).

>>> one_rounding = fma(np.float32(0.1), np.float32(3.0), np.float32(-0.3))
>>> two_roundings = np.float32(0.1) * np.float32(3.0) + np.float32(-0.3)
>>> float(one_rounding), float(two_roundings)
(-7.450580596923828e-09, 0.0)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import native

_SPLIT = 134217729.0  # 2**27 + 1: Dekker's splitter for float64


def _halves(x: Any) -> tuple[Any, Any]:
    c = _SPLIT * x
    hi = c - (c - x)
    return hi, x - hi


def fma(a: Any, b: Any, c: Any) -> np.ndarray:
    """``a * b + c`` rounded once (see the module's note), in the operands' common dtype."""
    a, b, c = np.asarray(a), np.asarray(b), np.asarray(c)
    dt = np.result_type(a, b, c)
    if dt in (np.float32, np.float16):
        wide = np.asarray(np.multiply(a, b, dtype=np.float64))  # (cast in the ufunc's buffers: no float64 copies of a, b, c)
        if wide.shape == np.broadcast_shapes(wide.shape, c.shape):
            np.add(wide, c, out=wide)
        else:  # (c broadcasts the product up: a new sum)
            wide = np.add(wide, c, dtype=np.float64)
        # (float16: PyTorch's kernels compute in float32, "opmath", and round that result to float16)
        return wide.astype(np.float32).astype(dt, copy=False)
    if dt != np.float64:
        return np.asarray(a * b + c)
    k = native.special()
    if k is not None:  # (the compiled fma64, exact: operands broadcast into contiguous runs first)
        shape = np.broadcast_shapes(a.shape, b.shape, c.shape)
        out = np.empty(shape, np.float64)
        runs = [np.ascontiguousarray(np.broadcast_to(x, shape), dtype=np.float64) for x in (a, b, c)]
        k.fma64(float(a) if a.ndim == 0 else runs[0], runs[1], runs[2], out)  # (out is new: no overlap)
        return out
    with np.errstate(over="ignore", invalid="ignore"):
        out, plain = _fma64(a, b, c)
        bad = ~np.isfinite(out)
        if not bad.any():
            return _signed_zeros(out, plain)
        # The exact product of finite a and b is finite (only its rounding overflows), so where c
        # is infinite the fused sum is c (the plain one may say inf - inf = nan), and where all
        # three are finite but Dekker's split overflowed (above 2**996) or the rounded product
        # did, the same sum over a and b scaled by 2**-32 each and c by 2**-64 (exact: powers of
        # two, unless a factor turns subnormal), scaled back. A zero product (0 * 1e308) needs no
        # redo: the plain sum is exact, and the scaled c could underflow to 0.
        finite_ab = np.isfinite(a) & np.isfinite(b)
        finite_c = np.isfinite(c)
        redo = bad & finite_ab & finite_c & (np.multiply(a, b) != 0)
        if redo.any():
            scaled, _ = _fma64(a * _HALF_DOWN, b * _HALF_DOWN, c * _DOWN)
            out = np.where(redo, scaled * _UP, out)
        # (an infinite or nan operand makes the error terms nan: the plain result is the answer)
        return _signed_zeros(np.where(np.isfinite(out), out, np.where(finite_ab & ~finite_c, c, plain)), plain)


def _signed_zeros(out: np.ndarray, plain: np.ndarray) -> np.ndarray:
    """``out`` with its exact zeros signed as the plain ``a * b + c`` signs them: the error terms'
    +0.0 would lose the sign (-0.0 * 1 + -0.0 is -0.0); one comparison when there is no zero."""
    zero = out == 0
    if not zero.any():
        return np.asarray(out)  # (0-d operands: an array, as np.where gives)
    return np.where(zero & (plain == 0), plain, out)


_HALF_DOWN, _DOWN, _UP = 2.0**-32, 2.0**-64, 2.0**64

_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)


def fma_into(a: Any, b: np.ndarray, c: np.ndarray, out: np.ndarray) -> None:
    """``out[...] = a * b + c`` rounded once: :func:`fma`'s result written into ``out``, for the
    optimizers' flat runs (``b``, ``c``, ``out``: 1-D arrays of one float32 or float64 dtype and
    length; ``a`` a NumPy scalar of that dtype or such an array). float32 takes :func:`fma`'s
    steps without its checks and copies (the float64 product and sum, then one cast into
    ``out``: the same roundings, so the same bits); float64 is :func:`fma` itself. Call it with
    NumPy's warnings off (an overflowing float32 sum warns in the cast, as in :func:`fma`).

    float32 runs go to the compiled ``fma32`` when it is built and on (:func:`.native.special`):
    the same float64 product, sum and cast per element in one pass, without the float64
    temporary (bit for bit NumPy's steps; ``tests/test_native_fma.py`` compares them). float64
    runs go to the compiled ``fma64``: C99's ``fma``, the exact ``a * b + c`` rounded once, as
    PyTorch's ``vec::fmadd`` (bit for bit; ``tests/test_native_fma64.py``). There the NumPy
    emulation (``STRIDED_NATIVE=0``, or no compiler) differs only where :func:`fma` is inexact:
    a subnormal product or error term (results below about 2**-960, an ulp or two off) and the
    rare double-rounding ties. Both kernels decline an input that overlaps ``out`` other than
    element for element; NumPy takes those.

    >>> out = np.empty(1, np.float32)
    >>> fma_into(np.float32(0.1), np.array([3.0], np.float32), np.array([-0.3], np.float32), out)
    >>> float(out[0])
    -7.450580596923828e-09
    """
    f32 = c.dtype is _F32 or c.dtype == _F32
    if f32 or c.dtype is _F64 or c.dtype == _F64:
        k = native.special()
        dt = _F32 if f32 else _F64
        if k is not None and (a.__class__ is not np.ndarray or (a.dtype == dt and a.shape == b.shape)):
            try:
                run = k.fma32 if f32 else k.fma64
                if run(a if a.__class__ is np.ndarray else float(a), b, c, out):
                    return
            except (ValueError, BufferError):  # (not flat runs of that dtype after all: NumPy's steps take them)
                pass
    if f32:
        wide = np.multiply(a, b, dtype=np.float64)
        np.add(wide, c, out=out, casting="unsafe")  # (the float64 sum, cast once into out)
    else:
        np.copyto(out, fma(a, b, c), casting="unsafe")


def lerp_into(a: np.ndarray, b: np.ndarray, w: Any, out: np.ndarray) -> None:
    """``out[...] = lerp(a, b, w)`` as PyTorch's kernel computes it, from the nearer end:
    ``fmadd(w, b - a, a)`` for ``|w| < 0.5``, else ``fmadd(w - 1, b - a, b)``, each rounded once
    (:func:`fma_into`; ``out`` may be ``a``). ``a``, ``b``, ``out``: flat runs of one float32 or
    float64 dtype and length; ``w``: a NumPy scalar of that dtype. Call it with NumPy's warnings off.

    >>> out = np.empty(2, np.float64)
    >>> lerp_into(np.array([0.0, 10.0]), np.array([10.0, 20.0]), np.float64(0.75), out)
    >>> out.tolist()
    [7.5, 17.5]
    """
    diff = np.subtract(b, a)
    if abs(w) < 0.5:
        fma_into(w, diff, a, out)
    else:
        fma_into(w - w.dtype.type(1), diff, b, out)


def _fma64(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Dekker's product and Knuth's sum: (the fused ``a * b + c``, the plain one)."""
    p = a * b
    ah, al = _halves(a)
    bh, bl = _halves(b)
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    s = p + c
    bb = s - p
    t = (p - (s - bb)) + (c - bb)
    # Note: t + e rounds once more; where c is below an ulp of e and the product a tie
    # (1.5 * 3.5e38 + 1.5) that rounding can land on the tie, and s + (t + e) breaks it the wrong
    # way (an ulp off PyTorch's hardware fma). Rounding t + e to odd (Boldo and Melquiond) fixes
    # it but made this function about 1.7x slower; left for a measured decision.
    return s + (t + e), s
