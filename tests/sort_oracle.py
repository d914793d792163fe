"""Comparison helpers shared by test_sorting.py and test_scans.py (strided against PyTorch 2.13)."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from hypothesis import strategies as hs

from oracle_helpers import assert_same_tensor

DTYPES = ["bool", "uint8", "int8", "int32", "int64", "float16", "float32", "float64"]
TOL = {"float64": (1e-12, 1e-12), "float32": (1e-6, 1e-6), "float16": (1e-3, 1e-3)}


def dim_of(data: Any, ndim: int) -> int:
    """A dim drawn from hypothesis ``data`` for an ``ndim``-d tensor: every valid one, and one out of
    range on each side."""
    span = max(ndim, 1)
    return data.draw(hs.integers(-span - 1, span))


def assert_matches(s: Any, t: torch.Tensor, strides: bool = True, exact: bool = False) -> None:
    """Same shape, dtype, (strides) and values; floats within TOL (or exactly), NaN equal to NaN."""
    assert_same_tensor(s, t, TOL, strides=strides, exact=exact)


def gathers_values(x: np.ndarray, d: int, values: np.ndarray, indices: np.ndarray) -> None:
    """``indices`` point along dim ``d`` of ``x`` at exactly ``values`` (NaN at NaN)."""
    if x.ndim == 0:
        assert indices.shape == () and int(indices) == 0
        np.testing.assert_array_equal(values, x)
        return
    assert indices.dtype == np.int64
    assert ((indices >= 0) & (indices < max(x.shape[d], 1))).all()
    got = np.take_along_axis(x, indices, axis=d) if indices.size else values
    np.testing.assert_array_equal(got, values)
