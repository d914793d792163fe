"""``nn.Parameter`` as a real Tensor subclass (issue 25), and Tensor subclasses through every op.

- the Parameter surface against PyTorch's ``nn.Parameter`` (type, data, detach, repr, defaults,
  errors, deepcopy, pickle, strided.save);
- each op family on Parameters against PyTorch with ``nn.Parameter`` inputs (values, gradients,
  result types);
- a registry-wide sweep: every op that tests/test_everyday_boundary.py and tests/test_dispatch.py
  call gives, on Parameter inputs, exactly the value, layout, error and gradient it gives on plain
  leaves that require grad;
- a user's ``class MyT(strided.Tensor)``: its ops are recorded, never dropped from the graph.
"""

from __future__ import annotations

import copy
import io
import pickle
import warnings

import numpy as np
import pytest
import torch

import strided as st
import strided.nn as nn
import strided.nn.functional as F
import test_everyday_boundary as everyday
from strided.diagnose.watch import watch

# ---------------------------------------------------------------- the Parameter surface


def _pair(data):
    return nn.Parameter(st.tensor(data)), torch.nn.Parameter(torch.tensor(data))


def test_a_parameter_is_an_instance_of_its_own_class_and_a_tensor_as_in_pytorch():
    p, tp = _pair([[1.0, 2.0], [3.0, 4.0]])
    assert type(p) is nn.Parameter and type(tp) is torch.nn.Parameter
    assert isinstance(p, st.Tensor) and isinstance(p, nn.Parameter)
    assert not isinstance(st.zeros(1), nn.Parameter)
    assert p.requires_grad is tp.requires_grad is True and p.is_leaf and p.grad_fn is None
    # what PyTorch gives back as plain tensors, strided does too
    for f in (lambda x: x.data, lambda x: x.detach(), lambda x: x + 1, lambda x: x[0], lambda x: x.t(),
              lambda x: x.view(4), lambda x: x.sum(), lambda x: x * x, lambda x: x.clone()):
        assert type(f(tp)) is torch.Tensor and type(f(p)) is st.Tensor
    assert st.shares_memory(p, p.data) and st.shares_memory(p, p.detach())


def test_repr_str_defaults_and_requires_grad_false_match_pytorch():
    p, tp = _pair([1.0, 2.0])
    assert repr(p) == repr(tp) == str(p) == str(tp)
    q, tq = nn.Parameter(st.ones(2), requires_grad=False), torch.nn.Parameter(torch.ones(2), requires_grad=False)
    assert repr(q) == repr(tq) and q.requires_grad is False and type(q) is nn.Parameter
    e, te = nn.Parameter(), torch.nn.Parameter()
    assert e.shape == tuple(te.shape) == (0,) and e.dtype is st.float32 and e.requires_grad


def test_a_parameter_of_a_parameter_is_a_new_parameter_over_the_same_memory():
    p = nn.Parameter(st.ones(3))
    q = nn.Parameter(p)
    assert type(q) is nn.Parameter and q is not p and st.shares_memory(p, q) and q.is_leaf


def test_integer_data_that_would_require_grad_and_non_tensor_data_are_refused():
    with pytest.raises(RuntimeError) as se:
        nn.Parameter(st.arange(3))
    with pytest.raises(RuntimeError) as te:
        torch.nn.Parameter(torch.arange(3))
    assert str(se.value).splitlines()[0].lower() == str(te.value).lower()
    assert nn.Parameter(st.arange(3), requires_grad=False).dtype is st.int64
    with pytest.raises(TypeError, match="Parameter\\(\\) expects a Tensor"):
        nn.Parameter([1.0])


def test_in_place_writes_of_a_leaf_parameter_raise_pytorchs_error_and_no_grad_writes_count():
    p, tp = _pair([1.0, 2.0])
    for f in (lambda x: x.add_(1), lambda x: x.mul_(2), lambda x: x.zero_()):
        with pytest.raises(RuntimeError) as se:
            f(p)
        with pytest.raises(RuntimeError) as te:
            f(tp)
        assert str(se.value).splitlines()[0] == str(te.value)
    assert p.tolist() == [1.0, 2.0]  # (nothing written)
    v = p._version
    with st.no_grad():
        p.add_(1.0)
        p.mul_(2.0)
    with torch.no_grad():
        tp.add_(1.0)
        tp.mul_(2.0)
    assert p.tolist() == tp.tolist() and p._version == v + 2 and type(p) is nn.Parameter


def test_deepcopy_pickle_and_save_keep_the_class_as_pytorch():
    p, tp = _pair([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    (p * 2).sum().backward()
    (tp * 2).sum().backward()
    d, td = copy.deepcopy(p), copy.deepcopy(tp)
    assert type(d) is nn.Parameter and d.requires_grad and not st.shares_memory(d, p)
    assert (d.grad is None) == (td.grad is None)  # (PyTorch's Parameter.__deepcopy__ drops the grad)
    frozen = nn.Parameter(st.ones(2, 3).t(), requires_grad=False)
    for q in (p, frozen):
        back = pickle.loads(pickle.dumps(q))
        assert type(back) is nn.Parameter and back.requires_grad == q.requires_grad
        assert back.tolist() == q.tolist() and back.stride() == q.stride()
    buf = io.BytesIO()
    st.save({"w": frozen, "p": p, "view": p[0], "plain": p.data}, buf)
    back = st.load(io.BytesIO(buf.getvalue()))
    assert type(back["w"]) is nn.Parameter and back["w"].stride() == (1, 3) and not back["w"].requires_grad
    assert type(back["p"]) is nn.Parameter and back["p"].requires_grad and back["p"].tolist() == p.tolist()
    assert type(back["view"]) is st.Tensor and type(back["plain"]) is st.Tensor
    assert st.shares_memory(back["p"], back["view"])


def test_a_module_state_and_a_pickled_module_keep_parameters():
    m = nn.Linear(3, 2)
    assert all(type(q) is nn.Parameter for q in m.parameters())
    m2 = pickle.loads(pickle.dumps(m))
    m3 = copy.deepcopy(m)
    for mm in (m2, m3):
        assert [type(q) for q in mm.parameters()] == [nn.Parameter, nn.Parameter]
        assert mm.weight.tolist() == m.weight.tolist()


# ---------------------------------------------------------------- each op family against PyTorch


def _params(*arrays):
    return ([nn.Parameter(st.tensor(a)) for a in arrays], [torch.nn.Parameter(torch.tensor(a)) for a in arrays])


_RNG = np.random.default_rng(0)
_W = _RNG.standard_normal((4, 3)).astype(np.float32)
_B = _RNG.standard_normal(4).astype(np.float32)
_X = _RNG.standard_normal((5, 3)).astype(np.float32)
_K = _RNG.standard_normal((2, 1, 3, 3)).astype(np.float32)
_IMG = _RNG.standard_normal((1, 1, 5, 5)).astype(np.float32)
_IDX = np.array([[0, 2], [3, 1]])

# (name, fn(m, F, w, b, x)) with w (4, 3) and b (4,) Parameters and x a plain (5, 3) tensor
_FAMILIES = [
    ("elementwise", lambda m, F, w, b, x: (w * 2 + w.exp() - 1 / (w * w + 1)).tanh()),
    ("reflected", lambda m, F, w, b, x: 3 - w + 2 ** w + 1.5 * w),
    ("reductions", lambda m, F, w, b, x: w.sum(0) + w.mean(1).sum() + w.amax() + w.var(0)),
    ("extrema", lambda m, F, w, b, x: w.max(1).values + w.min(0).values.sum() + m.maximum(w, w.t().t() * 0.5).sum()),
    ("views", lambda m, F, w, b, x: w.t()[1:].reshape(-1) * w.view(12).flip(0)[:8] + w.expand(2, 4, 3)[1].narrow(0, 0, 3).flatten()[:8]),
    ("matmul", lambda m, F, w, b, x: x @ w.t() + b),
    ("linear", lambda m, F, w, b, x: F.linear(x, w, b)),
    ("joining", lambda m, F, w, b, x: m.cat([w, w * 2]).sum(1) + m.stack([b, b]).sum(0).repeat(2)),
    ("indexing", lambda m, F, w, b, x: w[m.tensor([0, 2, 2])] * w.gather(1, m.tensor([[0], [1], [2], [0]]))[:3]),
    ("where_clamp", lambda m, F, w, b, x: m.where(w > 0, w, b[:, None]).clamp(-0.5, 0.5) + w.clamp(min=b[:, None])),
    ("softmax_ce", lambda m, F, w, b, x: F.cross_entropy(F.linear(x, w, b), m.tensor([0, 1, 2, 3, 0]))),
    ("layer_norm", lambda m, F, w, b, x: F.layer_norm(F.linear(x, w), (4,), b * 0 + 1, b)),
    ("embedding", lambda m, F, w, b, x: F.embedding(m.tensor(_IDX), w)),
    ("activations", lambda m, F, w, b, x: F.relu(w) + F.gelu(w) + F.silu(w) + F.softplus(w)),
    ("scans", lambda m, F, w, b, x: w.cumsum(0) * w.cumprod(1)),
    ("einsum", lambda m, F, w, b, x: m.einsum("ij,kj->ik", x, w) * b),
]


@pytest.mark.parametrize("name, fn", _FAMILIES, ids=[n for n, _ in _FAMILIES])
def test_each_op_family_on_parameters_gives_pytorchs_values_gradients_and_plain_results(name, fn):
    (w, b), (tw, tb) = _params(_W, _B)
    out = fn(st, F, w, b, st.tensor(_X))
    tout = fn(torch, torch.nn.functional, tw, tb, torch.tensor(_X))
    assert type(out) is st.Tensor and type(tout) is torch.Tensor
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-5, atol=1e-5)
    out.sum().backward()
    tout.sum().backward()
    for p, tp in ((w, tw), (b, tb)):
        assert (p.grad is None) == (tp.grad is None), name
        if tp.grad is not None:
            assert type(p.grad) is st.Tensor
            np.testing.assert_allclose(p.grad.numpy(), tp.grad.numpy(), rtol=1e-5, atol=1e-5)


def test_conv_and_an_optimizer_step_on_parameters_match_pytorch():
    (k, b), (tk, tb) = _params(_K, _B[:2])
    y = F.conv2d(st.tensor(_IMG), k, b, padding=1)
    ty = torch.nn.functional.conv2d(torch.tensor(_IMG), tk, tb, padding=1)
    (y * y).sum().backward()
    (ty * ty).sum().backward()
    np.testing.assert_allclose(k.grad.numpy(), tk.grad.numpy(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(b.grad.numpy(), tb.grad.numpy(), rtol=1e-4, atol=1e-4)
    st.optim.SGD([k, b], lr=0.1, momentum=0.9).step()
    with torch.no_grad():  # (SGD's first momentum step, by hand: torch.optim's first use costs seconds)
        for tp in (tk, tb):
            tp -= 0.1 * tp.grad
    assert type(k) is nn.Parameter
    np.testing.assert_allclose(k.detach().numpy(), tk.detach().numpy(), rtol=1e-5, atol=1e-5)


def test_a_parameters_ops_reach_the_listeners_the_copy_ledger_and_watch():
    p = nn.Parameter(st.ones(3, 4))
    records = []
    with st.dispatch.listen(records.append), st.record_copies() as ledger, watch() as w:
        y = p.t().contiguous() * 2
    assert [r.name for r in records] == ["t", "contiguous", "mul"] and records[0].inputs == (p,)
    assert [c.nbytes for c in ledger] == [48] and [s.name for s in w.steps][:2] == ["t", "contiguous"]
    assert y.grad_fn is not None


# ---------------------------------------------------------------- the registry-wide sweep


def _swap(value, make, memo):
    """``value`` with every float strided tensor in it (lists and tuples searched) replaced by
    ``make(t)`` (one per distinct tensor: ``[x, x]`` stays two uses of one leaf)."""
    if isinstance(value, st.Tensor) and value.dtype.is_floating_point:
        if id(value) not in memo:
            memo[id(value)] = make(value)
        return memo[id(value)]
    if isinstance(value, (list, tuple)):
        return type(value)(_swap(v, make, memo) for v in value)
    return value


def _leaf(t):
    return t.detach().clone().requires_grad_()


def _param(t):
    return nn.Parameter(t.detach().clone())


def _outcome(call, args):
    """(results, error, leaves): the call's results flattened, or its error's class and text."""
    try:
        with warnings.catch_warnings():  # (index_reduce's beta notice: the same on both sides)
            warnings.simplefilter("ignore")
            out = call(*args)
    except Exception as e:  # noqa: BLE001 - compared
        return None, (type(e), str(e)), None
    flat = list(out) if isinstance(out, (tuple, list)) else [out]
    return flat, None, None


def _grads(flat, leaves):
    tracked = [o for o in flat if isinstance(o, st.Tensor) and o.dtype.is_floating_point and o.requires_grad]
    if not tracked:
        return "no graph"
    try:
        sum(o.sum() for o in tracked).backward()
    except Exception as e:  # noqa: BLE001 - compared
        return (type(e), str(e))
    return [None if t.grad is None else t.grad.numpy() for t in leaves]


def _same_grads(a, b):
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all((x is None and y is None) or (
            x is not None and y is not None and np.array_equal(x, y, equal_nan=True)) for x, y in zip(a, b))
    return a == b


def _same(plain, param, pmemo, where):
    pf, pe, _ = plain
    qf, qe, _ = param
    assert pe == qe, where
    if pe is not None:
        return
    assert len(pf) == len(qf), where
    inputs = set(map(id, pmemo.values()))
    for a, b in zip(pf, qf):
        if not isinstance(a, st.Tensor):
            assert a == b or (a != a and b != b), where
            continue
        assert type(b) is (nn.Parameter if id(b) in inputs else st.Tensor), where  # (no Parameter leaks out)
        assert (a.shape, a.stride(), a.storage_offset(), a.dtype) == (b.shape, b.stride(), b.storage_offset(), b.dtype), where
        assert a.requires_grad == b.requires_grad and (a.grad_fn is None) == (b.grad_fn is None), where
        if a.grad_fn is not None:
            assert a.grad_fn.name() == b.grad_fn.name(), where
        assert np.array_equal(a.detach().numpy(), b.detach().numpy(), equal_nan=True), where


def _check_call(call, args, where):
    lmemo, pmemo = {}, {}
    largs, pargs = _swap(args, _leaf, lmemo), _swap(args, _param, pmemo)
    plain, param = _outcome(call, largs), _outcome(call, pargs)
    _same(plain, param, pmemo, where)
    if plain[0] is not None:
        assert _same_grads(_grads(plain[0], list(lmemo.values())), _grads(param[0], list(pmemo.values()))), where
    return bool(lmemo)


def test_every_everyday_op_gives_the_same_value_layout_error_and_gradient_on_parameters():
    called = 0
    for module, _, name in everyday._TABLE:
        args = everyday._ARGS.get(name, (everyday._v,))
        called += _check_call(getattr(module, name), args, name)
    assert called > 120  # (the ops of that table with a float tensor among their arguments)


# the ops tests/test_dispatch.py calls, as (m, x) -> result
_CORE = {
    "permute": lambda x: x.permute(1, 0), "T": lambda x: x.T, "getitem": lambda x: x[1:],
    "view": lambda x: x.view(12), "expand": lambda x: x.expand(2, 3, 4), "unsqueeze": lambda x: x.unsqueeze(0),
    "select": lambda x: x.select(0, 1), "narrow": lambda x: x.narrow(1, 0, 2), "diagonal": lambda x: x.diagonal(),
    "flatten": lambda x: x.flatten(), "reshape": lambda x: x.reshape(2, 6), "contiguous": lambda x: x.T.contiguous(),
    "clone": lambda x: x.clone(), "to": lambda x: x.to(st.float64), "reshape_copy": lambda x: x.T.reshape(-1),
    "add": lambda x: x + x, "mul": lambda x: x * 2.0, "add_row": lambda x: x + x[0], "add_t": lambda x: x.T + x.T,
    "add_int": lambda x: x.to(st.int64) + x, "exp": lambda x: x.exp(), "sigmoid": lambda x: x.sigmoid(),
    "clamp": lambda x: x.clamp(0, 1), "where": lambda x: st.where(x > 0, x, 0.0), "sum": lambda x: x.sum(),
    "sum0": lambda x: x.sum(0), "mean": lambda x: x.mean(), "var": lambda x: x.var(1), "all": lambda x: x.all(),
    "max": lambda x: x.max(), "max0": lambda x: x.max(0), "argmax": lambda x: x.argmax(),
    "softmax": lambda x: x.softmax(1), "matmul": lambda x: x @ x.T, "mm": lambda x: x.mm(x.T),
    "dot": lambda x: x[0].dot(x[1]), "add_": lambda x: x.add_(1), "exp_": lambda x: x.exp_(),
    "rsub": lambda x: 1.0 - x, "rdiv": lambda x: 2.0 / (x + 1), "pow": lambda x: x ** 2, "rpow": lambda x: 2.0 ** x,
    "neg": lambda x: -x, "abs": lambda x: abs(x), "mul_self_t": lambda x: x.T * x.T.contiguous(),
}


@pytest.mark.parametrize("layout", ["contig", "transposed"])
def test_every_core_op_gives_the_same_result_and_gradient_on_parameters(layout):
    x = st.arange(12, dtype=st.float32).view(3, 4) / 7
    if layout == "transposed":
        x = x.T.contiguous().T  # (3, 4) with strides (1, 3)
    for name, fn in _CORE.items():
        _check_call(fn, (x,), f"{name} {layout}")


def test_an_operand_parameter_in_second_place_is_recorded():
    x = st.ones(2, 3)
    for fn in (lambda p: x + p, lambda p: x * p, lambda p: x - p, lambda p: x / p, lambda p: x @ p.t(),
               lambda p: st.maximum(x, p), lambda p: st.where(x > 0, x, p), lambda p: x.clamp(min=p)):
        _check_call(fn, (st.full((2, 3), 0.5),), "second operand")


# ---------------------------------------------------------------- a user's subclass


class MyT(st.Tensor):
    """A user's subclass with a Python attribute of its own."""


def test_a_user_subclass_is_made_by_as_subclass_and_its_ops_give_plain_tensors():
    m = st.arange(6.0).view(2, 3).as_subclass(MyT)
    m.label = "mine"
    assert type(m) is MyT and m.label == "mine" and m.stride() == (3, 1)
    # Note: PyTorch's default __torch_function__ would give MyT back; strided has none (documented)
    assert type(m + 1) is st.Tensor and type(m.t()) is st.Tensor and type(m.sum()) is st.Tensor
    assert torch.ones(1).as_subclass(type("TT", (torch.Tensor,), {})).__class__.__name__ == "TT"
    with pytest.raises(TypeError, match="does not inherit from Tensor"):
        st.ones(1).as_subclass(int)
    with pytest.raises(NotImplementedError, match="as_subclass"):
        st.ones(1, requires_grad=True).as_subclass(MyT)


def test_a_user_subclass_that_requires_grad_never_loses_its_gradient():
    data = st.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])
    m = data.clone().as_subclass(MyT).requires_grad_()
    plain = data.clone().requires_grad_()
    for t in (m, plain):
        y = (t * t).sum() + t.exp().mean() + (t @ t.t()).sum() + (3 - t).relu().sum() + t[0].sum()
        y.backward()
    assert type(m.grad) is st.Tensor and m.grad.tolist() == plain.grad.tolist()
    c = copy.deepcopy(m)
    assert type(c) is MyT and c.requires_grad and c.grad.tolist() == m.grad.tolist()
