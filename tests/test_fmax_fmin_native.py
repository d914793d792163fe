"""fmax / fmin / heaviside through the compiled ``binary_exact`` kernel (strided.kernels._specialkernel):
the fast paths' flat runs (two float32/float64 tensors of one dense layout) take one pass of it. Each case
runs three ways -- the compiled kernel, the NumPy formula (``native.disabled()``) and PyTorch --
and compares the bits (NaN sign and payload, signalling NaNs, -0.0, infinities), dtype, shape,
strides; and gradients and watch() records stay those of the general path."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hst

import strided as st
from strided.kernels import native
from strided.ops._support.front import fallback_of

pytestmark = pytest.mark.skipif(native.special() is None, reason="the compiled kernels are not built")

BITS = {"float32": np.uint32, "float64": np.uint64}
QUIET = {"float32": 0x00400000, "float64": 0x0008000000000000}


def _nans(dtype: str) -> list:
    """Quiet and signalling NaNs of both signs with distinct payloads, as bit patterns."""
    if dtype == "float32":
        return [0x7FC00000, 0xFFC00000, 0x7FC00001, 0xFFC12345, 0x7F800001, 0xFF800002, 0x7FA00000]
    return [0x7FF8000000000000, 0xFFF8000000000000, 0x7FF8000000000001, 0xFFF8000012345678,
            0x7FF0000000000001, 0xFFF0000000000002, 0x7FF4000000000000]


def _specials(dtype: str) -> np.ndarray:
    plain = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 1e-30, -1e-30, 1e-45, 3e38, -3e38, np.inf, -np.inf], dtype)
    nans = np.array(_nans(dtype), BITS[dtype]).view(dtype)
    return np.concatenate([plain, nans])


def _bits(a) -> np.ndarray:
    a = np.ascontiguousarray(a)
    return a.view(BITS[a.dtype.name]) if a.dtype.name in BITS else a


def _three_ways(name: str, x: np.ndarray, y: np.ndarray):
    """(compiled, NumPy formula, torch) results of ``name`` of the two arrays, as tensors."""
    f = getattr(st, name)
    fast = f(st.from_numpy(x), st.from_numpy(y))
    with native.disabled():
        slow = f(st.from_numpy(x), st.from_numpy(y))
    ref = getattr(torch, name)(torch.from_numpy(x), torch.from_numpy(y))
    return fast, slow, ref


def _same(fast, slow, ref) -> None:
    for t in (fast, slow):
        assert t.dtype.name == str(ref.dtype).removeprefix("torch.")
        assert t.shape == tuple(ref.shape) and t.stride() == ref.stride()
        np.testing.assert_array_equal(_bits(t.numpy()), _bits(ref.numpy()))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ["fmax", "fmin", "heaviside"])
def test_every_pair_of_special_values_bit_for_bit(name, dtype):
    v = _specials(dtype)
    x, y = np.repeat(v, len(v)), np.tile(v, len(v))
    _same(*_three_ways(name, x, y))
    _same(*_three_ways(name, x.reshape(len(v), len(v)), y.reshape(len(v), len(v))))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_nan_rules(dtype):
    """Both NaN: y quieted; a signalling NaN beats a number (quieted); a quiet NaN loses."""
    nans = np.array(_nans(dtype), BITS[dtype])
    x, y = nans.view(dtype), nans[::-1].copy().view(dtype)
    for name in ("fmax", "fmin"):
        fast, _, _ = _three_ways(name, x, y)
        np.testing.assert_array_equal(_bits(fast.numpy()), nans[::-1] | BITS[dtype](QUIET[dtype]))
        one = np.ones(len(nans), dtype)
        quiet = (nans & BITS[dtype](QUIET[dtype])) != 0
        for a, b in ((x, one), (one, x)):
            got = _bits(getattr(st, name)(st.from_numpy(a), st.from_numpy(b)).numpy())
            np.testing.assert_array_equal(got, np.where(quiet, _bits(one), nans | BITS[dtype](QUIET[dtype])))


def test_ties_keep_the_first_zero():
    z, nz = np.zeros(4, np.float32), -np.zeros(4, np.float32)
    assert np.signbit(st.fmax(st.from_numpy(nz), st.from_numpy(z)).numpy()).all()
    assert not np.signbit(st.fmin(st.from_numpy(z), st.from_numpy(nz)).numpy()).any()


_FLOATS = hst.one_of(hst.floats(width=32, allow_nan=True, allow_infinity=True), hst.sampled_from([0.0, -0.0]))


@settings(max_examples=60, deadline=None)
@given(hst.sampled_from(["float32", "float64"]), hst.sampled_from(["fmax", "fmin", "heaviside"]),
       hst.lists(hst.tuples(_FLOATS, _FLOATS), min_size=0, max_size=40),
       hst.sampled_from(["rowmajor", "permuted", "offset", "strided", "broadcast"]))
def test_random_values_and_layouts(dtype, name, pairs, layout):
    x = np.array([p[0] for p in pairs] or [0.0], dtype)
    y = np.array([p[1] for p in pairs] or [0.0], dtype)
    n = len(x)
    if layout == "permuted" and n % 2 == 0:  # a transposed (2, n/2): the fast path's permuted plan
        x, y = x.reshape(2, n // 2).T, y.reshape(2, n // 2).T
    elif layout == "offset":  # a row-major view at an offset of its storage
        x, y = np.concatenate([[1.0], x]).astype(dtype)[1:], np.concatenate([[2.0], y]).astype(dtype)[1:]
    elif layout == "strided":  # every other element: the general path
        x, y = np.repeat(x, 2)[::2], np.repeat(y, 2)[::2]
    elif layout == "broadcast":
        x, y = x.reshape(n, 1), y[: max(1, n // 2)]
    _same(*_three_ways(name, x, y))


def test_other_dtypes_and_mixed_dtypes_take_the_formula():
    a = np.array([1, 5, -3], np.int32)
    _same(*_three_ways("fmax", a, a[::-1].copy()))
    h = np.array([0x3C00, 0x7E00, 0x8000, 0x7C01, 0xFD02, 0x7E05, 0x3C00], np.uint16).view(np.float16)
    hx, hy = np.repeat(h, len(h)), np.tile(h, len(h))  # (signalling NaNs too: the formula's rule)
    _same(*_three_ways("fmin", hx, hy))
    _same(*_three_ways("fmax", hx, hy))
    f, d = np.array([1.0, np.nan, 0.0], np.float32), np.array([np.nan, 2.0, -0.0], np.float64)
    _same(*_three_ways("fmax", f, d))


def test_misaligned_and_big_endian_operands_take_the_formula():
    raw = np.zeros(8 * 6 + 1, np.uint8)[1:].view(np.float64)
    raw[:] = [1.0, np.nan, -0.0, 0.0, 2.0, -np.inf]
    _same(*_three_ways("fmax", raw, raw[::-1].copy()))


def test_zero_size_and_0d():
    for shape in ((0,), (), (2, 0)):
        a = np.full(shape, -0.0, np.float32)
        for name in ("fmax", "heaviside"):
            _same(*_three_ways(name, a, np.full(shape, np.nan, np.float32)))


def test_heaviside_in_place_and_mixed_dtypes():
    v = _specials("float64")
    x, y = np.repeat(v, len(v)), np.tile(v, len(v))
    a, t = st.from_numpy(x.copy()), torch.from_numpy(x.copy())
    a.heaviside_(st.from_numpy(y)), t.heaviside_(torch.from_numpy(y))
    np.testing.assert_array_equal(_bits(a.numpy()), _bits(t.numpy()))
    with pytest.raises(RuntimeError, match="different dtypes"):
        st.heaviside(st.from_numpy(x), st.from_numpy(y.astype(np.float32)))


def test_gradients_and_watch_are_the_general_paths():
    x = np.array([[1.0, np.nan, 3.0], [-0.0, 2.0, np.nan]])
    y = np.array([[2.0, 1.0, np.nan], [0.0, 2.0, np.nan]])
    for name in ("fmax", "fmin"):
        grads = []
        for off in (False, True):
            a, b = st.tensor(x, requires_grad=True), st.tensor(y, requires_grad=True)
            if off:
                with native.disabled():
                    out = getattr(st, name)(a, b)
            else:
                out = getattr(st, name)(a, b)
            out.sum().backward()
            grads.append((_bits(out.detach().numpy()), a.grad.numpy(), b.grad.numpy()))
        ta, tb = torch.tensor(x, requires_grad=True), torch.tensor(y, requires_grad=True)
        tout = getattr(torch, name)(ta, tb)
        tout.sum().backward()
        for got in grads:
            np.testing.assert_array_equal(got[0], _bits(tout.detach().numpy()))
            np.testing.assert_array_equal(got[1], ta.grad.numpy())
            np.testing.assert_array_equal(got[2], tb.grad.numpy())
    a, b = st.tensor(x), st.tensor(y)
    seen = []
    for off in (False, True):
        with st.watch() as w:
            if off:
                with native.disabled():
                    st.fmax(a, b)
            else:
                st.fmax(a, b)
        seen.append([(s.name, s.kind) for s in w.steps])
    assert seen[0] == seen[1] and [n for n, _ in seen[0]] == ["fmax"]


def test_the_kernel_refuses_what_it_does_not_take():
    k = native.special()
    x = np.arange(8.0)
    assert k.binary_exact(x, x, x, 0) is False  # out overlaps an operand
    assert k.binary_exact(x[::2], x[1::2], np.empty(4), 0) is False  # not contiguous
    raw = np.zeros(8 * 4 + 1, np.uint8)[1:].view(np.float64)  # misaligned
    assert k.binary_exact(raw, raw.copy(), np.empty(4), 1) is False
    assert k.binary_exact(x, x.view(np.int64), np.empty(8), 0) is False  # formats differ
    assert k.binary_exact(x.astype(">f8"), x, np.empty(8), 0) is False  # not native order
    with pytest.raises(ValueError):
        k.binary_exact(x, x.copy(), np.empty(4), 0)  # lengths differ
    with pytest.raises(ValueError):
        k.binary_exact(x, x.copy(), np.empty(8), 4)  # (3 is copysign: tests/test_copysign_native.py)


def test_the_fast_path_reaches_the_kernel(monkeypatch):
    """The differential tests above compare the kernel's bits only if the kernel runs."""
    k = native.special()
    calls = []

    class Spy:
        def binary_exact(self, *args):
            calls.append(args[3])
            return k.binary_exact(*args)

        def binary_exact_fresh(self, *args):  # (the fast path's entry: x, y, code; its own output)
            calls.append(args[2])
            return k.binary_exact_fresh(*args)

    monkeypatch.setattr(native, "special", lambda: Spy())
    a = st.from_numpy(np.array([[1.0, np.nan], [-0.0, 3.0]], np.float32))
    # (the compiled fronts call binary_exact from C, outside the spy: their entries' Python paths)
    fallback_of(st.fmax)(a, -a)
    fallback_of(st.fmin)(a.t(), a.t())
    fallback_of(st.heaviside)(a, a)
    assert calls == [0, 1, 2]


def test_the_fresh_entries_match_the_into_entries_and_refuse_alike():
    """binary_exact_fresh / torch_extreme_fresh (the fast paths' entries, which make their own
    output) give binary_exact's / torch_extreme's bits, and None where those answer False."""
    k = native.special()
    rng = np.random.default_rng(5)
    for dt in (np.float32, np.float64):
        x = rng.choice(np.array([0.0, -0.0, 1.5, -2.0, np.nan, np.inf], dt), 77)
        y = rng.choice(np.array([0.0, -0.0, 1.5, -2.0, np.nan, -np.inf], dt), 77)
        for code in range(4):
            ref = np.empty_like(x)
            assert k.binary_exact(x, y, ref, code)
            got = k.binary_exact_fresh(x, y, code)
            assert got.dtype == dt and got.shape == x.shape and got.tobytes() == ref.tobytes()
        for is_max in (True, False):
            ref = np.empty_like(x)
            assert k.torch_extreme(x, y, ref, is_max, len(x))
            got = k.torch_extreme_fresh(x, y, is_max)
            assert got.dtype == dt and got.tobytes() == ref.tobytes()
    x = np.arange(8.0)
    assert k.binary_exact_fresh(x[::2], x[1::2], 0) is None  # not contiguous
    assert k.binary_exact_fresh(x, x.view(np.int64), 0) is None  # formats differ
    assert k.torch_extreme_fresh(x[::2], x[1::2], True) is None
    assert k.torch_extreme_fresh(x, x[:4], True) is None  # lengths differ
    assert k.torch_extreme_fresh(x.reshape(2, 4), x.reshape(2, 4), True) is None  # not one row
    assert k.torch_extreme_fresh(x[:0], x[:0], True) is None  # empty: the caller's own answer
    with pytest.raises(ValueError):
        k.binary_exact_fresh(x, x[:4], 0)  # lengths differ, as binary_exact


def test_the_fresh_entries_make_plain_arrays_only(tmp_path):
    """An operand of an ndarray subclass (a memmap's run) is refused (None: the caller's NumPy
    path, whose np.empty makes a plain array): numpy.empty_like would make one of its class."""
    k = native.special()
    m = np.memmap(tmp_path / "m.bin", dtype=np.float32, mode="w+", shape=(12,))
    m[:] = np.arange(12) - 5
    plain = np.array(m)
    assert k.torch_extreme_fresh(m, plain, True) is None
    assert k.binary_exact_fresh(m, plain, 3) is None
    assert type(k.torch_extreme_fresh(plain, plain, True)) is np.ndarray
    assert type(k.binary_exact_fresh(plain, -plain, 3)) is np.ndarray
