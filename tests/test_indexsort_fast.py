"""The small-size fast paths of indexing, sorting and searching give exactly what the general
paths give, and PyTorch's answers.

- one index tensor / one same-shape mask (``advanced._plan_one``) against the general key walk:
  the same plan, and the same bits from ``t[idx]``, ``t[idx] = v`` and ``index_put_`` (duplicate
  indices with and without accumulate, negative ones, out-of-range errors, nothing written);
- isin's sorted lookup against ``np.isin`` and PyTorch (NaN, -0.0, ints);
- median / nanmedian of all elements from a stable sort of the values against the argsort path
  (which of -0.0 and 0.0, which NaN payload) and PyTorch;
- mode (argmax of the run lengths) against PyTorch;
- take's one-call read against the checked path and PyTorch (negative, out of range).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided as st
from strided.ops.indexing import advanced
from strided.ops.reductions.order_stats import _flat_middle, _middle
from strided.ops.shape.sets import _isin_sorted


def _bits(t: st.Tensor) -> tuple:
    """Everything a fast path must reproduce: dtype, shape, strides, offset and the bytes."""
    return (t.dtype, tuple(t.shape), t.stride(), t.storage_offset(), t.numpy().tobytes())


def _bases() -> list[tuple[str, st.Tensor]]:
    """Targets over float32/float64/int64: contiguous, an offset slice, a transpose, a size-1 dim."""
    out = []
    for dt in (st.float32, st.float64, st.int64):
        base = st.arange(40, dtype=dt).reshape(5, 8)
        out += [(f"{dt.name} contiguous", base.clone()), (f"{dt.name} offset", base.clone()[1:, 2:]),
                (f"{dt.name} transposed", base.clone().t()), (f"{dt.name} size-1", base.clone()[2:3])]
    return out


def _general(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(advanced, "_plan_one", lambda layout, key: None)


def _keys(t: st.Tensor) -> list:
    n = t.shape[0]
    return [st.tensor([0, n - 1, -1, 0]), st.tensor([[0], [-n]], dtype=st.int32), st.tensor([], dtype=st.int64),
            t > 3, (t > 100)]


def test_plan_one_is_the_general_plan(monkeypatch: pytest.MonkeyPatch) -> None:
    for _, t in _bases() + [("1-d", st.arange(6.0)), ("empty rows", st.zeros(0, 3))]:
        for key in _keys(t) + [(st.tensor([1, 0]),)]:
            item = key[0] if isinstance(key, tuple) else key
            if t.shape[0] == 0 and item.dtype is not st.bool and item.numel():
                continue  # (checked below: the walk's error)
            fast = advanced._plan_one(t._layout, key)
            assert fast is not None
            with monkeypatch.context() as m:
                _general(m)
                slow = advanced.plan_index(t._layout, key)
            assert (fast.view.shape, fast.view.strides, fast.view.offset) == (
                slow.view.shape, slow.view.strides, slow.view.offset)
            assert (fast.origins, fast.shape, fast.index_shape) == (slow.origins, slow.shape, slow.index_shape)
            assert [(e.pos, e.ndim, e.kind, e.origin) for e in fast.entries] == [
                (e.pos, e.ndim, e.kind, e.origin) for e in slow.entries]
            for a, b in zip(fast.np_key, slow.np_key, strict=True):  # (the index read in place, as it is)
                assert a.dtype == b.dtype and np.array_equal(a, b) and np.shares_memory(a, b) or a.size == 0
    # not taken: a 0-d int (a basic index), a mask of another shape, a uint8 mask, a 0-d target,
    # an empty dim indexed by a non-empty index (the walk raises)
    x = st.zeros(3, 4)
    assert advanced._plan_one(x._layout, st.tensor(1)) is None
    assert advanced._plan_one(x._layout, st.tensor([True, False, True])) is None
    assert advanced._plan_one(x._layout, st.ones(3, 4, dtype=st.uint8)) is None
    assert advanced._plan_one(st.tensor(1.0)._layout, st.tensor([0])) is None
    assert advanced._plan_one(st.zeros(0, 3)._layout, st.tensor([0])) is None


@pytest.mark.parametrize("accumulate", [False, True])
def test_index_put_and_getitem_fast_equal_general(monkeypatch: pytest.MonkeyPatch, accumulate: bool) -> None:
    for label, t in _bases():
        for key in _keys(t):
            results = []
            for general in (False, True):
                with monkeypatch.context() as m:
                    if general:
                        _general(m)
                    read = t[key]
                    target = t.clone()
                    value = st.arange(read.numel(), dtype=t.dtype).reshape(read.shape) + 1
                    target.index_put_((key,), value, accumulate=accumulate)
                    out = t.index_put((key,), value[:1] if read.numel() else value, accumulate=accumulate)
                    set_ = t.clone()
                    set_[key] = 7
                    results.append([_bits(read), _bits(target), _bits(out), _bits(set_)])
            assert results[0] == results[1], (label, key)


@pytest.mark.parametrize("accumulate", [False, True])
def test_index_put_against_torch(accumulate: bool) -> None:
    for dt, tdt in ((st.float32, torch.float32), (st.float64, torch.float64), (st.int64, torch.int64)):
        base = np.arange(40).reshape(5, 8)
        s = st.tensor(base, dtype=dt)[1:].t()
        t = torch.tensor(base, dtype=tdt)[1:].t()
        idx = [2, -1, 2, 0, 7]  # duplicates (distinct values: accumulate=False's last write is unspecified)
        vals = np.arange(20).reshape(5, 4) * 3
        if not accumulate:
            idx, vals = [2, -1, 0], vals[:3]
        got = s.index_put((st.tensor(idx),), st.tensor(vals, dtype=dt), accumulate=accumulate)
        want = t.index_put((torch.tensor(idx),), torch.tensor(vals, dtype=tdt), accumulate=accumulate)
        assert got.tolist() == want.tolist() and got.stride() == want.stride()
        mask = base[1:].T % 3 == 0
        got = s.index_put((st.tensor(mask),), st.tensor(5, dtype=dt), accumulate=accumulate)
        want = t.index_put((torch.tensor(mask),), torch.tensor(5, dtype=tdt), accumulate=accumulate)
        assert got.tolist() == want.tolist()
        assert s[st.tensor(idx)].tolist() == t[torch.tensor(idx)].tolist()
        assert s[st.tensor(mask)].tolist() == t[torch.tensor(mask)].tolist()


@pytest.mark.parametrize("bad", [8, -9])
def test_index_put_out_of_range_is_torch_error_and_writes_nothing(bad: int) -> None:
    s = st.zeros(8, 2)
    before = s.numpy().copy()
    with pytest.raises(IndexError) as err:
        s.index_put_((st.tensor([0, bad]),), st.ones(2, 2))
    with pytest.raises(IndexError) as terr:
        torch.zeros(8, 2).index_put_((torch.tensor([0, bad]),), torch.ones(2, 2))
    assert str(err.value).splitlines()[0] == str(terr.value).splitlines()[0]
    np.testing.assert_array_equal(s.numpy(), before)


def test_isin_sorted_lookup() -> None:
    r = np.random.RandomState(1)
    cases = [(r.randint(-5, 5, (3, 4)), r.randint(-5, 5, (7,))),
             (r.randint(0, 300, (16, 16)).astype(np.int32), r.randint(0, 300, (16, 16)).astype(np.int32)),
             (np.array([0.0, -0.0, np.nan, 1.5, 2.0], np.float32), np.array([np.nan, 0.0, 2.0], np.float32)),
             (np.array([np.nan, 1.0, -0.0]), np.array([-0.0, np.nan, np.inf])),
             (np.array(3.0), np.array([1.0, 3.0])), (np.array([1, 2], np.uint8), np.array(2, np.uint8))]
    for a, b in cases:
        for invert in (False, True):
            got = _isin_sorted(a, b, invert)
            np.testing.assert_array_equal(got, np.isin(a, b, invert=invert))
            want = torch.isin(torch.from_numpy(np.array(a)), torch.from_numpy(np.array(b)), invert=invert)
            assert got.tolist() == want.tolist()
            through = st.isin(st.tensor(a), st.tensor(b), invert=invert)
            assert through.dtype is st.bool and through.tolist() == want.tolist()
    # a transposed view as elements, a number as test element (the general path: other dtype)
    x = st.tensor(r.randint(0, 4, (4, 3))).t()
    assert st.isin(x, st.tensor([1, 3])).tolist() == torch.isin(torch.tensor(x.tolist()),
                                                                 torch.tensor([1, 3])).tolist()
    assert st.isin(x, 2).tolist() == torch.isin(torch.tensor(x.tolist()), 2).tolist()


def _payload_nans(dtype: type) -> tuple:
    bits = np.array([0x7FC00001, 0x7FC00002], np.uint32) if dtype is np.float32 else np.array(
        [0x7FF8000000000001, 0x7FF8000000000002], np.uint64)
    return tuple(bits.view(dtype))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_flat_median_is_argsort_median(dtype: type) -> None:
    r = np.random.RandomState(2)
    n1, n2 = _payload_nans(dtype)
    rows = [r.rand(12), [0.0, -0.0, 0.0, -0.0, 1.0], [-0.0, 0.0, 0.0, 1.0], [1.0, n2, 0.0, n1, 2.0],
            [n1, n2], [n2], [3.0, 1.0, 2.0, 2.0], r.randint(0, 3, 9).astype(float)]
    for row in rows:
        flat = np.array(row, dtype)
        for skip in (False, True):
            got = _flat_middle(flat, skip)
            want = _middle(flat, skip)[0]
            assert np.asarray(got).tobytes() == np.asarray(want).tobytes(), (row, skip)
        s, t = st.tensor(flat), torch.from_numpy(flat.copy())
        for f in ("median", "nanmedian"):
            got, want = getattr(s, f)().item(), getattr(t, f)().item()
            assert got == want or (np.isnan(got) and np.isnan(want))
    ints = r.randint(-4, 4, (3, 4))
    assert st.tensor(ints).median().item() == torch.tensor(ints).median().item()
    assert _flat_middle(ints.reshape(-1), False) == _middle(ints.reshape(-1), False)[0]


def test_mode_against_torch() -> None:
    r = np.random.RandomState(3)
    xs = [r.randint(0, 3, (3, 4)), r.randint(0, 5, (16, 16)), r.randint(0, 3, (4, 5)).astype(np.float32),
          np.array([[1, 2, 2, 1, 3], [5, 5, 5, 5, 5], [3, 2, 1, 0, -1]]), np.array([7.0]),
          np.array([[-0.0, 0.0, 1.0, 1.0]])]
    for x in xs:
        for dim in range(x.ndim):
            for keepdim in (False, True):
                s = st.tensor(x)
                s = s.t().contiguous().t() if x.ndim == 2 else s  # (a column-major copy: moved views)
                got = s.mode(dim, keepdim)
                want = torch.tensor(x).mode(dim, keepdim)
                assert got.values.tolist() == want.values.tolist()
                assert got.indices.tolist() == want.indices.tolist()
                assert got.values.shape == tuple(want.values.shape)


def test_take_fast_equals_checked_and_torch() -> None:
    for dt, tdt in ((st.float32, torch.float32), (st.float64, torch.float64), (st.int64, torch.int64)):
        base = np.arange(30).reshape(5, 6)
        views = [(st.tensor(base, dtype=dt), torch.tensor(base, dtype=tdt)),
                 (st.tensor(base, dtype=dt)[1:], torch.tensor(base, dtype=tdt)[1:]),  # offset > 0
                 (st.tensor(base, dtype=dt).t(), torch.tensor(base, dtype=tdt).t())]  # the strided path
        for s, t in views:
            n = s.numel()
            for idx in ([0, n - 1, -1, -n, 3, 3], [[2], [-2]], []):
                got = s.take(st.tensor(idx, dtype=st.int64))
                want = t.take(torch.tensor(idx, dtype=torch.int64))
                assert got.tolist() == want.tolist() and tuple(got.shape) == tuple(want.shape)
                assert got.dtype is s.dtype and got.is_contiguous()
            for bad in (n, -n - 1):
                with pytest.raises(IndexError) as err:
                    s.take(st.tensor([0, bad]))
                with pytest.raises(IndexError) as terr:
                    t.take(torch.tensor([0, bad]))
                assert str(err.value).splitlines()[0] == str(terr.value).splitlines()[0]


def _sort_inputs() -> list[tuple[st.Tensor, torch.Tensor]]:
    r = np.random.RandomState(4)
    out = []
    for dt in (np.float32, np.float64, np.int64):
        x = r.randint(0, 4, (5, 6)).astype(dt)  # (ties)
        if dt is not np.int64:
            x[1, 2] = x[3, 0] = np.nan
            x[2, 1], x[2, 4] = -0.0, 0.0
        s, t = st.tensor(x), torch.tensor(x)
        out += [(s, t), (s[1:], t[1:]), (s[:, 1:], t[:, 1:]), (s.t(), t.t()), (s[2:3], t[2:3]), (s[:0], t[:0]),
                (s[0], t[0]), (st.tensor(x[0, 0]), torch.tensor(x[0, 0]))]
    return out


def test_sort_row_major_equals_general_and_torch(monkeypatch: pytest.MonkeyPatch) -> None:
    from strided.ops.shape import sorting

    for s, t in _sort_inputs():
        for descending in (False, True):
            got = s.sort(dim=-1, descending=descending, stable=True)
            with monkeypatch.context() as m:
                m.setattr(sorting, "_sorted_row_major", lambda *a: None)
                slow = s.sort(dim=-1, descending=descending, stable=True)
                slow_unstable = s.sort(-1, descending)
            assert _bits(got.values) == _bits(slow.values) and _bits(got.indices) == _bits(slow.indices)
            fast_unstable = s.sort(-1, descending)
            assert _bits(fast_unstable.values) == _bits(slow_unstable.values)
            assert _bits(fast_unstable.indices) == _bits(slow_unstable.indices)
            want = t.sort(dim=-1, descending=descending, stable=True)
            assert got.indices.tolist() == want.indices.tolist()
            assert np.array_equal(got.values.numpy(), want.values.numpy(), equal_nan=True)
            assert got.values.stride() == want.values.stride() and got.indices.stride() == want.indices.stride()
            # the sign of each zero, and NaN first (descending) or last: PyTorch's
            assert np.array_equal(np.signbit(got.values.numpy()), np.signbit(want.values.numpy()))


def test_cummax_cummin_against_torch() -> None:
    # ties (the index of the last equal element), NaN (sticks; the index of the latest NaN), -0.0
    for s, t in _sort_inputs():
        for dim in range(max(s.ndim, 1)):
            for op in ("cummax", "cummin"):
                got, want = getattr(s, op)(dim), getattr(t, op)(dim)
                assert got.indices.tolist() == want.indices.tolist(), (op, dim)
                assert np.array_equal(got.values.numpy(), want.values.numpy(), equal_nan=True)
                assert got.values.dtype is s.dtype and got.indices.dtype is st.int64


def test_masked_select_same_shape_and_broadcast_against_torch() -> None:
    r = np.random.RandomState(5)
    x = r.rand(4, 5).astype(np.float32)
    m = r.rand(4, 5) > 0.5
    s, t = st.tensor(x), torch.tensor(x)
    cases = [(s, t, m), (s.t(), t.t(), m.T.copy()), (s[1:], t[1:], m[1:]), (s, t, m[0]), (s[:, :1], t[:, :1], m),
             (st.tensor(2.0), torch.tensor(2.0), np.array(True)), (s[:0], t[:0], m[:0])]
    for sx, tx, mask in cases:
        got = sx.masked_select(st.tensor(mask))
        want = tx.masked_select(torch.tensor(mask))
        assert got.tolist() == want.tolist() and tuple(got.shape) == tuple(want.shape) and got.dtype is sx.dtype


def test_fast_paths_still_record_torch_gradients() -> None:
    x = np.array([[3.0, -0.0, 1.0, 2.0], [0.5, 4.0, 4.0, -1.0], [2.0, 2.0, 0.0, 7.0]])
    idx, mask = [2, 0, 2], x > 1.0
    s, t = st.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    for f in (lambda a, m: a[m.tensor([2, 0, 2])].sum() + a[m.tensor(mask)].sum(),
              lambda a, m: a.index_put((m.tensor(idx),), m.ones(3, 4, dtype=a.dtype) * 2, accumulate=True).pow(2).sum(),
              lambda a, m: a.median() + a.nanmedian() * 3,
              lambda a, m: (a.sort(dim=-1, stable=True).values * m.arange(4.0, dtype=a.dtype)).sum(),
              lambda a, m: (a.cummax(1).values * m.arange(4.0, dtype=a.dtype)).sum(),
              lambda a, m: a.take(m.tensor([-1, 0, 5])).sum() + a.masked_select(m.tensor(mask)).sum()):
        (gs,) = st.autograd.grad(f(s, st), s)
        (gt,) = torch.autograd.grad(f(t, torch), t)
        np.testing.assert_allclose(gs.numpy(), gt.numpy())
