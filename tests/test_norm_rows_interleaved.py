"""PyTorch's last-dim 2-norm kernel (``torch_norm2_rows``, _specialkernel.c) four rows at a time
(_norm2_rows4.h), and the 2-norm fast paths of transposed tensors that reach it.

Four rows' lane chains run side by side; each lane's adds are the same ones in the same order,
so every row's norm must keep PyTorch's bits (and the NumPy loop's, kernels.torch_sum.norm2_rows
without the kernel) at every row length around the lanes' width and the fused tail, for every
count of rows around the groups of four, NaN and infinities included.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided
from strided.kernels import native
from strided.kernels.torch_sum import norm2_rows


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_rows_in_fours_keep_torchs_and_the_numpy_loops_bits(dtype: type) -> None:
    rng = np.random.default_rng(2)
    for n in [*range(1, 40), 63, 64, 65, 1023, 1029]:
        for rows in (1, 3, 4, 5, 8, 9, 13):
            x = (rng.standard_normal((rows, n)) * 10.0 ** rng.integers(-3, 4, (rows, n))).astype(dtype)
            if n > 3 and rows > 4:
                x[rng.integers(0, rows), rng.integers(0, n)] = rng.choice([np.nan, np.inf])
            got = norm2_rows(x)
            with native.disabled():
                loop = norm2_rows(x)
            want = torch.linalg.vector_norm(torch.from_numpy(x), dim=-1).numpy()
            assert got.tobytes() == loop.tobytes() == want.tobytes(), (n, rows)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_transposed_norms_take_the_run_and_keep_torchs_bits(dtype: str, torch_threads_as_assumed: None,
                                                            room_in_the_dense_memo: None) -> None:
    rng = np.random.default_rng(4)
    for shape in [(1024, 1024), (37, 700), (6, 5, 300)]:
        a = (rng.standard_normal(shape) * 10.0 ** rng.integers(-2, 3, shape)).astype(dtype)
        perm = tuple(reversed(range(len(shape))))
        s, t = strided.from_numpy(a).permute(*perm), torch.from_numpy(a).permute(*perm)
        cases = [((), {}), ((), {"keepdim": True})]
        if len(shape) == 2:
            cases += [((), {"dim": 0}), ((), {"dim": 0, "keepdim": True}), ((), {"dim": 1})]
        for args, kw in cases:
            want = torch.linalg.vector_norm(t, *args, **kw)
            got = strided.linalg.vector_norm(s, *args, **kw)
            with native.disabled():
                plain = strided.linalg.vector_norm(s, *args, **kw)
            assert got.shape == tuple(want.shape) == plain.shape
            assert got.numpy().tobytes() == want.numpy().tobytes() == plain.numpy().tobytes(), (shape, kw)
            assert s.norm(**kw).numpy().tobytes() == t.norm(**kw).numpy().tobytes(), (shape, kw)
