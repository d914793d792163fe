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


@settings(max_examples=40, deadline=None)
@given(hnp.arrays(hs.sampled_from([np.float32, np.float64]), hnp.array_shapes(min_dims=2, max_dims=3, max_side=9),
                  elements=hs.floats(-1e6, 1e6, width=32)),
       hs.sampled_from(["sigmoid", "leaky_relu", "elu", "relu", "gelu"]))
def test_activation_transposed_result_is_fresh_and_laid_out_as_pytorch(x: np.ndarray, name: str) -> None:
    """The adopted forward array (_as_output): PyTorch's strides, offset 0, no memory shared with
    the input, and writing the result leaves the input alone."""
    s = strided.from_numpy(x.copy()).transpose(0, 1)
    t = torch.from_numpy(x.copy()).transpose(0, 1)
    got, want = getattr(strided.nn.functional, name)(s), getattr(torch.nn.functional, name)(t)
    assert got.stride() == want.stride() and got.storage_offset() == 0 and got.shape == tuple(want.shape)
    before = s.numpy().copy()
    got.fill_(7.0)
    np.testing.assert_array_equal(s.numpy(), before)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("layout", ["C", "T"])
def test_addcmul_lerp_dense_runs_bits_as_pytorch(dtype: type, layout: str) -> None:
    rng = np.random.default_rng(7)
    a, b, c = ((rng.standard_normal((33, 17)) * 4).astype(dtype) for _ in range(3))
    a.flat[:4] = [np.inf, -0.0, 1e-40, -np.inf]
    v = (lambda u: u.T) if layout == "T" else (lambda u: u)

    def results(lib: object) -> list:
        x, y, z = (v(lib.from_numpy(u.copy())) for u in (a, b, c))
        out = [lib.addcmul(x, y, z, value=-1.5), lib.lerp(x, y, 0.3), lib.lerp(x, y, 0.7)]
        x.addcmul_(y, z, value=0.25)
        return [*out, x]

    for g, w in zip(results(strided), results(torch)):
        assert g.stride() == w.stride()
        np.testing.assert_array_equal(_bits(g.numpy()), _bits(w.numpy()))
