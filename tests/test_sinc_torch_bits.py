"""sinc gives PyTorch's bits: its scalar kernel with the C library's sine (unary_exact code 5)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided as st
from strided.kernels import native


def _inputs(dtype: np.dtype) -> np.ndarray:
    rng = np.random.default_rng(5)
    special = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30, -1e-30, 1.0, 2.0, 0.5, -3.0, 1e-45, 65504.0]
    return np.concatenate([rng.standard_normal(3000) * 3, rng.standard_normal(500) * 1e4, special]).astype(dtype)


def _bits_equal(a: np.ndarray, b: np.ndarray) -> None:
    both_nan = np.isnan(a) & np.isnan(b)
    a, b = np.where(both_nan, 0, a), np.where(both_nan, 0, b)
    assert a.tobytes() == b.tobytes(), np.flatnonzero(a.view(np.uint8) != b.view(np.uint8))[:10]


@pytest.mark.skipif(native.special() is None, reason="the special kernel is not built")
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("layout", ["flat", "rowmajor", "transposed", "stepped", "0-d"])
def test_sinc_is_torchs_to_the_bit(dtype, layout):
    x = _inputs(np.float64 if dtype == "bfloat16" else np.dtype(dtype))
    t = torch.from_numpy(x.copy()).to(getattr(torch, dtype))
    s = st.tensor(x).to(getattr(st, dtype))
    if layout == "rowmajor":
        t, s = t[:3500].reshape(50, 70), s[:3500].reshape(50, 70)
    elif layout == "transposed":
        t, s = t[:3500].reshape(50, 70).t(), s[:3500].reshape(50, 70).t()
    elif layout == "stepped":
        t, s = t[::3], s[::3]
    elif layout == "0-d":
        t, s = t[7], s[7]
    want = torch.sinc(t)
    for got in (st.sinc(s), s.sinc(), s.clone().sinc_()):
        assert got.dtype.name == dtype and got.shape == tuple(want.shape)
        _bits_equal(got.to(st.float64)._np(), want.to(torch.float64).numpy())


@pytest.mark.skipif(native.special() is None, reason="the special kernel is not built")
def test_the_compiled_loop_and_the_numpy_formula_agree_but_for_the_sine():
    """Without the kernel (native off) sinc is NumPy's formula: the same values for float64, and
    for float32 within two ulps of the C library's."""
    x = st.tensor(_inputs(np.float32))
    with native.disabled():
        slow = st.sinc(x)._np()
    fast = st.sinc(x)._np()
    np.testing.assert_array_max_ulp(slow[np.isfinite(slow)], fast[np.isfinite(slow)], maxulp=2)
    x64 = st.tensor(_inputs(np.float64))
    with native.disabled():
        slow64 = st.sinc(x64)._np()
    _bits_equal(slow64, st.sinc(x64)._np())
