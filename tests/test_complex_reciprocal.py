"""Complex reciprocal as PyTorch computes it: the division ``1 / z`` (NumPy's ``np.reciprocal``
rounds otherwise: ``1 / (0 - 1j)`` had a +0 real part where PyTorch's is -0), and ``1 / 0j`` is
``inf + nanj`` with a positive NaN. Bits compared on every pair of special parts, in place and
on a strided view."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
import torch

import strided as st

PARTS = [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 1e-30, 1e30, 3.0, 2.5e-45]
VALUES = [complex(a, b) for a, b in itertools.product(PARTS, PARTS)]
CALLS = {
    "reciprocal": lambda t: t.reciprocal(),
    "reciprocal_": lambda t: t.reciprocal_(),
    "column": lambda t: t.reshape(-1, 1).expand(-1, 2).contiguous().t()[0].reciprocal(),
    "2.5 / t": lambda t: 2.5 / t,
    "(1+2j) / t": lambda t: (1 + 2j) / t,
}


def _bits(x: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(x).view(np.uint32 if x.dtype == np.complex64 else np.uint64)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("call", list(CALLS))
def test_complex_reciprocal_bits_are_pytorchs(dtype, call):
    z = np.array(VALUES, dtype=dtype)
    if "/" in call:  # (a scalar over 0j multiplies inf + nanj by the scalar: NaN operands, whose sign no library defines)
        z = z[z != 0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = CALLS[call](torch.from_numpy(z.copy())).numpy()
        got = np.asarray(CALLS[call](st.tensor(z)))
    np.testing.assert_array_equal(_bits(got), _bits(want))


def test_reciprocal_of_complex_zero_has_a_positive_nan():
    got = np.asarray(st.tensor([0j, complex(-0.0, -0.0)], dtype=st.complex64).reciprocal())
    assert np.isinf(got.real).all() and np.isnan(got.imag).all() and not np.signbit(got.imag).any()
