"""``explain`` for binary elementwise ops: the broadcast, who stretches, and the result's strides.

For ``x`` of any of the three libraries and a second operand (an array of any library, a Python
number, or a plain shape tuple) this predicts what ``op(x, other)`` gives without running it:
the broadcast result shape, each operand's stretched dims, whether the broadcast is
**bilateral** (both operands stretched: the ``(B, 1) - (B,)`` -> ``(B, B)`` bug), and the
result's strides as *that* library lays them out:

- strided and PyTorch: TensorIterator's rule, :func:`strided.layout.elementwise_output_strides`
  (the one strided's own ops use), with PyTorch's detail that an operand whose dtype differs
  from the computation dtype counts with the dense strides of its converted copy;
- NumPy: the ufunc's ``order="K"`` rule (:func:`strided.layout.numpy_elementwise_output_strides`): the trivial-loop
  shortcut for same-shape contiguous operands, else the iterator's axis ordering.

A shape mismatch is predicted as an error with the library's class (PyTorch RuntimeError,
NumPy ValueError). Dtype errors (a bitwise op on floats, ...) are not predicted: only the
layout is.
"""

from __future__ import annotations

import operator
import sys
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import layout as L
from ..layout import (
    contiguous_strides,
    elementwise_output_strides,
    numpy_elementwise_output_strides,
    preserve_format_strides,
)
from ..ops.elementwise.binary import BinaryOp
from ..ops.shape.broadcasting import broadcast_pair
from ..ops.table import OPS
from ..tensor import Tensor
from .explain_numpy import check_element_strides
from .flow import broadcast_of
from .report import Explanation, Fix

__all__ = ["ELEMENTWISE_OPS", "Operand", "check_strided_layout", "explain_elementwise", "library_of", "operand_of"]

# Python's operators as functions of the operator module (whose names, "truediv" for "/", are
# accepted beside the registry's names, as NumPy's function names are: "less" for lt)
INFIX = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv, "//": operator.floordiv,
         "%": operator.mod, "**": operator.pow, "==": operator.eq, "!=": operator.ne, "<": operator.lt,
         "<=": operator.le, ">": operator.gt, ">=": operator.ge, "&": operator.and_, "|": operator.or_,
         "^": operator.xor}
_NUMPY_NAMES = {"equal": "eq", "not_equal": "ne", "less": "lt", "less_equal": "le", "greater": "gt",
                "greater_equal": "ge", "power": "pow", "mod": "remainder", "fmax": "maximum", "fmin": "minimum"}


def _binary_ops() -> dict[str, tuple[str, str]]:
    """name -> (dtype kind, infix symbol or ""), for every name of the registry's binary elementwise
    ops (those with a ``BinaryOp`` descriptor: its ``kind`` and ``symbol``), then the operator
    module's and NumPy's names for them."""
    ops = {name: (op.spec.kind, op.spec.symbol) for name, op in OPS.items() if isinstance(op.spec, BinaryOp)}
    by_symbol = {symbol: entry for entry in ops.values() for symbol in (entry[1],) if symbol}
    for symbol, fn in INFIX.items():
        ops.setdefault(fn.__name__, by_symbol[symbol])
    for name, ours in _NUMPY_NAMES.items():
        ops.setdefault(name, ops[ours])
    return ops


# name -> (kind, infix symbol or ""), read off the op registry
_OPS: dict[str, tuple[str, str]] = _binary_ops()
ELEMENTWISE_OPS: tuple[str, ...] = tuple(_OPS)
"""The binary elementwise op names ``explain`` accepts for any library (operator-module names
such as ``truediv``, ``and_``; PyTorch's ``sub``, ``div``; NumPy's ``subtract``, ``divide``, ...).
All lay their result out alike; of the dtype rules, only the refusals are predicted (for NumPy and
PyTorch, by the op itself on zero-size stand-ins), not the result's dtype."""

Shape = tuple[int, ...]


@dataclass(frozen=True)
class Operand:
    """One operand as the broadcast sees it: ``shape``, ``strides`` (elements), ``dtype`` name,
    ``kind`` ("array", "scalar" or "shape"), ``library`` and the ``value`` (for dtype rules)."""

    shape: Shape
    strides: Shape
    dtype: str
    kind: str
    library: str
    value: Any = None


def library_of(x: Any) -> str | None:
    """"strided", "numpy" or "torch" for an array of that library (subclasses included), else
    None (torch is never imported to tell: a torch tensor exists only once torch is imported)."""
    if isinstance(x, Tensor):
        return "strided"
    if isinstance(x, np.ndarray):
        return "numpy"
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(x, torch.Tensor):
        return "torch"
    return None


def check_strided_layout(x: Any, what: str = "x") -> None:
    """A torch tensor without (shape, strides, offset) — sparse, nested, mkldnn — has no layout
    to explain: refused with TypeError (torch itself would raise NotImplementedError or an
    internal RuntimeError deep inside when asked for its strides or storage)."""
    kind = str(x.layout).removeprefix("torch.")
    if kind != "strided" or x.is_nested:
        kind_words = "a nested tensor" if x.is_nested else f"a {kind} tensor"
        raise TypeError(f"explain: {what} is {kind_words}; explain reads strided layouts (shape, strides, "
                        "offset) only: pass a dense tensor (x.to_dense() for a sparse one)")


def operand_of(value: Any, like: Operand | None = None) -> Operand:
    """The :class:`Operand` of an array of any library, a Python/NumPy number, or a shape tuple
    (a contiguous array of ``like``'s dtype); TypeError naming the accepted kinds otherwise."""
    lib = library_of(value)
    if lib == "strided":
        lay = value.layout
        return Operand(lay.shape, lay.strides, value.dtype.name, "array", lib, value)
    if lib == "torch":
        check_strided_layout(value, "the second operand")
        return Operand(tuple(value.shape), tuple(value.stride()), str(value.dtype).removeprefix("torch."),
                       "array", lib, value)
    if lib == "numpy":
        item = check_element_strides(value, "the second operand")
        return Operand(value.shape, tuple(s // item for s in value.strides), value.dtype.name, "array", lib, value)
    if isinstance(value, (bool, int, float, complex)) or type(value).__module__ == "numpy" and hasattr(value, "dtype"):
        return Operand((), (), type(value).__name__, "scalar", "python", value)
    if isinstance(value, list):
        # NumPy reads a list as data (x + [1, 2, 3, 4] adds a (4,) array), PyTorch refuses it:
        # taken as a shape it would predict another result than either library gives
        raise TypeError(
            f"explain: a list as the second operand is ambiguous ({value!r:.40}): NumPy reads it as data, "
            "PyTorch refuses it; pass a shape as a tuple, or the data as an array (np.asarray(...))"
        )
    if isinstance(value, tuple) and all(isinstance(n, int) and not isinstance(n, bool) for n in value):
        shape = tuple(value)
        dtype = like.dtype if like is not None else "float32"
        return Operand(shape, contiguous_strides(shape), dtype, "shape", like.library if like else "", None)
    raise TypeError(
        "explain: the second operand of an elementwise op must be a strided Tensor, a numpy.ndarray, "
        f"a torch.Tensor, a Python number or a shape tuple of ints, not {type(value).__name__}"
    )


# ---------------------------------------------------------------- PyTorch's dtype detail


def _torch_converted(op: str, x: Operand, other: Operand) -> tuple[bool, bool]:
    """Whether each operand is converted (a ``.to()`` copy in preserve_format) before PyTorch's
    kernel runs: its dtype is not the computation dtype."""
    import torch

    def proxy(o: Operand) -> Any:
        if o.kind == "scalar":
            v = o.value
            return v.item() if hasattr(v, "item") else v
        name = o.dtype if hasattr(torch, o.dtype) else "float32"
        return torch.empty((0,) * len(o.shape), dtype=getattr(torch, name))

    px, po = proxy(x), proxy(other)
    try:
        common = torch.result_type(px, po)
    except (TypeError, RuntimeError):
        return False, False
    if _OPS[op][0] == "div" and not (common.is_floating_point or common.is_complex):
        common = torch.get_default_dtype()
    return (x.kind != "scalar" and px.dtype != common, other.kind != "scalar" and po.dtype != common)


def _strided_converted(op: str, x: Operand, other: Operand) -> tuple[bool, bool]:
    from ..dtypes import to_dtype
    from ..ops._support.promotion import result_type, to_float

    def proxy(o: Operand) -> Any:
        if o.kind == "scalar":
            v = o.value
            return v.item() if hasattr(v, "item") else v
        try:
            d = to_dtype(o.dtype)
        except TypeError:
            return None
        t = object.__new__(Tensor)
        t._layout = L.Layout((0,) * len(o.shape), (1,) * len(o.shape), 0)
        t._dtype = d
        t._ag = None
        return t

    px, po = proxy(x), proxy(other)
    if px is None or po is None or isinstance(po, complex):
        return False, False
    try:
        common = result_type(px, po)
    except TypeError:
        return False, False
    if _OPS[op][0] == "div":
        common = to_float(common)
    return (isinstance(px, Tensor) and px._dtype is not common, isinstance(po, Tensor) and po._dtype is not common)


def _numpy_casts(op: str, x: Operand, other: Operand) -> bool:
    """Whether NumPy's loop casts an array operand (its dtype is not the loop's): then the
    ufunc skips its trivial loop and lays the output out with the iterator."""
    import numpy as np

    def proxy(o: Operand) -> Any:
        if o.kind == "scalar":
            return o.value
        try:
            return np.empty((0,) * len(o.shape), np.dtype(o.dtype))
        except TypeError:
            return np.empty((0,) * len(o.shape))

    px, po = proxy(x), proxy(other)
    try:
        loop = np.result_type(px, po)
    except TypeError:
        return True
    if _OPS[op][0] == "div" and loop.kind in "biu":
        loop = np.dtype(np.float64)
    return any(isinstance(p, np.ndarray) and p.dtype != loop for p in (px, po))


def torch_output_strides(op: str, shape: Shape, x: Operand, other: Operand, library: str) -> Shape:
    """TensorIterator's output strides for ``op(x, other)`` (strided's rule, with PyTorch's
    conversions: an operand of another dtype counts with its converted copy's dense strides;
    ``tensor ** number`` is laid out as a unary op of the tensor)."""
    conv = _torch_converted(op, x, other) if library == "torch" else _strided_converted(op, x, other)
    layouts = []
    for o, c in zip((x, other), conv):
        if o.kind == "scalar":
            layouts.append(((), ()))
        else:
            layouts.append((o.shape, preserve_format_strides(o.shape, o.strides) if c else o.strides))
    if _OPS[op][0] == "pow" and other.kind == "scalar":
        layouts = layouts[:1]
    return elementwise_output_strides(shape, layouts)


# ---------------------------------------------------------------- the prediction


def _np_shape(s: Shape) -> str:
    return "(" + ",".join(map(str, s)) + ("," if len(s) == 1 else "") + ")"


def _mismatch(library: str, x: Operand, other: Operand) -> tuple[str, str] | None:
    """(class, message) of the broadcast error, or None when the shapes broadcast."""
    if library == "numpy":
        if isinstance(L.broadcast_pair(x.shape, other.shape), tuple):
            return None
        return ("ValueError", f"operands could not be broadcast together with shapes {_np_shape(x.shape)} "
                f"{_np_shape(other.shape)} ")
    try:
        broadcast_pair(x.shape, other.shape)
    except RuntimeError as exc:
        return "RuntimeError", str(exc)
    return None


def _dtype_refusal(op: str, library: str, x: Operand, other: Operand) -> tuple[str, str] | None:
    """(class, first line) of the error the library raises for the operands' *dtypes* (NumPy's
    ``bool - bool``, a Python int out of an integer dtype's bounds (NEP 50), PyTorch's bool
    subtraction, a bitwise op on floats, ...), found by running the op on zero-size stand-ins
    of the operands' dtypes and ranks (no memory; a 0-d stand-in holds a 1, which no op refuses:
    the refusal never depends on x's data); None when the dtypes are accepted."""
    import operator

    if library == "numpy":
        lib: Any = np
    elif library == "torch":
        import torch as lib
    else:
        return None  # (strided's own dtype rules: not predicted here)
    fn = getattr(operator, op, None) or getattr(lib, op, None)
    if fn is None:
        return None

    def proxy(o: Operand) -> Any:
        if o.kind == "scalar":
            v = o.value
            return v if library == "numpy" else (v.item() if hasattr(v, "item") else v)
        if library == "numpy":
            try:
                return np.ones((0,) * len(o.shape), np.dtype(o.dtype))
            except TypeError:  # a torch dtype NumPy lacks (bfloat16): not predicted
                return None
        dtype = getattr(lib, o.dtype, None)
        return lib.ones((0,) * len(o.shape), dtype=dtype) if isinstance(dtype, lib.dtype) else None

    px, po = proxy(x), proxy(other)
    if px is None or po is None:
        return None
    try:
        with np.errstate(all="ignore"):
            fn(px, po)
    except Exception as exc:  # noqa: BLE001 - the library's own refusal is the prediction
        cls = next((c.__name__ for c in type(exc).__mro__ if c.__module__ == "builtins"), type(exc).__name__)
        return cls, str(exc).split("\n", 1)[0]
    return None


def _spell(op: str, library: str, a: str, b: str) -> str:
    symbol = _OPS[op][1]
    if symbol:
        return f"{a} {symbol} {b}"
    lib = {"torch": "torch", "numpy": "np", "strided": "strided"}[library]
    return f"{lib}.{op}({a}, {b})"


def _size_words(shape: Shape, itemsize: int) -> str:
    return f"{shape} ({L.product(shape) * itemsize:,} bytes)"


def explain_elementwise(x: Any, op: str, other: Any, library: str, itemsize: int) -> Explanation:
    """What ``op(x, other)`` would give in ``library``: outcome "compute" (or "error" for a shape
    mismatch), the broadcast result shape and strides, and the broadcast with its stretched dims.

    >>> r = explain_elementwise(torch.zeros(4, 1), "sub", torch.zeros(4), "torch", 4)
    >>> r.shape, r.broadcast.bilateral
    ((4, 4), True)
    """
    xo = operand_of(x)
    oo = operand_of(other, xo)
    if oo.kind == "shape":
        oo = Operand(oo.shape, oo.strides, xo.dtype, "shape", library)
    call = _spell(op, library, "x", "other" if oo.kind != "scalar" else repr(oo.value))
    base = dict(library=library, op=op, call=call, input_shape=xo.shape, input_strides=xo.strides,
                input_offset=_offset(x, library), itemsize=itemsize)
    # NumPy resolves the loop's dtypes before it broadcasts; PyTorch broadcasts first (its
    # bool-subtraction check comes earlier, but raises the same class as a mismatch)
    typed = _dtype_refusal(op, library, xo, oo)
    bad = _mismatch(library, xo, oo)
    if typed is not None and (bad is None or library == "numpy"):
        cls, first = typed
        return Explanation(outcome="error", error=f"{cls}: {first}",
                           reason=f"{cls}: {first}\nthe operands' dtypes ({xo.dtype} and "
                                  f"{oo.dtype if oo.kind != 'scalar' else type(oo.value).__name__}) are refused "
                                  f"by {op}, whatever the shapes", **base)
    if bad is not None:
        cls, msg = bad
        first = msg.split("\n", 1)[0]
        details = [ln.strip() for ln in msg.splitlines()[1:]]
        reason = "\n".join([f"{cls}: x {xo.shape} and other {oo.shape} do not broadcast: aligned from "
                            "the right, each dim must be equal or 1 in one of them", *details[:1]])
        return Explanation(outcome="error", error=f"{cls}: {first}", reason=reason,
                           fixes=_mismatch_fixes(op, library, xo.shape, oo.shape, itemsize), **base)
    if _OPS[op][0] == "minmax" and oo.kind == "scalar" and library in ("torch", "strided"):
        first = f"{op}(): argument 'other' (position 2) must be Tensor, not {type(oo.value).__name__}"
        return Explanation(outcome="error", error=f"TypeError: {first}",
                           reason=f"TypeError: {op} takes two tensors; for a number use x.clamp(...)", **base)
    shape = L.broadcast_pair(xo.shape, oo.shape)
    assert isinstance(shape, tuple)
    if library == "numpy":
        strides = numpy_elementwise_output_strides(shape, [(xo.shape, xo.strides), (oo.shape, oo.strides)],
                                       _numpy_casts(op, xo, oo))
    else:
        strides = torch_output_strides(op, shape, xo, oo, library)
    bc = broadcast_of(op, [xo.shape, oo.shape if oo.kind != "scalar" else ()], shape)
    reason, fixes = _broadcast_words(op, library, xo, oo, shape, bc, itemsize)
    return Explanation(outcome="compute", shape=shape, strides=strides, offset=0, reason=reason,
                       fixes=fixes, broadcast=bc, **base)


def _offset(x: Any, library: str) -> int:
    if library == "numpy":
        return 0
    return x.storage_offset()


def _stretch_words(name: str, shape: Shape, dims: tuple[int, ...], result: Shape) -> str:
    lead = len(result) - len(shape)
    parts = []
    for d in dims:
        k = d - lead
        parts.append(f"dim {d} ({'missing' if k < 0 else '1'} -> {result[d]})")
    return f"{name} {shape} stretches along " + ", ".join(parts)


def _broadcast_words(op: str, library: str, x: Operand, other: Operand, shape: Shape, bc: Any,
                     itemsize: int) -> tuple[str, tuple[Fix, ...]]:
    if bc is None:
        return f"no operand is stretched: the result has x's shape {shape}", ()
    lines = []
    for name, o, dims in zip(("x", "other"), (x, other), bc.stretched):
        if dims:
            lines.append(_stretch_words(name, o.shape, dims, shape))
    if not bc.bilateral:
        return "\n".join(["a one-sided broadcast (only one operand stretched)", *lines]), ()
    lines.insert(0, f"bilateral broadcast: BOTH operands stretch, so the result {_size_words(shape, itemsize)} "
                    f"pairs every element of x with every element of other — the (B, 1) - (B,) kind. "
                    "If an elementwise result was meant, line the dims up:")
    return "\n".join(lines), _bilateral_fixes(op, library, x.shape, other.shape, itemsize)


def _mismatch_fixes(op: str, library: str, xs: Shape, os: Shape, itemsize: int) -> tuple[Fix, ...]:
    """When ``other``'s shape is x's leading dims (a per-row value against (rows, cols)), give it
    trailing size-1 dims; likewise the other way round."""
    fixes = []
    if os and len(os) < len(xs) and xs[:len(os)] == os:
        index = ", ".join([":"] * len(os) + ["None"] * (len(xs) - len(os)))
        fixes.append(Fix(_spell(op, library, "x", f"other[{index}]"), 0,
                         f"the result is {_size_words(xs, itemsize)}"))
    elif xs and len(xs) < len(os) and os[:len(xs)] == xs:
        index = ", ".join([":"] * len(xs) + ["None"] * (len(os) - len(xs)))
        fixes.append(Fix(_spell(op, library, f"x[{index}]", "other"), 0,
                         f"the result is {_size_words(os, itemsize)}"))
    return tuple(fixes)


def _bilateral_fixes(op: str, library: str, xs: Shape, os: Shape, itemsize: int) -> tuple[Fix, ...]:
    """Squeeze x's extra size-1 dims, or give ``other`` x's size-1 dims: when either makes the
    shapes equal (the usual cause: a (B, 1) prediction against a (B,) target)."""
    fixes = []
    squeezed = tuple(n for n in xs if n != 1)
    ones = tuple(d for d, n in enumerate(xs) if n == 1)
    if ones and squeezed == tuple(n for n in os if n != 1) and len(os) == len(squeezed):
        sq = f"x.squeeze({ones[0]})" if len(ones) == 1 else f"x.squeeze({ones})" if library != "numpy" \
            else f"x.squeeze({ones})"
        fixes.append(Fix(_spell(op, library, sq, "other"), 0,
                         f"the result is {_size_words(os, itemsize)}"))
        index = ", ".join("None" if n == 1 else ":" for n in xs)
        fixes.append(Fix(_spell(op, library, "x", f"other[{index}]"), 0,
                         f"the result is {_size_words(xs, itemsize)}"))
    squeezed_o = tuple(n for n in os if n != 1)
    ones_o = tuple(d for d, n in enumerate(os) if n == 1)
    if not fixes and ones_o and squeezed_o == tuple(n for n in xs if n != 1) and len(xs) == len(squeezed_o):
        index = ", ".join("None" if n == 1 else ":" for n in os)
        fixes.append(Fix(_spell(op, library, f"x[{index}]", "other"), 0,
                         f"the result is {_size_words(os, itemsize)}"))
    return tuple(fixes)
