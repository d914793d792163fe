"""cov's fast path (no weights, a row-major float matrix outside autograd: the general path's steps
on NumPy arrays) must give the general path's result -- bits, shape, strides, dtype, the
squeezed view -- over values that overflow, underflow, hold NaN or inf, every correction that
leaves observations, one variable and many; PyTorch's values; and leave every other call
(weights, other layouts and dtypes, autograd, too few observations) to the general path."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import strided as st
from strided.ops.reductions import covariance


def _general(monkeypatch, fn):
    with monkeypatch.context() as patch:
        patch.setattr(covariance, "_fast_cov", lambda x, correction: None)
        return fn()


def _same(x, y):
    assert x.dtype == y.dtype and x.shape == y.shape and x.stride() == y.stride()
    assert (x._base is None) == (y._base is None)
    assert x.numpy().tobytes() == y.numpy().tobytes()


@pytest.mark.parametrize("dtype", [st.float32, st.float64])
def test_cov_fast_path_is_the_general_paths_and_torchs(dtype, monkeypatch):
    rng = np.random.default_rng(41)
    tdt = torch.float32 if dtype == st.float32 else torch.float64
    taken = []
    fast = covariance._fast_cov
    monkeypatch.setattr(covariance, "_fast_cov", lambda x, c: (r := fast(x, c)) is not None and taken.append(1) or r)
    for trial in range(300):
        m, n = int(rng.integers(1, 20)), int(rng.integers(2, 24))
        a = rng.standard_normal((m, n)) * rng.choice([1e-30, 1e-3, 1.0, 1e5, 1e20, 1e160])
        if trial % 10 == 0:
            a[rng.integers(m), rng.integers(n)] = rng.choice([np.nan, np.inf, -np.inf])
        if trial % 7 == 0:
            a[:, 0] = -0.0
        correction = int(rng.integers(-2, min(n, 3)))
        t = st.tensor(a, dtype=dtype)
        big = st.tensor(np.concatenate([np.zeros(5), a.reshape(-1)]), dtype=dtype)[5:].view(m, n)  # (at an offset)
        for x in (t, big):
            _same(st.cov(x, correction=correction), _general(monkeypatch, lambda: st.cov(x, correction=correction)))  # noqa: B023
        if np.isfinite(a).all() and np.abs(a).max() < 1e5 and np.abs(a).max() > 1e-3:
            theirs = torch.cov(torch.tensor(a, dtype=tdt), correction=correction)
            ours = st.cov(t, correction=correction)
            assert ours.shape == tuple(theirs.shape) and ours.stride() == theirs.stride()
            tol = 1e-4 if dtype == st.float32 else 1e-11
            np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=tol, atol=tol * np.abs(a).max() ** 2)
    assert len(taken) > 300


def test_other_cov_calls_take_the_general_path(monkeypatch):
    calls = []
    fast = covariance._fast_cov
    monkeypatch.setattr(covariance, "_fast_cov", lambda x, c: calls.append(r := fast(x, c)) or r)
    x = st.tensor(np.random.default_rng(42).standard_normal((3, 5)))
    st.cov(x.t())  # (not row-major)
    st.cov(x[:, ::2])
    st.cov(x.to(st.int64))
    st.cov(x[:, :1])  # (one observation: the warning's path)
    st.cov(x.reshape(-1))
    st.cov(x, correction=5)
    y = x.clone().requires_grad_()
    st.cov(y).sum().backward()
    assert y.grad is not None and all(c is None for c in calls)
    calls.clear()
    st.cov(x, fweights=st.tensor([1, 2, 1, 1, 1]))
    st.cov(x, aweights=st.ones(5))
    assert not calls
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        st.cov(x, correction=5)
    assert any("degrees of freedom" in str(m.message) for m in w)
