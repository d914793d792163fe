"""The float32 lgamma kernel (``lgamma_float32`` in kernels/_specialkernel.c) against the scalar
kernel ``lgamma`` it replaces for float32 arrays: the same bits on every input (its vector loop
approximates the logs and recomputes every element whose float32 rounding that could move, and
every zero, negative, infinite and NaN one): random bit patterns over every exponent, the zeros at
1 and 2 and their neighbours, the recurrence's edges, poles, subnormals, the float32 extremes,
NaN payloads; any length, in place, column-major; the op against PyTorch with the kernel on and off.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs
from hypothesis.extra import numpy as hnp

import strided
from float32_cases import UNARY_LAYOUTS, neighbours
from strided.kernels import native

_KERNEL = native.special()
pytestmark = pytest.mark.skipif(_KERNEL is None or not hasattr(_KERNEL, "lgamma_float32"),
                                reason="the compiled special functions are not built")

# zeros of lgamma (1, 2), the small/large switch (1), the recurrence's ends (7, 8, 14, 15), poles
# (0, -1, -2), tiny, subnormal, huge, infinite
_EDGES32 = np.array([0.0, 0.5, 1.0, 2.0, 3.0, 7.0, 8.0, 9.0, 14.0, 15.0, 16.0, 0.1, 1e-45, 1.1754944e-38, 1e-30,
                     1e-8, 1e10, 1e30, 3.4028235e38, np.inf, 1.4616321, 2.4570316], dtype=np.float32)


def _edges() -> np.ndarray:
    return neighbours(np.concatenate([_EDGES32, -np.arange(1, 30, dtype=np.float32) - np.float32(0.5)]), 4)


def _both(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    fast, slow = np.empty_like(x), np.empty_like(x)
    _KERNEL.lgamma_float32(x, fast)
    _KERNEL.lgamma(x, slow)
    return fast, slow


def test_the_same_bits_as_the_scalar_kernel() -> None:
    rng = np.random.default_rng(17)
    n = 1 << 18
    patterns = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)
    cases = [_edges(), patterns, rng.uniform(0, 40, n).astype(np.float32), rng.uniform(0.8, 2.2, n).astype(np.float32),
             np.exp(rng.uniform(-100, 88, n)).astype(np.float32), (rng.standard_normal(n) * 8).astype(np.float32)]
    for x in cases:
        fast, slow = _both(x)
        np.testing.assert_array_equal(fast.view(np.uint32), slow.view(np.uint32))


@settings(max_examples=60, deadline=None)
@given(hnp.arrays(np.float32, hnp.array_shapes(min_dims=1, max_dims=1, min_side=0, max_side=700),
                  elements=hs.floats(width=32, allow_nan=True, allow_infinity=True)))
def test_the_same_bits_on_any_length(x: np.ndarray) -> None:
    """Lengths around the 256-element blocks, 0 included; every float32 (NaN, -0.0, subnormal)."""
    fast, slow = _both(x)
    assert fast.view(np.uint32).tolist() == slow.view(np.uint32).tolist()


def test_in_place_column_major_and_refusals() -> None:
    x = np.random.default_rng(3).uniform(-5, 30, (300, 7)).astype(np.float32)
    ref = np.empty_like(x)
    _KERNEL.lgamma(x, ref)
    y = x.copy()
    _KERNEL.lgamma_float32(y, y)  # (src and dst the same memory)
    np.testing.assert_array_equal(y.view(np.uint32), ref.view(np.uint32))
    f, out = np.asfortranarray(x), np.empty(x.shape, np.float32, order="F")
    _KERNEL.lgamma_float32(f, out)
    np.testing.assert_array_equal(out.view(np.uint32), ref.view(np.uint32))
    with pytest.raises(ValueError, match="float32"):
        _KERNEL.lgamma_float32(x.astype(np.float64), x)
    with pytest.raises(ValueError, match="memory order"):
        _KERNEL.lgamma_float32(x, np.empty(x.shape, np.float32, order="F"))


@pytest.mark.parametrize("layout", list(UNARY_LAYOUTS))
def test_the_op_gives_the_scalar_kernels_bits_and_matches_pytorch(layout: str) -> None:
    base = np.random.default_rng(9).uniform(-6, 30, (64, 48)).astype(np.float32)
    view = UNARY_LAYOUTS[layout]
    s, t = view(strided.from_numpy(base)), view(torch.from_numpy(base))
    got, want = strided.lgamma(s), torch.lgamma(t)
    ref = np.empty(got.shape, np.float32)
    _KERNEL.lgamma(np.ascontiguousarray(t.numpy()), ref)
    np.testing.assert_array_equal(np.ascontiguousarray(got.numpy()).view(np.uint32), ref.view(np.uint32))
    assert got.dtype == strided.float32 and got.shape == tuple(want.shape) and got.stride() == want.stride()
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=2e-6)
    with native.disabled():
        off = strided.lgamma(s)
    np.testing.assert_allclose(off.numpy(), got.numpy(), rtol=1.2e-7, atol=1e-7)
