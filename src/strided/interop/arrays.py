"""``as_tensor`` and ``asarray``: a tensor over existing memory when the dtype allows, as PyTorch's.

Both take what PyTorch's take and share memory with it where PyTorch does:

- a strided tensor: itself;
- a NumPy array: its memory, any strides (negative ones too) and read-only flag;
- a DLPack producer (a torch tensor, a JAX array, ...): its memory, through :func:`from_dlpack`;
- for ``asarray`` only, a buffer (bytes, bytearray, memoryview, array.array, mmap): its bytes
  read as ``dtype`` (float32 by default), as ``torch.asarray`` does;
- anything else (numbers, nested lists, NumPy scalars): a new tensor, as ``strided.tensor``.

A ``dtype`` other than the data's converts into a new tensor; ``asarray(copy=True)`` always
copies and ``asarray(copy=False)`` raises where a copy would be needed. Every copy made here is
in the copy ledger, with a reason that says what asked for it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..creation import _negative_strides, borrow_array, tensor
from ..device import parse_device
from ..dispatch import copy_of
from ..dtypes import TORCH_NAME, DType, default_float, to_dtype
from ..errors import StridedRuntimeError, StridedValueError, join_lines
from ..layout import plans as P
from ..tensor import Tensor
from .dlpack import from_dlpack


def as_tensor(data: Any, dtype: Any = None, device: Any = None) -> Tensor:
    """``data`` as a tensor, sharing its memory when it has some and ``dtype`` is its own: a
    strided tensor is returned itself, a NumPy array or a DLPack producer (a torch tensor) is
    wrapped without a copy; other data (lists, numbers) is copied, as ``strided.tensor``.

    A ``dtype`` other than the data's gives a converted copy (recorded in the copy ledger).

    >>> a = np.arange(3.0)
    >>> t = strided.as_tensor(a)
    >>> t[0] = 5.0
    >>> a
    array([5., 1., 2.])
    >>> strided.as_tensor(a, dtype=strided.float32).dtype  # a converted copy
    strided.float32
    """
    parse_device(device, "as_tensor")
    target = None if dtype is None else to_dtype(dtype)
    t = _shared(data, "as_tensor", None, None)
    if t is None:
        return tensor(data, target)
    if target is not None and target is not t._dtype:
        return _converted(t, target, f"as_tensor: {t._dtype.name} data asked for as dtype={target.name}")
    return t


def asarray(obj: Any, *, dtype: Any = None, device: Any = None, copy: bool | None = None) -> Tensor:
    """``obj`` as a tensor, as ``torch.asarray``: shared memory when ``copy`` and ``dtype`` allow.

    ``copy=None``: share when possible (a tensor, a NumPy array, a DLPack producer, a buffer),
    else copy. ``copy=True``: always a new tensor. ``copy=False``: share, or ValueError when a
    copy is needed (another dtype, a list, a number). A buffer's bytes are read as ``dtype``
    (float32 by default), as PyTorch does.

    >>> buf = bytearray(8)
    >>> t = strided.asarray(buf, dtype=strided.uint8)
    >>> t[0] = 7
    >>> buf[0]
    7
    >>> strided.asarray([1, 2], copy=False)
    Traceback (most recent call last):
    ...
    strided.errors.StridedValueError: can't alias arbitrary sequence into a tensor.
    ...
    """
    parse_device(device, "asarray")
    target = None if dtype is None else to_dtype(dtype)
    t = _shared(obj, "asarray", target or default_float(), copy)
    if t is None:
        if copy is False:
            raise _alias_data_error(obj)
        # Note: torch.asarray(numpy_scalar, dtype=other, copy=True) raises "can't alias tensor with
        # dtype ..."; strided converts it, as copy=None does and as every other source does.
        return tensor(obj, target)
    if target is not None and target is not t._dtype:
        if copy is False:
            raise _alias_dtype_error(t._dtype, target)
        return _converted(t, target, f"asarray: {t._dtype.name} data asked for as dtype={target.name}")
    if copy:
        return _converted(t, t._dtype, "asarray(copy=True): asked for a copy")
    return t


def _shared(obj: Any, op: str, buffer_dtype: DType | None, copy: bool | None) -> Tensor | None:
    """A tensor over ``obj``'s own memory, or None when ``obj`` has none to share (numbers,
    lists, NumPy scalars). ``buffer_dtype``: how to read a buffer's bytes (None: buffers are
    sequences of ints, as ``torch.as_tensor`` reads them)."""
    if isinstance(obj, Tensor):
        return obj
    if isinstance(obj, np.ndarray):
        if not obj.dtype.isnative and copy is not False:
            # Note: PyTorch refuses a byte-swapped array ("byte order different from the native
            # byte order"); strided converts it into a new tensor, as strided.tensor does (and
            # np.asarray(a, "=f4")); only copy=False, which cannot convert, gets PyTorch's error.
            return None
        if any(st < 0 for st in obj.strides):  # (PyTorch's ValueError, as from_numpy's; dtype= or not)
            _negative_strides(obj)
        return borrow_array(obj, op)
    if isinstance(obj, (np.generic, list, tuple, str, int, float, complex, bool)):
        return None
    if hasattr(obj, "__dlpack__"):
        return from_dlpack(obj)
    if buffer_dtype is not None:
        try:
            view = memoryview(obj)
        except TypeError:
            view = None
        if view is not None:
            return borrow_array(_from_buffer(view, buffer_dtype), op)
    if hasattr(obj, "__array__") or hasattr(obj, "__array_interface__"):
        # Note: PyTorch cannot read these ("Could not infer dtype"); strided takes NumPy's view of
        # them (pandas, xarray, PIL images ...), shared when NumPy's conversion shares.
        return borrow_array(np.asarray(obj, copy=False if copy is False else None), op)
    return None


def _from_buffer(view: memoryview, dtype: DType) -> np.ndarray:
    """The buffer's bytes read as ``dtype`` (1-d, zero-copy), or PyTorch's ValueError when they
    do not divide into whole elements."""
    nbytes = view.nbytes
    if nbytes % dtype.itemsize:
        raise StridedValueError(
            join_lines(
                f"buffer length ({nbytes} bytes) after offset (0 bytes) must be a multiple of element size "
                f"({dtype.itemsize})",
                f"the buffer's bytes are read as {dtype.name} ({dtype.itemsize} bytes each), and {nbytes} bytes "
                f"leave {nbytes % dtype.itemsize} over",
                "fix: pass the dtype the bytes hold: asarray(buffer, dtype=strided.uint8) reads them one by one",
            )
        )
    return np.frombuffer(view.cast("B") if view.format != "B" else view, dtype=dtype.numpy)


def _converted(t: Tensor, dtype: DType, reason: str) -> Tensor:
    """``t`` copied into new memory as ``dtype``, in the dense strides ``t.to(dtype)`` gives
    (preserve format), through the one copy path."""
    plan = P.to(t._layout, itemsize=dtype.itemsize)
    return copy_of(t, plan.strides, reason, dtype, layout=plan.layout)


def _alias_dtype_error(have: DType, want: DType) -> StridedValueError:
    return StridedValueError(
        join_lines(
            f"can't alias tensor with dtype '{TORCH_NAME[have.name]}' into dtype '{TORCH_NAME[want.name]}'.",
            f"the data holds {have.name}; dtype={want.name} needs a converted copy, and copy=False forbids copies",
            f"fix: asarray(x, dtype={want.name}) (copy=None) converts into new memory; asarray(x, copy=False) "
            f"shares the {have.name} memory as it is",
        )
    )


def _alias_data_error(obj: Any) -> Exception:
    if isinstance(obj, np.generic):
        return StridedRuntimeError(
            join_lines(
                "can't alias NumPy scalars. Either remove copy=False or transform it in a ndarray.",
                f"a NumPy {obj.dtype} scalar is a value, not memory a tensor can share",
                "fix: asarray(x) (copy=None) makes a 0-d tensor of it; or share an array: asarray(np.asarray(x))",
            )
        )
    return StridedValueError(
        join_lines(
            "can't alias arbitrary sequence into a tensor.",
            f"a {type(obj).__name__} holds Python objects, not memory a tensor can share, so copy=False "
            "cannot be met",
            "fix: asarray(data) (copy=None) builds a new tensor from it",
        )
    )


__all__ = ["as_tensor", "asarray"]
