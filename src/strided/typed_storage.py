"""PyTorch's typed storages: ``Tensor.storage()`` and the legacy ``FloatStorage([...])`` classes.

A :class:`TypedStorage` is a storage read as elements of one dtype: the :class:`~strided.storage.Storage`
that holds them plus that dtype. PyTorch deprecates it (``untyped_storage()`` is the modern
spelling) and warns on ``Tensor.storage()``; code written against it still calls ``tolist()``,
``size()``, ``len()``, ``[i]`` and ``dtype``, which work here as there.

>>> import warnings; warnings.simplefilter("ignore")  # (storage() warns: PyTorch deprecates it)
>>> s = strided.arange(4.0)[1:3].storage()
>>> s.tolist(), s.size(), s.dtype
([0.0, 1.0, 2.0, 3.0], 4, strided.float32)
>>> strided.FloatStorage([1, 2]).tolist()
[1.0, 2.0]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .args import is_index_scalar
from .dtypes import DType, bool_, float16, float32, float64, int8, int16, int32, int64, to_dtype, uint8
from .errors import StridedIndexError, StridedTypeError, join_lines
from .storage import Storage, allocate

DEPRECATED = ("TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only "
              "storage class. This should only matter to you if you are using storages directly.  To access "
              "UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()")


class TypedStorage:
    """``storage``'s elements read as ``dtype`` (the tensor's own; PyTorch's TypedStorage).

    Built from a tensor (``Tensor.storage()``), or as PyTorch's constructor: ``TypedStorage(data,
    dtype=...)`` from a sequence, ``TypedStorage(n, dtype=...)`` for ``n`` zeroed elements
    (PyTorch leaves them uninitialized), ``TypedStorage(dtype=...)`` empty.
    """

    __slots__ = ("_storage", "dtype")

    def __init__(self, *args: Any, dtype: Any = None, wrap_storage: Storage | None = None) -> None:
        self.dtype: DType = float32 if dtype is None else to_dtype(dtype)
        if wrap_storage is not None:
            self._storage = wrap_storage
            return
        if len(args) > 1:
            raise StridedTypeError(join_lines(
                f"TypedStorage(): expected at most 1 positional argument, got {len(args)}",
                "pass a size (an int) or the elements (a sequence)",
            ))
        arg = args[0] if args else 0
        if isinstance(arg, bool) or not (isinstance(arg, int) or is_index_scalar(arg) or isinstance(arg, (list, tuple))):
            raise StridedTypeError(join_lines(
                f"TypedStorage(): expected a size or a sequence, got {type(arg).__name__}",
                "pass a number of elements, e.g. FloatStorage(3), or a list, e.g. FloatStorage([1, 2])",
            ))
        if isinstance(arg, (list, tuple)):
            array = np.ascontiguousarray(np.array(arg, dtype=self.dtype.numpy).reshape(-1))
        else:
            array = allocate(int(arg), self.dtype.numpy)
            array[...] = 0
        self._storage = Storage(array)

    def _array(self) -> np.ndarray:
        array = self._storage.array  # (read at each call: resize_ may have grown the buffer)
        return array if array.dtype == self.dtype.numpy else array.view(self.dtype.numpy)

    def tolist(self) -> list:
        """The elements as Python numbers."""
        return self._array().tolist()

    def size(self) -> int:
        """The number of elements."""
        return int(self._array().shape[0])

    def __len__(self) -> int:
        return self.size()

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, bool) or not (isinstance(index, int) or is_index_scalar(index)):
            raise StridedTypeError(f"can't index a {type(self).__name__} with {type(index).__name__}")
        n = self.size()
        i = int(index)
        if not -n <= i < n:
            raise StridedIndexError(f"index {i} out of range for storage of size {n}")
        return self._array()[i].item()

    def nbytes(self) -> int:
        return self._storage.nbytes()

    def element_size(self) -> int:
        return self.dtype.itemsize

    def data_ptr(self) -> int:
        return self._storage.data_ptr()

    def untyped(self) -> Storage:
        """The storage that holds the bytes (``Tensor.untyped_storage()``)."""
        return self._storage

    def __repr__(self) -> str:
        return f"TypedStorage({self.tolist()!r:.60}, dtype={self.dtype}, size={self.size()})"


def _legacy(name: str, dtype: DType) -> type:
    def init(self: TypedStorage, *args: Any, **kwargs: Any) -> None:
        if "dtype" in kwargs:
            raise StridedTypeError(f"{name}(): got an unexpected keyword argument 'dtype' (a {name} holds {dtype.name})")
        TypedStorage.__init__(self, *args, dtype=dtype, **kwargs)

    cls = type(name, (TypedStorage,), {"__slots__": (), "__init__": init,
                                        "__doc__": f"PyTorch's legacy ``torch.{name}``: a TypedStorage of {dtype.name}."})
    cls.__module__ = "strided"
    return cls


FloatStorage = _legacy("FloatStorage", float32)
DoubleStorage = _legacy("DoubleStorage", float64)
HalfStorage = _legacy("HalfStorage", float16)
LongStorage = _legacy("LongStorage", int64)
IntStorage = _legacy("IntStorage", int32)
ShortStorage = _legacy("ShortStorage", int16)
CharStorage = _legacy("CharStorage", int8)
ByteStorage = _legacy("ByteStorage", uint8)
BoolStorage = _legacy("BoolStorage", bool_)
