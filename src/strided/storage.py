"""Storage: one flat buffer shared by every view of it.

A Storage wraps a 1-D, contiguous NumPy array of the tensor's element type. All
tensors that share memory hold the *same* Storage object, so a reallocation by
``resize_`` is seen by every one of them: kernels must always read
``storage.array`` at the moment they run, never cache it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .errors import StridedRuntimeError, StridedTypeError, join_lines


def allocate(n: int, dtype: np.dtype, shape: tuple[int, ...] | None = None, zeroed: bool = False) -> np.ndarray:
    """``np.empty(n, dtype)`` (``zeroed``: ``np.zeros``, calloc's zeroed memory), or PyTorch's
    RuntimeError when ``n`` elements cannot be allocated."""
    try:
        return (_np_zeros if zeroed else _np_empty)(n, dtype=dtype)
    except (ValueError, MemoryError, OverflowError):
        pass
    sizes = list(shape) if shape is not None else [n]
    nbytes = n * np.dtype(dtype).itemsize
    if nbytes >= 2**63:
        first = f"Storage size calculation overflowed with sizes={sizes}"
    else:
        first = f"DefaultCPUAllocator: not enough memory: you tried to allocate {nbytes} bytes."
    raise StridedRuntimeError(
        join_lines(
            first,
            f"sizes {sizes} hold {n} elements of {np.dtype(dtype).name}, {nbytes} bytes in all",
            "fix: check the sizes; a view (expand, as_strided) can show that many elements "
            "without memory, a copy cannot",
        )
    )


_np_empty, _np_zeros = np.empty, np.zeros

_BORROWED = "are borrowed from a NumPy array (strided.from_numpy); strided does not own them"


# Called with each storage rebuilt by unpickling or deepcopy (strided.grad_mode registers the
# one that sets its version counter to 1).
REBUILT_HOOKS: list = []


class Storage:
    """A flat buffer of elements.

    ``resizable()`` is False when memory outside strided's control may point at the buffer,
    so a reallocation would silently detach it (PyTorch marks such storages the same way):

    - memory borrowed from NumPy (``from_numpy``): strided does not own it;
    - memory lent to NumPy (``t.numpy()``, ``np.asarray(t)``): the array keeps reading and
      writing the old buffer. The mark is permanent, as in PyTorch: strided cannot know when
      the last NumPy array over the buffer is gone.

    A resize that fits in the current buffer needs no reallocation and is always allowed.

    >>> s = strided.zeros(2, 3).t().untyped_storage()
    >>> s.size(), s.nbytes(), s.resizable()
    (6, 24, True)
    """

    # _aliases: {NumPy dtype: the typed alias over these bytes} (strided.dispatch's, set on the
    # first one; unset until then): a slot, read in a typed view's every call
    __slots__ = ("array", "_pinned", "_aliases", "__weakref__")

    def __init__(self, array: np.ndarray, resizable: bool = True) -> None:
        if not isinstance(array, np.ndarray):
            # torch.Storage(data) is PyTorch's legacy FloatStorage; strided's Storage is the raw buffer
            raise StridedTypeError(join_lines(
                f"Storage(): expected a 1-D contiguous NumPy array, got {type(array).__name__}",
                "strided.Storage is the flat buffer under tensors (PyTorch's UntypedStorage); PyTorch's "
                "torch.Storage(data) is its legacy FloatStorage",
                "fix: strided.FloatStorage(data), or strided.TypedStorage(data, dtype=...)"))
        if array.ndim != 1 or not array.flags.c_contiguous:
            raise StridedRuntimeError("Storage needs a 1-D contiguous NumPy array")
        self.array = array
        # Why the buffer may not move (a reason for the error), or None when it may.
        self._pinned: str | None = None if resizable else _BORROWED

    def __reduce__(self) -> tuple[object, ...]:
        # A pickled or deep-copied storage owns its new buffer: resizable again, as in PyTorch.
        # The state (True) makes __setstate__ run on the rebuilt storage (a pickle without it,
        # from before, loads as it did).
        return (Storage, (self.array,), True)

    def __setstate__(self, state: Any) -> None:
        """A storage rebuilt by unpickling or ``copy.deepcopy``: PyTorch rebuilds a tensor with
        ``set_`` on its new storage, which counts one write, so every tensor over it starts at
        ``_version`` 1 (whatever the original's count was)."""
        for hook in REBUILT_HOOKS:  # (grad_mode's version counter, a layer above: it registers itself)
            hook(self)

    def mark_exported(self, call: str) -> None:
        """Record that ``call`` handed this buffer to NumPy without a copy: it may no longer move."""
        if self._pinned is None:
            self._pinned = f"were handed to NumPy without a copy by {call}"

    def data_ptr(self) -> int:
        """Address of the first byte of the buffer."""
        return self.array.__array_interface__["data"][0]

    def nbytes(self) -> int:
        """Size of the buffer in bytes."""
        return self.array.nbytes

    def size(self) -> int:
        """Number of elements the buffer holds."""
        return self.array.shape[0]

    def element_size(self) -> int:
        return self.array.itemsize

    def __len__(self) -> int:
        return self.nbytes()

    def check_resizable(self, n: int) -> None:
        """Refuse to reallocate to ``n`` elements when the buffer may not move (see the class)."""
        if self._pinned is None:
            return
        itemsize = self.array.itemsize
        raise StridedRuntimeError(
            join_lines(
                "Trying to resize storage that is not resizable",
                f"the storage's {self.nbytes()} bytes ({self.size()} elements) {self._pinned}; "
                f"resize_ needs {n} elements ({n * itemsize} bytes), so it would have to move to a "
                "new buffer, and NumPy would go on using the old one (writes on either side lost)",
                f"fix: resize a copy: t = t.clone(); t.resize_(...); or resize within the "
                f"{self.size()} elements the storage holds",
            )
        )

    def resizable(self) -> bool:
        """Whether strided may reallocate this buffer (see the class)."""
        return self._pinned is None

    def __repr__(self) -> str:
        return f"Storage({self.array.shape[0]} x {self.array.dtype}, {self.nbytes()} bytes at {self.data_ptr():#x})"
