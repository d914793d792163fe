"""strided.complex(real, imag) through the compiled ``interleave`` (both parts into the complex
pairs in one pass, bits moved as integers: signalling NaNs and payloads, -0.0, infinities kept):
the two copies' bits (``native.disabled()``), PyTorch's result, shape and strides, on row-major,
transposed (all column-major), stepped, broadcast, 0-d and empty operands, float32 and float64;
the kernel's refusals.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided
from strided.kernels import native

_KERNEL = native.special()
pytestmark = pytest.mark.skipif(_KERNEL is None or not hasattr(_KERNEL, "interleave"),
                                reason="the compiled special functions are not built")
_LAYOUTS = {
    "contiguous": lambda a, b: (a, b),
    "transposed": lambda a, b: (a.T, b.T),
    "stepped": lambda a, b: (a[::2], b[1::2]),
    "broadcast": lambda a, b: (a, b[:1]),
    "mixed": lambda a, b: (a.T, b.T.contiguous()),
    "0-d": lambda a, b: (a[1, 2], b[3, 4]),
    "empty": lambda a, b: (a[:0], b[:0]),
}


def _parts(dtype: str) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(2)
    a, b = (rng.uniform(-3, 3, (20, 14)).astype(dtype) for _ in range(2))
    width = np.uint32 if dtype == "float32" else np.uint64
    sig = np.array(0x7F800001 if dtype == "float32" else 0x7FF0000000000001, width).view(dtype)
    a[0, :4] = [0.0, -0.0, np.inf, sig]
    b[0, :4] = [-0.0, np.nan, -np.inf, sig]
    return a, b


@pytest.mark.parametrize("layout", list(_LAYOUTS))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_the_copies_bits_and_pytorchs_layout(layout: str, dtype: str) -> None:
    a, b = _parts(dtype)
    s = _LAYOUTS[layout](strided.from_numpy(a), strided.from_numpy(b))
    t = _LAYOUTS[layout](torch.from_numpy(a), torch.from_numpy(b))
    got, want = strided.complex(*s), torch.complex(*t)
    assert got.shape == tuple(want.shape) and got.stride() == want.stride()
    width = np.uint64  # (a complex64 is one uint64, a complex128 two)
    with native.disabled():
        ref = strided.complex(*s)
    g, r = np.ascontiguousarray(got.numpy()), np.ascontiguousarray(ref.numpy())
    np.testing.assert_array_equal(g.view(width), r.view(width))
    np.testing.assert_array_equal(g, np.ascontiguousarray(want.numpy()))


def test_refusals() -> None:
    x, y = np.ones(6, np.float32), np.zeros(6, np.float32)
    out = np.empty(6, np.complex64)
    assert _KERNEL.interleave(x, y, out) and out.tolist() == [1 + 0j] * 6
    assert not _KERNEL.interleave(x, y.astype(np.float64), np.empty(6, np.complex128))
    assert not _KERNEL.interleave(x, y, np.empty(5, np.complex64))
    assert not _KERNEL.interleave(x[::2], y[::2], np.empty(3, np.complex64))
    both = np.zeros(12, np.float32)
    assert not _KERNEL.interleave(both[:6], y, both.view(np.complex64))  # (out overlaps x)
    with pytest.raises(TypeError):
        _KERNEL.interleave(x, y)
