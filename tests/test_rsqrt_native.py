"""rsqrt through the compiled ``unary_exact`` (code 3: ``1 / sqrt(x)`` in one pass, SSE's sqrt
and division): NumPy's sqrt-then-divide bits, float32 and float64, on every kind of value (zeros
of either sign, negatives, subnormals, infinities, NaN payloads) and on the layouts the op hands
it (row-major, column-major) or leaves to NumPy (stepped, 0-d, empty, in place), with ``out=``,
under autograd, with the kernel off.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs
from hypothesis.extra import numpy as hnp

import strided
from float32_cases import NAN_PAYLOADS, UNARY_LAYOUTS
from strided.kernels import native

_KERNEL = native.special()
pytestmark = pytest.mark.skipif(_KERNEL is None, reason="the compiled special functions are not built")
_SPECIAL = np.array([0.0, -0.0, 1.0, -1.0, 4.0, 1e-45, 1.1754944e-38, 3.4028235e38, np.inf, -np.inf], np.float32)


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).view(np.uint32 if a.dtype == np.float32 else np.uint64)


def _numpy(x: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.divide(x.dtype.type(1), np.sqrt(x))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_kernel_gives_numpys_bits(dtype: type) -> None:
    rng = np.random.default_rng(2)
    width = np.uint32 if dtype == np.float32 else np.uint64
    patterns = rng.integers(0, np.iinfo(width).max, 1 << 16, dtype=np.uint64).astype(width).view(dtype)
    with np.errstate(invalid="ignore"):
        special = np.concatenate([_SPECIAL, NAN_PAYLOADS]).astype(dtype)
    for x in (special, patterns, rng.uniform(0, 10, 1001).astype(dtype)):
        out = np.empty_like(x)
        assert _KERNEL.unary_exact(x, out, 3)
        np.testing.assert_array_equal(_bits(out), _bits(_numpy(x)))


@settings(max_examples=40, deadline=None)
@given(hnp.arrays(np.float32, hs.integers(0, 40), elements=hs.floats(width=32)))
def test_any_length(x: np.ndarray) -> None:
    """Tails of the four-wide loop, 0 included."""
    out = np.empty_like(x)
    assert _KERNEL.unary_exact(x, out, 3)
    assert _bits(out).tolist() == _bits(_numpy(x)).tolist()


@pytest.mark.parametrize("layout", list(UNARY_LAYOUTS))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_the_op_on_every_layout(layout: str, dtype: str) -> None:
    base = np.random.default_rng(4).uniform(-1, 9, (40, 33)).astype(dtype)
    view = UNARY_LAYOUTS[layout]
    s, t = view(strided.from_numpy(base)), view(torch.from_numpy(base))
    got, want = strided.rsqrt(s), torch.rsqrt(t)
    assert got.dtype == getattr(strided, dtype) and got.shape == tuple(want.shape) and got.stride() == want.stride()
    ref = _bits(_numpy(np.ascontiguousarray(t.numpy())))
    np.testing.assert_array_equal(_bits(got.numpy()), ref)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=2e-7 if dtype == "float32" else 1e-15)
    with native.disabled():
        np.testing.assert_array_equal(_bits(strided.rsqrt(s).numpy()), ref)
    out = strided.empty(tuple(want.shape), dtype=getattr(strided, dtype))
    assert strided.rsqrt(s, out=out) is out
    np.testing.assert_array_equal(_bits(out.numpy()), ref)
    leaf = strided.from_numpy(base.copy()).requires_grad_()
    np.testing.assert_array_equal(_bits(strided.rsqrt(view(leaf)).detach().numpy()), ref)
    inplace = view(strided.from_numpy(base.copy()))
    inplace.rsqrt_()  # (x is out: NumPy's two ufuncs)
    np.testing.assert_array_equal(_bits(inplace.numpy()), ref)
