"""nansum/nanmean on permuted, stepped and flipped layouts, with and without NaN or inf - inf:
PyTorch's bits (its sum's cascade with each NaN read as 0, then / the count for the mean), and
within the rounding of NumPy's NaN-replacing sums."""

from __future__ import annotations

import numpy as np
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st


def replaced(a: np.ndarray, axis: int | None, mean: bool) -> np.ndarray:
    """The general computation: NaN -> 0, NumPy's sums (and the count of the others)."""
    nan = np.isnan(a)
    with np.errstate(all="ignore"):  # (inf - inf: NaN, as PyTorch, silently)
        total = np.add.reduce(np.where(nan, a.dtype.type(0), a), axis=axis, keepdims=True)
        if mean:
            total = total / np.add.reduce(~nan, axis=axis, dtype=np.int64, keepdims=True).astype(a.dtype)
    return total


@settings(max_examples=150, deadline=None)
@given(shape=hs.lists(hs.integers(1, 30), min_size=1, max_size=3), dtype=hs.sampled_from([np.float32, np.float64]),
       scale=hs.integers(-3, 8), seed=hs.integers(0, 2**16), view=hs.sampled_from(["plain", "permuted", "stepped",
                                                                                   "flipped"]),
       special=hs.sampled_from([None, "nan", "inf-inf"]), data=hs.data())
def test_bits_as_the_nan_replacing_sums(shape, dtype, scale, seed, view, special, data):
    rng = np.random.default_rng(seed)
    base = (rng.standard_normal(shape) * 10.0**scale).astype(dtype)
    if special == "nan":
        base.flat[rng.integers(base.size)] = np.nan
    elif special == "inf-inf" and base.size > 1:
        base.flat[0], base.flat[-1] = np.inf, -np.inf
    perm = [int(p) for p in rng.permutation(len(shape))] if view == "permuted" else list(range(len(shape)))
    t, a, tt = st.from_numpy(base.copy()).permute(*perm), base.transpose(perm), torch.from_numpy(base.copy()).permute(*perm)
    if view == "stepped":
        t, a, tt = t[..., ::2], a[..., ::2], tt[..., ::2]
    elif view == "flipped":
        t, a, tt = t.flip(-1), a[..., ::-1], tt.flip(-1)
    axis = data.draw(hs.sampled_from([None, *range(len(shape))]))
    for mean, ours, theirs in ((False, st.nansum, torch.nansum), (True, st.nanmean, torch.nanmean)):
        got = ours(t) if axis is None else ours(t, axis)
        expected = theirs(tt) if axis is None else theirs(tt, axis)
        assert got.numpy().tobytes() == expected.numpy().tobytes()
        want = replaced(a, axis, mean).reshape(tuple(got.shape))
        finite = np.abs(a[np.isfinite(a)])
        bound = np.finfo(dtype).eps * a.size * (finite.max() if finite.size else 0.0)  # (cancellation)
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=bound, equal_nan=True)
