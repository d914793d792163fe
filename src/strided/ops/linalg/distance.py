"""``cdist``: pairwise p-norm distances between the rows of two (batched) point sets, computed
without materializing the ``(P, R, M)`` broadcast of the differences.

- p = 2 through the matrix product (PyTorch's ``_euclidean_dist``, used when
  ``compute_mode`` asks for it or, by default, when either set has more than 25 rows):
  ``|a|^2 + |b|^2 - 2 a.b`` as one product of padded operands, clamped at 0, square-rooted —
  all written into the output itself, so the only extra memory is the padded (P, M + 2) and
  (R, M + 2) operands. Like PyTorch's, it loses
  precision for near-equal points (the cancellation in ``|a|^2 + |b|^2 - 2 a.b``).
- Any other p (and p = 2 without the product): the differences are taken for a block of rows
  of ``x1`` at a time, the block sized so that its ``(rows, R, M)`` temporary stays under
  :data:`CHUNK_BYTES`, then reduced into the output rows.

Either way the peak extra memory is a few MB beyond the output, whatever P and R.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...args import float_arg
from ...dispatch import OPEN, adopted, result_array
from ...dispatch import result as new_result
from ...dtypes import float32, float64
from ...errors import StridedRuntimeError, StridedTypeError, StridedValueError, join_lines
from ...gradients import not_differentiable, seal
from ...kernels.fpstate import QUIET, quiet_reset, quiet_set, quietly
from ...kernels.memory import dense_run
from ...kernels.rows import cdist2
from ...lazy_names import function_on_first_call
from ...opdef import Kind, declare
from ...tensor import Tensor, tensor_arg
from .._support import gradtools
from .._support.operands import _cinfo, _not_implemented, flat_run
from .._support.promotion import TORCH_NAMES
from .._support.reduce_args import shape_text
from ..registry import backward, method
from ..shape.broadcasting import broadcast_pair
from .norms import fast_euclidean, vector_norm

# (PyTorch's summation orders: loaded on the first reduction that needs one; see strided.lazy_names.function_on_first_call)
norm2_rows = function_on_first_call("strided.kernels.torch_sum", "norm2_rows", globals())

CHUNK_BYTES = 4 * 2**20  # the most a block of differences may take (the rest is the output)

_MODES = ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist")


def _check(x1: Tensor, x2: Tensor, p: Any, compute_mode: str) -> None:
    for name, t in (("X1", x1), ("X2", x2)):
        if t.ndim < 2:
            raise StridedRuntimeError(
                join_lines(
                    f"cdist only supports at least 2D tensors, {name} got: {t.ndim}D",
                    f"{name} has shape {shape_text(t.shape)}; cdist takes point sets (..., points, coordinates), "
                    "e.g. x.reshape(-1, 1) for scalars",
                )
            )
    for name, t in (("X1", x1), ("X2", x2)):
        if not t._dtype.is_floating_point:
            raise StridedRuntimeError(
                join_lines(
                    f"cdist only supports floating-point dtypes, {name} got: {TORCH_NAMES[t._dtype]}",
                    f"fix: convert first, e.g. {name.lower()}.to(strided.float32)",
                )
            )
    half = ("float16", "bfloat16")
    if (x1._dtype.name in half or x2._dtype.name in half) and x1.numel() and x2.numel():
        # (PyTorch's float16/bfloat16 refusal is in its kernel, which an empty input does not reach)
        raise _not_implemented("cdist", x1._dtype if x1._dtype.name in half else x2._dtype)
    if x1._dtype is not x2._dtype:
        raise StridedRuntimeError(
            join_lines(
                f"expected scalar type {TORCH_NAMES[x1._dtype]} but found {TORCH_NAMES[x2._dtype]}",
                f"cdist does not promote: x1 is {x1._dtype.name}, x2 is {x2._dtype.name}; "
                f"fix: x2.to(strided.{x1._dtype.name})",
            )
        )
    if x1.shape[-1] != x2.shape[-1]:
        raise StridedRuntimeError(
            join_lines(
                f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}",
                f"x1 has shape {shape_text(x1.shape)}, x2 {shape_text(x2.shape)}: the last dim is the "
                "coordinates of each point, and both sets need the same number",
            )
        )
    if math.isnan(p) or p < 0:  # (p: an int or a float, cdist's float_arg)
        raise StridedRuntimeError(
            join_lines("cdist only supports non-negative p values", f"got p={p!r}; p is 0, 1, 2, inf or any p > 0")
        )
    if compute_mode not in _MODES:
        raise StridedValueError(
            join_lines(f"{compute_mode} is not a valid value for compute_mode", "valid: " + ", ".join(_MODES))
        )


def cdist(x1: Tensor, x2: Tensor, p: float = 2.0,
          compute_mode: str = "use_mm_for_euclid_dist_if_necessary") -> Tensor:
    """Distances ``out[..., i, j] = ||x1[..., i, :] - x2[..., j, :]||_p`` for (batched) point sets
    ``x1`` (..., P, M) and ``x2`` (..., R, M); batch dims broadcast; float32/float64 of one dtype.

    p: 0 (how many coordinates differ), 1, 2, inf (the largest difference) or any p > 0.
    Peak extra memory stays a few MB beyond the (..., P, R) output (module docstring).

    >>> strided.cdist(strided.tensor([[0.0, 0.0]]), strided.tensor([[3.0, 4.0], [1.0, 0.0]])).tolist()
    [[5.0, 1.0]]
    """
    if (p.__class__ is float or p.__class__ is int) and p == 2 and compute_mode == _DEFAULT_MODE:
        fast = _small_euclidean(x1, x2)
        if fast is not None:
            return fast
    tensor_arg(x1, "cdist", "x1")
    tensor_arg(x2, "cdist", "x2", 2)
    if p.__class__ is not float and p.__class__ is not int:
        p = float_arg(p, "cdist", "p", 3)  # (PyTorch's double: True is 1, np.int64(1) and tensor(1.) too)
    _check(x1, x2, p, compute_mode)
    batch = tuple(broadcast_pair(x1.shape[:-2], x2.shape[:-2]))
    rows1, rows2, m = x1.shape[-2], x2.shape[-2], x1.shape[-1]
    result, out = result_array((*batch, rows1, rows2), x1._dtype)
    a = np.broadcast_to(x1._np(), (*batch, rows1, m))
    b = np.broadcast_to(x2._np(), (*batch, rows2, m))
    use_mm = p == 2 and (
        compute_mode == "use_mm_for_euclid_dist"
        or (compute_mode == "use_mm_for_euclid_dist_if_necessary" and (rows1 > 25 or rows2 > 25))
    )
    token = quiet_set(QUIET)
    try:
        if out.size == 0:
            pass
        elif m == 0:
            out[...] = 0
        elif use_mm:
            _euclidean_mm(a, b, out)
        else:
            _chunked(a, b, float(p), out)
    finally:
        quiet_reset(token)
    return result


_DEFAULT_MODE = "use_mm_for_euclid_dist_if_necessary"
_FAST = frozenset({float32, float64})


def _small_euclidean(x1: Any, x2: Any) -> Tensor | None:
    """cdist's small-op fast path: two row-major 2-D point sets of one float32/float64 dtype, at
    most 25 points each (PyTorch's threshold for the matrix-product form) and fitting one block of
    differences, p = 2: the general path's one block of :func:`_chunked`, on the flat runs; None
    when a precondition fails."""
    if x1.__class__ is not Tensor or x2.__class__ is not Tensor or x1._dtype is not x2._dtype \
            or x1._dtype not in _FAST:
        return None
    s1, s2 = x1._layout.shape, x2._layout.shape
    if len(s1) != 2 or len(s2) != 2 or s1[1] != s2[1] or not (0 < s1[0] <= 25 and 0 < s2[0] <= 25 and s1[1]) \
            or s1[0] * s2[0] * s1[1] * x1._dtype.itemsize > CHUNK_BYTES:
        return None
    a, b = flat_run(x1, _cinfo[s1]), flat_run(x2, _cinfo[s2])
    if a is None or b is None:
        return None
    result = new_result((s1[0], s2[0]), x1._dtype)
    a, b, out = a.reshape(s1), b.reshape(s2), result._storage.array.reshape(s1[0], s2[0])
    kernel = cdist2()
    if kernel is None or not kernel(a, b, out):  # (the compiled block: the same operations, in C)
        quietly(_euclidean_block, a, b, out)
    return result


def _euclidean_block(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
    """One block of :func:`_chunked` for p = 2 (its same operations, in its order)."""
    diff = a[:, None, :] - b[None, :, :]
    np.abs(diff, out=diff)
    np.multiply(diff, diff, out=diff)
    np.add.reduce(diff, axis=-1, out=out)
    np.sqrt(out, out=out)


def _euclidean_mm(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
    """``sqrt(max(|a|^2 + |b|^2 - 2 a.b, 0))`` into ``out``, as PyTorch's ``_euclidean_dist``: one
    matrix product of the padded operands ``[-2a, |a|^2, 1]`` and ``[b, 1, |b|^2]`` writes the
    squared distances straight into ``out`` (the padded copies are (P, M + 2) and (R, M + 2),
    small beside the (P, R) output), then a clamp and a square root in place."""
    m = a.shape[-1]
    pa = np.empty((*a.shape[:-1], m + 2), dtype=out.dtype)
    np.multiply(a, -2, out=pa[..., :m])
    np.einsum("...i,...i->...", a, a, out=pa[..., m])  # squared norms: no (P, M) temporary
    pa[..., m + 1] = 1
    pb = np.empty((*b.shape[:-1], m + 2), dtype=out.dtype)
    pb[..., :m] = b
    pb[..., m] = 1
    np.einsum("...i,...i->...", b, b, out=pb[..., m + 1])
    np.matmul(pa, np.swapaxes(pb, -1, -2), out=out)
    np.maximum(out, 0, out=out)
    np.sqrt(out, out=out)


def _chunked(a: np.ndarray, b: np.ndarray, p: float, out: np.ndarray) -> None:
    """The p-norm of the differences, a block of x1's rows at a time (each block's differences
    take at most :data:`CHUNK_BYTES`)."""
    batch = out.shape[:-2]
    rows1, rows2, m = a.shape[-2], b.shape[-2], a.shape[-1]
    per_row = max(1, rows2 * m * a.itemsize)
    step = max(1, CHUNK_BYTES // per_row)
    for index in np.ndindex(*batch):
        ai, bi, oi = a[index], b[index], out[index]
        for start in range(0, rows1, step):
            stop = min(start + step, rows1)
            diff = ai[start:stop, None, :] - bi[None, :, :]  # (block, R, M), <= CHUNK_BYTES
            np.abs(diff, out=diff)
            target = oi[start:stop]
            if p == 2:
                np.multiply(diff, diff, out=diff)
                np.add.reduce(diff, axis=-1, out=target)
                np.sqrt(target, out=target)
            elif p == 1:
                np.add.reduce(diff, axis=-1, out=target)
            elif p == math.inf:
                np.maximum.reduce(diff, axis=-1, out=target)
            elif p == 0:
                np.add.reduce(diff != 0, axis=-1, out=target, dtype=target.dtype)
            else:
                np.power(diff, p, out=diff)
                np.add.reduce(diff, axis=-1, out=target)
                np.power(target, 1.0 / p, out=target)
            del diff  # (freed before the next block's is made: one block alive at a time)


# ---------------------------------------------------------------- backward rule


def _cdist_grad(g: np.ndarray, a: np.ndarray, b: np.ndarray, dist: np.ndarray, p: float) -> np.ndarray:
    """The gradient of x1 (a: (..., P, M); b: (..., R, M); g, dist: (..., P, R)), PyTorch's
    _cdist_backward: per pair the derivative of ||a_i - b_j||_p by a_i, times g, summed over j.
    Where a distance is 0 the pair gives 0 (and where a difference is 0 for p < 1)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        if p == 2:  # g d/da ||a - b|| = g (a - b) / d: two matrix products, no (P, R, M) block
            w = np.where(dist == 0, 0, g / dist)
            return a * w.sum(-1)[..., None] - w @ b
        diff = a[..., :, None, :] - b[..., None, :, :]  # (..., P, R, M)
        gd = g[..., None]
        dd = dist[..., None]
        if p == 0:
            return np.zeros(np.broadcast_shapes(a.shape, (*g.shape[:-1], a.shape[-1])), a.dtype)
        if p == 1:
            each = np.sign(diff) * gd
        elif p == math.inf:
            each = np.sign(diff) * (np.abs(diff) == dd) * gd
        elif p < 2:
            each = np.sign(diff) * np.abs(diff) ** (p - 1) * gd / dd ** (p - 1)
            each = np.where((dd == 0) | ((diff == 0) & (p < 1)), 0, each)
        else:
            each = diff * np.abs(diff) ** (p - 2) * gd / dd ** (p - 1)
            each = np.where(dd == 0, 0, each)
        return each.sum(-2)


@backward("cdist", operands="two")
def cdist_backward(out: Tensor, x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode: Any = None) -> Any:
    """CdistBackward0; x2's gradient is x1's formula with the roles swapped (the transposed
    distances and gradient), as PyTorch computes it.

    # Note: for p=2 and more than 25 rows PyTorch computes through its matrix-product path, whose
    # graph is the composite's (other node names); strided records CdistBackward0 always.
    """
    p = float(p)

    def grads(g: Tensor) -> tuple:
        a, b, d, gn = x1._np(), x2._np(), out._np(), g._np()
        want1, want2 = gradtools.needs_grad(x1), gradtools.needs_grad(x2)
        g1 = _cdist_grad(gn, a, b, d, p) if want1 else None
        g2 = _cdist_grad(np.swapaxes(gn, -1, -2), b, a, np.swapaxes(d, -1, -2), p) if want2 else None
        # (PyTorch has no derivative of _cdist_backward: under create_graph, its error)
        return tuple(None if r is None else not_differentiable(gradtools.from_numpy_result(r, g._dtype),
                                                               "_cdist_backward", (g, x1, x2, out))
                     for r in (g1, g2))

    return "CdistBackward0", (x1, x2), grads, (x1, x2, out)


@method("dist")
def dist(input: Tensor, other: Tensor, p: Any = 2) -> Tensor:  # noqa: A002
    """The p-norm of ``input - other`` (broadcast, promoted): ``torch.dist``, as PyTorch computes it
    (``norm(input - other, p)``), so its gradient is the norm's (0 where the two are equal, p=2).
    Floating or complex inputs only (a complex difference gives a real norm).

    >>> strided.dist(strided.tensor([3.0, 0.0]), strided.tensor([0.0, 4.0])).item()
    5.0
    """
    if not OPEN and p.__class__ in (int, float) and p == 2 and input.__class__ is Tensor and \
            other.__class__ is Tensor and input._ag is None and other._ag is None:
        fast = _fast_dist(input, other)
        if fast is not None:
            return fast
    a = tensor_arg(input, "dist")
    b = tensor_arg(other, "dist", "other", 2)
    if isinstance(p, Tensor):
        p = p.item()
    if isinstance(p, (bool, np.bool_)):
        p = int(p)  # (PyTorch's Scalar p: True is 1, False 0; vector_norm's ord refuses a bool)
    elif not isinstance(p, (int, float, complex, np.generic)):
        raise StridedTypeError(join_lines(f"dist(): argument 'p' must be Number, not {type(p).__name__}",
                                          f"got p={p!r:.40}; p is a number: 1, 2, inf, ..."))
    if isinstance(p, complex):
        raise StridedRuntimeError(join_lines("linalg.vector_norm: Expected a non-complex scalar as the order of norm.",
                                             f"dist: p={p!r}", "fix: a real p"))
    diff = a - b
    if not (diff._dtype.is_floating_point or diff._dtype.is_complex):
        raise StridedRuntimeError(join_lines(
            f"norm(): input dtype should be either floating point or complex. Got {TORCH_NAMES[diff._dtype]} instead.",
            f"dist: input - other is {diff._dtype.name}", "fix: convert first, e.g. input.to(strided.float32)"))
    if not OPEN and diff._ag is None and p.__class__ in (int, float) and p == 2:  # (watched: the general records)
        fast = fast_euclidean(diff, None, False)
        if fast is not None:
            return fast
    return vector_norm(diff, p)


def _fast_dist(a: Tensor, b: Tensor) -> Tensor | None:
    """dist's p = 2 of two plain row-major (or permuted dense, with one layout) float32/float64
    tensors of one dtype and one shape, more than one element: the path below's steps -- ``a - b`` (one IEEE subtraction per pair, as the
    operator's), then :func:`fast_euclidean`'s call on that fresh row-major difference
    (``norm2_rows`` of its one run) -- without the operator's entry or the norm's plan; None
    where a precondition fails (the path below decides)."""
    dt = a._dtype
    if b._dtype is not dt or dt not in _FAST:
        return None
    shape = a._layout.shape
    if b._layout.shape != shape:
        return None
    info = _cinfo[shape]
    if info[1] < 2:  # (one element: the norm is |x|, the general path's; none: its empty sum)
        return None
    fa, fb = flat_run(a, info), flat_run(b, info)
    if fa is None or fb is None:
        # two transposes of one layout: their runs in memory order, which is the order the
        # difference (laid out as they are) is reduced in (its dims coalesce into one run);
        # 1M float32: ~330 -> ~250 us, PyTorch ~290 (the operator and the norm's plan skipped)
        if a._layout.strides != b._layout.strides:
            return None
        da, db = dense_run(a, info[1]), dense_run(b, info[1])
        if da is None or db is None:
            return None
        fa, fb = da[0], db[0]
    diff = quietly(np.subtract, fa, fb)
    return adopted(norm2_rows(diff.reshape(1, -1)), _cinfo[()][2], dt)


seal(globals())  # (last: this module's ops with a backward rule become their recording entries)
# the kinds of this module's ops, in the op registry (after the seal: the forwards are the entries)
declare(Kind.COMPUTE, "cdist dist")
