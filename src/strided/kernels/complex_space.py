"""PyTorch 2.13's CPU ``logspace`` for complex dtypes, with its bits.

PyTorch's ``logspace_out`` (aten/src/ATen/native/RangeFactories.cpp) has its own loop for complex
dtypes, in ``c10::complex<T>`` arithmetic (T: float for complex64, double for complex128)::

    base_c = complex<T>(base)                           (the double base rounded to T)
    step   = (end - start) / complex<T>(steps - 1)      (c10's division: Smith's, as NumPy's)
    i <  steps / 2:  pow(base_c, start + step * complex<T>(i))
    i >= steps / 2:  pow(base_c, end - step * complex<T>(steps - i - 1))

each product ``(a + bi)(c + di) = (ac - bd) + (ad + bc)i`` with every operation rounded (the file
is compiled for baseline x86-64: no FMA to contract into), and ``pow`` of two complex numbers is
libstdc++'s ``__builtin_cpow[f]``: the C library's ``cpow[f]`` (glibc's ``cexp(y * clog(x))``).
The exponents below are those operations, in that order, in NumPy's T arithmetic (IEEE, one
rounding each); the powers come from the compiled ``complex_pow`` (the same glibc function, so the
same bits), else NumPy's ``exp(y * log(x))`` (glibc's formula, without its C99 NaN recovery of the
product: a NaN or inf part may then differ).

``steps == 1`` is another path: ``fill_(std::pow(base, start.to<complex<double>>()))``, libstdc++'s
``pow(double, complex<double>)``: ``polar(pow(base, re), im * log(base))`` for ``base > 0``, else
``cpow(complex(base), start)``; in double, then rounded to the dtype by ``fill_``.

# Note: for complex64 PyTorch counts ``i`` as a float incremented by one from each parallel chunk's
# start, which stops growing at 2**24; here ``i`` is rounded from the exact count. The two differ
# only past 2**25 steps (a 256 MB result), where PyTorch's own values depend on its thread count.
"""

from __future__ import annotations

import math

import numpy as np

from . import native

_NAN = float("nan")


def _exponents(start: np.complexfloating, end: np.complexfloating, steps: int, part: type) -> np.ndarray:
    """The ``steps`` (>= 2) complex exponents of PyTorch's complex logspace loop (see the module
    docstring), each part computed in ``part`` (np.float32 or np.float64) as c10::complex does."""
    zero, n1 = part(0), part(steps - 1)
    sr, si, er, ei = part(start.real), part(start.imag), part(end.real), part(end.imag)
    a, b = er - sr, ei - si
    # c10's (a + bi) / (c + di) with c = steps - 1 > 0 = d: rat = d / c, scl = 1 / (c + d * rat)
    rat = zero / n1
    scl = part(1) / (n1 + zero * rat)
    step_re, step_im = (a + b * rat) * scl, (b - a * rat) * scl
    # step * (k + 0i) = (step_re * k - step_im * 0) + (step_re * 0 + step_im * k)i: the products by
    # the zero part are one value for every k (0 with its sign, or NaN where a part is not finite)
    re_by_zero, im_by_zero = step_re * zero, step_im * zero
    half = steps // 2
    counts = np.empty(steps, part)
    counts[:half] = np.arange(half)  # (PyTorch's i, from 0 up)
    counts[half:] = np.arange(steps - half - 1, -1, -1)  # (its steps - i - 1, down to 0)
    out = np.empty(steps, np.result_type(part, np.complex64))
    re, im = out.real, out.imag
    np.multiply(step_re, counts, out=re)
    np.subtract(re, im_by_zero, out=re)
    np.multiply(step_im, counts, out=im)
    np.add(re_by_zero, im, out=im)
    np.add(sr, re[:half], out=re[:half])
    np.add(si, im[:half], out=im[:half])
    np.subtract(er, re[half:], out=re[half:])
    np.subtract(ei, im[half:], out=im[half:])
    return out


def complex_logspace(start: np.complexfloating, end: np.complexfloating, steps: int, base: float,
                     dtype: np.dtype) -> np.ndarray:
    """PyTorch's complex logspace of ``steps`` (>= 2) elements of ``dtype`` (complex64 or
    complex128) from the bounds ``start`` and ``end`` (already elements of ``dtype``)."""
    part = np.float32 if dtype == np.complex64 else np.float64
    with np.errstate(all="ignore"):
        exps = _exponents(start, end, steps, part)
        base_c = dtype.type(complex(part(base), 0.0))  # (static_cast<complex<T>>(base): T(base) + 0i)
        out = np.empty(steps, dtype)
        k = native.special()
        if k is not None and k.complex_pow(np.full(steps, base_c), exps, out):
            return out
        return np.exp(exps * np.log(base_c))


def _real_pow(base: float, exponent: float) -> float:
    """The C library's ``pow(base, exponent)`` for ``base > 0`` (math.pow calls it; it raises
    where the C function overflows, to +inf here)."""
    try:
        return math.pow(base, exponent)
    except OverflowError:
        return math.inf


def _polar(rho: float, theta: float) -> complex:
    """libstdc++'s ``std::polar(rho, theta)``: ``rho * cos(theta) + rho * sin(theta) i`` with the
    C library's cos and sin (math's; their NaN for an infinite angle, which math refuses)."""
    if math.isfinite(theta):
        return complex(rho * math.cos(theta), rho * math.sin(theta))
    return complex(rho * _NAN, rho * _NAN)


def logspace_one(start: complex, base: float) -> complex:
    """``std::pow(base, std::complex<double>(start))`` as libstdc++ computes it (PyTorch's complex
    ``logspace`` of one step, before fill_ rounds it): ``polar(pow(base, re), im * log(base))``
    for ``base > 0``, else the C library's ``cpow(base + 0i, start)``."""
    if base > 0:
        return _polar(_real_pow(base, start.real), start.imag * math.log(base))
    x = np.array([complex(base, 0.0)])
    y = np.array([start], np.complex128)
    out = np.empty(1, np.complex128)
    k = native.special()
    with np.errstate(all="ignore"):
        if k is None or not k.complex_pow(x, y, out):
            out = np.exp(y * np.log(x))
    return complex(out[0])
