"""Storage: one flat buffer shared by every view of it.

A Storage wraps a 1-D, contiguous NumPy array of the tensor's element type. All
tensors that share memory hold the *same* Storage object, so a reallocation by
``resize_`` is seen by every one of them: kernels must always read
``storage.array`` at the moment they run, never cache it.
"""

from __future__ import annotations

import numpy as np

from .errors import StridedRuntimeError, join_lines


def allocate(n: int, dtype: np.dtype, shape: tuple[int, ...] | None = None) -> np.ndarray:
    """``np.empty(n, dtype)``, or PyTorch's RuntimeError when ``n`` elements cannot be allocated."""
    try:
        return np.empty(n, dtype=dtype)
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


class Storage:
    """A flat buffer of elements.

    ``resizable()`` is False for memory borrowed from NumPy (``from_numpy``):
    strided does not own it and cannot reallocate it.
    """

    __slots__ = ("array", "_resizable", "__weakref__")

    def __init__(self, array: np.ndarray, resizable: bool = True) -> None:
        if array.ndim != 1 or not array.flags.c_contiguous:
            raise StridedRuntimeError("Storage needs a 1-D contiguous NumPy array")
        self.array = array
        self._resizable = resizable

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
        """Refuse to grow to ``n`` elements when the memory is borrowed from NumPy."""
        if not self._resizable:
            raise StridedRuntimeError(
                join_lines(
                    "Trying to resize storage that is not resizable",
                    f"the storage holds {self.nbytes()} bytes borrowed from a NumPy array "
                    f"(strided.from_numpy) and would need {n * self.array.itemsize}; "
                    "strided cannot reallocate memory it does not own",
                    "fix: resize a copy instead: t = t.clone(); t.resize_(...)",
                )
            )

    def resizable(self) -> bool:
        """Whether strided may reallocate this buffer (False for memory borrowed from NumPy)."""
        return self._resizable

    def __repr__(self) -> str:
        return f"Storage({self.array.shape[0]} x {self.array.dtype}, {self.nbytes()} bytes at {self.data_ptr():#x})"
