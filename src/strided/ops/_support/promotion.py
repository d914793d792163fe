"""PyTorch's dtype promotion (``torch.result_type``), table-driven.

Two steps, as in PyTorch's ``ResultTypeState``:

1. ``promote_types(a, b)``: the lattice of the nine core dtypes (:mod:`strided.dtype_promotion`),
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

from ...dtype_promotion import (  # noqa: F401 - TORCH_NAMES, promote_types: re-exported for the ops
    TORCH_NAMES,
    _complex_of,
    _promote,
    promote_types,
    unsigned_promotion_error,
)
from ...dtypes import (
    DType,
    bool_,
    default_dependent,
    default_float,
    scalar_dtype,
)
from ...errors import StridedTypeError, join_lines
from ...tensor import Tensor

_DIM, _ZERO, _WRAPPED = 0, 1, 2  # priority classes, highest first

Operand = Any  # a Tensor or a Python bool/int/float


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
