"""Recording the graph: how a forward op of :mod:`strided.ops` gets its backward node.

Each differentiable op has a *rule maker* (in :mod:`.rules_views`, :mod:`.rules_math`, ...):
``maker(out, *args, **kwargs)`` is called after the forward ran, with its result and its
arguments, and returns ``(name, inputs, backward, saved)``: PyTorch's node name, the inputs the
gradient flows to (tensors, or None for a number), ``backward(*grads) -> one gradient per input``
(a closure over what it needs) and the tensors it saved (their versions are checked before it
runs). It may return None: no node (the op returned its input itself, or an integer result).

:func:`track` wraps the forward so that nothing changes for tensors outside autograd: the
wrapper's first test is ``self._ag is None`` (one slot read; a second one for a binary op's
other operand), then the forward runs unchanged. Only when an input has an autograd record
and grad mode is on does the maker run.

In-place methods (``add_``, ``copy_``, ``__setitem__``, ...) are wrapped by :func:`track_inplace`:
they bump the storage's version counter (once autograd is in use), refuse to write a leaf that
requires grad (PyTorch's error), and give a non-leaf target the history of the out-of-place op.
"""

from __future__ import annotations

import functools
import inspect
import os
from collections.abc import Callable
from typing import Any

from .. import layout as L
from ..dispatch import copy_of
from ..errors import StridedRuntimeError, join_lines
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
    name, inputs, backward, saved = spec[:4]
    if not any(i.__class__ is Tensor and requires_grad(i) for i in inputs):
        return out
    node = Node(name, backward, tuple(edge(i) if i.__class__ is Tensor else (None, 0) for i in inputs),
                saved=saved, n_outputs=len(out) if len(spec) == 5 else 1)
    node.ctx = tuple((i._layout.shape, i._dtype) if i.__class__ is Tensor else None for i in inputs)
    outs = out if isinstance(out, (tuple, list)) and out.__class__ is not Tensor else (out,)
    if len(spec) == 5:  # several differentiable outputs (split, unbind): output_nr tells them apart
        for nr, piece in enumerate(outs):
            piece._ag = Meta(grad_fn=node, output_nr=nr)
        return out
    first = outs[0]
    if not first._dtype.is_floating_point and not first._dtype.is_complex:
        return out  # an integer or bool result carries no gradient
    first._ag = Meta(grad_fn=node)
    return out


def _slow(fwd: Callable, maker: Maker, args: tuple, kwargs: dict) -> Any:
    out = fwd(*args, **kwargs)
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


# ---------------------------------------------------------------- in-place ops


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


def _view_rewrite_missing(t: Tensor, op: str) -> StridedRuntimeError:
    # Note: PyTorch rewrites the base's history (CopySlices) for an in-place op on a view of a
    # tensor that requires grad; strided's first autograd slice refuses it instead.
    return StridedRuntimeError(join_lines(
        f"{op} on a view of a tensor that requires grad is not supported yet by strided's autograd",
        f"the target (shape {t._layout.shape}) is a view of a tensor in the graph; writing through it "
        "would need the base's history rewritten (PyTorch's CopySlices), which strided does not do yet",
        "fix: compute out of place (y = y.clone(); build the new tensor with cat / where / "
        "an out-of-place op)"))


# in-place method -> the out-of-place function giving its values and its history
OUT_OF_PLACE: dict[str, Callable] = {}


def track_inplace(fwd: Callable, name: str) -> Callable:
    """``fwd`` (an in-place method writing ``self``) with PyTorch's autograd checks and version counting."""

    @functools.wraps(fwd)
    def _inplace_op(self: Any, *args: Any, **kwargs: Any) -> Any:
        if not STATE["used"]:
            return fwd(self, *args, **kwargs)
        return _inplace(fwd, name, self, args, kwargs)

    return _inplace_op


def _inplace(fwd: Callable, name: str, self: Tensor, args: tuple, kwargs: dict) -> Any:
    if self.__class__ is not Tensor:
        return fwd(self, *args, **kwargs)
    if GRAD_MODE.get():
        mine = requires_grad(self)
        theirs = any(a.__class__ is Tensor and requires_grad(a) for a in (*args, *kwargs.values()))
        if mine or theirs:
            m = self._ag
            if mine and m.grad_fn is None:
                raise leaf_error(self, name)
            base = self._base
            if base is not None and requires_grad(base):
                if base._ag.grad_fn is None:
                    raise view_of_leaf_error(self, name)
                raise _view_rewrite_missing(self, name)
            if base is not None and theirs:
                raise _view_rewrite_missing(self, name)
            outer = OUT_OF_PLACE.get(name)
            if outer is None:
                raise StridedRuntimeError(join_lines(
                    f"{name} is not differentiable in place yet in strided's autograd",
                    f"its target (shape {self._layout.shape}) or an operand requires grad",
                    "fix: use the out-of-place form of the op"))
            return _rewrite(self, outer, name, args, kwargs)
    out = fwd(self, *args, **kwargs)
    G.bump(self)
    return out


def _rewrite(self: Tensor, outer: Callable, name: str, args: tuple, kwargs: dict) -> Tensor:
    """An in-place op on a non-leaf, non-view tensor in the graph: the out-of-place op computes
    the values and the node (reading a copy of the old values that keeps the old history, as
    PyTorch saves ``original_self``), the values are written into ``self`` and ``self`` takes the
    new history."""
    m = self._ag
    old = copy_of(self, L.contiguous_strides(self._layout.shape), f"{name}: the old values autograd reads")
    old._ag = Meta(grad_fn=m.grad_fn, output_nr=m.output_nr)  # the old history, not a new node
    new = outer(old, *args, **kwargs)
    if new._layout.shape != self._layout.shape:
        raise StridedRuntimeError(f"output with shape {list(self._layout.shape)} doesn't match the broadcast "
                                  f"shape {list(new._layout.shape)}")
    self._np()[...] = new._np()
    G.bump(self)
    m = new._ag
    if m is None or m.grad_fn is None:
        return self
    retains = self._ag.retains_grad if self._ag is not None else False
    self._ag = Meta(grad_fn=m.grad_fn, output_nr=m.output_nr)
    self._ag.retains_grad = retains
    return self
