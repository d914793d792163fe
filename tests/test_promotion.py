"""dtype promotion against ``torch.result_type`` and against the dtypes PyTorch's ops produce.

Every pair of the 9 dtypes, as tensors with dims, 0-d tensors and Python scalars, and every
binary op (the op's own rule on top of promotion: true division and exp-like ops give
float32 for integers, comparisons give bool, bitwise ops refuse floats).
"""

from __future__ import annotations

import itertools
import operator

import pytest
import torch

import strided as st
from oracle_helpers import case
from strided.ops._support.promotion import can_cast, promote_types

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]
SCALARS = [True, 3, -2, 2.5]


def tt(name: str, dim: bool = True) -> torch.Tensor:
    return torch.ones(2, dtype=getattr(torch, name)) if dim else torch.ones((), dtype=getattr(torch, name))


def sd(name: str, dim: bool = True) -> st.Tensor:
    return st.ones(2, dtype=name) if dim else st.ones((), dtype=name)


def tname(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


@pytest.mark.parametrize("a", DTYPES)
def test_promote_types_table(a):
    for b in DTYPES:
        assert promote_types(st.tensor([0], dtype=a).dtype, b).name == tname(
            torch.promote_types(getattr(torch, a), getattr(torch, b))
        ), b


@pytest.mark.parametrize("a", DTYPES)
def test_result_type_tensors(a):
    for b, dims in itertools.product(DTYPES, [(True, True), (True, False), (False, True), (False, False)]):
        got = st.result_type(sd(a, dims[0]), sd(b, dims[1]))
        want = torch.result_type(tt(a, dims[0]), tt(b, dims[1]))
        assert got.name == tname(want), (b, dims)


@pytest.mark.parametrize("a", DTYPES)
def test_result_type_python_scalars(a):
    for scalar, dim in itertools.product(SCALARS, [True, False]):
        assert st.result_type(sd(a, dim), scalar).name == tname(torch.result_type(tt(a, dim), scalar)), (scalar, dim)
        assert st.result_type(scalar, sd(a, dim)).name == tname(torch.result_type(scalar, tt(a, dim))), (scalar, dim)


def test_result_type_scalars_only_and_many_operands():
    assert st.result_type(2, 2.5) is st.float32
    assert st.result_type(True, 2) is st.int64
    assert st.result_type(st.ones(2, dtype="uint8"), st.ones((), dtype="int8"), 2.5) is st.float32
    assert st.result_type(st.ones(2, dtype="int8"), st.ones((), dtype="float64")).name == tname(
        torch.result_type(torch.ones(2, dtype=torch.int8), torch.ones((), dtype=torch.float64))
    )


def test_documented_examples():
    assert st.result_type(st.ones(2, dtype="int64"), 2.5) is st.float32
    assert st.result_type(st.ones(2, dtype="float16"), 2.5) is st.float16
    assert st.result_type(st.ones(2, dtype="uint8"), st.ones(2, dtype="int8")) is st.int16
    assert st.result_type(st.ones(2, dtype="int8"), 1000) is st.int8
    assert st.result_type(st.ones(2, dtype="bool"), 1) is st.int64
    assert (st.arange(3) / 2).dtype is st.float32
    assert (st.tensor([True]) / st.tensor([True])).dtype is st.float32


def test_result_type_rejects_other_objects():
    with pytest.raises(TypeError):
        st.result_type(st.ones(2), "x")
    with pytest.raises(TypeError):
        st.result_type()


OPS = {
    "add": operator.add, "sub": operator.sub, "mul": operator.mul, "truediv": operator.truediv,
    "floordiv": operator.floordiv, "mod": operator.mod, "pow": operator.pow, "and": operator.and_,
    "or": operator.or_, "xor": operator.xor, "eq": operator.eq, "lt": operator.lt,
    "maximum": None, "minimum": None,
}


def _outcome(f):
    try:
        return f().dtype
    except Exception as err:  # noqa: BLE001 - compared across libraries
        return type(err)


@pytest.mark.parametrize("op", sorted(OPS))
def test_every_binary_op_every_dtype_pair(op):
    """Result dtype (or error class) of every binary op on every pair of the 9 dtypes."""
    for a, b in itertools.product(DTYPES, DTYPES):
        if OPS[op] is None:
            fs = lambda a=a, b=b: getattr(st, op)(sd(a), sd(b))  # noqa: E731
            ft = lambda a=a, b=b: getattr(torch, op)(tt(a), tt(b))  # noqa: E731
        else:
            fs = lambda a=a, b=b: OPS[op](sd(a), sd(b))  # noqa: E731
            ft = lambda a=a, b=b: OPS[op](tt(a), tt(b))  # noqa: E731
        got, want = _outcome(fs), _outcome(ft)
        if isinstance(want, type):
            assert isinstance(got, type) and issubclass(got, want), (op, a, b, got, want)
        else:
            assert got.name == tname(want), (op, a, b, got, want)


@pytest.mark.parametrize("op", [k for k, v in OPS.items() if v is not None])
def test_every_binary_op_with_python_scalars(op):
    for a, scalar, reflected in itertools.product(DTYPES, SCALARS, (False, True)):
        f = OPS[op]
        if reflected:
            got = _outcome(lambda f=f, a=a, scalar=scalar: f(scalar, sd(a)))
            want = _outcome(lambda f=f, a=a, scalar=scalar: f(scalar, tt(a)))
        else:
            got = _outcome(lambda f=f, a=a, scalar=scalar: f(sd(a), scalar))
            want = _outcome(lambda f=f, a=a, scalar=scalar: f(tt(a), scalar))
        if isinstance(want, type):
            assert isinstance(got, type) and issubclass(got, want), (op, a, scalar, reflected, got, want)
        else:
            assert got.name == tname(want), (op, a, scalar, reflected, got, want)


@pytest.mark.parametrize("op", ["exp", "log", "sqrt", "sin", "cos", "tanh", "sigmoid", "neg", "abs", "relu"])
def test_unary_result_dtypes(op):
    for a in DTYPES:
        got = _outcome(lambda a=a: getattr(st, op)(sd(a)))
        want = _outcome(lambda a=a: getattr(torch, op)(tt(a)))
        if isinstance(want, type):
            assert isinstance(got, type) and issubclass(got, want), (op, a, got, want)
        else:
            assert got.name == tname(want), (op, a)


@pytest.mark.parametrize("a", DTYPES)
def test_can_cast_matches_inplace_add(a):
    """``x.add_(y)`` is allowed exactly when PyTorch allows it (its canCast rule)."""
    for b in DTYPES:
        with case(b=b):
            _can_cast_matches_inplace_add(a, b)


def _can_cast_matches_inplace_add(a: str, b: str) -> None:
    ok_torch = True
    try:
        tt(a).add_(tt(b)) if a != "bool" or b != "bool" else None
    except RuntimeError:
        ok_torch = False
    rt = st.result_type(sd(a), sd(b))
    assert can_cast(rt, sd(a).dtype) == ok_torch
