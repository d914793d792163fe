"""Indexing-functions benchmark: gather, scatter_add_, index_select and masked_fill_ in strided,
NumPy and PyTorch, in one run, printed as ratios.

Run from the repository root:

    .venv/bin/python bench/bench_gather_scatter.py          # about half a minute
    .venv/bin/python bench/bench_gather_scatter.py --quick  # fewer repeats, noisier

How to read it
--------------
Each row times one operation on a (4096, 1024) float32 tensor (16 MB; the index is int64) in the
three libraries, round-robin repeat by repeat, and prints the minimum per-call time, the ratios
strided/numpy and strided/torch, and strided over the faster of the two (``s/best``). PyTorch runs
on one thread (``torch.set_num_threads(1)``); NumPy is single-threaded.

The NumPy column is the fastest formulation found, not the most obvious one:

- gather along dim 1: ``np.take`` on the flat array at ``index + row * 1024`` (flat-index
  arithmetic: as fast as ``np.take_along_axis`` or faster, which builds the same index with
  broadcast ``arange``\\ s and fancy indexing);
- scatter_add_ along dim 1: ``np.add.at`` on the flat array at the same flat positions (NumPy 2's
  1-D fast path; ``np.bincount(..., weights=)`` is slower here, as it makes a float64 array of
  the whole target and adds it back);
- index_select along dim 0: ``np.take(a, index, axis=0)``;
- masked_fill_: ``np.putmask`` (faster than ``np.copyto(..., where=mask)``).

Target (issue 12): strided within 1.2x of the faster library on these large inputs (``s/best``).
Nothing here is a test: timings vary with the machine and its load.
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

torch.set_num_threads(1)

R, C = 4096, 1024
def rows() -> list[Row]:
    rng = np.random.default_rng(0)
    a = rng.standard_normal((R, C), dtype=np.float32)
    index = rng.integers(0, C, (R, C))
    src = rng.standard_normal((R, C), dtype=np.float32)
    rows_index = rng.integers(0, R, R)
    mask = rng.random((R, C)) < 0.5
    flat_rows = (np.arange(R) * C)[:, None]  # the flat position of each row's first element

    sa, si, ss = strided.from_numpy(a), strided.from_numpy(index), strided.from_numpy(src)
    ta, ti, ts = torch.from_numpy(a), torch.from_numpy(index), torch.from_numpy(src)
    s_rows, t_rows = strided.from_numpy(rows_index), torch.from_numpy(rows_index)
    s_mask, t_mask = strided.from_numpy(mask), torch.from_numpy(mask)
    # in-place targets (each library its own; the values drift as the repeats add, which the
    # timings do not care about)
    a_n, a_s, a_t = a.copy(), a.copy(), a.copy()
    s_target, t_target = strided.from_numpy(a_s), torch.from_numpy(a_t)

    # the results must agree, or the timings mean nothing
    np.testing.assert_array_equal(sa.gather(1, si).numpy(), np.take_along_axis(a, index, 1))
    np.testing.assert_array_equal(sa.gather(1, si).numpy(), np.take(a.reshape(-1), index + flat_rows))
    np.testing.assert_array_equal(sa.index_select(0, s_rows).numpy(), ta.index_select(0, t_rows).numpy())
    check_s, check_t = strided.from_numpy(a.copy()), torch.from_numpy(a.copy())
    check_s.scatter_add_(1, si, ss)
    check_t.scatter_add_(1, ti, ts)
    np.testing.assert_allclose(check_s.numpy(), check_t.numpy(), rtol=1e-5, atol=1e-5)
    check_s.masked_fill_(s_mask, 0.0)
    check_t.masked_fill_(t_mask, 0.0)
    np.testing.assert_array_equal(check_s.numpy()[mask], 0.0)

    def np_scatter_add() -> None:
        np.add.at(a_n.reshape(-1), (index + flat_rows).reshape(-1), src.reshape(-1))

    return [
        Row("gather(1, index)", lambda: sa.gather(1, si),
            lambda: np.take(a.reshape(-1), index + flat_rows), lambda: ta.gather(1, ti)),
        Row("scatter_add_(1, index, src)", lambda: s_target.scatter_add_(1, si, ss), np_scatter_add,
            lambda: t_target.scatter_add_(1, ti, ts)),
        Row("index_select(0, 4096 rows)", lambda: sa.index_select(0, s_rows),
            lambda: np.take(a, rows_index, axis=0), lambda: ta.index_select(0, t_rows)),
        Row("masked_fill_(mask, 0.0)", lambda: s_target.masked_fill_(s_mask, 0.0),
            lambda: np.putmask(a_n, mask, 0.0), lambda: t_target.masked_fill_(t_mask, 0.0)),
    ]


SECTIONS = [Section(f"Indexing functions on a ({R}, {C}) float32 tensor, int64 index (one call each, "
                    "min over repeats)", rows, 15)]


def main(argv: list[str] | None = None) -> int:
    return run(__doc__.splitlines()[0], SECTIONS, argv)


if __name__ == "__main__":
    sys.exit(main())
