"""Reading arguments as PyTorch's argument parser reads them: ints, sizes, dims, numbers.

A ground module (it imports only :mod:`strided.errors` and NumPy's scalar types), so that
the layout algebra, ``tensor``, ``indexing``, the factories and the ops can share one answer
to "is this an int?" and the same PyTorch argument errors (some op families still test
``isinstance`` themselves, for their own error texts; new code reads arguments here):

- :func:`_int_kind` classifies a value where an int goes, under one of three rules:
  ``"int"`` (dims, ``chunk``, ``unfold``, ...), ``"size"`` (PyTorch's SymInt: sizes,
  strides, offsets, ``select``'s index, ``narrow``'s length) and ``"index"`` (an integer
  inside ``t[...]``). Everything else here is built on it: :func:`index_of`,
  :func:`as_int`, :func:`is_index_scalar`, :func:`is_dim_int`, :func:`is_index_int`,
  :func:`int_arg`, :func:`parse_sizes`.
- sizes and dims given as ``f(2, 3)`` or ``f((2, 3))`` (:func:`parse_sizes`, :func:`dims_arg`);
- split/chunk sizes along one dim (:func:`split_sizes`, :func:`chunk_count`), pure over a shape;
- PyTorch's argument errors (:func:`missing`, :func:`type_name`, :func:`no_dims`, ...);
- Python numbers as fill values (:func:`is_number`, :func:`scalar_value`) and bool flags
  (:func:`check_keepdim`).

Pure: no tensors are built and no data is read; a tensor argument is read through its
``numel()``, ``shape``, ``dtype`` and ``__index__`` only (strided's and torch's alike).
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from .callsite import user_site
from .errors import (
    StridedIndexError,
    StridedOverflowError,
    StridedRuntimeError,
    StridedTypeError,
    join_lines,
)
from .memory_format import MemoryFormat

__all__ = [
    "as_int",
    "check_keepdim",
    "check_piece_count",
    "check_not_0d",
    "chunk_count",
    "dims_arg",
    "float_arg",
    "arg_type_name",
    "index_of",
    "int_arg",
    "is_dim_int",
    "is_index_int",
    "is_index_scalar",
    "is_number",
    "memory_format_error",
    "missing",
    "no_dims",
    "parse_sizes",
    "scalar_value",
    "split_sizes",
    "split_step",
    "type_name",
    "unflatten_sizes",
]

_INT64 = 2**63
Rule = Literal["int", "size", "index"]

# ---------------------------------------------------------------- the one int reader


# PyTorch 2.13's reading of a list key (torch/csrc/autograd/python_variable_indexing.cpp,
# treatSequenceAsTuple, NumPy's old heuristic): a list shorter than 32 holding a sequence, a
# tensor, a slice, None or ... is a TUPLE of indices, with this deprecation warning; any other list
# is one index tensor. (PyTorch announces the change for a later release; 2.13 still does this.)
_SEQUENCE_KEY_WARNING = (
    "Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed in pytorch 2.9; "
    "use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be interpreted as tensor index, "
    "x[torch.tensor(seq)], which will result either in an error or a different result")


def index_key(key: Any) -> Any:
    """``t[key]``'s key as PyTorch 2.13 reads it: a short list holding a sequence, tensor, slice,
    None or ``...`` becomes the tuple of its items (with PyTorch's deprecation warning); any other
    key is returned as it is.

    >>> import warnings; warnings.simplefilter("ignore")
    >>> index_key([[0, 1], [1, 0]]), index_key([0, 1]), index_key((0, 1))
    (([0, 1], [1, 0]), [0, 1], (0, 1))
    """
    if key.__class__ is not list or len(key) >= 32:
        return key
    for item in key:
        if (item is None or item is Ellipsis or isinstance(item, (list, tuple, slice, range, str, bytes, np.ndarray))
                or _is_tensor_like(item)):
            warnings.warn(_SEQUENCE_KEY_WARNING, UserWarning, stacklevel=user_site(2)[1])
            return tuple(key)
    return key


def _is_tensor_like(value: object) -> bool:
    """A tensor (strided's or torch's): it has ``numel()``; NumPy arrays and scalars do not."""
    return callable(getattr(value, "numel", None))


def _int_kind(value: object, rule: Rule = "int") -> str:
    """How ``value`` is read where an int goes, under ``rule``.

    Returns 'int' (``value.__index__()`` gives the int), 'bool' (a truth value of any kind:
    Python's, NumPy's, a bool array or tensor; refused with TypeError), 'bool tensor' (a
    one-element bool tensor in a size, which PyTorch lets through its type check and then
    refuses with RuntimeError) or 'no' (refused with TypeError: floats, arrays with dims,
    objects without ``__index__``).

    The rules, all taking Python ints, NumPy integer scalars and 0-d integer tensors:

    - ``"int"``: PyTorch's plain int (dims, ``chunk``, ``unfold``, ``diagonal``'s offset).
    - ``"size"``: PyTorch's SymInt (sizes, strides, offsets, ``select``'s index, ``narrow``'s
      length), which also takes integer tensors of one element whatever their ndim, and 0-d
      integer NumPy arrays.
    - ``"index"``: an integer inside ``t[...]``, as PyTorch's and NumPy's indexing read it:
      anything 0-d with ``__index__`` whose dtype (if any) is neither bool nor float, so 0-d
      integer NumPy arrays too, and never a bool (Python's, NumPy's, a 0-d bool tensor: masks)
      nor a 0-d uint8 array or tensor (a byte mask in PyTorch; a NumPy uint8 scalar is an int).
    """
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, numbers.Integral):  # int and NumPy integer scalars (not NumPy's bool)
        return "int"
    if isinstance(value, type):  # a class (np.float32): its `dtype`/`shape` are descriptors
        return "no"
    dtype = str(getattr(value, "dtype", ""))
    if rule == "index":
        if not hasattr(value, "__index__") or tuple(getattr(value, "shape", ())) != ():
            return "no"
        if "bool" in dtype or dtype.endswith("uint8"):
            return "bool"  # a 0-d uint8 array or tensor is a (deprecated) byte mask, as in PyTorch
        return "no" if "float" in dtype else "int"
    size = rule == "size"
    if _is_tensor_like(value):
        one = value.numel() == 1  # type: ignore[attr-defined]
        if "bool" in dtype:
            return "bool tensor" if size and one else "bool"
        if "int" not in dtype:
            return "no"
        return "int" if tuple(value.shape) == () or (size and one) else "no"  # type: ignore[attr-defined]
    if "bool" in dtype:
        return "bool"  # np.bool_ and bool arrays: NumPy gives them no __index__
    if dtype:  # a NumPy array or an array-like: PyTorch takes a 0-d integer one as a size only
        return "int" if size and "int" in dtype and tuple(getattr(value, "shape", ())) == () else "no"
    return "int" if hasattr(value, "__index__") else "no"


def is_index_scalar(value: object) -> bool:
    """A NumPy integer or a 0-d integer tensor: what PyTorch takes where a plain int (a dim) goes."""
    return not isinstance(value, int) and _int_kind(value) == "int"


def is_dim_int(value: object) -> bool:
    """A dim: an int, a NumPy integer or a 0-d integer tensor; never a bool of any kind (PyTorch's int).

    >>> is_dim_int(1), is_dim_int(True), is_dim_int(1.0)
    (True, False, False)
    """
    return _int_kind(value) == "int"


def is_index_int(item: object) -> bool:
    """An integer index of ``t[...]``: ints, NumPy integer scalars, 0-d integer arrays and tensors.

    Bools (Python's, NumPy's, 0-d bool tensors) are masks, and arrays/tensors with dims are
    advanced indices: neither is an integer here.

    >>> is_index_int(2), is_index_int(np.array(2)), is_index_int(np.array([2]))
    (True, True, False)
    """
    return _int_kind(item, "index") == "int"


def index_of(value: object, what: str, size: bool = False) -> int:
    """The int ``value`` stands for where PyTorch takes an int, refused as PyTorch refuses it.

    ``what`` names the argument (``"select(): argument 'index' (position 2)"``); ``size`` selects
    PyTorch's rule for sizes (see :func:`_int_kind`). Raises StridedTypeError, or
    StridedRuntimeError for a bool tensor given as a size (PyTorch's class for it).

    >>> index_of(np.int8(3), "dim")
    3
    """
    kind = _int_kind(value, "size" if size else "int")
    name = "Tensor" if _is_tensor_like(value) else type(value).__name__
    shape = () if isinstance(value, type) else tuple(getattr(value, "shape", ()))
    if kind == "bool tensor":
        raise StridedRuntimeError(
            join_lines(
                "Expected scalar.isIntegral( false) to be true, but got false.",
                f"{what} got a bool tensor of shape {shape}: a bool is a truth value, not a count "
                "or a position; pass an integer: int(t) or t.to(strided.int64)",
            )
        )
    if kind == "bool":
        raise StridedTypeError(
            join_lines(
                f"{what} must be int, not {name}",
                f"got the bool {value!r:.40}: a truth value, not a count or a position; "
                "pass an int (int(...) converts True to 1)",
            )
        )
    reason = ""
    if kind == "int":
        try:
            return value.__index__()  # type: ignore[attr-defined]
        except (TypeError, ValueError, RuntimeError) as err:  # e.g. a custom __index__ that fails
            reason = f" ({err})"
    rule = ("an int, a NumPy integer, or an integer tensor of one element" if size
            else "an int, a NumPy integer, or a 0-d integer tensor")
    if isinstance(value, type):
        got = f"the class {value.__module__}.{value.__qualname__} itself"
    else:
        dtype = getattr(value, "dtype", None)
        got = f"{name} of shape {shape}{'' if dtype is None else f' and dtype {dtype}'}"
    raise StridedTypeError(
        join_lines(
            f"{what} must be int, not {name}",
            f"got {got}, which is not one integer{reason}; pass {rule} (int(...) converts)",
        )
    )


def as_int(value: object, what: str) -> int:
    """A size, stride or offset of ``Layout(...)`` (``as_strided``): an int read as a PyTorch size.

    Python bools are refused with their own TypeError (a truth value is not a count); the rest
    is :func:`index_of` with ``size=True``.
    """
    if isinstance(value, bool) or not (hasattr(value, "__index__") or _is_tensor_like(value)):
        raise StridedTypeError(
            join_lines(
                f"{what} must contain only integers, but got {type(value).__name__} {value!r:.40}",
                "each entry counts elements, so it must be a whole number; "
                "pass ints (int(...) converts)",
            )
        )
    return index_of(value, what, size=True)


def _may_be_int(value: object) -> bool:
    """Whether PyTorch's parser looks further at ``value`` where an int goes (else its plain TypeError)."""
    return not isinstance(value, bool) and (
        isinstance(value, int) or hasattr(value, "__index__") or hasattr(value, "dtype")
    )


def int_arg(value: Any, op: str, name: str, pos: int, size: bool = False) -> int:
    """An int argument as PyTorch's parser takes it: ints and integer scalars, not bool or float.

    ``size=True`` for PyTorch's SymInt arguments (``select``'s index, ``narrow``'s length),
    which also take integer tensors of one element (see :func:`_int_kind`).

    >>> int_arg(np.int64(2), "chunk", "chunks", 1)
    2
    """
    if type(value) is int and -_INT64 <= value < _INT64:
        return value
    if not _may_be_int(value):
        raise StridedTypeError(
            join_lines(
                f"{op}(): argument '{name}' (position {pos}) must be int, not {type(value).__name__}",
                f"got {name}={value!r:.60}; {name} must be a whole number: "
                "pass an int (int(...) converts)",
            )
        )
    what = f"{op}(): argument '{name}' (position {pos})"
    result = value if type(value) is int else index_of(value, what, size=size)
    if not -_INT64 <= result < _INT64:
        raise StridedOverflowError(
            f"Overflow when unpacking long long\n  {what} is {result}, which does not fit in int64"
        )
    return result


def float_arg(value: Any, op: str, name: str, pos: int | None) -> float:
    """A ``float`` (C++ double) argument as PyTorch's parser takes it: Python bools, ints and
    floats, NumPy bool/integer/float scalars, and 0-d tensors of any dtype (their value; a
    complex one's real part); TypeError ``"{op}(): argument '{name}' (position {pos}) must be
    float, not {type}"`` for anything else (strings, None, Python complex, arrays, tensors with
    dims; ``pos`` None: without the position, PyTorch's text for a keyword argument). An int too
    large for a float is Python's OverflowError, as in PyTorch.

    >>> float_arg(True, "cdist", "p", 3), float_arg(np.int64(2), "cdist", "p", 3)
    (1.0, 2.0)
    """
    if value.__class__ is float:
        return value
    if isinstance(value, (bool, int, float)) or (isinstance(value, np.generic) and value.dtype.kind in "biuf"):
        return float(value)
    layout = getattr(value, "_layout", None)  # (a tensor: this layer does not import the class)
    if layout is not None and not layout.shape:
        item = value.item()
        return float(item.real if isinstance(item, complex) else item)
    raise StridedTypeError(
        join_lines(
            f"{op}(): argument '{name}'{'' if pos is None else f' (position {pos})'} must be float, "
            f"not {arg_type_name(value)}",
            f"got {name}={value!r:.60}; pass a number",
        )
    )


# ---------------------------------------------------------------- sizes and dims


def parse_sizes(args: Sequence[Any], op: str) -> tuple[int, ...]:
    """Sizes given as ints (``f(2, 3)``) or as one sequence (``f((2, 3))``).

    >>> parse_sizes((2, 3), "view"), parse_sizes(([2, 3],), "view")
    ((2, 3), (2, 3))
    """
    if len(args) == 1 and type(args[0]) in (tuple, list):
        args = args[0]
    elif len(args) == 1 and isinstance(args[0], (tuple, list)):  # torch.Size, a namedtuple
        args = tuple(args[0])
    for a in args:  # the hot path: plain in-range ints, checked without a call
        if type(a) is not int or not -_INT64 <= a < _INT64:
            return _parse_sizes_slow(args, op)
    return tuple(args)


def size_sequence(size: Any, fill_value: Any, op: str) -> None:
    """PyTorch's TypeError when ``op(size, fill_value)`` (``full``, ``new_full``) gets ``size``
    as something other than a tuple or list: those factories take no varargs sizes.

    >>> size_sequence((2,), 1.0, "full")
    >>> size_sequence(2, 1.0, "full")
    Traceback (most recent call last):
    ...
    strided.errors.StridedTypeError: full(): argument 'size' (position 1) must be tuple of ints, not int
      fix: pass the size as a tuple, full((2,), 1.0)
    """
    if not isinstance(size, (tuple, list)):
        fix = (f"got the class {size.__module__}.{size.__qualname__} itself, not a size: pass the sizes "
               f"first, {op}((2, 3), {fill_value!r:.40}, dtype=...)" if isinstance(size, type)
               else f"fix: pass the size as a tuple, {op}(({size!r:.40},), {fill_value!r:.40})")
        raise StridedTypeError(
            f"{op}(): argument 'size' (position 1) must be tuple of ints, not {type_name(size)}\n  {fix}"
        )


def missing_size(op: str) -> StridedTypeError:
    """PyTorch's TypeError for a factory given no sizes at all (``zeros()``, ``t.new_ones()``).

    >>> print(missing_size("zeros"))
    zeros() missing 1 required positional arguments: "size"
      a 0-d tensor is zeros(()); give the sizes as ints or one tuple, e.g. zeros(2, 3)
    """
    return StridedTypeError(join_lines(
        f'{op}() missing 1 required positional arguments: "size"',
        f"a 0-d tensor is {op}(()); give the sizes as ints or one tuple, e.g. {op}(2, 3)",
    ))


def sizes_or_size(sizes: tuple[Any, ...], size: Any, op: str) -> tuple[int, ...]:
    """The sizes of a factory called ``op(*sizes)`` or ``op(size=...)`` (PyTorch's keyword), with
    PyTorch's TypeErrors for both at once and for a keyword that is not a sequence.

    >>> sizes_or_size((), (2, 3), "zeros"), sizes_or_size((2, 3), None, "zeros")
    ((2, 3), (2, 3))
    """
    if size is None:
        if not sizes:  # (zeros(): PyTorch's TypeError; zeros(()) is the 0-d tensor)
            raise missing_size(op)
        return parse_sizes(sizes, op)
    if sizes:
        raise StridedTypeError(f"{op}() got multiple values for argument 'size'")
    if not isinstance(size, (tuple, list)):
        raise StridedTypeError(join_lines(
            f"{op}(): argument 'size' must be tuple of ints, not {type(size).__name__}",
            f"size={size!r:.40}: as a keyword the sizes are one sequence, e.g. {op}(size=(2, 3))",
        ))
    return parse_sizes((size,), op)


def _parse_sizes_slow(args: Sequence[Any], op: str) -> tuple[int, ...]:
    """``parse_sizes`` for anything but plain in-range ints, read as PyTorch reads a size list.

    NumPy integers, 0-d integer arrays and integer tensors of one element are sizes; bools of
    every kind are not (see :func:`index_of`); a size must fit in int64.
    """
    # (one list or tuple of sizes was unwrapped by parse_sizes: a sequence left inside is an
    # element, refused as PyTorch refuses view(((4, 6),)), never unwrapped twice)
    out = []
    for i, a in enumerate(args):
        if not _may_be_int(a):
            raise StridedTypeError(
                join_lines(
                    f"{op}(): argument 'size' must be tuple of ints, but found element of type "
                    f"{type(a).__name__} at pos {i}",
                    f"got {a!r:.40} at pos {i} of {tuple(args)!r:.80}; sizes are whole numbers: "
                    f"pass ints (int(...) converts), as {op}(2, 3) or {op}((2, 3))",
                )
            )
        size = a if type(a) is int else index_of(a, f"{op}(): argument 'size'", size=True)
        if not -_INT64 <= size < _INT64:
            raise StridedTypeError(
                f"{op}(): argument 'size' failed to unpack the object at pos {i + 1} with error "
                f'"Overflow when unpacking long long"\n  size {size} does not fit in int64'
            )
        out.append(int(size))
    return tuple(out)


def dims_arg(args: Sequence[Any]) -> tuple[Any, ...]:
    """Dims given as ints (``permute(1, 0)``) or as one sequence (``permute((1, 0))``), unread."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        return tuple(args[0])
    return tuple(args)


def missing(op: str, arg: str) -> StridedTypeError:
    """PyTorch's TypeError for a call with no sizes/dims at all (``t.view()``)."""
    return StridedTypeError(
        f'{op}() missing 1 required positional arguments: "{arg}"\n'
        f"  pass the {arg} as ints or one tuple, e.g. {op}(2, 3) or {op}((2, 3)); "
        f"{op}(()) asks for a 0-d result"
    )


def no_dims(dim: Any, op: str) -> StridedIndexError:
    """PyTorch's IndexError for reading one dim's size or stride (``t.size(0)``) of a 0-d tensor."""
    return StridedIndexError(
        f"Dimension specified as {dim} but tensor has no dimensions\n"
        f"  a 0-d tensor has no sizes or strides to read: t.{op}() is ()"
    )


_MAX_PIECES = 2**31


def check_piece_count(n: int, op: str, shape: tuple[int, ...], dim: int) -> None:
    """Refuse to build a tuple of more views than memory can hold (PyTorch's std::vector error)."""
    if n > _MAX_PIECES:
        raise StridedRuntimeError(
            join_lines(
                "cannot create std::vector larger than max_size()",
                f"{op} along dim {dim} of shape {shape} would return {n} views, one Python object each",
                "fix: cut into fewer pieces, or index the part you need (t.narrow, t.select)",
            )
        )


def check_not_0d(shape: tuple[int, ...], op: str) -> None:
    """``split``/``chunk`` need a dim to cut: PyTorch's RuntimeError for a 0-d tensor."""
    if not shape:
        raise StridedRuntimeError(
            join_lines(
                f"{op} expects at least a 1-dimensional tensor",
                f"the tensor is 0-d (shape ()): it has no dim to {op}; "
                ".unsqueeze(0) gives a 1-d view of its one element",
            )
        )


def split_step(split_size: Any, dim: Any, shape: tuple[int, ...]) -> int | None:
    """``split``'s piece length (None for a list of sizes), checked before the dim, as PyTorch does."""
    if isinstance(split_size, (list, tuple)):
        return None
    step = parse_sizes((split_size,), "split")[0]
    if step < 0:
        raise StridedRuntimeError(
            join_lines(
                f"split expects split_size be non-negative, but got split_size={step}",
                f"split_size is the length of each piece along dim {dim!r} of shape {shape}; "
                "pass 1 or more (or a list of sizes that sum to that dim's size)",
            )
        )
    return step


def split_sizes(split_size: Any, step: int | None, d: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    """The piece lengths ``split(split_size, d)`` cuts dim ``d`` of ``shape`` into (``step`` from
    :func:`split_step`), with PyTorch's ``split``/``split_with_sizes`` errors.

    >>> split_sizes(2, 2, 0, (5,)), split_sizes([1, 4], None, 0, (5,))
    ((2, 2, 1), (1, 4))
    """
    size = shape[d]
    if step is None:
        sizes = parse_sizes((split_size,), "split")
        if any(s < 0 for s in sizes):
            raise StridedRuntimeError(
                join_lines(
                    "split_with_sizes expects split_sizes have only non-negative entries, but got "
                    f"split_sizes={list(sizes)}",
                    f"each entry is a piece length along dim {d} (size {size}); -1 is not "
                    f"inferred here: give all sizes, summing to {size}",
                )
            )
        total = sum(sizes)
        if total != size:
            raise StridedRuntimeError(
                join_lines(
                    f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's "
                    f"size at dimension {d}), but got split_sizes={list(sizes)}",
                    f"the sizes sum to {total}, dim {d} of shape {shape} has {size} entries"
                    + (
                        f"; add a last piece of {size - total}: split({list(sizes) + [size - total]}, {d})"
                        if total < size
                        else f"; shrink the pieces by {total - size} in all"
                    ),
                )
            )
        return sizes
    if step == 0:
        if size != 0:
            raise StridedRuntimeError(
                join_lines(
                    f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}",
                    f"pieces of length 0 cannot cover the {size} entries of dim {d} of shape "
                    f"{shape}; pass split_size 1..{size}, e.g. split({size}, {d}) for one piece",
                )
            )
        return (0,)
    n = max((size + step - 1) // step, 1)
    check_piece_count(n, "split", shape, d)
    # (every piece step long but the last, which holds the rest: min(step, size - i * step) per piece)
    return (step,) * (n - 1) + (min(step, size - (n - 1) * step),)


def chunk_count(chunks: Any, dim: Any, shape: tuple[int, ...]) -> int:
    """``chunk``'s piece count, read and checked as PyTorch does (before the dim)."""
    chunks = int_arg(chunks, "chunk", "chunks", 1)
    check_not_0d(shape, "chunk")
    if chunks <= 0:
        raise StridedRuntimeError(
            join_lines(
                f"chunk expects `chunks` to be greater than 0, got: {chunks}",
                f"chunks is the number of pieces to cut dim {dim!r} of shape {shape} into; "
                "pass 1 or more (chunk(1) is the whole tensor)",
            )
        )
    return chunks


def unflatten_sizes(sizes: Any, dim: Any, shape: tuple[int, ...]) -> tuple[int, ...]:
    """``unflatten``'s new sizes, read and checked as PyTorch does (before the dim)."""
    if not isinstance(sizes, (tuple, list)):
        raise StridedTypeError(
            f"unflatten(): argument 'sizes' (position 2) must be tuple of ints, not {type(sizes).__name__}\n"
            f"  got {sizes!r:.60}; give the sizes to split dim {dim!r} into, e.g. (2, -1)"
        )
    try:
        parsed = parse_sizes((sizes,), "unflatten")
    except StridedTypeError as err:  # PyTorch names this argument 'sizes', at position 2
        raise StridedTypeError(str(err).replace("argument 'size' must", "argument 'sizes' (position 2) must", 1)) from None
    if not parsed:
        raise StridedRuntimeError(
            join_lines(
                "unflatten: sizes must be non-empty",
                f"sizes name the new dims that dim {dim!r} of shape {shape} splits into; "
                "give at least one, e.g. (2, -1), with product equal to that dim's size",
            )
        )
    return parsed


def memory_format_error(memory_format: Any, op: str) -> Exception:
    """PyTorch's error for a ``memory_format`` that ``op`` cannot make (or that is no memory format)."""
    if isinstance(memory_format, MemoryFormat):  # preserve_format where it has no meaning
        also = ", or strided.preserve_format" if op == "clone" else ""
        return StridedRuntimeError(
            f"{memory_format.short_name()} memory format is unsupported by the {op} operator\n"
            f"  {op}() makes a dense layout: pass strided.contiguous_format or strided.channels_last{also}"
        )
    return StridedTypeError(
        f"{op}(): argument 'memory_format' must be torch.memory_format, not {type_name(memory_format)}\n"
        f"  got {memory_format!r:.60}; use strided.contiguous_format, strided.channels_last or "
        "strided.preserve_format"
    )


def type_name(value: Any) -> str:
    """``list`` for builtins, ``numpy.ndarray`` for the rest, as PyTorch's argument errors name types."""
    cls = type(value)
    return cls.__qualname__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"


def arg_type_name(value: Any) -> str:
    """The type in PyTorch's argument errors: ``Tensor`` for a tensor, ``float`` for builtins,
    ``numpy.bool``/``numpy.ndarray`` (module-qualified) for the rest."""
    return "Tensor" if getattr(value, "_layout", None) is not None else type_name(value)


def is_number(value: Any) -> bool:
    """A number PyTorch takes as a Scalar: bool, int, float, complex, or a NumPy scalar of those kinds."""
    return isinstance(value, (bool, int, float, complex)) or (
        isinstance(value, np.generic) and value.dtype.kind in "biufc"
    )


def scalar_value(value: Any, op: str = "full") -> Any:
    """A fill value as a Python number (NumPy scalars unwrapped); TypeError for anything else.

    >>> scalar_value(np.float32(1.5))
    1.5
    """
    if isinstance(value, np.generic) and value.dtype.kind in "biufc":

        value = numpy_scalar(value)  # (PyTorch's reading: full((2,), np.True_) is float32)
    if isinstance(value, (bool, int, float, complex)):
        return value
    layout = getattr(value, "_layout", None)  # (a tensor: this layer does not import the class)
    if layout is not None and not layout.shape and not value.requires_grad:
        return value.item()  # (PyTorch's parser: a 0-d tensor without grad is a Number, full((2,), tensor(1)) int64)
    raise StridedTypeError(
        join_lines(
            f"{op}(): argument 'fill_value' must be Number, not {type(value).__name__}",
            f"got {value!r:.60}; {op} writes one number everywhere: pass a bool, int or float "
            "(t.item() turns a 1-element tensor into one)",
        )
    )


def check_keepdim(keepdim: Any, op: str) -> bool:
    """``keepdim`` as PyTorch's bool argument takes it: a Python bool, nothing else (PyTorch 2.13
    refuses NumPy's too: "sum(): argument 'keepdim' must be bool, not numpy.bool")."""
    if keepdim.__class__ is not bool:
        raise StridedTypeError(
            join_lines(
                f"{op}(): argument 'keepdim' must be bool, not {arg_type_name(keepdim)}",
                f"got keepdim={keepdim!r}; pass True (reduced dims stay, with size 1) or False "
                "(they are dropped)",
            )
        )
    return bool(keepdim)


def numpy_scalar(value: np.generic) -> bool | int | float | complex:
    """A NumPy scalar as PyTorch's argument parser reads it into a ``Scalar``.

    PyTorch does not look at a NumPy scalar's dtype: a NumPy integer becomes a Python int, a
    ``np.complex128`` (a ``complex`` subclass) a complex, and everything else goes through
    ``float()`` -- ``np.bool_`` too (so ``int_tensor + np.True_`` is float32, where
    ``+ True`` stays integer), and ``np.complex64`` (not a ``complex`` subclass) loses its
    imaginary part, with NumPy's ComplexWarning, exactly as in PyTorch.

    >>> numpy_scalar(np.True_), numpy_scalar(np.int8(3)), numpy_scalar(np.float32(2.5))
    (1.0, 3, 2.5)
    """
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, complex):
        return complex(value)
    return float(value)
