"""Hostile-input sweep over the whole public API.

Every public callable of ``strided`` and every public ``Tensor`` method, property
and operator is called with the wrong kinds of arguments: None, floats where ints
go, strings, bools, ragged and nested lists, NumPy arrays, tensors of the wrong
dtype/shape/ndim, 0-d and zero-size tensors, out-of-range dims, negative and huge
sizes, too many arguments and unknown keywords. For each call:

* the error is a ``strided.StridedError`` (never an AttributeError, a raw NumPy
  error or an internal ``'NoneType' object is not subscriptable``); Python's own
  TypeError for a wrong number of arguments, an unknown keyword or an unsupported
  operator operand is accepted, but it must be a TypeError;
* where the peer library raises for the same call (PyTorch for Tensor methods and
  the torch-style module functions, NumPy for the NumPy-style ones), strided's
  error is an instance of the same builtin class;
* a failed call leaves every tensor it was given exactly as it was: storage
  bytes, shape, strides and storage offset.

The table is built from a valid call per op ("template"), with each argument in
turn replaced by each junk value, plus extra arguments and bogus keywords. A
hypothesis sweep then draws an op and a random list of junk arguments.
"""

from __future__ import annotations

import math
import operator
import os
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

import strided as st

# --------------------------------------------------------------------------- operands

# Placeholders in a template, built fresh for every call in each library.
X, Y, YI, B, M43, V4, V3, BT, I0 = "X", "Y", "YI", "B", "M43", "V4", "V3", "BT", "I0"
F64, CL = "F64", "CL"
TOKENS = {X, Y, YI, B, M43, V4, V3, BT, I0, F64, CL}

_SHAPES = {X: (3, 4), Y: (3, 4), YI: (3, 4), B: (3, 4), M43: (4, 3), V4: (4,), V3: (3,), BT: (2, 3, 4), I0: ()}
_DTYPES = {X: "float32", Y: "float32", YI: "int64", B: "bool", M43: "float32", V4: "float32",
           V3: "float32", BT: "float32", I0: "int64"}


def _build(token: str, lib: str, base_dtype: str = "float32") -> Any:
    if token == F64:
        return {"torch": torch.float64, "st": st.float64, "np": np.float64}[lib]
    if token == CL:
        return {"torch": torch.channels_last, "st": st.channels_last, "np": None}[lib]
    shape = _SHAPES[token]
    dtype = base_dtype if token == X else _DTYPES[token]
    n = math.prod(shape)
    a = (np.arange(n) % 5 + 1).reshape(shape)
    if dtype == "bool":
        a = a % 2 == 0
    a = a.astype(dtype)
    if lib == "np":
        return a
    if lib == "torch":
        return torch.from_numpy(a.copy())
    return st.tensor(a)


@dataclass(frozen=True)
class Junk:
    """A hostile argument; ``make(lib)`` builds it for 'torch', 'st' or 'np'."""

    name: str
    make: Callable[[str], Any]


def _t(shape: tuple[int, ...], dtype: str) -> Callable[[str], Any]:
    def make(lib: str) -> Any:
        a = np.ones(shape, dtype=dtype)
        return {"torch": lambda: torch.from_numpy(a), "st": lambda: st.tensor(a), "np": lambda: a}[lib]()
    return make


def _c(value: Any) -> Callable[[str], Any]:
    return lambda lib: value


JUNK: list[Junk] = [
    Junk("None", _c(None)),
    Junk("float", _c(1.5)),
    Junk("nan", _c(float("nan"))),
    Junk("str", _c("a")),
    Junk("bool", _c(True)),
    Junk("ragged", lambda lib: [[1, 2], [3]]),
    Junk("nested", lambda lib: [[1.0]]),
    Junk("ndarray", lambda lib: np.array([1, 2])),
    Junk("t_f22", _t((2, 2), "float32")),
    Junk("t_f64_34", _t((3, 4), "float64")),
    Junk("t_i34", _t((3, 4), "int64")),
    Junk("t_b34", _t((3, 4), "bool")),
    Junk("t_0d", _t((), "float32")),
    Junk("t_empty", _t((0, 3), "float32")),
    Junk("t_5d", _t((1, 1, 1, 1, 2), "float32")),
    Junk("big", _c(99)),
    Junk("neg", _c(-7)),
    Junk("huge", _c(2**62)),
    Junk("overflow", _c(2**64)),
    Junk("object", lambda lib: object()),
    Junk("tuple_junk", _c((1, "a"))),
    Junk("dtype", lambda lib: {"torch": torch.float64, "st": st.float64, "np": np.float64}[lib]),
    Junk("slice", _c(slice(None))),
]
JUNK_BY_NAME = {j.name: j for j in JUNK}


# --------------------------------------------------------------------------- ops


@dataclass(frozen=True)
class Op:
    """``kind``: 'method' (x.name(*args)), 'func' (strided.name(*args) vs torch.name),
    'np' (strided.name vs numpy.name), 'operator' (operator.name(x, *args)), 'own' (strided only,
    no peer). ``base`` is the dtype of X; ``peer`` overrides the peer's name."""

    kind: str
    name: str
    templates: tuple[tuple[Any, ...], ...]
    base: str = "float32"
    peer: str | None = None


def _m(name: str, *templates: tuple[Any, ...], base: str = "float32", peer: str | None = None) -> Op:
    return Op("method", name, templates or ((),), base, peer)


def _f(name: str, *templates: tuple[Any, ...], peer: str | None = None) -> Op:
    return Op("func", name, templates, "float32", peer)


def _n(name: str, *templates: tuple[Any, ...]) -> Op:
    return Op("np", name, templates)


def _o(name: str, *templates: tuple[Any, ...], base: str = "float32") -> Op:
    return Op("operator", name, templates or ((),), base)


UNARY = ["abs", "neg", "negative", "exp", "log", "sqrt", "sin", "cos", "tanh", "sigmoid", "relu", "absolute"]
BINARY = ["add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide", "floor_divide",
          "remainder", "pow", "maximum", "minimum", "eq", "ne", "lt", "le", "gt", "ge", "greater",
          "greater_equal", "less", "less_equal"]
INPLACE_BINARY = ["add_", "sub_", "subtract_", "mul_", "multiply_", "div_", "divide_", "true_divide_",
                  "floor_divide_", "remainder_", "pow_"]
BITWISE = ["bitwise_and", "bitwise_or", "bitwise_xor"]
REDUCTIONS = ["sum", "mean", "prod", "std", "var", "all", "any", "argmax", "argmin", "max", "min"]

METHOD_OPS: list[Op] = [
    # views
    _m("view", (12,), ((3, 4),), (3, 4)),
    _m("view_as", (Y,)),
    _m("reshape", (4, 3), ((4, 3),)),
    _m("reshape_as", (Y,)),
    _m("flatten", (0, 1)),
    _m("unflatten", (1, (2, 2))),
    _m("permute", (1, 0), ((1, 0),)),
    _m("transpose", (0, 1)),
    _m("swapaxes", (0, 1)),
    _m("swapdims", (0, 1)),
    _m("movedim", (0, 1)),
    _m("moveaxis", (0, 1)),
    _m("t"),
    _m("expand", (2, 3, 4), ((2, 3, 4),)),
    _m("expand_as", (BT,)),
    _m("broadcast_to", ((2, 3, 4),)),
    _m("unsqueeze", (0,)),
    _m("squeeze", (0,), ()),
    _m("narrow", (1, 0, 2)),
    _m("select", (1, 0)),
    _m("split", (2, 1), ([1, 3], 1)),
    _m("chunk", (2, 1)),
    _m("unbind", (1,)),
    _m("diagonal", (0, 0, 1)),
    _m("unfold", (1, 2, 1)),
    _m("as_strided", ((2, 2), (1, 2), 0)),
    _m("__getitem__", (0,), ((0, 1),)),
    _m("__setitem__", (0, 1.0), ((0, 1), Y)),
    # copies and conversions
    _m("contiguous", (), (CL,)),
    _m("clone", ()),
    _m("to", (F64,)),
    _m("ravel"),
    _m("numpy"),
    _m("tolist"),
    _m("item"),
    _m("copy_", (Y,)),
    _m("fill_", (1.0,)),
    _m("zero_"),
    _m("resize_", (2, 6), ((2, 6),)),
    # introspection
    _m("size", (0,), ()),
    _m("stride", (0,), ()),
    _m("dim"),
    _m("ndimension"),
    _m("numel"),
    _m("nelement"),
    _m("element_size"),
    _m("storage_offset"),
    _m("data_ptr"),
    _m("untyped_storage"),
    _m("is_contiguous", (), (CL,)),
    _m("is_floating_point"),
    _m("is_view", peer="_is_view"),
    # arithmetic
    *[_m(n) for n in UNARY],
    *[_m(n + "_") for n in UNARY if n not in ("negative",)],
    _m("negative_"),
    *[_m(n, (Y,), (2,)) for n in BINARY],
    *[_m(n, (Y,)) for n in INPLACE_BINARY],
    *[_m(n, (YI,), base="int64") for n in BITWISE],
    *[_m(n + "_", (YI,), base="int64") for n in BITWISE],
    _m("bitwise_not", base="int64"),
    _m("bitwise_not_", base="int64"),
    _m("clamp", (0, 1)),
    _m("clamp_", (0, 1)),
    _m("clip", (0, 1)),
    _m("clip_", (0, 1)),
    _m("where", (B, Y)),
    # reductions
    *[_m(n, (), (0,), (0, True)) for n in REDUCTIONS],
    _m("softmax", (0,)),
    _m("log_softmax", (0,)),
    # matmul
    _m("matmul", (M43,)),
    _m("mm", (M43,)),
    _m("outer", (V3,)),
]

OPERATOR_OPS: list[Op] = [
    *[_o(n, (Y,), (2,)) for n in ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow",
                                   "eq", "ne", "lt", "le", "gt", "ge"]],
    *[_o(n, (Y,)) for n in ["iadd", "isub", "imul", "itruediv", "ifloordiv", "imod", "ipow"]],
    *[_o(n, (YI,), base="int64") for n in ["and_", "or_", "xor", "iand", "ior", "ixor"]],
    _o("matmul", (M43,)),
    _o("imatmul", (M43,)),
    _o("neg"),
    _o("abs"),
    _o("invert", base="int64"),
    _o("index", base="int64"),
    _o("truth"),
    _o("len"),
]

FUNC_OPS: list[Op] = [
    # creation
    _f("tensor", ([[1.0, 2.0]],)),
    _f("as_tensor", ([[1.0, 2.0]],)),
    _f("arange", (5,), (0, 5, 1)),
    _f("empty", (2, 3), ((2, 3),)),
    _f("zeros", (2, 3), ((2, 3),)),
    _f("ones", (2, 3), ((2, 3),)),
    _f("full", ((2, 3), 1.0)),
    _f("empty_like", (X,)),
    _f("zeros_like", (X,)),
    _f("ones_like", (X,)),
    _f("full_like", (X, 1.0)),
    # elementwise
    *[_f(n, (X,)) for n in ["abs", "neg", "negative", "exp", "log", "sqrt", "sin", "cos", "tanh",
                           "sigmoid", "relu", "bitwise_not"]],
    *[_f(n, (X, Y)) for n in ["add", "sub", "subtract", "mul", "multiply", "div", "divide",
                              "true_divide", "floor_divide", "remainder", "pow", "maximum", "minimum",
                              "eq", "ne", "lt", "le", "gt", "ge"]],
    *[_f(n, (YI, YI)) for n in BITWISE],
    _f("clamp", (X, 0, 1)),
    _f("clip", (X, 0, 1)),
    _f("where", (B, X, Y)),
    # reductions
    *[_f(n, (X,), (X, 0), (X, 0, True)) for n in REDUCTIONS],
    _f("softmax", (X, 0)),
    _f("log_softmax", (X, 0)),
    # matmul
    _f("matmul", (X, M43)),
    _f("mm", (X, M43)),
    _f("bmm", (BT, BT)),
    _f("dot", (V4, V4)),
    _f("outer", (V4, V3)),
    # dtypes
    _f("promote_types", (F64, F64)),
    _f("result_type", (X, Y)),
]

NP_OPS: list[Op] = [
    _n("reshape", (X, (4, 3))),
    _n("ravel", (X,)),
    _n("broadcast_to", (X, (2, 3, 4))),
    _n("broadcast_shapes", ((3, 4), (2, 1, 4))),
    _n("shares_memory", (X, Y)),
    _n("may_share_memory", (X, Y)),
    _n("ascontiguousarray", (X,)),
    _n("asfortranarray", (X,)),
]

# strided-only callables (no peer): errors must still be StridedErrors.
OWN_OPS: list[Op] = [
    Op("own", "broadcasting", (("warn",),)),
    Op("own", "from_numpy", ((X,),)),
    Op("own", "record_copies", ((),)),
]

ALL_OPS = METHOD_OPS + OPERATOR_OPS + FUNC_OPS + NP_OPS + OWN_OPS


# --------------------------------------------------------------------------- calls


def _arg(a: Any, lib: str, base: str) -> Any:
    if isinstance(a, Junk):
        return a.make(lib)
    if isinstance(a, str) and a in TOKENS:
        return _build(a, lib, base)
    return a


def _peer(op: Op, lib: str) -> Callable[..., Any] | None:
    """The callable for ``lib`` ('st', 'torch' or 'np'); None if the peer lacks it."""
    if op.kind == "operator":
        if op.name == "len":
            return len
        return getattr(operator, op.name)
    if op.kind == "method":
        name = op.name if lib == "st" or op.peer is None else op.peer
        return lambda x, *a, **k: getattr(x, name)(*a, **k)
    if lib == "st":
        return getattr(st, op.name)
    if op.kind == "own":
        return None
    mod = torch if op.kind == "func" else np
    return getattr(mod, op.peer or op.name, None)


@dataclass(frozen=True)
class Case:
    op: Op
    args: tuple[Any, ...]
    kwargs: tuple[tuple[str, Any], ...] = ()
    template: tuple[Any, ...] = ()  # the valid call the junk was put into

    @property
    def id(self) -> str:
        def show(a: Any) -> str:
            return a.name if isinstance(a, Junk) else repr(a)
        parts = [show(a) for a in self.args] + [f"{k}={show(v)}" for k, v in self.kwargs]
        return f"{self.op.kind}:{self.op.name}({', '.join(parts)})"


def _snapshot(values: list[Any]) -> list[Any]:
    out = []
    for v in values:
        if isinstance(v, st.Tensor):
            out.append((id(v), v.untyped_storage().array.tobytes(), v.shape, v.stride(), v.storage_offset(),
                        v.dtype))
    return out


_PYTHON_TYPEERRORS = ("positional argument", "unexpected keyword argument", "unsupported operand",
                      "not supported between instances", "required positional", "takes no arguments",
                      "got multiple values for argument", "object cannot be interpreted as an integer",
                      "bad operand type", "does not support ufuncs", "arguments, got",
                      "argument, got", "takes no keyword arguments", "takes exactly one argument")
_BUILTINS = (IndexError, ValueError, TypeError, NotImplementedError, OverflowError, RuntimeError)


def _builtin_class(exc: BaseException) -> type[BaseException]:
    for cls in type(exc).__mro__:
        if cls in _BUILTINS:
            return cls
    return type(exc)


def _template_of(case: Case) -> tuple[Any, ...]:
    return case.template or case.args


_TENSOR_JUNK = {"t_f22", "t_f64_34", "t_i34", "t_b34", "t_0d", "t_empty", "t_5d"}
_ARITH = set(BINARY + INPLACE_BINARY + BITWISE + [n + "_" for n in BITWISE]) | {
    "where", "clamp", "clamp_", "clip", "clip_", "matmul", "mm", "outer", "bmm", "dot",
    "truediv", "floordiv", "mod", "and_", "or_", "xor", "iadd", "isub", "imul", "itruediv",
    "ifloordiv", "imod", "ipow", "iand", "ior", "ixor", "imatmul"}
# The operators whose ndarray operand PyTorch hands to NumPy (its errors are NumPy's: ValueError).
_NUMPY_OPERATORS = {"add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and_", "or_", "xor", "matmul",
                    "lshift", "rshift"}

# Where strided knowingly raises another class than its peer: (ops, junk names, reason).
# "*" matches every op. A case matches when one of its junk arguments is in the set.
KNOWN_DIFFERENCES: list[tuple[set[str] | str, set[str], str]] = [
    (_ARITH, {"ndarray"},
     "strided's functions and in-place operators read a NumPy array operand zero-copy (from_numpy); "
     "PyTorch refuses it with TypeError (its operators t + a hand it to NumPy: compared as they are)"),
    ({"clamp", "clamp_", "clip", "clip_"}, _TENSOR_JUNK,
     "strided takes a tensor for either bound and broadcasts it (RuntimeError on mismatch); "
     "PyTorch's parser refuses a tensor bound next to a number bound (TypeError)"),
    ("*", {"bool"}, "strided refuses a bool where a size or dim goes (TypeError); PyTorch reads True as 1"),
    ("*", {"overflow"}, "an int beyond int64: PyTorch's class depends on its parser (TypeError for size "
                        "lists, ValueError for ints); strided raises StridedOverflowError (ValueError and "
                        "OverflowError) for ints, TypeError for sizes, or the range error of the op"),
    ({"__setitem__"}, {"ndarray", "tuple_junk", "ragged", "nested"},
     "t[...] = value takes sequences and NumPy arrays (documented); PyTorch only numbers and tensors"),
    ({"__setitem__", "__getitem__"}, {"ragged", "nested", "ndarray", "t_i34", "t_b34"},
     "advanced indexing (lists, integer and bool arrays) is not supported: TypeError, "
     "where PyTorch would index"),
    ({"to"}, {"str", "big", "neg", "huge"}, "PyTorch's to() reads an int or a string as a device"),
    ({"unflatten"}, {"None", "ndarray"} | _TENSOR_JUNK,
     "strided refuses sizes that are not a tuple (TypeError); PyTorch evaluates them first"),
    ({"squeeze"}, set(), "strided's squeeze takes one dim or a tuple, not several positional dims"),
    ({"narrow"}, _TENSOR_JUNK, "PyTorch: RuntimeError for a tensor start that is not 0-d; strided: TypeError"),
    ({"full"}, {"neg", "huge", "big"}, "strided's full() takes an int size, as NumPy's; PyTorch wants a tuple"),
    ({"tensor", "as_tensor"}, {"None", "object", "dtype", "slice"},
     "tensor() of data that holds no numbers: always TypeError in strided (pinned in test_creation); "
     "PyTorch raises RuntimeError, ValueError or TypeError depending on the object"),
    ({"reshape", "broadcast_to", "broadcast_shapes"}, {"ndarray", "None"} | _TENSOR_JUNK,
     "strided's NumPy-style functions take sizes as ints and tuples only (TypeError); NumPy converts "
     "arrays and None"),
]


def _known_difference(case: Case) -> str | None:
    junk = {a.name for a in case.args if isinstance(a, Junk)}
    if case.op.kind == "operator" and case.op.name in _NUMPY_OPERATORS and junk == {"ndarray"}:
        return None  # (PyTorch's NumPy computes: its errors are compared)
    if case.op.name == "squeeze" and len(case.args) > 2:
        return next(r for ops, _, r in KNOWN_DIFFERENCES if ops == {"squeeze"})
    for ops, names, reason in KNOWN_DIFFERENCES:
        if (ops == "*" or case.op.name in ops) and junk & names:
            return reason
    return None


def check(case: Case, compare_peer: bool = True) -> None:
    # strided: build, snapshot, run, compare
    op = case.op
    args = [_arg(a, "st", op.base) for a in case.args]
    kwargs = {k: _arg(v, "st", op.base) for k, v in case.kwargs}
    if op.kind in ("method", "operator"):
        args.insert(0, _build(X, "st", op.base))
    before = _snapshot(args + list(kwargs.values()))
    fn = _peer(op, "st")
    exc: BaseException | None = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            out = fn(*args, **kwargs)
            if op.name in ("record_copies", "broadcasting"):
                with out:
                    pass
        except Exception as e:  # noqa: BLE001
            exc = e
    if exc is None:
        return
    if not isinstance(exc, st.StridedError):
        first = str(exc).splitlines()[0] if str(exc) else ""
        assert type(exc) is TypeError and any(s in first for s in _PYTHON_TYPEERRORS), (
            f"{case.id}: {type(exc).__module__}.{type(exc).__name__}: {exc}"
        )
    after = _snapshot(args + list(kwargs.values()))
    assert after == before, f"{case.id}: a failed call changed its tensors ({exc!r})"
    if not compare_peer or _known_difference(case) is not None:
        return
    peer_lib = "np" if op.kind == "np" else "torch"
    if op.kind == "np" and any(isinstance(a, Junk) and t in TOKENS - {F64, CL}
                               for a, t in zip(case.args, _template_of(case))):
        return  # NumPy converts anything to an array; strided's NumPy-style functions take tensors only
    if _peer(op, peer_lib) is None:
        return
    peer_args = [_arg(a, peer_lib, op.base) for a in case.args]
    peer_kwargs = {k: _arg(v, peer_lib, op.base) for k, v in case.kwargs}
    if op.kind in ("method", "operator"):
        peer_args.insert(0, _build(X, peer_lib, op.base))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            _peer(op, peer_lib)(*peer_args, **peer_kwargs)
        except Exception as peer_exc:  # noqa: BLE001
            want = _builtin_class(peer_exc)
            assert isinstance(exc, want), (
                f"{case.id}: strided raised {type(exc).__name__} ({str(exc).splitlines()[0]}), "
                f"{peer_lib} raised {want.__name__} ({str(peer_exc).splitlines()[0]})"
            )


# --------------------------------------------------------------------------- the table

def _cases() -> list[Case]:
    cases: list[Case] = []
    seen: set[str] = set()

    def add(c: Case) -> None:
        if c.id not in seen:
            seen.add(c.id)
            cases.append(c)

    for op in ALL_OPS:
        for tpl in op.templates:
            for pos in range(len(tpl)):
                for j in JUNK:
                    add(Case(op, tpl[:pos] + (j,) + tpl[pos + 1:], template=tpl))
            if op.kind != "operator":
                add(Case(op, tpl + (1, 1, 1, 1)))
                add(Case(op, tpl, (("bogus", 1),)))
        if op.kind in ("method", "operator") and op.templates == ((),):
            for j in JUNK:
                add(Case(op, (j,)))
    return cases


CASES = _cases()


# The cases run in batches of 64 consecutive ones: each case is the same check() as before, but
# 10,000 one-case tests spent ~20x more in pytest's per-test bookkeeping (and xdist's reports)
# than in the checks. A batch runs every one of its cases and fails naming each case that failed.
BATCH = 64
BATCHES = [CASES[i:i + BATCH] for i in range(0, len(CASES), BATCH)]


@pytest.mark.parametrize("cases", BATCHES, ids=[f"{b[0].id}..{b[-1].id}" for b in BATCHES])
def test_bad_input(cases: list[Case]) -> None:
    failed = []
    for case in cases:
        try:
            check(case)
        except Exception as e:  # noqa: BLE001 - every case of the batch runs; the failures are listed
            failed.append(f"{case.id}: {type(e).__name__}: {e}")
    assert not failed, f"{len(failed)} of {len(cases)} cases failed:\n" + "\n".join(failed)


# --------------------------------------------------------------------------- hypothesis sweep

# Plain values hypothesis may draw besides the junk table: small ints, odd floats, shapes.
_EXTRA = hs.one_of(
    hs.integers(-6, 6),
    hs.sampled_from([0.0, -0.0, 1e300, float("inf"), -1, (), [], (0,), (-1,), (2, -1), (3, 4), [0, 1],
                     Ellipsis, slice(None, None, -1), slice(0, 10, 0), (None, 0), "float32", "C", "F"]),
)
_ARG = hs.one_of(hs.sampled_from(JUNK), _EXTRA)
_BASES = ["float32", "int64", "bool", "float16", "uint8"]
_SELF_SHAPES = [(3, 4), (), (0, 3), (1,), (2, 1, 3)]


def _draw_self(shape: tuple[int, ...], dtype: str, perm: bool) -> st.Tensor:
    """A fresh tensor; ``perm`` makes it harder: transposed (2-d), stride-0 expanded (3-d), or over a
    read-only NumPy array (1-d), so that in-place ops must refuse without writing anything."""
    n = math.prod(shape)
    a = (np.arange(n) % 3).reshape(shape).astype(dtype)
    t = st.tensor(a)
    if perm and t.ndim == 2:
        return t.t()
    if perm and t.ndim == 3:
        return t[:, :1].expand(shape)
    if perm and t.ndim == 1:
        a.flags.writeable = False
        return st.from_numpy(a)
    return t


# STRIDED_SWEEP_EXAMPLES=5000 runs a longer, random (not derandomized) sweep.
_SWEEP_EXAMPLES = int(os.environ.get("STRIDED_SWEEP_EXAMPLES", "0"))


@settings(max_examples=_SWEEP_EXAMPLES or 400, deadline=None, suppress_health_check=list(HealthCheck),
          derandomize=not _SWEEP_EXAMPLES, database=None)
@given(
    op=hs.sampled_from([o for o in ALL_OPS if o.kind in ("method", "operator", "func", "np")]),
    args=hs.lists(_ARG, max_size=4),
    kwarg=hs.one_of(hs.none(), hs.tuples(hs.sampled_from(["dim", "keepdim", "dtype", "out", "order", "copy",
                                                          "memory_format", "correction", "bogus"]), _ARG)),
    shape=hs.sampled_from(_SELF_SHAPES),
    dtype=hs.sampled_from(_BASES),
    perm=hs.booleans(),
)
def test_bad_input_sweep(op: Op, args: list[Any], kwarg: Any, shape: tuple[int, ...], dtype: str,
                         perm: bool) -> None:
    """Any op, junk arguments, odd self tensors (0-d, empty, permuted, other dtypes): a StridedError
    (or Python's own TypeError for the call's form), and a failed call changes nothing."""
    _sweep_call(op, args, kwarg, shape, dtype, perm)


@settings(max_examples=_SWEEP_EXAMPLES or 400, deadline=None, suppress_health_check=list(HealthCheck),
          derandomize=not _SWEEP_EXAMPLES, database=None)
@given(data=hs.data(), shape=hs.sampled_from(_SELF_SHAPES), dtype=hs.sampled_from(_BASES), perm=hs.booleans())
def test_bad_input_sweep_mutated(data: Any, shape: tuple[int, ...], dtype: str, perm: bool) -> None:
    """A valid call with one or two arguments replaced by junk, on odd self tensors: deeper paths than
    all-junk calls reach (valid dims on a 0-d tensor, an int where a tuple goes, ...)."""
    op = data.draw(hs.sampled_from([o for o in ALL_OPS if o.kind != "own"]))
    tpl = list(data.draw(hs.sampled_from(op.templates)))
    for _ in range(data.draw(hs.integers(0, 2))):
        if tpl:
            tpl[data.draw(hs.integers(0, len(tpl) - 1))] = data.draw(_ARG)
    tpl = [_draw_self(shape, dtype, perm) if a == X else a for a in tpl]
    _sweep_call(op, [_arg(a, "st", op.base) if isinstance(a, str) else a for a in tpl], None, shape, dtype, perm)


def _sweep_call(op: Op, args: list[Any], kwarg: Any, shape: tuple[int, ...], dtype: str, perm: bool) -> None:
    built = [a.make("st") if isinstance(a, Junk) else a for a in args]
    kwargs = {kwarg[0]: kwarg[1].make("st") if isinstance(kwarg[1], Junk) else kwarg[1]} if kwarg else {}
    if op.kind in ("method", "operator"):
        built.insert(0, _draw_self(shape, dtype, perm))
    sizes = [a for a in args if isinstance(a, int) and not isinstance(a, bool) and 0 < a < 2**40]
    if math.prod(sizes) > 10**7:
        return  # a valid but big allocation (zeros(99, 99, 99, 99)): not bad input, only slow
    fn = _peer(op, "st")
    before = _snapshot(built + list(kwargs.values()))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            out = fn(*built, **kwargs)
            if op.name in ("record_copies", "broadcasting"):
                with out:
                    pass
            return
        except Exception as exc:  # noqa: BLE001
            err = exc
    if not isinstance(err, st.StridedError):
        first = str(err).splitlines()[0] if str(err) else ""
        assert type(err) is TypeError and any(s in first for s in _PYTHON_TYPEERRORS), (
            f"{op.kind}:{op.name}{tuple(built)!r:.200} {kwargs!r:.80}: {type(err).__module__}."
            f"{type(err).__name__}: {err}"
        )
    assert _snapshot(built + list(kwargs.values())) == before, f"{op.name}: a failed call changed a tensor"


# --------------------------------------------------------------------------- pinned cases


def test_int_scalar_beyond_int64_is_refused_not_wrapped() -> None:
    """x + 2**64 on an int64 tensor wrapped silently to x + 0; PyTorch raises OverflowError
    (with its parser's text, "int too big to convert": ints up to 2**64 - 1 are uint64 to it)."""
    x = st.arange(3)
    for f in (lambda: x + 2**64, lambda: x.add_(2**64), lambda: x.fill_(2**64), lambda: x.copy_(2**64)):
        with pytest.raises(OverflowError, match="int too big to convert") as info:
            f()
        assert isinstance(info.value, st.StridedError)
    assert x.tolist() == [0, 1, 2]


def test_huge_sizes_are_runtime_errors_not_numpy_errors() -> None:
    for f in (lambda: st.zeros(2**62), lambda: st.empty(2**40, 2**20), lambda: st.arange(2**62),
              lambda: st.ones(3, 4).resize_(2**62), lambda: st.ones(3, 4).expand(2**40, 3, 4).clone()):
        with pytest.raises(st.StridedRuntimeError):
            f()


def test_memory_format_and_dtype_junk() -> None:
    x = st.ones(2, 3)
    with pytest.raises(st.StridedTypeError, match="memory_format"):
        x.contiguous(None)
    with pytest.raises(st.StridedTypeError, match="memory_format"):
        x.clone("channels_last")
    with pytest.raises(st.StridedRuntimeError, match="preserve memory format is unsupported"):
        x.t().contiguous(st.preserve_format)
    # as PyTorch: a contiguous tensor is returned itself, preserve_format or not
    assert x.contiguous(st.preserve_format) is x
    assert torch.ones(2, 3).is_contiguous(memory_format=torch.preserve_format) is x.is_contiguous(st.preserve_format)
    assert torch.ones(2, 3).t().is_contiguous(memory_format=torch.preserve_format) is x.t().is_contiguous(
        st.preserve_format) is False
    with pytest.raises(st.StridedTypeError, match="not None"):
        st.promote_types(None, st.float64)
    assert x.to(st.ones(1, dtype="int8")).dtype is st.int8  # PyTorch's to(other)


def test_ndarray_dims_are_type_errors() -> None:
    x = st.ones(2, 3)
    for f in (lambda: x.transpose(np.array([0, 1]), 1), lambda: x.sum(np.array([0, 1])),
              lambda: x.narrow(0, np.array([0, 1]), 1), lambda: x.permute(np.array([1, 0]), 0)):
        with pytest.raises(st.StridedTypeError):
            f()


def test_pinned_sweep_finds() -> None:
    """Bugs the hypothesis sweep found, pinned."""
    with pytest.raises(st.StridedIndexError, match="no dimensions"):
        st.tensor(1.0).size(0)  # was a raw 'tuple index out of range'
    with pytest.raises(st.StridedIndexError, match="no dimensions"):
        st.tensor(1.0).stride(-1)
    with pytest.raises(st.StridedTypeError, match="must be Tensor"):
        st.div(1.5, 1.5)  # was AttributeError: 'float' object has no attribute '_layout'
    with pytest.raises(st.StridedTypeError, match="invalid combination"):
        st.ones(2).max(st.zeros(2), True)  # keepdim was silently ignored
    for f in (lambda: st.empty(0, 3).chunk(2**62),  # was MemoryError
              lambda: st.ones(3).expand(2**40, 3).unbind(0),  # would build 2**40 views
              lambda: st.ones(3).expand(2**40, 3).split(1)):
        with pytest.raises(st.StridedRuntimeError, match="max_size"):
            f()


def test_case_count() -> None:
    assert len(CASES) > 5000


def test_storage_of_a_sequence_names_the_legacy_storage_instead_of_crashing() -> None:
    # torch.Storage(data) is PyTorch's FloatStorage; strided.Storage is the raw buffer and took
    # only a NumPy array, failing with AttributeError ('list' has no 'ndim') on anything else.
    with pytest.raises(st.StridedTypeError, match=r"Storage\(\): expected a 1-D contiguous NumPy array, got list"):
        st.Storage([1.0, 2.0])
    assert st.FloatStorage([1.0, 2.0]).tolist() == torch.Storage([1.0, 2.0]).tolist() == [1.0, 2.0]
