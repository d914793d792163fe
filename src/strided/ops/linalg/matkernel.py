"""The small float matrix products in one compiled call (``strided.kernels._matkernel``).

:func:`entries` answers ``(mm, bmm, mv)``: each takes two tensors and returns the fresh product
tensor, or None where the call is not for it (then the caller's Python path runs, as before).
They make, on the operands' own memory, the BLAS call NumPy's ``np.matmul`` makes on the same
views -- the same routine of the same library (NumPy's bundled scipy-openblas, whose addresses
are looked up here), with the same arguments -- so the bits are NumPy's; the C file's header
says which call each case makes and which cases it leaves to NumPy (a dim of 1, a matrix
times its own transpose, more than :data:`LIMIT` multiply-adds, anything unusual).

Where the kernel is not built, ``STRIDED_NATIVE=0`` is set, or this NumPy has another BLAS
(not the ILP64 scipy-openblas whose symbols are known here), every entry answers None.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from ...kernels.native import _compiled

# Above (64 x 64 x 64) multiply-adds NumPy's own call serves: it releases the GIL for the BLAS
# call (the compiled entries hold it), and the Python around it is no longer the cost.
LIMIT = 1 << 18

_ROUTINES = ("scipy_cblas_sgemm64_", "scipy_cblas_dgemm64_", "scipy_cblas_sgemv64_", "scipy_cblas_dgemv64_",
             "scipy_cblas_sdot64_", "scipy_cblas_ddot64_")


def _none(a: Any, b: Any) -> None:
    return None


def _none1(x: Any) -> None:
    return None


def _none5(input: Any, x: Any, y: Any, beta: Any, alpha: Any, chunk: int | None = None) -> None:  # noqa: A002
    return None


def _none4(result: Any, input: Any, beta: Any, alpha: Any) -> None:  # noqa: A002
    return None


def openblas_paths(section: str) -> list[str]:
    """The paths of NumPy's bundled scipy-openblas (ILP64) where NumPy's build configuration says
    its ``section`` ("blas" or "lapack") is that library; else none. (The integer width is the
    one thing ctypes cannot check: only a build that says it is ILP64, whose symbols also carry
    the 64_ suffix, is bound.)"""
    import glob

    try:
        deps = np.__config__.CONFIG["Build Dependencies"][section]
    except (AttributeError, KeyError, TypeError):
        return []
    if deps.get("name") != "scipy-openblas" or "USE64BITINT" not in str(deps.get("openblas configuration", "")):
        return []
    here = os.path.dirname(os.path.abspath(np.__file__))
    return [path for pattern in (os.path.join(os.path.dirname(here), "numpy.libs", "libscipy_openblas64_*"),
                                 os.path.join(here, ".dylibs", "libscipy_openblas64_*"))
            for path in sorted(glob.glob(pattern))]


def _addresses() -> list[int] | None:
    """The cblas routines' addresses in NumPy's bundled scipy-openblas (ILP64), or None."""
    import ctypes

    for path in openblas_paths("blas"):
        try:
            lib = ctypes.CDLL(path)
            return [ctypes.cast(getattr(lib, name), ctypes.c_void_p).value or 0 for name in _ROUTINES]
        except (OSError, AttributeError):
            continue
    return None


def _setup() -> None:
    """Bind :func:`mm`, :func:`bmm` and :func:`mv` to the compiled entries, set up; or to
    functions answering None (not built, ``STRIDED_NATIVE=0``, another BLAS)."""
    global mm, bmm, mv, scale_add, bmm_small, trace, addr, dot, addbmm, outer, linear
    k = _compiled("_matkernel")
    found = _addresses() if k is not None else None
    if k is None or found is None or 0 in found:
        mm = bmm = mv = bmm_small = dot = outer = linear = _none
        scale_add = _none4
        trace = _none1
        addr = addbmm = _none5
        return
    from ...dispatch import adopted
    from ...dtypes import float32, float64
    from ...layout import Layout
    from ...storage import Storage
    from ...tensor import Tensor
    from .._support.operands import _cinfo

    k.setup(Tensor, Storage, Layout, adopted, _cinfo, np.empty, float32, float64,
            np.dtype(np.float32), np.dtype(np.float64), *found, LIMIT)
    from ...kernels import blas_route

    mkl = blas_route.lib()  # (the optional MKL route: its gemm for the products it takes)
    if hasattr(k, "mkl_setup"):
        k.mkl_setup(*(mkl.addresses if mkl is not None else (0, 0)), blas_route.MIN_ROWS, blas_route.MIN_COLS)
    mm, bmm, mv, scale_add, bmm_small, trace = k.mm, k.bmm, k.mv, k.scale_add, k.bmm_small, k.trace
    addr, dot, addbmm, outer, linear = k.addr, k.dot, k.addbmm, k.outer, k.linear


def _first_mm(a: Any, b: Any) -> Any:
    """The fresh tensor ``a @ b`` of two 2-D float32 (or float64) tensors of one dtype, or None."""
    _setup()
    return mm(a, b)


def _first_bmm(a: Any, b: Any) -> Any:
    """The fresh tensor of ``(B, m, n) @ (B, n, p)`` float32 (or float64) tensors, or None."""
    _setup()
    return bmm(a, b)


def _first_mv(a: Any, v: Any) -> Any:
    """The fresh tensor of a row-major (m, n) float matrix times a contiguous (n,) vector, or None."""
    _setup()
    return mv(a, v)


def _first_scale_add(result: Any, input: Any, beta: Any, alpha: Any) -> Any:  # noqa: A002
    """``result = result * alpha + input * beta`` in place on a fresh float product tensor, as
    ``fused._plus_input``'s NumPy ufuncs round it (each op once, alpha 1 and beta 0 or 1 skip
    theirs; where both terms are NaN, the first's); None where it does not apply (nothing
    written: ``input`` not a row-major tensor of the result's dtype and shape, a factor not a
    float or an int of at most 2**24), else whether a zero is among the results."""
    _setup()
    return scale_add(result, input, beta, alpha)


def _first_bmm_small(a: Any, b: Any) -> Any:
    """PyTorch's small baddbmm loop (``fused._kernel_bmm``'s compiled one, step for step) of two
    row-major NaN-free (B, n, k) and (B, k, p) float tensors (n * k * p < 400), as a fresh
    tensor; or None."""
    _setup()
    return bmm_small(a, b)


def _first_trace(x: Any) -> Any:
    """A float32/float64 matrix's trace (a diagonal of 1 to 64 elements: ``sums._trace_in_python``'s
    double running sum, rounded once) as a fresh 0-d tensor; None where the sum is NaN or ``x``
    is not for here."""
    _setup()
    return trace(x)


mm, bmm, mv, scale_add, bmm_small = _first_mm, _first_bmm, _first_mv, _first_scale_add, _first_bmm_small
def _first_addr(input: Any, x: Any, y: Any, beta: Any, alpha: Any, chunk: int | None = None) -> Any:  # noqa: A002
    """``fused.addr``'s fast path on a row-major input and two contiguous vectors, float32/float64,
    sizes of at least 2, as a fresh tensor: without an input term ``outer_scale_add``'s operations;
    with one PyTorch's per-position fma forms, its rows cut into pieces at each multiple of
    ``chunk`` (at::parallel_for's chunk length; 0: one chunk; left out: 0 below 32768 elements,
    else None with an input term). None where a result is NaN (with an input term), two NaN
    operands meet in one operation, or the call is not for here."""
    _setup()
    return addr(input, x, y, beta, alpha) if chunk is None else addr(input, x, y, beta, alpha, chunk)


def _first_dot(a: Any, b: Any) -> Any:
    """NumPy's dot of two contiguous float32/float64 vectors (its FLOAT_dot: the BLAS dot summed
    into a double from 0) as a fresh 0-d tensor; None for anything else (a subclass included)."""
    _setup()
    return dot(a, b)


def _first_addbmm(input: Any, batch1: Any, batch2: Any, beta: Any, alpha: Any) -> Any:  # noqa: A002
    """``fused.addbmm``'s fast path in one call (row-major float32/float64 batches (B, m, n) and
    (B, n, p) and input (m, p), sizes of at least 2: NumPy's gemm per batch, then ``_plus_input``'s
    and ``_accumulate_into``'s operations in their order) as a fresh tensor; None where two NaN
    operands meet in one add, alpha is 0, or the call is not for here."""
    _setup()
    return addbmm(input, batch1, batch2, beta, alpha)


def _first_outer(a: Any, b: Any) -> Any:
    """``matmul._fast_outer``'s product in one call (two contiguous float32/float64 vectors of one
    dtype, no size 0, at most :data:`LIMIT` products: kron2's IEEE products) as a fresh row-major
    tensor; None where either holds a NaN or the call is not for here."""
    _setup()
    return outer(a, b)


def _first_linear(x: Any, w: Any) -> Any:
    """F.linear's product without its bias, ``x @ w.T``, of two row-major 2-D float32 (or float64)
    tensors (n, k) and (m, k) of one dtype, every size at least 2 (the gemm ``np.matmul(x, w.T)``
    makes), as a fresh row-major tensor; None where NumPy would make another call (a size of 1, x
    and w one matrix) or the call is not for here."""
    _setup()
    return linear(x, w)


trace, addr, dot, addbmm, outer, linear = (_first_trace, _first_addr, _first_dot, _first_addbmm, _first_outer,
                                           _first_linear)


def ready() -> bool:
    """Set the kernel up now (tests patch the entries after this, or the first call's rebinding
    would undo the patch); whether the compiled entries serve."""
    if mm is _first_mm:
        _setup()
    return mm is not _none


def switch_off(setattr: Any) -> None:
    """For tests: every entry answers None (the callers' NumPy paths run), through ``setattr``
    (a monkeypatch's ``setattr``, which undoes it)."""
    import sys

    ready()
    module = sys.modules[__name__]
    for name in ("mm", "bmm", "mv", "bmm_small", "dot", "outer", "linear"):
        setattr(module, name, _none)
    setattr(module, "scale_add", _none4)
    setattr(module, "trace", _none1)
    setattr(module, "addr", _none5)
    setattr(module, "addbmm", _none5)


# ---------------------------------------------------------------- LAPACK's factorizations

# The LAPACK routines the calls of kernels/_lapack_calls.h make (NumPy's bundled scipy-openblas,
# ILP64: scipy_<name>_64_), in lapack_setup's order
_LAPACK = ("dpotrf", "dsyevd", "dgeqrf", "dorgqr", "dgesdd", "sgelsy", "dgelsy", "dgesv")


def _lapack_none(*args: Any) -> None:
    """Every LAPACK call's answer where the kernel or the library is not there: None."""
    return None


def _bind_lapack() -> None:
    """Bind :data:`potrf_colmajor`, :data:`syevd_colmajor`, :data:`geqrf_colmajor`,
    :data:`gesdd_colmajor`, :data:`gesdd_pinv`, :data:`gelsy_colmajor` and :data:`gesv_colmajor`
    to the kernel's calls, the library's routines named to it (a routine it lacks: that call
    answers None); or all seven to :func:`_lapack_none`."""
    global potrf_colmajor, syevd_colmajor, geqrf_colmajor, gesdd_colmajor, gelsy_colmajor, gesdd_pinv, gesv_colmajor
    potrf_colmajor = syevd_colmajor = geqrf_colmajor = gesdd_colmajor = gelsy_colmajor = _lapack_none
    gesdd_pinv = gesv_colmajor = _lapack_none
    k = _compiled("_matkernel")
    if k is None or not hasattr(k, "lapack_setup"):
        return
    ready()  # (gesdd_pinv's product is the products' gemm: their setup first; without it, it answers None)
    import ctypes

    for path in openblas_paths("lapack"):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        addresses = [ctypes.cast(getattr(lib, f"scipy_{name}_64_", None) or 0, ctypes.c_void_p).value or 0
                     for name in _LAPACK]
        if not any(addresses):
            continue
        k.lapack_setup(np.empty, np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.int32), *addresses)
        potrf_colmajor, syevd_colmajor = k.potrf_colmajor, k.syevd_colmajor
        geqrf_colmajor, gesdd_colmajor = k.geqrf_colmajor, k.gesdd_colmajor
        gelsy_colmajor, gesdd_pinv, gesv_colmajor = k.gelsy_colmajor, k.gesdd_pinv, k.gesv_colmajor
        return


def _bound_on_first_call(name: str) -> Any:
    """A stand-in for the call ``name`` that binds all seven (:func:`_bind_lapack`), then makes it."""

    def first(*args: Any) -> Any:
        _bind_lapack()
        return globals()[name](*args)

    first.__name__ = name
    return first


# potrf_colmajor(flat, n, s0, s1, offset): (the lower Cholesky factor, a fresh int32 [0]) of the
# (n, n) matrix (n <= 64) whose element (i, j) is flat[offset + i s0 + j s1] (flat: a 1-D float32 or
# float64 storage array), as NumPy's cholesky gufunc computes it (the same LAPACK call on the
# same numbers), in column-major order as a fresh flat array of flat's dtype; None where LAPACK
# refuses the matrix, a diagonal element is NaN, or the kernel is not there (the caller's NumPy
# path then decides)
potrf_colmajor: Any = _bound_on_first_call("potrf_colmajor")

# syevd_colmajor(flat, n, s0, s1, offset, lower, vectors): (eigenvalues, eigenvectors column-major
# flat, or None without ``vectors``) of the finite (n, n) symmetric matrix (n <= 64) read as
# potrf_colmajor reads it, as NumPy's eigh/eigvalsh gufunc computes them (the same dsyevd call on
# the same numbers), both of flat's dtype; None where LAPACK did not converge, an element is not
# finite, or the kernel is not there (the caller's NumPy path then decides)
syevd_colmajor: Any = _bound_on_first_call("syevd_colmajor")

# geqrf_colmajor(flat, m, n, s0, s1, offset, q_cols): (Q or None, R), each column-major flat of
# flat's dtype, of the finite (m, n) matrix (m, n <= 64) whose element (i, j) is
# flat[offset + i s0 + j s1], as NumPy's qr computes them (its qr_r_raw then qr_reduced /
# qr_complete: the same dgeqrf and dorgqr calls on the same numbers, R its triu); q_cols: Q's
# columns (min(m, n), or m for 'complete' with m > n), 0 for R alone (mode 'r'); None where an
# element is not finite or the kernel is not there (the caller's NumPy path then decides)
geqrf_colmajor: Any = _bound_on_first_call("geqrf_colmajor")

# gesdd_colmajor(flat, m, n, s0, s1, offset, jobz): (U or None, S, Vh or None) of the finite (m, n)
# matrix (m, n <= 64) read as geqrf_colmajor reads it, as NumPy's svd gufunc computes them (the
# same dgesdd call on the same numbers; jobz 0 'N' values only, 1 'S' reduced, 2 'A' full), U and
# Vh column-major flat, all of flat's dtype; None where LAPACK did not converge, an element is not
# finite, or the kernel is not there (the caller's NumPy path then decides)
gesdd_colmajor: Any = _bound_on_first_call("gesdd_colmajor")

# gesdd_pinv(flat, m, n, s0, s1, offset, r): linalg_pinv of the finite (m, n) matrix (2 <= m, n <=
# 64) read as geqrf_colmajor reads it, with hermitian False and the cut-off max(0, r * s_max) (r a
# float: rtol, or eps * max(m, n)), as the general path computes it (gesdd_colmajor's SVD, then
# its NumPy steps, np.matmul's gemm call included, on the same numbers), (n, m) row-major flat of
# flat's dtype; None where an element is not finite, a size is under 2 or the kernel is not there
gesdd_pinv: Any = _bound_on_first_call("gesdd_pinv")

# gelsy_colmajor(a, m, n, as0, as1, aoffset, b, k, bs0, bs1, boffset, rcond): (x, rank) of
# linalg_lstsq's default driver on one system: sgelsy (float32) or dgelsy (float64) called as
# ._lapack.solve calls it (the same arguments on the same numbers) on the finite (m, n) matrix
# A (element (i, j) at a[aoffset + i as0 + j as1]) and the (m, k) right-hand sides B read alike
# (1 <= m, n, k <= 64, a and b 1-D storage arrays of one float dtype): x LAPACK's B on return,
# column-major flat (max(m, n), k) of that dtype, rank an int; None where an element of A is not
# finite or the call is not of that kind (the caller's general path then decides)
gelsy_colmajor: Any = _bound_on_first_call("gelsy_colmajor")

# gesv_colmajor(a, n, as0, as1, aoffset, b, k, bs0, bs1, boffset): the solution X of A X = B, column-
# major flat (n, k) of the storages' float dtype, for the finite (n, n) A and the (n, k) B read as
# gelsy_colmajor reads them (1 <= n, k <= 64), as NumPy's solve gufunc computes it (the same dgesv
# call on the same numbers); None where A is singular, an element of A is not finite or the kernel
# is not there (the caller's general path then decides)
gesv_colmajor: Any = _bound_on_first_call("gesv_colmajor")
