"""Training in strided and PyTorch side by side: a small MLP and a small attention block, 5 SGD
steps each from identical initial weights; the losses agree step by step (1e-6) and so do the
parameters' gradients. Also the copies a backward pass makes (the copy ledger), pinned.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import strided
import strided.autograd as ag
import strided.nn.functional as SF
from strided.ops.registry import BACKWARD

LR = 0.1


def _params(shapes: dict[str, tuple], seed: int) -> tuple[dict, dict]:
    rng = np.random.default_rng(seed)
    values = {k: rng.standard_normal(s) / math.sqrt(s[-1]) for k, s in shapes.items()}
    return ({k: strided.tensor(v, requires_grad=True) for k, v in values.items()},
            {k: torch.tensor(v, requires_grad=True) for k, v in values.items()})


def _sgd(params: dict, lib) -> None:
    """``p -= lr * p.grad`` in place under no_grad (allowed on a leaf), then the gradient dropped."""
    with (torch.no_grad() if lib is torch else ag.no_grad()):
        for p in params.values():
            p -= LR * p.grad
            p.grad = None


def _train(step, ps: dict, pt: dict, data_s: tuple, data_t: tuple, steps: int = 5) -> list[float]:
    losses = []
    for _ in range(steps):
        ls, lt = step(strided, SF, ps, *data_s), step(torch, TF, pt, *data_t)
        assert ls.item() == pytest.approx(lt.item(), abs=1e-6)
        ls.backward()
        lt.backward()
        for k in ps:
            np.testing.assert_allclose(ps[k].grad.numpy(), pt[k].grad.numpy(), rtol=0, atol=1e-6, err_msg=k)
        losses.append(ls.item())
        _sgd(ps, strided)
        _sgd(pt, torch)
    return losses


# ---------------------------------------------------------------- the MLP

MLP = {"w1": (16, 20), "b1": (16,), "w2": (5, 16), "b2": (5,)}


def mlp_loss(lib, F, p: dict, x, y):
    h = F.relu(F.linear(x, p["w1"], p["b1"]))
    return F.cross_entropy(F.linear(h, p["w2"], p["b2"]), y)


def _mlp_data(seed: int = 0) -> tuple[tuple, tuple]:
    rng = np.random.default_rng(seed)
    x, y = rng.standard_normal((32, 20)), rng.integers(0, 5, 32)
    return (strided.tensor(x), strided.tensor(y)), (torch.tensor(x), torch.tensor(y))


def test_mlp_trains_as_torch_does():
    ps, pt = _params(MLP, 1)
    data_s, data_t = _mlp_data()
    losses = _train(mlp_loss, ps, pt, data_s, data_t)
    assert losses[-1] < losses[0]  # it learns
    assert mlp_loss(strided, SF, ps, *data_s).grad_fn.name() == "NllLossBackward0"


# ---------------------------------------------------------------- the attention block

B, T, C, H = 2, 5, 8, 2
D = C // H
ATTN = {"wq": (C, C), "bq": (C,), "wk": (C, C), "bk": (C,), "wv": (C, C), "bv": (C,), "wo": (C, C), "bo": (C,)}


def _causal(lib, scores, mask):
    """The causal mask: ``masked_fill`` (-inf above the diagonal) where strided's masked_fill is
    differentiable (its rule is agindex's), else the same values added as a bias."""
    if lib is torch or "masked_fill" in BACKWARD:
        return scores.masked_fill(mask, float("-inf"))
    bias = strided.zeros(T, T, dtype=strided.float64).masked_fill(mask, float("-inf"))
    return scores + bias


def attention_loss(lib, F, p: dict, x, y, mask):
    def heads(t):  # (B, T, C) -> (B, H, T, D): a view
        return t.view(B, T, H, D).transpose(1, 2)

    q, k, v = (heads(F.linear(x, p["w" + n], p["b" + n])) for n in "qkv")
    scores = q @ k.transpose(-2, -1) / math.sqrt(D)
    att = F.softmax(_causal(lib, scores, mask), dim=-1)
    out = (att @ v).transpose(1, 2).reshape(B, T, C)  # the reshape of a transposed tensor copies
    logits = F.linear(out, p["wo"], p["bo"])
    return F.cross_entropy(logits.reshape(B * T, C), y)


def _attention_data(seed: int = 0) -> tuple[tuple, tuple]:
    rng = np.random.default_rng(seed)
    x, y = rng.standard_normal((B, T, C)), rng.integers(0, C, B * T)
    mask = np.triu(np.ones((T, T), dtype=bool), 1)
    return ((strided.tensor(x), strided.tensor(y), strided.tensor(mask)),
            (torch.tensor(x), torch.tensor(y), torch.tensor(mask)))


def test_attention_block_trains_as_torch_does():
    ps, pt = _params(ATTN, 2)
    data_s, data_t = _attention_data()
    losses = _train(attention_loss, ps, pt, data_s, data_t)
    assert losses[-1] < losses[0]


# ---------------------------------------------------------------- copy accounting


def _backward_copies(loss_fn, shapes: dict, data: tuple) -> tuple[list, list]:
    ps, _ = _params(shapes, 3)
    with strided.record_copies() as forward:
        loss = loss_fn(strided, SF, ps, *data)
    with strided.record_copies() as backward:
        loss.backward()
    return list(forward), list(backward)


def test_mlp_backward_copies_nothing():
    """Every gradient of the MLP's backward is computed (mm, sums, relu's mask) or a view (the
    weight's transpose, the broadcast of the loss's gradient): the ledger records no copy."""
    forward, backward = _backward_copies(mlp_loss, MLP, _mlp_data()[0])
    assert forward == [] and backward == []


def test_attention_backward_copies_only_what_pytorch_copies():
    """The forward copies once: ``(att @ v).transpose(1, 2).reshape(B, T, C)`` cannot merge the
    head dims. The backward copies twice, for the same reason: the gradients of q and v arrive
    as (B, H, T, D)-contiguous results of a matmul; ``view(B, T, H, D).transpose(1, 2)``'s
    backward must hand a (B, T, C) gradient to the linear layer, and merging H and D needs
    stride[H] == D * stride[D], which a transposed (B, H, T, D) buffer does not have (PyTorch's
    ViewBackward0 reshapes, and copies, the same way). k's gradient arrives transposed already
    (from ``k.transpose(-2, -1)``) and merges as a view; its linear layer's weight gradient is
    a batched matmul summed over the batch, not a copy of the gradient into (B*T, C)."""
    forward, backward = _backward_copies(attention_loss, ATTN, _attention_data()[0])
    assert len(forward) == 1 and forward[0].reason.startswith("reshape(2, 5, 8): dims 2 and 3 cannot merge")
    assert [(r.nbytes, r.reason.split(":")[0]) for r in backward] == [(640, "reshape(2, 5, 8)")] * 2
    assert all("dims 2 and 3 cannot merge" in r.reason for r in backward)
