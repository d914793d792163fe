"""Recording the graph: how a forward op of :mod:`strided.ops` gets its backward node.

Each differentiable op has a *rule maker* (registered beside its forward, :mod:`strided.gradients`):
``maker(out, *args, **kwargs)`` is called after the forward ran, with its result and its
arguments, and returns ``(name, inputs, backward, saved)``: PyTorch's node name, the inputs the
gradient flows to (tensors, or None for a number), ``backward(*grads) -> one gradient per input``
(a closure over what it needs) and the tensors it saved (their versions are checked before it
runs). It may return None: no node (the op returned its input itself, or an integer result).

The entry of each op (:func:`strided.grad_mode.track`, made when the op is defined:
:func:`strided.gradients.seal`) runs the forward unchanged for tensors outside autograd (its
first test is ``self._ag is None``: one slot read; a second one for a binary op's other
operand). When an input has an autograd record and grad mode is on, it hands the result to
:func:`attach` here (registered with :func:`strided.grad_mode.set_recorder` at import).

In-place methods (``add_``, ``copy_``, ``__setitem__``, ...) go to :func:`.inplace._run_inplace`.
"""

from __future__ import annotations

from collections.abc import Callable
from types import FunctionType
from typing import Any

from ..dispatch import storage_root
from ..grad_mode import (
    INFERENCE_STORAGES,
    INSIDE,
    OUTPUT_ALIAS,
    READS_RESULT,
    STATE,
    any_tracked,
    refuse_inference,
    track,
)
from ..gradients import NamedSaved
from ..tensor import Tensor
from . import graph as G
from .graph import Meta, Node, edge

__all__ = ["INSIDE", "STATE", "any_tracked", "attach", "attach_fresh", "make_node", "track"]

Maker = Callable[..., Any]

# (a recorded op's Node and its result's Meta: graph.new_node / graph.new_meta, made in C where the
# copy kernel is built; these run for every recorded op)
_new_node = G.new_node
_new_meta = G.new_meta
_saved_entries = G.saved_entries


def attach(out: Any, maker: Maker, args: tuple, kwargs: dict) -> Any:
    """Give ``out`` (a tensor, or a tuple whose first item is the differentiable tensor) the node
    ``maker`` describes; ``out`` unchanged when the maker declines."""
    if kwargs:
        if kwargs.get("out") is not None:
            return out  # (unreachable with grad mode on: out= with an input that requires grad raises first)
        kwargs = {k: v for k, v in kwargs.items() if v is not None and k != "out"}
        spec = maker(out, *args, **kwargs)
    else:
        spec = maker(out, *args)  # (most calls: no empty ``**{}`` to unpack)
    if spec is None:
        return out
    return _attached(out, spec, maker, args, kwargs)


def attach_fresh(out: Any, maker: Maker, args: tuple) -> Any:
    """:func:`attach` without keywords, for a forward's fast path (:func:`strided.gradients.recorded`):
    the same node and record, with only the common case's tests (a plain Tensor result that is
    no view, of a floating dtype, for a maker with one differentiable output); any other result
    takes :func:`attach`'s own steps. A maker marked :func:`strided.gradients.saves_output` is
    handed the result's unowned alias (the node release_output's walk would leave: the alias in
    the rule and saved as the node's own output, ``own_outputs``), without the walk."""
    flags = getattr(maker, "__strided_flags__", None)
    if flags is None:
        flags = _maker_flags(maker)
    plain = out.__class__ is Tensor and out._base is None and out._dtype.is_floating_point
    n = len(args)
    if flags & _OUTPUT_ALIAS and plain:
        alias = G.unowned(out)
        spec = maker(alias, args[0]) if n == 1 else maker(alias, *args)
        if spec is None:
            return out
        node = make_node(spec, 1, alias)
        if node is None:
            return out
        node.own_outputs = ((alias, 0),)
        out._ag = _new_meta(node)
        return out
    # (positional calls for one or two operands: a call with ``*args`` is not run inline by
    # CPython 3.11's interpreter, a third of the call's cost)
    spec = maker(out, args[0], args[1]) if n == 2 else maker(out, args[0]) if n == 1 else maker(out, *args)
    if spec is None:
        return out
    if not plain or len(spec) == 5:
        return _attached(out, spec, maker, args, {})
    node = make_node(spec, 1, out)
    if node is None:
        return out
    walk = flags & _READS
    if not walk:
        for a in args:
            if a is out:
                walk = True
                break
    if walk:
        G.release_output(node, out)
        if flags & _DEFAULTS:
            G.release_defaults(node, out)
    out._ag = _new_meta(node)
    return out


def _attached(out: Any, spec: tuple, maker: Maker, args: tuple, kwargs: dict) -> Any:
    """:func:`attach`'s steps after the maker ran (``spec``, not None; ``kwargs`` without None values)."""
    if len(spec) == 5:  # several differentiable outputs (split, unbind): output_nr tells them apart
        return _attach_outputs(out, spec)
    if out.__class__ is Tensor or isinstance(out, Tensor):
        first = out
        complex_out = out._dtype.is_complex
    else:
        outs = out if isinstance(out, (tuple, list)) else (out,)
        first = outs[0]
        complex_out = any(isinstance(o, Tensor) and o._dtype.is_complex for o in outs)
    node = make_node(spec, 1, first)
    if node is None:
        return out
    if complex_out and node._name not in CONJUGATE_CONVENTION and not hasattr(node.rule, PYTORCH_CONVENTION):
        node.rule = _conjugate_convention(node.rule)
    if not first._dtype.is_floating_point and not first._dtype.is_complex:
        return out  # an integer or bool result carries no gradient
    # (no cycle first -> node -> first: see graph.unowned; a maker that never reads its result
    # cannot have put it in the rule or the saved tensors, unless the result is an argument too)
    flags = getattr(maker, "__strided_flags__", None)  # (_maker_flags keeps them on the function)
    if flags is None:
        flags = _maker_flags(maker)
    walk = flags & _READS
    if not walk:
        for a in args:  # (a loop, not any(generator): this runs for every recorded op)
            if a is first:
                walk = True
                break
        else:
            walk = bool(kwargs) and any(v is first for v in kwargs.values())
    if walk:
        G.release_output(node, first)
        if flags & _DEFAULTS:  # (a rule may hold it in a default argument: rare, walked apart)
            G.release_defaults(node, first)
    m = first._ag = _new_meta(node)
    if first._base is not None:  # a view: its history goes stale when its storage is written
        m.view_version = G.version(first)
        source = args[0] if args else None
        sm = source._ag if isinstance(source, Tensor) else None
        # (a view of such an output, or of a view made under no_grad / inference_mode, inherits its
        # refusal, as in PyTorch's propagate_creation_meta: ``real``/``imag`` too, whose storage is a
        # typed alias of the same bytes)
        if sm is not None and sm.creation is not None and (
                source._storage is first._storage or storage_root(source._storage) is storage_root(first._storage)):
            m.creation = sm.creation
    return out


# maker's code object -> its flags: _READS when that code reads its first parameter (the op's
# result), _DEFAULTS when it (or a function it defines) makes functions with default arguments.
# Decided once per code object (the makers are defined at import: a bounded set), by its bytecode;
# _OUTPUT_ALIAS (with _READS) only by strided.gradients.saves_output, on the maker itself.
_READS, _DEFAULTS, _OUTPUT_ALIAS = READS_RESULT, 2, OUTPUT_ALIAS
_MAKER_FLAGS: dict[Any, int] = {}
# (the names through which code reaches its own frame's locals: builtins, sys, inspect, traceback)
_INTROSPECTION = frozenset({"locals", "vars", "eval", "exec", "_getframe", "currentframe", "stack", "trace",
                            "getouterframes", "getinnerframes", "f_locals", "f_back", "tb_frame", "exc_info",
                            "__traceback__", "walk_stack", "walk_tb"})


def _reads_result(maker: Maker) -> bool:
    """Whether ``maker`` may hand its first argument (the op's result) to the rule it makes or
    to its saved tensors: True unless its code provably never reads that parameter (then
    :func:`attach` need not walk the rule's closure for it). Anything but a plain function with
    a first positional parameter (a bound method's first is ``self``), or one whose code names a
    frame-introspection builtin or attribute, is assumed to read it.

    >>> def maker(out, a): return "NegBackward0", (a,), lambda g: (-g,), ()
    >>> _reads_result(maker), _reads_result(lambda out, a: (out, a))
    (False, True)
    """
    return bool(_maker_flags(maker) & _READS)


def _maker_flags(maker: Maker) -> int:
    if maker.__class__ is not FunctionType:
        return _READS | _DEFAULTS  # (a bound method's code starts with self: its result is its second parameter)
    code = maker.__code__
    known = _MAKER_FLAGS.get(code)
    if known is None:
        known = _MAKER_FLAGS[code] = (_READS if _code_reads_first(code) else 0) | (
            _DEFAULTS if _makes_defaults(code) else 0)
    # (kept on the function too: attach reads it there without a call; a function's code changes
    # only by assigning ``__code__``, which no maker does)
    maker.__strided_flags__ = known
    return known


def _code_reads_first(code: Any) -> bool:
    import dis

    if code.co_argcount == 0 or not _INTROSPECTION.isdisjoint(code.co_names):
        return True
    first = code.co_varnames[0]
    if first in code.co_cellvars:  # (a closure made inside reads it)
        return True
    for ins in dis.get_instructions(code):
        value = ins.argval
        if value == first or (isinstance(value, tuple) and first in value):
            return True
    return False


def _makes_defaults(code: Any) -> bool:
    """Whether ``code``, or a function or lambda defined in it, makes a function with default
    arguments (MAKE_FUNCTION with its defaults or keyword-defaults flag)."""
    import dis

    for ins in dis.get_instructions(code):
        if ins.opname in ("MAKE_FUNCTION", "SET_FUNCTION_ATTRIBUTE") and ins.arg & 0x03:  # (3.13: the latter)
            return True
    return any(_makes_defaults(c) for c in code.co_consts if hasattr(c, "co_code"))


def _attach_outputs(out: Any, spec: tuple) -> Any:
    """:func:`attach` for an op with several differentiable outputs (``out`` a tuple or list)."""
    node = make_node(spec, len(out))
    if node is None:
        return out
    outs = out if isinstance(out, (tuple, list)) and not isinstance(out, Tensor) else (out,)
    if any(isinstance(o, Tensor) and o._dtype.is_complex for o in outs) and node._name not in CONJUGATE_CONVENTION \
            and not hasattr(node.rule, PYTORCH_CONVENTION):
        node.rule = _conjugate_convention(node.rule)
    for nr, piece in enumerate(outs):
        m = piece._ag = Meta(grad_fn=node, output_nr=nr)
        if piece._base is not None:
            m.view_version = G.version(piece)
            if node._name in MULTI_OUTPUT_VIEWS:
                m.creation = "multi_output"
    G.release_outputs(node, outs)
    return out


# The nodes of PyTorch's view functions with several outputs (CreationMeta::MULTI_OUTPUT_NODE):
# their outputs, and views of them, may not be written in place with grad mode on.
MULTI_OUTPUT_VIEWS = frozenset({"UnbindBackward0", "SplitBackward0", "SplitWithSizesBackward0"})

# The rules of ops with a complex result are written as the holomorphic derivative, ``g * f'(z)``
# (the real formula); PyTorch's convention for complex gradients is ``g * conj(f'(z))`` (the
# conjugate Wirtinger derivative). For a holomorphic or C-linear op the two are related by
# conjugating the incoming gradient and the outgoing ones, which :func:`_conjugate_convention`
# does once here for every such op, instead of in each rule. The rules below are already written
# in PyTorch's convention (not holomorphic: their formula needs conj itself) and are left as they are.
CONJUGATE_CONVENTION = frozenset({"SgnBackward0", "ConjBackward0", "ConjPhysicalBackward0", "ViewAsComplexBackward0"})
# The rules that only move, sum or negate the gradient's elements (real coefficients) are the same
# formula in both conventions: conj(rule(conj(g))) has their values, but the zeros they make
# (the gradient's fill) and their sums' +0.0 starts came out as -0.0 imaginary parts where PyTorch
# has +0.0 (x.unsqueeze(0).expand(2, 3).backward(g), x.diagonal(), x[idx], ...: 18 of 35 drawn
# complex ops' gradients differed in signs of zero; mean's quotient by the count, 75 of 200 drawn
# cases). They are left as they are too. (Not flip:
# unconjugated, the second derivative of complex cumprod, whose recorded gradient flips twice,
# differed from PyTorch's in the last bits in 75 of 100 drawn cases; conjugated around, 0.)
REAL_LINEAR = frozenset({
    "ExpandBackward0", "RepeatBackward0", "IndexBackward0", "IndexSelectBackward0", "GatherBackward0",
    "TakeBackward0", "UnfoldBackward0", "AsStridedBackward0", "TraceBackward0", "DiagonalBackward0",
    "TrilBackward0", "TriuBackward0", "NegBackward0", "SliceBackward0", "SelectBackward0", "SortBackward0",
    "SortBackward1", "TopkBackward0", "KthvalueBackward0", "DiagEmbedBackward0", "ConstantPadNdBackward0",
    "MaskedSelectBackward0", "MaskedFillBackward0", "MaskedFillBackward1", "IndexFillBackward0",
    "IndexFillBackward1", "ScatterBackward0", "ScatterBackward1", "IndexCopyBackward0", "IndexPutBackward0",
    "PutBackward0", "MaskedScatterBackward0", "SliceScatterBackward0", "SelectScatterBackward0",
    "DiagonalScatterBackward0", "AsStridedScatterBackward0", "ScatterAddBackward0", "BlockDiagBackward0",
    "CatBackward0", "StackBackward0", "RollBackward0", "SumBackward0", "SumBackward1",
    "SplitBackward0", "SplitWithSizesBackward0", "UnbindBackward0", "MeanBackward0", "MeanBackward1",
    "WhereBackward0"})
# (the *_copy ops' nodes: their views' rules, under PyTorch 2.13's names for them, strided.ops.copies)
REAL_LINEAR = REAL_LINEAR | {name + "_copy" for name in REAL_LINEAR} | {"NarrowCopyBackward0"}
CONJUGATE_CONVENTION = CONJUGATE_CONVENTION | REAL_LINEAR
# A rule (a function) with this attribute is written in PyTorch's convention too, whatever its
# node's name (mul's complex rule, g * conj(other) as PyTorch's mul_tensor_backward: the
# conjugated form conj(conj(g) * other) has the same values but other signs of zero)
PYTORCH_CONVENTION = "pytorch_convention"


def _conjugate_convention(rule: Callable) -> Callable:
    """``rule`` (the holomorphic derivative) in PyTorch's convention: ``conj(rule(conj(g)))``."""

    def conjugated(*grads: Any) -> Any:
        back = rule(*(_conj(g) for g in grads))
        return tuple(_conj(g) for g in back)

    return conjugated


def _conj(g: Any) -> Any:
    return g.conj() if isinstance(g, Tensor) and g._dtype.is_complex else g


def make_node(spec: tuple, n_outputs: int = 1, output: Any = None) -> Node | None:
    """The Node a rule's ``(name, inputs, backward, saved)`` describes; None when no input
    requires grad (nothing to record). ``output``: the op's one differentiable output, when the
    rule may have saved it (the modified-tensor error names a saved output as the node's own)."""
    if _MAKE_NODE is not None:  # (this body in C: its answer, or NotImplemented where this body decides)
        node = _MAKE_NODE(spec, n_outputs, output)
        if node is not NotImplemented:
            return node
    name, inputs, backward, saved = spec[0], spec[1], spec[2], spec[3]
    k = len(inputs) if inputs.__class__ is tuple else 0
    # (most ops: unary, reductions, views, and a tensor with a number: no lists built)
    if k == 1 or (k == 2 and inputs[1].__class__ in _NUMBERS):
        i = inputs[0]
        m = i._ag if i.__class__ is Tensor or isinstance(i, Tensor) else None
        if m is None or not (m.requires_grad or m.grad_fn is not None):
            return None
        e = (m.grad_fn, m.output_nr) if m.grad_fn is not None and m.view_version is None else edge(i)
        if INFERENCE_STORAGES.data:
            _refuse_saved(saved)
        if k == 1:
            node = _new_node(Node, name, backward, (e,), ((i._layout.shape, i._dtype),),
                             _saved_entries(saved, output) if saved else ())
        else:
            node = _new_node(Node, name, backward, (e, _NO_EDGE), ((i._layout.shape, i._dtype), None),
                             _saved_entries(saved, output) if saved else ())
        if n_outputs != 1:
            node.n_outputs = n_outputs
        if saved.__class__ is NamedSaved:
            node.saved_names = saved.names
        return node
    if _RECORD_EDGES is not None:  # (the loop below, in C: a third of a two-tensor op's record)
        found = _RECORD_EDGES(inputs, edge, _NO_EDGE)
        if found is None:
            return None
        if INFERENCE_STORAGES.data:
            _refuse_saved(saved)
        node = _new_node(Node, name, backward, found[0], found[1],
                         _saved_entries(saved, output) if saved else ())
        if n_outputs != 1:
            node.n_outputs = n_outputs
        if saved.__class__ is NamedSaved:
            node.saved_names = saved.names
        return node
    edges = []
    ctx = []
    wanted = False
    for i in inputs:  # (one pass: the edges, each input's (shape, dtype), whether any needs a gradient)
        if isinstance(i, Tensor):
            m = i._ag
            if m is not None and (m.requires_grad or m.grad_fn is not None):
                wanted = True
                # (a result whose history cannot be stale: its edge is its grad_fn, as edge() gives)
                edges.append((m.grad_fn, m.output_nr) if m.grad_fn is not None and m.view_version is None
                             else edge(i))
            else:
                edges.append(_NO_EDGE)
            ctx.append((i._layout.shape, i._dtype))
        else:
            edges.append(_NO_EDGE)
            ctx.append(None)
    if not wanted:
        return None
    if INFERENCE_STORAGES.data:  # (the WeakSet's own set: a C-level test, where its __len__ is Python code)
        _refuse_saved(saved)
    node = _new_node(Node, name, backward, tuple(edges), tuple(ctx), _saved_entries(saved, output) if saved else ())
    if n_outputs != 1:
        node.n_outputs = n_outputs
    if saved.__class__ is NamedSaved:  # (PyTorch's _saved_* names: Node.__getattr__)
        node.saved_names = saved.names
    return node


def _refuse_saved(saved: tuple) -> None:
    """PyTorch's refusal to save an inference tensor for backward, for each of ``saved``."""
    for t in saved:
        if isinstance(t, Tensor):  # (a Parameter too)
            refuse_inference(t, "saved")


_NO_EDGE = (None, 0)
# record_edges: make_node's loop over a rule's inputs, in C where the copy kernel is built (the
# loop is the reference and the fallback; tests set this to None to compare)
_RECORD_EDGES = getattr(G._RECORDS, "record_edges", None)
# make_node: make_node's body, in C where the copy kernel is built (the body is the reference and
# the fallback; tests set this to None to compare); it reads the containers named here, which are
# never rebound (an inference storage alive: NotImplemented, the body refuses the save)
_MAKE_NODE = getattr(G._RECORDS, "make_node", None)
if _MAKE_NODE is not None:
    from ..grad_mode import _OWN, _VDATA, watch
    from ..gradients import NamedSaved as _NamedSaved

    G._RECORDS.make_setup(edge, _NO_EDGE, INFERENCE_STORAGES.data, _VDATA, _OWN, _NamedSaved, watch)
    if hasattr(G._RECORDS, "recorded_setup"):
        # (strided.gradients.recorded, the fast paths' recorder, in C: attach_fresh's common steps,
        # the functions here for the rest; grad_mode.set_recorder registers attach_fresh as the same)
        from ..grad_mode import GRAD_MODE
        from ..opdef import OPDEFS

        G._RECORDS.recorded_setup(OPDEFS, GRAD_MODE, attach_fresh, make_node, _attached, G.release_output,
                                  G.release_defaults)
_NUMBERS = frozenset((float, int, bool, complex, type(None)))  # (an operand that is no tensor: no edge, no ctx)
