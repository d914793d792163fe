"""The joins' and views' fast paths give exactly what the general paths give, and what PyTorch gives.

Each case runs twice: as called (fast path where it applies) and with the fast path switched off
(monkeypatched to answer None / the general function); the two results must agree bit for bit in
values (NaN payloads and -0.0 included), dtype, shape, strides, storage offset and view-vs-copy.
PyTorch then checks the same calls' shapes, strides, offsets and values.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
import torch

import strided as st
from oracle_helpers import case
from strided.ops.shape import fast_join, joining

DTYPES = [np.float32, np.float64, np.int64]


def _data(shape: tuple, dtype: type, seed: int) -> np.ndarray:
    r = np.random.RandomState(seed)
    a = (r.randn(*shape) * 10).astype(dtype)
    if a.size and np.issubdtype(dtype, np.floating):
        flat = a.reshape(-1)
        flat[0] = -0.0
        flat[-1] = np.nan
    return a


def _layouts(shape: tuple, dtype: type, seed: int) -> list:
    """Tensors of ``shape``: contiguous, at an offset in a bigger storage, and transposed twice
    (row-major strides, a non-row-major route)."""
    a = _data(shape, dtype, seed)
    base = st.tensor(a)
    padded = st.tensor(np.concatenate([_data((3,), dtype, seed + 1), a.reshape(-1)]))[3:].reshape(shape)
    out = [base, padded]
    if len(shape) >= 2:
        out.append(st.tensor(np.ascontiguousarray(np.swapaxes(a, 0, 1))).transpose(0, 1))
    return out


def _same(got: st.Tensor, want: st.Tensor) -> None:
    assert (got.shape, got.stride(), got.storage_offset(), got.dtype) == (
        want.shape, want.stride(), want.storage_offset(), want.dtype)
    assert got.numpy().tobytes() == want.numpy().tobytes()


def _general(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(joining, "flat_join", lambda *a: None)
    monkeypatch.setattr(fast_join, "_JOIN_C", None)  # (cat and stack call the compiled join directly)


JOINS = {
    "cat0": lambda ts: st.cat(ts), "cat1": lambda ts: st.cat(ts, dim=-1), "stack0": lambda ts: st.stack(ts),
    "stack1": lambda ts: st.stack(ts, 1), "stack_last": lambda ts: st.stack(ts, -1), "hstack": st.hstack,
    "vstack": st.vstack, "row_stack": st.row_stack, "dstack": st.dstack, "column_stack": st.column_stack,
}
TORCH_JOINS = {
    "cat0": lambda ts: torch.cat(ts), "cat1": lambda ts: torch.cat(ts, dim=-1), "stack0": lambda ts: torch.stack(ts),
    "stack1": lambda ts: torch.stack(ts, 1), "stack_last": lambda ts: torch.stack(ts, -1), "hstack": torch.hstack,
    "vstack": torch.vstack, "row_stack": torch.vstack, "dstack": torch.dstack, "column_stack": torch.column_stack,
}


@pytest.mark.parametrize("op", sorted(JOINS))
def test_joins_fast_is_general_and_torch(op, monkeypatch):
    for shape in [(3, 4), (1, 5), (4, 1), (6,), (2, 1, 3), (0, 3), (2, 0)]:
        with case(shape=shape), monkeypatch.context() as mp:
            _joins_fast_is_general_and_torch(op, shape, mp)


def _joins_fast_is_general_and_torch(op: str, shape: tuple, monkeypatch: pytest.MonkeyPatch) -> None:
    if len(shape) == 1 and op in ("cat1",):
        shape = (2, 3)
    for dtype in DTYPES:
        for i, a in enumerate(_layouts(shape, dtype, 1)):
            for b in _layouts(shape, dtype, 7)[i:i + 2]:
                got = JOINS[op]([a, b, a])
                with monkeypatch.context() as m:
                    _general(m)
                    want = JOINS[op]([a, b, a])
                _same(got, want)
                assert not np.shares_memory(got._storage.array, a._storage.array)
                t = TORCH_JOINS[op]([torch.from_numpy(a.numpy()), torch.from_numpy(b.numpy()),
                                     torch.from_numpy(a.numpy())])
                assert (got.shape, got.stride()) == (tuple(t.shape), t.stride())
                assert got.numpy().tobytes() == t.numpy().tobytes()


def _join_checked(op: str, a: st.Tensor, b: st.Tensor, monkeypatch: pytest.MonkeyPatch) -> None:
    """``op`` of ``[a, b]``: the fast path's result is the general path's, and PyTorch's values and strides."""
    got = JOINS[op]([a, b])
    with monkeypatch.context() as m:
        _general(m)
        _same(got, JOINS[op]([a, b]))
    t = TORCH_JOINS[op]([torch.from_numpy(a.numpy()), torch.from_numpy(b.numpy())])
    assert got.tolist() == t.tolist() and got.stride() == t.stride()


@pytest.mark.parametrize("op", ["cat0", "cat1", "hstack", "vstack", "dstack", "column_stack"])
def test_joins_of_other_sizes(op: str, monkeypatch: pytest.MonkeyPatch) -> None:
    b = (st.arange(9.0).reshape(3, 3) if op in ("cat0", "vstack") else
         st.arange(12.0).reshape(2, 3, 2) if op == "dstack" else st.arange(8.0).reshape(2, 4))
    _join_checked(op, st.arange(6.0).reshape(2, 3), b, monkeypatch)


@pytest.mark.parametrize("op", ["hstack", "vstack", "dstack", "column_stack", "stack0"])
def test_joins_of_low_rank_inputs(op: str, monkeypatch: pytest.MonkeyPatch) -> None:
    for a, b in [(st.tensor(1.5), st.tensor(-0.0)), (st.arange(3.0), st.arange(3.0, 6.0))]:
        _join_checked(op, a, b, monkeypatch)


@pytest.mark.parametrize("op", ["vstack", "row_stack", "dstack", "column_stack"])
def test_joins_of_mixed_ranks(op: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A high-rank first input with a lower-rank one after it: the compiled join (called first)
    declines, and the inputs are read as the op reads them."""
    first = st.arange(12.0).reshape(2, 3, 2) if op == "dstack" else st.arange(6.0).reshape(2, 3)
    low = st.arange(6.0, 12.0).reshape(2, 3) if op == "dstack" else st.arange(6.0, 8.0 if op == "column_stack" else 9.0)
    _join_checked(op, first, low, monkeypatch)
    _join_checked(op, low, first, monkeypatch)


def test_join_errors_unchanged(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = [lambda: st.cat([st.ones(2, 3), st.ones(3, 2)]), lambda: st.cat([st.ones(2, 3)], dim=2),
             lambda: st.stack([st.ones(2), st.ones(3)]), lambda: st.stack([st.ones(2)], dim=5),
             lambda: st.cat([st.ones(2), 3]), lambda: st.vstack([st.ones(2), st.ones(3)]),
             lambda: st.cat([st.tensor(1.0), st.tensor(2.0)])]
    for call in calls:
        with pytest.raises(Exception) as fast:
            call()
        with monkeypatch.context() as m:
            _general(m)
            with pytest.raises(Exception) as general:
                call()
        assert (type(fast.value), str(fast.value)) == (type(general.value), str(general.value))


def test_join_mixed_dtypes_and_4d_take_the_general_path() -> None:
    got = st.cat([st.ones(2, dtype=st.int64), st.ones(2, dtype=st.float32)])
    assert got.dtype == st.float32 and got.tolist() == [1.0] * 4
    x = st.ones(2, 3, 4, 5).to(memory_format=st.channels_last)
    t = torch.ones(2, 3, 4, 5).to(memory_format=torch.channels_last)
    assert st.cat([x, x]).stride() == torch.cat([t, t]).stride()


def test_join_is_recorded_and_watched() -> None:
    a = st.ones(2, 3, requires_grad=True)
    b = st.arange(6.0).reshape(2, 3)
    (st.cat([a, b], 1) * st.arange(12.0).reshape(2, 6)).sum().backward()
    ta = torch.ones(2, 3, requires_grad=True)
    (torch.cat([ta, torch.arange(6.0).reshape(2, 3)], 1) * torch.arange(12.0).reshape(2, 6)).sum().backward()
    assert a.grad.tolist() == ta.grad.tolist()
    with st.record_copies() as copies:
        st.stack([b, b])
        st.cat([b, b])
        st.vstack([b, b])
    assert [c.reason for c in copies] == [
        "stack: 2 tensors stacked along dim 0 into new memory", "cat: 2 tensors joined along dim 0 into new memory",
        "vstack: 2 tensors joined along dim 0 into new memory"]
    assert [c.nbytes for c in copies] == [48, 48, 48]


def _outcome(source: st.Tensor, call: Callable, *args: object) -> object:
    """(shape, strides, offset, values, shares memory with ``source``) of a call's result, or its
    error's (class, text)."""
    try:
        y = call(*args)
    except Exception as e:  # noqa: BLE001 - the class and text are what is compared
        return type(e), str(e)
    return y.shape, y.stride(), y.storage_offset(), y.tolist(), st.shares_memory(y, source)


x_base = st.arange(24.0)


AS_STRIDED = [((2, 3), (3, 1), None), ((2, 2), (1, 2), 1), ((3,), (0,), 5), ((0, 4), (4, 1), 30), ((2, 2), (12, 1), 11),
              ((2, 2), (12, 1), 13), ((2,), (-1,), 3), ((True, 2), (1, 1), 0), ((2.0,), (1,), 0), ([2, 2], [2, 1], 0)]


def test_as_strided_remembered_is_fresh_and_torch() -> None:
    t = torch.arange(24.0)
    for size, stride, offset in AS_STRIDED:
        base = x_base[2:]  # (offset 2: storage_offset=None keeps it)
        tbase = t[2:]
        st.layout.memo.AS_STRIDED.clear()
        fresh = _outcome(base, base.as_strided, size, stride, offset)
        hit = _outcome(base, base.as_strided, size, stride, offset)
        assert hit == fresh
        for same in [(tuple(int(v) for v in size), tuple(stride))]:  # the plain spelling remembered first
            _outcome(base, base.as_strided, *same, offset)
            assert _outcome(base, base.as_strided, size, stride, offset) == fresh, (size, stride, offset)
        try:
            want = tbase.as_strided(size, stride, offset)
        except Exception as e:  # noqa: BLE001
            assert isinstance(fresh, tuple) and fresh[0] is not tuple and issubclass(fresh[0], type(e))
            continue
        assert fresh[:4] == (tuple(want.shape), want.stride(), want.storage_offset(), want.tolist())


def test_as_strided_checks_each_storage_size() -> None:
    small, big = st.arange(4.0), st.arange(8.0)
    assert big.as_strided((2, 2), (4, 1)).tolist() == [[0.0, 1.0], [4.0, 5.0]]
    with pytest.raises(RuntimeError, match="out of bounds"):
        small.as_strided((2, 2), (4, 1))


RESHAPES = [(-1,), (2, -1), (4, 3, 2), 24, -1, (2, 2, 6), (5, -1), (-1, -1), (True, -1), (2.0, 12), (24,), (-2, 12)]


@pytest.mark.parametrize("make", [lambda: st.arange(24.0), lambda: st.arange(24.0).reshape(4, 6).t(),
                                  lambda: st.arange(30.0)[3:27].reshape(2, 3, 4)[:, ::1, :]])
def test_numpy_reshape_remembered_is_fresh_and_numpy(make: object) -> None:
    for shape in RESHAPES:
        st.layout.memo.NUMPY_RESHAPE.clear()
        x = make()  # type: ignore[operator]
        fresh = _outcome(x, st.reshape, x, shape)
        plain = tuple(int(v) for v in shape) if isinstance(shape, tuple) else shape
        _outcome(x, st.reshape, x, plain)
        assert _outcome(x, st.reshape, x, shape) == fresh, shape
        a = x.numpy()
        try:
            want = np.reshape(a, shape)
        except (ValueError, TypeError):
            assert isinstance(fresh[0], type) and issubclass(fresh[0], (ValueError, TypeError, RuntimeError)), shape
            continue
        assert fresh[0] == want.shape and fresh[3] == want.tolist()
        assert fresh[4] == np.shares_memory(want, a), shape
        with st.record_copies() as copies:
            st.reshape(x, shape)
        assert len(copies) == (0 if fresh[4] else 1)


COPY_CALLS = [("alias_copy", ()), ("detach_copy", ()), ("t_copy", ()), ("transpose_copy", (0, -1)),
              ("permute_copy", ((-1, 0),)), ("unsqueeze_copy", (1,)), ("squeeze_copy", ()), ("select_copy", (0, -1)),
              ("narrow_copy", (0, 0, 1)), ("expand_copy", ((2, -1, -1),)), ("diagonal_copy", ()),
              ("slice_copy", (-1, 0, 3, 2)), ("unfold_copy", (0, 1, 1)), ("view_copy", ((-1,),)),
              ("split_copy", (1,)), ("unbind_copy", (1,)), ("as_strided_copy", ((1, 1), (1, 1)))]


def _pieces(out: object) -> list:
    return list(out) if isinstance(out, tuple) else [out]


@pytest.mark.parametrize("name,args", COPY_CALLS, ids=[c[0] for c in COPY_CALLS])
def test_copy_forms_fast_is_general_and_torch(name: str, args: tuple, monkeypatch: pytest.MonkeyPatch) -> None:
    from strided.ops import copies

    for dtype in DTYPES:
        for shape in [(3, 4), (1, 5), (2, 0)]:
            for x in _layouts(shape, dtype, 3):
                try:
                    got = getattr(st, name)(x, *args)
                except RuntimeError as e:  # (as_strided_copy of an empty storage): the same error both ways
                    with monkeypatch.context() as m, pytest.raises(RuntimeError) as general:
                        m.setattr(copies, "_SMALL_BYTES", -1)
                        getattr(st, name)(x, *args)
                    assert str(general.value) == str(e) and shape == (2, 0)
                    continue
                with monkeypatch.context() as m:
                    m.setattr(copies, "_SMALL_BYTES", -1)  # (the general copy path)
                    want = getattr(st, name)(x, *args)
                for g, w in zip(_pieces(got), _pieces(want), strict=True):
                    _same(g, w)
                    assert not st.shares_memory(g, x) and g._base is None
                t = getattr(torch, name)(torch.from_numpy(x.numpy()), *args)
                for g, w in zip(_pieces(got), _pieces(t), strict=True):
                    assert (g.shape, g.stride()) == (tuple(w.shape), w.stride())
                    assert g.numpy().tobytes() == w.numpy().tobytes()


def test_copy_forms_watched_and_recorded() -> None:
    x = st.arange(12.0).reshape(3, 4)
    with st.record_copies() as copies:
        st.t_copy(x)
        st.unbind_copy(x)
    assert [(c.reason, c.nbytes) for c in copies] == [
        ("t_copy: the elements t() views, copied into new contiguous memory", 48)] + [
        ("unbind_copy: the elements unbind() views, copied into new contiguous memory", 16)] * 3
    a = st.arange(12.0, requires_grad=True)
    (st.view_copy(a, (3, 4)).t() * st.arange(12.0).reshape(4, 3)).sum().backward()
    ta = torch.arange(12.0, requires_grad=True)
    (torch.view_copy(ta, (3, 4)).t() * torch.arange(12.0).reshape(4, 3)).sum().backward()
    assert a.grad.tolist() == ta.grad.tolist()


@pytest.mark.parametrize("dims", [(1, 0), (0, 1), (-1, 0), (0, 0), (0, 2), (), (1,), (True, 0)])
def test_permute_of_one_tuple_is_permute_of_ints(dims: tuple) -> None:
    x, t = st.arange(12.0).reshape(3, 4)[:, 1:], torch.arange(12.0).reshape(3, 4)[:, 1:]
    st.layout.memo.PERMUTE.clear()
    spread, one = _outcome(x, x.permute, *dims), _outcome(x, x.permute, dims)
    assert one == _outcome(x, x.permute, dims)  # (remembered)
    if isinstance(spread, tuple) and isinstance(spread[0], tuple):
        assert one == spread
        w = t.permute(dims)
        assert one[:4] == (tuple(w.shape), w.stride(), w.storage_offset(), w.tolist())
    else:
        with pytest.raises(Exception) as e:
            t.permute(dims)
        assert isinstance(one[0], type) and issubclass(one[0], type(e.value)), (one, e.value)


@pytest.mark.parametrize("op", ["tril", "triu"])
def test_triangles_fast_is_general_and_torch(op: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from strided.ops.shape import triangles

    for dtype in DTYPES + [np.float16, np.bool_]:
        for shape in [(3, 4), (2, 3, 5), (0, 3)]:
            for x in _layouts(shape, dtype, 5):
                for k in (1, -2):
                    got = getattr(st, op)(x, k)
                    with monkeypatch.context() as m:
                        m.setattr(triangles, "_fast_triangle", lambda *a: None)
                        _same(got, getattr(st, op)(x, k))
                    assert not st.shares_memory(got, x)
                    t = getattr(torch, op)(torch.from_numpy(x.numpy()), k)
                    assert got.stride() == t.stride() and got.numpy().tobytes() == t.numpy().tobytes()
    for bad in (st.ones(3), st.ones(2, 2, dtype=st.uint16)):
        with pytest.raises(Exception) as fast:
            getattr(st, op)(bad)
        with monkeypatch.context() as m, pytest.raises(Exception) as general:
            m.setattr(triangles, "_fast_triangle", lambda *a: None)
            getattr(st, op)(bad)
        assert (type(fast.value), str(fast.value)) == (type(general.value), str(general.value))
    with pytest.raises(OverflowError):
        getattr(st, op)(st.ones(2, 2), 1 << 63)
    a = st.ones(3, 3, requires_grad=True)
    getattr(st, op)(a * 2, 1).sum().backward()
    ta = torch.ones(3, 3, requires_grad=True)
    getattr(torch, op)(ta * 2, 1).sum().backward()
    assert a.grad.tolist() == ta.grad.tolist()
    with st.record_copies() as copies:
        getattr(st, op)(st.ones(2, 2))
    assert [c.nbytes for c in copies] == [16]


@pytest.mark.parametrize("op", ["tril", "triu"])
def test_triangles_small_copy_and_large_where_are_general(op: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The fast path's two ways -- a small tensor's copy with the zeroed positions written
    (cached per shape and clamped diagonal), a large one's np.where -- bit for bit as the general
    path and PyTorch, over every diagonal in and beyond the matrix, batched, 1-wide and the
    size at the boundary; the cached positions stay read-only and are never the result."""
    from strided.ops.shape import triangles

    edge = triangles._SMALL_MASK
    shapes = [(1, 1), (1, 5), (5, 1), (4, 4), (2, 3, 2, 4), (128, 128), (2, edge // 256, 128 + 1)]
    for shape in shapes:
        for dtype in (np.float32, np.float16, np.int32, np.bool_):
            x = st.tensor(_data(shape, dtype, 3))
            if dtype is np.float32:
                x.view(-1)[1::7] = float("nan")
            n, m = shape[-2:]
            for k in sorted({0, 1, -1, m - 1, -n + 1, m, -n, m + 5, -n - 5, 1 << 40}):
                got = getattr(st, op)(x, k)
                with monkeypatch.context() as mp:
                    mp.setattr(triangles, "_fast_triangle", lambda *a: None)
                    _same(got, getattr(st, op)(x, k))
                t = getattr(torch, op)(torch.from_numpy(x.numpy()), k)
                assert got.stride() == t.stride() and got.numpy().tobytes() == t.numpy().tobytes(), (shape, k)
    cached = triangles._zeroed_positions((4, 4), 0, op == "tril")
    assert not cached.flags.writeable
    y = getattr(st, op)(st.ones(4, 4))
    y.fill_(7.0)  # (the result is its own fresh memory)
    assert getattr(st, op)(st.ones(4, 4)).sum().item() == 10.0


REORDERS = [("flip", lambda m, x: m.flip(x, (0,))), ("flip", lambda m, x: m.flip(x, (-1, 0))),
            ("flip", lambda m, x: m.flip(x, (1,))), ("fliplr", lambda m, x: m.fliplr(x)),
            ("flipud", lambda m, x: m.flipud(x)), ("roll", lambda m, x: m.roll(x, 1, 0)),
            ("roll", lambda m, x: m.roll(x, -7, -1)), ("roll", lambda m, x: m.roll(x, 5)),
            ("roll", lambda m, x: m.roll(x, (1, 2), (0, 1))), ("rot90", lambda m, x: m.rot90(x)),
            ("rot90", lambda m, x: m.rot90(x, 2)), ("rot90", lambda m, x: m.rot90(x, -1, (1, 0))),
            ("rot90", lambda m, x: m.rot90(x, 4)), ("rot90", lambda m, x: m.rot90(x, 3, (-1, 0)))]


@pytest.mark.parametrize("i", range(len(REORDERS)), ids=[f"{n}{i}" for i, (n, _) in enumerate(REORDERS)])
def test_reorders_fast_is_general_and_torch(i: int, monkeypatch: pytest.MonkeyPatch) -> None:
    from strided.ops.shape import reorder

    _, call = REORDERS[i]
    for dtype in DTYPES:
        for shape in [(3, 4), (1, 5), (2, 3, 2), (2, 0)]:
            for x in _layouts(shape, dtype, 9):
                got = call(st, x)
                with monkeypatch.context() as m:
                    m.setattr(reorder, "_shaped_run", lambda t: None)
                    m.setattr(reorder, "_small_run", lambda t: None)
                    _same(got, call(st, x))
                assert not st.shares_memory(got, x)
                t = call(torch, torch.from_numpy(x.numpy()))
                assert (got.shape, got.stride()) == (tuple(t.shape), t.stride())
                np.testing.assert_array_equal(got.numpy(), t.numpy())


def test_reorder_errors_unchanged(monkeypatch: pytest.MonkeyPatch) -> None:
    from strided.ops.shape import reorder

    x = st.ones(2, 3)
    calls = [lambda: st.flip(x, (0, 0)), lambda: st.flip(x, 2), lambda: st.roll(x, 1, 2), lambda: st.rot90(x, 1, (0, 0)),
             lambda: st.rot90(x, 1, (0, 2)), lambda: st.fliplr(st.ones(3)), lambda: st.rot90(x, True),
             lambda: st.flip(x, (True,)), lambda: st.roll(x, (1, 2), 0)]
    for call in calls:
        with pytest.raises(Exception) as fast:
            call()
        with monkeypatch.context() as m, pytest.raises(Exception) as general:
            m.setattr(reorder, "_shaped_run", lambda t: None)
            m.setattr(reorder, "_small_run", lambda t: None)
            call()
        assert (type(fast.value), str(fast.value)) == (type(general.value), str(general.value))
    a = st.arange(6.0, requires_grad=True)
    (st.roll(a.reshape(2, 3), 1, 1).flip(0) * st.arange(6.0).reshape(2, 3)).sum().backward()
    ta = torch.arange(6.0, requires_grad=True)
    (torch.roll(ta.reshape(2, 3), 1, 1).flip(0) * torch.arange(6.0).reshape(2, 3)).sum().backward()
    assert a.grad.tolist() == ta.grad.tolist()
    with st.record_copies() as copies:
        st.rot90(x)
        st.roll(x, 1)
    assert [c.nbytes for c in copies] == [24, 24]


DIAGS = [("diag", lambda m, x: m.diag(x)), ("diag", lambda m, x: m.diag(x, 1)), ("diag", lambda m, x: m.diag(x, -2)),
         ("diag_embed", lambda m, x: m.diag_embed(x)), ("diag_embed", lambda m, x: m.diag_embed(x, -1, 0, 2)),
         ("diagflat", lambda m, x: m.diagflat(x, 1)), ("block_diag", lambda m, x: m.block_diag(x, x[:1])),
         ("diag_embed", lambda m, x: m.diag_embed(x, 2, 0, -1)), ("diag_embed", lambda m, x: m.diag_embed(x.reshape(-1))),
         ("diag_embed", lambda m, x: m.diag_embed(x.unsqueeze(0), -3, 3, 1)), ("diagflat", lambda m, x: m.diagflat(x)),
         ("diagflat", lambda m, x: m.diagflat(x, -3)), ("diagflat", lambda m, x: m.diagflat(x.sum())),
         ("block_diag", lambda m, x: m.block_diag(x.reshape(-1)[:2], x, x.sum(), x.t())),
         ("block_diag", lambda m, x: m.block_diag(x))]


@pytest.mark.parametrize("i", range(len(DIAGS)), ids=[f"{n}{i}" for i, (n, _) in enumerate(DIAGS)])
def test_diagonals_fast_is_general_and_torch(i: int, monkeypatch: pytest.MonkeyPatch) -> None:
    from strided.ops.shape import triangles

    _, call = DIAGS[i]
    for dtype in DTYPES:
        for shape in [(3, 4), (5, 2), (1, 1), (0, 3)]:
            for x in _layouts(shape, dtype, 11):
                got = call(st, x)
                with monkeypatch.context() as m:
                    m.setattr(triangles, "OPEN", [True])  # (the fast paths' "someone listens": the general path)
                    _same(got, call(st, x))
                assert not st.shares_memory(got, x)
                t = call(torch, torch.from_numpy(x.numpy()))
                assert (got.shape, got.stride()) == (tuple(t.shape), t.stride())
                assert got.numpy().tobytes() == t.numpy().tobytes()


SPLITS = [("tensor_split", (3,)), ("tensor_split", ([1, -1, 7],)), ("tensor_split", ([3, 1], 1)),
          ("tensor_split", (4, -1)), ("hsplit", (2,)), ("hsplit", ([0, 1],)), ("vsplit", ([2, 2, 5],)),
          ("dsplit", (1,))]


@pytest.mark.parametrize("name,args", SPLITS)
def test_split_views_match_slices_and_torch(name: str, args: tuple) -> None:
    from strided import layout as L

    base = st.arange(120.0).reshape(6, 20)[1:, 2:].t()[:, 1:]  # (18, 4), strides (1, 20), offset 42
    tbase = torch.arange(120.0).reshape(6, 20)[1:, 2:].t()[:, 1:]
    if name == "dsplit":
        base, tbase = base.reshape(3, 6, 4)[:, ::2], tbase.reshape(3, 6, 4)[:, ::2]
    got = getattr(st, name)(base, *args)
    want = getattr(torch, name)(tbase, *args)
    d = {"vsplit": 0, "hsplit": 1, "dsplit": 2}.get(name, args[1] % base.dim() if len(args) > 1 else 0)
    for g, w in zip(got, want, strict=True):
        assert (g.shape, g.stride(), g.storage_offset()) == (tuple(w.shape), w.stride(), w.storage_offset())
        assert g.tolist() == w.tolist() and g._base is base._base
        n = g.shape[d]
        if n:
            start = (g.storage_offset() - base.storage_offset()) // base.stride(d)
            assert g._layout == L.slice_dim(base._layout, d, start, start + n, 1)


def test_broadcast_and_meshgrid_layouts_match_torch() -> None:
    a, ta = st.arange(12.0)[1::3], torch.arange(12.0)[1::3]  # (4,), stride 3, offset 1
    b, tb = st.arange(6.0).reshape(2, 3)[:, :1], torch.arange(6.0).reshape(2, 3)[:, :1]  # (2, 1)
    cases = [((a, b), (ta, tb)), ((b, b), (tb, tb)), ((a[:1], st.tensor(2.0)), (ta[:1], torch.tensor(2.0))),
             ((a[:0], b), (ta[:0], tb))]
    for ours, theirs in cases:
        for _ in range(2):  # (the second call reads the expand memo)
            got = st.broadcast_tensors(*ours)
            want = torch.broadcast_tensors(*theirs)
            assert [(g.shape, g.stride(), g.storage_offset()) for g in got] == [
                (tuple(w.shape), w.stride(), w.storage_offset()) for w in want]
    with pytest.raises(RuntimeError, match="must match the size"):
        st.broadcast_tensors(a, st.ones(3))
    grids = [((a, a[:2]), (ta, ta[:2])), ((a, a[:1], a[:3]), (ta, ta[:1], ta[:3])), ((a, st.tensor(1.0)), (ta, torch.tensor(1.0))),
             ((a[:0], a), (ta[:0], ta))]
    for ours, theirs in grids:
        for indexing in ("ij", "xy"):
            got = st.meshgrid(*ours, indexing=indexing)
            want = torch.meshgrid(*theirs, indexing=indexing)
            assert [(g.shape, g.stride(), g.storage_offset(), g.tolist()) for g in got] == [
                (tuple(w.shape), w.stride(), w.storage_offset(), w.tolist()) for w in want]


@pytest.mark.parametrize("args", [(2,), (1,), (3, 0), (2, -1), (2, (0,)), (0,), (2, 5), (2.0,), (True,)])
def test_repeat_interleave_fast_is_general_and_torch(args: tuple, monkeypatch: pytest.MonkeyPatch) -> None:
    from strided.ops.shape import reorder

    def general(x: st.Tensor) -> st.Tensor:
        with monkeypatch.context() as m:
            m.setattr(reorder, "_shaped_run", lambda t: None)
            m.setattr(reorder, "_small_run", lambda t: None)
            return st.repeat_interleave(x, *args)

    for dtype in DTYPES:
        for shape in [(3, 4), (1, 2, 3), (5,)]:
            for x in _layouts(shape, dtype, 13):
                try:
                    got = st.repeat_interleave(x, *args)
                except Exception as e:  # noqa: BLE001 - the same error both ways, and PyTorch's class
                    with pytest.raises(type(e)) as g:
                        general(x)
                    assert str(g.value) == str(e)
                    with pytest.raises(Exception) as t:
                        torch.repeat_interleave(torch.from_numpy(x.numpy()), *args)
                    assert isinstance(e, type(t.value)), (args, e, t.value)
                    continue
                _same(got, general(x))
                assert not st.shares_memory(got, x)
                t = torch.repeat_interleave(torch.from_numpy(x.numpy()), *args)
                assert (got.shape, got.stride()) == (tuple(t.shape), t.stride())
                assert got.numpy().tobytes() == t.numpy().tobytes()


@pytest.mark.parametrize("i", range(len(REORDERS)), ids=[f"{n}{i}" for i, (n, _) in enumerate(REORDERS)])
def test_reorders_small_gather_is_block_path(i: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The small tensors' gather (a remembered index) gives the block copies' bytes and layout, on
    every dtype, 1 and 3 dims and the largest gathered size; above it the block path runs."""
    from strided.ops.shape import reorder

    _, call = REORDERS[i]
    for dtype in (np.float16, np.complex64, np.bool_, np.int8, np.float64):
        for shape in [(3, 4), (4, 1), (2, 3, 2), (32, 32), (33, 32)]:
            data = _data(shape, np.float64, 5)
            x = st.tensor((np.nan_to_num(data) if np.dtype(dtype).kind in "bi" else data).astype(dtype))
            got = call(st, x)
            with monkeypatch.context() as m:
                m.setattr(reorder, "_small_run", lambda t: None)
                _same(got, call(st, x))
            t = call(torch, torch.from_numpy(x.numpy()))
            assert (got.shape, got.stride()) == (tuple(t.shape), t.stride())
            np.testing.assert_array_equal(got.numpy(), t.numpy())
    for memo in (reorder._FLIP_GATHER, reorder._ROLL_GATHER):
        assert all(v is None or not v.flags.writeable for v in memo.values())
    assert all(v is None or not v[0].flags.writeable for v in reorder._ROT90_GATHER.values())
