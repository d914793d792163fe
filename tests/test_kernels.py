"""Kernels read inputs in place: arg-extremes of expanded and permuted inputs, the one copy path."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
import torch

import strided as st
from strided.creation import borrow_array  # (any strides: from_numpy refuses negative ones, as PyTorch)
from strided.kernels import copy_to_new, new_storage, numpy_view, record_copies


def _values(t: st.Tensor) -> np.ndarray:
    return np.asarray(t.tolist())


@pytest.mark.parametrize("op", ["argmax", "argmin", "max", "min"])
@pytest.mark.parametrize("dim", [0, 1])
def test_arg_extremes_of_an_expanded_input_read_only_the_real_data(op: str, dim: int) -> None:
    """A (10000, 1000) expand of 1000 floats holds 4 KB of real data: argmax along either dim
    must not materialize the 40 MB view (NumPy's argmax would copy it silently)."""
    x = st.arange(1000.0).view(1, 1000).expand(10000, 1000)
    tx = torch.arange(1000.0).view(1, 1000).expand(10000, 1000)
    getattr(x, op)(dim)  # warm up caches outside the measurement
    tracemalloc.start()
    try:
        with record_copies() as copies:
            result = getattr(x, op)(dim)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1_000_000, f"{op}({dim}) peaked at {peak} bytes"
    assert copies == []
    expected = getattr(tx, op)(dim)
    if op in ("max", "min"):
        np.testing.assert_array_equal(_values(result.values), expected.values.numpy())
        np.testing.assert_array_equal(_values(result.indices), expected.indices.numpy())
    else:
        np.testing.assert_array_equal(_values(result), expected.numpy())


def test_argmax_flat_of_an_expanded_input_reads_only_the_real_data() -> None:
    x = st.arange(999.0, -1.0, -1.0).view(1000, 1).expand(1000, 10000)
    tx = torch.arange(999.0, -1.0, -1.0).view(1000, 1).expand(1000, 10000)
    tracemalloc.start()
    try:
        got = x.argmin()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1_000_000
    assert got.item() == tx.argmin().item() == 999 * 10000


def test_argmax_of_a_permuted_input_makes_its_copy_explicit() -> None:
    """The reduced dim of a transpose is strided: NumPy needs it contiguous, so strided copies
    it once, through the ledger, with the reason; along the other dim nothing is copied."""
    data = np.random.default_rng(0).permutation(12).astype(np.float32).reshape(3, 4)
    x = st.tensor(data).t()  # shape (4, 3), strides (1, 4)
    tx = torch.tensor(data).t()
    with record_copies() as copies:
        along_rows = x.argmax(1)
    assert [(c.nbytes, c.shape) for c in copies] == [(48, (4, 3))]
    assert copies[0].reason == "argmax: NumPy's argmax needs the reduced dim contiguous"
    assert "test_kernels.py:" in copies[0].where
    np.testing.assert_array_equal(_values(along_rows), tx.argmax(1).numpy())
    with record_copies() as copies:
        along_cols = x.argmin(0)
        values, indices = x.max(0)
    assert copies == []
    np.testing.assert_array_equal(_values(along_cols), tx.argmin(0).numpy())
    np.testing.assert_array_equal(_values(values), tx.max(0).values.numpy())
    np.testing.assert_array_equal(_values(indices), tx.max(0).indices.numpy())


@pytest.mark.parametrize("keepdim", [False, True])
def test_arg_extremes_mixed_layouts_match_torch(keepdim: bool) -> None:
    """Expanded + permuted + stepped, with NaN and ties: every dim, both ops, vs PyTorch."""
    base = np.array([[3.0, 1.0, 3.0, np.nan], [0.0, 0.0, -1.0, 2.0], [5.0, 5.0, 4.0, 4.0]], dtype=np.float32)
    x = st.tensor(base).permute(1, 0)[::-1].unsqueeze(1).expand(4, 3, 3)
    tx = torch.tensor(base).permute(1, 0).flip(0).unsqueeze(1).expand(4, 3, 3)
    for d in range(3):
        for op in ("argmax", "argmin"):
            np.testing.assert_array_equal(_values(getattr(x, op)(d, keepdim)), getattr(tx, op)(d, keepdim).numpy())
        for op in ("max", "min"):
            got, want = getattr(x, op)(d, keepdim), getattr(tx, op)(d, keepdim)
            np.testing.assert_array_equal(_values(got.values), want.values.numpy())
            np.testing.assert_array_equal(_values(got.indices), want.indices.numpy())
    assert x.argmax().item() == tx.argmax().item() and x.argmin().item() == tx.argmin().item()


def test_every_copy_goes_through_the_ledger() -> None:
    """resize_ growing a storage, __array__ with a copy or a cast, and an overlapping 1-d write.

    NumPy itself reads ``__array_interface__`` (a share) and makes its copies and casts on its own
    side (no record); a caller of ``__array__`` asking for a copy or a cast gets strided's copy."""
    t = st.arange(4.0)
    with record_copies() as copies:
        t.resize_(8)
    assert [(c.nbytes, c.reason) for c in copies] == [(16, "resize_ grew storage to 8 elements")]
    assert t[:4].tolist() == [0.0, 1.0, 2.0, 3.0]

    t = st.arange(6.0)
    with record_copies() as copies:
        a = t.__array__(copy=True)
        b = t.__array__(np.float64)
        c = t.__array__()
    assert [c_.nbytes for c_ in copies] == [24, 48]
    assert all(r.reason.startswith("__array__") for r in copies)
    with record_copies() as numpys:
        np.array(t, copy=True), np.asarray(t, dtype=np.float64), np.asarray(t)
    assert numpys == []  # NumPy's own copies, through __array_interface__
    assert not np.shares_memory(a, numpy_view(t._storage, t._layout)) and b.dtype == np.float64
    assert np.shares_memory(c, numpy_view(t._storage, t._layout))

    t = st.arange(8.0)
    with record_copies() as copies:
        t[:4] = t[::2]  # destination stride 1 < source stride 2, both walking forward
    theirs = torch.arange(8.0)
    theirs[:4] = theirs[::2]
    assert t.tolist() == theirs.tolist() == [0.0, 2.0, 4.0, 6.0, 4.0, 5.0, 6.0, 7.0]
    assert len(copies) == 1 and copies[0].reason.startswith("write: the source overlaps")


def test_new_storage_and_copy_to_new_contracts() -> None:
    s = new_storage(6, np.dtype(np.int32), (2, 3))
    assert s.size() == 6 and s.array.dtype == np.int32
    source = np.arange(6, dtype=np.int64).reshape(2, 3).T
    with record_copies() as copies:
        copied = copy_to_new(source, (1, 3), np.dtype(np.float32), "test", capacity=10)
    assert copied.size() == 10 and copies[0].nbytes == 24
    np.testing.assert_array_equal(copied.array[:6].reshape(2, 3).T, source)


@pytest.mark.parametrize(
    "make",
    [
        lambda a: a.T,  # a plain transpose: the tiled path
        lambda a: a[::-1, ::2].T,  # negative and stepped strides
        lambda a: a.reshape(8, 256, 256).transpose(2, 0, 1),  # 3-d, innermost dims disagree
        lambda a: np.broadcast_to(a[:1], a.shape).T,  # an expanded (stride-0) source
    ],
)
@pytest.mark.parametrize("dtype", ["float32", "float16", "int64"])
def test_large_transposing_copies_are_exact(make, dtype):
    # copies of >= 2**18 elements whose memory orders disagree are made tile by tile
    base = np.arange(512 * 1024, dtype=np.float64).reshape(512, 1024) % 1000
    view = make(base)
    copied = borrow_array(view, "from_numpy").to(getattr(st, dtype)).contiguous()
    np.testing.assert_array_equal(copied.numpy(), view.astype(dtype))
    assert copied.is_contiguous() and not np.shares_memory(copied.numpy(), base)
