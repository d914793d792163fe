"""Differential tests (vs PyTorch) of the divergences fixed in fix37:

- a view made under no_grad / inference_mode of a tensor that requires grad: PyTorch's
  requires_grad (True, no grad_fn, no grad accumulator), its refusals of an in-place write (direct,
  through a view of such a view, and indirect: the base written since), for every view op;
- a Python number converted to a float16 / bfloat16 / integer tensor's dtype (PyTorch's
  ``c10::checked_convert``): threshold's value and hardshrink's lambd convert to the input's own
  dtype, sub's alpha is negated before it converts, a Number argument takes uint64's range;
- the TypeError of an in-place activation given no tensor names the in-place op (``selu_()``).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
import strided.nn.functional as F
from strided.kernels.torch_loops import torch_vector_bytes

torch = pytest.importorskip("torch")
TF = torch.nn.functional


class _Raised(str):
    """An exception's builtin class, named; equal to PyTorch's when that class is among its bases
    (strided's StridedOverflowError is a ValueError and an OverflowError both)."""

    def __new__(cls, e: BaseException) -> _Raised:
        names = [c.__name__ for c in type(e).__mro__ if c.__module__ == "builtins" and c not in (Exception, object,
                                                                                                BaseException)]
        self = super().__new__(cls, names[0])
        self.names = set(names)
        return self

    def __eq__(self, other: object) -> bool:
        return isinstance(other, str) and (str.__eq__(self, other) or other in self.names or (
            isinstance(other, _Raised) and str(self) in other.names))

    __hash__ = str.__hash__


def _outcome(fn):
    """("ok", value) or (exception's builtin class, its first line)."""
    try:
        return ("ok", fn())
    except Exception as e:  # noqa: BLE001 - the class and text are what is compared
        return (_Raised(e), str(e).splitlines()[0] if str(e) else "")


# ---------------------------------------------------------------- views made under no_grad / inference_mode

VIEWS = {
    "slice": lambda x: x[1:],
    "step_slice": lambda x: x[::2],
    "split_with_sizes": lambda x: x.split_with_sizes([2, 4])[0],
    "split": lambda x: x.split(2)[1],
    "chunk": lambda x: x.chunk(3)[2],
    "unbind": lambda x: x.unbind()[0],
    "view": lambda x: x.view(24),
    "reshape": lambda x: x.reshape(4, 6),
    "t": lambda x: x.t(),
    "transpose": lambda x: x.transpose(0, 1),
    "permute": lambda x: x.permute(1, 0),
    "expand": lambda x: x.unsqueeze(0).expand(2, 6, 4),
    "narrow": lambda x: x.narrow(0, 1, 2),
    "select": lambda x: x[1],
    "diagonal": lambda x: x.diagonal(),
    "as_strided": lambda x: x.as_strided((2, 2), (1, 1), 1),
    "unsqueeze": lambda x: x.unsqueeze(1),
    "flatten": lambda x: x.flatten(),
    "unfold": lambda x: x.unfold(0, 2, 1),
    "movedim": lambda x: x.movedim(0, 1),
    "view_as": lambda x: x.view_as(x),
    "zero_size": lambda x: x[6:],
}
MODES = ["no_grad", "inference_mode"]


def _state(lib, view, mode):
    x = lib.zeros(6, 4, requires_grad=True)
    with getattr(lib, mode)():
        v = VIEWS[view](x)
        inside = (v.requires_grad, v.grad_fn is None, v.is_leaf)
    return x, v, (inside, v.requires_grad, v.grad_fn is None, v.is_leaf, v._is_view(), v._base is x, v._version,
                  v.is_inference(), v.grad is None)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("view", sorted(VIEWS))
def test_view_flags_like_torch(view, mode):
    want = _state(torch, view, mode)[2]
    got = _state(st, view, mode)[2]
    assert got == want
    assert got[1] is True  # (PyTorch: requires grad through its base)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("view", sorted(VIEWS))
def test_inplace_on_the_view_refused_like_torch(view, mode):
    def run(lib):
        _, v, _ = _state(lib, view, mode)
        return _outcome(lambda: v.mul_(2))
    want, got = run(torch), run(st)
    assert want[0] == "RuntimeError"
    assert got == want


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("view", ["slice", "t", "select", "unbind", "diagonal"])
def test_view_of_such_a_view_written_refused_like_torch(view, mode):
    def run(lib):
        _, v, _ = _state(lib, view, mode)
        w = v[:1]  # (outside the block: a grad_fn, and the creation inherited)
        return (w.requires_grad, w.is_leaf, w.grad_fn.name(), _outcome(lambda: w.add_(1)))
    assert run(st) == run(torch)


@pytest.mark.parametrize("mode", MODES)
def test_view_unwritten_in_grad_mode_stays_writable_inside(mode):
    for lib in (torch, st):
        x = lib.zeros(6, 4, requires_grad=True)
        with getattr(lib, mode)():
            v = x[1:]
            v.add_(1)  # (both inside the block: PyTorch lets it through)
        assert float(x.detach().sum()) == 20.0


def test_base_written_since_refuses_use_grad_fn_and_is_leaf():
    def run(lib):
        a = lib.ones(3, 4, requires_grad=True)
        b = a * 2
        with lib.no_grad():
            v = b[0]
            w0 = b[1]
        w = w0[1:]
        b.add_(1)  # (the base written in place with grad mode on)
        return [_outcome(lambda: v.requires_grad), _outcome(lambda: v.grad_fn), _outcome(lambda: v.is_leaf),
                _outcome(lambda: (v * 2).sum()), _outcome(lambda: v.add_(1)), _outcome(lambda: w.grad_fn),
                _outcome(lambda: (w * 1).sum())]
    want = run(torch)
    got = run(st)
    assert [g[0] for g in got] == [w[0] for w in want]
    assert [g[1] for g in got if g[0] != "ok"] == [w[1] for w in want if w[0] != "ok"]
    assert sum(w[0] == "RuntimeError" for w in want) == 6


@pytest.mark.parametrize("view", ["slice", "t", "expand", "unbind"])
def test_backward_through_such_a_view_reaches_no_leaf(view):
    """PyTorch: an op of the view records a node (its result requires grad), whose edge to the view
    is empty: the backward runs, and neither the base nor the view gets a gradient."""
    def run(lib):
        x = lib.ones(6, 4, requires_grad=True)
        with lib.no_grad():
            v = VIEWS[view](x)
        y = (v * 3).sum()
        mul = y.grad_fn.next_functions[0][0]
        names = (y.grad_fn.name(), mul.name(), [n for n, _ in mul.next_functions])
        y.backward()
        return y.requires_grad, names, x.grad is None, v.grad is None
    assert run(st) == run(torch)


def test_integer_view_does_not_require_grad():
    for lib in (torch, st):
        x = lib.zeros(2, 4, requires_grad=True)
        with lib.no_grad():
            v = x.view(lib.int32)
            d = x.detach()
        assert (v.requires_grad, d.requires_grad) == (False, False)


def test_repr_says_requires_grad():
    def run(lib):
        x = lib.zeros(2, 2, requires_grad=True)
        with lib.no_grad():
            return repr(x[0]).split(",")[-1].strip()
    assert run(st) == run(torch) == "requires_grad=True)"


# ---------------------------------------------------------------- scalar -> dtype conversion (checked_convert)

REDUCED = ["float16", "bfloat16"]
CALLS = {
    "threshold_value": lambda L, FF, t, v: FF.threshold(t, 1.0, v),
    "threshold_threshold": lambda L, FF, t, v: FF.threshold(t, v, 1.0),
    "threshold_inplace": lambda L, FF, t, v: FF.threshold(t.clone(), 1.0, v, inplace=True),
    "hardshrink": lambda L, FF, t, v: FF.hardshrink(t, abs(v)),
    "hardtanh": lambda L, FF, t, v: FF.hardtanh(t, -abs(v), abs(v)),
    "softshrink": lambda L, FF, t, v: FF.softshrink(t, abs(v)),
    "leaky_relu": lambda L, FF, t, v: FF.leaky_relu(t, v),
    "elu": lambda L, FF, t, v: FF.elu(t, v),
    "fill_": lambda L, FF, t, v: t.clone().fill_(v),
    "masked_fill": lambda L, FF, t, v: t.masked_fill(L.tensor([True, False, True]), v),
    "clamp": lambda L, FF, t, v: L.clamp(t, min=-abs(v)),
    "add_alpha": lambda L, FF, t, v: L.add(t, t, alpha=v),
    "sub_alpha": lambda L, FF, t, v: L.sub(t, t, alpha=v),
}


def _compare(dtype, v, call):
    out = []
    for L, FF in ((torch, TF), (st, F)):
        t = L.tensor([0.0, 1.0, 2.0], dtype=getattr(L, dtype))
        r = _outcome(lambda L=L, FF=FF, t=t: CALLS[call](L, FF, t, v))
        out.append(r if r[0] != "ok" else ("ok", np.asarray(r[1].float().tolist())))
    (wk, wv), (gk, gv) = out
    assert gk == wk, (dtype, v, call, out)
    if wk == "ok":
        np.testing.assert_array_equal(gv, wv)
    else:
        assert gv == wv


@pytest.mark.parametrize("call", sorted(CALLS))
@pytest.mark.parametrize("dtype", REDUCED)
@pytest.mark.parametrize("v", [65504.0, 65505.0, 65520.0, 1e6, -1e6, float("inf"), 3.3895313892515355e38, 3.4e38,
                               1e39, -1e39, 2.0 ** 40])
def test_reduced_float_scalar_conversion_like_torch(dtype, v, call):
    _compare(dtype, v, call)


@settings(max_examples=60, deadline=None)
@given(dtype=hs.sampled_from(REDUCED), call=hs.sampled_from(sorted(CALLS)),
       v=hs.floats(min_value=-1e40, max_value=1e40, allow_nan=False))
def test_reduced_float_scalar_conversion_hypothesis(dtype, call, v):
    _compare(dtype, v, call)


INT_ALPHAS = [127, 128, -127, -128, -129, 255, 256, -255, -256, 2 ** 15, -(2 ** 15), 2 ** 31, -(2 ** 31),
              2 ** 63 - 1, -(2 ** 63), 0, 1, -1]


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32", "int64"])
@pytest.mark.parametrize("alpha", INT_ALPHAS)
def test_sub_alpha_is_negated_before_it_converts(dtype, alpha):
    def run(L):
        t = L.tensor([1, 2, 3], dtype=getattr(L, dtype))
        s = L.arange(40).to(getattr(L, dtype))[::2]  # (a stepped operand: the general path)
        calls = [lambda: L.sub(t, t, alpha=alpha), lambda: t.clone().sub_(t, alpha=alpha),
                 lambda: L.rsub(t, t, alpha=alpha), lambda: L.subtract(t, t, alpha=alpha),
                 lambda: L.sub(t, 1, alpha=alpha), lambda: L.rsub(t, 2, alpha=alpha),
                 lambda: L.sub(s, L.ones(20, dtype=s.dtype), alpha=alpha), lambda: L.add(t, t, alpha=alpha)]
        return [(lambda r: (r[0], r[1].tolist() if r[0] == "ok" else r[1]))(_outcome(c)) for c in calls]
    assert run(st) == run(torch)


@pytest.mark.parametrize("v", [2 ** 63, 2 ** 64 - 1, 2 ** 64, -(2 ** 63) - 1])
@pytest.mark.parametrize("call", ["threshold_f", "threshold_i", "leaky_relu_f", "leaky_relu_i", "elu"])
def test_number_argument_takes_uint64_range(v, call):
    def run(L, FF):
        t, ti = L.tensor([1.0, 2.0]), L.tensor([1, 2])
        fn = {"threshold_f": lambda: FF.threshold(t, 1, v), "threshold_i": lambda: FF.threshold(ti, 1, v),
              "leaky_relu_f": lambda: FF.leaky_relu(t, v), "leaky_relu_i": lambda: FF.leaky_relu(ti, v),
              "elu": lambda: FF.elu(t, v)}[call]
        r = _outcome(fn)
        return (r[0], r[1].tolist()) if r[0] == "ok" else r
    assert run(st, F) == run(torch, TF)


# ---------------------------------------------------------------- in-place ops given no tensor


@pytest.mark.parametrize("name", ["selu", "elu", "celu", "relu", "relu6", "hardtanh", "leaky_relu", "rrelu",
                                  "hardswish", "hardsigmoid", "silu", "mish", "dropout", "threshold"])
def test_inplace_activation_of_no_tensor_names_the_inplace_op(name):
    args = (None, 1.0, 2.0) if name == "threshold" else (None,)
    got, want = (_outcome(lambda FF=FF: getattr(FF, name)(*args, inplace=True)) for FF in (F, TF))
    assert want[0] == "TypeError" and got == want


@pytest.mark.parametrize("name", ["selu_", "relu_", "celu_", "rrelu_"])
def test_module_inplace_function_of_no_tensor_names_itself(name):
    got, want = (_outcome(lambda L=L: getattr(L, name)(None)) for L in (st, torch))
    assert want[0] == "TypeError" and got == want


# ---------------------------------------------------------------- in-place activations' nodes on a tensor in the graph

INPLACE = {
    "threshold_": lambda FF, b: FF.threshold_(b, 0.1, 2.0),
    "threshold_inplace": lambda FF, b: FF.threshold(b, 0.1, 2.0, inplace=True),
    "hardswish": lambda FF, b: FF.hardswish(b, inplace=True),
    "hardsigmoid": lambda FF, b: FF.hardsigmoid(b, inplace=True),
    "hardtanh": lambda FF, b: FF.hardtanh(b, -0.5, 2.0, inplace=True),
    "relu6": lambda FF, b: FF.relu6(b, inplace=True),
    "mish": lambda FF, b: FF.mish(b, inplace=True),
    "silu": lambda FF, b: FF.silu(b, inplace=True),
    "leaky_relu": lambda FF, b: FF.leaky_relu(b, 0.2, inplace=True),
    "leaky_relu_0": lambda FF, b: FF.leaky_relu(b, 0.0, inplace=True),
    "rrelu_eval": lambda FF, b: FF.rrelu(b, training=False, inplace=True),
    "rrelu_": lambda FF, b: FF.rrelu_(b, 0.1, 0.3),
    "elu": lambda FF, b: FF.elu(b, inplace=True),
    "relu": lambda FF, b: FF.relu(b, inplace=True),
}
_VALUES = [1.0, -2.0, 3.0, 0.05, -0.1, 0.1, 2.0, -3.0, 4.0, float("nan"), 0.0, -0.0]


def _inplace_run(L, FF, call, layout, dtype):
    a = L.tensor(_VALUES, dtype=getattr(L, dtype), requires_grad=True)
    b = a * 1
    t = {"plain": lambda: b, "view": lambda: b[1::2], "transposed": lambda: b.view(3, 4).t()}[layout]()
    r = INPLACE[call](FF, t)
    name = t.grad_fn.name()
    g = L.arange(1, 13, dtype=getattr(L, dtype)).reshape(b.shape)
    b.backward(g)
    return r is t, name, np.asarray(a.grad.double().tolist())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layout", ["plain", "view", "transposed"])
@pytest.mark.parametrize("call", sorted(set(INPLACE) - {"silu"}))
def test_inplace_activation_node_and_gradient_like_torch(call, layout, dtype, request):
    if call == "mish" and layout == "transposed" and dtype == "float64" and torch_vector_bytes() == 32:
        request.applymarker(pytest.mark.xfail(strict=True, reason=(
            "an AVX2 CPU: float64 mish_ of a transposed view, its gradient an ulp off PyTorch's at some elements (PyTorch's AVX2 lanes of SLEEF's exp/log1p/tanh vs the C library's, not yet modelled for this layout)")))
    want = _inplace_run(torch, TF, call, layout, dtype)
    got = _inplace_run(st, F, call, layout, dtype)
    assert got[:2] == want[:2]
    np.testing.assert_array_equal(got[2], want[2])


def _version_errors(L, FF, call):
    out = []
    a = L.tensor(_VALUES[:8], requires_grad=True)
    b = a * 1
    c = b * b  # (saves b at version 0)
    INPLACE[call](FF, b)
    out.append(_outcome(lambda: c.sum().backward()))
    a = L.tensor(_VALUES[:8], requires_grad=True)
    b = a * 1
    INPLACE[call](FF, b)
    b.mul_(2)  # (the result written again: fails where the node saved it)
    out.append(_outcome(lambda: b.sum().backward()))
    return [(k, v.split(" Hint")[0] if isinstance(v, str) else None) for k, v in out]


@pytest.mark.parametrize("call", sorted(INPLACE))
def test_inplace_activation_version_errors_like_torch(call):
    assert _version_errors(st, F, call) == _version_errors(torch, TF, call)


@pytest.mark.parametrize("call", ["leaky_relu", "rrelu"])
def test_inplace_leaky_negative_slope_refused_at_backward(call):
    def run(L, FF):
        a = L.tensor([1.0, -2.0], requires_grad=True)
        b = a * 1
        if call == "leaky_relu":
            FF.leaky_relu(b, -0.2, inplace=True)
        else:
            FF.rrelu(b, -0.5, -0.1, training=False, inplace=True)
        return _outcome(lambda: b.sum().backward())
    want = run(torch, TF)
    assert want[0] == "RuntimeError" and run(st, F) == want


@pytest.mark.parametrize("call", ["leaky_relu", "threshold_", "hardswish", "hardtanh"])
def test_inplace_activation_create_graph_like_torch(call):
    def run(L, FF):
        a = L.tensor(_VALUES[:9], dtype=L.float64, requires_grad=True)
        b = a * a
        INPLACE[call](FF, b)
        (ga,) = L.autograd.grad(b.sum(), a, create_graph=True)
        (gg,) = L.autograd.grad((ga * ga).sum(), a)
        return np.asarray(ga.tolist()), np.asarray(gg.tolist())
    for w, g in zip(run(torch, TF), run(st, F)):
        np.testing.assert_array_equal(g, w)

