"""Hostile tests of session 36's fast paths (pool_windows and the pooling fresh paths, layer_norm's
compiled rows), each one a divergence found by attacking them: PyTorch's (or the NumPy steps') answer
where the fast path gave another.

- max_pool1d of a channels-last (N, C, L) input: PyTorch's own 1-d max kernel writes a contiguous
  result (the 2-d kernels, avg_pool1d and max_pool1d with indices, keep the channels last);
- pooling sizes past int32 / int64: PyTorch's 2-d kernels refuse them ("value cannot be converted to
  type int without overflow"), not a raw ``struct.error`` or a silent result;
- layer_norm's compiled rows (``ln_rows``) of a row holding two NaNs with different words (found against
  norm36's NumPy-order kernel; since normbits36 the rows are PyTorch's: NaN where torch's are)."""

from __future__ import annotations

import struct

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import strided as st
import strided.nn.functional as F

torch.set_num_threads(1)


def _bits(a: np.ndarray) -> bytes:
    return np.ascontiguousarray(a).view(np.uint8).tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("args", [(2,), (3, 2), ((1,), (1,)), (2, 1)])
@pytest.mark.parametrize("indices", [False, True])
@pytest.mark.parametrize("grad", ["none", "requires_grad", "no_grad"])
def test_max_pool1d_channels_last_input_layout(dtype, args, indices, grad):
    """Contiguous from max_pool1d's own kernel; channels-last from the 2-d one, which PyTorch runs
    for indices or an input that requires grad in grad mode."""
    a = np.random.default_rng(0).standard_normal((2, 6, 3)).astype(dtype)  # (N, L, C) storage
    s = st.tensor(a, requires_grad=grad != "none").transpose(1, 2)
    t = torch.tensor(a, requires_grad=grad != "none").transpose(1, 2)
    with st.no_grad() if grad == "no_grad" else st.enable_grad(), \
            torch.no_grad() if grad == "no_grad" else torch.enable_grad():
        got = F.max_pool1d(s, *args, return_indices=indices) if indices else F.max_pool1d(s, *args)
        want = TF.max_pool1d(t, *args, return_indices=indices) if indices else TF.max_pool1d(t, *args)
    for g, w in zip(got, want) if indices else ((got, want),):
        assert g.stride() == w.stride()
        assert _bits(g.detach().numpy()) == _bits(w.detach().numpy())


@pytest.mark.parametrize("op, args", [
    ("max_pool2d", (2, 2**62)), ("avg_pool2d", (2, 2**31)), ("avg_pool1d", (2, 2**40)),
    ("max_pool2d", (2**31,)), ("max_pool2d", (2, 1, 0, 2**40)), ("max_pool2d", (2, -2**31 - 1)),
])
def test_pool_sizes_past_int32_refused(op, args):
    x = np.zeros((2, 3, 5, 6), np.float32)
    s, t = st.tensor(x), torch.tensor(x)
    if op.endswith("1d"):
        s, t = s[0], t[0]
    with pytest.raises(RuntimeError, match="value cannot be converted to type int without overflow"):
        getattr(TF, op)(t, *args)
    with pytest.raises(st.errors.StridedRuntimeError, match="value cannot be converted to type int without overflow"):
        getattr(F, op)(s, *args)


@pytest.mark.parametrize("op", ["max_pool2d", "avg_pool2d", "max_pool1d", "avg_pool1d"])
def test_pool_sizes_past_int64_no_struct_error(op):
    s = st.zeros(2, 3, 5, 6)
    if op.endswith("1d"):
        s = s[0]
    with pytest.raises(st.errors.StridedError) as info:
        getattr(F, op)(s, 2, 2**70)
    assert not isinstance(info.value, struct.error)


def test_max_pool1d_int64_stride_taken():
    """max_pool1d's own kernel takes int64 sizes (no downcast): PyTorch's result."""
    a = np.random.default_rng(1).standard_normal((3, 6)).astype(np.float32)
    got, want = F.max_pool1d(st.tensor(a), 2, 2**40), TF.max_pool1d(torch.tensor(a), 2, 2**40)
    assert got.shape == tuple(want.shape) and _bits(got.numpy()) == _bits(want.numpy())


def _payloads(dtype, n):
    """Rows of n (> 128: NumPy's pairwise sum splits them) with two NaNs of different words."""
    x = (np.random.default_rng(2).standard_normal((3, n)) * 5 + 100).astype(dtype)
    u = np.uint32 if dtype == np.float32 else np.uint64
    first = 0x7FC00123 if dtype == np.float32 else 0x7FF8000000000123
    last = 0xFFC00456 if dtype == np.float32 else 0xFFF8000000000456
    x.view(u)[1, 0], x.view(u)[1, n - 1] = first, last
    return x


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [129, 1000])
@pytest.mark.parametrize("affine", [False, True])
def test_layer_norm_nan_rows_are_torchs(dtype, n, affine):
    """(Since normbits36 layer_norm's rows are PyTorch's kernel's bits: a row holding two NaN words is NaN
    where torch's is, every other row to the bit; which NaN sign a NaN row ends with follows torch's
    instruction order, not modelled — see test_normbits36.)"""
    import torch
    x = _payloads(dtype, n)
    rng = np.random.default_rng(3)
    w = rng.standard_normal(n).astype(dtype) if affine else None
    b = rng.standard_normal(n).astype(dtype) if affine else None
    tw, tb = (None if a is None else torch.from_numpy(a) for a in (w, b))
    want = torch.nn.functional.layer_norm(torch.from_numpy(x), (n,), tw, tb, 1e-5).numpy()
    sw = None if w is None else st.tensor(w)
    sb = None if b is None else st.tensor(b)
    for got in (F.layer_norm(st.tensor(x), (n,), sw, sb, 1e-5),  # (the fresh path)
                F.layer_norm(st.tensor(x), [n], weight=sw, bias=sb, eps=1e-5)):  # (the forward)
        g = got.numpy()
        assert np.array_equal(np.isnan(g), np.isnan(want)) and np.isnan(g[1]).all()
        assert _bits(g[[0, 2]]) == _bits(want[[0, 2]])


# ---------------------------------------------------------------- found here (also on main), fixed in fix37


@pytest.mark.parametrize("view", ["split_with_sizes", "slice"])
def test_view_under_no_grad_requires_grad(view):
    def make(lib):
        x = lib.zeros(6, 4, requires_grad=True)
        with lib.no_grad():
            return x.split_with_sizes([2, 4])[0] if view == "split_with_sizes" else x[1:]
    assert make(torch).requires_grad is True
    assert make(st).requires_grad is True


@pytest.mark.parametrize("value", [65520.0, 2.0**40])
def test_threshold_half_value_overflow(value):
    t = torch.tensor([0.0, 1.0, 2.0], dtype=torch.float16)
    with pytest.raises(RuntimeError, match="c10::Half without overflow"):
        TF.threshold(t, 1.0, value)
    with pytest.raises(RuntimeError, match="c10::Half without overflow"):
        F.threshold(st.tensor([0.0, 1.0, 2.0], dtype=st.float16), 1.0, value)
