"""Red-team findings on the shorter elementwise kernels (branch elemcomp): each case is one a
differential check against PyTorch 2.13 found giving a different number."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import strided as st
import strided.nn.functional as F


def _same_bits(s: st.Tensor, t: torch.Tensor) -> None:
    a, b = s.numpy(), t.numpy()
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(np.isnan(a), np.isnan(b))
    keep = ~np.isnan(a)
    np.testing.assert_array_equal(a[keep], b[keep])
    np.testing.assert_array_equal(np.signbit(a[keep]), np.signbit(b[keep]))


@pytest.mark.parametrize("k", [5e-324, 1e-46])
@pytest.mark.parametrize("inplace", [False, True])
def test_leaky_relu_slope_that_is_zero_in_float32_keeps_inf(k, inplace):
    # k > 0 as a Python float but 0 in float32: maximum(x, x*k) would make inf * 0 = NaN
    x = np.array([1.0, np.inf, -np.inf, -1.0, -0.0, 0.0, 2.0, np.nan], dtype=np.float32)
    s, t = st.from_numpy(x.copy()), torch.from_numpy(x.copy())
    rs = F.leaky_relu(s[1:], k, inplace=inplace)
    rt = TF.leaky_relu(t[1:], k, inplace=inplace)
    _same_bits(rs, rt)
    _same_bits(s, t)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("eps", [None, 1e-4, 0.3, 0.49])
def test_logit_of_half_types_rounds_each_step_as_pytorch(dtype, eps):
    # PyTorch keeps eps, 1 - eps, 1 - z and the quotient in float16/bfloat16 (float16's 1 - 1e-4 is
    # 1.0, so logit(1.0, eps=1e-4) is inf); one float32 computation rounded once differed in ~1/3
    x = np.concatenate([[0.0, 1e-4, 0.3, 0.7, 0.9999, 1.0, np.nan, -1.0, 2.0],
                        np.random.default_rng(0).random(60)]).astype(np.float32)
    s = st.from_numpy(x).to(getattr(st, dtype))
    t = torch.from_numpy(x).to(getattr(torch, dtype))
    np.testing.assert_array_equal(st.logit(s, eps).float().numpy(), torch.logit(t, eps).float().numpy())
    np.testing.assert_array_equal(st.logit(s[1::2], eps).float().numpy(),
                                  torch.logit(t[1::2], eps).float().numpy())


@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_nan_to_num_keeps_a_negative_zero_nan(layout):
    # (nan=-0.0 was read as `nan or 0.0`, i.e. +0.0)
    a = np.array([[np.nan, 1.0], [np.inf, np.nan]], dtype=np.float32)
    s, t = st.from_numpy(a.copy()), torch.from_numpy(a.copy())
    if layout == "transposed":
        s, t = s.t(), t.t()
    _same_bits(st.nan_to_num(s, nan=-0.0, posinf=-0.0), torch.nan_to_num(t, nan=-0.0, posinf=-0.0))
    _same_bits(s.clone().nan_to_num_(nan=-0.0), t.clone().nan_to_num_(nan=-0.0))


@pytest.mark.parametrize("dtype,out_dtype", [("float16", "float64"), ("float32", "float64"), ("int16", "float32")])
def test_nan_to_num_out_of_another_dtype_is_pytorchs_error(dtype, out_dtype):
    t, o = torch.zeros(3, dtype=getattr(torch, dtype)), torch.full((3,), 7.0, dtype=getattr(torch, out_dtype))
    with pytest.raises(RuntimeError) as expected:
        torch.nan_to_num(t, out=o)
    s, so = st.zeros(3, dtype=getattr(st, dtype)), st.full((3,), 7.0, dtype=getattr(st, out_dtype))
    with pytest.raises(RuntimeError) as got:
        st.nan_to_num(s, out=so)
    assert str(got.value).splitlines()[0] == str(expected.value)
    assert so.tolist() == [7.0, 7.0, 7.0]  # (nothing written)
