"""What NumPy returns to ``__array_function__`` / ``__array_ufunc__``, made strided's.

NumPy ran a function on zero-copy views of the tensor arguments; its result is one of three
things, and each comes back as the strided object that says what happened:

- **a view of a tensor's memory** (``np.transpose``, ``np.real`` of a complex tensor, the
  tensor's own view from ``np.real_if_close``, ...): a strided view over the same storage, with
  the layout NumPy's strides and data pointer describe. A view in another dtype (``np.real`` /
  ``np.imag`` of complex64/complex128, ``float32`` bytes from a ``complex64`` buffer) is a
  *typed alias* of the storage (:func:`strided.dispatch.reinterpreted`, as ``Tensor.real`` is),
  reported as a ``"view"`` named ``np.<function>``. Zero-size views are recognised too (NumPy's
  ``may_share_memory`` says False for them; the ``base`` chain says whose they are).
- **new memory** NumPy allocated: adopted as the result's storage (no further copy) and
  reported to the op boundary (a "compute" or a "copy" with a reason and the bytes), so
  ``strided.record_copies`` and ``strided.watch`` see it;
- anything else (a Python number or bool, a shape tuple, a dtype, an ndarray subclass, an array
  of a dtype strided lacks, a view strided cannot express) is returned as NumPy gave it. When such
  an object may still address a tensor's memory, that tensor's storage is pinned (it may no longer
  move, as ``np.asarray(t)`` pins it).

>>> c = strided.tensor([1 + 2j, 3 - 4j])
>>> r = np.imag(c); r.stride(), r.storage_offset(), r.base is c
((2,), 1, True)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dispatch
from ..dtypes import from_numpy_dtype
from ..layout import Layout, contiguous_strides
from ..tensor import Tensor

_trusted = Layout._trusted

_SCALARS = (int, float, complex, bool, str, bytes, type(None), np.dtype, type)


def label(func: Any) -> str:
    """The name the reports give a NumPy function: ``np.sort``, ``np.linalg.inv``, ``np.fft.fft``."""
    found = _LABELS.get(func)
    if found is None:
        module = getattr(func, "__module__", None) or "numpy"
        space = module[len("numpy"):] if module.startswith("numpy") else ""
        found = _LABELS[func] = f"np{space}.{func.__name__}"
    return found


_LABELS: dict[Any, str] = {}


def _ptr(arr: np.ndarray) -> int:
    return arr.__array_interface__["data"][0]


def _based_on(arr: np.ndarray, target: np.ndarray) -> bool:
    """Whether ``target`` is in ``arr``'s chain of ``.base`` objects (NumPy's record of whose memory
    a view reads; the only witness for a zero-size view, which addresses no byte)."""
    b = arr.base
    for _ in range(64):  # (chains are short; a bound keeps a pathological one finite)
        if b is None:
            return False
        if b is target:
            return True
        b = getattr(b, "base", None)
    return False


def addresses(arr: np.ndarray, x: Any) -> bool:
    """Whether ``arr`` may read the memory of ``x``: a tensor (its storage's buffer) or the
    caller's ndarray."""
    if isinstance(x, Tensor):
        own = x._storage.array
        root = dispatch.storage_root(x._storage).array
        if np.may_share_memory(arr, root):
            return True
        if _based_on(arr, own) or (root is not own and _based_on(arr, root)):
            return True
        # (NumPy points a view of a view at the memory's owner: a zero-size view of a storage that
        # is itself a view (from_numpy's flat run of the caller's array) names that owner, not the
        # storage; only for zero-size ones, which read no byte outside any buffer)
        return arr.size == 0 and own.base is not None and _based_on(arr, own.base)
    if isinstance(x, np.ndarray):
        return np.may_share_memory(arr, x) or _based_on(arr, x) or (x.base is not None and _based_on(arr, x.base))
    return False


def view_in(arr: np.ndarray, t: Tensor, name: str) -> Tensor | None:
    """A strided view of ``t``'s storage that reads exactly what ``arr`` (a NumPy view of that
    memory, in any dtype strided has) reads; None when no strided layout can say it (a dtype
    strided lacks, a stride or start that is not a whole number of elements, bytes outside the
    buffer). Reported as a view named ``name``.

    >>> c = strided.zeros(3, dtype=strided.complex64)
    >>> view_in(c._np().real, c, "np.real").stride()
    (2,)
    """
    dtype = from_numpy_dtype(arr.dtype)
    if dtype is None:
        return None
    root = dispatch.storage_root(t._storage).array
    isz = arr.itemsize
    if any(s % isz for s in arr.strides):
        return None
    strides = tuple(s // isz for s in arr.strides)
    delta = _ptr(arr) - _ptr(root)
    capacity = root.nbytes // isz  # the typed alias reads this many whole elements
    if arr.size == 0:  # addresses no byte: NumPy's start, which may sit past the buffer's end
        # Note: Tensor.imag of an empty tensor at offset k has offset 2k + 1; NumPy reads an empty
        # tensor from the buffer's start (strided's zero-copy view of it), so np.imag's is 1.
        offset = delta // isz if delta % isz == 0 and delta >= 0 else 0
    else:
        if delta % isz:
            return None
        offset = low = high = delta // isz
        for n, s in zip(arr.shape, strides):
            if s < 0:
                low += (n - 1) * s
            else:
                high += (n - 1) * s
        if low < 0 or high >= capacity:
            return None
    return dispatch.reinterpreted(t, dtype, _trusted(arr.shape, strides, offset), name)


def adopt(value: Any) -> Tensor | None:
    """A tensor owning ``value``, an array (or NumPy scalar) NumPy just computed into new memory,
    without copying it when it is dense; None if strided has no dtype for it. Not reported (the
    caller reports it, as one op)."""
    arr = np.asarray(value)
    dtype = from_numpy_dtype(arr.dtype)
    if dtype is None:
        return None
    shape = arr.shape
    strides = None
    if arr.size and not arr.flags.c_contiguous and min(arr.strides) >= 0:
        # NumPy lays a result out like its inputs (order="K"): keep that layout when dense.
        flat = arr.ravel(order="K")
        if _ptr(flat) == _ptr(arr) and np.shares_memory(flat, arr):
            strides = tuple(s // arr.itemsize for s in arr.strides)
    if strides is None:
        arr = np.ascontiguousarray(arr)  # (1-D for a 0-d value: its strides are not the shape's)
        flat = arr.reshape(-1)
        strides = tuple(s // arr.itemsize for s in arr.strides) if arr.size and arr.ndim == len(shape) else None
    if not flat.flags.writeable:  # (a NumPy scalar's array, np.imag's zeros) strided writes into its results
        flat = flat.copy()
    return dispatch.adopted(flat, _trusted(shape, strides or contiguous_strides(shape), 0), dtype)


class Results:
    """Turns one call's results into strided's (:meth:`convert`), collecting the fresh tensors so
    that the call is reported once (:meth:`report`).

    ``seen``: the call's array arguments (tensors and the caller's ndarrays, in order);
    ``name``: the reports' name (``np.sort``); ``kind``: "compute" (each fresh result is reported as a
    compute op) or "copy" (all fresh results of the call are one copy record, with ``reason``).
    """

    def __init__(self, seen: list[Any], name: str, kind: str, reason: str = "") -> None:
        self.seen = seen
        self.tensors = tuple(t for t in seen if isinstance(t, Tensor))
        self.name = name
        self.kind = kind
        self.reason = reason
        self.fresh: list[Tensor] = []

    def convert(self, value: Any, fresh: bool = False) -> Any:
        """``value`` (NumPy's result, or an item of its tuple/list) as strided's; ``fresh``: NumPy
        says it is new memory (a ufunc's result never views an input)."""
        if type(value) in (list, tuple) or (isinstance(value, tuple) and hasattr(value, "_fields")):
            items = [self.convert(v, fresh) for v in value]
            return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)
        if not (type(value) is np.ndarray or isinstance(value, np.generic)):
            return value  # np.shape's tuple, a bool, an ndarray subclass: NumPy's, as it is
        if not fresh and type(value) is np.ndarray:
            for owner in self.seen:
                if addresses(value, owner):
                    view = view_in(value, owner, self.name) if isinstance(owner, Tensor) else None
                    return value if view is None else view  # (or the caller's ndarray's view)
        out = adopt(value)
        if out is None:
            return value
        if self.kind == "compute":
            return dispatch.report(self.name, self.tensors, out)
        self.fresh.append(out)
        return out

    def report(self) -> None:
        """Report the call's fresh results as one copy (call after :meth:`convert`)."""
        if not self.fresh or self.kind == "compute" or not dispatch.OPEN:
            return
        out = self.fresh[0] if len(self.fresh) == 1 else tuple(self.fresh)
        dispatch.copied(self.name, self.tensors, out, self._reason)

    def _reason(self) -> str:
        """The copy's reason, rendered (only when someone listens)."""
        fresh = self.fresh
        return self.reason.format(name=self.name, bytes=sum(t.numel() * t._dtype.itemsize for t in fresh),
                                  elements=sum(t.numel() for t in fresh), results=len(fresh))

    def pin_leaks(self, value: Any, call: str) -> None:
        """Pin the storage of every tensor that ``value`` (what the call returns) may still read
        through NumPy's objects: such memory may no longer move (``resize_``)."""
        for t in self.tensors:
            if _may_read(value, t):
                t._storage.mark_exported(call)
                dispatch.storage_root(t._storage).mark_exported(call)


def _may_read(value: Any, t: Tensor) -> bool:
    """Whether ``value`` (anything but strided's own tensors) may address ``t``'s memory."""
    if isinstance(value, Tensor) or isinstance(value, _SCALARS) or isinstance(value, np.generic):
        return False
    if isinstance(value, np.ndarray):
        return value.dtype != object and addresses(value, t) or value.dtype == object
    if isinstance(value, (list, tuple)):
        return any(_may_read(v, t) for v in value)
    if isinstance(value, dict):
        return any(_may_read(v, t) for v in value.values())
    return True  # an object strided cannot look inside (a generator, another library's array)
