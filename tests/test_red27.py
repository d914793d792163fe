"""Hostile differential review, round 27: first and second derivatives of the registry's ops against
torch.autograd (0-d, zero-size, permuted and expanded leaves, broadcast operands), type promotion,
and view + in-place chains. Each test is one mismatch found, checked against PyTorch itself.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import strided as st


def _np(t):
    """The values of a strided or torch tensor (None stays None)."""
    if t is None:
        return None
    if isinstance(t, torch.Tensor):
        return t.detach().numpy(force=True)
    return t.detach().numpy()


def _same(a, b) -> None:
    """Same shape, dtype and values (NaN where the other has NaN), or both None."""
    assert (a is None) == (b is None)
    if a is None:
        return
    an, bn = _np(a), _np(b)
    assert an.shape == bn.shape and an.dtype == bn.dtype
    np.testing.assert_allclose(an, bn, rtol=1e-12, atol=0, equal_nan=True)


def _leaf(lib, values, shape, strides, offset=0):
    """A float64 leaf that requires grad, laid out as (shape, strides, offset) over ``values``."""
    base = lib.tensor(np.asarray(values, dtype=np.float64))
    return lib.as_strided(base, shape, strides, offset).detach().requires_grad_()


def _first_and_second(lib, f, leaves, v):
    """f(*leaves), its gradient against ``v`` (create_graph), and the gradient of the gradients'
    weighted sum (each gradient that requires grad), or the error class where one raises."""
    out = f(lib, *leaves)
    grads = lib.autograd.grad(out, leaves, lib.tensor(v), create_graph=True, allow_unused=True)
    live = [g.sum() * (i + 1.5) for i, g in enumerate(grads) if g is not None and g.requires_grad]
    if not live:
        return out, grads, "none requires grad"
    total = live[0]
    for g in live[1:]:
        total = total + g
    return out, grads, lib.autograd.grad(total, leaves, allow_unused=True)


def _check(f, layouts, v) -> None:
    """f's result, first and second derivatives are PyTorch's, on leaves of these layouts."""
    got = []
    for lib in (torch, st):
        leaves = [_leaf(lib, *lay) for lay in layouts]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got.append(_first_and_second(lib, f, leaves, v))
    (to, tg, tgg), (so, sg, sgg) = got
    _same(to, so)
    for a, b in zip(tg, sg):
        _same(a, b)
    assert isinstance(tgg, str) == isinstance(sgg, str), (tgg, sgg)
    if not isinstance(tgg, str):
        for a, b in zip(tgg, sgg):
            _same(a, b)


# ---------------------------------------------------------------- a 0-d input's dim 0 / -1

ZERO_D = [
    lambda L, x: x.mean(-1),
    lambda L, x: x.mean(0, keepdim=True),
    lambda L, x: x.mean((0,)),
    lambda L, x: x.var(0),
    lambda L, x: x.var(-1, correction=0),
    lambda L, x: x.std(-1),
    lambda L, x: x.std(0, keepdim=True, correction=0),
    lambda L, x: x.movedim(-1, 0),
    lambda L, x: x.movedim(0, -1) * x,
    lambda L, x: x.sum(-1) * x,
]


@pytest.mark.parametrize("f", ZERO_D)
def test_a_zero_d_inputs_reductions_and_movedim_over_dim_0_or_minus_1_differentiate(f):
    # the rules read shape[dim] of a 0-d input (IndexError) or wrapped dims modulo 0
    # (ZeroDivisionError); PyTorch reads dim 0 / -1 of a 0-d tensor as its one element
    _check(f, [([0.7], (), ())], 1.25)


# ---------------------------------------------------------------- diff along an empty dim


@pytest.mark.parametrize("shape, dim, n", [((0,), 0, 1), ((0,), 0, 2), ((2, 0, 3), 1, 1), ((0, 3), 0, 1),
                                           ((2, 0, 3), 0, 1), ((0, 3), -1, 1), ((2, 3), 0, 5)])
def test_diff_of_an_empty_dim_gives_its_input_an_empty_gradient(shape, dim, n):
    # PyTorch's result there is its input itself, whose gradient is the (empty) incoming one;
    # strided's rule gave the input no gradient at all (None: "appears to not have been used")
    got = []
    for lib in (torch, st):
        x = lib.ones(shape, dtype=lib.float64, requires_grad=True)
        out = x.diff(n=n, dim=dim)
        got.append(lib.autograd.grad(out, x, lib.ones(out.shape, dtype=lib.float64))[0])
    _same(*got)


def test_diff_with_an_empty_append_gives_it_an_empty_gradient():
    got = []
    for lib in (torch, st):
        x = lib.arange(6.0, dtype=lib.float64).reshape(2, 3).requires_grad_()
        tail = lib.ones((2, 0), dtype=lib.float64, requires_grad=True)
        out = x.diff(dim=1, append=tail)
        got.append(lib.autograd.grad(out, (x, tail), lib.arange(4.0, dtype=lib.float64).reshape(2, 2)))
    for a, b in zip(*got):
        _same(a, b)


# ---------------------------------------------------------------- pow with a 0-d base


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("f", [lambda L, x, y: x ** y, lambda L, x, y: L.pow(x, y),
                               lambda L, x, y: L.float_power(x, y), lambda L, x, y: x.pow(y.t())])
def test_pow_of_a_zero_d_base_and_a_permuted_exponent(f, dtype):
    # the dense kernel run transposed the 0-d base into the exponent's memory order: ValueError
    got = []
    for lib in (torch, st):
        y = lib.as_strided(lib.tensor([0.1, 0.2, 0.3, 0.4, 0.5, 0.6], dtype=getattr(lib, dtype)), (2, 3), (1, 2), 0)
        out = f(lib, lib.tensor(1.5, dtype=getattr(lib, dtype)), y)
        got.append((out.stride(), _np(out)))
    assert got[0][0] == got[1][0]
    np.testing.assert_array_equal(got[0][1], got[1][1])


def test_pow_of_a_zero_d_base_and_a_permuted_exponent_differentiates():
    _check(lambda L, x, y: x ** y, [([1.5], (), ()), ([0.1, 0.2, 0.3, 0.4, 0.5, 0.6], (2, 3), (1, 2))],
           np.arange(6.0).reshape(2, 3))


# ---------------------------------------------------------------- remainder's second derivative


def _contiguous(values, shape):
    """(values, shape, strides) of a row-major leaf holding the first prod(shape) values."""
    strides, acc = [], 1
    for size in reversed(shape):
        strides.insert(0, acc)
        acc *= size
    return (list(values)[:max(acc, 1)], shape, tuple(strides))


@pytest.mark.parametrize("sx, sy", [((3,), (3,)), ((2, 3), (3,)), ((), ()), ((3,), ())])
def test_remainders_divisor_gradient_is_recorded_as_pytorchs(sx, sy):
    # PyTorch's gradient of b, -g * a.div(b, rounding_mode="floor"), records the quotient (a zero
    # derivative): it requires grad, and the second derivative is zeros, not "does not require grad"
    shape = tuple(torch.broadcast_shapes(sx, sy))
    _check(lambda L, x, y: L.remainder(x, y),
           [_contiguous([2.5, -1.25, 7.0, 0.5, -3.0, 9.0], sx), _contiguous([0.7, 0.9, -1.1], sy)],
           np.linspace(-1, 1, int(np.prod(shape))).reshape(shape))
