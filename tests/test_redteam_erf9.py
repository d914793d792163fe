"""Red-team checks of the erf9 fast paths against PyTorch's bits (tests/test_unary_scaled.py
compares deg2rad / rad2deg with NumPy's ufunc, whose float32 factor is not PyTorch's)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs
from hypothesis.extra import numpy as hnp

import strided

torch.set_num_threads(1)


def _bits(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    return a.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


@pytest.mark.parametrize("name", ["deg2rad", "rad2deg"])
@pytest.mark.parametrize("dtype", ["float32", "int32", "int64", "bool", "uint8"])
def test_angle_float32_factor_is_pytorchs(name: str, dtype: str) -> None:
    """PyTorch multiplies by the double constant rounded to float32 (rad2deg: 57.29578, NumPy's
    float32 loop 180f / pi_f = 57.295776): rad2deg(1.0) was 57.295776, PyTorch 57.29578."""
    x = (np.random.default_rng(3).standard_normal(3000) * 50).astype(dtype)
    x[:3] = np.array([1, 0, 1]).astype(dtype)
    got = getattr(strided, name)(strided.from_numpy(x.copy())).numpy()
    want = getattr(torch, name)(torch.from_numpy(x.copy())).numpy()
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(_bits(got), _bits(want))


@settings(max_examples=60, deadline=None)
@given(hnp.arrays(hs.sampled_from([np.float32, np.float64, np.int32]), hnp.array_shapes(max_dims=3, max_side=7)),
       hs.sampled_from(["deg2rad", "rad2deg"]), hs.booleans())
def test_angle_bits_any_layout(x: np.ndarray, name: str, transpose: bool) -> None:
    s, t = strided.from_numpy(x.copy()), torch.from_numpy(x.copy())
    if transpose and x.ndim >= 2:
        s, t = s.transpose(0, 1), t.transpose(0, 1)
    got, want = getattr(strided, name)(s), getattr(torch, name)(t)
    assert got.stride() == want.stride()
    g, w = got.numpy(), want.numpy()
    nan = np.isnan(w)
    assert (np.isnan(g) == nan).all()
    np.testing.assert_array_equal(_bits(np.where(nan, 0, g)), _bits(np.where(nan, 0, w)))
