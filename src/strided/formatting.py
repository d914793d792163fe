"""Text for people: PyTorch-style ``repr`` of values.

This follows ``torch/_tensor_str.py`` (default print options: precision 4,
threshold 1000, edgeitems 3, linewidth 80): one formatter for the whole tensor
chooses integer, fixed or scientific mode from the nonzero finite values, and
every element is right-aligned to the widest one.
"""

from __future__ import annotations

import math

import numpy as np

from .dtypes import DEFAULT_FLOAT, DEFAULT_INT, DType, bool_

PRECISION = 4
THRESHOLD = 1000
EDGEITEMS = 3
LINEWIDTH = 80


class _Formatter:
    """PyTorch's ``_Formatter``: picks the mode and the common width from the values."""

    def __init__(self, values: np.ndarray, floating: bool) -> None:
        self.floating = floating
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        flat = values.reshape(-1)
        if not floating:
            for v in flat.tolist():
                self.max_width = max(self.max_width, len(str(v)))
            return
        flat = flat.astype(np.float64)
        nonzero = flat[np.isfinite(flat) & (flat != 0)]
        if nonzero.size == 0:
            return
        magnitudes = np.abs(nonzero)
        low, high = float(magnitudes.min()), float(magnitudes.max())
        self.int_mode = bool(np.all(nonzero == np.ceil(nonzero)))
        if self.int_mode:
            if high / low > 1000.0 or high > 1.0e8:
                self.sci_mode = True
                widths = [len(f"{v:.{PRECISION}e}") for v in nonzero.tolist()]
            else:
                widths = [len(f"{v:.0f}") + 1 for v in nonzero.tolist()]
        elif high / low > 1000.0 or high > 1.0e8 or low < 1.0e-4:
            self.sci_mode = True
            widths = [len(f"{v:.{PRECISION}e}") for v in nonzero.tolist()]
        else:
            widths = [len(f"{v:.{PRECISION}f}") for v in nonzero.tolist()]
        self.max_width = max(self.max_width, *widths)

    def format(self, value: object) -> str:
        if self.floating:
            assert isinstance(value, float)
            if self.sci_mode:
                text = f"{value:{self.max_width}.{PRECISION}e}"
            elif self.int_mode:
                text = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    text += "."
            else:
                text = f"{value:.{PRECISION}f}"
        else:
            text = str(value)
        return " " * (self.max_width - len(text)) + text


def _summarized(a: np.ndarray) -> np.ndarray:
    """The elements a summarized print shows (edge items of every dim)."""
    if a.ndim == 0:
        return a
    if a.shape[0] > 2 * EDGEITEMS:
        rows = [a[:EDGEITEMS], a[-EDGEITEMS:]]
        a = np.concatenate(rows) if a.ndim == 1 else np.stack([_summarized(x) for x in np.concatenate(rows)])
        return a
    if a.ndim == 1:
        return a
    return np.stack([_summarized(x) for x in a])


def _vector(a: np.ndarray, indent: int, summarize: bool, fmt: _Formatter) -> str:
    per_line = max(1, (LINEWIDTH - indent) // (fmt.max_width + 2))
    if summarize and a.shape[0] > 2 * EDGEITEMS:
        items = [fmt.format(v) for v in a[:EDGEITEMS].tolist()] + [" ..."]
        items += [fmt.format(v) for v in a[-EDGEITEMS:].tolist()]
    else:
        items = [fmt.format(v) for v in a.tolist()]
    lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _nested(a: np.ndarray, indent: int, summarize: bool, fmt: _Formatter) -> str:
    if a.ndim == 0:
        return fmt.format(a.item())
    if a.ndim == 1:
        return _vector(a, indent, summarize, fmt)
    n = a.shape[0]
    if summarize and n > 2 * EDGEITEMS:
        rows = [_nested(a[i], indent + 1, summarize, fmt) for i in range(EDGEITEMS)] + ["..."]
        rows += [_nested(a[i], indent + 1, summarize, fmt) for i in range(n - EDGEITEMS, n)]
    else:
        rows = [_nested(a[i], indent + 1, summarize, fmt) for i in range(n)]
    return "[" + ("," + "\n" * (a.ndim - 1) + " " * (indent + 1)).join(rows) + "]"


def format_values(array: np.ndarray, dtype: DType) -> str:
    """``tensor([...])`` text for ``array``, with the dtype named when it is not a default."""
    prefix = "tensor("
    indent = len(prefix)
    suffixes = []
    if array.size == 0:
        if array.ndim != 1:
            suffixes.append(f"size={tuple(array.shape)}")
        if dtype is not DEFAULT_FLOAT:  # nothing printed shows the dtype of an empty tensor
            suffixes.append(f"dtype={dtype!r}")
        body = "[]"
    else:
        if dtype not in (DEFAULT_FLOAT, DEFAULT_INT, bool_):
            suffixes.append(f"dtype={dtype!r}")
        summarize = array.size > THRESHOLD
        # (PyTorch prints float16 through float32; both widen exactly to the Python floats used here)
        fmt = _Formatter(_summarized(array) if summarize else array, dtype.is_floating_point)
        body = _nested(array, indent, summarize, fmt)
    text = prefix + body
    last_line = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line + len(suffix) + 2 > LINEWIDTH:
            text += ",\n" + " " * indent + suffix
            last_line = indent + len(suffix)
        else:
            text += ", " + suffix
            last_line += len(suffix) + 2
    return text + ")"
