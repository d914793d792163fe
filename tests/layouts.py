"""Shared test helpers: hypothesis strategies for hard layouts, built the same way in all three libraries.

A layout spec is (storage_size, shape, strides, offset) in elements. ``build_*``
functions lay it over ``arange(storage_size)`` in PyTorch, NumPy and strided,
so the three start from identical memory and identical layouts.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from hypothesis import strategies as hs

import strided as st
from strided.layout import Layout, contiguous_strides, index_span


@dataclass(frozen=True)
class Spec:
    storage_size: int
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    offset: int

    @property
    def has_negative(self) -> bool:
        return any(s < 0 for s in self.strides)


@hs.composite
def specs(draw, min_dims: int = 0, max_dims: int = 4, max_size: int = 5, negative: bool = False,
          shape: tuple[int, ...] | None = None) -> Spec:
    """Layouts that favour the hard cases: permuted, stepped, expanded (stride 0),
    size-1 dims with odd strides, zero-size dims, 0-d, and (if ``negative``) negative steps.
    ``shape``, when given, fixes the shape and only the layout is drawn."""
    if shape is None:
        ndim = draw(hs.integers(min_dims, max_dims))
        shape = tuple(
            draw(hs.one_of(hs.just(1), hs.just(0), hs.integers(1, max_size), hs.integers(2, max_size)))
            for _ in range(ndim)
        )
    ndim = len(shape)
    steps = [draw(hs.sampled_from([1, 1, 1, 2, 3])) for _ in range(ndim)]
    pads = [draw(hs.sampled_from([0, 0, 1])) for _ in range(ndim)]
    parent = tuple(max(s, 1) * k + p for s, k, p in zip(shape, steps, pads))
    base = contiguous_strides(parent)
    perm = draw(hs.permutations(range(ndim))) if ndim else []
    strides = [base[perm[d]] * steps[d] for d in range(ndim)]
    for d in range(ndim):
        kind = draw(hs.sampled_from(["keep", "keep", "keep", "expand", "odd1", "neg"]))
        if kind == "expand":
            strides[d] = 0
        elif kind == "odd1" and shape[d] == 1:
            strides[d] = draw(hs.integers(0, 7))
        elif kind == "neg" and negative:
            strides[d] = -strides[d]
    # the offset keeps every index of the frame (a size-0 dim counted as size 1) at or past the
    # storage's start, as Layout's invariant asks; the storage holds the elements addressed
    lo, _ = index_span([max(n, 1) for n in shape], strides)
    _, hi = index_span(shape, strides)
    offset = -lo + draw(hs.integers(0, 3))
    storage_size = hi + offset + draw(hs.integers(0, 2))
    return Spec(storage_size, shape, tuple(strides), offset)


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
