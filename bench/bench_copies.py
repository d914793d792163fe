"""Copy benchmark (issue 23): copies between layouts against a memcpy of the same bytes, in one run.

Run from the repository root:

    .venv/bin/python bench/bench_copies.py          # two to four minutes
    .venv/bin/python bench/bench_copies.py --quick  # 32 MB only, fewer repeats, noisier

How to read it
--------------
Each row is one copy whose source and destination memory orders differ (a transpose or a
permute made contiguous, a strided source, ``copy_`` into existing memory, an elementwise op whose
input runs against its output), timed in strided (with its compiled copy kernel,
``strided.kernels.native``, when built, and again on its pure-NumPy path, ``native.disabled()``:
column ``np-path``), NumPy (``np.ascontiguousarray`` / ``np.copyto`` / the ufunc) and PyTorch
(one thread), round-robin with two references: ``memcpy``, a
``np.copyto`` between two contiguous arrays of the same bytes (existing memory), and
``alloc+memcpy``, ``flat.copy()`` (new memory, as ``contiguous()`` must allocate: the first touch of
fresh pages costs 0.5-0.8 of a memcpy on its own). Times are the least thread CPU time over the
repeats, in ms (CPU time: on a shared machine wall time mostly measures the other processes).

Columns: the five times, then strided/memcpy, strided's NumPy path/memcpy, numpy/memcpy,
torch/memcpy, strided/(alloc+memcpy) and strided/(the faster of NumPy and PyTorch). Target (issue 23): strided/memcpy <= 3 for copies
of >= 32 MB, marked ``pass``/``FAIL``; rows into new memory are also judged against
alloc+memcpy in the last mark. ``first`` is strided's first call (before any warm-up), to show
there is no warm-up cost beyond the page faults every fresh copy pays.

The small section times 2-D transposes from 64 KB to 4 MB: the compiled kernel runs from
``strided.kernels.native.MIN_BYTES`` (256 KB), the NumPy strips from
``strided.kernels.blocked.MIN_BYTES`` (2 MB); below, the single plain call is kept, so
strided/numpy should stay about 1 there.

The last section is the first call in a fresh process: ``import strided`` and the first 32 MB
transpose made contiguous (CPU time of the process), with the kernel and with ``STRIDED_NATIVE=0``,
and the load of the compiled module alone (its import, wall time).

Nothing here is a test: timings vary with the machine and its load; tests never assert them.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from collections.abc import Callable

import numpy as np
import torch

import strided
from harness import print_header
from strided.kernels import native

torch.set_num_threads(1)

TARGET = 3.0  # issue 23: a copy between layouts costs at most 3 memcpys of its bytes
MB = 1 << 20


def _pair(shape: tuple[int, ...], dtype: str) -> tuple[np.ndarray, strided.Tensor, torch.Tensor]:
    a = np.random.default_rng(0).random(shape).astype(dtype)
    return a, strided.from_numpy(a), torch.from_numpy(a)


Case = tuple[str, int, Callable[[], object], Callable[[], object], Callable[[], object]]


def big_cases(sizes: tuple[int, ...]) -> list[Case]:
    """(name, bytes copied, strided, numpy, torch) for every large case."""
    cases: list[Case] = []
    for dtype in ("float32", "float64"):
        isz = np.dtype(dtype).itemsize
        for mb in sizes:
            n = mb * MB // isz
            a, s, t = _pair((4096, n // 4096), dtype)
            cases.append((f"{dtype} {mb}MB (4096,{n // 4096}).t().contiguous()", n * isz,
                          lambda s=s: s.t().contiguous(), lambda a=a: np.ascontiguousarray(a.T),
                          lambda t=t: t.t().contiguous()))
            a3, s3, t3 = _pair((64, 256, n // (64 * 256)), dtype)
            for perm in ((2, 0, 1), (2, 1, 0), (0, 2, 1)):
                cases.append((f"{dtype} {mb}MB {a3.shape}.permute{perm}.contiguous()", n * isz,
                              lambda s=s3, p=perm: s.permute(*p).contiguous(),
                              lambda a=a3, p=perm: np.ascontiguousarray(a.transpose(p)),
                              lambda t=t3, p=perm: t.permute(*p).contiguous()))
    n = 32 * MB // 4
    a, s, t = _pair((4096, n // 2048), "float32")  # 64 MB source, every other column: 32 MB copied
    cases.append(("float32 32MB x[:, ::2].contiguous() (stepped)", n * 4, lambda: s[:, ::2].contiguous(),
                  lambda: np.ascontiguousarray(a[:, ::2]), lambda: t[:, ::2].contiguous()))
    cases.append(("float32 32MB x.t()[::2].contiguous() (stepped, transposed)", n * 4,
                  lambda: s.t()[::2].contiguous(), lambda: np.ascontiguousarray(a.T[::2]),
                  lambda: t.t()[::2].contiguous()))
    a, s, t = _pair((4096, n // 4096), "float32")
    sd, ad, td = strided.empty(n // 4096, 4096), np.empty((n // 4096, 4096), "float32"), torch.empty(n // 4096, 4096)
    cases.append(("float32 32MB dest.copy_(x.t()) (existing memory)", n * 4, lambda: sd.copy_(s.t()),
                  lambda: np.copyto(ad, a.T), lambda: td.copy_(t.t())))
    cases.append(("float32 32MB x.permute(1, 0).clone(contiguous_format)", n * 4,
                  lambda: s.permute(1, 0).clone(memory_format=strided.contiguous_format),
                  lambda: a.T.copy(), lambda: t.permute(1, 0).clone(memory_format=torch.contiguous_format)))
    b, sb, tb = _pair((n // 4096, 4096), "float32")
    cases.append(("float32 32MB x.permute(1, 0) + y (orders differ)", n * 4, lambda: s.permute(1, 0) + sb,
                  lambda: np.add(a.T, b), lambda: t.permute(1, 0) + tb))
    cases.append(("float32 32MB x.t().exp() (layout kept)", n * 4, lambda: s.t().exp(),
                  lambda: np.exp(a.T), lambda: t.t().exp()))
    # out= of another order than an input: computed into out itself (strided.ops._support.out.into_out)
    so, ao, to = strided.empty(n // 4096, 4096), np.empty((n // 4096, 4096), "float32"), torch.empty(n // 4096, 4096)
    cases.append(("float32 32MB add(x.t(), y, out=o) (existing memory)", n * 4,
                  lambda: strided.add(s.t(), sb, out=so), lambda: np.add(a.T, b, out=ao),
                  lambda: torch.add(t.t(), tb, out=to)))
    cases.append(("float32 32MB sqrt(x.t(), out=o) (existing memory)", n * 4,
                  lambda: strided.sqrt(s.t(), out=so), lambda: np.sqrt(a.T, out=ao),
                  lambda: torch.sqrt(t.t(), out=to)))
    # out= against both inputs: the general path (a fresh result in their order, one blocked write)
    cases.append(("float32 32MB add(x.t(), y.t(), out=o) (out against both)", n * 4,
                  lambda: strided.add(s.t(), s.t(), out=so), lambda: np.add(a.T, a.T, out=ao),
                  lambda: torch.add(t.t(), t.t(), out=to)))
    b64 = b.astype("float64")
    sb64, tb64 = strided.from_numpy(b64), torch.from_numpy(b64)
    cases.append(("float64 64MB x.t() + y (x float32: a cast)", n * 8, lambda: s.t() + sb64,
                  lambda: np.add(a.T, b64), lambda: t.t() + tb64))
    return cases


def small_cases() -> list[Case]:
    cases: list[Case] = []
    for kb in (64, 256, 1024, 4096):
        n = kb * 1024 // 4
        rows = 1 << (n.bit_length() // 2)
        a, s, t = _pair((rows, n // rows), "float32")
        cases.append((f"float32 {kb}KB ({rows},{n // rows}).t().contiguous()", n * 4,
                      lambda s=s: s.t().contiguous(), lambda a=a: np.ascontiguousarray(a.T),
                      lambda t=t: t.t().contiguous()))
    return cases


def first_call(f: Callable[[], object]) -> float:
    start = time.thread_time()
    f()
    return time.thread_time() - start


def measure(stmts: list[Callable[[], object]], number: int, repeat: int) -> list[float]:
    """The least thread CPU time per call of each statement over ``repeat`` round-robin rounds
    (``number`` calls each). CPU time, not wall time: on a shared machine a wall clock mostly
    measures the other processes (page faults and the kernel's zeroing of fresh pages are the
    thread's own system time, so they are counted)."""
    for f in stmts:
        f()
    best = [float("inf")] * len(stmts)
    for r in range(repeat):
        for i in range(len(stmts)):
            i = (i + r) % len(stmts)  # rotate, so that no statement always follows the same one
            start = time.thread_time()
            for _ in range(number):
                stmts[i]()
            best[i] = min(best[i], (time.thread_time() - start) / number)
    return best


def _numpy_path(f: Callable[[], object]) -> Callable[[], object]:
    """``f`` on strided's pure-NumPy path (the compiled kernel switched off)."""
    def run() -> object:
        with native.disabled():
            return f()
    return run


def table(cases: list[Case], repeat: int, big: bool) -> list[str]:
    fails: list[str] = []
    head = (f"{'case':60s} {'memcpy':>7s} {'a+memcpy':>8s} {'strided':>7s} {'first':>7s} {'np-path':>7s} "
            f"{'numpy':>7s} {'torch':>7s} | {'s/mcpy':>6s} {'npp/mc':>6s} {'np/mcpy':>7s} {'th/mcpy':>7s} "
            f"{'s/a+mc':>6s} {'s/peer':>6s}")
    print(head)
    print("-" * len(head))
    for name, nbytes, s, n, t in cases:
        src = np.ones(nbytes // 8)
        dst = np.empty_like(src)
        first = first_call(s)
        mc, amc, st, fb, nt, tt = (measure(
            [lambda dst=dst, src=src: np.copyto(dst, src), src.copy, s, _numpy_path(s), n, t],
            1 if big else 20, repeat))
        r = st / mc
        mark = ""
        if big:
            mark = "pass" if r <= TARGET else "FAIL"
            if mark == "FAIL":
                fails.append(name)
        print(f"{name:60s} {mc * 1e3:7.2f} {amc * 1e3:8.2f} {st * 1e3:7.2f} {first * 1e3:7.2f} {fb * 1e3:7.2f} "
              f"{nt * 1e3:7.2f} {tt * 1e3:7.2f} | {r:6.2f} {fb / mc:6.2f} {nt / mc:7.2f} {tt / mc:7.2f} "
              f"{st / amc:6.2f} {st / min(nt, tt):6.2f} {mark}")
    return fails


_FIRST = """
import sys, time
t0 = time.process_time()
import strided
t1 = time.process_time()
x = strided.from_numpy(__import__("numpy").ones((4096, 2048), "float32"))
t2 = time.process_time()
x.t().contiguous()
t3 = time.process_time()
from strided.kernels import native
print(t1 - t0, t3 - t2, native.active(), "strided.kernels._copykernel" in sys.modules)
"""
_LOAD = """
import time, strided
w = time.perf_counter()
import strided.kernels._copykernel
print(time.perf_counter() - w)
"""


def first_calls() -> None:
    """``import strided`` and the first 32 MB transpose in fresh processes (kernel on and off, the
    least of three), and the compiled module's own load."""
    def child(code: str, flag: str) -> list[str]:
        return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                              env={**os.environ, "STRIDED_NATIVE": flag}).stdout.split()

    print(f"{'process':30s} {'import':>8s} {'1st copy':>8s}  kernel used")
    for label, flag in (("compiled kernel", "1"), ("STRIDED_NATIVE=0 (NumPy path)", "0")):
        runs = [child(_FIRST, flag) for _ in range(3)]
        print(f"{label:30s} {min(float(r[0]) for r in runs) * 1e3:6.1f}ms "
              f"{min(float(r[1]) for r in runs) * 1e3:6.1f}ms  {runs[0][2]} (loaded: {runs[0][3]})")
    if native.kernel() is not None:
        load = min(float(child(_LOAD, "1")[0]) for _ in range(3))
        print(f"loading strided.kernels._copykernel (dlopen + module init, wall): {load * 1e3:.2f}ms")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats, 32 MB only")
    args = parser.parse_args(argv)
    print_header("strided, NumPy, PyTorch (1 thread); times in ms; compiled copy kernel: "
                 + ("built" if native.kernel() is not None else "NOT built (NumPy path only)"))
    repeat = 3 if args.quick else 7
    print("\n1. Large copies between layouts (target: strided/memcpy <= 3)\n")
    fails = table(big_cases((32,) if args.quick else (32, 64)), repeat, big=True)
    print("\n2. Small and medium transposes (the compiled kernel from 256 KB, the NumPy strips from 2 MB)\n")
    table(small_cases(), repeat, big=False)
    print("\n3. The first call in a fresh process (CPU time; the .so's load in wall time)\n")
    first_calls()
    print(f"\n{len(fails)} large case(s) above {TARGET}x memcpy" + (": " + "; ".join(fails) if fails else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
