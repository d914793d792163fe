"""Complex ``logcumsumexp``, differential against PyTorch's CPU kernel (ATen's complex
``_log_add_exp_helper``, accumulated in complex128): complex64 bit for bit; complex128 bit for
bit except rare last-bit differences of the long-double FMA (counted here, and in the README's
known exceptions); special values, 0-d, size 0, any dim and layout; the gradient of PyTorch's
complex branch."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided
from strided.kernels import native

SPECIAL = [0.0, -0.0, 1.0, -1.0, 1e-30, -745.0, 710.0, 88.0, -88.0, np.inf, -np.inf, np.nan, 3.0, 1e300]


def _bits(x: np.ndarray) -> np.ndarray:
    x = np.ascontiguousarray(x)
    return x.view(x.real.dtype)


def _both(a: np.ndarray, dim: int, transposed: bool = False):
    t = torch.from_numpy(a)
    s = strided.from_numpy(a)
    if transposed:
        t, s = t.transpose(0, 1), s.transpose(0, 1)
    rt, rs = torch.logcumsumexp(t, dim), strided.logcumsumexp(s, dim)
    assert tuple(rs.shape) == tuple(rt.shape) and rs.stride() == rt.stride()
    assert str(rs.dtype).split(".")[-1] == str(rt.dtype).split(".")[-1]
    return rt.numpy(), np.asarray(rs.numpy())


def _compiled_fma():
    k = native.special()
    return getattr(k, "fma_f64", None) if k is not None else None


def _mismatches(want: np.ndarray, got: np.ndarray) -> int:
    """Parts whose bits differ, NaNs of either sign counted equal (PyTorch's NaN + NaNj)."""
    w, g = _bits(want), _bits(got)
    both_nan = np.isnan(w) & np.isnan(g)
    return int(((w != g) & ~both_nan).sum())


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("shape,dim", [((400, 16), 0), ((16, 400), 1), ((3, 4, 5), 1), ((7,), 0), ((), 0),
                                       ((0,), 0), ((2, 0, 3), 2), ((3, 1), -1)])
@pytest.mark.parametrize("scale", [0.3, 3.0, 40.0])
def test_random_values(dtype, shape, dim, scale):
    rng = np.random.default_rng(abs(hash((shape, dim, scale))) % 2**32)
    a = np.asarray(rng.standard_normal(shape) * scale + 1j * rng.standard_normal(shape) * scale).astype(dtype)
    want, got = _both(a, dim)
    bad = _mismatches(want, got)
    if dtype is np.complex64 or _compiled_fma() is not None:
        assert bad == 0  # (complex128: c10's fused division steps by C's fma)
    else:  # (the long-double stand-in, README: at most a few last-bit parts per 10^4)
        assert bad <= max(2, want.size * 2 // 5000)
        np.testing.assert_allclose(got, want, rtol=1e-15, atol=0)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_special_values(dtype):
    """Every pair of special real and imaginary parts, scanned in pairs (-inf, NaN, +inf, zeros)."""
    vals = np.array([complex(r, i) for r in SPECIAL for i in SPECIAL[:9] + [np.inf, np.nan]], dtype)
    pairs = np.stack(np.meshgrid(vals, vals, indexing="ij"), -1).reshape(-1, 2)
    want, got = _both(pairs, 1)
    # (complex128, README: 44 of 47,432 parts, where an imaginary part near 710 feeds exp; not
    # the division's fused steps: the same 44 with C's fma and with the long-double stand-in)
    assert _mismatches(want, got) <= (0 if dtype is np.complex64 else 44)


def test_transposed_and_out():
    rng = np.random.default_rng(3)
    a = (rng.standard_normal((5, 6)) + 1j * rng.standard_normal((5, 6))).astype(np.complex64)
    want, got = _both(a, 0, transposed=True)
    assert _mismatches(want, got) == 0
    o = strided.empty(0, dtype=strided.complex64)
    strided.logcumsumexp(strided.from_numpy(a), 1, out=o)
    assert _mismatches(torch.logcumsumexp(torch.from_numpy(a), 1).numpy(), o.numpy()) == 0


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("shape,dim", [((3, 4), 1), ((4,), 0), ((2, 3, 2), 0)])
def test_gradient(dtype, shape, dim):
    rng = np.random.default_rng(7)
    a = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    g = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    res = []
    for mod in (torch, strided):
        x = mod.tensor(a, dtype=getattr(mod, dtype), requires_grad=True)
        y = x.logcumsumexp(dim)
        y.backward(mod.tensor(g, dtype=getattr(mod, dtype)))
        res.append((y.grad_fn.name(), np.asarray(x.grad.tolist()), x.grad.stride()))
    assert res[1][0] == res[0][0] and res[1][2] == res[0][2]
    if dtype == "complex64":
        np.testing.assert_array_equal(res[1][1], res[0][1])
    else:
        np.testing.assert_allclose(res[1][1], res[0][1], rtol=1e-13, atol=0)


def test_integer_still_refused():
    with pytest.raises(NotImplementedError, match="\"logcumsumexp_out_cpu\" not implemented for 'Long'"):
        strided.tensor([1, 2]).logcumsumexp(0)


def test_fma_f64_rounds_once_at_any_alignment():
    run = _compiled_fma()
    if run is None:
        pytest.skip("the compiled special functions are not built")
    # 1 + 2^-52 squared is 1 + 2^-51 + 2^-104: fused, minus (1 + 2^-51) leaves 2^-104 (unfused: 0)
    x = 1.0 + 2.0**-52
    raw = np.zeros(8 * 3 + 1, np.uint8)
    odd = raw[1:].view(np.float64)  # (an odd address)
    odd[:] = [x, x, x]
    out = np.empty(3)
    assert run(odd, odd, np.full(3, -(1.0 + 2.0**-51)), out)
    assert out.tolist() == [2.0**-104] * 3
    assert not run(odd.astype(np.float32), odd, odd, out)  # (another format: nothing written)


def test_random_scan_without_the_compiled_fma_stays_close():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((60, 8)) * 3 + 1j * rng.standard_normal((60, 8)) * 3
    want = torch.logcumsumexp(torch.from_numpy(a), 0).numpy()
    with native.disabled():
        got = strided.logcumsumexp(strided.from_numpy(a), 0).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-15, atol=0)
