"""index_add's slice-by-slice sums (ops/indexing/index_ops.py ``_add_at``, from ``_SLICE_ADD``
elements a slice): each call runs with them, with them turned off (np.add.at, the general path)
and through PyTorch 2.13, comparing dtype, shape, strides and bytes bit for bit (repeated
indices, -0.0, inf + -inf, integer wrap-around; a source with NaN takes np.add.at)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import strided
from oracle_helpers import case
from strided.ops.indexing import index_ops as IO


def _arr(shape, dtype, seed, special, layout):
    """Random values of ``shape`` (``layout`` "t": the transpose of a row-major array); floats
    with ``special`` get -0.0, +-inf and the largest finite value, and NaN for "nan"."""
    rng = np.random.default_rng(seed)
    make = shape[::-1] if layout == "t" else shape
    if np.dtype(dtype).kind == "f":
        a = (rng.standard_normal(make) * 4).astype(dtype)
        flat = a.reshape(-1)
        if special:
            flat[::53] = -0.0
            flat[1::61] = np.inf
            flat[2::67] = -np.inf
            flat[3::71] = np.finfo(dtype).max
        if special == "nan":
            flat[4::73] = np.nan
    else:
        info = np.iinfo(dtype)
        a = rng.integers(info.min, info.max, make, dtype=dtype, endpoint=True)
    return a.transpose() if layout == "t" else a


def _bits(t):
    return t.dtype.name if hasattr(t.dtype, "name") else str(t.dtype).split(".")[1], tuple(t.shape), \
        tuple(t.stride()), np.ascontiguousarray(np.asarray(t)).tobytes()


def _tbits(t):
    return str(t.dtype).split(".")[1], tuple(t.shape), tuple(t.stride()), np.ascontiguousarray(t.numpy()).tobytes()


def _case(shape, dim, n_index, dtype, special, layout, inplace, alpha, seed, monkeypatch):
    rng = np.random.default_rng(seed + 7)
    x = _arr(shape, dtype, seed, special, layout)
    src_shape = list(shape)
    src_shape[dim] = n_index
    s = _arr(tuple(src_shape), dtype, seed + 1, special, layout)
    idx = rng.integers(0, shape[dim], n_index)
    idx[: n_index // 2] = idx[:1]  # (repeats: the writes' order matters)
    kw = {} if alpha == 1 else {"alpha": alpha}

    def run(lib, conv):
        t = conv(x.copy(order="K"))
        args = (dim, conv(idx), conv(s))
        return t.index_add_(*args, **kw) if inplace else lib.index_add(t, *args, **kw)

    ours = _bits(run(strided, strided.from_numpy))
    with monkeypatch.context() as mp:
        mp.setattr(IO, "_SLICE_ADD", 1 << 62)
        general = _bits(run(strided, strided.from_numpy))
    theirs = _tbits(run(torch, torch.from_numpy))
    assert ours == general
    assert ours == theirs


SHAPES = [((64, 40), 0), ((64, 40), 1), ((8, 30, 20), 1), ((8, 30, 20), 0), ((8, 30, 20), 2)]


@pytest.mark.parametrize("shape,dim", SHAPES)
def test_index_add_slices_are_np_add_at_bit_for_bit(shape, dim, monkeypatch):
    for (dtype, special), layout, inplace in itertools.product(
            [(np.float32, True), (np.float64, True), (np.float32, False),
             (np.int32, False), (np.int64, False), (np.uint8, False),
             (np.int8, False)],
            ["c", "t"],
            [False, True]):
        with case(dtype=dtype, special=special, layout=layout, inplace=inplace):
            _index_add_slices_are_np_add_at_bit_for_bit(shape, dim, dtype, special, layout, inplace, monkeypatch)


def _index_add_slices_are_np_add_at_bit_for_bit(shape, dim, dtype, special, layout, inplace, monkeypatch):
    monkeypatch.setattr(IO, "_SLICE_ADD", 16)  # (small shapes through the slice path too)
    _case(shape, dim, 2 * shape[dim], dtype, special, layout, inplace, 1, 0, monkeypatch)


def test_index_add_slices_large_rows(monkeypatch):
    """The default threshold: 1024-element slices, transposed self and source, alpha 1 and 2.
    (alpha 2 without huge values: the general path scales the source first, so max * 2 is inf
    there, where PyTorch's sum stays finite or -inf: a general-path difference of its own.)"""
    for layout in ("c", "t"):
        for alpha in (1, 2):
            _case((256, 1024), 0, 300, np.float32, alpha == 1, layout, False, alpha, 3, monkeypatch)


def test_index_add_with_nan_in_the_source_takes_np_add_at(monkeypatch):
    """NaN + NaN keeps one operand's NaN, np.add.at and NumPy's SIMD loops differ on which: a
    source holding a NaN is added by np.add.at, so the fast and general paths agree bit for bit."""
    called = []
    real = np.add.at
    monkeypatch.setattr(IO, "_SLICE_ADD", 16)
    monkeypatch.setattr(IO, "SLICES_C", None)  # (the compiled small path: the test below)
    x = _arr((64, 40), np.float32, 0, "nan", "c")
    s = _arr((64, 40), np.float32, 1, "nan", "c")
    idx = np.arange(64)[::-1].copy()

    class Spy:
        def __getattr__(self, name):
            return getattr(np, name)

    spy = Spy()
    spy.add = type("A", (), {"at": staticmethod(lambda *a: called.append(1) or real(*a)),
                             "__call__": staticmethod(np.add)})()
    monkeypatch.setattr(IO, "np", spy)
    ours = strided.index_add(strided.from_numpy(x), 0, strided.from_numpy(idx), strided.from_numpy(s))
    assert called
    monkeypatch.setattr(IO, "np", np)
    ref = x.copy()
    np.add.at(ref, idx, s)
    assert np.asarray(ours).tobytes() == ref.tobytes()


@settings(max_examples=40, deadline=None)
@given(rows=st.integers(1, 12), cols=st.integers(1, 40), n_index=st.integers(0, 20), dim=st.integers(0, 1),
       dtype=st.sampled_from([np.float32, np.float64, np.int64]), layout=st.sampled_from(["c", "t"]),
       inplace=st.booleans(), seed=st.integers(0, 100))
def test_index_add_slices_hypothesis(rows, cols, n_index, dim, dtype, layout, inplace, seed):
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(IO, "_SLICE_ADD", 1)
        _case((rows, cols), dim, n_index, dtype, True, layout, inplace, 1, seed, mp)


def test_index_add_into_an_expanded_tensor_is_refused_as_pytorch():
    x = strided.zeros(1, 300).expand(4, 300)
    with pytest.raises(RuntimeError):
        x.index_add_(0, strided.tensor([0, 1]), strided.ones(2, 300))
    with pytest.raises(RuntimeError):
        torch.zeros(1, 300).expand(4, 300).index_add_(0, torch.tensor([0, 1]), torch.ones(2, 300))
