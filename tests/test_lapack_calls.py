"""The compiled Cholesky call (kernels/_lapack_calls.h): NumPy's own LAPACK call, made in C.

Its factor must be NumPy's cholesky gufunc's to the bit for every layout the storage can hold,
and every matrix LAPACK refuses (or that gives NaN) must be left to the general path."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided as st
from strided.ops.linalg import matkernel


def _spd(rng, n, dtype):
    a = rng.standard_normal((n, n))
    return (a @ a.T + n * np.eye(n)).astype(dtype)


def _numpy_factor(a: np.ndarray) -> np.ndarray:
    """NumPy's lower factor, computed as its gufunc computes a float32 matrix (in float64), column-major flat."""
    low = np.linalg.cholesky(a.astype(np.float64)).astype(a.dtype)
    return np.ascontiguousarray(low.T).reshape(-1)


BUILT = matkernel.potrf_colmajor(np.eye(2).reshape(-1), 2, 2, 1, 0) is not None


@pytest.mark.skipif(not BUILT, reason="the matrix kernel or NumPy's scipy-openblas is not here")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_call_is_numpys_to_the_bit_for_every_layout(dtype):
    rng = np.random.default_rng(3)
    for n in (1, 2, 3, 4, 7, 16, 31, 64):
        a = _spd(rng, n, dtype)
        want = _numpy_factor(a)
        storage = np.zeros(3 * n * n + 5, dtype)
        # (flat storage, strides, offset) for row-major, column-major, offset, stepped and reversed layouts
        cases = []
        storage[5:5 + n * n] = a.reshape(-1)
        cases.append((5, n, 1))
        s2 = storage.copy()
        s2[5:5 + n * n] = a.T.reshape(-1)
        cases.append((5, 1, n, s2))
        s3 = np.zeros(3 * n * n + 5, dtype)
        s3[1:1 + 2 * n * n:2] = a.reshape(-1)
        cases.append((1, 2 * n, 2, s3))
        s4 = np.zeros(n * n, dtype)
        s4[:] = a[::-1, ::-1].reshape(-1)
        cases.append((n * n - 1, -n, -1, s4))
        for case in cases:
            off, s0, s1 = case[:3]
            flat = case[3] if len(case) > 3 else storage
            got = matkernel.potrf_colmajor(flat, n, s0, s1, off)
            assert got is not None
            factor, info = got
            assert factor.dtype == dtype and factor.tobytes() == want.tobytes(), (n, case[:3])
            assert info.dtype == np.int32 and info.tolist() == [0]


@pytest.mark.skipif(not BUILT, reason="the matrix kernel or NumPy's scipy-openblas is not here")
def test_refused_and_unusual_calls_answer_none():
    f = matkernel.potrf_colmajor
    assert f(np.array([1.0, 2.0, 2.0, 1.0]), 2, 2, 1, 0) is None  # not positive-definite (info 2)
    assert f(np.array([np.nan]), 1, 1, 1, 0) is None  # NaN on the diagonal
    assert f(np.array([-1.0]), 1, 1, 1, 0) is None
    big = np.eye(65).reshape(-1)
    assert f(big, 65, 65, 1, 0) is None  # beyond 64: NumPy's call
    assert f(np.eye(2).reshape(-1), 2, 2, 1, 1) is None  # past the storage's end
    assert f(np.eye(2).reshape(-1), 2, -2, 1, 0) is None  # before its start
    assert f(np.eye(2, dtype=np.int64).reshape(-1), 2, 2, 1, 0) is None
    assert f(np.eye(2, dtype=np.float16).reshape(-1), 2, 2, 1, 0) is None
    assert f(np.zeros(0), 0, 1, 1, 0) is None
    with pytest.raises(TypeError):
        f(np.eye(2).reshape(-1), 2, 2, 1)


@pytest.mark.parametrize("dtype", [st.float32, st.float64])
def test_cholesky_through_the_call_is_the_general_paths_and_torchs(dtype):
    rng = np.random.default_rng(4)
    for n in (1, 3, 16, 40, 80):
        a = _spd(rng, n, dtype.numpy)
        for x in (st.tensor(a), st.tensor(a).t(), st.tensor(np.pad(a, 1))[1:-1, 1:-1]):
            general = st.linalg.cholesky(x.unsqueeze(0))[0]  # (a batch: the general path)
            for got in (st.linalg.cholesky(x), st.linalg.cholesky_ex(x).L):
                assert got.stride() == general.stride() == (1, n)
                assert got._np().tobytes() == general._np().tobytes()
            info = st.linalg.cholesky_ex(x).info
            assert info.dtype == st.int32 and info.shape == () and info.item() == 0
            want = torch.linalg.cholesky(torch.from_numpy(a))
            np.testing.assert_allclose(got._np(), want.numpy(), rtol=1e-5 if dtype is st.float32 else 1e-12,
                                       atol=1e-6 if dtype is st.float32 else 1e-13)
    bad = st.tensor([[1.0, 2.0], [2.0, 1.0]], dtype=dtype)
    r = st.linalg.cholesky_ex(bad)
    assert r.info.item() == 2 and r.L.isnan().all().item()
    with pytest.raises(st.linalg.LinAlgError, match="order 2"):
        st.linalg.cholesky(bad)


@pytest.mark.skipif(not BUILT, reason="the matrix kernel or NumPy's scipy-openblas is not here")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_eigh_call_is_numpys_to_the_bit(dtype):
    rng = np.random.default_rng(6)
    for n in (1, 2, 3, 8, 16, 33, 64):
        a = rng.standard_normal((n, n)).astype(dtype)
        for lower in (True, False):
            w, v = np.linalg.eigh(a.astype(np.float64), UPLO="L" if lower else "U")
            for flat, s0, s1, off in ((a.reshape(-1), n, 1, 0), (np.ascontiguousarray(a.T).reshape(-1), 1, n, 0),
                                      (np.concatenate([np.zeros(3, dtype), a.reshape(-1)]), n, 1, 3)):
                got = matkernel.syevd_colmajor(flat, n, s0, s1, off, lower, True)
                assert got[0].tobytes() == w.astype(dtype).tobytes()
                assert got[1].tobytes() == np.ascontiguousarray(v.astype(dtype).T).tobytes()
                values, none = matkernel.syevd_colmajor(flat, n, s0, s1, off, lower, False)
                want = np.linalg.eigvalsh(a.astype(np.float64), UPLO="L" if lower else "U").astype(dtype)
                assert none is None and values.tobytes() == want.tobytes()
    inf = np.eye(3)
    inf[2, 0] = np.inf
    assert matkernel.syevd_colmajor(inf.reshape(-1), 3, 3, 1, 0, True, True) is None  # (not finite: the general path)
    assert matkernel.syevd_colmajor(np.eye(65).reshape(-1), 65, 65, 1, 0, True, True) is None
    assert matkernel.syevd_colmajor(np.eye(2).reshape(-1), 2, 2, 1, 1, True, True) is None


@pytest.mark.parametrize("dtype", [st.float32, st.float64])
def test_eigh_through_the_call_is_the_general_paths_and_torchs(dtype):
    rng = np.random.default_rng(7)
    for n in (1, 3, 16, 70):
        a = rng.standard_normal((n, n)).astype(dtype.numpy)
        a = a + a.T
        for x in (st.tensor(a), st.tensor(a).t(), st.tensor(np.pad(a, 1))[1:-1, 1:-1]):
            for uplo in ("L", "U", "l"):
                general = st.linalg.eigh(x.unsqueeze(0), uplo)
                got = st.linalg.eigh(x, uplo)
                assert got.eigenvalues.stride() == (1,) and got.eigenvectors.stride() == general.eigenvectors.stride()[1:]
                assert got.eigenvalues._np().tobytes() == general.eigenvalues[0]._np().tobytes()
                assert got.eigenvectors._np().tobytes() == general.eigenvectors[0]._np().tobytes()
                values = st.linalg.eigvalsh(x, uplo)
                assert values._np().tobytes() == st.linalg.eigvalsh(x.unsqueeze(0), uplo)[0]._np().tobytes()
        want = torch.linalg.eigvalsh(torch.from_numpy(a))
        np.testing.assert_allclose(values._np(), want.numpy(), rtol=1e-4 if dtype is st.float32 else 1e-10,
                                   atol=1e-4 if dtype is st.float32 else 1e-10)
    with pytest.raises(RuntimeError, match="UPLO"):
        st.linalg.eigh(st.eye(2, dtype=dtype), "X")
    nan = st.tensor([[1.0, 0.0], [np.nan, 1.0]], dtype=dtype)
    assert st.linalg.eigvalsh(nan).isnan().all().item()
