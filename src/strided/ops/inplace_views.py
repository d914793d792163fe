"""In-place view ops: ops that change a tensor's own layout and return it (``t_``, ``transpose_``,
``swapdims_``, ``swapaxes_``, ``squeeze_``, ``unsqueeze_``, ``as_strided_``, ``resize_as_``), and
``set_`` (a tensor made to view another tensor's storage, or a :class:`~strided.storage.Storage`)
with ``is_set_to``. Also ``narrow`` with a tensor ``start``.

Each op plans the new layout first (the same layout functions the out-of-place view uses), so a
refused call leaves the tensor untouched; then it swaps the tensor's layout and reports a view
to listeners (``dispatch.view_of``). No byte is copied, and views made earlier keep their own
layout, as in PyTorch.

>>> t = strided.zeros(2, 3)
>>> t.t_() is t, t.shape, t.stride()
(True, (3, 2), (1, 3))
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import layout as L
from ..args import int_arg, type_name
from ..dispatch import OPEN, result, view_of
from ..dtypes import CPP_NAME, TORCH_NAME
from ..errors import StridedRuntimeError, StridedTypeError, join_lines
from ..grad_mode import keep_counter
from ..gradients import seal
from ..kernels import grow_storage
from ..layout import Layout
from ..layout import plans as P
from ..layout.formats import suggest_format
from ..memory_format import DENSE_FORMATS, preserve_format
from ..messages import error
from ..storage import Storage
from ..tensor import Tensor, tensor_arg
from ..typed_storage import TypedStorage
from .registry import method


def _relayout(self: Tensor, plan: Any, name: str) -> Tensor:
    """Give ``self`` the layout ``plan`` decides (a Layout or View), or raise its refusal; report a view."""
    cls = plan.__class__
    if cls is Layout:
        layout = plan
    elif cls is P.View:
        layout = plan[0]
    else:
        raise error(plan)
    self._layout = layout
    if OPEN:
        view_of(self, self, name)
    return self


@method("t_")
def t_(self: Tensor) -> Tensor:
    """``t()`` in place: a 2-d tensor's dims swapped; 0-d and 1-d tensors unchanged.

    >>> x = strided.zeros(2, 3)
    >>> x.t_() is x, x.shape, x.stride()
    (True, (3, 2), (1, 3))
    """
    ndim = len(self._layout.shape)
    if ndim > 2:
        raise StridedRuntimeError(
            join_lines(
                f"t_() expects a tensor with <= 2 dimensions, but self is {ndim}D",
                f"this tensor has shape {self._layout.shape}",
                "fix: .transpose_(dim0, dim1) swaps any two dims in place",
            )
        )
    if ndim < 2:
        return _relayout(self, self._layout, "t_")
    return _relayout(self, L.transpose_layout(self._layout, 0, 1), "t_")


@method("transpose_")
def transpose_(self: Tensor, dim0: int, dim1: int) -> Tensor:
    """``transpose(dim0, dim1)`` in place.

    >>> x = strided.zeros(2, 3, 4)
    >>> x.transpose_(0, 2).shape
    (4, 3, 2)
    """
    return _relayout(self, L.transpose_layout(self._layout, dim0, dim1), "transpose_")


@method("swapdims_")
def swapdims_(self: Tensor, dim0: int, dim1: int) -> Tensor:
    """``swapdims(dim0, dim1)`` in place (an alias of ``transpose_``).

    >>> strided.zeros(2, 3).swapdims_(0, 1).shape
    (3, 2)
    """
    return _relayout(self, L.transpose_layout(self._layout, dim0, dim1), "swapdims_")


@method("swapaxes_")
def swapaxes_(self: Tensor, axis0: int, axis1: int) -> Tensor:
    """``swapaxes(axis0, axis1)`` in place (an alias of ``transpose_``).

    >>> strided.zeros(2, 3).swapaxes_(0, 1).stride()
    (1, 3)
    """
    return _relayout(self, L.transpose_layout(self._layout, axis0, axis1), "swapaxes_")


@method("squeeze_")
def squeeze_(self: Tensor, dim: int | Sequence[int] | None = None) -> Tensor:
    """``squeeze(dim)`` in place: every size-1 dim, one dim, or a tuple of dims.

    >>> x = strided.zeros(2, 1, 3)
    >>> x.squeeze_() is x, x.shape
    (True, (2, 3))
    """
    dims = dim if dim is None else tuple(dim) if isinstance(dim, (tuple, list)) else (dim,)
    return _relayout(self, L.squeeze_layout(self._layout, dims), "squeeze_")


@method("unsqueeze_")
def unsqueeze_(self: Tensor, dim: int) -> Tensor:
    """``unsqueeze(dim)`` in place.

    >>> x = strided.zeros(2, 3)
    >>> x.unsqueeze_(0) is x, x.shape
    (True, (1, 2, 3))
    """
    return _relayout(self, L.unsqueeze_layout(self._layout, dim), "unsqueeze_")


@method("as_strided_")
def as_strided_(self: Tensor, size: Sequence[int], stride: Sequence[int],
                storage_offset: int | None = None) -> Tensor:
    """``as_strided(size, stride, storage_offset)`` in place: checked against the storage's bounds.

    >>> x = strided.arange(6)
    >>> x.as_strided_((2, 2), (1, 2)).tolist()
    [[0, 2], [1, 3]]
    """
    offset = self._layout.offset if storage_offset is None else storage_offset
    shape, strides, offset = L.normalize_layout_args(size, stride, offset)
    plan = P.as_strided(shape, strides, offset, storage_size=self._storage.size(), itemsize=self._dtype.itemsize)
    return _relayout(self, plan, "as_strided_")


DENSE_BY_NAME = {f.name: f for f in DENSE_FORMATS}


@method("resize_as_")
def resize_as_(self: Tensor, the_template: Tensor, memory_format: Any = None) -> Tensor:
    """``resize_(the_template.shape, memory_format=memory_format)``: as PyTorch, the template's
    strides are not copied (contiguous unless ``memory_format`` says otherwise);
    ``preserve_format`` takes the template's suggested format (channels_last for a 4-d
    channels-last template, else contiguous), as PyTorch's ``resize_as_`` does.

    >>> strided.zeros(6).resize_as_(strided.zeros(2, 3)).shape
    (2, 3)
    """
    if not isinstance(the_template, Tensor):
        raise StridedTypeError(
            join_lines(
                f"resize_as_(): argument 'the_template' (position 1) must be Tensor, not "
                f"{type_name(the_template)}",
                "pass the tensor whose shape to take; for sizes use resize_(*sizes)",
            )
        )
    if memory_format is preserve_format:
        lay = the_template._layout
        memory_format = DENSE_BY_NAME[suggest_format(lay.shape, lay.strides)]
    return self.resize_(the_template._layout.shape, memory_format=memory_format)


# ---------------------------------------------------------------- set_ / is_set_to


@method("set_")
def set_(self: Tensor, source: Tensor | Storage | None = None, storage_offset: int = 0,
         size: Sequence[int] | None = None, stride: Sequence[int] | None = None) -> Tensor:
    """Make ``self`` view another storage, in place:

    - ``set_()``: a new empty storage, shape (0,);
    - ``set_(tensor)``: ``tensor``'s storage, shape, strides and offset;
    - ``set_(storage)``: the whole :class:`Storage` (or a ``TypedStorage`` of the same dtype, as
      ``Tensor.storage()`` gives) as a 1-d tensor;
    - ``set_(source, storage_offset, size, stride=None)``: that layout (contiguous strides by
      default) over ``source``'s storage (a tensor ``source`` must be contiguous, as PyTorch asks).

    The dtypes must match. As in PyTorch, a layout reaching past the end of a resizable storage
    grows it (every tensor over it sees the larger buffer); one that cannot move is refused.

    >>> a = strided.arange(6.)
    >>> b = strided.zeros(1).set_(a, 1, (2, 2))
    >>> b.tolist(), b.is_set_to(a)
    ([[1.0, 2.0], [3.0, 4.0]], False)
    """
    if source is None:
        if size is not None or storage_offset != 0:
            raise _set_error(source, storage_offset, size, stride)
        return _set_layout(self, result((0,), self._dtype)._storage, Layout._trusted((0,), (1,), 0), None)
    if isinstance(source, TypedStorage):  # Tensor.storage()'s; PyTorch's set_ takes it as the storage
        if source.dtype is not self._dtype:
            raise StridedRuntimeError(join_lines(
                f"Expected a Storage of type {CPP_NAME.get(self._dtype.name, self._dtype.name)} or an "
                f"UntypedStorage, but got type {TORCH_NAME[source.dtype.name]} for argument 1 'storage'",
                f"this tensor holds {self._dtype.name}, the storage {source.dtype.name}: set_ shares memory, "
                "so the element types must be equal",
                f"fix: set_ a storage of {self._dtype.name} elements, or convert this tensor first"))
        source = source.untyped()
    if isinstance(source, Tensor):
        _check_dtype(self, source._dtype.name, source._dtype.numpy)
        if size is None:
            if storage_offset != 0 or stride is not None:
                raise _set_error(source, storage_offset, size, stride)
            return _set_layout(self, source._storage, source._layout, source)
        if not source.is_contiguous():
            raise StridedRuntimeError(
                join_lines(
                    "passed in tensor to be used as storage must be contiguous",
                    f"the source has shape {source._layout.shape}, strides {source._layout.strides}",
                    "fix: set_(source.contiguous(), ...), or set_(source.untyped_storage(), ...) for its "
                    "storage from element 0",
                )
            )
        storage = source._storage
        storage_offset = int_arg(storage_offset, "set_", "storage_offset", 2) + source._layout.offset
    elif isinstance(source, Storage):
        _check_dtype(self, source.array.dtype.name, source.array.dtype)
        storage = source
        if size is None:
            if storage_offset != 0 or stride is not None:
                raise _set_error(source, storage_offset, size, stride)
            return _set_layout(self, storage, Layout._trusted((storage.size(),), (1,), 0), None)
        storage_offset = int_arg(storage_offset, "set_", "storage_offset", 2)
    else:
        raise _set_error(source, storage_offset, size, stride)
    if stride is None:
        shape = L.normalize_layout_args(size, (), 0)[0]
        strides = L.contiguous_strides(shape)
    else:
        shape, strides, _ = L.normalize_layout_args(size, stride, 0)
    L.check_layout(shape, strides, storage_offset, itemsize=self._dtype.itemsize)
    lo, hi = L.storage_extent(Layout._trusted(shape, strides, storage_offset))
    if L.product(shape) and hi > storage.size():
        grow_storage(storage, hi)  # PyTorch's set_ resizes the storage; refused when it may not move
    return _set_layout(self, storage, Layout._trusted(shape, strides, storage_offset),
                       source if isinstance(source, Tensor) else None)


def _set_layout(self: Tensor, storage: Storage, layout: Layout, source: Tensor | None) -> Tensor:
    # PyTorch's version counter belongs to the tensor, not its memory: after set_ ``self`` keeps
    # counting on, and writes through it do not count in the source's (nor the source's in it)
    keep_counter(self)
    self._storage = storage
    self._layout = layout
    # as PyTorch: a tensor made by set_ is no view (its _base is None), it shares the storage
    self._base = None
    if OPEN:
        view_of(source if source is not None else self, self, "set_")
    return self


def _check_dtype(self: Tensor, name: str, np_dtype: Any) -> None:
    if np_dtype != self._dtype.numpy:
        cpp = CPP_NAME.get
        raise StridedRuntimeError(
            join_lines(
                f"Could not set tensor of type {cpp(name, name)} to a tensor of type "
                f"{cpp(self._dtype.name, self._dtype.name)}",
                f"this tensor holds {self._dtype.name}; the source's memory holds {name}: set_ shares "
                "memory, so the element types must be equal",
                f"fix: convert the source first (source.to(strided.{self._dtype.name})), or set_ a tensor "
                f"of dtype {name}",
            )
        )


def _set_error(source: Any, storage_offset: Any, size: Any, stride: Any) -> StridedTypeError:
    return StridedTypeError(
        join_lines(
            f"set_() received an invalid combination of arguments - got ({type_name(source)}, "
            f"{type_name(storage_offset)}, {type_name(size)}, {type_name(stride)})",
            "use set_(), set_(tensor), set_(storage) or set_(source, storage_offset, size, stride=None)",
        )
    )


@method("is_set_to")
def is_set_to(self: Tensor, tensor: Tensor) -> bool:
    """Whether ``self`` and ``tensor`` share one storage with the same offset, shape and strides.

    >>> x = strided.zeros(4)
    >>> x.is_set_to(x), x.is_set_to(x[1:]), x.is_set_to(x.view(2, 2))
    (True, False, False)
    """
    other = tensor_arg(tensor, "is_set_to", "tensor")
    return self._storage is other._storage and self._layout == other._layout


seal(globals())
