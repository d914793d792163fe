"""``Parameter``: the Tensor subclass :class:`strided.nn.Module` lists among its parameters
(``strided.nn.Parameter``; it lives in the tensor layer so that :func:`strided.save` and
:func:`strided.load` can keep the class without importing ``strided.nn``).

As in PyTorch, ``type(p)`` is ``Parameter``, ``isinstance(p, strided.Tensor)`` holds, ``repr(p)``
starts "Parameter containing:", and ``deepcopy``, pickle and :func:`strided.save` give a
Parameter back. Every op reads a Parameter as any tensor (the op entries' subclass test, see
``Tensor.__init_subclass__``) and returns a plain Tensor (PyTorch's Parameter disables
``__torch_function__``): ``p + 1``, ``p.detach()``, ``p.data``, ``p[0]`` and ``p.grad`` are
Tensors. Thread behaviour: no shared state.

>>> from strided.parameter import Parameter
>>> p = Parameter(strided.zeros(2))
>>> type(p).__name__, type(p + 1).__name__, p.requires_grad, isinstance(p, strided.Tensor)
('Parameter', 'Tensor', True, True)
"""

from __future__ import annotations

from typing import Any

from .args import type_name
from .errors import StridedTypeError
from .tensor import Tensor

__all__ = ["Parameter", "parameter_repr"]


class Parameter(Tensor):
    """``Parameter(data=None, requires_grad=True)``: ``data`` detached (the same storage and
    layout), a leaf that requires grad (when ``requires_grad``). ``data=None`` gives an empty
    float tensor, as PyTorch; ``data`` that is a Parameter gives a new Parameter.

    >>> p = Parameter(strided.ones(3))
    >>> p.requires_grad, p.is_leaf, p.shape
    (True, True, (3,))
    >>> print(Parameter(strided.zeros(2), requires_grad=False))
    Parameter containing:
    tensor([0., 0.])
    """

    __slots__ = ()  # (a Tensor's slots and nothing else: no per-parameter __dict__)

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True) -> Parameter:
        if data is None:
            from .creation import empty

            data = empty(0)
        if not isinstance(data, Tensor):
            raise StridedTypeError(f"Parameter() expects a Tensor as data, but got {type_name(data)}: "
                                   "build it with strided.tensor(...) first")
        if not isinstance(requires_grad, bool):  # (PyTorch's parser, under the name of the call it makes)
            raise StridedTypeError(
                f"_make_subclass(): argument 'require_grad' (position 3) must be bool, not {type_name(requires_grad)}\n"
                "  Parameter(data, requires_grad=...) takes True or False")
        p = data.detach().as_subclass(cls)
        if requires_grad:
            p.requires_grad_(True)  # (PyTorch's error for an integer tensor)
        return p

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True) -> None:
        pass  # (Tensor.__init__ refuses direct construction; __new__ built this one)

    def __repr__(self) -> str:
        return parameter_repr(self)

    __str__ = __repr__  # (print(p) shows the same text, as PyTorch's)

    def __deepcopy__(self, memo: dict) -> Parameter:
        """PyTorch's: a Parameter over a clone of the data (its layout kept), the same
        ``requires_grad``; the gradient is not copied."""
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.data.clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, proto: Any) -> tuple:
        """Pickle as PyTorch: the data (a plain Tensor, pickled as one) and ``requires_grad``."""
        # (the data as a plain root alias: ``self.data`` is a view of ``self``, and pickling it
        # would pickle ``self`` again)
        return (_rebuild_parameter, (self.detach().as_subclass(Tensor), self.requires_grad))


def _rebuild_parameter(data: Tensor, requires_grad: bool) -> Parameter:
    return Parameter(data, requires_grad)


def parameter_repr(p: Tensor) -> str:
    """PyTorch's ``repr`` of a parameter: ``"Parameter containing:\\n"`` and the tensor's repr.

    >>> print(parameter_repr(Parameter(strided.zeros(2))))
    Parameter containing:
    tensor([0., 0.], requires_grad=True)
    """
    return "Parameter containing:\n" + Tensor.__repr__(p)
