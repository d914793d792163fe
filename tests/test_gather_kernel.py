"""The compiled gather of a layout's elements (``strided.kernels._copykernel.gather``), the small
copies' kernel (``strided.ops.copies.row_major_copy``: the *_copy forms, ``contiguous()``): the same
bytes as NumPy's ``flatten`` of the layout's view, and None, nothing read, for any layout it does
not take (the caller then builds that view)."""

from __future__ import annotations

import numpy as np
import pytest

import strided
from strided.kernels import native

gather = getattr(native._compiled("_copykernel"), "gather", None)
pytestmark = pytest.mark.skipif(gather is None, reason="the compiled copy kernel is not built")

DTYPES = [np.bool_, np.int8, np.int16, np.float16, np.int32, np.float32, np.int64, np.float64, np.complex64,
          np.complex128]


def _view(buf: np.ndarray, offset: int, shape: tuple, strides: tuple) -> np.ndarray:
    return np.lib.stride_tricks.as_strided(buf[offset:], shape, [s * buf.itemsize for s in strides])


@pytest.mark.parametrize("dtype", DTYPES)
def test_gather_is_the_flatten_of_the_view(dtype):
    rng = np.random.default_rng(0)
    buf = (rng.standard_normal(200) * 100).astype(dtype)
    if dtype is np.float32:
        buf[3] = np.nan
        buf[4] = -0.0
    layouts = [(0, (4, 3), (1, 4)), (5, (3, 4), (4, 1)), (2, (2, 3, 4), (1, 8, 2)), (7, (5,), (3,)),
               (1, (3, 4), (0, 1)), (0, (2, 1, 3), (3, 10**15, 1)), (9, (), ()), (0, (0, 5), (100, 1)),
               (0, (10, 10), (1, 10))]
    for offset, shape, strides in layouts:
        got = gather(buf, offset, shape, strides, buf.dtype)
        want = _view(buf, offset, shape, [0 if n == 1 else s for n, s in zip(shape, strides)]).flatten()
        assert got is not None and got.ndim == 1 and got.dtype == buf.dtype
        assert got.tobytes() == want.tobytes(), (offset, shape, strides)


def test_gather_refuses_what_it_does_not_take():
    buf = np.arange(12, dtype=np.float32)
    f32 = buf.dtype
    assert gather(buf, 11, (2,), (1,), f32) is None  # past the buffer's end
    assert gather(buf, 0, (3, 5), (4, 1), f32) is None  # the last row runs past it
    assert gather(buf, 0, (2, 2), (1, 2**62), f32) is None  # a stride beyond any buffer
    assert gather(buf, 4, (3,), (-1,), f32) is None  # a negative stride
    assert gather(buf, -1, (2,), (1,), f32) is None  # a negative offset
    assert gather(buf, 0, (3,), (1,), np.dtype(np.float64)) is None  # another itemsize than the buffer's
    assert gather(buf, 0, [3], [1], f32) is None  # shape and strides must be tuples
    assert gather(buf[::2], 0, (3,), (1,), f32) is None  # not one contiguous run
    raw = np.zeros(64, np.uint8)
    unaligned = raw[1:41].view(np.float32)
    assert gather(unaligned, 0, (10,), (1,), f32) is None  # unaligned: NumPy's loops read it
    big = np.zeros(1 << 15, np.float32)
    assert gather(big, 0, (1 << 15,), (1,), f32) is None  # over the 64 KiB a small copy takes


def test_the_copies_give_the_views_values_with_the_kernel_on_and_off():
    x = strided.arange(24, dtype=strided.float64).reshape(2, 3, 4)
    for v in (x.permute(2, 0, 1), x[:, 1], x.transpose(0, 2)[1:, ::2], x.diagonal(0, 1, 2), x[1, 2:, 3]):
        for on in (True, False):
            if on:
                c, a = v.contiguous(), strided.alias_copy(v)
            else:
                with native.disabled():
                    c, a = v.contiguous(), strided.alias_copy(v)
            for y in (c, a):
                assert y.tolist() == v.tolist() and y.is_contiguous()
            assert not strided.shares_memory(a, x)  # (contiguous() of a contiguous view is the view)
