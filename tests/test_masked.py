"""masked_fill(_), masked_select, masked_scatter(_), nonzero, argwhere and where(condition)
against PyTorch on hard layouts (permuted, stepped, expanded, zero-size, 0-d) and broadcast
masks: shape, strides, dtype, values, error class and first line; the whole storage after an
in-place write (a refused write changes nothing); the copy ledger's record of the reading ops."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

import strided as st
from layouts import build_valued, specs, valued_storage
from oracle_helpers import builtin_class, compare, outcome, same_error
from strided.ops.elementwise.unary import where
from strided.ops.indexing.masked import argwhere, masked_fill, masked_scatter, masked_select, nonzero

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
TOL = {"float64": (0, 0), "float32": (0, 0)}


def _pair(spec, dtype="float64", seed=0):
    data = valued_storage(spec, dtype, seed)
    dt, ds = data.copy(), data.copy()
    return build_valued(spec, dt)[0], build_valued(spec, ds)[2], dt, ds


@hs.composite
def mask_case(draw, max_dims=3):
    """A layout and a bool mask whose shape broadcasts with it (sometimes larger, sometimes not
    broadcastable), itself laid out hard (a permuted / expanded mask)."""
    spec = draw(specs(max_dims=max_dims, max_size=4))
    shape = list(spec.shape)
    mshape = [draw(hs.sampled_from([n, n, 1])) for n in shape]
    if draw(hs.integers(0, 4)) == 0:
        mshape = [draw(hs.integers(1, 2))] + mshape  # larger than the tensor
    if shape and draw(hs.integers(0, 8)) == 0:
        mshape[-1] = shape[-1] + 1  # does not broadcast
    mspec = draw(specs(shape=tuple(mshape)))
    return spec, mspec


def _mask(mspec, seed=1):
    data = valued_storage(mspec, "bool", seed)
    t, _, s = build_valued(mspec, data)
    return t, s


def _after_both(spec, call_t, call_s):
    """An in-place op on the same layout in both libraries: same failure (strided's storage
    untouched), or equal storages afterwards."""
    t, s, dt, ds = _pair(spec)
    before = ds.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tr, te = outcome(lambda: call_t(t))
    sr, se = outcome(lambda: call_s(s))
    assert (te is None) == (se is None), f"torch: {te!r}\nstrided: {se!r}"
    if te is not None:
        assert builtin_class(se) is builtin_class(te), (te, se)
        assert str(se).splitlines()[0] == str(te).splitlines()[0]
        np.testing.assert_array_equal(ds, before)
        return
    assert sr is s
    np.testing.assert_array_equal(ds, dt)


@SETTINGS
@given(mask_case(), hs.sampled_from([-2.5, "t"]))
def test_masked_fill_matches_torch(case, value):
    spec, mspec = case
    mt, ms = _mask(mspec)
    vt, vs = (torch.tensor(7.0), st.tensor(7.0)) if value == "t" else (value, value)
    _after_both(spec, lambda t: t.masked_fill_(mt, vt), lambda s: s.masked_fill_(ms, vs))
    t, s, _, _ = _pair(spec)
    compare(lambda: t.masked_fill(mt, vt), lambda: masked_fill(s, ms, vs), TOL)


@SETTINGS
@given(mask_case())
def test_masked_select_and_scatter_match_torch(case):
    spec, mspec = case
    mt, ms = _mask(mspec)
    t, s, _, _ = _pair(spec)
    compare(lambda: t.masked_select(mt), lambda: masked_select(s, ms), TOL)
    src = np.random.default_rng(5).standard_normal(max(ms.numel(), s.numel()) + 1)
    compare(lambda: t.masked_scatter(mt, torch.from_numpy(src)), lambda: masked_scatter(s, ms, st.from_numpy(src)), TOL)
    _after_both(spec, lambda t: t.masked_scatter_(mt, torch.from_numpy(src)),
                lambda s: s.masked_scatter_(ms, st.from_numpy(src)))


@SETTINGS
@given(specs(max_dims=4, max_size=4), hs.sampled_from(["float64", "bool", "int64"]))
def test_nonzero_argwhere_where_match_torch(spec, dtype):
    data = valued_storage(spec, dtype, 3)
    t, _, s = build_valued(spec, data)
    compare(lambda: torch.nonzero(t), lambda: nonzero(s), TOL)
    compare(lambda: torch.argwhere(t), lambda: argwhere(s), TOL)
    pt, ps = torch.nonzero(t, as_tuple=True), nonzero(s, as_tuple=True)
    wt, ws = torch.where(t), where(s)
    assert len(pt) == len(ps) == len(wt) == len(ws)
    for a, b, c, d in zip(pt, ps, wt, ws):
        assert b.shape == tuple(a.shape) and b.stride() == a.stride() and b.dtype is st.int64
        assert b.tolist() == a.tolist() == c.tolist() == d.tolist()


# ---------------------------------------------------------------- errors and details


@pytest.mark.parametrize("call", [
    lambda m, x: x.masked_fill(m.tensor([1, 0, 1, 0]), 1.0),
    lambda m, x: x.masked_fill(m.tensor([True, False, True]), 1.0),
    lambda m, x: x.masked_fill(m.tensor([True] * 4), m.tensor([1.0, 2.0])),
    lambda m, x: x.masked_fill_(m.ones(2, 3, 4, dtype=m.bool), 1.0),
    lambda m, x: x.masked_select(m.ones(4, dtype=m.uint8)),
    lambda m, x: x.masked_scatter_(m.ones(3, 4, dtype=m.bool), m.ones(5)),
    lambda m, x: x.masked_scatter_(m.ones(3, 4, dtype=m.bool), m.ones(12, dtype=m.float64)),
    lambda m, x: x.masked_scatter_(m.tensor([1, 0, 1, 0]), m.ones(12)),
    lambda m, x: m.arange(4).masked_fill_(m.arange(4) > 1, 1e30),
    lambda m, x: m.zeros(3).expand(2, 3).masked_scatter_(m.ones(2, 3, dtype=m.bool), m.ones(6)),
])
def test_errors_match_torch_and_leave_the_target_untouched(call):
    t, s = torch.arange(12.0).reshape(3, 4), st.arange(12.0).reshape(3, 4)
    text = same_error(lambda: call(torch, t), lambda: call(st, s))
    assert len(text.splitlines()) >= 2 and "fix" in text
    assert s.tolist() == np.arange(12.0).reshape(3, 4).tolist()


def test_masked_fill_into_an_expanded_tensor_fills_its_memory_once():
    """PyTorch allows (deprecated) one value into an expanded tensor: so do we."""
    base = st.zeros(3)
    base.expand(2, 3).masked_fill_(st.tensor([[True, False, False], [False, False, True]]), 5.0)
    assert base.tolist() == [5.0, 0.0, 5.0]


def test_masked_fill_value_conversion_as_torch():
    for v in (2.7, -3, True):
        compare(lambda v=v: torch.arange(4).masked_fill(torch.arange(4) > 1, v),
                lambda v=v: st.arange(4).masked_fill(st.arange(4) > 1, v), TOL)
    compare(lambda: torch.arange(4).masked_fill(torch.arange(4) > 1, torch.tensor(2.7)),
            lambda: st.arange(4).masked_fill(st.arange(4) > 1, st.tensor(2.7)), TOL)


def test_writes_through_a_view_land_in_the_base():
    base = st.arange(12.0).reshape(3, 4)
    view = base.t()[::2]  # (2, 3), strides (2, 4)
    view.masked_fill_(view > 5, -1.0)
    view.masked_scatter_(view < 1, st.tensor([100.0, 200.0, 300.0, 400.0]))
    tb = torch.arange(12.0).reshape(3, 4)
    tv = tb.t()[::2]
    tv.masked_fill_(tv > 5, -1.0)
    tv.masked_scatter_(tv < 1, torch.tensor([100.0, 200.0, 300.0, 400.0]))
    assert base.tolist() == tb.tolist()


def test_a_mask_sharing_the_targets_memory_is_read_before_writing():
    x, t = st.tensor([True, False, True, True]), torch.tensor([True, False, True, True])
    x.masked_fill_(x, False)
    t.masked_fill_(t.clone(), False)
    assert x.tolist() == t.tolist()


def test_where_with_one_argument_and_errors():
    assert [c.tolist() for c in where(st.tensor([[0.0, 1.0], [2.0, 0.0]]))] == [[0, 1], [1, 0]]
    with pytest.raises(TypeError, match="missing required argument"):
        where(st.tensor([True]), 1.0)
    assert where(st.tensor([True, False]), 1.0, 0.0).tolist() == [1.0, 0.0]


def test_zero_d_and_empty():
    for v in (0.0, 3.0):
        compare(lambda v=v: torch.nonzero(torch.tensor(v)), lambda v=v: nonzero(st.tensor(v)), TOL)
        (a,), (b,) = torch.nonzero(torch.tensor(v), as_tuple=True), nonzero(st.tensor(v), as_tuple=True)
        assert a.tolist() == b.tolist() and b.shape == tuple(a.shape)
    compare(lambda: torch.zeros(0, 3).nonzero(), lambda: st.zeros(0, 3).nonzero(), TOL)
    compare(lambda: torch.tensor(3.0).masked_select(torch.tensor([True, False])),
            lambda: st.tensor(3.0).masked_select(st.tensor([True, False])), TOL)
    compare(lambda: torch.zeros(0, 2).masked_fill(torch.tensor(True), 1.0),
            lambda: st.zeros(0, 2).masked_fill(st.tensor(True), 1.0), TOL)


def test_reading_ops_are_recorded_as_copies():
    x = st.arange(12.0).reshape(3, 4).t()
    mask = x > 4
    with st.record_copies() as copies:
        picked = x.masked_select(mask)
        nz = x.nonzero()
        x.argwhere()
    assert [c.reason.split(":")[0] for c in copies] == ["masked_select", "nonzero", "argwhere"]
    assert copies[0].nbytes == picked.numel() * 4 == 7 * 4
    assert copies[1].nbytes == nz.numel() * 8 == 11 * 2 * 8
    assert "11 non-zero" in copies[1].reason


def test_methods_are_installed():
    x = st.arange(6.0)
    for name in ["masked_fill", "masked_fill_", "masked_select", "masked_scatter", "masked_scatter_",
                 "nonzero", "argwhere"]:
        assert callable(getattr(x, name))
