"""The trapezoid rule along one dim: ``trapezoid`` (and its older name ``trapz``) and
``cumulative_trapezoid``, as PyTorch 2.13 computes them (aten/native/Integration.cpp).

* ``trapezoid(y, x=None, *, dx=None, dim=-1)``: with sample points ``x`` (1-D, one per sample
  of ``y`` along ``dim``; or of ``y``'s rank, broadcast after the differences are taken, as
  NumPy does) the sum of ``(y[i] + y[i+1]) * (x[i+1] - x[i]) / 2``; with a real spacing ``dx``
  (default 1) ``(sum(y) - (y[0] + y[-1]) / 2) * dx``. Zero samples give zeros of ``y``'s dtype;
  otherwise integers give floats (the division), bool is refused.
* ``cumulative_trapezoid``: the running sums of the same terms (``n - 1`` of them along ``dim``).

Both are compositions of recorded ops (slices, sums, products), so their gradients are those ops'.

>>> strided.trapezoid(strided.tensor([1.0, 2.0, 3.0])).item()
4.0
>>> strided.cumulative_trapezoid(strided.tensor([1.0, 2.0, 3.0]), strided.tensor([0.0, 1.0, 3.0])).tolist()
[1.5, 6.5]
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...dispatch import OPEN, adopted
from ...dtypes import float32, float64
from ...errors import StridedIndexError, StridedRuntimeError, StridedTypeError, join_lines
from ...kernels.fpstate import QUIET, quiet_reset, quiet_set
from ...kernels.native import special
from ...lazy_names import function_on_first_call
from ...opdef import Kind, declare
from ...tensor import Tensor, tensor_arg
from .._support.along import one_dim
from .._support.fast_reduce import planned_sum
from .._support.operands import _cinfo
from .._support.reduce_args import shape_text
from .scans import compiled_scan, scan_values

# (PyTorch's summation orders: loaded on the first reduction that needs one; see strided.lazy_names.function_on_first_call)
sum_array = function_on_first_call("strided.kernels.torch_sum", "sum_array", globals())

__all__ = ["cumulative_trapezoid", "trapezoid", "trapz"]


def _dim(y: Tensor, dim: Any, op: str) -> int:
    if y.ndim == 0:
        raise StridedIndexError(join_lines(
            f"Dimension specified as {dim} but tensor has no dimensions",
            f"{op} integrates along a dim; y is 0-d", "fix: y.reshape(-1)"))
    return one_dim(y, dim, op)


def _spacing(op: str, y: Tensor, x: Any, dx: Any, d: int) -> Any:
    """The spacing: a real number, or the differences of ``x`` shaped to broadcast against the
    pairs of ``y`` along ``d`` (PyTorch's view of ``x``)."""
    if x is not None and not isinstance(x, Tensor) or x is not None and dx is not None:
        got = ", ".join(["Tensor", type(x).__name__ if not isinstance(x, Tensor) else "Tensor"]
                        + ([f"dx={type(dx).__name__}"] if dx is not None else []))
        raise StridedTypeError(join_lines(
            f"{op}() received an invalid combination of arguments - got ({got}), but expected one of:",
            " * (Tensor y, Tensor x, *, int dim = -1)\n * (Tensor y, *, Number dx = 1, int dim = -1)",
            "fix: the sample points as a tensor x, or a spacing as dx=, not both"))
    if x is None:
        if dx is None:
            return 1.0
        if isinstance(dx, Tensor):
            dx = dx.item()
        if isinstance(dx, (bool, complex)):
            raise StridedRuntimeError(join_lines(
                f"{op}: Currently, we only support dx as a real number.", f"got dx={dx!r}", "fix: a float dx"))
        return float(dx)
    if y._dtype.kind == "b" or x._dtype.kind == "b":
        raise StridedRuntimeError(join_lines(
            f"{op}: received a bool input for `x` or `y`, but bool is not supported",
            f"y is {y._dtype.name}, x {x._dtype.name}", "fix: convert first, e.g. y.to(strided.float32)"))
    if x.ndim == 1:
        if x.shape[0] != y.shape[d]:
            raise StridedRuntimeError(join_lines(
                f"{op}: There must be one `x` value for each sample point",
                f"x has {x.shape[0]} points, y {y.shape[d]} samples along dim {d} (shape {shape_text(y.shape)})",
                "fix: one x per sample"))
        shape = [1] * y.ndim
        shape[d] = x.shape[0]
        x = x.reshape(shape)
    elif x.ndim < y.ndim:
        x = x.reshape((1,) * (y.ndim - x.ndim) + tuple(x.shape))
    n = x.shape[d]
    return x.narrow(d, 1, n - 1) - x.narrow(d, 0, n - 1)


def _pairs(y: Tensor, d: int) -> Tensor:
    n = y.shape[d]
    return y.narrow(d, 0, n - 1) + y.narrow(d, 1, n - 1)


def _fast_operand(y: Any, x: Any, dx: Any, dim: Any) -> tuple[np.ndarray, int, float] | None:
    """(``y``'s NumPy view, the wrapped dim, the spacing) where the fused forms below apply: a
    float32 / float64 tensor outside autograd, unwatched, an int ``dim`` with at least 2 samples
    along it, no ``x``, ``dx`` absent or a float / int; else None (the composition runs)."""
    if (OPEN or y.__class__ is not Tensor or x is not None or dim.__class__ is not int or y._ag is not None
            or (y._dtype is not float32 and y._dtype is not float64)):
        return None
    if dx is None:
        step = 1.0
    elif dx.__class__ in (int, float):
        step = float(dx)
    else:
        return None
    shape = y._layout.shape
    n = len(shape)
    if not -n <= dim < n or shape[dim] < 2:
        return None
    return y._np(), dim % n, step


def _fast_trapezoid(y: Any, x: Any, dx: Any, dim: Any) -> Tensor | None:
    """:func:`trapezoid` with a spacing, fused: the composition's own NumPy calls in its order
    (each op's dtype the input's, the python numbers weak as in PyTorch), without its tensors."""
    got = _fast_operand(y, x, dx, dim)
    if got is None:
        return None
    a, d, step = got
    lead = (slice(None),) * d
    token = quiet_set(QUIET)
    try:  # (a 1-D y: NumPy scalars, hence no out=)
        # (y.sum(d): PyTorch's order of adds, Tensor.sum's, on the same layout)
        # (a row- or column-major y: its flat memory, the sum by the compiled call planned per layout)
        flat = a.reshape(-1) if a.flags.c_contiguous else a.T.reshape(-1) if a.flags.f_contiguous else None
        total = planned_sum(a, flat, (d,)) if flat is not None else sum_array(a, (d,), False)
        total = np.subtract(total, np.multiply(np.add(a[lead + (0,)], a[lead + (-1,)]), 0.5))
        if step != 1.0:  # (x * 1.0 is x: the difference above is never a signaling NaN)
            total = np.multiply(total, step)
    finally:
        quiet_reset(token)
    res = np.asarray(total)
    return adopted(res.reshape(-1), _cinfo[res.shape][2], y._dtype)


def _fast_cumulative(y: Any, x: Any, dx: Any, dim: Any) -> Tensor | None:
    """:func:`cumulative_trapezoid` with a spacing, fused as :func:`_fast_trapezoid`."""
    got = _fast_operand(y, x, dx, dim)
    if got is None:
        return None
    a, d, step = got
    k = special()
    if k is not None and a.size and a.flags.c_contiguous:
        # (the terms by the compiled pair_sums, NumPy's add and multiply by the weak float in one
        # pass, then the compiled scan on them: scan_values' bits; a NaN anywhere in the result
        # means a NaN line, whose NaN is NumPy's: the steps below)
        n = a.shape[d]
        inner = math.prod(a.shape[d + 1:])
        pairs = _empty(a.shape[:d] + (n - 1,) + a.shape[d + 1:], a.dtype)
        if k.pair_sums(a, pairs, n * inner, inner, step / 2.0):
            run = _empty(pairs.shape, a.dtype)
            if k.scan(pairs, run, n - 1, inner, False):
                top = _max_reduce(run, None)
                if top == top:
                    return adopted(run.reshape(-1), _cinfo[run.shape][2], y._dtype)
    lead = (slice(None),) * d
    token = quiet_set(QUIET)
    try:
        pairs = np.add(a[lead + (slice(0, -1),)], a[lead + (slice(1, None),)])
        np.multiply(pairs, step / 2.0, out=pairs)
        res = compiled_scan(pairs, d, False)  # (None without the kernel: NumPy's scan, the same bits)
        if res is None:
            res = scan_values(np.add, pairs, d, y._dtype)
    finally:
        quiet_reset(token)
    return adopted(res.reshape(-1), _cinfo[res.shape][2], y._dtype)


_empty = np.empty
_max_reduce = np.maximum.reduce


def trapezoid(y: Tensor, x: Tensor | None = None, *, dx: Any = None, dim: int = -1) -> Tensor:
    """The trapezoid rule along ``dim`` (module doc): ``y`` sampled at ``x`` or at spacing ``dx``.

    >>> strided.trapezoid(strided.tensor([[0.0, 1.0, 2.0]]), dx=2.0).tolist()
    [4.0]
    """
    fast = _fast_trapezoid(y, x, dx, dim)
    if fast is not None:
        return fast
    op = "trapezoid"
    y = tensor_arg(y, op, "y")
    d = _dim(y, dim, op)
    if y.shape[d] == 0:
        return y.new_zeros(tuple(s for i, s in enumerate(y.shape) if i != d))
    if x is None and y._dtype.kind == "b":
        raise StridedRuntimeError(join_lines(
            f"{op}: received a bool input for `y`, but bool is not supported",
            "fix: convert first, e.g. y.to(strided.float32)"))
    step = _spacing(op, y, x, dx, d)
    if isinstance(step, Tensor):
        return (_pairs(y, d) * step).sum(d) / 2.0
    return (y.sum(d) - (y.select(d, 0) + y.select(d, -1)) * 0.5) * step


def trapz(y: Tensor, x: Tensor | None = None, *, dx: Any = None, dim: int = -1) -> Tensor:
    """PyTorch's older name of :func:`trapezoid`.

    >>> strided.trapz(strided.tensor([1.0, 1.0])).item()
    1.0
    """
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y: Tensor, x: Tensor | None = None, *, dx: Any = None, dim: int = -1) -> Tensor:
    """The running trapezoid rule along ``dim``: ``n - 1`` partial integrals for ``n`` samples.

    >>> strided.cumulative_trapezoid(strided.tensor([1.0, 1.0, 1.0]), dx=0.5).tolist()
    [0.5, 1.0]
    """
    fast = _fast_cumulative(y, x, dx, dim)
    if fast is not None:
        return fast
    op = "cumulative_trapezoid"
    y = tensor_arg(y, op, "y")
    d = _dim(y, dim, op)
    if x is None and y._dtype.kind == "b":
        raise StridedRuntimeError(join_lines(
            f"{op}: received a bool input for `y`, but bool is not supported",
            "fix: convert first, e.g. y.to(strided.float32)"))
    step = _spacing(op, y, x, dx, d)
    if y.shape[d] == 0:  # (PyTorch's slice [0:-1] of an empty dim is empty too)
        pairs = y.narrow(d, 0, 0) + y.narrow(d, 0, 0)
    else:
        pairs = _pairs(y, d)
    if isinstance(step, Tensor):
        return (pairs * step).cumsum(d) / 2.0
    return (step / 2.0 * pairs).cumsum(d)


declare(Kind.COMPUTE, "trapezoid trapz")
# (its result is cumsum's running sums, which the registry counts as a copy: ``cumsum``'s kind)
declare(Kind.COPY, "cumulative_trapezoid")
