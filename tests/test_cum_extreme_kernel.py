"""cummax/cummin by the compiled kernel (kernels/_specialkernel.c ``running_extreme``, called from
ops/reductions/scans.py ``_compiled_extreme``): against PyTorch 2.13 bit for bit (values with
their NaN signs and payloads and zero signs, int64 indices, dtypes, shapes, strides), against the
NumPy path (native.disabled()), and the kernel's refusals."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import strided
from oracle_helpers import case
from strided.kernels import native

pytestmark = pytest.mark.skipif(native.special() is None, reason="the compiled kernel is not built")

NAN_BITS = {np.float32: [0x7FC00000, 0xFFC00000, 0x7FC00001, 0xFFC12345],
            np.float64: [0x7FF8000000000000, 0xFFF8000000000000, 0x7FF8000000000001]}


def _values(shape, dtype, seed, layout="c", special=True):
    rng = np.random.default_rng(seed)
    make = tuple(reversed(shape)) if layout == "t" else shape
    if np.dtype(dtype).kind == "f":
        a = rng.integers(-3, 4, make).astype(dtype)  # (few distinct values: many ties)
        flat = a.reshape(-1)
        if special and flat.size:
            pick = rng.random(flat.size)
            flat[pick < 0.1] = -0.0
            flat[(pick >= 0.1) & (pick < 0.15)] = np.inf
            flat[(pick >= 0.15) & (pick < 0.2)] = -np.inf
            nans = np.flatnonzero((pick >= 0.2) & (pick < 0.27))
            bits = np.array(NAN_BITS[dtype], np.uint32 if dtype == np.float32 else np.uint64)
            flat.view(bits.dtype)[nans] = bits[rng.integers(0, len(bits), nans.size)]
    else:
        a = rng.integers(-3, 4, make).astype(dtype)
        if a.size:
            a.reshape(-1)[0] = np.iinfo(dtype).min
    return a.transpose() if layout == "t" else a


def _bits(t):
    return (tuple(t.shape), tuple(t.stride()), str(t.dtype).split(".")[-1],
            np.ascontiguousarray(t.numpy() if isinstance(t, torch.Tensor) else np.asarray(t)).tobytes())


def _check(a, dim, op):
    ours = getattr(strided, op)(strided.from_numpy(a), dim)
    theirs = getattr(torch, op)(torch.from_numpy(a), dim)
    assert _bits(ours.values) == _bits(theirs.values)
    assert _bits(ours.indices) == _bits(theirs.indices)
    with native.disabled():
        numpy_path = getattr(strided, op)(strided.from_numpy(a), dim)
    assert _bits(numpy_path.indices) == _bits(ours.indices)
    same = np.asarray(numpy_path.values).tobytes() == np.asarray(ours.values).tobytes()
    # (the NumPy path keeps the first NaN's bits after it, the kernel (as PyTorch) the latest's)
    assert same or np.isnan(a).sum() > 1


@pytest.mark.parametrize("op", ["cummax", "cummin"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_running_extreme_is_pytorch_bit_for_bit(op, dtype):
    for (shape, dim), layout in itertools.product(
            [((7,), 0), ((5, 9), 0), ((5, 9), 1), ((5, 9), -1), ((3, 4, 6), 1),
             ((3, 4, 6), 2), ((3, 4, 6), 0), ((1, 1), 1), ((300, 257), 1)],
            ["c", "t"]):
        with case(shape=shape, dim=dim, layout=layout):
            _running_extreme_is_pytorch_bit_for_bit(op, dtype, shape, dim, layout)


def _running_extreme_is_pytorch_bit_for_bit(op, dtype, shape, dim, layout):
    for seed in range(3):
        _check(_values(shape, dtype, seed, layout), dim, op)


@settings(max_examples=80, deadline=None)
@given(shape=st.lists(st.integers(1, 6), min_size=1, max_size=3), data=st.data(),
       dtype=st.sampled_from([np.float32, np.float64, np.int64]), op=st.sampled_from(["cummax", "cummin"]),
       layout=st.sampled_from(["c", "t"]), seed=st.integers(0, 10_000))
def test_running_extreme_hypothesis(shape, data, dtype, op, layout, seed):
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    _check(_values(tuple(shape), dtype, seed, layout), dim, op)


def test_zero_d_and_empty_keep_their_paths():
    for op in ("cummax", "cummin"):
        s = getattr(strided, op)(strided.tensor(2.5), 0)
        t = getattr(torch, op)(torch.tensor(2.5), 0)
        assert _bits(s.values) == _bits(t.values) and _bits(s.indices) == _bits(t.indices)
        s = getattr(strided, op)(strided.zeros(0, 3), 1)
        t = getattr(torch, op)(torch.zeros(0, 3), 1)
        assert _bits(s.values) == _bits(t.values) and _bits(s.indices) == _bits(t.indices)


def test_the_kernel_refuses_overlaps_and_bad_buffers():
    k = native.special()
    x = np.arange(12, dtype=np.float32)
    idx = np.empty(12, np.int64)
    assert k.running_extreme(x, x, idx, 12, 1, True) is False
    v = np.empty(12, np.float32)
    assert k.running_extreme(x, v, idx, 4, 3, True) is True
    with pytest.raises(ValueError):
        k.running_extreme(x, v, idx, 5, 1, True)  # (12 is no multiple of 5)
    with pytest.raises(ValueError):
        k.running_extreme(x, np.empty(12, np.float64), idx, 12, 1, True)
    with pytest.raises(ValueError):
        k.running_extreme(x.astype(np.float16), np.empty(12, np.float16), idx, 12, 1, True)
    with pytest.raises(ValueError):
        k.running_extreme(x, v, np.empty(12, np.int32), 12, 1, True)


def test_other_dtypes_and_watch_keep_the_numpy_path():
    """float16, bool, uint8: NumPy's accumulate (the kernel does not take them), PyTorch's values;
    a watch sees one cummax record either way."""
    a = np.array([[1, 3, 2], [0, 0, 5]])
    for dt in (np.float16, np.uint8, np.int16):
        s = strided.cummax(strided.from_numpy(a.astype(dt)), 1)
        t = torch.cummax(torch.from_numpy(a.astype(dt)), 1)
        assert _bits(s.values) == _bits(t.values) and _bits(s.indices) == _bits(t.indices)
    with strided.watch() as w:
        strided.cummax(strided.from_numpy(a.astype(np.float32)).t(), 1)
    assert [r.op for r in w.summary()] == ["cummax"]
