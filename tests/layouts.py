"""Shared test helpers: hypothesis strategies for hard layouts, built the same way in all three libraries.

A layout spec is (storage_size, shape, strides, offset) in elements. ``build_*``
functions lay it over ``arange(storage_size)`` in PyTorch, NumPy and strided,
so the three start from identical memory and identical layouts.
"""

from __future__ import annotations

import numpy as np
import torch

import strided as st
from layout_strategies import Spec, specs  # noqa: F401 - re-exported for the test modules
from strided.layout import Layout


def build_torch(spec: Spec) -> torch.Tensor:
    assert not spec.has_negative
    return torch.arange(spec.storage_size).as_strided(spec.shape, spec.strides, spec.offset)


def build_numpy(spec: Spec) -> np.ndarray:
    base = np.arange(spec.storage_size, dtype=np.int64)
    return np.ndarray(spec.shape, np.int64, buffer=base, offset=spec.offset * 8 if 0 not in spec.shape else 0,
                      strides=tuple(s * 8 for s in spec.strides))


def build_strided(spec: Spec) -> st.Tensor:
    root = st.arange(spec.storage_size)
    return root._view(Layout(spec.shape, spec.strides, spec.offset))


def np_offset(a: np.ndarray, base_ptr: int) -> int:
    """Element offset of a NumPy view's first element from ``base_ptr``."""
    return (a.__array_interface__["data"][0] - base_ptr) // a.itemsize


def valued_storage(spec: Spec, dtype: str, seed: int, nan: bool = False) -> np.ndarray:
    """A storage of ``spec.storage_size`` values of ``dtype``: normal floats (x3), small ints,
    or random bools; with ``nan``, about one float in eight is NaN (and one in sixteen +-inf)."""
    rng = np.random.default_rng(seed)
    n = spec.storage_size
    kind = np.dtype(dtype).kind
    if kind == "b":
        return rng.integers(0, 2, n).astype(np.bool_)
    if kind in "iu":
        return rng.integers(0 if kind == "u" else -5, 6, n).astype(dtype)
    data = (rng.standard_normal(n) * 3).astype(dtype)
    if nan and n:
        data[rng.random(n) < 0.125] = np.nan
        data[rng.random(n) < 0.0625] = np.inf * rng.choice([-1, 1])
    return data


def build_valued(spec: Spec, data: np.ndarray) -> tuple[torch.Tensor | None, np.ndarray, st.Tensor]:
    """The spec's layout over ``data`` (one shared buffer) in PyTorch (None when a stride is
    negative, which PyTorch cannot express), NumPy and strided."""
    item = data.itemsize
    empty = 0 in spec.shape
    arr = np.ndarray(spec.shape, data.dtype, buffer=data, offset=0 if empty else spec.offset * item,
                     strides=tuple(s * item for s in spec.strides))
    s = st.from_numpy(data)._view(Layout(spec.shape, spec.strides, spec.offset))
    t = None if spec.has_negative else torch.from_numpy(data).as_strided(spec.shape, spec.strides, spec.offset)
    return t, arr, s
