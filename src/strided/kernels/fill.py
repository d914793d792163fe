"""Fill kernels: write one value, or a range, into a fresh tensor's memory.

They take the NumPy array of a storage (or a view of it) and write every element;
nothing is read from another tensor, so nothing is copied and the ledger is not told.
"""

from __future__ import annotations

import math

import numpy as np


def fill(out: np.ndarray, value: bool | int | float | np.generic) -> None:
    """Write ``value`` (already checked to fit ``out``'s dtype) into every element of ``out``."""
    out.fill(value)


def arange_values(n: int, start: int | float, step: int | float, integral: bool) -> np.ndarray:
    """A fresh 1-d array of ``start + i * step`` for ``i < n``, computed in int64 (``integral``)
    or float64 (the values PyTorch's arange casts to its dtype)."""
    values = np.arange(n, dtype=np.int64 if integral else np.float64)
    # (in place: the same two operations, each rounded (or wrapped) once, as ``i * step + start``,
    # without two more temporaries; start 0 and step 1 leave i as it is in either type)
    if integral:
        if step.__class__ is not int or start.__class__ is not int:  # (a NumPy integer: its own promotion)
            values = values * step + start
        elif step != 1 or start != 0:
            np.multiply(values, step, out=values)
            np.add(values, start, out=values)
    elif float(step) != 1.0 or float(start) != 0.0 or math.copysign(1.0, float(start)) < 0:
        np.multiply(values, float(step), out=values)
        np.add(values, float(start), out=values)
    return values


def arange_into(out: np.ndarray, start: int | float, step: int | float, integral: bool) -> None:
    """``out[i] = start + i * step`` for the 1-d ``out``, computed in int64 (``integral``) or
    float64, then cast to ``out``'s dtype (unsafe casting, as PyTorch's arange)."""
    np.copyto(out, arange_values(out.shape[0], start, step, integral), casting="unsafe")
