"""tril_indices / triu_indices of a matrix over 4096 elements: the compiled fill (``tri_indices``
in kernels/_specialkernel.c) writes the same (2, N) pairs as the NumPy runs it replaces, int64 and
int32, for any offset (inside, past either edge, far beyond); PyTorch's values and dtype, with
the kernel on and off; its refusals.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided
from oracle_helpers import case
from strided.kernels import native

_KERNEL = native.special()
pytestmark = pytest.mark.skipif(_KERNEL is None or not hasattr(_KERNEL, "tri_indices"),
                                reason="the compiled special functions are not built")
NAMES = ["tril_indices", "triu_indices"]


def _both(name: str, row: int, col: int, offset: int, int32: bool) -> None:
    sd, td = (strided.int32, torch.int32) if int32 else (strided.int64, torch.int64)
    got = getattr(strided, name)(row, col, offset, dtype=sd)
    want = getattr(torch, name)(row, col, offset, dtype=td)
    assert got.dtype == sd and got.shape == tuple(want.shape) and got.stride() == want.stride()
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    with native.disabled():  # (NumPy's runs)
        np.testing.assert_array_equal(getattr(strided, name)(row, col, offset, dtype=sd).numpy(), got.numpy())


@settings(max_examples=80, deadline=None)
@given(hs.integers(0, 300), hs.integers(0, 300), hs.integers(-400, 400), hs.sampled_from(NAMES), hs.booleans())
def test_any_triangle_is_pytorchs(row: int, col: int, offset: int, name: str, int32: bool) -> None:
    _both(name, row, col, offset, int32)


@pytest.mark.parametrize("name", NAMES)
def test_large_and_degenerate_triangles(name):
    for shape, offset in itertools.product(
            [(1024, 1024), (65, 70), (4097, 1), (1, 4097), (5000, 0), (0, 5000)],
            [0, 1, -1, 69, -64, 10**6, -10**6]):
        with case(shape=shape, offset=offset):
            _large_and_degenerate_triangles(name, shape, offset)


def _large_and_degenerate_triangles(name: str, shape: tuple[int, int], offset: int) -> None:
    _both(name, shape[0], shape[1], offset, False)


def test_refusals() -> None:
    n = int(np.tril_indices(100, 0, 100)[0].size)
    out = np.empty((2, n), np.int64)
    assert _KERNEL.tri_indices(out, 100, 100, 0, True)
    assert not _KERNEL.tri_indices(np.empty((2, n + 1), np.int64), 100, 100, 0, True)  # (not the triangle's size)
    assert not _KERNEL.tri_indices(np.empty((2, n), np.float64), 100, 100, 0, True)
    assert not _KERNEL.tri_indices(np.empty((2, n), np.int16), 100, 100, 0, True)
    with pytest.raises(ValueError, match="not C-contiguous"):
        _KERNEL.tri_indices(np.empty((2, 2 * n), np.int64)[:, ::2], 100, 100, 0, True)  # (not contiguous)
    with pytest.raises(TypeError):
        _KERNEL.tri_indices(out, 100, 100, 0)
