"""amax / amin (and max() / min() of every element) over a large or densely permuted tensor: the
compiled extreme of its storage run answers where it is sure (no zero, no NaN met); those results
and the fixed ones (zeros of both signs, NaN) are the general path's (native off) and PyTorch's
bits, shapes and strides, keepdim too."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided as st
from strided.kernels import native


def _views(a):
    yield st.from_numpy(a), torch.from_numpy(a)
    yield st.from_numpy(a).t(), torch.from_numpy(a).t()
    b = np.ascontiguousarray(a.reshape(4, -1, a.shape[-1]).transpose(2, 0, 1))
    yield st.from_numpy(b).permute(1, 2, 0), torch.from_numpy(b).permute(1, 2, 0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("rows", [8, 256])
@pytest.mark.parametrize("special", ["none", "zeros", "nan", "inf"])
def test_full_extremes_match_the_general_path_and_torch(dtype, rows, special):
    rng = np.random.default_rng(rows)
    a = rng.uniform(-1, 1, (rows, 128)).astype(dtype)
    if special == "zeros":
        a = np.where(a > 0, -a, a)
        a.flat[rng.integers(0, a.size, 5)] = 0.0
        a.flat[rng.integers(0, a.size, 5)] = -0.0
    elif special == "nan":
        a.flat[rng.integers(0, a.size, 3)] = np.nan
    elif special == "inf":
        a.flat[rng.integers(0, a.size, 3)] = np.inf
        a.flat[rng.integers(0, a.size, 3)] = -np.inf
    for x, t in _views(a):
        for name in ("amax", "amin"):
            for keepdim in (False, True):
                ours = getattr(st, name)(x, None, keepdim) if keepdim else getattr(st, name)(x)
                with native.disabled():
                    general = getattr(st, name)(x, None, keepdim) if keepdim else getattr(st, name)(x)
                theirs = getattr(torch, name)(t, tuple(range(t.dim())), keepdim)
                assert ours.shape == general.shape == tuple(theirs.shape) and ours.stride() == theirs.stride()
                assert ours.numpy().tobytes() == general.numpy().tobytes() == theirs.numpy().tobytes()
        for name in ("max", "min"):
            ours, theirs = getattr(x, name)(), getattr(t, name)()
            assert ours.numpy().tobytes() == theirs.numpy().tobytes()
