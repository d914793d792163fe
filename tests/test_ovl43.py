"""Complex self-updates (``v.mul_(v)``, ``add_``, ``sub_``, ``div_`` itself) of a target whose
elements share memory, against torch: strided.ops._support.overlap_updates replays PyTorch's
walk exactly; what differed (flaky in test_overlap_updates) was the NaN words of complex
arithmetic, which strided does not model (the complex mul's NaN sign, on plain tensors too)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from test_overlap_updates import _bits, same_but_nan_words

SELF_OPS = {
    "mul_": lambda v: v.mul_(v),
    "add_": lambda v: v.add_(v),
    "sub_": lambda v: v.sub_(v),
    "div_": lambda v: v.div_(v),
}


def _storage_after(lib, values: np.ndarray, dtype: str, shape, strides, offset: int, name: str):
    base = lib.tensor(values).to(getattr(lib, dtype))
    SELF_OPS[name](base.as_strided(shape, strides, offset))
    return _bits(lib, base)


def test_the_ci_example_squares_each_location_as_torch():
    """The failing draw: shape (3, 4, 4), strides (1, 1, 1), complex64, seed 0: location 4 is
    squared 10 times (overflow: inf, then NaN parts). Every finite word is torch's, every NaN
    part a NaN where torch's is (before: the NaN's sign differed, the reason of the flake)."""
    values = np.random.default_rng(0).standard_normal(10) * 3
    args = ("complex64", [3, 4, 4], [1, 1, 1], 0, "mul_")
    got, want = _storage_after(st, values, *args), _storage_after(torch, values, *args)
    assert same_but_nan_words(got, want, "complex64")
    g = np.asarray(got, np.int64).view(np.complex64)
    assert np.isnan(g[4].real) and np.isnan(g[4].imag)
    assert got[:4] == want[:4] and got[5:] == want[5:]  # (the finite locations: bit for bit)


@pytest.mark.xfail(strict=True, reason="the NaN words of complex mul are not PyTorch's (not modelled)")
def test_a_complex_products_nan_words_are_torchs():
    """A plain (non-overlapping) complex64 product with a NaN part: torch's fused tail keeps the
    NaN product's sign in fma(a, c, -(bd)), strided's negation flips it (0x7fc00000 vs 0xffc00000)."""
    x = np.array([1 + 1j, 1 + 1j], np.complex64)
    x.imag[:] = np.nan
    t, s = torch.from_numpy(x.copy()), st.tensor(x)
    assert _bits(st, s * s) == _bits(torch, t * t)


@settings(max_examples=150, deadline=None)
@given(
    dims=hs.lists(hs.tuples(hs.integers(1, 5), hs.integers(0, 4)), min_size=1, max_size=3),
    offset=hs.integers(0, 2),
    dtype=hs.sampled_from(["complex64", "complex128"]),
    seed=hs.integers(0, 2**16),
    scale=hs.sampled_from([0.5, 3.0, 1e3]),
    name=hs.sampled_from(sorted(SELF_OPS)),
)
def test_a_complex_self_update_of_overlapping_elements_is_torchs(dims, offset, dtype, seed, scale, name):
    """Overlapping layouts (strides 0 to 4; a stride-0 target is refused by both) of complex64 and
    complex128 updated by an op with itself: torch's storage bit for bit, NaN parts a NaN where
    torch's is, or torch's error class."""
    shape = [n for n, _ in dims]
    strides = [s for _, s in dims]
    size = offset + sum((n - 1) * s for n, s in zip(shape, strides)) + 1
    rng = np.random.default_rng(seed)
    values = (rng.standard_normal(size) + 1j * rng.standard_normal(size)) * scale
    values[rng.random(size) < 0.1] = 0
    outcomes = []
    for lib in (st, torch):
        try:
            outcomes.append(_storage_after(lib, values, dtype, shape, strides, offset, name))
        except RuntimeError as e:
            outcomes.append(("RuntimeError", str(e).splitlines()[0][:40]))
    got, want = outcomes
    if isinstance(want, tuple) or isinstance(got, tuple):
        assert isinstance(got, tuple) and isinstance(want, tuple) and got[0] == want[0], (got, want)
        return
    assert got == want or same_but_nan_words(got, want, dtype)
