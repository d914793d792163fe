"""Red team (session 14, red14a): the session's compiled kernels against NumPy's and PyTorch's bits.

Each test pins a wrong number found here (its input, NumPy's or PyTorch's bits, the kernel's).
"""

from __future__ import annotations

import platform

import numpy as np
import pytest

from strided.kernels import rows

_ROWS = rows._kernel_module()
needs_rows = pytest.mark.skipif(_ROWS is None, reason="no compiled row kernel")


def _column_nans(dtype: type, count: int, width: int) -> np.ndarray:
    """(count, width) ordinary numbers; column 0 holds two NaNs of different payloads (rows 1 and
    2), column 1 a positive and a negative NaN (rows 0 and 3)."""
    x = np.random.default_rng(0).standard_normal((count, width)).astype(dtype)
    u = x.view(np.uint32 if dtype is np.float32 else np.uint64)
    quiet = 0x7FC00000 if dtype is np.float32 else 0x7FF8000000000000
    sign = 0x80000000 if dtype is np.float32 else 0x8000000000000000
    u[1, 0], u[2, 0] = quiet | 1, quiet | 2
    u[0, 1], u[3, 1] = quiet | 5, sign | quiet | 3
    return x


@needs_rows
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("count", [4, 5, 6, 7, 8, 9, 26])
@pytest.mark.parametrize("transposed", [False, True])
def test_column_reduces_keep_numpys_nan_payloads(dtype: type, count: int, transposed: bool) -> None:
    """A column holding two NaNs: NumPy's 2-d reduce keeps the first NaN met (out + row, out's
    payload); the compiled add may return either operand's (a + b is b + a to C: (4, 4096) float64
    summed over dim 0 gave 0x7ff8000000000002 for NumPy's 0x7ff8000000000001), and the extremes'
    recompute by NumPy's 1-d call on the column alone kept the last NaN ((2341, 7) amax over dim 0:
    0x...2 for 0x...1)."""
    width = max(16, -(-rows.MIN_ELEMENTS // count))
    x = _column_nans(dtype, count, width)
    axis = 0
    if transposed:
        x, axis = x.T, 1
    for ours, numpys in ((rows.add_reduce, np.add.reduce), (rows.max_reduce, np.maximum.reduce),
                         (rows.min_reduce, np.minimum.reduce)):
        for keepdims in (False, True):
            with np.errstate(all="ignore"):
                got = ours(x, axis, None, None, keepdims)
                want = numpys(x, axis, None, None, keepdims)
            assert got.shape == want.shape and got.dtype == want.dtype
            assert got.tobytes() == want.tobytes(), (ours.__name__, x.shape, axis, keepdims)


@needs_rows
def test_narrow_column_extremes_keep_the_first_nan() -> None:
    """(2341, 7) float64, rows 8 elements apart: few columns, each recomputed alone before."""
    x = np.random.default_rng(0).standard_normal((2341, 8))[:, :7]
    x.view(np.uint64)[5, 0] = 0x7FF8000000000001
    x.view(np.uint64)[9, 0] = 0x7FF8000000000002
    for ours, numpys in ((rows.max_reduce, np.maximum.reduce), (rows.min_reduce, np.minimum.reduce)):
        assert ours(x, 0).tobytes() == numpys(x, 0).tobytes()


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("op", ["cummax", "cummin"])
@pytest.mark.parametrize("kernel", [True, False])
def test_cummax_cummin_values_are_the_element_at_the_index(dtype: str, op: str, kernel: bool) -> None:
    """PyTorch's loop sets out = x wherever it moves the index (x >= out, x <= out, or a NaN):
    [-0.0, 0.0, -0.0] gives [-0.0, 0.0, -0.0]. The NumPy path (float16/bfloat16 always, every
    dtype without the kernel) kept accumulate's values: -0.0 before 0.0 stayed ([-0., -0., -0.]
    for float16), and the first NaN's payload after later NaNs."""
    import torch

    import strided
    from strided.kernels import native

    nan2 = np.array([0x7E03], np.uint16).view(np.float16)[0]  # (a NaN of another payload)
    base = np.array([[-0.0, 0.0, -0.0, 1.0, 1.0, np.nan, 2.0, nan2, -0.0],
                     [0.0, -0.0, 0.0, -0.0, np.nan, -np.nan, 0.0, -1.0, 3.0]], np.float32)
    if dtype == "float16":
        base = base.astype(np.float16)
    t = torch.from_numpy(base.copy()).to(getattr(torch, dtype))
    if dtype == "bfloat16":  # (the same bits as t's, NaN payloads included)
        s = strided.from_numpy(t.view(torch.int16).numpy().copy()).view(strided.bfloat16)
    else:
        s = strided.from_numpy(t.numpy().copy())
    for dim in (0, 1):
        want = getattr(torch, op)(t, dim)
        if kernel:
            got = getattr(strided, op)(s, dim)
        else:
            with native.disabled():
                got = getattr(strided, op)(s, dim)
        w = want.values.view(torch.int16).numpy() if dtype == "bfloat16" else want.values.numpy()
        g = np.asarray(got.values.view(strided.int16).numpy() if dtype == "bfloat16" else got.values.numpy())
        assert g.tobytes() == w.tobytes(), (dim, g, w)
        assert np.asarray(got.indices.numpy()).tolist() == want.indices.numpy().tolist()


_EXPF_SCRIPT = """
import ctypes, ctypes.util
import numpy as np
from strided.kernels import native
k = native.special()
libm = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
libm.expf.restype, libm.expf.argtypes = ctypes.c_float, [ctypes.c_float]
xs = np.array([float.fromhex("0x1.04845ep+5"), float.fromhex("-0x1.f8cbb2p+5")] * 8 + [-1.5] * 8, np.float32)
out = np.empty_like(xs)
if k is not None and k.shifted_expf(xs, 0.0, out):
    want = np.array([libm.expf(float(v)) for v in xs], np.float32)
    print("used", out.tobytes() == want.tobytes())
else:
    print("off")
"""


@pytest.mark.skipif(not _ROWS or platform.machine() not in ("x86_64", "AMD64"),
                    reason="x86-64 with the compiled kernels only")
@pytest.mark.parametrize("tunables", ["", "glibc.cpu.hwcaps=-AVX2,-FMA"])
def test_shifted_expf_is_this_process_expf_where_used(tunables: str) -> None:
    """softmax/log_softmax's float32 exponentials (shifted_expf) follow glibc's FMA expf; where the
    process's libm picks its plain variant (GLIBC_TUNABLES hiding FMA from glibc, not from the CPU
    test), the two differ on two floats, which the first-use check's 2^16 spread inputs missed:
    expf(-0x1.f8cbb2p+5) gave 0x1.f45326p-92 for libm's 0x1.f45324p-92 (red14a). Where the loop is
    used, it gives this process's expf bits."""
    from tests.fresh_runs import outputs

    (got,) = outputs(_EXPF_SCRIPT, {"GLIBC_TUNABLES": tunables} if tunables else {})
    assert got.strip() in ("off", "used True"), got
