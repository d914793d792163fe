"""lerp / lerp_ on two operands of one dense permuted layout (a transpose, a 3-d permutation): the
flat-run path's results against the general path (native off) and PyTorch: strides and bits, in
place too (the write lands where the elements lie); mixed layouts keep the general path's answer."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided as st


def _pair(a, perm):
    base = np.ascontiguousarray(a.transpose(np.argsort(perm)))
    return st.from_numpy(base.copy()).permute(*perm), torch.from_numpy(base.copy()).permute(*perm)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,perm", [((4, 5), (1, 0)), ((3, 4, 5), (2, 0, 1)), ((1, 4, 5), (0, 2, 1)),
                                        ((64, 48), (1, 0))])
@pytest.mark.parametrize("weight", [0.25, 0.75, -2.0])
def test_permuted_lerp_matches_torch_and_the_general_path(dtype, shape, perm, weight):
    from strided.ops.elementwise import binary_more

    rng = np.random.default_rng(len(shape))
    x, y = rng.standard_normal(shape).astype(dtype), rng.standard_normal(shape).astype(dtype)
    x.flat[::7] = np.nan
    y.flat[::5] = -0.0
    (sx, tx), (sy, ty) = _pair(x, perm), _pair(y, perm)
    ours = st.lerp(sx, sy, weight)
    general = binary_more._lerp(sx, sy, weight, None)
    theirs = torch.lerp(tx, ty, weight)
    assert ours.stride() == general.stride() == theirs.stride()
    assert ours.numpy().tobytes() == general.numpy().tobytes() == theirs.numpy().tobytes()
    assert sx.lerp_(sy, weight) is sx and tx.lerp_(ty, weight) is tx
    assert sx.numpy().tobytes() == tx.numpy().tobytes()


def test_mixed_layouts_keep_the_general_answer():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((6, 5)).astype(np.float32)
    (sx, tx) = _pair(x, (1, 0))
    sy, ty = st.from_numpy(x.copy()), torch.from_numpy(x.copy())
    ours, theirs = st.lerp(sx, sy, 0.3), torch.lerp(tx, ty, 0.3)
    assert ours.stride() == theirs.stride() and ours.numpy().tobytes() == theirs.numpy().tobytes()
