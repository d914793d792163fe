"""Red-team tests for branch fix8 (the fma NumPy fallback, clamp with complex bounds), against
torch 2.13.

- clamp's complex-bound checks (``_real_bound``, ``_no_complex_bound``) took ``np.complex64``
  and ``np.clongdouble`` for complex numbers. PyTorch's argument parser takes only a Python
  ``complex`` (``np.complex128`` subclasses it) as complex; the other NumPy complex scalars
  reach it as floats (their real parts), so ``x.clamp(np.complex64(1+1j))`` clamps at 1.0 and
  ``clamp_min(np.complex64(2))`` works for every dtype, as they did before fix8.
- fma's fallback recomputed every element whose plain sum was exactly 0 from the exact rational
  (right bits, but add(x, x, alpha=-1) hundreds of times slower with STRIDED_NATIVE=0); such
  elements are exact on the vectorized steps (the fused result is the product's error term).
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import strided
from oracle_helpers import case
from strided.kernels import fused, native
from strided.kernels.fused import fma

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


@pytest.mark.parametrize("name", list(_CALLS))
def test_numpy_complex_scalar_bounds_as_torch(name):
    for dtype, bound in itertools.product(
            ["float32", "float64", "float16", "int64", "uint8"],
            _NP_COMPLEX):
        with case(dtype=dtype, bound=bound):
            _numpy_complex_scalar_bounds_as_torch(dtype, name, bound)


def _numpy_complex_scalar_bounds_as_torch(dtype: str, name: str, bound: object) -> None:
    got = _outcome(strided, dtype, _CALLS[name], bound)
    want = _outcome(torch, dtype, _CALLS[name], bound)
    if want[0] == "error":
        assert got[0] == "error" and want[1] in got[1], (got, want)
        return
    assert got[:2] == want[:2], (got, want)
    assert np.array_equal(np.array(got[2], float), np.array(want[2], float), equal_nan=True), (got, want)
    assert np.array_equal(np.signbit(np.array(got[2], float)), np.signbit(np.array(want[2], float))), (got, want)


# ---------------------------------------------------------------- fma's NumPy fallback


def _finite_extreme() -> st.SearchStrategy[float]:
    mantissa = st.floats(1.0, 2.0, exclude_max=True) | st.sampled_from([1.0, 1.5, 1.0 + 2.0**-52, 2.0 - 2.0**-52])
    exponent = st.integers(-1074, 1023)
    return st.builds(lambda m, e, s: s * float(np.ldexp(m, e)), mantissa, exponent, st.sampled_from([1.0, -1.0]))


@pytest.mark.skipif(native.special() is None, reason="the compiled fma64 is not built")
@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_finite_extreme(), _finite_extreme()), min_size=1, max_size=30))
def test_fallback_exact_cancellation_equals_the_compiled_fma(pairs: list[tuple[float, float]]) -> None:
    """c == -(a * b) rounded: the plain sum is exactly 0 and the fused one the product's error
    (0 only where the product is exact: +0.0). The fallback's bits are the compiled fma64's."""
    a, b = (np.array(v, np.float64) for v in zip(*pairs))
    with np.errstate(all="ignore"):
        c = -(a * b)
        c = np.where(np.isfinite(c), c, 1.0)
        want = np.empty_like(c)
        native.special().fma64(a, b, c, want)
        with native.disabled():
            got = fma(a, b, c)
    assert got.dtype == np.float64 and got.shape == want.shape
    assert np.array_equal(got.view(np.int64), want.view(np.int64)), (got, want)


def test_fallback_exact_cancellation_needs_no_rational_recomputation(monkeypatch: pytest.MonkeyPatch) -> None:
    """add(x, x, alpha=-1) (every plain sum exactly 0, products far from float64's ends) stays
    on the vectorized steps: fix8 sent each such element through the Fraction recomputation
    (hundreds of times slower); the values are the compiled kernel's and torch's."""
    calls = []
    real = fused._exact_fma
    monkeypatch.setattr(fused, "_exact_fma", lambda *v: calls.append(v) or real(*v))
    data = np.random.default_rng(0).standard_normal(1000) * np.exp2(np.arange(1000) % 200 - 100)
    x = strided.tensor(data)
    with native.disabled():
        got = strided.add(x, x, alpha=-1).numpy()
        got3 = strided.sub(x, x, alpha=1.0 + 2.0**-52).numpy()
    assert calls == []
    tx = torch.tensor(data)
    assert np.array_equal(got.view(np.int64), torch.add(tx, tx, alpha=-1).numpy().view(np.int64))
    assert np.array_equal(got3.view(np.int64), torch.sub(tx, tx, alpha=1.0 + 2.0**-52).numpy().view(np.int64))
