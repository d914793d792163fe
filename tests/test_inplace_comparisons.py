"""``eq_``/``ne_``/``lt_``/``le_``/``gt_``/``ge_`` (and ``not_equal_``, ``less_``, ``less_equal_``,
``greater_``, ``greater_equal_``) as PyTorch's Tensor methods: the comparison's 0/1 written into
the tensor in its own dtype, through views; in the graph a zero-gradient node (``EqBackward0``
for a number, ``EqBackward1`` for a tensor). And the binary ops' error order: TensorIterator
checks the operands' shapes and an in-place target's shape before any dtype (a complex or
uint16 operand of the wrong shape is a shape error in PyTorch, was a missing kernel here).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from oracle_helpers import case

NAMES = ["eq_", "ne_", "lt_", "le_", "gt_", "ge_", "not_equal_", "less_", "less_equal_", "greater_", "greater_equal_"]
DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "uint8", "bool", "complex64"]
OTHERS = ["number 1", "number 0.5", "number True", "same", "float64 row", "int column", "bool row", "too big"]


def _other(lib, kind: str, x):
    return {
        "number 1": lambda: 1, "number 0.5": lambda: 0.5, "number True": lambda: True,
        "same": lambda: x.clone().flip(0),
        "float64 row": lambda: lib.tensor([1.0, 1.5, 0.0], dtype=lib.float64),
        "int column": lambda: lib.tensor([[1], [0]]),
        "bool row": lambda: lib.tensor([True, False, True]),
        "too big": lambda: lib.ones(3, 2, 3),
    }[kind]()


def _outcome(lib, name: str, dtype: str, other: str, values: np.ndarray) -> tuple:
    base = lib.tensor(values.astype(np.float32)).to(getattr(lib, dtype))
    x = base.t().contiguous().t()  # (column-major: the write goes through the tensor's own strides)
    o = _other(lib, other, x)
    try:
        r = getattr(x, name)(o)
    except Exception as err:  # noqa: BLE001 - the class is the comparison
        return (type(err).__name__.replace("Strided", ""),)
    return ("ok", r is x, str(r.dtype).split(".")[-1], r.to(lib.float64).tolist(), tuple(r.stride()))


@pytest.mark.parametrize("name", NAMES)
def test_in_place_comparison_matches_pytorch(name: str) -> None:
    values = np.array([[0, 1, 2], [1, 1, 0]])
    for dtype, other in itertools.product(DTYPES, OTHERS):
        with case(dtype=dtype, other=other):
            assert _outcome(st, name, dtype, other, values) == _outcome(torch, name, dtype, other, values)


@settings(max_examples=60, deadline=None)
@given(hs.sampled_from(NAMES), hs.lists(hs.integers(-2, 2), min_size=6, max_size=6), hs.integers(-2, 2))
def test_in_place_comparison_through_a_view(name: str, values: list[int], number: int) -> None:
    got, expected = st.tensor(values, dtype=st.float32).view(2, 3), torch.tensor(values, dtype=torch.float32).view(2, 3)
    getattr(got[:, 1:], name)(number)
    getattr(expected[:, 1:], name)(number)
    assert got.tolist() == expected.tolist()


@pytest.mark.parametrize("name", NAMES)
def test_in_place_comparison_in_the_graph_has_a_zero_gradient(name: str) -> None:
    results = []
    for lib in (torch, st):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        o = lib.tensor([2.0, 2.0, 2.0], requires_grad=True)
        y = x * 1
        getattr(y, name)(2.0)
        first = y.grad_fn.name()
        y = x * 1
        getattr(y, name)(o)
        (y * x).sum().backward()
        results.append((first, y.grad_fn.name(), x.grad.tolist(), o.grad.tolist(), y.tolist()))
    assert results[1] == results[0]


def test_in_place_comparison_of_a_leaf_that_requires_grad_is_refused() -> None:
    x = st.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place operation"):
        x.eq_(1.0)


OPS = ["add", "sub", "mul", "remainder", "fmod", "lt", "eq", "bitwise_and", "pow", "atan2", "maximum",
       "logical_and", "floor_divide", "copysign", "xlogy"]
SHAPE_CASES = [("complex64", "float32", (2, 3), (4,)), ("uint16", "uint16", (2, 3), (4,)),
               ("bool", "bool", (2, 3), (3, 2, 3)), ("complex64", "float32", (2, 3), (3, 2, 3)),
               ("float32", "float32", (2, 3), (4,))]


@pytest.mark.parametrize("name", OPS)
def test_a_shape_error_comes_before_a_dtype_error(name: str) -> None:
    for inplace, shapes in itertools.product([False, True], SHAPE_CASES):
        with case(inplace=inplace, case=shapes):
            _shape_error_comes_before_a_dtype_error(name, inplace, shapes)


def _shape_error_comes_before_a_dtype_error(name: str, inplace: bool, shapes: tuple) -> None:
    dt1, dt2, s1, s2 = shapes
    outcomes = []
    for lib in (torch, st):
        a, b = lib.ones(*s1, dtype=getattr(lib, dt1)), lib.ones(*s2, dtype=getattr(lib, dt2))
        try:
            getattr(a, name + ("_" if inplace else ""))(b)
            outcomes.append(("ok",))
        except Exception as err:  # noqa: BLE001
            outcomes.append((type(err).__name__.replace("Strided", ""), str(err).splitlines()[0]))
    assert outcomes[1][0] == outcomes[0][0]
    if outcomes[0][0] == "RuntimeError":
        assert outcomes[1][1] == outcomes[0][1]
