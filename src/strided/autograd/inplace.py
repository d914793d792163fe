"""In-place ops under autograd, as PyTorch does them.

Every in-place method (a name ending in ``_``, the ``__i*__`` operators, ``__setitem__``) is its
entry (:func:`strided.grad_mode.track_inplace`, made as ``import strided`` completes). Before
autograd is first used it is the plain write. After, :func:`_run_inplace` here:

- **version counting**: each write bumps the counter of the tensor's storage, shared by all its
  views (:func:`.graph.bump`, which remembers the op and the user's line for the error that a
  saved tensor was modified);
- **refusals**: a leaf that requires grad, or a view of one, may not be written in place while
  grad mode is on (PyTorch's two errors; the fix is ``strided.no_grad()`` or a clone);
- **a new history** when the target or an operand takes part in autograd. The out-of-place op
  gives the node (reading the target's old values with their old history: PyTorch's
  ``original_self``), then the real in-place write runs (with all its checks). A target that is
  not a view takes that node as its history. A target that is a **view** of a base makes the base's
  history a ``CopySlices`` node (PyTorch's): the base's gradient passes unchanged outside the view,
  and the op's rule turns it into the gradient of the view's old values inside it (and of the
  operands); the view's own history becomes an ``AsStridedBackward0`` of the base's. Other
  views of the same storage notice that their storage was written (their recorded version is
  stale) and regenerate their history the same way when next used (:func:`.graph.regenerate_view`).

``t[key] = v`` with a basic key is ``t[key].copy_(v)`` (a CopySlices on ``t``'s base); with an
advanced key it is PyTorch's ``index_put_`` (``IndexPutBackward0``).

>>> a = strided.ones(2, 3, requires_grad=True); b = a * 1
>>> _ = b[0].mul_(2); b.grad_fn.name()
'torch::autograd::CopySlices'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import layout as L
from ..args import index_key
from ..dispatch import copy_of
from ..errors import StridedRuntimeError, join_lines
from ..grad_mode import unwatch, watch
from ..gradients import BACKWARD, restrided
from ..indexing import AdvancedIndex, index_layout
from ..ops._support import gradtools
from ..tensor import Tensor
from . import graph as G
from .engine import fit
from .function import make_node
from .graph import GRAD_MODE, Meta, Node, edge, requires_grad

# The in-place operators and the out-of-place ops whose rules give their history.
_DUNDERS = {"__iadd__": "add", "__isub__": "sub", "__imul__": "mul", "__itruediv__": "div", "__ipow__": "pow",
            "__ifloordiv__": "floor_divide", "__imod__": "remainder"}

# In-place ops whose node never reads the target's old values: they read them through an alias
# (no copy). The others get a copy of the old values (PyTorch saves ``original_self`` the same way).
_NO_OLD_VALUES = {"add_", "sub_", "subtract_", "__iadd__", "__isub__", "neg_", "negative_", "zero_", "fill_", "copy_",
                  "masked_fill_", "index_put_", "__setitem__", "t_", "transpose_", "swapaxes_", "swapdims_",
                  "unsqueeze_", "squeeze_", "as_strided_", "uniform_", "normal_", "bernoulli_", "random_",
                  "exponential_", "geometric_", "cauchy_", "log_normal_", "eq_", "ne_", "not_equal_", "lt_",
                  "less_", "le_", "less_equal_", "gt_", "greater_", "ge_", "greater_equal_", "elu_", "leaky_relu_",
                  "rrelu_"}

# The in-place views (a new layout for the same tensor): PyTorch names their nodes apart from
# the out-of-place views' (TBackward1, not TBackward0).
_INPLACE_VIEW_NODES = {"t_": "TBackward1", "transpose_": "TransposeBackward1", "swapaxes_": "TransposeBackward1",
                       "swapdims_": "TransposeBackward1", "unsqueeze_": "UnsqueezeBackward1",
                       "as_strided_": "AsStridedBackward1",
                       # (not a view: derivatives.yaml gives polygamma_ its own entry, so its own node name)
                       "polygamma_": "PolygammaBackward1"}


# ---------------------------------------------------------------- the errors


def leaf_error(t: Tensor, op: str) -> StridedRuntimeError:
    return StridedRuntimeError(join_lines(
        "a leaf Variable that requires grad is being used in an in-place operation.",
        f"{op} would overwrite a tensor of shape {t._layout.shape} whose gradient autograd is collecting "
        "(a leaf: made with requires_grad=True)",
        "fix: write it under strided.no_grad() (a parameter update), or work on a copy: t = t.clone()"))


def view_of_leaf_error(t: Tensor, op: str) -> StridedRuntimeError:
    return StridedRuntimeError(join_lines(
        "a view of a leaf Variable that requires grad is being used in an in-place operation.",
        f"{op} would write through a view (shape {t._layout.shape}) into a leaf that requires grad",
        "fix: write under strided.no_grad(), or clone the leaf first and write into the clone"))


def _refuse_view_creation(t: Tensor, args: tuple, kwargs: dict) -> None:
    """PyTorch's handle_view_on_rebase: a view made under no_grad or inference_mode (or a view of
    one: :func:`.graph.mode_view_error`), or an output of a function
    returning several views (or a view of one), written in place with grad mode on while it, its
    base or an operand requires grad."""
    base = t._base
    if not (requires_grad(t) or (base is not None and base._ag is not None and requires_grad(base))
            or _operands_require_grad(args) or _operands_require_grad(kwargs.values())):
        return
    m = t._ag
    if m.creation in G.MODE_CREATIONS:
        raise G.mode_view_error(t, indirect=False)
    fn = m.grad_fn
    raise StridedRuntimeError(join_lines(
        f"Output {m.output_nr} of {G._short(fn.name()) if fn is not None else 'a view function'} is a view and is "
        "being modified inplace. This view is the output of a function that returns multiple views. Such functions "
        "do not allow the output views to be modified inplace. You should replace the inplace operation by an "
        "out-of-place one.",
        f"this view (shape {t._layout.shape}) is one of several that one op returned over the same memory, "
        "and autograd keeps one node for all of them",
        "fix: piece = piece.clone() first, or compute the new values out of place"))


def _no_rule_error(t: Tensor, op: str) -> StridedRuntimeError:
    return StridedRuntimeError(join_lines(
        f"{op} is not differentiable in place yet in strided's autograd",
        f"its target (shape {t._layout.shape}) or an operand requires grad, and {op.strip('_')} has no "
        "backward rule",
        "fix: compute out of place with differentiable ops, or write under strided.no_grad()"))


# ---------------------------------------------------------------- the in-place entry's slow path


def _operands_require_grad(values: Any) -> bool:
    for v in values:
        if isinstance(v, Tensor):
            if v._ag is not None and requires_grad(v):
                return True
        elif isinstance(v, (tuple, list)) and _operands_require_grad(v):
            return True
    return False


def autograd_base(t: Tensor) -> Tensor | None:
    """The tensor ``t`` is a view of for autograd (its storage's root), or None.

    A view is one for autograd when its history was recorded as a view of its base's, or when
    neither it nor its base takes part in autograd yet (an in-place write of a tensor that
    requires grad into it gives the base a history). A view made before
    its base required grad, is no view for autograd: its writes stay its own, as in PyTorch.
    """
    base = t._base
    if base is None:  # (a root; detach() makes one: its writes stay its own)
        return None
    m = t._ag
    if m is not None:
        return base if m.view_version is not None else None
    return base if base._ag is None or not requires_grad(base) else None


_RESIZES = ("resize_", "resize_as_")


def _count(t: Any, name: str, shape: tuple | None) -> None:
    """Count the in-place write ``name`` to ``t`` in its version. As in PyTorch, a resize_ that
    keeps the sizes (new strides included) is not counted, and resize_as_ is counted by the
    resize_ it runs (once, not twice)."""
    if name == "resize_as_" or (name == "resize_" and isinstance(t, Tensor) and t._layout.shape == shape):
        return
    G.bump(t, name, 4)  # (_count <- _run_inplace <- its caller, strided's: the next frame may be the user's)


def _run_inplace(fwd: Callable, name: str, self: Tensor, args: tuple, kwargs: dict) -> Any:
    """The in-place op ``fwd`` (``self.<name>(*args, **kwargs)``) once autograd has been used:
    PyTorch's checks, history rewrite and version counting (the module doc)."""
    if name in _RESIZES and isinstance(self, Tensor):
        shape = self._layout.shape
    if not isinstance(self, Tensor) or not GRAD_MODE.get():
        out = fwd(self, *args, **kwargs)
        _count(self, name, shape if name in _RESIZES else None)
        return out
    if name == "__setitem__" and args and args[0].__class__ is list:
        args = (index_key(args[0]), *args[1:])  # (PyTorch's reading of a list key, before the record sees it)
    if self._ag is not None and self._ag.creation is not None:
        _refuse_view_creation(self, args, kwargs)
    base = autograd_base(self)
    mine = self._ag is not None and requires_grad(self)
    base_grad = base is not None and base._ag is not None and requires_grad(base)
    theirs = _operands_require_grad(args) or _operands_require_grad(kwargs.values())
    if not (mine or base_grad or theirs):
        out = fwd(self, *args, **kwargs)
        _count(self, name, shape if name in _RESIZES else None)
        return out
    if mine and base is not None and (base._ag is None or base._ag.grad_fn is None):
        raise view_of_leaf_error(self, name)  # (PyTorch's test: a view that requires grad, of a leaf)
    if mine and self._ag.grad_fn is None:
        raise leaf_error(self, name)
    if name == "resize_" and mine:
        raise StridedRuntimeError(join_lines(
            "cannot resize variables that require grad",
            f"the tensor (shape {self._layout.shape}) is in the graph: its gradient keeps its shape",
            "fix: resize a detached copy (y.detach().clone().resize_(...)), or reshape out of place"))
    target, op, op_args = self, name, args
    if name == "__setitem__":
        key, value = args
        try:
            lay = index_layout(self._layout, key)
        except AdvancedIndex:
            op = "__setitem__"
        else:  # t[key] = v is t[key].copy_(v): a write through a view of t
            target, op = self._view(lay), "copy_"
            op_args = (_as_target_shape(value, lay.shape),)
            base = base if base is not None else self
    spec = _spec_maker(op, target)
    if base is None or op in _INPLACE_VIEW_NODES or op == "squeeze_":
        # (an in-place view changes no values: the base keeps its history, the view takes a new one)
        return _rewrite(target, self, fwd, name, spec, op_args, args, kwargs)
    return _rewrite_view(target, base, self, fwd, name, spec, op_args, args, kwargs)


def _as_target_shape(value: Any, shape: tuple) -> Any:
    """The value of ``t[key] = value`` as PyTorch's indexing copies it: leading size-1 dims
    dropped (a view), then expanded to the target's shape (its ExpandBackward0 shows in the graph)."""
    if not isinstance(value, Tensor) or value._layout.shape == shape:
        return value
    vs = value._layout.shape
    lead = 0
    while len(vs) - lead > len(shape) and vs[lead] == 1:
        lead += 1
    if lead:
        value = value.view(vs[lead:])
    return value.expand(shape) if value._layout.shape != shape else value


def _spec_maker(op: str, target: Tensor) -> Callable[..., tuple[Node | None, Tensor | None]]:
    """``node(old, *args, **kwargs) -> (node, new)``: the node of ``op`` applied out of place to
    ``old`` (the target's old values, carrying the history they had), and the out-of-place
    result (None for the ops without an out-of-place twin)."""
    special = _SPECIAL.get(op)
    if special is not None:
        return lambda old, *a, **k: (make_node(special(old, *a, **k)), None)
    if op in _TWIN_GIVEN:  # (the op's out-of-place twin is its one argument: twin(old) -> recorded result)
        method = _call_twin  # (an activation's in-place form passes it: strided.ops.elementwise.activations)
    else:
        outer = _DUNDERS.get(op) or op[:-1]
        if outer not in BACKWARD or not callable(getattr(Tensor, outer, None)):
            raise _no_rule_error(target, op)
        method = getattr(Tensor, outer)

    def node(old: Tensor, *a: Any, **k: Any) -> tuple[Node | None, Tensor | None]:
        new = method(old, *a, **k)
        m = new._ag if isinstance(new, Tensor) else None
        fn = None if m is None else m.grad_fn
        if fn is not None and (op in _INPLACE_VIEW_NODES or op == "squeeze_"):
            fn._name = _INPLACE_VIEW_NODES.get(op) or _squeeze_node(a, k)
        return fn, new

    return node


def _call_twin(old: Tensor, twin: Callable[[Tensor], Tensor]) -> Tensor:
    return twin(old)


# In-place ops whose caller passes their out-of-place twin as the one argument (an op module's
# private recording function, whose node PyTorch's in-place op records: elu_'s EluBackward1 and
# leaky_relu_'s LeakyReluBackward1, which read the result; threshold_'s ThresholdBackward1, which
# saves the original self): its node and result stand for the op's, as a method twin's do. The
# twin runs before the write: a node that reads the result gets an alias of the old values
# (_NO_OLD_VALUES), one that saves them a copy. None of these names is a Tensor method's.
_TWIN_GIVEN = {"elu_", "leaky_relu_", "rrelu_", "threshold_", "hardtanh_", "hardswish_", "hardsigmoid_", "silu_",
               "mish_"}


def _squeeze_node(args: tuple, kwargs: dict) -> str:
    dim = args[0] if args else kwargs.get("dim")
    return "SqueezeBackward3" if dim is None else "SqueezeBackward5" if isinstance(dim, (tuple, list)) else (
        "SqueezeBackward4")


def _old_values(t: Tensor, op: str, history: Meta | None) -> Tensor:
    """``t``'s values now, for the out-of-place op: an alias when the op's rule never reads
    them, else a copy (the copy ledger shows it), carrying ``history``."""
    if op in _NO_OLD_VALUES:
        old = t._view(t._layout)
    else:
        old = copy_of(t, L.contiguous_strides(t._layout.shape), f"{op}: the old values autograd reads")
    old._ag = history
    return old


def _rewrite(self: Tensor, raw: Tensor, fwd: Callable, name: str, spec: Callable, op_args: tuple, args: tuple,
             kwargs: dict) -> Any:
    """An in-place op on a tensor that is not a view: it takes the op's node as its history."""
    m = self._ag
    if m is not None and m.grad_fn is not None:
        edge(self)  # (a view whose storage was written since: its history regenerated first)
    history = None
    if m is not None and (m.grad_fn is not None or m.requires_grad):
        history = Meta(grad_fn=m.grad_fn, output_nr=m.output_nr)
        history.requires_grad = m.requires_grad
        history.acc = m.acc
    old = _old_values(self, name, history)
    node, new = spec(old, *op_args, **kwargs)
    out = fwd(raw, *args, **kwargs)  # the write itself, with all its checks (it may still refuse)
    G.bump(self, name, 4)  # (_rewrite <- _run_inplace <- its caller, strided's)
    if node is not None:
        _saved_as_target(node, new, self)
        _release_target(node, self)
        retains = m is not None and m.retains_grad
        self._ag = Meta(grad_fn=node)
        self._ag.retains_grad = retains
        if m is not None and m.view_version is not None:  # still a view of its base for autograd
            self._ag.view_version = G.version(self)
    return out


def _saved_as_target(node: Node, new: Tensor | None, target: Tensor) -> None:
    """Where the node saved its out-of-place result (``exp_`` saves the result), the saved
    version is the target's: the result's values are the target's now, and a later in-place
    write to the target must raise the modified-tensor error, as in PyTorch. (The rule reads
    ``new``, which no one writes; only the version check follows the target.)"""
    if new is None or not node.saved:
        return
    # (the node's own output is saved as an alias of it, never the tensor: see graph.unowned; an
    # alias of the target, whose history becomes this node, keeps that cycle-free as well)
    unwatch(tuple(e for e in node.saved if e[2]))  # (the result's storage: the target's is watched instead)
    node.saved = tuple((_alias_of_target(target), watch(target), True) if o else (t, v, o)
                       for t, v, o in node.saved)


def _alias_of_target(target: Tensor) -> Tensor:
    """:func:`.graph.unowned` of ``target`` whose ``_base`` is an unowned alias of the target's
    base too: after a write through a view the base's history is CopySlices, which holds this
    node, so an alias holding the base itself would be base -> CopySlices -> node -> alias -> base,
    a reference cycle. (Only values, layout, dtype and the version counter are read from it.)"""
    alias = G.unowned(target)
    if alias._base is not None:
        alias._base = G.unowned(alias._base)
    return alias


def _release_target(node: Node, target: Tensor) -> None:
    """Make ``node`` (the in-place op's node, which becomes ``target``'s history or its base's)
    hold ``target`` only through :func:`_alias_of_target`: an input of the op that is the target
    itself (``y.mul_(y)``, ``y.add_(y)``), saved or closed over by the rule, would otherwise be the
    reference cycle target -> history -> node -> target, and a graph dropped without backward
    would live until the cyclic GC runs (PyTorch's graphs are freed by reference counting).

    The alias has the target's values and version counter, so the version check still refuses a
    backward through a node that saved the target before writing it, with PyTorch's error."""
    G.swap_held(node, {id(target): (target, 0)}, {}, _alias_of_target)


def _rewrite_view(view: Tensor, base: Tensor, raw: Tensor, fwd: Callable, name: str, spec: Callable,
                  op_args: tuple, args: tuple, kwargs: dict) -> Any:
    """An in-place op on ``view`` (a view of ``base``): the base's history becomes CopySlices."""
    # The old values' history is the view's of the base's history before the write: CopySlices
    # applies the op's node itself (its first edge is never followed), but under create_graph a
    # rule that reads the old values (mul_'s other operand's gradient) differentiates through it.
    history = Meta(grad_fn=G.view_node(view, base)) if requires_grad(base) else None
    old = _old_values(view, name, history)
    fn, new = spec(old, *op_args, **kwargs)
    out = fwd(raw, *args, **kwargs)
    G.bump(view, name, 4)  # (_rewrite_view <- _run_inplace <- its caller, strided's)
    if fn is None:
        return out
    _saved_as_target(fn, new, view)
    _release_target(fn, view)
    cs = CopySlices(base, view, fn)
    retains = base._ag is not None and base._ag.retains_grad
    base._ag = Meta(grad_fn=cs)
    base._ag.retains_grad = retains
    if view is raw:  # the user's view: its history is now a view of the base's
        m = view._ag = Meta(grad_fn=G.view_node(view, base))
        m.view_version = G.version(view)
    return out


def _fitted_rest(grads: Any, ctx: tuple, fn: Node) -> list:
    """The gradients of the in-place op's other inputs (all but the view's old values), each fitted
    to its input (:func:`.engine.fit`)."""
    rest = []
    for i, g_i in enumerate(grads[1:], 1):
        meta = ctx[i] if i < len(ctx) else None
        rest.append(fit(g_i, meta[0], meta[1], fn, i) if g_i is not None and meta is not None else g_i)
    return rest


class CopySlices(Node):
    """PyTorch's CopySlices: the history of a base after an in-place op on a view of it.

    Its gradient is the base's, except inside the view, where the op's node (``fn``) turns the
    view's part of it into the gradient of the view's old values; the op's other inputs get what
    ``fn`` gives them. The node's first edge is the base's old history, the rest are ``fn``'s.
    """

    __slots__ = ("fn", "view_layout")

    def __init__(self, base: Tensor, view: Tensor, fn: Node) -> None:
        bl, vl = base._layout, view._layout
        n = base._storage.array.shape[0]
        ctx = fn.ctx or ()
        if base._dtype.is_complex and not view._dtype.is_complex:  # real, imag, view_as_real of a complex base: the view's
            # layout counts the base's reals; the moves run on view_as_real of the base's gradient
            from ..ops.elementwise.complex_ops import view_as_complex, view_as_real

            bl = L.Layout._trusted(bl.shape + (2,), tuple(2 * s for s in bl.strides) + (1,), 2 * bl.offset)
            n *= 2
            rule_of_reals = self._rule(bl, vl, n, ctx, fn)

            def rule(g: Tensor) -> tuple:
                gb, *rest = rule_of_reals(view_as_real(g))
                return (view_as_complex(gb), *rest)
        elif view._dtype.is_complex and not base._dtype.is_complex:  # view_as_complex of a real base:
            # the moves run on the view's reals, the op's node on view_as_complex of them
            from ..ops.elementwise.complex_ops import view_as_complex, view_as_real

            vl = L.Layout._trusted(vl.shape + (2,), tuple(2 * s for s in vl.strides) + (1,), 2 * vl.offset)
            rule = self._rule(bl, vl, n, ctx, fn, view_as_complex, view_as_real)
        else:
            rule = self._rule(bl, vl, n, ctx, fn)

        super().__init__("torch::autograd::CopySlices", rule, (edge(base), *fn.next_functions[1:]))
        self.ctx = ((base._layout.shape, base._dtype), *ctx[1:])
        self.fn = fn
        self.view_layout = vl

    @staticmethod
    def _rule(bl: Any, vl: Any, n: int, ctx: tuple, fn: Node, into: Callable = lambda t: t,
              back: Callable = lambda t: t) -> Callable[[Tensor], tuple]:
        # (into/back: the view's values as the op's node sees them and back, view_as_complex and
        # view_as_real where the view is view_as_complex of a real base, else the identity)
        def rule(g: Tensor) -> tuple:
            if GRAD_MODE.get():  # create_graph: the same, with recorded moves
                # (also for a g without history: the op's node may give its input's gradient a
                # history of its own, through a saved result: exp_'s g * result)
                return recorded(g)
            gb = G.scatter_layout(g, bl, bl, n)  # the base's gradient, in a buffer the size of its storage
            part = gb._view(vl)  # the view's elements in that buffer
            grads = fn.apply([into(part.clone())])
            first = grads[0] if grads else None
            if first is None:
                part._np()[...] = 0
            else:
                part._np()[...] = back(fit(first, ctx[0][0], ctx[0][1], fn, 0))._np()
            return (gb, *_fitted_rest(grads, ctx, fn))

        def recorded(g: Tensor) -> tuple:
            """The rule above, differentiable: the view's part of g read through the view's
            layout, the op's node applied to it, and g with that part replaced by the result
            (each move a :func:`~strided.gradients.restrided`, whose transpose is the other)."""
            part = restrided(g, bl, vl, bl, n)
            grads = fn.apply([into(part)])
            first = grads[0] if grads else None
            gb = g - restrided(part, vl, bl, bl, n)
            if first is not None:
                gb = gb + restrided(back(fit(first, ctx[0][0], ctx[0][1], fn, 0)), vl, bl, bl, n)
            return (gb, *_fitted_rest(grads, ctx, fn))

        return rule

    def release(self) -> None:
        self.fn.release()
        if self.fn.freed:
            self.freed = True
            self.rule = None

    def __repr__(self) -> str:
        return f"<CopySlices object at {id(self):#x}>"


# ---------------------------------------------------------------- the ops without an out-of-place twin
# Each returns the node's spec (name, inputs, backward, saved), PyTorch's names and formulas.


def _zeros_for(old: Tensor) -> Callable[[Tensor], Tensor]:
    shape = old._layout.shape
    return lambda g: gradtools.zeros(shape, g._dtype)  # a zero gradient: one element, expanded


def _copy(old: Tensor, src: Any, *args: Any, **kwargs: Any) -> tuple:
    zeros = _zeros_for(old)
    if not isinstance(src, Tensor):
        return "torch::autograd::CopyBackwards", (old, None), lambda g: (zeros(g), None), ()
    return "torch::autograd::CopyBackwards", (old, src), lambda g: (zeros(g), g), ()


def _zero(old: Tensor) -> tuple:
    zeros = _zeros_for(old)
    return "ZeroBackward0", (old,), lambda g: (zeros(g),), ()


def _fill(old: Tensor, value: Any) -> tuple:
    zeros = _zeros_for(old)
    if isinstance(value, Tensor):
        return "FillBackward3", (old, value), lambda g: (zeros(g), g.sum()), ()
    return "FillBackward2", (old,), lambda g: (zeros(g),), ()


def _floor_divide_(old: Tensor, other: Any) -> tuple:
    """PyTorch's in-place floor_divide_: no derivative, a ``NotImplemented`` node that raises
    naming the in-place op (``aten::floor_divide_``) when differentiated."""

    def refuse(g: Tensor) -> tuple:
        raise StridedRuntimeError("derivative for aten::floor_divide_ is not implemented")

    return "NotImplemented", (old, other), refuse, ()


def _floor_divide_out(old: Tensor, a: Any, b: Any) -> tuple:
    """``floor_divide(a, b, out=old)`` with an input that requires grad (PyTorch accepts it: no
    derivative, so no out= refusal): ``old`` takes a ``NotImplemented`` node whose backward raises."""

    def refuse(g: Tensor) -> tuple:
        raise StridedRuntimeError("derivative for aten::floor_divide is not implemented")

    return "NotImplemented", (a, b), refuse, ()


def _masked_fill(old: Tensor, mask: Tensor, value: Any) -> tuple:
    if isinstance(value, Tensor):
        return ("MaskedFillBackward1", (old, value),
                lambda g: (g.masked_fill(mask, 0), g.masked_fill(mask.logical_not(), 0).sum()), (mask,))
    return "MaskedFillBackward0", (old,), lambda g: (g.masked_fill(mask, 0),), (mask,)


def _index_put(old: Tensor, indices: Any, values: Any, accumulate: bool = False) -> tuple:
    key = gradtools.frozen_key(tuple(indices))

    def grads(g: Tensor) -> tuple:
        if accumulate:
            kept = g
        else:
            kept = g.clone()
            kept[key] = 0
        return kept, g[key]

    return "IndexPutBackward0", (old, values), grads, gradtools.key_tensors(key)


def _setitem(old: Tensor, key: Any, value: Any) -> tuple:
    """``t[key] = value`` with an advanced key: PyTorch's index_put_."""
    value = value if isinstance(value, Tensor) else None
    return _index_put(old, key if isinstance(key, tuple) else (key,), value)


def _compare(stem: str) -> Callable[..., tuple]:
    """eq_, lt_, ... in the graph: the tensor takes the comparison's 0/1, which depend on no input
    differentiably: PyTorch's ``<Stem>Backward0`` (a number other) or ``<Stem>Backward1`` (a tensor
    other), zero gradients for both."""

    def spec(old: Tensor, other: Any) -> tuple:
        zeros = _zeros_for(old)
        if isinstance(other, Tensor):
            zeros_other = _zeros_for(other)
            return f"{stem}Backward1", (old, other), lambda g: (zeros(g), zeros_other(g)), ()
        return f"{stem}Backward0", (old,), lambda g: (zeros(g),), ()

    return spec


def _random_fill(name: str) -> Callable[..., tuple]:
    """uniform_, normal_, ...: the new values depend on no input; the old ones get a zero gradient."""

    def spec(old: Tensor, *args: Any, **kwargs: Any) -> tuple:
        zeros = _zeros_for(old)
        return name, (old,), lambda g: (zeros(g),), ()

    return spec


_SPECIAL: dict[str, Callable[..., tuple]] = {
    "copy_": _copy, "zero_": _zero, "fill_": _fill, "masked_fill_": _masked_fill, "index_put_": _index_put,
    "__setitem__": _setitem, "uniform_": _random_fill("UniformBackward0"), "normal_": _random_fill("NormalBackward0"),
    "bernoulli_": _random_fill("BernoulliBackward2"), "random_": _random_fill("RandomBackward2"),
    "exponential_": _random_fill("ExponentialBackward0"), "geometric_": _random_fill("GeometricBackward0"),
    "cauchy_": _random_fill("CauchyBackward0"), "log_normal_": _random_fill("LogNormalBackward0"),
    "floor_divide_": _floor_divide_, "__ifloordiv__": _floor_divide_,
    "floor_divide.out": _floor_divide_out,
    "eq_": _compare("Eq"), "ne_": _compare("Ne"), "not_equal_": _compare("Ne"), "lt_": _compare("Lt"),
    "less_": _compare("Lt"), "le_": _compare("Le"), "less_equal_": _compare("Le"), "gt_": _compare("Gt"),
    "greater_": _compare("Gt"), "ge_": _compare("Ge"), "greater_equal_": _compare("Ge"),
}
