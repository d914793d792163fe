"""index_reduce over large slices (one in-place ufunc call per index, in the index's order)
against PyTorch and against the ufunc.at path, bit for bit: every reduce, include_self both ways,
duplicate indices, signed zeros, NaN in the source or the target, dims 0 and 1, transposed
targets, integers."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from strided.ops.indexing import index_ops


def _case(seed: int, dtype: str, special: str):
    rng = np.random.default_rng(seed)
    rows, cols = 40, 300  # (300 elements a slice: above _SLICE_ADD)
    if dtype.startswith("int"):
        x, src = rng.integers(-3, 4, (rows, cols)).astype(dtype), rng.integers(-3, 4, (25, cols)).astype(dtype)
    else:
        x = rng.choice([-2.0, -0.0, 0.0, 0.5, 1.5, 3.0], (rows, cols)).astype(dtype)
        src = rng.choice([-1.5, -0.0, 0.0, 0.25, 2.0, 7.0], (25, cols)).astype(dtype)
        if special == "nan_source":
            src[3, 5] = np.nan
        elif special == "nan_target":
            x[int(rng.integers(0, rows)), 7] = np.nan
    idx = rng.integers(0, rows, 25)
    idx[:4] = idx[4]  # (duplicates)
    return x, idx, src


def _run(lib, x, idx, src, dim, reduce, include_self, transposed):
    t = (torch.from_numpy(x.copy()) if lib is torch else st.tensor(x))
    s = (torch.from_numpy(src.copy()) if lib is torch else st.tensor(src))
    i = torch.from_numpy(idx) if lib is torch else st.tensor(idx)
    if dim == 1:
        t, s = t.t().contiguous(), s.t().contiguous()
    if transposed:
        t = t.t().contiguous().t() if dim == 0 else t
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return t.index_reduce(dim, i, s, reduce, include_self=include_self)


@settings(max_examples=120, deadline=None)
@given(seed=hs.integers(0, 50), dtype=hs.sampled_from(["float32", "float64", "int32", "int64"]),
       special=hs.sampled_from(["", "nan_source", "nan_target"]), dim=hs.sampled_from([0, 1]),
       reduce=hs.sampled_from(["prod", "mean", "amax", "amin"]), include_self=hs.booleans(),
       transposed=hs.booleans())
def test_large_slices_are_pytorchs_bit_for_bit(seed, dtype, special, dim, reduce, include_self, transposed):
    x, idx, src = _case(seed, dtype, special)
    got = _run(st, x, idx, src, dim, reduce, include_self, transposed)
    want = _run(torch, x, idx, src, dim, reduce, include_self, transposed)
    assert got.dtype.name == str(want.dtype).split(".")[1] and got.stride() == want.stride()
    g, w = np.asarray(got), want.numpy()
    if dtype.startswith("float"):
        assert np.array_equal(np.isnan(g), np.isnan(w))
        g, w = np.where(np.isnan(g), 0, g), np.where(np.isnan(w), 0, w)  # (the NaN's payload: no library defines it)
        if reduce in ("amax", "amin"):
            # PyTorch's maximum/minimum keep the running zero on a -0.0/+0.0 tie in their scalar loop
            # and take the source's in their vector body (vmaxps), whose width is the CPU's: the sign
            # of a zero extreme depends on the element's position and the machine, so only |0| is compared
            g, w = g + 0.0, w + 0.0
    np.testing.assert_array_equal(g.view(g.dtype.str.replace("f", "u").replace("i", "u")),
                                  w.view(w.dtype.str.replace("f", "u").replace("i", "u")))


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
def test_the_slice_loop_equals_ufunc_at(reduce, monkeypatch):
    x, idx, src = _case(7, "float32", "")
    fast = np.asarray(_run(st, x, idx, src, 0, reduce, True, False))
    monkeypatch.setattr(index_ops, "_SLICE_ADD", 10**9)  # (every slice through ufunc.at)
    slow = np.asarray(_run(st, x, idx, src, 0, reduce, True, False))
    assert fast.tobytes() == slow.tobytes()


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_small_row_major_calls_equal_the_general_path(dtype, dim, monkeypatch):
    """Out-of-place index_reduce of small row-major operands (the copy and _reduce_into on the flat
    runs) gives the general path's bits, strides and dtype for every reduce and include_self,
    duplicates, NaN and signed zeros included; the general path is torch's (above)."""
    x, idx, src = _case(3, dtype, "nan_source")
    x, src, idx = x[:6, :5], src[:4, :5], idx[:4] % 6
    if dim != 0:
        x, src, idx = np.ascontiguousarray(x.T), np.ascontiguousarray(src.T[:, :4]), idx % 5
    t, s, i = st.tensor(x), st.tensor(src), st.tensor(idx)
    for reduce in ("prod", "mean", "amax", "amin"):
        for include_self in (True, False):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fast = t.index_reduce(dim, i, s, reduce, include_self=include_self)
                with monkeypatch.context() as m:
                    m.setattr(index_ops, "_fast_index_reduce", lambda *a: None)
                    slow = t.index_reduce(dim, i, s, reduce, include_self=include_self)
            assert fast.dtype == slow.dtype and fast.stride() == slow.stride()
            assert np.asarray(fast).tobytes() == np.asarray(slow).tobytes()


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
@pytest.mark.parametrize("dim", [0, 1, 2])
def test_compiled_accumulate_is_numpys_and_pytorchs(dtype, dim):
    """index_add / index_add_ (alpha 1 and 2) and index_reduce prod/mean over large slices through the
    compiled index_accumulate give the NumPy slice loop's bits (kernels off) and PyTorch's: a 3-d
    target read along each dim, duplicate indices, signed zeros, integer wrap-around, a transposed
    source, NaN in the target."""
    from strided.kernels import native

    rng = np.random.default_rng(dim)
    shape = [6, 5, 300] if dim != 2 else [300, 2, 6]
    n = 9
    if dtype.startswith("int"):
        info = np.iinfo(dtype)
        x = rng.integers(-3, 4, shape).astype(dtype)
        x.flat[::7] = info.max
        src_shape = list(shape)
        src_shape[dim] = n
        src = rng.integers(-3, 4, src_shape).astype(dtype)
        src.flat[::5] = info.max
    else:
        x = rng.choice([-2.0, -0.0, 0.0, 0.5, 1.5, 3.0], shape).astype(dtype)
        x.flat[11] = np.nan
        src_shape = list(shape)
        src_shape[dim] = n
        src = rng.choice([-1.5, -0.0, 0.0, 0.25, 2.0, 7.0], src_shape).astype(dtype)
    idx = rng.integers(0, shape[dim], n)
    idx[:3] = idx[3]  # (duplicates)
    tsrc_t = torch.from_numpy(np.ascontiguousarray(np.swapaxes(src, 0, -1))).transpose(0, -1)
    ssrc_t = st.tensor(np.ascontiguousarray(np.swapaxes(src, 0, -1))).transpose(0, -1)
    calls = [
        lambda lib, t, i, s: lib.index_add(t, dim, i, s),
        lambda lib, t, i, s: lib.index_add(t, dim, i, s, alpha=2),
        lambda lib, t, i, s: t.clone().index_add_(dim, i, s),
        lambda lib, t, i, s: t.index_reduce(dim, i, s, "prod"),
        lambda lib, t, i, s: t.index_reduce(dim, i, s, "mean", include_self=False),
    ]
    for call in calls:
        for transposed in (False, True):
            ts = tsrc_t if transposed else torch.from_numpy(src.copy())
            ss = ssrc_t if transposed else st.tensor(src)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                want = call(torch, torch.from_numpy(x.copy()), torch.from_numpy(idx), ts)
                got = call(st, st.tensor(x), st.tensor(idx), ss)
                with native.disabled():
                    off = call(st, st.tensor(x), st.tensor(idx), ss)
            assert got.stride() == want.stride() == off.stride() and got.dtype == off.dtype
            g, w = np.asarray(got), want.numpy()
            assert g.tobytes() == np.asarray(off).tobytes()
            assert np.array_equal(np.isnan(g), np.isnan(w)) if g.dtype.kind == "f" else True
            if g.dtype.kind == "f":
                g, w = np.where(np.isnan(g), 0, g), np.where(np.isnan(w), 0, w)  # (NaN payloads: undefined)
            assert g.tobytes() == w.tobytes()


def test_index_accumulate_refuses():
    """index_accumulate writes nothing (False) for an out-of-range or negative index, other formats,
    mismatched lengths or an overlap."""
    from strided.kernels import native

    k = native.special()
    if k is None:
        pytest.skip("compiled kernels not built")
    out = np.zeros(12)
    vals = np.ones(6)
    for bad in ([0, 4], [0, -1]):
        assert not k.index_accumulate(out, np.array(bad, np.int64), vals, 1, 4, 3, 0)
    assert not k.index_accumulate(out, np.array([0, 1], np.int32), vals, 1, 4, 3, 0)
    assert not k.index_accumulate(out, np.array([0, 1], np.int64), vals.astype(np.float32), 1, 4, 3, 0)
    assert not k.index_accumulate(out, np.array([0, 1], np.int64), vals[:5], 1, 4, 3, 0)
    assert not k.index_accumulate(out, np.array([0, 1], np.int64), vals, 1, 4, 3, 2)
    assert not k.index_accumulate(out, np.array([0, 1], np.int64), out[:6], 1, 4, 3, 0)
    assert not out.any()
    assert k.index_accumulate(out, np.array([3, 3], np.int64), vals, 1, 4, 3, 0)
    assert out.tolist() == [0.0] * 9 + [2.0] * 3
