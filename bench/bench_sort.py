"""Sorting benchmark: strided's sort, topk, cumsum and unique side by side with NumPy and PyTorch.

Run from the repository root:

    .venv/bin/python bench/bench_sort.py          # about half a minute
    .venv/bin/python bench/bench_sort.py --quick  # fewer repeats, noisier

Each row times one operation in the three libraries, round-robin repeat by repeat, and prints the
minimum per-call time, the ratios strided/numpy and strided/torch, and strided over the faster of
the two (``s/best``). PyTorch runs on one thread; NumPy's sorts are single-threaded.

The NumPy column does the same work a NumPy user would write for it: ``sort`` (values and indices)
is ``argsort`` plus a gather, ``topk`` is ``argpartition`` plus sorting the k, ``unique`` is
``np.unique``, ``cumsum`` is ``np.cumsum`` (which accumulates float32 in float32; strided and PyTorch
accumulate in float64).

Target (issue 12): strided within 1.2x of the faster of NumPy and PyTorch on these large inputs.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"  # before NumPy/PyTorch load: every library on one thread

import sys  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402

import strided  # noqa: E402
from harness import Row, Section, run  # noqa: E402
from strided.ops.reductions.scans import cumsum  # noqa: E402
from strided.ops.shape.sets import unique  # noqa: E402
from strided.ops.shape.sorting import sort, topk  # noqa: E402

torch.set_num_threads(1)


def _np_sort(a: np.ndarray, axis: int) -> tuple[np.ndarray, np.ndarray]:
    i = np.argsort(a, axis=axis)
    return np.take_along_axis(a, i, axis=axis), i


def _np_topk(a: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    part = np.argpartition(a, a.shape[-1] - k, axis=-1)[..., -k:]
    vals = np.take_along_axis(a, part, axis=-1)
    order = np.argsort(vals, axis=-1)[..., ::-1]
    return np.take_along_axis(vals, order, axis=-1), np.take_along_axis(part, order, axis=-1)


def rows() -> list[Row]:
    rng = np.random.default_rng(0)
    flat = rng.standard_normal(10**6, dtype=np.float32)
    square = rng.standard_normal((1024, 1024), dtype=np.float32)
    wide = rng.standard_normal((4096, 1024), dtype=np.float32)
    ints = rng.integers(0, 10**5, 10**6)
    s = {k: strided.from_numpy(v) for k, v in
         {"flat": flat, "square": square, "wide": wide, "ints": ints}.items()}
    t = {k: torch.from_numpy(v) for k, v in
         {"flat": flat, "square": square, "wide": wide, "ints": ints}.items()}
    return [
        Row("sort (10^6,) f32", lambda: sort(s["flat"]), lambda: _np_sort(flat, -1), lambda: t["flat"].sort()),
        Row("sort (1024,1024) dim 1", lambda: sort(s["square"], 1), lambda: _np_sort(square, 1),
            lambda: t["square"].sort(1)),
        Row("sort (1024,1024) dim 0", lambda: sort(s["square"], 0), lambda: _np_sort(square, 0),
            lambda: t["square"].sort(0)),
        Row("topk k=10 (4096,1024)", lambda: topk(s["wide"], 10), lambda: _np_topk(wide, 10),
            lambda: t["wide"].topk(10)),
        Row("cumsum (10^6,) f32", lambda: cumsum(s["flat"], 0), lambda: np.cumsum(flat),
            lambda: t["flat"].cumsum(0)),
        Row("cumsum (1024,1024) dim 0", lambda: cumsum(s["square"], 0), lambda: np.cumsum(square, 0),
            lambda: t["square"].cumsum(0)),
        Row("unique 10^6 int64", lambda: unique(s["ints"]), lambda: np.unique(ints), lambda: t["ints"].unique()),
    ]


SECTIONS = [Section("", rows, 7)]


def main(argv: list[str] | None = None) -> int:
    return run(__doc__.splitlines()[0], SECTIONS, argv)


if __name__ == "__main__":
    sys.exit(main())
