"""relu's gradient as one compiled pass (``threshold_keep`` in kernels/_specialkernel.c), against
the NumPy steps of :func:`strided.ops._support.gradtools.threshold_grad` it replaces (the
gradient's bits AND a mask of all ones or zeros), bit for bit: NaN payloads and -0.0 of the
gradient kept, +0.0 where the result is <= 0 (-0.0 too), kept where it is NaN; in place on the
gradient; the kernel's refusals; and relu's backward against PyTorch's with the kernel on and off.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided
from strided.kernels import native
from strided.ops._support.gradtools import threshold_grad

_KERNEL = native.special()
pytestmark = pytest.mark.skipif(_KERNEL is None or not hasattr(_KERNEL, "threshold_keep"),
                                reason="the compiled special functions are not built")


def _patterns(rng: np.random.Generator, dtype: type, n: int) -> np.ndarray:
    """Random bit patterns (NaN payloads, infinities, subnormals, signed zeros) mixed with plain values."""
    width = np.uint32 if dtype == np.float32 else np.uint64
    bits = rng.integers(0, np.iinfo(width).max, n, dtype=np.uint64).astype(width).view(dtype)
    plain = rng.standard_normal(n).astype(dtype)
    plain[::7] = 0.0
    plain[1::7] = -0.0
    return np.where(rng.random(n) < 0.5, bits, plain)


def _numpy_steps(g: np.ndarray, y: np.ndarray) -> np.ndarray:
    width = np.int32 if g.dtype == np.float32 else np.int64
    with np.errstate(all="ignore"):
        keep = np.subtract(np.less_equal(y, 0), 1, dtype=width)
    return np.bitwise_and(g.view(width), keep).view(g.dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_kernel_gives_the_numpy_steps_bits(dtype: type) -> None:
    rng = np.random.default_rng(5)
    for n in [*range(0, 40), 255, 256, 257, 1000, 4099]:
        g, y = _patterns(rng, dtype, n), _patterns(rng, dtype, n)
        ref = _numpy_steps(g, y)
        out = np.empty_like(g)
        assert _KERNEL.threshold_keep(g, y, out)
        assert out.tobytes() == ref.tobytes()
        inplace = g.copy()
        assert _KERNEL.threshold_keep(inplace, y, inplace)  # (out is g itself)
        assert inplace.tobytes() == ref.tobytes()


def test_the_kernel_declines_or_refuses_what_it_does_not_take() -> None:
    g, y = np.ones(8, np.float32), -np.ones(8, np.float32)
    out = np.full(8, 7, np.float32)
    assert not _KERNEL.threshold_keep(g, y.astype(np.float64), out)  # (two formats)
    assert not _KERNEL.threshold_keep(g, y, np.empty(8, np.float64))
    assert not _KERNEL.threshold_keep(g, y, y)  # (out is y: declined, nothing written)
    assert not _KERNEL.threshold_keep(g, np.ones(7, np.float32), out[:7] + 0)  # (lengths)
    assert not _KERNEL.threshold_keep(g.astype(np.float16), y.astype(np.float16), out.astype(np.float16))
    buf = np.ones(9, np.float32)
    assert not _KERNEL.threshold_keep(buf[1:], y, buf[:8])  # (a partial overlap of g and out)
    assert (out == 7).all() and (y == -1).all()
    with pytest.raises((BufferError, ValueError)):
        _KERNEL.threshold_keep(np.ones(16, np.float32)[::2], y, out)
    with pytest.raises(TypeError, match="3 arguments"):
        _KERNEL.threshold_keep(g, y)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_relu_backward_gives_torchs_bits_with_the_kernel_on_and_off(dtype: str) -> None:
    rng = np.random.default_rng(6)
    x = rng.standard_normal((33, 17)).astype(dtype)
    x[::4, ::3] = 0.0
    x[1::5, 2::3] = -0.0
    x[2, 5] = np.nan
    g = rng.standard_normal((33, 17)).astype(dtype)
    g[3, :4] = [np.nan, -0.0, np.inf, -np.inf]
    tx = torch.tensor(x, requires_grad=True)
    torch.relu(tx).backward(torch.tensor(g))
    for on in (True, False):
        sx = strided.tensor(x, requires_grad=True)
        if on:
            strided.relu(sx).backward(strided.tensor(g))
        else:
            with native.disabled():
                strided.relu(sx).backward(strided.tensor(g))
        assert sx.grad.numpy().tobytes() == tx.grad.numpy().tobytes()
    # a transposed gradient: the kernel declines it, NumPy's steps give the same bits
    gt = strided.tensor(np.ascontiguousarray(g.T)).t()
    y = strided.relu(strided.tensor(x))
    assert threshold_grad(gt, y).numpy().tobytes() == threshold_grad(strided.tensor(g), y).numpy().tobytes()
