"""Special-function ops built on :mod:`strided.kernels.special`: ``gelu`` (the lead re-exports it
from ``strided.nn.functional``)."""

from __future__ import annotations

import math

import numpy as np

from ..dispatch import OPEN, report, result_array
from ..errors import StridedRuntimeError, join_lines
from ..kernels import special
from ..kernels.fpstate import QUIET, quiet_reset, quiet_set
from ..tensor import Tensor, tensor_arg
from .operands import _fresh_output, _not_implemented, _view
from .registry import backward

_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_SQRT_HALF = math.sqrt(0.5)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """The Gaussian error linear unit, elementwise: ``x * Phi(x)`` = ``x/2 * (1 + erf(x/sqrt 2))``;
    ``approximate="tanh"``: ``x/2 * (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))``. Float tensors
    only; a fresh tensor keeping the input's dim order.

    >>> round(gelu(strided.tensor([1.0])).item(), 6)
    0.841345
    """
    tensor_arg(input, "gelu")
    if approximate not in ("none", "tanh"):
        raise StridedRuntimeError(
            join_lines("approximate argument must be either none or tanh.", f"got approximate={approximate!r}")
        )
    d = input._dtype
    if not d.is_floating_point:
        raise _not_implemented("GeluKernelImpl", d, (input,), "fix: convert first, e.g. x.to(strided.float32)")
    out = _fresh_output(input._layout.shape, d, [input], d)
    token = quiet_set(QUIET)
    try:
        x = _view(input)
        if approximate == "none":
            x64 = x.astype(np.float64)
            res = 0.5 * x64 * (1.0 + special.erf(x64 * _SQRT_HALF))
        else:
            c = np.float32 if d.name != "float64" else np.float64
            xc = x.astype(c)
            res = 0.5 * xc * (1 + np.tanh(c(_SQRT_2_OVER_PI) * (xc + c(0.044715) * xc * xc * xc)))
        np.copyto(_view(out), res, casting="unsafe")
    finally:
        quiet_reset(token)
    if OPEN:
        report("gelu", (input,), out)
    return out


@backward("F.gelu")
def gelu_backward(out: Tensor, input: Tensor, approximate: str = "none") -> tuple:
    """PyTorch's gelu_backward: ``g * (Phi(x) + x * phi(x))`` (the normal CDF and density); for
    ``approximate="tanh"`` the derivative of the tanh formula. Computed with NumPy from the saved
    input, into one fresh tensor.

    >>> x = strided.tensor([1.0], dtype=strided.float64, requires_grad=True)
    >>> gelu(x).backward(); round(x.grad.item(), 6)
    1.082964
    """

    def grad(g: Tensor) -> tuple:
        d = input._dtype
        compute = np.float64 if approximate == "none" or d.name == "float64" else np.float32
        x, gv = _view(input).astype(compute), _view(g).astype(compute)
        token = quiet_set(QUIET)
        try:
            if approximate == "none":
                cdf = 0.5 * (1.0 + special.erf(x * _SQRT_HALF))
                pdf = np.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)
                values = gv * (cdf + x * pdf)
            else:
                k = compute(0.044715)
                inner = compute(_SQRT_2_OVER_PI) * (x + k * x * x * x)
                t = np.tanh(inner)
                values = gv * (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * compute(_SQRT_2_OVER_PI) * (1 + 3 * k * x * x))
        finally:
            quiet_reset(token)
        gx, arr = result_array(input._layout.shape, d)
        np.copyto(arr, values, casting="unsafe")
        return (gx,)

    return "GeluBackward0", (input,), grad, (input,)
