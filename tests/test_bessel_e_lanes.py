"""special.i0e / special.i1e in float32 on a CPU with FMA instructions: a branch-free loop over
blocks of 256 (both of PyTorch's Chebyshev branches for every element, one selected, the square
roots by SSE) instead of one element at a time (kernels/_torch_special.h, bessel_e_lanes). The
same operations, so PyTorch's bits: here at the branch point (|x| = 8), zeros of either sign,
subnormals, the float32 extremes, infinities, on lengths around the blocks, in place, through
every layout the op hands the kernel; NaN where PyTorch's is NaN (its payload is its vector
code's); and the element-by-element copy (the C library's fma) gives the same bits.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs
from hypothesis.extra import numpy as hnp

import fresh_runs
import strided as st
from strided.kernels import native

pytestmark = pytest.mark.skipif(native.special() is None, reason="needs the compiled kernel (no compiler here)")
NAMES = ["i0e", "i1e"]
_EIGHT = np.float32(8)
_EDGES = np.array([0.0, -0.0, 8.0, -8.0, np.nextafter(_EIGHT, np.float32(9)), np.nextafter(_EIGHT, np.float32(0)),
                   -np.nextafter(_EIGHT, np.float32(9)), 1e-45, -1e-45, 1.1754944e-38, 1e-30, 0.5, 2.0, 7.99, 8.01,
                   100.0, 1e10, 3.4028235e38, -3.4028235e38, np.inf, -np.inf], dtype=np.float32)


def _compare(name: str, x: np.ndarray) -> None:
    got = np.asarray(getattr(st.special, name)(st.from_numpy(x)))
    want = getattr(torch.special, name)(torch.from_numpy(x)).numpy()
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan)
    np.testing.assert_array_equal(got[~nan].view(np.uint32), want[~nan].view(np.uint32))


@pytest.mark.parametrize("name", NAMES)
def test_edges_and_random_patterns_are_pytorchs_bits(name: str) -> None:
    rng = np.random.default_rng(31)
    patterns = rng.integers(0, 2**32, 1 << 16, dtype=np.uint64).astype(np.uint32).view(np.float32)
    nans = np.array([0x7FC00000, 0xFFC00000, 0x7F800001, 0x7FC12345], np.uint32).view(np.float32)
    for x in (np.resize(_EDGES, 1000), patterns, rng.uniform(-12, 12, 5000).astype(np.float32),
              np.concatenate([_EDGES, nans, _EDGES])):
        _compare(name, x)


@settings(max_examples=50, deadline=None)
@given(hnp.arrays(np.float32, hs.integers(0, 700), elements=hs.floats(width=32, allow_nan=False)),
       hs.sampled_from(NAMES))
def test_any_length(x: np.ndarray, name: str) -> None:
    """Lengths around the 256-element blocks and the 4-wide square roots, 0 included."""
    _compare(name, x)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped", "0-d", "empty"])
def test_layouts_and_in_place(name: str, layout: str) -> None:
    base = np.random.default_rng(5).uniform(-15, 15, (40, 37)).astype(np.float32)
    view = {"contiguous": lambda a: a, "transposed": lambda a: a.T, "stepped": lambda a: a[::2, 1::3],
            "0-d": lambda a: a[3, 4], "empty": lambda a: a[:0]}[layout]
    s, t = view(st.from_numpy(base.copy())), view(torch.from_numpy(base.copy()))
    got, want = getattr(st.special, name)(s), getattr(torch.special, name)(t)
    assert got.shape == tuple(want.shape) and got.stride() == want.stride()
    np.testing.assert_array_equal(np.asarray(got).view(np.uint32), want.numpy().view(np.uint32))
    out = st.empty(tuple(want.shape))
    assert getattr(st.special, name)(s, out=out) is out
    np.testing.assert_array_equal(np.asarray(out).view(np.uint32), want.numpy().view(np.uint32))


def test_the_element_by_element_copy_gives_the_same_bits() -> None:
    """STRIDED_NATIVE_NO_FMA3 (a CPU without FMA: the C library's fma, element by element)."""
    script = ("import numpy as np, strided as st\n"
              "x = np.random.default_rng(4).uniform(-12, 12, 3000).astype(np.float32)\n"
              "x[:4] = [8.0, -8.0, np.inf, -0.0]\n"
              "for r in (st.special.i0e(st.from_numpy(x)), st.special.i1e(st.from_numpy(x))):\n"
              "    print(np.asarray(r).tobytes().hex())\n")
    runs = fresh_runs.outputs(script, {}, {"STRIDED_NATIVE_NO_FMA3": "1"})
    assert runs[0] == runs[1] and len(runs[0]) > 1000
