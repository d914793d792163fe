"""unravel_index's dense int64 path (``index_ops._unravel_dense``: row-major or a transpose: NumPy's floor_divide
and remainder by each dim's Python-int divisor) against the general path (watched, which reports
its composite steps) and PyTorch: shapes, strides, offsets and values, negative and out-of-range
indices (which wrap), int64's extremes, empty and 0-d inputs."""

from __future__ import annotations

import numpy as np
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st


def _same(ours, general, theirs):
    assert len(ours) == len(general) == len(theirs)
    for p, q, r in zip(ours, general, theirs):
        assert p.shape == q.shape == tuple(r.shape)
        assert p.stride() == q.stride() == r.stride() and p.storage_offset() == q.storage_offset()
        assert p.numpy().tobytes() == q.numpy().tobytes() == r.numpy().tobytes()


@settings(max_examples=150, deadline=None)
@given(dims=hs.lists(hs.integers(1, 9), min_size=1, max_size=4), lead=hs.lists(hs.integers(0, 5), max_size=2),
       seed=hs.integers(0, 2**32 - 1))
def test_row_major_int64_is_the_general_path_and_torch(dims, lead, seed):
    rng = np.random.default_rng(seed)
    n = int(np.prod(dims))
    idx = rng.integers(-3 * n, 3 * n, tuple(lead), dtype=np.int64)
    x = st.from_numpy(idx)
    with st.watch():  # (a listener: the general path, its floor_divide and remainder)
        general = st.unravel_index(x, tuple(dims))
    _same(st.unravel_index(x, tuple(dims)), general, torch.unravel_index(torch.from_numpy(idx), tuple(dims)))


def test_extremes_and_views():
    info = np.iinfo(np.int64)
    idx = np.array([info.min, info.max, -1, 0, 7, 1 << 40], np.int64)
    for x in (st.from_numpy(idx), st.from_numpy(np.concatenate([idx, idx]))[6:]):  # (an offset view too)
        with st.watch():
            general = st.unravel_index(x, (3, 5, 7))
        _same(st.unravel_index(x, (3, 5, 7)), general, torch.unravel_index(torch.from_numpy(idx), (3, 5, 7)))
    x = st.from_numpy(idx)
    with st.watch() as w:
        st.unravel_index(x, (3, 4))
    assert [s.name for s in w.steps] == ["unravel_index"]  # (one record: its inner ops fold into it)


@settings(max_examples=80, deadline=None)
@given(lead=hs.lists(hs.integers(1, 5), min_size=2, max_size=4), dims=hs.lists(hs.integers(1, 9), min_size=1, max_size=3),
       seed=hs.integers(0, 2**32 - 1), data=hs.data())
def test_permuted_inputs_keep_torchs_layout(lead, dims, seed, data):
    """A transposed or permuted index tensor (size-1 dims too, which the general path takes): the
    coordinates laid out as PyTorch's TensorIterator lays them out, each at ndim times its place."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(dims))
    perm = data.draw(hs.permutations(range(len(lead))))
    idx = rng.integers(-2 * n, 2 * n, tuple(lead), dtype=np.int64).transpose(perm)
    x = st.from_numpy(np.ascontiguousarray(idx.transpose(np.argsort(perm)))).permute(*perm)
    assert x.numpy().tolist() == idx.tolist()
    with st.watch():
        general = st.unravel_index(x, tuple(dims))
    theirs = torch.unravel_index(torch.from_numpy(np.ascontiguousarray(idx.transpose(np.argsort(perm)))).permute(*perm),
                                 tuple(dims))
    _same(st.unravel_index(x, tuple(dims)), general, theirs)
