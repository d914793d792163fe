"""Fill kernels: write one value, or a range, into a fresh tensor's memory.

They take the NumPy array of a storage (or a view of it) and write every element;
nothing is read from another tensor, so nothing is copied and the ledger is not told.
"""

from __future__ import annotations

import numpy as np


def fill(out: np.ndarray, value: bool | int | float | np.generic) -> None:
    """Write ``value`` (already checked to fit ``out``'s dtype) into every element of ``out``."""
    out.fill(value)


def arange_into(out: np.ndarray, start: int | float, step: int | float, integral: bool) -> None:
    """``out[i] = start + i * step`` for the 1-d ``out``, computed in int64 (``integral``) or
    float64, then cast to ``out``'s dtype (unsafe casting, as PyTorch's arange)."""
    n = out.shape[0]
    if integral:
        values = np.arange(n, dtype=np.int64) * step + start
    else:
        values = np.arange(n, dtype=np.float64) * float(step) + float(start)
    out[:] = values.astype(out.dtype)
