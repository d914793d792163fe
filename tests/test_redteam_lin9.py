"""Red-team tests of lin9's linalg shortcuts (NumPy's private gufuncs, the float32 pre-cast).

A signaling NaN in a float32/complex64 matrix: NumPy's cast of it to float64 raises the invalid
flag, which NumPy's inv and solve take for "singular". lin9's pre-cast of a large permuted batch
did that cast outside NumPy's error state (a RuntimeWarning "invalid value encountered in cast")
and so returned NaN (PyTorch's answer), where the same matrix row-major, or small, still raised
LinAlgError: the answer depended on the memory layout. Now every layout and size gives the answer
of the same matrix with a quiet NaN there, without a warning.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import strided

_SNAN32 = np.uint32(0x7F800001)  # (a float32 signaling NaN: exponent all ones, quiet bit clear)
_QNAN32 = np.uint32(0x7FC00000)


def _matrix(n: int, dtype: str, bits: np.uint32, row: int, col: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((n, n)).astype(np.float32)
    a = a @ a.T + np.float32(n) * np.eye(n, dtype=np.float32)  # (positive-definite away from the NaN)
    a.view(np.uint32)[row, col] = bits
    if dtype == "complex64":
        a = a.astype(np.complex64)  # (the cast keeps a signaling NaN's bits: the real part's)
        a.view(np.uint32)[row, 2 * col] = bits
    return a


def _tensor(a: np.ndarray, transposed: bool) -> strided.Tensor:
    return strided.tensor(np.ascontiguousarray(a.T)).T if transposed else strided.tensor(a)


def _outcome(fn: object, t: strided.Tensor) -> tuple:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            r = fn(t)  # type: ignore[operator]
        except Exception as e:  # noqa: BLE001 (the error is the outcome compared)
            got: tuple = (type(e).__name__, str(e).splitlines()[0])
        else:
            parts = r if isinstance(r, tuple) else (r,)
            got = tuple((p.shape, p.stride(), np.ascontiguousarray(p.numpy()).tobytes()) for p in parts)
    return got, [str(w.message) for w in caught]


_OPS = {
    "inv": lambda t: strided.linalg.inv(t),
    "inv_ex": lambda t: strided.linalg.inv_ex(t),
    "inverse": lambda t: strided.inverse(t),
    "solve": lambda t: strided.linalg.solve(t, t[:, :3]),
    "solve_ex": lambda t: strided.linalg.solve_ex(t, t[:, :3]),
    "cholesky_ex": lambda t: strided.linalg.cholesky_ex(t),
}


@settings(max_examples=40, deadline=None)
@given(n=st.sampled_from([4, 130]), dtype=st.sampled_from(["float32", "complex64"]), transposed=st.booleans(),
       op=st.sampled_from(sorted(_OPS)), where=st.sampled_from(["lower", "upper", "diagonal"]),
       seed=st.integers(0, 2**16))
def test_signaling_nan_gives_the_quiet_nan_answer_in_every_layout(n: int, dtype: str, transposed: bool, op: str,
                                                                   where: str, seed: int) -> None:
    row, col = {"lower": (3, 1), "upper": (1, 3), "diagonal": (2, 2)}[where]
    signaling = _outcome(_OPS[op], _tensor(_matrix(n, dtype, _SNAN32, row, col, seed), transposed))
    quiet = _outcome(_OPS[op], _tensor(_matrix(n, dtype, _QNAN32, row, col, seed), transposed))
    # (the outcome of the same matrix with a quiet NaN: NumPy's cast makes the signaling one quiet)
    assert signaling[0] == quiet[0]
    # (no warning from a cast strided makes: PyTorch gives none; the arithmetic of cholesky's
    # failing-minor search on a signaling NaN may warn, as before lin9)
    assert not [w for w in signaling[1] if "cast" in w], signaling[1]


@pytest.mark.parametrize("n", [4, 130])
@pytest.mark.parametrize("transposed", [False, True])
def test_signaling_nan_inverse_and_solve_are_nan_as_torch(n: int, transposed: bool) -> None:
    a = _matrix(n, "float32", _SNAN32, 1, 2, 0)
    t = _tensor(a, transposed)
    tt = torch.tensor(np.ascontiguousarray(a.T)).T if transposed else torch.tensor(a)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ours = strided.linalg.inv(t)
        solved = strided.linalg.solve(t, t[:, :3])
    theirs = torch.linalg.inv(tt)
    assert ours.stride() == theirs.stride() and np.isnan(theirs.numpy()).all() and np.isnan(ours.numpy()).all()
    assert np.isnan(torch.linalg.solve(tt, tt[:, :3]).numpy()).all() and np.isnan(solved.numpy()).all()


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 6), batch=st.sampled_from([(), (2,), (3, 1)]), dtype=st.sampled_from(["float32", "complex64"]),
       transposed=st.booleans(), singular=st.booleans(), seed=st.integers(0, 2**16))
def test_widened_fallback_gives_numpys_own_bits(n: int, batch: tuple, dtype: str, transposed: bool, singular: bool,
                                                 seed: int) -> None:
    from strided.ops.linalg import _batched as LA

    rng = np.random.default_rng(seed)
    a = rng.standard_normal((*batch, n, n)) + (1j * rng.standard_normal((*batch, n, n)) if dtype == "complex64" else 0)
    if singular:
        a[..., 0, :] = 0
    a = a.astype(dtype)
    if transposed:
        a = np.ascontiguousarray(np.swapaxes(a, -1, -2)).swapaxes(-1, -2)
    b = a[..., :2] if n >= 2 else a
    with pytest.MonkeyPatch.context() as m:
        m.setattr(LA, "_SOLVE_RUN", None)  # (the fallback: NumPy's public call on the widened numbers)
        for ours, theirs in ((lambda: LA.numpy_inv(a), lambda: np.linalg.inv(a)),
                             (lambda: LA.numpy_solve(a, b), lambda: np.linalg.solve(a, b))):
            try:
                want = theirs()
            except np.linalg.LinAlgError:
                with pytest.raises(np.linalg.LinAlgError):
                    ours()
                continue
            got = ours()
            assert got.dtype == want.dtype and got.shape == want.shape and got.tobytes() == want.tobytes()


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 6), batch=st.sampled_from([(), (3,)]), dtype=st.sampled_from(["float32", "float64", "complex128"]),
       uplo=st.sampled_from(["L", "U"]), value=st.sampled_from([np.nan, np.inf, -np.inf]), seed=st.integers(0, 2**16))
def test_eigh_ignores_a_nonfinite_element_in_the_unread_triangle_as_torch(n: int, batch: tuple, dtype: str, uplo: str,
                                                                           value: float, seed: int) -> None:
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((*batch, n, n))
    if "complex" in dtype:
        a = a + 1j * rng.standard_normal(a.shape)
    a = (a + np.swapaxes(a, -1, -2).conj()).astype(dtype)
    i, j = sorted(rng.choice(n, 2, replace=False))
    clean = a.copy()
    a[..., i, j] = value  # (above the diagonal: LAPACK's UPLO="L" never reads it; "U" does)
    if uplo == "U":
        a = np.swapaxes(a, -1, -2).copy()  # (below: "U" never reads it)
        clean = np.swapaxes(clean, -1, -2).copy()
    ours = strided.linalg.eigvalsh(strided.tensor(a), UPLO=uplo)
    theirs = torch.linalg.eigvalsh(torch.tensor(a), UPLO=uplo)
    assert not np.isnan(theirs.numpy()).any()
    assert ours.numpy().tobytes() == strided.linalg.eigvalsh(strided.tensor(clean), UPLO=uplo).numpy().tobytes()
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-4, atol=1e-4)
    w, v = strided.linalg.eigh(strided.tensor(a), UPLO=uplo)
    assert not np.isnan(w.numpy()).any() and not np.isnan(v.numpy()).any()
    # a non-finite element in the read triangle: NaN eigenvalues, as torch's
    bad = a.copy()
    bad[(..., j, i) if uplo == "L" else (..., i, j)] = value  # (i < j: "L" reads (j, i), "U" reads (i, j))
    assert np.isnan(strided.linalg.eigvalsh(strided.tensor(bad), UPLO=uplo).numpy()).all()


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 7), batch=st.sampled_from([(), (2,), (2, 1)]), dtype=st.sampled_from(["float64", "complex128"]),
       shift=st.sampled_from([0.0, 0.5, 3.0, 10.0]), seed=st.integers(0, 2**16))
def test_cholesky_upper_reads_the_upper_triangle_as_torch(n: int, batch: tuple, dtype: str, shift: float,
                                                          seed: int) -> None:
    """torch.linalg.cholesky(A, upper=True) is LAPACK's potrf with uplo='U': it reads A's upper
    triangle (A = U^H U); strided read the lower one for both, so a non-Hermitian A (or one whose
    triangles differ by rounding) got another factor and another info."""
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1, 1, (*batch, n, n)) + shift * np.eye(n)
    if dtype == "complex128":
        a = a + 1j * rng.uniform(-1, 1, a.shape) * (1 - np.eye(n))  # (a real diagonal, as a Hermitian one)
    a = a.astype(dtype)  # (not Hermitian: the two triangles disagree)
    L, info = strided.linalg.cholesky_ex(strided.tensor(a), upper=True)
    TL, tinfo = torch.linalg.cholesky_ex(torch.tensor(a), upper=True)
    assert info.numpy().tolist() == tinfo.numpy().tolist()
    ok = tinfo.numpy() == 0
    np.testing.assert_allclose(L.numpy()[ok], TL.numpy()[ok], rtol=1e-10, atol=1e-10)
    assert L.stride() == TL.stride()
    # the factor of A^H's lower triangle, conjugate-transposed: the same bits
    lower = strided.linalg.cholesky_ex(strided.tensor(np.swapaxes(a, -1, -2).conj().copy())).L
    assert np.ascontiguousarray(L.numpy()).tobytes() == np.ascontiguousarray(lower.mH.numpy()).tobytes()
    if not ok.all():
        with pytest.raises(strided.linalg.LinAlgError) as ours:
            strided.linalg.cholesky(strided.tensor(a), upper=True)
        with pytest.raises(torch.linalg.LinAlgError) as theirs:
            torch.linalg.cholesky(torch.tensor(a), upper=True)
        assert str(ours.value).splitlines()[0] == str(theirs.value).splitlines()[0]
    else:
        np.testing.assert_allclose(strided.linalg.cholesky(strided.tensor(a), upper=True).numpy(), TL.numpy(),
                                   rtol=1e-10, atol=1e-10)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 7), batch=st.sampled_from([(), (3,)]), shift=st.sampled_from([0.0, 0.5, 1.0]),
       seed=st.integers(0, 2**16))
def test_cholesky_info_ignores_the_diagonals_imaginary_parts_as_lapack(n: int, batch: tuple, shift: float,
                                                                       seed: int) -> None:
    """zpotrf takes the real part of each diagonal element (a Hermitian matrix's diagonal is real):
    the failing minor strided names must be LAPACK's, as PyTorch's info, whatever the diagonal's
    imaginary parts hold."""
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1, 1, (*batch, n, n)) + 1j * rng.uniform(-1, 1, (*batch, n, n)) + shift * np.eye(n)
    info = strided.linalg.cholesky_ex(strided.tensor(a)).info
    tinfo = torch.linalg.cholesky_ex(torch.tensor(a)).info
    assert info.numpy().tolist() == tinfo.numpy().tolist()
    real_diagonal = a.copy()
    idx = np.arange(n)
    real_diagonal[..., idx, idx] = a[..., idx, idx].real
    assert info.numpy().tolist() == strided.linalg.cholesky_ex(strided.tensor(real_diagonal)).info.numpy().tolist()
