"""cdist benchmark: strided.cdist side by side with torch.cdist (one thread) and NumPy's textbook
broadcast formula ``sqrt(((a[:, None] - b[None]) ** 2).sum(-1))``, printed as ratios.

Run from the repository root:

    .venv/bin/python bench/bench_cdist.py          # under a minute
    .venv/bin/python bench/bench_cdist.py --quick  # fewer repeats, noisier

Each row times one cdist in the three libraries round-robin and prints the minimum per-call time,
then strided over NumPy, over PyTorch, and over the faster of the two (``s/best``; target 1.2,
issue 12). strided and PyTorch both take the matrix-product path for p=2 (more than 25 rows);
NumPy builds the (P, R, M) difference. Nothing here is a test: timings vary with the machine.
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
from strided.ops.linalg.distance import cdist  # noqa: E402

torch.set_num_threads(1)

CASES = [((2000, 2), (2000, 2), "float64"), ((2000, 2), (2000, 2), "float32"),
         ((1024, 128), (1024, 128), "float64"), ((1024, 128), (1024, 128), "float32")]


def _numpy_cdist(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.sqrt(((a[:, None] - b[None]) ** 2).sum(-1))


def rows() -> list[Row]:
    rng = np.random.default_rng(0)
    out = []
    for shape1, shape2, dtype in CASES:
        a = rng.standard_normal(shape1).astype(dtype)
        b = rng.standard_normal(shape2).astype(dtype)
        sa, sb = strided.from_numpy(a), strided.from_numpy(b)
        ta, tb = torch.from_numpy(a), torch.from_numpy(b)
        # the results must agree, or the timings mean nothing
        tol = 1e-3 if dtype == "float32" else 1e-8
        np.testing.assert_allclose(cdist(sa, sb).numpy(), torch.cdist(ta, tb).numpy(), atol=tol, rtol=tol)
        out.append(Row(f"{shape1} x {shape2} {dtype}", lambda sa=sa, sb=sb: cdist(sa, sb),
                       lambda a=a, b=b: _numpy_cdist(a, b), lambda ta=ta, tb=tb: torch.cdist(ta, tb)))
    return out


SECTIONS = [Section("cdist, p=2 (one call each, min over repeats)", rows, 9)]


def main(argv: list[str] | None = None) -> int:
    return run(__doc__.splitlines()[0], SECTIONS, argv)


if __name__ == "__main__":
    sys.exit(main())
