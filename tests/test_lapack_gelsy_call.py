"""The compiled least-squares call (kernels/_lapack_calls.h, gelsy_colmajor): lstsq's default
driver, sgelsy / dgelsy, called in C with the arguments ``ops.linalg._lapack.solve`` gives it.

LAPACK's B on return and the rank must be ``solve``'s to the bit for every layout the storage
can hold (they are what the general path returns), lstsq through the call must be the general
path's results (bits, shapes, strides, dtypes) and torch's to within rounding, and the calls
the fast path does not take (a non-finite A, batches, other drivers, empty or larger systems)
must keep the general path's answers and errors."""

from __future__ import annotations

import os

import numpy as np
import pytest
import torch

import strided as st
from strided.errors import LinAlgError
from strided.ops.linalg import _lapack, matkernel

BUILT = matkernel.gelsy_colmajor(np.eye(2).reshape(-1), 2, 2, 2, 1, 0, np.ones(2), 1, 1, 0, 0, 0.1) is not None
needs_call = pytest.mark.skipif(not BUILT and os.environ.get("STRIDED_REQUIRE_NATIVE") != "1",
                                reason="the matrix kernel or NumPy's scipy-openblas is not here")
SHAPES = [(1, 1), (1, 5), (5, 1), (3, 3), (3, 4), (4, 3), (16, 16), (7, 30), (64, 9), (64, 64)]


def _layouts(a: np.ndarray) -> list:
    """``a`` (m, n) as (flat, offset, s0, s1) in four storages: row-major after an offset,
    column-major, every other element, both dims reversed."""
    m, n = a.shape
    row = np.zeros(m * n + 3, a.dtype)
    row[3:] = a.reshape(-1)
    step = np.zeros(2 * m * n, a.dtype)
    step[::2] = a.reshape(-1)
    rev = a[::-1, ::-1].copy().reshape(-1)
    return [(row, 3, n, 1), (a.T.copy().reshape(-1), 0, 1, m), (step, 0, 2 * n, 2), (rev, m * n - 1, -n, -1)]


@needs_call
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_call_is_solves_to_the_bit_for_every_layout(dtype):
    rng = np.random.default_rng(21)
    lib = _lapack.library()
    for m, n in SHAPES:
        for k in (1, 3):
            a = rng.standard_normal((m, n)).astype(dtype)
            if n > 2 and m > 2:
                a[:, 2] = a[:, 1]  # (rank-deficient: gelsy's condition estimate drops a column)
            b = rng.standard_normal((m, k)).astype(dtype)
            for rcond in (np.finfo(dtype).eps * max(m, n), 0.3, 0.0, -1.0, 1e300):
                x, rank, _, info = _lapack.solve(lib, a, b, rcond, "gelsy")
                want = np.ascontiguousarray(x.T).reshape(-1)  # (LAPACK's B, column-major)
                for (fa, oa, a0, a1), (fb, ob, b0, b1) in zip(_layouts(a), _layouts(b)[::-1]):
                    got = matkernel.gelsy_colmajor(fa, m, n, a0, a1, oa, fb, k, b0, b1, ob, rcond)
                    assert got is not None
                    assert got[0].dtype == dtype and got[0].tobytes() == want.tobytes(), (m, n, k, rcond)
                    assert got[1] == int(rank) and int(info) == 0


@needs_call
def test_unusual_calls_answer_none():
    a, b = np.arange(12.0), np.arange(3.0)
    assert matkernel.gelsy_colmajor(a, 3, 4, 4, 1, 0, b, 1, 1, 0, 0, 0.1) is not None
    bad = a.copy()
    bad[5] = np.nan
    assert matkernel.gelsy_colmajor(bad, 3, 4, 4, 1, 0, b, 1, 1, 0, 0, 0.1) is None  # A not finite
    assert matkernel.gelsy_colmajor(a, 3, 4, 4, 1, 1, b, 1, 1, 0, 0, 0.1) is None  # A past the end
    assert matkernel.gelsy_colmajor(a, 3, 4, 4, 1, 0, b, 1, 1, 0, 1, 0.1) is None  # B past the end
    assert matkernel.gelsy_colmajor(a, 0, 4, 4, 1, 0, b, 1, 1, 0, 0, 0.1) is None  # empty
    assert matkernel.gelsy_colmajor(a, 3, 4, 4, 1, 0, b, 0, 1, 0, 0, 0.1) is None  # no right-hand side
    assert matkernel.gelsy_colmajor(np.zeros(65 * 2), 65, 2, 2, 1, 0, np.zeros(65), 1, 1, 0, 0, 0.1) is None
    assert matkernel.gelsy_colmajor(a, 3, 4, 4, 1, 0, b.astype(np.float32), 1, 1, 0, 0, 0.1) is None  # mixed
    assert matkernel.gelsy_colmajor(a.astype(np.int32), 3, 4, 4, 1, 0, b, 1, 1, 0, 0, 0.1) is None
    with pytest.raises(TypeError):
        matkernel.gelsy_colmajor(a, 3, 4, 4, 1, 0, b, 1, 1, 0, 0, "0.1")


def _general(monkeypatch, fn):
    """``fn()`` with the compiled call switched off (the general path's answer)."""
    with monkeypatch.context() as patch:
        patch.setattr(matkernel, "gelsy_colmajor", matkernel._lapack_none)
        return fn()


def _same(x: st.Tensor, y: st.Tensor) -> None:
    assert x.dtype == y.dtype and tuple(x.shape) == tuple(y.shape) and x.stride() == y.stride()
    assert x.storage_offset() == y.storage_offset()
    assert x.numpy().tobytes() == y.numpy().tobytes()


def _views(a: np.ndarray, dtype) -> list:
    """Tensors holding ``a`` (m, n): row-major, column-major, offset into a larger one, stepped."""
    m, n = a.shape
    big, wide = np.zeros((m + 2, n + 3)), np.zeros((m, 2 * n))
    big[1:m + 1, 3:], wide[:, ::2] = a, a
    return [st.tensor(a, dtype=dtype), st.tensor(a.T.copy(), dtype=dtype).mT,
            st.tensor(big, dtype=dtype)[1:m + 1, 3:], st.tensor(wide, dtype=dtype)[:, ::2]]


@pytest.mark.parametrize("dtype", [st.float32, st.float64])
def test_lstsq_through_the_call_is_the_general_paths_and_torchs(dtype, monkeypatch):
    rng = np.random.default_rng(22)
    tdt = torch.float32 if dtype == st.float32 else torch.float64
    tol = 2e-3 if dtype == st.float32 else 1e-9
    served = []
    call = matkernel.gelsy_colmajor
    monkeypatch.setattr(matkernel, "gelsy_colmajor", lambda *args: served.append(call(*args)) or served[-1])
    for m, n in SHAPES:
        a = rng.standard_normal((m, n))
        b = rng.standard_normal((m, 3))
        for A in _views(a, dtype):  # noqa: N806
            for B in (*_views(b, dtype), st.tensor(b[:, 0], dtype=dtype), st.tensor(b, dtype=dtype)[:, 1]):  # noqa: N806
                for rcond in (None, 0.25, 0):
                    got = st.linalg.lstsq(A, B, rcond)
                    want = _general(monkeypatch, lambda: st.linalg.lstsq(A, B, rcond))  # noqa: B023
                    for x, y in zip(got, want):
                        _same(x, y)
        assert served and (None not in served or not BUILT)  # (every call above was the compiled one's)
        served.clear()
        t = torch.linalg.lstsq(torch.tensor(a, dtype=tdt), torch.tensor(b, dtype=tdt), driver="gelsy")
        got = st.linalg.lstsq(st.tensor(a, dtype=dtype), st.tensor(b, dtype=dtype))
        assert int(got.rank) == int(t.rank) == min(m, n)
        np.testing.assert_allclose(got.solution.numpy(), t.solution.numpy(), rtol=tol, atol=tol)
        assert got.solution.stride() == t.solution.stride()
        for x, y in zip(got[1:], t[1:]):
            assert x.dtype.name == str(y.dtype).split(".")[1] and tuple(x.shape) == tuple(y.shape)


def test_rank_deficient_and_nan_b_match_the_general_path(monkeypatch):
    a = np.arange(12.0).reshape(4, 3)  # (rank 2)
    b = np.array([[1.0, np.nan], [2.0, 0.0], [np.inf, 1.0], [0.5, 2.0]])
    for dtype in (st.float32, st.float64):
        A, B = st.tensor(a, dtype=dtype), st.tensor(b, dtype=dtype)  # noqa: N806
        got = st.linalg.lstsq(A, B, driver="gelsy")
        want = _general(monkeypatch, lambda: st.linalg.lstsq(A, B, driver="gelsy"))  # noqa: B023
        assert int(got.rank) == 2
        for x, y in zip(got, want):
            _same(x, y)
        t = torch.linalg.lstsq(torch.tensor(a), torch.tensor(a[:, :1]))
        assert int(st.linalg.lstsq(A, st.tensor(a[:, :1], dtype=dtype)).rank) == int(t.rank)


def test_calls_left_to_the_general_path_keep_its_answers_and_errors():
    with pytest.raises(LinAlgError, match="non-finite"):
        st.linalg.lstsq(st.tensor([[1.0, float("nan")], [2.0, 3.0]]), st.tensor([1.0, 2.0]))
    with pytest.raises(RuntimeError, match="should match"):
        st.linalg.lstsq(st.tensor([[1.0, 0.0], [2.0, 3.0]]), st.tensor([1.0, 2.0, 3.0]))
    with pytest.raises(RuntimeError, match="should match"):
        st.linalg.lstsq(st.tensor([[1.0, 0.0], [2.0, 3.0]]), st.ones(3, 2))
    empty = st.linalg.lstsq(st.zeros(0, 3), st.zeros(0, 2))
    t = torch.linalg.lstsq(torch.zeros(0, 3), torch.zeros(0, 2))
    assert tuple(empty.solution.shape) == tuple(t.solution.shape) and not empty.solution.numpy().any()
    big = np.random.default_rng(23).standard_normal((70, 5))
    x = st.linalg.lstsq(st.tensor(big), st.tensor(big[:, :2])).solution.numpy()
    np.testing.assert_allclose(x, np.eye(5)[:, :2], atol=1e-10)
    for driver in ("gels", "gelsd", "gelss"):  # (their residuals and singular values: the general path)
        out = st.linalg.lstsq(st.tensor(big), st.tensor(big[:, :2]), driver=driver)
        assert tuple(out.residuals.shape) == (2,)
