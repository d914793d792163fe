"""Hostile checks of session 29's merges (red29): each against PyTorch where it decides (the
error's class and its first line), drawn from seeded generators."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import strided

torch = pytest.importorskip("torch")


def _cumprod_grad(lib, x: np.ndarray, d: int, dtype: str, g: np.ndarray, create_graph: bool) -> tuple:
    """(dtype name, bytes) of cumprod's gradient, or (error class, first line) where it raises."""
    t = lib.from_numpy(x.copy()).requires_grad_(True)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (torch's "casting complex values to real" of the size-1 lines)
            y = t.cumprod(d, dtype=getattr(lib, dtype))
            (gx,) = lib.autograd.grad(y, t, lib.from_numpy(g.copy()), create_graph=create_graph)
        return str(gx.dtype).split(".")[-1], gx.detach().numpy().tobytes()
    except Exception as e:  # noqa: BLE001 - compared with torch's
        # (the first line, less torch's "(Could this error message be improved? ...)" tail)
        return type(e).__name__.replace("Strided", ""), str(e).splitlines()[0].split("  (Could this")[0]


@pytest.mark.parametrize("src", ["float32", "float64"])
def test_cumprod_with_a_complex_dtype_of_a_real_input_raises_as_torch(src):
    """cumprod(x, dtype=complex64) of a real x: PyTorch's cumprod_backward gives a complex
    gradient, which its engine's validate_outputs refuses ("Expected isFloatingType(...)");
    strided's engine took the real part (a float gradient where PyTorch raises: 32 of 192 drawn
    cases differed). With a zero PyTorch's masked_scatter_ raises its cast error first; a line of
    one element passes the gradient on (cast to the input's dtype); real dtypes are unchanged."""
    rng = np.random.default_rng(2929)
    for shape, d in [((3, 5), 1), ((3, 1), 1), ((1,), 0), ((), 0), ((0, 3), 1), ((4,), 0), ((2, 3), 0), ((5, 2), -1)]:
        for dtype in ("complex64", "complex128", "float64", "float32"):
            for zero in (False, True):
                x = np.asarray(rng.standard_normal(shape)).astype(src)
                if zero and x.size:
                    x.flat[x.size // 2] = 0
                g = np.asarray(rng.standard_normal(shape) + (1j if dtype.startswith("c") else 0)).astype(dtype)
                for create_graph in ((False, True) if not zero else (False,)):  # (a zero's second derivative: not in strided)
                    want = _cumprod_grad(torch, x, d, dtype, g, create_graph)
                    got = _cumprod_grad(strided, x, d, dtype, g, create_graph)
                    assert got == want, (shape, d, dtype, zero, create_graph)
