"""logaddexp / logaddexp2 of float32 and float64 through the compiled ``logaddexp_float32`` /
``logaddexp_float64`` loops (strided.kernels._specialkernel): NumPy's loops (``npy_logaddexp``: the C
library's exp / exp2 / log1p per element) vectorized, which must give NumPy's bits on every
element -- the values strided gave before the loops, which tests/test_names_math.py and
test_elemcomp_fast.py compare with PyTorch. Each case runs with the kernels on and off
(``native.disabled()``: NumPy's ufunc) and compares the bits with ``np.logaddexp``/``np.logaddexp2``
(NaN payloads, -0.0, infinities, subnormals, huge and tiny differences), contiguous, permuted,
through ``out=``, and on the lengths around the loops' blocks."""

from __future__ import annotations

import contextlib
import platform

import numpy as np
import pytest

import strided as st
from oracle_helpers import case
from strided.kernels import elementwise, native

pytestmark = pytest.mark.skipif(native.special() is None, reason="the compiled kernels are not built")

NAMES = ("logaddexp", "logaddexp2")
DTYPES = ("float32", "float64")
BITS = {"float32": np.uint32, "float64": np.uint64}


def _flags() -> str:
    if platform.machine() not in ("x86_64", "AMD64"):
        return ""
    with open("/proc/cpuinfo") as f:
        return f.read()


def _has(*features: str) -> bool:
    flags = _flags()
    return all(f" {name}" in flags for name in features)


def _numpy_bits_only(name: str, dtype: str) -> None:
    """logaddexp2 of float32 is no longer NumPy's: PyTorch's own loop since bits36 (SLEEF's exp2f /
    log1pf where vectorized, the C library's in the tail; tests/test_bits36.py compares it with torch)."""
    if name == "logaddexp2" and dtype == "float32":
        pytest.skip("logaddexp2 float32: PyTorch's bits (tests/test_bits36.py), not NumPy's")


def _specials(dtype: str) -> np.ndarray:
    plain = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 1e-7, 6e-8, -6e-8, 1e-17, 5.6e-17, 1e-30, 1e-45, -1e-45,
             1.1754942e-38, 3.4e38, -3.4e38, 87.99, 88.0, -88.0, 88.01, 127.9, 128.0, -128.0, 150.0, -150.0,
             511.9, 512.0, -512.0, 745.2, 1100.0, np.inf, -np.inf]
    if dtype == "float64":
        plain += [5e-324, -5e-324, 2.2250738585072014e-308, 1.7e308, -1.7e308]
        nans = np.array([0x7FF8000000000000, 0xFFF8000000000000, 0x7FF8000012345678, 0x7FF0000000000001],
                        np.uint64).view(np.float64)
    else:
        nans = np.array([0x7FC00000, 0xFFC00000, 0x7FC12345, 0x7F800001, 0xFFA00002], np.uint32).view(np.float32)
    return np.concatenate([np.array(plain, dtype), nans])


def _pairs(n: int, seed: int, dtype: str) -> tuple[np.ndarray, np.ndarray]:
    """n pairs of each kind: random bit patterns; numbers a few ulps to 2^22 ulps apart (differences
    near 0, where log1p takes its t ~ 1 paths); normals of spread 30 and 300 (differences past the
    exponentials' limits: 88, 128, 512); uniform numbers with differences from 1e-6 up."""
    rng = np.random.default_rng(seed)
    u = BITS[dtype]
    a = rng.integers(0, np.iinfo(u).max, n, dtype=u, endpoint=True)
    b = rng.integers(0, np.iinfo(u).max, n, dtype=u, endpoint=True)
    near = a ^ (b & u((1 << int(rng.integers(1, 23))) - 1))
    c, d = rng.normal(0, 30 if dtype == "float32" else 300, (2, n)).astype(dtype)
    e = rng.uniform(-1, 1, n).astype(dtype)
    f = (e + rng.normal(0, 1e-6, n) * rng.uniform(0, 4, n) ** 8).astype(dtype)
    x = np.concatenate([a.view(dtype), a.view(dtype), c, e])
    y = np.concatenate([b.view(dtype), near.view(dtype), d, f])
    return x, y


def _numpy(name: str, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """NumPy's bits with PyTorch's float32 NaNs (tests/test_red23.py): each with its sign bit set,
    but the default NaN where an AVX2 PyTorch's vector lanes compute it (``x`` and ``y`` laid out
    as the op's operands: a fresh output's loop follows them)."""
    with np.errstate(all="ignore"):
        return elementwise.torch_lane_nans(elementwise.torch_nan_signs(getattr(np, name)(x, y)), x, y)


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).view(BITS[a.dtype.name])


def _check(name: str, x: np.ndarray, y: np.ndarray) -> None:
    want = _bits(_numpy(name, x, y))
    f = getattr(st, name)
    got = f(st.from_numpy(x), st.from_numpy(y)).numpy()
    with native.disabled():
        off = f(st.from_numpy(x), st.from_numpy(y)).numpy()
    np.testing.assert_array_equal(_bits(got), want)
    np.testing.assert_array_equal(_bits(off), want)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", NAMES)
def test_the_loop_is_used_where_it_can_be(name, dtype):
    """On x86-64 with AVX2 and FMA (float32) or AVX-512F (float64) -- this project's machines -- the
    loop runs: a silent fallback would leave the tests below comparing NumPy with itself."""
    if not _has("avx2", "fma") or (dtype == "float64" and not _has("avx512f")):
        pytest.skip("the CPU lacks the loop's instructions")
    x = np.zeros(40, dtype)
    assert elementwise.logaddexp_fresh(x, x, name == "logaddexp2") is not None


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", NAMES)
def test_every_pair_of_special_values(name, dtype):
    _numpy_bits_only(name, dtype)
    v = _specials(dtype)
    _check(name, np.repeat(v, len(v)), np.tile(v, len(v)))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("seed", range(3))
def test_long_random_runs(name, dtype, seed):
    _numpy_bits_only(name, dtype)
    x, y = _pairs(1 << 17, seed, dtype)
    _check(name, x, y)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", NAMES)
def test_every_small_difference_near_zero(name, dtype):
    _numpy_bits_only(name, dtype)
    """x - y over 2^17 consecutive tiny differences (log1p(exp(d)) for d near 0): t = 1 and the t
    within an ulp of 1 that the loop hands to libm, both signs of zero, and (float64) the |d| under
    2^-54 that exp itself special-cases."""
    step = 2.0**-30 if dtype == "float32" else 2.0**-62
    d = (np.arange(-(1 << 16), 1 << 16) * step).astype(dtype)
    _check(name, np.zeros_like(d), d)
    _check(name, d, np.full_like(d, -0.0))
    _check(name, d + d.dtype.type(3.0), np.full_like(d, 3.0))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", NAMES)
def test_lengths_around_the_blocks(name, dtype):
    _numpy_bits_only(name, dtype)
    for n in [1, 7, 8, 9, 15, 16, 17, 33, 200, 255, 256, 257, 529]:
        with case(n=n):
            _lengths_around_the_blocks(name, dtype, n)


def _lengths_around_the_blocks(name, dtype, n):
    x, y = _pairs(n, n, dtype)
    for i in range(4):
        _check(name, x[i * n:(i + 1) * n].copy(), y[i * n:(i + 1) * n].copy())


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", NAMES)
def test_permuted_out_and_broadcast(name, dtype):
    _numpy_bits_only(name, dtype)
    x, y = _pairs(1 << 12, 9, dtype)
    a, b = x.reshape(128, 128), y.reshape(128, 128)
    want = _bits(_numpy(name, a, b))
    f = getattr(st, name)
    for on in (True, False):
        with contextlib.nullcontext() if on else native.disabled():
            perm = f(st.from_numpy(a.T.copy()).T, st.from_numpy(b.T.copy()).T)
            np.testing.assert_array_equal(_bits(perm.numpy()), want)
            assert perm.stride() == (1, 128)  # (the operands' layout, as PyTorch's)
            out = st.empty((128, 128), dtype=getattr(st, dtype))
            assert f(st.from_numpy(a), st.from_numpy(b), out=out) is out
            np.testing.assert_array_equal(_bits(out.numpy()), want)
            mixed = f(st.from_numpy(a), st.from_numpy(b.T.copy()).T)  # (two layouts: the general path)
            np.testing.assert_array_equal(_bits(mixed.numpy()), _bits(_numpy(name, a, b.T.copy().T)))
            row = f(st.from_numpy(a), st.from_numpy(b[:1]))  # (a broadcast: NumPy's ufunc)
            np.testing.assert_array_equal(_bits(row.numpy()), _bits(_numpy(name, a, b[:1])))


@pytest.mark.parametrize("base2", [False, True])
@pytest.mark.parametrize("form", [0, 1])
@pytest.mark.parametrize("dtype", DTYPES)
def test_each_vector_form(dtype, base2, form):
    """The AVX2 (0) and AVX-512 (1) forms each on their own, where the CPU has them (float64: only
    AVX-512; its form 0 answers False): NumPy's bits on every element (the default runs only the
    wider one on an AVX-512 machine)."""
    k = native.special()
    run = k.logaddexp_float32 if dtype == "float32" else k.logaddexp_float64
    x, y = _pairs(1 << 15, 20 + form, dtype)
    v = _specials(dtype)
    x, y = np.concatenate([x, np.repeat(v, len(v))]), np.concatenate([y, np.tile(v, len(v))])
    got = np.empty_like(x)
    if dtype == "float64" and form == 0:
        assert not run(x, y, got, base2, form)
        return
    if not _has("avx2", "fma") or (form == 1 and not _has("avx512f")):
        pytest.skip("the CPU lacks this form")
    assert run(x, y, got, base2, form)  # (used: the first-use check passed)
    # (the loop itself writes every float32 NaN sign-set; the AVX2 lanes' default NaN is the caller's)
    with np.errstate(all="ignore"):
        want = elementwise.torch_nan_signs((np.logaddexp2 if base2 else np.logaddexp)(x, y))
    np.testing.assert_array_equal(_bits(got), _bits(want))
    with pytest.raises(ValueError):
        run(x, y, got, base2, 2)


@pytest.mark.parametrize("dtype", DTYPES)
def test_the_kernel_refuses_what_it_does_not_take(dtype):
    k = native.special()
    run = k.logaddexp_float32 if dtype == "float32" else k.logaddexp_float64
    other = "float64" if dtype == "float32" else "float32"
    x = np.ones(16, dtype)
    assert not run(x, x, x, False)  # (out is an input: nothing written)
    with pytest.raises(ValueError):
        run(x, x, np.empty(16, other), False)
    with pytest.raises(ValueError):
        run(x, x[:8], np.empty(16, dtype), False)
    assert elementwise.logaddexp_fresh(x[::2], x[::2], False) is None  # (not contiguous)
    assert elementwise.logaddexp_fresh(x.astype(np.float16), x.astype(np.float16), False) is None
    assert elementwise.logaddexp_fresh(x, x.astype(other), False) is None


def test_the_exp_table_is_two_to_the_k_over_128():
    """_specialkernel.c's EXP_TABLE, recomputed: 2^(k/128) = H (1 + T) with H the nearest double and
    T the nearest double to the exact remainder, stored as (bits of T, bits of H less k << 45)."""
    import re
    import struct
    from decimal import Decimal, localcontext
    from fractions import Fraction
    from pathlib import Path

    source = (Path(__file__).parents[1] / "src/strided/kernels/_specialkernel.c").read_text()
    body = source.split("static const uint64_t EXP_TABLE[256] = {", 1)[1].split("};", 1)[0]
    table = [int(v, 16) for v in re.findall(r"0x[0-9a-f]{16}", body)]
    assert len(table) == 256
    with localcontext() as ctx:
        ctx.prec = 80
        ln2 = Decimal(2).ln()
        for k in range(128):
            exact = Fraction((ln2 * k / 128).exp())
            h = float(exact)  # (Fraction -> float: the nearest double)
            t = float((exact - Fraction(h)) / Fraction(h))
            bits = [struct.unpack("<Q", struct.pack("<d", v))[0] for v in (t, h)]
            assert table[2 * k] == bits[0] and table[2 * k + 1] == (bits[1] - (k << 45)) % 2**64, k
