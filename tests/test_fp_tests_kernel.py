"""The compiled class tests (``fp_test``, src/strided/kernels/_fp_tests.h: AVX-512's vfpclass
behind the fronts of isnan, isinf, isfinite, isposinf, isneginf for float32 / float64): NumPy's
bytes for every class of float (NaNs quiet and signalling, both infinities, zeros, subnormals,
random bit patterns), at every length around the 64-element step and every start around the
64-byte alignment the loop peels to; refusals for the buffers it does not take; and the ops
through the fronts: PyTorch's values and strides, row-major, permuted (dense) and unaligned."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import strided as st
from strided.kernels import native
from strided.ops._support.front import fallback_of

TESTS = {"isnan": np.isnan, "isinf": np.isinf, "isfinite": np.isfinite, "isposinf": np.isposinf,
         "isneginf": np.isneginf}
CODES = {name: code for code, name in enumerate(TESTS)}
KERNEL = native._compiled("_specialkernel")
HAS = KERNEL is not None and hasattr(KERNEL, "fp_test") and bool(
    KERNEL.fp_test(np.zeros(1, np.float32), np.empty(1, bool), 0))
# (a CPU without AVX-512 takes runs of at most PLAIN_MAX[code] elements by plain tests, and refuses longer ones)
PLAIN_MAX = {0: 512, 1: 2048, 2: 2048, 3: 512, 4: 512}
WIDE = HAS and bool(KERNEL.fp_test(np.zeros(4096, np.float32), np.empty(4096, bool), 0))


def _values(dtype: type, rng: np.random.Generator) -> np.ndarray:
    """Every class of float, then normal values, then random bit patterns (many NaNs of every payload)."""
    info = np.finfo(dtype)
    bits = np.uint32 if dtype == np.float32 else np.uint64
    snan = np.array([0x7FA00000 if dtype == np.float32 else 0x7FF4000000000000], bits).view(dtype)
    specials = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, info.smallest_subnormal,
                         -info.smallest_subnormal, info.max, -info.max, info.tiny], dtype)
    patterns = rng.integers(0, 2**63, 3000, dtype=np.uint64).astype(bits).view(dtype)
    return np.concatenate([specials, snan, -snan, rng.standard_normal(500).astype(dtype), patterns])


SHAPES = [(3, 4), (1, 1, 2), (2, 1, 3), (4, 1), (2, 3, 1, 2), (7,), (0, 3), (), (300, 70)]
POOL = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5, -2.0, 1e-40])


def _dense_layouts(dtype: type, count: int, seed: int):
    """For each shape of SHAPES and each order of its dims: ``count`` arrays of POOL's values laid
    out densely in that order (a transpose of a contiguous array: the fronts' dense path)."""
    rng = np.random.default_rng(seed)
    for shape in SHAPES:
        for perm in itertools.permutations(range(len(shape))):
            made = tuple(shape[i] for i in perm)
            yield shape, perm, [rng.choice(POOL, size=made).astype(dtype).transpose(np.argsort(perm))
                                for _ in range(count)]


@pytest.mark.skipif(not HAS, reason="fp_test not built")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_kernel_gives_numpys_bytes(dtype):
    values = _values(dtype, np.random.default_rng(0))
    for name, uf in TESTS.items():
        for n in [*range(0, 140), 511, 512, 513, 1000, 2048, 2049, len(values) - 20]:
            for start in range(0, 20):  # (starts around the 64-byte alignment the loop peels to)
                x = values[start:start + n]
                out = np.empty(len(x), bool)
                if not WIDE and len(x) > PLAIN_MAX[CODES[name]]:
                    assert KERNEL.fp_test(x, out, CODES[name]) is False
                    continue
                assert KERNEL.fp_test(x, out, CODES[name]) is True
                np.testing.assert_array_equal(out, uf(x), err_msg=f"{name} n={n} start={start}")


@pytest.mark.skipif(not HAS, reason="fp_test not built")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_long_runs_without_avx512_go_to_numpy(dtype):
    """Beyond PLAIN_MAX elements a CPU without AVX-512 refuses (NumPy's vector loop runs), writing nothing."""
    for name, uf in TESTS.items():
        most = PLAIN_MAX[CODES[name]]
        for n in (most, most + 1):
            x, out = np.full(n, -np.inf, dtype), np.full(n, True) if name == "isnan" else np.zeros(n, bool)
            before = out.copy()
            taken = KERNEL.fp_test(x, out, CODES[name])
            assert taken is (WIDE or n <= most)
            np.testing.assert_array_equal(out, uf(x) if taken else before)


@pytest.mark.skipif(not HAS, reason="fp_test not built")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_kernel_refuses_other_buffers(dtype):
    x = np.zeros(10, dtype)
    unaligned = np.frombuffer(np.zeros(x.nbytes + 1, np.uint8).data, dtype, 10, 1)
    for args in [(x, np.empty(9, bool), 0), (x[::2], np.empty(5, bool), 0), (x, np.empty(10, np.uint8), 0),
                 (unaligned, np.empty(10, bool), 1), (x, np.empty(10, bool), 5),
                 (x.astype(x.dtype.newbyteorder(">")), np.empty(10, bool), 2),
                 (x.astype(np.float16), np.empty(10, bool), 0), (x.view(bool)[:10], x.view(bool)[:10], 0)]:
        out = args[1]
        before = out.copy()
        assert KERNEL.fp_test(*args) is False
        np.testing.assert_array_equal(out, before)  # (nothing written)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", list(TESTS))
def test_ops_give_torchs_values_and_strides(dtype, name, room_in_the_dense_memo):
    torch = pytest.importorskip("torch")
    for shape, perm, (a,) in _dense_layouts(dtype, 1, 1):
        t = torch.from_numpy(a)
        for _ in range(2):  # (the second call: the dense memo filled by the first)
            s = st.from_numpy(a)
            got, method, forward = getattr(st, name)(s), getattr(s, name)(), fallback_of(getattr(st, name))(s)
            want = getattr(torch, name)(t)
            for r in (got, method, forward):
                assert r.dtype == st.bool
                assert r.numpy().tolist() == want.numpy().tolist(), (name, shape, perm)
                assert r.stride() == want.stride(), (name, shape, perm)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", list(TESTS))
def test_ops_over_large_and_unaligned_runs(dtype, name):
    values = _values(dtype, np.random.default_rng(2))
    values = np.resize(values, 70007)  # (past the GIL-releasing size, not a multiple of 64)
    buf = np.zeros(values.nbytes + 16, np.uint8)
    buf[3:3 + values.nbytes] = values.view(np.uint8)
    unaligned = np.frombuffer(buf.data, dtype, values.size, 3)
    for a in (values, values.reshape(7, 10001).T, unaligned):
        r = getattr(st, name)(st.from_numpy(a))
        np.testing.assert_array_equal(r.numpy(), TESTS[name](a))


HAS_SQRT = KERNEL is not None and hasattr(KERNEL, "fp_sqrt") and bool(
    KERNEL.fp_sqrt(np.zeros(1, np.float32), np.empty(1, np.float32)))


@pytest.mark.skipif(not HAS_SQRT, reason="fp_sqrt not built or no AVX-512 on this CPU")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sqrt_kernel_gives_numpys_bits(dtype):
    """fp_sqrt: np.sqrt's bits (correctly rounded; -0.0, negatives' default NaN, NaN payloads),
    at every length around the 32-element step and every start around the 64-byte alignment."""
    rng = np.random.default_rng(8)
    values = np.concatenate([_values(dtype, rng), rng.uniform(0, 100, 2000).astype(dtype), np.array([-1.0, 2.0], dtype)])
    uint = np.uint32 if dtype == np.float32 else np.uint64
    for n in [*range(0, 100), len(values) - 20]:
        for start in range(0, 17):
            x = values[start:start + n]
            out = np.empty_like(x)
            assert KERNEL.fp_sqrt(x, out) is True
            with np.errstate(all="ignore"):
                want = np.sqrt(x)
            np.testing.assert_array_equal(out.view(uint), want.view(uint), err_msg=f"n={n} start={start}")


@pytest.mark.skipif(not HAS_SQRT, reason="fp_sqrt not built or no AVX-512 on this CPU")
def test_sqrt_kernel_refuses_other_buffers():
    x = np.ones(10, np.float32)
    unaligned = np.frombuffer(np.zeros(x.nbytes + 1, np.uint8).data, np.float32, 10, 1)
    for args in [(x, np.empty(10, np.float64)), (x, x), (x[::2], np.empty(5, np.float32)), (x, np.empty(9, np.float32)),
                 (unaligned, np.empty(10, np.float32)), (x.astype(np.dtype(">f4")), np.empty(10, np.dtype(">f4")))]:
        before = args[1].copy()
        assert KERNEL.fp_sqrt(*args) is False
        np.testing.assert_array_equal(args[1], before)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sqrt_gives_numpys_bits_and_torchs_strides(dtype, room_in_the_dense_memo, vml_route_off):
    """strided.sqrt (the front's kernel, its fallback, the method): NumPy's correctly rounded bits
    (PyTorch's float32 sqrt differs from them by an ulp on some elements, before this kernel too:
    values compared with NumPy), PyTorch's strides, no warning for a negative."""
    torch = pytest.importorskip("torch")
    for shape, perm, (a,) in _dense_layouts(dtype, 1, 9):
        a = np.asarray(np.abs(a) * 3.7 + (a < 0))  # (mostly non-square values, some NaN, -0.0 kept where 0 < 0 is False)
        for _ in range(2):
            s = st.from_numpy(a)
            with np.errstate(all="ignore"):
                want = np.sqrt(a)
            for r in (st.sqrt(s), s.sqrt(), fallback_of(st.sqrt)(s)):
                np.testing.assert_array_equal(r.numpy(), want)
                assert r.stride() == torch.sqrt(torch.from_numpy(a)).stride(), (shape, perm)
    with np.errstate(all="raise"):
        r = st.sqrt(st.from_numpy(-np.ones((64, 64), dtype)))
    assert np.isnan(r.numpy()).all()
