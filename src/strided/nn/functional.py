"""``strided.nn.functional``: activations, losses and layers of small models, as ``torch.nn.functional``.

``relu``, ``silu``, ``softplus``, ``softmax``, ``log_softmax``, ``cross_entropy``, ``nll_loss``,
``mse_loss``, ``linear``, ``dropout``, ``layer_norm``, ``one_hot``, ``pad`` (constant mode).
PyTorch 2.13's shapes, dtypes, reductions and errors (class and first line). The losses compute
with NumPy on zero-copy views of the inputs (class-index gathers with ``np.take_along_axis``);
float16 inputs are computed in float32 and rounded once, as PyTorch's CPU kernels do.

>>> import strided.nn.functional as F
>>> logits = strided.tensor([[2.0, 0.5, -1.0], [0.1, 0.2, 3.0]])
>>> F.cross_entropy(logits, strided.tensor([0, 2])).shape
()
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from ..args import int_arg
from ..dispatch import copied, report, result_array
from ..dtypes import TORCH_NAME, DType, bool_, int64, uint8
from ..errors import (
    StridedIndexError,
    StridedNotImplementedError,
    StridedRuntimeError,
    StridedTypeError,
    StridedValueError,
    join_lines,
)
from ..kernels import check_writable, write
from ..layout import Layout
from ..layout import expand as expand_layout
from ..ops.broadcasting import broadcast_pair
from ..ops.generator import default_generator
from ..ops.operands import _fresh_output
from ..ops.promotion import result_type
from ..ops.random import _uniform
from ..ops.softmax import log_softmax as _log_softmax
from ..ops.softmax import softmax as _softmax
from ..ops.special import gelu  # (built beside its erf kernel)
from ..ops.unary import relu  # re-exported: F.relu is strided.relu
from ..tensor import Tensor, tensor_arg

__all__ = [
    "cross_entropy", "dropout", "gelu", "layer_norm", "linear", "log_softmax", "mse_loss", "nll_loss", "one_hot", "pad",
    "relu", "silu", "softmax", "softplus",
]

_REDUCTIONS = ("none", "mean", "sum")


# ---------------------------------------------------------------- helpers


def _compute(dtype: DType) -> np.dtype:
    """float16 is computed in float32 (PyTorch's CPU accumulation type), others in their own type."""
    return np.dtype(np.float32) if dtype.itemsize < 4 else dtype.numpy


def _not_implemented(kernel: str, dtype: DType, op: str) -> StridedNotImplementedError:
    return StridedNotImplementedError(
        join_lines(f'"{kernel}" not implemented for \'{TORCH_NAME[dtype.name]}\'',
                   f"{op} needs a float tensor, and the input is {dtype.name}",
                   f"fix: convert first: F.{op}(x.to(strided.float32))")
    )


def _reduction(reduction: Any, size_average: Any = None, reduce: Any = None) -> str:
    """The reduction, with PyTorch's legacy ``size_average``/``reduce`` flags read as it reads them."""
    if size_average is not None or reduce is not None:
        # Note: PyTorch also warns that these flags are deprecated; strided reads them silently.
        size_average = True if size_average is None else size_average
        reduce = True if reduce is None else reduce
        return "none" if not reduce else ("mean" if size_average else "sum")
    if reduction not in _REDUCTIONS:
        raise StridedValueError(
            join_lines(f"{reduction} is not a valid value for reduction",
                       "reduction is one of 'none' (a loss per element), 'mean' (the default) or 'sum'")
        )
    return reduction


def _scalar_result(value: Any, dtype: DType, op: str, inputs: tuple) -> Tensor:
    out, arr = result_array((), dtype)
    with np.errstate(all="ignore"):
        arr[...] = value
    return report(op, inputs, out)


def _array_result(values: np.ndarray, shape: tuple[int, ...], dtype: DType, op: str, inputs: tuple) -> Tensor:
    out, arr = result_array(shape, dtype)
    with np.errstate(all="ignore"):
        np.copyto(arr, np.reshape(values, shape), casting="unsafe")
    return report(op, inputs, out)


def _elementwise(input: Any, op: str, kernel: str, fn: Callable[[np.ndarray], np.ndarray], inplace: bool = False) -> Tensor:
    """A float-only elementwise activation: a fresh output laid out as PyTorch lays it out, or
    the input itself (``inplace=True``, checked before anything is written)."""
    x = tensor_arg(input, op)
    d = x._dtype
    if not d.is_floating_point:
        raise _not_implemented(kernel, d, op)
    with np.errstate(all="ignore"):
        values = fn(x._np().astype(_compute(d), copy=False))
    if inplace:
        check_writable(x._storage, x._layout, op + "_", updates=True)
        write(x._storage, x._layout, values)
        return report(op + "_", (x,), x)
    out = _fresh_output(x._layout.shape, d, [x], d)
    np.copyto(out._np(), values, casting="unsafe")
    return report(op, (x,), out)


# ---------------------------------------------------------------- activations


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """x * sigmoid(x) elementwise (float tensors).

    >>> F.silu(strided.tensor([0.0, 1.0])).tolist()  # doctest: +ELLIPSIS
    [0.0, 0.731...]
    """
    return _elementwise(input, "silu", "silu_cpu", lambda x: x / (1 + np.exp(-x)), inplace)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """log(1 + exp(beta * x)) / beta, and x itself where beta * x > threshold (for stability).

    >>> F.softplus(strided.tensor([0.0, 30.0])).tolist()  # doctest: +ELLIPSIS
    [0.693..., 30.0]
    """
    b, t = float(beta), float(threshold)
    return _elementwise(input, "softplus", "softplus_cpu",
                        lambda x: np.where(x * b > t, x, np.log1p(np.exp(x * b)) / b))


def _softmax_dim(name: str, ndim: int, dim: Any) -> Any:
    """PyTorch's ``_get_softmax_dim``: with no ``dim``, warn and pick 0 for 0-, 1- and 3-d inputs, else 1."""
    if dim is not None:
        return dim
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X as an argument.",
        UserWarning, stacklevel=3,
    )
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:
    """``input.softmax(dim, dtype=dtype)``; without ``dim``, PyTorch's deprecated implicit choice (with its warning)."""
    tensor_arg(input, "softmax")
    return _softmax(input, _softmax_dim("softmax", input.ndim, dim), dtype)


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:
    """``input.log_softmax(dim, dtype=dtype)``; without ``dim``, PyTorch's deprecated implicit choice."""
    tensor_arg(input, "log_softmax")
    return _log_softmax(input, _softmax_dim("log_softmax", input.ndim, dim), dtype)


# ---------------------------------------------------------------- losses


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


def _check_weight(weight: Any, classes: int, input: Tensor) -> np.ndarray | None:
    if weight is None:
        return None
    tensor_arg(weight, "nll_loss", "weight", 3)
    if weight.ndim != 1 or weight.numel() != classes:
        raise StridedRuntimeError(
            join_lines(f"weight tensor should be defined either for all {classes} classes or no classes but got "
                       f"weight tensor of shape: {list(weight.shape)}",
                       f"give one weight per class: shape ({classes},)")
        )
    return weight._np().astype(_compute(input._dtype))


def _as_ncs(array: np.ndarray, class_dim: int) -> np.ndarray:
    """(C,) or (N, C, d1, ...) as (N, C, S) (a view where NumPy can make one)."""
    if class_dim == 0:
        return array.reshape(1, array.shape[0], 1)
    return array.reshape(array.shape[0], array.shape[1], int(np.prod(array.shape[2:])))


def _nll(logp: np.ndarray, target: Tensor, class_dim: int, weight: np.ndarray | None, ignore_index: int
         ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-element losses -w[t] * logp[t] (N, S), their weights (0 where ignored), and the ignore mask."""
    lp = _as_ncs(logp, class_dim)
    classes = lp.shape[1]
    t = target._np().astype(np.int64).reshape(lp.shape[0], lp.shape[2])
    ignored = t == ignore_index
    bad = ~ignored & ((t < 0) | (t >= classes))
    if bad.any():
        value = int(t[bad][0])
        raise StridedIndexError(
            join_lines(f"Target {value} is out of bounds.",
                       f"class indices run from 0 to {classes - 1} (the input has {classes} classes); "
                       f"{int(bad.sum())} target(s) fall outside (ignore_index={ignore_index} is skipped)")
        )
    safe = np.where(ignored, 0, t)
    picked = np.take_along_axis(lp, safe[:, None, :], axis=1)[:, 0, :]
    w = np.ones(safe.shape, dtype=lp.dtype) if weight is None else weight[safe]
    w = np.where(ignored, 0, w).astype(lp.dtype)
    return -w * picked, w, ignored


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
    red = _reduction(reduction, size_average, reduce)
    tensor_arg(input, "nll_loss")
    tensor_arg(target, "nll_loss", "target", 2)
    class_dim, loss_shape = _nll_geometry(input, target)
    classes = input._layout.shape[class_dim]
    w = _check_weight(weight, classes, input)
    _check_target_dtype(target)
    if not input._dtype.is_floating_point:
        raise _not_implemented("nll_loss_forward_reduce_cuda_kernel_2d_index", input._dtype, "nll_loss")
    logp = input._np().astype(_compute(input._dtype), copy=False)
    losses, weights, _ = _nll(logp, target, class_dim, w, int(ignore_index))
    inputs = tuple(x for x in (input, target, weight) if x is not None)
    if red == "none":
        return _array_result(losses, loss_shape, input._dtype, "nll_loss", inputs)
    return _scalar_result(_reduce(losses, weights.sum(), red), input._dtype, "nll_loss", inputs)


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
    red = _reduction(reduction, size_average, reduce)
    tensor_arg(input, "cross_entropy")
    tensor_arg(target, "cross_entropy", "target", 2)
    eps = float(label_smoothing)
    if not 0.0 <= eps <= 1.0:
        raise StridedRuntimeError(
            join_lines(f"label_smoothing must be between 0.0 and 1.0. Got: {_g(eps)}",
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
        return _cross_entropy_probs(input, target, weight, class_dim, red, eps, inputs)
    class_dim, loss_shape = _nll_geometry(input, target)
    classes = shape[class_dim]
    w = _check_weight(weight, classes, input)
    _check_target_dtype(target)
    logp_t = _log_softmax(input, class_dim)  # float-only, with PyTorch's NotImplementedError
    logp = logp_t._np().astype(_compute(input._dtype), copy=False)
    losses, weights, ignored = _nll(logp, target, class_dim, w, int(ignore_index))
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
        nll = losses if red == "none" else _reduce(losses, weights.sum(), red)
        total = (1 - eps) * nll + value * (eps / classes)
    else:
        total = losses if red == "none" else _reduce(losses, weights.sum(), red)
    if red == "none":
        return _array_result(total, loss_shape, input._dtype, "cross_entropy", inputs)
    return _scalar_result(total, input._dtype, "cross_entropy", inputs)


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
    w = _check_weight(weight, classes, input)
    logp_t = _log_softmax(input, class_dim)
    compute = _compute(input._dtype)
    logp = _as_ncs(logp_t._np().astype(compute, copy=False), class_dim)
    p = _as_ncs(target._np().astype(compute), class_dim)
    if eps > 0:
        p = p * (1 - eps) + eps / classes
    terms = logp * p if w is None else logp * p * w[None, :, None]
    per = -terms.sum(axis=1)  # (N, S)
    if red == "none":
        loss_shape = shape[:class_dim] + shape[class_dim + 1:]
        return _array_result(per, loss_shape, input._dtype, "cross_entropy", inputs)
    if red == "sum":
        return _scalar_result(per.sum(), input._dtype, "cross_entropy", inputs)
    n = input.numel() // classes if classes else 0
    value = per.sum() / n if input.numel() else np.nan
    return _scalar_result(value, input._dtype, "cross_entropy", inputs)


def _g(x: float) -> str:
    return format(float(x), "g")


def mse_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
             reduction: str = "mean") -> Tensor:
    """Mean (or sum, or per element) of ``(input - target) ** 2``, broadcast together (with
    PyTorch's warning when the shapes differ); the promoted float dtype.

    >>> F.mse_loss(strided.tensor([1.0, 2.0]), strided.tensor([1.0, 4.0])).item()
    2.0
    """
    tensor_arg(input, "mse_loss")
    tensor_arg(target, "mse_loss", "target", 2)
    if target._layout.shape != input._layout.shape:
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
            "This will likely lead to incorrect results due to broadcasting. Please ensure they have the same size.",
            UserWarning, stacklevel=2,
        )
    shape = broadcast_pair(input._layout.shape, target._layout.shape)
    red = _reduction(reduction, size_average, reduce)
    dt = result_type(input, target)
    if not dt.is_floating_point:
        raise _not_implemented("mse_cpu", dt, "mse_loss")
    compute = _compute(dt)
    with np.errstate(all="ignore"):
        diff = input._np().astype(compute, copy=False) - target._np().astype(compute, copy=False)
        sq = np.broadcast_to(diff * diff, shape)
    if red == "none":  # laid out as PyTorch's elementwise output over the broadcast operands
        out = _fresh_output(shape, dt, [input, target], dt)
        np.copyto(out._np(), sq, casting="unsafe")
        return report("mse_loss", (input, target), out)
    value = sq.sum() if red == "sum" else (sq.mean() if sq.size else np.nan)
    return _scalar_result(value, dt, "mse_loss", (input, target))


# ---------------------------------------------------------------- layers


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``input @ weight.T + bias``: ``weight`` is (out_features, in_features), ``bias`` (out_features,).

    >>> F.linear(strided.ones(4, 3), strided.ones(5, 3)).shape
    (4, 5)
    """
    tensor_arg(input, "linear")
    tensor_arg(weight, "linear", "weight", 2)
    out = input.matmul(weight.t())
    if bias is None:
        return out
    tensor_arg(bias, "linear", "bias", 3)
    if input.ndim == 2 and weight.ndim != 2:  # PyTorch's addmm path
        raise StridedRuntimeError(
            join_lines(f"mat2 must be a matrix, got {weight.ndim}-D tensor",
                       f"with a bias, linear takes a (out_features, in_features) weight; it has shape {weight.shape}",
                       "fix: weight.reshape(1, -1) for one output feature")
        )
    expand_layout(Layout._trusted(bias.shape, (0,) * bias.ndim, 0), out.shape)  # PyTorch's expand error
    return out.add_(bias) if out._dtype is result_type(out, bias) else out + bias


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero each element with probability ``p`` and scale the others by ``1 / (1 - p)``, drawing
    from the default generator (``strided.manual_seed`` makes it reproducible). Not
    ``training``, or ``p == 0``: ``input`` itself.

    >>> _ = strided.manual_seed(0); y = F.dropout(strided.ones(1000)); sorted(set(y.tolist()))
    [0.0, 2.0]
    """
    tensor_arg(input, "dropout")
    p = float(p)
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
    if inplace:
        check_writable(input._storage, input._layout, "dropout_", updates=True)
    shape = input._layout.shape
    compute = _compute(d)
    x = input._np().astype(compute, copy=False)
    if p == 1:
        values = x * 0  # PyTorch multiplies by zero: -0.0 where x is negative, NaN stays NaN
    else:
        keep = default_generator.draw(lambda g: _uniform(g, shape, d) >= p)
        values = x * (keep.astype(compute) / compute.type(1 - p))
    if inplace:
        write(input._storage, input._layout, values)
        return report("dropout_", (input,), input)
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


def layer_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5) -> Tensor:
    """Normalize over the last ``len(normalized_shape)`` dims to mean 0 and variance 1 (biased
    variance, ``eps`` added), then scale by ``weight`` and shift by ``bias`` (each of
    ``normalized_shape``). A fresh contiguous tensor of the input's dtype.

    >>> F.layer_norm(strided.tensor([[1.0, 3.0]]), (2,)).tolist()  # doctest: +ELLIPSIS
    [[-0.99..., 0.99...]]
    """
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
        raise _not_implemented("LayerNormKernelImpl", d, "layer_norm")
    for param in (weight, bias):
        if param is not None and param._dtype is not d:
            raise StridedRuntimeError(
                join_lines(f"mixed dtype (CPU): expect parameter to have scalar type of {TORCH_NAME[d.name]}",
                           f"the input is {d.name} and a parameter {param._dtype.name}",
                           f"fix: convert the parameters: weight.to(strided.{d.name})")
            )
    compute = _compute(d)
    inner = int(np.prod(norm))
    x = input._np().astype(compute, copy=False).reshape(-1, inner)  # (rows, normalized elements)
    out, arr = result_array(shape, d)
    # normalize in place in the result's memory (a float32 scratch for float16): few passes, no temporaries
    in_place = compute == d.numpy
    y = arr.reshape(-1, inner) if in_place else np.empty(x.shape, dtype=compute)
    with np.errstate(all="ignore"):
        np.subtract(x, x.mean(axis=1, keepdims=True) if x.size else 0, out=y)
        var = np.einsum("ij,ij->i", y, y) / compute.type(max(inner, 1))
        y *= (1 / np.sqrt(var + compute.type(eps)))[:, None]
        if weight is not None:
            y *= weight._np().astype(compute, copy=False).reshape(-1)
        if bias is not None:
            y += bias._np().astype(compute, copy=False).reshape(-1)
    if not in_place:
        np.copyto(arr, y.reshape(shape), casting="unsafe")
    inputs = tuple(t for t in (input, weight, bias) if t is not None)
    return report("layer_norm", inputs, out)


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """int64 ``(*tensor.shape, num_classes)`` with a 1 at each class index (``num_classes=-1``:
    the largest index + 1).

    >>> F.one_hot(strided.tensor([0, 2]), 3).tolist()
    [[1, 0, 0], [0, 0, 1]]
    """
    tensor_arg(tensor, "one_hot", "tensor")
    n = int_arg(num_classes, "one_hot", "num_classes", 2)
    if tensor._dtype is not int64:
        raise StridedRuntimeError(
            join_lines("one_hot is only applicable to index tensor of type LongTensor.",
                       f"the tensor is {tensor._dtype.name}; fix: F.one_hot(t.to(strided.int64))")
        )
    idx = tensor._np()
    if idx.size == 0:
        if n <= 0:
            raise StridedRuntimeError(
                join_lines("Can not infer total number of classes from empty tensor.",
                           "the tensor is empty; fix: give num_classes")
            )
    else:
        low, high = int(idx.min()), int(idx.max())
        if low < 0:
            raise StridedRuntimeError(join_lines("Class values must be non-negative.",
                                                 f"the smallest class value is {low}"))
        if n == -1:
            n = high + 1
        elif high >= n:
            raise StridedRuntimeError(
                join_lines("Class values must be smaller than num_classes.",
                           f"the largest class value is {high}, and num_classes is {n}",
                           f"fix: num_classes={high + 1} (or -1 to infer it)")
            )
    shape = tensor._layout.shape + (n,)
    out, arr = result_array(shape, int64)
    arr.fill(0)
    if idx.size:
        np.put_along_axis(arr, idx[..., None], 1, axis=-1)
    return report("one_hot", (tensor,), out)


_OTHER_MODES = ("reflect", "replicate", "circular")


def pad(input: Tensor, pad: Any, mode: str = "constant", value: float | None = None) -> Tensor:
    """Pad (or, with negative amounts, crop) the last dims: ``pad = (left, right)`` for the last
    dim, then ``(top, bottom)`` for the one before, ...; new elements are ``value`` (0 by
    default). Always new memory (a copy, recorded with its reason). Only ``mode="constant"``.

    >>> F.pad(strided.ones(2, 3), (1, 2), value=7).shape
    (2, 6)
    """
    tensor_arg(input, "pad")
    if mode != "constant":
        if mode in _OTHER_MODES:
            raise StridedNotImplementedError(
                join_lines(f"pad(): mode={mode!r} is not supported in strided; only mode=\"constant\" is",
                           "strided.nn.functional.pad fills the new elements with one value",
                           "fix: mode=\"constant\" (with value=...)")
            )
        raise StridedNotImplementedError(
            join_lines(f"Unrecognised padding mode {mode}", "strided supports mode=\"constant\"")
        )
    if not isinstance(pad, (tuple, list)):
        raise StridedTypeError(
            join_lines(f"pad(): argument 'pad' (position 2) must be tuple of ints, not {type(pad).__name__}",
                       "e.g. F.pad(x, (1, 1)) pads the last dim by one on each side")
        )
    amounts = []
    for i, a in enumerate(pad):
        if isinstance(a, bool) or not isinstance(a, (int, np.integer)):
            raise StridedTypeError(
                join_lines(f"pad(): argument 'pad' (position 2) must be tuple of ints, but found element of type "
                           f"{type(a).__name__} at pos {i}", "pad amounts are whole numbers of elements")
            )
        amounts.append(int(a))
    shape = input._layout.shape
    if len(amounts) % 2:
        raise StridedRuntimeError(
            join_lines("Padding length must be divisible by 2",
                       f"pad holds {len(amounts)} numbers; give (left, right) pairs, last dim first")
        )
    if len(amounts) // 2 > len(shape):
        raise StridedRuntimeError(
            join_lines(f"Padding length should be less than or equal to two times the input dimension but got "
                       f"padding length {len(amounts)} and input of dimension {len(shape)}",
                       f"pad gives a (left, right) pair per dim, last dim first; the input has {len(shape)} dims")
        )
    out_shape = list(shape)
    src: list[slice] = [slice(None)] * len(shape)
    dst: list[slice] = [slice(None)] * len(shape)
    for i in range(len(amounts) // 2):
        dim = len(shape) - 1 - i
        left, right = amounts[2 * i], amounts[2 * i + 1]
        size = shape[dim] + left + right
        if size < 0 or shape[dim] + min(left, 0) < 0 or shape[dim] + min(right, 0) < 0:
            raise StridedRuntimeError(
                join_lines("narrow(): length must be non-negative.",
                           f"dim {dim} has size {shape[dim]}; padding ({left}, {right}) would leave "
                           f"{shape[dim] + left + right} elements")
            )
        out_shape[dim] = size
        start, stop = max(0, -left), shape[dim] - max(0, -right)
        src[dim] = slice(start, max(start, stop))
        dst[dim] = slice(max(0, left), max(0, left) + max(0, stop - start))
    out, arr = result_array(tuple(out_shape), input._dtype)
    fill = 0 if value is None else value
    with np.errstate(all="ignore"):
        arr.fill(fill if input._dtype is not bool_ else bool(fill))
    arr[tuple(dst)] = input._np()[tuple(src)]
    return copied("pad", (input,), out,
                  lambda: f"pad: {shape} padded by {tuple(amounts)} into new memory {tuple(out_shape)}")

