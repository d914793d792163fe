"""The compiled branchless masked_fill (``masked_fill_run``, kernels/_masked_run.h) and the
out-of-place masked_fill paths that use it: NumPy's putmask bits for every item size (NaN
payloads and -0.0 moved as they are), refusals, and PyTorch's values and strides for row-major
and transposed inputs."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided
from strided.kernels import native

K = native.kernel()
RUN = getattr(K, "masked_fill_run", None)


@pytest.mark.skipif(RUN is None, reason="the compiled copy kernel is not built")
@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.float16, np.int16, np.float32, np.int32, np.float64, np.int64])
@pytest.mark.parametrize("n", [1, 7, 16, 33, 4097])
def test_run_is_putmask(dtype: type, n: int) -> None:
    rng = np.random.default_rng(n)
    itemsize = np.dtype(dtype).itemsize
    x = rng.integers(0, 256, n * itemsize, dtype=np.uint8).view(dtype)  # (any bits)
    if dtype is np.bool_:
        x = x.view(np.uint8) % 2 == 1
    mask = rng.random(n) > 0.5
    fill = rng.integers(0, 256, itemsize, dtype=np.uint8).view(dtype)[:1].copy()
    if dtype is np.bool_:
        fill = np.array([True])
    out = np.empty_like(x)
    assert RUN(x, mask, out, fill)
    want = x.copy()
    np.putmask(want, mask, fill)
    assert out.tobytes() == want.tobytes()


@pytest.mark.skipif(RUN is None, reason="the compiled copy kernel is not built")
def test_run_refuses_what_does_not_qualify() -> None:
    x = np.arange(8, dtype=np.float32)
    mask = np.zeros(8, np.bool_)
    fill = np.zeros(1, np.float32)
    assert not RUN(x, mask.view(np.uint8), np.empty_like(x), fill)  # (a mask that is not bool)
    assert not RUN(x, mask, np.empty(8, np.float64), fill)  # (another item size)
    assert not RUN(x, mask[:4], np.empty_like(x), fill)  # (another length)
    assert not RUN(x[1:], mask[1:], x[:-1], fill)  # (out overlaps x, not exactly)
    assert not RUN(x.astype(np.complex128), mask, np.empty(8, np.complex128), np.zeros(1, np.complex128))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
@pytest.mark.parametrize("transposed", [False, True])
def test_masked_fill_is_torch(dtype: type, transposed: bool) -> None:
    rng = np.random.default_rng(2)
    a = (rng.standard_normal((130, 70)) * 100).astype(dtype)
    m = rng.random((130, 70)) > 0.5
    if transposed:
        x, mx = strided.tensor(a.T.copy()).t(), strided.tensor(m.T.copy()).t()
        tx, tm = torch.from_numpy(a.T.copy()).t(), torch.from_numpy(m.T.copy()).t()
    else:
        x, mx, tx, tm = strided.tensor(a), strided.tensor(m), torch.from_numpy(a.copy()), torch.from_numpy(m.copy())
    values = (0.5, -3, float("nan"), -0.0) if np.dtype(dtype).kind == "f" else (3, -7, 2.9)
    for v in values:
        got, want = strided.masked_fill(x, mx, v), tx.masked_fill(tm, v)
        assert got.stride() == want.stride() and got.numpy().tobytes() == want.numpy().tobytes()


@pytest.mark.skipif(RUN is None, reason="the compiled copy kernel is not built")
def test_run_in_place_is_putmask() -> None:
    rng = np.random.default_rng(5)
    x = rng.standard_normal(5000).astype(np.float32)
    mask = rng.random(5000) > 0.5
    want = x.copy()
    np.putmask(want, mask, np.float32(2.5))
    assert RUN(x, mask, x, np.array([2.5], np.float32))
    assert x.tobytes() == want.tobytes()


@pytest.mark.parametrize("transposed", [False, True])
def test_masked_fill_in_place_is_torch(transposed: bool) -> None:
    rng = np.random.default_rng(6)
    a = rng.standard_normal((100, 80)).astype(np.float32)
    m = rng.random((100, 80)) > 0.5
    for value in (0.25, float("-inf"), -0.0):
        if transposed:
            x, tx = strided.tensor(a.T.copy()).t(), torch.from_numpy(a.T.copy()).t()
        else:
            x, tx = strided.tensor(a), torch.from_numpy(a.copy())
        got = x.masked_fill_(strided.tensor(m), value)
        want = tx.masked_fill_(torch.from_numpy(m), value)
        assert got is x and got.stride() == want.stride() and got.numpy().tobytes() == want.numpy().tobytes()
