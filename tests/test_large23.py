"""The large-size fast paths of branch large23, each against the path it replaces and against
PyTorch where PyTorch has an answer.

* In-place samplers into a target that is not its storage's whole row-major run (transposed,
  permuted, sliced, offset, at an odd address): the compiled draw into a row-major sample, then
  the write. The numbers, and the generator's stream after them, must be the general path's
  (run here inside ``native.disabled()``, which turns every compiled draw off), and the target's
  shape and strides PyTorch's.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided as st
from strided.kernels import native

SAMPLERS = [("uniform_", ()), ("random_", ()), ("bernoulli_", (0.5,)), ("bernoulli_", (0.25,)),
            ("exponential_", ()), ("exponential_", (2.5,)), ("geometric_", (0.3,)), ("log_normal_", ()),
            ("log_normal_", (0.5, 0.75)), ("cauchy_", ()), ("cauchy_", (1.0, 3.0)), ("normal_", ())]


def _unaligned(n: int, dtype: np.dtype, skew: int = 1) -> np.ndarray:
    """``n`` zeros of ``dtype`` in a buffer at byte offset ``skew`` (no multiple of the itemsize)."""
    buf = np.zeros(n * np.dtype(dtype).itemsize + 16, np.uint8)
    a = np.frombuffer(buf.data, dtype=dtype, count=n, offset=skew)
    assert not a.flags.aligned
    return a


# Targets (all at least _OTHER_MIN = 4096 elements: the sample path's least size), built as
# strided and torch tensors alike: (name, maker(library, dtype)).
def _lib_zeros(lib, shape, dtype):
    return lib.zeros(shape, dtype=getattr(lib, dtype))


LAYOUTS = {
    "transposed": lambda lib, dt: _lib_zeros(lib, (67, 71), dt).t(),
    "permuted3": lambda lib, dt: _lib_zeros(lib, (3, 41, 37), dt).permute(2, 0, 1),
    "step": lambda lib, dt: _lib_zeros(lib, (131, 71), dt)[::2],
    "columns": lambda lib, dt: _lib_zeros(lib, (71, 131), dt)[:, 3:],
    "offset": lambda lib, dt: _lib_zeros(lib, (4113,), dt)[5:4104],
    "negative_transpose_step": lambda lib, dt: _lib_zeros(lib, (97, 89), dt)[1:, ::3].t(),
}


def _draw(target, name, args):
    return getattr(target, name)(*args)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("name,args", SAMPLERS)
def test_sampler_into_other_layouts_matches_general_path(name, args, layout, dtype):
    fast, slow = LAYOUTS[layout](st, dtype), LAYOUTS[layout](st, dtype)
    st.manual_seed(11)
    out = _draw(fast, name, args)
    after_fast = st.rand(5).numpy().tobytes()  # (the stream after the draw)
    st.manual_seed(11)
    with native.disabled():
        _draw(slow, name, args)
        after_slow = st.rand(5).numpy().tobytes()
    assert out is fast
    assert fast.numpy().tobytes() == slow.numpy().tobytes()
    assert after_fast == after_slow
    reference = LAYOUTS[layout](torch, dtype)
    _draw(reference, name, args)
    assert tuple(fast.shape) == tuple(reference.shape) and fast.stride() == reference.stride()
    assert fast.storage_offset() == reference.storage_offset()


@pytest.mark.parametrize("name,args", SAMPLERS)
def test_sampler_transposed_equals_contiguous_draw_in_row_major_order(name, args):
    """A transposed target holds, in its row-major element order, what a row-major target of the
    same shape draws from the same seed (both paths draw row-major)."""
    t = st.zeros(65, 73).t()
    c = st.zeros(73, 65)
    st.manual_seed(5)
    _draw(t, name, args)
    st.manual_seed(5)
    _draw(c, name, args)
    assert t.contiguous().numpy().tobytes() == c.numpy().tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name,args", SAMPLERS)
def test_sampler_into_transposed_unaligned_memory(name, args, dtype):
    n = 67 * 71
    x = st.from_numpy(_unaligned(n, dtype).reshape(67, 71)).t()
    y = st.from_numpy(np.zeros(n, dtype).reshape(67, 71)).t()
    st.manual_seed(9)
    _draw(x, name, args)
    st.manual_seed(9)
    _draw(y, name, args)
    assert x.contiguous().numpy().tobytes() == y.contiguous().numpy().tobytes()


@pytest.mark.parametrize("name,args", SAMPLERS)
def test_sampler_into_expanded_target_refused_without_a_draw(name, args):
    """A stride-0 target is PyTorch's error, raised before any number is drawn."""
    x = st.zeros(1, 4099).expand(3, 4099)
    st.manual_seed(2)
    with pytest.raises(RuntimeError):
        _draw(x, name, args)
    after = st.rand(4).numpy().tobytes()
    st.manual_seed(2)
    assert st.rand(4).numpy().tobytes() == after
    with pytest.raises(RuntimeError):
        _draw(torch.zeros(1, 4099).expand(3, 4099), name, args)


def test_sampler_into_read_only_transposed_target_refused():
    arr = np.zeros((67, 71), np.float32)
    arr.flags.writeable = False
    ro = st.from_numpy(arr).t()
    st.manual_seed(4)
    with pytest.raises(RuntimeError, match="read-only"):
        ro.uniform_()
    after = st.rand(3).numpy().tobytes()
    st.manual_seed(4)
    assert st.rand(3).numpy().tobytes() == after


def test_sampler_into_transposed_target_takes_the_sample_path(monkeypatch):
    """The tests above compare the sample path, not the general path with itself."""
    from strided.ops.creation import random as R

    taken = []
    real = R._native_fill_other

    def spy(*a):
        taken.append(real(*a))
        return taken[-1]

    monkeypatch.setattr(R, "_native_fill_other", spy)
    st.zeros(67, 71).t().geometric_(0.3)
    assert taken == [True]


# ---------------------------------------------------------------- randint_like of a permuted input

LIKE_INPUTS = {
    "transposed": lambda lib, dt: _lib_zeros(lib, (67, 71), dt).t(),
    "permuted3": lambda lib, dt: _lib_zeros(lib, (3, 41, 37), dt).permute(2, 0, 1),
    "step": lambda lib, dt: _lib_zeros(lib, (131, 71), dt)[::2],
    "expanded": lambda lib, dt: _lib_zeros(lib, (1, 4099), dt).expand(3, 4099),
}


@pytest.mark.parametrize("high", [10, 2**24 + 3, 2**40])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layout", sorted(LIKE_INPUTS))
def test_randint_like_of_other_layouts_matches_general_path(layout, dtype, high):
    x = LIKE_INPUTS[layout](st, dtype)
    st.manual_seed(13)
    fast = st.randint_like(x, high)
    after_fast = st.rand(5).numpy().tobytes()
    st.manual_seed(13)
    with native.disabled():
        slow = st.randint_like(x, high)
        after_slow = st.rand(5).numpy().tobytes()
    assert fast.numpy().tobytes() == slow.numpy().tobytes() and after_fast == after_slow
    reference = torch.randint_like(LIKE_INPUTS[layout](torch, dtype), high)
    assert tuple(fast.shape) == tuple(reference.shape) and fast.stride() == reference.stride()
    assert fast.dtype.name == str(reference.dtype).split(".")[1]
    assert float(fast.min()) >= 0 and float(fast.max()) < high


# ---------------------------------------------------------------- casting copies across memory orders

CAST_PAIRS = [("int64", "float32"), ("int64", "float64"), ("int32", "float32"), ("uint8", "float32"),
              ("bool", "float32"), ("float32", "float64"), ("float64", "float32"), ("int64", "int32"),
              ("int32", "int8"), ("uint8", "int64"), ("float32", "complex64"), ("float64", "complex128"),
              ("int16", "complex128"), ("bool", "int64"),
              # (left to NumPy's strips: the cast path must refuse them and the result stay the same)
              ("float32", "int32"), ("float64", "uint8"), ("complex64", "float32"), ("float32", "float16")]


def _values(dtype: str, shape: tuple, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    v = rng.standard_normal(shape) * 1e6
    v.flat[:7] = [np.nan, np.inf, -np.inf, -0.0, 3e9, -3e9, 0.5]
    if dtype == "bool":
        return v > 0
    if np.dtype(dtype).kind in "iu":
        return rng.integers(np.iinfo(dtype).min, np.iinfo(dtype).max, shape, dtype=dtype, endpoint=True)
    with np.errstate(all="ignore"):
        return v.astype(dtype)


@pytest.mark.parametrize("src,dst", CAST_PAIRS)
@pytest.mark.parametrize("shape", [(517, 523), (1031, 257)])
def test_casting_copy_across_memory_orders_is_numpys_copyto(src, dst, shape):
    from strided.kernels import blocked

    source = _values(src, shape[::-1]).T  # (column-major: the orders disagree)
    ours, expected = np.empty(shape, dst), np.empty(shape, dst)
    with np.errstate(all="ignore"), __import__("warnings").catch_warnings():
        __import__("warnings").simplefilter("ignore")
        blocked.copy_into(ours, source)
        np.copyto(expected, source, casting="unsafe")
    assert ours.tobytes() == expected.tobytes()


@pytest.mark.parametrize("src,dst", [("int64", "float32"), ("int32", "float64"), ("float32", "float64")])
def test_casting_copy_into_unaligned_and_sliced_memory(src, dst):
    """A destination at an odd address (the compiled copy refuses it: NumPy's strips) and a
    sliced, 3-d permuted source, against NumPy's one copyto."""
    from strided.kernels import blocked

    source = _values(src, (37, 41, 601))[:, 1:, ::2].transpose(2, 0, 1)
    shape = source.shape
    n = int(np.prod(shape))
    buf = np.zeros(n * np.dtype(dst).itemsize + 16, np.uint8)
    odd = np.frombuffer(buf.data, dtype=dst, count=n, offset=1).reshape(shape)
    aligned, expected = np.empty(shape, dst), np.empty(shape, dst)
    blocked.copy_into(odd, source)
    blocked.copy_into(aligned, source)
    np.copyto(expected, source, casting="unsafe")
    assert odd.tobytes() == expected.tobytes() == aligned.tobytes()


@pytest.mark.parametrize("src,dst", [("int64", "float32"), ("float32", "float64"), ("int32", "int8")])
def test_casting_copy_of_tensors_against_torch(src, dst):
    """copy_ between tensors of another dtype and a disagreeing layout: PyTorch's values."""
    values = _values(src, (700, 613), 3)
    column_major = np.ascontiguousarray(values.T)
    cases = [(lambda lib: lib.empty(700, 613, dtype=getattr(lib, dst)), lambda lib: lib.tensor(column_major).t()),
             (lambda lib: lib.empty(613, 700, dtype=getattr(lib, dst)).t(), lambda lib: lib.tensor(values))]
    for dest_of, source_of in cases:
        ours = dest_of(st).copy_(source_of(st))
        theirs = dest_of(torch).copy_(source_of(torch))
        assert ours.stride() == theirs.stride()
        assert ours.contiguous().numpy().tobytes() == theirs.contiguous().numpy().tobytes()


def test_casting_copy_takes_the_cast_path(monkeypatch):
    from strided.kernels import blocked

    taken = []
    real = blocked._cast_then_copy

    def spy(*a):
        taken.append(real(*a))
        return taken[-1]

    monkeypatch.setattr(blocked, "_cast_then_copy", spy)
    dest = np.empty((700, 613), np.float32)
    blocked.copy_into(dest, np.arange(700 * 613).reshape(613, 700).T)
    assert taken == [True] and dest[5, 7] == 7 * 700 + 5


# ---------------------------------------------------------------- logcumsumexp of a dense permuted tensor

def _scan_values(shape, dtype, seed=0):
    v = (np.random.default_rng(seed).standard_normal(shape) * 20).astype(dtype)
    flat = v.reshape(-1)
    flat[:9] = [-np.inf, np.nan, -0.0, 0.0, np.inf, -np.inf, 1e-30, -88.0, 700.0 if dtype == np.float64 else 80.0]
    flat[-3:] = [-np.inf, -0.0, -np.inf]
    return v


SCAN_LAYOUTS = {  # (numpy values -> a dense tensor laid out otherwise than row-major)
    "transposed": lambda lib, v: lib.tensor(v).t(),
    "permuted3": lambda lib, v: lib.tensor(v.reshape(5, 29, 37)).permute(2, 0, 1),
    "permuted3b": lambda lib, v: lib.tensor(v.reshape(5, 29, 37)).permute(1, 2, 0),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("layout", sorted(SCAN_LAYOUTS))
def test_logcumsumexp_of_dense_permuted_input_matches_general_path(layout, dtype, monkeypatch):
    from strided.ops.reductions import scans

    v = _scan_values((145, 37), dtype)
    x, tx = SCAN_LAYOUTS[layout](st, v), SCAN_LAYOUTS[layout](torch, v)
    for dim in range(x.ndim):
        fast = st.logcumsumexp(x, dim)
        with monkeypatch.context() as m:
            m.setattr(scans, "_dense_logcumsumexp", lambda *a: None)
            slow = st.logcumsumexp(x, dim)
        theirs = torch.logcumsumexp(tx, dim)
        assert fast.stride() == slow.stride() == theirs.stride()
        assert fast.numpy().tobytes() == slow.numpy().tobytes()
        np.testing.assert_allclose(fast.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-5)


def test_logcumsumexp_dense_path_is_taken_and_refuses_other_layouts(monkeypatch):
    from strided.ops.reductions import scans

    taken = []
    real = scans._dense_logcumsumexp
    monkeypatch.setattr(scans, "_dense_logcumsumexp", lambda *a: taken.append(real(*a)) or taken[-1])
    v = _scan_values((145, 37), np.float32)
    st.logcumsumexp(st.tensor(v).t(), 1)
    wide = _scan_values((145, 74), np.float32)
    st.logcumsumexp(st.tensor(wide)[:, ::2].t(), 1)  # (5365 elements, not dense: the general path)
    assert taken[0] is not None and taken[1] is None
    sliced = st.tensor(wide)[:, ::2].t()
    np.testing.assert_allclose(st.logcumsumexp(sliced, 0).numpy(),
                               torch.logcumsumexp(torch.tensor(wide)[:, ::2].t(), 0).numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_logcumsumexp_of_transposed_unaligned_memory(dtype):
    v = _scan_values((131, 41), dtype)
    n = v.size
    odd = _unaligned(n, dtype)
    odd[:] = v.reshape(-1)
    x = st.from_numpy(odd.reshape(131, 41)).t()
    y = st.from_numpy(v.copy()).t()
    for dim in (0, 1):
        assert st.logcumsumexp(x, dim).numpy().tobytes() == st.logcumsumexp(y, dim).numpy().tobytes()


# ---------------------------------------------------------------- randperm of any size compiled

@pytest.mark.parametrize("n", [0, 1, 2, 63, 64, 65, 66, 81, 4095, 4097, 65536, 65537, 100003, 1 << 18, (1 << 18) + 5, 1 << 20])
def test_randperm_matches_numpys_permutation_and_stream(n):
    """The compiled shuffle (indices drawn ahead, elements prefetched) against the general path's
    Generator.permutation: the same permutation and the same stream after it."""
    st.manual_seed(21)
    fast = st.randperm(n)
    after_fast = st.rand(4).numpy().tobytes()
    st.manual_seed(21)
    with native.disabled():
        slow = st.randperm(n)
        after_slow = st.rand(4).numpy().tobytes()
    assert fast.numpy().tobytes() == slow.numpy().tobytes() and after_fast == after_slow
    theirs = torch.randperm(n)
    assert fast.dtype.name == "int64" and tuple(fast.shape) == tuple(theirs.shape) and fast.stride() == theirs.stride()
    assert np.array_equal(np.sort(fast.numpy()), np.sort(theirs.numpy()))


def test_randperm_with_a_generator_matches_numpy():
    g = st.Generator().manual_seed(7)
    ours = st.randperm(70001, generator=g).numpy()
    g2 = st.Generator().manual_seed(7)
    with native.disabled():
        assert np.array_equal(ours, st.randperm(70001, generator=g2).numpy())


# ---------------------------------------------------------------- searchsorted / bucketize, large

def _search_operands(dtype, n_seq, shape, seed=0):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":
        seq = np.sort(rng.uniform(-1, 1, n_seq)).astype(dtype)
        seq[: n_seq // 7] = seq[n_seq // 7]  # (a run of duplicates)
        seq.sort()
        if n_seq > 4:
            seq[0], seq[-1] = -np.inf, np.inf
        vals = rng.uniform(-1.2, 1.2, shape).astype(dtype)
        flat = vals.reshape(-1)
        flat[:8] = [np.nan, -np.nan, np.inf, -np.inf, -0.0, 0.0, seq[n_seq // 2], seq[n_seq // 7]]
    else:
        seq = np.sort(rng.integers(-1000, 1000, n_seq)).astype(dtype)
        vals = rng.integers(-1100, 1100, shape).astype(dtype)
    return seq, vals


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
@pytest.mark.parametrize("n_seq", [1, 2, 3, 17, 4099])
@pytest.mark.parametrize("right", [False, True])
@pytest.mark.parametrize("layout", ["row", "transposed"])
def test_large_searchsorted_and_bucketize_against_torch(dtype, n_seq, right, layout):
    seq, vals = _search_operands(np.dtype(dtype), n_seq, (67, 83))  # (5561 values: no multiple of 16)

    def values(lib):
        t = lib.tensor(vals)
        return t if layout == "row" else lib.tensor(np.ascontiguousarray(vals.T)).t()

    ours = st.searchsorted(st.tensor(seq), values(st), right=right)
    theirs = torch.searchsorted(torch.tensor(seq), values(torch), right=right)
    assert ours.dtype.name == "int64" and ours.stride() == theirs.stride()
    assert np.array_equal(ours.numpy(), theirs.numpy())
    ours_b = st.bucketize(values(st), st.tensor(seq), right=right)
    theirs_b = torch.bucketize(values(torch), torch.tensor(seq), right=right)
    assert ours_b.stride() == theirs_b.stride() and np.array_equal(ours_b.numpy(), theirs_b.numpy())
    with native.disabled():
        slow = st.searchsorted(st.tensor(seq), values(st), right=right)
    assert ours.numpy().tobytes() == slow.numpy().tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_large_searchsorted_values_at_an_odd_address(dtype):
    seq, vals = _search_operands(dtype, 1000, (4111,))
    odd = _unaligned(vals.size, dtype)
    odd[:] = vals
    ours = st.searchsorted(st.tensor(seq), st.from_numpy(odd))
    assert np.array_equal(ours.numpy(), torch.searchsorted(torch.tensor(seq), torch.tensor(vals)).numpy())


def test_search_runs_kernel_refuses_other_buffers():
    from strided.kernels import native as N

    k = N.kernel()
    if k is None:
        pytest.skip("no compiled kernel")
    seq, vals = np.arange(10.0), np.array([2.5, 11.0])
    out = np.empty(2, np.int64)
    assert k.search_runs(seq, vals, out, False) and out.tolist() == [3, 10]
    assert not k.search_runs(seq, vals.astype(np.float32), out, False)  # (another dtype)
    assert not k.search_runs(seq, vals, np.empty(3, np.int64), False)  # (another length)
    assert not k.search_runs(seq[:0], vals, out, False)  # (an empty sequence)
    assert not k.search_runs(seq, vals, out.view(np.float64), False)  # (out not int64)


def test_large_searchsorted_takes_the_compiled_bisection(monkeypatch):
    from strided.ops.shape import searching

    calls = []
    real = searching.row_major
    monkeypatch.setattr(searching, "row_major", lambda a: calls.append(a.shape) or real(a))
    seq, vals = _search_operands(np.float32, 100, (67, 83))
    ours = st.searchsorted(st.tensor(seq), st.tensor(np.ascontiguousarray(vals.T)).t())
    assert calls == [(67, 83)]
    assert np.array_equal(ours.numpy(), np.searchsorted(seq, vals))


# ---------------------------------------------------------------- addr's compiled rows (vector clones)

@pytest.mark.parametrize("layout", ["row", "column"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [1021, 1024, 37])
@pytest.mark.parametrize("beta,alpha", [(1.0, 1.0), (0.5, 1.0), (0.0, 1.0), (1.0, 2.5), (-3.0, 0.1), (0.0, -1.5)])
def test_addr_rows_match_numpys_loop_and_torch(dtype, n, beta, alpha, layout):
    """Row-major input: _matkernel's addr rows; column-major (a transpose): _specialkernel's
    outer_scale_add rows. Both test each result for NaN only, then a NaN row exactly."""
    rng = np.random.default_rng(8)
    m = rng.uniform(-2, 2, (67, n)).astype(dtype)
    x = rng.uniform(-2, 2, 67).astype(dtype)
    y = rng.uniform(-2, 2, n).astype(dtype)
    x[:4] = [0.0, -0.0, np.inf, 3e38]
    y[n - 5:] = [np.inf, -0.0, -1e-45, np.nan, 7.0]  # (a NaN in one operand: the vector rows' NaN)
    m[5, n - 3:] = [np.nan, -np.inf, 0.0]
    def inp(lib):
        return lib.tensor(m) if layout == "row" else lib.tensor(np.ascontiguousarray(m.T)).t()

    ours = st.addr(inp(st), st.tensor(x), st.tensor(y), beta=beta, alpha=alpha)
    with native.disabled():
        loop = st.addr(inp(st), st.tensor(x), st.tensor(y), beta=beta, alpha=alpha)
    assert ours.numpy().tobytes() == loop.numpy().tobytes() and ours.stride() == loop.stride()
    theirs = torch.addr(inp(torch), torch.tensor(x), torch.tensor(y), beta=beta, alpha=alpha)
    assert ours.stride() == theirs.stride()
    finite = np.isfinite(theirs.numpy()) & np.isfinite(ours.numpy())
    # (to the dtype's rounding of the terms, up to 3 * 2 + 2.5 * 2 * 2 in size: PyTorch may round
    # otherwise where they cancel)
    tol = 16 * np.finfo(dtype).eps
    np.testing.assert_allclose(ours.numpy()[finite], theirs.numpy()[finite], rtol=tol, atol=tol)
    if alpha == 1.0:  # (alpha != 1: PyTorch scales x first, strided the product (pre-existing): an
        # overflow there, 3e38 * -1.5, makes inf * 0 NaN in one and not the other)
        assert np.array_equal(np.isnan(ours.numpy()), np.isnan(theirs.numpy()))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_addr_two_nan_operands_leave_it_to_numpys_loop(dtype):
    """NaN in x[i] and in y[j] (one product of two NaN), or a NaN product meeting a NaN input:
    the row's second look refuses, and NumPy's loop answers, as before."""
    rng = np.random.default_rng(9)
    m = rng.uniform(-2, 2, (33, 1029)).astype(dtype)
    x = rng.uniform(-2, 2, 33).astype(dtype)
    y = rng.uniform(-2, 2, 1029).astype(dtype)
    for case_ in ("product", "sum"):
        xx, yy, mm = x.copy(), y.copy(), m.copy()
        if case_ == "product":
            xx[20], yy[1000] = np.nan, -np.nan
        else:
            yy[1000], mm[20, 1000] = np.nan, -np.nan
        for inp in (st.tensor(mm), st.tensor(np.ascontiguousarray(mm.T)).t()):
            ours = st.addr(inp, st.tensor(xx), st.tensor(yy))
            with native.disabled():
                loop = st.addr(inp, st.tensor(xx), st.tensor(yy))
            assert ours.numpy().tobytes() == loop.numpy().tobytes()
