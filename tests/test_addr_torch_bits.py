"""addr against PyTorch's bytes: the two known mismatches, pinned (strict xfails) until addr
takes PyTorch's per-position forms (found by the session-23 sweep)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided as S


def _bytes(x: object) -> tuple:
    a = x.numpy() if isinstance(x, S.Tensor) else x.detach().numpy()
    return a.shape, a.dtype.str, a.tobytes()


@pytest.mark.xfail(strict=True, reason=(
    "addr's bits: PyTorch 2.13's AVX2 loop computes fma(alpha*vec1, vec2, beta*input) in its vector "
    "blocks (16 float32 / 8 float64 per row) and fma(beta, input, alpha*vec1*vec2) in its scalar tail; "
    "strided computes beta*input + (vec1*vec2)*alpha (NumPy's steps): 25% of float32 results an ulp off "
    "at (64, 48), alpha = beta = 1 included. The fix is lerp's (red23): torch_loops.loop_positions picks "
    "the form per position, with a compiled fma"))
def test_addr_bits_are_pytorchs() -> None:
    rng = np.random.default_rng(0)
    m = rng.standard_normal((64, 48)).astype(np.float32)
    x, y = rng.standard_normal(64).astype(np.float32), rng.standard_normal(48).astype(np.float32)
    s = S.addr(S.from_numpy(m), S.from_numpy(x), S.from_numpy(y))
    t = torch.addr(torch.from_numpy(m), torch.from_numpy(x), torch.from_numpy(y))
    assert _bytes(s) == _bytes(t)


@pytest.mark.xfail(strict=True, reason=(
    "addr with beta=0 scales vec1 first in PyTorch ((alpha*vec1)*vec2: -1.5 * 3e38 overflows to -inf, "
    "times 0 is NaN); strided multiplies the outer product by alpha ((3e38*0)*-1.5 = -0.0)"))
def test_addr_beta_zero_scales_vec1_first() -> None:
    s = S.addr(S.zeros(1, 1), S.tensor([3e38]), S.tensor([0.0]), beta=0, alpha=-1.5)
    assert np.isnan(s.item())
