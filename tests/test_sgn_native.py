"""Complex sgn's compiled pass (``complex_sgn``: |z| as strided's complex abs, each part divided by
it, 0 at 0) against the NumPy steps it replaces (the kernels off), over magnitudes from the
subnormals to overflow, zeros of both signs, infinities and NaN, across the 256-element blocks;
and torch's values where both libraries agree on the formula (finite, normal parts)."""

import numpy as np
import pytest
import torch

import strided as st
from strided.kernels import native


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("n", [1, 12, 255, 256, 257, 700])
def test_sgn_bits(dtype, n):
    rng = np.random.default_rng(n)
    re = rng.standard_normal(n) * np.exp(rng.uniform(-90, 90, n))
    im = rng.standard_normal(n) * np.exp(rng.uniform(-90, 90, n))
    k = min(n, 40)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, 1e-320, 3.0])
    re[:k], im[:k] = rng.choice(specials, k), rng.choice(specials, k)
    with np.errstate(all="ignore"):
        z = (re + 1j * im).astype(dtype)
    got = st.sgn(st.tensor(z))
    with native.disabled():
        slow = st.sgn(st.tensor(z))
    assert got.numpy().tobytes() == slow.numpy().tobytes()


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_sgn_torch_values(dtype):
    rng = np.random.default_rng(1)
    z = (rng.standard_normal((16, 16)) + 1j * rng.standard_normal((16, 16))).astype(dtype)
    z[0, :3] = 0
    got = st.sgn(st.tensor(z)).numpy()
    want = torch.sgn(torch.tensor(z)).numpy()
    np.testing.assert_allclose(got, want, rtol=2e-7 if dtype == np.complex64 else 1e-15, atol=0)
    assert (got[0, :3] == 0).all()
