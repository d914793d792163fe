"""Attaching op functions to Tensor as methods, and their backward rules beside them.

``@method("add", "__add__")`` in each op module installs a function as Tensor methods (the
decorator is :func:`strided.tensor.installs_as`, shared with the write path).

``@backward("mul", "multiply", operands="two")`` registers the op's gradient rule, written right
after its forward in the same module (as micrograd keeps them). A rule is
``rule(out, *args, **kwargs) -> (node_name, inputs, backward, saved)`` or None: called after the
forward ran with its result and its own arguments, it returns PyTorch's node name
(``"MulBackward0"``), the inputs the gradient flows to (tensors; None or a number for an argument
that gets no gradient), ``backward(grad) -> one gradient per input`` (a closure computing with
strided's own ops) and the tensors it saved (their version counters are checked before it runs).
A fifth item (any value) marks an op with several differentiable outputs (split, unbind): then
``backward`` takes one gradient per output (None where an output got none).

``operands`` says where tensors may sit among the arguments, so the recording wrapper can test
for autograd cheaply: "self" (only the first argument), "two" (the first two), "dunder" (exactly
``(self, other)``), "property" (a Tensor property) or "any" (anywhere, lists and tuples included:
``cat``, ``stack``, ``einsum``, ``where``). An ``nn.functional`` function whose signature is its
own (``F.cross_entropy``) registers as ``"F.<name>"``.

The rules are read only by :mod:`strided.autograd` (the layer above), which installs the
recording wrappers the first time a tensor requires grad; registering one costs nothing at run
time.

>>> @backward("exp")
... def exp_backward(out, x):
...     return "ExpBackward0", (x,), lambda g: (g * out,), (out,)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..tensor import installs_as as method

__all__ = ["BACKWARD", "backward", "method"]

OPERANDS = ("self", "two", "dunder", "property", "any")

# op name (a Tensor method's name, or a module function's name) -> (rule, operands)
BACKWARD: dict[str, tuple[Callable[..., Any], str]] = {}


def backward(*names: str, operands: str = "self") -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register the decorated function as the backward rule of the ops ``names`` (see the module doc)."""
    if operands not in OPERANDS:
        raise ValueError(f"operands must be one of {OPERANDS}, not {operands!r}")

    def register(rule: Callable[..., Any]) -> Callable[..., Any]:
        for name in names:
            BACKWARD[name] = (rule, operands)
        return rule

    return register
