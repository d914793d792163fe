"""lstsq's residuals: PyTorch's post-processing of LAPACK's rows n:m, bit for bit.

PyTorch squares the rows (pow_(2); complex: mul_(conj()), whose scalar tail the compiler fuses)
and sums them with its CPU sum kernel (strided.kernels.torch_sum); strided summed with NumPy's
pairwise order (about 45% of residuals an ulp off even from the same LAPACK rows). The rows
themselves come from OpenBLAS here, MKL in PyTorch: the end-to-end residuals still differ in the
last bits where the two libraries' solutions do (# Note: about 40% bit-equal, rtol ~1e-6 / 1e-15)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided
from strided.kernels.torch_sum import row_sums
from strided.ops.linalg._lapack import library, solve
from strided.ops.linalg.inverses import _conj_product

DTYPES = [np.float32, np.float64, np.complex64, np.complex128]


@pytest.mark.skipif(library() is None, reason="no LAPACK bound (the SVD fallback has no LAPACK rows)")
@pytest.mark.parametrize("dt", DTYPES)
def test_post_processing_matches_torch(dt):
    rng = np.random.default_rng(7)
    lapack = library()
    for _ in range(60):
        m, n, k = int(rng.integers(4, 60)), int(rng.integers(1, 4)), int(rng.integers(1, 4))
        a = rng.standard_normal((m, n)) + (1j * rng.standard_normal((m, n)) if np.dtype(dt).kind == "c" else 0)
        b = rng.standard_normal((m, k)) + (1j * rng.standard_normal((m, k)) if np.dtype(dt).kind == "c" else 0)
        x, _, _, _ = solve(lapack, a.astype(dt), b.astype(dt), 1e-6, "gels")
        r = x[n:, :]
        square = _conj_product(r) if r.dtype.kind == "c" else r * r
        ours = row_sums(np.ascontiguousarray(square.T), contiguous=r.dtype.kind != "c")
        # PyTorch's steps on the same buffer: column-major (m, k), leading dimension m
        rows = torch.from_numpy(np.ascontiguousarray(x.T)).mT.narrow(-2, n, m - n)
        if rows.is_complex():
            rows = torch.real(rows.mul_(rows.conj()))
        else:
            rows.pow_(2)
        np.testing.assert_array_equal(ours, torch.sum(rows, dim=-2, dtype=rows.dtype).numpy(), err_msg=str((m, n, k)))


@pytest.mark.parametrize("dt", ["float32", "float64", "complex64", "complex128"])
def test_residuals_close_to_torch(dt):
    rng = np.random.default_rng(8)
    a = rng.standard_normal((2, 12, 3)) + (1j * rng.standard_normal((2, 12, 3)) if "complex" in dt else 0)
    b = rng.standard_normal((2, 12, 2)) + (1j * rng.standard_normal((2, 12, 2)) if "complex" in dt else 0)
    for driver in ("gels", "gelsd", "gelss"):
        got = strided.linalg.lstsq(strided.tensor(a).to(getattr(strided, dt)), strided.tensor(b).to(getattr(strided, dt)),
                                   driver=driver).residuals
        want = torch.linalg.lstsq(torch.tensor(a).to(getattr(torch, dt)), torch.tensor(b).to(getattr(torch, dt)),
                                  driver=driver).residuals
        assert got.dtype.name == str(want.dtype).removeprefix("torch.") and got.shape == tuple(want.shape)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5 if dt in ("float32", "complex64") else 1e-12)
