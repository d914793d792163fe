"""bfloat16 exp / tanh in one compiled pass (strided.kernels._sleefkernel's run_bf16): each block
widened into a stack buffer, the float32 kernel, rounded back (nearest even, NaN 0xFFFF). It must
be the path a contiguous bfloat16 exp / tanh takes, and give the three passes' bits (bf16_widen,
the float32 kernel, bf16_narrow: strided.kernels.reduced_arith.three_passes) on every bfloat16,
at every length around its block and vector steps, in place too; and PyTorch's bits."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
import torch

import strided as st
from strided.kernels import native
from strided.kernels.reduced_arith import three_passes
from strided.kernels.sleef import LIBM_EXP, TANH, exp_fresh, tanh_fresh

pytestmark = pytest.mark.skipif(native.sleef() is None or not hasattr(native.sleef(), "run_bf16")
                                or native.half() is None, reason="the compiled kernels are not built")

BF16 = np.dtype(ml_dtypes.bfloat16)
EVERY = np.arange(65536, dtype=np.uint16).view(BF16)
OPS = {"exp": (exp_fresh, LIBM_EXP), "tanh": (tanh_fresh, TANH)}


def _fused(x: np.ndarray, op: int) -> np.ndarray:
    res = np.empty(x.shape, x.dtype)
    assert native.sleef().run_bf16(x, res, op)
    return res


@pytest.mark.parametrize("name", list(OPS))
def test_fused_equals_three_passes_every_bfloat16(name):
    f32, op = OPS[name]
    rng = np.random.default_rng(7)
    runs = [EVERY, EVERY.reshape(256, 256), np.tile(EVERY, 3)[5:],
            rng.integers(0, 65536, 300_001).astype(np.uint16).view(BF16)]
    # (lengths around the 16-lane conversions, the 32-element float32 steps and the 512 block)
    runs += [EVERY[i:i + n] for n in (1, 15, 16, 17, 31, 33, 511, 512, 513, 1025) for i in (0, 40000, 65536 - n)]
    with np.errstate(all="ignore"):
        for x in runs:
            ref = three_passes(f32, x, native.half()).view(np.uint16)
            np.testing.assert_array_equal(_fused(x, op).view(np.uint16), ref)
            inplace = x.copy()
            assert native.sleef().run_bf16(inplace, inplace, op)
            np.testing.assert_array_equal(inplace.view(np.uint16), ref)


def test_fused_refuses_other_lengths_and_overlap():
    x = EVERY[:100].copy()
    assert native.sleef().run_bf16(x, np.empty(99, BF16), LIBM_EXP) is False
    with pytest.raises(ValueError):
        native.sleef().run_bf16(x[:50], x[10:60], LIBM_EXP)
    with pytest.raises(ValueError):
        native.sleef().run_bf16(x, x.copy(), 8)


class _Recorder:
    """native.sleef()'s module, its run_bf16 calls counted."""

    def __init__(self, k):
        self.k, self.calls = k, 0

    def __getattr__(self, name):
        return getattr(self.k, name)

    def run_bf16(self, *args):
        self.calls += 1
        return self.k.run_bf16(*args)


@pytest.mark.parametrize("name", list(OPS))
def test_contiguous_bfloat16_takes_the_fused_pass(monkeypatch, name):
    """strided.exp / tanh of a contiguous bfloat16 tensor calls run_bf16 (not the three passes),
    and its words are PyTorch's over every bfloat16."""
    rec = _Recorder(native.sleef())
    monkeypatch.setattr(native, "sleef", lambda: rec)
    half = native.half()

    def no_three_passes(*args):
        raise AssertionError("the three passes ran")
    monkeypatch.setattr(native, "half", lambda: type("NoWiden", (), {
        "__getattr__": lambda self, a: no_three_passes if a in ("bf16_widen", "bf16_narrow") else getattr(half, a)})())
    for x in (EVERY, EVERY.reshape(256, 256)):
        t = torch.from_numpy(x.view(np.uint16).astype(np.int16)).view(torch.bfloat16)
        before = rec.calls
        got = getattr(st, name)(st.tensor(x) if not hasattr(st, "from_numpy") else st.from_numpy(x))
        assert rec.calls == before + 1
        words = np.asarray(got.numpy()).view(np.uint16)
        ref = getattr(torch, name)(t).view(torch.int16).numpy().view(np.uint16)
        np.testing.assert_array_equal(words, ref)
