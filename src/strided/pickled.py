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
    if base is not None and (not isinstance(base, tensor_type) or getattr(base, "_base", None) is not None
                             or (base_storage is not None
                                 and storage_root(base_storage) is not storage_root(storage))):
        raise StridedRuntimeError(join_lines(
            "Tensor.__setstate__: the view's base is not a tensor over the same memory",
            _UNPICKLED + ": a view's _base is the root tensor of its view chain, over the same storage", _FIX))
    return {"_base": None, "_ag": None, **slots}


def pickled_state(t: Any) -> dict[str, Any]:
    """``t``'s fields for pickle: its autograd record reduced to what PyTorch pickles, whether it
    requires grad (a result with a history comes back a leaf that requires grad: the graph, its
    nodes and the leaf's ``grad`` are not pickled, as in PyTorch)."""
    from .grad_mode import Meta, requires_grad

    ag = Meta(requires_grad=True) if t._ag is not None and requires_grad(t) else None
    return {"_storage": t._storage, "_layout": t._layout, "_dtype": t._dtype, "_base": t._base, "_ag": ag}


def restore_leaf(t: Any) -> None:
    """After unpickling: a record that says "requires grad" becomes a fresh leaf's (through
    ``requires_grad_``, so autograd is switched on and a crafted record is never trusted)."""
    from .grad_mode import set_requires_grad

    ag, t._ag = t._ag, None
    if getattr(ag, "requires_grad", False) is True or getattr(ag, "grad_fn", None) is not None:
        set_requires_grad(t)


def deep_copied(t: Any, memo: dict) -> Any:
    """``copy.deepcopy(t)``: new memory with the same layout, the view base copied once (memo), and
    a leaf's ``requires_grad`` and ``grad``. A tensor with a history is refused, as PyTorch."""
    import copy

    from .grad_mode import set_requires_grad

    m = t._ag
    if m is not None and m.grad_fn is not None:
        raise StridedRuntimeError(join_lines(
            "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at the "
            "moment.  If you were attempting to deepcopy a module, this may be because of a "
            "torch.nn.utils.weight_norm usage, see https://github.com/pytorch/pytorch/pull/103001",
            f"this tensor (shape {t._layout.shape}) was computed by {m.grad_fn.name()}",
            "fix: deepcopy y.detach() (then requires_grad_() if it should be a new leaf)"))
    new = object.__new__(type(t))
    memo[id(t)] = new
    fields = {"_storage": copy.deepcopy(t._storage, memo), "_layout": t._layout, "_dtype": t._dtype,
              "_base": _base_copied(t._base, memo), "_ag": None}
    for name, value in checked_state(fields, _tensor_class()).items():
        object.__setattr__(new, name, value)
    if m is not None and m.requires_grad:
        set_requires_grad(new)
        new._ag.grad = copy.deepcopy(m.grad, memo)
    return new


def _base_copied(base: Any, memo: dict) -> Any:
    """The deep copy of a view's base: the base's own deep copy, except for a base with a history
    (a ``detach()``-ed result's base is the result) or of a subclass (a view of an
    ``nn.Parameter``, whose own deep copy clones into new memory): its memory only, as PyTorch,
    which copies a view's storage and never its base."""
    import copy

    if base is None or (base.__class__ is _tensor_class() and (
            id(base) in memo or base._ag is None or base._ag.grad_fn is None)):
        return copy.deepcopy(base, memo)
    new = object.__new__(_tensor_class())
    fields = {"_storage": copy.deepcopy(base._storage, memo), "_layout": base._layout, "_dtype": base._dtype,
              "_base": None, "_ag": None}
    for name, value in checked_state(fields, _tensor_class()).items():
        object.__setattr__(new, name, value)
    return new


def _tensor_class() -> type:
    """strided.Tensor (a view's base may be any tensor: a Parameter is the base of its views)."""
    from .grad_mode import _CLASS

    return _CLASS["Tensor"]


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
