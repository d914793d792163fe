"""PyTorch's CPU least-squares drivers, LAPACK's xGELS / xGELSY / xGELSD / xGELSS, called through
ctypes in the OpenBLAS that NumPy's wheel bundles (``numpy.libs/libscipy_openblas64_*``).

NumPy's ``linalg`` exposes none of them (its ``lstsq`` is gelsd without the rank threshold
PyTorch passes, and no QR driver). PyTorch calls the Fortran routines matrix by matrix on
column-major copies (``apply_lstsq`` in ATen's BatchLinearAlgebraKernel.cpp); so does
:func:`solve`, with the same arguments: ``rcond`` as given, ``jpvt`` zeroed before every gelsy
call, the workspaces sized by one query. PyTorch's LAPACK is MKL's, this one OpenBLAS's
reference code: the same algorithms, so the same ranks and the same solutions to within their
rounding (which a rank decision on the threshold's edge can still turn).

The binding is made on first use (``import strided`` loads neither ctypes nor the library).
Only the scipy-openblas ILP64 build is bound, whose symbols say their integer width
(``scipy_sgelsy_64_``: 64-bit integers); another NumPy build gives :func:`library` ``None`` and
the caller keeps its SVD (see ``linalg_lstsq``).

>>> library() is None or sorted(library().routines)[:2] == ['cgels', 'cgelsd']
True
"""

from __future__ import annotations

import ctypes
import glob
import math
import os
from typing import Any

import numpy as np

__all__ = ["Lapack", "library", "solve"]

_LETTER = {np.dtype(np.float32): "s", np.dtype(np.float64): "d", np.dtype(np.complex64): "c",
           np.dtype(np.complex128): "z"}
_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")
# the arguments (after M, N, NRHS, A, LDA, B, LDB) of each driver, LAPACK 3's order; "rwork"
# only in the complex routines
_TAIL = {"gels": ("work", "lwork", "info"),
         "gelsy": ("jpvt", "rcond", "rank", "work", "lwork", "rwork", "info"),
         "gelsd": ("s", "rcond", "rank", "work", "lwork", "rwork", "iwork", "info"),
         "gelss": ("s", "rcond", "rank", "work", "lwork", "rwork", "info")}


class Lapack:
    """The bound routines of the library at ``path``: ``routines['sgelsy']`` is the ctypes
    function of the Fortran ``SGELSY`` named ``symbol.format('sgelsy')``, which must take 64-bit
    integers (every argument a pointer; gels's TRANS adds its hidden length, a size_t)."""

    def __init__(self, path: str, symbol: str = "scipy_{}_64_") -> None:
        lib = ctypes.CDLL(path)  # (NumPy has loaded it already: the same handle, nothing run)
        self.path = path
        self.routines: dict[str, Any] = {}
        for letter in "sdcz":
            for driver in _DRIVERS:
                fn = getattr(lib, symbol.format(letter + driver))  # (AttributeError: not this build)
                tail = _TAIL[driver] if letter in "cz" else tuple(x for x in _TAIL[driver] if x != "rwork")
                count = 7 + len(tail) + (1 if driver == "gels" else 0)
                fn.argtypes = [ctypes.c_void_p] * count + ([ctypes.c_size_t] if driver == "gels" else [])
                fn.restype = None
                self.routines[letter + driver] = fn


_LIBRARY: list = []  # ([Lapack or None] once looked for)


def library() -> Lapack | None:
    """The bound LAPACK of NumPy's bundled scipy-openblas (ILP64), or ``None`` where this NumPy
    has none (another build: a system BLAS, a 32-bit-integer OpenBLAS, Accelerate)."""
    if not _LIBRARY:
        _LIBRARY.append(_find())
    return _LIBRARY[0]


def _find() -> Lapack | None:
    try:
        deps = np.__config__.CONFIG["Build Dependencies"]["lapack"]
    except (AttributeError, KeyError, TypeError):
        return None
    # (the integer width is the one thing ctypes cannot check: only a build that says it is
    # ILP64, whose symbols also carry the 64_ suffix, is bound)
    if deps.get("name") != "scipy-openblas" or "USE64BITINT" not in str(deps.get("openblas configuration", "")):
        return None
    root = os.path.dirname(os.path.dirname(os.path.abspath(np.__file__)))
    here = os.path.dirname(os.path.abspath(np.__file__))
    for pattern in (os.path.join(root, "numpy.libs", "libscipy_openblas64_*"),
                    os.path.join(here, ".dylibs", "libscipy_openblas64_*")):
        for path in sorted(glob.glob(pattern)):
            try:
                return Lapack(path)
            except (OSError, AttributeError):
                continue
    return None


def _work_size(value: Any) -> int:
    """PyTorch's ``lapack_work_to_int``: a queried size (a float) rounded up past its last ulp."""
    real = np.real(value)
    return max(1, math.ceil(float(np.nextafter(real, np.inf))))


def solve(lapack: Lapack, a: np.ndarray, b: np.ndarray, rcond: float, driver: str) -> tuple:
    """``driver`` on each matrix of ``a`` (..., m, n) with ``b`` (..., m, k) of the same batch
    (none of m, n, k zero), as PyTorch's ``apply_lstsq``: ``(x, rank, s, info)``, ``x``
    (..., max(m, n), k) LAPACK's B on return (the solution in its first n rows, for m > n the
    residual's components in the rest), ``rank`` (...) int64 (zeros for gels), ``s`` (...,
    min(m, n)) the singular values (zeros but for gelsd and gelss), ``info`` (...) LAPACK's
    INFO (> 0: gels met an exactly singular triangle, gelsd/gelss's SVD did not converge)."""
    dtype = a.dtype
    letter = _LETTER[dtype]
    fn = lapack.routines[letter + driver]
    complex_ = letter in "cz"
    real = np.dtype(np.float32 if letter in "sc" else np.float64)
    batch = a.shape[:-2]
    m, n = a.shape[-2:]
    k = b.shape[-1]
    rows = max(m, n)
    count = math.prod(batch)
    # column-major copies, each matrix its own (LAPACK overwrites A): the transposes, row-major
    af = np.empty((count, n, m), dtype)
    af[...] = a.reshape((count, m, n)).swapaxes(-1, -2)
    bf = np.zeros((count, k, rows), dtype)
    bf[:, :, :m] = b.reshape((count, m, k)).swapaxes(-1, -2)
    ints = np.array([m, n, k, max(1, m), max(1, rows), -1, 0, 0], np.int64)  # M N NRHS LDA LDB LWORK RANK INFO
    at = ints.ctypes.data
    p_m, p_n, p_k, p_lda, p_ldb, p_lwork, p_rank, p_info = (at + 8 * i for i in range(8))  # (their addresses)
    rc = np.array([rcond], real)
    s = np.zeros((count, min(m, n)), real)
    jpvt = np.zeros(max(1, n), np.int64)
    trans = ctypes.create_string_buffer(b"N")
    probe, rprobe, iprobe = np.zeros(1, dtype), np.zeros(1, real), np.zeros(1, np.int64)

    # the argument list, the workspaces' places holding the query's 1-element probes
    given = {"m": p_m, "n": p_n, "nrhs": p_k, "a": af.ctypes.data, "lda": p_lda, "b": bf.ctypes.data, "ldb": p_ldb,
             "jpvt": jpvt.ctypes.data, "rcond": rc.ctypes.data, "rank": p_rank, "work": probe.ctypes.data,
             "lwork": p_lwork, "rwork": rprobe.ctypes.data, "iwork": iprobe.ctypes.data, "info": p_info,
             "s": s.ctypes.data, "trans": ctypes.addressof(trans), "trans_len": 1}
    names = ["m", "n", "nrhs", "a", "lda", "b", "ldb"] + [x for x in _TAIL[driver] if complex_ or x != "rwork"]
    if driver == "gels":  # (TRANS first; gfortran's hidden length of a CHARACTER argument last)
        names = ["trans", *names, "trans_len"]
    args = [given[x] for x in names]
    at_a, at_b = names.index("a"), names.index("b")
    at_s = names.index("s") if "s" in names else None
    # the workspace query (lwork = -1) on the first matrix, which it leaves untouched
    fn(*args)
    if ints[7] != 0:
        raise RuntimeError(f"{letter}{driver} workspace query: INFO {int(ints[7])}")  # (a bug here, not the input)
    ints[5] = _work_size(probe[0])
    work = np.empty(int(ints[5]), dtype)
    if not complex_ or driver == "gels":
        rwork = rprobe
    elif driver == "gelsy":
        rwork = np.empty(max(1, 2 * n), real)
    elif driver == "gelss":
        rwork = np.empty(max(1, 5 * min(m, n)), real)
    else:  # (gelsd: its query's answer)
        rwork = np.empty(max(1, int(rprobe[0])), real)
    iwork = np.empty(max(1, int(iprobe[0])), np.int64) if driver == "gelsd" else iprobe
    for name, arr in (("work", work), ("rwork", rwork), ("iwork", iwork)):
        if name in names:
            args[names.index(name)] = arr.ctypes.data
    rank = np.zeros(count, np.int64)
    info = np.zeros(count, np.int64)
    a0, b0, s0 = af.ctypes.data, bf.ctypes.data, s.ctypes.data
    a_step, b_step, s_step = af.strides[0], bf.strides[0], s.strides[0]
    gelsy = driver == "gelsy"
    for i in range(count):
        if gelsy:
            jpvt.fill(0)  # (input: nonzero marks a column fixed in front; PyTorch zeroes it each call)
        ints[6:8] = 0
        args[at_a], args[at_b] = a0 + i * a_step, b0 + i * b_step
        if at_s is not None:
            args[at_s] = s0 + i * s_step
        fn(*args)
        rank[i], info[i] = ints[6], ints[7]
    if (info < 0).any():  # (an argument LAPACK refuses: a bug here, never the input)
        raise RuntimeError(f"{letter}{driver}: argument {-int(info.min())} has an illegal value")
    x = bf.swapaxes(-1, -2).reshape(batch + (rows, k))
    return x, rank.reshape(batch), s.reshape(batch + (min(m, n),)), info.reshape(batch)
