"""Session 34, prelu34: F.prelu with an ``nn.Parameter`` weight (the nn.PReLU case) takes the fresh
row-major path as a plain weight does, and its recorded ViewBackward0 on the weight's edge is made
without reshape's entry. Checked against torch: values bit for bit (NaN words included), the graph,
the first and second derivatives, the weight view's layout and version; and against strided's own
plain-weight call (the same bits, the same graph)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import strided
import strided.nn.functional as F


def _graph(fn) -> object:
    if fn is None:
        return None
    return (fn.name(), tuple(_graph(f) for f, _ in fn.next_functions))


def _make(M, xv: np.ndarray, wv: np.ndarray, layout: str, param: bool, dtype: str):
    dt = getattr(M, dtype)
    if layout == "transposed" and xv.ndim >= 2:
        x = M.tensor(np.ascontiguousarray(np.swapaxes(xv, 0, -1)), dtype=dt).transpose(0, -1)
    elif layout == "sliced" and xv.ndim >= 1:
        big = np.repeat(xv, 2, axis=-1)
        x = M.tensor(big, dtype=dt)[..., ::2]
    else:
        x = M.tensor(xv, dtype=dt)
    x.requires_grad_()
    w = M.tensor(wv, dtype=dt)
    w = M.nn.Parameter(w) if param else w.requires_grad_()
    return x, w


_SHAPES = [((2, 3, 4), (3,)), ((2, 3, 4), (1,)), ((4, 3), (3,)), ((5,), (1,)), ((), (1,)), ((2, 3, 4), ()),
           ((5,), ()), ((0, 3), (3,)), ((2, 3, 0), (3,)), ((3, 1), (1,))]


@pytest.mark.parametrize("xs,ws", _SHAPES)
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "sliced"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_parameter_weight_matches_torch_to_the_second_order(xs, ws, layout, dtype) -> None:
    rng = np.random.default_rng(len(xs) * 7 + len(ws))
    xv = rng.choice([0.0, -0.0, 1.5, -2.0, 0.25, -0.75, np.nan, np.inf, -np.inf], size=xs)
    wv = rng.choice([0.25, -0.5, np.nan, 1.5, 0.0], size=ws)
    out = []
    for M, F_ in ((torch, TF), (strided, F)):
        x, w = _make(M, xv, wv, layout, True, dtype)
        r = F_.prelu(x, w)
        g = M.ones_like(r).requires_grad_() if r.numel() else M.zeros(r.shape, dtype=r.dtype, requires_grad=True)
        gi, gw = M.autograd.grad(r, (x, w), g, create_graph=True)
        loss = (gi * gi * 1.5).sum() + (gw * gw).sum() + (gi * x).sum()
        second = M.autograd.grad(loss, (g, x, w), allow_unused=True)
        view = r.grad_fn.next_functions[1][0]
        out.append((_graph(r.grad_fn), r.detach().numpy().copy(), tuple(r.shape), r.stride(),
                    gi.detach().numpy(), gw.detach().numpy(),
                    [None if s is None else s.numpy() for s in second], view.name(),
                    w._version, w.grad is None))
    t, s = out
    assert s[0] == t[0]
    assert s[1].tobytes() == t[1].tobytes()  # (bits: NaN words and signed zeros)
    assert s[2] == t[2]
    assert s[3] == t[3]  # (zero-size too: the input's own strides, (0, 0) for one made from an array)
    np.testing.assert_array_equal(s[4], t[4])
    np.testing.assert_array_equal(s[5], t[5])
    for a, b in zip(t[6], s[6]):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(b, a, rtol=1e-6 if dtype == "float32" else 1e-14, atol=0)
    assert s[7:] == t[7:]


@pytest.mark.parametrize("xs,ws", _SHAPES)
def test_parameter_weight_is_the_plain_weight_call(xs, ws) -> None:
    """The Parameter's call (now the fresh path) and a plain tensor weight's: the same bits, graph,
    gradients (the weight's gradient lands in the Parameter's .grad through the view's node)."""
    rng = np.random.default_rng(3)
    xv = rng.standard_normal(xs)
    wv = rng.standard_normal(ws)
    res = []
    for param in (True, False):
        x, w = _make(strided, xv, wv, "contiguous", param, "float64")
        r = F.prelu(x, w)
        r.backward(strided.ones_like(r))
        res.append((_graph(r.grad_fn), r.detach().numpy().tobytes(), x.grad.numpy().tobytes(),
                    w.grad.numpy().tobytes(), tuple(w.grad.shape), w.grad.__class__))
    assert res[0] == res[1]


def test_weight_view_node_is_fresh_per_call_and_not_under_no_grad() -> None:
    """Each recorded call has its own ViewBackward0 (as torch); under no_grad nothing is recorded."""
    x = strided.randn(2, 3, 4).requires_grad_()
    w = strided.nn.Parameter(strided.full((3,), 0.25))
    a, b = F.prelu(x, w), F.prelu(x, w)
    va, vb = a.grad_fn.next_functions[1][0], b.grad_fn.next_functions[1][0]
    assert va.name() == vb.name() == "ViewBackward0" and va is not vb
    assert va.next_functions[0][0] is vb.next_functions[0][0]  # (the weight's one AccumulateGrad)
    with strided.no_grad():
        c = F.prelu(x, w)
    assert c.grad_fn is None and not c.requires_grad
    x2 = strided.randn(2, 3, 4)  # (an input outside autograd: only the weight's edge)
    d = F.prelu(x2, w)
    t = TF.prelu(torch.tensor(x2.numpy()), torch.nn.Parameter(torch.full((3,), 0.25)))
    assert _graph(d.grad_fn) == _graph(t.grad_fn)
    assert d.detach().numpy().tobytes() == t.detach().numpy().tobytes()


@pytest.mark.parametrize("xs,ws", [((4, 3), (3,)), ((2, 3, 4), (1,)), ((5,), (1,)), ((1,), (1,)), ((), ())])
def test_saved_tensors_are_torchs(xs, ws) -> None:
    """``_saved_self`` / ``_saved_weight`` of the node (the kernel's weight: reshaped where the dims
    differ), including ``F.prelu(w, w)``, where both names are one tensor."""
    rng = np.random.default_rng(5)
    xv, wv = rng.standard_normal(xs), rng.standard_normal(ws)
    got = []
    for M, F_ in ((torch, TF), (strided, F)):
        x = M.tensor(xv, requires_grad=True)
        w = M.nn.Parameter(M.tensor(wv))
        r = F_.prelu(x, w)
        same = F_.prelu(w, w) if ws == (1,) else r
        n, m = r.grad_fn, same.grad_fn
        got.append([(tuple(t.shape), t.detach().numpy().tobytes(), t.requires_grad)
                    for t in (n._saved_self, n._saved_weight, m._saved_self, m._saved_weight)])
    assert got[0] == got[1]
