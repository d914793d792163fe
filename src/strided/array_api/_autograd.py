"""The namespace on tensors that require grad: through strided's recording ops, or a clear error.

The standard's functions compute in NumPy on the tensors' memory (NumPy 2 implements the
standard's special cases and promotion exactly), and NumPy records no graph. So each public
function of the namespace is given an entry (:func:`recording`) whose first test is whether an
argument has an autograd record (a slot read per argument; nothing else for a plain call):

- when grad mode is on and an input requires grad, a function with a differentiable strided op
  of the same meaning (:func:`routes`: ``exp`` is ``strided.exp``, ``multiply`` is
  ``strided.mul``, ``sum(axis=, keepdims=)`` is ``strided.sum(dim=, keepdim=)``, ...) calls that
  op, which records its node, as array-api-compat's torch namespace keeps autograd;
- any other function that would return a float result with no history raises
  (``StridedNotImplementedError``), instead of silently cutting the gradient;
- the functions that are views or compositions of strided's own entries (``reshape``,
  ``permute_dims``, ``matrix_transpose``, ...) record by themselves and pass.

>>> import strided.array_api as xp
>>> x = strided.tensor([1.0, 2.0], requires_grad=True)
>>> xp.exp(x).grad_fn, xp.sum(x * x, axis=0).grad_fn
(<ExpBackward0 object at ...>, <SumBackward1 object at ...>)
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from ..errors import StridedNotImplementedError, join_lines
from ..grad_mode import GRAD_MODE, INSIDE, _cut, _requiring, any_tracked
from ..gradients import BACKWARD
from ..tensor import Tensor

# the standard's name -> the strided op (a Tensor method) computing the same values for float
# arrays; used only when that op has a backward rule
_UNARY = {
    "abs": "abs", "acos": "acos", "acosh": "acosh", "asin": "asin", "asinh": "asinh", "atan": "atan",
    "atanh": "atanh", "conj": "conj", "cos": "cos", "cosh": "cosh", "exp": "exp", "expm1": "expm1",
    "log": "log", "log1p": "log1p", "log2": "log2", "log10": "log10", "negative": "neg", "positive": "positive",
    "reciprocal": "reciprocal", "sin": "sin", "sinh": "sinh", "square": "square", "sqrt": "sqrt", "tan": "tan",
    "tanh": "tanh", "real": "real", "imag": "imag",
}
_BINARY = {
    "add": "add", "subtract": "sub", "multiply": "mul", "divide": "div", "pow": "pow", "maximum": "maximum",
    "minimum": "minimum", "atan2": "atan2", "hypot": "hypot", "logaddexp": "logaddexp", "matmul": "matmul",
}
# reductions with the standard's (axis=, keepdims=) -> strided's (dim=, keepdim=)
_REDUCTIONS = {"sum": "sum", "mean": "mean", "prod": "prod", "max": "amax", "min": "amin"}


def _unary(method: str) -> Callable[..., Any]:
    def _run(x: Tensor, /) -> Any:
        attr = getattr(Tensor, method)
        return attr.__get__(x) if isinstance(attr, property) else attr(x)  # (real/imag are properties)

    return _run


def _binary(method: str) -> Callable[..., Any]:
    def _run(x1: Any, x2: Any, /) -> Any:
        if not isinstance(x1, Tensor):  # a Python scalar first: weak, it takes the array's dtype
            from ..creation import tensor

            x1 = tensor(x1, dtype=x2._dtype)
        return getattr(Tensor, method)(x1, x2)

    return _run


def _reduction(method: str) -> Callable[..., Any]:
    def _run(x: Tensor, /, *, axis: Any = None, keepdims: bool = False, **kwargs: Any) -> Any:
        dtype = kwargs.pop("dtype", None)
        if kwargs:  # (correction=, ...): not routed; the caller's error path
            raise TypeError
        args: dict[str, Any] = {} if axis is None and not keepdims else {
            "dim": tuple(range(x.ndim)) if axis is None else axis, "keepdim": keepdims}
        if dtype is not None:
            args["dtype"] = dtype
        return getattr(Tensor, method)(x, **args)

    return _run


@functools.cache
def routes() -> dict[str, Callable[..., Any]]:
    """The standard's name -> its recording route (made on first use: the op modules register
    their rules after this namespace is imported)."""
    out: dict[str, Callable[..., Any]] = {}
    for table, make in ((_UNARY, _unary), (_BINARY, _binary), (_REDUCTIONS, _reduction)):
        for name, method in table.items():
            if method in BACKWARD and hasattr(Tensor, method):
                out[name] = make(method)
    return out


def recording(fn: Callable[..., Any], name: str) -> Callable[..., Any]:
    """The namespace's entry for ``fn`` (the module doc)."""
    @functools.wraps(fn)
    def _entry(*args: Any, **kwargs: Any) -> Any:
        if not any_tracked(args) and not any_tracked(kwargs.values()):
            return fn(*args, **kwargs)
        if not GRAD_MODE.get() or INSIDE.get() or _requiring((args, tuple(kwargs.values()))) is None:
            return fn(*args, **kwargs)
        route = routes().get(name)
        if route is not None:
            try:
                return route(*args, **kwargs)
            except TypeError:
                pass  # (an argument the route does not take: the refusal below)
        out = fn(*args, **kwargs)
        if _cut(out):
            raise _refusal(name, _requiring((args, tuple(kwargs.values()))))
        return out

    _entry.__guards__ = name  # type: ignore[attr-defined]
    return _entry


def _refusal(name: str, t: Tensor) -> StridedNotImplementedError:
    return StridedNotImplementedError(join_lines(
        f"{name}() is not differentiable in strided.array_api",
        f"its input (shape {t._layout.shape}) requires grad, but xp.{name} computes in NumPy, which records "
        "no graph: its result would silently carry no gradient",
        f"fix: the strided op of the same meaning (strided.{name}, a Tensor method), or xp.{name}(x.detach(), ...) "
        "outside the graph, or under strided.no_grad()"))


def wrap_namespace(namespace: dict[str, Any], names: Any) -> None:
    """Give each function of ``names`` in ``namespace`` its :func:`recording` entry (called once,
    as the namespace finishes importing)."""
    for name in names:
        value = namespace.get(name)
        if callable(value) and not isinstance(value, type) and getattr(value, "__guards__", None) is None \
                and getattr(value, "__module__", "").startswith("strided.array_api"):
            entry = namespace[name] = recording(value, name)
            # (pickled by name where it is bound: the namespace, not the module that defined it)
            entry.__module__, entry.__qualname__ = namespace["__name__"], name
