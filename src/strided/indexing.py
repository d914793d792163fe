"""Basic indexing as a layout function: ints, slices, None and Ellipsis.

``index_layout(layout, key)`` returns the view's layout; it never touches data.
Anything that needs a copy (lists, arrays, tensors, booleans: "advanced indexing")
raises :class:`AdvancedIndex`, on which ``Tensor.__getitem__`` hands the key to
:mod:`strided.ops.indexing.advanced`.
"""

from __future__ import annotations

from .args import is_index_int
from .errors import StridedIndexError, StridedOverflowError, StridedTypeError, StridedValueError, join_lines
from .layout import INT64_MAX, MAX_DIMS, Layout, fit_int64, too_many_dims
from .layout.movement import empty_slice_offset


class AdvancedIndex(StridedTypeError):
    """``index_layout`` met an item that is no basic index (an index tensor, a list, a NumPy array,
    a bool): ``t[key]`` is advanced indexing, a copy, which :mod:`strided.ops.indexing.advanced`
    carries out. Raised only on that path, so basic indexing pays nothing for it; a TypeError
    for a caller that asks ``index_layout`` alone (it gives views only)."""


def invalid_index(item: object) -> StridedIndexError:
    """PyTorch's IndexError for an index that is no integer, slice, None, Ellipsis, sequence or tensor
    (a float, a dict, ...)."""
    # a float index is a mistake, not an unsupported feature: PyTorch and NumPy raise IndexError
    return StridedIndexError(
        join_lines(
            "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
            f"valid indices (got {type(item).__name__})",
            f"the index {item!r:.60} is not an integer; use int(...) or a slice",
        )
    )


def _not_basic(item: object) -> Exception:
    """The signal (or error) for an item of ``t[...]`` that is no basic index."""
    kind = type(item)
    if isinstance(item, (float, complex)) or (
        kind.__module__ == "numpy" and kind.__name__.startswith(("float", "complex"))
    ):
        return invalid_index(item)
    # (no repr of the item: this is the advanced path's signal, raised on every advanced t[key])
    return AdvancedIndex(
        f"an index of type {kind.__name__} is an advanced index: t[key] copies (a view takes ints, "
        "slices, None and ... only)"
    )


def one_ellipsis(items: tuple, ndim: int) -> tuple:
    """A key with several ``...`` as PyTorch 2.13 reads it (``applySlicing``: every ``...``
    moves its dim cursor past ``ndim - specified`` dims, ``specified`` the dims the other
    indices use): each ``...`` written as that many ``:`` (none when the other indices use more
    dims than there are: then the usual "too many indices" IndexError), the trailing ones
    dropped (a cursor moved past the last dim indexes nothing). ``t[..., 0, ...]`` on a 3-d
    ``t`` is ``t[:, :, 0]``; ``t[True, ..., ...]`` is ``t[True]``.

    >>> one_ellipsis((Ellipsis, 0, Ellipsis), 3)
    (slice(None, None, None), slice(None, None, None), 0)
    """
    skip = max(ndim - sum(_dims_specified(it) for it in items), 0)
    out: list[object] = []
    for it in items:
        if it is Ellipsis:
            out.extend([_SKIPPED] * skip)
        else:
            out.append(it)
    while out and out[-1] is _SKIPPED:
        out.pop()
    return tuple(slice(None) if it is _SKIPPED else it for it in out)


_SKIPPED = slice(None)  # (the ``:`` one_ellipsis writes for a ``...``, told apart from a key's own by identity)


def _dims_specified(item: object) -> int:
    """The dims PyTorch's ``count_specified_dimensions`` gives an index: a bool or uint8 tensor
    its dims, None, ``...`` and a Python bool none, anything else one."""
    if item is None or item is Ellipsis or item.__class__ is bool:
        return 0
    dtype = getattr(item, "_dtype", None)
    if dtype is not None and dtype.name in ("bool", "uint8"):
        return len(item._layout.shape)  # type: ignore[attr-defined]
    return 1


def index_layout(layout: Layout, key: object) -> Layout:
    """The layout of ``t[key]`` for basic indices, with PyTorch's errors and NumPy's negative steps.

    One pass over the key builds the new shape, strides and offset directly
    (this is a hot path: ``t[1:3]`` should cost about what PyTorch's does). The result
    keeps the Layout invariants by construction, as :mod:`strided.layout.movement`'s ops do.
    """
    kind = type(key)
    if (kind is int or kind is slice) and layout.shape:
        # (the commonest keys, t[i] and t[a:b] with int or no bounds and no step, on dim 0: the
        # loop's result for them, built directly; anything else, an empty slice or an index out
        # of range included, takes the loop and its errors)
        shape, strides = layout.shape, layout.strides
        size = shape[0]
        if kind is int:
            if -size <= key < size:  # type: ignore[operator]
                return Layout._trusted(shape[1:], strides[1:],
                                       layout.offset + (key + size if key < 0 else key) * strides[0])  # type: ignore[operator]
        elif key.step is None and (key.start is None or key.start.__class__ is int) and (  # type: ignore[union-attr]
                key.stop is None or key.stop.__class__ is int):  # type: ignore[union-attr]
            start, stop, _ = key.indices(size)  # type: ignore[union-attr]
            if stop > start:
                return Layout._trusted((stop - start, *shape[1:]), strides, layout.offset + start * strides[0])
    items = key if kind is tuple else (key,)
    shape, strides = layout.shape, layout.strides
    ndim = len(shape)
    consumed = 0
    has_ellipsis = False
    for it in items:
        kind = type(it)
        if kind is slice or kind is int:
            consumed += 1
        elif it is None:
            pass
        elif it is Ellipsis:
            if has_ellipsis:  # (PyTorch 2.13 takes several: each is read as below)
                return index_layout(layout, one_ellipsis(items, ndim))
            has_ellipsis = True
        elif is_index_int(it):
            consumed += 1
        else:
            raise _not_basic(it)
    if consumed > ndim:
        if ndim == 0 and any(is_index_int(it) for it in items):
            raise StridedIndexError(
                join_lines(
                    "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                    "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number",
                    f"the tensor is 0-d (shape ()), so it has no dim for the integer in {items!r}; "
                    "t[()] or t[...] is the 0-d view itself, t[None] a 1-element view",
                )
            )
        raise StridedIndexError(
            join_lines(
                f"too many indices for tensor of dimension {ndim}",
                f"the index {items!r} uses {consumed} dims; the tensor has shape {shape}",
            )
        )
    new_shape: list[int] = []
    new_strides: list[int] = []
    offset = layout.offset
    dim = 0
    for it in items:
        if type(it) is slice:
            size = shape[dim]
            stride = strides[dim]
            try:
                start, stop, step = it.indices(size)
            except ValueError:
                raise StridedValueError(
                    join_lines(
                        "slice step cannot be zero",
                        f"{it!r} indexes dim {dim} (size {size}); use a step of 1 or more, or a "
                        "negative step to walk it backwards (as in NumPy)",
                    )
                ) from None
            except TypeError:
                raise StridedTypeError(
                    join_lines(
                        "slice indices must be integers or None or have an __index__ method",
                        f"got {it!r} for dim {dim} (size {size}); a float bound has no element "
                        "position: convert it with int(...) first",
                    )
                ) from None
            if step > 0:
                length = (stop - start + step - 1) // step if stop > start else 0
                if length:
                    offset += start * stride
                else:  # PyTorch moves the offset even for an empty slice, but never below 0
                    offset = empty_slice_offset(layout, offset, start, stride)
            else:
                length = (start - stop - step - 1) // -step if start > stop else 0
                if length:
                    offset += start * stride
                else:
                    step = 1  # NumPy: an empty negative-step slice keeps offset and stride
            stride *= step
            if not -INT64_MAX <= stride <= INT64_MAX:
                stride = fit_int64(stride)  # a huge step: at most one index (see fit_int64)
            new_shape.append(length)
            new_strides.append(stride)
            dim += 1
        elif it is None:
            # PyTorch's unsqueeze rule: the stride spans the dim that follows (size 1: clamped)
            new_shape.append(1)
            new_strides.append(fit_int64(shape[dim] * strides[dim]) if dim < ndim else 1)
        elif it is Ellipsis:
            skip = ndim - consumed
            new_shape.extend(shape[dim : dim + skip])
            new_strides.extend(strides[dim : dim + skip])
            dim += skip
        else:
            index = it if type(it) is int else it.__index__()  # type: ignore[union-attr]
            size = shape[dim]
            if index < -size or index >= size:
                if not -(2**63) <= index < 2**63:
                    raise StridedOverflowError(
                        f"Overflow when unpacking long long\n  the index {index} does not fit in int64; "
                        f"dim {dim} has size {size}"
                    )
                raise StridedIndexError(
                    join_lines(
                        f"index {index} is out of bounds for dimension {dim} with size {size}",
                        f"valid indices for that dim are {-size}..{size - 1}"
                        if size
                        else "that dim is empty: no index is valid",
                    )
                )
            offset += (index + size if index < 0 else index) * strides[dim]
            dim += 1
    if dim < ndim:
        new_shape.extend(shape[dim:])
        new_strides.extend(strides[dim:])
    if len(new_shape) > MAX_DIMS:
        raise too_many_dims(len(new_shape), f"indexing a {ndim}-d tensor with {len(items)} None/indices")
    return Layout._trusted(tuple(new_shape), tuple(new_strides), offset)
