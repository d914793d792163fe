"""Red-team findings on index_reduce, the special functions and the complex linalg gradients,
each checked against PyTorch 2.13 (texts and values)."""

from __future__ import annotations

import pytest
import torch

import strided as st

pytestmark = pytest.mark.filterwarnings("ignore:index_reduce\\(\\) is in beta")


def _outcome(lib, call):
    try:
        return call(lib).tolist()
    except Exception as e:  # noqa: BLE001 -- the error is the outcome compared
        return (RuntimeError if isinstance(e, RuntimeError) else type(e), str(e).splitlines()[0])


@pytest.mark.parametrize("op", ["index_add", "index_reduce"])
@pytest.mark.parametrize(("self_shape", "source_shape", "n"), [
    ((), (1,), 1), ((1,), (), 1), ((), (), 1), ((2, 3), (5,), 5), ((2, 3), (5,), 4), ((3,), (2, 2), 1),
    ((3, 2), (3, 1), 1),
])
def test_index_source_shape_checks_as_torch(op, self_shape, source_shape, n):
    """A 0-d self took a (1,) source (and a (1,) self a 0-d one) where PyTorch refuses the rank
    mismatch; a dim missing from the source is PyTorch's out-of-bounds error."""
    def call(lib):
        x = lib.zeros(self_shape, dtype=lib.float64)
        s = lib.ones(source_shape, dtype=lib.float64)
        i = lib.zeros(n, dtype=lib.int64)
        return x.index_add(0, i, s) if op == "index_add" else x.index_reduce(0, i, s, "amax")
    def call1(lib):
        x = lib.zeros(self_shape, dtype=lib.float64)
        s = lib.ones(source_shape, dtype=lib.float64)
        i = lib.zeros(n, dtype=lib.int64)
        return x.index_add(-1, i, s) if op == "index_add" else x.index_reduce(-1, i, s, "amax")
    for c in (call, call1):
        assert _outcome(st, c) == _outcome(torch, c)


def test_digamma_near_a_negative_pole_as_torch():
    """digamma's reflection took tan(pi * x): 1e-7 from the pole -3 that is ~1.6e-9 relative off
    PyTorch (0.016 on 1e7), in digamma, polygamma(0) and lgamma's gradient."""
    xs = [-3.0000001, -2.9999999, -20.5000001, -1e6 - 0.25, -0.5000003]
    t = torch.tensor(xs, dtype=torch.float64, requires_grad=True)
    s = st.tensor(xs, dtype=st.float64, requires_grad=True)
    want = torch.digamma(t).detach().numpy()
    assert st.digamma(s).detach().numpy() == pytest.approx(want, rel=1e-13)
    assert st.polygamma(0, s).detach().numpy() == pytest.approx(want, rel=1e-13)
    (g,) = st.autograd.grad(st.lgamma(s).sum(), s)
    assert g.numpy() == pytest.approx(want, rel=1e-13)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_matrix_power_zero_is_in_the_graph_as_torch(dtype):
    """matrix_power(A, 0) of an A that requires grad refused ("not differentiable yet"); PyTorch
    gives A.clone(contiguous).copy_(eye): CopyBackwards, a zero gradient, row-major strides."""
    outs = []
    for lib in (torch, st):
        x = lib.tensor([[[1.0, float("nan")], [2.0, 3.0]]], dtype=getattr(lib, dtype), requires_grad=True)
        y = lib.linalg.matrix_power(x.expand(2, 2, 2).mT, 0)
        (g,) = lib.autograd.grad(y.abs().sum(), x)
        outs.append((y.requires_grad, y.stride(), y.tolist(), g.tolist()))
    assert outs[0] == outs[1]


def _error(lib, call):
    try:
        call(lib)
    except TypeError as e:
        return str(e).splitlines()[0]
    raise AssertionError("no TypeError")


def test_polygamma_arguments_as_torch():
    """n may be a 0-d integer tensor (PyTorch's int parser takes it); a non-tensor x is argument 2."""
    want = torch.polygamma(torch.tensor(2), torch.tensor([1.5], dtype=torch.float64))
    got = st.polygamma(st.tensor(2), st.tensor([1.5], dtype=st.float64))
    assert got.tolist() == pytest.approx(want.tolist(), rel=1e-14)
    assert _error(st, lambda L: L.polygamma(1, 2.0)) == _error(torch, lambda L: L.polygamma(1, 2.0))
    for n in (st.tensor(True), st.tensor([1]), 1.0):
        assert "argument 'n' (position 1) must be int" in _error(st, lambda L, n=n: L.polygamma(n, L.ones(1)))
