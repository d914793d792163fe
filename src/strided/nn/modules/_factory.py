"""The one way ``strided.nn``'s layers make their parameters: an uninitialized tensor of the
layer's dtype (``dtype=``; the default float dtype otherwise) on the CPU, that the layer's
``reset_parameters`` then fills with PyTorch's initializer."""

from __future__ import annotations

from typing import Any

from ...creation import empty
from ...device import parse_device
from ...tensor import Tensor
from .parameter import Parameter

__all__ = ["new_parameter", "new_tensor"]


def new_tensor(*shape: int, device: Any = None, dtype: Any = None) -> Tensor:
    if device is not None:
        parse_device(device)  # (only the CPU: anything else is refused there, with PyTorch's text)
    return empty(shape, dtype=dtype)  # (one tuple: a 0-d shape is empty(()), empty() a TypeError)


def new_parameter(*shape: int, device: Any = None, dtype: Any = None) -> Tensor:
    """``Parameter(empty(*shape))`` in ``dtype``.

    >>> new_parameter(2, 3, dtype=strided.float64).dtype
    strided.float64
    """
    return Parameter(new_tensor(*shape, device=device, dtype=dtype))
