"""Red-team probes of bin9's compiled float32 fmod / remainder / floor_divide / hypot and the blocked
fmax / fmin / heaviside select pass, each against the same call with the compiled kernels off
(``native.disabled()``: the general NumPy path), bit for bit: fmod's fast form at the edges of its
conditions (exponent gaps 24..27, quotients next to 2^22..2^26, smallest and largest normal y, all-ones
mantissas), floor_divide's int32 floor near 2^23, raw-bit operands (NaN payloads, subnormals) in
blocks after NaN-free ones, permuted / flipped / misaligned views, the result's strides, a watch()
block's steps and ledger, and four threads over 2^16-element runs (the GIL-released branch)."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hst

import strided as st
from strided.kernels import native
from strided.kernels.elementwise import binary_float_fresh, exact_loop
from strided.kernels.fpstate import quietly
from strided.ops.elementwise.binary import FLOOR_DIVIDE, REMAINDER
from strided.ops.elementwise.binary_math import FMAX, FMIN, HEAVISIDE
from strided.ops.elementwise.binary_more import FMOD, HYPOT

pytestmark = pytest.mark.skipif(native.special() is None, reason="the compiled kernels are not built")

FLOAT_OPS = ((0, FMOD), (1, REMAINDER), (2, FLOOR_DIVIDE), (3, HYPOT))
EXACT_OPS = ((0, FMAX), (1, FMIN), (2, HEAVISIDE))
ALL_NAMES = ("fmod", "remainder", "floor_divide", "hypot", "fmax", "fmin", "heaviside")


def _u(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    return a.view(np.uint32 if a.dtype.itemsize == 4 else np.uint64)


def _edge_operands(seed: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    ey = rng.choice([1, 2, 3, 100, 127, 200, 226, 228, 253, 254], n)
    gap = rng.choice([-30, -1, 0, 1, 23, 24, 25, 26, 27, 30], n)
    ex = np.clip(ey + gap, 0, 254)
    mx = np.where(rng.random(n) < 0.3, (1 << 23) - 1, rng.integers(0, 1 << 23, n))
    my = np.where(rng.random(n) < 0.3, (1 << 23) - 1, np.where(rng.random(n) < 0.3, 0, rng.integers(0, 1 << 23, n)))
    sx = rng.integers(0, 2, n) << 31
    sy = rng.integers(0, 2, n) << 31
    x = (sx | (ex << 23) | mx).astype(np.uint32).view(np.float32)
    y = (sy | (ey << 23) | my).astype(np.uint32).view(np.float32)
    # x a near multiple of y: quotients next to the int32 round trip's and the fast form's limits
    k = rng.choice([1, 3, 2.0**22, 2.0**23 - 1, 2.0**23, 2.0**23 + 1, 2.0**24, 2.0**25, 2.0**26 - 1, 2.0**26], n)
    near = (k * (1 + rng.integers(-3, 4, n) * 2.0**-23) * y.astype(np.float64)).astype(np.float32)
    pick = rng.random(n) < 0.5
    x = np.where(pick, near, x)
    return x, y


@pytest.mark.parametrize("seed", range(6))
def test_fmod_family_fast_form_edges_match_ufunc(seed):
    with np.errstate(all="ignore"):
        x, y = _edge_operands(seed, 1 << 14)
    for code, op in FLOAT_OPS:
        got = binary_float_fresh(x, y, code)
        assert got is not None
        want = quietly(op.ufunc, x, y)
        bad = np.flatnonzero(_u(got) != _u(want))
        assert bad.size == 0, (op.name, x[bad[:3]], y[bad[:3]], got[bad[:3]], want[bad[:3]])


@settings(max_examples=60, deadline=None)
@given(hst.integers(0, 2**32 - 1), hst.sampled_from([64, 255, 511, 512, 513, 1024, 1025, 3000]),
       hst.sampled_from([np.float32, np.float64]), hst.floats(0, 1))
def test_raw_bits_after_nan_free_blocks(seed, n, dt, nan_share):
    rng = np.random.default_rng(seed)
    it = np.uint32 if dt is np.float32 else np.uint64
    x = (rng.standard_normal(n) * 100).astype(dt)
    y = (rng.standard_normal(n) * 100).astype(dt)
    raw = rng.random(n) < nan_share * (np.arange(n) >= n // 2)  # NaNs etc. only in later blocks
    x[raw] = rng.integers(0, np.iinfo(it).max, raw.sum(), dtype=it, endpoint=True).view(dt)
    y[raw[::-1]] = rng.integers(0, np.iinfo(it).max, raw.sum(), dtype=it, endpoint=True).view(dt)
    if dt is np.float32:
        for code, op in FLOAT_OPS:
            assert np.array_equal(_u(binary_float_fresh(x, y, code)), _u(quietly(op.ufunc, x, y))), op.name
    for code, op in EXACT_OPS:
        assert np.array_equal(_u(exact_loop(code)(x, y)), _u(quietly(op.ufunc, x, y))), (op.name, dt)


def _views(a: st.Tensor) -> dict[str, st.Tensor]:
    return {"plain": a[:600], "permuted": a[:600].reshape(3, 10, 20).permute(2, 0, 1),
            "flipped": a[:600].flip(0), "offset1": a[1:601], "size1": a[:600].reshape(1, 600, 1),
            "empty": a[:0].reshape(0, 5)}


@pytest.mark.parametrize("dtype", [st.float32, st.float64])
@pytest.mark.parametrize("name", ALL_NAMES)
def test_tensor_calls_match_general_path(name, dtype):
    rng = np.random.default_rng(3)
    vals = np.array([0.0, -0.0, 1, -1, np.inf, -np.inf, np.nan, 1e-45, 1.17549435e-38, 3.4e38, 2.0**23, 0.5,
                     -1.5, 7, 3, -8388608.5], np.float64)
    a = st.tensor(rng.choice(vals, 700)).to(dtype)
    b = st.tensor(rng.choice(vals, 700)).to(dtype)
    f = getattr(st, name)
    for key, va in _views(a).items():
        vb = _views(b)[key]
        got = f(va, vb)
        with native.disabled():
            want = f(va, vb)
        assert got.dtype is want.dtype and got.shape == want.shape, key
        assert got.stride() == want.stride() and got.storage_offset() == want.storage_offset(), key
        assert np.array_equal(_u(got.numpy()), _u(want.numpy())), (name, key)


def test_watch_records_match_general_path():
    x, y = st.randn(1000), st.randn(1000)
    xg = st.randn(1000, requires_grad=True)

    def run():
        with st.watch() as w:
            for name in ALL_NAMES:
                getattr(st, name)(x, y)
            st.fmod(xg, y)
        return str(w), [str(s) for s in w.steps], w.bytes_copied, w.allocated_bytes, w.peak_bytes, len(w.copies)

    fast = run()
    with native.disabled():
        general = run()
    assert fast == general


def test_four_threads_released_gil():
    rng = np.random.default_rng(9)
    n = 1 << 16

    def operand():
        a = (rng.standard_normal(n) * 100).astype(np.float32)
        raw = rng.random(n) < 0.1
        a[raw] = rng.integers(0, 2**32, raw.sum(), dtype=np.uint64).astype(np.uint32).view(np.float32)
        return st.tensor(a)

    xs = [operand() for _ in range(4)]
    ys = [operand() for _ in range(4)]
    with native.disabled():
        want = {(nm, i): _u(getattr(st, nm)(xs[i], ys[i]).numpy()).copy() for nm in ALL_NAMES for i in range(4)}
    errors = []

    def work(i):
        for _ in range(3):
            for nm in ALL_NAMES:
                if not np.array_equal(_u(getattr(st, nm)(xs[i], ys[i]).numpy()), want[(nm, i)]):
                    errors.append((nm, i))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
