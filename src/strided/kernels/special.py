"""Special functions NumPy lacks: ``erf``, ``erfc``, ``erfinv``, ``digamma``, ``lgamma``, ... (vectorized,
float64, no SciPy).

- ``erf``/``erfc``: W. J. Cody's rational Chebyshev approximations (CALERF, 1969/1990): three
  intervals, |x| <= 0.46875, <= 4 and beyond; ``exp(-x*x)`` is split as
  ``exp(-xs*xs) * exp(-(x - xs)(x + xs))`` with ``xs = trunc(16 x) / 16`` so the tail keeps full
  relative accuracy. Max error is at float64 rounding level.
- ``erfinv``: M. Giles' polynomials ("Approximating the erfinv function", 2011) as a start (1.3e-7
  relative), then one Halley step on ``erf`` (``erfc`` from 0.5 on, where ``1 - |y|`` is exact),
  which cubes the error: float64 rounding level, within 5 ulp of the true value (4 or 5 only
  near |y| = 0.5, where the step's residual, Cody's erf or erfc, is itself ~2 ulp off).

Each function takes a float64 array (or anything NumPy converts to one) and returns a fresh
float64 array; the ops layer casts to the result dtype.

Compiled twins: each function marked ``@_compiled`` (and polygamma's ``zeta`` for n >= 2) has a
C version of the same formulas in ``strided.kernels._specialkernel`` (same name), one pass
over the elements; it is used whenever it is built and on (:func:`strided.kernels.native.special`;
``native.disabled()`` or ``STRIDED_NATIVE=0`` gives the NumPy formulas below). The two agree to
the last bit except where NumPy's own SIMD exp/log/tan/pow round differently from the C
library's (a few ulps, more where the formula cancels: see _specialkernel.c and
tests/test_native_special.py). :func:`into` writes straight into an output array (the ops
layer's fast entry: no float64 temporary, one rounding to float32 in C).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from . import native

_Fn = Callable[[np.ndarray], np.ndarray]
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _takes(x: np.ndarray, out: np.ndarray) -> bool:
    """Whether the compiled kernel reads ``x`` and writes ``out`` as they are: float32/float64,
    one shape, both row-major or both column-major (the kernel walks memory in order), both
    aligned (an unaligned array, e.g. from_numpy of a buffer at an odd byte offset, exports
    format "=d", which the kernel refuses: the NumPy formulas take it)."""
    return (x.dtype in _FLOATS and out.dtype in _FLOATS and x.shape == out.shape
            and x.flags.aligned and out.flags.aligned
            and ((x.flags.c_contiguous and out.flags.c_contiguous)
                 or (x.flags.f_contiguous and out.flags.f_contiguous)))


def into(name: str, x: np.ndarray, out: np.ndarray) -> bool:
    """Write the special function ``name`` of ``x`` into ``out`` (float32 or float64) with the
    compiled kernel, computing in float64 and rounding once; False (nothing written) where the
    kernel is not built, is off, or does not take these arrays: the caller then takes the NumPy
    formulas.

    >>> out = np.empty(2)
    >>> into("erf", np.array([0.0, 1.0]), out) in (True, False)
    True
    """
    k = native.special()
    if k is None:
        return False
    if not (x.flags.aligned and out.flags.aligned):
        # (memory at an odd address, from_numpy's of such a buffer: the kernel reads an aligned copy
        # and writes an aligned array copied into out, for the bits it gives aligned memory)
        work = np.empty(out.shape, out.dtype)
        if not into(name, np.array(x, order="K") if not x.flags.aligned else x, work):
            return False
        np.copyto(out, work)
        return True
    which = TORCH_KERNELS.get(name)
    if which is not None:
        if x.dtype == out.dtype and _takes(x, out) and k.torch_special(x, out, which, 0):
            return True  # (_torch_into's first step: one dtype and memory order, no overlap)
        return _torch_into(lambda src, dst: run_compiled(k, name, src, dst), x, out)
    if not _takes(x, out):
        return False
    compiled_entry(k, name, x, out)(x, out)
    return True


def gelu_into(x: np.ndarray, out: np.ndarray) -> bool:
    """``out`` = gelu(x) (the exact form) by the compiled kernel, in one pass: the ops layer's float64
    formula ``0.5 * x * (1 + erf(x * sqrt(1/2)))`` with the compiled erf, rounded once, bit for bit
    (see ``gelu`` in _specialkernel.c). False (nothing written) where the kernel is not built or is
    off, or does not take the arrays: float32 or float64, one dtype, one shape and memory order,
    aligned. ``x`` and ``out`` may be the same array, not partly overlapping ones.

    >>> out = np.empty(2)
    >>> gelu_into(np.array([0.0, 1.0]), out) in (True, False)
    True
    """
    k = native.special()
    if k is None or x.dtype != out.dtype or not _takes(x, out):
        return False
    return bool(k.gelu(x, out))


# The functions whose compiled kernel is PyTorch's own code (ATen's calc_i0/i1/i0e/i1e: Cephes'
# Chebyshev expansions; calc_digamma, trigamma, zeta) computed in the tensor's type and fused as
# PyTorch's AVX2/AVX-512 build fuses them, by the kernel's ``which``: their bits are PyTorch's. The
# NumPy formulas below (no compiler) agree to a few ulps.
TORCH_KERNELS = {"i0": 0, "i1": 1, "i0e": 2, "i1e": 3, "digamma": 4, "trigamma": 5}
_POLYGAMMA = 6  # (the kernel's which for polygamma of order n >= 2)


def run_compiled(k: object, name: str, x: np.ndarray, out: np.ndarray) -> bool:
    """The compiled kernel ``name`` of ``x`` into ``out`` (one float type, one memory order, as
    the entries check); False where PyTorch's kernels refuse the pair (an overlap: nothing written)."""
    which = TORCH_KERNELS.get(name)
    if which is not None:
        return k.torch_special(x, out, which, 0)
    compiled_entry(k, name, x, out)(x, out)
    return True


def compiled_call(k: object, name: str, dtype: np.dtype) -> tuple[Callable[..., Any], tuple]:
    """:func:`run_compiled`'s call for ``x`` and ``out`` both of ``dtype``, as ``(run, extra)``:
    ``run(x, out, *extra)`` is the same kernel call (for the compiled fronts, which make it in C)."""
    which = TORCH_KERNELS.get(name)
    if which is not None:
        return k.torch_special, (which, 0)
    fast = getattr(k, name + "_float32", None) if np.dtype(dtype) == _F32 else None
    return (fast if fast is not None else getattr(k, name)), ()


def _torch_into(run: Callable[[np.ndarray, np.ndarray], bool], x: np.ndarray, out: np.ndarray) -> bool:
    """``out`` = one of PyTorch's own kernels (``run(src, dst)``) of ``x``: computed in ``out``'s
    type (float32 for float16/bfloat16, as PyTorch upcasts them), through a contiguous copy where
    ``x`` or ``out`` is not one, and rounded into ``out``."""
    dt = out.dtype if out.dtype in _FLOATS else np.dtype(np.float32)
    if x.dtype == dt and out.dtype == dt and _takes(x, out):  # (one memory order: a map, in place too)
        src, dst = x, out
    else:
        src = np.array(x, dtype=dt, order="C")
        dst = out if out.dtype == dt and _takes(src, out) else np.empty(src.shape, dt)
    if not run(src, dst):  # (an overlap: x is out, in place)
        dst = np.empty_like(src)  # (src's memory order: the kernel walks both in step)
        run(src, dst)
    if dst is not out:
        np.copyto(out, dst, casting="unsafe")
    return True


_F32 = np.dtype(np.float32)


def compiled_entry(k: object, name: str, x: np.ndarray, out: np.ndarray) -> Callable[[np.ndarray, np.ndarray], None]:
    """The compiled entry for ``name`` on these arrays: ``NAME_float32`` where both are float32
    and the module has one (erf, erfc, erfinv: the same bits as ``NAME``, from a vectorized
    loop: see _specialkernel.c), else ``NAME``."""
    if x.dtype == _F32 and out.dtype == _F32:
        fast = getattr(k, name + "_float32", None)
        if fast is not None:
            return fast
    return getattr(k, name)


def _compiled(fn: _Fn) -> _Fn:
    """``fn`` (a NumPy formula) run by its compiled twin of the same name when that is on."""
    name = fn.__name__

    @functools.wraps(fn)
    def run(x: np.ndarray) -> np.ndarray:
        k = native.special()
        if k is None:
            return fn(x)
        x = np.asarray(x, dtype=np.float64)
        if not ((x.flags.c_contiguous or x.flags.f_contiguous) and x.flags.aligned):
            x = np.array(x, order="C")  # (a fresh array is aligned: the kernel refuses unaligned ones)
        out = np.empty_like(x)
        getattr(k, name)(x, out)
        return out

    return run

_A = (3.16112374387056560e00, 1.13864154151050156e02, 3.77485237685302021e02,
      3.20937758913846947e03, 1.85777706184603153e-1)
_B = (2.36012909523441209e01, 2.44024637934444173e02, 1.28261652607737228e03, 2.84423683343917062e03)
_C = (5.64188496988670089e-1, 8.88314979438837594e00, 6.61191906371416295e01, 2.98635138197400131e02,
      8.81952221241769090e02, 1.71204761263407058e03, 2.05107837782607147e03, 1.23033935479799725e03,
      2.15311535474403846e-8)
_D = (1.57449261107098347e01, 1.17693950891312499e02, 5.37181101862009858e02, 1.62138957456669019e03,
      3.29079923573345963e03, 4.36261909014324716e03, 3.43936767414372164e03, 1.23033935480374942e03)
_P = (3.05326634961232344e-1, 3.60344899949804439e-1, 1.25781726111229246e-1, 1.60837851487422766e-2,
      6.58749161529837803e-4, 1.63153871373020978e-2)
_Q = (2.56852019228982242e00, 1.87295284992346047e00, 5.27905102951428412e-1, 6.05183413124413191e-2,
      2.33520497626869185e-3)
_RSQRTPI = 0.56418958354775628695  # 1 / sqrt(pi)
_THRESH = 0.46875
_TWO_OVER_SQRTPI = 1.1283791670955125739


def _small(x: np.ndarray) -> np.ndarray:
    """erf(x) for |x| <= 0.46875: x * P(x^2) / Q(x^2)."""
    z = x * x
    num = _A[4] * z
    den = z
    for i in range(3):
        num = (num + _A[i]) * z
        den = (den + _B[i]) * z
    return x * (num + _A[3]) / (den + _B[3])


def _scaled_tail(y: np.ndarray) -> np.ndarray:
    """``erfc(y) * exp(y*y)`` for y > 0.46875 (the middle and the far interval)."""
    mid = y <= 4.0
    out = np.empty_like(y)
    ym = y[mid]
    num = _C[8] * ym
    den = ym
    for i in range(7):
        num = (num + _C[i]) * ym
        den = (den + _D[i]) * ym
    out[mid] = (num + _C[7]) / (den + _D[7])
    yf = y[~mid]
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        z = 1.0 / (yf * yf)
        num = _P[5] * z
        den = z
        for i in range(4):
            num = (num + _P[i]) * z
            den = (den + _Q[i]) * z
        far = z * (num + _P[4]) / (den + _Q[4])
        out[~mid] = (_RSQRTPI - far) / yf
    return out


def _erfc_positive(y: np.ndarray) -> np.ndarray:
    """erfc(y) for y > 0.46875, with exp(-y*y) split so the tail keeps its relative accuracy."""
    y = np.minimum(y, 40.0)  # erfc(40) is 0 in float64; keeps inf out of y - ys
    scaled = _scaled_tail(y)
    ys = np.trunc(y * 16.0) / 16.0
    delta = (y - ys) * (y + ys)
    with np.errstate(under="ignore", over="ignore", invalid="ignore"):
        return np.exp(-ys * ys) * np.exp(-delta) * scaled


@_compiled
def erf(x: np.ndarray) -> np.ndarray:
    """The error function, elementwise, in float64.

    >>> erf(np.array([0.0, 1.0]))
    array([0.        , 0.84270079])
    """
    x = np.asarray(x, dtype=np.float64)
    out = np.empty_like(x)
    ax = np.abs(x)
    small = ax <= _THRESH
    out[small] = _small(x[small])
    big = ~small & ~np.isnan(x)
    xb = x[big]
    out[big] = np.copysign(1.0 - _erfc_positive(np.abs(xb)), xb)
    out[np.isnan(x)] = np.nan
    return out


@_compiled
def erfc(x: np.ndarray) -> np.ndarray:
    """The complementary error function ``1 - erf(x)``, elementwise in float64, accurate in the tail.

    >>> float(erfc(np.array([10.0]))[0])  # (the last digit is the platform's libm)
    2.08848758376254...e-45
    """
    x = np.asarray(x, dtype=np.float64)
    out = np.empty_like(x)
    ax = np.abs(x)
    small = ax <= _THRESH
    out[small] = 1.0 - _small(x[small])
    big = ~small & ~np.isnan(x)
    xb = x[big]
    tail = _erfc_positive(np.abs(xb))
    out[big] = np.where(xb < 0, 2.0 - tail, tail)
    out[np.isnan(x)] = np.nan
    return out


# Giles' erfinv polynomials (see erfinv), highest power first: his single-precision pair in
# w - 2.5 (w < 5) and sqrt(w) - 3 (w < 16), relative error < 1.3e-7, and the far branch of his
# double-precision version in sqrt(w) - 5 (the single pair stops at float32's 1 - 2**-24)
_GILES_CENTRAL = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
                  -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)
_GILES_MID = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
              -0.0076224613, 0.00943887047, 1.00167406, 2.83297682)
_GILES_FAR = (-2.7109920616438573243e-11, -2.5556418169965252055e-10, 1.5076572693500548083e-09,
              -3.7894654401267369937e-09, 7.6157012080783393804e-09, -1.4960026627149240478e-08,
              2.9147953450901080826e-08, -6.7711997758452339498e-08, 2.2900482228026654717e-07,
              -9.9298272942317002539e-07, 4.5260625972231537039e-06, -1.9681778105531670567e-05,
              7.5995277030017761139e-05, -0.00021503011930044477347, -0.00013871931833623122026,
              1.0103004648645343977, 4.8499064014085844221)
_EXP_TAYLOR = (1 / 40320, 1 / 5040, 1 / 720, 1 / 120, 1 / 24, 1 / 6, 0.5, 1.0, 1.0)  # exp(t), to t**8
# w = 5 and w = 16 as (1 - a)(1 + a) = exp(-w): the branch is chosen before the log
_EXP_M5 = 6.737946999085467e-03
_EXP_M16 = 1.1253517471925912e-07
_LN2 = 0.6931471805599453094
_HALF_SQRTPI = 0.88622692545275801365
_SQRT_HALF = 0.70710678118654752440


def _horner(coefs: tuple[float, ...], t: np.ndarray) -> np.ndarray:
    p = np.full_like(t, coefs[0])
    for c in coefs[1:]:
        p = c + p * t
    return p


def _short_log(v: np.ndarray) -> np.ndarray:
    """log(v) for normal v > 0 to ~1e-10 absolute (enough for erfinv's start): v = f 2**e with f in
    [sqrt(1/2), sqrt(2)), log f = 2 atanh(s) to s**11, s = (f - 1) / (f + 1)."""
    f, e = np.frexp(v)
    low = f < _SQRT_HALF
    f = np.where(low, 2.0 * f, f)
    e = e - low
    s = (f - 1.0) / (f + 1.0)
    z = s * s
    p = _horner((1 / 11, 1 / 9, 1 / 7, 1 / 5, 1 / 3, 1.0), z)
    return e * _LN2 + 2.0 * s * p


def _giles(v: np.ndarray, first: np.ndarray, poly: tuple, shift: float, mid_poly: tuple,
           mid_shift: float) -> np.ndarray:
    """Giles' polynomial start of erfinv(a)/a from ``v = (1 - a)(1 + a)``, in three branches of
    ``w = -log v``: ``poly`` at ``w - shift`` where ``first``, ``mid_poly`` at ``sqrt(w) - mid_shift``
    for ``v > e**-16``, the far branch beyond (the float64 and float32 forms differ only in the
    first two branches' polynomials and where the first ends)."""
    mid = ~first & (v > _EXP_M16)
    far = ~first & ~mid
    w = -_short_log(v)
    x = np.empty_like(v)
    x[first] = _horner(poly, w[first] - shift)
    x[mid] = _horner(mid_poly, np.sqrt(w[mid]) - mid_shift)
    x[far] = _horner(_GILES_FAR, np.sqrt(w[far]) - 5.0)
    return x


def _erfinv_inside(a: np.ndarray) -> np.ndarray:
    """erfinv(a) for 0 <= a < 1: Giles' start, then one Halley step (see erfinv)."""
    v = (1.0 - a) * (1.0 + a)
    central = a < 0.5
    first = central | (v > _EXP_M5)
    x = a * _giles(v, first, _GILES_CENTRAL, 2.5, _GILES_MID, 3.0)
    f = np.empty_like(a)  # the residual f(x), f = erf(x) - a or its negative (1 - a) - erfc(x)
    g = np.empty_like(a)  # and 1 / f'(x) = sqrt(pi)/2 exp(x*x), with the same sign as f's
    xc, ac = x[central], a[central]
    small = xc <= _THRESH
    fc = np.empty_like(xc)
    fc[small] = _small(xc[small])
    fc[~small] = 1.0 - _erfc_positive(xc[~small])
    f[central] = fc - ac
    g[central] = _HALF_SQRTPI * _horner(_EXP_TAYLOR, xc * xc)
    xt, at = x[~central], a[~central]
    e = np.exp(-xt * xt)
    f[~central] = (1.0 - at) - e * _scaled_tail(xt)
    g[~central] = 1.0 / (_TWO_OVER_SQRTPI * e)
    s = f * g
    return x - (s - x * s * s)  # (s / (1 + x s) to O((x s)^2 s): |x s| < 1e-6)


@_compiled
def erfinv(y: np.ndarray) -> np.ndarray:
    """The inverse error function on [-1, 1] (+-inf at +-1, NaN outside), elementwise in float64.

    With ``a = |y|`` and ``w = -log((1 - a)(1 + a))``: M. Giles' polynomial in ``w`` or
    ``sqrt(w)`` ("Approximating the erfinv function", GPU Computing Gems Jade Edition, 2011;
    relative error < 1.3e-7, so a short log will do), then one Halley step, which cubes that
    error: on ``erf(x) - a`` for ``a < 0.5`` (Cody's erf, no exp; ``exp(x*x)`` only scales the
    step, so its Taylor polynomial serves) and on ``erfc(x) - (1 - a)`` from 0.5 on, where
    ``1 - a`` is exact and ``erf(x) - a`` would cancel. The compiled twin runs these operations
    in the same order (kernels/_specialkernel.c).

    >>> float(erfinv(np.array([0.5]))[0])  # (0.47693627620446987338...: 1 ulp off, see the test)
    0.4769362762044698
    """
    y = np.asarray(y, dtype=np.float64)
    inside = np.abs(y) < 1.0
    out = np.full_like(y, np.nan)
    with np.errstate(invalid="ignore"):  # (sqrt of the unused branches' w)
        out[inside] = np.copysign(_erfinv_inside(np.abs(y[inside])), y[inside])
    out[y == 1.0] = np.inf
    out[y == -1.0] = -np.inf
    return out


# Giles' double-precision polynomials for w < 6.25 (in w - 3.125) and w < 16 (in sqrt(w) - 3.25)
_GILES_W = (-3.6444120640178196996e-21, -1.685059138182016589e-19, 1.2858480715256400167e-18,
            1.115787767802518096e-17, -1.333171662854620906e-16, 2.0972767875968561637e-17,
            6.6376381343583238325e-15, -4.0545662729752068639e-14, -8.1519341976054721522e-14,
            2.6335093153082322977e-12, -1.2975133253453532498e-11, -5.4154120542946279317e-11,
            1.051212273321532285e-09, -4.1126339803469836976e-09, -2.9070369957882005086e-08,
            4.2347877827932403518e-07, -1.3654692000834678645e-06, -1.3882523362786468719e-05,
            0.0001867342080340571352, -0.00074070253416626697512, -0.0060336708714301490533,
            0.24015818242558961693, 1.6536545626831027356)
_GILES_W_MID = (2.2137376921775787049e-09, 9.0756561938885390979e-08, -2.7517406297064545428e-07,
                1.8239629214389227755e-08, 1.5027403968909827627e-06, -4.013867526981545969e-06,
                2.9234449089955446044e-06, 1.2475304481671778723e-05, -4.7318229009055733981e-05,
                6.8284851459573175448e-05, 2.4031110387097893999e-05, -0.0003550375203628474796,
                0.00095328937973738049703, -0.0016882755560235047313, 0.0024914420961078508066,
                -0.0037512085075692412107, 0.005370914553590063617, 1.0052589676941592334,
                3.0838856104922207635)
_EXP_M625 = 1.9304541362277093e-03


@_compiled
def erfinv_float32(y: np.ndarray) -> np.ndarray:
    """erfinv for a float32 result: float64 values that round (once) to within 1 ulp of float32's
    correctly rounded erfinv, cheaper than :func:`erfinv`: Giles' double-precision polynomials
    alone (relative error ~1e-15; the short log's error moves x by < 2e-11 relative), no Halley
    step. The ops layer calls it for float32 results (:data:`FLOAT32`).

    >>> float(np.float32(erfinv_float32(np.array([0.5], np.float32))[0]))
    0.4769362807273865
    """
    y = np.asarray(y, dtype=np.float64)
    a = np.abs(y)
    inside = a < 1.0
    ai = a[inside]
    v = (1.0 - ai) * (1.0 + ai)
    x = _giles(v, v > _EXP_M625, _GILES_W, 3.125, _GILES_W_MID, 3.25)
    out = np.full_like(y, np.nan)
    out[inside] = np.copysign(ai * x, y[inside])
    out[y == 1.0] = np.inf
    out[y == -1.0] = -np.inf
    return out


# the functions with a cheaper form for a float32 result (the compiled kernel of the plain name
# takes that form itself when its destination is float32)
FLOAT32: dict[str, _Fn] = {"erfinv": erfinv_float32}


# ---------------------------------------------------------------- digamma, trigamma, i0, i1

# Bernoulli terms of the asymptotic series of digamma (B_2k / 2k) and trigamma (B_2k), both
# accurate to float64 rounding for x >= 10
_PSI_TERMS = (1 / 12, -1 / 120, 1 / 252, -1 / 240, 1 / 132, -691 / 32760, 1 / 12)
_PSI1_TERMS = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6)


def _shifted(x: np.ndarray, power: int) -> tuple[np.ndarray, np.ndarray]:
    """``x`` moved up to >= 10 by the recurrence, and the sum of ``1 / x**power`` it stepped over."""
    y = x.copy()
    acc = np.zeros_like(x)
    for _ in range(10):
        low = y < 10.0
        if not low.any():
            break
        acc[low] += 1.0 / y[low] ** power
        y[low] += 1.0
    return y, acc


@_compiled
def digamma(x: np.ndarray) -> np.ndarray:
    """The digamma function (the derivative of log gamma), elementwise in float64, with PyTorch's
    values at the poles: -inf at +0, +inf at -0, NaN at the negative integers and at -inf.

    Recurrence up to x >= 10, then the asymptotic series; the reflection
    ``psi(x) = psi(1 - x) - pi / tan(pi x)`` for negative x.

    >>> round(float(digamma(np.array([1.0]))[0]), 12)  # -Euler's gamma
    -0.577215664902
    """
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(all="ignore"):
        pole = (x <= 0) & (x == np.floor(x))
        reflect = (x < 0) & ~pole
        base = np.where(reflect, 1.0 - x, np.where(pole | np.isnan(x), 1.0, x))
        y, acc = _shifted(base, 1)
        inv2 = 1.0 / (y * y)
        series = np.zeros_like(y)
        for c in reversed(_PSI_TERMS):
            series = (series + c) * inv2
        out = np.log(y) - 0.5 / y - series - acc
        # tan(pi r) with r = x's fractional part (exact), as PyTorch's calc_digamma: pi * x
        # itself rounds, off by ~1e-9 relative within 1e-7 of a pole (psi(-3.0000001))
        out = np.where(reflect, out - np.pi / np.tan(np.pi * np.modf(x)[0]), out)
        out = np.where(pole, np.nan, out)
        out = np.where(x == 0, np.copysign(np.inf, -np.copysign(1.0, x)), out)
        out = np.where(np.isnan(x), np.nan, out)
    return out


@_compiled
def trigamma(x: np.ndarray) -> np.ndarray:
    """The trigamma function (digamma's derivative, ``polygamma(1, x)``), elementwise in float64,
    computed as PyTorch's ``calc_trigamma`` (ATen/native/Math.h) computes it, so that digamma's
    gradient is PyTorch's: the reflection ``-pi**2 / sin(pi x)**2`` below 0.5, six steps of the
    recurrence, then the asymptotic series. Its error is PyTorch's too (about 5e-10 relative near
    1); +inf at 0, and at the negative integers the huge finite value ``sin(pi x)`` (not exactly 0
    there) gives, as PyTorch's; NaN at -inf and NaN.

    >>> round(float(trigamma(np.array([1.0]))[0]), 8)  # pi**2 / 6
    1.64493407
    """
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(all="ignore"):
        low = x < 0.5
        sin_pi_x = np.sin(np.pi * x)
        result = np.where(low, -(np.pi * np.pi) / (sin_pi_x * sin_pi_x), 0.0)
        y = np.where(low, 1.0 - x, x)
        for _ in range(6):
            result = result + 1.0 / (y * y)
            y = y + 1.0
        ixx = 1.0 / (y * y)
        result = result + (1.0 + 1.0 / (2.0 * y) + ixx * (1.0 / 6 - ixx * (1.0 / 30 - ixx * (1.0 / 42)))) / y
        return np.where(low, -result, result)


@_compiled
def i0(x: np.ndarray) -> np.ndarray:
    """The modified Bessel function of the first kind, order 0 (NumPy's Cephes Chebyshev
    expansion), NaN at +-inf as PyTorch's.

    >>> float(i0(np.array([0.0]))[0])
    1.0
    """
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(all="ignore"):
        out = np.i0(np.where(np.isinf(x), 0.0, x))
    return np.where(np.isinf(x), np.nan, out)


@_compiled
def i1(x: np.ndarray) -> np.ndarray:
    """The modified Bessel function of the first kind, order 1 (``i0``'s derivative), NaN at
    +-inf as PyTorch's: its power series ``sum (x/2)**(2k+1) / (k! (k+1)!)`` (positive terms,
    no cancellation) up to |x| = 30, the asymptotic expansion ``e**|x| / sqrt(2 pi |x|)`` times
    ``1 - 3/(8x) - 15/(128x**2) - ...`` beyond.

    >>> round(float(i1(np.array([1.0]))[0]), 12)
    0.565159103992
    """
    x = np.asarray(x, dtype=np.float64)
    a = np.abs(np.where(np.isfinite(x), x, 0.0))
    with np.errstate(all="ignore"):
        small = a <= 30.0
        half = a[small] / 2.0
        term = half.copy()
        total = term.copy()
        q = half * half
        for k in range(1, 80):
            term = term * q / (k * (k + 1))
            total += term
        big = a[~small]
        # (4 - (2k-1)**2) / (8 k x) per step: mu = 4 for order 1
        series = np.ones_like(big)
        step = np.ones_like(big)
        for k in range(1, 30):
            step = step * -(4.0 - (2 * k - 1) ** 2) / (8.0 * k * big)
            series += step
        out = np.empty_like(a)
        out[small] = total
        out[~small] = np.exp(big) / np.sqrt(2 * np.pi * big) * series
        out = np.where(x < 0, -out, out)  # (PyTorch's: -0.0 gives +0.0, no copysign)
    return np.where(np.isfinite(x), out, np.nan)


# Stirling's series for log gamma: B_2k / (2k (2k - 1)), k = 1..8 (the terms of 1/y, 1/y**3, ...)
_STIRLING = (1 / 12, -1 / 360, 1 / 1260, -1 / 1680, 1 / 1188, -691 / 360360, 1 / 156, -3617 / 122400)
_HALF_LOG_2PI = 0.91893853320467274178  # log(2 pi) / 2
_LOG_PI = 1.14472988584940017414


def _lgamma_large(z: np.ndarray) -> np.ndarray:
    """log gamma of ``z >= 1``: moved up past 15 by the recurrence (``lgamma(z) = lgamma(z + 15)
    - log(z (z+1) ... (z+14))`` for ``z < 15``, the product kept as one number: below 30**15),
    then Stirling's series, whose next term is below 1e-19 there."""
    low = z < 15.0
    y = z
    prod = np.ones_like(z)
    if low.any():  # (a fixed 15 steps for every element below 15: no per-step masks)
        w = np.where(low, z, 1.0)
        step = low.astype(np.float64)
        for _ in range(15):
            prod *= w
            w += step
        y = np.where(low, z + 15.0, z)
    inv2 = 1.0 / (y * y)
    series = np.zeros_like(y)
    for c in reversed(_STIRLING):
        series = series * inv2 + c
    return (y - 0.5) * np.log(y) - y + _HALF_LOG_2PI + series / y - np.log(prod)


def _abs_sinpi(x: np.ndarray) -> np.ndarray:
    """``|sin(pi x)|`` with the argument reduced exactly first (``x - round(x)`` in [-0.5, 0.5]:
    full relative accuracy next to the integers)."""
    return np.abs(np.sin(np.pi * (x - np.round(x))))


@_compiled
def lgamma(x: np.ndarray) -> np.ndarray:
    """log |gamma(x)|, elementwise in float64, with PyTorch's values: +inf at 0 (either sign),
    at the negative integers and at +-inf; NaN at NaN; exactly 0 at 1 and 2.

    Below 1 the recurrence ``lgamma(x) = lgamma(x + 1) - log(x)`` (0 < x < 1) or the reflection
    ``log(pi / |sin(pi x)|) - lgamma(1 - x)`` (x < 0); from 1 up, :func:`_lgamma_large`. Absolute
    error about 1e-14 near the zeros at 1 and 2, relative about 1e-15 elsewhere.

    >>> round(float(lgamma(np.array([0.5]))[0]), 12)  # log(sqrt(pi))
    0.572364942925
    """
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(all="ignore"):
        finite = np.isfinite(x)
        pole = (x <= 0) & (x == np.floor(x)) & finite
        neg = (x < 0) & ~pole & finite
        small = (x > 0) & (x < 1)
        z = np.where(neg, 1.0 - x, np.where(small, x + 1.0, np.where(finite & ~pole, x, 2.0)))
        out = _lgamma_large(np.maximum(z, 1.0))
        out = np.where(small, out - np.log(np.where(small, x, 1.0)), out)
        out = np.where(neg, _LOG_PI - np.log(_abs_sinpi(x)) - out, out)
        out = np.where((x == 1.0) | (x == 2.0), 0.0, out)
        out = np.where(pole | np.isinf(x), np.inf, out)
        out = np.where(np.isnan(x), np.nan, out)
    return out


# ---------------------------------------------------------------- Hurwitz zeta, polygamma, i0e, i1e

# Cephes' Euler-Maclaurin coefficients (2k)! / B_2k, as PyTorch's zeta (ATen/native/Math.h)
_ZETA_A = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9, 7.47242496e10,
           -2.950130727918164224e12, 1.1646782814350067249e14, -4.5979787224074726105e15,
           1.8152105401943546773e17, -7.1661652561756670113e18)
_MACHEP = 1.11022302462515654042e-16


# (the direct sum below steps all elements together, one whole-array pass per step: a q under _FAR
# is stepped alone, in chunks, first; above it, the shared passes cost less than a loop per element)
_FAR = -4096.0
_CHUNK = 1 << 16


def _far_head(s: float, q: np.ndarray, done: np.ndarray, a: np.ndarray, b: np.ndarray,
              total: np.ndarray, ahead: np.ndarray) -> None:
    """The first terms of :func:`zeta`'s direct sum for each element with ``q < _FAR`` (not done),
    in place: ``a``, ``b``, ``total`` and ``ahead`` (the steps taken) as the one-step loop leaves
    them once ``a`` reaches ``_FAR``, operation for operation (``q + k`` is exact below 0, where
    ``a + 1.0`` adds no rounding; ``np.add.accumulate`` sums in order; the early return cannot fire
    while every term has one sign and grows). Without it the NumPy loop ran one whole-array pass
    per step: polygamma(2, -4988429.2) (a value from PyTorch's large-value tests) took many minutes;
    the compiled kernel, like PyTorch's, steps one element at a time and takes a fraction of a second.
    """
    for flat in np.flatnonzero(~done & (q < _FAR)):
        idx = np.unravel_index(flat, q.shape)
        qi, tot, k = float(q[idx]), float(total[idx]), 0
        steps = int(math.floor(_FAR - qi))  # (a = q + steps stays below _FAR + 1 <= 0)
        while k < steps:
            ks = np.arange(k + 1, min(k + _CHUNK, steps) + 1, dtype=np.float64)
            terms = np.power(qi + ks, -s)
            sums = np.add.accumulate(np.concatenate(([tot], terms)))
            tot, k = float(sums[-1]), int(ks[-1])
            b[idx] = terms[-1]
        a[idx], total[idx], ahead[idx] = qi + k, tot, k


def zeta(s: float, q: np.ndarray) -> np.ndarray:
    """The Hurwitz zeta function ``sum_k (k + q)**-s`` for one order ``s`` >= 1, elementwise in
    float64, step for step as PyTorch's ``zeta`` (Cephes): up to nine terms (more while the term
    index is below 9) summed directly, then the Euler-Maclaurin tail; +inf at ``s == 1`` and at
    the poles ``q = 0, -1, -2, ...`` (and -inf), NaN for a non-integer ``s`` at negative ``q``.

    >>> round(float(zeta(2.0, np.array([1.0]))[0]), 12)  # pi**2 / 6
    1.644934066848
    """
    q = np.asarray(q, dtype=np.float64)
    if s == 1.0:
        return np.full_like(q, np.inf)
    if s < 1.0:
        return np.full_like(q, np.nan)
    with np.errstate(all="ignore"):
        pole = (q <= 0) & (q == np.floor(q))  # (Cephes returns before summing: -inf never loops)
        undefined = (q <= 0) & ~pole & (s != np.floor(s))
        total = np.asarray(np.power(q, -s))  # (an array even for 0-d q: _far_head writes into it)
        done = pole | undefined | np.isnan(q)
        a = q.copy()
        b = np.zeros_like(q)
        ahead = np.zeros(q.shape, np.int64)  # (steps an element took in _far_head)
        _far_head(s, q, done, a, b, total, ahead)
        i = 0
        # the direct sum: each element stops at its own term (Cephes' early return)
        while True:
            going = ~done & ((i + ahead < 9) | (a <= 9.0))
            if not going.any():
                break
            i += 1
            a = np.where(going, a + 1.0, a)
            b = np.where(going, np.power(a, -s), b)
            total = np.where(going, total + b, total)
            done |= going & (-_MACHEP * total < b) & (b < _MACHEP * total)
        w = a
        tail = ~done
        total = np.where(tail, total + b * w / (s - 1.0) - 0.5 * b, total)
        fact = np.ones_like(q)
        k = 0.0
        for coef in _ZETA_A:
            fact = fact * (s + k)
            b = b / w
            t = fact * b / coef
            total = np.where(tail, total + t, total)
            tail &= ~(np.abs(t / total) < _MACHEP)
            k += 1.0
            fact = fact * (s + k)
            b = b / w
            k += 1.0
        total = np.where(pole, np.inf, np.where(undefined | np.isnan(q), np.nan, total))
    return total


def polygamma(n: int, x: np.ndarray) -> np.ndarray:
    """The ``n``-th derivative of digamma, elementwise in float64, as PyTorch's kernel: digamma
    for ``n == 0``, trigamma for 1, else ``(-1)**(n+1) n! zeta(n + 1, x)`` (:func:`zeta`), so its
    values at the poles (+-inf) and at +inf (NaN for n >= 2) are PyTorch's.

    >>> round(float(polygamma(2, np.array([1.0]))[0]), 10)  # -2 zeta(3)
    -2.4041138063
    """
    if n == 0:
        return digamma(x)
    if n == 1:
        return trigamma(x)
    x = np.asarray(x, dtype=np.float64)
    scale = (1.0 if n % 2 else -1.0) * math.exp(math.lgamma(n + 1.0))
    k = native.special()
    if k is not None:
        out = np.empty(x.shape)
        src = np.ascontiguousarray(x) if x.flags.aligned else np.array(x, order="C")  # (aligned: as _compiled)
        k.zeta_scaled(src, out, n + 1.0, scale)  # (0-d: read as 1-d, one element)
        return out
    with np.errstate(all="ignore"):
        return scale * zeta(n + 1.0, x)


def polygamma_into(n: int, x: np.ndarray, out: np.ndarray) -> bool:
    """:func:`polygamma` written into ``out`` by the compiled kernel, as :func:`into`.

    >>> out = np.empty(1)
    >>> polygamma_into(2, np.array([1.0]), out) in (True, False)
    True
    """
    if n < 2:
        return into("trigamma" if n else "digamma", x, out)
    k = native.special()
    if k is None:
        return False
    return _torch_into(lambda src, dst: k.torch_special(src, dst, _POLYGAMMA, n), x, out)  # (calc_polygamma)


def _bessel_i_scaled(x: np.ndarray, order: int) -> np.ndarray:
    """``exp(-|x|) I_order(x)`` for order 0 or 1, odd in x for order 1: the power series (times
    ``exp(-|x|)``) up to |x| = 30, the asymptotic expansion ``(1 - (4 nu**2 - 1)/(8x) + ...) /
    sqrt(2 pi |x|)`` beyond (no overflow: the exponentials cancel); 0 at +-inf, NaN at NaN."""
    x = np.asarray(x, dtype=np.float64)
    a = np.abs(np.where(np.isfinite(x), x, 0.0))
    with np.errstate(all="ignore"):
        small = a <= 30.0
        out = np.empty_like(a)
        plain = i0(a[small]) if order == 0 else i1(a[small])
        out[small] = plain * np.exp(-a[small])
        big = a[~small]
        mu = 4.0 * order * order
        series = np.ones_like(big)
        step = np.ones_like(big)
        for k in range(1, 30):
            step = step * -(mu - (2 * k - 1) ** 2) / (8.0 * k * big)
            series += step
        out[~small] = series / np.sqrt(2 * np.pi * big)
        if order == 1:
            out = np.where(x < 0, -out, out)
    out = np.where(np.isinf(x), 0.0 if order == 0 else np.copysign(0.0, x), out)
    return np.where(np.isnan(x), np.nan, out)


@_compiled
def i0e(x: np.ndarray) -> np.ndarray:
    """``exp(-|x|) i0(x)``, the exponentially scaled i0 (finite for every x; 0 at +-inf).

    >>> round(float(i0e(np.array([1.0]))[0]), 12)
    0.465759607594
    """
    return _bessel_i_scaled(x, 0)


@_compiled
def i1e(x: np.ndarray) -> np.ndarray:
    """``exp(-|x|) i1(x)``, the exponentially scaled i1 (odd; +-0 at +-inf).

    >>> round(float(i1e(np.array([1.0]))[0]), 12)
    0.20791041535
    """
    return _bessel_i_scaled(x, 1)
