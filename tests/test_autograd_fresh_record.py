"""The recorder's path for a forward's fast-path result (:func:`strided.autograd.function.attach_fresh`,
which :func:`strided.gradients.recorded` calls) against the general one (:func:`attach`): the
same node (name, edges, input metadata, saved tensors with their versions, the output's alias),
the same record on the result, the same gradients as PyTorch's; a saved output is held through
its alias (no reference cycle: the result dies with its last reference, the cyclic GC off).
And the saved-version check of :meth:`Node.apply` where no storage written in place is alive."""

from __future__ import annotations

import gc
import subprocess
import sys
import weakref

import numpy as np
import pytest
import torch

import strided
from strided.autograd import function as F
from strided.gradients import recorded
from strided.opdef import OPDEFS

_A = np.random.default_rng(3).standard_normal((4, 5)).astype(np.float32)


def _leaf(lib):
    return lib.tensor(_A, requires_grad=True)


def _summary(out):
    """What the record of ``out`` says, comparable across two results of one call."""
    m = out._ag
    if m is None:
        return None
    node = m.grad_fn
    saved = tuple((t is out, t._ag is None, v, o) for t, v, o in node.saved)
    edges = tuple((None if n is None else n.name(), nr) for n, nr in node.next_functions)
    owns = tuple((a is out, a._storage is out._storage, nr) for a, nr in node.own_outputs)
    return (node.name(), edges, node.ctx, saved, owns, node.n_outputs, m.requires_grad, m.output_nr,
            m.view_version, m.creation)


# (name, operands from a non-leaf x, a leaf y): each takes a forward's fast path
CALLS = [
    ("__mul__", lambda x, y: (x, 1.01)),
    ("__add__", lambda x, y: (x, 0.1)),
    ("__mul__", lambda x, y: (x, y)),
    ("__mul__", lambda x, y: (y, y)),
    ("__sub__", lambda x, y: (y, x)),
    ("__truediv__", lambda x, y: (x, y)),
    ("sin", lambda x, y: (x,)),
    ("tanh", lambda x, y: (x,)),
    ("exp", lambda x, y: (y,)),
    ("sqrt", lambda x, y: (y.abs(),)),
    ("sigmoid", lambda x, y: (x,)),
    ("relu", lambda x, y: (x,)),
]


@pytest.mark.parametrize("name, operands", CALLS, ids=[f"{c[0]}-{i}" for i, c in enumerate(CALLS)])
def test_fresh_path_records_what_attach_records(name, operands):
    y = _leaf(strided)
    x = y * 2.0
    args = operands(x, y)
    maker = OPDEFS[name].backward
    with strided.no_grad():
        plain = getattr(args[0], name)(*args[1:])
    fast = recorded(name, plain.detach(), args)
    general = F.attach(plain.detach(), maker, args, {})
    assert _summary(fast) == _summary(general) and _summary(fast) is not None
    assert np.array_equal(fast.detach().numpy(), general.detach().numpy())


@pytest.mark.parametrize("name, operands", CALLS, ids=[f"{c[0]}-{i}" for i, c in enumerate(CALLS)])
def test_fresh_path_gradients_match_torch(name, operands):
    sy, ty = _leaf(strided), _leaf(torch)
    sx, tx = sy * 2.0, ty * 2.0
    s_out = getattr(operands(sx, sy)[0], name)(*operands(sx, sy)[1:])
    t_out = getattr(operands(tx, ty)[0], name)(*operands(tx, ty)[1:])
    s_out.sum().backward()
    t_out.sum().backward()
    np.testing.assert_allclose(sy.grad.numpy(), ty.grad.numpy(), rtol=1e-6, atol=1e-6)
    assert s_out.grad_fn.name() == t_out.grad_fn.name()


def test_fresh_path_leaves_non_float_results_and_parameters_to_attach():
    p = strided.nn.Parameter(strided.tensor(_A))
    out = p * 1.5  # (a Parameter operand: its node as for any tensor)
    assert out.grad_fn.name() == "MulBackward0" and out.requires_grad
    cmp = p < 0.5  # (a bool result carries no gradient)
    assert cmp._ag is None and not cmp.requires_grad
    out.sum().backward()
    np.testing.assert_array_equal(p.grad.numpy(), np.full(_A.shape, 1.5, np.float32))


@pytest.mark.parametrize("op", ["tanh", "exp", "sqrt", "sigmoid", "relu"])
def test_saved_output_held_through_its_alias(op):
    """(These rule makers are marked saves_output: the fast recorder hands them the alias, which
    is then the one object in the rule's closure, the saved tensors and own_outputs.)"""
    x = strided.tensor(np.abs(_A) + 0.1, requires_grad=True)
    enabled = gc.isenabled()
    gc.disable()
    try:
        y = getattr(x, op)()
        node = y.grad_fn
        assert all(t is not y for t, _, _ in node.saved) and node.own_outputs
        alias = node.own_outputs[0][0]
        assert node.saved[0][0] is alias and node.saved[0][2] is True and alias._storage is y._storage
        assert any(c.cell_contents is alias for c in node.rule.__closure__)
        ref = weakref.ref(y)
        del y
        assert ref() is None  # (no cycle y -> node -> y: freed by its reference count)
    finally:
        if enabled:
            gc.enable()


def test_saved_version_check_with_no_write_alive():
    """In a fresh process no storage has been written in place: Node.apply's check reads no
    counter and the gradient is right; a write after saving then raises PyTorch's error."""
    script = (
        "import numpy as np, strided as st\n"
        "x = st.tensor(np.linspace(-1, 1, 6, dtype=np.float32), requires_grad=True)\n"
        "y = x * 1.0\n"
        "z = y.sin()\n"
        "z.sum().backward(retain_graph=True)\n"
        "assert np.allclose(x.grad.numpy(), np.cos(np.linspace(-1, 1, 6, dtype=np.float32)))\n"
        "with st.no_grad():\n"
        "    y.add_(1.0)\n"
        "try:\n"
        "    z.sum().backward()\n"
        "except RuntimeError as e:\n"
        "    print('modified' if 'modified by an inplace operation' in str(e) else repr(e))\n")
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "modified"


@pytest.mark.parametrize("second", [1.01, 2, True, 1j, None, "tensor", "plain"])
@pytest.mark.parametrize("first", ["leaf", "result", "plain", 0.5])
def test_make_node_short_path_equals_the_general_loop(first, second):
    """make_node's path for one input or a tensor with a number gives what its general loop
    (taken here for the same inputs in a list) gives: the edges, the inputs' (shape, dtype), or
    no node where nothing requires grad."""
    y = _leaf(strided)
    pick = {"leaf": y, "result": y * 3.0, "plain": strided.tensor(_A), "tensor": y * 2.0}
    a = pick.get(first, first) if isinstance(first, str) else first
    b = pick.get(second, second) if isinstance(second, str) else second

    def rule(g):
        return (g, g)

    short = F.make_node(("MulBackward0", (a, b), rule, ()))
    general = F.make_node(("MulBackward0", [a, b], rule, ()))
    if general is None:
        assert short is None
        return
    assert short.next_functions == general.next_functions and short.ctx == general.ctx
    assert short.name() == general.name() and short.saved == general.saved == ()
