"""Movement ops as ``Layout -> Layout`` functions: permute, transpose, expand, select, ...

Each costs O(ndim) and touches no data; errors read like PyTorch's and explain
the layout reason in its own numbers.

Each op keeps the invariants of :func:`~.core.check_layout` by construction, so its
result is built with ``Layout._trusted`` and never re-validated: an offset only moves
to a position some index of the input reaches (or, for an empty result, forward);
a new stride that could leave int64 belongs to a dim with at most one index and is
clamped (:func:`~.core.fit_int64`); ops that add dims or elements check
``MAX_DIMS`` and the numel.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..errors import (
    StridedIndexError,
    StridedRuntimeError,
    StridedTypeError,
    StridedValueError,
    join_lines,
)
from .core import (
    INT64_MAX,
    MAX_DIMS,
    Layout,
    Shape,
    _is_index_scalar,
    fit_int64,
    numel_overflow,
    too_many_dims,
    wrap_dim,
    wrap_dims,
)

_RANGES = tuple(list(range(n)) for n in range(33))


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
    shape, strides = layout.shape, layout.strides
    ndim = len(shape)
    if not all(isinstance(d, int) and not isinstance(d, bool) or _is_index_scalar(d) for d in dims):
        bad = next(d for d in dims if not (isinstance(d, int) and not isinstance(d, bool) or _is_index_scalar(d)))
        raise StridedTypeError(
            join_lines(
                f"permute(): argument 'dims' must be tuple of ints, but found element of type "
                f"{type(bad).__name__}",
                f"got dims {tuple(dims)!r:.80}; give one int per dim, a reordering of {tuple(range(ndim))}",
            )
        )
    elif len(dims) != ndim:
        raise StridedRuntimeError(
            join_lines(
                "permute(sparse_coo): number of dimensions in the tensor input does not match "
                "the length of the desired ordering of dimensions i.e. "
                f"input.dim() = {ndim} is not equal to len(dims) = {len(dims)}",
                f"the tensor has shape {shape}; pass one entry per dim, "
                f"a reordering of {tuple(range(ndim))}",
            )
        )
    else:
        dims = wrap_dims(dims, ndim, "permute")
    return Layout._trusted(
        tuple([shape[d] for d in dims]), tuple([strides[d] for d in dims]), layout.offset
    )


def transpose(layout: Layout, dim0: int, dim1: int) -> Layout:
    """Swap two dims."""
    ndim = len(layout.shape)
    d0 = wrap_dim(dim0, ndim)
    d1 = wrap_dim(dim1, ndim)
    if d0 == d1 or ndim == 0:
        return layout
    shape = list(layout.shape)
    strides = list(layout.strides)
    shape[d0], shape[d1] = shape[d1], shape[d0]
    strides[d0], strides[d1] = strides[d1], strides[d0]
    return Layout._trusted(tuple(shape), tuple(strides), layout.offset)


def movedim(layout: Layout, source: Sequence[int], destination: Sequence[int]) -> Layout:
    """Move dims ``source`` to positions ``destination``; the others keep their order."""
    ndim = len(layout.shape)
    for name, dims in (("source", source), ("destination", destination)):
        for d in dims:
            if not (isinstance(d, int) and not isinstance(d, bool) or _is_index_scalar(d)):
                raise StridedTypeError(
                    f"movedim(): argument '{name}' must be int or tuple of ints, but found element "
                    f"of type {type(d).__name__}\n  got {name}={list(dims)!r:.80}"
                )
    if len(source) != len(destination):
        raise StridedRuntimeError(
            join_lines(
                f"movedim: Invalid source or destination dims: source ({list(source)} dims) should "
                f"contain the same number of dims as destination ({list(destination)} dims)",
                f"source names {len(source)} dim(s) and destination {len(destination)}; "
                "pair each moved dim with one new position, e.g. "
                f"movedim({tuple(source)[:1] or (0,)}, {tuple(destination)[:1] or (0,)}) "
                "moves one dim",
            )
        )
    src = tuple(wrap_dim(d, ndim) for d in source)
    dst = tuple(wrap_dim(d, ndim) for d in destination)
    for name, given, wrapped in (("source", source, src), ("destination", destination, dst)):
        if len(set(wrapped)) != len(wrapped):
            raise StridedRuntimeError(
                f"movedim: repeated dim in `{name}` ({list(given)})\n  after wrapping negative "
                f"dims the {name} dims are {list(wrapped)}; each dim may appear once"
            )
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
    shape, strides = layout.shape, layout.strides
    ndim = len(sizes)
    tdim = len(shape)
    if ndim < tdim:
        raise StridedRuntimeError(
            join_lines(
                f"expand(Tensor{{{list(shape)}}}, size={list(sizes)}): the number of "
                f"sizes provided ({ndim}) must be greater or equal to the number of dimensions "
                f"in the tensor ({tdim})",
                "expand can add leading dims but never drop one; "
                "use .squeeze() or .reshape(...) to drop dims first",
            )
        )
    if ndim > MAX_DIMS:
        raise too_many_dims(ndim, f"expand(size={list(sizes)[:8]}...)")
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
                raise StridedRuntimeError(
                    join_lines(
                        f"The expanded size of the tensor (-1) isn't allowed in a leading, "
                        f"non-existing dimension {i}",
                        f"the tensor has {tdim} dim(s), shape {shape}, so target dims 0..{ndim - tdim - 1} "
                        f"of {list(sizes)} are new and have no size to keep; give target dim {i} "
                        "an explicit size",
                    )
                )
            target = size
        if size != target:
            if size != 1:
                raise StridedRuntimeError(
                    join_lines(
                        f"The expanded size of the tensor ({target}) must match the existing size "
                        f"({size}) at non-singleton dimension {i}.  Target sizes: {list(sizes)}.  "
                        f"Tensor sizes: {list(shape)}",
                        f"only size-1 dims can be expanded (they get stride 0); tensor dim {dim} "
                        f"(target dim {i}) has size {size}, not 1",
                        _expand_fix(shape, dim, target, sizes),
                    )
                )
            if target < 0:
                raise StridedRuntimeError(
                    join_lines(
                        f"Trying to create tensor with negative dimension {target}: {list(sizes)}",
                        f"target dim {i} asks for size {target}; sizes are 0 or more, and -1 "
                        "keeps the tensor's own size",
                    )
                )
            size = target
            stride = 0
        out_shape[i] = size
        out_strides[i] = stride
    if tdim == 0:
        out_strides = [0] * ndim
    if math.prod(out_shape) > INT64_MAX:  # the message is built only on failure (a hot path)
        raise numel_overflow(out_shape, f"expand(Tensor{{{list(shape)}}}, size={list(sizes)})")
    return Layout._trusted(tuple(out_shape), tuple(out_strides), layout.offset)


def _expand_fix(shape: Shape, dim: int, target: int, sizes: Sequence[int]) -> str:
    """A fix for expanding tensor dim ``dim`` of size ``shape[dim]`` to ``target``."""
    size = shape[dim]
    if size > 0 and target > 0 and target % size == 0:
        reps = target // size
        tiled = list(shape[:dim]) + [reps] + list(shape[dim:])
        final = list(shape[:dim]) + [target] + list(shape[dim + 1 :])
        then = "" if final == list(sizes) else f", then .expand({', '.join(map(str, sizes))})"
        return (
            f"fix: to repeat the {size} entries {reps} times, add a size-1 dim and expand it: "
            f".unsqueeze({dim}).expand({', '.join(map(str, tiled))}).reshape({', '.join(map(str, final))}) "
            f"(reshape copies){then}; or expand to size {size} at that dim"
        )
    return (
        f"fix: keep size {size} (or -1) at that target dim, or .unsqueeze({dim}) to add a new "
        "size-1 dim that can be expanded"
    )


def squeeze(layout: Layout, dims: Sequence[int] | None) -> Layout:
    """Drop size-1 dims: all of them, or those among ``dims`` (others are kept silently)."""
    shape, strides = layout.shape, layout.strides
    if dims is None:
        keep = [d for d in range(len(shape)) if shape[d] != 1]
    else:
        wrapped: set[int] = set()
        for given in dims:  # PyTorch wraps and checks one dim at a time, in order
            d = wrap_dim(given, len(shape))
            if d in wrapped:
                raise StridedRuntimeError(
                    f"dim {d} appears multiple times in the list of dims\n  squeeze dims "
                    f"{list(dims)} name dim {d} more than once"
                )
            wrapped.add(d)
        keep = [d for d in range(len(shape)) if not (d in wrapped and shape[d] == 1)]
    if len(keep) == len(shape):
        return layout
    return Layout._trusted(
        tuple(shape[d] for d in keep), tuple(strides[d] for d in keep), layout.offset
    )


def unsqueeze(layout: Layout, dim: int) -> Layout:
    """Insert a size-1 dim; its stride is ``size*stride`` of the dim it precedes (PyTorch)."""
    shape, strides = layout.shape, layout.strides
    d = wrap_dim(dim, len(shape) + 1)
    if len(shape) >= MAX_DIMS:
        raise too_many_dims(len(shape) + 1, f"unsqueeze({dim}) of a {len(shape)}-d tensor")
    new_stride = 1 if d >= len(shape) else shape[d] * strides[d]
    if not -INT64_MAX <= new_stride <= INT64_MAX:
        new_stride = fit_int64(new_stride)  # the new dim has size 1: its stride is never used
    return Layout._trusted(
        shape[:d] + (1,) + shape[d:], strides[:d] + (new_stride,) + strides[d:], layout.offset
    )


def select(layout: Layout, dim: int, index: int) -> Layout:
    """Pick one index along ``dim`` and drop the dim."""
    shape, strides = layout.shape, layout.strides
    if not shape:
        raise StridedIndexError(
            join_lines(
                "select() cannot be applied to a 0-dim tensor.",
                "the tensor is 0-d (shape ()): it has no dim to select from; "
                "use .item() for its value, or .unsqueeze(0).select(0, 0) for a 1-element view",
            )
        )
    d = wrap_dim(dim, len(shape))
    size = shape[d]
    if index < -size or index >= size:
        raise StridedIndexError(
            join_lines(
                f"select(): index {index} out of range for tensor of size {list(shape)} "
                f"at dimension {d}",
                f"dim {d} has size {size}: valid indices are {-size}..{size - 1}"
                if size
                else f"dim {d} has size 0: there is nothing to select",
            )
        )
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
    shape, strides = layout.shape, layout.strides
    size = shape[dim]
    if step == 0:
        raise StridedValueError(
            join_lines(
                "slice step cannot be zero",
                f"dim {dim} has size {size}; use a step of 1 or more, or a negative step "
                "to walk it backwards (as in NumPy)",
            )
        )
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
    shape = layout.shape
    if not shape:
        raise StridedRuntimeError(
            join_lines(
                "narrow() cannot be applied to a 0-dim tensor.",
                "the tensor is 0-d (shape ()): it has no dim to narrow; "
                ".unsqueeze(0) gives a 1-d view of its one element",
            )
        )
    if length < 0:  # PyTorch checks the length before the dim
        raise StridedRuntimeError(
            join_lines(
                "narrow(): length must be non-negative.",
                f"got length {length} for dim {dim} of shape {shape}; a length counts "
                "entries forward from start (0 gives an empty view); to take entries before "
                "start, move start back by the length",
            )
        )
    d = wrap_dim(dim, len(shape))
    size = shape[d]
    if not -size <= start <= size:
        raise StridedIndexError(
            join_lines(
                f"start out of range (expected to be in range of [{-size}, {size}], but got {start})",
                f"dim {d} of shape {shape} has size {size}: start must be in {-size}..{size} "
                "(negative counts from the end; start == size gives an empty view)",
            )
        )
    if start < 0:
        start += size
    if start > size - length:
        raise StridedRuntimeError(
            join_lines(
                f"start ({start}) + length ({length}) exceeds dimension size ({size}).",
                f"dim {d} of shape {shape} has {size} entries; the largest length from "
                f"start {start} is {size - start}",
            )
        )
    return slice_dim(layout, d, start, start + length, 1)


def diagonal(layout: Layout, offset: int, dim1: int, dim2: int) -> Layout:
    """The diagonal of dims ``dim1``/``dim2`` as a new last dim with stride ``s1 + s2``."""
    shape, strides = layout.shape, layout.strides
    d1 = wrap_dim(dim1, len(shape))
    d2 = wrap_dim(dim2, len(shape))
    if d1 == d2:
        raise StridedRuntimeError(
            join_lines(
                f"diagonal dimensions cannot be identical {dim1}, {dim2}",
                f"dim1={dim1} and dim2={dim2} both name dim {d1} of shape {shape}; a diagonal "
                "needs two different dims"
                + (
                    f", e.g. diagonal({offset}, {d1}, {(d1 + 1) % len(shape)})"
                    if len(shape) >= 2
                    else f"; a {len(shape)}-d tensor has none (unsqueeze one or use a 2-d tensor)"
                ),
            )
        )
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
    shape, strides = layout.shape, layout.strides
    ndim = len(shape)
    d = wrap_dim(dimension, ndim)
    max_size = 1 if ndim == 0 else shape[d]
    if size > max_size:
        raise StridedRuntimeError(
            join_lines(
                f"maximum size for tensor at dimension {d} is {max_size} but size is {size}",
                f"a window of {size} does not fit in dim {d} of shape {shape}, which has "
                f"{max_size} entries; use unfold({dimension}, {max_size}, step) or smaller",
            )
        )
    if size < 0:
        raise StridedRuntimeError(
            join_lines(
                f"size is {size} but must be >= 0",
                f"size is the window length along dim {d} of shape {shape}: "
                f"0..{max_size} entries",
            )
        )
    if step <= 0:
        raise StridedRuntimeError(
            join_lines(
                f"step is {step} but must be > 0",
                f"step is how far each window starts after the previous one along dim {d}; "
                f"step={max(size, 1)} gives windows that do not overlap, step=1 every window",
            )
        )
    if ndim >= MAX_DIMS:
        raise too_many_dims(ndim + 1, f"unfold({dimension}, {size}, {step}) of a {ndim}-d tensor")
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
