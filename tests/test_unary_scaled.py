"""deg2rad / rad2deg as one np.multiply by PyTorch's factor (ops/elementwise/unary_more.py,
``_angle``): PyTorch's bits, x times the double factor rounded to float32 (NumPy's float32
rad2deg factor differs; deg2rad's agrees), on random bit patterns of every exponent, NaN payloads, zeros, infinities,
subnormals, for float32 and float64, other dtypes through NumPy's ufunc; PyTorch's values,
shapes and strides on contiguous, transposed and stepped inputs, in place and ``out=``.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs
from hypothesis.extra import numpy as hnp

import strided

NAMES = ["deg2rad", "rad2deg"]
_UINT = {np.float32: np.uint32, np.float64: np.uint64}


def _ref(name: str, x: np.ndarray) -> np.ndarray:
    """PyTorch's bits: x times the double factor rounded once to x's dtype (NumPy's float32
    rad2deg divides in float32: 57.295776, PyTorch 57.29578; deg2rad's factors agree)."""
    factor = np.pi / 180.0 if name == "deg2rad" else 180.0 / np.pi
    with np.errstate(all="ignore"):
        return np.multiply(x, x.dtype.type(factor))


def _patterns(dtype: type) -> np.ndarray:
    rng = np.random.default_rng(4)
    u = _UINT[dtype]
    bits = rng.integers(0, np.iinfo(u).max, 1 << 18, dtype=u, endpoint=True)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, 5e-324, 180.0, np.pi, 1e38, 3.4e38, 1e308],
                       dtype=np.float64)
    with np.errstate(over="ignore"):
        special = special.astype(dtype)
    return np.concatenate([bits.view(dtype), special, -special])


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_bits_of_pytorchs_factor(name: str, dtype: type) -> None:
    x = _patterns(dtype)
    got = getattr(strided, name)(strided.from_numpy(x)).numpy()
    want = _ref(name, x)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.view(_UINT[dtype]), want.view(_UINT[dtype]))


@settings(max_examples=40, deadline=None)
@given(hnp.arrays(hs.sampled_from([np.float16, np.float32, np.float64, np.int32, np.int64, np.uint8]),
                  hnp.array_shapes(max_dims=3, max_side=6)),
       hs.sampled_from(NAMES))
def test_every_dtype_as_numpy_and_pytorch(x: np.ndarray, name: str) -> None:
    """Integer inputs give float32, float16 stays float16 (NumPy's ufunc there), each as PyTorch."""
    t = torch.from_numpy(x.copy())
    want = getattr(torch, name)(t)
    got = getattr(strided, name)(strided.from_numpy(x.copy()))
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    assert got.shape == tuple(want.shape) and got.stride() == want.stride()
    rtol = {torch.float16: 1e-3, torch.float32: 2e-7, torch.float64: 1e-15}[want.dtype]
    np.testing.assert_allclose(got.numpy().astype(np.float64), want.numpy().astype(np.float64), rtol=rtol,
                               atol=0, equal_nan=True)
    if x.dtype in (np.float32, np.float64):  # (PyTorch's factor's bits)
        ref = _ref(name, x)
        np.testing.assert_array_equal(got.numpy().view(_UINT[x.dtype.type]), ref.view(_UINT[x.dtype.type]))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped"])
def test_views_in_place_and_out(name: str, layout: str) -> None:
    base = np.random.default_rng(2).uniform(-400, 400, (40, 30)).astype(np.float32)
    view = {"contiguous": lambda a: a, "transposed": lambda a: a.T, "stepped": lambda a: a[::3, 1::2]}[layout]
    s, t = view(strided.from_numpy(base.copy())), view(torch.from_numpy(base.copy()))
    got, want = getattr(strided, name)(s), getattr(torch, name)(t)
    assert got.shape == tuple(want.shape) and got.stride() == want.stride()
    ref = _ref(name, view(base))
    np.testing.assert_array_equal(got.numpy(), ref)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=2e-7)
    out = strided.empty(got.shape)
    assert getattr(strided, name)(s, out=out) is out
    np.testing.assert_array_equal(out.numpy(), ref)
    getattr(s, name + "_")()
    np.testing.assert_array_equal(s.numpy(), ref)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped", "in place"])
def test_frac_writes_trunc_into_out_with_the_same_bits(dtype: type, layout: str) -> None:
    """frac's truncation goes into the output (no temporary) where it shares no memory with the
    input; in place (it does) the temporary stays: the bits of x - trunc(x) either way."""
    u = _UINT[dtype]
    flat = _patterns(dtype)[: 120 * 90]
    flat = np.concatenate([flat, np.random.default_rng(1).uniform(-1e4, 1e4, 120 * 90 - flat.size).astype(dtype)])
    base = flat.reshape(120, 90)
    view = {"contiguous": lambda a: a, "transposed": lambda a: a.T, "stepped": lambda a: a[::3, 1::2],
            "in place": lambda a: a}[layout]
    with np.errstate(all="ignore"):
        ref = np.subtract(view(base), np.trunc(view(base)))
    s = view(strided.from_numpy(base.copy()))
    got = s.frac_() if layout == "in place" else strided.frac(s)
    np.testing.assert_array_equal(np.ascontiguousarray(got.numpy()).view(u), np.ascontiguousarray(ref).view(u))
    want = torch.frac(view(torch.from_numpy(base.copy())))
    assert got.shape == tuple(want.shape) and got.stride() == want.stride()
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_frac_kernel_takes_only_what_it_can_and_matches_numpy() -> None:
    from strided.kernels import native

    k = native.special()
    if k is None:
        pytest.skip("the compiled kernels are not built")
    x = _patterns(np.float32)[:4096].reshape(64, 64)
    with np.errstate(all="ignore"):
        ref = np.subtract(x, np.trunc(x))
    for src, out in ((x, np.empty_like(x)), (x.T, np.empty_like(x.T)), (x.copy(), None)):
        out = src if out is None else out
        assert k.frac(src, out)
        np.testing.assert_array_equal(np.ascontiguousarray(out).view(np.uint32),
                                      np.ascontiguousarray(ref if src.shape == ref.shape and src.strides == x.strides
                                                           else ref.T).view(np.uint32))
    flat = x.reshape(-1).copy()
    assert not k.frac(flat[1:], flat[:-1])  # (a partial overlap)
    assert not k.frac(x, np.empty(x.shape, np.float64))  # (another format)
    assert not k.frac(x, np.empty(x.shape, np.float32, order="F"))  # (another order)
    assert not k.frac(x[:, ::2], np.empty((64, 32), np.float32))  # (not contiguous)
    assert not k.frac(np.zeros(x.shape, np.float16), np.empty(x.shape, np.float16))
    s = strided.from_numpy(x)
    got = strided.frac(s)
    with native.disabled():
        off = strided.frac(s)
    np.testing.assert_array_equal(got.numpy().view(np.uint32), off.numpy().view(np.uint32))
