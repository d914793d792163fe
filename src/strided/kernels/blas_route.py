"""The optional Intel MKL route for float32/float64 matrix products: PyTorch's gemm, bit for bit.

PyTorch's CPU wheel multiplies float32/float64 matrices with the MKL it bundles (its
``addmm_impl_cpu_`` -> ``cpublas::gemm`` -> MKL ``sgemm_``/``dgemm_``); NumPy with its bundled
OpenBLAS. The two libraries block their sums differently, so ~1 product in 4 differs in the last
bits, and OpenBLAS's sgemm is ~1.2x slower than MKL's on the MLP shapes. When the pip ``mkl``
distribution is installed (``pip install strided[mkl]``), this module loads its ``libmkl_rt``
and the products call MKL's gemm the way PyTorch calls it (same column-major arguments, its
``normalize_last_dims``, a bias filled into the result then ``beta = 1`` for addmm/F.linear), so
the bits are PyTorch's (measured: all MLP products, forward and backward, torch 2.13 vs pip MKL
2026.2.1 on AVX-512, and tests/test_mkl37.py passes with 2024.2.0 too -- the version torch 2.13
bundles, which the extras pin; both take MKL's dispatch for this CPU).

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
* The calls are made from the compiled ``_matkernel`` (``mkl_addmm``, ``addmm_mkl`` and its
  small products, the GIL released around the gemm): without it, no MKL route.
* Only results of at least :data:`MIN_ROWS` x :data:`MIN_COLS` (and, batched, :data:`BMM_LOOP`
  multiply-adds per matrix) come here: below, PyTorch takes kernels pip MKL does not reproduce.
* Complex, float16/bfloat16 and integer products never come here.
"""

from __future__ import annotations

import _thread
import os
import sys
from typing import Any

import numpy as np

from .blocked import copy_into

_SEQUENTIAL = 1  # (mkl_service.h: MKL_THREADING_SEQUENTIAL)

# Where MKL's bits are PyTorch's (measured, torch 2.13's bundled MKL 2024.2 vs pip MKL 2026.2.1,
# AVX-512, ~4000 random shapes and transposes): results of at least 8 rows and 4 columns. Below,
# PyTorch's MKL takes other small kernels (a row or column of 1: gemv-like; fewer rows: its
# small-matrix code) whose bits neither pip MKL nor OpenBLAS reproduce: those keep NumPy's path.
MIN_ROWS, MIN_COLS = 8, 4
# PyTorch's bmm runs its own loop (not BLAS) below this many multiply-adds per matrix: batched
# products under it keep NumPy's path
BMM_LOOP = 400

_lock = _thread.allocate_lock()  # (not threading: ``import strided`` stays without it)
_ADDMM_C: list[Any] = [None]  # the compiled mkl_addmm once MKL is loaded (for linear_bias's short path)
_ADDMM_T: list[Any] = [None]  # the compiled addmm_mkl (tensors in, a tensor out) once MKL is loaded
_state: list[Any] = []  # [] undecided; [None] no MKL route; [_Mkl] loaded


class _Mkl:
    """The loaded library; its two ILP64 gemm entry points handed to the compiled ``_matkernel``
    (which makes the calls, the GIL released around them)."""

    def __init__(self, path: str) -> None:
        import ctypes  # (here: ``import strided`` stays without it)

        self.path = path
        self.cdll = ctypes.CDLL(path, mode=ctypes.RTLD_LOCAL)
        if "MKL_THREADING_LAYER" not in os.environ:
            self.cdll.MKL_Set_Threading_Layer.argtypes = [ctypes.c_int]
            self.cdll.MKL_Set_Threading_Layer(_SEQUENTIAL)
        self.addresses = tuple(ctypes.cast(getattr(self.cdll, n), ctypes.c_void_p).value or 0
                               for n in ("cblas_sgemm_64", "cblas_dgemm_64"))
        # (the calls are made from C: ~1 us, where ctypes' took ~10 us)
        from .native import _compiled

        k = _compiled("_matkernel")
        if k is None or not hasattr(k, "mkl_addmm"):
            raise OSError("the compiled _matkernel (its MKL calls) is not built")
        k.mkl_setup(*self.addresses, MIN_ROWS, MIN_COLS)
        _ADDMM_C[0] = k.mkl_addmm
        _ADDMM_T[0] = k.addmm_mkl

    def version(self) -> str:
        """MKL's version string."""
        import ctypes

        buf = ctypes.create_string_buffer(256)
        self.cdll.MKL_Get_Version_String(buf, 256)
        return buf.value.decode(errors="replace")


def _candidates() -> list[str]:
    """Where ``libmkl_rt`` may be: the ``mkl`` distribution's files, then ``sys.prefix/lib``."""
    import glob
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


def _blasable(m: np.ndarray) -> bool:
    """Whether PyTorch's addmm_impl_cpu_ hands 2-D ``m`` to BLAS as it is (row-major with a leading
    dimension of at least its columns, or the transpose of one), not a contiguous clone."""
    it = m.itemsize
    s0, s1 = m.strides
    r, c = m.shape
    return (s1 == it and s0 % it == 0 and s0 // it >= max(1, c)) or (s0 == it and s1 % it == 0 and s1 // it >= max(1, r))


def addmm_into(c: np.ndarray, a: np.ndarray, b: np.ndarray, alpha: float = 1.0, beta: float = 0.0) -> bool:
    """``c = alpha * (a @ b) + beta * c`` for 2-D float32/float64 arrays of one dtype, ``c`` a
    C-contiguous (n, p) array (already holding the input, for ``beta != 0``), by MKL's gemm called
    as PyTorch's ``addmm_impl_cpu_`` calls it (the compiled ``_matkernel.mkl_addmm``: its
    column-major view of the result, the operands' transpose flags and leading dimensions from
    their strides, ``cpublas::normalize_last_dims``), an operand BLAS cannot take as it is first
    copied row-major (PyTorch's contiguous clone). False (nothing written) without MKL or outside
    :data:`MIN_ROWS` x :data:`MIN_COLS` (the caller's NumPy path)."""
    if lib() is None:
        return False
    f = _ADDMM_C[0]
    if f(c, a, b, alpha, beta):
        return True
    if a.ndim != 2 or b.ndim != 2 or (_blasable(a) and _blasable(b)):
        return False  # (declined for another reason: the caller's path)
    return bool(f(c, a if _blasable(a) else rowmajor_copy(a), b if _blasable(b) else rowmajor_copy(b), alpha, beta))


def rowmajor_copy(x: np.ndarray) -> np.ndarray:
    """A fresh C-contiguous copy of ``x`` (PyTorch's ``contiguous()`` clone of an operand BLAS
    cannot take): the same values as ``np.ascontiguousarray``'s, by the blocked copy
    (:func:`~strided.kernels.blocked.copy_into`), which reads a transposed or interleaved
    operand in tiles: (512, 512) float32 with strides (16, 8192) bytes 0.3 ms where NumPy's
    element walk took 0.9 ms."""
    out = np.empty(x.shape, x.dtype)
    copy_into(out, x)
    return out


def applies(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether :func:`matmul` takes ``a @ b`` (MKL loaded on the first ask): float32/float64 of
    one dtype, at least 2-D, a non-empty contraction, a result of at least
    :data:`MIN_ROWS` x :data:`MIN_COLS` per matrix (batched: :data:`BMM_LOOP` multiply-adds)."""
    return (a.ndim >= 2 and b.ndim >= 2 and a.dtype == b.dtype and _f32_f64(a.dtype) and a.shape[-1] == b.shape[-2]
            and a.shape[-1] > 0 and a.shape[-2] >= MIN_ROWS and b.shape[-1] >= MIN_COLS
            and (a.ndim == 2 and b.ndim == 2 or a.shape[-2] * a.shape[-1] * b.shape[-1] >= BMM_LOOP)
            and lib() is not None)


def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray | None:
    """``a @ b`` as a fresh C-contiguous array where :func:`applies` (batch dims broadcast as
    NumPy's matmul broadcasts them), by MKL's gemm per matrix as PyTorch's mm/bmm call it
    (:func:`addmm_into`); else None (the caller's NumPy path)."""
    if not applies(a, b):
        return None
    if a.ndim == 2 and b.ndim == 2:
        out = np.empty((a.shape[0], b.shape[1]), a.dtype)
        addmm_into(out, a, b)
        return out
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    out = np.empty((*batch, a.shape[-2], b.shape[-1]), a.dtype)
    if not out.size:
        return out
    if not batch:
        addmm_into(out, a, b)
        return out
    # (an operand of the result's batch whose matrices BLAS cannot take as they are: copied
    # row-major whole, one blocked copy where addmm_into would copy each matrix: the same values)
    first = (0,) * len(batch)
    if a.shape[:-2] == batch and not _blasable(a[first]):
        a = rowmajor_copy(a)
    if b.shape[:-2] == batch and not _blasable(b[first]):
        b = rowmajor_copy(b)
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
        copy_into(out, input)  # (blocked: a transposed input's copy in tiles, not NumPy's element walk)
    f = _ADDMM_C[0]
    if f is None or not f(out, a, b, alpha, beta):  # (the compiled call; else the general one)
        addmm_into(out, a, b, alpha, beta)
    return out


def linear_bias(x: np.ndarray, wt: np.ndarray, bias: np.ndarray) -> np.ndarray | None:
    """F.linear's ``addmm(bias, x, w.t())`` on the MKL route in few steps (it runs for every
    layer's call): ``x`` (n, k) and ``wt`` (k, m) 2-D, ``bias`` (m,), all of one float32/float64
    dtype (the caller checked): a fresh (n, m) result filled with the bias, then the compiled
    gemm with beta 1; None without the compiled MKL call or outside the route (the caller's
    path)."""
    if not _state:
        lib()
    f = _ADDMM_C[0]
    if f is None or x.shape[0] < MIN_ROWS or wt.shape[1] < MIN_COLS:
        return None
    out = np.empty((x.shape[0], wt.shape[1]), x.dtype)
    out[...] = bias
    return out if f(out, x, wt, 1.0, 1.0) else None


def addmm_tensors(input: Any, mat1: Any, mat2: Any, beta: Any, alpha: Any) -> Any:  # noqa: A002
    """PyTorch's addmm on the MKL route in one compiled call (``_matkernel.addmm_mkl``: row-major
    or transposed operands, a row-major (m, p) or contiguous (p,) input; strided's products set
    up first) as a fresh tensor; None where it does not apply."""
    if not _state:
        lib()
    f = _ADDMM_T[0]
    return None if f is None else f(input, mat1, mat2, beta, alpha)
