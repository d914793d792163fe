"""prod in PyTorch's order (``_specialkernel.torch_prod_rows`` through
``strided.kernels.reduce.line_products``): along the dim innermost in memory and over every element,
float32 / float64, row-major and permuted, row lengths around the 4 x 32-byte block, NaN (either
sign, signaling), inf, zeros of both signs and underflow to subnormals, bit for bit against the
NumPy twin (the kernel disabled), the general path (the compiled path turned off) and PyTorch
(a NaN result: NaN; its sign and payload are NumPy's).
"""

from __future__ import annotations

import struct
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from strided.kernels import native
from strided.kernels.reduce import line_products
from strided.ops.reductions import sums

torch.set_num_threads(1)
pytestmark = pytest.mark.skipif(native.special() is None, reason="the compiled kernel is not built")


def _data(shape: tuple[int, ...], dtype: Any, seed: int) -> np.ndarray:
    r = np.random.default_rng(seed)
    a = r.uniform(0.1, 0.9, shape).astype(dtype)  # (long rows underflow through the subnormals)
    a *= np.where(r.random(shape) < 0.3, -1, 1).astype(dtype)
    if a.size > 40:
        flat = a.reshape(-1)
        flat[5], flat[17], flat[23] = -0.0, np.inf, -np.nan
        flat[31] = struct.unpack("<f", struct.pack("<I", 0x7F800001))[0] if dtype == np.float32 else \
            struct.unpack("<d", struct.pack("<Q", 0x7FF0000000000001))[0]  # (a signaling NaN)
    return a


def _same(a: Any, b: Any) -> None:
    assert (a.shape, a.stride(), a.dtype) == (b.shape, b.stride(), b.dtype)
    assert a.numpy().tobytes() == b.numpy().tobytes()


def _check(a: np.ndarray, perm: tuple[int, ...], monkeypatch: pytest.MonkeyPatch) -> None:
    x = st.tensor(a).permute(*perm)
    t = torch.from_numpy(a).permute(*perm)
    for dim in range(a.ndim):
        for keepdim in (False, True):
            got = x.prod(dim, keepdim=keepdim)
            with native.disabled():
                _same(got, x.prod(dim, keepdim=keepdim))
            with monkeypatch.context() as m:
                m.setattr(sums, "_compiled_products", lambda *a: None)
                _same(got, x.prod(dim, keepdim=keepdim))
            tt = t.prod(dim, keepdim=keepdim)
            _torchs(got, tt)
    got = x.prod()
    with native.disabled():
        _same(got, x.prod())
    _torchs(got, t.prod())


def _torchs(got: Any, tt: Any) -> None:
    """PyTorch's bits, a NaN for a NaN."""
    assert got.shape == tuple(tt.shape)
    g, e = got.numpy(), tt.numpy()
    nan = np.isnan(e)
    assert np.array_equal(np.isnan(g), nan)
    assert g[~nan].tobytes() == e[~nan].tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_layouts(dtype: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    with np.errstate(all="ignore"):
        for shape, perm in [((1024, 1024), (0, 1)), ((1024, 1024), (1, 0)), ((13, 300), (0, 1)),
                            ((3, 5, 70), (2, 0, 1)), ((3, 5, 70), (0, 2, 1)), ((9, 2), (1, 0)), ((7,), (0,))]:
            _check(_data(shape, dtype, 2), perm, monkeypatch)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_full_and_line_lengths_around_the_block(dtype: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Lengths below, at and past 4 vectors (32 float32 / 16 float64), tails of every size up to a
    block, near-1 values (products that neither underflow nor overflow: every bit counts)."""
    r = np.random.default_rng(7)
    with np.errstate(all="ignore"):
        for n in (1, 2, 15, 16, 17, 31, 32, 33, 47, 63, 64, 65, 95, 127, 128, 129, 1000, 4099):
            a = r.uniform(0.97, 1.03, (3, n)).astype(dtype)
            _check(a, (0, 1), monkeypatch)
            _check(a, (1, 0), monkeypatch)
            _check(a[0].copy(), (0,), monkeypatch)
        big = r.uniform(0.999, 1.001, (1024, 1024)).astype(dtype)
        for x, t in ((st.tensor(big), torch.from_numpy(big)), (st.tensor(big).T, torch.from_numpy(big).T)):
            got = x.prod()
            with native.disabled():
                _same(got, x.prod())
            _torchs(got, t.prod())
            _torchs(x.prod(1), t.prod(1))
            out = st.empty(1024, dtype=got.dtype)
            x.prod(0, out=out)  # (the general path)
            _torchs(out, t.prod(0))


def test_zero_size_and_non_dense() -> None:
    """Empty tensors give PyTorch's 1s; a full product of a tensor with gaps (NumPy's order: its
    lines are not one run) and an outer dim's products (NumPy's order is PyTorch's) agree with it."""
    for shape, dim in (((0,), None), ((0, 5), 1), ((5, 0), 1), ((5, 0), 0), ((0, 40), None)):
        a = np.empty(shape, np.float32)
        s = st.tensor(a).prod() if dim is None else st.tensor(a).prod(dim)
        t = torch.from_numpy(a).prod() if dim is None else torch.from_numpy(a).prod(dim)
        assert s.shape == tuple(t.shape) and s.numpy().tobytes() == t.numpy().tobytes()
    a = np.random.default_rng(3).uniform(0.97, 1.03, (40, 70)).astype(np.float32)
    for dim in (0, 1):
        _torchs(st.tensor(a)[:, ::2].prod(dim), torch.from_numpy(a)[:, ::2].prod(dim))
    _torchs(st.tensor(a).prod(0), torch.from_numpy(a).prod(0))


@settings(max_examples=30, deadline=None)
@given(shape=hs.lists(hs.integers(1, 20), min_size=1, max_size=3), seed=hs.integers(0, 2**16),
       f64=hs.booleans(), data=hs.data())
def test_any_permutation_matches_the_numpy_path(shape: list[int], seed: int, f64: bool, data: Any) -> None:
    perm = tuple(data.draw(hs.permutations(range(len(shape)))))
    with pytest.MonkeyPatch.context() as m, np.errstate(all="ignore"):
        _check(_data(tuple(shape), np.float64 if f64 else np.float32, seed), perm, m)


def test_declines_and_kernel_arguments() -> None:
    a = np.arange(1.0, 13.0).reshape(3, 4)
    for x, axis in ((a, 0), (a[:, ::2], 1), (np.broadcast_to(a[:1], (3, 4)), 1), (a[:, :1], 1),
                    (a.astype(np.int64), 1), (a[:0], 1)):
        assert line_products(x, axis) is None
    assert line_products(a.T, 0).tolist() == [[24.0, 1680.0, 11880.0]]
    big = np.arange(1.0, 41.0).reshape(4, 10)
    assert line_products(big.T, None).tolist() == [[float(np.prod(np.arange(1.0, 41.0)))]]
    assert line_products(a.T, None) is None  # (under 4 vectors: NumPy's running product is PyTorch's)
    assert line_products(big[:, ::2], None) is None  # (not one run)
    k = native.special()
    with pytest.raises(ValueError, match="one per row"):
        k.torch_prod_rows(a, np.empty(4), 4)
    with pytest.raises(TypeError, match="3 or 4 arguments"):
        k.torch_prod_rows(a, a)
    flat = a.reshape(-1).copy()
    assert k.torch_prod_rows(flat, flat[:3], 4) is False  # (an overlap: nothing written)
    assert flat.tolist() == list(range(1, 13))
    one = np.empty(1)
    assert k.torch_prod_rows(flat, one, 0) is True and one[0] == float(np.prod(flat))  # (n 0: one row of all)
    assert k.torch_prod_rows(np.empty(0), one, 0) is False  # (no elements: the caller's empty product)
    nan = np.array([1.0, np.nan, 2.0])
    assert k.torch_prod_rows(nan, one, 0) is True and k.torch_prod_rows(nan, one, 0, True) is False  # (strict)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_size_one_axes_leave_one_contiguous_line(dtype: Any) -> None:
    """A (16, 1) input's axis 0 is one contiguous line for PyTorch, whose iterator drops size-1 axes:
    its vectorized product order, bit for bit (NumPy's running product differed in the last bit)."""
    r = np.random.default_rng(11)
    for shape, dim in (((16, 1), 0), ((100, 1), 0), ((1, 100, 1), 1), ((37, 1, 1), 0), ((1, 1, 50), 2)):
        a = (r.uniform(0.97, 1.03, shape) * np.where(r.random(shape) < 0.3, -1, 1)).astype(dtype)
        for keepdim in (False, True):
            _torchs(st.tensor(a).prod(dim, keepdim=keepdim), torch.from_numpy(a).prod(dim, keepdim=keepdim))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_rows_at_every_offset_from_a_cache_line(dtype: Any, torch_threads_as_assumed: None) -> None:
    """The AVX-512 rows (_prod_rows_z.h) load each row where it starts, 0 to 15 elements past a
    64-byte boundary (a slice's storage offset, an odd row length): PyTorch's bits at each,
    infinities, zeros and a NaN row among them (NaN: NaN). Rows with a gap between them
    (``t[:, 1:]``, PyTorch's walk in multiply_reduce) too: one NaN row sent every row to NumPy's
    order before (the last bits of ~30 of 40 rows PyTorch's no more)."""
    r = np.random.default_rng(11)
    with np.errstate(all="ignore"):
        for n in (16, 31, 32, 33, 48, 1001, 1024):
            base = r.uniform(0.97, 1.03, (40, n)).astype(dtype)
            base[3, n // 2], base[5, 0], base[7, -1] = np.inf, -0.0, np.nan
            for start in range(0, 16, 3):
                s, t = st.tensor(base)[start:], torch.from_numpy(base)[start:]
                for got, want in ((s.prod(1), t.prod(1)), (s.T.prod(0), t.T.prod(0)),
                                  (s[:, 1:].prod(1), t[:, 1:].prod(1))):
                    _torchs(got, want)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_rows_whose_products_underflow(dtype: Any, torch_threads_as_assumed: None) -> None:
    """Values in (0.1, 0.9) (bench_ops' inputs): the lanes' last products go through the subnormals
    to zero, each row's fold in the AVX-512 rows' second pass, rows in chunks of 64 (counts around
    it) and a tail after the blocks: PyTorch's bits, a whole chunk's fold apart from its loop."""
    r = np.random.default_rng(12)
    with np.errstate(all="ignore"):
        for rows, n in ((63, 256), (64, 1024), (65, 100), (129, 47), (130, 1000), (1, 4099)):
            a = r.uniform(0.1, 0.9, (rows, n)).astype(dtype)
            a[r.random((rows, n)) < 0.01] *= 1e-30  # (some products deep in the subnormals)
            for got, want in ((st.tensor(a).prod(1), torch.from_numpy(a).prod(1)),
                              (st.tensor(a.T.copy()).T.prod(1), torch.from_numpy(a.T.copy()).T.prod(1)),
                              (st.tensor(a)[1:].prod(1), torch.from_numpy(a)[1:].prod(1)),
                              (st.tensor(a).prod(), torch.from_numpy(a).prod())):
                _torchs(got, want)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_whole_product_of_a_transpose_by_the_front(dtype: Any, room_in_the_dense_memo: None) -> None:
    """``t.T.prod()``: the forward remembers the transpose's layout as dense, and prod's compiled
    front then takes the call over the storage run in memory order: the forward's bits and PyTorch's
    (short and long runs, a 3-d permutation, zeros, infinities; a NaN product: the forward's NaN).
    Below PyTorch's parallel grain (32768 elements): above it, a whole product's order depends on
    PyTorch's thread count (a NaN from 0 * inf in one order, inf in the other)."""
    from strided.kernels.memory import _DENSE, dense_layout
    from strided.ops._support.front import fallback_of

    forward = fallback_of(st.Tensor.prod)
    r = np.random.default_rng(13)
    with np.errstate(all="ignore"):
        for shape, perm in (((4, 3), (1, 0)), ((181, 179), (1, 0)), ((33, 17), (1, 0)), ((3, 5, 8), (2, 0, 1))):
            a = r.uniform(0.9, 1.1, shape).astype(dtype)
            for special in (None, 0.0, np.inf, np.nan):
                if special is not None:
                    a.reshape(-1)[7] = special
                s, t = st.tensor(a).permute(*perm), torch.from_numpy(a).permute(*perm)
                first = s.prod()
                if len(shape) == 2:  # (a 3-d permutation: remembered by the ops whose forward meets it)
                    assert _DENSE.get((s.shape, s.stride())) is not None
                dense_layout(s.shape, s.stride())
                for got in (first, s.prod(), st.prod(s)):
                    want = forward(s)
                    assert got.numpy().tobytes() == want.numpy().tobytes() or (np.isnan(got.item()) and np.isnan(want.item()))
                    _torchs(got, t.prod())
