"""float16 add / sub / mul / div (and add / sub with ``alpha=``) through the compiled half kernel
(strided.kernels._halfkernel, via strided.kernels.elementwise.half_into): each element through
float32 and back. The compiled result must be NumPy's float16 ufunc's bit for bit (NaN sign and
payload, -0.0, infinities, subnormals, overflow), in both compiled copies (AVX2+F16C and the
baseline), and the strided op's result must be the NumPy path's (``native.disabled()``), layout
included, and PyTorch's values (NaN where PyTorch has NaN: its payloads depend on its loop)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided as st
from strided.kernels import native
from strided.kernels.elementwise import half_into
from strided.kernels.fused import fma
from strided.kernels.torch_loops import torch_threads

pytestmark = pytest.mark.skipif(native.half() is None, reason="the compiled kernels are not built")

UFUNCS = {0: np.add, 1: np.subtract, 2: np.multiply, 3: np.true_divide}
ODD_BITS = [0x7C01, 0xFC01, 0x7E00, 0xFE00, 0x7D00, 0xFDEC, 0x0001, 0x8001, 0x03FF, 0x83FF, 0x0400, 0x7BFF, 0xFBFF,
            0x7C00, 0xFC00, 0x0000, 0x8000, 0x3C00, 0xBC00, 0x3555, 0x1400]


@pytest.fixture(params=[True, False], ids=["wide", "baseline"])
def copy(request):
    """Each compiled copy in turn (the wide one only where the CPU has it), the default after."""
    k = native.half()
    k.select(request.param)
    yield
    k.select(True)


def _pairs() -> tuple[np.ndarray, np.ndarray]:
    """Every float16 against a few hundred others (random bits and the edges), both ways round."""
    every = np.arange(65536, dtype=np.uint16).view(np.float16)
    rng = np.random.default_rng(23)
    others = np.concatenate([rng.integers(0, 65536, 40, dtype=np.uint16), np.array(ODD_BITS, np.uint16)]).view(np.float16)
    x = np.tile(every, len(others))
    y = np.repeat(others, len(every))
    return np.concatenate([x, y]), np.concatenate([y, x])


def _bits(a) -> np.ndarray:
    return np.ascontiguousarray(a).view(np.uint16)


@pytest.mark.parametrize("code", [0, 1, 2, 3])
def test_every_float16_is_numpys(copy, code):
    x, y = _pairs()
    out = np.empty_like(x)
    assert half_into(code, x, y, out)
    with np.errstate(all="ignore"):
        ref = UFUNCS[code](x, y)
    np.testing.assert_array_equal(_bits(out), _bits(ref))


@pytest.mark.parametrize("alpha", [2.0, 0.3, -1.5, 1e-4, 65504.0])
def test_fused_is_fmas(copy, alpha):
    """Code 4: fma(alpha, x, y) in float32 rounded once, then to float16: fused.fma's bits (the
    compiled fma32, or NumPy's exact float64 route without it)."""
    x, y = _pairs()
    a = np.float16(alpha)
    out = np.empty_like(x)
    assert half_into(4, x, y, out, float(a))
    with np.errstate(all="ignore"):
        ref = fma(x, a, y)
        with native.disabled():
            ref_numpy = fma(x, a, y)
    np.testing.assert_array_equal(_bits(out), _bits(ref))
    np.testing.assert_array_equal(_bits(out), _bits(ref_numpy))


def test_refusals_write_nothing():
    x = np.arange(12, dtype=np.float16).reshape(3, 4)
    out = np.zeros((3, 4), np.float16)
    assert not half_into(0, x, x.T.copy().T, out)  # (layouts differ: the flat runs do not pair up)
    assert not half_into(0, x, x.astype(np.float32), out)  # (not float16)
    assert not half_into(0, x, x[:, :1], out)  # (broadcast)
    buf = np.zeros(13, np.float16)
    assert not half_into(0, buf[1:], buf[:-1], buf[:-1])  # (an operand overlapping out off by one)
    assert not out.any()
    with native.disabled():
        assert not half_into(0, x, x, out)
    assert half_into(0, x, x, x) and x.tolist() == (2 * np.arange(12.0)).reshape(3, 4).tolist()  # (in place)


def _operands(permuted: bool, n: int = 300) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    x = (rng.standard_normal((n, 257)) * 300).astype(np.float16)
    y = (rng.standard_normal((n, 257)) * 3).astype(np.float16)
    x.ravel()[:len(ODD_BITS)] = np.array(ODD_BITS, np.uint16).view(np.float16)
    y.ravel()[5:5 + len(ODD_BITS)] = np.array(ODD_BITS, np.uint16).view(np.float16)
    return (x.T, y.T) if permuted else (x, y)


@pytest.mark.parametrize("permuted", [False, True])
@pytest.mark.parametrize("name,kw", [("add", {}), ("sub", {}), ("mul", {}), ("div", {}), ("add", {"alpha": 2.5}),
                                     ("sub", {"alpha": -0.7}), ("add", {"alpha": 1e-3})])
def test_ops_match_numpy_path_and_torch(name, kw, permuted):
    x, y = _operands(permuted)
    f = getattr(st, name)
    fast = f(st.from_numpy(x), st.from_numpy(y), **kw)
    with native.disabled():
        slow = f(st.from_numpy(x), st.from_numpy(y), **kw)
    before = torch.get_num_threads()
    torch.set_num_threads(torch_threads())  # (alpha=: each thread's chunk has its own scalar tail)
    try:
        ref = getattr(torch, name)(torch.from_numpy(x), torch.from_numpy(y), **kw)
    finally:
        torch.set_num_threads(before)
    assert fast.dtype is slow.dtype is st.float16
    assert fast.shape == slow.shape == tuple(ref.shape) and fast.stride() == slow.stride() == ref.stride()
    np.testing.assert_array_equal(_bits(fast.numpy()), _bits(slow.numpy()))
    got, want = fast.numpy(), ref.numpy()
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan)
    np.testing.assert_array_equal(_bits(got[~nan]), _bits(want[~nan]))


@pytest.mark.parametrize("name", ["add_", "sub_", "mul_", "div_"])
def test_inplace_matches_numpy_path(name):
    x, y = _operands(False)
    a, b = st.from_numpy(x.copy()), st.from_numpy(y)
    getattr(a, name)(b)
    with native.disabled():
        c = st.from_numpy(x.copy())
        getattr(c, name)(st.from_numpy(y))
    np.testing.assert_array_equal(_bits(a.numpy()), _bits(c.numpy()))


@pytest.mark.parametrize("name", ["add", "sub", "mul", "div"])
def test_out_and_general_path_match_numpy_path(name):
    """The general path (``out=``, column-major operands into a row-major ``out``) reaches the
    kernel through binary_into where the layouts pair up, NumPy's ufunc elsewhere: the same bits."""
    x, y = _operands(True)
    for target in (np.empty(x.shape, np.float16), np.empty(x.shape, np.float16, order="F")):
        fast = st.from_numpy(target.copy())
        getattr(st, name)(st.from_numpy(x), st.from_numpy(y), out=fast)
        with native.disabled():
            slow = st.from_numpy(target.copy())
            getattr(st, name)(st.from_numpy(x), st.from_numpy(y), out=slow)
        assert fast.stride() == slow.stride()
        np.testing.assert_array_equal(_bits(fast.numpy()), _bits(slow.numpy()))
