"""Data type functions of the standard: ``astype``, ``can_cast``, ``finfo``, ``iinfo``, ``isdtype``,
``result_type``, with the standard's promotion table.

The standard's table promotes within a kind (signed, unsigned, real floating, complex) to the
wider type, signed with unsigned to the signed type that holds both (uint8 + int8 -> int16),
and real floating with complex to the complex type of the wider precision. Pairs outside the
table (int with float, bool with numbers, uint64 with a signed int) are refused here.

# Note: strided's Tensor operators keep PyTorch's promotion (``int32_tensor + float32_tensor`` is
float32), which agrees with this table on every pair the table defines.

>>> import strided.array_api as xp
>>> xp.result_type(xp.uint8, xp.int8)
strided.int16
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..dtypes import (
    DType,
    bool_,
    complex64,
    complex128,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    np_finfo,
    to_dtype,
    uint8,
    uint16,
    uint32,
    uint64,
)
from ..errors import StridedTypeError, StridedValueError, join_lines
from ..tensor import Tensor

__all__ = ["astype", "can_cast", "finfo", "iinfo", "isdtype", "result_type", "DTYPES"]

DTYPES = (bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float32, float64, complex64, complex128)
_SIGNED = (int8, int16, int32, int64)
_UNSIGNED = (uint8, uint16, uint32, uint64)
_REAL = (float32, float64)
_COMPLEX = (complex64, complex128)


def _table() -> dict[tuple[DType, DType], DType]:
    table: dict[tuple[DType, DType], DType] = {(bool_, bool_): bool_}
    for kind in (_SIGNED, _UNSIGNED, _REAL, _COMPLEX):
        for a in kind:
            for b in kind:
                table[a, b] = a if a.itemsize >= b.itemsize else b
    for u in _UNSIGNED[:3]:  # signed with unsigned: the smallest signed type holding both
        for i in _SIGNED:
            wide = next(s for s in _SIGNED if s.itemsize > u.itemsize)
            table[u, i] = table[i, u] = i if i.itemsize >= wide.itemsize else wide
    for f in _REAL:
        for c in _COMPLEX:
            table[f, c] = table[c, f] = complex128 if max(f.itemsize * 2, c.itemsize) == 16 else complex64
    return table


PROMOTION = _table()


def promote(a: DType, b: DType) -> DType:
    """The standard's promotion of two dtypes; TypeError for a pair outside its table."""
    found = PROMOTION.get((a, b))
    if found is None:
        raise StridedTypeError(
            join_lines(f"result_type: {a.name} and {b.name} have no promotion in the Array API standard",
                       "the standard promotes within a kind (bool, signed, unsigned, real, complex), "
                       "signed with unsigned up to int64, and real with complex; convert one side first "
                       "with astype(x, dtype)"))
    return found


def _scalar_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "b"
    if isinstance(value, int):
        return "i"
    if isinstance(value, float):
        return "f"
    if isinstance(value, complex):
        return "c"
    raise StridedTypeError(
        f"result_type(): expected arrays, dtypes or Python scalars, but got {type(value).__name__}")


def result_type(*arrays_and_dtypes: Any) -> DType:
    """The dtype the standard gives an operation over arrays, dtypes and Python scalars.

    Python scalars are "weak": they take the arrays' dtype when their kind fits (an int with an
    int or float array, a float with a float or complex one, a complex with a complex one) and
    ``float`` with an integer array is refused, as the standard leaves it undefined.

    >>> result_type(xp.float32, xp.complex64, 1.0)
    strided.complex64
    """
    dtypes = []
    scalars = []
    for x in arrays_and_dtypes:
        if isinstance(x, Tensor):
            dtypes.append(x.dtype)
        elif isinstance(x, DType):
            dtypes.append(x)
        elif isinstance(x, (bool, int, float, complex)):
            scalars.append(x)
        else:
            dtypes.append(to_dtype(x))
    if not dtypes:
        raise StridedValueError(
            join_lines("result_type() needs at least one array or dtype",
                       "Python scalars alone have no dtype in the standard: pass an array or dtype too"))
    out = dtypes[0]
    for d in dtypes[1:]:
        out = promote(out, d)
    for s in scalars:
        kind = _scalar_kind(s)
        if kind == "b" and out.kind != "b" or kind != "b" and out.kind == "b":
            raise StridedTypeError(f"result_type(): a Python {type(s).__name__} does not mix with {out.name}")
        if kind == "f" and out.kind in "iu":
            raise StridedTypeError(f"result_type(): a Python float does not mix with {out.name}")
        if kind == "c" and out.kind in "iu":
            raise StridedTypeError(f"result_type(): a Python complex does not mix with {out.name}")
        if kind == "c" and out.kind == "f":
            out = complex64 if out is float32 else complex128
    return out


def can_cast(from_: Any, to: Any, /) -> bool:
    """Whether ``from_`` (a dtype or an array) casts to ``to`` under the standard's promotion
    rules: ``result_type(from_, to) == to``.

    >>> can_cast(xp.int8, xp.int16), can_cast(xp.float64, xp.float32)
    (True, False)
    """
    src = from_.dtype if isinstance(from_, Tensor) else to_dtype(from_)
    dst = to_dtype(to)
    return PROMOTION.get((src, dst)) is dst


def astype(x: Tensor, dtype: Any, /, *, copy: bool = True, device: Any = None) -> Tensor:
    """``x`` converted to ``dtype``: a new array when ``copy`` (the default), else ``x`` itself
    when it already has that dtype.

    >>> astype(xp.asarray([1.7, -1.7]), xp.int32)
    tensor([ 1, -1], dtype=strided.int32)
    """
    from ._core import device_arg

    device_arg(device, "astype")
    target = to_dtype(dtype)
    if not copy and target is x.dtype:
        return x
    return x.to(target, copy=True)


@dataclass(frozen=True)
class finfo_object:  # noqa: N801 - the standard's name for finfo's result
    """Machine limits of a floating-point dtype: ``bits``, ``eps``, ``max``, ``min``,
    ``smallest_normal`` (Python floats) and ``dtype`` (the real floating type)."""

    bits: int
    eps: float
    max: float
    min: float
    smallest_normal: float
    dtype: DType


@dataclass(frozen=True)
class iinfo_object:  # noqa: N801 - the standard's name for iinfo's result
    """Limits of an integer dtype: ``bits``, ``max``, ``min`` (Python ints) and ``dtype``."""

    bits: int
    max: int
    min: int
    dtype: DType


def _dtype_of(type: Any) -> DType:  # noqa: A002 - the standard's name
    return type.dtype if isinstance(type, Tensor) else to_dtype(type)


def finfo(type: Any, /) -> finfo_object:  # noqa: A002 - the standard's name
    """Machine limits of a floating-point dtype (or an array's); a complex dtype reports its parts.

    >>> finfo(xp.float32).bits
    32
    """
    d = _dtype_of(type)
    if d.kind not in "fc":
        raise StridedValueError(f"finfo(): {d.name} is not a floating-point dtype; use iinfo() for integers")
    info = np_finfo(d.numpy)
    real = float32 if d in (float32, complex64) else float64
    return finfo_object(int(info.bits), float(info.eps), float(info.max), float(info.min),
                        float(info.smallest_normal), real)


def iinfo(type: Any, /) -> iinfo_object:  # noqa: A002 - the standard's name
    """Limits of an integer dtype (or an array's).

    >>> iinfo(xp.int8).min
    -128
    """
    d = _dtype_of(type)
    if d.kind not in "iu":
        raise StridedValueError(f"iinfo(): {d.name} is not an integer dtype; use finfo() for floating point")
    info = np.iinfo(d.numpy)
    return iinfo_object(int(info.bits), int(info.max), int(info.min), d)


_KINDS = {
    "bool": "b", "signed integer": "i", "unsigned integer": "u", "integral": "iu",
    "real floating": "f", "complex floating": "c", "numeric": "iufc",
}


def isdtype(dtype: Any, kind: Any) -> bool:
    """Whether ``dtype`` is of ``kind``: a dtype, a kind name ("bool", "signed integer",
    "unsigned integer", "integral", "real floating", "complex floating", "numeric") or a tuple.

    >>> isdtype(xp.float32, ("integral", "real floating"))
    True
    """
    if not isinstance(dtype, DType):
        raise StridedTypeError(f"isdtype(): expected a dtype, got {type(dtype).__name__}")
    if isinstance(kind, tuple):
        return any(isdtype(dtype, k) for k in kind)
    if isinstance(kind, str):
        kinds = _KINDS.get(kind)
        if kinds is None:
            raise StridedValueError(f"isdtype(): unknown kind {kind!r}; known: {', '.join(map(repr, _KINDS))}")
        return dtype.kind in kinds
    return dtype is to_dtype(kind)
