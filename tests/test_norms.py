"""amax/amin/aminmax, nansum/nanmean, logsumexp, count_nonzero, norm and strided.linalg's
vector_norm/matrix_norm against PyTorch, on hard layouts (permuted, stepped, expanded, empty, 0-d)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from layouts import build_valued, specs, valued_storage
from oracle_helpers import compare, same_error
from strided import linalg
from strided.ops.reductions import nan_reductions as R

TOL = {"float16": (1e-2, 1e-2), "float32": (1e-5, 1e-5), "float64": (1e-12, 1e-12)}


REDUCTIONS = {
    "amax": (lambda m, x, d, k: m.amax(x, d, k), True),
    "amin": (lambda m, x, d, k: m.amin(x, d, k), True),
    "nansum": (lambda m, x, d, k: m.nansum(x, d, k), True),
    "nanmean": (lambda m, x, d, k: m.nanmean(x, d, k), True),
    "logsumexp": (lambda m, x, d, k: m.logsumexp(x, d, k), True),
    "count_nonzero": (lambda m, x, d, k: m.count_nonzero(x, d), True),
    "norm": (lambda m, x, d, k: m.norm(x, 2, d, k), True),
}


@settings(max_examples=60, deadline=None)
@given(specs(max_dims=3), hs.sampled_from(sorted(REDUCTIONS)), hs.sampled_from(["float32", "float64", "int64", "bool"]),
       hs.data())
def test_reductions_match_torch(spec, name, dtype, data):
    ndim = len(spec.shape)
    choices = [hs.none(), hs.integers(-max(ndim, 1), max(ndim - 1, 0))]
    if ndim:
        choices.append(hs.lists(hs.integers(-ndim, ndim - 1), min_size=1, max_size=ndim, unique=True).map(tuple))
    dims = data.draw(hs.one_of(*choices))
    keepdim = data.draw(hs.booleans())
    if name == "logsumexp" and dims is None:
        dims = 0  # (torch's logsumexp(dim=()) of a tensor with dims fails: "output with shape []")
    storage = valued_storage(spec, dtype, data.draw(hs.integers(0, 2**16)), nan=True)
    t, _, s = build_valued(spec, storage)
    fn = REDUCTIONS[name][0]
    compare(lambda: fn(torch, t, dims, keepdim), lambda: fn(R, s, dims, keepdim), TOL)


def test_amax_errors_and_nan():
    same_error(lambda: torch.amax(torch.ones(0, 3), 0), lambda: R.amax(st.ones(0, 3), 0))
    same_error(lambda: torch.amax(torch.ones(0, 3)), lambda: R.amax(st.ones(0, 3)))
    assert R.amax(st.ones(0, 3), 1).shape == (0,)
    assert math.isnan(R.amin(st.tensor([1.0, float("nan")])).item())
    same_error(lambda: torch.amax(torch.ones(2, 3), (0, 0)), lambda: R.amax(st.ones(2, 3), (0, 0)))


def test_aminmax():
    x = torch.tensor([[3.0, -1.0, 2.0], [0.5, 9.0, -7.0]]).T
    s = st.tensor(x.T.tolist()).T
    for kw in ({}, {"dim": 0}, {"dim": 1, "keepdim": True}):
        want = torch.aminmax(x, **kw)
        got = R.aminmax(s, **kw)
        assert got.min.tolist() == want.min.tolist() and got.max.tolist() == want.max.tolist()
        assert got.max.shape == tuple(want.max.shape)
    same_error(lambda: torch.aminmax(torch.ones(0, 3)), lambda: R.aminmax(st.ones(0, 3)))
    lo, hi = st.tensor([True, False]).aminmax()
    assert (lo.item(), hi.item(), lo.dtype) == (False, True, st.bool_)


def test_logsumexp_is_stable_and_handles_infinite_rows():
    x = np.array([[1000.0, 1000.0], [-np.inf, -np.inf], [np.inf, 1.0], [-1000.0, -1000.5]], dtype=np.float32)
    compare(lambda: torch.logsumexp(torch.from_numpy(x), 1), lambda: R.logsumexp(st.tensor(x), 1), TOL)
    compare(lambda: torch.logsumexp(torch.ones(0, 3), 0), lambda: R.logsumexp(st.ones(0, 3), 0), TOL)
    assert R.logsumexp(st.tensor([1, 2]), 0).dtype is st.float32


def test_nan_reductions_dtypes_and_errors():
    assert R.nansum(st.tensor([1, 2], dtype=st.int32)).dtype is st.int64
    same_error(lambda: torch.nanmean(torch.tensor([1, 2])), lambda: R.nanmean(st.tensor([1, 2])))
    assert math.isnan(R.nanmean(st.tensor([float("nan")])).item())
    assert R.nansum(st.tensor([float("nan")], dtype=st.float16)).item() == 0.0


@pytest.mark.parametrize("ord", [2, 1, 0, 3, 0.5, -1, math.inf, -math.inf])
def test_vector_norm_matches_torch(ord):
    x = torch.from_numpy(np.random.default_rng(1).standard_normal((3, 4, 5)))
    s = st.tensor(x.numpy())
    for dim, keepdim in ((None, False), (1, True), ((0, 2), False), ((-1,), True)):
        compare(lambda: torch.linalg.vector_norm(x.permute(2, 0, 1), ord, dim, keepdim),  # noqa: B023
                lambda: linalg.vector_norm(s.permute(2, 0, 1), ord, dim, keepdim), TOL)  # noqa: B023
    compare(lambda: torch.linalg.vector_norm(x.float(), ord, dtype=torch.float64),
            lambda: linalg.vector_norm(s.to(st.float32), ord, dtype=st.float64), TOL)


@pytest.mark.parametrize("ord", ["fro", "nuc", 2, -2, 1, -1, math.inf, -math.inf])
def test_matrix_norm_matches_torch(ord):
    x = torch.from_numpy(np.random.default_rng(2).standard_normal((3, 4, 5)).astype(np.float32))
    s = st.tensor(x.numpy())
    # (torch's SVD-based norms give kept size-1 dims strides of 1; the layout is the same)
    svd = ord in ("nuc", 2, -2)
    for dim, keepdim in (((-2, -1), False), ((0, 2), not svd), ((2, 0), False)):
        compare(lambda: torch.linalg.matrix_norm(x, ord, dim, keepdim),  # noqa: B023
                lambda: linalg.matrix_norm(s, ord, dim, keepdim), {"float32": (1e-4, 1e-4)})  # noqa: B023
    assert linalg.matrix_norm(s, ord, (0, 2), True).shape == (1, 4, 1)
    e = torch.ones(2, 2, 3)[:, ::2]  # (stepped view)
    compare(lambda: torch.linalg.matrix_norm(e, ord), lambda: linalg.matrix_norm(st.ones(2, 2, 3)[:, ::2], ord), TOL)


def test_norm_errors():
    same_error(lambda: torch.linalg.vector_norm(torch.tensor([1, 2])), lambda: linalg.vector_norm(st.tensor([1, 2])))
    same_error(lambda: torch.linalg.vector_norm(torch.ones(0), float("inf")),
               lambda: linalg.vector_norm(st.ones(0), math.inf))
    same_error(lambda: torch.linalg.matrix_norm(torch.ones(3)), lambda: linalg.matrix_norm(st.ones(3)))
    same_error(lambda: torch.linalg.matrix_norm(torch.ones(3, 3), ord=3), lambda: linalg.matrix_norm(st.ones(3, 3), ord=3))
    same_error(lambda: torch.norm(torch.ones(2, 3, 4), p="nuc"), lambda: R.norm(st.ones(2, 3, 4), p="nuc"))
    assert R.norm(st.tensor([[3.0, 0.0], [0.0, 4.0]]), "nuc").item() == pytest.approx(7.0)
    assert st.tensor([3.0, 4.0]).norm().item() == 5.0
