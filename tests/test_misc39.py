"""Session 39's fast paths for large permuted inputs (issue 23), each against PyTorch and against
strided's own general path:

- ``to(dtype)`` / the dtype shorthands of a permuted dense tensor cast its storage run in memory
  order and keep its strides (``ops.conversions._plain_cast``);
- ``index_select`` of a permuted dense input takes along the run seen in memory order, then
  copies into row-major order (``ops.indexing.index_ops._take_in_memory_order``).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import strided as s
from strided.ops import copies
from strided.ops.indexing import index_ops

torch = pytest.importorskip("torch")

_PLAIN = ["float32", "float64", "int32", "int64"]


def _pair(a: np.ndarray, perm: tuple[int, ...]) -> tuple[s.Tensor, torch.Tensor]:
    """The same permuted view of ``a``'s memory in strided and PyTorch."""
    return s.from_numpy(a.copy()).permute(*perm), torch.from_numpy(a.copy()).permute(*perm)


def _values(rng: np.random.Generator, shape: tuple[int, ...], dtype: str) -> np.ndarray:
    if dtype.startswith("float"):
        return rng.standard_normal(shape).astype(dtype) * 1000
    return rng.integers(-(2 ** 31), 2 ** 31, shape).astype(dtype)


@st.composite
def _permuted(draw: st.DrawFn) -> tuple[tuple[int, ...], tuple[int, ...]]:
    ndim = draw(st.integers(2, 4))
    shape = tuple(draw(st.lists(st.integers(2, 6), min_size=ndim, max_size=ndim)))
    perm = tuple(draw(st.permutations(range(ndim))))
    return shape, perm


# ---------------------------------------------------------------- to(dtype) of a permuted tensor


@settings(max_examples=60, deadline=None)
@given(_permuted(), st.sampled_from(_PLAIN), st.sampled_from(_PLAIN), st.integers(0, 2 ** 32 - 1))
def test_to_permuted_matches_torch(layout, src, dst, seed) -> None:
    shape, perm = layout
    a = _values(np.random.default_rng(seed), shape, src)
    if src.startswith("float") and dst.startswith("int"):
        a = np.trunc(a)  # (in range: C leaves an out-of-range float's integer undefined)
    x, t = _pair(a, perm)
    got, want = x.to(getattr(s, dst)), t.to(getattr(torch, dst))
    assert got.stride() == want.stride()
    assert got.storage_offset() == 0
    assert str(got.dtype) == "strided." + dst
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    shared = want.untyped_storage().data_ptr() == t.untyped_storage().data_ptr()  # (the same dtype: self)
    assert (got._storage is x._storage) == shared and (got is x) == (want is t)


@pytest.mark.parametrize("src", _PLAIN)
@pytest.mark.parametrize("dst", _PLAIN)
def test_to_permuted_same_bits_as_general_path(src: str, dst: str) -> None:
    """The fast cast of the run against the general copy (the path a listener's call takes),
    with NaN, infinities and out-of-range values where the source is a float."""
    a = _values(np.random.default_rng(3), (5, 7, 3), src)
    if src.startswith("float"):
        a.reshape(-1)[:8] = [np.nan, np.inf, -np.inf, 3e9, -3e9, 1e20, -0.0, 2.5]
    x = s.from_numpy(a).permute(2, 0, 1)
    with np.errstate(all="ignore"):
        fast = x.to(getattr(s, dst))
        general = copies.as_dtype(x, getattr(s, dst), copy=True)
        short = getattr(x, {"float32": "float", "float64": "double", "int32": "int", "int64": "long"}[dst])()
    assert fast.stride() == general.stride() == short.stride() == x.stride()
    assert fast.numpy().tobytes(order="A") == general.numpy().tobytes(order="A") == short.numpy().tobytes(order="A")


def test_to_permuted_not_dense_and_reported() -> None:
    """A sliced transpose is not a dense run (the general path, its strides); a listener still
    sees the conversion's copy with its bytes."""
    a = np.arange(60, dtype=np.float32).reshape(6, 10)
    x, t = s.from_numpy(a.copy()).t()[::2], torch.from_numpy(a.copy()).t()[::2]
    got, want = x.to(s.float64), t.to(torch.float64)
    assert got.stride() == want.stride()
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    y = s.from_numpy(a.copy()).t()
    with s.record_copies() as copied:
        z = y.to(s.float64)
    assert [c.nbytes for c in copied] == [480]
    assert z.stride() == (1, 10)


@pytest.mark.usefixtures("torch_threads_as_assumed")
def test_to_large_transpose() -> None:
    a = np.random.default_rng(1).standard_normal((512, 300)).astype(np.float32)
    x, t = _pair(a, (1, 0))
    got, want = x.to(s.float64), t.to(torch.float64)
    assert got.stride() == want.stride() == (1, 300)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


# ---------------------------------------------------------------- index_select in memory order


@st.composite
def _select_case(draw: st.DrawFn):
    shape, perm = draw(_permuted())
    d = draw(st.integers(0, len(shape) - 1))
    n = shape[perm[d]]
    index = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=9))
    dtype = draw(st.sampled_from(["float32", "float64", "int64", "bool", "complex64", "int8"]))
    return shape, perm, d, index, dtype


@settings(max_examples=80, deadline=None)
@given(_select_case(), st.integers(0, 2 ** 32 - 1))
def test_index_select_memory_order_matches_torch(case, seed) -> None:
    """Every size through the memory-order take (its threshold lowered to 0), against PyTorch."""
    shape, perm, d, index, dtype = case
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal(shape) * 10).astype(dtype) if dtype != "bool" else rng.random(shape) < 0.5
    x, t = _pair(a, perm)
    before = index_ops._MEMORY_ORDER_TAKE_MIN
    index_ops._MEMORY_ORDER_TAKE_MIN = 0
    try:
        got = x.index_select(d, s.tensor(index))
    finally:
        index_ops._MEMORY_ORDER_TAKE_MIN = before
    want = t.index_select(d, torch.tensor(index))
    assert got.shape == tuple(want.shape) and got.stride() == want.stride()
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    np.testing.assert_array_equal(x.numpy(), a.transpose(perm))  # (the input untouched)


def test_take_in_memory_order_refuses() -> None:
    """Only dense runs in some dim order, above the threshold: None for a sliced or broadcast view
    and for a small result (the fancy index then runs)."""
    a = np.zeros((300, 400), np.float32)
    idx = np.arange(300)
    assert index_ops._take_in_memory_order(a.T[:, ::2], idx[:150], 1) is None
    assert index_ops._take_in_memory_order(np.broadcast_to(a[:1], (300, 400)), idx, 0) is None
    assert index_ops._take_in_memory_order(a.T, idx[:3], 1) is None
    assert index_ops._take_in_memory_order(a.T, idx, 1).flags.c_contiguous


@pytest.mark.usefixtures("torch_threads_as_assumed")
@pytest.mark.parametrize("d", [0, 1, 2])
def test_index_select_large_permuted(d: int) -> None:
    a = np.random.default_rng(2).standard_normal((40, 50, 60)).astype(np.float32)
    x, t = _pair(a, (2, 0, 1))
    index = np.random.default_rng(d).integers(0, x.shape[d], 70)
    got = x.index_select(d, s.from_numpy(index))
    want = t.index_select(d, torch.from_numpy(index))
    assert got.stride() == want.stride()
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    with s.record_copies() as copied:  # (a listener's call: the general path, one copy reported)
        again = x.index_select(d, s.from_numpy(index))
    assert [c.nbytes for c in copied] == [again.numel() * 4]
    np.testing.assert_array_equal(again.numpy(), want.numpy())


# ---------------------------------------------------------------- index_copy from a permuted source


def _last_write_wins(base: np.ndarray, d: int, index: list[int], source: np.ndarray) -> np.ndarray:
    """``base`` with ``source``'s slices along ``d`` written at ``index`` one after another (a
    repeated position keeps its last slice: strided's documented choice, PyTorch's undefined)."""
    out = base.copy()
    for k, i in enumerate(index):
        np.moveaxis(out, d, 0)[i] = np.moveaxis(source, d, 0)[k]
    return out


@settings(max_examples=60, deadline=None)
@given(_permuted(), st.data(), st.booleans(), st.integers(0, 2 ** 32 - 1))
def test_index_copy_permuted_source(layout, data, inplace, seed) -> None:
    """Out of place and in place into a row-major target, from a permuted source, repeated
    indices included: the slices in the index's order, the last one winning; PyTorch's values
    where the index does not repeat; row_major's threshold lowered so that every size reads the
    row-major temporary."""
    shape, perm = layout
    rng = np.random.default_rng(seed)
    pshape = tuple(shape[p] for p in perm)
    d = data.draw(st.integers(0, len(shape) - 1))
    n = data.draw(st.integers(1, 8))
    index = data.draw(st.lists(st.integers(0, pshape[d] - 1), min_size=n, max_size=n))
    base = rng.standard_normal(pshape).astype(np.float32)
    sshape = list(shape)
    sshape[perm[d]] = n
    src = rng.standard_normal(sshape).astype(np.float32)
    x = s.from_numpy(base.copy())
    source = s.from_numpy(src.copy()).permute(*perm)
    assert source.shape == pshape[:d] + (n,) + pshape[d + 1:]
    from strided.kernels import blocked
    before = blocked.ROW_MAJOR_MIN
    blocked.ROW_MAJOR_MIN = 0
    try:
        got = x.index_copy_(d, s.tensor(index), source) if inplace else x.index_copy(d, s.tensor(index), source)
    finally:
        blocked.ROW_MAJOR_MIN = before
    want = _last_write_wins(base, d, index, src.transpose(perm))
    np.testing.assert_array_equal(got.numpy(), want)
    assert got.is_contiguous() and (got is x) == inplace
    np.testing.assert_array_equal(source.numpy(), src.transpose(perm))  # (the source untouched)
    if len(set(index)) == n:
        t = torch.from_numpy(base.copy()).index_copy(d, torch.tensor(index), torch.from_numpy(src.copy()).permute(*perm))
        np.testing.assert_array_equal(got.numpy(), t.numpy())


@pytest.mark.usefixtures("torch_threads_as_assumed")
def test_index_copy_large_transposed_source() -> None:
    rng = np.random.default_rng(5)
    base, src = rng.standard_normal((300, 400)).astype(np.float32), rng.standard_normal((400, 300)).astype(np.float32)
    index = rng.permutation(300)
    got = \
        s.from_numpy(base.copy()).index_copy(0, s.from_numpy(index), s.from_numpy(src.copy()).t())
    want = torch.from_numpy(base.copy()).index_copy(0, torch.from_numpy(index), torch.from_numpy(src.copy()).t())
    assert got.stride() == want.stride()
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    with s.record_copies() as copied:  # (the ledger as on main: index_copy's result is not a copy record,
        s.from_numpy(base.copy()).index_copy(0, s.from_numpy(index), s.from_numpy(src.copy()).t())
    assert copied == []  # and the row-major temporary is not reported either)
