"""polar's fast path (``complex_ops._polar_fast``: NumPy's cos and sin, then the compiled
``polar_parts`` writing both products into the complex pairs): the four-ufunc path's bits, NaN
payloads of either operand included, its layout, and torch's numbers."""

import numpy as np
import pytest
import torch

import strided as st
from strided.kernels import native

_PAYLOADS = {np.float32: (np.uint32, [0x7F800001, 0xFFC01234, 0x7FC00ABC, 0x7F800777]),
             np.float64: (np.uint64, [0x7FF0000000000001, 0xFFF8000000001234, 0x7FF8000000000ABC, 0x7FF0000000000777])}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(3, 4), (16, 16), (7,), (), (0, 2)])
def test_polar_bits(dtype, shape):
    rng = np.random.default_rng(11)
    specials = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 1e30, 3.0, 0.25], dtype)
    r = np.asarray(rng.choice(specials, shape), dtype)
    t = np.asarray(rng.choice(specials, shape), dtype)
    ut, nans = _PAYLOADS[dtype]
    if r.size:  # (NaNs with payloads, signalling ones too, in both operands: NumPy's multiply's answer)
        r.reshape(-1).view(ut)[::3] = np.resize(np.array(nans, ut), r.reshape(-1)[::3].size)
        t.reshape(-1).view(ut)[::4] = np.resize(np.array(nans[::-1], ut), t.reshape(-1)[::4].size)
    got = st.polar(st.tensor(r), st.tensor(t))
    with native.disabled():
        slow = st.polar(st.tensor(r), st.tensor(t))
    assert got.dtype == slow.dtype and got.shape == slow.shape and got.stride() == slow.stride()
    assert got.numpy().tobytes() == slow.numpy().tobytes()
    want = torch.polar(torch.tensor(r), torch.tensor(t))
    assert got.stride() == want.stride()
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6 if dtype == np.float32 else 1e-14, atol=1e-6)


def test_other_layouts_take_the_general_path():
    r = np.linspace(0.5, 2, 12).reshape(3, 4)
    t = np.linspace(-3, 3, 12).reshape(3, 4)
    for x, y in ((r.T, t.T), (r[:, ::2], t[:, ::2]), (r, t[:1])):
        got = st.polar(st.tensor(x), st.tensor(y))
        want = torch.polar(torch.tensor(x), torch.tensor(y))
        assert got.stride() == want.stride()
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-14, atol=1e-15)
