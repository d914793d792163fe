"""Tensor: one Storage plus one Layout.

This module holds the class itself: its slots and construction (``_view``, ``_copy``), the
accessors (``shape``, ``size``, ``stride``, ``dtype``, ``numel``, ...), the Python protocols
(repr, format, len, iter, bool, float, int, index, contains, pickling) and the conversions out
(``numpy``, ``tolist``, ``item``, ``__array__``). Every op is installed from above when
``strided`` is imported: the view ops by :mod:`strided.ops.views`, the copies by
:mod:`strided.ops.copies`, the rest by their family modules (the class docstring lists them).
Methods follow PyTorch's semantics; differences are marked with ``# Note:``.
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from . import dispatch as _dispatch
from . import layout as L
from .args import no_dims, type_name
from .callsite import user_site
from .dispatch import OPEN, copy_of, storage_root, view_of
from .dtypes import DType
from .errors import StridedRuntimeError, join_lines
from .formatting import format_tensor
from .grad_mode import SUBCLASSES, refuse_numpy, use_tensor_class
from .kernels import copy_array, numpy_view
from .layout import Layout
from .layout.formats import is_channels_last_3d_contiguous
from .memory_format import (
    MemoryFormat,
    channels_last,
    channels_last_3d,
    contiguous_format,
    preserve_format,
)
from .messages import (
    array_copy_error,
    bool_error,
    contains_error,
    delitem_error,
    format_spec_error,
    index_error,
    is_contiguous_format_error,
    item_error,
    iter_0d_error,
    len_0d_error,
    not_a_tensor,
    not_built_directly,
)
from .storage import Storage
from .typed_storage import DEPRECATED as TYPED_DEPRECATED
from .typed_storage import TypedStorage

_new = object.__new__

# Advanced indexing (``t[key]`` with index tensors, lists, arrays, masks: a copy) and its write are
# carried out by strided.ops.indexing.advanced, which puts its "getitem" and "setitem" here when
# strided is imported (this layer imports no op); basic indexing never looks here.
ADVANCED_INDEXING: dict[str, Callable[..., Any]] = {}


def tensor_arg(value: Any, op: str, name: str = "input", pos: int = 1) -> Tensor:
    """``value`` if it is a strided Tensor; else PyTorch's TypeError, and how to make one."""
    if not isinstance(value, Tensor):
        raise not_a_tensor(value, type_name(value), op, name, pos)
    return value


class Tensor:
    """An N-dimensional view of a flat :class:`~strided.storage.Storage`.

    Build tensors with :func:`strided.tensor`, :func:`strided.from_numpy`,
    :func:`strided.zeros` and friends, not with this class directly.

    >>> x = strided.arange(6).view(2, 3)
    >>> y = x.t()  # a view: a new layout over the same storage
    >>> y.shape, y.stride(), strided.shares_memory(x, y)
    ((3, 2), (1, 3), True)

    This class holds construction, accessors, Python protocols and conversions out. Every op is
    installed from above when ``strided`` is imported (each module sets its own with setattr), so
    this module imports nothing higher; the list below, module by module, is generated then from
    the finished class (:func:`strided.gradients.installed_methods`; ``tests/test_layers.py``
    checks it). Installed methods:
    """

    # _ag: None, or the autograd record of this tensor (strided.autograd.graph.Meta: requires_grad,
    # grad, grad_fn, hooks). None for every tensor outside autograd, so an op checks one slot.
    __slots__ = ("_storage", "_layout", "_dtype", "_base", "_ag", "__weakref__")

    # ops.elementwise installs __eq__ (elementwise, giving a bool tensor); tensors stay hashable
    # by identity, as in PyTorch. strided.interop.numpy_protocols replaces __array_ufunc__ (and adds
    # __array_function__) at import; until then NumPy defers to our reflected operators (ndarray + tensor).
    __hash__ = object.__hash__
    __array_ufunc__ = None

    _storage: Storage
    _layout: Layout
    _dtype: DType
    _base: Tensor | None
    _ag: Any

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise not_built_directly()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A subclass (``nn.Parameter``, a user's ``class MyT(strided.Tensor)``) joins the set the
        op entries read after their exact-class test, so its instances are recorded, counted and
        reported as any tensor's (:data:`strided.grad_mode.SUBCLASSES`).

        # Note: strided has no ``__torch_function__``: an op on a subclass instance returns a
        plain Tensor, as PyTorch's ops do on an ``nn.Parameter`` (whose ``__torch_function__`` is
        disabled); PyTorch's default would give the subclass back. ``t.as_subclass(cls)`` re-wraps.
        """
        super().__init_subclass__(**kwargs)
        SUBCLASSES.add(cls)

    def __getstate__(self) -> dict[str, Any]:
        """The fields pickle keeps (every pickle protocol, as PyTorch's tensors): no history, a
        tensor that requires grad comes back a leaf that does (:func:`strided.pickled.pickled_state`)."""
        from .pickled import pickled_state  # (pickling's helpers load on first use: not at import)

        return pickled_state(self)

    def __setstate__(self, state: Any) -> None:
        """Unpickling: the fields are set only once they fit each other (the layout within the
        storage, the storage's dtype the tensor's; :func:`strided.pickled.checked_state`)."""
        from .pickled import checked_state, restore_leaf

        for name, value in checked_state(state, Tensor).items():
            object.__setattr__(self, name, value)
        restore_leaf(self)

    def __deepcopy__(self, memo: dict) -> Tensor:
        """A deep copy: a leaf's ``requires_grad`` and ``grad`` come along; a result with a
        history is refused, as PyTorch (:func:`strided.pickled.deep_copied`)."""
        from .pickled import deep_copied

        return deep_copied(self, memo)

    # ------------------------------------------------------------ construction helpers

    def _view(self, layout: Layout) -> Tensor:
        """A new tensor over the same storage; its base is the root of this view chain."""
        t = _new(Tensor)
        t._storage = self._storage
        t._layout = layout
        t._dtype = self._dtype
        base = self._base
        t._base = self if base is None else base
        t._ag = None
        if OPEN: view_of(self, t)  # noqa: E701 - one cheap check when nobody listens (strided.dispatch.listen)
        return t

    def _np(self) -> np.ndarray:
        """Zero-copy NumPy view of this tensor (kernels' input)."""
        return numpy_view(self._storage, self._layout)

    def _copy(self, strides: tuple[int, ...], reason: str, dtype: DType | None = None) -> Tensor:
        """Materialize into new storage with dense ``strides`` (through the one copy kernel)."""
        return copy_of(self, strides, reason, dtype)

    # ------------------------------------------------------------ looking inside

    @property
    def shape(self) -> tuple[int, ...]:
        """The size of each dim.

        >>> strided.zeros(2, 3).shape
        (2, 3)
        """
        return self._layout.shape

    def size(self, dim: int | None = None) -> Any:
        """The shape, or the size of one dim.

        >>> x = strided.zeros(2, 3)
        >>> x.size(), x.size(-1)
        ((2, 3), 3)
        """
        if dim is None:
            return self._layout.shape
        return self._layout.shape[self._dim_to_read(dim, "size")]

    @property
    def ndim(self) -> int:
        """The number of dims.

        >>> strided.zeros(2, 3).ndim, strided.tensor(1.0).ndim
        (2, 0)
        """
        return len(self._layout.shape)

    def dim(self) -> int:
        """The number of dims (``ndim``).

        >>> strided.zeros(2, 3, 4).dim()
        3
        """
        return len(self._layout.shape)

    ndimension = dim

    @property
    def dtype(self) -> DType:
        """The element type: a :class:`~strided.dtypes.DType` (``strided.float32``, ...).

        >>> strided.zeros(2).dtype, strided.arange(2).dtype
        (strided.float32, strided.int64)
        """
        return self._dtype

    def numel(self) -> int:
        """The number of elements.

        >>> strided.zeros(2, 3).numel()
        6
        """
        return L.product(self._layout.shape)

    nelement = numel

    def sparse_dim(self) -> int:
        """The number of sparse dims: 0, as for every strided (dense) PyTorch tensor.

        >>> strided.zeros(2, 3).sparse_dim(), strided.zeros(2, 3).dense_dim()
        (0, 2)
        """
        return 0

    def dense_dim(self) -> int:
        """The number of dense dims: all of them (``dim()``), as for a strided PyTorch tensor."""
        return len(self._layout.shape)

    def element_size(self) -> int:
        """Bytes per element.

        >>> strided.zeros(2, dtype=strided.float64).element_size()
        8
        """
        return self._dtype.itemsize

    @property
    def itemsize(self) -> int:
        """Bytes per element (``element_size()``).

        >>> strided.zeros(2, dtype=strided.int16).itemsize
        2
        """
        return self._dtype.itemsize

    @property
    def nbytes(self) -> int:
        """Bytes of the elements this tensor addresses (not of its storage), as in PyTorch.

        >>> strided.zeros(4, 4)[:, :2].nbytes
        32
        """
        return self.numel() * self._dtype.itemsize

    def stride(self, dim: int | None = None) -> Any:
        """Strides in elements, or the stride of one dim.

        >>> strided.zeros(2, 3).stride(), strided.zeros(2, 3).t().stride(0)
        ((3, 1), 1)
        """
        if dim is None:
            return self._layout.strides
        return self._layout.strides[self._dim_to_read(dim, "stride")]

    def _dim_to_read(self, dim: Any, op: str) -> int:
        """``dim`` wrapped for reading one size or stride: a 0-d tensor has none (PyTorch's IndexError)."""
        shape = self._layout.shape
        d = L.wrap_dim(dim, len(shape))
        if not shape:
            raise no_dims(dim, op)
        return d

    def storage_offset(self) -> int:
        """Where element 0 sits in the storage, in elements.

        >>> strided.arange(10)[3:].storage_offset()
        3
        """
        return self._layout.offset

    @property
    def layout(self) -> Layout:
        """The (shape, strides, offset) value of this tensor.

        >>> strided.zeros(2, 3).t().layout
        Layout(shape=(3, 2), strides=(1, 3), offset=0)
        """
        return self._layout

    def data_ptr(self) -> int:
        """Address of the first element (storage address + offset * itemsize); 0 when empty, as PyTorch.

        >>> x = strided.zeros(4, dtype=strided.float64)
        >>> x[1:].data_ptr() - x.data_ptr()
        8
        """
        if 0 in self._layout.shape:
            return 0
        return self._storage.data_ptr() + self._layout.offset * self._dtype.itemsize

    def untyped_storage(self) -> Storage:
        """The Storage shared by this tensor and all its views, those in another dtype included
        (``view(dtype)``, ``real``, ``imag``: the storage that owns the bytes), as in PyTorch.

        >>> x = strided.zeros(4)
        >>> x[1:].untyped_storage() is x.untyped_storage()
        True
        """
        storage = self._storage
        return storage_root(storage) if _dispatch._ALIASED else storage

    def storage(self) -> TypedStorage:
        """PyTorch's deprecated typed storage (its UserWarning included): this tensor's storage
        read as its dtype, with ``tolist()``, ``size()``, ``[i]``; ``untyped_storage()`` is the
        modern spelling.

        >>> import warnings; warnings.simplefilter("ignore")
        >>> strided.arange(3)[1:].storage().tolist()
        [0, 1, 2]
        """
        warnings.warn(TYPED_DEPRECATED, UserWarning, stacklevel=user_site()[1])  # (the user's line)
        return TypedStorage(wrap_storage=self._storage, dtype=self._dtype)

    def is_contiguous(self, memory_format: MemoryFormat = contiguous_format) -> bool:
        """PyTorch's rules: size-1 dims are ignored; empty tensors are contiguous.

        >>> x = strided.zeros(2, 3)
        >>> x.is_contiguous(), x.t().is_contiguous(), x[:, :1].is_contiguous()
        (True, False, False)
        """
        lay = self._layout
        if memory_format is channels_last:
            return L.is_channels_last_contiguous(lay.shape, lay.strides)
        if memory_format is channels_last_3d:
            return is_channels_last_3d_contiguous(lay.shape, lay.strides)
        if memory_format is contiguous_format or memory_format is preserve_format:
            # Note: PyTorch answers preserve_format with the plain (row-major) contiguity
            return L.is_contiguous(lay.shape, lay.strides)
        raise is_contiguous_format_error(memory_format, isinstance(memory_format, MemoryFormat))

    @property
    def base(self) -> Tensor | None:
        """The root tensor this view was made from; None when this tensor owns its storage.

        >>> x = strided.zeros(4)
        >>> x[1:].base is x, x.base is None
        (True, True)
        """
        return self._base

    _base_ = base

    def is_view(self) -> bool:
        """Whether this tensor shares another tensor's storage (``base`` is not None).

        >>> x = strided.zeros(4)
        >>> x.is_view(), x[1:].is_view()
        (False, True)
        """
        return self._base is not None

    _is_view = is_view  # PyTorch's (private) spelling, which its own view tests and tools call

    def is_floating_point(self) -> bool:
        """Whether the dtype is a floating-point one.

        >>> strided.zeros(1).is_floating_point(), strided.arange(1).is_floating_point()
        (True, False)
        """
        return self._dtype.is_floating_point

    def __repr__(self) -> str:
        grad = ""
        if self._ag is not None:  # PyTorch's suffix: the node's name, else requires_grad=True
            fn = self.grad_fn
            grad = f"grad_fn=<{fn.name()}>" if fn is not None else ("requires_grad=True" if self.requires_grad else "")
        return format_tensor(self._storage.array, self._layout, self._dtype, grad)

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        """``format(t, spec)``: a 0-d tensor formats its value (``f"{loss:.4f}"``), as PyTorch does.

        Other tensors take only the empty spec (their repr); a spec raises TypeError, as
        ``object.__format__`` does in PyTorch.
        """
        if not self._layout.shape:
            return format(self.item(), spec)
        if spec:
            raise format_spec_error(spec, self._layout.shape)
        return repr(self)

    def __contains__(self, element: Any) -> bool:
        """``element in t``: whether some element equals ``element`` (a number, or a tensor that
        broadcasts against ``t``), computed as PyTorch does: ``(t == element).any()``."""
        if isinstance(element, (Tensor, numbers.Number)):
            found = self.__eq__(element)
            if found is not NotImplemented:
                return bool(found.any())
        # Note: PyTorch lets Decimal and Fraction numbers through to ==; strided's == takes
        # neither of them, so they get this error too (complex numbers compare, as in PyTorch).
        raise contains_error(element, self._dtype.name, self._layout.shape)

    def __delitem__(self, key: Any) -> None:
        """``del t[key]``: refused as PyTorch refuses it (TypeError); a tensor has no item to remove."""
        raise delitem_error(key)

    def __len__(self) -> int:
        if not self._layout.shape:
            raise len_0d_error()
        return self._layout.shape[0]

    def __iter__(self) -> Iterator[Tensor]:
        if not self._layout.shape:
            raise iter_0d_error()
        return iter(self.unbind(0))

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        """NumPy 2's array protocol: this tensor's memory as an ndarray, copied only when asked or needed.

        ``copy=None``: a zero-copy view, or a converted copy when ``dtype`` is another element
        type. ``copy=True``: always a new array. ``copy=False``: the view, or ValueError when
        ``dtype`` needs a conversion (NumPy 2's contract). NumPy itself reads
        ``__array_interface__`` first (:mod:`strided.interop`), so this serves direct callers.
        """
        # Note: PyTorch's __array__ takes no copy=, so NumPy refuses np.asarray(torch_t, copy=False)
        # even when no copy is needed; strided follows NumPy's contract, as ndarray does.
        refuse_numpy(self, "np.asarray(t) (Tensor.__array__)")
        converts = dtype is not None and np.dtype(dtype) != self._dtype.numpy
        if converts and copy is False:
            raise array_copy_error(self._dtype.name, str(np.dtype(dtype)))
        arr = self._np()
        if converts:
            return copy_array(arr, f"__array__: NumPy asked for dtype {np.dtype(dtype)}", dtype)
        if copy:
            return copy_array(arr, "__array__(copy=True): NumPy asked for a copy")
        self._storage.mark_exported("np.asarray(t) (Tensor.__array__)")
        return arr

    def numpy(self) -> np.ndarray:
        """A zero-copy, writable NumPy array over the same memory.

        From now on the storage cannot be reallocated (``resize_`` beyond it is refused), as in
        PyTorch: the array would silently keep the old buffer.

        >>> x = strided.zeros(3)
        >>> a = x.numpy()
        >>> a[0] = 5.0
        >>> x[0].item()
        5.0
        """
        refuse_numpy(self, "t.numpy()")
        self._storage.mark_exported("t.numpy()")
        return self._np()

    def tolist(self) -> Any:
        """The elements as nested Python lists (a Python number for a 0-d tensor).

        >>> strided.arange(4).view(2, 2).tolist(), strided.tensor(2.5).tolist()
        ([[0, 1], [2, 3]], 2.5)
        """
        return self._np().tolist()

    def item(self) -> Any:
        """The one element as a Python number.

        >>> strided.tensor([[7]]).item()
        7
        """
        n = self.numel()
        if n != 1:
            raise item_error(self._layout.shape)
        return self._np().reshape(()).item()

    def __bool__(self) -> bool:
        n = self.numel()
        if n != 1:
            raise bool_error(self._layout.shape)
        return bool(self.item())

    def __float__(self) -> float:
        return float(_real_item(self.item(), "double"))

    def __int__(self) -> int:
        return int(_real_item(self.item(), "int64_t"))

    def __complex__(self) -> complex:
        return complex(self.item())

    def __index__(self) -> int:
        if self._dtype.kind in "fc" or self.numel() != 1:
            raise index_error(self._dtype.name, self._layout.shape)
        return int(self.item())


def _real_item(value: Any, c_name: str) -> Any:
    """A complex element converted to a real Python number as PyTorch converts it: only with a
    zero imaginary part."""
    if value.__class__ is complex:
        if value.imag:
            raise StridedRuntimeError(join_lines(
                f"value cannot be converted to type {c_name} without overflow",
                f"the element is {value!r}; a real number cannot hold its imaginary part",
                "fix: take a part first: float(t.real) or abs(t.item())"))
        return value.real
    return value


use_tensor_class(Tensor)  # (the recording entries' first test: ``x.__class__ is Tensor``)
