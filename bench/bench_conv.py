"""Convolution benchmark: strided's F.conv2d and its two contraction strategies against PyTorch's CPU
conv2d, one thread each, in one run, printed as ratios.

Run from the repository root:

    .venv/bin/python bench/bench_conv.py          # about half a minute
    .venv/bin/python bench/bench_conv.py --quick  # fewer repeats, noisier

Both strategies read the input's windows as ONE strided view (N, C, OH, OW, KH, KW) of the
(padded) input, no im2col copy:

- ``per_offset`` (what F.conv2d runs): for each kernel offset, one batched matmul of the
  weight's (O, C) slice with the windows at that offset, accumulated;
- ``einsum``: one ``np.einsum`` over the whole window view with ``optimize=False`` (NumPy's
  own loop reads the view in place; ``optimize=True`` would reshape the view for BLAS, which is
  an im2col copy, so it is not a no-copy strategy);
- ``strided.einsum``: strided's planner on the same view (its plan's copied bytes printed).

Each row prints the minimum per-call time over the repeats (round-robin, so load falls on all
alike) and the ratio to PyTorch (above 1: slower). Nothing here is a test.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"  # before NumPy/PyTorch load their BLAS: every library on one thread

import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402

import strided  # noqa: E402
import strided.nn.functional as F  # noqa: E402
from strided.nn.functional.conv import _geometry, _padded, windows  # noqa: E402

torch.set_num_threads(1)

CASES = [  # (name, input shape, weight shape, keywords, channels_last)
    ("3x3 pad 1, 16->32 ch, 32x32, N=8", (8, 16, 32, 32), (32, 16, 3, 3), {"padding": 1}, False),
    ("same, channels_last", (8, 16, 32, 32), (32, 16, 3, 3), {"padding": 1}, True),
    ("5x5 stride 2, 3->16 ch, 64x64, N=16", (16, 3, 64, 64), (16, 3, 5, 5), {"stride": 2}, False),
    ("3x3, 64->64 ch, 16x16, N=4", (4, 64, 16, 16), (64, 64, 3, 3), {"padding": 1}, False),
    ("depthwise 3x3, 32 ch, 32x32, N=8", (8, 32, 32, 32), (32, 1, 3, 3), {"padding": 1, "groups": 32}, False),
]


def best_of(fns: dict, repeats: int) -> dict:
    times = {k: float("inf") for k in fns}
    for _ in range(repeats):
        for k, fn in fns.items():
            t0 = time.perf_counter()
            fn()
            times[k] = min(times[k], time.perf_counter() - t0)
    return times


def einsum_strategy(x: strided.Tensor, w: strided.Tensor, kw: dict) -> callable:
    """One np.einsum (optimize=False: NumPy's loop, no copy) over the window view."""
    geo = _geometry("conv2d", 2, x, w, None, kw.get("stride", 1), kw.get("padding", 0), 1, kw.get("groups", 1))
    g = geo.groups

    def run() -> np.ndarray:
        xw = windows(_padded(x, geo, False), geo)._np()
        xg = xw.reshape(geo.n, g, geo.c // g, *xw.shape[2:])
        wg = w._np().reshape(g, geo.o // g, *w.shape[1:])
        return np.einsum("ngchwij,gocij->ngohw", xg, wg, optimize=False)

    return run


def strided_einsum(x: strided.Tensor, w: strided.Tensor, kw: dict) -> tuple:
    """strided.einsum over the window view (groups=1 only), and the bytes its run copies."""
    geo = _geometry("conv2d", 2, x, w, None, kw.get("stride", 1), kw.get("padding", 0), 1, 1)

    def run() -> strided.Tensor:
        return strided.einsum("nchwij,ocij->nohw", windows(_padded(x, geo, False), geo), w)

    with strided.watch() as seen:
        run()
    return run, seen.bytes_copied


def main() -> None:
    repeats = 3 if "--quick" in sys.argv else 10
    rng = np.random.default_rng(0)
    print(f"{'case':40s} {'torch':>9s} {'per_offset':>11s} {'ratio':>6s} {'einsum':>9s} {'ratio':>6s} "
          f"{'s.einsum':>9s} {'ratio':>6s} {'copied':>9s}")
    for name, xs, ws, kw, cl in CASES:
        a, b = rng.standard_normal(xs).astype(np.float32), rng.standard_normal(ws).astype(np.float32)
        tx, tw = torch.from_numpy(a), torch.from_numpy(b)
        sx, sw = strided.from_numpy(a), strided.from_numpy(b)
        if cl:
            tx, sx = tx.contiguous(memory_format=torch.channels_last), sx.contiguous(memory_format=strided.channels_last)
        np.testing.assert_allclose(F.conv2d(sx, sw, **kw).numpy(), torch.nn.functional.conv2d(tx, tw, **kw).numpy(),
                                   rtol=1e-3, atol=1e-3)
        fns = {"torch": lambda tx=tx, tw=tw, kw=kw: torch.nn.functional.conv2d(tx, tw, **kw),
               "per_offset": lambda sx=sx, sw=sw, kw=kw: F.conv2d(sx, sw, **kw),
               "einsum": einsum_strategy(sx, sw, kw)}
        copied = "-"
        if kw.get("groups", 1) == 1:
            fns["s.einsum"], nbytes = strided_einsum(sx, sw, kw)
            copied = f"{nbytes / 2**20:.1f} MiB"
        t = best_of(fns, repeats)
        se = f"{t['s.einsum'] * 1e3:8.2f}m {t['s.einsum'] / t['torch']:6.1f}" if "s.einsum" in t else f"{'-':>9s} {'-':>6s}"
        print(f"{name:40s} {t['torch'] * 1e3:8.2f}m {t['per_offset'] * 1e3:10.2f}m "
              f"{t['per_offset'] / t['torch']:6.1f} {t['einsum'] * 1e3:8.2f}m {t['einsum'] / t['torch']:6.1f} "
              f"{se} {copied:>9s}")
    print("times in milliseconds (m), the minimum over the repeats; ratio = time / torch's (one thread each)")


if __name__ == "__main__":
    main()
