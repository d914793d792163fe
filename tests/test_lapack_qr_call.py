"""The compiled QR call (kernels/_lapack_calls.h, geqrf_colmajor): NumPy's own dgeqrf / dorgqr
calls, made in C.

Q and R must be np.linalg.qr's to the bit for every mode and layout the storage can hold (they
are what the general path returns), non-finite matrices must be left to the general path, and
linalg.qr through the call must agree with torch on values."""

from __future__ import annotations

import os

import numpy as np
import pytest
import torch

import strided as st
from strided.ops.linalg import matkernel

BUILT = matkernel.geqrf_colmajor(np.eye(2).reshape(-1), 2, 2, 2, 1, 0, 2) is not None
SHAPES = [(1, 1), (1, 5), (5, 1), (3, 3), (3, 4), (4, 3), (16, 16), (7, 30), (64, 9), (64, 64)]


def _numpy_qr(a: np.ndarray, mode: str) -> tuple[np.ndarray | None, np.ndarray]:
    """np.linalg.qr as NumPy computes a float32 matrix (in float64, cast back), column-major flat."""
    q, r = np.linalg.qr(a.astype(np.float64), mode="complete" if mode == "complete" else "reduced")
    flat = [np.ascontiguousarray(x.astype(a.dtype).T).reshape(-1) for x in (q, r)]
    return (None if mode == "r" else flat[0]), flat[1]


def _q_cols(m: int, n: int, mode: str) -> int:
    return 0 if mode == "r" else (m if mode == "complete" else min(m, n))


@pytest.mark.skipif(not BUILT and os.environ.get("STRIDED_REQUIRE_NATIVE") != "1",
                    reason="the matrix kernel or NumPy's scipy-openblas is not here")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_call_is_numpys_to_the_bit_for_every_mode_and_layout(dtype):
    rng = np.random.default_rng(5)
    for m, n in SHAPES:
        a = rng.standard_normal((m, n)).astype(dtype)
        a[:, 0] *= 1e-3  # (a small column, and below a rank-deficient one)
        if n > 2:
            a[:, 2] = a[:, 1]
        # (flat, offset, s0, s1): row-major with an offset, column-major, stepped, reversed
        row = np.zeros(m * n + 3, dtype)
        row[3:] = a.reshape(-1)
        col = a.T.copy().reshape(-1)
        step = np.zeros(2 * m * n, dtype)
        step[::2] = a.reshape(-1)
        rev = a[::-1, ::-1].copy().reshape(-1)
        cases = [(row, 3, n, 1), (col, 0, 1, m), (step, 0, 2 * n, 2), (rev, m * n - 1, -n, -1)]
        for mode in ("reduced", "complete", "r"):
            want_q, want_r = _numpy_qr(a, mode)
            for flat, off, s0, s1 in cases:
                got = matkernel.geqrf_colmajor(flat, m, n, s0, s1, off, _q_cols(m, n, mode))
                assert got is not None
                q, r = got
                assert r.dtype == dtype and r.tobytes() == want_r.tobytes(), (m, n, mode, s0, s1)
                if want_q is None:
                    assert q is None
                else:
                    assert q.dtype == dtype and q.tobytes() == want_q.tobytes(), (m, n, mode, s0, s1)


@pytest.mark.skipif(not BUILT and os.environ.get("STRIDED_REQUIRE_NATIVE") != "1",
                    reason="the matrix kernel or NumPy's scipy-openblas is not here")
def test_unusual_calls_answer_none():
    a = np.arange(12.0)
    assert matkernel.geqrf_colmajor(a, 3, 4, 4, 1, 0, 3) is not None
    bad = a.copy()
    bad[5] = np.nan
    assert matkernel.geqrf_colmajor(bad, 3, 4, 4, 1, 0, 3) is None  # NaN: the general path's
    bad[5] = np.inf
    assert matkernel.geqrf_colmajor(bad, 3, 4, 4, 1, 0, 3) is None
    assert matkernel.geqrf_colmajor(a, 3, 4, 4, 1, 1, 3) is None  # reads past the end
    assert matkernel.geqrf_colmajor(a, 0, 4, 4, 1, 0, 0) is None  # empty
    assert matkernel.geqrf_colmajor(a, 3, 4, 4, 1, 0, 4) is None  # Q's columns neither k nor m > n
    assert matkernel.geqrf_colmajor(np.zeros(65 * 65), 65, 65, 65, 1, 0, 65) is None  # over 64
    assert matkernel.geqrf_colmajor(a.astype(np.int64), 3, 4, 4, 1, 0, 3) is None
    assert matkernel.geqrf_colmajor(a.astype(np.complex128), 3, 4, 4, 1, 0, 3) is None


@pytest.mark.parametrize("dtype", [st.float32, st.float64])
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_qr_through_the_call_is_the_general_paths_and_torchs(dtype, mode):
    rng = np.random.default_rng(8)
    for m, n in [(3, 3), (3, 4), (6, 2), (16, 16)]:
        a = rng.standard_normal((m, n))
        for t in (st.tensor(a, dtype=dtype), st.tensor(a.T.copy(), dtype=dtype).mT):
            Q, R = st.linalg.qr(t, mode=mode)
            # the general path: the same matrix as a batch of one (the call takes single matrices only)
            Qb, Rb = st.linalg.qr(t.unsqueeze(0), mode=mode)
            assert R.numpy().tobytes() == Rb[0].numpy().tobytes() and R.stride() == Rb[0].stride()
            if mode == "r":
                assert tuple(Q.shape) == (0,) and tuple(Qb.shape) == (0,)
            else:
                assert Q.numpy().tobytes() == Qb[0].numpy().tobytes() and Q.stride() == Qb[0].stride()
            tq, tr = torch.linalg.qr(torch.tensor(a, dtype=getattr(torch, str(dtype).split(".")[-1])), mode=mode)
            tol = 1e-4 if dtype == st.float32 else 1e-10
            assert tuple(R.shape) == tuple(tr.shape) and tuple(Q.shape) == tuple(tq.shape)
            # (signs of Householder columns may differ between LAPACKs: compare |R| and Q R)
            np.testing.assert_allclose(np.abs(R.numpy()), np.abs(tr.numpy()), atol=tol, rtol=tol)
            if mode != "r":
                np.testing.assert_allclose(Q.numpy() @ R.numpy(), a, atol=tol * 10, rtol=tol * 10)


def test_non_finite_and_empty_take_the_general_path():
    a = st.tensor([[1.0, float("nan")], [2.0, 3.0]])
    Q, R = st.linalg.qr(a)
    tq, tr = torch.linalg.qr(torch.tensor([[1.0, float("nan")], [2.0, 3.0]]))
    assert tuple(Q.shape) == tuple(tq.shape) and np.isnan(R.numpy()).any() == torch.isnan(tr).any().item()
    Q, R = st.linalg.qr(st.zeros(0, 3))
    assert tuple(Q.shape) == (0, 0) and tuple(R.shape) == (0, 3)
    with pytest.raises(Exception, match="unrecognized mode"):
        st.linalg.qr(st.ones(2, 2), mode="full")


def test_the_fallback_without_the_kernel_gives_the_same_bits(monkeypatch):
    """With the call gone (no kernel, or a library without dgeqrf), linalg.qr's NumPy path answers: the same bits."""
    rng = np.random.default_rng(11)
    ts = [st.tensor(rng.standard_normal(s), dtype=d) for s in [(3, 4), (16, 16), (9, 2)] for d in (st.float32, st.float64)]
    want = [[x.numpy().tobytes() for x in st.linalg.qr(t, mode=mode) if x.numel()] for t in ts for mode in ("reduced", "complete")]
    monkeypatch.setattr(matkernel, "geqrf_colmajor", matkernel._lapack_none)
    got = [[x.numpy().tobytes() for x in st.linalg.qr(t, mode=mode) if x.numel()] for t in ts for mode in ("reduced", "complete")]
    assert got == want
