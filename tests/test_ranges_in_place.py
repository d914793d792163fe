"""arange/linspace/logspace computed in place and adopted (kernels/fill.py ``arange_values``,
creation.py ``_ramp``'s finite-bounds branch, ``_arange_result``, ``_space_result``): each result
against the former expressions (temporaries, then a copy into a fresh result) and PyTorch 2.13,
bit for bit, with dtype, shape, strides and a writable, resizable, unshared memory."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import strided
from oracle_helpers import case
from strided import creation

DTYPES = ["float32", "float64", "int64", "int32", "int16", "uint8", "float16", "bfloat16"]


def _old_arange(n, start, step, integral, dtype):
    """The former arange_into: temporaries, then astype."""
    if integral:
        values = np.arange(n, dtype=np.int64) * step + start
    else:
        values = np.arange(n, dtype=np.float64) * float(step) + float(start)
    return values.astype(dtype)


def _old_ramp(start, end, steps, step, wide):
    i = np.arange(steps, dtype=wide)
    half = steps // 2
    out = np.empty(steps, wide)
    out[:half] = wide(start) + wide(step) * i[:half]
    out[half:] = wide(end) - wide(step) * (wide(steps - 1) - i[half:])
    return out


def _same_as_torch(ours, theirs):
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert tuple(ours.stride()) == tuple(theirs.stride())
    assert ours.dtype.name == str(theirs.dtype).split(".")[1]
    a = np.asarray(ours)
    b = theirs.view(torch.int16).numpy() if theirs.dtype == torch.bfloat16 else theirs.numpy()
    assert a.view(b.dtype).tobytes() == b.tobytes() if a.dtype.itemsize == b.dtype.itemsize else False


def _fresh(t, n):
    """The result owns fresh, writable, resizable memory of exactly its elements (checked on a
    clone of its storage state: np.asarray would pin it)."""
    arr = t._storage.array
    assert arr.flags.writeable and arr.flags.c_contiguous and arr.ndim == 1 and arr.shape[0] == n
    assert t._storage._pinned is None  # (resizable: strided owns the buffer)


@pytest.mark.parametrize("dtype", [None, *DTYPES])
def test_arange_matches_the_former_path_and_torch(dtype):
    for n, args in itertools.product(
            [5000, 1 << 16],
            [(0, 1), (3, 7), (-5, -3), (0, 0.5), (-0.0, 0.25), (1.5, -0.1), (0, 1.0)]):
        with case(n=n, args=args):
            _arange_matches_the_former_path_and_torch(n, args, dtype)


def _arange_matches_the_former_path_and_torch(n, args, dtype):
    start, step = args
    end = start + n * step
    kw = {} if dtype is None else {"dtype": getattr(strided, dtype)}
    tkw = {} if dtype is None else {"dtype": getattr(torch, dtype)}
    try:
        theirs = _one_thread(torch.arange, start, end, step, **tkw)
    except (RuntimeError, ValueError) as e:  # (step 0.5 read as int64 is 0: PyTorch refuses it)
        with pytest.raises(type(e)):
            strided.arange(start, end, step, **kw)
        return
    ours = strided.arange(start, end, step, **kw)
    _fresh(ours, theirs.numel())
    # (a float range: PyTorch's vectorized kernel's roundings, kernels/fill.py float_range; past
    # 32768 elements PyTorch splits the range among its threads: compared with one)
    _same_as_torch(ours, theirs)
    integral = all(isinstance(v, int) for v in (start, end, step)) and dtype in (None, "int64")
    if integral:
        old = _old_arange(theirs.numel(), start, step, integral, ours.dtype.numpy)
        assert np.asarray(strided.arange(start, end, step, **kw)).tobytes() == old.tobytes()


def _one_thread(fn, *args, **kwargs):
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return fn(*args, **kwargs)
    finally:
        torch.set_num_threads(threads)


@settings(max_examples=60, deadline=None)
@given(start=st.floats(-1e6, 1e6, allow_subnormal=True), step=st.floats(1e-3, 1e3), n=st.integers(1, 9000),
       dtype=st.sampled_from(["float32", "float64", "float16", "bfloat16"]))
def test_arange_float_hypothesis(start, step, n, dtype):
    """The values are PyTorch's, bit for bit."""
    end = start + n * step
    ours = strided.arange(start, end, step, dtype=getattr(strided, dtype))
    _same_as_torch(ours, _one_thread(torch.arange, start, end, step, dtype=getattr(torch, dtype)))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "float16", "complex64"])
def test_linspace_matches_torch(dtype):
    for steps, bounds in itertools.product(
            [2, 3, 4097, 10001, 1 << 16],
            [(0.0, 1.0), (-3.5, 7.25), (1.0, 1.0), (-0.0, 0.0), (1e30, -1e30), (5, -5),
             (3e38, -3e38), (float("inf"), 0.0), (0.0, float("nan")),
             (float("-inf"), float("inf"))]):
        with case(steps=steps, bounds=bounds):
            _linspace_matches_torch(steps, bounds, dtype)


def _linspace_matches_torch(steps, bounds, dtype):
    start, end = bounds
    if dtype == "int64" and not all(np.isfinite(bounds) & (np.abs(bounds) < 2**62)):
        return  # (an integer of inf or 1e30: a refusal, or PyTorch's own undefined cast)
    try:
        theirs = torch.linspace(start, end, steps, dtype=getattr(torch, dtype))
    except RuntimeError:
        with pytest.raises(RuntimeError):
            strided.linspace(start, end, steps, dtype=getattr(strided, dtype))
        return
    ours = strided.linspace(start, end, steps, dtype=getattr(strided, dtype))
    if steps > creation._SPACE_STEPS:
        _fresh(ours, steps)
    _same_as_torch(ours, theirs)  # (float64 too, at any length: one exact fma an element, as PyTorch's)


@pytest.mark.parametrize("bounds", [(0.0, 1.0), (-3.5, 7.25), (-0.0, 2.0), (1e30, -1e30), (3e38, -3e38)])
def test_ramp_in_place_is_the_former_ramp(bounds):
    for wide, steps in itertools.product(
            [np.float64, np.longdouble],
            [2, 7, 10001]):
        with case(wide=wide, steps=steps):
            _ramp_in_place_is_the_former_ramp(bounds, wide, steps)


def _fused_ramp(start, end, steps, step):
    """The double ramp with each element's multiply-add exact, rounded once (Fraction's float:
    round half to even), PyTorch's fma: what _ramp gives for a long-double ``wide`` (finite bounds)."""
    half = steps // 2
    s, e, d = Fraction(float(start)), Fraction(float(end)), Fraction(float(step))
    return np.array([float(s + d * i) if i < half else float(e - d * (steps - 1 - i)) for i in range(steps)])


def _ramp_in_place_is_the_former_ramp(bounds, wide, steps):
    # (a long-double ``wide`` is the double ramps' marker: now C's fma in double, the exact
    # products a long double lacked, so double bounds and step and the exact reference)
    value = np.float64 if wide is np.longdouble else wide
    start, end = (value(b) for b in bounds)
    with np.errstate(all="ignore"):
        step = (end - start) / value(steps - 1)
        new = creation._ramp(start, end, steps, step, wide)
        old = _fused_ramp(start, end, steps, step) if wide is np.longdouble else _old_ramp(start, end, steps, step, wide)
    # (long double's padding bytes are garbage: compared by value, sign and NaN-ness)
    assert np.array_equal(new, old, equal_nan=True)
    assert np.array_equal(np.signbit(new), np.signbit(old))


@pytest.mark.parametrize("steps", [2, 5000, 1 << 16])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_logspace_adopted_matches_torch(steps, dtype):
    ours = strided.logspace(0.0, 1.0, steps, dtype=getattr(strided, dtype))
    if steps > creation._SPACE_STEPS:
        _fresh(ours, steps)
    theirs = torch.logspace(0.0, 1.0, steps, dtype=getattr(torch, dtype))
    _same_as_torch(ours, theirs)


def test_memoized_values_are_copied_not_shared():
    a = strided.linspace(0.0, 1.0, 100)
    b = strided.linspace(0.0, 1.0, 100)
    assert not np.shares_memory(np.asarray(a), np.asarray(b))
    a[0] = 5.0
    assert strided.linspace(0.0, 1.0, 100)[0].item() == 0.0
    assert b[0].item() == 0.0


def test_watch_sees_one_creation():
    with strided.watch() as w:
        strided.arange(1 << 16)
        strided.arange(0, 1 << 16, 1.0)
        strided.linspace(0, 1, 1 << 16)
        strided.logspace(0, 1, 1 << 16)
    assert [r.op for r in w.summary()] == ["arange", "arange", "linspace", "logspace"]
