"""The losses of ``strided.nn.functional``: ``cross_entropy`` (class indices or class
probabilities, ``label_smoothing``), ``nll_loss``, ``mse_loss``, ``l1_loss``, ``smooth_l1_loss``,
``binary_cross_entropy``, ``binary_cross_entropy_with_logits``; PyTorch 2.13's shapes, dtypes,
reductions and errors (class and first line).

The forwards compute with NumPy on zero-copy views of the inputs (class-index gathers with
``np.take_along_axis``); float16 inputs are computed in float32 and rounded once, as PyTorch's
CPU kernels do. ``cross_entropy`` on an input that requires grad and ``l1_loss`` are built from
the differentiable ops, so their graphs are PyTorch's (NllLossBackward0 over
LogSoftmaxBackward0; MeanBackward0 over AbsBackward0).

Each backward rule (``@backward("F.<name>")``, PyTorch's node name and derivatives.yaml formula)
is written with strided's recording ops, so a ``create_graph=True`` backward differentiates it
again (the Hessian, a gradient penalty) as PyTorch's double backward does; the class weights and
the target's class indices are constants of the rule.

>>> F.cross_entropy(strided.zeros(2, 4), strided.tensor([1, 3])).item()  # log(4)
1.3862943649291992
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from ...callsite import user_site
from ...dispatch import adopted, report, result, result_array
from ...dtypes import TORCH_NAME, DType, bool_, float32, float64, int64, uint8
from ...errors import StridedIndexError, StridedRuntimeError, StridedValueError, join_lines
from ...grad_mode import GRAD_MODE, SUBCLASSES, grad_enabled_at_call, requires_grad
from ...gradients import seal
from ...kernels.fpstate import QUIET, quiet_reset, quiet_set, quietly
from ...kernels.listeners import OPEN
from ...kernels.memory import flat_run
from ...kernels.native import special
from ...kernels.rows import _kernel_module as _row_kernel
from ...kernels.rows import nll_sum as _nll_sum
from ...kernels.sleef import step
from ...kernels.torch_sum import sum_array
from ...layout.order import preserve_format_strides
from ...opdef import Kind, declare
from ...ops._support.gradtools import linked
from ...ops._support.memo import Memo
from ...ops._support.operands import _cinfo, _fresh_output
from ...ops._support.promotion import result_type
from ...ops.elementwise.activations_more import _logsigmoid_compiled
from ...ops.reductions.softmax import log_softmax as _log_softmax
from ...ops.registry import backward
from ...ops.shape.broadcasting import broadcast_pair
from ...tensor import Tensor, tensor_arg
from ._common import (
    _SCALAR,
    array_like,
    array_result,
    compute_dtype,
    dense_pair_loss,
    float_only,
    fresh_loss,
    g_format,
    pair_loss,
    pair_runs,
    reduction_mode,
    scalar_result,
)

__all__ = ["binary_cross_entropy", "binary_cross_entropy_with_logits", "cross_entropy", "l1_loss", "mse_loss",
           "nll_loss", "smooth_l1_loss"]


def _nll_geometry(input: Tensor, target: Tensor) -> tuple[int, tuple[int, ...]]:
    """PyTorch's ``nll_loss_nd`` shape checks; returns (the class dim, the shape of a loss per element)."""
    shape, tshape = input._layout.shape, target._layout.shape
    if len(shape) < 1:  # (only reached by nll_loss)
        raise StridedValueError(
            join_lines(f"Expected 1 or more dimensions (got {len(shape)})",
                       "the input holds class scores: (C,), (N, C) or (N, C, d1, ...)")
        )
    if len(shape) != 1 and (not tshape or shape[0] != tshape[0]):
        raise StridedValueError(
            join_lines(
                f"Expected input batch_size ({shape[0]}) to match target batch_size ({tshape[0] if tshape else 0}).",
                f"the input has shape {shape} (batch, classes, ...) and the target {tshape}: one class "
                "index per sample, so the target's first size must be the batch size",
            )
        )
    if len(shape) <= 2:
        if len(tshape) > 1:
            raise StridedRuntimeError(
                join_lines("0D or 1D target tensor expected, multi-target not supported",
                           f"the target has shape {tshape}; for an input of shape {shape} give one class "
                           "index per sample (shape (N,)), or class probabilities of the input's shape")
            )
        if len(shape) == 1:
            if tshape not in ((), (1,)):
                raise StridedValueError(
                    join_lines(f"For 1D input, 1D target must have size 1, but got target size: {tshape[0]}",
                               "a 1-D input is one sample: its target is one class index (0-d, or of shape (1,))")
                )
            return 0, ()
        return 1, tshape
    if len(shape) == 4 and len(tshape) != 3:
        raise StridedRuntimeError(
            join_lines(
                f"only batches of spatial targets supported (3D tensors) but got targets of dimension: {len(tshape)}",
                f"an input of shape {shape} (N, C, H, W) takes class indices of shape (N, H, W)",
            )
        )
    expected = (shape[0], *shape[2:])
    if tshape != expected:
        raise StridedRuntimeError(
            join_lines(f"Expected target size {list(expected)}, got {list(tshape)}",
                       f"an input of shape {shape} (N, C, d1, ...) takes class indices of shape (N, d1, ...)")
        )
    return 1, tshape


def _check_target_dtype(target: Tensor) -> None:
    if target._dtype not in (int64, uint8):
        raise StridedRuntimeError(
            join_lines(f"expected target dtype to be Long or Byte, but got {TORCH_NAME[target._dtype.name]}",
                       "class-index targets are int64 (probability targets have the input's shape)",
                       "fix: target.to(strided.int64)")
        )


def _refuse_grad(t: Any, function: str, argument: str) -> None:
    """PyTorch's refusal of a tensor that requires grad (grad mode on) for an argument its kernel
    has no derivative for (the class weights of nll_loss, the weights of binary_cross_entropy)."""
    if isinstance(t, Tensor) and t._ag is not None and requires_grad(t) and grad_enabled_at_call():
        raise StridedRuntimeError(join_lines(
            f"The function '{function}' is not differentiable with respect to argument '{argument}'. "
            "This input cannot have requires_grad True.",
            f"{argument} (shape {t._layout.shape}) requires grad, but {function} gives it no gradient: it would "
            "silently stay None",
            f"fix: pass {argument}.detach()"))


def _check_weight(weight: Any, classes: int, input: Tensor, same_dtype: bool = True) -> np.ndarray | None:
    """The class weights as the compute dtype's array, after PyTorch's checks: one per class and,
    for class-index targets (``same_dtype``), the input's dtype (PyTorch's nll_loss kernels read
    them as the input's type; class-probability targets promote instead)."""
    if weight is None:
        return None
    tensor_arg(weight, "nll_loss", "weight", 3)
    if weight.ndim != 1 or weight.numel() != classes:
        raise StridedRuntimeError(
            join_lines(f"weight tensor should be defined either for all {classes} classes or no classes but got "
                       f"weight tensor of shape: {list(weight.shape)}",
                       f"give one weight per class: shape ({classes},)")
        )
    if same_dtype and weight._dtype is not input._dtype:
        raise StridedRuntimeError(
            join_lines(f"expected scalar type {TORCH_NAME[input._dtype.name]} but found {TORCH_NAME[weight._dtype.name]}",
                       f"with class-index targets the class weights take the input's dtype ({input._dtype.name}); "
                       f"they are {weight._dtype.name}",
                       f"fix: weight.to(strided.{input._dtype.name})")
        )
    return weight._np().astype(compute_dtype(input._dtype))


def _as_ncs(array: np.ndarray, class_dim: int) -> np.ndarray:
    """(C,) or (N, C, d1, ...) as (N, C, S) (a view where NumPy can make one)."""
    if class_dim == 0:
        return array.reshape(1, array.shape[0], 1)
    return array.reshape(array.shape[0], array.shape[1], math.prod(array.shape[2:]))


def _nll(logp: np.ndarray, target: Tensor, class_dim: int, weight: np.ndarray | None, ignore_index: int
         ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-element losses -w[t] * logp[t] (N, S), their weights (0 where ignored), and the ignore mask."""
    lp = _as_ncs(logp, class_dim)
    n, classes, s = lp.shape
    t = target._np().astype(np.int64, copy=False).reshape(n, s)  # (read only: a view may do)
    ignored = t == ignore_index
    some_ignored = bool(ignored.any())  # (without any, the masks below are skipped: the same values)
    bad = (t < 0) | (t >= classes)
    if some_ignored:
        bad &= ~ignored
    if bad.any():
        value = int(t[bad][0])
        raise StridedIndexError(
            join_lines(f"Target {value} is out of bounds.",
                       f"class indices run from 0 to {classes - 1} (the input has {classes} classes); "
                       f"{int(bad.sum())} target(s) fall outside (ignore_index={ignore_index} is skipped)")
        )
    safe = np.where(ignored, 0, t) if some_ignored else t
    picked = lp[np.arange(n)[:, None], safe, np.arange(s)]  # (take_along_axis over the class dim)
    w = np.ones(safe.shape, dtype=lp.dtype) if weight is None else weight[safe]
    w = (np.where(ignored, 0, w) if some_ignored else w).astype(lp.dtype, copy=False)
    losses = -w * picked
    if some_ignored:  # (PyTorch writes 0 for an ignored sample: not -0 * x, nor NaN where x is NaN/inf)
        losses[ignored] = 0
    return losses, w, ignored


_NEG_ONES: dict[tuple[int, np.dtype], np.ndarray] = {}  # (rows, dtype) -> -ones((rows, 1)), read-only
_ROWS: dict[int, np.ndarray] = {}  # rows -> arange(rows), read-only


def _all_kept(target: Tensor, classes: int, ignore_index: int) -> bool:
    """Whether ``target`` is int64 and every index is a class (in [0, ``classes``)) that is not
    ``ignore_index``; at most 2**24 of them (their count is exact as a float32 sum of ones)."""
    n = target._layout.shape[0] if target._layout.shape else 1
    if not n or n > 1 << 24 or 0 <= ignore_index < classes or target._dtype is not int64:
        return False
    return bool(target._np().view(np.uint64).max() < classes)  # (a negative index: a huge uint64)


def _rows_of(n: int) -> np.ndarray:
    """``arange(n)``, read-only, remembered per ``n`` (the row indices of the target picks)."""
    rows = _ROWS.get(n)
    if rows is None:
        if len(_ROWS) > 64:
            _ROWS.clear()
        rows = _ROWS[n] = np.arange(n)
        rows.flags.writeable = False
    return rows


def _nll_rows(logp: np.ndarray, target: Tensor, ignore_index: int, red: str) -> Any:
    """The reduced loss of :func:`nll_loss` for a (N, C) input without class weights, when no
    target is ignored or out of bounds (every int64 index in [0, C), ``ignore_index`` outside that
    range), else None (the general path then runs, with its errors). The same NumPy steps on the
    same values as :func:`_nll` and :func:`_reduce` there: ``-w * picked`` with ``w`` all ones of
    shape (N, 1), PyTorch's cascade sum of them (:func:`torch_nll_cascade`), for "mean" over N,
    without building the masks that case does not need."""
    n, classes = logp.shape
    if red == "mean" and n and n <= 1 << 24 and not 0 <= ignore_index < classes and target._dtype is int64:
        # (the compiled picks and pairwise sum, the same operations as below: the same bits; None
        # for a target outside [0, classes), a NaN sum or no kernel: the steps below decide)
        k = _row_kernel()
        t = target._storage.array
        lay = target._layout
        if k is not None and lay.strides == (1,) and logp.flags.c_contiguous:
            total = k.nll_sum(logp, t if not lay.offset and len(t) == n else t[lay.offset : lay.offset + n], classes)
            if total is not None:
                d = logp.dtype.type
                return d(total) / d(n)
    if not _all_kept(target, classes, ignore_index):
        return None
    neg = _NEG_ONES.get((n, logp.dtype))
    if neg is None:
        if len(_NEG_ONES) > 64:
            _NEG_ONES.clear()
        neg = _NEG_ONES[(n, logp.dtype)] = -np.ones((n, 1), dtype=logp.dtype)
        neg.flags.writeable = False
    losses = neg * logp[_rows_of(n), target._np()].reshape(n, 1)
    total = torch_nll_cascade(losses.reshape(-1))[0]
    if red == "sum":
        return total
    return quietly(np.divide, total, logp.dtype.type(n))  # (_reduce's errstate: quietly)


_add_reduce = np.add.reduce


def torch_nll_cascade(values: np.ndarray, weights: np.ndarray | None = None, skip: np.ndarray | None = None
                      ) -> tuple[Any, Any]:
    """PyTorch's nll_loss reduction of per-sample losses ``values`` (1-d; their ``weights`` and the
    ``skip`` mask of ignored samples alike), ``(loss total, weight total)`` as scalars of
    ``values``' dtype (the weight total 0 without ``weights``): LossNLL.cpp's cascade of eight
    partial sums, flushed upward after each kept sample whose index is a multiple of 16, 256, ...
    (see ``nll_cascade`` in _rowkernel.c, which runs it where built; the same steps here
    otherwise, in NumPy scalars of the dtype: float16/bfloat16 round each add, as PyTorch's Half).

    >>> torch_nll_cascade(np.array([1.0, 2.0, 3.0], np.float32))[0]
    np.float32(6.0)
    """
    d = values.dtype.type
    k = _row_kernel()
    if k is not None and (d is np.float32 or d is np.float64):
        done = k.nll_cascade(values, weights, skip)
        if done is not None:
            return d(done[0]), d(done[1])
    n = len(values)
    power = max(4, (n - 1).bit_length() // 8) if n > 1 else 4
    mask = (1 << power) - 1
    zero = d(0)
    loss, wsum = [zero] * 8, [zero] * 8
    vals = list(values)  # (NumPy scalars of the dtype: each + rounds in it)
    ws = list(weights) if weights is not None else None
    kept = skip.tolist() if skip is not None else None
    for b in range(n):
        if kept is not None and kept[b]:
            continue
        loss[0] = loss[0] + vals[b]
        if ws is not None:
            wsum[0] = wsum[0] + ws[b]
        j = 0
        while j < 7 and not b & (mask << (j * power)):
            loss[j + 1], loss[j] = loss[j + 1] + loss[j], zero
            wsum[j + 1], wsum[j] = wsum[j + 1] + wsum[j], zero
            j += 1
    total = weight = zero
    for j in range(8):
        total, weight = total + loss[j], weight + wsum[j]
    return total, weight


def _nll_total(losses: np.ndarray, weights: np.ndarray, ignored: np.ndarray, red: str, weighted: bool,
               dtype: np.dtype) -> Any:
    """The reduced loss of a (C,) or (N, C) input as PyTorch's nll_loss_out_frame gives it: the
    per-sample losses (``-w * x``, in the input's ``dtype``: exactly PyTorch's products) summed by
    :func:`torch_nll_cascade`, ignored samples skipped; "mean" over the count kept, or over the
    weights' cascade total with class weights."""
    values = losses.reshape(-1).astype(dtype, copy=False)
    skip = ignored.reshape(-1)
    skip = skip if skip.any() else None
    w = weights.reshape(-1).astype(dtype, copy=False) if weighted else None
    total, weight_total = torch_nll_cascade(values, w, skip)
    if red == "sum":
        return total
    count = weight_total if weighted else dtype.type(values.size - (int(skip.sum()) if skip is not None else 0))
    with np.errstate(all="ignore"):  # (every sample ignored: 0 / 0, NaN as PyTorch's)
        return total / count


def _torch_reduced(per: np.ndarray, red: str) -> Any:
    """PyTorch's ``apply_loss_reduction`` of the per-element loss ``per``: its ``sum()`` or
    ``mean()`` (the sum over the count), PyTorch's order of adds (:func:`sum_array`) where ``per``
    is float32 / float64 (the loss's own dtype: PyTorch's loss tensor), else NumPy's."""
    if per.dtype.kind != "f" or per.dtype.itemsize < 4:
        return per.sum() if red == "sum" else (per.mean() if per.size else np.nan)
    total = sum_array(per, None, False)
    if red == "sum":
        return total
    with np.errstate(invalid="ignore"):  # (no elements: PyTorch's 0 / 0, the platform's default NaN, as mean())
        return total / total.dtype.type(per.size)


def _reduce(losses: np.ndarray, denominator: Any, reduction: str) -> Any:
    if reduction == "sum":
        return losses.sum()
    with np.errstate(all="ignore"):
        return losses.sum() / denominator


def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average: Any = None,
             ignore_index: int = -100, reduce: Any = None, reduction: str = "mean") -> Tensor:
    """The negative log-likelihood of class indices ``target`` under log-probabilities ``input``
    ((C,), (N, C) or (N, C, d1, ...)); ``weight`` per class, ``ignore_index`` skipped; a mean
    weighted by the targets' weights (NaN when every target is ignored), a sum, or per element.

    >>> F.nll_loss(strided.tensor([[-0.1, -2.3]]), strided.tensor([0])).item()  # doctest: +ELLIPSIS
    0.1...
    """
    if not OPEN and (fresh := _nll_loss_fresh(input, target, weight, size_average, ignore_index, reduce,
                                              reduction)) is not None:
        return fresh  # (the common call, nobody listening: its fast path's own checks pass every one below)
    red = reduction_mode(reduction, size_average, reduce)
    tensor_arg(input, "nll_loss")
    tensor_arg(target, "nll_loss", "target", 2)
    class_dim, loss_shape = _nll_geometry(input, target)
    classes = input._layout.shape[class_dim]
    _refuse_grad(weight, "nll_loss_forward" if input.ndim <= 2 else "nll_loss2d_forward", "weight")
    w = _check_weight(weight, classes, input)
    _check_target_dtype(target)
    if not input._dtype.is_floating_point:
        kernel = "nll_loss_out_frame" if input.ndim <= 2 else "nll_loss2d_forward_out_frame"  # (PyTorch's CPU kernels)
        raise float_only(kernel, input._dtype, "nll_loss")
    logp = input._np().astype(compute_dtype(input._dtype), copy=False)
    # (float16/bfloat16 go the general way: PyTorch sums their losses in the half type)
    if w is None and red != "none" and class_dim == 1 and len(loss_shape) == 1 and logp.dtype == input._dtype.numpy:
        value = _nll_rows(logp, target, int(ignore_index), red)
        if value is not None:
            return scalar_result(value, input._dtype, "nll_loss", (input, target))
    losses, weights, ignored = _nll(logp, target, class_dim, w, int(ignore_index))
    inputs = tuple(x for x in (input, target, weight) if x is not None)
    if red == "none":
        if not loss_shape:  # (a 1-D input: PyTorch's reducing branch, its sum from +0: a -0 loss is +0)
            losses = losses + losses.dtype.type(0)
        return array_result(losses, loss_shape, input._dtype, "nll_loss", inputs)
    return scalar_result(_nll_reduced(losses, weights, ignored, red, w, input), input._dtype, "nll_loss", inputs)


def _nll_loss_fresh(input: Any, target: Any, weight: Any = None, size_average: Any = None, ignore_index: Any = -100,
                    reduce: Any = None, reduction: Any = "mean") -> Tensor | None:
    """nll_loss's fresh fast path for its entry (:func:`strided.grad_mode.track`'s ``__fresh__``: a
    training loop's ``cross_entropy``): a (N, C) float32/float64 input, an int64 (N,) target, no
    class weights, no legacy arguments, "mean" or "sum", an int ``ignore_index``: every check of
    :func:`nll_loss` passes there, and :func:`_nll_rows` (its own step for that case) computes the
    loss; None where it declines (an ignored or out-of-range target) or any condition fails."""
    if (weight is not None or size_average is not None or reduce is not None
            or (reduction != "mean" and reduction != "sum") or ignore_index.__class__ is not int
            or (input.__class__ is not Tensor and input.__class__ not in SUBCLASSES)
            or (target.__class__ is not Tensor and target.__class__ not in SUBCLASSES)):
        return None
    d = input._dtype
    shape, tshape = input._layout.shape, target._layout.shape
    if ((d is not float32 and d is not float64) or target._dtype is not int64 or len(shape) != 2 or len(tshape) != 1
            or shape[0] != tshape[0]):
        return None
    n, classes = shape
    if (reduction == "mean" and 0 < n <= 1 << 24 and not 0 <= ignore_index < classes
            and (k := _nll_sum()) is not None):
        # (_nll_rows' compiled sum on the flat runs, its division: the same steps without their
        # Python; the kernel's None (an index out of range, a NaN sum) hands on to _nll_rows)
        x, t = flat_run(input, _cinfo[shape]), flat_run(target, _cinfo[tshape])
        if x is not None and t is not None and (total := k(x, t, classes)) is not None:
            # (total holds a float32/float64 value exactly and n <= 2**24 is exact: Python's double
            # quotient rounded once to the dtype is the dtype's own quotient c(total) / c(n), as
            # 53 >= 2 * 24 + 2 bits make double rounding innocuous; half the cost of NumPy scalars)
            return adopted(np.array((total / n,), d.numpy), _SCALAR, d)  # (scalar_result's; nobody listens here)
    value = _nll_rows(input._np(), target, ignore_index, reduction)
    return None if value is None else scalar_result(value, d, "nll_loss", (input, target))


nll_loss.__fresh__ = _nll_loss_fresh  # type: ignore[attr-defined]


def _nll_scale(g: Tensor, total: float, red: str, dtype: DType) -> Any:
    """PyTorch's ``-(g / total)`` ("mean") or ``-g`` ("sum") for a reduced loss's 0-d gradient
    ``g``, in ``dtype`` (float32/float64: NumPy's scalar arithmetic rounds as PyTorch's)."""
    v = dtype.numpy.type(g._np().item())
    if red != "mean":
        return -v
    token = quiet_set(QUIET)  # (a zero total: -inf or NaN, as PyTorch's; np.errstate's block, cheaper)
    try:
        return -(v / dtype.numpy.type(total))
    finally:
        quiet_reset(token)


def _nll_picks(shape: tuple[int, int], target: Tensor, c: Any, dtype: DType) -> Tensor:
    """A fresh row-major (N, C) tensor of ``dtype`` holding ``c`` at ``[i, target[i]]`` and +0
    elsewhere: nll_loss's input gradient where every target is a class (none ignored, no class
    weights) and the loss is reduced (``c`` its one coefficient)."""
    flat = np.zeros(shape[0] * shape[1], dtype.numpy)
    flat.reshape(shape)[_rows_of(shape[0]), target._np()] = c
    return adopted(flat, _cinfo[shape][2], dtype)


@backward("F.nll_loss")
def _nll_loss_backward(out: Tensor, input: Tensor, target: Tensor, weight: Tensor | None = None,
                       size_average: Any = None, ignore_index: int = -100, reduce: Any = None,
                       reduction: str = "mean") -> Any:
    """PyTorch's nll_loss_backward: ``w[t] * -(g / total)`` ("mean", the total weight of the
    kept targets), ``w[t] * -g`` ("sum", and "none" of a 1-D input) or ``-w[t] * g[i]`` ("none")
    at each kept target's class,
    +0 everywhere else (ignored targets included, whatever ``g`` is). Written as ``g`` (over the
    total for "mean", its class dim restored for "none") times a constant tensor holding ``-w[t]``
    at each kept target's class, masked to 0 off them: recorded operations, linear in ``g``, as
    PyTorch's double backward of nll_loss is; the same roundings as PyTorch's (``-(g / total) * w``
    is ``(g / total) * -w`` exactly, where ``g * (-w / total)`` rounds twice differently)."""
    red = reduction_mode(reduction, size_average, reduce)
    class_dim, loss_shape = _nll_geometry(input, target)
    shape, dtype = input._layout.shape, input._dtype

    def grad(g: Tensor) -> tuple:
        # (a reduced loss's g not recorded (no create_graph) in float32/float64: PyTorch's
        # coefficient w * -(g / total) computed here from g's value, the result itself)
        direct = red != "none" and not g.requires_grad and (dtype is float32 or dtype is float64)
        kept = (weight is None and red != "none" and class_dim == 1 and len(shape) == 2
                and _all_kept(target, shape[1], int(ignore_index)))
        if kept and direct:
            # (a training step's loss: the coefficient at each row's target, +0 elsewhere, in zeroed
            # memory of its own: the same values as the steps below, without the result's layout made
            # again and the fill)
            return (_nll_picks(shape, target, _nll_scale(g, shape[0], red, dtype), dtype),)
        compute = compute_dtype(dtype)
        coef, arr = result_array(shape, dtype)
        arr.fill(0)
        if kept:
            # every target a class (none ignored): the steps below with w all ones, whose sum is
            # exactly N (N <= 2**24)
            n = shape[0]
            rows, t = _rows_of(n), target._np()
            arr[rows, t] = -1
            off, off_arr = result_array(shape, bool_)  # (True where PyTorch writes nothing)
            off_arr.fill(True)
            off_arr[rows, t] = False
            total = float(n)
        else:
            lp = _as_ncs(arr, class_dim)  # (a view: the result is contiguous)
            n, _, s = lp.shape
            t = target._np().astype(np.int64, copy=False).reshape(n, s)  # (read only: a view may do)
            ignored = t == ignore_index
            some_ignored = bool(ignored.any())  # (without any, the masks are skipped: the same values)
            safe = np.where(ignored, 0, t) if some_ignored else t
            w = np.ones(t.shape, dtype=compute) if weight is None else weight._np().astype(compute)[safe]
            w = (np.where(ignored, 0, w) if some_ignored else w).astype(compute, copy=False)
            # (PyTorch's total weight is a tensor of the input's dtype)
            if red != "mean":
                total = 1.0
            elif weight is not None and len(shape) <= 2:  # (nll_loss_out_frame's weight total: its cascade)
                total = float(torch_nll_cascade(w.reshape(-1).astype(dtype.numpy), w.reshape(-1).astype(dtype.numpy),
                                                ignored.reshape(-1) if some_ignored else None)[1])
            else:
                total = float(w.sum().astype(dtype.numpy))
            where = (np.arange(n)[:, None], safe, np.arange(s))
            if direct:
                c = dtype.numpy.type(_nll_scale(g, total, red, dtype))
                with np.errstate(all="ignore"):  # (a zero total: w * -inf, NaN for w = 0, as PyTorch's)
                    vals = w.astype(arr.dtype, copy=False) * c
                lp[where] = np.where(ignored, 0, vals) if some_ignored else vals  # (ignored: +0)
                return (coef,)
            lp[where] = (-w).astype(arr.dtype, copy=False)  # (put_along_axis)
            off, off_arr = result_array(shape, bool_)  # (True where PyTorch writes nothing)
            off_arr.fill(True)
            kept = _as_ncs(off_arr, class_dim)
            kept[where] = ignored  # (an ignored target's slot stays off; so does every other class)
        if red == "none":
            g = g.reshape(loss_shape).unsqueeze(class_dim)
        elif red == "mean":
            g = g / total  # (a zero total: g / 0, so w * -inf as PyTorch's, NaN for w = 0)
        if red != "none" or len(shape) == 1:
            # (PyTorch negates g, not w, here: w * -(g / total); a NaN g's sign flips as there)
            np.negative(arr, out=arr)
            g = -g
        return ((g * coef).masked_fill(off, 0),)

    saved = (target,) if weight is None else (target, weight)
    ndim = len(shape)
    # PyTorch: 2-d spatial losses for inputs of 3 or more dims, behind a view unless 4-d and reduced
    name = "NllLossBackward0" if ndim < 3 else "ViewBackward0" if red == "none" and ndim != 4 else "NllLoss2DBackward0"
    # (recorded: zero towards the input, as PyTorch's NllLossBackwardBackward0, not unconnected)
    return name, (input,), linked("NllLoss2DBackwardBackward0" if ndim >= 3 else "NllLossBackwardBackward0", grad,
                                  input), saved


def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average: Any = None,
                  ignore_index: int = -100, reduce: Any = None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:
    """Cross entropy between logits ``input`` ((C,), (N, C) or (N, C, d1, ...)) and ``target``:
    class indices (int64 or uint8, the input's shape without the class dim) or class
    probabilities (a float tensor of the input's own shape). ``weight`` per class,
    ``ignore_index`` (class indices only), ``label_smoothing`` in [0, 1] mixes the target with
    the uniform distribution; ``reduction`` "mean" (default), "sum" or "none".

    Equals ``nll_loss(log_softmax(input, class_dim), target, ...)`` without smoothing.

    >>> F.cross_entropy(strided.zeros(2, 4), strided.tensor([1, 3])).item()  # log(4)
    1.3862943649291992
    """
    red = reduction_mode(reduction, size_average, reduce)
    tensor_arg(input, "cross_entropy")
    tensor_arg(target, "cross_entropy", "target", 2)
    eps = float(label_smoothing)
    if eps > 1.0:  # # Note: as PyTorch, only values above 1 are refused (a negative or NaN one computes)
        raise StridedRuntimeError(
            join_lines(f"label_smoothing must be between 0.0 and 1.0. Got: {g_format(eps)}",
                       "label_smoothing is the weight of the uniform distribution mixed into the target")
        )
    shape = input._layout.shape
    class_dim = 0 if len(shape) == 1 else 1
    if len(shape) == 0 and (target._layout.shape or target._dtype.is_floating_point):
        raise StridedIndexError(
            join_lines("Dimension specified as 1 but tensor has no dimensions",
                       "the input holds class scores: (C,), (N, C) or (N, C, d1, ...); it is 0-d")
        )
    inputs = tuple(x for x in (input, target, weight) if x is not None)
    if target._layout.shape == shape:
        if int(ignore_index) != -100:
            raise StridedRuntimeError(
                join_lines("ignore_index is not supported for floating point target",
                           f"the target has the input's shape {target.shape}, so it holds class probabilities; "
                           f"ignore_index={int(ignore_index)} names a class index",
                           "fix: leave ignore_index out (or give class indices: the input's shape without the class dim)")
            )
        return _cross_entropy_probs(input, target, weight, class_dim, red, eps, inputs)
    class_dim, loss_shape = _nll_geometry(input, target)
    classes = shape[class_dim]
    _refuse_grad(weight, "nll_loss_forward" if input.ndim <= 2 else "nll_loss2d_forward", "weight")
    w = _check_weight(weight, classes, input)
    _check_target_dtype(target)
    if requires_grad(input) or eps == 0:  # (without smoothing, nll_loss's own fast path: the same bits)
        return _cross_entropy_graph(input, target, weight, class_dim, red, eps, int(ignore_index))
    logp_t = _log_softmax(input, class_dim)  # float-only, with PyTorch's NotImplementedError
    logp = logp_t._np().astype(compute_dtype(input._dtype), copy=False)
    losses, weights, ignored = _nll(logp, target, class_dim, w, int(ignore_index))
    if red == "none" and not loss_shape:  # (a 1-D input: nll_loss's reducing branch, from +0, as nll_loss)
        losses = losses + losses.dtype.type(0)
    if eps > 0:
        lp = _as_ncs(logp, class_dim)
        smooth = -(lp if w is None else lp * w[None, :, None]).sum(axis=1)  # (N, S)
        smooth = np.where(ignored, 0, smooth)
        if red == "none":
            value: Any = smooth
        elif red == "sum":
            value = smooth.sum()
        else:
            with np.errstate(all="ignore"):
                value = smooth.sum() / (weights.sum() if w is not None else (~ignored).sum())
        nll = losses if red == "none" else _nll_reduced(losses, weights, ignored, red, w, input)
        total = (1 - eps) * nll + value * (eps / classes)
    else:
        total = losses if red == "none" else _nll_reduced(losses, weights, ignored, red, w, input)
    if red == "none":
        return array_result(total, loss_shape, input._dtype, "cross_entropy", inputs)
    return scalar_result(total, input._dtype, "cross_entropy", inputs)


def _class_weight(weight: Tensor, input: Tensor, class_dim: int) -> Tensor:
    """``weight`` (C,) as a view that broadcasts along the input's class dim: (C, 1, ..., 1)."""
    ndim = len(input._layout.shape)
    return weight if class_dim == 0 or ndim <= 2 else weight.reshape((weight.numel(),) + (1,) * (ndim - 2))


def _nll_reduced(losses: np.ndarray, weights: np.ndarray, ignored: np.ndarray, red: str, w: Any, input: Tensor) -> Any:
    """nll_loss's reduced value (and cross_entropy's nll term): PyTorch's nll_loss_out_frame cascade
    for a (C,) or (N, C) input, NumPy's sum for nll_loss2d's shapes. No sample at all ("mean" of
    an empty batch or an empty spatial size): PyTorch's kernels fill a positive quiet NaN, where
    0 / 0 here would give x86's negative one."""
    if red == "mean" and not losses.size:
        return input._dtype.numpy.type(np.nan)
    if input.ndim <= 2:
        return _nll_total(losses, weights, ignored, red, w is not None, input._dtype.numpy)
    return _reduce(losses, weights.sum(), red)


def _cross_entropy_graph(input: Tensor, target: Tensor, weight: Any, class_dim: int, red: str, eps: float,
                         ignore_index: int) -> Tensor:
    """cross_entropy on an input autograd tracks, built from the differentiable ops as PyTorch
    builds it: ``nll_loss(log_softmax(input))`` (NllLossBackward0 over LogSoftmaxBackward0), plus,
    with ``label_smoothing``, the smoothing term ``-sum(log_softmax * weight)`` over the classes."""
    logp = _log_softmax(input, class_dim)
    nll = nll_loss(logp, target, weight, None, ignore_index, None, red)
    if eps == 0:
        return nll
    classes = input._layout.shape[class_dim]
    terms = logp if weight is None else logp * _class_weight(weight, input, class_dim)
    smooth = -terms.sum(class_dim)
    t = target._np()
    ignored = t == ignore_index
    if ignored.any():  # PyTorch: masked_fill_(ignore_mask, 0)
        mask, arr = result_array(smooth._layout.shape, bool_)
        arr[...] = ignored.reshape(arr.shape)
        smooth = smooth.masked_fill(mask, 0)
    if red == "sum":
        smooth = smooth.sum()
    elif red == "mean":
        kept = t[~ignored].astype(np.int64)
        denominator = float(kept.size) if weight is None else float(weight._np()[kept].sum())
        # every target ignored: a NaN mean, and (PyTorch's masked_fill) no gradient
        smooth = smooth.sum() / denominator if denominator else smooth.sum() * 0.0 + float("nan")
    return nll * (1 - eps) + smooth * (eps / classes)


def _cross_entropy_probs(input: Tensor, target: Tensor, weight: Any, class_dim: int, red: str, eps: float,
                         inputs: tuple) -> Tensor:
    """cross_entropy with class-probability targets (PyTorch's ``cross_entropy_loss_prob_target``)."""
    if not target._dtype.is_floating_point:
        raise StridedRuntimeError(
            join_lines(f"Expected floating point type for target with class probabilities, got "
                       f"{TORCH_NAME[target._dtype.name]}",
                       f"the target has the input's shape {target.shape}, so it is read as class probabilities; "
                       "class indices have the input's shape without the class dim",
                       "fix: target.float() for probabilities")
        )
    shape = input._layout.shape
    classes = shape[class_dim]
    w = _check_weight(weight, classes, input, same_dtype=False)
    if requires_grad(input) or requires_grad(target):  # PyTorch's cross_entropy_loss_prob_target, from the ops
        logp = _log_softmax(input, class_dim)
        p = target if eps == 0 else target * (1 - eps) + eps / classes
        terms = logp * p if weight is None else logp * _class_weight(weight, input, class_dim) * p
        if red == "none":
            return -terms.sum(class_dim)
        if red == "sum":
            return -terms.sum()
        return -terms.sum() / (input.numel() / classes)
    logp_t = _log_softmax(input, class_dim)
    dt = result_type(*inputs)  # (PyTorch computes logp * target * weight: the promoted dtype)
    compute = compute_dtype(dt)
    if w is not None:
        w = weight._np().astype(compute)
    logp = _as_ncs(logp_t._np().astype(compute, copy=False), class_dim)
    p = _as_ncs(target._np().astype(compute), class_dim)
    if eps > 0:
        p = p * (1 - eps) + eps / classes
    terms = logp * p if w is None else logp * p * w[None, :, None]
    per = -terms.sum(axis=1)  # (N, S)
    if red == "none":
        loss_shape = shape[:class_dim] + shape[class_dim + 1:]
        return array_result(per, loss_shape, dt, "cross_entropy", inputs)
    if red == "sum":
        return scalar_result(per.sum(), dt, "cross_entropy", inputs)
    n = input.numel() // classes if classes else 0
    value = per.sum() / n if input.numel() else np.nan
    return scalar_result(value, dt, "cross_entropy", inputs)


def mse_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
             reduction: str = "mean") -> Tensor:
    """Mean (or sum, or per element) of ``(input - target) ** 2``, broadcast together (with
    PyTorch's warning when the shapes differ); the promoted float dtype.

    >>> F.mse_loss(strided.tensor([1.0, 2.0]), strided.tensor([1.0, 4.0])).item()
    2.0
    """
    tensor_arg(input, "mse_loss")
    tensor_arg(target, "mse_loss", "target", 2)
    _warn_sizes(input, target)
    shape = broadcast_pair(input._layout.shape, target._layout.shape)
    red = reduction_mode(reduction, size_average, reduce)
    dt = result_type(input, target)
    if not dt.is_floating_point:
        raise float_only("mse_cpu", dt, "mse_loss")
    compute = compute_dtype(dt)
    dense = dense_pair_loss(input, target, 2, 0.0)
    if dense is not None:  # (a transpose's loss: one compiled pass, an array laid out as NumPy's below)
        sq = np.lib.stride_tricks.as_strided(dense[0], shape, tuple(s * dense[0].itemsize for s in dense[1].strides))
    else:
        with np.errstate(all="ignore"):
            diff = input._np().astype(compute, copy=False) - target._np().astype(compute, copy=False)
            sq = np.broadcast_to(diff * diff, shape)
    if red == "none":  # laid out as PyTorch's elementwise output over the broadcast operands
        out = _fresh_output(shape, dt, [input, target], dt)
        np.copyto(out._np(), sq, casting="unsafe")
        return report("mse_loss", (input, target), out)
    value = _torch_reduced(sq, red)
    return scalar_result(value, dt, "mse_loss", (input, target))


def _mse_fresh(input: Any, target: Any, size_average: Any = None, reduce: Any = None,
               reduction: Any = "mean") -> Tensor | None:
    """:func:`mse_loss`'s fresh fast path (its entry's ``__fresh__``): for :func:`pair_runs`' call
    (no legacy flag), the same NumPy steps on the flat runs (``d = x - y``, ``d * d``), reduced by
    :func:`fresh_loss`; None (the forward runs) for any other call."""
    if size_average is not None or reduce is not None or (runs := pair_runs(input, target, reduction)) is None:
        return None
    x, y, info, d = runs
    per = pair_loss(x, y, 2, 0.0)  # (the same two operations in one compiled pass)
    if per is not None:
        return fresh_loss(per, info, d, reduction)
    token = quiet_set(QUIET)
    try:
        diff = np.subtract(x, y)
        np.multiply(diff, diff, out=diff)
    finally:
        quiet_reset(token)
    return fresh_loss(diff, info, d, reduction)


mse_loss.__fresh__ = _mse_fresh  # type: ignore[attr-defined]


def _loss_scale(red: str, input: Tensor, target: Tensor) -> float:
    """The factor a "mean" reduction puts on each element's gradient (1 for "sum" and "none")."""
    if red != "mean":
        return 1.0
    n = 1
    for size in broadcast_pair(input._layout.shape, target._layout.shape):
        n *= size
    return 1.0 / n if n else float("nan")


@backward("F.mse_loss", operands="two")
def _mse_loss_backward(out: Tensor, input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
                       reduction: str = "mean") -> Any:
    """PyTorch's mse_loss_backward: ``2 * (input - target) * g`` (over n for "mean"); the
    target's gradient is its negative (the engine sums both down to their shapes)."""
    scale = 2.0 * _loss_scale(reduction_mode(reduction, size_average, reduce), input, target)
    need_target = requires_grad(target)

    def grad(g: Tensor) -> tuple:
        # (PyTorch's order, norm * (input - target) * g: scaled before g, so an empty input's
        # derivative in g is an empty sum, 0, not the 0-d g times a NaN scale)
        gi = (input - target) * scale * g
        return (gi, -gi if need_target else None)

    return "MseLossBackward0", (input, target), grad, (input, target)


def l1_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
            reduction: str = "mean") -> Tensor:
    """Mean (or sum, or per element) of ``|input - target|``, broadcast together (with PyTorch's
    warning when the shapes differ). Built from the ops, as PyTorch builds it, so its gradient
    is theirs (MeanBackward0 over AbsBackward0 over SubBackward0).

    >>> F.l1_loss(strided.tensor([1.0, 2.0]), strided.tensor([1.0, 4.0])).item()
    1.0
    """
    tensor_arg(input, "l1_loss")
    tensor_arg(target, "l1_loss", "target", 2)
    _warn_sizes(input, target)
    red = reduction_mode(reduction, size_average, reduce)
    loss = (input - target).abs()
    return loss if red == "none" else loss.sum() if red == "sum" else loss.mean()


def _warn_sizes(input: Tensor, target: Tensor) -> None:
    """PyTorch's warning for a loss whose target broadcasts against the input, attributed to the
    user's line (past the autograd wrapper too, when there is one)."""
    if target._layout.shape != input._layout.shape:
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
            "This will likely lead to incorrect results due to broadcasting. Please ensure they have the same size.",
            UserWarning, stacklevel=user_site()[1],
        )


def smooth_l1_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
                   reduction: str = "mean", beta: float = 1.0) -> Tensor:
    """The Huber-like loss: ``0.5 d**2 / beta`` where ``|d| < beta``, else ``|d| - 0.5 beta``
    (``d = input - target``; ``beta=0`` is the L1 loss); mean, sum or per element.

    >>> F.smooth_l1_loss(strided.tensor([0.0, 3.0]), strided.tensor([0.5, 0.0])).item()
    1.3125
    """
    tensor_arg(input, "smooth_l1_loss")
    tensor_arg(target, "smooth_l1_loss", "target", 2)
    b = float(beta)
    if not b >= 0:  # (NaN too, as PyTorch's check)
        raise StridedRuntimeError(join_lines("smooth_l1_loss does not support negative values for beta.",
                                             f"beta is {b}; it is the width of the quadratic zone"))
    _warn_sizes(input, target)
    red = reduction_mode(reduction, size_average, reduce)
    shape = broadcast_pair(input._layout.shape, target._layout.shape)
    dt = result_type(input, target)
    if not dt.is_floating_point:
        raise float_only("smooth_l1_cpu", dt, "smooth_l1_loss")
    compute = compute_dtype(dt)
    dense = dense_pair_loss(input, target, 1, b)
    if dense is not None:  # (a transpose's loss: one compiled pass, an array laid out as NumPy's below)
        per = dense[0]
        per = np.lib.stride_tricks.as_strided(per, shape, tuple(s * per.itemsize for s in dense[1].strides))
    else:
        with np.errstate(all="ignore"):
            d = np.abs(input._np().astype(compute, copy=False) - target._np().astype(compute, copy=False))
            per = np.broadcast_to(np.where(d < b, 0.5 * d * d / (b if b else 1), d - 0.5 * b), shape)
    if red == "none":
        out = _fresh_output(shape, dt, [input, target], dt)
        np.copyto(out._np(), per, casting="unsafe")
        return report("smooth_l1_loss", (input, target), out)
    value = _torch_reduced(per, red)
    return scalar_result(value, dt, "smooth_l1_loss", (input, target))


def _smooth_l1_fresh(input: Any, target: Any, size_average: Any = None, reduce: Any = None,
                     reduction: Any = "mean", beta: Any = 1.0) -> Tensor | None:
    """:func:`smooth_l1_loss`'s fresh fast path (its entry's ``__fresh__``): for :func:`pair_runs`'
    call (no legacy flag, a float beta >= 0), the forward's NumPy expressions on the flat runs,
    reduced by :func:`fresh_loss`; None (the forward runs) for any other call."""
    if size_average is not None or reduce is not None or beta.__class__ is not float or not beta >= 0 \
            or (runs := pair_runs(input, target, reduction)) is None:
        return None
    x, y, info, dt = runs
    b = beta
    per = pair_loss(x, y, 1, b)  # (the same expressions in one compiled pass)
    if per is not None:
        return fresh_loss(per, info, dt, reduction)
    token = quiet_set(QUIET)
    try:
        d = np.abs(np.subtract(x, y))
        per = np.where(d < b, 0.5 * d * d / (b if b else 1), d - 0.5 * b)
    finally:
        quiet_reset(token)
    return fresh_loss(per, info, dt, reduction)


smooth_l1_loss.__fresh__ = _smooth_l1_fresh  # type: ignore[attr-defined]


@backward("F.smooth_l1_loss", operands="two")
def _smooth_l1_loss_backward(out: Tensor, input: Tensor, target: Tensor, size_average: Any = None,
                             reduce: Any = None, reduction: str = "mean", beta: float = 1.0) -> Any:
    """PyTorch's smooth_l1_loss_backward: ``d / beta`` clamped to [-1, 1], times g (over n for "mean"); the target's gradient is its negative."""
    b = float(beta)
    red = reduction_mode(reduction, size_average, reduce)
    scale = _loss_scale(red, input, target)
    need_target = requires_grad(target)
    # beta 0 is the L1 loss: PyTorch records l1_loss's ops, the outermost named here
    # (# Note: strided records one node, |d|'s gradient sign(d) folded in)
    name = "SmoothL1LossBackward0" if b else {"none": "AbsBackward0", "sum": "SumBackward0"}.get(red, "MeanBackward0")

    def grad(g: Tensor) -> tuple:
        slope = ((input - target) / b).clamp(-1, 1) if b else (input - target).sign()
        gi = slope * scale * g  # (scaled before g, as mse_loss's: an empty input's g-derivative is 0)
        return (gi, -gi if need_target else None)

    return name, (input, target), grad, (input, target)


def _bce_operands(input: Tensor, target: Tensor, weight: Any, op: str, pos_weight: Any = None
                  ) -> tuple[np.dtype, np.ndarray, np.ndarray, np.ndarray | None]:
    tensor_arg(input, op)
    tensor_arg(target, op, "target", 2)
    logits = op == "binary_cross_entropy_with_logits"
    if logits and target._layout.shape != input._layout.shape:  # (PyTorch's Python check, its own words)
        raise StridedValueError(join_lines(
            f"Target size (torch.Size({list(target.shape)})) must be the same as input size "
            f"(torch.Size({list(input.shape)}))",
            "binary cross entropy takes one target per input element",
            "fix: reshape the target to the input's shape (target.view_as(input))"))
    if target._layout.shape != input._layout.shape:
        raise StridedValueError(
            join_lines(f"Using a target size ({target.shape}) that is different to the input size ({input.shape}) "
                       "is deprecated. Please ensure they have the same size.",
                       "binary cross entropy takes one target probability per input element",
                       "fix: reshape the target to the input's shape (target.view_as(input))")
        )
    d = input._dtype
    if weight is not None and not logits:  # (PyTorch's Python expands the weight before its kernel's checks)
        tensor_arg(weight, op, "weight", 3)
        _check_expands(weight._layout.shape, input._layout.shape, op)
    _refuse_grad(weight, op, "weight")
    _refuse_grad(pos_weight, op, "pos_weight")
    if not d.is_floating_point:
        raise float_only("log_sigmoid_cpu" if logits else op, d, op)
    td = target._dtype
    if logits and not (td.is_floating_point or td.is_complex):  # PyTorch: (1 - target).mul_(input)
        raise StridedRuntimeError(join_lines(
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` "
            "operator instead." if td is bool_ else
            f"result type {TORCH_NAME[d.name]} can't be cast to the desired output type {TORCH_NAME[td.name]}",
            f"{op} computes in the target's dtype, and the target is {td.name}",
            f"fix: F.{op}(input, target.to(strided.{d.name}))"))
    if not logits and td is not d:
        raise StridedRuntimeError(join_lines(
            f"Found dtype {TORCH_NAME[td.name]} but expected {TORCH_NAME[d.name]}",
            f"{op} takes the target in the input's dtype ({d.name}); the target is {td.name}",
            f"fix: F.{op}(input, target.to(strided.{d.name}))"))
    compute = compute_dtype(result_type(input, target) if logits else d)
    w = None
    if weight is not None:
        tensor_arg(weight, op, "weight", 3)
        _check_expands(weight._layout.shape, input._layout.shape, op)
        w = np.broadcast_to(weight._np().astype(compute, copy=False), input._layout.shape)
    return compute, input._np().astype(compute, copy=False), target._np().astype(compute, copy=False), w


def _check_expands(shape: tuple[int, ...], to: tuple[int, ...], op: str) -> None:
    """PyTorch's error when a loss's ``weight`` of ``shape`` does not broadcast to the input's ``to``."""
    for i in range(1, len(shape) + 1):
        size = shape[-i]
        if i > len(to) or size not in (1, to[-i]):
            raise StridedRuntimeError(join_lines(
                f"Attempting to broadcast a dimension of length {size} at {-i}! Mismatching argument at index 1 "
                f"had torch.Size({list(shape)}); but expected shape should be broadcastable to {list(to)}",
                f"{op} weighs each input element: the weight's shape {shape} must broadcast to the input's {to}",
                "fix: a weight of the input's shape, or one that broadcasts to it (size 1 where it repeats)"))


def _outside_unit(values: np.ndarray) -> str:
    """What lies outside [0, 1] in ``values``, in its own numbers: how many, their range, the NaNs."""
    nan = np.isnan(values)
    out = values[~nan & ((values < 0) | (values > 1))]
    parts = [f"{out.size} below 0 or above 1 (from {g_format(out.min())} to {g_format(out.max())})"] if out.size else []
    if nan.any():
        parts.append(f"{int(nan.sum())} NaN")
    return f"{' and '.join(parts)}, of its {values.size} elements"


# (shape, strides) -> empty_like's preserve_format strides: a pure function of its key
_preserved = Memo(lambda key: preserve_format_strides(*key))


def _bce_reduce(per: np.ndarray, red: str, like: Tensor, op: str, inputs: tuple, dtype: DType | None = None
                ) -> Tensor:
    """The reduced (or per-element) loss as a tensor of ``dtype`` (default: ``like``'s).

    Unreduced, the loss has ``empty_like(like)``'s strides (preserve_format), as PyTorch's loss is
    that fresh tensor filled in place: ``like``'s own strides where it is dense (an empty tensor
    counts as contiguous, so its strides, 0s included, are kept; so is a size-1 dim's stride), else
    its memory order made dense. Not TensorIterator's, which makes those two cases row-major."""
    dt = like._dtype if dtype is None else dtype
    lay = like._layout
    strides = _preserved[(lay.shape, lay.strides)]
    if red == "none":
        out = result(lay.shape, dt, strides)
        np.copyto(out._np(), per, casting="unsafe")
        return report(op, inputs, out)
    # (PyTorch sums that loss tensor: its order of adds follows the tensor's memory order)
    value = _torch_reduced(_laid_out(per, strides), red)
    return scalar_result(value, dt, op, inputs)


def _laid_out(per: np.ndarray, strides: tuple[int, ...]) -> np.ndarray:
    """``per`` itself where its strides are ``strides`` (in elements; dense, from 0), else its
    values copied into fresh memory laid out with them."""
    size = per.itemsize
    byte_strides = tuple(s * size for s in strides)
    if per.size <= 1 or per.strides == byte_strides:
        return per
    arr = np.lib.stride_tricks.as_strided(np.empty(per.size, per.dtype), per.shape, byte_strides)
    np.copyto(arr, per)
    return arr


def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average: Any = None,
                         reduce: Any = None, reduction: str = "mean") -> Tensor:
    """``-w (y log x + (1 - y) log(1 - x))`` for probabilities ``input`` in [0, 1] and targets
    ``y`` of the input's shape (each log clamped at -100, as PyTorch does); mean, sum or none.

    >>> round(F.binary_cross_entropy(strided.tensor([0.5]), strided.tensor([1.0])).item(), 4)
    0.6931
    """
    red = reduction_mode(reduction, size_average, reduce)
    compute, x, y, w = _bce_operands(input, target, weight, "binary_cross_entropy")
    if x.size and ((x < 0) | (x > 1) | np.isnan(x)).any():
        raise StridedRuntimeError(
            join_lines("all elements of input should be between 0 and 1",
                       f"binary_cross_entropy reads the input as probabilities; it holds {_outside_unit(x)}",
                       "fix: F.binary_cross_entropy_with_logits(logits, target) takes raw scores")
        )
    if y.size and ((y < 0) | (y > 1) | np.isnan(y)).any():
        raise StridedRuntimeError(
            join_lines("all elements of target should be between 0 and 1",
                       f"binary_cross_entropy reads the target as probabilities; it holds {_outside_unit(y)}",
                       "fix: targets in [0, 1] (class labels as 0.0 / 1.0; target.clamp(0, 1) if they only "
                       "strayed by rounding)")
        )
    with np.errstate(all="ignore"):
        per = -(y * np.maximum(np.log(x), -100) + (1 - y) * np.maximum(np.log1p(-x), -100))
    if w is not None:
        per = per * w
    inputs = tuple(t for t in (input, target, weight) if t is not None)
    return _bce_reduce(per, red, input, "binary_cross_entropy", inputs)


def _bce_fresh(input: Any, target: Any, weight: Any = None, size_average: Any = None, reduce: Any = None,
               reduction: Any = "mean") -> Tensor | None:
    """:func:`binary_cross_entropy`'s fresh fast path (its entry's ``__fresh__``): for
    :func:`pair_runs`' call (no weight, no legacy flag) whose input and target all lie in [0, 1]
    (else the forward raises its errors), the forward's NumPy expression on the flat runs, reduced
    by :func:`fresh_loss`; None (the forward runs) for any other call. The compiled ``bce_np``
    (``_ufunc_chain.h``) makes the range test and the expression in one C call: the same NumPy
    log and log1p inner loops, then the same IEEE steps in the same order (the same bits; the
    fourteen NumPy calls were two thirds of a (3, 4) call: ~106k -> ~34k instructions a call); its
    False (an element outside [0, 1], or the kernel not built or off) runs the NumPy calls below."""
    if weight is not None or size_average is not None or reduce is not None \
            or (runs := pair_runs(input, target, reduction)) is None:
        return None
    x, y, info, dt = runs
    k = special()
    if k is not None and (run := getattr(k, "bce_np", None)) is not None:
        per = np.empty(info[1], x.dtype)
        if run(x, y, per):
            return fresh_loss(per, info, dt, reduction)
    # (a NaN makes the smallest NaN, which fails the comparison: the forward's refusal of it too)
    if not (_smallest(x) >= 0 and _largest(x) <= 1 and _smallest(y) >= 0 and _largest(y) <= 1):
        return None
    token = quiet_set(QUIET)
    try:
        per = -(y * np.maximum(np.log(x), -100) + (1 - y) * np.maximum(np.log1p(-x), -100))
    finally:
        quiet_reset(token)
    return fresh_loss(per, info, dt, reduction)


_smallest, _largest = np.minimum.reduce, np.maximum.reduce
binary_cross_entropy.__fresh__ = _bce_fresh  # type: ignore[attr-defined]


@backward("F.binary_cross_entropy", operands="two")
def _bce_backward(out: Tensor, input: Tensor, target: Tensor, weight: Tensor | None = None,
                  size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> Any:
    """PyTorch's binary_cross_entropy_backward: ``g w (x - y) / max(x (1 - x), 1e-12)``; the
    target's: ``g w (log(1 - x) - log x)``, each log clamped at -100 (over n for "mean").
    From the recording ops, so a second backward gives PyTorch's double backward."""
    red = reduction_mode(reduction, size_average, reduce)
    need_target = requires_grad(target)

    def grad(g: Tensor) -> tuple:
        if not GRAD_MODE.get():  # first order: one NumPy pass (nothing to record)
            return _bce_fused(g, input, target, weight, red, need_target)
        gw = _bce_scaled(g, input, weight, red)
        gi = gw * (input - target) / (input * (1 - input)).clamp(min=1e-12)
        gt = gw * ((-input).log1p().clamp(min=-100) - input.log().clamp(min=-100)) if need_target else None
        return (gi, gt)

    return "BinaryCrossEntropyBackward0", (input, target), grad, tuple(
        t for t in (input, target, weight) if t is not None)


def _bce_fused(g: Tensor, input: Tensor, target: Tensor, weight: Tensor | None, red: str, need_target: bool
               ) -> tuple:
    """The rule's gradients in NumPy (the same formulas, for a first-order backward)."""
    compute, x, y, w = _bce_operands(input, target, weight, "binary_cross_entropy")
    gv = g._np().astype(compute) * (1.0 / x.size if red == "mean" and x.size else 1.0)
    if w is not None:
        gv = gv * w
    with np.errstate(all="ignore"):
        gi = gv * (x - y) / np.maximum(x * (1 - x), 1e-12)
        gt = gv * (np.maximum(np.log1p(-x), -100) - np.maximum(np.log(x), -100)) if need_target else None
    return (array_like(gi, input), None if gt is None else array_like(gt, target))


def _bce_scaled(g: Tensor, input: Tensor, weight: Tensor | None, red: str) -> Tensor:
    """The incoming gradient of a binary cross entropy, times the (constant) weight and, for
    "mean", over the number of elements: the factor both operands' gradients share."""
    n = input.numel()
    if red == "mean" and n:
        g = g * (1.0 / n)
    return g if weight is None else g * weight.detach()


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                     size_average: Any = None, reduce: Any = None, reduction: str = "mean",
                                     pos_weight: Tensor | None = None) -> Tensor:
    """Binary cross entropy of ``sigmoid(input)`` against ``target``, computed stably from the
    logits: ``(1 - y) x + (1 + (pos_weight - 1) y) log(1 + exp(-x))``, weighted; mean, sum or none.

    >>> round(F.binary_cross_entropy_with_logits(strided.tensor([0.0]), strided.tensor([1.0])).item(), 4)
    0.6931
    """
    red = reduction_mode(reduction, size_average, reduce)
    compute, x, y, w = _bce_operands(input, target, weight, "binary_cross_entropy_with_logits", pos_weight)
    if pos_weight is not None:
        tensor_arg(pos_weight, "binary_cross_entropy_with_logits", "pos_weight", 7)
        broadcast_pair(pos_weight._layout.shape, target._layout.shape)  # (PyTorch's error when they do not)
    with np.errstate(all="ignore"):
        # (pos_weight: PyTorch's (pos_weight - 1).mul(target).add_(1), one IEEE operation a step)
        lw = None if pos_weight is None else (pos_weight._np().astype(compute, copy=False) - 1) * y + 1
        per = _logits_loss(x, y, input._dtype is target._dtype, lw)
    if w is not None:
        per = per * w
    inputs = tuple(t for t in (input, target, weight, pos_weight) if t is not None)
    # PyTorch computes in place into (1 - target), in C++ empty_like(target).fill_(1).sub_(target):
    # the loss takes the target's dtype and, unreduced, empty_like(target)'s strides (_bce_reduce)
    return _bce_reduce(np.broadcast_to(per, x.shape), red, target, "binary_cross_entropy_with_logits", inputs,
                       target._dtype)


def _bce_logits_fresh(input: Any, target: Any, weight: Any = None, size_average: Any = None, reduce: Any = None,
                      reduction: Any = "mean", pos_weight: Any = None) -> Tensor | None:
    """:func:`binary_cross_entropy_with_logits`' fresh fast path (its entry's ``__fresh__``): for
    :func:`pair_runs`' call (no weight, no pos_weight, no legacy flag), the forward's per-element
    loss on the flat runs (the special kernel's ``bce_logits_run``: :func:`_logits_loss`'s steps
    in one call, its bits; else :func:`_logits_loss`), reduced by :func:`fresh_loss`; None (the
    forward runs) otherwise."""
    if weight is not None or pos_weight is not None or size_average is not None or reduce is not None \
            or (runs := pair_runs(input, target, reduction)) is None:
        return None
    x, y, info, dt = runs
    k = special()
    if k is not None and step() and (run := getattr(k, "bce_logits_run", None)) is not None:
        # (the steps below in one compiled call: log_sigmoid_run's loop, then (1 - y) * x - it per
        # element, a NaN log_sigmoid kept; no floating-point flag reaches NumPy's warnings)
        per = np.empty(info[1], x.dtype)
        if run(x, y, per):
            return fresh_loss(per, info, dt, reduction)
    token = quiet_set(QUIET)
    try:
        per = _logits_loss(x, y, True)
    finally:
        quiet_reset(token)
    return fresh_loss(per, info, dt, reduction)


def _logits_loss(x: np.ndarray, y: np.ndarray, same_dtype: bool, lw: np.ndarray | None = None) -> np.ndarray:
    """The unweighted per-element loss ``(1 - y) x + lw log(1 + exp(-x))`` of the logits ``x`` and targets
    ``y`` (one shape, the compute dtype; ``same_dtype``: the input's and target's dtypes are one;
    ``lw``: pos_weight's ``1 + (pos_weight - 1) y``, broadcast to that shape, or None for 1).
    PyTorch's steps, ``(1 - target).mul_(input).sub_(log_sigmoid(input).mul_(lw))``, where the compiled
    log_sigmoid runs on float32 / float64 operands of one dtype (its bits: each other step one IEEE
    operation, so PyTorch's bits throughout); else NumPy's stable form ``log1p(exp(-|x|)) + max(-x, 0)``
    (within ulps). The caller holds the quiet floating-point state."""
    if same_dtype and x.__class__ is np.ndarray and not x.ndim:  # (0-d: the same steps on one element)
        return _logits_loss(x.reshape(1), np.reshape(y, 1), same_dtype, None if lw is None else np.reshape(lw, 1)
                            ).reshape(())
    if same_dtype and x.dtype == y.dtype and x.__class__ is np.ndarray and x.ndim:
        # (log_sigmoid in x's own dim order where a permutation makes x row-major, a transposed x:
        # the differences below then run over two arrays laid out alike; elementwise, the same values)
        if x.flags.c_contiguous:  # (the common case: no permutation to find)
            log_sig = _logsigmoid_compiled(x)
        elif (xp := x.transpose(order := np.argsort([-abs(st) for st in x.strides], kind="stable"))
              ).flags.c_contiguous:
            log_sig = _logsigmoid_compiled(xp)
            log_sig = None if log_sig is None else log_sig.transpose(np.argsort(order))
        else:
            log_sig = _logsigmoid_compiled(x)
        if log_sig is not None:
            if lw is not None:
                log_sig = log_sig * lw
            per = (1 - y) * x
            per = np.subtract(per, log_sig, out=per) if per.shape == log_sig.shape else per - log_sig
            # (a NaN x: log_sigmoid's all-ones word, which PyTorch's sub_ keeps: its add with alpha -1 is
            # a fused multiply-add of that operand, where NumPy's difference keeps the first operand's NaN)
            np.copyto(per, log_sig, where=np.isnan(log_sig))
            return per
    softplus_neg = np.log1p(np.exp(-np.abs(x))) + np.maximum(-x, 0)  # log(1 + exp(-x)), stably
    return (1 - y) * x + (softplus_neg if lw is None else lw * softplus_neg)


binary_cross_entropy_with_logits.__fresh__ = _bce_logits_fresh  # type: ignore[attr-defined]


@backward("F.binary_cross_entropy_with_logits", operands="two")
def _bce_logits_backward(out: Tensor, input: Tensor, target: Tensor, weight: Tensor | None = None,
                         size_average: Any = None, reduce: Any = None, reduction: str = "mean",
                         pos_weight: Tensor | None = None) -> Any:
    """``g w (sigmoid(x) - y)``, with pos_weight ``g w ((1 + (pw - 1) y) sigmoid(x) - pw y)``; the
    target's: ``-g w x`` (plus ``(pw - 1) log(1 + exp(-x))``), over n for "mean". From the
    recording ops (``log(1 + exp(-x))`` as ``max(-x, 0) + log1p(exp(-|x|))``, stably)."""
    red = reduction_mode(reduction, size_average, reduce)
    need_target = requires_grad(target)

    def grad(g: Tensor) -> tuple:
        gw = _bce_scaled(g, input, weight, red)
        s = input.sigmoid()
        if pos_weight is None:
            return (gw * (s - target), -gw * input if need_target else None)
        pw = pos_weight.detach()
        gi = gw * ((1 + (pw - 1) * target) * s - pw * target)
        gt = None
        if need_target:
            softplus_neg = (-input).clamp(min=0) + (-input.abs()).exp().log1p()
            gt = gw * ((pw - 1) * softplus_neg - input)
        return (gi, gt)

    return "BinaryCrossEntropyWithLogitsBackward0", (input, target), grad, tuple(
        t for t in (input, target, weight, pos_weight) if t is not None)


seal(globals(), functional=True)  # (last: the losses with a backward rule become their recording entries)
# the kinds of this module's ops, in the op registry (after the seal: the forwards are the entries)
declare(Kind.COMPUTE, "F.nll_loss F.mse_loss F.smooth_l1_loss F.binary_cross_entropy F.binary_cross_entropy_with_logits ")
