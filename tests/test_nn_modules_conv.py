"""The forwards of nn.Conv1d/Conv2d, nn.MaxPool2d/AvgPool2d, nn.BatchNorm1d/2d and
nn.MultiheadAttention against torch.nn: the same module loaded from one state dict gives the same
values, gradients (parameters and inputs) and running statistics, float32 and float64,
non-contiguous inputs. They call F.conv1d, F.conv2d, F.max_pool2d, F.avg_pool2d, F.batch_norm and
F.multi_head_attention_forward (issue 25's functional part, written on another branch): this file
passes once both are merged."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided as st
import strided.nn as nn
from nn_module_oracle import both, close, floats, forward_backward, load_from, rng, seeded

__all__ = ["seeded"]  # (the autouse fixture, imported: every test here is seeded)


CONV = [
    ("Conv1d", (4, 6, 3), {}, (2, 4, 9)),
    ("Conv1d", (4, 6, 3), {"stride": 2, "padding": 2, "dilation": 2, "groups": 2, "bias": False}, (2, 4, 11)),
    ("Conv1d", (2, 3, 3), {"padding": "same"}, (2, 7)),  # unbatched
    ("Conv2d", (3, 5, 3), {}, (2, 3, 7, 6)),
    ("Conv2d", (4, 6, (3, 2)), {"stride": (2, 1), "padding": (1, 2), "dilation": (1, 2), "groups": 2}, (2, 4, 8, 7)),
    ("Conv2d", (4, 4, 3), {"padding": "same", "groups": 4, "dilation": 2}, (1, 4, 6, 6)),
    ("Conv2d", (2, 3, 1), {"padding": "valid"}, (2, 5, 4)),  # unbatched (C, H, W)
    # padding_mode: F.pad in that mode, then padding 0 (PyTorch's forward)
    ("Conv1d", (3, 4, 3), {"padding": 2, "padding_mode": "reflect"}, (2, 3, 6)),
    ("Conv1d", (2, 3, 4), {"padding": "same", "padding_mode": "circular", "dilation": 2}, (2, 9)),
    ("Conv2d", (3, 4, 3), {"padding": (1, 2), "padding_mode": "replicate", "stride": 2}, (2, 3, 6, 5)),
    ("Conv2d", (2, 4, (3, 2)), {"padding": 1, "padding_mode": "circular", "bias": False}, (1, 2, 4, 5)),
    ("Conv2d", (2, 2, 3), {"padding": "same", "padding_mode": "reflect", "groups": 2}, (2, 5, 5)),
]


POOL = [
    ("MaxPool2d", (2,), {}, (2, 3, 6, 6)),
    ("MaxPool2d", ((3, 2),), {"stride": (2, 1), "padding": 1, "dilation": (1, 2), "ceil_mode": True}, (2, 2, 7, 8)),
    ("AvgPool2d", (2,), {}, (2, 3, 6, 6)),
    ("AvgPool2d", (3,), {"stride": 2, "padding": 1, "ceil_mode": True, "count_include_pad": False}, (1, 2, 7, 6)),
    ("AvgPool2d", (2,), {"divisor_override": 3}, (3, 5, 4)),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(("name", "args", "kwargs", "shape"), CONV + POOL,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CONV + POOL)])
def test_conv_and_pool_values_and_gradients(name, args, kwargs, shape, dtype):
    t, s = both(name, *args, dtype=dtype, **kwargs)
    for transposed in (False, True):
        forward_backward(s, t, [floats(*shape, dtype=dtype, transposed=transposed)], dtype)


def test_max_pool_return_indices():
    t, s = both("MaxPool2d", 2, stride=1, return_indices=True)
    x = floats(2, 3, 5, 5)
    (tv, ti), (sv, si) = t(torch.from_numpy(x)), s(st.from_numpy(x))
    close(sv, tv, "float32")
    assert si.dtype is st.int64 and si.tolist() == ti.tolist()


BN = [
    ("BatchNorm1d", (3,), {}, (4, 3)),
    ("BatchNorm1d", (3,), {"momentum": None}, (4, 3, 5)),
    ("BatchNorm1d", (3,), {"affine": False, "eps": 1e-3}, (6, 3)),
    ("BatchNorm2d", (3,), {}, (2, 3, 4, 5)),
    ("BatchNorm2d", (3,), {"momentum": 0.3, "bias": False}, (2, 3, 4, 4)),
    ("BatchNorm2d", (3,), {"track_running_stats": False}, (2, 3, 2, 3)),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(("name", "args", "kwargs", "shape"), BN, ids=[f"{c[0]}-{i}" for i, c in enumerate(BN)])
def test_batch_norm_train_updates_running_stats_then_eval(name, args, kwargs, shape, dtype):
    t, s = both(name, *args, dtype=dtype, **kwargs)
    for step in range(2):  # (two steps: momentum=None averages cumulatively)
        forward_backward(s, t, [floats(*shape, dtype=dtype, transposed=step == 1) * 3 + 1], dtype)
        for (n, tb), (m, sb) in zip(t.named_buffers(), s.named_buffers()):
            assert n == m
            if sb.dtype is st.int64:
                assert sb.item() == tb.item() == step + 1
            else:
                close(sb, tb, dtype)
    t.eval(), s.eval()
    forward_backward(s, t, [floats(*shape, dtype=dtype)], dtype)
    if s.track_running_stats:
        assert s.num_batches_tracked.item() == 2  # (eval leaves the statistics alone)


MHA = [
    ((8, 2), {}, {}),
    ((8, 4), {"batch_first": True}, {}),
    ((8, 2), {"batch_first": True}, {"need_weights": False}),
    ((8, 2), {}, {"average_attn_weights": False}),
    ((8, 2), {"kdim": 3, "vdim": 5}, {}),
    ((8, 2), {"bias": False, "add_bias_kv": True, "add_zero_attn": True}, {}),
    ((8, 2), {"batch_first": True}, {"key_padding_mask": np.array([[False, False, True, False, True]] * 3)}),
    ((8, 2), {}, {"attn_mask": np.triu(np.ones((4, 5), dtype=bool), 1)}),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(("args", "kwargs", "call"), MHA, ids=[str(i) for i in range(len(MHA))])
def test_multihead_attention(args, kwargs, call, dtype):
    t, s = both("MultiheadAttention", *args, dtype=dtype, **kwargs)
    e = args[0]
    kdim, vdim = kwargs.get("kdim", e), kwargs.get("vdim", e)
    shapes = [(4, 3, e), (5, 3, kdim), (5, 3, vdim)]  # (L, N, E), (S, N, kdim), (S, N, vdim)
    if kwargs.get("batch_first"):
        shapes = [(b, a, c) for a, b, c in shapes]
    arrays = [floats(*shape, dtype=dtype) for shape in shapes]
    tcall = {k: torch.from_numpy(v) for k, v in call.items() if isinstance(v, np.ndarray)}
    scall = {k: st.from_numpy(v) for k, v in call.items() if isinstance(v, np.ndarray)}
    flags = {k: v for k, v in call.items() if not isinstance(v, np.ndarray)}
    tq, tk, tv = (torch.from_numpy(a.copy()).requires_grad_() for a in arrays)
    sq, sk, sv = (st.from_numpy(a.copy()).requires_grad_() for a in arrays)
    tout, tw = t(tq, tk, tv, **tcall, **flags)
    sout, sw = s(sq, sk, sv, **scall, **flags)
    close(sout, tout, dtype)
    if tw is None:
        assert sw is None
    else:
        close(sw, tw, dtype)
    g = floats(*tout.shape, dtype=dtype)
    (tout * torch.from_numpy(g)).sum().backward()
    (sout * st.from_numpy(g)).sum().backward()
    sparams = dict(s.named_parameters())
    for name, tp in t.named_parameters():
        close(sparams[name].grad, tp.grad, dtype)
    for a, b in ((sq, tq), (sk, tk), (sv, tv)):
        close(a.grad, b.grad, dtype)


def test_multihead_attention_self_attention_shares_one_input():
    t, s = both("MultiheadAttention", 8, 2, batch_first=True)
    x = floats(2, 5, 8)
    tx, sx = torch.from_numpy(x.copy()).requires_grad_(), st.from_numpy(x.copy()).requires_grad_()
    tout, _ = t(tx, tx, tx)
    sout, _ = s(sx, sx, sx)
    close(sout, tout, "float32")
    tout.sum().backward(), sout.sum().backward()
    close(sx.grad, tx.grad, "float32")


def _cnn(nnmod):
    return nnmod.Sequential(
        nnmod.Conv2d(1, 4, 3, padding=1), nnmod.BatchNorm2d(4), nnmod.ReLU(), nnmod.MaxPool2d(2),
        nnmod.Conv2d(4, 6, 3, stride=2, padding=1, bias=False), nnmod.BatchNorm2d(6), nnmod.ReLU(),
        nnmod.AvgPool2d(2), nnmod.Flatten(), nnmod.Linear(6, 3))


def test_small_cnn_trains_step_for_step_as_torch():
    torch.manual_seed(0)
    t, s = _cnn(torch.nn), _cnn(nn)
    assert repr(s) == repr(t)
    load_from(s, t)
    loss_t, loss_s = torch.nn.CrossEntropyLoss(), nn.CrossEntropyLoss()
    y = rng().integers(0, 3, size=8)
    for _ in range(3):
        x = floats(8, 1, 8, 8)
        lt = loss_t(t(torch.from_numpy(x)), torch.from_numpy(y))
        ls = loss_s(s(st.from_numpy(x)), st.from_numpy(y))
        close(ls, lt, "float32")
        t.zero_grad(), s.zero_grad()
        lt.backward(), ls.backward()
        with torch.no_grad(), st.no_grad():
            for (n, tp), (m, sp) in zip(t.named_parameters(), s.named_parameters()):
                assert n == m
                close(sp.grad, tp.grad, "float32")
                tp -= 0.1 * tp.grad
                sp -= 0.1 * sp.grad
        for (n, tb), (m, sb) in zip(t.named_buffers(), s.named_buffers()):
            assert n == m
            if sb.dtype is not st.int64:
                close(sb, tb, "float32")
    t.eval(), s.eval()
    x = floats(4, 1, 8, 8)
    close(s(st.from_numpy(x)), t(torch.from_numpy(x)), "float32")
