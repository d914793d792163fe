"""Red-team findings on the indexsort fast paths and their neighbours, each against PyTorch.

- isin compares in the operands' result type, as PyTorch does (a float32 tensor meets the number
  0.1 as float32(0.1); int64 meets float32 in float32; a number beyond an int dtype wraps), and
  refuses complex with PyTorch's error.
"""

from __future__ import annotations

import pytest
import torch

import strided as st


def _pair(x):
    """The same operand for strided and PyTorch (a list: a tensor; a number: itself)."""
    if isinstance(x, tuple):
        values, name = x
        return st.tensor(values, dtype=getattr(st, name)), torch.tensor(values, dtype=getattr(torch, name))
    return x, x


ISIN_CASES = [
    (([0.1, 0.2], "float32"), 0.1),  # the number meets the tensor as float32(0.1)
    (0.1, ([0.1, 0.2], "float32")),
    (([16777217], "int64"), ([16777216.0], "float32")),  # compared in float32: equal
    (([0.1, 0.2], "float16"), ([0.1], "float32")),
    (([44, 2], "int8"), 300),  # 300 wraps to 44 in int8
    (([255, 2], "uint8"), -1),
    (([44, 2], "int8"), ([300], "int64")),  # tensor operands promote: int64, no wrap
    (([-56, 3], "int8"), ([200, 3], "uint8")),
    (([1, 2], "int64"), 2.5),
]


@pytest.mark.parametrize("elements, test_elements", ISIN_CASES)
@pytest.mark.parametrize("invert", [False, True])
def test_isin_compares_in_the_result_type(elements, test_elements, invert: bool) -> None:
    (se, te), (st_, tt) = _pair(elements), _pair(test_elements)
    got = st.isin(se, st_, invert=invert)
    want = torch.isin(te, tt, invert=invert)
    assert got.tolist() == want.tolist() and tuple(got.shape) == tuple(want.shape)


def test_isin_refuses_complex_as_pytorch_does() -> None:
    for a, b in [(([1.0], "float32"), ([1j], "complex128")), (([1j], "complex64"), ([1.0], "float32"))]:
        (sa, ta), (sb, tb) = _pair(a), _pair(b)
        with pytest.raises(RuntimeError) as want:
            torch.isin(ta, tb)
        with pytest.raises(st.StridedRuntimeError) as got:
            st.isin(sa, sb)
        assert str(want.value) == str(got.value).splitlines()[0]
