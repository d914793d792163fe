"""einsum benchmark: ``strided.einsum`` side by side with ``numpy.einsum(optimize=True)`` and
``torch.einsum``, in one run, printed as ratios.

Run from the repository root:

    .venv/bin/python bench/bench_einsum.py          # a few seconds
    .venv/bin/python bench/bench_einsum.py --quick  # fewer repeats, noisier

How to read it
--------------
Each row times one contraction in the three libraries, round-robin repeat by repeat (so noise
from other processes falls on all of them alike), and prints the *minimum* per-call time over
the repeats, then the ratios strided/numpy and strided/torch (above 1 means strided is slower).
PyTorch runs with one thread (``torch.set_num_threads(1)``) and NumPy's BLAS is pinned to one
thread before it loads, so all three use one core. NumPy runs ``numpy.einsum(..., optimize=True)``
(its greedy path, contracted pairwise through BLAS); PyTorch its default (``opt_einsum``'s path
when installed); strided ``optimize="auto"``. Before timing, every row checks that the three
results agree (or the timings mean nothing), and prints strided's plan totals: multiply-adds
planned, the speed-up over the naive one-step evaluation, and the bytes copied.

Target (issue 11): strided/numpy <= 1.0 on every row -- no slower than NumPy's optimized einsum.

Rows: a 4-matrix chain, attention scores ``bhtd,bhsd->bhts``, a bilinear form ``bi,ij,bj->b``, a
batched trace ``bii->b`` at (256, 256, 256), a batched matmul ``bij,bjk->bik`` at B=32 I=128 J=64
K=128 (the issue's seed example), and a 6-tensor network. Adding a row: append a :class:`Case`
to ``CASES`` (an equation, the operand shapes, a dtype). Nothing here is a test: timings vary
with the machine and its load.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"  # before NumPy/PyTorch load their BLAS: every library on one thread

import argparse  # noqa: E402
import sys  # noqa: E402
from dataclasses import dataclass  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402

import strided  # noqa: E402
from harness import fmt_time, measure, print_header  # noqa: E402

torch.set_num_threads(1)


def _engine():
    """``(einsum, einsum_plan)`` from the top level once the lead exports them, else from the module."""
    if hasattr(strided, "einsum") and hasattr(strided, "einsum_plan"):
        return strided.einsum, strided.einsum_plan
    from strided.ops.linalg.einsum import einsum, einsum_plan
    return einsum, einsum_plan


@dataclass
class Case:
    """One benchmarked contraction: an equation, its operands' shapes, their dtype."""

    name: str
    equation: str
    shapes: tuple[tuple[int, ...], ...]
    dtype: str = "float32"
    number: int = 1  # calls per timing sample (several for the short ones)


CASES = [
    # the order matters: left to right costs 3 * 1024*64*1024 multiply-adds, (jk,kl) first 2.7x less
    Case("4-matrix chain", "ij,jk,kl,lm->im", ((1024, 64), (64, 1024), (1024, 64), (64, 1024))),
    Case("attention scores", "bhtd,bhsd->bhts", ((8, 8, 256, 64), (8, 8, 256, 64))),
    Case("bilinear form", "bi,ij,bj->b", ((1024, 512), (512, 512), (1024, 512))),
    Case("batched trace (256,256,256)", "bii->b", ((256, 256, 256),), number=20),
    Case("bij,bjk->bik B32 I128 J64 K128", "bij,bjk->bik", ((32, 128, 64), (32, 64, 128))),
    # a 6-tensor network: the overlap <A|B> of two 3-site matrix product states (bond 512,
    # physical dimension 16); its intermediates stay no larger than an input, so NumPy's
    # optimize=True (which refuses paths whose intermediates outgrow the largest input) takes
    # the pairwise path rather than a naive 7-deep loop
    Case("6-tensor network (MPS overlap)", "ai,ibj,jc,ak,kbl,lc->",
         ((16, 512), (512, 16, 512), (512, 16), (16, 512), (512, 16, 512), (512, 16))),
]


def _operands(case: Case, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s, dtype=np.dtype(case.dtype)) for s in case.shapes]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats: faster, noisier")
    args = parser.parse_args(argv)
    einsum, einsum_plan = _engine()
    print_header(f"torch {torch.__version__} (threads {torch.get_num_threads()}) | "
                 f"numpy {np.__version__} (einsum optimize=True, BLAS on one thread)")
    repeat = 6 if args.quick else 24  # multiples of 6: each library follows each other equally often
    header = (f"   {'contraction':<31} {'strided':>9} {'numpy':>9} {'torch':>9} {'s/numpy':>8} {'s/torch':>8}"
              f"  target (s/numpy <= 1.0)")
    print(header)
    print("   " + "-" * (len(header) - 3))
    failures, plans = [], []
    for case in CASES:
        arrays = _operands(case)
        sa = [strided.from_numpy(a) for a in arrays]
        ta = [torch.from_numpy(a) for a in arrays]
        eq = case.equation

        def run_s(eq=eq, sa=sa):
            return einsum(eq, *sa)

        def run_n(eq=eq, arrays=arrays):
            return np.einsum(eq, *arrays, optimize=True)

        def run_t(eq=eq, ta=ta):
            return torch.einsum(eq, *ta)

        # the results must agree, or the timings mean nothing (float32: a tolerance that fits the sums)
        got, ref = run_s().numpy(), run_n()
        scale = np.einsum(eq, *[np.abs(a.astype(np.float64)) for a in arrays], optimize=True)
        np.testing.assert_array_less(np.abs(got - ref), 1e-4 * (scale + 1))
        np.testing.assert_array_less(np.abs(run_t().numpy() - ref), 1e-4 * (scale + 1))
        number = max(case.number // 2, 1) if args.quick else case.number
        ts, tn, tt = (min(x) for x in measure([run_s, run_n, run_t], number, repeat))
        r_n, r_t = ts / tn, ts / tt
        ok = r_n <= 1.0
        if not ok:
            failures.append(f"{case.name}: {r_n:.2f}x numpy")
        print(f"   {case.name:<31} {fmt_time(ts)} {fmt_time(tn)} {fmt_time(tt)} {r_n:>7.2f}x {r_t:>7.2f}x"
              f"  {'pass' if ok else 'FAIL'}")
        plans.append((case, einsum_plan(eq, *sa)))
    print()
    print("strided's plans (optimize='auto'):")
    for case, plan in plans:
        print(f"   {case.name:<31} {_totals(plan)}")
    print()
    print("targets missed: " + "; ".join(failures) if failures else "all targets met")
    return 0


def _totals(plan) -> str:
    """The plan's totals in one line: multiply-adds planned and naive, the speed-up, the largest
    intermediate and the bytes copied."""
    return (f"planned {plan.planned_madds:>13,}  naive {plan.naive_madds:>20,}  speed-up {plan.speedup:>10,.1f}x  "
            f"largest {plan.largest_intermediate_bytes:>11,} B  copied {plan.bytes_copied:,} B")


if __name__ == "__main__":
    sys.exit(main())
