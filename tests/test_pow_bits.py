"""``pow`` of float32 and float64 tensors against PyTorch bit for bit (:mod:`strided.kernels.torch_pow`: SLEEF's
powf where PyTorch's loop is vectorized, the C library's pow where it is not): ``x ** number`` (the
vectorized function's exponent rounded to float, the scalar one's in double: ``x ** 1e-50``),
``x ** y`` and ``number ** x`` over ~1e6 random values, a grid of special values (NaN, +-inf, +-0,
negative bases with integer and fractional exponents, huge and tiny exponents), every length 1..70
and some to 200, sizes past PyTorch's parallel grain (its thread count matched), transposed,
stepped, broadcast and 0-d operands, operands of other dtypes, in-place and ``out=`` forms, float_power.

Not here: the exponents PyTorch sends to other kernels (0.5, -0.5, -1, 2, 3, -2: strided's own forms).
Of those, ``x ** 0.5`` is PyTorch's sqrt kernel, MKL VML's, which is not the correctly rounded square
root on every CPU (torch.sqrt of float32 differed from NumPy's in ~17% of elements, of float64 in ~1%,
and a NaN from a negative base is +nan there, -nan in NumPy's): strided's takes its sqrt's VML route
where that runs (tests/test_pow39.py), NumPy's sqrt otherwise.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided
from strided.kernels import native, torch_pow

pytestmark = [pytest.mark.skipif(native.sleef() is None or torch_pow._kernel() is None,
                                 reason="the compiled kernel is not built or not this CPU's capability"),
              pytest.mark.usefixtures("torch_threads_as_assumed")]  # (conftest.py)

_DTYPES = [np.float32, np.float64]
_SPECIAL = [np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 3.0, -3.0, 2.5, -2.5,
            1e-45, -1e-45, 1e-38, 3.4e38, -3.4e38, 16777216.0, 33554434.0, -16777216.0, -16777215.0, 0.3, -7.0,
            1.0000001, 0.99999994, 88.7, -104.5, 150.0, -150.0, 1e-50, 1e300,
            5e-324, -5e-324, 1e308, 2.0**53, 2.0**53 + 2, -(2.0**53) - 2, 709.8, -745.2, 1.0000000000000002,
            0.9999999999999999]
_NUMBERS = [2.5, 0.3, -1.5, 1e-50, -1e-50, 1e300, -1e300, 7.0, -3.0, 4.0, 1.0000000001, 0.9999999999, 200.0,
            -200.0, 1e-8, 33.0]
# (number exponents PyTorch sends to other kernels: sqrt, rsqrt, reciprocal, x * x, ...; not this one)
_OWN_KERNELS = (0.5, -0.5, -1.0, 2.0, 3.0, -2.0)


def _bits(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    return a.view(np.uint32 if a.itemsize == 4 else np.uint64)


def _check(got: strided.Tensor, want: torch.Tensor) -> None:
    g, w = got.numpy(), want.numpy()
    assert g.shape == w.shape and g.dtype == w.dtype
    bad = _bits(g) != _bits(w)
    assert not bad.any(), f"{int(bad.sum())} of {bad.size} differ, e.g. {g[bad][:4]} vs {w[bad][:4]}"


def _random(n: int, dtype: type, seed: int) -> tuple[np.ndarray, np.ndarray]:
    r = np.random.default_rng(seed)
    x = r.standard_normal(n) * np.exp(r.uniform(-6, 6, n))
    x[::3] = np.abs(x[::3])
    y = r.standard_normal(n) * np.exp(r.uniform(-3, 3, n))
    y[::5] = np.round(y[::5])
    return x.astype(dtype), y.astype(dtype)


@pytest.mark.parametrize("dtype", _DTYPES)
def test_million_random_values(dtype: type) -> None:
    x, y = _random(1 << 20, dtype, 0)
    sx, sy, tx, ty = strided.tensor(x), strided.tensor(y), torch.from_numpy(x), torch.from_numpy(y)
    _check(sx ** sy, tx ** ty)
    _check(sx.abs() ** sy, tx.abs() ** ty)
    for e in (2.5, 0.3, -1.7):
        _check(sx.pow(e), tx.pow(e))
    _check(2.5 ** sy[:100000], 2.5 ** ty[:100000])


@pytest.mark.parametrize("dtype", _DTYPES)
def test_special_grid(dtype: type) -> None:
    with np.errstate(over="ignore", under="ignore"):
        s = np.array(_SPECIAL, dtype)
    xs, ys = np.meshgrid(s, s)
    x, y = xs.ravel(), ys.ravel()
    for a, b in ((x, y), (x[::-1].copy(), y), (x[:-3].copy(), y[:-3].copy())):  # (other tails)
        _check(strided.tensor(a) ** strided.tensor(b), torch.from_numpy(a) ** torch.from_numpy(b))
    for e in _NUMBERS + [float(v) for v in _SPECIAL if v not in _OWN_KERNELS]:
        for a in (s, x):  # (a row shorter than the step: all scalar; a long one: mostly vectorized)
            _check(strided.tensor(a).pow(e), torch.from_numpy(a).pow(e))
    for c in (2.5, -2.5, 0.0, -0.0, float("inf"), float("nan"), 1e-50, -1.0):
        _check(c ** strided.tensor(x), c ** torch.from_numpy(x))


@pytest.mark.parametrize("dtype", _DTYPES)
def test_tiny_exponent_in_the_scalar_loop(dtype: type) -> None:
    x = np.array([-5.0, 2.0, 0.0, np.inf], dtype)
    _check(strided.tensor(x).pow(1e-50), torch.from_numpy(x).pow(1e-50))  # nan, 1, 0, inf


@pytest.mark.parametrize("dtype", _DTYPES)
def test_every_length(dtype: type) -> None:
    x, y = _random(200, dtype, 1)
    for n in list(range(1, 71)) + [95, 96, 97, 127, 128, 129, 200]:
        a, b = x[:n].copy(), y[:n].copy()
        sa, sb, ta, tb = strided.tensor(a), strided.tensor(b), torch.from_numpy(a), torch.from_numpy(b)
        _check(sa.pow(2.5), ta.pow(2.5))
        _check(sa ** sb, ta ** tb)
        _check(1.7 ** sb, 1.7 ** tb)


@pytest.mark.parametrize("dtype", _DTYPES)
def test_past_the_parallel_grain(dtype: type) -> None:
    for n in (32768, 40001, 70003):
        x, y = _random(n, dtype, n)
        sx, sy, tx, ty = strided.tensor(x), strided.tensor(y), torch.from_numpy(x), torch.from_numpy(y)
        _check(sx ** sy, tx ** ty)
        _check(sx.pow(0.3), tx.pow(0.3))
        _check(2.5 ** sy, 2.5 ** ty)
        m = sx.reshape(-1, 1)[: n - n % 7].reshape(7, -1)  # (a 2-D one, then transposed)
        _check(m.t() ** 1.5, torch.from_numpy(x[: n - n % 7].reshape(7, -1)).t() ** 1.5)


@pytest.mark.parametrize("dtype", _DTYPES)
def test_layouts(dtype: type) -> None:
    x, y = _random(50 * 60, dtype, 2)
    a, b = x.reshape(50, 60), y.reshape(50, 60)
    sa, sb, ta, tb = strided.tensor(a), strided.tensor(b), torch.from_numpy(a), torch.from_numpy(b)
    _check(sa.t() ** 2.5, ta.t() ** 2.5)
    _check(sa[:, ::2] ** 0.7, ta[:, ::2] ** 0.7)
    _check(sa[::3, 1::2] ** sb[::3, 1::2], ta[::3, 1::2] ** tb[::3, 1::2])
    _check(sa.t() ** sb.t(), ta.t() ** tb.t())
    _check(sa ** sb.t().contiguous().t(), ta ** tb.t().contiguous().t())
    for _ in range(2):  # (the second call: the broadcast fast path's plan)
        _check(sa ** sb[0], ta ** tb[0])
        _check(sa[:, :1] ** sb, ta[:, :1] ** tb)
    _check(sa ** strided.tensor(dtype(1.3)), ta ** torch.tensor(dtype(1.3)))
    _check(strided.tensor(dtype(1.3)) ** sb, torch.tensor(dtype(1.3)) ** tb)
    _check(2.5 ** sb.t(), 2.5 ** tb.t())
    _check(sa[0, 0] ** 2.5, ta[0, 0] ** 2.5)


@pytest.mark.parametrize("dtype", _DTYPES)
def test_in_place_and_out(dtype: type) -> None:
    x, y = _random(50 * 60, dtype, 3)
    a, b = x.reshape(50, 60), y.reshape(50, 60)
    for f in (lambda t, u: t.pow_(2.5), lambda t, u: t.t().pow_(0.3), lambda t, u: t.pow_(u),
              lambda t, u: t[:, ::2].pow_(u[:, ::2]), lambda t, u: t.__ipow__(1.5)):
        s, t = strided.tensor(a.copy()), torch.from_numpy(a.copy())
        f(s, strided.tensor(b))
        f(t, torch.from_numpy(b))
        _check(s, t)
    sd, td = (strided.float32, torch.float32) if dtype is np.float32 else (strided.float64, torch.float64)
    o, ot = strided.empty((60, 50), dtype=sd).t(), torch.empty((60, 50), dtype=td).t()
    strided.pow(strided.tensor(a), 2.5, out=o)
    torch.pow(torch.from_numpy(a), 2.5, out=ot)
    _check(o, ot)
    o, ot = strided.empty((50, 60), dtype=sd), torch.empty((50, 60), dtype=td)
    strided.pow(strided.tensor(a), strided.tensor(b), out=o)
    torch.pow(torch.from_numpy(a), torch.from_numpy(b), out=ot)
    _check(o, ot)


def test_operands_of_other_dtypes_are_converted_first() -> None:
    """TensorIterator converts each operand to the compute dtype, then runs the same loop."""
    x, y = _random(40 * 50, np.float32, 4)
    a = np.abs(x.reshape(40, 50)) + np.float32(0.01)
    i = np.random.default_rng(4).integers(-3, 5, (40, 50))
    sa, ta, si, ti = strided.tensor(a), torch.from_numpy(a), strided.tensor(i), torch.from_numpy(i)
    _check(sa ** strided.tensor(1.7, dtype=strided.float64), ta ** torch.tensor(1.7, dtype=torch.float64))
    _check(strided.tensor(1.7, dtype=strided.float64) ** sa, torch.tensor(1.7, dtype=torch.float64) ** ta)
    _check(sa ** si, ta ** ti)
    _check(si ** 2.5, ti ** 2.5)
    _check(sa ** strided.tensor(a.astype(np.float64)), ta ** torch.from_numpy(a.astype(np.float64)))
    _check(3 ** sa, 3 ** ta)
    o, ot = strided.empty((40, 50), dtype=strided.float64), torch.empty((40, 50), dtype=torch.float64)
    strided.pow(sa, 2.7, out=o)
    torch.pow(ta, 2.7, out=ot)
    _check(o, ot)


def test_float_power_is_pow_of_the_float64_operands() -> None:
    x, y = _random(40 * 50, np.float32, 5)
    a, b = x.reshape(40, 50), y.reshape(40, 50)
    sa, sb, ta, tb = strided.tensor(a), strided.tensor(b), torch.from_numpy(a), torch.from_numpy(b)
    _check(strided.float_power(sa, sb), torch.float_power(ta, tb))
    _check(strided.float_power(sa.abs(), sb.t().contiguous().t()), torch.float_power(ta.abs(), tb.t().contiguous().t()))
    _check(strided.float_power(2.5, sb), torch.float_power(2.5, tb))
    for e in (2.7, 1, 0, -1, 2, 3, -2, -0.5, 1e-50):  # (0.5: the sqrt kernel, see above)
        _check(strided.float_power(sa.t(), e), torch.float_power(ta.t(), e))
    s, t = strided.tensor(a.astype(np.float64)), torch.from_numpy(a.astype(np.float64))
    s.float_power_(1.3)
    t.float_power_(1.3)
    _check(s, t)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_ldexp_of_permuted_operands_is_torchs(dtype: type) -> None:
    """ldexp of two tensors of one permuted dense layout (float32: PyTorch's scalar pow over the
    exponent's run in memory order, then the product in that layout; other layouts and float64:
    the general path): PyTorch's bits and strides, the fast path taken where it applies."""
    from strided.ops._support.operands import _cinfo
    from strided.ops.elementwise import binary_math

    gen = np.random.default_rng(23)
    for shape, perm in (((40, 70), (1, 0)), ((5, 6, 70), (2, 0, 1)), ((8, 9, 10), (1, 2, 0)),
                        ((6, 7, 40), (1, 0, 2)), ((1, 5, 40), (2, 1, 0))):
        x = (gen.standard_normal(shape) * gen.choice([1e-30, 1.0, 1e30], shape)).astype(dtype)
        e = (gen.standard_normal(shape) * 60).astype(dtype)
        x.flat[::17] = np.nan
        sx, se = (strided.from_numpy(a.copy()).permute(*perm) for a in (x, e))
        tx, te = (torch.from_numpy(a.copy()).permute(*perm) for a in (x, e))
        got, want = strided.ldexp(sx, se), torch.ldexp(tx, te)
        assert got.stride() == want.stride()
        assert np.ascontiguousarray(got.numpy()).tobytes() == np.ascontiguousarray(want.numpy()).tobytes()
        fast = binary_math._permuted_ldexp(sx, se, sx._dtype, _cinfo[sx.shape]) is not None
        assert fast == (torch_pow._kernel() is not None and dtype == np.float32 and perm in ((1, 0), (2, 0, 1), (1, 2, 0)))
