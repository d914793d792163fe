"""erfinv: speed against PyTorch (process time, interleaved, one thread) and the accuracy table
(fraction bit-equal to PyTorch, max ulp) for float32 and float64, both paths.

    .venv/bin/python bench/bench_erfinv.py                # ~10 s
    .venv/bin/python bench/bench_erfinv.py --exhaustive   # also every float32 in [0, 1): minutes
"""

from __future__ import annotations

import sys
import time

import numpy as np
import torch

import strided as st
from strided.kernels import native


def ulps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    i = np.int64 if a.dtype == np.float64 else np.int32
    ia, ib = a.view(i).astype(np.int64), b.view(i).astype(np.int64)
    lo = np.iinfo(i).min
    return np.abs(np.where(ia < 0, lo - ia, ia) - np.where(ib < 0, lo - ib, ib))


def speed(n: int = 10**6, repeats: int = 7) -> None:
    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    for dt in ("float32", "float64"):
        y = rng.uniform(-1, 1, n).astype(dt)
        s, t = st.from_numpy(y), torch.from_numpy(y)
        runs: dict[str, list[float]] = {"strided": [], "torch": []}
        for _ in range(repeats):
            for name, f, x in (("strided", st.erfinv, s), ("torch", torch.erfinv, t)):
                t0 = time.process_time()
                f(x)
                runs[name].append(time.process_time() - t0)
        med = {k: 1e3 * float(np.median(v)) for k, v in runs.items()}
        print(f"{dt} n={n}: strided {med['strided']:.1f} ms  torch {med['torch']:.1f} ms  "
              f"({med['strided'] / med['torch']:.1f}x torch)")


def points(dt: str) -> np.ndarray:
    rng = np.random.default_rng(11)
    tail = 1 - 10.0 ** -rng.uniform(0, 16, 150000)
    y = np.concatenate([rng.uniform(-1, 1, 500000), tail, -tail, 10.0 ** -rng.uniform(0, 320, 100000),
                        rng.uniform(0.4, 0.6, 100000)]).astype(dt)
    return y[np.abs(y) < 1]


def table(y: np.ndarray, label: str) -> None:
    ref = torch.erfinv(torch.from_numpy(y)).numpy()
    for path in ("compiled", "numpy"):
        if path == "numpy":
            with native.disabled():
                got = st.erfinv(st.from_numpy(y)).numpy()
        else:
            got = st.erfinv(st.from_numpy(y)).numpy()
        u = ulps(got, ref)
        print(f"{label} {path:8s} n={y.size}: bit-equal {(u == 0).mean():.4f}  <=1 ulp {(u <= 1).mean():.4f}  "
              f"max {u.max()} ulp")


def exhaustive() -> None:
    """every float32 in [0, 1) (erfinv is odd: the negatives mirror), compiled path"""
    one = int(np.float32(1).view(np.int32))
    worst, equal = 0, 0
    for lo in range(0, one, 1 << 24):
        y = np.arange(lo, min(lo + (1 << 24), one), dtype=np.int32).view(np.float32)
        u = ulps(st.erfinv(st.from_numpy(y)).numpy(), torch.erfinv(torch.from_numpy(y)).numpy())
        worst, equal = max(worst, int(u.max())), equal + int((u == 0).sum())
    print(f"float32 exhaustive [0, 1), {one} values: bit-equal {equal / one:.5f}  max {worst} ulp")


if __name__ == "__main__":
    speed()
    for dt in ("float32", "float64"):
        table(points(dt), dt)
    if "--exhaustive" in sys.argv:
        exhaustive()
