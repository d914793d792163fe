"""PyTorch's dtype promotion lattice (``torch.promote_types``): the table of pairs, below the ops
so that ``tensor()`` can promote the dtypes inside its data too; :mod:`strided.ops._support.promotion`
builds ``result_type`` (priority classes, categories) over it."""

from __future__ import annotations

from .dtypes import (
    ALL_DTYPES,
    TORCH_NAME,
    UNSIGNED_WIDE,
    DType,
    bfloat16,
    bool_,
    complex64,
    complex128,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    to_dtype,
    uint8,
)
from .errors import StridedRuntimeError, join_lines

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
