"""Activations and a similarity PyTorch computes from fused kernels or other ops, built here
from strided's recording ops: ``glu``, ``prelu`` and ``cosine_similarity``, with PyTorch 2.13's
argument checks (error class and first line). Each is a registry op (``declare`` at the end:
``OPDEFS["F.glu"]``).

PyTorch runs ``glu`` and ``prelu`` as fused kernels with their own nodes (GluBackward0,
PreluKernelBackward0): their forwards here are compositions run below autograd, and a backward
rule names that node and computes its kernel's gradient in the kernel's order, in recording ops
(so second derivatives work). ``cosine_similarity`` is a composition: its nodes are its ops'.

>>> F.glu(strided.tensor([1.0, 0.0])).item()
0.5
"""

from __future__ import annotations

import operator
from typing import Any

from ... import layout as L
from ...dtype_promotion import TORCH_NAMES
from ...errors import StridedNotImplementedError, StridedRuntimeError, StridedTypeError, join_lines
from ...grad_mode import is_grad_enabled, requires_grad
from ...gradients import seal, sum_to
from ...opdef import Kind, declare
from ...ops._support.promotion import result_type
from ...ops.elementwise.unary import sigmoid, where
from ...ops.registry import backward
from ...ops.shape.joining import cat
from ...tensor import Tensor, tensor_arg
from .._grad import no_grad

__all__ = ["cosine_similarity", "glu", "prelu"]


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """The gated linear unit: the first half of ``input`` along ``dim`` times the sigmoid of the second.

    >>> F.glu(strided.tensor([[2.0, 0.0]])).tolist()
    [[1.0]]
    """
    tensor_arg(input, "glu")
    dim = _glu_dim(dim)
    if input.dim() == 0:
        raise StridedRuntimeError(join_lines("glu does not support scalars because halving size must be even",
                                             "give glu a tensor with an even size along dim"))
    d = L.wrap_dim(dim, input.dim())  # (PyTorch's IndexError: Dimension out of range ...)
    size = input.shape[d]
    if size % 2:
        raise StridedRuntimeError(join_lines(f"Halving dimension must be even, but dimension {d} is size {size}",
                                             "glu splits dim into two halves"))
    if not input._dtype.is_floating_point:
        raise StridedNotImplementedError(join_lines(
            f"\"glu_cpu\" not implemented for '{TORCH_NAMES[input._dtype]}'",
            "glu is defined for floating-point tensors", "fix: input.float()"))
    a, b = input.chunk(2, dim)
    return a * b.sigmoid()


def _glu_dim(dim: Any) -> int:
    """PyTorch's argument parser for glu's ``dim``: an int, a 0-d integer tensor or an
    ``__index__`` object; a bool, a float or another tensor is its TypeError."""
    if type(dim) is int:
        return dim
    if isinstance(dim, Tensor) and dim.dim() == 0 and dim._dtype.kind in "iu":
        return int(dim.item())
    if hasattr(dim, "__index__") and not isinstance(dim, (bool, Tensor)):
        return operator.index(dim)
    raise StridedTypeError(join_lines(f"glu(): argument 'dim' (position 2) must be int, not {type(dim).__name__}",
                                      "dim names the dim glu halves: an int"))


@backward("F.glu", operands="self")
def _glu_backward(out: Tensor, input: Tensor, dim: int = -1) -> Any:
    """PyTorch's ``glu_backward``: ``sigmoid(b) * g`` for the first half and
    ``(1 - s) * s * a * g`` for the second (the kernel's order), joined along ``dim``; in
    recording ops, so it differentiates again."""

    dim = _glu_dim(dim)

    def grad(g: Tensor) -> tuple:
        a, b = input.chunk(2, dim)
        s = _kernel_sigmoid(input, b, dim)
        return (cat([s * g, (1 - s) * s * a * g], dim),)

    return "GluBackward0", (input,), grad, (input,)


def _kernel_sigmoid(input: Tensor, b: Tensor, dim: int) -> Tensor:
    """``sigmoid(b)`` with the bits of ``glu_backward``'s: it writes ``sigmoid_out`` into the first
    half of a contiguous ``grad_input``, whose layout (not ``b``'s) decides which elements take
    the vector loop's exp and which the scalar one's (a different last bit where the input is
    not contiguous). Recording (a second derivative), the recorded sigmoid plus the detached
    difference: the same bits (two values an ulp apart subtract exactly), the same graph."""
    if input.is_contiguous():  # (grad_input's half has b's layout: the same rows, the same bits)
        return b.sigmoid()
    with no_grad():
        first = input.new_empty(input.shape).narrow(dim, 0, b.shape[dim])
        sigmoid(b, out=first)
    if not (is_grad_enabled() and requires_grad(b)):
        return first
    s = b.sigmoid()
    return s + (first - s).detach()


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """``input`` where positive, else ``weight * input``; ``weight`` has one element or one per
    channel (dim 1 of the input).

    >>> F.prelu(strided.tensor([-2.0, 3.0]), strided.tensor([0.25])).tolist()
    [-0.5, 3.0]
    """
    tensor_arg(input, "prelu")
    tensor_arg(weight, "prelu", "weight", 2)
    if input._dtype is not weight._dtype:
        raise StridedRuntimeError(join_lines(
            f"prelu: Type promoting not supported. Got {TORCH_NAMES[input._dtype]} and {TORCH_NAMES[weight._dtype]}",
            "prelu takes a weight of the input's dtype", "fix: weight.to(input.dtype)"))
    n = weight.numel()
    channels = input.shape[1] if input.dim() >= 2 else 1
    if n != 1 and input.dim() == 0:
        raise StridedRuntimeError(join_lines("Not allow zero-dim input tensor.",
                                             f"a weight of {n} elements needs an input with a channel dim"))
    if n != 1 and n != channels:
        raise StridedRuntimeError(join_lines(
            "Mismatch of parameter numbers and input channel size. "
            f"Found parameter numbers = {n} and channel size = {channels}.",
            "weight has one element, or one per channel (the input's dim 1)"))
    if weight.dim() > 1:
        raise StridedRuntimeError(join_lines(
            f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.dim()}",
            "fix: weight.reshape(-1)"))
    if not input._dtype.is_floating_point:
        raise StridedNotImplementedError(join_lines(
            f"\"prelu_cpu\" not implemented for '{TORCH_NAMES[input._dtype]}'",
            "prelu is defined for floating-point tensors", "fix: input.float() and weight.float()"))
    return where(input > 0, input, _channel_weight(input, weight) * input)


def _channel_weight(input: Tensor, weight: Tensor) -> Tensor:
    """``weight`` shaped to broadcast against ``input``: ``(n, 1, ...)`` over dim 1, or 0-d."""
    if input.dim() >= 2:
        return weight.reshape((weight.numel(),) + (1,) * (input.dim() - 2))
    if weight.numel() == 1 and weight.dim() > input.dim():
        return weight.reshape(())
    return weight


@backward("F.prelu", operands="two")
def _prelu_backward(out: Tensor, input: Tensor, weight: Tensor) -> Any:
    """PyTorch's ``_prelu_kernel_backward``: ``g`` where ``input > 0``, else ``weight * g``; the
    weight's ``input * g`` where ``input <= 0`` (else 0), summed down to the channel-shaped weight
    and reshaped back to the weight's shape. In recording ops, so it differentiates again."""
    need_weight = requires_grad(weight)

    def grad(g: Tensor) -> tuple:
        w = _channel_weight(input, weight)
        pos = input > 0
        gi = where(pos, g, w * g)
        gw = None
        if need_weight:
            gw = sum_to(where(pos, g.new_zeros(()), input * g), w._layout.shape).reshape(weight.shape)
        return (gi, gw)

    return "PreluKernelBackward0", (input, weight), grad, (input, weight)


class _DefaultDim(int):
    """The default ``dim`` (1), told apart from a ``dim`` the caller gave (``is``)."""


_DIM_DEFAULT = _DefaultDim(1)


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = _DIM_DEFAULT, eps: float = 1e-8, *,
                      axis: int | None = None) -> Tensor:
    """The cosine of the angle between ``x1`` and ``x2`` along ``dim`` (broadcast together): the
    sum of the products of each divided by its 2-norm, the norms clamped to ``eps`` outside the
    graph, as ATen's ``cosine_similarity``. ``axis=`` is ``dim``'s alias where ``dim`` is not given
    (PyTorch's argument parser takes it so; with both, its TypeError).

    >>> F.cosine_similarity(strided.tensor([[1.0, 0.0]]), strided.tensor([[1.0, 1.0]])).tolist()  # doctest: +ELLIPSIS
    [0.7071067...]
    """
    if axis is not None:
        if dim is not _DIM_DEFAULT:
            raise StridedTypeError("cosine_similarity() got an unexpected keyword argument 'axis'")
        dim = axis
    tensor_arg(x1, "cosine_similarity")
    tensor_arg(x2, "cosine_similarity", "x2", 2)
    common = result_type(x1, x2)
    if not common.is_floating_point:
        raise StridedRuntimeError(join_lines(
            f"expected common dtype to be floating point, yet common dtype is {TORCH_NAMES[common]}",
            f"x1 is {x1._dtype.name} and x2 {x2._dtype.name}", "fix: x1.float() and x2.float()"))
    if not eps >= 0:
        raise StridedRuntimeError(join_lines(f"eps must be non-negative, got: {eps:g}",
                                             "eps is the smallest norm divided by"))
    # (ATen converts an integer (or bool) operand to the common dtype; float operands stay as they are)
    if not x1._dtype.is_floating_point:
        x1 = x1.to(common)
    if not x2._dtype.is_floating_point:
        x2 = x2.to(common)
    a, b = x1.broadcast_to(_common_shape(x1, x2)), x2.broadcast_to(_common_shape(x1, x2))
    n1 = a.norm(2, dim, keepdim=True)
    n2 = b.norm(2, dim, keepdim=True)
    n1, n2 = n1.clone(), n2.clone()
    with no_grad():  # (ATen clamps the norms in place under no_grad: the gradient is the unclamped one's)
        n1.clamp_(min=eps)
        n2.clamp_(min=eps)
    return ((a / n1) * (b / n2)).sum(dim)


def _common_shape(x1: Tensor, x2: Tensor) -> tuple[int, ...]:
    from ...ops.shape.broadcasting import broadcast_pair

    try:
        return broadcast_pair(x1._layout.shape, x2._layout.shape)
    except Exception:
        (x1 + x2)  # PyTorch's broadcast error text, from the op that reports it
        raise


seal(globals(), functional=True)  # (last: the ops with a backward rule become their recording entries)
declare(Kind.COMPUTE, "F.glu F.prelu F.cosine_similarity")
