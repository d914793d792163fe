"""The backward graph: a tensor's autograd record (:class:`Meta`), the nodes (:class:`Node`,
:class:`AccumulateGrad`), saved tensors with their versions, and the grad mode.

A tensor outside autograd has ``_ag is None``. A leaf that requires grad has a Meta with
``requires_grad`` and no ``grad_fn``; a result computed from it has a Meta whose ``grad_fn`` is
the Node that made it (``output_nr`` says which of that node's outputs it is). A Node knows the
edges to its inputs' nodes (``next_functions``, as PyTorch spells them: ``(node, output_nr)``
pairs, ``(None, 0)`` for an input that needs no gradient) and a backward rule mapping the
gradient of its output to the gradients of its inputs.

>>> x = strided.ones(3, requires_grad=True); y = (x * 2).sum()
>>> y.grad_fn, y.grad_fn.next_functions
(<SumBackward0 object at ...>, ((<MulBackward0 object at ...>, 0),))
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from types import FunctionType
from typing import Any

import numpy as np

from ..dispatch import result
from ..dtypes import tensor_type_text
from ..errors import StridedRuntimeError, join_lines
from ..grad_mode import (
    _OWN,
    _VDATA,
    GRAD_MODE,
    Meta,
    SavedLater,
    _own_record,
    bump,
    is_grad_enabled,
    last_write,
    meta,
    own_counter,
    requires_grad,
    unwatch,
    version,
    watch,
)
from ..kernels.native import _compiled

# Grad mode, the version counters and the tensor record live below the ops (strided.grad_mode),
# so the ops' entries, the factories and nn.functional need nothing from this layer; re-exported
# here for the rest of autograd.

__all__ = ["GRAD_MODE", "AccumulateGrad", "Meta", "Node", "bump", "edge", "is_grad_enabled", "last_write", "meta",
           "requires_grad", "version"]


# ---------------------------------------------------------------- tensor records


def edge(t: Any) -> tuple[Node | None, int]:
    """The edge from a consumer of ``t`` to ``t``'s producer: (grad_fn, output_nr), or
    (AccumulateGrad, 0) for a leaf that requires grad, or (None, 0)."""
    m = t._ag
    if m is None:
        return (None, 0)
    if m.grad_fn is not None:
        if m.view_version is not None and m.view_version != version(t):
            regenerate_view(t)
        return (m.grad_fn, m.output_nr)
    if m.requires_grad:
        if m.creation is not None:  # a view made under no_grad of a tensor in the graph (see mode_view_error)
            if m.view_version is not None and m.view_version != version(t):
                raise mode_view_error(t, indirect=True)
            if not getattr(m, "own", False):
                return (None, 0)  # (PyTorch: it requires grad through its base, but has no grad accumulator)
            # (its own requires_grad_(True): PyTorch gives it its own accumulator, v.grad)
        acc = m.acc() if m.acc is not None else None  # (one call of the weak reference)
        if acc is None:
            acc = AccumulateGrad.of(t)
            m.acc = weakref.ref(acc)
        return (acc, 0)
    return (None, 0)


# ---------------------------------------------------------------- views whose base was written


def regenerate_view(t: Any) -> None:
    """``t`` is a view whose storage was written in place after its history was recorded: its
    history becomes an ``AsStridedBackward0`` of its base's current history (PyTorch regenerates
    a view's grad_fn the same way), so gradients through it reach the base's new history.

    An output of a function returning several views (``unbind``, ``split``), or a view of one,
    has no such history in PyTorch: its ``handle_view_on_rebase`` (indirect) raises when the
    view's history is asked for after its base or another view of it was written, so here too
    (before, strided regenerated it and went on where PyTorch refuses)."""
    m = t._ag
    if m.creation in MODE_CREATIONS:
        raise mode_view_error(t, indirect=True)
    if m.creation == "multi_output":
        raise StridedRuntimeError(join_lines(
            f"Output {m.output_nr} of {_short(m.grad_fn.name()) if m.grad_fn is not None else 'a view function'} "
            "is a view and its base or another view of its base has been modified inplace. This view is the "
            "output of a function that returns multiple views. Such functions do not allow the output views to "
            "be modified inplace. You should replace the inplace operation by an out-of-place one.",
            f"this view (shape {t._layout.shape}) is one of several that one op returned over the same memory, "
            "and its memory was written in place since",
            "fix: pieces = [p.clone() for p in pieces] before writing the base, or write out of place"))
    m.view_version = version(t)
    base = t._base
    if base is not None and requires_grad(base):
        m.grad_fn = view_node(t, base)
        m.output_nr = 0


# A view's ``creation`` when it was made under a grad mode that records nothing (PyTorch's
# CreationMeta NO_GRAD_MODE / INFERENCE_MODE), and that mode's words in PyTorch's errors.
MODE_CREATIONS = {"no_grad": ("no_grad mode", "with grad mode enabled", "no_grad"),
                   "inference_mode": ("inference mode", "in normal mode", "inference_mode")}


def mode_view_error(t: Any, indirect: bool) -> StridedRuntimeError:
    """PyTorch's handle_view_on_rebase for a view made under no_grad or inference_mode from a
    tensor in the graph (or a view of such a view, which has a grad_fn): written in place with
    grad mode on (``indirect`` False), or used after its base or another view of it was written
    (``indirect``). Its history is ambiguous (the write was, or was not, to be recorded), so
    PyTorch refuses, and strided with it: recording nothing would make the base's gradient
    silently miss the write."""
    m = t._ag
    made, mode_on, block = MODE_CREATIONS[m.creation]
    fn = m.grad_fn
    head = (f"Output {m.output_nr} of {_short(fn.name())} is a view of a view which was created in {made}"
            if fn is not None else f"A view was created in {made}")
    what = "its base or another view of its base has been modified inplace" if indirect else \
        "is being modified inplace"
    return StridedRuntimeError(join_lines(
        f"{head} and {what} {mode_on}. Given that this use case is ambiguous and error-prone, it is forbidden. "
        f"You can clarify your code by moving both the view and the inplace either both inside the {block} block "
        "(if you don't want the inplace to be tracked) or both outside (if you want the inplace to be tracked).",
        f"this view (shape {t._layout.shape}) was made under strided.{block}() from a tensor in the graph"
        + (", and its memory was written in place since" if indirect else
           ": the write would record nothing, and the base's gradient would silently miss it"),
        f"fix: make the view and write it both under strided.{block}(), or both outside it; "
        "or write a clone: v = v.clone()"))


def view_node(view: Any, base: Any) -> Node:
    """The ``AsStridedBackward0`` node of ``view`` over ``base``'s history: the gradient is added
    at the view's elements into a zero buffer the size of the storage, and handed on as the
    base's layout over that buffer (a view of it: nothing more is copied)."""
    vl, bl = view._layout, base._layout
    n = base._storage.array.shape[0]
    reals = base._dtype.is_complex and not view._dtype.is_complex  # real, imag, view_as_real of a complex base: the
    if reals:  # view's layout counts the base's reals; the base's gradient is view_as_complex of theirs
        from .. import layout as L

        bl = L.Layout._trusted(bl.shape + (2,), tuple(2 * s for s in bl.strides) + (1,), 2 * bl.offset)
        n *= 2
    cview = view._dtype.is_complex and not base._dtype.is_complex  # view_as_complex of a real base
    if cview:  # the move runs on the view's reals
        from .. import layout as L

        vl = L.Layout._trusted(vl.shape + (2,), tuple(2 * s for s in vl.strides) + (1,), 2 * vl.offset)

    def rule(g: Any) -> tuple:
        if cview:
            from ..ops.elementwise.complex_ops import view_as_real

            g = view_as_real(g)
        if g._ag is not None and GRAD_MODE.get():  # create_graph: the same move, recorded
            from ..gradients import restrided

            gb = restrided(g, vl, bl, bl, n)
        else:
            gb = scatter_layout(g, vl, bl, n)
        if reals:
            from ..ops.elementwise.complex_ops import view_as_complex

            gb = view_as_complex(gb)
        return (gb,)

    node = Node("AsStridedBackward0", rule, (edge(base),))
    node.ctx = ((base._layout.shape, base._dtype),)
    return node


def scatter_layout(g: Any, vl: Any, bl: Any, n: int, add: bool = True) -> Any:
    """``g`` (laid out as ``vl`` over a storage of ``n`` elements) written into a zero buffer of
    ``n`` elements, returned as the layout ``bl`` over it. Elements ``vl`` reads twice accumulate."""
    from .. import layout as L
    from ..gradients import flat_indices

    z = result((n,), g._dtype)
    arr = z._storage.array
    arr[...] = 0
    if L.overlaps(vl.shape, vl.strides) is False:
        z.as_strided(vl.shape, vl.strides, vl.offset)._np()[...] = g._np()
    else:
        np.add.at(arr, flat_indices(vl), g._np())
    return z.as_strided(bl.shape, bl.strides, bl.offset)


# ---------------------------------------------------------------- nodes


def _freed(*lines: str) -> StridedRuntimeError:
    """PyTorch's error for a node whose saved values a backward freed (run again, or read)."""
    return StridedRuntimeError(join_lines(
        "Trying to backward through the graph a second time (or directly access saved tensors "
        "after they have already been freed). Saved intermediate values of the graph are freed "
        "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
        "backward through the graph a second time or if you need to access saved tensors after "
        "calling backward.", *lines))


def _saved_names(node: Node) -> dict | None:
    """The node's ``saved_names`` (PyTorch's names of its saved values), None where unset."""
    try:
        return object.__getattribute__(node, "saved_names")
    except AttributeError:
        return None


class Node:
    """One backward step: ``name`` (PyTorch's, e.g. ``MulBackward0``), ``next_functions`` (an
    edge per differentiable input), ``rule(*grads) -> grads`` (a closure; one gradient per edge,
    None for none), ``ctx`` (each input's (shape, dtype), which the engine fits the gradients to)
    and ``saved`` (tensors the rule reads, with the version each had when saved, checked before
    the rule runs).

    After a backward without ``retain_graph`` a node that saved tensors drops its rule (and with
    it what the closure held) and refuses a second backward with PyTorch's error; a node that
    saved nothing (an add, a view) can run again, as in PyTorch.
    """

    __slots__ = ("_name", "next_functions", "rule", "ctx", "saved", "freed", "n_outputs",
                 "pre_hooks", "passed", "own_outputs", "saved_names", "__weakref__")

    def __init__(self, name: str, rule: Callable, next_functions: tuple, ctx: Any = None,
                 saved: tuple = (), n_outputs: int = 1, output: Any = None) -> None:
        self._name = name
        self.rule = rule
        self.next_functions = next_functions
        self.ctx = ctx
        self.saved = saved_entries(saved, output) if saved else ()
        self.freed = False
        self.n_outputs = n_outputs
        self.pre_hooks = None
        self.passed: list | None = None  # the layouts of the gradients it handed on in the last backward
        # (alias, output_nr) of each output the rule reads, held without its history (see unowned)
        self.own_outputs: tuple = ()

    def name(self) -> str:
        """PyTorch's name of this node's class (``MulBackward0``, ...)."""
        return self._name

    def __getattr__(self, attr: str) -> Any:
        """PyTorch's ``_saved_<name>`` attributes, for a node whose rule named its saved values
        (:func:`strided.gradients.named_saved`: ``saved_names``, a slot left unset by the other
        rules): a saved tensor (refused once a backward freed it, as PyTorch refuses) or a number.
        (Only reached where ordinary lookup fails: no cost to the node's other attributes.)"""
        if attr.startswith("_saved_"):
            names = _saved_names(self)
            found = names.get(attr[7:]) if names else None
            if found is not None:
                if not found[0]:
                    v = found[1]
                    return v.make(self) if v.__class__ is SavedLater else v
                if self.freed:
                    raise _freed(f"{self._name}.{attr} was freed by the first backward through it",
                                 "fix: y.backward(retain_graph=True), then read it")
                return self.saved[found[1]][0]
        raise AttributeError(f"'{self._name}' object has no attribute '{attr}'")

    def __dir__(self) -> list[str]:
        names = _saved_names(self)
        return sorted({*object.__dir__(self), *("_saved_" + k for k in (names or ()))})

    def register_hook(self, hook: Callable) -> None:
        """Not in this slice (PyTorch's Node.register_hook runs after the node)."""
        raise NotImplementedError("Node.register_hook is not supported yet; use Tensor.register_hook")

    def __repr__(self) -> str:
        return f"<{self._name} object at {id(self):#x}>"

    def _repr_html_(self) -> str:
        """Jupyter's rich display: the backward graph from this node, pictured (``graph_svg``)."""
        from .graph_picture import graph_svg

        return f'<div class="strided-html strided-graph">{graph_svg(self)}</div>'

    def apply(self, grads: list) -> tuple:
        """The rule on the gradients of this node's outputs: the gradients of its inputs."""
        if self.freed:
            raise _freed(f"{self._name} saved tensors for its backward; the first backward through it freed them",
                         "fix: y.backward(retain_graph=True) the first time, or recompute y")
        if _VDATA or _OWN:
            for t, v, is_output in self.saved:
                now = version(t)
                if now != v:
                    raise modified_error(self, t, v, now, is_output)
        else:  # (no storage written in place is alive, no .data counter: every version now is 0)
            for t, v, is_output in self.saved:
                if v:
                    raise modified_error(self, t, v, 0, is_output)
        if self.own_outputs and GRAD_MODE.get():
            # create_graph: the rule's ops record, and what they compute from a saved output must
            # flow back through this node (PyTorch's SavedVariable unpack gives the output its
            # grad_fn back). The alias keeps it: a graph built for a higher order holds a cycle,
            # which the cyclic GC frees (only create_graph graphs pay this).
            for alias, nr in self.own_outputs:
                if alias._ag is None:
                    alias._ag = Meta(grad_fn=self, output_nr=nr)
        return self.rule(grads[0]) if len(grads) == 1 else self.rule(*grads)

    def release(self) -> None:
        """Free what the rule needed (backward without retain_graph)."""
        if self.saved:
            if _VDATA or _OWN:  # (writes to those storages need not remember their line for this node)
                unwatch(self.saved)
            self.freed = True
            self.saved = ()
            self.rule = None
            self.own_outputs = ()

    def register_prehook(self, hook: Callable) -> None:
        if self.pre_hooks is None:
            self.pre_hooks = []
        self.pre_hooks.append(hook)


def saved_entries(saved: tuple, output: Any) -> tuple:
    """A node's ``saved`` for the tensors ``saved`` (not empty): (tensor, its version now, whether
    it is the node's own output ``output``, which the recorder passes when the op has one
    differentiable output) for each; each tensor's storage is watched from now on (the node's
    :meth:`Node.release` lets it go), so that a write to it remembers the user's line for the
    modified-saved-tensor error (:func:`strided.grad_mode.bump`)."""
    if not (_VDATA or _OWN):  # (no storage written in place yet, no .data: every version is 0, no record)
        if len(saved) == 1:
            t = saved[0]
            return ((t, 0, t is output),)
        return tuple([(t, 0, t is output) for t in saved])
    if len(saved) == 1:  # (the common case: no list)
        t = saved[0]
        return ((t, watch(t), t is output),)
    return tuple([(t, watch(t), t is output) for t in saved])


_alloc = object.__new__


def new_node(cls: type, name: str, rule: Callable | None, next_functions: tuple, ctx: Any, saved: tuple) -> Node:
    """``cls(name, rule, next_functions, ctx)`` (Node or a subclass, its ``__init__`` not run) with
    ``saved`` already its entries (:func:`saved_entries`, or ``()``), one output, nothing else set:
    the node a recorder makes for every op. Where the copy kernel is built the name is its
    ``new_node``, which sets the same slots in C (this body is the reference and the fallback)."""
    node = _alloc(cls)
    node._name = name
    node.rule = rule
    node.next_functions = next_functions
    node.ctx = ctx
    node.saved = saved
    node.freed = False
    node.n_outputs = 1
    node.pre_hooks = None
    node.passed = None
    node.own_outputs = ()
    return node


def new_meta(grad_fn: Node) -> Meta:
    """``Meta(False, grad_fn)``: the record of an op's result (output 0 of ``grad_fn``). Where the
    copy kernel is built the name is its ``new_meta`` (the same slots, set in C)."""
    m = _alloc(Meta)
    m.requires_grad = False
    m.grad = None
    m.grad_fn = grad_fn
    m.output_nr = 0
    m.retains_grad = False
    m.hooks = None
    m.acc = None
    m.view_version = None
    m.creation = None
    return m


_new_node_python, _new_meta_python = new_node, new_meta
_RECORDS = _compiled("_copykernel")
if _RECORDS is not None and hasattr(_RECORDS, "new_node"):  # (an older build lacks it: the Python bodies)
    _RECORDS.node_types(Node, Meta)
    new_node = _RECORDS.new_node  # noqa: F811 - the same objects, made in C (see new_node's doc)
    new_meta = _RECORDS.new_meta  # noqa: F811


def unowned(t: Any) -> Any:
    """An alias of ``t`` (its storage, layout and dtype: the same values and the same version
    counter) without ``t``'s autograd record, for a node that saves its own output.

    PyTorch's SavedVariable rule: a saved output must not own its grad_fn, or tensor -> grad_fn ->
    saved -> tensor is a reference cycle, and a graph dropped without backward (an eval loop
    without no_grad) lives until the cyclic GC runs. The alias's base is ``t``'s base, never ``t``.
    """
    a = object.__new__(t.__class__)
    a._storage = t._storage
    a._layout = t._layout
    a._dtype = t._dtype
    a._base = t._base
    a._ag = None
    if _OWN and t._base is None:  # (a root with a counter of its own, x.data's: the alias reads it too)
        rec = _own_record(t)
        if rec is not None:
            own_counter(a, rec)
    return a


def release_outputs(node: Node, outputs: Any) -> None:
    """Make ``node`` hold none of ``outputs`` (the tensors it made) strongly: each one its rule
    closes over (directly, inside a tuple or list, or in a nested closure) or saved for the
    version check is swapped for its :func:`unowned` alias (PyTorch's SavedVariable of an output).
    (No nested recursive closure here: one would be a cycle itself, garbage with the GC off.)"""
    swap = {id(t): (t, nr) for nr, t in enumerate(outputs) if t is not None and hasattr(t, "_layout")}
    if not swap:
        return
    aliases: dict[int, Any] = {}
    swap_held(node, swap, aliases)
    node.own_outputs = tuple((alias, swap[key][1]) for key, alias in aliases.items())


def swap_held(node: Node, swap: dict, aliases: dict, make: Callable[[Any], Any] | None = None) -> None:
    """Replace each tensor of ``swap`` (id -> (tensor, nr)) that ``node`` holds, in its rule's
    closures (nested closures too) and in its saved tensors, by its alias: ``aliases[id]``, made on
    first use by ``make`` (default :func:`unowned`). (No nested recursive closure here: one would
    be a cycle itself, garbage with the GC off.)"""
    if node.rule is not None:
        stack, seen = [node.rule], set()
        while stack:
            fn = stack.pop()
            if id(fn) in seen:
                continue
            seen.add(id(fn))
            for cell in getattr(fn, "__closure__", None) or ():
                try:
                    value = cell.cell_contents
                except ValueError:  # (an empty cell)
                    continue
                new = _swapped(value, swap, aliases, make)
                if new is not value:
                    cell.cell_contents = new
                elif callable(value) and getattr(value, "__closure__", None):
                    stack.append(value)
    if node.saved:
        node.saved = tuple((_swapped(t, swap, aliases, make), v, o) for t, v, o in node.saved)


_ATOMS = frozenset((int, float, bool, complex, str, type(None)))  # (what a closure cell holds most)


def release_output(node: Node, out: Any) -> None:
    """:func:`release_outputs` for the one output ``out`` (most ops): the same swaps, with
    identity tests in place of the id tables (this runs once per recorded op)."""
    alias = None
    rule = node.rule
    if rule is not None:
        tensor_class = out.__class__
        stack: list = [rule]
        seen: set | None = None  # (the closures queued so far, made at the first nested one)
        while stack:
            fn = stack.pop()
            # (a plain function's closure read directly: getattr with a default costs more)
            closure = fn.__closure__ if fn.__class__ is FunctionType else getattr(fn, "__closure__", None)
            if closure is None:
                continue
            for cell in closure:
                try:
                    value = cell.cell_contents
                except ValueError:  # (an empty cell)
                    continue
                if value is out:
                    if alias is None:
                        alias = unowned(out)
                    cell.cell_contents = alias
                elif value.__class__ is tensor_class or value.__class__ in _ATOMS:
                    continue  # (another tensor, a number, a name: holds no output)
                elif isinstance(value, (tuple, list)):
                    if any(v is out for v in value):  # (rare: the general swap, nested items too)
                        aliases = {} if alias is None else {id(out): alias}
                        cell.cell_contents = _swapped(value, {id(out): (out, 0)}, aliases)
                        alias = aliases[id(out)]
                elif callable(value) and getattr(value, "__closure__", None):
                    if seen is None:
                        seen = {id(rule)}
                    if id(value) not in seen:  # (each closure walked once: a cycle ends here)
                        seen.add(id(value))
                        stack.append(value)
    saved = node.saved
    if saved:
        if len(saved) == 1:  # (most rules that save their output save it alone: no tuple walk)
            t, v, o = saved[0]
            if t is out:
                if alias is None:
                    alias = unowned(out)
                node.saved = ((alias, v, o),)
        else:
            for t, _, _ in saved:
                if t is out:
                    if alias is None:
                        alias = unowned(out)
                    node.saved = tuple([(alias if t is out else t, v, o) for t, v, o in saved])
                    break
    if alias is not None:
        node.own_outputs = ((alias, 0),)


def release_defaults(node: Node, out: Any) -> None:
    """:func:`release_output`'s swap in the default arguments of the functions of ``node``'s rule
    (``lambda g, o=out: ...`` holds ``out`` in ``__defaults__``, not in a cell), walking the rule
    and the functions its closures and defaults hold. Run after :func:`release_output`, only for a
    rule maker whose code makes functions with defaults (decided once per code object)."""
    alias = node.own_outputs[0][0] if node.own_outputs else None
    stack, seen = [node.rule], set()
    while stack:
        fn = stack.pop()
        if id(fn) in seen or fn.__class__ is not FunctionType:
            continue
        seen.add(id(fn))
        stack += [v for v in _held(fn) if v.__class__ is FunctionType]
        if fn.__defaults__ and any(v is out for v in fn.__defaults__):
            alias = alias if alias is not None else unowned(out)
            fn.__defaults__ = tuple(alias if v is out else v for v in fn.__defaults__)
        if fn.__kwdefaults__ and any(v is out for v in fn.__kwdefaults__.values()):
            alias = alias if alias is not None else unowned(out)
            fn.__kwdefaults__ = {k: alias if v is out else v for k, v in fn.__kwdefaults__.items()}
    if alias is not None and not node.own_outputs:
        node.own_outputs = ((alias, 0),)


def _held(fn: Any) -> list:
    """What the function ``fn`` holds: its closure cells' values (an empty cell skipped) and its
    default arguments."""
    held = []
    for cell in fn.__closure__ or ():
        try:
            held.append(cell.cell_contents)
        except ValueError:  # (an empty cell)
            continue
    return held + list(fn.__defaults__ or ()) + list((fn.__kwdefaults__ or {}).values())


def _swapped(value: Any, swap: dict, aliases: dict, make: Callable[[Any], Any] | None = None) -> Any:
    """``value`` with each output of ``swap`` (id -> (tensor, nr)) in it replaced by its alias
    (one alias per output, made on first use into ``aliases`` by ``make``, default :func:`unowned`)."""
    hit = swap.get(id(value))
    if hit is not None and hit[0] is value:
        alias = aliases.get(id(value))
        if alias is None:
            alias = aliases[id(value)] = (make or unowned)(value)
        return alias
    if isinstance(value, (tuple, list)) and any(id(v) in swap and swap[id(v)][0] is v for v in value):
        return type(value)(_swapped(v, swap, aliases, make) for v in value)
    return value


def modified_error(node: Node, t: Any, saved: int, now: int, is_output: bool = False) -> StridedRuntimeError:
    """PyTorch's error for a saved tensor written in place after it was saved, then in the
    tensor's own terms: which node saved it, which in-place write changed it (and where), the fix.

    As PyTorch, the tensor is named by the node that made it: the saving node itself for its own
    output, else the tensor's current ``grad_fn`` (nothing for a leaf), without ``Backward0``.
    """
    shape = ", ".join(map(str, t._layout.shape))
    m = t._ag
    maker = node if is_output else m.grad_fn if m is not None else None
    nr = 0 if is_output or m is None else m.output_nr
    what = f", which is output {nr} of {_short(maker._name)}," if maker is not None else ""
    write = last_write(t)
    by = f"the last write: {write[0]} at {write[1]}" if write else "written in place since"
    made = f"the output of {node._name}" if is_output else f"an input of {node._name}"
    return StridedRuntimeError(join_lines(
        "one of the variables needed for gradient computation has been modified by an inplace operation: "
        f"[{tensor_type_text(t._dtype.name)} [{shape}]]{what} is at version {now}; expected version "
        f"{saved} instead. Hint: enable anomaly detection to find the operation that failed to compute "
        "its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).",
        f"{node._name} saved this tensor ({made}, shape {t._layout.shape}) for its backward; then "
        f"{now - saved} in-place write(s) changed its storage, through it or a view sharing it ({by})",
        "fix: do that op out of place (y = y + 1, not y += 1 or y.add_(1)), or let the in-place op "
        "write into a copy: y = y.clone() first"))


def _short(name: str) -> str:
    """PyTorch's name of a node in this message: ``ExpBackward0`` -> ``Exp``, but ``EluBackward1`` ->
    ``Elu1`` (an overload's number other than 0 kept: measured, PowBackward1 / ClampBackward1 too)."""
    head = name.rstrip("0123456789")
    if not head.endswith("Backward"):
        return name
    number = name[len(head):]
    return head[: -len("Backward")] + ("" if number == "0" else number)


class AccumulateGrad(Node):
    """The node of a leaf that requires grad: the engine adds the incoming gradient into
    ``variable.grad`` (it holds the leaf weakly: the leaf owns the node's only strong reference)."""

    __slots__ = ("_leaf",)

    def __init__(self, leaf: Any) -> None:
        super().__init__("torch::autograd::AccumulateGrad", None, ())
        self._leaf = weakref.ref(leaf)

    @classmethod
    def of(cls, leaf: Any) -> AccumulateGrad:
        """``AccumulateGrad(leaf)``, made by :func:`new_node` (no ``__init__`` chain: a leaf's node
        is made again in every step that uses it, as the leaf holds it weakly)."""
        acc = new_node(cls, "torch::autograd::AccumulateGrad", None, (), None, ())
        acc._leaf = weakref.ref(leaf)
        return acc

    def __repr__(self) -> str:
        return f"<AccumulateGrad object at {id(self):#x}>"

    @property
    def variable(self) -> Any:
        return self._leaf()


if _RECORDS is not None and hasattr(_RECORDS, "acc_types") and new_node is not _new_node_python:
    # (the compiled edge of a leaf makes its AccumulateGrad as AccumulateGrad.of does)
    _RECORDS.acc_types(AccumulateGrad, "torch::autograd::AccumulateGrad")
