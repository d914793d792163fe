"""The compiled number-bound clamp (``clamp_scalar``, _specialkernel.c) runs its vector loop from the
output's next 64-byte line (the elements before it by the same loop, alone): every element must
still be PyTorch's clamp of it, at every output offset and length, NaN and signed zeros included."""

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
