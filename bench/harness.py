"""Shared timing and reporting for the benchmarks in bench/ (imports neither NumPy nor PyTorch,
so a script can pin BLAS threads before they load).

A ratio benchmark is a list of sections (:class:`Section`), each a title and a function that
builds its rows (:class:`Row`: the same work in strided, NumPy and PyTorch, and the target); its
``main`` is ``run(__doc__.splitlines()[0], SECTIONS, argv)``, which times each row round-robin
(:func:`time_row`), prints the tables (:func:`print_table`) and the pass/fail line."""

from __future__ import annotations

import argparse
import functools
import itertools
import os
import sys
import timeit
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import version


def measure(stmts: list[Callable[[], object]], number: int, repeat: int,
            sample_seconds: float | None = None) -> list[list[float]]:
    """Per-call times (seconds) of each statement, ``repeat`` samples each, taken round-robin
    so that noise from other processes falls on every library alike. Each round runs the
    statements in the next of all their orders (:func:`_orders`), so every statement follows
    every other one equally often: a library inherits its predecessor's freed memory, caches
    and allocator state (NumPy's and strided's attention-scores einsum measured 2-10% slower
    right after PyTorch's than after each other, in thread CPU time), and the plain rotation
    used before made strided follow PyTorch in two rounds of three, NumPy in one.

    ``sample_seconds``: each statement's calls per sample are chosen so that a sample lasts about
    that long (at least ``number``, at most 10,000 calls; from the slowest of two timed calls after
    the warm-up): a 3 us view timed one call per sample beside 1 ms ops read 30-40% high, the
    timer's own cost and one cold cache line counted in full."""
    for f in stmts:  # warm up caches, lazy imports and allocator pools
        for _ in range(min(number, 100) if number > 1 else 2):
            f()
    numbers = [number] * len(stmts)
    if sample_seconds is not None:
        for i, f in enumerate(stmts):
            once = max(timeit.timeit(f, number=1), timeit.timeit(f, number=1))
            numbers[i] = max(number, min(10_000, int(sample_seconds / max(once, 1e-9))))
    samples: list[list[float]] = [[] for _ in stmts]
    orders = _orders(len(stmts))
    for r in range(repeat):
        for i in orders[r % len(orders)]:
            samples[i].append(timeit.timeit(stmts[i], number=numbers[i]) / numbers[i])
    return samples


@functools.cache
def _orders(n: int) -> tuple[tuple[int, ...], ...]:
    """Orders of ``n`` statements for successive rounds (used cyclically) in which every statement
    directly follows every other one equally often and never itself: for n <= 4 all n! orders,
    sequenced so that the boundaries between rounds (last of one, first of the next) also cover
    each ordered pair equally (found by a short backtracking search); for n = 2 the alternation;
    for more statements the rotations.

    >>> _orders(3)[:2]
    ((0, 1, 2), (0, 2, 1))
    """
    if n <= 2:
        return (tuple(range(n)),)
    if n > 4:
        return tuple(tuple((r + k) % n for k in range(n)) for r in range(n))
    perms = list(itertools.permutations(range(n)))
    limit = len(perms) // (n * (n - 1))  # each boundary pair's share
    used: dict[tuple[int, int], int] = {}
    chosen = [perms[0]]
    rest = set(perms[1:])

    def extend() -> bool:
        if not rest:
            edge = (chosen[-1][-1], chosen[0][0])  # the cycle closes: the next repeat starts over
            return edge[0] != edge[1] and used.get(edge, 0) < limit
        for p in sorted(rest):
            edge = (chosen[-1][-1], p[0])
            if edge[0] == edge[1] or used.get(edge, 0) >= limit:
                continue
            used[edge] = used.get(edge, 0) + 1
            chosen.append(p)
            rest.remove(p)
            if extend():
                return True
            rest.add(p)
            chosen.pop()
            used[edge] -= 1
        return False

    found = extend()
    assert found, n
    return tuple(chosen)


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


@dataclass
class Row:
    """One benchmarked operation: the same work in strided, NumPy and PyTorch.

    ``target_vs`` names the ratio the target applies to: ``"numpy"``, ``"torch"``, ``"best"`` (strided
    over the faster of the two) or ``"-"`` (a reference row, no target). ``note`` is printed after
    the verdict (e.g. the NumPy spelling timed, when the table has a ``note`` column)."""

    name: str
    strided: Callable[[], object]
    numpy: Callable[[], object]
    torch: Callable[[], object]
    target_vs: str = "best"
    target: float = 1.2
    number: int = 1  # calls per timing sample (many for tiny ops)
    note: str = ""


@dataclass
class Section:
    """A table: a title (printed above it; empty for none), a function that builds its rows (called
    when the table is reached, so the inputs of one table are freed before the next is built),
    the repeats at full length, and the heading of the rows' ``note`` column (empty for none)."""

    title: str
    rows: Callable[[], list[Row]]
    repeat: int
    note: str = ""


def time_row(row: Row, repeat: int, quick: bool = False) -> tuple[float, float, float]:
    """The minimum per-call time (seconds) of ``row`` in strided, NumPy and PyTorch, the three timed
    round-robin, ``repeat`` samples each (``quick``: a fifth of the calls per sample)."""
    number = max(row.number // 5, 1) if quick else row.number
    ts, tn, tt = (min(x) for x in measure([row.strided, row.numpy, row.torch], number, repeat))
    return ts, tn, tt


def print_table(section: Section, quick: bool = False) -> list[str]:
    """Build, time and print ``section``'s rows (each as soon as it is timed): the three times, the
    ratios strided/numpy, strided/torch and strided/best, and the verdict against the row's target.
    Returns the rows that missed their target, as ``"name: 1.34x best"``; ``quick``: 3 repeats."""
    rows = section.rows()
    repeat = 3 if quick else section.repeat
    width = max([28] + [len(row.name) + 2 for row in rows])
    if section.title:
        print(section.title)
    header = (f"   {'op':<{width}} {'strided':>9} {'numpy':>9} {'torch':>9} {'s/numpy':>8} {'s/torch':>8} "
              f"{'s/best':>7}  " + (f"{'target':<20}  {section.note}" if section.note else "target"))
    print(header)
    print("   " + "-" * (len(header) - 3))
    failures = []
    for row in rows:
        ts, tn, tt = time_row(row, repeat, quick)
        r_n, r_t, r_b = ts / tn, ts / tt, ts / min(tn, tt)
        if row.target_vs == "-":
            verdict = "(reference)"
        else:
            ratio = {"numpy": r_n, "torch": r_t, "best": r_b}[row.target_vs]
            ok = ratio <= row.target
            verdict = f"<= {row.target}x {row.target_vs}: {'pass' if ok else 'FAIL'}"
            if not ok:
                failures.append(f"{row.name}: {ratio:.2f}x {row.target_vs}")
        line = (f"   {row.name:<{width}} {fmt_time(ts)} {fmt_time(tn)} {fmt_time(tt)} {r_n:>7.2f}x "
                f"{r_t:>7.2f}x {r_b:>6.2f}x  {verdict:<20}  {row.note}")
        print(line.rstrip())
    print()
    return failures


def run(description: str, sections: list[Section], argv: list[str] | None = None, libraries: str = "") -> int:
    """A benchmark script's ``main``: parse ``--quick``, print the header (``libraries``: the NumPy and
    PyTorch line; by default their versions and PyTorch's threads), every section's table, then the
    pass/fail line: ``all targets met`` or ``targets missed: ...``. Returns the exit status (0)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--quick", action="store_true", help="fewer repeats: faster, noisier")
    args = parser.parse_args(argv)
    if not libraries:
        import numpy as np  # loaded by the script already (after it pinned BLAS threads)
        import torch

        libraries = f"torch {torch.__version__} (threads {torch.get_num_threads()}) | numpy {np.__version__}"
    print_header(libraries)
    failures = []
    for section in sections:
        failures += print_table(section, args.quick)
    print("targets missed: " + "; ".join(failures) if failures else "all targets met")
    return 0
