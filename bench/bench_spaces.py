"""linspace / logspace benchmark: strided against PyTorch in one run, printed as ratios.

Run from the repository root:

    PYTHONPATH=src .venv/bin/python bench/bench_spaces.py

Each row times one call in both libraries, round-robin repeat by repeat (noise from other
processes falls on both alike), and prints the minimum per-call time and strided/torch (above 1:
strided is slower). PyTorch runs with one thread. The lengths are past strided's memo of short
ramps (4,096 steps), so every call computes its values. Complex logspace is mostly the C
library's ``cpow`` in both (strided calls the same glibc function for PyTorch's bits).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import Any

import torch

import strided as st

_ROWS: list[tuple[str, str, tuple[Any, ...], str]] = [
    ("linspace", "float32", (0, 1), "1M"),
    ("linspace", "float64", (0, 1), "1M"),
    ("linspace", "complex64", (1 - 2j, -3 + 0.5j), "1M"),
    ("linspace", "complex128", (1 - 2j, -3 + 0.5j), "1M"),
    ("linspace", "complex128", (0, 1), "1M"),
    ("logspace", "float64", (0, 1), "1M"),
    ("logspace", "complex64", (0.5 - 1j, 2 + 3j), "64K"),
    ("logspace", "complex128", (0.5 - 1j, 2 + 3j), "64K"),
    ("logspace", "complex64", (0, 1), "64K"),
]
_SIZES = {"1M": 1 << 20, "64K": 1 << 16}


def _best(calls: list[Callable[[], Any]], repeats: int = 9) -> list[float]:
    """The minimum seconds per call of each of ``calls``, timed round-robin."""
    best = [float("inf")] * len(calls)
    for _ in range(repeats):
        for k, call in enumerate(calls):
            t0 = time.perf_counter()
            call()
            best[k] = min(best[k], time.perf_counter() - t0)
    return best


def main() -> None:
    torch.set_num_threads(1)
    print(f"{'op':9} {'dtype':11} {'bounds':22} {'n':>4} {'strided ms':>11} {'torch ms':>9} {'s/torch':>8}")
    for op, dtype, bounds, size in _ROWS:
        n = _SIZES[size]
        s, t = _best([functools.partial(getattr(lib, op), *bounds, n, dtype=getattr(lib, dtype)) for lib in (st, torch)])
        print(f"{op:9} {dtype:11} {str(bounds):22} {size:>4} {s * 1e3:11.3f} {t * 1e3:9.3f} {s / t:8.2f}")


if __name__ == "__main__":
    main()
