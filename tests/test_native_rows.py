"""The compiled row kernels (kernels/rows.py, kernels/_rowkernel.c) against NumPy's reduces.

The kernel must return exactly NumPy's bits: the same type (NumPy's scalar for a full sum), shape
and bytes, on every path it takes (full sums of C- and Fortran-contiguous arrays, sums over a
unit-stride dim of 1-d and 2-d arrays, rows stepped backwards), at every run length around
NumPy's block of 128 and its splits, with values of mixed magnitudes so that any change in the
order of the additions shows. (strided's ``sum`` and ``mean`` add in PyTorch's order instead:
tests/test_torch_sum.py.) The row extremes behind
``amax``/``amin``/``aminmax`` give ``np.maximum.reduce``'s and ``np.minimum.reduce``'s bits,
signed zeros, infinities and NaN payloads included.
"""

from __future__ import annotations

import os
import shutil
import threading
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided
from strided.kernels import native, rows

_KERNEL = rows._kernel_module()


def test_the_kernel_is_built() -> None:
    """Built wherever a C compiler is (pip compiled it), and required in CI."""
    if os.environ.get("STRIDED_REQUIRE_NATIVE") == "1" or shutil.which("cc") or shutil.which("gcc"):
        assert _KERNEL is not None, "strided.kernels._rowkernel is not built: run `pip install -e .` again"


needs_kernel = pytest.mark.skipif(_KERNEL is None, reason="no C compiler here (test_the_kernel_is_built)")


def _values(rng: np.random.Generator, shape: tuple[int, ...] | int, dtype: type) -> np.ndarray:
    """Values over nine decades, both signs: a sum whose bits depend on the order of its adds."""
    return (rng.standard_normal(shape) * 10.0 ** rng.integers(-4, 5, shape)).astype(dtype)


def _same(x: np.ndarray, axis: object, keepdims: bool) -> None:
    got = rows.add_reduce(x, axis, None, None, keepdims)
    want = np.add.reduce(x, axis, None, None, keepdims)
    assert type(got) is type(want)
    assert np.shape(got) == np.shape(want)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    assert np.asarray(got).tobytes() == np.asarray(want).tobytes(), (x.shape, x.strides, axis, keepdims)


@needs_kernel
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_full_sums_of_every_length_near_the_threshold_and_large(dtype: type) -> None:
    rng = np.random.default_rng(0)
    lengths = [*range(rows.MIN_ELEMENTS, rows.MIN_ELEMENTS + 150), 1 << 17, (1 << 17) + 8, 1000003, 3 << 20]
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
        count = max(2, -(-rows.MIN_ELEMENTS // length))
        m = _values(rng, (count, length), dtype)
        for view, axis in ((m, 1), (m.T, 0), (m[::-1], 1), (m.T[:, ::-1], 0), (m, -1)):
            _same(view, axis, False)
            _same(view, axis, True)


@needs_kernel
@settings(max_examples=60, deadline=None)
@given(count=hs.integers(1, 300), length=hs.integers(1, 3000), order=hs.sampled_from("CF"),
       float64=hs.booleans(), seed=hs.integers(0, 2**31))
def test_every_two_d_layout_and_axis_gives_numpys_bits(count: int, length: int, order: str, float64: bool,
                                                       seed: int) -> None:
    dtype = np.float64 if float64 else np.float32
    m = np.asarray(_values(np.random.default_rng(seed), (count, length), dtype), order=order)
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
    assert rows.add_reduce(x, None, np.float64).tobytes() == np.add.reduce(x, None, np.float64).tobytes()
    out = np.empty((), np.float32)
    assert rows.add_reduce(x, 0, None, out) is out and out.tobytes() == np.add.reduce(x).tobytes()
    for other in (x.astype(np.float16), x.astype(np.int32), x.astype(np.complex64), x.astype(">f4"),
                  np.frombuffer(b"\0" + x.tobytes(), np.float32, count=x.size - 1, offset=1)):
        with np.errstate(all="ignore"):  # (float16 overflows to inf, in both)
            _same(other, None, False)
    _same(x[:100], None, False)
    with pytest.raises(np.exceptions.AxisError):
        rows.add_reduce(x, 3)


@needs_kernel
def test_the_kernel_is_used_and_can_be_turned_off_per_thread() -> None:
    x = np.ones(1 << 15, np.float32)
    seen = []

    class Spy:
        def rows(self, *args: object) -> None:
            seen.append(args)
            _KERNEL.rows(*args)

    real = rows._kernel
    rows._kernel = Spy()
    try:
        assert rows.add_reduce(x, None) == 1 << 15 and len(seen) == 1
        off = threading.Event()

        def other_thread() -> None:
            with native.disabled():
                rows.add_reduce(x, None)
                off.set()

        thread = threading.Thread(target=other_thread)
        thread.start()
        thread.join()
        assert off.is_set() and len(seen) == 1  # (that thread's block took NumPy's call)
        rows.add_reduce(x, None)
        assert len(seen) == 2  # (and this thread's calls still take the kernel)
    finally:
        rows._kernel = real


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


@pytest.fixture
def one_torch_thread() -> Any:
    """PyTorch on one thread: the order of adds strided follows (more threads split a sum)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.mark.usefixtures("one_torch_thread")
@pytest.mark.parametrize("dtype", [strided.float32, strided.float64])
@pytest.mark.parametrize("case", ["full", "dim1", "dim0", "perm_full", "perm_dim0", "perm_dim1", "mean1", "mean_full",
                                  "mean0"])
def test_strided_sum_and_mean_are_the_same_bits_either_way_and_match_torch(dtype: object, case: str) -> None:
    rng = np.random.default_rng(3)
    base = _values(rng, (300, 257), np.float32 if dtype is strided.float32 else np.float64)
    s = strided.tensor(base.tolist(), dtype=dtype)
    t = torch.tensor(base)
    if case.startswith("perm"):
        s, t = s.t(), t.t()
    call = {"full": lambda v: v.sum(), "dim1": lambda v: v.sum(1), "dim0": lambda v: v.sum(0),
            "perm_full": lambda v: v.sum(), "perm_dim0": lambda v: v.sum(0), "perm_dim1": lambda v: v.sum(1),
            "mean1": lambda v: v.mean(1), "mean_full": lambda v: v.mean(), "mean0": lambda v: v.mean(0)}[case]
    fast = call(s)
    with native.disabled():
        plain = call(s)
    assert fast.shape == plain.shape and fast.stride() == plain.stride() and fast.dtype == plain.dtype
    assert fast.numpy().tobytes() == plain.numpy().tobytes()
    want = call(t)
    assert tuple(want.shape) == fast.shape and want.stride() == fast.stride()
    assert fast.numpy().tobytes() == want.numpy().tobytes()  # (PyTorch's order of adds: its bits)


# ---------------------------------------------------------------- extremes of rows


def _with_specials(rng: np.random.Generator, rows: int, length: int, dtype: type) -> np.ndarray:
    """Rows with zeros of both signs, infinities, NaNs of both signs, rows of only zeros, a row whose
    largest element is 0.0 beside negatives: every case where the kernel's answer is not the one value
    the extreme can be, and NumPy's must be taken."""
    m = rng.standard_normal((rows, length)).astype(dtype)
    z = rng.random((rows, length))
    m[z < 0.01] = 0.0
    m[(z > 0.5) & (z < 0.51)] = -0.0
    m[(z > 0.6) & (z < 0.601)] = np.inf
    m[(z > 0.7) & (z < 0.701)] = -np.inf
    m[:3] = np.where(rng.random((3, length)) < 0.5, -0.0, 0.0)
    m[3, length // 2] = np.nan
    m[4, length - 1] = -np.nan
    m[5] = -np.abs(m[5])
    m[5, 0] = 0.0
    return m


@needs_kernel
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_row_extremes_are_numpys_bits_zeros_nans_and_infinities_included(dtype: type) -> None:
    rng = np.random.default_rng(4)
    for length in [*range(1, 80), 127, 128, 129, 1000, 1024, 4099]:
        m = _with_specials(rng, max(8, -(-rows.MIN_ELEMENTS // length)), length, dtype)
        for view, axis in ((m, 1), (m.T, 0), (m[::-1], 1), (m.T[:, ::-1], 0), (m, -1), (m.T, -2)):
            for keepdims in (False, True):
                for ours, numpys in ((rows.max_reduce, np.maximum.reduce), (rows.min_reduce, np.minimum.reduce)):
                    got, want = ours(view, axis, None, None, keepdims), numpys(view, axis, None, None, keepdims)
                    assert got.shape == want.shape and got.dtype == want.dtype
                    assert got.tobytes() == want.tobytes(), (length, view.strides, axis, keepdims)


@needs_kernel
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_both_extremes_in_one_pass_are_numpys_bits(dtype: type) -> None:
    """minmax_reduce (aminmax): rows, and the whole of a C- or F-contiguous array (one row)."""
    rng = np.random.default_rng(7)
    for length in [1, 7, 8, 9, 15, 16, 17, 33, 128, 1000, 4099]:
        m = _with_specials(rng, max(8, -(-rows.MIN_ELEMENTS // length)), length, dtype)
        clean = rng.standard_normal(m.shape).astype(dtype)
        for view, axis in ((m, 1), (m.T, 0), (m[::-1], 1), (m, None), (m.T, None), (clean, None),
                           (clean[6:], None), (np.asfortranarray(clean), None), (clean.ravel(), 0)):
            lo, hi = rows.minmax_reduce(view, axis)
            want_lo = np.minimum.reduce(view, axis, None, None, True)
            want_hi = np.maximum.reduce(view, axis, None, None, True)
            assert lo.shape == want_lo.shape and hi.shape == want_hi.shape
            assert lo.tobytes() == want_lo.tobytes() and hi.tobytes() == want_hi.tobytes(), (length, axis)


@needs_kernel
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_full_extremes_are_numpys_bits_zeros_nans_and_infinities_included(dtype: type) -> None:
    """max_reduce/min_reduce over every element of a C- or F-contiguous array: the kernel's one row;
    a zero or NaN result (which zero, which NaN) recomputed by NumPy."""
    rng = np.random.default_rng(9)
    clean = rng.standard_normal((64, 300)).astype(dtype)
    signed_nans = clean.copy()
    signed_nans[5, 7], signed_nans[40, 2] = -np.nan, np.nan  # (the first in memory order is -NaN)
    zeros = np.where(rng.random((64, 300)) < 0.5, -0.0, 0.0).astype(dtype)
    late_nan = clean.copy()
    late_nan[-1, -1] = np.nan  # (past the vector loop: the scalar tail)
    infinite = np.full((64, 300), -np.inf, dtype)
    for m in (clean, _with_specials(rng, 64, 300, dtype), signed_nans, zeros, -zeros, late_nan, infinite, -infinite):
        for view in (m, m.T, np.asfortranarray(m), m.ravel(), m.reshape(8, 8, 300), m[:60]):
            for keepdims in (False, True):
                for ours, numpys in ((rows.max_reduce, np.maximum.reduce), (rows.min_reduce, np.minimum.reduce)):
                    got, want = ours(view, None, None, None, keepdims), numpys(view, None, None, None, keepdims)
                    assert type(got) is type(want) and np.shape(got) == np.shape(want)
                    assert np.asarray(got).tobytes() == np.asarray(want).tobytes(), (view.strides, keepdims)


@needs_kernel
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_extreme_kernels_count_the_results_numpy_must_decide(dtype: type) -> None:
    """extreme_rows and cols return how many results are a zero or NaN (cols' sums: NaN only); 0
    lets the caller skip its own tests of the results."""
    m = np.arange(1.0, 41.0, dtype=dtype).reshape(4, 10)
    m[1, 3], m[2, :] = np.nan, -np.arange(10.0)  # (row 2's largest, and column 0's smallest: -0.0)
    out = np.empty(8, dtype)
    assert _KERNEL.extreme_rows(m, m.itemsize, 4, m.strides[0], 10, out, 1) == 2  # (row 1 NaN, row 2 zero)
    assert _KERNEL.extreme_rows(m, m.itemsize, 4, m.strides[0], 10, out, 2) == 3  # (+ row 1's NaN smallest)
    assert _KERNEL.extreme_rows(m[3:], m.itemsize, 1, 0, 10, out, 0) == 0
    cols = np.empty(10, dtype)
    assert _KERNEL.cols(m, m.itemsize, 4, m.strides[0], 10, cols, 3) == 1  # (column 3's sum)
    assert _KERNEL.cols(m, m.itemsize, 4, m.strides[0], 10, cols, 0) == 2  # (columns 0 and 3)
    assert _KERNEL.cols(m[:2], m.itemsize, 2, m.strides[0], 10, cols, 1) == 1
    assert _KERNEL.cols(m[3:], m.itemsize, 1, m.strides[0], 10, cols, 1) == 0


@pytest.mark.parametrize("op", ["amax", "amin"])
@pytest.mark.parametrize("transposed", [False, True])
def test_strided_full_amax_amin_are_the_same_either_way_and_torchs(op: str, transposed: bool) -> None:
    base = _with_specials(np.random.default_rng(10), 200, 300, np.float32)
    for m in (base, np.abs(base[6:]), np.where(base[6:] == base[6:], base[6:], 1.0)):  # NaN, zero, plain
        s, t = strided.tensor(m.tolist()), torch.tensor(m)
        if transposed:
            s, t = s.t(), t.t()
        fast = getattr(s, op)()
        with native.disabled():
            plain = getattr(s, op)()
        want = getattr(t, op)()
        assert fast.numpy().tobytes() == plain.numpy().tobytes()
        assert fast.shape == tuple(want.shape) == ()
        torch.testing.assert_close(torch.from_numpy(np.array(fast.numpy())), want, equal_nan=True, rtol=0, atol=0)


@needs_kernel
def test_many_unsure_rows_take_numpys_one_call_and_other_calls_go_to_numpy() -> None:
    zeros = np.zeros((64, 512), np.float32)  # (every row's extreme is a zero: NumPy computes them all)
    assert rows.max_reduce(zeros, 1).tobytes() == np.maximum.reduce(zeros, 1).tobytes()
    x = np.random.default_rng(5).standard_normal((8, 64, 64)).astype(np.float32)
    for axis in (None, 0, 2, (0, 1)):  # (3-d, tuples: NumPy's call; full: the kernel's one row)
        assert rows.min_reduce(x, axis).tobytes() == np.minimum.reduce(x, axis).tobytes()
    out = np.empty(64, np.float32)
    assert rows.max_reduce(x[0], 1, None, out) is out


@needs_kernel
@pytest.mark.parametrize("args, error, text", [
    ((1, 4, 1, 0, 0, 1, True), ValueError, "count must be >= 0 and length >= 1, not 1 and 0"),
    ((1, 16, 1, 0, 1, 1, True), ValueError, "itemsize must be 4 (float32) or 8 (float64), not 16"),
    ((0, 4, 1, 0, 1, 1, True), ValueError, "an address must be an int from 1"),
    ((1, 4, 1, 0, 1, 1, 3), ValueError, "mode must be 0 (smallest), 1 (largest) or 2 (both), not 3"),
])
def test_extreme_rows_refuses_bad_arguments(args: tuple, error: type, text: str) -> None:
    with pytest.raises(error, match=text.replace("(", r"\(").replace(")", r"\)")):
        _KERNEL.extreme_rows(*args)


@pytest.mark.parametrize("op", ["amax", "amin", "aminmax"])
@pytest.mark.parametrize("dim, transposed", [(1, False), (0, True), (-1, False), (0, False), (1, True), (-2, False)])
def test_strided_amax_amin_are_the_same_either_way_and_torchs(op: str, dim: int, transposed: bool) -> None:
    base = _with_specials(np.random.default_rng(6), 200, 300, np.float32)
    s, t = strided.tensor(base.tolist()), torch.tensor(base)
    if transposed:
        s, t = s.t(), t.t()
    call = (lambda v: v.aminmax(dim=dim)) if op == "aminmax" else (lambda v: getattr(v, op)(dim))
    fast = call(s)
    with native.disabled():
        plain = call(s)
    want = call(t)
    for f, p, w in zip(fast if op == "aminmax" else [fast], plain if op == "aminmax" else [plain],
                       want if op == "aminmax" else [want]):
        assert f.numpy().tobytes() == p.numpy().tobytes()
        assert f.shape == tuple(w.shape) and f.stride() == w.stride()
        torch.testing.assert_close(torch.from_numpy(np.array(f.numpy())), w, equal_nan=True, rtol=0, atol=0)


@needs_kernel
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_column_reduces_are_numpys_bits(dtype: type) -> None:
    """A reduce over the outer dim of contiguous rows (the kernel's `cols`, four rows a pass over
    chunks of 1024 columns): sums, largest and smallest, NumPy's bits, zeros, infinities and NaNs
    included, for row counts around the pass of four, widths around the chunk, rows further apart
    than their length, a transpose reduced over its dim 1; a reversed, repeated or single column
    goes to NumPy (which orders its loops otherwise)."""
    rng = np.random.default_rng(11)
    reduces = ((rows.add_reduce, np.add.reduce), (rows.max_reduce, np.maximum.reduce),
               (rows.min_reduce, np.minimum.reduce))
    shapes = [(r, -(-rows.MIN_ELEMENTS // r)) for r in range(2, 11)]
    shapes += [(-(-rows.MIN_ELEMENTS // w), w) for w in (2, 3, 7, 8, 9, 1023, 1024, 1025, 2049)]
    for count, width in shapes:
        m = _with_specials(rng, count, width, dtype) if count > 5 else _values(rng, (count, width), dtype)
        plain = _values(rng, (count, width), dtype)
        wide = np.pad(plain, ((0, 0), (0, 3)))[:, :width]
        for view, axis in ((m, 0), (m.T, 1), (m, -2), (plain, 0), (plain.T, -1), (wide, 0), (plain[::2], 0),
                           (plain[::-1], 0), (plain[:, :1], 0)):
            if view.size < rows.MIN_ELEMENTS and view is not plain[:, :1]:
                continue
            for keepdims in (False, True):
                for ours, numpys in reduces:
                    got = ours(view, axis, None, None, keepdims)
                    want = numpys(view, axis, None, None, keepdims)
                    assert got.shape == want.shape and got.dtype == want.dtype
                    assert got.tobytes() == want.tobytes(), (ours.__name__, view.shape, view.strides, axis)
    single = _values(rng, (rows.MIN_ELEMENTS + 1, 1), dtype)  # (one column: NumPy's pairwise sum)
    assert rows.add_reduce(single, 0).tobytes() == np.add.reduce(single, 0).tobytes()


@needs_kernel
@pytest.mark.parametrize("args, error, text", [
    ((1, 4, 0, 0, 1, 1, 3), ValueError, "rows must be >= 1 and cols >= 0, not 0 and 1"),
    ((1, 2, 1, 0, 1, 1, 3), ValueError, "itemsize must be 4 (float32) or 8 (float64), not 2"),
    ((1, 4, 1, 0, 1, 1, 2), ValueError, "mode must be 0 (smallest), 1 (largest) or 3 (sum), not 2"),
    ((0, 4, 1, 0, 1, 1, 3), ValueError, "an address must be an int from 1"),
])
def test_cols_refuses_bad_arguments(args: tuple, error: type, text: str) -> None:
    with pytest.raises(error, match=text.replace("(", r"\(").replace(")", r"\)")):
        _KERNEL.cols(*args)


@needs_kernel
@pytest.mark.usefixtures("one_torch_thread")
def test_rows_that_repeat_or_slide_take_numpys_call() -> None:
    """A reduced dim whose other dim steps 0 or one element (expanded columns, sliding windows):
    NumPy's inner loop is that other dim, its bits are not a pairwise sum per row (red team)."""
    isz = 4
    v = _values(np.random.default_rng(8), 20000, np.float32)
    for view in (np.broadcast_to(v[:, None], (20000, 3)), np.lib.stride_tricks.as_strided(v, (19990, 4), (isz, isz)),
                 np.lib.stride_tricks.as_strided(v[3:], (19990, 4), (isz, -isz))):
        for ours, numpys in ((rows.add_reduce, np.add.reduce), (rows.max_reduce, np.maximum.reduce),
                             (rows.min_reduce, np.minimum.reduce)):
            assert ours(view, 0).tobytes() == numpys(view, 0).tobytes()
        lo, hi = rows.minmax_reduce(view, 0)
        assert lo.tobytes() == np.minimum.reduce(view, 0, None, None, True).tobytes()
    # (Tensor.sum adds in PyTorch's order: tests/test_torch_sum.py; here that of the expanded view)
    t = strided.tensor(v.tolist()).unsqueeze(1).expand(20000, 3)
    assert t.sum(0).numpy().tobytes() == torch.tensor(v).unsqueeze(1).expand(20000, 3).sum(0).numpy().tobytes()


@needs_kernel
def test_disabled_reaches_the_reductions_fast_paths() -> None:
    """native.disabled() turns the row kernel off inside the reductions' quiet NumPy context too."""
    seen: list[str] = []

    class Spy:
        def __init__(self, kernel: object) -> None:
            self.kernel = kernel

        def __getattr__(self, name: str) -> object:
            seen.append(name)
            return getattr(self.kernel, name)

    def spy_at() -> object:  # (amax/amin along a dim: the accessor's function, which it remembers)
        run = real_at()
        return None if run is None else lambda *args: (seen.append("extreme_rows_at"), run(*args))[1]

    real, real_sums, real_at = rows._kernel, native.sums(), rows.extreme_rows_at
    rows._kernel = Spy(real)
    native._sums[:] = [Spy(real_sums)]  # (sum and mean: PyTorch's order, strided.kernels._sumkernel)
    rows.extreme_rows_at = spy_at
    try:
        t = strided.ones(4, 8192)
        with native.disabled():
            t.sum(), t.sum(1), t.mean(1), t.amax(1), t.amin(1), t.aminmax(dim=1)
        assert seen == []
        t.amax(1)
        assert seen == ["extreme_rows_at"]
        t.sum(1)
        assert seen == ["extreme_rows_at", "cascade"]
        t.aminmax(dim=1)
        assert seen == ["extreme_rows_at", "cascade", "extreme_rows"]
    finally:
        rows._kernel = real
        native._sums[:] = [real_sums]
        rows.extreme_rows_at = real_at


def _same_or_both_nan(x: np.ndarray, axis: object) -> None:
    """:func:`_same`, except that where NumPy's sum is NaN any NaN will do: which of two NaNs an
    add returns is its compiler's choice (it may swap a commutative add's operands), NumPy's and
    the kernel's alike."""
    got = np.asarray(rows.add_reduce(x, axis, None, None, False))
    want = np.asarray(np.add.reduce(x, axis, None, None, False))
    assert got.shape == want.shape and got.dtype == want.dtype
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan), (x.shape, axis)
    assert got[~nan].tobytes() == want[~nan].tobytes(), (x.shape, axis)


@needs_kernel
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nans_and_infinities_meeting_in_the_combines(dtype: type) -> None:
    """NaNs of several payloads and signs meeting in a block's combine, in every lane pair and at
    every level of it, and infinities of both signs (inf - inf: a NaN made in the adds), in the
    blocks summed side by side too (the vector combine of four blocks): NaN exactly where NumPy's
    sum is NaN, every other sum its bits."""
    rng = np.random.default_rng(5)
    bits = np.uint32 if dtype is np.float32 else np.uint64
    quiet = 0x7FC00000 if dtype is np.float32 else 0x7FF8000000000000
    for n in (1024, 4096, 1 << 17, 3 * 1024 + 8):
        for lanes in ((0, 1), (2, 3), (0, 2), (1, 3), (4, 6), (0, 4), (3, 7), (5, 6)):
            x = _values(rng, n, dtype)
            raw = x.view(bits)
            for block in range(0, n, 128 * 7):  # (some blocks only: the others' sums stay finite)
                first, second = block + lanes[0], block + 8 + lanes[1]
                raw[first] = quiet | (0x1234 + block)
                raw[second] = quiet | (0x4321 + block) | (1 << (raw.itemsize * 8 - 1))  # (a -NaN)
            _same_or_both_nan(x, None)
            _same_or_both_nan(x.reshape(-1, 8 if n % 8 == 0 else 1), 0)
            _same_or_both_nan(x.reshape(8, -1) if n % 8 == 0 else x.reshape(1, -1), 1)
        y = _values(rng, n, dtype)
        y[::997] = np.inf
        y[5::1009] = -np.inf
        _same_or_both_nan(y, None)
        _same_or_both_nan(y.reshape(-1, 8) if n % 8 == 0 else y.reshape(-1, 1), 0)


@pytest.mark.parametrize("dtype", [strided.float32, strided.float64])
@pytest.mark.parametrize("dim, transposed", [(None, False), (1, False), (0, True), (-1, False), (None, True)])
def test_nansum_of_tensors_holding_nans_is_the_same_bits_either_way_and_torchs(dtype: object, dim: object,
                                                                                 transposed: bool) -> None:
    """nansum reads each NaN as 0 in the row kernel (one pass) where the plain sum met a NaN: the
    bits of the NumPy path (NaN -> 0, then the sum), the kernel on or off, and PyTorch's values."""
    rng = np.random.default_rng(13)
    base = _values(rng, (300, 257), np.float32 if dtype is strided.float32 else np.float64)
    base[rng.random(base.shape) < 0.05] = np.nan
    base[7] = np.nan  # (a row of NaN only: its sum is 0)
    s, t = strided.from_numpy(base.copy()), torch.from_numpy(base.copy())
    if transposed:
        s, t = s.t(), t.t()
    fast = s.nansum() if dim is None else s.nansum(dim)
    with native.disabled():
        plain = s.nansum() if dim is None else s.nansum(dim)
    want = t.nansum() if dim is None else t.nansum(dim)
    assert fast.numpy().tobytes() == plain.numpy().tobytes()
    assert fast.shape == tuple(want.shape) and not np.isnan(fast.numpy()).any()
    scale = t.abs().nansum() if dim is None else t.abs().nansum(dim)  # (cancellation: relative to sum |x|)
    assert (np.abs(fast.numpy() - want.numpy()) <= 1e-5 * scale.numpy()).all()
