"""The faster kernels behind gather / scatter / sort / topk / stack give PyTorch's results on the
cases their shortcuts have to get right: positions computed block by block (many blocks, a
negative stride along dim 0, a bad index found in a later block), topk by a threshold (ties with
the k-th value in some rows, NaN, -0.0, smallest), sort's gather on the flat storage, stack along
a new last dim. Blocks are made small here (``BLOCK``) so that small inputs cross many of them."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

import strided as st
from strided.ops._support import index_common
from strided.ops.indexing.gather_scatter import gather
from strided.ops.shape.joining import stack
from strided.ops.shape.sorting import msort, sort, topk

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))


@pytest.fixture(autouse=True)
def small_blocks(monkeypatch):
    monkeypatch.setattr(index_common, "BLOCK", 16)


def _both(arr: np.ndarray, flip: bool, transpose: bool):
    """The same values as a torch tensor and as a strided tensor whose layout is flipped along
    dim 0 (a negative stride) and/or transposed: strided reads it in place."""
    base = np.ascontiguousarray(arr[::-1] if flip else arr)
    if transpose:
        base = np.ascontiguousarray(base.T)
    s = st.from_numpy(base.copy())
    if transpose:
        s = s.t()
    if flip:
        s = s[::-1]
    assert np.array_equal(s.numpy(), arr, equal_nan=True)
    if flip:  # (torch cannot view a negative stride: its tensor is a contiguous copy)
        return torch.from_numpy(arr.copy()), s
    t = torch.from_numpy(base.copy())
    return (t.t() if transpose else t), s


@SETTINGS
@given(seed=hs.integers(0, 2**16), rows=hs.integers(1, 9), cols=hs.integers(1, 9), dim=hs.integers(0, 1),
       flip=hs.booleans(), transpose=hs.booleans())
def test_gather_in_blocks_matches_torch(seed, rows, cols, dim, flip, transpose):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((rows, cols)).astype(np.float32)
    ta, sa = _both(a, flip, transpose)
    size = a.shape[dim]
    ishape = (rng.integers(1, rows + 1), cols) if dim == 0 else (rows, rng.integers(1, 2 * cols + 1))
    index = rng.integers(0, size, ishape)
    got = gather(sa, dim, st.from_numpy(index)).numpy()
    want = ta.gather(dim, torch.from_numpy(index)).numpy()
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("bad", [9, -1, 2**62])
def test_gather_bad_index_in_a_later_block_is_refused(bad):
    a = st.from_numpy(np.arange(40.0).reshape(8, 5))
    index = np.zeros((8, 5), np.int64)
    index[6, 3] = bad  # far past the first block of 16 positions
    with pytest.raises(RuntimeError) as err:
        gather(a, 1, st.from_numpy(index))
    first = str(err.value).splitlines()[0]
    assert first == f"index {bad} is out of bounds for dimension 1 with size 5"
    with pytest.raises(RuntimeError, match=f"index {bad} is out of bounds"):
        torch.from_numpy(np.arange(40.0).reshape(8, 5)).gather(1, torch.from_numpy(index))


@SETTINGS
@given(seed=hs.integers(0, 2**16), dim=hs.integers(0, 1), flip=hs.booleans())
def test_scatter_add_in_blocks_is_torch_bit_for_bit(seed, dim, flip):
    # float32 accumulates in index order in both (np.add.at is sequential): equal, not close
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((7, 6)).astype(np.float32)
    ta, sa = _both(a, flip, False)
    index = rng.integers(0, a.shape[dim], (7, 6))
    src = (rng.standard_normal((7, 6)) * 10.0 ** rng.integers(-4, 5, (7, 6))).astype(np.float32)
    ta.scatter_add_(dim, torch.from_numpy(index), torch.from_numpy(src))
    sa.scatter_add_(dim, st.from_numpy(index), st.from_numpy(src))
    np.testing.assert_array_equal(sa.numpy(), ta.numpy())


@pytest.mark.parametrize("dtype", ["float32", "int64", "uint8"])
@pytest.mark.parametrize("reduce", ["add", "multiply"])
def test_scatter_value_reduce_matches_torch(dtype, reduce):
    index = np.array([[0, 1, 1, 3], [2, 2, 2, 0]])
    ts = torch.ones(2, 4, dtype=getattr(torch, dtype)).scatter_(1, torch.from_numpy(index), 3, reduce=reduce)
    ss = st.ones(2, 4, dtype=getattr(st, dtype)).scatter_(1, st.from_numpy(index), value=3, reduce=reduce)
    np.testing.assert_array_equal(ss.numpy(), ts.numpy())


def _topk_data(rng: np.random.Generator, kind: str, shape: tuple[int, ...], dtype: str) -> np.ndarray:
    x = rng.standard_normal(shape)
    if kind == "ties":
        x = np.round(x * 2)  # many equal values: ties with the k-th in most rows
    elif kind == "nan":
        x[rng.random(shape) < 0.15] = np.nan
    elif kind == "zeros":
        x[rng.random(shape) < 0.3] = 0.0
        x[rng.random(shape) < 0.3] = -0.0
    return x.astype(dtype)


@SETTINGS
@given(seed=hs.integers(0, 2**16), kind=hs.sampled_from(["plain", "ties", "nan", "zeros"]),
       dtype=hs.sampled_from(["float32", "float64", "float16"]), largest=hs.booleans(),
       dim=hs.integers(-2, 1), flip=hs.booleans(), transpose=hs.booleans())
def test_topk_by_threshold_matches_torch(seed, kind, dtype, largest, dim, flip, transpose):
    rng = np.random.default_rng(seed)
    x = _topk_data(rng, kind, (int(rng.integers(2, 7)), int(rng.integers(2, 9))), dtype)
    tx, sx = _both(x, flip, transpose)
    k = int(rng.integers(1, x.shape[dim]))  # 0 < k < n: the partition path
    tv, _ = tx.topk(k, dim, largest)
    v, i = topk(sx, k, dim, largest)
    # the values exactly (NaN where torch has NaN); the indices point at them, each once
    np.testing.assert_array_equal(v.numpy(), tv.numpy())
    ii = i.numpy()
    np.testing.assert_array_equal(np.take_along_axis(x, ii, axis=dim), v.numpy())
    srt = np.sort(np.moveaxis(ii, dim, -1), axis=-1)
    assert (np.diff(srt, axis=-1) > 0).all()


def test_topk_rows_with_ties_at_the_threshold():
    # row 1 ties with its 2nd largest (two 5s), row 0 does not: both right, indices distinct
    x = np.array([[1.0, 7.0, 3.0, 2.0], [5.0, 1.0, 5.0, 9.0], [np.nan, 0.0, 4.0, -1.0]], np.float32)
    v, i = topk(st.from_numpy(x), 2)
    tv, _ = torch.from_numpy(x).topk(2)
    np.testing.assert_array_equal(v.numpy(), tv.numpy())
    assert i.numpy()[0].tolist() == [1, 2] and i.numpy()[2].tolist() == [0, 2]
    assert sorted(i.numpy()[1].tolist()) in ([0, 3], [2, 3]) and i.numpy()[1][0] == 3


@SETTINGS
@given(seed=hs.integers(0, 2**16), dim=hs.integers(-2, 1), descending=hs.booleans(), flip=hs.booleans(),
       transpose=hs.booleans())
def test_stable_sort_gathers_values_on_the_storage(seed, dim, descending, flip, transpose):
    rng = np.random.default_rng(seed)
    x = np.round(rng.standard_normal((int(rng.integers(1, 7)), int(rng.integers(1, 7)))), 1).astype(np.float32)
    tx, sx = _both(x, flip, transpose)
    tv, ti = tx.sort(stable=True, dim=dim, descending=descending)
    v, i = sort(sx, dim=dim, descending=descending, stable=True)
    np.testing.assert_array_equal(v.numpy(), tv.numpy())
    np.testing.assert_array_equal(i.numpy(), ti.numpy())
    if not flip:
        assert v.stride() == tv.stride() and i.stride() == ti.stride()


@pytest.mark.parametrize("transpose", [False, True])
def test_stack_new_last_dim_matches_torch(transpose):
    arrays = [np.arange(12.0).reshape(3, 4) * (j + 1) for j in range(3)]
    ts = [torch.from_numpy(a) for a in arrays]
    ss = [st.from_numpy(a) for a in arrays]
    if transpose:
        ts, ss = [t.t() for t in ts], [s.t() for s in ss]
    want = torch.stack(ts, 2)
    got = stack(ss, 2)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert got.shape == tuple(want.shape) and got.stride() == want.stride()
    with st.record_copies() as c:
        stack(ss, -1)
    assert len(c) == 1 and c[0].nbytes == 3 * 12 * 8


@SETTINGS
@given(seed=hs.integers(0, 2**16), kind=hs.sampled_from(["plain", "ties", "nan", "zeros"]), flip=hs.booleans(),
       transpose=hs.booleans())
def test_msort_values_match_torch(seed, kind, flip, transpose):
    rng = np.random.default_rng(seed)
    x = _topk_data(rng, kind, (int(rng.integers(1, 7)), int(rng.integers(1, 7))), "float32")
    tx, sx = _both(x, flip, transpose)
    got, want = msort(sx), torch.msort(tx)
    np.testing.assert_array_equal(got.numpy(), want.numpy())  # (-0.0 == 0.0: a tie, either order)
    if not flip:
        assert got.stride() == want.stride()
