"""Wrapping the forward ops so they record the graph: done once, by :func:`activate`, the first
time a tensor is made to require grad. Until then every op is the plain forward (no wrapper,
no cost); afterwards an op on tensors outside autograd pays one wrapper call and a slot test
(measured: 60-90 ns for the operators, about 200 ns for the methods taking ``*args``).

- The differentiable Tensor methods (those with a rule in :data:`strided.gradients.BACKWARD`,
  registered beside their forwards) are replaced by :func:`.function.track` wrappers (the same
  name, docstring and module: ``functools.wraps``).
- The module functions of the same ops (``strided.ops.elementwise.add``, ``ops.unary.exp``,
  ``ops.reductions.sum``, ``ops.matmul.matmul``, ...) are replaced in their modules too, so that
  ``strided.add(x, y)`` records as ``x.add(y)`` does (when ``strided`` imports this package
  before it imports those names).
- Every in-place method (a name ending in ``_``, the ``__i*__`` operators, ``__setitem__``) is
  wrapped by :func:`.function.track_inplace`: version counting and the in-place errors.
"""

from __future__ import annotations

import functools
import sys
import types
import warnings
from typing import Any

from .. import ops
from ..errors import StridedNotImplementedError, join_lines
from ..nn import functional
from ..ops import elementwise, matmul, reductions, softmax, unary
from ..ops.registry import BACKWARD
from ..tensor import Tensor
from .function import INSIDE, STATE, _any_tracked, track
from .graph import GRAD_MODE, requires_grad
from .inplace import track_inplace

_NOT_INPLACE = {"requires_grad_", "detach_", "retain_grad", "register_hook"}
_MODULES = (elementwise, unary, reductions, matmul, softmax)


def _op_modules() -> tuple:
    """Every module of :mod:`strided.ops` (and ``nn.functional``): where the module functions that
    have a registered rule live (``joining.cat``, ``gather_scatter.gather``, ...)."""
    found = [m for name, m in sorted(sys.modules.items())
             if (name.startswith(ops.__name__ + ".") or name == "strided.linalg") and m is not None]
    return tuple(dict.fromkeys((*_MODULES, *found, functional)))


def activate() -> None:
    """Install the recording wrappers (once; :func:`.tensor_api.requires_grad_` calls it)."""
    if STATE["used"]:
        return
    STATE["used"] = True
    install()


def install() -> None:
    rules = dict(BACKWARD)
    wrapped: dict[Any, Any] = {}
    for name, (maker, operands) in rules.items():
        member = Tensor.__dict__.get(name)
        if member is None:
            continue
        if isinstance(member, property):
            setattr(Tensor, name, property(_rewarning(member.fget, track(member.fget, maker)), member.fset,
                                           doc=member.__doc__))
            continue
        new = track(member, maker, "self" if operands == "property" else operands)
        wrapped[member] = new
        setattr(Tensor, name, new)
    # the module functions that are the same function objects as the methods (nn.functional's
    # private bindings of them too: F.softmax calls ops.softmax's)
    for module in _op_modules():
        for attr, value in list(vars(module).items()):
            if callable(value) and value in wrapped:
                setattr(module, attr, wrapped[value])
    _install_module_functions(rules, wrapped)
    # the public names already bound in the strided package (strided.exp, strided.sum, ...): the
    # face is read from sys.modules (not imported: it is the layer above) and its names that are
    # raw forwards point at the wrappers from now on
    face = sys.modules.get("strided")
    if face is not None:
        for attr, value in list(vars(face).items()):
            if callable(value) and not isinstance(value, type) and value in wrapped:
                setattr(face, attr, wrapped[value])
        _guard_the_face(face, rules)
    for name in list(vars(Tensor)):
        if name in _NOT_INPLACE:
            continue
        inplace = (name.endswith("_") and not name.startswith("_")) or name == "__setitem__" or (
            name.startswith("__i") and name.endswith("__") and name[3:-2] in _IOPS)
        if inplace:
            setattr(Tensor, name, track_inplace(getattr(Tensor, name), name))
    _guard_the_rest(rules)


# Methods whose float results legitimately carry no gradient (detached or new memory).
_NO_GRAD_RESULTS = {"detach", "new_empty", "new_zeros", "new_ones", "new_full", "new_tensor", "new_empty_strided",
                    "numpy", "tolist", "item", "cpu", "type", "bernoulli", "multinomial", "data"}


def _guard_the_rest(rules: dict) -> None:
    """Every other public Tensor method: when it is given a tensor that requires grad (grad mode
    on) and returns a float tensor with no history, it raises instead of silently cutting the
    gradient (the ops this slice has no rule for yet: cat, gather, var, softmax, ...)."""
    for name, member in list(vars(Tensor).items()):
        if (name.startswith("_") or name in rules or name in _NO_GRAD_RESULTS or name.endswith("_")
                or not callable(member) or isinstance(member, (property, type, staticmethod, classmethod))):
            continue
        setattr(Tensor, name, _guarded(member, name))


def _guarded(fwd: Any, name: str) -> Any:
    @functools.wraps(fwd)
    def _guard(self: Any, *args: Any, **kwargs: Any) -> Any:
        out = fwd(self, *args, **kwargs)
        if (self.__class__ is Tensor and self._ag is not None and out.__class__ is Tensor and out._ag is None
                and out is not self and (out._dtype.is_floating_point or out._dtype.is_complex)
                and requires_grad(self) and GRAD_MODE.get() and not INSIDE.get()):
            raise _no_rule(name, self, f"x.detach().{name}(...)")
        return out

    return _guard


def _no_rule(name: str, t: Tensor, detached: str) -> StridedNotImplementedError:
    return StridedNotImplementedError(join_lines(
        f"{name}() is not differentiable yet in strided's autograd",
        f"its input (shape {t._layout.shape}) requires grad, and the gradient cannot flow "
        f"through {name}() in this version: its result would silently carry none",
        f"fix: compute it from the differentiable ops (add, mul, exp, sum, matmul, views, ...), or "
        f"outside the graph: {detached} or under strided.no_grad()"))


# The modules whose functions the face exports and the guard covers (random draws and dtype
# questions legitimately give results without a gradient).
_FACE_MODULES = ("strided.ops.", "strided.numpy_api", "strided.linalg", "strided.nn")
_FACE_EXEMPT = ("strided.ops.random", "strided.ops.generator", "strided.ops.promotion")


def _guard_the_face(face: Any, rules: dict) -> None:
    """The functions exported from ``strided`` (``strided.cat``, ``strided.gather``, ...) that
    have no rule: a call given a tensor that requires grad (grad mode on) whose float result
    has no history raises instead of silently cutting the gradient. (Only the face's names:
    the modules' own calls among themselves stay plain.)"""
    for attr, value in list(vars(face).items()):
        if (attr.startswith("_") or attr.endswith("_") or attr in rules or not isinstance(value, types.FunctionType)
                or getattr(value, "__wrapped_maker__", None) is not None):
            continue
        where = value.__module__ or ""
        if where.startswith(_FACE_MODULES) and not where.startswith(_FACE_EXEMPT):
            setattr(face, attr, _guarded_function(value, attr))


def _guarded_function(fwd: Any, name: str) -> Any:
    @functools.wraps(fwd)
    def _guard(*args: Any, **kwargs: Any) -> Any:
        if not _any_tracked(args) and not _any_tracked(kwargs.values()):
            return fwd(*args, **kwargs)
        out = fwd(*args, **kwargs)
        if GRAD_MODE.get() and not INSIDE.get() and _cut(out):
            t = _first_requiring(args, kwargs)
            if t is not None:
                raise _no_rule(name, t, f"strided.{name}(x.detach(), ...)")
        return out

    _guard.__guards__ = name  # type: ignore[attr-defined]
    return _guard


def _cut(out: Any) -> bool:
    """Whether ``out`` (a tensor or a tuple of them) holds float results none of which has a history."""
    outs = out if isinstance(out, (tuple, list)) else (out,)
    floats = [o for o in outs if o.__class__ is Tensor and (o._dtype.is_floating_point or o._dtype.is_complex)]
    return bool(floats) and all(o._ag is None for o in floats)


def _first_requiring(args: tuple, kwargs: dict) -> Tensor | None:
    for v in (*args, *kwargs.values()):
        for t in (v if isinstance(v, (tuple, list)) else (v,)):
            if t.__class__ is Tensor and requires_grad(t):
                return t
    return None


def _rewarning(raw: Any, tracked: Any) -> Any:
    """A property getter (``T``, ``mT``) whose deprecation warning points at the user's line, not
    at the wrapper: the 2-d case (no warning) goes straight through."""

    @functools.wraps(raw)
    def _getter(self: Tensor) -> Any:
        if self._ag is None and len(self._layout.shape) == 2:
            return raw(self)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = tracked(self)
        for w in caught:
            warnings.warn(w.message, w.category, stacklevel=2)
        return out

    return _getter


_IOPS = {"add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and", "or", "xor", "lshift", "rshift", "matmul"}


def _below_autograd(fwd: Any) -> Any:
    """``fwd`` run with grad mode off: an nn.functional forward built from other ops (F.linear:
    a matmul, then ``add_`` of the bias) records none of their nodes, which the one node its rule
    attaches would replace anyway, and its in-place steps on its own fresh results take no
    history rewrite (a copy of the old values), as PyTorch's kernels run below its autograd key."""

    @functools.wraps(fwd)
    def run(*args: Any, **kwargs: Any) -> Any:
        token = GRAD_MODE.set(False)
        try:
            return fwd(*args, **kwargs)
        finally:
            GRAD_MODE.reset(token)

    return run


def _install_module_functions(rules: dict, wrapped: dict) -> None:
    """Module functions that are not the method objects (``elementwise.add`` is its own function
    with the fast paths; ``unary.exp`` too): wrapped with the method's rule. (``nn.functional``'s
    own functions have other signatures: they register rules of their own names, ``F.*``.)"""
    for key, (maker, operands) in rules.items():
        if key.startswith("F."):  # nn.functional's own functions: registered as "F.<name>"
            value = getattr(functional, key[2:])
            wrapped[value] = track(_below_autograd(value), maker,
                                   "any" if operands in ("property", "dunder") else operands)
            setattr(functional, key[2:], wrapped[value])
    for module in _op_modules():
        if module is functional:
            continue
        for attr, value in list(vars(module).items()):
            if attr.startswith("_") or not callable(value) or getattr(value, "__wrapped_maker__", None):
                continue
            if value in wrapped:  # the same function imported into another module
                setattr(module, attr, wrapped[value])
                continue
            if attr in rules and not isinstance(value, type):
                maker, operands = rules[attr]
                if operands in ("property", "dunder"):
                    operands = "self"
                wrapped[value] = track(value, maker, operands)
                setattr(module, attr, wrapped[value])
    # nn.functional's bindings of ops functions that are no Tensor method (F.gelu is special.gelu)
    for attr, value in list(vars(functional).items()):
        if callable(value) and not attr.startswith("_") and value in wrapped:
            setattr(functional, attr, wrapped[value])


__all__ = ["activate", "ops"]
