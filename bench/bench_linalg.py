"""linalg benchmark: strided.linalg side by side with torch.linalg (one thread) and numpy.linalg,
forward only, printed as ratios.

Run from the repository root:

    .venv/bin/python bench/bench_linalg.py          # under a minute
    .venv/bin/python bench/bench_linalg.py --quick  # fewer repeats, noisier

strided calls numpy.linalg over the whole batch, so its time is NumPy's plus the tensor around it
(argument checks, the result laid out column-major as PyTorch's LAPACK results are). Rows: a batch
of small matrices (where the per-call overhead shows) and one larger matrix (where LAPACK's time
does). Nothing here is a test: timings vary with the machine.
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

SHAPES = [(64, 4, 4), (128, 128)]


def _spd(shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    a = rng.standard_normal(shape)
    return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])


def rows() -> list[Row]:
    rng = np.random.default_rng(0)
    out = []
    for shape in SHAPES:
        a = _spd(shape, rng)
        s, t = strided.from_numpy(a), torch.from_numpy(a)
        for name, nf in (("inv", np.linalg.inv), ("det", np.linalg.det), ("cholesky", np.linalg.cholesky),
                         ("eigh", np.linalg.eigh), ("svd", np.linalg.svd)):
            sf, tf = getattr(strided.linalg, name), getattr(torch.linalg, name)
            if name not in ("eigh", "svd"):  # (the results must agree, or the timings mean nothing)
                np.testing.assert_allclose(sf(s).numpy(), tf(t).numpy(), rtol=1e-8, atol=1e-10)
            out.append(Row(f"{name} {shape}", lambda sf=sf, s=s: sf(s), lambda nf=nf, a=a: nf(a),
                           lambda tf=tf, t=t: tf(t), target_vs="numpy"))
    return out


SECTIONS = [Section("linalg, float64 (one call each, min over repeats)", rows, 7)]


def main(argv: list[str] | None = None) -> int:
    return run(__doc__.splitlines()[0], SECTIONS, argv)


if __name__ == "__main__":
    sys.exit(main())
