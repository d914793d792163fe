"""``.grad`` as PyTorch makes it, strides included (a wrong stride is a wrong number): leaves of
many layouts (row-major, permuted, sliced with steps, size-1 dims of any stride, stride-0
expanded, 0-d, zero-size) through graphs that meet PyTorch's three layout rules:

- the engine's InputBuffer sums two gradients of one input in place into the first (keeping its
  strides) when it holds the only reference to it and it is non-overlapping and dense, else
  out of place (``x * x``, ``x + x``, ``x.sum() + x.mean()``, a leaf used in several ops);
- AccumulateGrad keeps a fresh gradient that obeys the layout contract, else copies it with the
  leaf's strides (dense leaf) or row-major; a second backward adds in place, or out of place
  under create_graph, whose first ``.grad`` is always such a copy (``clone_obey_contract``);
- retain_grad keeps a row-major clone, later gradients added out of place; so does
  ``backward(inputs=...)`` for a non-leaf input (which it makes retain its grad), while a leaf
  input's gradient goes through AccumulateGrad's rules.

Differential against torch: shape, strides, dtype and values of every ``.grad``, with the
compiled engine loop and with its Python reference.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import strided
from strided.autograd import engine


@st.composite
def leaf_layouts(draw: st.DrawFn) -> tuple:
    """(shape, strides, offset, then) of a leaf made as ``arange(n).as_strided(...)``: the dims
    in a drawn order with steps, size-1 dims with any stride (0 included), maybe a stride-0 dim
    of size > 1 (overlapping); ``then`` 'contiguous' makes a row-major copy of it first."""
    ndim = draw(st.integers(0, 3))
    shape = tuple(draw(st.lists(st.integers(0, 3), min_size=ndim, max_size=ndim)))
    order = draw(st.permutations(range(ndim)))
    strides = [0] * ndim
    run = 1
    for d in reversed(order):
        step = draw(st.sampled_from((1, 1, 2)))
        strides[d] = run * step
        run *= max(shape[d], 1) * step
    for d in range(ndim):
        if shape[d] == 1:
            strides[d] = draw(st.sampled_from((0, 1, 3, 7, strides[d])))
    if ndim and draw(st.booleans()) and draw(st.booleans()):
        strides[draw(st.integers(0, ndim - 1))] = 0  # (an expanded dim)
    offset = draw(st.sampled_from((0, 0, 2)))
    then = draw(st.sampled_from(("leaf", "leaf", "leaf", "contiguous")))
    return shape, tuple(strides), offset, then


def _leaf(mod, spec: tuple, dtype_name: str):
    shape, strides, offset, then = spec
    n = offset + 1 + sum((s - 1) * st_ for s, st_ in zip(shape, strides) if s > 0)
    base = ((mod.arange(n, dtype=mod.float64) % 7 - 3) * 0.5).to(getattr(mod, dtype_name))
    x = base.as_strided(shape, strides, offset)
    if then == "contiguous":
        x = x.contiguous()
    return x.requires_grad_()


def _weights(mod, x):
    """A fixed weight of ``x``'s shape (row-major), so that upstream gradients are not all ones."""
    n = int(np.prod(x.shape))
    return ((mod.arange(n, dtype=mod.float64) % 5 + 1) * 0.25).to(x.dtype).reshape(tuple(x.shape))


def _twice(x, mod):
    (x * x).sum().backward()
    (x * _weights(mod, x)).sum().backward()


def _retain_graph(x, mod):
    y = (x * x * _weights(mod, x)).sum()
    y.backward(retain_graph=True)
    y.backward()


def _create_graph(x, mod):
    (x * x).sum().backward(create_graph=True)


def _create_graph_twice(x, mod):
    (x * x).sum().backward(create_graph=True)
    (x * _weights(mod, x)).sum().backward(create_graph=True)


def _plain_then_create_graph(x, mod):
    (x * 3).sum().backward()
    (x.square() * _weights(mod, x)).sum().backward(create_graph=True)


def _two_leaves(x, mod):
    w = _weights(mod, x).requires_grad_()
    (x * w + x * x + w).sum().backward()
    return [w]


def _retain_grad(x, mod):
    y = x * 2
    y.retain_grad()
    (y * y).sum().backward()
    return [y]


def _retain_grad_twice(x, mod):
    y = x * 2
    y.retain_grad()
    (y.sum() + (y * y).sum()).backward(retain_graph=True)
    (y * _weights(mod, x)).sum().backward()
    return [y]


def _explicit(x, mod):
    g = _weights(mod, x)
    x.backward(g)  # (the caller holds g: copied, never kept)


def _explicit_through(x, mod):
    (x * 1).backward(_weights(mod, x))


def _inputs_leaf(x, mod):
    (x * x * _weights(mod, x)).sum().backward(inputs=[x])


def _inputs_non_leaf(x, mod):
    y = x * 2
    (y * y).sum().backward(inputs=[y], retain_graph=True)
    (y * x).sum().backward(inputs=[y, x])
    return [y]


GRAPHS = {
    "x*x": lambda x, mod: (x * x).sum().backward(),
    "x+x": lambda x, mod: (x + x).sum().backward(),
    "sum+mean": lambda x, mod: (x.sum() + x.mean()).backward(),
    "weighted x*x": lambda x, mod: (x * x * _weights(mod, x)).sum().backward(),
    "three uses": lambda x, mod: (x * x + x * 3 + x).sum().backward(),
    "square": lambda x, mod: (x.square() * _weights(mod, x)).sum().backward(),
    "pow2": lambda x, mod: (x.pow(2) * _weights(mod, x)).sum().backward(),
    "pow3": lambda x, mod: (x.pow(3) * _weights(mod, x)).sum().backward(),
    "pow0": lambda x, mod: (x.pow(0) * _weights(mod, x)).sum().backward(),
    "reshape": lambda x, mod: (x.reshape(-1) * x.reshape(-1)).sum().backward(),
    "twice": _twice,
    "retain_graph": _retain_graph,
    "create_graph": _create_graph,
    "create_graph twice": _create_graph_twice,
    "plain then create_graph": _plain_then_create_graph,
    "two leaves": _two_leaves,
    "retain_grad": _retain_grad,
    "retain_grad twice": _retain_grad_twice,
    "explicit": _explicit,
    "explicit through": _explicit_through,
    "inputs= leaf": _inputs_leaf,
    "inputs= non-leaf": _inputs_non_leaf,
}


def _grads(mod, spec, graph: str, dtype_name: str) -> list:
    x = _leaf(mod, spec, dtype_name)
    others = GRAPHS[graph](x, mod) or []
    out = []
    for t in [x, *others]:
        g = t.grad
        out.append(None if g is None else (tuple(g.shape), tuple(g.stride()), str(g.dtype).rsplit(".", 1)[-1],
                                           np.array(g.detach().numpy())))
    return out


def _same_numbers(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal values (NaN equal to NaN) and zeros' signs, real and imaginary parts (a NaN's sign
    bit not compared: README's known difference)."""
    if not np.array_equal(a, b, equal_nan=True):
        return False
    for x, y in ((a.real, b.real), (np.imag(a), np.imag(b))):
        zero = x == 0
        if not np.array_equal(np.signbit(x[zero]), np.signbit(y[zero])):
            return False
    return True


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec=leaf_layouts(), graph=st.sampled_from(sorted(GRAPHS)), dtype_name=st.sampled_from(("float64", "float32")),
       python_loop=st.booleans())
def test_grad_layout_values_dtype_match_torch(spec, graph, dtype_name, python_loop):
    want = _grads(torch, spec, graph, dtype_name)
    loop = engine._ENGINE_LOOP
    engine._ENGINE_LOOP = None if python_loop else loop
    try:
        got = _grads(strided, spec, graph, dtype_name)
    finally:
        engine._ENGINE_LOOP = loop
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert (g is None) == (w is None)
        if g is not None:
            assert g[:3] == w[:3], (spec, graph, g[:3], w[:3])
            assert _same_numbers(g[3], w[3]), (spec, graph, g[3], w[3])


@pytest.mark.parametrize("graph", ["x*x", "twice", "retain_graph", "three uses"])
def test_buffer_sum_keeps_first_layout(graph):
    """The example of the issue: x * x of a (3, 1) leaf with strides (1, 9): both gradients have
    strides (1, 3), summed in place into the first; AccumulateGrad keeps it (torch: (1, 3); before,
    strided's out-of-place sum gave (1, 1)); and graphs around it."""
    spec = ((3, 1), (1, 9), 0, "leaf")
    for python_loop in (False, True):
        loop = engine._ENGINE_LOOP
        engine._ENGINE_LOOP = None if python_loop else loop
        try:
            got = _grads(strided, spec, graph, "float32")
        finally:
            engine._ENGINE_LOOP = loop
        want = _grads(torch, spec, graph, "float32")
        assert got[0][:3] == want[0][:3]
        assert np.array_equal(got[0][3], want[0][3])
        if graph == "x*x":
            assert got[0][1] == (1, 3)


def test_buffer_sum_never_writes_memory_lent_to_numpy():
    """A gradient whose memory NumPy also holds (a hook's from_numpy, passed on as it is by add's
    rule) is not added into in place (a copy with its strides takes the sum): the user's array
    keeps its numbers, whichever of the two gradients reaches the buffer first."""
    for first in (0, 1):
        arr = np.arange(6.0).reshape(2, 3)
        x = strided.ones(2, 3, dtype=strided.float64, requires_grad=True)
        z = x + 0
        z.register_hook(lambda g, arr=arr: strided.from_numpy(arr))
        parts = [z.sum(), (x * 2).sum()]
        (parts[first] + parts[1 - first]).backward()
        assert arr.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
        assert x.grad.tolist() == [[2.0, 3.0, 4.0], [5.0, 6.0, 7.0]]


def test_create_graph_grad_is_a_recorded_copy():
    """Under create_graph the first ``.grad`` is PyTorch's clone_obey_contract: a copy with the
    leaf's strides, recorded (CopyBackwards), differentiable again."""
    for mod in (torch, strided):
        x = mod.arange(6.0, dtype=mod.float64).reshape(2, 3).t().requires_grad_()
        (x * x).sum().backward(create_graph=True)
        assert tuple(x.grad.stride()) == (1, 3)
        assert x.grad.grad_fn.name().endswith("CopyBackwards")  # (torch: torch::autograd::CopyBackwards)
        (gx,) = mod.autograd.grad(x.grad.sum(), x)
        assert gx.tolist() == [[2.0, 2.0], [2.0, 2.0], [2.0, 2.0]]


@pytest.mark.parametrize("where", ["second backward", "engine buffer"])
def test_complex_sums_keep_torchs_zero_signs(where):
    """PyTorch adds gradients as ``a + alpha * b`` with alpha 1+0j for complex ones: zeros'
    signs come out of it as from no plain add (-0-0j + -0+2j: +0 real part). Both in-place sums
    (``.grad`` of a second backward, two gradients of one input in the engine's buffer) give
    PyTorch's bits (the second backward's gave -0 before)."""
    g1 = np.array([complex(-0.0, -0.0), complex(1, -0.0), complex(np.inf, 0), complex(-0.0, 1)], dtype=np.complex64)
    g2 = np.array([complex(-0.0, -0.0), complex(-0.0, 2), complex(1, 0), complex(0.0, -0.0)], dtype=np.complex64)
    found = []
    for lib in (torch, strided):
        x = lib.zeros(4, dtype=lib.complex64, requires_grad=True)
        if where == "second backward":
            x.backward(lib.from_numpy(g1.copy()))
            x.backward(lib.from_numpy(g2.copy()))
        else:
            w = lib.ones(4, dtype=lib.complex64)
            # (two fresh gradients of x, each its own: (a * w) backward gives g1 * conj(w) = g1)
            (lib.stack([x * w, x * w]) * 1).backward(lib.from_numpy(np.stack([g1, g2])))
        found.append(np.array(x.grad.detach().numpy()))
    assert _same_numbers(found[1], found[0]), found
