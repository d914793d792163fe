"""A complex number written into a real tensor, as PyTorch: a bool tensor takes its truth (either
part nonzero), other dtypes refuse a nonzero imaginary part (RuntimeError) and take the real part
otherwise. strided crashed inside NumPy (ValueError from np.finfo(bool)) on bool.fill_(2j)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import strided as st
from oracle_helpers import case

VALUES = [1 + 2j, 2j, 3.7 + 0j, 0j, complex(0, -0.0), 1e300 + 1j, -1 + 1j, complex(float("nan"), 1), 300 + 1j,
          1e-320 + 0j, np.complex128(2j)]


def outcome(lib, dtype, make):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return "ok", make(lib, getattr(lib, dtype)).tolist()
    except RuntimeError as e:  # (the C type named differs: PyTorch's t[i] = z names double for float16)
        assert str(e).startswith("value cannot be converted to type ") and "without overflow" in str(e)
        return "RuntimeError"


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int64", "float16", "float32", "float64"])
@pytest.mark.parametrize("how", ["fill_", "full", "masked_fill", "setitem"])
def test_like_pytorch(dtype, how):
    for value in VALUES:
        with case(value=value):
            _like_pytorch(dtype, value, how)


def _like_pytorch(dtype, value, how):
    def make(lib, dt):
        if how == "fill_":
            return lib.zeros(3, dtype=dt).fill_(value)
        if how == "full":
            return lib.full((3,), value, dtype=dt)
        if how == "masked_fill":
            return lib.zeros(3, dtype=dt).masked_fill(lib.tensor([True, False, True]), value)
        t = lib.zeros(3, dtype=dt)
        t[1] = value
        return t

    assert outcome(st, dtype, make) == outcome(torch, dtype, make)
