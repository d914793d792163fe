"""as_strided_copy's fast path (``strided.ops.copies._fast_as_strided_copy``): a remembered
in-bounds layout (past the small copies' 64 KiB: the blocked copy into a fresh result) gives
PyTorch's values (every bit), shape and strides, the bytes of the copy with the compiled kernels
off, and the same errors and copy report (a listener takes the general path)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

import strided as st
from strided.kernels import native

DTYPES = [np.float32, np.float64, np.uint8, np.int16, np.complex64]


def _data(n: int, dtype: type) -> np.ndarray:
    a = (np.random.RandomState(n % 97).randn(n) * 50)
    a = (a + 1j * a[::-1]) if dtype is np.complex64 else a
    a = a.astype(dtype)
    if np.issubdtype(dtype, np.floating) and n > 2:
        a[0], a[1], a[-1] = -0.0, np.nan, np.inf
    return a


def _bases(a: np.ndarray, rows: int, cols: int) -> list[tuple[st.Tensor, torch.Tensor]]:
    """The same storage seen row-major, sliced (offset and step), transposed and expanded."""
    s, t = st.tensor(a), torch.from_numpy(a.copy())
    s2, t2 = s.reshape(rows, cols), t.reshape(rows, cols)
    return [(s, t), (s2[1:, 2:], t2[1:, 2:]), (s2[::2], t2[::2]), (s2.t(), t2.t()),
            (s2[:1].expand(5, cols), t2[:1].expand(5, cols))]


def _same(got: st.Tensor, want: torch.Tensor) -> None:
    assert got.shape == tuple(want.shape) and got.stride() == want.stride()
    assert got.numpy().dtype == want.numpy().dtype
    assert got.numpy().tobytes() == np.ascontiguousarray(want.numpy()).tobytes()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=hs.data(), dtype=hs.sampled_from(DTYPES))
def test_large_in_bounds_layouts_match_torch_and_the_blocked_copy(data, dtype, torch_threads_as_assumed) -> None:
    rows, cols = 256, 512
    a = _data(rows * cols, dtype)
    which = data.draw(hs.integers(0, 4))
    s, t = _bases(a, rows, cols)[which]
    n = a.size
    inner = data.draw(hs.sampled_from([1, 2, 3, 16, 64, 256, 300, 512]))
    inner_stride = data.draw(hs.sampled_from([1, 1, 1, 0, 2]))
    mid = data.draw(hs.integers(0, 4))
    outer_stride = data.draw(hs.sampled_from([0, inner, inner + 1, 2 * inner, 3 * inner + 5]))
    span_inner = (inner - 1) * inner_stride + 1
    room = n - span_inner
    outer = data.draw(hs.integers(0, max(0, room // max(outer_stride, 1)) + 1 if outer_stride else 300))
    size = (outer, mid, inner) if data.draw(hs.booleans()) else (outer * max(mid, 1), inner)
    stride = (outer_stride, 7, inner_stride)[-len(size):] if len(size) == 3 else (outer_stride, inner_stride)
    offset = data.draw(hs.sampled_from([None, 0, 1, 5]))
    args = (size, stride) if offset is None else (size, stride, offset)
    try:
        want = torch.as_strided_copy(t, *args)
    except RuntimeError:
        for _ in range(2):  # (the second call asks the memo)
            with pytest.raises(RuntimeError):
                st.as_strided_copy(s, *args)
        return
    for _ in range(2):
        got = st.as_strided_copy(s, *args)
        _same(got, want)
    with native.disabled():  # (NumPy's copies: the same bytes)
        assert st.as_strided_copy(s, *args).numpy().tobytes() == got.numpy().tobytes()
    with st.watch() as seen:  # (a listener: the general path, reported once)
        _same(st.as_strided_copy(s, *args), want)
    assert [x.name for x in seen.steps] == ["as_strided_copy"]



@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("rows,cols,stride", [(512, 1024, 2048), (2048, 64, 128), (300, 256, 300), (1000, 300, 301),
                                               (64, 1024, 0), (512, 255, 512)])
def test_rows_of_runs_match_torch(dtype, rows, cols, stride, torch_threads_as_assumed) -> None:
    """The common case (every other row of a matrix; rows 0-strided, overlapping, short) on the
    first call (the general path) and the memo's (the fast path): torch's bytes and strides."""
    a = _data(1024 * 1024, dtype)
    s, t = st.tensor(a), torch.from_numpy(a.copy())
    args = ((rows, cols), (stride, 1))
    for _ in range(2):  # (the first call may be the general path's: the memo learns the layout)
        _same(st.as_strided_copy(s, *args), torch.as_strided_copy(t, *args))


@pytest.mark.parametrize("args", [((512, 1024), (2048, 1), 1 << 20), ((513, 1024), (2048, 1)), ((512, 1024), (-1, 1)),
                                  ((-512, 1024), (2048, 1)), ((512, 1024), (2048, 1), -1),
                                  ((512, 1024), (2048,)), ((1 << 20, 1 << 20), (0, 0))])
def test_errors_are_torch_classes(args, torch_threads_as_assumed) -> None:
    """Out of bounds, negative sizes, strides and offsets, a stride count that differs, and a
    result too large to allocate: torch's error classes, on the first call and the memo's."""
    a = _data(1 << 20, np.float32)
    s, t = st.tensor(a), torch.from_numpy(a.copy())
    with pytest.raises(Exception) as want:
        torch.as_strided_copy(t, *args)
    for _ in range(2):
        with pytest.raises(Exception) as got:
            st.as_strided_copy(s, *args)
        assert isinstance(got.value, type(want.value)), (got.value, want.value)


def test_zero_size_and_0d(torch_threads_as_assumed) -> None:
    a = _data(1 << 17, np.float32)
    s, t = st.tensor(a), torch.from_numpy(a.copy())
    for args in (((0, 1024), (2048, 1)), ((), (), 7), ((), ()), ((1024, 0), (1, 1)), ((70000,), (1,), 5)):
        for _ in range(2):
            _same(st.as_strided_copy(s, *args), torch.as_strided_copy(t, *args))
