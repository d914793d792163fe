"""``Tensor.__array_interface__``: NumPy's array interface (version 3) over the tensor's own memory.

Libraries that read ``__array_interface__`` (NumPy first of all: ``np.asarray(t)`` reads it
before ``__array__``; Pillow's ``Image.fromarray``, numba, ...) get a zero-copy view of the
tensor: its shape, its strides in bytes (negative and zero strides included), its offset folded
into the data pointer, and its read-only flag. Reading the interface marks the storage exported,
as ``np.asarray(t)`` through ``__array__`` does: ``resize_`` may no longer move the buffer, since
the reader may keep a pointer to it.

>>> t = strided.arange(6.).reshape(2, 3).t()
>>> a = np.asarray(t)
>>> a[2, 1] = 9.0
>>> t[2, 1].item()
9.0
"""

from __future__ import annotations

import weakref
from typing import Any

from ..grad_mode import refuse_numpy
from ..storage import Storage
from ..tensor import Tensor

# The storages a tensor has lent through its interface, by id(tensor), held while the tensor
# lives. NumPy keeps the *tensor* as the array's base (the interface's data is a bare address),
# so without this a later ``t.set_(other)`` would free the memory the array still points at.
# (A dict by id: a WeakKeyDictionary would compare tensors with their elementwise ``==``.)
_LENT: dict[int, list[Storage]] = {}


def array_interface(self: Tensor) -> dict[str, Any]:
    """NumPy's ``__array_interface__`` dict (version 3) for this tensor's memory: ``shape``,
    ``typestr``, ``descr``, ``data`` = ``(address of element 0, read-only?)``, ``strides`` in bytes
    (None when C-contiguous) and ``version`` 3. The storage is marked exported.

    >>> i = strided.zeros(2, 3, dtype=strided.float32)[:, ::2].__array_interface__
    >>> i["shape"], i["typestr"], i["strides"], i["version"]
    ((2, 2), '<f4', (12, 8), 3)
    """
    # NumPy's own interface of the zero-copy view gives typestr, descr, the data pointer and the
    # read-only flag; the strides are the tensor's own (the view may normalise those of size-1 and
    # zero-size dims), None where NumPy calls the view C-contiguous, as NumPy's own dict does.
    refuse_numpy(self, "np.asarray(t) (Tensor.__array_interface__)")
    view = self._np()
    interface = dict(view.__array_interface__)
    if not view.flags.c_contiguous:
        interface["strides"] = tuple(s * view.itemsize for s in self._layout.strides)
    storage = self._storage
    storage.mark_exported("np.asarray(t) (Tensor.__array_interface__)")
    held = _LENT.get(id(self))
    if held is None:
        _LENT[id(self)] = [storage]
        weakref.finalize(self, _LENT.pop, id(self), None)
    elif not any(s is storage for s in held):
        held.append(storage)
    return interface


Tensor.__array_interface__ = property(array_interface)  # type: ignore[attr-defined]

__all__ = ["array_interface"]
