"""``strided.testing.assert_close``: PyTorch's ``torch.testing.assert_close`` for strided tensors.

The same signature, default tolerances per dtype (float32: rtol 1.3e-6, atol 1e-5; float64 1e-7
and 1e-7; float16 1e-3 and 1e-5; integers and bool exact), pairing rules (tensors with tensors,
Python numbers with numbers, sequences and mappings element by element) and messages
("Tensor-likes are not close!\\n\\nMismatched elements: ...") as PyTorch 2.13's, so a failing test
reads the same. The differences are computed in the dtype the two tensors promote to, as
PyTorch's are, so the numbers printed are PyTorch's to the last digit.

>>> strided.testing.assert_close(strided.tensor([1.0, 2.0]), strided.tensor([1.0, 2.0000001]))
>>> strided.testing.assert_close(strided.tensor([1.0, 2.0]), strided.tensor([1.0, 2.5]))
Traceback (most recent call last):
    ...
AssertionError: Tensor-likes are not close!
<BLANKLINE>
Mismatched elements: 1 / 2 (50.0%)
Greatest absolute difference: 0.5 at index (1,) (up to 1e-05 allowed)
Greatest relative difference: 0.20000000298023224 at index (1,) (up to 1.3e-06 allowed)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from .dtypes import (
    DType,
    bfloat16,
    complex64,
    complex128,
    default_float,
    float16,
    float32,
    float64,
    int64,
    np_kind,
)
from .tensor import Tensor

__all__ = ["assert_close"]

# PyTorch's _DTYPE_PRECISIONS: (rtol, atol); every other dtype compares exactly
_PRECISIONS: dict[DType, tuple[float, float]] = {
    float16: (0.001, 1e-5), bfloat16: (0.016, 1e-5), float32: (1.3e-6, 1e-5), float64: (1e-7, 1e-7),
    complex64: (1.3e-6, 1e-5), complex128: (1e-7, 1e-7),
}
_NUMBER_DTYPES = {int: int64, float: float64, complex: complex128}  # (PyTorch's NumberPair)

Message = str | Callable[[str], str] | None


class _Mismatch(Exception):
    """One failed comparison: the exception class, its text and where it sits in nested inputs."""

    def __init__(self, cls: type[Exception], text: str, where: tuple[Any, ...] = ()) -> None:
        super().__init__(text)
        self.cls, self.text, self.where = cls, text, where

    def to_error(self, msg: Message) -> Exception:
        text = self.text if msg is None else msg if isinstance(msg, str) else msg(self.text)
        if self.where and not isinstance(msg, str):
            text += "\n\nThe failure occurred for item " + "".join(str([item]) for item in self.where)
        return self.cls(text)


def assert_close(actual: Any, expected: Any, *, allow_subclasses: bool = True, rtol: float | None = None,
                 atol: float | None = None, equal_nan: bool = False, check_device: bool = True,
                 check_dtype: bool = True, check_layout: bool = True, check_stride: bool = False,
                 msg: Message = None) -> None:
    """Raise AssertionError unless ``actual`` and ``expected`` are close, as ``torch.testing.assert_close``:
    ``|actual - expected| <= atol + rtol * |expected|`` elementwise (NaN equal to NaN only with
    ``equal_nan``), with the same shape and (with ``check_dtype``) dtype, and (with
    ``check_stride``) strides. ``rtol`` and ``atol`` go together; omitted, they are the looser
    defaults of the two dtypes. ``msg`` replaces the message (a str) or rewrites it (a callable).
    ``check_device``/``check_layout``: strided has one device and one layout, so they always hold.

    >>> strided.testing.assert_close([strided.tensor(1.0), 2], [strided.tensor(1.0), 2])
    >>> strided.testing.assert_close(1, 1.0)
    Traceback (most recent call last):
        ...
    AssertionError: The (d)types do not match: <class 'int'> != <class 'float'>.
    """
    del allow_subclasses, check_device, check_layout  # (one Tensor class, one device, one layout)
    try:
        _compare(actual, expected, (), rtol=rtol, atol=atol, equal_nan=equal_nan, check_dtype=check_dtype,
                 check_stride=check_stride)
    except _Mismatch as failure:
        raise failure.to_error(msg) from None


def _compare(actual: Any, expected: Any, where: tuple[Any, ...], **options: Any) -> None:
    if actual is None or expected is None:
        if not (actual is None and expected is None):
            raise _Mismatch(AssertionError, f"None mismatch: {actual} is not {expected}", where)
        return
    if isinstance(actual, bool) and isinstance(expected, bool):
        if actual is not expected:
            raise _Mismatch(AssertionError, f"Booleans mismatch: {actual} is not {expected}", where)
        return
    if isinstance(actual, Tensor) and isinstance(expected, Tensor):
        _compare_tensors(actual, expected, where, **options)
        return
    if isinstance(actual, np.ndarray) and isinstance(expected, np.ndarray):  # (compared as tensors, as PyTorch does)
        from .interop import as_tensor

        _compare_tensors(as_tensor(actual), as_tensor(expected), where, **options)
        return
    if _is_number(actual) and _is_number(expected):
        _compare_numbers(actual, expected, where, **options)
        return
    if _is_sequence(actual) and _is_sequence(expected):
        if len(actual) != len(expected):
            raise _Mismatch(AssertionError, f"The length of the sequences mismatch: {len(actual)} != {len(expected)}",
                            where)
        for i, (a, e) in enumerate(zip(actual, expected)):
            _compare(a, e, (*where, i), **options)
        return
    if isinstance(actual, Mapping) and isinstance(expected, Mapping):
        missing, extra = sorted(set(expected) - set(actual)), sorted(set(actual) - set(expected))
        if missing or extra:
            raise _Mismatch(AssertionError, "The keys of the mappings do not match:\n"
                            f"Missing keys in the actual mapping: {missing}\n"
                            f"Additional keys in the actual mapping: {extra}", where)
        for key in expected:
            _compare(actual[key], expected[key], (*where, key), **options)
        return
    raise _Mismatch(TypeError, "No comparison pair was able to handle inputs of type "
                               f"{type(actual)} and {type(expected)}.", where)


def _is_number(x: Any) -> bool:
    return type(x) in _NUMBER_DTYPES or isinstance(x, (np.integer, np.floating, np.complexfloating))


def _is_sequence(x: Any) -> bool:
    return isinstance(x, Sequence) and not isinstance(x, str)


def _tolerances(dtypes: tuple[DType, ...], rtol: float | None, atol: float | None, where: tuple[Any, ...]
                ) -> tuple[float, float]:
    if (rtol is None) != (atol is None):
        raise _Mismatch(ValueError, "Both 'rtol' and 'atol' must be either specified or omitted, "
                                    f"but got no {'rtol' if rtol is None else 'atol'}.", where)
    if rtol is not None and atol is not None:
        return rtol, atol
    pairs = [_PRECISIONS.get(d, (0.0, 0.0)) for d in dtypes]
    return max(p[0] for p in pairs), max(p[1] for p in pairs)


def _compare_numbers(actual: Any, expected: Any, where: tuple[Any, ...], *, rtol: float | None,
                     atol: float | None, equal_nan: bool, check_dtype: bool, check_stride: bool) -> None:
    if check_dtype and type(actual) is not type(expected):
        raise _Mismatch(AssertionError, f"The (d)types do not match: {type(actual)} != {type(expected)}.", where)
    dtypes = tuple(_NUMBER_DTYPES.get(type(x), float64) for x in (actual, expected))
    rtol, atol = _tolerances(dtypes, rtol, atol, where)
    if actual == expected or (equal_nan and _isnan(actual) and _isnan(expected)):
        return
    if not (_isnan(actual) or _isnan(expected) or _isinf(actual) or _isinf(expected)):
        if abs(actual - expected) <= atol + rtol * abs(expected):
            return
    raise _Mismatch(AssertionError, _scalar_message(actual, expected, rtol, atol), where)


def _isnan(x: Any) -> bool:
    return isinstance(x, complex) and (math.isnan(x.real) or math.isnan(x.imag)) or (
        not isinstance(x, complex) and isinstance(x, float) and math.isnan(x))


def _isinf(x: Any) -> bool:
    return math.isinf(abs(x))


def _scalar_message(actual: Any, expected: Any, rtol: float, atol: float) -> str:
    diff = abs(actual - expected)
    rel = float("inf") if expected == 0 else diff / abs(expected)
    return _message("Scalars", f"Expected {expected} but got {actual}.", diff, None, rel, None, rtol, atol)


def _message(what: str, extra: str, diff: Any, diff_at: Any, rel: Any, rel_at: Any, rtol: float, atol: float) -> str:
    """PyTorch's ``_make_mismatch_msg``: the header, the extra line, the greatest differences."""
    exact = rtol == 0 and atol == 0
    lines = [f"{what} are not {'equal' if exact else 'close'}!", "", extra]
    for kind, value, at, tol in (("absolute", diff, diff_at, atol), ("relative", rel, rel_at, rtol)):
        line = f"{kind.title()} difference: {value}" if at is None else f"Greatest {kind} difference: {value} at index {at}"
        lines.append(line if exact else f"{line} (up to {tol} allowed)")
    return "\n".join(lines)


def _compare_tensors(actual: Tensor, expected: Tensor, where: tuple[Any, ...], *, rtol: float | None,
                     atol: float | None, equal_nan: bool, check_dtype: bool, check_stride: bool) -> None:
    def differ(attribute: str, a: Any, e: Any) -> _Mismatch:
        return _Mismatch(AssertionError, f"The values for attribute '{attribute}' do not match: {a} != {e}.", where)

    if actual.shape != expected.shape:
        raise differ("shape", actual.shape, expected.shape)
    if check_stride and actual.stride() != expected.stride():
        raise differ("stride()", actual.stride(), expected.stride())
    if check_dtype and actual.dtype is not expected.dtype:
        raise differ("dtype", actual.dtype, expected.dtype)
    rtol, atol = _tolerances((actual.dtype, expected.dtype), rtol, atol, where)
    if actual.dtype is not expected.dtype:  # compared in the promoted dtype (wide unsigned read as int64)
        from .ops._support.promotion import promote_types

        wide = [int64 if d.kind == "u" and d.itemsize > 1 else d for d in (actual.dtype, expected.dtype)]
        common = promote_types(*wide)
        actual, expected = actual.to(common), expected.to(common)
    a, e = actual.detach().numpy(), expected.detach().numpy()
    matches = np.asarray(actual.detach().isclose(expected.detach(), rtol=rtol, atol=atol, equal_nan=equal_nan).numpy())
    if matches.all():
        return
    if not actual.shape:
        raise _Mismatch(AssertionError, _scalar_message(a.item(), e.item(), rtol, atol), where)
    raise _Mismatch(AssertionError, _tensor_message(a, e, matches, actual.dtype, rtol, atol), where)


def _tensor_message(a: np.ndarray, e: np.ndarray, matches: np.ndarray, dtype: DType, rtol: float, atol: float) -> str:
    """PyTorch's ``make_tensor_mismatch_msg``: the count, then the greatest absolute and relative
    differences among the mismatches, computed in the compared dtype (integers and bool in int64,
    their relative difference in the default float), with their first index."""
    n = matches.size
    bad = n - int(matches.sum())
    a, e = a.reshape(-1), e.reshape(-1)
    if not (dtype.is_floating_point or dtype.is_complex):
        a, e = a.astype(np.int64), e.astype(np.int64)
    with np.errstate(all="ignore"):
        diff = np.abs(a - e)
        diff[matches.reshape(-1)] = 0
        rel = diff / np.abs(e)
    if np_kind(rel.dtype) == "f" and not (dtype.is_floating_point or dtype.is_complex):
        rel = rel.astype(default_float().numpy)  # (PyTorch's int64 / int64 is a default-float division)
    rel[matches.reshape(-1)] = 0
    shape = matches.shape

    def greatest(values: np.ndarray) -> tuple[Any, tuple[int, ...]]:
        # torch.max's value and first index, NaN being the greatest (as torch.max propagates it)
        nan = np.isnan(values) if np_kind(values.dtype) == "f" else np.zeros(values.shape, bool)
        i = int(np.argmax(nan)) if nan.any() else int(np.argmax(values))
        return values[i].item(), tuple(int(j) for j in np.unravel_index(i, shape)) if shape else ()

    d, d_at = greatest(diff)
    r, r_at = greatest(rel)
    return _message("Tensor-likes", f"Mismatched elements: {bad} / {n} ({bad / n:.1%})", d, d_at, r, r_at, rtol, atol)

