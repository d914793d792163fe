"""Plain writes (``copy_``, ``t[...] = v``) into a destination whose elements share memory
(``unfold`` windows, ``as_strided``): each shared location keeps the value PyTorch's walk writes
there last (strided.kernels.torch_overlap_writes), against torch itself; from PyTorch's parallel
grain, different values racing for one location are refused."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st

DTYPES = ["float32", "float64", "int32", "int64", "bool", "float16", "complex64", "uint8", "bfloat16", "int8"]


def _write(lib, size, shape, strides, offset, dtype, src_dtype, src_shape, seed, how, expand=False):
    base = lib.zeros(size, dtype=getattr(lib, dtype))
    view = base.as_strided(shape, strides, offset)
    values = np.random.default_rng(seed).standard_normal(src_shape) * 5
    src = lib.tensor(values).to(getattr(lib, src_dtype))
    if expand:
        src = src.expand(*shape)  # (stride 0 where src_shape has a 1: the walk's order sees it)
    if how == "copy_":
        view.copy_(src)
    else:
        view[...] = src
    return base.float().tolist() if dtype == "bfloat16" else base.tolist()


@settings(max_examples=300, deadline=None)
@given(
    dims=hs.lists(hs.tuples(hs.integers(1, 5), hs.integers(1, 4), hs.booleans()), min_size=1, max_size=3),
    offset=hs.integers(0, 3),
    dtype=hs.sampled_from(DTYPES),
    src_dtype=hs.sampled_from(DTYPES),
    seed=hs.integers(0, 2**16),
    how=hs.sampled_from(["copy_", "setitem"]),
    expand=hs.booleans(),
)
def test_overlapping_destination_keeps_torchs_last_write(dims, offset, dtype, src_dtype, seed, how, expand):
    shape = [n for n, _, _ in dims]
    strides = [s for _, s, _ in dims]
    src_shape = [1 if squeeze else n for n, _, squeeze in dims]
    if src_dtype == "complex64" and dtype != "complex64":
        src_dtype = "float64"  # (PyTorch warns and drops the imaginary part: another test's matter)
    size = offset + sum((n - 1) * s for n, s in zip(shape, strides)) + 1
    args = (size, shape, strides, offset, dtype, src_dtype, src_shape, seed, how, expand)
    assert _write(st, *args) == _write(torch, *args)


@pytest.mark.parametrize("dtype, src_dtype", [("bfloat16", "int64"), ("float16", "float64"), ("bfloat16", "float64"),
                                              ("float32", "int64"), ("int8", "float32")])
def test_an_expanded_source_of_another_dtype_orders_the_walk_by_its_own_strides(dtype, src_dtype):
    """The source's stride-0 dims order PyTorch's walk; a cast made first (int64 -> bfloat16 goes
    through float32) must not make them dense: torch leaves -10 in the middle, strided left 2, 7."""
    def run(lib):
        base = lib.zeros(20, dtype=getattr(lib, dtype))
        src = lib.tensor([[[-10.0], [2.0], [7.0]]]).to(getattr(lib, src_dtype)).expand(4, 3, 4)
        base.as_strided((4, 3, 4), (1, 1, 4), 2).copy_(src)
        return base.float().tolist()
    assert run(st) == run(torch)


def test_the_unfold_windows_red27_found():
    """torch leaves [0, 1, 2, 3, 4, 9]; NumPy's walk of the same copy left [0, 5, 6, 7, 8, 9]."""
    def run(lib):
        b = lib.arange(6.0).reshape(6, 1)
        b.unfold(0, 2, 1).mT.swapaxes(0, -1).copy_(lib.arange(10.0).reshape(1, 2, 5))
        return b.flatten().tolist()
    assert run(st) == run(torch) == [0.0, 1.0, 2.0, 3.0, 4.0, 9.0]


def test_an_overlapping_source_is_read_before_the_writes():
    def run(lib):
        b = lib.arange(7.0)
        b.unfold(0, 3, 1).copy_(b.unfold(0, 3, 1).flip(0))
        return b.tolist()
    assert run(st) == run(torch)


def test_a_race_between_torchs_threads_is_refused(monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    b = st.zeros(40001)
    with pytest.raises(st.StridedRuntimeError) as caught:
        b.unfold(0, 2, 1).copy_(st.arange(80000.0).reshape(40000, 2))
    text = str(caught.value)
    assert "share memory location 1 and receive different values" in text
    assert "from several threads at once (from 32768 elements)" in text
    assert "fix: write into a tensor whose elements do not share memory" in text
    assert b.sum().item() == 0  # (nothing written)
    b.unfold(0, 2, 1).copy_(st.ones(40000, 2))  # one value per location: no race
    assert b.sum().item() == 40001
    monkeypatch.setenv("OMP_NUM_THREADS", "1")  # one thread: its walk's last write, as below
    b.unfold(0, 2, 1).copy_(st.arange(80000.0).reshape(40000, 2))
    t, threads = torch.zeros(40001), torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        t.unfold(0, 2, 1).copy_(torch.arange(80000.0).reshape(40000, 2))
    finally:
        torch.set_num_threads(threads)
    assert b.tolist() == t.tolist()


def test_a_race_is_judged_on_the_values_written(monkeypatch):
    """Two values racing for a location differ where the destination's bits differ: 1.2 and 1.7
    written as ints are both 1 (no race: written), 0.0 and -0.0 are not one value (refused)."""
    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    b = st.zeros(40001, dtype=st.int32)
    b.unfold(0, 2, 1).copy_(st.tensor([[1.2, 1.7]]).expand(40000, 2))
    assert b.tolist() == [1] * 40001
    f = st.zeros(40001)
    with pytest.raises(st.StridedRuntimeError, match="share memory location 1 and receive different values"):
        f.unfold(0, 2, 1).copy_(st.tensor([[0.0, -0.0]]).expand(40000, 2))
