"""logical_and/or/xor/not over long runs (the flat-run kernels: each operand's ``!= 0`` combined on
bools, NumPy's SIMD comparisons instead of its scalar logical loops; logical_not as ``== 0``):
PyTorch's bools for NaN (true), -0.0 (false), infinities and subnormals, row-major and permuted,
every real dtype the fast path takes, and in-place and ``out=`` forms that keep their own paths."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided

_SPECIAL = [0.0, -0.0, np.nan, np.inf, -np.inf, 1e-45, -2.5, 1.0]


def _operand(rng: np.random.Generator, dtype: type, shape: tuple[int, int]) -> np.ndarray:
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-2, 3, shape).astype(dtype)
    x = rng.choice(np.array(_SPECIAL, np.float64), shape).astype(dtype)
    return x


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.uint8, np.int8, np.int16])
@pytest.mark.parametrize("permuted", [False, True])
def test_long_logical_ops_match_torch(dtype: type, permuted: bool) -> None:
    rng = np.random.default_rng(5)
    a, b = (_operand(rng, dtype, (96, 80)) for _ in range(2))  # (7680 elements: past native_min)
    sa, sb, ta, tb = strided.tensor(a), strided.tensor(b), torch.from_numpy(a), torch.from_numpy(b)
    if permuted:
        sa, sb, ta, tb = sa.t(), sb.t(), ta.t(), tb.t()
    for name in ("logical_and", "logical_or", "logical_xor"):
        got, want = getattr(strided, name)(sa, sb), getattr(torch, name)(ta, tb)
        assert got.dtype == strided.bool_ and got.stride() == want.stride()
        np.testing.assert_array_equal(got.numpy(), want.numpy(), err_msg=name)
    got, want = strided.logical_not(sa), torch.logical_not(ta)
    assert got.dtype == strided.bool_ and got.stride() == want.stride()
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_long_logical_ops_in_place_and_out_keep_the_input_dtype() -> None:
    rng = np.random.default_rng(6)
    a, b = (_operand(rng, np.float32, (64, 100)) for _ in range(2))
    s, t = strided.tensor(a), torch.from_numpy(a.copy())
    s.logical_xor_(strided.tensor(b))
    t.logical_xor_(torch.from_numpy(b))
    assert s.dtype == strided.float32
    np.testing.assert_array_equal(s.numpy(), t.numpy())
    out_s, out_t = strided.empty(64, 100), torch.empty(64, 100)
    strided.logical_not(strided.tensor(a), out=out_s)
    torch.logical_not(torch.from_numpy(a), out=out_t)
    np.testing.assert_array_equal(out_s.numpy(), out_t.numpy())
