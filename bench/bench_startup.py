"""Start-up costs: ``import strided`` against NumPy and PyTorch, the ``strided`` command, and the
first ``watch_torch()`` block against the first block of a bare PyTorch dispatch mode.

Run from the repository root:

    .venv/bin/python bench/bench_startup.py          # about a minute
    .venv/bin/python bench/bench_startup.py --quick  # fewer repeats, noisier

How to read it
--------------
Every number is one fresh Python process (nothing is warm but the OS's file cache), the minimum
over repeats taken round-robin so that a busy machine slows every row alike. The imports and the
command lines are the wall time of the whole process, and its CPU time (user + system, steadier
on a shared machine) (``python -c pass`` is the interpreter's own
floor, in every row); the ``first block`` rows time, inside a process that has already imported
torch and strided, one small block of ops: under ``watch_torch()`` (its import included) and under
a ``TorchDispatchMode`` that only passes each call on. PyTorch spends most of that first block
itself (the first Python dispatch mode loads ``torch._dynamo``), so both rows pay it.
The two ``no exit`` rows end the process with ``os._exit`` right after the import: the
difference from their full rows is the interpreter's exit (its collections walk every object the
imports made), shown to tell the import's own time from the exit's. Targets (issue 23): ``import strided`` <= 2x ``import numpy``; ``strided --version`` and
``--help`` no slower than that; the first watched block <= 1.1x the bare one.
Bytecode caching is on here whatever ``PYTHONDONTWRITEBYTECODE`` says (a user's install has its
``.pyc`` files); one untimed round writes them first.
"""

from __future__ import annotations

import os
import pathlib
import resource
import subprocess
import sys
import time

from harness import print_header

_BLOCK = """
import time, torch, strided
x = torch.ones(4, 6)
t0 = time.perf_counter()
{setup}
with {mode}:
    y = (x @ x.T).reshape(2, 8).sum(0)
print(time.perf_counter() - t0)
"""
_BARE = ("from torch.utils._python_dispatch import TorchDispatchMode\n"
         "class Bare(TorchDispatchMode):\n"
         "    def __torch_dispatch__(self, func, types, args=(), kwargs=None):\n"
         "        return func(*args, **(kwargs or {}))\n")


def _command() -> list[str]:
    """The ``strided`` console script beside this interpreter, else ``python -m strided.cli.main``."""
    script = pathlib.Path(sys.executable).parent / "strided"
    return [str(script)] if script.exists() else [sys.executable, "-m", "strided.cli.main"]


def cases() -> dict[str, tuple[list[str], bool]]:
    """label -> (argv, whether the process prints its own time), in the printed order."""
    py = sys.executable
    cases = {
        "python -c pass": ([py, "-c", "pass"], False),
        "import numpy": ([py, "-c", "import numpy"], False),
        "import strided": ([py, "-c", "import strided"], False),
        # (not a target: the same imports without the interpreter's exit, whose garbage collections
        # walk every object the imports made; the difference is what the exit costs)
        "  import numpy, no exit": ([py, "-c", "import numpy, os; os._exit(0)"], False),
        "  import strided, no exit": ([py, "-c", "import strided, os; os._exit(0)"], False),
        "strided --version": ([*_command(), "--version"], False),
        "strided --help": ([*_command(), "--help"], False),
        "import torch": ([py, "-c", "import torch"], False),
        "first block, bare mode": ([py, "-c", _BLOCK.format(setup=_BARE, mode="Bare()")], True),
        "first block, watch_torch": ([py, "-c", _BLOCK.format(setup="from strided import watch_torch",
                                                               mode="watch_torch()")], True),
    }
    return cases


def run_once(argv: list[str], self_timed: bool, env: dict[str, str]) -> tuple[float, float]:
    """Seconds of one fresh process: its wall time (or the time it prints) and its CPU time
    (user + system: what a busy machine's other processes disturb least)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(argv, env=env, check=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return (float(done.stdout.split()[-1]) if self_timed else wall), cpu


def main() -> None:
    repeat = 5 if "--quick" in sys.argv else 15
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["OMP_NUM_THREADS"] = "1"
    table = cases()
    try:
        import torch  # noqa: F401  (only to know whether the torch rows can run)
        libs = f"torch {sys.modules['torch'].__version__}"
    except ImportError:
        table = {k: v for k, v in table.items() if "torch" not in k and "block" not in k}
        libs = "no torch"
    print_header(libs)
    for argv, timed in table.values():  # untimed: writes the .pyc files, warms the file cache
        run_once(argv, timed, env)
    best = {label: float("inf") for label in table}
    best_cpu = dict(best)
    for _ in range(repeat):
        for label, (argv, timed) in table.items():
            wall, cpu = run_once(argv, timed, env)
            best[label] = min(best[label], wall)
            best_cpu[label] = min(best_cpu[label], cpu)
    ratios = {
        "import strided": ("import numpy", 2.0), "strided --version": ("import numpy", 2.0),
        "strided --help": ("import numpy", 2.0), "first block, watch_torch": ("first block, bare mode", 1.1),
    }
    print(f"{'':<28}{'wall':>10}{'CPU':>10}   ratio (wall; CPU)")
    for label, t in best.items():
        cpu = "" if table[label][1] else f"{best_cpu[label] * 1e3:>8.1f}ms"
        line = f"{label:<28}{t * 1e3:>8.1f}ms{cpu:>10}"
        if label in ratios:
            base, target = ratios[label]
            r = t / best[base]
            line += f"   {r:.2f}x"
            if not table[label][1]:
                line += f"; {best_cpu[label] / best_cpu[base]:.2f}x"
            line += f" {base} (target <= {target}x: {'ok' if r <= target else 'MISSED'})"
        print(line)


if __name__ == "__main__":
    main()
