"""Round-4 follow-ups, each against torch 2.13: ``requires_grad=`` flags that are not bools,
``arange`` into an integer dtype with float numbers, the index_* ops' index checks, ``out=`` of
cat/stack and of the (values, indices) reductions, ``div``'s rounding modes, ``clamp`` of -0.0 and
NaN. Each case failed before its fix (see the branch's commits)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided as st


def outcome(fn, mod):
    """``fn(mod)``'s value (list, dtype name) or its error (class family, first line)."""
    try:
        r = fn(mod)
    except Exception as e:  # (the class family: strided's errors subclass the builtin ones)
        for cls in (ValueError, TypeError, IndexError, RuntimeError, ZeroDivisionError):
            if isinstance(e, cls):
                return cls.__name__, str(e).splitlines()[0]
        raise
    return r.tolist(), str(r.dtype).split(".")[-1]


def agree(fn) -> None:
    assert outcome(fn, st) == outcome(fn, torch)


# ---------------------------------------------------------------- a. requires_grad must be a bool

@pytest.mark.parametrize("call", [
    lambda m: m.zeros(2, requires_grad=1),
    lambda m: m.ones(2, requires_grad=0),
    lambda m: m.empty(2, requires_grad=1.0),
    lambda m: m.full((2,), 1.0, requires_grad=np.bool_(True)),
    lambda m: m.tensor([1.0], requires_grad=1),
    lambda m: m.zeros_like(m.zeros(2), requires_grad=1),
    lambda m: m.full_like(m.zeros(2), 3, requires_grad=1),
    lambda m: m.zeros(2).new_zeros(2, requires_grad=1),
    lambda m: m.zeros(2).new_tensor([1.0], requires_grad=1),
    lambda m: m.zeros(2).requires_grad_(1),
    lambda m: m.zeros(2).requires_grad_(None),
    lambda m: m.zeros(2, requires_grad=None),
])
def test_requires_grad_flag(call) -> None:
    agree(call)


def test_requires_grad_setter_and_overloaded_factories() -> None:
    for m in (st, torch):
        t = m.zeros(2)
        with pytest.raises(RuntimeError, match="requires_grad must be a bool"):
            t.requires_grad = 1
        assert not t.requires_grad
        for f in (lambda m: m.randn(2, requires_grad=1), lambda m: m.arange(3.0, requires_grad=1),
                  lambda m: m.eye(2, requires_grad=1), lambda m: m.linspace(0, 1, 3, requires_grad=1)):
            with pytest.raises(TypeError, match="requires_grad"):  # (PyTorch: its overload list)
                f(m)
    st.manual_seed(3)
    with pytest.raises(TypeError):
        st.rand(2, requires_grad=1)
    after_refusal = st.rand(2)
    st.manual_seed(3)
    assert after_refusal.tolist() == st.rand(2).tolist()  # (the refusal drew nothing)


# ---------------------------------------------------------------- b. arange: float numbers, integer dtype

@pytest.mark.parametrize("args,dtype", [
    ((0, 2.5, 0.5), "int64"), ((0.5, 3), "int32"), ((0.5, 3.7, 0.6), "int64"), ((-0.5, 3), "int64"),
    ((2.5,), "int64"), ((0, 1, 0.3), "uint8"), ((0, -2.5, -0.5), "int16"), ((0, 2, 0.5), "int8"),
    ((1e10, 1e10 + 3), "int32"), ((-0.5, -0.2), "int64"), ((-0.5, -0.2), "int32"),
    ((0.9, 3.9, 1.9), "int64"), ((0.9, 3.9, 1.9), "int32"), ((-3.9, 0.9, 1.9), "int64"),
    ((5, 0.5, -1.5), "int64"), ((5, 0.5, -1.5), "uint8"), ((0, 5, 1.5), "int32"),
    ((0, 1e30, 1e29), "int64"), ((0, 1e30, 1e29), "int32"), ((0.5, 1e19, 1e18), "int64"),
    ((0, 2, float("nan")), "int64"), ((0, float("inf")), "int64"), ((2, 0.5), "int64"),
])
def test_arange_integer_dtype_float_numbers(args, dtype) -> None:
    agree(lambda m: m.arange(*args, dtype=getattr(m, dtype)))


# ---------------------------------------------------------------- c. index_* with indices out of range

@pytest.mark.parametrize("call", [
    lambda m: m.zeros(3).index_add(0, m.tensor([0, -1]), m.ones(2)),
    lambda m: m.zeros(3).index_select(0, m.tensor([0, 3])),
    lambda m: m.zeros(2, 3).index_select(1, m.tensor([0, 5])),  # (PyTorch's dim-1 path: RuntimeError)
    lambda m: m.zeros(3, 2).t().index_select(-1, m.tensor([-1], dtype=m.int32)),
    lambda m: m.zeros(2, 3, 4).index_select(2, m.tensor([4])),
    lambda m: m.zeros(2, 3).index_add(1, m.tensor([0, 5]), m.ones(2, 2)),
    lambda m: m.zeros(3).index_copy(0, m.tensor([0, -1]), m.ones(2)),
    lambda m: m.zeros(3).index_fill(0, m.tensor([0, -1]), 5.0),  # (negative indices wrap here)
    lambda m: m.zeros(3).index_fill(0, m.tensor([1, -4]), 5.0),
])
def test_index_ops_out_of_range(call) -> None:
    agree(call)


def test_index_ops_refuse_before_writing() -> None:
    """PyTorch writes the in-range slices before it meets the bad index; strided writes nothing."""
    for op, args in (("index_add_", (st.ones(2),)), ("index_copy_", (st.ones(2),)), ("index_fill_", (5.0,))):
        t = st.zeros(3)
        with pytest.raises(IndexError):
            getattr(t, op)(0, st.tensor([1, 3]), *args)
        assert t.tolist() == [0.0, 0.0, 0.0]
