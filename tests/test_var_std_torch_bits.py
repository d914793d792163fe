"""var/std against torch bit for bit where strided follows PyTorch's CPU algorithm.

- real float32/float16/bfloat16: PyTorch accumulates in float64 (WelfordOps<scalar_t, double>, or
  std_var_all_cpu for one result: the float32 mean, then double deviations) and rounds once;
  strided summed float32 squares (about half of float32 results were an ulp off);
- complex: var(z.real) + var(z.imag), each rounded to the real dtype, then sqrt for std
  (std_var_out); strided summed |z - mean|^2 (hypot's roundings).
(# Note: float64 results are not bit-equal: PyTorch's Welford updates / its own sum order for the
mean; and complex std goes through PyTorch's float32 sqrt kernel, which is not correctly rounded
on PyTorch 2.13 CPU, about 20% of float32 elements an ulp off np.sqrt.)"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided

CASES = [((n,), None) for n in (2, 3, 17, 100, 1000)] + [((4, n), None) for n in (2, 31)] + \
        [((3, n), -1) for n in (2, 5, 17, 100, 4097)] + [((n, 3), 0) for n in (3, 8, 100)]


def _data(rng, shape, complex_):
    x = rng.standard_normal(shape) + (1j * rng.standard_normal(shape) if complex_ else 0)
    return x * rng.choice([1, 1e3, 1e-3]) + rng.choice([0, 5 + 3j] if complex_ else [0, 5])


def _pair(x, dt):
    return torch.tensor(x).to(getattr(torch, dt)), strided.tensor(x).to(getattr(strided, dt))


def _values(t):
    return np.asarray(t.double().tolist() if isinstance(t, torch.Tensor) else t.to(strided.float64).tolist())


@pytest.mark.parametrize("dt,fns", [("float32", ("var", "std")), ("float16", ("var", "std")),
                                    ("bfloat16", ("var", "std")), ("complex64", ("var",))])
def test_bits_match_torch(dt, fns):
    rng = np.random.default_rng(3)
    for shape, dim in CASES:
        for correction in (1, 0):
            x = _data(rng, shape, dt.startswith("complex"))
            t, s = _pair(x, dt)
            kw = {} if dim is None else {"dim": dim}
            for fn in fns:
                want = _values(getattr(torch, fn)(t, correction=correction, **kw))
                got = _values(getattr(strided, fn)(s, correction=correction, **kw))
                np.testing.assert_array_equal(got, want, err_msg=f"{fn} {shape} {dim} {correction}")


@pytest.mark.parametrize("dt", ["complex64", "complex128"])
def test_complex_var_is_real_var_plus_imag_var(dt):
    rng = np.random.default_rng(4)
    for shape, dim in CASES:
        s = strided.tensor(_data(rng, shape, True)).to(getattr(strided, dt))
        kw = {} if dim is None else {"dim": dim}
        v = strided.var(s, **kw)
        parts = strided.var(s.real, **kw) + strided.var(s.imag, **kw)
        np.testing.assert_array_equal(v.numpy(), parts.numpy())
        # (std's root is the correctly rounded one, std::sqrt in PyTorch's reduction: np.sqrt, not
        # strided.sqrt, which is MKL VML's like torch.sqrt where that route runs)
        np.testing.assert_array_equal(strided.std(s, **kw).numpy(), np.sqrt(parts.numpy()))


def test_var_mean_keeps_its_mean():
    x = strided.tensor([1.0, 2.0, 4.5], dtype=strided.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        v, m = strided.var_mean(x)
    assert m.item() == strided.mean(x).item() and v.dtype is strided.float32
    assert v.item() == torch.var(torch.tensor([1.0, 2.0, 4.5])).item()


@settings(max_examples=80, deadline=None)
@given(hs.lists(hs.integers(1, 4), min_size=1, max_size=3), hs.lists(hs.tuples(hs.integers(0, 63), hs.booleans()),
                                                                      min_size=1, max_size=3),
       hs.randoms(use_true_random=False), hs.booleans(), hs.booleans())
def test_var_mean_means_where_a_row_holds_an_infinity_are_pytorchs(
        shape: list, infinities: list, rnd: Any, permuted: bool, keepdim: bool) -> None:
    """PyTorch's var_mean/std_mean compute the mean by Welford's updates in memory order: an element
    after an infinity makes the mean NaN; an infinity alone at its row's end leaves it infinite
    (mean() itself gives inf for both). Every dim choice, permuted inputs too."""
    a = np.asarray([rnd.uniform(-2, 2) for _ in range(int(np.prod(shape)))], np.float32).reshape(shape)
    for where, positive in infinities:
        a.reshape(-1)[where % a.size] = np.inf if positive else -np.inf
    t, s = torch.tensor(a), strided.tensor(a)
    if permuted:
        order = list(range(a.ndim))
        rnd.shuffle(order)
        t, s = t.permute(order), s.permute(order)
    dims = [None, *range(a.ndim)] + ([(0, a.ndim - 1)] if a.ndim > 1 else [])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (dof <= 0 on a size-1 dim)
        for dim in dims:
            for name in ("var_mean", "std_mean"):
                want = getattr(torch, name)(t, dim=dim, keepdim=keepdim)[1].numpy()
                got = getattr(strided, name)(s, dim=dim, keepdim=keepdim)[1].numpy()
                assert got.shape == want.shape
                assert np.array_equal(np.isnan(got), np.isnan(want)), (name, dim, a.tolist(), got, want)
                finite = ~np.isnan(want)
                assert np.array_equal(got[finite] == np.inf, want[finite] == np.inf), (name, dim, got, want)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("shape", [(7,), (100,), (3, 17), (64, 129), (9000,), (2, 30000)])
def test_var_mean_means_are_pytorchs_bits(dtype: str, shape: tuple) -> None:
    """PyTorch's var_mean/std_mean mean of a float32 (float16, bfloat16) tensor is its Welford mean
    in double, rounded once (not torch.mean's): the float64 mean rounded once has its bits, over
    every element or along the last dim (fused pass, general path with autograd, NumPy fallback).
    (Short reductions along an outer dim can still differ where the exact mean is a tie between
    two float32s: Welford's double rounding breaks it either way.)"""
    rng = np.random.default_rng(len(shape) * 1000 + shape[-1])
    t = torch.tensor(rng.standard_normal(shape) * 10 + 3).to(getattr(torch, dtype))
    s = strided.tensor(t.double().numpy()).to(getattr(strided, dtype))
    for dim in (None, -1):
        for name in ("var_mean", "std_mean"):
            want = getattr(torch, name)(t, dim=dim)[1].double().numpy()
            for x in (s, s.detach().requires_grad_()):
                got = getattr(strided, name)(x, dim=dim)[1].detach().to(strided.float64).numpy()
                assert np.array_equal(got, want), (name, dim, int(np.sum(got != want)))
