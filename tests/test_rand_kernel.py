"""The compiled bounded-integer draw (strided.kernels._randkernel) against NumPy's
Generator.integers: the same numbers and the same stream afterwards, over every branch's edges;
and random_/randint/randint_like give the same values with the kernel on and off."""

import itertools

import numpy as np
import pytest

import strided
from oracle_helpers import case
from strided.kernels import native

M = 2**64 - 1
RANGES = [(0, 0), (5, 5), (0, 1), (0, 9), (-3, 7), (0, 2**24), (-(2**24), 2**24), (0, 2**32 - 2), (0, 2**32 - 1),
          (0, 2**32), (-(2**31), 2**31 - 1), (0, 2**40), (-(2**63), 2**63 - 1), (-(2**63), 0), (0, 2**63 - 1),
          (-(2**63), -(2**63) + 2**32 - 1), (-(2**63), -(2**63) + 2**32)]

kernel = native.rand()
needs_kernel = pytest.mark.skipif(kernel is None, reason="the compiled kernel is not built")


@needs_kernel
@pytest.mark.parametrize("low,top", RANGES)
def test_kernel_matches_numpy(low, top):
    for n, buffered in itertools.product(
            [0, 1, 12, 1001, 5000],
            [False, True]):
        with case(n=n, buffered=buffered):
            _kernel_matches_numpy(low, top, n, buffered)


def _kernel_matches_numpy(low: int, top: int, n: int, buffered: bool) -> None:
    g1, g2 = (np.random.Generator(np.random.PCG64(7)) for _ in range(2))
    if buffered:  # (three 32-bit draws leave half a 64-bit draw in the PCG64 buffer)
        for g in (g1, g2):
            g.integers(0, 10, size=3, dtype=np.int32)
    expected = g1.integers(low, top, size=n, dtype=np.int64, endpoint=True)
    got = np.empty(n, np.int64)
    kernel.bounded_int64(g2.bit_generator.capsule, got, low, (top - low) & M)
    assert got.tolist() == expected.tolist()
    assert g1.bit_generator.state == g2.bit_generator.state


def _draws() -> list:
    out = []
    for seed in (0, 3):
        strided.manual_seed(seed)
        gen = strided.Generator().manual_seed(seed + 1)
        out.append(strided.zeros(3, 4).random_().tolist())
        out.append(strided.zeros(3, 4, dtype=strided.int64).random_(-5, 5).tolist())
        out.append(strided.zeros(4, 3, dtype=strided.int64).t().random_(100).tolist())  # (non-contiguous)
        out.append(strided.zeros(5, dtype=strided.int8).random_().tolist())
        out.append(strided.zeros(5, dtype=strided.bool).random_().tolist())
        out.append(strided.zeros(6, dtype=strided.int64).random_(generator=gen).tolist())
        out.append(strided.randint(0, 10, (3, 4)).tolist())
        out.append(strided.randint(-(2**40), 2**40, (7,), generator=gen).tolist())
        out.append(strided.randint_like(strided.zeros(2, 3), 10).tolist())
        out.append(strided.get_rng_state().tolist())
    return out


def test_samplers_same_values_kernel_on_and_off() -> None:
    on = _draws()
    with native.disabled():
        off = _draws()
    assert on == off


def test_pinned_values() -> None:
    strided.manual_seed(0)
    a = strided.randint(0, 10, (6,)).tolist()
    b = strided.zeros(4, dtype=strided.int64).random_(-3, 3).tolist()
    g = np.random.Generator(np.random.PCG64(0))
    assert a == g.integers(0, 9, size=6, dtype=np.int64, endpoint=True).tolist()
    assert b == g.integers(-3, 2, size=4, dtype=np.int64, endpoint=True).tolist()


# ---- the compiled ziggurat (normal_fill) against Generator.standard_normal


@needs_kernel
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("pcg", [True, False])
def test_normal_fill_matches_numpy(dtype, pcg) -> None:
    # 400k draws per seed reach the rare steps (~0.7% of draws: the wedge test, the tail past
    # 3.65 with its log1p) thousands of times; odd seeds start with half a 64-bit draw buffered
    assert kernel.pcg64_layout_ok(np.random.PCG64(1).capsule)
    for seed, n in itertools.product(range(4), [0, 1, 7, 400_001]):
        with case(seed=seed, n=n):
            g1, g2 = (np.random.Generator(np.random.PCG64(seed)) for _ in range(2))
            if seed % 2:
                for g in (g1, g2):
                    g.integers(0, 10, size=1, dtype=np.int32)
            expected = g1.standard_normal(n, dtype=dtype)
            got = np.full(n, np.nan, dtype)
            assert kernel.normal_fill(g2.bit_generator.capsule, got, pcg)
            assert got.tobytes() == expected.tobytes()
            assert g1.bit_generator.state == g2.bit_generator.state
            assert g1.random(3).tolist() == g2.random(3).tolist()


@needs_kernel
def test_normal_fill_reaches_the_tail() -> None:
    # the tail (|x| > 3.6541528853610088, idx 0) is where a log instead of NumPy's log1p would
    # differ by an ulp: make sure the comparison above saw it
    g = np.random.Generator(np.random.PCG64(4))
    x = np.empty(1_000_003, np.float32)
    kernel.normal_fill(g.bit_generator.capsule, x, True)
    assert (np.abs(x) > 3.6541529).sum() > 100
    assert x.tobytes() == np.random.Generator(np.random.PCG64(4)).standard_normal(x.size, dtype=np.float32).tobytes()


def _normal_draws() -> list:
    out = []
    for seed in (0, 3):
        strided.manual_seed(seed)
        gen = strided.Generator().manual_seed(seed + 1)
        out.append(strided.randn(3, 4).tolist())
        out.append(strided.randn(5, dtype=strided.float64, generator=gen).tolist())
        out.append(strided.randn(2, 3, dtype=strided.float16).tolist())
        out.append(strided.randn(2, dtype=strided.complex64).tolist())
        out.append(strided.randn_like(strided.zeros(3, 2)).tolist())
        out.append(strided.zeros(4, 3).normal_(1.5, 2.0).tolist())
        out.append(strided.zeros(4, 3).t().normal_().tolist())  # (non-contiguous: the general path)
        out.append(strided.zeros(6, dtype=strided.float64).log_normal_().tolist())
        out.append(strided.normal(0.5, 2.0, (3,)).tolist())
        out.append(strided.normal(strided.zeros(3), 1.0).tolist())
        out.append(strided.get_rng_state().tolist())
    return out


def test_normal_samplers_same_values_kernel_on_and_off() -> None:
    on = _normal_draws()
    with native.disabled():
        off = _normal_draws()
    assert on == off
