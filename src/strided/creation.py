"""Making tensors: from data (a copy), from NumPy (zero-copy), and filled factories."""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Callable
from itertools import chain
from typing import Any, NoReturn

import numpy as np

from . import layout as L
from .args import int_arg, memory_format_error, parse_sizes, scalar_value, size_sequence, sizes_or_size
from .callsite import user_site
from .device import parse_device
from .dispatch import (
    OPEN,
    _result_plan,
    _result_plans,
    adopted,
    borrow_memo,
    borrowed,
    copy_array_of,
    created,
    fresh_filled,
    install,
    result,
    zeroed_result,
)
from .dtype_promotion import promote_types
from .dtypes import (
    _DEFAULT,
    C10_NAME,
    DEFAULT_INT,
    SUPPORTED,
    TORCH_NAME,
    DType,
    bfloat16,
    bool_,
    check_int64,
    complex64,
    complex128,
    default_complex,
    default_float,
    float32,
    float64,
    from_numpy_dtype,
    int8,
    int16,
    int32,
    int64,
    np_kind,
    real_of,
    scalar_dtype,
    scalar_overflow,
    to_dtype,
    uint8,
    uint64,
)
from .errors import (
    StridedDataKindError,
    StridedNotImplementedError,
    StridedOverflowError,
    StridedRuntimeError,
    StridedStringDataError,
    StridedTypeError,
    StridedValueError,
    join_lines,
)
from .grad_mode import check_flag, count_kernel_writes, leaf
from .kernels import native
from .kernels.bf16_casts import number_nans
from .kernels.fill import FILL_MIN, arange_into, arange_values, fill, float_range
from .kernels.fpstate import quietly
from .kernels.fused import fma_into
from .kernels.memory import dense_layout, dense_run, flat_run
from .layout import Layout
from .layout.formats import format_strides
from .layout.order import preserve_format_strides
from .lazy_names import function_on_first_call
from .memory_format import MemoryFormat, contiguous_format, is_dense_format, preserve_format
from .messages import error
from .opdef import Kind, declare
from .scalars import filled, parse_int
from .storage import _BORROWED
from .tensor import Tensor, tensor_arg

# (helper modules only some calls need, loaded on first use: issue 23)
complex_logspace = function_on_first_call("strided.kernels.complex_space", "complex_logspace", globals())
logspace_one = function_on_first_call("strided.kernels.complex_space", "logspace_one", globals())

_empty = np.empty
_zeros = np.zeros
_INT64_NP = np.dtype(np.int64)
_INT64 = 1 << 63
# The factories' fast paths make at most this many elements: a plan result() remembered may be
# one whose allocation failed (its error is the general path's), and a large result's cost is its
# memory, not the Python around it
_FAST_ELEMENTS = 1 << 16
# fresh_filled's limit for a filled result: below FILL_MIN, where fill() is ndarray.fill itself
_FILL_LIMIT = min(_FAST_ELEMENTS, FILL_MIN - 1)
# (empty's fast path, whatever the size: it catches a failed allocation, and touches no memory)
_ANY_SIZE = 1 << 62

# The op boundary sits below tensor.py, so the tensor layer names the class it builds: here, in
# the factories' module, which strided/__init__ imports before any op can run.
install(Tensor)


def _infer_dtype(array: np.ndarray, from_python: bool) -> DType:
    """PyTorch's defaults for Python data: floats -> float32, ints -> int64."""
    kind = np_kind(array.dtype)
    if kind == "b":
        return bool_
    if from_python:
        if kind in "iu":
            return DEFAULT_INT
        if kind == "f":
            return default_float()
        if kind == "c":
            if default_float() is bfloat16:  # (PyTorch has no complex type of bfloat16)
                raise StridedRuntimeError(join_lines(
                    "invalid default scalar type for complex",
                    "the default dtype is bfloat16 (set_default_dtype), which has no complex counterpart",
                    "fix: pass dtype=strided.complex64, or set_default_dtype(strided.float32) first"))
            return default_complex()  # PyTorch: the complex dtype of the default float
    found = from_numpy_dtype(_native(array.dtype))
    if found is None:
        raise StridedTypeError(
            join_lines(
                f"can't convert data of type {array.dtype} to a tensor; strided supports {SUPPORTED}",
                f"the array has NumPy dtype {array.dtype}, which strided cannot hold; convert it first"
                ", e.g. strided.tensor(a.astype('float64'))",
            )
        )
    return found


def _native(dtype: np.dtype) -> np.dtype:
    """``dtype`` in the machine's byte order (``>f4`` -> ``<f4`` on little-endian machines)."""
    return dtype if dtype.isnative else dtype.newbyteorder("=")


def array_source(array: np.ndarray) -> np.ndarray:
    """``array`` itself when ``tensor(array)`` would take its dtype, for a write to read in place;
    else the TypeError ``tensor()`` raises (strings, objects, datetimes, complex, ...).

    Any byte order is fine: the write converts while it copies.
    """
    _infer_dtype(array, from_python=False)
    return array


def tensor(data: Any, dtype: Any = None, *, device: Any = None, requires_grad: bool = False) -> Tensor:
    """A new tensor holding a copy of ``data`` (nested lists, a scalar, a NumPy array or a tensor);
    ``device`` may only name the CPU (strided.device); ``requires_grad=True`` makes it a leaf
    that autograd collects the gradient of (``requires_grad_`` comes from strided.autograd).

    >>> x = strided.tensor([[1, 2], [3, 4]])
    >>> x.dtype, strided.tensor([1.0, 2]).dtype, x.shape
    (strided.int64, strided.float32, (2, 2))
    """
    if isinstance(data, Tensor):
        warnings.warn(_COPY_CONSTRUCT, UserWarning, stacklevel=user_site()[1])
        if dtype is None and device is None and requires_grad is False and not OPEN and data.__class__ is Tensor:
            fast = _rowmajor_copy(data)  # (the common copy: _tensor's own fast path, its leaf() a no-op)
            if fast is not None:
                return fast
    return copied_tensor(data, dtype, device, requires_grad)


def copied_tensor(data: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """:func:`tensor` without its warning for a tensor ``data`` (``t.new_tensor`` warns its own).
    A NumPy array with a negative stride is refused as PyTorch 2.13's ``torch.tensor`` and
    ``new_tensor`` refuse it (they read the array through tensor_from_numpy; an array inside a
    list is read element by element, and taken)."""
    if isinstance(data, np.ndarray) and any(s < 0 for s in data.strides):
        _negative_strides(data, "tensor")
    return leaf(_tensor(data, dtype, device), requires_grad, "tensor")


# PyTorch's warning for tensor(a_tensor) (and t.new_tensor(a_tensor)): the copy loses the history
_COPY_CONSTRUCT = ("To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
                   "sourceTensor.detach().clone().requires_grad_(True), rather than torch.tensor(sourceTensor).")


def _torch_bfloat16(data: Any) -> np.ndarray | None:
    """A torch bfloat16 tensor's values as a bfloat16 array (its int16 bits viewed; torch's own
    ``__array__`` refuses bfloat16), or None for anything else."""
    if str(getattr(data, "dtype", "")) != "torch.bfloat16" or type(data).__module__.split(".")[0] != "torch":
        return None
    import torch  # (already imported: data is a torch tensor)

    return data.detach().cpu().view(torch.int16).numpy().view(bfloat16.numpy)


_NUMBER_TYPES = frozenset((bool, int, float, complex))  # (exact types: NumPy's float64 subclasses float)
_LIST = frozenset((list,))
_DEEPEST = 65  # (a tensor has at most 64 dims: one level more holds its numbers)
_chain = chain.from_iterable


def _python_numbers_only(data: list | tuple) -> bool:
    """Whether nested lists ``data`` hold only Python numbers (one set of types per list; False
    for anything else, which the careful walk of :func:`_sequence_dtype` reads)."""
    kinds = set(map(type, data))
    depth = 1
    while kinds == _LIST:  # (one level further down, all of its lists at once)
        if depth == _DEEPEST:  # (too deep for a tensor, or a list inside itself: the general path says)
            return False
        data = list(_chain(data))
        kinds = set(map(type, data))
        depth += 1
    return kinds <= _NUMBER_TYPES


def _leaf_kinds(data: list | tuple, python: set, odd: list, depth: int = 1) -> None:
    """The leaves of nested lists/tuples ``data``, read one set of types per list: the Python
    number types met into ``python``, every other leaf (a NumPy scalar or array, a tensor,
    anything else) into ``odd``; nesting deeper than a tensor's dims (a list inside itself, too)
    puts ``data`` itself into ``odd``, for the general path's error."""
    if depth > _DEEPEST:
        odd.append(data)
        return
    for kind in set(map(type, data)):
        if issubclass(kind, (list, tuple)):
            for x in data:
                if type(x) is kind:
                    _leaf_kinds(x, python, odd, depth + 1)
        elif kind in _NUMBER_TYPES:
            python.add(kind)
        else:
            odd.extend(x for x in data if type(x) is kind)


def _is_tensor(x: Any) -> bool:
    return isinstance(x, Tensor) or (type(x).__module__.split(".")[0] == "torch" and hasattr(x, "numel"))


def _sequence_dtype(data: list | tuple, python: set, odd: list) -> tuple[DType | None, Any]:
    """PyTorch's dtype for nested sequences ``data`` holding NumPy scalars, arrays or tensors
    (``infer_scalar_type``: each Python float counts as the default float dtype, int as int64,
    bool as bool, complex as the default complex; a NumPy scalar or array, or a tensor, as its own
    dtype; all promoted together: ``tensor([np.float64(1.5), 2])`` is float64), and ``data``
    with each tensor read as the scalar it holds (PyTorch reads a tensor inside a sequence as a
    number: ``tensor([tensor([2.5]), tensor([1.])])`` has shape (2,); more than one element is
    its ValueError). (None, data) where every leaf is a Python number or some leaf is neither
    (the general path's rules and errors). ``python`` and ``odd``: :func:`_leaf_kinds` of ``data``."""
    if not odd:
        return None, data
    found: DType | None = None
    tensors = False
    for x in odd:
        if _is_tensor(x):
            tensors = True
            dtype = to_dtype(x.dtype)
        elif isinstance(x, (np.generic, np.ndarray)):
            dtype = from_numpy_dtype(_native(x.dtype))
            if dtype is None:
                return None, data
        else:
            return None, data
        found = dtype if found is None else promote_types(found, dtype)
    for kind in python:
        found = promote_types(found, {bool: bool_, int: DEFAULT_INT, float: default_float()}.get(kind)
                              or default_complex())
    return found, (_scalars(data) if tensors else data)


def _check_index_leaves(odd: list, target: DType) -> None:
    """PyTorch's refusals of leaves it cannot read as an integer for an integer or bool tensor
    (it reads each through ``__index__``, Python floats aside): a NumPy bool (into an integer
    tensor), a NumPy float other than float64 (a Python float's subclass), scalars or arrays'
    items alike, and a floating or complex tensor: TypeError, as ``torch.tensor([0,
    np.bool_(True)])``, ``torch.tensor([np.float32(1)], dtype=torch.int64)`` and
    ``torch.tensor([torch.tensor(1.5)], dtype=torch.int64)``. ``odd``: the leaves of the data
    as given that are not Python numbers (see :func:`_leaf_kinds`; tensors not yet read as numbers)."""
    for x in odd:
        if _is_tensor(x):
            name = str(x.dtype).rsplit(".", 1)[-1]
            if name.startswith(("float", "bfloat", "complex")):
                raise StridedTypeError(join_lines(
                    "only integer tensors of a single element can be converted to an index",
                    f"tensor() would store a {name} tensor into a {target.name} tensor; PyTorch reads it as "
                    "an integer and refuses",
                    "fix: convert it first (t.long() or t.round().long()), or pass a float dtype"))
        elif isinstance(x, (np.generic, np.ndarray)):
            kind = x.dtype
            if (kind == np.bool_ and target.kind != "b") or (kind.kind == "f" and kind != np.float64):
                raise StridedTypeError(join_lines(
                    f"'numpy.{kind.type.__name__}' object cannot be interpreted as an integer",
                    f"tensor() would store a NumPy {kind} into a {target.name} tensor; PyTorch reads it as an "
                    "integer and refuses",
                    "fix: convert it first (int(x), or x.astype(int)), or pass a dtype that holds it"))


def _scalars(data: Any) -> Any:
    """Nested ``data`` with each tensor replaced by the one number it holds (a 0-d array of its
    dtype, its history dropped), as PyTorch reads tensors inside a sequence."""
    if isinstance(data, (list, tuple)):
        return [_scalars(x) for x in data]
    if not _is_tensor(data):
        return data
    if data.numel() != 1:
        raise StridedValueError(join_lines(
            "only one element tensors can be converted to Python scalars",
            f"tensor() read a tensor of shape {tuple(data.shape)} inside a list: PyTorch reads each tensor "
            "inside a sequence as one number",
            "fix: stack them (strided.stack(list_of_tensors)) or pass each one's values (t.tolist())"))
    if str(data.dtype).endswith("bfloat16"):  # (no NumPy type: its value, exact in float32)
        return np.float32(data.detach().item())
    return np.asarray(data.detach().cpu() if not isinstance(data, Tensor) else data.detach()).reshape(())


def _detached(data: Any) -> Any:
    """``data`` (nested lists and tuples) with each tensor detached: its values, without its history."""
    if isinstance(data, Tensor):
        return data.detach()
    if isinstance(data, (list, tuple)):
        return [_detached(x) for x in data]
    return data


_EXACT_INT = 2**53  # (a larger int is not a float64 exactly)

# The dtypes whose storage's NumPy dtype infers back to them (tensor(t) keeps t's dtype): the
# fast copy below takes them; the others (bfloat16, uint16-32-64, complex32, ...) the general path
_SAME_BACK = frozenset((float32, float64, int64, int32, int16, int8, uint8, bool_, complex64, complex128))
def _rowmajor_copy(t: Tensor) -> Tensor | None:
    """``tensor(t)`` (no dtype, device, listener) of a non-empty row-major or permuted dense
    (:func:`strided.kernels.memory.dense_run`: a transpose) plain Tensor of a :data:`_SAME_BACK`
    dtype: a copy of its run, with its dtype and its layout at offset 0 -- the general path's
    result (it keeps a dense source's strides, preserve_format, and its dtype), without its NumPy
    view, dtype inference and stride planning; None where the general path must run."""
    d = t._dtype
    if d not in _SAME_BACK:
        return None
    shape = t._layout.shape
    plan = _result_plans.get((shape, None)) or _result_plan(shape, None)  # (count, row-major Layout)
    if not plan[0]:
        return None
    flat = flat_run(t, (plan[1].strides, plan[0]))
    if flat is None:
        dense = dense_run(t, plan[0])  # (the run in memory order, copied as it lies: tensor(x.t()))
        return None if dense is None else adopted(dense[0].copy(), dense[1], d)
    return adopted(flat.copy(), plan[1], d)


def _list_copy(data: list | tuple) -> Tensor | None:
    """``tensor(data)`` (no dtype, device, listener) of nested lists (a tuple at the top) of Python numbers whose first is
    a float and which NumPy reads as float64, or whose first is an int or a bool and which NumPy
    reads as int64, or of bools alone: the general path's result (the default float dtype, int64 or
    bool; row-major), without its
    checks of what NumPy could not read; None where the general path must run (other numbers
    first, anything NumPy reads otherwise or refuses, a float16 / bfloat16 default dtype)."""
    first = data[0] if data else data  # (a tuple at the top; lists below it)
    while first.__class__ is list and first:
        first = first[0]
    kind = first.__class__
    if kind is not float and kind is not int and kind is not bool:
        return None
    if not _python_numbers_only(data):  # (a NumPy scalar or a tensor among them: see _sequence_dtype)
        return None
    try:
        source = np.array(data)
    except (ValueError, OverflowError, TypeError, StridedRuntimeError):  # (the general path explains)
        return None
    char = source.dtype.char
    if char == "d" and kind is float:  # (ints NumPy made floats come with an int first: checked there)
        target = _DEFAULT[0]
        if target is float64:
            flat = source
        elif target is float32:
            flat = quietly(source.astype, np.float32)  # (copy_array_of's cast: overflow gives inf silently)
        else:
            return None
    elif char == "l" and kind is not float and source.itemsize == 8:  # (ints; bools first, ints after)
        target, flat = int64, source
    elif char == "?":  # (bools alone)
        target, flat = bool_, source
    else:
        return None
    shape = source.shape
    plan = _result_plans.get((shape, None)) or _result_plan(shape, None)  # (count, row-major Layout)
    return adopted(flat.reshape(-1), plan[1], target)


def _tensor(data: Any, dtype: Any, device: Any) -> Tensor:
    if dtype is None and device is None and not OPEN:
        if data.__class__ is list or data.__class__ is tuple:  # (a flat tuple too: tensor((1.5, 2.5)))
            fast = _list_copy(data)
            if fast is not None:
                return fast
        elif data.__class__ is Tensor:
            fast = _rowmajor_copy(data)
            if fast is not None:
                return fast
    parse_device(device, "tensor")
    inferred: DType | None = None
    odd: list = []  # (the leaves that are not Python numbers, tensors as given: read once)
    if isinstance(data, Tensor):
        source = data._np()
        from_python = False
    elif isinstance(data, (np.ndarray, np.generic)) or (
        hasattr(data, "__array__") and not isinstance(data, (list, tuple))
    ):
        source = _torch_bfloat16(data)
        if source is None:
            source = np.asarray(data)  # arrays, NumPy scalars (and torch tensors) keep their dtype
        if isinstance(data, np.generic):
            odd.append(data)  # (PyTorch reads a NumPy scalar as a number: a float32 one is no integer)
        from_python = False
    else:
        given = data
        if isinstance(data, (list, tuple)) and not _python_numbers_only(data):  # (the quick test first)
            python: set = set()
            _leaf_kinds(data, python, odd)
            inferred, data = _sequence_dtype(data, python, odd)
        try:
            try:
                source = np.array(data)
            except StridedRuntimeError:  # (a tensor that requires grad among the items: refused to NumPy)
                source = np.array(_detached(data))  # PyTorch reads its value: tensor([x]) has no history
        except (ValueError, OverflowError) as err:
            empty_one = _empty_by_first_items(given, dtype)
            if empty_one is not None:
                return empty_one
            raise _nesting_error(data, err, lambda: to_dtype(dtype) if dtype is not None else
                                 _torch_scalar_type(given, 0)) from None
        if odd and source.ndim and not source.size:  # (an empty array among the items: PyTorch's sizes)
            source = source.reshape(_torch_sizes(data))
        floats_wanted = dtype is not None and to_dtype(dtype).is_floating_point
        if dtype is not None and to_dtype(dtype) is uint64:
            source = _uint64_source(data, source)  # PyTorch reads the ints as uint64 here
        if source.dtype == object and dtype is None and inferred is not None and inferred.kind in "fc":
            # (a huge Python int beside a NumPy float or a float tensor: PyTorch reads it as a double)
            source = np.array(data, dtype=np.complex128 if inferred.kind == "c" else np.float64)
        if source.dtype == object and _is_big_int_mix(source, floats_wanted):
            source = source.astype(np.float64)  # PyTorch reads them all as floats
        if floats_wanted and source.dtype.kind in "iu" and source.size and to_dtype(dtype).itemsize <= 4 \
                and ((source > _EXACT_INT).any() or (source < -_EXACT_INT).any()):
            # PyTorch reads each Python number as a double for a float dtype (then rounds it to
            # float32): an int beyond 2**53 rounds twice, 2**60 + 2**36 + 1 to 2**60 in float32
            # (an int64 array's one rounding would give 2**60 + 2**37)
            source = source.astype(np.float64)
        if source.dtype == object or np_kind(source.dtype) in "USV":
            items = list(np.ravel(source)) if source.size else []
            kinds = sorted({type(x).__name__ for x in items})
            for x in items:
                check_int64(x, "tensor()")
            raise _data_kind_error(data)(
                f"new(): invalid data type {', '.join(kinds) or source.dtype}; tensor() takes "
                f"numbers ({SUPPORTED})"
            )
        if (source.dtype.kind == "f" or source.dtype == np.uint64) and not floats_wanted \
                and not (dtype is not None and to_dtype(dtype) is uint64) \
                and not (dtype is None and inferred is not None and inferred.kind in "fc"):
            # (a NumPy float or tensor among them makes the result float: PyTorch reads the ints as floats)
            # NumPy widens ints beyond int64 to float64/uint64; PyTorch refuses them, unless it
            # reads them as floats (a float among them, or a float dtype asked for)
            _check_python_ints(data)
        from_python = True
    target = to_dtype(dtype) if dtype is not None else inferred or _infer_dtype(source, from_python)
    if odd and target.kind in "iub":
        _check_index_leaves(odd, target)
    if from_python and target.kind in "iu" and source.size and source.dtype.kind in "iuf":
        for extreme in (source.min(), source.max()):
            message = scalar_overflow(extreme.item(), target, c_name=False)
            if message is not None:
                raise StridedRuntimeError(
                    join_lines(
                        message,
                        f"the data holds {extreme.item()!r}, outside the range of {target.name}",
                        "fix: pick a wider dtype (dtype=strided.int64 or strided.float64)",
                    )
                )
    if source.dtype.kind == "c" and not target.is_complex:
        # Note: PyTorch casts complex data to a real dtype silently (dropping the imaginary
        # part, with a warning); strided refuses, as the imaginary parts would be lost unseen.
        raise StridedTypeError(
            join_lines(
                # (PyTorch's first line: Python's own, of int(c) or float(c) on a complex number)
                "'complex' object cannot be interpreted as an integer" if from_python and target.kind in "iu"
                else "must be real number, not complex",
                f"the data has NumPy dtype {source.dtype} and dtype={target.name} was asked for: a real "
                "dtype would drop the imaginary parts",
                "fix: keep it complex (dtype=strided.complex64), or pass the real parts (numpy: a.real)",
            )
        )
    # Note: torch.tensor refuses data in non-native byte order (ValueError); tensor() copies
    # anyway, so it converts while it copies, as np.asarray(a, "=f4") would.
    # An array or tensor keeps its memory order, as PyTorch's copy of it (clone's preserve_format:
    # tensor(x.t()) is column-major, a non-dense one dense in its dims' order)
    # (an empty one too: NumPy 2 gives it zero strides, which PyTorch's copy keeps, as
    # from_numpy does: tensor(np.arange(0.)).stride() is (0,))
    strides = None
    if not from_python and not any(st % source.itemsize for st in source.strides):
        strides = preserve_format_strides(source.shape, tuple(st // source.itemsize for st in source.strides))
    made = copy_array_of(source, "tensor(data)", target, owned=from_python, strides=strides)
    if from_python and target is bfloat16:
        number_nans(made._storage.array)  # (PyTorch converts each Python number alone: a NaN is 0x7FC0)
    return made


def _torch_sizes(data: Any) -> tuple[int, ...]:
    """PyTorch's shape of nested sequences ``data`` (``compute_sizes``): each level's length down
    the first items, stopping after the first empty one, a NumPy array read as a sequence too:
    ``tensor([np.zeros((0, 3))])`` has shape (1, 0), where NumPy's array of it has (1, 0, 3)."""
    sizes = []
    while isinstance(data, (list, tuple)) or (isinstance(data, np.ndarray) and data.ndim):
        sizes.append(len(data))
        if not sizes[-1]:
            break
        data = data[0]
    return tuple(sizes)


def _uint64_source(data: Any, source: np.ndarray) -> np.ndarray:
    """Python ints for a uint64 tensor, read as PyTorch reads them: ``[0, 2**64)``, else OverflowError."""
    for x in _leaves(data):
        if isinstance(x, int) and not isinstance(x, bool) and not 0 <= x < 2**64:
            first = "can't convert negative int to unsigned" if x < 0 else "int too big to convert"
            raise StridedOverflowError(join_lines(
                first,
                f"tensor(..., dtype=uint64) was given the Python int {x}; uint64 holds 0 to {2**64 - 1}",
                "fix: pick a signed dtype (dtype=strided.int64) for negative numbers"))
    if source.dtype == object and all(isinstance(x, int) for x in _leaves(data)):
        return source.astype(np.uint64)  # (ints from 2**63 on next to others NumPy kept as objects)
    return source


def _check_python_ints(data: Any) -> None:
    """Refuse a Python int outside int64 in all-integer nested data, as PyTorch does.

    (With a float anywhere PyTorch infers a float dtype and reads big ints as floats.)
    """
    if not _has_float(data):
        for x in _leaves(data):
            check_int64(x, "tensor()")


def _has_float(data: Any) -> bool:
    """Whether a leaf of ``data`` (the leaves of :func:`_leaves`) is a float; stops at the first
    one, which float data has first (every float tensor made from lists asks)."""
    if isinstance(data, (list, tuple)):
        return any(_has_float(item) for item in data)
    return isinstance(data, (float, np.floating))


def _is_big_int_mix(source: np.ndarray, floats_wanted: bool) -> bool:
    """NumPy made objects only because an int is huge, and PyTorch reads the data as floats:
    numbers only, with a float among them, or (``floats_wanted``: a float dtype was asked
    for) any real numbers, bools included."""
    items = list(source.ravel())
    if floats_wanted:
        return all(isinstance(x, (int, float)) for x in items)
    numbers = all(isinstance(x, (int, float)) for x in items)  # (bools too: tensor([True, 1.5, 2**70]))
    return numbers and any(isinstance(x, float) for x in items)


def _leaves(data: Any) -> Any:
    if isinstance(data, (list, tuple)):
        for item in data:
            yield from _leaves(item)
    else:
        yield data


def _is_sequence(x: Any) -> bool:
    return isinstance(x, (list, tuple)) or (isinstance(x, np.ndarray) and x.ndim > 0)


def _first_items_shape(data: Any) -> list[int]:
    """PyTorch's ``compute_sizes``: each dim's length read down the first items only, stopping at
    a number or an empty sequence (at most 65 dims: one past a tensor's, for the error)."""
    shape: list[int] = []
    x = data
    while (_is_sequence(x) or (isinstance(x, Tensor) and x.ndim)) and len(shape) <= L.MAX_DIMS:
        shape.append(len(x))
        if not len(x):
            break
        x = x[0]
    return shape


def _empty_by_first_items(data: Any, dtype: Any) -> Tensor | None:
    """``tensor(data)`` of ragged nested data whose first items reach an empty sequence: PyTorch
    takes the shape from the first items and, with no element to store, reads no other row, so
    ``tensor([[], [1, 2]])`` is an empty (2, 0) tensor (``[[1, 2], []]`` is its ValueError). The
    dtype is inferred from every leaf all the same (an empty sequence counts as the default float
    dtype), with its errors: ``tensor([[], [None]])`` is a RuntimeError. None where the shape has no
    zero (the nesting error stands) or a list contains itself."""
    shape = _first_items_shape(data)
    if 0 not in shape or len(shape) > L.MAX_DIMS or _self_reference(data) is not None:
        return None
    target = to_dtype(dtype) if dtype is not None else _torch_scalar_type(data, 0)
    return empty(tuple(shape), dtype=target)


def _torch_scalar_type(x: Any, depth: int) -> DType:
    """PyTorch's ``infer_scalar_type`` of nested data: a Python bool, int, float or complex as
    bool, int64, the default float and complex dtypes; a NumPy array or scalar, or a tensor, as
    its dtype; a sequence as its items' promoted together (an empty one as the default float)."""
    if isinstance(x, (list, tuple)) and depth <= L.MAX_DIMS:
        found: DType | None = None
        for item in x:
            d = _torch_scalar_type(item, depth + 1)
            found = d if found is None else promote_types(found, d)
        return default_float() if found is None else found
    if isinstance(x, (np.ndarray, np.generic)):  # (first: np.float64 and np.complex128 are float and complex)
        return _infer_dtype(np.asarray(x), from_python=False)
    if isinstance(x, bool):
        return bool_
    if isinstance(x, int):
        return DEFAULT_INT
    if isinstance(x, float):
        return default_float()
    if isinstance(x, complex):
        return default_complex()
    if _is_tensor(x):
        return to_dtype(x.dtype)
    if isinstance(x, str):
        raise StridedTypeError(join_lines(
            "new(): invalid data type 'str'",
            f"the data holds the string {x!r:.40}; tensor() takes numbers ({SUPPORTED})"))
    raise StridedRuntimeError(join_lines(
        f"Could not infer dtype of {type(x).__name__}",
        f"the data holds {x!r:.40}; tensor() takes numbers ({SUPPORTED}), nested in lists"))


def _nesting_error(data: Any, err: Exception, target: Any = None) -> Exception:
    """Where nested data stops being rectangular, with PyTorch's first line and error class.

    PyTorch takes the shape from the first element at each depth, then raises
    ValueError for a sequence of another length and TypeError where a number
    and a sequence meet, or where a list contains itself. The walk never goes deeper
    than NumPy's 64 dims, so deep or self-containing data cannot exhaust the stack.
    ``target``: a function giving the dtype PyTorch stores into, whose conversion words the
    error for a sequence where a number belongs (a float or complex dtype's "must be real
    number, not list"; an integer or bool one's "'list' object cannot be interpreted as an
    integer", the default).
    """
    shape: list[int] = []
    x = data
    while _is_sequence(x):
        if len(shape) == L.MAX_DIMS:
            return _too_many_dims(data)
        shape.append(len(x))
        if not len(x):
            break
        x = x[0]
    cycle = _self_reference(data)  # PyTorch looks for these before it checks the rows' lengths
    if cycle is not None:
        return StridedTypeError(join_lines(
            "new(): self-referential lists are incompatible",
            f"data{cycle[0]} is data{cycle[1]} itself, which contains it: a list that contains "
            "itself has no finite shape",
            "fix: build the data from copies, e.g. [list(row) for row in rows]"))
    rule = "nested sequences must be rectangular: every row as long as the first one, numbers only at the bottom"

    def walk(x: Any, dim: int, path: str) -> Exception | None:
        if dim == len(shape):
            if _is_sequence(x):
                into = target() if target is not None else None
                return StridedTypeError(join_lines(
                    f"must be real number, not {type(x).__name__}" if into is not None and (
                        into.is_floating_point or into.is_complex) else
                    f"'{type(x).__name__}' object cannot be interpreted as an integer",
                    f"data{path} is a sequence, but data{'[0]' * dim} is a number", rule))
            return None
        if not _is_sequence(x):
            return StridedTypeError(join_lines(
                "not a sequence",
                f"data{path} is a number, but data{'[0]' * dim} is a sequence of length {shape[dim]}", rule))
        if len(x) != shape[dim]:
            return StridedValueError(join_lines(
                f"expected sequence of length {shape[dim]} at dim {dim} (got {len(x)})",
                f"data{path} has length {len(x)}, but data{'[0]' * dim} has length {shape[dim]}", rule))
        for i, item in enumerate(x):
            found = walk(item, dim + 1, f"{path}[{i}]")
            if found is not None:
                return found
        return None

    found = walk(data, 0, "")  # (at most 64 levels deep: it stops at len(shape))
    return found or StridedValueError(join_lines(f"could not make a tensor from the data: {err}", rule))


def _self_reference(data: Any) -> tuple[str, str] | None:
    """``(path of a list, path of the outer list it is)`` for the first list (depth first) that
    contains itself or one of its outer lists, or None. Iterative, so any depth is fine."""
    on_path: dict[int, str] = {}
    stack: list[tuple[Any, str, bool]] = [(data, "", False)]
    while stack:
        node, path, leaving = stack.pop()
        if leaving:
            del on_path[id(node)]
            continue
        if not isinstance(node, (list, tuple)):
            continue
        on_path[id(node)] = path
        stack.append((node, path, True))
        for i in range(len(node) - 1, -1, -1):
            item = node[i]
            if isinstance(item, (list, tuple)) and id(item) in on_path:
                return f"{path}[{i}]", on_path[id(item)]
            stack.append((item, f"{path}[{i}]", False))
    return None


def _too_many_dims(data: Any) -> Exception:
    # Note: PyTorch builds tensors of up to about 1000 nested lists; strided's tensors are
    # NumPy arrays, which stop at 64 dims, so deeper data is refused here with PyTorch's error.
    return StridedValueError(
        join_lines(
            f"too many dimensions '{type(data).__name__}'",
            f"the data is nested more than {L.MAX_DIMS} levels deep (or a list contains itself); "
            f"strided tensors have at most {L.MAX_DIMS} dims, as NumPy arrays",
            "fix: flatten the data (or reshape a NumPy array of it) to 64 dims or fewer",
        )
    )


def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor sharing ``array``'s memory; writes show in both. As PyTorch's, an array with a
    negative stride (``a[::-1]``) is refused with ValueError: a tensor's strides are never negative.

    >>> a = np.arange(6.0).reshape(2, 3)[:, ::2]
    >>> t = strided.from_numpy(a)
    >>> t.stride(), t.tolist()
    ((3, 2), [[0.0, 2.0], [3.0, 5.0]])
    >>> a[0, 0] = 9.0
    >>> t[0, 0].item()
    9.0
    """
    if array.__class__ is _NDARRAY:
        t = borrow_memo(array, _borrow_plans, _BORROWED)  # (the memoised dense plan, in one C call)
        if t is not None:
            if OPEN: created("from_numpy", (), t, "view")  # noqa: E701 - shares memory: not an allocation
            return t
        t = _borrow_dense(array)
        if t is not None:
            return t
    if isinstance(array, np.ndarray) and any(s < 0 for s in array.strides):
        _negative_strides(array)
    return borrow_array(array, "from_numpy")


_NDARRAY = np.ndarray  # (from_numpy's class test: one global read, not np's and its attribute's)


# (its entry front passes an exact ndarray as a plain argument: never a tensor, never tracked, so the
# guard's own test of it, ~0.7 us of a 1.4 us call, decides nothing)
from_numpy.__plain_types__ = (np.ndarray,)  # type: ignore[attr-defined]


def _borrow_dense(array: np.ndarray) -> Tensor | None:
    """:func:`borrow_array` of the common array in fewer steps, or None where the general path
    decides (and refuses): a non-empty C- or F-contiguous array of a native supported dtype whose
    strides are non-negative multiples of its itemsize. Its storage is then the array flattened in
    memory order (a view, never a copy: ``copy=False``), at offset 0 -- the general path's
    ``storage_extent`` run of such an array, the same tensor (``ravel("K")``: memory order, a view of
    a C- or F-contiguous array)."""
    key = (array.shape, array.strides, array.dtype)
    plan = _borrow_plans.get(key)
    if plan is None:
        plan = _borrow_plan(array)
        if len(_borrow_plans) >= 1024:
            _borrow_plans.clear()
        _borrow_plans[key] = plan
    if not plan:
        return None
    t = borrowed(array.ravel("K"), plan[0], plan[1])  # (a contiguous array's memory order: a view, never a copy)
    if OPEN: created("from_numpy", (), t, "view")  # noqa: E701 - shares memory: not an allocation
    return t


# (shape, byte strides, NumPy dtype) -> _borrow_plan's answer: the layout, the dtype and the order
# are functions of these alone (NumPy's contiguity flags are; a dtype's equality covers its byte
# order), so from_numpy's common call skips the flags, the strides' division and the Layout's
# construction (two thirds of it, measured). Bounded (cleared when full); racing threads only
# repeat work.
_borrow_plans: dict[tuple, tuple[Layout, DType] | bool] = {}


def _borrow_plan(array: np.ndarray) -> tuple[Layout, DType] | bool:
    """:func:`_borrow_dense`'s plan for ``array``'s layout: ``(Layout, DType)``, or False where the
    general path decides."""
    dtype = from_numpy_dtype(array.dtype)
    flags = array.flags
    if dtype is None or not array.size or not (flags.c_contiguous or flags.f_contiguous):
        return False
    itemsize = array.itemsize
    strides = []
    for b in array.strides:  # (a size-1 dim's stride is free in a contiguous array: any value)
        if b < 0 or b % itemsize:
            return False
        strides.append(b // itemsize)
    return Layout._trusted(array.shape, tuple(strides), 0), dtype


def _negative_strides(array: np.ndarray, op: str = "from_numpy") -> NoReturn:
    """PyTorch's tensor_from_numpy refusal of an array with a negative stride (in any dim, sizes
    0 and 1 too): ValueError. (strided's own operands may have negative strides: its internal
    wraps call :func:`borrow_array` directly.) ``op``: the strided function refusing it."""
    raise StridedValueError(
        join_lines(
            "At least one stride in the given numpy array is negative, and tensors with negative strides "
            "are not currently supported. (You can probably work around this by making a copy of your "
            "array  with array.copy().) ",
            f"strides {array.strides} (bytes); strided.{op} follows PyTorch here",
            f"fix: strided.{op}(array.copy()); a reversed tensor is strided.flip(t, dims)",
        )
    )


def borrow_array(array: np.ndarray, op: str) -> Tensor:
    """``from_numpy``'s zero-copy wrap, reported to listeners as the view op ``op`` (``from_dlpack``,
    ``as_tensor``, ...); a read-only array gives a tensor that refuses writes."""
    if not isinstance(array, np.ndarray):
        raise StridedTypeError(
            join_lines(
                f"expected np.ndarray (got {type(array).__name__})",
                "from_numpy shares an existing array's memory; for lists, scalars and other "
                "data use strided.tensor(data), which copies",
            )
        )
    if not array.dtype.isnative and from_numpy_dtype(_native(array.dtype)) is not None:
        raise StridedValueError(
            join_lines(
                "given numpy array has byte order different from the native byte order. "
                "Conversion between byte orders is currently not supported.",
                f"the array's dtype is {array.dtype.str} (byte-swapped); a tensor shares the "
                "array's memory, so its elements must be in the machine's byte order",
                "fix: strided.tensor(array) copies and converts it; or "
                "strided.from_numpy(array.astype(array.dtype.newbyteorder('=')))",
            )
        )
    dtype = from_numpy_dtype(array.dtype)
    if dtype is None:
        raise StridedTypeError(
            f"can't convert np.ndarray of type {array.dtype}. The only supported types are: {SUPPORTED}"
        )
    itemsize = array.itemsize
    if any(s % itemsize for s in array.strides):
        raise StridedValueError(
            join_lines(
                "given numpy array strides not a multiple of the element byte size. Copy the numpy "
                "array to reallocate the memory.",
                f"strides {array.strides} (bytes) are not multiples of the itemsize {itemsize}; "
                "strided counts strides in elements",
                "fix: strided.tensor(array) copies it",
            )
        )
    strides = tuple(s // itemsize for s in array.strides)
    shape = tuple(array.shape)
    if array.size == 0:
        flat = np.empty(0, dtype=array.dtype)
        t = borrowed(flat, Layout._trusted(shape, strides, 0), dtype)
        if OPEN: created(op, (), t, "view")  # noqa: E701 - shares memory: not an allocation
        return t
    # the storage is the smallest flat run of memory the array touches
    low = array[tuple(slice(None, None, -1) if s < 0 else slice(None) for s in array.strides) + (Ellipsis,)]
    lo, hi = L.storage_extent(Layout._trusted(shape, strides, 0))
    flat = np.lib.stride_tricks.as_strided(low, shape=(hi - lo,), strides=(itemsize,), writeable=array.flags.writeable)
    t = borrowed(flat, Layout._trusted(shape, strides, -lo), dtype)
    if OPEN: created(op, (), t, "view")  # noqa: E701 - shares memory: not an allocation
    return t


def _plain_plan(sizes: tuple[Any, ...], limit: int = _FAST_ELEMENTS) -> tuple[int, Layout] | None:
    """The factories' fast path: :func:`strided.dispatch.result`'s remembered plan (element count,
    row-major Layout) for sizes given as plain ints (``f(2, 3)`` or ``f((2, 3))``), or None, and the
    general path parses them (lists, NumPy integers, no sizes, a layout not made before).

    Only a layout the general path built is remembered, after its checks (negative sizes and ints
    beyond int64 are never), and every size is tested to be an ``int`` first: 2.0 and True hash as
    2 and 1 do, and PyTorch refuses them.
    """
    if len(sizes) == 1 and sizes[0].__class__ is tuple:
        sizes = sizes[0]
    elif not sizes:  # (zeros(): the general path's answer)
        return None
    for s in sizes:
        if s.__class__ is not int:
            return None
    plan = _result_plans.get((sizes, None))
    return plan if plan is not None and plan[0] <= limit else None


def _fast_dtype(sizes: tuple[Any, ...], dtype: Any) -> DType | None:
    """zeros/ones' dtype on their fast path: the default, a DType itself, or ``to_dtype(dtype)``
    where ``sizes`` are a plain plan's (valid: a bad ``dtype`` then raises what the general path
    raises; with bad sizes too, that path's size error comes first, so it runs: None is no key)."""
    if dtype is None:
        return _DEFAULT[0]
    if dtype.__class__ is DType:
        return dtype
    return to_dtype(dtype) if _plain_plan(sizes) is not None else None


def _sizes_and_dtype(sizes: tuple[Any, ...], dtype: Any, op: str, default: DType | None = None,
                     size: Any = None) -> tuple[tuple[int, ...], DType]:
    return sizes_or_size(sizes, size, op), ((default or default_float()) if dtype is None else to_dtype(dtype))


def _adopted_empty(plan: tuple[int, Layout], dt: DType) -> Tensor | None:
    """empty/empty_like's fast path beyond :data:`_FAST_ELEMENTS` (its cost is the Python around
    the allocation, the memory untouched): a fresh tensor of a remembered ``plan``, or None where
    the allocation fails (the general path then raises PyTorch's error)."""
    try:
        array = _empty(plan[0], dt.numpy)
    except (ValueError, MemoryError, OverflowError):
        return None
    return adopted(array, plan[1], dt)


def empty(*sizes: Any, size: Any = None, dtype: Any = None, device: Any = None,
          memory_format: MemoryFormat | None = None, requires_grad: bool = False, out: Any = None) -> Tensor:
    """Uninitialized memory of the given sizes (ints or one tuple), dense in ``memory_format``
    (contiguous_format, channels_last for 4-d, channels_last_3d for 5-d).

    >>> strided.empty(2, 3).stride(), strided.empty(1, 3, 4, 4, memory_format=strided.channels_last).stride()
    ((3, 1), (48, 1, 12, 3))
    """
    if size is None and device is None and requires_grad is False and memory_format is None and out is None:
        # (the common call: plain sizes of a layout made before, nothing else)
        t = None
        if dtype is None or dtype.__class__ is DType:
            dt = _DEFAULT[0] if dtype is None else dtype
            try:  # (the plan, np.empty and adopt in fresh_filled's one call, nothing filled)
                t = fresh_filled(sizes, _result_plans, _ANY_SIZE, _empty, dt.numpy, None, dt)
            except (ValueError, MemoryError, OverflowError):
                pass  # (an allocation that fails: the general path's error)
        elif (plan := _plain_plan(sizes, _ANY_SIZE)) is not None:
            dt = to_dtype(dtype)
            # (a large one may fail to allocate: _adopted_empty's None, and the general path's error)
            t = adopted(_empty(plan[0], dt.numpy), plan[1], dt) if plan[0] <= _FAST_ELEMENTS else _adopted_empty(plan, dt)
        if t is not None:
            if OPEN: created("empty", (), t)  # noqa: E701
            return t
    parse_device(device, "empty")
    if out is not None:
        return _empty_out(out, sizes_or_size(sizes, size, "empty"), dtype, memory_format, requires_grad)
    shape, dt = _sizes_and_dtype(sizes, dtype, "empty", size=size)
    t = result(shape, dt, None if memory_format in (None, contiguous_format) else dense_format_strides(shape, memory_format, "empty", _EMPTY_PRESERVE))
    if OPEN: created("empty", (), t)  # noqa: E701 - one cheap check when nobody listens
    return leaf(t, requires_grad, "empty")


def zeros(*sizes: Any, size: Any = None, dtype: Any = None, device: Any = None, requires_grad: bool = False,
          out: Any = None) -> Tensor:
    """Zeros of the given sizes (ints or one tuple), contiguous; float32 unless ``dtype``.

    >>> strided.zeros(2, 3).tolist(), strided.zeros((2,), dtype=strided.int64).tolist()
    ([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]], [0, 0])
    """
    if out is not None:
        return _factory_out("zeros", out, dtype, lambda dt: zeros(*sizes, size=size, dtype=dt, device=device),
                            requires_grad)
    if size is None and device is None and requires_grad is False and (dt := _fast_dtype(sizes, dtype)) is not None:
        # (all-zero bytes: 0 in every dtype, +0.0 as fill's)
        t = fresh_filled(sizes, _result_plans, _FAST_ELEMENTS, _zeros, dt.numpy, None, dt)
        if t is not None:
            if OPEN: created("zeros", (), t)  # noqa: E701
            return t
    parse_device(device, "zeros")
    shape, dt = _sizes_and_dtype(sizes, dtype, "zeros", size=size)
    t = zeroed_result(shape, dt)  # (calloc's zeros: no fill pass)
    if OPEN: created("zeros", (), t)  # noqa: E701
    return leaf(t, requires_grad, "zeros")


def ones(*sizes: Any, size: Any = None, dtype: Any = None, device: Any = None, requires_grad: bool = False,
         out: Any = None) -> Tensor:
    """Ones of the given sizes (ints or one tuple), contiguous; float32 unless ``dtype``.

    >>> strided.ones(2, dtype=strided.bool_).tolist()
    [True, True]
    """
    if out is not None:
        return _factory_out("ones", out, dtype, lambda dt: ones(*sizes, size=size, dtype=dt, device=device),
                            requires_grad)
    if size is None and device is None and requires_grad is False and (dt := _fast_dtype(sizes, dtype)) is not None:
        t = fresh_filled(sizes, _result_plans, _FILL_LIMIT, _empty, dt.numpy, 1, dt)
        if t is None and (plan := _plain_plan(sizes)) is not None:
            array = _empty(plan[0], dt.numpy)
            fill(array, 1)
            t = adopted(array, plan[1], dt)
        if t is not None:
            if OPEN: created("ones", (), t)  # noqa: E701
            return t
    parse_device(device, "ones")
    shape, dt = _sizes_and_dtype(sizes, dtype, "ones", size=size)
    t = result(shape, dt)
    fill(t._storage.array, 1)
    if OPEN: created("ones", (), t)  # noqa: E701
    return leaf(t, requires_grad, "ones")


def _scalar_dtype(value: Any) -> DType:
    """``full``'s dtype from its fill value, as PyTorch infers it."""
    found = scalar_dtype(value)
    if found is not None:
        return found
    raise StridedTypeError(
        join_lines(
            f"fill value must be a bool, int or float, but got {type(value).__name__}",
            f"got {value!r:.60}; pass one Python number (t.item() turns a 1-element tensor into one)",
        )
    )


def _data_kind_error(data: Any) -> type[StridedTypeError] | type[StridedDataKindError] | type[StridedStringDataError]:
    """The class of ``tensor(data)``'s error for data holding something that is not a number,
    as PyTorch's, which stops at the first such leaf (in order): ValueError for a non-empty string
    that is the first leaf (PyTorch reads it as one more dimension: "too many dimensions 'str'"),
    RuntimeError for an item with no dtype (None, objects), TypeError for any other string or
    bytes; each also a TypeError (our older class).

    >>> _data_kind_error(["a", None]).__name__, _data_kind_error([1.5, "a"]).__name__
    ('StridedStringDataError', 'StridedTypeError')
    >>> _data_kind_error([[1], [None, "a"]]).__name__
    'StridedDataKindError'
    """
    first = True
    stack = [iter((data,))]
    while stack:
        x = next(stack[-1], stack)
        if x is stack:  # (this level is done)
            stack.pop()
            continue
        if isinstance(x, (list, tuple)):
            stack.append(iter(x))
            continue
        if isinstance(x, (str, np.str_)):
            return StridedStringDataError if first and x else StridedTypeError
        if isinstance(x, (bytes, np.bytes_)):
            return StridedTypeError
        if not isinstance(x, (int, float, complex, np.generic, np.ndarray, Tensor)):
            return StridedDataKindError
        first = False
    return StridedTypeError


_MISSING: Any = type("_Missing", (), {"__repr__": lambda self: "<missing>"})()  # (full's absent argument)


def _full_arguments(size: Any, fill_value: Any) -> None:
    """PyTorch's TypeErrors for ``full`` called without its size or fill value, in its order: no
    size names both (whatever was given), a size of the wrong kind comes before a missing fill."""
    if size is _MISSING:
        raise StridedTypeError(join_lines('full() missing 2 required positional argument: "size", "fill_value"',
                                          "fix: full((2, 3), 1.5): the sizes as one tuple, then the value"))
    size_sequence(size, ... if fill_value is _MISSING else fill_value, "full")
    if fill_value is _MISSING:
        raise StridedTypeError(join_lines('full() missing 1 required positional arguments: "fill_value"',
                                          f"fix: full({size!r:.40}, 1.5): the value every element takes"))


def full(size: Any = _MISSING, fill_value: Any = _MISSING, dtype: Any = None, *, device: Any = None,
         requires_grad: bool = False, out: Any = None) -> Tensor:
    """A tensor of ``size`` filled with ``fill_value``; dtype inferred from it as PyTorch does.

    >>> strided.full((2, 2), 7).tolist(), strided.full((1,), 0.5).dtype
    ([[7, 7], [7, 7]], strided.float32)
    """
    if out is not None:
        return _factory_out("full", out, dtype, lambda dt: full(size, fill_value, dt, device=device),
                            requires_grad)
    if dtype is None and device is None and requires_grad is False and size.__class__ is tuple:
        # (the common call: a float or an int, no dtype; up to _FILL_LIMIT elements in one C call, the
        # float as it is: ndarray.fill rounds it to float32 as _fill_scalar's conversion does)
        if fill_value.__class__ is float:
            dt = _DEFAULT[0]
            if dt is float64 or (dt is float32 and -_FLOAT32_MAX <= fill_value <= _FLOAT32_MAX):
                t = fresh_filled((size,), _result_plans, _FILL_LIMIT, _empty, dt.numpy, fill_value, dt)
                if t is None and (plan := _plain_plan((size,))) is not None:
                    array = _empty(plan[0], dt.numpy)
                    fill(array, dt.numpy.type(fill_value))  # (_fill_scalar's conversion)
                    t = adopted(array, plan[1], dt)
                if t is not None:
                    if OPEN: created("full", (), t)  # noqa: E701
                    return t
        elif fill_value.__class__ is int and -_INT64 <= fill_value < _INT64:
            t = fresh_filled((size,), _result_plans, _FILL_LIMIT, _empty, _INT64_NP, fill_value, int64)
            if t is None and (plan := _plain_plan((size,))) is not None:
                array = _empty(plan[0], np.int64)
                fill(array, fill_value)
                t = adopted(array, plan[1], int64)
            if t is not None:
                if OPEN: created("full", (), t)  # noqa: E701
                return t
    _full_arguments(size, fill_value)
    if device is not None:
        parse_device(device, "full")
    shape = parse_sizes((tuple(size),), "full")
    fill_value = scalar_value(fill_value)
    dt = _scalar_dtype(fill_value) if dtype is None else to_dtype(dtype)
    value = _fill_scalar(fill_value, dt, "full", L.product(shape))
    t = result(shape, dt)
    fill(t._storage.array, value)
    if OPEN: created("full", (), t)  # noqa: E701
    return leaf(t, requires_grad, "full")


def full_of_float(size: tuple, fill_value: Any, dt: DType) -> Tensor | None:
    """``full(size, fill_value, dtype=dt)``'s result (nothing reported) where ``size`` is a tuple
    of ints of a layout made before, ``fill_value`` a Python float and ``dt`` float64, or float32
    with the value within its range (the general path's checks pass: its conversion, its fill);
    None otherwise. ``t.new_full``'s common call."""
    if fill_value.__class__ is float and (dt is float64 or (dt is float32 and -_FLOAT32_MAX <= fill_value
                                                               <= _FLOAT32_MAX)):
        t = fresh_filled((size,), _result_plans, _FILL_LIMIT, _empty, dt.numpy, fill_value, dt)
        if t is not None or (plan := _plain_plan((size,))) is None:
            return t
        array = _empty(plan[0], dt.numpy)
        fill(array, dt.numpy.type(fill_value))  # (_fill_scalar's conversion)
        return adopted(array, plan[1], dt)
    return None


def dense_format_strides(shape: tuple[int, ...], memory_format: Any, op: str,
                         preserve_refused: tuple[str, ...]) -> tuple[int, ...]:
    """The dense strides ``op(..., memory_format=)`` gives ``shape`` (``empty``, ``resize_``), or
    PyTorch's error: ``preserve_refused`` is the error's lines for ``preserve_format`` (each op
    words it its own way), any other non-dense value gets :func:`strided.args.memory_format_error`.

    >>> from strided import channels_last
    >>> dense_format_strides((2, 3, 4, 5), channels_last, "empty", ("",))
    (60, 1, 15, 3)
    """
    if not is_dense_format(memory_format):
        if memory_format is preserve_format:
            raise StridedRuntimeError(join_lines(*preserve_refused))
        raise memory_format_error(memory_format, op)
    strides = format_strides(shape, memory_format.name)
    if strides.__class__ is not tuple:
        raise error(strides)
    return strides


# ``empty(..., memory_format=preserve_format)``: PyTorch's error, and why
_EMPTY_PRESERVE = ("unsupported memory format Preserve",
                   "empty makes new memory with no tensor to preserve the layout of: pass "
                   "strided.contiguous_format, strided.channels_last or strided.channels_last_3d")


_FLOAT32_MAX = float(np.finfo(np.float32).max)


def _fill_scalar(value: bool | int | float, dtype: DType, op: str, numel: int) -> Any:
    """A fill value checked as PyTorch's fill_ checks it (:func:`strided.scalars.filled`)."""
    if value.__class__ is float and (dtype is float64 or (dtype is float32 and -_FLOAT32_MAX <= value <= _FLOAT32_MAX)):
        return dtype.numpy.type(value)  # (the common call: a float that fits, converted as filled() converts it)
    if isinstance(value, int) and not isinstance(value, bool):
        value = parse_int(value, op)
    return filled(value, dtype, op, numel)


# (shape, strides) -> the dense strides preserve_format gives them (like_strides). Bounded:
# cleared when full; threads may race on it harmlessly (an entry is a pure function of its key).
_PRESERVED: dict[tuple[tuple[int, ...], tuple[int, ...]], tuple[int, ...]] = {}


def like_strides(other: Tensor, memory_format: MemoryFormat) -> tuple[int, ...]:
    """Dense strides of ``other``'s shape in ``memory_format`` (``empty_like``'s rule: dense
    strides in ``other``'s order for ``preserve_format``).

    >>> like_strides(strided.zeros(2, 3).t(), strided.preserve_format)
    (1, 3)
    """
    if memory_format is preserve_format:
        # (the clone plan's strides for preserve_format, which it never refuses, without building
        # the plan: a pure function of the layout's shape and strides, kept for the next call)
        lay = other._layout
        key = (lay.shape, lay.strides)
        strides = _PRESERVED.get(key)
        if strides is None:
            strides = preserve_format_strides(*key)
            if len(_PRESERVED) >= 1024:
                _PRESERVED.clear()
            _PRESERVED[key] = strides
        return strides
    if not is_dense_format(memory_format):
        raise memory_format_error(memory_format, "clone")
    plan = L.plans.clone(other._layout, memory_format.name, itemsize=other._dtype.itemsize)
    if plan.__class__ is not L.Copy:
        raise error(plan)
    return plan.strides


def _plain_like(other: Any, dtype: Any, memory_format: MemoryFormat, device: Any, requires_grad: Any,
                limit: int = _FAST_ELEMENTS, permuted: bool = False) -> tuple[int, Layout] | None:
    """The ``*_like`` factories' fast path: :func:`strided.dispatch.result`'s remembered plan
    (element count, row-major Layout) for a row-major plain Tensor ``other`` and no ``dtype=``,
    ``device=``, ``requires_grad=`` nor memory format (preserve_format of a row-major tensor is
    row-major: the general path's answer), else None and the general path runs. ``permuted``: a
    permuted dense ``other`` (every dim >= 2: :func:`strided.kernels.memory.dense_layout`) gets
    its own strides at offset 0, preserve_format's answer for a dense tensor."""
    if (other.__class__ is not Tensor or dtype is not None or device is not None or requires_grad is not False
            or memory_format is not preserve_format):
        return None
    lay = other._layout
    plan = _result_plans.get((lay.shape, None))
    if plan is None or plan[0] > limit:
        return None
    if plan[1].strides == lay.strides:
        return plan
    dense = dense_layout(lay.shape, lay.strides) if permuted else None
    return None if dense is None else (plan[0], dense)


def _like(other: Tensor, dtype: Any, memory_format: MemoryFormat, op: str = "empty_like",
          device: Any = None) -> Tensor:
    tensor_arg(other, op, "input")
    if device is not None:
        parse_device(device, op)
    dt = other._dtype if dtype is None else to_dtype(dtype)
    lay = other._layout
    if memory_format is preserve_format and lay.strides == L.contiguous_strides(lay.shape):
        return result(lay.shape, dt)  # (a row-major input's dense order is row-major: no clone plan)
    return result(lay.shape, dt, like_strides(other, memory_format))


def empty_like(other: Tensor, dtype: Any = None, memory_format: MemoryFormat = preserve_format, *,
               device: Any = None, requires_grad: bool = False) -> Tensor:
    """Uninitialized memory shaped like ``other``, keeping its dense stride order (PyTorch).

    >>> strided.empty_like(strided.ones(2, 3).t()).stride()
    (1, 3)
    """
    if (plan := _plain_like(other, dtype, memory_format, device, requires_grad, _ANY_SIZE, True)) is not None:
        d = other._dtype
        t = adopted(_empty(plan[0], d.numpy), plan[1], d) if plan[0] <= _FAST_ELEMENTS else _adopted_empty(plan, d)
        if t is not None:
            if OPEN: created("empty_like", (other,), t)  # noqa: E701
            return t
    t = _like(other, dtype, memory_format, "empty_like", device)
    if OPEN: created("empty_like", (other,), t)  # noqa: E701
    return leaf(t, requires_grad, "empty_like")


def zeros_like(other: Tensor, dtype: Any = None, memory_format: MemoryFormat = preserve_format, *,
               device: Any = None, requires_grad: bool = False) -> Tensor:
    """Zeros shaped like ``other`` (its dtype unless ``dtype``), keeping its dense stride order.

    >>> strided.zeros_like(strided.ones(2, 3).t()).stride()
    (1, 3)
    """
    if (plan := _plain_like(other, dtype, memory_format, device, requires_grad)) is not None:
        t = adopted(_zeros(plan[0], other._dtype.numpy), plan[1], other._dtype)  # (all-zero bytes, as fill's 0)
        if OPEN: created("zeros_like", (other,), t)  # noqa: E701
        return t
    t = _like(other, dtype, memory_format, "zeros_like", device)
    fill(t._storage.array, 0)
    if OPEN: created("zeros_like", (other,), t)  # noqa: E701
    return leaf(t, requires_grad, "zeros_like")


def ones_like(other: Tensor, dtype: Any = None, memory_format: MemoryFormat = preserve_format, *,
              device: Any = None, requires_grad: bool = False) -> Tensor:
    """Ones shaped like ``other`` (its dtype unless ``dtype``), keeping its dense stride order.

    >>> strided.ones_like(strided.zeros(2, dtype=strided.int64)).tolist()
    [1, 1]
    """
    if (plan := _plain_like(other, dtype, memory_format, device, requires_grad)) is not None:
        array = _empty(plan[0], other._dtype.numpy)
        fill(array, 1)
        t = adopted(array, plan[1], other._dtype)
        if OPEN: created("ones_like", (other,), t)  # noqa: E701
        return t
    t = _like(other, dtype, memory_format, "ones_like", device)
    fill(t._storage.array, 1)
    if OPEN: created("ones_like", (other,), t)  # noqa: E701
    return leaf(t, requires_grad, "ones_like")


def full_like(other: Tensor, fill_value: Any, dtype: Any = None, memory_format: MemoryFormat = preserve_format, *,
              device: Any = None, requires_grad: bool = False) -> Tensor:
    """``fill_value`` shaped like ``other`` (its dtype unless ``dtype``), keeping its dense stride order.

    >>> strided.full_like(strided.zeros(2, dtype=strided.int64), 9).tolist()
    [9, 9]
    """
    if fill_value.__class__ is float and (plan := _plain_like(other, dtype, memory_format, device, requires_grad)) is not None:
        dt = other._dtype
        if dt is float64 or (dt is float32 and -_FLOAT32_MAX <= fill_value <= _FLOAT32_MAX):  # (_fill_scalar's test)
            array = _empty(plan[0], dt.numpy)
            if plan[0] <= _FILL_LIMIT:  # (fill() is ndarray.fill there; it rounds the float to float32 as
                array.fill(fill_value)  # _fill_scalar's conversion does)
            else:
                fill(array, dt.numpy.type(fill_value))
            t = adopted(array, plan[1], dt)
            if OPEN: created("full_like", (other,), t)  # noqa: E701
            return t
    t = _like(other, dtype, memory_format, "full_like", device)
    fill(t._storage.array, _fill_scalar(scalar_value(fill_value, "full_like"), t.dtype, "full_like", t.numel()))
    if OPEN: created("full_like", (other,), t)  # noqa: E701
    return leaf(t, requires_grad, "full_like")


def arange(start: Any, end: Any = None, step: Any = 1, dtype: Any = None, *, out: Any = None, device: Any = None,
           requires_grad: bool = False) -> Tensor:
    """``arange(end)`` or ``arange(start, end, step)``: int64 for int arguments, float32 otherwise.

    As PyTorch: start, end and step are numbers (ints, floats, NumPy scalars or 0-d tensors);
    a zero or NaN step, non-finite bounds, a step walking away from ``end`` and an element count
    that is not finite or exceeds int64 raise RuntimeError. An infinite step gives at most one element.

    >>> strided.arange(4).tolist(), strided.arange(1, 2, 0.25).tolist()
    ([0, 1, 2, 3], [1.0, 1.25, 1.5, 1.75])

    ``out=``: the range is made in ``out``'s dtype and written into it (see :func:`_arange_out`).
    """
    if out is not None:
        return _arange_out(start, end, step, dtype, out, device, requires_grad)
    if (end is None and start.__class__ is int and step.__class__ is int and step == 1 and dtype is None
            and device is None and 0 <= start <= 1 << 16):
        # the common small call, arange(n): NumPy's int64 range, the values start + i * step make
        # (larger ones take the general path, whose allocation fails with PyTorch's error)
        t = adopted(np.arange(start, dtype=np.int64), _cinfo_1d(start), DEFAULT_INT)
        if OPEN: created("arange", (), t)  # noqa: E701
        return leaf(t, requires_grad, "arange")
    if dtype is None and device is None and requires_grad is False and _float_range_args(start, end, step):
        # a float range of Python numbers (arange(0., 1., .1)): the general path's steps, without its parsing
        if end is None:
            start, end = 0, start
        t = _arange_result(_arange_count(start, end, step, False), start, step, False, _DEFAULT[0])
        if OPEN: created("arange", (), t)  # noqa: E701
        return t
    parse_device(device, "arange")
    if end is None:
        start, end = 0, start
    # (one call per number, no generators: arange(n) in a loop is a small op)
    start, end, step = _arange_number(start, "start"), _arange_number(end, "end"), _arange_number(step, "step")
    wanted = to_dtype(dtype) if dtype is not None else None
    if wanted is None or not wanted.is_floating_point:
        check_int64(start, "arange")
        check_int64(end, "arange")
        check_int64(step, "arange")
    # (a float range reads ints beyond int64 as floats, as PyTorch does; see float_range)
    all_int = (isinstance(start, (int, np.integer)) and isinstance(end, (int, np.integer))
               and isinstance(step, (int, np.integer)))
    if wanted is not None and not all_int and _is_integral(wanted):
        n, start, step = _arange_truncated(start, end, step, wanted is int64)
        all_int = True
    else:
        n = _arange_count(start, end, step, all_int)
    all_int = all_int and all(-(2**63) <= v <= L.INT64_MAX for v in (start, end, step))
    dt = wanted if wanted is not None else (DEFAULT_INT if all_int else default_float())
    if dt is bool_ or dt.is_complex:
        raise StridedNotImplementedError(
            join_lines(f"\"arange_cpu\" not implemented for '{TORCH_NAME[dt.name]}'",
                       "fix: make the range in an integer dtype, then compare: strided.arange(n) != 0" if dt is bool_
                       else "fix: make the range real, then convert: strided.arange(n).to(strided.complex64)")
        )
    t = _arange_result(n, start, step, all_int, dt)
    if OPEN: created("arange", (), t)  # noqa: E701
    return leaf(t, requires_grad, "arange")


def _float_range_args(start: Any, end: Any, step: Any) -> bool:
    """Whether arange's numbers are Python floats and ints (``end`` may be None), at least one a
    float, every int within int64 (beyond it, the general path's OverflowError): the general path
    reads them as they are, counts them in float64 and makes the range in the default float dtype."""
    floats = False
    for v in (start, 0 if end is None else end, step):  # (arange(x) is arange(0, x))
        c = v.__class__
        if c is float:
            floats = True
        elif c is not int or not -_INT64 <= v < _INT64:
            return False
    return floats


def _arange_result(n: int, start: Any, step: Any, integral: bool, dt: DType) -> Tensor:
    """The fresh 1-d tensor of arange's ``n`` values in ``dt``: a float ``dt``'s values as
    PyTorch's vectorized kernel rounds them (:func:`strided.kernels.fill.float_range`); NumPy's
    int64 values adopted as its memory for int64, else cast into a fresh ``dt`` array (one buffer
    fewer and one copy fewer than writing them into a new result)."""
    try:  # (a float dtype: PyTorch's vectorized kernel's roundings, float_range)
        values = float_range(n, start, step, dt.numpy) if dt.is_floating_point else arange_values(n, start, step, integral)
    except (ValueError, MemoryError, OverflowError):  # (too big: result() refuses it with PyTorch's error)
        t = result((n,), dt)
        arange_into(t._storage.array, start, step, integral)
        return t
    if values.dtype != dt.numpy:
        values = values.astype(dt.numpy)  # (astype casts unsafely: PyTorch's wrap-around and rounding)
    return adopted(values, _cinfo_1d(n), dt)


def _check_factory_out(out: Any, dtype: Any, name: str) -> None:
    """A factory's ``out=``: a Tensor (PyTorch's TypeError otherwise), and ``dtype=`` either not
    given or ``out``'s own (the values are made in ``out``'s dtype)."""
    if not isinstance(out, Tensor):
        raise StridedTypeError(join_lines(
            f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}",
            "pass a tensor to write into, e.g. out=strided.empty(0)"))
    if dtype is not None and to_dtype(dtype) is not out._dtype:
        raise StridedRuntimeError(join_lines(
            f"dtype {TORCH_NAME[to_dtype(dtype).name]} does not match dtype of out parameter ({TORCH_NAME[out._dtype.name]})",
            f"out is {out._dtype.name}: drop dtype= (the values take out's dtype) or pass a {to_dtype(dtype).name} out"))


def _refuse_leaf_out(name: str, out: Tensor) -> None:
    """PyTorch's refusal of a factory's ``out=`` (zeros, ones, full, eye, linspace, logspace, rand,
    randint: the factories whose ``out`` form has an autograd kernel): grad mode on and ``out`` a
    leaf that requires grad. A non-leaf ``out`` that requires grad is written and keeps its
    history, as PyTorch's is (the factory has no differentiable input to check)."""
    from .grad_mode import refuse_out

    if out.requires_grad and out.is_leaf:
        refuse_out(f"aten::{name}", out, ())


def _refuse_resize_out(name: str, out: Tensor) -> None:
    """PyTorch's refusal of ``empty``/``randn``'s ``out=`` when ``out`` requires grad (leaf or not,
    grad mode on or off): their ``out`` forms start with ``out.resize_(size)``, whose autograd
    kernel refuses any tensor that requires grad, even at its own size."""
    if out.requires_grad:
        raise StridedRuntimeError(join_lines(
            "cannot resize variables that require grad",
            f"{name}(out=...) resizes out first (PyTorch's {name}.out does), and out (shape {out._layout.shape}) "
            "requires grad",
            f"fix: pass an out that does not require grad (out.detach()), or y = strided.{name}(...) without out="))


def _resize_below_autograd(out: Tensor, shape: tuple[int, ...]) -> None:
    """``out.resize_(shape)`` as a factory's ``out`` kernel runs it, below autograd: a non-leaf
    ``out`` that requires grad is resized (the refusals that apply were made before), and the
    resize is not counted in ``_version`` (ATen's ``resize_output``, not the dispatcher's
    ``resize_``: only the write that follows counts)."""
    Tensor.resize_.__inplace_of__(out, shape)  # (the method's plain resize: writes sits above this layer)


def flag_out(out: Tensor, requires_grad: bool, what: str = "out") -> Tensor:
    """A factory's ``out=`` form's last step, PyTorch's binding's ``out.set_requires_grad(flag)``
    (AutogradMeta's, not ``requires_grad_``'s): a non-leaf ``out`` is left as it is (it requires
    grad through its history); a leaf takes the flag, so False clears it (an ``out`` written
    under no_grad) and True on an integer or bool dtype is a RuntimeError, raised after the write.
    Returns ``out``. ``what``: how the error names ``out`` (``randint``'s own result too)."""
    from .grad_mode import set_requires_grad

    if not out.is_leaf or requires_grad is out.requires_grad:
        return out
    if requires_grad and not (out._dtype.is_floating_point or out._dtype.is_complex):
        raise StridedRuntimeError(join_lines(
            "Only Tensors of floating point and complex dtype can require gradients",
            f"{what} is {out._dtype.name} and requires_grad=True was given: the values are drawn and written "
            "first, then the flag is refused (PyTorch's order: the stream moves)",
            f"fix: drop requires_grad=True, or make {what} floating point"))
    return set_requires_grad(out, requires_grad)


def sampled_out(name: str, out: Any, dtype: Any, requires_grad: Any, shape: Callable[[], tuple[int, ...]],
                check: Callable[[DType, tuple[int, ...]], None], make: Callable[[DType], Tensor],
                resizes: bool = False) -> Tensor:
    """``rand`` / ``randn`` / ``randint`` with ``out=``, as PyTorch's ``*.out`` then its binding's
    flag: ``dtype=`` must be ``out``'s own (RuntimeError), ``out`` refused when it requires grad
    (``resizes``: randn's resize_ refusal, any such out; else rand/randint's, a leaf under grad
    mode), resized (row-major) when its shape is not ``shape()``, ``check(dtype, shape)``'s dtype and
    range refusals (PyTorch's sampler checks, before its TensorIterator's), refused when its
    elements share memory (before any draw: the stream does not move), then written through its own strides with
    ``make(out.dtype)``'s values -- the non-out form's draw, so the same numbers under the same
    seed -- and :func:`flag_out` last.

    >>> _ = strided.manual_seed(0); a = strided.rand(2, 3)
    >>> _ = strided.manual_seed(0); o = strided.empty(0); strided.rand(2, 3, out=o) is o, strided.equal(o, a)
    (True, True)
    """
    from .grad_mode import bump, note_out_target
    from .kernels.memory import check_writable, write

    requires_grad = check_flag(requires_grad, name)
    _check_factory_out(out, dtype, name)
    (_refuse_resize_out if resizes else _refuse_leaf_out)(name, out)
    size = shape()
    resized = out._layout.shape != size
    if resized:
        check_writable(out._storage, out._layout, f"{name}(out=...)", aliasing_ok=True, updates=False)
        _resize_below_autograd(out, size)
    check(out._dtype, size)
    check_writable(out._storage, out._layout, f"{name}(out=...)", aliasing_ok=False, updates=True)
    made = make(out._dtype)
    note_out_target(out)
    write(out._storage, out._layout, made._np())
    bump(out, f"{name}(out=...)")
    if resizes and resized:  # (randn.out's resize_ and normal_ both run through PyTorch's dispatcher:
        count_kernel_writes(out, 1)  # its _version counts the resize too; rand/randint's kernels count one)
    return flag_out(out, requires_grad)


def _empty_out(out: Any, shape: tuple[int, ...], dtype: Any, memory_format: Any, requires_grad: Any) -> Tensor:
    """``empty(..., out=out)`` as PyTorch's: ``memory_format=`` refused (any, even
    contiguous_format), ``dtype=`` must be ``out``'s, ``out`` refused when it requires grad
    (``resize_``'s check), resized when its shape differs (same shape: its strides kept, even
    overlapping ones, and its values: nothing is written), then :func:`flag_out`."""
    requires_grad = check_flag(requires_grad, "empty")
    if memory_format is not None:
        raise StridedRuntimeError(join_lines(
            "'memory_format' argument is incompatible with 'out' tensor argument",
            "empty(out=...) keeps out's own strides at its size (else makes them row-major): drop memory_format="))
    _check_factory_out(out, dtype, "empty")
    _refuse_resize_out("empty", out)
    if out._layout.shape != shape:
        out.resize_(shape)  # (through the method, as PyTorch's empty.out: counted in _version)
    return flag_out(out, requires_grad)


def _factory_out(name: str, out: Any, dtype: Any, make: Callable[[DType], Tensor], requires_grad: Any = False) -> Tensor:
    """``zeros`` / ``ones`` / ``full`` / ``eye`` / ``linspace`` / ``logspace`` with ``out=``, as
    PyTorch's ``*_out``: the values made in ``out``'s dtype (``make(dtype)``; a different ``dtype=``
    is a RuntimeError), ``out`` resized to their shape when it has another (``resize_``: row-major,
    no warning, unlike arange's; linspace/logspace: only when its element count differs, else
    their values fill out's shape in row-major order) and written through its own strides; nothing written when a
    check fails. ``requires_grad``: :func:`flag_out`'s, after the write (PyTorch's binding).

    >>> o = strided.zeros(3, 2).t(); strided.ones(2, 3, out=o) is o, o.stride(), o.tolist()
    (True, (1, 2), [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]])
    """
    from .grad_mode import bump, note_out_target
    from .kernels.memory import check_writable, write

    requires_grad = check_flag(requires_grad, name)
    _check_factory_out(out, dtype, name)
    _refuse_leaf_out(name, out)
    made = make(out._dtype)
    if name in _SPACES and L.product(out._layout.shape) == L.product(made._layout.shape):
        # (PyTorch's linspace/logspace outs resize only on another count: the values fill out's
        # own shape in row-major order)
        made = made.reshape(out._layout.shape)
    if out._layout.shape != made._layout.shape:
        check_writable(out._storage, out._layout, f"{name}(out=...)", aliasing_ok=True, updates=False)
        _resize_below_autograd(out, made._layout.shape)
    # PyTorch's zeros/ones/full/eye outs are fills (zero_/fill_, no overlap check: a fill is
    # idempotent), so an out whose elements share memory (expanded) takes them
    fills = name in _FILL_OUTS
    check_writable(out._storage, out._layout, f"{name}(out=...)", aliasing_ok=fills, updates=not fills)
    note_out_target(out)
    if name == "eye":
        _eye_fills(out, made)
    else:
        write(out._storage, out._layout, made._np())
    bump(out, f"{name}(out=...)")
    return flag_out(out, requires_grad)


# the factories whose PyTorch out= form resizes only an out of another element count
_SPACES = frozenset(("linspace", "logspace"))
# the factories whose PyTorch out= form only fills (zero_, fill_, eye's zero_ then its diagonal's fill_)
_FILL_OUTS = frozenset(("zeros", "ones", "full", "eye"))


def _eye_fills(out: Tensor, made: Tensor) -> None:
    """``eye(n, m, out=out)`` into an ``out`` whose elements share memory, as PyTorch's
    ``eye_out``: ``out.zero_()``, then ``out.diagonal().fill_(1)`` (so a shared element holds 1
    when any diagonal position reaches it: eye(2, out=empty(1, 2).expand(2, 2)) is all ones)."""
    from .kernels.memory import write

    lay = out._layout
    write(out._storage, lay, np.zeros((), made._np().dtype))
    k = min(lay.shape)
    diagonal = L.Layout((k,), (lay.strides[0] + lay.strides[1],), lay.offset)
    write(out._storage, diagonal, np.ones((), made._np().dtype))


def _arange_out(start: Any, end: Any, step: Any, dtype: Any, out: Any, device: Any, requires_grad: bool) -> Tensor:
    """``arange(..., out=out)`` as PyTorch's ``arange_out``: the range in ``out``'s dtype (a
    different ``dtype=`` is a RuntimeError), written in row-major order through ``out``'s own
    layout when ``out`` has as many elements as the range (its shape and strides kept); else,
    with PyTorch's UserWarning, ``out`` is resized to ``(n,)`` first (``resize_``: contiguous,
    the storage grown if needed). Nothing is written when a check fails.

    >>> o = strided.zeros(2, 2); strided.arange(4, out=o) is o, o.tolist()
    (True, [[0.0, 1.0], [2.0, 3.0]])
    """
    import warnings

    from .callsite import user_site
    from .grad_mode import bump, note_out_target, refuse_out
    from .kernels.memory import check_writable, write

    _check_factory_out(out, dtype, "arange")
    refuse_out("aten::arange", out, ())
    made = arange(start, end, step, out._dtype, device=device, requires_grad=requires_grad)
    n = made._layout.shape[0]
    numel = L.product(out._layout.shape)
    if numel != n:
        check_writable(out._storage, out._layout, "arange(out=...)", aliasing_ok=True, updates=False)
        if numel:  # (PyTorch warns only when an out with elements is resized: an empty one is a plain buffer)
            warnings.warn(
                f"The number of elements in the out tensor of shape {list(out._layout.shape)} is {numel} which does "
                f"not match the computed number of elements {n}. Note that this may occur as a result of rounding "
                f"error. "
                f"The out tensor will be resized to a tensor of shape ({n},).", UserWarning,
                stacklevel=user_site()[1])
        _resize_below_autograd(out, (n,))
    # (an out whose elements share memory without a stride-0 dim is not contiguous: PyTorch makes
    # the range in a contiguous temporary and copy_'s it in, each location keeping its last write,
    # which write's copy_ walk does; a stride-0 out stays refused)
    check_writable(out._storage, out._layout, "arange(out=...)")
    note_out_target(out)
    write(out._storage, out._layout, made._np().reshape(out._layout.shape))
    bump(out, "arange(out=...)")
    return out


@functools.lru_cache(maxsize=256)
def _cinfo_1d(n: int) -> Layout:
    """The shared row-major layout of a fresh 1-d result of ``n`` elements (Layouts are immutable)."""
    return Layout._trusted((n,), (1,), 0)


def _arange_number(value: Any, name: str) -> int | float | np.integer | np.floating:
    """One bound or step of ``arange``: a real number, or the value of a 0-d tensor that does not
    require grad (PyTorch's parser takes no other tensor for a Number)."""
    if isinstance(value, Tensor) and value.ndim == 0:
        if value.requires_grad:
            raise StridedTypeError(join_lines(
                f"arange(): argument '{name}' must be Number, not Tensor",
                f"{name} is a 0-d tensor that requires grad, which PyTorch's parser does not read as a number; "
                f"fix: pass {name}.item() (arange's result has no gradient)"))
        value = value.item()  # (a bool one too: PyTorch reads arange(torch.tensor(True)) as arange(1))
    if isinstance(value, bool):
        return int(value)  # PyTorch: arange(True) is arange(1), int64
    if isinstance(value, np.bool_):
        return float(value)  # PyTorch's parser reads a NumPy bool as a float: arange(np.True_) is float32
    if not isinstance(value, (int, float, np.integer, np.floating)):
        raise StridedTypeError(
            join_lines(
                f"arange(): {name} must be a number, but got {type(value).__name__}",
                f"got {name}={value!r:.60}; start, end and step are Python ints or floats "
                "(or 0-d tensors), e.g. strided.arange(0, 10, 2)",
            )
        )
    return value


def _is_integral(dt: DType) -> bool:
    return not (dt.is_floating_point or dt.is_complex or dt is bool_)


def _to_int64(value: float) -> int:
    """A float bound or step read as int64 as PyTorch's ``Scalar::to<int64_t>`` reads it: truncated
    toward zero; RuntimeError beyond int64's range (2**63 itself converts, to x86's answer)."""
    if not -(2.0**63) <= value <= 2.0**63:
        raise StridedRuntimeError(join_lines(
            "value cannot be converted to type int64_t without overflow",
            f"arange into an integer dtype reads start and step (and, for int64, end) as int64: "
            f"{value!r} is beyond its range; make the range in float64, or use smaller numbers"))
    return int(value) if value < 2.0**63 else -(2**63)


def _arange_truncated(start: Any, end: Any, step: Any, is_int64: bool) -> tuple[int, int, int]:
    """``arange`` into an integer dtype with a float among its numbers, as PyTorch 2.13 computes it:
    the element count is ``ceil((end - start) / step)`` in float64, except for int64, where start,
    end and step are first truncated to int64 (a step truncated to 0 is a ValueError) and the count
    is ``(end - start + step - sign(step)) / step`` in integers (C's division); the values are
    ``start + i * step`` with start and step truncated to int64, cast (wrapping) to the dtype.
    Returns (count, start, step), the last two as ints.

    >>> _arange_truncated(0.9, 3.9, 1.9, True), _arange_truncated(0.9, 3.9, 1.9, False)
    ((3, 0, 1), (2, 0, 1))
    """
    count = _arange_count(start, end, step, False, counted=not is_int64)
    if is_int64:
        xs, xe, xt = _to_int64(float(start)), _to_int64(float(end)), _to_int64(float(step))
        if xt == 0:
            raise StridedValueError(join_lines(
                "step must be nonzero",
                f"an int64 range truncates its numbers first: step={step} becomes 0; "
                "give an integer step (at least 1 in size), or make the range in a float dtype"))
        sgn = (xt > 0) - (xt < 0)
        span = xe - xs + xt - sgn
        count = (abs(span) // abs(xt)) * (1 if (span >= 0) == (xt > 0) else -1)  # (C: toward zero)
        if not 0 <= count <= L.INT64_MAX:
            raise StridedRuntimeError(join_lines(
                "invalid size, possible overflow?",
                f"arange({start}, {end}, {step}) read as int64 ({xs}, {xe}, {xt}) holds {count} elements"))
    return count, _to_int64(float(start)), _to_int64(float(step))


def _arange_count(start: Any, end: Any, step: Any, all_int: bool, counted: bool = True) -> int:
    """The element count of ``arange(start, end, step)``, checked in PyTorch's order and words
    (``counted=False``: the checks of the bounds only, and 0)."""
    if not (step > 0 or step < 0):  # 0, -0.0 and NaN
        raise StridedRuntimeError(
            join_lines("step must be nonzero", f"arange was given step={step}; give a nonzero step")
        )
    if not all(math.isfinite(float(v)) for v in (start, end)):
        # PyTorch prints the bounds as C++ streams print doubles (%g), or as ints for an int range
        lo, hi = (start, end) if all_int else (f"{float(start):g}", f"{float(end):g}")
        raise StridedRuntimeError(
            join_lines(
                f"unsupported range: {lo} -> {hi}",
                "a range needs finite bounds: inf and nan give no element count; "
                "pass finite start and end",
            )
        )
    if (step > 0 and end < start) or (step < 0 and end > start):
        raise StridedRuntimeError(
            join_lines(
                "upper bound and lower bound inconsistent with step sign",
                f"arange({start}, {end}, {step}) walks away from its end; "
                f"flip the sign of step: arange({start}, {end}, {-step})",
            )
        )
    count: float
    if not counted:
        return 0
    if all_int:  # exact: ceil((end - start) / step) in integers
        count = -((int(start) - int(end)) // int(step))
    else:  # in float64, as PyTorch; a tiny step or a huge span gives inf, inf/inf gives NaN
        count = (float(end) - float(start)) / float(step)
        count = math.ceil(count) if math.isfinite(count) else count
    if not 0 <= count <= L.INT64_MAX:
        raise StridedRuntimeError(
            join_lines(
                "invalid size, possible overflow?",
                f"arange({start}, {end}, {step}) would hold {count} elements "
                f"(ceil((end - start) / step)), more than int64 can count; "
                "use a larger step or a shorter range",
            )
        )
    return int(count)




# ---------------------------------------------------------------- ranges, eye, empty_strided


def _space_bound(value: Any, name: str, op: str) -> Any:
    """``start``/``end`` of ``linspace``/``logspace`` as PyTorch's Scalar reads it: a real number
    (bool as 0/1), a complex one (Python's, NumPy's complex128: a subclass of it), or a 0-d
    tensor's value; NumPy's other complex scalars are read as floats (their real part, with
    NumPy's ComplexWarning, as PyTorch's float parse of them)."""
    if value.__class__ is float or value.__class__ is int:  # (the common call)
        return value
    if isinstance(value, Tensor):
        return value.item()
    if isinstance(value, complex):
        return complex(value)
    if isinstance(value, np.complexfloating):
        return float(value)
    if not isinstance(value, (bool, int, float, np.integer, np.floating, np.bool_)):
        raise StridedTypeError(
            join_lines(
                f"{op}(): argument '{name}' must be Number or Tensor, not {type(value).__name__}",
                f"got {name}={value!r:.60}; pass a Python number or a 0-d tensor",
            )
        )
    return value.item() if isinstance(value, np.generic) else value


def _space_dtype(start: Any, end: Any, dtype: Any, op: str, out_form: bool) -> DType:
    """The result dtype of ``linspace``/``logspace``: ``dtype``, else the default float; with a
    complex bound the default complex dtype, and a real ``dtype`` is PyTorch's RuntimeError
    (``linspace_logspace_infer_options``; not for the ``out=`` form, which reads the bounds as
    ``out``'s elements: an imaginary part is then refused, a zero one dropped)."""
    if out_form or not (start.__class__ is complex or end.__class__ is complex):
        return default_float() if dtype is None else to_dtype(dtype)
    inferred = default_complex()
    if dtype is None:
        return inferred
    dt = to_dtype(dtype)
    if not dt.is_complex:
        raise StridedRuntimeError(
            join_lines(f"torch.{op}(): inferred dtype {C10_NAME[inferred.name]} can't be safely cast to "
                       f"passed dtype {TORCH_NAME[dt.name]}",
                       f"a complex start or end makes a complex {op}; "
                       f"fix: pass dtype=strided.{inferred.name}, or real bounds (z.real)"))
    return dt


def _space_args(start: Any, end: Any, steps: Any, dtype: Any, device: Any, op: str,
                out_form: bool = False) -> tuple[Any, Any, int, DType]:
    """The checked arguments of ``linspace``/``logspace``, in PyTorch's order of checks
    (``out_form``: the ``out=`` form's, ``dtype`` being ``out``'s)."""
    if device is not None:
        parse_device(device, op)
    dims = [(name, v.ndim) for name, v in (("start", start), ("end", end)) if isinstance(v, Tensor)]
    if dims and any(n for _, n in dims):
        got = " and ".join(f"{name} with {n} dimension(s)" for name, n in dims)
        raise StridedRuntimeError(
            join_lines(
                f"{op} only supports 0-dimensional start and end tensors, but got {got}.",
                "fix: pass numbers, or 0-d tensors (t[i] of a 1-d tensor, or t.reshape(()) of a 1-element one)",
            )
        )
    start, end = _space_bound(start, "start", op), _space_bound(end, "end", op)
    steps = int_arg(steps, op, "steps", 3)
    if steps < 0:
        raise StridedRuntimeError(
            join_lines("number of steps must be non-negative",
                       f"{op} was given steps={steps}; steps counts the points, 0 or more"))
    dt = _space_dtype(start, end, dtype, op, out_form)
    if dt is bool_ and steps > 1:  # (0 steps make nothing, 1 is a fill: PyTorch's kernel is not called)
        raise StridedNotImplementedError(
            join_lines(f"\"{op}_cpu\" not implemented for 'Bool'",
                       f"fix: make the {op} in a number dtype, then compare (e.g. != 0)"))
    return start, end, steps, dt


def _as_element(value: Any, dtype: DType, op: str) -> Any:
    """``value`` read as one ``dtype`` element, as PyTorch's ``Scalar.to<scalar_t>()`` reads it:
    an overflow is PyTorch's RuntimeError; a float read as an integer is truncated toward zero; a
    complex value read as a real one is refused unless its imaginary part is 0."""
    message = scalar_overflow(value, dtype)
    if message is not None:
        raise StridedRuntimeError(
            join_lines(message, f"{op} was given {value!r}, outside the range of {dtype.name}",
                       "fix: pick a wider dtype (dtype=strided.float64 or strided.int64)"))
    if isinstance(value, complex) and not dtype.is_complex:
        value = value.real  # (its imaginary part is 0: scalar_overflow refused any other)
    if dtype.kind in "iu":  # truncated, then wrapped as C++ casts (-1 is 255 in uint8)
        return np.array(int(value)).astype(dtype.numpy)[()]
    return dtype.numpy.type(value)


def _wide_for(dtype: DType) -> Any:
    """The NumPy type that stands in for one fused multiply-add in ``dtype`` (see _ramp)."""
    return np.float64 if dtype.name == "float32" else np.longdouble


def _ramp(start: Any, end: Any, steps: int, step: Any, wide: Any) -> np.ndarray:
    """PyTorch's two-sided ramp: ``start + step*i`` for the first half, ``end - step*(steps-1-i)``
    for the rest, each computed as one fused multiply-add (as PyTorch's compiled kernels do):
    for a double ramp (``wide`` long double) with finite bounds C's exact fma
    (:func:`_ramp_fused64`), else computed in the wider type ``wide`` and rounded once (float32's
    products are exact in float64; with an infinite or NaN bound no rounding is left to differ)."""
    # (the counts made in ``wide`` directly: whole numbers below 2**53 are exact there, as the
    # int64 ones cast to it were)
    finite = math.isfinite(start) and math.isfinite(end)
    if finite and wide is np.longdouble:
        return _ramp_fused64(start, end, steps, step)
    i = np.arange(steps, dtype=wide)
    half = steps // 2
    if not finite:
        out = np.empty(steps, wide)
        out[:half] = wide(start) + wide(step) * i[:half]
        out[half:] = wide(end) - wide(step) * (wide(steps - 1) - i[half:])
        return out
    # Finite bounds: the same operations with the same operands in the same order, in place in
    # ``i`` (no temporaries: 1M steps ~3 ms -> ~1 ms). (Not for NaN bounds: a NaN start or end
    # makes NaN steps, and which of two NaN operands a sum keeps is the ufunc loop's choice; with
    # finite bounds no operation meets two NaNs.)
    lo, hi = i[:half], i[half:]
    np.multiply(wide(step), lo, out=lo)
    np.add(wide(start), lo, out=lo)
    np.subtract(wide(steps - 1), hi, out=hi)
    np.multiply(wide(step), hi, out=hi)
    np.subtract(wide(end), hi, out=hi)
    return i


def _ramp_fused64(start: Any, end: Any, steps: int, step: Any) -> np.ndarray:
    """:func:`_ramp` of a double ramp (float64, complex128's parts, the integer dtypes' double
    steps) with finite bounds: each element one exact fused multiply-add, ``fma(step, i, start)``
    for the first half and ``fma(-step, steps - 1 - i, end)`` after (PyTorch's contracted ``end -
    step * (steps - 1 - i)``), by the compiled ``fma64`` or its exact NumPy emulation
    (:func:`~strided.kernels.fused.fma_into`). A long double holds 64 bits: its product of a
    53-bit step and a count past 2**11 is not always exact, and 15 of 40,000 float64 steps differed
    from PyTorch's in the last bit. Call it with NumPy's warnings off (fma_into's rule)."""
    f8 = np.float64
    half = steps // 2
    counts = np.arange(steps, dtype=f8)
    np.subtract(f8(steps - 1), counts[half:], out=counts[half:])  # (steps - 1 - i: exact, below 2**53)
    out = np.empty(steps, f8)
    lo, hi = out[:half], out[half:]
    lo.fill(start)  # (the addends, then the sums over them, element for element: no other array)
    hi.fill(end)
    fma_into(f8(step), counts[:half], lo, lo)
    fma_into(-f8(step), counts[half:], hi, hi)
    return out


# _ramp_float32's block: its float64 counts (256 KB) stay in the L2 cache between operations
_RAMP_CHUNK = 1 << 15


def _ramp_float32(start: Any, end: Any, steps: int, step: Any) -> np.ndarray:
    """:func:`_ramp` in float64 for float32 bounds and a finite step (so finite bounds), at most
    2**24 steps, then rounded to float32: the same float64 values, each last operation rounding
    its float64 result to float32 as ``astype`` did, block by block so the float64 temporaries stay
    in cache and the result is written once (1M steps: six passes over 8 MB became one over 4 MB).

    Each product ``step * i`` is computed as ``step * c0 + step * k`` (``i = c0 + k``, ``k`` within
    the block, ``step * k`` computed once): a float32 step times a count below 2**24 has at most
    48 significant bits, so both products and their sum are exact in float64, the very value the
    whole-array ``step * i`` gave (the same holds for ``step * (steps - 1 - i)``)."""
    f8 = np.float64
    out = np.empty(steps, np.float32)
    w_start, w_end, w_step = f8(start), f8(end), f8(step)
    if (k := native.special()) is not None and k.ramp32_fill(float(w_start), float(w_end), float(w_step), out):
        return out  # (the blocks below in one compiled pass: the same exact products, the same roundings)
    step_k = np.multiply(w_step, np.arange(_RAMP_CHUNK, dtype=f8))  # (exact: see above)
    buf = np.empty(_RAMP_CHUNK, f8)
    half = steps // 2
    for c0 in range(0, half, _RAMP_CHUNK):
        n = min(_RAMP_CHUNK, half - c0)
        b = buf[:n]
        np.add(step_k[:n], w_step * f8(c0), out=b)  # step * i, exact
        np.add(w_start, b, out=out[c0:c0 + n], dtype=f8)
    for c0 in range(half, steps, _RAMP_CHUNK):
        n = min(_RAMP_CHUNK, steps - c0)
        b = buf[:n]
        np.subtract(w_step * f8(steps - 1 - c0), step_k[:n], out=b)  # step * (steps - 1 - i), exact
        np.subtract(w_end, b, out=out[c0:c0 + n], dtype=f8)
    return out


def _linspace_values(start: Any, end: Any, steps: int, dtype: DType) -> np.ndarray:
    """PyTorch's CPU linspace kernel, for ``steps >= 2``."""
    if dtype.name in ("float16", "bfloat16"):  # c10::Half/BFloat16 arithmetic: each operation rounded, no fusion
        h = dtype.numpy.type
        s, e = h(start), h(end)
        step = (e - s) / h(steps - 1)
        i = np.arange(steps)
        half = steps // 2
        out = np.empty(steps, h)
        out[:half] = s + step * i[:half].astype(h)
        out[half:] = e - step * (steps - 1 - i[half:]).astype(h)
        return out
    if dtype.is_complex:
        # c10::complex's ramp is its parts' (step * idx scales both, + and - take them apart), each
        # as its real dtype's (the same kernel, fused alike): measured bit for bit against PyTorch
        part, out = real_of(dtype), np.zeros(steps, dtype.numpy)
        out.real = _linspace_values(np.real(start), np.real(end), steps, part)
        if _copysign(1.0, start.imag) < 0 or _copysign(1.0, end.imag) < 0 or start.imag or end.imag:
            out.imag = _linspace_values(np.imag(start), np.imag(end), steps, part)
        # (else the ramp of +0 to +0, +0 throughout: the zeros there)
        return out
    if dtype.is_floating_point:
        s, e = dtype.numpy.type(start), dtype.numpy.type(end)
        step = (e - s) / dtype.numpy.type(steps - 1)
        if dtype.name == "float32" and _RAMP_CHUNK <= steps <= 1 << 24 and math.isfinite(step):
            return _ramp_float32(s, e, steps, step)
        return _ramp(s, e, steps, step, _wide_for(dtype)).astype(dtype.numpy, copy=False)
    # integer dtypes step in double, then truncate toward zero
    s, e = float(start), float(end)
    ramp = _ramp(s, e, steps, (e - s) / (steps - 1), np.longdouble).astype(np.float64)
    return np.trunc(ramp).astype(dtype.numpy)


# (op, start, end, steps, base, dtype) -> the read-only values linspace/logspace computed: the same
# call in a loop (a position encoding's frequencies, a plot's grid) copies them instead of
# recomputing (logspace's long-double powers cost ~0.5 µs an element). The values are a pure
# function of the key, whose numbers carry their type and sign (0.0 and -0.0, 1 and True differ);
# NaN bounds are never found again, so they are not kept. Bounded: short ramps only, and no new
# entries past _SPACE_LIMIT. (A dict: its get and set are atomic under the GIL, so threads at
# worst compute a ramp twice.)
_SPACE_VALUES: dict[tuple, np.ndarray] = {}
_SPACE_LIMIT = 256
_SPACE_STEPS = 4096


def _space_key(op: str, start: Any, end: Any, steps: int, base: Any, dtype: DType) -> tuple | None:
    """The memo key of a linspace/logspace call, or None when its bounds are not finite numbers."""
    for v in (start, end, base):
        if not (v.__class__ is float or v.__class__ is int or v.__class__ is bool) or not math.isfinite(v):
            return None
    return (op, steps, dtype, start.__class__, start, _copysign(1.0, start), end.__class__, end, _copysign(1.0, end),
            base.__class__, base, _copysign(1.0, base))


_copysign = math.copysign


def _space_values(key: tuple | None, compute: Any) -> np.ndarray:
    """``compute()``'s values, from the memo when ``key`` was computed before (see _SPACE_VALUES)."""
    values = None if key is None else _SPACE_VALUES.get(key)
    if values is None:
        values = compute()
        if key is not None and len(_SPACE_VALUES) < _SPACE_LIMIT and values.size <= _SPACE_STEPS:
            values.flags.writeable = False  # (shared by every later call: only ever copied from)
            _SPACE_VALUES[key] = values
    return values


def _space_result(values: np.ndarray, dt: DType) -> Tensor:
    """The fresh 1-d result of linspace/logspace holding ``values``: the array itself when it is
    a fresh one of ``dt`` (a memoized one is read-only: shared, so copied), else a copy of it."""
    if values.flags.writeable and values.dtype == dt.numpy and values.ndim == 1 and values.flags.c_contiguous \
            and values.base is None:
        return adopted(values, _cinfo_1d(values.shape[0]), dt)
    t = result(values.shape, dt)
    t._storage.array[...] = values
    return t


def linspace(start: Any, end: Any, steps: int, *, dtype: Any = None, device: Any = None,
             requires_grad: bool = False, out: Any = None) -> Tensor:
    """``steps`` evenly spaced values from ``start`` to ``end`` (both included), float32 unless
    ``dtype`` (complex bounds: the default complex dtype); PyTorch's exact values (its two-sided
    formula, a complex one's parts each as a real one's), integer dtypes truncated.

    >>> strided.linspace(0, 1, 5).tolist()
    [0.0, 0.25, 0.5, 0.75, 1.0]
    """
    if out is not None:
        return _factory_out("linspace", out, dtype,
                            lambda dt: _linspace(start, end, steps, dt, device, False, True), requires_grad)
    if (dtype is None and device is None and requires_grad is False and steps.__class__ is int and steps > 1
            and (key := _space_key("linspace", start, end, steps, 0, _DEFAULT[0])) is not None):
        # numbers seen before (their values remembered by the general path, which checked them): a copy
        values = _SPACE_VALUES.get(key)
        if values is not None and values.dtype is _DEFAULT[0].numpy:
            t = adopted(values.copy(), _cinfo_1d(steps), _DEFAULT[0])
            if OPEN: created("linspace", (), t)  # noqa: E701
            return t
    return _linspace(start, end, steps, dtype, device, requires_grad, False)


def _linspace(start: Any, end: Any, steps: int, dtype: Any, device: Any, requires_grad: bool,
              out_form: bool) -> Tensor:
    """:func:`linspace` without ``out=`` (``out_form``: the values of the ``out=`` form, whose
    ``dtype`` is out's: complex bounds are read as its elements)."""
    start, end, steps, dt = _space_args(start, end, steps, dtype, device, "linspace", out_form)
    if steps > 1:
        t = _space_result(_space_values(_space_key("linspace", start, end, steps, 0, dt),
                                        lambda: _linspace_computed(start, end, steps, dt)), dt)
    else:
        t = result((steps,), dt)
        if steps == 1:  # PyTorch fills with start (fill_'s rule), reading no end
            t._storage.array[...] = _fill_scalar(start, dt, "linspace", 1)
    if OPEN: created("linspace", (), t)  # noqa: E701
    return leaf(t, requires_grad, "linspace")


def _linspace_computed(start: Any, end: Any, steps: int, dt: DType) -> np.ndarray:
    """linspace's ``steps`` (>= 2) values of ``dt``, the bounds read as its elements, quietly (an
    infinite bound's NaN products are PyTorch's values: no NumPy warning)."""
    with np.errstate(all="ignore"):
        return _linspace_values(_as_element(start, dt, "linspace"), _as_element(end, dt, "linspace"), steps, dt)


def logspace(start: Any, end: Any, steps: int, base: float = 10.0, *, dtype: Any = None,
             device: Any = None, requires_grad: bool = False, out: Any = None) -> Tensor:
    """``base ** linspace(start, end, steps)``, as PyTorch's CPU kernel computes it (exponents
    and powers in double, then rounded, or truncated for integer dtypes; complex dtypes in their
    own precision, the powers the C library's ``cpow``).

    >>> strided.logspace(0, 2, 3).tolist()
    [1.0, 10.0, 100.0]
    """
    if (out is None and dtype is None and device is None and requires_grad is False and steps.__class__ is int
            and steps > 1
            and (key := _space_key("logspace", start, end, steps, base, _DEFAULT[0])) is not None
            and (values := _SPACE_VALUES.get(key)) is not None and values.dtype is _DEFAULT[0].numpy):
        # numbers seen before (their powers remembered by the general path, which checked them): a
        # copy, as linspace's
        t = adopted(values.copy(), _cinfo_1d(steps), _DEFAULT[0])
        if OPEN: created("logspace", (), t)  # noqa: E701
        return t
    base = _space_base(base)  # (a memo key's base is a Python number: checked already)
    if out is not None:
        return _factory_out("logspace", out, dtype,
                            lambda dt: _logspace(start, end, steps, base, dt, device, False, True), requires_grad)
    return _logspace(start, end, steps, base, dtype, device, requires_grad, False)


def _space_base(base: Any) -> Any:
    """logspace's ``base`` as PyTorch's float argument reads it: a real number (a bool as 0.0 /
    1.0), or a NumPy complex scalar read as a float (its real part, with NumPy's ComplexWarning);
    anything else (a Python complex number, a tensor) is its TypeError."""
    if isinstance(base, np.complexfloating):
        return float(base)
    if isinstance(base, (Tensor, complex)) or not isinstance(base, (int, float, np.integer, np.floating)):
        raise StridedTypeError(
            join_lines(f"logspace(): argument 'base' must be float, not {type(base).__name__}",
                       f"got base={base!r:.60}; pass a Python number, e.g. base=2.0"))
    return base


def _logspace(start: Any, end: Any, steps: int, base: Any, dtype: Any, device: Any, requires_grad: bool,
              out_form: bool) -> Tensor:
    """:func:`logspace` without ``out=``, its ``base`` checked (``out_form``: as :func:`_linspace`'s)."""
    start, end, steps, dt = _space_args(start, end, steps, dtype, device, "logspace", out_form)
    if steps > 1:
        t = _space_result(_space_values(_space_key("logspace", start, end, steps, base, dt),
                                        lambda: _logspace_values(start, end, steps, base, dt)), dt)
    else:
        t = result((steps,), dt)
        if steps == 1:  # PyTorch fills with base ** start (fill_'s rule)
            t._storage.array[...] = _fill_scalar(_logspace_one(start, base, dt), dt, "logspace", 1)
    if OPEN: created("logspace", (), t)  # noqa: E701
    return leaf(t, requires_grad, "logspace")


def _logspace_one(start: Any, base: Any, dt: DType) -> Any:
    """The value PyTorch's logspace of one step fills with: ``std::pow(base, start)`` in double,
    of ``start`` read as a ``complex<double>`` for a complex dtype (libstdc++'s power of a real
    base), else as a double (an imaginary part refused: PyTorch's ``to<double>()``)."""
    if dt.is_complex:
        return logspace_one(complex(start), float(base))
    if start.__class__ is complex:
        message = scalar_overflow(start, float64)
        if message is not None:
            raise StridedRuntimeError(
                join_lines(message, f"logspace was given start={start!r}, read as a double for a {dt.name} result",
                           "fix: pass a real start, or dtype=strided.complex64"))
        start = start.real
    with np.errstate(all="ignore"):
        return float(_glibc_power(np.float64(base), np.array([float(start)]))[0])


def _logspace_values(start: Any, end: Any, steps: int, base: Any, dt: DType) -> np.ndarray:
    """PyTorch's CPU logspace kernel, for ``steps >= 2``."""
    s, e = _as_element(start, dt, "logspace"), _as_element(end, dt, "logspace")
    if dt.is_complex:  # (PyTorch's loop of its own, in complex arithmetic: see kernels.complex_space)
        return complex_logspace(s, e, steps, base, dt.numpy)
    # PyTorch's CPU kernel: start and end read as dtype elements, their difference taken in
    # dtype, the step and the exponents start + step*i (two-sided, each operation rounded:
    # this loop is not fused) in double, then the power in double (glibc's pow, matched by a
    # long-double power rounded to double: NumPy's SIMD float64 power differs in the last
    # bit), rounded to dtype (truncated for integer dtypes: the base a double there too, as
    # PyTorch 2.13's static_cast<double>(base); a float32 base gave 15% of 13,637 drawn integer
    # logspaces other values, 1136881152 for PyTorch's 1136880918 = 3.7 ** 15.9375).
    with np.errstate(all="ignore"):
        span = np.float64(e - s) if dt.is_floating_point else np.float64(int(e) - int(s))
        step = span / np.float64(steps - 1)
        if dt.numpy in _FILLED and (k := native.special()) is not None:
            b = np.float64(base)
            out = np.empty(steps, dt.numpy)
            # (the steps below, and pow_base's power, in one compiled pass: 2^20 float32 ~18 -> ~11 ms)
            if k.logspace_fill(float(np.float64(s)), float(np.float64(e)), float(step), float(b), out):
                return out
        i = np.arange(steps, dtype=np.float64)
        half = steps // 2
        exps = np.empty(steps)
        exps[:half] = np.float64(s) + step * i[:half]
        exps[half:] = np.float64(e) - step * (steps - 1 - i[half:])
        powers = _glibc_power(np.float64(base), exps)
        if dt.kind in "iu":
            return _c_cast(powers, dt)
        # (float16 and bfloat16: c10::Half and BFloat16 are made from a float, so PyTorch's double
        # power is rounded to float32 first, then to the half type: two roundings, as here)
        return (powers.astype(np.float32) if dt.numpy.itemsize == 2 else powers).astype(dt.numpy)


# the dtypes whose logspace the compiled logspace_fill writes (rounded once from the double power)
_FILLED = (np.dtype(np.float32), np.dtype(np.float64))


def _glibc_power(base: np.float64, exps: np.ndarray) -> np.ndarray:
    """``base ** exps`` (float64) as the C library's ``pow`` gives it (PyTorch's kernel calls
    ``std::pow``): the compiled loop where it is built, else a long-double power rounded to double
    (glibc's pow is correctly rounded nearly always; about one element in a thousand may then
    differ in the last bit)."""
    kernel = native.special()
    if kernel is not None:
        out = np.empty_like(exps)
        if kernel.pow_base(float(base), exps, out):  # (fresh: never an overlap)
            return out
    return np.power(np.longdouble(base), exps.astype(np.longdouble)).astype(np.float64)


def _c_cast(values: np.ndarray, dtype: DType) -> np.ndarray:
    """float64 ``values`` cast to an integer ``dtype`` as PyTorch's compiled cast does on x86:
    truncation toward zero through int64 (for int64) or int32 (narrower types, whose low bits are
    kept); a value out of that range, or NaN, becomes its minimum (the "integer indefinite")."""
    wide, low = (np.int64, -(2**63)) if dtype.name == "int64" else (np.int32, -(2**31))
    info = np.iinfo(wide)
    ok = (values >= float(info.min)) & (values < -float(info.min))
    as_int = np.where(ok, np.trunc(np.where(ok, values, 0.0)), low).astype(wide)
    return as_int.astype(dtype.numpy)


def eye(n: int, m: int | None = None, *, dtype: Any = None, device: Any = None,
        requires_grad: bool = False, out: Any = None) -> Tensor:
    """An ``n`` x ``m`` (default ``n`` x ``n``) matrix with ones on the diagonal, float32 unless ``dtype``.

    >>> strided.eye(2, 3).tolist()
    [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    """
    if out is not None:
        return _factory_out("eye", out, dtype, lambda dt: eye(n, m, dtype=dt, device=device), requires_grad)
    if device is None and requires_grad is False and n.__class__ is int and (m is None or m.__class__ is int):
        cols = n if m is None else m
        key = ((n, cols), None)
        plan = _result_plans.get(key)  # (remembered only for a layout result() checked: sizes >= 0, in int64)
        if plan is None and 0 <= n <= _FAST_ELEMENTS and 0 <= cols <= _FAST_ELEMENTS and n * cols <= _FAST_ELEMENTS:
            plan = _result_plan(*key)
        if plan is not None and plan[0] <= _FAST_ELEMENTS:  # (int sizes, nothing else: the general path's values)
            dt = _DEFAULT[0] if dtype is None else to_dtype(dtype)
            eye_run = _EYES.get((n, cols, dt))
            if eye_run is None:
                array = _zeros(plan[0], dt.numpy)
                array[:: cols + 1][: min(n, cols)] = 1
                if plan[0] <= 4096 and len(_EYES) < 64:  # (remembered read-only: later calls copy it)
                    _EYES[(n, cols, dt)] = eye_run = array.copy()
                    eye_run.flags.writeable = False
            else:
                array = eye_run.copy()  # (a copy: ~0.15 us under zeros and the diagonal's write)
            t = adopted(array, plan[1], dt)
            if OPEN: created("eye", (), t)  # noqa: E701
            return t
    parse_device(device, "eye")
    n = int_arg(n, "eye", "n", 1)
    m = n if m is None else int_arg(m, "eye", "m", 2)
    for name, v in (("n", n), ("m", m)):
        if v < 0:
            raise StridedRuntimeError(
                join_lines(f"{name} must be greater or equal to 0, got {v}",
                           f"eye({n}, {m}) asks for a matrix with {v} {'rows' if name == 'n' else 'columns'}"))
    dt = default_float() if dtype is None else to_dtype(dtype)
    t = zeroed_result((n, m), dt)  # (calloc's zeros: no fill pass)
    t._storage.array[:: m + 1][: min(n, m)] = 1
    if OPEN: created("eye", (), t)  # noqa: E701
    return leaf(t, requires_grad, "eye")


# (rows, cols, dtype) -> eye's flat row-major run, read-only, for small matrices of int sizes
_EYES: dict[tuple[int, int, DType], np.ndarray] = {}


@functools.lru_cache(maxsize=256)
def _strided_plan(shape: tuple[int, ...], strides: tuple[int, ...], itemsize: int) -> tuple[int, Layout]:
    """The elements a storage needs under the checked layout ``(shape, strides, 0)``, and that
    Layout (immutable: every result of it shares the object); cached, as a loop asks for the same
    layout again; a refused one raises, and nothing is cached."""
    L.check_layout(shape, strides, 0, itemsize=itemsize)
    layout = Layout._trusted(shape, strides, 0)
    return (L.storage_extent(layout)[1] if L.product(shape) else 0), layout


def empty_strided(size: Any, stride: Any, *, dtype: Any = None, device: Any = None,
                  requires_grad: bool = False) -> Tensor:
    """Uninitialized memory laid out with the given ``size`` and ``stride`` (offset 0); the
    storage holds exactly the elements the layout reaches (strides may leave gaps, or be 0).

    >>> strided.empty_strided((2, 3), (1, 2)).stride()
    (1, 2)
    """
    if (dtype is None and device is None and requires_grad is False and size.__class__ is tuple
            and stride.__class__ is tuple and (plan := _strided_plans.get((size, stride, _DEFAULT[0]))) is not None):
        for v in size + stride:  # (2.0 and True hash as 2 and 1 do: every size and stride an int)
            if v.__class__ is not int:
                break
        else:
            d = _DEFAULT[0]
            t = adopted(_empty(plan[0], d.numpy), plan[1], d) if plan[0] <= _FAST_ELEMENTS else _adopted_empty(plan, d)
            if t is not None:
                if OPEN: created("empty_strided", (), t)  # noqa: E701
                return t
    parse_device(device, "empty_strided")
    shape, strides, _ = L.normalize_layout_args(size, stride, 0)
    if len(shape) != len(strides):
        raise StridedRuntimeError(
            join_lines(
                f"dimensionality of sizes ({len(shape)}) must match dimensionality of strides ({len(strides)})",
                f"size {shape} and stride {strides}: give one stride per size",
            )
        )
    dt = default_float() if dtype is None else to_dtype(dtype)
    if strides and min(strides) < 0:  # (one C call in the common case; the loop names the stride)
        for k, s in enumerate(strides):
            if s < 0:
                raise StridedRuntimeError(
                    join_lines(
                        f"Storage size calculation overflowed with sizes={list(shape)} and strides={list(strides)}",
                        f"stride[{k}] is {s}; empty_strided takes strides of 0 or more (flip a copy for "
                        "reversed order)",
                    )
                )
    if shape and min(shape) < 0:
        result(shape, dt)  # raises the negative-size error (PyTorch checks it first)
    n, layout = _strided_plan(shape, strides, dt.itemsize)
    t = result((n,), dt)
    t._layout = layout
    # (checked and made: the fast path's from the next call on, whose allocation may still fail)
    if len(_strided_plans) >= 256:
        _strided_plans.clear()
    _strided_plans[(shape, strides, dt)] = (n, layout)
    if OPEN: created("empty_strided", (), t)  # noqa: E701
    return leaf(t, requires_grad, "empty_strided")


# (sizes, strides, dtype) -> empty_strided's (element count, Layout), for layouts the general path
# checked and made (plain int tuples: the fast path tests each is an int). Bounded; an entry is a
# pure function of its key, so racing threads only repeat work.
_strided_plans: dict[tuple[tuple[int, ...], tuple[int, ...], DType], tuple[int, Layout]] = {}


# the kinds of this module's ops, in the op registry: new memory from no tensor's elements (a
# ``*_like`` reads only its argument's layout and dtype), and from_numpy's wrap of the array's memory
declare(Kind.ALLOC, "tensor empty zeros ones full empty_like zeros_like ones_like full_like arange linspace "
                    "logspace eye empty_strided", layout_only="empty_like zeros_like ones_like full_like",
        no_history="tensor linspace logspace")
declare(Kind.VIEW, "from_numpy")
