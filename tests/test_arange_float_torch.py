"""Float arange against torch.arange bit for bit (float16, bfloat16, float32, float64).

PyTorch's CPU kernel writes whole pairs of 32-byte vectors from a rounded base per vector
(``T(b + j * step)``, ``b = T(start + step * i0)``), the rest one by one, each ``x + y * z`` one
fma (but a bfloat16 vector's lanes): strided.kernels.fill.float_range. NumPy's values cast once
differed in 13-19% of elements. A range longer than 32768 elements is split among PyTorch's
threads (each part vectorized from its own start): compared here with one thread."""
import warnings

import numpy as np
import pytest
import torch

import strided as st

DTYPES = ["float16", "bfloat16", "float32", "float64"]


def _both(args, dt):
    t = torch.arange(*args, dtype=getattr(torch, dt))
    s = st.arange(*args, dtype=getattr(st, dt))
    return s.float().numpy(), t.float().numpy()  # (float32 / float64 hold each dtype exactly)


def _same(args, dt):
    got, want = _both(args, dt)
    assert got.shape == want.shape
    bad = np.flatnonzero((got != want) & ~(np.isnan(got) & np.isnan(want)))
    assert bad.size == 0, (args, dt, bad[:5], got[bad[:5]], want[bad[:5]])


@pytest.mark.parametrize("dt", DTYPES)
def test_random_ranges(dt):
    rng = np.random.default_rng(DTYPES.index(dt))
    for _ in range(150):
        start = float(rng.uniform(-100, 100))
        step = float(10 ** rng.uniform(-4, 1)) * (1 if rng.random() < 0.8 else -1)
        n = int(rng.integers(1, 3000))
        _same((start, start + step * (n - 0.5), step), dt)


@pytest.mark.parametrize("dt", DTYPES)
def test_ranges_through_zero(dt):
    """Where start + step * i is near 0 the product is as large as the sum: the fused and the
    plain forms differ there, and the rounded base of a vector differs most from its start."""
    rng = np.random.default_rng(10 + DTYPES.index(dt))
    for _ in range(400):
        step = float(10 ** rng.uniform(-4, 1)) * (1 if rng.random() < 0.5 else -1)
        n = int(rng.integers(1, 200))
        start = -step * float(rng.uniform(0, n))
        _same((start, start + step * (n - 0.5), step), dt)


def test_found_cases():
    # a bfloat16 lane where the fused base + 14 * step rounds the other way (torch: two roundings)
    _same((6.148188824801053, -32.271033363613896, -0.07888957328216623), "bfloat16")
    for dt in DTYPES:
        # (a vector's lane 0 is its base itself: -0.0 from a tiny negative start stays -0.0)
        _same((-2.225073858507e-311, 15.5, 1.0), dt)
        _same((-2.225073858507e-311, 63.5, 1.0), dt)
        _same((0.1, 30.0, 0.0123), dt)
        _same((0.0, 1.0, 0.1), dt)


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_integers_past_exact(dt):
    """Integers a half type cannot all hold: each vector's base is rounded before its lanes add."""
    for args in ((1, 5000), (3, 9001, 7), (-4097, 4097, 3), (100000, 0, -13)):
        _same(args, dt)


@pytest.mark.parametrize("dt", DTYPES)
def test_one_thread_long_range(dt):
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        _same((-3.3, 40000 * 0.01 - 3.3, 0.01), dt)
    finally:
        torch.set_num_threads(threads)


@pytest.mark.parametrize("dt", DTYPES)
def test_out_and_no_warning(dt):
    args = (0.5, 37.1, 0.37)
    o = st.empty(0, dtype=getattr(st, dt))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        st.arange(*args, out=o)
        big = st.arange(60000.5, 70000, 7.3, dtype=st.float16)  # (past float16's range: inf, silently)
    np.testing.assert_array_equal(o.float().numpy(), torch.arange(*args, dtype=getattr(torch, dt)).float().numpy())
    np.testing.assert_array_equal(big.float().numpy(), torch.arange(60000.5, 70000, 7.3, dtype=torch.float16).float().numpy())


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_compiled_range_is_the_numpy_steps(dt):
    """float32/float64 ranges run the compiled float_range (one pass): bit for bit the NumPy
    steps it replaces (kernels off), on random and through-zero ranges of every length around the
    vector pairs, and torch's values on the long ones."""
    from strided.kernels import native
    from strided.kernels.fill import float_range

    if native.special() is None:
        pytest.skip("the compiled kernels are not built")
    rng = np.random.default_rng(21)
    dtype = np.dtype(dt)
    for n in [*range(1, 40), 1000, 4099, 40000]:
        for _ in range(3):
            step = float(10 ** rng.uniform(-6, 2)) * (1 if rng.random() < 0.5 else -1)
            start = float(rng.uniform(-100, 100)) if rng.random() < 0.5 else -step * float(rng.uniform(0, n))
            fast = float_range(n, start, step, dtype)
            with native.disabled():
                slow = float_range(n, start, step, dtype)
            assert fast.dtype == slow.dtype == dtype
            assert fast.tobytes() == slow.tobytes(), (n, start, step)
