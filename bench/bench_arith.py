"""Arithmetic benchmark: strided side by side with NumPy and PyTorch, in one run, printed as ratios.

Run from the repository root:

    .venv/bin/python bench/bench_arith.py          # about a minute and a half
    .venv/bin/python bench/bench_arith.py --quick  # fewer repeats, noisier

How to read it
--------------
Each row times one operation in the three libraries, round-robin repeat by repeat (so noise
from other processes falls on all of them alike), and prints the *minimum* per-call time over
the repeats, then the ratios strided/numpy and strided/torch (above 1 means strided is slower), and
strided over the faster of the two (``s/best``).
PyTorch runs with one thread (``torch.set_num_threads(1)``); NumPy's elementwise ufuncs are
single-threaded anyway and its BLAS is limited to one thread, so all three use one core.

Targets (issues 3 and 7):

- large ops (16M-element float32 add, multiply, exp; the broadcast add (64, 512, 768) + (768,)):
  strided/numpy <= 1.1 -- the kernels *are* NumPy's ufuncs, only strided's overhead may add;
- 16M-element float32 sum and a (512, 512) @ (512, 512) float32 matmul: strided/numpy <= 1.1
  (NumPy's BLAS is pinned to one thread before it loads, as PyTorch is);
- mixed layouts (issue 7): ``M.T + M`` and ``M + M.T`` for a (2048, 2048) float32 ``M``, and a
  permuted (64, 128, 256) operand meeting a contiguous one, in both operand orders: strided /
  the faster of NumPy and PyTorch <= 1.1 (column ``s/best``) -- the output follows the first
  operand's layout, as PyTorch's does, and the kernel walks the operands in tiles
  (``strided.kernels.tiles``);
- small ops on (3, 4) float32 (issue 7): add, multiply by a Python float, exp, the bias add
  (3, 4) + (4,), the transposed add, a full sum and a (3, 4) @ (4, 3) matmul:
  strided/torch <= 1.0 per op.

Adding a row: append a :class:`harness.Row` to the list returned by a ``*_rows()`` function (or
add a :class:`harness.Section` to ``SECTIONS``): a name, the three zero-argument callables, which
ratio the target applies to and its value. Nothing here is a test: timings vary with the machine and its load.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"  # before NumPy/PyTorch load their BLAS: every library on one thread

import sys  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402

import strided  # noqa: E402
from harness import Row, Section, run  # noqa: E402

torch.set_num_threads(1)


def large_rows() -> list[Row]:
    n = 16 * 2**20  # 16M elements, 64 MB per float32 operand
    rng = np.random.default_rng(0)
    a = rng.standard_normal(n, dtype=np.float32)
    b = rng.standard_normal(n, dtype=np.float32)
    sa, sb = strided.from_numpy(a), strided.from_numpy(b)
    ta, tb = torch.from_numpy(a), torch.from_numpy(b)
    x = rng.standard_normal((64, 512, 768), dtype=np.float32)
    bias = rng.standard_normal(768, dtype=np.float32)
    sx, sbias = strided.from_numpy(x), strided.from_numpy(bias)
    tx, tbias = torch.from_numpy(x), torch.from_numpy(bias)
    return [
        Row("add 16M float32", lambda: sa + sb, lambda: a + b, lambda: ta + tb, "numpy", 1.1),
        Row("mul 16M float32", lambda: sa * sb, lambda: a * b, lambda: ta * tb, "numpy", 1.1),
        Row("exp 16M float32", lambda: strided.exp(sa), lambda: np.exp(a), lambda: torch.exp(ta), "numpy", 1.1),
        Row("(64,512,768)+(768,)", lambda: sx + sbias, lambda: x + bias, lambda: tx + tbias, "numpy", 1.1),
    ]


def mixed_rows() -> list[Row]:
    rng = np.random.default_rng(0)
    m = rng.standard_normal((2048, 2048), dtype=np.float32)
    sm, tm = strided.from_numpy(m), torch.from_numpy(m)
    x = rng.standard_normal((64, 128, 256), dtype=np.float32)
    y = rng.standard_normal((256, 64, 128), dtype=np.float32)  # the shape of x.permute(2, 0, 1)
    sx, sy, tx, ty = strided.from_numpy(x), strided.from_numpy(y), torch.from_numpy(x), torch.from_numpy(y)
    xp = x.transpose(2, 0, 1)
    # the results must agree, or the timings mean nothing
    np.testing.assert_array_equal((sm.T + sm).numpy(), m.T + m)
    np.testing.assert_array_equal((sx.permute(2, 0, 1) + sy).numpy(), xp + y)
    return [
        Row("M.T + M (2048,2048)", lambda: sm.T + sm, lambda: m.T + m, lambda: tm.T + tm, "best", 1.1),
        Row("M + M.T (2048,2048)", lambda: sm + sm.T, lambda: m + m.T, lambda: tm + tm.T, "best", 1.1),
        Row("x.permute(2,0,1) + y", lambda: sx.permute(2, 0, 1) + sy, lambda: x.transpose(2, 0, 1) + y,
            lambda: tx.permute(2, 0, 1) + ty, "best", 1.1),
        Row("y + x.permute(2,0,1)", lambda: sy + sx.permute(2, 0, 1), lambda: y + x.transpose(2, 0, 1),
            lambda: ty + tx.permute(2, 0, 1), "best", 1.1),
    ]


def small_rows() -> list[Row]:
    base = np.arange(12, dtype=np.float32).reshape(3, 4)
    s1, s2 = strided.tensor(base), strided.tensor(base + 1)
    t1, t2 = torch.tensor(base), torch.tensor(base + 1)
    a1, a2 = base.copy(), base + 1
    s_row, t_row, a_row = strided.tensor(base[0]), torch.tensor(base[0]), base[0].copy()
    s1t, s2t, t1t, t2t, a1t, a2t = s1.T, s2.T, t1.T, t2.T, a1.T, a2.T
    sb, tb, ab = s1.T.contiguous(), t1.T.contiguous(), a1.T.copy()  # a row-major (4, 3)
    return [
        Row("(3,4) + (3,4)", lambda: s1 + s2, lambda: a1 + a2, lambda: t1 + t2, "torch", 1.0, number=5000),
        Row("(3,4) * 2.0", lambda: s1 * 2.0, lambda: a1 * 2.0, lambda: t1 * 2.0, "torch", 1.0, number=5000),
        Row("exp (3,4)", lambda: strided.exp(s1), lambda: np.exp(a1), lambda: torch.exp(t1), "torch", 1.0,
            number=5000),
        Row("(3,4) + (4,)", lambda: s1 + s_row, lambda: a1 + a_row, lambda: t1 + t_row, "torch", 1.0,
            number=5000),
        Row("(4,3) + (4,3), transposed", lambda: s1t + s2t, lambda: a1t + a2t, lambda: t1t + t2t, "torch", 1.0,
            number=5000),
        Row("sum (3,4)", lambda: s1.sum(), lambda: a1.sum(), lambda: t1.sum(), "torch", 1.0, number=5000),
        Row("(3,4) @ (4,3)", lambda: s1 @ sb, lambda: a1 @ ab, lambda: t1 @ tb, "torch", 1.0, number=5000),
    ]


def reduce_matmul_rows() -> list[Row]:
    rng = np.random.default_rng(0)
    flat = rng.standard_normal(16 * 2**20, dtype=np.float32)
    square = flat.reshape(4096, 4096)
    m1 = rng.standard_normal((512, 512), dtype=np.float32)
    m2 = rng.standard_normal((512, 512), dtype=np.float32)
    s_flat, t_flat = strided.from_numpy(flat), torch.from_numpy(flat)
    s_sq, t_sq, a_sq = strided.from_numpy(square).t(), torch.from_numpy(square).t(), square.T
    s1, s2 = strided.from_numpy(m1), strided.from_numpy(m2)
    t1, t2 = torch.from_numpy(m1), torch.from_numpy(m2)
    # the results must agree, or the timings mean nothing
    np.testing.assert_allclose(s_flat.sum().item(), float(flat.sum(dtype=np.float64)), rtol=1e-4)
    np.testing.assert_allclose((s1 @ s2).numpy(), m1 @ m2, rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(s_sq.sum(1).numpy(), a_sq.sum(1), rtol=1e-4, atol=1e-3)
    return [
        Row("sum 16M float32", lambda: s_flat.sum(), lambda: flat.sum(), lambda: t_flat.sum(), "numpy", 1.1),
        Row("(512,512) @ (512,512)", lambda: s1 @ s2, lambda: m1 @ m2, lambda: t1 @ t2, "numpy", 1.1),
        # for reference (no issue target): a strided read without a copy
        Row("sum(1) of (4096,4096).t()", lambda: s_sq.sum(1), lambda: a_sq.sum(1), lambda: t_sq.sum(1),
            "-", 0),
    ]


SECTIONS = [
    Section("Large elementwise ops (one call each, min over repeats)", large_rows, 15),
    Section("Reductions and matrix products (NumPy's BLAS on one thread)", reduce_matmul_rows, 15),
    Section("Mixed layouts (one call each; s/best: over the faster of NumPy and PyTorch)", mixed_rows, 15),
    Section("Small-op overhead (per-op time, (3, 4) float32)", small_rows, 25),
]


def main(argv: list[str] | None = None) -> int:
    return run(__doc__.splitlines()[0], SECTIONS, argv,
               libraries=f"torch {torch.__version__} (threads {torch.get_num_threads()}) | "
                         f"numpy {np.__version__} (single-threaded ufuncs, BLAS on one thread)")


if __name__ == "__main__":
    sys.exit(main())
