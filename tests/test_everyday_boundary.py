"""Hostile tests of the issue-12 ops at the op boundary (what each reports to listeners, the copy
ledger and watch) and on the write path (a refused in-place op leaves every byte as it was; a
successful one through a view lands in its base; memory shared between target and inputs is
refused as PyTorch refuses it, typed aliases included), and misuse (wrong argument kinds)."""

from __future__ import annotations

import strided as st
from strided.diagnose.watch import watch
from strided.ops import copies
from strided.ops import random as R
from strided.ops.table import _MORE

# ---------------------------------------------------------------- reporting

_x = st.arange(12, dtype=st.float32).reshape(3, 4)
_v = st.arange(4, dtype=st.float32)
_c = st.tensor([1 + 2j, 3 + 4j])
_i = st.tensor([0, 2])
_col = st.tensor([[0], [1], [2]])
_xx = [_x, _x]

# simple arguments for every op of the _MORE table (a unary op without an entry takes _v)
_ARGS = {
    "atleast_1d": (st.tensor(1.0),), "atleast_2d": (_v,), "atleast_3d": (_v,), "broadcast_tensors": (_x, _v),
    "tensor_split": (_x, 2), "hsplit": (_x, 2), "vsplit": (_x, 3), "dsplit": (_x.reshape(3, 2, 2), 2),
    "cat": (_xx,), "concat": (_xx,), "concatenate": (_xx,), "stack": (_xx,), "hstack": (_xx,),
    "vstack": (_xx,), "row_stack": (_xx,), "dstack": (_xx,), "column_stack": (_xx,),
    "meshgrid": (_v, _v), "tril": (_x,), "triu": (_x,), "diag": (_v,), "diag_embed": (_v,), "diagflat": (_v,),
    "block_diag": (_x, _x), "cartesian_prod": (_v, _v), "flip": (_x, 0), "fliplr": (_x,), "flipud": (_x,),
    "roll": (_x, 1), "rot90": (_x,), "tile": (_x, (2,)), "repeat_interleave": (_x, 2),
    "sort": (_x,), "argsort": (_x,), "msort": (_x,), "topk": (_x, 2), "kthvalue": (_x, 2),
    "cumsum": (_x, 0), "cumprod": (_x, 0), "cummax": (_x, 0), "cummin": (_x, 0), "diff": (_x,),
    "unique": (_x,), "unique_consecutive": (_x,), "searchsorted": (_v, _v), "bucketize": (_v, _v),
    "gather": (_x, 1, _col), "take": (_x, _i), "take_along_dim": (_x, _col, 1),
    "scatter": (_x, 1, _col, 1.0), "scatter_add": (_x, 1, _col, _x), "scatter_reduce": (_x, 1, _col, _x, "sum"),
    "index_select": (_x, 0, _i), "index_add": (_x, 0, _i, _x[:2]), "index_copy": (_x, 0, _i, _x[:2]),
    "index_fill": (_x, 0, _i, 1.0), "masked_select": (_x, _x > 5), "nonzero": (_x,), "argwhere": (_x,),
    "masked_fill": (_x, _x > 5, 0.0), "masked_scatter": (_x, _x > 5, _x),
    "real": (_c,), "imag": (_c,), "view_as_real": (_c,), "view_as_complex": (st.zeros(2, 2),),
    "resolve_conj": (_c,), "adjoint": (_x,), "conj": (_c,), "conj_physical": (_c,), "angle": (_c,),
    "polar": (_v, _v), "complex": (_v, _v), "hypot": (_v, _v), "atan2": (_v, _v), "arctan2": (_v, _v),
    "copysign": (_v, _v), "fmod": (_v, 2.0), "logical_and": (_v, _v), "logical_or": (_v, _v),
    "logical_xor": (_v, _v), "lerp": (_v, _v, 0.5), "isclose": (_v, _v), "amax": (_x,), "amin": (_x,),
    "aminmax": (_x,), "nansum": (_x,), "nanmean": (_x,), "logsumexp": (_x, 0), "count_nonzero": (_x,),
    "norm": (_x,), "cdist": (_x, _x),
    "alias_copy": (_x,), "as_strided_copy": (_x, (2, 2), (1, 1)), "detach_copy": (_x,), "diagonal_copy": (_x,),
    "expand_copy": (_v, (3, 4)), "narrow_copy": (_x, 0, 0, 2), "permute_copy": (_x, (1, 0)),
    "select_copy": (_x, 0, 1), "slice_copy": (_x,), "split_copy": (_x, 2), "split_with_sizes_copy": (_x, [1, 2]),
    "squeeze_copy": (_x,), "t_copy": (_x,), "transpose_copy": (_x, 0, 1), "unbind_copy": (_x,),
    "unfold_copy": (_x, 0, 2, 1), "unsqueeze_copy": (_x, 0), "view_copy": (_x, 12),
}
_ONES5 = st.ones(5)
_TABLE = [(module, kind, name) for module, kind, names in _MORE for name in names.split()]


def _nbytes(out):
    return out.numel() * out.element_size() if isinstance(out, st.Tensor) else sum(_nbytes(o) for o in out)


def test_every_more_op_reports_its_own_name_and_kind():
    assert len(_TABLE) > 150 and set(copies.COPY_FORMS) <= {n for _, _, n in _TABLE}
    for module, kind, name in _TABLE:
        if name == "resolve_conj":
            continue  # (no conjugate bit in strided: it returns its input, as PyTorch's of a plain tensor)
        records = []
        with st.dispatch.listen(records.append), st.record_copies() as ledger, watch() as w:
            out = getattr(module, name)(*_ARGS.get(name, (_v,)))
        assert [(r.name, r.kind) for r in records] == [(name, kind)] * len(records) and records, name
        assert [(s.name, s.kind) for s in w.steps] == [(name, kind)] * len(records), name
        if kind == "copy":
            assert sum(c.nbytes for c in ledger) == _nbytes(out) and all(c.reason for c in ledger), name
        else:
            assert ledger == [], name


def test_a_tensor_already_of_the_asked_rank_is_returned_as_it_is_no_op_reported():
    records = []
    with st.dispatch.listen(records.append):
        assert st.atleast_2d(_x) is _x and st.atleast_1d(_x) is _x and st.resolve_conj(_x) is _x
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
