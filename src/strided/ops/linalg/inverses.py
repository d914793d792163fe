"""Inverses, solves and determinants of batches of matrices: ``linalg.inv``, ``solve``, ``det``,
``slogdet``, ``pinv``, ``matrix_rank``, ``lstsq``, ``matrix_power`` (PyTorch 2.13's
``torch.linalg``), and the face's ``strided.det`` / ``inverse`` / ``slogdet`` / ``pinverse`` /
``matrix_power`` with their Tensor methods.

NumPy's ``linalg`` computes over the whole (..., m, n) batch in the input's precision. The
registry names are PyTorch's native ones (``linalg_inv``, ...): ``strided.linalg`` spells them
``inv``, ... (a bare ``inv`` or ``svd`` on the face would be torch's older function of another
contract). Each backward rule is PyTorch's formula (derivatives.yaml / FunctionsManual.cpp)
written with strided's recording ops, so ``create_graph=True`` differentiates it again.

>>> strided.linalg.inv(strided.tensor([[2.0, 0.0], [0.0, 4.0]])).tolist()
[[0.5, 0.0], [0.0, 0.25]]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...args import float_arg
from ...dispatch import OPEN, adopted
from ...dtypes import float32, float64, int32, real_of
from ...errors import LinAlgError, StridedRuntimeError, StridedTypeError, join_lines
from ...grad_mode import count_kernel_writes
from ...gradients import grad_zeros, seal
from ...kernels.fpstate import quiet
from ...kernels.fused import fma
from ...layout import Layout
from ...lazy_names import function_on_first_call
from ...memory_format import contiguous_format
from ...opdef import Kind, declare
from ...tensor import Tensor, tensor_arg
from .._support.gradtools import needs_grad
from .._support.operands import _cinfo
from .._support.out import write_out, write_tuple_out
from .._support.promotion import TORCH_NAMES
from .._support.reduce_args import shape_text
from ..elementwise.unary import where
from ..registry import backward, method
from ..shape.joining import cat
from . import _batched as LA
from . import _results as R
from . import matkernel, mkl_lapack

# (PyTorch's summation orders: loaded on the first reduction that needs one; see strided.lazy_names.function_on_first_call)
row_sums = function_on_first_call("strided.kernels.torch_sum", "row_sums", globals())

__all__ = ["det", "inverse", "logdet", "linalg_det", "linalg_inv", "linalg_inv_ex", "linalg_solve_ex", "linalg_lstsq", "linalg_matrix_rank",
           "linalg_pinv", "linalg_slogdet", "linalg_solve", "matrix_power", "pinverse", "slogdet"]


# ---------------------------------------------------------------- inv


def _inverse_array(A: Tensor, op: str) -> np.ndarray:  # noqa: N803
    a = A._np()
    if a.size == 0:
        return np.empty(a.shape, a.dtype)
    done = mkl_lapack.inv(a)  # (large float32/float64 with MKL installed: PyTorch's getrf + getrs)
    if done is not None:
        return _nan_where_nan(a, done[1])
    try:  # (NumPy's linalg sets its own floating-point error state: no errstate needed)
        return _nan_where_nan(a, LA.numpy_inv(a))
    except np.linalg.LinAlgError:
        raise LA.singular_inverse(A, a, op) from None


def _nan_where_nan(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``x`` (computed from the batch ``a``) with every matrix whose ``a`` holds NaN all NaN:
    PyTorch's inverse and solve give NaN everywhere for such a matrix, where NumPy's LU can leave
    numbers in the rows it finished before meeting the NaN."""
    nan = np.isnan(a)
    if not nan.any():  # (the common case: one reduction without axes, the per-matrix one only else)
        return x
    bad = nan.any(axis=(-2, -1))
    if bad.any():
        x = np.array(x, copy=True)
        x[bad] = np.nan
    return x


@method("inverse")
def linalg_inv(A: Tensor, *, out: Any = None) -> Tensor:  # noqa: N803
    """The inverse of each square matrix of ``A`` (..., n, n); a singular one raises
    :class:`strided.linalg.LinAlgError` (PyTorch's ``_LinAlgError`` text: the zero pivot named).

    >>> strided.linalg.inv(strided.tensor([[1.0, 2.0], [3.0, 4.0]])).tolist()
    [[-2.0, 1.0], [1.5, -0.5]]
    """
    if out is not None:  # (PyTorch's out= takes only the result's dtype)
        return write_out(out, linalg_inv(A), "linalg.inv", (A,), "matmul")
    A = LA.square(A, "linalg.inv")  # noqa: N806
    return LA.colmajor(_inverse_array(A, "linalg.inv"), A._dtype, owned=True)


def linalg_inv_ex(A: Tensor, *, check_errors: bool = False, out: Any = None) -> Any:  # noqa: N803
    """``(inverse, info)``: ``info`` is 0 where a matrix was inverted and k > 0 where the k-th
    pivot of its LU factorization is zero (its inverse then holds LAPACK's inf/NaN); with
    ``check_errors=True`` a singular matrix raises as :func:`linalg_inv`.

    >>> strided.linalg.inv_ex(strided.zeros(2, 2)).info.item()
    1
    """
    if out is not None:
        return write_tuple_out(out, lambda: linalg_inv_ex(A, check_errors=check_errors),
                               "linalg.inv_ex", (A,), ("inverse", "info"))
    A = LA.square(A, "linalg.inv_ex")  # noqa: N806
    a = A._np()
    batch = a.shape[:-2]
    try:
        inv = _inverse_array(A, "linalg.inv_ex")
        info = np.zeros(batch, np.int32)
    except LinAlgError:
        if check_errors:
            raise
        flat = a.reshape(-1, *a.shape[-2:])
        inv = np.empty_like(flat)
        info = np.zeros(len(flat), np.int32)
        for i, m in enumerate(flat):
            info[i] = LA.getrf_info(m)
            with quiet():  # (np.errstate(all="ignore") at a tenth of its cost)
                inv[i] = np.linalg.inv(m) if not info[i] else np.full_like(m, np.nan)
        inv, info = inv.reshape(a.shape), info.reshape(batch)
    return R.linalg_inv_ex(LA.colmajor(inv, A._dtype, owned=True), LA.rowmajor(info, int32))


@backward("inverse", "linalg_inv")
def _inv_backward(out: Tensor, A: Tensor) -> Any:  # noqa: N803
    """LinalgInvExBackward0: ``-A^{-T} g A^{-T}``, from the saved inverse (the holomorphic
    derivative: for a complex A, :mod:`strided.autograd.function`'s conjugate convention turns
    it into PyTorch's ``-A^{-H} g A^{-H}``)."""
    # (out.mT taken when the gradient comes: by then ``out`` has its node, so a create_graph
    # backward differentiates through it)
    return "LinalgInvExBackward0", (A,), lambda g: (-(out.mT.matmul(g).matmul(out.mT)),), (out,)


@backward("linalg_inv_ex")
def _inv_ex_backward(out: Any, A: Tensor, **kwargs: Any) -> Any:  # noqa: N803
    """LinalgInvExBackward0 (the inverse's gradient; ``info`` has none): as :func:`_inv_backward`."""
    inverse = out[0]
    return "LinalgInvExBackward0", (A,), lambda g: (-(inverse.mT.matmul(g).matmul(inverse.mT)),), (inverse,)


# ---------------------------------------------------------------- solve


def _solve_shapes(A: Tensor, Bt: Tensor, left: bool, op: str) -> bool:  # noqa: N803
    """Check A and B as PyTorch's linalg.solve does; True when B is a (batch of) vector(s)."""
    ashape, bshape = A._layout.shape, Bt._layout.shape
    if Bt._dtype is not A._dtype:
        raise StridedRuntimeError(join_lines(
            f"{op}: Expected A and B to have the same dtype, but found A of type {TORCH_NAMES[A._dtype]} and B of "
            f"type {TORCH_NAMES[Bt._dtype]} instead",
            f"A of shape {shape_text(ashape)} is {A._dtype.name}, B of shape {shape_text(bshape)} {Bt._dtype.name}",
            f"fix: B.to(strided.{A._dtype.name})"))
    # (PyTorch's vector case, either side: B of shape (n,) or A.shape[:-1] is a column (..., n, 1))
    vector = Bt.ndim == 1 or (Bt.ndim == A.ndim - 1 and bshape == ashape[:-1])
    n = ashape[-1]
    eff = (*bshape, 1) if vector else bshape
    if Bt.ndim == 0 or (eff[-2] if left else eff[-1]) != n:
        eq = "AX = B" if left else "XA = B"
        shown = "x".join(str(s) for s in eff[-2:]) if Bt.ndim else "scalar"
        raise StridedRuntimeError(join_lines(
            f"{op}: Incompatible shapes of A and B for the equation {eq} ({n}x{n} and {shown})",
            f"A has shape {shape_text(ashape)}, B {shape_text(bshape)}: B's "
            f"{'rows' if left else 'columns'} must number A's {n}",
            "fix: B.mT when B holds the right-hand sides as rows"))
    return vector


def linalg_solve(A: Tensor, B: Tensor, *, left: bool = True, out: Any = None) -> Tensor:  # noqa: N803
    """The solution X of ``A X = B`` (``left=False``: ``X A = B``) for square ``A``, batch dims
    broadcast; ``B`` of shape ``A.shape[:-1]`` (or (n,)) is a batch of vectors.

    >>> strided.linalg.solve(strided.tensor([[2.0, 0.0], [0.0, 4.0]]), strided.tensor([2.0, 2.0])).tolist()
    [1.0, 0.5]
    """
    if out is not None:  # (PyTorch's out= takes only the result's dtype)
        return write_out(out, linalg_solve(A, B, left=left), "linalg.solve", (A, B), "matmul")
    return _solve(A, B, left, None)[0]


def linalg_solve_ex(A: Tensor, B: Tensor, *, left: bool = True, check_errors: bool = False, out: Any = None) -> Any:  # noqa: N803
    """``(result, info)`` (PyTorch's named tuple): :func:`linalg_solve`'s solution and, per
    matrix of the broadcast batch, LAPACK getrf's ``info`` (int32): 0 where A was solved, k > 0
    where its LU factorization met a zero pivot at U[k-1, k-1]; ``check_errors=True`` raises there.

    # Note: PyTorch leaves LAPACK's leftovers (inf/NaN) in a singular matrix's solution; strided
    # fills it with NaN, as its ``inv_ex`` does.

    >>> r = strided.linalg.solve_ex(strided.zeros(2, 2), strided.ones(2))
    >>> r.info.item(), r.result.isnan().all().item()
    (1, True)
    """
    if out is not None:
        return write_tuple_out(out, lambda: linalg_solve_ex(A, B, left=left, check_errors=check_errors),
                               "linalg.solve_ex", (A, B), ("result", "info"))
    x, info = _solve(A, B, left, check_errors)
    return R.linalg_solve_ex(x, LA.rowmajor(info, int32))


def _solve(A: Tensor, B: Tensor, left: bool, check_errors: bool | None) -> tuple[Tensor, np.ndarray]:  # noqa: N803
    """linalg.solve (``check_errors`` None: a singular matrix raises) or solve_ex (NaN where
    singular, unless ``check_errors``): the solution and the batch-shaped info."""
    op = "linalg.solve"
    if left is True:
        fast = _fast_solve(A, B)
        if fast is not None:
            return fast, np.zeros((), np.int32)
    A = LA.square(A, op)  # noqa: N806
    tensor_arg(B, op, "B", 2)
    vector = _solve_shapes(A, B, left, op)
    a, b = A._np(), B._np()
    if vector:
        b = b[..., None]
    if not left:
        a, b = np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2)
    a_own = a  # (info is per matrix of A, before broadcasting: PyTorch factors A once)
    if a.ndim != 2 or b.ndim != 2:  # (two matrices need no broadcasting: ~5 us a broadcast_to)
        batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        a = np.broadcast_to(a, batch + a.shape[-2:])
        b = np.broadcast_to(b, batch + b.shape[-2:])
    info = np.zeros(a_own.shape[:-2], np.int32)
    if a.size == 0 or b.size == 0:
        x = np.zeros(b.shape, a.dtype)
    else:
        try:  # (large float32/float64 with MKL installed: PyTorch's getrf + getrs, else NumPy's)
            x = mkl_lapack.solve(a, b, transposed=not left)
            x = _nan_where_nan(a, LA.numpy_solve(a, b) if x is None else x)
        except np.linalg.LinAlgError:
            if check_errors is None:
                raise LinAlgError(join_lines(
                    "torch.linalg.solve: The solver failed because the input matrix is singular.",
                    f"A of shape {shape_text(A.shape)} has a matrix whose LU factorization met a zero pivot",
                    "fix: strided.linalg.lstsq(A, B) for a least-squares solution")) from None
            x = _solve_singular(A, a_own, a, b, info, check_errors)
    if vector:  # (PyTorch lays a batch of vector solutions (..., k, n) out column-major too)
        return LA.colmajor(x[..., 0], A._dtype), info
    # (X A = B is solved as A^T X^T = B^T: X^T column-major, so X row-major, as PyTorch's)
    return (LA.colmajor(x, A._dtype, owned=True).mT if not left else LA.colmajor(x, A._dtype, owned=True)), info


def _fast_solve(A: Any, B: Any) -> Tensor | None:  # noqa: N803
    """solve (left) of one finite non-singular float32/float64 (n, n) matrix and a (n, k) or (n,)
    B of its dtype, n and k at most 64: NumPy's dgesv call made in C on the storages
    (:data:`.matkernel.gesv_colmajor`, the gufunc's arguments on the same numbers, so the same
    bits), laid out as the general path lays the solution out (column-major; a vector's
    contiguous). None (nothing done) for any other call, a singular A included."""
    if A.__class__ is not Tensor or B.__class__ is not Tensor or A._dtype not in _FAST_FLOATS or B._dtype is not A._dtype:
        return None
    la, lb = A._layout, B._layout
    if len(la.shape) != 2 or la.shape[0] != la.shape[1] or not 1 <= len(lb.shape) <= 2 or lb.shape[0] != la.shape[0]:
        return None
    n = la.shape[0]
    vector = len(lb.shape) == 1  # (A of two dims: B of one is PyTorch's vector case)
    k, bs1 = (1, 0) if vector else (lb.shape[1], lb.strides[1])
    done = matkernel.gesv_colmajor(A._storage.array, n, la.strides[0], la.strides[1], la.offset,
                                   B._storage.array, k, lb.strides[0], bs1, lb.offset)
    if done is None:
        return None
    return adopted(done, _cinfo[(n,)][2] if vector else LA.colmajor_layouts[(n, k)], A._dtype)


def _solve_singular(A: Tensor, a_own: np.ndarray, a: np.ndarray, b: np.ndarray, info: np.ndarray,  # noqa: N803
                    check_errors: bool) -> np.ndarray:
    """solve_ex where a matrix of A is singular: ``info`` per matrix of A (LAPACK getrf's), the
    first one raised with ``check_errors``, else its solutions NaN and the others solved."""
    flat = info.reshape(-1)
    for i, m in enumerate(a_own.reshape(-1, *a_own.shape[-2:])):
        flat[i] = k = LA.getrf_info(m)
        if k and check_errors:
            raise LinAlgError(join_lines(
                f"torch.linalg.solve_ex: {LA.batch_prefix(A, i)}The solver failed because the input matrix is singular.",
                f"A of shape {shape_text(A.shape)}: matrix {i}'s LU factorization meets a zero pivot at U[{k - 1}, {k - 1}]",
                "fix: strided.linalg.lstsq(A, B) for a least-squares solution"))
    bad = np.broadcast_to(info != 0, a.shape[:-2])
    eye = np.eye(a.shape[-1], dtype=a.dtype)
    x = _nan_where_nan(a, np.linalg.solve(np.where(bad[..., None, None], eye, a), b))
    x[bad] = np.nan
    return x


@backward("linalg_solve", operands="two")
def _solve_backward(out: Tensor, A: Tensor, B: Tensor, *, left: bool = True) -> Any:  # noqa: N803
    """LinalgSolveExBackward0: ``gB = solve(A^T, g)``, ``gA = -gB X^T`` (left; ``X A = B``:
    ``gB = solve(A, g^T)^T``, ``gA = -X^T gB``); a vector B's outer product. Holomorphic: the
    conjugate convention makes the transposes PyTorch's conjugate transposes for complex A."""
    vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and B._layout.shape == A._layout.shape[:-1])
    need_a = needs_grad(A)

    def grads(g: Tensor) -> tuple:
        if left:
            gb = linalg_solve(A.mT, g)
            if not need_a:
                return (None, gb)
            ga = -(gb.unsqueeze(-1) * out.unsqueeze(-2)) if vector else -gb.matmul(out.mT)
        else:
            gb = linalg_solve(A, g.mT).mT
            ga = -out.mT.matmul(gb) if need_a else None
        return (ga, gb)

    return "LinalgSolveExBackward0", (A, B), grads, (A, out)


@backward("linalg_solve_ex", operands="two")
def _solve_ex_backward(out: Any, A: Tensor, B: Tensor, *, left: bool = True, **kwargs: Any) -> Any:  # noqa: N803
    """LinalgSolveExBackward0 (the solution's gradient; ``info`` has none): as :func:`_solve_backward`."""
    return _solve_backward(out[0], A, B, left=left)


# ---------------------------------------------------------------- det, slogdet


@method("det")
def linalg_det(A: Tensor) -> Tensor:  # noqa: N803
    """The determinant of each square matrix of ``A`` (..., n, n): a tensor of the batch shape
    (0 for a singular matrix, 1 for a 0 x 0 one).

    >>> strided.linalg.det(strided.tensor([[1.0, 2.0], [3.0, 4.0]])).item()
    -2.0
    """
    A = LA.square(A, "linalg.det")  # noqa: N806
    a = A._np()
    # (a permuted float32 batch cast in its own order: the same numbers for LAPACK, no transposing copy)
    # (large float32/float64 with MKL installed: PyTorch's getrf and product)
    d = mkl_lapack.det(a, A.is_contiguous()) if a.size else None
    if d is None:
        d = np.linalg.det(LA.lapack_ready(a)) if a.size else np.ones(a.shape[:-2], a.dtype)
    return LA.rowmajor(np.asarray(d, a.dtype), A._dtype)


def _det_grad(g: Tensor, A: Tensor, det: Tensor) -> Tensor:  # noqa: N803
    """PyTorch's linalg_det_backward: ``g det A^{-T}`` where every matrix is invertible; else (a
    singular matrix in the batch) through the SVD, ``conj(U diag(conj(g) alpha prod_{j != i} s_j)
    Vh)`` with ``alpha = det(U) det(Vh)``, the derivative that stays defined at singular matrices.
    The holomorphic derivative (conjugate convention: :mod:`strided.autograd.function`); the
    SVD branch conjugates around itself, its factors being PyTorch's for ``A``, not ``conj(A)``."""
    n = A._layout.shape[-1]
    if n == 0:
        return A * 0
    scale = (g * det).unsqueeze(-1).unsqueeze(-1)
    if not bool((det == 0).any()):
        try:
            return scale * linalg_inv(A).mT
        except LinAlgError:
            pass
    from .factorizations import linalg_svd

    U, S, Vh = linalg_svd(A, full_matrices=False)  # noqa: N806
    alpha = linalg_det(U) * linalg_det(Vh)
    others = _prod_others(S)
    if A._dtype.is_complex:
        return (U * (others * (g.conj() * alpha).unsqueeze(-1)).unsqueeze(-2)).matmul(Vh).conj()
    return (U * (others * (g * alpha).unsqueeze(-1)).unsqueeze(-2)).matmul(Vh)


def _prod_others(S: Tensor) -> Tensor:  # noqa: N803
    """``prod_{j != i} S_j`` for each i along the last dim, without dividing (zeros allowed): the
    product of the exclusive prefix and suffix products."""
    n = S._layout.shape[-1]
    ones = S[..., :1] * 0 + 1
    before = cat([ones, S[..., :-1].cumprod(-1)], -1) if n > 1 else ones
    after = cat([S.flip(-1)[..., :-1].cumprod(-1).flip(-1), ones], -1) if n > 1 else ones
    return before * after


@backward("det", "linalg_det")
def _det_backward(out: Tensor, A: Tensor) -> Any:  # noqa: N803
    """LinalgDetBackward0 (see :func:`_det_grad`)."""
    return "LinalgDetBackward0", (A,), lambda g: (_det_grad(g, A, out),), (A, out)


def _slogdet_arrays(A: Tensor) -> tuple[np.ndarray, np.ndarray]:  # noqa: N803
    a = A._np()
    if a.size == 0:
        shape = a.shape[:-2]
        return np.ones(shape, a.dtype), np.zeros(shape, np.real(a).dtype)
    done = mkl_lapack.lu_diagonal(a, A.is_contiguous())  # (large float32/float64 with MKL installed)
    if done is not None:
        # (PyTorch's _linalg_slogdet: sign = det(P) * prod(sgn(diag U)), exact; logabsdet =
        # sum(log(abs(diag U))) over a contiguous copy, by strided's log and sum: PyTorch's)
        _, diag, perm = done
        with quiet():
            sign = perm * np.prod(np.sign(diag), axis=-1)
        logs = LA.rowmajor(np.abs(diag), A._dtype).log().sum(-1)._np()
        return np.asarray(sign, a.dtype), np.asarray(logs, a.dtype)
    sign, logabs = np.linalg.slogdet(LA.lapack_ready(a))  # (as det's)
    return np.asarray(sign, a.dtype), np.asarray(logabs, np.real(a).dtype)


def linalg_slogdet(A: Tensor, *, out: Any = None) -> Any:  # noqa: N803
    """``(sign, logabsdet)`` of each square matrix's determinant: ``det = sign * exp(logabsdet)``
    without overflow (a singular matrix: sign 0, logabsdet -inf).

    >>> strided.linalg.slogdet(strided.tensor([[-2.0, 0.0], [0.0, 1.0]]))
    linalg_slogdet(sign=tensor(-1.), logabsdet=tensor(0.6931))
    """
    if out is not None:
        return write_tuple_out(out, lambda: linalg_slogdet(A), "linalg.slogdet", (A,), ("sign", "logabsdet"))
    A = LA.square(A, "linalg.slogdet")  # noqa: N806
    sign, logabs = _slogdet_arrays(A)
    return R.linalg_slogdet(LA.rowmajor(sign, A._dtype), LA.rowmajor(logabs, real_of(A._dtype)))


@method("slogdet")
def slogdet(A: Tensor, *, out: Any = None) -> Any:  # noqa: N803
    """``strided.slogdet`` / ``Tensor.slogdet``: :func:`linalg_slogdet` (torch.return_types.slogdet).

    >>> strided.slogdet(strided.eye(2)).logabsdet.item()
    0.0
    """
    if out is not None:
        return write_tuple_out(out, lambda: slogdet(A), "slogdet", (A,), ("sign", "logabsdet"))
    sign, logabs = linalg_slogdet(A)
    return R.slogdet(sign, logabs)


@method("logdet")
def logdet(input: Tensor) -> Tensor:  # noqa: A002
    """``strided.logdet`` / ``Tensor.logdet``: the log of each square matrix's determinant (-inf for
    a singular one, NaN for a negative determinant), PyTorch's composite ``where(sign == -1, nan,
    logabsdet)`` of :func:`linalg_slogdet`, whose graph it records; for a complex matrix the
    complex log, ``log(sign) + logabsdet``, as PyTorch's.

    >>> round(strided.logdet(strided.eye(2) * 2).item(), 4)
    1.3863
    """
    sign, logabs = linalg_slogdet(input)
    if sign._dtype.is_complex:  # (PyTorch's complex composite: log(sign) + logabsdet, a complex log)
        return sign.log() + logabs
    return where(sign == -1, float("nan"), logabs)


def _slogdet_rule(out: Any, A: Tensor) -> Any:  # noqa: N803
    """LinalgSlogdetBackward0: ``h A^{-H}`` with ``h = g_logabsdet``; a real sign (+-1) has no
    gradient, a complex one (``det / |det|``, the phase) adds ``-i Im(conj(g_sign) sign)`` to
    ``h`` (PyTorch's values). Written, as the other rules, as the holomorphic derivative
    (``conj(h) A^{-T}`` of the conjugated incoming gradients): the node has a complex output, so
    :mod:`strided.autograd.function`'s conjugate convention applies to it."""
    sign = out[0]

    def grads(g_sign: Any, g_logabs: Any) -> tuple:
        phase = g_sign is not None and A._dtype.is_complex
        if g_logabs is None and not phase:
            return (None,)
        h = g_logabs if g_logabs is not None else grad_zeros(sign._layout.shape, real_of(A._dtype))
        if phase:  # (g_sign arrives conjugated: the rule is written in the holomorphic convention)
            h = h + (g_sign * sign).imag * 1j
        return (h.unsqueeze(-1).unsqueeze(-1) * linalg_inv(A).mT,)

    return "LinalgSlogdetBackward0", (A,), grads, (A,), True


backward("linalg_slogdet")(_slogdet_rule)
backward("slogdet")(lambda out, A: _slogdet_rule(out, A))


# ---------------------------------------------------------------- pinv, matrix_rank


def _tolerances(s_max: np.ndarray, atol: Any, rtol: Any, m: int, n: int, dtype: np.dtype, op: str) -> np.ndarray:
    """PyTorch's cut-off ``max(atol, rtol * s_max)``: without either, ``rtol = eps * max(m, n)``;
    with ``atol`` > 0 alone, ``rtol = 0``. Tensors broadcast against the batch."""
    def value(v: Any) -> Any:
        if v is None:
            return None
        if isinstance(v, Tensor):
            return v._np().astype(np.float64)
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise StridedTypeError(join_lines(f"{op}(): argument 'atol' must be float or Tensor, not {type(v).__name__}",
                                              "atol and rtol are cut-offs for the singular values"))
        return float(v)

    a, r = value(atol), value(rtol)
    if r is None:
        r = 0.0 if a is not None and np.all(np.asarray(a) > 0) else float(np.finfo(dtype).eps) * max(m, n)
    if a is None:
        a = 0.0
    return np.maximum(a, np.asarray(r) * s_max)


def _singular_values(a: np.ndarray, hermitian: bool) -> np.ndarray:
    if hermitian:
        return np.sort(np.abs(np.linalg.eigvalsh(a)), axis=-1)[..., ::-1]
    return LA.numpy_svd(a, compute_uv=False) if a.size else np.linalg.svd(a, compute_uv=False)


def linalg_pinv(A: Tensor, rcond: Any = None, hermitian: bool = False, *, atol: Any = None,  # noqa: N803
                rtol: Any = None, out: Any = None) -> Tensor:
    """The Moore-Penrose pseudo-inverse of each (m, n) matrix of ``A``: its SVD with the singular
    values at or below ``max(atol, rtol * s_max)`` dropped (``rcond``: the older name of
    ``rtol``); ``hermitian=True`` reads the lower triangle as a symmetric matrix (eigh).

    >>> strided.linalg.pinv(strided.tensor([[2.0, 0.0], [0.0, 0.0]])).tolist()
    [[0.5, 0.0], [0.0, 0.0]]
    """
    if out is not None:  # (into any dtype the result casts to safely, in PyTorch's words otherwise)
        return write_out(out, linalg_pinv(A, rcond, hermitian, atol=atol, rtol=rtol), "linalg.pinv", (A,),
                         cast_first="linalg.pinv: Expected result to be safely castable from {r} dtype, "
                         "but got result with dtype {o}")
    op = "linalg.pinv"
    tensor_arg(A, op)
    if A.ndim < 2 or not (A._dtype.is_floating_point or A._dtype.is_complex) or A._dtype.itemsize < 4:
        raise StridedRuntimeError(join_lines(
            f"{op}({TORCH_NAMES[A._dtype]}{{[{', '.join(str(s) for s in A.shape)}]}}): expected a tensor with 2 or "
            "more dimensions of float, double, cfloat or cdouble types",
            f"A has shape {shape_text(A.shape)} and dtype {A._dtype.name}", "fix: A.reshape(m, n).double()"))
    if rcond is not None:
        rtol = rcond
    fast = _fast_pinv(A, hermitian, atol, rtol)
    if fast is not None:
        return fast
    a = A._np() if hermitian else LA.finite_for_svd(A)
    m, n = a.shape[-2:]
    if a.size == 0:
        return LA.rowmajor(np.zeros(a.shape[:-2] + (n, m), a.dtype), A._dtype)
    with quiet():  # (np.errstate(all="ignore") at a tenth of its cost)
        if hermitian:
            w, v = np.linalg.eigh(a)
            tol = _tolerances(np.abs(w).max(-1), atol, rtol, m, n, a.dtype, op)
            winv = np.where(np.abs(w) > tol[..., None], 1 / w, 0).astype(a.dtype)
            p = (v * winv[..., None, :]) @ np.conj(np.swapaxes(v, -1, -2))
        else:
            u, s, vh = _reduced_svd(A, a)
            tol = _tolerances(s[..., 0], atol, rtol, m, n, a.dtype, op)
            sinv = np.where(s > tol[..., None], 1 / s, 0).astype(s.dtype)
            p = np.conj(np.swapaxes(vh, -1, -2)) * sinv[..., None, :] @ np.conj(np.swapaxes(u, -1, -2))
    return LA.rowmajor(p.astype(a.dtype, copy=False), A._dtype)


_FAST_FLOATS = frozenset((float32, float64))  # (the dtypes of the compiled LAPACK calls)


def _fast_pinv(A: Tensor, hermitian: Any, atol: Any, rtol: Any) -> Tensor | None:  # noqa: N803
    """pinv of one finite float32/float64 matrix of 2 to 64 rows and columns, ``hermitian``
    False, ``atol`` None and ``rtol`` None or a float or int: the general path's SVD and steps
    after it made in one compiled call (:data:`.matkernel.gesdd_pinv`, the same operations on
    the same numbers, so the same bits), the result row-major as that path lays it out. None
    (nothing done) for any other call."""
    if (A.__class__ is not Tensor or A._dtype not in _FAST_FLOATS or hermitian is not False or atol is not None
            or not (rtol is None or rtol.__class__ in (float, int))):
        return None
    lay = A._layout
    if len(lay.shape) != 2:
        return None
    m, n = lay.shape
    # (_tolerances' r: rtol as a float, else eps * max(m, n))
    r = _eps(A._dtype.numpy) * max(m, n) if rtol is None else float(rtol)
    done = matkernel.gesdd_pinv(A._storage.array, m, n, lay.strides[0], lay.strides[1], lay.offset, r)
    return None if done is None else adopted(done, _cinfo[(n, m)][2], A._dtype)


def _reduced_svd(A: Tensor, a: np.ndarray) -> tuple:  # noqa: N803
    """``np.linalg.svd(a, full_matrices=False)`` of ``A``'s finite non-empty array ``a``: for one
    float32/float64 matrix of at most 64 rows and columns, NumPy's dgesdd call made in C on the
    storage (:data:`.matkernel.gesdd_colmajor`, the same bits), U and Vh copied C-contiguous as
    NumPy returns them (so the products that follow see the same operands and layouts); NumPy's
    call otherwise (:func:`._batched.numpy_svd`: MKL's gesdd for a large float32/float64 ``a`` with MKL
    installed, as PyTorch's pinv calls it)."""
    lay = A._layout
    if a.ndim == 2 and a.dtype in _SVD_FAST:
        m, n = lay.shape
        done = matkernel.gesdd_colmajor(A._storage.array, m, n, lay.strides[0], lay.strides[1], lay.offset, 1)
        if done is not None:
            k = min(m, n)
            return (np.ascontiguousarray(done[0].reshape(k, m).T), done[1],
                    np.ascontiguousarray(done[2].reshape(n, k).T))
    # (NumPy's gufunc call, its bits; large float32/float64 with MKL installed: PyTorch's gesdd)
    return LA.numpy_svd(a, full_matrices=False)


def _svdvals(A: Tensor, a: np.ndarray) -> np.ndarray:  # noqa: N803
    """``np.linalg.svd(a, compute_uv=False)`` of ``A``'s finite non-empty array ``a`` (as
    :func:`_singular_values`): for one float32/float64 matrix of at most 64 rows and columns,
    NumPy's dgesdd call made in C on the storage (:data:`.matkernel.gesdd_colmajor` with jobz
    'N', the same bits); NumPy's call otherwise."""
    if a.ndim == 2 and a.dtype in _SVD_FAST:
        lay = A._layout
        done = matkernel.gesdd_colmajor(A._storage.array, lay.shape[0], lay.shape[1], lay.strides[0],
                                        lay.strides[1], lay.offset, 0)
        if done is not None:
            return done[1]
    return _singular_values(a, False)


_SVD_FAST = frozenset((np.dtype(np.float32), np.dtype(np.float64)))


def _pinv_grad(grad: Tensor, pinv: Tensor, A: Tensor) -> Tensor:  # noqa: N803
    """PyTorch's pinv_backward, in its convention for complex gradients (``^H`` is ``^T`` for a
    real A): the derivative of the pseudo-inverse, with the products taken in the order that
    keeps the matrices smallest."""
    m, n = A._layout.shape[-2:]
    pinv_h, grad_h = pinv.mH, grad.mH
    if m <= n:
        K = grad_h.matmul(pinv)  # noqa: N806
        k_pinv_h = K.matmul(pinv_h)
        return (-(pinv.matmul(K)).mH + k_pinv_h - A.matmul(pinv).matmul(k_pinv_h)
                + pinv_h.matmul(pinv).matmul(grad_h - K.matmul(A)))
    K = pinv.matmul(grad_h)  # noqa: N806
    pinv_h_k = pinv_h.matmul(K)
    return (-(K.matmul(pinv)).mH + (grad_h - A.matmul(K)).matmul(pinv).matmul(pinv_h)
            + pinv_h_k - pinv_h_k.matmul(pinv).matmul(A))


@backward("linalg_pinv")
def _pinv_backward(out: Tensor, A: Tensor, *args: Any, **kwargs: Any) -> Any:  # noqa: N803
    """LinalgPinvBackward0: :func:`_pinv_grad`."""
    grads = LA.pytorch_convention(A, lambda g: (_pinv_grad(g, out, A),))
    return "LinalgPinvBackward0", (A,), grads, (A, out)


@method("pinverse")
def pinverse(input: Tensor, rcond: float = 1e-15) -> Tensor:  # noqa: A002
    """``strided.pinverse`` / ``Tensor.pinverse``: :func:`linalg_pinv` with ``rtol=rcond``.
    ``rcond`` is PyTorch's double (a number or a 0-d tensor's value): a tensor with dims is a
    TypeError, as in PyTorch, not a batch of cut-offs as ``linalg.pinv``'s ``rtol`` would take it.

    >>> strided.pinverse(strided.eye(2) * 2).tolist()
    [[0.5, 0.0], [0.0, 0.5]]
    """
    if rcond.__class__ is not float:
        # (PyTorch's text for a keyword rcond; a positional one adds its position, which differs
        # between torch.pinverse and Tensor.pinverse: one function here cannot tell them apart)
        rcond = float_arg(rcond, "pinverse", "rcond", None)
    return linalg_pinv(input, rtol=rcond)


def linalg_matrix_rank(A: Tensor, tol: Any = None, hermitian: bool = False, *, atol: Any = None,  # noqa: N803
                       rtol: Any = None, out: Any = None) -> Tensor:
    """The number of singular values of each matrix above ``max(atol, rtol * s_max)`` (int64, the
    batch shape); ``tol``: the older name of ``atol``.

    >>> strided.linalg.matrix_rank(strided.ones(3, 3)).item()
    1
    """
    if out is not None:  # (into any dtype the result casts to safely, in PyTorch's words otherwise)
        return write_out(out, linalg_matrix_rank(A, tol, hermitian, atol=atol, rtol=rtol), "linalg.matrix_rank", (A,),
                         cast_first="torch.linalg.matrix_rank: Expected result to be safely castable from {r} dtype, "
                         "but got result with dtype {o}")
    # (PyTorch computes the ranks into a fresh result with sum's out= variant: one write that its
    # ``_version`` counts, as any out= write)
    return count_kernel_writes(_matrix_rank(A, tol, hermitian, atol, rtol), 1)


def _matrix_rank(A: Tensor, tol: Any, hermitian: bool, atol: Any, rtol: Any) -> Tensor:  # noqa: N803
    """:func:`linalg_matrix_rank`'s ranks, a fresh int64 tensor."""
    op = "torch.linalg.matrix_rank"
    tensor_arg(A, op)
    if A.ndim < 2:
        raise StridedRuntimeError(join_lines(
            f"{op}: The input tensor input must have at least 2 dimensions.",
            f"A has shape {shape_text(A.shape)}: a vector has no matrix rank (its tensor rank is {A.ndim})",
            "fix: A.reshape(1, -1) for a row matrix"))
    LA.float_input(A, "linalg.svd")
    if tol is not None:
        atol = tol
    a = A._np() if hermitian else LA.finite_for_svd(A)
    m, n = a.shape[-2:]
    if a.size == 0:
        return LA.int64_result(np.zeros(a.shape[:-2], np.int64))
    with quiet():  # (np.errstate(all="ignore") at a tenth of its cost)
        s = _singular_values(a, hermitian) if hermitian else _svdvals(A, a)
    if atol is None and rtol is None and s.ndim == 1:
        # (one matrix, the default cut-off: _tolerances' float64 steps on Python floats, the
        # comparisons in float64 as NumPy's of float32 against a float64 array; s is finite)
        cut = _eps(a.dtype) * max(m, n) * float(s[0])
        return LA.int64_result(np.asarray(sum(v > cut for v in s.tolist()), np.int64))
    cut = _tolerances(s[..., 0], atol, rtol, m, n, a.dtype, op)
    return LA.int64_result((s > cut[..., None]).sum(-1))


# ---------------------------------------------------------------- lstsq

_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def linalg_lstsq(A: Tensor, B: Tensor, rcond: float | None = None, *, driver: str | None = None) -> Any:  # noqa: N803
    """The least-squares solution of ``A X = B``: ``(solution, residuals, rank, singular_values)``
    as PyTorch's CPU drivers fill them (``driver``: 'gelsy' by default; residuals (squared column
    norms of ``A X - B``) when m > n and every matrix has full rank, except for 'gelsy'; rank
    except for 'gels'; singular values for 'gelsd' and 'gelss'; the others empty).

    Each driver is LAPACK's routine of that name, called as PyTorch calls it (see
    :mod:`strided.ops.linalg._lapack`): gelsy's rank is its pivoted QR's condition estimate
    against ``1 / rcond`` (rcond default eps * max(m, n)), gelsd/gelss's the count of singular
    values above ``rcond * s_max``, and gels assumes full rank (an exactly singular triangle is
    PyTorch's LinAlgError; a nearly singular one gives its large, rounding-dependent solution).
    PyTorch's LAPACK is MKL's, this one NumPy's OpenBLAS: ranks and solutions agree to within
    rounding, which a rank on its threshold's edge, or gels of a numerically singular A, turns.
    PyTorch 2.13's gelsy leaves its pivot array uninitialised (issue 187411, fixed upstream): its
    rank of a rank-deficient A varies from call to call, and strided gives the fixed one's.

    # Note: a NumPy without the scipy-openblas ILP64 LAPACK (another build) leaves every driver
    # to the SVD: the minimum-norm solution, the rank the count of singular values above
    # ``rcond * s_max``, gels's exactly singular A not refused.

    >>> strided.linalg.lstsq(strided.tensor([[2.0], [0.0]]), strided.tensor([[4.0], [1.0]])).solution.tolist()
    [[2.0]]
    """
    op = "torch.linalg.lstsq"
    tensor_arg(A, op)
    tensor_arg(B, op, "B", 2)
    if driver is not None and driver not in _DRIVERS:
        raise StridedRuntimeError(join_lines(
            f"{op}: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)",
            f"driver={driver!r} was given", "fix: leave it out (gelsy)"))
    driver = driver or "gelsy"
    LA.matrices(A, "linalg.lstsq")
    if B._dtype is not A._dtype:
        raise StridedRuntimeError(join_lines(
            f"{op}: Expected input and other to have the same dtype, but got input's dtype "
            f"{TORCH_NAMES[A._dtype]} and other's dtype {TORCH_NAMES[B._dtype]}",
            f"A is {A._dtype.name}, B {B._dtype.name}", f"fix: B.to(strided.{A._dtype.name})"))
    if not (A.ndim >= B.ndim and A.ndim - B.ndim <= 1):
        raise StridedRuntimeError(join_lines(
            f"{op}: input.dim() must be greater or equal to other.dim() and (input.dim() - other.dim()) <= 1",
            f"A has shape {shape_text(A.shape)}, B {shape_text(B.shape)}",
            "fix: B of A's dims (a batch of matrices), or of A.shape[:-1] (a batch of vectors)"))
    fast = _fast_lstsq(A, B, rcond, driver)
    if fast is not None:
        return fast
    # (PyTorch's vector case: B of one dim, or exactly A's shape but its last; else B is matrices)
    vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and B.shape == A.shape[:-1])
    a, b = LA.finite_for_svd(A), B._np()
    if vector:
        b = b[..., None]
    m, n = a.shape[-2:]
    if b.ndim < 2 or b.shape[-2] != m:
        raise StridedRuntimeError(join_lines(
            f"{op}: input.size(-2) should match other.size(-2)",
            f"A has shape {shape_text(A.shape)} ({m} equations), B {shape_text(B.shape)}",
            "fix: B's rows are the right-hand sides of A's rows"))
    batch = a.shape[:-2]
    if b.shape[:-2] != batch:  # (a single system, or batches of one shape: nothing to broadcast)
        batch = np.broadcast_shapes(batch, b.shape[:-2])
        a, b = np.broadcast_to(a, batch + a.shape[-2:]), np.broadcast_to(b, batch + b.shape[-2:])
    k = b.shape[-1]
    rows = max(m, n)
    real = _REAL.get(a.dtype, a.dtype)
    rcond = _eps(a.dtype) * rows if rcond is None else float(rcond)
    lapack = _lapack() if a.size and b.size else None
    if lapack is not None and mkl_lapack.MIN_N <= min(m, n) and a.dtype.char in "fd":
        # (large float32/float64 with MKL installed: PyTorch's own LAPACK, the same driver calls)
        lapack = mkl_lapack.lstsq_library() or lapack
    if lapack is not None:  # (its own arrays: none made here for it to replace)
        buffer, rank, s, info = _lapack_lstsq(lapack, a, b, rcond, driver)
        if info.any():
            raise _lstsq_failure(A, info, batch, driver)
    else:
        buffer = np.zeros(batch + (rows, k), a.dtype)
        s = np.zeros(batch + (min(m, n),), real)
        rank = np.zeros(batch, np.int64)
    if lapack is None and a.size and b.size:
        with quiet():  # (np.errstate(all="ignore") at a tenth of its cost)
            u, s, vh = np.linalg.svd(a, full_matrices=False)
            cut = rcond * s[..., :1]
            keep = s > cut
            sinv = np.where(keep, 1 / np.where(keep, s, 1), 0).astype(s.dtype)
            x = _adjoint(vh) @ (sinv[..., None] * (_adjoint(u) @ b))
            rank = keep.sum(-1)
            buffer[..., :n, :] = x
    residuals = np.zeros((0,), real)
    if m > n and driver != "gelsy" and (driver == "gels" or bool(np.all(rank == min(m, n)))):  # (full rank)
        if lapack is not None:  # (LAPACK leaves the residual's components in B's rows n:m, PyTorch sums their squares)
            r = buffer[..., n:, :]
        else:
            with quiet():  # (np.errstate(all="ignore") at a tenth of its cost)
                r = a @ buffer[..., :n, :] - b
        square = _conj_product(r) if r.dtype.kind == "c" else r * r
        # (a vector B's too: (..., 1), as PyTorch's.) PyTorch sums LAPACK's column-major rows
        # n:m with its CPU sum kernel (at::sum_out over dim -2): its order, not NumPy's pairwise
        # one (~45% of residuals were an ulp off); a complex B's squares are the real parts of
        # r * conj(r), a strided view there (the kernel's scalar loop)
        rows = square.astype(real, copy=False)
        flat = np.ascontiguousarray(np.moveaxis(rows, -2, -1)).reshape(-1, rows.shape[-2])
        residuals = row_sums(flat, contiguous=r.dtype.kind != "c").reshape(rows.shape[:-2] + rows.shape[-1:])
    if batch != A.shape[:-2]:  # (PyTorch's rank and singular values keep A's own batch shape)
        own = tuple(slice(0, 1) if size == 1 else slice(None) for size in A.shape[:-2])
        rank, s = rank[own], s[own]
    rt = real_of(A._dtype)
    return R.linalg_lstsq(
        _solution(LA.colmajor(buffer, A._dtype), n, k, vector),
        LA.rowmajor(residuals, rt),
        LA.int64_result(rank if driver != "gels" else np.zeros((0,), np.int64)),
        LA.rowmajor(s.astype(real) if driver in ("gelsd", "gelss") else np.zeros((0,), real), rt))


def _solution(whole: Tensor, n: int, k: int, vector: bool) -> Tensor:
    """lstsq's solution in ``whole``, LAPACK's B on return (..., max(m, n), k) column-major: the
    view of its first ``n`` rows (of its one column for a ``vector`` B; a 0-d one copied)."""
    if OPEN:  # (watched: the slice's own record)
        solution = whole[..., :n, :]
    else:  # (the slice's view, its layout made here: index_layout's parsing costs ~5 us)
        lay = whole._layout
        solution = whole._view(Layout._trusted(lay.shape[:-2] + (n, k), lay.strides, 0))
    if vector:
        solution = solution[..., 0]
    return solution.contiguous() if solution._layout.shape == () else solution


def _fast_lstsq(A: Tensor, B: Tensor, rcond: Any, driver: str) -> Any:  # noqa: N803
    """lstsq with driver 'gelsy' of one finite float32/float64 system (A (m, n), B (m, k) or
    (m,), 1 <= m, n, k <= 64, rcond None or a float or int): its sgelsy/dgelsy call made in C on
    the storages (:data:`.matkernel.gelsy_colmajor`, the arguments ``._lapack.solve`` gives it,
    so the same bits), its results laid out as the general path lays them out. None (nothing
    done) for any other call, a non-finite element of A included (the general path refuses it).
    A and B are checked already: tensors of one float dtype, B of A's dims or one fewer."""
    if (driver != "gelsy" or A.__class__ is not Tensor or B.__class__ is not Tensor
            or A._dtype not in _FAST_FLOATS or not (rcond is None or rcond.__class__ in (float, int))):
        return None
    la, lb = A._layout, B._layout
    if len(la.shape) != 2 or lb.shape[0] != la.shape[0]:
        return None
    m, n = la.shape
    vector = len(lb.shape) == 1  # (A of two dims: B of one is PyTorch's vector case, of two matrices)
    k, bs1 = (1, 0) if vector else (lb.shape[1], lb.strides[1])
    rows = max(m, n)
    dt = A._dtype
    real = dt.numpy
    done = matkernel.gelsy_colmajor(A._storage.array, m, n, la.strides[0], la.strides[1], la.offset,
                                    B._storage.array, k, lb.strides[0], bs1, lb.offset,
                                    _eps(real) * rows if rcond is None else float(rcond))
    if done is None:
        return None
    whole = adopted(done[0], LA.colmajor_layouts[(rows, k)], dt)
    return R.linalg_lstsq(_solution(whole, n, k, vector), LA.rowmajor(np.zeros((0,), real), dt),
                          LA.int64_result(np.array(done[1], np.int64)), LA.rowmajor(np.zeros((0,), real), dt))




def _conj_product(r: np.ndarray) -> np.ndarray:
    """The real parts of PyTorch's ``r.mul_(r.conj())`` over each column of ``r`` (..., rows, k),
    a contiguous run in its column-major buffer: ``re * re + im * im`` with both products rounded
    (its vector loop, whole steps of 8 complex64 / 4 complex128 elements), but in the scalar loop
    over a column's last ``rows % step`` elements the compiler's fused ``fma(re, re, im * im)``
    (complex64: pairs of them; a last odd element is the plain sum again). Measured on PyTorch
    2.13's CPU kernel."""
    re, im = r.real, r.imag
    square = re * re + im * im
    rows = r.shape[-2]
    step = 8 if r.dtype == np.complex64 else 4
    tail = rows % step
    fused = tail - tail % 2 if step == 8 else tail
    if fused:
        at = slice(rows - tail, rows - tail + fused)
        square[..., at, :] = fma(re[..., at, :], re[..., at, :], im[..., at, :] * im[..., at, :])
    return square


_BOUND: list = []  # ([the bound LAPACK or None, its solve] once imported)


def _lapack() -> Any:
    """The bound LAPACK of :mod:`._lapack` (imported on the first lstsq: ctypes stays out of
    ``import strided``), or None where this NumPy bundles none."""
    if not _BOUND:
        from ._lapack import library, solve
        _BOUND.extend((library(), solve))
    return _BOUND[0]


def _lapack_lstsq(lapack: Any, a: np.ndarray, b: np.ndarray, rcond: float, driver: str) -> tuple:
    """:func:`._lapack.solve` (bound by :func:`_lapack`)."""
    return _BOUND[1](lapack, a, b, rcond, driver)


_REAL = {np.dtype(np.complex64): np.dtype(np.float32), np.dtype(np.complex128): np.dtype(np.float64)}  # (np.real's dtype)


def _lstsq_failure(A: Tensor, info: np.ndarray, batch: tuple, driver: str) -> LinAlgError:  # noqa: N803
    """PyTorch's error for a driver's INFO > 0 (gels: R's diagonal element INFO is exactly zero;
    gelsd/gelss: the SVD did not converge), naming the first such matrix of A's own batch."""
    if batch != A.shape[:-2]:  # (INFO depends on A alone: PyTorch keeps it per matrix of A)
        info = info[tuple(slice(0, 1) if size == 1 else slice(None) for size in A.shape[:-2])]
    flat = info.reshape(-1)
    index = int(np.flatnonzero(flat)[0])
    code = int(flat[index])
    prefix = f"(Batch element {index}): " if flat.size > 1 else ""
    why = (f"gels's QR of matrix {index} has an exactly zero diagonal element {code}: A does not have full rank"
           if driver == "gels" else f"{driver}'s SVD of matrix {index} did not converge ({code} superdiagonals left)")
    return LinAlgError(join_lines(
        f"torch.linalg.lstsq: {prefix}The least squares solution could not be computed because the input matrix "
        f"does not have full rank (error code: {code}).", why,
        "fix: driver='gelsy' (the default) or 'gelsd', which find the rank and give the minimum-norm solution"))


def _adjoint(x: np.ndarray) -> np.ndarray:
    """The conjugate transpose of the last two dims (a view for a real ``x``: its conjugate is itself)."""
    t = np.swapaxes(x, -1, -2)
    return np.conj(t) if x.dtype.kind == "c" else t


_EPS: dict[np.dtype, float] = {}  # (a few float dtypes: finfo costs a microsecond a call)


def _eps(dtype: np.dtype) -> float:
    """``float(np.finfo(dtype).eps)``, worked out once per dtype."""
    eps = _EPS.get(dtype)
    if eps is None:
        eps = _EPS[dtype] = float(np.finfo(dtype).eps)
    return eps


@backward("linalg_lstsq", operands="two")
def _lstsq_backward(out: Any, A: Tensor, B: Tensor, *args: Any, **kwargs: Any) -> Any:  # noqa: N803
    """LinalgLstsqBackward0 (the solution's gradient): ``X = pinv(A) B``, so ``gA`` is
    pinv_backward of ``gX B^H`` and ``gB = pinv(A)^H gX`` (PyTorch's convention for complex
    gradients; ``^H`` is ``^T`` for real inputs)."""
    vector = B.ndim == A.ndim - 1

    def grads(g: Tensor) -> tuple:
        pinv = linalg_pinv(A)
        gm = g.unsqueeze(-1) if vector else g
        bm = B.unsqueeze(-1) if vector else B
        ga = _pinv_grad(gm.matmul(bm.mH), pinv, A) if needs_grad(A) else None
        gb = pinv.mH.matmul(gm) if needs_grad(B) else None
        if gb is not None and vector:
            gb = gb.squeeze(-1)
        return (ga, gb)

    return "LinalgLstsqBackward0", (A, B), LA.pytorch_convention(A, grads), (A, B)


# ---------------------------------------------------------------- matrix_power


@method("matrix_power")
def matrix_power(A: Tensor, n: int, *, out: Any = None) -> Tensor:  # noqa: N803
    """``A`` (..., k, k) multiplied by itself ``n`` times (n < 0: its inverse's power; 0: the
    identity), by PyTorch's repeated squaring, so the graph is its matmuls (and inverse).

    >>> strided.linalg.matrix_power(strided.tensor([[1.0, 1.0], [0.0, 1.0]]), 3).tolist()
    [[1.0, 3.0], [0.0, 1.0]]
    """
    if n.__class__ is int and n > 1 and out is None and A.__class__ is Tensor:
        shape = A._layout.shape
        if len(shape) >= 2 and shape[-1] == shape[-2]:  # (the common call: every check below passes)
            return _squarings(A, n)
    if out is not None:  # (PyTorch's out= takes only the result's dtype)
        return write_out(out, matrix_power(A, n), "matrix_power", (A, n), "matmul",
                         cast_first="matrix_power: Expected result to be safely castable from {r} dtype, "
                         "but got result with dtype {o}")
    op = "linalg.matrix_power"
    tensor_arg(A, op)
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise StridedTypeError(join_lines(f"linalg_matrix_power(): argument 'n' (position 2) must be int, not "
                                          f"{type(n).__name__}", "n is the integer power"))
    LA.at_least_2d(A, op)
    k, k2 = A._layout.shape[-2:]
    if k != k2:
        raise StridedRuntimeError(join_lines(
            f"{op}: A must be batches of square matrices, but they are {k} by {k2} matrices",
            f"A has shape {shape_text(A.shape)}", "fix: a power needs square matrices"))
    n = int(n)
    if n == 0:
        eye = np.broadcast_to(np.eye(k, dtype=A._dtype.numpy), A._layout.shape)
        eye = LA.rowmajor(np.array(eye), A._dtype)
        # PyTorch's A.clone().copy_(eye): in the graph (CopyBackwards), its gradient zero
        return A.clone(memory_format=contiguous_format).copy_(eye) if A.requires_grad else eye
    # (PyTorch's linalg_matrix_power_impl: n == 1 a row-major clone whatever A's layout, n == -1
    # linalg_inv itself: its layout and node)
    if n == 1:
        return A.clone(memory_format=contiguous_format)
    if n == -1:
        return linalg_inv(A)
    if n < 0:
        A = linalg_inv(A)  # noqa: N806
        n = -n
    return _squarings(A, n)


def _squarings(A: Tensor, n: int) -> Tensor:  # noqa: N803
    """``A`` (a batch of square matrices) to the power ``n`` >= 2 by PyTorch's repeated squaring
    (linalg_matrix_power_impl: its n == 2 and n == 3 products written out, then the binary powers)."""
    if n == 2:
        return A.matmul(A)
    if n == 3:
        return A.matmul(A).matmul(A)
    z = res = None
    while n > 0:
        bit, n = n % 2, n // 2
        z = A if z is None else z.matmul(z)
        if bit:
            res = z if res is None else res.matmul(z)
    return res  # type: ignore[return-value]


det = linalg_det
inverse = linalg_inv

seal(globals())  # (last: this module's ops with a backward rule become their recording entries)
# the kinds of this module's ops, in the op registry (after the seal: the forwards are the entries)
declare(Kind.COMPUTE, "inverse linalg_inv linalg_inv_ex linalg_solve linalg_solve_ex det linalg_det linalg_slogdet slogdet "
        "linalg_pinv pinverse linalg_matrix_rank linalg_lstsq matrix_power logdet")
