"""Red team, session 14: nll_loss's (and so cross_entropy's) gradient as PyTorch's
nll_loss_backward computes it, bit for bit. PyTorch writes ``w[t] * -(g / total_weight)``
("mean"), ``w[t] * -g`` ("sum") or ``-w[t] * g[i]`` ("none") at each kept target's class and leaves
every other element (ignored targets included) at +0: a scaled loss's gradient is rounded once
that way (``g * (-w / total)`` rounds differently), a negative or NaN ``g`` leaves +0 (not -0 or
NaN) off the targets, and a zero total weight gives ``w * -inf`` (NaN for w = 0), not -w."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch

import strided
from oracle_helpers import case as in_case

torch.set_num_threads(1)


def _grad(lib, logits, target, scale, create_graph=False, **kw):
    x = lib.tensor(logits, requires_grad=True)
    kw = {k: lib.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
    y = lib.nn.functional.nll_loss(x, lib.tensor(target), **kw)
    g = lib.tensor(np.full(y.shape, scale, np.float32), dtype=x.dtype, requires_grad=create_graph)
    (got,) = lib.autograd.grad(y, x, g, create_graph=create_graph)  # (recorded, or computed at once)
    return got.detach().numpy()


def _bits(a):
    return np.ascontiguousarray(a).view(np.uint32 if a.dtype == np.float32 else np.uint64)


_RNG = np.random.default_rng(14)
CASES = []
for shape in [(7, 5), (5,), (3, 4, 6), (2, 3, 2, 4)]:
    c = shape[0] if len(shape) == 1 else shape[1]
    tshape = () if len(shape) == 1 else (shape[0], *shape[2:])
    for red in ("mean", "sum", "none"):
        for weights in (False, True):
            for ignore in (False, True):
                CASES.append((shape, tshape, c, red, weights, ignore))


@pytest.mark.parametrize("case", CASES, ids=str)
def test_nll_loss_gradient_is_pytorchs_bit_for_bit(case):
    for scale, dtype, create_graph in itertools.product([-2.7, 3.3, float("nan")], [np.float32, np.float64],
                                                        [False, True]):
        with in_case(scale=scale, dtype=dtype, create_graph=create_graph):
            _nll_loss_gradient_is_pytorchs_bit_for_bit(case, scale, dtype, create_graph)


def _nll_loss_gradient_is_pytorchs_bit_for_bit(case, scale, dtype, create_graph):
    shape, tshape, c, red, weights, ignore = case
    rng = np.random.default_rng(CASES.index(case))  # (the same data whatever the test order)
    logits = rng.standard_normal(shape).astype(dtype)
    target = rng.integers(0, c, tshape)
    if ignore and tshape:
        target.reshape(-1)[::2] = -100
    kw = {"reduction": red}
    if weights:
        kw["weight"] = (rng.random(c) + 0.1).astype(dtype)
    want = _grad(torch, logits, target, scale, create_graph, **kw)
    got = _grad(strided, logits, target, scale, create_graph, **kw)
    if red == "mean" and weights:
        # (the total weight is summed in NumPy's order, PyTorch's may differ by an ulp, as the
        # forward's mean does: the zeros' and NaNs' bits exactly, the rest to a few ulps)
        off = want == 0
        assert np.array_equal(_bits(got[off]), _bits(want[off]))
        nan = np.isnan(want)
        np.testing.assert_array_max_ulp(got[~off & ~nan], want[~off & ~nan], 4)
        assert np.array_equal(_bits(got[nan]), _bits(want[nan]))
        return
    assert np.array_equal(_bits(got), _bits(want))


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("weight", [np.zeros(5, np.float32), np.array([1, -1, 2, -2, 0], np.float32)])
def test_a_zero_total_weight_gives_pytorchs_nan_and_inf_gradient(weight, create_graph):
    logits = _RNG.standard_normal((4, 5)).astype(np.float32)
    target = np.array([0, 1, 4, 4]) if weight.any() else np.array([0, 1, 2, 3])
    want = _grad(torch, logits, target, 1.0, create_graph, weight=weight)
    got = _grad(strided, logits, target, 1.0, create_graph, weight=weight)
    assert np.array_equal(_bits(got), _bits(want)), (got, want)


@pytest.mark.parametrize("create_graph", [False, True])
def test_every_target_ignored_leaves_positive_zeros(create_graph):
    logits = _RNG.standard_normal((4, 5)).astype(np.float32)
    for red in ("mean", "sum", "none"):
        want = _grad(torch, logits, np.full(4, -100), 1.0, create_graph, reduction=red)
        got = _grad(strided, logits, np.full(4, -100), 1.0, create_graph, reduction=red)
        assert np.array_equal(_bits(got), _bits(want)), red


@pytest.mark.parametrize("red", ["mean", "sum", "none"])
def test_float16_gradient_is_pytorchs(red):
    for seed in range(20):
        with in_case(seed=seed):
            _float16_gradient_is_pytorchs(red, seed)


def _float16_gradient_is_pytorchs(red, seed):
    rng = np.random.default_rng(seed)
    logits = rng.standard_normal((6, 5)).astype(np.float16)
    target = np.array([0, 4, -100, 1, 3, 3])
    # (a weighted mean's float16 total weight is PyTorch's own half-precision sum, not followed
    # here (the forward's mean divides by the same total): "mean" without weights, a count)
    kw = {} if red == "mean" else {"weight": (rng.random(5) + 0.1).astype(np.float16)}
    for create_graph in (False, True):
        want = _grad(torch, logits, target, -2.7, create_graph, reduction=red, **kw)
        got = _grad(strided, logits, target, -2.7, create_graph, reduction=red, **kw)
        assert np.array_equal(got.view(np.uint16), want.view(np.uint16)), (got, want)

