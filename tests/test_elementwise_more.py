"""Differential tests of the elementwise breadth (issue 12): the unary table of
``strided.ops.elementwise.unary_more``, the binary rows of ``strided.ops.elementwise.binary_more``, ``add``/``sub`` with
``alpha=``, ``lerp``/``isclose``/``allclose``/``equal``, ``gelu`` and the special-function kernels,
against PyTorch on hard layouts (permuted, stepped, expanded, zero-size, 0-d)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import assume, example, given, settings
from hypothesis import strategies as hs

import strided as st
from layout_strategies import Spec
from layouts import build_valued, specs, valued_storage
from oracle_helpers import compare, same_error, stable_id
from strided.dispatch import listen
from strided.kernels import special
from strided.kernels.memory import elements_overlap
from strided.ops.elementwise import binary_more as B
from strided.ops.elementwise import unary_more as U
from strided.ops.elementwise.special import gelu

TOL = {"float16": (1e-2, 1e-3), "float32": (2e-6, 1e-6), "float64": (1e-12, 1e-13)}
DTYPES = ["float32", "float64", "float16", "int64", "int32", "uint8", "bool"]
UNARY = sorted(n for n in U.FUNCTIONS if not n.endswith("_"))
BINARY = ["hypot", "atan2", "arctan2", "copysign", "fmod", "logical_and", "logical_or", "logical_xor"]


def _domain(name: str, data: np.ndarray) -> np.ndarray:
    """Inputs inside the function's domain where NumPy and PyTorch agree to rounding (erfinv on
    [-1, 1]; acosh from 1; asin/acos/atanh on [-1, 1])."""
    if data.dtype.kind == "f" and name in ("erfinv", "asin", "arcsin", "acos", "arccos", "atanh", "arctanh"):
        return np.tanh(data).astype(data.dtype)
    if data.dtype.kind == "f" and name in ("acosh", "arccosh"):
        return (np.abs(data) + 1).astype(data.dtype)
    return data


@settings(max_examples=60, deadline=None)
@given(specs(max_dims=3), hs.sampled_from(UNARY), hs.sampled_from(DTYPES), hs.integers(0, 2**16))
# size-1 dims: PyTorch's isfinite is (x == x) * (x.abs() != inf), whose product of two (1, 1, 1)-strided
# comparisons takes the contiguous fast set-up, (2, 2, 1), where one unary op keeps (1, 1, 1)
@example(Spec(3, (1, 1, 2), (2, 1, 2), 0), "isfinite", "float32", 0)
def test_unary_ops_match_torch(spec, name, dtype, seed):
    data = _domain(name, valued_storage(spec, dtype, seed, nan=name not in ("erfinv",)))
    t, _, s = build_valued(spec, data)
    torch_fn = getattr(torch, name)
    compare(lambda: torch_fn(t), lambda: U.FUNCTIONS[name](s), TOL)


@settings(max_examples=40, deadline=None)
@given(specs(max_dims=3), hs.sampled_from(["isnan", "isinf", "isfinite", "sgn", "nan_to_num"]),
       hs.sampled_from(["complex64", "complex128"]), hs.integers(0, 2**16))
@example(Spec(3, (1, 1, 2), (2, 1, 2), 0), "isinf", "complex64", 0)
@example(Spec(3, (3,), (1,), 0), "sgn", "complex64", 3)  # infinite parts: NaN, as PyTorch's z / |z|
@example(Spec(3, (3,), (1,), 0), "nan_to_num", "complex128", 3)  # each part replaced on its own
def test_float_tests_of_complex_numbers_match_torch(spec, name, dtype, seed):
    # either part NaN or infinite counts (isnan, isinf, isfinite; sgn gives NaN); nan_to_num replaces
    # each part; the test ops' output is laid out as PyTorch's composite on x.real
    rng = np.random.default_rng(seed)
    parts = rng.choice(np.array([0.0, 1.5, -2.0, np.nan, np.inf, -np.inf]), size=(2, spec.storage_size))
    data = np.empty(spec.storage_size, dtype)
    data.real, data.imag = parts  # (not parts[0] + 1j * parts[1]: 1j * inf has a NaN real part)
    t, _, s = build_valued(spec, data)
    compare(lambda: getattr(torch, name)(t), lambda: U.FUNCTIONS[name](s), TOL)


@settings(max_examples=40, deadline=None)
@given(specs(max_dims=3), hs.sampled_from([n for n in UNARY if n + "_" in U.FUNCTIONS]),
       hs.sampled_from(DTYPES), hs.integers(0, 2**16))
def test_unary_inplace_matches_torch_or_leaves_the_target_untouched(spec, name, dtype, seed):
    # Note: strided refuses in-place updates of targets whose elements overlap through non-zero
    # strides (PyTorch writes them in its loop order): those layouts are left out here
    assume(not elements_overlap(spec.shape, spec.strides) or any(n > 1 and s == 0 for n, s in zip(spec.shape, spec.strides)))
    data = _domain(name, valued_storage(spec, dtype, seed))
    t, _, _ = build_valued(spec, data.copy())  # (each library writes into its own memory)
    _, _, s = build_valued(spec, data)
    compare(lambda: getattr(t, name + "_")(), lambda: getattr(s, name + "_")(), TOL)
    try:
        getattr(t.clone(), name + "_")()
    except Exception:  # noqa: BLE001 - an error: strided's target is untouched
        np.testing.assert_array_equal(data, _domain(name, valued_storage(spec, dtype, seed)))


@settings(max_examples=60, deadline=None)
@given(specs(max_dims=3, shape=(2, 3)), specs(max_dims=3), hs.sampled_from(BINARY),
       hs.sampled_from(DTYPES), hs.sampled_from(DTYPES), hs.integers(0, 2**16))
def test_binary_rows_match_torch(spec_a, spec_b, name, da, db, seed):
    ta, _, sa = build_valued(spec_a, valued_storage(spec_a, da, seed, nan=True))
    tb, _, sb = build_valued(spec_b, valued_storage(spec_b, db, seed + 1, nan=True))
    compare(lambda: getattr(torch, name)(ta, tb), lambda: getattr(B, name)(sa, sb), TOL)


@pytest.mark.parametrize("name", ["copysign", "fmod", "atan2", "logical_and"])
@pytest.mark.parametrize("number", [2, -1.5, 0])
def test_binary_rows_with_a_number(name, number):
    x = np.array([[-2.5, 0.0, 3.0], [1.0, np.nan, -np.inf]], dtype=np.float32)
    for dtype in ("float32", "int64"):
        data = np.nan_to_num(x, nan=1.0, neginf=-3.0).astype(dtype) if dtype == "int64" else x
        compare(lambda: getattr(torch, name)(torch.from_numpy(data), number),  # noqa: B023 - called at once
                lambda: getattr(B, name)(st.tensor(data), number), TOL)  # noqa: B023 - called at once


def test_round_decimals_is_half_to_even_as_torch():
    x = np.array([0.5, 1.5, 2.5, -0.5, 1.25, 1.35, 12345.678, -2.675, 1e30], dtype=np.float32)
    for decimals in (0, 1, 2, -1, -2):
        compare(lambda: torch.round(torch.from_numpy(x), decimals=decimals),  # noqa: B023 - called at once
                lambda: U.round(st.tensor(x), decimals=decimals), TOL)  # noqa: B023 - called at once
    compare(lambda: torch.round(torch.tensor([1, 2]), decimals=1), lambda: U.round(st.tensor([1, 2]), decimals=1),
            TOL)
    t = st.tensor([0.25, 2.5])
    assert t.round_(decimals=1) is t and t.tolist() == pytest.approx([0.2, 2.5])


def test_nan_to_num_defaults_and_values():
    x = np.array([np.nan, np.inf, -np.inf, 1.0], dtype=np.float16)
    compare(lambda: torch.nan_to_num(torch.from_numpy(x)), lambda: U.nan_to_num(st.tensor(x)), TOL)
    compare(lambda: torch.nan_to_num(torch.from_numpy(x.astype(np.float64)), nan=7.0, posinf=8.0, neginf=-9.0),
            lambda: U.nan_to_num(st.tensor(x.astype(np.float64)), nan=7.0, posinf=8.0, neginf=-9.0), TOL)
    t = st.tensor([np.nan, 1.0])
    assert t.nan_to_num_(nan=5.0) is t and t.tolist() == [5.0, 1.0]


def test_dtype_rules_for_integer_inputs():
    i = st.tensor([[1, -2], [3, 0]])
    assert U.floor(i).dtype is st.int64 and U.floor(i).tolist() == [[1, -2], [3, 0]]
    assert U.sign(i).dtype is st.int64 and U.sign(i).tolist() == [[1, -1], [1, 0]]
    assert U.log1p(i).dtype is st.float32 and B.atan2(i, i).dtype is st.float32
    assert U.square(st.tensor([True, False])).dtype is st.int64
    assert B.logical_and(i, i).dtype is st.bool_ and U.isnan(i).dtype is st.bool_
    assert U.isfinite(i).tolist() == [[True, True], [True, True]]
    text = same_error(lambda: torch.frac(torch.tensor([1])), lambda: U.frac(st.tensor([1])))
    assert "float32" in text
    same_error(lambda: torch.floor(torch.tensor([True])), lambda: U.floor(st.tensor([True])))
    same_error(lambda: torch.tensor([1, 2]).exp2_(), lambda: st.tensor([1, 2]).exp2_())
    same_error(lambda: torch.atan2(torch.ones(2), 2), lambda: B.atan2(st.ones(2), 2))
    same_error(lambda: torch.fmod(torch.tensor([5]), torch.tensor([0])), lambda: B.fmod(st.tensor([5]), st.tensor([0])))
    same_error(lambda: torch.hypot(torch.tensor([1]), torch.tensor([1])), lambda: B.hypot(st.tensor([1]), st.tensor([1])))


def test_inplace_logical_keeps_the_dtype_and_refusals_leave_the_target():
    t = st.tensor([1.0, 0.0, 2.0])
    assert t.logical_and_(st.tensor([1.0, 1.0, 0.0])) is t and t.tolist() == [1.0, 0.0, 0.0]
    i = st.tensor([1, 2])
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type Long"):
        i.atan2_(st.tensor([0, 2]))
    assert i.tolist() == [1, 2]


def test_alpha_rules_and_values():
    a, b = st.tensor([[1.0, 2.0], [3.0, 4.0]]), st.tensor([10.0, 20.0])
    assert st.add(a, b, alpha=2).tolist() == torch.add(torch.tensor(a.tolist()), torch.tensor(b.tolist()),
                                                       alpha=2).tolist()
    assert st.sub(a.T, b, alpha=0.5).tolist() == [[-4.0, -7.0], [-3.0, -6.0]]
    assert st.add(st.tensor([1, 2]), 1.5, alpha=2).tolist() == [4.0, 5.0]
    same_error(lambda: torch.add(torch.tensor([1]), torch.tensor([1]), alpha=2.5),
               lambda: st.add(st.tensor([1]), st.tensor([1]), alpha=2.5))
    same_error(lambda: torch.add(torch.ones(1), torch.ones(1), alpha=True),
               lambda: st.add(st.ones(1), st.ones(1), alpha=True))
    assert st.add(st.tensor([True]), st.tensor([True]), alpha=2).tolist() == [True]
    x = st.tensor([1, 2])
    with pytest.raises(RuntimeError, match="must not be a floating point"):
        x.add_(st.tensor([1, 1]), alpha=0.5)
    assert x.tolist() == [1, 2]
    assert x.sub_(st.tensor([1, 1]), alpha=3).tolist() == [-2, -1]
    with pytest.raises(TypeError, match="unexpected keyword argument 'alpha'"):
        st.mul(x, 2, alpha=2)


_CLOSE_EDGES = [0.0, -0.0, 1.0, -1.0, 2.5, 13.0, 251.0, 252.0, 1e9, -1e9, 60000.0, -60000.0, 3e38, -3e38,
                np.inf, -np.inf, np.nan, 1e-45]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "complex64", "complex128", "int32", "int64",
                                   "uint8", "bool"])
@pytest.mark.parametrize("default", ["float32", "float64"])
def test_isclose_is_pytorchs_formula_on_every_dtype(dtype: str, default: str) -> None:
    """torch._refs.isclose: close where x == y (NaN pairs under equal_nan, complex ones too with zero
    tolerances), else where |x - y| is finite (a difference of finite numbers that overflows is
    not: 3e38 and -3e38, rtol=2) and <= atol + |rtol * y|; bool and integers cast to the default
    float dtype first (isclose(False, True, rtol=1) holds; no uint8 difference wraps)."""
    v = np.array(_CLOSE_EDGES)
    if dtype.startswith("complex"):
        v = (v[:, None] + 1j * np.array([0.0, np.nan, 3e38, 1.0])[None, :]).reshape(-1)
    x, y = (a.reshape(-1) for a in np.meshgrid(v, v))
    tx, ty = torch.tensor(x), torch.tensor(y)
    if dtype in ("int32", "int64", "uint8", "bool"):  # (the finite values, as the dtype holds them)
        keep = np.isfinite(x) & np.isfinite(y) & (np.abs(x) < 2e9) & (np.abs(y) < 2e9)
        tx, ty = torch.tensor(x[keep]).to(torch.int64), torch.tensor(y[keep]).to(torch.int64)
    tx, ty = tx.to(getattr(torch, dtype)), ty.to(getattr(torch, dtype))
    sx, sy = st.tensor(tx.numpy()), st.tensor(ty.numpy())
    old_t, old_s = torch.get_default_dtype(), st.get_default_dtype()
    torch.set_default_dtype(getattr(torch, default))
    st.set_default_dtype(getattr(st, default))
    try:
        for rtol, atol in ((1e-5, 1e-8), (0.0, 0.0), (1.0, 1.0), (2.0, 0.0), (float("inf"), 0.0), (0.0, 1 - 1e-9)):
            for equal_nan in (False, True):
                want = torch.isclose(tx, ty, rtol=rtol, atol=atol, equal_nan=equal_nan).numpy()
                got = B.isclose(sx, sy, rtol=rtol, atol=atol, equal_nan=equal_nan).numpy()
                assert got.tolist() == want.tolist(), (rtol, atol, equal_nan, np.nonzero(got != want)[0][:5])
    finally:
        torch.set_default_dtype(old_t)
        st.set_default_dtype(old_s)


@pytest.mark.parametrize("value", ["a", None, [1], (1,), np.ones(1), np.ones(()), "tensor1"], ids=stable_id)
@pytest.mark.parametrize("name", ["addcmul", "addcdiv", "addcmul_", "addcdiv_"])
def test_addc_value_that_is_not_a_number_is_pytorchs_type_error(name: str, value) -> None:
    """value= must be a Number (a Python/NumPy number or a 0-d tensor), PyTorch's parser TypeError
    under the name called (in place too): float(value) raised a bare ValueError/TypeError before,
    and a one-element (1,) tensor was taken as a number."""
    def call(m):
        v = m.ones(1) if isinstance(value, str) and value == "tensor1" else value
        return getattr(m.ones(3), name)(m.ones(3), m.ones(3), value=v)

    same_error(lambda: call(torch), lambda: call(st))
    for m in (torch, st):  # (the numbers it takes: a 0-d tensor, NumPy scalars)
        for v in (m.tensor(0.5), np.float32(0.5), np.int64(2), np.bool_(True)):
            assert getattr(m.ones(3), name)(m.ones(3), m.ones(3), value=v).tolist() == getattr(torch.ones(3), name)(
                torch.ones(3), torch.ones(3), value=v.item() if isinstance(v, (m.Tensor, np.generic)) else v).tolist()


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", ["addcmul", "addcdiv"])
def test_addc_of_reduced_floats_computes_in_float32_as_pytorch(dtype: str, name: str) -> None:
    """PyTorch's reduced-float addcmul/addcdiv kernel: value * t1 in float32, then fmadd with t2
    and input (addcdiv: / t2, + input) in float32, rounded once to the dtype (values, NaN-blind:
    NaN payloads aside). Step by step in float16, 2 * 60000 - 60000 was inf and 1.1 * 1.3 - 1.4
    was ulps off; out of place, in place, vector lengths and tails."""
    rng = np.random.default_rng(13)
    edges = [(2.0, 60000.0, -60000.0), (3.0, 65504.0, -65504.0), (300.0, 300.0, -60000.0), (1.1, 1.3, -1.4)]
    for n in (1, 17, 33, 1000):
        vals = [rng.standard_normal(n) * 300 for _ in range(3)]
        for k, edge in enumerate(edges[:n]):
            for v, e in zip(vals, (edge[2], edge[0], edge[1])):  # (input, tensor1, tensor2)
                v[k] = e
        tt = [torch.tensor(v, dtype=torch.float32).to(getattr(torch, dtype)) for v in vals]
        ss = [st.tensor(t.float().numpy()).to(getattr(st, dtype)) for t in tt]
        for value in (1, 0.5, 0.1):
            want = getattr(torch, name)(*tt, value=value).float().numpy()
            got = getattr(B, name)(*ss, value=value).float().numpy()
            inplace = ss[0].clone()
            getattr(inplace, name + "_")(ss[1], ss[2], value=value)
            for g in (got, inplace.float().numpy()):
                np.testing.assert_array_equal(g, want)


def test_lerp_isclose_allclose_equal():
    a = torch.tensor([[0.0, 1.0], [2.0, 3.0]]).T
    b = torch.tensor([10.0, -10.0])
    sa, sb = st.tensor(a.T.tolist()).T, st.tensor(b.tolist())
    for w in (0.25, 0.75, torch.tensor([0.1, 0.9])):
        sw = st.tensor(w.tolist()) if isinstance(w, torch.Tensor) else w
        compare(lambda: torch.lerp(a, b, w), lambda: B.lerp(sa, sb, sw), TOL)  # noqa: B023 - called at once
    same_error(lambda: torch.lerp(a, b.double(), 0.5), lambda: B.lerp(sa, sb.to(st.float64), 0.5))
    x = np.array([1.0, np.nan, np.inf, 1e-9, 2.0])
    y = np.array([1.0 + 1e-6, np.nan, np.inf, 0.0, 2.1])
    for kw in ({}, {"equal_nan": True}, {"rtol": 0.1, "atol": 0.0}):
        compare(lambda: torch.isclose(torch.from_numpy(x), torch.from_numpy(y), **kw),  # noqa: B023 - called at once
                lambda: B.isclose(st.tensor(x), st.tensor(y), **kw), TOL)  # noqa: B023 - called at once
    assert B.allclose(st.tensor([1.0]), st.tensor([1.0 + 1e-9])) is True
    same_error(lambda: torch.isclose(torch.ones(1), torch.ones(1).double()),
               lambda: B.isclose(st.ones(1), st.ones(1).to(st.float64)))
    same_error(lambda: torch.isclose(torch.ones(1), torch.ones(1), rtol=-1), lambda: B.isclose(st.ones(1), st.ones(1), rtol=-1))
    assert B.equal(st.tensor([1, 2]), st.tensor([1.0, 2.0])) is torch.equal(torch.tensor([1, 2]), torch.tensor([1.0, 2.0]))
    assert B.equal(st.ones(2), st.ones(3)) is False
    assert B.equal(st.tensor([np.nan]), st.tensor([np.nan])) is False


def test_special_kernels_are_accurate_to_float64_rounding():
    x = np.concatenate([np.linspace(-27, 27, 54001), np.linspace(-1e-3, 1e-3, 501), [0.0, np.inf, -np.inf, np.nan]])
    for mine, ref in ((special.erf, torch.special.erf), (special.erfc, torch.special.erfc)):
        got, want = mine(x), ref(torch.from_numpy(x)).numpy()
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        normal = np.isfinite(want) & (np.abs(want) > 1e-300)  # (subnormals carry no relative accuracy)
        rel = np.abs(got[normal] - want[normal]) / np.abs(want[normal])
        assert rel.max() < 1e-15, (mine.__name__, rel.max())
    y = np.concatenate([np.linspace(-1, 1, 40001), 1 - np.logspace(-16, -1, 300), -1 + np.logspace(-16, -1, 300),
                        np.logspace(-300, -1, 100), [np.nan, 1.5, -2.0]])
    got, want = special.erfinv(y), torch.special.erfinv(torch.from_numpy(y)).numpy()
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(got[np.isinf(want)], want[np.isinf(want)])
    finite = np.isfinite(want) & (want != 0)
    assert (np.abs(got[finite] - want[finite]) / np.abs(want[finite])).max() < 5e-15


@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_gelu_matches_torch(approximate, dtype):
    x = torch.linspace(-8, 8, 256, dtype=dtype).reshape(16, 16)[:, ::2].T
    s = st.from_numpy(x.contiguous().numpy()).T.T  # same values; layout checked below on a fresh input
    tol = {"float32": (1e-6, 1e-6), "float64": (1e-14, 1e-15)}
    compare(lambda: torch.nn.functional.gelu(x.contiguous(), approximate=approximate),
            lambda: gelu(s, approximate), tol)
    same_error(lambda: torch.nn.functional.gelu(torch.ones(2, dtype=torch.long)), lambda: gelu(st.ones(2, dtype=st.int64)))
    same_error(lambda: torch.nn.functional.gelu(torch.ones(2), approximate="x"), lambda: gelu(st.ones(2), "x"))


def test_reports_name_the_op():
    seen = []
    x = st.ones(2)
    with listen(seen.append):
        U.erf(x)
        B.hypot(x, x)
    assert [r.name for r in seen] == ["erf", "hypot"]
