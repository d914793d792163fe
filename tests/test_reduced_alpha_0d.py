"""add / sub / rsub with ``alpha=`` between a 0-d float32/float64 (or float16) tensor and a
bfloat16/float16 tensor: PyTorch's TensorIterator converts the 0-d operand to the reduced dtype
first (it does not take part in promotion within its category), then runs ``fmadd(other,
alpha, self)``. Bits against PyTorch, both operand orders, in place too."""

import itertools

import numpy as np
import pytest
import torch

import strided

VALUES = np.random.default_rng(5).standard_normal(4011) * 3


def _bits(t) -> bytes:
    if isinstance(t, torch.Tensor):
        return t.float().numpy().tobytes()
    return np.ascontiguousarray(t.to(strided.float32)._np()).tobytes()


@pytest.mark.parametrize("op,zero_d,dtype", list(itertools.product(
    ["add", "sub", "rsub"], ["float32", "float64", "float16"], ["bfloat16", "float16"])))
def test_alpha_with_0d_operand_matches_torch(op, zero_d, dtype):
    differ = []
    for s, alpha, first in itertools.product([0.1, 1 / 3, -2.7182818, 123.456], [1, 2, 0.5, -1.3, 1 / 3, 7],
                                             [True, False]):
        got = []
        for lib in (torch, strided):
            z = lib.tensor(s, dtype=getattr(lib, zero_d))
            t = lib.tensor(VALUES).to(getattr(lib, dtype))
            got.append(_bits(getattr(lib, op)(*((z, t) if first else (t, z)), alpha=alpha)))
        if got[0] != got[1]:
            differ.append((s, alpha, first))
    assert not differ


@pytest.mark.parametrize("method", ["add_", "sub_"])
def test_inplace_alpha_with_0d_operand_matches_torch(method):
    got = []
    for lib in (torch, strided):
        t = lib.tensor(VALUES).to(lib.bfloat16)
        getattr(t, method)(lib.tensor(1 / 3, dtype=lib.float32), alpha=0.7)
        got.append(_bits(t))
    assert got[0] == got[1]
