"""Text for people: PyTorch-style ``repr`` of values and a one-call layout summary."""

from __future__ import annotations

import numpy as np

from .dtypes import DEFAULT_FLOAT, DEFAULT_INT, DType, bool_


def _float_formatter(values: np.ndarray):
    """PyTorch's choice: integral floats print as ``1.``; otherwise 4 decimals or sci mode."""
    finite = values[np.isfinite(values)].astype(np.float64) if values.size else values
    if finite.size == 0:
        return lambda x: _special(x) or f"{x:.4f}"
    nonzero = np.abs(finite[finite != 0])
    integral = bool(np.all(finite == np.round(finite)))
    if integral:
        if nonzero.size and nonzero.max() > 1e8:
            return lambda x: _special(x) or f"{x:.4e}"
        return lambda x: _special(x) or f"{x:.0f}."
    if nonzero.size and (nonzero.max() / nonzero.min() > 1000.0 or nonzero.max() > 1e8 or nonzero.min() < 1e-4):
        return lambda x: _special(x) or f"{x:.4e}"
    return lambda x: _special(x) or f"{x:.4f}"


def _special(x: float) -> str:
    if np.isnan(x):
        return "nan"
    if np.isinf(x):
        return "inf" if x > 0 else "-inf"
    return ""


def format_values(array: np.ndarray, dtype: DType) -> str:
    """``tensor([...])`` text for ``array``, with the dtype named when it is not a default."""
    if dtype.is_floating_point:
        formatter = {"float_kind": _float_formatter(array)}
    elif dtype is bool_:
        formatter = {"bool": lambda b: "True" if b else "False"}
    else:
        formatter = None
    body = np.array2string(
        array,
        separator=", ",
        prefix="tensor(",
        formatter=formatter,
        threshold=1000,
        edgeitems=3,
        max_line_width=80,
    )
    extra = ""
    if array.size == 0 and array.ndim != 1:
        extra = f", size={tuple(array.shape)}"
    if dtype not in (DEFAULT_FLOAT, DEFAULT_INT, bool_):
        extra += f", dtype={dtype!r}"
    return f"tensor({body}{extra})"
