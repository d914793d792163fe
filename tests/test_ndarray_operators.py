"""``tensor <op> ndarray``: PyTorch's operators hand the ndarray to NumPy, which computes (NumPy's
promotion: a float32 tensor times ``np.array(2.5)`` is float64) and wraps the result back into a
tensor (a bool result as uint8). strided gives PyTorch's dtypes and values, its errors' classes,
and the same answer for ``ndarray <op> tensor`` (where PyTorch raises TypeError)."""

from __future__ import annotations

import operator
import warnings

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from oracle_helpers import case

OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
       "//": operator.floordiv, "%": operator.mod, "**": operator.pow, "&": operator.and_,
       "|": operator.or_, "^": operator.xor, "<<": operator.lshift, ">>": operator.rshift,
       "@": operator.matmul}
DTYPES = ["float32", "float64", "float16", "int8", "int32", "int64", "uint8", "bool", "complex64"]
SHAPES = [((3,), (3,)), ((3,), ()), ((2, 3), (3,)), ((), (3,)), ((), ()), ((3, 3), (3, 3)), ((0, 3), (3,))]


def _values(dtype: str, shape: tuple, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.integers(0, 2, shape).astype(bool)
    return rng.integers(-3, 4, shape).astype(dtype) if dtype != "uint8" else rng.integers(0, 4, shape).astype(dtype)


def _outcome(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            r = call()
        except Exception as e:  # noqa: BLE001 - the class is compared
            return ("error", next(c for c in (ValueError, TypeError, RuntimeError, Exception) if isinstance(e, c)))
    assert isinstance(r, (torch.Tensor, st.Tensor, np.ndarray, np.generic)), type(r)
    values = np.array(r)
    if values.dtype.kind in "fc":  # (NaNs compared as NaN: a complex reciprocal's NaN sign is its own matter)
        flat = values.reshape(-1).view(values.real.dtype if values.dtype.kind == "c" else values.dtype)
        flat[np.isnan(flat)] = np.nan
    return ("ok", str(r.dtype).split(".")[-1], tuple(r.shape), values.tobytes())


@settings(max_examples=300, deadline=None)
@given(sym=hs.sampled_from(sorted(OPS)), tdt=hs.sampled_from(DTYPES), adt=hs.sampled_from(DTYPES),
       shapes=hs.sampled_from(SHAPES), seed=hs.integers(0, 5), transpose=hs.booleans())
def test_tensor_op_ndarray_is_pytorchs(sym, tdt, adt, shapes, seed, transpose):
    op = OPS[sym]
    base, arr = _values(tdt, shapes[0], seed), _values(adt, shapes[1], seed + 1)
    tt, ts = torch.from_numpy(base.copy()), st.tensor(base)
    if transpose and base.ndim == 2:
        tt, ts = tt.t(), ts.t()
    want = _outcome(lambda: op(tt, arr))
    got = _outcome(lambda: op(ts, arr))
    assert got == want
    if got[0] == "ok" and sym != "/":  # (ndarray / tensor is reciprocal() * ndarray: see below)
        # the reflected order is NumPy's too (PyTorch: TypeError), with the operands in that order
        flipped = _outcome(lambda: op(arr, ts))
        direct = _outcome(lambda: op(arr, np.asarray(ts)))
        if direct[0] == "ok" and direct[1] == "bool":
            direct = ("ok", "uint8", direct[2], direct[3])
        assert flipped == direct


@pytest.mark.parametrize("tdt", DTYPES)
def test_ndarray_over_tensor_is_pytorchs_reciprocal_times(tdt):
    for adt in DTYPES:
        with case(adt=adt):
            _ndarray_over_tensor_is_pytorchs_reciprocal_times(tdt, adt)


def _ndarray_over_tensor_is_pytorchs_reciprocal_times(tdt, adt):
    base, arr = _values(tdt, (2, 3), 1), _values(adt, (3,), 2)
    want = _outcome(lambda: arr / torch.from_numpy(base.copy()))
    assert _outcome(lambda: arr / st.tensor(base)) == want


def test_the_promotions_that_differ_from_tensor_promotion():
    """Each of these is PyTorch's dtype because NumPy computes; a tensor operand would give
    the second dtype."""
    for t, a, want in [(st.ones(2), np.array(2.5), st.float64),
                       (st.ones(2), np.array([1, 2], dtype=np.int64), st.float64),
                       (st.ones(2, dtype=st.float16), np.array([1, 2]), st.float64),
                       (st.ones(2, dtype=st.bool), np.array([True, False]), st.uint8)]:
        assert (t + a).dtype == want
        tw = torch.from_numpy(np.asarray(t).copy())
        assert str((tw + a).dtype).split(".")[-1] == want.name


def test_refusals_are_pytorchs_with_a_fix():
    with pytest.raises(TypeError, match="unsupported ScalarType BFloat16") as e:
        st.ones(2, dtype=st.bfloat16) + np.ones(2)
    with pytest.raises(TypeError, match="unsupported ScalarType BFloat16"):
        torch.ones(2, dtype=torch.bfloat16) + np.ones(2)
    assert "fix:" in str(e.value)
    with pytest.raises(ValueError, match="could not be broadcast") as e:
        st.ones(3) * np.ones((2, 4))
    with pytest.raises(ValueError, match="could not be broadcast"):
        torch.ones(3) * np.ones((2, 4))
    assert isinstance(e.value, st.errors.StridedError) and "fix:" in str(e.value)
    with pytest.raises(TypeError) as e:
        st.ones(3) & np.ones(3)
    assert isinstance(e.value, st.errors.StridedError)
    with pytest.raises(TypeError):
        torch.ones(3) & np.ones(3)


def test_the_result_is_new_memory_reported_to_watch():
    t = st.arange(6.0).reshape(2, 3).t()
    a = np.ones((3, 2))
    with st.watch() as w:
        r = t * a
    assert not np.shares_memory(np.asarray(r), a) and not st.dispatch.shares_storage(r, t)
    assert [(s.name, s.kind, s.bytes_allocated) for s in w.steps] == [("np.multiply", "compute", 6 * 8)]
    np.testing.assert_array_equal(np.asarray(r), np.asarray(t) * a)


def test_comparisons_and_inplace_keep_strideds_reading():
    """Comparisons read the array as a tensor (PyTorch raises TypeError for < and gives the
    reading's answer for ==); an in-place operator writes into the tensor in its own dtype
    (PyTorch rebinds the name to NumPy's new float64 result)."""
    t = st.tensor([1.0, 2.0, 3.0])
    assert (t == np.array([1.0, 0.0, 3.0])).tolist() == [True, False, True]
    assert (t < np.array([2.0, 2.0, 2.0])).tolist() == [True, False, False]
    before = t.data_ptr()
    t += np.array([1.0, 1.0, 1.0])
    assert t.dtype == st.float32 and t.data_ptr() == before and t.tolist() == [2.0, 3.0, 4.0]
