"""NumPy's protocols on strided tensors: ``__array_ufunc__`` (NEP 13) and ``__array_function__`` (NEP 18).

Each call is compared with the same call on the NumPy array over the same memory and layout:
values, dtype, shape, view-vs-copy, and what the copy ledger records.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from layouts import build_numpy, build_strided, specs
from oracle_helpers import op_records
from strided.interop.numpy_protocols import HANDLED


def _layouts() -> dict[str, tuple[st.Tensor, np.ndarray]]:
    """The same float64 elements and layout in strided and NumPy (both views of their root)."""
    base = np.arange(24, dtype=np.float64) - 7.5
    root = st.from_numpy(base.copy())
    made = {
        "contiguous": (root.reshape(4, 6), lambda a: a.reshape(4, 6)),
        "permuted": (root.reshape(2, 3, 4).permute(2, 0, 1), lambda a: a.reshape(2, 3, 4).transpose(2, 0, 1)),
        "stepped": (root.reshape(4, 6)[::2, 1::2], lambda a: a.reshape(4, 6)[::2, 1::2]),
        "expanded": (root[:3].reshape(3, 1).expand(3, 4), lambda a: np.broadcast_to(a[:3].reshape(3, 1), (3, 4))),
        "0-d": (root[5], lambda a: a[5]),
        "empty": (root.reshape(4, 6)[:, :0], lambda a: a.reshape(4, 6)[:, :0]),
    }
    return {k: (t, f(base)) for k, (t, f) in made.items()}


def _negative() -> tuple[st.Tensor, np.ndarray]:
    base = np.arange(12, dtype=np.float64)
    view = base[::-2]
    return st.from_numpy(base)._view(st.layout.Layout((6,), (-2,), 11)), view


LAYOUTS = _layouts()


def _check(got, want, root: st.Tensor | None = None) -> None:
    assert isinstance(got, st.Tensor), type(got)
    w = np.asarray(want)
    assert got.shape == w.shape
    assert got.numpy().dtype == w.dtype
    np.testing.assert_array_equal(got.numpy(), w)


UFUNCS = [
    (lambda x: np.exp(x), "exp"), (lambda x: np.add(x, 1), "add"), (lambda x: np.maximum(x, 3), "maximum"),
    (lambda x: np.isnan(x), "isnan"), (lambda x: np.multiply(x, x), "multiply"),
    (lambda x: np.add(x, np.int32(2)), "add"), (lambda x: np.floor_divide(x, 2), "floor_divide"),
]


@pytest.mark.parametrize("name", list(LAYOUTS))
def test_ufuncs_match_numpy_and_report_compute(name):
    t, a = LAYOUTS[name]
    for call, op in UFUNCS:
        with st.record_copies() as copies, op_records() as records:
            got = call(t)
        _check(got, call(a))
        assert not copies, copies[0].reason
        assert [r.name for r in records] == [f"np.{op}"] and records[0].kind == "compute"
        assert not st.dispatch.shares_storage(got, t)  # new memory, adopted


def test_ufunc_on_negative_strides_and_result_layout():
    t, a = _negative()
    _check(np.sqrt(t), np.sqrt(a))
    p, pa = LAYOUTS["permuted"]
    got = np.exp(p)
    assert got.stride() == tuple(s // 8 for s in np.exp(pa).strides)  # NumPy's order="K" layout, kept


def test_ufunc_out_writes_into_the_tensor_memory():
    t, a = LAYOUTS["stepped"]
    target = st.zeros(6, 4).T[::2, ::2]  # non-contiguous target
    before = target.numpy().__array_interface__["data"][0]
    res = np.add(t, 1, out=target)
    assert res is target
    np.testing.assert_array_equal(target.numpy(), a + 1)
    assert target.numpy().__array_interface__["data"][0] == before
    m = st.zeros(2, 3, dtype=st.float64)
    np.exp(t, out=m, where=st.tensor([True, False, True]))
    np.testing.assert_array_equal(m.numpy(), np.where([True, False, True], np.exp(a), 0))
    x = st.arange(5.0)
    np.multiply(x, 2, out=x)
    np.testing.assert_array_equal(x.numpy(), np.arange(5.0) * 2)


def test_ufunc_methods_and_matmul():
    t, a = LAYOUTS["permuted"]
    _check(np.add.reduce(t, axis=1), np.add.reduce(a, axis=1))
    _check(np.maximum.accumulate(t, axis=0), np.maximum.accumulate(a, axis=0))
    _check(np.add.reduce(t, axis=None), np.add.reduce(a, axis=None))  # 0-d tensor, not a float
    m, ma = LAYOUTS["stepped"]
    _check(np.matmul(m, m.T), np.matmul(ma, ma.T))
    q, r = np.divmod(m, 3)
    qa, ra = np.divmod(ma, 3)
    _check(q, qa)
    _check(r, ra)


def test_ndarray_operators_compute_as_numpy_and_stay_tensors():
    """An operator with an ndarray operand is NumPy's computation (PyTorch hands it over), in
    either order; the result is a tensor (tests/test_ndarray_operators.py compares with PyTorch)."""
    t = st.tensor([1, 2, 3], dtype=st.int32)
    a = np.array([1.5, 2.5, 3.5])
    got = a + t
    assert isinstance(got, st.Tensor)
    np.testing.assert_array_equal(got.numpy(), (t + a).numpy())
    assert isinstance(a * t, st.Tensor) and isinstance(a < t, st.Tensor)
    np.testing.assert_array_equal((a < t).numpy(), a < np.array([1, 2, 3]))
    np.testing.assert_array_equal((np.arange(3) - t).numpy(), [-1, -1, -1])
    assert (st.ones(2) * np.array(2.5)).dtype == st.float64  # NumPy's promotion (NEP 50: a 0-d array is typed)
    # NumPy's own semantics where NumPy is called with keywords or the tensor first
    assert np.add(t, np.int64(2)).numpy().dtype == np.add(np.array([1, 2, 3], np.int32), np.int64(2)).dtype


@pytest.mark.parametrize("name", list(LAYOUTS))
def test_reductions_match_numpy(name):
    t, a = LAYOUTS[name]
    for fn in (np.sum, np.mean, np.max, np.min, np.std, np.var, np.all, np.any):
        if a.size == 0 and fn in (np.max, np.min):
            continue
        axes = [None] if a.ndim == 0 else [None, 0, -1]
        for axis in axes:
            for keepdims in (False, True):
                with op_records() as records, warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # NumPy's "Mean of empty slice", on both sides
                    got = fn(t, axis=axis, keepdims=keepdims)
                    want = fn(a, axis=axis, keepdims=keepdims)
                with np.errstate(all="ignore"):
                    assert isinstance(got, st.Tensor)
                    assert got.shape == np.shape(want) and got.numpy().dtype == np.asarray(want).dtype
                    np.testing.assert_allclose(got.numpy(), want, equal_nan=True)
                assert records[-1].name == f"np.{fn.__name__}" and records[-1].kind == "compute"


@settings(max_examples=60, deadline=None)
@given(spec=specs(), data=hs.data())
def test_moving_functions_follow_numpy_view_or_copy(spec, data):
    """np.transpose / reshape / ravel / squeeze / expand_dims / moveaxis on any layout: NumPy's
    values, and a strided view exactly when NumPy's result is a view (a ledger copy otherwise)."""
    a, t = build_numpy(spec), build_strided(spec)
    calls = [lambda x: np.transpose(x), lambda x: np.ravel(x), lambda x: np.squeeze(x),
             lambda x: np.expand_dims(x, 0), lambda x: np.reshape(x, (-1,))]
    if a.ndim >= 2:
        calls.append(lambda x: np.moveaxis(x, 0, -1))
    call = data.draw(hs.sampled_from(calls))
    want = call(a)
    with st.record_copies() as copies:
        got = call(t)
    _check(got, want)
    is_view = np.shares_memory(want, a) if a.size else want.base is not None
    if a.size:
        assert st.dispatch.shares_storage(got, t) == is_view
        assert len(copies) == (0 if is_view else 1)
        if is_view:
            assert got.stride() == tuple(s // 8 for s in want.strides)
        else:
            assert copies[0].reason.startswith("np.") and copies[0].nbytes == want.nbytes


def test_joining_where_and_queries():
    t, a = LAYOUTS["stepped"]
    with st.record_copies() as copies:
        got = np.concatenate([t, t], axis=1)
    _check(got, np.concatenate([a, a], axis=1))
    assert copies[0].reason.startswith("np.concatenate:") and copies[0].nbytes == 2 * a.nbytes
    _check(np.stack([t, t]), np.stack([a, a]))
    _check(np.where(t > 0, t, 0.0), np.where(a > 0, a, 0.0))
    assert np.shape(t) == a.shape and np.ndim(t) == a.ndim and np.size(t) == a.size
    z, za = LAYOUTS["0-d"]
    _check(np.sum(z), np.sum(za))  # a 0-d tensor, not NumPy's float64 scalar
    v = np.squeeze(np.expand_dims(t, 1))
    assert st.dispatch.shares_storage(v, t)


def test_functions_strided_does_not_handle_fall_back_to_numpy():
    t, a = LAYOUTS["permuted"]
    assert "sort" not in HANDLED and "allclose" not in HANDLED
    got = np.sort(t, axis=0)  # the documented return type: a strided tensor (see test_numpy_results.py)
    _check(got, np.sort(a, axis=0))
    assert np.allclose(t, a) is True  # not an array: NumPy's answer as it is
    _check(np.diff(t), np.diff(a))
    r = np.real(t)  # NumPy's view of the tensor's memory: a strided view
    _check(r, np.real(a))
    assert st.dispatch.shares_storage(r, t)


def test_unsupported_result_dtype_stays_numpy():
    t = st.tensor([1.0, 2.0])
    got = np.add(t, np.array([1, 2], dtype=object))  # an object result: strided has no such dtype
    assert type(got) is np.ndarray and got.dtype == object
    assert list(got) == [2.0, 4.0]


def test_foreign_array_types_get_their_turn():
    class Other:
        def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
            return "other"

        def __array_function__(self, func, types, args, kwargs):
            return "other"

    t = st.tensor([1.0])
    assert np.add(t, Other()) == "other"
    assert np.concatenate([t, Other()]) == "other"


def test_out_into_read_only_or_expanded_memory_is_refused_untouched():
    base = np.arange(3.0)
    base.flags.writeable = False
    ro = st.from_numpy(base)
    with pytest.raises(st.errors.StridedRuntimeError, match="read-only"):
        np.add(st.ones(3, dtype=st.float64), 1, out=ro)
    np.testing.assert_array_equal(base, [0.0, 1.0, 2.0])
    ex = st.zeros(1, dtype=st.float64).expand(3)
    with pytest.raises(st.errors.StridedRuntimeError):
        np.exp(st.ones(3, dtype=st.float64), out=ex)
    assert ex.numpy().tolist() == [0.0, 0.0, 0.0]
    dest = st.zeros(3, dtype=st.float64)
    assert np.sum(st.ones(3, 3, dtype=st.float64), axis=0, out=dest) is dest
    assert dest.numpy().tolist() == [3.0, 3.0, 3.0]


def test_a_result_over_the_callers_ndarray_stays_that_ndarray():
    a = np.arange(3.0)
    got = np.atleast_1d(st.tensor([1.0]), a)
    assert isinstance(got[0], st.Tensor) and got[1] is a or np.shares_memory(got[1], a)
    assert type(got[1]) is np.ndarray


def test_matmul_operator_with_an_ndarray_is_numpys():
    a = np.arange(6.0, dtype=np.float32).reshape(3, 2)
    t = st.ones(2, 3)
    for got in (t @ a, np.matmul(t, a), a.T @ t.T):
        assert isinstance(got, st.Tensor) and got.dtype == st.float32
    np.testing.assert_array_equal((t @ a).numpy(), np.ones((2, 3), np.float32) @ a)
    assert (t @ a.astype(np.float64)).dtype == st.float64  # NumPy's promotion, as PyTorch's t @ a
    for bad in (lambda: t @ a.T, lambda: a @ t.T):
        with pytest.raises(st.errors.StridedValueError, match="mismatch in its core dimension"):
            bad()  # NumPy's ValueError (PyTorch's), as a strided error naming both operands
    assert np.matmul(t, a.astype(np.float64), dtype=np.float64).dtype == st.float64


@settings(max_examples=40, deadline=None)
@given(spec=specs())
def test_ufuncs_on_any_layout_match_numpy(spec):
    a, t = build_numpy(spec), build_strided(spec)
    for call in (lambda x: np.negative(x), lambda x: np.add(x, 2), lambda x: np.multiply(x, x)):
        got = call(t)
        _check(got, call(a))
        if a.size:
            assert not st.dispatch.shares_storage(got, t)


def test_inplace_ndarray_operator_is_numpys():
    # Note: a += t makes NumPy call np.add(a, t, out=(a,)): keywords, so NumPy's loop writes into a.
    a = np.zeros(3)
    before = a.__array_interface__["data"][0]
    a += st.tensor([1.0, 2.0, 3.0])
    assert type(a) is np.ndarray and a.tolist() == [1.0, 2.0, 3.0]
    assert a.__array_interface__["data"][0] == before


def test_views_are_reported_as_views_named_after_the_function():
    t, a = _negative()
    with op_records() as records:
        got = np.flip(t)
    _check(got, np.flip(a))
    assert st.dispatch.shares_storage(got, t) and got.stride() == (2,)
    assert [(r.name, r.kind) for r in records] == [("np.flip", "view")]
    with op_records() as records:
        m = np.transpose(np.reshape(t, (2, 3)))
    _check(m, np.transpose(np.reshape(a, (2, 3))))
    assert [(r.name, r.kind) for r in records] == [("np.reshape", "view"), ("np.transpose", "view")]
