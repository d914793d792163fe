"""addmv against torch: the signs of zero results (PyTorch's BLAS gemv starts from beta * input
and adds alpha-scaled products; NumPy's dot scaled and added after gave other signs: 173 of 672
mixed-zero cases differed, beta=0/alpha=-1 the most) and the empty-matrix shortcut, whose result
takes the input's own shape (mat (17, 0), input (1,): shape (1,), with PyTorch's resize warning)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st


def _mat(values, layout):
    """torch and strided views of ``values`` (n, k): "r" row-major, "c" column-major, "s" every
    other column of a wider matrix."""
    if layout == "c":
        f = np.asfortranarray(values)
        return torch.from_numpy(f), st.tensor(values).t().contiguous().t()
    if layout == "s":
        wide = np.repeat(values, 2, axis=1)
        return torch.from_numpy(wide)[:, ::2], st.tensor(wide)[:, ::2]
    return torch.from_numpy(values), st.tensor(values)


@settings(max_examples=300, deadline=None)
@given(dt=hs.sampled_from(["float32", "float64"]), nk=hs.sampled_from([(3, 4), (1, 3), (5, 1), (7, 9), (40, 33)]),
       ishape=hs.sampled_from(["n", "1", "0d"]), layout=hs.sampled_from("rcs"),
       beta=hs.sampled_from([0, 1, -1, 2, 0.0]), alpha=hs.sampled_from([1, -1, 0, -0.5, 2]),
       nonzero=hs.booleans(), seed=hs.integers(0, 2**32 - 1), use_out=hs.booleans())
def test_addmv_bits_match_torch(dt, nk, ishape, layout, beta, alpha, nonzero, seed, use_out):
    rng = np.random.default_rng(seed)
    n, k = nk
    vals = np.array([0.0, -0.0, 1.0, -1.0] if nonzero else [0.0, -0.0], dt)
    shape = {"n": (n,), "1": (1,), "0d": ()}[ishape]
    inp, mat, vec = rng.choice(vals, shape), rng.choice(vals, (n, k)), rng.choice(vals, (k,))
    tm, sm = _mat(mat, layout)
    want = torch.addmv(torch.from_numpy(inp), tm, torch.from_numpy(vec), beta=beta, alpha=alpha)
    if use_out:
        got = st.empty(n, dtype=getattr(st, dt))
        st.addmv(st.tensor(inp), sm, st.tensor(vec), beta=beta, alpha=alpha, out=got)
    else:
        got = st.addmv(st.tensor(inp), sm, st.tensor(vec), beta=beta, alpha=alpha)
    w = want.numpy()
    g = np.asarray(got.numpy())
    np.testing.assert_array_equal(g, w)
    np.testing.assert_array_equal(np.signbit(g), np.signbit(w))


@pytest.mark.parametrize("n", [17, 1, 0])
@pytest.mark.parametrize("ishape", ["n", "1", "0d"])
@pytest.mark.parametrize("beta", [1, 0, 2])
def test_empty_matrix_takes_the_input_shape(n, ishape, beta):
    shape = {"n": (n,), "1": (1,), "0d": ()}[ishape]
    results = []
    for m in (torch, st):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            r = m.addmv(m.full(shape, -0.0) if n else m.full(shape, 3.0), m.ones(n, 0), m.ones(0), beta=beta)
        results.append((tuple(r.shape), np.asarray(r.numpy()).tolist(), np.signbit(np.asarray(r.numpy())).tolist(),
                        [str(c.message).split(" (Triggered")[0] for c in caught if c.category is UserWarning]))
    assert results[1] == results[0]
