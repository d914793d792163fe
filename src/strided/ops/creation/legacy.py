"""``Tensor.new`` and the typed tensor types (``strided.LongTensor``, ``FloatTensor``, ...):
PyTorch's legacy constructors, still used by old code and PyTorch's own tests.

``t.new()`` is an empty 1-D tensor of ``t``'s dtype; ``t.new(2, 3)`` (ints or a ``Size``-like
tuple subclass) uninitialized memory of those sizes; ``t.new(data)`` (a list or a plain tuple) a
tensor of ``t``'s dtype holding ``data``; ``t.new(other)`` for a tensor of the same dtype is
``other`` itself shared (an alias), another dtype is PyTorch's TypeError.

``strided.LongTensor(...)`` is ``new`` in that type's dtype (``LongTensor([1, 2])``,
``LongTensor(2, 3)``, ``LongTensor()``); ``isinstance(t, strided.LongTensor)`` holds for an int64
tensor, as PyTorch's ``torch.tensortype`` check does. They are types, not ops: they make no data
of their own, they call ``tensor``/``empty`` (which the registry reports).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import dtypes as D
from ...args import is_index_scalar
from ...creation import empty, tensor
from ...dtypes import DType
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
    return legacy_new(self._dtype, args, kwargs)


def legacy_new(dtype: DType, args: tuple, kwargs: dict, name: str = "new") -> Tensor:
    """PyTorch's legacy construction in ``dtype`` (``Tensor.new``, ``strided.LongTensor(...)``):
    no arguments, sizes, data (a list, plain tuple or NumPy array), or a tensor of that dtype
    (shared, an alias)."""
    kwargs = {k: v for k, v in kwargs.items() if not (k == "device" and str(v) == "cpu")}  # (the one device)
    if kwargs:
        raise StridedTypeError(join_lines(
            f"{name}() received an invalid combination of arguments - got unexpected keywords {sorted(kwargs)}",
            f"{name} takes sizes or data only; for another dtype use new_empty/new_tensor or strided.tensor(..., dtype=)",
        ))
    if not args:
        return empty(0, dtype=dtype)
    if len(args) == 1:
        arg = args[0]
        if isinstance(arg, Tensor):
            if arg._dtype is not dtype:
                raise StridedTypeError(join_lines(
                    f"expected {dtype.name} (got {arg._dtype.name})",
                    f"{name}(tensor) shares the tensor's memory, so it must already be {dtype.name}; "
                    f"fix: other.to(strided.{dtype.name})",
                ))
            return arg.view_as(arg)  # (PyTorch returns an alias of the same storage)
        if type(arg) in (list, tuple) or isinstance(arg, np.ndarray):  # data; a tuple subclass (Size) is sizes
            return tensor(arg if isinstance(arg, np.ndarray) else list(arg), dtype=dtype)
        if isinstance(arg, tuple):
            return empty(tuple(arg), dtype=dtype)
        if not (isinstance(arg, int) or is_index_scalar(arg)) or isinstance(arg, bool):
            raise StridedTypeError(join_lines(
                f"new(): data must be a sequence (got {type(arg).__name__})",
                "pass sizes (ints) or the elements as a list",
            ))
    return empty(*args, dtype=dtype)


class _TensorType(type):
    """The type of ``strided.LongTensor`` and its kin (PyTorch's ``torch.tensortype``): calling one
    constructs in its dtype, ``isinstance`` tests the dtype."""

    dtype: DType

    def __call__(cls, *args: Any, **kwargs: Any) -> Tensor:  # type: ignore[override]
        return legacy_new(cls.dtype, args, kwargs, cls.__name__)

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, Tensor) and obj._dtype is cls.dtype


def _tensor_type(name: str, dtype: DType) -> _TensorType:
    return _TensorType(name, (), {"dtype": dtype, "__module__": "strided", "__doc__":
                                  f"PyTorch's legacy ``torch.{name}``: ``{name}(data)``, ``{name}(*sizes)``, "
                                  f"``{name}()`` in {dtype.name}; ``isinstance(t, strided.{name})`` tests the dtype."})


FloatTensor = _tensor_type("FloatTensor", D.float32)
DoubleTensor = _tensor_type("DoubleTensor", D.float64)
HalfTensor = _tensor_type("HalfTensor", D.float16)
BFloat16Tensor = _tensor_type("BFloat16Tensor", D.bfloat16)
ByteTensor = _tensor_type("ByteTensor", D.uint8)
CharTensor = _tensor_type("CharTensor", D.int8)
ShortTensor = _tensor_type("ShortTensor", D.int16)
IntTensor = _tensor_type("IntTensor", D.int32)
LongTensor = _tensor_type("LongTensor", D.int64)
BoolTensor = _tensor_type("BoolTensor", D.bool_)
