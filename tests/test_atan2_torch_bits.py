"""atan2 against torch: float32 as atan2 in float64 rounded once, float64 as the C library's
atan2 (kernels.elementwise.arctan2). PyTorch's CPU kernel is Sleef's atan2_u10 over a contiguous
run's whole 32-element steps and the C library's atan2f/atan2 over the rest; NumPy's arctan2
(what strided computed before) matched ~62% (float32) / ~94% (float64) of elements.
(# Note: Sleef's own roundings are not followed: a few % of elements stay 1 ulp off.)"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided as st
from strided.kernels import native

_LIBM = hasattr(native.special(), "complex_angle")  # (float64: the compiled C library loop)


@pytest.mark.parametrize("dt,floor", [("float32", 0.95), ("float64", 0.97)])
def test_atan2_mostly_bit_equal_to_torch(dt, floor):
    if dt == "float64" and not _LIBM:
        floor = 0.9  # (NumPy's arctan2 without the compiled kernel)
    rng = np.random.default_rng(1)
    total = equal = 0
    for n in list(range(1, 200, 3)) + [1000, 4097]:
        y = (rng.standard_normal(n) * rng.choice([1, 100, 0.01])).astype(dt)
        x = rng.standard_normal(n).astype(dt)
        want = torch.atan2(torch.tensor(y), torch.tensor(x)).numpy()
        got = st.atan2(st.tensor(y), st.tensor(x)).numpy()
        np.testing.assert_allclose(got, want, rtol=2e-7 if dt == "float32" else 1e-15, atol=0)
        total += n
        equal += int((got == want).sum())
    assert equal / total >= floor, equal / total


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_atan2_scalar_loop_elements_are_exact(dt):
    """PyTorch's scalar loop (short runs, a run's last n % 32 elements, strided rows) is the C
    library's atan2f/atan2: float32's rounds once from float64 as the C library does here."""
    rng = np.random.default_rng(2)
    y = rng.standard_normal((40, 40)).astype(dt)
    x = rng.standard_normal((40, 40)).astype(dt)
    # (one operand transposed: no layout makes both rows contiguous, PyTorch's scalar loop throughout)
    want = torch.atan2(torch.tensor(y).mT, torch.tensor(x)).numpy()
    got = st.atan2(st.tensor(y).mT, st.tensor(x)).numpy()
    if dt == "float64" and _LIBM:
        np.testing.assert_array_equal(got, want)
    elif dt == "float64":
        np.testing.assert_allclose(got, want, rtol=1e-15, atol=0)
    else:
        assert (got == want).mean() >= 0.75  # (glibc's atan2f is not always the correctly rounded value)


def test_atan2_special_values_match_torch():
    vals = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 1e-40, -3e38], np.float32)
    y, x = np.meshgrid(vals, vals)
    for dt in (np.float32, np.float64):
        want = torch.atan2(torch.tensor(y.astype(dt)), torch.tensor(x.astype(dt))).numpy()
        got = st.atan2(st.tensor(y.astype(dt)), st.tensor(x.astype(dt))).numpy()
        np.testing.assert_array_equal(np.signbit(got[~np.isnan(want)]), np.signbit(want[~np.isnan(want)]))
        np.testing.assert_allclose(got, want, rtol=2e-7, atol=0)
