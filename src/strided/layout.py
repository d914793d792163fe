"""The layout algebra: pure functions over (shape, strides, offset).

No NumPy and no data live here. Element ``(i0, i1, ...)`` of a layout sits at
``offset + i0*strides[0] + i1*strides[1] + ...`` in its storage, all counted in
elements. Every movement op is a function ``Layout -> Layout``; a reshape that
the strides cannot express returns a :class:`ReshapeRefusal` instead, which
explains why in the layout's own numbers.

Two reshape rules are kept side by side because the peers differ on size-1
dims: :func:`torch_view_strides` (PyTorch's ``computeStride``) and
:func:`numpy_view_strides` (NumPy's ``_attempt_nocopy_reshape``). They agree on
*whether* a view is possible.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from .errors import (
    StridedIndexError,
    StridedOverflowError,
    StridedRuntimeError,
    StridedTypeError,
    StridedValueError,
    join_lines,
)

Shape = tuple[int, ...]


class Layout:
    """An immutable (shape, strides, offset) triple, counted in elements.

    ``Layout(shape, strides, offset)`` is the one canonical constructor: it
    checks and normalises its arguments to tuples of ints. Movement ops inside
    this module build results with :meth:`_trusted`, which skips the checks
    because its inputs are already canonical (views are a hot path).
    """

    __slots__ = ("shape", "strides", "offset")

    shape: Shape
    strides: Shape
    offset: int

    def __init__(self, shape: Sequence[int], strides: Sequence[int], offset: int = 0) -> None:
        for what, seq in (("size", shape), ("stride", strides)):
            if not isinstance(seq, (tuple, list)):
                raise StridedTypeError(
                    f"argument '{what}' must be tuple of ints, not {type(seq).__name__}\n"
                    f"  got {seq!r:.60}; give one int per dim, e.g. (2, 3)"
                )
        shape = tuple(_as_int(s, "shape") for s in shape)
        strides = tuple(_as_int(s, "strides") for s in strides)
        if len(shape) != len(strides):
            raise StridedRuntimeError(
                join_lines(
                    f"mismatch in length of strides and shape: shape {shape} has "
                    f"{len(shape)} dims, strides {strides} has {len(strides)}",
                    "give one stride per size, e.g. as_strided(size, stride) with "
                    "len(size) == len(stride)",
                )
            )
        for s in shape:
            if s < 0:
                raise StridedRuntimeError(
                    join_lines(
                        f"Trying to create tensor with negative dimension {s}: {list(shape)}",
                        f"size[{shape.index(s)}] is {s}; every size must be 0 or more",
                    )
                )
        offset = _as_int(offset, "storage offset")
        if offset < 0:
            raise StridedRuntimeError(
                join_lines(
                    f"Tensor: invalid storage offset {offset}",
                    "the storage offset counts elements from the start of the storage and must "
                    "be 0 or more; pass storage_offset >= 0 (as_strided's default is the "
                    "tensor's own storage_offset())",
                )
            )
        self.shape = shape
        self.strides = strides
        self.offset = offset

    @classmethod
    def _trusted(cls, shape: Shape, strides: Shape, offset: int) -> Layout:
        """Build a layout from values already known to be canonical."""
        lay = object.__new__(cls)
        lay.shape = shape
        lay.strides = strides
        lay.offset = offset
        return lay

    @classmethod
    def contiguous(cls, shape: Shape, offset: int = 0) -> Layout:
        """The row-major (C-contiguous) layout of ``shape``."""
        return cls._trusted(shape, contiguous_strides(shape), offset)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def numel(self) -> int:
        return product(self.shape)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Layout):
            return NotImplemented
        return (
            self.shape == other.shape
            and self.strides == other.strides
            and self.offset == other.offset
        )

    def __hash__(self) -> int:
        return hash((self.shape, self.strides, self.offset))

    def __repr__(self) -> str:
        return f"Layout(shape={self.shape}, strides={self.strides}, offset={self.offset})"


def _as_int(value: object, what: str) -> int:
    """Accept Python ints and integer-like objects (NumPy ints); refuse the rest."""
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise StridedTypeError(
            join_lines(
                f"{what} must contain only integers, but got {type(value).__name__} {value!r}",
                "each entry counts elements, so it must be a whole number; "
                "pass ints (int(...) converts)",
            )
        )
    return index_of(value, what)


def _is_index_scalar(value: object) -> bool:
    """A NumPy integer or a 0-d integer array/tensor: what PyTorch takes where an int goes."""
    if isinstance(value, bool) or not hasattr(value, "__index__") or tuple(getattr(value, "shape", ())) != ():
        return False
    return "float" not in str(getattr(value, "dtype", "")) and "bool" not in str(getattr(value, "dtype", ""))


def index_of(value: object, what: str) -> int:
    """``value.__index__()``, with an array that has dims (or a float tensor) refused as a TypeError."""
    try:
        return value.__index__()  # type: ignore[attr-defined]
    except (TypeError, ValueError, RuntimeError) as err:
        shape = tuple(getattr(value, "shape", ()))
        raise StridedTypeError(
            f"{what} must be an int, not {type(value).__name__}\n"
            f"  got {type(value).__name__} of shape {shape}, which is not one integer ({err})"
        ) from None


def product(values: Sequence[int]) -> int:
    """The product of ``values`` (1 for an empty sequence)."""
    return math.prod(values)


# ---------------------------------------------------------------- strides of fresh memory


def contiguous_strides(shape: Sequence[int]) -> Shape:
    """Row-major strides; a zero-size dim counts as 1, as in PyTorch and NumPy."""
    return _contiguous_strides(tuple(shape))


@functools.lru_cache(maxsize=4096)
def _contiguous_strides(shape: Shape) -> Shape:
    strides = [1] * len(shape)
    acc = 1
    for d in range(len(shape) - 1, -1, -1):
        strides[d] = acc
        acc *= max(shape[d], 1)
    return tuple(strides)


def fortran_strides(shape: Sequence[int]) -> Shape:
    """Column-major strides; a zero-size dim counts as 1."""
    strides = [1] * len(shape)
    acc = 1
    for d in range(len(shape)):
        strides[d] = acc
        acc *= max(shape[d], 1)
    return tuple(strides)


def channels_last_strides(shape: Sequence[int]) -> Shape:
    """NHWC strides for a 4-d NCHW shape, as PyTorch's ``get_channels_last_strides_2d``."""
    if len(shape) != 4:
        raise StridedRuntimeError(
            join_lines(
                f"required rank 4 tensor to use channels_last format, but got shape {tuple(shape)}",
                f"channels_last orders the 4 dims (N, C, H, W) as N, H, W, C; this tensor has "
                f"{len(shape)} dims. Use the default memory_format (contiguous_format), or "
                ".reshape(...) to 4 dims first",
            )
        )
    # Note: unlike contiguous_strides, PyTorch does not count a zero-size dim as 1 here
    # (zeros(1, 1, 0, 1) in channels_last has strides (0, 1, 1, 1)); we match it.
    n, c, h, w = shape
    s1 = 1
    s3 = c
    s2 = s3 * w
    s0 = s2 * h
    return (s0, s1, s2, s3)


def infer_dense_strides(shape: Sequence[int], strides: Sequence[int]) -> Shape:
    """PyTorch's ``infer_dense_strides``: dense strides that keep the input's memory order.

    This is the order TensorIterator gives outputs and ``empty_like`` gives
    overlapping inputs: dims sorted by stride (insertion sort from the
    innermost dim; a stride-0 dim never moves; equal strides put the smaller
    size inside). A zero-size dim counts as 1.

    # Note: PyTorch has no negative strides; we order by absolute stride so a
    # reversed view copies into the same memory order.
    """
    ndim = len(shape)
    perm = list(range(ndim - 1, -1, -1))
    for i in range(1, ndim):
        dim1 = i
        for j in range(1, i + 1):
            dim0 = i - j
            a, b = perm[dim0], perm[dim1]
            sa, sb = abs(strides[a]), abs(strides[b])
            if sa == 0 or sb == 0:
                cmp = 0
            elif sa < sb:
                cmp = -1
            elif sa > sb:
                cmp = 1
            else:
                cmp = 1 if shape[a] > shape[b] else 0
            if cmp > 0:
                perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
                dim1 = dim0
            elif cmp < 0:
                break
    out = [0] * ndim
    acc = 1
    for d in perm:
        out[d] = acc
        if shape[d] > 1:
            acc *= shape[d]
    return tuple(out)


def preserve_format_strides(shape: Sequence[int], strides: Sequence[int]) -> Shape:
    """Strides PyTorch's ``clone()``/``empty_like`` give: kept when dense, else inferred.

    PyTorch counts every contiguous tensor as dense, so an empty tensor keeps
    whatever strides it has (even 0), as its contiguity rule says.
    """
    if is_contiguous(shape, strides) or is_non_overlapping_and_dense(shape, strides):
        return tuple(strides)
    return infer_dense_strides(shape, strides)


def _keeps_row_major(shape: Shape, op_shape: Sequence[int], op_strides: Sequence[int]) -> bool:
    """Whether this operand alone never makes ``reorder_dimensions`` swap two dims.

    Walking its broadcast strides from the outermost dim in, every nonzero stride must be
    larger than the next nonzero one, or equal with the inner dim no larger (PyTorch's
    tie-break). Then no comparison it decides returns "swap"; stride-0 dims defer.
    """
    lead = len(shape) - len(op_shape)
    prev_stride = prev_size = -1
    for k in range(len(op_shape)):
        size = op_shape[k]
        stride = op_strides[k]
        if size == 1 and shape[lead + k] != 1:
            continue  # stretched: stride 0
        if stride == 0:
            continue
        if stride < 0:
            return False
        if prev_stride != -1 and (stride > prev_stride or (stride == prev_stride and size > prev_size)):
            return False
        prev_stride, prev_size = stride, size
    return True


def elementwise_output_strides(
    shape: Sequence[int], operands: Sequence[tuple[Sequence[int], Sequence[int]]]
) -> Shape:
    """Strides PyTorch's TensorIterator gives the fresh output of an elementwise op.

    ``shape`` is the broadcast shape; ``operands`` are the (shape, strides) of
    the inputs in argument order (a Python scalar counts as a 0-d operand).

    - Fast set-up, when every operand has exactly ``shape``: contiguous if all
      inputs are contiguous, else channels-last if all are, else the inputs'
      own strides if all are non-overlapping and dense with equal strides.
    - Otherwise the output keeps the inputs' dimension order
      (``reorder_dimensions``): an insertion sort of the dims from the
      innermost outwards, each comparison decided by the first operand whose
      strides along the two dims are both nonzero (smaller stride inside;
      equal strides put the smaller size inside); stride-0 dims (broadcast or
      expanded) are ambiguous and defer to the next operand. A size-1 dim of an
      operand that the result stretches counts as stride 0. If the order comes
      out row-major the strides are contiguous; otherwise dense strides in that
      order (``compatible_stride``: a zero-size dim zeroes the strides outside it).

    # Note: PyTorch has no negative strides; we order by absolute stride, and a
    # negative stride takes an operand out of the fast set-up.
    """
    ndim = len(shape)
    shape = tuple(shape)
    if ndim == 0:
        return ()
    same_shape = True
    in_order = True  # no operand asks to reorder any pair of dims: the common, row-major case
    for s, st in operands:
        if tuple(s) != shape:
            same_shape = False
        if in_order and not _keeps_row_major(shape, s, st):
            in_order = False
    if in_order and not same_shape:
        return contiguous_strides(shape)
    if same_shape:
        if all(is_contiguous(shape, st) for _, st in operands):
            return contiguous_strides(shape)
        if all(is_channels_last_contiguous(shape, st) for _, st in operands):
            return channels_last_strides(shape)
        if all(
            min(st) >= 0 and is_non_overlapping_and_dense(shape, st) for _, st in operands
        ) and all(tuple(st) == tuple(operands[-1][1]) for _, st in operands):
            return tuple(operands[-1][1])
    op_strides = []
    for s, st in operands:
        lead = ndim - len(s)
        full = [0] * ndim
        for k in range(len(s)):
            d = lead + k
            full[d] = 0 if (s[k] == 1 and shape[d] != 1) else abs(st[k])
        op_strides.append(full)
    perm = list(range(ndim - 1, -1, -1))  # perm[0] is the innermost (fastest) dim

    def should_swap(dim0: int, dim1: int) -> int:
        for full in op_strides:
            s0, s1 = full[dim0], full[dim1]
            if s0 == 0 or s1 == 0:
                continue
            if s0 < s1:
                return -1
            if s0 > s1:
                return 1
            if shape[dim0] > shape[dim1]:
                return 1
        return 0

    for i in range(1, ndim):
        dim1 = i
        for dim0 in range(i - 1, -1, -1):
            cmp = should_swap(perm[dim0], perm[dim1])
            if cmp > 0:
                perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
                dim1 = dim0
            elif cmp < 0:
                break
    if perm == list(range(ndim - 1, -1, -1)):
        return contiguous_strides(shape)
    out = [0] * ndim
    acc = 1
    for d in perm:
        out[d] = acc
        acc *= shape[d]
    return tuple(out)


# ---------------------------------------------------------------- contiguity predicates


def is_contiguous(shape: Sequence[int], strides: Sequence[int]) -> bool:
    """PyTorch's rule: size-1 dims are ignored and an empty tensor is contiguous."""
    expected = 1
    for d in range(len(shape) - 1, -1, -1):
        size = shape[d]
        if size == 0:
            return True
        if size != 1:
            if strides[d] != expected:
                # keep scanning: a later zero-size dim still makes it contiguous
                return 0 in shape[:d]
            expected *= size
    return True


def is_f_contiguous(shape: Sequence[int], strides: Sequence[int]) -> bool:
    """Column-major contiguity with the same size-1 and empty rules."""
    return is_contiguous(tuple(reversed(shape)), tuple(reversed(strides)))


def is_channels_last_contiguous(shape: Sequence[int], strides: Sequence[int]) -> bool:
    """PyTorch's ``is_contiguous(memory_format=channels_last)``: 4-d only, NHWC order."""
    if len(shape) != 4:
        return False
    expected = 1
    for d in (1, 3, 2, 0):
        if shape[d] != 1:
            if strides[d] != expected:
                return False
            expected *= shape[d]
    return True


def is_non_overlapping_and_dense(shape: Sequence[int], strides: Sequence[int]) -> bool:
    """PyTorch's rule: sorted by stride, the dims of size >= 2 tile memory with no gap or alias."""
    dims = sorted((d for d in range(len(shape)) if shape[d] >= 2), key=lambda d: strides[d])
    expected = 1
    for d in dims:
        if strides[d] != expected:
            return False
        expected *= shape[d]
    return True


def has_internal_overlap(shape: Sequence[int], strides: Sequence[int]) -> bool:
    """PyTorch's definite-overlap rule: a dim of size > 1 with stride 0.

    # Note: PyTorch calls other aliasing layouts (an ``unfold`` with overlapping
    # windows, some ``as_strided`` results) "too hard" and lets writes through;
    # we match it rather than refuse writes PyTorch accepts.
    """
    if 0 in shape:  # an empty tensor addresses nothing (PyTorch: contiguous, so never overlapping)
        return False
    return any(size > 1 and stride == 0 for size, stride in zip(shape, strides))


def overlap_status(a: Layout, b: Layout) -> str:
    """PyTorch's ``get_overlap_status`` for two layouts over one storage.

    "full" (same elements, same strides), "partial" (their memory ranges meet
    otherwise), "none", or "too_hard": PyTorch only judges layouts that are
    non-overlapping and dense (contiguous ones included) and lets the rest
    through; so do we.
    """
    na, nb = product(a.shape), product(b.shape)
    if na == 0 or nb == 0:
        return "none"
    for lay in (a, b):
        if not (is_contiguous(lay.shape, lay.strides) or is_non_overlapping_and_dense(lay.shape, lay.strides)):
            return "too_hard"
    a_begin, a_end = a.offset, a.offset + na
    b_begin, b_end = b.offset, b.offset + nb
    if a_begin == b_begin and a_end == b_end:
        return "full" if a.strides == b.strides else "partial"
    if a_begin < b_end and b_begin < a_end:
        return "partial"
    return "none"


def storage_extent(layout: Layout) -> tuple[int, int]:
    """The element range ``[lo, hi)`` of storage a layout touches; ``(offset, offset)`` if empty."""
    lo = hi = layout.offset
    for size, stride in zip(layout.shape, layout.strides):
        if size == 0:
            return layout.offset, layout.offset
        if stride >= 0:
            hi += (size - 1) * stride
        else:
            lo += (size - 1) * stride
    return lo, hi + 1


# ---------------------------------------------------------------- dims and sizes


def wrap_dim(dim: object, ndim: int) -> int:
    """Wrap a possibly negative dim into ``[0, ndim)``; a 0-d tensor accepts 0 and -1.

    Raises IndexError with PyTorch's first line when ``dim`` is out of range.
    """
    span = ndim if ndim > 0 else 1
    if type(dim) is int and -span <= dim < span:  # the common case, checked cheaply
        return dim + span if dim < 0 else dim
    if isinstance(dim, bool) or not isinstance(dim, int):
        if hasattr(dim, "__index__") and not isinstance(dim, bool):
            dim = index_of(dim, "dim")
        else:
            raise StridedTypeError(
                join_lines(
                    f"dim must be an int, but got {type(dim).__name__} {dim!r}",
                    f"the tensor has {ndim} dim{'s' if ndim != 1 else ''}; name one by its "
                    f"position: an int from {-max(ndim, 1)} to {max(ndim, 1) - 1}",
                )
            )
    span = ndim if ndim > 0 else 1
    if not -(2**63) <= dim < 2**63:
        raise StridedOverflowError(
            f"Overflow when unpacking long long\n  dim {dim} does not fit in int64; "
            f"the tensor has {ndim} dims"
        )
    if dim < -span or dim >= span:
        raise StridedIndexError(
            join_lines(
                f"Dimension out of range (expected to be in range of [{-span}, {span - 1}], "
                f"but got {dim})",
                f"the tensor has {ndim} dim{'s' if ndim != 1 else ''}; "
                f"dims count from 0 to {span - 1}, or from -{span} to -1 from the end",
            )
        )
    return dim + span if dim < 0 else dim


def wrap_dims(dims: Sequence[object], ndim: int, op: str) -> tuple[int, ...]:
    """Wrap several dims and refuse repeats."""
    wrapped = tuple(wrap_dim(d, ndim) for d in dims)
    if len(set(wrapped)) != len(wrapped):
        raise StridedRuntimeError(
            f"{op}(): duplicate dims are not allowed.\n  dims {tuple(dims)} name the same "
            f"dim more than once (after wrapping: {wrapped})"
        )
    return wrapped


def infer_size(shape: Sequence[int], numel: int) -> Shape:
    """Resolve one ``-1`` in ``shape`` against ``numel`` with PyTorch's checks and texts."""
    if -1 not in shape and math.prod(shape) == numel and (not shape or min(shape) >= 0):
        return tuple(shape)  # the common case, checked cheaply
    infer_at = None
    known = 1
    for i, s in enumerate(shape):
        if s == -1:
            if infer_at is not None:
                raise StridedRuntimeError(
                    f"only one dimension can be inferred\n  shape {list(shape)} has more than one -1"
                )
            infer_at = i
        elif s >= 0:
            known *= s
        else:
            raise StridedRuntimeError(
                join_lines(
                    f"invalid shape dimension {s} at index {i} of shape {list(shape)}",
                    f"sizes must be 0 or more, or -1 for the one dim inferred from the "
                    f"{numel} elements; size {s} at index {i} is neither",
                )
            )
    if numel == known or (infer_at is not None and known > 0 and numel % known == 0):
        if infer_at is None:
            return tuple(shape)
        if known == 0:
            example = [0 if j == infer_at else s for j, s in enumerate(shape)]
            raise StridedRuntimeError(
                join_lines(
                    f"cannot reshape tensor of 0 elements into shape {list(shape)} because the "
                    "unspecified dimension size -1 can be any value and is ambiguous",
                    f"the other sizes multiply to 0, so every size at index {infer_at} gives "
                    f"0 elements; write the size you mean instead of -1, e.g. {example}",
                )
            )
        out = list(shape)
        out[infer_at] = numel // known
        return tuple(out)
    raise StridedRuntimeError(
        join_lines(
            f"shape '{list(shape)}' is invalid for input of size {numel}",
            f"the requested shape holds {known} elements"
            + (" times the inferred dim" if infer_at is not None else "")
            + f", the tensor holds {numel}; the product of the sizes must match",
        )
    )


# ---------------------------------------------------------------- reshape as a view


@dataclass(frozen=True)
class ReshapeRefusal:
    """Why a reshape cannot be a view: two old dims that would have to merge but can't.

    ``outer`` and ``inner`` are adjacent dims of the old layout (``outer`` is
    never size 1). The new dim ``new_dim`` spans both, which needs the block
    starting at ``inner`` to continue exactly where ``outer`` steps:
    ``strides[outer] == needed_stride``. It does not.
    """

    old_shape: Shape
    old_strides: Shape
    new_shape: Shape
    outer: int
    inner: int
    new_dim: int
    needed_stride: int

    def equation(self) -> str:
        """The stride equation that failed, in the layout's own numbers."""
        o, i = self.outer, self.inner
        shape, strides = self.old_shape, self.old_strides
        rhs = f"(elements in dims {i}..) * (their base stride)"
        n = 1
        for j in range(i, len(shape)):  # the block from ``inner`` on: sizes times its last stride
            n *= shape[j]
            if n * strides[j] == self.needed_stride:
                names = " * ".join(f"size[{k}]" for k in range(i, j + 1))
                nums = " * ".join(str(shape[k]) for k in range(i, j + 1))
                rhs = f"{names} * stride[{j}] = {nums} * {strides[j]}"
                break
        return (
            f"stride[{o}] == {rhs} = {self.needed_stride}, "
            f"but stride[{o}] is {self.old_strides[o]}"
        )

    def reason(self) -> str:
        """One sentence on what the failed equation means for memory."""
        o = self.outer
        s = self.old_strides[o]
        if self.needed_stride == 0 and s != 0:
            return (
                f"dim {self.inner} is expanded (stride 0): it repeats the same memory while "
                f"dim {o} moves on, so no single stride can walk the merged dim"
            )
        if s == 0:
            return (
                f"dim {o} is expanded (stride 0): its entries share memory, "
                "so no single stride can walk the merged dim"
            )
        if abs(s) < abs(self.needed_stride) or (s < 0) != (self.needed_stride < 0):
            return f"walking dim {o} jumps back through memory instead of past the end of dim {self.inner}"
        return f"dim {o} steps over a gap: the merged entries are not one evenly spaced run"


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
def plan_view(
    old_shape: Shape, old_strides: Shape, requested: Shape
) -> tuple[Shape, Shape | ReshapeRefusal]:
    """``requested`` (which may hold one -1) resolved, and the strides to view it (or a refusal).

    Raises the errors of :func:`infer_size`. Memoized: view and reshape call it every time.
    """
    new_shape = infer_size(requested, math.prod(old_shape))
    return new_shape, torch_view_strides(old_shape, old_strides, new_shape)


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


# ---------------------------------------------------------------- movement ops


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
    out_shape = [0] * ndim
    out_strides = [0] * ndim
    for i in range(ndim - 1, -1, -1):
        dim = tdim - ndim + i
        if dim >= 0:
            size, stride = shape[dim], strides[dim]
        else:
            size = 1
            stride = out_shape[i + 1] * out_strides[i + 1] if i + 1 < ndim and tdim > 0 else 0
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
    new_stride = 1 if d >= len(shape) else shape[d] * strides[d]
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
    offset = layout.offset
    if step_i > 0 or length > 0:
        # PyTorch clamps start into [0, size] and moves the offset even for empty results
        offset += start_i * strides[dim]
    else:
        step_i = 1  # NumPy: an empty negative-step slice points at the start with step 1
    new_shape = shape[:dim] + (length,) + shape[dim + 1 :]
    new_strides = strides[:dim] + (strides[dim] * step_i,) + strides[dim + 1 :]
    return Layout._trusted(new_shape, new_strides, offset)


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
    return Layout._trusted(
        tuple(shape[d] for d in keep) + (diag,),
        tuple(strides[d] for d in keep) + (strides[d1] + strides[d2],),
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
    new_shape = list(shape) + [size]
    new_strides = list(strides) + [1 if ndim == 0 else strides[d]]
    if ndim > 0:
        new_shape[d] = (shape[d] - size) // step + 1
        new_strides[d] = step * strides[d]
    return Layout._trusted(tuple(new_shape), tuple(new_strides), layout.offset)


# ---------------------------------------------------------------- describing a layout in words


def layout_origin(lay: Layout) -> str:
    """A short guess at how a layout arose, e.g. "the transpose of a contiguous (3, 4)".

    Pure (no data): used by view errors (:mod:`strided.tensor`) and by
    :func:`strided.describe.describe`.
    """
    shape, strides = lay.shape, lay.strides
    if is_contiguous(shape, strides):
        return "contiguous"
    if any(n > 1 and s == 0 for n, s in zip(shape, strides)):
        dims = [d for d, (n, s) in enumerate(zip(shape, strides)) if n > 1 and s == 0]
        return f"expanded along dim{'s' if len(dims) > 1 else ''} {', '.join(map(str, dims))} with stride 0"
    if any(s < 0 for s in strides):
        return "walks some dims backwards with negative strides"
    order = sorted(range(len(shape)), key=lambda d: -abs(strides[d]))
    permuted = tuple(shape[d] for d in order)
    if is_contiguous(permuted, tuple(strides[d] for d in order)):
        inverse = tuple(order.index(d) for d in range(len(shape)))
        if len(shape) == 2:
            return f"the transpose of a contiguous {permuted}"
        return f"a permute{inverse} of a contiguous {permuted}"
    return "strided with gaps (a slice or step of a larger tensor)"
