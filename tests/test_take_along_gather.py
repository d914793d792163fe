"""take_along_dim where nothing broadcasts runs gather's compiled walk
(``gather_scatter._unbroadcast_take``): PyTorch's values and strides over dtypes, row-major and
transposed inputs, each dim, negative indices (counted from the end by the general path) and
an out-of-range index (PyTorch's error class)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided
from strided.ops.indexing import gather_scatter


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.bool_, np.complex64])
@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_take_along_dim_unbroadcast_is_torch(dtype: type, transposed: bool, dim: int) -> None:
    rng = np.random.default_rng(1)
    a = (rng.random((70, 90)) * 10).astype(dtype)
    if transposed:
        x, tx = strided.tensor(a.T.copy()).t(), torch.from_numpy(a.T.copy()).t()
    else:
        x, tx = strided.tensor(a), torch.from_numpy(a.copy())
    n = a.shape[dim]
    for low in (0, -n):  # (in range: the walk; with negatives: the general path)
        idx = rng.integers(low, n, a.shape)
        got, want = strided.take_along_dim(x, strided.tensor(idx), dim), torch.take_along_dim(tx, torch.from_numpy(idx), dim)
        assert got.stride() == want.stride() and got.numpy().tobytes() == want.numpy().tobytes()
    bad = rng.integers(0, n, a.shape)
    bad[3, 4] = n
    with pytest.raises(RuntimeError):
        strided.take_along_dim(x, strided.tensor(bad), dim)


def test_take_along_dim_takes_the_walk_only_without_broadcast() -> None:
    x = strided.tensor(np.arange(70 * 90, dtype=np.float32).reshape(70, 90)).t()
    idx = strided.tensor(np.zeros((90, 70), np.int64))
    assert gather_scatter._unbroadcast_take(x, 1, idx) is not None
    assert gather_scatter._unbroadcast_take(x, 1, idx[:, :1]) is None  # (its other dims broadcast)
    assert gather_scatter._unbroadcast_take(x, 1, idx.to(strided.int32)) is None  # (not int64)
    assert gather_scatter._unbroadcast_take(x, 1, -1 - idx) is None  # (a negative index)
