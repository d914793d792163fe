"""Second derivatives through an in-place op on a view, against PyTorch.

CopySlices (the base's history after an in-place op on a view of it) computed its gradient
without recording whenever the incoming gradient had no history, also under create_graph: the
op's node can give that gradient a history of its own through what it saved (exp_'s ``g * result``,
sin_'s ``g * cos(x)``), which was dropped. First derivatives were right; second ones missed the
saved tensors' own derivatives (x.grad -37.95 for PyTorch's -208.73 for exp_ at x = -1.5).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided as st

OPS = {
    "exp_": lambda v, w: v.exp_(), "sin_": lambda v, w: v.sin_(), "cos_": lambda v, w: v.cos_(),
    "sqrt_": lambda v, w: v.sqrt_(), "tanh_": lambda v, w: v.tanh_(), "sigmoid_": lambda v, w: v.sigmoid_(),
    "log_": lambda v, w: v.log_(), "reciprocal_": lambda v, w: v.reciprocal_(), "pow_": lambda v, w: v.pow_(3),
    "mul_w": lambda v, w: v.mul_(w), "div_w": lambda v, w: v.div_(w), "addcmul_": lambda v, w: v.addcmul_(w, w),
    "mul_self": lambda v, w: v.mul_(v), "clamp_": lambda v, w: v.clamp_(0.5, 3.0),
}
VIEWS = {
    "slice": lambda y: y[1:], "stepped": lambda y: y[::2], "select_row": lambda y: y[1],
    "transposed_col": lambda y: y.t()[1], "diagonal": lambda y: y.diagonal(), "whole": lambda y: y[:],
}


def run(lib, op, view):
    x = lib.tensor([[0.5, 1.5, 2.0], [1.25, 0.75, 1.1], [0.3, 2.2, 0.9]], dtype=lib.float64, requires_grad=True)
    w = lib.tensor([1.3, 0.7, 2.1], dtype=lib.float64, requires_grad=True)
    y = x * x + 0.1
    v = VIEWS[view](y)
    OPS[op](v, w[: v.shape[-1]] if v.dim() else w[0])
    weights = lib.tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 2.5], [1.5, 0.25, -2.0]], dtype=lib.float64)
    loss = (y * weights).sum()
    gx, gw = lib.autograd.grad(loss, (x, w), create_graph=True, allow_unused=True)
    second = (gx * weights.flip(0)).sum() + (0 if gw is None else (gw * lib.tensor([0.5, -1.5, 1.0], dtype=lib.float64)).sum())
    second.backward()
    return [t.detach().numpy().copy() if t is not None else None for t in (gx, gw, x.grad, w.grad)]


@pytest.mark.parametrize("view", VIEWS)
@pytest.mark.parametrize("op", OPS)
def test_first_and_second_derivatives_as_pytorch(op, view):
    try:
        theirs = run(torch, op, view)
    except RuntimeError as e:  # (v.mul_(v) saved v before writing it: both refuse the backward)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            run(st, op, view)
        assert "modified by an inplace operation" in str(e)
        return
    ours = run(st, op, view)
    for a, b in zip(ours, theirs):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
