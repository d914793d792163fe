"""The compiled solve call (kernels/_lapack_calls.h, gesv_colmajor): NumPy's solve gufunc's dgesv
call, made in C on the storages.

The solution must be NumPy's to the bit for every layout the storages can hold, linalg.solve /
solve_ex of one system through it must be the general path's results (bits, shape, strides,
dtype, info), and singular or non-finite matrices, batches and left=False must keep the general
path's answers and errors."""

from __future__ import annotations

import os

import numpy as np
import pytest
import torch

import strided as st
from strided.errors import LinAlgError
from strided.ops.linalg import matkernel

BUILT = matkernel.gesv_colmajor(np.eye(2).reshape(-1), 2, 2, 1, 0, np.ones(2), 1, 1, 0, 0) is not None
needs_call = pytest.mark.skipif(not BUILT and os.environ.get("STRIDED_REQUIRE_NATIVE") != "1",
                                reason="the matrix kernel or NumPy's scipy-openblas is not here")


def _layouts(a: np.ndarray) -> list:
    """``a`` (m, n) as (flat, offset, s0, s1): row-major after an offset, column-major, every
    other element, both dims reversed."""
    m, n = a.shape
    row = np.zeros(m * n + 3, a.dtype)
    row[3:] = a.reshape(-1)
    step = np.zeros(2 * m * n, a.dtype)
    step[::2] = a.reshape(-1)
    rev = a[::-1, ::-1].copy().reshape(-1)
    return [(row, 3, n, 1), (a.T.copy().reshape(-1), 0, 1, m), (step, 0, 2 * n, 2), (rev, m * n - 1, -n, -1)]


@needs_call
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_call_is_numpys_solve_to_the_bit_for_every_layout(dtype):
    rng = np.random.default_rng(51)
    for n in (1, 2, 3, 7, 16, 33, 64):
        for k in (1, 2, 5):
            a = rng.standard_normal((n, n)).astype(dtype)
            b = (rng.standard_normal((n, k)) * rng.choice([1e-30, 1.0, 1e30])).astype(dtype)
            b[0, 0] = np.inf if n > 2 else b[0, 0]
            with np.errstate(all="ignore"):
                want = np.linalg.solve(a.astype(np.float64), b.astype(np.float64)).astype(dtype)
            want = np.ascontiguousarray(want.T).reshape(-1)
            for (fa, oa, a0, a1), (fb, ob, b0, b1) in zip(_layouts(a), _layouts(b)[::-1]):
                got = matkernel.gesv_colmajor(fa, n, a0, a1, oa, fb, k, b0, b1, ob)
                assert got is not None and got.dtype == dtype
                assert got.tobytes() == want.tobytes(), (n, k)


@needs_call
def test_unusual_calls_answer_none():
    a, b = np.arange(9.0) + np.eye(3).reshape(-1) * 10, np.arange(3.0)
    assert matkernel.gesv_colmajor(a, 3, 3, 1, 0, b, 1, 1, 0, 0) is not None
    assert matkernel.gesv_colmajor(np.ones(9), 3, 3, 1, 0, b, 1, 1, 0, 0) is None  # singular
    bad = a.copy()
    bad[4] = np.nan
    assert matkernel.gesv_colmajor(bad, 3, 3, 1, 0, b, 1, 1, 0, 0) is None  # A not finite
    assert matkernel.gesv_colmajor(a, 3, 3, 1, 1, b, 1, 1, 0, 0) is None  # A past the end
    assert matkernel.gesv_colmajor(a, 3, 3, 1, 0, b, 1, 1, 0, 1) is None  # B past the end
    assert matkernel.gesv_colmajor(a, 0, 3, 1, 0, b, 1, 1, 0, 0) is None
    assert matkernel.gesv_colmajor(a, 3, 3, 1, 0, b.astype(np.float32), 1, 1, 0, 0) is None  # mixed
    assert matkernel.gesv_colmajor(np.eye(65).reshape(-1), 65, 65, 1, 0, np.ones(65), 1, 1, 0, 0) is None


def _views(a: np.ndarray, dtype) -> list:
    """Tensors holding ``a`` (m, n): row-major, column-major, offset into a larger one, stepped."""
    m, n = a.shape
    big, wide = np.zeros((m + 2, n + 3)), np.zeros((m, 2 * n))
    big[1:m + 1, 3:], wide[:, ::2] = a, a
    return [st.tensor(a, dtype=dtype), st.tensor(a.T.copy(), dtype=dtype).mT,
            st.tensor(big, dtype=dtype)[1:m + 1, 3:], st.tensor(wide, dtype=dtype)[:, ::2]]


def _same(x, y):
    assert x.dtype == y.dtype and x.shape == y.shape and x.stride() == y.stride()
    assert x.numpy().tobytes() == y.numpy().tobytes()


@pytest.mark.parametrize("dtype", [st.float32, st.float64])
def test_solve_through_the_call_is_the_general_paths_and_torchs(dtype, monkeypatch):
    rng = np.random.default_rng(52)
    tdt = torch.float32 if dtype == st.float32 else torch.float64
    served = []
    call = matkernel.gesv_colmajor
    monkeypatch.setattr(matkernel, "gesv_colmajor", lambda *args: served.append(call(*args)) or served[-1])
    for n in (1, 2, 3, 16, 40):
        a = rng.standard_normal((n, n)) + n * np.eye(n)
        b = rng.standard_normal((n, 3))
        b[0, 1] = np.nan
        for A in _views(a, dtype):  # noqa: N806
            for B in (*_views(b, dtype), st.tensor(b[:, 0], dtype=dtype), st.tensor(b, dtype=dtype)[:, 2]):  # noqa: N806
                got, info = st.linalg.solve_ex(A, B)
                plain = st.linalg.solve(A, B)
                with monkeypatch.context() as patch:
                    patch.setattr(matkernel, "gesv_colmajor", matkernel._lapack_none)
                    want, want_info = st.linalg.solve_ex(A, B)
                    want_plain = st.linalg.solve(A, B)
                _same(got, want)
                _same(plain, want_plain)
                _same(info, want_info)
        t = torch.linalg.solve(torch.tensor(a, dtype=tdt), torch.tensor(b[:, [0, 2]], dtype=tdt))
        ours = st.linalg.solve(st.tensor(a, dtype=dtype), st.tensor(b[:, [0, 2]], dtype=dtype))
        assert ours.stride() == t.stride()
        tol = 1e-4 if dtype == st.float32 else 1e-12
        np.testing.assert_allclose(ours.numpy(), t.numpy(), rtol=tol, atol=tol)
    assert served and all(x is not None for x in served)


def test_calls_left_to_the_general_path_keep_its_answers_and_errors():
    with pytest.raises(LinAlgError, match="singular"):
        st.linalg.solve(st.ones(3, 3), st.ones(3))
    x, info = st.linalg.solve_ex(st.ones(3, 3), st.ones(3))
    assert int(info) == 2 and bool(x.isnan().all())
    with pytest.raises(LinAlgError, match="singular"):
        st.linalg.solve_ex(st.ones(3, 3), st.ones(3), check_errors=True)
    x = st.linalg.solve(st.tensor([[1.0, float("nan")], [0.0, 1.0]]), st.ones(2))
    assert bool(x.isnan().all())
    a = st.tensor([[2.0, 1.0], [0.0, 4.0]])
    right = st.linalg.solve(a, st.tensor([[2.0, 4.0]]), left=False)
    np.testing.assert_allclose(right.numpy(), [[1.0, 0.75]])
    assert tuple(st.linalg.solve(a.expand(3, 2, 2), st.ones(2)).shape) == (3, 2)
    with pytest.raises(RuntimeError, match="Incompatible shapes"):
        st.linalg.solve(a, st.ones(3))
