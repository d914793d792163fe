"""Instruction-count probe of the per-call floor of small ops (issue 23).

Instructions do not depend on the machine's load. Under callgrind with instrumentation off
(the import is not counted), ``--callgrind`` runs each probe N times between a zeroing and a
dump of callgrind's counters (``callgrind_control``), so each dump holds one probe's N calls::

    valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=/tmp/cg.out \
        python bench/floor_probe.py --callgrind 200
    callgrind_annotate /tmp/cg.out.<n>   # one file per probe; its "probe" line names it

``python bench/floor_probe.py --time`` prints process_time per call of every probe instead.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import strided

x = strided.arange(12, dtype=strided.float32).reshape(3, 4)
y = strided.ones(3, 4, dtype=strided.float32)
xt = x.t()

PROBES = {
    "noop": lambda: None,  # (the harness: loop, lambda call and the control calls around it)
    "abs": lambda: x.abs(),
    "add": lambda: x + y,
    "sum1": lambda: x.sum(1),
    "t": lambda: x.t(),
    "reshape": lambda: x.reshape(4, 3),
    "slice": lambda: x[1:],
    "mul_": lambda: y.mul_(1),
    "cumsum": lambda: x.cumsum(1),  # (general paths: their operands through Tensor._np)
    "where": lambda: strided.where(x > 3, x, y),
    "tcumsum": lambda: xt.cumsum(1),  # (a column-major operand: numpy_view's strided case)
    "_np": lambda: x._np(),  # (the kernels' input view: row-major, then strided)
    "_np_t": lambda: xt._np(),
}


def main() -> None:
    if sys.argv[1] == "--time":
        for name, f in PROBES.items():
            for _ in range(200):
                f()
            best = min(_per_call(f, 5000) for _ in range(5))
            print(f"{name:8s} {best * 1e6:6.2f} us")
        return
    if sys.argv[1] == "--callgrind":
        n = int(sys.argv[2])
        control = ["callgrind_control", str(os.getpid())]
        subprocess.run([*control, "-i", "on"], check=True, capture_output=True)
        names = sys.argv[3].split(",") if len(sys.argv) > 3 else list(PROBES)
        for name in names:
            f = PROBES[name]
            for _ in range(50):  # (warm: plans and memos learnt)
                f()
            subprocess.run([*control, "-z"], check=True, capture_output=True)
            for _ in range(n):
                f()
            subprocess.run([*control, "-d", f"probe={name}"], check=True, capture_output=True)
        return
    f = PROBES[sys.argv[1]]
    for _ in range(int(sys.argv[2])):
        f()


def _per_call(f, n: int) -> float:
    t0 = time.process_time()
    for _ in range(n):
        f()
    return (time.process_time() - t0) / n


if __name__ == "__main__":
    main()
