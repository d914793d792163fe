"""What the losses and layers of ``strided.nn.functional`` share: the compute dtype, PyTorch's
error for a non-float input, the reduction argument (with the legacy ``size_average``/``reduce``
flags) and the one-tensor results their NumPy kernels fill.

>>> reduction_mode("mean"), reduction_mode("mean", size_average=False)
('mean', 'sum')
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...dispatch import adopted, report, result_array
from ...dtypes import DType
from ...errors import StridedValueError, join_lines
from ...ops._support.operands import _cinfo
from ...ops.elementwise.activations import compute_dtype, float_only
from ...tensor import Tensor

__all__ = ["array_like", "array_result", "compute_dtype", "float_only", "g_format", "reduction_mode", "scalar_result"]

_REDUCTIONS = ("none", "mean", "sum")
_SCALAR = _cinfo[()][2]  # the 0-d layout


def reduction_mode(reduction: Any, size_average: Any = None, reduce: Any = None) -> str:
    """The reduction, with PyTorch's legacy ``size_average``/``reduce`` flags read as it reads them."""
    if size_average is not None or reduce is not None:
        # Note: PyTorch also warns that these flags are deprecated; strided reads them silently.
        size_average = True if size_average is None else size_average
        reduce = True if reduce is None else reduce
        return "none" if not reduce else ("mean" if size_average else "sum")
    if reduction not in _REDUCTIONS:
        raise StridedValueError(
            join_lines(f"{reduction} is not a valid value for reduction",
                       "reduction is one of 'none' (a loss per element), 'mean' (the default) or 'sum'")
        )
    return reduction


def scalar_result(value: Any, dtype: DType, op: str, inputs: tuple) -> Tensor:
    """A 0-d tensor of ``dtype`` holding ``value``, reported as ``op``'s result."""
    if value.__class__ is dtype.numpy.type:  # a NumPy scalar of the dtype: its element as it is
        return report(op, inputs, adopted(np.array((value,)), _SCALAR, dtype))
    out, arr = result_array((), dtype)
    with np.errstate(all="ignore"):
        arr[...] = value
    return report(op, inputs, out)


def array_result(values: np.ndarray, shape: tuple[int, ...], dtype: DType, op: str, inputs: tuple) -> Tensor:
    """A fresh contiguous tensor of ``shape`` and ``dtype`` holding ``values``, reported as ``op``'s result."""
    out, arr = result_array(shape, dtype)
    with np.errstate(all="ignore"):
        np.copyto(arr, np.reshape(values, shape), casting="unsafe")
    return report(op, inputs, out)


def array_like(values: np.ndarray, like: Tensor) -> Tensor:
    """``values`` (broadcast) in a fresh tensor of ``like``'s shape and dtype: a first-order
    backward rule's NumPy result."""
    out, arr = result_array(like._layout.shape, like._dtype)
    with np.errstate(all="ignore"):
        np.copyto(arr, np.broadcast_to(values, arr.shape), casting="unsafe")
    return out


def g_format(x: float) -> str:
    """A number as PyTorch's messages print it (``%g``)."""
    return format(float(x), "g")
