"""``F.elu`` / ``F.elu_`` and ``torch.expm1`` of float32 and float64 against PyTorch bit for bit
(:mod:`strided.kernels.sleef`'s ``EXPM1``: SLEEF's expm1, ``_sleef_expm1.h``, where PyTorch's elu
loop is vectorized and the C library's where it is not; every element SLEEF's for ``expm1``, vml's
``vec::map``): every 1-D length 0..70 and sizes past the parallel grain, the special inputs (NaN
of both signs and with payloads, +-inf, +-0.0, tiny, huge, subnormal and the cut-offs at -16.6 /
88.7 and -36.7 / 709.8), mixed-sign randn, negative, zero and non-default alphas, permuted,
sliced, expanded and in-place inputs, an integer input to expm1, and a sweep over float32 bit
patterns."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import strided
import strided.nn.functional as SF
from strided.kernels import native, sleef

K = native.sleef()
pytestmark = [pytest.mark.skipif(K is None, reason="the compiled kernel is not built"),
              pytest.mark.usefixtures("torch_threads_as_assumed")]  # (conftest.py)

_SPECIAL = [np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-30, -1e-30, 1e-40, -1e-40, 1e-300, -1e-300,
            5e-324, -5e-324, 3e38, -3e38, 1.7e308, -1.7e308, -16.635532, -16.6355, -16.64, 88.72283, 88.7229,
            -36.7368, -36.7369, 709.7827, 709.79, -104.0, -1000.0, 0.5, -0.5, -1.0, 1.0, -88.0, 20.0, -20.0]
_DTYPES = [np.float32, np.float64]


def _values(n: int, seed: int, dtype: type) -> np.ndarray:
    r = np.random.default_rng(seed)
    x = r.standard_normal(n) * np.where(r.random(n) < 0.2, 30.0, 1.0)
    with np.errstate(over="ignore"):
        x = x.astype(dtype)
        k = min(n, len(_SPECIAL))
        x[:k] = np.array(_SPECIAL[:k]).astype(dtype)
    if n > 40:  # NaN payloads of both signs
        bits = x.view(np.uint32 if dtype == np.float32 else np.uint64)
        bits[38:40] = [0x7FC00123, 0xFFC00456] if dtype == np.float32 else [0x7FF8000000000123, 0xFFF8000000000456]
    return r.permutation(x)


def _same(got: strided.Tensor, want: torch.Tensor) -> None:
    g, w = got.detach().numpy(), want.detach().numpy()
    assert g.dtype == w.dtype and g.shape == w.shape and got.stride() == want.stride()
    u = np.uint32 if g.dtype == np.float32 else np.uint64
    bad = np.nonzero(g.view(u) != w.view(u))
    assert not bad[0].size, f"{bad[0].size} elements differ, first at {bad[0][0]}: {g.flat[bad[0][0]]!r} vs {w.flat[bad[0][0]]!r}"


_OPS = {
    "elu": (SF.elu, TF.elu),
    "elu_alpha": (lambda x: SF.elu(x, 0.7), lambda x: TF.elu(x, 0.7)),
    "elu_neg_alpha": (lambda x: SF.elu(x, -0.5), lambda x: TF.elu(x, -0.5)),
    "elu_zero_alpha": (lambda x: SF.elu(x, 0.0), lambda x: TF.elu(x, 0.0)),
    "expm1": (strided.expm1, torch.expm1),
}


@pytest.mark.parametrize("dtype", _DTYPES)
@pytest.mark.parametrize("name", list(_OPS))
def test_every_length_and_special_value_is_pytorchs(name: str, dtype: type) -> None:
    ours, theirs = _OPS[name]
    for n in list(range(71)) + [1000, 32767, 32768, 40001, 100003]:
        x = _values(n, n, dtype)
        _same(ours(strided.from_numpy(x.copy())), theirs(torch.from_numpy(x.copy())))


@pytest.mark.parametrize("dtype", _DTYPES)
@pytest.mark.parametrize("name", list(_OPS))
def test_permuted_sliced_and_expanded_are_pytorchs(name: str, dtype: type) -> None:
    ours, theirs = _OPS[name]
    x = _values(3 * 37 * 5, 1, dtype).reshape(3, 37, 5)
    s, t = strided.from_numpy(x), torch.from_numpy(x)
    _same(ours(s.permute(2, 0, 1)), theirs(t.permute(2, 0, 1)))
    _same(ours(s[:, ::2, 1:]), theirs(t[:, ::2, 1:]))
    _same(ours(s.transpose(0, 1)), theirs(t.transpose(0, 1)))
    v = _values(37, 2, dtype)
    _same(ours(strided.from_numpy(v).expand(4, 37)), theirs(torch.from_numpy(v).expand(4, 37)))


@pytest.mark.parametrize("dtype", _DTYPES)
@pytest.mark.parametrize("alpha", [1.0, 0.3])
def test_in_place_elu_is_pytorchs(dtype: type, alpha: float) -> None:
    for shape, perm in [((16, 16), None), ((3, 4), None), ((7, 41), (1, 0)), ((70,), None), ((5, 33, 3), (2, 0, 1))]:
        x = _values(int(np.prod(shape)), 5, dtype).reshape(shape)
        a, b = strided.from_numpy(x.copy()), torch.from_numpy(x.copy())
        if perm is not None:
            a, b = a.permute(*perm), b.permute(*perm)
        SF.elu_(a, alpha)
        TF.elu_(b, alpha)
        _same(a, b)
        a, b = strided.from_numpy(x.copy()), torch.from_numpy(x.copy())
        SF.elu(a[:, 1:] if a.dim() > 1 else a[1:], alpha, inplace=True)
        TF.elu(b[:, 1:] if b.dim() > 1 else b[1:], alpha, inplace=True)
        _same(a, b)


@pytest.mark.parametrize("dtype", _DTYPES)
def test_in_place_expm1_and_integer_input_are_pytorchs(dtype: type) -> None:
    x = _values(16 * 16, 7, dtype).reshape(16, 16)
    a, b = strided.from_numpy(x.copy()), torch.from_numpy(x.copy())
    a.t().expm1_()
    b.t().expm1_()
    _same(a, b)
    i = np.arange(-20, 25, dtype=np.int64).reshape(5, 9)
    _same(strided.expm1(strided.from_numpy(i)), torch.expm1(torch.from_numpy(i)))


def test_float32_bit_patterns_are_pytorchs() -> None:
    """Every 4093rd float32 bit pattern (NaNs, infinities, subnormals included) through torch.expm1
    (every element SLEEF's) and through elu's vectorized and scalar functions (a flat run whose
    length leaves a tail)."""
    x = np.arange(0, 2**32, 4093, dtype=np.uint64).astype(np.uint32).view(np.float32)
    _same(strided.expm1(strided.from_numpy(x)), torch.expm1(torch.from_numpy(x)))
    x = x[: len(x) - len(x) % 32 - 5]
    _same(SF.elu(strided.from_numpy(x)), TF.elu(torch.from_numpy(x)))


def test_the_kernels_vector_and_scalar_functions() -> None:
    """run's op EXPM1: step 0 is the C library's expm1f (np.expm1 on glibc: the same function),
    step -1 SLEEF's throughout, and the double kernel refuses float32's own ops."""
    x = _values(4099, 3, np.float32)
    scalar, vec = np.empty_like(x), np.empty_like(x)
    assert K.run(x, scalar, sleef.EXPM1, 0, 0, 0, -1) is True
    assert K.run(x, vec, sleef.EXPM1, 0, 0, -1, -1) is True
    want = torch.expm1(torch.from_numpy(x)).numpy()
    assert np.array_equal(vec.view(np.uint32), want.view(np.uint32))
    ok = ~np.isnan(x)
    with np.errstate(over="ignore"):
        assert np.allclose(scalar[ok], np.expm1(x[ok]), rtol=3e-7, atol=0, equal_nan=True)
    with pytest.raises(ValueError):
        K.run_d(x.astype(np.float64), np.empty(len(x)), 5, 0, 0, 16, -1)


def test_without_the_kernel_numpy_answers_within_an_ulp() -> None:
    x = _values(1000, 9, np.float32)
    with native.disabled():
        got = SF.elu(strided.from_numpy(x), 0.7).numpy()
        e = strided.expm1(strided.from_numpy(x)).numpy()
    want = TF.elu(torch.from_numpy(x), 0.7).numpy()
    assert np.allclose(got, want, rtol=3e-7, atol=0, equal_nan=True)
    assert np.allclose(e, torch.expm1(torch.from_numpy(x)).numpy(), rtol=3e-7, atol=0, equal_nan=True)


@pytest.mark.parametrize("dtype", _DTYPES)
def test_the_avx512_and_plain_c_forms_agree(dtype: type) -> None:
    x = _values(4099, 3, dtype)
    bits = np.arange(0, 2**32, 65521, dtype=np.uint64).astype(np.uint32).view(np.float32).astype(dtype)
    x = np.concatenate([x, bits, -np.abs(bits)])
    run = K.run if dtype == np.float32 else K.run_d
    step = 32 if dtype == np.float32 else 16
    plain, wide = np.empty_like(x), np.empty_like(x)
    assert run(x, plain, sleef.EXPM1, 0, 0, step, 0) is True
    if not run(x, wide, sleef.EXPM1, 0, 0, step, 1):
        pytest.skip("this CPU has no AVX-512")
    u = np.uint32 if dtype == np.float32 else np.uint64
    assert np.array_equal(plain.view(u), wide.view(u))
