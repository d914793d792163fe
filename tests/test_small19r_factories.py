"""Factories' small-call fast paths (issue 23): each against the general path or PyTorch."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import strided


@pytest.mark.parametrize("dtype", [strided.float32, strided.float64, strided.int64, strided.bool, strided.float16])
def test_tensor_and_new_tensor_of_a_tensor(dtype):
    """tensor(t) and t.new_tensor(t): a row-major copy of t's values and dtype (its fast path), the
    same as for a transposed t made row-major first (the general path), no history, and PyTorch's
    warning at the caller's line."""
    base = strided.from_numpy((np.arange(12).reshape(3, 4) % 3).astype(dtype.numpy))
    for t in (base, base[1:], strided.zeros((), dtype=dtype), base.t().contiguous().t().contiguous()):
        for make in (lambda t: strided.tensor(t), lambda t: strided.zeros(1, dtype=dtype).new_tensor(t)):
            with warnings.catch_warnings(record=True) as seen:
                warnings.simplefilter("always")
                out = make(t)
            assert [w.filename for w in seen] == [__file__]
            assert "To copy construct from a tensor" in str(seen[0].message)
            assert out.dtype is dtype and out.shape == t.shape and out.stride() == strided.empty(t.shape).stride()
            assert out.numpy().tobytes() == t.numpy().tobytes()
            assert not np.shares_memory(out.numpy(), t.numpy())
    x = strided.rand(3, 4, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for out in (strided.tensor(x), x.new_tensor(x)):
            assert not out.requires_grad and out.grad_fn is None
            assert out.numpy().tobytes() == x.detach().numpy().tobytes()
        assert x.new_tensor(x.double()).dtype is strided.float32  # (another dtype: the general path)
        torch_out = torch.zeros(1).new_tensor(torch.ones(2, dtype=torch.float64))
    assert torch_out.dtype is torch.float32


def test_tri_indices_fast_path_against_torch():
    """tril_indices/triu_indices' remembered small pairs: PyTorch's values, dtype, strides, a fresh
    writable copy each call; floats and bools refused as the general path refuses them."""
    for r in range(0, 7):
        for c in range(0, 7):
            for o in range(-8, 9):
                for ours, theirs in ((strided.tril_indices, torch.tril_indices), (strided.triu_indices, torch.triu_indices)):
                    a, b = ours(r, c, o), theirs(r, c, o)
                    assert a.dtype is strided.int64 and a.shape == tuple(b.shape) and a.stride() == b.stride()
                    assert (a.numpy() == b.numpy()).all()
                    a.numpy()[...] = 7
                    assert (ours(r, c, o).numpy() == b.numpy()).all()
    for bad in ((3.0, 4), (True, 4), (3, 4, 1.0), (3, 4, True)):
        with pytest.raises(TypeError):
            strided.tril_indices(*bad)
    with pytest.raises(RuntimeError, match="row must be non-negative"):
        strided.triu_indices(-1, 4)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "float16"])
def test_new_full_against_torch(dtype):
    """t.new_full (its float fast path for float32/float64 tensors, the general path otherwise):
    PyTorch's values, dtype and strides, and its errors for values the dtype cannot hold."""
    x, tx = strided.zeros(2, dtype=getattr(strided, dtype)), torch.zeros(2, dtype=getattr(torch, dtype))
    for v in (2.0, -0.0, float("nan"), float("inf"), -3.4e38, 1e39, 3, True):
        for shape in ((3, 4), (16, 16), (0,), (), (3, 4)):
            try:
                want = tx.new_full(shape, v)
            except RuntimeError:
                with pytest.raises(RuntimeError):
                    x.new_full(shape, v)
                continue
            got = x.new_full(shape, v)
            assert got.dtype.name == dtype and got.shape == tuple(want.shape) and got.stride() == want.stride()
            assert got.numpy().tobytes() == want.numpy().tobytes()


def test_logspace_remembered_values_against_torch():
    """logspace's repeat call (numbers seen before: a copy of the remembered powers) against
    PyTorch, and each result a fresh writable copy."""
    for start, end in ((0.0, 1.0), (0, 2), (-1.5, 2.5), (0.0, -0.0), (-0.0, 0.0), (2, 2), (1e-3, 300.0)):
        for steps in (0, 1, 2, 3, 12, 256):
            for base in (10.0, 2, 2.5, 10):
                for _ in range(2):
                    got, want = strided.logspace(start, end, steps, base), torch.logspace(start, end, steps, base)
                    assert got.dtype is strided.float32 and got.stride() == want.stride()
                    assert got.numpy().tobytes() == want.numpy().tobytes()
                    got.numpy()[...] = 1


def test_eye_remembered_against_torch():
    """eye's small matrices (the first call makes and remembers the run, later calls copy it):
    PyTorch's values, dtype and strides, a fresh writable result each call."""
    for n in range(0, 7):
        for m in (None, 0, 1, 3, 7):
            for dtype in (None, "float64", "int64", "bool", "float16", "complex64"):
                kw = {} if dtype is None else {"dtype": getattr(strided, dtype)}
                tkw = {} if dtype is None else {"dtype": getattr(torch, dtype)}
                for _ in range(2):
                    got = strided.eye(n, **kw) if m is None else strided.eye(n, m, **kw)
                    want = torch.eye(n, **tkw) if m is None else torch.eye(n, m, **tkw)
                    assert got.shape == tuple(want.shape) and got.stride() == want.stride()
                    assert got.numpy().tobytes() == want.numpy().tobytes()
                    got.numpy()[...] = 0
