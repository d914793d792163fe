"""The small-call fast paths of gather / take_along_dim / scatter / scatter_add / scatter_reduce
(``ops.indexing.fast_along``) give bit for bit what the general paths give (the fast path
monkeypatched off), and PyTorch's answers: float32/float64/int32/int64, offset slices, size-1
dims, indices smaller than the input, duplicate positions (accumulated in the same order),
-0.0 and NaN values, every reduction with and without include_self; inputs the fast path does
not take (transposed, zero-size, 0-d, negative or out-of-range indices) give the general path's
results and errors; gradients still reach the inputs as in PyTorch.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest
import torch

import strided as st
from strided.kernels import native
from strided.ops.indexing import gather_scatter

# (NaN among amax/amin values: NumPy's ufunc.at warns on both paths, a known leak noted for the lead)
# (and PyTorch's own note on the non-contiguous searchsorted operands the tests give it)
pytestmark = [pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning"),
              pytest.mark.filterwarnings("ignore:torch.searchsorted:UserWarning")]

DTYPES = (st.float32, st.float64, st.int32, st.int64)


def _bits(t: st.Tensor) -> tuple:
    """Everything a fast path must reproduce: dtype, shape, strides, offset and the bytes."""
    return (t.dtype, tuple(t.shape), t.stride(), t.storage_offset(), t.numpy().tobytes())


_GENERAL = (gather_scatter, "along_positions", None)  # (gather/take_along_dim/scatters: the general path)


def _values(dt: st.DType) -> st.Tensor:
    """A 5 x 4 tensor of ``dt`` with -0.0 and NaN among the floats (offsets are slices of it)."""
    v = np.arange(20, dtype=np.float64).reshape(5, 4) - 7
    if dt.is_floating_point:
        v[0, 1], v[2, 2], v[3, 0] = -0.0, np.nan, 0.25
    return st.tensor(v).to(dt)


def _cases(dt: st.DType) -> list[tuple[st.Tensor, int, st.Tensor]]:
    """(input, dim, index): taken by the fast path (row-major, offset, size-1, smaller index,
    duplicates) and not (transposed, zero-size, 0-d, int32 index, an index wider than the input)."""
    x = _values(dt)
    i3 = st.tensor([[0, 0, 1], [2, 1, 1], [3, 3, 0]])
    return [
        (x, 1, st.tensor([[0, 3, 3, 1]] * 5)),
        (x, -2, st.tensor([[4, 0, 4, 4], [1, 1, 0, 2]])),
        (x[1:], 0, i3),                      # offset 4, index smaller in both dims
        (x[2:3], 1, st.tensor([[3, 3, 0]])),  # a size-1 dim
        (x.t(), 1, i3),                      # (general: transposed)
        (x[:, :0], 1, st.zeros(5, 0, dtype=st.int64)),
        (x[1, 2].clone(), 0, st.tensor(0)),
        (x, 1, i3.to(st.int32)),
        (st.tensor([1.0, 2.0]).to(dt), 0, st.tensor([1, 1, 0, 1])),  # 1-D, index longer along dim
    ]


def _checked(monkeypatch: pytest.MonkeyPatch, call, *off: tuple) -> object:  # noqa: ANN001
    """``call()``'s outcome, asserted to be the same with the fast path off (each ``(module, name,
    value)`` of ``off`` set meanwhile; value None: a planner that answers None)."""
    fast = _outcome(call)
    with monkeypatch.context() as m:
        for module, name, value in off:
            m.setattr(module, name, (lambda *a: None) if value is None else value)
        slow = _outcome(call)
    assert fast == slow
    return fast


def _outcome(call) -> object:  # noqa: ANN001
    try:
        out = call()
        return tuple(_bits(t) for t in out) if isinstance(out, tuple) else _bits(out)
    except Exception as err:  # noqa: BLE001 (the same error class and text on both paths)
        return type(err), str(err)


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: d.name)
def test_gather_and_take_along_dim_equal_general_and_torch(monkeypatch: pytest.MonkeyPatch, dt: st.DType) -> None:
    for k, (x, dim, index) in enumerate(_cases(dt)):
        taken = gather_scatter.along_positions(x, dim, index) is not None
        assert taken == (k < 4 or k == 8)  # (the cases the fast path takes, as _cases lists them)
        fast = _checked(monkeypatch, partial(st.gather, x, dim, index), _GENERAL)
        if not isinstance(fast[0], type):
            want = torch.gather(torch.from_numpy(x.numpy()), dim, torch.from_numpy(index.numpy()))
            got = st.gather(x, dim, index)
            assert got.numpy().tobytes() == want.numpy().tobytes() and got.stride() == want.stride()
        fast = _checked(monkeypatch, partial(st.take_along_dim, x, index, dim), _GENERAL)
    # not taken: a broadcast index, negative indices (counted from the end), out of range (the error)
    x = _values(dt)
    for index in (st.tensor([[1, 0, 3, 3]]), st.tensor([[-1, 0, -4, 2]] * 5), st.tensor([[4, 0, 0, 0]] * 5)):
        fast = _checked(monkeypatch, partial(st.take_along_dim, x, index, 1), _GENERAL)
    with pytest.raises(RuntimeError, match="index 4 is out of bounds for dimension 1 with size 4"):
        st.gather(x, 1, st.tensor([[0, 4]]))
    with pytest.raises(RuntimeError, match="index -1 is out of bounds for dimension 1 with size 4"):
        st.gather(x, 1, st.tensor([[0, -1]]))


def _scatters(x: st.Tensor, dim: int, index: st.Tensor, src: st.Tensor) -> list:
    """scatter, scatter_add and every scatter_reduce of these operands, as calls."""
    return [partial(st.scatter, x, dim, index, src), partial(st.scatter_add, x, dim, index, src)] + [
        partial(st.scatter_reduce, x, dim, index, src, r, include_self=s)
        for r in ("sum", "prod", "mean", "amax", "amin") for s in (True, False)]


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: d.name)
def test_scatters_equal_general(monkeypatch: pytest.MonkeyPatch, dt: st.DType) -> None:
    for x, dim, index in _cases(dt):
        # src of the index's shape (taken), and one larger in every dim (general), with -0.0 and NaN
        shape = tuple(index.shape)
        big = np.resize(_values(st.float64).numpy()[::-1] * 3, tuple(n + 1 for n in shape))
        for src in (st.tensor(big[tuple(slice(0, n) for n in shape)].copy()).to(dt), st.tensor(big).to(dt)):
            for call in _scatters(x, dim, index, src):
                _checked(monkeypatch, call, _GENERAL)
    # errors: out of range / negative (nothing written), a src of another dtype, a wider index
    x = _values(dt)
    bad = [(st.tensor([[0, 4]]), x[:1, :2]), (st.tensor([[-1, 0]]), x[:1, :2]),
           (st.tensor([[0, 1]]), x[:1, :2].to(st.float16)), (st.tensor([[0, 1]] * 6), (x * 1)[:1].expand(6, 4)[:, :2])]
    for index, src in bad:
        for call in _scatters(x, 1, index, src):
            fast = _checked(monkeypatch, call, _GENERAL)
            assert isinstance(fast[0], type)


def test_scatters_match_torch() -> None:
    rng = np.random.default_rng(3)
    for dt in (st.float32, st.float64, st.int64):
        x = st.tensor(rng.integers(-4, 5, (4, 5))).to(dt)
        src = st.tensor(rng.integers(-4, 5, (4, 5))).to(dt)
        for dim in (0, 1):
            index = st.tensor(rng.integers(0, 4, (3, 4)))
            unique = st.tensor(np.argsort(rng.random((3, 4)), axis=dim) if dim == 1 else
                               np.stack([rng.permutation(4)[:3] for _ in range(4)], axis=1))
            tx, ts = torch.from_numpy(x.numpy()), torch.from_numpy(src[:3, :4].contiguous().numpy())
            s3 = src[:3, :4].contiguous()
            pairs = [(st.scatter(x, dim, unique, s3), torch.scatter(tx, dim, torch.from_numpy(unique.numpy()), ts)),
                     (st.scatter_add(x, dim, index, s3), torch.scatter_add(tx, dim, torch.from_numpy(index.numpy()), ts))]
            for reduce in ("sum", "prod", "mean", "amax", "amin"):
                for inc in (True, False):
                    pairs.append((st.scatter_reduce(x, dim, index, s3, reduce, include_self=inc),
                                  torch.scatter_reduce(tx, dim, torch.from_numpy(index.numpy()), ts, reduce,
                                                       include_self=inc)))
            for got, want in pairs:
                assert got.dtype.name == str(want.dtype).removeprefix("torch.")
                assert got.stride() == want.stride()
                np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)


def test_fast_paths_record_gradients_as_torch() -> None:
    x = st.tensor([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]], requires_grad=True)
    src = st.tensor([[0.5, 1.5, 2.5], [3.5, 4.5, 5.5]], requires_grad=True)
    index = st.tensor([[2, 0, 0], [1, 1, 2]])
    tx = torch.tensor(x.detach().numpy(), requires_grad=True)
    ts = torch.tensor(src.detach().numpy(), requires_grad=True)
    ti = torch.from_numpy(index.numpy())
    w = np.arange(6.0).reshape(2, 3) + 1
    outs = [st.gather(x, 1, index), st.take_along_dim(x, index, 1), st.scatter(x, 1, index, src),
            st.scatter_add(x, 1, index, src), st.scatter_reduce(x, 1, index, src, "amax", include_self=False)]
    wants = [torch.gather(tx, 1, ti), torch.take_along_dim(tx, ti, 1), torch.scatter(tx, 1, ti, ts),
             torch.scatter_add(tx, 1, ti, ts), torch.scatter_reduce(tx, 1, ti, ts, "amax", include_self=False)]
    (sum(((o * st.tensor(w)).sum() for o in outs), st.tensor(0.0))).backward()
    sum((o * torch.from_numpy(w)).sum() for o in wants).backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-6)
    np.testing.assert_allclose(src.grad.numpy(), ts.grad.numpy(), rtol=1e-6)


def test_watched_calls_take_the_general_path() -> None:
    x, index, full = st.arange(6.0).reshape(2, 3), st.tensor([[2, 0], [1, 1]]), st.tensor([[2, 0, 1], [1, 1, 0]])
    with st.record_copies() as copies:
        st.gather(x, 1, index)
        st.take_along_dim(x, full, 1)
    assert [c.reason for c in copies] == ["gather: 4 elements picked along dim 1 into new memory",
                                          "take_along_dim: 6 elements picked into new memory"]


def _topk_rows(dt: st.DType) -> list[st.Tensor]:
    """Rows with and without ties in and out of the top k + 1, -0.0 / 0.0, one and two NaN."""
    rows = [[3.0, 1.0, 4.0, 1.5, 9.0, 2.5], [2.0, 2.0, 7.0, 1.0, 0.5, 8.0], [5.0, 6.0, 6.0, 6.0, 1.0, 0.0],
            [-0.0, 0.0, 1.0, -1.0, 3.0, 2.0], [1.0, np.nan, 0.0, 2.0, -1.0, 5.0], [np.nan, 1.0, np.nan, 0.0, 2.0, 3.0]]
    if not dt.is_floating_point:
        rows = [[0 if v != v else int(v * 2) for v in r] for r in rows]
    x = st.tensor(rows).to(dt)
    return [x, x[1:], x[2:3], x[:, 1:], x.t().contiguous().t(), x[0], st.tensor(rows[0] * 3).to(dt).reshape(3, 2, 3)]


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: d.name)
def test_topk_fast_path_kernel_and_numpy_agree(dt: st.DType) -> None:
    """The fast topk's two ways to sort the rows (the compiled std::sort in picking order, and
    NumPy's argsort and sort) take the same calls and give the same values and indices."""
    from strided.kernels import native
    from strided.ops.shape import sorting

    for x in _topk_rows(dt):
        for k in range(0, x.shape[-1] + 1):
            for largest in (True, False):
                fast = sorting._fast_topk(x, k, -1, largest)
                with native.disabled():
                    numpy_sorted = sorting._fast_topk(x, k, -1, largest)
                assert (fast is None) == (numpy_sorted is None)
                if fast is not None:
                    assert fast.values.numpy().tobytes() == numpy_sorted.values.numpy().tobytes()
                    assert fast.indices.tolist() == numpy_sorted.indices.tolist()


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: d.name)
def test_topk_fast_equals_general_and_torch(monkeypatch: pytest.MonkeyPatch, dt: st.DType) -> None:
    from strided.ops.shape import sorting

    taken = 0
    for x in _topk_rows(dt):
        for k in range(0, x.shape[-1] + 1):
            for largest in (True, False):
                call = partial(st.topk, x, k, -1, largest)
                taken += sorting._fast_topk(x, k, -1, largest) is not None
                _checked(monkeypatch, call, (sorting, "_fast_topk", None))
                want = torch.from_numpy(x.numpy()).topk(k, -1, largest)
                assert call().indices.tolist() == want.indices.tolist()
    assert taken >= 10  # (the fast path is exercised: rows without ties in the window)
    x = _topk_rows(dt)[0].requires_grad_(dt.is_floating_point) if dt.is_floating_point else None
    if x is not None:  # gradients reach the picked positions as in PyTorch
        tx = torch.tensor(x.detach().numpy(), requires_grad=True)
        (x.topk(2).values * st.tensor([1.0, 2.0]).to(dt)).sum().backward()
        (tx.topk(2).values * torch.tensor([1.0, 2.0], dtype=tx.dtype)).sum().backward()
        assert x.grad.tolist() == tx.grad.tolist()


def _slice_cases(dt: st.DType) -> list[tuple[st.Tensor, int, st.Tensor]]:
    """(input, dim, vector index): taken (row-major, offset, 1-D, duplicates, any dim) and not
    (transposed, negative / out-of-range / int32 / 2-D / empty index, an empty dim)."""
    x = _values(dt)
    return [(x, 0, st.tensor([4, 0, 4, 2])), (x, 1, st.tensor([3, 3, 0])), (x, -1, st.tensor([1])),
            (x[1:], 0, st.tensor([0, 3, 0])), (x[2], 0, st.tensor([2, 2, 1, 0, 3])),
            (x.reshape(5, 2, 2), 1, st.tensor([1, 0, 1])),
            (x.t(), 0, st.tensor([1, 2])), (x, 0, st.tensor([-1, 0])), (x, 1, st.tensor([0, 4])),
            (x, 0, st.tensor([1, 0], dtype=st.int32)), (x, 0, st.tensor([[1, 0]])), (x, 0, st.tensor([], dtype=st.int64)),
            (x[:, :0], 1, st.tensor([0])), (x[:, :0], 0, st.tensor([0, 0]))]


def _index_calls(x: st.Tensor, dim: int, index: st.Tensor) -> list:
    shape = list(x.shape)
    if shape:
        shape[dim] = max(index.numel(), 0)
    src = st.tensor(np.resize(np.arange(40.0)[::-1] - 9.5, tuple(shape))).to(x.dtype)
    return [partial(st.index_select, x, dim, index), partial(st.index_add, x, dim, index, src),
            partial(st.index_copy, x, dim, index, src), partial(st.index_fill, x, dim, index, -2.5),
            partial(st.index_fill, x, dim, index, 7), partial(st.index_add, x, dim, index, src, alpha=2),
            partial(st.index_add, x, dim, index, src.to(st.float16))]


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: d.name)
def test_index_ops_equal_general_and_torch(monkeypatch: pytest.MonkeyPatch, dt: st.DType) -> None:
    from strided.ops.indexing import index_ops

    taken = 0
    for x, dim, index in _slice_cases(dt):
        taken += index_ops.along_slices(x, dim, index) is not None
        for call in _index_calls(x, dim, index):
            fast = _checked(monkeypatch, call, (index_ops, "along_slices", None))
            if isinstance(fast[0], type) or x.dtype is not call.args[0].dtype or call.func is st.index_copy:
                continue  # (index_copy with a repeated index: PyTorch's result is unspecified)
            targs = [torch.from_numpy(a.numpy()) if isinstance(a, st.Tensor) else a for a in call.args]
            want = getattr(torch, call.func.__name__)(*targs, **call.keywords)
            got = call()
            assert got.stride() == want.stride() and got.numpy().tobytes() == want.numpy().tobytes()
    assert taken == 6
    # index_copy against PyTorch with distinct indices
    x, src = _values(dt), st.tensor(np.arange(8.0).reshape(2, 4)).to(dt)
    want = torch.index_copy(torch.from_numpy(x.numpy()), 0, torch.tensor([3, 1]), torch.from_numpy(src.numpy()))
    assert st.index_copy(x, 0, st.tensor([3, 1]), src).numpy().tobytes() == want.numpy().tobytes()


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: d.name)
def test_index_put_equal_general_and_torch(monkeypatch: pytest.MonkeyPatch, dt: st.DType) -> None:
    from strided.ops.indexing import advanced

    taken = 0
    for x, _, index in _slice_cases(dt):
        shape = (index.numel(),) + tuple(x.shape[1:])
        vals = st.tensor(np.resize(np.arange(40.0)[::-1] - 9.5, shape)).to(dt)
        for accumulate in (False, True):
            taken += advanced._fast_index_put(x, (index,), vals, accumulate, False) is not None
            calls = [partial(st.index_put, x, (index,), vals, accumulate),
                     lambda: x.clone().index_put_([index], vals, accumulate),  # noqa: B023
                     partial(st.index_put, x, (index,), vals[:1], accumulate)]  # (broadcast: general)
            for call in calls:
                _checked(monkeypatch, call, (advanced, "along_slices", None))
            plain = _outcome(calls[0])
            if not isinstance(plain[0], type) and (accumulate or index.numel() == len(set(index.reshape(-1).tolist()))):
                want = torch.index_put(torch.from_numpy(x.numpy()), (torch.from_numpy(index.numpy()),),
                                       torch.from_numpy(vals.numpy()), accumulate)
                assert st.index_put(x, (index,), vals, accumulate).numpy().tobytes() == want.numpy().tobytes()
    assert taken == 14  # (7 of the cases, along dim 0, with and without accumulate)
    # in place: values in the target's own memory, a read-only target, autograd's checks
    x = _values(dt)
    for call in (lambda: x.index_put_((st.tensor([1, 0]),), x[2:4]),
                 lambda: st.from_numpy(np.zeros((3, 4), x.dtype.numpy)).index_put_((st.tensor([0]),), x[:1])):
        _checked(monkeypatch, call, (advanced, "along_slices", None))
    if dt.is_floating_point:
        leaf = st.ones(3, 2, dtype=dt, requires_grad=True)
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
            leaf.index_put_((st.tensor([0]),), st.ones(1, 2, dtype=dt))
        y = leaf * 2
        z = y * y
        y.index_put_((st.tensor([0]),), st.ones(1, 2, dtype=dt))
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            z.sum().backward()


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: d.name)
def test_masked_fill_and_scatter_equal_general_and_torch(monkeypatch: pytest.MonkeyPatch, dt: st.DType) -> None:
    from strided.ops.indexing import masked

    x = _values(dt)
    m = st.tensor((np.arange(20).reshape(5, 4) * 7) % 3 == 0)
    src = st.tensor(np.arange(20.0)[::-1] - 4.5).to(dt)
    cases = [(x, m), (x[1:], m[1:]), (x[2], m[3]), (x.t(), m.t()), (x, m[0]), (x, m.to(st.uint8)), (x[:0], m[:0]),
             (x, st.zeros(5, 4, dtype=st.bool))]
    taken = 0
    for t, mask in cases:
        taken += masked._fast_masked(t, mask) is not None
        calls = [partial(st.masked_fill, t, mask, -2.5), partial(st.masked_fill, t, mask, 3),
                 partial(st.masked_fill, t, mask, 1e300), partial(st.masked_scatter, t, mask, src),
                 partial(st.masked_scatter, t, mask, src[:2]), partial(st.masked_scatter, t, mask, src.to(st.float16)),
                 partial(st.masked_scatter, t, mask, src.reshape(4, 5).t())]
        for call in calls:
            fast = _checked(monkeypatch, call, (masked, "_fast_masked", None))
            if isinstance(fast[0], type):
                continue
            targs = [torch.from_numpy(a.numpy()) if isinstance(a, st.Tensor) else a for a in call.args]
            want = getattr(torch, call.func.__name__)(*targs)
            got = call()
            assert got.stride() == want.stride() and got.numpy().tobytes() == want.numpy().tobytes()
    assert taken == 4


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: d.name)
def test_mode_fast_equals_general_and_torch(monkeypatch: pytest.MonkeyPatch, dt: st.DType) -> None:
    from strided.ops.reductions import order_stats

    rng = np.random.default_rng(5)
    base = st.tensor(rng.integers(-2, 3, (3, 16)).astype(np.float64)).to(dt)
    cases = [base, base[1:, :5], base[2], base[:, :1], base.t(), base[:3].reshape(3, 4, 4), base[:, :0]]
    if dt.is_floating_point:
        nan = base.clone()
        nan[1, 3] = float("nan")
        cases += [nan, st.tensor([[-0.0, 0.0, 1.0, 0.0], [2.0, -0.0, -0.0, 0.0]]).to(dt)]
    taken = 0
    for x in cases:
        for keepdim in (False, True):
            taken += order_stats._fast_mode(x, -1, keepdim) is not None
            fast = _checked(monkeypatch, partial(x.mode, -1, keepdim), (order_stats, "_fast_mode", None))
            if not isinstance(fast[0], type):
                want = torch.from_numpy(x.numpy()).mode(-1, keepdim)
                got = x.mode(-1, keepdim)
                assert got.indices.tolist() == want.indices.tolist()
                assert got.values.numpy().tobytes() == want.values.numpy().tobytes()
    # (a row with a NaN takes the fast path too where the compiled mode kernel is built)
    assert taken == (6 + (4 if native.special() is not None else 2) if dt.is_floating_point else 6)


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: d.name)
def test_cummax_cummin_fast_equal_general_and_torch(monkeypatch: pytest.MonkeyPatch, dt: st.DType) -> None:
    from strided.ops.reductions import scans

    x = _values(dt)
    x = x * (x.abs() < 5) if not dt.is_floating_point else x.masked_fill(x.abs() > 6, float("nan"))
    cases = [x, x[1:], x[2], x.t(), x.reshape(2, 5, 2), x[:, :0], x[0, 0].clone()]
    taken = 0
    for t in cases:
        for dim in range(-t.ndim, max(t.ndim, 1)):
            for op in ("cummax", "cummin"):
                taken += scans._fast_cum_extreme(t, dim, op) is not None
                call = partial(getattr(st, op), t, dim)
                _checked(monkeypatch, call, (scans, "_fast_cum_extreme", None))
                want = getattr(torch, op)(torch.from_numpy(t.numpy()), dim)
                got = call()
                assert got.indices.tolist() == want.indices.tolist()
                assert got.values.numpy().tobytes() == want.values.numpy().tobytes()
    assert taken == 32  # (every dim of the row-major, offset, 1-D and 3-D cases)


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: d.name)
def test_msort_and_searches_fast_equal_general_and_torch(monkeypatch: pytest.MonkeyPatch, dt: st.DType) -> None:
    from strided.ops.shape import searching, sorting

    x = _values(dt)
    if dt.is_floating_point:
        x[4] = st.tensor([0.0, -0.0, float("nan"), 0.0]).to(dt)
        x[1] = st.tensor([-0.0, 0.0, -0.0, -0.0]).to(dt)
    seq = st.tensor([-5.0, -1.0, 0.0, 0.0, 2.0, 7.5, 11.0]).to(dt)
    nan_seq = st.tensor([-1.0, 0.0, float("nan")]).to(dt) if dt.is_floating_point else seq[2:]
    calls = []
    for t in (x, x[1:], x[3], x.t(), x[:0], x[0, 1].clone()):
        calls.append((sorting, "OPEN", partial(st.msort, t), torch.msort, (t,)))
        for s in (seq, seq[1:], seq[::2], nan_seq):
            for right in (False, True):
                calls.append((searching, "_fast_search", partial(st.searchsorted, s, t, right=right),
                              partial(torch.searchsorted, right=right), (s, t)))
                calls.append((searching, "_fast_search", partial(st.bucketize, t, s, right=right),
                              partial(torch.bucketize, right=right), (t, s)))
    for module, name, call, twin, args in calls:
        _checked(monkeypatch, call, (module, name, [True] if name == "OPEN" else None))  # (msort's: watched)
        want = twin(*(torch.from_numpy(a.numpy()) for a in args))
        got = call()
        assert got.stride() == want.stride() and got.numpy().tobytes() == want.numpy().tobytes()


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: d.name)
def test_take_and_isin_fast_equal_general_and_torch(monkeypatch: pytest.MonkeyPatch, dt: st.DType) -> None:
    from strided.ops.shape import sets

    x = _values(dt)
    if dt.is_floating_point:
        x[4] = st.tensor([0.0, -0.0, float("nan"), 2.0]).to(dt)
    tests = st.tensor([-0.0, 2.0, float("nan"), 5.0, -7.0] if dt.is_floating_point else [0, 2, 5, -7]).to(dt)
    idx = st.tensor([[0, 19, -1], [-20, 7, 7]])
    calls = []
    for t in (x, x[1:], x[3], x.t(), x[:0], x[0, 1].clone()):
        for i in (idx, idx.t(), idx[:, :0], st.tensor([20]), st.tensor([-21]), st.tensor(0), idx.to(st.int32)):
            calls.append((partial(st.take, t, i), torch.take, (t, i)))
        for other in (tests, tests[::2], t, tests[:0], tests.to(st.int64 if dt.is_floating_point else st.float32)):
            for invert in (False, True):
                calls.append((partial(st.isin, t, other, invert=invert), partial(torch.isin, invert=invert), (t, other)))
    for call, twin, args in calls:
        fast = _checked(monkeypatch, call, (gather_scatter, "FAST_DTYPES", frozenset()),
                        (sets, "_ISIN_FAST", frozenset()))
        if isinstance(fast[0], type):
            continue
        want = twin(*(torch.from_numpy(a.numpy()) for a in args))
        got = call()
        assert got.stride() == want.stride() and got.numpy().tobytes() == want.numpy().tobytes()


def test_watch_sees_the_same_steps_with_and_without_the_fast_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    from strided import watch
    from strided.ops.indexing import advanced, index_ops, masked
    from strided.ops.reductions import order_stats, scans
    from strided.ops.shape import searching, sets, sorting

    x, src = st.arange(12.0).reshape(3, 4), st.arange(12.0).reshape(3, 4) * 2 + 1
    i2, i1, m = st.tensor([[3, 0, 1, 1]] * 3), st.tensor([2, 0, 2]), x > 4
    seq = st.tensor([0.0, 2.5, 7.0])
    calls = [lambda: st.gather(x, 1, i2), lambda: st.take_along_dim(x, i2, 1), lambda: st.take(x, i1),
             lambda: st.scatter(x, 1, i2, src), lambda: st.scatter_add(x, 1, i2, src),
             lambda: st.scatter_reduce(x, 1, i2, src, "amax"), lambda: st.index_select(x, 0, i1),
             lambda: st.index_add(x, 0, i1, src), lambda: st.index_copy(x, 0, st.tensor([2, 0, 1]), src),
             lambda: st.index_fill(x, 1, i1, -1.0), lambda: st.index_put(x, (i1,), src),
             lambda: x.clone().index_put_((i1,), src, True), lambda: st.masked_fill(x, m, 0.5),
             lambda: st.masked_scatter(x, m, src), lambda: st.searchsorted(seq, x), lambda: st.bucketize(x, seq),
             lambda: st.isin(x, seq), lambda: st.cummax(x, 1), lambda: st.mode(x, 1), lambda: st.topk(x, 2),
             lambda: st.msort(x)]
    off = [_GENERAL, (index_ops, "along_slices", None), (advanced, "along_slices", None),
           (masked, "_fast_masked", None), (order_stats, "_fast_mode", None), (scans, "_fast_cum_extreme", None),
           (searching, "_fast_search", None), (sorting, "_fast_topk", None), (sorting, "_FAST_DTYPES", frozenset()),
           (gather_scatter, "FAST_DTYPES", frozenset()), (sets, "_ISIN_FAST", frozenset())]

    def steps() -> list:
        with watch() as w:
            for call in calls:
                call()
        return [(s.name, s.kind, tuple(i.shape for i in s.inputs), s.output.shape if s.output else None,
                 s.output.strides if s.output else None, s.bytes_copied, s.bytes_allocated) for s in w.steps]

    fast = steps()
    with monkeypatch.context() as mp:
        for module, name, value in off:
            mp.setattr(module, name, (lambda *a: None) if value is None else value)
        assert steps() == fast
    assert len(fast) >= len(calls)
