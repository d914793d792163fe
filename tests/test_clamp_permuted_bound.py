"""clamp_min / clamp_max of a permuted dense float tensor by a tensor bound of the same layout
(ops/elementwise/unary.py ``_permuted_extreme``: the compiled maximum / minimum over the storage
runs): results against PyTorch 2.13 bit for bit (signed zeros, NaN payloads, infinities,
subnormals), strides included, for transposes and 3-d permutes, float32 and float64, rows below
and above PyTorch's parallel grain, with the path on and forced off (the general path)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided
from strided.ops.elementwise import unary

SPECIALS = [0.0, -0.0, np.nan, -np.nan, np.inf, -np.inf, 1e-45, -1e-45, 5e-324, 1.0, -1.0, 3.5]


def _data(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(int(np.prod(shape))).astype(dtype)
    picks = rng.integers(0, len(SPECIALS), a.size)
    where = rng.random(a.size) < 0.3
    a[where] = np.array(SPECIALS, dtype)[picks[where]]
    if dtype == np.float32:  # a NaN with a payload
        a.view(np.uint32)[::53] = 0x7FC12345
    return a.reshape(shape)


def _bits(t) -> bytes:
    return np.ascontiguousarray(np.asarray(t)).tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,perm", [((37, 41), (1, 0)), ((300, 200), (1, 0)), ((8, 9, 700), (2, 0, 1)),
                                        ((5, 6, 7), (1, 2, 0))])
@pytest.mark.parametrize("op", ["clamp_min", "clamp_max"])
@pytest.mark.parametrize("fast", [True, False])
def test_permuted_tensor_bound_matches_torch(dtype, shape, perm, op, fast, monkeypatch):
    taken = []
    real = unary._permuted_extreme
    monkeypatch.setattr(unary, "_permuted_extreme", lambda *a: taken.append(1) or (real(*a) if fast else None))
    xs, bs = _data(shape, dtype, 1), _data(shape, dtype, 2)
    with np.errstate(invalid="ignore"):
        bs.reshape(-1)[::7] = -xs.reshape(-1)[::7] * 0.0  # (zeros tied with zeros of the other sign)
    x, b = xs.transpose(perm), bs.transpose(perm)
    got = getattr(strided, op)(strided.from_numpy(x), strided.from_numpy(b))
    want = getattr(torch, op)(torch.from_numpy(x), torch.from_numpy(b))
    assert tuple(got.shape) == tuple(want.shape)
    assert tuple(got.stride()) == tuple(want.stride())
    assert _bits(got) == _bits(want.numpy())
    assert taken


def test_other_layouts_take_the_general_path(monkeypatch):
    """A bound of other strides (or a number, or two bounds) is not this path's."""
    calls = []
    real = unary.torch_extremes.extreme_fresh

    def spy(*a):
        calls.append(a)
        return real(*a)

    monkeypatch.setattr(unary.torch_extremes, "extreme_fresh", spy)
    x = _data((64, 50), np.float32, 3).T
    y = np.ascontiguousarray(_data((64, 50), np.float32, 4).T)
    got = strided.clamp_min(strided.from_numpy(x), strided.from_numpy(y))
    want = torch.clamp_min(torch.from_numpy(x), torch.from_numpy(y))
    assert _bits(got) == _bits(want.numpy()) and tuple(got.stride()) == tuple(want.stride())
    assert not calls
