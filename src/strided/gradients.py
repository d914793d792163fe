"""The backward-rule registry and the helpers rules share, low enough that the views in
:mod:`strided.tensor` and the ops in :mod:`strided.ops` can both register their rules beside
their forwards.

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

The rules are read only by :mod:`strided.autograd` (a layer far above), which installs the
recording wrappers the first time a tensor requires grad; registering one costs nothing at run
time. Rules run with grad mode off, so the ops they call record nothing.

>>> @backward("exp")
... def exp_backward(out, x):
...     return "ExpBackward0", (x,), lambda g: (g * out,), (out,)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from . import layout as L
from .dispatch import adopted
from .errors import StridedRuntimeError

__all__ = ["BACKWARD", "backward", "flat_indices", "requires_grad", "scatter_into_view", "sum_to", "grad_zeros"]

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


def requires_grad(t: Any) -> bool:
    """Whether the tensor ``t`` takes part in autograd (a leaf that requires grad, or a result of one)."""
    m = t._ag
    return m is not None and (m.requires_grad or m.grad_fn is not None)


def grad_zeros(shape: tuple[int, ...], dtype: Any) -> Any:
    """A new contiguous zero tensor of ``shape`` and ``dtype``, memory of its own: the canvas the
    backward rules scatter or add a gradient into (``np.zeros`` asks the allocator for zeroed
    pages: no fill pass).

    >>> grad_zeros((2, 3), strided.float64).sum().item()
    0.0
    """
    return adopted(np.zeros(L.product(shape), dtype.numpy), L.Layout._trusted(shape, L.contiguous_strides(shape), 0),
                   dtype)


def scatter_into_view(shape: tuple, g: Any, take_view: Callable[[Any], Any]) -> Any:
    """A zero tensor of ``shape`` with ``g`` added into ``take_view(it)`` (overlaps accumulate).

    >>> scatter_into_view((3,), strided.ones(1), lambda z: z[1:2])
    tensor([0., 1., 0.])
    """
    z = grad_zeros(shape, g._dtype)
    v = take_view(z)
    lay = v._layout
    if L.overlaps(lay.shape, lay.strides) is False:
        v._np()[...] += g._np()
    else:
        np.add.at(z._storage.array, flat_indices(lay), g._np())
    return z


def flat_indices(lay: L.Layout) -> np.ndarray:
    """The storage index of every element of ``lay`` (an int64 array of its shape)."""
    idx = np.full(lay.shape, lay.offset, dtype=np.int64)
    for d, (n, s) in enumerate(zip(lay.shape, lay.strides)):
        shape = [1] * len(lay.shape)
        shape[d] = n
        idx = idx + (np.arange(n, dtype=np.int64) * s).reshape(shape)
    return idx


def sum_to(g: Any, shape: tuple, node: Any = None, i: int = 0) -> Any:
    """``g`` summed down to ``shape`` (the dims a broadcast added or stretched).

    >>> sum_to(strided.ones(2, 3), (1, 3))
    tensor([[2., 2., 2.]])
    """
    gs = g._layout.shape
    if gs == shape:
        return g
    lead = len(gs) - len(shape)
    if lead < 0 or any(s != 1 and s != gs[lead + k] for k, s in enumerate(shape)):
        name = node.name() if node is not None else "backward"
        where = f"input {i} of {name}" if node is not None else "the target"
        raise StridedRuntimeError(
            f"Function {name} returned an invalid gradient at index {i} - got "
            f"{list(gs)} but expected shape compatible with {list(shape)} ({where})")
    dims = tuple(range(lead)) + tuple(lead + k for k, s in enumerate(shape) if s == 1 and gs[lead + k] != 1)
    if dims:
        g = g.sum(dims, keepdim=True)
    if lead:
        g = g.reshape(shape)
    return g
