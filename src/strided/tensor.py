"""Tensor: one Storage plus one Layout.

View methods ask :mod:`strided.layout` for a new layout and share the storage;
they cost O(ndim) and copy nothing. Copy methods ask :mod:`strided.kernels`,
whose :func:`~strided.kernels.copy_to_new` is the single place memory is
materialized. Methods follow PyTorch's semantics; differences are marked with
``# Note:``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from . import layout as L
from .dtypes import DType, to_dtype
from .errors import (
    StridedIndexError,
    StridedRuntimeError,
    StridedTypeError,
    ViewError,
    join_lines,
)
from .formatting import format_values
from .indexing import index_layout
from .kernels import check_writable, copy_to_new, numpy_view, write
from .layout import Layout
from .memory_format import MemoryFormat, channels_last, contiguous_format, preserve_format
from .storage import Storage

_new = object.__new__


def parse_sizes(args: Sequence[Any], op: str) -> tuple[int, ...]:
    """Sizes given as ints (``f(2, 3)``) or as one sequence (``f((2, 3))``)."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = args[0]
    out = []
    for i, a in enumerate(args):
        if isinstance(a, int) and not isinstance(a, bool):
            out.append(a)
        elif hasattr(a, "__index__") and not isinstance(a, bool) and not hasattr(a, "shape"):
            out.append(a.__index__())
        else:
            raise StridedTypeError(
                f"{op}(): argument 'size' must be tuple of ints, but found element of type "
                f"{type(a).__name__} at pos {i}"
            )
    return tuple(out)


def _dims_arg(args: Sequence[Any]) -> tuple[Any, ...]:
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        return tuple(args[0])
    return tuple(args)


class Tensor:
    """An N-dimensional view of a flat :class:`~strided.storage.Storage`.

    Build tensors with :func:`strided.tensor`, :func:`strided.from_numpy`,
    :func:`strided.zeros` and friends, not with this class directly.
    """

    __slots__ = ("_storage", "_layout", "_dtype", "_base", "__weakref__")

    _storage: Storage
    _layout: Layout
    _dtype: DType
    _base: Tensor | None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise StridedTypeError(
            "strided.Tensor is not built directly; use strided.tensor(data), "
            "strided.from_numpy(array) or strided.zeros(...)"
        )

    # ------------------------------------------------------------ construction helpers

    @classmethod
    def _make(cls, storage: Storage, layout: Layout, dtype: DType, base: Tensor | None = None) -> Tensor:
        t = _new(cls)
        t._storage = storage
        t._layout = layout
        t._dtype = dtype
        t._base = base
        return t

    def _view(self, layout: Layout) -> Tensor:
        """A new tensor over the same storage; its base is the root of this view chain."""
        t = _new(Tensor)
        t._storage = self._storage
        t._layout = layout
        t._dtype = self._dtype
        base = self._base
        t._base = self if base is None else base
        return t

    def _np(self) -> np.ndarray:
        """Zero-copy NumPy view of this tensor (kernels' input)."""
        return numpy_view(self._storage, self._layout)

    def _copy(self, strides: tuple[int, ...], reason: str, dtype: DType | None = None) -> Tensor:
        """Materialize into new storage with dense ``strides`` (through the one copy kernel)."""
        dtype = dtype or self._dtype
        storage = copy_to_new(self._np(), strides, dtype.numpy, reason)
        return Tensor._make(storage, Layout._trusted(self._layout.shape, strides, 0), dtype)

    # ------------------------------------------------------------ looking inside

    @property
    def shape(self) -> tuple[int, ...]:
        return self._layout.shape

    def size(self, dim: int | None = None) -> Any:
        """The shape, or the size of one dim."""
        if dim is None:
            return self._layout.shape
        return self._layout.shape[L.wrap_dim(dim, len(self._layout.shape))]

    @property
    def ndim(self) -> int:
        return len(self._layout.shape)

    def dim(self) -> int:
        return len(self._layout.shape)

    ndimension = dim

    @property
    def dtype(self) -> DType:
        return self._dtype

    def numel(self) -> int:
        return L.product(self._layout.shape)

    nelement = numel

    def element_size(self) -> int:
        return self._dtype.itemsize

    @property
    def itemsize(self) -> int:
        return self._dtype.itemsize

    @property
    def nbytes(self) -> int:
        """Bytes of the elements this tensor addresses (not of its storage), as in PyTorch."""
        return self.numel() * self._dtype.itemsize

    def stride(self, dim: int | None = None) -> Any:
        """Strides in elements, or the stride of one dim."""
        if dim is None:
            return self._layout.strides
        return self._layout.strides[L.wrap_dim(dim, len(self._layout.shape))]

    def storage_offset(self) -> int:
        return self._layout.offset

    @property
    def layout(self) -> Layout:
        """The (shape, strides, offset) value of this tensor."""
        return self._layout

    def data_ptr(self) -> int:
        """Address of the first element (storage address + offset * itemsize)."""
        return self._storage.data_ptr() + self._layout.offset * self._dtype.itemsize

    def untyped_storage(self) -> Storage:
        """The Storage shared by this tensor and all its views."""
        return self._storage

    def is_contiguous(self, memory_format: MemoryFormat = contiguous_format) -> bool:
        """PyTorch's rules: size-1 dims are ignored; empty tensors are contiguous."""
        lay = self._layout
        if memory_format is channels_last:
            return L.is_channels_last_contiguous(lay.shape, lay.strides)
        if memory_format is contiguous_format:
            return L.is_contiguous(lay.shape, lay.strides)
        raise StridedRuntimeError(
            f"is_contiguous: unsupported memory format {memory_format!r}; "
            "use strided.contiguous_format or strided.channels_last"
        )

    @property
    def base(self) -> Tensor | None:
        """The root tensor this view was made from; None when this tensor owns its storage."""
        return self._base

    _base_ = base

    def is_view(self) -> bool:
        return self._base is not None

    @property
    def is_leaf(self) -> bool:
        return True

    def is_floating_point(self) -> bool:
        return self._dtype.is_floating_point

    def describe(self) -> str:
        """A one-call summary of the layout: shape, strides, offset, contiguity, view of what."""
        from .describe import describe

        return describe(self)

    def __repr__(self) -> str:
        return format_values(self._np(), self._dtype)

    __str__ = __repr__

    def __len__(self) -> int:
        if not self._layout.shape:
            raise StridedTypeError("len() of a 0-d tensor")
        return self._layout.shape[0]

    def __iter__(self) -> Iterator[Tensor]:
        if not self._layout.shape:
            raise StridedTypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        arr = self._np()
        if copy:
            arr = arr.copy()
        return arr if dtype is None else arr.astype(dtype)

    # ------------------------------------------------------------ views

    def view(self, *shape: Any) -> Tensor:
        """The same elements as ``shape`` without copying; refuses when the strides cannot express it."""
        lay = self._layout
        new_shape = L.infer_size(parse_sizes(shape, "view"), L.product(lay.shape))
        strides = L.torch_view_strides(lay.shape, lay.strides, new_shape)
        if isinstance(strides, L.ReshapeRefusal):
            raise self._view_error(strides, new_shape)
        return self._view(Layout._trusted(new_shape, strides, lay.offset))

    def _view_error(self, refusal: L.ReshapeRefusal, new_shape: tuple[int, ...]) -> ViewError:
        from .describe import layout_origin

        lay = self._layout
        nbytes = self.numel() * self._dtype.itemsize
        origin = layout_origin(lay)
        args = ", ".join(str(n) for n in new_shape)
        return ViewError(
            join_lines(
                "view size is not compatible with input tensor's size and stride (at least one "
                "dimension spans across two contiguous subspaces). Use .reshape(...) instead.",
                f"tensor: shape {lay.shape}, strides {lay.strides}" + (f" — {origin}" if origin else ""),
                f"view({args}) must merge dims {refusal.outer} and {refusal.inner} into its dim "
                f"{refusal.new_dim}, which needs {refusal.equation()}: {refusal.reason()}.",
                f"fix: .reshape({args}) copies {nbytes} bytes into a new contiguous tensor; "
                f"or .contiguous().view({args}).",
            ),
            refusal,
        )

    def view_as(self, other: Tensor) -> Tensor:
        return self.view(other.shape)

    def reshape(self, *shape: Any) -> Tensor:
        """A view when PyTorch's computeStride allows it, otherwise a contiguous copy."""
        lay = self._layout
        new_shape = L.infer_size(parse_sizes(shape, "reshape"), L.product(lay.shape))
        strides = L.torch_view_strides(lay.shape, lay.strides, new_shape)
        if not isinstance(strides, L.ReshapeRefusal):
            return self._view(Layout._trusted(new_shape, strides, lay.offset))
        copy = self._copy(L.contiguous_strides(lay.shape), f"reshape{new_shape} of a layout view() cannot express")
        copy._layout = Layout._trusted(new_shape, L.contiguous_strides(new_shape), 0)
        return copy

    def reshape_as(self, other: Tensor) -> Tensor:
        return self.reshape(other.shape)

    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> Tensor:
        """Merge dims ``start_dim..end_dim``; returns ``self`` when there is nothing to merge."""
        shape = self._layout.shape
        ndim = len(shape)
        start = L.wrap_dim(start_dim, ndim)
        end = L.wrap_dim(end_dim, ndim)
        if start > end:
            raise StridedRuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
        if ndim == 0:
            return self.reshape(1)
        if start == end:
            return self
        merged = L.product(shape[start : end + 1])
        return self.reshape(shape[:start] + (merged,) + shape[end + 1 :])

    def unflatten(self, dim: int, sizes: Sequence[int]) -> Tensor:
        """Split one dim into ``sizes`` (one -1 may be inferred); always a view."""
        shape = self._layout.shape
        d = L.wrap_dim(dim, len(shape))
        sizes = parse_sizes((sizes,), "unflatten")
        if not sizes:
            raise StridedRuntimeError("unflatten: sizes must be non-empty")
        try:
            inferred = L.infer_size(sizes, shape[d])
        except StridedRuntimeError as err:
            if "-1" in str(err) and "only one" in str(err):
                raise
            raise StridedRuntimeError(
                f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim "
                f"{dim} ({shape[d]}) in the input tensor"
            ) from None
        return self.view(shape[:d] + inferred + shape[d + 1 :])

    def permute(self, *dims: Any) -> Tensor:
        return self._view(L.permute(self._layout, _dims_arg(dims)))

    def transpose(self, dim0: int, dim1: int) -> Tensor:
        return self._view(L.transpose(self._layout, dim0, dim1))

    swapaxes = transpose
    swapdims = transpose

    def t(self) -> Tensor:
        ndim = len(self._layout.shape)
        if ndim > 2:
            raise StridedRuntimeError(
                f"t() expects a tensor with <= 2 dimensions, but self is {ndim}D\n"
                "  fix: .transpose(dim0, dim1) or .mT swaps the last two dims of a batch"
            )
        return self._view(L.transpose(self._layout, 0, -1) if ndim == 2 else self._layout)

    @property
    def T(self) -> Tensor:
        """All dims reversed (PyTorch deprecates it for ndim other than 2; NumPy's meaning)."""
        return self._view(L.permute(self._layout, tuple(range(len(self._layout.shape) - 1, -1, -1))))

    @property
    def mT(self) -> Tensor:
        """The last two dims swapped."""
        ndim = len(self._layout.shape)
        if ndim < 2:
            raise StridedRuntimeError(
                f"tensor.mT is only supported on matrices or batches of matrices. Got {ndim}-D tensor."
            )
        return self._view(L.transpose(self._layout, -2, -1))

    def movedim(self, source: Any, destination: Any) -> Tensor:
        src = tuple(source) if isinstance(source, (tuple, list)) else (source,)
        dst = tuple(destination) if isinstance(destination, (tuple, list)) else (destination,)
        return self._view(L.movedim(self._layout, src, dst))

    moveaxis = movedim

    def expand(self, *sizes: Any) -> Tensor:
        """Stretch size-1 dims (stride 0) and add leading dims; -1 keeps a size."""
        return self._view(L.expand(self._layout, parse_sizes(sizes, "expand")))

    def expand_as(self, other: Tensor) -> Tensor:
        return self.expand(other.shape)

    def broadcast_to(self, *shape: Any) -> Tensor:
        return self.expand(*shape)

    def unsqueeze(self, dim: int) -> Tensor:
        return self._view(L.unsqueeze(self._layout, dim))

    def squeeze(self, dim: int | Sequence[int] | None = None) -> Tensor:
        if dim is None:
            return self._view(L.squeeze(self._layout, None))
        dims = tuple(dim) if isinstance(dim, (tuple, list)) else (dim,)
        return self._view(L.squeeze(self._layout, dims))

    def narrow(self, dim: int, start: int, length: int) -> Tensor:
        return self._view(L.narrow(self._layout, dim, start, length))

    def select(self, dim: int, index: int) -> Tensor:
        return self._view(L.select(self._layout, dim, index))

    def split(self, split_size: int | Sequence[int], dim: int = 0) -> tuple[Tensor, ...]:
        """Pieces of ``split_size`` along ``dim`` (the last may be smaller), or of the given sizes."""
        shape = self._layout.shape
        if not shape:
            raise StridedRuntimeError("split expects at least a 1-dimensional tensor")
        d = L.wrap_dim(dim, len(shape))
        size = shape[d]
        if isinstance(split_size, (list, tuple)):
            sizes = parse_sizes((split_size,), "split")
            if sum(sizes) != size or any(s < 0 for s in sizes):
                raise StridedRuntimeError(
                    f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's "
                    f"size at dimension {d}), but got split_sizes={list(sizes)}"
                )
        else:
            step = parse_sizes((split_size,), "split")[0]
            if step < 0:
                raise StridedRuntimeError(f"split expects split_size be non-negative, but got split_size={step}")
            if step == 0:
                if size != 0:
                    raise StridedRuntimeError(
                        f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}"
                    )
                sizes = (0,)
            else:
                n = max((size + step - 1) // step, 1)
                sizes = tuple(min(step, size - i * step) for i in range(n))
        out = []
        start = 0
        for s in sizes:
            out.append(self._view(L.narrow(self._layout, d, start, s)))
            start += s
        return tuple(out)

    def chunk(self, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
        """At most ``chunks`` pieces of equal size (the last may be smaller)."""
        shape = self._layout.shape
        if not shape:
            raise StridedRuntimeError("chunk expects at least a 1-dimensional tensor")
        if chunks <= 0:
            raise StridedRuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
        d = L.wrap_dim(dim, len(shape))
        size = shape[d]
        step = (size + chunks - 1) // chunks
        if step == 0 and size == 0:
            return self.split([0] * chunks, d)
        return self.split(step, d)

    def unbind(self, dim: int = 0) -> tuple[Tensor, ...]:
        shape = self._layout.shape
        if not shape:
            raise StridedIndexError("Dimension specified as 0 but tensor has no dimensions")
        d = L.wrap_dim(dim, len(shape))
        return tuple(self._view(L.select(self._layout, d, i)) for i in range(shape[d]))

    def diagonal(self, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
        return self._view(L.diagonal(self._layout, offset, dim1, dim2))

    def unfold(self, dimension: int, size: int, step: int) -> Tensor:
        return self._view(L.unfold(self._layout, dimension, size, step))

    def as_strided(self, size: Sequence[int], stride: Sequence[int], storage_offset: int | None = None) -> Tensor:
        """Any layout over this storage, checked against the storage's bounds."""
        offset = self._layout.offset if storage_offset is None else storage_offset
        lay = Layout(size, stride, offset)
        if any(s < 0 for s in lay.strides):
            raise StridedRuntimeError(
                f"as_strided: Negative strides are not supported at the moment, got strides: {list(lay.strides)}\n"
                "  fix: slice with a negative step (t[::-1]) to walk a dim backwards"
            )
        lo, hi = L.storage_extent(lay)
        n = self._storage.size()
        if lay.numel and hi > n:
            itemsize = self._dtype.itemsize
            raise StridedRuntimeError(
                join_lines(
                    f"setStorage: sizes {list(lay.shape)}, strides {list(lay.strides)}, storage offset "
                    f"{offset}, and itemsize {itemsize} requiring a storage size of {hi * itemsize} "
                    f"are out of bounds for storage of size {n * itemsize}",
                    f"the last element would sit at index {hi - 1} of a storage of {n} elements",
                )
            )
        return self._view(lay)

    def __getitem__(self, key: Any) -> Tensor:
        return self._view(index_layout(self._layout, key))

    # ------------------------------------------------------------ copies

    def contiguous(self, memory_format: MemoryFormat = contiguous_format) -> Tensor:
        """``self`` if already contiguous in ``memory_format``; otherwise a dense copy."""
        lay = self._layout
        if memory_format is channels_last:
            if L.is_channels_last_contiguous(lay.shape, lay.strides):
                return self
            return self._copy(L.channels_last_strides(lay.shape), "contiguous(channels_last)")
        if L.is_contiguous(lay.shape, lay.strides):
            return self
        return self._copy(L.contiguous_strides(lay.shape), "contiguous()")

    def clone(self, memory_format: MemoryFormat = preserve_format) -> Tensor:
        """A copy in new storage; ``preserve_format`` keeps dense strides, as PyTorch does."""
        return self._copy(self._format_strides(memory_format), "clone()")

    def _format_strides(self, memory_format: MemoryFormat) -> tuple[int, ...]:
        shape, strides = self._layout.shape, self._layout.strides
        if memory_format is preserve_format:
            return L.preserve_format_strides(shape, strides)
        if memory_format is channels_last:
            return L.channels_last_strides(shape)
        return L.contiguous_strides(shape)

    def to(self, dtype: Any, copy: bool = False) -> Tensor:
        """This tensor in ``dtype``: ``self`` when already so (unless ``copy=True``), else a copy."""
        target = to_dtype(dtype)
        if target is self._dtype and not copy:
            return self
        return self._copy(self._format_strides(preserve_format), f"to({target.name})", target)

    def ravel(self) -> Tensor:
        """PyTorch's ravel: ``contiguous().view(-1)``."""
        return self.contiguous().view(-1)

    def numpy(self) -> np.ndarray:
        """A zero-copy, writable NumPy array over the same memory."""
        return self._np()

    def tolist(self) -> Any:
        return self._np().tolist()

    def item(self) -> Any:
        n = self.numel()
        if n != 1:
            raise StridedRuntimeError(
                f"a Tensor with {n} elements cannot be converted to Scalar\n"
                f"  shape {self.shape}; select one element first, e.g. t[0].item() or t.reshape(-1)[i].item()"
            )
        return self._np().reshape(()).item()

    def __bool__(self) -> bool:
        n = self.numel()
        if n != 1:
            raise StridedRuntimeError(
                f"Boolean value of Tensor with {'more than one value' if n else 'no values'} is ambiguous"
            )
        return bool(self.item())

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        if self._dtype.is_floating_point or self.numel() != 1:
            raise StridedTypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def copy_(self, src: Any) -> Tensor:
        """Write ``src`` (broadcast to this shape) into this tensor's memory."""
        self._write(src, "copy_")
        return self

    def fill_(self, value: Any) -> Tensor:
        if isinstance(value, Tensor) and value.ndim != 0:
            raise StridedRuntimeError(
                f"fill_ only supports 0-dimension value tensor but got tensor with {value.ndim} dimensions."
            )
        self._write(value, "fill_")
        return self

    def zero_(self) -> Tensor:
        self._write(0, "zero_")
        return self

    def __setitem__(self, key: Any, value: Any) -> None:
        target = self._view(index_layout(self._layout, key))
        target._write(value, "setitem")

    def _write(self, value: Any, op: str) -> None:
        """Broadcast ``value`` into this tensor with PyTorch's checks; nothing changes on error."""
        check_writable(self._storage, self._layout, op)
        source = _as_source(value)
        if isinstance(source, np.ndarray):
            src_shape = source.shape
            # leading size-1 dims of the source are dropped, as PyTorch's copy_to does
            while len(src_shape) > len(self._layout.shape) and src_shape[0] == 1:
                src_shape = src_shape[1:]
            L.expand(Layout._trusted(src_shape, (0,) * len(src_shape), 0), self._layout.shape)
            source = source.reshape(src_shape)
        write(self._storage, self._layout, source)

    def resize_(self, *sizes: Any) -> Tensor:
        """PyTorch's resize_: same sizes keep strides; else contiguous strides, storage grown if needed."""
        shape = parse_sizes(sizes, "resize_")
        for s in shape:
            if s < 0:
                raise StridedRuntimeError(
                    f"Trying to create tensor with negative dimension {s}: {list(shape)}"
                )
        if shape == self._layout.shape:
            return self
        strides = L.contiguous_strides(shape)
        numel = L.product(shape)
        offset = self._layout.offset
        if numel:
            self._storage.resize_elements(offset + numel)
        self._layout = Layout._trusted(shape, strides, offset)
        return self


def _as_source(value: Any) -> Any:
    """A NumPy view for tensors (read in place), an array for sequences, the scalar otherwise."""
    if isinstance(value, Tensor):
        return value._np()
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, (list, tuple)):
        try:
            return np.asarray(value)
        except ValueError as err:
            raise StridedTypeError(f"cannot write a ragged sequence into a tensor: {err}") from None
    if hasattr(value, "__array__") or isinstance(value, np.generic):
        return np.asarray(value)
    raise StridedTypeError(
        f"cannot write a value of type {type(value).__name__} into a tensor; "
        "use a number, a sequence, a NumPy array or a strided tensor"
    )
