"""Matrix factorizations: ``linalg.svd``, ``svdvals``, ``qr``, ``eigh``, ``eigvalsh``,
``cholesky`` (PyTorch 2.13's ``torch.linalg``), batched over (..., m, n), with PyTorch's backward
rules written with strided's recording ops.

The singular vectors, Q's columns and the eigenvectors are unique only up to sign (LAPACK's
choice, which can differ between NumPy's and PyTorch's calls); their products (``U diag(S) Vh``,
``Q R``, ``V diag(L) V^T``) and the gradients of gauge-invariant functions of them are what agree.

>>> strided.linalg.svdvals(strided.tensor([[3.0, 0.0], [0.0, -4.0]])).tolist()
[4.0, 3.0]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...dispatch import adopted
from ...dtypes import float32, float64, int32, real_of
from ...errors import LinAlgError, StridedRuntimeError, StridedTypeError, join_lines
from ...gradients import seal
from ...kernels.fpstate import quiet
from ...opdef import Kind, declare
from ...tensor import Tensor
from .._support.memo import Memo
from .._support.operands import _cinfo
from .._support.out import write_out, write_tuple_out
from .._support.reduce_args import shape_text
from ..registry import backward
from ..shape.joining import cat
from . import _batched as LA
from . import _results as R
from . import matkernel, mkl_lapack

# (a result named tuple made as its generated __new__ makes it, without that Python call: a
# tenth of a small factorization's fast path)
_tuple_new = tuple.__new__

__all__ = ["linalg_cholesky", "linalg_cholesky_ex", "linalg_eigh", "linalg_eigvalsh", "linalg_qr", "linalg_svd", "linalg_svdvals"]


# ---------------------------------------------------------------- svd, svdvals


def _svd_input(A: Any, op: str) -> np.ndarray:  # noqa: N803
    return LA.finite_for_svd(LA.matrices(A, op))


def linalg_svd(A: Tensor, full_matrices: bool = True, *, driver: Any = None, out: Any = None) -> Any:  # noqa: N803
    """``(U, S, Vh)`` with ``A = U diag(S) Vh``: S descending (real), U (..., m, m) and Vh (..., n, n)
    with ``full_matrices`` (default), else (..., m, k) and (..., k, n), k = min(m, n).

    >>> U, S, Vh = strided.linalg.svd(strided.tensor([[0.0, 2.0], [1.0, 0.0]]))
    >>> S.tolist()
    [2.0, 1.0]
    """
    if out is not None:
        return write_tuple_out(out, lambda: linalg_svd(A, full_matrices, driver=driver),
                               "linalg.svd", (A, full_matrices), ("U", "S", "Vh"))
    # (a plain bool only: any other full_matrices keeps the general path's checks and their order)
    fast = _fast_svd(A, 2 if full_matrices else 1) if full_matrices.__class__ is bool else None
    if fast is not None:
        return fast
    a = _svd_input(A, "linalg.svd")
    m, n = a.shape[-2:]
    k = min(m, n)
    if a.size:
        u, s, vh = LA.numpy_svd(a, bool(full_matrices))
    else:
        batch = a.shape[:-2]
        eye_u, eye_v = (m, m) if full_matrices else (m, k), (n, n) if full_matrices else (k, n)
        u = np.broadcast_to(np.eye(*eye_u, dtype=a.dtype), batch + eye_u)
        vh = np.broadcast_to(np.eye(*eye_v, dtype=a.dtype), batch + eye_v)
        s = np.zeros(batch + (k,), np.real(a).dtype)
    d = A._dtype
    # (u and vh: fresh arrays where A has elements, LAPACK's column-major ones adopted as they are)
    owned = bool(a.size)
    return R.linalg_svd(LA.colmajor(u, d, owned), LA.rowmajor(s, real_of(d)), LA.colmajor(vh, d, owned))


def linalg_svdvals(A: Tensor, *, driver: Any = None, out: Any = None) -> Tensor:  # noqa: N803
    """The singular values of each matrix, descending (real).

    >>> strided.linalg.svdvals(strided.tensor([[0.0, 1.0], [-2.0, 0.0]])).tolist()
    [2.0, 1.0]
    """
    if out is not None:  # (PyTorch's out= takes only the result's dtype)
        return write_out(out, linalg_svdvals(A, driver=driver), "linalg.svdvals", (A,), "matmul")
    fast = _fast_svd(A, 0)
    if fast is not None:
        return fast
    a = _svd_input(A, "linalg.svdvals")
    s = LA.numpy_svd(a, compute_uv=False) if a.size else np.zeros(a.shape[:-2] + (min(a.shape[-2:]),),
                                                                    np.real(a).dtype)
    return LA.rowmajor(np.abs(s), real_of(A._dtype))


def _fast_svd(A: Any, jobz: int) -> Any:  # noqa: N803
    """linalg.svd (``jobz`` 2: full matrices, 1: reduced) or svdvals (``jobz`` 0) of one finite
    non-empty float32/float64 (m, n) matrix (m, n <= 64): NumPy's dgesdd call made in C on the
    storage (:data:`.matkernel.gesdd_colmajor`): the general path's bits, U and Vh column-major
    and S row-major as it lays them out (svdvals' abs: LAPACK's singular values are never
    negative, and NumPy's abs keeps every other bit). None (nothing done) for any other call."""
    lay = _lapack_operand(A)
    if lay is None:
        return None
    m, n = lay.shape
    done = matkernel.gesdd_colmajor(A._storage.array, m, n, lay.strides[0], lay.strides[1], lay.offset, jobz)
    if done is None:
        return None
    dt = A._dtype
    k = min(m, n)
    s = adopted(np.abs(done[1]) if jobz == 0 else done[1], _cinfo[(k,)][2], dt)
    if jobz == 0:
        return s
    ucols, vrows = (m, n) if jobz == 2 else (k, k)
    return _tuple_new(R.linalg_svd, (adopted(done[0], LA.colmajor_layouts[(m, ucols)], dt), s,
                                     adopted(done[2], LA.colmajor_layouts[(vrows, n)], dt)))


def _skew(X: Tensor) -> Tensor:  # noqa: N802, N803
    return X - X.mH


_SVD_GAUGE = ("svd_backward: The singular vectors in the complex case are specified up to multiplication by "
              "e^{i phi}. The specified loss function depends on this phase term, making it ill-defined.")


def _svd_grad(gU: Any, gS: Any, gVh: Any, U: Tensor, S: Tensor, Vh: Tensor) -> Tensor:  # noqa: N803
    """PyTorch's svd_backward for the reduced factors, in its convention for complex gradients:
    ``U [(skew(U^H gU) S + S skew(Vh gVh^H)) / E + diag(gS)] Vh`` with ``E_ij = S_j^2 - S_i^2``,
    plus the terms of the directions outside U's (m > n) or V's (m < n) span (``^H`` is ``^T``
    for real factors). Complex factors: a pair (u_i, v_i) is fixed only up to one phase, so a
    loss that depends on it (``Im diag(U^H gU) != -Im diag(V^H gV)``) is refused with PyTorch's
    RuntimeError; else ``diag(U^H gU - h.c.) / (2 S)`` joins the diagonal."""
    m, n = U._layout.shape[-2], Vh._layout.shape[-1]
    if gU is None and gVh is None:
        return (U * gS.unsqueeze(-2)).matmul(Vh)
    cx = U._dtype.is_complex
    uhgu = _skew(U.mH.matmul(gU)) if gU is not None else None
    vhgv = _skew(Vh.matmul(gVh.mH)) if gVh is not None else None
    if cx:
        im_u = uhgu.diagonal(0, -2, -1).imag if uhgu is not None else S * 0
        im_v = vhgv.diagonal(0, -2, -1).imag if vhgv is not None else S * 0
        # (PyTorch's allclose(im_u, -im_v, rtol=1e-2, atol=1e-2))
        if not bool(((im_u + im_v).abs() <= 1e-2 + 1e-2 * im_v.abs()).all()):
            raise StridedRuntimeError(join_lines(
                _SVD_GAUGE,
                "each pair of singular vectors may be multiplied by any e^{i phi} and stays one; this loss "
                "changes when it is, so it has no gradient",
                "fix: make the loss depend on the vectors only through phase-free quantities "
                "(|U|, U diag(S) Vh, U U^H)"))
    S2 = S * S  # noqa: N806
    E = S2.unsqueeze(-2) - S2.unsqueeze(-1)  # noqa: N806
    k = S._layout.shape[-1]
    eye = _eye(k, S)
    E = E + eye  # (the diagonal: any non-zero; the numerators are 0 there)  # noqa: N806
    if gU is not None and gVh is not None:
        inner = (uhgu * S.unsqueeze(-2) + S.unsqueeze(-1) * vhgv) / E
    elif gU is not None:
        inner = (uhgu / E) * S.unsqueeze(-2)
    else:
        inner = S.unsqueeze(-1) * (vhgv / E)
    if gS is not None:
        inner = inner + gS.unsqueeze(-1) * eye
    if cx and uhgu is not None:
        inner = inner + (uhgu.diagonal(0, -2, -1) / (2 * S)).diag_embed()
    if m > n and gU is not None:
        ga = U.matmul(inner)
        gu_sinv = gU / S.unsqueeze(-2)
        ga = ga + gu_sinv - U.matmul(U.mH.matmul(gu_sinv))
        return ga.matmul(Vh)
    if m < n and gVh is not None:
        ga = inner.matmul(Vh)
        sinv_gvh = gVh / S.unsqueeze(-1)
        ga = ga + sinv_gvh - sinv_gvh.matmul(Vh.mH).matmul(Vh)
        return U.matmul(ga)
    return U.matmul(inner.matmul(Vh)) if m >= n else U.matmul(inner).matmul(Vh)


def _eye(k: int, like: Tensor) -> Tensor:
    return LA.rowmajor(np.eye(k, dtype=like._dtype.numpy), like._dtype)


@backward("linalg_svd")
def _svd_backward(out: Any, A: Tensor, full_matrices: bool = True, **kwargs: Any) -> Any:  # noqa: N803
    """LinalgSvdBackward0: with ``full_matrices`` the factors and their gradients are narrowed to
    the first k = min(m, n) columns of U / rows of Vh first (the others do not depend on A)."""
    U, S, Vh = out  # noqa: N806
    k = S._layout.shape[-1]

    def grads(gU: Any, gS: Any, gVh: Any) -> tuple:  # noqa: N803
        u, vh = U, Vh
        if full_matrices:
            u, vh = U[..., :k], Vh[..., :k, :]
            gU = None if gU is None else gU[..., :k]  # noqa: N806
            gVh = None if gVh is None else gVh[..., :k, :]  # noqa: N806
        return (_svd_grad(gU, gS, gVh, u, S, vh),)

    return "LinalgSvdBackward0", (A,), LA.pytorch_convention(A, grads), (U, S, Vh), True


@backward("linalg_svdvals")
def _svdvals_backward(out: Tensor, A: Tensor, **kwargs: Any) -> Any:  # noqa: N803
    """LinalgSvdBackward0 (PyTorch computes the vectors when A requires grad): ``U diag(gS) Vh``,
    complex A included (the singular values are real: no conjugate convention applies)."""

    def grads(g: Tensor) -> tuple:
        # (the vectors computed from A when the gradient comes: recorded, so a create_graph
        # backward differentiates them too)
        U, S, Vh = linalg_svd(A, full_matrices=False)  # noqa: N806
        return (_svd_grad(None, g, None, U, S, Vh),)

    return "LinalgSvdBackward0", (A,), grads, (A,)


# ---------------------------------------------------------------- qr

_QR_MODES = ("reduced", "complete", "r")


def linalg_qr(A: Tensor, mode: str = "reduced", *, out: Any = None) -> Any:  # noqa: N803
    """``(Q, R)`` with ``A = Q R``: mode 'reduced' (Q (..., m, k), R (..., k, n), k = min(m, n)),
    'complete' (Q (..., m, m), R (..., m, n)) or 'r' (R only; Q empty).

    >>> Q, R = strided.linalg.qr(strided.tensor([[3.0], [4.0]]))
    >>> [round(abs(v), 6) for v in R.flatten().tolist()]
    [5.0]
    """
    if out is not None:
        return write_tuple_out(out, lambda: linalg_qr(A, mode), "linalg.qr", (A, mode), ("Q", "R"))
    op = "linalg.qr"
    if not isinstance(mode, str):
        raise StridedTypeError(join_lines(f"linalg_qr(): argument 'mode' (position 2) must be str, not "
                                          f"{type(mode).__name__}", "mode is 'reduced', 'complete' or 'r'"))
    if mode not in _QR_MODES:
        raise StridedRuntimeError(join_lines(
            f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', or 'complete'",
            "fix: mode='reduced'"))
    A = LA.matrices(A, op)  # noqa: N806
    fast = _fast_qr(A, mode)
    if fast is not None:
        return fast
    a = A._np()
    m, n = a.shape[-2:]
    k = min(m, n)
    batch = a.shape[:-2]
    cols = m if mode == "complete" else k
    d = A._dtype
    mkl = mkl_lapack.qr(a, mode)  # (large float32/float64 with MKL installed: PyTorch's geqrf + orgqr)
    if mkl is not None:
        Q = LA.rowmajor(np.zeros((0,), a.dtype), d) if mkl[0] is None else LA.colmajor(mkl[0], d, owned=True)  # noqa: N806
        return R.linalg_qr(Q, LA.colmajor(mkl[1], d, owned=True))
    if a.size:
        q, r = _numpy_qr(a, mode == "complete")
    else:
        q = np.broadcast_to(np.eye(m, cols, dtype=a.dtype), batch + (m, cols))
        r = np.zeros(batch + (cols, n), a.dtype)
    Q = LA.rowmajor(np.zeros((0,), a.dtype), d) if mode == "r" else LA.colmajor(q, d)  # noqa: N806
    return R.linalg_qr(Q, LA.colmajor(r, d))


def _fast_qr(A: Tensor, mode: str) -> Any:  # noqa: N803
    """linalg.qr of one finite non-empty float32/float64 (m, n) matrix (m, n <= 64): NumPy's
    dgeqrf / dorgqr calls made in C on the storage (:data:`.matkernel.geqrf_colmajor`): the
    bits of :func:`_numpy_qr`, both factors column-major as :func:`~._batched.colmajor` lays
    them out. None (nothing done) for any other call: the general path decides those."""
    lay = _lapack_operand(A)
    if lay is None:
        return None
    m, n = lay.shape
    k = min(m, n)
    q_cols = 0 if mode == "r" else (m if mode == "complete" else k)
    done = matkernel.geqrf_colmajor(A._storage.array, m, n, lay.strides[0], lay.strides[1], lay.offset, q_cols)
    if done is None:
        return None
    dt = A._dtype
    rows = q_cols or k
    if done[0] is None:  # (mode 'r': Q empty, as the general path makes it)
        Q = LA.rowmajor(np.zeros((0,), dt.numpy), dt)  # noqa: N806
    else:
        Q = adopted(done[0], LA.colmajor_layouts[(m, q_cols)], dt)  # noqa: N806
    return _tuple_new(R.linalg_qr, (Q, adopted(done[1], LA.colmajor_layouts[(rows, n)], dt)))


def _numpy_qr(a: np.ndarray, complete: bool) -> tuple[np.ndarray, np.ndarray]:
    """``np.linalg.qr(a, mode="complete" if complete else "reduced")`` of a non-empty float or
    complex batch ``a``, bit for bit: its own steps (a float64/complex128 copy, LAPACK geqrf's
    ``qr_r_raw``, then ``qr_reduced`` or ``qr_complete``, R the upper triangle, both cast back)
    without its per-call Python (about 9 us of a 12 us call on a (3, 4) matrix: two errstate
    blocks, its array checks). Where NumPy's gufuncs are not found, or they set the invalid flag
    (NumPy's signal to raise its LinAlgError), or another thread holds the context: NumPy's own
    call, as before."""
    if _QR_RUN is None:
        return _numpy_qr_call(a, complete)
    m, n = a.shape[-2:]
    cplx = a.dtype.kind == "c"
    work = a.astype(np.complex128 if cplx else np.float64)  # (NumPy's a.astype(t, copy=True))
    full = complete and m > n  # (NumPy's qr_complete case; else qr_reduced)
    mc = m if full else min(m, n)
    try:
        tau = _QR_RUN(_ul.qr_r_raw, work, signature="D->D" if cplx else "d->d")
        q = _QR_RUN(_ul.qr_complete if full else _ul.qr_reduced, work, tau,
                    signature="DD->D" if cplx else "dd->d")
    except (FloatingPointError, RuntimeError):
        return _numpy_qr_call(a, complete)
    # (NumPy's triu: where(mask, a, 0), the zeros +0.0)
    r = np.where(_upper_masks[(mc, n)], work[..., :mc, :], np.zeros(1, work.dtype))
    return q.astype(a.dtype, copy=False), r.astype(a.dtype, copy=False)


def _numpy_qr_call(a: np.ndarray, complete: bool) -> tuple[np.ndarray, np.ndarray]:
    with quiet():  # (np.errstate(all="ignore") at a tenth of its cost)
        return tuple(np.linalg.qr(a, mode="complete" if complete else "reduced"))  # type: ignore[return-value]


# qr: NumPy's qr turns the invalid flag into its LinAlgError (raised here: NumPy's call redoes it)
_QR_RUN, _ul = LA.gufunc_runner(invalid="raise")
# cholesky: a refused matrix comes back NaN, which _cholesky looks for (NumPy's call would raise)
_CHOLESKY_RUN, _ = LA.gufunc_runner()
# NumPy's triu mask of an (m, n) matrix: tri(m, n, -1, bool) negated
_upper_masks = Memo(lambda shape: ~np.tri(*shape, k=-1, dtype=bool))


def _qr_grad_tall(gQ: Any, gR: Any, Q: Tensor, Rm: Tensor) -> Tensor:  # noqa: N803
    """PyTorch's linalg_qr_backward for m >= n (reduced), in its convention for complex gradients:
    ``gA = [gQ + Q syminvadj(triu(M))] R^{-H}`` with ``M = gR R^H - Q^H gQ`` and ``syminvadj(T) =
    T + T^H`` with the real part of its diagonal halved (``^H`` is ``^T`` for real factors)."""
    M = None  # noqa: N806
    if gR is not None:
        M = gR.matmul(Rm.mH)  # noqa: N806
    if gQ is not None:
        qgq = Q.mH.matmul(gQ)
        M = -qgq if M is None else M - qgq  # noqa: N806
    up = M.triu()  # type: ignore[union-attr]
    if up._dtype.is_complex:
        sym = up + up.mH
        sym = sym - 0.5 * sym.diagonal(0, -2, -1).real.diag_embed()
    else:
        sym = up + up.mT - up * _eye(up._layout.shape[-1], up)
    ga = Q.matmul(sym)
    if gQ is not None:
        ga = ga + gQ
    from .inverses import linalg_solve

    # X R^H = ga  <=>  R X^H = ga^H
    return linalg_solve(Rm, ga.mH).mH


@backward("linalg_qr")
def _qr_backward(out: Any, A: Tensor, mode: str = "reduced") -> Any:  # noqa: N803
    """LinalgQrBackward0: PyTorch's linalg_qr_backward (mode 'r' refused as PyTorch refuses it: R
    alone does not determine the derivative), in its convention for complex gradients."""
    Q, Rm = out  # noqa: N806
    m, n = A._layout.shape[-2:]

    def grads(gQ: Any, gR: Any) -> tuple:  # noqa: N803
        if mode == "r":
            raise StridedRuntimeError(join_lines(
                "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please use "
                "linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.",
                "fix: linalg.qr(A) and use R from it"))
        if mode == "complete" and m > n:
            raise StridedRuntimeError(join_lines(
                "The QR decomposition is not differentiable when mode='complete' and nrows > ncols.",
                f"A has shape {shape_text(A.shape)}", "fix: mode='reduced'"))
        if m >= n:
            return (_qr_grad_tall(gQ, gR, Q, Rm),)
        # m < n: A = [X | Y], R = [U | V]; X = Q U is the square case, Y = Q V
        U = Rm[..., :, :m]  # noqa: N806
        Y = A[..., :, m:]  # noqa: N806
        gU = None if gR is None else gR[..., :, :m]  # noqa: N806
        gV = None if gR is None else gR[..., :, m:]  # noqa: N806
        gq = gQ
        if gV is not None:
            gq = Y.matmul(gV.mH) if gq is None else gq + Y.matmul(gV.mH)
        gx = _qr_grad_tall(gq, gU, Q, U) if (gq is not None or gU is not None) else None
        gy = Q.matmul(gV) if gV is not None else A[..., :, m:] * 0
        if gx is None:
            gx = A[..., :, :m] * 0
        return (cat([gx, gy], -1),)

    return "LinalgQrBackward0", (A,), LA.pytorch_convention(A, grads), (A, Q, Rm), True


# ---------------------------------------------------------------- eigh, eigvalsh


def _uplo(UPLO: Any) -> str:  # noqa: N803
    if not isinstance(UPLO, str) or UPLO.upper() not in ("L", "U") or len(UPLO) != 1:
        raise StridedRuntimeError(join_lines(
            f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}",
            "UPLO names the triangle read: 'L' (lower, the default) or 'U' (upper)"))
    return UPLO.upper()


def _fast_eigh(A: Any, UPLO: Any, vectors: bool) -> Any:  # noqa: N803
    """eigh (``vectors``) or eigvalsh of one finite square float32/float64 matrix of at most 64
    rows: NumPy's dsyevd call made in C on the storage (:data:`.matkernel.syevd_colmajor`, the
    same bits as the general path's gufunc call), the eigenvalues row-major and the vectors
    column-major as the general path lays them out. None (nothing done) for any other call."""
    lay = _lapack_operand(A, square=True)
    if lay is None or UPLO.__class__ is not str or UPLO not in "LU" or len(UPLO) != 1:
        return None
    shape = lay.shape
    done = matkernel.syevd_colmajor(A._storage.array, shape[0], lay.strides[0], lay.strides[1], lay.offset,
                                    UPLO == "L", vectors)
    if done is None:
        return None
    dt = A._dtype
    w = adopted(done[0], _cinfo[shape[:1]][2], dt)
    return _tuple_new(R.linalg_eigh, (w, adopted(done[1], LA.colmajor_layouts[shape], dt))) if vectors else w


def _eigh_arrays(A: Tensor, UPLO: str, op: str, vectors: bool) -> tuple[np.ndarray, Any]:  # noqa: N803
    a = A._np()
    real = a.real.dtype
    if a.size == 0:
        return np.zeros(a.shape[:-1], real), np.zeros(a.shape, a.dtype)
    # (all finite, the common case: one reduction without axes, the per-matrix one only else, of
    # the UPLO triangle LAPACK reads: a NaN or inf in the other one changes nothing, as in PyTorch)
    if np.isfinite(a).all():
        finite, safe = None, a
    else:
        read = np.tril(a) if UPLO == "L" else np.triu(a)
        finite = np.isfinite(read).all(axis=(-2, -1))
        safe = a if finite.all() else np.where(finite[..., None, None], a, 0)
    with quiet():  # (np.errstate(all="ignore") at a tenth of its cost)
        if vectors:
            w, v = LA.numpy_eigh(safe, UPLO)
        else:
            w, v = LA.numpy_eigvalsh(safe, UPLO), None
    if finite is not None and not finite.all():  # (PyTorch's LAPACK call gives NaN for such a matrix)
        w = np.where(finite[..., None], w, np.nan)
        if v is not None:
            v = np.where(finite[..., None, None], v, np.nan)
    return w.astype(real, copy=False), v


def linalg_eigh(A: Tensor, UPLO: str = "L", *, out: Any = None) -> Any:  # noqa: N803
    """``(eigenvalues, eigenvectors)`` of each symmetric (Hermitian) matrix, reading only its
    ``UPLO`` triangle: eigenvalues ascending (real), eigenvectors the orthonormal columns.

    >>> strided.linalg.eigh(strided.tensor([[2.0, 1.0], [1.0, 2.0]])).eigenvalues.tolist()
    [1.0, 3.0]
    """
    if out is not None:
        return write_tuple_out(out, lambda: linalg_eigh(A, UPLO),
                               "linalg.eigh", (A, UPLO), ("eigenvalues", "eigenvectors"))
    fast = _fast_eigh(A, UPLO, True)
    if fast is not None:
        return fast
    A = LA.square(A, "linalg.eigh")  # noqa: N806
    w, v = _eigh_arrays(A, _uplo(UPLO), "linalg.eigh", True)
    # (v: a fresh array, LAPACK's column-major one adopted as it is)
    return R.linalg_eigh(LA.rowmajor(w, real_of(A._dtype)), LA.colmajor(v, A._dtype, owned=True))


def linalg_eigvalsh(A: Tensor, UPLO: str = "L", *, out: Any = None) -> Tensor:  # noqa: N803
    """The eigenvalues of each symmetric (Hermitian) matrix, ascending (its ``UPLO`` triangle read).

    >>> strided.linalg.eigvalsh(strided.tensor([[2.0, 0.0], [0.0, 1.0]])).tolist()
    [1.0, 2.0]
    """
    if out is not None:  # (PyTorch's out= takes only the result's dtype)
        return write_out(out, linalg_eigvalsh(A, UPLO), "linalg.eigvalsh", (A, UPLO), "matmul")
    fast = _fast_eigh(A, UPLO, False)
    if fast is not None:
        return fast
    A = LA.square(A, "linalg.eigvalsh")  # noqa: N806
    w, _ = _eigh_arrays(A, _uplo(UPLO), "linalg.eigvalsh", False)
    return LA.rowmajor(w, real_of(A._dtype))


_EIGH_GAUGE = ("linalg_eigh_backward: The eigenvectors in the complex case are specified up to multiplication "
               "by e^{i phi}. The specified loss function depends on this quantity, so it is ill-defined.")


def _eigh_grad(gL: Any, gV: Any, L: Tensor, V: Tensor) -> Tensor:  # noqa: N803
    """PyTorch's linalg_eig_backward for a Hermitian (real: symmetric) input, in PyTorch's
    convention for complex gradients: ``V (skew(V^H gV) / 2 / E + diag(gL)) V^H``, ``E_ij = L_j -
    L_i`` (1 on the diagonal). A complex V is fixed only up to a phase per column: a loss that
    depends on the phases (``Im diag(V^H gV)`` not ~0) is refused with PyTorch's RuntimeError."""
    if gV is None:
        return (V * gL.unsqueeze(-2)).matmul(V.mH)
    vgv = V.mH.matmul(gV)
    if V._dtype.is_complex:
        phase = vgv.diagonal(0, -2, -1).imag
        if not bool(phase.abs().le(1e-2).all()):  # (PyTorch's allclose(Im diag, 0, rtol=atol=1e-2))
            raise StridedRuntimeError(join_lines(
                _EIGH_GAUGE,
                "each eigenvector may be multiplied by any e^{i phi} and stays one; this loss changes when "
                "it is, so it has no gradient",
                "fix: make the loss depend on the eigenvectors only through phase-free quantities "
                "(|V|, V V^H, the eigenvalues)"))
    vgv = 0.5 * (vgv - vgv.mH)
    n = L._layout.shape[-1]
    eye = _eye(n, L)
    E = L.unsqueeze(-2) - L.unsqueeze(-1) + eye  # noqa: N806
    inner = vgv / E
    if gL is not None:
        inner = inner * (1 - eye) + gL.unsqueeze(-1) * eye
    return V.matmul(inner.matmul(V.mH))


@backward("linalg_eigh")
def _eigh_backward(out: Any, A: Tensor, UPLO: str = "L") -> Any:  # noqa: N803
    """LinalgEighBackward0 (:func:`_eigh_grad`)."""
    L, V = out  # noqa: N806
    grads = LA.pytorch_convention(A, lambda gL, gV: (_eigh_grad(gL, gV, L, V),))
    return "LinalgEighBackward0", (A,), grads, (L, V), True


@backward("linalg_eigvalsh")
def _eigvalsh_backward(out: Tensor, A: Tensor, UPLO: str = "L") -> Any:  # noqa: N803
    """LinalgEighBackward0 (PyTorch computes the vectors when A requires grad): ``V diag(gL) V^H``
    (the eigenvalues are real: no conjugate convention applies)."""

    def grads(g: Tensor) -> tuple:
        L, V = linalg_eigh(A, UPLO)  # noqa: N806 - (recorded: see _svdvals_backward)
        return (_eigh_grad(g, None, L, V),)

    return "LinalgEighBackward0", (A,), grads, (A,)


# ---------------------------------------------------------------- cholesky


def linalg_cholesky(A: Tensor, *, upper: bool = False, out: Any = None) -> Tensor:  # noqa: N803
    """The lower-triangular L with ``A = L L^T`` of each symmetric positive-definite matrix (its
    lower triangle read); ``upper=True``: the upper-triangular U with ``A = U^T U`` (its upper
    triangle read, as PyTorch's potrf with uplo='U'). A matrix that is not
    positive-definite raises :class:`strided.linalg.LinAlgError` naming the failing minor.

    >>> strided.linalg.cholesky(strided.tensor([[4.0, 2.0], [2.0, 2.0]])).tolist()
    [[2.0, 0.0], [1.0, 1.0]]
    """
    if out is not None:  # (PyTorch's out= takes only the result's dtype)
        return write_out(out, linalg_cholesky(A, upper=upper), "linalg.cholesky", (A,), "matmul")
    if upper is False:  # (a factored matrix: cholesky_ex's fast call, its L; anything else below)
        fast = _fast_cholesky_ex(A)
        if fast is not None:
            return fast[0]
    A = LA.square(A, "linalg.cholesky")  # noqa: N806
    mkl = _mkl_cholesky(A, upper)
    if mkl is not None:
        return mkl
    low, _ = _cholesky(A, "linalg.cholesky", raising=True, upper=upper)
    return _triangle(low, upper, A)


def linalg_cholesky_ex(A: Tensor, *, upper: bool = False, check_errors: bool = False, out: Any = None) -> Any:  # noqa: N803
    """``(L, info)`` (PyTorch's named tuple): ``info`` (int32, one per matrix) is 0 where the
    factorization succeeded, else the order of the first leading minor that is not
    positive-definite; ``check_errors=True`` raises there instead, as :func:`linalg_cholesky`.

    # Note: PyTorch leaves LAPACK's partial factorization in a failed matrix's L (its docs
    # call the values unspecified); strided fills that matrix with NaN, so no number of it can
    # be taken for a factor.

    >>> r = strided.linalg.cholesky_ex(strided.tensor([[1.0, 2.0], [2.0, 1.0]]))
    >>> r.info.item(), r.L.isnan().all().item()
    (2, True)
    """
    if out is not None:
        return write_tuple_out(out, lambda: linalg_cholesky_ex(A, upper=upper, check_errors=check_errors),
                               "linalg.cholesky_ex", (A,), ("L", "info"))
    if upper is False and check_errors is False:
        fast = _fast_cholesky_ex(A)
        if fast is not None:
            return fast
    A = LA.square(A, "linalg.cholesky")  # noqa: N806  (PyTorch's shape errors name linalg.cholesky)
    mkl = _mkl_cholesky(A, upper)
    if mkl is not None:
        return R.linalg_cholesky_ex(mkl, LA.rowmajor(np.zeros(A._layout.shape[:-2], np.int32), int32))
    low, info = _cholesky(A, "linalg.cholesky_ex", raising=check_errors, upper=upper)
    return R.linalg_cholesky_ex(_triangle(low, upper, A), LA.rowmajor(info, int32))


def _fast_cholesky_ex(A: Any) -> Any:  # noqa: N803
    """cholesky_ex of one non-empty square float32/float64 matrix that LAPACK factors (no NaN on
    the factor's diagonal): the compiled LAPACK call (:data:`.matkernel.potrf_colmajor`, the
    gufunc's own call on the storage), else :func:`_numpy_cholesky`'s gufunc call, the float64 factor cast back
    straight into :func:`~._batched.colmajor`'s column-major buffer (the same numbers), info 0.
    None (nothing done) for any other call, and where the factorization failed: the general
    path decides those."""
    lay = _lapack_operand(A, square=True)
    if lay is None or _CHOLESKY_RUN is None:
        return None
    shape = lay.shape
    dt = A._dtype
    # (NumPy's LAPACK call in C on the storage: its bits, the factor column-major, info [0])
    done = matkernel.potrf_colmajor(A._storage.array, shape[0], lay.strides[0], lay.strides[1], lay.offset)
    if done is not None:
        return _tuple_new(R.linalg_cholesky_ex, (adopted(done[0], LA.colmajor_layouts[shape], dt),
                                                 adopted(done[1], _cinfo[()][2], int32)))
    mkl = _mkl_cholesky(A, False)
    if mkl is not None:
        return _tuple_new(R.linalg_cholesky_ex, (mkl, adopted(np.zeros(1, np.int32), _cinfo[()][2], int32)))
    try:  # (not built, larger than 64, or refused: NumPy's gufunc, whose NaN says refused)
        low = _CHOLESKY_RUN(_ul.cholesky_lo, LA.lapack_ready(A._np()), signature="d->d")
    except RuntimeError:  # (the context busy in another thread: the general path)
        return None
    if np.count_nonzero(np.isnan(low.diagonal())):
        return None
    factor = adopted(low.T.astype(dt.numpy, order="C").reshape(-1), LA.colmajor_layouts[shape], dt)
    return R.linalg_cholesky_ex(factor, adopted(np.zeros(1, np.int32), _cinfo[()][2], int32))


_CHOLESKY_FAST = frozenset((float32, float64))


def _mkl_cholesky(A: Tensor, upper: bool) -> Tensor | None:  # noqa: N803
    """The factor of each matrix of the square float batch ``A`` by MKL's potrf as PyTorch calls
    it (:func:`.mkl_lapack.cholesky`: large float32/float64 with MKL installed), column-major;
    None where that route does not apply or a matrix is not positive-definite."""
    done = mkl_lapack.cholesky(A._np(), upper)
    if done is None:
        return None
    return LA.colmajor(done[1], A._dtype, owned=True)


def _lapack_operand(A: Any, square: bool = False) -> Any:  # noqa: N803
    """``A``'s layout where the compiled LAPACK calls (:mod:`.matkernel`) may take it: one plain
    Tensor holding a non-empty float32/float64 matrix (``square`` if asked); else None. The calls
    themselves refuse what else they do not take (more than 64 rows or columns, a non-finite
    element, an element outside the storage) by answering None."""
    if A.__class__ is not Tensor or A._dtype not in _CHOLESKY_FAST:
        return None
    lay = A._layout
    shape = lay.shape
    if len(shape) != 2 or not shape[0] or not shape[1] or (square and shape[0] != shape[1]):
        return None
    return lay


def _triangle(low: np.ndarray, upper: bool, A: Tensor) -> Tensor:  # noqa: N803
    if upper:  # (U = L^H: L's buffer read row-major is U column-major, PyTorch's layout)
        return LA.colmajor(np.swapaxes(low, -1, -2).conj(), A._dtype)
    return LA.colmajor(low, A._dtype)


def _cholesky(A: Tensor, op: str, raising: bool, upper: bool = False) -> tuple[np.ndarray, np.ndarray]:  # noqa: N803
    """Each matrix's lower factor and LAPACK potrf's ``info`` (batch-shaped int32); a failed
    matrix raises (``raising``) or is NaN. ``upper``: the factor of ``A^H``, whose lower triangle
    is ``A``'s upper one conjugated (PyTorch's potrf with uplo='U' reads that triangle: its
    ``U`` is this ``L^H``, its info the same leading minor's order)."""
    a = A._np()
    if upper:
        a = np.swapaxes(a, -1, -2)
        if a.dtype.kind == "c":
            a = a.conj()
    info = np.zeros(a.shape[:-2], np.int32)
    if a.size == 0:
        return np.zeros(a.shape, a.dtype), info
    try:  # (NumPy's potrf reads the lower triangle only, as PyTorch's)
        low = _numpy_cholesky(a)
        # (a refused matrix comes back NaN from NumPy's gufunc; a NaN pivot: NumPy returns NaN,
        # LAPACK's potrf, as PyTorch calls it, fails there)
        # (the array's own diagonal method: np.diagonal's wrapper and dispatch cost ~0.6 us here;
        # count_nonzero: no Python wrapper, where .any() costs ~0.7 us on a few elements)
        bad = bool(np.count_nonzero(np.isnan(low.diagonal(0, -2, -1))))
    except np.linalg.LinAlgError:
        low, bad = None, True
    if not bad:
        return low, info
    if a.ndim == 2:
        # One matrix: the call above was LAPACK's verdict on it, no second factorization needed.
        # cholesky_failure reads the lower triangle only, as potrf: no symmetrized copy either,
        # but the row-major order that copy had (its dot and matmul read the same strides, so
        # BLAS sums in the same order; the copy's +0.0 for a -0.0 changes no comparison with 0).
        _failed(A, op, raising, 0, LA.rowmajor_copy(a), info.reshape(-1))
        return np.full_like(a, np.nan), info
    sym = np.tril(a) + np.swapaxes(np.tril(a, -1), -1, -2).conj()
    flat = sym.reshape(-1, *sym.shape[-2:])
    out = np.empty_like(flat)
    flat_info = info.reshape(-1)
    for i, m in enumerate(flat):
        try:  # (LAPACK decides which matrix of the batch fails, as in PyTorch)
            with quiet():  # (np.errstate(all="ignore") at a tenth of its cost)
                out[i] = np.linalg.cholesky(m)
            failed = bool(np.isnan(np.diagonal(out[i])).any())
        except np.linalg.LinAlgError:
            failed = True
        if failed:
            _failed(A, op, raising, i, m, flat_info)
            out[i] = np.nan
    return out.reshape(a.shape), info


def _numpy_cholesky(a: np.ndarray) -> np.ndarray:
    """``np.linalg.cholesky(a)`` of a non-empty float or complex batch, bit for bit: its one
    gufunc call (in float64 or complex128, cast back), where a matrix LAPACK refuses comes back
    all NaN instead of NumPy's LinAlgError for the whole batch (and its exception's cost, with
    NumPy's wrapper: about 5 us of a refused 16 x 16 matrix's call). NumPy's call, raising, where
    its gufunc is not found."""
    if _CHOLESKY_RUN is None:
        with quiet():  # (np.errstate(all="ignore") at a tenth of its cost)
            return np.linalg.cholesky(a)
    try:
        low = _CHOLESKY_RUN(_ul.cholesky_lo, LA.lapack_ready(a), signature="D->D" if a.dtype.kind == "c" else "d->d")
    except RuntimeError:  # (the context busy in another thread: NumPy's own call)
        with quiet():
            return np.linalg.cholesky(a)
    return low.astype(a.dtype, copy=False)


def _failed(A: Tensor, op: str, raising: bool, i: int, m: np.ndarray, flat_info: np.ndarray) -> None:  # noqa: N803
    """Matrix ``i`` (``m``) of ``A``, which LAPACK's potrf refused: its failing minor's order
    (:func:`~strided.ops.linalg._batched.cholesky_failure`) stored in ``flat_info[i]``, or
    PyTorch's error naming it (``raising``)."""
    k = LA.cholesky_failure(m)
    if raising:
        raise LinAlgError(join_lines(
            f"{op}: {LA.batch_prefix(A, i)}The factorization could not be completed because the input is "
            f"not positive-definite (the leading minor of order {k} is not positive-definite).",
            f"A of shape {shape_text(A.shape)}: matrix {i}'s leading {k}x{k} block has a "
            "determinant <= 0", "fix: strided.linalg.eigh(A) to see its eigenvalues; add a multiple of "
            "the identity to make it positive-definite"))
    flat_info[i] = k


@backward("linalg_cholesky")
def _cholesky_backward(out: Tensor, A: Tensor, *, upper: bool = False) -> Any:  # noqa: N803
    """LinalgCholeskyExBackward0, PyTorch's cholesky_backward: ``gA = L^{-H} phi L^{-1}`` with
    ``P = tril(L^H gL)`` and ``phi = (P + tril(P, -1)^H) / 2`` (the Hermitian part of ``tril(P)``
    with its diagonal halved, imaginary parts included, as PyTorch 2.13 computes it; ``^H`` is
    ``^T`` for a real A), in PyTorch's convention for complex gradients
    (:func:`._batched.pytorch_convention`)."""

    def grads(g: Tensor) -> tuple:
        from .inverses import linalg_solve

        L = out.mH if upper else out  # noqa: N806 - (taken now: ``out`` has its node, see _inv_backward)
        gl = g.mH if upper else g
        p = L.mH.matmul(gl).tril()
        # (a complex diagonal keeps its imaginary part: dropping it, as the Hermitian projection
        # would, gave gradients 0.17 away from PyTorch's for a Hermitian positive-definite A)
        phi = 0.5 * (p + p.tril(-1).mH)
        # L^{-H} phi L^{-1}: PyTorch's two triangular solves (here general ones)
        left = linalg_solve(L.mH, phi)
        return (linalg_solve(L.mH, left.mH).mH,)

    return "LinalgCholeskyExBackward0", (A,), LA.pytorch_convention(A, grads), (out,)


@backward("linalg_cholesky_ex")
def _cholesky_ex_backward(out: Any, A: Tensor, *, upper: bool = False, **kwargs: Any) -> Any:  # noqa: N803
    """LinalgCholeskyExBackward0 (L's gradient; ``info`` has none): as :func:`_cholesky_backward`."""
    return _cholesky_backward(out[0], A, upper=upper)


seal(globals())  # (last: this module's ops with a backward rule become their recording entries)
# the kinds of this module's ops, in the op registry (after the seal: the forwards are the entries)
declare(Kind.COMPUTE, "linalg_svd linalg_svdvals linalg_qr linalg_eigh linalg_eigvalsh linalg_cholesky "
        "linalg_cholesky_ex")
