"""The compiled copy's interleave of two source rows (kernels/_interleave.h): a plane whose dense
destination takes element j of one row, then element j of the other (unfold(0, 2, 1)'s copy of a
row-major matrix, a stack of two along a new last dim) must leave exactly NumPy's bytes: every
bit pattern (NaN payloads, -0.0), every tail length, rows apart by any stride (backwards, the
same row twice), 4- and 8-byte elements, and nothing written around the destination."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided
from strided.kernels import native


@pytest.mark.skipif(native.kernel() is None, reason="the compiled copy kernel is not built")
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.float64, np.int64, np.complex64])
@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 7, 8, 9, 31, 64, 1001])
@pytest.mark.parametrize("gap", [1, 3, -2, 0])
def test_interleave_leaves_numpys_bytes(dtype: type, n: int, gap: int) -> None:
    rng = np.random.default_rng(n * 7 + gap)
    itemsize = np.dtype(dtype).itemsize
    rows = 8  # (row 3 and row 3 + gap: inside for every gap here)
    raw = rng.integers(0, 256, rows * (n + 3) * itemsize, dtype=np.uint8)  # (any bits: NaN payloads too)
    base = raw.view(dtype).reshape(rows, n + 3)
    first = 3
    # source[j, k] = base[first + k * gap, j]: two rows read side by side
    source = np.lib.stride_tricks.as_strided(base[first], (n, 2), (itemsize, gap * base.strides[0]))
    padded = np.full(2 * n + 4, 0, dtype)
    dest = padded[2:-2].reshape(n, 2)
    groups = [(n, 2 * itemsize, itemsize), (2, itemsize, gap * base.strides[0])]
    native.copy(dest, source, groups)
    expected = np.zeros_like(padded)
    expected[2:-2].reshape(n, 2)[...] = source
    assert padded.tobytes() == expected.tobytes()


def test_unfold_copy_of_two_windows_matches_pytorch_bits() -> None:
    """The op that takes the interleave: its bits, NaN payload and -0.0 included, and strides."""
    rng = np.random.default_rng(0)
    bits = rng.integers(0, 2**32, (65, 67), dtype=np.uint64).astype(np.uint32)
    bits[3, 5] = 0x7FC01234  # (a quiet NaN with a payload)
    bits[4, 6] = 0x80000000  # (-0.0)
    a = bits.view(np.float32)
    for dim in (0, 1):
        s = strided.unfold_copy(strided.tensor(a), dim, 2, 1)
        t = torch.unfold_copy(torch.from_numpy(a.copy()), dim, 2, 1)
        assert s.stride() == t.stride()
        assert s.numpy().tobytes() == t.numpy().tobytes()
