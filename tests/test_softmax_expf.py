"""The float32 softmax rows' exponentials under ATen's DEFAULT capability (``_specialkernel.shifted_expf``: glibc's expf, its FMA
variant, vectorized with AVX2) against libm's own ``expf`` called through ctypes: bit for bit on a
spread of every sign, exponent and mantissa region, the special inputs (overflow, underflow, -inf,
+inf, NaN of both signs and payloads, subnormals, zeros) and shifted rows; and the softmax rows
against the scalar ``expf`` formula where the kernel declines (no AVX2/FMA: nothing to compare).
"""

from __future__ import annotations

import ctypes
import ctypes.util

import numpy as np
import pytest

from strided.kernels import native

K = native.special()
pytestmark = pytest.mark.skipif(K is None, reason="the compiled kernel is not built")
_LIBM = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
_LIBM.expf.restype = ctypes.c_float
_LIBM.expf.argtypes = [ctypes.c_float]


def _libm(v: np.ndarray) -> np.ndarray:
    """libm's expf of each float32, its bits kept (ctypes passes floats through unchanged)."""
    return np.array([_LIBM.expf(float(e)) for e in v], np.float32)


def _spread(count: int, seed: int) -> np.ndarray:
    r = np.random.default_rng(seed)
    bits = r.integers(0, 2**32, count, dtype=np.uint64).astype(np.uint32)
    special = np.array([0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007FFFFF, 0x807FFFFF, 0x7F800000,
                        0xFF800000, 0x7FC00000, 0xFFC00000, 0x7FC12345, 0xFFD00001, 0x42B17217, 0x42B17218,
                        0xC2CFF1B4, 0xC2CFF1B5, 0xC2CE8ED0, 0x42AFFFFF, 0x42B00000, 0xC2B00000, 0x4202422F,
                        0x3F800000, 0xBF800000, 0x33800000, 0xB3800000], np.uint32)
    return np.concatenate([special, bits]).view(np.float32)


def test_every_region_and_the_special_inputs_against_libm() -> None:
    x = _spread(60000, 1)
    out = np.empty_like(x)
    if not K.shifted_expf(x, 0.0, out):
        pytest.skip("the vectorized expf is not used on this machine (no AVX2/FMA or its check failed)")
    want = _libm(x - np.float32(0.0))
    assert out.tobytes() == want.tobytes()


def test_shifted_rows_against_libm() -> None:
    """x - m as the softmax computes it (float32 subtraction first), lengths not a multiple of 8."""
    r = np.random.default_rng(2)
    for n, m in ((1, 0.5), (7, 3.0), (8, -2.0), (13, 87.9), (1000, 10.0)):
        x = (r.standard_normal(n) * 30).astype(np.float32)
        out = np.empty_like(x)
        if not K.shifted_expf(x, m, out):
            pytest.skip("the vectorized expf is not used on this machine")
        assert out.tobytes() == _libm(x - np.float32(m)).tobytes()


def test_arguments_and_overlap() -> None:
    x = np.ones(8, np.float32)
    with pytest.raises(ValueError, match="float32"):
        K.shifted_expf(x.astype(np.float64), 0.0, np.empty(8))
    with pytest.raises(ValueError, match="one length"):
        K.shifted_expf(x, 0.0, np.empty(7, np.float32))
    with pytest.raises(TypeError, match="3 arguments"):
        K.shifted_expf(x, 0.0)
    assert K.shifted_expf(x, 0.0, x) is False  # (an overlap: nothing written)
    assert (x == 1).all()
