"""``parameters_to_vector`` and ``vector_to_parameters``, as PyTorch's.

>>> import strided.nn as nn
>>> lin = nn.Linear(3, 2)
>>> nn.utils.parameters_to_vector(lin.parameters()).shape
(8,)
"""

from __future__ import annotations

from collections.abc import Iterable

from ...errors import StridedTypeError
from ...tensor import Tensor
from ..modules.parameter import rebind, typename

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """The parameters flattened (``view(-1)``: each must be viewable so) and concatenated (one copy)."""
    from ...ops.shape.joining import cat

    return cat([p.view(-1) for p in parameters])


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Make each parameter a view of its slice of ``vec`` (PyTorch's ``param.data = ...``: the
    parameter objects stay, and now share ``vec``'s memory).

    >>> import strided.nn as nn
    >>> lin = nn.Linear(2, 1)
    >>> nn.utils.vector_to_parameters(strided.arange(3.0), lin.parameters())
    >>> lin.weight.tolist(), lin.bias.tolist()
    ([[0.0, 1.0]], [2.0])
    """
    if not isinstance(vec, Tensor):
        raise StridedTypeError(f"expected torch.Tensor, but got: {typename(vec)}")
    pointer = 0
    for param in parameters:
        n = param.numel()
        rebind(param, vec[pointer:pointer + n].view_as(param).detach())
        pointer += n
