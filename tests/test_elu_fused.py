"""F.elu at alpha 1 by the sleef kernel's ELU op (x where x > 0, else expm1: the EXPM1 op's SLEEF
lanes and C-library tail) in one pass: the same bits as EXPM1's pass followed by the
``where(x > 0, x, e)`` selection, out of place and in place, at every length around the vector
widths, each step form, NaN / signed zeros / infinities / subnormals; and PyTorch's bits through
F.elu on mixed-sign inputs of several layouts (the compiled front's flat runs included).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs
from hypothesis.extra import numpy as hnp

import strided
import strided.nn.functional as F
from strided.kernels import native, sleef

_K = native.sleef()
pytestmark = pytest.mark.skipif(_K is None, reason="the compiled sleef kernel is not built")

_SPECIALS = [0.0, -0.0, float("nan"), -float("nan"), float("inf"), -float("inf"), 1e-40, -1e-40, 5e-324,
             -5e-324, 100.0, -100.0, 88.7, -1e-8, 1e-8]


def _inputs(dt, n, seed):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(n) * 3).astype(dt)
    if n:
        idx = rng.integers(0, n, size=min(n, 6))
        x[idx] = np.array(rng.choice(_SPECIALS, size=len(idx)), dtype=dt)
    return x


def _run(dt):
    return (_K.run, sleef.step()) if dt == np.float32 else (_K.run_d, sleef.step() // 2)


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("n", list(range(0, 71)) + [127, 128, 129, 255, 256, 257, 513, 3000])
def test_elu_op_is_expm1_then_select(dt, n):
    run, step = _run(dt)
    x = _inputs(dt, n, n)
    for stp in sorted({step, 8, 0, -1}):
        for form in (-1, 0):
            e = np.empty_like(x)
            run(x, e, sleef.EXPM1, 0, 0, stp, form)
            want = np.where(x > 0, x, e).tobytes()
            o = np.empty_like(x)
            run(x, o, sleef.ELU, 0, 0, stp, form)
            assert o.tobytes() == want, (stp, form)
            xi = x.copy()  # (in place: each element read before its slot is written)
            run(xi, xi, sleef.ELU, 0, 0, stp, form)
            assert xi.tobytes() == want, (stp, form)


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(3, 4), (16, 16), (7,), (5, 33), (2, 3, 40), ()])
@pytest.mark.parametrize("layout", ["c", "t", "step", "permute"])
def test_elu_matches_torch_bits(dt, shape, layout):
    x = _inputs(dt, int(np.prod(shape)), len(shape) * 7 + 1).reshape(shape)
    t = torch.from_numpy(x.copy())
    s = strided.from_numpy(x.copy())
    if layout == "t" and len(shape) >= 2:
        t, s = t.transpose(0, -1), s.transpose(0, -1)
    elif layout == "step" and len(shape) >= 1:
        t, s = t[..., ::2], s[..., ::2]
    elif layout == "permute" and len(shape) == 3:
        t, s = t.permute(2, 0, 1), s.permute(2, 0, 1)
    want = torch.nn.functional.elu(t)
    got = F.elu(s)
    assert got.shape == tuple(want.shape) and got.stride() == want.stride()
    assert np.asarray(got.contiguous().numpy()).tobytes() == want.contiguous().numpy().tobytes()
    # in place: the same bits, the same tensor
    ti, si = t.clone(), s.clone()
    torch.nn.functional.elu_(ti)
    F.elu_(si)
    assert np.asarray(si.contiguous().numpy()).tobytes() == ti.contiguous().numpy().tobytes()


@settings(max_examples=60, deadline=None)
@given(hs.sampled_from([np.float32, np.float64]).flatmap(
    lambda dt: hnp.arrays(dt, hnp.array_shapes(min_dims=1, max_dims=2, max_side=40),
                          elements=hs.floats(-30, 30, width=32 if dt == np.float32 else 64))))
def test_elu_hypothesis_torch(x):
    want = torch.nn.functional.elu(torch.from_numpy(x.copy())).numpy()
    got = F.elu(strided.from_numpy(x.copy())).numpy()
    assert np.asarray(got).tobytes() == want.tobytes()


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 16, 255, 256, 257, 600, 1300])
def test_elu_op_positive_blocks(dt, n):
    """Blocks of 256 whose every x > 0 are copied without the exponentials: the same bits, next to
    blocks that hold a zero, a NaN or a negative (at a block's first, last or any element)."""
    run, step = _run(dt)
    x = np.abs(_inputs(dt, n, n + 1)) + dt(0.5)
    for bad in (None, 0, n - 1, n // 2, min(300, n - 1)):
        y = x.copy()
        if bad is not None:
            y[bad] = dt(-0.0) if bad % 3 == 0 else (dt(np.nan) if bad % 3 == 1 else dt(-2.5))
        for stp in (step, 0):
            e = np.empty_like(y)
            run(y, e, sleef.EXPM1, 0, 0, stp, -1)
            want = np.where(y > 0, y, e).tobytes()
            o = np.empty_like(y)
            run(y, o, sleef.ELU, 0, 0, stp, -1)
            assert o.tobytes() == want
            yi = y.copy()
            run(yi, yi, sleef.ELU, 0, 0, stp, -1)
            assert yi.tobytes() == want
