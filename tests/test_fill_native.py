"""The compiled fill (``_specialkernel.fill_value`` through ``strided.kernels.fill.fill`` and
``fill_dense``): from ``FILL_MIN`` elements, full / ones / *_like / new_* / fill_ / zero_ of
contiguous and permuted tensors write the bytes NumPy's ``fill`` / ``np.copyto`` write (the kernel
switched off), PyTorch's values, for every element size (1, 2, 4, 8, 16 bytes), odd lengths and
starts off a 64-byte boundary, NaN / inf / -0.0 / float32-rounded values; shorter or strided
targets keep NumPy's path.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided as st
from strided.kernels import native
from strided.kernels.fill import FILL_MIN, fill, fill_dense

pytestmark = pytest.mark.skipif(native.special() is None, reason="the compiled kernel is not built")

_DTYPES = ["bool", "int8", "uint8", "int16", "float16", "int32", "float32", "int64", "float64", "complex64",
           "complex128"]
_VALUES = [1, -3, 2.5, 0.1, -0.0, float("nan"), float("inf"), 1e300, True, 3 - 4j]


def _numpy_fill(n: int, dtype: str, value: object) -> np.ndarray:
    a = np.empty(n, dtype)
    a.fill(value)
    return a


@pytest.mark.parametrize("dtype", _DTYPES)
def test_fill_is_numpys_bytes(dtype: str) -> None:
    with np.errstate(all="ignore"):
        for n in (FILL_MIN - 1, FILL_MIN, FILL_MIN + 7, 100_003):
            for start in (0, 1, 3):  # (starts off the 64-byte boundary the loop aligns to)
                for value in _VALUES:
                    try:
                        want = _numpy_fill(n, dtype, value)
                    except (TypeError, OverflowError, ValueError):
                        continue
                    buf = np.zeros(n + start + 5, dtype)
                    got = buf[start:start + n]
                    fill(got, value)
                    assert got.tobytes() == want.tobytes(), (dtype, n, start, value)
                    assert not buf[:start].any() and not buf[start + n:].any()  # (nothing outside)


def test_fill_dense_orders_and_refusals() -> None:
    a = np.zeros((3, 200, 70), np.float32)
    for perm in ((0, 1, 2), (2, 0, 1), (1, 2, 0), (2, 1, 0)):
        v = a.transpose(perm)
        assert fill_dense(v, np.float64(0.1))
        assert (a == np.float32(0.1)).all()
        a[...] = 0
    assert not fill_dense(a[:, ::2], 1.0)  # (gaps: not one run)
    assert not fill_dense(a[:1, :10], 1.0)  # (short)
    assert not a.any()
    k = native.special()
    out = np.zeros(FILL_MIN, np.float32)
    assert k.fill_value(out, np.ones(1, np.float64)) is False  # (another element size: nothing written)
    assert k.fill_value(out, np.ones(2, np.float32)) is False
    assert not out.any()
    with pytest.raises(TypeError, match="2 arguments"):
        k.fill_value(out)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "float16", "complex64", "bool"])
def test_creation_and_in_place_fills_match_torch_and_the_numpy_path(dtype: str) -> None:
    sd, td = getattr(st, dtype), getattr(torch, dtype)
    value = True if dtype == "bool" else (2 if dtype == "int64" else 0.1)
    shape = (257, 129)
    base = np.zeros(shape, np.dtype(dtype))
    for transpose in (False, True):
        s = st.tensor(base).t() if transpose else st.tensor(base)
        t = torch.from_numpy(base.copy()).t() if transpose else torch.from_numpy(base.copy())
        made = [
            (lambda m, s=s, t=t: m.full(shape, value, dtype=sd if m is st else td)),
            (lambda m, s=s, t=t: m.ones(shape, dtype=sd if m is st else td)),
            (lambda m, s=s, t=t: m.full_like((s if m is st else t), value)),
            (lambda m, s=s, t=t: m.ones_like(s if m is st else t)),
            (lambda m, s=s, t=t: (s if m is st else t).new_full(shape, value)),
            (lambda m, s=s, t=t: (s if m is st else t).new_ones(shape)),
            (lambda m, s=s, t=t: (s if m is st else t).clone().fill_(value)),
            (lambda m, s=s, t=t: (s if m is st else t).clone().fill_(st.tensor(value) if m is st else torch.tensor(value))),
            (lambda m, s=s, t=t: m.ones_like(s if m is st else t).zero_()),
        ]
        for make in made:
            got = make(st)
            with native.disabled():
                slow = make(st)
            want = make(torch)
            assert got.stride() == tuple(want.stride()) == slow.stride()
            assert got.numpy().tobytes() == slow.numpy().tobytes()
            np.testing.assert_array_equal(got.numpy(), want.numpy())
