"""conv2d's compiled depthwise path and conv1d/conv2d's trimmed general path: the same bits as the
general path (and as the NumPy calls it replaced), PyTorch's values, the same gradients and the
same copies seen by watch / record_copies."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch
import torch.nn.functional as TF
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
import strided.nn.functional as F
from strided.kernels.native import _compiled
from strided.nn.functional import conv as C

# (the compiled call exists: not so in an install built without a C compiler, or STRIDED_NATIVE=0)
COMPILED = _compiled("_matkernel") is not None and hasattr(_compiled("_matkernel"), "conv2d_depthwise")

TOL = {"float32": (2e-5, 2e-5), "float64": (1e-11, 1e-11)}


def _bits(t: st.Tensor) -> tuple:
    a = t.numpy()
    return a.shape, t.stride(), a.dtype.str, np.ascontiguousarray(a).view(f"u{a.itemsize}").tobytes()


def _general(fn, *args, **kw):
    """``fn`` run with the compiled depthwise path off (the general path: contract_rows' NumPy calls)."""
    C._FAST_CONV = False
    try:
        return fn(*args, **kw)
    finally:
        C._FAST_CONV = True


def _laid(a: np.ndarray, kind: str) -> st.Tensor:
    if kind == "transposed":
        return st.from_numpy(np.ascontiguousarray(np.swapaxes(a, -1, -2))).transpose(-1, -2)
    if kind == "stepped":
        return st.from_numpy(np.repeat(a, 2, axis=-1))[..., ::2]
    if kind == "channels_last":
        return st.from_numpy(a.copy()).contiguous(memory_format=st.channels_last)
    if kind == "expanded":  # a batch of one image broadcast
        return st.from_numpy(a[:1].copy()).expand(*a.shape)
    return st.from_numpy(a.copy())


def _torch_of(s: st.Tensor) -> torch.Tensor:
    return torch.from_numpy(s.numpy().copy())


@settings(max_examples=150, deadline=None)
@given(n=hs.integers(0, 3), c=hs.integers(1, 3), h=hs.integers(1, 9), w=hs.integers(1, 9), kh=hs.integers(1, 4),
       kw=hs.integers(1, 4), sh=hs.integers(1, 3), sw=hs.integers(1, 2), ph=hs.integers(0, 2), pw=hs.integers(0, 2),
       dh=hs.integers(1, 2), dw=hs.integers(1, 2), bias=hs.booleans(), dtype=hs.sampled_from(["float32", "float64"]),
       kind=hs.sampled_from(["contiguous", "transposed", "stepped", "channels_last", "expanded"]),
       specials=hs.booleans(), seed=hs.integers(0, 2**32 - 1))
def test_depthwise_fast_path_bits_equal_general_path_and_torch(n, c, h, w, kh, kw, sh, sw, ph, pw, dh, dw, bias,
                                                               dtype, kind, specials, seed):
    rng = np.random.default_rng(seed)
    if h + 2 * ph < dh * (kh - 1) + 1 or w + 2 * pw < dw * (kw - 1) + 1:
        return
    a = rng.standard_normal((n, c, h, w)).astype(dtype)
    wt = rng.standard_normal((c, 1, kh, kw)).astype(dtype)
    if specials and a.size:  # signed zeros, infinities and NaNs (some with payloads)
        flat = a.reshape(-1)
        picks = rng.integers(0, flat.size, size=max(1, flat.size // 4))
        vals = np.array([-0.0, 0.0, np.inf, -np.inf, np.nan], dtype)
        flat[picks] = vals[rng.integers(0, len(vals), size=len(picks))]
        wt.reshape(-1)[rng.integers(0, wt.size)] = rng.choice(np.array([-0.0, 0.0, 1e-300, -np.inf], dtype))
    x = _laid(a, kind)
    wts = st.from_numpy(wt)
    b = st.from_numpy(rng.standard_normal(c).astype(dtype)) if bias else None
    args = (x, wts, b, (sh, sw), (ph, pw), (dh, dw), c)
    fast = F.conv2d(*args)
    slow = _general(F.conv2d, *args)
    assert _bits(fast) == _bits(slow)
    kwfast = F.conv2d(x, wts, b, stride=(sh, sw), padding=[ph, pw], dilation=(dh, dw), groups=c)  # (keywords: _conv)
    assert _bits(kwfast) == _bits(slow)
    if specials:  # (an infinite weight times the padding's zeros: NaN here, skipped by PyTorch's kernel)
        return
    want = TF.conv2d(_torch_of(x), torch.from_numpy(wt), None if b is None else _torch_of(b), (sh, sw), (ph, pw),
                     (dh, dw), c)
    rtol, atol = TOL[dtype]
    np.testing.assert_allclose(fast.numpy(), want.numpy(), rtol=rtol, atol=atol)
    assert fast.shape == tuple(want.shape)


def test_depthwise_bench_shapes_and_nan_payloads():
    rng = np.random.default_rng(3)
    for m, n in ((3, 4), (16, 16)):
        x = st.from_numpy(rng.standard_normal((1, 1, m, n)).astype(np.float32))
        w, b = st.from_numpy(rng.uniform(0.1, 0.9, (1, 1, 3, 3)).astype(np.float32)), st.tensor([0.5])
        got = F.conv2d(x, w, b)
        assert (C._conv2d_depthwise_fresh(x, w, b) is not None) == COMPILED  # (it takes the bench's rows)
        assert _bits(got) == _bits(_general(F.conv2d, x, w, b))
        want = TF.conv2d(_torch_of(x), _torch_of(w), _torch_of(b))
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=2e-5, atol=2e-5)
    # two NaNs of different payloads meet in one sum: the compiled call declines, NumPy's payload wins
    a = np.ones((1, 1, 3, 3), np.float32)
    a.view(np.uint32)[0, 0, 0, 0] = 0x7FC00001
    a.view(np.uint32)[0, 0, 1, 1] = 0xFFC00002
    x, w = st.from_numpy(a), st.ones(1, 1, 3, 3)
    assert _bits(F.conv2d(x, w)) == _bits(_general(F.conv2d, x, w))
    assert np.isnan(F.conv2d(x, w).numpy()).all()


def test_plain_geometry_is_geometry():
    rng = np.random.default_rng(5)
    cases = [((2, 4, 7, 6), (6, 4, 3, 2), (1, 0, 1, 1)), ((2, 4, 7, 6), (6, 2, 3, 3), (2, 1, [2, 1], 2)),
             ((2, 4, 8, 9), (4, 1, 2, 3), ((2, 3), (1, 2), 1, 4)), ((3, 2, 9), (4, 1, 3), (2, [1], (2,), 2)),
             ((0, 2, 9), (4, 2, 3), (1, 0, 1, 1)), ((1, 1, 3, 4), (1, 1, 3, 3), (1, 0, 1, 1))]
    for xs, ws, (s_, p_, d_, g_) in cases:
        nsp = len(xs) - 2
        for dtype in ("float32", "float64"):
            x, w = st.from_numpy(rng.standard_normal(xs).astype(dtype)), st.from_numpy(rng.standard_normal(ws).astype(dtype))
            b = st.from_numpy(rng.standard_normal(ws[0]).astype(dtype))
            plain = C._plain_geometry(nsp, x, w, b, s_, p_, d_, g_)
            assert plain == C._geometry(f"conv{nsp}d", nsp, x, w, b, s_, p_, d_, g_)
    x, w = st.randn(1, 2, 5, 5), st.randn(3, 2, 3, 3)
    # the spellings it leaves to _geometry (its parsing and errors)
    for s_, p_, d_, g_ in ((True, 0, 1, 1), (1, "same", 1, 1), (1, 0, 1, 2), (0, 0, 1, 1), (1, -1, 1, 1),
                           (1, 0, 1, 1.0), (1, 4, 9, 1), (np.int64(1), 0, 1, 1), ((1, 1, 1), 0, 1, 1)):
        assert C._plain_geometry(2, x, w, None, s_, p_, d_, g_) is None
    assert C._plain_geometry(2, x.double(), w, None, 1, 0, 1, 1) is None
    assert C._plain_geometry(2, x[0], w, None, 1, 0, 1, 1) is None  # unbatched


def _old_contract_per_offset(xw, w, groups, acc):
    """main's contract_per_offset (np.moveaxis spelling), for the bit comparison."""
    nsp = w.ndim - 2
    xg = C._grouped(xw, groups)
    k_axes = tuple(range(3, 3 + nsp))
    wg = np.ascontiguousarray(np.moveaxis(w.reshape(groups, w.shape[0] // groups, *w.shape[1:]), k_axes,
                                          tuple(range(nsp))), dtype=acc)
    unit_channels = xg.strides[2] == xg.itemsize and xg.shape[2] > 1
    total = None
    for offset in np.ndindex(*w.shape[2:]):
        xk = xg[(Ellipsis, *offset)]
        wk = wg[offset]
        if unit_channels:
            a = np.moveaxis(xk, 2, -1)
            b = np.swapaxes(wk, -1, -2).reshape(1, groups, *([1] * (nsp - 1)), *wk.shape[2:0:-1])
            part = np.matmul(a, b, dtype=acc)
        else:
            a = np.moveaxis(xk, 2, -2)
            b = wk.reshape(1, groups, *([1] * (nsp - 1)), *wk.shape[1:])
            part = np.matmul(b, a, dtype=acc)
        total = part if total is None else total + part
    return np.moveaxis(total, -1 if unit_channels else -2, 2)


@pytest.mark.parametrize("xs, ws, geo_args, kind", [
    ((5, 1, 9), (2, 1, 3), (1, 0, 1, 1), "contiguous"),
    ((3, 4, 11), (6, 2, 3), (2, 1, 2, 2), "stepped"),
    ((2, 4, 7, 6), (6, 4, 3, 2), (1, 0, 1, 1), "transposed"),
    ((2, 4, 7, 6), (4, 2, 3, 3), ((2, 1), 1, 1, 2), "channels_last"),
    ((2, 3, 6, 5), (3, 1, 3, 3), ((1, 2), 1, 1, 3), "contiguous"),
])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_contract_per_offset_bits_equal_the_moveaxis_spelling(xs, ws, geo_args, kind, dtype):
    rng = np.random.default_rng(7)
    nsp = len(xs) - 2
    x = _laid(rng.standard_normal(xs).astype(dtype), kind)
    w = st.from_numpy(rng.standard_normal(ws).astype(dtype))
    geo = C._geometry(f"conv{nsp}d", nsp, x, w, None, *geo_args)
    xp = C._padded(x, geo, C._channels_last(x))
    xw = C.windows(xp, geo)._np()
    new = C.contract_per_offset(xw, w._np(), geo.groups, np.dtype(dtype))
    old = _old_contract_per_offset(xw, w._np(), geo.groups, np.dtype(dtype))
    assert new.shape == old.shape and new.strides == old.strides
    assert np.ascontiguousarray(new).tobytes() == np.ascontiguousarray(old).tobytes()
    # and the whole op against torch
    tx = _torch_of(x)
    if kind == "channels_last":
        tx = tx.contiguous(memory_format=torch.channels_last)
    want = (TF.conv1d if nsp == 1 else TF.conv2d)(tx, _torch_of(w), None, *geo_args)
    got = (F.conv1d if nsp == 1 else F.conv2d)(x, w, None, *geo_args)
    np.testing.assert_allclose(got.numpy(), want.numpy(), *TOL[dtype])
    assert got.stride() == want.stride()


@pytest.mark.parametrize("nsp", [1, 2])
def test_zero_size_batch_and_unbatched(nsp):
    rng = np.random.default_rng(11)
    for xs in ((0, 2) + (5,) * nsp, (2,) + (5,) * nsp):
        x = st.from_numpy(rng.standard_normal(xs).astype(np.float32))
        w = st.from_numpy(rng.standard_normal((2, 1) + (3,) * nsp).astype(np.float32))
        b = st.from_numpy(rng.standard_normal(2).astype(np.float32))
        fn, tfn = (F.conv1d, TF.conv1d) if nsp == 1 else (F.conv2d, TF.conv2d)
        got, want = fn(x, w, b, 1, 1, 1, 2), tfn(_torch_of(x), _torch_of(w), _torch_of(b), 1, 1, 1, 2)
        assert got.shape == tuple(want.shape) and got.stride() == want.stride()
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("padding", [0, 1, "same"])
def test_gradients_unchanged_by_the_fast_path(padding):
    rng = np.random.default_rng(13)
    a, wa, ba = rng.standard_normal((2, 3, 6, 5)), rng.standard_normal((3, 1, 3, 3)), rng.standard_normal(3)

    def run(fast: bool):
        x, w, b = (st.from_numpy(v.copy()).requires_grad_(True) for v in (a, wa, ba))
        C._FAST_CONV = fast
        try:
            y = F.conv2d(x, w, b, 1, padding, 1, 3)
        finally:
            C._FAST_CONV = True
        assert y.grad_fn is not None and y.grad_fn.name() == "ConvolutionBackward0"
        (y * y).sum().backward()
        return y, x.grad, w.grad, b.grad

    for got, want in zip(run(True), run(False)):
        assert _bits(got.detach()) == _bits(want.detach())
    tx, tw, tb = (torch.from_numpy(v.copy()).requires_grad_(True) for v in (a, wa, ba))
    ty = TF.conv2d(tx, tw, tb, 1, padding, 1, 3)
    (ty * ty).sum().backward()
    for s, t in zip(run(True)[1:], (tx.grad, tw.grad, tb.grad)):
        np.testing.assert_allclose(s.numpy(), t.numpy(), rtol=1e-9, atol=1e-9)


def test_listeners_see_the_same_steps_and_copies():
    x, w, b = st.randn(1, 2, 6, 6), st.randn(2, 1, 3, 3), st.randn(2)
    with st.watch() as seen:
        y = F.conv2d(x, w, b, 1, 1, 1, 2)
    assert [(s.name, s.kind) for s in seen.steps] == [("pad", "copy"), ("as_strided", "view"), ("conv2d", "compute")]
    assert seen.bytes_copied == 2 * 8 * 8 * 4
    assert _bits(y) == _bits(F.conv2d(x, w, b, 1, 1, 1, 2))
    with st.record_copies() as copies:
        F.conv2d(x, w, b, 1, 1, 1, 2)
    assert [(c.nbytes, c.shape) for c in copies] == [(2 * 8 * 8 * 4, (1, 2, 8, 8))]
    x1, w1, b1 = st.randn(3, 1, 8), st.randn(2, 1, 3), st.randn(2)
    with st.watch() as seen:
        F.conv1d(x1, w1, b1)
    assert [(s.name, s.kind) for s in seen.steps] == [("as_strided", "view"), ("conv1d", "compute")]


def test_fpad_of_a_plain_layout_is_row_major():
    """The compiled path reads F.pad's copy in place as row-major rows (contract_rows' condition):
    F.pad makes that layout for every non-channels_last input."""
    rng = np.random.default_rng(17)
    for kind, (ph, pw) in itertools.product(("contiguous", "transposed", "stepped", "expanded"), ((1, 0), (0, 2), (1, 1))):
        x = _laid(rng.standard_normal((2, 3, 4, 5)).astype(np.float32), kind)
        p = F.pad(x, (pw, pw, ph, ph))._np()
        assert p.flags.c_contiguous and p.strides[-1] == 4 and p.strides[-2] == 4 * (5 + 2 * pw)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_depthwise_weight_and_bias_views(dtype):
    """The compiled call reads the weight and bias through their layouts over their storages:
    offsets, steps, transposes and broadcasts give the general path's bits."""
    rng = np.random.default_rng(19)
    x = st.from_numpy(rng.standard_normal((2, 3, 7, 6)).astype(dtype))
    big = st.from_numpy(rng.standard_normal((5, 2, 4, 4)).astype(dtype))
    bias_big = st.from_numpy(rng.standard_normal(9).astype(dtype))
    weights = [big[1:4, 1:2, :3, 1:], big[1:4, :1].transpose(-1, -2)[:, :, ::2, :3],
               st.from_numpy(rng.standard_normal((1, 1, 3, 3)).astype(dtype)).expand(3, 1, 3, 3)]
    biases = [None, bias_big[2:5], bias_big[::3], bias_big[4:5].expand(3)]
    for w, b in itertools.product(weights, biases):
        for args in ((1, 0, 1, 3), ((2, 1), (1, 2), (1, 2), 3)):
            got = F.conv2d(x, w, b, *args)
            assert _bits(got) == _bits(_general(F.conv2d, x, w, b, *args))
            if args[0] == 1:  # (the compiled call takes these; the strided rows' dropped part is over its limit)
                assert (C._conv2d_depthwise_fresh(x, w, b, *args) is not None) == COMPILED
            want = TF.conv2d(_torch_of(x), _torch_of(w), None if b is None else _torch_of(b), *args)
            np.testing.assert_allclose(got.numpy(), want.numpy(), *TOL[dtype])
