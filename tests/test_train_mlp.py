"""Acceptance (issue 25): a PyTorch MLP classifier training program (two layers, batches of 32,
five steps of Adam on cross_entropy) run with torch and with strided from the same initial
weights and data: the losses, the gradients and the weights agree step for step (float32).

The program is written once, against a module namespace ``lib`` (``torch`` or ``strided``), an
``F`` and an ``optim``, as a user's script would be with only its imports changed; the weights are
plain leaf tensors (``nn.Module`` arrives separately)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import strided
import strided.nn.functional as SF
from strided import optim as soptim

BATCH, FEATURES, HIDDEN, CLASSES, STEPS = 32, 10, 16, 4, 5


def _data_and_weights():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(STEPS * BATCH, FEATURES, generator=g)
    y = x[:, :CLASSES].argmax(1)  # (labels a network can learn: the loss falls within five steps)
    # PyTorch's nn.Linear initialisation (kaiming-uniform bounds), drawn by torch
    weights = {}
    for name, (fan_out, fan_in) in {"1": (HIDDEN, FEATURES), "2": (CLASSES, HIDDEN)}.items():
        bound = 1 / fan_in**0.5
        weights["W" + name] = (torch.rand(fan_out, fan_in, generator=g) * 2 - 1) * bound
        weights["b" + name] = (torch.rand(fan_out, generator=g) * 2 - 1) * bound
    return x, y, weights


def train(lib, F, optim, x, y, init, optimizer="Adam", **opt_kw):
    """The training program: forward, cross_entropy, backward, step; returns what it saw per step."""
    params = {k: lib.tensor(v.numpy(), requires_grad=True) for k, v in init.items()}
    opt = getattr(optim, optimizer)(list(params.values()), **opt_kw)
    seen = []
    for step in range(STEPS):
        xb = lib.tensor(x[step * BATCH:(step + 1) * BATCH].numpy())
        yb = lib.tensor(y[step * BATCH:(step + 1) * BATCH].numpy())
        h = F.relu(F.linear(xb, params["W1"], params["b1"]))
        logits = h @ params["W2"].t() + params["b2"]
        loss = F.cross_entropy(logits, yb)
        opt.zero_grad()
        loss.backward()
        grads = {k: p.grad.numpy().copy() for k, p in params.items()}
        opt.step()
        seen.append((loss.item(), grads, {k: p.detach().numpy().copy() for k, p in params.items()}))
    return seen


@pytest.mark.parametrize("optimizer,kw", [("Adam", {"lr": 0.05}), ("SGD", {"lr": 0.2, "momentum": 0.9}),
                                          ("AdamW", {"lr": 0.05, "amsgrad": True})])
def test_mlp_training_equals_torch_step_for_step(optimizer, kw):
    x, y, init = _data_and_weights()
    ours = train(strided, SF, soptim, x, y, init, optimizer, **kw)
    theirs = train(torch, TF, torch.optim, x, y, init, optimizer, foreach=False, **kw)
    for step, ((sl, sg, sw), (tl, tg, tw)) in enumerate(zip(ours, theirs)):
        assert sl == pytest.approx(tl, rel=1e-6, abs=1e-7), f"loss at step {step}"
        for k in init:
            np.testing.assert_allclose(sg[k], tg[k], rtol=1e-5, atol=1e-6, err_msg=f"grad {k} step {step}")
            np.testing.assert_allclose(sw[k], tw[k], rtol=1e-5, atol=1e-6, err_msg=f"weight {k} step {step}")
    assert ours[-1][0] < ours[0][0]  # (and it learns: the loss went down)
