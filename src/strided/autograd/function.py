"""Recording the graph: how a forward op of :mod:`strided.ops` gets its backward node.

Each differentiable op has a *rule maker* (registered beside its forward, :mod:`strided.gradients`):
``maker(out, *args, **kwargs)`` is called after the forward ran, with its result and its
arguments, and returns ``(name, inputs, backward, saved)``: PyTorch's node name, the inputs the
gradient flows to (tensors, or None for a number), ``backward(*grads) -> one gradient per input``
(a closure over what it needs) and the tensors it saved (their versions are checked before it
runs). It may return None: no node (the op returned its input itself, or an integer result).

:func:`track` wraps the forward so that nothing changes for tensors outside autograd: the
wrapper's first test is ``self._ag is None`` (one slot read; a second one for a binary op's
other operand), then the forward runs unchanged. Only when an input has an autograd record
and grad mode is on does the maker run.

In-place methods (``add_``, ``copy_``, ``__setitem__``, ...) are wrapped by
:func:`.inplace.track_inplace`.
"""

from __future__ import annotations

import functools
import inspect
import os
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

from ..tensor import Tensor
from . import graph as G
from .graph import GRAD_MODE, Meta, Node, edge, requires_grad

# True once any tensor has required grad: until then in-place ops skip the version counters.
STATE = {"used": False}

Maker = Callable[..., Any]


def attach(out: Any, maker: Maker, args: tuple, kwargs: dict) -> Any:
    """Give ``out`` (a tensor, or a tuple whose first item is the differentiable tensor) the node
    ``maker`` describes; ``out`` unchanged when the maker declines."""
    if kwargs:
        if kwargs.get("out") is not None:
            # Note: PyTorch refuses out= when an input requires grad; strided records no node
            return out
        kwargs = {k: v for k, v in kwargs.items() if v is not None and k != "out"}
    spec = maker(out, *args, **kwargs)
    if spec is None:
        return out
    node = make_node(spec, len(out) if len(spec) == 5 else 1)
    if node is None:
        return out
    outs = out if isinstance(out, (tuple, list)) and out.__class__ is not Tensor else (out,)
    if len(spec) == 5:  # several differentiable outputs (split, unbind): output_nr tells them apart
        for nr, piece in enumerate(outs):
            m = piece._ag = Meta(grad_fn=node, output_nr=nr)
            if piece._base is not None:
                m.view_version = G.version(piece)
        return out
    first = outs[0]
    if not first._dtype.is_floating_point and not first._dtype.is_complex:
        return out  # an integer or bool result carries no gradient
    if node.saved:  # (which saved tensor is the node's own output: the modified-tensor error says so)
        node.saved = tuple((t, v, t is first) for t, v, _ in node.saved)
    m = first._ag = Meta(grad_fn=node)
    if first._base is not None:  # a view: its history goes stale when its storage is written
        m.view_version = G.version(first)
    return out


def make_node(spec: tuple, n_outputs: int = 1) -> Node | None:
    """The Node a rule's ``(name, inputs, backward, saved)`` describes; None when no input
    requires grad (nothing to record)."""
    name, inputs, backward, saved = spec[:4]
    if not any(i.__class__ is Tensor and requires_grad(i) for i in inputs):
        return None
    node = Node(name, backward, tuple(edge(i) if i.__class__ is Tensor else (None, 0) for i in inputs),
                saved=saved, n_outputs=n_outputs)
    node.ctx = tuple((i._layout.shape, i._dtype) if i.__class__ is Tensor else None for i in inputs)
    return node


# True while the forward of an op with a rule runs on tensors in the graph: the ops it calls
# inside need not record (its own node replaces theirs), and the guards of the ops without a rule
# stay quiet (the outer rule carries the gradient).
INSIDE: ContextVar[bool] = ContextVar("strided_inside_a_recorded_forward", default=False)


def _slow(fwd: Callable, maker: Maker, args: tuple, kwargs: dict) -> Any:
    token = INSIDE.set(True)
    try:
        out = fwd(*args, **kwargs)
    finally:
        INSIDE.reset(token)
    if not GRAD_MODE.get():
        return out
    return attach(out, maker, args, kwargs)


def track(fwd: Callable, maker: Maker, operands: str = "self") -> Callable:
    """``fwd`` recording ``maker``'s node when an input requires grad (see the module doc).

    ``operands``: "self" (only ``self`` may be a tensor: views, unary ops, reductions), "two"
    (the second argument may be one too: add, mul, matmul, ...), "dunder" (exactly
    ``(self, other)``: the operators, whose wrapper takes no ``*args``), "any" (tensors anywhere,
    inside lists and tuples too: ``cat``, ``stack``, ``einsum``).
    """
    if operands == "dunder":
        @functools.wraps(fwd)
        def _tracked(self: Any, other: Any) -> Any:
            if self._ag is None and (other.__class__ is not Tensor or other._ag is None):
                return fwd(self, other)
            return _slow(fwd, maker, (self, other), {})
    elif operands == "any":
        @functools.wraps(fwd)
        def _tracked(*args: Any, **kwargs: Any) -> Any:
            if not _any_tracked(args) and not _any_tracked(kwargs.values()):
                return fwd(*args, **kwargs)
            return _slow(fwd, maker, args, kwargs)
    elif operands == "two" and _exact(fwd, maker, True) is not None:
        _tracked = _exact(fwd, maker, True)
    elif operands == "two":
        @functools.wraps(fwd)
        def _tracked(self: Any, other: Any, *args: Any, **kwargs: Any) -> Any:
            if (self.__class__ is not Tensor or self._ag is None) and (
                    other.__class__ is not Tensor or other._ag is None):
                return fwd(self, other, *args, **kwargs)
            return _slow(fwd, maker, (self, other, *args), kwargs)
    else:
        _tracked = _exact(fwd, maker)
        if _tracked is None:
            @functools.wraps(fwd)
            def _tracked(self: Any, *args: Any, **kwargs: Any) -> Any:
                if self.__class__ is not Tensor or self._ag is None:
                    return fwd(self, *args, **kwargs)
                return _slow(fwd, maker, (self, *args), kwargs)
    _tracked.__wrapped_maker__ = maker  # type: ignore[attr-defined]
    return _tracked


def _any_tracked(values: Any) -> bool:
    """Whether any of ``values`` (or an item of a list or tuple among them) is a tensor with an
    autograd record: the test of the "any" operands wrappers (``cat``, ``stack``, ``einsum``)."""
    for v in values:
        if v.__class__ is Tensor:
            if v._ag is not None:
                return True
        elif isinstance(v, (list, tuple)) and any(i.__class__ is Tensor and i._ag is not None for i in v):
            return True
    return False


_GENERATED = os.path.join(os.path.dirname(__file__), "<generated wrapper>")


def _exact(fwd: Callable, maker: Maker, two: bool = False) -> Callable | None:
    """A wrapper with ``fwd``'s own parameter list (``t(self)``, ``transpose(self, dim0, dim1)``,
    ``view(self, *shape, dtype=None)``, ``sum(self, dim=None, keepdim=False, *, dtype=None, ...)``;
    not for a ``**kwargs`` forward), so a call builds no ``**kwargs`` dict: about 50 ns instead of 200."""
    try:
        params = list(inspect.signature(fwd).parameters.values())
    except (TypeError, ValueError):
        return None
    P = inspect.Parameter
    if not params or params[0].kind is not P.POSITIONAL_OR_KEYWORD or any(
            p.kind in (P.VAR_KEYWORD, P.POSITIONAL_ONLY) for p in params):
        return None
    scope: dict[str, Any] = {"fwd": fwd, "maker": maker, "Tensor": Tensor, "_slow": _slow}
    heads, positional, keywords = [], [], []
    for p in params:
        head = p.name
        if p.kind is P.VAR_POSITIONAL:
            head = f"*{p.name}"
            positional.append(f"*{p.name}")
        elif p.kind is P.KEYWORD_ONLY:
            if not any(h.startswith("*") for h in heads):
                heads.append("*")
            keywords.append(p.name)
        else:
            positional.append(p.name)
        if p.default is not P.empty:
            scope[f"_default_{p.name}"] = p.default
            head += f"=_default_{p.name}"
        heads.append(head)
    first = params[0].name
    test = f"({first}.__class__ is not Tensor or {first}._ag is None)"
    if two:
        if len(params) < 2 or params[1].kind is not P.POSITIONAL_OR_KEYWORD:
            return None
        second = params[1].name
        test += f" and ({second}.__class__ is not Tensor or {second}._ag is None)"
    call = ", ".join(positional + [f"{k}={k}" for k in keywords])
    kwargs = "{" + ", ".join(f"{k!r}: {k}" for k in keywords) + "}"
    plain = " and ".join(f"{k} is _default_{k}" for k in keywords if f"_default_{k}" in scope)
    fast = (f"        if {plain}:\n            return fwd({', '.join(positional)})\n" if plain else "")
    source = (f"def _tracked({', '.join(heads)}):\n"
              f"    if {test}:\n"
              f"{fast}"
              f"        return fwd({call})\n"
              f"    return _slow(fwd, maker, ({', '.join(positional)},), {kwargs})\n")
    # compiled as this file's code, so the op records' user frame (file:line) and op name, read
    # from the stack, see a frame of strided here, as for every other wrapper
    exec(compile(source, _GENERATED, "exec"), scope)  # noqa: S102 - a wrapper with the forward's signature
    return functools.wraps(fwd)(scope["_tracked"])
