"""Reshape as a view: PyTorch's ``computeStride`` and NumPy's ``_attempt_nocopy_reshape``.

The peers agree on *whether* a reshape can be a view and differ on the strides
of size-1 dims, so both rules are kept, named, side by side. A refused view is a
:class:`ReshapeRefusal`: the dims that cannot merge and the stride equation that
failed, which feeds the error message, ``describe`` and the tests.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

from ..messages import error
from ..refusals import (
    AmbiguousInferred,
    InvalidSize,
    MultipleInferred,
    NumelMismatch,
    ReshapeRefusal,
    Shape,
    TooManyDims,
)
from .core import MAX_DIMS, contiguous_strides, infer_shape, product

ShapeRefusal = MultipleInferred | InvalidSize | AmbiguousInferred | NumelMismatch


# Pure functions of small tuples, called on every view/reshape: memoized so a
# repeated reshape costs one dict lookup (results are immutable values).
@functools.lru_cache(maxsize=4096)
def torch_view_strides(
    old_shape: Shape, old_strides: Shape, new_shape: Shape
) -> Shape | ReshapeRefusal:
    """PyTorch's ``computeStride``: strides that view ``old`` as ``new_shape``, or a refusal.

    ``new_shape`` must already hold the same number of elements. The old dims
    are cut into chunks that are each one evenly strided run; every new dim
    must fall inside one chunk.
    """
    if not old_shape:
        return (1,) * len(new_shape)
    numel = product(old_shape)
    if numel == 0:
        if old_shape == new_shape:
            return old_strides
        return contiguous_strides(new_shape)
    new_strides = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    chunk_base_stride = old_strides[-1]
    tensor_numel = 1
    view_numel = 1
    for tensor_d in range(len(old_shape) - 1, -1, -1):
        tensor_numel *= old_shape[tensor_d]
        if tensor_d == 0 or (
            old_shape[tensor_d - 1] != 1
            and old_strides[tensor_d - 1] != tensor_numel * chunk_base_stride
        ):
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                new_strides[view_d] = view_numel * chunk_base_stride
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                # with equal numels only a chunk boundary (tensor_d > 0) can be overshot
                return ReshapeRefusal(
                    old_shape,
                    old_strides,
                    new_shape,
                    outer=tensor_d - 1,
                    inner=tensor_d,
                    new_dim=view_d + 1,
                    needed_stride=tensor_numel * chunk_base_stride,
                )
            if tensor_d > 0:
                chunk_base_stride = old_strides[tensor_d - 1]
                tensor_numel = 1
                view_numel = 1
    return tuple(new_strides)


@functools.lru_cache(maxsize=4096)
def resolve_view(
    old_shape: Shape, old_strides: Shape, requested: Shape
) -> tuple[Shape, Shape | ReshapeRefusal] | TooManyDims | ShapeRefusal:
    """``requested`` (which may hold one -1) resolved, and the strides to view it (or a refusal);
    or why ``requested`` is no shape for these elements. Memoized (results are immutable values).
    """
    if len(requested) > MAX_DIMS:
        return TooManyDims(len(requested), f"view/reshape to {len(requested)} sizes")
    new_shape = infer_shape(requested, math.prod(old_shape))
    if new_shape.__class__ is not tuple:
        return new_shape  # type: ignore[return-value]
    return new_shape, torch_view_strides(old_shape, old_strides, new_shape)  # type: ignore[arg-type]


@functools.lru_cache(maxsize=4096)
def plan_view(
    old_shape: Shape, old_strides: Shape, requested: Shape
) -> tuple[Shape, Shape | ReshapeRefusal]:
    """:func:`resolve_view`, raising the shape's refusal (PyTorch's errors of :func:`infer_size`,
    more than ``MAX_DIMS`` dims). Memoized too: view and reshape call it every time, and a hit
    costs one dict lookup.
    """
    result = resolve_view(old_shape, old_strides, requested)
    if result.__class__ is tuple:
        return result  # type: ignore[return-value]
    raise error(result)


def numpy_view_strides(
    old_shape: Shape, old_strides: Shape, new_shape: Shape, fortran: bool = False
) -> Shape | None:
    """NumPy's ``_attempt_nocopy_reshape`` in elements: new strides, or None if a copy is needed.

    Size-1 dims of the old layout are dropped first; trailing size-1 dims of the
    new shape get NumPy's "last stride" (which differs from PyTorch's choice).
    """
    olddims = [s for s in old_shape if s != 1]
    oldstrides = [st for s, st in zip(old_shape, old_strides) if s != 1]
    oldnd = len(olddims)
    newnd = len(new_shape)
    newstrides = [0] * newnd
    oi, oj, ni, nj = 0, 1, 0, 1
    while ni < newnd and oi < oldnd:
        np_ = new_shape[ni]
        op = olddims[oi]
        while np_ != op:
            if np_ < op:
                np_ *= new_shape[nj]
                nj += 1
            else:
                op *= olddims[oj]
                oj += 1
        for ok in range(oi, oj - 1):
            if fortran:
                if oldstrides[ok + 1] != olddims[ok] * oldstrides[ok]:
                    return None
            elif oldstrides[ok] != olddims[ok + 1] * oldstrides[ok + 1]:
                return None
        if fortran:
            newstrides[ni] = oldstrides[oi]
            for nk in range(ni + 1, nj):
                newstrides[nk] = newstrides[nk - 1] * new_shape[nk - 1]
        else:
            newstrides[nj - 1] = oldstrides[oj - 1]
            for nk in range(nj - 1, ni, -1):
                newstrides[nk - 1] = newstrides[nk] * new_shape[nk]
        ni = nj
        nj += 1
        oi = oj
        oj += 1
    last_stride = newstrides[ni - 1] if ni >= 1 else 1
    if fortran and ni >= 1:
        last_stride *= new_shape[ni - 1]
    for nk in range(ni, newnd):
        newstrides[nk] = last_stride
    return tuple(newstrides)


def numpy_keep_order(shape: Sequence[int], strides: Sequence[int]) -> Shape:
    """The dims, outermost first, in the order NumPy's ``order='K'`` iterator walks them.

    NumPy's ``npyiter_find_best_axis_ordering`` for one operand: a stable insertion
    sort from the innermost dim by absolute stride, where a stride-0 dim is
    ambiguous (it neither moves nor stops another dim moving past it), and equal
    strides keep C order. Directions are not flipped (``flatten('K')`` reads a
    negative-stride dim in index order).
    """
    ndim = len(shape)
    # NumPy's iterator zeroes the stride of a size-1 dim, which makes it ambiguous too
    strides = [0 if n == 1 else st for n, st in zip(shape, strides)]
    perm = list(range(ndim - 1, -1, -1))  # innermost first
    for i0 in range(1, ndim):
        j0 = perm[i0]
        s0 = abs(strides[j0])
        pos = i0
        for i1 in range(i0 - 1, -1, -1):
            s1 = abs(strides[perm[i1]])
            if s0 == 0 or s1 == 0:
                continue  # ambiguous: keep looking
            if s1 <= s0:
                break
            pos = i1
        if pos != i0:
            perm[pos + 1 : i0 + 1] = perm[pos:i0]
            perm[pos] = j0
    return tuple(reversed(perm))
