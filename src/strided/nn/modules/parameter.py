"""``nn.Parameter``: a tensor that a :class:`~strided.nn.Module` lists among its parameters.

As in PyTorch, ``Parameter`` is a subclass of :class:`~strided.Tensor`: ``type(p)`` is
``nn.Parameter``, ``isinstance(p, strided.Tensor)`` holds, ``repr(p)`` starts "Parameter
containing:", and ``deepcopy``, pickle and :func:`strided.save` give a Parameter back. Every op
reads a Parameter as any tensor (the op entries' subclass test, see ``Tensor.__init_subclass__``)
and returns a plain Tensor (PyTorch's Parameter disables ``__torch_function__``): ``p + 1``,
``p.detach()``, ``p.data``, ``p[0]`` are Tensors, and a Parameter's gradient is a Tensor.
Thread behaviour: no shared state.

>>> import strided.nn as nn
>>> p = nn.Parameter(strided.zeros(2))
>>> type(p).__name__, type(p + 1).__name__, p.requires_grad, isinstance(p, strided.Tensor)
('Parameter', 'Tensor', True, True)
"""

from __future__ import annotations

from typing import Any

from ...parameter import Parameter, parameter_repr
from ...tensor import Tensor

__all__ = ["Parameter", "parameter_repr", "rebind", "typename"]


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
    ('torch.FloatTensor', 'int', 'strided.parameter.Parameter')
    """
    if isinstance(value, Tensor):
        return value.type()
    module = getattr(value, "__module__", "") or ""
    qualname = getattr(value, "__qualname__", None) or getattr(value, "__name__", None)
    if not isinstance(qualname, str):
        module, qualname = value.__class__.__module__ or "", value.__class__.__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"
