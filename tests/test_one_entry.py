"""Each op reports itself to the listeners once, from its one entry (issue 21): its name, its
kind, its result; the ops it is made of (``addcmul``'s mul, mul, add) fold into that one record,
and the copies it made keep their reasons and bytes."""

from __future__ import annotations

import warnings

import pytest

import strided as st
from strided import dispatch
from strided.opdef import OPDEFS, Kind
from strided.ops.table import OPS

_CALLS = [(), (0,), ("o",), (1, 0), ((2, 2, 3),), ((3, 2),), (-1,), ("o", "o"), (0, "i"), (0, "i", "o"),
          (0, 0, 1), (0, 1, 1), (1, (3, 1)), ("t",), ("m",), ("m", 0.0), (0, "k"), (0, "k", "r"), (0, "k", 1.0),
          ("k",), ("SQ",), ("SQ", 2), ("SQ", "sq")]


def _inputs():
    st.manual_seed(0)
    x = st.rand(2, 3, dtype=st.float64) + 0.5
    o = st.rand(2, 3, dtype=st.float64) + 0.5
    return x, {"o": o, "i": st.zeros(2, 3, dtype=st.int64), "t": st.rand(3, 2, dtype=st.float64),
               "m": o > 1.0, "k": st.tensor([1, 0]), "r": st.rand(2, 3, dtype=st.float64),
               "sq": st.rand(2, 2, dtype=st.float64) + 0.5}


def _function(spelling):
    """``strided.<spelling>``, or ``strided.linalg.<name>`` of a ``linalg_<name>`` op (PyTorch's
    native name of torch.linalg's function); None when neither exists."""
    fn = getattr(st, spelling, None)
    if fn is None and spelling.startswith("linalg_"):
        fn = getattr(st.linalg, spelling.removeprefix("linalg_"), None)
    return fn


def _call(spelling, args, method, listen=None):
    x, aux = _inputs()
    if args[:1] == ("SQ",):  # (the ops of square matrices, inv, det, ...: x's first two columns)
        x, args = x[:, :2].contiguous(), args[1:]
    a = tuple(aux.get(v, v) if isinstance(v, str) else v for v in args)
    fn = getattr(x, spelling) if method else _function(spelling)
    if OPDEFS[spelling].kind is Kind.ALLOC and not method:  # (a factory: its arguments only)
        fn, x = (lambda _x, *rest: getattr(st, spelling)(*rest)), None
    records = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if listen:
            with dispatch.listen(records.append):
                out = fn(*a) if method else fn(x, *a)
        else:
            out = fn(*a) if method else fn(x, *a)
    return x, out, records


def _spellings(method):
    """Every spelling of a registry op that is a Tensor method (or a ``strided`` function), but
    the operators (their own sweep reads ``a + b``) and the in-place forms."""
    names = set()
    for name, op in OPDEFS.items():
        if op.kind is None or name.startswith("_") or name.endswith("_"):
            continue
        if method and callable(getattr(st.Tensor, name, None)):
            names.add(name)
        elif not method and callable(_function(name)) and not isinstance(_function(name), type):
            names.add(name)
    return sorted(names)


def _cases(method):
    """(spelling, args) with the first argument list the op takes, decided at collection (an op
    none fits, such as einsum, is covered by the per-op tests below and in test_dispatch)."""
    cases = []
    for name in _spellings(method):
        for args in _CALLS:
            try:
                _call(name, args, method)
            except Exception:  # noqa: BLE001 - the sweep tries argument lists until the op takes one
                continue
            cases.append(pytest.param(name, args, id=name))
            break
    return cases


def _reported_once(name, args, method):
    x, out, records = _call(name, args, method, listen=True)
    if out is x or (isinstance(out, (tuple, list)) and out and out[0] is x):
        assert records == [], [(r.name, r.kind) for r in records]  # (contiguous() of a contiguous x: no step)
        return
    op = OPDEFS[name]
    mine = [r for r in records if r.name in (name, op.name)]  # (an alias sharing its op's forward: the op's name)
    if len(mine) > 1:  # a result copied piece by piece (split_copy): one copy record per piece
        assert [r.kind for r in mine] == ["copy"] * len(out) and [r.output for r in mine] == list(out)
        return
    assert len(mine) == 1, [(r.name, r.kind) for r in records]
    assert all(r.kind == "copy" for r in records if r is not mine[0]), [(r.name, r.kind) for r in records]
    record = mine[0]
    assert record.kind in (op.kind.value, "copy"), (record.kind, op.kind)  # (a result made by a copy: its reason)
    assert record.output is out and (x is None or any(i is x for i in record.inputs))


@pytest.mark.parametrize("name, args", _cases(method=True))
def test_every_registry_method_reports_itself_once(name, args):
    """Generated over the registry: each op's Tensor method, run inside a listener, gives one
    record of its name and kind (a view op that had to copy reports the copy), with its result
    and its input; any other record is a copy it made (reason and bytes)."""
    _reported_once(name, args, True)


@pytest.mark.parametrize("name, args", _cases(method=False))
def test_every_registry_function_reports_itself_once(name, args):
    """The same for the ``strided`` module functions that are registry ops."""
    _reported_once(name, args, False)


def test_every_table_op_is_swept():
    """The sweep is not hollow: most table ops are called (the rest need shapes of their own)."""
    swept = {c.values[0] for c in _cases(True)} | {c.values[0] for c in _cases(False)}
    assert len(swept) > 0.8 * len(OPS), sorted(set(OPS) - swept)


@pytest.mark.parametrize("call, name", [
    (lambda a, b: a + b, "add"), (lambda a, b: b + a, "add"), (lambda a, b: a - 1.0, "sub"),
    (lambda a, b: 1.0 - a, "sub"), (lambda a, b: a * b, "mul"), (lambda a, b: 2.0 / a, "div"),
    (lambda a, b: -a, "neg"), (lambda a, b: a ** 2, "pow"), (lambda a, b: 2 ** a, "pow"),
])
def test_an_operator_reports_its_op_once(call, name):
    a, b = st.ones(2, 3), st.ones(2, 3)
    records = []
    with dispatch.listen(records.append):
        out = call(a, b)
    assert [(r.name, r.kind) for r in records] == [(name, "compute")] and records[0].output is out


@pytest.mark.parametrize("name", ["addcmul", "addcdiv"])
def test_addcmul_and_addcdiv_are_one_watch_step_with_their_result_as_allocation(name):
    a, b, c = st.ones(3, 4), st.ones(3, 4), st.full((3, 4), 2.0)
    with st.watch() as w:
        y = getattr(a, name)(b, c, value=2)
    assert [(s.name, s.kind) for s in w.steps] == [(name, "compute")]
    assert w.steps[0].bytes_allocated == y.numel() * y.element_size() == 48
    assert len(w.steps[0].inputs) == 3
    with st.watch() as w:
        getattr(a, name + "_")(b, c, value=2)
    assert [(s.name, s.kind, s.bytes_allocated) for s in w.steps] == [(name + "_", "write", 0)]


def test_ops_inside_an_op_fold_into_it_but_its_copies_stay_in_the_ledger():
    x = st.arange(12.0).view(3, 4)
    with st.record_copies() as copies, st.watch() as w:
        y = st.cat([x.t(), x.t()])  # the transposes are the user's; cat's copy is its result
    assert [(s.name, s.kind) for s in w.steps] == [("t", "view"), ("t", "view"), ("cat", "copy")]
    assert [c.nbytes for c in copies] == [y.numel() * 4]
