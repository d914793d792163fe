"""Complex sgn against torch.sgn bit for bit, layout for layout: PyTorch's vectorized loop divides
each part by hypot(re, im) (``values / abs_()``), so a subnormal or huge |z| gives exactly 1j, and
an infinite part gives NaN in the other's place; its scalar loop (non-contiguous inputs, a run's
last n % (2 vectors) elements) takes the complex quotient ``z / (|z| + 0j)``, a part times the
reciprocal (NaN + inf j for a subnormal |z|, 0.99999994j for a huge one). strided follows each
loop where PyTorch runs it (unary_more._sgn_scalar_loop); complex128 elements where Sleef's
hypot (the vectorized abs_()) differs from the C library's are skipped."""
import itertools

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from complex_parts import scaled_pairs
from strided.kernels import native


def _parts(fl):
    fi = np.finfo(fl)
    return np.array([0.0, -0.0, fi.smallest_subnormal, -fi.smallest_subnormal, fi.smallest_normal / 3,
                     fi.tiny, 1.0, -2.5, fi.max, -fi.max, fi.max / 2, np.inf, -np.inf, np.nan, 1e-20], fl)


def _torch(z: np.ndarray, op=torch.sgn) -> np.ndarray:
    """torch ``op`` of ``z`` by its vectorized loop (z padded to 16 elements per block)."""
    pad = np.concatenate([z, np.ones(-len(z) % 16, z.dtype)])
    return op(torch.tensor(pad)).numpy()[:len(z)]


def _torch_as(z: np.ndarray, how: str) -> np.ndarray:
    """torch.sgn of ``z`` laid out as :func:`_ours` lays it out for ``how`` (its loops' split)."""
    if how == "inplace":
        x = torch.tensor(z)
        x.sgn_()
        return x.numpy()
    if how == "strided":
        return torch.sgn(torch.tensor(np.stack([z, z], 1).reshape(-1))[::2]).numpy()
    if how == "transposed":
        n = int(len(z) ** 0.5)
        return torch.sgn(torch.tensor(z.reshape(n, n).T.copy()).mT).numpy().reshape(-1)
    return torch.sgn(torch.tensor(z)).numpy()


def _same(s: np.ndarray, t: np.ndarray, fl, z=None) -> None:
    if z is not None:  # (Sleef's hypot, torch's vectorized abs_(), differs from libm's: skipped)
        with np.errstate(over="ignore"):
            keep = _torch(z, torch.abs) == np.hypot(z.real, z.imag)
        s, t = s[keep], t[keep]
    iv = np.int32 if fl == np.float32 else np.int64
    sr, tr = s.view(fl).reshape(-1, 2), t.view(fl).reshape(-1, 2)
    ok = ((sr.view(iv) == tr.view(iv)) | (np.isnan(sr) & np.isnan(tr))).all(1)
    assert ok.all(), (s[~ok][:4], t[~ok][:4])


def _ours(z: np.ndarray, kernels: bool, how: str) -> np.ndarray:
    def go():
        x = st.tensor(z)
        if how == "inplace":
            x.sgn_()
            return x.numpy()
        if how == "strided":
            return st.sgn(st.tensor(np.stack([z, z], 1).reshape(-1))[::2]).numpy()
        if how == "transposed":  # (column-major: |z| taken as its row-major transpose's)
            n = int(len(z) ** 0.5)
            return st.sgn(st.tensor(z.reshape(n, n).T.copy()).mT).numpy().reshape(-1)
        return st.sgn(x).numpy()
    if kernels:
        return go()
    with native.disabled():
        return go()


@pytest.mark.parametrize("kernels", [True, False])
@pytest.mark.parametrize("how", ["plain", "inplace", "strided", "transposed"])
@pytest.mark.parametrize("dt,fl", [(np.complex64, np.float32), (np.complex128, np.float64)])
def test_sgn_special_parts(dt, fl, how, kernels):
    parts = _parts(fl)
    z = np.array([complex(r, i) for r, i in itertools.product(parts, parts)], dt)
    with np.errstate(all="ignore"):
        z.real, z.imag = np.repeat(parts, len(parts)), np.tile(parts, len(parts))  # (exact parts, -0.0 kept)
    s = _ours(z, kernels, how)
    _same(s, _torch_as(z, how), fl, z if fl == np.float64 else None)
    assert (s[:2] == 0).all()  # (±0 ± 0j: 0, not NaN)


@settings(max_examples=200, deadline=None)
@given(hs.sampled_from([(np.complex64, np.float32), (np.complex128, np.float64)]),
       hs.lists(hs.tuples(hs.floats(allow_nan=True, width=32), hs.floats(allow_nan=True, width=32)), min_size=1, max_size=40),
       hs.integers(-300, 300))
def test_sgn_random(dtfl, pairs, exp):
    z, fl = scaled_pairs(dtfl, pairs, exp)
    _same(_ours(z, True, "plain"), _torch_as(z, "plain"), fl, z)

