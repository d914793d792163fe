"""max, min, argmax, argmin: the reductions that also say *where*.

Contracts (PyTorch 2.13):

* ``t.max()`` reduces everything to a 0-d tensor of ``t``'s dtype; on an empty
  tensor it raises RuntimeError (there is no identity to return).
* ``t.max(dim, keepdim=False)`` returns ``return_types.max(values, indices)``;
  ``indices`` are int64 and point at the first occurrence of the extreme value.
  A dim of size 0 raises IndexError. ``t.max(other_tensor)`` is ``maximum``.
* NaN propagates: a slice holding NaN has value NaN and the index of its first NaN.
* ``argmax(dim=None)`` indexes the tensor flattened in row-major order; bool
  tensors are refused, as PyTorch does.

Results are fresh contiguous tensors. NumPy reads the input in place (its own
argmax buffers non-contiguous inputs internally; strided copies nothing).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dtypes import bool_ as bool_dtype
from ..dtypes import int64
from ..errors import StridedIndexError, StridedRuntimeError, join_lines
from ..tensor import Tensor
from . import return_types
from .reduce_args import check_keepdim, new_output, reduced_shape, reduction_dims, shape_text, tensor_arg
from .registry import method


def _empty_dim_error(op: str, t: Tensor, d: int) -> StridedIndexError:
    return StridedIndexError(
        join_lines(
            f"{op}(): Expected reduction dim {d} to have non-zero size.",
            f"the tensor has shape {shape_text(t.shape)}: dim {d} is empty, so there is no "
            f"{'largest' if op.endswith('max') else 'smallest'} element to point at",
        )
    )


def _one_dim(t: Tensor, dim: Any, op: str) -> int:
    d = reduction_dims(t, dim, op, allow_tuple=False)
    assert d is not None
    return d[0]


def _values_and_indices(self: Tensor, dim: Any, keepdim: bool, op: str) -> tuple[Tensor, Tensor]:
    keepdim = check_keepdim(keepdim, op)
    d = _one_dim(self, dim, op)
    shape = self._layout.shape
    if shape and shape[d] == 0:
        raise _empty_dim_error(op, self, d)
    out_shape = reduced_shape(shape, (d,), keepdim)
    values, values_np = new_output(out_shape, self._dtype)
    indices, indices_np = new_output(out_shape, int64)
    x = self._np()
    if not shape:  # a 0-d tensor: its one element, at index 0
        np.copyto(values_np, x)
        indices_np[...] = 0
        return values, indices
    where = np.argmax if op == "max" else np.argmin
    where(x, axis=d, out=indices_np, keepdims=keepdim)
    # the values are read at the indices, so values[i] is always x[indices[i]] (NaN, -0.0)
    at = indices_np if keepdim else np.expand_dims(indices_np, d)
    np.copyto(values_np, np.take_along_axis(x, at, axis=d).reshape(out_shape))
    return values, indices


def _full(self: Tensor, op: str) -> Tensor:
    if self.numel() == 0:
        raise StridedRuntimeError(
            join_lines(
                f"{op}(): Expected reduction dim to be specified for input.numel() == 0. Specify "
                "the reduction dim with the 'dim' argument.",
                f"the tensor has shape {shape_text(self.shape)} and no elements, so there is no "
                f"{'largest' if op == 'max' else 'smallest'} value; t.{op}(dim) works along a "
                "non-empty dim",
            )
        )
    out, out_np = new_output((), self._dtype)
    (np.maximum if op == "max" else np.minimum).reduce(self._np(), axis=None, out=out_np)
    return out


def _extreme(self: Tensor, dim: Any, keepdim: bool, op: str) -> Any:
    tensor_arg(self, op)
    if isinstance(dim, Tensor):  # max(other): elementwise, as in PyTorch
        return getattr(self, "maximum" if op == "max" else "minimum")(dim)
    if dim is None:
        # Note: PyTorch's max() takes no keepdim and refuses dim=None; strided accepts both.
        out = _full(self, op)
        return out.reshape((1,) * self.ndim) if check_keepdim(keepdim, op) else out
    values, indices = _values_and_indices(self, dim, keepdim, op)
    return (return_types.max if op == "max" else return_types.min)(values, indices)


@method("max")
def max(self: Tensor, dim: Any = None, keepdim: bool = False) -> Any:  # noqa: A001
    """The largest element (0-d), or ``(values, indices)`` along ``dim``, or ``maximum(self, other)``."""
    return _extreme(self, dim, keepdim, "max")


@method("min")
def min(self: Tensor, dim: Any = None, keepdim: bool = False) -> Any:  # noqa: A001
    """The smallest element (0-d), or ``(values, indices)`` along ``dim``, or ``minimum(self, other)``."""
    return _extreme(self, dim, keepdim, "min")


def _arg(self: Tensor, dim: Any, keepdim: bool, op: str) -> Tensor:
    tensor_arg(self, op)
    keepdim = check_keepdim(keepdim, op)
    if self._dtype is bool_dtype:
        raise StridedRuntimeError(
            join_lines(
                f"{op}(): does not support bool input",
                f"fix: t.to(strided.uint8).{op}(...) finds the first "
                f"{'True' if op == 'argmax' else 'False'}",
            )
        )
    where = np.argmax if op == "argmax" else np.argmin
    shape = self._layout.shape
    if dim is None:
        if self.numel() == 0:
            raise StridedIndexError(
                join_lines(
                    f"{op}(): Expected reduction dim to be specified for input.numel() == 0.",
                    f"the tensor has shape {shape_text(shape)} and no elements; give a non-empty dim",
                )
            )
        out, out_np = new_output((1,) * len(shape) if keepdim else (), int64)
        where(self._np(), axis=None, out=out_np, keepdims=keepdim)
        return out
    d = _one_dim(self, dim, op)
    if shape and shape[d] == 0:
        raise _empty_dim_error(op, self, d)
    out, out_np = new_output(reduced_shape(shape, (d,), keepdim), int64)
    if not shape:
        out_np[...] = 0
    else:
        where(self._np(), axis=d, out=out_np, keepdims=keepdim)
    return out


@method("argmax")
def argmax(self: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    """Index (int64) of the first largest element along ``dim``; ``dim=None`` flattens row-major."""
    return _arg(self, dim, keepdim, "argmax")


@method("argmin")
def argmin(self: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    """Index (int64) of the first smallest element along ``dim``; ``dim=None`` flattens row-major."""
    return _arg(self, dim, keepdim, "argmin")
