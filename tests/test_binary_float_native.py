"""float32 fmod / remainder / floor_divide / hypot through the compiled ``binary_float`` loop
(strided.kernels._specialkernel, via strided.kernels.elementwise.CompiledFloat32), and fmax / fmin's
blocked ``binary_exact``: the fast paths' flat runs (two float32 tensors of one dense layout) take
one pass of it. Each case runs three ways -- the compiled loop, the NumPy path
(``native.disabled()``) and PyTorch -- and the compiled result must be the NumPy path's bit for bit
(NaN sign and payload, -0.0, infinities, subnormals), dtype, shape and strides included; PyTorch's
where PyTorch agrees with NumPy (the known differences are pinned in
test_known_differences_from_torch)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hst

import strided as st
from strided.kernels import native
from strided.kernels.elementwise import binary_float_fresh
from strided.ops.elementwise.binary import FLOOR_DIVIDE, REMAINDER
from strided.ops.elementwise.binary_more import FMOD, HYPOT

pytestmark = pytest.mark.skipif(native.special() is None, reason="the compiled kernels are not built")

OPS = ("fmod", "remainder", "floor_divide", "hypot")
CODES = {"fmod": 0, "remainder": 1, "floor_divide": 2, "hypot": 3}
OP_SPECS = {"fmod": FMOD, "remainder": REMAINDER, "floor_divide": FLOOR_DIVIDE, "hypot": HYPOT}
SPECIAL_BITS = [0x7FC00000, 0xFFC00000, 0x7FC00001, 0xFFC12345, 0x7F800001, 0xFF800002, 0x7FA00000,  # NaNs
                0x00000001, 0x80000001, 0x007FFFFF, 0x00800000, 0x80800000, 0x7F7FFFFF, 0xFF7FFFFF]  # tiny, huge


def _specials() -> np.ndarray:
    plain = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.5, -2.5, 3.0, -3.0, 7.0, 1e-30, -1e-30, 1e30, -1e30,
                      16777216.0, 16777217.0, 1e10, -1e-10, np.inf, -np.inf], np.float32)
    return np.concatenate([plain, np.array(SPECIAL_BITS, np.uint32).view(np.float32)])


def _bits(a) -> np.ndarray:
    return np.ascontiguousarray(a).view(np.uint32)


def _two_ways(name: str, x: np.ndarray, y: np.ndarray):
    """(compiled, NumPy path) results of ``st.<name>`` of the two arrays, as tensors."""
    f = getattr(st, name)
    fast = f(st.from_numpy(x), st.from_numpy(y))
    with native.disabled():
        slow = f(st.from_numpy(x), st.from_numpy(y))
    return fast, slow


def _same(fast, slow) -> None:
    assert fast.dtype is slow.dtype is st.float32
    assert fast.shape == slow.shape and fast.stride() == slow.stride()
    np.testing.assert_array_equal(_bits(fast.numpy()), _bits(slow.numpy()))


def _like_torch(name: str, t, x: np.ndarray, y: np.ndarray) -> None:
    """``t`` is PyTorch's result: the same bits, NaN where PyTorch has NaN (its payloads differ)."""
    ref = getattr(torch, name)(torch.from_numpy(x), torch.from_numpy(y))
    assert t.shape == tuple(ref.shape) and t.stride() == ref.stride()
    got, want = t.numpy(), ref.numpy()
    skip = np.isnan(got) & np.isnan(want)
    if name in ("fmod", "remainder"):  # (PyTorch's NaN for a huge ratio: test_known_differences_from_torch)
        with np.errstate(all="ignore"):
            huge = np.abs(x.astype(np.float64) / y.astype(np.float64)) >= 2.0**24
        skip |= huge & np.isnan(want) & np.isfinite(x) & np.isfinite(y)
    if name == "hypot":  # (an infinity and a signalling NaN: test_known_differences_from_torch)
        signalling = np.isnan(x) & ((_bits(x) & 0x00400000) == 0) | np.isnan(y) & ((_bits(y) & 0x00400000) == 0)
        skip |= signalling & (np.isinf(x) | np.isinf(y))
    np.testing.assert_array_equal(np.where(skip, 0, _bits(got)), np.where(skip, 0, _bits(want)))


def _hostile(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Random bit patterns (every exponent, NaN and inf included), operands of nearby exponents,
    and exact multiples (zero remainders of both signs)."""
    u = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    v = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    third = n // 3
    v[:third] = (u[:third] & np.uint32(0xFF800000)) ^ (v[:third] & np.uint32(0x0C7FFFFF))
    x, y = u.view(np.float32), v.view(np.float32)
    y[third:2 * third] = rng.uniform(-4, 4, third).astype(np.float32)
    x[third:2 * third] = y[third:2 * third] * rng.integers(-300, 300, third).astype(np.float32)
    return x, y


@pytest.mark.parametrize("name", OPS)
def test_every_pair_of_special_values_bit_for_bit(name):
    v = _specials()
    x, y = np.repeat(v, len(v)), np.tile(v, len(v))
    fast, slow = _two_ways(name, x, y)
    _same(fast, slow)
    # and PyTorch's, where both are numbers (the ratios PyTorch's fmod gets wrong are not in this set)
    _like_torch(name, fast, x, y)


@pytest.mark.parametrize("name", OPS)
def test_random_bits_many_blocks(name):
    """Over 2^17 elements (many 512-element blocks, the GIL released): blocks with and without
    the elements the fast form hands to the C library."""
    x, y = _hostile(np.random.default_rng(CODES[name]), 1 << 17)
    _same(*_two_ways(name, x, y))


def test_remainder_of_two_nans_is_numpys():
    """NumPy's remainder of two NaNs keeps the one with the larger payload (equal payloads: a
    negative sign only where both are negative); the compiled loop gives the same NaN."""
    rng = np.random.default_rng(11)
    n = 4096
    u = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32) | np.uint32(0x7F800001)
    v = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32) | np.uint32(0x7F800001)
    v[::3] = (u[::3] & np.uint32(0x003FFFFF)) | (v[::3] & np.uint32(0xFFC00000))  # equal payloads
    fast, slow = _two_ways("remainder", u.view(np.float32), v.view(np.float32))
    _same(fast, slow)


@pytest.mark.parametrize("name", OPS)
def test_permuted_and_sliced_layouts(name):
    """Permuted operands take the fast path too (their flat runs pair up); sliced ones the general
    path: the same bits either way, and the output's strides are PyTorch's."""
    x, y = _hostile(np.random.default_rng(3), 64 * 96)
    a, b = x.reshape(64, 96), y.reshape(64, 96)
    for view in (lambda t: t.t(), lambda t: t[::2], lambda t: t[:, 1:], lambda t: t.flip(0)):
        f = getattr(st, name)
        fast = f(view(st.from_numpy(a)), view(st.from_numpy(b)))
        with native.disabled():
            slow = f(view(st.from_numpy(a)), view(st.from_numpy(b)))
        _same(fast, slow)
        ref = getattr(torch, name)(view(torch.from_numpy(a)), view(torch.from_numpy(b)))
        assert fast.stride() == ref.stride()


@pytest.mark.parametrize("name", OPS)
def test_uniform_values_equal_torch(name):
    rng = np.random.default_rng(5)
    y = rng.uniform(-3, 3, 5000).astype(np.float32)
    x = np.concatenate([rng.uniform(-10, 10, 2500), y[2500:] * rng.integers(-999, 999, 2500)]).astype(np.float32)
    fast, slow = _two_ways(name, x, y)
    _same(fast, slow)
    _like_torch(name, fast, x, y)


@settings(max_examples=80, deadline=None)
@given(hst.lists(hst.tuples(hst.floats(width=32), hst.floats(width=32)), min_size=1, max_size=40),
       hst.sampled_from(OPS))
def test_hypothesis_pairs(pairs, name):
    """The loop itself on short runs (the ops take it from native_min elements on): the NumPy
    path's bits."""
    x = np.array([p[0] for p in pairs], np.float32)
    y = np.array([p[1] for p in pairs], np.float32)
    got = binary_float_fresh(x, y, CODES[name])
    with native.disabled():
        want = getattr(st, name)(st.from_numpy(x), st.from_numpy(y)).numpy()
    np.testing.assert_array_equal(_bits(got), _bits(want))


@pytest.mark.parametrize("name", OPS)
def test_which_calls_take_the_loop(name, monkeypatch):
    """The flat-run fast path of two float32 tensors calls the loop from the op's native_min on
    (permuted too); float64, a broadcast operand, a number and out= do not."""
    calls = []
    compiled = native.special()

    class Spy:
        def binary_float(self, x, y, out, code):
            calls.append((x.size, code))
            return compiled.binary_float(x, y, out, code)

        def __getattr__(self, attr):
            return getattr(compiled, attr)

    monkeypatch.setattr(native, "special", lambda: Spy())
    # (the Python path's thresholds: fmod's and hypot's fronts call the loop from C at every size,
    # as their kernel entry, which this spy cannot see; tests/test_small23.py checks that entry)
    from strided.ops._support.front import fallback_of

    f = fallback_of(getattr(st, name))
    small = OP_SPECS[name].native_min
    a = st.from_numpy(np.linspace(1, 9, 512, dtype=np.float32).reshape(16, 32))
    f(a, a + 1)
    f(a.t(), (a + 1).t())
    assert calls == [(512, CODES[name])] * 2
    calls.clear()
    short = st.from_numpy(np.linspace(1, 9, max(small - 1, 12), dtype=np.float32))
    f(short, short + 1)
    assert calls == ([(12, 1)] if name == "remainder" else [])  # (remainder: from 1 element on)
    calls.clear()
    f(a.double(), a.double())
    f(a, a[:1])
    f(a, st.from_numpy(np.full((16, 32), 2.0, np.float32)), out=st.empty(16, 32))
    if name != "hypot":
        f(a, 2.5)
    assert calls == []


@pytest.mark.parametrize("name", OPS)
def test_fallthrough_cases_match(name):
    """float64, broadcasting, a scalar, out=, autograd: the general path, the same values as before."""
    rng = np.random.default_rng(8)
    x, y = _hostile(rng, 300)
    for dtype in ("float64", "float16"):
        with np.errstate(over="ignore"):
            _same_any(name, x.astype(dtype), y.astype(dtype))
    _same_any(name, x.reshape(30, 10), y[:10])
    f = getattr(st, name)
    out = st.empty(300)
    f(st.from_numpy(x), st.from_numpy(y), out=out)
    with native.disabled():
        ref = f(st.from_numpy(x), st.from_numpy(y))
    np.testing.assert_array_equal(_bits(out.numpy()), _bits(ref.numpy()))
    if name != "floor_divide":  # (no derivative)
        a = st.from_numpy(np.abs(x[:50]) % 7 + 1).requires_grad_()
        b = st.from_numpy(np.abs(y[:50]) % 3 + 1).requires_grad_()
        r = f(a, b)
        with native.disabled():
            r2 = f(a, b)
        assert r.grad_fn is not None
        np.testing.assert_array_equal(_bits(r.detach().numpy()), _bits(r2.detach().numpy()))


def _same_any(name: str, x: np.ndarray, y: np.ndarray) -> None:
    f = getattr(st, name)
    fast = f(st.from_numpy(x), st.from_numpy(y))
    with native.disabled():
        slow = f(st.from_numpy(x), st.from_numpy(y))
    assert fast.dtype is slow.dtype and fast.stride() == slow.stride()
    np.testing.assert_array_equal(np.ascontiguousarray(fast.numpy()).view(np.uint8),
                                  np.ascontiguousarray(slow.numpy()).view(np.uint8))


def test_kernel_refuses_what_it_does_not_cover():
    k = native.special()
    x = np.arange(1, 9, dtype=np.float32)
    out = np.empty(8, np.float32)
    assert k.binary_float(x, x, out, 0) is True
    assert k.binary_float(x, x, x, 0) is False  # out overlaps an operand
    assert k.binary_float(x[::2], x[::2], out[:4], 0) is False  # not contiguous
    assert k.binary_float(x.astype(np.float64), x.astype(np.float64), out.astype(np.float64), 0) is False
    raw = np.zeros(33, np.uint8)
    odd = raw[1:].view(np.float32)  # misaligned
    assert k.binary_float(odd, odd, out, 0) is False
    with pytest.raises(ValueError):
        k.binary_float(x, x, out, 4)
    with pytest.raises(TypeError):
        k.binary_float(x, x, out)


def test_integer_division_by_zero_still_refused():
    a = st.tensor([1, 2, 3], dtype=st.int32)
    b = st.tensor([1, 0, 3], dtype=st.int32)
    for name in ("fmod", "remainder", "floor_divide"):
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):  # (PyTorch's class and first line)
            getattr(st, name)(a, b)


def test_known_differences_from_torch():
    """Pinned, not changed here (strided's bits are NumPy's): PyTorch's float32 fmod/remainder is
    NaN where |x / y| is huge (its vector fmodf's range: 16 elements, not its scalar tail), where
    C's fmodf is exact. (hypot of an infinity and a signalling NaN: glibc's NaN; PyTorch's is inf
    or NaN depending on where the element falls, its vector loop or its scalar tail.)"""
    x = np.full(16, 1.2361583e22, np.float32)
    y = np.full(16, -4.1280788e-18, np.float32)
    got = st.fmod(st.from_numpy(x), st.from_numpy(y)).numpy()
    assert np.isfinite(got).all() and got[0] == np.fmod(x, y)[0]
    assert torch.isnan(torch.fmod(torch.from_numpy(x), torch.from_numpy(y))).all()
    inf = np.full(16, np.inf, np.float32)
    snan = np.full(16, 0x7FA00000, np.uint32).view(np.float32)
    assert np.isnan(st.hypot(st.from_numpy(inf), st.from_numpy(snan)).numpy()).all()  # (glibc's hypotf)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ["fmax", "fmin"])
def test_fmax_fmin_nans_in_some_blocks_only(name, dtype):
    """binary_exact's blocked pass: NaNs in a few 1024-element blocks (redone element by element),
    none in the others (the plain select), ties and signed zeros everywhere."""
    rng = np.random.default_rng(2)
    n = 5000
    x = rng.choice(np.array([0.0, -0.0, 1.0, -1.0, 2.0], dtype), n)
    y = rng.choice(np.array([0.0, -0.0, 1.0, -1.0, 2.0], dtype), n)
    bits = np.uint32 if dtype == "float32" else np.uint64
    nans = np.array([0x7FC00001, 0x7F800002, 0xFFC00003] if dtype == "float32"
                    else [0x7FF8000000000001, 0x7FF0000000000002, 0xFFF8000000000003], bits).view(dtype)
    x[1500:1503] = nans
    y[1502:1505] = nans[::-1]
    y[4999] = nans[1]
    fast = getattr(st, name)(st.from_numpy(x), st.from_numpy(y))
    with native.disabled():
        slow = getattr(st, name)(st.from_numpy(x), st.from_numpy(y))
    ref = getattr(torch, name)(torch.from_numpy(x), torch.from_numpy(y))
    for t in (fast, slow):
        np.testing.assert_array_equal(t.numpy().view(bits), ref.numpy().view(bits))
