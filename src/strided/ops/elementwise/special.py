"""Special-function ops built on :mod:`strided.kernels.special`: ``gelu`` (the lead re-exports it
from ``strided.nn.functional``)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...errors import StridedRuntimeError, join_lines
from ...gradients import seal
from ...kernels import sleef, special
from ...kernels.fpstate import QUIET, quiet_reset, quiet_set
from ...opdef import Kind, declare
from ...tensor import Tensor, tensor_arg
from .._support.operands import _fresh_output, _not_implemented, _view
from .._support.out import write_out
from ..registry import backward

_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_SQRT_HALF = math.sqrt(0.5)


def gelu(input: Tensor, approximate: str = "none", *, out: Any = None) -> Tensor:
    """The Gaussian error linear unit, elementwise: ``x * Phi(x)`` = ``x/2 * (1 + erf(x/sqrt 2))``;
    ``approximate="tanh"``: ``x/2 * (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))``. Float tensors
    only; a fresh tensor keeping the input's dim order.

    >>> round(gelu(strided.tensor([1.0])).item(), 6)
    0.841345
    """
    if out is not None:  # (PyTorch's out= takes only the result's dtype)
        return write_out(out, _gelu(input, approximate, out), "gelu", (input, approximate), "found")
    return _gelu(input, approximate, None)


def _gelu(input: Tensor, approximate: str, like: Any) -> Tensor:
    """:func:`gelu` into a fresh tensor; ``like``: the ``out=`` tensor, whose layout orders
    PyTorch's loop where it is kept (same dtype and shape: TensorIterator's output comes first in
    its dim order, so a transposed input into a row-major ``out`` runs strided, every element the
    scalar function), so the fresh result is laid out as TensorIterator lays it out with ``out``."""
    tensor_arg(input, "gelu")
    if approximate not in ("none", "tanh"):
        raise StridedRuntimeError(
            join_lines("approximate argument must be either none or tanh.", f"got approximate={approximate!r}")
        )
    d = input._dtype
    if not d.is_floating_point:
        raise _not_implemented("GeluKernelImpl", d, (input,), "fix: convert first, e.g. x.to(strided.float32)")
    keep = isinstance(like, Tensor) and like._dtype is d and like._layout.shape == input._layout.shape
    out = _fresh_output(input._layout.shape, d, [like, input] if keep else [input], d)
    token = quiet_set(QUIET)
    try:
        _gelu_into(_view(input), _view(out), approximate, d.name)
    finally:
        quiet_reset(token)
    return out


def _gelu_into(x: np.ndarray, res_out: np.ndarray, approximate: str, dtype_name: str) -> None:
    """Write gelu of ``x`` (a ``dtype_name`` tensor's array) into ``res_out`` (the fresh output's
    array): the exact form of float32 PyTorch's bits where the compiled kernel runs
    (:func:`strided.kernels.sleef.gelu_float32`); float16 and bfloat16 upcast to float32 and run
    the same kernels, rounded once, as PyTorch's reduced-float ``GeluKernelImpl`` does (its
    ``Vectorized<Half>`` twice float32's width; bfloat16's contiguous input goes to oneDNN, as
    float32's, on an AVX-512 CPU alone); else in float64, rounded once (the compiled kernel where it takes the arrays: the
    same bits in one pass; a float64 tensor: PyTorch's bits where the compiled kernel runs,
    GeluKernelImpl's loop with SLEEF's erf where it is vectorized, :data:`strided.kernels.sleef.GELU_D`);
    the tanh form in float32 (float64 for a float64 tensor: PyTorch's bits
    where the compiled kernel runs, GeluKernelImpl's loop with SLEEF's tanh where it is vectorized,
    :data:`strided.kernels.sleef.GELU_TANH_D`)."""
    if approximate == "none":
        if dtype_name in ("float32", "float16", "bfloat16"):
            reduced = dtype_name != "float32"
            x32 = _upcast_strided(x) if reduced else x
            if dtype_name == "float16":  # (no oneDNN for half: GeluKernelImpl's loop)
                res = sleef.torch_loop(x32, sleef.GELU, None, lanes=2)
            else:
                res = sleef.gelu_float32(x32, None if reduced else res_out, lanes=2 if reduced else 1)
            if res is not None:
                if res is not res_out:
                    np.copyto(res_out, res, casting="unsafe")
                return
        if dtype_name == "float64":  # (GeluKernelImpl's loop, SLEEF's erf where vectorized: PyTorch's bits)
            res = sleef.torch_loop(x, sleef.GELU_D, res_out)
            if res is not None:
                if res is not res_out:
                    np.copyto(res_out, res)
                return
        if special.gelu_into(x, res_out):
            return
        x64 = x.astype(np.float64)
        res = 0.5 * x64 * (1.0 + special.erf(x64 * _SQRT_HALF))
    else:
        if dtype_name == "float64":  # (GeluKernelImpl's loop, SLEEF's tanh where vectorized: PyTorch's bits)
            res = sleef.torch_loop(x, sleef.GELU_TANH_D if sleef.step() else sleef.GELU_TANH_PLAIN, res_out)
            if res is not None:
                if res is not res_out:
                    np.copyto(res_out, res)
                return
        c = np.float64 if dtype_name == "float64" else np.float32
        xc = x.astype(c)
        res = 0.5 * xc * (1 + np.tanh(c(_SQRT_2_OVER_PI) * (xc + c(0.044715) * xc * xc * xc)))
    np.copyto(res_out, res, casting="unsafe")


def _upcast_strided(x: np.ndarray) -> np.ndarray:
    """``x`` as float32 with ``x``'s strides in elements (a slice's gaps kept), so PyTorch's loop
    split (which elements its scalar tail takes, read off the strides) is the one ``x`` gets."""
    es = [s // x.itemsize for s in x.strides]
    if x.size == 0 or any(s * x.itemsize != t for s, t in zip(es, x.strides)):
        return x.astype(np.float32)
    lo = sum(min(0, (n - 1) * s) for n, s in zip(x.shape, es))
    hi = sum(max(0, (n - 1) * s) for n, s in zip(x.shape, es))
    buf = np.empty(hi - lo + 1, np.float32)
    x32 = np.lib.stride_tricks.as_strided(buf[-lo:], x.shape, [s * 4 for s in es])
    np.copyto(x32, x, casting="unsafe")
    return x32


# ---------------------------------------------------------------- backward rule


@backward("gelu")
def gelu_backward(out: Tensor, x: Tensor, approximate: str = "none") -> Any:
    """PyTorch's gelu_backward: g (Phi(x) + x phi(x)); with ``approximate="tanh"`` the derivative of
    the tanh form, 0.5 (1 + t) + 0.5 x (1 - t^2) sqrt(2/pi) (1 + 3 * 0.044715 x^2)."""

    def grads(g: Tensor) -> tuple:
        if approximate == "tanh":
            t = ((x + x * x * x * 0.044715) * _SQRT_2_OVER_PI).tanh()
            slope = (t + 1) * 0.5 + x * 0.5 * (1 - t * t) * _SQRT_2_OVER_PI * (x * x * (3 * 0.044715) + 1)
            return (g * slope,)
        cdf = ((x * _SQRT_HALF).erf() + 1) * 0.5
        pdf = (x * x * -0.5).exp() * (1 / math.sqrt(2 * math.pi))
        return (g * (cdf + x * pdf),)

    return "GeluBackward0", (x,), grads, (x,)


seal(globals())  # (last: this module's ops with a backward rule become their recording entries)


# the kinds of this module's ops, in the op registry (after the seal: the forwards are the entries)
declare(Kind.COMPUTE, "gelu")
