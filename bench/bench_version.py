"""Per-op cost of small in-place writes, whose version counting this measures: mul_, add_,
addcmul_, addcdiv_, lerp_ on (10,) and (128, 64) float32, in microseconds of thread CPU time per
call (the median of repeats of a loop), against PyTorch's in the same process.

Modes (one per process: autograd's "used" state is process-wide and never goes back):

- ``fresh``: no tensor has required grad (the plain write);
- ``used``: a tensor has required grad, the writes under no_grad (an optimizer's step);
- ``graph``: as ``used``, with grad mode on (the writes on tensors outside the graph).

Run one tree against another by alternating them (timings on a loaded machine drift)::

    for i in 1 2 3; do for tree in /old/src src; do
        PYTHONPATH=$tree .venv/bin/python bench/bench_version.py used; done; done
"""

from __future__ import annotations

import contextlib
import statistics
import sys
import time

import torch

import strided

_OPS = {
    "mul_": lambda t, a, b: t.mul_(0.999),
    "add_": lambda t, a, b: t.add_(a, alpha=0.1),
    "addcmul_": lambda t, a, b: t.addcmul_(a, b, value=0.01),
    "addcdiv_": lambda t, a, b: t.addcdiv_(a, b, value=-0.001),
    "lerp_": lambda t, a, b: t.lerp_(a, 0.1),
}


def per_call_us(fn, t, a, b, calls: int = 2000, repeats: int = 7) -> float:
    """Median over ``repeats`` of the thread CPU time of ``calls`` calls, per call, in us."""
    fn(t, a, b)
    runs = []
    for _ in range(repeats):
        start = time.thread_time_ns()
        for _ in range(calls):
            fn(t, a, b)
        runs.append((time.thread_time_ns() - start) / calls / 1e3)
    return statistics.median(runs)


def main(argv: list[str]) -> int:
    mode = argv[0] if argv else "fresh"
    if mode != "fresh":
        strided.ones(1, requires_grad=True)
        torch.ones(1, requires_grad=True)
    for shape in ((10,), (128, 64)):
        for name, fn in _OPS.items():
            row = [f"{mode:6s} {name:9s} {str(shape):10s}"]
            for lib in (strided, torch):
                t, a, b = lib.ones(shape), lib.full(shape, 0.5), lib.full(shape, 2.0)
                ctx = lib.no_grad() if mode == "used" else contextlib.nullcontext()
                with ctx:
                    row.append(f"{per_call_us(fn, t, a, b):7.2f}")
            row.append(f"ratio {float(row[1]) / float(row[2]):5.2f}")
            print("  ".join(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
