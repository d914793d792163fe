"""Bit shifts (``<<``, ``>>``, ``bitwise_left_shift``, ...) and unary plus on Tensor against PyTorch 2.13."""

from __future__ import annotations

import pytest
import torch

import strided
from oracle_helpers import same_error
from strided.ops.elementwise.shifts import bitwise_left_shift, bitwise_right_shift, positive

CASES = [
    ("int8", "int8"), ("int16", "uint8"), ("uint8", "int8"), ("int64", "int32"), ("bool", "int64"),
]


def _pair(lib, a: str, b: str):
    x = lib.tensor([[-8, 3, 1], [5, -1, 0]]).to(getattr(lib, a)).permute(1, 0)  # non-contiguous
    y = lib.tensor([0, 1, 7, 9, 2, 3]).reshape(3, 2).to(getattr(lib, b))
    return x, y


@pytest.mark.parametrize(("a", "b"), CASES)
def test_shifts_match_torch(a, b):
    xs, ys = _pair(strided, a, b)
    xt, yt = _pair(torch, a, b)
    for s_out, t_out in [(xs << ys, xt << yt), (xs >> ys, xt >> yt), (xs << 2, xt << 2), (3 >> ys, 3 >> yt),
                         (bitwise_left_shift(xs, ys), torch.bitwise_left_shift(xt, yt)),
                         (bitwise_right_shift(xs, 70), torch.bitwise_right_shift(xt, 70))]:
        assert s_out.tolist() == t_out.tolist()
        assert s_out.dtype.name == str(t_out.dtype).removeprefix("torch.")


def test_in_place_shift_writes_through_a_view():
    base = strided.tensor([1, 2, 3, 4])
    view = base[::2]
    view <<= 3
    assert base.tolist() == [8, 2, 24, 4]
    view >>= strided.tensor([1, 2])
    assert base.tolist() == [4, 2, 6, 4]


@pytest.mark.parametrize("expr", [
    "lib.tensor([True]) << lib.tensor([True])", "lib.tensor([1.5]) << 1", "lib.tensor([4]) >> 1.5",
    "lib.tensor([5], dtype=lib.uint32) >> 1", "lib.tensor([5], dtype=lib.uint8) << lib.tensor([1], dtype=lib.uint16)",
    "+lib.tensor([True])",
])
def test_refusals_match_torch(expr):
    same_error(lambda: eval(expr, {"lib": torch}), lambda: eval(expr, {"lib": strided}))


def test_positive_is_the_input_itself():
    t = strided.tensor([1.0, -2.0])
    assert positive(t) is t and (+t) is t
