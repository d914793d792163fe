"""The compiled make_node (``make_node`` of the copy kernel, answered first by
:func:`strided.autograd.function.make_node`) and the compiled leaf edge (a leaf's AccumulateGrad,
made in C by ``record_edges``) against their Python bodies, the reference and the fallback
(``function._MAKE_NODE`` / the copy kernel's ``acc_types`` unset): the same nodes (names, edges to
the same producer objects, ctx, saved entries with their versions, ``_saved_*`` names, outputs), the
same gradients to the bit, the same errors (a saved tensor written in place, a second backward, an
inference tensor saved) - and against PyTorch where a user can see it."""

import weakref

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
import strided.nn.functional as SF
from strided.autograd import function as Fn
from strided.autograd import graph as G

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.skipif(Fn._MAKE_NODE is None, reason="the copy kernel is not built")


def _parts(node):
    if node is None:
        return None
    return (node.name(), [(type(n).__name__ if n is not None else None, nr) for n, nr in node.next_functions],
            node.ctx, node.n_outputs, [(id(t), v, o) for t, v, o in node.saved], node.freed, node.pre_hooks,
            node.passed, node.own_outputs, G._saved_names(node))


def _both(monkeypatch, fn):
    """``fn()`` with the compiled make_node, then with make_node's Python body."""
    got = []
    for mk in (Fn._MAKE_NODE, None):
        monkeypatch.setattr(Fn, "_MAKE_NODE", mk)
        try:
            got.append(fn())
        except Exception as e:  # noqa: BLE001 - the error is what is compared
            got.append((type(e), str(e)))
    return got


def test_make_node_makes_the_nodes_the_python_body_makes(monkeypatch):
    leaf = st.tensor([1.0, 2.0], requires_grad=True)
    res = leaf * 2.0
    plain = st.tensor([3.0, 4.0])
    view = leaf.detach().requires_grad_()[:1]
    base = st.tensor([1.0, 2.0, 3.0], requires_grad=True).clone()
    stale = base[:2]
    base.add_(1.0)  # (stale's view_version differs now: edge() regenerates its history)
    param = st.nn.Parameter(st.ones(2))
    rule = lambda g: (g, g)  # noqa: E731
    cases = [(res,), (leaf,), (plain,), (res, 2.0), (leaf, None), (plain, 1.0), (res, plain), (plain, res),
             (leaf, res, 3.0, None), [res, leaf], (view, leaf), (stale, res), (param, plain, res), (), (2.0,)]
    from strided.gradients import named_saved

    saves = [(), (plain,), (res, plain), [plain, res], named_saved((plain,), self=plain, dim=1),
             named_saved((), alpha=2.0)]
    for inputs in cases:
        for saved in saves:
            for n_out in (1, 2):
                spec = ("TestBackward0", inputs, rule, saved)
                got = _both(monkeypatch, lambda spec=spec, n_out=n_out: Fn.make_node(spec, n_out, res))
                c, p = got
                assert _parts(c) == _parts(p), (inputs, saved, n_out)
                if c is not None:
                    assert all(a is b for (a, _), (b, _) in zip(c.next_functions, p.next_functions))
                    assert c.rule is rule and type(c) is G.Node


def test_make_node_watches_saved_tensors_once_storages_are_written(monkeypatch):
    """With a storage written in place the saved entries carry the versions (and watch the storage):
    the compiled path calls watch as saved_entries does, so the counts and the error agree."""
    x = st.tensor([1.0, 2.0, 3.0], requires_grad=True)
    for _ in range(2):
        got = []
        for mk in (Fn._MAKE_NODE, None):
            monkeypatch.setattr(Fn, "_MAKE_NODE", mk)
            a = x * 1.0
            a.add_(1.0)  # version 1
            b = a.exp()  # saves its output (version 0 of b) - and a's write is counted
            c = a * a  # saves a at version 1
            a.mul_(2.0)  # version 2: c's backward must refuse
            entries = [v for _, v, _ in c.grad_fn.saved]
            with pytest.raises(RuntimeError) as e:
                c.sum().backward()
            got.append((entries, str(e.value).splitlines()[0], b.grad_fn.saved[0][1]))
        assert got[0] == got[1]
        assert got[0][0] == [1, 1]


def test_inference_tensor_saved_refused_as_python_body_does(monkeypatch):
    with st.inference_mode():
        inf = st.ones(3)
    x = st.ones(3, requires_grad=True)
    got = _both(monkeypatch, lambda: (x * inf).grad_fn.name())
    assert got[0] == got[1]
    t = torch.ones(3, requires_grad=True)
    with torch.inference_mode():
        tinf = torch.ones(3)
    with pytest.raises(RuntimeError):
        t * tinf
    assert issubclass(got[0][0], RuntimeError)


def test_leaf_accumulate_grad_made_once_and_held_weakly():
    """The compiled leaf edge: one AccumulateGrad per leaf while a graph holds it (the same object for
    every use), a new one after the graph dies; its variable is the leaf, it holds the leaf weakly."""
    w = st.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    b = st.ones(2, 2)
    y1, y2 = w * b, w.exp()
    a1, a2 = y1.grad_fn.next_functions[0][0], y2.grad_fn.next_functions[0][0]
    assert a1 is a2 and type(a1) is G.AccumulateGrad and a1.variable is w
    assert a1.name() == "torch::autograd::AccumulateGrad" and a1.next_functions == ()
    assert w._ag.acc() is a1
    ref = weakref.ref(a1)
    del y1, y2, a1, a2
    assert ref() is None  # (the leaf holds its node weakly: PyTorch's as well)
    y3 = w * b
    assert y3.grad_fn.next_functions[0][0] is not None and w._ag.acc() is y3.grad_fn.next_functions[0][0]
    tw = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    t1, t2 = tw * torch.ones(2, 2), tw.exp()
    assert t1.grad_fn.next_functions[0][0] is t2.grad_fn.next_functions[0][0]


def _grads_c_and_python(monkeypatch, build, leaves):
    out = []
    for mk in (Fn._MAKE_NODE, None):
        monkeypatch.setattr(Fn, "_MAKE_NODE", mk)
        for t in leaves:
            t.grad = None
        build().backward()
        out.append([t.grad.numpy().tobytes() + str(t.grad.stride()).encode() for t in leaves])
    return out


@settings(max_examples=25, deadline=None)
@given(hs.integers(0, 3), hs.sampled_from(["contiguous", "transposed", "expanded", "empty", "scalar"]))
def test_gradients_bit_identical_to_python_body_and_close_to_torch(seed, kind):
    import _pytest.monkeypatch

    mp = _pytest.monkeypatch.MonkeyPatch()
    try:
        rng = np.random.default_rng(seed)
        shape = {"contiguous": (3, 4), "transposed": (4, 3), "expanded": (1, 4), "empty": (0, 4), "scalar": ()}[kind]
        a = rng.standard_normal(shape).astype(np.float32)
        b = rng.standard_normal((3, 4) if kind != "scalar" and kind != "empty" else shape).astype(np.float32)
        w = st.tensor(a, requires_grad=True)
        v = st.tensor(b, requires_grad=True)

        def prep(x):
            return x.t() if kind == "transposed" else x.expand(3, 4) if kind == "expanded" else x

        def build(lib=st, w=w, v=v):
            x = prep(w)
            y = (x * v + x.relu() * 2.0).tanh() - v.exp() * x
            return y.sum() + (x * x).mean() if x.numel() else y.sum()

        got = _grads_c_and_python(mp, build, [w, v])
        assert got[0] == got[1]
        tw, tv = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
        tx = tw.t() if kind == "transposed" else tw.expand(3, 4) if kind == "expanded" else tw
        ty = (tx * tv + tx.relu() * 2.0).tanh() - tv.exp() * tx
        (ty.sum() + (tx * tx).mean() if tx.numel() else ty.sum()).backward()
        np.testing.assert_allclose(w.grad.numpy(), tw.grad.numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(v.grad.numpy(), tv.grad.numpy(), rtol=1e-5, atol=1e-6)
    finally:
        mp.undo()


def test_mlp_step_bit_identical_and_retain_graph_error(monkeypatch):
    rng = np.random.default_rng(0)
    x = st.tensor(rng.standard_normal((8, 5)).astype(np.float32))
    y = st.tensor(rng.integers(0, 3, 8))
    w1 = st.tensor(rng.standard_normal((6, 5)).astype(np.float32), requires_grad=True)
    b1 = st.tensor(np.zeros(6, np.float32), requires_grad=True)
    w2 = st.tensor(rng.standard_normal((3, 6)).astype(np.float32), requires_grad=True)

    def build():
        return SF.cross_entropy(SF.linear(SF.relu(SF.linear(x, w1, b1)), w2), y)

    got = _grads_c_and_python(monkeypatch, build, [w1, b1, w2])
    assert got[0] == got[1]
    errs = []
    for mk in (Fn._MAKE_NODE, None):
        monkeypatch.setattr(Fn, "_MAKE_NODE", mk)
        loss = build()
        loss.backward()
        with pytest.raises(RuntimeError) as e:
            loss.backward()
        errs.append(str(e.value))
    assert errs[0] == errs[1] and errs[0].startswith("Trying to backward through the graph a second time")


def test_saved_names_readable_and_freed(monkeypatch):
    """A rule that names its saved values (huber): ``_saved_*`` as PyTorch spells them, refused after
    a backward frees them, with both make_node bodies."""
    for mk in (Fn._MAKE_NODE, None):
        monkeypatch.setattr(Fn, "_MAKE_NODE", mk)
        a = st.tensor([0.5, 3.0], requires_grad=True)
        loss = SF.huber_loss(a, st.zeros(2), delta=1.5)
        ta = torch.tensor([0.5, 3.0], requires_grad=True)
        tl = torch.nn.functional.huber_loss(ta, torch.zeros(2), delta=1.5)
        assert loss.grad_fn.name() == tl.grad_fn.name()
        assert loss.grad_fn._saved_delta == tl.grad_fn._saved_delta
        assert loss.grad_fn._saved_self.detach().numpy().tobytes() == ta.detach().numpy().tobytes()
        loss.backward()
        with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
            _ = loss.grad_fn._saved_self
