"""Advanced-indexing benchmark: strided side by side with NumPy and PyTorch, in one run, as ratios.

Run from the repository root:

    .venv/bin/python bench/bench_indexing.py          # about half a minute
    .venv/bin/python bench/bench_indexing.py --quick  # fewer repeats, noisier

How to read it
--------------
Each row times one operation in the three libraries, round-robin repeat by repeat (so noise from
other processes falls on all of them alike), and prints the *minimum* per-call time over the
repeats, then strided/numpy, strided/torch and strided over the faster of the two (``s/best``).
PyTorch runs with one thread (``torch.set_num_threads(1)``); NumPy's indexing is single-threaded.
The NumPy column runs NumPy's fastest spelling of the operation (named in the last column:
``np.take`` gathers along one axis faster than ``a[idx]``; ``np.putmask`` fills under a mask
faster than ``a[mask] = 0``).

Target (issue 12): on these large inputs, strided / the faster of NumPy and PyTorch <= 1.2:

- gathers ``x[idx]`` with a 10^6-element int64 index: of a (10^6,) float32 tensor, of a
  (4096, 1024) one by rows and columns (``x[r, c]``, two 10^6-element indices), and of its rows
  (``x[rows]``, 1024 rows: 10^6 elements);
- a bool-mask read ``x[x > 0]`` and a masked write ``x[mask] = 0`` on (4096, 1024) float32 (the
  mask is ``x < 0`` computed once, so every call writes the same elements);
- ``index_put_(accumulate=True)`` of 10^6 values at 10^6 random indices (repeats sum), into a
  (10^6,) and a (4096, 1024) tensor; strided uses ``np.add.at`` (NumPy 2's fast path for one 1-d
  index; measured 2.5x faster than a ``np.bincount`` of the weights over a 10^6-element target),
  over one linear index into the storage for the 2-d case.

Nothing here is a test: timings vary with the machine and its load.
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

torch.set_num_threads(1)

def rows() -> list[Row]:
    rng = np.random.default_rng(0)
    n = 10**6
    a = rng.standard_normal(n, dtype=np.float32)
    idx = rng.integers(0, n, n)
    sa, ta = strided.from_numpy(a), torch.from_numpy(a)
    si, ti = strided.from_numpy(idx), torch.from_numpy(idx)

    m = rng.standard_normal((4096, 1024), dtype=np.float32)
    sm, tm = strided.from_numpy(m), torch.from_numpy(m)
    r, c = rng.integers(0, 4096, n), rng.integers(0, 1024, n)
    sr, sc, tr, tc = strided.from_numpy(r), strided.from_numpy(c), torch.from_numpy(r), torch.from_numpy(c)
    rows_ = rng.integers(0, 4096, 1024)
    srows, trows = strided.from_numpy(rows_), torch.from_numpy(rows_)

    # the masked write: one target per library, the same mask every call
    w_np, w_s, w_t = m.copy(), strided.tensor(m), torch.from_numpy(m.copy())
    neg = m < 0
    s_neg, t_neg = strided.from_numpy(neg), torch.from_numpy(neg)

    z_np, z_s, z_t = np.zeros(n, np.float32), strided.zeros(n), torch.zeros(n)
    z2_np, z2_s, z2_t = np.zeros((4096, 1024), np.float32), strided.zeros(4096, 1024), torch.zeros(4096, 1024)

    # the results must agree, or the timings mean nothing
    np.testing.assert_array_equal(sa[si].numpy(), a[idx])
    np.testing.assert_array_equal(sm[sr, sc].numpy(), m[r, c])
    np.testing.assert_array_equal(sm[srows].numpy(), m[rows_])
    np.testing.assert_array_equal(sm[sm > 0].numpy(), m[m > 0])
    check = strided.zeros(n).index_put_((si,), sa, accumulate=True).numpy()
    expect = np.zeros(n, np.float32)
    np.add.at(expect, idx, a)
    np.testing.assert_allclose(check, expect, rtol=1e-5, atol=1e-5)

    return [
        Row("x[idx] (1e6,), 1e6 idx", lambda: sa[si], lambda: np.take(a, idx), lambda: ta[ti],
            note="np.take(a, idx)"),
        Row("x[r, c] (4096,1024)", lambda: sm[sr, sc], lambda: m[r, c], lambda: tm[tr, tc], note="m[r, c]"),
        Row("x[rows] (4096,1024)", lambda: sm[srows], lambda: np.take(m, rows_, axis=0), lambda: tm[trows],
            note="np.take(m, rows, axis=0)", number=10),
        Row("x[x > 0] (4096,1024)", lambda: sm[sm > 0], lambda: m[m > 0], lambda: tm[tm > 0], note="m[m > 0]"),
        Row("x[mask] = 0 (4096,1024)", lambda: w_s.__setitem__(s_neg, 0), lambda: np.putmask(w_np, neg, 0),
            lambda: w_t.__setitem__(t_neg, 0), note="np.putmask(m, mask, 0)"),
        Row("index_put_ acc (1e6,)", lambda: z_s.index_put_((si,), sa, accumulate=True),
            lambda: np.add.at(z_np, idx, a), lambda: z_t.index_put_((ti,), ta, accumulate=True),
            note="np.add.at(z, idx, a)"),
        Row("index_put_ acc (4096,1024)", lambda: z2_s.index_put_((sr, sc), sa, accumulate=True),
            lambda: np.add.at(z2_np, (r, c), a), lambda: z2_t.index_put_((tr, tc), ta, accumulate=True),
            note="np.add.at(z, (r, c), a)"),
    ]


SECTIONS = [Section("Advanced indexing on large inputs (one call each, min over repeats)", rows, 9,
                    note="numpy op")]


def main(argv: list[str] | None = None) -> int:
    return run(__doc__.splitlines()[0], SECTIONS, argv)


if __name__ == "__main__":
    sys.exit(main())
