"""Inputs shared by the float32 kernel tests (test_native_gelu, test_lgamma_float32,
test_native_erfinv_central): edge values with their float32 neighbours and NaN payloads, and the
unary layouts an op hands its kernel (or not)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

NAN_PAYLOADS = np.array([0x7FC00000, 0xFFC00000, 0x7F800001, 0x7FC12345], dtype=np.uint32).view(np.float32)


def neighbours(values: np.ndarray, steps: int) -> np.ndarray:
    """``values`` and their negatives, each with its next ``steps`` float32 neighbours both ways
    (the largest float32 steps to inf), and NaN payloads (quiet, negative, signalling)."""
    e = np.concatenate([values, -values]).astype(np.float32)
    near = [e]
    for direction in (np.inf, -np.inf):
        step = e
        for _ in range(steps):
            with np.errstate(over="ignore"):
                step = np.nextafter(step, np.float32(direction))
            near.append(step)
    return np.concatenate(near + [NAN_PAYLOADS])


# a 2-d base's views: the kernel's layouts (both memory orders, 0-d, empty) and one it leaves alone
UNARY_LAYOUTS: dict[str, Callable[[Any], Any]] = {
    "contiguous": lambda a: a,
    "transposed": lambda a: a.T,
    "stepped": lambda a: a[::2, 1::3],
    "0-d": lambda a: a[3, 4],
    "empty": lambda a: a[:0],
}
