"""mean's division by the count inside the compiled sum's call (``cascade(..., divisor)``,
kernels/_sumkernel.c): each result is the cascade sum divided by the count as a float of the dtype,
PyTorch's bits (its div_) and those of NumPy's divide of the same sums by the Python int, which the
call replaced: float32 and float64, every dim and all, keepdim, counts that a float32 rounds
(2^24 + 1 elements are not summed here: the count 16777217 is checked on the kernel directly)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided as st
from strided.kernels.native import sums

pytestmark = pytest.mark.skipif(sums() is None, reason="the sum kernel is not built")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_means_are_torchs_and_the_sums_divided(dtype, torch_threads_as_assumed) -> None:
    r = np.random.default_rng(21)
    for shape in ((3, 4), (7, 13), (1024, 1024), (3, 5, 700)):
        a = (r.standard_normal(shape) * 100).astype(dtype)
        s, t = st.tensor(a), torch.from_numpy(a)
        # (over every element of more than PyTorch's grain, 32768, its order depends on its thread
        # count: the sum's, a known difference of the full sum, not the division's)
        for dim in [*([None] if a.size <= 32768 else []), *range(len(shape)), -1]:
            for keepdim in (False, True):
                got = s.mean() if dim is None else s.mean(dim, keepdim)
                want = t.mean() if dim is None else t.mean(dim, keepdim)
                assert got.shape == tuple(want.shape) and got.numpy().tobytes() == want.numpy().tobytes(), (shape, dim)
                total = s.sum() if dim is None else s.sum(dim, keepdim)
                count = a.size // max(total.numel(), 1)
                assert got.numpy().tobytes() == np.divide(total.numpy(), count).astype(dtype).tobytes()
        _ = s.T.mean(0), s.T.mean()  # (transposes: the same call with their plans)
        assert s.T.mean(0).numpy().tobytes() == t.T.mean(0).numpy().tobytes()


def test_the_divisor_is_a_float_of_the_dtype() -> None:
    """The count as the kernel divides by it: rounded to the dtype once (2^24 + 1 -> 2^24 in
    float32), as NumPy converts the Python int; refused for complex kinds and non-contiguous out."""
    k = sums()
    x = np.full(4, 3.0, np.float32)
    for dt, kind in ((np.float32, 0), (np.float64, 1)):
        y = x.astype(dt)
        out = np.zeros(1, dt)
        k.cascade(y, kind, (4,), (y.itemsize,), (0,), out, (1 << 24) + 1)
        assert out.tobytes() == np.divide(np.array([12.0], dt), (1 << 24) + 1).tobytes()
    with pytest.raises(ValueError):
        k.cascade(x.astype(np.complex64), 2, (4,), (8,), (0,), np.zeros(1, np.complex64), 4)
    with pytest.raises(ValueError):
        k.cascade(x, 0, (4,), (4,), (0,), np.zeros(1, np.float32), -1)
    with pytest.raises(ValueError):
        k.cascade(np.ones((4, 4), np.float32), 0, (4, 4), (4, 16), (0, 8), np.zeros(8, np.float32)[::2], 4)
