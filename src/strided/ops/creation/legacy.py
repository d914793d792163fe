"""``Tensor.new``: PyTorch's legacy constructor, still used by old code and PyTorch's own tests.

``t.new()`` is an empty 1-D tensor of ``t``'s dtype; ``t.new(2, 3)`` (ints or a ``Size``-like
tuple subclass) uninitialized memory of those sizes; ``t.new(data)`` (a list or a plain tuple) a
tensor of ``t``'s dtype holding ``data``; ``t.new(other)`` for a tensor of the same dtype is
``other`` itself shared (an alias), another dtype is PyTorch's TypeError.
"""

from __future__ import annotations

from typing import Any

from ...args import is_index_scalar
from ...creation import empty, tensor
from ...errors import StridedTypeError, join_lines
from ...tensor import Tensor
from ..registry import method


@method("new")
def new(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """PyTorch's ``Tensor.new`` (see the module): sizes, data or a tensor, in ``self``'s dtype.

    >>> x = strided.zeros(2, dtype=strided.float64)
    >>> x.new([1, 2]).tolist(), x.new(2, 3).shape, x.new().shape
    ([1.0, 2.0], (2, 3), (0,))
    """
    if kwargs:
        raise StridedTypeError(join_lines(
            f"new() received an invalid combination of arguments - got unexpected keywords {sorted(kwargs)}",
            "Tensor.new takes sizes or data only; for another dtype use new_empty/new_tensor or strided.tensor(..., dtype=)",
        ))
    dtype = self._dtype
    if not args:
        return empty(0, dtype=dtype)
    if len(args) == 1:
        arg = args[0]
        if isinstance(arg, Tensor):
            if arg._dtype is not dtype:
                raise StridedTypeError(join_lines(
                    f"expected {dtype.name} (got {arg._dtype.name})",
                    f"new(tensor) shares the tensor's memory, so it must already be {dtype.name}; "
                    f"fix: other.to(strided.{dtype.name})",
                ))
            return arg.view_as(arg)  # (PyTorch returns an alias of the same storage)
        if type(arg) in (list, tuple):  # a plain sequence is data; a tuple subclass (Size) is sizes
            return tensor(list(arg), dtype=dtype)
        if isinstance(arg, tuple):
            return empty(tuple(arg), dtype=dtype)
        if not (isinstance(arg, int) or is_index_scalar(arg)) or isinstance(arg, bool):
            raise StridedTypeError(join_lines(
                f"new(): data must be a sequence (got {type(arg).__name__})",
                "pass sizes (ints) or the elements as a list",
            ))
    return empty(*args, dtype=dtype)
