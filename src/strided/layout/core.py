"""The Layout value and the facts every other layout module needs.

A layout is ``(shape, strides, offset)`` counted in elements; element
``(i0, i1, ...)`` sits at ``offset + i0*strides[0] + ...``. Here: the Layout
class and its invariants (:func:`check_layout`), dense strides of fresh memory,
contiguity and overlap predicates, and dim/size argument handling with
PyTorch's errors. Pure: no NumPy, no data.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

# The int reader is ground (strided.args), shared with tensor, indexing and ops; its names stay
# importable from here for the layout modules.
from ..args import as_int as _as_int
from ..args import index_of
from ..args import is_index_scalar as _is_index_scalar  # noqa: F401  (re-exported)
from ..errors import (
    StridedOverflowError,
    StridedRuntimeError,
    StridedTypeError,
    join_lines,
)
from ..messages import error
from ..refusals import (
    INT64_MAX,
    MAX_DIMS,
    AmbiguousInferred,
    BroadcastMismatch,
    ChannelsLastRank,
    DimOutOfRange,
    InternalOverlap,
    InvalidSize,
    LayoutRefusal,
    MultipleInferred,
    NumelMismatch,
    NumelOverflow,
    OverlapStatus,
    RepeatedDims,
    Shape,
    StrideOverflow,
    TooManyDims,
)

_new = object.__new__


class _Fields:
    """The three slots, shared by :class:`Layout` and its unfrozen twin (no behaviour here)."""

    __slots__ = ("shape", "strides", "offset")


class _Unfrozen(_Fields):
    """A Layout under construction: plain slot assignment (never escapes :func:`_trusted`)."""

    __slots__ = ()


def _trusted(shape: Shape, strides: Shape, offset: int) -> Layout:
    """Build a layout from values already known to satisfy :func:`check_layout` (no checks)."""
    # Fill the slots by plain assignment on the unfrozen twin (same slots, default setattr),
    # then make it a Layout: about 30 ns over a mutable class, where setting three slots
    # through their descriptors costs about 150 ns (measured); reads stay plain slot reads.
    lay = _new(_Unfrozen)
    lay.shape = shape
    lay.strides = strides
    lay.offset = offset
    lay.__class__ = Layout
    return lay


class Layout(_Fields):
    """An immutable (shape, strides, offset) triple, counted in elements.

    ``Layout(shape, strides, offset)`` is the one canonical constructor for
    untrusted input: it normalises its arguments to tuples of ints and checks
    every invariant of :func:`check_layout` (except the storage bound, which
    needs the storage: :meth:`check`). Movement ops build results with
    :meth:`_trusted`, which checks nothing: each op keeps the invariants by
    construction (views are a hot path).

    Assigning or deleting a field raises AttributeError, so tensors may share
    one Layout object safely.

    >>> lay = Layout((3, 2), (1, 3), 0)
    >>> lay == strided.zeros(2, 3).t().layout, lay.shape, lay.strides
    (True, (3, 2), (1, 3))
    """

    __slots__ = ()

    shape: Shape
    strides: Shape
    offset: int

    def __new__(cls, shape: Sequence[int], strides: Sequence[int], offset: int = 0) -> Layout:
        shape, strides, offset = normalize_layout_args(shape, strides, offset)
        check_layout(shape, strides, offset)
        return _trusted(shape, strides, offset)

    _trusted = staticmethod(_trusted)

    @classmethod
    def contiguous(cls, shape: Shape, offset: int = 0) -> Layout:
        """The row-major (C-contiguous) layout of ``shape``."""
        return _trusted(shape, contiguous_strides(shape), offset)

    def check(self, storage_size: int | None = None, itemsize: int = 1) -> Layout:
        """Raise if this layout breaks an invariant of :func:`check_layout`; return it otherwise."""
        check_layout(self.shape, self.strides, self.offset, storage_size, itemsize)
        return self

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(
            f"Layout is immutable: cannot set '{name}'; build a new one, e.g. "
            "Layout(shape, strides, offset), or take a view of the tensor (t.as_strided(...))"
        )

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"Layout is immutable: cannot delete '{name}'")

    def __reduce__(self) -> tuple[type, tuple[Shape, Shape, int]]:
        # pickle and copy rebuild through the checking constructor (slots cannot be set afterwards)
        return (Layout, (self.shape, self.strides, self.offset))

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


def normalize_layout_args(shape: object, strides: object, offset: object) -> tuple[Shape, Shape, int]:
    """``shape``/``strides`` as tuples of ints and ``offset`` as an int; TypeError for other kinds.

    Only the kinds are checked here; the values are :func:`check_layout`'s job.
    """
    if shape.__class__ is tuple and strides.__class__ is tuple and offset.__class__ is int:
        for v in shape + strides:  # type: ignore[operator]  (the common case: plain ints, one loop)
            if v.__class__ is not int:
                break
        else:
            return shape, strides, offset  # type: ignore[return-value]
    for what, seq in (("size", shape), ("stride", strides)):
        if not isinstance(seq, (tuple, list)):
            raise StridedTypeError(
                f"argument '{what}' must be tuple of ints, not {type(seq).__name__}\n"
                f"  got {seq!r:.60}; give one int per dim, e.g. (2, 3)"
            )
    # (the common case first: plain Python ints, already what the slow conversion returns)
    if offset.__class__ is int and all(v.__class__ is int for v in shape) and all(  # type: ignore[union-attr]
            v.__class__ is int for v in strides):  # type: ignore[union-attr]
        return tuple(shape), tuple(strides), offset  # type: ignore[arg-type]
    return (
        tuple(_as_int(s, "shape") for s in shape),  # type: ignore[union-attr]
        tuple(_as_int(s, "strides") for s in strides),  # type: ignore[union-attr]
        _as_int(offset, "storage offset"),
    )


def check_layout(
    shape: Shape,
    strides: Shape,
    offset: int,
    storage_size: int | None = None,
    itemsize: int = 1,
) -> None:
    """Raise the first invariant ``(shape, strides, offset)`` breaks (see :func:`layout_refusal`,
    rendered by :mod:`strided.messages`); return None if it keeps all."""
    refusal = layout_refusal(shape, strides, offset, storage_size, itemsize)
    if refusal is not None:
        raise error(refusal)


def layout_refusal(
    shape: Shape,
    strides: Shape,
    offset: int,
    storage_size: int | None = None,
    itemsize: int = 1,
) -> LayoutRefusal | TooManyDims | NumelOverflow | None:
    """The first invariant ``(shape, strides, offset)`` breaks, as a refusal; None if it keeps all.

    The invariants every Layout keeps (views keep them by construction):

    1. ``shape`` and ``strides`` are tuples of ints of equal length, at most :data:`MAX_DIMS`;
    2. sizes are >= 0, and sizes, strides and the offset fit in int64; the offset is >= 0;
    3. ``numel`` (the product of the sizes) fits in int64 (PyTorch's numel overflow check);
    4. no index reaches before the storage: ``offset + sum((size-1) * stride)`` over the
       negative strides is >= 0 (a size-0 dim counts as size 1 here, so an empty view
       never carries an offset that a later ``resize_`` would turn into a negative read);
    5. a non-empty layout's byte extent, ``(highest element + 1) * itemsize``, fits in int64;
    6. given ``storage_size`` (elements): a non-empty layout addresses only ``[0, storage_size)``.

    Values of the wrong kind (not tuples, not ints) are argument errors: StridedTypeError.

    >>> layout_refusal((3,), (2,), 0, storage_size=4).rule
    'storage'
    """
    if type(shape) is not tuple or type(strides) is not tuple:
        raise StridedTypeError(
            f"Layout: shape and strides must be tuples of ints, got {type(shape).__name__} "
            f"and {type(strides).__name__}"
        )
    if len(shape) != len(strides):
        return LayoutRefusal("length", shape, strides, offset)
    if len(shape) > MAX_DIMS:
        return TooManyDims(len(shape), "this layout")
    for what, values in (("size", shape), ("stride", strides)):
        for i, v in enumerate(values):
            if type(v) is not int:
                raise StridedTypeError(
                    f"Layout: {what}[{i}] must be an int, not {type(v).__name__} ({v!r:.40})"
                )
            if not -INT64_MAX - 1 <= v <= INT64_MAX:
                return LayoutRefusal("int64", shape, strides, offset, index=i, what=what)
    for i, s in enumerate(shape):
        if s < 0:
            return LayoutRefusal("size", shape, strides, offset, index=i)
    if type(offset) is not int:
        raise StridedTypeError(f"Layout: the offset must be an int, not {type(offset).__name__}")
    if offset > INT64_MAX:
        return LayoutRefusal("offset_int64", shape, strides, offset)
    if offset < 0:
        return LayoutRefusal("offset", shape, strides, offset)
    if math.prod(shape) > INT64_MAX:
        return NumelOverflow(shape, "this layout")
    low = offset + sum((max(n, 1) - 1) * s for n, s in zip(shape, strides) if s < 0)
    if low < 0:
        return LayoutRefusal("reach", shape, strides, offset, low=low)
    if 0 in shape:
        return None
    high = offset + sum((n - 1) * s for n, s in zip(shape, strides) if s > 0)
    if (high + 1) * itemsize > INT64_MAX:
        return LayoutRefusal("bytes", shape, strides, offset, high=high, itemsize=itemsize)
    if storage_size is not None and high >= storage_size:
        return LayoutRefusal("storage", shape, strides, offset, high=high, itemsize=itemsize,
                             storage_size=storage_size)
    return None


def check_numel(shape: Sequence[int], op: str) -> int:
    """The number of elements of ``shape``; PyTorch's RuntimeError when it overflows int64."""
    numel = math.prod(shape)
    if numel > INT64_MAX:
        raise numel_overflow(shape, op)
    return numel


def numel_overflow(shape: Sequence[int], op: str) -> StridedRuntimeError:
    """PyTorch's error for sizes whose product does not fit in int64, in their own numbers."""
    return error(NumelOverflow(tuple(shape), op))  # type: ignore[return-value]


def too_many_dims(ndim: int, op: str) -> StridedRuntimeError:
    """The error for a layout of more than :data:`MAX_DIMS` dims (NumPy's first line)."""
    return error(TooManyDims(ndim, op))  # type: ignore[return-value]


def fit_int64(value: int) -> int:
    """``value`` (a stride a movement op computed) clamped into int64.

    Only two kinds of dim can get a stride beyond int64 from valid inputs: a dim with at
    most one index (``t[::2**100]``, a new size-1 dim), whose stride is never multiplied by
    anything but 0, and a dim of an empty layout, which addresses nothing. Clamping
    changes no element either way, as PyTorch's and NumPy's slice parsing clamp a step.
    """
    return max(-INT64_MAX - 1, min(value, INT64_MAX))


def product(values: Sequence[int]) -> int:
    """The product of ``values`` (1 for an empty sequence)."""
    return math.prod(values)


# ---------------------------------------------------------------- strides of fresh memory


def contiguous_strides(shape: Sequence[int]) -> Shape:
    """Row-major strides; a zero-size dim counts as 1, as in PyTorch and NumPy."""
    return _contiguous_strides(tuple(shape))


@functools.lru_cache(maxsize=4096)
def _contiguous_strides(shape: Shape) -> Shape:
    if len(shape) > MAX_DIMS:
        # every fresh or reshaped-by-copy layout takes its strides from here
        raise too_many_dims(len(shape), f"a tensor of shape {shape}")
    strides = [1] * len(shape)
    acc = 1
    for d in range(len(shape) - 1, -1, -1):
        strides[d] = acc
        acc *= max(shape[d], 1)
    if acc > INT64_MAX:
        check_strides_fit(shape, strides, "contiguous")
    return tuple(strides)


def check_strides_fit(shape: Shape, strides: Sequence[int], order: str) -> None:
    """PyTorch's RuntimeError "Stride calculation overflowed" when a dense stride of ``shape``
    exceeds int64 (``empty(0, 4, 2**61)``: dim 0's stride would be 2**63). Only a shape with a
    0 gets here; PyTorch's ``empty_tensor_restride`` refuses it, and so do we rather than
    clamp or wrap a stride (a later ``resize_`` would read through it).

    >>> check_strides_fit((0, 4), (4, 1), "contiguous") is None
    True
    """
    for d, s in enumerate(strides):
        if s > INT64_MAX:
            raise error(StrideOverflow(tuple(shape), d, s, order))


def fortran_strides(shape: Sequence[int]) -> Shape:
    """Column-major strides; a zero-size dim counts as 1 (refused past int64 as contiguous_strides)."""
    if len(shape) > MAX_DIMS:
        raise too_many_dims(len(shape), f"a tensor of shape {tuple(shape)}")
    strides = [1] * len(shape)
    acc = 1
    for d in range(len(shape)):
        strides[d] = acc
        acc *= max(shape[d], 1)
    if acc > INT64_MAX:
        check_strides_fit(tuple(shape), strides, "column-major")
    return tuple(strides)


def channels_last_strides(shape: Sequence[int]) -> Shape:
    """NHWC strides for a 4-d NCHW shape, as PyTorch's ``get_channels_last_strides_2d``."""
    if len(shape) != 4:
        raise error(ChannelsLastRank(tuple(shape)))
    # Note: unlike contiguous_strides, PyTorch does not count a zero-size dim as 1 here
    # (zeros(1, 1, 0, 1) in channels_last has strides (0, 1, 1, 1)); we match it.
    # PyTorch allocates contiguously first and restrides after, so an overflow of the
    # row-major strides is refused even where the channels-last ones would fit
    contiguous_strides(shape)
    n, c, h, w = shape
    s1 = 1
    s3 = c
    s2 = s3 * w
    s0 = s2 * h
    return (s0, s1, s2, s3)


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
    """PyTorch's definite-overlap rule: a dim of size > 1 with stride 0 (see :func:`internal_overlap`)."""
    return internal_overlap(shape, strides) is not None


def internal_overlap(shape: Sequence[int], strides: Sequence[int]) -> InternalOverlap | None:
    """The dims that make several elements share one memory location, or None.

    PyTorch's definite-overlap rule: the dims of size > 1 with stride 0. An empty
    layout addresses nothing (PyTorch: contiguous, so never overlapping).
    """
    # Note: PyTorch calls other aliasing layouts (an ``unfold`` with overlapping windows, some
    # ``as_strided`` results) "too hard" and lets writes through. Plain writes match it; in-place
    # updates refuse every overlap :func:`overlaps` establishes (kernels.memory.check_writable).
    if 0 in shape or 0 not in strides:  # (no stride 0: no such dim, without walking them)
        return None
    dims = tuple(d for d, (size, stride) in enumerate(zip(shape, strides)) if size > 1 and stride == 0)
    return InternalOverlap(dims) if dims else None


def overlap_status(a: Layout, b: Layout) -> OverlapStatus:
    """PyTorch's ``get_overlap_status`` for two layouts over one storage.

    FULL (same elements, same strides), PARTIAL (their memory ranges meet
    otherwise), NONE, or TOO_HARD: PyTorch only judges layouts that are
    non-overlapping and dense (contiguous ones included) and lets the rest
    through; so do we.
    """
    na, nb = product(a.shape), product(b.shape)
    if na == 0 or nb == 0:
        return OverlapStatus.NONE
    for lay in (a, b):
        if not (is_contiguous(lay.shape, lay.strides) or is_non_overlapping_and_dense(lay.shape, lay.strides)):
            return OverlapStatus.TOO_HARD
    a_begin, a_end = a.offset, a.offset + na
    b_begin, b_end = b.offset, b.offset + nb
    if a_begin == b_begin and a_end == b_end:
        return OverlapStatus.FULL if a.strides == b.strides else OverlapStatus.PARTIAL
    if a_begin < b_end and b_begin < a_end:
        return OverlapStatus.PARTIAL
    return OverlapStatus.NONE


def broadcast_pair(a: Shape, b: Shape) -> Shape | BroadcastMismatch:
    """PyTorch's ``infer_size``: the broadcast shape of ``a`` and ``b``, or where it fails.

    The last (rightmost-first scan) mismatching dim is the one reported, as PyTorch does.
    """
    if a == b:
        return a
    ndim = max(len(a), len(b))
    out = [0] * ndim
    for i in range(ndim - 1, -1, -1):
        da = i - ndim + len(a)
        db = i - ndim + len(b)
        sa = a[da] if da >= 0 else 1
        sb = b[db] if db >= 0 else 1
        if sa != sb and sa != 1 and sb != 1:
            return BroadcastMismatch(i, sa, sb)
        out[i] = sb if sa == 1 else sa
    return tuple(out)


def storage_extent(layout: Layout) -> tuple[int, int]:
    """The element range ``[lo, hi)`` of storage a layout touches; ``(offset, offset)`` if empty."""
    lo, hi = index_span(layout.shape, layout.strides)
    return layout.offset + lo, layout.offset + hi


def without_repeats(layout: Layout) -> Layout:
    """``layout`` without its stride-0 dims: each memory location it addresses, once.

    For writing one value (all repeats get the same value). An empty layout is
    returned as it is (dropping its size-0 dim would make it address something).
    """
    if 0 in layout.shape:
        return layout
    keep = [d for d, s in enumerate(layout.strides) if s != 0]
    return _trusted(
        tuple(layout.shape[d] for d in keep), tuple(layout.strides[d] for d in keep), layout.offset
    )


def index_span(shape: Sequence[int], strides: Sequence[int]) -> tuple[int, int]:
    """The positions ``[lo, hi)`` relative to the offset that ``(shape, strides)`` touches;
    ``(0, 0)`` if empty. (``lo`` is negative when a dim walks backwards.)"""
    lo = hi = 0
    for size, stride in zip(shape, strides):
        if size == 0:
            return 0, 0
        if stride >= 0:
            hi += (size - 1) * stride
        else:
            lo += (size - 1) * stride
    return lo, hi + 1


def nests(dims: Sequence[tuple[int, int]]) -> bool:
    """Whether ``dims`` ((|stride|, size) pairs sorted by stride, sizes > 1) address distinct
    elements because each stride steps past everything the smaller ones span."""
    span = 1
    for stride, size in dims:
        if stride < span:
            return False
        span += stride * (size - 1)
    return True


@functools.lru_cache(maxsize=512)
def may_share_elements(shape: tuple[int, ...], strides: tuple[int, ...]) -> bool:
    """Whether two elements of the layout may share memory without a stride-0 dim (cached: asked
    on every array write). False for every layout whose dims nest (each steps past the smaller).
    (Here, beside :func:`nests`, rather than in :mod:`strided.kernels.torch_overlap_writes`, whose
    walks only the rare overlapping writes need: that module loads on first use.)"""
    dims = sorted((abs(st), n) for n, st in zip(shape, strides) if n > 1)
    return 0 not in shape and not nests(dims) and all(st for st, _ in dims)


def overlaps(shape: Sequence[int], strides: Sequence[int], limit: int = 1 << 16) -> bool | None:
    """Whether two elements of the layout share one memory location (None: too many to tell).

    A stride-0 dim of size > 1 overlaps. Otherwise, sorted by ``|stride|``, dims that
    each step past everything the smaller ones span cannot overlap; layouts that do
    not nest so (``unfold`` with step < size, some ``as_strided``) are decided by
    listing their positions, up to ``limit`` elements.
    """
    if 0 in shape:
        return False
    dims = sorted((abs(st), n) for n, st in zip(shape, strides) if n > 1)
    if nests(dims):
        return False
    if any(stride == 0 for stride, _ in dims):
        return True
    if math.prod(n for _, n in dims) > limit:
        return None
    positions = {0}
    for stride, size in dims:
        positions = {p + i * stride for p in positions for i in range(size)}
    return len(positions) < math.prod(n for _, n in dims)


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
        raise error(DimOutOfRange(dim, ndim))
    return dim + span if dim < 0 else dim


def dim_in_range(dim: int, ndim: int) -> int | DimOutOfRange:
    """``dim`` (an int) wrapped into ``[0, ndim)``, or the refusal; a 0-d layout accepts 0 and -1."""
    span = ndim if ndim > 0 else 1
    if -span <= dim < span:
        return dim + span if dim < 0 else dim
    return DimOutOfRange(dim, ndim)


def wrap_dims(dims: Sequence[object], ndim: int, op: str) -> tuple[int, ...]:
    """Wrap several dims and refuse repeats."""
    wrapped = tuple(wrap_dim(d, ndim) for d in dims)
    if len(set(wrapped)) != len(wrapped):
        raise error(RepeatedDims(op, tuple(dims), wrapped))
    return wrapped


def infer_shape(
    shape: Sequence[int], numel: int
) -> Shape | MultipleInferred | InvalidSize | AmbiguousInferred | NumelMismatch:
    """PyTorch's ``infer_size``: ``shape`` with its one ``-1`` resolved against ``numel``, or why not.

    >>> infer_shape((2, -1), 6)
    (2, 3)
    """
    if -1 not in shape and math.prod(shape) == numel and (not shape or min(shape) >= 0):
        return tuple(shape)  # the common case, checked cheaply
    infer_at = None
    known = 1
    for i, s in enumerate(shape):
        if s == -1:
            if infer_at is not None:
                return MultipleInferred(tuple(shape))
            infer_at = i
        elif s >= 0:
            known *= s
        else:
            return InvalidSize(tuple(shape), i, s, numel)
    if numel == known or (infer_at is not None and known > 0 and numel % known == 0):
        if infer_at is None:
            return tuple(shape)
        if known == 0:
            return AmbiguousInferred(tuple(shape), infer_at)
        out = list(shape)
        out[infer_at] = numel // known
        return tuple(out)
    return NumelMismatch(tuple(shape), numel, known, infer_at is not None)


def infer_size(shape: Sequence[int], numel: int) -> Shape:
    """Resolve one ``-1`` in ``shape`` against ``numel`` with PyTorch's checks and texts."""
    result = infer_shape(shape, numel)
    if type(result) is tuple:
        return result
    raise error(result)
