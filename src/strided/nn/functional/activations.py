"""The activations of ``strided.nn.functional`` with PyTorch's signatures: the ops are unary rows
of :mod:`strided.ops.elementwise.unary` (``relu``, ``sigmoid``, ``tanh``), :mod:`strided.ops.elementwise.special`
(``gelu``), :mod:`strided.ops.elementwise.activations` (``silu``, ``softplus``, ``elu``, ``leaky_relu``,
``hardtanh``), :mod:`strided.ops.elementwise.activations_more` (``hardsigmoid``, ``hardswish``,
``hardshrink``, ``softshrink``, ``threshold``, ``selu``, ``celu``, ``mish``, ``logsigmoid``, ``rrelu``'s
evaluation mode) and :mod:`strided.ops.reductions.softmax`; ``relu6``, ``softsign``, ``tanhshrink`` and
``rrelu``'s training mode are PyTorch's own compositions of recorded ops. This module only picks the in-place form for
``inplace=True`` (as ``torch.nn.functional`` picks ``relu_``) and PyTorch's implicit softmax dim.
The functions call the ops' recording entries, so an early ``from strided.nn.functional import
silu`` records gradients.

>>> F.relu(strided.tensor([-1.0, 2.0])).tolist()
[0.0, 2.0]
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ...ops._support.out import write_out
from ...ops.elementwise import activations as A
from ...ops.elementwise import activations_more as M
from ...ops.elementwise.activations import elu_, hardtanh_, leaky_relu_
from ...ops.elementwise.activations_more import celu_, selu_, threshold_
from ...ops.elementwise.special import gelu
from ...ops.elementwise.unary import relu as _relu
from ...ops.elementwise.unary import sigmoid, tanh
from ...ops.reductions.softmax import log_softmax as _log_softmax
from ...ops.reductions.softmax import softmax as _softmax
from ...tensor import Tensor, tensor_arg

__all__ = ["celu", "celu_", "elu", "elu_", "gelu", "hardshrink", "hardsigmoid", "hardswish", "hardtanh", "hardtanh_", "leaky_relu",
           "leaky_relu_", "log_softmax", "logsigmoid", "mish", "relu", "relu6", "relu_", "rrelu", "rrelu_", "selu", "selu_",
           "sigmoid", "silu", "softmax", "softplus", "softshrink", "softsign", "tanh", "tanhshrink", "threshold", "threshold_"]


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """``max(x, 0)`` elementwise; ``inplace=True`` writes ``input`` (``input.relu_()``: under grad
    mode PyTorch's in-place rules apply, e.g. a leaf that requires grad is refused).

    >>> F.relu(strided.tensor([-1.0, 2.0])).tolist()
    [0.0, 2.0]
    """
    # the non-Tensor check names relu_ as torch does (torch.relu_); input.relu_() alone would raise
    # AttributeError for None / numbers where torch raises TypeError
    return tensor_arg(input, "relu_").relu_() if inplace else _relu(input)


def relu_(input: Tensor) -> Tensor:
    """In-place :func:`relu` (``torch.nn.functional.relu_``: ``input.relu_()``).

    >>> x = strided.tensor([-1.0, 2.0]); F.relu_(x) is x, x.tolist()
    (True, [0.0, 2.0])
    """
    return tensor_arg(input, "relu_").relu_()


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * sigmoid(x)`` elementwise (float tensors); ``inplace=True`` writes ``input``.

    >>> F.silu(strided.tensor([0.0, 1.0])).tolist()  # doctest: +ELLIPSIS
    [0.0, 0.731...]
    """
    if not inplace and (out := A.plain_fresh(A.SILU, input, ())) is not None:
        return out
    if not inplace:
        A.refuse_complex_grad(input)
    return A.silu_(input) if inplace else A.silu(input)


silu = A.fresh_front(silu, A.SILU)  # (the common call in C: see fresh_front)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0, *, out: Any = None) -> Tensor:
    """``log(1 + exp(beta * x)) / beta``, and ``x`` itself where ``beta * x > threshold``.

    >>> F.softplus(strided.tensor([0.0, 30.0])).tolist()  # doctest: +ELLIPSIS
    [0.693..., 30.0]
    """
    if out is not None:  # (PyTorch's out= takes only the input's dtype: "Found dtype Double but expected Float")
        return write_out(out, softplus(input, beta, threshold), "softplus", (input,), "found")
    if input.__class__ is Tensor and type(beta) is float and type(threshold) is float \
            and (out := A.plain_fresh(A.SOFTPLUS, input, (beta, threshold))) is not None:
        return out
    return A.softplus(input, beta, threshold)


softplus = A.fresh_front(softplus, A.SOFTPLUS)  # (the common call, F.softplus(x), in C: see fresh_front)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """``x`` where ``x > 0``, else ``alpha * (exp(x) - 1)``; ``inplace=True`` writes ``input``.

    >>> F.elu(strided.tensor([-1.0, 2.0])).tolist()  # doctest: +ELLIPSIS
    [-0.632..., 2.0]
    """
    if not inplace and input.__class__ is Tensor and type(alpha) is float \
            and (out := A.plain_fresh(A.ELU, input, (alpha,))) is not None:
        return out
    return elu_(input, alpha) if inplace else A.elu(input, alpha)


elu = A.fresh_front(elu, A.ELU)  # (the common call, F.elu(x) of an all-positive x, in C: see fresh_front)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """``x`` where ``x > 0``, else ``negative_slope * x``; ``inplace=True`` writes ``input``.

    >>> F.leaky_relu(strided.tensor([-1.0, 2.0], dtype=strided.float64), 0.1).tolist()
    [-0.1, 2.0]
    """
    if not inplace and input.__class__ is Tensor and type(negative_slope) is float \
            and (out := A.plain_fresh(A.LEAKY_RELU, input, (negative_slope,))) is not None:
        return out
    return leaky_relu_(input, negative_slope) if inplace else A.leaky_relu(input, negative_slope)


leaky_relu = A.fresh_front(leaky_relu, A.LEAKY_RELU)  # (the common call, F.leaky_relu(x), in C: see fresh_front)


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    """``x`` clamped to ``[min_val, max_val]``; ``inplace=True`` writes ``input``.

    >>> F.hardtanh(strided.tensor([-3.0, 0.5, 2.0])).tolist()
    [-1.0, 0.5, 1.0]
    """
    return A.hardtanh_(input, min_val, max_val) if inplace else A.hardtanh(input, min_val, max_val)


hardtanh = A.fresh_front(hardtanh, A.HARDTANH)  # (the common call, F.hardtanh(x), in C: see fresh_front)


_F32_MAX = float(np.finfo(np.float32).max)


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



def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """``min(max(x, 0), 6)``: PyTorch's relu6 is ``hardtanh(x, 0, 6)`` (its node
    HardtanhBackward0, integer tensors kept in their dtype); ``inplace=True`` writes ``input``.

    >>> F.relu6(strided.tensor([-1.0, 3.0, 7.0])).tolist()
    [0.0, 3.0, 6.0]
    """
    if inplace:
        return A.hardtanh_(tensor_arg(input, "relu6_"), 0.0, 6.0)  # (PyTorch's error names relu6_())
    return A.hardtanh(input, 0.0, 6.0)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """``min(max(x + 3, 0), 6) / 6``; ``inplace=True`` writes ``input``.

    >>> F.hardsigmoid(strided.tensor([-4.0, 0.0, 4.0])).tolist()
    [0.0, 0.5, 1.0]
    """
    if not inplace and (out := A.plain_fresh(M.HARDSIGMOID, input, ())) is not None:
        return out  # (a plain float32 / float64 tensor outside autograd: the row's pass, no entry)
    return M.hardsigmoid_(input) if inplace else M.hardsigmoid(input)


hardsigmoid = A.fresh_front(hardsigmoid, M.HARDSIGMOID)  # (the common call, F.hardsigmoid(x), in C: see fresh_front)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * min(max(x + 3, 0), 6) / 6``; ``inplace=True`` writes ``input``.

    >>> F.hardswish(strided.tensor([-4.0, 4.0])).tolist()
    [-0.0, 4.0]
    """
    if not inplace and (out := A.plain_fresh(M.HARDSWISH, input, ())) is not None:
        return out  # (a plain float32 / float64 tensor outside autograd: the row's pass, no entry)
    return M.hardswish_(input) if inplace else M.hardswish(input)


hardswish = A.fresh_front(hardswish, M.HARDSWISH)  # (the common call, F.hardswish(x), in C: see fresh_front)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * tanh(softplus(x))``; ``inplace=True`` writes ``input``.

    >>> F.mish(strided.tensor([0.0])).tolist()
    [0.0]
    """
    if not inplace and (out := A.plain_fresh(M.MISH, input, ())) is not None:
        return out  # (a plain float32 / float64 tensor outside autograd: the row's pass, no entry)
    return M.mish_(input) if inplace else M.mish(input)


mish = A.fresh_front(mish, M.MISH)  # (the common call, F.mish(x), in C: see fresh_front)


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """SELU: ``scale * x`` where ``x > 0``, else ``scale * alpha * (exp(x) - 1)``; ``inplace=True`` writes ``input``.

    >>> F.selu(strided.tensor([0.0])).tolist()
    [0.0]
    """
    if not inplace and (out := A.plain_fresh(M.SELU, input, ())) is not None:
        return out  # (a plain float32 / float64 tensor outside autograd: the row's pass, no entry)
    return M.selu_(input) if inplace else M.selu(input)


selu = M.flat_front(selu, M.SELU)  # (the common call, F.selu(x), in C: see flat_front)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """``x`` where ``x > 0``, else ``alpha * (exp(x / alpha) - 1)``; ``inplace=True`` writes ``input``.

    >>> F.celu(strided.tensor([2.0]), 2.0).tolist()
    [2.0]
    """
    if not inplace and type(alpha) is float and alpha != 0.0 \
            and (out := A.plain_fresh(M.CELU, input, (alpha,))) is not None:
        return out
    return M.celu_(input, alpha) if inplace else M.celu(input, alpha)


celu = M.flat_front(celu, M.CELU)  # (the common call, F.celu(x), in C: see flat_front)


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """``value`` where ``x <= threshold``, else ``x``; ``inplace=True`` writes ``input``.

    >>> F.threshold(strided.tensor([0.0, 2.0]), 1.0, 9.0).tolist()
    [9.0, 2.0]
    """
    if not inplace and type(threshold) is float and type(value) is float \
            and (out := A.plain_fresh(M.THRESHOLD, input, (threshold, value))) is not None:
        return out
    return M.threshold_(input, threshold, value) if inplace else M.threshold(input, threshold, value)


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          inplace: bool = False) -> Tensor:
    """Randomized leaky ReLU. Not ``training``: ``leaky_relu(x, (lower + upper) / 2)`` (PyTorch's
    node RreluWithNoiseBackward0). ``training``: each element ``x <= 0`` times its own slope drawn
    uniformly from ``[lower, upper)`` by the default generator (``strided.manual_seed`` makes it
    reproducible; not PyTorch's stream), the others kept, as ``input * noise``.

    # Note: PyTorch records the training form as RreluWithNoiseBackward0 (gradient ``grad * noise``);
    # strided records MulBackward0 of ``input * noise``: the same gradients, first and second. A
    # bfloat16 input's slopes are rounded to bfloat16 before the product (PyTorch's stay float).

    >>> F.rrelu(strided.tensor([-1.0, 2.0], dtype=strided.float64), 0.1, 0.3).tolist()
    [-0.2, 2.0]
    """
    if not training:
        if not inplace and type(lower) is float and type(upper) is float and lower <= upper \
                and (out := A.plain_fresh(M.RRELU, input, ((lower + upper) / 2,))) is not None:
            return out
        # (inplace: torch.rrelu_'s entry, whose common call is written in C: see compiled_inplace)
        return M.rrelu_(input, lower, upper) if inplace else M.rrelu_eval(input, lower, upper)
    return M.rrelu_(input, lower, upper, True) if inplace else M.rrelu(input, lower, upper, True)


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False) -> Tensor:
    """In-place :func:`rrelu` (``torch.nn.functional.rrelu_``)."""
    return rrelu(input, lower, upper, training, inplace=True)


def logsigmoid(input: Tensor) -> Tensor:
    """``log(sigmoid(x))``, computed as ``min(x, 0) - log1p(exp(-|x|))``.

    >>> round(F.logsigmoid(strided.tensor([0.0])).item(), 4)
    -0.6931
    """
    if (out := A.plain_fresh(M.LOGSIGMOID, input, ())) is not None:
        return out
    return M.logsigmoid(input)


logsigmoid = A.fresh_front(logsigmoid, M.LOGSIGMOID)  # (the common call, F.logsigmoid(x), in C: see fresh_front)


def softsign(input: Tensor) -> Tensor:
    """``x / (1 + |x|)``: PyTorch's own composition, ``input / (input.abs() + 1)`` (its node
    DivBackward0; an integer tensor gives floats, as its division does).

    >>> F.softsign(strided.tensor([-1.0, 3.0])).tolist()
    [-0.5, 0.75]
    """
    return input / (input.abs() + 1)


def tanhshrink(input: Tensor) -> Tensor:
    """``x - tanh(x)``: PyTorch's own composition, ``input - input.tanh()`` (its node SubBackward0).

    >>> F.tanhshrink(strided.tensor([0.0])).tolist()
    [0.0]
    """
    return input - input.tanh()


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``x - lambd`` where ``x > lambd``, ``x + lambd`` where ``x < -lambd``, else 0.

    >>> F.softshrink(strided.tensor([-1.0, 0.25, 2.0])).tolist()
    [-0.5, 0.0, 1.5]
    """
    if type(lambd) is float and 0.0 <= lambd <= _F32_MAX \
            and (out := A.plain_fresh(M.SOFTSHRINK, input, (lambd,))) is not None:
        return out  # (float32 / float64 only: the bound every such input's check passes)
    return M.softshrink(input, lambd)


softshrink = A.fresh_front(softshrink, M.SOFTSHRINK)  # (the common call, F.softshrink(x), in C: see fresh_front)


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``0`` where ``-lambd <= x <= lambd``, else ``x`` (``torch.hardshrink``, ``Tensor.hardshrink``).

    >>> F.hardshrink(strided.tensor([-1.0, 0.25, 2.0])).tolist()
    [-1.0, 0.0, 2.0]
    """
    if type(lambd) is float and (out := A.plain_fresh(M.HARDSHRINK, input, (lambd,))) is not None:
        return out
    return M.hardshrink(input, lambd)


hardshrink = A.fresh_front(hardshrink, M.HARDSHRINK)  # (the common call, F.hardshrink(x), in C: see fresh_front)
