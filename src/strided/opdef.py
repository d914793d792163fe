"""The op registry: one :class:`OpDef` per op, every spelling of it pointing at the same object.

An op's entry carries its ``name``, its ``aliases`` (other method and function names:
``multiply`` of ``mul``), its ``dunders`` (the operators, reflected ones included), its ``kind``
(:class:`Kind`: what it does to memory), its ``forward`` and its ``backward`` rule. Every field is
written in the op's family module, beside its forward:

- ``@backward("mul", "multiply", operands="two")`` after the forward (:func:`backward`; the rule
  contract is :mod:`strided.gradients`'): the first name of the first declaration is the op's
  name, the others are its aliases and dunders. Declarations that name the same rule function
  (``@backward("__mul__", "__rmul__", operands="dunder")`` stacked on it) add spellings to the
  same op;
- ``declare(Kind.COMPUTE, "hypot lerp", specs=(ADD, SUB))`` at the module's end (:func:`declare`)
  gives its ops their kind, forward and home (and says which spellings ``explain`` predicts);
- ``@op("addcmul", kind=..., rule=..., inplace="addcmul_")`` (:func:`strided.ops.registry.op`)
  does all of it at once for a new op.

The lists the rest of strided reads are made from here: :mod:`strided.ops.table` (the op table of
``watch`` and the command line), ``explain``'s op lists, the face (``tools/gen_face.py``) and the
stub (``tools/gen_stubs.py``).

:data:`BACKWARD` is a read-only view of the registry (spelling -> (rule, operands)), not a second
registry: the recording entries (:func:`strided.gradients.seal`), the in-place rewrite and the
tests read it.

This module sits in the dispatch layer, below :mod:`strided.tensor`, because the view methods of
Tensor declare their rules in the class body.

>>> op = OPDEFS["multiply"]
>>> op.name, op.aliases, op.dunders, op.kind
('mul', ('multiply',), ('__mul__', '__rmul__'), <Kind.COMPUTE: 'compute'>)
>>> OPDEFS["__rmul__"] is OPDEFS["mul"], BACKWARD["multiply"][1]
(True, 'two')
"""

from __future__ import annotations

import enum
import functools
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["BACKWARD", "OPDEFS", "Kind", "OpDef", "backward", "declare", "define"]


class Kind(enum.StrEnum):
    """What an op does to memory: a new layout over its input's storage (VIEW), new memory filled
    from its inputs' elements (COPY), new values computed (COMPUTE), its target written in place
    (WRITE), or new memory from no input (ALLOC: factories, random draws)."""

    VIEW = "view"
    COPY = "copy"
    COMPUTE = "compute"
    WRITE = "write"
    ALLOC = "alloc"


OPERANDS = ("self", "two", "dunder", "property", "any")
REFLECTED = "reflected"  # a reflected operator's operands: (self, other), the op run as op(other, self)


@dataclass(eq=False)
class OpDef:
    """One op (see the module doc). ``operands``: per spelling, where tensors may sit among its
    arguments (the recording entry's cheap test: "self", "two", "dunder", "property", "any");
    ``spec``: the elementwise descriptor (``BinaryOp``, ``UnaryOp``) where the op has one;
    ``module``: the module that declared its rule (it must seal: :func:`strided.gradients.seal`);
    ``home``: its family module, whose function of the op's name is ``strided.<name>`` when torch
    has one (``tools/gen_face.py`` writes the face's op imports from it); ``explained``: the
    spellings whose layout ``strided.explain`` predicts, for strided and PyTorch tensors alike."""

    name: str
    aliases: tuple[str, ...] = ()
    dunders: tuple[str, ...] = ()
    kind: Kind | None = None
    forward: Callable[..., Any] | None = None
    backward: Callable[..., Any] | None = None
    operands: dict[str, str] = field(default_factory=dict)
    spec: Any = None
    module: str = ""
    home: str = ""
    explained: tuple[str, ...] = ()
    # True for an op whose result reads only its tensor arguments' shapes and dtypes, never their
    # values (``zeros_like``): no gradient can flow through it, so given a tensor that requires
    # grad its result is a plain tensor, as PyTorch's, instead of the guard's "not differentiable"
    layout_only: bool = False
    # True for a factory that reads its tensor arguments as data (``tensor(t)``, ``linspace(0, t)``'s
    # 0-d bounds): PyTorch's result has no history whatever they require, so strided's is plain too
    no_history: bool = False
    _swapped: Callable[..., Any] | None = field(default=None, repr=False)

    def rule_for(self, name: str) -> tuple[Callable[..., Any], str]:
        """The backward rule and operands of the spelling ``name`` (it must have a rule): the op's
        own, or, for a reflected operator (``__rsub__``: ``other - self``), the op's rule with its
        two operands swapped back (derived once), whose operands are "dunder"."""
        operands = self.operands[name]
        if operands != REFLECTED:
            return self.backward, operands  # type: ignore[return-value]
        swapped = self._swapped
        if swapped is None:
            rule = self.backward

            def swapped(out: Any, self_: Any, other: Any) -> Any:
                return rule(out, other, self_)  # type: ignore[misc]

            swapped.__qualname__ = f"{getattr(rule, '__qualname__', 'rule')} (reflected)"
            self._swapped = swapped
        return swapped, "dunder"

    @property
    def names(self) -> tuple[str, ...]:
        """Every spelling: the name, the aliases, the dunders."""
        return (self.name, *self.aliases, *self.dunders)

    def add_spelling(self, name: str) -> None:
        if name == self.name or name in self.aliases or name in self.dunders:
            return
        if name.startswith("__") and name.endswith("__"):
            self.dunders = (*self.dunders, name)
        else:
            self.aliases = (*self.aliases, name)
        _put(name, self)


# every spelling -> its op (one object per op)
OPDEFS: dict[str, OpDef] = {}
_BY_RULE: dict[Any, OpDef] = {}
# the modules that declared rules and have not called gradients.seal(globals()) yet (the face
# refuses to finish the import while one remains: a forgotten seal would leave ops unrecorded)
_UNSEALED: set[str] = set()
# the spellings given a rule whose Tensor method :func:`strided.gradients.seal` has not yet made
# its entry (absent so far, or not yet sealed): each seal looks at these, not at every op (36
# seals over ~400 spellings were a tenth of ``import strided``); the face's last seal looks at all
_PENDING: set[str] = set()
# every spelling -> its place in OPDEFS' order (the dict's own insertion order, which no key ever
# leaves): seal sorts the few pending spellings by it instead of scanning all of OPDEFS each time
ORDER: dict[str, int] = {}


def _op_of(names: tuple[str, ...], rule: Callable[..., Any] | None) -> OpDef:
    """The op that ``names`` (or ``rule``) already belongs to, else a new one named ``names[0]``."""
    if rule is not None and rule in _BY_RULE:
        return _BY_RULE[rule]
    for name in names:
        if name in OPDEFS:
            return OPDEFS[name]
    op = OpDef(names[0])
    _put(names[0], op)
    return op


def _put(name: str, op: OpDef) -> None:
    """``OPDEFS[name] = op``, and the spelling's place in the registry's order (:data:`ORDER`)
    when it is new (a spelling given to another op keeps its place, as the dict's key does)."""
    OPDEFS[name] = op
    if name not in ORDER:
        ORDER[name] = len(ORDER)


def backward(*names: str, operands: str = "self", module: str | None = None, reflected: tuple[str, ...] = (),
             complex_grad: bool = True) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Declare the decorated function as the backward rule of the op spelt ``names`` (see the
    module doc and :mod:`strided.gradients` for the rule contract). ``module``: the declaring
    module (it must seal), when the caller is a declaration helper; by default the caller's.
    ``reflected``: the op's reflected operators (``__rsub__``: ``other - self`` is
    ``sub(other, self)``), spellings of the same op whose rule is derived from this one
    (:meth:`OpDef.rule_for`). ``complex_grad=False``: PyTorch's op is not among those whose
    gradient is implemented for complex outputs (its GRADIENT_IMPLEMENTED_FOR_COMPLEX), so
    recording it with a complex result raises its error instead of a gradient."""
    if operands not in OPERANDS:
        raise ValueError(f"operands must be one of {OPERANDS}, not {operands!r}")
    if module is None:
        module = sys._getframe(1).f_globals.get("__name__", "?")

    def register(rule: Callable[..., Any]) -> Callable[..., Any]:
        if not complex_grad:
            rule = _real_results_only(names[0].removeprefix("F."), rule)
        op = _op_of(names, rule)
        if op.backward is not None and op.backward is not rule:
            # a second rule for a spelling of an op: the op is split (strided keeps one rule per op)
            raise ValueError(f"{names[0]!r} already has the backward rule {op.backward.__qualname__}")
        op.backward = rule
        _BY_RULE[rule] = op
        op.module = module
        for name in names:
            op.add_spelling(name)
            op.operands[name] = operands
        for name in reflected:
            op.add_spelling(name)
            op.operands[name] = REFLECTED
        _PENDING.update(names, reflected)
        _UNSEALED.add(module)
        return rule

    return register


def define(name: str, kind: Kind, forward: Callable[..., Any], spec: Any = None, home: str = "") -> OpDef:
    """Give the op ``name`` its kind, forward and family module (the op table does, once per op);
    returns the op."""
    op = OPDEFS.get(name) or _op_of((name,), None)
    op.kind, op.forward = kind, forward
    if home:
        op.home = home
    if spec is not None:
        op.spec = spec
    return op


def _real_results_only(op: str, rule: Callable[..., Any]) -> Callable[..., Any]:
    """``rule`` behind PyTorch's refusal to record ``op`` with a complex result (the rule maker
    runs only while recording: an input requires grad, grad mode on)."""
    from .errors import StridedRuntimeError
    from .messages import join_lines

    @functools.wraps(rule)
    def real_only(out: Any, *args: Any, **kwargs: Any) -> Any:
        first = out[0] if isinstance(out, (tuple, list)) and out else out
        dtype = getattr(first, "_dtype", None)
        needs = any(getattr(a, "requires_grad", False) is True for a in (*args, *kwargs.values()))
        if needs and dtype is not None and dtype.is_complex:
            raise StridedRuntimeError(join_lines(
                f"{op} does not support automatic differentiation for outputs with complex dtype.",
                f"PyTorch's {op} has no complex derivative, so strided records none either",
                f"fix: call {op} on detached tensors or under strided.no_grad(), or differentiate "
                "the real and imaginary parts through ops that have one"))
        return rule(out, *args, **kwargs)

    return real_only


def declare(kind: Kind, names: str = "", *, specs: Iterable[Any] = (), explain: str = "",
            layout_only: str = "", no_history: str = "") -> None:
    """Give the ops spelt in ``names`` (space-separated) and those of ``specs`` (elementwise
    descriptors, ``BinaryOp``/``UnaryOp``, named by their ``name``) their kind, in the registry:
    the one place an op's kind is written, at the end of its family module, after
    ``seal(globals())`` (each op's forward is then the function of that name in the module: its
    recording entry) and its home (that module). A name that is an alias of an op already given
    its kind (``concat`` of ``cat``) only confirms it; ``F.<name>`` is the module's function
    ``<name>`` (``nn.functional``'s ops). A name the module lacks raises at import: a typo
    cannot leave an op without its kind. ``explain``: the spellings among them whose layout
    ``strided.explain`` predicts (one tensor in, one out; read as ``explain``'s op list).
    ``layout_only`` and ``no_history``: the spellings among them whose results no gradient flows
    through (see :class:`OpDef`'s fields of those names).

    >>> op = OPDEFS["concat"]
    >>> op.name, op.kind.value, op.home
    ('cat', 'copy', 'strided.ops.shape.joining')
    """
    namespace = sys._getframe(1).f_globals
    module = namespace["__name__"]
    # layout_only: the spellings among them whose results read no tensor's values (see OpDef)
    for spec in specs:
        define(spec.name, kind, namespace[spec.name], spec, module)
    for name in names.split():
        op = OPDEFS.get(name)
        if op is not None and op.kind is not None and name != op.name:
            if op.kind is not kind:
                raise ValueError(f"{name!r} is an alias of {op.name!r}, whose kind is {op.kind.value}, not {kind.value}")
            continue
        define(name, kind, namespace[name.removeprefix("F.")], home=module)
    for name in explain.split():
        op = OPDEFS[name]
        if op.kind is not kind:
            raise ValueError(f"explain={name!r}: not an op of this declaration ({kind.value})")
        op.explained = (*op.explained, name)
    for flag, spelt in (("layout_only", layout_only), ("no_history", no_history)):
        for name in spelt.split():
            op = OPDEFS[name]
            if op.kind is not kind:
                raise ValueError(f"{flag}={name!r}: not an op of this declaration ({kind.value})")
            setattr(op, flag, True)


class _Rules(Mapping):
    """:data:`BACKWARD`: spelling -> (rule, operands), read off the registry (ops without a rule
    are not in it)."""

    def __getitem__(self, name: str) -> tuple[Callable[..., Any], str]:
        op = OPDEFS.get(name)
        if op is None or op.backward is None or name not in op.operands:
            raise KeyError(name)
        return op.rule_for(name)

    def __iter__(self) -> Iterator[str]:
        return (n for n, op in list(OPDEFS.items()) if op.backward is not None and n in op.operands)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __contains__(self, name: object) -> bool:
        op = OPDEFS.get(name) if isinstance(name, str) else None
        return op is not None and op.backward is not None and name in op.operands


BACKWARD: Mapping[str, tuple[Callable[..., Any], str]] = _Rules()
