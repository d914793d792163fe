"""The backward rules: their contract, the helpers they share, and the sealing that makes each
op with a rule its recording entry; low enough that the views in :mod:`strided.tensor` and the
ops in :mod:`strided.ops` can both declare their rules beside their forwards. The rules live in
the op registry, :mod:`strided.opdef` (one :class:`~strided.opdef.OpDef` per op; ``BACKWARD``
and ``backward`` are re-exported from it here).

``@backward("mul", "multiply", operands="two")`` declares the op's gradient rule, written right
after its forward in the same module (as micrograd keeps them). A rule is
``rule(out, *args, **kwargs) -> (node_name, inputs, backward, saved)`` or None: called after the
forward ran with its result and its own arguments, it returns PyTorch's node name
(``"MulBackward0"``), the inputs the gradient flows to (tensors; None or a number for an argument
that gets no gradient), ``backward(grad) -> one gradient per input`` (a closure computing with
strided's own ops) and the tensors it saved (their version counters are checked before it runs).
A fifth item (any value) marks an op with several differentiable outputs (split, unbind): then
``backward`` takes one gradient per output (None where an output got none).

``operands`` says where tensors may sit among the arguments, so the recording wrapper can test
for autograd cheaply: "self" (only the first argument), "two" (the first two), "dunder" (exactly
``(self, other)``), "property" (a Tensor property) or "any" (anywhere, lists and tuples included:
``cat``, ``stack``, ``einsum``, ``where``). An ``nn.functional`` function whose signature is its
own (``F.cross_entropy``) registers as ``"F.<name>"``.

Each module that registers rules ends with ``seal(globals())``: from then on its functions
with a rule, and the Tensor methods of the same names, *are* their recording entries
(:func:`strided.grad_mode.track`: one slot test, then the plain forward), so every later binding
(``strided.exp``, ``from strided import exp``, ``nn.functional``'s and ``array_api``'s imports)
records. The face calls :func:`finish` last: the in-place entries (version counting) and the
guards of the ops without a rule. Nothing is patched after ``import strided``. Rules run with
grad mode off, so the ops they call record nothing.

>>> rule, operands = BACKWARD["exp"]  # declared in strided.ops.elementwise.unary: backward("exp")(...)
>>> x = strided.tensor([0.0, 1.0]); y = x.exp()
>>> name, inputs, grads, saved = rule(y, x)
>>> name, operands, grads(strided.ones(2))[0]
('ExpBackward0', 'self', tensor([1.0000, 2.7183]))
"""

from __future__ import annotations

import functools
import sys
import textwrap
import types
import warnings
from collections.abc import Callable
from itertools import compress
from operator import or_
from typing import Any, TypeVar

import numpy as np

from . import entry_cache
from . import layout as L
from .dispatch import _ADOPT as _COPY
from .dispatch import adopted
from .errors import StridedNotImplementedError, StridedRuntimeError
from .grad_mode import (
    _CLASS,
    _RECORDER,
    GRAD_MODE,
    INSIDE,
    OUTPUT_ALIAS,
    READS_RESULT,
    _slow,
    forget_parameters,
    guard,
    guard_function,
    requires_grad,
    track,
    track_inplace,
)
from .numpy_keywords import ALIASES, accepts, aliases_of
from .opdef import _PENDING, _UNSEALED, BACKWARD, OPDEFS, ORDER, backward

__all__ = ["BACKWARD", "NamedSaved", "backward", "finish", "flat_indices", "in_pytorch_convention", "installs_as", "linear", "named_saved", "not_differentiable", "record",
           "recorded", "records", "requires_grad", "restrided", "scatter_into_view", "scatter_pieces",
           "seal", "sum_to", "grad_zeros"]

# ---------------------------------------------------------------- the entries, made at definition

# raw forward -> its recording entry: a module that imports the raw object later (by another
# name, or before the entry existed in a cycle) is given the entry by seal()
_ENTRIES: dict[Any, Any] = {}
# the ids of _ENTRIES' keys (kept beside it: seal picks a namespace's raw forwards by identity, in
# C, a namespace holding unhashable values too; the keys are alive, so an equal id is the same object)
_ENTRY_IDS: set[int] = set()


def _is_entry(value: Any) -> bool:
    return getattr(value, "__wrapped_maker__", None) is not None


F = TypeVar("F", bound=Callable)


def installs_as(*names: str) -> Callable[[F], F]:
    """Decorator: install the function as ``Tensor.<name>`` for each name, for the modules above
    :mod:`strided.tensor` that give Tensor its methods (``writes``, ``ops``:
    ``@installs_as("add", "__add__")``; the ops spell it ``registry.method``)."""

    def install(fn: F) -> F:
        Tensor = _CLASS["Tensor"]
        for name in names:
            setattr(Tensor, name, fn)
        return fn

    return install


def records(name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Mark a forward that is its own recording entry: its first line is
    ``if self._ag is not None and not INSIDE.get(): return record(name, <itself>, args, kwargs)``,
    so a plain call pays one slot test and no wrapper call (the hot view methods of Tensor, whose
    ``*shape`` signatures make a wrapper cost a third of the op). :func:`seal` leaves it as it is.
    (``INSIDE`` is set while :func:`record` runs the forward again for the real work.)"""

    def mark(fn: Callable[..., Any]) -> Callable[..., Any]:
        fn.__records__ = name  # type: ignore[attr-defined]
        return fn

    return mark


def guards_itself(fn: Callable[..., Any], raw: Callable[..., Any], name: str) -> Callable[[], Callable[..., Any]]:
    """Mark ``fn``, the forward of the op spelt ``name`` without a rule whose results are never
    float nor complex (comparisons, bitwise and logical ops: the guard's "float result with no
    history" check can never fire on them), as its own guard entry for that spelling:
    :func:`finish` leaves ``Tensor.<name>`` and ``strided.<name>`` as ``fn`` itself (the guard's
    wrapper call was a sixth of a small ``eq``); its aliases keep their guards (they report
    under their own names). ``raw`` is the same forward without the hand-off below.

    Returns ``guarded()``: the guard :func:`finish` would have made, around ``raw`` (made on
    first use). ``fn`` hands it every call the guard does more than pass on: one made while a
    listener is open (the op's record) and one with ``out=`` (a float ``out`` is a float result:
    the guard's check), so those calls take exactly the path they took through the guard."""
    fn.__self_guards__ = name  # type: ignore[attr-defined]
    made: list[Callable[..., Any]] = []

    def guarded() -> Callable[..., Any]:
        if not made:
            op = OPDEFS.get(name)
            made.append(guard_function(raw, name, op=op if op is not None and op.kind is not None else None, key=name))
        return made[0]

    return guarded


def returns_input(name: str) -> Callable[[F], F]:
    """Decorator: the forward of the op spelt ``name``, without a rule, returns its input itself
    (or raises): :func:`finish` gives that spelling no guard, which would only pass the call on (its
    check wants a result with no history, and the input handed back has the input's; its listener
    record is none, as for any input handed back) at twice the cost of ``positive`` itself."""

    def mark(fn: F) -> F:
        fn.__self_guards__ = name  # type: ignore[attr-defined]
        return fn

    return mark


def _guards_itself(value: Any, name: str) -> bool:
    """Whether ``value`` is its own guard entry under the spelling ``name`` (:func:`guards_itself`)."""
    return getattr(value, "__self_guards__", None) == name


def record(name: str, fwd: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
    """The slow path of a forward marked :func:`records`: ``fwd(*args, **kwargs)`` run with the
    node of ``name``'s rule attached (as a :func:`.grad_mode.track` entry's slow path does)."""
    op = OPDEFS.get(name)  # (the registry itself: this runs once per recorded op)
    if op is not None and op.backward is not None:
        return _slow(fwd, op.backward, args, kwargs)
    token = INSIDE.set(True)  # no rule (floor_divide, eq, ...): the plain forward; the guards see its result
    try:
        return fwd(*args, **kwargs)
    finally:
        INSIDE.reset(token)


def recorded(name: str, out: Any, args: tuple) -> Any:
    """What :func:`record` makes of ``fwd(*args)``, given its result ``out`` already computed by the
    forward's own fast path with grad mode as the caller has it: ``out`` with the node of ``name``'s
    rule attached (no rule, or grad mode off: ``out`` as it is).

    Only for a fast path that is pure NumPy (it enters no other op, so running it outside
    ``INSIDE`` changes nothing) and whose result is fresh memory (no view for
    ``_mark_no_grad_views`` to mark): the elementwise fast paths. It saves :func:`record` running
    the forward a second time, its entry checks included (about a sixth of a recorded op).
    Listened calls keep :func:`record` (the entries send a watched call there), so the listeners'
    records do not depend on which path ran.

    >>> x = strided.ones(2, requires_grad=True)
    >>> recorded("mul", x.detach() * 2.0, (x, 2.0)).grad_fn
    <MulBackward0 object at ...>
    """
    op = OPDEFS.get(name)  # (the registry itself: this runs once per recorded op)
    if op is None or op.backward is None or not GRAD_MODE.get():
        return out
    return _RECORDER["fresh"](out, op.backward, args)


# recorded's body in C where the copy kernel is built (the copy kernel's ``recorded``: it calls this
# body until strided.autograd.function sets it up, then takes attach_fresh's common steps itself, a
# third of a recorded small op's recording; this body stays the reference and the fallback,
# tests/test_rec36.py compares the two). The ops' fast paths import ``recorded`` by name: bound here.
_recorded_python = recorded
if _COPY is not None and hasattr(_COPY, "recorded"):
    _COPY.recorded_fallback(_recorded_python)
    recorded = _COPY.recorded  # noqa: F811


class NamedSaved(tuple):
    """A rule's saved tensors (its spec's fourth item) with PyTorch's names for its node's
    ``_saved_*`` attributes (``HuberLossBackward0._saved_self``, ``._saved_delta``): ``names``
    maps each name to ``(True, i)``, the tensor at index ``i`` of the tuple (read from the node,
    so freed with it), or ``(False, value)``, a number the rule was made with. Made by
    :func:`named_saved`; :func:`strided.autograd.function.make_node` hands ``names`` to the node."""

    names: dict[str, tuple[bool, Any]]


def named_saved(saved: tuple, **names: Any) -> NamedSaved:
    """``saved`` with PyTorch's names of the node's saved values (``self=input, delta=0.5``): a
    value that is one of ``saved`` names that tensor, any other is a number kept as it is.

    >>> named_saved((), dim=1).names
    {'dim': (False, 1)}
    """
    out = NamedSaved(saved)
    table = {}
    for name, v in names.items():
        at = next((i for i, t in enumerate(saved) if t is v), None)
        table[name] = (False, v) if at is None else (True, at)
    out.names = table
    return out


def saves_output(maker: Callable[..., Any]) -> Callable[..., Any]:
    """Mark a rule maker that reads its first parameter (the op's result) only to hold it in its
    rule and its saved tensors (``lambda g: grad(g, x, out)``, ``(out,)``), as a value: no identity
    test, no record of it. The fast recorder (:func:`strided.autograd.function.attach_fresh`)
    then passes it the result's unowned alias (:func:`strided.autograd.graph.unowned`) directly,
    where it would pass the result and walk the rule's closures to swap the alias in afterwards:
    the same node (the alias saved as the node's own output, in the rule, in ``own_outputs``).
    Any other recorder passes the result and walks, as for an unmarked maker that reads it."""
    maker.__strided_flags__ = READS_RESULT | OUTPUT_ALIAS  # type: ignore[attr-defined]
    return maker


def in_pytorch_convention(grads: Callable[..., Any]) -> Callable[..., Any]:
    """Mark a rule (the node's ``grads(g, ...)``) as written in PyTorch's convention for complex
    gradients, ``g * conj(f'(z))``, with PyTorch's own operations in their order (its formula in
    derivatives.yaml): the engine then does not conjugate it around
    (:data:`strided.autograd.function.PYTORCH_CONVENTION`), which gives the same values with other
    signs of zero."""
    grads.pytorch_convention = True  # type: ignore[attr-defined]
    return grads


def seal(namespace: dict[str, Any], functional: bool = False, by_name: bool = True, every: bool = False) -> None:
    """Make the ops with a rule recording entries: every Tensor method whose name has a rule, and
    the functions of ``namespace`` (the calling module's ``globals()``) that are such a method or
    whose name has a rule. Called once at the end of each module that defines ops or registers
    rules, so nothing outside the module ever sees the plain forward.

    ``functional``: ``namespace`` is ``nn.functional``, whose own functions register their rules
    as ``"F.<name>"`` and run their forwards with grad mode off (:func:`.grad_mode.below_autograd`).
    ``by_name=False``: only the functions that *are* a forward with an entry are replaced (the
    face: ``strided.reshape`` is NumPy's reshape, no spelling of ``Tensor.reshape``).
    ``every``: look at every spelling with a rule, not only those no seal has made an entry yet
    (the face's seal, last: a method replaced after its module sealed is sealed again).
    """
    from .grad_mode import below_autograd

    Tensor = _CLASS["Tensor"]
    if every:
        _PENDING.update(OPDEFS)
    # (in the registry's order, as a scan of all of it would meet them: an alias sharing its op's
    # forward finds the op's own entry made first)
    # (sorted by each spelling's place: the pending few, not a pass over all ~400 spellings per
    # seal; only those Tensor has a method of, picked in C: a spelling that is no method yet, or
    # never (the face's functions), stays pending, and a later seal makes its method the entry)
    tensor_has = Tensor.__dict__.__contains__
    for name in sorted(filter(tensor_has, filter(ORDER.__contains__, _PENDING)), key=ORDER.__getitem__) \
            if _PENDING else ():
        op = OPDEFS[name]
        if op.backward is None or name not in op.operands:
            _PENDING.discard(name)
            continue
        member = Tensor.__dict__.get(name)
        if member is None:
            continue
        if _is_entry(member):
            _PENDING.discard(name)
            continue
        maker, operands = op.rule_for(name)
        own = getattr(member, "__records__", None)
        if own is not None:  # its own entry (records()): the rule it records must be this name's
            if BACKWARD.get(own, (None,))[0] is not maker:
                raise RuntimeError(f"strided: Tensor.{name} records the rule of {own!r}, which is not {name!r}'s")
            _check_numpy_keywords(member, name)
            member.__wrapped_maker__ = maker
            _PENDING.discard(name)
            continue
        if isinstance(member, property):
            if member.fget is None or _is_entry(member.fget):
                continue
            getter = _rewarning(member.fget, track(member.fget, maker, name=name, op=op))
            getter.__wrapped_maker__ = maker  # type: ignore[attr-defined]
            setattr(Tensor, name, property(getter, member.fset, doc=member.__doc__))
            continue
        if not callable(member) or isinstance(member, (type, staticmethod, classmethod)):
            continue
        new = track(member, maker, "self" if operands == "property" else operands, _reported(name, op), op,
                    f"Tensor.{name}")
        _ENTRIES.setdefault(member, new)  # (the op's own name first: an alias sharing the forward reports it)
        _ENTRY_IDS.add(id(member))
        setattr(Tensor, name, new)
        _PENDING.discard(name)
    # (every global of every op module, ~7,000 in all, is a candidate; the loop below looks only
    # at those it could change, picked in C, in the namespace's order: a value that is a raw
    # forward with an entry (_ENTRY_IDS), or, ``by_name``, a name with an OpDef. Any other global
    # would pass the body below without effect. Both lists are taken before the loop rebinds any.)
    entries_get = _ENTRIES.get
    items, values = list(namespace.items()), list(namespace.values())
    picked = map(_ENTRY_IDS.__contains__, map(id, values))
    if by_name:
        names = {key[2:] for key in OPDEFS if key[:2] == "F."} if functional else OPDEFS
        picked = map(or_, picked, map(names.__contains__, list(namespace)))
    for attr, value in compress(items, picked):
        if not callable(value):
            continue
        if attr[:2] == "__":
            continue
        try:
            entry = entries_get(value)  # (only raw forwards are keys: never a class or an entry)
        except TypeError:  # (an unhashable callable)
            continue
        if entry is not None:
            namespace[attr] = entry
            continue
        if not by_name or attr[:1] == "_":
            continue
        key = f"F.{attr}" if functional else attr
        op = OPDEFS.get(key)  # (BACKWARD's test, spelt out: this runs ~1,700 times per import)
        if op is None or op.backward is None or key not in op.operands or isinstance(value, type) or _is_entry(value):
            continue
        maker, operands = op.rule_for(key)
        if functional:
            new = track(below_autograd(value), maker, "any" if operands in ("property", "dunder") else operands,
                        attr, op, key)
        else:
            new = track(value, maker, "self" if operands in ("property", "dunder") else operands,
                        _reported(attr, op), op, key)
        _ENTRIES[value] = new
        _ENTRY_IDS.add(id(value))
        namespace[attr] = new
    _UNSEALED.discard(namespace.get("__name__", "?"))


def _check_numpy_keywords(entry: Any, name: str) -> None:
    """A hand-written entry (:func:`records`) is called without a wrapper, so it takes NumPy's
    keywords itself (``axis=NO`` beside ``dim``, then :func:`strided.numpy_keywords.call`):
    one that lacks them where PyTorch's op takes them fails the import, not the user's call."""
    from .grad_mode import _parameters

    params = _parameters(entry) or []
    lacking = aliases_of(p.name for p in params)
    if lacking and accepts(f"Tensor.{name}"):
        raise RuntimeError(f"strided: Tensor.{name} is its own entry and takes "
                           f"{', '.join(ALIASES[a] for a in lacking)}= but not {', '.join(lacking)}= "
                           "(see strided.numpy_keywords)")


def _reported(name: str, op: Any) -> str:
    """The name an op's record carries when called as ``name``: the spelling the user wrote
    (``swapaxes``, ``clone``), but an operator's op (``a + b`` is ``add``)."""
    return op.name if name.startswith("__") and name != "__getitem__" else name


def _rewarning(raw: Any, tracked: Any) -> Any:
    """A property getter (``T``, ``mT``) whose deprecation warning points at the user's line, not
    at the entry: the 2-d case (no warning) goes straight through."""

    @functools.wraps(raw)
    def _getter(self: Any) -> Any:
        if self._ag is None and len(self._layout.shape) == 2:
            return raw(self)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = tracked(self)
        for w in caught:
            warnings.warn(w.message, w.category, stacklevel=2)
        return out

    return _getter


# Methods whose float results legitimately carry no gradient (detached or new memory).
_NO_GRAD_RESULTS = {"detach", "new_empty", "new_zeros", "new_ones", "new_full", "new_tensor", "new_empty_strided",
                    "numpy", "tolist", "item", "cpu", "type", "bernoulli", "multinomial", "data"}
# in-place by name but no write to ``self``'s values
_NOT_INPLACE = {"requires_grad_", "detach_", "retain_grad", "register_hook"}
_IOPS = {"add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and", "or", "xor", "lshift", "rshift", "matmul"}
# The modules whose functions the face exports and guards (random draws and dtype questions
# legitimately give results without a gradient).
_FACE_MODULES = ("strided.ops.", "strided.numpy_api", "strided.linalg", "strided.nn")
_FACE_EXEMPT = ("strided.ops.creation.random", "strided.ops.creation.generator", "strided.ops._support.promotion")


def finish(face: dict[str, Any]) -> None:
    """The last step of ``import strided`` (``face``: the package's own ``globals()``): its names
    and the Tensor methods sealed like a module's, then every in-place method becomes its entry
    (version counting and the in-place errors once autograd is used), and every other public
    method and face function without a rule is guarded (given a tensor that requires grad, a
    float result with no history raises instead of silently cutting the gradient)."""
    if _UNSEALED:
        raise RuntimeError(f"strided: {sorted(_UNSEALED)} registered backward rules but never called "
                           "gradients.seal(globals()): their ops would record nothing")
    seal(face, by_name=False, every=True)
    Tensor = _CLASS["Tensor"]
    for name, member in list(vars(Tensor).items()):
        # (the name first: the attribute probe only for the ~160 in-place names, not every member;
        # a compiled front's miss raises and clears an AttributeError, ~1 µs, ~240 of them)
        if ((name.endswith("_") and not name.startswith("_")) or name == "__setitem__" or (
                name.startswith("__i") and name.endswith("__") and name[3:-2] in _IOPS)) and (
                name not in _NOT_INPLACE and getattr(member, "__inplace_of__", None) is None):
            setattr(Tensor, name, track_inplace(member, name, _write_name(name), f"Tensor.{name}"))
    for name, member in list(vars(Tensor).items()):
        if (name.startswith("_") or name in BACKWARD or name in _NO_GRAD_RESULTS or name.endswith("_")
                or not callable(member) or isinstance(member, (property, type, staticmethod, classmethod))
                or getattr(member, "__guards__", None) is not None):
            continue
        if _guards_itself(member, name):
            continue
        op = OPDEFS.get(name)
        spec = getattr(op, "spec", None)
        setattr(Tensor, name, guard(member, name, op if op is not None and op.kind is not None else None,
                                    "two" if spec is not None and hasattr(spec, "ufunc") and spec.__class__.__name__
                                    == "BinaryOp" else "self", f"Tensor.{name}"))
    for attr, value in list(face.items()):
        if (attr.startswith("_") or attr.endswith("_") or not isinstance(value, types.FunctionType)
                or _is_entry(value) or getattr(value, "__guards__", None) is not None):
            continue
        where = value.__module__ or ""
        if where.startswith(_FACE_MODULES) and not where.startswith(_FACE_EXEMPT) and not _guards_itself(value, attr):
            op = OPDEFS.get(attr)
            face[attr] = guard_function(value, attr, op=op if op is not None and op.kind is not None else None,
                                        key=attr)
    _home_entries(face)
    if Tensor.__doc__ is not None:  # (None under python -OO: docstrings stripped, no list to add)
        Tensor.__doc__ = _InstalledMethodsDoc(Tensor.__doc__, Tensor)  # type: ignore[assignment]
    entry_cache.save()  # (the entries compiled for this import, for the next one)
    forget_parameters()


def _home_entries(face: dict[str, Any]) -> None:
    """The ops without a rule report from their family module too: its function of each spelling
    (``strided.ops.elementwise.unary_more.isnan``) becomes the face's entry (the same object), and an in-place
    function (``index_put_``) its Tensor method's in-place entry (so ``strided.index_put_`` counts
    versions as ``t.index_put_`` does)."""
    Tensor = _CLASS["Tensor"]
    for op in {id(op): op for op in OPDEFS.values()}.values():
        module = sys.modules.get(op.home) if op.kind is not None and op.home else None
        if module is None:
            continue
        space = vars(module)
        for name in op.names:
            value = space.get(name)
            if (not isinstance(value, types.FunctionType) or _is_entry(value)
                    or getattr(value, "__guards__", None) is not None or _guards_itself(value, name)):
                continue
            entry = face.get(name)
            if getattr(entry, "__wrapped__", None) is not value:
                method = Tensor.__dict__.get(name)
                entry = method if name.endswith("_") and getattr(method, "__inplace_of__", None) is value \
                    else guard_function(value, name, op=op, key=name)
            space[name] = entry
            if face.get(name) is value:
                face[name] = entry


# in-place methods that report themselves at their boundary: resize_ reports the memory it grew
# ("alloc") and nothing when it shrinks; the in-place views (ops.inplace_views) their new layout
_SELF_REPORTING = {"resize_", "resize_as_", "t_", "transpose_", "swapdims_", "swapaxes_", "squeeze_", "unsqueeze_",
                   "as_strided_", "set_"}


def _write_name(name: str) -> str | None:
    """The record name of the in-place method ``name``: ``add_``; ``__iadd__`` is ``add_`` (its
    operator's op), ``__setitem__`` is ``setitem``; None for one that reports itself."""
    if name in _SELF_REPORTING:
        return None
    if name == "__setitem__":
        return "setitem"
    if name.startswith("__i"):
        op = OPDEFS.get(f"__{name[3:-2]}__")
        return (op.name if op is not None else name[3:-2]) + "_"
    return name


class _InstalledMethodsDoc:
    """A class's docstring followed by :func:`installed_methods`' list, made on its first read
    (``Tensor.__doc__``, ``help(strided.Tensor)``): the list took ~1 ms of ``import strided``,
    which few programs read. CPython's ``type.__doc__`` calls the ``__get__`` of a descriptor
    stored as a heap type's ``__doc__`` (an instance's ``__doc__`` finds it on the class), so
    every reader gets the same string an eager assignment gave.

    >>> strided.Tensor.__doc__.splitlines()[0] == strided.ones(1).__doc__.splitlines()[0]
    True
    """

    __slots__ = ("_own", "_cls", "_text")

    def __init__(self, own: str, cls: type) -> None:
        self._own, self._cls, self._text = own, cls, None

    def __get__(self, instance: Any, owner: type | None = None) -> str:
        if self._text is None:  # (two threads reading first make equal strings)
            self._text = f"{self._own.rstrip()}\n\n{textwrap.indent(installed_methods(self._cls), '    ')}\n"
        return self._text


def installed_methods(cls: type) -> str:
    """The methods and properties that modules above ``cls``'s own installed on it, as a list
    for its docstring: one line per module, the names sorted (``finish`` appends it to
    ``Tensor.__doc__``, so the list is read off the finished class, never maintained by hand).

    >>> print(installed_methods(strided.Tensor).splitlines()[0])
    - :mod:`strided.array_api`: ``__array_namespace__``, ``to_device``.
    """
    by_module: dict[str, list[str]] = {}
    for name, value in vars(cls).items():
        fn = getattr(value, "fget", value)
        where = getattr(fn, "__module__", None)
        if not callable(fn) or where in (None, cls.__module__, "builtins"):
            continue
        by_module.setdefault(where, []).append(name)
    lines = []
    for module, names in sorted(by_module.items()):
        listed = ", ".join(f"``{n}``" for n in sorted(names))
        lines.append("\n  ".join(_wrap(f"- :mod:`{module}`: {listed}.", 96)))
    return "\n".join(lines)


def _wrap(text: str, width: int) -> list[str]:
    """``textwrap.wrap(text, width)`` for a line of words joined by single spaces: filled
    greedily (textwrap's regular expressions were most of the cost of this docstring at import);
    textwrap itself where its rules differ (a word with a hyphen, or longer than ``width``).

    >>> _wrap("- a bb ccc", 6) == textwrap.wrap("- a bb ccc", 6)
    True
    """
    words = text.split(" ")
    if any(len(w) > width or "-" in w[1:] or not w for w in words):
        return textwrap.wrap(text, width)
    lines, line = [], words[0]
    for word in words[1:]:
        if len(line) + 1 + len(word) <= width:
            line += " " + word
        else:
            lines.append(line)
            line = word
    lines.append(line)
    return lines


def grad_zeros(shape: tuple[int, ...], dtype: Any) -> Any:
    """A new contiguous zero tensor of ``shape`` and ``dtype``, memory of its own: the canvas the
    backward rules scatter or add a gradient into (``np.zeros`` asks the allocator for zeroed
    pages: no fill pass).

    >>> grad_zeros((2, 3), strided.float64).sum().item()
    0.0
    """
    return adopted(np.zeros(L.product(shape), dtype.numpy), L.Layout._trusted(shape, L.contiguous_strides(shape), 0),
                   dtype)


def linear(name: str, g: Any, apply: Callable[[Any], Any], adjoint: Callable[[Any], Any]) -> Any:
    """``apply(g)``, a map linear in ``g`` computed with raw kernels (NumPy, not recorded), made
    differentiable: when ``g`` is in the graph and grad mode is on (a backward rule run with
    ``create_graph=True``) the result gets the node ``name`` whose gradient is ``adjoint(gg)``
    (the transposed map, written with recording ops or with :func:`linear` again, so every order
    of derivative is there). Otherwise ``apply(g)`` alone: first-order backward pays one slot test.

    >>> linear("Twice", strided.ones(2), lambda g: g * 2, lambda gg: gg * 2)
    tensor([2., 2.])
    """
    if g._ag is None or not GRAD_MODE.get():
        return apply(g)
    return _slow(apply, lambda out, g: (name, (g,), lambda gg: (adjoint(gg),), ()), (g,), {})


def not_differentiable(result: Any, name: str, inputs: tuple, message: str | None = None) -> Any:
    """``result`` (a gradient computed with raw kernels from ``inputs``) as PyTorch gives a
    backward without a derivative formula: under ``create_graph`` (grad mode on, an input in the
    graph) it gets a node that raises PyTorch's ``NotImplementedError`` ("the derivative for
    '<name>' is not implemented.") when differentiated, instead of a silently missing term.
    ``message``: a RuntimeError of that text instead (PyTorch's ``DelayedError`` node: a formula
    that holds for the first derivative but not for the second, as index_reduce's prod).

    >>> not_differentiable(strided.ones(2), "_cdist_backward", ()).requires_grad
    False
    """
    Tensor = _CLASS["Tensor"]
    if not GRAD_MODE.get() or not any(isinstance(t, Tensor) and t._ag is not None for t in inputs):
        return result

    def refuse(*_: Any) -> tuple:
        if message is not None:
            raise StridedRuntimeError(message)
        raise StridedNotImplementedError(f"the derivative for '{name}' is not implemented.")

    return _slow(lambda *_: result, lambda out, *args: ("NotImplemented", args, refuse, ()), tuple(inputs), {})


def scatter_into_view(shape: tuple, g: Any, take_view: Callable[[Any], Any], name: str = "ViewScatterBackward0") -> Any:
    """A zero tensor of ``shape`` with ``g`` added into ``take_view(it)`` (overlaps accumulate).
    Differentiable (:func:`linear`, node ``name``): its gradient is ``take_view`` of the incoming one.

    >>> scatter_into_view((3,), strided.ones(1), lambda z: z[1:2])
    tensor([0., 1., 0.])
    """
    return linear(name, g, lambda g: _scatter_raw(shape, g, take_view), take_view)


def restrided(g: Any, src: L.Layout, dst: L.Layout, counted: L.Layout, n: int) -> Any:
    """``g`` (read as laid out by ``src`` over a storage of ``n`` elements) added into a zero
    buffer of that storage, each element divided by the number of times ``counted`` reads it
    where that layout overlaps, read back through ``dst``: as_strided's backward (``src`` the
    output's layout, ``dst`` and ``counted`` the input's), and the in-place-on-a-view gradient's
    moves between a base and its view. Its transpose is the same map from ``dst`` to ``src``,
    so it is differentiable to any order (:func:`linear`).

    >>> lay = L.Layout.contiguous((3,))
    >>> restrided(strided.ones(1), L.Layout._trusted((1,), (1,), 2), lay, lay, 3)
    tensor([0., 0., 1.])
    """

    def apply(g: Any) -> Any:
        buf = np.zeros(n, dtype=g._dtype.numpy)
        np.add.at(buf, flat_indices(src), g._np())
        if L.overlaps(counted.shape, counted.strides) is not False:
            count = np.zeros(n, dtype=buf.dtype)
            np.add.at(count, flat_indices(counted), 1)
            buf = np.divide(buf, count, out=np.zeros_like(buf), where=count > 0)
        return adopted(np.ascontiguousarray(buf[flat_indices(dst)]).reshape(-1),
                       L.Layout._trusted(dst.shape, L.contiguous_strides(dst.shape), 0), g._dtype)

    return linear("AsStridedBackwardBackward0", g, apply, lambda gg: restrided(gg, dst, src, counted, n))


def scatter_pieces(shape: tuple, pieces: list[tuple[Any, Callable[[Any], Any]]], name: str) -> Any:
    """The sum of :func:`scatter_into_view` of each ``(g, take_view)`` of ``pieces``: the gradient
    of an input cut into pieces (split, unbind, tensor_split), differentiable, for create_graph
    (the first-order rules add into one canvas instead)."""
    total = None
    for g, take_view in pieces:
        placed = scatter_into_view(shape, g, take_view, name)
        total = placed if total is None else total + placed
    return total


def _scatter_raw(shape: tuple, g: Any, take_view: Callable[[Any], Any]) -> Any:
    z = grad_zeros(shape, g._dtype)
    v = take_view(z)
    lay = v._layout
    if L.overlaps(lay.shape, lay.strides) is False:
        # (written, not added, as PyTorch's slice/select/diagonal_backward copy_ g into zeros:
        # +0.0 + -0.0 would lose g's -0.0)
        v._np()[...] = g._np()
    else:
        np.add.at(z._storage.array, flat_indices(lay), g._np())
    return z


def flat_indices(lay: L.Layout) -> np.ndarray:
    """The storage index of every element of ``lay`` (an int64 array of its shape)."""
    idx = np.full(lay.shape, lay.offset, dtype=np.int64)
    for d, (n, s) in enumerate(zip(lay.shape, lay.strides)):
        shape = [1] * len(lay.shape)
        shape[d] = n
        idx = idx + (np.arange(n, dtype=np.int64) * s).reshape(shape)
    return idx


def sum_to(g: Any, shape: tuple, node: Any = None, i: int = 0) -> Any:
    """``g`` summed down to ``shape`` (the dims a broadcast added or stretched).

    >>> sum_to(strided.ones(2, 3), (1, 3))
    tensor([[2., 2., 2.]])
    """
    gs = g._layout.shape
    if gs == shape:
        return g
    lead = len(gs) - len(shape)
    if lead < 0 or any(s != 1 and s != gs[lead + k] for k, s in enumerate(shape)):
        name = node.name() if node is not None else "backward"
        where = f"input {i} of {name}" if node is not None else "the target"
        raise StridedRuntimeError(
            f"Function {name} returned an invalid gradient at index {i} - got "
            f"{list(gs)} but expected shape compatible with {list(shape)} ({where})")
    dims = tuple(range(lead)) + tuple(lead + k for k, s in enumerate(shape) if s == 1 and gs[lead + k] != 1)
    if len(dims) == 1 and g._ag is None:
        # one dim (a bias's gradient): summed over the int dim, which takes the reductions' fast
        # path; the same reduction and values as over the tuple (a gradient outside autograd
        # records no node, so the spelling of the dim is seen nowhere)
        g = g.sum(dims[0], keepdim=True)
    elif dims:
        g = g.sum(dims, keepdim=True)
    if lead:
        g = g.reshape(shape)
    return g
