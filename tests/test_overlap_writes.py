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


def _put(lib, size, shape, strides, offset, dtype, index_dim, count, seed, form):
    rng = np.random.default_rng(seed)
    base = lib.zeros(size, dtype=getattr(lib, dtype))
    view = base.as_strided(shape, strides, offset)
    index_dim = 0 if form == "index_put_" else index_dim  # (index_put_ takes index tensors only)
    idx = lib.tensor(rng.integers(-shape[index_dim], shape[index_dim], size=count))
    key = (slice(None),) * index_dim + (idx,)
    value_shape = tuple(shape[:index_dim]) + (count,) + tuple(shape[index_dim + 1:])
    value = lib.tensor(rng.standard_normal(value_shape) * 5).to(getattr(lib, dtype))
    if form == "expanded":
        value = value[(slice(None),) * index_dim + (slice(0, 1),)].expand(*value_shape)
    elif form == "permuted":
        value = value.permute(*range(value.dim() - 1, -1, -1)).contiguous().permute(*range(value.dim() - 1, -1, -1))
    if form == "index_put_":
        view.index_put_(key, value)
    else:
        view[key] = value
    return base.float().tolist() if dtype == "bfloat16" else base.tolist()


@settings(max_examples=300, deadline=None)
@given(
    dims=hs.lists(hs.tuples(hs.integers(1, 5), hs.integers(1, 4)), min_size=1, max_size=3),
    offset=hs.integers(0, 3),
    dtype=hs.sampled_from(DTYPES),
    where=hs.integers(0, 2),
    count=hs.integers(1, 4),
    seed=hs.integers(0, 2**16),
    form=hs.sampled_from(["plain", "expanded", "permuted", "index_put_"]),
)
def test_an_advanced_index_write_keeps_torchs_last_write(dims, offset, dtype, where, count, seed, form):
    """``t[..., idx, ...] = v`` / ``index_put_`` into an overlapping target: ``index_put_kernel``'s
    walk (the target restrided, the value's strides, the index's) decides each shared location's
    survivor, not NumPy's scatter (it differed in ~1 of 8 random layouts)."""
    shape = [n for n, _ in dims]
    strides = [s for _, s in dims]
    size = offset + sum((n - 1) * s for n, s in zip(shape, strides)) + 1
    args = (size, shape, strides, offset, dtype, where % len(shape), count, seed, form)
    assert _put(st, *args) == _put(torch, *args)


@pytest.mark.parametrize("how", ["setitem", "index_put_"])
@pytest.mark.parametrize("target, value, index", [
    # (a leading size-1 dim of the value: setitem drops it, with its stride, before the walk is
    # ordered; index_put_ keeps it, and its stride 1 moves the walk's order)
    (((4, 4, 4), (2, 3, 1), 1), ((1, 4, 4), (1, 0, 4), 5), [2]),
    (((4, 2, 4), (3, 2, 1), 1), ((1, 2, 4), (4, 0, 4), 1), [0]),
])
def test_an_advanced_index_write_from_the_targets_own_memory(how, target, value, index):
    """The value read from the overlapping target itself (PyTorch lets it through where no
    element is read after being written): its own strides order the walk, its elements are
    read before the first write."""
    def run(lib):
        b = lib.arange(60.0)
        view = b.as_strided(*target)
        val = b.as_strided(*value)
        try:
            if how == "setitem":
                view[lib.tensor(index)] = val
            else:
                view.index_put_((lib.tensor(index),), val)
        except RuntimeError:
            return "refused"
        return b.tolist()
    assert run(st) == run(torch)


def test_an_advanced_index_write_race_is_refused(monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    b = st.zeros(40001)
    with pytest.raises(st.StridedRuntimeError, match="receive different values"):
        b.unfold(0, 2, 1)[st.arange(40000)] = st.arange(80000.0).reshape(40000, 2)
    assert b.sum().item() == 0


def _layout_of(dims: list[tuple[int, int]], offset: int) -> tuple[int, list[int], list[int]]:
    """``(storage size, shape, strides)`` of hypothesis's ``(size, stride)`` pairs from ``offset``."""
    shape = [n for n, _ in dims]
    strides = [s for _, s in dims]
    return offset + sum((n - 1) * s for n, s in zip(shape, strides)) + 1, shape, strides


def _index_copy(lib, size, shape, strides, offset, dim, seed):
    rng = np.random.default_rng(seed)
    base = lib.zeros(size, dtype=lib.float64)
    view = base.as_strided(shape, strides, offset)
    idx = rng.permutation(shape[dim])[: rng.integers(1, shape[dim] + 1)]
    source = lib.tensor(rng.standard_normal(tuple(len(idx) if e == dim else n for e, n in enumerate(shape))))
    view.index_copy_(dim, lib.tensor(idx), source)
    return base.tolist()


# (each dim's size and stride, up to three dims: overlapping layouts in about half the draws)
_DIMS = hs.lists(hs.tuples(hs.integers(1, 5), hs.integers(1, 4)), min_size=1, max_size=3)


@settings(max_examples=200, deadline=None)
@given(dims=_DIMS, offset=hs.integers(0, 3), where=hs.integers(0, 2), seed=hs.integers(0, 2**16))
def test_index_copy_into_an_overlapping_target_keeps_torchs_last_write(dims, offset, where, seed):
    """``index_copy_`` into an overlapping ``self``: ``index_copy_out``'s walk decides each shared
    location's survivor (7 of 198 random layouts differed silently with NumPy's assignment)."""
    size, shape, strides = _layout_of(dims, offset)
    args = (size, shape, strides, offset, where % len(shape), seed)
    assert _index_copy(st, *args) == _index_copy(torch, *args)


def _scatter(lib, size, shape, strides, offset, dim, dtype, seed):
    rng = np.random.default_rng(seed)
    base = lib.zeros(size, dtype=getattr(lib, dtype))
    view = base.as_strided(shape, strides, offset)
    index = lib.tensor(rng.integers(0, shape[dim], size=shape))
    view.scatter_(dim, index, lib.tensor(rng.standard_normal(shape) * 5).to(getattr(lib, dtype)))
    return base.tolist()


@settings(max_examples=200, deadline=None)
@given(dims=_DIMS, offset=hs.integers(0, 3), where=hs.integers(0, 2), seed=hs.integers(0, 2**16),
       dtype=hs.sampled_from(["float32", "float64", "int32", "int64", "complex64", "bool", "float16", "bfloat16"]))
def test_scatter_into_an_overlapping_target_keeps_torchs_last_write(dims, offset, where, dtype, seed):
    """``scatter_(dim, index, src)`` into an overlapping ``self``: ``cpu_scatter_gather_base_kernel``'s
    walk decides each shared location's survivor (~15% of random layouts differed silently);
    float16/bfloat16 are scattered into a contiguous copy, copied back (~30% differed)."""
    size, shape, strides = _layout_of(dims, offset)
    args = (size, shape, strides, offset, where % len(shape), dtype, seed)
    assert _scatter(st, *args) == _scatter(torch, *args)


def test_a_scatter_race_names_no_grain_of_another_walk(monkeypatch):
    """scatter_'s threads split its index at its own grain (32768 over the index's size along dim),
    so the race text does not name copy_'s 32768 elements."""
    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    b = st.zeros(40001)
    index = (st.arange(40000) % 2).reshape(40000, 1)  # (rows 1 and 2 both write b[2]: a race)
    with pytest.raises(st.StridedRuntimeError) as caught:
        b.unfold(0, 2, 1).scatter_(1, index, st.arange(40000.0).reshape(40000, 1))
    text = str(caught.value)
    assert "receive different values" in text
    assert "from several threads at once (past its parallel grain)" in text
    assert "32768" not in text
    assert b.sum().item() == 0  # (nothing written)
