"""grad38: gradients exactly PyTorch's -- double backward of layer_norm / normalize from the saved
statistics (a ``.data`` write to the input included), side by side with torch."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import strided
import strided.nn.functional as F


def _both(fn):
    """``fn(L, FF)`` run with (torch, torch.nn.functional) then (strided, strided.nn.functional)."""
    return [fn(torch, TF), fn(strided, F)]


def _np(t) -> np.ndarray | None:
    return None if t is None else t.detach().numpy().copy()


@pytest.mark.parametrize("shape,k", [((5, 6), 1), ((2, 3, 4), 2), ((3, 1), 1), ((4, 7), 1)])
@pytest.mark.parametrize("affine", ["none", "weight", "both"])
@pytest.mark.parametrize("write", [False, True])
def test_layer_norm_double_backward(shape: tuple, k: int, affine: str, write: bool) -> None:
    rng = np.random.default_rng(len(shape) * 10 + k)
    a, g = rng.standard_normal(shape), rng.standard_normal(shape)
    norm = shape[len(shape) - k:]
    wv, bv = rng.standard_normal(norm), rng.standard_normal(norm)

    def run(L, FF):
        x = L.from_numpy(a.copy()).requires_grad_()
        gt = L.from_numpy(g.copy()).requires_grad_()
        w = None if affine == "none" else L.from_numpy(wv.copy()).requires_grad_()
        b = L.from_numpy(bv.copy()).requires_grad_() if affine == "both" else None
        y = FF.layer_norm(x, norm, w, b, 1e-5)
        if write:
            x.data.mul_(2.0)
            x.data.view(-1)[0] = -5.0
        params = [t for t in (x, w, b) if t is not None]
        firsts = L.autograd.grad(y, params, gt, create_graph=True)
        loss = sum((f * f).sum() for f in firsts) + (firsts[0] * x).sum()
        seconds = L.autograd.grad(loss, [x, gt, *params[1:]], allow_unused=True)
        return [_np(f) for f in firsts] + [_np(s) for s in seconds]

    want, got = _both(run)
    for w_, g_ in zip(want, got):
        if w_ is None:
            assert g_ is None or not np.any(g_)
        else:
            np.testing.assert_allclose(g_, w_, rtol=1e-9, atol=1e-11)


def test_layer_norm_first_derivative_same_with_create_graph() -> None:
    """Under create_graph the first derivative's values are the first-order rule's, bit for bit
    (PyTorch runs native_layer_norm_backward's kernel either way)."""
    a = np.random.default_rng(3).standard_normal((4, 9)).astype(np.float32)
    outs = []
    for cg in (False, True):
        x = strided.from_numpy(a.copy()).requires_grad_()
        (gx,) = strided.autograd.grad(F.layer_norm(x, (9,)).pow(3).sum(), x, create_graph=cg)
        outs.append(gx.detach().numpy())
    np.testing.assert_array_equal(outs[0], outs[1])


def test_layer_norm_node_names() -> None:
    names = _both(lambda L, FF: (lambda x: (lambda gx: (type(gx.grad_fn).__name__ if L is torch
                                                        else gx.grad_fn.name()))(
        L.autograd.grad(FF.layer_norm(x, (3,)).pow(2).sum(), x, create_graph=True)[0]))(
        L.tensor([[1.0, 2.0, 4.0]], requires_grad=True)))
    assert names[1] == names[0] == "NativeLayerNormBackwardBackward0"


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, float("inf")])
@pytest.mark.parametrize("dim", [1, 0, -1])
@pytest.mark.parametrize("write", [False, True])
def test_normalize_double_backward(p: float, dim: int, write: bool) -> None:
    rng = np.random.default_rng(int(p if p < 9 else 9) * 7 + dim)
    a, g = rng.standard_normal((4, 5)), rng.standard_normal((4, 5))

    def run(L, FF):
        x = L.from_numpy(a.copy()).requires_grad_()
        gt = L.from_numpy(g.copy()).requires_grad_()
        y = FF.normalize(x, p, dim)
        if write:
            x.data.mul_(2.0)
            x.data[0, 0] = -5.0
        (gx,) = L.autograd.grad(y, x, gt, create_graph=True)
        ggx, ggt = L.autograd.grad((gx * gx).sum() + (gx * x).sum(), (x, gt))
        return [_np(gx), _np(ggx), _np(ggt)]

    want, got = _both(run)
    for w_, g_ in zip(want, got):
        np.testing.assert_allclose(g_, w_, rtol=1e-9, atol=1e-12)


# --- the activations whose backward is a kernel: PyTorch's ...BackwardBackward0 nodes --------------

_ACTS = {
    "elu": lambda FF, x: FF.elu(x, 0.7),
    "selu": lambda FF, x: FF.selu(x),
    "celu": lambda FF, x: FF.celu(x, 1.3),
    "softplus": lambda FF, x: FF.softplus(x, 2.0, 1.5),
    "softplus_default": lambda FF, x: FF.softplus(x),
    "logsigmoid": lambda FF, x: FF.logsigmoid(x),
}


def _laid(L, a: np.ndarray, transposed: bool):
    """``a`` (3, 4) as a (4, 3) tensor: a transposed view, or a row-major copy."""
    if transposed:
        t = L.from_numpy(a.copy())
        return t.t() if L is torch else t.T
    return L.from_numpy(np.ascontiguousarray(a.T))


@pytest.mark.parametrize("name", sorted(_ACTS))
@pytest.mark.parametrize("tx", [False, True])
@pytest.mark.parametrize("tg", [False, True])
def test_activation_double_backward_like_torch(name: str, tx: bool, tg: bool) -> None:
    """First derivative (plain and under create_graph), second derivative towards the input and
    the incoming gradient, third towards the input: values (float64, rounding), strides and node
    names as PyTorch's, the first derivative's values the first-order ones bit for bit."""
    rng = np.random.default_rng(len(name) * 4 + tx * 2 + tg)
    a, g = rng.standard_normal((3, 4)) * 2, rng.standard_normal((3, 4))

    def run(L, FF):
        x = _laid(L, a, tx).requires_grad_()
        gt = _laid(L, g, tg).requires_grad_()
        (g1,) = L.autograd.grad(_ACTS[name](FF, x), x, gt)
        (gx,) = L.autograd.grad(_ACTS[name](FF, x), x, gt, create_graph=True)
        ggx, ggt = L.autograd.grad((gx * gx).sum() + (gx * x).sum(), (x, gt), create_graph=True)
        (gggx,) = L.autograd.grad((ggx * ggx).sum(), x)
        node = type(gx.grad_fn).__name__ if L is torch else gx.grad_fn.name()
        return [(_np(t), tuple(t.stride())) for t in (g1, gx, ggx, ggt, gggx)], node

    (want, wnode), (got, gnode) = _both(run)
    assert gnode == wnode
    np.testing.assert_array_equal(got[1][0], got[0][0])  # (create_graph's values are the kernel's)
    for (wv, ws), (gv, gs) in zip(want, got):
        assert gs == ws
        np.testing.assert_allclose(gv, wv, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", ["elu", "selu", "celu", "softplus", "logsigmoid"])
def test_activation_saved_names_and_values(name: str) -> None:
    """The first and second nodes' ``_saved_*`` names as PyTorch's, numbers equal, tensors equal."""
    def run(L, FF):
        x = L.tensor([1.0, -2.0, 0.5], requires_grad=True)
        y = _ACTS[name](FF, x)
        (gx,) = L.autograd.grad(y.sum(), x, create_graph=True)
        out = []
        for node in (y.grad_fn, gx.grad_fn):
            names = sorted(k for k in dir(node) if k.startswith("_saved_"))
            vals = [getattr(node, k) for k in names]
            out.append((names, [_np(v) if hasattr(v, "detach") else v for v in vals]))
        return out

    want, got = _both(run)
    for (wn, wv), (gn, gv) in zip(want, got):
        assert gn == wn
        for w_, g_ in zip(wv, gv):
            if isinstance(w_, np.ndarray):
                np.testing.assert_allclose(g_, w_, rtol=1e-6)
            else:
                assert float(g_) == pytest.approx(float(w_), rel=1e-6)


@pytest.mark.parametrize("name", sorted(_ACTS))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_activation_first_order_strides(name: str, dtype: str) -> None:
    """The first-order gradient's strides (TensorIterator over grad_output, then self) and bits
    at each mix of transposed / row-major input and gradient."""
    rng = np.random.default_rng(7)
    a = (rng.standard_normal((3, 4)) * 3).astype(dtype)
    g = rng.standard_normal((3, 4)).astype(dtype)
    for tx in (False, True):
        for tg in (False, True):
            def run(L, FF, tx=tx, tg=tg):
                x = _laid(L, a, tx).requires_grad_()
                (gx,) = L.autograd.grad(_ACTS[name](FF, x), x, _laid(L, g, tg))
                return tuple(gx.stride())

            want, got = _both(run)
            assert got == want
