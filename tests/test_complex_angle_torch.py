"""Complex angle against torch.angle bit for bit: the C library's atan2f / atan2 of each element's
parts (strided.kernels.elementwise.complex_angle), PyTorch's scalar loop's std::arg (non-contiguous
inputs, a contiguous run shorter than two vectors, a run's last elements). Its vectorized loop is
Sleef's atan2_u10, 1 ulp off the C library in about 17% (float32) / 2.5% (float64) of elements:
a dense complex64 tensor with the compiled kernels takes it where PyTorch does
(strided.kernels.sleef.angle_complex64: torch.angle of the same layout is the reference); elsewhere
torch's reference is its scalar loop, a strided view of the same values. NumPy's arctan2, which
strided took before, differed from it in 40% / 8%."""
import itertools

import numpy as np
import pytest
import torch

import strided as st
from complex_parts import PAIR_DTYPES
from strided.kernels import native


def _parts(fl):
    fi = np.finfo(fl)
    return np.array([0.0, -0.0, fi.smallest_subnormal, -fi.smallest_subnormal, fi.tiny, 1.0, -2.5, 1 / 3,
                     fi.max, -fi.max, np.inf, -np.inf, np.nan, 1e-20, -7e5], fl)


def _torch_scalar(z):
    return torch.angle(torch.tensor(np.stack([z, z], -1)).reshape(-1)[::2]).numpy()


def _assert_bits(s, t):
    assert s.dtype == t.dtype and s.shape == t.shape
    iv = np.int32 if s.dtype == np.float32 else np.int64
    ok = (s.view(iv) == t.view(iv)) | (np.isnan(s) & np.isnan(t))
    assert ok.all(), (np.flatnonzero(~ok)[:4], s[~ok][:4], t[~ok][:4])


def _torch_same(z, how):
    """torch.angle of the layout _ours builds (its vectorized loop where PyTorch takes it)."""
    if how == "plain":
        return torch.angle(torch.tensor(z)).numpy()
    m = z.reshape(-1, 5)
    return torch.angle(torch.tensor(m.T.copy()).mT).numpy().reshape(-1)


def _sleef_angle(dt, how, kernels):
    """Whether strided takes PyTorch's vectorized split here (dense complex64, compiled kernels)."""
    return kernels and native.sleef() is not None and np.dtype(dt) == np.complex64 and how != "strided"


def _ours(z, how):
    if how == "plain":
        return st.angle(st.tensor(z)).numpy()
    if how == "strided":
        return st.angle(st.tensor(np.stack([z, z], -1)).reshape(-1)[::2]).numpy()
    m = z.reshape(-1, 5)  # transposed: the values read through a .mT view, the result row-major
    return st.angle(st.tensor(m.T.copy()).mT).numpy().reshape(-1)


@pytest.mark.parametrize("kernels", [True, False])
@pytest.mark.parametrize("how", ["plain", "strided", "transposed"])
@pytest.mark.parametrize("dt,fl", PAIR_DTYPES)
def test_angle_special_parts(dt, fl, how, kernels):
    parts = _parts(fl)
    z = np.empty(len(parts) ** 2, dt)
    z.real, z.imag = np.repeat(parts, len(parts)), np.tile(parts, len(parts))
    if kernels:
        got = _ours(z, how)
    else:
        with native.disabled():
            got = _ours(z, how)
    _assert_bits(got, _torch_same(z, how) if _sleef_angle(dt, how, kernels) else _torch_scalar(z))


@pytest.mark.parametrize("kernels", [True, False])
@pytest.mark.parametrize("dt,fl", PAIR_DTYPES)
def test_angle_random(dt, fl, kernels):
    rng = np.random.default_rng(3)
    n = 4000
    z = np.empty(n, dt)
    z.real = (rng.standard_normal(n) * 10.0 ** rng.uniform(-20, 20, n)).astype(fl)
    z.imag = (rng.standard_normal(n) * 10.0 ** rng.uniform(-20, 20, n)).astype(fl)
    if kernels:
        got = st.angle(st.tensor(z)).numpy()
    else:
        with native.disabled():
            got = st.angle(st.tensor(z)).numpy()
    _assert_bits(got, _torch_same(z, "plain") if _sleef_angle(dt, "plain", kernels) else _torch_scalar(z))
    for k in (1, 2, 3):  # (shorter than two vectors of any width: torch's scalar loop too)
        _assert_bits(st.angle(st.tensor(z[:k])).numpy(), torch.angle(torch.tensor(z[:k])).numpy())


def test_angle_zero_dim_and_grad_shape():
    z = st.tensor(complex(-1.0, -0.0), dtype=st.complex64)
    assert st.angle(z).shape == () and st.angle(z).item() == torch.angle(torch.tensor(complex(-1.0, -0.0))).item()
    pairs = list(itertools.product([1.0, -1.0], [0.5, -2.0]))
    x = st.tensor([complex(a, b) for a, b in pairs], requires_grad=True)
    st.angle(x).sum().backward()
    t = torch.tensor([complex(a, b) for a, b in pairs], requires_grad=True)
    torch.angle(t).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-6)
