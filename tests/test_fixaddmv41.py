"""addmv against torch: NaN words where the input term and the product are both NaN. PyTorch's
BLAS gemv (MKL's generic path, the one this AMD machine takes) keeps the product's NaN for a
gemv 't' (row-major and other layouts) and, for a gemv 'n' (column-major), the NaN of the last
column block's first column whose term is NaN (else the input's); strided's NumPy add kept the
input's: addmv([nan], [[-0.]], [inf]) gave 0x7fc00000 for torch's 0xffc00000."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from strided.kernels.mkl_path import mkl_path

pytestmark = pytest.mark.skipif(mkl_path() != "generic", reason="NaN words measured on MKL's generic path")

_U = {"float32": (np.uint32, 0x7FC00000), "float64": (np.uint64, 0x7FF8000000000000)}


def _nan(dt, payload, sign):
    ut, q = _U[dt]
    w = np.array([q | payload | ((1 << (31 if dt == "float32" else 63)) if sign else 0)], ut)
    return w.view(dt)[0]


def _mat(values, layout):
    if layout == "c":
        return torch.from_numpy(np.asfortranarray(values)), st.tensor(values).t().contiguous().t()
    if layout == "s":
        wide = np.repeat(values, 2, axis=1)
        return torch.from_numpy(wide)[:, ::2], st.tensor(wide)[:, ::2]
    if layout == "e":  # (a row expanded: stride 0)
        return torch.from_numpy(values[:1]).expand(values.shape), st.tensor(values[:1]).expand(*values.shape)
    return torch.from_numpy(values), st.tensor(values)


def _words(x, dt):
    return np.asarray(x).view(_U[dt][0])


@settings(max_examples=400, deadline=None)
@given(dt=hs.sampled_from(["float32", "float64"]),
       nk=hs.sampled_from([(1, 1), (1, 3), (3, 5), (2, 7), (9, 17), (70, 3), (3, 70), (66, 67), (1, 64)]),
       layout=hs.sampled_from("rcse"), ishape=hs.sampled_from(["n", "1", "0d"]),
       beta=hs.sampled_from([0, 1, -1, 2.5]), alpha=hs.sampled_from([1, -2, 0.5]),
       source=hs.sampled_from(["zero_inf", "vec_nan", "mat_nan"]), seed=hs.integers(0, 2**32 - 1),
       use_method=hs.booleans())
def test_nan_words_match_torch(dt, nk, layout, ishape, beta, alpha, source, seed,
                               use_method):  # (at most 66 x 67 elements: one thread in PyTorch)
    rng = np.random.default_rng(seed)
    n, k = nk
    shape = {"n": (n,), "1": (1,), "0d": ()}[ishape]
    ints = np.array([1.0, -1.0, 2.0, -3.0, 4.0], dt)  # (exact sums: the dot's rounding is not tested here)
    inp = rng.choice(ints, shape)
    inp[...] = np.where(rng.random(shape) < 0.7, _nan(dt, 1, rng.integers(2)), inp)
    mat, vec = rng.choice(ints, (n, k)), rng.choice(ints, k)
    # (the NaN sources of every row in columns of one set, at most one per row: the dot's own
    # order among several NaN products is not what this test is about)
    cols = rng.integers(0, k, n)
    hit = rng.random(n) < 0.6
    if source == "vec_nan":
        c = int(rng.integers(k))
        vec[c] = _nan(dt, 3, rng.integers(2))
        mat[:, :] = np.where(np.arange(k) == c, mat, np.abs(mat) + 1)
    else:
        for i in np.flatnonzero(hit):
            if source == "zero_inf":
                mat[i, cols[i]] = rng.choice(np.array([0.0, -0.0], dt))
            else:
                mat[i, cols[i]] = _nan(dt, 2 + int(rng.integers(4)), rng.integers(2))
        if source == "zero_inf":
            vec[np.unique(cols[hit])] = rng.choice(np.array([np.inf, -np.inf], dt))
            mat[:, :] = np.where(np.isin(np.arange(k), cols[hit]) & (mat != 0), 0.0, mat).astype(dt)
    if layout == "e":
        mat[:] = mat[:1]
    tm, sm = _mat(mat, layout)
    want = torch.addmv(torch.from_numpy(inp), tm, torch.from_numpy(vec), beta=beta, alpha=alpha).numpy()
    si, sv = st.tensor(inp), st.tensor(vec)
    got = si.addmv(sm, sv, beta=beta, alpha=alpha) if use_method else st.addmv(si, sm, sv, beta=beta, alpha=alpha)
    g = np.asarray(got.numpy())
    np.testing.assert_array_equal(_words(g, dt), _words(want, dt))


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("layout", ["r", "c"])
def test_issue_repro(dt, layout):
    inp = np.array([np.nan], dt)
    tm, sm = _mat(np.array([[-0.0]], dt), layout)
    want = torch.addmv(torch.from_numpy(inp), tm, torch.tensor([np.inf], dtype=getattr(torch, dt))).numpy()
    got = st.addmv(st.tensor(inp), sm, st.tensor(np.array([np.inf], dt)))
    assert _words(got.numpy(), dt).tolist() == _words(want, dt).tolist()
    assert np.signbit(want[0])  # (the product's NaN: -0 * inf)


@pytest.mark.parametrize("m", range(1, 26))
def test_gemv_n_block_firsts(m):
    """Every column of a column-major 2-row matrix in turn as the NaN term under a NaN input."""
    for c in range(m):
        mat = np.ones((2, m), "float32")
        mat[1, c] = -0.0
        vec = np.ones(m, "float32")
        vec[c] = np.inf
        inp = np.full(2, _nan("float32", 5, 0))
        tm, sm = _mat(mat, "c")
        want = torch.addmv(torch.from_numpy(inp), tm, torch.from_numpy(vec)).numpy()
        got = st.addmv(st.tensor(inp), sm, st.tensor(vec)).numpy()
        assert _words(got, "float32").tolist() == _words(want, "float32").tolist(), (m, c)
