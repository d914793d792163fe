"""The AVX-512 lane forms of bit-exact float32 kernels (``_specialkernel.lanes_form``) give the scalar
loops' bits, and PyTorch's: sinc's eight-lane glibc sine (``_glibc_sinf.h``), logspace's certified
power (``_logspace_f32.h``, also against glibc's ``pow`` through ``pow_base``), i0 and i1
(``_i0_f32.h``) and digamma with glibc's logf (``_digamma_f32.h``). When written, sinc, i0 and
digamma were compared with the scalar loops on every float32 input (digamma: every positive one,
the others take the scalar function), logspace on ~2.7e7 values."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided as st
from strided.kernels import native

_K = native.special()
needs_kernel = pytest.mark.skipif(_K is None or not hasattr(_K, "lanes_form"), reason="the special kernel is not built")


def _both_forms(call):
    """``call()`` with the lane forms on (-1), then with the scalar loops (0): the two answers."""
    before = _K.lanes_form(-1)
    try:
        fast = call()
        _K.lanes_form(0)
        slow = call()
    finally:
        _K.lanes_form(before)
    return fast, slow


def _same_bits(a: np.ndarray, b: np.ndarray) -> None:
    assert a.dtype == b.dtype and a.shape == b.shape
    diff = np.flatnonzero(a.view(np.uint32) != b.view(np.uint32))
    assert diff.size == 0, (diff[:5], a[diff[:5]], b[diff[:5]])


def _unary(x: np.ndarray, kernel) -> np.ndarray:
    out = np.empty_like(x)
    assert kernel(x, out)
    return out


def _sinc_inputs() -> np.ndarray:
    """Every sign and exponent with spread mantissas, the ends of glibc's ranges around them (pi x
    near 2^-12, 0.75, 120), zeros, infinities, NaNs (quiet, signalling, with payloads), odd lengths."""
    rng = np.random.default_rng(26)
    bits = (np.arange(1 << 16, dtype=np.uint32) << 16) | rng.integers(0, 1 << 16, 1 << 16, dtype=np.uint32)
    x = bits.view(np.float32)
    pi = np.float32(np.pi)
    ends = np.array([2.0**-12, 0.75, 120.0], np.float32) / pi
    near = (ends.view(np.uint32)[:, None] + np.arange(-40, 41, dtype=np.int64)[None, :].astype(np.uint32)).view(np.float32)
    nans = np.array([0x7fc00000, 0x7f800001, 0xffc01234, 0xff812345], np.uint32).view(np.float32)
    special = np.array([0.0, -0.0, np.inf, -np.inf, 1.0, -1.0, 38.0, -38.5, 1e-45], np.float32)
    return np.concatenate([x, near.ravel(), -near.ravel(), nans, special, rng.uniform(-40, 40, 4097).astype(np.float32)])


@needs_kernel
@pytest.mark.parametrize("n", [0, 1, 7, 8, 9, 17, None])
def test_sinc_float32_forms_agree(n):
    x = _sinc_inputs()
    x = x if n is None else x[-n:] if n else x[:0]
    _same_bits(*_both_forms(lambda: _unary(x, lambda a, o: _K.unary_exact(a, o, 5))))


@needs_kernel
def test_sinc_float32_is_torchs(torch_threads_as_assumed):
    x = _sinc_inputs()
    got = st.sinc(st.from_numpy(x))._np()
    want = torch.sinc(torch.from_numpy(x)).numpy()
    nan = np.isnan(got) & np.isnan(want)
    _same_bits(np.where(nan, np.float32(0), got), np.where(nan, np.float32(0), want))


def _logspace_reference(s: float, e: float, steps: int, base: float) -> tuple[np.ndarray, float]:
    """float32 logspace by the scalar steps (NumPy's exponents, glibc's pow through pow_base)."""
    s32, e32 = np.float32(s), np.float32(e)
    step = np.float64(e32 - s32) / np.float64(steps - 1)
    i = np.arange(steps, dtype=np.float64)
    half = steps // 2
    ex = np.empty(steps)
    ex[:half] = np.float64(s32) + step * i[:half]
    ex[half:] = np.float64(e32) - step * (steps - 1 - i[half:])
    out = np.empty(steps)
    assert _K.pow_base(float(base), ex, out)
    with np.errstate(over="ignore"):
        return out.astype(np.float32), float(step)


@needs_kernel
@pytest.mark.parametrize("s, e, steps, base", [
    (0, 1, 1 << 18, 10.0), (-45, 39, 1 << 18, 10.0), (-130, 130, 1 << 18, 2.0), (-100, 100, 100_003, np.e),
    (-200, 200, 1 << 17, 0.5), (5, -5, 65_537, 3.7), (-1, 1, 1000, 1.0), (-300, 300, 4099, 1.0000001),
    (0, 1, 2, 10.0), (0, 1, 3, 10.0), (2, 3, 17, 7.0), (-1e3, 1e3, 9999, 1.5), (-3, 3, 31, 1e-300)])
def test_logspace_float32_is_the_scalar_powers(s, e, steps, base):
    want, step = _logspace_reference(s, e, steps, base)
    fast, slow = _both_forms(lambda: _unary(np.empty(steps, np.float32), lambda _, o: _K.logspace_fill(
        float(np.float32(s)), float(np.float32(e)), step, float(base), o)))
    _same_bits(fast, want)
    _same_bits(slow, want)


@needs_kernel
@pytest.mark.parametrize("s, e, steps, base", [(0, 1, 1 << 20, 10.0), (-38, 38, 50_001, 10.0), (-126, 127, 4097, 2.0)])
def test_logspace_float32_is_torchs(s, e, steps, base, torch_threads_as_assumed):
    got = st.logspace(s, e, steps, base, dtype=st.float32)._np()
    want = torch.logspace(s, e, steps, base, dtype=torch.float32).numpy()
    _same_bits(got, want)


@needs_kernel
@pytest.mark.parametrize("n", [0, 1, 15, 16, 17, 33, None])
@pytest.mark.parametrize("which", [0, 1])
def test_i0_i1_float32_lanes_are_the_scalar_steps(n, which):
    """torch_special's float32 i0 and i1 (sixteen lanes, _i0_f32.h) give the scalar bessel_f's bits:
    the branch at 8 inside one vector, expf's special cases at 88, i1's sign (not at -0.0), NaN,
    infinities, odd lengths."""
    x = _sinc_inputs()
    near8 = (np.float32(8.0).view(np.uint32) + np.arange(-50, 51)).astype(np.uint32).view(np.float32)
    near88 = (np.float32(88.0).view(np.uint32) + np.arange(-50, 51)).astype(np.uint32).view(np.float32)
    x = np.concatenate([x, near8, -near88, near88, np.repeat(np.float32(90.0), 3)])
    x = x if n is None else x[-n:] if n else x[:0]
    _same_bits(*_both_forms(lambda: _unary(x, lambda a, o: _K.torch_special(a, o, which, 0))))


@needs_kernel
@pytest.mark.parametrize("name", ["i0", "special_i1"])
def test_i0_i1_float32_are_torchs(name, torch_threads_as_assumed):
    x = _sinc_inputs()
    got = (st.i0 if name == "i0" else st.special.i1)(st.from_numpy(x))._np()
    want = (torch.i0 if name == "i0" else torch.special.i1)(torch.from_numpy(x)).numpy()
    nan = np.isnan(got) & np.isnan(want)
    _same_bits(np.where(nan, np.float32(0), got), np.where(nan, np.float32(0), want))


@needs_kernel
@pytest.mark.parametrize("n", [0, 1, 15, 16, 17, 33, None])
def test_digamma_float32_lanes_are_the_scalar_steps(n):
    """torch_special's float32 digamma (sixteen lanes with glibc's logf, _digamma_f32.h) gives the
    scalar digamma_f's bits: lanes leaving the recurrence at different steps, x == 10 after it,
    x >= 1e17, the poles, negative and non-finite lanes (digamma_f's own), odd lengths."""
    rng = np.random.default_rng(7)
    x = np.concatenate([_sinc_inputs(), np.arange(-12, 25, 0.5, dtype=np.float32), rng.uniform(0, 12, 5000).astype(np.float32),
                        np.array([1e17, 9.99e16, 1.0000001e17, 3e38, 1e-40, 1e-45], np.float32)])
    x = x if n is None else x[-n:] if n else x[:0]
    _same_bits(*_both_forms(lambda: _unary(x, lambda a, o: _K.torch_special(a, o, 4, 0))))


@needs_kernel
def test_digamma_float32_is_torchs(torch_threads_as_assumed):
    x = np.concatenate([_sinc_inputs(), np.random.default_rng(8).uniform(0, 30, 40_000).astype(np.float32)])
    got = st.digamma(st.from_numpy(x))._np()
    want = torch.digamma(torch.from_numpy(x)).numpy()
    nan = np.isnan(got) & np.isnan(want)
    _same_bits(np.where(nan, np.float32(0), got), np.where(nan, np.float32(0), want))
