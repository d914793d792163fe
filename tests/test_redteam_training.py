"""Red-team findings in strided.nn / the conv, pooling, batch_norm and attention functionals /
strided.optim / strided.save: each test failed before its fix, against PyTorch 2.13 side by side."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import strided as st
import strided.nn.functional as F
from oracle_helpers import assert_same_tensor, same_error

TOL = {"float32": (2e-5, 2e-5), "float64": (1e-10, 1e-10)}
RNG = np.random.default_rng(25)


def pair(a: np.ndarray, grad: bool = True) -> tuple[torch.Tensor, st.Tensor]:
    t, s = torch.from_numpy(a.copy()), st.from_numpy(a.copy())
    return (t.requires_grad_(True), s.requires_grad_(True)) if grad else (t, s)


def rand(*shape: int, dtype: str = "float32") -> np.ndarray:
    return RNG.standard_normal(shape).astype(dtype)


def check_grads(ts: tuple, ss: tuple) -> None:
    for t, s in zip(ts, ss):
        assert_same_tensor(s.grad, t.grad, TOL)


# ------------------------------------------------------------------ attention


@pytest.mark.parametrize("how", ["float_mask", "inf_key", "neg_scale"])
def test_sdpa_dead_rows_and_negative_scale(how: str) -> None:
    """A row whose every score is -inf gives zeros (PyTorch's safe softmax) for a float mask and
    for -inf in the inputs too, not only for a boolean mask; a negative scale is a scale (it had
    no real square root: ValueError)."""
    q, k, v = rand(2, 3, 4), rand(2, 5, 4), rand(2, 5, 2)
    mask, scale = None, None
    if how == "inf_key":
        q[0, :, 0], k[0, :, 0] = 1.0, -np.inf
    (qt, qs), (kt, ks), (vt, vs) = pair(q), pair(k), pair(v)
    if how == "float_mask":
        m = np.zeros((3, 5), np.float32)
        m[1] = -np.inf
        mask = pair(m, False)
    if how == "neg_scale":
        scale = -2.0
    yt = TF.scaled_dot_product_attention(qt, kt, vt, attn_mask=None if mask is None else mask[0], scale=scale)
    ys = F.scaled_dot_product_attention(qs, ks, vs, attn_mask=None if mask is None else mask[1], scale=scale)
    assert_same_tensor(ys.detach(), yt.detach(), TOL)
    yt.pow(2).sum().backward()
    ys.pow(2).sum().backward()
    check_grads((qt, kt, vt), (qs, ks, vs))


@pytest.mark.parametrize("dtype", [np.int64, np.float64, np.float16])
def test_sdpa_mask_dtype_is_checked(dtype: type) -> None:
    """A mask neither bool nor the query's dtype is PyTorch's error (an int mask was added)."""
    q, k, v = (pair(rand(2, n, 4), False) for n in (3, 5, 5))
    mt, ms = pair(np.zeros((3, 5), dtype), False)
    same_error(lambda: TF.scaled_dot_product_attention(q[0], k[0], v[0], attn_mask=mt),
               lambda: F.scaled_dot_product_attention(q[1], k[1], v[1], attn_mask=ms))


# ------------------------------------------------------------------ batch_norm


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_keeps_channels_last(training: bool) -> None:
    """A channels_last input gives a channels_last result (PyTorch's suggest_memory_format), a
    sliced channels_last one too; its gradient is PyTorch's."""
    a = rand(2, 4, 4, 3, dtype="float64")
    (t, s) = pair(a)
    xt, xs = t.permute(0, 3, 1, 2)[:, :, ::2], s.permute(0, 3, 1, 2)[:, :, ::2]
    stats = (None, None) if training else (pair(rand(3, dtype="float64"), False), pair(rand(3, dtype="float64") ** 2, False))
    yt = TF.batch_norm(xt, stats[0] and stats[0][0], stats[1] and stats[1][0], training=training)
    ys = F.batch_norm(xs, stats[0] and stats[0][1], stats[1] and stats[1][1], training=training)
    assert_same_tensor(ys.detach(), yt.detach(), TOL)
    yt.pow(3).sum().backward()
    ys.pow(3).sum().backward()
    check_grads((t,), (s,))


def test_batch_norm_empty_batch_and_1d_input() -> None:
    """An empty batch trains to an empty result and leaves the running statistics alone (it was
    refused, and the statistics it would have written were zeros); a 1-d input is PyTorch's
    IndexError (it was normalized as if it had channels, or crashed in NumPy). (PyTorch's empty
    result has strides (0, 0, 0), an accident of its kernel: not compared.)"""
    rt, rs = pair(np.full(3, 0.5, np.float32), False)
    vt, vs = pair(np.full(3, 2.0, np.float32), False)
    (xt, xs) = pair(np.zeros((0, 3, 2), np.float32))
    assert_same_tensor(F.batch_norm(xs, rs, vs, training=True).detach(),
                       TF.batch_norm(xt, rt, vt, training=True).detach(), TOL, strides=False)
    assert rs.tolist() == rt.tolist() and vs.tolist() == vt.tolist()
    for training in (True, False):
        same_error(lambda tr=training: TF.batch_norm(torch.ones(3), torch.zeros(0), torch.ones(0), training=tr),
                   lambda tr=training: F.batch_norm(st.ones(3), st.zeros(0), st.ones(0), training=tr))


@pytest.mark.parametrize("x,w,r", [("float16", "float16", "float32"), ("float16", "float32", "float16"),
                                   ("float64", "float32", "float32"), ("float32", "float32", "float64")])
def test_batch_norm_mixed_dtypes_are_pytorchs_errors(x: str, w: str, r: str) -> None:
    """PyTorch's mixed-dtype rule: a float16 input with a float16 weight and float32 statistics is
    refused (it was computed); the texts are PyTorch's."""
    def call(lib: object, fn: object) -> object:
        def dt(n: str) -> object:
            return getattr(lib, n)
        return lambda: fn(lib.ones(4, 3, dtype=dt(x)), lib.zeros(3, dtype=dt(r)), lib.ones(3, dtype=dt(r)),
                          lib.ones(3, dtype=dt(w)), None, True)
    same_error(call(torch, TF.batch_norm), call(st, F.batch_norm))


# ------------------------------------------------------------------ pooling


@pytest.mark.parametrize("shape,args", [((1, 1, 1, 6), ((4, 2), (5, 5), (1, 1), (2, 1), True)),
                                        ((2, 3, 4, 1), ((4, 3), (4, 4), (1, 1), (2, 2), True))])
def test_max_pool_window_of_padding_only(shape: tuple, args: tuple) -> None:
    """ceil_mode with dilation can make a window whose every tap is padding: its value is -inf,
    its index PyTorch's (each dim's first tap at or after 0), and its gradient goes nowhere (it
    went to element 0, which the window never read; PyTorch's own backward writes out of bounds
    there, so the gradient is checked against the windows that read the input)."""
    a = rand(*shape)
    (t, s) = pair(a)
    vt, it = TF.max_pool2d(t.detach(), *args, return_indices=True)
    vs, is_ = F.max_pool2d(s, *args, return_indices=True)
    assert_same_tensor(vs.detach(), vt, TOL)
    assert is_.tolist() == it.tolist()
    vs.sum().backward()
    assert s.grad.abs().sum().item() == 0.0  # (no window reads an element of the input)


def test_max_pool1d_with_indices_error_is_the_2d_kernels() -> None:
    """max_pool1d(..., return_indices=True) runs PyTorch's 2-d kernel and says so in its error."""
    same_error(lambda: TF.max_pool1d(torch.ones(2, 2, 3), 4, 1, 0, 1, False, True),
               lambda: F.max_pool1d(st.ones(2, 2, 3), 4, 1, 0, 1, False, True))


# ------------------------------------------------------------------ strided.load


def test_load_refuses_a_bool_storage_of_other_bytes() -> None:
    """A bool storage holding the byte 2 or 255 is a dtype lie (it loaded, then read True in
    one op and its byte in another: sum 3 where the printed values summed to 2); refused."""
    import io
    import json
    import zipfile

    meta = {"format": "strided.save", "version": 1, "storages": [{"dtype": "bool", "numel": 3}],
            "object": {"t": "tensor", "storage": 0, "shape": [3], "strides": [1], "offset": 0,
                       "requires_grad": False}}
    for raw, ok in ((b"\x01\x00\x01", True), (b"\x02\x01\xff", False)):
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as z:
            z.writestr("strided.json", json.dumps(meta))
            z.writestr("storages/0", raw)
        f = io.BytesIO(buf.getvalue())
        if ok:
            assert st.load(f).tolist() == [True, False, True]
        else:
            with pytest.raises(st.StridedRuntimeError, match="storage 0 is bool but holds the byte 2"):
                st.load(f)


# ------------------------------------------------------------------ convolution


@pytest.mark.parametrize("dtype", ["float64", "int64", "float32"])
def test_conv2d_grouped_channels_last_one_by_one_strides(dtype: str) -> None:
    """A grouped conv of a channels_last input with one output channel per group and a 1 x 1
    result: PyTorch's float64 / integer kernel concatenates the groups' results, and ``cat``
    reads that ambiguous layout as contiguous (found by test_nn_conv's hypothesis test)."""
    a = (rand(2, 2, 3, 3) * 3).astype(dtype)
    w = (rand(2, 1, 3, 3) * 3).astype(dtype)
    t, s = pair(a, False)
    tw, sw = pair(w, False)
    yt = TF.conv2d(t.contiguous(memory_format=torch.channels_last), tw, None, 1, 0, 1, 2)
    ys = F.conv2d(s.contiguous(memory_format=st.channels_last), sw, None, 1, 0, 1, 2)
    assert_same_tensor(ys, yt, TOL)


def test_conv_bool_error_names_pytorchs_kernel() -> None:
    for fn, tfn, shape in ((F.conv1d, TF.conv1d, (1, 2, 5)), (F.conv2d, TF.conv2d, (1, 2, 5, 5))):
        k = (3, 2, *[2] * (len(shape) - 2))
        same_error(lambda tfn=tfn, shape=shape, k=k: tfn(torch.ones(shape, dtype=torch.bool), torch.ones(k, dtype=torch.bool)),
                   lambda fn=fn, shape=shape, k=k: fn(st.ones(shape, dtype=st.bool), st.ones(k, dtype=st.bool)))


# ------------------------------------------------------------------ optim


@pytest.mark.parametrize("name,kw", [("SGD", {"lr": 0.1, "momentum": 0.9}), ("Adam", {"amsgrad": True}),
                                     ("AdamW", {}), ("RMSprop", {"centered": True, "momentum": 0.5})])
def test_optimizer_state_of_the_wrong_shape(name: str, kw: dict) -> None:
    """A state dict loaded from an optimizer of other shapes: the step fails with PyTorch's error
    (it was NumPy's ValueError from the fused update) and the parameter is what PyTorch leaves."""
    import torch.optim as to

    import strided.optim as so

    got = []
    for lib, optim in ((torch, to), (st, so)):
        p, q = lib.ones(2, requires_grad=True), lib.ones(3, requires_grad=True)
        first = getattr(optim, name)([p], **kw)
        p.grad = lib.ones(2)
        first.step()
        second = getattr(optim, name)([q], **kw)
        second.load_state_dict(first.state_dict())
        q.grad = lib.ones(3)
        with pytest.raises(RuntimeError) as info:
            second.step()
        got.append((str(info.value).splitlines()[0], q.tolist()))
    assert got[0] == got[1]


# ------------------------------------------------------------------ nn.init


@pytest.mark.filterwarnings("ignore:mean is more than 2 std")  # (PyTorch's warning for these tails)
@pytest.mark.parametrize("a,b", [(-9.0, -8.0), (5.0, 6.0), (-1.0, 2.0)])
def test_trunc_normal_tails(a: float, b: float) -> None:
    """trunc_normal_ draws from the truncated normal in its tails too (the inverse-CDF method
    gave -9.0 for every float32 draw on [-9, -8]): the sample mean is the analytic one."""
    import math

    import strided.nn.init as init

    def pdf(x: float) -> float:
        return math.exp(-x * x / 2) / math.sqrt(2 * math.pi)

    def cdf(x: float) -> float:
        return math.erfc(-x / math.sqrt(2)) / 2  # (erfc: the far tails keep their digits)

    mass = cdf(b) - cdf(a) if b <= 0 else cdf(-a) - cdf(-b)
    want = (pdf(a) - pdf(b)) / mass
    x = init.trunc_normal_(st.empty(4000), a=a, b=b)
    assert a <= x.min().item() and x.max().item() <= b
    assert abs(x.mean().item() - want) < 0.02, (x.mean().item(), want)
    same_error(lambda: torch.nn.init.trunc_normal_(torch.empty(3), a=2, b=-2),
               lambda: init.trunc_normal_(st.empty(3), a=2, b=-2))


@pytest.mark.parametrize("dtype", ["int8", "int32", "int64", "uint8", "uint16"])
def test_pooling_integer_dtypes_are_pytorchs(dtype: str) -> None:
    """Each pooling takes the integer dtypes PyTorch's CPU kernel is compiled for, and refuses the
    others with its error (avg_pool2d computed int32 and uint8; adaptive_avg_pool2d integers)."""
    calls = [lambda f, x: f.avg_pool2d(x, 2), lambda f, x: f.max_pool2d(x, 2),
             lambda f, x: f.max_pool1d(x[0], 2), lambda f, x: f.max_pool1d(x[0], 2, return_indices=True),
             lambda f, x: f.adaptive_avg_pool2d(x, 3), lambda f, x: f.adaptive_avg_pool2d(x, 2)]
    a = np.arange(32).reshape(1, 2, 4, 4).astype(dtype)
    for call in calls:
        t, s = pair(a, False)
        try:
            want = call(TF, t)
        except NotImplementedError:
            same_error(lambda call=call, t=t: call(TF, t), lambda call=call, s=s: call(F, s))
            continue
        got = call(F, s)
        for g, w in zip(got, want) if isinstance(want, tuple) else ((got, want),):
            assert_same_tensor(g, w, TOL)


def test_adaptive_avg_pool2d_keeps_channels_last() -> None:
    """Where the windows do not tile the input, the result of a channels_last input is
    channels_last as PyTorch's (it was contiguous); the gradient is PyTorch's."""
    t, s = pair(rand(2, 7, 5, 3))
    yt = TF.adaptive_avg_pool2d(t.permute(0, 3, 1, 2), (3, 2))
    ys = F.adaptive_avg_pool2d(s.permute(0, 3, 1, 2), (3, 2))
    assert_same_tensor(ys.detach(), yt.detach(), TOL)
    g = rand(2, 3, 3, 2)
    yt.backward(torch.from_numpy(g))
    ys.backward(st.from_numpy(g))
    check_grads((t,), (s,))


def test_save_a_modules_state_dict() -> None:
    """A module's state_dict() is an OrderedDict (as PyTorch's): strided.save refused it; it now
    round-trips as one, and loads into a fresh module and optimizer."""
    import io
    from collections import OrderedDict

    import strided.nn as nn
    import strided.optim as so

    model = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3))
    opt = so.Adam(model.parameters(), lr=0.1)
    model(st.ones(4, 2)).pow(2).sum().backward()
    opt.step()
    buf = io.BytesIO()
    st.save({"model": model.state_dict(), "opt": opt.state_dict()}, buf)
    back = st.load(io.BytesIO(buf.getvalue()))
    assert type(back["model"]) is OrderedDict and list(back["model"]) == list(model.state_dict())
    fresh = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3))
    fresh.load_state_dict(back["model"])
    so.Adam(fresh.parameters(), lr=0.1).load_state_dict(back["opt"])
    for (name, a), b in zip(model.state_dict().items(), fresh.state_dict().values()):
        assert a.tolist() == b.tolist(), name
