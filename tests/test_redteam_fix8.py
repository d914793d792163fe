"""Red-team tests for branch fix8 (the fma NumPy fallback, clamp with complex bounds), against
torch 2.13.

- clamp's complex-bound checks (``_real_bound``, ``_no_complex_bound``) took ``np.complex64``
  and ``np.clongdouble`` for complex numbers. PyTorch's argument parser takes only a Python
  ``complex`` (``np.complex128`` subclasses it) as complex; the other NumPy complex scalars
  reach it as floats (their real parts), so ``x.clamp(np.complex64(1+1j))`` clamps at 1.0 and
  ``clamp_min(np.complex64(2))`` works for every dtype, as they did before fix8.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import strided

torch.set_num_threads(1)

_NP_COMPLEX = [np.complex64(1 + 1j), np.complex64(1.1), np.complex64(complex(0, float("nan"))),
               np.clongdouble(1 + 1j), np.complex64(-0.0), np.complex128(2.5)]

_CALLS = {
    "clamp(b)": lambda x, b: x.clamp(b),
    "clamp(max=b)": lambda x, b: x.clamp(max=b),
    "clamp(b, b)": lambda x, b: x.clamp(b, b),
    "clip(-1, b)": lambda x, b: x.clip(-1, b),
    "clamp_(b)": lambda x, b: x.clone().clamp_(b),
    "clamp_min(b)": lambda x, b: x.clamp_min(b),
    "clamp_max(b)": lambda x, b: x.clamp_max(b),
    "view clamp_(b)": lambda x, b: x.clone()[::2].clamp_(None, b),
}


def _outcome(lib, dtype: str, call, bound):  # noqa: ANN001, ANN202
    data = [-3.0, -0.0, 0.5, 1.5, float("nan"), float("inf")] if dtype.startswith("float") else [-3, 0, 1, 2, 5]
    x = lib.tensor(data, dtype=getattr(lib, dtype))
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = call(x, bound)
    except Exception as e:  # noqa: BLE001
        return "error", type(e).__name__ if lib is torch else [c.__name__ for c in type(e).__mro__]
    return str(r.dtype).split(".")[-1], tuple(r.shape), r.tolist()


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64", "uint8"])
@pytest.mark.parametrize("name", list(_CALLS))
@pytest.mark.parametrize("bound", _NP_COMPLEX, ids=repr)
def test_numpy_complex_scalar_bounds_as_torch(dtype: str, name: str, bound: object) -> None:
    got = _outcome(strided, dtype, _CALLS[name], bound)
    want = _outcome(torch, dtype, _CALLS[name], bound)
    if want[0] == "error":
        assert got[0] == "error" and want[1] in got[1], (got, want)
        return
    assert got[:2] == want[:2], (got, want)
    assert np.array_equal(np.array(got[2], float), np.array(want[2], float), equal_nan=True), (got, want)
    assert np.array_equal(np.signbit(np.array(got[2], float)), np.signbit(np.array(want[2], float))), (got, want)
