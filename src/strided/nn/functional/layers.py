"""The layers of ``strided.nn.functional``: ``linear``, ``dropout``, ``layer_norm``, ``normalize``
and ``embedding``, with PyTorch 2.13's shapes, dtypes and errors (class and first line).

``linear`` is a matmul (and the bias added); ``dropout`` draws from the default generator and,
on an input that requires grad, is ``input * mask`` (PyTorch's graph: MulBackward0 with the
mask saved); ``layer_norm``, ``normalize`` and ``embedding`` compute with NumPy on zero-copy
views (float16 in float32, rounded once). Each backward rule (``@backward("F.<name>")``) is
written with strided's recording ops, so a ``create_graph=True`` backward differentiates it
again as PyTorch's double backward does.

>>> F.linear(strided.ones(4, 3), strided.ones(5, 3)).shape
(4, 5)
"""

from __future__ import annotations

import math
import weakref
from typing import Any

import numpy as np
from numpy._core import multiarray as _multiarray

from ...args import int_arg
from ...dispatch import adopted, copied, report, result, result_array
from ...dtypes import TORCH_NAME, float32, float64, int32, int64, tensor_type_text
from ...errors import (
    StridedIndexError,
    StridedNotImplementedError,
    StridedRuntimeError,
    StridedTypeError,
    StridedValueError,
    join_lines,
)
from ...grad_mode import GRAD_MODE, SUBCLASSES, _slow, requires_grad
from ...gradients import grad_zeros, seal
from ...kernels import blas_route, native
from ...kernels.blocked import copy_into, row_major
from ...kernels.fpstate import QUIET, quiet, quiet_reset, quiet_set, quietly
from ...kernels.listeners import OPEN
from ...kernels.matmul import matmul2d, matmul_new
from ...kernels.memory import flat_run, row_major_elements
from ...kernels.rows import ln_rows
from ...kernels.torch_sum import norm2_rows
from ...layout import Layout, contiguous_strides, elementwise_output_strides
from ...layout import expand as expand_layout
from ...layout.plans import View as _View
from ...layout.plans import view as _view_plan
from ...opdef import Kind, declare
from ...ops._support.gradtools import norm_grad
from ...ops._support.memo import Memo
from ...ops._support.operands import _cinfo, _fresh_output
from ...ops._support.promotion import result_type
from ...ops._support.reduce_args import numpy_axes, reduction_dims
from ...ops.creation.generator import default_generator
from ...ops.creation.random import _uniform
from ...ops.elementwise.unary import where
from ...ops.indexing.fast_along import SLICES_C
from ...ops.linalg import matkernel as _mk
from ...ops.linalg.matmul import _product, fast_product
from ...ops.linalg.norms import _torch_general_norm, _torch_norm2, _zero_d_norm
from ...ops.registry import backward
from ...tensor import Tensor, tensor_arg
from ._common import array_like, compute_dtype, div_rows, float_only

__all__ = ["dropout", "embedding", "layer_norm", "linear", "normalize"]

_BIAS_DTYPES = (float32, float64)  # (float16 and bfloat16 add through the op, with its rounding)


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``input @ weight.T + bias``: ``weight`` is (out_features, in_features), ``bias`` (out_features,).

    >>> F.linear(strided.ones(4, 3), strided.ones(5, 3)).shape
    (4, 5)
    """
    tensor_arg(input, "linear")
    tensor_arg(weight, "linear", "weight", 2)
    if bias is not None:
        tensor_arg(bias, "linear", "bias", 3)
        if bias._dtype is not weight._dtype:  # (PyTorch's addmm check, before any other: no promotion)
            raise StridedRuntimeError(join_lines(
                f"self and mat2 must have the same dtype, but got {TORCH_NAME[bias._dtype.name]} and "
                f"{TORCH_NAME[weight._dtype.name]}",
                f"linear adds the bias in the weight's dtype: the bias of shape {bias.shape} is {bias._dtype.name}, "
                f"the weight of shape {weight.shape} {weight._dtype.name}",
                f"fix: bias.to(strided.{weight._dtype.name})"))
    if _FAST_LINEAR and not OPEN:
        out = _linear_rowmajor(input, weight, bias)
        if out is not None:
            return out
    lx, lw = input._layout, weight._layout
    if (bias is not None and _FAST_LINEAR and not OPEN and len(lx.shape) == 2 and len(lw.shape) == 2
            and input._dtype is weight._dtype and bias._dtype is weight._dtype and input._dtype in _BIAS_DTYPES
            and lx.shape[1] == lw.shape[1] and bias._layout.shape == (lw.shape[0],)):
        # (PyTorch's addmm(bias, input, weight.t()) on the MKL route: the bias filled in, one gemm)
        res = blas_route.addmm(bias._np(), input._np(), weight._np().T)
        if res is not None:
            return adopted(res.reshape(-1), _cinfo[res.shape][2], input._dtype)
    if (_FAST_LINEAR and not OPEN and len(lx.shape) == 2 and len(lw.shape) == 2
            and input._dtype is weight._dtype and input._dtype in _BIAS_DTYPES and lx.shape[1] == lw.shape[1]):
        # (the 2-D float case of ``input.matmul(weight.t())`` without the method's entry: its
        # checks all pass here, and this is the very kernel call its general path makes)
        wt = weight.t()
        fast = fast_product(input, wt)
        out = (adopted(fast[0].ravel(), fast[1], input._dtype) if fast is not None
               else _product(input, wt, (lx.shape[0], lw.shape[0])))
    else:
        out = input.matmul(weight.t())
    if bias is None:
        return out
    if input.ndim == 2 and weight.ndim != 2:  # PyTorch's addmm path
        raise StridedRuntimeError(
            join_lines(f"mat2 must be a matrix, got {weight.ndim}-D tensor",
                       f"with a bias, linear takes a (out_features, in_features) weight; it has shape {weight.shape}",
                       "fix: weight.reshape(1, -1) for one output feature")
        )
    if not OPEN and _add_bias(out, bias):  # (a (out_features,) bias: it expands to any product)
        return out
    expand_layout(Layout._trusted(bias.shape, (0,) * bias.ndim, 0), out.shape)  # PyTorch's expand error
    # (watched: the bias's add shows as the in-place write it is; unwatched, a new sum, so the
    # result's version stays 0 as PyTorch's addmm result's)
    return out.add_(bias) if OPEN and out._dtype is result_type(out, bias) else out + bias


_FAST_LINEAR = True  # (tests turn it off to compare with the general path)
_matmul = matmul2d  # (np.matmul, or MKL's gemm on the optional MKL route: kernels/blas_route.py)


def _linear_rowmajor(input: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor | None:
    """``input @ weight.T (+ bias)`` straight from the flat runs, when ``input`` (n, k) and
    ``weight`` (m, k) are row-major 2-D tensors and ``bias`` (if given) a row-major (m,) one, all
    of one float32/float64 dtype, with n, k, m all non-zero: the very ufunc calls of the general
    path (NumPy's ``matmul`` of the input's (n, k) array and the transposed weight's (k, m) view,
    same shapes and byte strides as the general path's views, then ``np.add`` of the bias into
    the fresh product), so the same bits, without making the transposed weight's Tensor, the
    views and the layouts. None (nothing computed) when any condition fails, and while tests turn
    the fast path off (``_FAST_LINEAR``): the general path. It is F.linear's fresh fast path
    (:func:`strided.grad_mode.track`'s ``__fresh__``): its conditions pass every check of
    :func:`linear` (three tensors of one float dtype). The product is first asked of the compiled
    :func:`strided.ops.linalg.matkernel.linear` (every size at least 2, at most its limit of
    multiply-adds: NumPy's own gemm call on the same memory, in one C call without the views and
    NumPy's ufunc set-up; the bias then added as here); where it declines, NumPy's matmul runs."""
    if not _FAST_LINEAR or ((input.__class__ is not Tensor and input.__class__ not in SUBCLASSES)
            or (weight.__class__ is not Tensor and weight.__class__ not in SUBCLASSES)):
        return None
    if bias is None and (t := _mk.linear(input, weight)) is not None:
        return t  # (the compiled call: np.matmul(x, w.T)'s gemm on the same memory, the same bits)
    d = input._dtype
    if weight._dtype is not d or (d is not float32 and d is not float64):
        return None
    xs, ws = input._layout.shape, weight._layout.shape
    if len(xs) != 2 or len(ws) != 2 or xs[1] != ws[1] or not (xs[0] and xs[1] and ws[0]):
        return None
    # (flat_run, its call saved where the storage is exactly the tensor's elements)
    x, ix = input._storage.array, _cinfo[xs]
    lx = input._layout
    if lx.offset or len(x) != ix[1] or lx.strides != ix[0]:
        x = flat_run(input, ix)
    w, iw = weight._storage.array, _cinfo[ws]
    lw = weight._layout
    if lw.offset or len(w) != iw[1] or lw.strides != iw[0]:
        w = flat_run(weight, iw)
    if x is None or w is None:
        return None
    b = None
    if bias is not None:
        if ((bias.__class__ is not Tensor and bias.__class__ not in SUBCLASSES) or bias._dtype is not d
                or bias._layout.shape != (ws[0],)):
            return None
        b = flat_run(bias, _cinfo[(ws[0],)])
        if b is None:
            return None
    shape = (xs[0], ws[0])
    token = quiet_set(QUIET)  # (quiet's block, without its method calls: this runs for every layer's call)
    try:
        if b is not None and (res := blas_route.linear_bias(x.reshape(xs), w.reshape(ws).T, b)) is not None:
            # (the MKL route: PyTorch's addmm(bias, x, w.t()), the bias filled in, then one gemm)
            return adopted(res.reshape(-1), _cinfo[shape][2], d)
        if b is not None and (t := _mk.linear(input, weight)) is not None:  # (the same gemm, from C)
            _add_rows(t._storage.array.reshape(shape), b)
            return t
        res = _matmul(x.reshape(xs), w.reshape(ws).T)
        if res.shape != shape or (res.dtype is not x.dtype and res.dtype != x.dtype) or not res.flags.c_contiguous:
            return None  # (never for NumPy's fresh 2-D product; the general path then does it all again)
        if b is not None:
            _add_rows(res, b)
    except MemoryError:
        return None  # (the general path raises PyTorch's out-of-memory error)
    finally:
        quiet_reset(token)
    # (no version count: the result is fresh, as PyTorch's addmm result starts at version 0)
    return adopted(res.reshape(-1), _cinfo[shape][2], d)


linear.__fresh__ = _linear_rowmajor  # type: ignore[attr-defined]


def _add_rows(x: np.ndarray, b: np.ndarray) -> None:
    """``np.add(x, b, out=x)`` for ``x`` a fresh C-contiguous (..., n) product and ``b`` a
    contiguous (n,) bias of its dtype: the compiled ``add_rows`` where it is built and on (one
    pass, the same additions: the same bits), else NumPy's broadcast add. The caller quiets
    NumPy's floating-point warnings."""
    k = native.special()
    if k is None or not k.add_rows(x, b):
        np.add(x, b, out=x)


def _add_bias(out: Tensor, bias: Tensor) -> bool:
    """``out.add_(bias)`` done directly, when ``out`` (the fresh product) is row-major and ``bias``
    a contiguous (out_features,) tensor of its float32/float64 dtype: the same ufunc on the same
    elements (what the in-place add's kernel runs, its checks all passing for a fresh result).
    False (nothing done) for any other case."""
    d = out._dtype
    lay, blay = out._layout, bias._layout
    if (bias._dtype is not d or d not in _BIAS_DTYPES or len(blay.shape) != 1 or blay.strides != (1,)
            or not lay.shape or blay.shape[0] != lay.shape[-1] or lay.offset
            or lay.strides != contiguous_strides(lay.shape)):
        return False
    x = out._np()
    with quiet():
        _add_rows(x, bias._np())
    # (no version count: ``out`` is fresh, no node can have saved it, and PyTorch's addmm result
    # starts at version 0)
    return True


def _linear_node(ndim: int, bias: bool, weight_ndim: int = 2, contiguous: bool = True) -> str:
    """PyTorch's node for F.linear by the input's dims: addmm / mm for a matrix; for a vector
    or a batch, the view (or squeeze) PyTorch puts around the matrix product."""
    if weight_ndim == 1:
        return "DotBackward0" if ndim == 1 else "MvBackward0" if ndim == 2 else "UnsafeViewBackward0"
    if ndim == 2:
        return "AddmmBackward0" if bias else "MmBackward0"
    if bias and not contiguous:  # PyTorch: matmul, then the bias added
        return "AddBackward0"
    if ndim == 1:
        return "ViewBackward0" if bias else "SqueezeBackward4"
    return "ViewBackward0" if bias else "UnsafeViewBackward0"


def _folded(t: Tensor) -> Tensor | None:
    """``t`` (..., n) as a (rows, n) view, or None when its strides cannot merge the batch dims."""
    shape = t._layout.shape
    rows = 1
    for size in shape[:-1]:
        rows *= size
    return t.view(rows, shape[-1]) if _view_plan(t._layout, (rows, shape[-1])).__class__ is _View else None


def _batched_weight_grad(g: Tensor, x: Tensor) -> Tensor:
    """``sum over the batch dims of g[..., :, None] * x[..., None, :]``: one mm of the two folded
    into (rows, features) views; where a fold would need a copy (a gradient that arrives
    transposed), a batched matmul summed over the batch dims instead (a reduction, not a copy)."""
    gf, xf = _folded(g), _folded(x)
    if gf is not None and xf is not None:
        return gf.t().mm(xf)
    return g.mT.matmul(x).sum(tuple(range(len(g._layout.shape) - 2)))


def _linear_grads_rowmajor(g: Tensor, input: Tensor, weight: Tensor, need_x: bool, need_w: bool) -> tuple | None:
    """The first-order gradients of a matrix input's linear, ``(g @ weight, g.T @ input)`` (None
    for the one not needed), computed as the rule's ops compute them but without their entries:
    ``g.matmul(weight)`` is the matmul's fast path (:func:`fast_product` of the two row-major
    operands, its result adopted as that entry adopts it) and ``g.t().mm(input)`` the mm's general
    product (NumPy's matmul of the transposed gradient's (m, n) view and the input's (n, k) array,
    the same shapes and byte strides as that path's views). For ``g``, ``input`` and ``weight``
    row-major 2-D of one float32/float64 dtype with no dimension of size 0; None otherwise
    (the rule's ops then run). The caller checks that nothing records or listens."""
    d = g._dtype
    if (g.__class__ is not Tensor or (d is not float32 and d is not float64) or input._dtype is not d
            or weight._dtype is not d):
        return None
    gs, xs = g._layout.shape, input._layout.shape
    if len(gs) != 2 or not (gs[0] and gs[1] and xs[1]):
        return None
    gx = gw = None
    if need_x:
        fast = fast_product(g, weight)
        if fast is None:
            return None
        gx = adopted(fast[0].ravel(), fast[1], d)
    if need_w:
        ga = flat_run(g, _cinfo[gs])
        xa = flat_run(input, _cinfo[xs])
        if ga is None or xa is None:
            return None
        shape = (gs[1], xs[1])
        flat = matmul_new(ga.reshape(gs).T, xa.reshape(xs), shape)
        if flat is None:
            return None
        gw = adopted(flat, _cinfo[shape][2], d)
    return gx, gw


@backward("F.linear", operands="any")
def _linear_backward(out: Tensor, input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Any:
    """``g @ weight`` for the input, ``g.T @ input`` (over every batch dim) for the weight and
    ``g`` summed over the batch dims for the bias (the engine's sum down to the bias's shape).

    # Note: PyTorch records F.linear as several nodes (a TBackward0 of the weight, an addmm or mm,
    # a view for batched inputs); strided records one node, named as PyTorch's outermost, whose
    # edges are (input, weight, bias). The weight's transpose is a view: no copy either way.
    """
    nd, wd = len(input._layout.shape), len(weight._layout.shape)
    need_x, need_w = requires_grad(input), requires_grad(weight)
    # a (out_features,) bias of a matrix input that needs its gradient: summed here (below),
    # where the engine would sum it down to the bias's shape (the same reduction, over dim 0)
    # (exactly (out_features,): a broadcast (1,) bias is summed by the engine over both dims at once,
    # which two sums one after the other would round differently)
    sum_bias = (nd == 2 and wd == 2 and bias is not None and bias._layout.shape == weight._layout.shape[:1]
                and requires_grad(bias))

    def grad(g: Tensor) -> tuple:
        if wd == 1:  # a (in,) weight: the output lost the feature dim
            gu = g.unsqueeze(-1)
            return (gu * weight if need_x else None, gu * input if need_w else None, g)
        if nd == 2 and _FAST_LINEAR and g._ag is None and not OPEN and not GRAD_MODE.get():
            fast = _linear_grads_rowmajor(g, input, weight, need_x, need_w)
            if fast is not None:
                return (*fast, g.sum(0) if sum_bias else g)
        gx = g.matmul(weight) if need_x else None
        gw = None
        if need_w:
            if nd == 2:
                gw = g.t().mm(input)
            elif nd == 1:
                gw = g.unsqueeze(1) * input
            else:
                gw = _batched_weight_grad(g, input)
        return (gx, gw, g)

    # (the input for the weight's gradient, the weight for the input's: a tuple written out, as
    # this runs for every recorded linear)
    saved = (input, weight) if need_w and need_x else (input,) if need_w else (weight,) if need_x else ()
    if nd == 2 and wd == 2:  # (a layer's call: _linear_node's answer, without the call)
        return "AddmmBackward0" if bias is not None else "MmBackward0", (input, weight, bias), grad, saved
    # (the input's contiguity names the node only for a vector or batch input with a bias and a
    # matrix weight: not asked otherwise)
    contiguous = input.is_contiguous() if nd != 2 and wd != 1 and bias is not None else True
    name = _linear_node(nd, bias is not None, wd, contiguous)
    return name, (input, weight, bias), grad, saved


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero each element with probability ``p`` and scale the others by ``1 / (1 - p)``, drawing
    from the default generator (``strided.manual_seed`` makes it reproducible). Not
    ``training``, or ``p == 0``: ``input`` itself.

    >>> _ = strided.manual_seed(0); y = F.dropout(strided.ones(1000)); sorted(set(y.tolist()))
    [0.0, 2.0]
    """
    tensor_arg(input, "dropout_" if inplace else "dropout")
    p = float(p)
    if p != p:  # PyTorch's Python check lets NaN through; its kernel's refuses it (a RuntimeError)
        raise StridedRuntimeError(
            join_lines("dropout probability has to be between 0 and 1, but got nan",
                       "p is the probability of zeroing an element")
        )
    if not 0.0 <= p <= 1.0:
        raise StridedValueError(
            join_lines(f"dropout probability has to be between 0 and 1, but got {p}",
                       "p is the probability of zeroing an element")
        )
    if not training or p == 0 or input.numel() == 0:
        return input
    d = input._dtype
    if not d.is_floating_point:
        raise StridedRuntimeError(
            join_lines(f"result type Float can't be cast to the desired output type {TORCH_NAME[d.name]}",
                       f"dropout scales by 1 / (1 - p), which needs a float tensor; the input is {d.name}",
                       "fix: F.dropout(x.float(), p)")
        )
    shape = input._layout.shape
    compute = compute_dtype(d)
    if inplace or requires_grad(input):
        # PyTorch's graph: input * mask (MulBackward0, the mask saved); in place, input.mul_(mask),
        # whose entry applies autograd's in-place rules (a leaf that requires grad is refused)
        mask, arr = result_array(shape, d)
        if p == 1:
            arr.fill(0)
        else:
            keep = default_generator.draw(lambda g: _uniform(g, shape, d) >= p)
            np.copyto(arr, keep.astype(compute) / compute.type(1 - p), casting="unsafe")
        return input.mul_(mask) if inplace else input * mask
    x = input._np().astype(compute, copy=False)
    if p == 1:
        values = x * 0  # PyTorch multiplies by zero: -0.0 where x is negative, NaN stays NaN
    else:
        keep = default_generator.draw(lambda g: _uniform(g, shape, d) >= p)
        values = x * (keep.astype(compute) / compute.type(1 - p))
    out = _fresh_output(shape, d, [input], d)
    np.copyto(out._np(), values, casting="unsafe")
    return report("dropout", (input,), out)


def _shape_list(value: Any, op: str, name: str, pos: int) -> tuple[int, ...]:
    if isinstance(value, (tuple, list)):
        return tuple(int_arg(v, op, name, pos) for v in value)
    raise StridedTypeError(
        join_lines(f"{op}(): argument '{name}' (position {pos}) must be tuple of ints, not {type(value).__name__}",
                   f"give a tuple: F.{op}(x, ({value!r},))")
    )


# The statistics the last layer_norm / normalize forward computed (a weak reference to its result,
# then the arrays): its backward rule, called right after that forward, takes them, as PyTorch's
# nodes save the forward's mean / rstd (NativeLayerNormBackward0) or norm (the division's other
# operand), so that a write through ``.data`` to the input before backward() meets the old
# statistics and the new input, PyTorch's gradients. A rule that finds none (another result)
# computes them from the input, still unwritten when the rule runs.
_STATS: list = [None]
_c_einsum = _multiarray.c_einsum  # (np.einsum's own call where optimize is False, without its wrappers)
_add_reduce, _true_divide, _subtract, _multiply = np.add.reduce, np.true_divide, np.subtract, np.multiply
_intp = np.intp
_np_empty = np.empty  # (the fresh path's allocations: one global read each, not np's and its attribute's)


def _stash(out: Tensor, *stats: Any) -> None:
    _STATS[0] = (weakref.ref(out), stats)


def _stashed(out: Tensor) -> tuple | None:
    """The statistics :func:`_stash` left for ``out`` (taken: the slot is emptied), or None."""
    entry, _STATS[0] = _STATS[0], None
    return entry[1] if entry is not None and entry[0]() is out else None


def layer_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5) -> Tensor:
    """Normalize over the last ``len(normalized_shape)`` dims to mean 0 and variance 1 (biased
    variance, ``eps`` added), then scale by ``weight`` and shift by ``bias`` (each of
    ``normalized_shape``). A fresh contiguous tensor of the input's dtype.

    >>> F.layer_norm(strided.tensor([[1.0, 3.0]]), (2,)).tolist()  # doctest: +ELLIPSIS
    [[-0.99..., 0.99...]]
    """
    if not OPEN and (out := _layer_norm_fresh(input, normalized_shape, weight, bias, eps)) is not None:
        return out  # (the common call, nobody listening: its fast path's conditions pass every check below)
    tensor_arg(input, "layer_norm")
    norm = _shape_list(normalized_shape, "layer_norm", "normalized_shape", 2)
    if not norm:
        raise StridedRuntimeError(
            join_lines("Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
                       "element, but got normalized_shape = []",
                       "name the trailing dims to normalize over, e.g. (x.shape[-1],)")
        )
    for param, name in ((weight, "weight"), (bias, "bias")):
        if param is not None and tuple(tensor_arg(param, "layer_norm", name).shape) != norm:
            raise StridedRuntimeError(
                join_lines(f"Expected {name} to be of same shape as normalized_shape, but got {name} of shape "
                           f"{list(param.shape)} and normalized_shape = {list(norm)}",
                           f"{name} holds one value per normalized element: shape {norm}")
            )
    shape = input._layout.shape
    k = len(norm)
    if len(shape) < k or shape[len(shape) - k:] != norm:
        star = ", ".join(str(s) for s in norm)
        raise StridedRuntimeError(
            join_lines(f"Given normalized_shape={list(norm)}, expected input with shape [*, {star}], but got input "
                       f"of size{list(shape)}",
                       f"layer_norm normalizes the last {k} dim(s), which must have the sizes {norm}")
        )
    d = input._dtype
    if not d.is_floating_point:
        raise float_only("LayerNormKernelImpl", d, "layer_norm")
    for param in (weight, bias):
        if param is not None and param._dtype is not d:
            raise StridedRuntimeError(
                join_lines(f"mixed dtype (CPU): expect parameter to have scalar type of {TORCH_NAME[d.name]}",
                           f"the input is {d.name} and a parameter {param._dtype.name}",
                           f"fix: convert the parameters: weight.to(strided.{d.name})")
            )
    compute = compute_dtype(d)
    inner = int(np.prod(norm))
    rows = int(np.prod(shape[:len(shape) - k]))
    x = input._np().astype(compute, copy=False).reshape(rows, inner)  # (rows, normalized elements)
    out, arr = result_array(shape, d)
    # normalize in place in the result's memory (a float32 scratch for float16): few passes, no temporaries
    in_place = compute == d.numpy
    y = arr.reshape(rows, inner) if in_place else np.empty(x.shape, dtype=compute)
    w = None if weight is None else weight._np().astype(compute, copy=False).reshape(-1)
    b = None if bias is None else bias._np().astype(compute, copy=False).reshape(-1)
    with np.errstate(all="ignore"):
        if x.size:
            mean, r = _normalize_rows(x, y, w, b, eps, in_place)
        else:  # (no element: each row's statistics of nothing, PyTorch's: mean 0, r = 1 / sqrt(0 / 0 + eps))
            mean, r = compute.type(0), np.full(rows, np.nan, compute)
        _stash(out, mean, r)
    if not in_place:
        np.copyto(arr, y.reshape(shape), casting="unsafe")
    inputs = tuple(t for t in (input, weight, bias) if t is not None)
    return report("layer_norm", inputs, out)




def _layer_norm_fresh(input: Any, normalized_shape: Any, weight: Any = None, bias: Any = None,
                      eps: Any = 1e-5) -> Tensor | None:
    """:func:`layer_norm`'s fresh fast path (its entry's ``__fresh__``, :func:`strided.grad_mode.track`):
    a plain row-major float32 / float64 input of at least one element, ``normalized_shape`` one int
    (in a tuple or list) naming its last dim, weight and bias None or row-major tensors of that
    shape and dtype, a float ``eps``: the forward's very steps (:func:`_normalize_rows`, PyTorch's
    kernel's bits) without its checks' and wrappers' Python, its statistics stashed for the backward
    rule as the forward does; None (the forward runs, with its errors) for any other call."""
    if (input.__class__ is not Tensor and input.__class__ not in SUBCLASSES) or eps.__class__ is not float \
            or (normalized_shape.__class__ is not tuple and normalized_shape.__class__ is not list) \
            or len(normalized_shape) != 1:
        return None
    d = input._dtype
    if d is not float32 and d is not float64:
        return None
    shape = input._layout.shape
    n = normalized_shape[0]
    if not shape or n.__class__ is not int or shape[-1] != n or not n:
        return None
    w = b = None
    # (whether a backward rule may read the statistics: an input in autograd; else none is stashed)
    tracked = input._ag is not None
    if weight is not None:
        if (weight.__class__ is not Tensor and weight.__class__ not in SUBCLASSES) or weight._dtype is not d \
                or (w := _param_run(weight, n)) is None:
            return None
        tracked = tracked or weight._ag is not None
    if bias is not None:
        if (bias.__class__ is not Tensor and bias.__class__ not in SUBCLASSES) or bias._dtype is not d \
                or (b := _param_run(bias, n)) is None:
            return None
        tracked = tracked or bias._ag is not None
    info = _cinfo[shape]
    # (another layout, a transpose: the forward's _normalize_rows copies it row-major for its
    # kernel, as PyTorch's does (expect_contiguous); here the blocked copy, 3-5x faster than NumPy's)
    if not info[1]:  # (no element: the forward's statistics of nothing)
        return None
    x = flat_run(input, info)
    if x is None and (x := row_major_elements(input, info)) is None:
        return None
    dt = d.numpy
    flat = _np_empty(info[1], dt)
    rows = info[1] // n
    k = ln_rows()
    # (the kernel reads its buffers flat, the rows counted by mean's length: the flat runs as they
    # are, without their (rows, n) views; eps as _normalize_rows rounds it, memoised per dtype)
    e = _EPS_ROUNDED[d].get(eps) if k is not None else None
    if e is not None and k(x, flat, mean := _np_empty((rows, 1), dt), r := _np_empty(rows, dt), w, b, e):
        pass
    else:
        mean, r = _normalize_rows(x.reshape(-1, n), flat.reshape(-1, n), w, b, eps)
        if k is not None and len(_EPS_ROUNDED[d]) < 16:
            _EPS_ROUNDED[d][eps] = float(_rounded_eps(eps, x.dtype.type))
    out = adopted(flat, info[2], d)
    if tracked:
        _STATS[0] = (weakref.ref(out), (mean, r))  # (_stash, inlined)
    return out


def _param_run(t: Tensor, n: int) -> np.ndarray | None:
    """The flat run of a row-major (n,) parameter, else None: :func:`flat_run` keyed by its own
    shape (no (n,) tuple made per call, nor a second shape test after it)."""
    shape = t._layout.shape
    return flat_run(t, _cinfo[shape]) if len(shape) == 1 and shape[0] == n else None


def _rounded_eps(eps: Any, c: type) -> Any:
    """``eps`` as a scalar of the NumPy type ``c`` (the kernel takes it as a Python float holding the
    type's value: exact); a float past float32's range rounds to inf quietly, as under the forward's
    np.errstate."""
    return c(eps) if eps.__class__ is not float or -3.0e38 < eps < 3.0e38 else quietly(c, eps)


# (the fresh path's memo: per dtype, a float eps -> float(_rounded_eps(eps, dtype)), the value
# _normalize_rows gives the kernel; a few entries at most, filled by the first call with each eps)
_EPS_ROUNDED: dict[Any, dict[float, float]] = {float32: {}, float64: {}}


def _normalize_rows(x: np.ndarray, y: np.ndarray, w: np.ndarray | None, b: np.ndarray | None, eps: float,
                    torch_steps: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """layer_norm's steps on the (rows, n) float array ``x`` (n >= 1, rows >= 1), into ``y`` (its
    shape and dtype, other memory, C-contiguous), ``w`` and ``b`` (n,) of that dtype or None.
    Returns (mean (rows, 1), r (rows,)), the statistics the backward rule takes (PyTorch saves the
    same: mean and rstd). ``torch_steps``: PyTorch's CPU kernel's steps and bits (the compiled
    ``ln_rows``: its cascaded Welford moments, ``r = 1 / sqrt(var + eps)``, its fused y steps; see
    kernels/_ln_torch.h), where the compiled module is built; else (and for the float32 scratch of a
    float16 input, whose PyTorch kernel differs) NumPy's steps: each row's mean (NumPy's sum, then
    its division by the intp count), ``y = x - mean``, the biased variance (the squares' einsum),
    ``r``, ``y *= r``, ``y *= w``, ``y += b``, under NumPy's error state "ignore"."""
    rows, n = x.shape
    e = _rounded_eps(eps, x.dtype.type)
    k = ln_rows() if torch_steps else None
    if k is not None:
        if k(x, y, mean := np.empty((rows, 1), x.dtype), r := np.empty(rows, x.dtype), w, b, float(e)):
            return mean, r
        # (not taken: the kernel takes C-contiguous aligned buffers; copies of other layouts, so that
        # every layout gets PyTorch's bits)
        x, w, b = (None if a is None else np.require(row_major(a), None, "CA") for a in (x, w, b))
        if k(x, y, mean, r, w, b, float(e)):
            return mean, r
    token = quiet_set(QUIET)  # (np.errstate(all="ignore"), without its method calls)
    try:
        return _normalize_rows_numpy(x, y, w, b, e)
    finally:
        quiet_reset(token)


def _normalize_rows_numpy(x: np.ndarray, y: np.ndarray, w: np.ndarray | None, b: np.ndarray | None, e: Any
                          ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_normalize_rows`' NumPy ufuncs (``e``: eps as a scalar of ``x``'s dtype)."""
    n = x.shape[1]
    mean = _add_reduce(x, 1, None, None, True)
    _true_divide(mean, _intp(n), out=mean, casting="unsafe", subok=False)
    _subtract(x, mean, out=y)
    var = _c_einsum("ij,ij->i", y, y)
    _true_divide(var, x.dtype.type(n), out=var)
    r = 1 / np.sqrt(var + e)
    _multiply(y, r[:, None], out=y)
    if w is not None:
        _multiply(y, w, out=y)
    if b is not None:
        np.add(y, b, out=y)
    return mean, r


layer_norm.__fresh__ = _layer_norm_fresh  # type: ignore[attr-defined]


@backward("F.layer_norm", operands="any")
def _layer_norm_backward(out: Tensor, input: Tensor, normalized_shape: Any, weight: Tensor | None = None,
                         bias: Tensor | None = None, eps: float = 1e-5) -> Any:
    """PyTorch's native_layer_norm_backward over the normalized dims (x̂ the normalized input,
    r = 1/sqrt(var + eps)): the input's ``r (ĝ - mean ĝ - x̂ mean(ĝ x̂))`` with ``ĝ = g * weight``;
    the weight's ``sum(g x̂)`` and the bias's ``sum(g)`` over the other dims, from the forward's
    mean and r and the input as it is now. Under create_graph the same values behind
    NativeLayerNormBackwardBackward0 nodes (:func:`_layer_norm_second`): PyTorch's double backward."""
    nd, k = len(input._layout.shape), len(tuple(normalized_shape))
    dims = tuple(range(nd - k, nd))
    need_x = requires_grad(input)
    need_w = weight is not None and requires_grad(weight)
    need_b = bias is not None and requires_grad(bias)
    stats = _stashed(out) or _layer_norm_stats(input, dims, eps)  # (the forward's mean and r)

    def grad(g: Tensor) -> tuple:
        values = _layer_norm_fused(g, input, weight, bias, dims, (need_x, need_w, need_b), stats)
        if not GRAD_MODE.get():  # first order: one NumPy pass per row (nothing to record)
            return values
        # create_graph: the same values (PyTorch's native_layer_norm_backward runs its kernel
        # then too), each behind a NativeLayerNormBackwardBackward0 node with PyTorch's
        # layer_norm_double_backward, which reads the input as it is now and the saved mean / rstd
        return tuple(None if v is None else _layer_norm_second(v, slot, g, input, weight, dims, stats)
                     for slot, v in enumerate(values))

    saved = tuple(t for t in (input, weight, bias) if t is not None)  # (PyTorch saves bias too)
    return "NativeLayerNormBackward0", (input, weight, bias), grad, saved


def _layer_norm_second(value: Tensor, slot: int, g: Tensor, input: Tensor, weight: Tensor | None,  # noqa: A002
                       dims: tuple, stats: tuple) -> Tensor:
    """``value``, layer_norm's gradient towards its input (``slot`` 0), weight (1) or bias (2),
    as the output of a NativeLayerNormBackwardBackward0 node over ``(g, input, weight)``: a
    second backward gives PyTorch's layer_norm_double_backward for that slot's incoming
    gradient (ggI, ggG or ggB), from the saved mean and rstd (``stats``: constants, as PyTorch's
    non-differentiable saved outputs) and the input as it is now (a ``.data`` write included).
    Recorded only where ``g``, the input or the weight requires grad."""
    operands = (g, input) if weight is None else (g, input, weight)
    if not any(requires_grad(t) for t in operands):
        return value
    mean, r = stats
    d = input._dtype
    shape = input._layout.shape
    rows, n = math.prod(shape[:dims[0]]), math.prod(shape[dims[0]:])
    mu = array_like(np.asarray(mean).reshape(-1, 1), _template((rows, 1), d))
    s = array_like(np.asarray(r).reshape(-1, 1), _template((rows, 1), d))

    def rule(out: Tensor, v: Tensor, g: Tensor, x: Tensor, w: Tensor | None = None) -> Any:
        def grads(gg: Tensor) -> tuple:
            return (None, *_layer_norm_double(gg, slot, g, x, w, mu, s, n))

        return "NativeLayerNormBackwardBackward0", (v, *operands), grads, operands

    return _slow(lambda v, *rest: v.detach().clone(), rule, (value.detach(), *operands), {})


def _template(shape: tuple, d: Any) -> Tensor:
    """A fresh tensor of ``shape`` and dtype ``d`` (for :func:`array_like`'s shape and dtype)."""
    return result_array(shape, d)[0]


def _layer_norm_double(gg: Tensor, slot: int, g: Tensor, x: Tensor, w: Tensor | None, mu: Tensor,
                       s: Tensor, n: int) -> tuple:
    """PyTorch's layer_norm_double_backward (FunctionsManual.cpp) for the gradient ``gg`` arriving
    at slot ``slot`` of NativeLayerNormBackward0's outputs (0 ggI, 1 ggG, 2 ggB): the gradients
    towards ``(g, x, w)`` (ggO, gI, gG; None where the slot gives none), with ``x`` and ``g``
    as (M, N) rows (``n`` = N), ``mu`` and ``s`` (rstd) the saved (M, 1) statistics, recorded ops (a third
    backward differentiates them again)."""
    shape = x._layout.shape
    xr, go = x.reshape(-1, n), g.reshape(-1, n)
    xmu = xr - mu
    s2, s3 = s.pow(2), s.pow(3)
    xmu_s3 = xmu * s3
    gamma = None if w is None else w.reshape(1, n)
    ggo = gi = gw = None
    if slot == 0:
        ggi = gg.reshape(-1, n)
        gxhat = go if gamma is None else go * gamma
        gxhat_mu_sum = (gxhat * xmu).sum(1, True)
        gxhat_sum = gxhat.sum(1, True)
        ggi_sum = ggi.sum(1, True)
        ggi_mu_sum = (ggi * xmu).sum(1, True)
        all_sub = ((ggi_sum * gxhat_sum) / n - (ggi * gxhat).sum(1, True)
                   + (s2 * gxhat_mu_sum * ggi_mu_sum) * (3.0 / n))
        gi = ((xmu_s3 * all_sub) / n + (ggi_mu_sum * s3) / n * (gxhat_sum / n - gxhat)
              + (gxhat_mu_sum * s3) / n * (ggi_sum / n - ggi))
        if w is not None:
            gw = (go * _first_bwd_grad_input(ggi, None, xmu, s, s2, n)).sum(0).reshape(w._layout.shape)
        ggo = _first_bwd_grad_input(ggi, gamma, xmu, s, s2, n)
    elif slot == 1:
        ggg = gg.reshape(1, n)
        t0 = go * ggg * s
        t1 = (s * (go * ggg).sum(1, True)) / -n
        t2 = (xmu_s3 * (go * ggg * xmu).sum(1, True)) / -n
        gi = t0 + t1 + t2
        ggo = ggg * xmu * s
    else:
        ggo = gg.reshape(1, n).expand(xr._layout.shape)
    return (None if ggo is None else ggo.reshape(g._layout.shape), None if gi is None else gi.reshape(shape),
            gw)


def _first_bwd_grad_input(go: Tensor, gamma: Tensor | None, xmu: Tensor, s: Tensor, s2: Tensor, n: int) -> Tensor:
    """layer_norm_double_backward's ``first_bwd_fn_grad_input``: the first backward's input
    gradient for the rows ``go`` (``gamma`` None: a weight of ones), from the saved statistics."""
    h0 = (s if gamma is None else gamma * s) / n
    h1 = n * go - go.sum(1, True) - (xmu * s2) * (go * xmu).sum(1, True)
    return h0 * h1


def _layer_norm_stats(input: Tensor, dims: tuple, eps: float) -> tuple:
    """(mean, r = 1/sqrt(var + eps)) of each row of ``input``'s normalized elements, as the forward
    computes them (mean (rows, 1), r (rows,), in the compute dtype)."""
    compute = compute_dtype(input._dtype)
    x = input._np().astype(compute, copy=False).reshape(-1, math.prod(input._layout.shape[k] for k in dims))
    with np.errstate(all="ignore"):
        mean = x.mean(axis=1, keepdims=True) if x.size else compute.type(0)
        xc = x - mean
        return mean, 1 / np.sqrt(np.einsum("ij,ij->i", xc, xc) / compute.type(max(x.shape[1], 1)) + compute.type(eps))


def _layer_norm_fused(g: Tensor, input: Tensor, weight: Tensor | None, bias: Tensor | None, dims: tuple,
                      need: tuple[bool, bool, bool], stats: tuple) -> tuple:
    """The rule's gradients in NumPy, per row of the normalized elements, from the forward's mean
    and r (``stats``) and the input as it is now (PyTorch's native_layer_norm_backward)."""
    shape, d = input._layout.shape, input._dtype
    inner = 1
    for k in dims:
        inner *= shape[k]
    compute = compute_dtype(d)
    mean, r = stats
    with np.errstate(all="ignore"):
        x = input._np().astype(compute, copy=False).reshape(-1, inner)
        gy = g._np().astype(compute, copy=False).reshape(-1, inner)
        xhat = (x - mean) * r[:, None]
        gx = gw = gb = None
        if need[0]:
            gh = gy if weight is None else gy * weight._np().astype(compute, copy=False).reshape(-1)
            gx = array_like((r[:, None] * (gh - gh.mean(axis=1, keepdims=True)
                                           - xhat * (np.einsum("ij,ij->i", gh, xhat) / inner)[:, None])
                             ).reshape(shape), input)
        if need[1]:
            gw = array_like((gy * xhat).sum(axis=0).reshape(weight._layout.shape), weight)
        if need[2]:
            gb = array_like(gy.sum(axis=0).reshape(bias._layout.shape), bias)
    return gx, gw, gb


def _norms(x: np.ndarray, p: float, axes: Any) -> np.ndarray:
    """The p-norms of ``x`` along ``axes`` (kept as size-1 dims)."""
    if p == 2:
        return np.sqrt((x * x).sum(axis=axes, keepdims=True))
    if p == 1:
        return np.abs(x).sum(axis=axes, keepdims=True)
    if p == float("inf"):
        return np.abs(x).max(axis=axes, keepdims=True, initial=0)
    return (np.abs(x) ** p).sum(axis=axes, keepdims=True) ** (1 / p)


def _torch_norms(input: Tensor, x: np.ndarray, p: float, dims: tuple[int, ...] | None,  # noqa: A002
                 axes: tuple[int, ...] | None) -> np.ndarray | None:
    """PyTorch's ``input.norm(p, dim, keepdim=True)`` of a float32 / float64 ``input`` (its array
    ``x``), bit for bit where strided reproduces linalg.vector_norm's kernels (the 2-norm's
    orders, NormOps' serial sums of pow(|x|, p), the exact max, min and count); None elsewhere (the
    caller's NumPy formula)."""
    if not x.ndim and dims is not None and p != 0:  # (a 0-d input over its dim 0: the plain formula)
        return _zero_d_norm(np.abs(x), p)
    if x.dtype not in (np.float32, np.float64) or not x.size:
        return None
    shape = x.shape
    keep = tuple(1 if axes is None or i in axes else n for i, n in enumerate(shape))
    count = x.size // max(1, math.prod(keep))
    if p == 0:
        return np.add.reduce(x != 0, axis=axes, keepdims=True, dtype=x.dtype)
    if count == 1:  # (one element per norm: PyTorch's vector norm is |x|)
        return np.abs(x).reshape(keep)
    if math.isinf(p):
        return (np.maximum if p > 0 else np.minimum).reduce(np.abs(x), axis=axes, keepdims=True)
    if p == 2:
        r = _torch_norm2(x, tuple(range(x.ndim)) if axes is None else tuple(axes))
        if r is not None:
            return r.reshape(keep)
    out = np.empty(keep, x.dtype)
    return out if _torch_general_norm(input, dims, True, p, out) else None


def normalize(input: Tensor, p: float = 2.0, dim: Any = 1, eps: float = 1e-12, out: Any = None) -> Tensor:
    """``input`` divided by its ``p``-norm along ``dim`` (at least ``eps``): unit vectors along ``dim``.

    >>> F.normalize(strided.tensor([[3.0, 4.0]], dtype=strided.float64)).tolist()
    [[0.6, 0.8]]
    """
    tensor_arg(input, "normalize")
    if out is not None:
        # Note: PyTorch writes into out=; strided returns a new tensor only
        raise StridedNotImplementedError(join_lines("normalize(): out= is not supported by strided",
                                                    "fix: y = F.normalize(x); out.copy_(y)"))
    d = input._dtype
    if not d.is_floating_point:
        raise float_only("linalg_vector_norm", d, "normalize")
    dims = reduction_dims(input, dim, "normalize")
    axes = numpy_axes(dims, len(input._layout.shape))
    compute = compute_dtype(d)
    x = input._np().astype(compute, copy=False)
    token = quiet_set(QUIET)  # (np.errstate's silence, a tenth of its cost)
    try:
        norms = _torch_norms(input, x, float(p), dims, axes)
        if norms is None:
            norms = _norms(x, float(p), axes)
        values = x / np.maximum(norms, compute.type(eps))
    finally:
        quiet_reset(token)
    result = _normalized_output(input, axes, d)
    np.copyto(result._np(), values, casting="unsafe")
    return report("normalize", (input,), result)


def _normalized_output(input: Tensor, axes: tuple[int, ...] | None, d: Any) -> Tensor:  # noqa: A002
    """The fresh output of PyTorch's ``input / norm(keepdim=True).clamp_min(eps).expand_as(input)``:
    TensorIterator's strides for both operands, the norm's (a contiguous keepdim tensor) expanded
    (stride 0 along a reduced dim of size > 1). With the input alone, a size-1 dim's stride
    differed from PyTorch's ((3, 1) strided (1, 1) gave (1, 1) in PyTorch, (3, 1) here)."""
    lay = input._layout
    return result(lay.shape, d, _NORMALIZED_STRIDES[(lay.shape, lay.strides, axes)])


def _normalized_strides(key: tuple) -> tuple[int, ...]:
    """:func:`_normalized_output`'s strides for ``(shape, strides, axes)``, planned once per key
    (:data:`_NORMALIZED_STRIDES`: the stride order was two fifths of a small ``F.normalize``)."""
    shape, input_strides, axes = key
    reduced = set(range(len(shape)) if axes is None else axes)
    kept = tuple(1 if i in reduced else n for i, n in enumerate(shape))
    den = tuple(0 if i in reduced and shape[i] != 1 else st for i, st in enumerate(contiguous_strides(kept)))
    return elementwise_output_strides(shape, ((shape, input_strides), (shape, den)))


_NORMALIZED_STRIDES = Memo(_normalized_strides)


def _normalize_fresh(input: Any, p: Any = 2.0, dim: Any = 1, eps: Any = 1e-12, out: Any = None) -> Tensor | None:  # noqa: A002
    """:func:`normalize`'s fresh fast path (its entry's ``__fresh__``): the 2-norm along the last dim
    (``dim`` 1 of a matrix, -1) of a plain row-major float32 / float64 tensor outside autograd, rows
    of at least two elements, a float ``eps``: the forward's steps on its rows (``_torch_norm2``'s
    ``norm2_rows`` of the same rows, then ``x / max(norm, eps)``), the result row-major as its
    layout plan gives it there; None (the forward runs) for any other call."""
    if out is not None or input.__class__ is not Tensor or input._ag is not None or eps.__class__ is not float \
            or dim.__class__ is not int or (p.__class__ is not float and p.__class__ is not int) or p != 2:
        return None
    d = input._dtype
    if d is not float32 and d is not float64:
        return None
    lay = input._layout
    shape = lay.shape
    nd = len(shape)
    if not nd or (dim != nd - 1 and dim != -1) or shape[-1] < 2:
        return None
    info = _cinfo[shape]
    arr = flat_run(input, info)
    if arr is None or not info[1] or _NORMALIZED_STRIDES[(shape, lay.strides, (nd - 1,))] != info[0]:
        return None
    rows = arr.reshape(-1, shape[-1])
    token = quiet_set(QUIET)
    try:
        values = div_rows(rows, np.maximum(norm2_rows(rows), d.numpy.type(eps)))
    finally:
        quiet_reset(token)
    return adopted(values.reshape(-1), info[2], d)


normalize.__fresh__ = _normalize_fresh  # type: ignore[attr-defined]


@backward("F.normalize")
def _normalize_backward(result: Tensor, input: Tensor, p: float = 2.0, dim: Any = 1, eps: float = 1e-12,
                        out: Any = None) -> Any:
    """``x / n`` with ``n = max(|x|_p, eps)``: ``g / n - x sum(g x) / n^2 * dn/dx`` along the dim,
    where ``dn/dx = sign(x) |x|^(p-1) / |x|_p^(p-1)`` and 0 where the norm is below eps (the
    clamp's gradient, as PyTorch's ``clamp_min``). From the recording ops, so a second backward
    differentiates it again (PyTorch records normalize as a division by the clamped, expanded
    norm: DivBackward0, whose double backward this gives)."""
    pf = float(p)
    dims = reduction_dims(input, dim, "normalize")
    # (the norms as the forward saw the input: PyTorch's division keeps its denominator and the
    # norm's node its result, so a .data write before backward() meets the old norms)
    norm_now = _normalize_norms(input, pf, dims)

    def grad(g: Tensor) -> tuple:
        if not GRAD_MODE.get():  # first order: one NumPy pass (nothing to record)
            return (_normalize_fused(g, input, pf, dims, eps, norm_now),)
        return (_normalize_graph(g, input, pf, dims, eps, norm_now),)

    return "DivBackward0", (input,), grad, (input,)


def _normalize_graph(g: Tensor, x: Tensor, pf: float, dims: Any, eps: float, norm: np.ndarray) -> Tensor:
    """The rule's gradient under create_graph, recorded as PyTorch's graph of
    ``x / norm(x).clamp_min(eps).expand_as(x)`` differentiates it: DivBackward0's two gradients
    (``g / n`` to x, ``-g * (x / n) / n`` summed to the norm), ClampMinBackward0's mask, and the
    norm's own node (:func:`_saved_norm`) over the saved norms ``norm``, so a second backward
    reads the input as it is now and the norms as the forward saw them (after a ``.data`` write,
    PyTorch's values: the norms are its saved results, not recomputed)."""
    nt = _saved_norm(x, norm, pf, dims)
    n = nt.clamp_min(float(eps))
    gn = (-g * ((x / n) / n)).sum(dims, keepdim=True)
    gx = g / n
    gx_norm = norm_grad(where(nt >= eps, gn, 0.0), x, nt, pf, dims, True)
    return gx if gx_norm is None else gx + gx_norm


def _saved_norm(x: Tensor, norm: np.ndarray, pf: float, dims: Any) -> Tensor:
    """The forward's norms ``norm`` (kept dims) as the output of a LinalgVectorNormBackward0 node
    over ``x`` (PyTorch's norm_backward from the input as it is now and these saved values)."""
    def rule(out: Tensor, x: Tensor) -> Any:
        return "LinalgVectorNormBackward0", (x,), lambda gg: (norm_grad(gg, x, out, pf, dims, True),), (x, out)

    return _slow(lambda x: array_like(norm, _template(norm.shape, x._dtype)), rule, (x,), {})


def _normalize_norms(input: Tensor, pf: float, dims: Any) -> np.ndarray:
    """The ``pf``-norms of ``input`` along ``dims`` (kept as size-1 dims, the compute dtype) that
    :func:`_normalize_fused` divides by: taken when the rule records the node."""
    x = input._np().astype(compute_dtype(input._dtype), copy=False)
    with np.errstate(all="ignore"):
        return _norms(x, pf, numpy_axes(dims, len(input._layout.shape)))


def _normalize_fused(g: Tensor, input: Tensor, pf: float, dims: Any, eps: float, norm: np.ndarray) -> Tensor:
    """The rule's gradient in NumPy (the same formula, for a first-order backward): the input as it
    is now, its norms ``norm`` as the forward saw them (PyTorch's saved values)."""
    axes = numpy_axes(dims, len(input._layout.shape))
    compute = compute_dtype(input._dtype)
    x = input._np().astype(compute, copy=False)
    gv = g._np().astype(compute, copy=False)
    with np.errstate(all="ignore"):
        n = np.maximum(norm, compute.type(eps))
        if pf == 2:
            dn = x / norm
        elif pf == 1:
            dn = np.sign(x)
        elif pf == float("inf"):
            top = np.abs(x) == norm
            dn = np.sign(x) * top / top.sum(axis=axes, keepdims=True)
        else:
            dn = np.sign(x) * np.abs(x) ** (pf - 1) / norm ** (pf - 1)
        dn = np.where(norm >= eps, dn, 0)
        gx = gv / n - dn * (gv * x).sum(axis=axes, keepdims=True) / (n * n)
    return array_like(gx, input)


def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None, max_norm: float | None = None,
              norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """The rows of ``weight`` (num_embeddings, dim) picked by the indices ``input`` (any shape):
    a new tensor of shape ``(*input.shape, dim)`` (a gather: new memory, recorded as a copy).
    ``padding_idx``'s row gets no gradient.

    >>> F.embedding(strided.tensor([[0, 2]]), strided.eye(3)).tolist()
    [[[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]]
    """
    if not OPEN and SLICES_C is not None and max_norm is None and not sparse and weight.__class__ is Tensor and \
            len(weight._layout.shape) == 2:
        # a vector of int64 indices, each in range, into a row-major weight: index_select's one C
        # call (new contiguous rows, the same as np.take's below); None where any of that fails
        out = SLICES_C(0, weight, 0, input, None)
        if out is not None:
            return out
    tensor_arg(input, "embedding")
    tensor_arg(weight, "embedding", "weight", 2)
    if max_norm is not None or sparse:
        # Note: PyTorch renormalizes rows in place (max_norm) and makes sparse gradients; strided does neither
        raise StridedNotImplementedError(
            join_lines("embedding(): max_norm and sparse are not supported by strided",
                       "fix: leave them at their defaults (max_norm=None, sparse=False)")
        )
    if weight.ndim != 2:
        raise StridedRuntimeError(join_lines("'weight' must be 2-D",
                                             f"the weight has shape {weight.shape}: (num_embeddings, dim)"))
    if input._dtype not in (int64, int32):  # (PyTorch's checkScalarTypes: Long or Int only, not uint8)
        raise StridedRuntimeError(
            join_lines("Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                       f"Long, Int; but got {tensor_type_text(input._dtype.name)} instead (while checking "
                       "arguments for embedding)", "fix: indices.to(strided.int64)")
        )
    n = weight._layout.shape[0]
    idx = input._np().astype(np.int64, copy=False)
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        bad = int(idx[(idx < 0) | (idx >= n)].flat[0])
        raise StridedIndexError(join_lines("index out of range in self",
                                           f"index {bad} picks a row of a weight with {n} rows (0 to {n - 1})"))
    shape = input._layout.shape + weight._layout.shape[1:]
    out, arr = result_array(shape, weight._dtype)
    _gather_rows(weight._np(), idx, arr)
    return copied("embedding", (input, weight), out,
                  lambda: f"embedding: {idx.size} rows of the weight gathered into new memory {shape}")


def _gather_rows(w: np.ndarray, idx: np.ndarray, arr: np.ndarray) -> None:
    """``arr[...] = w[idx]``: the rows of the 2-D ``w`` at the int64 indices ``idx`` (each checked in
    range: NumPy's mode "clip" changes none, and spares the copy its default mode "raise" makes of
    a result given as ``out``, a second pass over all of it). A column-major ``w`` (a transposed
    weight) of many elements is gathered along its contiguous rows -- ``w.T``'s columns at the
    indices, a dense (dim, m) array -- and copied blocked into ``arr``'s rows: a row gather of it
    reads each row 4 bytes a column apart (one cache line an element). The same values either way."""
    if idx.size * w.shape[1] >= _GATHER_BLOCKED and abs(w.strides[1]) > abs(w.strides[0]) == w.itemsize:
        copy_into(arr.reshape(idx.size, w.shape[1]), np.take(w.T, idx.reshape(-1), axis=1, mode="clip").T)
        return
    np.take(w, idx, axis=0, out=arr, mode="clip")


_GATHER_BLOCKED = 1 << 14  # (elements: below it the strided gather's cache misses cost less than a second pass)


@backward("F.embedding", operands="any", complex_grad=False)
def _embedding_backward(out: Tensor, input: Tensor, weight: Tensor, padding_idx: int | None = None,
                        max_norm: float | None = None, norm_type: float = 2.0, scale_grad_by_freq: bool = False,
                        sparse: bool = False) -> Any:
    """PyTorch's embedding_dense_backward: each picked row's gradient added into a zero tensor of
    the weight's shape (``index_add``: a row picked twice gets both), none for ``padding_idx``,
    divided by the row's count with ``scale_grad_by_freq``. From the recording ops (``index_add``,
    whose source gradient is an ``index_select``), so it is linear in ``g`` under a second
    backward, as PyTorch's embedding_dense_double_backward."""
    n = weight._layout.shape[0]

    def grad(g: Tensor) -> tuple:
        idx = input._np().astype(np.int64).reshape(-1)
        rows = g.reshape(idx.size, -1)
        if scale_grad_by_freq or padding_idx is not None:
            scale = np.ones(idx.size)
            if scale_grad_by_freq:
                scale /= np.bincount(idx, minlength=n)[idx]
            if padding_idx is not None:
                scale[idx == (padding_idx % n if n else padding_idx)] = 0
            factor, arr = result_array((idx.size, 1), g._dtype)
            np.copyto(arr, scale[:, None], casting="unsafe")
            rows = rows * factor
        index, arr = result_array((idx.size,), int64)
        arr[...] = idx
        return (None, grad_zeros(weight._layout.shape, g._dtype).index_add(0, index, rows))

    return "EmbeddingBackward0", (input, weight), grad, (input,)


seal(globals(), functional=True)  # (last: the layers with a backward rule become their recording entries)
# the kinds of this module's ops, in the op registry (after the seal: the forwards are the entries)
declare(Kind.COMPUTE, "F.linear F.layer_norm F.normalize F.embedding")
