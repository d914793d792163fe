"""The compiled ``recorded`` (the copy kernel's, bound as :func:`strided.gradients.recorded`: a fast
path's fresh result given its node with attach_fresh's common steps in C) against its Python body
(``gradients._recorded_python`` calling ``function.attach_fresh``, the reference and the fallback,
chosen with the copy kernel's ``recorded_use``): the same graphs (node names, edges to the same kinds
of producers, ctx, saved entries with their versions and output flags, own outputs, ``_saved_*``
names), the same gradients to the bit, the same errors (a saved tensor written in place, a second
backward, an inference tensor saved) - and against PyTorch. Also the full ``sum`` of a tensor in
autograd, now recorded by that fast path instead of a second run of ``sum``, and ``relu_fresh``
(relu's compiled fresh result) against relu's NumPy formula."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from strided import gradients
from strided.autograd import graph as G
from strided.kernels import native
from strided.kernels.elementwise import relu_array

torch = pytest.importorskip("torch")

_K = G._RECORDS
pytestmark = pytest.mark.skipif(_K is None or not hasattr(_K, "recorded_use"), reason="the copy kernel is not built")


def _node_parts(node):
    return (node.name(), type(node).__name__, node.ctx, node.n_outputs,
            [(t.shape, t.stride(), t.dtype, v, o) for t, v, o in node.saved], node.freed,
            [(t.shape, nr) for t, nr in node.own_outputs], G._saved_names(node))


def _graph(t):
    """Every node reachable from ``t``'s grad_fn, in a fixed walk order, as comparable parts."""
    out, todo, seen = [], [t.grad_fn], set()
    while todo:
        n = todo.pop()
        if n is None or id(n) in seen:
            continue
        seen.add(id(n))
        if isinstance(n, G.AccumulateGrad):
            out.append(("acc", tuple(n.variable.shape)))
            continue
        out.append(_node_parts(n))
        out.append([(type(m).__name__ if m is not None else None, nr) for m, nr in n.next_functions])
        todo.extend(m for m, _ in reversed(n.next_functions))
    return out


def _both(fn):
    """``fn()`` with the compiled recorded, then with its Python body (errors as (class, text))."""
    got = []
    for on in (True, False):
        was = _K.recorded_use(on)
        try:
            got.append(fn())
        except Exception as e:  # noqa: BLE001 - the error is what is compared
            got.append((type(e), str(e)))
        finally:
            _K.recorded_use(was)
    return got


def _bits(t):
    return None if t is None else (t.shape, t.stride(), t.numpy().tobytes())


def test_recorded_is_the_compiled_one():
    assert gradients.recorded is _K.recorded and gradients._recorded_python is not _K.recorded


OPS = {
    "mul": (lambda a, b: a * b, lambda a, b: a * b),
    "mul_number": (lambda a, b: a * 1.5, lambda a, b: a * 1.5),
    "rmul_number": (lambda a, b: 2.5 * a, lambda a, b: 2.5 * a),
    "add": (lambda a, b: a + b, lambda a, b: a + b),
    "sub": (lambda a, b: a - b, lambda a, b: a - b),
    "div": (lambda a, b: a / b, lambda a, b: a / b),
    "relu": (lambda a, b: a.relu() * b, lambda a, b: a.relu() * b),
    "exp": (lambda a, b: a.exp() + b, lambda a, b: a.exp() + b),
    "tanh": (lambda a, b: (a * b).tanh(), lambda a, b: (a * b).tanh()),
    "sigmoid": (lambda a, b: a.sigmoid() * b, lambda a, b: a.sigmoid() * b),
    "sum": (lambda a, b: (a * b).sum(), lambda a, b: (a * b).sum()),
    "self_mul": (lambda a, b: a * a, lambda a, b: a * a),
    "chain": (lambda a, b: ((a * 1.01 + 0.1).sin().tanh() * b).relu().sum(),
              lambda a, b: ((a * 1.01 + 0.1).sin().tanh() * b).relu().sum()),
}
LAYOUTS = ["contiguous", "transposed", "expanded", "empty", "scalar", "offset"]


def _inputs(rng, kind, dtype, lib):
    shape = {"contiguous": (3, 4), "transposed": (4, 3), "expanded": (1, 4), "empty": (0, 4), "scalar": (),
             "offset": (5, 4)}[kind]
    a = rng.standard_normal(shape).astype(dtype)
    b = rng.standard_normal((0, 4) if kind == "empty" else () if kind == "scalar" else (3, 4)).astype(dtype)
    ta = lib.tensor(a, requires_grad=True)
    tb = lib.tensor(b, requires_grad=True)
    x = ta.t() if kind == "transposed" else ta.expand(3, 4) if kind == "expanded" else ta[2:] if kind == "offset" \
        else ta
    if kind == "offset":
        x = x[:3] * 1.0  # (a result: a non-leaf input)
    return ta, tb, x


@settings(max_examples=60, deadline=None)
@given(hs.integers(0, 5), hs.sampled_from(LAYOUTS), hs.sampled_from(sorted(OPS)),
       hs.sampled_from([np.float32, np.float64]), hs.booleans())
def test_graphs_and_gradients_as_the_python_body_and_torch(seed, kind, op, dtype, b_needs):
    s_op, t_op = OPS[op]

    def run():
        ta, tb, x = _inputs(np.random.default_rng(seed), kind, dtype, st)
        tb.requires_grad_(b_needs)
        y = s_op(x, tb)
        g = _graph(y)
        y.sum().backward() if y.ndim else y.backward()
        return g, _bits(ta.grad), _bits(tb.grad), _bits(y.detach())

    c, p = _both(run)
    assert c == p
    ta, tb, x = _inputs(np.random.default_rng(seed), kind, dtype, torch)
    tb.requires_grad_(b_needs)
    ty = t_op(x, tb)
    ty.sum().backward() if ty.ndim else ty.backward()
    fwd = np.frombuffer(c[3][2], dtype)
    if op in ("chain", "tanh"):  # (float64 sin / tanh: last-bit divergences of their own, not recording's)
        np.testing.assert_allclose(fwd, ty.detach().numpy().ravel(), rtol=1e-6)
    else:
        assert fwd.tobytes() == ty.detach().numpy().tobytes()  # (the forward's bits)
    assert c[0][0][0] == ty.grad_fn.name()
    np.testing.assert_allclose(np.frombuffer(c[1][2], dtype), ta.grad.numpy().ravel(), rtol=1e-5, atol=1e-6)
    if tb.grad is not None:
        np.testing.assert_allclose(np.frombuffer(c[2][2], dtype), tb.grad.numpy().ravel(), rtol=1e-5, atol=1e-6)
    else:
        assert c[2] is None


def test_errors_as_the_python_body():
    """A saved input written in place, a saved output written in place, a second backward, an
    inference tensor saved: the same errors both ways (and PyTorch raises in each case)."""

    def saved_input():
        w = st.ones(3, requires_grad=True)
        a = w * 1.0
        y = a * a
        a.add_(1.0)
        y.sum().backward()

    def saved_output():
        w = st.ones(3, requires_grad=True)
        y = (w * 1.0).relu()
        y.mul_(2.0)
        y.sum().backward()

    def twice():
        w = st.ones(3, requires_grad=True)
        y = (w * w).sum()
        y.backward()
        y.backward()

    def inference():
        with st.inference_mode():
            inf = st.ones(3)
        w = st.ones(3, requires_grad=True)
        return (w * inf).grad_fn.name()

    for case in (saved_input, saved_output, twice, inference):
        c, p = _both(case)
        assert c == p and isinstance(c, tuple) and issubclass(c[0], RuntimeError), case.__name__
    tw = torch.ones(3, requires_grad=True)
    ta = tw * 1.0
    ty = ta * ta
    ta.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        ty.sum().backward()


def test_versions_counted_and_data_counter_as_the_python_body():
    """Storages written in place (versions counted: saved entries carry watch()'s versions) and a
    ``.data`` counter alive (relu's alias then takes attach_fresh's own unowned): the same graphs."""

    def run():
        w = st.ones(2, 3, requires_grad=True)
        z = st.zeros(2, 3)
        z.add_(1.0)  # (a storage written: versions counted from here)
        d = w.data  # (a .data counter)
        d.mul_(1.0)
        y = (w * z).relu()
        s = (y * w).sum()
        g = _graph(s)
        s.backward()
        return g, _bits(w.grad)

    c, p = _both(run)
    assert c == p


def test_grad_mode_off_and_subclass_and_integer_results():
    def run():
        w = st.ones(3, requires_grad=True)
        with st.no_grad():
            a = w * 2.0
        p = st.nn.Parameter(st.ones(3))
        b = p * w  # (a Parameter operand)
        c = (p * 2.0).relu()
        i = st.arange(3) * 2  # (an integer result: no node)
        return (a.requires_grad, a.grad_fn, _graph(b), _graph(c), i.requires_grad, i.tolist())

    c, p = _both(run)
    assert c == p and c[0] is False and c[1] is None and c[4] is False


def test_hooks_and_retain_grad_and_create_graph():
    def run():
        w = st.tensor([1.0, -2.0, 3.0], requires_grad=True)
        seen = []
        a = w * w
        a.retain_grad()
        a.register_hook(lambda g: seen.append(g.tolist()))
        y = a.relu().sum()
        (gw,) = st.autograd.grad(y, w, create_graph=True)
        gg = gw.sum()
        gg.backward()
        return seen, _bits(w.grad), gw.grad_fn.name(), _graph(gw)

    c, p = _both(run)
    assert c == p
    tw = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    (tg,) = torch.autograd.grad((tw * tw).relu().sum(), tw, create_graph=True)
    tg.sum().backward()
    assert np.frombuffer(c[1][2], np.float32).tolist() == tw.grad.tolist()


def test_anomaly_mode_as_the_python_body():
    def run():
        with st.autograd.detect_anomaly():
            w = st.tensor([0.0, 1.0], requires_grad=True)
            y = (w * w).sqrt().sum()
            y.backward()
            return _bits(w.grad)

    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c, p = _both(run)
    assert c == p


def test_sum_fast_path_record_is_the_record_path():
    """A full sum of a tensor in autograd takes the fast path and gradients.recorded; the node is the
    one record() makes (its other calls, dim= / keepdim / dtype=, still go there)."""
    w = st.tensor(np.arange(12, dtype=np.float32).reshape(3, 4), requires_grad=True)
    s = w.sum()
    assert s.grad_fn.name() == "SumBackward0" and s.grad_fn.next_functions[0][0].variable is w
    s.backward()
    assert w.grad.stride() == (4, 1) and w.grad.tolist() == [[1.0] * 4] * 3
    tw = torch.arange(12, dtype=torch.float32).reshape(3, 4).requires_grad_()
    tw.sum().backward()
    assert w.grad.stride() == tw.grad.stride()
    for call, tcall in ((lambda t: t.sum(0), lambda t: t.sum(0)), (lambda t: t.sum(dtype=st.float64), None),
                        (lambda t: t.sum(1, keepdim=True), lambda t: t.sum(1, keepdim=True))):
        r = call(w)
        assert r.grad_fn.name() == ("SumBackward1" if tcall else "SumBackward0")
    with st.no_grad():
        assert w.sum().grad_fn is None
    i = st.arange(4)
    assert i.sum().item() == 6


@settings(max_examples=40, deadline=None)
@given(hs.sampled_from([np.float32, np.float64]), hs.integers(0, 40), hs.booleans())
def test_relu_fresh_bits_as_the_numpy_formula(dtype, n, strided_view):
    k = native.special()
    if k is None or not hasattr(k, "relu_fresh"):
        pytest.skip("the special kernel is not built")
    rng = np.random.default_rng(n)
    x = rng.standard_normal(2 * n).astype(dtype)
    x[::3] = -0.0
    x[1::5] = np.nan
    if n:
        x[-1] = -np.inf
    x = x[::2] if strided_view else x[:n]
    got = k.relu_fresh(x)
    want = np.maximum(x, x.dtype.type(0))
    np.copyto(want, x, where=x == 0)
    if strided_view and n > 1:
        assert got is None
    else:
        assert got is not None and got.dtype == x.dtype and got.tobytes() == want.tobytes()
    assert relu_array(x).tobytes() == want.tobytes()
    t = torch.from_numpy(x.copy()).relu().numpy()
    assert relu_array(x).tobytes() == t.tobytes()


def test_relu_fresh_declines_what_it_cannot_run():
    k = native.special()
    if k is None or not hasattr(k, "relu_fresh"):
        pytest.skip("the special kernel is not built")
    raw = np.zeros(17, np.uint8)
    unaligned = raw[1:].view(np.float32)
    for x in (np.ones(3, np.float16), np.ones(3, np.int32), np.ones((3, 4), np.float32).T, unaligned,
              np.ones(3, ">f4"), [1.0, 2.0]):
        assert k.relu_fresh(x) is None
    assert relu_array(np.array([-1.0, 2.0], np.float16)).tolist() == [0.0, 2.0]
