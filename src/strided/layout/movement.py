"""Movement ops as ``Layout -> Layout`` functions: permute, transpose, expand, select, ...

Each costs O(ndim) and touches no data. Every op comes twice: ``<op>_layout`` decides,
returning the new Layout or a refusal (:mod:`.refusals`: the numbers that failed), and
``<op>`` carries the decision out, raising the refusal rendered by :mod:`strided.messages`
(errors read like PyTorch's and explain the layout reason in its own numbers). The plans
(:mod:`.plans`) call the deciders; the Tensor methods call the raising ops.

Each op keeps the invariants of :func:`~.core.check_layout` by construction, so its
result is built with ``Layout._trusted`` and never re-validated: an offset only moves
to a position some index of the input reaches (or, for an empty result, forward);
a new stride that could leave int64 belongs to a dim with at most one index and is
clamped (:func:`~.core.fit_int64`); ops that add dims or elements check
``MAX_DIMS`` and the numel.

Example::

    >>> expand_layout(Layout((3, 1), (1, 1)), (3, 4))
    Layout(shape=(3, 4), strides=(1, 0), offset=0)
    >>> expand_layout(Layout((3, 2), (2, 1)), (3, 4)).tensor_dim
    1
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from ..errors import StridedTypeError, join_lines
from ..messages import error, expand_fix
from ..refusals import (
    DimOutOfRange,
    ExpandNewDimInferred,
    ExpandRefusal,
    ExpandTooFewSizes,
    IndexOutOfRange,
    MovedimLength,
    NarrowRefusal,
    NegativeSize,
    NumelOverflow,
    PermuteLength,
    RepeatedDims,
    SameDims,
    Shape,
    TooManyDims,
    UnfoldRefusal,
    ZeroDimRefusal,
    ZeroStep,
)
from .core import (
    INT64_MAX,
    MAX_DIMS,
    Layout,
    _is_index_scalar,
    dim_in_range,
    fit_int64,
    wrap_dim,
)

_RANGES = tuple(list(range(n)) for n in range(33))


def _done(result: Any) -> Layout:
    """Carry out a decision: the Layout, or raise the refusal rendered as the peers' error."""
    if result.__class__ is Layout:
        return result
    raise error(result)


def _dim(dim: object, ndim: int) -> int | DimOutOfRange:
    """``dim`` wrapped into ``[0, ndim)`` or refused; other kinds than int are argument errors
    (raised by :func:`~.core.wrap_dim`, with PyTorch's TypeError or OverflowError)."""
    span = ndim if ndim > 0 else 1
    if dim.__class__ is int and -span <= dim < span:  # the common case, inline (a hot path)
        return dim + span if dim < 0 else dim  # type: ignore[operator]
    if type(dim) is int and -INT64_MAX - 1 <= dim <= INT64_MAX:
        return dim_in_range(dim, ndim)
    return wrap_dim(dim, ndim)


def _is_dim_arg(d: object) -> bool:
    return isinstance(d, int) and not isinstance(d, bool) or _is_index_scalar(d)


def permute(layout: Layout, dims: Sequence[int]) -> Layout:
    """Reorder dims: result dim ``i`` is input dim ``dims[i]``."""
    shape, strides = layout.shape, layout.strides
    # the common case, checked cheaply (a hot path): plain ints forming a permutation
    for d in dims:
        if d.__class__ is not int:
            return _permute_checked(layout, dims)
    ndim = len(shape)
    if ndim >= len(_RANGES) or sorted(dims) != _RANGES[ndim]:
        return _permute_checked(layout, dims)
    return Layout._trusted(
        tuple([shape[d] for d in dims]), tuple([strides[d] for d in dims]), layout.offset
    )


def _permute_checked(layout: Layout, dims: Sequence[int]) -> Layout:
    """``permute`` for anything but plain non-negative int permutations: wrap, check, explain."""
    return _done(permute_layout(layout, dims))


def permute_layout(
    layout: Layout, dims: Sequence[int]
) -> Layout | PermuteLength | DimOutOfRange | RepeatedDims:
    """``permute`` decided: the permuted layout, or why not (a TypeError for non-int dims)."""
    shape, strides = layout.shape, layout.strides
    ndim = len(shape)
    # the fast path of permute() (kept inline in both: each is one call on a hot path)
    for d in dims:
        if d.__class__ is not int:
            break
    else:
        if ndim < len(_RANGES) and sorted(dims) == _RANGES[ndim]:
            return Layout._trusted(
                tuple([shape[d] for d in dims]), tuple([strides[d] for d in dims]), layout.offset
            )
    if not all(_is_dim_arg(d) for d in dims):
        bad = next(d for d in dims if not _is_dim_arg(d))
        raise StridedTypeError(
            join_lines(
                f"permute(): argument 'dims' must be tuple of ints, but found element of type "
                f"{type(bad).__name__}",
                f"got dims {tuple(dims)!r:.80}; give one int per dim, a reordering of {tuple(range(ndim))}",
            )
        )
    if len(dims) != ndim:
        return PermuteLength(shape, tuple(dims))
    wrapped: list[int] = []
    for d in dims:  # PyTorch wraps and checks for a repeat dim by dim: permute(-1, 2, 6) on 3 dims repeats
        w = _dim(d, ndim)
        if w.__class__ is not int:
            return w
        if w in wrapped:
            return RepeatedDims("permute", tuple(dims), (*wrapped, w))
        wrapped.append(w)
    return Layout._trusted(
        tuple([shape[d] for d in wrapped]), tuple([strides[d] for d in wrapped]), layout.offset
    )


def transpose(layout: Layout, dim0: int, dim1: int) -> Layout:
    """Swap two dims."""
    result = transpose_layout(layout, dim0, dim1)
    if result.__class__ is Layout:  # inline, not _done(): one call less on a hot path
        return result
    raise error(result)


def transpose_layout(layout: Layout, dim0: int, dim1: int) -> Layout | DimOutOfRange:
    """``transpose`` decided: the layout with two dims swapped, or the dim out of range."""
    ndim = len(layout.shape)
    d0 = _dim(dim0, ndim)
    if d0.__class__ is not int:
        return d0
    d1 = _dim(dim1, ndim)
    if d1.__class__ is not int:
        return d1
    if d0 == d1 or ndim == 0:
        return layout
    shape = list(layout.shape)
    strides = list(layout.strides)
    shape[d0], shape[d1] = shape[d1], shape[d0]
    strides[d0], strides[d1] = strides[d1], strides[d0]
    return Layout._trusted(tuple(shape), tuple(strides), layout.offset)


def movedim(layout: Layout, source: Sequence[int], destination: Sequence[int]) -> Layout:
    """Move dims ``source`` to positions ``destination``; the others keep their order."""
    return _done(movedim_layout(layout, source, destination))


def movedim_layout(
    layout: Layout, source: Sequence[int], destination: Sequence[int]
) -> Layout | MovedimLength | DimOutOfRange | RepeatedDims:
    """``movedim`` decided (a TypeError for non-int dims)."""
    ndim = len(layout.shape)
    for name, dims in (("source", source), ("destination", destination)):
        for d in dims:
            if not _is_dim_arg(d):
                raise StridedTypeError(
                    f"movedim(): argument '{name}' must be int or tuple of ints, but found element "
                    f"of type {type(d).__name__}\n  got {name}={list(dims)!r:.80}"
                )
    if len(source) != len(destination):
        return MovedimLength(tuple(source), tuple(destination))
    wrapped_pair = []
    for dims in (source, destination):
        wrapped = []
        for d in dims:
            w = _dim(d, ndim)
            if w.__class__ is not int:
                return w
            wrapped.append(w)
        wrapped_pair.append(tuple(wrapped))
    src, dst = wrapped_pair
    for name, given, wrapped in (("source", source, src), ("destination", destination, dst)):
        if len(set(wrapped)) != len(wrapped):
            return RepeatedDims(f"movedim {name}", tuple(given), wrapped)
    if ndim == 0:
        return layout  # a 0-d tensor accepts dim 0 (or -1) and has nothing to move
    order: list[int | None] = [None] * ndim
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(d for d in range(ndim) if d not in src)
    perm = [o if o is not None else next(rest) for o in order]
    return permute(layout, perm)


def expand(layout: Layout, sizes: Sequence[int]) -> Layout:
    """PyTorch's ``inferExpandGeometry``: size-1 dims stretch with stride 0, -1 keeps a size."""
    result = expand_layout(layout, sizes)
    if result.__class__ is Layout:  # inline, not _done(): one call less on a hot path
        return result
    raise error(result)


def expand_layout(
    layout: Layout, sizes: Sequence[int]
) -> (Layout | ExpandTooFewSizes | TooManyDims | ExpandNewDimInferred | ExpandRefusal
      | NegativeSize | NumelOverflow):
    """``expand`` decided: the stretched layout (stride 0 on stretched dims), or why not."""
    shape, strides = layout.shape, layout.strides
    ndim = len(sizes)
    tdim = len(shape)
    if ndim < tdim:
        return ExpandTooFewSizes(shape, tuple(sizes))
    if ndim > MAX_DIMS:
        return TooManyDims(ndim, f"expand(size={list(sizes)[:8]}...)")
    out_shape = [0] * ndim
    out_strides = [0] * ndim
    for i in range(ndim - 1, -1, -1):
        dim = tdim - ndim + i
        if dim >= 0:
            size, stride = shape[dim], strides[dim]
        else:
            size = 1
            stride = out_shape[i + 1] * out_strides[i + 1] if i + 1 < ndim and tdim > 0 else 0
            if not -INT64_MAX <= stride <= INT64_MAX:
                stride = fit_int64(stride)  # a size-1 dim: its stride is never used
        target = sizes[i]
        if target == -1:
            if dim < 0:
                return ExpandNewDimInferred(shape, tuple(sizes), i)
            target = size
        if size != target:
            if size != 1:
                return ExpandRefusal(shape, tuple(sizes), i, dim, size, target)
            if target < 0:
                return NegativeSize(tuple(sizes), i, target)
            size = target
            stride = 0
        out_shape[i] = size
        out_strides[i] = stride
    if tdim == 0:
        out_strides = [0] * ndim
    if math.prod(out_shape) > INT64_MAX:  # the message is built only on failure (a hot path)
        return NumelOverflow(tuple(out_shape), f"expand(Tensor{{{list(shape)}}}, size={list(sizes)})")
    return Layout._trusted(tuple(out_shape), tuple(out_strides), layout.offset)


def _expand_fix(shape: Shape, dim: int, target: int, sizes: Sequence[int]) -> str:
    """A fix for expanding tensor dim ``dim`` of size ``shape[dim]`` to ``target`` (see messages)."""
    return expand_fix(shape, dim, target, sizes)


def squeeze(layout: Layout, dims: Sequence[int] | None) -> Layout:
    """Drop size-1 dims: all of them, or those among ``dims`` (others are kept silently)."""
    result = squeeze_layout(layout, dims)
    if result.__class__ is Layout:  # inline, not _done(): one call less on a hot path
        return result
    raise error(result)


def squeeze_layout(layout: Layout, dims: Sequence[int] | None) -> Layout | DimOutOfRange | RepeatedDims:
    """``squeeze`` decided: the layout without the chosen size-1 dims, or why not."""
    shape, strides = layout.shape, layout.strides
    if dims is None:
        keep = [d for d in range(len(shape)) if shape[d] != 1]
    else:
        wrapped: list[int] = []
        for given in dims:  # PyTorch wraps and checks one dim at a time, in order
            d = _dim(given, len(shape))
            if d.__class__ is not int:
                return d
            if d in wrapped:
                return RepeatedDims("squeeze", tuple(dims), (*wrapped, d))
            wrapped.append(d)
        keep = [d for d in range(len(shape)) if not (d in wrapped and shape[d] == 1)]
    if len(keep) == len(shape):
        return layout
    return Layout._trusted(
        tuple(shape[d] for d in keep), tuple(strides[d] for d in keep), layout.offset
    )


def unsqueeze(layout: Layout, dim: int) -> Layout:
    """Insert a size-1 dim; its stride is ``size*stride`` of the dim it precedes (PyTorch)."""
    result = unsqueeze_layout(layout, dim)
    if result.__class__ is Layout:  # inline, not _done(): one call less on a hot path
        return result
    raise error(result)


def unsqueeze_layout(layout: Layout, dim: int) -> Layout | DimOutOfRange | TooManyDims:
    """``unsqueeze`` decided: the layout with a new size-1 dim at ``dim``, or why not."""
    shape, strides = layout.shape, layout.strides
    d = _dim(dim, len(shape) + 1)
    if d.__class__ is not int:
        return d
    if len(shape) >= MAX_DIMS:
        return TooManyDims(len(shape) + 1, f"unsqueeze({dim}) of a {len(shape)}-d tensor")
    new_stride = 1 if d >= len(shape) else shape[d] * strides[d]
    if not -INT64_MAX <= new_stride <= INT64_MAX:
        new_stride = fit_int64(new_stride)  # the new dim has size 1: its stride is never used
    return Layout._trusted(
        shape[:d] + (1,) + shape[d:], strides[:d] + (new_stride,) + strides[d:], layout.offset
    )


def select(layout: Layout, dim: int, index: int) -> Layout:
    """Pick one index along ``dim`` and drop the dim."""
    result = select_layout(layout, dim, index)
    if result.__class__ is Layout:  # inline, not _done(): one call less on a hot path
        return result
    raise error(result)


def select_layout(
    layout: Layout, dim: int, index: int
) -> Layout | ZeroDimRefusal | DimOutOfRange | IndexOutOfRange:
    """``select`` decided: the layout without ``dim``, its offset at ``index``, or why not."""
    shape, strides = layout.shape, layout.strides
    if not shape:
        return ZeroDimRefusal("select")
    d = _dim(dim, len(shape))
    if d.__class__ is not int:
        return d
    size = shape[d]
    if index < -size or index >= size:
        return IndexOutOfRange(shape, d, index, size)
    if index < 0:
        index += size
    return Layout._trusted(
        shape[:d] + shape[d + 1 :],
        strides[:d] + strides[d + 1 :],
        layout.offset + index * strides[d],
    )


def slice_dim(layout: Layout, dim: int, start: int | None, stop: int | None, step: int) -> Layout:
    """Slice one dim with Python's rules (negative steps allowed, as in NumPy).

    # Note: PyTorch refuses negative steps ("step must be greater than zero");
    # NumPy allows them, and so do we. Positive steps give PyTorch's layout.
    """
    result = slice_layout(layout, dim, start, stop, step)
    if result.__class__ is Layout:  # inline, not _done(): one call less on a hot path
        return result
    raise error(result)


def slice_layout(
    layout: Layout, dim: int, start: int | None, stop: int | None, step: int
) -> Layout | ZeroStep:
    """``slice_dim`` decided (``dim`` already wrapped): the sliced layout, or a zero step."""
    shape, strides = layout.shape, layout.strides
    size = shape[dim]
    if step == 0:
        return ZeroStep(dim, size)
    start_i, _stop_i, step_i = slice(start, stop, step).indices(size)
    length = len(range(start_i, _stop_i, step_i))
    stride = strides[dim]
    offset = layout.offset
    if length > 0:
        offset += start_i * stride  # the first element: an index the input reaches
    elif step_i > 0:
        offset = empty_slice_offset(layout, offset, start_i, stride)
    else:
        step_i = 1  # NumPy: an empty negative-step slice points at the start with step 1
    new_stride = stride * step_i
    if not -INT64_MAX <= new_stride <= INT64_MAX:
        new_stride = fit_int64(new_stride)  # see fit_int64: a dim no element is reached through
    new_shape = shape[:dim] + (length,) + shape[dim + 1 :]
    new_strides = strides[:dim] + (new_stride,) + strides[dim + 1 :]
    return Layout._trusted(new_shape, new_strides, offset)


def empty_slice_offset(layout: Layout, offset: int, start: int, stride: int) -> int:
    """The offset of an empty positive-step slice from ``start``: PyTorch's ``offset + start*stride``.

    PyTorch moves the offset even for an empty result (``t[10:]`` of 10 elements has
    offset 10). With a negative stride (strided's reversed views) that move goes
    backwards, possibly below the storage's start, so the offset is kept instead.
    It is kept too where the moved offset plus the reach of ``layout``'s positive
    strides could leave int64, so later index arithmetic on the view stays in int64
    (only strides clamped by :func:`fit_int64` get there). The result addresses
    nothing either way. ``offset`` may already differ from ``layout.offset`` (indexing
    moves it dim by dim, never past that reach).
    """
    moved = offset + start * stride
    if stride < 0 or moved + _positive_reach(layout) > INT64_MAX:
        # Note: PyTorch has no negative strides; NumPy would move the data pointer before
        # the buffer here, which a later resize_ would turn into reads of other elements.
        return offset
    return moved


def _positive_reach(layout: Layout) -> int:
    """How far past the offset an index of ``layout`` can reach (a size-0 dim counted as 1)."""
    return sum((max(n, 1) - 1) * s for n, s in zip(layout.shape, layout.strides) if s > 0)


def narrow(layout: Layout, dim: int, start: int, length: int) -> Layout:
    """``length`` entries of ``dim`` from ``start`` (which may be negative)."""
    result = narrow_layout(layout, dim, start, length)
    if result.__class__ is Layout:  # inline, not _done(): one call less on a hot path
        return result
    raise error(result)


def narrow_layout(
    layout: Layout, dim: int, start: int, length: int
) -> Layout | ZeroDimRefusal | NarrowRefusal | DimOutOfRange:
    """``narrow`` decided: the narrowed layout, or why not (PyTorch's order of checks)."""
    shape = layout.shape
    if not shape:
        return ZeroDimRefusal("narrow")
    if length < 0:  # PyTorch checks the length before the dim
        return NarrowRefusal("length", shape, dim, start, length)
    d = _dim(dim, len(shape))
    if d.__class__ is not int:
        return d
    size = shape[d]
    if not -size <= start <= size:
        return NarrowRefusal("start", shape, d, start, length)
    if start < 0:
        start += size
    if start > size - length:
        return NarrowRefusal("end", shape, d, start, length)
    return slice_layout(layout, d, start, start + length, 1)


def diagonal(layout: Layout, offset: int, dim1: int, dim2: int) -> Layout:
    """The diagonal of dims ``dim1``/``dim2`` as a new last dim with stride ``s1 + s2``."""
    result = diagonal_layout(layout, offset, dim1, dim2)
    if result.__class__ is Layout:  # inline, not _done(): one call less on a hot path
        return result
    raise error(result)


def diagonal_layout(
    layout: Layout, offset: int, dim1: int, dim2: int
) -> Layout | DimOutOfRange | SameDims:
    """``diagonal`` decided: the layout with the diagonal as a new last dim, or why not."""
    shape, strides = layout.shape, layout.strides
    d1 = _dim(dim1, len(shape))
    if d1.__class__ is not int:
        return d1
    d2 = _dim(dim2, len(shape))
    if d2.__class__ is not int:
        return d2
    if d1 == d2:
        return SameDims(shape, offset, dim1, dim2, d1)
    if offset >= 0:
        diag = max(min(shape[d1], shape[d2] - offset), 0)
    else:
        diag = max(min(shape[d1] + offset, shape[d2]), 0)
    storage_offset = layout.offset
    if diag > 0:
        storage_offset += offset * strides[d2] if offset >= 0 else -offset * strides[d1]
    keep = [d for d in range(len(shape)) if d != d1 and d != d2]
    diag_stride = strides[d1] + strides[d2]
    if not -INT64_MAX <= diag_stride <= INT64_MAX:
        diag_stride = fit_int64(diag_stride)  # see fit_int64: a dim no element is reached through
    return Layout._trusted(
        tuple(shape[d] for d in keep) + (diag,),
        tuple(strides[d] for d in keep) + (diag_stride,),
        storage_offset,
    )


def unfold(layout: Layout, dimension: int, size: int, step: int) -> Layout:
    """Sliding windows of ``size`` along ``dimension`` every ``step``, as a new last dim."""
    result = unfold_layout(layout, dimension, size, step)
    if result.__class__ is Layout:  # inline, not _done(): one call less on a hot path
        return result
    raise error(result)


def unfold_layout(
    layout: Layout, dimension: int, size: int, step: int
) -> Layout | DimOutOfRange | UnfoldRefusal | TooManyDims:
    """``unfold`` decided: the windows as a new last dim, or why not."""
    shape, strides = layout.shape, layout.strides
    ndim = len(shape)
    d = _dim(dimension, ndim)
    if d.__class__ is not int:
        return d
    max_size = 1 if ndim == 0 else shape[d]
    if size > max_size:
        return UnfoldRefusal("size", shape, dimension, d, size, step, max_size)
    if size < 0:
        return UnfoldRefusal("negative", shape, dimension, d, size, step, max_size)
    if step <= 0:
        return UnfoldRefusal("step", shape, dimension, d, size, step, max_size)
    if ndim >= MAX_DIMS:
        return TooManyDims(ndim + 1, f"unfold({dimension}, {size}, {step}) of a {ndim}-d tensor")
    new_shape = list(shape) + [size]
    new_strides = list(strides) + [1 if ndim == 0 else strides[d]]
    if ndim > 0:
        count = (shape[d] - size) // step + 1
        new_shape[d] = count
        new_strides[d] = step * strides[d]
        if not -INT64_MAX <= new_strides[d] <= INT64_MAX:
            new_strides[d] = fit_int64(new_strides[d])  # see fit_int64
        if size == 0 and count > 1 and (
            strides[d] < 0 or layout.offset + _positive_reach(layout) + strides[d] > INT64_MAX
        ):
            # Note: empty windows (size 0) start up to shape[d], one step past the dim; walking
            # backwards that is before the storage's start (or, near int64's end, past it), so
            # they all start at the first (stride 0). They address nothing; PyTorch has no
            # negative strides to compare.
            new_strides[d] = 0
    return Layout._trusted(tuple(new_shape), tuple(new_strides), layout.offset)
