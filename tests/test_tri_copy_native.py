"""tril / triu (and tril_ / triu_) past the cached-mask size by the compiled row kernel
(``_specialkernel.tri_copy``): row-major inputs copied row by row, other layouts copied into the
row-major result by the blocked copy then zeroed in place; bit for bit PyTorch's and the NumPy
path's (the kernel disabled): every element size, batches, wide and tall matrices, diagonals
inside, at and beyond the matrix (to +-2**62), NaN payloads, -0.0, inf kept as they are.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided as st
from strided.kernels import native

pytestmark = pytest.mark.skipif(native.special() is None, reason="the compiled kernel is not built")

_SHAPES = [(130, 129), (129, 300), (300, 129), (3, 70, 250), (1, 20000), (20000, 1), (2, 200, 200)]


def _data(shape: tuple[int, ...], dtype: str, seed: int) -> np.ndarray:
    r = np.random.default_rng(seed)
    if dtype == "bool":
        return r.random(shape) > 0.5
    a = (r.standard_normal(shape) * 3).astype(dtype)
    if a.dtype.kind == "f":
        a.reshape(-1)[:5] = [np.nan, -0.0, np.inf, -np.inf, -np.nan]
    return a


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool", "float16", "complex64", "int8"])
def test_tril_triu_bits(dtype: str) -> None:
    for shape in _SHAPES:
        a = _data(shape, dtype, len(shape))
        for transposed in (False, True):
            x, t = st.tensor(a), torch.from_numpy(a)
            if transposed:
                x, t = x.transpose(-1, -2), t.transpose(-1, -2)
            for k in (0, 1, -1, 5, -7, 10**6, -(10**6), 2**62):
                for lower in (True, False):
                    got = (st.tril if lower else st.triu)(x, k)
                    want = (torch.tril if lower else torch.triu)(t, k)
                    with native.disabled():
                        slow = (st.tril if lower else st.triu)(x, k)
                    assert got.stride() == tuple(want.stride()) == slow.stride()
                    assert got.numpy().tobytes() == want.numpy().tobytes() == slow.numpy().tobytes()


@pytest.mark.parametrize("lower", [True, False])
def test_in_place_bits(lower: bool) -> None:
    for shape in _SHAPES:
        a = _data(shape, "float32", 3)
        for k in (0, -7, 3):
            x, t = st.tensor(a), torch.from_numpy(a.copy())
            with native.disabled():
                y = st.tensor(a)
                (y.tril_ if lower else y.triu_)(k)
            assert (x.tril_ if lower else x.triu_)(k) is x
            (t.tril_ if lower else t.triu_)(k)
            assert x.numpy().tobytes() == t.numpy().tobytes() == y.numpy().tobytes()


def test_kernel_refusals() -> None:
    k = native.special()
    a = np.arange(24.0).reshape(4, 6)
    out = np.zeros_like(a)
    assert k.tri_copy(a, out, 4, 5, 0, True) is False  # (not whole matrices)
    assert k.tri_copy(a, out, 4, 6, 7, True) is False  # (a diagonal the caller did not clamp)
    assert k.tri_copy(a.astype(np.float32), out, 4, 6, 0, True) is False  # (element sizes differ)
    assert k.tri_copy(a.reshape(-1)[:12], a.reshape(-1)[6:18], 2, 6, 0, True) is False  # (a partial overlap)
    assert not out.any()
    assert k.tri_copy(a, out, 4, 6, 0, False) is True
    assert out.tolist() == np.triu(a).tolist()
    with pytest.raises(TypeError, match="6 arguments"):
        k.tri_copy(a, out)
