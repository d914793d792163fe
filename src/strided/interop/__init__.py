"""Zero-copy exchange with the Python array ecosystem (NumPy, PyTorch, any DLPack library).

- :mod:`strided.interop.dlpack`: ``Tensor.__dlpack__`` / ``__dlpack_device__`` (so
  ``torch.from_dlpack(t)``, ``torch.as_tensor(t)``, ``np.from_dlpack(t)`` share memory with
  ``t``) and :func:`from_dlpack` (the other way).
- :mod:`strided.interop.arrays`: :func:`as_tensor` and :func:`asarray`, sharing memory with
  arrays, tensors, DLPack producers and buffers where PyTorch's do.

Sits just above ``tensor`` (it wraps memory with :mod:`strided.creation`); importing it installs
the DLPack methods on Tensor. torch is never imported here.
"""

from .arrays import as_tensor, asarray
from .dlpack import from_dlpack

__all__ = ["as_tensor", "asarray", "from_dlpack"]
