"""The standard's ``linalg`` extension, NumPy's ``numpy.linalg`` doing the work.

Each function reads its arguments zero-copy and adopts NumPy's results; functions returning
several arrays return the standard's named tuples (``eigh`` -> ``eigenvalues, eigenvectors``).

>>> import strided.array_api as xp
>>> xp.linalg.det(xp.eye(3)).item()
1.0
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ..tensor import Tensor
from ._core import computed, quiet
from .linear_algebra import matmul, matrix_transpose, tensordot, vecdot

__all__ = ["cholesky", "cross", "det", "diagonal", "eigh", "eigvalsh", "inv", "matmul", "matrix_norm",
           "matrix_power", "matrix_rank", "matrix_transpose", "outer", "pinv", "qr", "slogdet", "solve", "svd",
           "svdvals", "tensordot", "trace", "vecdot", "vector_norm"]


class EighResult(NamedTuple):
    eigenvalues: Tensor
    eigenvectors: Tensor


class QRResult(NamedTuple):
    Q: Tensor
    R: Tensor


class SlogdetResult(NamedTuple):
    sign: Tensor
    logabsdet: Tensor


class SVDResult(NamedTuple):
    U: Tensor
    S: Tensor
    Vh: Tensor


def _run(name: str, fn: Any, *xs: Any, **kw: Any) -> Any:
    with quiet():
        res = fn(*(x._np() if isinstance(x, Tensor) else x for x in xs), **kw)
    if isinstance(res, tuple):
        return tuple(computed(f"linalg.{name}", xs, r) for r in res)
    return computed(f"linalg.{name}", xs, res)


def cholesky(x: Tensor, /, *, upper: bool = False) -> Tensor:
    """The Cholesky factor of the Hermitian positive-definite matrices ``x`` (lower, or ``upper``)."""
    return _run("cholesky", np.linalg.cholesky, x, upper=upper)


def cross(x1: Tensor, x2: Tensor, /, *, axis: int = -1) -> Tensor:
    """The cross product of 3-element vectors along ``axis`` (broadcasting the other axes)."""
    return _run("cross", np.linalg.cross, x1, x2, axis=axis)


def det(x: Tensor, /) -> Tensor:
    """The determinant of each matrix."""
    return _run("det", np.linalg.det, x)


def diagonal(x: Tensor, /, *, offset: int = 0) -> Tensor:
    """The ``offset`` diagonal of each matrix (the last two axes): a view."""
    return x.diagonal(offset, -2, -1)


def eigh(x: Tensor, /) -> EighResult:
    """Eigenvalues (ascending) and eigenvectors of Hermitian matrices."""
    return EighResult(*_run("eigh", np.linalg.eigh, x))


def eigvalsh(x: Tensor, /) -> Tensor:
    """Eigenvalues (ascending) of Hermitian matrices."""
    return _run("eigvalsh", np.linalg.eigvalsh, x)


def inv(x: Tensor, /) -> Tensor:
    """The inverse of each square matrix."""
    return _run("inv", np.linalg.inv, x)


def matrix_norm(x: Tensor, /, *, keepdims: bool = False, ord: Any = "fro") -> Tensor:  # noqa: A002
    """The matrix norm (``ord``: "fro", "nuc", 1, 2, inf, -1, -2, -inf) of each matrix."""
    return _run("matrix_norm", np.linalg.matrix_norm, x, keepdims=keepdims, ord=ord)


def matrix_power(x: Tensor, n: int, /) -> Tensor:
    """Each square matrix raised to the integer power ``n`` (negative: of the inverse)."""
    return _run("matrix_power", np.linalg.matrix_power, x, n)


def matrix_rank(x: Tensor, /, *, rtol: Any = None) -> Tensor:
    """The rank of each matrix (singular values above ``rtol`` times the largest)."""
    return _run("matrix_rank", np.linalg.matrix_rank, x, rtol=rtol._np() if isinstance(rtol, Tensor) else rtol)


def outer(x1: Tensor, x2: Tensor, /) -> Tensor:
    """The outer product of two 1-d arrays."""
    return _run("outer", np.linalg.outer, x1, x2)


def pinv(x: Tensor, /, *, rtol: Any = None) -> Tensor:
    """The Moore-Penrose pseudo-inverse of each matrix."""
    return _run("pinv", np.linalg.pinv, x, rtol=rtol._np() if isinstance(rtol, Tensor) else rtol)


def qr(x: Tensor, /, *, mode: str = "reduced") -> QRResult:
    """The QR decomposition (``mode`` "reduced" or "complete")."""
    return QRResult(*_run("qr", np.linalg.qr, x, mode=mode))


def slogdet(x: Tensor, /) -> SlogdetResult:
    """The sign and the natural log of the absolute value of each determinant."""
    return SlogdetResult(*_run("slogdet", np.linalg.slogdet, x))


def solve(x1: Tensor, x2: Tensor, /) -> Tensor:
    """The solution ``X`` of ``x1 @ X == x2`` (a 1-d x2 is one vector)."""
    return _run("solve", np.linalg.solve, x1, x2)


def svd(x: Tensor, /, *, full_matrices: bool = True) -> SVDResult:
    """The singular value decomposition ``U @ diag(S) @ Vh``."""
    return SVDResult(*_run("svd", np.linalg.svd, x, full_matrices=full_matrices))


def svdvals(x: Tensor, /) -> Tensor:
    """The singular values of each matrix, descending."""
    return _run("svdvals", np.linalg.svdvals, x)


def trace(x: Tensor, /, *, offset: int = 0, dtype: Any = None) -> Tensor:
    """The sum of the ``offset`` diagonal of each matrix (integers accumulate in int64/uint64)."""
    from .statistical import _acc_dtype

    return _run("trace", np.linalg.trace, x, offset=offset, dtype=_acc_dtype(x, dtype))


def vector_norm(x: Tensor, /, *, axis: Any = None, keepdims: bool = False, ord: Any = 2) -> Tensor:  # noqa: A002
    """The ``ord``-norm of vectors along ``axis`` (None: all elements, as one vector)."""
    axis = tuple(axis) if isinstance(axis, list) else axis
    return _run("vector_norm", np.linalg.vector_norm, x, axis=axis, keepdims=keepdims, ord=ord)
