"""The copy kernel's ``nonzero_rows`` (kernels/_nonzero_rows.h), which nonzero / argwhere use for
large row-major inputs of 2 or more dims: np.nonzero's positions exactly (NaN counts, -0.0 does
not, any non-zero bool byte counts), its refusals, and PyTorch's matrices for both layouts."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided
from strided.kernels import native

K = native.kernel()
ROWS = getattr(K, "nonzero_rows", None)


@pytest.mark.skipif(ROWS is None, reason="the compiled copy kernel is not built")
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.bool_])
@pytest.mark.parametrize("shape", [(1,), (7,), (5, 6), (3, 4, 5), (2, 3, 4, 5), (4, 0), (0, 3), (1, 4097)])
def test_rows_are_numpys_positions(dtype: type, shape: tuple) -> None:
    rng = np.random.default_rng(len(shape))
    a = (rng.random(shape) * 3).astype(dtype) if dtype is not np.bool_ else rng.random(shape) > 0.5
    if dtype in (np.float32, np.float64) and a.size > 3:
        a.reshape(-1)[:3] = (np.nan, -0.0, 0.0)
    count = ROWS(a, None)
    out = np.empty(count * a.ndim, np.int64)
    assert ROWS(a, out) == count
    assert np.array_equal(out, np.concatenate(np.nonzero(a)).astype(np.int64))


@pytest.mark.skipif(ROWS is None, reason="the compiled copy kernel is not built")
def test_rows_read_any_nonzero_bool_byte_and_refuse() -> None:
    raw = np.array([[0, 1, 2], [255, 0, 0]], np.uint8)
    flags = raw.view(np.bool_)
    out = np.empty(3 * 2, np.int64)
    assert ROWS(flags, out) == 3
    assert out.tolist() == [0, 0, 1, 1, 2, 0]
    assert ROWS(np.zeros((2, 2), np.float16), None) == -1  # (a dtype it does not read)
    assert ROWS(np.ones((2, 2), np.float32), np.empty(3, np.int64)) == -1  # (out of another size)
    assert ROWS(np.ones((2, 2), np.float32), np.empty(4, np.int32)) == -1  # (out not int64)


@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize("op", ["nonzero", "argwhere"])
def test_large_nonzero_is_torch(transposed: bool, op: str) -> None:
    rng = np.random.default_rng(3)
    a = np.where(rng.random((90, 70)) > 0.3, rng.standard_normal((90, 70)), 0).astype(np.float32)
    if transposed:
        x, tx = strided.tensor(a.T.copy()).t(), torch.from_numpy(a.T.copy()).t()
    else:
        x, tx = strided.tensor(a), torch.from_numpy(a.copy())
    got, want = getattr(strided, op)(x), getattr(torch, op)(tx)
    assert got.stride() == want.stride() and np.array_equal(got.numpy(), want.numpy())
