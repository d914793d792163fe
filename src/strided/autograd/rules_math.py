"""Backward rules of the arithmetic: elementwise ops, reductions and matrix products.

Each maker gets ``(out, *args, **kwargs)`` after the forward and returns PyTorch's node name,
the inputs (a number is an input the gradient does not flow to, as PyTorch's ``(None, 0)`` edge),
the backward closure and the tensors it saved. Broadcasting needs no code here: the engine sums
each gradient down to its input's shape and casts it to its dtype (PyTorch's validate_outputs),
so ``x + bias`` gives ``bias`` the gradient summed over the batch.

The formulas are PyTorch's (``derivatives.yaml``), written with strided's own ops.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..tensor import Tensor
from .graph import requires_grad

# ---------------------------------------------------------------- binary elementwise


def _scale(g: Tensor, alpha: Any) -> Tensor:
    return g if alpha is None or alpha == 1 else g * alpha


def add(out: Tensor, a: Any, b: Any, *, alpha: Any = None, **kwargs: Any) -> Any:
    return "AddBackward0", (a, b), lambda g: (g, _scale(g, alpha)), ()


def sub(out: Tensor, a: Any, b: Any, *, alpha: Any = None, **kwargs: Any) -> Any:
    return "SubBackward0", (a, b), lambda g: (g, -_scale(g, alpha)), ()


def rsub(out: Tensor, self: Tensor, other: Any) -> Any:  # other - self
    if other.__class__ is Tensor:
        return sub(out, other, self)
    return "RsubBackward1", (self,), lambda g: (-g,), ()


def mul(out: Tensor, a: Any, b: Any, **kwargs: Any) -> Any:
    ta, tb = a.__class__ is Tensor, b.__class__ is Tensor
    need_a, need_b = ta and requires_grad(a), tb and requires_grad(b)

    def backward(g: Tensor) -> tuple:
        return (g * b if need_a else None, g * a if need_b else None)

    saved = tuple(t for t, keep in ((a, ta and need_b), (b, tb and need_a)) if keep)
    return "MulBackward0", (a, b), backward, saved


def div(out: Tensor, a: Any, b: Any, *, rounding_mode: Any = None, **kwargs: Any) -> Any:
    if rounding_mode is not None:
        return None
    ta, tb = a.__class__ is Tensor, b.__class__ is Tensor
    if not ta:  # number / tensor: PyTorch computes reciprocal(b) * number
        return "DivBackward0", (None, b), lambda g: (None, -g * a / (b * b)), (b,)
    need_b = tb and requires_grad(b)

    def backward(g: Tensor) -> tuple:
        return (g / b, -g * a / (b * b) if need_b else None)

    return "DivBackward0", (a, b), backward, ((a, b) if need_b else (b,) if tb else ())


def rdiv(out: Tensor, self: Tensor, other: Any) -> Any:  # other / self
    if other.__class__ is Tensor:
        return div(out, other, self)
    return div(out, other, self)


def pow_(out: Tensor, a: Any, b: Any, **kwargs: Any) -> Any:
    ta, tb = a.__class__ is Tensor, b.__class__ is Tensor
    if ta and not tb:  # tensor ** number
        if b == 0:
            return "PowBackward0", (a,), lambda g: (g * 0,), ()
        return "PowBackward0", (a,), lambda g: (g * b * a ** (b - 1),), (a,)
    if tb and not ta:  # number ** tensor
        import math

        log_a = math.log(a) if a > 0 else float("nan") if a < 0 else float("-inf")

        def backward_base(g: Tensor) -> tuple:
            if a == 0:  # PyTorch: the gradient is 0 where the exponent is >= 0
                return ((g * out * log_a).masked_fill(b >= 0, 0),)
            return (g * out * log_a,)

        return "PowBackward2", (b,), backward_base, (b, out)
    need_b = requires_grad(b)

    def backward(g: Tensor) -> tuple:
        ga = g * b * a ** (b - 1)
        gb = None
        if need_b:  # d(a**b)/db = a**b * log(a), taken as 0 where a == 0 and b >= 0
            gb = (g * out * a.log()).masked_fill((a == 0) & (b >= 0), 0)
        return (ga, gb)

    return "PowBackward1", (a, b), backward, (a, b, out) if need_b else (a, b)


def rpow(out: Tensor, self: Tensor, other: Any) -> Any:  # other ** self
    return pow_(out, other, self)


def maximum(out: Tensor, a: Tensor, b: Tensor) -> Any:
    return _extremum("MaximumBackward0", a, b, out)


def minimum(out: Tensor, a: Tensor, b: Tensor) -> Any:
    return _extremum("MinimumBackward0", a, b, out)


def _extremum(name: str, a: Tensor, b: Tensor, out: Tensor) -> Any:
    def backward(g: Tensor) -> tuple:
        # PyTorch: ties share the gradient equally
        half = g * 0.5
        tie = a == b
        return ((g * (out == a)).masked_fill(tie, 0) + half * tie,
                (g * (out == b)).masked_fill(tie, 0) + half * tie)

    return name, (a, b), backward, (a, b, out)


# ---------------------------------------------------------------- unary elementwise


def _unary(name: str, backward: Callable[[Tensor, Tensor, Tensor], Tensor], saves: str) -> Callable:
    """A unary rule: ``backward(g, x, out)``; ``saves`` names what it reads ("x", "out", "")."""

    def maker(out: Tensor, x: Tensor, *args: Any, **kwargs: Any) -> Any:
        saved = (x,) if saves == "x" else (out,) if saves == "out" else ()
        return name, (x,), lambda g: (backward(g, x, out),), saved

    return maker


UNARY: dict[str, Callable] = {
    "neg": _unary("NegBackward0", lambda g, x, y: -g, ""),
    "exp": _unary("ExpBackward0", lambda g, x, y: g * y, "out"),
    "log": _unary("LogBackward0", lambda g, x, y: g / x, "x"),
    "sqrt": _unary("SqrtBackward0", lambda g, x, y: g / (2 * y), "out"),
    "tanh": _unary("TanhBackward0", lambda g, x, y: g * (1 - y * y), "out"),
    "sigmoid": _unary("SigmoidBackward0", lambda g, x, y: g * (y * (1 - y)), "out"),
    "relu": _unary("ReluBackward0", lambda g, x, y: g * (y > 0), "out"),
    "abs": _unary("AbsBackward0", lambda g, x, y: g * x.sign(), "x"),
    "sin": _unary("SinBackward0", lambda g, x, y: g * x.cos(), "x"),
    "cos": _unary("CosBackward0", lambda g, x, y: -g * x.sin(), "x"),
}


# ---------------------------------------------------------------- reductions


def _dims(dim: Any, ndim: int) -> tuple[int, ...]:
    if dim is None:
        return tuple(range(ndim))
    dims = tuple(dim) if isinstance(dim, (tuple, list)) else (dim,)
    return tuple(sorted(d % ndim if ndim else 0 for d in dims))


def _unreduce(g: Tensor, shape: tuple, dims: tuple, keepdim: bool) -> Tensor:
    """``g`` (a reduction's gradient) with the reduced dims put back as size 1 and expanded to
    ``shape``: a view, nothing copied."""
    if not keepdim and shape:
        for d in dims:
            g = g.unsqueeze(d)
    return g.expand(shape)


def sum_(out: Tensor, x: Tensor, dim: Any = None, keepdim: bool = False, **kwargs: Any) -> Any:
    shape = x._layout.shape
    dims = _dims(dim, len(shape))
    if dim is None or (isinstance(dim, (tuple, list)) and not dim):
        return "SumBackward0", (x,), lambda g: (g.reshape((1,) * len(shape)).expand(shape),), ()
    return "SumBackward1", (x,), lambda g: (_unreduce(g, shape, dims, keepdim),), ()


def mean(out: Tensor, x: Tensor, dim: Any = None, keepdim: bool = False, **kwargs: Any) -> Any:
    shape = x._layout.shape
    dims = _dims(dim, len(shape))
    n = 1
    for d in dims:
        n *= shape[d]
    if dim is None:
        return "MeanBackward0", (x,), lambda g: (g.reshape((1,) * len(shape)).expand(shape) / n,), ()
    return "MeanBackward1", (x,), lambda g: (_unreduce(g, shape, dims, keepdim) / n,), ()


def _extreme(name: str) -> Callable:
    def maker(out: Any, x: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
        if dim.__class__ is Tensor:  # max(a, b): the elementwise maximum
            return _extremum("MaximumBackward0" if name == "Max" else "MinimumBackward0", x, dim, out)
        shape = x._layout.shape
        if dim is None:
            def full(g: Tensor) -> tuple:
                # PyTorch (evenly_distribute_backward): ties share the gradient equally
                mask = x == out
                return (g * mask / mask.sum(),)

            return f"{name}Backward1", (x,), full, (x, out)
        values, indices = out
        d = dim % len(shape) if shape else 0

        def along(g: Tensor) -> tuple:
            idx = indices if keepdim or not shape else indices.unsqueeze(d)
            gk = g if keepdim or not shape else g.unsqueeze(d)
            from .rules_views import zeros_of

            return (zeros_of(shape, g).scatter(d, idx, gk),)

        return f"{name}Backward0", (x,), along, (indices,)

    return maker


def _softmax_dim(x: Tensor, dim: Any) -> int:
    n = len(x._layout.shape)
    if dim is None:  # PyTorch's deprecated implicit choice
        dim = 0 if n in (0, 1, 3) else 1
    return dim % n if n else 0


def softmax(out: Tensor, x: Tensor, dim: Any = None, dtype: Any = None, **kwargs: Any) -> Any:
    """PyTorch's _softmax_backward_data: y * (g - sum(g * y, dim))."""
    d = _softmax_dim(x, dim)
    return "SoftmaxBackward0", (x,), lambda g: (out * (g - (g * out).sum(d, keepdim=True)),), (out,)


def log_softmax(out: Tensor, x: Tensor, dim: Any = None, dtype: Any = None, **kwargs: Any) -> Any:
    """PyTorch's _log_softmax_backward_data: g - exp(y) * sum(g, dim)."""
    d = _softmax_dim(x, dim)
    return "LogSoftmaxBackward0", (x,), lambda g: (g - out.exp() * g.sum(d, keepdim=True),), (out,)


# ---------------------------------------------------------------- matrix products


def mm(out: Tensor, a: Tensor, b: Tensor, **kwargs: Any) -> Any:
    need_a, need_b = requires_grad(a), requires_grad(b)

    def backward(g: Tensor) -> tuple:
        return (g.mm(b.t()) if need_a else None, a.t().mm(g) if need_b else None)

    return "MmBackward0", (a, b), backward, tuple(t for t, k in ((a, need_b), (b, need_a)) if k)


def bmm(out: Tensor, a: Tensor, b: Tensor, **kwargs: Any) -> Any:
    need_a, need_b = requires_grad(a), requires_grad(b)

    def backward(g: Tensor) -> tuple:
        return (g.bmm(b.transpose(1, 2)) if need_a else None, a.transpose(1, 2).bmm(g) if need_b else None)

    return "BmmBackward0", (a, b), backward, tuple(t for t, k in ((a, need_b), (b, need_a)) if k)


def dot(out: Tensor, a: Tensor, b: Tensor) -> Any:
    return "DotBackward0", (a, b), lambda g: (g * b, g * a), (a, b)


def matmul(out: Tensor, a: Tensor, b: Tensor) -> Any:
    """PyTorch's matmul by the operands' dims: mm, dot, mv; otherwise the batched product with
    broadcasting (the engine sums each gradient over the broadcast batch dims).

    # Note: PyTorch builds 1-d @ 2-d and the batched cases from unsqueeze / reshape / mm / bmm
    # nodes (``SqueezeBackward4``, ``UnsafeViewBackward0``, ...); strided records one node
    # (``MmBackward0`` for 1-d @ 2-d, ``BmmBackward0`` for the batched product).
    """
    if a.__class__ is not Tensor or b.__class__ is not Tensor:
        return None
    na, nb = len(a._layout.shape), len(b._layout.shape)
    if na == 2 and nb == 2:
        return mm(out, a, b)
    if na == 1 and nb == 1:
        return dot(out, a, b)
    if na == 2 and nb == 1:
        return "MvBackward0", (a, b), lambda g: (g.unsqueeze(1) * b, a.t().matmul(g)), (a, b)
    name = "MmBackward0" if na == 1 and nb == 2 else "BmmBackward0"

    def backward(g: Tensor) -> tuple:
        a2 = a.unsqueeze(0) if na == 1 else a
        b2 = b.unsqueeze(1) if nb == 1 else b
        g2 = g.unsqueeze(-2) if na == 1 else g
        g2 = g2.unsqueeze(-1) if nb == 1 else g2
        ga = g2.matmul(b2.mT)
        gb = a2.mT.matmul(g2)
        if na == 1:
            ga = ga.squeeze(-2)
        if nb == 1:
            gb = gb.squeeze(-1)
        return ga, gb

    return name, (a, b), backward, (a, b)


def rmatmul(out: Tensor, self: Tensor, other: Any) -> Any:
    return matmul(out, other, self)


# Tensor method -> (maker, operands): the table the installer reads.
def math_rules() -> dict[str, tuple[Callable, str]]:
    rules: dict[str, tuple[Callable, str]] = {
        "add": (add, "two"), "__add__": (add, "dunder"), "__radd__": (add, "dunder"),
        "sub": (sub, "two"), "subtract": (sub, "two"), "__sub__": (sub, "dunder"), "__rsub__": (rsub, "dunder"),
        "mul": (mul, "two"), "multiply": (mul, "two"), "__mul__": (mul, "dunder"), "__rmul__": (mul, "dunder"),
        "div": (div, "two"), "divide": (div, "two"), "true_divide": (div, "two"), "__truediv__": (div, "dunder"),
        "__rtruediv__": (rdiv, "dunder"),
        "pow": (pow_, "two"), "__pow__": (pow_, "dunder"), "__rpow__": (rpow, "dunder"),
        "maximum": (maximum, "two"), "minimum": (minimum, "two"),
        "__neg__": (UNARY["neg"], "self"), "negative": (UNARY["neg"], "self"), "__abs__": (UNARY["abs"], "self"),
        "sum": (sum_, "self"), "mean": (mean, "self"),
        "softmax": (softmax, "self"), "log_softmax": (log_softmax, "self"),
        "max": (_extreme("Max"), "self"), "min": (_extreme("Min"), "self"),
        "mm": (mm, "two"), "bmm": (bmm, "two"), "dot": (dot, "two"),
        "matmul": (matmul, "two"), "__matmul__": (matmul, "dunder"), "__rmatmul__": (rmatmul, "dunder"),
    }
    for name, maker in UNARY.items():
        rules[name] = (maker, "self")
    return rules
