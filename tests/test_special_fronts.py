"""The compiled fronts of strided.special.i1 / i0e / i1e (special_fns._install_fronts): the
common call (plain row-major float32 / float64) runs the fresh form of the special function in
C; every other call goes to the entry. Both must give PyTorch's bits, and each other's."""

from __future__ import annotations

import os

import numpy as np
import pytest
import torch

import strided as st
from strided.kernels import native
from strided.ops._support.front import fallback_of

OPS = [("i1", torch.special.i1), ("i0e", torch.special.i0e), ("i1e", torch.special.i1e)]
VALUES = [0.0, -0.0, 1e-40, -1e-40, 5e-324, 1e-3, 0.5, -0.5, 1.0, -2.5, 7.75, -8.0, 8.0, 29.9, 30.0, 31.0, -45.0,
          85.0, 88.0, 89.5, 100.0, 700.0, 710.0, 1000.0, -1000.0, 1e30, float("inf"), float("-inf"), float("nan")]


def _values(dtype: np.dtype) -> np.ndarray:
    rng = np.random.default_rng(5)
    v = np.concatenate([np.array(VALUES), rng.normal(0, 20, 40), rng.uniform(-3, 3, 27)])
    with np.errstate(all="ignore"):
        return v.astype(dtype)


NATIVE = native.special() is not None
if not NATIVE and os.environ.get("STRIDED_REQUIRE_NATIVE") == "1":
    raise RuntimeError("STRIDED_REQUIRE_NATIVE=1 but the special kernel is not built")


def _bits(t) -> bytes:
    return np.ascontiguousarray(t._np() if isinstance(t, st.Tensor) else t.numpy()).tobytes()


def _torch_same(got, want) -> bool:
    """PyTorch's bits with the compiled kernel (its own code); without it, the NumPy formulas
    within a few ulp (NaN where NaN)."""
    if NATIVE:
        return _bits(got) == _bits(want)
    a, b = got._np(), want.detach().numpy()
    near = np.isclose(a, b, rtol=1e-5 if a.dtype == np.float32 else 1e-12, equal_nan=True)
    # (float32 i1 near its overflow: PyTorch's float32 arithmetic reaches inf, the float64 formula not)
    return a.shape == b.shape and bool(np.all(near | (np.isinf(b) & (np.abs(a) > 1e37))))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name,tfn", OPS)
def test_front_gives_torchs_bits(name, tfn, dtype):
    v = _values(dtype).reshape(8, 12)
    fn = getattr(st.special, name)
    want = tfn(torch.from_numpy(v.copy()))
    got = fn(st.tensor(v))  # (row-major: the front's call)
    assert got.dtype == st.float32 if dtype == np.float32 else got.dtype == st.float64
    assert got.shape == (8, 12) and got.stride() == (12, 1)
    assert _torch_same(got, want)
    assert _bits(fallback_of(fn)(st.tensor(v))) == _bits(got)  # (the entry itself)
    with native.disabled():  # (the NumPy formulas: the front's fallback and the entry's agree)
        assert _bits(fn(st.tensor(v))) == _bits(fallback_of(fn)(st.tensor(v)))
    # the calls the front hands over: transposed, stepped, offset views, 0-d, empty, out=
    tv, sv = st.tensor(v).T, st.tensor(v)[:, ::3]
    assert _torch_same(fn(tv), tfn(torch.from_numpy(v.copy()).T))
    assert _torch_same(fn(sv), tfn(torch.from_numpy(v.copy())[:, ::3]))
    assert _torch_same(fn(st.tensor(v)[2:]), tfn(torch.from_numpy(v.copy())[2:]))
    assert _torch_same(fn(st.tensor(v[0, 4])), tfn(torch.tensor(v[0, 4])))
    assert fn(st.tensor(v[:0])).shape == (0, 12)
    out = st.empty(8, 12, dtype=got.dtype)
    assert fn(st.tensor(v), out=out) is out and _bits(out) == _bits(got)


@pytest.mark.parametrize("name,tfn", OPS)
def test_front_hands_over_other_dtypes_and_autograd(name, tfn):
    fn = getattr(st.special, name)
    assert getattr(fn, "__front_table__", None) is not None or os.environ.get("STRIDED_REQUIRE_NATIVE") != "1"
    i = np.arange(-6, 6).reshape(3, 4)
    assert _torch_same(fn(st.tensor(i)), tfn(torch.from_numpy(i)))  # (int64 -> float32)
    h = st.tensor(np.linspace(-3, 3, 12, dtype=np.float16).reshape(3, 4))
    assert _bits(fn(h)) == _bits(fallback_of(fn)(h))  # (float16: the entry's; i0e's differs from torch's)
    x = st.tensor([[0.5, -1.5], [2.0, 3.0]], dtype=st.float64, requires_grad=True)
    tx = torch.tensor([[0.5, -1.5], [2.0, 3.0]], dtype=torch.float64, requires_grad=True)
    y, ty = fn(x), tfn(tx)
    assert y.requires_grad and y.grad_fn is not None
    y.sum().backward()
    ty.sum().backward()
    assert _torch_same(x.grad, tx.grad)


def _logit_near(got, want) -> None:
    """NaN, +inf and -inf where PyTorch has them, the rest within 4 ulp (PyTorch's log is MKL's)."""
    a, b = got._np(), want.numpy()
    for test in (np.isnan, np.isposinf, np.isneginf):
        assert np.array_equal(test(a), test(b))
    fin = np.isfinite(b)
    assert np.allclose(a[fin], b[fin], rtol=4 * np.finfo(a.dtype).eps, atol=0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(3, 4), (16, 16)])
def test_logit_front_is_its_entry(dtype, shape):
    """``logit(x)`` (one positional argument) runs the front; its bits are the entry's, and
    PyTorch's within its log's rounding (PyTorch's contiguous logit is MKL's vsLn: not bit-exact)."""
    n = int(np.prod(shape))
    rng = np.random.default_rng(n)
    sp = [0.0, -0.0, 1.0, 1.5, -1.0, np.inf, -np.inf, np.nan, 1e-40, 5e-324, 0.5, 1 - 1e-7, 1e-30, 0.999]
    v = rng.uniform(0, 1, n)
    v[: min(n, len(sp))] = sp[:n]
    with np.errstate(all="ignore"):
        v = v.astype(dtype).reshape(shape)
    fn = st.logit
    got = fn(st.tensor(v))
    assert got.dtype == (st.float32 if dtype == np.float32 else st.float64) and got.stride() == (shape[1], 1)
    assert _bits(got) == _bits(fallback_of(fn)(st.tensor(v)))
    assert _bits(st.tensor(v).logit()) == _bits(got)
    with native.disabled():
        assert _bits(fn(st.tensor(v))) == _bits(got)
    _logit_near(got, torch.logit(torch.from_numpy(v.copy())))
    # the calls it hands over: eps, out=, a transposed view
    _logit_near(fn(st.tensor(v), 0.25), torch.logit(torch.from_numpy(v.copy()), 0.25))
    assert _bits(fn(st.tensor(v), eps=None)) == _bits(got)
    out = st.empty(*shape, dtype=got.dtype)
    assert fn(st.tensor(v), out=out) is out and _bits(out) == _bits(got)
    assert _bits(fn(st.tensor(v).T)) == _bits(fallback_of(fn)(st.tensor(v).T))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [0, 1, 2, 3])
def test_polygamma_fast_path_is_the_general_path(n, dtype):
    """polygamma(n, x) / x.polygamma(n) of a row-major float tensor (special_fns' fast path) give
    run_unary's bits (the general path) and PyTorch's, natively and with the kernels off."""
    from strided.ops.elementwise.special_fns import _POLYGAMMA
    from strided.ops.elementwise.unary_more import run_unary

    with np.errstate(all="ignore"):
        v = np.array(VALUES + [-1.0, -2.0, -2.5, 1e-8, 3.5, 0.25, -0.75], dtype=dtype).reshape(6, 6)
    for ctx in (None, native.disabled):
        with ctx() if ctx is not None else np.errstate():
            got = st.polygamma(n, st.tensor(v))
            general = run_unary(_POLYGAMMA, st.tensor(v), args=(n,))
            assert _bits(got) == _bits(general) and got.stride() == (6, 1) and got.dtype == general.dtype
            assert _bits(st.tensor(v).polygamma(n)) == _bits(general)
            assert _bits(st.polygamma(n, st.tensor(v).T)) == _bits(general.T.contiguous())
            if ctx is None and NATIVE:  # (the NumPy formulas differ from PyTorch at the poles)
                assert _torch_same(got, torch.polygamma(n, torch.from_numpy(v.copy())))
    got = st.polygamma(n, st.tensor(v))
    out = st.empty(6, 6, dtype=got.dtype)
    assert st.polygamma(n, st.tensor(v), out=out) is out and _bits(out) == _bits(got)
    i = st.tensor(np.arange(1, 13).reshape(3, 4))  # (int64: the general path, float32)
    assert _torch_same(st.polygamma(n, i), torch.polygamma(n, torch.arange(1, 13).reshape(3, 4)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sinc_front_direct(dtype):
    """sinc's fresh function runs directly (not in quiet_call's shared context): PyTorch's bits
    with the compiled loop, and the entry's own (NumPy's) bits inside native.disabled."""
    rng = np.random.default_rng(8)
    with np.errstate(all="ignore"):
        v = np.concatenate([rng.normal(0, 3, 250), [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40]]).astype(dtype)
    v = v.reshape(16, 16)
    got = st.sinc(st.tensor(v))
    if NATIVE:
        assert _bits(got) == _bits(torch.sinc(torch.from_numpy(v.copy())))
    assert _bits(fallback_of(st.sinc)(st.tensor(v))) == _bits(got)
    with native.disabled():
        assert _bits(st.sinc(st.tensor(v))) == _bits(fallback_of(st.sinc)(st.tensor(v)))
        assert _bits(st.tensor(v).sinc()) == _bits(fallback_of(st.sinc)(st.tensor(v)))
