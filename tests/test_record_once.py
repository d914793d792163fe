"""Recording an elementwise op without running its forward twice (issue 23): the fast path's
result is given its node directly (``strided.gradients.recorded``) instead of ``record`` running
the op again inside. Checked against the old path (``record``, forced by monkeypatching the entry
modules' ``recorded``) bit for bit -- values, strides, offsets, grad_fn, next_functions and the
gradients -- and against PyTorch's gradients, over float32/float64 (int64 forwards too), offset
slices, transposed and broadcast operands (which take the general path), size-1, zero-size and
0-d tensors; and with a listener open (a watched call keeps ``record``)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided
import strided.gradients as gradients
from strided.ops.elementwise import binary as binary_mod
from strided.ops.elementwise import unary as unary_mod

RNG = np.random.default_rng(2323)

# (shape, how the operand is made from a NumPy array)
LAYOUTS = [((3, 4), "plain"), ((3, 4), "offset"), ((4, 3), "transposed"), ((1, 5), "plain"),
           ((0, 3), "plain"), ((), "plain"), ((2, 1, 3), "offset")]


def _operand(a: np.ndarray, how: str) -> strided.Tensor:
    if how == "offset":  # a view at a storage offset > 0
        big = np.concatenate([np.zeros((1,) + a.shape[1:], a.dtype), a]) if a.ndim else np.stack([a, a])
        t = strided.from_numpy(big)[1:] if a.ndim else strided.from_numpy(big)[1]
        assert t.storage_offset() > 0
        return t
    if how == "transposed":
        return strided.from_numpy(np.ascontiguousarray(a.T)).t()
    return strided.from_numpy(a.copy())


def _old_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """The entries' tracked fast path as before: record() runs the forward again with INSIDE set."""

    def rerun(name: str, t: object, args: tuple) -> object:
        return gradients.record(name, lambda *a: getattr(strided, name)(*a), args, {})

    monkeypatch.setattr(binary_mod, "recorded", rerun)
    monkeypatch.setattr(unary_mod, "recorded_fast", rerun)


def _same(x: strided.Tensor, y: strided.Tensor) -> None:
    assert (x.shape, x.stride(), x.storage_offset(), x.dtype) == (y.shape, y.stride(), y.storage_offset(), y.dtype)
    assert x.detach().numpy().tobytes() == y.detach().numpy().tobytes()


def _graph(y: strided.Tensor) -> tuple:
    fn = y.grad_fn
    return (None if fn is None else fn.name(),
            None if fn is None else tuple((None if n is None else n.name(), nr) for n, nr in fn.next_functions))


BINARY = [("mul", lambda a, b: a * b), ("add", lambda a, b: strided.add(a, b)), ("sub", lambda a, b: a - b),
          ("div", lambda a, b: a.div(b)), ("mul_number", lambda a, b: a * 1.5), ("add_number", lambda a, b: a + 0.25)]
UNARY = ["sin", "tanh", "exp", "sigmoid", "relu", "neg"]


def _run(f, make):
    """(result, gradients of the inputs) through strided, for the new and the forced-old path."""
    xs = make()
    y = f(*xs)
    g = (strided.from_numpy(np.asarray(np.random.default_rng(7).standard_normal(y.shape), y.dtype.name))  # (same g both runs)
         if y.dtype.is_floating_point else None)
    grads = ()
    if g is not None and y.requires_grad:
        want = [x for x in xs if x.requires_grad]
        grads = strided.autograd.grad(y, want, g)
    return y, _graph(y), grads, g


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name,f", BINARY, ids=[b[0] for b in BINARY])
def test_binary_recorded_once_same_as_record(monkeypatch, dtype, name, f):
    for shape, how in LAYOUTS:
        a = np.array(RNG.standard_normal(shape), dtype)
        b = np.array(RNG.standard_normal(shape) + 3, dtype)
        a.flat[:1] = -0.0  # (signed zeros kept)
        for needs in ((True, False), (False, True), (True, True)):
            def make(a=a, b=b, how=how, needs=needs):
                xa, xb = _operand(a, how), _operand(b, "plain" if how == "transposed" else how)
                return (xa.requires_grad_() if needs[0] and xa.is_leaf else xa,
                        xb.requires_grad_() if needs[1] else xb)
            if needs != (True, False) and name.endswith("number"):
                continue  # (the number operand: only a needs a gradient)
            new = _run(f, make)
            with monkeypatch.context() as m:
                _old_path(m)
                old = _run(f, make)
            _same(new[0], old[0])
            assert new[1] == old[1], (shape, how, needs)
            assert len(new[2]) == len(old[2])
            for gn, go in zip(new[2], old[2], strict=True):
                _same(gn, go)
            # against PyTorch: the same gradients (float64 exactly enough, float32 to rounding)
            xs = make()
            ta = [torch.from_numpy(x.detach().numpy().copy()).requires_grad_(x.requires_grad) for x in xs]
            ty = {"mul": lambda p, q: p * q, "add": torch.add, "sub": lambda p, q: p - q, "div": torch.div,
                  "mul_number": lambda p, q: p * 1.5, "add_number": lambda p, q: p + 0.25}[name](*ta)
            want = [t for t in ta if t.requires_grad]
            if want and new[3] is not None:
                tg = torch.autograd.grad(ty, want, torch.from_numpy(new[3].numpy().copy()))
                for gs, gt in zip(new[2], tg, strict=True):
                    np.testing.assert_allclose(gs.numpy(), gt.numpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_unary_recorded_once_same_as_record(monkeypatch, dtype):
    for name in UNARY:
        for shape, how in LAYOUTS:
            a = np.array(RNG.standard_normal(shape), dtype)
            a.flat[:1] = -0.0

            def make(a=a, how=how):
                return (_operand(a, how).requires_grad_() if how != "offset" else
                        _operand(a, how).detach().requires_grad_(),)
            f = getattr(strided, name)
            new = _run(f, make)
            with monkeypatch.context() as m:
                _old_path(m)
                old = _run(f, make)
            _same(new[0], old[0])
            assert new[1] == old[1] == (f"{name.capitalize()}Backward0" if name != "relu" else "ReluBackward0",
                                        (("torch::autograd::AccumulateGrad", 0),)), (name, new[1])
            for gn, go in zip(new[2], old[2], strict=True):
                _same(gn, go)
            ta = torch.from_numpy(a.copy()).requires_grad_()
            (tg,) = torch.autograd.grad(getattr(torch, name)(ta), ta, torch.from_numpy(new[3].numpy().copy()))
            np.testing.assert_allclose(new[2][0].numpy(), tg.numpy(), rtol=1e-5, atol=1e-6)


def test_int64_and_no_grad_and_inside_unchanged():
    """Integer results carry no node; under no_grad nothing records; a saved output written in
    place still raises PyTorch's error (the node saved the result made by the fast path)."""
    x = strided.ones(3, 4, requires_grad=True)
    i = strided.arange(12).view(3, 4)
    assert (i * 2).grad_fn is None and (i + i).grad_fn is None
    with strided.no_grad():
        assert (x * 2).grad_fn is None and strided.exp(x).grad_fn is None
    y = strided.exp(x)
    y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()
    z = strided.tanh(x)
    (z * z).sum().backward()  # (tanh saved its own output: the alias, no cycle through z)
    xt = torch.ones(3, 4, requires_grad=True)
    zt = torch.tanh(xt)
    (zt * zt).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=1e-6)


def test_watched_calls_report_the_same_records():
    """A listener open: the tracked entries report one record per op, as before the change."""
    x = strided.ones(3, 4, requires_grad=True)
    with strided.watch() as w:
        y = strided.tanh(x * 2.0 + x)
    names = [s.name for s in w.steps]
    assert names == ["mul", "add", "tanh"], names
    assert y.grad_fn.name() == "TanhBackward0"


def test_reads_result_is_conservative():
    """attach skips the closure walk only for a maker whose code never reads its result; a
    maker that reads it, closes over it, introspects its frame, or takes ``*args`` is walked."""
    import gc
    import sys

    from strided.autograd.function import _reads_result

    def plain(out, a):
        return "NegBackward0", (a,), lambda g: (-g,), ()

    def closes(out, a):
        return "ExpBackward0", (a,), lambda g: (g * out,), ()

    def saves(out, a):
        return "ExpBackward0", (a,), lambda g: (g,), (out,)

    def frames(out, a):
        return sys._getframe().f_locals["out"]

    assert not _reads_result(plain)
    assert _reads_result(closes) and _reads_result(saves) and _reads_result(frames)
    assert _reads_result(lambda *args: args) and _reads_result(len)
    # mul's result dies at del with the GC off: the skipped walk left no cycle behind
    was = gc.isenabled()
    gc.disable()
    try:
        x = strided.ones(3, requires_grad=True)
        y = x * 2.0
        probe = __import__("weakref").ref(y)
        del y
        assert probe() is None  # (mul's maker does not read its result: nothing kept it)
    finally:
        if was:
            gc.enable()


@pytest.mark.parametrize("name", ["sin", "cos", "log", "neg", "abs", "tanh", "exp", "sqrt", "sigmoid", "relu"])
def test_unary_makers_read_their_result_only_when_they_save_it(name):
    """unary.py's rule makers: one that saves the op's result reads it (attach walks its rule for
    the result, swapped for an alias); one that saves its input, or nothing, never reads it, so
    attach skips the walk. Either way: no cycle (the result dies at del with the GC off), the
    gradient (create_graph too) is PyTorch's, and a saved tensor written in place raises its error."""
    import gc
    import weakref

    from strided.autograd.function import _reads_result
    from strided.opdef import OPDEFS

    saves_out = name in ("tanh", "exp", "sqrt", "sigmoid", "relu")
    assert _reads_result(OPDEFS[name].backward) == saves_out
    a = np.abs(RNG.standard_normal((3, 5))).astype(np.float32) + 0.5
    f, tf = getattr(strided, name), getattr(torch, name)
    was = gc.isenabled()
    gc.disable()
    try:
        x = strided.tensor(a, requires_grad=True)
        y = f(x.t()[1:])  # (a sliced, transposed input: the general path records it)
        z = f(x * 1.0)  # (a fresh row-major input: the elementwise fast path's recorder)
        probes = [weakref.ref(y), weakref.ref(z)]
        del y, z
        assert all(p() is None for p in probes)
    finally:
        if was:
            gc.enable()
    for make, tmake in ((lambda t: t.t()[1:], lambda t: t.t()[1:]), (lambda t: t * 1.0, lambda t: t * 1.0)):
        x = strided.tensor(a, requires_grad=True)
        xt = torch.tensor(a, requires_grad=True)
        y, yt = f(make(x)), tf(tmake(xt))
        (gx,) = strided.autograd.grad((y * y).sum(), x, create_graph=True)
        (gt,) = torch.autograd.grad((yt * yt).sum(), xt, create_graph=True)
        np.testing.assert_allclose(gx.detach().numpy(), gt.detach().numpy(), rtol=1e-5, atol=1e-6)
        if gt.requires_grad:
            (ggx,) = strided.autograd.grad(gx.sum(), x)
            (ggt,) = torch.autograd.grad(gt.sum(), xt)
            np.testing.assert_allclose(ggx.numpy(), ggt.numpy(), rtol=1e-4, atol=1e-5)
    x = strided.tensor(a, requires_grad=True)
    u = x * 1.0
    y = f(u)
    written = y if saves_out else u
    with strided.no_grad():
        written.add_(1.0)
    if saves_out or name in ("sin", "cos", "log", "abs"):
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()
    else:  # (neg saves nothing: the write does not matter to its gradient)
        y.sum().backward()
