"""Joining benchmark: ``cat``, ``stack`` and ``repeat`` in strided, NumPy and PyTorch, in one run,
printed as ratios.

Run from the repository root:

    .venv/bin/python bench/bench_join.py          # about half a minute
    .venv/bin/python bench/bench_join.py --quick  # fewer repeats, noisier

Each row times one operation in the three libraries round-robin (noise falls on all alike) and
prints the minimum per-call time over the repeats, the ratios strided/numpy and strided/torch,
and strided over the faster of the two (``s/best``). PyTorch runs on one thread.

Target (issue 12): on large inputs, strided within 1.2x of the faster of NumPy and PyTorch
(``s/best <= 1.2``): ``cat`` of 8 (1024, 1024) float32 tensors along dim 0 and along dim 1, their
``stack``, and ``repeat(2, 2)`` of one of them. strided's kernels are NumPy's
(``np.concatenate`` / ``np.stack`` / one broadcast ``np.copyto`` into the result's memory), so
only strided's overhead may add. Nothing here is a test: timings vary with the machine.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import sys  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402

import strided  # noqa: E402
from harness import Row, Section, run  # noqa: E402
from strided.ops.shape.joining import cat, stack  # noqa: E402

torch.set_num_threads(1)

def rows() -> list[Row]:
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal((1024, 1024), dtype=np.float32) for _ in range(8)]
    s = [strided.from_numpy(a) for a in arrays]
    t = [torch.from_numpy(a) for a in arrays]
    # the results must agree, or the timings mean nothing
    np.testing.assert_array_equal(cat(s, 1).numpy(), np.concatenate(arrays, 1))
    np.testing.assert_array_equal(stack(s, 0).numpy(), np.stack(arrays, 0))
    np.testing.assert_array_equal(s[0].repeat(2, 2).numpy(), np.tile(arrays[0], (2, 2)))
    return [
        Row("cat 8x(1024,1024) dim 0", lambda: cat(s, 0), lambda: np.concatenate(arrays, 0),
            lambda: torch.cat(t, 0)),
        Row("cat 8x(1024,1024) dim 1", lambda: cat(s, 1), lambda: np.concatenate(arrays, 1),
            lambda: torch.cat(t, 1)),
        Row("stack 8x(1024,1024) dim 0", lambda: stack(s, 0), lambda: np.stack(arrays, 0),
            lambda: torch.stack(t, 0)),
        Row("stack 8x(1024,1024) dim 2", lambda: stack(s, 2), lambda: np.stack(arrays, 2),
            lambda: torch.stack(t, 2)),
        Row("repeat(2, 2) (1024,1024)", lambda: s[0].repeat(2, 2), lambda: np.tile(arrays[0], (2, 2)),
            lambda: t[0].repeat(2, 2)),
    ]


SECTIONS = [Section("", rows, 15)]


def main(argv: list[str] | None = None) -> int:
    return run(__doc__.splitlines()[0], SECTIONS, argv)


if __name__ == "__main__":
    sys.exit(main())
