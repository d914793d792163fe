"""Activations and a similarity PyTorch computes from fused kernels or other ops, built here
from strided's recording ops: ``glu``, ``prelu`` and ``cosine_similarity``, with PyTorch 2.13's
argument checks (error class and first line). Each is a registry op (``declare`` at the end:
``OPDEFS["F.glu"]``).

PyTorch runs ``glu`` and ``prelu`` as fused kernels with their own nodes (GluBackward0,
PreluKernelBackward0): their forwards here are compositions run below autograd, and a backward
rule names that node and computes its kernel's gradient in the kernel's order, in recording ops
(so second derivatives work). ``cosine_similarity`` is a composition: its nodes are its ops'.

Each has a fast path for row-major float32 / float64 inputs with nobody listening (issue #23: small
sizes at PyTorch's speed): glu's and prelu's are their entries' fresh paths (``__fresh__``, recorded
with their nodes where an input requires grad), cosine_similarity's runs outside autograd only. Each
gives the bits of the composition it stands in for (tests/test_glu33_fast.py).

>>> F.glu(strided.tensor([1.0, 0.0])).item()
0.5
"""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from ... import layout as L
from ...creation import empty_strided
from ...dispatch import adopted
from ...dtypes import bfloat16, float16, float32, float64
from ...errors import StridedNotImplementedError, StridedRuntimeError, StridedTypeError, join_lines
from ...grad_mode import INSIDE, SUBCLASSES, _slow, is_grad_enabled, requires_grad
from ...gradients import NamedSaved, named_saved, seal, sum_to
from ...kernels import native
from ...kernels.fpstate import QUIET, quiet_reset, quiet_set
from ...kernels.listeners import OPEN
from ...kernels.memory import dense_run, flat_run
from ...kernels.sleef import SIGMOID as SLEEF_SIGMOID
from ...kernels.sleef import glu_rows, torch_loop
from ...kernels.torch_sum import norm2_rows
from ...opdef import OPDEFS, Kind, declare
from ...ops._support.fast_reduce import cascade_reduce
from ...ops._support.operands import _cinfo, _fresh_output, _not_implemented
from ...ops._support.promotion import TORCH_NAMES, result_type
from ...ops.elementwise.unary import sigmoid, where
from ...ops.registry import backward
from ...ops.shape.joining import cat
from ...ops.views import reshape as _reshape
from ...tensor import Tensor, tensor_arg
from .._grad import no_grad
from ._common import div_rows

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
    if not OPEN and (out := _glu_rowmajor(input, dim)) is not None:  # (a keyword call: the same fast path)
        return out
    a, b = input.chunk(2, dim)
    if input._dtype is float16 or input._dtype is bfloat16:
        return _glu_reduced(a, b)
    return b.sigmoid() * a  # (sigmoid's operand first: where both are NaN, PyTorch's result is sigmoid's NaN)


def _glu_reduced(a: Tensor, b: Tensor) -> Tensor:
    """PyTorch's reduced-float ``glu_kernel``: ``float(a) * (1 / (1 + exp(-float(b))))`` in float32,
    rounded once to the input's dtype (float16 / bfloat16); its exp SLEEF's in the vector loop over
    ``Vectorized<Half>`` (twice float32's width: :func:`strided.kernels.sleef.torch_loop`'s
    ``lanes=2``) and the C library's in the scalar tail; the result laid out as TensorIterator lays
    out a fresh output of the two halves. NaN words not reproduced (values are)."""
    from ...ops.elementwise.special import _upcast_strided

    b32 = _upcast_strided(b._np())
    with np.errstate(all="ignore"):
        s = torch_loop(b32, SLEEF_SIGMOID, None, lanes=2)
        if s is None:  # (no compiled kernel: NumPy's exp, not PyTorch's bits)
            s = np.float32(1) / (np.float32(1) + np.exp(-b32))
        y = np.multiply(a._np().astype(np.float32), s, out=np.empty_like(s))
    out = _fresh_output(b.shape, a._dtype, [a, b], a._dtype)  # (TensorIterator's strides for the halves)
    np.copyto(out._np(), y, casting="unsafe")
    return out


def _glu_rowmajor(input: Any, dim: Any = -1) -> Tensor | None:
    """glu's fresh fast path (:func:`strided.grad_mode.track`'s ``__fresh__``; :func:`glu`'s own
    first step for a keyword call), PyTorch's bits (tests/test_glu33_fast.py): for a row-major
    float32 / float64 ``input`` of ``outer`` x ``n`` x ``inner`` elements around ``dim`` (``n``
    even), the halves are ``(outer, n // 2 * inner)`` arrays over its flat run, each row contiguous
    and twice its length apart. PyTorch's fused loop (``glu_kernel``: ``a * sigmoid(b)``, the
    sigmoid SLEEF's or the C library's as its vector or scalar function computes it) walks those
    rows (TensorIterator merges the dims from ``dim`` inward into one row, and no further), cut at
    its parallel chunks too: the compiled :func:`strided.kernels.sleef.glu_rows` makes the result in
    one pass (where both halves are NaN, sigmoid's NaN, as PyTorch's product keeps it). The result is fresh and row-major (PyTorch's layout
    for a row-major input). None (nothing computed) for any other call: the general path, its checks
    and errors."""
    if input.__class__ is not Tensor or dim.__class__ is not int:
        return None
    d = input._dtype
    if d is not float32 and d is not float64:
        return None
    shape = input._layout.shape
    nd = len(shape)
    k = dim + nd if dim < 0 else dim
    if not 0 <= k < nd or shape[k] % 2:
        return None
    out_shape = shape[:k] + (shape[k] // 2,) + shape[k + 1:]
    x = flat_run(input, _cinfo[shape])
    if x is not None:
        outer = math.prod(shape[:k])
        row = shape[k] // 2 * math.prod(shape[k + 1:])
        res = glu_rows(x, outer, row)  # (one compiled pass: no copy of a half, no second sweep)
        return None if res is None else adopted(res, _cinfo[out_shape][2], d)
    return _glu_permuted(input, k, out_shape)


def _glu_permuted(input: Tensor, k: int, out_shape: tuple[int, ...]) -> Tensor | None:
    """:func:`_glu_rowmajor` of a permuted dense ``input`` (every dim >= 2, its strides a
    permutation of row-major ones: a transpose), in memory order: the dims of smaller stride than
    ``k``'s are inside glu's row (``row`` = half of ``k``'s size times ``k``'s stride elements),
    the others outside it, the halves of each outer block adjacent in memory. PyTorch's output takes
    the input's dim order (TensorIterator), so its loop coalesces the same rows as for the row-major
    case read in memory order: the same compiled pass over the storage run, the result laid out
    densely in the input's dim order. None (the general path) for any other layout, and where
    ``k``'s half is 1."""
    found = None if out_shape[k] < 2 else dense_run(input, input._layout.numel)
    if found is None:  # (a result dim of 1: its stride is TensorIterator's choice, not the input's)
        return None
    run, lay = found
    strides = lay.strides
    row = out_shape[k] * strides[k]  # (half of k's size times the elements inside it)
    res = glu_rows(run, len(run) // (2 * row), row)
    if res is None:
        return None
    # (the input's dim order: a dim outside k's spans half as many elements; k's and those inside keep theirs)
    out_strides = tuple(st // 2 if st > strides[k] else st for st in strides)
    return adopted(res, L.Layout._trusted(out_shape, tuple(out_strides), 0), input._dtype)




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
        if input._dtype is float16 or input._dtype is bfloat16:
            # (glu_backward_kernel's reduced-float form: (1 - s) * s * a * g in float32, rounded once)
            second = ((1 - s.float()) * s.float() * a.float() * g.float()).to(input._dtype)
        else:
            second = (1 - s) * s * a * g
        return (cat([s * g, second], dim),)

    # (torch 2.13 exposes GluBackward0._saved_dim as unsigned: -1 reads 18446744073709551615)
    return "GluBackward0", (input,), grad, named_saved((input,), dim=dim % (1 << 64), self=input)


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
    # (PyTorch's checks in its order: prelu's own, then its kernel's dtypes)
    if weight._dtype is not input._dtype:
        raise StridedRuntimeError(join_lines(
            f"prelu: Type promoting not supported. Got {TORCH_NAMES[input._dtype]} and {TORCH_NAMES[weight._dtype]}",
            f"input is {input._dtype.name} and weight {weight._dtype.name}: prelu takes one dtype",
            "fix: convert one of them, e.g. weight.to(input.dtype)"))
    n = weight.numel()
    if n != 1 and input.dim() == 0:
        raise StridedRuntimeError(join_lines(
            "Not allow zero-dim input tensor.",
            f"a weight of {n} elements needs one per channel (the input's dim 1); a 0-d input takes a one-element weight"))
    channels = input.shape[1] if input.dim() >= 2 else 1
    if n != 1 and n != channels:
        raise StridedRuntimeError(join_lines(
            "Mismatch of parameter numbers and input channel size. "
            f"Found parameter numbers = {n} and channel size = {channels}.",
            "weight has one element, or one per channel (the input's dim 1)"))
    if weight.dim() > 1:
        raise StridedRuntimeError(join_lines(
            f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.dim()}",
            f"weight has shape {tuple(weight.shape)}", "fix: weight.reshape(-1)"))
    if not input._dtype.is_floating_point:
        raise _not_implemented("prelu_cpu", input._dtype, (input, weight))
    if not OPEN and (out := _prelu_rowmajor(input, weight)) is not None:
        return out
    lay = input._layout
    if not L.product(lay.shape):
        # (PyTorch's _prelu_kernel writes into empty_like(input); a zero-size tensor counts as dense
        # whatever its strides, so the result keeps them: (0, 0) for a tensor made from an array)
        return empty_strided(lay.shape, lay.strides, dtype=input._dtype)
    return where(input > 0, input, _channel_weight(input, weight) * input)


def _prelu_rowmajor(input: Any, weight: Any) -> Tensor | None:
    """prelu's fresh fast path (:func:`strided.grad_mode.track`'s ``__fresh__``; :func:`prelu`'s own
    first step otherwise): a row-major float32 / float64 ``input`` and a row-major ``weight`` of its
    dtype with one element, or one per channel (dim 1 of an input of 2 dims or more): NumPy's
    ``weight * input`` (weight first, as :func:`prelu`'s product and PyTorch's kernel: the NaN of
    ``weight`` where both are NaN), then ``input`` itself written where ``input > 0`` -- the
    general path's selection, the same bits -- into the fresh row-major result of ``input``'s
    shape (PyTorch's, and :func:`prelu`'s broadcast shape for these weights). None (nothing
    computed) for any other call, a zero-size input too: the general path, its checks and errors."""
    if ((input.__class__ is not Tensor and input.__class__ not in SUBCLASSES)
            or (weight.__class__ is not Tensor and weight.__class__ not in SUBCLASSES)):
        return None  # (a subclass instance, an nn.Parameter weight, computes as a Tensor: F.linear's test)
    d = input._dtype
    if (d is not float32 and d is not float64) or weight._dtype is not d or len(weight._layout.shape) > 1:
        return None
    shape = input._layout.shape
    info = _cinfo[shape]
    x = flat_run(input, info)
    w = flat_run(weight, _cinfo[weight._layout.shape])
    if w is not None and x is None and len(w) == 1 and info[1]:
        # (a transposed input, one weight: the same pass over its storage run in memory order, the
        # result laid out as the input, as PyTorch's empty_like(input); large35: 1M 1.5 -> 0.3 ms)
        dense = dense_run(input, info[1])
        res = None if dense is None else _one_slope(dense[0], w)
        return None if res is None else adopted(res, dense[1], d)
    if x is None or w is None or not info[1]:
        return None  # (zero-size: prelu's result keeps the input's strides, whatever they are)
    n = len(w)
    nd = len(shape)
    if n == 1:
        res = _one_slope(x, w)
        if res is not None:
            return adopted(res, info[2], d)
        xs = x
    elif nd >= 2 and n == shape[1]:
        xs = x.reshape(shape[0], n, math.prod(shape[2:]))
        w = w.reshape(n, 1)
    else:
        return None
    token = quiet_set(QUIET)
    try:
        res = np.multiply(w, xs)
        np.copyto(res, xs, where=np.greater(xs, _ZERO[d]))
    finally:
        quiet_reset(token)
    return adopted(res.reshape(-1), info[2], d)


_ZERO = {float32: np.zeros((), np.float32), float64: np.zeros((), np.float64)}


def _one_slope(x: np.ndarray, w: np.ndarray) -> np.ndarray | None:
    """prelu of the flat run ``x`` at the one weight ``w[0]`` by the compiled leaky_relu pass at that
    slope: ``x > 0 ? x : x * slope``, the same IEEE product and selection as :func:`_prelu_rowmajor`'s
    NumPy calls. None for a NaN weight (NumPy's: where both are NaN the product keeps the weight's),
    the kernel off or a run it refuses."""
    slope = float(w[0])
    k = native.special()
    if slope != slope or k is None or not x.flags.aligned:
        return None
    res = np.empty(len(x), x.dtype)
    return res if k.unary_exact(x, res, 2, slope) else None


def _channel_weight(input: Tensor, weight: Tensor) -> Tensor:
    """``weight`` shaped to broadcast against ``input``: ``(n, 1, ...)`` over dim 1, or 0-d."""
    if input.dim() >= 2:
        return weight.reshape((weight.numel(),) + (1,) * (input.dim() - 2))
    if weight.numel() == 1 and weight.dim() > input.dim():
        return weight.reshape(())
    return weight


def _kernel_weight(input: Tensor, weight: Tensor) -> Tensor:
    """The weight PyTorch's ``prelu`` hands its kernel: ``weight`` reshaped to ``input.dim()``
    dims, ``(1, n, 1, ...)`` (all ones below 2 dims), where the dims differ (a recorded view:
    ViewBackward0 on the weight's edge), else ``weight`` itself."""
    # (the layouts read directly: Tensor.dim / numel are guarded methods, a third of this call)
    nd = len(input._layout.shape)
    ws = weight._layout.shape
    if len(ws) == nd:
        return weight
    shape = [1] * nd
    if nd >= 2:
        shape[1] = math.prod(ws)
    if OPEN or weight._ag is None or INSIDE.get():
        return weight.reshape(tuple(shape))  # (a listened call keeps its entry: the listeners' record)
    # (what reshape's own entry does -- strided.gradients.record: _slow with reshape's rule -- without
    # the entry's registry lookup and its second pass through reshape: the same view, the same node)
    return _slow(_reshape, _RESHAPE_RULE, (weight, tuple(shape)), {})


_RESHAPE_RULE = OPDEFS["reshape"].backward  # (reshape's rule: ViewBackward0 for this view)


@backward("F.prelu", operands="two")
def _prelu_backward(out: Tensor, input: Tensor, weight: Tensor) -> Any:
    """PyTorch's ``_prelu_kernel_backward``: ``g`` where ``input > 0``, else ``weight * g``; the
    weight's ``input * g`` where ``input <= 0`` (else 0), summed down to the kernel's weight
    (:func:`_kernel_weight`, whose view's node reshapes it back to the weight's shape). Under
    ``create_graph=True`` each is one node over (g, input, weight) whose derivatives are
    derivatives.yaml's for ``_prelu_kernel_backward``: masks ``input >= 0`` (the first derivative's
    are ``> 0``: at ``input == 0`` the second derivative takes the positive branch)."""
    need_weight = requires_grad(weight)
    w = _kernel_weight(input, weight)  # (recorded here, with grad mode on: the edge's ViewBackward0)

    def grad(g: Tensor) -> tuple:
        pos = input > 0
        gi = where(pos, g, w * g)
        gw = None
        if need_weight:
            gw = sum_to(where(pos, g.new_zeros(()), input * g), w._layout.shape)
        if is_grad_enabled():
            gi = _prelu_second(gi, g, input, w, True)
            if gw is not None:
                gw = _prelu_second(gw, g, input, w, False)
        return (gi, gw)

    if input is w:  # (F.prelu(w, w) of a 1-D w: named_saved finds both names at index 0)
        return "PreluKernelBackward0", (input, w), grad, named_saved((input, w), self=input, weight=w)
    saved = NamedSaved((input, w))
    saved.names = _PRELU_SAVED_NAMES  # (named_saved's table for two distinct tensors, made once: read-only)
    return "PreluKernelBackward0", (input, w), grad, saved


_PRELU_SAVED_NAMES = {"self": (True, 0), "weight": (True, 1)}


def _prelu_second(value: Tensor, g: Tensor, x: Tensor, w: Tensor, of_input: bool) -> Tensor:
    """``value`` (the input's gradient, ``of_input``, or the weight's) as the output of a
    PreluKernelBackwardBackward0 node over ``(g, x, w)`` with derivatives.yaml's formulas for
    ``_prelu_kernel_backward`` (``gg`` the gradient arriving at ``value``): from the input's
    gradient, ``where(x >= 0, gg, gg * w)`` to g and ``where(x >= 0, 0, g * gg)`` to w (none to x);
    from the weight's, ``where(x >= 0, 0, gg * x)`` to g and ``where(x >= 0, 0, g * gg)`` to x
    (none to w). Each is reduced to its operand's shape (PyTorch's engine sums a broadcast
    gradient down). Recorded only where one of them requires grad."""
    if not (value._ag is not None or any(requires_grad(t) for t in (g, x, w))):
        return value

    def rule(out: Tensor, v: Tensor, g: Tensor, x: Tensor, w: Tensor) -> Any:
        def grads(gg: Tensor) -> tuple:
            nonneg = x >= 0
            zero = gg.new_zeros(())
            if of_input:
                return (None, sum_to(where(nonneg, gg, gg * w), g._layout.shape), None,
                        sum_to(where(nonneg, zero, g * gg), w._layout.shape))
            return (None, sum_to(where(nonneg, zero, gg * x), g._layout.shape),
                    sum_to(where(nonneg, zero, g * gg), x._layout.shape), None)

        return "PreluKernelBackwardBackward0", (v, g, x, w), grads, (g, x, w)

    return _slow(lambda v, *rest: v.detach().clone(), rule, (value.detach(), g, x, w), {})


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
    if x1.__class__ is Tensor and x2.__class__ is Tensor and x1._dtype is x2._dtype:
        common = x1._dtype  # (two tensors of one dtype: result_type's answer, without its promotion walk)
    else:
        tensor_arg(x1, "cosine_similarity")
        tensor_arg(x2, "cosine_similarity", "x2", 2)
        common = result_type(x1, x2)
    if not common.is_floating_point:
        raise StridedRuntimeError(join_lines(
            f"expected common dtype to be floating point, yet common dtype is {TORCH_NAMES[common]}",
            f"x1 is {x1._dtype.name} and x2 {x2._dtype.name}", "fix: x1.float() and x2.float()"))
    if isinstance(eps, (int, float)) and not eps >= 0:  # (PyTorch's check; NaN fails it too)
        raise StridedRuntimeError(join_lines(f"eps must be non-negative, got: {eps:g}",
                                             "eps is the least norm each input is divided by: 0 or more"))
    # (ATen converts an integer (or bool) operand to the common dtype; float operands stay as they are)
    if not x1._dtype.is_floating_point:
        x1 = x1.to(common)
    if not x2._dtype.is_floating_point:
        x2 = x2.to(common)
    if not OPEN and (out := _cosine_rowmajor(x1, x2, dim, eps)) is not None:
        return out
    a, b = x1.broadcast_to(_common_shape(x1, x2)), x2.broadcast_to(_common_shape(x1, x2))
    n1 = a.norm(2, dim, keepdim=True)
    n2 = b.norm(2, dim, keepdim=True)
    n1, n2 = n1.clone(), n2.clone()
    with no_grad():  # (ATen clamps the norms in place under no_grad: the gradient is the unclamped one's)
        n1.clamp_(min=eps)
        n2.clamp_(min=eps)
    return ((a / n1) * (b / n2)).sum(dim)


def _cosine_rowmajor(x1: Tensor, x2: Tensor, dim: Any, eps: Any) -> Tensor | None:
    """cosine_similarity's fast path for two row-major float32 / float64 tensors of one shape and
    dtype outside autograd, along their last dim (of 2 elements or more), with a number ``eps``
    (0 or more: checked before): the calls the composition's ops come to, on the flat runs, without its tensors and
    dispatch -- each norm PyTorch's last-dim kernel (:func:`strided.kernels.torch_sum.norm2_rows`,
    as ``vector_norm`` takes it), clamped to ``eps`` (NumPy's maximum: a norm is never -0 and
    ``eps`` no NaN, so no tie or NaN rule differs from ``clamp_``), both quotients and their
    product by NumPy (each one rounding, the operands in the composition's order), then the sum
    along the last dim by :func:`strided.ops._support.fast_reduce.cascade_reduce` (PyTorch's order,
    as ``.sum(dim)``). The same bits as the composition (tests/test_glu33_fast.py); None (nothing
    computed) for any other call, or where a kernel is not built: the composition then."""
    if x1.__class__ is not Tensor or x2.__class__ is not Tensor or x1._ag is not None or x2._ag is not None:
        return None
    d = x1._dtype
    if (d is not float32 and d is not float64) or x2._dtype is not d or not isinstance(dim, int) \
            or dim.__class__ is bool or (eps.__class__ is not float and eps.__class__ is not int):
        return None
    shape = x1._layout.shape
    nd = len(shape)
    if x2._layout.shape != shape or not nd or (dim + nd if dim < 0 else dim) != nd - 1 or shape[-1] < 2:
        return None
    info = _cinfo[shape]
    if not info[1]:
        return None
    a, b = flat_run(x1, info), flat_run(x2, info)
    if a is None or b is None:
        return None
    n = shape[-1]
    a, b = a.reshape(-1, n), b.reshape(-1, n)
    n1, n2 = norm2_rows(a), norm2_rows(b)
    e = _EPS_0D[d].get(eps, eps)  # (a 0-d array of eps's value in d: NumPy's cast of the weak Python number)
    token = quiet_set(QUIET)
    try:
        np.maximum(n1, e, out=n1)
        np.maximum(n2, e, out=n2)
        q = div_rows(a, n1)
        np.multiply(q, div_rows(b, n2), out=q)
    finally:
        quiet_reset(token)
    if e is eps and eps.__class__ is float and -3.0e38 < eps < 3.0e38 and len(_EPS_0D[d]) < 16:
        _EPS_0D[d][eps] = np.array(eps, d.numpy)  # (a float inside float32's range: the cast rounds, never overflows)
    return cascade_reduce(adopted(q.reshape(-1), info[2], d), nd - 1, False)


# (_cosine_rowmajor's memo: per dtype, a float eps -> its 0-d array of that dtype, the same value
# np.maximum's weak Python float is cast to, without the scalar's conversion on each call; a few at most)
_EPS_0D: dict[Any, dict[float, np.ndarray]] = {float32: {}, float64: {}}


def _common_shape(x1: Tensor, x2: Tensor) -> tuple[int, ...]:
    from ...ops.shape.broadcasting import broadcast_pair

    try:
        return broadcast_pair(x1._layout.shape, x2._layout.shape)
    except Exception:
        (x1 + x2)  # PyTorch's broadcast error text, from the op that reports it
        raise


glu.__fresh__ = _glu_rowmajor  # type: ignore[attr-defined]
prelu.__fresh__ = _prelu_rowmajor  # type: ignore[attr-defined]

seal(globals(), functional=True)  # (last: the ops with a backward rule become their recording entries)
declare(Kind.COMPUTE, "F.glu F.prelu F.cosine_similarity")
