"""PyTorch's CPU order of equal elements in ``sort``/``argsort``/``msort``/``mode`` (stable=False).

PyTorch sorts each row's (value, position) pairs with GCC's ``std::sort`` (introsort: not stable
beyond 16 elements), except 1-d integer tensors of 32,768 elements or more sorted ascending
(fbgemm's radix sort: stable); ``mode`` reads the last pair of the longest run after its own
``std::sort`` by ``<``. strided reproduces that order (``strided.kernels._specialkernel.stl_argsort``,
the Python steps of ``ops/_support/stl_select.py`` without the kernel): these tests compare indices
and value bits (-0.0 vs 0.0, NaN) against torch on data full of ties.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from strided.kernels import native
from strided.ops._support import torch_sort_order

torch.set_num_threads(1)

FLOATS = (np.float32, np.float64, np.float16)
DTYPES = (*FLOATS, np.int64, np.int32, np.int16, np.uint8, np.bool_)
SHAPES = ((17,), (40,), (300,), (3, 50), (50, 3), (4, 5, 33), (2, 1000))


def tied(rng: np.random.Generator, shape: tuple[int, ...], dtype: type, distinct: int, nan: float,
         zeros: float) -> np.ndarray:
    """Data with few distinct values: ties everywhere; NaN and -0.0 sprinkled in for floats."""
    a = rng.integers(0, distinct, shape).astype(dtype)
    if dtype in FLOATS:
        a[rng.random(shape) < nan] = np.nan
        a[rng.random(shape) < zeros] = -0.0
    return a


def both(a: np.ndarray) -> tuple[st.Tensor, torch.Tensor]:
    return st.from_numpy(a.copy()), torch.from_numpy(a.copy())


def same_bits(s: st.Tensor, t: torch.Tensor) -> None:
    assert tuple(s.shape) == tuple(t.shape) and s.stride() == t.stride()
    assert s.numpy().tobytes() == t.numpy().tobytes()


@settings(max_examples=80, deadline=None)
@given(shape=hs.sampled_from(SHAPES), dtype=hs.sampled_from(DTYPES), distinct=hs.integers(1, 9),
       nan=hs.sampled_from([0.0, 0.1, 0.5]), zeros=hs.sampled_from([0.0, 0.3]), seed=hs.integers(0, 2**16),
       data=hs.data())
def test_sort_argsort_indices_and_bits_match_pytorch(shape, dtype, distinct, nan, zeros, seed, data):
    s, t = both(tied(np.random.default_rng(seed), shape, dtype, distinct, nan, zeros))
    dim = data.draw(hs.integers(-len(shape), len(shape) - 1))
    for descending in (False, True):
        (sv, si), (tv, ti) = s.sort(dim, descending=descending), t.sort(dim, descending=descending)
        same_bits(si, ti)
        same_bits(sv, tv)
        same_bits(s.argsort(dim, descending=descending), t.argsort(dim, descending=descending))
    if len(shape) >= 1:
        same_bits(st.msort(s), torch.msort(t))


@settings(max_examples=60, deadline=None)
@given(shape=hs.sampled_from(SHAPES), dtype=hs.sampled_from(DTYPES), distinct=hs.integers(1, 9),
       nan=hs.sampled_from([0.0, 0.1, 0.6]), seed=hs.integers(0, 2**16), data=hs.data())
def test_mode_matches_pytorch_on_rows_of_any_length(shape, dtype, distinct, nan, seed, data):
    s, t = both(tied(np.random.default_rng(seed), shape, dtype, distinct, nan, 0.2))
    dim = data.draw(hs.integers(-len(shape), len(shape) - 1))
    sm, tm = s.mode(dim), t.mode(dim)
    same_bits(sm.indices, tm.indices)
    same_bits(sm.values, tm.values)


def test_a_permuted_and_stepped_input():
    a = tied(np.random.default_rng(3), (60, 70), np.float32, 4, 0.1, 0.2)
    s, t = both(a)
    for view in (lambda x: x.t(), lambda x: x[::2, 1::3], lambda x: x.t()[5:, ::-1] if isinstance(x, st.Tensor)
                 else x.t()[5:].flip(1)):
        sv, tv = view(s), view(t)
        for dim in (0, 1):
            same_bits(sv.sort(dim)[1], tv.sort(dim)[1])
            same_bits(sv.sort(dim)[0], tv.sort(dim)[0])
            same_bits(sv.mode(dim).indices, tv.mode(dim).indices)


@pytest.mark.parametrize("n", [32767, 32768, 50000])
@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8, np.bool_])
def test_large_1d_integer_sorts_are_stable_from_32768_elements_as_pytorch_radix_sort(n, dtype):
    s, t = both(np.random.default_rng(n).integers(0, 2, n).astype(dtype))
    same_bits(s.sort()[1], t.sort()[1])
    same_bits(s.sort(descending=True)[1], t.sort(descending=True)[1])
    same_bits(s.argsort(), t.argsort())


def _median_of_three_killer(n: int) -> np.ndarray:
    """Musser's sequence: median-of-three quicksort goes quadratic, introsort switches to heapsort."""
    k = n // 2
    a = [0] * n
    for i in range(1, k + 1):
        if i % 2 == 1:
            a[i - 1], a[i] = i, k + i
        a[k + i - 1] = 2 * i
    return np.array(a[:n], dtype=np.float64)


@pytest.mark.parametrize("pattern", ["sorted", "reversed", "organ pipe", "equal", "sawtooth", "killer",
                                     "killer ties"])
def test_patterns_that_reach_every_branch_of_introsort(pattern):
    n = 4096
    a = {"sorted": np.arange(n, dtype=np.float64), "reversed": np.arange(n, dtype=np.float64)[::-1].copy(),
         "organ pipe": np.r_[np.arange(n // 2), np.arange(n // 2)[::-1]].astype(np.float64),
         "equal": np.zeros(n), "sawtooth": np.tile(np.arange(7.0), n // 7),
         "killer": _median_of_three_killer(n), "killer ties": _median_of_three_killer(n) % 13}[pattern]
    s, t = both(a)
    for descending in (False, True):
        same_bits(s.sort(descending=descending)[1], t.sort(descending=descending)[1])
    same_bits(s.mode().indices, t.mode().indices)


def test_large_rows_sorted_by_numpy_then_ties_redone():
    # above the compiled-sort-everything size: NumPy sorts, rows with ties are sorted again
    a = np.random.default_rng(9).uniform(0, 1, (64, 1024)).astype(np.float32)
    a[::3, 7] = a[::3, 500]  # a tie in every third row
    a[1::5, 9] = -0.0
    a[1::5, 11] = 0.0
    s, t = both(a)
    assert a.size > torch_sort_order._SMALL
    for descending in (False, True):
        same_bits(s.sort(descending=descending)[1], t.sort(descending=descending)[1])
        same_bits(s.sort(descending=descending)[0], t.sort(descending=descending)[0])


def test_without_the_kernel_the_python_steps_give_the_same_order_within_their_budget():
    a = tied(np.random.default_rng(4), (6, 300), np.float32, 3, 0.1, 0.3)
    s, t = both(a)
    assert a.size <= torch_sort_order.STEPS_MAX
    with native.disabled():
        for descending in (False, True):
            same_bits(s.sort(1, descending=descending)[1], t.sort(1, descending=descending)[1])
        same_bits(s.mode(1).indices, t.mode(1).indices)


def test_the_kernel_refuses_what_it_cannot_sort():
    kernel = native.special()
    if kernel is None:
        pytest.skip("the compiled kernels are not built here (tests/test_native_special.py requires them in CI)")
    idx = np.empty(4, np.int64)
    with pytest.raises(ValueError, match="stl_argsort: x must be a C-contiguous float32, float64, int64 or uint64"):
        kernel.stl_argsort(np.zeros(4, np.int32), idx, 4, 0)
    with pytest.raises(ValueError, match="comparator 0, 1 or 2"):
        kernel.stl_argsort(np.zeros(4, np.int64), idx, 4, 2)  # (the plain < is mode's, for floats)
    with pytest.raises(ValueError, match="a multiple of n"):
        kernel.stl_argsort(np.zeros(4), idx, 3, 0)
    with pytest.raises(ValueError, match="values, if given, x's format and length"):
        kernel.stl_argsort(np.zeros(4), idx, 4, 0, np.zeros(4, np.float32))
    x = np.zeros(8)
    assert kernel.stl_argsort(x[:4], x[4:].view(np.int64), 4, 0) is True  # (no overlap)
    keys = np.zeros(4)
    assert kernel.stl_argsort(keys, idx, 4, 0, keys) is False  # (values over the keys: nothing written)
    both_ways = np.zeros(4)
    assert kernel.stl_argsort(both_ways, both_ways.view(np.int64), 4, 0) is False  # an overlap: nothing written


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
@pytest.mark.parametrize("shape", [(1,), (5,), (3, 4), (16, 16), (2, 3, 17)])
def test_the_small_fast_path_equals_the_general_path_and_pytorch(dtype, shape, monkeypatch):
    from strided.ops.shape import sorting

    a = tied(np.random.default_rng(7), shape, dtype, 3, 0.2, 0.3)
    if dtype in FLOATS:  # NaN payloads and signs kept by the kernel's copy of the keys
        a.reshape(-1).view(np.uint32 if dtype == np.float32 else np.uint64)[::5] |= 1
    s, t = both(a)
    fast = [s.sort(), s.sort(descending=True), s.argsort(), s.argsort(descending=True)]
    monkeypatch.setattr(sorting, "_SORT_FAST_MAX", 0)
    general = [s.sort(), s.sort(descending=True), s.argsort(), s.argsort(descending=True)]
    theirs = [t.sort(), t.sort(descending=True), t.argsort(), t.argsort(descending=True)]
    for f, g, th in zip(fast, general, theirs):
        for x, y, z in (zip(f, g, th) if isinstance(f, tuple) else [(f, g, th)]):
            assert x.numpy().tobytes() == y.numpy().tobytes()
            same_bits(x, z)


def test_mode_kernel_and_python_steps_agree_on_small_rows_with_nan():
    from strided.kernels import native

    a = tied(np.random.default_rng(11), (40, 12), np.float32, 3, 0.3, 0.3)
    s, t = both(a)
    with native.disabled():
        python = s.mode(1)
    compiled = s.mode(1)
    for x, y, z in zip(compiled, python, t.mode(1)):
        assert x.numpy().tobytes() == y.numpy().tobytes()
        same_bits(x, z)
