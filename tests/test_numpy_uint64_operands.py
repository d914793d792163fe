"""A NumPy uint64 above int64's range as an operand: PyTorch's parser refuses it (it reads NumPy
integers as int64), so its functions raise TypeError, its arithmetic operators hand over to NumPy
(the values, no wrap), ==/!= are Python's identity answers and order comparisons raise. strided
wrapped it into a negative int64 and computed with that: silently wrong numbers."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
import torch

import strided as st
from oracle_helpers import case

BIG = (np.uint64(2**63 + 1), np.uint64(2**64 - 1))


def outcome(f):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # (torch's __array_wrap__ under NumPy 2)
            return "ok", f()
    except TypeError as e:
        return "TypeError", str(e)


@pytest.mark.parametrize("form", ["t + v", "t - v", "t * v", "t / v", "t.add(v)", "L.mul(t, v)", "t.sub_(v)",
                                  "t < v", "t >= v", "v > t", "v + t", "v * t", "t.lt(v)", "L.eq(t, v)"])
def test_refused_or_numpys_values_as_pytorch(form):
    for value, dtype in itertools.product(
            BIG,
            ["int64", "int32", "float32", "float64", "bool"]):
        with case(value=value, dtype=dtype):
            _refused_or_numpys_values_as_pytorch(value, dtype, form)


def _refused_or_numpys_values_as_pytorch(value, dtype, form):
    data = [1, 0, 3] if dtype != "bool" else [True, False, True]
    t_kind, t_out = outcome(lambda: eval(form, {"t": torch.tensor(data, dtype=getattr(torch, dtype)), "v": value,
                                                "L": torch}))
    s_kind, s_out = outcome(lambda: eval(form, {"t": st.tensor(data, dtype=getattr(st, dtype)), "v": value,
                                                "L": st}))
    assert s_kind == t_kind, (t_out, s_out)
    if t_kind == "ok":  # NumPy's operator computed (torch hands back an ndarray, strided a tensor of it)
        assert np.array_equal(np.asarray(s_out), np.asarray(t_out)) and np.asarray(s_out).dtype == np.asarray(t_out).dtype


@pytest.mark.parametrize("value", BIG)
def test_equality_is_pythons_identity_answer(value):
    for lib in (torch, st):
        t = lib.tensor([-1, 1])
        assert (t == value) is False and (t != value) is True
        assert (value == t) is False and (value != t) is True


def test_the_function_forms_name_the_fix():
    with pytest.raises(TypeError, match=r"add\(\): an integer is required \(got a NumPy uint64 of 9223372036854775809"):
        st.tensor([1]).add(np.uint64(2**63 + 1))
    with pytest.raises(TypeError, match=r"'<' not supported between instances of 'Tensor' and 'numpy.uint64'"):
        st.tensor([1]) < np.uint64(2**63 + 1)  # noqa: B015


@pytest.mark.parametrize("value", [np.uint64(0), np.uint64(7), np.uint64(2**63 - 1), np.uint32(2**32 - 1)])
def test_in_range_unsigned_scalars_still_work_as_pytorch(value):
    for form in ("t + v", "t * v", "t < v", "v > t", "t.add(v)", "t == v"):
        tr = eval(form, {"t": torch.tensor([1, 2]), "v": value})
        sr = eval(form, {"t": st.tensor([1, 2]), "v": value})
        assert sr.tolist() == tr.tolist() and str(sr.dtype)[8:] == str(tr.dtype)[6:]
