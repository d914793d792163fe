"""F.layer_norm's forward with PyTorch's CPU bits (normbits36): the compiled rows (kernels/_ln_torch.h,
PyTorch 2.13's RowwiseMoments cascade of Welford chunks and its fused y steps) against torch's
F.layer_norm / native_layer_norm bit for bit (y, and the mean and rstd it saves for the backward),
over row lengths 1..300, 1000, 4096, batches, float32 / float64, weight / bias None, eps values, NaN /
inf / 1e30 / -0.0 rows, transposed and stepped inputs (the general path), the empty rows' case.

# Note: in rows holding a NaN or an infinity the NaN results' sign bit may differ from torch's (which
# NaN operand x86 propagates, and where inf - inf's default -NaN appears, depend on torch's compiled
# instruction order, not modelled); the NaNs are in the same places and every other bit agrees."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import strided
import strided.nn.functional as F
from strided.kernels import rows as R

torch.set_num_threads(1)
DTYPES = [np.float32, np.float64]
needs_kernel = pytest.mark.skipif(R.ln_rows() is None, reason="the compiled row kernel is not built")


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).view(np.uint8)


def _t(a):
    return None if a is None else torch.from_numpy(np.ascontiguousarray(a))


def _s(a):
    return None if a is None else strided.tensor(a)


def _check(x, w, b, eps=1e-5, nan_sign=True):
    """F.layer_norm against torch's, bit for bit (``nan_sign`` False: NaN in the same places, any sign)."""
    n = x.shape[-1]
    got = F.layer_norm(_s(x), (n,), _s(w), _s(b), eps).numpy()
    want = TF.layer_norm(_t(x), (n,), _t(w), _t(b), eps).numpy()
    assert got.shape == want.shape
    if not nan_sign:
        assert np.array_equal(np.isnan(got), np.isnan(want))
        got, want = np.where(np.isnan(got), 0, got), np.where(np.isnan(want), 0, want)
    assert np.array_equal(_bits(got), _bits(want)), (x.shape, w is None, b is None, eps)


@needs_kernel
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("affine", ["none", "weight", "bias", "both"])
def test_every_row_length_to_300(dtype, affine):
    rng = np.random.default_rng(hash(affine) % 2**32)
    for n in (*range(1, 301), 1000, 4096):
        x = (rng.standard_normal((3, n)) * rng.uniform(0.1, 20) + rng.uniform(-9, 9)).astype(dtype)
        w = rng.standard_normal(n).astype(dtype) if affine in ("weight", "both") else None
        b = rng.standard_normal(n).astype(dtype) if affine in ("bias", "both") else None
        _check(x, w, b)


@needs_kernel
@pytest.mark.parametrize("dtype", DTYPES)
def test_saved_mean_and_rstd_are_torchs(dtype):
    """The statistics the backward takes: torch's native_layer_norm's mean and rstd, bit for bit,
    and the gradients then agree with torch's."""
    from strided.kernels import rows

    rng = np.random.default_rng(5)
    for n in (1, 7, 64, 129, 300, 1000, 5000):
        x = (rng.standard_normal((4, n)) * 3 + 1).astype(dtype)
        y, m, r = np.empty_like(x), np.empty((4, 1), dtype), np.empty(4, dtype)
        assert rows.ln_rows()(x, y, m, r, None, None, float(dtype(1e-5)))
        ty, tm, tr = torch.native_layer_norm(_t(x), [n], None, None, 1e-5)
        assert np.array_equal(_bits(m), _bits(tm.numpy()))
        assert np.array_equal(_bits(r), _bits(tr.numpy().reshape(-1)))
        assert np.array_equal(_bits(y), _bits(ty.numpy()))
    x = (rng.standard_normal((3, 40)) * 2).astype(dtype)
    w, b, g = rng.standard_normal(40).astype(dtype), rng.standard_normal(40).astype(dtype), \
        rng.standard_normal((3, 40)).astype(dtype)
    sx, sw, sb = (strided.tensor(a, requires_grad=True) for a in (x, w, b))
    tx, tw, tb = (torch.tensor(a, requires_grad=True) for a in (x, w, b))
    F.layer_norm(sx, (40,), sw, sb).backward(strided.tensor(g))
    TF.layer_norm(tx, (40,), tw, tb).backward(torch.tensor(g))
    tol = 1e-5 if dtype == np.float32 else 1e-12
    for s, t in ((sx, tx), (sw, tw), (sb, tb)):
        np.testing.assert_allclose(s.grad.numpy(), t.grad.numpy(), rtol=tol, atol=tol)


@needs_kernel
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(1, 1), (5, 1), (2, 3, 17), (4, 2, 2, 130), (128, 1000)])
@pytest.mark.parametrize("eps", [1e-5, 1e-12, 0.5, 0.0, 1e-1])
def test_batches_and_eps(dtype, shape, eps):
    rng = np.random.default_rng(len(shape) * 31 + shape[-1])
    x = (rng.standard_normal(shape) * 4 - 2).astype(dtype)
    n = shape[-1]
    _check(x, rng.standard_normal(n).astype(dtype), rng.standard_normal(n).astype(dtype), eps)
    _check(x, None, None, eps)


@needs_kernel
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("special", [np.nan, np.inf, -np.inf, 1e30, -1e30, -0.0, 0.0])
@pytest.mark.parametrize("n", [1, 4, 9, 33, 200, 1030])
def test_special_values(dtype, special, n):
    rng = np.random.default_rng(n)
    x = (rng.standard_normal((3, n)) * 2).astype(dtype)
    with np.errstate(over="ignore"):
        x[0, n // 2] = special
        x[2, :] = special  # (a row of only that value: -0.0 rows stay +0 / -0 as torch's)
    for affine in range(4):
        w = rng.standard_normal(n).astype(dtype) if affine & 1 else None
        b = rng.standard_normal(n).astype(dtype) if affine & 2 else None
        _check(x, w, b, nan_sign=False)  # (# Note: NaN's sign, see the module's note)


@needs_kernel
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind", ["transposed", "stepped", "expanded", "offset"])
def test_other_layouts_take_torchs_bits(dtype, kind):
    rng = np.random.default_rng(9)
    x = (rng.standard_normal((6, 37)) * 3).astype(dtype)
    w, b = rng.standard_normal(37).astype(dtype), rng.standard_normal(37).astype(dtype)
    if kind == "transposed":
        sx = strided.tensor(np.ascontiguousarray(x.T)).T
    elif kind == "stepped":
        big = np.zeros((6, 74), dtype)
        big[:, ::2] = x
        sx = strided.tensor(big)[:, ::2]
    elif kind == "expanded":
        x = np.broadcast_to(x[:1], (6, 37)).copy()
        sx = strided.tensor(x[:1]).expand(6, 37)
    else:
        sx = strided.tensor(np.concatenate([np.zeros((1, 37), dtype), x]))[1:]
    want = TF.layer_norm(_t(x), (37,), _t(w), _t(b))
    for ww, bb in ((w, b), (None, None), (w, None), (None, b)):
        want = TF.layer_norm(_t(x), (37,), _t(ww), _t(bb))
        got = F.layer_norm(sx, (37,), _s(ww), _s(bb))
        assert np.array_equal(_bits(got.numpy()), _bits(want.numpy()))
    # two normalized dims: the rows of 6 * 37
    got = F.layer_norm(sx, (6, 37))
    assert np.array_equal(_bits(got.numpy()), _bits(TF.layer_norm(_t(x), (6, 37)).numpy()))


@pytest.mark.parametrize("shape", [(4, 0), (0, 3), (2, 0, 5)])
def test_empty_rows(shape):
    """(4, 0) with normalized_shape (0,): an empty result, as torch (was: NumPy's reshape ValueError)."""
    norm = shape[-1:]
    got = F.layer_norm(strided.zeros(*shape), norm)
    want = TF.layer_norm(torch.zeros(*shape), norm)
    assert got.shape == tuple(want.shape) and got.dtype == strided.float32


def test_float16_keeps_its_steps():
    """float16 runs NumPy's steps in a float32 scratch (PyTorch's half kernel differs): PyTorch's
    values to float16's precision."""
    rng = np.random.default_rng(2)
    x = rng.standard_normal((4, 50)).astype(np.float16)
    got = F.layer_norm(strided.tensor(x), (50,)).numpy().astype(np.float32)
    want = TF.layer_norm(torch.from_numpy(x), (50,)).numpy().astype(np.float32)
    np.testing.assert_allclose(got, want, rtol=2e-3, atol=2e-3)
