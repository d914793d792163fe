"""Hostile tests of the issue-12 ops at the op boundary (what each reports to listeners, the copy
ledger and watch) and on the write path (a refused in-place op leaves every byte as it was; a
successful one through a view lands in its base; memory shared between target and inputs is
refused as PyTorch refuses it, typed aliases included), and misuse (wrong argument kinds)."""

from __future__ import annotations

import sys
import threading

import numpy as np
import pytest
import torch

import strided as st
from strided.diagnose.watch import watch
from strided.ops import copies
from strided.ops.creation import random as R
from strided.ops.table import OPS

# ---------------------------------------------------------------- reporting

_x = st.arange(12, dtype=st.float32).reshape(3, 4)
_v = st.arange(4, dtype=st.float32)
_c = st.tensor([1 + 2j, 3 + 4j])
_i = st.tensor([0, 2])
_col = st.tensor([[0], [1], [2]])
_xx = [_x, _x]

# simple arguments for every op of the _MORE table (a unary op without an entry takes _v)
_ARGS = {
    "addcmul": (_v, _v, _v), "addcdiv": (_v, _v, _v + 1),
    "atleast_1d": (st.tensor(1.0),), "atleast_2d": (_v,), "atleast_3d": (_v,), "broadcast_tensors": (_x, _v),
    "tensor_split": (_x, 2), "hsplit": (_x, 2), "vsplit": (_x, 3), "dsplit": (_x.reshape(3, 2, 2), 2),
    "cat": (_xx,), "concat": (_xx,), "concatenate": (_xx,), "stack": (_xx,), "hstack": (_xx,),
    "vstack": (_xx,), "row_stack": (_xx,), "dstack": (_xx,), "column_stack": (_xx,),
    "meshgrid": (_v, _v), "tril_indices": (3, 4), "triu_indices": (4, 3, 1), "isreal": (_c,), "tril": (_x,), "triu": (_x,), "diag": (_v,), "diag_embed": (_v,), "diagflat": (_v,),
    "block_diag": (_x, _x), "cartesian_prod": (_v, _v), "flip": (_x, (0,)), "fliplr": (_x,), "flipud": (_x,),
    "roll": (_x, 1), "rot90": (_x,), "tile": (_x, (2,)), "repeat_interleave": (_x, 2),
    "sort": (_x,), "argsort": (_x,), "msort": (_x,), "topk": (_x, 2), "kthvalue": (_x, 2),
    "cumsum": (_x, 0), "cumprod": (_x, 0), "cummax": (_x, 0), "cummin": (_x, 0), "diff": (_x,),
    "unique": (_x,), "unique_consecutive": (_x,), "isin": (_x, _v), "unravel_index": (_i, (3, 4)), "searchsorted": (_v, _v), "bucketize": (_v, _v),
    "index_put": (_x, (_i,), st.tensor(1.0)), "index_put_": (_x.clone(), (_i,), st.tensor(1.0)),
    "gather": (_x, 1, _col), "take": (_x, _i), "put": (_x, _i, _v[:2]), "take_along_dim": (_x, _col, 1),
    "scatter": (_x, 1, _col, 1.0), "scatter_add": (_x, 1, _col, _x), "scatter_reduce": (_x, 1, _col, _x, "sum"),
    "index_select": (_x, 0, _i), "index_add": (_x, 0, _i, _x[:2]), "index_copy": (_x, 0, _i, _x[:2]),
    "index_fill": (_x, 0, _i, 1.0), "index_reduce": (_x, 0, _i, _x[:2], "prod"), "masked_select": (_x, _x > 5), "nonzero": (_x,), "argwhere": (_x,),
    "masked_fill": (_x, _x > 5, 0.0), "masked_scatter": (_x, _x > 5, _x),
    "real": (_c,), "imag": (_c,), "view_as_real": (_c,), "view_as_complex": (st.zeros(2, 2),),
    "resolve_conj": (_c,), "adjoint": (_x,), "conj": (_c,), "conj_physical": (_c,), "angle": (_c,),
    "polar": (_v, _v), "complex": (_v, _v), "hypot": (_v, _v), "atan2": (_v, _v), "arctan2": (_v, _v),
    "copysign": (_v, _v), "fmod": (_v, 2.0), "logical_and": (_v, _v), "logical_or": (_v, _v),
    "logical_xor": (_v, _v), "lerp": (_v, _v, 0.5), "isclose": (_v, _v), "amax": (_x,), "amin": (_x,),
    "aminmax": (_x,), "nansum": (_x,), "nanmean": (_x,), "logsumexp": (_x, 0), "count_nonzero": (_x,),
    "norm": (_x,), "cdist": (_x, _x), "bitwise_left_shift": (_i, 1), "bitwise_right_shift": (_i, 1),
    "alias_copy": (_x,), "as_strided_copy": (_x, (2, 2), (1, 1)), "detach_copy": (_x,), "diagonal_copy": (_x,),
    "expand_copy": (_v, (3, 4)), "narrow_copy": (_x, 0, 0, 2), "permute_copy": (_x, (1, 0)),
    "select_copy": (_x, 0, 1), "slice_copy": (_x,), "split_copy": (_x, 2), "split_with_sizes_copy": (_x, [1, 2]),
    "squeeze_copy": (_x,), "t_copy": (_x,), "transpose_copy": (_x, 0, 1), "unbind_copy": (_x,),
    "unfold_copy": (_x, 0, 2, 1), "unsqueeze_copy": (_x, 0), "view_copy": (_x, 12),
    "dist": (_v, _v), "logcumsumexp": (_x, 0), "addmm": (_v, _x.t(), _x), "addmv": (_i, _i[:, None].expand(2, 3) * 1,
    st.tensor([1, 2, 3])), "addr": (_x[:2, :2], _i, _i), "baddbmm": (_v[:3], _x[None], _x.t()[None]),
    "addbmm": (_v[:3], _x[None], _x.t()[None]), "cov": (_x,), "trapezoid": (_x,), "trapz": (_x,),
    "cumulative_trapezoid": (_x,),
    "fmax": (_v, _v), "fmin": (_v, _v), "gcd": (_i, _i), "lcm": (_i, _i), "heaviside": (_v, _v), "xlogy": (_v, _v),
    "logaddexp": (_v, _v), "logaddexp2": (_v, _v), "ldexp": (_v, _v), "float_power": (_v, 2.0),
}
_ONES5 = st.ones(5)
# the everyday ops: those of the registry declared in these family modules, by every name that is
# a function of strided's face (Tensor-only methods such as ``contiguous`` take no list for self)
_EVERYDAY = ("shape.joining", "shape.triangles", "shape.reorder", "shape.sorting", "reductions.scans", "shape.sets",
             "shape.searching", "indexing.advanced", "indexing.gather_scatter", "indexing.index_ops",
             "indexing.masked", "copies", "elementwise.complex_ops", "elementwise.unary_more",
             "elementwise.binary_more", "elementwise.binary_math", "reductions.nan_reductions", "linalg.distance",
             "elementwise.shifts", "linalg.fused", "reductions.integration", "reductions.covariance")
_TABLE = [(sys.modules[op.home], op.kind.value, name) for name, op in OPS.items()
          if op.home.removeprefix("strided.ops.") in _EVERYDAY and hasattr(st, name)]


def _nbytes(out):
    return out.numel() * out.element_size() if isinstance(out, st.Tensor) else sum(_nbytes(o) for o in out)


def test_every_more_op_reports_its_own_name_and_kind():
    assert len(_TABLE) > 150 and set(copies.COPY_FORMS) <= {n for _, _, n in _TABLE}
    for module, kind, name in _TABLE:
        if name in ("resolve_conj", "resolve_neg", "positive"):
            continue  # (they return their input itself, as PyTorch's do for a plain tensor: no op reported)
        records = []
        with st.dispatch.listen(records.append), st.record_copies() as ledger, watch() as w:
            out = getattr(module, name)(*_ARGS.get(name, (_v,)))
        assert [(r.name, r.kind) for r in records] == [(name, kind)] * len(records) and records, name
        shown = "write" if name.endswith("_") else kind  # (watch shows an in-place op as a write)
        assert [(s.name, s.kind) for s in w.steps] == [(name, shown)] * len(records), name
        if kind == "copy":
            assert sum(c.nbytes for c in ledger) == _nbytes(out) and all(c.reason for c in ledger), name
        else:
            assert ledger == [], name


def test_a_tensor_already_of_the_asked_rank_is_returned_as_it_is_no_op_reported():
    records = []
    with st.dispatch.listen(records.append):
        assert st.atleast_2d(_x) is _x and st.atleast_1d(_x) is _x and st.resolve_conj(_x) is _x and st.resolve_neg(_x) is _x
    assert records == []  # (PyTorch returns the same object too)


def test_inplace_view_ops_report_a_view_and_samplers_as_documented():
    cases = {
        "t_": lambda t: t.t_(), "transpose_": lambda t: t.transpose_(0, 1), "swapdims_": lambda t: t.swapdims_(0, 1),
        "swapaxes_": lambda t: t.swapaxes_(0, 1), "squeeze_": lambda t: t.squeeze_(),
        "unsqueeze_": lambda t: t.unsqueeze_(0), "as_strided_": lambda t: t.as_strided_((2,), (1,)),
        "set_": lambda t: t.set_(_ONES5),
    }
    for name, op in cases.items():
        t = st.zeros(2, 3)
        records = []
        with st.dispatch.listen(records.append), st.record_copies() as ledger:
            assert op(t) is t
        assert [(r.name, r.kind) for r in records] == [(name, "view")] and ledger == []
    for name in ("rand", "randn", "randperm", "randint", "normal", "rand_like", "bernoulli", "multinomial"):
        args = {"randint": (5, (3,)), "normal": (st.zeros(3), 1.0), "rand_like": (st.zeros(3),),
                "bernoulli": (st.full((3,), 0.5),), "multinomial": (st.ones(3), 2)}.get(name, (3,))
        records = []
        with st.dispatch.listen(records.append):
            getattr(R, name)(*args)
        assert [(r.name, r.kind) for r in records] == [(name, "alloc")]
    t = st.zeros(3)
    for name in ("uniform_", "normal_", "random_", "bernoulli_", "exponential_", "log_normal_", "cauchy_"):
        records = []
        with st.dispatch.listen(records.append):
            assert getattr(t, name)() is t
        assert [(r.name, r.kind, r.output is t) for r in records] == [(name, "compute", True)]


def test_aliases_and_norm_report_the_name_the_user_called():
    records = []
    with st.dispatch.listen(records.append):
        st.concat(_xx)
        st.concatenate(_xx)
        st.row_stack(_xx)
        st.arcsin(_v)
        st.fix(_v)
        _v.clone().arccosh_()
        st.norm(_x)
        st.norm(_x, "nuc")
    assert [(r.name, r.kind) for r in records] == [
        ("concat", "copy"), ("concatenate", "copy"), ("row_stack", "copy"), ("arcsin", "compute"),
        ("fix", "compute"), ("clone", "copy"), ("arccosh_", "compute"), ("norm", "compute"), ("norm", "compute")]
    with pytest.raises(TypeError, match=r"^arcsin\(\): argument 'input'"):
        st.arcsin([1.0])


# ---------------------------------------------------------------- write integrity


def _ix(*values):
    return st.tensor(list(values))


_M = st.tensor([[True, False, True, False]] * 2)

# in-place calls that must be refused, each on a (2, 4) float32 view (rows 0 and 2, columns 1..4) of a
# (4, 6) base, with the class PyTorch raises
_REFUSED = [
    ("masked_fill_", lambda t: t.masked_fill_(st.zeros(2, 4), 1.0), RuntimeError),
    ("masked_fill_", lambda t: t.masked_fill_(st.ones(3, 4, dtype=st.bool), 1.0), RuntimeError),
    ("masked_fill_", lambda t: t.masked_fill_(_M, st.ones(2)), RuntimeError),
    ("masked_fill_", lambda t: t.masked_fill_([[True] * 4] * 2, 1.0), TypeError),
    ("index_add_", lambda t: t.index_add_(0, _ix(0, 5), st.ones(2, 4)), RuntimeError),
    ("index_add_", lambda t: t.index_add_(0, st.tensor([0.0, 1.0]), st.ones(2, 4)), RuntimeError),
    ("index_add_", lambda t: t.index_add_(0, _ix(0, 1), st.ones(2, 4, dtype=st.float64)), RuntimeError),
    ("index_add_", lambda t: t.index_add_(0.0, _ix(0, 1), st.ones(2, 4)), TypeError),
    ("index_copy_", lambda t: t.index_copy_(1, _ix(0, 4), st.ones(2, 2)), IndexError),
    ("index_copy_", lambda t: t.index_copy_(1, _ix(0, 3), [[1, 2], [3, 4]]), TypeError),
    ("index_fill_", lambda t: t.index_fill_(1, _ix(1, 4), 7.0), IndexError),
    ("index_fill_", lambda t: t.index_fill_(1, _ix(1, 2), "x"), TypeError),
    ("scatter_", lambda t: t.scatter_(1, st.tensor([[0, 1], [2, 9]]), st.ones(2, 2)), RuntimeError),
    ("scatter_", lambda t: t.scatter_(1, st.tensor([[0]]), st.ones(1, 1, dtype=st.float64)), RuntimeError),
    ("scatter_", lambda t: t.scatter_(1, st.zeros(3, 1, dtype=st.int64), 5.0), RuntimeError),
    ("scatter_add_", lambda t: t.scatter_add_(1, st.tensor([[0, 1], [2, 4]]), st.ones(2, 2)), RuntimeError),
    ("scatter_reduce_", lambda t: t.scatter_reduce_(1, st.tensor([[0, 7]]), st.ones(1, 2), "amax"), RuntimeError),
    ("scatter_reduce_", lambda t: t.scatter_reduce_(1, st.tensor([[0]]), st.ones(1, 1), None), TypeError),
    ("masked_scatter_", lambda t: t.masked_scatter_(_M, st.ones(3)), RuntimeError),
    ("masked_scatter_", lambda t: t.masked_scatter_(_M, st.ones(8, dtype=st.float64)), RuntimeError),
    ("tril_", lambda t: t.tril_(0.5), TypeError),
    ("tril_", lambda t: t[0].tril_(), RuntimeError),
    ("cumsum_", lambda t: t.cumsum_(0, dtype=st.float64), RuntimeError),
    ("cumprod_", lambda t: t.cumprod_(None), TypeError),
    ("uniform_", lambda t: t.uniform_(2.0, 1.0), RuntimeError),
    ("uniform_", lambda t: t.uniform_("a"), TypeError),
    ("normal_", lambda t: t.normal_(0.0, -1.0), RuntimeError),
    ("normal_", lambda t: t.normal_([0.0]), TypeError),
    ("random_", lambda t: t.random_(5, 2), RuntimeError),
    ("bernoulli_", lambda t: t.bernoulli_(st.full((2, 4), 2.0)), RuntimeError),
    ("exponential_", lambda t: t.exponential_(None), TypeError),
    ("geometric_", lambda t: t.geometric_(0.0), RuntimeError),
    ("log_normal_", lambda t: t.log_normal_(0.0, "a"), TypeError),
    ("cauchy_", lambda t: t.cauchy_(0.0, -1.0), RuntimeError),
    ("set_", lambda t: t.set_(st.zeros(3, dtype=st.float64)), RuntimeError),
    ("resize_as_", lambda t: t.resize_as_([1, 2]), TypeError),
    ("exp2", lambda t: st.exp2(st.ones(2, 4), out=t.to(st.int64)), RuntimeError),
    ("imag", lambda t: setattr(t, "imag", st.ones(2, 4)), RuntimeError),
    ("real", lambda t: setattr(t, "real", st.ones(3)), RuntimeError),
]


@pytest.mark.parametrize("readonly", [False, True])
def test_a_refused_inplace_op_leaves_every_byte_and_the_layout_as_they_were(readonly):
    for name, call, cls in _REFUSED:
        array = np.arange(24, dtype=np.float32).reshape(4, 6)
        if readonly:
            array.flags.writeable = False
        base = st.from_numpy(array)
        t = base[::2, 1:5]
        before, layout = array.copy(), (t.shape, t.stride(), t.storage_offset())
        try:
            call(t)
        except Exception as err:  # noqa: BLE001 - checked below
            assert isinstance(err, st.StridedError) and isinstance(err, (RuntimeError, cls) if readonly else cls), name
        else:
            raise AssertionError(f"{name} did not raise")
        assert np.array_equal(array, before) and (t.shape, t.stride(), t.storage_offset()) == layout, name


def _writes(lib):
    ix = lambda *v: lib.tensor(list(v))  # noqa: E731
    mask = lib.tensor([[True, False, True, False]] * 2)
    return {
        "masked_fill_": lambda t: t.masked_fill_(mask, -1.0),
        "index_add_": lambda t: t.index_add_(1, ix(3, 0), lib.ones(2, 2), alpha=2),
        "index_copy_": lambda t: t.index_copy_(1, ix(0, 3), lib.full((2, 2), -2.0)),
        "index_fill_": lambda t: t.index_fill_(1, ix(-1, 2), 7.0),
        "scatter_": lambda t: t.scatter_(1, lib.tensor([[0, 1]]), 5.0),
        "scatter_add_": lambda t: t.scatter_add_(1, lib.tensor([[3, 1]]), lib.ones(1, 2)),
        "scatter_reduce_": lambda t: t.scatter_reduce_(1, lib.tensor([[0, 1]]), lib.ones(1, 2), "amax"),
        "masked_scatter_": lambda t: t.masked_scatter_(mask, -lib.arange(8.0)),
        "tril_": lambda t: t.tril_(), "triu_": lambda t: t.triu_(1),
        "cumsum_": lambda t: t.cumsum_(0), "cumprod_": lambda t: t.cumprod_(1),
        "fix_": lambda t: t.div_(3).fix_(), "lerp_": lambda t: t.lerp_(lib.zeros(4), 0.25),
        "out=": lambda t: lib.hypot(lib.ones(2, 4), lib.ones(2, 4), out=t),
    }


def test_inplace_ops_through_a_view_write_into_the_base_and_nowhere_else():
    ours, theirs = _writes(st), _writes(torch)
    for name, call in ours.items():
        base, tb = st.arange(24.0).reshape(4, 6), torch.arange(24.0).reshape(4, 6)
        call(base[::2, 1:5])
        theirs[name](tb[::2, 1:5])
        assert base.tolist() == tb.tolist(), name
    base = st.zeros(4, 6)
    base[::2, 1:5].uniform_(1.0, 2.0)
    a = base._np()
    assert (a[::2, 1:5] >= 1).all() and (a[1::2] == 0).all() and (a[:, [0, 5]] == 0).all()


def _agree(build):
    """Run ``build(torch)`` and ``build(strided)``: the same values, or errors of PyTorch's class and first line."""
    try:
        expected = build(torch).tolist()
    except Exception as err:  # noqa: BLE001 - the class is compared below
        with pytest.raises(type(err)) as info:
            build(st)
        assert str(info.value).splitlines()[0] == str(err).splitlines()[0]
        return info.value
    assert build(st).tolist() == expected
    return None


def test_a_mask_partly_overlapping_the_tensor_is_refused_the_tensor_itself_is_not():
    def shifted(lib):
        b = lib.tensor([True, False, False, False])
        b[1:].masked_fill_(b[:-1], True)
        return b

    err = _agree(shifted)
    assert "fix: pass a copy of the mask" in str(err)
    _agree(lambda lib: (lambda t: t.masked_fill_(t, False))(lib.tensor([True, False, True])))
    b = st.tensor([True, False, False, False])
    with pytest.raises(RuntimeError):
        b[1:].masked_fill_(b[:-1], True)
    assert b.tolist() == [True, False, False, False]


def test_overlap_through_a_typed_alias_of_the_target_is_refused_as_pytorch():
    # the index / mask reads the target's own bytes as another dtype (view(dtype)): PyTorch compares
    # addresses, so it refuses; strided's storages differ, so the check compares their common root
    _agree(lambda lib: (lambda t: t.index_fill_(0, t.view(lib.int64)[:2], 1.0))(lib.zeros(4, dtype=lib.float64)))
    _agree(lambda lib: (lambda t: t[1:].masked_fill_(t.view(lib.bool)[:-1], 1))(
        lib.tensor([1, 0, 0, 0], dtype=lib.uint8)))
    _agree(lambda lib: (lambda t: t.scatter_(0, lib.tensor([1, 0]), t.view(lib.int32)[:2].view(lib.float32)))(
        lib.tensor([1.0, 2.0, 3.0])))
    t = st.zeros(4, dtype=st.float64)
    t.index_fill_(0, t.view(st.int64)[:2].clone(), 1.0)  # a copy of the index is fine
    assert t.tolist() == [1.0, 0.0, 0.0, 0.0]


def test_masked_scatter_reads_a_source_sharing_the_tensors_memory_before_writing():
    # Note: PyTorch reads it while writing ([1, 1, 1, 1], its kernel's order); strided reads first
    for source in (lambda b: b[:-1], lambda b: b.view(st.int32).view(st.float32)[:-1]):
        b = st.tensor([1.0, 2.0, 3.0, 4.0])
        b[1:].masked_scatter_(st.tensor([True, True, True]), source(b))
        assert b.tolist() == [1.0, 1.0, 2.0, 3.0]


def test_index_and_scatter_sources_sharing_the_target_are_refused_as_pytorch():
    f = lambda lib: lib.arange(6.0).reshape(3, 2)  # noqa: E731
    for build in (
        lambda lib: (lambda t: t.index_copy_(0, lib.tensor([1, 0]), t[0:2]))(f(lib)),
        lambda lib: (lambda t: t.index_add_(0, lib.tensor([1, 0, 2]), t))(f(lib)),
        lambda lib: (lambda t: t.index_fill_(0, t[0:2], 9))(lib.tensor([1, 0, 2])),
        lambda lib: (lambda t: t.scatter_(1, lib.tensor([[1, 0], [0, 1]]), t.t()))(f(lib)[:2]),
        lambda lib: (lambda t: t.scatter_(0, t, 5))(lib.tensor([1, 0, 2])),
        lambda lib: lib.zeros(3).expand(2, 3).index_add_(0, lib.tensor([0]), lib.ones(1, 3)),
        lambda lib: lib.zeros(3).expand(2, 3).scatter_add_(1, lib.tensor([[0]]), lib.ones(1, 1)),
        lambda lib: lib.ones(3).expand(2, 3).cumsum_(0),
        lambda lib: (lambda b: lib.hypot(b[:3], b[:3], out=b[1:]))(lib.arange(4.0)),
    ):
        assert isinstance(_agree(build), RuntimeError)


# ---------------------------------------------------------------- misuse


def _torch_of(value):
    return torch.from_numpy(np.array(value._np())) if isinstance(value, st.Tensor) else value


def test_wrong_argument_kinds_give_pytorchs_class_never_a_python_internal_error():
    # each op of the table, each argument in turn replaced by a list, a float, a str, None, a tuple, a bool
    bad_values = ([1.0, 2.0], 1.5, "a", None, (1,), True)
    for module, _, name in _TABLE:
        args = _ARGS.get(name, (_v,))
        theirs = getattr(torch, name, None)
        for i in range(len(args)):
            for bad in bad_values:
                call = list(args)
                call[i] = bad
                try:
                    getattr(module, name)(*call)
                    ours = None
                except st.StridedError as err:
                    ours = err
                # (any other exception fails the test: a crash inside NumPy or an AttributeError)
                if ours is None or theirs is None:
                    continue
                try:
                    theirs(*[_torch_of(a) for a in call])
                except (TypeError, ValueError, RuntimeError, IndexError) as err:
                    assert isinstance(ours, type(err)), (name, i, bad, ours, err)
                except AttributeError:  # (torch.norm of a list: strided's TypeError is the better answer)
                    assert isinstance(ours, TypeError), (name, i, bad, ours)


@pytest.mark.parametrize("call", [
    lambda lib: lib.zeros(3).uniform_("a"), lambda lib: lib.zeros(3).uniform_(0.0, None),
    lambda lib: lib.zeros(3).normal_(None), lambda lib: lib.zeros(3).normal_(0.0, [1.0]),
    lambda lib: lib.zeros(3).exponential_("a"), lambda lib: lib.zeros(3).geometric_((0.5,)),
    lambda lib: lib.zeros(3).log_normal_("a"), lambda lib: lib.zeros(3).cauchy_(0.0, "a"),
    lambda lib: lib.zeros(3, 4).tensor_split(None) if lib is torch else st.tensor_split([1, 2], 2),
    lambda lib: lib.logsumexp(lib.ones(2, 3), None),
    lambda lib: lib.scatter_reduce(lib.zeros(3), 0, lib.tensor([0]), lib.ones(1), None),
    lambda lib: lib.zeros(3).index_fill_(0, lib.tensor([0]), 1j),
    lambda lib: setattr(lib.tensor([1 + 2j]), "real", [5.0]), lambda lib: setattr(lib.tensor([1 + 2j]), "imag", None),
    lambda lib: lib.repeat_interleave(lib.ones(2), None),
])
def test_misuse_messages_match_pytorchs_first_line(call):
    try:
        call(torch)
    except Exception as err:  # noqa: BLE001
        with pytest.raises(type(err)) as info:
            call(st)
        if "invalid combination" not in str(err):  # (PyTorch lists its signatures there: strided names them)
            assert str(info.value).splitlines()[0] == str(err).splitlines()[0]
        assert len(str(info.value).splitlines()) >= 2  # and a line in strided's own words
    else:
        raise AssertionError("torch accepted it")


def test_split_copy_forms_name_the_accepted_kinds():
    with pytest.raises(TypeError, match=r"split_copy\(\): argument 'split_size' \(position 2\) must be int, not tuple"):
        copies.split_copy(_x, (1, 2))
    with pytest.raises(TypeError, match=r"split_with_sizes_copy\(\): argument 'split_sizes' .* must be tuple of ints"):
        copies.split_with_sizes_copy(_x, 1.5)
    with pytest.raises(TypeError, match=r"hsplit\(\): argument 'input' \(position 1\) must be Tensor, not list"):
        st.hsplit([1, 2], 2)


# ---------------------------------------------------------------- threads


def test_typed_aliases_are_one_per_storage_and_dtype_across_threads():
    import sys

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # (switch threads often: the race needs a switch inside the first view)
    try:
        for _ in range(40):
            c = st.zeros(4, dtype=st.complex64)
            got = []
            barrier = threading.Barrier(6)

            def view(c=c, got=got, barrier=barrier):
                barrier.wait()
                got.append(c.real._storage)

            threads = [threading.Thread(target=view) for _ in range(6)]
            for th in threads:
                th.start()
            for th in threads:
                th.join()
            assert len({id(s) for s in got}) == 1 and got[0] is c.imag._storage
    finally:
        sys.setswitchinterval(interval)


def test_the_default_generator_gives_each_draw_whole_and_generators_are_independent_per_thread():
    st.manual_seed(7)
    serial = np.sort(np.concatenate([R.rand(64)._np() for _ in range(8)]))
    st.manual_seed(7)
    drawn, seen = [], []

    def draw(i):
        drawn.append(R.rand(64)._np())
        g = st.Generator().manual_seed(i)
        records = []
        with st.dispatch.listen(records.append):  # a with block is this thread's only
            seen.append((i, R.rand(5, generator=g).tolist(), [r.name for r in records]))

    threads = [threading.Thread(target=draw, args=(i,)) for i in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert np.array_equal(np.sort(np.concatenate(drawn)), serial)  # every draw took whole blocks
    for i, values, names in seen:
        assert values == R.rand(5, generator=st.Generator().manual_seed(i)).tolist() and names == ["rand"]


def test_writes_and_out_reading_the_targets_bytes_as_another_dtype_are_refused_as_pytorch():
    i32 = lambda lib: lib.arange(4, dtype=lib.int32)  # noqa: E731
    for build in (
        lambda lib: (lambda b: b.view(lib.float32)[1:].copy_(b[:3]))(i32(lib)),
        lambda lib: (lambda b: lib.add(b[:3], 1, out=b.view(lib.float32)[1:]))(i32(lib)),
        lambda lib: (lambda b: b.view(lib.float32)[1:].mul_(b[:3].view(lib.float32)))(i32(lib)),
    ):
        assert isinstance(_agree(build), RuntimeError)
    b = st.arange(4, dtype=st.int32)
    with pytest.raises(RuntimeError):
        b.view(st.float32)[1:].copy_(b[:3])
    assert b.tolist() == [0, 1, 2, 3]
    c = st.tensor([1 + 2j, 3 + 4j])
    c.real = c.imag  # (the same float alias storage, disjoint elements: fine, as PyTorch)
    assert c.tolist() == [2 + 2j, 4 + 4j]


def test_a_copy_with_several_results_counts_all_their_bytes_in_one_record():
    x, ones = st.tensor([3, 1, 1, 2, 3, 3]), st.ones(2, 3)
    for call in (lambda: st.unique(x, return_inverse=True, return_counts=True),
                 lambda: st.unique(ones, dim=1, return_inverse=True),
                 lambda: st.unique_consecutive(x, return_counts=True), lambda: st.sort(x), lambda: st.topk(x, 2),
                 lambda: st.cummax(x, 0), lambda: st.nonzero(x, as_tuple=True), lambda: st.kthvalue(x, 2)):
        records = []
        with st.dispatch.listen(records.append), st.record_copies() as ledger:
            out = call()
        assert [r.kind for r in records] == ["copy"] and records[0].name in str(records[0].plan)
        assert ledger[0].nbytes == _nbytes(out)


def test_fill_reads_its_one_value_first_also_through_a_typed_alias():
    _agree(lambda lib: (lambda t: t.fill_(t.view(lib.int32)[1]))(lib.tensor([1.0, 2.0, 3.0])))
    _agree(lambda lib: (lambda t: t.masked_fill_(lib.tensor([True, True, True]), t.view(lib.int32)[1]))(
        lib.tensor([1.0, 2.0, 3.0])))


def test_nan_to_num_of_an_integer_tensor_writes_nothing_so_an_expanded_one_is_fine():
    for dtype in ("int64", "bool"):
        _agree(lambda lib, dtype=dtype: lib.zeros(1, dtype=getattr(lib, dtype)).expand(2).nan_to_num_())
    t = st.zeros(1, dtype=st.int64).expand(3)
    records = []
    with st.dispatch.listen(records.append):
        assert t.nan_to_num_() is t
    assert [(r.name, r.kind) for r in records] == [("nan_to_num_", "compute")]
