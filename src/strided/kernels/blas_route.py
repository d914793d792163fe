"""The optional Intel MKL route for float32/float64 matrix products: PyTorch's gemm, bit for bit.

PyTorch's CPU wheel multiplies float32/float64 matrices with the MKL it bundles (its
``addmm_impl_cpu_`` -> ``cpublas::gemm`` -> MKL ``sgemm_``/``dgemm_``); NumPy with its bundled
OpenBLAS. The two libraries block their sums differently, so ~1 product in 4 differs in the last
bits, and OpenBLAS's sgemm is ~1.2x slower than MKL's on the MLP shapes. When the pip ``mkl``
distribution is installed (``pip install strided[mkl]``), this module loads its ``libmkl_rt``
and the products call MKL's gemm the way PyTorch calls it (same column-major arguments, its
``normalize_last_dims``, a bias filled into the result then ``beta = 1`` for addmm/F.linear), so
the bits are PyTorch's (measured: all MLP products, forward and backward, torch 2.13 vs pip MKL
2026.2.1 on AVX-512; both take MKL's dispatch for this CPU).

Choices (each says why):

* Lazy: nothing is loaded by ``import strided``; :func:`lib` loads MKL at the first product that
  may use it (~tens of ms, once). Found through ``importlib.metadata`` (the ``mkl``
  distribution's ``libmkl_rt.so*``), else ``sys.prefix/lib``. ``ctypes.CDLL`` with RTLD_LOCAL:
  its symbols never interpose on torch's (statically linked) MKL or NumPy's OpenBLAS.
* ILP64 entry points (``cblas_sgemm_64``/``cblas_dgemm_64``): 64-bit sizes like NumPy's OpenBLAS
  that ``_matkernel``'s C calls already use, so the same C call sites take either library.
* Threads: MKL's SEQUENTIAL layer unless ``MKL_THREADING_LAYER`` is set (then MKL reads it
  itself). SEQUENTIAL loads no OpenMP runtime, so a process holding torch's libgomp never gets a
  second OpenMP (Intel's libiomp5) beside it -- the known crash/oversubscription -- and strided's
  products run on the calling thread like every other strided kernel. The bits do not depend on
  the layer or the thread count on this machine (MKL splits gemm over rows/columns, never the
  sum): tests/test_mkl37.py checks 1 vs 2 threads of the INTEL layer in a subprocess.
  ``MKL_NUM_THREADS`` is honoured as MKL reads it (it only matters with a threaded layer).
* ``MKL_CBWR`` is not set: PyTorch's bits come from MKL's automatic dispatch on the same CPU.
* ``STRIDED_BLAS=openblas`` forces NumPy's OpenBLAS path (today's bits, NumPy's) even with MKL
  installed; ``STRIDED_NATIVE=0`` does too (no compiled kernels: the NumPy reference path).
  MKL absent: the OpenBLAS path, silently.
* Complex, float16/bfloat16 and integer products never come here.
"""

from __future__ import annotations

import glob
import os
import sys
import threading
from typing import Any

import numpy as np

_ROW_MAJOR, _COL_MAJOR, _NO_TRANS, _TRANS = 101, 102, 111, 112  # (cblas.h's values)
_SEQUENTIAL = 1  # (mkl_service.h: MKL_THREADING_SEQUENTIAL)

# Where MKL's bits are PyTorch's (measured, torch 2.13's bundled MKL 2024.2 vs pip MKL 2026.2.1,
# AVX-512, ~4000 random shapes and transposes): results of at least 8 rows and 4 columns. Below,
# PyTorch's MKL takes other small kernels (a row or column of 1: gemv-like; fewer rows: its
# small-matrix code) whose bits neither pip MKL nor OpenBLAS reproduce: those keep NumPy's path.
MIN_ROWS, MIN_COLS = 8, 4

_lock = threading.Lock()
_state: list[Any] = []  # [] undecided; [None] no MKL route; [_Mkl] loaded


class _Mkl:
    """The loaded library and its two ILP64 gemm entry points (ctypes, GIL released per call)."""

    def __init__(self, path: str) -> None:
        import ctypes  # (here: ``import strided`` stays without it)

        self.path = path
        self.cdll = ctypes.CDLL(path, mode=ctypes.RTLD_LOCAL)
        if "MKL_THREADING_LAYER" not in os.environ:
            self.cdll.MKL_Set_Threading_Layer.argtypes = [ctypes.c_int]
            self.cdll.MKL_Set_Threading_Layer(_SEQUENTIAL)
        i, i64, p = ctypes.c_int, ctypes.c_int64, ctypes.c_void_p
        self.gemm = {}
        for name, scalar, dt in (("cblas_sgemm_64", ctypes.c_float, np.dtype(np.float32)),
                                 ("cblas_dgemm_64", ctypes.c_double, np.dtype(np.float64))):
            f = getattr(self.cdll, name)
            f.argtypes = [i, i, i, i64, i64, i64, scalar, p, i64, p, i64, scalar, p, i64]
            f.restype = None
            self.gemm[dt] = f
        self.addresses = tuple(ctypes.cast(getattr(self.cdll, n), ctypes.c_void_p).value or 0
                               for n in ("cblas_sgemm_64", "cblas_dgemm_64"))

    def version(self) -> str:
        """MKL's version string."""
        import ctypes

        buf = ctypes.create_string_buffer(256)
        self.cdll.MKL_Get_Version_String(buf, 256)
        return buf.value.decode(errors="replace")


def _candidates() -> list[str]:
    """Where ``libmkl_rt`` may be: the ``mkl`` distribution's files, then ``sys.prefix/lib``."""
    found: list[str] = []
    try:
        from importlib.metadata import PackageNotFoundError, distribution

        try:
            dist = distribution("mkl")
            for f in dist.files or ():
                if os.path.basename(str(f)).startswith("libmkl_rt.so"):
                    found.append(os.path.normpath(str(dist.locate_file(f))))
        except PackageNotFoundError:
            pass
    except ImportError:  # pragma: no cover
        pass
    found += sorted(glob.glob(os.path.join(sys.prefix, "lib", "libmkl_rt.so*")), reverse=True)
    return found


def enabled_by_environment() -> bool:
    """Whether the environment allows the MKL route (``STRIDED_BLAS`` not ``openblas``,
    ``STRIDED_NATIVE`` not ``0``)."""
    return (os.environ.get("STRIDED_BLAS", "").strip().lower() != "openblas"
            and os.environ.get("STRIDED_NATIVE", "1") != "0")


def lib() -> _Mkl | None:
    """The loaded MKL (loading it at the first call), or None: switched off, not installed, or
    not loadable (then silently NumPy's OpenBLAS, as without MKL)."""
    if _state:
        return _state[0]
    with _lock:
        if not _state:
            mkl = None
            if enabled_by_environment() and sys.platform.startswith("linux"):
                for path in _candidates():
                    if os.path.exists(path):
                        try:
                            mkl = _Mkl(path)
                            break
                        except (OSError, AttributeError):
                            continue
            _state.append(mkl)
    return _state[0]


def _f32_f64(dt: np.dtype) -> bool:
    return dt == np.float32 or dt == np.float64


def _elem_strides(m: np.ndarray) -> tuple[int, int] | None:
    """A 2-D array's strides in elements (None: a byte stride that is not a whole element)."""
    it = m.itemsize
    s0, s1 = m.strides
    return None if s0 % it or s1 % it else (s0 // it, s1 // it)


def addmm_into(c: np.ndarray, a: np.ndarray, b: np.ndarray, alpha: float = 1.0, beta: float = 0.0) -> bool:
    """``c = alpha * (a @ b) + beta * c`` for 2-D float32/float64 arrays of one dtype, ``c`` a
    C-contiguous (n, p) array (already holding the input, for ``beta != 0``), by MKL's gemm called
    as PyTorch's ``addmm_impl_cpu_`` calls it: its column-major view of the result (a row-major
    result, p > 1, is computed transposed: ``a`` and ``b`` swapped), each operand used as it is
    (column-major in that view), transposed, or as a contiguous copy (PyTorch's clone, then its
    forced flag), the leading dimensions from the strides, ``cpublas::normalize_last_dims``, then
    ``?gemm``. False (nothing written) without MKL, where PyTorch calls no BLAS (a size 0) or
    outside :data:`MIN_ROWS` x :data:`MIN_COLS` (the caller's NumPy path)."""
    mkl = lib()
    if mkl is None or not _f32_f64(c.dtype) or a.dtype != c.dtype or b.dtype != c.dtype:
        return False
    n, k = a.shape
    p = b.shape[1]
    if k == 0 or n < MIN_ROWS or p < MIN_COLS or not c.flags.c_contiguous or c.shape != (n, p):
        return False
    sa, sb = _elem_strides(a), _elem_strides(b)
    if sa is None:
        a, sa = np.ascontiguousarray(a), (max(k, 1), 1)
    if sb is None:
        b, sb = np.ascontiguousarray(b), (max(p, 1), 1)
    # the result's strides (PyTorch's contiguous (max(p, 1), 1)) put it in the first case
    # (column-major as it is) only for p == 1; else its transpose is column-major
    transpose_c = p != 1
    if transpose_c:
        m1, s1, m2, s2 = b, sb, a, sa
        mm, nn, kk, ldc = p, n, k, p
        i0, i1 = 1, 0
    else:
        m1, s1, m2, s2 = a, sa, b, sb
        mm, nn, kk, ldc = n, p, k, 1
        i0, i1 = 0, 1
    # (PyTorch's "cast m1 as matrix a": lda >= max(1, transposed ? k : m))
    if s1[i0] == 1 and s1[i1] >= max(1, mm):
        ta = False
    elif s1[i1] == 1 and s1[i0] >= max(1, kk):
        ta = True
    else:
        ta, m1 = not transpose_c, np.ascontiguousarray(m1)
        s1 = (max(m1.shape[1], 1), 1)
    lda = s1[1 if ta == transpose_c else 0]
    if s2[i0] == 1 and s2[i1] >= max(1, kk):
        tb = False
    elif s2[i1] == 1 and s2[i0] >= max(1, nn):
        tb = True
    else:
        tb, m2 = not transpose_c, np.ascontiguousarray(m2)
        s2 = (max(m2.shape[1], 1), 1)
    ldb = s2[1 if tb == transpose_c else 0]
    # cpublas::normalize_last_dims
    if nn == 1:
        ldc = mm
    if ta:
        if mm == 1:
            lda = kk
    elif kk == 1:
        lda = mm
    if tb:
        if kk == 1:
            ldb = nn
    elif nn == 1:
        ldb = kk
    mkl.gemm[c.dtype](_COL_MAJOR, _TRANS if ta else _NO_TRANS, _TRANS if tb else _NO_TRANS, mm, nn, kk,
                      alpha, m1.ctypes.data, lda, m2.ctypes.data, ldb, beta, c.ctypes.data, ldc)
    return True


def applies(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether :func:`matmul` takes ``a @ b`` (MKL loaded on the first ask): float32/float64 of
    one dtype, at least 2-D, a non-empty contraction, a result of at least
    :data:`MIN_ROWS` x :data:`MIN_COLS` per matrix."""
    return (a.ndim >= 2 and b.ndim >= 2 and a.dtype == b.dtype and _f32_f64(a.dtype) and a.shape[-1] == b.shape[-2]
            and a.shape[-1] > 0 and a.shape[-2] >= MIN_ROWS and b.shape[-1] >= MIN_COLS and lib() is not None)


def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray | None:
    """``a @ b`` as a fresh C-contiguous array where :func:`applies` (batch dims broadcast as
    NumPy's matmul broadcasts them), by MKL's gemm per matrix as PyTorch's mm/bmm call it
    (:func:`addmm_into`); else None (the caller's NumPy path)."""
    if not applies(a, b):
        return None
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    out = np.empty((*batch, a.shape[-2], b.shape[-1]), a.dtype)
    if not out.size:
        return out
    if not batch:
        addmm_into(out, a, b)
        return out
    aa = np.broadcast_to(a, (*batch, *a.shape[-2:]))
    bb = np.broadcast_to(b, (*batch, *b.shape[-2:]))
    for idx in np.ndindex(*batch):
        addmm_into(out[idx], aa[idx], bb[idx])
    return out


def addmm(input: np.ndarray, a: np.ndarray, b: np.ndarray, alpha: float = 1.0,  # noqa: A002
          beta: float = 1.0) -> np.ndarray | None:
    """PyTorch's ``addmm(input, a, b, beta=, alpha=)`` (F.linear with a bias: ``addmm(bias, x,
    w.t())``) on the MKL route: a fresh C-contiguous (n, p) result holding ``input`` broadcast
    (PyTorch's ``result.copy_(self)``, for ``beta != 0``), then one gemm with ``alpha`` and
    ``beta`` -- not the product rounded, then the input added. None where :func:`applies` does
    not hold for 2-D ``a`` and ``b``, or ``input`` (of their dtype) does not broadcast."""
    if a.ndim != 2 or b.ndim != 2 or input.dtype != a.dtype or not applies(a, b):
        return None
    out = np.empty((a.shape[0], b.shape[1]), a.dtype)
    if beta != 0:
        if input.ndim > 2 or not all(s in (1, t) for s, t in zip(input.shape[::-1], out.shape[::-1], strict=False)):
            return None
        out[...] = input
    addmm_into(out, a, b, alpha, beta)
    return out
