"""split_with_sizes, sum_to_size, is_signed, is_same_size, is_neg and resolve_neg against PyTorch:
values, views (split_with_sizes' pieces share the storage), grad_fn names, errors (class and text)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
          "complex64", "complex128", "uint16", "uint32", "uint64"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_is_signed(dtype: str) -> None:
    assert st.ones(1, dtype=getattr(st, dtype)).is_signed() == torch.ones(1, dtype=getattr(torch, dtype)).is_signed()
    assert st.is_signed(st.ones(1, dtype=getattr(st, dtype))) == torch.is_signed(torch.ones(1, dtype=getattr(torch, dtype)))


def _outcome(fn) -> tuple:
    try:
        out = fn()
    except Exception as err:  # noqa: BLE001 - the class and text are the comparison
        return type(err).__name__.replace("Strided", ""), str(err).splitlines()[0]
    if isinstance(out, (tuple, list)):
        return ("ok", [(p.tolist(), tuple(p.shape), p.stride(), p.storage_offset()) for p in out])
    if hasattr(out, "tolist"):
        return ("ok", out.tolist(), tuple(out.shape), out.stride())
    return ("ok", out)


CASES = [
    lambda L: L.arange(5.0).split_with_sizes([2, 3]),
    lambda L: L.arange(12.0).reshape(3, 4).t().split_with_sizes([1, 0, 3], 1),
    lambda L: L.split_with_sizes(L.arange(5.0), (1, 4)),
    lambda L: L.arange(5.0).split_with_sizes(2),
    lambda L: L.arange(5.0).split_with_sizes([2, 2]),
    lambda L: L.arange(5.0).split_with_sizes([2, -1, 4]),
    lambda L: L.tensor(1.0).split_with_sizes([1]),
    lambda L: L.ones(2, 3).sum_to_size(2, 1), lambda L: L.ones(2, 3).sum_to_size((1, 3)),
    lambda L: L.ones(2, 3).sum_to_size(3, 3), lambda L: L.ones(2, 3).sum_to_size(3),
    lambda L: L.ones(2, 3).sum_to_size(()), lambda L: L.ones(2, 1, 3).sum_to_size(1, 1),
    lambda L: L.ones(2, 3).sum_to_size(1, 1, 3), lambda L: L.ones(0, 3).sum_to_size(1, 3),
    lambda L: L.arange(6).reshape(2, 3).sum_to_size([1, 3]),
    lambda L: L.ones(2).is_same_size(L.ones(2)), lambda L: L.ones(2).is_same_size(L.ones(1, 2)),
    lambda L: L.ones(2).is_same_size(3), lambda L: L.is_same_size(L.ones(2, 3), L.zeros(2, 3)),
    lambda L: L.ones(2).is_neg(),
]


@pytest.mark.parametrize("case", CASES)
def test_as_pytorch(case) -> None:
    assert _outcome(lambda: case(st)) == _outcome(lambda: case(torch))


def test_split_with_sizes_pieces_are_views_with_pytorchs_node() -> None:
    x = st.arange(5.0, requires_grad=True)
    t = torch.arange(5.0, requires_grad=True)
    pieces, tpieces = (x * 1).split_with_sizes([2, 3]), (t * 1).split_with_sizes([2, 3])
    assert [p.grad_fn.name() for p in pieces] == [p.grad_fn.name() for p in tpieces] == ["SplitWithSizesBackward0"] * 2
    (pieces[0].sum() * 2 + pieces[1].sum()).backward()
    (tpieces[0].sum() * 2 + tpieces[1].sum()).backward()
    assert x.grad.tolist() == t.grad.tolist()
    base = st.arange(5.0)
    a, b = base.split_with_sizes([2, 3])
    b[0] = 100
    assert base[2].item() == 100 and b._base is base


def test_resolve_neg_is_the_tensor() -> None:
    """strided has no negative bit (the README's deliberate difference: conj() writes the values):
    PyTorch's conj().imag is a negated view (is_neg() True); strided's holds the negated values."""
    x = st.tensor([1j, 2])
    assert x.resolve_neg() is x
    imag = x.conj().imag
    assert not imag.is_neg() and imag.tolist() == torch.tensor([1j, 2]).conj().imag.resolve_neg().tolist()


@settings(max_examples=80, deadline=None)
@given(hs.lists(hs.integers(1, 3), min_size=1, max_size=4), hs.data())
def test_sum_to_size_against_pytorch(shape: list[int], data) -> None:
    keep = [data.draw(hs.booleans()) for _ in shape]
    lead = data.draw(hs.integers(0, len(shape)))
    target = tuple(n if k else 1 for n, k in zip(shape, keep))[lead:]
    values = np.arange(float(np.prod(shape))).reshape(shape)
    got = st.tensor(values).sum_to_size(target)
    expected = torch.tensor(values).sum_to_size(target)
    assert tuple(got.shape) == tuple(expected.shape) and got.tolist() == expected.tolist()
