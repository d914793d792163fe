"""Reductions against PyTorch 2.13 (and NumPy where PyTorch cannot express a layout).

Operands come from ``layouts.specs()``: permuted, stepped, stride-0 expanded,
odd-stride size-1, zero-size and 0-d layouts over one shared buffer. Compared:
result shape, dtype, strides, values (tolerances below, per dtype), indices
exactly, and for errors the builtin class plus PyTorch's first line.

Tolerances (relative, absolute) for float results; integer and bool results
and all indices must be equal:
  float64: 1e-10, 1e-12     float32: 1e-5, 1e-5 (sums of up to 625 terms of size ~3)
  float16: 1e-2, 1e-2 (both libraries accumulate in float32 and round once)
var/std get 10x the relative tolerance (two passes).
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
from oracle_helpers import assert_same_tensor, errors_agree, outcome

DTYPES = ["bool", "uint8", "int8", "int32", "int64", "float16", "float32", "float64"]
FLOATS = ["float16", "float32", "float64"]
TOL = {"float64": (1e-10, 1e-12), "float32": (1e-5, 1e-5), "float16": (1e-2, 1e-2)}


def same_error(t_exc: BaseException | None, s_exc: BaseException | None) -> None:
    """Both raised, with the same builtin class and (except argument-parser TypeErrors) first line."""
    errors_agree(t_exc, s_exc, type_error_line=False, detail=False)


def assert_matches(s: st.Tensor, t: torch.Tensor, scale: float = 1.0) -> None:
    """Same shape, dtype, strides and values (within the dtype's tolerance)."""
    assert_same_tensor(s, t, TOL, scale=scale)


@hs.composite
def dim_args(draw: Any, ndim: int, tuples: bool = True) -> Any:
    """None, an int (sometimes out of range), or a tuple/list (sometimes repeated or empty)."""
    span = max(ndim, 1)
    one = hs.integers(-span - 1, span)
    choices = [hs.none(), hs.integers(-span, span - 1), one]
    if tuples:
        choices.append(hs.lists(hs.integers(-span, span - 1), max_size=ndim + 1).map(tuple))
        choices.append(hs.lists(one, min_size=1, max_size=2))
    return draw(hs.one_of(*choices))


def call(x: Any, op: str, dim: Any, keepdim: bool, **kw: Any) -> Any:
    if dim is None:
        if keepdim and op not in ("prod", "max", "min"):
            return getattr(x, op)(dim=None, keepdim=True, **kw)
        return getattr(x, op)(**kw)
    return getattr(x, op)(dim, keepdim=keepdim, **kw)


# ---------------------------------------------------------------- differential against torch


@settings(max_examples=100, deadline=None)
@given(spec=specs(), dtype=hs.sampled_from(DTYPES), op=hs.sampled_from(["sum", "mean", "prod", "all", "any"]),
       data=hs.data(), keepdim=hs.booleans(), nan=hs.booleans(), seed=hs.integers(0, 2**16))
def test_sum_mean_prod_all_any(spec: Any, dtype: str, op: str, data: Any, keepdim: bool, nan: bool,
                               seed: int) -> None:
    dim = data.draw(dim_args(len(spec.shape), tuples=op != "prod"))
    t, _, s = build_valued(spec, valued_storage(spec, dtype, seed, nan=nan))
    tr, te = outcome(lambda: call(t, op, dim, keepdim))
    sr, se = outcome(lambda: call(s, op, dim, keepdim))
    if dim is None and keepdim and op == "prod":  # Note: PyTorch refuses prod(keepdim=True) without dim
        assert s.prod(keepdim=True).shape == (1,) * len(spec.shape)
        return
    same_error(te, se)
    if te is None:
        assert_matches(sr, tr)


@settings(max_examples=100, deadline=None)
@given(spec=specs(), dtype=hs.sampled_from(["int64", "float16", "float32", "float64"]),
       op=hs.sampled_from(["var", "std"]), data=hs.data(), keepdim=hs.booleans(),
       correction=hs.sampled_from([None, 0, 1, 2, 0.5]), nan=hs.booleans(), seed=hs.integers(0, 2**16))
def test_var_std(spec: Any, dtype: str, op: str, data: Any, keepdim: bool, correction: Any, nan: bool,
                 seed: int) -> None:
    dim = data.draw(dim_args(len(spec.shape)))
    t, _, s = build_valued(spec, valued_storage(spec, dtype, seed, nan=nan))
    kw = {} if correction is None else {"correction": correction}
    tr, te = outcome(lambda: call(t, op, dim, keepdim, **kw))
    sr, se = outcome(lambda: call(s, op, dim, keepdim, **kw))
    same_error(te, se)
    if te is None:
        assert_matches(sr, tr, scale=10.0)


@settings(max_examples=100, deadline=None)
@given(spec=specs(), dtype=hs.sampled_from(DTYPES), op=hs.sampled_from(["max", "min", "argmax", "argmin"]),
       data=hs.data(), keepdim=hs.booleans(), nan=hs.booleans(), seed=hs.integers(0, 2**16))
def test_max_min_argmax_argmin(spec: Any, dtype: str, op: str, data: Any, keepdim: bool, nan: bool, seed: int) -> None:
    """Values, indices (first occurrence; first NaN wins) and the errors of empty reductions."""
    dim = data.draw(dim_args(len(spec.shape), tuples=False))
    t, _, s = build_valued(spec, valued_storage(spec, dtype, seed, nan=nan))
    if dim is None and keepdim and op in ("max", "min"):
        keepdim = False  # Note: PyTorch's max() takes no keepdim; strided's is tested below
    tr, te = outcome(lambda: call(t, op, dim, keepdim))
    sr, se = outcome(lambda: call(s, op, dim, keepdim))
    same_error(te, se)
    if te is not None:
        return
    if isinstance(tr, tuple):
        assert type(sr).__name__ == type(tr).__name__ and sr._fields == ("values", "indices")
        assert_matches(sr.values, tr.values)
        assert_matches(sr.indices, tr.indices)
    else:
        assert_matches(sr, tr)


@settings(max_examples=100, deadline=None)
@given(spec=specs(), dtype=hs.sampled_from(DTYPES), op=hs.sampled_from(["softmax", "log_softmax"]),
       data=hs.data(), to=hs.sampled_from([None, "float32", "float64"]), nan=hs.booleans(),
       seed=hs.integers(0, 2**16))
def test_softmax(spec: Any, dtype: str, op: str, data: Any, to: Any, nan: bool, seed: int) -> None:
    """Values (NaN and +-inf inputs included), dtype= conversion, and dtype/dim errors."""
    ndim = len(spec.shape)
    dim = data.draw(hs.integers(-max(ndim, 1) - 1, max(ndim, 1)))
    t, _, s = build_valued(spec, valued_storage(spec, dtype, seed, nan=nan))
    tr, te = outcome(lambda: getattr(t, op)(dim, dtype=None if to is None else getattr(torch, to)))
    sr, se = outcome(lambda: getattr(s, op)(dim, dtype=to))
    same_error(te, se)
    if te is None:
        assert_matches(sr, tr)


@settings(max_examples=100, deadline=None)
@given(spec=specs(), src=hs.sampled_from(DTYPES), to=hs.sampled_from(DTYPES),
       op=hs.sampled_from(["sum", "mean", "prod"]), keepdim=hs.booleans(), seed=hs.integers(0, 2**16))
def test_dtype_argument(spec: Any, src: str, to: str, op: str, keepdim: bool, seed: int) -> None:
    t, _, s = build_valued(spec, valued_storage(spec, src, seed))
    dim = 0 if spec.shape else None
    tr, te = outcome(lambda: call(t, op, dim, keepdim, dtype=getattr(torch, to)))
    sr, se = outcome(lambda: call(s, op, dim, keepdim, dtype=to))
    same_error(te, se)
    if te is None:
        assert_matches(sr, tr)


# ---------------------------------------------------------------- negative strides: NumPy is the oracle


@pytest.mark.filterwarnings("ignore")
@settings(max_examples=100, deadline=None)
@given(spec=specs(negative=True), dtype=hs.sampled_from(["int64", "float64"]), data=hs.data(),
       keepdim=hs.booleans(), seed=hs.integers(0, 2**16))
def test_negative_strides_against_numpy(spec: Any, dtype: str, data: Any, keepdim: bool, seed: int) -> None:
    _, a, s = build_valued(spec, valued_storage(spec, dtype, seed))
    ndim = len(spec.shape)
    dims = data.draw(hs.lists(hs.integers(0, ndim - 1), unique=True, max_size=ndim).map(tuple)) if ndim else ()
    axis = dims if dims else None
    # (strided adds in PyTorch's order, NumPy pairwise: a cancelling sum differs by the terms' rounding)
    bound = np.finfo(np.float64).eps * a.size * (np.abs(a).max() if a.size else 0.0)
    np.testing.assert_allclose(s.sum(dims or None, keepdim=keepdim).numpy(),
                               np.sum(a, axis=axis, keepdims=keepdim), rtol=1e-12, atol=bound)
    np.testing.assert_array_equal(s.any(dims or None, keepdim=keepdim).numpy(),
                                  np.any(a, axis=axis, keepdims=keepdim))
    if dims and a.size:
        d = dims[0]
        assert s.argmax(d).tolist() == np.argmax(a, axis=d).tolist()
        assert s.min(d).values.tolist() == np.min(a, axis=d).tolist()
    if dtype == "float64" and dims:
        np.testing.assert_allclose(s.var(dims, correction=0).numpy(), np.var(a, axis=dims), rtol=1e-9, atol=1e-12)
        if a.size:
            e = np.exp(a - a.max(axis=dims[0], keepdims=True))
            np.testing.assert_allclose(s.softmax(dims[0]).numpy(), e / e.sum(axis=dims[0], keepdims=True), rtol=1e-12)


# ---------------------------------------------------------------- pinned cases and message texts


def first_lines(fn_t: Any, fn_s: Any) -> tuple[str, str]:
    _, te = outcome(fn_t)
    _, se = outcome(fn_s)
    same_error(te, se)
    return str(te).splitlines()[0], str(se)


def test_error_texts() -> None:
    tx, sx = torch.arange(24.0).reshape(2, 3, 4), st.arange(24.0).reshape(2, 3, 4)
    ti, si = torch.arange(6), st.arange(6)
    te, se = torch.zeros(0, 3), st.zeros(0, 3)
    cases = [
        (lambda: tx.sum(3), lambda: sx.sum(3), "in sum(dim=3) of a tensor of shape (2, 3, 4)"),
        (lambda: tx.sum((0, -3)), lambda: sx.sum((0, -3)), "the dims are (0, 0)"),
        (lambda: ti.mean(), lambda: si.mean(), "t.mean(dtype=strided.float32)"),
        (lambda: tx.mean(dtype=torch.int64), lambda: sx.mean(dtype=st.int64), "dtype=strided.float32"),
        (lambda: te.max(), lambda: se.max(), "shape (0, 3) and no elements"),
        (lambda: te.max(0), lambda: se.max(0), "dim 0 is empty"),
        (lambda: te.argmin(), lambda: se.argmin(), "shape (0, 3)"),
        (lambda: (ti > 2).argmax(), lambda: (si.to(st.bool)).argmax(), "strided.uint8"),
        (lambda: ti.var(), lambda: si.var(), "holds int64"),
        (lambda: ti.softmax(0), lambda: si.softmax(0), "dtype=strided.float32"),
        (lambda: tx.log_softmax(1, dtype=torch.int32), lambda: sx.log_softmax(1, dtype=st.int32), "float tensor"),
    ]
    for fn_t, fn_s, detail in cases:
        first, text = first_lines(fn_t, fn_s)
        assert text.startswith(first + "\n") and detail in text, text


def test_type_errors_where_torch_takes_one_dim() -> None:
    x = st.arange(24.0).reshape(2, 3, 4)
    for op in ("prod", "max", "min", "argmax", "argmin", "softmax"):
        with pytest.raises(TypeError, match=f"{op}\\(\\): argument 'dim' \\(position 1\\) must be int, not tuple"):
            getattr(x, op)((0, 1))
    with pytest.raises(TypeError, match="must be an int or a tuple of ints"):
        x.sum(1.0)
    with pytest.raises(TypeError, match="both 'unbiased' and 'correction'"):
        x.var(1, unbiased=True, correction=1)
    with pytest.raises(TypeError, match="must be Tensor, not list"):
        st.sum([1, 2])


def test_bad_dim_and_keepdim_explain_themselves() -> None:
    """dim=1.5 and keepdim=3: torch's class (TypeError), then the valid choices in this tensor's terms."""
    x, tx = st.arange(24.0).reshape(2, 3, 4), torch.arange(24.0).reshape(2, 3, 4)
    for s_call, t_call, details in [
        (lambda: x.sum(1.5), lambda: tx.sum(1.5), ["shape (2, 3, 4)", "0..2", "-3..-1", "t.sum(dim=1)"]),
        (lambda: x.mean(dim=1.5), lambda: tx.mean(dim=1.5), ["t.mean(dim=(0, 1))"]),
        (lambda: x.sum(0, keepdim=3), lambda: tx.sum(0, keepdim=3), ["keepdim=3", "True", "False"]),
        (lambda: st.sum([1, 2]), lambda: torch.sum([1, 2]), ["strided.tensor(data)"]),
    ]:
        _, te = outcome(t_call)
        _, se = outcome(s_call)
        assert isinstance(te, TypeError) and isinstance(se, TypeError) and isinstance(se, st.StridedError)
        first, *rest = str(se).splitlines()
        assert rest, str(se)
        for text in details:
            assert text in "\n".join(rest), f"{text!r} not in:\n{se}"


def test_return_types_and_module_functions() -> None:
    """Module functions and named-tuple results, each beside torch's own on the same data."""
    data = [[1.0, 5.0, 5.0], [7.0, float("nan"), 0.0]]
    x, tx = st.tensor(data), torch.tensor(data)
    assert isinstance(st.max(x, 1), st.return_types.max)
    for s_res, t_res in [(st.max(x, 1), torch.max(tx, 1)), (st.min(x, dim=1), torch.min(tx, dim=1))]:
        assert_matches(s_res.values, t_res.values)
        assert_matches(s_res.indices, t_res.indices)
        values, indices = s_res  # unpacks like a tuple
        assert indices.tolist() == t_res.indices.tolist()
    pairs = [
        (st.max(x), torch.max(tx)), (st.min(x), torch.min(tx)),
        (st.argmax(x), torch.argmax(tx)), (st.argmin(x, 0, keepdim=True), torch.argmin(tx, 0, keepdim=True)),
        (st.sum(x, 0), torch.sum(tx, 0)), (st.mean(x, (0, 1), keepdim=True), torch.mean(tx, (0, 1), keepdim=True)),
        (st.all(x), torch.all(tx)), (st.any(x.to(st.uint8), 1), torch.any(tx.to(torch.uint8), 1)),
    ]
    two, t_two = st.tensor([1.0, 3.0]), torch.tensor([1.0, 3.0])
    pairs += [
        (st.prod(st.tensor([True, True])), torch.prod(torch.tensor([True, True]))),
        (st.std(two), torch.std(t_two)),
        (st.var(two, unbiased=False), torch.var(t_two, unbiased=False)),
        (st.var(two, False), torch.var(t_two, False)),  # var(bool unbiased) overload
        (st.softmax(st.tensor([1000.0, 1000.0]), 0), torch.softmax(torch.tensor([1000.0, 1000.0]), 0)),
        (st.log_softmax(st.tensor([0.0, -1000.0]), 0), torch.log_softmax(torch.tensor([0.0, -1000.0]), 0)),
    ]
    for s_res, t_res in pairs:
        assert_matches(s_res, t_res)


def test_strided_extensions_and_degenerate_cases() -> None:
    """keepdim without dim (PyTorch refuses it for max/min/prod), dim=() and var's warning."""
    x = st.arange(6.0).reshape(2, 3)
    assert x.max(keepdim=True).shape == (1, 1) and x.prod(keepdim=True).shape == (1, 1)
    assert x.sum(()).shape == () and x.any(()).shape == (2, 3)  # as PyTorch: () is all dims for sum, none for any
    with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):
        assert np.isnan(st.tensor([1.0]).var().item())
    assert st.zeros(0, 3).sum().item() == 0 and st.zeros(0, 3).prod(0).tolist() == [1.0, 1.0, 1.0]
    assert np.isnan(st.zeros(0).mean().item()) and st.zeros(0).all().item() is True


def test_inputs_are_read_in_place() -> None:
    """Expanded and permuted inputs are never copied (the copy ledger stays empty), except
    where NumPy's argmax/argmin need the reduced dim contiguous: that copy is explicit, made
    once the stride-0 dim is read at index 0 (2 * 3 float32, not 5 * 2 * 3)."""
    x = st.arange(12.0).reshape(3, 4).permute(1, 0)[::2].expand(5, 2, 3)
    with st.record_copies() as copies:
        x.sum((0, 2)), x.mean(1), x.var(0), x.softmax(1), x.all(0), x.argmax(0), x.min(0)
    assert copies == []
    with st.record_copies() as copies:
        x.max(1), x.max(2), x.argmin()
    assert [(c.nbytes, c.reason.split(":")[0]) for c in copies] == [
        (24, "max(dim)"), (24, "max(dim)"), (24, "argmin")]
    assert all("contiguous" in c.reason for c in copies)


def test_regression_float16_sum_rounds_once() -> None:
    """float16 sums run in float32 and round once (NumPy's reduce with a float16 out= rounds the
    running sum to float16 between buffers: 25216 instead of 25008 here)."""
    # Tolerance: one float16 ulp of the result (2**-10 relative, ~25 at 25000). The two libraries
    # sum in float32 in different orders, so the rounded float16 may differ by that ulp; the
    # bug this pins (rounding between buffers) is off by 208, about 8 ulps.
    data = (np.random.default_rng(0).random(1_000_000) * 0.05).astype(np.float16)
    s, t = st.from_numpy(data), torch.from_numpy(data)
    ulp = 2.0**-10
    exact = float(data.astype(np.float64).sum())
    assert s.sum().dtype is st.float16
    np.testing.assert_allclose(s.sum().item(), t.sum().item(), rtol=ulp)
    np.testing.assert_allclose(s.sum().item(), exact, rtol=ulp)
    np.testing.assert_allclose(s.reshape(100, 10_000).sum(1).numpy().astype(np.float64),
                               t.reshape(100, 10_000).sum(1).double().numpy(), rtol=1e-3)


@pytest.mark.filterwarnings("error")
def test_no_numpy_warnings_leak() -> None:
    """Overflow, NaN and inf give inf/NaN silently, as in PyTorch; NumPy's RuntimeWarnings stay inside."""
    x = st.tensor([[float("nan"), float("inf"), -float("inf"), 60000.0], [1.0, 2.0, 60000.0, 60000.0]])
    for t in (x, x.to(st.float16)):
        for op in ("sum", "mean", "prod", "max", "min", "argmax", "argmin", "all", "any", "var", "std"):
            for args in ((), (1,), (0,)):
                getattr(t, op)(*args)
        t.softmax(1), t.log_softmax(0), t @ t.t()
    assert x.to(st.float16).sum(1).tolist()[1] == float("inf")
    assert np.isnan(st.zeros(0).mean().item())
