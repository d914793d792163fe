"""The compiled small-call paths of the indexing family (the copy kernel's ``along_tensors`` and
``slices_tensors``, ops/indexing/fast_along.py ``ALONG_C`` / ``SLICES_C``; index_put / index_put_
too): each op's result with them is the result without them (the NumPy fast paths and the general path) bit for bit (dtype,
shape, strides, bytes: NaN payloads, signaling NaNs, -0.0, integer wrap-around, repeated
indices), the errors are the same, and PyTorch 2.13 agrees on the values."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import strided
from strided.ops.indexing import advanced as AD
from strided.ops.indexing import fast_along as FA
from strided.ops.indexing import gather_scatter as GS
from strided.ops.indexing import index_ops as IO

pytestmark = pytest.mark.skipif(FA.ALONG_C is None, reason="the copy kernel is not built")

_BITS = {np.dtype(np.float32): (np.uint32, 0x00400000), np.dtype(np.float64): (np.uint64, 1 << 51)}


def _values(rng, shape, dtype):
    """Random values; floats get quiet and signaling NaNs of several payloads and signs, -0.0."""
    a = (rng.standard_normal(shape) * 3).astype(dtype)
    if a.dtype in _BITS and a.size:
        ut, quiet = _BITS[a.dtype]
        bits = a.reshape(-1).view(ut)
        nan = np.array(np.nan, a.dtype).view(ut)
        pick = rng.random(a.size)
        bits[pick < 0.2] = nan | ut(rng.integers(1, 999))
        bits[(pick >= 0.2) & (pick < 0.3)] = (nan & ut(~quiet & np.iinfo(ut).max)) | ut(rng.integers(1, 99))
        bits[(pick >= 0.3) & (pick < 0.35)] = np.array(-np.nan, a.dtype).view(ut) | ut(3)
        a.reshape(-1)[(pick >= 0.35) & (pick < 0.45)] = -0.0
    return a


def _result(call):
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            r = call()
    except Exception as e:  # noqa: BLE001 (the error itself is compared)
        return type(e).__name__, str(e)
    return (str(r.dtype), tuple(r.shape), r.stride(), r.storage_offset(), np.ascontiguousarray(r.numpy()).tobytes(),
            np.asarray(r._storage.array).tobytes())


def _calls(rng, dtype):
    """One random case of every compiled op: (name, call) pairs over the same operands."""
    nd = int(rng.integers(1, 4))
    shape = tuple(int(v) for v in rng.integers(1, 6, nd))
    d = int(rng.integers(-nd, nd))
    size = shape[d]
    x = strided.from_numpy(_values(rng, shape, dtype))
    ishape = tuple(int(rng.integers(1, 7)) if e == d % nd else int(rng.integers(1, s + 1)) for e, s in enumerate(shape))
    hi = size + (1 if rng.random() < 0.1 else 0)  # (sometimes out of range: the error)
    index = strided.from_numpy(rng.integers(0, hi, ishape))
    src = strided.from_numpy(_values(rng, ishape, dtype))
    m = int(rng.integers(1, 7))
    vec = strided.from_numpy(rng.integers(0, hi, m))
    source = strided.from_numpy(_values(rng, shape[: d % nd] + (m,) + shape[d % nd + 1:], dtype))
    inc = bool(rng.random() < 0.5)
    rows = strided.from_numpy(_values(rng, (m,) + shape[1:], dtype))  # (index_put's values: along dim 0)
    value = float(rng.standard_normal()) if np.dtype(dtype).kind == "f" else int(rng.integers(-9, 9))
    return [
        ("gather", lambda: strided.gather(x, d, index)),
        ("scatter", lambda: strided.scatter(x, d, index, src)),
        ("scatter_add", lambda: strided.scatter_add(x, d, index, src)),
        ("scatter_reduce", lambda: strided.scatter_reduce(x, d, index, src, "sum", include_self=inc)),
        ("scatter_reduce", lambda: strided.scatter_reduce(x, d, index, src, "prod", include_self=inc)),
        ("index_select", lambda: strided.index_select(x, d, vec)),
        ("index_copy", lambda: strided.index_copy(x, d, vec, source)),
        ("index_add", lambda: strided.index_add(x, d, vec, source)),
        ("index_reduce", lambda: strided.index_reduce(x, d, vec, source, "prod", include_self=inc)),
        ("index_fill", lambda: strided.index_fill(x, d, vec, value)),
        ("index_put", lambda: x.index_put((vec,), rows, accumulate=inc)),
        ("index_put_", lambda: x.clone().index_put_((vec,), rows, accumulate=inc)),
    ]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_compiled_paths_are_the_numpy_paths_bit_for_bit(dtype, monkeypatch):
    rng = np.random.default_rng(int(np.dtype(dtype).num))
    compiled, hits = [], 0
    for _ in range(150):
        state = rng.bit_generator.state
        compiled.append([(name, _result(call)) for name, call in _calls(rng, dtype)])
        rng.bit_generator.state = state
        _calls(rng, dtype)
    with monkeypatch.context() as m:
        m.setattr(GS, "ALONG_C", None)
        m.setattr(IO, "SLICES_C", None)
        m.setattr(AD, "SLICES_C", None)
        rng = np.random.default_rng(int(np.dtype(dtype).num))
        for got in compiled:
            want = [(name, _result(call)) for name, call in _calls(rng, dtype)]
            assert got == want
            hits += sum(len(r) > 2 for _, r in got)  # (a result, not an error)
    assert hits > 500  # (most calls ran: the comparison is not of errors only)


def test_compiled_paths_answer_none_outside_their_preconditions():
    x = strided.arange(12.0).reshape(3, 4)
    i = strided.tensor([[0, 3, 1, 1]])
    assert FA.ALONG_C(0, x, 1, i, None) is not None
    assert FA.ALONG_C(0, x.t(), 1, i, None) is None  # (not row-major)
    assert FA.ALONG_C(0, x, 1, i.to(strided.int32), None) is None  # (an int32 index: the general path)
    assert FA.ALONG_C(0, x, 1, strided.tensor([[0, 4, 1, 1]]), None) is None  # (out of range)
    assert FA.ALONG_C(0, x, 1, strided.tensor([[0, -1, 1, 1]]), None) is None  # (negative)
    assert FA.ALONG_C(0, x.to(strided.float16), 1, i, None) is None
    assert FA.ALONG_C(2, x, 1, i, strided.ones(1, 4, dtype=strided.float64)) is None  # (src of another dtype)
    assert FA.ALONG_C(0, x, 2, i, None) is None and FA.ALONG_C(0, x, True, i, None) is None
    v = strided.tensor([2, 0])
    assert FA.SLICES_C(0, x, 0, v, None) is not None
    assert FA.SLICES_C(8, x, 0, v, 1) is None  # (an int into a float tensor: NumPy's setitem decides)
    assert FA.SLICES_C(8, x.long(), 0, v, 2**40) is not None and FA.SLICES_C(8, x.int(), 0, v, 2**40) is None
    assert FA.SLICES_C(1, x, 0, v, strided.ones(2, 3)) is None  # (a source of the wrong shape)
    assert FA.SLICES_C(17, x, 0, v, x[:2]) is None  # (in place from a view of self: the general path)
    assert FA.SLICES_C(17, x, 0, v, strided.ones(2, 4)) is True and x[2].tolist() == [1.0] * 4


def test_out_of_range_raises_and_writes_nothing():
    x = strided.arange(12.0).reshape(3, 4)
    before = x.numpy().copy()
    with pytest.raises(RuntimeError, match="index 4 is out of bounds for dimension 1 with size 4"):
        strided.gather(x, 1, strided.tensor([[0, 4]]))
    with pytest.raises(RuntimeError, match="index 3 is out of bounds for dimension 0 with size 3"):
        strided.index_add(x, 0, strided.tensor([0, 3]), strided.ones(2, 4))
    with pytest.raises(IndexError):
        strided.index_fill(x, 0, strided.tensor([3]), 1.5)
    with pytest.raises(RuntimeError, match="value cannot be converted"):
        strided.index_fill(x, 0, strided.tensor([1]), 1e300)
    assert np.array_equal(x.numpy(), before)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64])
def test_compiled_paths_agree_with_torch(dtype):
    g = torch.Generator().manual_seed(0)
    x = (torch.randn(4, 5, generator=g) * 4).to(dtype)
    idx = torch.randint(0, 4, (3, 5), generator=g)  # (in range along both dims)
    src = (torch.randn(3, 5, generator=g) * 4).to(dtype)
    vec = torch.tensor([3, 0, 3])
    s = lambda t: strided.from_numpy(t.numpy())  # noqa: E731
    pairs = [
        (strided.gather(s(x), 1, s(idx)), torch.gather(x, 1, idx)),
        (strided.scatter_add(s(x), 0, s(idx), s(src)), torch.scatter_add(x, 0, idx, src)),
        (strided.scatter_reduce(s(x), 0, s(idx), s(src), "prod", include_self=False),
         torch.scatter_reduce(x, 0, idx, src, "prod", include_self=False)),
        (strided.index_select(s(x), 0, s(vec)), torch.index_select(x, 0, vec)),
        (strided.index_add(s(x), 0, s(vec), s(src)), torch.index_add(x, 0, vec, src)),
        (strided.index_copy(s(x), 0, strided.tensor([3, 0, 1]), s(src)), torch.index_copy(x, 0, torch.tensor([3, 0, 1]), src)),
        (strided.index_fill(s(x), 1, s(vec), 2), torch.index_fill(x, 1, vec, 2)),
        (s(x).index_put((s(vec),), s(src), accumulate=True), x.index_put((vec,), src, accumulate=True)),
        (s(x).clone().index_put_((strided.tensor([3, 0, 1]),), s(src)), x.clone().index_put_((torch.tensor([3, 0, 1]),), src)),
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pairs.append((strided.index_reduce(s(x), 0, s(vec), s(src), "prod"), torch.index_reduce(x, 0, vec, src, "prod")))
    for ours, theirs in pairs:
        assert ours.shape == tuple(theirs.shape) and ours.stride() == theirs.stride()
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)


_POOL_FLOAT = np.array([-2, -1, -0.0, 0.0, 0.5, 1, 1, 2, 3, np.inf, -np.inf, np.nan])
_POOL_INT = np.array([-3, -1, 0, 0, 1, 2, 2, 5, 7])


def _search_calls(rng, dtype):
    """searchsorted / bucketize in a sorted (sometimes unsorted, or NaN-holding) sequence with
    repeats, -0.0 beside 0.0 and infinities, of values with NaN; nonzero / argwhere with NaN and -0.0."""
    pool = _POOL_FLOAT if np.dtype(dtype).kind == "f" else _POOL_INT
    n = int(rng.integers(1, 12))
    seq = rng.choice(pool[~np.isnan(pool)] if rng.random() < 0.9 else pool, n).astype(dtype)
    if rng.random() < 0.9:
        seq = np.sort(seq)
    vshape = tuple(int(v) for v in rng.integers(1, 5, int(rng.integers(0, 3))))
    s = strided.from_numpy(seq)
    v = strided.from_numpy(np.asarray(rng.choice(pool, vshape).astype(dtype)))
    x = strided.from_numpy(np.asarray(rng.choice(pool, tuple(int(k) for k in rng.integers(1, 5, int(rng.integers(1, 4)))))
                                      .astype(dtype)))
    right = bool(rng.random() < 0.5)
    return [
        ("searchsorted", lambda: strided.searchsorted(s, v, right=right)),
        ("bucketize", lambda: strided.bucketize(v, s, right=right)),
        ("nonzero", lambda: strided.nonzero(x)),
        ("argwhere", lambda: strided.argwhere(x)),
    ]


def _same_without_compiled(make, seed, dtype, monkeypatch, *off):
    """Every call of ``make(rng, dtype)`` (300 random cases) gives the same result (bytes, dtype,
    shape, strides, or error) with the compiled entries as with ``off``'s (module, name) set to None."""
    rng = np.random.default_rng(seed + int(np.dtype(dtype).num))
    compiled = [[(name, _result(call)) for name, call in make(rng, dtype)] for _ in range(300)]
    for module, name in off:
        monkeypatch.setattr(module, name, None)
    rng = np.random.default_rng(seed + int(np.dtype(dtype).num))
    for got in compiled:
        assert got == [(name, _result(call)) for name, call in make(rng, dtype)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_compiled_search_and_nonzero_are_numpy_bit_for_bit(dtype, monkeypatch):
    from strided.ops.indexing import masked as MK
    from strided.ops.shape import searching as SE

    _same_without_compiled(_search_calls, 7, dtype, monkeypatch, (SE, "SEARCH_C"), (MK, "NONZERO_C"))


def test_compiled_search_and_nonzero_agree_with_torch():
    seq = torch.tensor([-1.0, 0.0, 0.0, 2.0, float("inf")])
    vals = torch.tensor([[float("nan"), -0.0, 2.0], [3.0, -5.0, 0.0]])
    s = lambda t: strided.from_numpy(t.numpy())  # noqa: E731
    for right in (False, True):
        assert strided.searchsorted(s(seq), s(vals), right=right).tolist() == \
            torch.searchsorted(seq, vals, right=right).tolist()
        assert strided.bucketize(s(vals), s(seq), right=right).tolist() == \
            torch.bucketize(vals, seq, right=right).tolist()
    ours, theirs = strided.nonzero(s(vals)), torch.nonzero(vals)
    assert ours.tolist() == theirs.tolist() and ours.stride() == theirs.stride()
    assert FA.NONZERO_C(s(vals)) is not None and FA.NONZERO_C(strided.tensor(1.0)) is None  # (0-d: the general path)


_FILLS = [0.5, -0.0, float("nan"), float("inf"), 3.5e38, 3.4028235e38, 1e300, 3, -7, 2**31, 2**40, 2**70, True]


def _masked_calls(rng, dtype):
    """masked_fill with values at and past each dtype's range (NaN, inf, float32's largest, ints
    that do not fit), masked_scatter from sources long enough or not, nonzero of the bool mask."""
    shape = tuple(int(v) for v in rng.integers(1, 5, int(rng.integers(1, 4))))
    x = strided.from_numpy(_values(rng, shape, dtype))
    m = strided.from_numpy(rng.random(shape) < 0.5)
    value = _FILLS[rng.integers(len(_FILLS))]
    source = strided.from_numpy(_values(rng, (int(rng.integers(0, 30)),), dtype))
    return [
        ("masked_fill", lambda: strided.masked_fill(x, m, value)),
        ("masked_scatter", lambda: strided.masked_scatter(x, m, source)),
        ("masked_scatter", lambda: strided.masked_scatter(x, m, x)),
        ("nonzero", lambda: strided.nonzero(m)),
        ("index_fill", lambda: strided.index_fill(x, 0, strided.tensor([0]), value)),
    ]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_compiled_masked_are_numpy_bit_for_bit(dtype, monkeypatch):
    from strided.ops.indexing import masked as MK

    _same_without_compiled(_masked_calls, 11, dtype, monkeypatch, (MK, "MASKED_C"), (MK, "NONZERO_C"),
                           (IO, "SLICES_C"))


def test_compiled_masked_agree_with_torch():
    x = torch.tensor([[1.0, -2.0, 3.0], [-4.0, 5.0, -6.0]])
    m = x < 0
    src = torch.arange(10.0)
    s = lambda t: strided.from_numpy(t.numpy())  # noqa: E731
    assert strided.masked_fill(s(x), s(m), 0.25).tolist() == torch.masked_fill(x, m, 0.25).tolist()
    assert strided.masked_scatter(s(x), s(m), s(src)).tolist() == torch.masked_scatter(x, m, src).tolist()
    assert strided.nonzero(s(m)).tolist() == torch.nonzero(m).tolist()
    assert FA.MASKED_C(1, s(x), s(m), strided.ones(2)) is None  # (fewer source values than Trues: the error)
    with pytest.raises(RuntimeError, match="Number of elements of source < number of ones in mask"):
        strided.masked_scatter(s(x), s(m), strided.ones(2))


def _window_calls(rng, dtype):
    """The view scatters over row-major inputs (some views into a longer storage, with an offset)
    with in-range and out-of-range windows, overlapping and negative-stride as_strided windows,
    src of the window's shape or not."""
    shape = tuple(int(v) for v in rng.integers(1, 5, int(rng.integers(2, 4))))
    n = int(np.prod(shape))
    off = int(rng.integers(0, 3))
    x = strided.from_numpy(_values(rng, (n + 4,), dtype))[off: off + n].reshape(shape)
    d = int(rng.integers(-len(shape), len(shape)))
    k = shape[d]
    start, step = int(rng.integers(-k, k + 1)), int(rng.integers(1, 3))
    length = len(range(*slice(start, None, step).indices(k)))
    rest = shape[: d % len(shape)] + shape[d % len(shape) + 1:]
    src_select = strided.from_numpy(_values(rng, rest, dtype))
    src_slice = strided.from_numpy(_values(rng, shape[: d % len(shape)] + (length,) + shape[d % len(shape) + 1:], dtype))
    o = int(rng.integers(-2, 3))
    try:
        diag = x.diagonal(o, 0, -1).shape
    except RuntimeError:
        diag = (1,)
    src_diag = strided.from_numpy(_values(rng, diag, dtype))
    size = tuple(int(v) for v in rng.integers(0, 4, int(rng.integers(1, 3))))
    stride = tuple(int(v) for v in rng.integers(-1 if rng.random() < 0.1 else 0, 5, len(size)))
    src_window = strided.from_numpy(_values(rng, size, dtype))
    return [
        ("select_scatter", lambda: strided.select_scatter(x, src_select, d, int(rng.integers(-k, k)))),
        ("slice_scatter", lambda: strided.slice_scatter(x, src_slice, d, start, None, step)),
        ("diagonal_scatter", lambda: strided.diagonal_scatter(x, src_diag, o, 0, -1)),
        ("as_strided_scatter", lambda: strided.as_strided_scatter(x, src_window, size, stride)),
        ("as_strided_scatter", lambda: strided.as_strided_scatter(x, src_window, list(size), list(stride), 1)),
    ]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_compiled_view_scatters_are_the_python_path_bit_for_bit(dtype, monkeypatch):
    from strided.ops.shape import scatters as SC

    _same_without_compiled(_window_calls, 13, dtype, monkeypatch, (SC, "WINDOW_C"))


def test_compiled_view_scatter_keeps_the_storage_and_agrees_with_torch():
    base = torch.arange(20.0)
    x = base[2:14].view(3, 4)
    sx = strided.from_numpy(base.numpy())[2:14].view(3, 4)
    src = torch.tensor([-1.0, -2.0, -3.0])
    s = strided.from_numpy(src.numpy())
    pairs = [
        (strided.diagonal_scatter(sx, s), torch.diagonal_scatter(x, src)),
        (strided.select_scatter(sx, s, 1, 2), torch.select_scatter(x, src, 1, 2)),
        (strided.as_strided_scatter(sx, s, (3,), (5,), 3), torch.as_strided_scatter(x, src, (3,), (5,), 3)),
    ]
    for ours, theirs in pairs:
        assert ours.tolist() == theirs.tolist()
        assert ours.stride() == theirs.stride() and ours.storage_offset() == theirs.storage_offset()
        assert ours._storage.array.size == theirs.untyped_storage().size() // 4
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        strided.as_strided_scatter(sx, strided.ones(2, 2), (2, 2), (1, 1))


def _isin_calls(rng, dtype):
    """isin with NaN, -0.0 and repeats among both operands, test sets of 1 to 80 elements (the
    compiled scan takes up to 64), invert both ways."""
    pool = _POOL_FLOAT if np.dtype(dtype).kind == "f" else _POOL_INT
    shape = tuple(int(v) for v in rng.integers(1, 5, int(rng.integers(0, 3))))
    a = strided.from_numpy(np.asarray(rng.choice(pool, shape).astype(dtype)))
    b = strided.from_numpy(rng.choice(pool, int(rng.integers(1, 80))).astype(dtype))
    invert = bool(rng.random() < 0.5)
    return [("isin", lambda: strided.isin(a, b, invert=invert))]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_compiled_isin_is_numpy_bit_for_bit(dtype, monkeypatch):
    from strided.ops.shape import sets as SS

    _same_without_compiled(_isin_calls, 17, dtype, monkeypatch, (SS, "ISIN_C"))
    x = torch.tensor([float("nan"), -0.0, 1.0, 2.5])
    t = torch.tensor([0.0, float("nan"), 2.5])
    assert strided.isin(strided.from_numpy(x.numpy()), strided.from_numpy(t.numpy())).tolist() == torch.isin(x, t).tolist()
