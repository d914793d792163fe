"""The fast paths of recording and of the backward pass (issue 23) against PyTorch and against
the plain ops they shortcut: tanh's and sin's fused gradients (the same bits as ``g * (1 - y * y)``
and ``g * x.cos()``), the
tensors mul saves, and the hooks' grad-mode context while the backward pass skips the entries'
slow path."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided

RNG = np.random.default_rng(23)


def _pair(a: np.ndarray):
    return strided.from_numpy(a.copy()).requires_grad_(), torch.from_numpy(a.copy()).requires_grad_()


# ---------------------------------------------------------------- tanh's fused gradient


# (op, the unfused formula of its gradient from g, x and y = op(x), under no_grad, PyTorch's op)
_FUSED = {"tanh": (strided.tanh, lambda g, x, y: g * (1 - y * y), torch.tanh),
          "sin": (strided.sin, lambda g, x, y: g * x.cos(), torch.sin)}


@pytest.mark.parametrize("op", sorted(_FUSED))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("how", ["rowmajor", "transposed", "sliced", "empty", "extremes"])
def test_fused_gradient_bits_as_the_ops(op, dtype, how):
    """The gradient reaching x through tanh (sin) equals the unfused formula bit for bit, and PyTorch's."""
    fn, formula, torch_fn = _FUSED[op]
    a = RNG.standard_normal((5, 6)).astype(dtype) * 3
    if how == "empty":
        a = a[:0]
    if how == "extremes":
        a.flat[:4] = [np.inf, -np.inf, np.nan, 40.0]
    xs, xt = _pair(a)
    gv = RNG.standard_normal(a.shape).astype(dtype)
    if how == "extremes":
        gv.flat[:3] = [np.inf, 0.0, np.nan]  # (inf * 0: NaN, without a NumPy warning; a NaN g meets sin's NaN)
        gv.view(np.uint64 if dtype == np.float64 else np.uint32).flat[2] |= 1  # (its own payload)
    g = strided.from_numpy(gv.copy())
    if how == "transposed":
        g = strided.from_numpy(np.ascontiguousarray(gv.T)).t()
    elif how == "sliced":
        g = strided.from_numpy(np.concatenate([gv, gv])).narrow(0, a.shape[0], a.shape[0])
    y = fn(xs)
    with np.errstate(all="ignore" if op == "sin" and how == "extremes" else "raise"):  # (cos(inf) warns, as NumPy's op does)
        (got,) = strided.autograd.grad(y, xs, g)  # (the rule's own result: no relayout into .grad)
        with strided.no_grad():
            expected = formula(g, xs.detach(), y.detach())  # the ops the fast path replaces
    assert got.stride() == expected.stride() and got.dtype == expected.dtype
    assert got.numpy().tobytes() == expected.numpy().tobytes()
    (gt,) = torch.autograd.grad(torch_fn(xt), xt, torch.from_numpy(gv.copy()))
    # (PyTorch's float32 tanh differs from NumPy's by an ulp: 1 - y*y cancels near |y| = 1)
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got.numpy(), gt.numpy(), **tol)


@pytest.mark.parametrize("op", sorted(_FUSED))
def test_fused_second_derivative_still_recorded(op):
    """create_graph: the gradient of tanh (sin) is itself differentiable (the ops path, recorded)."""
    fn, _, torch_fn = _FUSED[op]
    a = RNG.standard_normal(7)
    xs, xt = _pair(a)
    (gs,) = strided.autograd.grad(fn(xs).sum(), xs, create_graph=True)
    (gt,) = torch.autograd.grad(torch_fn(xt).sum(), xt, create_graph=True)
    assert gs.grad_fn is not None
    gs.sum().backward()
    gt.sum().backward()
    np.testing.assert_allclose(xs.grad.numpy(), xt.grad.numpy(), rtol=1e-12)


@pytest.mark.parametrize(("op", "steps"), [("tanh", ["mul", "sub", "mul"]), ("sin", ["cos", "mul"])])
def test_fused_gradient_reported_to_watch(op, steps):
    """With a listener open, the rule's ops run (and are reported) as before."""
    xs = strided.ones(3, requires_grad=True)
    y = _FUSED[op][0](xs)
    g = strided.ones(3)
    with strided.watch() as w:
        y.backward(g)
    assert [s.name for s in w.steps] == steps  # tanh: y * y, 1 - (y * y), g * (1 - y * y); sin: x.cos(), g * cos


# ---------------------------------------------------------------- what mul saves


@pytest.mark.parametrize("case", ["t*t", "t*leafnograd", "nograd*t", "t*number", "number*t", "t*t same"])
def test_mul_saves_what_it_needs(case):
    """Gradients as PyTorch's, and the modified-saved-tensor error exactly when PyTorch raises it."""
    av, bv = RNG.standard_normal(4), RNG.standard_normal(4)
    results = []
    for lib in (strided, torch):
        a = lib.tensor(av.copy(), requires_grad=True)
        b = lib.tensor(bv.copy(), requires_grad=True)
        c = lib.tensor(bv.copy())
        ai, bi = a * 1, b * 1  # (non-leaves: they may be written in place)
        left, right = {"t*t": (ai, bi), "t*leafnograd": (ai, c), "nograd*t": (c, bi), "t*number": (ai, 2.5),
                       "number*t": (2.5, bi), "t*t same": (ai, ai)}[case]
        out = left * right
        for t in (left, right):
            if not isinstance(t, float):
                with lib.no_grad() if t is c else _nothing():
                    t.add_(1)
        try:
            out.sum().backward()
            results.append(("ok", a.grad.numpy().copy() if a.grad is not None else None,
                            b.grad.numpy().copy() if b.grad is not None else None))
        except RuntimeError as e:
            results.append(("error", str(e).splitlines()[0].split(":")[0]))
    assert results[0][0] == results[1][0], results
    if results[0][0] == "ok":
        for s, t in zip(results[0][1:], results[1][1:]):
            assert (s is None) == (t is None)
            if s is not None:
                np.testing.assert_allclose(s, t)
    else:
        assert results[0][1] == results[1][1]


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_mul_number_operand_saves_no_number():
    """number * t where only t requires grad: one edge, nothing but tensors saved."""
    x = strided.ones(3, requires_grad=True)
    y = 2.0 * x
    assert all(isinstance(t, strided.Tensor) for t, _, _ in y.grad_fn.saved)
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0, 2.0])


# ---------------------------------------------------------------- hooks: the caller's context


def test_view_made_in_a_hook_is_a_no_grad_view_as_in_pytorch():
    """The backward pass sends the rules' ops past the entries' slow path for the whole pass, but
    a hook (user code) runs as before: a view of a tensor in the graph made there is marked as
    made under no_grad, and writing it in place with grad mode on is PyTorch's error."""
    errors = []
    for lib in (strided, torch):
        w = lib.ones(4, requires_grad=True)
        kept = []
        y = w * 2
        y.register_hook(lambda g, w=w, kept=kept: kept.append(w.view(2, 2)) or None)
        y.sum().backward()
        with pytest.raises(RuntimeError) as e:
            kept[0].mul_(2)
        errors.append(str(e.value).splitlines()[0][:60])
    assert errors[0] == errors[1]


def test_leaf_hook_and_tensor_hook_change_the_gradient():
    vals = []
    for lib in (strided, torch):
        w = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        w.register_hook(lambda g: g * 3)
        y = lib.tanh(w * w)
        y.register_hook(lambda g: g + 1)
        y.sum().backward()
        vals.append(w.grad.detach().numpy().copy())
    np.testing.assert_allclose(vals[0], vals[1], rtol=1e-12)
