"""Wrapping the forward ops so they record the graph (done once, when ``strided.autograd`` is imported).

- The differentiable Tensor methods of :data:`.rules_views.view_rules` and
  :data:`.rules_math.math_rules` are replaced by :func:`.function.track` wrappers (the same
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
import warnings
from typing import Any

from .. import ops
from ..ops import elementwise, matmul, reductions, unary
from ..tensor import Tensor
from .function import OUT_OF_PLACE, track, track_inplace
from .rules_math import math_rules
from .rules_views import view_rules

_NOT_INPLACE = {"requires_grad_", "detach_", "retain_grad", "register_hook"}
_MODULES = (elementwise, unary, reductions, matmul)


def install() -> None:
    rules = {**view_rules(), **math_rules()}
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
    # the module functions that are the same function objects as the methods
    for module in _MODULES:
        for attr, value in list(vars(module).items()):
            if callable(value) and value in wrapped:
                setattr(module, attr, wrapped[value])
    _install_module_functions(rules)
    for name in list(vars(Tensor)):
        if name in _NOT_INPLACE:
            continue
        inplace = (name.endswith("_") and not name.startswith("_")) or name == "__setitem__" or (
            name.startswith("__i") and name.endswith("__") and name[3:-2] in _IOPS)
        if inplace:
            setattr(Tensor, name, track_inplace(getattr(Tensor, name), name))
    for name in ("add", "sub", "mul", "div", "pow", "exp", "log", "sqrt", "tanh", "sigmoid", "relu", "neg", "abs",
                 "sin", "cos"):
        OUT_OF_PLACE[name + "_"] = getattr(Tensor, name)
    for op in ("add", "sub", "mul", "truediv", "pow"):
        OUT_OF_PLACE[f"__i{op}__"] = getattr(Tensor, f"__{op}__")
    OUT_OF_PLACE["__itruediv__"] = Tensor.__truediv__


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


def _install_module_functions(rules: dict) -> None:
    """Module functions that are not the method objects (``elementwise.add`` is its own function
    with the fast paths; ``unary.exp`` too): wrapped with the method's rule."""
    for module in _MODULES:
        for attr, value in list(vars(module).items()):
            if attr.startswith("_") or not callable(value) or getattr(value, "__wrapped_maker__", None):
                continue
            if attr in rules and not isinstance(value, type):
                maker, operands = rules[attr]
                if operands in ("property", "dunder"):
                    operands = "self"
                setattr(module, attr, track(value, maker, operands))


__all__ = ["install", "ops"]
