"""avx2b: the AVX2 + FMA copies of compiled kernels that had only a scalar (or AVX-512) form.

layer_norm's rows (``ln_torch_avx2``, kernels/_ln_torch.h: the moments' lanes in AVX registers) and
batch_norm's evaluation (``bn_eval``'s AVX2 clone) must give the scalar fallback's bits
(``STRIDED_NATIVE_ROWS_ISA=base`` in a subprocess: the baseline copy) and PyTorch's (layer_norm),
over row lengths 0..100 and past the moments' 16-vector chunks, with NaN, infinities and large
values, with and without weight and bias, float32 and float64.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import strided as S
import strided.nn.functional as F

torch = pytest.importorskip("torch")

DTYPES = [("float32", np.float32, torch.float32), ("float64", np.float64, torch.float64)]
# (row lengths: every short one, the 8 / 4 lane boundaries, the 16-vector chunks and the cascade's levels)
LENGTHS = list(range(1, 101)) + [127, 128, 129, 255, 256, 257, 1000, 4099, 20000]


def _rows(n: int, dt: type, seed: int, special: bool = False) -> np.ndarray:
    """A (3, n) array of values of both signs and several magnitudes; with ``special``, NaN, +-inf
    and huge values in some rows."""
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((3, n)) * rng.choice([1e-3, 1.0, 1e3], (3, n))).astype(dt)
    x[2] += dt(5.0)  # (an offset mean: the Welford steps' cancellation)
    if special:
        x[0, rng.integers(0, n)] = np.nan
        x[1, rng.integers(0, n)] = np.inf if n % 2 else -np.inf
        x[2, rng.integers(0, n)] = dt(3e38) if dt is np.float32 else dt(1e308)
    return x


def _ln(x: np.ndarray, w: np.ndarray | None, b: np.ndarray | None) -> np.ndarray:
    n = x.shape[-1]
    return F.layer_norm(S.from_numpy(x), (n,), None if w is None else S.from_numpy(w),
                        None if b is None else S.from_numpy(b), 1e-5).numpy()


def _ln_torch(x: np.ndarray, w: np.ndarray | None, b: np.ndarray | None) -> np.ndarray:
    n = x.shape[-1]
    return torch.nn.functional.layer_norm(torch.from_numpy(x), (n,), None if w is None else torch.from_numpy(w),
                                          None if b is None else torch.from_numpy(b), 1e-5).numpy()


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal values, NaN where NaN (any NaN payload), and the same sign of zero."""
    return a.shape == b.shape and a.dtype == b.dtype and bool(
        np.all((a == b) & (np.signbit(a) == np.signbit(b)) | (np.isnan(a) & np.isnan(b))))


@pytest.mark.parametrize("name,dt,tdt", DTYPES)
@pytest.mark.parametrize("affine", ["wb", "w", "b", "none"])
def test_layer_norm_rows_torch_bits(name: str, dt: type, tdt: object, affine: str) -> None:
    """Every row length 1..100 and longer: strided's layer_norm is PyTorch's, bit for bit (the
    AVX2 copy on this machine where it has AVX2 + FMA)."""
    for n in LENGTHS:
        x = _rows(n, dt, n)
        rng = np.random.default_rng(n + 1)
        w = rng.uniform(0.5, 1.5, n).astype(dt) if "w" in affine else None
        b = rng.uniform(-1, 1, n).astype(dt) if "b" in affine else None
        got, want = _ln(x, w, b), _ln_torch(x, w, b)
        assert _same_bits(got, want), (name, affine, n, np.flatnonzero(got != want)[:5])


@pytest.mark.parametrize("name,dt,tdt", DTYPES)
def test_layer_norm_specials_torch_bits(name: str, dt: type, tdt: object) -> None:
    """NaN, infinities and huge values in rows: NaN rows stay NaN, the others PyTorch's bits."""
    for n in [1, 2, 7, 8, 9, 33, 100, 129, 1000]:
        x = _rows(n, dt, 7 * n, special=True)
        w = np.linspace(0.5, 1.5, n).astype(dt)
        b = np.linspace(-1, 1, n).astype(dt)
        got, want = _ln(x, w, b), _ln_torch(x, w, b)
        assert _same_bits(got, want), (name, n)


def test_layer_norm_mean_rstd_and_grad_torch() -> None:
    """The saved statistics (through the backward) agree with PyTorch's on a long row."""
    x = _rows(1000, np.float32, 3)
    w = np.linspace(0.5, 1.5, 1000).astype(np.float32)
    b = np.linspace(-1, 1, 1000).astype(np.float32)
    xs = S.from_numpy(x.copy()).requires_grad_(True)
    F.layer_norm(xs, (1000,), S.from_numpy(w), S.from_numpy(b)).sum().backward()
    xt = torch.from_numpy(x.copy()).requires_grad_(True)
    torch.nn.functional.layer_norm(xt, (1000,), torch.from_numpy(w), torch.from_numpy(b)).sum().backward()
    np.testing.assert_allclose(xs.grad.numpy(), xt.grad.numpy(), rtol=1e-4, atol=1e-5)


def _bn_params(c: int, dt: type, affine: str) -> list[np.ndarray | None]:
    """Running mean and variance, weight and bias (None where ``affine`` lacks "w" / "b") of c channels."""
    rng = np.random.default_rng(c)
    rm, rv = rng.standard_normal(c).astype(dt), rng.uniform(0.1, 2, c).astype(dt)
    w = rng.uniform(0.5, 1.5, c).astype(dt) if "w" in affine else None
    b = rng.uniform(-1, 1, c).astype(dt) if "b" in affine else None
    return [rm, rv, w, b]


def _bn(x: np.ndarray, affine: str) -> np.ndarray:
    rm, rv, w, b = (None if a is None else S.from_numpy(a) for a in _bn_params(x.shape[1], x.dtype, affine))
    return F.batch_norm(S.from_numpy(x), rm, rv, w, b, training=False).numpy()


def _bn_numpy(x: np.ndarray, affine: str) -> np.ndarray:
    """bn_eval's contract: NumPy's steps (x - rm) * (1 / sqrt(rv + eps)), * w, + b."""
    rm, rv, w, b = _bn_params(x.shape[1], x.dtype, affine)
    with np.errstate(all="ignore"):
        y = (x - rm) * (1 / np.sqrt(rv + x.dtype.type(1e-5)))
        if w is not None:
            y = y * w
        if b is not None:
            y = y + b
    return y


@pytest.mark.parametrize("name,dt,tdt", DTYPES)
@pytest.mark.parametrize("affine", ["wb", "w", "b", "none"])
def test_batch_norm_eval_numpy_steps(name: str, dt: type, tdt: object, affine: str) -> None:
    """batch_norm's evaluation (N, C) for C in 1..100 and longer: the NumPy steps' bits (specials too)."""
    for c in LENGTHS[:100] + [1000]:
        x = _rows(c, dt, c, special=c % 3 == 0)
        assert _same_bits(_bn(x, affine), _bn_numpy(x, affine)), (name, affine, c)


_SCRIPT = r"""
import pickle, sys
import numpy as np
sys.path.insert(0, {tests!r})
import test_avx2b as t
out = []
for name, dt, _ in t.DTYPES:
    for n in t.LENGTHS:
        for special in (False, True):
            x = t._rows(n, dt, n, special)
            w = np.linspace(0.5, 1.5, n).astype(dt)
            b = np.linspace(-1, 1, n).astype(dt)
            for aff in ("wb", "w", "b", "none"):
                out.append(t._ln(x, w if "w" in aff else None, b if "b" in aff else None))
                out.append(t._bn(x, aff))
sys.stdout.buffer.write(pickle.dumps(out))
"""


def _run(isa: str | None) -> list[np.ndarray]:
    import pickle

    env = dict(os.environ)
    env.pop("STRIDED_NATIVE_ROWS_ISA", None)
    if isa is not None:
        env["STRIDED_NATIVE_ROWS_ISA"] = isa
    tests = os.path.dirname(os.path.abspath(__file__))
    code = _SCRIPT.replace("{tests!r}", repr(tests))
    res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, check=True)
    return pickle.loads(res.stdout)


def test_avx2_copies_equal_baseline() -> None:
    """The default copy (AVX2 + FMA here, where the CPU has them) and the baseline copy
    (STRIDED_NATIVE_ROWS_ISA=base: the scalar fallback) give the same bits, every case."""
    fast, base = _run(None), _run("base")
    assert len(fast) == len(base) > 0
    for i, (a, b) in enumerate(zip(fast, base)):
        assert _same_bits(a, b), i


def test_native_off_layer_norm_torch_bits() -> None:
    """STRIDED_NATIVE=0 (NumPy's steps, no compiled module): layer_norm still agrees with PyTorch
    within rounding, batch_norm is the NumPy steps' bits."""
    code = ("import numpy as np, sys; sys.path.insert(0, %r); import test_avx2b as t\n"
            "x = t._rows(300, np.float32, 1)\n"
            "w = np.linspace(0.5, 1.5, 300).astype(np.float32)\n"
            "np.testing.assert_allclose(t._ln(x, w, None), t._ln_torch(x, w, None), rtol=1e-5, atol=1e-5)\n"
            "assert t._same_bits(t._bn(x, 'wb'), t._bn_numpy(x, 'wb'))\n"
            ).replace("%r", repr(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, STRIDED_NATIVE="0")
    subprocess.run([sys.executable, "-c", code], env=env, check=True)


# ---- float32 i0, i1, digamma: the eight-lane AVX2 forms (_i0_f32.h, _digamma_f32.h)

_K = pytest.importorskip("strided.kernels.native").special()
_OPS = [("i0", S.i0, torch.i0, 0), ("i1", S.special.i1, torch.special.i1, 1),
        ("digamma", S.digamma, torch.digamma, 4)]


def _special_values(n: int, seed: int) -> np.ndarray:
    """n float32 values over the forms' branches (|x| about 8 and 88, x about 10, both signs),
    random bit patterns, and specials (NaN, infinities, zeros, poles, subnormals)."""
    rng = np.random.default_rng(seed)
    pool = np.concatenate([
        rng.uniform(-100, 100, 64), rng.uniform(0.1, 0.9, 32), rng.uniform(7.9, 8.1, 16), rng.uniform(87.9, 88.1, 16),
        rng.uniform(9.9, 10.1, 16), [0.0, -0.0, np.nan, np.inf, -np.inf, 8.0, 88.0, 10.0, 1e17, 1e20, -1.0, -2.5, 1e-40],
    ]).astype(np.float32)
    bits = rng.integers(0, 2**32, 64, dtype=np.uint64).astype(np.uint32).view(np.float32)
    return rng.choice(np.concatenate([pool, bits]), n)


def _forms(fn, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """fn(x) with the lane forms on (-1: AVX2 here), then with the scalar loops (0)."""
    before = _K.lanes_form(-1)
    try:
        fast = fn(x)
        _K.lanes_form(0)
        slow = fn(x)
    finally:
        _K.lanes_form(before)
    return fast, slow


def _bits_equal(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal bit patterns, any NaN equal to any NaN (NaN payloads aside)."""
    return a.shape == b.shape and bool(np.all((a.view(np.uint32) == b.view(np.uint32)) | (np.isnan(a) & np.isnan(b))))


@pytest.mark.parametrize("name,ours,theirs,which", _OPS)
def test_special_lanes_equal_scalar_and_torch(name: str, ours, theirs, which: int) -> None:
    """Every length 0..100 (the last vector's padding), values over every branch and specials: the
    lane form == the scalar loop (bit for bit, payloads too) == PyTorch's (NaN as NaN)."""
    for n in range(101):
        x = _special_values(n, n)

        def kernel(a: np.ndarray) -> np.ndarray:
            out = np.empty_like(a)
            assert _K.torch_special(a, out, which, 0)
            return out

        fast, slow = _forms(kernel, x)
        assert np.array_equal(fast.view(np.uint32), slow.view(np.uint32)), (name, n)
        got = ours(S.from_numpy(x)).numpy()
        assert _bits_equal(got, theirs(torch.from_numpy(x)).numpy()), (name, n)
        assert _bits_equal(got, fast), (name, n)


@pytest.mark.usefixtures("torch_threads_as_assumed")
@pytest.mark.parametrize("name,ours,theirs,which", _OPS)
@pytest.mark.parametrize("perm", [False, True])
def test_special_lanes_large_layouts_torch(name: str, ours, theirs, which: int, perm: bool) -> None:
    """A (300, 257) tensor and its transpose: the lane form's results, PyTorch's bits."""
    x = _special_values(300 * 257, 99).reshape(300, 257)
    xs, xt = S.from_numpy(x), torch.from_numpy(x)
    if perm:
        xs, xt = xs.t(), xt.t()
    fast, slow = _forms(lambda a: ours(a).numpy(), xs)
    assert np.array_equal(fast.view(np.uint32), slow.view(np.uint32)), name
    assert _bits_equal(fast, theirs(xt).numpy()), name


# ---- conv1d with one input channel per group: the compiled depthwise products (_conv1d_one_channel)

from strided.nn.functional import conv as _conv_mod  # noqa: E402


def _conv1d_both(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, **kw) -> tuple[np.ndarray, np.ndarray]:
    """conv1d through the fast path (where it applies) and through the general path (_FAST_CONV off)."""
    args = (S.from_numpy(x), S.from_numpy(w), None if b is None else S.from_numpy(b))
    fast = F.conv1d(*args, **kw).numpy()
    _conv_mod._FAST_CONV = False
    try:
        slow = F.conv1d(*args, **kw).numpy()
    finally:
        _conv_mod._FAST_CONV = True
    return fast, slow


def _conv_values(shape: tuple[int, ...], dt: type, seed: int, special: bool) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape).astype(dt)
    if special:  # (zeros of both signs, subnormals, huge values, an infinity, a NaN)
        flat = x.reshape(-1)
        picks = rng.integers(0, flat.size, 12)
        flat[picks[:3]] = 0.0
        flat[picks[3:6]] = -0.0
        flat[picks[6:8]] = np.finfo(dt).tiny / 8
        flat[picks[8:10]] = np.finfo(dt).max / 2
        flat[picks[10]] = np.inf
        flat[picks[11]] = np.nan
    return x


@pytest.mark.parametrize("name,dt,tdt", DTYPES)
@pytest.mark.parametrize("special", [False, True])
def test_conv1d_one_channel_equals_general_path(name: str, dt: type, tdt: object, special: bool) -> None:
    """C == 1 (every output channel reads it) and depthwise C == O == groups, lengths past the 4096
    results the fast path needs, kernel widths, padding, dilation, a permuted input: the same bits as
    the general path (NaN where NaN), and PyTorch's values."""
    cases = [(64, 1, 100, 2, 3, 1, {}), (8, 1, 700, 3, 5, 1, {"padding": 2}), (16, 1, 300, 1, 1, 1, {}),
             (4, 4, 1200, 4, 3, 4, {"dilation": 2}), (3, 6, 900, 6, 4, 6, {"padding": 1, "dilation": 3}),
             (40, 1, 130, 5, 7, 1, {"padding": 3})]
    for i, (n, c, length, o, kw_, groups, kw) in enumerate(cases):
        x = _conv_values((n, c, length), dt, i, special)
        w = _conv_values((o, 1, kw_), dt, 100 + i, False)
        b = np.random.default_rng(i).uniform(0.1, 0.9, o).astype(dt)
        no_nan = np.where(np.isnan(x), dt(-0.0), x)  # (specials the fast path takes: a NaN result declines)
        for xx in (x, np.ascontiguousarray(x.transpose(2, 1, 0)).transpose(2, 1, 0), no_nan):
            fast, slow = _conv1d_both(xx, w, b, groups=groups, **kw)
            assert _same_bits(fast, slow), (name, i, special)
            want = torch.nn.functional.conv1d(torch.from_numpy(xx), torch.from_numpy(w), torch.from_numpy(b),
                                              groups=groups, **kw).numpy()
            with np.errstate(invalid="ignore"):
                np.testing.assert_allclose(fast, want, rtol=2e-5 if dt is np.float32 else 1e-12, atol=1e-5)


def test_conv1d_one_channel_declines() -> None:
    """No bias, a zero in the bias, a stride, small outputs: the general path's bits (the zero sums'
    signs included: products of zeros)."""
    x = np.zeros((64, 1, 100), np.float32)
    x[:, :, ::2] = -0.0
    w = np.array([[[1.0, -1.0, 0.5]], [[-2.0, 0.0, 1.0]]], np.float32)
    for b, kw in ((None, {}), (np.array([0.0, 1.0], np.float32), {}), (np.array([-0.0, 2.0], np.float32), {}),
                  (np.array([1.0, 2.0], np.float32), {"stride": 2})):
        fast, slow = _conv1d_both(x, w, b, **kw)
        assert _same_bits(fast, slow)
        assert np.array_equal(np.signbit(fast), np.signbit(slow))


def test_conv1d_one_channel_grad_torch() -> None:
    """The fast forward inside a recorded graph: the gradients PyTorch gives."""
    rng = np.random.default_rng(5)
    x, w, b = (rng.standard_normal(s).astype(np.float32) for s in ((16, 1, 400), (3, 1, 5), (3,)))
    xs, ws, bs = (S.from_numpy(a.copy()).requires_grad_(True) for a in (x, w, b))
    F.conv1d(xs, ws, bs, padding=2).sum().backward()
    xt, wt, bt = (torch.from_numpy(a.copy()).requires_grad_(True) for a in (x, w, b))
    torch.nn.functional.conv1d(xt, wt, bt, padding=2).sum().backward()
    for got, want in ((xs, xt), (ws, wt), (bs, bt)):
        np.testing.assert_allclose(got.grad.numpy(), want.grad.numpy(), rtol=1e-4, atol=1e-3)
