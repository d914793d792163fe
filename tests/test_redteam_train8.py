"""Red-team tests of branch train8: .data version counters, F.linear's row-major backward, the
gradient steal. Each compares strided with PyTorch (or with the general path)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import strided
import strided.nn.functional as F
from strided.nn.functional import layers

torch = pytest.importorskip("torch")


def _outcome(fn, lib):
    try:
        return ("ok", fn(lib))
    except RuntimeError as e:
        return ("error", "modified by an inplace operation" in str(e))


def _exp_on_data_then_write(lib):
    # exp_ saves its output (the .data tensor); a later write through it must refuse the backward,
    # however the storage's own counter (x's, bumped twice here) compares
    x = lib.tensor([1.0, 2.0, 3.0])
    w = lib.tensor([0.5, 0.5, 0.5], requires_grad=True)
    d = x.data
    d.mul_(w)
    d.exp_()
    with lib.no_grad():
        x.add_(0)
        x.add_(0)
        d.mul_(1)
    d.sum().backward()
    return w.grad.tolist()


def _exp_on_data(lib):
    x = lib.tensor([1.0, 2.0, 3.0])
    w = lib.tensor([0.5, 0.5, 0.5], requires_grad=True)
    d = x.data
    d.mul_(w)
    d.exp_()
    d.sum().backward()
    return w.grad.tolist()


def _exp_on_view_of_data(lib):
    x = lib.tensor([1.0, 2.0, 3.0])
    w = lib.tensor([0.5, 0.5, 0.5], requires_grad=True)
    v = x.data[1:]
    v.mul_(w[1:])
    v.exp_()
    x.data.sum()  # (another .data, dropped)
    v.sum().backward()
    return w.grad.tolist()


def _parameter_of_data(lib):
    # Parameter(x.data) shares x.data's counter (PyTorch's detach/alias): a write through x.data
    # after p was saved must refuse the backward, not give a gradient of the new values
    x = lib.tensor([1.0, 2.0, 3.0])
    d = x.data
    p = lib.nn.Parameter(d)
    y = (p * p).sum()
    with lib.no_grad():
        d.mul_(2)
    y.backward()
    return p.grad.tolist()


@pytest.mark.parametrize("fn", [_exp_on_data_then_write, _exp_on_data, _exp_on_view_of_data, _parameter_of_data])
def test_saved_data_tensor_version_check_as_torch(fn):
    got, want = _outcome(fn, strided), _outcome(fn, torch)
    assert got[0] == want[0], (got, want)
    if got[0] == "ok":
        np.testing.assert_allclose(got[1], want[1], rtol=1e-6)
    else:
        assert got[1] and want[1]


def test_versions_of_data_aliases_as_torch():
    def run(lib):
        x = lib.zeros(4, 3)
        _ = x._version
        d = x.data
        p = lib.nn.Parameter(d)
        s = d.as_subclass(lib.Tensor) if lib is strided else d.as_subclass(torch.Tensor)
        seen = []
        for t in (x, d, p, s, d[1]):
            with lib.no_grad():
                t.add_(1)
            seen.append((x._version, d._version, p._version, s._version))
        return seen

    assert run(strided) == run(torch)


def _linear_grads(xn, wn, bn, fast):
    layers._FAST_LINEAR = fast
    try:
        x = strided.tensor(xn, requires_grad=True)
        w = strided.tensor(wn, requires_grad=True)
        b = strided.tensor(bn, requires_grad=True)
        y = F.linear(x, w, b)
        y.backward(strided.full(y.shape, 0.1, dtype=y.dtype))
        return [t.detach().numpy().copy() for t in (y, x.grad, w.grad, b.grad)]
    finally:
        layers._FAST_LINEAR = True


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 600), k=st.integers(1, 9), m=st.integers(2, 9), f64=st.booleans(),
       bshape=st.sampled_from(["1", "0d", "m"]), seed=st.integers(0, 2**32 - 1))
def test_linear_broadcast_bias_grad_bits_as_general_path(n, k, m, f64, bshape, seed):
    rng = np.random.default_rng(seed)
    dt = np.float64 if f64 else np.float32
    xn = rng.standard_normal((n, k)).astype(dt)
    wn = rng.standard_normal((m, k)).astype(dt)
    bn = rng.standard_normal({"1": (1,), "0d": (), "m": (m,)}[bshape]).astype(dt)
    fast, general = _linear_grads(xn, wn, bn, True), _linear_grads(xn, wn, bn, False)
    for a, b in zip(fast, general):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)


def test_linear_bias_of_one_grad_bits():
    rng = np.random.default_rng(0)
    xn = rng.standard_normal((513, 33)).astype(np.float32)
    wn = rng.standard_normal((7, 33)).astype(np.float32)
    bn = rng.standard_normal((1,)).astype(np.float32)
    fast, general = _linear_grads(xn, wn, bn, True), _linear_grads(xn, wn, bn, False)
    np.testing.assert_array_equal(fast[3], general[3])


def _exp_on_view_double_backward(lib):
    x = lib.tensor([0.5, -1.5, 2.0], dtype=lib.float64, requires_grad=True)
    y = x * x
    y[1:].exp_()
    loss = (y * lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)).sum()
    (g,) = lib.autograd.grad(loss, x, create_graph=True)
    (g * lib.tensor([1.0, -1.0, 0.5], dtype=lib.float64)).sum().backward()
    return g.detach().tolist(), x.grad.tolist()


def test_exp_on_view_double_backward_as_torch():
    # (fixed after the red team: CopySlices under create_graph dropped the history its op's node
    # gave the view's gradient when the incoming gradient had none; see test_double_backward_inplace_view)
    got, want = _exp_on_view_double_backward(strided), _exp_on_view_double_backward(torch)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-12)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-12)
