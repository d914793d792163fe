"""qr37: large float32/float64 linalg.qr and linalg.lstsq through MKL's LAPACK as PyTorch calls them
(geqrf + orgqr; the lstsq drivers), compared with torch (one thread): bits, strides, shapes; and
NumPy's path unchanged with STRIDED_BLAS=openblas."""

import os
import subprocess
import sys

import numpy as np
import pytest

import strided
from strided.ops.linalg import mkl_lapack

torch = pytest.importorskip("torch")
torch.set_num_threads(1)

needs_mkl = pytest.mark.skipif(mkl_lapack.mkl_library() is None or not (mkl_lapack.version() or "").startswith(
    "Intel(R) oneAPI Math Kernel Library Version 2024.2"), reason="PyTorch's bits need MKL 2024.2")


def _same(s, t):
    x, y = np.ascontiguousarray(s.numpy()), np.ascontiguousarray(t.numpy())
    assert x.shape == y.shape and x.dtype == y.dtype
    assert np.array_equal(x.view(np.uint8), y.view(np.uint8))


def _layouts(a):
    """The array as given, a transposed copy's transpose (column-major) and a step-2 view."""
    yield a
    yield np.asfortranarray(a)
    wide = np.repeat(a, 2, axis=-1)
    yield wide[..., ::2]


@needs_mkl
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(100, 80), (80, 100), (90, 90), (2, 70, 66), (3, 66, 130), (257, 65)])
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_qr_bits(dtype, shape, mode):
    a0 = np.random.default_rng(sum(shape)).standard_normal(shape).astype(dtype)
    for a in _layouts(a0):
        tq, tr = torch.linalg.qr(torch.from_numpy(np.ascontiguousarray(a)), mode=mode)
        sq, sr = strided.linalg.qr(strided.tensor(a), mode=mode)
        _same(sr, tr)
        _same(sq, tq)
        assert sr.stride() == tr.stride() and sq.stride() == tq.stride()


@needs_mkl
def test_qr_expanded_and_out():
    a = np.random.default_rng(1).standard_normal((70, 1)).astype(np.float32)
    s = strided.tensor(a).expand(70, 90)
    t = torch.from_numpy(a).expand(70, 90)
    sq, sr = strided.linalg.qr(s)
    tq, tr = torch.linalg.qr(t)
    _same(sq, tq)
    _same(sr, tr)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_qr_reconstructs(dtype):
    a = np.random.default_rng(2).standard_normal((2, 120, 75)).astype(dtype)
    q, r = strided.linalg.qr(strided.tensor(a), mode="complete")
    assert q.shape == (2, 120, 120) and r.shape == (2, 120, 75)
    tol = 1e-4 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(q.numpy() @ r.numpy(), a, atol=tol)
    assert np.all(np.tril(r.numpy()[..., :75, :], -1) == 0) and np.all(r.numpy()[..., 75:, :] == 0)


@needs_mkl
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("mnk", [(100, 80, 3), (80, 100, 2), (200, 200, 1), (300, 100, 5)])
@pytest.mark.parametrize("driver", ["gels", "gelsd", "gelss"])
def test_lstsq_bits(dtype, mnk, driver):
    m, n, k = mnk
    g = np.random.default_rng(m + n + k)
    a, b = g.standard_normal((m, n)).astype(dtype), g.standard_normal((m, k)).astype(dtype)
    for aa in _layouts(a):
        t = torch.linalg.lstsq(torch.from_numpy(np.ascontiguousarray(aa)), torch.from_numpy(b), driver=driver)
        s = strided.linalg.lstsq(strided.tensor(aa), strided.tensor(b), driver=driver)
        for x, y in zip(s, t):
            _same(x, y)
        assert s.solution.stride() == t.solution.stride()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("mnk", [(100, 80, 3), (80, 100, 2), (2, 90, 70, 1)])
def test_lstsq_gelsy_close(dtype, mnk):
    # (PyTorch 2.13's gelsy leaves jpvt uninitialised: its own bits vary call to call; ranks agree)
    *batch, m, n, k = mnk
    g = np.random.default_rng(5)
    a = g.standard_normal((*batch, m, n)).astype(dtype)
    b = g.standard_normal((*batch, m, k)).astype(dtype)
    t = torch.linalg.lstsq(torch.from_numpy(a), torch.from_numpy(b))
    s = strided.linalg.lstsq(strided.tensor(a), strided.tensor(b))
    tol = 1e-4 if dtype == np.float32 else 1e-11
    np.testing.assert_allclose(s.solution.numpy(), t.solution.numpy(), atol=tol, rtol=tol)
    assert s.solution.stride() == t.solution.stride() and s.solution.shape == t.solution.shape
    _same(s.rank, t.rank)
    assert s.residuals.shape == t.residuals.shape and s.singular_values.shape == t.singular_values.shape


@pytest.mark.parametrize("driver", ["gelsy", "gelsd", "gelss"])
def test_lstsq_rank_deficient(driver):
    g = np.random.default_rng(7)
    a = (g.standard_normal((120, 40)) @ g.standard_normal((40, 90)))
    b = g.standard_normal((120, 2))
    t = torch.linalg.lstsq(torch.from_numpy(a), torch.from_numpy(b), driver=driver)
    s = strided.linalg.lstsq(strided.tensor(a), strided.tensor(b), driver=driver)
    assert int(s.rank) == int(t.rank) == 40
    np.testing.assert_allclose(a @ s.solution.numpy(), a @ t.solution.numpy(), atol=1e-9)
    assert s.residuals.shape == t.residuals.shape


def test_openblas_switch_keeps_numpy_path():
    code = (
        "import numpy as np, strided\n"
        "from strided.ops.linalg import mkl_lapack, factorizations\n"
        "a = np.random.default_rng(3).standard_normal((100, 80))\n"
        "q, r = strided.linalg.qr(strided.tensor(a))\n"
        "nq, nr = factorizations._numpy_qr(a, False)\n"
        "assert mkl_lapack.qr(a, 'reduced') is None and mkl_lapack.lstsq_library() is None\n"
        "assert np.array_equal(q.numpy(), nq) and np.array_equal(r.numpy(), nr)\n"
        "b = np.ones((100, 2))\n"
        "x = strided.linalg.lstsq(strided.tensor(a), strided.tensor(b), driver='gelsd').solution.numpy()\n"
        "assert np.allclose(x, np.linalg.lstsq(a, b, rcond=None)[0])\n"
        "print('ok')\n")
    env = dict(os.environ, STRIDED_BLAS="openblas")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


@needs_mkl
def test_qr_nan_input_as_torch():
    a = np.random.default_rng(0).standard_normal((70, 70))
    a[3, 4] = np.nan
    tq, tr = torch.linalg.qr(torch.from_numpy(a))
    sq, sr = strided.linalg.qr(strided.tensor(a))
    _same(sq, tq)
    _same(sr, tr)
