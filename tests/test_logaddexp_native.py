"""logaddexp / logaddexp2 of float32 through the compiled ``logaddexp_float32`` loop
(strided.kernels._specialkernel): NumPy's float32 loop (``npy_logaddexpf``: the C library's expf /
exp2f / log1pf per element) vectorized, which must give NumPy's bits on every element -- the values
strided gave before the loop, which tests/test_names_math.py and test_elemcomp_fast.py compare with
PyTorch. Each case runs with the kernels on and off (``native.disabled()``: NumPy's ufunc) and
compares the bits with ``np.logaddexp``/``np.logaddexp2`` (NaN payloads, -0.0, infinities,
subnormals), contiguous, permuted, through ``out=``, and on the lengths around the loop's blocks."""

from __future__ import annotations

import contextlib
import platform

import numpy as np
import pytest

import strided as st
from strided.kernels import elementwise, native

pytestmark = pytest.mark.skipif(native.special() is None, reason="the compiled kernels are not built")

NAMES = ("logaddexp", "logaddexp2")


def _used(base2: bool) -> bool:
    """Whether the compiled loop runs here (AVX2 + FMA and its first-use checks passed)."""
    x = np.zeros(8, np.float32)
    return elementwise.logaddexp_fresh(x, x, base2) is not None


def _specials() -> np.ndarray:
    plain = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 1e-7, 6e-8, -6e-8, 1e-30, 1e-45, -1e-45, 1.1754942e-38, 3.4e38,
             -3.4e38, 87.99, 88.0, -88.0, 88.01, 127.9, 128.0, -128.0, 150.0, -150.0, np.inf, -np.inf]
    nans = np.array([0x7FC00000, 0xFFC00000, 0x7FC12345, 0x7F800001, 0xFFA00002], np.uint32).view(np.float32)
    return np.concatenate([np.array(plain, np.float32), nans])


def _pairs(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """n pairs of each kind: random bit patterns; numbers a few ulps to 2^22 ulps apart (differences
    near 0, where log1pf takes its t ~ 1 paths); normals of spread 30 (differences past 88 and 128)."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 1 << 32, n, dtype=np.uint32)
    b = rng.integers(0, 1 << 32, n, dtype=np.uint32)
    near = a ^ (b & np.uint32((1 << rng.integers(1, 23)) - 1))
    c, d = rng.normal(0, 30, (2, n)).astype(np.float32)
    e = rng.uniform(-1, 1, n).astype(np.float32)
    f = (e + rng.normal(0, 1e-6, n)).astype(np.float32)
    x = np.concatenate([a.view(np.float32), a.view(np.float32), c, e])
    y = np.concatenate([b.view(np.float32), near.view(np.float32), d, f])
    return x, y


def _numpy(name: str, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return getattr(np, name)(x, y)


def _check(name: str, x: np.ndarray, y: np.ndarray) -> None:
    want = _numpy(name, x, y).view(np.uint32)
    f = getattr(st, name)
    got = f(st.from_numpy(x), st.from_numpy(y)).numpy()
    with native.disabled():
        off = f(st.from_numpy(x), st.from_numpy(y)).numpy()
    np.testing.assert_array_equal(got.view(np.uint32), want)
    np.testing.assert_array_equal(off.view(np.uint32), want)


@pytest.mark.parametrize("name", NAMES)
def test_the_loop_is_used_where_it_can_be(name):
    """On x86-64 with AVX2 and FMA (this project's machines) the loop runs: a silent fallback would
    leave the tests below comparing NumPy with itself."""
    if platform.machine() not in ("x86_64", "AMD64"):
        pytest.skip("the loop is x86-64 only")
    with open("/proc/cpuinfo") as f:
        flags = f.read()
    if " avx2" not in flags or " fma" not in flags:
        pytest.skip("no AVX2/FMA")
    assert _used(name == "logaddexp2")


@pytest.mark.parametrize("name", NAMES)
def test_every_pair_of_special_values(name):
    v = _specials()
    _check(name, np.repeat(v, len(v)), np.tile(v, len(v)))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("seed", range(4))
def test_long_random_runs(name, seed):
    x, y = _pairs(1 << 17, seed)
    _check(name, x, y)


@pytest.mark.parametrize("name", NAMES)
def test_every_small_difference_near_zero(name):
    """x - y over 2^17 consecutive tiny differences (log1pf(expf(d)) for d in (-2^-14, 2^-14)):
    t = 1 and the t within an ulp of 1 that the loop hands to libm, both signs of zero."""
    d = (np.arange(-(1 << 16), 1 << 16) * 2.0**-30).astype(np.float32)
    _check(name, np.zeros_like(d), d)
    _check(name, d, np.full_like(d, -0.0))
    _check(name, d + np.float32(3.0), np.full_like(d, 3.0))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("n", [1, 7, 8, 15, 16, 17, 33, 200, 255, 256, 257, 529])
def test_lengths_around_the_blocks(name, n):
    x, y = _pairs(n, n)
    for i in range(4):
        _check(name, x[i * n:(i + 1) * n].copy(), y[i * n:(i + 1) * n].copy())


@pytest.mark.parametrize("name", NAMES)
def test_permuted_out_and_broadcast(name):
    x, y = _pairs(1 << 12, 9)
    a, b = x.reshape(128, 128), y.reshape(128, 128)
    want = _numpy(name, a, b)
    f = getattr(st, name)
    for on in (True, False):
        with contextlib.nullcontext() if on else native.disabled():
            perm = f(st.from_numpy(a.T.copy()).T, st.from_numpy(b.T.copy()).T)
            np.testing.assert_array_equal(perm.numpy().view(np.uint32), want.view(np.uint32))
            assert perm.stride() == (1, 128)  # (the operands' layout, as PyTorch's)
            out = st.empty((128, 128))
            assert f(st.from_numpy(a), st.from_numpy(b), out=out) is out
            np.testing.assert_array_equal(out.numpy().view(np.uint32), want.view(np.uint32))
            mixed = f(st.from_numpy(a), st.from_numpy(b.T.copy()).T)  # (two layouts: the general path)
            np.testing.assert_array_equal(mixed.numpy().view(np.uint32),
                                          _numpy(name, a, b.T.copy().T).view(np.uint32))
            row = f(st.from_numpy(a), st.from_numpy(b[:1]))  # (a broadcast: NumPy's ufunc)
            np.testing.assert_array_equal(row.numpy().view(np.uint32), _numpy(name, a, b[:1]).view(np.uint32))


def test_the_kernel_refuses_what_it_does_not_take():
    k = native.special()
    x = np.ones(16, np.float32)
    assert not k.logaddexp_float32(x, x, x, False)  # (out is an input: nothing written)
    with pytest.raises(ValueError):
        k.logaddexp_float32(x, x, np.empty(16), False)  # (float64 out)
    with pytest.raises(ValueError):
        k.logaddexp_float32(x, x[:8], np.empty(16, np.float32), False)
    assert elementwise.logaddexp_fresh(x[::2], x[::2], False) is None  # (not contiguous)
    assert elementwise.logaddexp_fresh(x.astype(np.float64), x.astype(np.float64), False) is None


@pytest.mark.parametrize("base2", [False, True])
@pytest.mark.parametrize("form", [0, 1])
def test_each_vector_form(base2, form):
    """The AVX2 (0) and AVX-512 (1) forms each on their own, where the CPU has them: NumPy's bits
    on every element (the default runs only the wider one on an AVX-512 machine)."""
    flags = open("/proc/cpuinfo").read() if platform.machine() in ("x86_64", "AMD64") else ""
    if not (" avx2" in flags and " fma" in flags and (form == 0 or " avx512f" in flags)):
        pytest.skip("the CPU lacks this form")
    k = native.special()
    x, y = _pairs(1 << 16, 20 + form)
    v = _specials()
    x, y = np.concatenate([x, np.repeat(v, len(v))]), np.concatenate([y, np.tile(v, len(v))])
    got = np.empty_like(x)
    assert k.logaddexp_float32(x, y, got, base2, form)  # (used: the first-use check passed)
    want = _numpy("logaddexp2" if base2 else "logaddexp", x, y)
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
    with pytest.raises(ValueError):
        k.logaddexp_float32(x, y, got, base2, 2)
