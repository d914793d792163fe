"""The NumPy fallback of the float64 fused multiply-add (:func:`strided.kernels.fused.fma` with
the compiled kernels off: ``STRIDED_NATIVE=0`` or no compiler) against the compiled ``fma64``
(C99's ``fma``, the hardware's one rounding, as PyTorch's ``vec::fmadd``) and torch's
``addcmul``: bit for bit at float64's ends, where Dekker's split overflows, the products
overflow or underflow before the add, the error terms turn subnormal, and on the
double-rounding ties round-to-odd exists for. NaN results compare as NaN (their sign bit
follows the operation order; not compared).

Without the compiled kernel there is nothing to compare with, so the module is skipped.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from strided.kernels import native
from strided.kernels.fused import fma

pytestmark = pytest.mark.skipif(native.special() is None, reason="the compiled fma64 is not built")


def _compiled(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    out = np.empty_like(c)
    native.special().fma64(a, b, c, out)
    return out


def _fallback(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"), native.disabled():
        return fma(a, b, c)


def _same(got: np.ndarray, ref: np.ndarray) -> None:
    got, ref = np.asarray(got), np.asarray(ref)
    assert got.dtype == ref.dtype == np.float64 and got.shape == ref.shape
    nan = np.isnan(ref)
    assert np.array_equal(np.isnan(got), nan)
    differ = np.flatnonzero((got.view(np.int64) != ref.view(np.int64)) & ~nan)
    assert differ.size == 0, [(float(got.flat[i]), float(ref.flat[i])) for i in differ[:5]]


def _extreme() -> st.SearchStrategy[float]:
    """float64s weighted towards the ends: subnormals, near the smallest normal, above 2**996
    (Dekker's split overflows), mantissas with few or many bits, signed zeros, inf, NaN."""
    mantissa = st.floats(1.0, 2.0, exclude_max=True) | st.sampled_from([1.0, 1.5, 1.0 + 2.0**-52, 2.0 - 2.0**-52])
    exponent = st.integers(-1074, 1023)
    scaled = st.builds(lambda m, e, s: s * float(np.ldexp(m, e)), mantissa, exponent, st.sampled_from([1.0, -1.0]))
    return scaled | st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from(
        [0.0, -0.0, 5e-324, -5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 2.0**996, 2.0**-969])


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(_extreme(), _extreme(), _extreme()), min_size=1, max_size=40))
def test_the_fallback_equals_the_compiled_fma_at_the_extremes(triples: list[tuple[float, float, float]]) -> None:
    a, b, c = (np.array(v, np.float64) for v in zip(*triples))
    _same(_fallback(a, b, c), _compiled(a, b, c))


@settings(max_examples=200, deadline=None)
@given(_extreme(), _extreme(), _extreme())
def test_the_fallback_on_0d_operands_equals_torch(a: float, b: float, c: float) -> None:
    ref = torch.addcmul(torch.tensor(c, dtype=torch.float64), torch.tensor(a, dtype=torch.float64),
                        torch.tensor(b, dtype=torch.float64)).numpy()
    _same(_fallback(np.float64(a), np.float64(b), np.float64(c)), ref)


def test_products_overflowing_or_underflowing_before_the_add() -> None:
    big, tiny = 2.0**600, 2.0**-600
    a = np.array([big, big, -big, tiny, tiny, 1e-200, 5e-324, 2.0**-537, 1.5, 3.0 * 2.0**1000])
    b = np.array([big, big, big, tiny, -tiny, 1e-200, 0.5, 2.0**-537, 3.5e38, 2.0**23])
    c = np.array([-np.inf, -1.7e308, 1.7e308, 5e-324, 5e-324, -1e-310, 0.0, 2.0**-1074, 1.5, -1.7e308])
    ref = _compiled(a, b, c)
    _same(_fallback(a, b, c), ref)
    # (ties: the product's error term exactly half an ulp of the rounded product, then c decides;
    # t + e rounded to nearest would break it the wrong way)
    assert _fallback(np.float64(1.5), np.float64(3.5e38), np.float64(1.5)) == np.nextafter(5.25e38, np.inf)
    # exact zeros and results that underflow to zero keep IEEE's sign
    z = _fallback(np.array([2.2250738585072014e-308, 5e-324, 1.0]), np.array([-5e-324, 0.7, -3.0]),
                  np.array([0.0, -5e-324, 3.0]))
    assert np.signbit(z).tolist() == [True, True, False]


def test_normal_operands_take_no_exact_rework() -> None:
    """The error-free steps alone on ordinary magnitudes (no per-element redo): the same bits."""
    rng = np.random.default_rng(11)
    a, b, c = (rng.standard_normal(5000) * 10.0 ** rng.integers(-100, 100, 5000) for _ in range(3))
    _same(_fallback(a, b, c), _compiled(a, b, c))


@pytest.mark.parametrize("layout", ["column-major", "transposed-stepped", "broadcast"])
def test_the_exact_rework_lands_whatever_the_operands_layout(layout: str) -> None:
    """The elements recomputed one by one are written into the result whatever the operands'
    memory order: a column-major product once lost them (its copy was written, not the result),
    leaving NaN where Dekker's split overflowed (linalg.cross of 1.3e300 and 1, its gathered halves)."""
    a = np.zeros((3, 4))
    a[1, 2], a[2, 3] = 1.3393857490036326e300, -2.0**1000
    b = np.ones((3, 4))
    c = np.full((3, 4), -0.0)
    if layout == "column-major":
        a, b, c = (np.asfortranarray(x) for x in (a, b, c))
    elif layout == "transposed-stepped":
        a, b = (np.ascontiguousarray(np.repeat(x.T, 2, axis=0))[::2].T for x in (a, b))
    else:
        b = np.ones((3, 1))
    assert not np.isnan(_fallback(a, b, c)).any()
    _same(_fallback(a, b, c), _compiled(*(np.ascontiguousarray(np.broadcast_to(x, (3, 4))) for x in (a, b, c))))


def test_products_near_the_top_of_float64_are_exact() -> None:
    """Where a * b is finite but near float64's largest value, a split half's product can
    overflow: its inf, rounded "to odd", became a finite wrong result (2**28 * 6.7e299 minus that
    product gave 1.8e308 for 0; found by fix14). Those elements are recomputed exactly."""
    from fractions import Fraction

    from strided.kernels import fused, native

    rng = np.random.default_rng(17)
    a = 2.0 ** rng.integers(400, 600, 3000) * rng.uniform(1, 2, 3000)
    b = 2.0 ** rng.integers(390, 424, 3000) * rng.uniform(1, 2, 3000) * rng.choice([-1, 1], 3000)
    with np.errstate(all="ignore"):
        c = -(a * b) * rng.choice([1.0, 0.5, 1 - 2.0**-50], 3000)
    a[0], b[0] = 268435456.0, 6.69692879491417e+299
    c[0] = -(a[0] * b[0])
    with native.disabled(), np.errstate(all="ignore"):
        got = fused.fma(a, b, c)
    keep = np.isfinite(a * b) & np.isfinite(got)
    for x, y, z, r in zip(a[keep][:400], b[keep][:400], c[keep][:400], got[keep][:400]):
        exact = Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))
        want = float(exact) if exact else 0.0
        assert r == want, (x, y, z, r, want)
    assert got[0] == 0.0
