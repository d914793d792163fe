"""View and contiguous() benchmark: strided side by side with PyTorch and NumPy, in one run.

Run from the repository root:

    .venv/bin/python bench/bench_views.py          # about 20 s
    .venv/bin/python bench/bench_views.py --quick  # fewer repeats, a few seconds, noisier
    .venv/bin/python bench/bench_views.py --small  # section 1 only

How to read it
--------------
Every number is the time of ONE call, in microseconds (µs) or milliseconds (ms), measured with
``timeit``: each statement runs ``number`` times in a loop, the loop is repeated, and the table
shows the *minimum* over the repeats (the least disturbed run; section 3 prints the median
too). The three libraries are measured round-robin, repeat by
repeat, so that noise from other processes falls on all of them alike. PyTorch runs with one
thread (``torch.set_num_threads(1)``), NumPy is single-threaded for these ops anyway. The header
names the versions and the load average: on a busy machine the numbers scatter (a ratio can
move by 2x between runs), so rerun when it is idle before believing a FAIL.

1. Per-op time of view ops on a small (3, 4) float32 tensor. A view op only computes new
   metadata (shape, strides, offset), so this is pure Python/C++ overhead. Columns: strided,
   torch, numpy (the closest NumPy equivalent, named in the last column), then the ratios
   strided/torch and strided/numpy. Target (issue 2): strided/torch <= 1.5 for every op,
   marked ``pass`` or ``FAIL``. Ratios above 1 mean strided is slower.

2. Three view ops (permute, view(-1), a stepped slice) at 10^2 and 10^8 elements (``empty`` tensors, so no data is touched). A
   view never reads or copies data, so its time must not depend on the size: the ratio
   big/small should be about 1.0 (``pass`` when <= 1.5, allowing for timer noise).

3. ``contiguous()`` of a transposed 32 MB float32 tensor ((2048, 4096) transposed): this is a
   real copy of every element. Target: strided no slower than ``np.ascontiguousarray`` (its
   kernel *is* NumPy's copy); ratio strided/numpy <= 1.1 is marked ``pass`` (10 % for noise).

Nothing here is a test: timings vary with the machine and its load; tests never assert them.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Callable

import numpy as np
import torch

import strided
from harness import measure, print_header

torch.set_num_threads(1)

TORCH_TARGET = 1.0  # issue 7: a view op takes at most PyTorch's per-op time
SIZE_TARGET = 1.5  # big/small time of a view op; ideally 1.0, the slack is timer noise
NUMPY_TARGET = 1.1  # contiguous(): no slower than NumPy (10 % allowed for noise)


def mark(ratio: float, target: float) -> str:
    return "pass" if ratio <= target else "FAIL"


def view_ops() -> list[tuple[str, Callable, Callable, Callable, str]]:
    """(name, strided op, torch op, numpy op, numpy spelling) on a (3, 4) float32 tensor
    (``squeeze`` on a (1, 3, 4) one, ``flatten(1)`` on a (2, 3, 4) one)."""
    base = np.arange(12, dtype=np.float32).reshape(3, 4)
    s = strided.tensor(base)
    t = torch.tensor(base)
    a = base.copy()
    a1, a3 = a.reshape(1, 3, 4), np.arange(24, dtype=np.float32).reshape(2, 3, 4)  # squeeze, flatten(1)
    s1, t1 = strided.tensor(a1), torch.tensor(a1)
    s3, t3 = strided.tensor(a3), torch.tensor(a3)
    return [
        ("view(4, 3)", lambda: s.view(4, 3), lambda: t.view(4, 3), lambda: a.reshape(4, 3), "a.reshape(4, 3)"),
        ("permute(1, 0)", lambda: s.permute(1, 0), lambda: t.permute(1, 0), lambda: a.transpose(1, 0),
         "a.transpose(1, 0)"),
        ("transpose(0, 1)", lambda: s.transpose(0, 1), lambda: t.transpose(0, 1), lambda: a.swapaxes(0, 1),
         "a.swapaxes(0, 1)"),
        ("t[1:3, ::2]", lambda: s[1:3, ::2], lambda: t[1:3, ::2], lambda: a[1:3, ::2], "a[1:3, ::2]"),
        ("expand(2, 3, 4)", lambda: s.expand(2, 3, 4), lambda: t.expand(2, 3, 4),
         lambda: np.broadcast_to(a, (2, 3, 4)), "np.broadcast_to(a, (2, 3, 4))"),
        ("reshape(2, 6)", lambda: s.reshape(2, 6), lambda: t.reshape(2, 6), lambda: a.reshape(2, 6),
         "a.reshape(2, 6)"),
        ("unsqueeze(0)", lambda: s.unsqueeze(0), lambda: t.unsqueeze(0), lambda: np.expand_dims(a, 0),
         "np.expand_dims(a, 0)"),
        ("select(0, 1)", lambda: s.select(0, 1), lambda: t.select(0, 1), lambda: a[1], "a[1]"),
        ("flatten()", lambda: s.flatten(), lambda: t.flatten(), lambda: a.reshape(-1), "a.reshape(-1)"),
        ("flatten(1)", lambda: s3.flatten(1), lambda: t3.flatten(1), lambda: a3.reshape(2, -1),
         "a3.reshape(2, -1)"),
        ("unflatten(1, (2, 2))", lambda: s.unflatten(1, (2, 2)), lambda: t.unflatten(1, (2, 2)),
         lambda: a.reshape(3, 2, 2), "a.reshape(3, 2, 2)"),
        ("squeeze(0)", lambda: s1.squeeze(0), lambda: t1.squeeze(0), lambda: a1.squeeze(0), "a1.squeeze(0)"),
        ("squeeze()", lambda: s1.squeeze(), lambda: t1.squeeze(), lambda: a1.squeeze(), "a1.squeeze()"),
        ("narrow(1, 1, 2)", lambda: s.narrow(1, 1, 2), lambda: t.narrow(1, 1, 2), lambda: a[:, 1:3],
         "a[:, 1:3]"),
        ("diagonal()", lambda: s.diagonal(), lambda: t.diagonal(), lambda: a.diagonal(), "a.diagonal()"),
    ]


def bench_small(number: int, repeat: int) -> list[str]:
    print("1. Per-op time of view ops on a (3, 4) float32 tensor "
          f"(min of {repeat} x {number} calls; torch threads = {torch.get_num_threads()})")
    header = (f"   {'op':<20} {'strided':>9} {'torch':>9} {'numpy':>9} {'s/torch':>8} {'s/numpy':>8}"
              f"  {'<=1.0x torch':<12} numpy op")
    print(header)
    print("   " + "-" * (len(header) - 3))
    failures = []
    for name, fs, ft, fn, nname in view_ops():
        ts, tt, tn = (min(x) for x in measure([fs, ft, fn], number, repeat))
        r_t, r_n = ts / tt, ts / tn
        verdict = mark(r_t, TORCH_TARGET)
        if verdict == "FAIL":
            failures.append(f"{name}: {r_t:.2f}x torch")
        print(f"   {name:<20} {ts * 1e6:>7.2f}µs {tt * 1e6:>7.2f}µs {tn * 1e6:>7.2f}µs "
              f"{r_t:>7.2f}x {r_n:>7.2f}x  {verdict:<12} {nname}")
    print()
    return failures


def bench_sizes(number: int, repeat: int) -> list[str]:
    small_shape, big_shape = (10, 10), (10_000, 10_000)  # 10^2 and 10^8 elements
    print(f"2. A view op's time does not grow with the tensor: {small_shape} (10^2 elements) vs "
          f"{big_shape} (10^8), empty float32")
    header = (f"   {'op':<14} {'library':<8} {'10^2':>9} {'10^8':>9} {'big/small':>10}  target ~1.0")
    print(header)
    print("   " + "-" * (len(header) - 3))
    failures = []
    ops = [
        ("permute(1, 0)", lambda x: x.permute(1, 0), lambda x: x.transpose(1, 0)),
        ("view(-1)", lambda x: x.view(-1), lambda x: x.reshape(-1)),
        ("x[::2, 1:]", lambda x: x[::2, 1:], lambda x: x[::2, 1:]),
    ]
    libs = [
        ("strided", lambda shape: strided.empty(shape, dtype=strided.float32)),
        ("torch", lambda shape: torch.empty(shape, dtype=torch.float32)),
        ("numpy", lambda shape: np.empty(shape, dtype=np.float32)),
    ]
    for name, op, np_op in ops:
        for lib, make in libs:
            f = np_op if lib == "numpy" else op
            small, big = make(small_shape), make(big_shape)
            stmts = [lambda f=f, x=small: f(x), lambda f=f, x=big: f(x)]
            t_small, t_big = (min(x) for x in measure(stmts, number, repeat))
            ratio = t_big / t_small
            verdict = mark(ratio, SIZE_TARGET) if lib == "strided" else ""
            if verdict == "FAIL":
                failures.append(f"{name} at 10^8: {ratio:.2f}x its time at 10^2")
            print(f"   {name if lib == 'strided' else '':<14} {lib:<8} {t_small * 1e6:>7.2f}µs "
                  f"{t_big * 1e6:>7.2f}µs {ratio:>9.2f}x  {verdict}")
            del small, big, stmts  # free the 400 MB before the next one
    print()
    return failures


def bench_contiguous(repeat: int) -> list[str]:
    rows, cols = 2048, 4096
    source = np.random.default_rng(0).standard_normal((rows, cols), dtype=np.float32)
    mb = source.nbytes / 2**20
    # the same memory, transposed, in each library: shape (4096, 2048), strides (1, 4096) elements
    s = strided.from_numpy(source).t()
    t = torch.from_numpy(source).t()
    a = source.T
    assert not s.is_contiguous() and not t.is_contiguous() and not a.flags.c_contiguous
    print(f"3. contiguous() of a transposed {mb:.0f} MB float32 tensor: shape {s.shape}, "
          f"strides {s.stride()} (a full copy)")
    stmts = [lambda: s.contiguous(), lambda: t.contiguous(), lambda: np.ascontiguousarray(a)]
    samples = measure(stmts, number=1, repeat=repeat)
    ts, tt, tn = (min(x) for x in samples)
    ms, mt, mn = (statistics.median(x) for x in samples)
    # the copies must be right, or the timing means nothing
    assert np.array_equal(s.contiguous().numpy(), np.ascontiguousarray(a))
    header = f"   {'library':<36} {'min':>9} {'median':>9}"
    print(header)
    print("   " + "-" * (len(header) - 3))
    print(f"   {'strided  t.contiguous()':<36} {ts * 1e3:>7.2f}ms {ms * 1e3:>7.2f}ms")
    print(f"   {'torch    t.contiguous()':<36} {tt * 1e3:>7.2f}ms {mt * 1e3:>7.2f}ms")
    print(f"   {'numpy    np.ascontiguousarray(a)':<36} {tn * 1e3:>7.2f}ms {mn * 1e3:>7.2f}ms")
    r_n = ts / tn
    verdict = mark(r_n, NUMPY_TARGET)
    print(f"   strided/numpy {r_n:.2f}x (median {ms / mn:.2f}x)  target <= 1.0 (+10% noise): {verdict}")
    print(f"   strided/torch {ts / tt:.2f}x (median {ms / mt:.2f}x)  (for reference, no target)")
    print()
    return [f"contiguous(): {r_n:.2f}x numpy"] if verdict == "FAIL" else []


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats: a few seconds, noisier")
    parser.add_argument("--small", action="store_true", help="section 1 only (the per-op table)")
    args = parser.parse_args(argv)
    number, repeat, big_repeat = (2_000, 3, 3) if args.quick else (5_000, 25, 15)
    print_header(f"torch {torch.__version__} | numpy {np.__version__}")
    failures = bench_small(number, repeat)
    if not args.small:
        failures += bench_sizes(number, repeat)
        failures += bench_contiguous(big_repeat)
    if failures:
        print("targets missed: " + "; ".join(failures))
    else:
        print("all targets met")
    return 0  # a benchmark reports; it does not fail a build


if __name__ == "__main__":
    sys.exit(main())
