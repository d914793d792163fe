"""Comparison helpers shared by test_sorting.py and test_scans.py (strided against PyTorch 2.13)."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

import strided as st
from oracle_helpers import builtin_class

TOL = {"float64": (1e-12, 1e-12), "float32": (1e-6, 1e-6), "float16": (1e-3, 1e-3)}


def same_error(t_exc: BaseException | None, s_exc: BaseException | None) -> None:
    """Both raised, with the same builtin class and (except argument-parser TypeErrors) first line,
    and strided adds a detail line; or neither raised."""
    assert (t_exc is None) == (s_exc is None), f"torch: {t_exc!r}\nstrided: {s_exc!r}"
    if t_exc is None:
        return
    assert builtin_class(s_exc) is builtin_class(t_exc), f"torch: {t_exc!r}\nstrided: {s_exc!r}"
    assert isinstance(s_exc, st.StridedError)
    if not isinstance(t_exc, TypeError):
        assert str(s_exc).splitlines()[0] == str(t_exc).splitlines()[0]
    assert len(str(s_exc).splitlines()) >= 2, "a detail line follows the first"


def assert_matches(s: Any, t: torch.Tensor, strides: bool = True, exact: bool = False) -> None:
    """Same shape, dtype, (strides) and values; floats within TOL (or exactly), NaN equal to NaN."""
    assert isinstance(s, st.Tensor), s
    assert s.shape == tuple(t.shape)
    assert s.dtype.name == str(t.dtype).removeprefix("torch.")
    if strides:
        assert s.stride() == t.stride(), (s.stride(), t.stride())
    if s.dtype.is_floating_point and not exact:
        rtol, atol = TOL[s.dtype.name]
        np.testing.assert_allclose(s.numpy(), t.numpy(), rtol=rtol, atol=atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(s.numpy(), t.numpy())


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
