"""NumPy's override protocols on Tensor: ``__array_ufunc__`` (NEP 13) and ``__array_function__`` (NEP 18).

NumPy computes; strided owns the results. Tensor arguments reach NumPy as zero-copy views of
their memory (``t._np()``), and what NumPy returns comes back as strided tensors:

- an array NumPy computed into new memory is *adopted* (no copy) and reported through
  :mod:`strided.dispatch` — a "compute" op named ``np.<name>`` for ufuncs and reductions, a "copy"
  with a reason for functions that move elements into new memory (``np.concatenate``, a
  ``np.reshape`` that could not be a view) — so ``record_copies`` and ``watch`` see it;
- an array that is a view of a tensor's memory (``np.transpose``, ``np.squeeze``, a ``np.reshape``
  NumPy could do without a copy) becomes a strided view of that tensor: NumPy's own view-or-copy
  rules, exactly;
- ``out=`` tensors are written in place (NumPy writes through the views) and returned.

>>> t = strided.arange(6.0).reshape(2, 3)
>>> np.exp(t).shape, type(np.transpose(t)).__name__
((2, 3), 'Tensor')

# Note: values and dtypes are NumPy's (type promotion of NEP 50, ``np.mean`` of ints is float64,
``np.sum`` of int32 is int64), since NumPy computes them: ``np.add(t, 1)`` is NumPy's add. The one
exception is an operator: ``ndarray + tensor`` makes NumPy call ``np.add(ndarray, tensor)`` (NumPy
calls ``__array_ufunc__`` from its operators, and a ``NotImplemented`` from the hook raises
TypeError instead of deferring), so a plain call of an operator's ufunc whose first argument is a
NumPy array or scalar and whose second is a tensor, with no keywords, runs strided's reflected
operator (``tensor.__radd__(ndarray)``): PyTorch's semantics, as ``ndarray + tensor`` had when
Tensor set ``__array_ufunc__ = None``. ``np.add(ndarray, tensor)`` written out takes the same path
(NumPy gives the hook no way to tell the two apart). Likewise ``tensor @ ndarray`` and ``ndarray @ tensor``
(which reach NumPy as ``np.matmul``, since Tensor's ``@`` takes only tensors) run strided's matmul
on the array read zero-copy, as ``tensor + ndarray`` reads it.

# Note: a NumPy function strided does not list in :data:`HANDLED` (``np.allclose``, ``np.sort``,
``np.unique``, ``np.linalg.*``, ...) falls back to NumPy on zero-copy views of the tensor
arguments and returns exactly what NumPy returns (ndarrays, possibly views of the tensors'
memory, whose storage is then pinned as ``np.asarray(t)`` pins it). Those ndarrays are NumPy's:
their copies do not show in strided's ledger. A result whose dtype strided does not support
(``np.datetime64``, objects, strings) is also returned as NumPy's ndarray.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dispatch
from ..dtypes import from_numpy_dtype
from ..kernels.listeners import OPEN
from ..kernels.memory import check_writable
from ..layout import Layout, contiguous_strides
from ..tensor import Tensor
from .arrays import as_tensor

_trusted = Layout._trusted

# The ufuncs NumPy's operators call, and the strided method that ``ndarray <op> tensor`` runs.
_REFLECTED = {
    "add": "__radd__", "subtract": "__rsub__", "multiply": "__rmul__", "true_divide": "__rtruediv__",
    "floor_divide": "__rfloordiv__", "remainder": "__rmod__", "power": "__rpow__",
    "bitwise_and": "__rand__", "bitwise_or": "__ror__", "bitwise_xor": "__rxor__",
    "left_shift": "__rlshift__", "right_shift": "__rrshift__", "divmod": "__rdivmod__",
    "less": "__gt__", "less_equal": "__ge__", "greater": "__lt__", "greater_equal": "__le__",
    "equal": "__eq__", "not_equal": "__ne__",
}

# NumPy functions whose results come back as strided tensors. Computing ones report "compute";
# the rest, when NumPy returns new memory, report a "copy" (their job is moving elements).
COMPUTING = frozenset({
    "sum", "mean", "max", "min", "amax", "amin", "std", "var", "all", "any", "prod", "cumsum", "cumprod",
    "argmax", "argmin", "where", "clip", "dot", "matmul", "round", "around", "abs", "median",
    "nansum", "nanmean", "nanmax", "nanmin", "ptp", "average",
})
MOVING = frozenset({
    "transpose", "reshape", "concatenate", "stack", "hstack", "vstack", "dstack", "moveaxis", "swapaxes",
    "squeeze", "expand_dims", "ravel", "broadcast_to", "flip", "fliplr", "flipud", "atleast_1d",
    "atleast_2d", "atleast_3d", "copy", "split", "array_split", "tile", "repeat", "take", "diagonal",
    "roll", "rot90", "tril", "triu", "matrix_transpose", "permute_dims",
})
# Functions that answer about the array, not with one: NumPy's answer, as it gives it.
QUERIES = frozenset({"shape", "ndim", "size"})
HANDLED = COMPUTING | MOVING | QUERIES


def _is_foreign(x: Any) -> bool:
    """Another library's array that overrides ufuncs (NEP 13: give it its turn)."""
    hook = getattr(type(x), "__array_ufunc__", None)
    return hook is not None and not isinstance(x, (Tensor, np.ndarray, np.generic))


def _to_np(x: Any, tensors: list[Any]) -> Any:
    """``x`` with every Tensor (also inside lists and tuples) replaced by its zero-copy view; the
    caller's own ndarrays are listed in ``tensors`` too (a result over their memory is theirs)."""
    if isinstance(x, Tensor):
        tensors.append(x)
        return x._np()
    if isinstance(x, np.ndarray):
        tensors.append(x)
        return x
    if isinstance(x, (list, tuple)):
        return type(x)(_to_np(v, tensors) for v in x)
    return x


def _adopt(value: Any) -> Tensor | None:
    """A tensor owning ``value``, an array (or scalar) NumPy just computed, without copying it;
    None if strided has no dtype for it."""
    arr = np.asarray(value)
    dtype = from_numpy_dtype(arr.dtype)
    if dtype is None:
        return None
    shape = arr.shape
    strides = None
    if arr.size and not arr.flags.c_contiguous and min(arr.strides) >= 0:
        # NumPy lays a result out like its inputs (order="K"): keep that layout when dense.
        flat = arr.ravel(order="K")
        if flat.__array_interface__["data"][0] == arr.__array_interface__["data"][0] and \
                np.shares_memory(flat, arr):
            strides = tuple(s // arr.itemsize for s in arr.strides)
    if strides is None:
        arr = np.ascontiguousarray(arr)
        flat = arr.reshape(-1)
        strides = tuple(s // arr.itemsize for s in arr.strides) if arr.size else None
    if not flat.flags.writeable:  # (a NumPy scalar's array) strided writes into its results
        flat = flat.copy()
    return dispatch.adopted(flat, _trusted(shape, strides or contiguous_strides(shape), 0), dtype)


def _view_of(arr: np.ndarray, tensors: list[Any], name: str) -> Tensor | None:
    """The strided view of the tensor in ``tensors`` whose memory ``arr`` addresses, if any."""
    for t in tensors:
        if not isinstance(t, Tensor):
            continue
        buf = t._storage.array
        if buf.dtype != arr.dtype or not np.may_share_memory(arr, buf):
            continue
        isz = arr.itemsize
        if any(s % isz for s in arr.strides):
            return None
        offset = 0 if arr.size == 0 else (arr.__array_interface__["data"][0] - t._storage.data_ptr()) // isz
        view = object.__new__(Tensor)  # Tensor._view, named after the NumPy function for the reports
        view._storage = t._storage
        view._layout = _trusted(arr.shape, tuple(s // isz for s in arr.strides), offset)
        view._dtype = t._dtype
        view._base = t if t._base is None else t._base
        view._ag = None  # (no autograd record: the slot must be set, every method reads it)
        if OPEN:
            dispatch.view_of(t, view, f"np.{name}")
        return view
    return None


def _only_tensors(seen: list[Any]) -> tuple[Tensor, ...]:
    """The tensors among the arguments :func:`_to_np` saw (the ops' inputs, for the reports)."""
    return tuple(t for t in seen if isinstance(t, Tensor))


def _shares_any(arr: np.ndarray, tensors: list[Tensor]) -> bool:
    """Whether ``arr`` may address an argument's memory (a tensor's storage or a caller's ndarray)."""
    return any(np.may_share_memory(arr, t._storage.array if isinstance(t, Tensor) else t) for t in tensors)


def _tensor_of(value: Any, name: str, tensors: list[Tensor], copying: bool, fresh: bool = False) -> Any:
    """NumPy's ``value`` as strided's: a view, an adopted result (reported), or ``value`` as it is."""
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, (np.ndarray, np.generic)) for v in value):
        return type(value)(_tensor_of(v, name, tensors, copying) for v in value)
    if not isinstance(value, (np.ndarray, np.generic)):
        return value  # np.shape's tuple, np.ndim's int
    if not fresh and isinstance(value, np.ndarray) and _shares_any(value, tensors):
        view = _view_of(value, tensors, name)
        if view is not None:
            return view
        return value  # a view strided cannot express (another dtype), or the caller's ndarray's
    out = _adopt(value)
    if out is None:
        return value
    inputs = _only_tensors(tensors)
    if copying:
        return dispatch.copied(f"np.{name}", inputs, out,
                               lambda: f"np.{name}: NumPy's result is new memory, not a view of the input: "
                                       f"{out.numel()} elements copied")
    return dispatch.report(f"np.{name}", inputs, out)


def array_ufunc(self: Tensor, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
    """NEP 13: ``np.exp(t)``, ``np.add(t, 1, out=t, where=mask)``, ``np.add.reduce(t, axis=0)``
    run NumPy's loop on the tensors' memory and return strided tensors.

    >>> np.maximum(strided.tensor([1, 5]), 3)
    tensor([3, 5])
    """
    out = kwargs.get("out", ())
    if any(_is_foreign(x) for x in (*inputs, *out)):
        return NotImplemented
    name = ufunc.__name__
    if (method == "__call__" and not kwargs and len(inputs) == 2 and name in _REFLECTED and name != "matmul"
            and isinstance(inputs[0], (np.ndarray, np.generic)) and isinstance(inputs[1], Tensor)):
        reflected = getattr(inputs[1], _REFLECTED[name], None)
        if reflected is not None:
            return reflected(inputs[0])  # ndarray <op> tensor: strided's operator (see the Note)
    if (method == "__call__" and not kwargs and name == "matmul"
            and all(isinstance(x, (Tensor, np.ndarray)) for x in inputs)):
        # tensor @ ndarray / ndarray @ tensor: Tensor's @ takes only tensors, so Python asks the
        # ndarray's, which calls np.matmul: strided's matmul on the array read zero-copy, as
        # tensor + ndarray reads it (strided's checks and messages, PyTorch's semantics).
        return as_tensor(inputs[0]) @ as_tensor(inputs[1])
    for o in out:  # strided's checks first (read-only memory, an expanded target): nothing written on error
        if isinstance(o, Tensor):
            check_writable(o._storage, o._layout, f"np.{name}(out=)")
    tensors: list[Tensor] = []
    np_inputs = _to_np(inputs, tensors)
    np_kwargs = {k: _to_np(v, tensors) for k, v in kwargs.items()}
    res = getattr(ufunc, method)(*np_inputs, **np_kwargs)
    label = name if method == "__call__" else f"{name}.{method}"
    if method == "at":
        return dispatch.report(f"np.{label}", _only_tensors(tensors), inputs[0]) if isinstance(inputs[0], Tensor) \
            else None
    results = res if isinstance(res, tuple) else (res,)
    given = out if out else (None,) * len(results)
    done = []
    for r, o in zip(results, given):
        if isinstance(o, Tensor):  # NumPy wrote into the tensor's memory
            done.append(dispatch.report(f"np.{label}", _only_tensors(tensors), o))
        elif o is not None:
            done.append(r)  # the caller's ndarray
        else:
            done.append(_tensor_of(r, label, tensors, copying=False, fresh=True))  # a ufunc never views
    return tuple(done) if isinstance(res, tuple) else done[0]


def array_function(self: Tensor, func: Any, types: tuple, args: tuple, kwargs: dict) -> Any:
    """NEP 18: ``np.sum(t, axis=0)``, ``np.transpose(t)``, ``np.concatenate([t, u])``: NumPy's
    function on zero-copy views, its result a strided tensor (a view where NumPy's is a view).
    Functions outside :data:`HANDLED` return what NumPy returns (see the module's Note).

    >>> np.sum(strided.ones(2, 3), axis=0)
    tensor([2., 2., 2.])
    """
    if not all(issubclass(t, (Tensor, np.ndarray)) for t in types):
        return NotImplemented
    tensors: list[Tensor] = []
    np_args = _to_np(args, tensors)
    np_kwargs = {k: _to_np(v, tensors) for k, v in kwargs.items()}
    name = func.__name__
    if isinstance(kwargs.get("out"), Tensor):
        check_writable(kwargs["out"]._storage, kwargs["out"]._layout, f"np.{name}(out=)")
    res = func(*np_args, **np_kwargs)
    out = kwargs.get("out")
    if isinstance(out, Tensor):
        return dispatch.report(f"np.{name}", _only_tensors(tensors), out)
    if name in HANDLED:
        return _tensor_of(res, name, tensors, copying=name in MOVING)
    for t in _only_tensors(tensors):  # NumPy's result may be a view of this memory: it may no longer move
        t._storage.mark_exported(f"np.{name}(...) (Tensor.__array_function__)")
    return res


Tensor.__array_ufunc__ = array_ufunc  # type: ignore[assignment]
Tensor.__array_function__ = array_function  # type: ignore[attr-defined]
