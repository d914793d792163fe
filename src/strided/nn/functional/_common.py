"""What the losses and layers of ``strided.nn.functional`` share: the compute dtype, PyTorch's
error for a non-float input, the reduction argument (with the legacy ``size_average``/``reduce``
flags) and the one-tensor results their NumPy kernels fill.

>>> reduction_mode("mean"), reduction_mode("mean", size_average=False)
('mean', 'sum')
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...dispatch import OPEN, adopted, report, result_array
from ...dtypes import DType, float32, float64
from ...errors import StridedValueError, join_lines
from ...kernels.memory import dense_run, flat_run
from ...kernels.native import special, sums
from ...ops._support.fast_reduce import cascade_reduce
from ...ops._support.operands import _cinfo
from ...ops.elementwise.activations import compute_dtype, float_only
from ...tensor import Tensor

__all__ = ["array_like", "array_result", "compute_dtype", "float_only", "fresh_loss", "g_format", "pair_runs",
           "reduction_mode", "scalar_result"]

_REDUCTIONS = ("none", "mean", "sum")
_SCALAR = _cinfo[()][2]  # the 0-d layout


def reduction_mode(reduction: Any, size_average: Any = None, reduce: Any = None) -> str:
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


def scalar_result(value: Any, dtype: DType, op: str, inputs: tuple) -> Tensor:
    """A 0-d tensor of ``dtype`` holding ``value``, reported as ``op``'s result."""
    if value.__class__ is dtype.numpy.type:  # a NumPy scalar of the dtype: its element as it is
        return report(op, inputs, adopted(np.array((value,)), _SCALAR, dtype))
    out, arr = result_array((), dtype)
    with np.errstate(all="ignore"):
        arr[...] = value
    return report(op, inputs, out)


def array_result(values: np.ndarray, shape: tuple[int, ...], dtype: DType, op: str, inputs: tuple) -> Tensor:
    """A fresh contiguous tensor of ``shape`` and ``dtype`` holding ``values``, reported as ``op``'s result."""
    out, arr = result_array(shape, dtype)
    with np.errstate(all="ignore"):
        np.copyto(arr, np.reshape(values, shape), casting="unsafe")
    return report(op, inputs, out)


def array_like(values: np.ndarray, like: Tensor) -> Tensor:
    """``values`` (broadcast) in a fresh tensor of ``like``'s shape and dtype: a first-order
    backward rule's NumPy result."""
    out, arr = result_array(like._layout.shape, like._dtype)
    with np.errstate(all="ignore"):
        np.copyto(arr, np.broadcast_to(values, arr.shape), casting="unsafe")
    return out


def g_format(x: float) -> str:
    """A number as PyTorch's messages print it (``%g``)."""
    return format(float(x), "g")


def pair_runs(input: Any, target: Any, red: Any) -> tuple[np.ndarray, np.ndarray, tuple, DType] | None:
    """The flat runs ``(x, y, info, dtype)`` of a pointwise loss's common call, for its fresh fast
    path (``__fresh__``, read by its entry: nobody listening, no keyword): two plain row-major
    tensors of one shape and one dtype, float32 or float64, of at least one element, neither in
    autograd, and a reduction (``red``) of "none", or "mean" / "sum" in at least one dim (then the
    compiled sum is built and on: :func:`fresh_loss` reduces by it). ``info``: the shape's
    ``_cinfo`` (row-major strides, count, layout). None for any other call: the loss's forward runs."""
    if input.__class__ is not Tensor or target.__class__ is not Tensor or input._ag is not None \
            or target._ag is not None:
        return None
    d = input._dtype
    if (d is not float32 and d is not float64) or target._dtype is not d:
        return None
    shape = input._layout.shape
    if target._layout.shape != shape:
        return None
    info = _cinfo[shape]
    if not info[1] or (red != "none" and (red != "mean" and red != "sum" or not shape or sums() is None)):
        return None  # (an empty loss: the forward's NaN mean and layouts)
    x, y = flat_run(input, info), flat_run(target, info)
    if x is None or y is None or not x.flags.aligned or not y.flags.aligned:
        return None
    return x, y, info, d


def pair_loss(x: np.ndarray, y: np.ndarray, code: int, param: float) -> np.ndarray | None:
    """The per-element loss of :func:`pair_runs`' flat runs ``x`` and ``y`` in one compiled pass
    (the special kernel's ``pair_loss``: code 0 huber at delta ``param``, 1 smooth_l1 at beta
    ``param``, 2 mse): the bits of the losses' NumPy fresh paths, without their five temporaries. None
    where the kernel is off or refuses the runs (then the NumPy expressions run)."""
    k = special()
    if k is None:
        return None
    per = np.empty(x.shape, x.dtype)
    return per if k.pair_loss(x, y, per, code, param) else None


def div_rows(rows: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``rows / den.reshape(-1, 1)`` of a C-contiguous float32 / float64 matrix ``rows`` and one
    divisor per row ``den`` (its dtype), a fresh array: the special kernel's ``div_rows`` (one pass,
    NumPy's quotients bit for bit, at about NumPy's division-by-a-scalar speed: its broadcast
    division took twice that), NumPy's division where the kernel is off or refuses the buffers."""
    k = special()
    if k is not None and rows.ndim == 2:
        out = np.empty(rows.shape, rows.dtype)
        if k.div_rows(rows, den, out):
            return out
    return rows / den.reshape(-1, 1)


def dense_pair_loss(input: Any, target: Any, code: int, param: float) -> tuple[np.ndarray, Any] | None:
    """:func:`pair_loss` of two plain float32 / float64 tensors of one dtype, shape and strides that
    are permuted dense (a transpose: :func:`strided.kernels.memory.dense_run`), outside autograd,
    nobody listening: ``(per, layout)``, the per-element losses over their storage runs in memory
    order and the operands' layout at offset 0 (the elementwise result's layout: PyTorch's
    TensorIterator and empty_like's preserve_format both give it), the values the general paths'
    expressions compute at every element. None otherwise (then those paths run)."""
    if input.__class__ is not Tensor or target.__class__ is not Tensor or input._ag is not None \
            or target._ag is not None or OPEN:
        return None
    d = input._dtype
    lay, other = input._layout, target._layout
    if (d is not float32 and d is not float64) or target._dtype is not d or lay.shape != other.shape \
            or lay.strides != other.strides:
        return None
    n = _cinfo[lay.shape][1]
    x, y = (dense_run(input, n), dense_run(target, n)) if n else (None, None)
    if x is None or y is None or not x[0].flags.aligned or not y[0].flags.aligned:
        return None
    per = pair_loss(x[0], y[0], code, param)
    return None if per is None else (per, x[1])


def fresh_loss(per: np.ndarray, info: tuple, d: DType, red: str) -> Tensor | None:
    """The loss from ``per``, a fresh 1-D run of per-element losses of dtype ``d`` laid out as
    :func:`pair_runs`' operands (``info``): itself, row-major ("none": the elementwise result's
    layout for row-major operands), or its sum / mean as ``.sum()`` / ``.mean()`` of it give them
    (:func:`strided.ops._support.fast_reduce.cascade_reduce`: PyTorch's cascade, the mean divided by
    the count in the kernel; the bits of :func:`strided.kernels.torch_sum.sum_array`, the losses'
    general path). None where the compiled sum does not run (nothing is reported)."""
    t = adopted(per, info[2], d)
    if red == "none":
        return t
    return cascade_reduce(t, None, False, mean=red == "mean")
