"""The compiled SVD call (kernels/_lapack_calls.h, gesdd_colmajor): NumPy's svd gufunc's dgesdd
call, made in C.

U, S and Vh must be NumPy's to the bit for every jobz and layout the storage can hold (they are
what the general path returns), non-finite matrices must be left to the general path (PyTorch's
error), and linalg.svd / svdvals through the call must agree with torch on values."""

from __future__ import annotations

import os

import numpy as np
import pytest
import torch

import strided as st
from strided.errors import LinAlgError
from strided.ops.linalg import matkernel

BUILT = matkernel.gesdd_colmajor(np.eye(2).reshape(-1), 2, 2, 2, 1, 0, 0) is not None
SHAPES = [(1, 1), (1, 5), (5, 1), (3, 3), (3, 4), (4, 3), (16, 16), (7, 30), (64, 9), (64, 64)]


def _numpy_svd(a: np.ndarray, jobz: int) -> tuple:
    """np.linalg.svd as NumPy computes a float32 matrix (in float64, cast back); U, Vh column-major flat."""
    w = a.astype(np.float64)
    if jobz == 0:
        return None, np.linalg.svd(w, compute_uv=False).astype(a.dtype), None
    u, s, vh = np.linalg.svd(w, full_matrices=jobz == 2)
    return (np.ascontiguousarray(u.astype(a.dtype).T).reshape(-1), s.astype(a.dtype),
            np.ascontiguousarray(vh.astype(a.dtype).T).reshape(-1))


@pytest.mark.skipif(not BUILT and os.environ.get("STRIDED_REQUIRE_NATIVE") != "1",
                    reason="the matrix kernel or NumPy's scipy-openblas is not here")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_call_is_numpys_to_the_bit_for_every_jobz_and_layout(dtype):
    rng = np.random.default_rng(6)
    for m, n in SHAPES:
        a = rng.standard_normal((m, n)).astype(dtype)
        if n > 2:
            a[:, 2] = a[:, 1]  # (rank-deficient: a zero singular value)
        row = np.zeros(m * n + 3, dtype)
        row[3:] = a.reshape(-1)
        col = a.T.copy().reshape(-1)
        step = np.zeros(2 * m * n, dtype)
        step[::2] = a.reshape(-1)
        rev = a[::-1, ::-1].copy().reshape(-1)
        cases = [(row, 3, n, 1), (col, 0, 1, m), (step, 0, 2 * n, 2), (rev, m * n - 1, -n, -1)]
        for jobz in (0, 1, 2):
            want = _numpy_svd(a, jobz)
            for flat, off, s0, s1 in cases:
                got = matkernel.gesdd_colmajor(flat, m, n, s0, s1, off, jobz)
                assert got is not None
                for g, w in zip(got, want):
                    if w is None:
                        assert g is None
                    else:
                        assert g.dtype == dtype and g.tobytes() == w.tobytes(), (m, n, jobz, s0, s1)


@pytest.mark.skipif(not BUILT and os.environ.get("STRIDED_REQUIRE_NATIVE") != "1",
                    reason="the matrix kernel or NumPy's scipy-openblas is not here")
def test_unusual_calls_answer_none():
    a = np.arange(12.0)
    assert matkernel.gesdd_colmajor(a, 3, 4, 4, 1, 0, 1) is not None
    bad = a.copy()
    bad[5] = np.nan
    assert matkernel.gesdd_colmajor(bad, 3, 4, 4, 1, 0, 1) is None
    bad[5] = -np.inf
    assert matkernel.gesdd_colmajor(bad, 3, 4, 4, 1, 0, 0) is None
    assert matkernel.gesdd_colmajor(a, 3, 4, 4, 1, 1, 1) is None  # reads past the end
    assert matkernel.gesdd_colmajor(a, 0, 4, 4, 1, 0, 1) is None  # empty
    assert matkernel.gesdd_colmajor(a, 3, 4, 4, 1, 0, 3) is None  # no such jobz
    assert matkernel.gesdd_colmajor(np.zeros(65 * 2), 65, 2, 2, 1, 0, 1) is None  # over 64
    assert matkernel.gesdd_colmajor(a.astype(np.int32), 3, 4, 4, 1, 0, 1) is None


@pytest.mark.parametrize("dtype", [st.float32, st.float64])
def test_svd_through_the_call_is_the_general_paths_and_torchs(dtype):
    rng = np.random.default_rng(9)
    tdt = torch.float32 if dtype == st.float32 else torch.float64
    tol = 1e-4 if dtype == st.float32 else 1e-10
    for m, n in [(3, 3), (3, 4), (6, 2), (16, 16)]:
        a = rng.standard_normal((m, n))
        for t in (st.tensor(a, dtype=dtype), st.tensor(a.T.copy(), dtype=dtype).mT):
            for full in (True, False):
                U, S, Vh = st.linalg.svd(t, full_matrices=full)
                Ub, Sb, Vb = st.linalg.svd(t.unsqueeze(0), full_matrices=full)  # (the general path)
                for x, y in ((U, Ub[0]), (S, Sb[0]), (Vh, Vb[0])):
                    assert x.numpy().tobytes() == y.numpy().tobytes() and x.stride() == y.stride()
                tu, ts, tv = torch.linalg.svd(torch.tensor(a, dtype=tdt), full_matrices=full)
                assert (tuple(U.shape), tuple(Vh.shape)) == (tuple(tu.shape), tuple(tv.shape))
                np.testing.assert_allclose(S.numpy(), ts.numpy(), atol=tol, rtol=tol)
            sv = st.linalg.svdvals(t)
            assert sv.numpy().tobytes() == st.linalg.svdvals(t.unsqueeze(0))[0].numpy().tobytes()
            np.testing.assert_allclose(sv.numpy(), torch.linalg.svdvals(torch.tensor(a, dtype=tdt)).numpy(),
                                       atol=tol, rtol=tol)


def test_non_finite_keeps_pytorchs_error_and_empty_the_general_path():
    with pytest.raises(LinAlgError, match="non-finite"):
        st.linalg.svd(st.tensor([[1.0, float("nan")], [2.0, 3.0]]))
    with pytest.raises(LinAlgError, match="non-finite"):
        st.linalg.svdvals(st.tensor([[1.0, float("inf")], [2.0, 3.0]]))
    U, S, Vh = st.linalg.svd(st.zeros(0, 3))
    assert (tuple(U.shape), tuple(S.shape), tuple(Vh.shape)) == ((0, 0), (0,), (3, 3))


@pytest.mark.parametrize("dtype", [st.float32, st.float64])
def test_pinv_through_the_call_is_numpys_svd_path(dtype):
    """pinv of one matrix takes U, S, Vh from the call: the same bits as the batched (NumPy) path."""
    rng = np.random.default_rng(10)
    tdt = torch.float32 if dtype == st.float32 else torch.float64
    tol = 1e-3 if dtype == st.float32 else 1e-9
    for m, n in [(3, 4), (5, 2), (16, 16)]:
        a = rng.standard_normal((m, n))
        a[:, 1] = a[:, 0]  # (a dropped singular value)
        for t in (st.tensor(a, dtype=dtype), st.tensor(a.T.copy(), dtype=dtype).mT):
            for kw in ({}, {"rtol": 0.2}, {"atol": 0.5}):
                got = st.linalg.pinv(t, **kw)
                assert got.numpy().tobytes() == st.linalg.pinv(t.unsqueeze(0), **kw)[0].numpy().tobytes()
                want = torch.linalg.pinv(torch.tensor(a, dtype=tdt), **kw).numpy()
                np.testing.assert_allclose(got.numpy(), want, atol=tol, rtol=tol)
    with pytest.raises(LinAlgError, match="non-finite"):
        st.linalg.pinv(st.tensor([[1.0, float("nan")]]))


def test_svd_with_a_tensor_full_matrices_keeps_the_general_paths_order():
    """A non-bool full_matrices is not the call's: the general path's checks come first."""
    with pytest.raises(LinAlgError, match="non-finite"):
        st.linalg.svd(st.tensor([[1.0, float("nan")], [2.0, 3.0]]), st.ones(2, 2))


def test_the_fallback_without_the_kernel_gives_the_same_bits(monkeypatch):
    """With the call gone (no kernel, or a library without dgesdd), NumPy's path answers: the same bits."""
    rng = np.random.default_rng(12)
    ts = [st.tensor(rng.standard_normal(s), dtype=d) for s in [(3, 4), (16, 16), (9, 2)] for d in (st.float32, st.float64)]

    def run():
        out = []
        for t in ts:
            out += [x.numpy().tobytes() for x in st.linalg.svd(t)] + [x.numpy().tobytes() for x in st.linalg.svd(t, False)]
            out += [st.linalg.svdvals(t).numpy().tobytes(), st.linalg.pinv(t).numpy().tobytes()]
        return out

    want = run()
    monkeypatch.setattr(matkernel, "gesdd_colmajor", matkernel._lapack_none)
    assert run() == want


def _pinv_views(a: np.ndarray, dtype) -> list:
    """Tensors holding ``a`` (m, n): row-major, column-major, offset into a larger one, stepped, reversed rows."""
    m, n = a.shape
    big, wide = np.zeros((m + 2, n + 3)), np.zeros((m, 2 * n))
    big[1:m + 1, 3:], wide[:, ::2] = a, a
    return [st.tensor(a, dtype=dtype), st.tensor(a.T.copy(), dtype=dtype).mT, st.tensor(big, dtype=dtype)[1:m + 1, 3:],
            st.tensor(wide, dtype=dtype)[:, ::2], st.tensor(a[::-1].copy(), dtype=dtype).flip(0)]


@pytest.mark.parametrize("dtype", [st.float32, st.float64])
def test_pinv_in_one_call_is_the_general_paths_bits(dtype, monkeypatch):
    """pinv / pinverse of one matrix in one compiled call (gesdd_pinv): the general path's bits
    and layout (rank-deficient, a zero matrix, singular values whose reciprocal overflows float32,
    rtol and rcond given, every layout), PyTorch's values; other calls are left to that path."""
    rng = np.random.default_rng(13)
    tdt = torch.float32 if dtype == st.float32 else torch.float64
    tol = 1e-3 if dtype == st.float32 else 1e-9
    served = []
    call = matkernel.gesdd_pinv
    monkeypatch.setattr(matkernel, "gesdd_pinv", lambda *args: served.append(call(*args)) or served[-1])
    cases = []
    for m, n in [(2, 2), (2, 5), (5, 2), (3, 4), (4, 3), (16, 16), (7, 30), (64, 9), (64, 64)]:
        a = rng.standard_normal((m, n))
        cases.append(a)
        b = a.copy()
        b[:, 1] = b[:, 0]  # (a dropped singular value)
        cases.append(b)
    cases += [np.zeros((3, 4)), np.diag([1e-30, 1e-37, 1e-44, 1e-45])[:3] * 1e-1, np.eye(4)[:3] * 1e-39]
    for a in cases:
        for t in _pinv_views(a, dtype):
            for call_it in (lambda x: st.linalg.pinv(x), lambda x: st.linalg.pinv(x, rtol=0.3),  # noqa: B023
                            lambda x: st.linalg.pinv(x, rcond=0), lambda x: st.pinverse(x),
                            lambda x: st.pinverse(x, rcond=-1.0)):
                got = call_it(t)
                with monkeypatch.context() as patch:
                    patch.setattr(matkernel, "gesdd_pinv", matkernel._lapack_none)
                    want = call_it(t)
                assert got.dtype == want.dtype and got.shape == want.shape and got.stride() == want.stride()
                assert got.numpy().tobytes() == want.numpy().tobytes(), a.shape
        if np.abs(a).max() > 1e-3:
            theirs = torch.linalg.pinv(torch.tensor(a, dtype=tdt)).numpy()
            np.testing.assert_allclose(st.linalg.pinv(st.tensor(a, dtype=dtype)).numpy(), theirs, atol=tol, rtol=tol)
    assert served and all(x is not None for x in served)
    served.clear()
    left = [st.ones(1, 4), st.ones(4, 1), st.ones(2, 3, 3), st.ones(70, 3), st.ones(3, 3, dtype=st.complex64)]
    for t in left:
        st.linalg.pinv(t)
    st.linalg.pinv(st.eye(3), hermitian=True)
    st.linalg.pinv(st.eye(3), atol=0.1)
    st.linalg.pinv(st.eye(3), rtol=st.tensor(0.1))
    assert all(x is None for x in served)  # (a size of 1 is np.matmul's gemv; batches, hermitian, atol: NumPy's)
    with pytest.raises(LinAlgError, match="non-finite"):
        st.linalg.pinv(st.tensor([[1.0, float("inf")], [2.0, 3.0]], dtype=dtype))


@pytest.mark.parametrize("dtype", [st.float32, st.float64])
def test_matrix_rank_of_one_matrix_is_the_batched_paths_and_torchs(dtype):
    """matrix_rank of one matrix (the compiled 'N' call, the default cut-off in floats): the batch
    of one's answer (NumPy's gufunc, _tolerances' arrays) on rank-deficient, near-threshold, zero,
    hermitian (NaN included) and layout cases; torch's ranks on clear ones."""
    rng = np.random.default_rng(14)
    tdt = torch.float32 if dtype == st.float32 else torch.float64
    eps = float(np.finfo(np.float32 if dtype == st.float32 else np.float64).eps)
    for m, n in [(1, 1), (2, 5), (5, 2), (3, 4), (16, 16), (7, 30), (64, 64), (70, 3)]:
        for r in range(min(m, n) + 1):
            a = rng.standard_normal((m, r)) @ rng.standard_normal((r, n))
            if r and min(m, n) > 1:
                a += rng.standard_normal((m, n)) * eps * max(m, n) * rng.choice([0.5, 1.0, 2.0])
            for t in _pinv_views(a, dtype):
                for kw in ({}, {"hermitian": True}, {"rtol": 0.1}, {"atol": 0.5}):
                    if kw.get("hermitian") and m != n:
                        continue
                    got = st.linalg.matrix_rank(t, **kw)
                    want = st.linalg.matrix_rank(t.unsqueeze(0), **kw)[0]
                    assert got.dtype == want.dtype == st.int64 and got.shape == () and int(got) == int(want)
            if r in (0, min(m, n)):
                assert int(st.linalg.matrix_rank(st.tensor(a, dtype=dtype))) == int(
                    torch.linalg.matrix_rank(torch.tensor(a, dtype=tdt)))
    nan = st.tensor([[1.0, float("nan")], [float("nan"), 1.0]], dtype=dtype)
    assert int(st.linalg.matrix_rank(nan, hermitian=True)) == int(st.linalg.matrix_rank(nan.unsqueeze(0), hermitian=True)[0])
