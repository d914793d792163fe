"""median()/nanmedian() of all elements: PyTorch's bits on every layout.

PyTorch clones the input (a dense permuted tensor keeps its strides) and runs std::nth_element over
the clone's memory: which of -0.0 and 0.0 ends in the middle depends on that order, so a permuted
tensor's median could differ from its row-major copy's in the sign of a zero (strided read the
row-major order: wrong sign). The value itself is found by NumPy's partition (no full sort).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st


@settings(max_examples=200, deadline=None)
@given(shape=hs.lists(hs.integers(1, 11), min_size=1, max_size=3), dtype=hs.sampled_from(
    [np.float32, np.float64, np.float16, np.int64, np.int32]), seed=hs.integers(0, 2**16),
    nan=hs.sampled_from([0.0, 0.2, 1.0]), zeros=hs.sampled_from([0.0, 0.3]),
    view=hs.sampled_from(["plain", "permuted", "stepped", "flipped"]), data=hs.data())
def test_median_of_all_elements_bits(shape, dtype, seed, nan, zeros, view, data):
    rng = np.random.default_rng(seed)
    a = rng.integers(-3, 4, shape).astype(dtype)
    if np.issubdtype(dtype, np.floating):
        a[rng.random(shape) < nan] = np.nan
        a[rng.random(shape) < zeros] = -0.0
    s, t = st.from_numpy(a.copy()), torch.from_numpy(a.copy())
    if view == "permuted":
        perm = data.draw(hs.permutations(range(len(shape))))
        s, t = s.permute(*perm), t.permute(*perm)
    elif view == "stepped":
        s, t = s[..., ::2], t[..., ::2]
    elif view == "flipped":
        s, t = s.flip(0), t.flip(0)
    for name in ("median", "nanmedian"):
        assert getattr(s, name)().numpy().tobytes() == getattr(t, name)().numpy().tobytes()


@pytest.mark.parametrize("zeros", [False, True])
def test_a_million_elements_transposed(zeros):
    a = np.random.default_rng(1).integers(-50, 50, (1024, 1024)).astype(np.float32)
    if zeros:
        a[::7, ::3] = -0.0
    s, t = st.from_numpy(a.copy()).t(), torch.from_numpy(a.copy()).t()
    for name in ("median", "nanmedian"):
        assert getattr(s, name)().numpy().tobytes() == getattr(t, name)().numpy().tobytes()


def test_without_the_kernel_the_python_steps_within_their_budget():
    from strided.kernels import native

    a = np.random.default_rng(2).integers(-2, 3, (30, 40)).astype(np.float32)
    a[::3, ::2] = -0.0
    s, t = st.from_numpy(a.copy()).t(), torch.from_numpy(a.copy()).t()
    with native.disabled():
        for name in ("median", "nanmedian"):
            assert getattr(s, name)().numpy().tobytes() == getattr(t, name)().numpy().tobytes()


def test_the_selection_kernel_refuses_what_it_cannot_select():
    from strided.kernels import native

    kernel = native.special()
    if kernel is None:
        pytest.skip("not built here (tests/test_native_special.py requires it in CI)")
    with pytest.raises(ValueError, match="stl_nth: x must be a C-contiguous float32 or float64 buffer"):
        kernel.stl_nth(np.zeros(3, np.int64), 1, 2)
    with pytest.raises(ValueError, match="0 <= nth < its length"):
        kernel.stl_nth(np.zeros(3), 3, 2)
    assert kernel.stl_nth(np.array([-0.0, 0.0, -0.0, 0.0, 0.0]), 2, 2) in range(5)
