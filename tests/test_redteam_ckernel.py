"""Red team for the blocked erfinv kernel and fma32 in kernels/_specialkernel.c.

Sanitizer runs (ASan + UBSan build, every size from 0 to 8193 around the 64-element blocks and the
8192-element GIL threshold, offsets, negative strides, aliasing, NaN/inf/-0.0/subnormals/|y| > 1)
found nothing; kept here are the cheap checks that guard what those runs measured:

- float64 erfinv's true error near |y| = 0.5 is up to 5 ulp (mpmath), not the 3 that
  tests/test_erfinv_accuracy.py claimed: its 240 random points missed these. The Halley step's
  residual is evaluated with Cody's erf/erfc, themselves ~2 ulp off around x = 0.48 (measured:
  the start and the step are not the limit). PyTorch is within 1 ulp there.
- the kernel releases the GIL from 8192 elements on: four threads at once give one thread's bits.
- blocks of 64 sorted by branch: every size around a block edge, with all branches and the edge
  values mixed, gives the NumPy formulas' float32 bits (the compiled float32 form claims them).

The comparisons with the kernel need it built; without one they would compare the NumPy path with
itself, so they are not collected (test_native_special.py's test_the_kernel_is_built fails then).
"""

from __future__ import annotations

import threading

import mpmath
import numpy as np

import strided as st
from strided.kernels import native
from test_erfinv_accuracy import _both_paths, _ulps

_KERNEL = native.special()

# float64 inputs where one Halley step on Cody's erf/erfc lands 4 or 5 ulp from the true erfinv
# (found by 20000 uniform samples of [0.3, 0.9); seed 11)
_HARD = np.array([0.4948803882805183, 0.49961405590591434, 0.5116502627736609, 0.4997635335757561,
                  0.5082537204690458, 0.5005007464771977, 0.5086805148149433, 0.507256573975515])


def test_float64_erfinv_near_one_half_is_within_five_ulp_of_the_true_value() -> None:
    y = np.concatenate([_HARD, -_HARD])
    with mpmath.workdps(40):
        true = np.array([float(mpmath.erfinv(mpmath.mpf(float(v)))) for v in y])
    for got in _both_paths(y):
        u = _ulps(got, true)
        assert u.max() <= 5, (y[u > 5], u[u > 5])


def _mixed(n: int, dtype: type, seed: int) -> np.ndarray:
    """n values in [-1.05, 1.05] with every branch of the kernel and its edges mixed in."""
    rng = np.random.default_rng(seed)
    y = rng.uniform(-1.05, 1.05, n)
    y[: n // 2] = np.where(rng.random(n // 2) < 0.5, 1.0, -1.0) * (1.0 - 10.0 ** -rng.uniform(1, 16, n // 2))
    edges = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 5e-324, 1e-310, 1.0, -1.0, 1.5, 0.5, -0.5, 1e-45])
    y[rng.integers(0, n, n // 5)] = rng.choice(edges, n // 5)
    return rng.permutation(y).astype(dtype)


if _KERNEL is not None:  # (see the module docstring)

    def test_float32_blocks_give_the_numpy_formulas_bits_at_every_block_edge() -> None:
        for n in (0, 1, 63, 64, 65, 127, 128, 129, 8191, 8193):
            y = _mixed(n, np.float32, n)
            compiled, formulas = _both_paths(y)
            differ = np.flatnonzero(compiled.view(np.int32) != formulas.view(np.int32))
            assert compiled.tobytes() == formulas.tobytes(), (n, differ[:5])

    def test_four_threads_without_the_gil_give_one_threads_bits() -> None:
        inputs = [_mixed(3 * 8192 + 7, dt, 3) for dt in (np.float32, np.float64)]
        want = [st.erfinv(st.from_numpy(y)).numpy().tobytes() for y in inputs]
        same: list[bool] = []

        def work() -> None:
            for _ in range(3):
                same.extend(st.erfinv(st.from_numpy(y)).numpy().tobytes() == w for y, w in zip(inputs, want))

        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(same) == 24 and all(same)
