"""Elementwise functions of the standard, NumPy computing on the tensors' memory.

Each takes arrays (strided tensors) and, in binary functions, Python scalars ("weak": they
take the array's dtype), broadcasts, and returns a new array in the standard's result dtype.
NumPy 2's ufuncs implement exactly these special cases and this promotion (NEP 50), so each
function here is one line: the ufunc, read zero-copy, its result adopted without a copy.

>>> import strided.array_api as xp
>>> xp.add(xp.asarray([1, 2], dtype=xp.int8), 1).dtype
strided.int8
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..tensor import Tensor
from ._core import arrays, computed, quiet, ufunc


def _floor_divide(a: Any, b: Any) -> Any:
    """``floor(a / b)``, the standard's definition: NumPy's floor_divide (like PyTorch's) gives NaN
    for an infinite dividend and -1 for ``2 // -inf``, where the standard asks ``-inf`` and ``-0``."""
    out = np.floor_divide(a, b)
    if out.dtype.kind in "fc" and out.ndim >= 0:
        inf = np.isinf(a) | np.isinf(b)
        if np.any(inf):
            out = np.where(inf, np.floor(np.divide(a, b)), out)
    return out


def _expm1(x: Any) -> Any:
    """``exp(x) - 1``; for complex ``x`` NumPy's expm1 loses the special cases (``expm1(0j)`` is NaN
    there in some builds), so finite ``a + bj`` use ``expm1(a)cos(b) - 2sin(b/2)^2 + i e^a sin(b)``
    (exact near 0) and infinities and NaNs ``exp(z) - 1`` (C99's complex exp)."""
    if x.dtype.kind != "c":
        return np.expm1(x)
    a, b = x.real, x.imag
    real = np.expm1(a) * np.cos(b) - 2 * np.sin(b / 2) ** 2
    imag = np.where(b == 0, b, np.exp(a) * np.sin(b))
    near = (real + 1j * imag).astype(x.dtype)
    return np.where(np.isfinite(x), near, np.exp(x) - 1).astype(x.dtype)


def _tanh(x: Any) -> Any:
    """``tanh``; for complex ``+-inf + bj`` with finite ``b``, the standard's ``+-1 + 0j`` with the
    zero signed as ``b`` (C99, and NumPy, sign it as ``sin(2b)``)."""
    out = np.tanh(x)
    if x.dtype.kind == "c":
        edge = np.isinf(x.real) & np.isfinite(x.imag)
        if np.any(edge):
            out = np.where(edge, np.copysign(1, x.real) + 1j * np.copysign(0, x.imag), out).astype(x.dtype)
    return out


# name in the standard -> NumPy 2's ufunc of the same semantics
_UNARY = {
    "abs": np.abs, "acos": np.acos, "acosh": np.acosh, "asin": np.asin, "asinh": np.asinh,
    "atan": np.atan, "atanh": np.atanh, "bitwise_invert": np.bitwise_invert, "ceil": np.ceil,
    "conj": np.conj, "cos": np.cos, "cosh": np.cosh, "exp": np.exp, "expm1": _expm1,
    "floor": np.floor, "imag": np.imag, "isfinite": np.isfinite, "isinf": np.isinf, "isnan": np.isnan,
    "log": np.log, "log1p": np.log1p, "log2": np.log2, "log10": np.log10, "logical_not": np.logical_not,
    "negative": np.negative, "positive": np.positive, "real": np.real, "reciprocal": np.reciprocal,
    "round": np.round, "sign": np.sign, "signbit": np.signbit, "sin": np.sin, "sinh": np.sinh,
    "square": np.square, "sqrt": np.sqrt, "tan": np.tan, "tanh": _tanh, "trunc": np.trunc,
}
_BINARY = {
    "add": np.add, "atan2": np.atan2, "bitwise_and": np.bitwise_and, "bitwise_left_shift": np.left_shift,
    "bitwise_or": np.bitwise_or, "bitwise_right_shift": np.right_shift, "bitwise_xor": np.bitwise_xor,
    "copysign": np.copysign, "divide": np.divide, "equal": np.equal, "floor_divide": _floor_divide,
    "greater": np.greater, "greater_equal": np.greater_equal, "hypot": np.hypot, "less": np.less,
    "less_equal": np.less_equal, "logaddexp": np.logaddexp, "logical_and": np.logical_and,
    "logical_or": np.logical_or, "logical_xor": np.logical_xor, "maximum": np.maximum,
    "minimum": np.minimum, "multiply": np.multiply, "nextafter": np.nextafter, "not_equal": np.not_equal,
    "pow": np.power, "remainder": np.remainder, "subtract": np.subtract,
}

__all__ = [*_UNARY, *_BINARY, "clip"]

for _name, _fn in _UNARY.items():
    globals()[_name] = ufunc(_name, _fn, f"The standard's ``{_name}(x, /)``, elementwise (NumPy's ``{_fn.__name__}``).", 1)
for _name, _fn in _BINARY.items():
    globals()[_name] = ufunc(_name, _fn,
                             f"The standard's ``{_name}(x1, x2, /)``, elementwise with broadcasting; either side "
                             f"may be a Python scalar (NumPy's ``{_fn.__name__}``).", 2)


def clip(x: Tensor, /, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002 - the standard's names
    """``x`` with each element limited to ``[min, max]`` (arrays or Python scalars; None: no limit);
    the result keeps ``x``'s dtype.

    >>> clip(xp.asarray([1, 5, 9]), 2, 6)
    tensor([2, 5, 6])
    """
    if min is None and max is None:
        return computed("clip", (x,), x._np().copy())
    lo, hi = arrays(min, max)
    with quiet():
        out = np.clip(x._np(), lo, hi)
    return computed("clip", (x, min, max), out.astype(x.dtype.numpy, copy=False))
