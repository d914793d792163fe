"""float32 / float64 ``exp2`` (and float16 / bfloat16 through float32) bit for bit against PyTorch 2.13 (exp2bits37).

PyTorch's ``exp2_kernel`` is a ``cpu_kernel_vec`` loop: SLEEF's ``xexp2f`` (``Sleef_exp2f16_u10``
under AVX512; float64 ``xexp2``, ``Sleef_exp2d8_u10``) where the loop is vectorized, ``std::exp2`` (the C
library's ``exp2f`` / ``exp2``) in each row's scalar tail (its last ``len % 32`` / ``len % 16`` elements, every element of a non-contiguous row) and at PyTorch's
parallel chunks' ends. strided's sleef kernel runs the same split (``run``'s op EXP2). Before, strided's
was ``np.exp2``: ~22% of float32 randn elements an ulp off, ~8% of float64 ones.

Checked here: randn at several scales, a sweep of the whole float32 range (every exponent) with the
special values (NaN payloads and signs, +-0, +-inf, the overflow edge 128, the underflow edges -149 /
-150, denormal results), lengths around the vector step and past the parallel grain, transposed /
sliced / expanded / 0-d / empty / integer inputs, out=, in-place ``exp2_``, the kernel's one-lane
form, float16 / bfloat16, and the avx2 / default capabilities in subprocesses.
"""

from __future__ import annotations

import textwrap

import numpy as np
import pytest
import torch

import strided
from capability_runs import PRELUDE, no_bad_under
from strided.kernels import native

needs_kernel = pytest.mark.skipif(native.sleef() is None, reason="the sleef kernel is not built")


def _bits(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    return a.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


def _same(got: strided.Tensor, want: torch.Tensor) -> None:
    if want.dtype == torch.bfloat16:
        g, w = _bits(np.asarray(got)), _bits(want.view(torch.int16).numpy())
    else:
        g, w = _bits(np.asarray(got)), _bits(want.numpy())
    assert tuple(got.shape) == tuple(want.shape)
    assert tuple(got.stride()) == tuple(want.stride())
    bad = np.nonzero(g != w)
    assert not bad[0].size, (bad[0][:5], g[bad][:5], w[bad][:5])


def _specials() -> np.ndarray:
    """NaNs (quiet / signalling, payloads, both signs), +-0, +-inf, and the edges of exp2's range:
    128 (overflow), 127.5 (rint to 128), -126 (the smallest normal result), -149 / -150 (the last
    denormal and the underflow), -149.5 (a tie to even), each with its float neighbours."""
    words = np.array([0x7FC00000, 0xFFC00000, 0x7FC00001, 0xFFC12345, 0x7F800001, 0xFF812345, 0x7FBFFFFF,
                      0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x00000001, 0x80000001,
                      0x007FFFFF, 0x7F7FFFFF, 0xFF7FFFFF], np.uint32).view(np.float32)
    edges = np.array([128, 127.5, 127, 126.5, 64, 1, 0.5, -0.5, -1, -125.5, -126, -126.5, -127, -148.5, -149,
                      -149.5, -150, -150.5, -151, -200, 200, 1e30, -1e30], np.float32)
    up = np.nextafter(edges, np.float32(np.inf))
    down = np.nextafter(edges, np.float32(-np.inf))
    return np.concatenate([words, edges, up, down]).astype(np.float32)


@needs_kernel
@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("scale", [1e-6, 1.0, 3.0, 30.0, 100.0, 150.0, 1100.0])
def test_randn_scales_bits(scale: float, dt: str) -> None:
    x = (np.random.default_rng(int(scale * 7) + 1).standard_normal(20011) * scale).astype(dt)
    _same(strided.exp2(strided.from_numpy(x)), torch.exp2(torch.from_numpy(x)))


@needs_kernel
@pytest.mark.usefixtures("torch_threads_as_assumed")  # (past the grain: PyTorch's chunks follow its thread count)
def test_whole_range_sweep_and_specials_bits() -> None:
    """Every 61st float32 word (every exponent, both signs, NaN words), the specials placed both in
    the vectorized body and in the scalar tail."""
    words = np.arange(0, 2**32, 61, dtype=np.uint64).astype(np.uint32)
    x = words.view(np.float32)
    _same(strided.from_numpy(x).exp2(), torch.from_numpy(x).exp2())
    sp = _specials()
    for n in (0, 5, 32, 33, 64):  # (lead lengths: shift the specials between the body and the tail)
        v = np.concatenate([np.full(n, 0.25, np.float32), sp])
        _same(strided.from_numpy(v).exp2(), torch.from_numpy(v).exp2())
    for v in sp:  # (each alone: a 1-element row, the scalar function)
        a = np.array([v], np.float32)
        _same(strided.from_numpy(a).exp2(), torch.from_numpy(a).exp2())


@needs_kernel
@pytest.mark.usefixtures("torch_threads_as_assumed")  # (past the grain: PyTorch's chunks follow its thread count)
@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_lengths_bits(dt: str) -> None:
    rng = np.random.default_rng(37)
    for n in list(range(0, 100)) + [127, 128, 129, 1000, 16383, 16384, 16385, 32767, 32768, 32769, 40000, 100003]:
        x = (rng.standard_normal(n) * 4).astype(dt)
        _same(strided.exp2(strided.from_numpy(x)), torch.exp2(torch.from_numpy(x)))


@needs_kernel
def test_one_lane_form_bits() -> None:
    """The kernel's plain C form (form 0) gives the AVX-512 form's bits (and so torch's)."""
    from strided.kernels.sleef import EXP2, step
    k = native.sleef()
    rng = np.random.default_rng(3)
    x = np.concatenate([_specials(), (rng.standard_normal(3000) * 40).astype(np.float32)])
    for n in (len(x), 77, 31):
        v = x[:n].copy()
        out = np.empty_like(v)
        k.run(v, out, EXP2, 0, 0, step(), 0)
        _same(strided.from_numpy(out), torch.exp2(torch.from_numpy(v)))


@needs_kernel
@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_layouts_bits(dt: str) -> None:
    rng = np.random.default_rng(11)
    base = (rng.standard_normal((37, 53)) * 6).astype(dt)
    views = (lambda a: a, lambda a: a.t(), lambda a: a[:, ::2], lambda a: a[::3], lambda a: a[3],
             lambda a: a[1:, 2:40], lambda a: a[:, 5], lambda a: a[5:5], lambda a: a[0, 0],
             lambda a: a[:, :1].expand(37, 40), lambda a: a[2].expand(4, 53),
             lambda a: a.reshape(37, 53, 1).permute(2, 1, 0))
    for f in views:
        _same(f(strided.from_numpy(base.copy())).exp2(), f(torch.from_numpy(base.copy())).exp2())
    three = (rng.standard_normal((5, 6, 40)) * 6).astype(dt)
    for f in (lambda a: a.permute(2, 0, 1), lambda a: a[:, ::2, 1:], lambda a: a.transpose(0, 1)):
        _same(strided.exp2(f(strided.from_numpy(three))), torch.exp2(f(torch.from_numpy(three))))
    z = np.array(3.7, dt)
    _same(strided.exp2(strided.from_numpy(z)), torch.exp2(torch.from_numpy(z)))


@needs_kernel
@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_out_and_inplace_bits(dt: str) -> None:
    rng = np.random.default_rng(12)
    base = (rng.standard_normal((40, 33)) * 6).astype(dt)
    for shape, f in (((33, 40), lambda a: a.t()), ((40, 33), lambda a: a), ((20, 33), lambda a: a[::2])):
        to = torch.empty(*shape, dtype=getattr(torch, dt))
        so = strided.empty(*shape, dtype=getattr(strided, dt))
        torch.exp2(f(torch.from_numpy(base)), out=to)
        strided.exp2(f(strided.from_numpy(base)), out=so)
        _same(so, to)
        # out= laid out otherwise than the input (a transposed out of a row-major input)
        to = torch.empty(shape[::-1], dtype=getattr(torch, dt)).t()
        so = strided.empty(*shape[::-1], dtype=getattr(strided, dt)).t()
        torch.exp2(f(torch.from_numpy(base)), out=to)
        strided.exp2(f(strided.from_numpy(base)), out=so)
        _same(so, to)
    for f in (lambda a: a, lambda a: a.t(), lambda a: a[:, 1::2]):
        s, t = strided.from_numpy(base.copy()), torch.from_numpy(base.copy())
        f(s).exp2_()
        f(t).exp2_()
        _same(s, t)


@needs_kernel
def test_integer_inputs_bits() -> None:
    x = np.arange(-160, 140, dtype=np.int32)
    _same(strided.from_numpy(x).exp2(), torch.from_numpy(x).exp2())


@needs_kernel
@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_reduced_floats_bits(dt: str) -> None:
    """float16 / bfloat16: PyTorch's Vectorized<Half/BFloat16>::exp2 widens to float, maps SLEEF's
    exp2f and rounds back (64 elements a step under AVX512); the scalar tail std::exp2 of the
    widened value, rounded."""
    rng = np.random.default_rng(13)
    x32 = (rng.standard_normal(3001) * 5).astype(np.float32)
    x32[:6] = [np.inf, -np.inf, 0.0, -0.0, 15.9, -24.5]
    t = torch.from_numpy(x32).to(getattr(torch, dt))
    s = strided.from_numpy(x32).to(getattr(strided, dt))
    for f in (lambda a: a, lambda a: a[:100], lambda a: a[::3], lambda a: a[:2000].reshape(40, 50).t()):
        _same(f(s).exp2(), f(t).exp2())


@needs_kernel
def test_float64_specials_and_sweep_bits() -> None:
    """float64: NaNs (payloads, signs), +-0, +-inf, the overflow edge 1024, the denormal / underflow
    edges -1022 / -1074 / -1075, SLEEF's -2000 cut, each with its neighbours, in the body and the
    tail; and a sweep of words over the whole range."""
    words = np.array([0x7FF8000000000000, 0xFFF8000000000123, 0x7FF0000000000001, 0xFFF4000000000005],
                     np.uint64).view(np.float64)
    edges = np.array([0.0, -0.0, np.inf, -np.inf, 1024, 1023.5, 1023, -1022, -1022.5, -1074, -1074.5, -1075,
                      -1075.5, -1076, -2000, -2000.5, 5e-324, -5e-324, 1e300, -1e300], np.float64)
    sp = np.concatenate([words, edges, np.nextafter(edges, np.inf), np.nextafter(edges, -np.inf)])
    for n in (0, 3, 16, 17):
        v = np.concatenate([np.full(n, 0.25), sp])
        _same(strided.from_numpy(v).exp2(), torch.from_numpy(v).exp2())
    sweep = np.arange(0, 2**64 - 2**52, 2**52 // 7 * 3 + 12345, dtype=np.uint64).view(np.float64)
    _same(strided.from_numpy(sweep).exp2(), torch.from_numpy(sweep).exp2())


@needs_kernel
def test_float64_one_lane_form_bits() -> None:
    from strided.kernels.sleef import EXP2, step
    k = native.sleef()
    x = np.random.default_rng(5).standard_normal(1001) * 300
    for form in (0, -1):
        out = np.empty_like(x)
        k.run_d(x, out, EXP2, 0, 0, step() // 2, form)
        _same(strided.from_numpy(out), torch.exp2(torch.from_numpy(x)))


_CAPABILITY_SCRIPT = PRELUDE + textwrap.dedent("""
    for n in list(range(40)) + [127, 130, 1000]:
        x = (rng.standard_normal(n) * 40).astype(np.float32)
        if n > 8:
            x[:9] = [np.nan, 128.0, -150.0, -149.5, -0.0, -np.inf, np.inf, 1e-45, -160.0]
            x.view(np.uint32)[1] = 0xFF812345
        for v in (x, x[::2], x.astype(np.float64) * 8):
            bad += differ(strided.from_numpy(v).exp2(), torch.from_numpy(v).exp2())
    print("BAD", bad, torch.backends.cpu.get_cpu_capability())
""")


@needs_kernel
@pytest.mark.parametrize("capability", ["avx2", "default"])
def test_other_capabilities_bits(capability: str) -> None:
    no_bad_under(capability, _CAPABILITY_SCRIPT)
