"""The small-call paths of small25 (NumPy's own ufunc loops called from C: F.softplus, polar),
compared with the Python paths they replace (bytes), with PyTorch's bytes, and with the general
paths (``strided.kernels.native.disabled()``) over the layouts and dtypes each path can meet."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided
import strided.nn.functional as F
from strided.kernels import native
from strided.kernels.fpstate import quietly
from strided.ops.elementwise.complex_ops import _polar_run

_K = native._compiled("_specialkernel")
_CHAIN = _K is not None and hasattr(_K, "logit_np")
needs_chain = pytest.mark.skipif(not _CHAIN, reason="the kernel was built without NumPy's headers")


def _specials(npdt: type) -> np.ndarray:
    """Values at every edge softplus and polar meet: signed zeros, NaNs, infinities, subnormals,
    the threshold 20 and its neighbours, exp's overflow and underflow points, huge angles."""
    f = np.finfo(npdt)
    t = npdt(20)
    return np.array([0.0, -0.0, np.nan, -np.nan, np.inf, -np.inf, f.tiny, -f.tiny, f.tiny / 4, -f.tiny / 3,
                     f.max, -f.max, t, np.nextafter(t, npdt(30)), np.nextafter(t, npdt(0)), 88.7, 89.0, -104.0,
                     709.8, 710.0, -745.0, 1e-8, 1e30, -1e30, 3.14159, 1e5, 1e20, -17.5], dtype=npdt)


def _values(n: int, npdt: type, seed: int) -> np.ndarray:
    """n values: a quarter each of random bit patterns, scaled normals, (-30, 30) and _specials."""
    rng = np.random.default_rng(seed)
    bits = np.uint32 if npdt is np.float32 else np.uint64
    kind = seed % 4
    if kind == 0:
        return rng.integers(0, np.iinfo(bits).max, n, dtype=bits, endpoint=True).view(npdt)
    if kind == 1:
        return (rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4, n)).astype(npdt)
    if kind == 2:
        return rng.uniform(-30, 30, n).astype(npdt)
    return rng.choice(_specials(npdt), n)


def _same(got: np.ndarray, want: np.ndarray) -> bool:
    """The same bytes, NaNs at the same places (a NaN's sign and payload are the loops' choice)."""
    nan = np.isnan(want)
    return bool((np.isnan(got) == nan).all() and got[~nan].tobytes() == want[~nan].tobytes())


@needs_chain
@pytest.mark.parametrize("npdt", [np.float32, np.float64])
def test_polar_np_is_the_python_paths_bytes(npdt: type) -> None:
    """polar_np (NumPy's cos and sin loops from C, then polar_parts) gives _polar_run's bytes,
    and declines exactly where it does (an r and its cosine or sine both NaN)."""
    rng = np.random.default_rng(26)
    python = _polar_run(_K)
    cplx = np.complex64 if npdt is np.float32 else np.complex128
    for seed in range(240):
        n = int(rng.integers(1, 2049))
        t = _values(n, npdt, seed)
        r = rng.choice(np.concatenate([_values(n, npdt, seed + 1), _specials(npdt)]), n)
        o1, o2 = np.empty(n, cplx), np.empty(n, cplx)
        a1, a2 = python(r, t, o1), _K.polar_np(r, t, o2)
        assert a1 == a2
        if a1:
            assert o1.tobytes() == o2.tobytes()


@needs_chain
def test_chain_refusals() -> None:
    """False (nothing written) on misaligned, overlapping, mixed or too long runs."""
    x = np.arange(12, dtype=np.float32)
    raw = np.zeros(49, np.uint8)
    odd = raw[1:].view(np.float32)
    out = np.full(12, 7.0, np.float32)
    assert _K.logit_np(odd, out) is False and _K.logit_np(x, odd) is False
    assert _K.logit_np(x, x) is False
    assert _K.logit_np(x, np.empty(12, np.float64)) is False
    assert _K.logit_np(x, np.empty(11, np.float32)) is False
    assert (out == 7.0).all()
    o = np.zeros(12, np.complex64)
    assert _K.polar_np(x, odd, o) is False and _K.polar_np(x, x.astype(np.float64), o) is False
    assert _K.polar_np(x, x, np.zeros(12, np.complex128)) is False
    assert _K.polar_np(x, x, o[:6].view(np.float32)[:12].view(np.complex64)) is False  # (too short)
    big = np.ones(2049, np.float32)
    assert _K.polar_np(big, big, np.zeros(2049, np.complex64)) is False
    assert (o == 0).all()


@pytest.mark.parametrize("npdt", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(3, 4), (16, 16), (1,), (2, 3, 5), (50, 41)])
def test_softplus_front_matches_torch(npdt: type, shape: tuple[int, ...]) -> None:
    """F.softplus of row-major, transposed and offset tensors: PyTorch's strides and bytes (the
    SLEEF kernel's SOFTPLUS: SLEEF's exp and log1p where PyTorch's loop is vectorized, the C
    library's in its tail; NaN words included), the general path's where the front declines."""
    n = int(np.prod(shape))
    for seed in range(4):
        a = _values(n, npdt, seed).reshape(shape)
        want = torch.nn.functional.softplus(torch.tensor(a))
        for x, tw in ((strided.tensor(a), want), (strided.tensor(a).t() if a.ndim == 2 else strided.tensor(a), want.t() if a.ndim == 2 else want),
                      (strided.tensor(np.concatenate([a.reshape(-1), a.reshape(-1)]))[n:].reshape(shape), want)):
            got = F.softplus(x)
            assert got.stride() == tw.stride()
            assert got.numpy().tobytes() == tw.numpy().tobytes()


@pytest.mark.parametrize("npdt", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(3, 4), (16, 16), (1,), (2, 3, 5), (50, 41)])
def test_polar_front_matches_torch(npdt: type, shape: tuple[int, ...]) -> None:
    """polar of row-major (and transposed) tensors: PyTorch's values and strides (NaN places;
    polar's NaN payloads are NumPy's multiply's, as before), and the general path's bytes."""
    n = int(np.prod(shape))
    for seed in range(4):
        r = np.abs(_values(n, npdt, seed)).reshape(shape)
        t = _values(n, npdt, seed + 1).reshape(shape)
        with np.errstate(all="ignore"):
            finite = np.isfinite(t) & (np.abs(t) < 1e4)  # (cos/sin of huge angles: NumPy's and SLEEF's differ)
        r, t = np.where(finite, r, 1).astype(npdt), np.where(finite, t, 0.5).astype(npdt)
        want = torch.polar(torch.tensor(r), torch.tensor(t))
        pairs = [(strided.tensor(r), strided.tensor(t), want)]
        if r.ndim == 2:
            pairs.append((strided.tensor(r).t(), strided.tensor(t).t(), want.t()))
        for sr, st_, tw in pairs:
            got = strided.polar(sr, st_)
            assert got.stride() == tw.stride()
            g, w = got.numpy(), tw.numpy()
            assert np.allclose(g, w, rtol=4e-7 if npdt is np.float32 else 1e-15, atol=0, equal_nan=True)
            with native.disabled():
                assert strided.polar(sr, st_).numpy().tobytes() == g.tobytes()


def test_polar_nan_pairs_go_to_the_forward() -> None:
    """An r and its angle's cosine both NaN: the front declines, the forward's NumPy calls decide
    which NaN (the same result as with the kernels off)."""
    r = strided.tensor([np.nan, 1.0, -np.nan], dtype=strided.float32)
    t = strided.tensor([np.nan, np.inf, 0.0], dtype=strided.float32)
    got = strided.polar(r, t).numpy()
    with native.disabled():
        assert strided.polar(r, t).numpy().tobytes() == got.tobytes()


_FORMS = _K is not None and hasattr(_K, "erf_float32_form")


def _erfinv_forms(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """erfinv_float32 of float32 ``x`` in its AVX-512 form (where the CPU has it) and its blocked one."""
    fast, slow = np.empty_like(x), np.empty_like(x)
    before = _K.erf_float32_form(-1)
    try:
        _K.erfinv_float32(x, fast)
        _K.erf_float32_form(0)
        _K.erfinv_float32(x, slow)
    finally:
        _K.erf_float32_form(before)
    return fast, slow


@pytest.mark.skipif(not _FORMS, reason="the compiled special functions are not built")
def test_erfinv_float32_forms_give_the_same_bits() -> None:
    """erfinv_float32's AVX-512 form (erfinv8_fused, certified, erfinv8 and the blocked lanes for
    the rest) gives the blocked form's bits (all 2^32 patterns were compared once): random bit
    patterns, the central branch densely, its edge, values whose erfinv lies next to a float32
    rounding boundary (the certification's cases), every short length, in place."""
    rng = np.random.default_rng(27)
    patterns = rng.integers(0, 2**32, 1 << 18, dtype=np.uint64).astype(np.uint32).view(np.float32)
    dense = rng.uniform(-1, 1, 1 << 20).astype(np.float32)
    edge = np.array([0.0, -0.0, 1e-45, -1e-45, 1.1754944e-38, 0.9986, -0.9986, 0.99863, 0.99864, 1.0, -1.0,
                     np.nextafter(np.float32(1), np.float32(0)), np.nan, np.inf, -np.inf], np.float32)
    x64 = np.empty(dense.size)
    _K.erfinv(dense.astype(np.float64), x64)
    up = x64.astype(np.float32).astype(np.float64)
    near = dense[np.abs(x64 - up) > 0.45 * np.abs(np.spacing(up.astype(np.float32)).astype(np.float64))]
    assert near.size > 50
    for x in (patterns, dense, edge, near):
        fast, slow = _erfinv_forms(x)
        assert fast.tobytes() == slow.tobytes()
    for n in range(1, 70):
        x = rng.choice(np.concatenate([dense[:200], edge]), n).astype(np.float32)
        fast, slow = _erfinv_forms(x)
        assert fast.tobytes() == slow.tobytes(), n
        y = x.copy()
        _K.erfinv_float32(y, y)  # (in place)
        assert y.tobytes() == fast.tobytes()
        f64 = np.empty_like(x)
        _K.erfinv(x.astype(np.float64), f64)  # (a float64 source: the blocked form, as before)
        assert f64.tobytes() == slow.tobytes() or np.isnan(x).any()


@pytest.mark.skipif(_K is None or not hasattr(_K, "rows_logf_mismatches"), reason="no AVX-512 build")
def test_sixteen_lane_row_log_is_the_one_at_a_time_log() -> None:
    """log_softmax's float32 row logs sixteen at a time (sleef_logf16) give ROWS_LOGF's bits (all
    2^32 patterns were compared once): random patterns over every exponent, and the edges."""
    rng = np.random.default_rng(28)
    x = rng.integers(0, 2**32, 1 << 20, dtype=np.uint64).astype(np.uint32).view(np.float32)
    edges = np.array([0.0, -0.0, 1e-45, 1.1754942e-38, 1.1754944e-38, 3.4028235e38, np.inf, -np.inf, np.nan, 1.0,
                      0.75, 1.5, np.nextafter(np.float32(1.5), np.float32(2)), 2.5521177e38, 2.5521178e38, -1.0],
                     np.float32)
    got = _K.rows_logf_mismatches(np.concatenate([x, edges]))
    if got == -1:
        pytest.skip("ATen's capability here is not AVX512: the one-at-a-time form runs")
    assert got == 0


@pytest.mark.skipif(_K is None, reason="without the compiled rows log_softmax is NumPy's formula (a few ulps off)")
@pytest.mark.parametrize("kind", ["normal", "bits", "specials"])
def test_log_softmax_rows_match_torch_bits(kind: str) -> None:
    """log_softmax along the last dim of float32 rows (1..69 long, 1..39 of them: the logs in
    groups of sixteen rows and a short last group) gives PyTorch's bytes (NaN places equal)."""
    rng = np.random.default_rng(29)
    pool = np.array([0, -0.0, np.inf, -np.inf, np.nan, 1e-45, 88, -88, 1e30, -1e30, 3], np.float32)
    for _ in range(120):
        rows, n = int(rng.integers(1, 40)), int(rng.integers(1, 70))
        if kind == "normal":
            a = (rng.standard_normal((rows, n)) * 10).astype(np.float32)
        elif kind == "bits":
            a = rng.integers(0, 2**32, (rows, n), dtype=np.uint64).astype(np.uint32).view(np.float32)
        else:
            a = rng.choice(pool, (rows, n))
        want = torch.log_softmax(torch.from_numpy(a), dim=-1).numpy()
        assert _same(strided.log_softmax(strided.tensor(a), dim=-1).numpy(), want)
        assert _same(strided.tensor(a).log_softmax(-1).numpy(), want)


def test_equal_bits_check_small_runs_agree_with_the_numpy_test() -> None:
    """equal_bits_may_differ's Python test of a small run (<= 64 elements) answers as its NumPy
    test does: any NaN, or two zeros of any signs, say yes; infinities of both signs, one zero,
    huge values (a float sum overflowing) say no; and msort/sort then give PyTorch's bytes."""
    from strided.ops._support import torch_sort_order as order

    def numpy_answer(s: np.ndarray) -> bool:
        with np.errstate(invalid="ignore"):
            if np.minimum.reduce(np.abs(s), axis=None) > 0:
                return False
        return bool(np.count_nonzero(s == 0) > 1 or np.isnan(s).any())

    rng = np.random.default_rng(30)
    pool = [0.0, -0.0, np.nan, -np.nan, np.inf, -np.inf, 1.0, -2.5, 1e38, 3e38, 1e-45]
    for npdt in (np.float32, np.float64):
        for _ in range(400):
            n = int(rng.integers(1, 70))
            with np.errstate(over="ignore"):
                a = np.where(rng.random(n) < 0.2, rng.choice(pool, n), rng.standard_normal(n)).astype(npdt)
            s = np.sort(a)
            assert order.equal_bits_may_differ(s) == numpy_answer(s), a
            if n <= 12:
                x = a.reshape(n, 1)
                want = torch.msort(torch.from_numpy(x)).numpy()
                assert _same(strided.msort(strided.tensor(x)).numpy(), want)


@needs_chain
@pytest.mark.parametrize("npdt", [np.float32, np.float64])
def test_logit_np_is_the_python_paths_bytes(npdt: type) -> None:
    """logit_np (logit_ratio, then NumPy's log loop in place, from C) gives _logit_fresh's bytes
    (all 2^32 float32 patterns were compared once) or, where some quotient is NaN or negative,
    answers False for the Python path (which gives them PyTorch's NaN bits): random patterns,
    (-0.5, 1.5), specials, every length to 70 and beyond, storage offsets; and the op (front) its
    general path's."""
    from strided.ops.elementwise.unary_more import _logit_fresh

    rng = np.random.default_rng(31)
    for seed in range(200):
        n = int(rng.integers(1, 70)) if seed % 2 else int(rng.integers(70, 3000))
        x = _values(n, npdt, seed) if seed % 3 else rng.uniform(-0.5, 1.5, n).astype(npdt)
        off = int(rng.integers(0, 3))
        buf = np.empty(n + off, npdt)
        buf[off:] = x
        x = buf[off:]
        out = np.empty(n, npdt)
        with np.errstate(all="ignore"):
            special = bool(((x / (1 - x) >= 0) == False).any())  # noqa: E712 - NaN quotients too
        assert _K.logit_np(x, out) is (not special)
        if not special:
            assert out.tobytes() == quietly(_logit_fresh, x).tobytes()
        t = strided.tensor(x)
        got = strided.logit(t).numpy()
        with native.disabled():
            assert strided.logit(t).numpy().tobytes() == got.tobytes()


@pytest.mark.parametrize("npdt", [np.float32, np.float64])
def test_sgn_of_floats_is_sign_and_torch(npdt: type) -> None:
    """sgn of a real float tensor takes sign's compiled pass in its front (unary_exact code 0,
    _sign_fresh's first step): PyTorch's bytes (zeros +0.0, NaN 0), every layout, kernels on and off."""
    rng = np.random.default_rng(32)
    for shape in ((3, 4), (16, 16), (7,), (2, 3, 5)):
        a = np.concatenate([_specials(npdt), _values(300, npdt, 1), _values(300, npdt, 2)])
        a = np.resize(a, int(np.prod(shape))).reshape(shape)
        rng.shuffle(a.reshape(-1))
        want = torch.sgn(torch.tensor(a)).numpy()
        for x in (strided.tensor(a), strided.tensor(a.T.copy()).T if a.ndim == 2 else strided.tensor(a)):
            got = strided.sgn(x).numpy()
            assert got.tobytes() == want.tobytes()
            assert x.sgn().numpy().tobytes() == want.tobytes()
            with native.disabled():
                assert strided.sgn(x).numpy().tobytes() == want.tobytes()
