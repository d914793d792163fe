"""atan2, logaddexp2, angle, logaddexp and ldexp of float32 on an AVX2 CPU (session 39): the AVX2+FMA
forms of the compiled loops (``_sleefkernel``'s run2 / angle_run form 2: sleef_atan2f8, logaddexp2_block8)
give the plain C form's bits lane for lane, every tail length; the ops give PyTorch's bits on this
machine (random words, special values, lengths 0..70 over the vector tails, strides, permuted, out=,
in place, autograd); logaddexp's compiled entry under an AVX2 PyTorch writes its vector lanes'
default NaNs (the step argument of logaddexp_float32); ldexp's fast path without PyTorch's pow
kernel gives the general path's bits, with the compiled kernels off too."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from strided.kernels import native
from strided.kernels.torch_loops import torch_vector_bytes

K = native.sleef()
SK = native.special()
AVX2_FORM = K is not None and K.run2(np.zeros(1, np.float32), np.zeros(1, np.float32), np.empty(1, np.float32), 1, 2)
needs_avx2 = pytest.mark.skipif(not AVX2_FORM, reason="the AVX2+FMA form is not run on this CPU")

_SPECIAL = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -2.5, np.inf, -np.inf, np.nan, -np.nan, 1e-40, -1e-40, 2.9e-39,
                     -2.9e-39, 1e-45, 3e38, -3e38, 88.7, -103.0, 128.0, -150.5], np.float32)
_NAN_WORDS = np.array([0x7FC00000, 0xFFC00000, 0x7F800001, 0xFF812345, 0x7FA00000], np.uint32).view(np.float32)


def _words(rng: np.random.Generator, n: int) -> np.ndarray:
    """n float32s: random bit patterns, a fifth of them special values or NaNs of several words."""
    w = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)
    pick = rng.random(n) < 0.2
    w[pick] = rng.choice(np.concatenate([_SPECIAL, _NAN_WORDS]), int(pick.sum()))
    return w


def _pairs(seed: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Every pair of the special values, then n random-word pairs and n ordinary pairs."""
    rng = np.random.default_rng(seed)
    sp = np.concatenate([_SPECIAL, _NAN_WORDS])
    y = np.concatenate([np.repeat(sp, len(sp)), _words(rng, n), (rng.standard_normal(n) * 4).astype(np.float32)])
    x = np.concatenate([np.tile(sp, len(sp)), _words(rng, n), (rng.standard_normal(n) * 4).astype(np.float32)])
    return y, x


def _bits(a) -> np.ndarray:
    return np.ascontiguousarray(a.numpy() if hasattr(a, "numpy") else a).view(np.uint32)


def _same(got, want) -> None:
    g, w = _bits(got), _bits(want)
    bad = np.nonzero(g.reshape(-1) != w.reshape(-1))[0]
    assert not bad.size, f"{bad.size} words differ, first at {bad[:5]}: {g.reshape(-1)[bad[:3]]} vs {w.reshape(-1)[bad[:3]]}"


def _as_torch(name: str, got, want) -> None:
    """atan2, logaddexp2, angle: PyTorch's bits. logaddexp: PyTorch's NaN words and infinities, the
    numbers within 1e-6 (# Note: strided's float32 logaddexp is NumPy's loop, the C library's expf
    and log1pf, where PyTorch's vector lanes take SLEEF's: ulps apart in a few % of elements)."""
    if name != "logaddexp":
        _same(got, want)
        return
    g, w = _bits(got).reshape(-1), _bits(want).reshape(-1)
    nan = (w & 0x7FFFFFFF) > 0x7F800000
    _same(g[nan], w[nan])
    gv, wv = g[~nan].view(np.float32), w[~nan].view(np.float32)
    assert not np.isnan(gv).any()
    np.testing.assert_allclose(gv, wv, rtol=1e-6, atol=2e-38)  # (subnormal results: absolute)


# ---------------------------------------------------------------- the AVX2 forms against the plain C form


@needs_avx2
@pytest.mark.parametrize("op", [0, 1, 3])  # (atan2; logaddexp2 with SLEEF's NaN words, then AVX2 ATen's)
def test_avx2_form_is_the_plain_forms_bits(op: int) -> None:
    y, x = _pairs(1, 1 << 15)
    plain, wide = np.empty_like(y), np.full_like(y, 7.0)
    assert K.run2(y, x, plain, 1, 0, 0, op)
    assert K.run2(y, x, wide, 1, 2, 0, op)
    _same(wide, plain)


@needs_avx2
@pytest.mark.parametrize("op", [0, 1, 3])
def test_avx2_form_every_tail_length_writes_only_its_elements(op: int) -> None:
    """Lengths 0..70 (the four-vector step, one vector, the masked tail) at an odd offset: the
    same bits as the plain form, and nothing written past the end."""
    y, x = _pairs(2, 200)
    for n in range(71):
        plain = np.empty(n, np.float32)
        buf = np.full(n + 9, 5.0, np.float32)
        assert K.run2(y[3:3 + n], x[3:3 + n], plain, 1, 0, 0, op)
        assert K.run2(y[3:3 + n], x[3:3 + n], buf[1:1 + n], 1, 2, 0, op)
        _same(buf[1:1 + n], plain)
        assert (buf[:1] == 5.0).all() and (buf[1 + n:] == 5.0).all()


@needs_avx2
def test_avx2_form_in_place_and_rowed() -> None:
    """out may be an operand; with a step, the row's last n % step elements are the C library's."""
    y, x = _pairs(3, 500)
    want = np.empty_like(y)
    assert K.run2(y, x, want, 1, 0, 0, 0)
    yy = y.copy()
    assert K.run2(yy, x, yy, 1, 2, 0, 0)
    _same(yy, want)
    n = 100
    rowed = np.empty(n, np.float32)
    assert K.run2(y[:n], x[:n], rowed, 1, 2, 16, 0)
    _same(rowed[:96], want[:96])
    _same(rowed[96:], _libm_atan2f(y[96:n], x[96:n]))


def _libm_atan2f(y: np.ndarray, x: np.ndarray) -> np.ndarray:
    out = np.empty_like(y)
    assert K.run2(y, x, out, 0, 0)  # (vec 0: the C library's atan2f at every element)
    return out


@needs_avx2
def test_angle_avx2_form_is_the_plain_forms_bits() -> None:
    y, x = _pairs(4, 3000)
    z = np.empty(len(y), np.complex64)
    z.real, z.imag = x, y
    plain, wide = np.empty(len(y), np.float32), np.empty(len(y), np.float32)
    for st_ in (0, 8, 16):
        assert K.angle_run(z, plain, 1, 0, st_)
        assert K.angle_run(z, wide, 1, 2, st_)
        _same(wide, plain)


# ---------------------------------------------------------------- the ops against PyTorch


@pytest.mark.parametrize("name", ["atan2", "logaddexp2", "logaddexp"])
def test_random_words_every_length_as_torch(name: str) -> None:
    rng = np.random.default_rng(5)
    f, g = getattr(st, name), getattr(torch, name)
    for n in list(range(71)) + [255, 1000, 4097]:
        y, x = _words(rng, n), _words(rng, n)
        want = g(torch.from_numpy(y), torch.from_numpy(x))
        _as_torch(name, f(st.tensor(y), st.tensor(x)), want)


@pytest.mark.parametrize("name", ["atan2", "logaddexp2", "logaddexp"])
def test_special_pairs_as_torch(name: str) -> None:
    y, x = _pairs(6, 0)
    for n in (len(y), 16, 33):  # (the whole grid in vector lanes; short runs mostly scalar)
        want = getattr(torch, name)(torch.from_numpy(y[:n]), torch.from_numpy(x[:n]))
        _as_torch(name, getattr(st, name)(st.tensor(y[:n]), st.tensor(x[:n])), want)


@pytest.mark.parametrize("name", ["atan2", "logaddexp2", "logaddexp"])
def test_layouts_out_and_in_place_as_torch(name: str) -> None:
    rng = np.random.default_rng(7)
    y, x = _words(rng, 40 * 24).reshape(40, 24), _words(rng, 40 * 24).reshape(40, 24)
    f, g = getattr(st, name), getattr(torch, name)
    Y, X, TY, TX = st.tensor(y), st.tensor(x), torch.from_numpy(y), torch.from_numpy(x)
    for sy, sx, ty, tx in [(Y.T, X.T, TY.T, TX.T), (Y[:, ::3], X[:, ::3], TY[:, ::3], TX[:, ::3]),
                           (Y[1:], X[1:], TY[1:], TX[1:]), (Y, X[:1], TY, TX[:1]), (Y.T, X.T.contiguous(), TY.T,
                                                                                   TX.T.contiguous())]:
        got, want = f(sy, sx), g(ty, tx)
        assert got.stride() == want.stride()
        _as_torch(name, got, want)
    o, to = st.empty(40, 24).T, torch.empty(40, 24).T
    f(Y.T, X.T, out=o)
    g(TY.T, TX.T, out=to)
    _as_torch(name, o, to)
    if name != "logaddexp2" and hasattr(Y, name + "_"):
        a, ta = Y.clone(), TY.clone()
        getattr(a, name + "_")(X)
        getattr(ta, name + "_")(TX)
        _as_torch(name, a, ta)


@pytest.mark.usefixtures("torch_threads_as_assumed")
@pytest.mark.parametrize("name", ["atan2", "logaddexp2", "logaddexp"])
def test_past_the_parallel_grain_as_torch(name: str) -> None:
    rng = np.random.default_rng(8)
    y, x = _words(rng, 70001), _words(rng, 70001)
    want = getattr(torch, name)(torch.from_numpy(y), torch.from_numpy(x))
    _as_torch(name, getattr(st, name)(st.tensor(y), st.tensor(x)), want)
    y2, x2 = y[:70000].reshape(280, 250), x[:70000].reshape(280, 250)
    want = getattr(torch, name)(torch.from_numpy(y2).T, torch.from_numpy(x2).T)
    _as_torch(name, getattr(st, name)(st.tensor(y2).T, st.tensor(x2).T), want)


def test_angle_as_torch() -> None:
    rng = np.random.default_rng(9)
    for n in list(range(71)) + [1000]:
        z = np.empty(n, np.complex64)
        z.real, z.imag = _words(rng, n), _words(rng, n)
        _same(st.angle(st.tensor(z)), torch.angle(torch.from_numpy(z)))
    z = np.empty((30, 20), np.complex64)
    z.real, z.imag = _words(rng, 600).reshape(30, 20), _words(rng, 600).reshape(30, 20)
    _same(st.angle(st.tensor(z).T), torch.angle(torch.from_numpy(z).T))
    _same(st.angle(st.tensor(z)[:, ::2]), torch.angle(torch.from_numpy(z)[:, ::2]))


def test_atan2_and_logaddexp2_gradients_as_torch() -> None:
    rng = np.random.default_rng(10)
    y, x = (rng.standard_normal(37) * 3).astype(np.float32), (rng.standard_normal(37) * 3).astype(np.float32)
    for name in ("atan2", "logaddexp2", "logaddexp"):
        a, b = st.tensor(y, requires_grad=True), st.tensor(x, requires_grad=True)
        ta, tb = torch.tensor(y, requires_grad=True), torch.tensor(x, requires_grad=True)
        getattr(st, name)(a, b).sum().backward()
        getattr(torch, name)(ta, tb).sum().backward()
        np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy(), rtol=2e-6, atol=1e-7)
        np.testing.assert_allclose(b.grad.numpy(), tb.grad.numpy(), rtol=2e-6, atol=1e-7)


@settings(max_examples=40, deadline=None)
@given(n=hs.integers(0, 80), seed=hs.integers(0, 2**32 - 1), name=hs.sampled_from(["atan2", "logaddexp2", "logaddexp"]),
       perm=hs.booleans())
def test_hypothesis_words_as_torch(n: int, seed: int, name: str, perm: bool) -> None:
    rng = np.random.default_rng(seed)
    y, x = _words(rng, 2 * n).reshape(2, n), _words(rng, 2 * n).reshape(2, n)
    sy, sx, ty, tx = st.tensor(y), st.tensor(x), torch.from_numpy(y), torch.from_numpy(x)
    if perm:
        sy, sx, ty, tx = sy.T, sx.T, ty.T, tx.T
    _as_torch(name, getattr(st, name)(sy, sx), getattr(torch, name)(ty, tx))


# ---------------------------------------------------------------- logaddexp's compiled entry under an AVX2 PyTorch


@pytest.mark.skipif(SK is None, reason="the compiled kernels are not built")
def test_logaddexp_float32_step_writes_the_default_nan_in_vector_lanes() -> None:
    rng = np.random.default_rng(12)
    for n in (0, 5, 16, 31, 33, 70):
        x, y = _words(rng, n), _words(rng, n)
        plain, stepped = np.empty(n, np.float32), np.empty(n, np.float32)
        if not SK.logaddexp_float32(x, y, plain, False):
            pytest.skip("the loop is not used on this CPU")
        assert SK.logaddexp_float32(x, y, stepped, False, -1, 16)
        body = n - n % 16
        w = plain.view(np.uint32).copy()
        nan = (w & 0x7FFFFFFF) > 0x7F800000
        w[:body][nan[:body]] = 0x7FC00000
        _same(stepped, w.view(np.float32))
    with pytest.raises(ValueError):
        SK.logaddexp_float32(x, y, stepped, False, -1, -1)
    with pytest.raises(TypeError):
        SK.logaddexp_float64(x.astype(np.float64), y.astype(np.float64), np.empty(n), False, -1, 16)


@pytest.mark.skipif(torch_vector_bytes() != 32, reason="an AVX2 PyTorch's vector lanes")
def test_logaddexp_small_nan_words_as_avx2_torch() -> None:
    """The front's compiled entry (kept under AVX2 now): default NaNs in the vector lanes, the
    sign-set words in the scalar tail, for every length around the 16-element step."""
    for n in range(1, 50):
        x = np.full(n, np.nan, np.float32)
        x.view(np.uint32)[::2] = 0x7FC12345
        y = np.linspace(-3, 3, n).astype(np.float32)
        _as_torch("logaddexp", st.logaddexp(st.tensor(x), st.tensor(y)),
                  torch.logaddexp(torch.from_numpy(x), torch.from_numpy(y)))


# ---------------------------------------------------------------- ldexp


def _ldexp_operands(seed: int, n: int, dt) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(n) * rng.choice([1.0, 1e30, 1e-30], n)).astype(dt)
    sp = np.array([0, -0.0, 0.5, 127, 128, -126, -149, -150, 1000, -1000, np.inf, -np.inf, np.nan, 2.5, -2.5])
    e = np.where(rng.random(n) < 0.3, rng.choice(sp, n), rng.standard_normal(n) * 50).astype(dt)
    return x, e


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_ldexp_fast_path_is_the_general_paths_bits(dt) -> None:
    """The flat-run fast path (no out=) against the general path (out=, which never takes it)."""
    for n in (0, 1, 12, 70, 256, 5000):
        x, e = _ldexp_operands(n, n, dt)
        X, E = st.tensor(x), st.tensor(e)
        fast = st.ldexp(X, E)
        general = st.empty(n, dtype=fast.dtype)
        st.ldexp(X, E, out=general)
        _same(fast.view(st.int32) if dt == np.float32 else fast.view(st.int64),
              general.view(st.int32) if dt == np.float32 else general.view(st.int64))
        assert fast.stride() == general.stride()


def test_ldexp_integer_valued_exponents_as_torch() -> None:
    """Where 2 ** e is exact (integer e in range, +-inf), every pow gives one answer: PyTorch's. (A NaN
    exponent's word is pow's: SLEEF's all-ones in PyTorch's AVX2 vector lanes, ported separately.)"""
    rng = np.random.default_rng(13)
    x = (rng.standard_normal((6, 7)) * 10).astype(np.float32)
    e = rng.integers(-140, 130, (6, 7)).astype(np.float32)
    e[0, :2] = [np.inf, -np.inf]
    want = torch.ldexp(torch.from_numpy(x), torch.from_numpy(e))
    _same(st.ldexp(st.tensor(x), st.tensor(e)), want)
    _same(st.ldexp(st.tensor(x).T, st.tensor(e).T), torch.ldexp(torch.from_numpy(x).T, torch.from_numpy(e).T))


def test_ldexp_without_the_kernels_in_a_subprocess() -> None:
    """STRIDED_NATIVE=0: the fast path's NumPy power and the general path agree, bit for bit."""
    code = (
        "import numpy as np, strided as st\n"
        "rng = np.random.default_rng(3)\n"
        "x = rng.standard_normal(300).astype(np.float32); e = (rng.standard_normal(300) * 40).astype(np.float32)\n"
        "e[:4] = [np.inf, -np.inf, np.nan, 200]\n"
        "f = st.ldexp(st.tensor(x), st.tensor(e)); g = st.empty(300); st.ldexp(st.tensor(x), st.tensor(e), out=g)\n"
        "assert f.numpy().tobytes() == g.numpy().tobytes()\n"
        "a = st.atan2(st.tensor(x), st.tensor(e)).numpy(); assert np.isfinite(a[4:]).all()\n"
        "print('ok')\n"
    )
    env = dict(os.environ, STRIDED_NATIVE="0")
    res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0 and res.stdout.strip() == "ok", res.stderr[-2000:]
