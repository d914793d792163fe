"""Counting into bins: ``bincount`` (the occurrences of each non-negative integer, or the sums of
their weights) and ``histc`` (a histogram of equal-width bins), PyTorch 2.13's contracts.

- ``bincount(input, weights=None, minlength=0)``: a 1-d non-negative integer input; the result
  has ``max(input.max() + 1, minlength)`` entries, int64 without weights, else the weights' dtype
  when it is float32/float64 and float64 for any other.
- ``histc(input, bins=100, min=0, max=0)``: float input; ``min == max`` takes the data's range
  (widened by 1 each side when that is one value); elements outside the range (and NaN) are not
  counted, an element equal to ``max`` falls in the last bin; the result has the input's dtype.

>>> strided.bincount(strided.tensor([0, 2, 2])).tolist()
[1, 0, 2]
"""

from __future__ import annotations

import math
from typing import Any, NoReturn

import numpy as np

from ...args import int_arg, is_dim_int
from ...dispatch import adopted
from ...dtypes import float64, int64
from ...errors import StridedNotImplementedError, StridedRuntimeError, StridedTypeError, join_lines
from ...kernels.native import special
from ...kernels.rows import extreme_all, histc_count
from ...opdef import Kind, declare
from ...tensor import Tensor, tensor_arg
from .._support.along import tensor_from_array
from .._support.operands import _cinfo
from .._support.out import write_out
from .._support.promotion import TORCH_NAMES
from .._support.reduce_args import shape_text
from ..registry import method

__all__ = ["bincount", "histc"]

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
# From this many values a plain int64 bincount takes the compiled int64_bincount (its counting in
# four partial tables: no chain of increments through one bin's memory)
_COMPILED_COUNTS = 1 << 12


@method("bincount")
def bincount(input: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:  # noqa: A002
    """How often each value 0, 1, ..., occurs in the 1-d non-negative integer ``input`` (or the sum of
    the ``weights`` at its positions), at least ``minlength`` entries.

    >>> strided.bincount(strided.tensor([1, 1, 3]), weights=strided.tensor([0.5, 0.25, 1.0])).tolist()
    [0.0, 0.75, 0.0, 1.0]
    """
    if weights is None and minlength.__class__ is int and minlength >= 0 and input.__class__ is Tensor:
        fast = _plain_counts(input, minlength)
        if fast is not None:
            return fast
    op = "bincount"
    tensor_arg(input, op)
    # (PyTorch's SymInt: an int, NumPy integer or one-element integer tensor; a float or bool is its TypeError)
    minlength = int_arg(minlength, op, "minlength", 3, size=True)
    d = input._dtype
    if d.is_floating_point or d.is_complex or d.name == "bool":
        raise StridedNotImplementedError(join_lines(
            f"\"bincount_cpu\" not implemented for '{TORCH_NAMES[d]}'",
            f"the input of shape {shape_text(input.shape)} is {d.name}; bincount counts integers",
            "fix: input.long()"))
    if minlength < 0:
        raise StridedRuntimeError(join_lines("minlength should be >= 0", f"got minlength={minlength}"))
    x = input._np()
    if weights is None and input.ndim == 1:
        # np.bincount finds the largest value (the length, at least minlength) and refuses a negative
        # one in its own pass: no min/max passes or int64 copy here (the message's minimum: on refusal)
        try:
            counts = np.bincount(x.astype(np.int64, copy=False), minlength=int(minlength))
        except ValueError:  # (a negative value)
            counts = None
        if counts is None:
            _not_counted(input, x)
        return tensor_from_array(counts, counts.shape, int64)
    if input.ndim != 1 or (x.size and x.min() < 0):
        _not_counted(input, x)
    if weights is not None:
        tensor_arg(weights, op, "weights", 2)
        if weights.ndim != 1 or weights._layout.shape[0] != x.shape[0]:
            raise StridedRuntimeError(join_lines(
                "weights should be 1-d and have the same length as input",
                f"input has shape {shape_text(input.shape)}, weights {shape_text(weights.shape)}"))
    size = max(int(x.max()) + 1 if x.size else 0, int(minlength))
    rt = weights._dtype if weights._dtype.name in ("float32", "float64") else float64
    w = weights._np().astype(np.float64)
    counts = np.bincount(x.astype(np.int64), weights=w, minlength=size) if x.size else np.zeros(size)
    return tensor_from_array(counts.astype(rt.numpy), (size,), rt)


def _plain_counts(input: Tensor, minlength: int) -> Tensor | None:  # noqa: A002
    """bincount of a 1-d int64 tensor of unit stride without weights: ``np.bincount`` of its run
    (what the general path calls, without its view and result copies), adopted; None where that
    does not apply or NumPy refuses (a negative value: the general path's error)."""
    lay = input._layout
    if input._dtype is not int64 or len(lay.shape) != 1 or (lay.strides[0] != 1 and lay.shape[0] > 1):
        return None
    n = lay.shape[0]
    run = input._storage.array[lay.offset: lay.offset + n]
    if len(run) != n:
        return None
    if n >= _COMPILED_COUNTS and (k := special()) is not None:
        size, raw = k.int64_bincount(run, minlength)
        if size < 0:  # (a negative value: the general path's error)
            return None
        if raw is not None:  # (the same counts as np.bincount's, from one range pass and one counting pass)
            counts = np.frombuffer(raw, np.int64).copy()
            return adopted(counts, _cinfo[counts.shape][2], int64)
    try:
        counts = np.bincount(run, minlength=minlength)
    except ValueError:
        return None
    return adopted(counts, _cinfo[counts.shape][2], int64)


def _not_counted(input: Tensor, x: np.ndarray) -> NoReturn:  # noqa: A002
    """Refuse an input of other than one dim, or holding a negative value, as PyTorch does."""
    raise StridedRuntimeError(join_lines(
        "bincount only supports 1-d non-negative integral inputs.",
        f"the input has shape {shape_text(input.shape)}"
        + (f" and its smallest value is {x.min()}" if x.size and input.ndim == 1 else ""),
        "fix: input.flatten() for a tensor of more dims; shift negative values first"))


@method("histc")
def histc(input: Tensor, bins: int = 100, min: Any = 0, max: Any = 0, *,
          out: Any = None) -> Tensor:  # noqa: A002
    """A histogram of ``input`` in ``bins`` equal bins over ``[min, max]`` (``min == max``: the
    data's own range), in the input's dtype.

    >>> strided.histc(strided.tensor([1.0, 2.0, 1.0]), bins=4, min=0, max=3).tolist()
    [0.0, 2.0, 1.0, 0.0]
    """
    if out is not None:  # (PyTorch's out= takes only the result's dtype)
        return write_out(out, histc(input, bins, min, max),
                         "histc", (input, bins, min, max),
                         "torch.histogram: input tensor and hist tensor should have the same dtype, but got input {rc} and hist {oc}")
    op = "torch.histc"
    tensor_arg(input, op)
    d = input._dtype
    if not d.is_floating_point:
        raise StridedNotImplementedError(join_lines(
            f"\"histogram_cpu\" not implemented for '{TORCH_NAMES[d]}'",
            f"the input of shape {shape_text(input.shape)} is {d.name}", "fix: input.float()"))
    if bins.__class__ is not int:  # (PyTorch's parser: an int, a NumPy integer, a 0-d integer tensor)
        if not is_dim_int(bins):
            raise StridedTypeError(join_lines(
                f"histc(): argument 'bins' (position 2) must be int, not {type(bins).__name__}",
                "bins is the number of equal-width bins, e.g. strided.histc(x, bins=10)"))
        bins = int(bins)
    if bins <= 0:
        raise StridedRuntimeError(join_lines(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0",
                                             "bins is the number of equal-width bins"))
    dt = d.numpy
    # a histogram does not depend on the elements' order: read them in memory order (a view of
    # a permuted tensor, where the row-major reshape copied it)
    x = input._np().ravel("K")
    lo, hi = dt.type(min), dt.type(max)
    if lo > hi:
        raise StridedRuntimeError(join_lines("torch.histc: max must be larger than min",
                                             f"got min={min}, max={max}", "fix: swap them"))
    whole = False  # whether every element is known to lie in [lo, hi]
    if lo == hi and x.size:
        both = extreme_all() if dt in _FLOATS else None
        ends = np.empty(2, dt)
        if both is not None and both(x, ends, 2) == 0:  # (0: no zero or NaN among them, NumPy's bits)
            lo, hi = ends[0], ends[1]
        else:
            lo, hi = x.min(), x.max()
        whole = True  # (a NaN makes the range NaN, refused below)
    if lo == hi:
        lo, hi = lo - dt.type(1), hi + dt.type(1)
    if not (math.isfinite(lo) and math.isfinite(hi)):  # (numpy floats: math reads them without a ufunc call)
        raise StridedRuntimeError(join_lines(
            f"torch.histc: range of [{_c(lo)}, {_c(hi)}] is not finite",
            "the range came from the data, which holds NaN or inf", "fix: give min= and max= explicitly"))
    count = histc_count() if dt in _FLOATS else None
    if count is not None:  # (the same operations in C, one pass: see kernels/_rowkernel.c's histc)
        out = np.empty(bins, dt)
        if count(x, out, float(lo), float(hi)):
            return tensor_from_array(out, (bins,), d)
    with np.errstate(all="ignore"):
        inside = x if whole else x[(x >= lo) & (x <= hi)]
        # ((inside - lo) * bins / (hi - lo)), the same float operations in place in one temporary
        scaled = np.subtract(inside, lo)
        np.multiply(scaled, dt.type(bins), out=scaled)
        np.divide(scaled, hi - lo, out=scaled)
        pos = scaled.astype(np.int64)
    pos = np.minimum(pos, bins - 1, out=pos)
    return tensor_from_array(np.bincount(pos, minlength=bins).astype(dt), (bins,), d)


def _c(v: Any) -> str:
    """A float as C's printf writes it (PyTorch's message: "-nan", "inf")."""
    return "-nan" if np.isnan(v) else ("inf" if v > 0 else "-inf") if np.isinf(v) else f"{float(v):g}"


declare(Kind.COMPUTE, "bincount histc")
