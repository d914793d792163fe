"""float32 / float64 ``pow`` bit for bit against PyTorch under its AVX2 capability too (SLEEF's
``Sleef_powf8_u10`` / ``Sleef_powd4_u10``: ``_sleef_pow8.h``), and ``x ** 0.5`` as PyTorch's sqrt kernel.

Under ATen's AVX2 capability PyTorch's pow loop takes SLEEF's 8-lane float / 4-lane double pow in steps
of 16 / 8 elements; strided ran NumPy's power there (72-99% of elements equal, NaNs' words never).
These tests hold every form of the op to torch's bits on the CPU they run on (AVX2 or AVX-512):
tensor ** tensor, tensor ** number, number ** tensor, broadcast, strided and transposed operands,
``pow_``, ``out=``, ``float_power`` and gradients, random values (hypothesis) and special ones.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided
from strided.kernels import native, torch_pow, vml_route
from strided.kernels.sleef import step as sleef_step

pytestmark = pytest.mark.skipif(torch_pow._kernel() is None,
                                reason="the compiled pow kernel is not used here (not built, or ATen's default capability)")

# MKL VML's sqrt route runs here (PyTorch's sqrt kernel is VML's; without the route strided's is NumPy's)
_VML = vml_route.fresh("sqrt", np.ones(1)) is not None
_DT = {np.float32: (strided.float32, torch.float32), np.float64: (strided.float64, torch.float64)}
_SPECIAL = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 3.0, -3.0, 2.5, -2.5, 1e-45,
            1e-38, 3.4e38, -3.4e38, 16777216.0, 16777217.0, -16777215.0, 0.3, -7.0, 1.0000001, 0.99999994,
            88.7, -104.5, 150.0, -150.0, 1e-300, 1e300, 5e-324, -5e-324, 2.0 ** 53, -(2.0 ** 53) - 2, 709.8,
            -745.2, 1.0000000000000002, 0.9999999999999999]


def _bits(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    return a.view(np.uint32 if a.itemsize == 4 else np.uint64)


def _same(got: strided.Tensor, want: torch.Tensor) -> None:
    g, w = got.detach().numpy(), want.detach().numpy()
    assert g.shape == w.shape and g.dtype == w.dtype and got.stride() == want.stride()
    bad = _bits(g) != _bits(w)
    assert not bad.any(), f"{int(bad.sum())} of {bad.size} differ, e.g. {g[bad][:4]} vs {w[bad][:4]}"


def _values(dtype: type, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Bases over many magnitudes (a third negative), exponents some integral, specials spliced in."""
    r = np.random.default_rng(seed)
    x = r.standard_normal(n) * np.exp(r.uniform(-8, 8, n))
    x[::3] = np.abs(x[::3])
    y = r.standard_normal(n) * np.exp(r.uniform(-3, 3, n))
    y[::4] = np.round(y[::4])
    with np.errstate(over="ignore", under="ignore"):
        s = np.array(_SPECIAL, dtype)
    x, y = x.astype(dtype), y.astype(dtype)
    x[5::11] = s[r.integers(0, s.size, x[5::11].size)]
    y[7::13] = s[r.integers(0, s.size, y[7::13].size)]
    return x, y


def test_the_kernel_runs_under_avx2_and_avx512_capabilities():
    """The compiled pow is used wherever ATen's vector lanes are SLEEF's (step 16 or 32), no longer only
    under AVX512: on an AVX2 CPU strided's pow was NumPy's."""
    assert sleef_step() in (16, 32)
    assert torch_pow._loaded[1] == sleef_step()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_avx2_lanes_match_the_widest_form(dtype):
    """pow_run's form 2 (AVX2 lanes) gives the default form's bits at every element (on an AVX-512 CPU:
    the AVX-512 lanes, whose logkf takes vgetexp / vgetmant instead of the exponent bits); form 1 on
    a CPU without AVX-512 answers False, writing nothing."""
    k = native.sleef()
    x, y = _values(dtype, 4099, 1)
    a, b = np.empty_like(x), np.empty_like(x)
    assert k.pow_run(x, y, a, 1, 0, 0, None) is True
    assert k.pow_run(x, y, b, 1, 0, 0, None, 2) is True
    assert _bits(a).tolist() == _bits(b).tolist()
    c = np.full_like(x, 7.0)
    if not _has_avx512f():
        assert k.pow_run(x, y, c, 1, 0, 0, None, 1) is False and (c == 7.0).all()


def _has_avx512f() -> bool:
    try:
        with open("/proc/cpuinfo") as f:
            return " avx512f" in f.read()
    except OSError:
        return True  # (unknown: the False answer not checked)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_all_special_pairs(dtype):
    """Every pair of special values (NaN, +-inf, +-0, +-1, negative bases with integral and fractional
    exponents, huge and tiny, subnormal, odd integers past 2^24 / 2^53) in the vector lanes and the tail."""
    with np.errstate(over="ignore", under="ignore"):
        s = np.array(_SPECIAL, dtype)
    xs, ys = (v.ravel().copy() for v in np.meshgrid(s, s))
    sd, td = _DT[dtype]
    for x, y in ((xs, ys), (ys, xs), (xs[:-5].copy(), ys[:-5].copy())):
        _same(strided.tensor(x) ** strided.tensor(y), torch.from_numpy(x) ** torch.from_numpy(y))
    for e in (2.5, -1.5, 7.0, -3.0, 1e-50, 1e300, -0.3, 33.0, float("inf"), float("-inf"), float("nan")):
        _same(strided.tensor(xs).pow(e), torch.from_numpy(xs).pow(e))
    for b in (2.0, -2.0, 0.5, -0.5, 0.0, -0.0, 1.0, -1.0, 10.0, float("inf"), float("nan")):
        _same(b ** strided.tensor(ys), b ** torch.from_numpy(ys))


@settings(max_examples=40, deadline=None)
@given(n=hs.integers(0, 90), seed=hs.integers(0, 2 ** 32 - 1), f64=hs.booleans(),
       e=hs.sampled_from([2.5, -1.7, 0.3, 4.0, -3.0, 1e-8, 200.0]))
def test_random_runs_every_form(n, seed, f64, e):
    """Runs of every length around the steps (16 / 32 floats, 8 / 16 doubles: vector lanes, then the
    C library's tail) in the three forms PyTorch sends to its pow loop."""
    dtype = np.float64 if f64 else np.float32
    x, y = _values(dtype, n, seed)
    sx, sy, tx, ty = strided.tensor(x), strided.tensor(y), torch.from_numpy(x), torch.from_numpy(y)
    _same(sx ** sy, tx ** ty)
    _same(sx ** e, tx ** e)
    _same(e ** sy, e ** ty)


@pytest.mark.usefixtures("torch_threads_as_assumed")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_past_the_parallel_grain(dtype):
    """A million elements: PyTorch's parallel chunks, each a row of its own with its own scalar tail."""
    x, y = _values(dtype, 1_000_003, 2)
    sx, sy, tx, ty = strided.tensor(x), strided.tensor(y), torch.from_numpy(x), torch.from_numpy(y)
    _same(sx ** sy, tx ** ty)
    _same(sx.abs() ** 1.3, tx.abs() ** 1.3)
    _same(1.7 ** sy, 1.7 ** ty)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_layouts_broadcast_in_place_and_out(dtype):
    """Transposed, stepped and broadcast operands (rows vectorized or scalar as PyTorch's loop walks
    them), ``pow_`` (in place: a tensor exponent, a number one), ``out=`` and a 0-d tensor exponent."""
    x, y = _values(dtype, 48 * 40, 3)
    x2, y2 = x.reshape(48, 40), y.reshape(48, 40)
    sd, td = _DT[dtype]
    sx, sy, tx, ty = strided.tensor(x2), strided.tensor(y2), torch.from_numpy(x2), torch.from_numpy(y2)
    _same(sx.t() ** sy.t(), tx.t() ** ty.t())
    _same(sx.t() ** 2.5, tx.t() ** 2.5)
    _same(sx[:, ::2] ** sy[:, ::2], tx[:, ::2] ** ty[:, ::2])
    _same(sx ** sy[0], tx ** ty[0])              # a row broadcast down
    _same(sx[:, :1] ** sy, tx[:, :1] ** ty)      # a column broadcast across
    _same(sx ** sy[3, 4], tx ** ty[3, 4])        # a 0-d tensor exponent
    _same(sx[2, 5] ** sy, tx[2, 5] ** ty)        # a 0-d tensor base
    a, b = sx.clone(), tx.clone()
    a.pow_(sy)
    b.pow_(ty)
    _same(a, b)
    a, b = sx.t().clone(), tx.t().clone()
    a.pow_(-1.3)
    b.pow_(-1.3)
    _same(a, b)
    o, p = strided.empty(48, 40, dtype=sd), torch.empty(48, 40, dtype=td)
    strided.pow(sx, sy, out=o)
    torch.pow(tx, ty, out=p)
    _same(o, p)
    o, p = strided.empty(40, 48, dtype=sd).t(), torch.empty(40, 48, dtype=td).t()
    strided.pow(sx, 1.9, out=o)
    torch.pow(tx, 1.9, out=p)
    _same(o, p)


def test_float_power_and_mixed_dtypes():
    """float_power (float64 throughout) and a float32 tensor ** a float64 one (promoted)."""
    x, y = _values(np.float32, 300, 4)
    sx, sy, tx, ty = strided.tensor(x), strided.tensor(y), torch.from_numpy(x), torch.from_numpy(y)
    _same(strided.float_power(sx, sy), torch.float_power(tx, ty))
    _same(strided.float_power(sx, 2.5), torch.float_power(tx, 2.5))
    _same(strided.float_power(1.5, sy), torch.float_power(1.5, ty))
    _same(sx ** sy.double(), tx ** ty.double())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gradients_through_pow(dtype):
    """pow's backward (its own pow of exponent - 1, and pow * log for the exponent's gradient) and a
    second derivative of x ** 2.5, whose x ** 0.5 is PyTorch's sqrt kernel (VML's: compared where the
    route runs)."""
    r = np.random.default_rng(5)
    xv = r.uniform(0.2, 3.0, (30, 40)).astype(dtype)
    yv = r.uniform(-2.5, 2.5, (30, 40)).astype(dtype)
    gv = r.uniform(-1, 1, (30, 40)).astype(dtype)
    got = []
    for lib in (torch, strided):
        x = lib.tensor(xv).requires_grad_(True)
        y = lib.tensor(yv).requires_grad_(True)
        ((x ** y) * lib.tensor(gv)).sum().backward()
        z = lib.tensor(xv).t().requires_grad_(True)
        (g,) = lib.autograd.grad(z ** 2.5, z, lib.full_like(z, 0.3), create_graph=True)
        (g2,) = lib.autograd.grad((g * 1.7).sum(), z)
        got.append((x.grad, y.grad, g, g2) if _VML else (x.grad, g))  # (y's: pow * log, log VML's too)
    for w, s in zip(*got):
        _same(s, w)


@pytest.mark.skipif(not _VML, reason="no MKL VML route here: strided's sqrt is NumPy's")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "small", "in place", "out"])
def test_square_root_exponent_is_torchs_sqrt_kernel(dtype, layout):
    """x ** 0.5 is PyTorch's sqrt kernel (MKL VML's vsSqrt / vdSqrt in its wheel, not the correctly
    rounded root at every element on every CPU: on an AMD EPYC 368 of 2,000 float32 elements differed
    from NumPy's sqrt), strided's ``sqrt`` (vml_route) rather than NumPy's; -0.0, NaN and negatives too."""
    r = np.random.default_rng(6)
    v = r.uniform(0.3, 1.2, (40, 50)).astype(dtype)
    v[0, :6] = [-0.0, 0.0, -1.0, np.inf, np.nan, 1e-40]
    sd, td = _DT[dtype]
    s, t = strided.tensor(v), torch.from_numpy(v)
    if layout == "transposed":
        s, t = s.t(), t.t()
    elif layout == "small":
        s, t = s[:3, :4].clone(), t[:3, :4].clone()
    if layout == "in place":
        a, b = s.clone(), t.clone()
        a.pow_(0.5)
        b.pow_(0.5)
        _same(a, b)
    elif layout == "out":
        a, b = strided.empty(40, 50, dtype=sd), torch.empty(40, 50, dtype=td)
        strided.pow(s, 0.5, out=a)
        torch.pow(t, 0.5, out=b)
        _same(a, b)
    else:
        _same(s ** 0.5, t ** 0.5)
        _same(s.pow(0.5), t.sqrt())


def test_without_the_native_kernels_pow_is_still_right():
    """STRIDED_NATIVE=0: NumPy's power (within an ulp of PyTorch's), the same special values."""
    code = (
        "import numpy as np, strided\n"
        "from strided.kernels import torch_pow\n"
        "assert torch_pow._kernel() is None\n"
        "r = np.random.default_rng(0)\n"
        "for dt in (np.float32, np.float64):\n"
        "    x = r.uniform(0.1, 5, 1000).astype(dt); y = r.uniform(-3, 3, 1000).astype(dt)\n"
        "    got = (strided.tensor(x) ** strided.tensor(y)).numpy()\n"
        "    np.testing.assert_allclose(got, np.power(x, y), rtol=4e-7 if dt == np.float32 else 1e-15)\n"
        "    s = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -2.0, 1.0], dt)\n"
        "    got = (strided.tensor(s) ** 3.5).numpy()\n"
        "    np.testing.assert_array_equal(np.isnan(got), np.isnan(np.power(s, dt(3.5))))\n"
        "print('ok')\n"
    )
    env = dict(os.environ, STRIDED_NATIVE="0")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]
