"""What a watch costs: strided op mixes with no watch, with a watch open in another thread, and
inside an active watch, side by side with PyTorch and NumPy, in one run.

Run from the repository root:

    .venv/bin/python bench/bench_watch.py          # about 30 s
    .venv/bin/python bench/bench_watch.py --quick  # fewer repeats, a few seconds, noisier

How to read it
--------------
Two mixes of small ops on (3, 4) float32 tensors: **views** (view, permute, transpose, a stepped
slice, expand, reshape, unsqueeze, select, flatten, narrow: metadata only) and **small ops** (add,
mul by a number, a broadcasting sub, exp, sum, matmul: each computes a tiny result). Each mix
runs in a loop; the table shows the time per op (the mix's time over its op count, the minimum
over the repeats, measured round-robin so noise falls on every column alike):

- ``no watch``: nobody listens anywhere; each op pays one truth test (``if OPEN:``);
- ``other thread``: a watch is open in another thread, so ``OPEN`` is true, but this thread has
  no listener: each op reads one context variable and builds nothing;
- ``active``: this thread is inside ``with strided.diagnose.watch.watch()``: each op builds an
  op record (reading the stack for the user's line) and the watch turns it into a step (shapes,
  strides, the broadcast, the reshape dim mapping, the memory tally's ``weakref.finalize``);
- ``torch`` (one thread) and ``numpy``: the same mix in those libraries, for scale.

Ratios: each watch column over ``no watch`` (the watch's cost), and over torch and numpy.
Targets: ``other thread`` / ``no watch`` within timer noise (<= 1.1 marked ``pass``), and ``no
watch`` needs no comparison with itself — the no-listener path is the one check the ops already
had. The active watch has no target: it reports its ratio.

Nothing here is a test: timings vary with the machine and its load; tests never assert them.
"""

from __future__ import annotations

import argparse
import threading
import timeit
from collections.abc import Callable

import numpy as np
import torch

import strided
from harness import print_header
from strided.diagnose.watch import watch

torch.set_num_threads(1)

OTHER_THREAD_TARGET = 1.1  # a watch in another thread: within timer noise of none


def view_mixes() -> tuple[int, Callable, Callable, Callable]:
    """(op count, strided mix, torch mix, numpy mix) of ten view ops."""
    base = np.arange(12, dtype=np.float32).reshape(3, 4)
    s, t, a = strided.tensor(base), torch.tensor(base), base.copy()

    def s_mix():
        s.view(4, 3); s.permute(1, 0); s.transpose(0, 1); s[1:3, ::2]; s.expand(2, 3, 4)  # noqa: E702
        s.reshape(2, 6); s.unsqueeze(0); s.select(0, 1); s.flatten(); s.narrow(1, 1, 2)  # noqa: E702

    def t_mix():
        t.view(4, 3); t.permute(1, 0); t.transpose(0, 1); t[1:3, ::2]; t.expand(2, 3, 4)  # noqa: E702
        t.reshape(2, 6); t.unsqueeze(0); t.select(0, 1); t.flatten(); t.narrow(1, 1, 2)  # noqa: E702

    def a_mix():
        a.reshape(4, 3); a.transpose(1, 0); a.swapaxes(0, 1); a[1:3, ::2]; np.broadcast_to(a, (2, 3, 4))  # noqa: E702
        a.reshape(2, 6); np.expand_dims(a, 0); a[1]; a.reshape(-1); a[:, 1:3]  # noqa: E702

    return 10, s_mix, t_mix, a_mix


def small_op_mixes() -> tuple[int, Callable, Callable, Callable]:
    """(op count, strided mix, torch mix, numpy mix) of six small computing ops."""
    base = np.arange(12, dtype=np.float32).reshape(3, 4)
    col = np.arange(3, dtype=np.float32).reshape(3, 1)
    row = np.arange(4, dtype=np.float32)
    s, sc, sr = strided.tensor(base), strided.tensor(col), strided.tensor(row)
    t, tc, tr = torch.tensor(base), torch.tensor(col), torch.tensor(row)
    a, ac, ar = base.copy(), col.copy(), row.copy()

    def s_mix():
        s + s; s * 2.0; sc - sr; s.exp(); s.sum(); s @ s.mT  # noqa: E702

    def t_mix():
        t + t; t * 2.0; tc - tr; t.exp(); t.sum(); t @ t.mT  # noqa: E702

    def a_mix():
        a + a; a * np.float32(2.0); ac - ar; np.exp(a); a.sum(); a @ a.T  # noqa: E702

    return 6, s_mix, t_mix, a_mix


class OtherThreadWatch:
    """A watch held open by another thread for the duration of a ``with`` block."""

    def __enter__(self) -> OtherThreadWatch:
        self._opened, self._done = threading.Event(), threading.Event()
        self._thread = threading.Thread(target=self._hold)
        self._thread.start()
        self._opened.wait()
        return self

    def _hold(self) -> None:
        with watch():
            self._opened.set()
            self._done.wait()

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        self._thread.join()


def time_mix(n_ops: int, s_mix: Callable, t_mix: Callable, a_mix: Callable, number: int,
             repeat: int) -> dict[str, float]:
    """Minimum seconds per op of each column, round-robin over ``repeat`` samples."""
    columns = ("no watch", "other thread", "active", "torch", "numpy")
    best = dict.fromkeys(columns, float("inf"))
    for f in (s_mix, t_mix, a_mix):
        for _ in range(100):
            f()
    steps_seen = 0
    for _ in range(repeat):
        for col in columns:
            if col == "other thread":
                with OtherThreadWatch():
                    assert strided.dispatch.OPEN
                    took = timeit.timeit(s_mix, number=number)
            elif col == "active":
                with watch() as w:  # a fresh watch per sample: its steps stay a sample's worth
                    took = timeit.timeit(s_mix, number=number)
                steps_seen = len(w.steps)
            else:
                took = timeit.timeit({"no watch": s_mix, "torch": t_mix, "numpy": a_mix}[col], number=number)
            best[col] = min(best[col], took / number / n_ops)
    # the watch saw every op of the mix, or the active column measured something else
    assert steps_seen >= number * n_ops, (steps_seen, number, n_ops)
    assert not strided.dispatch.OPEN
    return best


def report(title: str, best: dict[str, float]) -> list[str]:
    base = best["no watch"]
    print(f"   {title}")
    print(f"   {'column':<14} {'µs/op':>8} {'/no watch':>10} {'/torch':>8} {'/numpy':>8}")
    failures = []
    for col in ("no watch", "other thread", "active", "torch", "numpy"):
        t = best[col]
        strided_col = col not in ("torch", "numpy")
        ratio = t / base
        mark = ""
        if col == "other thread":
            mark = "pass" if ratio <= OTHER_THREAD_TARGET else "FAIL"
            if mark == "FAIL":
                failures.append(f"{title}: a watch in another thread costs {ratio:.2f}x")
        r_t = f"{t / best['torch']:>7.2f}x" if strided_col else ""
        r_n = f"{t / best['numpy']:>7.2f}x" if strided_col else ""
        print(f"   {col:<14} {t * 1e6:>8.3f} {ratio:>9.2f}x {r_t:>8} {r_n:>8}  {mark}")
    print()
    return failures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats: a few seconds, noisier")
    args = parser.parse_args(argv)
    number, repeat = (300, 3) if args.quick else (2_000, 15)
    print_header(f"torch {torch.__version__} | numpy {np.__version__}")
    print(f"Per-op time of two op mixes on (3, 4) float32 tensors (min of {repeat} x {number} mixes; "
          f"torch threads = {torch.get_num_threads()})\n")
    failures = report("view ops (10 per mix)", time_mix(*view_mixes(), number, repeat))
    failures += report("small ops (6 per mix)", time_mix(*small_op_mixes(), number, repeat))
    print("targets missed: " + "; ".join(failures) if failures else "all targets met")
    return 0  # a benchmark reports; it does not fail a build


if __name__ == "__main__":
    raise SystemExit(main())
