"""Fused multiply-adds: ``a * b + c`` rounded once, as PyTorch's CPU kernels compute
``add(other, alpha=)``, ``sub(alpha=)``, ``lerp`` and ``addcmul`` (``vec::fmadd``; the compiler
contracts their scalar loops too), where NumPy's arithmetic rounds the product and the sum apart
(about 10% of float32 elements differ by an ulp after one such op; over an optimizer's steps the
two drift apart by hundreds of ulps where updates cancel).

- float32 (and float16, whose kernels compute in float32): a product of two float32 numbers is
  exact in float64; the sum is rounded to float64, then to float32 (then float16); that double
  rounding differs from a true fma only where the float64 sum lands exactly on a float32 tie
  (or the result is float32-subnormal): those elements are redone exactly (:func:`fma32`), so
  the result is the correctly rounded fma, PyTorch's, everywhere (the compiled ``fma32`` does the
  same: ``fmaf`` there).
- float64: the compiled ``fma64`` (C99's ``fma``, exact) where :func:`.native.special` is on;
  else (``STRIDED_NATIVE=0``, no compiler) Dekker's error-free product and Knuth's two-sum
  (``p + e == a * b``, ``s + t == p + c`` exactly), then ``s + RO(t + e)`` with ``t + e`` rounded
  to odd (Boldo and Melquiond): the correctly rounded fma. Where those steps are not exact (a
  product or result above about 2**996 or below 2**-900: Dekker's split overflows, the error
  terms turn subnormal) the element is recomputed from the exact rational ``a * b + c``: the
  same bits as C99's ``fma`` everywhere (``tests/test_fma_fallback.py``).
- any other dtype: the plain ``a * b + c`` (integers are exact; complex kernels do not fuse).

>>> one_rounding = fma(np.float32(0.1), np.float32(3.0), np.float32(-0.3))
>>> two_roundings = np.float32(0.1) * np.float32(3.0) + np.float32(-0.3)
>>> float(one_rounding), float(two_roundings)
(-7.450580596923828e-09, 0.0)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import native
from .native import kernel_run

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
        # (float16: PyTorch's kernels compute in float32, "opmath", and round that result to float16)
        k = native.special()
        if k is not None and (a.ndim or b.ndim or c.ndim):  # (fmaf's bits: ~50x the NumPy steps)
            return _compiled(k.fma32, _F32, a, b, c).astype(dt, copy=False)
        a, b, c = (np.asarray(x, np.float32) for x in np.broadcast_arrays(a, b, c))
        return np.asarray(fma32(a, b, c)).astype(dt, copy=False)
    if dt != np.float64:
        return np.asarray(a * b + c)
    k = native.special()
    if k is not None:  # (the compiled fma64, exact)
        return _compiled(k.fma64, _F64, a, b, c)
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        out, plain, product = _fma64(a, b, c)
        # The error-free steps are exact only away from float64's ends: Dekker's split overflows
        # above about 2**996, the product's error term turns subnormal below about 2**-969 (and
        # the round-to-odd sum below then has fewer than 54 bits). Those elements (finite
        # operands, a nonzero product, a product or result that large or that small) are
        # recomputed exactly, one by one (:func:`_exact_fma`); they are rare outside tests.
        finite = np.isfinite(out)
        # (a plain sum of exactly 0 is no reason: p + c == 0 exactly, so t == 0 and the result is
        # the product's error e, exact where the product is not tiny; counting it sent every
        # element of add(x, x, alpha=-1) through the rational recomputation, hundreds of times slower)
        tiny = (np.abs(plain) < _TINY_SAFE) & (plain != 0)
        tiny = tiny | (np.abs(product) < _TINY_SAFE)
        # (and near float64's top: a split half's product can overflow while a * b does not, its
        # inf then rounded "to odd" into a finite, wrong result: 2**28 * 6.7e299 - that product
        # gave 1.8e308 for 0)
        tiny = tiny | (np.abs(product) >= _HUGE_SAFE) | (np.abs(a) >= _HUGE_SAFE) | (np.abs(b) >= _HUGE_SAFE)
        if finite.all() and not tiny.any():  # (the common case: three passes)
            return _signed_zeros(out, plain)
        finite_ab = np.isfinite(a) & np.isfinite(b)
        finite_c = np.isfinite(c)
        redo = (~finite | tiny) & finite_ab & finite_c & (a != 0) & (b != 0)
        if redo.any():
            out = _exact_where(redo, a, b, c, out)
            plain = np.where(redo, out, plain)  # (their zeros are signed already: _signed_zeros keeps them)
        if np.isfinite(out).all():
            return _signed_zeros(out, plain)
        # (an infinite or nan operand makes the error terms nan: the plain result is the answer,
        # but for finite a, b and an infinite c, where the fused sum is c: the plain product may
        # have overflowed, inf - inf = nan)
        res = _signed_zeros(np.where(np.isfinite(out) | redo, out, np.where(finite_ab & ~finite_c, c, plain)),
                            plain)
        nan = np.isnan(res)
        if nan.any():  # (the compiled fma64's NaN, PyTorch's: see _fma_nan)
            a, b, c = np.broadcast_arrays(a, b, c)
            res = np.array(res, np.float64)
            res[nan] = _fma_nan(a[nan], b[nan], c[nan], res[nan])
        return res


def _compiled(run: Any, dtype: np.dtype, a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """``a * b + c`` by the compiled ``fma32``/``fma64`` (``run``): the operands broadcast into
    contiguous ``dtype`` runs, a 0-d one passed first as a number (a*b is b*a, and with b no NaN
    the NaN rule's order holds: see :func:`_fma_nan`), into a new array (no overlap)."""
    shape = np.broadcast_shapes(a.shape, b.shape, c.shape)
    if b.ndim == 0 and a.ndim and not np.isnan(b):
        a, b = b, a
    out = np.empty(shape, dtype)
    # (a 0-d first operand goes as a number: no run of it is made, which for a large shape was a
    # copy of the broadcast value and fresh pages to fault in, 15x the kernel's own time)
    first = float(a.astype(dtype)) if a.ndim == 0 else kernel_run(np.ascontiguousarray(np.broadcast_to(a, shape), dtype=dtype))
    runs = [kernel_run(np.ascontiguousarray(np.broadcast_to(x, shape), dtype=dtype)) for x in (b, c)]
    run(first, runs[0], runs[1], out)
    return out


_TINY_SAFE = 2.0**-900  # (well above 2**-969, where Dekker's error term can turn subnormal)
_HUGE_SAFE = 2.0**990  # (well below 2**996, where Dekker's split or its halves' products overflow)


def _exact_where(redo: np.ndarray, a: np.ndarray, b: np.ndarray, c: np.ndarray, out: np.ndarray) -> np.ndarray:
    """``out`` with the elements under ``redo`` replaced by :func:`_exact_fma` of theirs."""
    shape = np.broadcast_shapes(redo.shape, a.shape, b.shape, c.shape, out.shape)
    # (new and row-major, so flat is a view of it: np.array's default order="K" would keep a
    # column-major out's layout, and the reshape below then copies: the writes were lost)
    out = np.array(np.broadcast_to(out, shape), np.float64, order="C")
    flat, pick = out.reshape(-1), np.broadcast_to(redo, shape).reshape(-1)
    ea, eb, ec = (np.broadcast_to(x, shape).reshape(-1)[pick] for x in (a, b, c))
    flat[pick] = [_exact_fma(float(x), float(y), float(z)) for x, y, z in zip(ea, eb, ec)]
    return out


def _exact_fma(a: float, b: float, c: float) -> float:
    """``a * b + c`` for finite floats with ``a * b != 0`` exactly, rounded once to nearest-even:
    the exact rational sum, then Python's int true division (correctly rounded, subnormals
    and overflow included: CPython's ``long_true_divide``). An exact zero is +0.0 (IEEE's sum of
    opposite values); a result that underflows to zero keeps the exact value's sign."""
    from fractions import Fraction  # (here: fractions and decimal cost ~2 ms of ``import strided``)

    v = Fraction(a) * Fraction(b) + Fraction(c)
    if v == 0:
        return 0.0
    try:
        r = v.numerator / v.denominator
    except OverflowError:
        return math.inf if v > 0 else -math.inf
    return r if r != 0 else (-0.0 if v < 0 else 0.0)


def _signed_zeros(out: np.ndarray, plain: np.ndarray) -> np.ndarray:
    """``out`` with its exact zeros signed as the plain ``a * b + c`` signs them: the error terms'
    +0.0 would lose the sign (-0.0 * 1 + -0.0 is -0.0); one comparison when there is no zero."""
    zero = out == 0
    if not zero.any():
        return np.asarray(out)  # (0-d operands: an array, as np.where gives)
    return np.where(zero & (plain == 0), plain, out)


_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)


def fma32(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """``a * b + c`` of float32 arrays of one shape rounded once to float32 (a correctly rounded
    fma, PyTorch's float32 ``vec::fmadd``), in NumPy: ``a * b + c`` in float64 (the product exact:
    48 bits) cast to float32. That rounds twice, which is wrong only where the float64 sum lands
    exactly on a tie between two float32s
    while the exact sum is off it (2**24 + 1 + 2**-40: the fma gives 2**24 + 2, the casts 2**24):
    those few sums (bits below float32's precision exactly one half, or float32-subnormal ones)
    are redone by :func:`_fma32_ties`."""
    shape = np.shape(a)
    a, b, c = np.atleast_1d(a, b, c)  # (0-d operands: NumPy scalars take no out=, nor nonzero)
    s = np.multiply(a, b, dtype=np.float64)
    np.add(s, c, out=s)  # (c's float32 values cast in the ufunc's buffers: exact)
    r = s.astype(np.float32)
    # (a normal float32's tie: the 29 bits float64 has beyond it are 1 and 28 zeros; near and
    # below float32's smallest normal, where fewer bits count, every sum is redone)
    suspect = np.bitwise_and(s.view(np.uint64), 0x1FFFFFFF) == 0x10000000
    suspect |= np.abs(r) <= np.float32(2.0**-126)
    if suspect.any():
        at = np.nonzero(suspect)
        p = np.multiply(a[at], b[at], dtype=np.float64)
        r[at] = _fma32_ties(p, c[at].astype(np.float64), s[at])
    nan = np.isnan(r)
    if nan.any():
        at = np.nonzero(nan)
        r[at] = _fma_nan(a[at], b[at], c[at], r[at])
    return r.reshape(shape)


def quieted(nans: np.ndarray) -> np.ndarray:
    """``nans`` (a float array) with each NaN's quiet bit set (other values unchanged)."""
    bits = np.dtype(f"u{nans.dtype.itemsize}")
    quiet = bits.type(1 << (np.finfo(nans.dtype).nmant - 1))
    return np.where(np.isnan(nans), (nans.view(bits) | quiet).view(nans.dtype), nans)


def _fma_nan(a: np.ndarray, b: np.ndarray, c: np.ndarray, r: np.ndarray) -> np.ndarray:
    """NaN results ``r`` (float32 or float64) of ``a * b + c`` as PyTorch's fmadd gives them (the
    compiled kernels' ``fma32_nan``/``fma64_nan``): the first NaN operand in the order a, b, c,
    quieted; none (inf * 0): ``r``, the default NaN the steps made."""
    res = np.array(r)
    for x in (c, b, a):  # (the later ones win: a's NaN first)
        x = np.asarray(x, r.dtype)
        at = np.isnan(x)
        res[at] = quieted(x[at])
    return res


def _fma32_ties(p: np.ndarray, q: np.ndarray, s: np.ndarray) -> np.ndarray:
    """float32's rounding of the exact ``p + q`` (float64s; ``s`` their float64 sum): the sum's
    rounding error by TwoSum, and where ``s`` is a tie between two float32s, the error's sign
    picks the side (no error: the cast's tie to even)."""
    t = s - p
    err = (p - (s - t)) + (q - t)
    r = s.astype(np.float32)
    r64 = r.astype(np.float64)
    # (r's neighbour on s's side; past float32's max the rounding boundary is 2**128)
    fin = np.where(np.isinf(r64), np.copysign(2.0**128, r64), r64)
    other = np.nextafter(r, np.where(s > fin, np.float32(np.inf), np.float32(-np.inf)))
    o64 = other.astype(np.float64)
    tie = ((fin + o64) * 0.5 == s) & (err != 0) & (np.sign(err) == np.sign(o64 - fin))
    return np.where(tie, other, r)


def fma_into(a: Any, b: np.ndarray, c: np.ndarray, out: np.ndarray) -> None:
    """``out[...] = a * b + c`` rounded once: :func:`fma`'s result written into ``out``, for the
    optimizers' flat runs (``b``, ``c``, ``out``: 1-D arrays of one float32 or float64 dtype and
    length; ``a`` a NumPy scalar of that dtype or such an array: a number is taken as the dtype
    holds it). Without a kernel: :func:`fma32` (float32) or :func:`fma`. Call it with NumPy's
    warnings off (an overflowing float32 sum warns in the cast, as in :func:`fma`).

    float32 runs go to the compiled ``fma32`` when it is built and on (:func:`.native.special`):
    the float64 product and sum and one cast per element in one pass, the few sums on a float32
    tie or subnormal redone by ``fmaf`` (bit for bit :func:`fma32`; ``tests/test_native_fma.py``
    compares them). float64
    runs go to the compiled ``fma64``: C99's ``fma``, the exact ``a * b + c`` rounded once, as
    PyTorch's ``vec::fmadd`` (bit for bit; ``tests/test_native_fma64.py``), as is the NumPy
    emulation (``STRIDED_NATIVE=0``, or no compiler; ``tests/test_fma_fallback.py``). Both kernels decline an input that overlaps ``out`` other than
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
    if f32:  # (a number a as float32 holds it: fma would promote a Python float's 0-d array)
        np.copyto(out, fma32(*(np.asarray(x, np.float32) for x in np.broadcast_arrays(a, b, c))))
    else:
        np.copyto(out, fma(a, b, c), casting="unsafe")


def lerp_into(a: np.ndarray, b: np.ndarray, w: Any, out: np.ndarray) -> None:
    """``out[...] = lerp(a, b, w)`` as PyTorch's kernel computes it, from the nearer end:
    ``fmadd(w, b - a, a)`` for ``|w| < 0.5``, else ``fmadd(w - 1, b - a, b)``, each rounded once
    (:func:`fma_into`; ``out`` may be ``a``). ``a``, ``b``, ``out``: flat runs of one float32 or
    float64 dtype and length; ``w``: a NumPy scalar of that dtype. Call it with NumPy's warnings off.
    The compiled ``lerp_runs`` does the same in one pass where it is built and on (the same bits:
    tests/test_lerp_native.py); the subtraction and :func:`fma_into` otherwise.

    >>> out = np.empty(2, np.float64)
    >>> lerp_into(np.array([0.0, 10.0]), np.array([10.0, 20.0]), np.float64(0.75), out)
    >>> out.tolist()
    [7.5, 17.5]
    """
    k = native.special()
    if k is not None and k.lerp_runs(a, b, float(w), out):  # (the same roundings in one pass)
        return
    diff = np.subtract(b, a)
    if abs(w) < 0.5:
        fma_into(w, diff, a, out)
    else:
        fma_into(w - w.dtype.type(1), diff, b, out)


def _fma64(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Dekker's product and Knuth's sum: (the fused ``a * b + c``, the plain one, ``a * b``
    rounded); the fused one exact where :func:`fma` says."""
    p = a * b
    ah, al = _halves(a)
    bh, bl = _halves(b)
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    s = p + c
    bb = s - p
    t = (p - (s - bb)) + (c - bb)
    # (t + e rounded to odd, then added: Boldo and Melquiond's exact fma; rounded to nearest,
    # that sum could land on a tie that s + it then breaks the wrong way: 1.5 * 3.5e38 + 1.5)
    return s + _sum_to_odd(t, e), s, p


def _sum_to_odd(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``x + y`` rounded to odd: exact when representable, else whichever of the two floats
    around the exact sum has an odd last bit (the nearest-even sum is one of them; adjacent
    floats' bit patterns differ by one, so the other is one step towards the sum's error)."""
    s = np.asarray(x + y)
    bb = s - x
    err = (x - (s - bb)) + (y - bb)  # (Knuth's two-sum: s + err == x + y exactly)
    fix = (err != 0) & ((s.view(np.int64) & 1) == 0)
    if not fix.any():
        return s
    return np.where(fix, np.nextafter(s, np.where(err > 0, np.inf, -np.inf)), s)
