"""addmm on the MKL route with non-finite alpha/beta and with out=: PyTorch's bits (one thread).

On an AMD AVX2 CPU MKL's gemm applies a non-finite alpha by scaling an operand first (a sum of
infinities of both signs: NaN) and starts its sums from C (beta != 0), so the product scaled or
summed afterwards gives other bits than PyTorch's one gemm call; the route now makes that call
for inf/NaN alpha and beta, and addmm(out=) takes it as addmm does."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import strided
from strided.kernels import blas_route

torch = pytest.importorskip("torch")
needs_mkl = pytest.mark.skipif(blas_route.lib() is None, reason="the optional MKL route is not here")
INF, NAN = float("inf"), float("nan")


@pytest.fixture(autouse=True)
def _torch_one_thread():
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@needs_mkl
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("mkp", [(8, 5, 4), (16, 16, 16), (65, 3, 70), (9, 1, 4)])
@pytest.mark.parametrize("special", [0, 1, 2])
def test_addmm_nonfinite_scalars_and_out_are_torchs_bits(dtype, mkp, special) -> None:
    m, k, p = mkp
    rng = np.random.default_rng(m * k + special)
    a, b = rng.standard_normal((m, k)).astype(dtype), rng.standard_normal((k, p)).astype(dtype)
    inp = rng.standard_normal((m, p)).astype(dtype)
    if special:
        a[1, 0], b[0, 1] = np.nan, np.inf
    if special == 2:
        inp[:] = np.nan
    sd = getattr(strided, np.dtype(dtype).name)
    for (beta, alpha), ta in itertools.product(
            itertools.product([0, -0.0, 1, 2.5, INF, -INF, NAN], [1, -1, 2.5, INF, -INF, NAN]), (False, True)):
        sa = strided.tensor(np.ascontiguousarray(a.T)).t() if ta else strided.tensor(a)
        tt = torch.from_numpy(np.ascontiguousarray(a.T)).t() if ta else torch.from_numpy(a)
        got = strided.addmm(strided.tensor(inp), sa, strided.tensor(b), beta=beta, alpha=alpha)
        want = torch.addmm(torch.from_numpy(inp), tt, torch.from_numpy(b), beta=beta, alpha=alpha).numpy()
        out = strided.zeros(m, p, dtype=sd)
        assert strided.addmm(strided.tensor(inp), sa, strided.tensor(b), beta=beta, alpha=alpha, out=out) is out
        assert got.numpy().tobytes() == want.tobytes(), (beta, alpha, ta)
        assert out.numpy().tobytes() == want.tobytes(), (beta, alpha, ta)


@needs_mkl
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("mkp", [(16, 8, 12), (4, 7, 8), (33, 20, 17), (9, 3, 64)])
@pytest.mark.parametrize("layout", ["t", "step"])
def test_mm_addmm_into_a_column_major_out_are_torchs_bits(dtype, mkp, layout) -> None:
    """out= not row-major: PyTorch computes the transposed product (column-major), so does strided."""
    m, k, p = mkp
    rng = np.random.default_rng(m * p)
    a, b = rng.standard_normal((m, k)).astype(dtype), rng.standard_normal((k, p)).astype(dtype)
    inp = rng.standard_normal((m, p)).astype(dtype)
    for call in ("mm", "addmm"):
        zeros = np.zeros((p, m) if layout == "t" else (m, 2 * p), dtype)
        so, to = strided.tensor(zeros.copy()), torch.from_numpy(zeros.copy())
        so, to = (so.t(), to.t()) if layout == "t" else (so[:, ::2], to[:, ::2])
        if call == "mm":
            strided.mm(strided.tensor(a), strided.tensor(b), out=so)
            torch.mm(torch.from_numpy(a), torch.from_numpy(b), out=to)
        else:
            strided.addmm(strided.tensor(inp), strided.tensor(a), strided.tensor(b), beta=0.5, alpha=2.0, out=so)
            torch.addmm(torch.from_numpy(inp), torch.from_numpy(a), torch.from_numpy(b), beta=0.5, alpha=2.0, out=to)
        assert tuple(so.stride()) == tuple(to.stride())
        assert np.ascontiguousarray(so.numpy()).tobytes() == np.ascontiguousarray(to.numpy()).tobytes(), call
