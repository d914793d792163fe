"""float32 linspace from _RAMP_CHUNK steps up (``creation._ramp_float32``: the float64 ramp
computed block by block, rounded once into the result) gives bit for bit the whole-array
``_ramp(...).astype(float32)`` it replaces and PyTorch's values: increasing, decreasing and
constant ranges, -0.0, subnormal and huge bounds, step counts around the block size, odd and even;
NaN/inf bounds keep the old path."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided as st
from oracle_helpers import case
from strided import creation

pytestmark = pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # (the old path, NaN bounds)

CHUNK = creation._RAMP_CHUNK
STEPS = [CHUNK, CHUNK + 1, 2 * CHUNK - 1, 2 * CHUNK + 3, 5 * CHUNK + 17, 1 << 20]
BOUNDS = [(0.0, 1.0), (-3.7, 12.25), (1e30, -1e30), (0.1, 0.1), (-0.0, 5.0), (3.0, -7.5), (1e-40, 3e-39),
          (-3e38, 3e38), (3.4e38, -3.4e38),
          (-123456.78, -0.001)]


def _old(start: float, end: float, steps: int) -> np.ndarray:
    s, e = np.float32(start), np.float32(end)
    return creation._ramp(s, e, steps, (e - s) / np.float32(steps - 1), np.float64).astype(np.float32)


@pytest.mark.parametrize("bounds", BOUNDS)
def test_blocks_match_whole_array_ramp_and_torch(bounds):
    for steps in STEPS:
        with case(steps=steps):
            _blocks_match_whole_array_ramp_and_torch(steps, bounds)


def _blocks_match_whole_array_ramp_and_torch(steps, bounds) -> None:
    start, end = bounds
    got = st.linspace(start, end, steps)
    assert got.dtype == st.float32 and tuple(got.shape) == (steps,) and got.stride() == (1,)
    assert got.numpy().tobytes() == _old(start, end, steps).tobytes()
    assert got.numpy().tobytes() == torch.linspace(start, end, steps).numpy().tobytes()


def test_random_bounds() -> None:
    rng = np.random.default_rng(0)
    for _ in range(20):
        start, end = (rng.standard_normal(2) * 10.0 ** rng.integers(-6, 7, 2)).tolist()
        steps = int(rng.integers(CHUNK, 4 * CHUNK))
        got = st.linspace(start, end, steps).numpy()
        assert got.tobytes() == _old(start, end, steps).tobytes()
        assert got.tobytes() == torch.linspace(start, end, steps).numpy().tobytes()


@pytest.mark.parametrize("bounds", [(float("nan"), 1.0), (0.0, float("inf")), (float("-inf"), float("inf"))])
def test_non_finite_bounds_keep_the_old_path(bounds) -> None:
    got = st.linspace(*bounds, CHUNK + 5).numpy()
    want = torch.linspace(*bounds, CHUNK + 5).numpy()
    np.testing.assert_array_equal(got, want)  # (NaN where PyTorch has NaN)


def test_tiny_step_keeps_the_old_values() -> None:
    """A step of a few float32 ulps: the blocks give the whole-array ramp's values.

    # Note (found here, not changed): for 65535 steps from 7.0 to 7.0000005 one value of that
    # ramp differs from PyTorch's in the last bit: the float64 sum rounded again to float32 is
    # a double rounding where PyTorch's fused multiply-add rounds once."""
    for steps in (CHUNK, 65535, 65539, 1 << 20):
        got = st.linspace(7.0, 7.0000005, steps)
        assert got.numpy().tobytes() == _old(7.0, 7.0000005, steps).tobytes()
