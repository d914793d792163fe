"""sort, argsort, msort, topk, kthvalue, unique, unique_consecutive, searchsorted, bucketize against
PyTorch 2.13, on the hard layouts of ``layouts.specs()`` (permuted, stepped, expanded, zero-size, 0-d)
with NaN/inf and many ties (the integer data holds 11 distinct values).

Sort indices are compared exactly, unstable sorts' too (PyTorch's CPU order of ties, see
tests/test_torch_sort_order.py); where PyTorch leaves them unspecified (topk, kthvalue) the values
are compared exactly and the indices must point at those values. Errors: class, first line, and a detail line.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from layouts import build_valued, specs, valued_storage
from oracle_helpers import errors_agree, outcome
from sort_oracle import DTYPES, assert_matches, dim_of, gathers_values
from strided.ops.shape.searching import bucketize, searchsorted
from strided.ops.shape.sets import unique, unique_consecutive
from strided.ops.shape.sorting import argsort, kthvalue, msort, sort, topk

SETTINGS = settings(max_examples=60, deadline=None)


@SETTINGS
@given(spec=specs(), dtype=hs.sampled_from(DTYPES), data=hs.data(), descending=hs.booleans(),
       stable=hs.booleans(), nan=hs.booleans(), seed=hs.integers(0, 2**16))
def test_sort_and_argsort(spec: Any, dtype: str, data: Any, descending: bool, stable: bool, nan: bool,
                          seed: int) -> None:
    dim = dim_of(data, len(spec.shape))
    t, arr, s = build_valued(spec, valued_storage(spec, dtype, seed, nan=nan))
    tr, te = outcome(lambda: t.sort(dim=dim, descending=descending, stable=stable))
    sr, se = outcome(lambda: s.sort(dim=dim, descending=descending, stable=stable))
    errors_agree(te, se, type_error_line=False)
    if te is not None:
        return
    assert type(sr).__name__ == "sort" and sr._fields == ("values", "indices")
    assert_matches(sr.values, tr.values, exact=True)
    # unstable too: PyTorch's CPU order of ties (GCC's std::sort), which strided reproduces
    assert_matches(sr.indices, tr.indices)
    ai = argsort(s, dim=dim, descending=descending, stable=stable)
    assert_matches(ai, t.argsort(dim=dim, descending=descending, stable=stable))


def test_sort_nan_and_ties_follow_pytorch() -> None:
    x = [3.0, float("nan"), 1.0, float("nan"), 3.0, -0.0, 0.0]
    for descending in (False, True):
        s = sort(st.tensor(x), descending=descending, stable=True)
        t = torch.tensor(x).sort(descending=descending, stable=True)
        assert_matches(s.values, t.values, exact=True)
        assert_matches(s.indices, t.indices)
    assert np.isnan(sort(st.tensor(x), descending=True).values.numpy()[:2]).all()


def test_msort_is_sort_along_dim_0() -> None:
    a = np.array([[3.0, 1.0], [np.nan, 0.5], [2.0, 2.0]], dtype=np.float32)
    s = st.from_numpy(a).T.contiguous().T  # a column-major layout
    t = torch.from_numpy(a.copy(order="F"))
    assert_matches(msort(s), t.msort(), exact=True)
    assert_matches(msort(st.tensor(1.5)), torch.tensor(1.5).msort(), exact=True)  # 0-d: itself


@SETTINGS
@given(spec=specs(), dtype=hs.sampled_from(DTYPES), data=hs.data(), largest=hs.booleans(),
       sorted_=hs.booleans(), nan=hs.booleans(), seed=hs.integers(0, 2**16))
def test_topk(spec: Any, dtype: str, data: Any, largest: bool, sorted_: bool, nan: bool, seed: int) -> None:
    ndim = len(spec.shape)
    dim = dim_of(data, ndim)
    n = spec.shape[dim % ndim] if ndim and -ndim <= dim < ndim else 1
    k = data.draw(hs.integers(-1, n + 1))
    t, arr, s = build_valued(spec, valued_storage(spec, dtype, seed, nan=nan))
    tr, te = outcome(lambda: t.topk(k, dim, largest, sorted_))
    sr, se = outcome(lambda: s.topk(k, dim, largest, sorted_))
    errors_agree(te, se, type_error_line=False)
    if te is not None:
        return
    assert type(sr).__name__ == "topk"
    d = dim % max(ndim, 1)
    tv = tr.values
    if not sorted_ and ndim:  # PyTorch's order is unspecified: compare as ordered
        tv = tv.sort(d, descending=largest).values
    assert_matches(sr.values, tv, exact=True)
    assert sr.indices.stride() == tr.indices.stride() and sr.indices.dtype is st.int64
    gathers_values(arr, d, sr.values.numpy(), sr.indices.numpy())
    if ndim:  # k distinct positions
        idx = np.sort(sr.indices.numpy(), axis=d)
        assert (np.diff(idx, axis=d) > 0).all()


@SETTINGS
@given(spec=specs(), dtype=hs.sampled_from(DTYPES), data=hs.data(), keepdim=hs.booleans(), nan=hs.booleans(),
       seed=hs.integers(0, 2**16))
def test_kthvalue(spec: Any, dtype: str, data: Any, keepdim: bool, nan: bool, seed: int) -> None:
    ndim = len(spec.shape)
    dim = dim_of(data, ndim)
    n = spec.shape[dim % ndim] if ndim and -ndim <= dim < ndim else 1
    k = data.draw(hs.integers(0, n + 1))
    t, arr, s = build_valued(spec, valued_storage(spec, dtype, seed, nan=nan))
    tr, te = outcome(lambda: t.kthvalue(k, dim, keepdim))
    sr, se = outcome(lambda: kthvalue(s, k, dim, keepdim))
    errors_agree(te, se, type_error_line=False)
    if te is not None:
        return
    assert type(sr).__name__ == "kthvalue"
    assert_matches(sr.values, tr.values, exact=True)
    assert sr.indices.shape == tuple(tr.indices.shape) and sr.indices.stride() == tr.indices.stride()
    d = dim % max(ndim, 1)
    if ndim:
        v, i = sr.values.numpy(), sr.indices.numpy()
        if not keepdim:
            v, i = np.expand_dims(v, d), np.expand_dims(i, d)
        gathers_values(arr, d, v, i)


def test_topk_kthvalue_errors_name_k_and_the_size() -> None:
    x = st.zeros((3, 4))
    with pytest.raises(RuntimeError, match=r"^selected index k out of range") as info:
        topk(x, 5)
    assert "k is 5, but dim 1" in str(info.value)
    with pytest.raises(RuntimeError, match=r"kthvalue\(\): selected number k out of range for dimension 1"):
        kthvalue(x, 0)
    with pytest.raises(IndexError, match=r"^Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"):
        sort(x, 2)
    with pytest.raises(TypeError, match="argument 'k'"):
        topk(x, 1.5)
    with pytest.raises(RuntimeError, match="topk does not support bool"):
        topk(st.zeros(3, dtype=st.bool), 1)
    with pytest.raises(NotImplementedError, match="\"kthvalue_cpu\" not implemented for 'Bool'"):
        kthvalue(st.zeros(3, dtype=st.bool), 1)


# ---------------------------------------------------------------- unique


@SETTINGS
@given(spec=specs(max_dims=3), dtype=hs.sampled_from(DTYPES), data=hs.data(), nan=hs.booleans(),
       inverse=hs.booleans(), counts=hs.booleans(), consecutive=hs.booleans(), seed=hs.integers(0, 2**16))
def test_unique(spec: Any, dtype: str, data: Any, nan: bool, inverse: bool, counts: bool, consecutive: bool,
                seed: int) -> None:
    ndim = len(spec.shape)
    # PyTorch's unique(dim=) orders rows holding NaN inconsistently: slices are compared without NaN
    dim = data.draw(hs.one_of(hs.none(), hs.integers(-ndim - 1, ndim))) if ndim else None
    if dim is not None:
        nan = False
    t, _, s = build_valued(spec, valued_storage(spec, dtype, seed, nan=nan))
    kw = {"return_inverse": inverse, "return_counts": counts, "dim": dim}
    if consecutive:
        tr, te = outcome(lambda: t.unique_consecutive(**kw))
        sr, se = outcome(lambda: unique_consecutive(s, **kw))
    else:
        tr, te = outcome(lambda: t.unique(**kw))
        sr, se = outcome(lambda: unique(s, **kw))
    errors_agree(te, se, type_error_line=False)
    if te is not None:
        return
    if not (inverse or counts):
        tr, sr = (tr,), (sr,)
    assert isinstance(sr, tuple) and len(sr) == len(tr)
    for i, (a, b) in enumerate(zip(sr, tr)):
        if i == 1 and inverse and dim is None:
            same_inverse(sr[0], a, b)
        else:
            assert_matches(a, b, exact=True)


def same_inverse(out: st.Tensor, s_inv: st.Tensor, t_inv: torch.Tensor) -> None:
    """unique's inverse: PyTorch's exactly where the element is a number; at NaN elements PyTorch's
    numbering follows its unstable sort, so strided's need only point at distinct NaN entries."""
    assert s_inv.shape == tuple(t_inv.shape) and s_inv.stride() == t_inv.stride() and s_inv.dtype is st.int64
    si, ti = s_inv.numpy().reshape(-1), t_inv.numpy().reshape(-1)
    o = out.numpy()
    nan = np.isnan(o[si]) if o.dtype.kind == "f" and si.size else np.zeros(si.shape, bool)
    np.testing.assert_array_equal(si[~nan], ti[~nan])
    assert np.array_equal(np.sort(si[nan]), np.sort(ti[nan]))


def test_unique_keeps_each_nan_and_sorts_with_sorted_false() -> None:
    x = [3.0, float("nan"), 1.0, float("nan"), 3.0]
    s = unique(st.tensor(x), sorted=False, return_inverse=True, return_counts=True)
    t = torch.tensor(x).unique(sorted=False, return_inverse=True, return_counts=True)
    assert_matches(s[0], t[0], exact=True)
    assert_matches(s[2], t[2], exact=True)
    same_inverse(s[0], s[1], t[1])


def test_unique_numbers_many_nans_in_order() -> None:
    rng = np.random.default_rng(0)
    x = rng.integers(0, 5, 300).astype(np.float32)
    x[rng.random(300) < 0.3] = np.nan
    s = unique(st.from_numpy(x), return_inverse=True, return_counts=True)
    t = torch.from_numpy(x).unique(return_inverse=True, return_counts=True)
    assert_matches(s[0], t[0], exact=True)
    assert_matches(s[2], t[2], exact=True)
    same_inverse(s[0], s[1], t[1])
    nans = s[1].numpy()[np.isnan(x)]
    assert (np.diff(nans) == 1).all()  # numbered in the order the NaNs appear


@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_unique_of_a_large_transpose(dtype) -> None:
    """A permuted input past blocked.row_major's threshold (flattened by the blocked copy): runs,
    values, inverse and counts as PyTorch's, in row-major order of the transposed view."""
    rng = np.random.default_rng(1)
    base = rng.integers(0, 3, (90, 70)).astype(dtype)
    base[::3] = base[1::3]  # (equal neighbours along the rows of the transpose too)
    if dtype == np.float32:
        base[rng.random(base.shape) < 0.05] = np.nan
        base[base == 0] = -0.0
    x = base.T
    for kw in ({}, {"return_inverse": True, "return_counts": True}):
        s = unique_consecutive(st.from_numpy(x), **kw)
        t = torch.from_numpy(x).unique_consecutive(**kw)
        for a, b in zip(s if kw else (s,), t if kw else (t,)):
            assert_matches(a, b, exact=True)
    s = unique(st.from_numpy(x), return_counts=True)
    t = torch.from_numpy(x).unique(return_counts=True)
    assert_matches(s[0], t[0], exact=True)
    assert_matches(s[1], t[1], exact=True)


def test_methods_and_functions() -> None:
    """The Tensor methods are installed by these modules; the functions take PyTorch's keywords."""
    owners = {"sort": "shape.sorting", "argsort": "shape.sorting", "msort": "shape.sorting",
              "topk": "shape.sorting", "kthvalue": "shape.sorting", "unique": "shape.sets",
              "unique_consecutive": "shape.sets", "cumsum": "reductions.scans", "cumprod": "reductions.scans",
              "cumsum_": "reductions.scans", "cumprod_": "reductions.scans", "cummax": "reductions.scans",
              "cummin": "reductions.scans", "diff": "reductions.scans"}
    for name, module in owners.items():
        assert getattr(st.Tensor, name).__module__ == f"strided.ops.{module}", name
    assert not hasattr(st.Tensor, "searchsorted") and not hasattr(torch.Tensor, "searchsorted")
    seq = st.tensor([1.0, 2.0, 3.0])
    assert searchsorted(seq, input=st.tensor([2.0]), side="right").tolist() == [2]
    assert bucketize(input=st.tensor([2.0]), boundaries=seq).tolist() == [1]
    assert sort(st.tensor([2, 1]), dim=0, descending=True, stable=True).indices.tolist() == [0, 1]
    with pytest.raises(TypeError):
        sort(st.tensor([2, 1]), 0, True, True)  # stable is keyword-only, as in PyTorch


def test_unique_errors() -> None:
    errors_agree(*[outcome(lambda m=m: m.ones((2, 0)).unique(dim=0))[1] for m in (torch, st)], type_error_line=False)
    errors_agree(*[outcome(lambda m=m: m.ones((2, 3)).unique(dim=2))[1] for m in (torch, st)], type_error_line=False)
    errors_agree(*[outcome(lambda m=m: m.tensor(1).unique(dim=0))[1] for m in (torch, st)], type_error_line=False)


# ---------------------------------------------------------------- searchsorted / bucketize


@SETTINGS
@given(spec=specs(min_dims=1, max_dims=3), dtype=hs.sampled_from(["int32", "int64", "float32", "float64"]),
       data=hs.data(), right=hs.booleans(), narrow=hs.booleans(), use_sorter=hs.booleans(),
       seed=hs.integers(0, 2**16))
def test_searchsorted(spec: Any, dtype: str, data: Any, right: bool, narrow: bool, use_sorter: bool,
                      seed: int) -> None:
    """values laid out as the spec says; sequences 1-D or batched over values' leading dims."""
    t_vals, _, s_vals = build_valued(spec, valued_storage(spec, dtype, seed, nan=dtype.startswith("float")))
    batched = data.draw(hs.booleans())
    n = data.draw(hs.integers(0, 6))
    lead = tuple(spec.shape[:-1]) if batched else ()
    if batched and data.draw(hs.booleans()):
        lead = lead + (1,)  # a leading-dims mismatch: PyTorch's RuntimeError
    rng = np.random.default_rng(seed)
    raw = (rng.integers(-6, 7, lead + (n,)) * (1.5 if dtype.startswith("float") else 1)).astype(dtype)
    seq = np.sort(raw, axis=-1)
    kw: dict[str, Any] = {"right": right, "out_int32": narrow}
    if use_sorter:
        order = rng.permuted(np.broadcast_to(np.arange(n), raw.shape).copy(), axis=-1) if raw.ndim else None
        unsorted = np.take_along_axis(seq, np.argsort(order, axis=-1), axis=-1)
        t_seq, s_seq = torch.from_numpy(unsorted.copy()), st.from_numpy(unsorted.copy())
        t_kw = dict(kw, sorter=torch.from_numpy(order.copy()))
        s_kw = dict(kw, sorter=st.from_numpy(order.copy()))
    else:
        t_seq, s_seq = torch.from_numpy(seq.copy()), st.from_numpy(seq.copy())
        t_kw = s_kw = kw
    tr, te = outcome(lambda: torch.searchsorted(t_seq, t_vals, **t_kw))
    sr, se = outcome(lambda: searchsorted(s_seq, s_vals, **s_kw))
    errors_agree(te, se, type_error_line=False)
    if te is None:
        assert_matches(sr, tr)
    if not batched and not use_sorter:
        assert_matches(bucketize(s_vals, s_seq, right=right, out_int32=narrow),
                       torch.bucketize(t_vals, t_seq, right=right, out_int32=narrow))


def test_searchsorted_scalars_sides_and_errors() -> None:
    seq = [1.0, 2.0, 2.0, 3.0]
    for kw in ({}, {"right": True}, {"side": "right"}, {"side": "left"}):
        assert_matches(searchsorted(st.tensor(seq), 2.0, **kw), torch.searchsorted(torch.tensor(seq), 2.0, **kw))
    assert_matches(bucketize(2, st.tensor(seq)), torch.bucketize(2, torch.tensor(seq)))
    nan = float("nan")
    assert_matches(searchsorted(st.tensor(seq), st.tensor([nan, 0.0])),
                   torch.searchsorted(torch.tensor(seq), torch.tensor([nan, 0.0])))
    cases = [
        ((seq,), (2.0,), {"side": "left", "right": True}),
        ((seq,), (2.0,), {"side": "middle"}),
        (([seq, seq],), (2.0,), {}),
        (([seq, seq],), ([1.0, 2.0],), {}),
        ((seq,), ([1.0],), {"sorter": [0, 1, 2]}),
        ((seq,), ([1.0],), {"sorter": [0, 1, 2, 4]}),
    ]
    for (sq,), (v,), kw in cases:
        t_kw = {k: torch.tensor(x) if k == "sorter" else x for k, x in kw.items()}
        s_kw = {k: st.tensor(x) if k == "sorter" else x for k, x in kw.items()}
        tv = torch.tensor(v) if isinstance(v, list) else v
        sv = st.tensor(v) if isinstance(v, list) else v
        errors_agree(outcome(lambda: torch.searchsorted(torch.tensor(sq), tv, **t_kw))[1],  # noqa: B023
                   outcome(lambda: searchsorted(st.tensor(sq), sv, **s_kw))[1], type_error_line=False)  # noqa: B023
    errors_agree(outcome(lambda: torch.searchsorted(torch.tensor(seq), torch.tensor([1.0]),
                                                  sorter=torch.tensor([0, 1, 2, 3], dtype=torch.int32)))[1],
               outcome(lambda: searchsorted(st.tensor(seq), st.tensor([1.0]),
                                            sorter=st.tensor([0, 1, 2, 3], dtype=st.int32)))[1], type_error_line=False)
    errors_agree(outcome(lambda: torch.bucketize(torch.tensor([1.0]), torch.tensor([seq])))[1],
               outcome(lambda: bucketize(st.tensor([1.0]), st.tensor([seq])))[1], type_error_line=False)


# ---------------------------------------------------------------- the copy ledger


def test_every_result_is_a_recorded_copy() -> None:
    x = st.from_numpy(np.arange(12, dtype=np.float32)[::-1].copy()).reshape(3, 4).T  # permuted (4, 3)
    calls = {
        "sort": lambda: sort(x, 0), "argsort": lambda: argsort(x), "msort": lambda: msort(x),
        "topk": lambda: topk(x, 2), "kthvalue": lambda: kthvalue(x, 1), "unique": lambda: unique(x),
        "unique_consecutive": lambda: unique_consecutive(x),
        "searchsorted": lambda: searchsorted(st.tensor([1.0, 5.0]), x),
        "bucketize": lambda: bucketize(x, st.tensor([1.0, 5.0])),
    }
    seq = st.tensor([1.0, 5.0])
    calls["searchsorted"] = lambda: searchsorted(seq, x)
    calls["bucketize"] = lambda: bucketize(x, seq)
    for name, call in calls.items():
        with st.record_copies() as copies:
            out = call()
        assert len(copies) == 1, (name, copies)
        first = out[0] if isinstance(out, tuple) else out
        made = out[:2] if name in ("sort", "topk", "kthvalue") else (first,)  # a pair: both tensors' bytes
        assert copies[0].nbytes == sum(t.numel() * t.dtype.itemsize for t in made)
        assert copies[0].shape == first.shape
        assert copies[0].reason.startswith(f"{name}: ")
        assert not st.shares_memory(first, x)
    with st.record_copies() as copies:
        sort(x, 0)
    assert "(4, 3) float32 tensor ordered along dim 0" in copies[0].reason
    assert copies[0].nbytes == 12 * 4 + 12 * 8  # float32 values and int64 indices
    with st.watch() as w:
        sort(x, 0)
    assert w.allocated_bytes == 12 * 4 + 12 * 8
