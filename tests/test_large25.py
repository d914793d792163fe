"""The large-size fast paths of branch large25, each against PyTorch (values as bytes, dtype,
strides, the error class) and, where a switch turns the fast path off, against the general path.

* The out-of-place scatter / scatter_add / scatter_reduce("sum") above 4096 index elements
  (gather_scatter._large_scatter): a copy of ``self`` and the compiled walk with its range test
  in the walk (an index value out of range drops the copy: the general path raises).
* A scatter's transposed ``src`` read in the index's order by the blocked copy (was np.ravel).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided as st
from strided.kernels import native

DTYPES = ["float32", "float64", "int32", "int64"]
# (self shape, dim, index shape or None for self's)
CASES = [((1024, 64), 1, None), ((64, 1024), 0, None), ((16, 32, 9), 2, None), ((16, 40, 9), 1, (16, 33, 9)),
         ((3000, 7), 0, None), ((5, 4099), 1, (5, 4001)), ((5, 1023), 1, (4, 1022))]
OPS = [("scatter", ()), ("scatter_add", ()), ("scatter_reduce", ("sum",))]


def _operands(shape, dim, ishape, dtype, seed, transposed=False):
    rng = np.random.default_rng(seed)
    ishape = ishape or shape
    if dtype.startswith("float"):
        x = (rng.standard_normal(shape) * 10).astype(dtype)
        src = (rng.standard_normal(ishape) * 10).astype(dtype)
        src.flat[:4] = [np.nan, -0.0, np.inf, 0.0]
    else:
        x = rng.integers(-(2**30), 2**30, shape).astype(dtype)
        src = rng.integers(-(2**30), 2**30, ishape).astype(dtype)  # (sums wrap in int32)
    idx = rng.integers(0, shape[dim], ishape).astype(np.int64)
    if transposed:  # (the same values, laid out as transposes of their reversed-shape copies)
        x, src = np.ascontiguousarray(x.T).T, np.ascontiguousarray(src.T).T
    return x, idx, src


def _both(name, extra, x, dim, idx, src):
    out = []
    for lib, conv in ((torch, torch.from_numpy), (st, st.from_numpy)):
        try:
            out.append(getattr(lib, name)(conv(x), dim, conv(idx), conv(src), *extra))
        except Exception as e:  # noqa: BLE001 (compared below: both raise, the same class)
            out.append(e)
    return out


def _same(t, s):
    assert s.dtype == getattr(st, str(t.dtype).split(".")[1])
    assert s.shape == tuple(t.shape) and s.stride() == t.stride()
    assert np.array_equal(np.ascontiguousarray(s.numpy()).view(np.uint8), np.ascontiguousarray(t.numpy()).view(np.uint8))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,dim,ishape", CASES)
@pytest.mark.parametrize("name,extra", OPS)
@pytest.mark.parametrize("transposed", [False, True])
def test_large_scatter_matches_torch(name, extra, shape, dim, ishape, dtype, transposed, torch_threads_as_assumed):
    x, idx, src = _operands(shape, dim, ishape, dtype, 7, transposed)
    t, s = _both(name, extra, x, dim, idx, src)
    _same(t, s)
    with native.disabled():  # (the general path: the same bytes)
        g = getattr(st, name)(st.from_numpy(x), dim, st.from_numpy(idx), st.from_numpy(src), *extra)
    _same(t, g)


@pytest.mark.parametrize("bad", [-1, 1024, 1025, 2**62])
@pytest.mark.parametrize("where", [0, 4097, 1024 * 64 - 1])
@pytest.mark.parametrize("name,extra", OPS)
def test_large_scatter_out_of_range_raises_as_torch(name, extra, bad, where, torch_threads_as_assumed):
    x, idx, src = _operands((1024, 64), 0, None, "float32", 3)
    idx.flat[where] = bad
    t, s = _both(name, extra, x, 0, idx, src)
    assert isinstance(t, RuntimeError) and isinstance(s, RuntimeError)
    assert "out of bounds" in str(s)


def test_large_scatter_leaves_self_and_src_untouched():
    x, idx, src = _operands((1024, 64), 1, None, "float32", 5)
    x0, src0 = x.copy(), src.copy()
    sx = st.from_numpy(x)
    out = st.scatter_add(sx, 1, st.from_numpy(idx), st.from_numpy(src))
    assert np.array_equal(x, x0, equal_nan=True) and np.array_equal(src, src0, equal_nan=True)
    assert not np.shares_memory(out.numpy(), x)


def test_large_scatter_in_place_with_transposed_src_matches_torch(torch_threads_as_assumed):
    x, idx, src = _operands((512, 300), 1, None, "float64", 9, transposed=True)
    t = torch.from_numpy(x.copy()).scatter_add_(1, torch.from_numpy(idx), torch.from_numpy(src))
    s = st.from_numpy(x.copy()).scatter_add_(1, st.from_numpy(idx), st.from_numpy(src))
    _same(t, s)
    t = torch.from_numpy(x.copy()).scatter_(1, torch.from_numpy(idx), torch.from_numpy(src))
    s = st.from_numpy(x.copy()).scatter_(1, st.from_numpy(idx), st.from_numpy(src))
    _same(t, s)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("rows", [1, 2, 3, 7, 64])
@pytest.mark.parametrize("n", [16, 31, 32, 33, 63, 64, 100, 1024, 1027])
def test_prod_rows_two_at_a_time_match_torch(dtype, rows, n):
    """torch_prod_rows takes rows in pairs (each by its own operations): PyTorch's bytes for every
    row, an odd last row included, over row-major, transposed (the same kernel on its memory)
    and whole-tensor products."""
    rng = np.random.default_rng(n * 10 + rows)
    x = rng.uniform(0.97, 1.03, (rows, n)).astype(dtype)
    x[rng.integers(0, rows), rng.integers(0, n)] = -0.0 if n % 2 else np.inf
    for dim in (1, -1):
        _same(torch.prod(torch.from_numpy(x), dim), st.prod(st.from_numpy(x), dim))
    t = x.T  # (its dim 0 runs along x's rows in memory: the same kernel)
    _same(torch.prod(torch.from_numpy(t), 0), st.prod(st.from_numpy(t), 0))
    _same(torch.prod(torch.from_numpy(t)), st.prod(st.from_numpy(t)))
    _same(torch.prod(torch.from_numpy(x)), st.prod(st.from_numpy(x)))


LINSPACES = [(0.0, 1.0, 1 << 20), (0.1, 0.9, 1 << 15), (-3.5, 1e6, 40001), (1e-30, 3e30, 32768), (5.0, -7.25, 100001),
             (-0.0, 0.0, 50000), (3.0, 3.0, 70000), (-1e38, 3e38, 65537), (2.5, 2.5000002, 99999)]


@pytest.mark.parametrize("start,end,steps", LINSPACES)
def test_float32_linspace_ramp_matches_torch(start, end, steps):
    """float32 linspace of 2**15 or more steps (ramp32_fill, one compiled pass): PyTorch's bytes,
    and the NumPy blocks' (native off)."""
    t = torch.linspace(start, end, steps).numpy()
    s = st.linspace(start, end, steps)
    assert s.dtype == st.float32 and s.stride() == (1,)
    with native.disabled():
        g = st.linspace(start, end, steps).numpy()
    assert np.array_equal(s.numpy().view(np.uint32), t.view(np.uint32))
    assert np.array_equal(g.view(np.uint32), t.view(np.uint32))


@pytest.mark.parametrize("args", [(1 << 20,), (4096,), (4095,), (5, 1 << 21, 3), (-7, 1 << 16), (10**6, -10**6, -1),
                                  (2**62, 2**62 + 100000), (0, 2**62, 2**45), (-(2**63), -(2**63) + 5000, 1)])
def test_int64_arange_fill_matches_torch(args):
    """int64 arange of Python int bounds from 4096 values (iota64_fill): PyTorch's values, and the
    NumPy path's (native off)."""
    t = torch.arange(*args).numpy()
    s = st.arange(*args)
    assert s.dtype == st.int64 and s.stride() == (1,)
    with native.disabled():
        g = st.arange(*args).numpy()
    assert np.array_equal(s.numpy(), t) and np.array_equal(g, t)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("nan", [None, "source", "self"])
@pytest.mark.parametrize("op", ["index_add", "index_reduce"])
@pytest.mark.parametrize("shape,dim", [((512, 300), 0), ((300, 512), 1), ((8, 300, 64), 1)])
def test_large_index_accumulate_watches_nan(op, nan, dtype, shape, dim, torch_threads_as_assumed):
    """Out-of-place index_add / index_reduce("prod") of large float slices: the compiled pass
    watches the source for a NaN (no np.min pass first); a NaN sends the call to the general path
    (the bytes with the kernels off); without one, PyTorch's bytes."""
    rng = np.random.default_rng(len(shape) * 7 + dim)
    x = rng.uniform(0.5, 1.5, shape).astype(dtype)
    m = shape[dim]
    idx = rng.integers(0, m, m).astype(np.int64)
    src = rng.uniform(0.5, 1.5, shape).astype(dtype)
    if nan == "source":
        src.flat[rng.integers(0, src.size, 3)] = [np.nan, -np.nan, np.nan]
    elif nan == "self":
        x.flat[rng.integers(0, x.size, 2)] = np.nan
    extra = ("prod",) if op == "index_reduce" else ()
    s = getattr(st, op)(st.from_numpy(x), dim, st.from_numpy(idx), st.from_numpy(src), *extra)
    with native.disabled():
        g = getattr(st, op)(st.from_numpy(x), dim, st.from_numpy(idx), st.from_numpy(src), *extra)
    assert np.array_equal(s.numpy().view(np.uint8), g.numpy().view(np.uint8))
    if nan is None:
        t = getattr(torch, op)(torch.from_numpy(x), dim, torch.from_numpy(idx), torch.from_numpy(src), *extra)
        _same(t, s)


def test_float32_hypot_avx2_loop_bits():
    """float32 hypot's 8-wide loop (binary_float code 3): the bits of the float64 square root of the
    exact float64 sum of squares, rounded once (NumPy's np.hypot, glibc's hypotf), and the C
    library's hypotf for the non-finite elements; lengths around the 8-wide steps and blocks."""
    rng = np.random.default_rng(11)
    for n in (1, 7, 8, 9, 511, 512, 513, 4099, 1 << 16):
        x = (rng.standard_normal(n) * 10.0 ** rng.integers(-40, 38, n)).astype(np.float32)
        y = (rng.standard_normal(n) * 10.0 ** rng.integers(-40, 38, n)).astype(np.float32)
        x[rng.integers(0, n, max(1, n // 50))] = rng.choice([np.inf, -np.inf, np.nan, 0.0, -0.0, 1e-45, 3.4e38])
        s = st.hypot(st.from_numpy(x), st.from_numpy(y)).numpy()
        with native.disabled():
            g = st.hypot(st.from_numpy(x), st.from_numpy(y)).numpy()
        assert np.array_equal(s.view(np.uint32), g.view(np.uint32))
        assert np.array_equal(s.view(np.uint32), np.hypot(x, y).view(np.uint32))


@pytest.mark.parametrize("n,high,minlength", [(4096, 16, 0), (4097, 1, 0), (1 << 20, 16, 0), (1 << 16, 16, 100),
                                              (1 << 16, 100000, 0), (5000, (1 << 20) - 1, 0), (5000, 1 << 20, 0),
                                              (5000, 3, 1 << 21), (70000, 20000, 5)])
def test_int64_bincount_matches_torch(n, high, minlength):
    """bincount of a plain int64 tensor from 4096 values (int64_bincount: a range pass, then four
    partial tables): PyTorch's counts; tables past 2**20 entries stay with np.bincount."""
    rng = np.random.default_rng(n + high)
    x = rng.integers(0, high, n).astype(np.int64)
    x[0] = high - 1
    t = torch.bincount(torch.from_numpy(x), minlength=minlength)
    s = st.bincount(st.from_numpy(x), minlength=minlength)
    assert s.dtype == st.int64 and s.shape == tuple(t.shape) and np.array_equal(s.numpy(), t.numpy())


def test_int64_bincount_negative_raises_as_torch():
    x = np.arange(5000, dtype=np.int64)
    x[4321] = -3
    with pytest.raises(RuntimeError):
        torch.bincount(torch.from_numpy(x))
    with pytest.raises(RuntimeError, match="non-negative"):
        st.bincount(st.from_numpy(x))


def _prod_operand(shape, dtype, special, seed):
    """Values near 1 of both signs (finite products), with -0.0s, an inf or a NaN where asked."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(0.9, 1.1, shape).astype(dtype) * rng.choice([-1, 1], shape).astype(dtype)
    if special == "zero":
        x.flat[::7] = -0.0
    elif special == "inf":
        x.flat[3] = np.inf
    elif special == "nan":
        x.flat[5] = np.nan
    return x


def _prod_three_ways(x, dim, keepdim, special):
    """strided's prod: the kernels-off path's bytes, and PyTorch's where no product is NaN."""
    s = st.prod(st.from_numpy(x), dim, keepdim)
    with native.disabled():
        g = st.prod(st.from_numpy(x), dim, keepdim)
    assert np.array_equal(s.numpy().reshape(-1).view(np.uint8), g.numpy().reshape(-1).view(np.uint8))
    if special != "nan":
        if dim is None:  # (one PyTorch thread: a full product past its 32768-element grain is split among
            # its threads, which strided's full products, row-major ones included, do not model)
            before = torch.get_num_threads()
            torch.set_num_threads(1)
            try:
                t = torch.prod(torch.from_numpy(x))
            finally:
                torch.set_num_threads(before)
            t = t.reshape((1,) * x.ndim) if keepdim else t
        else:
            t = torch.prod(torch.from_numpy(x), dim, keepdim)
        _same(t, s)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,dim", [((1024, 64), 0), ((64, 1024), 0), ((7, 5, 33), 1), ((7, 5, 33), 0), ((3, 1, 9), 1),
                                       ((1, 40), 0), ((40, 1), 0), ((9, 4, 2, 3), -3)])
@pytest.mark.parametrize("special", [None, "zero", "inf", "nan"])
@pytest.mark.parametrize("keepdim", [False, True])
def test_prod_over_outer_dim_matches_torch(shape, dim, dtype, special, keepdim, torch_threads_as_assumed):
    """prod of a row-major tensor over a dim other than its last (torch_prod_cols): PyTorch's bytes
    and the NumPy path's (kernels off); a NaN product declines to NumPy's payload."""
    _prod_three_ways(_prod_operand(shape, dtype, special, len(shape) + dim), dim, keepdim, special)


@pytest.mark.parametrize("shape,dim", [((16, 1), 0), ((100, 1), 0), ((1, 100, 1), 1), ((37, 1, 1), 0)])
def test_prod_over_outer_dim_with_unit_inner_keeps_torch_line_order(shape, dim):
    x = (np.random.default_rng(3).uniform(0.97, 1.03, shape) * -1).astype(np.float32)
    _same(torch.prod(torch.from_numpy(x), dim), st.prod(st.from_numpy(x), dim))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(64, 1024), (1024, 64), (2, 3), (33, 17)])
@pytest.mark.parametrize("dim,keepdim", [(1, False), (-1, True), (1, True)])
@pytest.mark.parametrize("special", [None, "zero", "nan"])
def test_prod_over_a_transposes_outer_memory_dim_matches_torch(shape, dim, keepdim, dtype, special, torch_threads_as_assumed):
    """prod over dim 1 of a 2-D transpose (torch_prod_cols on its storage): PyTorch's bytes and the
    kernels-off path's."""
    _prod_three_ways(_prod_operand(shape[::-1], dtype, special, shape[0]).T, dim, keepdim, special)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(64, 1024), (1024, 64), (2, 3), (33, 17), (40, 40)])
@pytest.mark.parametrize("dim,keepdim", [(0, False), (-2, True), (None, False), (None, True)])
@pytest.mark.parametrize("special", [None, "zero", "nan"])
def test_prod_of_a_transpose_in_memory_order_matches_torch(shape, dim, keepdim, dtype, special, torch_threads_as_assumed):
    """prod over dim 0 (the memory rows) or every dim (one line) of a 2-D transpose, by the row
    kernel on its storage: PyTorch's bytes and the kernels-off path's."""
    _prod_three_ways(_prod_operand(shape[::-1], dtype, special, shape[1]).T, dim, keepdim, special)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32", "int64"])
@pytest.mark.parametrize("op", ["gcd", "lcm"])
def test_gcd_lcm_branchless_binary_gcd_matches_torch(op, dtype):
    """gcd / lcm (gcd_fresh's binary gcd with selects): PyTorch's values over random operands of both
    signs, zeros, and the dtype's extremes (a wrapped |minimum| takes Euclid's loop, as before)."""
    info = np.iinfo(dtype)
    rng = np.random.default_rng(5)
    x = rng.integers(info.min, info.max, 5000, endpoint=True).astype(dtype)
    y = rng.integers(info.min, info.max, 5000, endpoint=True).astype(dtype)
    small = rng.integers(0, 8, 5000).astype(dtype)
    for a, b in ((x, y), (small, y), (x, small), (small, small[::-1].copy())):
        a, b = a.copy(), b.copy()
        a[:6] = [0, 0, info.min, info.max, info.min, 1]
        b[:6] = [0, 5 % (info.max + 1), info.min, info.min, 0, info.max]
        t = getattr(torch, op)(torch.from_numpy(a), torch.from_numpy(b)).numpy()
        s = getattr(st, op)(st.from_numpy(a), st.from_numpy(b)).numpy()
        assert s.dtype == t.dtype and np.array_equal(s, t)
