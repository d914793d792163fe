"""kthvalue returns PyTorch's place of a tied k-th value at every size: the compiled quickselect
(``torch_kthvalue``) on every row of a float32/float64/int32/int64 tensor, where the Python steps
stopped at 2**18 tied elements (then NumPy's argpartition chose). Values, indices and strides
against PyTorch on large tied tensors, NaN and -0.0, along any dim, keepdim, views."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided as st
from strided.kernels import native

pytestmark = pytest.mark.skipif(native.special() is None, reason="the special kernel is not built")


def _tied(rng, shape, dtype):
    a = rng.integers(0, 4, shape).astype(dtype)
    if np.dtype(dtype).kind == "f":
        a[rng.random(shape) < 0.05] = np.nan
        a[rng.random(shape) < 0.2] = -0.0
    return a


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_large_tied_tensors_match_pytorch(dtype):
    rng = np.random.default_rng(2)
    a = _tied(rng, (300, 1000), dtype)  # (300,000 tied elements: past the old 2**18)
    for dim in (-1, 0):
        for k in (1, 150, 299):
            for keepdim in (False, True):
                v, i = st.kthvalue(st.from_numpy(a), k, dim, keepdim)
                tv, ti = torch.kthvalue(torch.from_numpy(a), k, dim, keepdim)
                assert np.array_equal(i.numpy(), ti.numpy())
                assert v.numpy().tobytes() == tv.numpy().tobytes()
                assert v.shape == tuple(tv.shape) and v.stride() == tv.stride() and i.stride() == ti.stride()


def test_views_and_small_tensors_match_pytorch():
    rng = np.random.default_rng(3)
    for trial in range(60):
        shape = tuple(int(v) for v in rng.integers(1, 12, rng.integers(1, 4)))
        a = _tied(rng, shape, [np.float32, np.int64][trial % 2])
        x, t = st.from_numpy(a), torch.from_numpy(a)
        if len(shape) > 1:
            x, t = x.transpose(0, -1), t.transpose(0, -1)
        dim = int(rng.integers(-x.ndim, x.ndim))
        k = int(rng.integers(1, x.shape[dim] + 1))
        v, i = st.kthvalue(x, k, dim)
        tv, ti = torch.kthvalue(t, k, dim)
        assert np.array_equal(i.numpy(), ti.numpy()) and v.numpy().tobytes() == tv.numpy().tobytes()


def test_expanded_rows_match_pytorch():
    """A stride-0 row (an expanded view, whose flat reshape is itself no C-contiguous run)."""
    for a in (np.array([3.0, 1.0, 2.0]), np.array([5, 5], np.int32)):
        x, t = st.from_numpy(a)[:1].expand(4, 3), torch.from_numpy(a)[:1].expand(4, 3)
        for dim in (0, 1):
            v, i = st.kthvalue(x, 1, dim)
            tv, ti = torch.kthvalue(t, 1, dim)
            assert np.array_equal(i.numpy(), ti.numpy()) and v.numpy().tobytes() == tv.numpy().tobytes()
