"""Plans: what a layout operation will do, decided from (shape, strides, offset) alone.

One pure function per layout operation and flavour. Each returns one of three things:

- :class:`View` — the new layout over the same memory (zero bytes move);
- :class:`Copy` — new memory: the dense strides it is written with, its bytes, and
  ``why`` as data (the refusal or the fact that forced it);
- a refusal (:mod:`.refusals`) — the operation is an error, and why, in numbers.

They take a :class:`~.core.Layout` and already-parsed arguments (ints, tuples of ints,
order letters, memory-format names); argument *kinds* are the callers' job (a non-int
dim still raises TypeError here). They touch no NumPy and no Tensor, so the diagnostics
can ask them about a strided tensor, a NumPy array or a PyTorch tensor alike. They reuse
the algebra's deciders (``<op>_layout`` of :mod:`.movement`, :func:`~.reshape.resolve_view`,
:func:`~.core.infer_shape`): no rule lives twice.

PyTorch's flavour carries the Tensor methods' rules (``view``, ``reshape``, ``expand``, ...);
NumPy's flavour (``numpy_reshape``, ``numpy_ravel``, ``numpy_broadcast_to``,
``ascontiguousarray``, ``asfortranarray``) carries ``strided.reshape`` & co.

Example::

    >>> from strided.layout import Layout, plans
    >>> plans.reshape(Layout((4, 3), (1, 4)), (12,), itemsize=4).nbytes
    48
    >>> plans.view(Layout((4, 3), (1, 4)), (12,)).equation()
    'stride[0] == size[1] * stride[1] = 3 * 4 = 12, but stride[0] is 1'
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from operator import itemgetter
from typing import Any

from ..refusals import (
    CopyRequested,
    FlattenOrder,
    InvalidSize,
    LayoutRefusal,
    MultipleInferred,
    NoCopyRefusal,
    NotContiguous,
    NumpyBroadcastRefusal,
    NumpyReshapeRefusal,
    ReshapeRefusal,
    Shape,
    UnflattenRefusal,
)
from . import movement as M
from .core import (
    INT64_MAX,
    Layout,
    _trusted,
    contiguous_strides,
    fortran_strides,
    infer_shape,
    is_contiguous,
    is_f_contiguous,
    layout_refusal,
)
from .formats import RANK, format_strides, is_format_contiguous
from .order import preserve_format_strides
from .reshape import numpy_keep_order, numpy_view_strides, resolve_view, torch_view_strides


class View(tuple):
    """The operation is a view: ``layout`` over the same memory, zero bytes copied.

    An immutable value compared by its layout. A one-item tuple underneath, so that a plan
    costs about what its Layout does (the plans build it with ``tuple.__new__`` directly).
    """

    __slots__ = ()

    def __new__(cls, layout: Layout) -> View:
        return _tuple_new(cls, (layout,))

    @property
    def layout(self) -> Layout:
        return self[0]

    def __eq__(self, other: object) -> bool:
        return other.__class__ is View and tuple.__eq__(self, other)  # type: ignore[arg-type]

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return tuple.__hash__(self)

    def __repr__(self) -> str:
        return f"View({self[0]!r})"

    def __reduce__(self) -> tuple[type, tuple[Layout]]:
        return (View, (self[0],))


_tuple_new = tuple.__new__


class Copy(tuple):
    """The operation copies into new memory.

    The input is read through ``read`` (its own layout, or a permutation of it) and
    written densely with ``strides`` (for ``read.shape``); the result is ``layout`` over
    that new memory (offset 0; a reshape re-reads the same dense block in a new shape).
    ``nbytes`` is what the copy writes, ``why`` the value that forced it: a
    :class:`ReshapeRefusal` (which dims, which equation), a :class:`NotContiguous`, a
    :class:`CopyRequested`, or a :class:`NoCopyRefusal`.

    An immutable value compared field by field; a tuple underneath, like :class:`View`, so
    that making one costs about 0.1 µs (a frozen dataclass took 0.7 µs, measured).
    """

    __slots__ = ()

    def __new__(cls, strides: Shape, nbytes: int, why: Any, layout: Layout, read: Layout) -> Copy:
        return _tuple_new(cls, (strides, nbytes, why, layout, read))

    strides = property(itemgetter(0), doc="dense strides the copy is written with (for ``read.shape``)")
    nbytes = property(itemgetter(1), doc="bytes the copy writes")
    why = property(itemgetter(2), doc="the value that forced the copy")
    layout = property(itemgetter(3), doc="the result's layout over the new memory")
    read = property(itemgetter(4), doc="the layout the input is read through")

    def __eq__(self, other: object) -> bool:
        return other.__class__ is Copy and tuple.__eq__(self, other)  # type: ignore[arg-type]

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return tuple.__hash__(self)

    def __repr__(self) -> str:
        return "Copy(strides={!r}, nbytes={!r}, why={!r}, layout={!r}, read={!r})".format(*self)

    def __reduce__(self) -> tuple[type, tuple]:
        return (Copy, tuple(self))


Plan = Any  # View | Copy | a refusal (see refusals.Refusal)

_CLONE = CopyRequested("clone()")  # the whys of the ops that always copy: values, made once
CLONE_WHY = _CLONE  # (clone's short path for contiguous tensors gives the same why)
_TO = CopyRequested("to()")


def _dense_copy(layout: Layout, strides: Shape, itemsize: int, why: Any,
                result: Layout | None = None) -> Copy:
    """A copy of ``layout`` written with dense ``strides``, laid out as ``result`` (default: as written)."""
    if result is None:
        result = _trusted(layout.shape, strides, 0)
    return _tuple_new(Copy, (strides, math.prod(layout.shape) * itemsize, why, result, layout))


def contiguity_break(shape: Sequence[int], strides: Sequence[int], order: str = "C") -> NotContiguous | None:
    """Why ``(shape, strides)`` is not dense in ``order`` ("C", "F", "channels_last"): the
    innermost dim (in that order) whose stride does not continue the dims inside it.

    None when it is contiguous in that order (size-1 dims ignored; empty counts as contiguous
    in C and F order), as :func:`~.core.is_contiguous` and its siblings say: they stay the fast
    predicates, and a test pins the two equal.
    """
    if order == "channels_last" or order == "channels_last_3d":
        # PyTorch's channels-last rules have no exception for empty layouts
        if len(shape) != RANK[order]:
            return NotContiguous(order, -1, 0, 0)
        walk: Sequence[int] = (1, 3, 2, 0) if order == "channels_last" else (1, 4, 3, 2, 0)
    elif 0 in shape:
        return None
    elif order == "F":
        walk = range(len(shape))
    else:
        walk = range(len(shape) - 1, -1, -1)
    expected = 1
    for d in walk:
        if shape[d] != 1:
            if strides[d] != expected:
                return NotContiguous(order, d, strides[d], expected)
            expected *= shape[d]
    return None


# ---------------------------------------------------------------- PyTorch's flavour: reshapes


def view(layout: Layout, shape: Sequence[int]) -> Plan:
    """``Tensor.view(shape)``: a View, or a refusal (a :class:`ReshapeRefusal` when the
    strides cannot express it; the :func:`~.core.infer_shape` refusals for a bad shape)."""
    resolved = resolve_view(layout.shape, layout.strides, tuple(shape))
    if resolved.__class__ is not tuple:
        return resolved
    new_shape, strides = resolved
    if strides.__class__ is not tuple:
        return strides
    return _tuple_new(View, (_trusted(new_shape, strides, layout.offset),))


def reshape(layout: Layout, shape: Sequence[int], *, itemsize: int) -> Plan:
    """``Tensor.reshape(shape)``: a View when PyTorch's ``computeStride`` allows, else a
    contiguous Copy whose ``why`` is the :class:`ReshapeRefusal`; a refusal for a bad shape."""
    resolved = resolve_view(layout.shape, layout.strides, tuple(shape))
    if resolved.__class__ is not tuple:
        return resolved
    new_shape, strides = resolved
    if strides.__class__ is tuple:
        return View(_trusted(new_shape, strides, layout.offset))
    return _dense_copy(
        layout, contiguous_strides(layout.shape), itemsize, strides,
        _trusted(new_shape, contiguous_strides(new_shape), 0),
    )


def flatten(layout: Layout, start_dim: int = 0, end_dim: int = -1, *, itemsize: int) -> Plan:
    """``Tensor.flatten(start_dim, end_dim)``: the layout itself when nothing merges, else
    :func:`reshape`'s plan; a refusal for bad dims."""
    shape = layout.shape
    ndim = len(shape)
    start = M._dim(start_dim, ndim)
    if start.__class__ is not int:
        return start
    end = M._dim(end_dim, ndim)
    if end.__class__ is not int:
        return end
    if start > end:  # type: ignore[operator]
        return FlattenOrder(shape, start_dim, end_dim, start, end)  # type: ignore[arg-type]
    if ndim == 0:
        return reshape(layout, (1,), itemsize=itemsize)
    if start == end:
        return View(layout)
    merged = math.prod(shape[start : end + 1])  # type: ignore[misc]
    return reshape(layout, shape[:start] + (merged,) + shape[end + 1 :], itemsize=itemsize)  # type: ignore[misc]


def unflatten(layout: Layout, dim: int, sizes: Sequence[int]) -> Plan:
    """``Tensor.unflatten(dim, sizes)``: always a View (splitting one dim never needs a copy),
    or a refusal, in PyTorch's order of checks."""
    shape = layout.shape
    sizes = tuple(sizes)
    if not sizes:
        return UnflattenRefusal("empty", shape, dim, -1, sizes)
    d = M._dim(dim, len(shape))
    if d.__class__ is not int:
        return d
    if not shape:
        return UnflattenRefusal("zero_dim", shape, dim, d, sizes)  # type: ignore[arg-type]
    inferred = infer_shape(sizes, shape[d])  # type: ignore[index]
    if inferred.__class__ is not tuple:
        if inferred.__class__ in (MultipleInferred, InvalidSize):
            return inferred  # PyTorch's "only one dimension can be inferred", "invalid shape dimension -2 ..."
        return UnflattenRefusal("product", shape, dim, d, sizes)  # type: ignore[arg-type]
    return view(layout, shape[:d] + inferred + shape[d + 1 :])  # type: ignore[operator,misc]


# ---------------------------------------------------------------- PyTorch's flavour: movement


def expand(layout: Layout, sizes: Sequence[int]) -> Plan:
    """``Tensor.expand(sizes)`` / ``Tensor.broadcast_to``: a View with stride-0 stretched dims,
    or a refusal (:class:`ExpandRefusal` names the dim that is not size 1)."""
    result = M.expand_layout(layout, sizes)
    return _tuple_new(View, (result,)) if result.__class__ is Layout else result


broadcast_to = expand


def permute(layout: Layout, dims: Sequence[int]) -> Plan:
    """``Tensor.permute(dims)``: a View, or a refusal (wrong count, out of range, repeated)."""
    result = M.permute_layout(layout, dims)
    return _tuple_new(View, (result,)) if result.__class__ is Layout else result


def transpose(layout: Layout, dim0: int, dim1: int) -> Plan:
    """``Tensor.transpose(dim0, dim1)``: a View, or the dim out of range."""
    result = M.transpose_layout(layout, dim0, dim1)
    return _tuple_new(View, (result,)) if result.__class__ is Layout else result


def reverse(layout: Layout) -> View:
    """``Tensor.T``: all dims reversed; always a View."""
    return _tuple_new(View, (_trusted(layout.shape[::-1], layout.strides[::-1], layout.offset),))


def movedim(layout: Layout, source: Sequence[int], destination: Sequence[int]) -> Plan:
    """``Tensor.movedim(source, destination)``: a View, or a refusal."""
    result = M.movedim_layout(layout, source, destination)
    return _tuple_new(View, (result,)) if result.__class__ is Layout else result


def squeeze(layout: Layout, dims: Sequence[int] | None = None) -> Plan:
    """``Tensor.squeeze(dims)``: a View without the chosen size-1 dims, or a refusal."""
    result = M.squeeze_layout(layout, dims)
    return _tuple_new(View, (result,)) if result.__class__ is Layout else result


def unsqueeze(layout: Layout, dim: int) -> Plan:
    """``Tensor.unsqueeze(dim)``: a View with a new size-1 dim, or a refusal."""
    result = M.unsqueeze_layout(layout, dim)
    return _tuple_new(View, (result,)) if result.__class__ is Layout else result


def select(layout: Layout, dim: int, index: int) -> Plan:
    """``Tensor.select(dim, index)``: a View, or a refusal (:class:`IndexOutOfRange`, ...)."""
    result = M.select_layout(layout, dim, index)
    return _tuple_new(View, (result,)) if result.__class__ is Layout else result


def narrow(layout: Layout, dim: int, start: int, length: int) -> Plan:
    """``Tensor.narrow(dim, start, length)``: a View, or a :class:`NarrowRefusal`."""
    result = M.narrow_layout(layout, dim, start, length)
    return _tuple_new(View, (result,)) if result.__class__ is Layout else result


def diagonal(layout: Layout, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Plan:
    """``Tensor.diagonal(offset, dim1, dim2)``: a View, or a refusal."""
    result = M.diagonal_layout(layout, offset, dim1, dim2)
    return _tuple_new(View, (result,)) if result.__class__ is Layout else result


def unfold(layout: Layout, dimension: int, size: int, step: int) -> Plan:
    """``Tensor.unfold(dimension, size, step)``: a View, or an :class:`UnfoldRefusal`."""
    result = M.unfold_layout(layout, dimension, size, step)
    return _tuple_new(View, (result,)) if result.__class__ is Layout else result


def as_strided(
    size: Shape, stride: Shape, offset: int, *, storage_size: int, itemsize: int
) -> Plan:
    """``Tensor.as_strided(size, stride, offset)`` over a storage of ``storage_size`` elements:
    a View, or a :class:`LayoutRefusal` (a negative stride, which PyTorch refuses, or the first
    Layout invariant broken, e.g. ``rule="storage"`` for an element past the storage's end)."""
    if any(s < 0 for s in stride if s.__class__ is int):
        return LayoutRefusal("negative_stride", size, stride, offset)
    if len(size) == len(stride) and 0 not in size and any(s < 0 for s in size if s.__class__ is int):
        # (PyTorch computes the storage the view needs before it looks at the sizes; an empty
        # view needs none, and then the negative size is refused below as "negative dimension")
        return LayoutRefusal("size_overflow", size, stride, offset)
    refusal = layout_refusal(size, stride, offset, storage_size, itemsize)
    if refusal is not None:
        return refusal
    return _tuple_new(View, (_trusted(size, stride, offset),))


def index(layout: Layout, key: object) -> View:
    """``t[key]`` for basic indices (ints, slices, None, ...): always a View.

    Bad keys still raise (with PyTorch's errors) rather than refuse: they are argument
    errors decided while the key is parsed, in :func:`strided.indexing.index_layout`.
    """
    from ..indexing import index_layout  # indexing imports the layout package: import late

    return View(index_layout(layout, key))


# ---------------------------------------------------------------- PyTorch's flavour: copies


def contiguous(layout: Layout, memory_format: str = "contiguous_format", *, itemsize: int) -> Plan:
    """``Tensor.contiguous(memory_format)``: the layout itself when already dense in that
    format, else a dense Copy whose ``why`` is the :class:`NotContiguous` dim.

    ``memory_format`` is "contiguous_format", "channels_last" or "channels_last_3d" (a
    :class:`ChannelsLastRank` refusal for a layout that is not 4-d (5-d) and not already so).
    """
    shape, strides = layout.shape, layout.strides
    if memory_format == "channels_last" or memory_format == "channels_last_3d":
        if is_format_contiguous(shape, strides, memory_format):
            return View(layout)
        dense = format_strides(shape, memory_format)
        if dense.__class__ is not tuple:
            return dense  # the rank refusal
        return _dense_copy(layout, dense, itemsize, contiguity_break(shape, strides, memory_format))
    if is_contiguous(shape, strides):
        return View(layout)
    return _dense_copy(layout, contiguous_strides(shape), itemsize, contiguity_break(shape, strides))


def clone(layout: Layout, memory_format: str = "preserve_format", *, itemsize: int) -> Plan:
    """``Tensor.clone(memory_format)``: always a Copy; ``preserve_format`` keeps dense strides
    (PyTorch's ``empty_like`` rule), the others write in that format."""
    shape = layout.shape
    if memory_format == "preserve_format":
        strides = preserve_format_strides(shape, layout.strides)
    elif memory_format == "channels_last" or memory_format == "channels_last_3d":
        dense = format_strides(shape, memory_format)
        if dense.__class__ is not tuple:
            return dense  # the rank refusal
        strides = dense
    else:
        strides = contiguous_strides(shape)
    return _dense_copy(layout, strides, itemsize, _CLONE)


def to(layout: Layout, *, itemsize: int) -> Copy:
    """``Tensor.to(dtype)`` that converts (or ``copy=True``): a Copy in ``preserve_format``'s
    dense strides, ``itemsize`` being the new dtype's."""
    return _dense_copy(layout, preserve_format_strides(layout.shape, layout.strides), itemsize,
                       _TO)


# ---------------------------------------------------------------- NumPy's flavour


def numpy_infer(shape: Shape, numel: int, old_shape: Shape) -> Shape | NumpyReshapeRefusal:
    """NumPy's ``_fix_unknown_dimension``: any one negative size is inferred, or why not."""
    infer_at = None
    known = 1
    for i, s in enumerate(shape):
        if s < 0:  # NumPy takes any negative size as the unknown one
            if infer_at is not None:
                return NumpyReshapeRefusal("unknown", old_shape, shape, numel)
            infer_at = i
        else:
            known *= s
            if known > INT64_MAX:  # NumPy multiplies in int64 and refuses an overflow
                return NumpyReshapeRefusal("size", old_shape, shape, numel)
    if infer_at is not None and known and numel % known == 0:
        out = list(shape)
        out[infer_at] = numel // known
        return tuple(out)
    if infer_at is None and known == numel:
        return shape
    return NumpyReshapeRefusal("size", old_shape, shape, numel)


def _numpy_why(layout: Layout, new_shape: Shape, order: str) -> ReshapeRefusal | None:
    """Which dims keep a C-order reshape from being a view (PyTorch's rule, which agrees with
    NumPy's on view-vs-copy); None in F order (the refusal would be in reversed numbers)."""
    if order != "C":
        return None
    strides = torch_view_strides(layout.shape, layout.strides, new_shape)
    return strides if isinstance(strides, ReshapeRefusal) else None


def numpy_reshape(layout: Layout, shape: Sequence[int], order: str = "C", copy: bool | None = None,
                  *, itemsize: int) -> Plan:
    """``numpy.reshape(a, shape, order=, copy=)``: a View when NumPy's no-copy rule allows in
    ``order`` ("C", "F" or "A"), a Copy in that order otherwise (or always, ``copy=True``);
    a :class:`NoCopyRefusal` for ``copy=False`` when a copy is needed.

    # Note: NumPy gives fresh empty arrays all-zero strides; the Copy keeps dense ones.
    """
    old_shape, old_strides = layout.shape, layout.strides
    new_shape: Any = tuple(shape)
    c_contig, f_contig = is_contiguous(old_shape, old_strides), is_f_contiguous(old_shape, old_strides)
    if order == "A":
        order = "F" if f_contig and not c_contig else "C"
    if copy is not True and new_shape == old_shape:
        return View(layout)
    new_shape = numpy_infer(new_shape, math.prod(old_shape), old_shape)
    if new_shape.__class__ is not tuple:
        return new_shape
    fortran = order == "F"
    dense = fortran_strides if fortran else contiguous_strides
    result = _trusted(new_shape, dense(new_shape), 0)
    if copy is True:
        return _dense_copy(layout, dense(old_shape), itemsize, CopyRequested("reshape(copy=True)"), result)
    if (c_contig and not fortran) or (f_contig and fortran):
        return View(_trusted(new_shape, dense(new_shape), layout.offset))
    strides = numpy_view_strides(old_shape, old_strides, new_shape, fortran)
    if strides is not None:
        return View(_trusted(new_shape, strides, layout.offset))
    refusal = NoCopyRefusal(old_shape, old_strides, new_shape, order, _numpy_why(layout, new_shape, order))
    if copy is False:
        return refusal
    return _dense_copy(layout, dense(old_shape), itemsize, refusal, result)


def numpy_ravel(layout: Layout, order: str = "C", *, itemsize: int) -> Plan:
    """``numpy.ravel(a, order=)``: a 1-d View when the layout allows it in ``order`` ("C", "F",
    "A" or "K"), else a Copy; ``order="K"`` copies in memory order (``Copy.read`` is the input
    permuted into the order NumPy's iterator walks)."""
    shape, strides = layout.shape, layout.strides
    c_contig, f_contig = is_contiguous(shape, strides), is_f_contiguous(shape, strides)
    if order == "K":
        if c_contig:
            order = "C"
        elif f_contig:
            order = "F"
    elif order == "A":
        order = "F" if f_contig and not c_contig else "C"
    n = math.prod(shape)
    if (order == "C" and c_contig) or (order == "F" and f_contig):
        # NumPy asks reshape for (-1,), which never takes reshape's "same shape" shortcut: a 1-d
        # (1,) with an odd stride still gets the dense stride
        return numpy_reshape(layout, (-1,), order, itemsize=itemsize)
    if order == "K":
        if _dense_in_memory_order(shape, strides):
            return View(_trusted((n,), (1,), layout.offset))
        read = M.permute(layout, numpy_keep_order(shape, strides))
        why = NoCopyRefusal(shape, strides, (n,), "K", None)
        return _dense_copy(read, contiguous_strides(read.shape), itemsize, why, _trusted((n,), (1,), 0))
    fortran = order == "F"
    dense = fortran_strides if fortran else contiguous_strides
    why = NoCopyRefusal(shape, strides, (n,), order, _numpy_why(layout, (n,), order))
    return _dense_copy(layout, dense(shape), itemsize, why, _trusted((n,), (1,), 0))


def _dense_in_memory_order(shape: Shape, strides: Shape) -> bool:
    """Whether the dims, sorted by decreasing ``|stride|``, tile memory with unit steps (size-1 skipped)."""
    dims = sorted(range(len(shape)), key=lambda d: -abs(strides[d]))
    stride = 1
    for d in reversed(dims):
        if shape[d] == 1:
            continue
        if strides[d] != stride:
            return False
        stride *= shape[d]
    return True


def ascontiguousarray(layout: Layout, *, itemsize: int) -> Plan:
    """``numpy.ascontiguousarray``: the layout itself when C-contiguous (0-d becomes 1-d, as
    in NumPy), else a C-order Copy."""
    if not layout.shape:
        return numpy_reshape(layout, (1,), itemsize=itemsize)
    return contiguous(layout, itemsize=itemsize)


def asfortranarray(layout: Layout, *, itemsize: int) -> Plan:
    """``numpy.asfortranarray``: the layout itself when F-contiguous (0-d becomes 1-d), else
    a column-major Copy."""
    shape, strides = layout.shape, layout.strides
    if not shape:
        return numpy_reshape(layout, (1,), itemsize=itemsize)
    if is_f_contiguous(shape, strides):
        return View(layout)
    return _dense_copy(layout, fortran_strides(shape), itemsize, contiguity_break(shape, strides, "F"))


def numpy_broadcast_to(layout: Layout, shape: Sequence[int]) -> Plan:
    """``numpy.broadcast_to(a, shape)``: a stride-0 View, or a :class:`NumpyBroadcastRefusal`
    in NumPy's order of checks."""
    target = tuple(shape)
    have = layout.shape
    if not target and have:
        return NumpyBroadcastRefusal("scalar", have, target)
    if any(n < 0 for n in target):
        return NumpyBroadcastRefusal("negative", have, target)
    if len(target) < len(have):
        return NumpyBroadcastRefusal("ndim", have, target)
    if not all(s == 1 or s == n for s, n in zip(reversed(have), reversed(target))):
        return NumpyBroadcastRefusal("mismatch", have, target)
    # Note: NumPy's iterator gives every size-1 dim of the input stride 0, stretched or not
    # (PyTorch's expand keeps it), and every new leading dim stride 0.
    lead = len(target) - len(have)
    strides = (0,) * lead + tuple(0 if n == 1 else s for n, s in zip(have, layout.strides))
    return _tuple_new(View, (_trusted(target, strides, layout.offset),))


__all__ = [
    "Copy", "Plan", "View", "ascontiguousarray", "asfortranarray", "broadcast_to", "clone",
    "contiguity_break", "contiguous", "diagonal", "expand", "flatten", "index", "movedim",
    "narrow", "numpy_broadcast_to", "numpy_infer", "numpy_ravel", "numpy_reshape", "permute",
    "reshape", "reverse", "select", "squeeze", "to", "transpose", "unflatten", "unfold", "unsqueeze", "view",
]
