"""Complex add/sub as PyTorch computes them: ``x + alpha * y`` with a complex product (sub with
alpha negated), alpha = 1 included, so an inf or NaN part of ``y`` makes the other part NaN and
zeros' signs follow the product. Every pair of special parts, both dtypes, all forms."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import strided as st

_PARTS = (0.0, -0.0, 1.0, -1.0, 2.5, math.inf, -math.inf, math.nan)
_VALUES = [complex(r, i) for r in _PARTS for i in _PARTS]


def _pairs(dtype: str) -> tuple[np.ndarray, np.ndarray]:
    a = np.array([x for x in _VALUES for _ in _VALUES], dtype)
    b = np.array([y for _ in _VALUES for y in _VALUES], dtype)
    return a, b


def _bits(x: np.ndarray) -> np.ndarray:
    parts = x.view(np.float64 if x.dtype == np.complex128 else np.float32)
    return np.where(np.isnan(parts), np.nan, parts).view(np.uint64 if x.dtype == np.complex128 else np.uint32)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("name", ["add", "sub"])
@pytest.mark.parametrize("alpha", [None, 1, 2, -1.5, 2 + 0j, 1j])
def test_complex_add_sub_match_torch_bits(dtype: str, name: str, alpha) -> None:
    a, b = _pairs(dtype)
    kw = {} if alpha is None else {"alpha": alpha}
    with np.errstate(all="ignore"):
        want = getattr(torch, name)(torch.from_numpy(a), torch.from_numpy(b), **kw).numpy()
        got = getattr(st, name)(st.from_numpy(a.copy()), st.from_numpy(b.copy()), **kw).numpy()
        # in place and out= take the same kernel
        x = st.from_numpy(a.copy())
        getattr(x, name + "_")(st.from_numpy(b.copy()), **kw)
        o = st.empty(len(a), dtype=getattr(st, dtype))
        getattr(st, name)(st.from_numpy(a.copy()), st.from_numpy(b.copy()), out=o, **kw)
    for result in (got, x.numpy(), o.numpy()):
        assert np.array_equal(_bits(result), _bits(want))


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_operators_and_numbers_match_torch(dtype: str) -> None:
    a, b = _pairs(dtype)
    ta, sa = torch.from_numpy(a), st.from_numpy(a.copy())
    with np.errstate(all="ignore"):
        for number in (complex(-math.inf, 1), complex(1, math.inf), complex(-0.0, -1), 2.0):
            for want, got in ((ta + number, sa + number), (ta - number, sa - number),
                              (number - ta, number - sa), (number + ta, number + sa)):
                assert np.array_equal(_bits(got.numpy()), _bits(want.numpy()))
        tb, sb = torch.from_numpy(b), st.from_numpy(b.copy())
        assert np.array_equal(_bits((sa - sb).numpy()), _bits((ta - tb).numpy()))
        assert np.array_equal(_bits((sb + sa).numpy()), _bits((tb + ta).numpy()))


def test_the_example_from_the_red_team() -> None:
    # (1+1j) + (-inf+1j): PyTorch's -inf+nanj; componentwise addition would give -inf+2j
    got = st.add(st.tensor([1 + 1j]), st.tensor([complex(-math.inf, 1)]))
    assert math.isinf(got[0].item().real) and math.isnan(got[0].item().imag)
