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
from dataclasses import Field, FrozenInstanceError, dataclass
from typing import Any, TypeVar, dataclass_transform

# The shape alias lives here (not in core): refusals are imported by core, and core by everyone.
Shape = tuple[int, ...]

# The limits the refusals name (TooManyDims, NumelOverflow, ...), here so that the layout algebra
# that enforces them and the messages that quote them read one definition.
# Note: PyTorch allows more dims; strided computes through NumPy, whose arrays (and so every
# kernel) stop at 64 dims, so a layout with more is refused where it is made, not at first use.
MAX_DIMS = 64
INT64_MAX = 2**63 - 1  # sizes, strides, offsets, numel and byte extents are int64, as in PyTorch


class _Frozen:
    """The base of the refusal values: the methods ``@dataclass(frozen=True)`` would generate for
    each class (``__init__``, ``__repr__``, ``__eq__``, ``__hash__``, the frozen ``__setattr__``
    and ``__delattr__``), written once here and driven by the fields. Generating them (``exec``
    of each method's source, six per class) cost ~20 ms of ``import strided``; the results are
    the same: the repr, equality, hash and ``FrozenInstanceError`` texts, pickling, ``replace``,
    ``fields`` and ``__match_args__`` (tests/test_refusal_values.py compares every class with a
    real frozen dataclass of its fields)."""

    __slots__ = ()
    _fields: tuple[str, ...] = ()
    _defaults: dict[str, Any] = {}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        names = self._fields
        where = f"{type(self).__qualname__}.__init__()"
        if len(args) > len(names):
            low = len(names) - len(self._defaults) + 1
            takes = f"from {low} to {len(names) + 1}" if low <= len(names) else f"{len(names) + 1}"
            raise TypeError(f"{where} takes {takes} positional arguments but {len(args) + 1} were given")
        values = dict(zip(names, args))
        for name, value in kwargs.items():
            if name not in names:
                raise TypeError(f"{where} got an unexpected keyword argument {name!r}")
            if name in values:
                raise TypeError(f"{where} got multiple values for argument {name!r}")
            values[name] = value
        if len(values) < len(names):
            defaults = self._defaults
            missing = [n for n in names if n not in values and n not in defaults]
            if missing:
                quoted = [repr(n) for n in missing]  # (Python's wording: 'a', 'b', and 'c')
                listed = quoted[0] if len(quoted) == 1 else " and ".join(quoted) if len(quoted) == 2 \
                    else ", ".join(quoted[:-1]) + ", and " + quoted[-1]
                raise TypeError(f"{where} missing {len(missing)} required positional argument"
                                f"{'s' if len(missing) > 1 else ''}: {listed}")
            values = {n: values[n] if n in values else defaults[n] for n in names}
        put = object.__setattr__
        for name in names:
            put(self, name, values[name])

    def _values(self) -> tuple:
        return tuple([getattr(self, n) for n in self._fields])

    def __repr__(self) -> str:
        inner = ", ".join([f"{n}={getattr(self, n)!r}" for n in self._fields])
        return f"{self.__class__.__qualname__}({inner})"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return self._values() == other._values()  # type: ignore[attr-defined]
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._values())

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")


_C = TypeVar("_C", bound=type)


class _DataclassPart:
    """``__dataclass_fields__`` / ``__dataclass_params__`` of a refusal class, made on first use.

    ``dataclasses.fields``, ``replace``, ``asdict`` and ``is_dataclass`` read these attributes
    (``getattr``/``hasattr`` on the class or an instance); the first read runs the real
    ``@dataclass(init=False, repr=False, eq=False)`` on the class, which stores both in the
    class itself (shadowing this descriptor), so every later read is a plain attribute. Doing it
    at import cost ~1 ms and ~250 objects (``Field`` objects, dicts) that the collector walks at
    every full collection and at exit, for values almost no program reads. A class that is not a
    refusal (``_Frozen`` itself) has none: ``AttributeError``, as for a class that is no
    dataclass; a subclass of a refusal inherits its refusal's, as it would a dataclass's."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, instance: Any, owner: type) -> Any:
        for cls in owner.__mro__:
            if cls is _Frozen:
                break
            if "_fields" in cls.__dict__:  # (the nearest class made by _refusal)
                if self.name not in cls.__dict__:
                    dataclass(init=False, repr=False, eq=False)(cls)  # (stores both attributes in cls)
                return cls.__dict__[self.name]
        raise AttributeError(self.name)


_Frozen.__dataclass_fields__ = _DataclassPart("__dataclass_fields__")  # type: ignore[attr-defined]
_Frozen.__dataclass_params__ = _DataclassPart("__dataclass_params__")  # type: ignore[attr-defined]


@dataclass_transform(frozen_default=True)  # (type checkers: a frozen dataclass of its fields)
def _refusal(cls: _C) -> _C:
    """Decorator: ``cls`` (a direct subclass of :class:`_Frozen`) as a dataclass of its annotated
    fields (``fields``, ``replace``, ``__match_args__``) whose methods are :class:`_Frozen`'s.
    The fields are read off the class's own annotations, in order (a field's default: its class
    attribute), as ``@dataclass`` reads them; the ``dataclasses`` attributes are made on first
    use (:class:`_DataclassPart`)."""
    own = cls.__dict__.get("__annotations__", {})
    defaults = {n: cls.__dict__[n] for n in own if n in cls.__dict__}
    if cls.__bases__ != (_Frozen,) or any(isinstance(v, Field) for v in defaults.values()) or any(
            "ClassVar" in str(a) or "InitVar" in str(a) for a in own.values()):
        raise TypeError(f"_refusal: {cls.__qualname__} needs the full @dataclass treatment")  # (none does)
    cls._fields = tuple(own)  # type: ignore[attr-defined]
    cls._defaults = defaults  # type: ignore[attr-defined]
    cls.__match_args__ = cls._fields  # type: ignore[attr-defined]  # (what @dataclass sets)
    return cls


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


@_refusal
class ReshapeRefusal(_Frozen):
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


@_refusal
class BroadcastMismatch(_Frozen):
    """Why two shapes do not broadcast: at result dim ``dim`` (aligned right) the sizes
    ``size_a`` and ``size_b`` differ and neither is 1."""

    dim: int
    size_a: int
    size_b: int


@_refusal
class TooManyDims(_Frozen):
    """A result would have ``ndim`` dims, more than ``MAX_DIMS``; ``op`` names what would."""

    ndim: int
    op: str


@_refusal
class LayoutRefusal(_Frozen):
    """``(shape, strides, offset)`` breaks the Layout invariant ``rule`` (``layout.check_layout``):

    - ``"length"``: ``len(shape) != len(strides)``;
    - ``"int64"``: ``what`` (``"size"`` or ``"stride"``) ``[index]`` does not fit in int64;
    - ``"size"``: ``shape[index]`` is negative;
    - ``"offset_int64"``, ``"offset"``: the offset does not fit in int64, or is negative;
    - ``"reach"``: the negative strides walk back to storage index ``low`` < 0;
    - ``"bytes"``: the highest element ``high`` puts the byte extent past int64;
    - ``"storage"``: the highest element ``high`` lies past a storage of ``storage_size``;
    - ``"negative_stride"``: ``as_strided`` was given a negative stride (PyTorch refuses them);
    - ``"size_overflow"``: ``as_strided`` was given a negative size (and no zero one): PyTorch's
      storage-size computation refuses it first.
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


@_refusal
class NumelOverflow(_Frozen):
    """A result of ``shape`` would hold more elements than int64 counts; ``op`` names it."""

    shape: Shape
    op: str


@_refusal
class StrideOverflow(_Frozen):
    """Dense strides for ``shape`` (row-major, or the ``order`` named) do not fit in int64:
    ``dim``'s stride would be ``stride``. Only a shape with a 0 gets here (a numel that fits
    bounds every stride of a non-empty shape)."""

    shape: Shape
    dim: int
    stride: int
    order: str = "contiguous"


@_refusal
class MultipleInferred(_Frozen):
    """A requested ``shape`` holds more than one -1."""

    shape: Shape


@_refusal
class InvalidSize(_Frozen):
    """Entry ``index`` of a requested ``shape`` is ``size``: below -1 (``numel``: the elements)."""

    shape: Shape
    index: int
    size: int
    numel: int


@_refusal
class AmbiguousInferred(_Frozen):
    """A -1 at ``index`` of ``shape`` next to a 0: any size would do."""

    shape: Shape
    index: int


@_refusal
class NumelMismatch(_Frozen):
    """A requested ``shape`` holds ``known`` elements (times the inferred dim when
    ``inferred``), the layout ``numel``."""

    shape: Shape
    numel: int
    known: int
    inferred: bool


@_refusal
class NegativeSize(_Frozen):
    """Target dim ``dim`` of ``sizes`` asks for the negative size ``size``."""

    sizes: Shape
    dim: int
    size: int


@_refusal
class FlattenOrder(_Frozen):
    """``flatten(start_dim, end_dim)`` of ``shape`` where ``start`` (wrapped) comes after ``end``."""

    shape: Shape
    start_dim: object
    end_dim: object
    start: int
    end: int


@_refusal
class UnflattenRefusal(_Frozen):
    """``unflatten(dim, sizes)`` of ``shape`` fails ``check``: "empty" (no sizes), "zero_dim"
    (a 0-d layout) or "product" (the sizes do not make dim ``wrapped``'s size)."""

    check: str
    shape: Shape
    dim: object
    wrapped: int
    sizes: Shape


@_refusal
class ChannelsLastRank(_Frozen):
    """channels_last (or channels_last_3d: ``format``) asked of a layout of ``shape``, which is
    not 4-d (5-d)."""

    shape: Shape
    format: str = "channels_last"


# ---------------------------------------------------------------- dims and indices


@_refusal
class DimOutOfRange(_Frozen):
    """``dim`` names no dim of an ``ndim``-d layout (a 0-d layout accepts 0 and -1)."""

    dim: int
    ndim: int


@_refusal
class RepeatedDims(_Frozen):
    """``op``'s dims ``given`` name one dim more than once (``wrapped``: after wrapping)."""

    op: str
    given: tuple[object, ...]
    wrapped: Shape


@_refusal
class PermuteLength(_Frozen):
    """``permute`` got ``len(dims)`` dims for a layout of ``shape``."""

    shape: Shape
    dims: tuple[object, ...]


@_refusal
class MovedimLength(_Frozen):
    """``movedim(source, destination)`` with different numbers of dims on the two sides."""

    source: tuple[object, ...]
    destination: tuple[object, ...]


@_refusal
class ZeroDimRefusal(_Frozen):
    """``op`` needs a dim and the layout is 0-d."""

    op: str


@_refusal
class IndexOutOfRange(_Frozen):
    """``select``: ``index`` is outside dim ``dim`` of ``shape`` (size ``size``)."""

    shape: Shape
    dim: int
    index: int
    size: int


@_refusal
class ZeroStep(_Frozen):
    """A slice of dim ``dim`` (size ``size``) with step 0."""

    dim: int
    size: int


@_refusal
class NarrowRefusal(_Frozen):
    """``narrow(dim, start, length)`` on ``shape`` fails ``check``: "length" (negative),
    "start" (outside ``[-size, size]``) or "end" (``start + length > size``); ``dim`` is as given
    for "length" and wrapped otherwise, ``start`` wrapped for "end"."""

    check: str
    shape: Shape
    dim: int
    start: int
    length: int


@_refusal
class SameDims(_Frozen):
    """``diagonal(offset, dim1, dim2)`` where both name dim ``dim`` of ``shape``."""

    shape: Shape
    offset: int
    dim1: object
    dim2: object
    dim: int


@_refusal
class UnfoldRefusal(_Frozen):
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


@_refusal
class ExpandRefusal(_Frozen):
    """``expand(sizes)`` of ``shape``: tensor dim ``tensor_dim`` (target dim ``dim``) has
    ``size``, not 1, and the target asks for ``target``."""

    shape: Shape
    sizes: Shape
    dim: int
    tensor_dim: int
    size: int
    target: int


@_refusal
class ExpandTooFewSizes(_Frozen):
    """``expand(sizes)`` names fewer sizes than ``shape`` has dims."""

    shape: Shape
    sizes: Shape


@_refusal
class ExpandNewDimInferred(_Frozen):
    """``expand(sizes)`` puts -1 at target dim ``dim``, a new leading dim with no size to keep."""

    shape: Shape
    sizes: Shape
    dim: int


@_refusal
class NumpyBroadcastRefusal(_Frozen):
    """NumPy's ``broadcast_to(shape -> target)`` fails ``check``: "scalar" (a non-scalar to
    ``()``), "negative" (a size below 0), "ndim" (fewer target dims) or "mismatch"."""

    check: str
    shape: Shape
    target: Shape


@_refusal
class NumpyAxisRefusal(_Frozen):
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


@_refusal
class NumpyReshapeRefusal(_Frozen):
    """NumPy's reshape of ``shape`` into ``target`` fails ``check``: "unknown" (more than one
    negative size) or "size" (the sizes do not multiply to ``numel``)."""

    check: str
    shape: Shape
    target: Shape
    numel: int


@_refusal
class NoCopyRefusal(_Frozen):
    """``reshape(copy=False)``: ``shape``/``strides`` cannot be read in ``order`` as
    ``new_shape`` without a copy; ``refusal`` says which dims (a :class:`ReshapeRefusal` of
    the same rule, read in ``order``)."""

    shape: Shape
    strides: Shape
    new_shape: Shape
    order: str
    refusal: ReshapeRefusal | None


# ---------------------------------------------------------------- writes


@_refusal
class InternalOverlap(_Frozen):
    """Several elements share one memory location: ``dims`` have size > 1 and stride 0
    (PyTorch's definite-overlap rule)."""

    dims: Shape


@_refusal
class NotContiguous(_Frozen):
    """Why a layout is not dense in the asked order: dim ``dim`` has stride ``stride`` where
    ``expected`` continues the dims inside it (``order``: "C", "F" or "channels_last");
    ``dim`` is -1 when the order itself is impossible (channels_last of a non-4-d layout)."""

    order: str
    dim: int
    stride: int
    expected: int


@_refusal
class CopyRequested(_Frozen):
    """The operation always copies (``clone``, ``copy=True``): ``op`` names it."""

    op: str


Refusal = (
    ReshapeRefusal | BroadcastMismatch | TooManyDims | NumelOverflow | StrideOverflow | MultipleInferred
    | InvalidSize | AmbiguousInferred | NumelMismatch | NegativeSize | DimOutOfRange
    | RepeatedDims | PermuteLength | MovedimLength | ZeroDimRefusal | IndexOutOfRange | ZeroStep
    | NarrowRefusal | SameDims | UnfoldRefusal | ExpandRefusal | ExpandTooFewSizes
    | ExpandNewDimInferred | NumpyBroadcastRefusal | NumpyAxisRefusal | NumpyReshapeRefusal | NoCopyRefusal
    | InternalOverlap | FlattenOrder | UnflattenRefusal | ChannelsLastRank
)
"""Every refusal the algebra decides (a plan returns one of these instead of a View or Copy)."""
