"""Shared plumbing of the elementwise ops: operands, NumPy views, output plans, in-place checks.

- :func:`_operand` accepts tensors and Python scalars (NumPy arrays become zero-copy tensors);
- :func:`_view` is the zero-copy NumPy view a ufunc reads or writes;
- :func:`_fresh_output` allocates an output laid out as PyTorch's TensorIterator lays it out;
- :func:`_broadcast` gives the broadcast shape and runs the loud-broadcasting check;
- :func:`_check_inplace` / :func:`_check_partial_overlap` are PyTorch's checks before an
  in-place write, so a failed op leaves its target unchanged.

(NumPy's floating-point warnings are silenced by :mod:`strided.kernels.fpstate`, which the ops
import directly.)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ... import layout as L
from ...dispatch import memory_overlap, result, shares_storage
from ...dtypes import DType, bool_, from_numpy_dtype
from ...errors import (
    OverlapWriteError,
    StridedNotImplementedError,
    StridedRuntimeError,
    StridedTypeError,
    UpdatesInOrder,
    join_lines,
)
from ...kernels import check_writable, torch_loops
from ...kernels.memory import flat_run  # noqa: F401  (the fast paths' import of it, beside _cinfo)
from ...kernels.memory import tensor_view as _view  # zero-copy NumPy view a ufunc reads or writes
from ...layout import Layout
from ...messages import partial_overlap, read_after_write
from ...scalars import (
    UInt64Scalar,
    numpy_scalar,
    parse_int,
    uint64_beyond_int64,
    uint64_promotion_error,
    wrapped,
)
from ...tensor import Tensor
from ..shape import broadcasting as B
from .memo import Memo
from .promotion import TORCH_NAMES, can_cast, operand_class, promote_types

_trusted = Layout._trusted

# ---------------------------------------------------------------- operands


def _operand(x: Any, op: str) -> Any:
    """A Tensor or a Python bool/int/float; NumPy arrays become zero-copy tensors.

    An int goes through PyTorch's argument parser (:func:`strided.scalars.parse_int`):
    OverflowError outside ``[-2**63, 2**64)``, a :class:`~strided.scalars.UInt64Scalar` from
    ``2**63`` on (so the op's uncached dtype path checks PyTorch's uint64 promotion rule).

    # Note: NumPy scalars (``np.float32(2)``) count as Python scalars (their value, not their
    # dtype), read as PyTorch's parser reads them (:func:`strided.scalars.numpy_scalar`:
    # ``np.True_`` is the float 1.0, not a bool), and a NumPy array is wrapped zero-copy
    # (``strided.from_numpy``) for the functions and comparisons (``strided.add(t, array)``,
    # ``t < array``); an arithmetic operator's array is NumPy's to compute, as in PyTorch
    # (:func:`strided.interop.numpy_protocols.numpy_operator`).
    """
    if type(x) is Tensor or isinstance(x, Tensor):
        return x
    if isinstance(x, np.generic) and x.dtype.kind in "biufc":
        if uint64_beyond_int64(x):
            raise StridedTypeError(join_lines(
                f"{op}(): an integer is required (got a NumPy {x.dtype.name} of {int(x)}, above int64's range)",
                "PyTorch's parser reads a NumPy integer as an int64 and refuses this one (a Python int "
                f"would be read as uint64 and wrap); fix: float({int(x)}) for its value as a float, or a "
                "uint64 tensor: strided.tensor(value, dtype=strided.uint64)"))
        x = numpy_scalar(x)
    if isinstance(x, (bool, int, float, complex)):
        if type(x) is int and not -(2**63) <= x < 2**63:
            return parse_int(x, op)
        return x
    if isinstance(x, np.ndarray) and from_numpy_dtype(x.dtype) is not None:
        from ...creation import borrow_array

        return borrow_array(x, "from_numpy")  # (any strides: strided's own operand, not the public refusal)
    raise StridedTypeError(
        join_lines(
            f"{op}(): expected a strided.Tensor or a Python bool/int/float operand, but got "
            f"{type(x).__name__}",
            f"got {x!r:.60}; make a tensor of it first: strided.tensor(data)",
        )
    )


def _np_scalar(value: bool | int | float, dtype: DType) -> Any:
    """A Python scalar as a NumPy scalar of the compute dtype, converted as PyTorch converts a
    wrapped number (integers wrap, floats round): :func:`strided.scalars.wrapped`."""
    return wrapped(value, dtype)


_U64 = "UInt64"


def _promote_u64(a: Any, b: Any, op: str) -> Any:
    """PyTorch's ``promoteTypes`` where ``a`` or ``b`` may be uint64: only floats promote with it."""
    if a is b:
        return a
    if a is _U64 or b is _U64:
        other = b if a is _U64 else a
        if other.is_floating_point:
            return other
        raise uint64_promotion_error(a, b, op)
    return promote_types(a, b)


def _combine_u64(higher: Any, lower: Any, op: str) -> Any:
    """PyTorch's ``combine_categories`` with a possible uint64 (see promotion._combine)."""
    if higher is None:
        return lower
    if lower is None or higher.is_floating_point:
        return higher
    if higher is bool_ or (lower is not _U64 and lower.is_floating_point):
        return _promote_u64(higher, lower, op)
    return higher


def _check_uint64_scalars(operands: list[Any], op: str) -> None:
    """Replay PyTorch's ``result_type`` with Python ints from 2**63 on read as uint64, and raise
    its "Promotion for uint16, uint32, uint64 types is not supported" where it does.

    Called only when an operand is a :class:`~strided.scalars.UInt64Scalar` (off the hot path);
    where the promotion succeeds the result dtype is the one promotion.result_type gives.
    """
    state: list[Any] = [None, None, None]  # dims, 0-d, wrapped numbers (promotion's classes)
    for x in operands:
        cls, d = (2, _U64) if type(x) is UInt64Scalar else operand_class(x)
        state[cls] = d if state[cls] is None else _promote_u64(state[cls], d, op)
    result = _combine_u64(state[0], _combine_u64(state[1], state[2], op), op)
    if result is _U64:
        raise StridedTypeError(
            join_lines(
                f"{op}(): the result would be uint64, which strided does not support",
                "every operand is a Python int from 2**63 on; strided supports bool, uint8, int8, "
                "int16, int32, int64, float16, float32, float64",
                "fix: pass one of them as a float (float(value)) or as a tensor of a supported dtype",
            )
        )


def _kernel_arg(x: Any, dtype: DType) -> Any:
    return _view(x) if isinstance(x, Tensor) else _np_scalar(x, dtype)


# shape -> (row-major strides, numel, row-major Layout at offset 0), for the small-op fast paths:
# Layouts are immutable, so every fresh row-major result of one shape shares the one object.
_cinfo = Memo(lambda shape: (L.contiguous_strides(shape), L.product(shape),
                             _trusted(shape, L.contiguous_strides(shape), 0)))


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
        if not isinstance(x, Tensor):
            layouts.append(((), ()))
            continue
        lay = x._layout
        strides = lay.strides
        if x._dtype is not common and not (skip_first and i == 0):
            strides = L.preserve_format_strides(lay.shape, strides)
        layouts.append((lay.shape, strides))
    return result(shape, dtype, _out_cache[(shape, *layouts)])


# (result shape, operand layouts...) -> output strides: the layout plan of an elementwise op
# depends on nothing else, and programs repeat the same few shapes.
_out_cache = Memo(lambda key: L.elementwise_output_strides(key[0], key[1:]))

# (shape, shape) -> their broadcast shape (PyTorch's error on a mismatch is not remembered)
_shape_cache = Memo(lambda pair: B.broadcast_pair(*pair))


def _broadcast(op: str, operands: list[Any], names: tuple[str, ...]) -> tuple[int, ...]:
    """The broadcast shape of the operands (scalars are 0-d), then the loud-broadcasting check."""
    shapes = [x._layout.shape if isinstance(x, Tensor) else () for x in operands]
    shape = shapes[0]
    for s in shapes[1:]:
        if s != shape:
            shape = _shape_cache[(shape, s)]
    if B.current().mode != "allow":
        tensor_shapes = [s for x, s in zip(operands, shapes) if isinstance(x, Tensor)]
        tensor_names = [n for x, n in zip(operands, names) if isinstance(x, Tensor)]
        B.check_loud(op, tensor_shapes, tensor_names, shape)
    return shape


def _check_partial_overlap(target: Tensor, inputs: list[Any], op: str, idempotent: bool = False) -> None:
    """PyTorch's ``assert_no_partial_overlap`` between the written-to tensor and each input.

    The judgement is :func:`strided.layout.overlap_status` (shared with ``copy_``): the same
    memory span with the same strides is a full overlap (fine: ``x += x``), the same span with
    other strides (``x += x.T``) or intersecting spans is refused; layouts that are not dense
    are "too hard", for PyTorch too. 0-d operands are judged like any other (``b.mul_(b[0])``
    is refused, as in PyTorch 2.13).
    ``idempotent``: the op of an element with itself is that element (``clamp_`` with one bound:
    max(v, v) is v), so an element written where the input reads that same element keeps its
    value and may be read at any time (as a copy's: ``x[::2].clamp_(min=x[2])`` is PyTorch's
    whatever its order).
    """
    tl = target._layout
    for x in inputs:
        if not isinstance(x, Tensor) or x is target or not shares_storage(x, target):  # (typed aliases too)
            continue
        xl = x._layout
        status = memory_overlap(target, x)
        if status is L.OverlapStatus.TOO_HARD:
            where = torch_loops.read_after_write((tl.shape, tl.strides, tl.offset, target._dtype.itemsize),
                                                 (xl.shape, xl.strides, xl.offset, x._dtype.itemsize),
                                                 copy=idempotent and x._dtype is target._dtype)
            if where is not None:
                raise read_after_write(op, tl, xl, where, f"fix: pass a copy of the input, e.g. x.{op}(y.clone())")
            continue
        if status is not L.OverlapStatus.PARTIAL:
            continue
        raise partial_overlap(op, tl, xl, L.storage_extent(tl), L.storage_extent(xl),
                              f"fix: pass a copy of the input, e.g. x.{op}(y.clone())")


def _check_inplace(target: Tensor, op: str, result: DType, shape: tuple[int, ...], elementwise: bool = True,
                   target_names: Mapping[DType, str] = TORCH_NAMES) -> None:
    """PyTorch's in-place checks; raise before anything is written.

    ``elementwise``: the op's loop updates each element from its own location alone, so a
    target whose elements share memory without a stride-0 dim is refused with
    :class:`~strided.errors.UpdatesInOrder` where PyTorch's loop runs on one thread: the
    in-place entry catches it and makes PyTorch's updates in its order
    (:mod:`.overlap_updates`). ``target_names``: how PyTorch's message names the target's dtype
    (:data:`strided.dtype_promotion.CPP_NAMES` where its check is the C++ scalar type's, as clamp_ with number bounds)."""
    if not can_cast(result, target._dtype):
        raise StridedRuntimeError(
            join_lines(
                f"result type {TORCH_NAMES[result]} can't be cast to the desired output type "
                f"{target_names[target._dtype]}",
                f"{op} computes in {result.name} but the target tensor is {target._dtype.name}; "
                f"an in-place op cannot change a tensor's dtype",
                f"fix: use the out-of-place form (x = x.{op.rstrip('_')}(...)) or convert first "
                f"(x = x.to(strided.{result.name}))",
            )
        )
    check_inplace_shape(target, op, shape)
    try:
        check_writable(target._storage, target._layout, op, updates=True)
    except OverlapWriteError as e:
        lay = target._layout
        if elementwise and not L.has_internal_overlap(lay.shape, lay.strides) and torch_loops.parallel_chunks(L.product(lay.shape), torch_loops.torch_threads()) <= 1:
            raise UpdatesInOrder(str(e)) from None
        raise


def check_inplace_shape(target: Tensor, op: str, shape: tuple[int, ...]) -> None:
    """PyTorch's refusal of an in-place write whose operands broadcast beyond ``target``'s shape
    (TensorIterator's shape step: before any dtype check or missing kernel)."""
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
