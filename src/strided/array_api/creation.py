"""Creation functions of the standard over strided's factories (``strided.zeros``, ``asarray``, ...).

Defaults are strided's (PyTorch's): Python floats make float32, ints int64, complex numbers
complex64 — :func:`strided.array_api.__array_namespace_info__` reports them.

>>> import strided.array_api as xp
>>> xp.zeros((2, 3), dtype=xp.int8).shape
(2, 3)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import creation
from ..dtypes import DEFAULT_FLOAT, DEFAULT_INT, complex64
from ..interop import asarray as _asarray
from ..interop import from_dlpack as _from_dlpack
from ..tensor import Tensor
from ._core import computed, device_arg, dtype_arg, moved

__all__ = ["arange", "asarray", "empty", "empty_like", "eye", "from_dlpack", "full", "full_like", "linspace",
           "meshgrid", "ones", "ones_like", "tril", "triu", "zeros", "zeros_like"]


def _shape(shape: Any) -> tuple[int, ...]:
    return (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(s) for s in shape)


def asarray(obj: Any, /, *, dtype: Any = None, device: Any = None, copy: bool | None = None) -> Tensor:
    """``obj`` (an array, a NumPy array, a DLPack or buffer object, a nested sequence, a scalar)
    as an array: shared memory where ``copy`` and ``dtype`` allow; ``copy=False`` raises
    ValueError when a copy is needed (``strided.asarray``'s rules).

    >>> xp.asarray([1, 2], copy=False)
    Traceback (most recent call last):
    ...
    strided.errors.StridedValueError: can't alias arbitrary sequence into a tensor.
    ...
    """
    if isinstance(obj, (list, tuple)) and any(isinstance(v, Tensor) for v in obj):
        # a sequence holding 0-d arrays: read their values (PyTorch's factory reads them too)
        obj = [v.item() if isinstance(v, Tensor) and v.ndim == 0 else v for v in obj]
    return _asarray(obj, dtype=dtype_arg(dtype), device=device, copy=copy)


def arange(start: Any, /, stop: Any = None, step: Any = 1, *, dtype: Any = None, device: Any = None) -> Tensor:
    """``start, start + step, ...`` up to (excluding) ``stop``; ``arange(n)`` counts from 0.

    >>> xp.arange(1, 7, 2)
    tensor([1, 3, 5])
    """
    device_arg(device, "arange")
    if stop is None:
        start, stop = 0, start
    if step != 0 and (stop - start) * step <= 0:
        # Note: the standard's arange is empty when step walks away from stop (arange(0, -1, 1));
        # strided's (PyTorch's) raises "upper bound and lower bound inconsistent with step sign".
        floats = any(isinstance(v, float) for v in (start, stop, step))
        return creation.empty((0,), dtype=dtype_arg(dtype) or (DEFAULT_FLOAT if floats else DEFAULT_INT))
    return creation.arange(start, stop, step, dtype=dtype_arg(dtype))


def empty(shape: Any, *, dtype: Any = None, device: Any = None) -> Tensor:
    """An uninitialised array of ``shape`` (float32 by default)."""
    return creation.empty(_shape(shape), dtype=dtype_arg(dtype), device=device)


def zeros(shape: Any, *, dtype: Any = None, device: Any = None) -> Tensor:
    """An array of zeros of ``shape`` (float32 by default)."""
    return creation.zeros(_shape(shape), dtype=dtype_arg(dtype), device=device)


def ones(shape: Any, *, dtype: Any = None, device: Any = None) -> Tensor:
    """An array of ones of ``shape`` (float32 by default)."""
    return creation.ones(_shape(shape), dtype=dtype_arg(dtype), device=device)


def full(shape: Any, fill_value: Any, *, dtype: Any = None, device: Any = None) -> Tensor:
    """An array of ``shape`` filled with ``fill_value``; its dtype follows the value's kind
    (bool, int64, float32, complex64) unless ``dtype`` is given.

    >>> xp.full((2,), 7).dtype
    strided.int64
    """
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    return creation.full(_shape(shape), fill_value, dtype=dtype_arg(dtype), device=device)


def empty_like(x: Tensor, /, *, dtype: Any = None, device: Any = None) -> Tensor:
    """An uninitialised array of ``x``'s shape (and dtype, unless given)."""
    return creation.empty_like(x, dtype=dtype_arg(dtype), device=device)


def zeros_like(x: Tensor, /, *, dtype: Any = None, device: Any = None) -> Tensor:
    """Zeros of ``x``'s shape (and dtype, unless given)."""
    return creation.zeros_like(x, dtype=dtype_arg(dtype), device=device)


def ones_like(x: Tensor, /, *, dtype: Any = None, device: Any = None) -> Tensor:
    """Ones of ``x``'s shape (and dtype, unless given)."""
    return creation.ones_like(x, dtype=dtype_arg(dtype), device=device)


def full_like(x: Tensor, /, fill_value: Any, *, dtype: Any = None, device: Any = None) -> Tensor:
    """``fill_value`` in ``x``'s shape, in ``x``'s dtype unless ``dtype`` is given."""
    device_arg(device, "full_like")
    target = dtype_arg(dtype) or x.dtype
    return computed("full_like", (x,), np.full(x.shape, fill_value, dtype=target.numpy))


def eye(n_rows: int, n_cols: int | None = None, /, *, k: int = 0, dtype: Any = None, device: Any = None) -> Tensor:
    """A 2-d array with ones on the ``k``-th diagonal.

    >>> xp.eye(2, 3, k=1).tolist()
    [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    """
    device_arg(device, "eye")
    target = dtype_arg(dtype) or DEFAULT_FLOAT
    return computed("eye", (), np.eye(n_rows, n_cols, k=k, dtype=target.numpy))


def linspace(start: Any, stop: Any, /, num: int, *, dtype: Any = None, device: Any = None,
             endpoint: bool = True) -> Tensor:
    """``num`` evenly spaced values from ``start`` to ``stop`` (included when ``endpoint``).

    >>> xp.linspace(0, 1, 3).tolist()
    [0.0, 0.5, 1.0]
    """
    device_arg(device, "linspace")
    target = dtype_arg(dtype)
    if target is None:
        target = complex64 if isinstance(start, complex) or isinstance(stop, complex) else DEFAULT_FLOAT
    wide = np.complex128 if target.kind == "c" else np.float64
    values = np.linspace(start, stop, num, endpoint=endpoint, dtype=wide)
    return computed("linspace", (), values.astype(target.numpy))


def meshgrid(*arrays: Tensor, indexing: str = "xy") -> list[Tensor]:
    """Coordinate grids from 1-d arrays (``indexing`` "xy" or "ij"), each a new array.

    >>> [g.shape for g in xp.meshgrid(xp.arange(2), xp.arange(3))]
    [(3, 2), (3, 2)]
    """
    grids = np.meshgrid(*(a._np() for a in arrays), indexing=indexing)
    return [moved("meshgrid", arrays, np.ascontiguousarray(g), "coordinate grid written into new memory")
            for g in grids]


def tril(x: Tensor, /, *, k: int = 0) -> Tensor:
    """``x`` (a stack of matrices) with the elements above the ``k``-th diagonal zeroed."""
    return moved("tril", (x,), np.tril(x._np(), k), "lower triangle copied into new memory")


def triu(x: Tensor, /, *, k: int = 0) -> Tensor:
    """``x`` (a stack of matrices) with the elements below the ``k``-th diagonal zeroed."""
    return moved("triu", (x,), np.triu(x._np(), k), "upper triangle copied into new memory")


def from_dlpack(x: Any, /, *, device: Any = None, copy: bool | None = None) -> Tensor:
    """An array over the memory of ``x``, any DLPack producer on the CPU (``copy=True``: a copy)."""
    device_arg(device, "from_dlpack")
    t = _from_dlpack(x)
    if copy:
        return t.clone()
    return t

