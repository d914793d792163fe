"""Red team of the compiled special functions (kernels/_specialkernel.c, kernels/special.py and
their ops): the findings, each a test that failed before its fix.

- An unaligned float64 array (``from_numpy`` of a buffer at an odd byte offset; PyTorch takes it)
  exports the buffer format "=d", which the kernel refuses: erf, special.i1, polygamma and
  erf_() raised the kernel's ValueError instead of computing (now the NumPy formulas take it).
- A direct kernel call with a row-major src and a column-major dst of one shape walked both in
  memory order and silently wrote the transpose (now a ValueError; the ops layer never did it).

The comparisons against the kernel itself are collected only where it is built (as in
tests/test_native_special.py, whose ``test_the_kernel_is_built`` fails where it should be).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided
from strided.kernels import native

_KERNEL = native.special()


def _unaligned(values: np.ndarray) -> np.ndarray:
    """float64 ``values`` copied to an address 4 bytes past an 8-byte boundary (NumPy: unaligned)."""
    raw = np.zeros(values.size * 8 + 12, np.uint8)
    start = 4 if raw.ctypes.data % 8 == 0 else (12 - raw.ctypes.data % 8) % 8
    out = raw[start : start + values.size * 8].view(np.float64)
    out[:] = values
    assert not out.flags.aligned
    return out


_X = np.array([-2.5, -0.5, -0.0, 0.25, 0.5, 1.0, 3.5, 40.0, np.inf, np.nan])


@pytest.mark.parametrize("name", ["erf", "erfc", "digamma", "lgamma", "i0", "special.i1",
                                  "special.i0e", "special.i1e", "polygamma0", "polygamma3"])
def test_unaligned_input_computes_as_pytorch(name: str) -> None:
    x = _unaligned(_X)
    t, s = torch.from_numpy(x), strided.from_numpy(x)
    if name.startswith("polygamma"):
        expected, got = torch.polygamma(int(name[-1]), t), strided.polygamma(int(name[-1]), s)
    elif name.startswith("special."):
        expected, got = getattr(torch.special, name[8:])(t), getattr(strided.special, name[8:])(s)
    else:
        expected, got = getattr(torch, name)(t), getattr(strided, name)(s)
    g, e = got.numpy(), expected.numpy()
    np.testing.assert_allclose(g, e, rtol=1e-13, atol=0)
    assert np.array_equal(np.signbit(g[~np.isnan(e)]), np.signbit(e[~np.isnan(e)]))


def test_unaligned_in_place_and_out() -> None:
    x = _unaligned(np.linspace(-0.9, 0.9, 7))
    want = torch.erfinv(torch.from_numpy(x.copy()))
    strided.from_numpy(x).erfinv_()
    np.testing.assert_allclose(x, want.numpy(), rtol=1e-13)
    out = _unaligned(np.zeros(7))
    strided.erf(strided.from_numpy(x), out=strided.from_numpy(out))
    np.testing.assert_allclose(out, torch.erf(want).numpy(), rtol=1e-13)


if _KERNEL is not None:  # (the kernel's own entry points; see the module docstring)

    def test_direct_call_refuses_mixed_memory_orders() -> None:
        a = np.arange(6.0).reshape(2, 3)
        dst = np.full((2, 3), -7.0, order="F")
        with pytest.raises(ValueError, match="one memory order"):
            _KERNEL.erf(a, dst)
        assert (dst == -7.0).all()  # (nothing written)
        _KERNEL.erf(np.asfortranarray(a), dst)  # (both column-major: element for element)
        np.testing.assert_allclose(dst, torch.erf(torch.from_numpy(a)).numpy(), rtol=1e-15)

    def test_direct_call_refuses_unaligned_buffers() -> None:
        with pytest.raises(ValueError, match="formats =d"):
            _KERNEL.lgamma(_unaligned(_X), np.empty(_X.size))


def test_polygamma_far_negative_in_the_numpy_formulas() -> None:
    """The NumPy zeta stepped its direct sum one whole-array pass per step: polygamma(2, -2e5-0.3)
    took ~25 s, PyTorch's large value -4988429.2 many minutes (the kernel and PyTorch: well under
    a second). The far steps now run in chunks, in the same order of operations as the loop."""
    x = np.array([[-2e5 - 0.3, -4096.75, 1.5], [-1000.7, -5000.0, np.nan], [-4097.25, -9000.5, 0.25]])
    for n in (2, 3):
        with native.disabled():
            got = strided.polygamma(n, strided.from_numpy(x)).numpy()
            zero_d = strided.polygamma(n, strided.tensor(-100.5, dtype=strided.float64)).item()
        want = torch.polygamma(n, torch.from_numpy(x)).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)
        assert zero_d == pytest.approx(torch.polygamma(n, torch.tensor(-100.5, dtype=torch.float64)).item(), rel=1e-12)
        if _KERNEL is not None:  # (the compiled kernel is PyTorch's own calc_polygamma: its bits)
            assert np.array_equal(strided.polygamma(n, strided.from_numpy(x)).numpy(), want, equal_nan=True)
