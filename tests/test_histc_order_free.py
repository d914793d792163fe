"""histc reads its input in memory order and skips the range mask when the range is the data's
own (``ops.reductions.counting.histc``): bit for bit the old row-major computation (reproduced
here) and PyTorch's counts, for row-major, permuted, sliced and 0-d/1-element inputs, the data's
range and explicit ranges (values outside, NaN among them, -0.0, a constant input), float32 and
float64; the errors stay PyTorch's."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided as st


def _old(x: np.ndarray, bins: int, lo: float, hi: float) -> np.ndarray:
    dt = x.dtype
    flat = x.reshape(-1)
    lo, hi = dt.type(lo), dt.type(hi)
    if lo == hi and flat.size:
        lo, hi = flat.min(), flat.max()
    if lo == hi:
        lo, hi = lo - dt.type(1), hi + dt.type(1)
    with np.errstate(all="ignore"):
        inside = flat[(flat >= lo) & (flat <= hi)]
        pos = ((inside - lo) * dt.type(bins) / (hi - lo)).astype(np.int64)
    return np.bincount(np.minimum(pos, bins - 1), minlength=bins).astype(dt)


def _inputs(dt):
    rng = np.random.default_rng(0)
    a = (rng.standard_normal((130, 70)) * 3).astype(dt)
    a[0, 0], a[1, 1] = -0.0, 0.0
    return [a, a.T, a[::2, 3:], np.full((40, 30), 2.5, dt), a[:1, :1], a.T[5:9]]


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("bins,lo,hi", [(100, 0, 0), (7, -1.0, 2.0), (1, 0, 0), (33, -2.5, 0.0)])
def test_matches_old_and_torch(dt, bins, lo, hi) -> None:
    for a in _inputs(dt):
        got = st.histc(st.from_numpy(a), bins=bins, min=lo, max=hi)
        assert got.numpy().tobytes() == _old(a, bins, lo, hi).tobytes()
        want = torch.histc(torch.from_numpy(a.copy()), bins=bins, min=lo, max=hi)
        assert got.numpy().tobytes() == want.numpy().tobytes()
        assert got.dtype == st.from_numpy(a).dtype and tuple(got.shape) == (bins,)


def test_nan_with_an_explicit_range_is_left_out_and_refused_without_one() -> None:
    a = np.random.default_rng(1).random((200, 50)).astype(np.float32).T
    a[3, 7] = np.nan
    got = st.histc(st.from_numpy(a), bins=10, min=0.0, max=1.0)
    assert got.numpy().tobytes() == _old(a, 10, 0.0, 1.0).tobytes()
    assert got.numpy().tobytes() == torch.histc(torch.from_numpy(a.copy()), 10, 0.0, 1.0).numpy().tobytes()
    with pytest.raises(RuntimeError, match="not finite"):
        st.histc(st.from_numpy(a))
