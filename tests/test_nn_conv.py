"""F.conv1d / F.conv2d against torch.nn.functional: values, shapes, strides (channels_last kept),
gradients (first and second order), error classes and first lines; watch shows the window view
and no im2col copy."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as TF
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
import strided.nn.functional as F
from oracle_helpers import assert_same_tensor, same_error

TOL = {"float32": (2e-5, 2e-5), "float64": (1e-11, 1e-11), "float16": (2e-3, 2e-3)}
RNG = np.random.default_rng(25)


def pair(a: np.ndarray, grad: bool = False) -> tuple[torch.Tensor, st.Tensor]:
    t, s = torch.from_numpy(a.copy()), st.from_numpy(a.copy())
    if grad:
        t.requires_grad_(True)
        s.requires_grad_(True)
    return t, s


def rand(*shape: int, dtype: str = "float64") -> np.ndarray:
    return RNG.standard_normal(shape).astype(dtype)


def layouts(a: np.ndarray, kind: str) -> tuple[torch.Tensor, st.Tensor]:
    """``a`` in torch and strided, laid out as ``kind``: contiguous, channels_last, transposed
    spatial dims (a permuted view) or sliced with a step."""
    t, s = pair(a)
    if kind == "channels_last":
        return t.contiguous(memory_format=torch.channels_last), s.contiguous(memory_format=st.channels_last)
    if kind == "transposed":
        tt, ss = pair(np.ascontiguousarray(np.swapaxes(a, -1, -2)))
        return tt.transpose(-1, -2), ss.transpose(-1, -2)
    if kind == "sliced":
        big = np.repeat(a, 2, axis=-1)
        tt, ss = pair(big)
        return tt[..., ::2], ss[..., ::2]
    return t, s


CASES = [
    ((2, 4, 7, 6), (6, 4, 3, 2), {}),
    ((2, 4, 7, 6), (6, 4, 3, 3), {"stride": 2, "padding": 1}),
    ((2, 4, 7, 6), (6, 2, 3, 2), {"groups": 2, "dilation": (2, 1), "padding": "same"}),
    ((2, 4, 8, 9), (4, 1, 2, 3), {"groups": 4, "stride": (2, 3), "padding": (1, 2)}),
    ((4, 5, 5), (3, 4, 1, 1), {"padding": "valid"}),  # unbatched
    ((0, 4, 5, 5), (3, 4, 3, 3), {}),  # an empty batch
    ((1, 1, 5, 5), (2, 1, 5, 5), {}),
    ((2, 3, 6, 5), (3, 1, 3, 3), {"groups": 3, "padding": 1}),  # depthwise
]


@pytest.mark.filterwarnings("ignore:Using padding='same'")
@pytest.mark.parametrize("kind,dtype", [("contiguous", "float64"), ("channels_last", "float32"),
                                        ("transposed", "float64"), ("sliced", "float32")])
@pytest.mark.parametrize("xs,ws,kw", CASES)
def test_conv2d_values_strides_and_gradients(xs, ws, kw, kind, dtype):
    if kind == "channels_last" and len(xs) != 4:
        kind = "transposed"
    a, w, b = rand(*xs, dtype=dtype), rand(*ws, dtype=dtype), rand(ws[0], dtype=dtype)
    tx, sx = layouts(a, kind)
    tx.requires_grad_(True)
    sx.requires_grad_(True)
    tw, sw = pair(w, grad=True)
    tb, sb = pair(b, grad=True)
    ty, sy = TF.conv2d(tx, tw, tb, **kw), F.conv2d(sx, sw, sb, **kw)
    assert_same_tensor(sy.detach(), ty.detach(), TOL)
    assert sy.grad_fn.name() == ty.grad_fn.name()
    g = rand(*ty.shape, dtype=dtype)
    tg = torch.autograd.grad(ty, (tx, tw, tb), torch.from_numpy(g))
    sg = st.autograd.grad(sy, (sx, sw, sb), st.from_numpy(g))
    for s_, t_ in zip(sg, tg):
        assert_same_tensor(s_, t_, TOL, strides=False)


@pytest.mark.parametrize("xs,ws,kw", [CASES[1], CASES[2], CASES[3]])
def test_conv2d_double_backward(xs, ws, kw):
    a, w = rand(*xs), rand(*ws)
    (tx, sx), (tw, sw) = pair(a, True), pair(w, True)
    ty, sy = TF.conv2d(tx, tw, **kw), F.conv2d(sx, sw, **kw)
    g = rand(*ty.shape)
    tg = torch.autograd.grad(ty, (tx, tw), torch.from_numpy(g), create_graph=True)
    sg = st.autograd.grad(sy, (sx, sw), st.from_numpy(g), create_graph=True)
    for s_, t_ in zip(sg, tg):
        assert_same_tensor(s_.detach(), t_.detach(), TOL, strides=False)
    t2 = torch.autograd.grad((tg[0] ** 2).sum() + (tg[1] ** 3).sum(), (tx, tw))
    s2 = st.autograd.grad((sg[0] ** 2).sum() + (sg[1] ** 3).sum(), (sx, sw))
    for s_, t_ in zip(s2, t2):
        assert_same_tensor(s_, t_, TOL, strides=False)


@settings(max_examples=10, deadline=None)
@given(groups=hs.sampled_from([1, 2]), cg=hs.integers(1, 3), og=hs.integers(1, 2), h=hs.integers(3, 7),
       w=hs.integers(3, 7), k=hs.tuples(hs.integers(1, 3), hs.integers(1, 3)),
       stride=hs.tuples(hs.integers(1, 3), hs.integers(1, 3)), padding=hs.tuples(hs.integers(0, 2), hs.integers(0, 2)),
       dilation=hs.tuples(hs.integers(1, 2), hs.integers(1, 2)), kind=hs.sampled_from(["contiguous", "channels_last"]))
def test_conv2d_hypothesis(groups, cg, og, h, w, k, stride, padding, dilation, kind):
    a, wt, b = rand(2, groups * cg, h, w), rand(groups * og, cg, *k), rand(groups * og)
    tx, sx = layouts(a, kind)
    tx.requires_grad_(True)
    sx.requires_grad_(True)
    (tw, sw), (tb, sb) = pair(wt, True), pair(b, True)
    kw = {"stride": stride, "padding": padding, "dilation": dilation, "groups": groups}
    fits = all(n + 2 * p >= d * (kk - 1) + 1 for n, p, d, kk in zip((h, w), padding, dilation, k))
    agree("conv2d", (tx, tw, tb), (sx, sw, sb), kw, fits)


def agree(name: str, targs: tuple, sargs: tuple, kw: dict, fits: bool) -> None:
    """torch's and strided's F.<name> give the same values and gradients, or (not ``fits``) the same error."""
    if not fits:
        same_error(lambda: getattr(TF, name)(*targs, **kw), lambda: getattr(F, name)(*sargs, **kw))
        return
    ty, sy = getattr(TF, name)(*targs, **kw), getattr(F, name)(*sargs, **kw)
    assert_same_tensor(sy.detach(), ty.detach(), TOL)
    g = rand(*ty.shape)
    tg = torch.autograd.grad(ty, targs, torch.from_numpy(g))
    sg = st.autograd.grad(sy, sargs, st.from_numpy(g))
    for s_, t_ in zip(sg, tg):
        assert_same_tensor(s_, t_, TOL, strides=False)


@settings(max_examples=8, deadline=None)
@given(n=hs.integers(1, 2), groups=hs.sampled_from([1, 2]), cg=hs.integers(1, 2), og=hs.integers(1, 2),
       length=hs.integers(3, 9), k=hs.integers(1, 3), stride=hs.integers(1, 3), padding=hs.integers(0, 2),
       dilation=hs.integers(1, 2), batched=hs.booleans())
def test_conv1d_against_torch(n, groups, cg, og, length, k, stride, padding, dilation, batched):
    xs = (n, groups * cg, length) if batched else (groups * cg, length)
    a, w, b = rand(*xs), rand(groups * og, cg, k), rand(groups * og)
    (tx, sx), (tw, sw), (tb, sb) = pair(a, True), pair(w, True), pair(b, True)
    kw = {"stride": stride, "padding": padding, "dilation": dilation, "groups": groups}
    agree("conv1d", (tx, tw, tb), (sx, sw, sb), kw, length + 2 * padding >= dilation * (k - 1) + 1)


def test_conv2d_integers_and_half():
    a, w = RNG.integers(-3, 4, (1, 2, 4, 4)), RNG.integers(-3, 4, (3, 2, 2, 2))
    (tx, sx), (tw, sw) = pair(a), pair(w)
    assert_same_tensor(F.conv2d(sx, sw), TF.conv2d(tx, tw), TOL)
    a, w = rand(1, 2, 4, 4, dtype="float16"), rand(3, 2, 2, 2, dtype="float16")
    (tx, sx), (tw, sw) = pair(a), pair(w)
    assert_same_tensor(F.conv2d(sx, sw, padding=1), TF.conv2d(tx, tw, padding=1), TOL)


ERRORS = [
    ((2, 3), (4, 3, 3, 3), {}),
    ((1, 2, 5, 5), (4, 3, 3, 3), {}),
    ((1, 3, 5, 5), (4, 3, 3), {}),
    ((1, 3, 2, 2), (4, 3, 3, 3), {}),
    ((1, 4, 5, 5), (4, 2, 3, 3), {"groups": 3}),
    ((1, 4, 5, 5), (3, 2, 3, 3), {"groups": 2}),
    ((1, 3, 5, 5), (4, 3, 3, 3), {"stride": 0}),
    ((1, 3, 5, 5), (4, 3, 3, 3), {"padding": -1}),
    ((1, 3, 5, 5), (4, 3, 3, 3), {"padding": "same", "stride": 2}),
    ((1, 3, 5, 5), (4, 3, 3, 3), {"padding": "foo"}),
    ((1, 3, 5, 5), (4, 3, 3, 3), {"dilation": 0}),
    ((1, 3, 5, 5), (4, 3, 3, 3), {"stride": (1, 1, 1)}),
    ((1, 3, 5, 5), (4, 3, 3, 3), {"groups": 0}),
    ((1, 3, 5, 5), (4, 3, 3, 3), {"bias": 3}),
]


@pytest.mark.parametrize("xs,ws,kw", ERRORS)
def test_conv2d_errors_like_torch(xs, ws, kw):
    kw = dict(kw)
    nb = kw.pop("bias", None)
    (tx, sx), (tw, sw) = pair(rand(*xs, dtype="float32")), pair(rand(*ws, dtype="float32"))
    tb, sb = pair(rand(nb, dtype="float32")) if nb else (None, None)
    same_error(lambda: TF.conv2d(tx, tw, tb, **kw), lambda: F.conv2d(sx, sw, sb, **kw))


def test_conv_dtype_and_rank_errors_like_torch():
    (tx, sx), (tw, sw) = pair(rand(1, 3, 5, 5, dtype="float32")), pair(rand(4, 3, 3, 3))
    same_error(lambda: TF.conv2d(tx, tw), lambda: F.conv2d(sx, sw))
    (tx, sx), (tw, sw) = pair(rand(1, 3, 5, 5)), pair(rand(4, 3, 3))
    same_error(lambda: TF.conv1d(tx, tw), lambda: F.conv1d(sx, sw))


def test_watch_shows_the_window_view_and_no_im2col_copy():
    x, w = st.randn(2, 3, 8, 8), st.randn(4, 3, 3, 3)
    with st.watch() as seen:
        F.conv2d(x, w, padding=1)
    assert [(s.name, s.kind) for s in seen.steps] == [("pad", "copy"), ("as_strided", "view"), ("conv2d", "compute")]
    window = seen.steps[1].output
    assert window.shape == (2, 3, 8, 8, 3, 3) and window.strides == (300, 100, 10, 1, 10, 1)
    assert seen.bytes_copied == 2 * 3 * 10 * 10 * 4  # the padded copy, nothing of window size
    with st.watch() as seen:  # no padding: the windows are a view of the input itself
        F.conv2d(x, w, stride=2)
    assert [(s.name, s.kind) for s in seen.steps] == [("as_strided", "view"), ("conv2d", "compute")]
    assert seen.bytes_copied == 0 and seen.steps[0].inputs[0].strides == x.stride()


def test_channels_last_is_padded_channels_last_and_read_in_place():
    x, w = st.randn(1, 3, 6, 6).contiguous(memory_format=st.channels_last), st.randn(2, 3, 3, 3)
    with st.watch() as seen:
        y = F.conv2d(x, w, padding=1)
    window = seen.steps[1].output
    assert window.strides[1] == 1  # the channels stay the unit-stride dim: no transposing copy
    assert seen.bytes_copied == 3 * 8 * 8 * 4
    assert y.is_contiguous(memory_format=st.channels_last)


@pytest.mark.parametrize("kw", [{"stride": [2]}, {"padding": (1,)}, {"padding": [1, 2]}, {"stride": (1, True)},
                                {"dilation": []}, {"stride": 2.0}, {"groups": 1.0}])
def test_conv2d_argument_forms_as_torch_parses_them(kw):
    (tx, sx), (tw, sw) = pair(rand(1, 2, 5, 5)), pair(rand(3, 2, 3, 3))
    try:
        want = TF.conv2d(tx, tw, **kw)
    except (RuntimeError, TypeError) as e:
        with pytest.raises(type(e)):
            F.conv2d(sx, sw, **kw)
        return
    assert_same_tensor(F.conv2d(sx, sw, **kw), want, TOL)


def test_small_cnn_step_equals_torch():
    """conv -> batch norm (training) -> relu -> max pool -> conv (channels_last input) -> avg pool
    -> linear -> cross entropy: the loss and every parameter's gradient as PyTorch's (float32)."""
    shapes = {"w1": (4, 3, 3, 3), "b1": (4,), "g": (4,), "beta": (4,), "w2": (6, 4, 3, 3), "wl": (5, 6), "bl": (5,)}
    values = {k: (RNG.standard_normal(s) * 0.5).astype("float32") for k, s in shapes.items()}
    x = RNG.standard_normal((4, 3, 8, 8)).astype("float32")
    labels = np.array([0, 3, 1, 4])

    def run(L, FF):
        p = {k: L.from_numpy(v.copy()).requires_grad_(True) for k, v in values.items()}
        rm, rv = L.zeros(4), L.ones(4)
        h = FF.conv2d(L.from_numpy(x.copy()), p["w1"], p["b1"], padding=1)
        h = FF.max_pool2d(FF.relu(FF.batch_norm(h, rm, rv, p["g"], p["beta"], training=True)), 2)
        h = FF.conv2d(h.contiguous(memory_format=L.channels_last), p["w2"], stride=1, padding="same")
        h = FF.avg_pool2d(h, 4).flatten(1)
        loss = FF.cross_entropy(FF.linear(h, p["wl"], p["bl"]), L.from_numpy(labels))
        loss.backward()
        return loss, p, rm, rv

    tl, tp, trm, trv = run(torch, TF)
    sl, sp, srm, srv = run(st, F)
    np.testing.assert_allclose(sl.item(), tl.item(), rtol=1e-5)
    for k in shapes:
        np.testing.assert_allclose(sp[k].grad.numpy(), tp[k].grad.numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(srm.numpy(), trm.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(srv.numpy(), trv.numpy(), rtol=1e-5, atol=1e-6)
