"""Basic indexing as a layout function: ints, slices, None and Ellipsis.

``index_layout(layout, key)`` returns the view's layout; it never touches data.
Anything that would need a copy (lists, arrays, tensors, booleans: "advanced
indexing") is refused with a TypeError that says so.
"""

from __future__ import annotations

from .errors import StridedIndexError, StridedTypeError, join_lines
from .layout import Layout, select, slice_dim


def _normalise_key(key: object) -> tuple[object, ...]:
    if isinstance(key, tuple):
        return key
    return (key,)


def _is_int(item: object) -> bool:
    return not isinstance(item, bool) and hasattr(item, "__index__") and not hasattr(item, "shape")


def index_layout(layout: Layout, key: object) -> Layout:
    """The layout of ``t[key]`` for basic indices, with PyTorch's errors and NumPy's negative steps."""
    items = _normalise_key(key)
    n_ellipsis = sum(1 for it in items if it is Ellipsis)
    if n_ellipsis > 1:
        raise StridedIndexError("an index can only have a single ellipsis ('...')")
    consumed = 0
    for it in items:
        if it is None or it is Ellipsis:
            continue
        if isinstance(it, slice) or _is_int(it):
            consumed += 1
        else:
            raise StridedTypeError(
                join_lines(
                    f"unsupported index of type {type(it).__name__}: {it!r}",
                    "strided supports basic indexing only (ints, slices, None, ...), "
                    "which always gives a view; indexing with lists, arrays, tensors or "
                    "booleans copies data and is not supported",
                    "fix: use slices and select(), or index the NumPy array from t.numpy()",
                )
            )
    ndim = len(layout.shape)
    if consumed > ndim:
        if ndim == 0 and any(_is_int(it) for it in items):
            raise StridedIndexError(
                "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number"
            )
        raise StridedIndexError(
            join_lines(
                f"too many indices for tensor of dimension {ndim}",
                f"the index {items!r} uses {consumed} dims; the tensor has shape {layout.shape}",
            )
        )
    dim = 0
    result = layout
    for it in items:
        if it is Ellipsis:
            dim += ndim - consumed
        elif it is None:
            result = _insert_unit_dim(result, dim)
            dim += 1
        elif isinstance(it, slice):
            step = 1 if it.step is None else _index_value(it.step)
            start = None if it.start is None else _index_value(it.start)
            stop = None if it.stop is None else _index_value(it.stop)
            result = slice_dim(result, dim, start, stop, step)
            dim += 1
        else:
            index = it.__index__()  # type: ignore[attr-defined]
            size = result.shape[dim]
            if index < -size or index >= size:
                raise StridedIndexError(
                    join_lines(
                        f"index {index} is out of bounds for dimension {dim} with size {size}",
                        f"valid indices for that dim are {-size}..{size - 1}"
                        if size
                        else "that dim is empty: no index is valid",
                    )
                )
            result = select(result, dim, index)
    return result


def _index_value(v: object) -> int:
    if _is_int(v):
        return v.__index__()  # type: ignore[attr-defined]
    raise StridedTypeError(
        f"slice indices must be integers or None, but got {type(v).__name__} {v!r}"
    )


def _insert_unit_dim(layout: Layout, dim: int) -> Layout:
    """A size-1 dim at ``dim``; PyTorch's ``unsqueeze`` stride rule."""
    shape, strides = layout.shape, layout.strides
    stride = 1 if dim >= len(shape) else shape[dim] * strides[dim]
    return Layout._trusted(
        shape[:dim] + (1,) + shape[dim:], strides[:dim] + (stride,) + strides[dim:], layout.offset
    )
