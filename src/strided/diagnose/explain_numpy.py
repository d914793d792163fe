"""``explain`` for NumPy arrays: what a NumPy 2.x layout op would do to ``x``, predicted exactly.

:func:`explain_numpy` reads ``x``'s layout (shape, byte strides, itemsize), parses the op's
arguments as NumPy would (the same TypeError / ValueError / AxisError for the same mistakes),
asks the layout algebra's NumPy-flavour plans (:mod:`strided.layout.plans`,
:mod:`strided.layout.numpy_moves`) and returns an :class:`~.report.Explanation`. It never
runs the op and never reads ``x``'s data.

The ops (:data:`NUMPY_OPS`) are NumPy's *function* spellings with their own argument lists:
``explain_numpy(x, "reshape", ((3, 4),), {"order": "F"})`` predicts
``np.reshape(x, (3, 4), order='F')``. ``flatten`` is the method ``x.flatten(order=)`` (NumPy
has no function of that name). The methods whose argument lists differ from the functions' are
accepted as ``"ndarray.<name>"``: ``explain_numpy(x, "ndarray.reshape", (3, 4))`` predicts
``x.reshape(3, 4)``, ``"ndarray.transpose"`` takes ``*axes``, ``"ndarray.copy"`` copies in
order "C" by default (``np.copy`` keeps order "K"); also ``ndarray.ravel``, ``ndarray.flatten``,
``ndarray.squeeze`` and ``ndarray.swapaxes`` (positional axes only, as NumPy's method).

Offsets count elements from ``x``'s first element (``x``'s data pointer) to the result's; a
copy's is 0. Strides are in elements (byte strides / itemsize); ``x``'s byte strides must be
multiples of its itemsize (anything else raises ValueError: no element stride describes it).

Example::

    >>> import numpy as np
    >>> r = explain_numpy(np.zeros((3, 4)).T, "reshape", ((12,),), {"copy": False})
    >>> r.outcome, r.error
    ('error', 'ValueError: Unable to avoid creating a copy while reshaping.')
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import Any

from ..errors import StridedAxisError
from ..layout import Layout, plans
from ..layout import numpy_moves as NM
from ..layout.core import INT64_MAX, is_contiguous, is_f_contiguous
from ..layout.plans import Copy, View
from ..messages import error as render_error
from ..messages import reshape_equation, reshape_reason
from ..refusals import NoCopyRefusal, NumpyBroadcastRefusal, ReshapeRefusal
from .dims import DimMapping, reshape_mapping
from .report import Explanation, Fix

__all__ = ["NUMPY_OPS", "check_element_strides", "explain_numpy"]

NUMPY_OPS: tuple[str, ...] = (
    "reshape", "ravel", "flatten", "transpose", "swapaxes", "moveaxis", "squeeze", "expand_dims",
    "broadcast_to", "ascontiguousarray", "asfortranarray", "copy",
    # the method spellings, with the methods' own argument lists
    "ndarray.reshape", "ndarray.transpose", "ndarray.ravel", "ndarray.flatten", "ndarray.squeeze",
    "ndarray.swapaxes", "ndarray.copy",
)


class _Raised(Exception):
    """NumPy would raise ``cls`` with first line ``line`` (``why``: more words for the report)."""

    def __init__(self, cls: str, line: str, why: str = "") -> None:
        super().__init__(line)
        self.cls, self.line, self.why = cls, line, why


# ---------------------------------------------------------------- NumPy's signatures

# Stubs with the NumPy functions' own signatures (the array first): calling one with the user's
# arguments raises exactly the TypeError Python (or NumPy's argument parser) raises for a wrong
# count or an unknown keyword, and otherwise returns the arguments by name.
_SIGNATURES = {
    "reshape": "a, /, shape, order='C', *, copy=None",
    "ravel": "a, order='C'",
    "flatten": "order='C'",
    "transpose": "a, axes=None",
    "swapaxes": "a, axis1, axis2",
    "moveaxis": "a, source, destination",
    "squeeze": "a, axis=None",
    "expand_dims": "a, axis",
    "broadcast_to": "array, shape, subok=False",
    "ascontiguousarray": "a, dtype=None, *, like=None",
    "asfortranarray": "a, dtype=None, *, like=None",
    "copy": "a, order='K', subok=False",
}
_STUBS: dict[str, Callable[..., dict[str, Any]]] = {}
for _name, _params in _SIGNATURES.items():
    exec(f"def {_name}({_params}):\n    return locals()", _STUBS)  # noqa: S102 - fixed text above


# The ops whose arguments NumPy's C parser reads (the others are Python functions): its positional
# names and how many of them are required.
_C_PARSED = {"flatten": (("order",), 0), "ascontiguousarray": (("a", "dtype"), 1),
             "asfortranarray": (("a", "dtype"), 1)}
_C_METHODS = {"flatten": (("order",), 0), "ravel": (("order",), 0), "copy": (("order",), 0),
              "squeeze": (("axis",), 0)}


def _c_parse(op: str, args: tuple, kwargs: dict, table: dict = _C_PARSED) -> None:
    """The TypeErrors of NumPy's ``npy_parse_arguments`` that differ from Python's: the count of
    positional arguments is checked first, and a name given twice has its own text."""
    names, required = table[op]
    if len(args) > len(names):
        raise _Raised("TypeError", f"{op}() takes from {required} to {len(names)} positional arguments "
                                   f"but {len(args)} were given")
    for k in kwargs:
        if k in names[: len(args)]:
            raise _Raised("TypeError", f"argument for {op}() given by name ('{k}') and position "
                                       f"(position {names.index(k)})")


def _tp_name(v: Any) -> str:
    """The type name NumPy's C messages print (``tp_name``: ``numpy.float64`` for NumPy scalars)."""
    t = type(v)
    return f"numpy.{t.__name__}" if t.__module__ == "numpy" else t.__name__


def _index(v: Any) -> int:
    """``PyNumber_Index``: an int from anything with ``__index__`` (bools included)."""
    try:
        return operator.index(v)
    except TypeError:
        raise _Raised("TypeError", f"'{_tp_name(v)}' object cannot be interpreted as an integer") from None


def _strict_int(v: Any, msg: str) -> int:
    """NumPy's ``PyArray_PyIntAsIntp_ErrMsg``: like :func:`_index`, but bools are refused with ``msg``."""
    if isinstance(v, bool) or type(v).__name__ == "bool" and type(v).__module__ == "numpy":
        raise _Raised("TypeError", msg)
    return _index(v)


def _c_long(v: int) -> int:
    """``v`` as CPython's ``PyLong_AsLong`` takes it: beyond int64 is an OverflowError."""
    if not -(2**63) <= v < 2**63:
        raise _Raised("OverflowError", "Python int too large to convert to C long")
    return v


_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1


def _axis_arg(v: Any) -> int:
    """The int parser of ``normalize_axis_index`` (floats get their own message; a C int)."""
    if isinstance(v, float):
        raise _Raised("TypeError", f"integer argument expected, got {_tp_name(v)}")
    a = _c_long(_index(v))
    if not _INT_MIN <= a <= _INT_MAX:
        raise _Raised("OverflowError", "Python int too large to convert to C int")
    return a


def _arg_int(v: Any) -> int:
    """An ``"i"`` argument of ``PyArg_ParseTuple`` (``swapaxes``'s axes): a C int."""
    a = _c_long(_index(v))
    if a > _INT_MAX:
        raise _Raised("OverflowError", "signed integer is greater than maximum")
    if a < _INT_MIN:
        raise _Raised("OverflowError", "signed integer is less than minimum")
    return a


def _squeeze_int(v: Any, msg: str) -> int:
    """``PyArray_PyIntAsInt`` (``squeeze``'s axes): a C int, refused with ValueError when it is not."""
    a = _c_long(_strict_int(v, msg))
    if not _INT_MIN <= a <= _INT_MAX:
        raise _Raised("ValueError", "integer won't fit into a C int")
    return a


def _wrap_c_int(a: int) -> int:
    """An ``npy_intp`` cast to a C int, as ``PyArray_Transpose`` stores its permutation: it wraps."""
    return (a - _INT_MIN) % 2**32 + _INT_MIN


def _is_sequence(v: Any) -> bool:
    """CPython's ``PySequence_Check`` (a type with ``sq_item``; dicts are not sequences)."""
    import ctypes

    check = ctypes.pythonapi.PySequence_Check
    check.argtypes, check.restype = [ctypes.py_object], ctypes.c_int
    return bool(check(v))


def _intp_seq(v: Any) -> tuple[int, ...]:
    """NumPy's ``PyArray_IntpConverter``: a sequence of ints, or a single int as a 1-tuple."""
    # NumPy asks PySequence_Check, not len(): a torch.Tensor (mapping protocol only) is read
    # as one integer and refused, though it has a len()
    try:
        n = len(v) if _is_sequence(v) else -1
    except TypeError:  # a sequence type with no length (a 0-d array): read as one integer
        n = -1
    if n < 0:
        try:
            return (_strict_int(v, "an integer is required"),)
        except _Raised:
            raise _Raised("TypeError", f"expected a sequence of integers or a single integer, got '{v}'") from None
    if n > 64:
        raise _Raised("ValueError", f"maximum supported dimension for an ndarray is currently 64, found {n}")
    out = []
    for e in v:  # element by element: an earlier oversized int wins over a later non-int
        n = _strict_int(e, "an integer is required")
        if not -(2**63) <= n < 2**63:
            raise _Raised("ValueError", "Maximum allowed dimension exceeded")
        out.append(n)
    return tuple(out)


def _order(v: Any, default: str) -> str:
    """NumPy's ``PyArray_OrderConverter``: None keeps ``default``; one letter of C, F, A, K (any case)."""
    if v is None:
        return default
    if isinstance(v, bytes):  # NumPy decodes bytes as ASCII
        try:
            v = v.decode("ascii")
        except UnicodeDecodeError:
            pass
    if not isinstance(v, str):
        raise _Raised("TypeError", f"order must be str, not {_tp_name(v)}")
    if len(v) != 1 or v.upper() not in "CFAK":
        raise _Raised("ValueError", f"order must be one of 'C', 'F', 'A', or 'K' (got {v!r})")
    return v.upper()


def _copy_mode(v: Any) -> bool | None:
    """NumPy's ``PyArray_CopyConverter``: None (copy if needed), or any truth value but a string."""
    if v is None:
        return None
    if isinstance(v, str):
        raise _Raised("ValueError", "strings are not allowed for 'copy' keyword. Use True/False/None instead.")
    return bool(v)


def _axis_tuple(axis: Any, ndim: int, op: str, argname: str = "") -> tuple[int, ...]:
    """NumPy's ``normalize_axis_tuple`` up to the repeats: ints, checked one by one as NumPy does."""
    if not isinstance(axis, (tuple, list)):
        try:
            axis = [operator.index(axis)]
        except TypeError:
            pass
    try:
        items = iter(axis)
    except TypeError:
        raise _Raised("TypeError", f"'{_tp_name(axis)}' object is not iterable") from None
    out = []
    for ax in items:
        a = _axis_arg(ax)
        _check(NM.numpy_axis(a, ndim, op, argname))
        out.append(a)
    return tuple(out)


def _check(result: Any) -> Any:
    """``result`` unless it is a refusal; a refusal becomes the error NumPy raises."""
    if result.__class__ in (int, tuple, View, Copy):
        return result
    raise _refused(result)


def _refused(refusal: Any) -> _Raised:
    err = render_error(refusal)
    cls = "AxisError" if isinstance(err, StridedAxisError) else next(
        c.__name__ for c in type(err).__mro__ if c.__module__ == "builtins")
    lines = str(err).splitlines()
    raised = _Raised(cls, lines[0], "\n".join(line.strip() for line in lines[1:]))
    raised.refusal = refusal  # type: ignore[attr-defined]
    return raised


# ---------------------------------------------------------------- the ops


def _reshape(lay: Layout, a: dict[str, Any], itemsize: int) -> Any:
    order = _order(a["order"], "C")
    copy = _copy_mode(a["copy"])
    if a["shape"] is _MISSING:
        raise _Raised("TypeError", "reshape() takes exactly 1 argument (0 given)")
    if a["shape"] is None:  # ndarray.reshape(None): a view of the same layout
        return View(lay)
    shape = _intp_seq(a["shape"])
    if order == "K":
        raise _Raised("ValueError", "order 'K' is not permitted for reshaping")
    return plans.numpy_reshape(lay, shape, order, copy, itemsize=itemsize)


def _ravel(lay: Layout, a: dict[str, Any], itemsize: int) -> Any:
    return plans.numpy_ravel(lay, _order(a["order"], "C"), itemsize=itemsize)


def _flatten(lay: Layout, a: dict[str, Any], itemsize: int) -> Any:
    return NM.numpy_flatten(lay, _order(a["order"], "C"), itemsize=itemsize)


def _transpose(lay: Layout, a: dict[str, Any], itemsize: int) -> Any:
    axes = a["axes"]
    # Note: NumPy keeps the permutation in C ints: an axis of 2**31 wraps (to -2**31), as NumPy's does
    return NM.numpy_transpose(lay, None if axes is None else tuple(_wrap_c_int(v) for v in _intp_seq(axes)))


def _swapaxes(lay: Layout, a: dict[str, Any], itemsize: int) -> Any:
    return NM.numpy_swapaxes(lay, _arg_int(a["axis1"]), _arg_int(a["axis2"]))


def _moveaxis(lay: Layout, a: dict[str, Any], itemsize: int) -> Any:
    ndim = len(lay.shape)
    source = _axis_tuple(a["source"], ndim, "moveaxis", "source")
    _check(NM.numpy_axes(source, ndim, "moveaxis", "source"))
    destination = _axis_tuple(a["destination"], ndim, "moveaxis", "destination")
    return NM.numpy_moveaxis(lay, source, destination)


def _squeeze(lay: Layout, a: dict[str, Any], itemsize: int) -> Any:
    axis = a["axis"]
    if axis is None:
        return NM.numpy_squeeze(lay)
    if not isinstance(axis, tuple):
        return NM.numpy_squeeze(lay, _squeeze_int(axis, "an integer is required for the axis"))
    converted: list[int] = []
    for ax in axis:  # NumPy converts and checks axis by axis: an earlier bad axis wins
        try:
            converted.append(_squeeze_int(ax, "integers are required for the axis tuple elements"))
        except _Raised:
            _check(NM.numpy_squeeze_axes(converted, len(lay.shape)))
            raise
    return NM.numpy_squeeze(lay, tuple(converted))


def _expand_dims(lay: Layout, a: dict[str, Any], itemsize: int) -> Any:
    axis = a["axis"]
    if not isinstance(axis, (tuple, list)):
        axis = (axis,)
    out_ndim = len(axis) + len(lay.shape)
    axes = _axis_tuple(axis, out_ndim, "expand_dims")
    _check(NM.numpy_axes(axes, out_ndim, "expand_dims"))
    if out_ndim > 64:  # the reshape NumPy calls refuses the shape before looking at it
        raise _Raised("ValueError", f"maximum supported dimension for an ndarray is currently 64, found {out_ndim}")
    return NM.numpy_expand_dims(lay, axes, itemsize=itemsize)


def _broadcast_to(lay: Layout, a: dict[str, Any], itemsize: int) -> Any:
    _subok(a["subok"])  # (np.array(x, subok=subok) runs before the shape is read)
    shape = a["shape"]
    try:
        iter(shape)
        shape = tuple(shape)
    except TypeError:
        shape = (shape,)
    if not shape and lay.shape:
        return plans.numpy_broadcast_to(lay, ())
    for size in shape:  # NumPy's any(size < 0 ...), before it parses them: the first answer wins
        try:
            negative = size < 0
        except TypeError:
            raise _Raised("TypeError", f"'<' not supported between instances of '{_tp_name(size)}' and 'int'") from None
        try:
            negative = bool(negative)
        except Exception as err:  # noqa: BLE001 - an array of sizes has no truth value: NumPy's error
            raise _Raised(type(err).__name__, str(err).splitlines()[0]) from None
        if negative:
            raise _refused(NumpyBroadcastRefusal("negative", lay.shape, shape))
    return plans.numpy_broadcast_to(lay, _intp_seq(shape))


def _as_array(name: str) -> Callable[[Layout, dict[str, Any], int], Any]:
    def run(lay: Layout, a: dict[str, Any], itemsize: int) -> Any:
        if a["dtype"] is not None or a["like"] is not None:
            raise ValueError(f"explain_numpy predicts np.{name}(x) without dtype= or like=; got "
                             f"dtype={a['dtype']!r}, like={a['like']!r}")
        return getattr(plans, name)(lay, itemsize=itemsize)
    return run


def _copy(lay: Layout, a: dict[str, Any], itemsize: int) -> Any:
    order = _order(a["order"], "K")
    _subok(a.get("subok", False))  # (np.array parses order before subok; the method has none)
    return NM.numpy_copy(lay, order, itemsize=itemsize)


_OPS: dict[str, Callable[[Layout, dict[str, Any], int], Any]] = {
    "reshape": _reshape, "ravel": _ravel, "flatten": _flatten, "transpose": _transpose,
    "swapaxes": _swapaxes, "moveaxis": _moveaxis, "squeeze": _squeeze, "expand_dims": _expand_dims,
    "broadcast_to": _broadcast_to, "ascontiguousarray": _as_array("ascontiguousarray"),
    "asfortranarray": _as_array("asfortranarray"), "copy": _copy,
}


# ---------------------------------------------------------------- entry


def check_element_strides(x: Any, what: str = "x") -> int:
    """``x``'s itemsize, after checking that its byte strides count whole elements (ValueError
    otherwise: a zero itemsize, or a stride that lands between elements has no element stride)."""
    itemsize = x.itemsize
    if itemsize == 0:
        raise ValueError(f"explain needs a dtype with a nonzero itemsize, got {x.dtype} for {what}")
    if any(s % itemsize for s in x.strides):
        raise ValueError(f"explain counts strides in elements: {what}'s byte strides {x.strides} are not all "
                         f"multiples of its itemsize {itemsize}")
    return itemsize


def _layout_of(x: Any) -> tuple[Layout, int]:
    """``x``'s layout in elements, its first element at the offset that keeps every index >= 0."""
    import numpy as np

    if not isinstance(x, np.ndarray):
        raise TypeError(f"explain_numpy expects a numpy.ndarray, got {type(x).__name__}")
    if isinstance(x, (np.matrix, np.ma.MaskedArray)):
        raise TypeError(f"explain_numpy predicts plain numpy.ndarray ops; {type(x).__name__} overrides "
                        "them: pass np.asarray(x)")
    itemsize = check_element_strides(x)
    shape = tuple(x.shape)
    strides = tuple(s // itemsize for s in x.strides)
    base = sum((max(n, 1) - 1) * -s for n, s in zip(shape, strides) if s < 0)
    return Layout(shape, strides, base), itemsize


def explain_numpy(x: Any, op: str, args: tuple = (), kwargs: dict | None = None) -> Explanation:
    """Predict what NumPy 2.x does for ``np.<op>(x, *args, **kwargs)`` (``x.flatten(...)`` for
    ``flatten``), from ``x``'s layout alone: a view, a copy, or the error NumPy raises.

    ``op`` is one of :data:`NUMPY_OPS` (ValueError otherwise); ``x`` a ``numpy.ndarray``
    (TypeError otherwise). Arguments NumPy itself rejects are predicted as an "error" outcome
    with NumPy's class (TypeError, ValueError, AxisError) and first line.

    >>> import numpy as np
    >>> r = explain_numpy(np.zeros((4, 3))[:, ::-1], "ravel", (), {"order": "K"})
    >>> r.outcome, r.shape, r.strides, r.bytes_copied
    ('copy', (12,), (1,), 96)
    """
    if op not in NUMPY_OPS:
        raise ValueError(f"explain_numpy: unknown op {op!r}; NumPy ops accepted: {', '.join(NUMPY_OPS)}")
    kwargs = dict(kwargs or {})
    args = tuple(args)
    lay, itemsize = _layout_of(x)
    base = dict(library="numpy", op=op, call=_call_text(op, args, kwargs), input_shape=lay.shape,
                input_strides=lay.strides, input_offset=0, itemsize=itemsize)
    try:
        name, bound = _bind(op, x, args, kwargs)
        plan = _OPS[name](lay, bound, itemsize)
        plan = _check(plan)
        _check_size(name, plan.layout.shape, itemsize)
    except _Raised as r:
        refusal = getattr(r, "refusal", None)
        return Explanation(outcome="error", error=f"{r.cls}: {r.line}", refusal=refusal,
                           reason=_error_reason(r, lay), fixes=_error_fixes(r, lay, itemsize),
                           **base)  # type: ignore[arg-type]
    return _report(name, plan, lay, itemsize, base, bound)


_MISSING = object()


def _check_size(op: str, shape: tuple[int, ...], itemsize: int) -> None:
    """NumPy's limits on a new array's extent (a size-0 dim counted as 1): ``broadcast_to``'s
    iterator refuses more than int64 elements, every array more than int64 bytes."""
    extent = math.prod(max(n, 1) for n in shape)
    if op == "broadcast_to" and extent > INT64_MAX:
        raise _Raised("ValueError", "iterator is too large")
    if extent * itemsize > INT64_MAX:
        raise _Raised("ValueError", "array is too big; `arr.size * arr.dtype.itemsize` is larger than the "
                                    "maximum possible size.")


def _bind(op: str, x: Any, args: tuple, kwargs: dict) -> tuple[str, dict[str, Any]]:
    """The function op that ``op`` runs and its arguments by name, or the TypeError NumPy (or
    Python) raises for the argument list itself."""
    if op.startswith("ndarray."):
        return _bind_method(op[len("ndarray."):], args, kwargs)
    full = args if op == "flatten" else (x, *args)
    if op in _C_PARSED:
        _c_parse(op, full, kwargs)
    try:
        bound = _STUBS[op](*full, **kwargs)
    except TypeError as err:
        raise _Raised("TypeError", str(err).splitlines()[0]) from None
    return op, bound


def _subok(v: Any) -> None:
    """np.copy and np.broadcast_to hand ``subok`` to ``np.array``, which takes its truth value
    (an array of two elements raises ValueError)."""
    try:
        bool(v)
    except Exception as err:  # noqa: BLE001 - NumPy raises whatever the truth test raises
        raise _Raised(type(err).__name__, str(err).splitlines()[0]) from None


def _bind_method(m: str, args: tuple, kwargs: dict) -> tuple[str, dict[str, Any]]:
    """``x.<m>(*args, **kwargs)``: the methods whose argument lists differ from the functions'."""
    if m in ("transpose", "swapaxes") and kwargs:
        raise _Raised("TypeError", f"ndarray.{m}() takes no keyword arguments")
    if m == "transpose":  # x.transpose(), x.transpose(axes), x.transpose(*axes)
        return m, {"axes": None if not args else args[0] if len(args) == 1 else args}
    if m == "swapaxes":
        if len(args) != 2:
            raise _Raised("TypeError", f"swapaxes() takes exactly 2 arguments ({len(args)} given)")
        return m, {"axis1": args[0], "axis2": args[1]}
    if m == "reshape":  # x.reshape(shape) or x.reshape(*shape); order= and copy= by keyword only
        if len(kwargs) > 2:
            raise _Raised("TypeError", f"function takes at most 2 keyword arguments ({len(kwargs)} given)")
        _order(kwargs.get("order"), "C")  # this parser converts the known keywords before it
        _copy_mode(kwargs.get("copy"))  # complains about an unknown one
        for k in kwargs:
            if k not in ("order", "copy"):
                raise _Raised("TypeError", f"'{k}' is an invalid keyword argument for this function")
        shape = _MISSING if not args else args[0] if len(args) == 1 else args
        return m, {"shape": shape, "order": kwargs.get("order"), "copy": kwargs.get("copy")}
    _c_parse(m, args, kwargs, _C_METHODS)
    (name,), _ = _C_METHODS[m]
    for k in kwargs:
        if k != name:
            raise _Raised("TypeError", f"{m}() got an unexpected keyword argument '{k}'")
    value = args[0] if args else kwargs.get(name)
    if m == "copy":  # ndarray.copy copies in C order by default (np.copy keeps order K)
        value = _order(value, "C")
    return m, {name: value}


def _call_text(op: str, args: tuple, kwargs: dict) -> str:
    parts = [repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()]
    if op == "flatten" or op.startswith("ndarray."):
        return f"x.{op.split('.')[-1]}({', '.join(parts)})"
    return f"np.{op}({', '.join(['x', *parts])})"


# ---------------------------------------------------------------- reasons and fixes


def _elements(lay: Layout) -> str:
    return f"shape {lay.shape}, strides {lay.strides} (in elements)"


def _merge_text(r: ReshapeRefusal) -> str:
    return (f"dims {r.outer} and {r.inner} cannot merge: {reshape_equation(r)} (in elements): "
            f"{reshape_reason(r)}")


def _why_copy(why: Any, lay: Layout) -> str:
    name = type(why).__name__
    if name == "NoCopyRefusal":
        if why.order == "K":
            return _memory_order_break(lay)
        if why.refusal is not None:
            return _merge_text(why.refusal)
        return (f"{_elements(lay)} is not {why.order}-contiguous, and no strides read it in {why.order} "
                f"order as {why.new_shape}")
    if name == "ReshapeRefusal":
        return _merge_text(why)
    if name == "NotContiguous":
        return (f"not {why.order}-contiguous: dim {why.dim} has stride {why.stride}, {why.order} order "
                f"needs {why.expected} (in elements)")
    if name == "CopyRequested":
        return f"{why.op} always copies"
    return name


def _memory_order_break(lay: Layout) -> str:
    """Why ``ravel(order='K')`` cannot view ``lay``: the dim that breaks the unit-step walk of memory."""
    shape, strides = lay.shape, lay.strides
    dims = sorted(range(len(shape)), key=lambda d: -abs(strides[d]))
    expected = 1
    for d in reversed(dims):
        if shape[d] == 1:
            continue
        if strides[d] != expected:
            what = (f"dim {d} has stride {strides[d]}" + (" (it walks backwards)" if strides[d] < 0 else
                    f", where a dense walk needs {expected}"))
            return (f"order 'K' walks memory in the order of the strides (dims "
                    f"{', '.join(map(str, dims))}), but {what}: memory order is not one forward run of "
                    "unit steps, so no single stride reads it (in elements)")
        expected *= shape[d]
    return "order 'K' finds no single stride for memory order"


def _error_reason(r: _Raised, lay: Layout) -> str:
    text = f"NumPy raises {r.cls}: {r.line}"
    refusal = getattr(r, "refusal", None)
    if isinstance(refusal, NoCopyRefusal):
        return text + "\n" + _why_copy(refusal, lay)
    return text + (f"\n{r.why}" if r.why else "")


def _error_fixes(r: _Raised, lay: Layout, itemsize: int) -> tuple[Fix, ...]:
    refusal = getattr(r, "refusal", None)
    if not isinstance(refusal, NoCopyRefusal):
        return ()
    shape, order = refusal.new_shape, refusal.order
    nbytes = math.prod(lay.shape) * itemsize
    fixes = [Fix(f"np.reshape(x, {shape}, order={order!r})", nbytes, "copy=None copies when it must")]
    fixes.extend(_view_alternatives(lay, shape, order, itemsize))
    return tuple(fixes)


def _view_alternatives(lay: Layout, shape: tuple[int, ...], order: str, itemsize: int) -> list[Fix]:
    """Reshapes that would be views, each checked with the plan (other element orders: named so)."""
    fixes = []
    other = "F" if order == "C" else "C"
    if isinstance(plans.numpy_reshape(lay, shape, other, itemsize=itemsize), View):
        fixes.append(Fix(f"np.reshape(x, {shape}, order={other!r})", 0,
                         f"a view, but it reads the elements in {other} order"))
    rev = plans.reverse(lay).layout
    if len(lay.shape) > 1 and isinstance(plans.numpy_reshape(rev, shape, order, itemsize=itemsize), View):
        tail = "" if order == "C" else f", order={order!r}"
        fixes.append(Fix(f"np.reshape(x.T, {shape}{tail})", 0, "a view of x.T: its elements in x.T's order"))
    return fixes


def _report(op: str, plan: Any, lay: Layout, itemsize: int, base: dict[str, Any],
            bound: dict[str, Any]) -> Explanation:
    mapping = None
    if op in ("reshape", "ravel", "flatten", "expand_dims"):
        mapping = _mapping(lay.shape, plan.layout.shape, _read_order(op, bound, lay))
    if plan.__class__ is View:
        out = plan.layout
        reason = f"a view: {_elements(out)}, {_offset_words(out.offset - lay.offset)}"
        if op in ("reshape", "ravel", "expand_dims") and out.shape != lay.shape:
            reason += "\n" + _view_words(lay)
        elif op == "broadcast_to":
            reason += "\n" + _broadcast_words(lay, out)
        elif op in ("ascontiguousarray", "asfortranarray"):
            which = "C" if op == "ascontiguousarray" else "F"
            reason += ("\na 0-d array comes back as shape (1,) (NumPy asks for at least 1 dim)" if not lay.shape
                       else f"\nx is already {which}-contiguous: NumPy returns x itself")
        return Explanation(outcome="view", shape=out.shape, strides=out.strides, offset=out.offset - lay.offset,
                           reason=reason, mapping=mapping, refusal=plan, **base)
    out = plan.layout
    reason = f"a copy of {plan.nbytes:,} bytes: " + _why_copy(plan.why, lay)
    fixes: list[Fix] = []
    if op == "reshape" or op == "ravel":
        shape = out.shape
        order = getattr(plan.why, "order", "C") if isinstance(plan.why, NoCopyRefusal) else "C"
        if order in "CF":
            fixes.extend(_view_alternatives(lay, shape, order, itemsize))
        if op == "ravel" and isinstance(plans.numpy_ravel(lay, "K", itemsize=itemsize), View):
            fixes.append(Fix("np.ravel(x, order='K')", 0, "a view in memory order"))
    if op == "flatten":
        order = _order(bound["order"], "C")
        if isinstance(plans.numpy_ravel(lay, order, itemsize=itemsize), View):
            call = "np.ravel(x)" if order == "C" else f"np.ravel(x, order={order!r})"
            fixes.append(Fix(call, 0, "a view of the same elements in the same order"))
    return Explanation(outcome="copy", shape=out.shape, strides=out.strides, offset=0, bytes_copied=plan.nbytes,
                       reason=reason, fixes=tuple(fixes), mapping=mapping, refusal=plan, **base)


def _read_order(op: str, bound: dict[str, Any], lay: Layout) -> str:
    """The order a reshape-like op reads ``x`` in: "C", "F", or "K" (memory order)."""
    if op not in ("reshape", "ravel", "flatten"):
        return "C"
    order = _order(bound.get("order"), "C")
    c, f = is_contiguous(lay.shape, lay.strides), is_f_contiguous(lay.shape, lay.strides)
    if order == "A":
        return "F" if f and not c else "C"
    if order == "K":
        return "C" if c else "F" if f else "K"
    return order


def _mapping(old: tuple[int, ...], new: tuple[int, ...], order: str) -> DimMapping | None:
    """How the output dims map onto ``x``'s for a reshape read in ``order``.

    The groups cut both shapes where their running products agree; a prefix product agrees
    exactly where the suffix product does, so C and F order give the same mapping. Memory
    order (K) only flattens (every dim merges); other shapes get None.
    """
    if math.prod(old) != math.prod(new) or (order == "K" and len(new) != 1):
        return None
    return reshape_mapping(old, new)


def _offset_words(offset: int) -> str:
    return "starting at x's first element" if offset == 0 else f"starting {offset} elements from x's first element"


def _view_words(lay: Layout) -> str:
    c, f = is_contiguous(lay.shape, lay.strides), is_f_contiguous(lay.shape, lay.strides)
    if c or f:
        return f"x is {'C' if c else 'F'}-contiguous, so its elements are one evenly spaced run"
    chunks = ", ".join(str(c) for c in _chunks(lay))
    return (f"x is not contiguous, but each new dim falls inside one of x's evenly strided chunks of dims "
            f"{chunks} (size-1 dims left out)")


def _chunks(lay: Layout) -> list[tuple[int, ...]]:
    """Runs of adjacent dims (size-1 dims skipped) that merge: ``stride[d] == size[e] * stride[e]``."""
    dims = [d for d, n in enumerate(lay.shape) if n != 1]
    chunks: list[list[int]] = []
    for d in dims:
        if chunks:
            e = chunks[-1][-1]
            if lay.strides[e] == lay.shape[d] * lay.strides[d]:
                chunks[-1].append(d)
                continue
        chunks.append([d])
    return [tuple(c) for c in chunks]


def _broadcast_words(lay: Layout, out: Layout) -> str:
    lead = len(out.shape) - len(lay.shape)
    new = [d for d in range(lead)]
    stretched = [lead + d for d, n in enumerate(lay.shape) if n == 1 and out.shape[lead + d] != 1]
    parts = []
    if new:
        parts.append(f"new leading dims {tuple(new)} read x again (stride 0)")
    if stretched:
        parts.append(f"size-1 dims stretched to dims {tuple(stretched)} repeat it (stride 0)")
    parts.append("no element is copied: writing to the result is refused (it is read-only)")
    return "; ".join(parts)
