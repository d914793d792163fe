"""Tensor: one Storage plus one Layout.

View methods ask :mod:`strided.layout` for a new layout and share the storage;
they cost O(ndim) and copy nothing. Copy methods ask :mod:`strided.kernels`,
whose :func:`~strided.kernels.copy_to_new` is the single place memory is
materialized. Methods follow PyTorch's semantics; differences are marked with
``# Note:``.
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from . import layout as L
from .dtypes import DType, to_dtype
from .errors import (
    StridedError,
    StridedIndexError,
    StridedOverflowError,
    StridedRuntimeError,
    StridedTypeError,
    StridedValueError,
    ViewError,
    join_lines,
)
from .formatting import format_tensor
from .indexing import index_layout
from .kernels import check_writable, copy_array, copy_to_new, grow_storage, numpy_view, write
from .layout import Layout
from .memory_format import MemoryFormat, channels_last, contiguous_format, preserve_format
from .scalars import filled, parse_int, parse_setitem_int, wrapped
from .storage import Storage

_new = object.__new__
_plan_view = L.plan_view


def parse_sizes(args: Sequence[Any], op: str) -> tuple[int, ...]:
    """Sizes given as ints (``f(2, 3)``) or as one sequence (``f((2, 3))``)."""
    if len(args) == 1 and type(args[0]) in (tuple, list):
        args = args[0]
    for a in args:
        if type(a) is not int or not -_INT64 <= a < _INT64:
            return _parse_sizes_slow(args, op)
    return tuple(args)


_INT64 = 2**63


def _parse_sizes_slow(args: Sequence[Any], op: str) -> tuple[int, ...]:
    """``parse_sizes`` for anything but plain in-range ints, read as PyTorch reads a size list.

    NumPy integers, 0-d integer arrays and integer tensors of one element are sizes; bools of
    every kind are not (see :func:`strided.layout.index_of`); a size must fit in int64.
    """
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = args[0]
    out = []
    for i, a in enumerate(args):
        if isinstance(a, bool) or not (isinstance(a, int) or hasattr(a, "__index__") or hasattr(a, "dtype")):
            raise StridedTypeError(
                join_lines(
                    f"{op}(): argument 'size' must be tuple of ints, but found element of type "
                    f"{type(a).__name__} at pos {i}",
                    f"got {a!r:.40} at pos {i} of {tuple(args)!r:.80}; sizes are whole numbers: "
                    f"pass ints (int(...) converts), as {op}(2, 3) or {op}((2, 3))",
                )
            )
        size = a if type(a) is int else L.index_of(a, f"{op}(): argument 'size'", size=True)
        if not -_INT64 <= size < _INT64:
            raise StridedTypeError(
                f"{op}(): argument 'size' failed to unpack the object at pos {i + 1} with error "
                f'"Overflow when unpacking long long"\n  size {size} does not fit in int64'
            )
        out.append(int(size))
    return tuple(out)


def _int_arg(value: Any, op: str, name: str, pos: int, size: bool = False) -> int:
    """An int argument as PyTorch's parser takes it: ints and integer scalars, not bool or float.

    ``size=True`` for PyTorch's SymInt arguments (``select``'s index, ``narrow``'s length),
    which also take integer tensors of one element (see :func:`strided.layout.index_of`).
    """
    if type(value) is int and -_INT64 <= value < _INT64:
        return value
    if isinstance(value, bool) or not (isinstance(value, int) or hasattr(value, "__index__")
                                       or hasattr(value, "dtype")):
        raise StridedTypeError(
            join_lines(
                f"{op}(): argument '{name}' (position {pos}) must be int, not {type(value).__name__}",
                f"got {name}={value!r:.60}; {name} must be a whole number: "
                "pass an int (int(...) converts)",
            )
        )
    what = f"{op}(): argument '{name}' (position {pos})"
    result = value if type(value) is int else L.index_of(value, what, size=size)
    if not -_INT64 <= result < _INT64:
        raise StridedOverflowError(
            f"Overflow when unpacking long long\n  {what} is {result}, which does not fit in int64"
        )
    return result


def tensor_arg(value: Any, op: str, name: str = "input", pos: int = 1) -> Tensor:
    """``value`` if it is a strided Tensor; else PyTorch's TypeError, and how to make one."""
    if not isinstance(value, Tensor):
        raise StridedTypeError(
            f"{op}(): argument '{name}' (position {pos}) must be Tensor, not {_type_name(value)}\n"
            f"  got {value!r:.60}; make a tensor first with strided.tensor(data)"
        )
    return value


def _missing(op: str, arg: str) -> StridedTypeError:
    """PyTorch's TypeError for a call with no sizes/dims at all (``t.view()``)."""
    return StridedTypeError(
        f'{op}() missing 1 required positional arguments: "{arg}"\n'
        f"  pass the {arg} as ints or one tuple, e.g. {op}(2, 3) or {op}((2, 3)); "
        f"{op}(()) asks for a 0-d result"
    )


def _dim_of_shape(dim: Any, shape: tuple[int, ...], op: str) -> int:
    """``dim`` wrapped for reading ``shape[dim]``: a 0-d tensor has no dim to read (PyTorch's IndexError)."""
    d = L.wrap_dim(dim, len(shape))
    if not shape:
        raise StridedIndexError(
            f"Dimension specified as {dim} but tensor has no dimensions\n"
            f"  a 0-d tensor has no sizes or strides to read: t.{op}() is ()"
        )
    return d


_MAX_PIECES = 2**31


def _check_piece_count(n: int, op: str, shape: tuple[int, ...], dim: int) -> None:
    """Refuse to build a tuple of more views than memory can hold (PyTorch's std::vector error)."""
    if n > _MAX_PIECES:
        raise StridedRuntimeError(
            join_lines(
                "cannot create std::vector larger than max_size()",
                f"{op} along dim {dim} of shape {shape} would return {n} views, one Python object each",
                "fix: cut into fewer pieces, or index the part you need (t.narrow, t.select)",
            )
        )


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

    # ops.elementwise installs __eq__ (elementwise, giving a bool tensor); tensors stay hashable
    # by identity, as in PyTorch. NumPy defers to our reflected operators (ndarray + tensor).
    __hash__ = object.__hash__
    __array_ufunc__ = None

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
        return self._layout.shape[_dim_of_shape(dim, self._layout.shape, "size")]

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
        return self._layout.strides[_dim_of_shape(dim, self._layout.shape, "stride")]

    def storage_offset(self) -> int:
        return self._layout.offset

    @property
    def layout(self) -> Layout:
        """The (shape, strides, offset) value of this tensor."""
        return self._layout

    def data_ptr(self) -> int:
        """Address of the first element (storage address + offset * itemsize); 0 when empty, as PyTorch."""
        if 0 in self._layout.shape:
            return 0
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
        cls = StridedRuntimeError if isinstance(memory_format, MemoryFormat) else StridedTypeError
        raise cls(
            f"is_contiguous(): argument 'memory_format' must be torch.memory_format, not "
            f"{type(memory_format).__name__}\n"
            f"  got {memory_format!r:.60}; use strided.contiguous_format or strided.channels_last"
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
        # Imported here, not at the top: describe is a diagnostic layer above tensor (it takes
        # Tensors), so a top-level import would point upward and make a cycle.
        from .describe import describe

        return describe(self)

    def __repr__(self) -> str:
        return format_tensor(self._storage.array, self._layout, self._dtype)

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        """``format(t, spec)``: a 0-d tensor formats its value (``f"{loss:.4f}"``), as PyTorch does.

        Other tensors take only the empty spec (their repr); a spec raises TypeError, as
        ``object.__format__`` does in PyTorch.
        """
        if not self._layout.shape:
            return format(self.item(), spec)
        if spec:
            raise StridedTypeError(
                join_lines(
                    "unsupported format string passed to Tensor.__format__",
                    f"the spec {spec!r} formats one number, and the tensor has shape "
                    f"{self._layout.shape} ({self.numel()} elements); format t.item() of a "
                    "1-element tensor, or each value: [format(v, spec) for v in t.tolist()]",
                )
            )
        return repr(self)

    def __contains__(self, element: Any) -> bool:
        """``element in t``: whether some element equals ``element`` (a number, or a tensor that
        broadcasts against ``t``), computed as PyTorch does: ``(t == element).any()``."""
        if isinstance(element, (Tensor, numbers.Number)):
            found = self.__eq__(element)
            if found is not NotImplemented:
                return bool(found.any())
        # Note: PyTorch lets Decimal, Fraction and complex numbers through to ==; strided's ==
        # takes none of them, so they get this error too.
        raise StridedRuntimeError(
            join_lines(
                f"Tensor.__contains__ only supports Tensor or scalar, but you passed in a {type(element)}.",
                f"`x in t` compares x with every element of the {self._dtype.name} tensor of shape "
                f"{self._layout.shape}; pass a Python number or a tensor (strided.tensor(data) makes one)",
            )
        )

    def __len__(self) -> int:
        if not self._layout.shape:
            raise StridedTypeError(
                join_lines(
                    "len() of a 0-d tensor",
                    "the tensor is 0-d (shape ()): it has no first dim to count; "
                    ".numel() is its element count (1), .item() its value",
                )
            )
        return self._layout.shape[0]

    def __iter__(self) -> Iterator[Tensor]:
        if not self._layout.shape:
            raise StridedTypeError(
                join_lines(
                    "iteration over a 0-d tensor",
                    "the tensor is 0-d (shape ()): it has no first dim to iterate over; "
                    ".item() gives its value, .unsqueeze(0) a 1-element 1-d view",
                )
            )
        return iter(self.unbind(0))

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        """NumPy 2's array protocol: this tensor's memory as an ndarray, copied only when asked or needed.

        ``copy=None``: a zero-copy view, or a converted copy when ``dtype`` is another element
        type. ``copy=True``: always a new array. ``copy=False``: the view, or ValueError when
        ``dtype`` needs a conversion (NumPy 2's contract).
        """
        # Note: PyTorch's __array__ takes no copy=, so NumPy refuses np.asarray(torch_t, copy=False)
        # even when no copy is needed; strided follows NumPy's contract, as ndarray does.
        converts = dtype is not None and np.dtype(dtype) != self._dtype.numpy
        if converts and copy is False:
            raise StridedValueError(
                join_lines(
                    "Unable to avoid copy while creating an array as requested.",
                    f"the tensor holds {self._dtype.name} and NumPy asked for {np.dtype(dtype)} with "
                    "copy=False: converting makes a new array; np.asarray(t, dtype) allows the copy, "
                    f"np.asarray(t, copy=False) (or t.numpy()) is the {self._dtype.name} memory itself",
                )
            )
        arr = self._np()
        if converts:
            return copy_array(arr, f"__array__: NumPy asked for dtype {np.dtype(dtype)}", dtype)
        if copy:
            return copy_array(arr, "__array__(copy=True): NumPy asked for a copy")
        self._storage.mark_exported("np.asarray(t) (Tensor.__array__)")
        return arr

    # ------------------------------------------------------------ views

    def view(self, *shape: Any) -> Tensor:
        """The same elements as ``shape`` without copying; refuses when the strides cannot express it."""
        if not shape:
            raise _missing("view", "size")
        lay = self._layout
        new_shape, strides = _plan_view(lay.shape, lay.strides, parse_sizes(shape, "view"))
        if type(strides) is not tuple:
            raise self._view_error(strides, new_shape)
        return self._view(Layout._trusted(new_shape, strides, lay.offset))

    def _view_error(self, refusal: L.ReshapeRefusal, new_shape: tuple[int, ...]) -> ViewError:
        lay = self._layout
        nbytes = self.numel() * self._dtype.itemsize
        origin = L.layout_origin(lay)
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
        return self.view(tensor_arg(other, "view_as", "other").shape)

    def reshape(self, *shape: Any) -> Tensor:
        """A view when PyTorch's computeStride allows it, otherwise a contiguous copy."""
        if not shape:
            raise _missing("reshape", "shape")
        lay = self._layout
        new_shape, strides = _plan_view(lay.shape, lay.strides, parse_sizes(shape, "reshape"))
        if type(strides) is tuple:
            return self._view(Layout._trusted(new_shape, strides, lay.offset))
        args = ", ".join(str(n) for n in new_shape)
        copy = self._copy(
            L.contiguous_strides(lay.shape),
            f"reshape({args}): the strides {lay.strides} of shape {lay.shape} cannot express it as a view",
        )
        copy._layout = Layout._trusted(new_shape, L.contiguous_strides(new_shape), 0)
        return copy

    def reshape_as(self, other: Tensor) -> Tensor:
        return self.reshape(tensor_arg(other, "reshape_as", "other").shape)

    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> Tensor:
        """Merge dims ``start_dim..end_dim``; returns ``self`` when there is nothing to merge."""
        shape = self._layout.shape
        ndim = len(shape)
        if type(start_dim) is int and start_dim == 0 and type(end_dim) is int and end_dim == -1 and ndim > 1:
            return self.reshape(math.prod(shape))
        start = L.wrap_dim(start_dim, ndim)
        end = L.wrap_dim(end_dim, ndim)
        if start > end:
            raise StridedRuntimeError(
                join_lines(
                    "flatten() has invalid args: start_dim cannot come after end_dim",
                    f"start_dim={start_dim} is dim {start} and end_dim={end_dim} is dim {end} of shape "
                    f"{shape}; flatten merges dims start_dim..end_dim, so pass them in that order",
                )
            )
        if ndim == 0:
            return self.reshape(1)
        if start == end:
            return self
        merged = L.product(shape[start : end + 1])
        return self.reshape(shape[:start] + (merged,) + shape[end + 1 :])

    def unflatten(self, dim: int, sizes: Sequence[int]) -> Tensor:
        """Split one dim into ``sizes`` (one -1 may be inferred); always a view."""
        shape = self._layout.shape
        if not isinstance(sizes, (tuple, list)):
            raise StridedTypeError(
                f"unflatten(): argument 'sizes' (position 2) must be tuple of ints, not {type(sizes).__name__}\n"
                f"  got {sizes!r:.60}; give the sizes to split dim {dim!r} into, e.g. (2, -1)"
            )
        sizes = parse_sizes((sizes,), "unflatten")
        if not sizes:  # PyTorch checks the sizes before the dim
            raise StridedRuntimeError(
                join_lines(
                    "unflatten: sizes must be non-empty",
                    f"sizes name the new dims that dim {dim!r} of shape {shape} splits into; "
                    "give at least one, e.g. (2, -1), with product equal to that dim's size",
                )
            )
        d = L.wrap_dim(dim, len(shape))
        if not shape:
            raise StridedRuntimeError(
                join_lines(
                    f"unflatten: Dimension specified as {dim} but tensor has no dimensions",
                    "a 0-d tensor has no dim to split; use .reshape(...) or .view(...) to give it a shape",
                )
            )
        if sizes.count(-1) > 1:
            L.infer_size(sizes, shape[d])  # raises PyTorch's "only one dimension can be inferred"
        try:
            inferred = L.infer_size(sizes, shape[d])
        except StridedRuntimeError:
            n = shape[d]
            known = math.prod(s for s in sizes if s != -1)
            k = next((f for f in range(2, n) if n % f == 0), n)
            raise StridedRuntimeError(
                join_lines(
                    f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim "
                    f"{dim} ({n}) in the input tensor",
                    f"dim {d} of shape {shape} has {n} entries, but the sizes"
                    + (" other than -1" if -1 in sizes else "")
                    + f" multiply to {known}"
                    + (f", which does not divide {n}" if -1 in sizes else "")
                    + f"; the product must be {n}, e.g. unflatten({dim}, ({k}, -1))",
                )
            ) from None
        return self.view(shape[:d] + inferred + shape[d + 1 :])

    def permute(self, *dims: Any) -> Tensor:
        if not dims:
            raise _missing("permute", "dims")
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
        """All dims reversed; for ndim other than 2 PyTorch deprecates it, and we warn as it does."""
        lay = self._layout
        if not lay.shape:
            warnings.warn(
                "Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases.",
                UserWarning,
                stacklevel=2,
            )
        elif len(lay.shape) != 2:
            warnings.warn(
                "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
                "deprecated and it will throw an error in a future release. Consider `x.mT` to "
                "transpose batches of matrices or `x.permute(*reversed(range(x.ndim)))` to reverse "
                f"the dimensions of a tensor (this one has shape {lay.shape}).",
                UserWarning,
                stacklevel=2,
            )
        return self._view(Layout._trusted(lay.shape[::-1], lay.strides[::-1], lay.offset))

    @property
    def mT(self) -> Tensor:
        """The last two dims swapped."""
        ndim = len(self._layout.shape)
        if ndim == 0:
            # PyTorch 2.13: the identity (a view), with a deprecation warning
            import warnings

            warnings.warn(
                "Tensor.mT is deprecated on 0-D tensors. This function is the identity in these cases.",
                UserWarning,
                stacklevel=2,
            )
            return self
        if ndim < 2:
            raise StridedRuntimeError(
                join_lines(
                    f"tensor.mT is only supported on matrices or batches of matrices. Got {ndim}-D tensor.",
                    f"the tensor has shape {self._layout.shape}: there are no two last dims to swap; "
                    ".unsqueeze(0).mT gives a column (n, 1) view, .unsqueeze(-1).mT a row (1, n)",
                )
            )
        return self._view(L.transpose(self._layout, -2, -1))

    def movedim(self, source: Any, destination: Any) -> Tensor:
        src = tuple(source) if isinstance(source, (tuple, list)) else (source,)
        dst = tuple(destination) if isinstance(destination, (tuple, list)) else (destination,)
        return self._view(L.movedim(self._layout, src, dst))

    moveaxis = movedim

    def expand(self, *sizes: Any) -> Tensor:
        """Stretch size-1 dims (stride 0) and add leading dims; -1 keeps a size."""
        if not sizes:
            raise _missing("expand", "size")
        return self._view(L.expand(self._layout, parse_sizes(sizes, "expand")))

    def expand_as(self, other: Tensor) -> Tensor:
        return self.expand(tensor_arg(other, "expand_as", "other").shape)

    def broadcast_to(self, *shape: Any) -> Tensor:
        if not shape:
            raise _missing("broadcast_to", "size")
        return self.expand(*shape)

    def unsqueeze(self, dim: int) -> Tensor:
        return self._view(L.unsqueeze(self._layout, dim))

    def squeeze(self, dim: int | Sequence[int] | None = None) -> Tensor:
        if dim is None:
            return self._view(L.squeeze(self._layout, None))
        dims = tuple(dim) if isinstance(dim, (tuple, list)) else (dim,)
        return self._view(L.squeeze(self._layout, dims))

    def narrow(self, dim: int, start: int, length: int) -> Tensor:
        # Note: PyTorch reads a tensor start through narrow's Tensor overload (RuntimeError unless
        # 0-d integral); strided reads every start as a size, so a 1-element integer tensor works.
        start = _int_arg(start, "narrow", "start", 2, size=True)
        length = _int_arg(length, "narrow", "length", 3, size=True)
        return self._view(L.narrow(self._layout, dim, start, length))

    def select(self, dim: int, index: int) -> Tensor:
        if type(index) is not int:
            index = _int_arg(index, "select", "index", 2, size=True)
        return self._view(L.select(self._layout, dim, index))

    def split(self, split_size: int | Sequence[int], dim: int = 0) -> tuple[Tensor, ...]:
        """Pieces of ``split_size`` along ``dim`` (the last may be smaller), or of the given sizes."""
        shape = self._layout.shape
        if not shape:
            raise StridedRuntimeError(
                join_lines(
                    "split expects at least a 1-dimensional tensor",
                    "the tensor is 0-d (shape ()): it has no dim to split; "
                    ".unsqueeze(0) gives a 1-d view of its one element",
                )
            )
        if not isinstance(split_size, (list, tuple)):
            step = parse_sizes((split_size,), "split")[0]
            if step < 0:  # PyTorch checks split_size before the dim
                raise StridedRuntimeError(
                    join_lines(
                        f"split expects split_size be non-negative, but got split_size={step}",
                        f"split_size is the length of each piece along dim {dim!r} of shape {shape}; "
                        "pass 1 or more (or a list of sizes that sum to that dim's size)",
                    )
                )
        d = L.wrap_dim(dim, len(shape))
        size = shape[d]
        if isinstance(split_size, (list, tuple)):
            sizes = parse_sizes((split_size,), "split")
            if any(s < 0 for s in sizes):
                raise StridedRuntimeError(
                    join_lines(
                        "split_with_sizes expects split_sizes have only non-negative entries, but got "
                        f"split_sizes={list(sizes)}",
                        f"each entry is a piece length along dim {d} (size {size}); -1 is not "
                        f"inferred here: give all sizes, summing to {size}",
                    )
                )
            if sum(sizes) != size:
                raise StridedRuntimeError(
                    join_lines(
                        f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's "
                        f"size at dimension {d}), but got split_sizes={list(sizes)}",
                        f"the sizes sum to {sum(sizes)}, dim {d} of shape {shape} has {size} entries"
                        + (
                            f"; add a last piece of {size - sum(sizes)}: split({list(sizes) + [size - sum(sizes)]}, {d})"
                            if sum(sizes) < size
                            else f"; shrink the pieces by {sum(sizes) - size} in all"
                        ),
                    )
                )
        else:
            if step == 0:
                if size != 0:
                    raise StridedRuntimeError(
                        join_lines(
                            f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}",
                            f"pieces of length 0 cannot cover the {size} entries of dim {d} of shape "
                            f"{shape}; pass split_size 1..{size}, e.g. split({size}, {d}) for one piece",
                        )
                    )
                sizes = (0,)
            else:
                n = max((size + step - 1) // step, 1)
                _check_piece_count(n, "split", shape, d)
                sizes = tuple(min(step, size - i * step) for i in range(n))
        out = []
        start = 0
        for s in sizes:
            out.append(self._view(L.narrow(self._layout, d, start, s)))
            start += s
        return tuple(out)

    def chunk(self, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
        """At most ``chunks`` pieces of equal size (the last may be smaller)."""
        chunks = _int_arg(chunks, "chunk", "chunks", 1)
        shape = self._layout.shape
        if not shape:
            raise StridedRuntimeError(
                join_lines(
                    "chunk expects at least a 1-dimensional tensor",
                    "the tensor is 0-d (shape ()): it has no dim to chunk; "
                    ".unsqueeze(0) gives a 1-d view of its one element",
                )
            )
        if chunks <= 0:
            raise StridedRuntimeError(
                join_lines(
                    f"chunk expects `chunks` to be greater than 0, got: {chunks}",
                    f"chunks is the number of pieces to cut dim {dim!r} of shape {shape} into; "
                    "pass 1 or more (chunk(1) is the whole tensor)",
                )
            )
        d = L.wrap_dim(dim, len(shape))
        size = shape[d]
        step = (size + chunks - 1) // chunks
        if step == 0 and size == 0:
            _check_piece_count(chunks, "chunk", shape, d)
            return self.split([0] * chunks, d)
        return self.split(step, d)

    def unbind(self, dim: int = 0) -> tuple[Tensor, ...]:
        shape = self._layout.shape
        if not shape:
            raise StridedIndexError(
                join_lines(
                    "Dimension specified as 0 but tensor has no dimensions",
                    "the tensor is 0-d (shape ()): there is no dim to unbind; "
                    "use .item() for its value, or .unsqueeze(0).unbind() for a 1-tuple of views",
                )
            )
        d = L.wrap_dim(dim, len(shape))
        _check_piece_count(shape[d], "unbind", shape, d)
        return tuple(self._view(L.select(self._layout, d, i)) for i in range(shape[d]))

    def diagonal(self, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
        offset = _int_arg(offset, "diagonal", "offset", 1)
        return self._view(L.diagonal(self._layout, offset, dim1, dim2))

    def unfold(self, dimension: int, size: int, step: int) -> Tensor:
        size = _int_arg(size, "unfold", "size", 2)
        step = _int_arg(step, "unfold", "step", 3)
        return self._view(L.unfold(self._layout, dimension, size, step))

    def as_strided(self, size: Sequence[int], stride: Sequence[int], storage_offset: int | None = None) -> Tensor:
        """Any layout over this storage, checked against every Layout invariant and the storage's bounds."""
        offset = self._layout.offset if storage_offset is None else storage_offset
        shape, strides, offset = L.normalize_layout_args(size, stride, offset)
        if any(s < 0 for s in strides):
            raise StridedRuntimeError(
                f"as_strided: Negative strides are not supported at the moment, got strides: {list(strides)}\n"
                "  fix: slice with a negative step (t[::-1]) to walk a dim backwards"
            )
        L.check_layout(shape, strides, offset, self._storage.size(), self._dtype.itemsize)
        return self._view(Layout._trusted(shape, strides, offset))

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
        if memory_format is not contiguous_format:
            raise _memory_format_error(memory_format, "contiguous")
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
        if memory_format is not contiguous_format:
            raise _memory_format_error(memory_format, "clone")
        return L.contiguous_strides(shape)

    def to(self, dtype: Any, copy: bool = False) -> Tensor:
        """This tensor in ``dtype`` (or in ``other``'s dtype, for ``to(other)``): ``self`` when
        already so (unless ``copy=True``), else a copy."""
        target = dtype._dtype if isinstance(dtype, Tensor) else to_dtype(dtype)
        if target is self._dtype and not copy:
            return self
        return self._copy(self._format_strides(preserve_format), f"to({target.name})", target)

    def ravel(self) -> Tensor:
        """PyTorch's ravel: ``contiguous().view(-1)``."""
        return self.contiguous().view(-1)

    def numpy(self) -> np.ndarray:
        """A zero-copy, writable NumPy array over the same memory.

        From now on the storage cannot be reallocated (``resize_`` beyond it is refused), as in
        PyTorch: the array would silently keep the old buffer.
        """
        self._storage.mark_exported("t.numpy()")
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
                join_lines(
                    f"Boolean value of Tensor with {'more than one value' if n else 'no values'} is ambiguous",
                    f"the tensor has shape {self._layout.shape} ({n} elements); say which truth you "
                    "mean: .all() (every element) or .any() (at least one)",
                )
            )
        return bool(self.item())

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        if self._dtype.is_floating_point or self.numel() != 1:
            raise StridedTypeError(
                join_lines(
                    "only integer tensors of a single element can be converted to an index",
                    f"the tensor is {self._dtype.name} with shape {self._layout.shape} "
                    f"({self.numel()} elements); an index needs one integer: .item() of a 1-element "
                    "integer tensor, or .to(strided.int64) first",
                )
            )
        return int(self.item())

    def copy_(self, src: Any) -> Tensor:
        """Write ``src`` (a tensor broadcast to this shape, or a number) into this tensor's memory.

        As PyTorch's ``copy_``: ``src`` broadcasts *to* this shape (it may not
        add dims, not even leading size-1 ones); a tensor that partly overlaps
        this one in memory is refused; a number wraps into the dtype unchecked.
        """
        if src is self:
            return self
        if not isinstance(src, Tensor) and not _is_number(src):
            raise StridedTypeError(
                f"copy_(): argument 'other' (position 1) must be Tensor, not {_type_name(src)}\n"
                "  fix: wrap data first: t.copy_(strided.tensor(data)) or t[...] = data"
            )
        self._write(src, "copy_")
        return self

    def fill_(self, value: Any) -> Tensor:
        """Write one value everywhere; a number may fill an expanded tensor, as in PyTorch."""
        if not isinstance(value, Tensor) and not _is_number(value):
            raise StridedTypeError(
                f"fill_() received an invalid combination of arguments - got ({_type_name(value)}), "
                "but expected (Number value) or (Tensor value)\n"
                f"  got {value!r:.60}; fill_ writes one number everywhere: t[...] = data writes "
                "a sequence or array"
            )
        if isinstance(value, Tensor):
            if value.ndim != 0:
                raise StridedRuntimeError(
                    join_lines(
                        f"fill_ only supports 0-dimension value tensor but got tensor with {value.ndim} dimensions.",
                        f"the value has shape {value.shape}; fill_ writes one value everywhere. To write "
                        "it elementwise (broadcast): t.copy_(value) or t[...] = value",
                    )
                )
            if value._storage is self._storage:
                # PyTorch reads the one value before it writes (fill_(t[1]) is allowed): so do we
                value = value.clone()
            self._write(value, "fill_")
        else:
            # Note: as PyTorch, a number may fill aliased (stride-0) elements: they all get one value.
            self._write(value, "fill_", aliasing_ok=True)
        return self

    def zero_(self) -> Tensor:
        self._write(0, "zero_", aliasing_ok=True)
        return self

    def __setitem__(self, key: Any, value: Any) -> None:
        """``t[key] = value``: writes through the view ``t[key]`` into this tensor's storage.

        # Note: PyTorch takes only numbers and tensors here; strided also takes
        # sequences and NumPy arrays (read as ``strided.tensor(value)`` would).
        """
        target = self._view(index_layout(self._layout, key))
        target._write(value, "setitem")

    def _write(self, value: Any, op: str, aliasing_ok: bool = False) -> None:
        """Broadcast ``value`` into this tensor with PyTorch's checks; nothing changes on error."""
        if (
            isinstance(value, Tensor)
            and value._storage is self._storage
            and value._dtype is self._dtype
            and value._layout == self._layout
        ):
            return  # the same elements: PyTorch's copy_ returns early, before any check
        check_writable(self._storage, self._layout, op, aliasing_ok)
        lay = self._layout
        if isinstance(value, Tensor):
            if value._storage is self._storage and L.overlap_status(lay, _as_read(value._layout, lay, op)) is L.OverlapStatus.PARTIAL:
                raise _partial_overlap_error(self, value, op)
        elif _is_number(value):
            write(self._storage, lay, _number_source(value, self._dtype, op, L.product(lay.shape)))
            return
        source = _as_source(value)
        src_shape = source.shape
        if op == "copy_":
            _check_copy_broadcast(lay.shape, src_shape)
        else:
            # leading size-1 dims of the source are dropped, as PyTorch's copy_to does
            while len(src_shape) > len(lay.shape) and src_shape[0] == 1:
                src_shape = src_shape[1:]
            try:
                L.expand(Layout._trusted(src_shape, (0,) * len(src_shape), 0), lay.shape)
            except StridedRuntimeError as err:
                raise StridedRuntimeError(
                    join_lines(
                        str(err).splitlines()[0],
                        f"t[...] = value writes a value of shape {tuple(source.shape)} into the indexed "
                        f"shape {lay.shape}: aligned from the right, each size of the value must equal "
                        "the target's or be 1 (leading size-1 dims of the value are dropped)",
                        "fix: give the value the indexed shape (value.reshape(...)), or index a part "
                        "of the tensor that has the value's shape",
                    )
                ) from None
            source = source.reshape(src_shape)
        write(self._storage, lay, source)

    def resize_(self, *sizes: Any) -> Tensor:
        """PyTorch's resize_: same sizes keep strides; else contiguous strides, storage grown if needed."""
        shape = parse_sizes(sizes, "resize_")
        for s in shape:
            if s < 0:
                raise StridedRuntimeError(
                    join_lines(
                        f"Trying to create tensor with negative dimension {s}: {list(shape)}",
                        f"resize_ size[{shape.index(s)}] is {s}; every size must be 0 or more",
                    )
                )
        if shape == self._layout.shape:
            return self
        strides = L.contiguous_strides(shape)
        offset = self._layout.offset
        # every invariant, checked before the storage grows: a failed resize_ changes nothing
        L.check_layout(shape, strides, offset, itemsize=self._dtype.itemsize)
        numel = L.product(shape)
        if numel:
            grow_storage(self._storage, offset + numel)
        self._layout = Layout._trusted(shape, strides, offset)
        return self


def _memory_format_error(memory_format: Any, op: str) -> Exception:
    if isinstance(memory_format, MemoryFormat):  # preserve_format where it has no meaning
        also = ", or strided.preserve_format" if op == "clone" else ""
        return StridedRuntimeError(
            f"{memory_format.short_name()} memory format is unsupported by the {op} operator\n"
            f"  {op}() makes a dense layout: pass strided.contiguous_format or strided.channels_last{also}"
        )
    return StridedTypeError(
        f"{op}(): argument 'memory_format' must be torch.memory_format, not {_type_name(memory_format)}\n"
        f"  got {memory_format!r:.60}; use strided.contiguous_format, strided.channels_last or "
        "strided.preserve_format"
    )


def _type_name(value: Any) -> str:
    """``list`` for builtins, ``numpy.ndarray`` for the rest, as PyTorch's argument errors name types."""
    cls = type(value)
    return cls.__qualname__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"


def _is_number(value: Any) -> bool:
    return isinstance(value, (bool, int, float)) or (
        isinstance(value, np.generic) and value.dtype.kind in "biuf"
    )


def _check_copy_broadcast(out_shape: tuple[int, ...], src_shape: tuple[int, ...]) -> None:
    """PyTorch's TensorIterator rule for ``copy_``: broadcast(out, src) must be out's own shape."""
    result = L.broadcast_pair(out_shape, src_shape)
    if type(result) is not tuple:
        raise StridedRuntimeError(
            join_lines(
                f"The size of tensor a ({result.size_a}) must match the size of tensor b "
                f"({result.size_b}) at non-singleton dimension {result.dim}",
                f"copy_ writes a source of shape {src_shape} into shape {out_shape}: the sizes "
                "must be equal or 1 in the source, aligned from the right",
                "fix: give the source a shape that broadcasts (src.reshape(...), src.unsqueeze(d))",
            )
        )
    if result != tuple(out_shape):
        raise StridedRuntimeError(
            join_lines(
                f"output with shape {list(out_shape)} doesn't match the broadcast shape {list(result)}",
                f"copy_ never grows the written-to tensor: the source of shape {src_shape} has "
                "more dims or larger sizes",
                "fix: drop the source's extra size-1 dims with .squeeze(), or write through "
                "indexing (t[...] = src), which drops leading size-1 dims",
            )
        )


def _partial_overlap_error(dest: Tensor, src: Tensor, op: str) -> Exception:
    from .errors import OverlapWriteError

    d, s = dest._layout, src._layout
    return OverlapWriteError(
        join_lines(
            "unsupported operation: some elements of the input tensor and the written-to tensor "
            "refer to a single memory location. Please clone() the tensor before performing the operation.",
            f"{op} would read elements {s.offset}..{s.offset + src.numel() - 1} (strides {s.strides}) "
            f"of the storage while writing elements {d.offset}..{d.offset + dest.numel() - 1} "
            f"(strides {d.strides}) of it",
            _overlap_fix(op),
        )
    )


def _overlap_fix(op: str) -> str:
    """The fix for a partly overlapping write, in the words of the operation that wrote."""
    if op == "setitem":
        return "fix: copy the value first: t[...] = value.clone()"
    if op == "copy_":
        return "fix: copy the source first: dest.copy_(src.clone())"
    return f"fix: copy the source first: pass src.clone() to {op}"


def _as_read(source: Layout, dest: Layout, op: str) -> Layout:
    """The layout a write reads its source through, for the overlap judgement: ``t[...] = v``
    expands ``v`` to the indexed shape first (as PyTorch's setitem does, so a broadcast row of
    the target is read through stride 0: not a partial overlap); ``copy_`` judges ``v`` itself."""
    if op != "setitem" or source.shape == dest.shape:
        return source
    shape, strides = source.shape, source.strides
    while len(shape) > len(dest.shape) and shape[0] == 1:
        shape, strides = shape[1:], strides[1:]
    try:
        return L.expand(Layout._trusted(shape, strides, source.offset), dest.shape)
    except StridedRuntimeError:
        return source  # (the shape error follows)


def _number_source(value: Any, dtype: DType, op: str, numel: int) -> Any:
    """A Python (or NumPy) number ready to be written into ``numel`` elements of ``dtype``,
    converted and checked as PyTorch does for ``op`` (see :mod:`strided.scalars`):

    - ``copy_``: PyTorch makes a tensor of the number first, so it wraps unchecked;
    - ``setitem``: the number is read as int64, then written through a one-element fill_;
    - ``fill_``/``zero_``: PyTorch's fill_ check (float16 unchecked for one element).
    """
    if isinstance(value, np.generic):
        value = value.item()
    is_int = isinstance(value, int) and not isinstance(value, bool)
    if op == "copy_":
        if is_int:
            return wrapped(parse_int(value, op), dtype)
        return value
    if op == "setitem":
        if is_int:
            parse_setitem_int(value, "t[...] = value")
        return filled(value, dtype, "t[...] = value", 1)
    if is_int:
        value = parse_int(value, op)
    return filled(value, dtype, op, numel)


def _as_source(value: Any) -> np.ndarray:
    """What a write reads: a NumPy view for tensors (read in place), else the array
    ``strided.tensor(value)`` would hold.

    Sequences go through ``tensor()`` itself (its checks, into a temporary), and NumPy arrays
    through its dtype check (read in place: copying them cannot fail part way), so a value
    ``tensor()`` refuses (strings, None, ragged rows, ints beyond int64, unsupported dtypes)
    is refused before anything is written.
    """
    if isinstance(value, Tensor):
        return value._np()
    from .creation import array_source, tensor  # (creation builds on this module)

    if isinstance(value, np.ndarray):
        return array_source(value)
    if isinstance(value, (list, tuple, np.generic)) or (hasattr(value, "__array__") and not isinstance(value, str)):
        try:
            return tensor(value)._np()
        except StridedError as err:
            raise _sequence_error(value, err) from None
    raise StridedTypeError(
        join_lines(
            f"cannot write a value of type {type(value).__name__} into a tensor",
            f"got {value!r:.60}; write a number, a sequence of numbers, a NumPy array or a strided tensor",
        )
    )


def _sequence_error(value: Any, err: Exception) -> Exception:
    """``tensor()``'s refusal of a value written with ``t[...] = value``, as a TypeError (PyTorch's
    class for a value it cannot write), with its reason and, for ragged rows, their lengths."""
    lines = str(err).splitlines()
    details = [line.strip() for line in lines[1:]]
    if isinstance(value, (list, tuple)) and any(isinstance(v, (list, tuple)) for v in value):
        lengths = [len(v) if isinstance(v, (list, tuple)) else None for v in value]
        if len(set(lengths)) > 1:
            details.append(f"the rows have lengths {lengths!r:.80} (None: a number)")
    details.append("fix: give every row the same length and numbers only (write ragged rows one at a "
                   "time: t[i] = row), or build the value first: t[...] = strided.tensor(data)")
    return StridedTypeError(join_lines(f"cannot write this value into a tensor: {lines[0]}", *details))
