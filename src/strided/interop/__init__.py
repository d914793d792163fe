"""Zero-copy exchange with the Python array ecosystem (NumPy, PyTorch, any DLPack library).

- :mod:`strided.interop.dlpack`: ``Tensor.__dlpack__`` / ``__dlpack_device__`` (so
  ``torch.from_dlpack(t)``, ``torch.as_tensor(t)``, ``np.from_dlpack(t)`` share memory with
  ``t``) and :func:`from_dlpack` (the other way).
- :mod:`strided.interop.arrays`: :func:`as_tensor` and :func:`asarray`, sharing memory with
  arrays, tensors, DLPack producers and buffers where PyTorch's do.
- :mod:`strided.interop.numpy_protocols`: ``Tensor.__array_ufunc__`` (NEP 13) and
  ``Tensor.__array_function__`` (NEP 18): ``np.exp(t)``, ``np.sum(t, axis=0)``, ``np.transpose(t)``
  compute on the tensor's memory and return strided tensors (views where NumPy's are views).

# Note: Tensor has no ``__array_interface__``. NumPy reads that attribute (and
``__array_struct__``, and the buffer protocol) *before* ``__array__``, so defining it would route
every ``np.asarray(t)`` / ``np.array(t)`` around ``Tensor.__array__``: NumPy's copies
(``np.array(t)``, ``np.asarray(t, dtype=other)``) would vanish from the copy ledger, a copy would pin
the storage as a share does, and ``np.asarray(t, dtype, copy=False)`` would lose strided's
explanation (tests/test_kernels.py and tests/test_reliability_state.py R2-04 pin those). NumPy and
PyTorch both read strided tensors without a copy already (``__array__``, ``__dlpack__``); a library
that reads only ``__array_interface__`` (Pillow's ``Image.fromarray``) takes ``t.numpy()``, a
zero-copy ndarray.

Sits just above ``tensor`` (it wraps memory with :mod:`strided.creation`); importing it installs
the DLPack methods and NumPy's protocol hooks on Tensor. torch is never imported here.
"""

from . import numpy_protocols  # noqa: F401 - installs __array_ufunc__ / __array_function__ on Tensor
from .arrays import as_tensor, asarray
from .dlpack import from_dlpack

__all__ = ["as_tensor", "asarray", "from_dlpack"]
