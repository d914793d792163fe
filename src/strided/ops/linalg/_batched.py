"""What the ``strided.linalg`` ops share: PyTorch's argument checks for batches of matrices, the
results laid out as PyTorch's LAPACK-backed kernels lay them out, and the singular-input
diagnostics behind :class:`~strided.errors.LinAlgError`.

NumPy's ``linalg`` does the arithmetic over the whole batch at once (the same LAPACK routines
PyTorch calls, in the input's own precision: float32 stays float32). A matrix result of PyTorch's
LAPACK kernels is *batched column-major*: each (m, n) matrix has strides (1, m), the batch rows
after it (``linalg.inv`` of a (2, 3, 3) batch has strides (9, 1, 3)); :func:`colmajor` gives a
result those strides, so ``.stride()`` agrees with PyTorch's.

>>> colmajor(np.eye(2, 3), strided.float64).stride()
(1, 2)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...dispatch import adopted, result
from ...dtypes import DType, int64
from ...errors import LinAlgError, StridedRuntimeError, join_lines
from ...kernels import native
from ...kernels.blocked import copy_into
from ...kernels.fpstate import quietly
from ...layout import Layout
from ...storage import allocate
from ...tensor import Tensor, tensor_arg
from .._support.gradtools import from_numpy_result
from .._support.memo import Memo
from .._support.promotion import TORCH_NAMES
from .._support.reduce_args import shape_text
from . import mkl_lapack

__all__ = ["at_least_2d", "cholesky_failure", "colmajor", "float_input", "getrf_info", "lu_zero_pivot", "matrices",
           "pytorch_convention", "rowmajor", "square", "batch_prefix"]


def floating_or_complex(A: Tensor, op: str, name: str = "A") -> None:  # noqa: N803
    """PyTorch's checkFloatingOrComplex: a tensor of integers or bools is refused (any floating
    or complex dtype passes, float16 and bfloat16 too)."""
    d = A._dtype
    if not (d.is_floating_point or d.is_complex):
        raise StridedRuntimeError(join_lines(
            f"{op}: Expected a floating point or complex tensor as input. Got {TORCH_NAMES[d]}",
            f"{name} of shape {shape_text(A.shape)} holds {d.name}; linear algebra needs float32, float64 or complex",
            f"fix: {name}.to(strided.float64) (or .float())"))


def float_input(A: Any, op: str, name: str = "A") -> Tensor:  # noqa: N803
    """``A`` after PyTorch's dtype checks of a linalg op: float32/float64 (or complex) only."""
    tensor_arg(A, op, name)
    floating_or_complex(A, op, name)
    d = A._dtype
    if d.itemsize < 4 or d.name in ("bfloat16", "complex32"):
        raise StridedRuntimeError(join_lines(
            f"{op}: Low precision dtypes not supported. Got {TORCH_NAMES[d]}",
            f"{name} of shape {shape_text(A.shape)} is {d.name}; LAPACK computes in float32 or float64",
            f"fix: {name}.float()"))
    return A


def at_least_2d(A: Tensor, op: str, name: str = "A") -> None:  # noqa: N803
    """PyTorch's refusal of a vector or a scalar where a batch of matrices is expected."""
    if A.ndim < 2:
        raise StridedRuntimeError(join_lines(
            f"{op}: The input tensor {name} must have at least 2 dimensions.",
            f"{name} has shape {shape_text(A.shape)}; a matrix is (m, n), a batch of them (..., m, n)",
            f"fix: {name}.unsqueeze(0) for a (1, n) row, or .reshape(n, n)"))


def matrices(A: Any, op: str, name: str = "A") -> Tensor:  # noqa: N803
    """``A`` checked as a float batch of (m, n) matrices (PyTorch's order: dims, then dtype)."""
    tensor_arg(A, op, name)
    at_least_2d(A, op, name)
    return float_input(A, op, name)


def square(A: Any, op: str, name: str = "A") -> Tensor:  # noqa: N803
    """``A`` checked as a float batch of square matrices, PyTorch's errors for the others."""
    A = matrices(A, op, name)  # noqa: N806
    m, n = A._layout.shape[-2:]
    if m != n:
        raise StridedRuntimeError(join_lines(
            f"{op}: {name} must be batches of square matrices, but they are {m} by {n} matrices",
            f"{name} has shape {shape_text(A.shape)}: its last two dims are the matrices' rows and columns",
            "fix: pass square matrices; for a least-squares solution of a non-square system use strided.linalg.lstsq"))
    return A


def colmajor(arr: np.ndarray, dtype: DType, owned: bool = False) -> Tensor:
    """A fresh tensor holding ``arr`` (..., m, n) with PyTorch's LAPACK strides: each matrix
    column-major (strides (1, m)), the batch dims row-major over the matrices. ``owned``: ``arr``
    is a view of a fresh buffer nobody else holds; one already in that layout is adopted, no copy."""
    shape = arr.shape
    if len(shape) < 2:
        return rowmajor(arr, dtype)
    layout = colmajor_layouts[shape]
    if owned and arr.size and arr.dtype == dtype.numpy and arr.swapaxes(-1, -2).flags.c_contiguous:
        return adopted(arr.swapaxes(-1, -2).reshape(-1), layout, dtype)
    if arr.size and arr.dtype == dtype.numpy:
        # (the matrices' transposes, copied row-major, are those bytes: one copy adopted, no
        # zeroed result to fill; the same elements, bit for bit)
        transposed = arr.swapaxes(-1, -2)
        if arr.nbytes < native.MIN_BYTES:
            flat = transposed.copy()
        else:  # (NumPy's transposing copy: ~10 ms for a 1024 x 1024 float32, the tiled kernel's 0.7)
            flat = allocate(arr.size, arr.dtype, shape)
            copy_into(flat.reshape(transposed.shape), transposed)
        return adopted(flat.reshape(-1), layout, dtype)
    out = result(shape, dtype, layout.strides)
    out._np()[...] = arr
    return out


def _colmajor_layout(shape: tuple[int, ...]) -> Layout:
    """The layout of :func:`colmajor`'s result of ``shape`` (at least 2 dims)."""
    m, n = shape[-2:]
    strides = [1, max(m, 1)]
    step = m * n
    for size in reversed(shape[:-2]):
        strides.insert(0, max(step, 1))
        step *= size
    return Layout._trusted(shape, tuple(strides), 0)


colmajor_layouts = Memo(_colmajor_layout)  # (shape -> colmajor's layout of it)
_SCALAR = Layout._trusted((), (), 0)


def gufunc_runner(**errstate: str) -> Any:
    """``run(gufunc, *args, **kw)`` inside a context whose NumPy error state is ``errstate`` (the
    rest "ignore"), and NumPy's ``_umath_linalg`` module: what ``np.linalg``'s functions call,
    without their per-call Python (array checks, an errstate block: 3-9 us of a small matrix's
    call); (None, None) where NumPy's private names are not found (the callers then call
    NumPy's public functions). A context is entered by one thread at a time: a call that finds
    it busy raises RuntimeError, and the callers then make NumPy's public call."""
    try:
        import contextvars

        from numpy._core._ufunc_config import _extobj_contextvar, _make_extobj  # type: ignore[attr-defined]
        from numpy.linalg import _umath_linalg as ul  # type: ignore[attr-defined]

        ul.qr_r_raw, ul.qr_reduced, ul.qr_complete, ul.cholesky_lo, ul.inv, ul.solve, ul.eigvalsh_lo, ul.eigvalsh_up, ul.eigh_lo, ul.eigh_up, ul.svd, ul.svd_f, ul.svd_s  # noqa: B018
        context = contextvars.Context()
        context.run(_extobj_contextvar.set, _make_extobj(all="ignore", **errstate))
        return context.run, ul
    except (ImportError, AttributeError, TypeError):  # pragma: no cover - other NumPy versions
        return None, None


# inv and solve: NumPy turns the invalid flag (a singular matrix) into its LinAlgError: raised
# here as FloatingPointError, NumPy's own call then raises it
_SOLVE_RUN, _ul = gufunc_runner(invalid="raise")


# The fewest bytes from which lapack_ready pre-casts (below, NumPy's own cast costs as little)
PRECAST_MIN = 1 << 16


def lapack_ready(a: np.ndarray) -> np.ndarray:
    """``a`` as NumPy's linalg gufuncs receive it: a float32 or complex64 batch that is not
    row-major (a permuted one), from :data:`PRECAST_MIN` bytes, cast to float64 or complex128 in its
    own memory order (an exact cast: the same numbers reach LAPACK, so the same bits come out);
    anything else unchanged. Why: NumPy's gufunc casts it into a row-major buffer first, a
    transposing copy, then copies that into LAPACK's column-major matrix: a 1024 x 1024 float32
    transpose's det took 39 ms that way, 24 ms cast in place (its row-major original 29)."""
    if a.dtype.char in "fF" and not a.flags.c_contiguous and a.nbytes >= PRECAST_MIN:
        return widened(a)
    return a


def widened(a: np.ndarray) -> np.ndarray:
    """A float32/complex64 ``a`` cast to float64/complex128 in its own memory order, NumPy's
    floating-point flags ignored (the cast of a signaling NaN raises the invalid flag: a
    RuntimeWarning outside NumPy's linalg, its "singular matrix" inside it; PyTorch sees a NaN);
    anything else unchanged."""
    if a.dtype.char in "fF":
        return quietly(a.astype, np.complex128 if a.dtype.kind == "c" else np.float64, order="K")
    return a


def numpy_inv(a: np.ndarray) -> np.ndarray:
    """``np.linalg.inv(a)`` of a non-empty float or complex batch of square matrices, bit for bit
    (its one gufunc call in float64 or complex128, cast back): NumPy's call where the gufunc is
    not found, the context is busy, or a matrix is singular (it raises its LinAlgError)."""
    if _SOLVE_RUN is not None:
        try:
            x = _SOLVE_RUN(_ul.inv, lapack_ready(a), signature="D->D" if a.dtype.kind == "c" else "d->d")
        except (FloatingPointError, RuntimeError):
            pass
        else:
            return x.astype(a.dtype, copy=False)
    # (its float64 call on the widened numbers: the same bits, but a signaling NaN's cast is not
    # taken for a singular matrix, as the pre-cast above does not: one answer for every layout)
    return np.linalg.inv(widened(a)).astype(a.dtype, copy=False)


def numpy_solve(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``np.linalg.solve(a, b)`` of non-empty batches of one float or complex dtype, ``b`` of at
    least 2 dims (a batch of (n, k) matrices, broadcast against ``a``'s), bit for bit: as
    :func:`numpy_inv`."""
    if _SOLVE_RUN is not None and a.dtype == b.dtype and b.ndim >= 2:
        try:
            x = _SOLVE_RUN(_ul.solve, lapack_ready(a), lapack_ready(b),
                           signature="DD->D" if a.dtype.kind == "c" else "dd->d")
        except (FloatingPointError, RuntimeError):
            pass
        else:
            return x.astype(a.dtype, copy=False)
    if a.dtype == b.dtype:  # (as numpy_inv's)
        return np.linalg.solve(widened(a), widened(b)).astype(a.dtype, copy=False)
    return np.linalg.solve(a, b)


def numpy_eigvalsh(a: np.ndarray, UPLO: str) -> np.ndarray:  # noqa: N803
    """``np.linalg.eigvalsh(a, UPLO)`` of a non-empty float or complex batch, bit for bit (its
    one gufunc call in float64, the values cast to ``a``'s real dtype): NumPy's call where the
    gufunc is not found, the context is busy, or LAPACK did not converge (its LinAlgError).
    Large float32/float64 matrices with MKL installed: PyTorch's syevd call instead
    (:func:`.mkl_lapack.eigh`)."""
    mkl = mkl_lapack.eigh(a, UPLO, False)  # (large float32/float64 with MKL installed: PyTorch's syevd)
    if mkl is not None:
        return mkl[0]
    if _SOLVE_RUN is not None:
        gufunc = _ul.eigvalsh_lo if UPLO == "L" else _ul.eigvalsh_up
        try:
            w = _SOLVE_RUN(gufunc, lapack_ready(a), signature="D->d" if a.dtype.kind == "c" else "d->d")
        except (FloatingPointError, RuntimeError):
            pass
        else:
            return w.astype(np.float32 if a.dtype in (np.float32, np.complex64) else np.float64, copy=False)
    return np.linalg.eigvalsh(a, UPLO=UPLO)


_EIGH_TYPES = {np.dtype(np.float32): np.float32, np.dtype(np.float64): np.float64,
               np.dtype(np.complex64): np.float32, np.dtype(np.complex128): np.float64}  # (-> the eigenvalues' dtype)


def numpy_eigh(a: np.ndarray, UPLO: str) -> tuple[np.ndarray, np.ndarray]:  # noqa: N803
    """``np.linalg.eigh(a, UPLO)`` of a non-empty float or complex batch, bit for bit (its one
    gufunc call in float64 or complex128, the values cast to ``a``'s real dtype, the vectors to
    ``a``'s): NumPy's call where the gufunc is not found, the context is busy, or LAPACK did not
    converge (its LinAlgError). Large float32/float64 matrices with MKL installed: PyTorch's
    syevd call instead (:func:`.mkl_lapack.eigh`: the vectors column-major)."""
    real = _EIGH_TYPES.get(a.dtype)
    mkl = mkl_lapack.eigh(a, UPLO, True)  # (large float32/float64 with MKL installed: PyTorch's syevd)
    if mkl is not None:
        return mkl  # type: ignore[return-value]
    if _SOLVE_RUN is not None and real is not None:
        gufunc = _ul.eigh_lo if UPLO == "L" else _ul.eigh_up
        try:
            w, v = _SOLVE_RUN(gufunc, lapack_ready(a), signature="D->dD" if a.dtype.kind == "c" else "d->dd")
        except (FloatingPointError, RuntimeError):
            pass
        else:
            return w.astype(real, copy=False), v.astype(a.dtype, copy=False)
    return np.linalg.eigh(a, UPLO=UPLO)


def numpy_svd(a: np.ndarray, full_matrices: bool = True, compute_uv: bool = True) -> Any:
    """``np.linalg.svd(a, full_matrices, compute_uv)`` of a non-empty float or complex batch, bit
    for bit (its one gufunc call in float64 or complex128, cast back): ``(u, s, vh)``, or ``s``
    alone without ``compute_uv``; NumPy's call where the gufunc is not found, the context is
    busy, or LAPACK did not converge (its LinAlgError). Large float32/float64 matrices with MKL
    installed: PyTorch's gesdd call instead (:func:`.mkl_lapack.svd`: u and vh column-major)."""
    real = _EIGH_TYPES.get(a.dtype)
    mkl = mkl_lapack.svd(a, full_matrices, compute_uv)  # (large float32/float64 with MKL installed: PyTorch's gesdd)
    if mkl is not None:
        return mkl
    if _SOLVE_RUN is not None and real is not None:
        c = a.dtype.kind == "c"
        try:
            if compute_uv:
                u, s, vh = _SOLVE_RUN(_ul.svd_f if full_matrices else _ul.svd_s, a, signature="D->DdD" if c else "d->ddd")
            else:
                s = _SOLVE_RUN(_ul.svd, a, signature="D->d" if c else "d->d")
        except (FloatingPointError, RuntimeError):
            pass
        else:
            if not compute_uv:
                return s.astype(real, copy=False)
            return u.astype(a.dtype, copy=False), s.astype(real, copy=False), vh.astype(a.dtype, copy=False)
    if not compute_uv:
        return np.linalg.svd(a, compute_uv=False)
    return tuple(np.linalg.svd(a, full_matrices=full_matrices))


def rowmajor_copy(arr: np.ndarray) -> np.ndarray:
    """``np.ascontiguousarray(arr)`` (``arr`` itself when row-major), through the tiled copy
    kernel from :data:`strided.kernels.native.MIN_BYTES` (NumPy's transposing copy is slow)."""
    if arr.flags.c_contiguous or arr.nbytes < native.MIN_BYTES:
        return np.ascontiguousarray(arr)
    out = allocate(arr.size, arr.dtype, arr.shape).reshape(arr.shape)
    copy_into(out, arr)
    return out


def rowmajor(arr: np.ndarray, dtype: DType) -> Tensor:
    """A fresh contiguous tensor holding ``arr`` (``arr`` itself when it is a fresh array of ``dtype``)."""
    if arr.__class__ is np.ndarray and not arr.ndim:  # (info, a det: np.ndim's dispatch skipped)
        return _scalar(arr, dtype)
    return from_numpy_result(np.ascontiguousarray(arr), dtype) if np.ndim(arr) else _scalar(arr, dtype)


def _scalar(value: Any, dtype: DType) -> Tensor:
    if value.__class__ is np.ndarray and value.dtype == dtype.numpy:  # (info, a det: its one element adopted)
        return adopted(value.reshape(1).copy(), _SCALAR, dtype)
    out = result((), dtype)
    out._np()[...] = value
    return out


def batch_prefix(A: Tensor, index: int) -> str:
    """PyTorch's "(Batch element i): " before a batched op's LAPACK error ("" for one matrix)."""
    return f"(Batch element {index}): " if A.ndim > 2 else ""


def lu_zero_pivot(a: np.ndarray, refused: bool = False) -> int:
    """The 1-based index of the first zero on U's diagonal in the LU factorization with partial
    pivoting of the square matrix ``a`` (LAPACK getrf's ``info``); 0 when there is none. An
    unblocked elimination: it is run only on a matrix LAPACK already found singular, to name the
    element as PyTorch's error does; with ``refused`` (LAPACK refused this very matrix), where its
    rounding meets no exact zero, the index of its smallest pivot, never 0.

    >>> lu_zero_pivot(np.array([[1.0, 2.0], [2.0, 4.0]]))
    2
    """
    u = np.array(a, dtype=a.dtype, copy=True)
    n = u.shape[0]
    first = 0
    smallest, at = np.inf, 1
    for k in range(n):
        p = k + int(np.argmax(np.abs(u[k:, k])))
        if u[p, k] == 0:
            first = first or k + 1
            continue
        if abs(u[p, k]) < smallest:
            smallest, at = abs(u[p, k]), k + 1
        if p != k:
            u[[k, p]] = u[[p, k]]
        u[k + 1:, k] /= u[k, k]
        u[k + 1:, k + 1:] -= np.outer(u[k + 1:, k], u[k, k + 1:])
    return first or (at if refused else 0)


def getrf_info(a: np.ndarray) -> int:
    """LAPACK getrf's ``info`` of the square matrix ``a``: LAPACK (NumPy's, as PyTorch's) decides
    whether a pivot is exactly zero, :func:`lu_zero_pivot` names which (its own elimination may
    round differently: a matrix one calls singular and the other not would otherwise give an
    info of 0 for a matrix that failed, or a crash).

    >>> getrf_info(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]])) in (0, 3)
    True
    """
    try:
        np.linalg.solve(a, np.ones(a.shape[-1:] + (1,), a.dtype))
    except np.linalg.LinAlgError:
        return lu_zero_pivot(a, refused=True)
    return 0


def cholesky_failure(a: np.ndarray) -> int:
    """The order of the first leading minor of the symmetric matrix ``a`` (its lower triangle read)
    that is not positive-definite (LAPACK potrf's ``info``), for a matrix LAPACK's potrf refused.
    An unblocked elimination: where its rounding lets every pivot pass (a singular semi-definite
    matrix, whose last pivot is a rounding error's size), the order of its smallest pivot
    relative to its diagonal element, never 0.

    >>> cholesky_failure(np.array([[1.0, 2.0], [2.0, 1.0]]))
    2
    """
    n = a.shape[0]
    low = np.zeros_like(a)  # (a's memory order: BLAS's dot and matmul below read it as before)
    smallest, at = np.inf, 1
    # (conj and real are the identity on a real matrix: skipped there, the same numbers)
    conj, real = (np.conj, np.real) if a.dtype.kind == "c" else (_same, _same)
    for k in range(n):
        row = conj(low[k, :k])
        d = a[k, k] - np.dot(low[k, :k], row)
        if not real(d) > 0:
            return k + 1
        ratio = real(d) / abs(real(a[k, k]))
        if ratio < smallest:
            smallest, at = ratio, k + 1
        low[k, k] = np.sqrt(real(d))  # (zpotrf: the real part; a diagonal's imaginary part is ignored)
        low[k + 1:, k] = (a[k + 1:, k] - low[k + 1:, :k] @ row) / low[k, k]
    return at


def _same(x: Any) -> Any:
    return x


def first_singular(a: np.ndarray) -> tuple[int, int]:
    """(batch index, getrf info) of the first matrix of the batch ``a`` (..., n, n) whose LU has a
    zero pivot; (-1, 0) when none has."""
    flat = a.reshape(-1, *a.shape[-2:])
    for i, m in enumerate(flat):
        info = getrf_info(m)
        if info:
            return i, info
    return -1, 0


def singular_inverse(A: Tensor, a: np.ndarray, op: str) -> LinAlgError:  # noqa: N803
    """PyTorch's error for the inverse of a singular matrix (the batch element and pivot named)."""
    index, info = first_singular(a)
    index, info = max(index, 0), max(info, 1)
    return LinAlgError(join_lines(
        f"{op}: {batch_prefix(A, index)}The diagonal element {info} is zero, the inversion could not be completed "
        "because the input matrix is singular.",
        f"A of shape {shape_text(A.shape)}: the LU factorization of matrix {index} met a zero pivot in column "
        f"{info - 1}, so it has no inverse",
        "fix: strided.linalg.pinv(A) for the pseudo-inverse, or strided.linalg.lstsq(A, B) to solve in least squares"))


def pytorch_convention(A: Tensor, grad: Any) -> Any:  # noqa: N803
    """A rule written in PyTorch's convention for complex gradients (its formulas take conj
    themselves), for a node with a complex output, whose rule :mod:`strided.autograd.function`
    treats as the holomorphic derivative (``conj(rule(conj(g)))``): ``grad`` conjugated in and
    out, so the engine's conjugations cancel. A real A: ``grad`` itself."""
    if not A._dtype.is_complex:
        return grad

    def conjugated(*gs: Any) -> tuple:
        return tuple(None if t is None else t.conj() for t in grad(*(None if g is None else g.conj() for g in gs)))

    return conjugated


def finite_for_svd(A: Tensor) -> np.ndarray:  # noqa: N803
    """``A``'s array, after PyTorch's refusal of NaN or inf by the SVD (gesdd does not converge)."""
    a = A._np()
    if a.size and not np.isfinite(a).all():
        index = int(np.argmin(np.isfinite(a).reshape(-1, a.shape[-2] * a.shape[-1]).all(-1)))
        raise LinAlgError(join_lines(
            f"linalg.svd: {batch_prefix(A, index)}The algorithm failed to converge because the input matrix contained "
            "non-finite values.",
            f"A of shape {shape_text(A.shape)} holds NaN or inf", "fix: replace them first, e.g. A.nan_to_num()"))
    return a


def int64_result(arr: np.ndarray) -> Tensor:
    """A fresh int64 tensor holding ``arr`` (ranks)."""
    return rowmajor(np.asarray(arr, dtype=np.int64), int64)
