"""Bit shifts and unary plus: ``bitwise_left_shift``, ``bitwise_right_shift`` (``<<``, ``>>``, their
reflected and in-place forms) and ``positive`` (``+t``), PyTorch 2.13's semantics.

Shifts take integer tensors (and Python ints), promote as ``+`` does, and are defined for every
shift count: shifting left by the bit width or more gives 0, shifting right fills with the sign
bit (NumPy's and PyTorch's kernels agree). ``positive`` returns its input (PyTorch's alias) and
refuses bool tensors.

>>> (strided.tensor([1, 2]) << 3).tolist()
[8, 16]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...dtypes import UNSIGNED_WIDE, bool_
from ...errors import StridedNotImplementedError, StridedRuntimeError, join_lines
from ...gradients import returns_input
from ...opdef import Kind, declare
from ...tensor import Tensor, tensor_arg
from .._support.promotion import TORCH_NAMES, can_cast, result_type
from ..registry import method
from .binary import _INTS, BinaryOp, _inplace_dunder, _make_binary

__all__ = ["bitwise_left_shift", "bitwise_right_shift", "positive"]

LSHIFT = BinaryOp("bitwise_left_shift", np.left_shift, kind="bitwise", kernel="lshift_cpu", fast=_INTS)
RSHIFT = BinaryOp("bitwise_right_shift", np.right_shift, kind="bitwise", kernel="rshift_cpu", fast=_INTS)



def _refusing(op: BinaryOp, fn: Callable[..., Any], reflected: bool = False, inplace: bool = False
              ) -> Callable[..., Any]:
    """``fn`` after PyTorch's dtype refusals: its shift kernels exist for the integer dtypes
    except uint16/uint32/uint64 (a bool or float result type is refused with the kernel's name);
    ``inplace``: a result type the target cannot hold is refused first, as TensorIterator's cast
    check comes before the kernel's."""

    def checked(a: Any, b: Any, **kw: Any) -> Any:
        if isinstance(b, (Tensor, bool, int, float, complex)) and (isinstance(a, Tensor) or isinstance(b, Tensor)):
            if isinstance(a, Tensor) and isinstance(b, Tensor) and a._dtype is b._dtype:
                rt = a._dtype  # (two tensors of one dtype: the promotion is that dtype, without its tables)
            else:
                rt = result_type(b, a) if reflected else result_type(a, b)
            if inplace and isinstance(a, Tensor) and not can_cast(rt, a._dtype):
                raise StridedRuntimeError(join_lines(
                    f"result type {TORCH_NAMES[rt]} can't be cast to the desired output type {TORCH_NAMES[a._dtype]}",
                    f"{op.name}_ computes in {rt.name} but the target tensor is {a._dtype.name}; an in-place op "
                    "cannot change a tensor's dtype", "fix: shift by an integer"))
            if rt.kind not in "iu" or rt in UNSIGNED_WIDE:
                raise StridedNotImplementedError(
                    join_lines(f'"{op.kernel}" not implemented for \'{TORCH_NAMES[rt]}\'',
                               "shifts take int8..int64 and uint8 tensors in PyTorch 2.13; convert first, "
                               "e.g. x.to(strided.int64)"))
        return fn(a, b, **kw)

    checked.__name__ = checked.__qualname__ = fn.__name__
    checked.__doc__ = fn.__doc__
    return checked


def _shift(op: BinaryOp) -> tuple[Callable[..., Any], ...]:
    fn, dunder, reflected, inplace = _make_binary(op)
    return (_refusing(op, fn), _refusing(op, dunder), _refusing(op, reflected, reflected=True),
            _refusing(op, inplace, inplace=True))


bitwise_left_shift, _lshift_d, _rlshift, bitwise_left_shift_ = _shift(LSHIFT)
bitwise_right_shift, _rshift_d, _rrshift, bitwise_right_shift_ = _shift(RSHIFT)

method("bitwise_left_shift")(bitwise_left_shift)
method("__lshift__")(_lshift_d)
method("__rlshift__")(_rlshift)
method("bitwise_left_shift_")(bitwise_left_shift_)
method("__ilshift__")(_inplace_dunder(bitwise_left_shift_))
method("bitwise_right_shift")(bitwise_right_shift)
method("__rshift__")(_rshift_d)
method("__rrshift__")(_rrshift)
method("bitwise_right_shift_")(bitwise_right_shift_)
method("__irshift__")(_inplace_dunder(bitwise_right_shift_))


@method("positive", "__pos__")
@returns_input("positive")
def positive(input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's name
    """``input`` itself (``+t``), as ``torch.positive``; a bool tensor is refused.

    >>> t = strided.tensor([1.0, -2.0])
    >>> strided.positive(t) is t
    True
    """
    if input.__class__ is Tensor and input._dtype is not bool_:
        return input  # (the common call, without the argument check's and dtype property's calls)
    tensor_arg(input, "positive")
    if input.dtype.kind == "b":
        raise StridedRuntimeError(
            "The `+` operator, on a bool tensor is not supported.\n"
            "  +t on a bool tensor has no meaning in PyTorch; use t itself, or t.to(strided.int64) for numbers")
    return input


# the kinds of this module's ops, in the op registry
declare(Kind.COMPUTE, "bitwise_left_shift bitwise_right_shift")
declare(Kind.VIEW, "positive")
