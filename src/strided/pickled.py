"""Unpickling a Tensor: its fields are checked against each other before any op can read them.

A Tensor pickles as its slots (``Tensor.__reduce_ex__`` is Python's default for ``__slots__``):
the storage (its 1-D NumPy array), the layout, the dtype, the view base and the autograd
record. Unpickling (and ``copy.deepcopy``) hands that state to ``Tensor.__setstate__``, which
calls :func:`checked_state`. A pickle strided wrote always passes; a crafted or corrupted one
(a layout past its storage, a dtype that is not the storage's) is refused with PyTorch's
errors for the same mistakes in ``set_`` / ``_rebuild_tensor``:

- the layout obeys every Layout invariant (:func:`strided.layout.check_layout`), the storage
  bound included: ``setStorage: sizes [...], strides [...], storage offset ..., and itemsize ...
  requiring a storage size of ... are out of bounds for storage of size ...``; a negative
  stride may not walk before element 0 (``Tensor: invalid storage offset ...``); sizes and
  strides are tuples of ints of one length;
- the dtype is one of strided's and the storage holds that dtype: ``Expected a Storage of type
  float32 ..., but got type float64 ...``;
- the storage is a 1-D contiguous NumPy array; the base, if any, is a tensor over the same memory.

# Note: pickle runs code by design (a pickle can call any importable function), so these checks
# do not make untrusted pickles safe; they matter for restricted unpicklers that allow-list
# strided's classes, and they turn a corrupted file into an error instead of heap reads.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .dispatch import storage_root
from .dtypes import ALL_DTYPES, DType
from .errors import StridedRuntimeError, StridedTypeError, join_lines
from .layout import Layout, check_layout
from .storage import Storage

_FIELDS = ("_storage", "_layout", "_dtype", "_base", "_ag")
_UNPICKLED = "while unpickling a Tensor"
_FIX = "fix: the pickle was not written by strided (or was altered): rebuild the tensor from data you trust"


def checked_state(state: Any, tensor_type: type) -> dict[str, Any]:
    """The slot values in ``state`` (what ``Tensor.__reduce_ex__`` pickled: ``(None, slots)`` or
    ``slots``), checked against each other; raises PyTorch's error for the first that breaks."""
    slots = state[1] if isinstance(state, tuple) and len(state) == 2 and state[0] is None else state
    if not isinstance(slots, dict) or not {"_storage", "_layout", "_dtype"} <= slots.keys() <= set(_FIELDS):
        raise StridedTypeError(join_lines(
            f"Tensor.__setstate__: expected the tensor's fields {list(_FIELDS)}, got {_describe(slots)}",
            _UNPICKLED + ": the state is not one strided pickles", _FIX))
    storage, layout, dtype = slots["_storage"], slots["_layout"], slots["_dtype"]
    _check_storage(storage)
    _check_dtype(dtype, storage)
    if not isinstance(layout, Layout):
        raise StridedTypeError(join_lines(
            f"Tensor.__setstate__: expected a Layout, got {type(layout).__name__}", _UNPICKLED, _FIX))
    try:  # every invariant again (the Layout's slots could have been filled without its constructor)
        check_layout(layout.shape, layout.strides, layout.offset, storage.array.shape[0], dtype.itemsize)
    except (StridedRuntimeError, StridedTypeError) as e:
        first, *rest = str(e).split("\n")
        err = type(e)(join_lines(first, *(line.strip() for line in rest),
                                 _UNPICKLED + ": the layout does not fit its storage", _FIX))
        err.refusal = getattr(e, "refusal", None)  # type: ignore[attr-defined]
        raise err from None
    base = slots.get("_base")
    # (a base whose own state is still being read, in a reference cycle, has no storage yet: its
    # fields are checked when they are set)
    base_storage = getattr(base, "_storage", None)
    if base is not None and (type(base) is not tensor_type or getattr(base, "_base", None) is not None
                             or (base_storage is not None
                                 and storage_root(base_storage) is not storage_root(storage))):
        raise StridedRuntimeError(join_lines(
            "Tensor.__setstate__: the view's base is not a tensor over the same memory",
            _UNPICKLED + ": a view's _base is the root tensor of its view chain, over the same storage", _FIX))
    return {"_base": None, "_ag": None, **slots}


def _check_storage(storage: Any) -> None:
    arr = getattr(storage, "array", None) if isinstance(storage, Storage) else None
    if type(arr) is not np.ndarray or arr.ndim != 1 or not arr.flags.c_contiguous:
        raise StridedTypeError(join_lines(
            f"Tensor.__setstate__: expected a Storage over a 1-D contiguous NumPy array, got {_describe(storage)}",
            _UNPICKLED, _FIX))


def _check_dtype(dtype: Any, storage: Storage) -> None:
    if not any(dtype is d for d in ALL_DTYPES):  # (the one instance per dtype: ops compare with `is`)
        raise StridedTypeError(join_lines(
            f"Tensor.__setstate__: expected a strided dtype, got {_describe(dtype)}", _UNPICKLED, _FIX))
    assert isinstance(dtype, DType)
    found = storage.array.dtype
    if found != dtype.numpy:
        raise StridedRuntimeError(join_lines(
            f"Expected a Storage of type {dtype.name} or an UntypedStorage, but got type {found.name} "
            "for argument 1 'storage'",
            f"{_UNPICKLED}: the tensor's dtype is {dtype.name}, but its storage holds "
            f"{storage.array.shape[0]} elements of {found.name}", _FIX))


def _describe(value: Any) -> str:
    if isinstance(value, dict):
        return "fields " + str(sorted(map(str, value)))
    return f"{type(value).__name__} {value!r:.60}"
