"""The write path: ``copy_``, ``fill_``, ``zero_``, ``t[key] = value`` and ``resize_``.

The one layer above ``tensor`` that changes a tensor's memory in place (or, for ``resize_``,
its layout). Its methods are installed on :class:`~strided.tensor.Tensor` at import (see
:func:`~strided.tensor.installs_as`), as the ops install theirs; in-place autograd and version counters will
live here.

Every write goes through :func:`_write`, which checks everything before it writes anything,
so a failed write changes nothing: the target must be writable and must not write one memory
location twice (:func:`strided.kernels.check_writable`), the source must not partly overlap
the target, and it must broadcast to the target's shape. How each operation reads its value
(its broadcast rule, how a Python number is converted, whether a number may fill aliased
elements) is a :class:`WriteRule` value, one per operation, not a branch on its name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import layout as L
from .args import index_key, is_number, parse_sizes, type_name
from .creation import array_source, dense_format_strides, tensor
from .dispatch import OPEN, created, memory_overlap, shares_storage
from .dtypes import TORCH_NAME, DType, bfloat16
from .errors import (
    StridedError,
    StridedRuntimeError,
    StridedTypeError,
    join_lines,
)
from .gradients import installs_as
from .indexing import AdvancedIndex, index_layout
from .kernels import check_writable, grow_storage, numpy_view, torch_loops, write
from .kernels.bf16_casts import copy_nans, is_float_source, narrow_into, number_nans
from .kernels.fill import fill
from .kernels.memory import elements_overlap, flat_run
from .layout import Layout
from .layout.core import may_share_elements
from .messages import overlapping_write, partial_overlap, read_after_write
from .scalars import filled, numpy_scalar, parse_int, parse_setitem_int, wrapped
from .tensor import ADVANCED_INDEXING, Tensor

# ---------------------------------------------------------------- how each write reads its value


def _wrapped_number(value: Any, dtype: DType, op: str, numel: int) -> Any:
    """``copy_(number)``: PyTorch makes a tensor of the number first, so an int wraps unchecked."""
    if isinstance(value, int) and not isinstance(value, bool):
        return wrapped(parse_int(value, op), dtype)
    return value


def _setitem_number(value: Any, dtype: DType, op: str, numel: int) -> Any:
    """``t[...] = number``: read as int64, then written through a one-element ``fill_``."""
    if isinstance(value, int) and not isinstance(value, bool):
        parse_setitem_int(value, "t[...] = value")
    return filled(value, dtype, "t[...] = value", 1)


def _filled_number(value: Any, dtype: DType, op: str, numel: int) -> Any:
    """``fill_``/``zero_``: PyTorch's fill_ check (float16 unchecked for one element)."""
    if isinstance(value, int) and not isinstance(value, bool):
        value = parse_int(value, op)
    return filled(value, dtype, op, numel)


def _numpy_number(value: np.generic, dest: Tensor, rule: WriteRule) -> Any:
    """A NumPy scalar written by ``rule`` as PyTorch takes it: ``fill_``/``copy_`` read it as their
    ``Scalar`` argument (:func:`strided.scalars.numpy_scalar`); ``t[i] = v`` takes only NumPy
    integers and the NumPy types that subclass Python's float (float64) and complex
    (complex128): the rest is PyTorch's TypeError "can't assign a numpy.float32 to a
    torch.LongTensor"."""
    if rule is not SETITEM:
        return numpy_scalar(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, (float, complex)):
        return value.item()
    name = f"numpy.{type(value).__name__}"
    raise StridedTypeError(join_lines(
        f"can't assign a {name} to a torch.{TORCH_NAME[dest._dtype.name]}Tensor",
        f"PyTorch takes NumPy ints, float64 and complex128 here; fix: t[...] = {type(value).__name__}_value.item()"))


@dataclass(frozen=True)
class WriteRule:
    """How one in-place write reads its value, as PyTorch's operation of that name does.

    - ``op``: the name messages use.
    - ``broadcast_to``: True for ``copy_`` (TensorIterator's rule: broadcasting the source with
      the target must give the target's own shape, see :func:`_check_copy_broadcast`); False
      for the others (PyTorch's ``copy_to``: the value's leading size-1 dims are dropped, then it
      is expanded to the target's shape).
    - ``judge_expanded``: the overlap judgement reads the value expanded to the target's shape
      (``t[...] = v``, as PyTorch's setitem expands first), rather than the value itself.
    - ``number``: how a Python or NumPy number becomes the value written (see
      :mod:`strided.scalars`), called as ``number(value, dtype, op, numel)``.
    - ``number_may_alias``: a number may fill aliased (stride-0) elements, which all get the one
      value (``fill_``, ``zero_``); a tensor source never may.
    - ``fix``: the way out of a partly overlapping source, in this operation's words.
    """

    op: str
    broadcast_to: bool
    judge_expanded: bool
    number: Callable[[Any, DType, str, int], Any]
    number_may_alias: bool
    fix: str


COPY = WriteRule("copy_", True, False, _wrapped_number, False,
                 "fix: copy the source first: dest.copy_(src.clone())")
SETITEM = WriteRule("setitem", False, True, _setitem_number, False,
                    "fix: copy the value first: t[...] = value.clone()")
FILL = WriteRule("fill_", False, False, _filled_number, True,
                 "fix: copy the source first: pass src.clone() to fill_")
ZERO = WriteRule("zero_", False, False, _filled_number, True,
                 "fix: copy the source first: pass src.clone() to zero_")


# ---------------------------------------------------------------- the methods


@installs_as("copy_")
def copy_(self: Tensor, src: Any) -> Tensor:
    """Write ``src`` (a tensor broadcast to this shape, or a number) into this tensor's memory.

    As PyTorch's ``copy_``: ``src`` broadcasts *to* this shape (it may not
    add dims, not even leading size-1 ones); a tensor that partly overlaps
    this one in memory is refused; a number wraps into the dtype unchecked.
    Example: ``strided.zeros(2, 3).copy_(strided.tensor([1.0, 2.0, 3.0]))`` writes the row twice.

    >>> x = strided.zeros(2, 3)
    >>> x[:, 1:].copy_(strided.tensor([1.0, 2.0])).tolist()
    [[1.0, 2.0], [1.0, 2.0]]
    >>> x.tolist()
    [[0.0, 1.0, 2.0], [0.0, 1.0, 2.0]]
    """
    if src is self:
        return self
    if src.__class__ is Tensor and src._dtype is self._dtype and not OPEN:
        dest, source = _flat_run(self), _flat_run(src)
        if (dest is not None and source is not None and src._layout.shape == self._layout.shape
                and dest.flags.writeable and not shares_storage(src, self)):
            # (an optimizer's copy_ of a tensor of its shape and dtype: the general path's checks
            # all pass and its write copies the same elements in the same order, exactly)
            np.copyto(dest, source)
            return self
    if not isinstance(src, Tensor) and not is_number(src):
        raise StridedTypeError(
            f"copy_(): argument 'other' (position 1) must be Tensor, not {type_name(src)}\n"
            "  fix: wrap data first: t.copy_(strided.tensor(data)) or t[...] = data"
        )
    _write(self, src, COPY)
    return self


@installs_as("fill_")
def fill_(self: Tensor, value: Any) -> Tensor:
    """Write one value everywhere; a number may fill an expanded tensor, as in PyTorch.
    Example: ``strided.zeros(3).expand(2, 3).fill_(7)`` writes 7 into the 3 elements.

    >>> x = strided.zeros(3)
    >>> _ = x.expand(2, 3).fill_(7)
    >>> x.tolist()
    [7.0, 7.0, 7.0]
    """
    if not isinstance(value, Tensor) and not is_number(value):
        raise StridedTypeError(
            f"fill_() received an invalid combination of arguments - got ({type_name(value)}), "
            "but expected (Number value) or (Tensor value)\n"
            f"  got {value!r:.60}; fill_ writes one number everywhere: t[...] = data writes "
            "a sequence or array"
        )
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise StridedRuntimeError(
                join_lines(
                    f"fill_ only supports 0-dimension value tensor but got tensor with {value.ndim} dimensions.",
                    f"the value has shape {value.shape}; fill_ writes one value everywhere. To write "
                    "it elementwise (broadcast): t.copy_(value) or t[...] = value",
                )
            )
        if shares_storage(value, self):
            # PyTorch reads the one value before it writes (fill_(t[1]) is allowed): so do we
            value = value.clone()
    # Note: as PyTorch, a number may fill aliased (stride-0) elements: they all get one value.
    _write(self, value, FILL)
    return self


@installs_as("zero_")
def zero_(self: Tensor) -> Tensor:
    """Write 0 everywhere (``fill_(0)``).

    >>> strided.ones(2).zero_().tolist()
    [0.0, 0.0]
    """
    run = _flat_run(self)
    if run is not None and run.flags.writeable:  # (row-major: no overlapping elements to refuse)
        fill(run, 0)
        return self
    _write(self, 0, ZERO)
    return self


def _flat_run(t: Tensor) -> np.ndarray | None:
    """The elements of a row-major ``t`` as one run of its storage (no copy), else None."""
    shape = t._layout.shape
    return flat_run(t, (L.contiguous_strides(shape), L.product(shape)))


@installs_as("__setitem__")
def setitem(self: Tensor, key: Any, value: Any) -> None:
    """``t[key] = value``: writes through the view ``t[key]`` into this tensor's storage.

    # Note: PyTorch takes only numbers and tensors here; strided also takes
    # sequences and NumPy arrays (read as ``strided.tensor(value)`` would).

    An advanced key (index tensors, lists, arrays, masks) writes through
    :mod:`strided.ops.indexing.advanced`, with this module's checks (``check_writable``, the
    ``SETITEM`` rule, :func:`_as_source`), all before the write. A short list holding sequences,
    tensors, slices, None or ... is a tuple of indices (PyTorch 2.13: ``args.index_key``).
    """
    if key.__class__ is list:
        key = index_key(key)
    try:
        view = index_layout(self._layout, key)
    except AdvancedIndex:
        ADVANCED_INDEXING["setitem"](self, key, value)
        return
    _write(self._view(view), value, SETITEM)


@installs_as("resize_")
def resize_(self: Tensor, *sizes: Any, memory_format: Any = None) -> Tensor:
    """PyTorch's resize_: same sizes keep strides; else contiguous strides, storage grown if needed.
    ``memory_format=`` (contiguous_format, channels_last, channels_last_3d) restrides to that
    format even when the sizes stay. Example: ``strided.zeros(2, 3).resize_(6)`` has shape (6,),
    strides (1,), the same storage.

    >>> strided.zeros(2, 3).resize_(6).shape
    (6,)
    """
    shape = parse_sizes(sizes, "resize_")
    strides = None if memory_format is None else dense_format_strides(shape, memory_format, "resize_", _RESIZE_PRESERVE)
    for s in shape:
        if s < 0:
            raise StridedRuntimeError(
                join_lines(
                    f"Trying to create tensor with negative dimension {s}: {list(shape)}",
                    f"resize_ size[{shape.index(s)}] is {s}; every size must be 0 or more",
                )
            )
    if shape == self._layout.shape and strides is None:
        return self
    strides = L.contiguous_strides(shape) if strides is None else strides
    return resize_strided(self, shape, strides)


def resize_strided(self: Tensor, shape: tuple[int, ...], strides: tuple[int, ...]) -> Tensor:
    """``self`` given the dense layout ``(shape, strides)`` at its offset, its storage grown when
    too small: ``resize_`` followed by ``as_strided_``, as PyTorch's ``resize_output`` does for an
    ``out=`` tensor that TensorIterator gives the input's memory order. ``strides`` must be
    non-overlapping and dense (every element of the storage span is addressed once).

    >>> resize_strided(strided.empty(0), (3, 2), (1, 3)).stride()
    (1, 3)
    """
    offset = self._layout.offset
    # every invariant, checked before the storage grows: a failed resize_ changes nothing
    L.check_layout(shape, strides, offset, itemsize=self._dtype.itemsize)
    numel = L.product(shape)
    grows = numel and offset + numel > self._storage.size()
    if grows:
        grow_storage(self._storage, offset + numel)
    self._layout = Layout._trusted(shape, strides, offset)
    if grows and OPEN:
        created("resize_", (), self)  # new memory: a watch counts the grown buffer
    return self


# ``resize_(..., memory_format=preserve_format)``: PyTorch's text, missing space and all (so a
# search for it finds this), and why
_RESIZE_PRESERVE = ("Unsupported memory formatPreserve",
                    "resize_ makes a dense layout: pass strided.contiguous_format, strided.channels_last "
                    "or strided.channels_last_3d (or leave memory_format= out)")


# ---------------------------------------------------------------- the one write


def _write(dest: Tensor, value: Any, rule: WriteRule) -> None:
    """Broadcast ``value`` into ``dest`` under ``rule``, with PyTorch's checks; nothing changes on error."""
    if (
        isinstance(value, Tensor)
        and value._storage is dest._storage
        and value._dtype is dest._dtype
        and value._layout == dest._layout
    ):
        return  # the same elements: PyTorch's copy_ returns early, before any check
    op = rule.op
    is_tensor = isinstance(value, Tensor)
    check_writable(dest._storage, dest._layout, op, rule.number_may_alias and not is_tensor)
    lay = dest._layout
    if is_tensor and shares_storage(value, dest):
        seen = _as_read(value._layout, lay, rule)
        status = memory_overlap(dest, value, seen)
        if status is L.OverlapStatus.PARTIAL:
            raise partial_overlap(rule.op, dest._layout, value._layout, L.storage_extent(dest._layout),
                                  L.storage_extent(value._layout), rule.fix)
        if status is L.OverlapStatus.TOO_HARD and len(seen.shape) <= len(lay.shape):
            where = torch_loops.read_after_write((lay.shape, lay.strides, lay.offset, dest._dtype.itemsize),
                                                 (seen.shape, seen.strides, seen.offset, value._dtype.itemsize),
                                                 copy=value._dtype is dest._dtype)
            if where is not None:
                raise read_after_write(rule.op, lay, value._layout, where, rule.fix)
            if (may_share_elements(lay.shape, lay.strides) and elements_overlap(lay.shape, lay.strides)
                    and _touches(dest, value)):
                # (may_share_elements is a quick "maybe": (3, 3) strides (2, 3) do not nest, yet
                # reach nine distinct places; elements_overlap lists them, cached, up to 8M elements;
                # a source in the same storage but on none of the target's bytes is a plain copy)
                # (read_after_write models a target whose elements are distinct; into one whose
                # elements share memory PyTorch's loop reads the source after its own writes in ways
                # it does not follow: 6 of 500 random such copies gave other numbers. Refused.)
                raise overlapping_write(lay, [], rule.op)
    elif is_number(value):
        if isinstance(value, np.generic):
            value = _numpy_number(value, dest, rule)
        write(dest._storage, lay, rule.number(value, dest._dtype, op, L.product(lay.shape)))
        if dest._dtype is bfloat16 and value != value:  # (a NaN: c10::BFloat16 of the number is 0x7FC0)
            number_nans(numpy_view(dest._storage, lay))
        return
    source = _as_source(value)
    src_shape = source.shape
    if rule.broadcast_to:
        _check_copy_broadcast(lay.shape, src_shape)
    else:
        # leading size-1 dims of the source are dropped, as PyTorch's copy_to does
        while len(src_shape) > len(lay.shape) and src_shape[0] == 1:
            src_shape = src_shape[1:]
        try:
            L.expand(Layout._trusted(src_shape, (0,) * len(src_shape), 0), lay.shape)
        except StridedRuntimeError as err:
            raise StridedRuntimeError(
                join_lines(
                    str(err).splitlines()[0],
                    f"t[...] = value writes a value of shape {tuple(source.shape)} into the indexed "
                    f"shape {lay.shape}: aligned from the right, each size of the value must equal "
                    "the target's or be 1 (leading size-1 dims of the value are dropped)",
                    "fix: give the value the indexed shape (value.reshape(...)), or index a part "
                    "of the tensor that has the value's shape",
                )
            ) from None
        source = source.reshape(src_shape)
    if dest._dtype is bfloat16 and is_float_source(source):
        written = numpy_view(dest._storage, lay)
        if (shares_storage(value, dest) if isinstance(value, Tensor) else
                isinstance(value, np.ndarray) and not np.may_share_memory(written, source)) is False \
                and isinstance(value, (Tensor, np.ndarray)) and narrow_into(written, source):
            return  # (one run on both sides: the compiled conversion, PyTorch's words)
        write(dest._storage, lay, source)
        _bf16_nans(written, value, source)
        return
    write(dest._storage, lay, source)


def _bf16_nans(written: np.ndarray, value: Any, source: np.ndarray) -> None:
    """PyTorch's NaN words in the bfloat16 elements ``written`` (a view of a tensor) just written from the
    float32/float64 ``source`` read from ``value`` (:mod:`strided.kernels.bf16_casts`): a tensor
    is copied straight in (``copy_``'s rows over both layouts), a NumPy array (PyTorch refuses
    one) as the tensor ``from_numpy`` would make of it, anything else (sequences, NumPy scalars;
    PyTorch refuses sequences) number by number, as ``tensor(value, dtype=bfloat16)``."""
    if isinstance(value, (Tensor, np.ndarray)):
        copy_nans(written, source)
    else:
        number_nans(written)


def _check_copy_broadcast(out_shape: tuple[int, ...], src_shape: tuple[int, ...]) -> None:
    """PyTorch's TensorIterator rule for ``copy_``: broadcast(out, src) must be out's own shape."""
    result = L.broadcast_pair(out_shape, src_shape)
    if type(result) is not tuple:
        raise StridedRuntimeError(
            join_lines(
                f"The size of tensor a ({result.size_a}) must match the size of tensor b "
                f"({result.size_b}) at non-singleton dimension {result.dim}",
                f"copy_ writes a source of shape {src_shape} into shape {out_shape}: the sizes "
                "must be equal or 1 in the source, aligned from the right",
                "fix: give the source a shape that broadcasts (src.reshape(...), src.unsqueeze(d))",
            )
        )
    if result != tuple(out_shape):
        raise StridedRuntimeError(
            join_lines(
                f"output with shape {list(out_shape)} doesn't match the broadcast shape {list(result)}",
                f"copy_ never grows the written-to tensor: the source of shape {src_shape} has "
                "more dims or larger sizes",
                "fix: drop the source's extra size-1 dims with .squeeze(), or write through "
                "indexing (t[...] = src), which drops leading size-1 dims",
            )
        )


def _as_read(source: Layout, dest: Layout, rule: WriteRule) -> Layout:
    """The layout a write reads its source through, for the overlap judgement: ``t[...] = v``
    expands ``v`` to the indexed shape first (as PyTorch's setitem does, so a broadcast row of
    the target is read through stride 0: not a partial overlap); ``copy_`` judges ``v`` itself."""
    if not rule.judge_expanded or source.shape == dest.shape:
        return source
    shape, strides = source.shape, source.strides
    while len(shape) > len(dest.shape) and shape[0] == 1:
        shape, strides = shape[1:], strides[1:]
    try:
        return L.expand(Layout._trusted(shape, strides, source.offset), dest.shape)
    except StridedRuntimeError:
        return source  # (the shape error follows)


def _as_source(value: Any) -> np.ndarray:
    """What a write reads: a NumPy view for tensors (read in place), else the array
    ``strided.tensor(value)`` would hold.

    Sequences go through ``tensor()`` itself (its checks, into a temporary), and NumPy arrays
    through its dtype check (read in place: copying them cannot fail part way), so a value
    ``tensor()`` refuses (strings, None, ragged rows, ints beyond int64, unsupported dtypes)
    is refused before anything is written.
    """
    if isinstance(value, Tensor):
        return value._np()
    if isinstance(value, np.ndarray):
        return array_source(value)
    if isinstance(value, (list, tuple, np.generic)) or (hasattr(value, "__array__") and not isinstance(value, str)):
        try:
            return tensor(value)._np()
        except StridedError as err:
            raise _sequence_error(value, err) from None
    raise StridedTypeError(
        join_lines(
            f"cannot write a value of type {type(value).__name__} into a tensor",
            f"got {value!r:.60}; write a number, a sequence of numbers, a NumPy array or a strided tensor",
        )
    )


def _sequence_error(value: Any, err: Exception) -> Exception:
    """``tensor()``'s refusal of a value written with ``t[...] = value``, as a TypeError (PyTorch's
    class for a value it cannot write), with its reason and, for ragged rows, their lengths."""
    lines = str(err).splitlines()
    details = [line.strip() for line in lines[1:]]
    if isinstance(value, (list, tuple)) and any(isinstance(v, (list, tuple)) for v in value):
        lengths = [len(v) if isinstance(v, (list, tuple)) else None for v in value]
        if len(set(lengths)) > 1:
            details.append(f"the rows have lengths {lengths!r:.80} (None: a number)")
    details.append("fix: give every row the same length and numbers only (write ragged rows one at a "
                   "time: t[i] = row), or build the value first: t[...] = strided.tensor(data)")
    return StridedTypeError(join_lines(f"cannot write this value into a tensor: {lines[0]}", *details))


def _touches(dest: Tensor, value: Tensor) -> bool:
    """Whether ``value`` (in ``dest``'s storage) reads a byte ``dest`` writes: NumPy's exact
    solver, bounded; a problem too hard for it within the bound counts as touching (refused)."""
    try:
        return bool(np.shares_memory(numpy_view(dest._storage, dest._layout),
                                     numpy_view(value._storage, value._layout), max_work=1 << 20))
    except np.exceptions.TooHardError:
        return True
