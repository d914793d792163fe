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
import math
import struct
from typing import Any

import numpy as np

from .matkernel import openblas_paths

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

    def __init__(self, path: str | ctypes.CDLL, symbol: str = "scipy_{}_64_") -> None:
        # (a path: NumPy has loaded it already, the same handle, nothing run; or a loaded library)
        lib = path if isinstance(path, ctypes.CDLL) else ctypes.CDLL(path)
        self.path = lib._name
        # (MKL's kernels take another path, other bits, on another alignment: PyTorch's buffers
        # start on 64 bytes, so its arenas do; NumPy's OpenBLAS keeps NumPy's allocation)
        self.aligned = isinstance(path, ctypes.CDLL)
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
    for path in openblas_paths("lapack"):
        try:
            return Lapack(path)
        except (OSError, AttributeError):
            continue
    return None


def _work_size(value: Any) -> int:
    """PyTorch's ``lapack_work_to_int``: a queried size (a float) rounded up past its last ulp."""
    real = np.real(value)
    return max(1, math.ceil(float(np.nextafter(real, np.inf))))


# a plan per (routine, m, n, k, count): the arena's layout and the driver's argument list in it
_PLANS: dict[tuple, tuple] = {}
_HEAD = {"s": "<8qf4xc", "d": "<8qdc", "c": "<8qf4xc", "z": "<8qdc"}  # M N NRHS LDA LDB LWORK RANK INFO, RCOND, TRANS


def _plan(names: list, dtype: np.dtype, real: np.dtype, m: int, n: int, k: int,
          count: int, sizes: tuple) -> tuple:
    """How :func:`solve` lays out one zeroed allocation (the arena) holding every array a driver
    call is given, so that one address lookup (``ndarray.ctypes.data`` costs ~1 us) serves all:
    ``(nbytes, offsets, at_a, at_b, at_s, lwork, place)``: ``offsets`` the arguments' places (bytes from
    the arena's start; gels's TRANS length, the last, is 1 there and then), ``at_x`` the index of
    A, B and S in them (None: not an argument), ``lwork`` the workspace's length, ``place`` every
    array's offset by name. The
    arena: the header (``_HEAD``'s integers, RCOND, TRANS) at 0, then on 64-byte boundaries
    JPVT, S (count, min(m, n)), A (count, n, m), B (count, k, max(m, n)) (the matrices'
    column-major copies, row-major transposes), WORK, RWORK, IWORK, of ``sizes`` (LWORK, its
    real and its integer workspace's lengths) elements."""
    lwork, lrwork, liwork = sizes
    nbytes = (8 * max(1, n), real.itemsize * count * min(m, n), dtype.itemsize * count * n * m,
              dtype.itemsize * count * k * max(m, n), dtype.itemsize * lwork, real.itemsize * lrwork, 8 * liwork)
    place, at = {"m": 0, "n": 8, "nrhs": 16, "lda": 24, "ldb": 32, "lwork": 40, "rank": 48, "info": 56,
                 "rcond": 64, "trans": 72, "trans_len": 1}, 128
    for name, size in zip(("jpvt", "s", "a", "b", "work", "rwork", "iwork"), nbytes):
        place[name] = at
        at += -(-size // 64) * 64
    index = {x: i for i, x in enumerate(names)}
    return at, [place[x] for x in names], index["a"], index["b"], index.get("s"), lwork, place


_SIZES: dict[tuple, tuple] = {}  # (routine, m, n, k) -> the workspace query's (lwork, lrwork, liwork)


def _query(fn: Any, routine: str, names: list, dtype: np.dtype, real: np.dtype, m: int, n: int, k: int) -> tuple:
    """The workspaces' lengths (LWORK, real, integer) for ``routine`` on m x n matrices with k
    right-hand sides: LAPACK's query (LWORK = -1, 1-element workspaces; it reads neither A nor
    B), PyTorch's sizes of the workspaces it does not ask about."""
    nbytes, offsets, _, _, _, _, place = _plan(names, dtype, real, m, n, k, 1, (1, 1, 1))
    arena = np.zeros(nbytes, np.uint8)
    struct.pack_into(_HEAD[routine[0]], arena, 0, m, n, k, max(1, m), max(1, max(m, n)), -1, 0, 0, 0.0, b"N")
    at = arena.ctypes.data
    fn(*[at + x if name != "trans_len" else 1 for name, x in zip(names, offsets)])
    info = struct.unpack_from("<q", arena, 56)[0]
    if info != 0:
        raise RuntimeError(f"{routine} workspace query: INFO {info}")  # (a bug here, not the input)
    work = arena[place["work"]:].view(dtype)[0]
    driver = routine[1:]
    if routine[0] in "sd" or driver == "gels":
        lrwork = 1
    elif driver == "gelsy":
        lrwork = max(1, 2 * n)
    elif driver == "gelss":
        lrwork = max(1, 5 * min(m, n))
    else:  # (gelsd: its query's answer)
        lrwork = max(1, int(arena[place["rwork"]:].view(real)[0]))
    liwork = max(1, int(arena[place["iwork"]:].view(np.int64)[0])) if driver == "gelsd" else 1
    return _work_size(work), lrwork, liwork


def solve(lapack: Lapack, a: np.ndarray, b: np.ndarray, rcond: float, driver: str) -> tuple:
    """``driver`` on each matrix of ``a`` (..., m, n) with ``b`` (..., m, k) of the same batch
    (none of m, n, k zero), as PyTorch's ``apply_lstsq``: ``(x, rank, s, info)``, ``x``
    (..., max(m, n), k) LAPACK's B on return (the solution in its first n rows, for m > n the
    residual's components in the rest), ``rank`` (...) int64 (zeros for gels), ``s`` (...,
    min(m, n)) the singular values (zeros but for gelsd and gelss), ``info`` (...) LAPACK's
    INFO (> 0: gels met an exactly singular triangle, gelsd/gelss's SVD did not converge).

    The workspace query (LWORK = -1) runs once per routine, (m, n, k) and batch size: its answer
    depends on the dimensions alone (LAPACK sizes the work from them and its block sizes), so
    later calls are given the same LWORK, and give the same results, without it."""
    dtype = a.dtype
    letter = _LETTER[dtype]
    routine = letter + driver
    fn = lapack.routines[routine]
    real = np.dtype(np.float32 if letter in "sc" else np.float64)
    batch = a.shape[:-2]
    m, n = a.shape[-2:]
    k = b.shape[-1]
    rows = max(m, n)
    count = math.prod(batch)
    key = (routine, m, n, k, count)
    plan = _PLANS.get(key)
    if plan is None:
        names = ["m", "n", "nrhs", "a", "lda", "b", "ldb"] + [x for x in _TAIL[driver] if letter in "cz" or x != "rwork"]
        if driver == "gels":  # (TRANS first; gfortran's hidden length of a CHARACTER argument last)
            names = ["trans", *names, "trans_len"]
        sizes = _SIZES.get(key[:4])
        if sizes is None:
            sizes = _query(fn, routine, names, dtype, real, m, n, k)
        if len(_PLANS) >= 256:  # (bounded memos: a long run of shapes starts them afresh)
            _PLANS.clear()
            _SIZES.clear()
        _SIZES[key[:4]] = sizes
        plan = _PLANS[key] = _plan(names, dtype, real, m, n, k, count, sizes)
    nbytes, offsets, at_a, at_b, at_s, lwork, place = plan
    if lapack.aligned:
        raw = np.zeros(nbytes + 64, np.uint8)
        arena = raw[-raw.ctypes.data % 64:][:nbytes]
    else:
        arena = np.zeros(nbytes, np.uint8)
    try:
        struct.pack_into(_HEAD[letter], arena, 0, m, n, k, max(1, m), max(1, rows), lwork, 0, 0, rcond, b"N")
    except OverflowError:  # (an rcond past float32's range: NumPy's cast, an infinity)
        struct.pack_into(_HEAD[letter], arena, 0, m, n, k, max(1, m), max(1, rows), lwork, 0, 0,
                         math.copysign(math.inf, rcond), b"N")
    at = arena.ctypes.data
    args = [at + x for x in offsets]
    if driver == "gels":
        args[-1] = 1
    mn = min(m, n)
    o_s, o_a, o_b = place["s"], place["a"], place["b"]
    s = np.ndarray((count, mn), real, arena, o_s)
    af = np.ndarray((count, n, m), dtype, arena, o_a)
    bf = np.ndarray((count, k, rows), dtype, arena, o_b)
    # column-major copies, each matrix its own (LAPACK overwrites A): the transposes, row-major
    af[...] = a.reshape((count, m, n)).swapaxes(-1, -2)
    bf[:, :, :m] = b.reshape((count, m, k)).swapaxes(-1, -2)
    if count == 1:
        fn(*args)
        found, code = struct.unpack_from("<2q", arena, 48)
        if code < 0:  # (an argument LAPACK refuses: a bug here, never the input)
            raise RuntimeError(f"{routine}: argument {-code} has an illegal value")
        rank, info = np.array(found, np.int64), np.array(code, np.int64)
    else:
        rank = np.zeros(count, np.int64)
        info = np.zeros(count, np.int64)
        jpvt = np.ndarray((max(1, n),), np.int64, arena, 128) if driver == "gelsy" else None
        a_step, b_step, s_step = af.strides[0], bf.strides[0], s.strides[0]
        for i in range(count):
            if i:
                struct.pack_into("<2q", arena, 48, 0, 0)
                if jpvt is not None:
                    jpvt.fill(0)  # (input: nonzero marks a column fixed in front; PyTorch zeroes it each call)
                args[at_a], args[at_b] = at + o_a + i * a_step, at + o_b + i * b_step
                if at_s is not None:
                    args[at_s] = at + o_s + i * s_step
            fn(*args)
            rank[i], info[i] = struct.unpack_from("<2q", arena, 48)
        if (info < 0).any():
            raise RuntimeError(f"{routine}: argument {-int(info.min())} has an illegal value")
    x = bf.swapaxes(-1, -2).reshape(batch + (rows, k))
    return x, rank.reshape(batch), s.reshape(batch + (mn,)), info.reshape(batch)
