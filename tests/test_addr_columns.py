"""addr's fast path for a column-major input (ops/linalg/fused.py ``_addr_columns``): the result
computed as its row-major transpose. Each call runs with the fast path, with it turned off (the
general path) and through PyTorch 2.13: the bits and layout equal the general path's, the layout
equals PyTorch's, the values are PyTorch's within float rounding (PyTorch's own kernel may fuse)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import strided
from strided.ops.linalg import fused as F

SPECIAL = [np.inf, -np.inf, np.nan, np.copysign(np.nan, -1), -0.0, 0.0, -1e-45]  # (no overflow: PyTorch multiplies in another order)


def _values(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    v = (rng.standard_normal(shape) * 3).astype(dtype)
    flat = v.reshape(-1)
    # (seed % 3: every special value, all but NaN, none: the fast path answers for the last two)
    special = [SPECIAL, [v for v in SPECIAL if v == v], []][seed % 3]
    k = min(len(special), flat.size)
    flat[rng.choice(flat.size, k, replace=False)] = np.array(special[:k], dtype)
    return v


def _bits(t) -> tuple:
    return t.dtype, tuple(t.shape), tuple(t.stride()), t.storage_offset(), np.asarray(t).tobytes(order="A")


def _input(arr: np.ndarray, lib, how: str):
    """``arr`` (m, n) as a tensor: "t" column-major (the transpose of an (n, m) row-major one), "s"
    column-major rows of a wider matrix (strides (1, 2m): not the fast path's), "c" row-major."""
    if how == "c":
        return lib.tensor(arr)
    if how == "t":
        return lib.tensor(np.ascontiguousarray(arr.T)).t()
    wide = np.zeros((arr.shape[1], 2, arr.shape[0]), arr.dtype)
    wide[:, 0, :] = arr.T
    return lib.tensor(wide.reshape(2 * arr.shape[1], arr.shape[0]))[::2].t()


def _run(m, n, dtype, beta, alpha, how, seed, monkeypatch):
    a, x, y = _values((m, n), dtype, seed), _values((m,), dtype, seed + 1), _values((n,), dtype, seed + 2)
    taken = []
    fast_fn = F._addr_columns
    monkeypatch.setattr(F, "_addr_columns", lambda *args: (lambda r: taken.append(r is not None) or r)(fast_fn(*args)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ours = strided.addr(_input(a, strided, how), strided.tensor(x), strided.tensor(y), beta=beta, alpha=alpha)
        monkeypatch.setattr(F, "_addr_columns", lambda *args: None)
        general = strided.addr(_input(a, strided, how), strided.tensor(x), strided.tensor(y), beta=beta, alpha=alpha)
    theirs = torch.addr(_input(a, torch, how), torch.tensor(x), torch.tensor(y), beta=beta, alpha=alpha)
    assert _bits(ours) == _bits(general)
    assert tuple(ours.stride()) == tuple(theirs.stride())
    _close(np.asarray(ours), theirs.numpy(), a, x, y, beta, alpha)
    return any(taken)


def _close(ours, theirs, a, x, y, beta, alpha) -> None:
    """Equal NaN positions and infinities; finite values within a few ulps of the terms' size
    (PyTorch computes beta * input + alpha * x * y in another order, so a cancellation differs)."""
    assert np.array_equal(np.isnan(ours), np.isnan(theirs))
    fin = np.isfinite(ours) & np.isfinite(theirs)
    assert np.array_equal(ours[~fin & ~np.isnan(ours)], theirs[~fin & ~np.isnan(ours)])
    with np.errstate(all="ignore"):
        size = np.abs(alpha * np.multiply.outer(x, y).astype(np.float64))
        if beta != 0:  # (beta == 0 never reads the input)
            size += np.abs(beta * a.astype(np.float64))
    eps = np.finfo(ours.dtype).eps
    tiny = np.finfo(ours.dtype).smallest_subnormal * 4 * max(1, abs(alpha), abs(beta))  # (a rounded subnormal, scaled)
    diff = np.abs(ours[fin].astype(np.float64) - theirs[fin].astype(np.float64))
    assert (diff <= 4 * eps * np.nan_to_num(size[fin], posinf=np.inf) + tiny).all()


SCALARS = [(0.5, 2.0), (0, 2.0), (2, 1), (1, -0.5), (-1.5, 3), (0.0, 1.0), (1, 1), (1, 0), (0, 0), (2.0**70, 1.0), (1, float("nan"))]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("how", ["t", "s", "c"])
@pytest.mark.parametrize("m,n", [(2, 2), (3, 7), (64, 33), (300, 257)])
def test_addr_of_a_column_major_input_is_the_general_paths_bits(dtype, how, m, n, monkeypatch):
    fast = []
    for i, (beta, alpha) in enumerate(SCALARS):  # (each run its own patches: _run swaps the fast path out)
        with pytest.MonkeyPatch.context() as mp:
            fast.append(_run(m, n, dtype, beta, alpha, how, i, mp))
    # (the fast path answers for column-major inputs and finite scalars within its range only, and
    # beta 0 only: an input term takes PyTorch's per-position fma forms on the general path)
    assert any(fast) == (how == "t")


@settings(max_examples=60, deadline=None)
@given(m=st.integers(2, 40), n=st.integers(2, 40), beta=st.sampled_from([0, 1, 0.5, -3, 1e-3, 7.25]),
       alpha=st.sampled_from([0, 1, -1, 2.5, 1e3]), dtype=st.sampled_from([np.float32, np.float64]),
       seed=st.integers(0, 1000))
def test_addr_column_major_hypothesis(m, n, beta, alpha, dtype, seed):
    with pytest.MonkeyPatch.context() as mp:
        _run(m, n, dtype, beta, alpha, "t", seed, mp)


@pytest.mark.parametrize("how", ["t", "c"])
def test_addr_nan_plus_nan_is_the_general_paths(how, monkeypatch):
    """inf * -0.0 is a negative NaN, the input's NaN a positive one: which one their sum keeps is
    NumPy's loop's choice, so the fast path leaves such a call to the general path."""
    a = np.full((3, 7), np.nan, np.float32)
    x = np.array([np.inf, 1, 2], np.float32)
    y = np.array([-0.0, 0.0, 1, 2, 3, 4, 5], np.float32)
    for beta, alpha in ((0.5, 2.0), (2, 1), (1, 1)):
        _run_exact(a, x, y, beta, alpha, how, monkeypatch)


def _run_exact(a, x, y, beta, alpha, how, monkeypatch):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = strided.addr(_input(a, strided, how), strided.tensor(x), strided.tensor(y), beta=beta, alpha=alpha)
        with monkeypatch.context() as mp:
            mp.setattr(F, "_addr_columns", lambda *args: None)
            general = strided.addr(_input(a, strided, how), strided.tensor(x), strided.tensor(y), beta=beta,
                                   alpha=alpha)
    assert _bits(ours) == _bits(general)


def test_addr_columns_refuses_what_it_does_not_take():
    """Mixed dtypes, a broadcast input, a size-1 dim, out=: the general path (and PyTorch's layout)."""
    x32, y32 = strided.ones(4), strided.ones(3)
    t64 = strided.ones(3, 4, dtype=strided.float64).t()
    assert F._addr_columns(t64, x32, y32, (4, 3), 1, 1) is None
    assert F._addr_columns(strided.ones(3).expand(4, 3), x32, y32, (4, 3), 1, 1) is None
    r = strided.addr(t64, x32, y32)
    assert r.dtype == strided.float64 and r.stride() == torch.addr(
        torch.ones(3, 4, dtype=torch.float64).t(), torch.ones(4), torch.ones(3)).stride()
    o = strided.empty(4, 3)
    assert strided.addr(strided.ones(3, 4).t(), x32, y32, out=o) is o and o.stride() == (3, 1)
    assert o.tolist() == [[2.0] * 3] * 4


def test_addr_columns_gradients_match_torch():
    a = np.random.default_rng(5).standard_normal((3, 5)).astype(np.float32)
    x, y = np.arange(5, dtype=np.float32), np.arange(3, dtype=np.float32) - 1
    grads = []
    for lib in (strided, torch):
        i = lib.tensor(a).t().detach().requires_grad_(True) if lib is torch else lib.tensor(a).t().detach().requires_grad_(True)
        u, v = lib.tensor(x, requires_grad=True), lib.tensor(y, requires_grad=True)
        out = lib.addr(i, u, v, beta=0.5, alpha=2.0)
        (out * out).sum().backward()
        grads.append([np.asarray(g.grad.detach().numpy() if lib is torch else g.grad) for g in (i, u, v)])
        grads.append(tuple(out.stride()))
    assert grads[1] == grads[3]
    for g, h in zip(grads[0], grads[2]):
        np.testing.assert_allclose(g, h, rtol=1e-5)
