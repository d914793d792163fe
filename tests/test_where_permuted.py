"""where's fast selection on three operands of one dense permuted layout (a transpose, a 3-d
permutation): PyTorch's result strides and values, the general path's (native off) bits, NaN and
-0.0 kept; mixed layouts, size-1 dims and other dtypes still take the general path's answer."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided as st
from strided.kernels import native


def _pair(a, perm):
    base = np.ascontiguousarray(a.transpose(np.argsort(perm)))
    return st.from_numpy(base).permute(*perm), torch.from_numpy(base).permute(*perm)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,perm", [((4, 5), (1, 0)), ((3, 4, 5), (2, 0, 1)), ((2, 3, 4), (1, 2, 0)),
                                        ((1, 4, 5), (0, 2, 1)), ((64, 48), (1, 0))])
def test_permuted_where_matches_torch_and_the_general_path(dtype, shape, perm):
    rng = np.random.default_rng(len(shape))
    x = rng.standard_normal(shape).astype(dtype)
    y = rng.standard_normal(shape).astype(dtype)
    x.flat[::7] = np.nan
    y.flat[::5] = -0.0
    c = rng.random(shape) > 0.5
    (sc, tc), (sx, tx), (sy, ty) = _pair(c, perm), _pair(x, perm), _pair(y, perm)
    ours = st.where(sc, sx, sy)
    with native.disabled():
        general = st.where(sc, sx, sy)
    theirs = torch.where(tc, tx, ty)
    assert ours.stride() == general.stride() == theirs.stride()
    assert ours.numpy().tobytes() == general.numpy().tobytes() == theirs.numpy().tobytes()


def test_mixed_layouts_take_the_general_path():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((6, 5)).astype(np.float32)
    c = rng.random((6, 5)) > 0.5
    sx_t, tx_t = _pair(x, (1, 0))
    sc, tc = st.from_numpy(c.copy()), torch.from_numpy(c.copy())  # (a row-major condition, transposed data)
    ours, theirs = st.where(sc, sx_t, sx_t), torch.where(tc, tx_t, tx_t)
    assert ours.stride() == theirs.stride() and ours.numpy().tobytes() == theirs.numpy().tobytes()
