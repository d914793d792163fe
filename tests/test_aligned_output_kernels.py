"""Compiled elementwise kernels that run their vector loop from the output's next 64-byte line (the
elements before it by the same loop, alone; NumPy's large buffers start 16 bytes past a line):
every element must still be PyTorch's, at every output offset and length, NaN, infinities and
signed zeros included.

- ``clamp_scalar`` (number-bound clamp / clamp_min / clamp_max);
- ``lerp_runs`` (number-weight lerp), which writes straight into an output that is neither input,
  weights on either side of 0.5; and in place (the output one of the inputs), through its buffer.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from strided.kernels import native

_K = native.special()


@pytest.mark.skipif(_K is None, reason="the special kernel is not built")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_every_offset_and_length_is_torchs_clamp(dtype: type) -> None:
    rng = np.random.default_rng(6)
    size = np.dtype(dtype).itemsize
    for n in [*range(0, 70), 1000, 4099]:
        values = rng.choice(np.array([-1.0, -0.0, 0.0, 0.5, 2.0, np.nan, np.inf, -np.inf], dtype), n)
        values[: n // 2] = rng.standard_normal(n // 2)
        for shift in range(0, 64, size):
            raw = np.zeros(n * size + 128, np.uint8)
            start = (-raw.ctypes.data) % 64 + shift
            out = raw[start: start + n * size].view(dtype)
            for lo, hi, which in ((0.0, 0.0, 1), (0.0, 0.5, 2), (-0.0, 0.5, 3), (0.5, 0.0, 1)):
                assert _K.clamp_scalar(values, out, lo, hi, which)
                t = torch.from_numpy(values)
                want = (torch.clamp_min(t, lo) if which == 1 else torch.clamp_max(t, hi) if which == 2
                        else torch.clamp(t, lo, hi)).numpy()
                assert out.tobytes() == want.tobytes(), (n, shift, which)


@pytest.mark.skipif(_K is None, reason="the special kernel is not built")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_every_offset_and_length_is_torchs_lerp(dtype: type) -> None:
    rng = np.random.default_rng(9)
    size = np.dtype(dtype).itemsize
    specials = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1e38], dtype)
    for n in [*range(0, 40), 300, 1000]:
        a = rng.standard_normal(n).astype(dtype)
        b = rng.standard_normal(n).astype(dtype)
        if n > 4:
            a[rng.integers(0, n, 2)] = rng.choice(specials, 2)
            b[rng.integers(0, n, 2)] = rng.choice(specials, 2)
        for shift in range(0, 64, 2 * size):
            raw = np.zeros(n * size + 128, np.uint8)
            start = (-raw.ctypes.data) % 64 + shift
            out = raw[start: start + n * size].view(dtype)
            for w in (0.25, 0.5, 0.75, -2.0, 3.0):
                want = torch.lerp(torch.from_numpy(a), torch.from_numpy(b), w).numpy()
                assert _K.lerp_runs(a, b, w, out)
                assert out.tobytes() == want.tobytes(), (n, shift, w)
                inplace = a.copy()
                assert _K.lerp_runs(inplace, b, w, inplace)
                assert inplace.tobytes() == want.tobytes(), (n, w)
