"""The compiled ``unary_exact`` over long runs (its vector loops: nan_to_num's selections, rsqrt's
SSE lanes, logit's quotient, sign) and over column-major arrays (a transposed or fully permuted tensor: the kernel
walks both transposed, as one C-contiguous run): the bits of the NumPy kernels
(``native.disabled()``) and PyTorch's shape and strides, special values sprinkled through."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch

import strided as st
from oracle_helpers import case
from strided.kernels import native

pytestmark = pytest.mark.skipif(native.special() is None, reason="the compiled kernels are not built")
CALLS = {
    "nan_to_num": (lambda m, t: m.nan_to_num(t), lambda m, t: m.nan_to_num(t)),
    "nan_to_num args": (lambda m, t: m.nan_to_num(t, nan=-0.0, posinf=7.5, neginf=-2.0),
                        lambda m, t: m.nan_to_num(t, nan=-0.0, posinf=7.5, neginf=-2.0)),
    "sign": (lambda m, t: m.sign(t), lambda m, t: m.sign(t)),
    "rsqrt": (lambda m, t: m.rsqrt(t), lambda m, t: m.rsqrt(t)),
    "logit": (lambda m, t: m.logit(t), lambda m, t: m.logit(t)),  # (code 4, then NumPy's log)
}
VIEWS = {
    "row-major": lambda t: t,
    "transposed": lambda t: t.transpose(0, 2),  # (column-major: reversed dims)
    "permuted": lambda t: t.permute(2, 1, 0),
    "half permuted": lambda t: t.permute(1, 0, 2),  # (neither order: NumPy's)
}


def _base(dtype: str) -> np.ndarray:
    rng = np.random.default_rng(12)
    x = rng.uniform(-3, 3, (7, 11, 37)).astype(dtype)
    flat = x.reshape(-1)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1e-45, 3e38], dtype)
    flat[rng.integers(0, flat.size, 300)] = np.resize(specials, 300)
    return x


def _bits(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    return a.view(np.uint32 if a.dtype == np.float32 else np.uint64)


@pytest.mark.parametrize("name", list(CALLS))
def test_long_runs_and_column_major(name):
    for view, dtype in itertools.product(
            list(VIEWS),
            ["float32", "float64"]):
        with case(view=view, dtype=dtype):
            _long_runs_and_column_major(dtype, name, view)


def _long_runs_and_column_major(dtype: str, name: str, view: str) -> None:
    x = _base(dtype)
    if name == "logit":  # (its domain: [0, 1), the specials' NaNs and infinities kept or made NaN)
        with np.errstate(invalid="ignore"):
            x = np.abs(x) % x.dtype.type(1)
    call, tcall = CALLS[name]
    s = VIEWS[view](st.from_numpy(x))
    got = call(st, s)
    with native.disabled():
        ref = call(st, s)
    want = tcall(torch, VIEWS[view](torch.from_numpy(x)))
    assert got.shape == tuple(want.shape) and got.stride() == want.stride() == ref.stride()
    np.testing.assert_array_equal(_bits(got.numpy()), _bits(ref.numpy()))
    nan = np.isnan(want.numpy())
    np.testing.assert_array_equal(np.isnan(got.numpy()), nan)
    if name == "logit":  # (NumPy's log against PyTorch's: within float rounding)
        np.testing.assert_allclose(got.numpy()[~nan], want.numpy()[~nan], rtol=2e-6, atol=1e-7)
    else:
        np.testing.assert_array_equal(got.numpy()[~nan], want.numpy()[~nan])
