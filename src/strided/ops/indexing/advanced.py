"""Advanced indexing: ``t[key]`` and ``t[key] = value`` with index tensors, lists, NumPy arrays and
bool masks, and ``index_put_`` / ``index_put``, with PyTorch's semantics.

Basic indexing (ints, slices, None, ``...``) is a view, planned by :func:`strided.indexing.index_layout`;
when that meets anything else it raises :class:`~strided.indexing.AdvancedIndex`, and
``Tensor.__getitem__`` / ``__setitem__`` hand the key to this module (installed in
:data:`strided.tensor.ADVANCED_INDEXING`). The basic path pays nothing for it.

One plan serves reading and writing (:func:`plan_index`), as PyTorch's ``applySlicing`` then
``index`` do it:

1. every basic item is applied first, as a view: an int selects (so it is a BASIC index, not an
   advanced one, see the Note in :func:`plan_index`), a slice slices, None adds a dim; each
   advanced item stands for a full slice over the dims it consumes (one for an integer index,
   ``mask.ndim`` for a bool mask), and a bool scalar (``True``, a 0-d bool tensor) for a new
   size-1 dim indexed by ``[0]`` (True) or ``[]`` (False);
2. the index arrays broadcast together (masks count as ``mask.ndim`` arrays of their number of
   True elements); the result's dims are the broadcast dims, in place of the indexed dims when
   these are adjacent in the view, else first, then the view's other dims.

The gather and the scatter are NumPy's (``np.take``, fancy indexing, ``np.add.at``): no loop over
elements in Python. A read is a copy, reported through :func:`strided.dispatch.copied`, and its
result is contiguous. A write checks everything before it writes anything (the index, the mask
shapes, the broadcast, a writable target, a value that does not overlap the target), so a
failed write leaves the target untouched (stricter than PyTorch, which may write part of it).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from ... import layout as L
from ...args import is_index_int, is_number, type_name
from ...callsite import user_site
from ...creation import tensor as make_tensor
from ...dispatch import adopted, copied, memory_overlap, shares_storage
from ...dtypes import bool_, int32, int64, uint8, uint16, uint32, uint64
from ...errors import StridedError, StridedIndexError, StridedRuntimeError, StridedTypeError, join_lines
from ...gradients import grad_zeros, installs_as, linear, seal
from ...indexing import index_layout, invalid_index, one_ellipsis
from ...kernels import check_writable, numpy_view
from ...kernels.listeners import OPEN, silenced
from ...kernels.torch_loops import operand_strides, parallel_chunks, torch_threads
from ...layout import Layout
from ...layout.core import may_share_elements
from ...lazy_names import function_on_first_call
from ...messages import overlapping_write, partial_overlap, read_after_write
from ...opdef import Kind, declare
from ...tensor import ADVANCED_INDEXING, Tensor, tensor_arg
from ...writes import SETITEM, _as_source, _numpy_number
from .._support import support
from .._support.gradtools import frozen_key, key_tensors
from .._support.memo import Memo
from .._support.operands import _cinfo
from .._support.promotion import TORCH_NAMES
from ..registry import backward
from .fast_along import SLICES_C, along_slices, slice_source

# (PyTorch's index-loop walks: loaded on the first overlapping or racing write; see strided.lazy_names.function_on_first_call)
addresses = function_on_first_call("strided.kernels.torch_index_loops", "addresses", globals())
index_put_order = function_on_first_call("strided.kernels.torch_index_loops", "index_put_order", globals())
index_put_stale = function_on_first_call("strided.kernels.torch_index_loops", "index_put_stale", globals())

# (the walks of overlapping writes, loaded on the first such write)
walk_survivors = function_on_first_call("strided.kernels.torch_overlap_writes", "walk_survivors", globals())

__all__ = ["IndexPlan", "getitem", "index_put", "index_put_", "plan_index", "setitem"]

_UINT8_WARNING = "indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead."


class Entry(NamedTuple):
    """One advanced item of a key: ``array`` (an intp index array, or a bool mask) indexes the
    view's dims ``pos .. pos + ndim - 1``; ``origin`` is the indexed tensor's dim it stands for
    (None for the new dim of a bool scalar; -1 where that scalar is a 0-d tensor or array, not a
    Python bool); ``kind`` is "int", "mask" or "bool" (a bool scalar)."""

    pos: int
    ndim: int
    array: np.ndarray
    kind: str
    origin: int | None


class IndexPlan(NamedTuple):
    """``t[key]`` for an advanced key: the view the basic items make, the advanced entries over
    it, NumPy's key for that view (arrays and full slices only: NumPy then places the result's
    dims as PyTorch does) and the result's shape. Data-free except for the index arrays."""

    view: Layout
    entries: tuple[Entry, ...]
    origins: tuple[int | None, ...]  # the indexed tensor's dim for each dim of the view
    np_key: tuple
    shape: tuple[int, ...]
    index_shape: tuple[int, ...]  # the broadcast shape of the index arrays

    def describe(self) -> str:
        """The index kinds in words, for the copy ledger: "an int index of shape (3,)"."""
        parts = []
        for e in self.entries:
            if e.kind == "int":
                parts.append(f"an int index of shape {tuple(e.array.shape)}")
            elif e.kind == "mask":
                parts.append(f"a bool mask of shape {tuple(e.array.shape)} ({int(np.count_nonzero(e.array))} True)")
            else:
                parts.append(f"a bool scalar ({bool(e.array[0])})")
        return " and ".join(parts)


# ---------------------------------------------------------------- reading the key


def _warn_uint8() -> None:
    """PyTorch's deprecation warning for a uint8 index (read as a mask), at the user's line."""
    warnings.warn(_UINT8_WARNING, UserWarning, stacklevel=user_site(2)[1])


def _index_array(item: Any) -> tuple[str, Any]:
    """How one non-basic item of a key indexes: ("bool", value) for a bool scalar, ("mask", bool
    array) or ("int", intp array); PyTorch's errors for the rest."""
    if isinstance(item, bool):
        return "bool", item
    if isinstance(item, Tensor):
        dtype = item._dtype
        if dtype is bool_ or dtype is uint8:
            if dtype is uint8:
                _warn_uint8()
            arr = item._np()
            if arr.ndim == 0:
                return "bool", np.bool_(arr)  # (a tensor: PyTorch's index_put, unlike a Python bool)
            return "mask", arr if dtype is bool_ else arr != 0
        if dtype is int64 or dtype is int32:
            return "int", item._np()
        raise StridedIndexError(
            join_lines(
                "tensors used as indices must be long, int, byte or bool tensors",
                f"the index tensor of shape {item.shape} has dtype {dtype.name}",
                "fix: convert it: idx.to(strided.int64) (or idx.long())",
            )
        )
    if isinstance(item, (str, bytes)):  # PyTorch reads a string as a sequence, and refuses its type
        raise StridedTypeError(join_lines(
            f"new(): invalid data type '{type(item).__name__}'",
            f"the index {item!r:.60} is a string; index with ints, slices, lists or tensors of ints or bools",
        ))
    if isinstance(item, np.bool_):
        raise invalid_index(item)  # as PyTorch: a NumPy bool scalar is no index (np.array(True) is)
    if isinstance(item, range):  # PyTorch reads a range as the list of its ints
        return "int", np.arange(item.start, item.stop, item.step, dtype=np.int64)
    if isinstance(item, (list, tuple)):
        return _from_array(_sequence(item), item)
    if isinstance(item, np.ndarray) or (hasattr(item, "__array__") and hasattr(item, "shape")):
        return _from_array(np.asarray(item), item)
    raise invalid_index(item)


def _sequence(item: list | tuple) -> np.ndarray:
    """A list (nested too) as an index array; what ``strided.tensor`` refuses (ragged rows,
    strings, ints beyond int64) is refused with its error. Not through ``tensor()`` itself: the
    index is no copy the ledger should show."""
    try:
        arr = np.array(item)
    except (ValueError, OverflowError, TypeError):
        arr = None
    if arr is None or arr.dtype == object or arr.dtype.kind in "USVOM":
        try:
            make_tensor(item)  # raises its own error for what it cannot read
        except StridedError as err:
            raise type(err)(join_lines(
                str(err).splitlines()[0],
                f"a list in t[...] is read as an index tensor (as strided.tensor(...) reads it); got {item!r:.60}",
                "fix: index with ints, or lists of ints or of bools of one shape",
            )) from None
        raise invalid_index(item)
    return arr


def _from_array(arr: np.ndarray, item: Any) -> tuple[str, Any]:
    """An index array from a list or a NumPy array, read as PyTorch reads them: bool is a mask,
    uint8 a mask (deprecated, warned), other integers are int64 indices."""
    kind = arr.dtype.kind
    if kind == "b" or arr.dtype == np.uint8:
        if kind != "b":
            _warn_uint8()
            arr = arr != 0
        return ("bool", np.bool_(arr)) if arr.ndim == 0 else ("mask", arr)
    if kind in "iu":
        if arr.dtype == np.uint64 and arr.size and arr.max() > L.INT64_MAX:
            raise StridedRuntimeError(join_lines(
                "Overflow when unpacking long long",
                f"the index array holds {int(arr.max())}, beyond int64",
            ))
        return "int", arr
    if arr.size == 0:
        return "int", np.zeros(arr.shape, dtype=np.intp)  # an empty list: no index to read
    # Note: PyTorch converts a list or a NumPy array of floats to int64 indices (truncating
    # 1.7 to 1); strided refuses them, as it refuses a float index tensor (PyTorch does too).
    raise StridedIndexError(join_lines(
        "tensors used as indices must be long, int, byte or bool tensors",
        f"the index {item!r:.60} holds {arr.dtype} numbers; an index is a whole number",
        "fix: convert it to integers first (np.asarray(idx).astype(np.int64), or t.long())",
    ))


def plan_index(layout: Layout, key: Any) -> IndexPlan:
    """The :class:`IndexPlan` of ``t[key]`` for a tensor of ``layout``, with PyTorch's errors.

    # Note: PyTorch reads a plain int as a BASIC index (a select applied first), NumPy as an
    # advanced one: ``x[0, :, [0, 1]]`` on a (2, 3, 4, 5) tensor is (3, 2, 5) in PyTorch and here,
    # (2, 3, 5) in NumPy (whose int and list are two advanced indices, separated by a slice).
    # Note: a list as the whole key (``t[[0, 1]]``) is one index tensor; a short list holding
    # lists, tuples, arrays, tensors, slices, None or ... (``t[[[0, 1], [1, 2]]]``) is a tuple of
    # indices with PyTorch 2.13's deprecation warning (``args.index_key``, applied by the entries).
    # Note: a mask counts all its dims when ``...`` is expanded, as in NumPy and as PyTorch does for
    # a bool tensor; PyTorch 2.13 counts a mask given as a list or a NumPy array as one dim there
    # (``x[..., mask2d.tolist()]`` on a 3-d x fails).

    >>> plan_index(Layout((2, 3, 4, 5), (60, 20, 5, 1), 0), (0, slice(None), [0, 1])).shape
    (3, 2, 5)
    """
    if type(key) is tuple and sum(it is Ellipsis for it in key) > 1:
        key = one_ellipsis(key, len(layout.shape))  # (PyTorch 2.13's reading of several ...)
    plan = _plan_one(layout, key)
    if plan is not None:
        return plan
    items = key if type(key) is tuple else (key,)
    kinds: list[tuple[str, Any]] = []
    consumed = 0
    for it in items:
        if it is None or it is Ellipsis:
            kinds.append(("basic", it))
        elif type(it) is slice or is_index_int(it):
            kinds.append(("basic", it))
            consumed += 1
        else:
            kind, arr = _index_array(it)
            kinds.append((kind, arr))
            consumed += arr.ndim if kind == "mask" else 0 if kind == "bool" else 1
    ndim = len(layout.shape)
    if consumed > ndim:
        raise StridedIndexError(join_lines(
            f"too many indices for tensor of dimension {ndim}",
            f"the index uses {consumed} dims (a mask uses as many as it has); the tensor has shape {layout.shape}",
        ))
    basic: list[Any] = []
    entries: list[Entry] = []
    origins: list[int | None] = []
    pos = orig = 0
    for kind, it in kinds:
        if kind == "basic":
            basic.append(it)
            if it is None:
                origins.append(None)
                pos += 1
            elif it is Ellipsis:
                skip = ndim - consumed
                origins.extend(range(orig, orig + skip))
                pos += skip
                orig += skip
            elif type(it) is slice:
                origins.append(orig)
                pos += 1
                orig += 1
            else:
                orig += 1  # an int: a select, its dim is gone
        elif kind == "bool":
            basic.append(None)  # PyTorch: unsqueeze, then index the new dim with [0] or []
            # (origin -1: a 0-d bool tensor or array, which PyTorch indexes through index_put)
            entries.append(Entry(pos, 1, np.array([it]), "bool", -1 if isinstance(it, np.bool_) else None))
            origins.append(None)
            pos += 1
        else:
            k = it.ndim if kind == "mask" else 1
            basic.extend([slice(None)] * k)
            entries.append(Entry(pos, k, it, kind, orig))
            origins.extend(range(orig, orig + k))
            pos += k
            orig += k
    view = index_layout(layout, tuple(basic))
    origins_t = tuple(origins) + tuple(range(orig, orig + len(view.shape) - len(origins)))
    return _finish(view, tuple(entries), origins_t)


def _plan_one(layout: Layout, key: Any) -> IndexPlan | None:
    """The plan of the two common keys, made directly: one int64/int32 index tensor with dims
    (``t[idx]``, ``index_put_((idx,), v)``), or one bool mask tensor of ``t``'s own shape
    (``t[t > 0]``). The same plan :func:`plan_index`'s general walk makes (the view is the whole
    tensor, full slices change nothing), without the walk; None for any other key (and where the
    general walk raises: an empty dim 0 indexed by a non-empty index, a 0-d tensor)."""
    item = key[0] if type(key) is tuple and len(key) == 1 else key
    if not isinstance(item, Tensor) or not layout.shape:
        return None
    dtype = item._dtype
    shape = layout.shape
    if dtype is int64 or dtype is int32:
        arr = item._np()
        if arr.ndim == 0 or (shape[0] == 0 and 0 not in arr.shape):
            return None  # (a 0-d int tensor is a basic index; an empty dim's error is the walk's)
        return IndexPlan(layout, (Entry(0, 1, arr, "int", 0),), tuple(range(len(shape))), (arr,),
                         arr.shape + shape[1:], arr.shape)
    if dtype is bool_ and item._layout.shape == shape:
        arr = item._np()
        count = (int(np.count_nonzero(arr)),)
        return IndexPlan(layout, (Entry(0, len(shape), arr, "mask", 0),), tuple(range(len(shape))), (arr,),
                         count, count)
    return None


def _finish(view: Layout, entries: tuple[Entry, ...], origins: tuple[int | None, ...]) -> IndexPlan:
    """Check the masks against the view, broadcast the index arrays, place the result's dims."""
    shapes: list[tuple[int, ...]] = []
    for e in entries:
        if e.kind == "int":
            shapes.append(tuple(e.array.shape))
            continue
        covered = view.shape[e.pos:e.pos + e.ndim]
        if e.kind == "mask" and tuple(e.array.shape) != covered:
            j = next(j for j, (m, s) in enumerate(zip(e.array.shape, covered)) if m != s)
            raise StridedIndexError(join_lines(
                f"The shape of the mask {list(e.array.shape)} at index {j} does not match the shape of the "
                f"indexed tensor {list(view.shape)} at index {e.pos + j}",
                f"the bool mask's dim {j} has size {e.array.shape[j]}, the dim it indexes has size {covered[j]}; "
                "a mask takes as many dims as it has, each of the same size",
            ))
        count = int(np.count_nonzero(e.array))
        shapes.extend([(count,)] * e.ndim)
    try:
        index_shape = shapes[0] if len(shapes) == 1 else tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        raise StridedIndexError(join_lines(
            "shape mismatch: indexing tensors could not be broadcast together with shapes "
            + ", ".join(str(list(s)) for s in shapes),
            "index arrays broadcast as operands of + do (aligned from the right, sizes equal or 1); "
            "a mask counts as one index per dim it takes, each of its number of True elements",
        )) from None
    if 0 not in index_shape:
        # PyTorch's check: an empty dim indexed by a non-empty index (no index is valid there);
        # the other indices are checked as they are read, so not at all for an empty result
        for e in entries:
            if 0 in view.shape[e.pos:e.pos + e.ndim]:
                raise StridedIndexError(join_lines(
                    "index is out of bounds for dimension with size 0",
                    f"dim {origins[e.pos]} is empty, so no index is valid; the indices broadcast to "
                    f"shape {index_shape}",
                ))
    spans = [(e.pos, e.pos + e.ndim) for e in entries]
    first, end = spans[0][0], spans[-1][1]
    adjacent = all(spans[i][1] == spans[i + 1][0] for i in range(len(spans) - 1))
    shape = view.shape
    if adjacent:
        out_shape = shape[:first] + index_shape + shape[end:]
    else:
        taken = {d for a, b in spans for d in range(a, b)}
        out_shape = index_shape + tuple(s for d, s in enumerate(shape) if d not in taken)
    # NumPy's key over the view: full slices up to each entry; a mask takes its dims
    np_key: list[Any] = []
    d = 0
    for e in entries:
        np_key.extend([slice(None)] * (e.pos - d))
        np_key.append(e.array)
        d = e.pos + e.ndim
    return IndexPlan(view, entries, origins, tuple(np_key), out_shape, index_shape)


# (a pattern, compiled by ``re`` on the first out-of-range index and cached there: compiling it
# at import was ~0.1 ms of ``import strided`` (-X importtime) for an error path)
_NUMPY_BOUNDS = r"index (-?\d+) is out of bounds for axis (\d+) with size (\d+)"


def _bounds_error(plan: IndexPlan, err: IndexError) -> StridedIndexError:
    """NumPy's out-of-range IndexError as PyTorch's, with the indexed tensor's dim."""
    found = re.search(_NUMPY_BOUNDS, str(err))
    if not found:
        return StridedIndexError(join_lines(str(err), "an index is out of range for the dim it indexes"))
    index, axis, size = int(found[1]), int(found[2]), int(found[3])
    dim = plan.origins[axis] if axis < len(plan.origins) else axis
    # Note: PyTorch names the dim among the index tensors (x[:, :, [7]] on size 4 says "dimension
    # 0"); strided names the dim of the indexed tensor.
    first = (f"index {index} is out of bounds for dimension {dim} with size {size}" if size
             else "index is out of bounds for dimension with size 0")
    return StridedIndexError(join_lines(
        first,
        f"valid indices for dim {dim} are {-size}..{size - 1} (negative ones count from the end)"
        if size else f"dim {dim} is empty (index {index}): no index is valid",
    ))


# ---------------------------------------------------------------- reading


def getitem(t: Tensor, key: Any) -> Tensor:
    """``t[key]`` for an advanced key: a new tensor (a copy, in the copy ledger) laid out as
    PyTorch's (:func:`_index_result_strides`: row-major, but for a permuted target, size-1 dims
    and empty results, where the index kernel's iteration order shows).

    >>> x = strided.arange(12).view(3, 4)
    >>> x[[0, 2], 1:3].tolist()
    [[1, 2], [9, 10]]
    """
    plan = plan_index(t._layout, key)
    if 0 in plan.shape:
        # as PyTorch: an empty result reads no index, so none is checked (NumPy would check them)
        result = adopted(np.empty(0, t._dtype.numpy), Layout._trusted(plan.shape, _index_result_strides(plan), 0),
                         t._dtype)
        return copied("__getitem__", (t,), result, lambda: f"t[...]: advanced indexing with {plan.describe()}: empty")
    arr = numpy_view(t._storage, plan.view)
    entries = plan.entries
    try:
        if len(entries) == 1 and entries[0].kind == "int":
            # one index array: np.take, faster than fancy indexing and C-contiguous
            out = np.take(arr, entries[0].array, axis=entries[0].pos)
        else:
            out = arr[plan.np_key]
    except IndexError as err:
        raise _bounds_error(plan, err) from None
    strides = _index_result_strides(plan)
    if strides == L.contiguous_strides(plan.shape):
        if not out.flags.c_contiguous:  # NumPy lays some results out with the index dims outermost
            out = np.ascontiguousarray(out)
        result = adopted(out.reshape(-1), Layout._trusted(plan.shape, strides, 0), t._dtype)
    else:  # (PyTorch's layout: the gathered values written into it)
        dense = np.empty(out.size, out.dtype)
        np.lib.stride_tricks.as_strided(dense, plan.shape, tuple(s * out.itemsize for s in strides))[...] = out
        result = adopted(dense, Layout._trusted(plan.shape, strides, 0), t._dtype)
    return copied("__getitem__", (t,), result, lambda: (
        f"t[...]: advanced indexing with {plan.describe()} gathers {result.numel()} elements into new memory"
    ))


# (shape, strides) -> whether the layout is row-major but for its size-1 dims' strides
_ROW_MAJOR = Memo(lambda key: all(n == 1 or st == c for n, st, c in zip(key[0], key[1], L.contiguous_strides(key[0]))))


def _index_result_strides(plan: IndexPlan) -> tuple[int, ...]:
    """The strides of PyTorch's ``t[key]`` result (its index kernel's TensorIterator output): the
    order of the inputs' dims -- the target restrided over the result (its strides on the dims
    the key keeps, 0 on the index dims, which come first where the indexed dims are not adjacent),
    then each index tensor over the result (its own row-major strides, a mask's nonzero columns)
    -- as an elementwise op's output takes it: row-major for a row-major target, the target's
    memory order among the kept dims for a permuted one. A bool scalar is its unsqueezed dim
    indexed by [0] or [] (PyTorch's reading); an empty result's strides follow the same order."""
    shape = plan.shape
    view = plan.view
    if len(shape) < 2 or (_ROW_MAJOR[(view.shape, view.strides)] and 1 not in shape and 0 not in shape):
        # (a row-major target's kept dims are in row-major order: so is the result; a size-1 dim's
        # stride and an empty result's follow the operands' order, taken below)
        return _cinfo[shape][0]
    return _strides_of_index[(shape, view.shape, view.strides, plan.index_shape, _entry_shapes(plan))]


def _entry_shapes(plan: IndexPlan) -> tuple[tuple[int, int, bool, tuple[int, ...]], ...]:
    """Each entry's place and index shape, all that the result's strides depend on: (pos, ndim,
    whether an int index, its shape: an int array's own, a mask's or a bool's number of Trues)."""
    return tuple((e.pos, e.ndim, e.kind == "int",
                  e.array.shape if e.kind == "int" else (int(np.count_nonzero(e.array)),)) for e in plan.entries)


def _index_strides_of(key: tuple) -> tuple[int, ...]:
    """:func:`_index_result_strides` from its memo key (see there)."""
    shape, vshape, vstrides, index_shape, entries = key
    nb = len(index_shape)
    before, after = _kept_dims_of(len(vshape), [(pos, ndim) for pos, ndim, _, _ in entries])
    if len(before) + nb + len(after) != len(shape):
        return L.contiguous_strides(shape)
    operands = [(shape, tuple([vstrides[d] for d in before] + [0] * nb + [vstrides[d] for d in after]))]
    operands += [(shape, tuple(st)) for st in _operands_of(entries, index_shape, len(before), shape)]
    if all(vshape[d] == 1 for d in (*before, *after)):
        # the index tensors, viewed with size-1 dims around them, have the result's own shape:
        # TensorIterator's fast set-up is tried first (contiguous where every operand is, as an
        # empty one always is), as for an elementwise op
        return tuple(L.elementwise_output_strides(shape, operands))
    # otherwise no fast set-up: the dims in the operands' order (an empty result's too)
    return tuple(L.reordered_output_strides(shape, operands))


# (result shape, view shape, view strides, index shape, entry shapes) -> the result's strides
_strides_of_index = Memo(_index_strides_of)


def _kept_dims(plan: IndexPlan) -> tuple[list[int], list[int]]:
    """The dims of ``plan.view`` the key keeps, those before the result's index dims and those
    after, as PyTorch's index kernels restride the target: the index dims in place of adjacent
    indexed dims, first where the indexed dims are not adjacent."""
    return _kept_dims_of(len(plan.view.shape), [(e.pos, e.ndim) for e in plan.entries])


def _kept_dims_of(ndim: int, spans: list[tuple[int, int]]) -> tuple[list[int], list[int]]:
    """:func:`_kept_dims` of a view of ``ndim`` dims whose entries take ``spans`` (pos, ndim)."""
    adv = sorted(d for pos, k in spans for d in range(pos, pos + k))
    rest = [d for d in range(ndim) if d not in adv]
    if adv == list(range(adv[0], adv[-1] + 1)):
        return [d for d in rest if d < adv[0]], [d for d in rest if d > adv[-1]]
    return [], rest


def _index_operands(plan: IndexPlan, before: int) -> list[list[int]]:
    """Each index tensor's strides over the result (:func:`_index_operand`; its own row-major
    strides, a mask's nonzero columns: one operand per dim the mask takes), in key order."""
    return _operands_of(_entry_shapes(plan), plan.index_shape, before, plan.shape)


def _operands_of(entries: tuple, index_shape: tuple[int, ...], before: int, shape: tuple[int, ...]) -> list[list[int]]:
    """:func:`_index_operands` from :func:`_entry_shapes`' tuples."""
    index_strides = []
    for _, ndim, is_int, ishape in entries:
        own = L.contiguous_strides(ishape) if is_int else (ndim,)
        index_strides += [_index_operand(ishape, own, index_shape, before, shape)] * (1 if is_int else ndim)
    return index_strides


# ---------------------------------------------------------------- writing


def setitem(t: Tensor, key: Any, value: Any) -> None:
    """``t[key] = value`` for an advanced key: ``value`` (a number, a tensor of ``t``'s dtype, a
    NumPy array or nested lists) broadcast to the shape ``t[key]`` has, written into ``t``'s memory.

    # Note: where an index repeats, the last write in the index's order wins (NumPy's order);
    # PyTorch leaves the result undefined. Use ``index_put_(..., accumulate=True)`` to sum.
    # Into a target whose elements share memory (``unfold`` windows), each shared location
    # keeps PyTorch's last write (:func:`_put_in_torch_order`).

    >>> x = strided.zeros(4)
    >>> x[[0, 2]] = 5
    >>> x.tolist()
    [5.0, 0.0, 5.0, 0.0]
    """
    _put(t, plan_index(t._layout, key), value, accumulate=False, op="setitem", strip=True)


def _source(t: Tensor, plan: IndexPlan, value: Any, op: str, accumulate: bool = False) -> Any:
    """What the write reads, after PyTorch's checks: a NumPy scalar or array. A one-element
    value written through one bool mask is PyTorch's ``masked_fill_(mask, value.item())``
    (``canDispatchToMaskedFill``): read first, its memory not checked against the target's."""
    if isinstance(value, Tensor):
        if value._dtype is not t._dtype:
            raise StridedRuntimeError(join_lines(
                "Index put requires the source and destination dtypes match, got "
                f"{TORCH_NAMES[t._dtype]} for the destination and {TORCH_NAMES[value._dtype]} for the source.",
                f"{op} writes a {value._dtype.name} value into a {t._dtype.name} tensor; an advanced write "
                "converts nothing",
                f"fix: convert the value first: value.to(strided.{t._dtype.name})",
            ))
        if shares_storage(value, t) and not _masked_fill(plan, value, accumulate):  # (typed aliases too)
            status = memory_overlap(value, t, plan.view)
            if status is L.OverlapStatus.FULL or status is L.OverlapStatus.PARTIAL:
                raise partial_overlap(op, plan.view, value._layout, L.storage_extent(plan.view),
                                      L.storage_extent(value._layout),
                                      "fix: copy the value first: t[idx] = value.clone()")
        return value._np()
    if is_number(value):
        if isinstance(value, np.generic):  # (t[mask] = np.float32(x): PyTorch's TypeError, as t[0] = ...)
            value = _numpy_number(value, t, SETITEM) if op == "setitem" else value.item()
        return np.asarray(SETITEM.number(value, t._dtype, op, 1))
    return _as_source(value)


_WIDE_UNSIGNED = frozenset((uint16, uint32, uint64))


def _put(t: Tensor, plan: IndexPlan, value: Any, accumulate: bool, op: str, strip: bool) -> None:
    """Write (or add, with ``accumulate``) ``value`` at ``plan`` in ``t``; every check first."""
    serial = accumulate and _serial_adds(t, plan, value)
    check_writable(t._storage, plan.view, op, False, updates=accumulate and not serial)
    shape = plan.shape
    if isinstance(value, Tensor):  # PyTorch checks a tensor value's shape before its dtype
        _fitted_shape(value._layout.shape, shape, op, strip)
    src = _source(t, plan, value, op, accumulate)
    vshape = _fitted_shape(src.shape, shape, op, strip)
    src = src.reshape(vshape)
    if t._dtype in _WIDE_UNSIGNED and any(e.kind != "bool" or e.origin == -1 for e in plan.entries):
        # PyTorch 2.13 has no uint16/32/64 index_put kernel (nor masked_fill: its one-mask,
        # one-element write), whatever the index, empty ones too
        filled = not accumulate and len(plan.entries) == 1 and plan.entries[0].kind == "mask" and src.size == 1
        support.check("masked_fill" if filled else "index_put", t._dtype, (t,))
    if 0 in shape:
        return  # as PyTorch: nothing is written, and no index is read (none is checked)
    store = t._storage.array
    walked = src  # (its strides order PyTorch's walk, whether or not it is copied below)
    if isinstance(value, Tensor) and shares_storage(value, t):
        if not _masked_fill(plan, value, accumulate):
            _refuse_stale_put(t, plan, value, vshape, accumulate, op)
        src = src.copy()  # a value in the target's memory that PyTorch lets through: read it first
    plan = _detached(plan, store)
    arr = numpy_view(t._storage, plan.view)
    try:
        if serial:
            _add_in_torch_order(store, plan, walked, src, strip, op)
        elif accumulate:
            _accumulate(t, plan, arr, np.broadcast_to(src, shape))
        elif (src.ndim == 0 and len(plan.entries) == 1 and plan.entries[0].kind == "mask"
              and plan.entries[0].ndim == arr.ndim):
            # the masked fill (x[x < 0] = 0): putmask walks the mask once, no index list is built
            if arr.flags.c_contiguous:
                np.putmask(arr, plan.entries[0].array, src)
            else:
                np.copyto(arr, src, where=plan.entries[0].array, casting="unsafe")
        elif not _put_in_torch_order(store, plan, walked, strip) and not _put_by_gather(plan, arr, src, shape):
            # NumPy checks every index before it writes one (tests/test_advanced_indexing.py)
            arr[plan.np_key] = src
    except IndexError as err:
        raise _bounds_error(plan, err) from None


def _serial_adds(t: Tensor, plan: IndexPlan, value: Any) -> bool:
    """Whether ``index_put_(accumulate=True)`` into ``plan``'s target, whose indexed elements
    share memory without a stride-0 dim, is PyTorch's one serial walk of ``index_put_kernel``
    (:func:`_add_in_torch_order`): every accumulate but float32's from its parallel grain on
    several threads (atomic adds in the threads' order) is serial; a value in the target's
    memory or a bool key (not modelled) keep the refusal."""
    view = plan.view
    if not may_share_elements(view.shape, view.strides) or any(e.kind == "bool" for e in plan.entries):
        return False
    if isinstance(value, Tensor) and shares_storage(value, t):
        return False
    return t._dtype.name != "float32" or parallel_chunks(L.product(plan.shape), torch_threads()) <= 1


def _add_in_torch_order(store: np.ndarray, plan: IndexPlan, walked: np.ndarray, src: np.ndarray, strip: bool,
                        op: str) -> None:
    """``index_put_(idx, src, accumulate=True)`` into a target whose indexed elements share
    memory: ``index_put_kernel``'s serial walk adds each value to its location in turn (in the
    target's dtype, as ``*dst += *src``), which ``np.add.at`` does in the order given; ``walked``:
    the value as its strides have it (they order the walk)."""
    walk = _put_walk(plan)
    if walk is None:  # (a key not modelled: refused, nothing written)
        raise overlapping_write(plan.view, [], op)
    written, out_strides, index_strides = walk
    shape = plan.shape
    read_strides = _value_operand(shape, walked.shape, [s // walked.itemsize for s in walked.strides], strip)
    outer_first = index_put_order(shape, out_strides, read_strides, index_strides)[::-1]
    values = np.broadcast_to(src.reshape(walked.shape), shape).transpose(outer_first).ravel()
    np.add.at(store, written.transpose(outer_first).ravel(), values.astype(store.dtype, copy=False))


def _masked_fill(plan: IndexPlan, value: Tensor, accumulate: bool) -> bool:
    """Whether PyTorch writes ``value`` as ``masked_fill_(mask, value.item())``: no accumulate,
    one element, and the key's only index one bool (or uint8) mask."""
    return (not accumulate and len(plan.entries) == 1 and plan.entries[0].kind == "mask"
            and L.product(value._layout.shape) == 1)


def _refuse_stale_put(t: Tensor, plan: IndexPlan, value: Tensor, vshape: tuple[int, ...], accumulate: bool,
                      op: str) -> None:
    """Refuse a ``value`` over ``t``'s memory in a layout PyTorch lets through ("too hard") where
    its ``index_put_kernel`` reads an element of ``value`` after writing it
    (:func:`.torch_index_loops.index_put_stale`; strided reads ``value`` first). The walk is
    TensorIterator's over the indexed result: the target restrided (stride 0 over the index
    dims, which come first where the indexed dims are not adjacent), the value broadcast, the
    index tensors. Keys with a bool scalar, and typed aliases, are not modelled (read first)."""
    if value._storage is not t._storage or memory_overlap(value, t, plan.view) is not L.OverlapStatus.TOO_HARD:
        return
    walk = _put_walk(plan)
    if walk is None:
        return
    written, out_strides, index_strides = walk
    view, shape = plan.view, plan.shape
    vl = value._layout
    read = np.broadcast_to(addresses(vl.shape, vl.strides, vl.offset).reshape(vshape), shape)
    read_strides = _value_operand(shape, vl.shape, vl.strides, op == "setitem")
    where = index_put_stale(written, out_strides, read, read_strides, index_strides, accumulate,
                            atomic=accumulate and t._dtype.name == "float32")
    if where is not None:
        raise read_after_write(op, Layout(shape, tuple(out_strides), view.offset), vl, where,
                               f"fix: pass a copy of the value: {'t[idx] = v' if op == 'setitem' else f'{op}(idx, v'}"
                               f"{'.clone()' if op == 'setitem' else '.clone())'}")


def _value_operand(shape: tuple[int, ...], vshape: Sequence[int], vstrides: Sequence[int], strip: bool) -> list[int]:
    """The value's strides (in elements) over the indexed result's ``shape`` as
    ``index_put_kernel``'s TensorIterator sees them: 0 where it broadcasts; with ``strip``
    (``t[idx] = v``) its leading size-1 dims dropped first, as PyTorch's setitem views the value
    (their strides would otherwise take part in ordering the walk)."""
    lead = 0
    while strip and lead < len(vshape) and vshape[lead] == 1:
        lead += 1
    return operand_strides(shape, (tuple(vshape[lead:]), tuple(vstrides[lead:])))


def _put_walk(plan: IndexPlan) -> tuple[np.ndarray, list[int], list[list[int]]] | None:
    """What orders ``index_put_kernel``'s walk of ``plan``: the storage element each position of
    the indexed result is written to (an int64 array of ``plan.shape``; IndexError for an index
    out of bounds, before anything is written), the target's strides restrided over the result (0
    over the index dims) and each index tensor's; None for a key not modelled (a bool scalar)."""
    if any(e.kind == "bool" for e in plan.entries):
        return None
    view, shape, nb = plan.view, plan.shape, len(plan.index_shape)
    written = np.asarray(addresses(view.shape, view.strides, view.offset)[plan.np_key])
    before, after = _kept_dims(plan)
    if written.shape != shape or len(before) + nb + len(after) != len(shape):
        return None
    out_strides = [view.strides[d] for d in before] + [0] * nb + [view.strides[d] for d in after]
    return written, out_strides, _index_operands(plan, len(before))


def _put_in_torch_order(store: np.ndarray, plan: IndexPlan, src: np.ndarray, strip: bool) -> bool:
    """``t[key] = src`` (no accumulate) into a target whose indexed elements share memory
    (``unfold`` windows, ``as_strided``; PyTorch lets them through as "too hard"): each shared
    location keeps the value ``index_put_kernel``'s walk writes there last
    (:func:`.torch_overlap_writes.walk_survivors`, which also refuses racing threads), where
    NumPy's scatter walks its own order. False (nothing written) for a one-element value, a
    target whose elements do not share memory or a key not modelled: NumPy's write is PyTorch's.
    ``src`` as the value's strides have it (a value in the target's memory too: every element is
    read, into the walk's order, before the first write); ``strip``: ``t[idx] = v``
    (:func:`_value_operand`)."""
    view = plan.view
    if src.size <= 1 or not may_share_elements(view.shape, view.strides):
        return False
    walk = _put_walk(plan)
    if walk is None:
        return False
    written, out_strides, index_strides = walk
    shape = plan.shape
    read_strides = _value_operand(shape, src.shape, [s // src.itemsize for s in src.strides], strip)
    outer_first = index_put_order(shape, out_strides, read_strides, index_strides)[::-1]
    values = np.broadcast_to(src, shape).transpose(outer_first).ravel().astype(store.dtype, copy=False)
    positions, kept = walk_survivors(written.transpose(outer_first).ravel(), values)
    store[positions] = kept
    return True


def _index_operand(ishape: tuple[int, ...], own: Sequence[int], index_shape: tuple[int, ...], before: int,
                   shape: tuple[int, ...]) -> list[int]:
    """An index tensor's strides as ``index_put_``'s TensorIterator sees them over the result
    ``shape``: expanded to the broadcast ``index_shape`` (0 where it broadcasts), viewed with
    size-1 dims around it (a view gives the leading ones ``stride[0] * size[0]``, the trailing
    ones the last stride), 0 where such a dim broadcasts."""
    nb = len(index_shape)
    k = nb - len(ishape)
    exp = [0] * k + [0 if (n == 1 and index_shape[k + i] != 1) else st for i, (n, st) in enumerate(zip(ishape, own))]
    head, tail = (exp[0] * index_shape[0], exp[-1]) if nb else (0, 0)
    full = [head] * before + exp + [tail] * (len(shape) - before - nb)
    return [0 if (not before <= d < before + nb and shape[d] != 1) else st for d, st in enumerate(full)]


# The gathered write pays one pass over the whole target; below these it does not pay.
_GATHER_MIN_ELEMENTS = 1 << 16


def _put_by_gather(plan: IndexPlan, arr: np.ndarray, src: np.ndarray, shape: tuple[int, ...]) -> bool:
    """``arr[idx] = src`` (no accumulate) for one 1-D int64 index ``idx`` on a dim ``p`` that has
    stride 1 in ``arr`` (a permuted tensor indexed on its innermost dim in memory: ``x.T[idx] = v``),
    done as a gather along memory order; returns False (nothing written) when a condition fails.

    NumPy's scatter walks the index outermost, so each indexed slice is written with a large
    stride (10 ms for 2^20 float32 elements). Here ``last[i]`` is the position in ``idx`` of the
    last write to ``i`` (``last[idx] = arange``: NumPy's own in-order 1-D write, so a repeated
    index keeps the last write, the general path's winner), and the target becomes
    ``where(last >= 0, take(src, last, axis=p), arr)`` over the row-major view with ``p`` moved
    innermost: only selections, so every bit (NaN payloads, -0.0) is the general path's.
    Conditions: one int entry of int64 values all in ``[0, size)``, ``src`` of ``arr``'s dtype and
    apart from its memory, ``arr`` row-major once ``p`` is moved last, at least ``_GATHER_MIN_ELEMENTS`` elements and an
    index at least a quarter of the dim's size (else the direct write touches less memory)."""
    if len(plan.entries) != 1 or arr.ndim < 2 or src.dtype != arr.dtype:
        return False
    entry = plan.entries[0]
    idx = entry.array
    if entry.kind != "int" or idx.ndim != 1 or idx.dtype != np.int64 or arr.size < _GATHER_MIN_ELEMENTS:
        return False
    p = entry.pos
    size = arr.shape[p]
    if 4 * idx.size < size or arr.strides[p] != arr.itemsize:
        return False
    target = np.moveaxis(arr, p, -1)
    if not target.flags.c_contiguous:
        return False
    if int(np.maximum.reduce(idx.view(np.uint64))) >= size:  # (a negative value reads as a huge one)
        return False
    if np.may_share_memory(src, arr):  # (a NumPy value over the target's memory: NumPy's own write)
        return False
    last = np.full(size, -1, np.intp)
    last[idx] = np.arange(idx.size)
    values = np.moveaxis(np.broadcast_to(src, shape), p, -1)
    written = last >= 0
    if written.all():
        np.take(values, last, axis=-1, out=target, mode="clip")  # (in range: clip changes nothing)
        return True
    # rows of about 256 KB at a time (2-D): the gathered rows and the merge stay in cache
    step = max(1, (1 << 18) // (size * arr.itemsize)) if target.ndim == 2 else len(target)
    for r in range(0, len(target), step):
        rows = target[r:r + step]
        np.copyto(rows, np.where(written, np.take(values[r:r + step], last, axis=-1, mode="clip"), rows))
    return True


def _fitted_shape(vshape: tuple[int, ...], shape: tuple[int, ...], op: str, strip: bool) -> tuple[int, ...]:
    """The value's shape as the write broadcasts it to ``shape`` (the indexed one), or PyTorch's
    error; ``strip``: ``t[idx] = v`` drops the value's leading size-1 dims, as PyTorch's setitem does."""
    if vshape == shape:  # (the common case: the value already has the indexed shape)
        return vshape
    given = vshape
    if strip:
        while len(vshape) > len(shape) and vshape[0] == 1:
            vshape = vshape[1:]
    try:
        fits = np.broadcast_shapes(vshape, shape) == shape
    except ValueError:
        fits = False
    if not fits:
        raise StridedRuntimeError(join_lines(
            f"shape mismatch: value tensor of shape {list(given)} cannot be broadcast to indexing "
            f"result of shape {list(shape)}",
            f"{op} writes into the {shape} elements t[...] selects; aligned from the right, each size of "
            "the value must equal the indexed one or be 1",
            "fix: give the value that shape (value.reshape(...)), or a single number",
        ))
    return tuple(vshape)


def _detached(plan: IndexPlan, store: np.ndarray) -> IndexPlan:
    """``plan`` with its index arrays copied where they live in the written memory (``x[x] = 0``
    on an int tensor): the write must not change an index before it is read."""
    if not any(np.may_share_memory(e.array, store) for e in plan.entries):
        return plan
    copies = {id(e.array): e.array.copy() for e in plan.entries}
    entries = tuple(e._replace(array=copies[id(e.array)]) for e in plan.entries)
    np_key = tuple(copies.get(id(k), k) if isinstance(k, np.ndarray) else k for k in plan.np_key)
    return plan._replace(entries=entries, np_key=np_key)


def _linear(plan: IndexPlan) -> np.ndarray | None:
    """For a key of two or more int arrays that index every dim of the view (``x[r, c]``): the
    elements' positions in the storage, ``offset + sum(index * stride)`` broadcast to the index
    shape, after the bounds check (PyTorch's error, before any write); else None.

    For ``index_put_(accumulate=True)``: one 1-d ``np.add.at`` over the flat storage is 4x faster
    than NumPy's multi-index one. (Not for plain reads and writes: building the positions costs
    what NumPy's multi-index gather saves, measured equal for ``x[r, c]`` with 10^6 indices.)
    """
    entries = plan.entries
    view = plan.view
    if len(entries) < 2 or len(entries) != len(view.shape) or any(e.kind != "int" for e in entries):
        return None
    linear: np.ndarray | None = None
    for e in entries:
        size = view.shape[e.pos]
        idx = e.array
        if idx.size:
            low, high = int(idx.min()), int(idx.max())
            if low < -size or high >= size:
                bad = low if low < -size else high
                raise _bounds_error(plan, IndexError(f"index {bad} is out of bounds for axis {e.pos} with size {size}"))
            if low < 0:
                idx = np.where(idx < 0, idx + size, idx)
        # (in place where it can: each pass over 10^6 positions costs about 1 ms)
        stride = view.strides[e.pos]
        term = idx.astype(np.intp, copy=False)
        if linear is None:
            linear = term * stride if stride != 1 or term is e.array else term
        elif linear.shape == np.broadcast_shapes(linear.shape, term.shape):
            if stride == 1:
                linear += term
            else:
                linear += term * stride
        else:
            linear = linear + term * stride
    assert linear is not None
    if view.offset:
        linear += view.offset
    return np.broadcast_to(linear, plan.index_shape)


def _accumulate(t: Tensor, plan: IndexPlan, arr: np.ndarray, values: np.ndarray) -> None:
    """``arr[key] += values`` summing repeated indices: ``np.add.at`` (NumPy 2's fast path for one
    1-d index, measured 2.5x faster than a bincount over a 10^6-element target); a key of int
    arrays over every dim goes through one linear index into the storage (:func:`_linear`:
    NumPy's multi-index ``add.at`` is 6x slower)."""
    entries = plan.entries
    if not entries:
        np.add(arr, values, out=arr, casting="unsafe")
        return
    if len(entries) == 1 and entries[0].kind == "int" and arr.ndim == 1:
        np.add.at(arr, entries[0].array, values)
        return
    linear = _linear(plan)
    if linear is not None:
        np.add.at(t._storage.array, linear, values)
        return
    key = []
    for k in plan.np_key:  # masks as index arrays: ufunc.at takes integer arrays and slices
        if isinstance(k, np.ndarray) and k.dtype == np.bool_:
            key.extend(np.nonzero(k))
        else:
            key.append(k)
    np.add.at(arr, tuple(key), values)


# ---------------------------------------------------------------- index_put_


def _index_tensors(indices: Any, op: str) -> tuple:
    """``index_put_``'s ``indices``: a tuple or list of tensors, as PyTorch takes them."""
    if not isinstance(indices, (tuple, list)):
        raise StridedTypeError(join_lines(
            f"{op}(): argument 'indices' (position 1) must be tuple of Tensors, not {type_name(indices)}",
            "fix: pass the index tensors as a tuple: t.index_put_((idx,), values)",
        ))
    for i, idx in enumerate(indices):
        if not isinstance(idx, Tensor):
            raise StridedTypeError(join_lines(
                f"expected Tensor as element {i} in argument 0, but got {type_name(idx)}",
                f"{op} takes index tensors only (strided.tensor(...) makes one); for slices and None "
                "write t[key] = values",
            ))
    if not indices:
        # Note: PyTorch fails here with an internal error (an undefined tensor); strided says why.
        raise StridedRuntimeError(join_lines(
            f"{op}: indices is empty",
            "give one index tensor per indexed dim, e.g. t.index_put_((idx,), values)",
        ))
    return tuple(indices)


def _fast_index_put(self: Any, indices: Any, values: Any, accumulate: Any, inplace: bool) -> Any:
    """``index_put_`` (``inplace``: ``self``, written) or ``index_put`` (a fresh copy) with one
    row-major 1-D int64 index, all in range (:func:`along_slices` along dim 0), and ``values`` a
    row-major tensor of ``self``'s dtype and exactly the indexed shape, in memory of its own: the
    general path's one NumPy write (``arr[idx] = values`` / ``np.add.at``) on the flat run read as
    ``(size, rest)``. None when a precondition fails or the call is watched."""
    if OPEN or indices.__class__ not in (tuple, list) or len(indices) != 1 or accumulate.__class__ is not bool:
        return None
    if SLICES_C is not None:
        # (the compiled write: index_copy / index_add's along dim 0, in place or into a copy; the
        # same writes in the same order as below, see fast_along.SLICES_C)
        out = SLICES_C((2 if accumulate else 1) + (16 if inplace else 0), self, 0, indices[0], values)
        if out is not None:
            return self if inplace else out
    fast = along_slices(self, 0, indices[0])
    if fast is None:
        return None
    flat, idx, _, three = fast
    vals = slice_source(values, self, 0, idx.size)
    if vals is None:
        return None
    if inplace:
        if not flat.flags.writeable or np.may_share_memory(flat, vals) or np.may_share_memory(flat, idx):
            return None  # (the general path refuses, or reads those first)
        out = flat
    else:
        out = flat.copy()
    rows = out.reshape(three[1], three[2])
    vals = vals.reshape(idx.size, three[2])
    if accumulate:
        np.add.at(rows, idx, vals)
    else:
        rows[idx] = vals
    return self if inplace else adopted(out, _cinfo[self._layout.shape][2], self._dtype)


@installs_as("index_put_")
def index_put_(self: Tensor, indices: Sequence[Tensor], values: Tensor, accumulate: bool = False) -> Tensor:
    """Write ``values`` at ``self[indices]`` in place (``accumulate=True``: add, summing repeated
    indices); returns ``self``. As PyTorch's: ``indices`` is a tuple of index tensors (integer, or
    bool masks), ``values`` a tensor of ``self``'s dtype that broadcasts to the indexed shape.

    # Note: stricter than PyTorch: an index out of range, a bad mask or a value that does not
    # broadcast raises before anything is written (PyTorch may have written part of the target).

    >>> x = strided.zeros(3)
    >>> x.index_put_((strided.tensor([0, 0, 2]),), strided.tensor(1.0), accumulate=True).tolist()
    [2.0, 0.0, 1.0]
    """
    return _index_put_into(self, indices, values, accumulate)


def _index_put_into(self: Tensor, indices: Sequence[Tensor], values: Tensor, accumulate: bool) -> Tensor:
    """:func:`index_put_`'s write, without its entry (which counts the write in ``self``'s
    version: :func:`index_put`'s write into its own fresh copy is no write of the user's)."""
    if _fast_index_put(self, indices, values, accumulate, True) is not None:
        return self
    tensor_arg(self, "index_put_")
    key = _index_tensors(indices, "index_put_")
    if not isinstance(values, Tensor):
        raise StridedTypeError(join_lines(
            f"index_put_(): argument 'values' (position 2) must be Tensor, not {type_name(values)}",
            "fix: wrap it: strided.tensor(value, dtype=t.dtype), or write t[idx] = value",
        ))
    if not isinstance(accumulate, bool):
        raise StridedTypeError(
            f"index_put_(): argument 'accumulate' (position 3) must be bool, not {type_name(accumulate)}")
    _put(self, plan_index(self._layout, key), values, accumulate=accumulate, op="index_put_", strip=False)
    return self


@installs_as("index_put")
def index_put(self: Tensor, indices: Sequence[Tensor], values: Tensor, accumulate: bool = False) -> Tensor:
    """``index_put_`` on a copy of ``self`` (``self`` is untouched): reported as that one copy (in
    the ledger: ``clone()``); the write into it is this op's own work.

    >>> strided.zeros(3).index_put((strided.tensor([1]),), strided.tensor(7.0)).tolist()
    [0.0, 7.0, 0.0]
    """
    out = _fast_index_put(self, indices, values, accumulate, False)
    if out is not None:
        return out
    tensor_arg(self, "index_put")
    _index_tensors(indices, "index_put")
    out = self.clone()
    with silenced():  # (the write into the fresh copy is this op's own work, not a user's step)
        return _index_put_into(out, indices, values, accumulate)


# ---------------------------------------------------------------- gradients


@backward("getitem", "index")
def getitem_backward(out: Tensor, t: Tensor, key: Any) -> Any:
    """IndexBackward0: the gradient added into zeros of ``t``'s shape at the positions ``t[key]``
    read, repeated positions summed (PyTorch's ``index_put_(..., accumulate=True)``)."""
    shape = t._layout.shape
    key = frozen_key(key)

    def put(g: Tensor) -> Tensor:
        z = grad_zeros(shape, g._dtype)
        with silenced():  # (the rule's own work, not a user's write)
            _put(z, plan_index(z._layout, key), g, accumulate=True, op="index", strip=False)
        return z

    def grad(g: Tensor) -> tuple:  # (linear in g: its adjoint is the index itself, for create_graph)
        return (linear("IndexPutBackward0", g, put, lambda gg: _getitem(gg, key)),)

    # (the key's tensors are saved with their versions: one written in place before backward
    # raises PyTorch's error instead of scattering the gradient to the new positions)
    return "IndexBackward0", (t,), grad, key_tensors(key)


def _getitem(t: Tensor, key: Any) -> Tensor:
    # the module's current ``getitem``: the recording wrapper once autograd is in use
    return getitem(t, key)


@backward("index_put", operands="any")
def index_put_backward(out: Tensor, self: Tensor, indices: Sequence[Tensor], values: Tensor,
                       accumulate: bool = False) -> Any:
    """IndexPutBackward0: ``self`` gets the gradient (with zeros where the values were written,
    unless they were added), ``values`` the gradient read at those positions (summed where
    ``values`` was broadcast)."""
    key = frozen_key(tuple(indices))

    def zeroed_raw(g: Tensor) -> Tensor:
        with silenced():
            z = g.detach().clone()
            _put(z, plan_index(z._layout, key), 0, accumulate=False, op="index_put", strip=False)
        return z

    def zeroed(g: Tensor) -> Tensor:
        # (linear in g and its own adjoint: under create_graph the written positions' zeros carry
        # no derivative; a recorded clone zeroed by an unrecorded write leaked g's there)
        return linear("IndexPutBackward0", g, zeroed_raw, zeroed)

    def grad(g: Tensor) -> tuple:
        gself = g if accumulate else zeroed(g)
        with silenced():
            return gself, getitem(g, key)

    return "IndexPutBackward0", (self, values), grad, key_tensors(key)


ADVANCED_INDEXING["getitem"] = _getitem
ADVANCED_INDEXING["setitem"] = setitem


seal(globals())  # (last: this module's ops with a backward rule become their recording entries)
# the kinds of this module's ops, in the op registry (after the seal: the forwards are the entries)
declare(Kind.COPY, "index_put getitem")
declare(Kind.COMPUTE, "index_put_")
