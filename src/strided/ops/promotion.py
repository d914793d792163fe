"""PyTorch's dtype promotion (``torch.result_type``), table-driven.

Two steps, as in PyTorch's ``ResultTypeState``:

1. ``promote_types(a, b)``: the lattice of the nine dtypes (:data:`_PROMOTE`),
   e.g. uint8 + int8 -> int16, int64 + float16 -> float16, bool + x -> x.
2. ``result_type(*operands)``: operands fall in three priority classes:
   tensors with dims, 0-d tensors, and Python scalars ("wrapped numbers"). Each
   class is promoted on its own, then a lower class only matters when it is of
   a higher *category* (bool < integer < floating) than the higher class:
   an int64 tensor times 2.5 is float32 (a Python float counts as the default
   float, float32), a float16 tensor plus a Python float stays float16, an int8
   tensor plus 1000 stays int8.

Ops that always produce floats (true division, exp, sqrt, ...) map an integer
or bool result type to the default float (:func:`to_float`).
"""

from __future__ import annotations

from typing import Any

from ..dtypes import (
    ALL_DTYPES,
    DEFAULT_FLOAT,
    TORCH_NAME,
    DType,
    bool_,
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
from ..errors import StridedTypeError, join_lines
from ..tensor import Tensor

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
assert len(_PROMOTE) == len(ALL_DTYPES) ** 2

# PyTorch's names of the dtypes ("Float", "Long", ...), keyed by DType: a view of the one name
# table, dtypes.TORCH_NAME, for the messages of the ops.
TORCH_NAMES = {d: TORCH_NAME[d.name] for d in ALL_DTYPES}

_DIM, _ZERO, _WRAPPED = 0, 1, 2  # priority classes, highest first

Operand = Any  # a Tensor or a Python bool/int/float


def promote_types(a: DType, b: DType) -> DType:
    """The smallest dtype both ``a`` and ``b`` convert to safely (``torch.promote_types``)."""
    return _PROMOTE[(to_dtype(a), to_dtype(b))]


def _category(d: DType | None) -> int:
    if d is None:
        return -1
    return 2 if d.is_floating_point else (0 if d is bool_ else 1)


def _combine(higher: DType | None, lower: DType | None) -> DType | None:
    """PyTorch's ``combine_categories``: a lower class wins only through a higher category."""
    if higher is None:
        return lower
    if lower is None or higher.is_floating_point:
        return higher
    if higher is bool_ or lower.is_floating_point:
        return _PROMOTE[(higher, lower)]
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
            f"result_type: expected a strided.Tensor or a Python bool/int/float, but got "
            f"{type(x).__name__}"
        )
    return _WRAPPED, d


def result_type_of_classes(classes: tuple[tuple[int, DType], ...]) -> DType:
    """``result_type`` over precomputed (priority class, dtype) pairs."""
    state: list[DType | None] = [None, None, None]
    for cls, d in classes:
        cur = state[cls]
        state[cls] = d if cur is None else _PROMOTE[(cur, d)]
    out = _combine(state[_DIM], _combine(state[_ZERO], state[_WRAPPED]))
    assert out is not None
    return out


_cache: dict[tuple[tuple[int, DType], ...], DType] = {}


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
    """``d`` if floating, else the default float (float32): true division, exp, sqrt, ..."""
    return d if d.is_floating_point else DEFAULT_FLOAT


def can_cast(from_: DType, to: DType) -> bool:
    """PyTorch's ``canCast`` for in-place results: no float -> integer, nothing non-bool -> bool."""
    if from_.is_floating_point and not to.is_floating_point:
        return False
    if from_ is not bool_ and to is bool_:
        return False
    return True
