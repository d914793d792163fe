"""PyTorch's dtype promotion (``torch.result_type``), table-driven.

Two steps, as in PyTorch's ``ResultTypeState``:

1. ``promote_types(a, b)``: the lattice of the nine core dtypes (:data:`_TABLE`),
   e.g. uint8 + int8 -> int16, int64 + float16 -> float16, bool + x -> x; complex
   above floating (float64 + complex64 -> complex128); uint16/32/64 promote only with
   themselves and the floating dtypes (PyTorch 2.13's RuntimeError otherwise).
2. ``result_type(*operands)``: operands fall in three priority classes:
   tensors with dims, 0-d tensors, and Python scalars ("wrapped numbers"). Each
   class is promoted on its own, then a lower class only matters when it is of
   a higher *category* (bool < integer < floating < complex) than the higher class:
   an int64 tensor times 2.5 is float32 (a Python float counts as the default
   float, float32), a float16 tensor plus a Python float stays float16, an int8
   tensor plus 1000 stays int8. A complex lower class keeps a floating higher class's
   width: a float64 tensor times ``1j`` is complex128, a float32 one complex64.

Ops that always produce floats (true division, exp, sqrt, ...) map an integer
or bool result type to the default float (:func:`to_float`).
"""

from __future__ import annotations

from typing import Any

from ...dtypes import (
    ALL_DTYPES,
    TORCH_NAME,
    UNSIGNED_WIDE,
    DType,
    bfloat16,
    bool_,
    complex64,
    complex128,
    default_dependent,
    default_float,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    scalar_dtype,
    to_dtype,
    uint8,
)
from ...errors import StridedRuntimeError, StridedTypeError, join_lines
from ...tensor import Tensor

# PyTorch's promoteTypes table, rows and columns in this order.
_ORDER = (uint8, int8, int16, int32, int64, float16, float32, float64, bool_)
_u1, _i1, _i2, _i4, _i8, _f2, _f4, _f8, _b1 = _ORDER
_TABLE = (
    #  u1   i1   i2   i4   i8   f2   f4   f8   b1
    (_u1, _i2, _i2, _i4, _i8, _f2, _f4, _f8, _u1),  # u1
    (_i2, _i1, _i2, _i4, _i8, _f2, _f4, _f8, _i1),  # i1
    (_i2, _i2, _i2, _i4, _i8, _f2, _f4, _f8, _i2),  # i2
    (_i4, _i4, _i4, _i4, _i8, _f2, _f4, _f8, _i4),  # i4
    (_i8, _i8, _i8, _i8, _i8, _f2, _f4, _f8, _i8),  # i8
    (_f2, _f2, _f2, _f2, _f2, _f2, _f4, _f8, _f2),  # f2
    (_f4, _f4, _f4, _f4, _f4, _f4, _f4, _f8, _f4),  # f4
    (_f8, _f8, _f8, _f8, _f8, _f8, _f8, _f8, _f8),  # f8
    (_u1, _i1, _i2, _i4, _i8, _f2, _f4, _f8, _b1),  # b1
)
_PROMOTE: dict[tuple[DType, DType], DType] = {
    (a, b): _TABLE[i][j] for i, a in enumerate(_ORDER) for j, b in enumerate(_ORDER)
}
_COMPLEX_OF = {float16: complex64, bfloat16: complex64, float32: complex64, float64: complex128,
               complex64: complex64, complex128: complex128}  # (no complex32: see _complex_of)


def _complex_of(d: DType) -> DType:
    """PyTorch's ``toComplexType``; # Note: float16 gives complex64 (PyTorch: complex32, which
    strided lacks, as NumPy does)."""
    return _COMPLEX_OF[d]


# The complex rows (PyTorch's table): complex with any bool/integer/float dtype is complex, wide
# enough for both parts (complex64 with float64 is complex128). uint16/32/64: only with
# themselves and the floating dtypes (the float); the pairs left out refuse (promote_types).
for _c in (complex64, complex128):
    for _d in (*_ORDER, complex64, complex128):
        _w = complex128 if complex128 in (_c, _d) or _d is float64 else complex64
        _PROMOTE[(_c, _d)] = _PROMOTE[(_d, _c)] = _w
# bfloat16 (not in PyTorch's 9-dtype lattice above: a row of its own): with bool or an integer it
# stays bfloat16, with float16 (neither holds the other) float32, with a wider float that float.
_PROMOTE[(bfloat16, bfloat16)] = bfloat16
for _d in _ORDER:
    _PROMOTE[(bfloat16, _d)] = _PROMOTE[(_d, bfloat16)] = (
        _d if _d in (float32, float64) else float32 if _d is float16 else bfloat16)
for _c in (complex64, complex128):
    _PROMOTE[(bfloat16, _c)] = _PROMOTE[(_c, bfloat16)] = _c
for _u in UNSIGNED_WIDE:
    _PROMOTE[(_u, _u)] = _u
    for _f in (float16, float32, float64, bfloat16):
        _PROMOTE[(_u, _f)] = _PROMOTE[(_f, _u)] = _f
# every pair but a wide unsigned with one of the 10 others that are not floating (both orders,
# the 6 pairs of two wide unsigned counted once)
assert len(_PROMOTE) == len(ALL_DTYPES) ** 2 - (2 * 3 * 10 - 6)

# PyTorch's names of the dtypes ("Float", "Long", ...), keyed by DType: a view of the one name
# table, dtypes.TORCH_NAME, for the messages of the ops.
TORCH_NAMES = {d: TORCH_NAME[d.name] for d in ALL_DTYPES}

_DIM, _ZERO, _WRAPPED = 0, 1, 2  # priority classes, highest first

Operand = Any  # a Tensor or a Python bool/int/float


def promote_types(a: DType, b: DType) -> DType:
    """The smallest dtype both ``a`` and ``b`` convert to safely (``torch.promote_types``).

    >>> promote_types(strided.float64, strided.complex64)
    strided.complex128
    """
    return _promote(to_dtype(a), to_dtype(b))


def _promote(a: DType, b: DType) -> DType:
    found = _PROMOTE.get((a, b))
    if found is None:
        raise unsigned_promotion_error(a, b)
    return found


def unsigned_promotion_error(a: DType, b: DType) -> StridedRuntimeError:
    """PyTorch's refusal to promote uint16/32/64 with another non-floating dtype."""
    return StridedRuntimeError(
        join_lines(
            "Promotion for uint16, uint32, uint64 types is not supported, attempted to promote "
            f"{TORCH_NAMES[a]} and {TORCH_NAMES[b]}",
            f"{a.name} and {b.name} have no common dtype in PyTorch 2.13: uint16, uint32 and uint64 "
            "promote only with themselves and the floating dtypes",
            f"fix: convert one operand first, e.g. x.to(strided.int64) or x.to(strided.{b.name})",
        )
    )


def _combine(higher: DType | None, lower: DType | None) -> DType | None:
    """PyTorch's ``combine_categories``: a lower class wins only through a higher category."""
    if higher is None:
        return lower
    if lower is None or higher.is_complex:
        return higher
    if lower.is_complex:  # a floating higher class keeps its width: float64 * 1j is complex128
        return _complex_of(higher) if higher.is_floating_point else lower
    if higher.is_floating_point:
        return higher
    if higher is bool_ or lower.is_floating_point:
        return _promote(higher, lower)
    return higher


def operand_class(x: Operand) -> tuple[int, DType]:
    """(priority class, dtype) of one operand; TypeError for anything but tensors and scalars."""
    if isinstance(x, Tensor):
        return (_DIM if x._layout.shape else _ZERO), x._dtype
    d = scalar_dtype(x)
    if d is None:
        if isinstance(x, DType):
            return _DIM, x
        raise StridedTypeError(
            f"result_type: expected a strided.Tensor or a Python bool/int/float/complex, but got "
            f"{type(x).__name__}"
        )
    return _WRAPPED, d


def result_type_of_classes(classes: tuple[tuple[int, DType], ...]) -> DType:
    """``result_type`` over precomputed (priority class, dtype) pairs."""
    state: list[DType | None] = [None, None, None]
    for cls, d in classes:
        cur = state[cls]
        state[cls] = d if cur is None else _promote(cur, d)
    out = _combine(state[_DIM], _combine(state[_ZERO], state[_WRAPPED]))
    assert out is not None
    return out


_cache: dict[tuple[tuple[int, DType], ...], DType] = default_dependent({})  # (a scalar's class: the default dtype)


def result_type(*operands: Operand) -> DType:
    """The dtype PyTorch gives an op over ``operands`` (``torch.result_type``, any number of them).

    Operands are strided tensors, Python bool/int/float scalars, or DTypes
    (which count as tensors with dims).

    # Note: torch.result_type takes exactly two operands, and no dtypes; ours takes any
    # number (as ``torch.where``/``clamp`` promote three) and accepts DTypes. A 0-d tensor has lower priority than a
    tensor with dims, and a Python scalar lower still; a lower-priority operand
    only changes the result when it is of a higher category (bool < int < float).

    >>> result_type(strided.tensor([1, 2]), 2.5)
    strided.float32
    """
    if not operands:
        raise StridedTypeError(
            join_lines(
                "result_type() needs at least one operand",
                "pass the tensors and Python numbers an op would combine, "
                "e.g. strided.result_type(x, 2.5)",
            )
        )
    key = tuple(operand_class(x) for x in operands)
    found = _cache.get(key)
    if found is None:
        found = _cache[key] = result_type_of_classes(key)
    return found


def to_float(d: DType) -> DType:
    """``d`` if floating or complex, else the default float (float32 unless set_default_dtype
    changed it): true division, exp, sqrt, ..."""
    return d if d.is_floating_point or d.is_complex else default_float()


def can_cast(from_: DType, to: DType) -> bool:
    """PyTorch's ``canCast`` for in-place results: no complex -> non-complex, no float -> integer,
    nothing non-bool -> bool."""
    if from_.is_complex and not to.is_complex:
        return False
    if from_.is_floating_point and not (to.is_floating_point or to.is_complex):
        return False
    if from_ is not bool_ and to is bool_:
        return False
    return True
