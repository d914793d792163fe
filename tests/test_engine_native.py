"""The backward loop's compiled common case (``engine_loop`` of the copy kernel, run by
:func:`strided.autograd.engine.run` for plain nodes) against its Python body, the reference and
the fallback (``engine._ENGINE_LOOP`` set to None): the same gradients to the bit, in the same
layouts, the same hooks in the same order, the same retained gradients, the same double-backward
results and the same errors, for the sample of every op with a rule (``double_samples.py``) in each
layout and for graphs built to take the loop's other branches (fit's sum and cast, diamonds, an
input reached by no gradient, multi-output nodes, hooks, in-place writes, a second backward)."""

import warnings

import numpy as np
import pytest

import strided as st
import strided.nn.functional as SF
from double_samples import SAMPLES
from strided.autograd import engine
from strided.autograd import graph as G
from test_autograd_double import _CHANGES, _floats, _leaf, _values

pytestmark = pytest.mark.skipif(engine._ENGINE_LOOP is None, reason="the copy kernel is not built")


def _bits(t):
    """What must agree about a gradient: its bytes, shape, strides, dtype (None for none)."""
    if t is None:
        return None
    return (t.detach().numpy().tobytes(), tuple(t.shape), t.stride(), str(t.dtype), t.requires_grad)


def _both(fn, monkeypatch, *args):
    """``fn(*args)`` with the compiled loop, then with the Python body: both results (or the
    errors' types and messages)."""
    got = []
    for loop in (engine._ENGINE_LOOP, None):
        monkeypatch.setattr(engine, "_ENGINE_LOOP", loop)
        try:
            got.append(fn(*args))
        except Exception as e:  # noqa: BLE001 - the error is what is compared
            got.append((type(e), str(e)))
    return got


def _sample_run(sample, layout, create_graph):
    arrs = [_values(sample, k, s) for k, s in enumerate(sample.shapes)]
    leaves, views = zip(*(_leaf(st, a, layout) for a in arrs))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        outs = [o for o in _floats(sample.call(st, SF, *views)) if o.requires_grad]
    if not outs:
        return None
    rng = np.random.default_rng(7)
    vs = [st.tensor(rng.uniform(-1, 1, tuple(o.shape)), dtype=o.dtype) for o in outs]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        st.autograd.backward(outs, vs, create_graph=create_graph)
    first = [_bits(t.grad) for t in leaves]
    if not create_graph:
        return first
    terms = [(t.grad * 0.5).sum() for t in leaves if t.grad is not None and t.grad.requires_grad]
    grads = [t.grad for t in leaves]
    for t in leaves:
        t.grad = None
    if terms:
        try:
            sum(terms[1:], terms[0]).backward()
        except Exception as e:  # noqa: BLE001 - a refusal is compared too
            return first, (type(e), str(e).splitlines()[0])
    return first, [_bits(t.grad) for t in leaves], [_bits(g) for g in grads]


def _sample_cases():
    cases = []
    for sample in SAMPLES:
        for layout in sample.layouts:
            if layout == "contiguous" or any(_CHANGES[layout](s) for s in sample.shapes):
                cases.append((sample, layout))
    return cases


_CASES = _sample_cases()


@pytest.mark.parametrize("create_graph", [False, True])
def test_every_sample_gives_the_same_gradients_both_ways(create_graph, monkeypatch):
    """Generated: each op's sample in each layout, backward (first order; with create_graph, the
    second order through .grad too): the compiled loop's gradients are the Python body's, bit for bit."""
    differ = []
    for sample, layout in _CASES:
        c, p = _both(_sample_run, monkeypatch, sample, layout, create_graph)
        if c != p:
            differ.append(f"{sample.op}{'-' + sample.label if sample.label else ''}-{layout}")
    assert not differ, differ


def _graph_with_everything():
    """A graph through fit (a broadcast sum, a float32 -> float64 cast), a diamond, a multi-output
    node (unbind) with an unused output, hooks on a non-leaf and a leaf, retain_grad, and a node
    whose rule gives no gradient to one of its edges (that edge's producer, reached by none, is
    skipped: its leaf gets no .grad)."""
    order = []
    a = st.tensor([[1.0, -2.0, 3.0], [0.5, 1.5, -1.0]], requires_grad=True)
    b = st.tensor([0.25, -0.5, 2.0], dtype=st.float32, requires_grad=True)
    c = st.tensor([1.5, 2.5], requires_grad=True)
    y = a * b  # (b broadcast, float32 into float64: fit sums and casts)
    y.register_hook(lambda g: order.append("y1"))
    y.register_hook(lambda g: (order.append("y2"), g * 3.0)[1])
    y.retain_grad()
    d = y + y  # (a diamond: both gradients summed in one buffer)
    r0, r1 = d.unbind(0)
    inner = c.sin().exp()
    drop = G.Node("DropBackward0", lambda g: (g * 2.0, None), (G.edge(r0), G.edge(inner)))
    z = st.zeros(3, dtype=st.float64)
    z._ag = G.new_meta(drop)  # (z = 2 * r0 to the engine; inner gets no gradient)
    a.register_hook(lambda g: order.append("a"))
    (z * z).sum().backward(retain_graph=True)
    first = [_bits(t.grad) for t in (a, b, c)] + [_bits(y.grad)]
    (z.tanh() + r1).sum().backward()  # (a second pass over the retained graph, accumulating)
    return first, [_bits(t.grad) for t in (a, b, c)], _bits(y.grad), order


def test_a_graph_through_every_branch_gives_the_same_results_both_ways(monkeypatch):
    c, p = _both(_graph_with_everything, monkeypatch)
    assert c == p
    assert c[3] == ["y1", "y2", "a", "y1", "y2", "a"]
    assert c[0][2] is None and c[0][0] is not None  # (c reached by no gradient)


def _second_backward():
    x = st.tensor([1.0, 2.0], requires_grad=True)
    y = (x.exp() * 2.0).sum()
    y.backward()
    y.backward()  # (exp saved its output: freed by the first pass)


def _modified():
    x = st.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1.0
    z = y.sin()
    y.add_(1.0)  # (sin saved y)
    z.sum().backward()


def _rule_error():
    x = st.tensor([1.0, 2.0], requires_grad=True)
    h = x * 2.0
    h.register_hook(lambda g: 1 / 0)
    (h * 3.0).sum().backward()


@pytest.mark.parametrize("fn", [_second_backward, _modified, _rule_error])
def test_errors_are_the_same_both_ways(fn, monkeypatch):
    c, p = _both(fn, monkeypatch)
    assert c == p
    assert isinstance(c, tuple) and issubclass(c[0], Exception)


def test_the_gradients_layouts_and_passed_are_the_same_both_ways(monkeypatch):
    """node.passed (what graph_text shows) and a permuted leaf's gradient layout."""

    def run():
        x = st.tensor(np.arange(12.0).reshape(3, 4).T.copy(), requires_grad=True)
        y = (x.permute(1, 0) * 2.0).tanh()
        s = y.sum()
        s.backward(retain_graph=True)
        node, seen = s.grad_fn, []
        while node is not None and node.next_functions:
            seen.append((node.name(), [(p.shape, p.strides, p.offset) if p is not None else None
                                       for p in node.passed or ()]))
            node = node.next_functions[0][0]
        return seen, _bits(x.grad)

    c, p = _both(run, monkeypatch)
    assert c == p and len(c[0]) >= 3


def test_a_leafs_gradient_is_still_kept_as_it_is(monkeypatch):
    """The steal (engine._sole_owner) still finds the engine's gradient held by no one else
    when the compiled loop handed it on: the compiled loop holds no reference after its node."""
    kept = []
    orig = engine._sole_owner
    for loop in (engine._ENGINE_LOOP, None):
        monkeypatch.setattr(engine, "_ENGINE_LOOP", loop)
        w = st.tensor(np.ones((4, 4), np.float32), requires_grad=True)
        seen = []

        def spy(g, like, seen=seen):
            seen.append(orig(g, like))
            return seen[-1]

        monkeypatch.setattr(engine, "_sole_owner", spy)
        ((w * 3.0) * 2.0).sum().backward()
        kept.append(seen)
    assert kept[0] == kept[1] == [True]


def _node_parts(node):
    if node is None:
        return None
    return (node.name(), [(type(n).__name__ if n is not None else None, nr) for n, nr in node.next_functions],
            node.ctx, node.n_outputs, len(node.saved))


def test_record_edges_makes_the_nodes_make_nodes_loop_makes(monkeypatch):
    """make_node's general path (several inputs): the compiled record_edges and the Python loop
    give nodes with the same edges (the same node objects), ctx, outputs and saved tensors, and
    both decline when no input needs a gradient."""
    from strided.autograd import function as Fn

    if Fn._RECORD_EDGES is None:
        pytest.skip("the copy kernel is not built")
    monkeypatch.setattr(Fn, "_MAKE_NODE", None)  # (the compiled make_node answers first: tests/test_rec35.py)
    leaf = st.tensor([1.0, 2.0], requires_grad=True)
    res = leaf * 2.0
    plain = st.tensor([3.0, 4.0], dtype=st.float32)
    view = leaf.detach().requires_grad_()[:1]
    base = st.tensor([1.0, 2.0, 3.0], requires_grad=True).clone()
    stale = base[:2]
    base.add_(1.0)  # (stale's view_version differs now: edge() regenerates its history)
    param = st.nn.Parameter(st.ones(2))
    cases = [(res, plain), (plain, res), (leaf, res, 3.0, None), (plain, plain), (plain, 1.0, plain),
             [res, leaf], (view, leaf), (stale, res), (param, plain, res), ()]
    rule = lambda g: (g, g)  # noqa: E731
    for inputs in cases:
        made = []
        for fn in (Fn._RECORD_EDGES, None):
            monkeypatch.setattr(Fn, "_RECORD_EDGES", fn)
            node = Fn.make_node(("TestBackward0", inputs, rule, (plain,)), 2, res)
            made.append((_node_parts(node), None if node is None else [n for n, _ in node.next_functions]))
        (c_parts, c_nodes), (p_parts, p_nodes) = made
        assert c_parts == p_parts, inputs
        if c_nodes is not None:  # (the same producer objects: a grad_fn, a leaf's one AccumulateGrad,
            # the stale view's history regenerated once)
            assert all(a is b for a, b in zip(c_nodes, p_nodes))
