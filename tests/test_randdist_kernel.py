"""The in-place samplers' compiled fills (kernels/_randdist.c through NumPy's libnpyrandom, and
_randkernel.c's bounded_float/below_fill): each against NumPy's own calls and arithmetic bit for
bit with the same stream after it, and each sampler's compiled common call against the same call
with the compiled kernels off (native.disabled(): the Python fills), over the argument edges the
compiled path takes or refuses."""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest

import strided
from strided.kernels import native

dist = native.randdist()
rand = native.rand()
# (CI builds them, with NumPy in the build env: STRIDED_REQUIRE_NATIVE=1 makes their absence a failure)
pytestmark = pytest.mark.skipif((dist is None or rand is None) and os.environ.get("STRIDED_REQUIRE_NATIVE") != "1",
                                reason="compiled samplers not built")


def _pair(seed: int) -> tuple[np.random.Generator, np.random.Generator]:
    """Two generators at one state, past a float draw, a raw step and a buffered 32-bit half."""
    out = []
    for _ in range(2):
        g = np.random.Generator(np.random.PCG64(seed))
        g.random(seed % 3)
        if seed % 2:
            g.bit_generator.random_raw(1)
        g.integers(0, 10, 1, dtype=np.int32)
        out.append(g)
    return out[0], out[1]


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and a.tobytes() == b.tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [0, 1, 12, 256, 1001])
def test_kernels_are_numpys_steps(dtype, n):
    for seed in range(6):
        for m, s in ((0.0, 1.0), (-0.0, 1.0), (1.5, 0.25), (-3.0, 1e-3), (0.0, 0.0), (1e15, 1e15), (1e-20, 1e-20)):
            a, b = _pair(seed)
            o = np.empty(n, dtype)
            rate = s * 3 or 2.0
            assert dist.exponential_fill(a.bit_generator.capsule, o, rate)
            r = b.standard_exponential(dtype=dtype, out=np.empty(n, dtype))
            if rate != 1.0:
                np.divide(r, rate, out=r)
            assert _same(o, r)
            for p in (0.5, 0.34, 0.33, 0.01, 1e-9):  # (NumPy's search and inversion branches)
                assert dist.geometric_fill(a.bit_generator.capsule, o, p)
                r = np.empty(n, dtype)
                r[...] = b.geometric(p, (n,))
                assert _same(o, r)
            if s:
                assert dist.cauchy_fill(a.bit_generator.capsule, o, m, s)
                x = b.standard_cauchy((n,))
                if s != 1.0:
                    np.multiply(x, s, out=x)
                np.add(x, m, out=x)
                r = np.empty(n, dtype)
                with np.errstate(all="ignore"):
                    r[...] = x
                assert _same(o, r)
            if abs(m) + 15 * s <= 700:
                assert dist.log_normal_fill(a.bit_generator.capsule, o, m, s)
                x = b.standard_normal((n,))
                np.multiply(x, s, out=x)
                np.add(x, m, out=x)
                with np.errstate(all="raise"):  # (the range the kernel takes: np.exp warns of nothing)
                    np.exp(x, out=x)
                r = np.empty(n, dtype)
                r[...] = x
                assert _same(o, r)
            for low, top in ((0, 2**24), (0, 2**53), (-5, 5), (7, 7), (0, 2**32 - 1), (3, 2**40), (-2**63, 2**63 - 1)):
                assert rand.bounded_float(a.bit_generator.capsule, o, low, (top - low) % 2**64)
                r = np.empty(n, dtype)
                r[...] = b.integers(low, top, size=(n,), dtype=np.int64, endpoint=True)
                assert _same(o, r)
            for p in (0.0, 0.5, 1.0, 1e-300, 0.999999):
                assert rand.below_fill(a.bit_generator.capsule, o, p)
                r = np.empty(n, dtype)
                r[...] = b.random((n,)) < p
                assert _same(o, r)
            assert a.bit_generator.state == b.bit_generator.state


def test_kernels_refuse_other_buffers_without_drawing():
    g = np.random.Generator(np.random.PCG64(1))
    before = g.bit_generator.state
    ro = np.zeros(4, np.float32)
    ro.flags.writeable = False
    unaligned = np.frombuffer(bytearray(20), np.float32, 3, 2)
    for out in (np.zeros(4, np.int64), np.zeros(4, np.float16), ro, unaligned, np.zeros((4, 4))[:, 0]):
        cap = g.bit_generator.capsule
        assert dist.exponential_fill(cap, out, 1.0) is False
        assert dist.geometric_fill(cap, out, 0.5) is False
        assert dist.cauchy_fill(cap, out, 0.0, 1.0) is False
        assert dist.log_normal_fill(cap, out, 0.0, 1.0) is False
        assert rand.bounded_float(cap, out, 0, 10) is False
        assert rand.below_fill(cap, out, 0.5) is False
        assert rand.uniform_fill(cap, out) is False
        assert rand.normal_fill(cap, out, False) is False
    assert g.bit_generator.state == before


CALLS = [
    ("normal_", [(), (0.0, 1.0), (2.0, 0.5), (-0.0, 1.0), (0.0, 0.0), (1e15, 1e15), (1.1e15, 1.0), (0.0, 1e16),
                 (0.0, 1e-20), (0.0, 1e-21), (1e-21, 1.0), (float("nan"), 1.0), (float("inf"), 1.0), (1e30, 3e38)]),
    ("exponential_", [(), (1.0,), (2.5,), (1e-20,), (1e-21,), (1e15,), (1e16,), (float("inf"),)]),
    ("geometric_", [(0.5,), (0.1,), (0.9,), (1e-10,), (0.3333333333333333,)]),
    ("cauchy_", [(), (0.0, 1.0), (2.0, 0.5), (-0.0, 1.0), (1e15, 1e15), (1e16, 1.0), (0.0, 1e16), (0.0, 1e-21),
                 (float("nan"), 1.0), (float("inf"), 2.0)]),
    ("log_normal_", [(), (1.0, 2.0), (0.0, 1.0), (-0.0, 0.5), (685.0, 1.0), (686.0, 1.0), (-685.0, 1.0), (0.0, 1e-20),
                     (0.0, 1e-21), (0.0, 46.0), (0.0, 400.0), (40.0, 2.0), (float("nan"), 1.0)]),
    ("random_", [()]),
    ("bernoulli_", [(), (0.5,), (0.0,), (1.0,), (0.3,)]),
    ("uniform_", [()]),
]


def _run(op: str, args: tuple, dtype, seed: int) -> tuple:
    strided.manual_seed(seed)
    if seed % 2:
        strided.rand(seed)
    targets = [strided.zeros(3, 4, dtype=dtype), strided.zeros(16, 16, dtype=dtype), strided.zeros((), dtype=dtype),
               strided.zeros(0, 3, dtype=dtype), strided.zeros(20, dtype=dtype)[4:16], strided.zeros(4, 3, dtype=dtype).t()]
    out = []
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        for t in targets:
            assert getattr(t, op)(*args) is t
            out.append((t.shape, t.stride(), t.numpy().tobytes()))
    out.append([str(w.message) for w in seen])
    out.append(strided.rand(5).numpy().tobytes())  # (the stream after)
    return out


@pytest.mark.parametrize("op, calls", CALLS)
def test_samplers_compiled_equal_python(op, calls):
    for dtype in (strided.float32, strided.float64):
        for args in calls:
            for seed in range(3):
                fast = _run(op, args, dtype, seed)
                with native.disabled():
                    slow = _run(op, args, dtype, seed)
                assert fast == slow, (op, args, dtype, seed)


def test_read_only_target_still_refused():
    for op, args in (("normal_", ()), ("exponential_", ()), ("geometric_", (0.5,)), ("cauchy_", ()),
                     ("log_normal_", ()), ("random_", ()), ("bernoulli_", ()), ("uniform_", ())):
        arr = np.zeros((2, 3), np.float32)
        arr.flags.writeable = False
        strided.manual_seed(0)
        with pytest.raises(RuntimeError, match="read-only"):
            getattr(strided.from_numpy(arr), op)(*args)
        assert not arr.any()


@pytest.mark.parametrize("n", [0, 1, 2, 12, 256, 5000])
def test_factory_kernels_are_numpys_calls(n):
    """randperm's and normal(mean tensor)'s fills (_randkernel's: the shuffle and the ziggurat)."""
    for seed in range(8):
        a, b = _pair(seed)
        o = np.empty(n, np.int64)
        assert rand.randperm_fill(a.bit_generator.capsule, o)
        assert np.array_equal(o, b.permutation(n))
        for dtype in (np.float32, np.float64):
            for s in (1.0, 2.5, 0.0, 1e-20, 1e15):
                m = np.random.default_rng(seed).standard_normal(n).astype(dtype)
                if n > 2:
                    m[:3] = (-0.0, np.inf, np.finfo(dtype).max)
                o = np.empty(n, dtype)
                assert rand.normal_tensor_fill(a.bit_generator.capsule, o, m, s)
                with np.errstate(all="raise"):  # (nothing the kernel takes makes NumPy warn)
                    assert _same(o, b.standard_normal((n,), dtype=dtype) * s + m)
        assert a.bit_generator.state == b.bit_generator.state
    g = np.random.Generator(np.random.PCG64(1))
    m = np.zeros(4)
    assert rand.normal_tensor_fill(g.bit_generator.capsule, m, m, 1.0) is False  # (overlap)
    assert rand.normal_tensor_fill(g.bit_generator.capsule, np.zeros(4), np.zeros(4, np.float32), 1.0) is False
    assert rand.randperm_fill(g.bit_generator.capsule, np.zeros(4, np.int32)) is False
    assert g.bit_generator.state == np.random.Generator(np.random.PCG64(1)).bit_generator.state


def _factories(seed: int) -> list:
    strided.manual_seed(seed)
    out = []
    for shape in ((3, 4), (16, 16), (0, 3), (), (5,)):
        n = int(np.prod(shape))
        for dtype in (strided.float32, strided.float64, strided.int64, strided.int32, strided.float16):
            x = strided.full(shape, 0.5, dtype=dtype)
            for fn, args in ((strided.randint_like, (x, 10)), (strided.randint_like, (x, 2**24 + 1)),
                             (strided.randn_like, (x,)), (strided.rand_like, (x,)), (strided.normal, (x,)),
                             (strided.normal, (x, 2.5)), (strided.normal, (x, 1e16)),
                             (strided.normal, (x.t() if x.ndim == 2 else x, 0.0))):
                with warnings.catch_warnings(record=True) as seen:
                    warnings.simplefilter("always")
                    try:
                        t = fn(*args)
                        out.append((t.dtype, t.shape, t.stride(), t.numpy().tobytes()))
                    except Exception as e:  # noqa: BLE001 (the same error either way)
                        out.append(repr(e))
                out.append([str(w.message) for w in seen])
        out.append(strided.randperm(n).numpy().tobytes())
        out.append(strided.randint(0, 10, shape).numpy().tobytes())
        out.append(strided.randint(-2**63, 2**63 - 1, shape).numpy().tobytes())
        out.append(strided.randn(shape).numpy().tobytes())
        out.append(strided.rand(shape).numpy().tobytes())
    out.append(strided.rand(5).numpy().tobytes())
    return out


def test_factories_compiled_equal_python():
    for seed in range(3):
        fast = _factories(seed)
        with native.disabled():
            slow = _factories(seed)
        assert fast == slow


def test_randdist_only_under_the_numpy_it_was_built_with(monkeypatch):
    """The module links the build's NumPy distribution code: under another NumPy version at run
    time the loader refuses it (the samplers then call numpy.random, whose draws are the truth)."""
    assert dist.numpy_version == np.__version__
    monkeypatch.setattr(native, "_randdist_loaded", False)
    monkeypatch.setattr(native, "_randdist", None)
    monkeypatch.setattr(native.np, "__version__", "0.0.0")
    assert native.randdist() is None
