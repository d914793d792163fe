"""amax / amin / max() / min() / aminmax against torch where the extreme is a zero of both signs:
PyTorch's reduction order decides which zero comes back (strided.kernels.torch_extreme_reduce
replays it). Before: NumPy's zero, 20-70% of mixed-zero cases differed per op and dtype (amax
float32 75 of 162, max() float16 71 of 162, aminmax(dim) float32 149 of 216); after: none."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st

torch.set_num_threads(1)  # (the one-thread order: PyTorch splits a large reduction among threads)

_DT = {"float32": torch.float32, "float64": torch.float64, "float16": torch.float16, "bfloat16": torch.bfloat16}
_SHAPES = [(1,), (3,), (7,), (9,), (16,), (17,), (31,), (33,), (64,), (65,), (100,), (257,),
           (3, 20), (20, 3), (5, 33), (4, 64), (70, 2), (2, 3, 40), (3, 40, 2)]


def _signs(t):
    t = t.float() if isinstance(t, torch.Tensor) else t.to(st.float32)
    return np.signbit(np.asarray(t.numpy()))


def _pair(arr, dt, layout):
    """torch and strided tensors of ``arr``'s values (its dtype then converted), in ``layout``:
    "c" row-major, "s" every other element of the last dim, "t" the last two dims swapped."""
    tt = torch.tensor(arr).to(_DT[dt])
    ss = st.tensor(arr).to(getattr(st, dt))
    if layout == "s":
        return tt[..., ::2], ss[..., ::2]
    if layout == "t" and arr.ndim > 1:
        return tt.transpose(-1, -2), ss.transpose(-1, -2)
    return tt, ss


_FULL = {"amax": lambda m, x: m.amax(x), "amin": lambda m, x: m.amin(x), "max": lambda m, x: m.max(x),
         "min": lambda m, x: m.min(x), "aminmax.min": lambda m, x: m.aminmax(x)[0],
         "aminmax.max": lambda m, x: m.aminmax(x)[1]}
_ALONG = {"amax": lambda m, x, d: m.amax(x, d), "amin": lambda m, x, d: m.amin(x, d),
          "amax_keep": lambda m, x, d: m.amax(x, d, keepdim=True), "max": lambda m, x, d: m.max(x, d)[0],
          "min": lambda m, x, d: m.min(x, d)[0], "aminmax.min": lambda m, x, d: m.aminmax(x, dim=d)[0],
          "aminmax.max": lambda m, x, d: m.aminmax(x, dim=d)[1]}


@settings(max_examples=200, deadline=None)
@given(dt=hs.sampled_from(sorted(_DT)), shape=hs.sampled_from(_SHAPES), layout=hs.sampled_from("cst"),
       seed=hs.integers(0, 2**32 - 1), op=hs.sampled_from(sorted(_FULL)), along=hs.sampled_from(sorted(_ALONG)),
       dim_pick=hs.integers(0, 2), zeros_only=hs.booleans())
def test_reduced_zero_signs_match_torch(dt, shape, layout, seed, op, along, dim_pick, zeros_only):
    rng = np.random.default_rng(seed)
    full = shape[:-1] + (shape[-1] * 2,) if layout == "s" else shape
    values = np.array([0.0, -0.0] if zeros_only else [0.0, -0.0, 0.0, -0.0, -1.0, 1.0])
    tt, ss = _pair(rng.choice(values, size=full), dt, layout)
    np.testing.assert_array_equal(_signs(_FULL[op](st, ss)), _signs(_FULL[op](torch, tt)))
    d = dim_pick % len(shape)
    want, got = _ALONG[along](torch, tt, d), _ALONG[along](st, ss, d)
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_array_equal(_signs(got), _signs(want))


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_several_dims_and_sliced_rows(dt):
    """amax over two dims (the reduced dims merged where contiguous), and rows that do not merge (a
    slice of wider rows: one inner reduction per row into the same output)."""
    rng = np.random.default_rng(7)
    a = rng.choice(np.array([0.0, -0.0]), size=(3, 5, 70))
    tt, ss = torch.tensor(a).to(_DT[dt]), st.tensor(a).to(getattr(st, dt))
    for dims in [(0, 1), (1, 2), (0, 2), (0, 1, 2)]:
        np.testing.assert_array_equal(_signs(ss.amax(dims)), _signs(tt.amax(dims)))
        np.testing.assert_array_equal(_signs(ss.amin(dims)), _signs(tt.amin(dims)))
    tt2, ss2 = tt[:, :, :40], ss[:, :, :40]
    np.testing.assert_array_equal(_signs(ss2.amax()), _signs(tt2.amax()))
    np.testing.assert_array_equal(_signs(ss2.max()), _signs(tt2.max()))
    np.testing.assert_array_equal(_signs(ss2.amax(0)), _signs(tt2.amax(0)))
