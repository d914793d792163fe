"""prod along the dim innermost in memory (``_specialkernel.prod_rows`` through
``strided.kernels.reduce.line_products``): float32 / float64, row-major and permuted, row counts
that are not a multiple of the kernel's 8 lanes, NaN (either sign, signaling), inf, zeros of both
signs and underflow to subnormals, bit for bit against the NumPy path (the kernel disabled, and
the compiled path turned off); against PyTorch within its tolerance (its order is its own).
"""

from __future__ import annotations

import struct
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from strided.kernels import native
from strided.kernels.reduce import line_products
from strided.ops.reductions import sums

torch.set_num_threads(1)
pytestmark = pytest.mark.skipif(native.special() is None, reason="the compiled kernel is not built")


def _data(shape: tuple[int, ...], dtype: Any, seed: int) -> np.ndarray:
    r = np.random.default_rng(seed)
    a = r.uniform(0.1, 0.9, shape).astype(dtype)  # (long rows underflow through the subnormals)
    a *= np.where(r.random(shape) < 0.3, -1, 1).astype(dtype)
    if a.size > 40:
        flat = a.reshape(-1)
        flat[5], flat[17], flat[23] = -0.0, np.inf, -np.nan
        flat[31] = struct.unpack("<f", struct.pack("<I", 0x7F800001))[0] if dtype == np.float32 else \
            struct.unpack("<d", struct.pack("<Q", 0x7FF0000000000001))[0]  # (a signaling NaN)
    return a


def _same(a: Any, b: Any) -> None:
    assert (a.shape, a.stride(), a.dtype) == (b.shape, b.stride(), b.dtype)
    assert a.numpy().tobytes() == b.numpy().tobytes()


def _check(a: np.ndarray, perm: tuple[int, ...], monkeypatch: pytest.MonkeyPatch) -> None:
    x = st.tensor(a).permute(*perm)
    t = torch.from_numpy(a).permute(*perm)
    for dim in range(a.ndim):
        for keepdim in (False, True):
            got = x.prod(dim, keepdim=keepdim)
            with native.disabled():
                _same(got, x.prod(dim, keepdim=keepdim))
            with monkeypatch.context() as m:
                m.setattr(sums, "_compiled_products", lambda *a: None)
                _same(got, x.prod(dim, keepdim=keepdim))
            tt = t.prod(dim, keepdim=keepdim)
            assert got.shape == tuple(tt.shape)
            np.testing.assert_allclose(got.numpy(), tt.numpy(), rtol=1e-4, atol=1e-30, equal_nan=True)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_layouts(dtype: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    with np.errstate(all="ignore"):
        for shape, perm in [((1024, 1024), (0, 1)), ((1024, 1024), (1, 0)), ((13, 300), (0, 1)),
                            ((3, 5, 70), (2, 0, 1)), ((3, 5, 70), (0, 2, 1)), ((9, 2), (1, 0)), ((7,), (0,))]:
            _check(_data(shape, dtype, 2), perm, monkeypatch)


@settings(max_examples=30, deadline=None)
@given(shape=hs.lists(hs.integers(1, 20), min_size=1, max_size=3), seed=hs.integers(0, 2**16),
       f64=hs.booleans(), data=hs.data())
def test_any_permutation_matches_the_numpy_path(shape: list[int], seed: int, f64: bool, data: Any) -> None:
    perm = tuple(data.draw(hs.permutations(range(len(shape)))))
    with pytest.MonkeyPatch.context() as m, np.errstate(all="ignore"):
        _check(_data(tuple(shape), np.float64 if f64 else np.float32, seed), perm, m)


def test_declines_and_kernel_arguments() -> None:
    a = np.arange(1.0, 13.0).reshape(3, 4)
    for x, axis in ((a, 0), (a[:, ::2], 1), (np.broadcast_to(a[:1], (3, 4)), 1), (a[:, :1], 1),
                    (a.astype(np.int64), 1), (a[:0], 1)):
        assert line_products(x, axis) is None
    assert line_products(a.T, 0).tolist() == [[24.0, 1680.0, 11880.0]]
    k = native.special()
    with pytest.raises(ValueError, match="one per row"):
        k.prod_rows(a, np.empty(4), 4)
    with pytest.raises(TypeError, match="3 arguments"):
        k.prod_rows(a, a)
    flat = a.reshape(-1).copy()
    assert k.prod_rows(flat, flat[:3], 4) is False  # (an overlap: nothing written)
    assert flat.tolist() == list(range(1, 13))
