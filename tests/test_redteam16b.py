"""Red-team findings on the PyTorch-order sum/mean (kernels/torch_sum.py) and float64 variance
(kernels/torch_variance.py): each test is a case that once gave other bits than PyTorch 2.13 (one
thread), checked against torch itself."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import strided
from strided.kernels import native

torch.set_num_threads(1)


def _same_bits(ours: strided.Tensor, theirs: torch.Tensor) -> None:
    a = np.array(ours.numpy(), order="C")
    b = theirs.contiguous().numpy()
    assert a.dtype == b.dtype and a.shape == b.shape
    assert a.tobytes() == b.tobytes(), (a, b)


@pytest.mark.parametrize("native_on", [True, False])
@pytest.mark.parametrize("n", [9, 33, 100])
@pytest.mark.parametrize("name", ["complex64", "complex128"])
def test_mean_of_complex_as_real_dtype_sums_the_dense_real_copy(name: str, n: int, native_on: bool) -> None:
    """``mean(dtype=<real>)`` of a complex tensor sums ``self.to(dtype)`` (a dense real copy:
    the vectorized inner sum), not the stride-2 real parts (the scalar sum: other bits)."""
    rng = np.random.default_rng(n)
    a = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(name)
    real = strided.float32 if name == "complex64" else strided.float64
    treal = torch.float32 if name == "complex64" else torch.float64
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = torch.mean(torch.from_numpy(a), dtype=treal)
        if native_on:
            got = strided.from_numpy(a).mean(dtype=real)
        else:
            with native.disabled():
                got = strided.from_numpy(a).mean(dtype=real)
    _same_bits(got, expected)

