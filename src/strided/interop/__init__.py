"""Zero-copy exchange with the Python array ecosystem (NumPy, PyTorch, any DLPack library).

- :mod:`strided.interop.dlpack`: ``Tensor.__dlpack__`` / ``__dlpack_device__`` (so
  ``torch.from_dlpack(t)``, ``torch.as_tensor(t)``, ``np.from_dlpack(t)`` share memory with
  ``t``) and :func:`from_dlpack` (the other way).
- :mod:`strided.interop.arrays`: :func:`as_tensor` and :func:`asarray`, sharing memory with
  arrays, tensors, DLPack producers and buffers where PyTorch's do.
- :mod:`strided.interop.numpy_protocols`: ``Tensor.__array_ufunc__`` (NEP 13) and
  ``Tensor.__array_function__`` (NEP 18): ``np.exp(t)``, ``np.sum(t, axis=0)``, ``np.transpose(t)``
  compute on the tensor's memory and return strided tensors (views where NumPy's are views).
- :mod:`strided.interop.array_interface`: ``Tensor.__array_interface__`` (NumPy's array
  interface, version 3): ``np.asarray(t)``, Pillow, numba and any other reader of the interface
  get a zero-copy view (any strides, negative and zero included; the read-only flag).

# Note: NumPy reads ``__array_interface__`` (after the buffer protocol and ``__array_struct__``,
which Tensor lacks) *before* ``__array__``. So ``np.asarray(t)`` and ``np.array(t)`` start from a
zero-copy view of the tensor's memory, and every copy NumPy then makes (``np.array(t)``,
``np.asarray(t, dtype=other)``) is NumPy's own: it does not show in strided's copy ledger, and
the storage is pinned (``resize_`` refuses to move it) as soon as NumPy has read the interface,
copy or not (PyTorch pins the same way: its ``__array__`` calls ``numpy()``).
``np.asarray(t, dtype=other, copy=False)`` raises NumPy's own ValueError ("Unable to avoid copy
while creating an array as requested"). ``Tensor.__array__`` stays for callers that call it
directly (its copies and casts go through strided's copy path, with a ledger record).

Sits just above ``tensor`` (it wraps memory with :mod:`strided.creation`); importing it installs
the DLPack methods and NumPy's protocol hooks on Tensor. torch is never imported here.
"""

from . import array_interface, numpy_protocols  # noqa: F401 - install __array_interface__, __array_ufunc__, __array_function__
from .arrays import as_tensor, asarray
from .dlpack import from_dlpack

__all__ = ["as_tensor", "asarray", "from_dlpack"]
