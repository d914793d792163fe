"""median, nanmedian, quantile, nanquantile, mode, bincount, histc and isin against torch: values,
indices, dtypes, shapes, strides, gradients, errors (class and first line)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from oracle_helpers import assert_same_tensor, case, compare, same_error

TOL = {"float32": (1e-6, 1e-6), "float64": (1e-12, 1e-12)}
RNG = np.random.default_rng(2)


def both(a: np.ndarray, grad: bool = False):
    t, s = torch.from_numpy(a.copy()), st.from_numpy(a.copy())
    if grad:
        t.requires_grad_()
        s.requires_grad_()
    return t, s


def data(*shape: int, dtype: str = "float64", ties: bool = False, nan: bool = False, layout: str = "c") -> np.ndarray:
    a = RNG.integers(0, 4, shape).astype(dtype) if ties else RNG.standard_normal(shape).astype(dtype)
    if nan:
        a.reshape(-1)[:: 3] = np.nan
    return np.ascontiguousarray(a.T).T if layout == "t" else a


CALLS = [
    ("median", lambda L, x: L.median(x)),
    ("median_dim", lambda L, x: L.median(x, 1).values),
    ("median_keep", lambda L, x: x.median(0, keepdim=True).values),
    ("nanmedian", lambda L, x: L.nanmedian(x)),
    ("nanmedian_dim", lambda L, x: x.nanmedian(-1).values),
    ("quantile", lambda L, x: L.quantile(x, 0.3)),
    ("quantile_dim", lambda L, x: x.quantile(0.7, dim=1)),
    ("quantile_vec", lambda L, x: L.quantile(x, L.tensor([0.0, 0.25, 1.0], dtype=x.dtype), dim=0)),
    ("quantile_vec_keep", lambda L, x: L.quantile(x, L.tensor([0.5, 0.9], dtype=x.dtype), dim=1, keepdim=True)),
    ("quantile_all_keep", lambda L, x: L.quantile(x, L.tensor([0.5, 0.9], dtype=x.dtype), keepdim=True)),
    ("nanquantile", lambda L, x: L.nanquantile(x, 0.4, dim=0)),
    ("mode", lambda L, x: L.mode(x, 1).values),
]


@pytest.mark.parametrize(("name", "call"), CALLS, ids=[c[0] for c in CALLS])
def test_values_match_torch(name, call):
    for layout, dtype, nan in itertools.product(
            ["c", "t"],
            ["float32", "float64"],
            [False, True]):
        with case(layout=layout, dtype=dtype, nan=nan):
            _values_match_torch(name, call, nan, dtype, layout)


def _values_match_torch(name, call, nan, dtype, layout) -> None:
    if name == "mode" and nan:
        return  # (see test_mode: NaN rows are not compared)
    t, s = both(data(3, 5, dtype=dtype, ties=name == "mode", nan=nan, layout=layout))
    compare(lambda: call(torch, t), lambda: call(st, s), TOL)


@pytest.mark.parametrize("mode", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_quantile_interpolation(mode) -> None:
    t, s = both(data(4, 6, dtype="float32"))
    q = np.array([0.0, 0.1, 0.5, 0.55, 1.0], np.float32)
    compare(lambda: torch.quantile(t, torch.from_numpy(q), dim=1, interpolation=mode),
            lambda: st.quantile(s, st.from_numpy(q), dim=1, interpolation=mode), TOL)
    compare(lambda: torch.nanquantile(t, 0.35, interpolation=mode),
            lambda: st.nanquantile(s, 0.35, interpolation=mode), TOL)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("mode", ["linear", "midpoint", "nearest"])
def test_quantile_array_path_matches_composite(dtype, mode) -> None:
    """Without a gradient or a listener quantile gathers and lerps on the arrays; its bits, shape
    and strides equal the recorded composite's (gather and lerp tensors, taken when the input
    requires grad) and torch's, wide magnitudes and ties included (the lerp's single rounding)."""
    a = (RNG.standard_normal((6, 9)) * 10.0 ** RNG.integers(-20, 20, (6, 9))).astype(dtype)
    a[0, :3] = [np.nan, -0.0, 0.0]
    a[1] = np.round(a[1])
    q = np.array([0.0, 0.13, 0.5, 0.77, 1.0], dtype)
    for op in ("quantile", "nanquantile"):
        for dim, keep in ((1, False), (0, True), (None, False)):
            plain = getattr(st, op)(st.from_numpy(a), st.from_numpy(q), dim=dim, keepdim=keep, interpolation=mode)
            tracked = getattr(st, op)(st.from_numpy(a).requires_grad_(), st.from_numpy(q), dim=dim, keepdim=keep,
                                      interpolation=mode)
            ref = getattr(torch, op)(torch.from_numpy(a), torch.from_numpy(q), dim=dim, keepdim=keep,
                                     interpolation=mode)
            assert tracked.grad_fn is not None and plain.grad_fn is None
            assert plain.stride() == tracked.stride() == ref.stride()
            np.testing.assert_array_equal(plain.numpy().view(f"u{a.itemsize}"),
                                          tracked.detach().numpy().view(f"u{a.itemsize}"))
            np.testing.assert_array_equal(plain.numpy(), ref.numpy())


@settings(max_examples=10, deadline=None)
@given(hs.integers(1, 7), hs.booleans(), hs.booleans())
def test_median_indices_point_at_the_median(n, ties, nan) -> None:
    """The value equals torch's; the index points at an element of that value (torch's own choice
    among equal values is its nth_element's, unspecified by its docs); NaN rows: the first NaN."""
    a = data(3, n, ties=ties, nan=nan)
    t, s = both(a)
    for name in ("median", "nanmedian"):
        tv, ti = getattr(torch, name)(t, 1)
        sv, si = getattr(st, name)(s, 1)
        assert_same_tensor(sv, tv, TOL)
        assert si.dtype == st.int64 and si.shape == tuple(ti.shape)
        picked = np.take_along_axis(a, si.numpy()[:, None], 1)[:, 0]
        np.testing.assert_array_equal(picked, sv.numpy())
        unique = [len(set(row[~np.isnan(row)].tolist())) == (~np.isnan(row)).sum() for row in a]
        for r, u in enumerate(unique):
            if u or (name == "median" and np.isnan(a[r]).any()):
                assert si[r].item() == ti[r].item()


def test_mode() -> None:
    a = np.array([[1, 2, 2, 1, 3], [3, 3, 1, 1, 2], [0, 0, 0, 0, 0], [5, 5, 1, 5, 5]])
    for dtype in (np.int64, np.float32):
        t, s = both(a.astype(dtype))
        for dim, keep in ((1, False), (0, True)):
            tv, ti = torch.mode(t, dim, keep)
            sv, si = st.mode(s, dim, keep)
            assert_same_tensor(sv, tv, TOL)
            assert_same_tensor(si, ti, TOL)


def test_gradients_match_torch() -> None:
    a = data(3, 5)  # (no ties: which of equal elements a sort puts first is unspecified in torch)
    calls = [lambda L, x: L.median(x), lambda L, x: L.median(x, 1).values, lambda L, x: x.nanmedian(0).values,
             lambda L, x: L.quantile(x, L.tensor([0.2, 0.65], dtype=x.dtype), dim=1),
             lambda L, x: L.quantile(x, 0.5, interpolation="midpoint"), lambda L, x: L.nanquantile(x, 0.8, dim=0),
             lambda L, x: L.mode(x.round(), 1).values]
    for call in calls:
        t, s = both(a, grad=True)
        tw = torch.from_numpy(np.asarray(np.arange(call(torch, t).numel(), dtype=np.float64).reshape(call(torch, t).shape) + 1))
        (call(torch, t) * tw).sum().backward()
        (call(st, s) * st.from_numpy(tw.numpy())).sum().backward()
        np.testing.assert_allclose(s.grad.numpy(), t.grad.numpy(), atol=1e-12)
    # a tie: median() shares its gradient among the elements equal to it (evenly_distribute_backward)
    t, s = both(np.array([3.0, 1.0, 2.0, 1.0]), grad=True)
    torch.median(t).backward()
    st.median(s).backward()
    np.testing.assert_array_equal(s.grad.numpy(), t.grad.numpy())
    assert st.median(s).grad_fn.name() == torch.median(t).grad_fn.name()


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32", "int64"])
def test_bincount_without_weights_is_torchs(dtype: str) -> None:
    """bincount without weights (np.bincount's own max and sign check): counts, length, dtype and
    strides as PyTorch's, for every integer dtype, a stepped view, empty inputs with and without
    minlength, minlength below and above the largest value; a negative value is refused as there."""
    r = np.random.default_rng(1)
    base = r.integers(0, 100, 41).astype(dtype)
    tb, sb = torch.from_numpy(base), st.tensor(base)
    for t, s in ((tb, sb), (tb[::3], sb[::3]), (tb[:0], sb[:0]), (tb[5:6], sb[5:6])):
        assert s.is_contiguous() == t.is_contiguous()
        for kw in ({}, {"minlength": 3}, {"minlength": 150}):
            got, want = st.bincount(s, **kw), torch.bincount(t, **kw)
            assert got.shape == tuple(want.shape) and got.stride() == want.stride() and str(got.dtype) == "strided.int64"
            assert np.array_equal(got.numpy(), want.numpy())
    if dtype != "uint8":
        neg = np.array([3, -2, 1], dtype)
        with pytest.raises(RuntimeError, match=r"bincount only supports 1-d non-negative integral inputs\.(.|\n)*"
                                               r"smallest value is -2"):
            st.bincount(st.tensor(neg))
        with pytest.raises(RuntimeError, match="bincount only supports 1-d non-negative integral inputs"):
            torch.bincount(torch.from_numpy(neg))


def test_bincount_histc_isin() -> None:
    idx = np.array([1, 4, 1, 0, 7, 1])
    t, s = both(idx)
    for kw in ({}, {"minlength": 10}):
        compare(lambda: torch.bincount(t, **kw), lambda: st.bincount(s, **kw), TOL)  # noqa: B023 - (called at once)
    for w in (np.linspace(0, 1, 6, dtype=np.float32), np.arange(6, dtype=np.int64), np.linspace(0, 1, 6)):
        tw, sw = both(w)
        compare(lambda: torch.bincount(t, tw), lambda: st.bincount(s, sw), TOL)  # noqa: B023 - (called at once)
    compare(lambda: torch.bincount(torch.tensor([], dtype=torch.int64)),
            lambda: st.bincount(st.tensor([], dtype=st.int64)), TOL)
    for dtype in ("float32", "float64"):
        t, s = both(data(4, 5, dtype=dtype, layout="t"))
        for kw in ({}, {"bins": 7}, {"bins": 3, "min": -0.5, "max": 0.5}, {"bins": 4, "min": 1, "max": 1}):
            compare(lambda: torch.histc(t, **kw), lambda: st.histc(s, **kw), TOL)  # noqa: B023 - (called at once)
    t, s = both(np.array([2.0, 2.0]))
    compare(lambda: torch.histc(t, 4), lambda: st.histc(s, 4), TOL)
    t, s = both(np.array([[1, 2, 3], [4, 2, 9]]))
    tt, sv = both(np.array([2, 9, 7]))
    for kw in ({}, {"invert": True}, {"assume_unique": True}):
        compare(lambda: torch.isin(t, tt, **kw), lambda: st.isin(s, sv, **kw), TOL)  # noqa: B023 - (called at once)
    compare(lambda: torch.isin(t, 2), lambda: st.isin(s, 2), TOL)
    compare(lambda: torch.isin(3, tt), lambda: st.isin(3, sv), TOL)
    compare(lambda: torch.isin(t.double(), tt), lambda: st.isin(s.double(), sv), TOL)


ERRORS = [
    lambda L: L.quantile(L.tensor([1, 2]), 0.5),
    lambda L: L.quantile(L.tensor([1.0, 2.0]), 1.5),
    lambda L: L.quantile(L.tensor([1.0, 2.0]), L.tensor([[0.5]])),
    lambda L: L.quantile(L.tensor([]), 0.5),
    lambda L: L.quantile(L.tensor([1.0, 2.0]), 0.5, interpolation="x"),
    lambda L: L.quantile(L.tensor([1.0, 2.0]), L.tensor([0.5], dtype=L.float64)),
    # a NaN q is out of range (q >= 0 && q <= 1 fails), a number q is checked as the double it is
    # (1 + 1e-9 rounds to 1.0 in float32) and first, and nanquantile's messages say quantile()
    lambda L: L.quantile(L.tensor([1.0, 2.0]), float("nan")),
    lambda L: L.nanquantile(L.tensor([1.0, 2.0]), L.tensor([0.2, float("nan")])),
    lambda L: L.quantile(L.tensor([1.0, 2.0]), L.tensor(float("nan"))),
    lambda L: L.quantile(L.tensor([1.0, 2.0]), 1 + 1e-9),
    lambda L: L.nanquantile(L.tensor([1.0, 2.0]), -1e-50),
    lambda L: L.nanquantile(L.tensor([1, 2]), 1.5),
    lambda L: L.nanquantile(L.tensor([]), 1.5),
    lambda L: L.nanquantile(L.tensor([1, 2]), 0.5),
    lambda L: L.nanquantile(L.tensor([1.0, 2.0]), L.tensor([[0.5]])),
    lambda L: L.nanquantile(L.tensor([]), L.tensor([1.5])),
    lambda L: L.nanquantile(L.tensor([1.0, 2.0]), L.tensor([1.5]), interpolation="x"),
    lambda L: L.nanquantile(L.tensor([1.0, 2.0]), L.tensor([0.5], dtype=L.float64)),
    lambda L: L.median(L.zeros(2, 0), 1),
    lambda L: L.mode(L.zeros(2, 0), 1),
    lambda L: L.median(L.tensor([True, False])),
    lambda L: L.histc(L.tensor([1.0, 2.0]), bins=-1),
    lambda L: L.histc(L.tensor([1.0, 2.0]), bins=3, min=3, max=0),
    lambda L: L.histc(L.tensor([1, 2]), bins=3),
    lambda L: L.histc(L.tensor([1.0, float("nan")]), bins=3),
    lambda L: L.bincount(L.tensor([-1, 2])),
    lambda L: L.bincount(L.tensor([[1, 2]])),
    lambda L: L.bincount(L.tensor([1.0, 2.0])),
    lambda L: L.bincount(L.tensor([True])),
    lambda L: L.bincount(L.tensor([1, 2]), weights=L.tensor([1.0])),
    lambda L: L.bincount(L.tensor([1, 2]), minlength=-1),
    lambda L: L.isin([1.0, 2.0], L.ones(2)),
    lambda L: L.isin(L.ones(2), "a"),
    lambda L: L.isin(2, 3),
    lambda L: L.isin(True, L.ones(2)),
    lambda L: L.isin(L.ones(2) > 0, L.ones(2)),
]


@pytest.mark.parametrize("call", ERRORS, ids=[str(i) for i in range(len(ERRORS))])
def test_errors_mirror_torch(call) -> None:
    same_error(lambda: call(torch), lambda: call(st))


_X = data(2, 4, 3)
EDGES = [
    ("quantile_0d", lambda L, a: L.quantile(a[0, 0, 0], 0.5)),
    ("quantile_0d_dim", lambda L, a: L.quantile(a[0, 0, 0], 0.5, dim=0)),
    ("median_0d_dim", lambda L, a: L.median(a[0, 0, 0], 0).values),
    ("mode_0d", lambda L, a: L.mode(a[0, 0, 0]).indices),
    ("bincount_uint8", lambda L, a: L.bincount((a[0, 0] * 0 + 3).to(L.uint8))),
    ("histc_range", lambda L, a: L.histc(a.float(), 5, min=-0.3, max=0.9)),
    ("histc_empty", lambda L, a: L.histc(a[:0].float(), 3)),
    ("nanmedian_all_nan", lambda L, a: L.nanmedian(a * float("nan"), 1).values),
    ("nanquantile_all_nan", lambda L, a: L.nanquantile(a * float("nan"), 0.5, dim=1)),
    ("isin_float_int", lambda L, a: L.isin(L.tensor([1.0, 2.5]), L.tensor([1, 2]))),
]


@pytest.mark.parametrize(("name", "call"), EDGES, ids=[e[0] for e in EDGES])
def test_edge_cases_match_torch(name, call) -> None:
    t, s = both(_X)
    compare(lambda: call(torch, t), lambda: call(st, s), TOL)


@pytest.mark.parametrize("fn", [
    lambda x: x.median(1).values, lambda x: x.nanmedian(), lambda x: x.mode(0).values,
    lambda x: st.quantile(x, st.tensor([0.3, 0.8], dtype=st.float64), dim=1),
    lambda x: st.nanquantile(x, 0.5, interpolation="midpoint"),
], ids=["median", "nanmedian", "mode", "quantile", "nanquantile"])
def test_gradcheck(fn) -> None:
    x = st.from_numpy(data(3, 4)).requires_grad_()  # (distinct values: the selections are smooth)
    assert st.autograd.gradcheck(fn, (x,))
