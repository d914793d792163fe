"""gather / take / take_along_dim / index_select and the writes (scatter family, index_fill_,
index_add_, index_copy_) against PyTorch on hard layouts (permuted, stepped, expanded, zero-size,
0-d): shape, strides, dtype, values, error class and first line; the whole storage after an
in-place write (writes through views land in the base; a refused write changes nothing); the
copy ledger's record of the reading ops."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as hs

import strided as st
from layouts import build_valued, specs, valued_storage
from oracle_helpers import builtin_class, compare, outcome, same_error
from strided.ops.indexing.gather_scatter import gather, scatter, take, take_along_dim
from strided.ops.indexing.index_ops import index_select

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
TOL = {"float64": (1e-12, 1e-12), "float32": (1e-5, 1e-5)}


def _pair(spec, dtype="float64", seed=0):
    """The same valued layout twice (separate memory): one for torch, one for strided."""
    data = valued_storage(spec, dtype, seed)
    dt, ds = data.copy(), data.copy()
    return build_valued(spec, dt)[0], build_valued(spec, ds)[2], dt, ds


def _index(draw, shape, dim, size, bad=True, unique=False):
    """An int64 index array of ``shape``; values in [0, size) (unique along ``dim`` if asked),
    now and then one out of range."""
    rng = np.random.default_rng(draw(hs.integers(0, 2**16)))
    if unique and shape and size:
        idx = np.argsort(rng.random(shape[:dim] + (size,) + shape[dim + 1:]), axis=dim)
        idx = idx[tuple(slice(0, n) for n in shape)]
    else:
        idx = rng.integers(0, max(size, 1), shape)
    idx = np.ascontiguousarray(idx, dtype=np.int64)
    if bad and idx.size and draw(hs.integers(0, 5)) == 0:
        idx.flat[draw(hs.integers(0, idx.size - 1))] = draw(hs.sampled_from([size, size + 3, -1]))
    return idx


@hs.composite
def gather_case(draw, unique=False):
    spec = draw(specs(max_dims=3, max_size=4))
    ndim = max(len(spec.shape), 1)
    shape = spec.shape or (1,)
    dim = draw(hs.integers(-ndim, ndim - 1))
    d = dim % ndim
    ishape = tuple(draw(hs.integers(0, n)) if e != d else draw(hs.integers(0, 4 if not unique else n))
                   for e, n in enumerate(shape))
    if not spec.shape and draw(hs.booleans()):
        ishape = ()
    idx = _index(draw, ishape or (), d, shape[d], unique=unique)
    return spec, dim, idx


@SETTINGS
@given(gather_case())
def test_gather_matches_torch(case):
    spec, dim, idx = case
    t, s, _, _ = _pair(spec)
    compare(lambda: torch.gather(t, dim, torch.from_numpy(idx)), lambda: gather(s, dim, st.from_numpy(idx)), TOL)


def _after_both(spec, call_t, call_s, dtype="float64"):
    """Run an in-place op on the same layout in torch and strided; both fail alike (and strided's
    storage is untouched), or the whole storages agree afterwards."""
    t, s, dt, ds = _pair(spec, dtype)
    before = ds.copy()
    tr, te = outcome(lambda: call_t(t))
    sr, se = outcome(lambda: call_s(s))
    overlap_error = te is not None and str(te).startswith("unsupported operation")
    expanded = any(n > 1 and stride == 0 for n, stride in zip(spec.shape, spec.strides))
    if not overlap_error and isinstance(se, st.OverlapWriteError) and not expanded:
        # Note: strided refuses every in-place update of a target whose elements overlap (the
        # windows of unfold, or (2, 1, 2) with strides (2, 0, 2)); PyTorch refuses only a stride
        # 0 on a dim of size > 1. Nothing is written.
        np.testing.assert_array_equal(ds, before)
        return
    assert (te is None) == (se is None), f"torch: {te!r}\nstrided: {se!r}"
    if te is not None:
        if str(te) == "index out of range in self" and "index_add_" in str(se) and not isinstance(se, IndexError):
            te = RuntimeError(str(se).splitlines()[0])  # (PyTorch's wording varies by kernel path)
        assert builtin_class(se) is builtin_class(te), (te, se)
        assert str(se).splitlines()[0] == str(te).splitlines()[0]
        np.testing.assert_array_equal(ds, before)  # nothing written
        return
    assert sr is s
    np.testing.assert_allclose(ds, dt, rtol=1e-12, atol=1e-12)


@SETTINGS
@given(gather_case(unique=True), hs.sampled_from(["src", "value", "add", "multiply"]))
def test_scatter_inplace_matches_torch(case, kind):
    spec, dim, idx = case
    rng = np.random.default_rng(1)
    src = rng.standard_normal(tuple(n + 1 for n in idx.shape))
    it, is_ = torch.from_numpy(idx), st.from_numpy(idx)
    if kind == "src":
        _after_both(spec, lambda t: t.scatter_(dim, it, torch.from_numpy(src)),
                    lambda s: s.scatter_(dim, is_, st.from_numpy(src)))
    elif kind == "value":
        _after_both(spec, lambda t: t.scatter_(dim, it, value=2.5), lambda s: s.scatter_(dim, is_, value=2.5))
    else:
        _after_both(spec, lambda t: t.scatter_(dim, it, torch.from_numpy(src), reduce=kind),
                    lambda s: s.scatter_(dim, is_, st.from_numpy(src), reduce=kind))


@SETTINGS
@given(gather_case(), hs.sampled_from(["sum", "prod", "mean", "amax", "amin", "add"]), hs.booleans())
def test_scatter_add_and_reduce_match_torch(case, reduce, include_self):
    spec, dim, idx = case
    src = np.random.default_rng(2).standard_normal(idx.shape)
    it, is_ = torch.from_numpy(idx), st.from_numpy(idx)
    if reduce == "add":
        _after_both(spec, lambda t: t.scatter_add_(dim, it, torch.from_numpy(src)),
                    lambda s: s.scatter_add_(dim, is_, st.from_numpy(src)))
    else:
        _after_both(spec, lambda t: t.scatter_reduce_(dim, it, torch.from_numpy(src), reduce, include_self=include_self),
                    lambda s: s.scatter_reduce_(dim, is_, st.from_numpy(src), reduce, include_self=include_self))


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_integers_out_of_place(reduce, include_self):
    """Integer mean rounds down; the out-of-place form is a new contiguous tensor, the input unchanged."""
    x = np.arange(12, dtype=np.int64).reshape(3, 4) - 5
    idx = np.array([[0, 0, 3, 3, 1]])
    src = np.array([[7, -2, 5, 4, 9]])
    xt, xs = torch.from_numpy(x.copy()).t(), st.from_numpy(x.copy()).t()
    compare(lambda: xt.scatter_reduce(0, torch.from_numpy(idx.T.copy()), torch.from_numpy(src.T.copy()), reduce,
                                      include_self=include_self),
            lambda: xs.scatter_reduce(0, st.from_numpy(idx.T.copy()), st.from_numpy(src.T.copy()), reduce,
                                      include_self=include_self), TOL)
    np.testing.assert_array_equal(xs.numpy(), x.T - 0)


@SETTINGS
@given(specs(max_dims=3, max_size=4), hs.data())
def test_index_select_take_take_along_dim_match_torch(spec, data):
    t, s, _, _ = _pair(spec)
    ndim = max(len(spec.shape), 1)
    dim = data.draw(hs.integers(-ndim, ndim - 1))
    size = (spec.shape or (1,))[dim % ndim]
    idx = _index(data.draw, (data.draw(hs.integers(0, 5)),), 0, size)
    it, is_ = torch.from_numpy(idx), st.from_numpy(idx)
    # (PyTorch's RuntimeError "INDICES element is out of DATA bounds" along dim 1 included)
    compare(lambda: t.index_select(dim, it), lambda: index_select(s, dim, is_), TOL)
    n = max(s.numel(), 1)
    flat = _index(data.draw, (2, data.draw(hs.integers(0, 3))), 0, n) - data.draw(hs.sampled_from([0, n]))
    compare(lambda: t.take(torch.from_numpy(flat)), lambda: take(s, st.from_numpy(flat)), TOL)
    # (PyTorch views the input flat, refusing a non-contiguous one; strided reads it in place)
    compare(lambda: t.contiguous().take_along_dim(torch.from_numpy(flat), None),
            lambda: take_along_dim(s, st.from_numpy(flat), None), TOL)
    if spec.shape and size == 0:  # (PyTorch 2.13 reads indices modulo 0: "ZeroDivisionError")
        with pytest.raises(RuntimeError, match="out of bounds for dimension"):
            take_along_dim(s, st.zeros(*[1] * len(spec.shape), dtype=st.int64), dim)
    elif spec.shape:
        ishape = tuple(data.draw(hs.sampled_from([1, n_])) if e != dim % ndim else 3 for e, n_ in enumerate(spec.shape))
        along = _index(data.draw, ishape, dim % ndim, size, bad=False) - data.draw(hs.sampled_from([0, size]))
        compare(lambda: torch.take_along_dim(t, torch.from_numpy(along), dim),
                lambda: take_along_dim(s, st.from_numpy(along), dim), TOL)


@SETTINGS
@given(specs(min_dims=1, max_dims=3, max_size=4), hs.data(),
       hs.sampled_from(["fill", "fill_t", "add", "copy", "fill_oop", "add_oop", "copy_oop"]))
def test_index_fill_add_copy_match_torch(spec, data, kind):
    assume(0 not in spec.shape)  # (PyTorch's index_fill_ on some empty layouts fails in setStorage)
    ndim = len(spec.shape)
    dim = data.draw(hs.integers(-ndim, ndim - 1))
    size = spec.shape[dim % ndim]
    unique = kind.startswith("copy")
    if unique and size:
        k = data.draw(hs.integers(0, size))
        idx = np.random.default_rng(k).permutation(size)[:k].astype(np.int64)
        if data.draw(hs.integers(0, 5)) == 0:
            idx = np.append(idx, size)
    else:
        idx = _index(data.draw, (data.draw(hs.integers(0, 4)),), 0, size)
    src_shape = list(spec.shape)
    src_shape[dim % ndim] = idx.size
    src = np.random.default_rng(3).standard_normal(src_shape)
    it, is_ = torch.from_numpy(idx), st.from_numpy(idx)
    ts, ss = torch.from_numpy(src), st.from_numpy(src)
    if kind == "fill":
        _after_both(spec, lambda t: t.index_fill_(dim, it, -7.5), lambda s: s.index_fill_(dim, is_, -7.5))
    elif kind == "fill_t":
        _after_both(spec, lambda t: t.index_fill_(dim, it, torch.tensor(3.0)),
                    lambda s: s.index_fill_(dim, is_, st.tensor(3.0)))
    elif kind == "add":
        _after_both(spec, lambda t: t.index_add_(dim, it, ts, alpha=2), lambda s: s.index_add_(dim, is_, ss, alpha=2))
    elif kind == "copy":
        # a target whose elements share memory through non-zero strides (shape (2, 3, 1), strides
        # (1, 1, 3)): which copied value lands last is each library's loop order, which neither promises
        live = [(n, d) for n, d in zip(spec.shape, spec.strides) if d != 0]
        assume(not st.layout.overlaps(tuple(n for n, _ in live), tuple(d for _, d in live)))
        _after_both(spec, lambda t: t.index_copy_(dim, it, ts), lambda s: s.index_copy_(dim, is_, ss))
    else:
        t, s, _, _ = _pair(spec)
        name = "index_" + kind.removesuffix("_oop")
        args = (-7.5,) if kind == "fill_oop" else (ts,)
        sargs = (-7.5,) if kind == "fill_oop" else (ss,)
        compare(lambda: getattr(t, name)(dim, it, *args), lambda: getattr(s, name)(dim, is_, *sargs), TOL)


# ---------------------------------------------------------------- errors, in PyTorch's words and ours


def _x():
    return torch.arange(12.0).reshape(3, 4), st.arange(12.0).reshape(3, 4)


def test_gather_out_of_range_names_index_dim_and_size():
    t, s = _x()
    text = same_error(lambda: t.gather(0, torch.tensor([[0, 5]])), lambda: s.gather(0, st.tensor([[0, 5]])))
    assert text.startswith("index 5 is out of bounds for dimension 0 with size 3")
    assert "position [0, 1]" in text and "fix:" in text
    assert isinstance(outcome(lambda: s.gather(0, st.tensor([[-1]])))[1], RuntimeError)


def test_index_select_out_of_range_is_an_index_error():
    t, s = _x()
    text = same_error(lambda: t.index_select(0, torch.tensor([0, 4])), lambda: s.index_select(0, st.tensor([0, 4])))
    assert "holds 4 at position [1]" in text and "dim 0 has size 3" in text


@pytest.mark.parametrize("call", [
    lambda m, x, i: x.gather(0, i([[1]], dtype=m.int16)),
    lambda m, x, i: x.clone().scatter_(0, i([[1]], dtype=m.float32), 1.0),
    lambda m, x, i: x.index_select(0, i([1.0])),
    lambda m, x, i: x.take(i([1], dtype=m.int32)),
    lambda m, x, i: x.take_along_dim(i([[1]], dtype=m.int32), 0),
    lambda m, x, i: x.clone().index_copy_(0, i([1], dtype=m.int32), x[:1]),
    lambda m, x, i: x.clone().index_fill_(0, i([1], dtype=m.int32), 1.0),
    lambda m, x, i: x.gather(0, i([1])),
    lambda m, x, i: x.gather(0, i([[0] * 5, [0] * 5])),
    lambda m, x, i: x.clone().scatter_(0, i([[0] * 5, [0] * 5]), m.ones(2, 5)),
    lambda m, x, i: x.clone().scatter_(0, i([[0], [0]]), m.ones(1, 1)),
    lambda m, x, i: x.clone().scatter_(0, i([[1]]), m.ones(1, 1, dtype=m.float64)),
    lambda m, x, i: x.clone().scatter_(0, i([[1]]), m.ones(1, 1), reduce="mean"),
    lambda m, x, i: x.clone().scatter_reduce_(0, i([[1]]), m.ones(1, 1), "foo"),
    lambda m, x, i: x.clone().index_add_(0, i([1]), m.ones(2, 4)),
    lambda m, x, i: x.clone().index_add_(0, i([1]), m.ones(1, 3)),
    lambda m, x, i: x.clone().index_add_(0, i([1]), m.ones(1, 4, dtype=m.float64)),
    lambda m, x, i: x.clone().index_add_(0, i([7]), m.ones(1, 4)),
    lambda m, x, i: x.clone().index_copy_(0, i([5]), m.ones(1, 4)),
    lambda m, x, i: x.clone().index_copy_(0, i([1]), m.ones(2, 4)),
    lambda m, x, i: x.clone().index_copy_(0, i([1]), m.ones(1, 3)),
    lambda m, x, i: x.clone().index_copy_(0, i([[1]]), m.ones(1, 4)),
    lambda m, x, i: x.clone().index_fill_(0, i([3]), 1.0),
    lambda m, x, i: x.clone().index_fill_(0, i([1]), m.ones(2)),
    lambda m, x, i: x.take(i([12])),
    lambda m, x, i: x.take_along_dim(i([[1]]), 2),
    lambda m, x, i: x.zeros_like(x) if False else m.zeros(3).expand(2, 3).scatter_(0, i([[0]]), 1.0),
    lambda m, x, i: m.zeros(3).expand(2, 3).index_add_(1, i([0]), m.ones(2, 1)),
    lambda m, x, i: m.zeros(3).expand(2, 3).index_copy_(1, i([0]), m.ones(2, 1)),
    lambda m, x, i: m.zeros(3).expand(2, 3).scatter_add_(1, i([[0]]), m.ones(1, 1)),
])
def test_errors_match_torch_and_leave_the_target_untouched(call):
    t, s = _x()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        text = same_error(lambda: call(torch, t, torch.tensor), lambda: call(st, s, st.tensor))
    assert len(text.splitlines()) >= 2
    np.testing.assert_array_equal(s.numpy(), np.arange(12.0).reshape(3, 4))


def test_a_failed_scatter_writes_nothing_where_torch_writes_part():
    """PyTorch writes the in-range values before it finds index 9; strided checks first."""
    s = st.zeros(4)
    with pytest.raises(RuntimeError, match="index 9 is out of bounds for dimension 0 with size 4"):
        s.scatter_(0, st.tensor([0, 1, 9]), st.tensor([1.0, 2.0, 3.0]))
    assert s.tolist() == [0.0] * 4
    with pytest.raises(IndexError, match="index out of range in self"):
        s.index_add_(0, st.tensor([0, 9]), st.ones(2))
    assert s.tolist() == [0.0] * 4


def test_writes_through_a_view_land_in_the_base():
    base = st.zeros(3, 4)
    view = base.t()[1:]  # (3, 3), strides (1, 4)
    view.scatter_(0, st.tensor([[2, 0, 1]]), st.tensor([[1.0, 2.0, 3.0]]))
    view.index_add_(1, st.tensor([0, 0]), st.ones(3, 2))
    tb = torch.zeros(3, 4)
    tv = tb.t()[1:]
    tv.scatter_(0, torch.tensor([[2, 0, 1]]), torch.tensor([[1.0, 2.0, 3.0]]))
    tv.index_add_(1, torch.tensor([0, 0]), torch.ones(3, 2))
    assert base.tolist() == tb.tolist()


def test_repeated_index_last_write_wins():
    x = st.zeros(3).scatter_(0, st.tensor([1, 1, 1]), st.tensor([1.0, 2.0, 3.0]))
    assert x.tolist() == [0.0, 3.0, 0.0]
    y = st.zeros(3).index_copy_(0, st.tensor([2, 2]), st.tensor([5.0, 6.0]))
    assert y.tolist() == [0.0, 0.0, 6.0]


@pytest.mark.parametrize("call", [
    lambda m, y: y.scatter_(0, m.tensor([1, 2, 3]), y[:3]),
    lambda m, y: y.scatter_(0, m.tensor([0, 1, 2, 3]), y),
    lambda m, y: y.scatter_add_(0, m.tensor([1, 2, 3]), y[1:]),
    lambda m, y: y.scatter_reduce_(0, m.tensor([0, 1, 2, 3]), y, "sum"),
    lambda m, y: y.index_add_(0, m.tensor([1, 2, 3]), y[:3]),
    lambda m, y: y.index_copy_(0, m.tensor([1, 2, 3]), y[:3]),
    lambda m, y: (lambda z: z.index_fill_(0, z[:1], 7))(m.arange(4)),
])
def test_a_source_or_index_sharing_the_targets_memory_is_refused_as_torch(call):
    y_t, y_s = torch.arange(4.0), st.arange(4.0)
    same_error(lambda: call(torch, y_t), lambda: call(st, y_s))
    assert y_s.tolist() == [0.0, 1.0, 2.0, 3.0]


def test_an_index_sharing_the_targets_memory_is_refused():
    y = st.arange(4)
    z = torch.arange(4)
    text = same_error(lambda: z.scatter_(0, z[:3], 7), lambda: y.scatter_(0, y[:3], 7))
    assert "fix: pass a copy of the index" in text
    assert y.tolist() == [0, 1, 2, 3]


def test_take_along_dim_refuses_what_torch_reads_modulo_the_size():
    x = st.tensor([5.0, 6.0])
    assert x.take_along_dim(st.tensor([-1, -2]), 0).tolist() == [6.0, 5.0]
    with pytest.raises(RuntimeError, match="index 2 is out of bounds for dimension 0 with size 2"):
        x.take_along_dim(st.tensor([0, 2]), 0)


def test_zero_d_and_empty():
    s, t = st.tensor(5.0), torch.tensor(5.0)
    compare(lambda: t.gather(0, torch.tensor(0)), lambda: s.gather(0, st.tensor(0)), TOL)
    compare(lambda: t.index_select(0, torch.tensor([0])), lambda: s.index_select(0, st.tensor([0])), TOL)
    compare(lambda: t.scatter(0, torch.tensor(0), 3.0), lambda: scatter(s, 0, st.tensor(0), 3.0), TOL)
    e, te = st.zeros(0, 3), torch.zeros(0, 3)
    compare(lambda: te.index_select(0, torch.zeros(1, dtype=torch.long)),
            lambda: e.index_select(0, st.zeros(1, dtype=st.int64)), TOL)
    compare(lambda: te.gather(0, torch.zeros(1, 3, dtype=torch.long)),
            lambda: e.gather(0, st.zeros(1, 3, dtype=st.int64)), TOL)


def test_reading_ops_are_recorded_as_copies():
    x = st.arange(12.0).reshape(3, 4).t()
    i1, i2, i3, i4 = st.tensor([[0, 1]]), st.tensor([1, 2, 3]), st.tensor([0, 5]), st.tensor([[0], [1], [2], [0]])
    with st.record_copies() as copies:
        g = x.gather(1, i1)
        x.index_select(0, i2)
        x.take(i3)
        x.take_along_dim(i4, 1)
    assert [c.reason.split(":")[0] for c in copies] == ["gather", "index_select", "take", "take_along_dim"]
    assert copies[0].nbytes == g.numel() * 4 == 8
    assert copies[1].nbytes == 3 * 3 * 4


def test_methods_are_installed():
    x = st.arange(6.0).reshape(2, 3)
    for name in ["gather", "take", "take_along_dim", "scatter", "scatter_", "scatter_add", "scatter_add_",
                 "scatter_reduce", "scatter_reduce_", "index_select", "index_fill", "index_fill_",
                 "index_add", "index_add_", "index_copy", "index_copy_"]:
        assert callable(getattr(x, name))


def test_expanded_and_permuted_index_and_source_are_read_in_place():
    x, t = st.arange(12.0).reshape(3, 4), torch.arange(12.0).reshape(3, 4)
    i_s, i_t = st.tensor([[2], [0], [1]]).expand(3, 4), torch.tensor([[2], [0], [1]]).expand(3, 4)
    compare(lambda: t.gather(0, i_t), lambda: x.gather(0, i_s), TOL)
    p_s, p_t = st.tensor([[0, 1, 2], [2, 1, 0]]).t(), torch.tensor([[0, 1, 2], [2, 1, 0]]).t()  # (3, 2)
    compare(lambda: t.gather(1, p_t), lambda: x.gather(1, p_s), TOL)
    src_s, src_t = st.tensor([1.0, 2.0, 3.0, 4.0]).expand(3, 4), torch.tensor([1.0, 2.0, 3.0, 4.0]).expand(3, 4)
    compare(lambda: t.scatter_add(0, i_t, src_t), lambda: x.scatter_add(0, i_s, src_s), TOL)
    compare(lambda: t.index_add(0, torch.tensor([2, 2, 0]), src_t), lambda: x.index_add(0, st.tensor([2, 2, 0]), src_s),
            TOL)


def test_regression_an_overlapping_target_without_an_expanded_dim_is_refused_untouched():
    # (2, 1, 2) with strides (2, 0, 2): elements (0, 0, 1) and (1, 0, 0) share position 2, and the
    # stride 0 sits on a size-1 dim, so PyTorch does not see the overlap (it writes nothing for an
    # empty index); strided refuses the update and leaves the storage as it was
    from layout_strategies import Spec

    spec = Spec(storage_size=5, shape=(2, 1, 2), strides=(2, 0, 2), offset=0)
    empty = torch.zeros((0, 1, 2), dtype=torch.int64)
    _after_both(spec, lambda t: t.scatter_add_(0, empty, t.clone()),
                lambda s: s.scatter_add_(0, st.from_numpy(empty.numpy()), s.clone()))
