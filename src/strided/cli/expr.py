"""The expressions ``strided show`` and ``strided explain`` accept: a chain over strided's
constructors and Tensor methods, parsed with :mod:`ast` and never ``eval``-ed.

Grammar (anything else is refused with one line saying what is allowed)::

    chain   := ctor "(" args ")" ( "." method "(" args ")" | "." attr | "[" index "]" )*
    ctor    := one of CONSTRUCTORS, optionally spelt strided.<ctor>
    method  := one of METHODS (the view / copy ops) or COMPUTE (the computing ones), both read
               off the op registry
    attr    := T | mT
    args    := literal, ... , name=literal, ...
    literal := int | float | bool | None | "string" | -literal | (literal, ...) | [literal, ...]
               | a dtype name such as float64 (or strided.float64)
    index   := int | slice (a:b:c of ints) | None | ... , separated by commas

Each method call, attribute or indexing is one :class:`Step`; :func:`evaluate` runs the chain
and records, for each step, its input, its output or the error it raised, and whether it was a
view (same storage) or a copy (with the bytes copied).

Example::

    >>> steps = evaluate(parse("arange(12).reshape(3,4).t().flatten()"))
    >>> [(s.text, s.kind, s.nbytes) for s in steps]
    [('arange(12)', 'new', 96), ('x.reshape(3, 4)', 'view', 0), ('x.t()', 'view', 0),
     ('x.flatten()', 'copy', 96)]
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from .. import creation, interop
from ..diagnose.explain_torch import TORCH_OPS
from ..diagnose.watch import watch
from ..dtypes import ALL_DTYPES, to_dtype
from ..opdef import Kind
from ..ops.table import OPS
from ..tensor import Tensor

__all__ = ["ATTRIBUTES", "COMPUTE", "CONSTRUCTORS", "METHODS", "Call", "ExprError", "Step", "error_line", "evaluate",
           "parse", "run_step"]

CONSTRUCTORS: tuple[str, ...] = ("arange", "zeros", "ones", "empty", "full", "tensor", "as_tensor")
"""The strided functions a chain may start with."""

METHODS: tuple[str, ...] = TORCH_OPS
"""The Tensor methods that give a view or a copy of their input: those ``explain`` predicts."""

COMPUTE: tuple[str, ...] = tuple(sorted(
    name for name, op in OPS.items()
    if op.kind is Kind.COMPUTE and not name.endswith("_") and callable(getattr(Tensor, name, None))))
"""The computing Tensor methods of the op registry (a new result; their number arguments only)."""

ATTRIBUTES: tuple[str, ...] = ("T", "mT")
"""The Tensor attributes that are views."""

DTYPE_NAMES: tuple[str, ...] = tuple(d.name for d in ALL_DTYPES)

ALLOWED = (
    f"allowed: a chain that starts with a strided constructor ({', '.join(CONSTRUCTORS)}), then "
    f".method(...) calls ({', '.join(METHODS)}, or one of the {len(COMPUTE)} computing methods: "
    f"{', '.join(COMPUTE[:6])}, ...), .T / .mT, and [indexing] with ints, "
    "slices, None and ...; arguments are int / float / string / bool / None literals, tuples and "
    f"lists of them, dtype names ({', '.join(DTYPE_NAMES)}) and keyword arguments"
)


class ExprError(ValueError):
    """An expression outside the grammar: the message is one line and says what is allowed."""


@dataclass(frozen=True)
class Call:
    """One link of a parsed chain: ``kind`` is "ctor", "method", "attr" or "index"; ``name`` the
    function, method or attribute name ("getitem" for indexing); ``args`` / ``kwargs`` the literal
    arguments (for indexing, ``args`` is the one key); ``text`` the link as written, with ``x``
    standing for the tensor it applies to (``x.reshape(3, 4)``, ``x[:, ::2]``, ``x.T``)."""

    kind: str
    name: str
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)
    text: str = ""


@dataclass
class Step:
    """One evaluated link: its :class:`Call`, the ``input`` tensor (None for the constructor),
    the ``output`` tensor or the ``error`` raised, and ``kind``: "new" (the constructor), "view"
    (the output shares the input's storage), "copy" (new storage, ``nbytes`` copied), "compute"
    (a new result of ``nbytes``) or "error"."""

    call: Call
    input: Tensor | None
    output: Tensor | None = None
    error: BaseException | None = None
    kind: str = "error"
    nbytes: int = 0

    @property
    def text(self) -> str:
        return self.call.text

    def mark(self) -> str:
        """The step's verdict in words: always says ``view`` or ``copy`` (or that it failed) and bytes."""
        if self.kind == "view":
            same = " (returns x itself)" if self.output is self.input else ""
            return f"view (0 bytes copied; shares x's storage){same}"
        if self.kind == "copy":
            return f"copy ({self.nbytes:,} bytes copied into new storage)"
        if self.kind == "compute":
            return f"compute: a new tensor of {self.nbytes:,} bytes (not a view, no copy of x)"
        if self.kind == "new":
            return f"new tensor ({self.nbytes:,} bytes of new storage)"
        return f"error: {error_line(self.error)}"  # type: ignore[arg-type]


def error_line(error: BaseException) -> str:
    """``Class: first line`` with the builtin class PyTorch would raise (RuntimeError, not ViewError)."""
    cls = next((c for c in type(error).__mro__ if c.__module__ == "builtins"), type(error))
    text = str(error).strip()
    return f"{cls.__name__}: {text.splitlines()[0] if text else ''}"


# ------------------------------------------------------------------ parsing


def parse(source: str) -> list[Call]:
    """Parse ``source`` into its chain of :class:`Call` (the constructor first).

    Raises :class:`ExprError` (a ValueError) with a one-line message for anything outside the
    grammar: ``parse("__import__('os')")`` names the function and lists what is allowed.
    """
    if not isinstance(source, str) or not source.strip():
        raise ExprError(f"empty expression; {ALLOWED}")
    try:
        tree = ast.parse(source.strip(), mode="eval")
    except SyntaxError as exc:
        raise ExprError(f"not a Python expression ({exc.msg}); {ALLOWED}") from None
    except (RecursionError, MemoryError):  # Python's own parser gives up on a chain this deep
        raise ExprError(f"the expression is nested too deeply for Python's parser; {ALLOWED}") from None
    chain: list[Call] = []
    node: ast.AST = tree.body
    while True:
        if isinstance(node, ast.Call) and _ctor_name(node.func) is not None:
            chain.append(_call("ctor", _ctor_name(node.func), node, None))  # type: ignore[arg-type]
            break
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            name = node.func.attr
            if name not in METHODS and name not in COMPUTE:
                raise ExprError(f"method .{name}() is not accepted; {ALLOWED}")
            chain.append(_call("method", name, node, node.func.value))
            node = node.func.value
        elif isinstance(node, ast.Attribute):
            if node.attr not in ATTRIBUTES:
                raise ExprError(f"attribute .{node.attr} is not accepted; {ALLOWED}")
            chain.append(Call("attr", node.attr, text=f"x.{node.attr}"))
            node = node.value
        elif isinstance(node, ast.Subscript):
            key = _index(node.slice)
            text = ast.unparse(ast.Subscript(ast.Name("x"), node.slice, ast.Load()))
            chain.append(Call("index", "getitem", (key,), {}, text))
            node = node.value
        elif isinstance(node, ast.Call):
            raise ExprError(f"{_spell(node.func)}(...) is not a strided constructor; {ALLOWED}")
        else:
            raise ExprError(f"{_what(node)} is not accepted here; {ALLOWED}")
    chain.reverse()
    return chain


def _ctor_name(func: ast.AST) -> str | None:
    if isinstance(func, ast.Name) and func.id in CONSTRUCTORS:
        return func.id
    if (isinstance(func, ast.Attribute) and func.attr in CONSTRUCTORS and isinstance(func.value, ast.Name)
            and func.value.id == "strided"):
        return func.attr
    return None


def _call(kind: str, name: str, node: ast.Call, receiver: ast.AST | None) -> Call:
    args = []
    for a in node.args:
        if isinstance(a, ast.Starred):
            raise ExprError(f"*arguments are not accepted in {name}(...); {ALLOWED}")
        args.append(_literal(a, name))
    kwargs = {}
    for kw in node.keywords:
        if kw.arg is None:
            raise ExprError(f"**arguments are not accepted in {name}(...); {ALLOWED}")
        kwargs[kw.arg] = _literal(kw.value, name)
    func: ast.expr = ast.Name(name) if receiver is None else ast.Attribute(ast.Name("x"), name, ast.Load())
    text = ast.unparse(ast.Call(func, node.args, node.keywords))
    return Call(kind, name, tuple(args), kwargs, text)


def _literal(node: ast.AST, where: str) -> Any:
    """The value of a literal argument; ExprError for anything that would need running code."""
    if isinstance(node, ast.Constant) and (node.value is None or isinstance(node.value, (bool, int, float, str))):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _literal(node.operand, where)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return -value if isinstance(node.op, ast.USub) else value
        raise ExprError(f"a sign applies only to a number, in {where}(...); {ALLOWED}")
    if isinstance(node, (ast.Tuple, ast.List)):
        items = [_literal(e, where) for e in node.elts]
        return tuple(items) if isinstance(node, ast.Tuple) else items
    if isinstance(node, ast.Name) and node.id in DTYPE_NAMES:
        return to_dtype(node.id)
    if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "strided"
            and node.attr in DTYPE_NAMES):
        return to_dtype(node.attr)
    raise ExprError(f"{_what(node)} is not accepted as an argument of {where}(...); {ALLOWED}")


def _index(node: ast.AST) -> Any:
    """An indexing key: ints, slices of ints, None and ... (a tuple of them for several dims)."""
    if isinstance(node, ast.Tuple):
        return tuple(_index_item(e) for e in node.elts)
    return _index_item(node)


def _index_item(node: ast.AST) -> Any:
    if isinstance(node, ast.Slice):
        parts = [None if p is None else _index_int(p) for p in (node.lower, node.upper, node.step)]
        return slice(*parts)
    if isinstance(node, ast.Constant) and (node.value is None or node.value is Ellipsis):
        return node.value
    return _index_int(node)


def _index_int(node: ast.AST) -> int | None:
    if isinstance(node, ast.Constant) and node.value is None:
        return None  # a slice bound left out: x[None:3]
    if isinstance(node, (ast.Constant, ast.UnaryOp)):
        value = _literal(node, "indexing")
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    raise ExprError(f"{_what(node)} is not accepted in [indexing] (ints, slices, None and ... are); {ALLOWED}")


def _spell(node: ast.AST) -> str:
    try:
        return ast.unparse(node)
    except Exception:  # pragma: no cover - ast.unparse handles every parsed node
        return type(node).__name__


def _what(node: ast.AST) -> str:
    """How the refusal names a node: the source for short ones, the kind for the rest."""
    kinds = {ast.Lambda: "a lambda", ast.JoinedStr: "an f-string", ast.BinOp: "an arithmetic operator",
             ast.Compare: "a comparison", ast.BoolOp: "a boolean operator", ast.Dict: "a dict",
             ast.Set: "a set", ast.ListComp: "a comprehension", ast.GeneratorExp: "a generator",
             ast.DictComp: "a comprehension", ast.SetComp: "a comprehension", ast.IfExp: "a conditional",
             ast.NamedExpr: "an assignment (:=)", ast.Call: "a call", ast.Starred: "a *argument",
             ast.Await: "await", ast.Yield: "yield", ast.Slice: "a slice"}
    for cls, word in kinds.items():
        if isinstance(node, cls):
            return f"{word} ({_short(node)})"
    if isinstance(node, ast.Name):
        return f"the name {node.id!r}"
    if isinstance(node, ast.Attribute):
        return f"the attribute {_short(node)!r}"
    return _short(node)


def _short(node: ast.AST) -> str:
    text = _spell(node)
    return text if len(text) <= 40 else text[:37] + "..."


# ------------------------------------------------------------------ evaluation


def evaluate(chain: list[Call]) -> list[Step]:
    """Run ``chain`` (from :func:`parse`) step by step and return the steps.

    The first step is the constructor; evaluation stops at the first step that raises (that step
    is the last, with its ``error``). An error raised by the constructor is recorded the same way
    (its step has ``input`` None).
    """
    steps: list[Step] = []
    x: Tensor | None = None
    for call in chain:
        step = run_step(call, x)
        steps.append(step)
        if step.error is not None:
            return steps
        x = step.output
    return steps


def run_step(call: Call, x: Tensor | None) -> Step:
    """One link of a chain applied to ``x`` (None for the constructor), under a watch that tells
    view from copy; a raised error or a non-tensor result is kept in the step's ``error``."""
    step = Step(call, x)
    try:
        with watch() as w:
            out = _apply(call, x)
    except Exception as exc:  # the library's own refusal is what the user asked to see
        step.error = exc
        step.kind = "error"
        return step
    if not isinstance(out, Tensor):
        step.error = TypeError(f"{call.text} gave a {type(out).__name__}, not a Tensor: a chain continues only "
                               "with tensors")
        return step
    step.output = out
    step.kind, step.nbytes = _verdict(call, x, out, w.bytes_copied)
    return step


# The function behind each name in CONSTRUCTORS (as_tensor lives with the other memory sharers).
_CONSTRUCTOR_FUNCTIONS = {name: getattr(creation, name, None) or getattr(interop, name) for name in CONSTRUCTORS}


def _apply(call: Call, x: Tensor | None) -> Any:
    if call.kind == "ctor":
        return _CONSTRUCTOR_FUNCTIONS[call.name](*call.args, **call.kwargs)
    assert x is not None
    if call.kind == "index":
        return x[call.args[0]]
    if call.kind == "attr":
        return getattr(x, call.name)
    return getattr(x, call.name)(*call.args, **call.kwargs)


def _verdict(call: Call, x: Tensor | None, out: Tensor, copied: int) -> tuple[str, int]:
    """view / copy / compute / new, and the bytes: a view is told by sharing x's storage."""
    nbytes = out.untyped_storage().nbytes()
    if x is None:
        return "new", nbytes
    if out.untyped_storage() is x.untyped_storage():
        return "view", 0
    if call.name in COMPUTE:
        return "compute", nbytes
    return "copy", copied or nbytes
