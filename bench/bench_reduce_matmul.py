"""Reductions and matmul benchmark: strided side by side with NumPy and PyTorch, in one run.

Run from the repository root:

    .venv/bin/python bench/bench_reduce_matmul.py          # about 15 s
    .venv/bin/python bench/bench_reduce_matmul.py --quick  # a few seconds, noisier

How to read it
--------------
Each row is the time of ONE call (the minimum over repeats, measured round-robin so that
machine noise falls on all three libraries alike; the median ratio is printed too), then the
ratios strided/numpy and strided/torch. Ratios above 1 mean strided is slower.

Fairness: every library runs on ONE thread. This script sets ``OPENBLAS_NUM_THREADS=1``,
``OMP_NUM_THREADS=1`` and ``MKL_NUM_THREADS=1`` in its own environment *before* NumPy and
PyTorch are imported (so NumPy's OpenBLAS runs single-threaded for the matmul) and calls
``torch.set_num_threads(1)``. The header reports what threadpoolctl sees when it is installed.

Rows:
  * sum of 16M float32 (contiguous): NumPy's pairwise add.reduce does the work in both strided
    and NumPy, so only strided's per-call overhead (argument parsing, output allocation) differs.
    Target (issue 3): strided/numpy <= 1.1.
  * (512, 512) @ (512, 512) float32: the same BLAS sgemm through ``np.matmul(..., out=)``.
    Target: strided/numpy <= 1.1.
  * for reference, no target: sum over dim 1 of a transposed (4096, 4096) float32 (a strided
    read, no copy), and the per-op time of a small (3, 4) sum and (3, 4) @ (4, 3).

Nothing here is a test: timings vary with the machine and its load; tests never assert them.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"  # before numpy/torch load their BLAS

import argparse  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import timeit  # noqa: E402
from collections.abc import Callable  # noqa: E402
from importlib.metadata import version  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402

import strided  # noqa: E402

torch.set_num_threads(1)

NUMPY_TARGET = 1.1


def measure(stmts: list[Callable[[], object]], number: int, repeat: int) -> list[list[float]]:
    """Per-call times (seconds) of each statement, ``repeat`` samples each, taken round-robin."""
    for f in stmts:
        f()
    samples: list[list[float]] = [[] for _ in stmts]
    for _ in range(repeat):
        for i, f in enumerate(stmts):
            samples[i].append(timeit.timeit(f, number=number) / number)
    return samples


def blas_threads() -> str:
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return (f"threadpoolctl not installed; OPENBLAS_NUM_THREADS={os.environ['OPENBLAS_NUM_THREADS']} "
                "set before numpy was imported")
    return ", ".join(f"{i['internal_api']} {i['num_threads']} thread(s)" for i in threadpool_info())


def fmt(seconds: float) -> str:
    return f"{seconds * 1e3:7.3f}ms" if seconds >= 1e-3 else f"{seconds * 1e6:7.2f}µs"


def row(name: str, fs: Callable, ft: Callable, fn: Callable, number: int, repeat: int,
        target: float | None) -> str | None:
    samples = measure([fs, ft, fn], number, repeat)
    ts, tt, tn = (min(x) for x in samples)
    ms, _, mn = (statistics.median(x) for x in samples)
    r_n, r_t = ts / tn, ts / tt
    verdict = "" if target is None else ("pass" if r_n <= target else "FAIL")
    print(f"   {name:<34} {fmt(ts)} {fmt(tt)} {fmt(tn)} {r_n:7.2f}x {ms / mn:7.2f}x {r_t:7.2f}x  {verdict}")
    return f"{name}: {r_n:.2f}x numpy" if verdict == "FAIL" else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats: a few seconds, noisier")
    args = parser.parse_args(argv)
    big_number, big_repeat, small_number, small_repeat = (3, 3, 2_000, 3) if args.quick else (5, 15, 5_000, 15)
    print(f"strided {version('strided')} | torch {torch.__version__} | numpy {np.__version__} | "
          f"python {sys.version.split()[0]}")
    print(f"threads: torch {torch.get_num_threads()}; numpy BLAS: {blas_threads()}")
    load = os.getloadavg()[0]
    print(f"load average {load:.2f} on {os.cpu_count()} CPUs\n")

    rng = np.random.default_rng(0)
    flat = rng.standard_normal(16 * 2**20, dtype=np.float32)
    square = flat.reshape(4096, 4096)
    m1 = rng.standard_normal((512, 512), dtype=np.float32)
    m2 = rng.standard_normal((512, 512), dtype=np.float32)
    small, small_b = rng.standard_normal((3, 4), dtype=np.float32), rng.standard_normal((4, 3), dtype=np.float32)

    s_flat, t_flat = strided.from_numpy(flat), torch.from_numpy(flat)
    s_sq, t_sq, a_sq = strided.from_numpy(square).t(), torch.from_numpy(square).t(), square.T
    s1, s2, t1, t2 = strided.from_numpy(m1), strided.from_numpy(m2), torch.from_numpy(m1), torch.from_numpy(m2)
    ss, ssb, ts_, tsb = (strided.from_numpy(small), strided.from_numpy(small_b), torch.from_numpy(small),
                         torch.from_numpy(small_b))

    # the results must agree, or the timings mean nothing
    np.testing.assert_allclose(s_flat.sum().item(), float(flat.sum(dtype=np.float64)), rtol=1e-4)
    np.testing.assert_allclose((s1 @ s2).numpy(), m1 @ m2, rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(s_sq.sum(1).numpy(), a_sq.sum(1), rtol=1e-4, atol=1e-3)

    header = (f"   {'op':<34} {'strided':>9} {'torch':>9} {'numpy':>9} {'s/numpy':>8} {'(median)':>8} "
              f"{'s/torch':>8}  <=1.1x numpy")
    print(header)
    print("   " + "-" * (len(header) - 3))
    failures = [
        row("sum, 16M float32", lambda: s_flat.sum(), lambda: t_flat.sum(), lambda: flat.sum(),
            big_number, big_repeat, NUMPY_TARGET),
        row("(512,512) @ (512,512) float32", lambda: s1 @ s2, lambda: t1 @ t2, lambda: m1 @ m2,
            big_number, big_repeat, NUMPY_TARGET),
        row("sum(1), (4096,4096).t() float32", lambda: s_sq.sum(1), lambda: t_sq.sum(1),
            lambda: a_sq.sum(1), big_number, big_repeat, None),
        row("sum, (3,4) float32 (per-op)", lambda: ss.sum(), lambda: ts_.sum(), lambda: small.sum(),
            small_number, small_repeat, None),
        row("(3,4) @ (4,3) float32 (per-op)", lambda: ss @ ssb, lambda: ts_ @ tsb, lambda: small @ small_b,
            small_number, small_repeat, None),
    ]
    failures = [f for f in failures if f]
    print()
    print("targets missed: " + "; ".join(failures) if failures else "all targets met")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
