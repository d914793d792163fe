"""The adapter's plumbing: arguments in the standard's spelling, NumPy as the kernel, strided results.

Every namespace function reads tensors through zero-copy NumPy views (``t._np()``), lets NumPy
compute (NumPy 2's main namespace implements the standard's semantics), and hands the new array
to strided without copying it (:func:`computed`, :func:`moved`), reported through
:mod:`strided.dispatch` so ``record_copies`` and ``watch`` see the namespace's work too.

>>> t = strided.tensor([0.0, 2.0])
>>> computed("exp2", (t,), np.exp2(t._np())).tolist()
[1.0, 4.0]
"""

from __future__ import annotations

import contextlib
import inspect
import math
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from .. import dispatch
from ..device import parse_device
from ..dtypes import DType, from_numpy_dtype, to_dtype
from ..errors import StridedTypeError, join_lines
from ..interop.numpy_protocols import _adopt
from ..layout import Layout
from ..tensor import Tensor

__all__ = ["arrays", "computed", "dtype_arg", "moved", "np_dtype", "device_arg", "ufunc", "is_array"]


def is_array(x: Any) -> bool:
    return isinstance(x, Tensor)


def arrays(*xs: Any) -> tuple[Any, ...]:
    """Each tensor as its zero-copy NumPy view; Python scalars (the standard allows them in
    binary functions) as they are."""
    return tuple(x._np() if isinstance(x, Tensor) else x for x in xs)


def _inputs(xs: Any) -> tuple[Tensor, ...]:
    flat: list[Tensor] = []
    for x in xs:
        if isinstance(x, Tensor):
            flat.append(x)
        elif isinstance(x, (list, tuple)):
            flat.extend(v for v in x if isinstance(v, Tensor))
    return tuple(flat)


def _own(value: Any, name: str) -> Tensor:
    arr = np.asarray(value)
    if arr.ndim == 0:
        # (interop's _adopt gives a 0-d result the 1-d strides of np.ascontiguousarray's answer,
        # which later copies trip over: a 0-d result is built here, over a fresh 1-element buffer)
        dtype = from_numpy_dtype(arr.dtype)
        if dtype is not None:
            return dispatch.adopted(np.array(arr.reshape(1)), Layout._trusted((), (), 0), dtype)
    out = _adopt(value)
    if out is None:
        raise StridedTypeError(f"array_api.{name}: NumPy returned {np.asarray(value).dtype}, which strided lacks")
    return out


def computed(name: str, inputs: tuple, value: Any) -> Tensor:
    """``value`` (an array NumPy just computed into new memory) as a strided tensor, reported as
    the compute op ``array_api.<name>``."""
    return dispatch.report(f"array_api.{name}", _inputs(inputs), _own(value, name))


def moved(name: str, inputs: tuple, value: Any, why: str) -> Tensor:
    """``value`` (new memory NumPy filled with the inputs' elements: concat, stack, tile, ...) as a
    strided tensor, reported to the copy ledger with ``why``."""
    if isinstance(value, np.ndarray) and any(isinstance(t, Tensor) and np.may_share_memory(value, t._storage.array)
                                             for t in _inputs(inputs)):
        value = value.copy()  # NumPy answered with a view: the namespace promised new memory
    out = _own(value, name)
    return dispatch.copied(f"array_api.{name}", _inputs(inputs), out, lambda: f"array_api.{name}: {why}")


def dtype_arg(dtype: Any) -> DType | None:
    """The ``dtype=`` argument as a strided DType (None stays None)."""
    return None if dtype is None else to_dtype(dtype)


def np_dtype(dtype: Any) -> np.dtype | None:
    d = dtype_arg(dtype)
    return None if d is None else d.numpy


def device_arg(device: Any, op: str) -> None:
    """The standard's ``device=``: strided computes on the CPU only (``"cpu"``, a strided device)."""
    if device is not None:
        parse_device(device, op)


def check_array(x: Any, op: str, name: str = "x") -> Tensor:
    if not isinstance(x, Tensor):
        raise StridedTypeError(
            join_lines(f"array_api.{op}(): argument '{name}' must be an array (strided.Tensor), not {type(x).__name__}",
                       "make one with strided.array_api.asarray(...)"))
    return x


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """NumPy's floating-point warnings off (the standard defines the special cases' values), and
    its RuntimeWarnings ("Degrees of freedom <= 0", "Mean of empty slice": the result says so)."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


def ufunc(name: str, fn: Callable[..., Any], doc: str, arity: int) -> Callable[..., Any]:
    """A namespace elementwise function computing with NumPy's ``fn`` (arrays or Python scalars);
    its signature is the standard's: ``(x, /)`` or ``(x1, x2, /)``."""

    def op(*xs: Any) -> Tensor:
        if not any(isinstance(x, Tensor) for x in xs):
            raise StridedTypeError(
                join_lines(f"array_api.{name}(): expected at least one array (strided.Tensor) argument",
                           "make one with strided.array_api.asarray(...)"))
        with quiet():
            return computed(name, xs, fn(*arrays(*xs)))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    names = ("x",) if arity == 1 else ("x1", "x2")
    op.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter(n, inspect.Parameter.POSITIONAL_ONLY) for n in names])
    return op


def normalize_axis(axis: int, ndim: int, op: str) -> int:
    from ..errors import StridedIndexError

    if not -ndim <= axis < ndim:
        raise StridedIndexError(
            f"array_api.{op}(): axis {axis} is out of bounds for an array of dimension {ndim} "
            f"(valid: {-ndim}..{ndim - 1})")
    return axis % ndim


def prod(shape: tuple[int, ...]) -> int:
    return math.prod(shape)
