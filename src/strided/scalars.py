"""Where a Python number meets a tensor dtype: PyTorch's conversions, in one place.

PyTorch converts a Python scalar in one of three ways, depending on the op, and
strided follows it op by op (checked live against torch 2.13 in
``tests/test_write_integrity.py``):

- :func:`wrapped` (a "wrapped number"): arithmetic, comparisons, bitwise ops, ``scalar ** t``
  and ``copy_(number)``. Integers wrap modulo ``2**bits`` into an integer dtype (``uint8 + 300``
  adds 44), floats round (overflow gives inf).
- :func:`checked` (``c10::checked_convert``): clamp bounds, and ``t ** scalar`` for integer
  and float16 tensors. A value the dtype cannot hold is refused: "value cannot be converted
  to type uint8_t without overflow" (unsigned types still take ints down to ``-max``, which wrap).
- :func:`filled` (``fill_``): ``fill_``, ``full``, ``t[i] = number`` and ``where``'s scalar
  operands, which PyTorch first writes into a one-element tensor. As :func:`checked`, except
  that float16 is not checked when a single element is filled.

Before any of these, PyTorch's argument parser reads a Python int (:func:`parse_int`): a
``Scalar`` argument takes ints in ``[-2**63, 2**64)`` (those from ``2**63`` on as uint64, see
:func:`uint64_promotion_error`); ``t[i] = number`` takes int64 only.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .args import numpy_scalar  # noqa: F401 (re-exported: callers import it from here)
from .dtypes import (
    TORCH_NAME,
    DType,
    bfloat16,
    bool_,
    check_int64,
    float16,
    float32,
    float64,
    np_finfo,
    scalar_overflow,
)
from .errors import StridedOverflowError, StridedRuntimeError, join_lines
from .kernels.fpstate import quiet

Number = bool | int | float

INT64_MIN = -(2**63)
UINT64_END = 2**64  # one past the largest int PyTorch's parser takes (as uint64)
_I64_MAX = np.uint64(2**63 - 1)


def uint64_beyond_int64(x: Any) -> bool:
    """Whether ``x`` is a NumPy uint64 above int64's range: PyTorch's parser reads a NumPy integer
    as an int64 and refuses such a one (a Python int there is read as uint64 instead).

    >>> [bool(uint64_beyond_int64(v)) for v in (np.uint64(2**63), np.uint64(7), 2**63)]
    [True, False, False]
    """
    return type(x) is np.uint64 and x > _I64_MAX


class UInt64Scalar(int):
    """A Python int in ``[2**63, 2**64)``: PyTorch reads it as a uint64 wrapped number.

    A distinct type (not a flag) so that the ops' dtype caches, keyed by operand type, send it
    to the uncached path where :func:`uint64_promotion_error` runs; the common ints pay nothing.
    """

    __slots__ = ()


def parse_int(value: int, op: str) -> int:
    """PyTorch's parser for an int ``Scalar`` argument: ``[-2**63, 2**64)`` or OverflowError.

    Returns ``value``, as a :class:`UInt64Scalar` from ``2**63`` on.
    """
    if INT64_MIN <= value < 2**63:
        return value
    if 2**63 <= value < UINT64_END:
        return UInt64Scalar(value)
    first = "int too big to convert" if value > 0 else "can't convert negative int to unsigned"
    raise StridedOverflowError(
        join_lines(
            first,
            f"{op} was given the Python int {value}, outside [{INT64_MIN}, {UINT64_END - 1}]: "
            "PyTorch reads an int scalar as int64, or as uint64 from 2**63 on",
            "fix: pass it as a float (float(value)) if an approximate value will do",
        )
    )


def parse_setitem_int(value: int, op: str) -> None:
    """``t[i] = number`` reads an int as int64 only: "Overflow when unpacking long long" (ValueError)."""
    check_int64(value, op)




def uint64_promotion_error(first: Any, second: Any, op: str) -> StridedRuntimeError:
    """PyTorch's refusal to promote a uint64 scalar with an integer or bool dtype.

    ``first``/``second`` are DTypes or the string ``"UInt64"``, in PyTorch's order.
    """
    def name(d: Any) -> str:
        return d if isinstance(d, str) else TORCH_NAME[d.name]

    return StridedRuntimeError(
        join_lines(
            "Promotion for uint16, uint32, uint64 types is not supported, attempted to promote "
            f"{name(first)} and {name(second)}",
            f"{op}: a Python int from 2**63 on is a uint64 number to PyTorch, and uint64 promotes "
            "only with floating dtypes",
            "fix: pass it as a float (float(value)), or make the other operand a float tensor",
        )
    )


_F32_MAX = float(np.finfo(np.float32).max)


def wrapped(value: Number, dtype: DType) -> Any:
    """``value`` as a NumPy scalar of ``dtype``, converted as PyTorch converts a wrapped number:
    ints wrap modulo ``2**bits`` into integer dtypes, floats round (overflow to inf, silently)."""
    if value.__class__ is float and (dtype is float64 or (dtype is float32 and -_F32_MAX <= value <= _F32_MAX)):
        return dtype.numpy.type(value)  # (the common call: nothing overflows, no warning to quiet)
    np_type = dtype.numpy.type
    if dtype.kind == "c":
        with quiet():
            return np_type(complex(value))
    if isinstance(value, bool) or dtype is bool_:
        return np_type(bool(value))  # (a complex number's truth: either part nonzero, as PyTorch)
    if isinstance(value, complex):
        value = value.real  # (checked callers refused a nonzero imaginary part before)
    if dtype.kind in "iu":
        if isinstance(value, int):
            bits = dtype.itemsize * 8
            value = int(value) & ((1 << bits) - 1)
            if dtype.kind == "i" and value >= 1 << (bits - 1):
                value -= 1 << bits
        return np_type(value)
    if dtype.itemsize <= 4 and type(value) is int and not -_EXACT <= value <= _EXACT:
        # (c10::Scalar holds an int as int64 and converts it to float in one rounding; through
        # a float64 it would round twice: 2**60 + 2**36 + 1 is 2**60 + 2**37 in PyTorch, 2**60 so)
        value = int_to_float32(value)
    with quiet():  # 1e5 -> float16 overflows to inf silently, as in PyTorch
        if dtype.itemsize == 2:  # PyTorch rounds to float32 first (c10::Half(float), c10::BFloat16(float))
            return np_type(np.float32(float(value)))
        return np_type(float(value))


_EXACT = 2**53  # (an int no larger converts to float64 exactly, so to float32 in one rounding)


def int_to_float32(value: int) -> float:
    """``value`` rounded once to float32's 24 significant bits (to nearest, ties to even), as C's
    ``(float)`` of an int64 (a Python float holding it exactly; inf beyond float32's range).

    >>> int_to_float32(2**60 + 2**36 + 1) == 2**60 + 2**37
    True
    """
    magnitude = abs(value)
    shift = magnitude.bit_length() - 24
    if shift > 0:
        q, r = divmod(magnitude, 1 << shift)
        half = 1 << (shift - 1)
        if r > half or (r == half and q & 1):
            q += 1
        magnitude = q << shift
    if magnitude >= 2**128:
        return math.copysign(math.inf, value)
    return float(-magnitude if value < 0 else magnitude)


def checked(value: Number, dtype: DType, op: str, what: str = "the value") -> Any:
    """``value`` as a NumPy scalar of ``dtype`` after PyTorch's overflow check (c10::checked_convert).

    Raises PyTorch's RuntimeError ("value cannot be converted to type uint8_t without
    overflow") for a value ``dtype`` cannot hold; unsigned dtypes take ints down to ``-max``,
    which wrap (``uint8`` clamp at -5 is 251, as in PyTorch).
    """
    if value.__class__ is float and (dtype is float64 or (dtype is float32 and -_F32_MAX <= value <= _F32_MAX)):
        return dtype.numpy.type(value)  # (the common call, wrapped's first answer: nothing to check)
    message = scalar_overflow(value, dtype)
    if message is not None:
        raise _overflow_error(message, value, dtype, op, what)
    return wrapped(value, dtype)


def filled(value: Number, dtype: DType, op: str, numel: int, what: str = "the value") -> Any:
    """``value`` ready to be written into ``numel`` elements of ``dtype`` (PyTorch's ``fill_``).

    As :func:`checked`, except that PyTorch does not check float16 or bfloat16 when it fills a
    single element (a 0-d or one-element ``fill_``, ``where``'s scalars, ``t[i] = x``): 1e5 becomes
    inf in float16, 1e39 in bfloat16. Such a fill reads the value as a double first, so a complex
    value's imaginary part is refused in those words ("... to type double ...").
    """
    if (dtype is float16 or dtype is bfloat16) and numel == 1:
        if isinstance(value, (complex, np.complexfloating)) and value.imag:
            raise _overflow_error("value cannot be converted to type double without overflow", value, dtype, op, what)
        return wrapped(value, dtype)
    return checked(value, dtype, op, what)


def _overflow_error(message: str, value: Number, dtype: DType, op: str, what: str) -> StridedRuntimeError:
    if dtype.kind in "iu":
        info = np.iinfo(dtype.numpy)
        span = f"{dtype.name} holds whole numbers from {int(info.min)} to {int(info.max)}"
        if dtype.kind == "u":
            span += f" (Python ints down to -{int(info.max)} are accepted and wrap around)"
    else:
        span = f"{dtype.name} holds finite values up to {float(np_finfo(dtype.numpy).max):.6g}"
    return StridedRuntimeError(
        join_lines(
            message,
            f"{op} was given {value!r} as {what}; {span}",
            "fix: use a value in that range, or a wider dtype (t.to(strided.int64), t.to(strided.float64))",
        )
    )
