"""The composed F ops that PyTorch records as one fused node (``huber_loss``): their node name,
values and first derivatives bit for bit against torch, second derivatives (``create_graph``)
within a few ulps (the engine's broadcast sums and ``1/n`` against ``/ n`` reorder them), over
0-d, empty and broadcast shapes and the three reductions."""

from __future__ import annotations

import numpy as np
import pytest

import strided
import strided.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional

SHAPES = [((3, 4), (3, 4)), ((3, 4), (4,)), ((), ()), ((0, 3), (3,)), ((2, 1, 3), (4, 1)), ((5,), ())]


def _node(t) -> str:
    return repr(t.grad_fn).split()[0].lstrip("<")


def _same(a, b) -> None:
    a, b = np.asarray(a.detach().tolist()), np.asarray(b.detach().tolist())
    assert a.shape == b.shape
    np.testing.assert_array_equal(a, b)


def _close(a, b) -> None:
    if a is None or b is None:  # (torch's None where the derivative is 0, or ours)
        z = a if b is None else b
        assert z is None or not np.asarray(z.detach().tolist()).any()
        return
    np.testing.assert_allclose(np.asarray(a.detach().tolist()), np.asarray(b.detach().tolist()),
                               rtol=1e-12, atol=1e-15)


def _compare(call, arrays, grads) -> None:
    rng = np.random.default_rng(1)
    sides = []
    for lib, fn in ((strided, F), (torch, TF)):
        leaves = [lib.tensor(a, dtype=lib.float64, requires_grad=r) for a, r in zip(arrays, grads)]
        out = call(fn, *leaves)
        sides.append((lib, leaves, out))
    (s_lib, s_leaves, s_out), (t_lib, t_leaves, t_out) = sides
    assert _node(s_out) == _node(t_out)
    _same(s_out, t_out)
    v = rng.standard_normal(tuple(t_out.shape))
    firsts, seconds = [], []
    for lib, leaves, out in sides:
        g = lib.tensor(v, dtype=lib.float64, requires_grad=True)
        wrt = [x for x in leaves if x.requires_grad]
        g1 = lib.autograd.grad(out, wrt, g, create_graph=True)
        firsts.append(g1)
        phi = sum((d * lib.tensor(np.cos(np.arange(d.numel())).reshape(tuple(d.shape)), dtype=lib.float64)).sum()
                  for d in g1)
        seconds.append(lib.autograd.grad(phi, [*wrt, g], allow_unused=True))
    for a, b in zip(*firsts):
        _same(a, b)
    for a, b in zip(*seconds):
        _close(a, b)


@pytest.mark.filterwarnings("ignore:Using a target size")
@pytest.mark.parametrize("shapes", SHAPES)
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("delta", [1.0, 0.5])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("target_grad", [False, True])
def test_huber_loss(shapes, reduction, delta, weighted, target_grad):
    rng = np.random.default_rng(0)
    sx, sy = shapes
    x, y = rng.standard_normal(sx) * 2, rng.standard_normal(sy)
    if x.size > 2 and y.size:
        x.flat[0] = y.flat[0] + delta  # (|d| == delta: the kernel's boundary, the linear branch)
    arrays, grads = [x, y], [True, target_grad]
    if weighted:
        arrays.append(rng.random(sx))
        grads.append(target_grad)
    _compare(lambda fn, *a: fn.huber_loss(a[0], a[1], reduction=reduction, delta=delta,
                                          weight=a[2] if weighted else None), arrays, grads)


@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((3, 4), (4,)), ((), ()), ((0, 3), (3,)), ((5,), ())])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_soft_margin_loss(shapes, reduction):
    rng = np.random.default_rng(0)
    sx, sy = shapes
    x, y = rng.standard_normal(sx) * 2, np.sign(rng.standard_normal(sy) + 0.1)
    # (only targets that broadcast into the input: torch's kernel writes the input's shape)
    _compare(lambda fn, a, b: fn.soft_margin_loss(a, b, reduction=reduction), [x, y], [True, False])


def test_soft_margin_loss_target_check_is_the_callers_grad_mode():
    x, t = strided.ones(2, requires_grad=True), strided.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="not differentiable with respect to argument 'target'"):
        F.soft_margin_loss(x, t)
    with strided.no_grad():
        assert F.soft_margin_loss(x, t).grad_fn is None


@pytest.mark.parametrize("shape, dim", [((4,), -1), ((3, 4), 1), ((4, 3), 0), ((0, 4), -1), ((2, 6, 3), 1)])
def test_glu(shape, dim):
    x = np.random.default_rng(0).standard_normal(shape) * 3
    _compare(lambda fn, a: fn.glu(a, dim), [x], [True])


@pytest.mark.parametrize("shape, n", [((4,), 1), ((3, 4), 4), ((3, 4), 1), ((0, 4), 4), ((2, 3, 5), 3), ((), 1),
                                      ((2, 3, 2, 2), 3)])
@pytest.mark.parametrize("weight_grad", [False, True])
def test_prelu(shape, n, weight_grad):
    # (no input exactly 0: there torch's double backward takes input >= 0 as positive, its first
    # derivative input > 0; strided's, in recording ops, keeps > 0 for both, as the composition did)
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape) * 3
    _compare(lambda fn, a, w: fn.prelu(a, w), [x, rng.standard_normal((n,))], [True, weight_grad])
