"""The compiled copy's runs (kernels/_row_copy.h: 16- or 64-byte loads and stores in place of
memcpy for runs of 256 bytes to 64 KB) leave exactly NumPy's bytes: run lengths around the
loop's steps and limits, every 4-byte offset of source and destination, rows read backwards
(a flip), and nothing written around the destination."""

from __future__ import annotations

import numpy as np
import pytest

from strided.kernels import native


@pytest.mark.skipif(native.kernel() is None, reason="the compiled copy kernel is not built")
@pytest.mark.parametrize("run", [63, 64, 65, 127, 128, 129, 1000, 1024, 16383, 16384, 16385])
@pytest.mark.parametrize("shift", [0, 1, 2, 3, 5, 13])
def test_runs_leave_numpys_bytes(run: int, shift: int) -> None:
    rows = 3
    rng = np.random.default_rng(run * 16 + shift)
    base = rng.integers(0, 2**32, rows * run + 32, dtype=np.uint64).astype(np.uint32).view(np.float32)
    source = base[shift:shift + rows * run].reshape(rows, run)[::-1]  # (rows backwards: a flip)
    padded = np.zeros(rows * run + 40, np.float32)
    dest = padded[7 - shift % 4: 7 - shift % 4 + rows * run].reshape(rows, run)
    groups = [(rows, run * 4, -run * 4), (run, 4, 4)]
    native.copy(dest, source, groups)
    want = np.zeros_like(padded)
    want[7 - shift % 4: 7 - shift % 4 + rows * run].reshape(rows, run)[...] = source
    assert padded.tobytes() == want.tobytes()


@pytest.mark.parametrize("cols", [(64, 64), (65, 300), (1000, 3), (3, 1000), (4096, 17)])
def test_large_row_joins_are_torch(cols: tuple) -> None:
    """cat along dim 1 of large row-major tensors: the compiled join by rows (each run's rows
    of 256 bytes or more) or NumPy's concatenate (shorter rows), PyTorch's values and strides."""
    import torch

    import strided

    rng = np.random.default_rng(sum(cols))
    parts = [rng.standard_normal((300, c)).astype(np.float32) for c in cols]
    got = strided.cat([strided.tensor(p) for p in parts], 1)
    want = torch.cat([torch.from_numpy(p) for p in parts], 1)
    assert got.stride() == want.stride() and got.numpy().tobytes() == want.numpy().tobytes()
