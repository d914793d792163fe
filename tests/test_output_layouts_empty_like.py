"""The fresh outputs of ``F.hardtanh`` and ``F.normalize``, laid out as PyTorch lays them out.

PyTorch writes ``hardtanh`` into ``empty_like(input)`` (preserve_format: a dense input's strides
exactly, a size-1 dim's odd stride included), and ``normalize`` is ``input / norm(keepdim=True)
.clamp_min(eps).expand_as(input)`` (TensorIterator over both operands). strided laid both out from
the input alone by TensorIterator's rule: shape (3, 1) with strides (1, 1) gave (3, 1) where
PyTorch gives (1, 1). Hard layouts from hypothesis, the same memory in both libraries.
"""

from __future__ import annotations

import numpy as np
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from layouts import specs

LAYOUTS = specs(max_dims=4, expand=True)


def _pair(spec, dtype: str) -> tuple[torch.Tensor, st.Tensor]:
    """The spec's layout over the same storage values (negative and positive) in both libraries."""
    values = (np.arange(spec.storage_size) - spec.storage_size / 2).astype(dtype)
    t = torch.from_numpy(values.copy()).as_strided(spec.shape, spec.strides, spec.offset)
    s = st.from_numpy(values.copy()).as_strided(spec.shape, spec.strides, spec.offset)
    return t, s


@settings(max_examples=300, deadline=None)
@given(LAYOUTS, hs.sampled_from(["float32", "float64", "float16", "int32"]))
def test_hardtanh_output_is_empty_like_the_input(spec, dtype: str) -> None:
    t, s = _pair(spec, dtype)
    expected = torch.nn.functional.hardtanh(t, -2.0, 3.0)
    got = st.nn.functional.hardtanh(s, -2.0, 3.0)
    assert got.stride() == expected.stride() and got.storage_offset() == expected.storage_offset() == 0
    np.testing.assert_array_equal(got.numpy(), expected.numpy())


@settings(max_examples=300, deadline=None)
@given(LAYOUTS, hs.sampled_from(["float32", "float64"]), hs.data())
def test_normalize_output_has_pytorchs_strides(spec, dtype: str, data) -> None:
    t, s = _pair(spec, dtype)
    dim = data.draw(hs.integers(-len(spec.shape), len(spec.shape) - 1)) if spec.shape else 0
    expected = torch.nn.functional.normalize(t, dim=dim) if spec.shape else None
    if expected is None:
        return
    got = st.nn.functional.normalize(s, dim=dim)
    assert got.stride() == expected.stride()
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-5, atol=1e-6)


def test_the_case_that_differed() -> None:
    t = torch.arange(3.0).as_strided((3, 1), (1, 1))
    s = st.arange(3.0).as_strided((3, 1), (1, 1))
    assert st.nn.functional.hardtanh(s).stride() == torch.nn.functional.hardtanh(t).stride() == (1, 1)
    assert st.nn.functional.normalize(s, dim=1).stride() == torch.nn.functional.normalize(t, dim=1).stride() == (1, 1)
