"""``x.add_(v)``, ``sub_``, ``mul_``, ``div_`` of a row-major float32/float64 tensor by a Python
float: the compiled ``scalar_inplace`` loop (an optimizer's ``m.mul_(beta1)``, ``denom.add_(eps)``)
gives NumPy's weak-scalar ufunc bits, NaN payloads, signed zeros, subnormals and infinities
included; it declines a NaN number (NumPy's loop decides which of two NaNs comes out), an op
outside 0-3, a read-only or non-contiguous buffer; through the tensor methods the results equal
the NumPy path's (``native.disabled()``) and PyTorch's.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided
from strided.kernels import native

_KERNEL = native.special()
pytestmark = pytest.mark.skipif(_KERNEL is None or not hasattr(_KERNEL, "scalar_inplace"),
                                reason="the compiled special functions are not built")

_UFUNCS = (np.add, np.subtract, np.multiply, np.true_divide)
_NUMBERS = (0.9, -0.999, 1e-8, 3.0, -0.0, 0.0, 1e-45, 1e-310, 3e38, float("inf"), float("-inf"), 0.1 + 2**-30)


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).view(np.uint32 if a.dtype == np.float32 else np.uint64)


def _operands(dtype: type, n: int = 3000) -> np.ndarray:
    """Random bit patterns (NaN payloads, subnormals, infinities), the edge values, plain values."""
    rng = np.random.default_rng(7)
    width = np.uint32 if dtype == np.float32 else np.uint64
    pats = rng.integers(0, np.iinfo(width).max, n, dtype=np.uint64).astype(width).view(dtype)
    edges = np.array([0.0, -0.0, 1.0, -2.0, 1e-45, 3e38, np.inf, -np.inf, np.nan, -np.nan], dtype)
    return np.concatenate([pats, edges, rng.uniform(-2, 2, n).astype(dtype)])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("code", range(4))
@pytest.mark.parametrize("v", _NUMBERS)
def test_the_kernel_gives_the_ufuncs_bits(dtype: type, code: int, v: float) -> None:
    x = _operands(dtype)
    with np.errstate(all="ignore"):
        ref = _UFUNCS[code](x, v)
    got = x.copy()
    if dtype == np.float32 and not -3.4e38 < v < 3.4e38:  # (declined: NumPy converts, warning on overflow)
        assert _KERNEL.scalar_inplace(got, v, code) is False
        np.testing.assert_array_equal(_bits(got), _bits(x))
        return
    assert _KERNEL.scalar_inplace(got, v, code) is True
    np.testing.assert_array_equal(_bits(got), _bits(ref))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_long_runs_without_the_gil_give_the_same_bits(dtype: type) -> None:
    x = np.random.default_rng(3).standard_normal(70_001).astype(dtype)
    for code, ufunc in enumerate(_UFUNCS):
        got = x.copy()
        assert _KERNEL.scalar_inplace(got, 0.37, code)
        np.testing.assert_array_equal(_bits(got), _bits(ufunc(x, 0.37)))


def test_the_kernel_declines() -> None:
    x = np.ones(5, np.float32)
    before = x.copy()
    assert _KERNEL.scalar_inplace(x, float("nan"), 2) is False  # (a NaN number: NumPy's loop)
    assert _KERNEL.scalar_inplace(x, 1.0, 4) is False  # (no such op)
    assert _KERNEL.scalar_inplace(x, 1e39, 0) is False  # (outside float32's range: NumPy's conversion)
    assert _KERNEL.scalar_inplace(x, 2, 0) is False  # (an int: not a float)
    assert _KERNEL.scalar_inplace(np.ones(5, np.int64), 2.0, 0) is False
    assert _KERNEL.scalar_inplace(np.ones(5, np.float16), 2.0, 0) is False
    assert _KERNEL.scalar_inplace(np.ones((4, 4), np.float32).T, 2.0, 0) is False  # (not C-contiguous)
    ro = np.ones(5, np.float32)
    ro.flags.writeable = False
    assert _KERNEL.scalar_inplace(ro, 2.0, 0) is False
    odd = np.frombuffer(bytearray(4 * 6 + 1), np.uint8)[1:].view(np.float32)  # (an odd address)
    assert _KERNEL.scalar_inplace(odd, 2.0, 0) is False
    np.testing.assert_array_equal(x, before)
    with pytest.raises(TypeError):
        _KERNEL.scalar_inplace(x, 1.0)


@pytest.mark.parametrize("dtype", [strided.float32, strided.float64])
@pytest.mark.parametrize("method", ["add_", "sub_", "mul_", "div_"])
@pytest.mark.parametrize("v", [0.9, 1e-8, -3.5, float("nan"), float("inf"), 1e39])
def test_the_methods_equal_the_numpy_path_and_pytorch(dtype: strided.dtype, method: str, v: float) -> None:
    a = _operands(dtype.numpy.type, 500).reshape(-1, 10)
    fast = strided.from_numpy(a.copy())
    with native.disabled():
        slow = strided.from_numpy(a.copy())
        with np.errstate(all="ignore"):
            getattr(slow, method)(v)
    out = getattr(fast, method)(v)
    assert out is fast and fast._version == slow._version
    np.testing.assert_array_equal(_bits(fast.numpy()), _bits(slow.numpy()))
    t = torch.from_numpy(a.copy())
    getattr(t, method)(v)
    # PyTorch's values (NaN payloads aside: which NaN survives is each library's loop's choice)
    np.testing.assert_array_equal(fast.numpy(), t.numpy())


def test_an_optimizer_step_under_no_grad_keeps_the_bits() -> None:
    rng = np.random.default_rng(0)
    a = rng.standard_normal((128, 64)).astype(np.float32)
    m = strided.from_numpy(a.copy())
    with native.disabled():
        ref = strided.from_numpy(a.copy())
        with strided.no_grad():
            ref.mul_(0.9).add_(1e-8).sub_(0.25).div_(3.0)
    with strided.no_grad():
        m.mul_(0.9).add_(1e-8).sub_(0.25).div_(3.0)
    np.testing.assert_array_equal(_bits(m.numpy()), _bits(ref.numpy()))
