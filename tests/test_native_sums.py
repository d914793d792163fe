"""The compiled pairwise sum (kernels/sums.py, kernels/_sumkernel.c) against ``np.add.reduce``.

The kernel must return exactly NumPy's bits: the same type (NumPy's scalar for a full sum), shape
and bytes, on every path it takes (full sums of C- and Fortran-contiguous arrays, sums over a
unit-stride dim of 1-d and 2-d arrays, rows stepped backwards), at every run length around
NumPy's block of 128 and its splits, with values of mixed magnitudes so that any change in the
order of the additions shows. strided's ``sum`` and ``mean`` give the same bits with the kernel
and without it (``native.disabled()``), and agree with PyTorch's.
"""

from __future__ import annotations

import os
import shutil
import threading

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided
from strided.kernels import native, sums

_KERNEL = sums._sums()


def test_the_kernel_is_built() -> None:
    """Built wherever a C compiler is (pip compiled it), and required in CI."""
    if os.environ.get("STRIDED_REQUIRE_NATIVE") == "1" or shutil.which("cc") or shutil.which("gcc"):
        assert _KERNEL is not None, "strided.kernels._sumkernel is not built: run `pip install -e .` again"


needs_kernel = pytest.mark.skipif(_KERNEL is None, reason="no C compiler here (test_the_kernel_is_built)")


def _values(rng: np.random.Generator, shape: tuple[int, ...] | int, dtype: type) -> np.ndarray:
    """Values over nine decades, both signs: a sum whose bits depend on the order of its adds."""
    return (rng.standard_normal(shape) * 10.0 ** rng.integers(-4, 5, shape)).astype(dtype)


def _same(x: np.ndarray, axis: object, keepdims: bool) -> None:
    got = sums.add_reduce(x, axis, None, None, keepdims)
    want = np.add.reduce(x, axis, None, None, keepdims)
    assert type(got) is type(want)
    assert np.shape(got) == np.shape(want)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    assert np.asarray(got).tobytes() == np.asarray(want).tobytes(), (x.shape, x.strides, axis, keepdims)


@needs_kernel
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_full_sums_of_every_length_near_the_threshold_and_large(dtype: type) -> None:
    rng = np.random.default_rng(0)
    lengths = [*range(sums.MIN_ELEMENTS, sums.MIN_ELEMENTS + 150), 1 << 17, (1 << 17) + 8, 1000003, 3 << 20]
    for n in lengths:
        x = _values(rng, n, dtype)
        for axis in (None, 0, -1, (0,)):
            _same(x, axis, False)
        _same(x, None, True)


@needs_kernel
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_rows_of_every_length_around_the_blocks(dtype: type) -> None:
    """Row lengths 1..300 (NumPy's block of 128, its split of 256, the tails of 8), many rows,
    and the four layouts whose rows are unit-strided: rows, a transpose's columns, stepped back."""
    rng = np.random.default_rng(1)
    for length in [*range(1, 301), 511, 512, 513, 1024, 4099]:
        rows = max(2, -(-sums.MIN_ELEMENTS // length))
        m = _values(rng, (rows, length), dtype)
        for view, axis in ((m, 1), (m.T, 0), (m[::-1], 1), (m.T[:, ::-1], 0), (m, -1)):
            _same(view, axis, False)
            _same(view, axis, True)


@needs_kernel
@settings(max_examples=60, deadline=None)
@given(rows=hs.integers(1, 300), length=hs.integers(1, 3000), order=hs.sampled_from("CF"),
       float64=hs.booleans(), seed=hs.integers(0, 2**31))
def test_every_two_d_layout_and_axis_gives_numpys_bits(rows: int, length: int, order: str, float64: bool,
                                                       seed: int) -> None:
    dtype = np.float64 if float64 else np.float32
    m = np.asarray(_values(np.random.default_rng(seed), (rows, length), dtype), order=order)
    for view in (m, m.T, m[::-1, ::-1], m[:, ::2], m[::2]):
        for axis in (None, 0, 1, (0, 1), (1, 0), (-1,)):
            for keepdims in (False, True):
                _same(view, axis, keepdims)


@needs_kernel
def test_what_the_kernel_does_not_take_goes_to_numpy_unchanged() -> None:
    """3-d dims, casts, out=, other dtypes, byte-swapped and misaligned arrays, small arrays."""
    rng = np.random.default_rng(2)
    t = _values(rng, (8, 64, 64), np.float32)
    for view in (t, t.transpose(2, 0, 1), np.asfortranarray(t)):
        for axis in (None, 0, 1, 2, (0, 2), (0, 1, 2)):
            _same(view, axis, False)
    x = _values(rng, 1 << 15, np.float32)
    assert sums.add_reduce(x, None, np.float64).tobytes() == np.add.reduce(x, None, np.float64).tobytes()
    out = np.empty((), np.float32)
    assert sums.add_reduce(x, 0, None, out) is out and out.tobytes() == np.add.reduce(x).tobytes()
    for other in (x.astype(np.float16), x.astype(np.int32), x.astype(np.complex64), x.astype(">f4"),
                  np.frombuffer(b"\0" + x.tobytes(), np.float32, count=x.size - 1, offset=1)):
        with np.errstate(all="ignore"):  # (float16 overflows to inf, in both)
            _same(other, None, False)
    _same(x[:100], None, False)
    with pytest.raises(np.exceptions.AxisError):
        sums.add_reduce(x, 3)


@needs_kernel
def test_the_kernel_is_used_and_can_be_turned_off_per_thread() -> None:
    x = np.ones(1 << 15, np.float32)
    seen = []

    class Spy:
        def rows(self, *args: object) -> None:
            seen.append(args)
            _KERNEL.rows(*args)

    real = sums._kernel
    sums._kernel = Spy()
    try:
        assert sums.add_reduce(x, None) == 1 << 15 and len(seen) == 1
        off = threading.Event()

        def other_thread() -> None:
            with native.disabled():
                sums.add_reduce(x, None)
                off.set()

        thread = threading.Thread(target=other_thread)
        thread.start()
        thread.join()
        assert off.is_set() and len(seen) == 1  # (that thread's block took NumPy's call)
        sums.add_reduce(x, None)
        assert len(seen) == 2  # (and this thread's calls still take the kernel)
    finally:
        sums._kernel = real


@needs_kernel
@pytest.mark.parametrize("args, error, text", [
    ((0, 4, 1, 0, 1, 1), ValueError, "an address must be an int from 1"),
    (("1", 4, 1, 0, 1, 1), TypeError, "an address must be an int, not str"),
    ((1, 2, 1, 0, 1, 1), ValueError, "itemsize must be 4 (float32) or 8 (float64), not 2"),
    ((1, 4, -1, 0, 1, 1), ValueError, "count and length must be >= 0, not -1 and 1"),
])
def test_the_kernel_refuses_bad_arguments_before_touching_memory(args: tuple, error: type, text: str) -> None:
    with pytest.raises(error, match=text.replace("(", r"\(").replace(")", r"\)")):
        _KERNEL.rows(*args)


@pytest.mark.parametrize("dtype", [strided.float32, strided.float64])
@pytest.mark.parametrize("case", ["full", "dim1", "dim0", "perm_full", "perm_dim0", "perm_dim1", "mean1", "mean_full"])
def test_strided_sum_and_mean_are_the_same_bits_either_way_and_match_torch(dtype: object, case: str) -> None:
    rng = np.random.default_rng(3)
    base = _values(rng, (300, 257), np.float32 if dtype is strided.float32 else np.float64)
    s = strided.tensor(base.tolist(), dtype=dtype)
    t = torch.tensor(base)
    if case.startswith("perm"):
        s, t = s.t(), t.t()
    call = {"full": lambda v: v.sum(), "dim1": lambda v: v.sum(1), "dim0": lambda v: v.sum(0),
            "perm_full": lambda v: v.sum(), "perm_dim0": lambda v: v.sum(0), "perm_dim1": lambda v: v.sum(1),
            "mean1": lambda v: v.mean(1), "mean_full": lambda v: v.mean()}[case]
    fast = call(s)
    with native.disabled():
        plain = call(s)
    assert fast.shape == plain.shape and fast.stride() == plain.stride() and fast.dtype == plain.dtype
    assert fast.numpy().tobytes() == plain.numpy().tobytes()
    want = call(t)
    assert tuple(want.shape) == fast.shape and want.stride() == fast.stride()
    # (the libraries add in different orders, NumPy's columns one by one: they agree within the
    # bound of a running sum, n * eps times the sum of the magnitudes, n the count summed)
    count = t.numel() // max(want.numel(), 1)
    bound = call(t.abs()) * (count * torch.finfo(want.dtype).eps) + torch.finfo(want.dtype).tiny
    assert bool(((torch.from_numpy(np.array(fast.numpy())) - want).abs() <= bound).all())
