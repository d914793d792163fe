"""Session-31 attack: differential checks of the merged bfloat16 paths against torch.

(float32 tanh is not asserted bit for bit here: on a CPU where PyTorch's MKL takes its AVX-512
path, ~1.5% of its tanh results differ by an ulp from ours, before and after the four-vector
loop alike; tests/test_sleef_loops.py holds the documented threshold.)"""
import numpy as np
import pytest
import torch

import strided as st

SIZES = [1, 31, 32, 33, 63, 64, 65, 1000, 40000]


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
def test_bf16_binary_flipped_matches_torch(n, op):
    x = np.random.default_rng(n).standard_normal(n).astype(np.float32)
    sx, tx = st.tensor(x).to(st.bfloat16), torch.tensor(x).bfloat16()
    got = getattr(st, op)(sx, sx.flip(0)).float().numpy()
    np.testing.assert_array_equal(got, getattr(torch, op)(tx, tx.flip(0)).float().numpy())


@pytest.mark.parametrize("n", [3, 33, 65, 1000])
def test_bf16_overlapping_inplace_raises(n):
    s = st.tensor(np.ones(n, np.float32)).to(st.bfloat16)
    with pytest.raises(RuntimeError):
        s[1:].add_(s[:-1])
