"""Red-team findings on issue 25's new names: each test failed before its fix, against PyTorch 2.13."""

from __future__ import annotations

import math

import pytest
import torch

import strided

INF = math.inf


def _same(t: torch.Tensor, s: strided.Tensor) -> None:
    """Values (NaN-equal, signed zeros included), dtype and shape of ``s`` equal ``t``'s."""
    assert str(t.dtype).split(".")[1] == s.dtype.name
    assert tuple(t.shape) == tuple(s.shape)
    tv, sv = t.tolist(), s.tolist()
    for a, b in zip(tv, sv):
        assert (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b)), (tv, sv)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("exp_shape", [(), (1,), (2, 1)])
@pytest.mark.parametrize("fn", ["pow", "float_power"])
def test_power_with_a_broadcast_half_exponent_tensor_is_cs_pow(fn: str, exp_shape: tuple, dtype: str) -> None:
    # NumPy computes x ** 0.5 as sqrt(x) when the exponent repeats along its inner loop (a 0-d or
    # broadcast exponent): sqrt(-inf) is NaN and sqrt(-0.0) is -0.0, where PyTorch's pow of a
    # tensor exponent (C's pow) gives inf and 0.0.
    base = [[-INF, -0.0, 4.0, 0.0, INF]] * 2
    tb, sb = torch.tensor(base, dtype=getattr(torch, dtype)), strided.tensor(base, dtype=getattr(strided, dtype))
    te = torch.full(exp_shape, 0.5, dtype=getattr(torch, dtype))
    se = strided.full(exp_shape, 0.5, dtype=getattr(strided, dtype))
    t, s = getattr(torch, fn)(tb, te), getattr(strided, fn)(sb, se)
    for tr, sr in zip(t, s):
        _same(tr, sr)
    # a Python 0.5 is PyTorch's sqrt (NaN at -inf): unchanged
    _same(getattr(torch, fn)(tb[0], 0.5), getattr(strided, fn)(sb[0], 0.5))
