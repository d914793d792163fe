"""``linalg.lstsq``'s four drivers are LAPACK's routines, called as PyTorch calls them.

The reference is PyTorch's own LAPACK (the MKL inside libtorch_cpu, whose ILP64 symbols
``dgelsy_64_`` ... take the binding of :mod:`strided.ops.linalg._lapack` unchanged) called the
way PyTorch's ``apply_lstsq`` calls it with gelsy's pivot array zeroed: torch 2.13 itself leaves
that array uninitialised (pytorch issue 187411, fixed upstream by PR 187436), so its gelsy rank
of a rank-deficient matrix changes from call to call, and only its other drivers are compared
directly. What is demanded, and why:

* rank exactly: the inputs keep a wide gap between the singular values kept and the dropped
  (thin products, duplicated columns, graded full-rank spectra far above the threshold), so
  two libraries' rounding cannot move the decision;
* solution within ``4 max(m, n) eps cond_r |x|``, cond_r = s_0 / s_(rank-1): two backward
  stable solvers of the same algorithm differ by about eps times the conditioning of the
  rank-r problem (the worst seen over 400 random trials was 11 eps cond_r |x|, at max(m, n) <= 23);
* singular values within ``4 max(m, n) eps s_0``, residuals like the solution.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
import torch

import strided
from strided.ops.linalg import _lapack, matkernel

_TORCH_LIB = os.path.join(os.path.dirname(torch.__file__), "lib", "libtorch_cpu.so")


def _mkl() -> _lapack.Lapack:
    if _lapack.library() is None:
        pytest.skip("this NumPy bundles no scipy-openblas ILP64 LAPACK: lstsq keeps its SVD")
    try:
        return _lapack.Lapack(_TORCH_LIB, "{}_64_")
    except (OSError, AttributeError):
        pytest.skip("this torch exports no ILP64 LAPACK symbols to compare with")


def _random(rng, shape, complex_):
    x = rng.standard_normal(shape)
    return x + 1j * rng.standard_normal(shape) if complex_ else x


def _matrix(rng, kind: str, m: int, n: int, dtype) -> np.ndarray:
    """thin: a product through a random inner size (rank <= it); dup: a third of the columns
    copies of others; ill: full rank, singular values graded down to 1e-3 (single) / 1e-8."""
    c = np.dtype(dtype).kind == "c"
    k = min(m, n)
    if kind == "thin":
        q = int(rng.integers(1, k + 1))
        a = _random(rng, (m, q), c) @ _random(rng, (q, n), c)
    elif kind == "dup":
        a = _random(rng, (m, n), c)
        j = rng.permutation(n)[: max(1, n // 3)]
        a[:, j] = a[:, rng.integers(0, n, j.size)]
    else:
        u, _ = np.linalg.qr(_random(rng, (m, m), c))
        v, _ = np.linalg.qr(_random(rng, (n, n), c))
        top = 3 if np.dtype(dtype) in (np.float32, np.complex64) else 8
        a = (u[:, :k] * np.logspace(0, -top, k)) @ v[:k]
    return a.astype(dtype)


def _check(got, ref: tuple, a: np.ndarray, driver: str) -> None:
    """``got`` (strided's result for one matrix ``a``) against ``ref`` (the reference's
    ``(x, rank, s)``), to the tolerances the module docstring derives."""
    x, rank, s = ref
    m, n = a.shape
    eps = float(np.finfo(a.dtype).eps)
    sv = np.linalg.svd(a.astype(np.complex128 if a.dtype.kind == "c" else np.float64), compute_uv=False)
    r = min(m, n) if driver == "gels" else int(rank)
    if driver != "gels":
        assert int(got.rank) == r, (driver, a.shape, sv / sv[0])
    cond = sv[0] / sv[r - 1] if r else 1.0
    want = x[:n]
    tol = 4 * max(m, n) * eps * cond * max(float(np.abs(want).max()), 1e-30)
    np.testing.assert_allclose(got.solution.numpy(), want, rtol=0, atol=tol, err_msg=driver)
    if driver in ("gelsd", "gelss"):
        np.testing.assert_allclose(got.singular_values.numpy(), s, rtol=0, atol=4 * max(m, n) * eps * sv[0])
    if got.residuals.numel():
        res = np.sum(np.abs(x[n:]) ** 2, axis=0)
        np.testing.assert_allclose(got.residuals.numpy(), res, rtol=0, atol=tol * max(1.0, float(res.max())))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
@pytest.mark.parametrize("kind", ["thin", "dup", "ill"])
def test_drivers_equal_pytorchs_lapack_on_rank_deficient_and_ill_conditioned(dtype, kind) -> None:
    mkl = _mkl()
    rng = np.random.default_rng([["thin", "dup", "ill"].index(kind), np.dtype(dtype).num])
    for trial in range(12):
        m, n = (int(v) for v in rng.integers(1, 24, 2))
        if trial < 2:  # (both shapes for sure: tall, then wide)
            m, n = (17, 6) if trial == 0 else (6, 17)
        a = _matrix(rng, kind, m, n, dtype)
        b = _random(rng, (m, int(rng.integers(1, 4))), np.dtype(dtype).kind == "c").astype(dtype)
        rcond = float(np.finfo(a.dtype).eps) * max(m, n)
        # gels assumes full rank: a numerically singular A's solution is rounding, amplified
        for driver in ("gelsy", "gelsd", "gelss") + (("gels",) if kind == "ill" else ()):
            got = strided.linalg.lstsq(strided.tensor(a), strided.tensor(b), driver=driver)
            x, rank, s, info = _lapack.solve(mkl, a, b, rcond, driver)
            assert int(info) == 0
            _check(got, (x, rank, s), a, driver)
            if driver != "gelsy":  # (torch 2.13's own gelsy: see the module docstring)
                theirs = torch.linalg.lstsq(torch.tensor(a), torch.tensor(b), driver=driver)
                assert int(got.rank.numel()) == int(theirs.rank.numel())
                _check(got, (np.concatenate([theirs.solution.numpy(), x[n:]]), theirs.rank.numpy(),
                             theirs.singular_values.numpy()), a, driver)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gelsy_rank_is_the_condition_estimates_not_the_svd_count(dtype) -> None:
    """The bench's (1024, 1024) uniform float32 in miniature: a smallest singular value at 0.7 x
    rcond x s_0 is dropped by the SVD's count (gelsd's rank) but, in most matrices, kept by
    gelsy's incremental condition estimate; strided's gelsy gives that estimate's rank, MKL's."""
    mkl = _mkl()
    n, differ = 32, 0
    rcond = float(np.finfo(dtype).eps) * n
    for seed in range(20):
        rng = np.random.default_rng(seed)
        u, _ = np.linalg.qr(rng.standard_normal((n, n)))
        v, _ = np.linalg.qr(rng.standard_normal((n, n)))
        s = np.logspace(0, -2, n)
        s[-3:] = 0.7 * rcond * np.array([1, 0.5, 0.25])
        a, b = ((u * s) @ v).astype(dtype), rng.standard_normal((n, 1)).astype(dtype)
        got = strided.linalg.lstsq(strided.tensor(a), strided.tensor(b))
        x, rank, _, _ = _lapack.solve(mkl, a, b, rcond, "gelsy")
        assert int(got.rank) == int(rank)
        svd_rank = int(strided.linalg.lstsq(strided.tensor(a), strided.tensor(b), driver="gelsd").rank)
        assert svd_rank == torch.linalg.matrix_rank(torch.tensor(a), rtol=rcond).item() == n - 3
        differ += int(got.rank) != svd_rank
        _check(got, (x, rank, None), a, "gelsy")
    assert differ >= 15


@pytest.mark.parametrize("driver", ["gels", "gelsy", "gelsd", "gelss"])
@pytest.mark.parametrize(("sa", "sb"), [((3, 9, 4), (3, 9, 2)), ((1, 9, 4), (3, 9, 2)), ((2, 1, 4, 9), (2, 3, 4, 1)),
                                        ((3, 9, 4), (3, 9))])
def test_batches_broadcast_per_matrix(driver, sa, sb) -> None:
    """A batch is each matrix's own call (gelsy's pivots zeroed before each), A broadcast
    over B's batch copied afresh per call: each solution is the single matrix's, bit for bit."""
    rng = np.random.default_rng(7)
    a = rng.standard_normal(sa)
    a[..., 3] = a[..., 0]  # (rank-deficient: gelsy's pivots matter; a single matrix's gels refuses)
    if driver == "gels":
        a = rng.standard_normal(sa)
    b = rng.standard_normal(sb)
    got = strided.linalg.lstsq(strided.tensor(a), strided.tensor(b), driver=driver)
    vector = len(sb) == len(sa) - 1
    bm = b[..., None] if vector else b
    batch = np.broadcast_shapes(sa[:-2], bm.shape[:-2])
    aa, bb = np.broadcast_to(a, batch + sa[-2:]), np.broadcast_to(bm, batch + bm.shape[-2:])
    sol = got.solution.numpy()[..., None] if vector else got.solution.numpy()
    for i in np.ndindex(*batch):
        one = strided.linalg.lstsq(strided.tensor(aa[i]), strided.tensor(bb[i]), driver=driver)
        assert sol[i].tobytes() == one.solution.numpy().tobytes()
        if driver != "gels":
            own = tuple(0 if size == 1 else j for j, size in zip(i, sa[:-2], strict=True))
            assert got.rank.numpy()[own] == one.rank.item() == min(sa[-2], sa[-1] - 1)


def test_gels_of_an_exactly_singular_matrix_is_pytorchs_error() -> None:
    """gels assumes full rank: R's exactly zero diagonal element (a zero column) is LAPACK's
    INFO, which PyTorch raises, naming the batch element when A has more than one matrix."""
    a = np.random.default_rng(0).standard_normal((3, 6, 4))
    a[1, :, 2] = 0
    b = np.ones((3, 6, 1))
    for sa in (a, a[1:2], a[1]):
        sb = b[: len(sa)] if sa.ndim == 3 else b[0]
        with pytest.raises(torch.linalg.LinAlgError) as theirs:
            torch.linalg.lstsq(torch.tensor(sa), torch.tensor(sb), driver="gels")
        with pytest.raises(strided.linalg.LinAlgError) as ours:
            strided.linalg.lstsq(strided.tensor(sa), strided.tensor(sb), driver="gels")
        assert str(ours.value).splitlines()[0] == str(theirs.value)
    for driver in ("gelsy", "gelsd", "gelss"):  # (the rank-revealing drivers solve it)
        got = strided.linalg.lstsq(strided.tensor(a), strided.tensor(b), driver=driver)
        assert got.rank.tolist() == [4, 3, 4]


def test_without_a_bundled_lapack_the_svd_gives_the_minimum_norm_solution(monkeypatch) -> None:
    """Another NumPy build (no scipy-openblas ILP64): every driver falls back to the SVD, the
    minimum-norm solution with the rank counted above rcond * s_0 (gelsd's, PyTorch's)."""
    monkeypatch.setattr(_lapack, "_LIBRARY", [None])
    monkeypatch.setattr(matkernel, "gelsy_colmajor", matkernel._lapack_none)  # (nor its compiled gelsy call)
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((7, 3)) @ rng.standard_normal((3, 5)), rng.standard_normal((7, 2))
    theirs = torch.linalg.lstsq(torch.tensor(a), torch.tensor(b), driver="gelsd")
    for driver in ("gelsy", "gelsd"):
        got = strided.linalg.lstsq(strided.tensor(a), strided.tensor(b), driver=driver)
        assert got.rank.item() == theirs.rank.item() == 3
        np.testing.assert_allclose(got.solution.numpy(), theirs.solution.numpy(), rtol=1e-9, atol=1e-12)


def test_import_strided_loads_no_binding() -> None:
    code = ("import sys, strided; print('strided.ops.linalg._lapack' in sys.modules); "
            "strided.linalg.lstsq(strided.ones(2, 1), strided.ones(2, 1), driver='gelsd'); print('strided.ops.linalg._lapack' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}).stdout.split()
    assert out == ["False", "True"]
