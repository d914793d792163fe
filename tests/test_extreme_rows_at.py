"""amax / amin along the unit-stride dim of a large 2-d float tensor: one compiled call
(``extreme_rows_at``, kernels/_extreme_rows_at.h, with the AVX-512 rows of _extreme_rows_z.h)
from :func:`strided.ops._support.fast_reduce.row_extremes`.

Every result is PyTorch's (values, NaN bits, the sign of a zero extreme, dtype, shape, strides)
and NumPy's where NumPy has the op: NaN at each place a vector loop splits a row (head before
the first 64-byte boundary, the four-vector body, the one-vector loop, the masked tail), -0.0
and 0.0 ties, infinities, rows shorter than a vector, odd lengths, rows starting off a cache
line (a storage offset), a transpose, keepdim; and the kernel itself, in each compiled copy
(STRIDED_NATIVE_ROWS_ISA), gives NumPy's extreme of each row or a zero / NaN where that is the
extreme."""

from __future__ import annotations

import numpy as np
import pytest

import strided as st
from strided.kernels import rows
from strided.ops._support import fast_reduce

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.skipif(rows._kernel_module() is None, reason="the row kernel is not built")

_LENGTHS = (1, 3, 7, 15, 16, 17, 33, 63, 64, 65, 100, 129, 250, 1000, 1001, 4099)


def _matrix(length: int, dtype: np.dtype, seed: int) -> np.ndarray:
    """Rows of ``length`` random values (at least rows.MIN_ELEMENTS elements in all)."""
    count = max(3, -(-rows.MIN_ELEMENTS // length))
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((count, length)) * 10.0 ** rng.integers(-3, 3, (count, length))).astype(dtype)


def _with_specials(x: np.ndarray) -> np.ndarray:
    """``x`` with NaN, infinities, all-zero rows of both signs and ties at every place a row
    splits: row 0 NaN first, row 1 NaN last, row 2 NaN in the middle, row 3 all -0.0 but one
    0.0, row 4 all 0.0 and -0.0 over negatives, row 5 +inf, row 6 -inf everywhere, row 7 NaN at
    element 16 and 64 (a vector's and a block's first), the rest as drawn."""
    x = x.copy()
    n = x.shape[1]
    specials = [(0, [0], np.nan), (1, [n - 1], np.nan), (2, [n // 2], np.nan)]
    for row, where, value in specials:
        if row < len(x):
            x[row, where] = value
    if len(x) > 4:
        x[3] = -0.0
        x[3, n // 3] = 0.0
        x[4] = -np.abs(x[4])
        x[4, :: 2] = -0.0
        x[4, 1 :: 2] = 0.0 if n > 1 else -0.0
    if len(x) > 6:
        x[5, n // 2] = np.inf
        x[6] = -np.inf
    if len(x) > 7:
        for i in (16, 64):
            if i < n:
                x[7, i] = np.nan
    return x


def _same(got: st.Tensor, want: torch.Tensor) -> None:
    w = want.numpy()
    g = got.numpy()
    assert got.shape == tuple(want.shape) and got.stride() == want.stride() and g.dtype == w.dtype
    assert g.tobytes() == w.tobytes(), np.flatnonzero(g.view(np.uint8) != w.view(np.uint8))[:10]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("length", _LENGTHS)
def test_rows_give_torchs_bits(dtype, length, torch_threads_as_assumed) -> None:
    base = _matrix(length, np.dtype(dtype), length)
    for x in (base, _with_specials(base)):
        for op in ("amax", "amin"):
            for keepdim in (False, True):
                s, t = st.tensor(x), torch.tensor(x)
                _same(getattr(s, op)(1, keepdim), getattr(t, op)(1, keepdim))
                _same(getattr(s, op)(-1, keepdim=keepdim), getattr(t, op)(-1, keepdim=keepdim))
                # the transpose, reduced along its unit-stride dim 0
                _same(getattr(s.T, op)(0, keepdim), getattr(t.T, op)(0, keepdim))
                _same(getattr(st, op)(s.T, dim=-2, keepdim=keepdim), getattr(torch, op)(t.T, dim=-2, keepdim=keepdim))
                want = (np.maximum if op == "amax" else np.minimum).reduce(x, 1, keepdims=keepdim)
                got = getattr(s, op)(1, keepdim).numpy()
                nan = np.isnan(want)
                assert np.array_equal(np.isnan(got), nan) and np.array_equal(got[~nan], want[~nan])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_rows_at_a_storage_offset_and_with_a_gap(dtype, torch_threads_as_assumed) -> None:
    """Rows starting off a 64-byte boundary (a slice one element in), and rows with a gap
    between them (a column slice): the head's masked load, the row stride."""
    x = _with_specials(_matrix(1003, np.dtype(dtype), 1))
    s, t = st.tensor(x), torch.tensor(x)
    for sl in ((slice(1, None), slice(None)), (slice(None), slice(1, None)), (slice(None), slice(5, 900)),
               (slice(2, None, 2), slice(None)), (slice(None), slice(3, 20))):
        for op in ("amax", "amin"):
            _same(getattr(s[sl], op)(1), getattr(t[sl], op)(1))
            _same(getattr(s[sl].T, op)(0), getattr(t[sl].T, op)(0))


def test_the_compiled_call_is_taken_and_refuses_what_it_cannot_read(monkeypatch) -> None:
    """The rows' call answers for a row-major float matrix and its transpose; an unaligned buffer,
    another dtype, a negative stride or a small tensor go to the general path with its answer."""
    calls: list[tuple] = []
    real = rows.extreme_rows_at

    def spy() -> object:
        run = real()
        return None if run is None else lambda *a: calls.append((*a[1:5], run(*a))) or calls[-1][-1]

    monkeypatch.setattr(rows, "extreme_rows_at", spy)
    x = np.random.default_rng(3).standard_normal((40, 1000)).astype(np.float32)
    s = st.tensor(x)
    assert s.amax(1).tolist() == np.max(x, 1).tolist() and calls[-1] == (0, 40, 1000, 1000, 0)
    assert s.T.amin(0).tolist() == np.min(x, 1).tolist() and calls[-1] == (0, 40, 1000, 1000, 0)
    assert s[1:, 2:].amin(1).tolist() == np.min(x[1:, 2:], 1).tolist() and calls[-1] == (1002, 39, 1000, 998, 0)
    buf = np.zeros(x.nbytes + 8, np.uint8)
    buf[1 : 1 + x.nbytes] = x.view(np.uint8).reshape(-1)
    odd = np.frombuffer(buf.data, np.float32, x.size, 1).reshape(x.shape)
    assert not odd.flags.aligned
    assert st.from_numpy(odd).amax(1).tolist() == np.max(x, 1).tolist()
    assert calls[-1][-1] == -1  # (the kernel refused it: the general path)
    before = len(calls)
    assert st.tensor(x.astype(np.float16)).amax(1).numpy().tobytes() == torch.tensor(x.astype(np.float16)).amax(1).numpy().tobytes()
    assert st.as_strided(s, (40, 1000), (0, 1)).amax(1).tolist() == [np.max(x[0])] * 40  # (rows repeating)
    assert st.tensor(x[:4, :100]).amax(1).tolist() == np.max(x[:4, :100], 1).tolist()
    assert fast_reduce.row_extremes(st.tensor(x[:4, :100]), 1, False, 1, None) is None
    assert len(calls) == before


def test_the_kernel_off_gives_the_same_bits(torch_threads_as_assumed) -> None:
    from strided.kernels import native

    x = _with_specials(_matrix(100, np.dtype(np.float32), 9))
    s = st.tensor(x)
    with native.disabled():
        off = [s.amax(1), s.amin(1), s.T.amax(0)]
    on = [s.amax(1), s.amin(1), s.T.amax(0)]
    assert all(a.numpy().tobytes() == b.numpy().tobytes() for a, b in zip(on, off))


_SCRIPT = r"""
import numpy as np
from strided.kernels import rows
k = rows._kernel_module().extreme_rows_at
rng = np.random.default_rng(7)
bad = []
for dt in ("f4", "f8"):
    for length in (1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 1000, 4097):
        count = 40
        store = rng.standard_normal(count * (length + 3) + 5).astype(dt)
        for offset in (0, 1, 2, 3, 5):
            for stride in (length, length + 3):
                n = offset + (count - 1) * stride + length
                x = store[:n]
                view = np.lib.stride_tricks.as_strided(x[offset:], (count, length), (stride * x.itemsize, x.itemsize))
                for mode, red in ((0, np.minimum.reduce), (1, np.maximum.reduce)):
                    out = np.empty(count, dt)
                    unsure = k(x, offset, count, stride, length, out, mode)
                    want = red(view, 1)
                    if unsure != 0 or out.tobytes() != want.tobytes():
                        bad.append((dt, length, offset, stride, mode))
                # a NaN at each position of row 1: the row's result is NaN, the others exact
                for where in range(length):
                    y = view.copy()
                    y[1, where] = np.nan
                    flat = y.reshape(-1)
                    out = np.empty(count, dt)
                    unsure = k(flat, 0, count, length, length, out, 1)
                    want = np.maximum.reduce(y, 1)
                    if unsure != 1 or not np.isnan(out[1]) or np.delete(out, 1).tobytes() != np.delete(want, 1).tobytes():
                        bad.append((dt, length, "nan", where))
                        break
        # refused: outside the buffer, a negative stride, another type, count 0
        x = store[: count * length]
        out = np.empty(count, dt)
        if (k(x, 1, count, length, length, out, 1) != -1 or k(x, 0, count, -length, length, out, 1) != -1
                or k(x.astype(np.float16), 0, count, length, length, out, 1) != -1 or k(x, 0, 0, length, length, out, 1) != -1
                or k(x, 0, count, length, length, out[:-1], 1) != -1):
            bad.append((dt, length, "refusal"))
print("BAD", bad)
"""


@pytest.mark.parametrize("isa", ["base", "avx2", "avx512"])
def test_every_copy_of_the_rows_loop_gives_numpys_extremes(isa: str, run_with_rows_isa) -> None:
    assert run_with_rows_isa(_SCRIPT, isa) == "BAD []"
