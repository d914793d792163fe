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

from ... import layout as L
from ...callsite import user_site
from ...creation import empty_like
from ...dispatch import adopted
from ...dtype_promotion import TORCH_NAMES
from ...dtypes import DType, bfloat16, bool_, float16, float32, float64
from ...errors import (
    StridedNotImplementedError,
    StridedRuntimeError,
    StridedTypeError,
    StridedValueError,
    join_lines,
)
from ...grad_mode import grad_enabled_at_call, requires_grad
from ...gradients import BACKWARD, named_saved, seal
from ...kernels.fpstate import QUIET, quiet_reset, quiet_set
from ...kernels.listeners import OPEN
from ...kernels.memory import dense_run, flat_run
from ...kernels.torch_loops import scalar_loop_mask
from ...opdef import Kind, declare
from ...ops._support.along import tensor_from_array
from ...ops._support.operands import _cinfo
from ...ops._support.promotion import can_cast, result_type
from ...ops.elementwise.unary import where
from ...ops.registry import backward
from ...ops.shape.broadcasting import broadcast_pair
from ...scalars import wrapped
from ...tensor import Tensor, tensor_arg
from .._grad import no_grad
from ._common import dense_pair_loss, fresh_loss, pair_loss, pair_runs, reduction_mode

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

    As PyTorch's kernel: computed in the promoted dtype of ``input`` and ``target`` with ``delta``
    rounded to it, the per-element loss in ``input``'s dtype (a float32 input and a float64
    target give float32), reduced in that dtype; a float loss refused for an integer input.

    >>> F.huber_loss(strided.tensor([0.0, 3.0]), strided.tensor([0.5, 0.0]), reduction="sum").item()
    2.625
    """
    _operands(input, target, "huber_loss")
    if target._layout.shape != input._layout.shape:
        _warn_sizes(input, target)
        broadcast_pair(input._layout.shape, target._layout.shape)  # (torch.broadcast_tensors' error, before the weight's)
    if weight is not None:
        tensor_arg(weight, "huber_loss", "weight", 5)
        if weight._layout.shape != input._layout.shape:
            raise StridedValueError(join_lines(
                "Weights and input must have the same size.",
                f"weight has shape {weight.shape} and the input {input.shape}: one weight per input element"))
    red = reduction_mode(reduction) if weight is None else "none"
    dl = float(delta)
    if not dl > 0:
        raise StridedRuntimeError(join_lines("huber_loss does not support non-positive values for delta.",
                                             f"delta is {dl}; it is the width of the quadratic zone"))
    same = input._dtype is target._dtype and (input._dtype is float32 or input._dtype is float64)
    loss = _huber_unweighted(input, target, dl, input._dtype if same else _kernel_dtype(input, target, "huber_cpu"))
    if weight is None:
        return _reduced(loss, red)
    loss = loss * weight
    if reduction not in ("none", "mean", "sum"):
        raise StridedValueError(join_lines(
            f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.",
            "reduction is 'none', 'mean' or 'sum'"))
    return _reduced(loss, reduction)


def _huber_unweighted(input: Tensor, target: Tensor, delta: float, compute: DType) -> Tensor:
    """The huber kernel's loss per element, in ``input``'s dtype: computed in ``compute`` (the
    promoted dtype) with delta rounded to it; float16 in float32, rounded once at the end
    (bfloat16 rounds each step: both measured against torch)."""
    out_dtype, like = input._dtype, input
    if compute is out_dtype and (dense := dense_pair_loss(input, target, 0, delta)) is not None:
        return adopted(dense[0], dense[1], out_dtype)  # (a transpose's loss: one compiled pass, laid out as below)
    if compute is float16:
        input, target, compute = input.to(float32), target.to(float32), float32
    elif target._dtype is bool_:  # (the kernel reads it as 0 or 1 of the compute dtype; sub refuses a bool)
        target = target.to(compute)
    d = input - target
    z = d.abs()
    dc = float(wrapped(delta, compute))  # (the kernel's scalar_t delta)
    # (the quadratic branch squares d itself: its derivatives at d == 0 are PyTorch's, 0 and 1)
    loss = where(z < dc, 0.5 * d * d, dc * (z - 0.5 * dc))
    loss = loss if loss._dtype is out_dtype else loss.to(out_dtype)  # (TensorIterator's cast to the output's dtype)
    # (PyTorch's kernel writes into empty_like of the (broadcast) input: its layout, not the
    # difference's, which an expanded input beside a permuted target leaves to the target)
    shape = loss._layout.shape
    if like._layout.shape != shape:
        like = like.expand(*shape)
    if loss._layout.strides != L.preserve_format_strides(shape, like._layout.strides):
        loss = empty_like(like, dtype=out_dtype).copy_(loss)
    return loss


def _kernel_dtype(input: Tensor, target: Tensor, kernel: str) -> DType:
    """The dtype a fused loss kernel computes in (TensorIterator's common dtype of ``input`` and
    ``target``, its output ``input``-shaped and of ``input``'s dtype): PyTorch's refusal of a
    result that does not cast to the input's dtype (RuntimeError), then its kernel's of a
    non-float dtype (NotImplementedError)."""
    compute = result_type(input, target)
    if not can_cast(compute, input._dtype):
        raise StridedRuntimeError(join_lines(
            f"result type {TORCH_NAMES[compute]} can't be cast to the desired output type {TORCH_NAMES[input._dtype]}",
            f"the loss is computed in {compute.name} and written in the input's dtype, {input._dtype.name}",
            f"fix: convert the input, input.to(strided.{compute.name})"))
    if not compute.is_floating_point:
        raise StridedNotImplementedError(join_lines(
            f"\"{kernel}\" not implemented for '{TORCH_NAMES[compute]}'",
            f"input and target compute in {compute.name}; the loss is defined for floating-point tensors",
            "fix: convert them, input.float() and target.float()"))
    return compute


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
    per = pair_loss(x, y, 0, dl)  # (the same expressions in one compiled pass)
    if per is not None:
        return fresh_loss(per, info, dt, reduction)
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
    shape = broadcast_pair(input._layout.shape, target._layout.shape)
    # (PyTorch's Python huber_loss broadcasts first, torch.broadcast_tensors: an operand of another
    # shape is a recorded expand, its ExpandBackward0 between the node and the operand's history)
    if input._layout.shape != shape:
        input = input.expand(shape)
    if target._layout.shape != shape:
        target = target.expand(shape)
    need_target, need_input = requires_grad(target), requires_grad(input)
    n = math.prod(shape)
    compute = result_type(input, target)
    raw = float(delta)
    dl = float(wrapped(raw, compute))  # (scalar_t delta_val)

    def huber_grad(d: Tensor, g: Tensor, norm: float) -> Tensor:
        # (the kernel's two branches, each in its order: norm * x * grad, norm * grad * delta; g
        # expanded first, so an empty input's derivative in g is an empty sum, 0, not 0 * NaN norm)
        ge = g.expand(d.shape)
        z = d.abs()
        if compute is float64:
            outside = ge * norm * dl * d.sign()
            inside = z < dl
        else:  # (the scalar function's delta is the double: it compares x with it, and multiplies
            # norm * grad in scalar_t by it, returned through float; measured in float32, float16, bfloat16)
            outside = ((ge * norm).to(float64) * raw).to(float32)
            outside = (outside if compute is float32 else outside.to(compute)) * d.sign()
            inside = z.to(float64) < raw
        if n and (norm != 1.0 or compute is not float64):
            # PyTorch's vector function (the AVX2 one: its AVX512 slot is left empty) compares x
            # with delta_val and multiplies grad by norm * delta_val, rounded once in scalar_t: a
            # different last bit from the scalar function's, which runs on each row's last
            # elements and on rows that are not contiguous (measured against torch)
            mask = scalar_loop_mask(shape, L.contiguous_strides(shape), False,
                                    [(input._layout.shape, input._layout.strides),
                                     (target._layout.shape, target._layout.strides),
                                     (g._layout.shape, g._layout.strides)], step=64 // compute.itemsize)
            if mask is not None and mask.all():  # (every element the scalar function's: short rows, strided ones)
                return where(inside, d * norm * g, outside)
            nd = float(wrapped(float(wrapped(norm, compute)) * dl, compute))
            vec = ge * nd * d.sign()
            if mask is None:
                outside, inside = vec, z < dl
            else:
                scalar_lanes = tensor_from_array(mask, shape, bool_)
                outside = where(scalar_lanes, outside, vec)
                if compute is not float64:
                    inside = where(scalar_lanes, inside, z < dl)
        return where(inside, d * norm * g, outside)

    if weight is None:
        scale = 1.0 / n if red == "mean" and n else float("nan") if red == "mean" else 1.0
        scale = float(wrapped(scale, compute))  # (norm.to<scalar_t>())

        def grad(g: Tensor) -> tuple:
            _same_dtypes(input, target, need_input)
            d = input - target
            gi = huber_grad(d, g, scale)
            return (gi, -gi if need_target else None)

        return "HuberLossBackward0", (input, target), grad, named_saved(
            (input, target), self=input, target=target, delta=raw, reduction=_REDUCTION_ENUM[red])

    # With a weight, PyTorch's nodes are those of its Python: huber_loss(reduction="none") (the
    # HuberLossBackward0 above, recorded here), times the weight (MulBackward0's own rule), then
    # the reduction (MeanBackward0, SumBackward0: this node, over the product). The recorded
    # operands are computed again (the forward ran below autograd): the same ops, the same bits.
    loss = huber_loss(input, target, "none", raw)
    if red == "none":
        return _mul_rule(None, loss, weight)
    weighted = loss * weight
    full = weighted._layout.shape
    if red == "sum":
        return "SumBackward0", (weighted,), lambda g: (g.expand(full),), ()
    count = math.prod(full)
    return "MeanBackward0", (weighted,), lambda g: (g.expand(full) / count,), ()


_REDUCTION_ENUM = {"none": 0, "mean": 1, "sum": 2}  # (PyTorch's at::Reduction, its nodes' _saved_reduction)


def _mul_rule(out: Any, a: Tensor, b: Tensor) -> Any:
    """MulBackward0's spec for ``a * b`` (strided's ``mul`` rule, from the registry)."""
    return BACKWARD["mul"][0](out, a, b)



def _same_dtypes(input: Tensor, target: Tensor, input_first: bool) -> None:
    """The refusal of PyTorch's ``huber_loss_backward`` kernel (TensorIterator's same-dtype check)
    for an input and a target of two dtypes, which its forward promotes: the input's gradient is
    computed first, expecting the input's dtype, else the target's, expecting the target's."""
    if input._dtype is not target._dtype:
        want, found = (input, target) if input_first else (target, input)
        raise StridedRuntimeError(join_lines(
            f"Found dtype {TORCH_NAMES[found._dtype]} but expected {TORCH_NAMES[want._dtype]}",
            f"huber_loss's backward takes input and target of one dtype; they are {input._dtype.name} "
            f"and {target._dtype.name} (the forward promoted them)",
            "fix: give the loss a target of the input's dtype, target.to(input.dtype)"))


def _as_dtype(t: Tensor, dtype: DType) -> Tensor:
    """``t`` written into a buffer of ``dtype`` (an in-place kernel's output): converted where it differs."""
    return t if t._dtype is dtype else t.to(dtype)


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
    if (target._dtype is input._dtype and input._dtype.is_floating_point
            and target._layout.shape == input._layout.shape):  # (the common call: the same bits, out of place)
        return _reduced((-input * target).exp().log1p(), red)
    # ATen's in-place chain into an input-shaped output of the input's dtype,
    # neg_out(output, input).mul_(target).exp_().log1p_(): its refusals (a target that broadcasts
    # the input larger, a product that does not cast to the input's dtype, an integer exp_) and
    # its roundings (the product computed in the promoted dtype, rounded to the input's)
    loss = -input
    loss.mul_(target)
    return _reduced(loss.exp_().log1p_(), red)


@backward("F.soft_margin_loss", operands="two")
def _soft_margin_loss_backward(out: Tensor, input: Tensor, target: Tensor, size_average: Any = None,
                               reduce: Any = None, reduction: str = "mean") -> Any:
    """PyTorch's ``soft_margin_loss_backward``: ``target * z * -norm / (z + 1) * g`` with
    ``z = exp(-target * input)`` and norm ``1 / input.numel()`` for "mean" (the kernel's in-place
    order); in recording ops, so it differentiates again. The target gets none (checked above)."""
    red = reduction_mode(reduction, size_average, reduce)
    n = input.numel()
    norm = (1.0 / n if n else math.inf) if red == "mean" else 1.0  # (C++'s 1. / 0)
    # (measured: a float16 / bfloat16 gradient's mul_(-norm) multiplies by -norm rounded to the
    # input's dtype, not by the float -norm a wrapped number keeps elsewhere: 29% / 53% of elements)
    scale = float(wrapped(-norm, input._dtype)) if input._dtype in (float16, bfloat16) else -norm

    def grad(g: Tensor) -> tuple:
        z = (-target * input).exp()
        # (mul_out(grad_input, target, z).mul_(-norm), then div_(z + 1).mul_(grad): grad_input has
        # the input's dtype, so a float64 target's products round to a float32 input's twice)
        gi = _as_dtype(target * z, input._dtype) * scale
        return (_as_dtype(gi / (z + 1), input._dtype) * g,)

    # (the node's one edge is the input's, as PyTorch's: its target is no differentiable argument)
    return "SoftMarginLossBackward0", (input,), grad, (input, target)


def kl_div(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None, reduction: str = "mean",
           log_target: bool = False) -> Tensor:
    """The pointwise KL divergence of log-probabilities ``input`` from ``target``:
    ``xlogy(target, target) - target * input`` (``exp(target) * (target - input)`` with
    ``log_target``); ``reduction="batchmean"`` divides the sum by the batch size.

    >>> F.kl_div(strided.tensor([0.0]), strided.tensor([1.0]), reduction="sum").item()
    0.0
    """
    _operands(input, target, "kl_div")
    if input._dtype.is_complex or target._dtype.is_complex:
        raise StridedRuntimeError(join_lines("kl_div: Complex inputs not supported.",
                                             f"input is {input._dtype.name}, target {target._dtype.name}"))
    if not (input._dtype.is_floating_point and target._dtype.is_floating_point):
        raise StridedRuntimeError(join_lines(
            "kl_div: Integral inputs not supported.",
            f"input is {input._dtype.name}, target {target._dtype.name}: both are log-probabilities or "
            "probabilities, floating point", "fix: convert them, input.float() and target.float()"))
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
        if isinstance(var, int):  # (an int is no float: PyTorch's torch.any(var < 0) gets a bool)
            raise StridedTypeError(join_lines(
                "any() received an invalid combination of arguments - got (bool), but expected one of:",
                f"var is the int {var}; gaussian_nll_loss takes a float or a tensor", f"fix: var={float(var)}"))
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
    if (per := _hinge_rows(input, target, margin, red)) is not None:
        return _reduced(per, red)
    zeros = input.new_zeros(input.shape)
    # (ATen's ``margin - self``: empty_like(self).fill_(margin).sub_(self), in the input's dtype, the
    # margin rounded to it first, an integer input's truncated; then clamp_min_(0). Recording, that
    # chain (its nodes, SubBackward0, ClampMinBackward0, are PyTorch's); else the same bits out of place)
    if requires_grad(input) and grad_enabled_at_call() or input._dtype is bool_:
        margin_clamp = empty_like(input).fill_(margin).sub_(input).clamp_min_(0)
    else:
        m = wrapped(margin, input._dtype)
        margin_clamp = ((float(m) if input._dtype.is_floating_point else int(m)) - input).clamp_min(0)
    output_margin = where(target != 1, margin_clamp, zeros)
    output_self = where(target != -1, input, zeros)
    return _reduced(output_margin + output_self, red)


def _hinge_rows(input: Tensor, target: Tensor, margin: Any, red: str) -> Tensor | None:
    """:func:`hinge_embedding_loss`'s loss per element, before its reduction, for the common call:
    plain row-major (or permuted dense, of one layout) float32/float64 ``input`` and ``target`` of
    one dtype and shape outside autograd, reduced ("mean"/"sum": the per-element layout is never the result's), nobody
    listening; None otherwise (the general chain then runs). The chain's steps on the flat runs
    in NumPy, one op call instead of eight: ``m - x`` in the dtype (``m`` the margin rounded to it,
    as the chain's), ``maximum(., 0)`` (clamp_min's own call; the chain's tied -0.0 keeping is
    moot: ``m - x`` is -0.0 only for a margin of -0.0, which goes the general way), both
    ``where``s over +0.0 and their sum (IEEE's one rounding each, as the chain's tensors). The
    contiguous per-element tensor is the one the chain makes, so ``mean``/``sum`` add in its order."""
    d = input._dtype
    if (OPEN or red == "none" or (d is not float32 and d is not float64) or target._dtype is not d
            or input.__class__ is not Tensor or target.__class__ is not Tensor
            or input._ag is not None or target._ag is not None):
        return None
    shape = input._layout.shape
    if target._layout.shape != shape or margin.__class__ not in (float, int):
        return None
    info = _cinfo[shape]
    x, t = flat_run(input, info), flat_run(target, info)
    layout = info[2]
    if x is None or t is None:
        # (permuted dense operands of one layout: every op of the chain lays its output out as they
        # are -- its first operand, ``target != 1``, has their strides and decides TensorIterator's
        # order, each dim >= 2 -- so its per-element tensor is theirs: the steps on the runs in
        # memory order give it, and its reduction the same order; 1M float32 transposed ~15 -> ~3 ms)
        if input._layout.strides != target._layout.strides:
            return None
        dx, dt = dense_run(input, info[1]), dense_run(target, info[1])
        if dx is None or dt is None:
            return None
        (x, layout), t = dx, dt[0]
    m = wrapped(margin, d)
    if m == 0 and math.copysign(1.0, m) < 0:
        return None
    zero = d.numpy.type(0)
    token = quiet_set(QUIET)  # (inf - inf, NaN compared: quiet, as the chain's kernels)
    try:
        per = np.where(t != 1, np.maximum(m - x, zero), zero) + np.where(t != -1, x, zero)
    finally:
        quiet_reset(token)
    return adopted(per, layout, d)


seal(globals(), functional=True)  # (last: the losses with a backward rule become their recording entries)
declare(Kind.COMPUTE, "F.huber_loss F.soft_margin_loss F.kl_div F.poisson_nll_loss F.gaussian_nll_loss "
        "F.hinge_embedding_loss")
