"""fixavx2: strided's model of PyTorch's CPU-capability-dependent kernels on a CPU without AVX-512
(an AVX2 + FMA machine, torch's ``get_cpu_capability()`` "AVX2"), side by side with ``torch``.

- float32 ``gelu`` of a contiguous input of more than one element is oneDNN's ``eltwise_gelu_erf``,
  whose form oneDNN picks by the CPU: the minimax polynomial on AVX-512, Abramowitz and Stegun's
  erf with oneDNN's own exp on AVX2 (``sleef.GELU_ONEDNN_AS``). Checked on the machine the test
  runs on, whichever it is (the two forms are different bits: +0.0 vs -0.0 at -0.0, ulps elsewhere).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided
from strided.kernels import native, sleef

K = native.sleef()
needs_kernel = pytest.mark.skipif(K is None, reason="the compiled kernel is not built")


def _bits_equal(got: np.ndarray, want: np.ndarray) -> None:
    bad = np.nonzero(got.view(np.uint32) != want.view(np.uint32))[0]
    assert not bad.size, f"{bad.size} differ, first {bad[:4]}: {got[bad[:4]]} vs {want[bad[:4]]}"


@needs_kernel
@pytest.mark.usefixtures("torch_threads_as_assumed")
@pytest.mark.parametrize("stride", [1, 7919])
def test_gelu_contiguous_is_onednns_form_for_this_cpu(stride: int) -> None:
    """Every 7919th (and every) float32 bit pattern of a window, NaNs, infinities, +-0 and
    subnormals among them, through a contiguous gelu: torch's bits."""
    start = np.uint64(0x3F000000 if stride == 1 else 0)
    bits = (start + np.arange(0, 40000 * stride, stride, dtype=np.uint64)) % np.uint64(2**32)
    x = bits.astype(np.uint32).view(np.float32)
    x[:8] = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45], np.float32)
    want = torch.nn.functional.gelu(torch.from_numpy(x.copy())).numpy()
    got = strided.nn.functional.gelu(strided.from_numpy(x.copy())).numpy()
    _bits_equal(got, want)


@needs_kernel
def test_gelu_of_minus_zero_runs_follows_the_cpus_onednn_form() -> None:
    """A run of -0.0 (two elements or more: oneDNN's kernel) is +0.0 on an AVX2 CPU (S + S * erf:
    -0 + +0) and -0.0 by the AVX-512 minimax form; one element is GeluKernelImpl's scalar -0.0."""
    for n in (1, 2, 3, 9, 17, 40):
        x = np.full(n, -0.0, np.float32)
        want = torch.nn.functional.gelu(torch.from_numpy(x.copy())).numpy()
        _bits_equal(strided.nn.functional.gelu(strided.from_numpy(x)).numpy(), want)


@needs_kernel
def test_the_avx2_onednn_op_is_the_same_in_both_forms() -> None:
    """GELU_ONEDNN_AS has one lane function: the plain C form (0) and the default (-1) agree, on
    any CPU; a float64 buffer refuses it (run_d's ops stop at 18)."""
    x = np.random.default_rng(3).normal(0, 4, 1000).astype(np.float32)
    a, b = np.empty_like(x), np.empty_like(x)
    assert K.run(x, a, sleef.GELU_ONEDNN_AS, 0, 0, -1, 0) and K.run(x, b, sleef.GELU_ONEDNN_AS, 0, 0, -1, -1)
    _bits_equal(a, b)
    with pytest.raises(ValueError):
        K.run_d(x.astype(np.float64), np.empty(1000), sleef.GELU_ONEDNN_AS, 0, 0, -1, 0)


@needs_kernel
@pytest.mark.parametrize("beta", [1.0, 0.0, -1.5])
def test_softplus_float32_nan_words_at_every_place(beta: float) -> None:
    """float32 softplus of NaN words (signs, payloads, a signalling one) and of infinities (NaN at
    beta 0) at every place of a 33-element run: the vector lanes' word (x * beta's NaN under AVX512,
    the default word under AVX2) and the scalar tail's (the C library's), as torch on this CPU."""
    words = np.array([0x7FC00000, 0xFFC00000, 0x7F800001, 0x7FC12345, 0xFFA00000, 0x7F800000, 0xFF800000], np.uint32)
    for w in words:
        for place in (0, 5, 15, 16, 31, 32):
            x = np.linspace(-3, 3, 33).astype(np.float32)
            x.view(np.uint32)[place] = w
            want = torch.nn.functional.softplus(torch.from_numpy(x.copy()), beta=beta).numpy()
            _bits_equal(strided.nn.functional.softplus(strided.from_numpy(x), beta=beta).numpy(), want)


@pytest.mark.skipif(K is None, reason="torch_lanes reads the CPU capability's vector width from the compiled kernel "
                    "(without it every element is modelled as the scalar function's)")
@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("n", [1, 8, 10, 17, 40])
@pytest.mark.parametrize("transposed", [False, True])
def test_logit_backward_of_minus_zero_follows_the_loop(dt: str, n: int, transposed: bool) -> None:
    """logit's gradient at -0.0: g * inf in PyTorch's scalar function, g / (-0.0 * 1) in its vector
    lanes (the sign flipped), each element where this CPU's loop puts it (2 Vectorized a step: 8
    float64 under AVX2, 16 under AVX512), with a summed (stride-0) and a full incoming gradient."""
    rng = np.random.default_rng(n)
    base = rng.choice(np.array([0.0, -0.0, 1.0, 0.5, -0.0, np.nan, 2.0]), (n, 3)).astype(dt)
    xt, xs = torch.from_numpy(base.copy()), strided.from_numpy(base.copy())
    if transposed:
        xt, xs = xt.t(), xs.t()
    xt.requires_grad_(True)
    xs.requires_grad_(True)
    w = rng.standard_normal(tuple(xt.shape)).astype(dt)
    for full in (False, True):
        if full:
            (gt,), (gs,) = (torch.autograd.grad(xt.logit(), xt, torch.from_numpy(w)),
                            strided.autograd.grad(xs.logit(), [xs], strided.from_numpy(w)))
        else:
            (gt,), (gs,) = torch.autograd.grad(xt.logit().sum(), xt), strided.autograd.grad(xs.logit().sum(), [xs])
        a, b = gt.numpy(), gs.numpy()
        assert np.array_equal(np.isnan(a), np.isnan(b))
        keep = ~np.isnan(a)
        assert np.array_equal(a[keep], b[keep]) and np.array_equal(np.signbit(a[keep]), np.signbit(b[keep]))
