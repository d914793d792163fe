"""cumsum, cumprod, cumsum_, cumprod_, cummax, cummin, diff against PyTorch 2.13 on the hard layouts
of ``layouts.specs()`` (permuted, stepped, expanded, zero-size, 0-d), with NaN/inf and ties.

cumsum/cumprod accumulate as PyTorch's CPU kernel does (float32 in float64, float16 in float32), so
values agree exactly; cummax/cummin indices are PyTorch's (last tie, NaN sticks); diff's strides are
PyTorch's. In-place scans: the same result in the target, and a refused target left untouched.
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
from sort_oracle import DTYPES, assert_matches, dim_of
from strided.ops.reductions.scans import cummax, cummin, cumprod, cumsum, cumsum_, diff

SETTINGS = settings(max_examples=60, deadline=None)


@SETTINGS
@given(spec=specs(), dtype=hs.sampled_from(DTYPES), data=hs.data(), op=hs.sampled_from(["cumsum", "cumprod"]),
       to=hs.sampled_from([None, None, "int64", "float32", "float64", "int16"]), nan=hs.booleans(),
       seed=hs.integers(0, 2**16))
def test_cumsum_cumprod(spec: Any, dtype: str, data: Any, op: str, to: Any, nan: bool, seed: int) -> None:
    dim = dim_of(data, len(spec.shape))
    t, _, s = build_valued(spec, valued_storage(spec, dtype, seed, nan=nan))
    if to is not None and dtype.startswith("float") and not to.startswith("float"):
        nan = False  # NaN converted to an integer is undefined behaviour in both libraries
        t, _, s = build_valued(spec, valued_storage(spec, dtype, seed, nan=False))
    tkw = {} if to is None else {"dtype": getattr(torch, to)}
    skw = {} if to is None else {"dtype": getattr(st, to, to)}
    tr, te = outcome(lambda: getattr(t, op)(dim, **tkw))
    sr, se = outcome(lambda: getattr(s, op)(dim, **skw))
    errors_agree(te, se, type_error_line=False)
    if te is None:
        assert_matches(sr, tr, exact=dtype != "float16" and op == "cumsum")


@SETTINGS
@given(spec=specs(), dtype=hs.sampled_from(DTYPES), data=hs.data(), op=hs.sampled_from(["cumsum_", "cumprod_"]),
       nan=hs.booleans(), seed=hs.integers(0, 2**16))
def test_inplace_scans(spec: Any, dtype: str, data: Any, op: str, nan: bool, seed: int) -> None:
    """Each library works on its own copy of the same data; a refused target is left untouched."""
    dim = dim_of(data, len(spec.shape))
    t, _, _ = build_valued(spec, valued_storage(spec, dtype, seed, nan=nan))
    storage = valued_storage(spec, dtype, seed, nan=nan)
    _, _, s = build_valued(spec, storage)
    before = storage.copy()
    tr, te = outcome(lambda: getattr(t, op)(dim))
    sr, se = outcome(lambda: getattr(s, op)(dim))
    if te is None and isinstance(se, st.OverlapWriteError):
        # Note: a target whose elements overlap (not by stride 0) is refused, as add_ refuses it;
        # PyTorch writes it in an order that decides the result
        np.testing.assert_array_equal(storage, before)
        return
    errors_agree(te, se, type_error_line=False)
    if te is None:
        assert sr is s
        assert_matches(s, t, exact=False)
    else:
        np.testing.assert_array_equal(storage, before)


def test_inplace_scan_dtype_must_be_its_own() -> None:
    t, s = torch.tensor([1.0, 2.0]), st.tensor([1.0, 2.0])
    errors_agree(outcome(lambda: t.cumsum_(0, dtype=torch.float64))[1],
               outcome(lambda: cumsum_(s, 0, dtype=st.float64))[1], type_error_line=False)
    assert s.tolist() == [1.0, 2.0]
    errors_agree(outcome(lambda: torch.tensor([1, 2]).cumsum(0, dtype=torch.bool))[1],
               outcome(lambda: cumsum(st.tensor([1, 2]), 0, dtype=st.bool))[1], type_error_line=False)


@SETTINGS
@given(spec=specs(), dtype=hs.sampled_from(DTYPES), data=hs.data(), op=hs.sampled_from(["cummax", "cummin"]),
       nan=hs.booleans(), seed=hs.integers(0, 2**16))
def test_cummax_cummin(spec: Any, dtype: str, data: Any, op: str, nan: bool, seed: int) -> None:
    dim = dim_of(data, len(spec.shape))
    t, _, s = build_valued(spec, valued_storage(spec, dtype, seed, nan=nan))
    tr, te = outcome(lambda: getattr(t, op)(dim))
    sr, se = outcome(lambda: (cummax if op == "cummax" else cummin)(s, dim))
    if te is None and isinstance(se, IndexError) and 0 in spec.shape:
        return  # Note: PyTorch checks no dim of an empty tensor; strided does
    errors_agree(te, se, type_error_line=False)
    if te is None:
        assert type(sr).__name__ == op and sr._fields == ("values", "indices")
        assert_matches(sr.values, tr.values, exact=True)
        assert_matches(sr.indices, tr.indices)


def test_cummax_ties_take_the_last_and_nan_sticks() -> None:
    x = [1.0, 3.0, 1.0, 3.0, float("nan"), 5.0, float("nan"), 0.0]
    for op in ("cummax", "cummin"):
        sr, tr = getattr(st.tensor(x), op)(0), getattr(torch.tensor(x), op)(0)
        assert sr.indices.tolist() == tr.indices.tolist() == (
            [0, 1, 1, 3, 4, 4, 6, 6] if op == "cummax" else [0, 0, 2, 2, 4, 4, 6, 6])


@SETTINGS
@given(spec=specs(), dtype=hs.sampled_from(DTYPES), data=hs.data(), n=hs.integers(-1, 3),
       pre=hs.sampled_from([None, "same", "float64", "rank"]), post=hs.sampled_from([None, "same", "short"]),
       nan=hs.booleans(), seed=hs.integers(0, 2**16))
def test_diff(spec: Any, dtype: str, data: Any, n: int, pre: Any, post: Any, nan: bool, seed: int) -> None:
    ndim = len(spec.shape)
    dim = dim_of(data, ndim)
    t, _, s = build_valued(spec, valued_storage(spec, dtype, seed, nan=nan))
    extra_t: dict[str, Any] = {}
    extra_s: dict[str, Any] = {}
    d = dim % ndim if ndim and -ndim <= dim < ndim else 0
    for name, kind in (("prepend", pre), ("append", post)):
        if kind is None or not ndim:
            continue
        shape = list(spec.shape)
        shape[d] = 2
        if kind == "rank":
            shape = shape[1:]
        if kind == "short" and ndim > 1:
            shape[(d + 1) % ndim] += 1  # a mismatch off the differencing dim
        part = np.arange(int(np.prod(shape))).reshape(shape).astype(dtype if kind != "float64" else "float64")
        extra_t[name] = torch.from_numpy(part.copy())
        extra_s[name] = st.from_numpy(part.copy())
    tr, te = outcome(lambda: t.diff(n, dim, **extra_t))
    sr, se = outcome(lambda: diff(s, n, dim, **extra_s))
    errors_agree(te, se, type_error_line=False)
    if te is None:
        assert_matches(sr, tr, exact=True)
        assert not st.shares_memory(sr, s)


def test_diff_errors() -> None:
    errors_agree(outcome(lambda: torch.tensor(1.0).diff())[1], outcome(lambda: st.tensor(1.0).diff())[1],
                 type_error_line=False)
    with pytest.raises(TypeError, match="argument 'prepend' must be Tensor, not float"):
        diff(st.zeros(3), prepend=1.0)


def test_every_result_is_a_recorded_copy() -> None:
    x = st.from_numpy(np.arange(12, dtype=np.float32)).reshape(3, 4).T  # permuted (4, 3)
    for name, call in {"cumsum": lambda: cumsum(x, 0), "cumprod": lambda: cumprod(x, 1),
                       "cummax": lambda: cummax(x, 0), "cummin": lambda: cummin(x, 0),
                       "diff": lambda: diff(x, 2, 0)}.items():
        with st.record_copies() as copies:
            out = call()
        first = out[0] if isinstance(out, tuple) else out
        assert len(copies) == 1 and copies[0].reason.startswith(f"{name}: "), (name, copies)
        assert copies[0].nbytes == first.numel() * (4 + 8 if name in ("cummax", "cummin") else 4)
    small = st.tensor([1, 2], dtype=st.int8)
    with st.record_copies() as copies:
        cumsum(small, 0)
    assert copies[0].reason.endswith("into new int64 memory") and copies[0].nbytes == 16


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
@pytest.mark.parametrize("op", ["cummax", "cummin"])
def test_cummax_cummin_along_rows_in_runs(dtype: str, op: str) -> None:
    """Along each row's contiguous run (the compiled kernel walks a row in runs of unchanged state,
    an element that takes over starting the next): rows counts around multiples of eight, row
    lengths 1 to 300, ties, NaNs of both signs after numbers and after NaNs, -0.0 and 0.0, rising
    rows (every element takes over): PyTorch's values (their bits) and indices."""
    rng = np.random.default_rng(8)
    for rows, n in ((8, 1), (8, 2), (9, 7), (16, 33), (23, 300), (7, 64), (64, 5), (3, -50)):
        if n < 0:  # (rising and falling rows)
            a = np.stack([np.arange(-n), np.arange(-n)[::-1], np.arange(-n) // 3]).astype(dtype)
        elif dtype.startswith("float"):
            a = rng.standard_normal((rows, n)).astype(dtype)
            pick = rng.random((rows, n)) < 0.6
            a[pick] = rng.choice(np.array([-1.5, 0.0, -0.0, 2.0, 2.0, np.nan, -np.nan, 7.0], dtype), int(pick.sum()))
        else:
            a = rng.integers(-3, 4, (rows, n)).astype(dtype)
        got = getattr(st, op)(st.from_numpy(a.copy()), 1)
        want = getattr(torch, op)(torch.from_numpy(a.copy()), 1)
        assert got.indices.numpy().tolist() == want.indices.numpy().tolist(), (rows, n)
        assert got.values.numpy().tobytes() == want.values.numpy().tobytes(), (rows, n)
