"""Large permuted inputs that a kernel reads row-major: the blocked copy (kernels.blocked.row_major)
makes the row-major copy in place of NumPy's transposing one, so the result is the contiguous
input's, bit for bit, and PyTorch's."""

import numpy as np
import pytest
import torch

import strided

torch.set_num_threads(1)
RNG = np.random.default_rng(19)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_rows_of_a_large_transpose(name, dtype):
    a = RNG.standard_normal((96, 130)).astype(dtype) * 4
    x = strided.tensor(a).t()  # (130, 96), rows along a permuted last dim: 12480 elements
    got = getattr(x, name)(-1)
    same = getattr(x.contiguous(), name)(-1)
    assert got.numpy().tobytes() == same.numpy().tobytes()
    assert got.stride() == same.stride()
    expected = getattr(torch.from_numpy(a).t(), name)(-1).numpy()
    np.testing.assert_allclose(got.numpy(), expected, rtol=2e-6 if dtype == np.float32 else 1e-12, atol=0)
