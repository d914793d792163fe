"""``nn.Parameter``: a tensor that a :class:`~strided.nn.Module` lists among its parameters.

# Note: in PyTorch a Parameter is an instance of a Tensor subclass. strided's ops and autograd
# recording test ``x.__class__ is Tensor`` (their one cheap check), so a subclass instance would
# drop out of the graph. A strided Parameter is therefore a plain :class:`~strided.Tensor` (the
# input ``detach()``-ed: same storage, a leaf that requires grad), marked as a parameter:
# ``isinstance(p, nn.Parameter)`` is true for it and false for every other tensor, while
# ``type(p)`` is ``strided.Tensor`` and ``repr(p)`` is the tensor's repr. :func:`parameter_repr`
# gives PyTorch's "Parameter containing:" text. The mark is kept by the tensor's identity (weakly:
# it goes with the tensor); it is read and written from any thread (a dict write is atomic).

>>> import strided.nn as nn
>>> p = nn.Parameter(strided.zeros(2))
>>> isinstance(p, nn.Parameter), isinstance(strided.zeros(2), nn.Parameter), p.requires_grad
(True, False, True)
"""

from __future__ import annotations

import weakref
from typing import Any

from ...errors import StridedTypeError
from ...tensor import Tensor

__all__ = ["Parameter", "parameter_repr", "rebind", "typename"]

# id(tensor) -> tensor, for the tensors made by Parameter(...) (gone when the tensor goes)
_MARKED: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


def _is_parameter(value: Any) -> bool:
    return value.__class__ is Tensor and _MARKED.get(id(value)) is value


class _ParameterMeta(type):
    """``isinstance(x, Parameter)``: whether ``x`` is a tensor made by ``Parameter(...)``."""

    def __instancecheck__(cls, instance: Any) -> bool:
        return _is_parameter(instance)


class Parameter(metaclass=_ParameterMeta):
    """``Parameter(data=None, requires_grad=True)``: ``data`` detached (the same storage), a leaf
    that requires grad (when ``requires_grad``), marked as a module parameter. ``data=None`` gives
    an empty float tensor, as PyTorch.

    >>> p = Parameter(strided.ones(3))
    >>> p.requires_grad, p.is_leaf, p.shape
    (True, True, (3,))
    """

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True) -> Any:  # type: ignore[misc]
        if data is None:
            from ...creation import empty

            data = empty(0)
        if not isinstance(data, Tensor):
            raise StridedTypeError(f"Parameter() expects a Tensor as data, but got {typename(data)}: "
                                   "build it with strided.tensor(...) first")
        p = data.detach()
        p.requires_grad_(bool(requires_grad))
        mark(p)
        return p


def mark(t: Tensor) -> Tensor:
    """Mark the plain tensor ``t`` as a parameter (what ``Parameter`` and a module's unpickling do)."""
    _MARKED[id(t)] = t
    return t


def parameter_repr(p: Tensor) -> str:
    """PyTorch's ``repr`` of a parameter: ``"Parameter containing:\\n"`` and the tensor's repr.

    >>> print(parameter_repr(Parameter(strided.zeros(2))))
    Parameter containing:
    tensor([0., 0.], requires_grad=True)
    """
    return "Parameter containing:\n" + repr(p)


def rebind(p: Tensor, new: Tensor) -> None:
    """PyTorch's ``p.data = new`` for a module's own tensors (``Module.to``, ``float()``,
    ``vector_to_parameters``): ``p`` keeps its identity (an optimizer holding it still sees it)
    and now reads ``new``'s storage and layout; its gradient, if any, is converted to ``new``'s
    dtype. ``p`` must be a leaf (parameters are)."""
    grad = p.grad
    p._storage, p._layout, p._dtype, p._base = new._storage, new._layout, new._dtype, new._base
    if grad is not None and grad._dtype is not new._dtype:
        p._ag.grad = grad.to(new._dtype)


def typename(value: Any) -> str:
    """``torch.typename``: a tensor's type string ("torch.FloatTensor"), else the qualified name
    of the object (a class) or of its class (builtins unqualified).

    >>> typename(strided.zeros(1)), typename(3), typename(Parameter)
    ('torch.FloatTensor', 'int', 'strided.nn.modules.parameter.Parameter')
    """
    if isinstance(value, Tensor):
        return value.type()
    module = getattr(value, "__module__", "") or ""
    qualname = getattr(value, "__qualname__", None) or getattr(value, "__name__", None)
    if not isinstance(qualname, str):
        module, qualname = value.__class__.__module__ or "", value.__class__.__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"
