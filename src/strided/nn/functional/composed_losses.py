"""The losses PyTorch builds from other ops (CompositeImplicit in ATen, or Python in
``torch.nn.functional``), built here the same way from strided's recording ops: ``huber_loss``,
``soft_margin_loss``, ``kl_div``, ``poisson_nll_loss``, ``gaussian_nll_loss``,
``hinge_embedding_loss``.

Each follows PyTorch 2.13's formula order, so its graph differentiates (twice, with
``create_graph=True``) as theirs does; argument checks and their error classes and first lines
are PyTorch's. Each is a registry op (``declare`` at the end: ``OPDEFS["F.huber_loss"]``, so the
registry's walkers, ``bench/bench_ops.py`` and ``tools/dump_results.py``, see it). ``huber_loss``
and ``soft_margin_loss``, which PyTorch records as one fused node, have a backward rule naming
that node (HuberLossBackward0, SoftMarginLossBackward0) and computing its kernel's gradient in
the kernel's order, in recording ops (second derivatives work); the rest are compositions, their
nodes the ops they are made of.

>>> F.huber_loss(strided.tensor([0.0, 3.0]), strided.tensor([0.5, 0.0])).item()
1.3125
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from ...callsite import user_site
from ...dtypes import float32, float64
from ...errors import StridedRuntimeError, StridedValueError, join_lines
from ...grad_mode import grad_enabled_at_call, requires_grad
from ...gradients import seal
from ...kernels.fpstate import QUIET, quiet_reset, quiet_set
from ...opdef import Kind, declare
from ...ops._support.operands import _cinfo
from ...ops.elementwise.unary import where
from ...ops.registry import backward
from ...ops.shape.broadcasting import broadcast_pair
from ...tensor import Tensor, tensor_arg
from .._grad import no_grad
from ._common import fresh_loss, pair_runs, reduction_mode

__all__ = ["gaussian_nll_loss", "hinge_embedding_loss", "huber_loss", "kl_div", "poisson_nll_loss",
           "soft_margin_loss"]


def _reduced(loss: Tensor, red: str) -> Tensor:
    """ATen's ``apply_loss_reduction``: the loss per element, its mean or its sum."""
    return loss if red == "none" else loss.sum() if red == "sum" else loss.mean()


def _operands(input: Tensor, target: Tensor, op: str) -> None:
    tensor_arg(input, op)
    tensor_arg(target, op, "target", 2)


def _warn_sizes(input: Tensor, target: Tensor) -> None:
    """PyTorch's warning for a target that broadcasts against the input (the Python-level losses')."""
    if target._layout.shape != input._layout.shape:
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
            "This will likely lead to incorrect results due to broadcasting. Please ensure they have the same size.",
            UserWarning, stacklevel=user_site()[1],
        )


def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0,
               weight: Tensor | None = None) -> Tensor:
    """``0.5 d**2`` where ``|d| < delta``, else ``delta (|d| - 0.5 delta)`` (``d = input - target``),
    optionally times ``weight``; mean, sum or per element.

    >>> F.huber_loss(strided.tensor([0.0, 3.0]), strided.tensor([0.5, 0.0]), reduction="sum").item()
    2.625
    """
    _operands(input, target, "huber_loss")
    _warn_sizes(input, target)
    red = reduction_mode(reduction)
    dl = float(delta)
    if not dl > 0:
        raise StridedRuntimeError(join_lines("huber_loss does not support non-positive values for delta.",
                                             f"delta is {dl}; it is the width of the quadratic zone"))
    d = input - target
    z = d.abs()
    # (the quadratic branch squares d itself: its derivatives at d == 0 are PyTorch's, 0 and 1)
    loss = where(z < dl, 0.5 * d * d, dl * (z - 0.5 * dl))
    if weight is not None:
        loss = loss * weight
    return _reduced(loss, red)


def _huber_fresh(input: Any, target: Any, reduction: Any = "mean", delta: Any = 1.0, weight: Any = None
                 ) -> Tensor | None:
    """:func:`huber_loss`'s fresh fast path (its entry's ``__fresh__``): for :func:`pair_runs`' call
    (no weight, a float delta > 0), the forward's ops as the NumPy calls their fast paths make on
    the flat runs (``d = x - y``, ``z = |d|``, ``where(z < delta, 0.5 * d * d, delta * (z - 0.5 *
    delta))``, each Python float NumPy's weak scalar, as in those paths), reduced by
    :func:`fresh_loss` (``.mean()`` / ``.sum()``'s kernel); None (the forward runs) otherwise."""
    if weight is not None or delta.__class__ is not float or not delta > 0 \
            or (runs := pair_runs(input, target, reduction)) is None:
        return None
    x, y, info, dt = runs
    dl = delta
    token = quiet_set(QUIET)
    try:
        d = np.subtract(x, y)
        z = np.abs(d)
        square = np.multiply(d, 0.5)
        np.multiply(square, d, out=square)
        linear = np.subtract(z, 0.5 * dl)
        np.multiply(linear, dl, out=linear)
        per = np.where(np.less(z, dl), square, linear)
    finally:
        quiet_reset(token)
    return fresh_loss(per, info, dt, reduction)


huber_loss.__fresh__ = _huber_fresh  # type: ignore[attr-defined]


@backward("F.huber_loss", operands="any")
def _huber_loss_backward(out: Tensor, input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0,
                         weight: Tensor | None = None) -> Any:
    """PyTorch's ``huber_loss_backward``: ``norm * d * g`` where ``|d| < delta``, else
    ``norm * g * delta * sign(d)`` (``d = input - target``; norm ``1/n`` for "mean"); the target's
    gradient is its negative. Written in recording ops, so a second derivative is PyTorch's
    ``huber_loss_double_backward`` (``g`` where ``|d| < delta``, strictly, else 0).

    With ``weight`` PyTorch records ``huber_loss(reduction="none") * weight`` and then the
    reduction: the node is named after the outermost (MulBackward0, MeanBackward0,
    SumBackward0) and the gradient follows that chain's order (the reduction's, then the
    weight's product, then the unreduced huber gradient); the weight's is ``g * loss``."""
    red = reduction_mode(reduction)
    dl = float(delta)
    need_target = requires_grad(target)
    shape = broadcast_pair(input._layout.shape, target._layout.shape)
    n = math.prod(shape)

    def huber_grad(d: Tensor, g: Tensor, norm: float, inside: Tensor) -> Tensor:
        # (the kernel's two branches, each in its order: norm * x * grad, norm * grad * delta; g
        # expanded first, so an empty input's derivative in g is an empty sum, 0, not 0 * NaN norm)
        return where(inside, d * norm * g, g.expand(d.shape) * norm * dl * d.sign())

    if weight is None:
        scale = 1.0 / n if red == "mean" and n else float("nan") if red == "mean" else 1.0

        def grad(g: Tensor) -> tuple:
            d = input - target
            gi = huber_grad(d, g, scale, d.abs() < dl)
            return (gi, -gi if need_target else None)

        return "HuberLossBackward0", (input, target), grad, (input, target)

    need_weight = requires_grad(weight)

    def grad_weighted(g: Tensor) -> tuple:
        d = input - target
        z = d.abs()
        full = broadcast_pair(shape, weight._layout.shape)
        gm = g.expand(full) / math.prod(full) if red == "mean" else g.expand(full)  # (MeanBackward0's, SumBackward0's)
        gl = gm * weight  # (MulBackward0's for the unreduced loss)
        gi = huber_grad(d, gl, 1.0, z < dl)
        gw = gm * where(z < dl, 0.5 * d * d, dl * (z - 0.5 * dl)) if need_weight else None
        return (gi, -gi if need_target else None, gw)

    name = {"none": "MulBackward0", "sum": "SumBackward0"}.get(red, "MeanBackward0")
    return name, (input, target, weight), grad_weighted, (input, target, weight)


def soft_margin_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
                     reduction: str = "mean") -> Tensor:
    """``log(1 + exp(-target * input))`` (ATen's order: ``log1p(exp(-input * target))``).

    >>> round(F.soft_margin_loss(strided.tensor([0.0]), strided.tensor([1.0])).item(), 6)
    0.693147
    """
    _operands(input, target, "soft_margin_loss")
    red = reduction_mode(reduction, size_average, reduce)
    # (PyTorch's kernel has no target derivative; the grad mode is the caller's: this forward
    # runs below autograd, its rule recording the one node)
    if target.requires_grad and grad_enabled_at_call():
        raise StridedRuntimeError(join_lines(
            "The function 'soft_margin_loss' is not differentiable with respect to argument 'target'. "
            "This input cannot have requires_grad True.", "detach the target: target.detach()"))
    return _reduced((-input * target).exp().log1p(), red)


@backward("F.soft_margin_loss", operands="two")
def _soft_margin_loss_backward(out: Tensor, input: Tensor, target: Tensor, size_average: Any = None,
                               reduce: Any = None, reduction: str = "mean") -> Any:
    """PyTorch's ``soft_margin_loss_backward``: ``target * z * -norm / (z + 1) * g`` with
    ``z = exp(-target * input)`` and norm ``1 / input.numel()`` for "mean" (the kernel's in-place
    order); in recording ops, so it differentiates again. The target gets none (checked above)."""
    red = reduction_mode(reduction, size_average, reduce)
    n = input.numel()
    norm = (1.0 / n if n else math.inf) if red == "mean" else 1.0  # (C++'s 1. / 0)

    def grad(g: Tensor) -> tuple:
        z = (-target * input).exp()
        return ((target * z * -norm / (z + 1)) * g, None)

    return "SoftMarginLossBackward0", (input, target), grad, (input, target)


def kl_div(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None, reduction: str = "mean",
           log_target: bool = False) -> Tensor:
    """The pointwise KL divergence of log-probabilities ``input`` from ``target``:
    ``xlogy(target, target) - target * input`` (``exp(target) * (target - input)`` with
    ``log_target``); ``reduction="batchmean"`` divides the sum by the batch size.

    >>> F.kl_div(strided.tensor([0.0]), strided.tensor([1.0]), reduction="sum").item()
    0.0
    """
    _operands(input, target, "kl_div")
    if size_average is not None or reduce is not None:
        red = reduction_mode(reduction, size_average, reduce)
    else:
        if reduction == "mean":
            warnings.warn(
                "reduction: 'mean' divides the total loss by both the batch size and the support size."
                "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                UserWarning, stacklevel=user_site()[1],
            )
        red = "sum" if reduction == "batchmean" else reduction_mode(reduction)
    if log_target:
        loss = target.exp() * (target - input)
    else:
        loss = target.xlogy(target) - target * input
    out = _reduced(loss, red)
    if reduction == "batchmean" and input.dim() != 0:
        out = out / input.shape[0]
    return out


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool = True, full: bool = False,
                     size_average: Any = None, eps: float = 1e-8, reduce: Any = None,
                     reduction: str = "mean") -> Tensor:
    """The Poisson negative log likelihood: ``exp(input) - target * input`` (``log_input``), else
    ``input - target * log(input + eps)``; ``full`` adds Stirling's term where ``target > 1``.

    >>> F.poisson_nll_loss(strided.tensor([0.0]), strided.tensor([1.0])).item()
    1.0
    """
    _operands(input, target, "poisson_nll_loss")
    red = reduction_mode(reduction, size_average, reduce)
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        stirling = target * target.log() - target + 0.5 * (2 * math.pi * target).log()
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return _reduced(loss, red)


def gaussian_nll_loss(input: Tensor, target: Tensor, var: Tensor | float, full: bool = False, eps: float = 1e-6,
                      reduction: str = "mean") -> Tensor:
    """The Gaussian negative log likelihood ``0.5 (log(var) + (input - target)**2 / var)`` (plus
    ``0.5 log(2 pi)`` with ``full``), ``var`` clamped to ``eps`` outside the graph, as PyTorch's.

    >>> F.gaussian_nll_loss(strided.tensor([1.0]), strided.tensor([1.0]), strided.tensor([1.0])).item()
    0.0
    """
    _operands(input, target, "gaussian_nll_loss")
    if isinstance(var, float):
        if var < 0:
            raise StridedValueError(join_lines("var has negative entry/entries", f"var is {var}"))
        var = var * input.new_ones(input.shape)
    else:
        tensor_arg(var, "gaussian_nll_loss", "var", 3)
        if _any_negative(var):
            raise StridedValueError(join_lines("var has negative entry/entries", "a variance is never negative"))
    if var._layout.shape != input._layout.shape:
        if input.shape[:-1] == var.shape:  # homoscedastic: one variance per row
            var = var.unsqueeze(-1)
        elif not (input.dim() == var.dim()
                  and sum(y for x, y in zip(input.shape, var.shape) if x != y) == 1):
            raise StridedValueError(join_lines(
                "var is of incorrect size",
                f"var has shape {var.shape} and the input {input.shape}: give var the input's shape, "
                "its shape less the last size, or one size 1 where they differ"))
    if reduction not in ("none", "mean", "sum"):
        raise StridedValueError(join_lines(f"{reduction} is not valid", "reduction is 'none', 'mean' or 'sum'"))
    if var._ag is None and (var._dtype is float32 or var._dtype is float64) \
            and var._layout.strides == _cinfo[var._layout.shape][0]:
        # (no history to keep the clamp out of, row-major float32 / float64: clone's and clamp's
        # results both are, of var's dtype; the out-of-place clamp is the same kernel on the same
        # elements, in one fresh result. An integer var keeps clamp_'s refusal of the float eps)
        var = var.clamp(min=eps)
    else:
        var = var.clone()
        with no_grad():  # (PyTorch's clamp for stability: the gradient flows as if unclamped)
            var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduced(loss, reduction)


def _any_negative(var: Tensor) -> bool:
    """``bool((var < 0).any())``, PyTorch's check of the variances (NaN is not negative): for a plain
    float32 / float64 ``var`` one NumPy comparison of its elements, else those ops (their errors)."""
    if var.__class__ is Tensor and (var._dtype is float32 or var._dtype is float64):
        return bool(np.less(var._np(), 0).any())
    return bool((var < 0).any())


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0, size_average: Any = None,
                         reduce: Any = None, reduction: str = "mean") -> Tensor:
    """``input`` where ``target`` is 1, ``max(0, margin - input)`` where it is -1 (ATen's sum of
    the two ``where`` terms, so other target values get both).

    >>> F.hinge_embedding_loss(strided.tensor([0.3, 2.0]), strided.tensor([1.0, -1.0]), reduction="sum").item()
    0.30000001192092896
    """
    _operands(input, target, "hinge_embedding_loss")
    red = reduction_mode(reduction, size_average, reduce)
    zeros = input.new_zeros(input.shape)
    margin_clamp = (margin - input).clamp_min(0)
    output_margin = where(target != 1, margin_clamp, zeros)
    output_self = where(target != -1, input, zeros)
    return _reduced(output_margin + output_self, red)


seal(globals(), functional=True)  # (last: the losses with a backward rule become their recording entries)
declare(Kind.COMPUTE, "F.huber_loss F.soft_margin_loss F.kl_div F.poisson_nll_loss F.gaussian_nll_loss "
        "F.hinge_embedding_loss")
