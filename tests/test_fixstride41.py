"""Zero-size results' strides with a Python-number operand, differential against torch.

TensorIterator gives ``op(t, number)`` no fast set-up (the number is a 0-d operand), so it orders the
dims by ``t``'s strides (``reorder_dimensions``): for an empty ``t`` whose strides are its row-major
ones, a size-1 dim inside a size-0 dim with equal strides moves inside (equal strides: the smaller
size inside), and ``compatible_stride`` then zeroes the strides outside the 0: ``(0, 1)`` strides
``(1, 1)`` gives ``(1, 0)``. isinf of a float is ``x.abs() == inf`` (the same rule). The compiled
front and the unary fast paths used to lay such a result out row-major.

Every tensor here has a few elements at most (far below 32768): torch runs them on one thread.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from strided.layout import contiguous_strides

_DTYPES = {"float32": (st.float32, torch.float32), "float64": (st.float64, torch.float64),
           "int64": (st.int64, torch.int64)}
_BINARY = ("eq", "ne", "lt", "add", "mul")
_TESTS = ("isinf", "isposinf", "isneginf", "isfinite")
_VALUES = [0.0, 1.0, -2.5, math.inf, -math.inf, math.nan, 3.0, 2.0]


@hs.composite
def _layouts(draw: hs.DrawFn) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Shapes heavy in 0 and 1 dims (mostly empty), strides row-major (the fast paths' layout) or
    arbitrary (0 included)."""
    ndim = draw(hs.integers(0, 4))
    shape = tuple(draw(hs.lists(hs.sampled_from((0, 0, 1, 1, 2, 3)), min_size=ndim, max_size=ndim)))
    if draw(hs.booleans()):
        strides = contiguous_strides(shape)
    else:
        strides = tuple(draw(hs.lists(hs.sampled_from((0, 1, 2, 3, 6)), min_size=ndim, max_size=ndim)))
    return shape, strides


def _pair(shape: tuple[int, ...], strides: tuple[int, ...], dtype: str) -> tuple[st.Tensor, torch.Tensor]:
    """The same (shape, strides) view over the same values in strided and torch."""
    sd, td = _DTYPES[dtype]
    size = 1 + sum((n - 1) * s for n, s in zip(shape, strides)) if all(shape) else 0
    values = (_VALUES * (size // len(_VALUES) + 1))[:size]
    if dtype == "int64":
        values = [int(v) if math.isfinite(v) else 7 for v in values]
    if size == 0:
        return st.empty_strided(shape, strides, dtype=sd), torch.empty_strided(shape, strides, dtype=td)
    base_s, base_t = st.tensor(values, dtype=sd), torch.tensor(values, dtype=td)
    return st.as_strided(base_s, shape, strides), torch.as_strided(base_t, shape, strides)


def _same(got: st.Tensor, want: torch.Tensor) -> None:
    assert tuple(got.shape) == tuple(want.shape)
    assert got.stride() == want.stride(), (got.shape, got.stride(), want.stride())
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    np.testing.assert_array_equal(np.asarray(got.tolist(), dtype=want.numpy().dtype).reshape(tuple(got.shape)), want.numpy())


@pytest.mark.parametrize(("shape", "strides", "op", "want"), [
    ((0, 1), (1, 1), "isinf", (1, 0)),
    ((0, 1), (1, 1), "eq_inf", (1, 0)),
    ((0, 1, 2), (2, 2, 1), "eq_inf", (2, 0, 1)),
    ((0, 1, 2), (2, 1, 1), "abs_eq_inf", (2, 0, 1)),
    ((0, 0, 1), (1, 1, 1), "add", (0, 1, 0)),
    ((0, 0, 1), (1, 1, 1), "isinf", (0, 1, 0)),
])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_reported_layouts(shape, strides, op, want, dtype):
    """The reported cases: torch's strides, also through the method and dunder forms."""
    s, t = _pair(shape, strides, dtype)
    if op == "isinf":
        got, ref = (st.isinf(s), s.isinf()), torch.isinf(t)
    elif op == "eq_inf":
        got, ref = (st.eq(s, math.inf), s.eq(math.inf), s == math.inf), torch.eq(t, math.inf)
    elif op == "abs_eq_inf":
        got, ref = (st.eq(s.abs(), math.inf),), torch.eq(t.abs(), math.inf)
    else:
        got, ref = (st.add(s, 1.5), s.add(1.5), s + 1.5, 1.5 + s), torch.add(t, 1.5)
    assert ref.stride() == want
    for g in got:
        _same(g, ref)


@settings(max_examples=300, deadline=None)
@given(layout=_layouts(), dtype=hs.sampled_from(sorted(_DTYPES)), op=hs.sampled_from(_BINARY),
       number=hs.sampled_from((1.5, 2, math.inf, -0.0)), form=hs.sampled_from(("fn", "method", "reflected", "twin", "broadcast")))
def test_binary_layouts(layout, dtype, op, number, form):
    """op(t, number), t.op(number), its reflected dunder, op(t, t) and op(ones of t's ndim, t) against torch."""
    shape, strides = layout
    s, t = _pair(shape, strides, dtype)
    if form == "fn":
        got, want = getattr(st, op)(s, number), getattr(torch, op)(t, number)
    elif form == "method":
        got, want = getattr(s, op)(number), getattr(t, op)(number)
    elif form == "reflected":  # (number - t, number * t, ...: the dunders' reflected forms)
        dunder = {"eq": "__eq__", "ne": "__ne__", "lt": "__gt__", "add": "__radd__", "mul": "__rmul__"}[op]
        got, want = getattr(s, dunder)(number), getattr(t, dunder)(number)
    elif form == "twin":
        got, want = getattr(st, op)(s, s), getattr(torch, op)(t, t)
    else:
        one_s, one_t = _pair((1,) * len(shape), (1,) * len(shape), dtype)
        got, want = getattr(st, op)(one_s, s), getattr(torch, op)(one_t, t)
    _same(got, want)


@settings(max_examples=200, deadline=None)
@given(layout=_layouts(), dtype=hs.sampled_from(sorted(_DTYPES)), op=hs.sampled_from(_TESTS))
def test_class_test_layouts(layout, dtype, op):
    """isinf / isposinf / isneginf / isfinite (function and method) against torch."""
    shape, strides = layout
    s, t = _pair(shape, strides, dtype)
    want = getattr(torch, op)(t)
    _same(getattr(st, op)(s), want)
    _same(getattr(s, op)(), want)
