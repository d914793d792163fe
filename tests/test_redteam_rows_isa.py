"""Red team (session 12): every copy of the row kernel's loops (kernels/_rowkernel.c) gives NumPy's bits
(rows, full sums, columns, and nansum's sums that read NaN as 0).

The module picks its loops once, at import, by the CPU (baseline, AVX2, AVX-512F for float64), so
one machine ran only its own copy. ``STRIDED_NATIVE_ROWS_ISA`` (tests only) restricts the pick;
each restriction runs in a fresh process and its sums and extremes are compared with NumPy's.
It found the dispatch sending float32 rows to the float64 AVX-512 loop where AVX-512F is seen
without AVX2 (``use_avx512`` tested without the itemsize; no shipped CPU, but a VM's CPUID
masking can): float32 rows read and their sums written as float64, past both buffers' ends
(forced here: ``malloc(): invalid size``, the process aborted).
"""

from __future__ import annotations

import pytest

from strided.kernels import rows

_SCRIPT = r"""
import numpy as np
from strided.kernels import rows
assert rows._kernel_module() is not None
rng = np.random.default_rng(5)
bad = []
for dt in ("f4", "f8"):
    for length in (1, 7, 8, 9, 64, 100, 128, 129, 511, 512, 513, 2048, 4100, 16384, 70000):
        count = max(3, -(-rows.MIN_ELEMENTS // length))
        x = (rng.standard_normal((count, length)) * 10.0 ** rng.integers(-8, 8, (count, length))).astype(dt)
        x[0, length // 2] = np.inf
        if count > 2:
            x[2, 0] = -0.0
        nans = x.copy()
        nans.reshape(-1)[::7] = np.nan
        zeroed = np.where(np.isnan(nans), 0, nans)
        for got, want in ((rows.add_reduce(x, 1), np.add.reduce(x, 1)),
                          # (None: the kernel does not take it, rows of one element sliding by one)
                          (rows.nan_zero_add_reduce(nans, 1, False) if length > 1 else np.add.reduce(zeroed, 1),
                           np.add.reduce(zeroed, 1)),
                          (rows.nan_zero_add_reduce(nans, None, True), np.add.reduce(zeroed, None, keepdims=True)),
                          (rows.add_reduce(x, 0), np.add.reduce(x, 0)),
                          (rows.max_reduce(x, 0), np.maximum.reduce(x, 0)),
                          (rows.min_reduce(x, 0), np.minimum.reduce(x, 0)),
                          (rows.add_reduce(x[:1].reshape(-1), 0), np.add.reduce(x[:1].reshape(-1), 0)),
                          (rows.add_reduce(x, None), np.add.reduce(x, None)),
                          (rows.max_reduce(x, 1), np.maximum.reduce(x, 1)),
                          (rows.min_reduce(x, 1), np.minimum.reduce(x, 1))):
            if np.asarray(got).tobytes() != np.asarray(want).tobytes():
                bad.append((dt, length))
print("BAD", bad)
"""


@pytest.mark.skipif(rows._kernel_module() is None, reason="the row kernel is not built (test_native_rows)")
@pytest.mark.parametrize("isa", ["base", "avx2", "avx512"])
def test_every_copy_of_the_loops_gives_numpys_bits(isa: str, run_with_rows_isa) -> None:
    assert run_with_rows_isa(_SCRIPT, isa) == "BAD []"
