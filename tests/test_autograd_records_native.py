"""The records a recorded op makes, by the compiled constructors (the copy kernel's new_node /
new_meta) and by their Python reference bodies alike; the rules of ``t * number`` and
``t + number`` and the direct float32 tanh/exp path against PyTorch and the general path.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided
import strided.autograd.graph as G
from strided.grad_mode import Meta
from strided.kernels import sleef

torch.set_num_threads(1)
RNG = np.random.default_rng(17)

NODE_SLOTS = ("_name", "rule", "next_functions", "ctx", "saved", "freed", "n_outputs", "pre_hooks", "passed",
              "own_outputs")
META_SLOTS = ("requires_grad", "grad", "grad_fn", "output_nr", "retains_grad", "hooks", "acc", "view_version",
              "creation")


def _rule(g):
    return (g,)


@pytest.mark.parametrize("cls", [G.Node, G.AccumulateGrad])
def test_new_node_matches_python_body(cls):
    x = strided.ones(3, requires_grad=True)
    args = (cls, "MulBackward0", _rule, ((None, 0),), (((3,), x.dtype),), ((x, 0, False),))
    made, ref = G.new_node(*args), G._new_node_python(*args)
    assert type(made) is cls and type(ref) is cls
    for slot in NODE_SLOTS:
        a, b = getattr(made, slot), getattr(ref, slot)
        assert a == b and type(a) is type(b), slot
    assert made.next_functions is args[3] and made.saved is args[5]


def test_new_meta_matches_meta_init():
    node = G.new_node(G.Node, "X", _rule, (), None, ())
    made, ref = G.new_meta(node), Meta(False, node)
    assert type(made) is Meta
    for slot in META_SLOTS:
        a, b = getattr(made, slot), getattr(ref, slot)
        assert a == b and type(a) is type(b), slot
    assert made.grad_fn is node


def test_new_node_refuses_other_classes():
    if G.new_node is G._new_node_python:
        pytest.skip("copy kernel not built")
    with pytest.raises(TypeError):
        G.new_node(Meta, "X", _rule, (), None, ())
    with pytest.raises(TypeError):
        G.new_node(G.Node, "X", _rule)


def test_accumulate_grad_of_leaf():
    w = strided.ones(2, 2, requires_grad=True)
    y = w * 2.0
    acc = y.grad_fn.next_functions[0][0]
    assert type(acc) is G.AccumulateGrad and acc.variable is w and acc.name() == "torch::autograd::AccumulateGrad"
    assert acc.next_functions == () and acc.rule is None and not acc.saved and acc.n_outputs == 1
    y.sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), np.full((2, 2), 2.0, np.float32))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("spell", ["mul", "rmul", "add", "radd", "add_alpha", "mul_np", "sub"])
def test_number_operand_rules_match_torch(dtype, spell):
    a = RNG.standard_normal((5, 7)).astype(dtype)
    g = RNG.standard_normal((5, 7)).astype(dtype)
    ops = {"mul": lambda t: t * 1.01, "rmul": lambda t: 1.37 * t, "add": lambda t: t + 0.1,
           "radd": lambda t: 0.3 + t, "add_alpha": lambda t: t.add(0.5, alpha=3.0),
           "mul_np": lambda t: t * np.float64(1.7), "sub": lambda t: t - 0.25}
    grads = []
    for lib in (strided, torch):
        x = lib.tensor(a, requires_grad=True)
        y = ops[spell](x * x)  # (a result with a history: the rule's node is recorded)
        y.backward(lib.tensor(g))
        grads.append(np.asarray(x.grad.numpy()))
    assert grads[0].dtype == grads[1].dtype
    np.testing.assert_array_equal(grads[0].view(np.uint8), grads[1].view(np.uint8))


def test_number_rules_double_backward_match_torch():
    a = RNG.standard_normal(6)
    out = []
    for lib in (strided, torch):
        x = lib.tensor(a, requires_grad=True)
        y = ((x * 1.5 + 0.2) * x).sin().sum()
        (gx,) = (strided.autograd if lib is strided else torch.autograd).grad(y, x, create_graph=True)
        gx.sum().backward()
        out.append((gx.detach().numpy(), x.grad.numpy()))
    for s, t in zip(out[0], out[1]):
        np.testing.assert_array_equal(s, t)


@pytest.mark.parametrize("fresh, op", [(sleef.tanh_fresh, 4), (sleef.exp_fresh, 3)])
@pytest.mark.parametrize("n", [0, 1, 7, 256, 1001])
def test_fresh_flat_run_equals_elementwise(fresh, op, n):
    if strided.kernels.native.sleef() is None:
        pytest.skip("sleef kernel not built")
    a = (RNG.standard_normal(2 * n) * 4).astype(np.float32)
    for x in (a[:n], a[1 : n + 1], a[::2]):  # (a run, a run at an offset, a strided array)
        got = fresh(x)
        want = sleef._elementwise(x, None, op)
        assert got.shape == want.shape and got.dtype == np.float32
        np.testing.assert_array_equal(got.view(np.int32), want.view(np.int32))
    x64 = a[:n].astype(np.float64)
    np.testing.assert_array_equal(fresh(x64), (np.tanh if op == 4 else np.exp)(x64))
