"""Tensors made in another tensor's image, and the questions a script asks of a tensor.

``t.new_zeros``/``new_ones``/``new_empty``/``new_full``/``new_tensor`` make a new tensor with
``t``'s dtype (unless ``dtype=`` is given), contiguous, sharing nothing with ``t``, as PyTorch's;
``t.type_as(other)`` is ``t.to(other.dtype)`` (``t`` itself when the dtype already matches).
The module functions ``is_tensor``, ``is_floating_point``, ``is_nonzero`` and ``numel`` mirror
``torch.<name>``, with PyTorch's TypeError for a non-tensor.

>>> x = strided.ones(2, dtype=strided.float64)
>>> x.new_zeros(2, 3).dtype, x.new_full((2,), 7).tolist(), strided.numel(x)
(strided.float64, [7.0, 7.0], 2)
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import creation
from ..args import missing_size, size_sequence, type_name
from ..callsite import user_stacklevel
from ..creation import _ANY_SIZE, _FAST_ELEMENTS, _FILL_LIMIT
from ..dispatch import _result_plans, fresh_filled
from ..errors import StridedRuntimeError, StridedTypeError
from ..grad_mode import check_flag
from ..kernels.listeners import OPEN, listened, reporting
from ..opdef import OPDEFS, Kind, declare
from ..tensor import Tensor
from .registry import method

__all__ = ["is_floating_point", "is_nonzero", "is_same_size", "is_signed", "is_tensor", "numel"]


# The factories as their module defines them, bound before the face's guards replace them there:
# a guard around them has nothing to check (no tensor among their arguments) and, inside a
# new_* entry, no record to make (the entry's own record holds theirs); it was a seventh of new_zeros.
_zeros, _ones, _empty, _full = creation.zeros, creation.ones, creation.empty, creation.full
_np_zeros, _np_empty = np.zeros, np.empty


def _own_dtype(self: Tensor, dtype: Any) -> Any:
    return self._dtype if dtype is None else dtype


def _reports(fn: Callable[..., Tensor], name: str | None = None) -> Callable[..., Tensor]:
    """``fn`` reporting itself to the listeners open (one record of ``name``, default its own, with
    ``self`` as its input), the factory it runs folded into it. (No autograd guard: a new tensor has
    no history, whatever ``self``'s, as in PyTorch.)

    A ``new_*`` method with a fast path is the method itself: while nobody listens, its fast path
    and else its general path run directly; this entry, around the general path, only while a
    listener is open. A fast call then runs one Python frame, not this entry's (its ``*args`` and
    ``**kwargs`` packed again) and the method's: ~0.25-0.5 us of a ~1 us call."""
    name = fn.__name__ if name is None else name

    @functools.wraps(fn)
    def entry(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        if OPEN and reporting():
            return listened(name, OPDEFS[name], fn, (self, *args), kwargs, (self,))
        return fn(self, *args, **kwargs)

    return entry


def _sizes(sizes: tuple[Any, ...], size: Any, op: str) -> tuple[Any, ...]:
    """The sizes given as ints, as one sequence, or as ``size=`` (PyTorch's keyword), not two of them."""
    if size is None:
        if not sizes:  # (t.new_zeros(): PyTorch's TypeError, not a 0-d tensor)
            raise missing_size(op)
        return sizes
    if sizes:
        raise StridedTypeError(f"{op}() got multiple values for argument 'size'\n  give the sizes once: {op}(2, 3) or {op}(size=(2, 3))")
    return (size,)


@method("new_zeros")
def new_zeros(self: Tensor, *sizes: Any, size: Any = None, dtype: Any = None, device: Any = None,
                  requires_grad: bool = False) -> Tensor:
    """Zeros of ``size`` (ints or one tuple) with this tensor's dtype unless ``dtype`` is given.

    >>> strided.ones(1, dtype=strided.int32).new_zeros(2).tolist()
    [0, 0]
    """
    if size is None and dtype is None and device is None and requires_grad is False and not OPEN and \
            (fast := fresh_filled(sizes, _result_plans, _FAST_ELEMENTS, _np_zeros, self._dtype.numpy, None,
                                  self._dtype)) is not None:
        return fast  # (zeros' fast path in self's dtype, in one C call)
    run = _new_zeros_general if not OPEN else _new_zeros  # (nobody listening: without the reporting entry)
    return run(self, *sizes, size=size, dtype=dtype, device=device, requires_grad=requires_grad)


def _new_zeros_general(self: Tensor, *sizes: Any, size: Any = None, dtype: Any = None, device: Any = None,
                       requires_grad: bool = False) -> Tensor:
    requires_grad = check_flag(requires_grad, "new_zeros")  # (named as this method, not the factory it calls)
    return _zeros(*_sizes(sizes, size, 'new_zeros'), dtype=_own_dtype(self, dtype), device=device, requires_grad=requires_grad)


_new_zeros = _reports(_new_zeros_general, "new_zeros")


@method("new_ones")
def new_ones(self: Tensor, *sizes: Any, size: Any = None, dtype: Any = None, device: Any = None,
                 requires_grad: bool = False) -> Tensor:
    """Ones of ``size`` (ints or one tuple) with this tensor's dtype unless ``dtype`` is given.

    >>> strided.zeros(1, dtype=strided.float64).new_ones((1, 2)).dtype
    strided.float64
    """
    if size is None and dtype is None and device is None and requires_grad is False and not OPEN and \
            (fast := fresh_filled(sizes, _result_plans, _FILL_LIMIT, _np_empty, self._dtype.numpy, 1,
                                  self._dtype)) is not None:
        return fast  # (ones' fast path in self's dtype, in one C call)
    run = _new_ones_general if not OPEN else _new_ones
    return run(self, *sizes, size=size, dtype=dtype, device=device, requires_grad=requires_grad)


def _new_ones_general(self: Tensor, *sizes: Any, size: Any = None, dtype: Any = None, device: Any = None,
                      requires_grad: bool = False) -> Tensor:
    requires_grad = check_flag(requires_grad, "new_ones")  # (named as this method, not the factory it calls)
    return _ones(*_sizes(sizes, size, 'new_ones'), dtype=_own_dtype(self, dtype), device=device, requires_grad=requires_grad)


_new_ones = _reports(_new_ones_general, "new_ones")


@method("new_empty")
def new_empty(self: Tensor, *sizes: Any, size: Any = None, dtype: Any = None, device: Any = None,
                  requires_grad: bool = False) -> Tensor:
    """Uninitialized memory of ``size`` with this tensor's dtype unless ``dtype`` is given.

    >>> strided.zeros(1).new_empty(2, 3).stride()
    (3, 1)
    """
    if size is None and dtype is None and device is None and requires_grad is False and not OPEN:
        # (empty's fast path in self's dtype, in one C call, whatever the size: a failed allocation
        # is the general path's error; 2^20 float32 ~1.7 -> ~1.2 us, PyTorch ~1.4)
        try:
            fast = fresh_filled(sizes, _result_plans, _ANY_SIZE, _np_empty, self._dtype.numpy, None, self._dtype)
        except (ValueError, MemoryError, OverflowError):
            fast = None
        if fast is not None:
            return fast
    run = _new_empty_general if not OPEN else _new_empty
    return run(self, *sizes, size=size, dtype=dtype, device=device, requires_grad=requires_grad)


def _new_empty_general(self: Tensor, *sizes: Any, size: Any = None, dtype: Any = None, device: Any = None,
                       requires_grad: bool = False) -> Tensor:
    requires_grad = check_flag(requires_grad, "new_empty")  # (named as this method, not the factory it calls)
    return _empty(*_sizes(sizes, size, 'new_empty'), dtype=_own_dtype(self, dtype), device=device, requires_grad=requires_grad)


_new_empty = _reports(_new_empty_general, "new_empty")


@method("new_full")
def new_full(self: Tensor, size: Any, fill_value: Any, *, dtype: Any = None, device: Any = None,
             requires_grad: bool = False) -> Tensor:
    """``fill_value`` over ``size`` (a tuple or list, as PyTorch's) with this tensor's dtype unless
    ``dtype`` is given.

    >>> strided.zeros(1).new_full((2,), 3).tolist()
    [3.0, 3.0]
    """
    if dtype is None and device is None and requires_grad is False and not OPEN and size.__class__ is tuple and \
            (fast := creation.full_of_float(size, fill_value, self._dtype)) is not None:
        return fast  # (full's fast path in self's dtype: a float fill of a float32/float64 tensor)
    run = _new_full_general if not OPEN else _new_full
    return run(self, size, fill_value, dtype=dtype, device=device, requires_grad=requires_grad)


def _new_full_general(self: Tensor, size: Any, fill_value: Any, *, dtype: Any = None, device: Any = None,
                      requires_grad: bool = False) -> Tensor:
    requires_grad = check_flag(requires_grad, "new_full")  # (named as this method, not the factory it calls)
    size_sequence(size, fill_value, "new_full")
    return _full(size, fill_value, dtype=_own_dtype(self, dtype), device=device, requires_grad=requires_grad)


_new_full = _reports(_new_full_general, "new_full")


@method("new_tensor")
@_reports
def new_tensor(self: Tensor, data: Any, *, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """A copy of ``data`` with this tensor's dtype unless ``dtype`` is given (never a view of it).

    >>> strided.zeros(1, dtype=strided.float64).new_tensor([1, 2])
    tensor([1., 2.], dtype=strided.float64)
    """
    requires_grad = check_flag(requires_grad, "new_tensor")  # (named as this method, not the factory it calls)
    if isinstance(data, Tensor):
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
            "sourceTensor.detach().clone().requires_grad_(True), rather than tensor.new_tensor(sourceTensor).",
            UserWarning, stacklevel=user_stacklevel(),  # (the user's line, as tensor(t)'s: not this module's entry)
        )
        if dtype is None and device is None and requires_grad is False and not OPEN and \
                data.__class__ is Tensor and data._dtype is self._dtype:
            # (the common copy of a tensor of self's dtype: tensor(data)'s row-major fast copy, the
            # general path's values, dtype and row-major layout; None for anything else)
            fast = creation._rowmajor_copy(data)
            if fast is not None:
                return fast
        data = data.detach()  # (tensor() copies its elements into new memory: no clone first)
    return creation.copied_tensor(data, _own_dtype(self, dtype), device, requires_grad)


@method("type_as")
def type_as(self: Tensor, other: Tensor) -> Tensor:
    """This tensor in ``other``'s dtype: ``self.to(other.dtype)`` (``self`` when it already has it).

    >>> strided.tensor([1, 2]).type_as(strided.zeros(1)).dtype
    strided.float32
    """
    if other.__class__ is Tensor and other._dtype is self._dtype:
        return self  # (to()'s own answer for its dtype, without its entry: a third of a small type_as)
    if not isinstance(other, Tensor):
        raise StridedTypeError(f"type_as(): argument 'other' (position 1) must be Tensor, not {type_name(other)}")
    return self.to(other._dtype)


def _tensor_only(x: Any, op: str) -> None:
    if not isinstance(x, Tensor):
        raise StridedTypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not {type_name(x)}")


def is_tensor(obj: Any) -> bool:
    """Whether ``obj`` is a strided Tensor (``torch.is_tensor``).

    >>> strided.is_tensor(strided.zeros(1)), strided.is_tensor([1])
    (True, False)
    """
    return isinstance(obj, Tensor)


def is_floating_point(input: Tensor) -> bool:  # noqa: A002 - torch's argument name
    """Whether ``input``'s dtype is a floating one (``torch.is_floating_point``).

    >>> strided.is_floating_point(strided.zeros(1))
    True
    """
    _tensor_only(input, "is_floating_point")
    return input._dtype.is_floating_point


def numel(input: Tensor) -> int:  # noqa: A002 - torch's argument name
    """The number of elements of ``input`` (``torch.numel``).

    >>> strided.numel(strided.zeros(2, 3))
    6
    """
    _tensor_only(input, "numel")
    return input.numel()


@method("is_nonzero")
def is_nonzero(input: Tensor) -> bool:  # noqa: A002 - torch's argument name
    """Whether the one element of ``input`` is not zero (``torch.is_nonzero``); PyTorch's error
    for a tensor of no element or of more than one.

    >>> strided.is_nonzero(strided.tensor([0.5])), strided.tensor(0).is_nonzero()
    (True, False)
    """
    _tensor_only(input, "is_nonzero")
    n = input.numel()
    if n != 1:
        raise StridedRuntimeError(
            f"Boolean value of Tensor with {'no values' if n == 0 else 'more than one value'} is ambiguous\n"
            f"  the tensor has shape {input.shape} ({n} elements); is_nonzero asks about exactly one: "
            "reduce first (x.any(), x.all()) or pick one element (x[0])"
        )
    return bool(input.reshape(()).item())


@method("is_signed")
def is_signed(input: Tensor) -> bool:  # noqa: A002 - torch's argument name
    """Whether ``input``'s dtype holds negative numbers (``torch.is_signed``): the floats, the
    complex dtypes and the signed integers; not bool or the unsigned integers.

    >>> strided.is_signed(strided.zeros(1)), strided.zeros(1, dtype=strided.uint8).is_signed()
    (True, False)
    """
    _tensor_only(input, "is_signed")
    d = input._dtype
    return d.is_floating_point or d.is_complex or d.numpy.kind == "i"


@method("is_same_size")
def is_same_size(input: Tensor, other: Tensor) -> bool:  # noqa: A002 - torch's argument name
    """Whether ``input`` and ``other`` have the same shape (``torch.is_same_size``).

    >>> strided.zeros(2, 3).is_same_size(strided.ones(2, 3))
    True
    """
    _tensor_only(input, "is_same_size")
    if not isinstance(other, Tensor):
        raise StridedTypeError(f"is_same_size(): argument 'other' (position 1) must be Tensor, not {type_name(other)}")
    return input._layout.shape == other._layout.shape


declare(Kind.ALLOC, "new_zeros new_ones new_empty new_full new_tensor", layout_only="new_zeros new_ones new_empty new_full")
declare(Kind.COPY, "type_as")
