"""Shared timing and reporting for the benchmarks in bench/ (imports neither NumPy nor PyTorch,
so a script can pin BLAS threads before they load)."""

from __future__ import annotations

import os
import sys
import timeit
from collections.abc import Callable
from importlib.metadata import version


def measure(stmts: list[Callable[[], object]], number: int, repeat: int) -> list[list[float]]:
    """Per-call times (seconds) of each statement, ``repeat`` samples each, taken round-robin
    so that noise from other processes falls on every library alike."""
    for f in stmts:  # warm up caches, lazy imports and allocator pools
        for _ in range(min(number, 100) if number > 1 else 2):
            f()
    samples: list[list[float]] = [[] for _ in stmts]
    for _ in range(repeat):
        for i, f in enumerate(stmts):
            samples[i].append(timeit.timeit(f, number=number) / number)
    return samples


def fmt_time(seconds: float) -> str:
    """``  12.34ms`` or ``   1.23µs``, right-aligned for tables."""
    if seconds >= 1e-3:
        return f"{seconds * 1e3:>7.2f}ms"
    return f"{seconds * 1e6:>7.2f}µs"


def print_header(libraries: str) -> None:
    """The versions line (``libraries`` describes NumPy/PyTorch) and the machine's load."""
    print(f"strided {version('strided')} | {libraries} | python {sys.version.split()[0]}")
    load = os.getloadavg()[0]
    cpus = os.cpu_count() or 1
    print(f"load average {load:.2f} on {cpus} CPUs"
          + (" -- the machine is busy: expect noise, run again when it is idle" if load > cpus / 2 else "")
          + "\n")
