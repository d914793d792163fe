"""Shared plumbing of the elementwise ops: operands, NumPy views, output plans, in-place checks.

- :func:`_operand` accepts tensors and Python scalars (NumPy arrays become zero-copy tensors);
- :func:`_view` is the zero-copy NumPy view a ufunc reads or writes;
- :func:`_fresh_output` allocates an output laid out as PyTorch's TensorIterator lays it out;
- :func:`_broadcast` gives the broadcast shape and runs the loud-broadcasting check;
- :func:`_check_inplace` / :func:`_check_partial_overlap` are PyTorch's checks before an
  in-place write, so a failed op leaves its target unchanged;
- ``_quiet_set``/``_quiet_reset`` silence NumPy's floating-point warnings (PyTorch gives
  inf/nan silently).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import layout as L
from ..dtypes import DType, bool_, check_int64, from_numpy_dtype
from ..errors import StridedNotImplementedError, StridedRuntimeError, StridedTypeError, join_lines
from ..kernels import check_writable, new_storage

# NumPy's floating-point warnings are silenced by setting its error-state context variable
# (the kernels' cheap replacement for ``np.errstate``); re-exported for the ops' scalar casts.
from ..kernels.fpstate import QUIET as _QUIET
from ..kernels.fpstate import quiet_reset as _quiet_reset
from ..kernels.fpstate import quiet_set as _quiet_set
from ..kernels.memory import tensor_view as _view  # zero-copy NumPy view a ufunc reads or writes
from ..layout import Layout
from ..tensor import Tensor
from . import broadcasting as B
from .memo import Memo
from .promotion import TORCH_NAMES, can_cast

_make = Tensor._make
_trusted = Layout._trusted

# ---------------------------------------------------------------- operands


def _operand(x: Any, op: str) -> Any:
    """A Tensor or a Python bool/int/float; NumPy arrays become zero-copy tensors.

    # Note: NumPy scalars (``np.float32(2)``) count as Python scalars (their value, not their
    # dtype, as NumPy 2 treats Python scalars), and a NumPy array is wrapped zero-copy
    # (``strided.from_numpy``) so ``ndarray + tensor`` gives a strided tensor.
    """
    if type(x) is Tensor or isinstance(x, Tensor):
        return x
    if isinstance(x, (bool, int, float)):
        if isinstance(x, np.generic):
            return x.item()
        if type(x) is int and not -(2**63) <= x < 2**63:
            check_int64(x, op)
        return x
    if isinstance(x, np.generic) and x.dtype.kind in "biuf":
        return x.item()
    if isinstance(x, np.ndarray) and from_numpy_dtype(x.dtype) is not None:
        from ..creation import from_numpy

        return from_numpy(x)
    raise StridedTypeError(
        join_lines(
            f"{op}(): expected a strided.Tensor or a Python bool/int/float operand, but got "
            f"{type(x).__name__}",
            f"got {x!r:.60}; make a tensor of it first: strided.tensor(data)",
        )
    )


def _np_scalar(value: bool | int | float, dtype: DType) -> Any:
    """A Python scalar as a NumPy scalar of the compute dtype (integers wrap, as PyTorch's cast)."""
    np_type = dtype.numpy.type
    if isinstance(value, bool) or dtype is bool_:
        return np_type(bool(value))
    if dtype.kind in "iu":
        if isinstance(value, int):
            bits = dtype.itemsize * 8
            value &= (1 << bits) - 1
            if dtype.kind == "i" and value >= 1 << (bits - 1):
                value -= 1 << bits
        return np_type(value)
    token = _quiet_set(_QUIET)  # 1e5 -> float16 overflows to inf silently, as in PyTorch
    try:
        return np_type(value)
    finally:
        _quiet_reset(token)


def _kernel_arg(x: Any, dtype: DType) -> Any:
    return _view(x) if isinstance(x, Tensor) else _np_scalar(x, dtype)


# shape -> (row-major strides, numel), for the small-op fast paths
_cinfo = Memo(lambda shape: (L.contiguous_strides(shape), L.product(shape)))


def _fresh_output(
    shape: tuple[int, ...], dtype: DType, operands: list[Any], common: DType, skip_first: bool = False
) -> Tensor:
    """Uninitialized ``dtype`` output with TensorIterator's strides for these operands.

    Python scalars count as 0-d operands. On the CPU PyTorch first converts every tensor
    operand whose dtype differs from the ``common`` (computation) dtype with ``.to()``, so
    such an operand counts with the dense strides that copy gets
    (:func:`strided.layout.preserve_format_strides`); ``skip_first`` exempts ``where``'s
    condition.

    # Note: we do not make that copy: NumPy casts while it reads the operand in place. Only
    # the output layout follows PyTorch's temporary.
    """
    layouts = []
    for i, x in enumerate(operands):
        if type(x) is not Tensor:
            layouts.append(((), ()))
            continue
        lay = x._layout
        strides = lay.strides
        if x._dtype is not common and not (skip_first and i == 0):
            strides = L.preserve_format_strides(lay.shape, strides)
        layouts.append((lay.shape, strides))
    strides, numel = _out_cache[(shape, *layouts)]
    return _make(new_storage(numel, dtype.numpy, shape), _trusted(shape, strides, 0), dtype)


# (result shape, operand layouts...) -> (output strides, numel): the layout plan of an
# elementwise op depends on nothing else, and programs repeat the same few shapes.
_out_cache = Memo(lambda key: (L.elementwise_output_strides(key[0], key[1:]), L.product(key[0])))

# (shape, shape) -> their broadcast shape (PyTorch's error on a mismatch is not remembered)
_shape_cache = Memo(lambda pair: B.broadcast_pair(*pair))


def _broadcast(op: str, operands: list[Any], names: tuple[str, ...]) -> tuple[int, ...]:
    """The broadcast shape of the operands (scalars are 0-d), then the loud-broadcasting check."""
    shapes = [x._layout.shape if type(x) is Tensor else () for x in operands]
    shape = shapes[0]
    for s in shapes[1:]:
        if s != shape:
            shape = _shape_cache[(shape, s)]
    if B.current().mode != "allow":
        tensor_shapes = [s for x, s in zip(operands, shapes) if isinstance(x, Tensor)]
        tensor_names = [n for x, n in zip(operands, names) if isinstance(x, Tensor)]
        B.check_loud(op, tensor_shapes, tensor_names, shape)
    return shape


def _check_partial_overlap(target: Tensor, inputs: list[Any], op: str) -> None:
    """PyTorch's ``assert_no_partial_overlap`` between the written-to tensor and each input.

    The judgement is :func:`strided.layout.overlap_status` (shared with ``copy_``): the same
    memory span with the same strides is a full overlap (fine: ``x += x``), the same span with
    other strides (``x += x.T``) or intersecting spans is refused; layouts that are not dense
    are "too hard", for PyTorch too. 0-d operands are not judged, as in PyTorch's iterator.
    """
    tl = target._layout
    for x in inputs:
        if type(x) is not Tensor or x._storage is not target._storage or x is target:
            continue
        xl = x._layout
        if not (tl.shape and xl.shape) or L.overlap_status(tl, xl) != "partial":
            continue
        t0, x0 = tl.offset, xl.offset
        t1, x1 = t0 + L.product(tl.shape), x0 + L.product(xl.shape)
        raise StridedRuntimeError(
            join_lines(
                "unsupported operation: some elements of the input tensor and the written-to tensor "
                "refer to a single memory location. Please clone() the tensor before performing the "
                "operation.",
                f"{op} writes into shape {tl.shape}, strides {tl.strides}, offset {tl.offset} while "
                f"reading shape {xl.shape}, strides {xl.strides}, offset {xl.offset} of the same "
                f"storage (elements {max(t0, x0)}..{min(t1, x1) - 1} are both read and written)",
                f"fix: pass a copy of the input, e.g. x.{op}(y.clone())",
            )
        )


def _check_inplace(target: Tensor, op: str, result: DType, shape: tuple[int, ...]) -> None:
    """PyTorch's in-place checks; raise before anything is written."""
    if not can_cast(result, target._dtype):
        raise StridedRuntimeError(
            join_lines(
                f"result type {TORCH_NAMES[result]} can't be cast to the desired output type "
                f"{TORCH_NAMES[target._dtype]}",
                f"{op} computes in {result.name} but the target tensor is {target._dtype.name}; "
                f"an in-place op cannot change a tensor's dtype",
                f"fix: use the out-of-place form (x = x.{op.rstrip('_')}(...)) or convert first "
                f"(x = x.to(strided.{result.name}))",
            )
        )
    if shape != target._layout.shape:
        raise StridedRuntimeError(
            join_lines(
                f"output with shape {list(target._layout.shape)} doesn't match the broadcast shape "
                f"{list(shape)}",
                f"{op} writes into the target tensor, which broadcasting may not enlarge; "
                f"the operands broadcast to {shape}",
                "fix: use the out-of-place form, which returns a tensor of the broadcast shape",
            )
        )
    check_writable(target._storage, target._layout, op)


def _not_implemented(kernel: str, dtype: DType, operands: tuple = (), hint: str = "") -> StridedNotImplementedError:
    """PyTorch's NotImplementedError for a dtype an op has no kernel for, with the operands."""
    described = " and ".join(_describe(x) for x in operands)
    return StridedNotImplementedError(
        join_lines(
            f'"{kernel}" not implemented for \'{TORCH_NAMES[dtype]}\'',
            (f"the operands ({described}) promote to {dtype.name}" if described
             else f"the tensor is {dtype.name}") + ", which this op does not accept",
            hint,
        )
    )


def _describe(x: Any) -> str:
    if isinstance(x, Tensor):
        return f"{x._dtype.name} tensor of shape {x._layout.shape}"
    return f"Python {type(x).__name__} {x!r}"
