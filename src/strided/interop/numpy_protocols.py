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
``np.sum`` of int32 is int64), since NumPy computes them: ``np.add(t, 1)`` is NumPy's add. So is an
arithmetic, bitwise or ``@`` operator with an ndarray operand, as in PyTorch (whose operator hands
the array to NumPy: :func:`numpy_operator`; ``float32 tensor * np.array(2.5)`` is float64, a bool
result is uint8), in either order. The exception is a scalar or comparison: ``np.float64(2) + t``
and ``ndarray < tensor`` make NumPy call ``np.add``/``np.less`` with the tensor second (NumPy calls
``__array_ufunc__`` from its operators, and a ``NotImplemented`` from the hook raises TypeError
instead of deferring), so a plain call of an operator's ufunc whose first argument is a NumPy
scalar (or, for a comparison, an array) and whose second is a tensor, with no keywords, runs
strided's reflected operator (``tensor.__radd__(scalar)``): PyTorch's reading of a NumPy scalar
as a number, and a comparison's reading of the array as a tensor (PyTorch raises TypeError for
``<``). ``np.add(ndarray, tensor)`` written out takes the same path (NumPy gives the hook no way
to tell the two apart).

# Note: a NumPy function strided does not list in :data:`HANDLED` (``np.sort``, ``np.unique``,
``np.linalg.inv``, ``np.real``, ...) falls back to NumPy on zero-copy views of the tensor
arguments, and its return type is documented here: every ndarray and NumPy scalar NumPy returns
comes back as a strided tensor, by the rules of :mod:`strided.interop.numpy_results` — a view of a
tensor's memory (in any dtype strided has: ``np.real(c)``, ``np.imag(c)`` of a complex tensor are
float views of its storage, as ``c.real``/``c.imag``) is a strided view reported as a "view"; new
memory is adopted without a second copy and reported as ``np.<function>`` (``np.linalg.svd``:
``np.linalg`` and ``np.fft`` functions and the listed computing ones as "compute", every other one
as a "copy" with the bytes and the reason, so ``record_copies`` misses none); tuples stay tuples
(NumPy's named tuples too: ``np.linalg.svd(t).U`` is a tensor). What is not an array stays NumPy's:
Python numbers and bools (``np.allclose``), shape tuples, dtypes, ndarray subclasses (``np.matrix``,
masked arrays), arrays of a dtype strided lacks (``np.datetime64``, objects, strings) and a view
strided cannot express; if such an object may still read a tensor's memory, that tensor's storage
is pinned (``resize_`` may no longer move it), as ``np.asarray(t)`` pins it. Why tensors and not
ndarrays: the tensor methods and ``strided.*`` functions then keep working on the result (a mixed
ndarray/Tensor program is where PyTorch's and NumPy's rules silently diverge), the ledger can see
every new buffer, and NumPy's own ``np.asarray(result)`` gives the ndarray back without a copy.

NumPy functions that write into an argument (``np.copyto``, ``np.put``, ``np.place``,
``np.putmask``, ``np.fill_diagonal``, ``np.put_along_axis``: :data:`WRITERS`) get strided's write
checks on a tensor target first (read-only memory, an expanded target: strided's error, nothing
written) and report a "compute" on it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dispatch
from ..errors import StridedTypeError, StridedValueError, join_lines
from ..grad_mode import bump, refuse_numpy
from ..kernels.memory import check_writable
from ..layout import Layout
from ..scalars import numpy_scalar, uint64_beyond_int64
from ..tensor import Tensor
from .numpy_results import Results, adopt, label

_trusted = Layout._trusted

# The ufuncs NumPy's operators call, and the strided method that ``ndarray <op> tensor`` runs.
_REFLECTED = {
    "add": "__radd__", "subtract": "__rsub__", "multiply": "__rmul__", "true_divide": "__rtruediv__",
    "divide": "__rtruediv__",  # (NumPy 2's np.true_divide is np.divide: its __name__ is "divide")
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


_COMPARISONS = frozenset({"less", "less_equal", "greater", "greater_equal", "equal", "not_equal"})


def _scalar_of_comparison(name: str, x: Any) -> Any:
    """The left operand of ``x <cmp> tensor`` as PyTorch would have received it.

    NumPy hands a scalar on the left of a comparison (``np.float64(0.5) < t``) to
    ``__array_ufunc__`` as a 0-d array, though it hands ``np.float64(0.5) + t`` over as the
    scalar. PyTorch (no ``__array_ufunc__``) gets the scalar itself and reads it as a Python
    number (:func:`strided.scalars.numpy_scalar`), so the comparison computes in the tensor's
    dtype (float32 for an int tensor), not in float64. PyTorch refuses every ndarray operand, so
    reading a user's own 0-d array the same way contradicts no answer of PyTorch's.
    """
    if name in _COMPARISONS and isinstance(x, np.ndarray) and x.ndim == 0 and x.dtype.kind in "biufc":
        value = x[()]
        if uint64_beyond_int64(value):
            return value  # (above int64: the operator refuses it, as PyTorch's parser does)
        return numpy_scalar(value)
    return x



# The ufunc NumPy runs for each operator PyTorch hands to NumPy (``tensor <op> ndarray``, see
# :func:`numpy_operator`), by strided's op name (remainder is NumPy's, not strided's PyTorch one).
_NUMPY_OPERATORS = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide,
    "floor_divide": np.floor_divide, "remainder": np.remainder, "pow": np.power,
    "bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor,
    "bitwise_left_shift": np.left_shift, "bitwise_right_shift": np.right_shift, "matmul": np.matmul,
}


def numpy_operator(name: str, first: Any, second: Any) -> Any:
    """``first <op> second`` where one operand is a tensor and the other an ndarray, as PyTorch's
    operators compute it: NumPy does, with NumPy's promotion and broadcasting (``float32 tensor *
    np.array(2.5)`` is float64, ``float32 + int64 array`` is float64), on the tensor's memory read
    zero-copy; the result is a tensor, a bool one turned uint8 (PyTorch's ``__array_wrap__``:
    ``bool_tensor + bool_array`` is uint8). NumPy's errors are PyTorch's (a broadcast mismatch is
    NumPy's ValueError). Returns NotImplemented for an op PyTorch does not hand over (comparisons).

    # Note: PyTorch's operator refuses the ndarray (its parser takes tensors and numbers) and
    returns NotImplemented, so Python asks the ndarray's reflected operator, which NumPy never
    defers: NumPy converts the tensor with ``__array__`` (refused for a tensor that requires grad,
    and for bfloat16, which NumPy lacks) and wraps the result back. strided reads
    ``ndarray <op> tensor`` the same way (PyTorch raises TypeError there; NumPy's answer keeps
    ``a + t`` and ``t + a`` equal), and ``t /`` is PyTorch's ``reciprocal() *``.

    >>> (strided.ones(2) * np.array(2.5)).dtype
    strided.float64
    """
    ufunc = _NUMPY_OPERATORS.get(name)
    if ufunc is None:
        return NotImplemented
    for x in (first, second):
        if isinstance(x, Tensor) and x._dtype.name == "bfloat16":
            raise StridedTypeError(join_lines(
                "Got unsupported ScalarType BFloat16",
                f"PyTorch's operators hand an ndarray operand to NumPy, which computes on the tensor as an "
                f"array, and NumPy has no bfloat16 (tensor shape {x._layout.shape})",
                "fix: convert one side first: strided.from_numpy(array), or tensor.float()"))
    tensors: list[Any] = []
    a, b = _to_np((first, second), tensors)
    try:
        with np.errstate(all="ignore"):  # (NumPy's values: 0 for an integer // 0, inf, NaN)
            res = ufunc(a, b)
    except (ValueError, TypeError) as e:  # PyTorch's error is NumPy's: its class and first line
        shapes = " and ".join(str(np.shape(x)) for x in (a, b))
        cls = StridedValueError if isinstance(e, ValueError) else StridedTypeError
        raise cls(join_lines(
            str(e).strip(),
            f"a tensor and a NumPy array ({a.dtype} {shapes}, {b.dtype}): PyTorch's operator hands the "
            f"array to NumPy, whose {ufunc.__name__} refuses them",
            "fix: make the shapes (or dtypes) agree, or convert the array first: strided.from_numpy(array)")) from None
    if res.dtype == np.bool_:
        res = res.astype(np.uint8)  # PyTorch's __array_wrap__ (its tensors had no bool once)
    return Results(tensors, f"np.{ufunc.__name__}", "compute").convert(res, fresh=True)


def _is_foreign(x: Any) -> bool:
    """Another library's array that overrides ufuncs (NEP 13: give it its turn)."""
    hook = getattr(type(x), "__array_ufunc__", None)
    return hook is not None and not isinstance(x, (Tensor, np.ndarray, np.generic))


def _to_np(x: Any, tensors: list[Any]) -> Any:
    """``x`` with every Tensor (also inside lists and tuples) replaced by its zero-copy view; the
    caller's own ndarrays are listed in ``tensors`` too (a result over their memory is theirs)."""
    if isinstance(x, Tensor):
        refuse_numpy(x, "a NumPy function or ufunc on it")
        tensors.append(x)
        return x._np()
    if isinstance(x, np.ndarray):
        tensors.append(x)
        return x
    if isinstance(x, (list, tuple)):
        return type(x)(_to_np(v, tensors) for v in x)
    return x


def _only_tensors(seen: list[Any]) -> tuple[Tensor, ...]:
    """The tensors among the arguments :func:`_to_np` saw (the ops' inputs, for the reports)."""
    return tuple(t for t in seen if isinstance(t, Tensor))


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
            return reflected(_scalar_of_comparison(name, inputs[0]))  # ndarray <op> tensor (see the Note)
    if (method == "__call__" and not kwargs and name == "matmul"
            and all(isinstance(x, (Tensor, np.ndarray)) for x in inputs)):
        # tensor @ ndarray / ndarray @ tensor: Tensor's @ takes only tensors, so Python asks the
        # ndarray's, which calls np.matmul: NumPy's product, as PyTorch's (numpy_operator).
        return numpy_operator("matmul", inputs[0], inputs[1])
    for o in out:  # strided's checks first (read-only memory, an expanded target): nothing written on error
        if isinstance(o, Tensor):
            check_writable(o._storage, o._layout, f"np.{name}(out=)")
    if method == "at" and inputs and isinstance(inputs[0], Tensor):  # np.add.at(t, ...) updates t in place
        check_writable(inputs[0]._storage, inputs[0]._layout, f"np.{name}.at", updates=True)
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
    made = Results(tensors, f"np.{label}", "compute")
    done = []
    for r, o in zip(results, given):
        if isinstance(o, Tensor):  # NumPy wrote into the tensor's memory: one more version
            bump(o, f"np.{label}(out=...)")
            done.append(dispatch.report(f"np.{label}", _only_tensors(tensors), o))
        elif o is not None:
            done.append(r)  # the caller's ndarray
        else:
            done.append(made.convert(r, fresh=True))  # a ufunc's result never views an input
    return tuple(done) if isinstance(res, tuple) else done[0]


def array_function(self: Tensor, func: Any, types: tuple, args: tuple, kwargs: dict) -> Any:
    """NEP 18: ``np.sum(t, axis=0)``, ``np.transpose(t)``, ``np.concatenate([t, u])``, ``np.sort(t)``:
    NumPy's function on zero-copy views, its result a strided tensor (a view where NumPy's is a
    view, in NumPy's dtype: ``np.real(c)`` is a float view of a complex tensor). What is not an
    array stays NumPy's (see the module's Notes).

    >>> np.sum(strided.ones(2, 3), axis=0)
    tensor([2., 2., 2.])
    """
    if not all(issubclass(t, (Tensor, np.ndarray)) for t in types):
        return NotImplemented
    tensors: list[Any] = []
    np_args = _to_np(args, tensors)
    np_kwargs = {k: _to_np(v, tensors) for k, v in kwargs.items()}
    name = func.__name__
    out = kwargs.get("out")
    if isinstance(out, Tensor):
        check_writable(out._storage, out._layout, f"np.{name}(out=)")
    target = _written(name, args, kwargs)
    if target is not None:  # np.copyto(t, ...), np.put(t, ...): strided's write checks, nothing written on error
        check_writable(target._storage, target._layout, f"np.{name}")
    res = func(*np_args, **np_kwargs)
    for written in (out, target):
        if isinstance(written, Tensor):
            bump(written, f"np.{name}")
    if isinstance(out, Tensor):
        return dispatch.report(f"np.{name}", _only_tensors(tensors), out)
    if target is not None:
        dispatch.report(f"np.{name}", _only_tensors(tensors), target)
    if name in HANDLED:
        made = Results(tensors, f"np.{name}", "copy" if name in MOVING else "compute", _MOVED)
    else:
        what = label(func)
        made = Results(tensors, what, "compute" if _computes(func) else "copy", _FALLBACK)
    value = made.convert(res)
    made.report()
    made.pin_leaks(value, f"np.{name}(...) (Tensor.__array_function__)")
    return value


_MOVED = "{name}: NumPy's result is new memory, not a view of the input: {elements} elements copied"
_FALLBACK = ("{name}: NumPy's result is new memory, not a view of the input: {elements} elements "
             "({bytes} bytes); strided has no {name} of its own, so NumPy ran it on a zero-copy view and "
             "the result tensor adopts NumPy's array (no second copy)")

# NumPy functions that write into their first argument (np.copyto's ``dst``, np.put's ``a``).
WRITERS = frozenset({"copyto", "put", "place", "putmask", "fill_diagonal", "put_along_axis"})

# Functions outside HANDLED that compute new values (reported as "compute"); every other one's new
# memory is reported as a "copy" (sort, unique, pad, delete, ...: elements moved), so that the ledger
# misses none. Whole modules compute: np.linalg, np.fft.
_COMPUTE_MODULES = ("numpy.linalg", "numpy.fft")
_COMPUTE_FALLBACK = frozenset({
    "diff", "ediff1d", "gradient", "cross", "convolve", "correlate", "cov", "corrcoef", "histogram",
    "histogram2d", "histogramdd", "histogram_bin_edges", "bincount", "interp", "isclose", "isin",
    "searchsorted", "digitize", "count_nonzero", "nonzero", "argwhere", "flatnonzero", "argsort",
    "argpartition", "lexsort", "percentile", "quantile", "nanpercentile", "nanquantile", "nanmedian",
    "nanstd", "nanvar", "nanprod", "nancumsum", "nancumprod", "nanargmax", "nanargmin", "trapezoid",
    "polyval", "polyfit", "outer", "inner", "kron", "tensordot", "vdot", "einsum", "angle", "cumulative_sum",
    "cumulative_prod", "vecdot", "matvec", "vecmat", "isreal", "iscomplex", "i0", "sinc", "unwrap",
    "nan_to_num", "logspace", "linspace", "geomspace", "trace", "isneginf", "isposinf", "real", "imag",
    "real_if_close",
})


def _computes(func: Any) -> bool:
    module = getattr(func, "__module__", "") or ""
    return module.startswith(_COMPUTE_MODULES) or func.__name__ in _COMPUTE_FALLBACK


def _written(name: str, args: tuple, kwargs: dict) -> Tensor | None:
    """The tensor a NumPy function that writes into an argument (:data:`WRITERS`) will write into."""
    if name not in WRITERS:
        return None
    first = args[0] if args else next((kwargs[k] for k in ("dst", "a", "arr") if k in kwargs), None)
    return first if isinstance(first, Tensor) else None


Tensor.__array_ufunc__ = array_ufunc  # type: ignore[assignment]
Tensor.__array_function__ = array_function  # type: ignore[attr-defined]

# (the name strided.array_api's adapter imports; the function lives in numpy_results now)
_adopt = adopt
