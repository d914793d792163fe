"""softmax / log_softmax of tensors whose dim is not a row-major last dim (a transpose, a permute):
the NumPy formula's last step now writes in the work array's own order and is copied once,
blocked, into the row-major result. Bit for bit: the fast path, the general path (the fast path
turned off, the kernel disabled) and the formula written out with NumPy writing straight into a
row-major array (the former code); strides as PyTorch's, values within its tolerance.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from strided.kernels import native
from strided.ops.reductions import softmax as softmax_module
from torch_threads_assumed import torch_threads_as_assumed

torch.set_num_threads(1)


def _formula(x: np.ndarray, axis: int, log: bool) -> np.ndarray:
    """The NumPy formula, its last step written straight into a fresh row-major array."""
    out = np.empty(x.shape, x.dtype)
    with np.errstate(all="ignore"):
        shifted = np.subtract(x, np.maximum.reduce(x, axis=axis, keepdims=True))
        if log:
            np.subtract(shifted, np.log(np.add.reduce(np.exp(shifted), axis=axis, keepdims=True)), out=out)
        else:
            np.exp(shifted, out=shifted)
            np.divide(shifted, np.add.reduce(shifted, axis=axis, keepdims=True), out=out)
    return out


def _check(a: np.ndarray, perm: tuple[int, ...], monkeypatch: pytest.MonkeyPatch) -> None:
    x = st.tensor(a).permute(*perm)
    t = torch.from_numpy(a).permute(*perm)
    for log, op in ((False, "softmax"), (True, "log_softmax")):
        for dim in range(a.ndim):
            got = getattr(x, op)(dim)
            tt = getattr(t, op)(dim)
            assert got.stride() == tt.stride()
            with monkeypatch.context() as m:
                m.setattr(softmax_module, "_fast_softmax", lambda *a: None)
                with native.disabled():
                    general = getattr(x, op)(dim)
            assert general.stride() == got.stride()
            if dim == a.ndim - 1 and x.is_contiguous():
                continue  # (the compiled rows: their own bits, tested in test_softscan_fast)
            if native.special() is not None and dim == a.ndim - 1:
                # (PyTorch's rows of the contiguous copy: the compiled rows of that copy)
                assert got.numpy().tobytes() == getattr(x.contiguous(), op)(dim).numpy().tobytes()
                continue
            if native.sleef() is not None and not log and a.dtype in (np.float32, np.float64):
                with torch_threads_as_assumed():  # (PyTorch's _vec_softmax, its chunks: tests/test_softmax_dims_bits.py)
                    want_t = getattr(t, op)(dim)
                ok = (got.numpy() == want_t.numpy()) | (np.isnan(got.numpy()) & np.isnan(want_t.numpy()))
                assert ok.all(), (op, a.shape, perm, dim)
                continue
            want = _formula(a.transpose(perm), dim, log)
            assert got.numpy().tobytes() == want.tobytes() == general.numpy().tobytes(), (op, a.shape, perm, dim)
            eps = float(np.finfo(a.dtype).eps)  # (log_softmax near 0: an absolute error of the inputs' scale)
            np.testing.assert_allclose(got.numpy(), tt.numpy(), rtol=30 * eps, atol=200 * eps, equal_nan=True)


def _data(shape: tuple[int, ...], dtype: Any, seed: int) -> np.ndarray:
    a = (np.random.default_rng(seed).standard_normal(shape) * 5).astype(dtype)
    if a.size > 10:
        a.flat[2], a.flat[7], a.flat[9] = -np.inf, -0.0, np.nan
    return a


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_transposed_and_permuted(dtype: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    for shape, perm in [((512, 300), (1, 0)), ((4, 5, 6), (2, 0, 1)), ((4, 5, 6), (1, 2, 0)), ((30, 1, 7), (2, 1, 0))]:
        _check(_data(shape, dtype, 1), perm, monkeypatch)


@settings(max_examples=30, deadline=None)
@given(shape=hs.lists(hs.integers(1, 12), min_size=2, max_size=3), seed=hs.integers(0, 2**16), data=hs.data())
def test_any_permutation(shape: list[int], seed: int, data: Any) -> None:
    perm = tuple(data.draw(hs.permutations(range(len(shape)))))
    with pytest.MonkeyPatch.context() as m:
        _check(_data(tuple(shape), np.float32, seed), perm, m)
