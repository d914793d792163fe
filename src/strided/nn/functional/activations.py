"""The activations of ``strided.nn.functional`` with PyTorch's signatures: the ops are unary rows
of :mod:`strided.ops.elementwise.unary` (``relu``, ``sigmoid``, ``tanh``), :mod:`strided.ops.elementwise.special`
(``gelu``), :mod:`strided.ops.elementwise.activations` (``silu``, ``softplus``, ``elu``, ``leaky_relu``,
``hardtanh``) and :mod:`strided.ops.reductions.softmax`; this module only picks the in-place form for
``inplace=True`` (as ``torch.nn.functional`` picks ``relu_``) and PyTorch's implicit softmax dim.
The functions call the ops' recording entries, so an early ``from strided.nn.functional import
silu`` records gradients.

>>> F.relu(strided.tensor([-1.0, 2.0])).tolist()
[0.0, 2.0]
"""

from __future__ import annotations

import warnings
from typing import Any

from ...ops._support.out import write_out
from ...ops.elementwise import activations as A
from ...ops.elementwise.activations import elu_, hardtanh_, leaky_relu_
from ...ops.elementwise.special import gelu
from ...ops.elementwise.unary import relu as _relu
from ...ops.elementwise.unary import sigmoid, tanh
from ...ops.reductions.softmax import log_softmax as _log_softmax
from ...ops.reductions.softmax import softmax as _softmax
from ...tensor import Tensor, tensor_arg

__all__ = ["elu", "elu_", "gelu", "hardtanh", "hardtanh_", "leaky_relu", "leaky_relu_", "log_softmax", "relu", "relu_", "sigmoid",
           "silu", "softmax", "softplus", "tanh"]


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """``max(x, 0)`` elementwise; ``inplace=True`` writes ``input`` (``input.relu_()``: under grad
    mode PyTorch's in-place rules apply, e.g. a leaf that requires grad is refused).

    >>> F.relu(strided.tensor([-1.0, 2.0])).tolist()
    [0.0, 2.0]
    """
    return input.relu_() if inplace else _relu(input)


def relu_(input: Tensor) -> Tensor:
    """In-place :func:`relu` (``torch.nn.functional.relu_``: ``input.relu_()``).

    >>> x = strided.tensor([-1.0, 2.0]); F.relu_(x) is x, x.tolist()
    (True, [0.0, 2.0])
    """
    return input.relu_()


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

