"""The optional Intel MKL route for large float32/float64 LAPACK calls, made as PyTorch makes them.

PyTorch's CPU wheel runs ``linalg.inv``/``solve``/``det``/``cholesky``/``eigh``/``svd`` through
the MKL it bundles (``aten/src/ATen/native/BatchLinearAlgebra*.cpp``: ``?getrf`` on a
column-major copy of each matrix, then ``?getrs('N')`` for a solve or an inverse (the inverse is
``solve(A, I)``; ``left=False``: getrs('T') on A's own factors), ``?potrf`` with ``uplo`` 'L' or
'U' for cholesky, ``?syevd`` for eigh/eigvalsh, ``?gesdd`` (jobz 'A', 'S' or 'N') for
svd/svdvals and so pinv/matrix_rank, ``?geqrf`` then ``?orgqr`` for qr (:func:`qr`), and the
least-squares drivers ``?gelsy`` / ``?gels`` / ``?gelsd`` / ``?gelss`` for lstsq
(:func:`lstsq_library`)), in the input's own precision: float32 stays float32. NumPy's gufuncs call its bundled OpenBLAS in float64 (a float32 input is widened), so
its numbers differ in the last bits and it is 2-4x slower at 1024 x 1024. When the pip ``mkl``
distribution is installed, the functions here make PyTorch's calls (``MKL_VERBOSE=1`` under torch
shows them) on MKL's ILP64 ``_64`` entry points; each answers None where it does not apply, and
the caller's NumPy path runs as before.

Bits: the same calls give PyTorch's bits only with the MKL version PyTorch bundles (torch 2.13:
oneMKL 2024.2; measured equal for getrf/getrs/potrf/syevd/gesdd on AVX-512 with pip
``mkl==2024.2.0``, except float32 getrf of 65, 81, ..., 145 rows, which MKL's sequential layer
blocks otherwise than PyTorch's GNU-threaded one; where MKL does not take its AVX-512 path
(:func:`code_path`: an AVX2-only CPU, or an AMD EPYC Zen 4 even with AVX-512), float64 getrf of
some of 65, 73, ..., 145 rows too (65, 97, 113, 121, 129 for well-conditioned matrices measured on
Zen 4; ``MKL_THREADING_LAYER=GNU`` gives PyTorch's bits there: the threading layer, not the ISA)). Another version (e.g.
``mkl==2026.2.1``; the extras pin 2024.2.0) blocks its factorizations differently: results within
LAPACK's own error of
PyTorch's (singular vectors up to sign), not its bits. :func:`version` says which is loaded.

Choices:

* Only matrices of at least :data:`MIN_N` rows (past the compiled small-matrix calls of
  ``kernels/_lapack_calls.h``, which keep NumPy's bits) and float32/float64 (complex and the
  rest stay on NumPy's path).
* A failed factorization (a singular matrix for inv/solve, a non positive-definite one for
  cholesky) answers None: the NumPy path then raises or reports ``info`` exactly as before.
  det takes the factorization whatever its ``info`` (PyTorch's det does: U's zero pivot makes
  the product 0).
* Lazy: nothing is loaded by ``import strided``; the library is the one
  :func:`strided.kernels.blas_route.lib` loads for the matrix products (at the first call that
  may use it): one loader, one set of choices -- its SEQUENTIAL threading layer unless
  ``MKL_THREADING_LAYER`` is set (no second OpenMP runtime beside torch's libgomp),
  ``STRIDED_BLAS=openblas`` or ``STRIDED_NATIVE=0`` switching MKL off (NumPy's path, its bits,
  exactly as without MKL).
"""

from __future__ import annotations

import _thread
import ctypes
from typing import Any

import numpy as np

from ...kernels import native
from ...kernels.blocked import copy_into
from ...kernels.fpstate import quiet
from ...storage import allocate

__all__ = ["MIN_N", "cholesky", "code_path", "det", "eigh", "inv", "lstsq_library", "lu_diagonal", "mkl_library", "qr", "solve", "svd",
           "version"]

# The fewest rows of a matrix that takes this route (the compiled small calls serve up to 64)
MIN_N = 65

_lock = _thread.allocate_lock()  # (not threading: ``import strided`` stays without it)
_state: list[Any] = []  # [] undecided; [None] no route; [_Lapack] bound


class _Lapack:
    """The loaded library and its ILP64 LAPACK entry points (ctypes: the GIL released per call)."""

    def __init__(self, cdll: ctypes.CDLL) -> None:
        self.cdll = cdll
        p, c = ctypes.c_void_p, ctypes.c_char_p
        self.routines: dict[str, Any] = {}
        for t in "sd":
            for name, argtypes in (("getrf", [p] * 6), ("getrs", [c] + [p] * 8 + [ctypes.c_size_t]),
                                   ("potrf", [c] + [p] * 4 + [ctypes.c_size_t]),
                                   ("syevd", [c, c] + [p] * 9 + [ctypes.c_size_t] * 2),
                                   ("gesdd", [c] + [p] * 13 + [ctypes.c_size_t]),
                                   ("geqrf", [p] * 7), ("orgqr", [p] * 8)):
                f = getattr(cdll, f"{t}{name}_64")
                f.argtypes, f.restype = argtypes, None
                self.routines[t + name] = f


def mkl_library() -> ctypes.CDLL | None:
    """The loaded ``libmkl_rt`` (loading it at the first call), or None: switched off
    (``STRIDED_BLAS=openblas``, ``STRIDED_NATIVE=0``), not installed, or not loadable."""
    lp = _lapack()
    return None if lp is None else lp.cdll


def _lapack() -> _Lapack | None:
    """The LAPACK entry points of the MKL that :func:`strided.kernels.blas_route.lib` loads (the
    one loader of both routes: its path search, SEQUENTIAL layer and switches), bound at the
    first call; None without it."""
    if _state:
        return _state[0]
    with _lock:
        if not _state:
            from ...kernels import blas_route

            mkl = blas_route.lib()
            found = None
            if mkl is not None:
                try:
                    found = _Lapack(mkl.cdll)
                except AttributeError:  # (an MKL without these LAPACK names: NumPy's path)
                    found = None
            _state.append(found)
    return _state[0]


def version() -> str | None:
    """The loaded MKL's version string (None: no MKL route)."""
    cdll = mkl_library()
    if cdll is None:
        return None
    buf = ctypes.create_string_buffer(256)
    cdll.MKL_Get_Version_String(buf, 256)
    return buf.value.decode(errors="replace")


class _MklVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_int), ("minor", ctypes.c_int), ("update", ctypes.c_int),
                ("product_status", ctypes.c_char_p), ("build", ctypes.c_char_p), ("processor", ctypes.c_char_p),
                ("platform", ctypes.c_char_p)]


def code_path() -> str | None:
    """The code path the loaded MKL dispatches to on this CPU (``MKL_Get_Version``'s processor
    field, as ``MKL_VERBOSE=1`` prints it: e.g. "Intel(R) Advanced Vector Extensions 512
    (Intel(R) AVX-512) enabled processors" on an Intel AVX-512 CPU, "Intel(R) Architecture
    processors" on an AMD EPYC even with AVX-512), or None: no MKL route."""
    cdll = mkl_library()
    if cdll is None:
        return None
    v = _MklVersion()
    cdll.MKL_Get_Version(ctypes.byref(v))
    return (v.processor or b"").decode(errors="replace")


def _route(a: np.ndarray) -> _Lapack | None:
    """MKL's routines where the batch ``a`` (..., m, n) takes this route, else None."""
    if a.dtype.char not in "fd" or a.ndim < 2 or a.shape[-1] < MIN_N or a.shape[-2] < MIN_N or not a.size:
        return None
    return _lapack()


_ALIGN = 64  # (bytes: c10's CPU allocator's alignment)


def _aligned(count: int, dtype: Any, shape: tuple[int, ...] | None = None) -> np.ndarray:
    """A fresh 1-D array of ``count`` elements starting on a 64-byte boundary, as PyTorch's
    buffers do: MKL's kernels take another path (other bits) for another alignment, measured
    with syevd (NumPy's own allocations are 16-byte aligned below its mmap threshold)."""
    dt = np.dtype(dtype)
    spare = _ALIGN // dt.itemsize
    raw = allocate(count + spare, dt, shape)
    skip = (-raw.ctypes.data % _ALIGN) // dt.itemsize
    return raw[skip: skip + count]


def _colmajor_copy(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(flat, view)``: a fresh buffer ``flat`` holding each matrix of ``a`` column-major (the
    batch row-major over the matrices: PyTorch's cloneBatchedColumnMajor), and ``view``, the
    batch read from it (``view`` equals ``a``)."""
    shape = a.shape
    flat = _aligned(a.size, a.dtype, shape)
    view = flat.reshape(*shape[:-2], shape[-1], shape[-2]).swapaxes(-1, -2)
    copy_into(view, a)
    return flat, view


def _matrices(flat: np.ndarray, m: int, n: int) -> list[int]:
    """The address of each column-major (m, n) matrix of the buffer ``flat``."""
    step = m * n * flat.itemsize
    base = flat.ctypes.data
    return [base + i * step for i in range(flat.size // (m * n))]


def _i64(v: int) -> Any:
    return ctypes.byref(ctypes.c_int64(v))


def _getrf(lp: _Lapack, flat: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """``?getrf`` of each (n, n) column-major matrix of ``flat`` in place: ``(ipiv, info)``,
    (batch, n) int64 pivots (1-based) and (batch,) int64 infos."""
    f = lp.routines[flat.dtype.char.replace("f", "s") + "getrf"]
    mats = _matrices(flat, n, n)
    ipiv = _aligned(len(mats) * n, np.int64).reshape(len(mats), n)
    info = np.zeros(len(mats), np.int64)
    nn = _i64(n)
    for i, ptr in enumerate(mats):
        inf = ctypes.c_int64(0)
        f(nn, nn, ctypes.c_void_p(ptr), nn, ctypes.c_void_p(ipiv[i].ctypes.data), ctypes.byref(inf))
        info[i] = inf.value
    return ipiv, info


def _getrs(lp: _Lapack, lu: np.ndarray, ipiv: np.ndarray, b: np.ndarray, n: int, k: int, trans: bytes = b"N") -> None:
    """``?getrs(trans)`` of each factored matrix of ``lu`` on the matching (n, k) column-major
    right-hand sides of ``b`` (in place)."""
    f = lp.routines[lu.dtype.char.replace("f", "s") + "getrs"]
    nn, kk, info = _i64(n), _i64(k), ctypes.c_int64(0)
    for i, (pa, pb) in enumerate(zip(_matrices(lu, n, n), _matrices(b, n, k))):
        f(trans, nn, kk, ctypes.c_void_p(pa), nn, ctypes.c_void_p(ipiv[i].ctypes.data), ctypes.c_void_p(pb), nn,
          ctypes.byref(info), 1)


def inv(a: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """``(flat, view)``: the inverse of each matrix of the square batch ``a``, as PyTorch's
    ``linalg.inv`` computes it (``solve(A, I)``: getrf, then getrs on the identity), column-major
    in a fresh buffer (see :func:`_colmajor_copy`). None: not this route, or a matrix singular
    (getrf's info > 0)."""
    lp = _route(a)
    if lp is None:
        return None
    n = a.shape[-1]
    lu, _ = _colmajor_copy(a)
    ipiv, info = _getrf(lp, lu, n)
    if info.any():
        return None
    flat = _aligned(a.size, a.dtype, a.shape)
    mats = flat.reshape(-1, n, n)
    mats[...] = 0
    mats.reshape(len(mats), -1)[:, :: n + 1] = 1
    _getrs(lp, lu, ipiv, flat, n, n)
    return flat, flat.reshape(a.shape).swapaxes(-1, -2)


def solve(a: np.ndarray, b: np.ndarray, transposed: bool = False) -> np.ndarray | None:
    """The solution X of ``A X = B`` for the square batch ``a`` and the (..., n, k) batch ``b``
    (batch dims already broadcast to one shape), as PyTorch's ``linalg.solve`` computes it
    (getrf of A's column-major copy, getrs('N') on B's), a view of a fresh column-major buffer.
    ``transposed``: ``a`` is the transpose ``M^T`` of the matrix ``M`` of an ``X M = B^T``
    (``left=False``), which PyTorch factors itself, then getrs('T'). None: not this route,
    different dtypes, or a matrix singular."""
    lp = _route(a)
    if lp is None or b.dtype != a.dtype or b.ndim != a.ndim or b.shape[:-1] != a.shape[:-1] or not b.size:
        return None
    n, k = a.shape[-1], b.shape[-1]
    lu, _ = _colmajor_copy(np.swapaxes(a, -1, -2) if transposed else a)
    ipiv, info = _getrf(lp, lu, n)
    if info.any():
        return None
    flat, x = _colmajor_copy(b)
    _getrs(lp, lu, ipiv, flat, n, k, b"T" if transposed else b"N")
    return x


def lu_diagonal(a: np.ndarray, contiguous: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """``(view, diag, sign)`` of PyTorch's LU factorization for det/slogdet of the square batch
    ``a``: getrf of a column-major copy -- of ``A^T`` when the tensor is ``contiguous`` (PyTorch
    factors ``A.mH`` then: its memory is already column-major) --, ``view`` the factors, ``diag``
    U's diagonal (a strided view of them), ``sign`` the row permutation's sign (+-1 of ``a``'s
    dtype, batch-shaped). None: not this route."""
    lp = _route(a)
    if lp is None:
        return None
    n = a.shape[-1]
    lu, view = _colmajor_copy(np.swapaxes(a, -1, -2) if contiguous else a)
    ipiv, _ = _getrf(lp, lu, n)
    swaps = np.count_nonzero(ipiv != np.arange(1, n + 1), axis=-1).reshape(a.shape[:-2])
    sign = np.where(swaps % 2 == 1, a.dtype.type(-1), a.dtype.type(1))
    return view, view.diagonal(0, -2, -1), sign


def det(a: np.ndarray, contiguous: bool) -> np.ndarray | None:
    """The determinant of each matrix of the square batch ``a`` (an array of its batch shape),
    as PyTorch's ``linalg.det`` computes it: getrf of a column-major copy -- of ``A^T`` when the
    tensor is ``contiguous`` (PyTorch factors ``A.mH`` then: its memory is already
    column-major) -- then the permutation's sign times the product of U's diagonal, taken in
    order (PyTorch's prod of a strided diagonal: one serial loop). None: not this route."""
    done = lu_diagonal(a, contiguous)
    if done is None:
        return None
    _, diag, sign = done  # (diag: stride n + 1, NumPy's reduce multiplies it serially)
    with quiet():  # (an overflow to inf or an underflow to 0 is the answer, as PyTorch's, no warning)
        return np.multiply(sign, np.multiply.reduce(diag, axis=-1), dtype=a.dtype)


def cholesky(a: np.ndarray, upper: bool) -> tuple[np.ndarray, np.ndarray] | None:
    """``(flat, view)``: the factor of each matrix of the square batch ``a`` as PyTorch's
    ``linalg.cholesky`` computes it (potrf with uplo 'U' or 'L' on a column-major copy, the
    other triangle zeroed), column-major in a fresh buffer. None: not this route, or a matrix
    that is not positive-definite (potrf's info > 0)."""
    lp = _route(a)
    if lp is None:
        return None
    n = a.shape[-1]
    flat, view = _colmajor_copy(a)
    f = lp.routines[a.dtype.char.replace("f", "s") + "potrf"]
    uplo, nn, info = (b"U" if upper else b"L"), _i64(n), ctypes.c_int64(0)
    for ptr in _matrices(flat, n, n):
        f(uplo, nn, ctypes.c_void_p(ptr), nn, ctypes.byref(info), 1)
        if info.value:
            return None
    # (the other triangle of the column-major buffer: read as (n, n) row-major it is the
    # transpose, so the strictly upper factor's zeros are its strictly lower part. The compiled
    # tri_copy zeroes it row by row in place, +0.0 as the indexed write: ~0.5 ms at 1024 x 1024
    # where the triangle's index arrays and their scattered writes took ~6 ms)
    kern = native.special()
    if kern is None or not kern.tri_copy(None, flat, n, n, 0, upper):
        mats = flat.reshape(-1, n, n)
        rows, cols = np.triu_indices(n, 1) if upper else np.tril_indices(n, -1)
        mats[:, rows, cols] = 0
    return flat, view


def _ptr(arr: np.ndarray | None) -> ctypes.c_void_p:
    return ctypes.c_void_p(None if arr is None else arr.ctypes.data)


def eigh(a: np.ndarray, uplo: str, vectors: bool) -> tuple[np.ndarray, np.ndarray | None] | None:
    """``(w, v)``: the eigenvalues (ascending, ``a``'s dtype) and, with ``vectors``, the
    eigenvectors (a column-major view of a fresh buffer; else None) of each symmetric matrix of
    the square batch ``a`` (its ``uplo`` triangle read), as PyTorch's ``linalg.eigh`` /
    ``eigvalsh`` compute them: ?syevd (jobz 'V' or 'N') on a column-major copy, its workspace
    sizes queried first. ``a`` must be finite (the caller's NaN handling). None: not this route,
    or syevd did not converge."""
    lp = _route(a)
    if lp is None:
        return None
    n = a.shape[-1]
    f = lp.routines[a.dtype.char.replace("f", "s") + "syevd"]
    flat, view = _colmajor_copy(a)
    w = _aligned(int(np.prod(a.shape[:-1])), a.dtype).reshape(a.shape[:-1])
    jobz, lo, nn = (b"V" if vectors else b"N"), (b"L" if uplo == "L" else b"U"), _i64(n)
    info = ctypes.c_int64(0)
    work_q, iwork_q = np.zeros(1, a.dtype), np.zeros(1, np.int64)
    f(jobz, lo, nn, _ptr(flat), nn, _ptr(w), _ptr(work_q), _i64(-1), _ptr(iwork_q), _i64(-1), ctypes.byref(info), 1, 1)
    lwork, liwork = max(1, int(work_q[0])), max(1, int(iwork_q[0]))
    work, iwork = _aligned(lwork, a.dtype), _aligned(liwork, np.int64)
    wm = w.reshape(-1, n)
    for i, ptr in enumerate(_matrices(flat, n, n)):
        f(jobz, lo, nn, ctypes.c_void_p(ptr), nn, _ptr(wm[i]), _ptr(work), _i64(lwork), _ptr(iwork), _i64(liwork),
          ctypes.byref(info), 1, 1)
        if info.value:
            return None
    return w, (view if vectors else None)


def svd(a: np.ndarray, full_matrices: bool, compute_uv: bool) -> Any:
    """``(u, s, vh)`` (u and vh column-major views of fresh buffers), or ``s`` alone without
    ``compute_uv``, of each matrix of the finite batch ``a`` (..., m, n), as PyTorch's
    ``linalg.svd`` / ``svdvals`` compute them: ?gesdd with jobz 'A' (full matrices), 'S' or 'N'
    on a column-major copy, its workspace size queried first. None: not this route, or gesdd
    did not converge."""
    lp = _route(a)
    if lp is None:
        return None
    m, n = a.shape[-2:]
    k = min(m, n)
    batch = a.shape[:-2]
    f = lp.routines[a.dtype.char.replace("f", "s") + "gesdd"]
    flat, _ = _colmajor_copy(a)
    s = _aligned(int(np.prod(batch)) * k, a.dtype).reshape(*batch, k)
    jobz = b"N" if not compute_uv else (b"A" if full_matrices else b"S")
    ucols, vrows = (m, n) if full_matrices else (k, k)
    u = vh = None
    if compute_uv:
        u = _aligned(int(np.prod(batch)) * m * ucols, a.dtype)
        vh = _aligned(int(np.prod(batch)) * vrows * n, a.dtype)
    ldu, ldvt = (m, vrows) if compute_uv else (1, 1)
    iwork = _aligned(8 * k, np.int64)
    info = ctypes.c_int64(0)
    mm, nn = _i64(m), _i64(n)
    work_q = np.zeros(1, a.dtype)
    f(jobz, mm, nn, _ptr(flat), mm, _ptr(s), _ptr(u), _i64(ldu), _ptr(vh), _i64(ldvt), _ptr(work_q), _i64(-1),
      _ptr(iwork), ctypes.byref(info), 1)
    lwork = max(1, int(work_q[0]))
    work = _aligned(lwork, a.dtype)
    sm = s.reshape(-1, k)
    ubase = u.ctypes.data if u is not None else 0
    vbase = vh.ctypes.data if vh is not None else 0
    item = a.itemsize
    for i, ptr in enumerate(_matrices(flat, m, n)):
        up = ctypes.c_void_p(ubase + i * m * ucols * item if u is not None else None)
        vp = ctypes.c_void_p(vbase + i * vrows * n * item if vh is not None else None)
        f(jobz, mm, nn, ctypes.c_void_p(ptr), mm, _ptr(sm[i]), up, _i64(ldu), vp, _i64(ldvt), _ptr(work),
          _i64(lwork), _ptr(iwork), ctypes.byref(info), 1)
        if info.value:
            return None
    if not compute_uv:
        return s
    u_view = u.reshape(*batch, ucols, m).swapaxes(-1, -2)
    vh_view = vh.reshape(*batch, n, vrows).swapaxes(-1, -2)
    return u_view, s, vh_view


def qr(a: np.ndarray, mode: str) -> tuple[np.ndarray | None, np.ndarray] | None:
    """``(q, r)``: the QR factors of each matrix of the batch ``a`` (..., m, n) as PyTorch's
    ``linalg_qr_out`` computes them -- ?geqrf on a column-major copy (its workspace queried
    first), R the copy's upper triangle (below it +0.0), then, unless ``mode`` is 'r', ?orgqr
    (PyTorch's householder product) on Q's column-major buffer: the copy itself where Q is
    (m, n), else Q's own (m, m) buffer holding the copy's first min(m, n) (and for 'complete' of
    m > n, all n) columns, the others zeroed. ``q`` None for mode 'r'; both column-major views of
    fresh buffers. None: not this route."""
    lp = _route(a)
    if lp is None:
        return None
    m, n = a.shape[-2:]
    k = min(m, n)
    batch = a.shape[:-2]
    count = int(np.prod(batch))
    t = a.dtype.char.replace("f", "s")
    geqrf, orgqr = lp.routines[t + "geqrf"], lp.routines[t + "orgqr"]
    flat, view = _colmajor_copy(a)
    tau = _aligned(count * k, a.dtype)
    info = ctypes.c_int64(0)
    mm, nn, kk = _i64(m), _i64(n), _i64(k)
    mats = _matrices(flat, m, n)
    work_q = np.zeros(1, a.dtype)
    geqrf(mm, nn, ctypes.c_void_p(mats[0]), mm, _ptr(tau), _ptr(work_q), _i64(-1), ctypes.byref(info))
    lwork = max(1, int(work_q[0]))  # (PyTorch's static_cast<int>: truncated)
    work = _aligned(lwork, a.dtype)
    item = a.itemsize
    for i, ptr in enumerate(mats):
        geqrf(mm, nn, ctypes.c_void_p(ptr), mm, ctypes.c_void_p(tau.ctypes.data + i * k * item), _ptr(work),
              _i64(lwork), ctypes.byref(info))
    q_cols = 0 if mode == "r" else (m if mode == "complete" else k)
    if q_cols == n or (mode == "r" and m > n):
        # (PyTorch: Q is the workspace, or for 'r' an auxiliary copy; R a fresh (n, n) upper
        # triangle of its first n rows)
        q_flat, q_view = (flat, view) if q_cols else (None, None)
        r_flat = _aligned(count * n * n, a.dtype)
        r_view = r_flat.reshape(*batch, n, n).swapaxes(-1, -2)
        copy_into(r_view, view[..., :n, :])
    else:  # (R is the workspace (m rows); Q (m, m) takes its first min(m, n) columns)
        r_view = view
        q_flat = q_view = None
        if q_cols:
            q_flat = _aligned(count * m * m, a.dtype)
            q_view = q_flat.reshape(*batch, m, m).swapaxes(-1, -2)
            if m > n:
                q_view[..., n:] = 0
            copy_into(q_view[..., :k], view[..., :k])
    rows = r_view.shape[-2]
    r_view[..., np.tri(rows, n, -1, dtype=bool)] = 0
    if q_flat is None:
        return None, r_view
    qm = _matrices(q_flat, m, q_cols)
    qn = _i64(q_cols)
    orgqr(mm, qn, kk, ctypes.c_void_p(qm[0]), mm, _ptr(tau), _ptr(work_q), _i64(-1), ctypes.byref(info))
    lwork = max(1, int(work_q[0]))
    work = _aligned(lwork, a.dtype)
    for i, ptr in enumerate(qm):
        orgqr(mm, qn, kk, ctypes.c_void_p(ptr), mm, ctypes.c_void_p(tau.ctypes.data + i * k * item), _ptr(work),
              _i64(lwork), ctypes.byref(info))
    return q_view, r_view


_LSTSQ: list[Any] = []  # ([the bound drivers or None] once looked for)


def lstsq_library() -> Any:
    """MKL's least-squares drivers (``?gels_64`` ... ``?gelss_64``) bound as
    :class:`._lapack.Lapack` binds NumPy's OpenBLAS ones (the same argument lists: ILP64, every
    argument a pointer), for :func:`._lapack.solve` to call as PyTorch calls them; None: no MKL
    route (or an MKL without them)."""
    if not _LSTSQ:
        cdll = mkl_library()
        found = None
        if cdll is not None:
            from ._lapack import Lapack

            try:
                found = Lapack(cdll, "{}_64")
            except AttributeError:
                found = None
        _LSTSQ.append(found)
    return _LSTSQ[0]
