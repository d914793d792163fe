"""Large-size paths: permuted inputs that a kernel reads row-major (the blocked copy,
kernels.blocked.row_major, makes the row-major copy in place of NumPy's transposing one, so the
result is the contiguous input's, bit for bit, and PyTorch's); empty/empty_like's fast path at any
size (a failed allocation still gives the general path's error)."""

import numpy as np
import pytest
import torch

import strided
from strided import creation

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


@pytest.mark.parametrize("make", [lambda: strided.empty(1024, 1024), lambda: strided.empty((1024, 1024)),
                                  lambda: strided.empty_like(strided.empty(1024, 1024))])
def test_empty_fast_path_failed_allocation_takes_the_general_path(make, monkeypatch):
    t = make()  # (the layout's plan is now remembered: the fast path takes the next call)
    assert t.shape == (1024, 1024) and t.stride() == (1024, 1)
    failed = []

    def no_memory(*args, **kw):
        failed.append(args)
        raise MemoryError

    # the fast path's allocation fails; the general path (dispatch.result: its own allocation,
    # then new_storage's PyTorch-worded error where that fails too) makes the tensor
    monkeypatch.setattr(creation, "_empty", no_memory)
    t = make()
    assert failed and t.shape == (1024, 1024) and t.stride() == (1024, 1)


def test_empty_out_of_memory_error():
    for _ in range(2):  # (the second call: after the plan of the layout was made)
        with pytest.raises(RuntimeError, match="DefaultCPUAllocator: not enough memory"):
            strided.empty(2**45)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool", "complex64", "float16"])
def test_large_eye_is_torchs(dtype):
    # (300 x 400: past FILL_MIN, the general path's compiled zero fill; the diagonal then)
    got = strided.eye(300, 400, dtype=getattr(strided, dtype))
    expected = torch.eye(300, 400, dtype=getattr(torch, dtype))
    assert got.shape == tuple(expected.shape) and got.stride() == expected.stride()
    assert got.numpy().tobytes() == expected.numpy().tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.float64, np.int64, np.complex64])
@pytest.mark.parametrize("cols", [1, 7, 15, 16, 17, 33, 1000])
def test_reversed_rows_copy(dtype, cols):
    # fliplr's reversed lines (the compiled copy's 64-byte vpermd/vpermq steps and their tail),
    # rows long enough for the copy kernel (the array past its smallest size)
    rows = max(2, (1 << 16) // cols)
    a = (RNG.standard_normal((rows, cols)) * 1000).astype(dtype)
    for x in (a, a[1:, 1:] if cols > 1 else a[1:]):
        got = strided.fliplr(strided.tensor(x))
        assert got.numpy().tobytes() == np.ascontiguousarray(x[:, ::-1]).tobytes()
        assert got.numpy().tobytes() == torch.fliplr(torch.from_numpy(np.ascontiguousarray(x))).numpy().tobytes()
