"""take from non-contiguous inputs: many picks read a row-major copy made by the blocked kernel,
few picks the positions' divisions; both are PyTorch's values (negative positions wrap, any
dtype, permuted, stepped and offset layouts) and out-of-range picks raise PyTorch's IndexError."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided as st

DTYPES = [np.float32, np.float64, np.int64, np.int8, np.bool_]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("picks", ["few", "many"])
def test_take_of_strided_layouts_matches_torch(dtype, picks):
    rng = np.random.default_rng(7)
    for trial in range(40):
        shape = tuple(int(v) for v in rng.integers(1, 20, rng.integers(1, 4)))
        a = (rng.standard_normal(shape) * 50).astype(dtype)
        perm = tuple(int(p) for p in rng.permutation(len(shape)))
        base = np.ascontiguousarray(a.transpose(np.argsort(perm)))
        x, tx = st.from_numpy(base).permute(*perm), torch.from_numpy(base).permute(*perm)
        if trial % 3 == 0 and shape[-1] > 1:
            x, tx = x[..., 1::2], tx[..., 1::2]
        n = x.numel()
        count = int(rng.integers(1, max(2, n // 8))) if picks == "few" else int(rng.integers(n // 2 + 1, 3 * n + 2))
        idx = rng.integers(-n, n, count)
        ours, theirs = st.take(x, st.from_numpy(idx)), torch.take(tx, torch.from_numpy(idx))
        assert ours.shape == tuple(theirs.shape) and ours.numpy().tobytes() == theirs.numpy().tobytes()


def test_out_of_range_is_torchs_error():
    x = st.from_numpy(np.arange(12.0).reshape(3, 4)).t()
    with pytest.raises(IndexError, match="out of range"):
        st.take(x, st.from_numpy(np.array([0, 12] * 10)))
