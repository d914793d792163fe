"""F.leaky_relu's vectorized loop (unary_exact code 2: both sides computed per lane, one kept)
and its column-major route (a transposed input passed transposed): the bits of the NumPy path
(``native.disabled()``) and of PyTorch, with dtype, shape and strides, over mixed signs, every
length around the vector widths, special values at every lane position, row- and column-major."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import strided as st
import strided.nn.functional as F
from strided.kernels import native

pytestmark = pytest.mark.skipif(native.special() is None, reason="the compiled kernels are not built")
BITS = {np.dtype(np.float32): np.uint32, np.dtype(np.float64): np.uint64}


def _check(x: np.ndarray, k: float) -> None:
    got = F.leaky_relu(st.from_numpy(x), k)
    with native.disabled():
        slow = F.leaky_relu(st.from_numpy(x), k)
    ref = TF.leaky_relu(torch.from_numpy(x), k)
    for r in (slow, ref):
        assert got.shape == tuple(r.shape) and got.stride() == r.stride()
        a, b = np.ascontiguousarray(got.numpy()), np.ascontiguousarray(r.numpy())
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a.view(BITS[a.dtype]), b.view(BITS[b.dtype]))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("k", [0.01, -0.5, 2.0, 0.0])
def test_mixed_signs_every_length_both_orders(dtype: type, k: float) -> None:
    rng = np.random.default_rng(8)
    special = np.array([0.0, -0.0, np.nan, -np.inf, np.inf, 1e-40, -1e-40, -3e38], dtype)
    for n in (*range(1, 40), 63, 64, 65, 127, 128, 129):
        x = rng.uniform(-2, 2, 2 * n).astype(dtype)
        x[rng.integers(0, 2 * n, min(n, 8))] = special[: min(n, 8)]
        _check(x, k)  # (row-major: the fast path)
        _check(x.reshape(2, n).T, k)  # (column-major: the general path, passed transposed)
        _check(x.reshape(2, n)[:, ::2], k)  # (neither: NumPy's where)


def test_signalling_nan_in_column_major() -> None:
    x = np.array([0x7F800001, 0xFF800002, 0x3F800000, 0xBF800000], np.uint32).view(np.float32).reshape(2, 2).T
    _check(x, 0.01)
