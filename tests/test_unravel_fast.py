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


def _kernel_rows():
    from strided.kernels import native

    k = native.kernel()
    return getattr(k, "unravel_rows", None) if k is not None else None


_SHAPES = [(3, 4), (1000, 1000), (7,), (2, 3, 5), (1, 1, 1), (5, 1, 3), (2**31 + 3, 3), (3, 2**40), (2**20,) * 3,
           (6,) * 20, (2**63 - 1,), (2, 2**62 - 1), (1, 2**63 - 1), (2**62, 1)]


def _edge_indices(rng: np.random.Generator) -> np.ndarray:
    """Indices on both sides of the kernel's fast range [0, 2^50) and int64's ends, mixed within
    groups of 8 (the vector form's unit), and a length that is no multiple of 8."""
    info = np.iinfo(np.int64)
    edges = np.array([0, -1, info.max, info.min, 2**50, 2**50 - 1, -2**50, 2**50 + 1, 12, 59, 60, 2**49], np.int64)
    return np.concatenate([rng.integers(-2**62, 2**62, 300), rng.integers(-100, 100, 300), rng.integers(0, 10**6, 400),
                           rng.integers(2**49, 2**51, 300), edges, rng.permutation(np.tile(edges, 5))])


def test_compiled_rows_are_the_numpy_path_and_torch():
    """The copy kernel's unravel_rows (one pass; AVX-512 where the CPU has it) against the NumPy
    ufunc path (native off) and PyTorch, row-major and transposed, on every shape above."""
    from strided.kernels import native

    rng = np.random.default_rng(2028)
    idx = _edge_indices(rng)
    assert idx.size % 8 != 0
    square = np.resize(idx, (33, 41))
    for dims in _SHAPES:
        for a, t in ((idx, torch.from_numpy(idx)), (square.T, torch.from_numpy(square).T)):
            x = st.from_numpy(square).T if a.ndim == 2 else st.from_numpy(a)
            ours = st.unravel_index(x, dims)
            with native.disabled():
                plain = st.unravel_index(x, dims)
            _same(ours, plain, torch.unravel_index(t, dims))


def test_the_kernel_is_taken_and_refuses_what_it_does_not_take():
    run = _kernel_rows()
    if run is None:
        return
    rng = np.random.default_rng(5)
    idx = _edge_indices(rng)
    for dims in _SHAPES:
        out = np.empty(idx.size * len(dims), np.int64)
        assert run(idx, tuple(dims), out) is True
        want = torch.stack(torch.unravel_index(torch.from_numpy(idx), dims), -1).numpy().ravel()
        assert out.tobytes() == want.tobytes()
    out = np.empty(idx.size * 2, np.int64)
    assert run(idx, (3, 0), out) is False  # (a zero dim: the general path's error)
    assert run(idx, (2**62, 2, 2), out[: idx.size * 3 // 2]) is False  # (wrong out size)
    assert run(idx, (2**40, 2**40, 2**30), np.empty(idx.size * 3, np.int64)) is False  # (strides past int64)
    assert run(idx.astype(np.int32), (3, 4), out) is False
    assert run(idx, [3, 4], out) is False  # (dims: a tuple of ints only)
    assert run(out[: idx.size], (3, 4), out) is False  # (overlapping)


def test_unaligned_indices_take_the_numpy_path():
    idx = _edge_indices(np.random.default_rng(9))
    buf = np.zeros(idx.nbytes + 16, np.uint8)
    buf[3: 3 + idx.nbytes] = idx.view(np.uint8)
    odd = np.frombuffer(buf.data, dtype=np.int64, count=idx.size, offset=3)
    assert not odd.flags.aligned
    for dims in ((3, 4), (2, 3, 5)):
        got = st.unravel_index(st.from_numpy(odd), dims)
        _same(got, st.unravel_index(st.from_numpy(idx), dims), torch.unravel_index(torch.from_numpy(idx), dims))


def test_shapes_past_int64_raise_torchs_value_error():
    """A dim, or a row-major stride computed from the shape, beyond int64: PyTorch's ValueError
    ("Overflow when unpacking long long", from torch.Size(shape) or torch.tensor(coefs)); before,
    NumPy's OverflowError. Within int64 the coordinates are PyTorch's."""
    import pytest

    idx = np.array([1, 5], np.int64)
    for shape in [(2**40, 2**40, 2**30), (2**63, 2), (2, 2**63), (3, 2**64), 2**63, (0, 2**40, 2**40)]:
        with pytest.raises(ValueError, match="Overflow when unpacking long long") as theirs:
            torch.unravel_index(torch.from_numpy(idx), shape)
        with pytest.raises(ValueError, match="Overflow when unpacking long long") as ours:
            st.unravel_index(st.from_numpy(idx), shape)
        assert type(theirs.value) is ValueError and not isinstance(ours.value, OverflowError)
    # the sign check comes first, and a zero stride's division before the shape's conversion
    for shape, error, cls in [((2**63, -1), "negative", ValueError), ((-(2**63) - 1,), "negative", ValueError),
                              ((2**63, 0), "ZeroDivisionError", RuntimeError)]:
        with pytest.raises(cls, match=error):
            torch.unravel_index(torch.from_numpy(idx), shape)
        with pytest.raises(cls, match=error):
            st.unravel_index(st.from_numpy(idx), shape)
    with pytest.raises(ValueError, match="Overflow"):  # (no element to divide: the shape's conversion)
        torch.unravel_index(torch.from_numpy(idx[:0]), (2**63, 0))
    with pytest.raises(ValueError, match="Overflow"):
        st.unravel_index(st.from_numpy(idx[:0]), (2**63, 0))
    for shape in [(2**62, 2, 2), (2**63 - 1, 1, 2), (2**32, 2**31, 2)]:
        _same(st.unravel_index(st.from_numpy(idx), shape), st.unravel_index(st.from_numpy(idx), shape),
              torch.unravel_index(torch.from_numpy(idx), shape))
