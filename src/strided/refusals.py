"""Why a layout operation cannot be done as asked: refusals as small frozen values.

The layout algebra decides; it does not phrase. Every failure it can decide from
shape, strides and offset alone is one of the values below, carrying the numbers
that failed (which dims, which bound or equation). :mod:`strided.messages` renders
them to text by their type (the peer's first line, the reason in the layout's numbers,
the fix), the errors carry them, and the plans of :mod:`strided.layout.plans` return them.

A ground module, below the layout package that returns these values, so that the renderer
beside it can dispatch on the types themselves. Pure: no NumPy, no Tensor; it imports
nothing of strided at import time (so every module may import this one). The one exception,
at call time, is :meth:`ReshapeRefusal.equation`/:meth:`~ReshapeRefusal.reason`, which ask
:mod:`strided.messages` (a sibling in the ground) for their words.

Example::

    >>> ExpandRefusal(shape=(2, 3), sizes=(4, 3), dim=0, tensor_dim=0, size=2, target=4).size
    2
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

# The shape alias lives here (not in core): refusals are imported by core, and core by everyone.
Shape = tuple[int, ...]

# The limits the refusals name (TooManyDims, NumelOverflow, ...), here so that the layout algebra
# that enforces them and the messages that quote them read one definition.
# Note: PyTorch allows more dims; strided computes through NumPy, whose arrays (and so every
# kernel) stop at 64 dims, so a layout with more is refused where it is made, not at first use.
MAX_DIMS = 64
INT64_MAX = 2**63 - 1  # sizes, strides, offsets, numel and byte extents are int64, as in PyTorch


class OverlapStatus(enum.StrEnum):
    """PyTorch's ``MemOverlapStatus`` for two layouts over one storage (``get_overlap_status``).

    FULL: the same elements with the same strides; PARTIAL: the memory ranges meet otherwise;
    NONE: disjoint (or one is empty); TOO_HARD: a layout that is not non-overlapping and dense,
    which PyTorch does not judge (and lets writes through). Compare with ``is``; a member also
    equals its old string ("partial", ...), so callers written against the strings keep working.
    """

    FULL = "full"
    PARTIAL = "partial"
    NONE = "none"
    TOO_HARD = "too_hard"


# ---------------------------------------------------------------- shapes


@dataclass(frozen=True)
class ReshapeRefusal:
    """Why a reshape cannot be a view: two old dims that would have to merge but can't.

    ``outer`` and ``inner`` are adjacent dims of the old layout (``outer`` is
    never size 1). The new dim ``new_dim`` spans both, which needs the block
    starting at ``inner`` to continue exactly where ``outer`` steps:
    ``strides[outer] == needed_stride``. It does not.

    >>> from strided.layout import plans
    >>> r = plans.view(strided.zeros(2, 3).t().layout, (6,))
    >>> r.outer, r.inner, r.needed_stride
    (0, 1, 6)
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
        from .messages import reshape_equation  # (at call time: messages imports this module)

        return reshape_equation(self)

    def reason(self) -> str:
        """One sentence on what the failed equation means for memory."""
        from .messages import reshape_reason

        return reshape_reason(self)


@dataclass(frozen=True)
class BroadcastMismatch:
    """Why two shapes do not broadcast: at result dim ``dim`` (aligned right) the sizes
    ``size_a`` and ``size_b`` differ and neither is 1."""

    dim: int
    size_a: int
    size_b: int


@dataclass(frozen=True)
class TooManyDims:
    """A result would have ``ndim`` dims, more than ``MAX_DIMS``; ``op`` names what would."""

    ndim: int
    op: str


@dataclass(frozen=True)
class LayoutRefusal:
    """``(shape, strides, offset)`` breaks the Layout invariant ``rule`` (``layout.check_layout``):

    - ``"length"``: ``len(shape) != len(strides)``;
    - ``"int64"``: ``what`` (``"size"`` or ``"stride"``) ``[index]`` does not fit in int64;
    - ``"size"``: ``shape[index]`` is negative;
    - ``"offset_int64"``, ``"offset"``: the offset does not fit in int64, or is negative;
    - ``"reach"``: the negative strides walk back to storage index ``low`` < 0;
    - ``"bytes"``: the highest element ``high`` puts the byte extent past int64;
    - ``"storage"``: the highest element ``high`` lies past a storage of ``storage_size``;
    - ``"negative_stride"``: ``as_strided`` was given a negative stride (PyTorch refuses them).
    """

    rule: str
    shape: Shape
    strides: Shape
    offset: int
    index: int = -1
    what: str = ""
    low: int = 0
    high: int = 0
    itemsize: int = 1
    storage_size: int = 0


@dataclass(frozen=True)
class NumelOverflow:
    """A result of ``shape`` would hold more elements than int64 counts; ``op`` names it."""

    shape: Shape
    op: str


@dataclass(frozen=True)
class MultipleInferred:
    """A requested ``shape`` holds more than one -1."""

    shape: Shape


@dataclass(frozen=True)
class InvalidSize:
    """Entry ``index`` of a requested ``shape`` is ``size``: below -1 (``numel``: the elements)."""

    shape: Shape
    index: int
    size: int
    numel: int


@dataclass(frozen=True)
class AmbiguousInferred:
    """A -1 at ``index`` of ``shape`` next to a 0: any size would do."""

    shape: Shape
    index: int


@dataclass(frozen=True)
class NumelMismatch:
    """A requested ``shape`` holds ``known`` elements (times the inferred dim when
    ``inferred``), the layout ``numel``."""

    shape: Shape
    numel: int
    known: int
    inferred: bool


@dataclass(frozen=True)
class NegativeSize:
    """Target dim ``dim`` of ``sizes`` asks for the negative size ``size``."""

    sizes: Shape
    dim: int
    size: int


@dataclass(frozen=True)
class FlattenOrder:
    """``flatten(start_dim, end_dim)`` of ``shape`` where ``start`` (wrapped) comes after ``end``."""

    shape: Shape
    start_dim: object
    end_dim: object
    start: int
    end: int


@dataclass(frozen=True)
class UnflattenRefusal:
    """``unflatten(dim, sizes)`` of ``shape`` fails ``check``: "empty" (no sizes), "zero_dim"
    (a 0-d layout) or "product" (the sizes do not make dim ``wrapped``'s size)."""

    check: str
    shape: Shape
    dim: object
    wrapped: int
    sizes: Shape


@dataclass(frozen=True)
class ChannelsLastRank:
    """channels_last (or channels_last_3d: ``format``) asked of a layout of ``shape``, which is
    not 4-d (5-d)."""

    shape: Shape
    format: str = "channels_last"


# ---------------------------------------------------------------- dims and indices


@dataclass(frozen=True)
class DimOutOfRange:
    """``dim`` names no dim of an ``ndim``-d layout (a 0-d layout accepts 0 and -1)."""

    dim: int
    ndim: int


@dataclass(frozen=True)
class RepeatedDims:
    """``op``'s dims ``given`` name one dim more than once (``wrapped``: after wrapping)."""

    op: str
    given: tuple[object, ...]
    wrapped: Shape


@dataclass(frozen=True)
class PermuteLength:
    """``permute`` got ``len(dims)`` dims for a layout of ``shape``."""

    shape: Shape
    dims: tuple[object, ...]


@dataclass(frozen=True)
class MovedimLength:
    """``movedim(source, destination)`` with different numbers of dims on the two sides."""

    source: tuple[object, ...]
    destination: tuple[object, ...]


@dataclass(frozen=True)
class ZeroDimRefusal:
    """``op`` needs a dim and the layout is 0-d."""

    op: str


@dataclass(frozen=True)
class IndexOutOfRange:
    """``select``: ``index`` is outside dim ``dim`` of ``shape`` (size ``size``)."""

    shape: Shape
    dim: int
    index: int
    size: int


@dataclass(frozen=True)
class ZeroStep:
    """A slice of dim ``dim`` (size ``size``) with step 0."""

    dim: int
    size: int


@dataclass(frozen=True)
class NarrowRefusal:
    """``narrow(dim, start, length)`` on ``shape`` fails ``check``: "length" (negative),
    "start" (outside ``[-size, size]``) or "end" (``start + length > size``); ``dim`` is as given
    for "length" and wrapped otherwise, ``start`` wrapped for "end"."""

    check: str
    shape: Shape
    dim: int
    start: int
    length: int


@dataclass(frozen=True)
class SameDims:
    """``diagonal(offset, dim1, dim2)`` where both name dim ``dim`` of ``shape``."""

    shape: Shape
    offset: int
    dim1: object
    dim2: object
    dim: int


@dataclass(frozen=True)
class UnfoldRefusal:
    """``unfold(dimension, size, step)`` on ``shape`` fails ``check``: "size" (larger than
    the dim's ``max_size``), "negative" (size < 0) or "step" (step <= 0); ``dim`` is wrapped."""

    check: str
    shape: Shape
    dimension: object
    dim: int
    size: int
    step: int
    max_size: int


# ---------------------------------------------------------------- expand and broadcast_to


@dataclass(frozen=True)
class ExpandRefusal:
    """``expand(sizes)`` of ``shape``: tensor dim ``tensor_dim`` (target dim ``dim``) has
    ``size``, not 1, and the target asks for ``target``."""

    shape: Shape
    sizes: Shape
    dim: int
    tensor_dim: int
    size: int
    target: int


@dataclass(frozen=True)
class ExpandTooFewSizes:
    """``expand(sizes)`` names fewer sizes than ``shape`` has dims."""

    shape: Shape
    sizes: Shape


@dataclass(frozen=True)
class ExpandNewDimInferred:
    """``expand(sizes)`` puts -1 at target dim ``dim``, a new leading dim with no size to keep."""

    shape: Shape
    sizes: Shape
    dim: int


@dataclass(frozen=True)
class NumpyBroadcastRefusal:
    """NumPy's ``broadcast_to(shape -> target)`` fails ``check``: "scalar" (a non-scalar to
    ``()``), "negative" (a size below 0), "ndim" (fewer target dims) or "mismatch"."""

    check: str
    shape: Shape
    target: Shape


@dataclass(frozen=True)
class NumpyAxisRefusal:
    """NumPy's axis checks of ``op`` on an ``ndim``-d array fail ``check``:

    - "bounds": ``axis`` is outside ``[-ndim, ndim)`` (NumPy's AxisError; ``prefix`` names
      the argument, "axis1", "source", ..., or is empty);
    - "repeated": ``axis`` is named twice (the text depends on ``op``);
    - "count": ``transpose`` got ``axis`` axes for ``ndim`` dims;
    - "length": ``moveaxis`` got source and destination of different lengths;
    - "squeeze": ``squeeze`` selected ``axis``, whose size is not 1.
    """

    check: str
    op: str
    ndim: int
    axis: int = 0
    prefix: str = ""


# ---------------------------------------------------------------- NumPy's reshape


@dataclass(frozen=True)
class NumpyReshapeRefusal:
    """NumPy's reshape of ``shape`` into ``target`` fails ``check``: "unknown" (more than one
    negative size) or "size" (the sizes do not multiply to ``numel``)."""

    check: str
    shape: Shape
    target: Shape
    numel: int


@dataclass(frozen=True)
class NoCopyRefusal:
    """``reshape(copy=False)``: ``shape``/``strides`` cannot be read in ``order`` as
    ``new_shape`` without a copy; ``refusal`` says which dims (a :class:`ReshapeRefusal` of
    the same rule, read in ``order``)."""

    shape: Shape
    strides: Shape
    new_shape: Shape
    order: str
    refusal: ReshapeRefusal | None


# ---------------------------------------------------------------- writes


@dataclass(frozen=True)
class InternalOverlap:
    """Several elements share one memory location: ``dims`` have size > 1 and stride 0
    (PyTorch's definite-overlap rule)."""

    dims: Shape


@dataclass(frozen=True)
class NotContiguous:
    """Why a layout is not dense in the asked order: dim ``dim`` has stride ``stride`` where
    ``expected`` continues the dims inside it (``order``: "C", "F" or "channels_last");
    ``dim`` is -1 when the order itself is impossible (channels_last of a non-4-d layout)."""

    order: str
    dim: int
    stride: int
    expected: int


@dataclass(frozen=True)
class CopyRequested:
    """The operation always copies (``clone``, ``copy=True``): ``op`` names it."""

    op: str


Refusal = (
    ReshapeRefusal | BroadcastMismatch | TooManyDims | NumelOverflow | MultipleInferred
    | InvalidSize | AmbiguousInferred | NumelMismatch | NegativeSize | DimOutOfRange
    | RepeatedDims | PermuteLength | MovedimLength | ZeroDimRefusal | IndexOutOfRange | ZeroStep
    | NarrowRefusal | SameDims | UnfoldRefusal | ExpandRefusal | ExpandTooFewSizes
    | ExpandNewDimInferred | NumpyBroadcastRefusal | NumpyAxisRefusal | NumpyReshapeRefusal | NoCopyRefusal
    | InternalOverlap | FlattenOrder | UnflattenRefusal | ChannelsLastRank
)
"""Every refusal the algebra decides (a plan returns one of these instead of a View or Copy)."""
