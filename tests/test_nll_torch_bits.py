"""nll_loss's reduced value and gradient carry PyTorch's bits: its CPU kernel (nll_loss_out_frame)
adds the per-sample losses in a cascade of eight partial sums (each flushed upward after every
16th, 256th, ... kept sample), not in NumPy's pairwise order; the weight total for "mean" with
class weights is the same cascade's. Halves add in their own type, as PyTorch's Half does."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import strided as st
import strided.nn.functional as F
from strided.nn.functional import losses

CASES = [(1, 4), (4, 5), (17, 3), (128, 10), (300, 7), (4096, 10)]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("native", [True, False])
def test_nll_loss_reductions_are_pytorchs_bits(dtype: str, native: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    if not native:  # (the NumPy steps of the cascade, as without the compiled kernels)
        monkeypatch.setattr(losses, "_row_kernel", lambda: None)
    rng = np.random.default_rng(5)
    tdt, sdt = getattr(torch, dtype), getattr(st, dtype)
    for n, c in CASES:
        logp = TF.log_softmax(torch.tensor(rng.standard_normal((n, c)), dtype=torch.float32), 1).to(tdt)
        ours = st.tensor(logp.float().numpy()).to(sdt)
        weight = rng.uniform(0.1, 2, c).astype(np.float32)
        for ignored in (False, True):
            t = rng.integers(0, c, n)
            if ignored:
                t[rng.random(n) < 0.2] = -100
            for weighted in (False, True):
                tw = torch.tensor(weight).to(tdt) if weighted else None
                sw = st.tensor(weight).to(sdt) if weighted else None
                for red in ("mean", "sum"):
                    want = TF.nll_loss(logp, torch.tensor(t), weight=tw, reduction=red).double().numpy()
                    got = F.nll_loss(ours, st.tensor(t), weight=sw, reduction=red).to(st.float64).numpy()
                    assert np.array_equal(got, want, equal_nan=True), (n, c, ignored, weighted, red, got, want)


def test_nll_loss_mean_gradient_with_class_weights_divides_by_pytorchs_total() -> None:
    """The backward's total weight is the forward's cascade total (PyTorch keeps it from there)."""
    rng = np.random.default_rng(8)
    n, c = 4096, 10
    logp = rng.standard_normal((n, c)).astype(np.float32)
    t = rng.integers(0, c, n)
    t[rng.random(n) < 0.1] = -100
    weight = rng.uniform(0.1, 2, c).astype(np.float32)
    x = st.tensor(logp, requires_grad=True)
    tx = torch.tensor(logp, requires_grad=True)
    F.nll_loss(x, st.tensor(t), weight=st.tensor(weight)).backward()
    TF.nll_loss(tx, torch.tensor(t), weight=torch.tensor(weight)).backward()
    assert x.grad.numpy().tobytes() == tx.grad.numpy().tobytes()


def test_cross_entropy_sum_of_equal_log_softmax_values_is_pytorchs() -> None:
    """cross_entropy reduces through nll_loss: with log_softmax values that agree (one class: all
    zeros; two equal logits: log 1/2 exactly), the reduced values agree bit for bit."""
    for n in (1, 16, 17, 300):
        x = np.zeros((n, 2), np.float32)
        t = np.arange(n) % 2
        for red in ("mean", "sum"):
            want = TF.cross_entropy(torch.tensor(x), torch.tensor(t), reduction=red).numpy()
            got = F.cross_entropy(st.tensor(x), st.tensor(t), reduction=red).numpy()
            assert got.tobytes() == want.tobytes(), (n, red)
