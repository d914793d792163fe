"""addr against PyTorch's bytes: with beta 0, vec1 scaled by alpha first, as PyTorch's loops; with an
input term, PyTorch's per-position fma forms, pinned (a strict xfail) until addr takes them
(found in session 23)."""

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


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(64, 47), (5, 3), (33, 129), (1, 19), (7, 1)], ids=str)
def test_addr_beta_zero_scales_vec1_first(dtype: type, shape: tuple[int, int]) -> None:
    # PyTorch's loops compute (alpha * vec1) * vec2 when beta is 0 (vector and scalar loops alike);
    # strided multiplied the outer product by alpha: other last bits, and -0.0 for PyTorch's NaN
    rng = np.random.default_rng(shape[0] * 100 + shape[1])
    n, m = shape
    a = rng.standard_normal((n, m)).astype(dtype)
    x, y = rng.standard_normal(n).astype(dtype), rng.standard_normal(m).astype(dtype)
    a[0, 0] = np.nan  # (ignored with beta 0)
    for alpha in (1.7, -2.5, 0.3, 3, 1e-3):
        for beta in (0, 0.0, 1e-300):
            for column_major in (False, True):
                sa = S.from_numpy(np.ascontiguousarray(a.T)).t() if column_major else S.from_numpy(a)
                ta = torch.from_numpy(np.ascontiguousarray(a.T)).t() if column_major else torch.from_numpy(a)
                if beta == 1e-300 and dtype is np.float64:
                    continue  # (1e-300 is not 0 in float64: the input term counts)
                s = S.addr(sa, S.from_numpy(x), S.from_numpy(y), beta=beta, alpha=alpha)
                t = torch.addr(ta, torch.from_numpy(x), torch.from_numpy(y), beta=beta, alpha=alpha)
                assert _bytes(s) == _bytes(t) and s.stride() == tuple(t.stride()), (alpha, beta, column_major)
    big = S.addr(S.zeros(1, 1), S.tensor([3e38]), S.tensor([0.0]), beta=0, alpha=-1.5)
    assert np.isnan(big.item()) and np.isnan(torch.addr(torch.zeros(1, 1), torch.tensor([3e38]), torch.tensor([0.0]),
                                                         beta=0, alpha=-1.5).item())
