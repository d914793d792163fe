"""The ``index_*`` family along one dim, with PyTorch's semantics: ``index_select`` (read: new
memory, reported as a copy), ``index_fill_``, ``index_add_``, ``index_copy_`` and their
out-of-place forms.

Each takes a vector (or 0-d) index of positions along ``dim``; NumPy's indexing of a strided
view, ``arr[:, :, idx]``, reads or writes the tensor's memory in place. Everything is checked
before anything is written, so a failed call leaves the target untouched.
"""

from __future__ import annotations

import math
import warnings
from contextvars import ContextVar
from typing import Any

import numpy as np

from ... import layout as L
from ...args import is_index_scalar
from ...callsite import user_site
from ...dispatch import OPEN, adopted, copied, result, shares_storage
from ...dtypes import bool_, int64, np_finfo, np_kind
from ...errors import (
    StridedIndexError,
    StridedNotImplementedError,
    StridedRuntimeError,
    StridedTypeError,
    StridedValueError,
    join_lines,
)
from ...grad_mode import GRAD_MODE
from ...gradients import grad_zeros, linear, not_differentiable, seal
from ...kernels import native
from ...kernels.blocked import copy_into, row_major
from ...kernels.listeners import silenced
from ...kernels.native import special
from ...kernels.torch_loops import parallel_chunks, torch_threads
from ...layout import Layout
from ...layout.core import may_share_elements
from ...lazy_names import function_on_first_call
from ...messages import overlapping_write, partial_overlap
from ...opdef import Kind, declare
from ...tensor import Tensor
from .._support import support
from .._support.index_common import (
    INT_OR_LONG,
    LONG,
    OPMATH_DTYPES,
    check_bounds,
    check_index_dtype,
    check_no_overlap,
    check_same_dtype,
    check_target,
    fill_value,
    index_array,
    refuse_stale_read,
    scalar_name,
    shares_memory,
    tensor_of,
    wrap_dim,
)
from .._support.operands import _cinfo
from .._support.out import write_out
from .._support.promotion import TORCH_NAMES
from ..registry import backward, method
from .fast_along import SLICES_C, along_slices, slice_source
from .gather_scatter import _out_of_place

# (PyTorch's index-loop walks: loaded on the first overlapping or racing write; see strided.lazy_names.function_on_first_call)
index_add_stale = function_on_first_call("strided.kernels.torch_index_loops", "index_add_stale", globals())
index_copy_stale = function_on_first_call("strided.kernels.torch_index_loops", "index_copy_stale", globals())
index_copy_walk = function_on_first_call("strided.kernels.torch_index_loops", "index_copy_walk", globals())

# (the walks of overlapping writes, loaded on the first such write)
walk_survivors = function_on_first_call("strided.kernels.torch_overlap_writes", "walk_survivors", globals())

_trusted = Layout._trusted


def _key(d: int, idx: np.ndarray) -> tuple:
    """The NumPy key that indexes positions ``idx`` along dim ``d``."""
    return (slice(None),) * d + (idx,)


def _view1(t: Tensor) -> np.ndarray:
    """``t``'s NumPy view, a 0-d tensor read as one element along one dim."""
    arr = t._np()
    return arr.reshape(1) if arr.ndim == 0 else arr


def _vector_index(index: Tensor, op: str, cls: type, first: str) -> None:
    if index.ndim > 1:
        raise cls(
            join_lines(
                first,
                f"{op} takes a vector (or 0-d) index of positions along dim; the index has shape {index.shape}",
                "fix: flatten it (index.reshape(-1)); to pick per element, use gather/scatter",
            )
        )


# ---------------------------------------------------------------- index_select

# From this many result elements a dense permuted input's index_select takes in memory order and
# transposes after (_take_in_memory_order); below, NumPy's fancy index of the view is as cheap
_MEMORY_ORDER_TAKE_MIN = 1 << 16


def _take_in_memory_order(src: np.ndarray, idx: np.ndarray, d: int) -> np.ndarray | None:
    """``src[(slice(None),) * d + (idx,)]`` as a new row-major array, for a ``src`` whose memory is
    one dense run in another dim order (a transpose, a permute) and a result of at least
    :data:`_MEMORY_ORDER_TAKE_MIN` elements: ``np.take`` along ``d`` of the run seen in its memory
    order (each slice read along its own lines), then the compiled blocked copy into row-major
    order. Copies only, so the values are the fancy index's; a transposed 2^20-element float32
    input, dim 0: 7.6 ms (NumPy's walk across the lines, a cache miss per element) -> 2.8, PyTorch
    7.1 (AMD AVX2, thread time). None where it does not apply (the caller's fancy index runs)."""
    if src.ndim < 2 or idx.size * (src.size // max(src.shape[d], 1)) < _MEMORY_ORDER_TAKE_MIN:
        return None
    order = sorted(range(src.ndim), key=lambda k: -src.strides[k])
    mem = src.transpose(order)
    if not mem.flags.c_contiguous:
        return None
    taken = np.take(mem, idx, axis=order.index(d))
    out = np.empty(src.shape[:d] + (idx.size,) + src.shape[d + 1:], src.dtype)
    copy_into(out, taken.transpose(np.argsort(order)))
    return out


@method("index_select")
def index_select(input: Tensor, dim: int, index: Tensor, *, out: Any = None) -> Tensor:  # noqa: A002
    """The slices of ``input`` at positions ``index`` (a vector of int64 or int32) along ``dim``,
    in that order, repeated as often as named: new contiguous memory, reported as a copy.

    >>> x = strided.arange(6).reshape(2, 3)
    >>> x.index_select(1, strided.tensor([2, 0, 2])).tolist()
    [[2, 0, 2], [5, 3, 5]]
    """
    if out is not None:  # (PyTorch's out= takes only the result's dtype)
        return write_out(out, index_select(input, dim, index),
                         "index_select", (input, dim, index),
                         "index_select(): self and result must have the same scalar type")
    if not OPEN:  # (a watched call takes the general path: it reports the copy)
        if SLICES_C is not None and (out := SLICES_C(0, input, dim, index, None)) is not None:
            return out
        fast = along_slices(input, dim, index)
        if fast is not None:
            flat, idx, d, three = fast
            shape = input._layout.shape
            picked = flat.reshape(three).take(idx, axis=1)  # (the general path's np.take, in 3 dims)
            return adopted(picked.reshape(-1), _cinfo[shape[:d] + (idx.size,) + shape[d + 1:]][2], input._dtype)
    input = tensor_of(input, "index_select", "input", 1)  # noqa: A001
    index = tensor_of(index, "index_select", "index", 3)
    check_index_dtype(index, "index_select", INT_OR_LONG, "index_select(): Expected dtype int32 or int64 for index")
    _vector_index(index, "index_select", StridedIndexError, "index_select(): Index is supposed to be a vector")
    d = wrap_dim(dim, input.ndim)
    src = _view1(input)
    size = src.shape[d]
    idx = index_array(index).reshape(-1)
    if input.ndim == 0 and idx.size != 1:
        raise StridedRuntimeError(
            join_lines(
                f"index_select(): Index to scalar can have only 1 value, got {idx.size} value(s)",
                "the input is 0-d: the index may only name its one element (0 or -1)",
                "fix: index with strided.tensor([0]), or unsqueeze the input first",
            )
        )
    if size == 0 and idx.size and input.ndim > 1:
        raise StridedRuntimeError(
            join_lines(
                "index_select(): self indexing axis dim should be positive",
                f"dim {d} of the input {input.shape} is empty, so no index can select from it "
                f"(the index holds {idx.size} values)",
                "fix: select from a non-empty dim, or pass an empty index",
            )
        )
    # PyTorch's CPU kernel has a path of its own for dim 1 of a 2-d or larger input (its result is
    # contiguous), and one for an empty 2-d or larger input along any dim: a RuntimeError in other
    # words there, IndexError along every other dim
    if input.ndim > 1 and (d == 1 or input.numel() == 0):
        check_bounds(idx, size, d, "index_select", StridedRuntimeError,
                     "INDICES element is out of DATA bounds, id={index} axis_dim={size}")
    check_bounds(idx, size, d, "index_select", StridedIndexError, "index out of range in self")
    if L.is_contiguous(input._layout.shape, input._layout.strides):
        picked = np.take(src, idx, axis=d)
    elif (picked := _take_in_memory_order(src, idx, d)) is None:
        picked = src[_key(d, idx)]  # read through the strides: no copy of the whole input first
    shape = tuple(picked.shape) if input.ndim else ()
    out = adopted(np.ascontiguousarray(picked).reshape(-1), _trusted(shape, L.contiguous_strides(shape), 0),
                  input._dtype)
    if OPEN:
        copied("index_select", (input, index), out,
               lambda: f"index_select: {idx.size} slices along dim {d} copied into new memory")
    return out


@backward("index_select")
def index_select_backward(out: Tensor, input: Tensor, dim: int, index: Tensor) -> Any:  # noqa: A002
    """IndexSelectBackward0: the gradient's slices added back at their positions (repeated
    positions summed): ``zeros.index_add_(dim, index, grad)``."""
    shape = input._layout.shape

    def grad(g: Tensor) -> tuple:
        if not shape:  # a 0-d input: its one element, picked once
            return (g.reshape(()),)
        return (linear("IndexAddBackward0", g, lambda g: index_add_(grad_zeros(shape, g._dtype), dim, index, g),
                       lambda gg: index_select(gg, dim, index)),)

    return "IndexSelectBackward0", (input,), grad, (index,)


# ---------------------------------------------------------------- index_fill


def _index_fill(self: Tensor, dim: Any, index: Any, value: Any, inplace: bool) -> Tensor:
    if not inplace and value.__class__ in (float, int):
        if SLICES_C is not None and (out := SLICES_C(8, self, dim, index, value)) is not None:
            # (the compiled fill answers where along_slices does, for the values fill_value passes
            # unchanged: a float within float32's range or for float64, an int its dtype holds)
            return out
        fast = along_slices(self, dim, index)
        if fast is not None:
            flat, idx, d, three = fast
            v = fill_value(value, self._dtype, "index_fill_", idx.size)  # (its range check)
            out = flat.copy()
            out.reshape(three)[:, idx] = v
            return adopted(out, _cinfo[self._layout.shape][2], self._dtype)
    op = "index_fill_" if inplace else "index_fill"
    self = tensor_of(self, op, "input", 1)
    index = tensor_of(index, op, "index", 3)
    if inplace:
        # Note: PyTorch allows (with a deprecation warning) a fill into an expanded tensor, as
        # fill_ does: every location gets the one value. So do we, without the warning.
        check_target(self, op, number_fill=True)
    check_index_dtype(index, op, LONG, "index_fill_(): Expected dtype int64 for index.", StridedIndexError)
    _vector_index(index, op, StridedRuntimeError, "Index has to be a vector/scalar")
    d = wrap_dim(dim, self.ndim)
    size = (self.shape or (1,))[d]
    idx = index_array(index).reshape(-1)  # (bounds checked below, after the value: PyTorch's order)
    support.check("index_fill", self._dtype, (self,))  # (uint16/32/64: PyTorch has no kernel)
    if isinstance(value, Tensor) and value.ndim == 0:
        value = value._np()[()].item()  # (PyTorch reads a 0-d value with .item(): the number's checks)
    if isinstance(value, complex) and not self._dtype.is_complex:  # (PyTorch's own check, before the range check)
        raise StridedRuntimeError(
            join_lines("index_fill_(): Converting complex Scalar to non-complex type is not supported",
                       f"the tensor holds {self._dtype.name}; the value {value!r} has an imaginary part",
                       "fix: fill with value.real, or convert the tensor: t.to(strided.complex64)"))
    v = fill_value(value, self._dtype, "index_fill_", idx.size)
    idx = check_bounds(idx, size, d, op, StridedIndexError,
                       "index {index} is out of bounds for dimension {dim} with size {size}", negative_ok=True)
    if inplace:
        check_no_overlap(self, index, op, "index")
        target = self
    else:
        lay = self._layout
        target = result(lay.shape, self._dtype, L.preserve_format_strides(lay.shape, lay.strides))
        np.copyto(target._np(), self._np())
    _view1(target)[_key(d, idx)] = v
    return target


@method("index_fill_")
def index_fill_(self: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    """In place, write ``value`` (a number or a 0-d tensor) into the slices at positions ``index``
    (int64, a vector or 0-d; negative counts from the end) along ``dim``; returns ``self``.

    >>> strided.zeros(2, 3).index_fill_(1, strided.tensor([0, 2]), 5).tolist()
    [[5.0, 0.0, 5.0], [5.0, 0.0, 5.0]]
    """
    return _index_fill(self, dim, index, value, True)


@method("index_fill")
def index_fill(input: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:  # noqa: A002
    """Out-of-place :func:`index_fill_` (a new tensor with ``input``'s dim order).

    >>> strided.index_fill(strided.zeros(2, 2), 1, strided.tensor([0]), -1.0).tolist()
    [[-1.0, 0.0], [-1.0, 0.0]]
    """
    return _index_fill(input, dim, index, value, False)


def _long_vector(values: np.ndarray) -> Tensor:
    values = np.ascontiguousarray(values, dtype=np.int64)
    return adopted(values, _trusted(values.shape, (1,), 0), LONG[0])


@backward("index_fill", operands="any")
def index_fill_backward(out: Tensor, input: Tensor, dim: int, index: Tensor, value: Any) -> Any:  # noqa: A002
    """IndexFillBackward0 (a number) / IndexFillBackward1 (a 0-d tensor): the gradient with the
    filled slices zeroed; a tensor value gets the sum of the gradient over them (each position once)."""
    if not isinstance(value, Tensor):
        return "IndexFillBackward0", (input,), lambda g: (index_fill(g, dim, index, 0),), (index,)

    def grad(g: Tensor) -> tuple:
        d = wrap_dim(dim, len(g._layout.shape))
        size = (g._layout.shape or (1,))[d]
        positions = np.unique(index_array(index).reshape(-1) % size) if size else np.zeros(0, np.int64)
        picked = index_select(g, d, _long_vector(positions)) if g._layout.shape else g
        return index_fill(g, dim, index, 0), picked.sum()

    return "IndexFillBackward1", (input, value), grad, (index,)


# ---------------------------------------------------------------- index_add and index_copy


def _check_source(self: Tensor, d: int, n_index: int, source: Tensor, op: str) -> None:
    """``source`` has ``self``'s shape except ``n_index`` along ``d``, checked in PyTorch's order and
    texts (index_func_meta_impl): the dim exists in ``source``, one source slice per index, then
    the other sizes -- all sizes when either tensor is 0-d (a 0-d ``self`` takes a 0-d source only,
    not a ``(1,)`` one, as PyTorch)."""
    if d and d >= source.ndim:
        raise StridedRuntimeError(join_lines(
            f"{op}(): Indexing dim {d} is out of bounds of the source tensor with dim {source.ndim}",
            f"the source has shape {source.shape}: it needs a dim {d} holding one slice per index",
            "fix: give the source self's number of dims",
        ))
    n_source = source.shape[d] if source.ndim else 1
    if n_index != n_source:
        raise StridedRuntimeError(
            join_lines(
                f"{op}(): Number of indices ({n_index}) should be equal to source.size(dim): ({n_source}), "
                f"for dim: {d}",
                f"the source has shape {source.shape}: one slice along dim {d} per index",
                f"fix: give as many indices as source.size({d}), or narrow the source",
            )
        )
    t_rest, s_rest = list(self.shape), list(source.shape)
    if self.ndim and source.ndim:
        del t_rest[d], s_rest[d]
    if t_rest != s_rest:
        expect = list(self.shape or (1,))
        expect[d] = n_index
        raise StridedRuntimeError(
            join_lines(
                "source tensor shape must match self tensor shape, excluding the specified dimension. "
                f"Got self.shape = {list(self.shape)} source.shape = {list(source.shape)}",
                f"{op} along dim {d} with {n_index} indices needs a source of shape "
                f"{tuple(expect) if self.ndim else ()}",
                "fix: reshape the source to that shape (source.reshape(...)), or unsqueeze the dim it lacks",
            )
        )


def _source_values(source: Tensor, target: Tensor, shape: tuple[int, ...]) -> np.ndarray:
    """The source's values in the slice shape, read before writing when it shares the target's memory."""
    arr = source._np().reshape(shape)
    return arr.copy() if shares_memory(source, target) else arr


def _lay(t: Tensor) -> tuple:
    """A tensor's (shape, strides, offset), in elements."""
    lay = t._layout
    return lay.shape, lay.strides, lay.offset


def _check_first_slices(self: Tensor, source: Tensor, d: int, op: str) -> None:
    """PyTorch's slice-by-slice ``index_add_`` builds one ``add_`` iterator on the first slices,
    ``self.select(d, 0)`` and ``source.select(d, 0)``, whatever the index: its overlap check
    refuses those two where they meet in part (a partial overlap of the whole tensors was
    refused before; here the slices alone, e.g. one element each at one address with other
    strides)."""
    def first(t: Tensor) -> Layout:
        lay = t._layout
        return Layout(lay.shape[:d] + lay.shape[d + 1:], lay.strides[:d] + lay.strides[d + 1:], lay.offset)

    a, b = first(self), first(source)
    if L.overlap_status(a, b) is L.OverlapStatus.PARTIAL:
        raise partial_overlap(op, a, b, L.storage_extent(a), L.storage_extent(b),
                              f"fix: pass a copy of the source: x.{op}(..., source.clone())")


def _write_plan(self: Tensor, d: int, n_index: int, index: Tensor, source: Tensor, op: str,
                inplace: bool) -> tuple[Tensor, np.ndarray, np.ndarray]:
    """After every other check: ``(target, tgt, values)`` -- the tensor written (``self`` in place,
    refused if it overlaps ``index`` or ``source``; else a fresh copy), its array view (0-d as 1-d)
    and ``source``'s values shaped as the ``n_index`` slices written along dim ``d``."""
    if inplace:
        check_no_overlap(self, index, op, "index")
        check_no_overlap(self, source, op, "source")
        target = self
    else:
        target = _out_of_place(self)
    tgt = _view1(target)
    shape = list(tgt.shape)
    shape[d] = n_index
    return target, tgt, _source_values(source, target, tuple(shape))


def _fast_index_write(self: Any, dim: Any, index: Any, source: Any, add: bool) -> Tensor | None:
    """Out-of-place ``index_add`` (``add``, alpha 1) or ``index_copy`` of row-major operands whose
    index is all in range (:func:`along_slices`) and whose source has the expected shape: a copy
    of ``self`` and the general path's one NumPy write, on the three-dim reading of the flat
    arrays (each element gets its writes in the index's order, as there). None otherwise (float16
    and bfloat16 among them: neither the compiled walk nor FAST_DTYPES takes them; PyTorch's
    scatter_add_ path sums them in float32, see _index_add)."""
    if SLICES_C is not None and (out := SLICES_C(2 if add else 1, self, dim, index, source)) is not None:
        return out
    fast = along_slices(self, dim, index)
    if fast is None:
        return None
    flat, idx, d, three = fast
    vals = slice_source(source, self, d, idx.size)
    if vals is None:
        return None
    out = flat.copy()
    key = (slice(None), idx)
    vals = vals.reshape(three[0], idx.size, three[2])
    if add:
        try:
            _add_at(out.reshape(three), 1, idx, vals, fresh=True)
        except _NaNSource:  # (a NaN in the source: the general path's NaN-exact ufunc.at)
            return None
    else:
        out.reshape(three)[key] = vals
    return adopted(out, _cinfo[self._layout.shape][2], self._dtype)


# The fewest elements per indexed slice for which _add_at adds slice by slice: one NumPy call a
# slice (about 1.5 us) against np.add.at's ~10-15 ns an element (1024 slices of 1024 float32:
# 14 ms -> ~2 ms).
_SLICE_ADD = 256


class _NaNSource(Exception):
    """:func:`_add_at` on a ``fresh`` target met a NaN in the source after its compiled pass: the
    target is spoiled (its caller's own copy) and the caller's general path redoes the call."""


def _add_at(out: np.ndarray, d: int, idx: np.ndarray, vals: np.ndarray, ufunc: np.ufunc | None = None,
            fresh: bool = False) -> None:
    """``ufunc.at(out, _key(d, idx), vals)`` (``np.add`` by default; ``np.multiply`` for
    index_reduce's prod): the slice at ``idx[k]`` along dim ``d`` gets the slice ``k`` of ``vals``
    added (multiplied), the writes in the index's order (each one rounding, as there). ``out``
    must not overlap ``vals`` or itself.

    From :data:`_SLICE_ADD` elements a slice, for float32/float64/integer values without NaN, one
    in-place ``ufunc`` call per index instead: the same sums (products) in the same order. (Two NaN
    operands: x86 keeps one of them, and which one differs between ufunc.at and NumPy's SIMD loops;
    with a NaN-free source no step has two NaN operands, and one NaN operand is the result whatever
    the loop.)

    ``fresh``: ``out`` is the caller's own new copy, which it may throw away: the compiled pass then
    watches the source for a NaN itself (instead of a whole np.min pass over it first) and, having
    met one, raises :class:`_NaNSource` (``out`` spoiled: the caller's general path redoes the call)."""
    if ufunc is None:
        ufunc = np.add  # (looked up per call: tests watch the module's np)
    if not vals.size or out.size < _SLICE_ADD * out.shape[d] or out.dtype.char not in "fdbhilqBHILQ" \
            or vals.dtype != out.dtype:
        ufunc.at(out, _key(d, idx), vals)
        return
    k = special()
    compiled = k is not None and (ufunc is np.add or ufunc is np.multiply) and out.flags.c_contiguous \
        and out.flags.aligned
    floats = out.dtype.kind == "f"
    watched = fresh and floats and compiled
    if floats and not watched and np.isnan(vals.min()):
        ufunc.at(out, _key(d, idx), vals)
        return
    if not vals.flags.c_contiguous and out.flags.c_contiguous:
        # (a transposed source read slice by slice walks a large stride: copied row-major in tiles first)
        rows = np.empty(vals.shape, vals.dtype)
        copy_into(rows, vals)
        vals = rows
    if compiled and vals.flags.c_contiguous and vals.flags.aligned:
        # the loop below in one compiled call (its Python loop: ~1.2 us an index); False where the
        # kernel does not take these arrays (its formats: float32/64, int32/64), then the loop runs
        size = out.shape[d]
        inner = out.size // (math.prod(out.shape[:d]) * size)
        done = k.index_accumulate(out, np.ascontiguousarray(idx, np.int64), vals, out.size // (size * inner), size,
                                  inner, 0 if ufunc is np.add else 1, watched)
        if done is None:
            raise _NaNSource
        if done:
            return
    if watched and np.isnan(vals.min()):  # (the kernel refused these arrays: the test it would have made)
        ufunc.at(out, _key(d, idx), vals)
        return
    if d == 1 and out.ndim == 3 and out.shape[0] == 1:
        # (index_add along dim 0, read as (1, size, inner)): plain row indexing, no key tuples
        rows, sources, add = out[0], vals[0], np.add
        for k, i in enumerate(idx.tolist()):
            part = rows[i]
            add(part, sources[k], out=part)
        return
    lead = (slice(None),) * d
    for k, i in enumerate(idx.tolist()):
        part = out[lead + (i,)]
        ufunc(part, vals[lead + (k,)], out=part)


def _index_add(self: Tensor, dim: Any, index: Any, source: Any, alpha: Any, inplace: bool) -> Tensor:
    if not inplace and alpha.__class__ is int and alpha == 1:
        out = _fast_index_write(self, dim, index, source, True)
        if out is not None:
            return out
    op = "index_add_" if inplace else "index_add"
    self = tensor_of(self, op, "input", 1)
    index = tensor_of(index, op, "index", 3)
    source = tensor_of(source, op, "source", 4)
    slices = inplace and _slices_in_order(self, source, alpha)
    if inplace:
        check_target(self, op, updates=not slices)
    check_index_dtype(index, op, INT_OR_LONG, "index_add_(): Expected dtype int32/int64 for index but got: "
                      f"{scalar_name(index._dtype)}")
    if index.ndim > 1:
        raise StridedIndexError(
            join_lines(
                f"index_add_(): Index is supposed to be a vector, but got dim: {index.ndim} with type: "
                f"{scalar_name(index._dtype)} and size: {list(index.shape)}",
                "fix: flatten it (index.reshape(-1)); to add per element, use scatter_add_",
            )
        )
    d = wrap_dim(dim, self.ndim)
    if source._dtype is not self._dtype:
        raise StridedRuntimeError(
            join_lines(
                f"index_add_(): self ({scalar_name(self._dtype)}) and source ({scalar_name(source._dtype)}) "
                "must have the same scalar type",
                f"fix: convert the source first: source.to(strided.{self._dtype.name})",
            )
        )
    idx = index_array(index, self).reshape(-1)
    _check_source(self, d, idx.size, source, "index_add_")
    size = (self.shape or (1,))[d]
    # PyTorch's CPU kernel takes one of two paths, which word this differently: along the first
    # or last dim of a 2-d+ target with alpha 1 a scatter_add (RuntimeError "index 9 is out of
    # bounds ..."), else a loop over slices (IndexError "index out of range in self"), any dtype.
    scatter_path = self.ndim > 1 and d in (0, self.ndim - 1) and alpha == 1 and alpha.__class__ is not bool
    if scatter_path:
        check_bounds(idx, size, d, op, StridedRuntimeError,
                     "index {index} is out of bounds for dimension {dim} with size {size}")
    else:
        check_bounds(idx, size, d, op, StridedIndexError, "index out of range in self")
    if idx.size:  # (uint16/32/64: PyTorch's kernel differs by path, and none takes them)
        support.check("index_add.vector" if self.ndim <= 1 else "index_add" if d in (0, self.ndim - 1) and alpha == 1
                      else "index_add.alpha", self._dtype, (self, source))
    a = fill_value(alpha, self._dtype, op, 2) if alpha != 1 else None
    scatter_path = scatter_path and index._dtype is int64 and all(
        n == m for e, (n, m) in enumerate(zip(self.shape, source.shape)) if e != d)
    if slices:
        if scatter_path:
            _scatter_add_in_order(self, d, idx, source)
        else:
            _add_slices_in_order(self, d, idx, source, alpha, op)
        return self
    target, tgt, vals = _write_plan(self, d, idx.size, index, source, op, inplace)
    opmath = scatter_path and self._dtype.name in OPMATH_DTYPES  # (a float32 copy: read first, one rounding)
    if inplace and source._storage is self._storage:  # (the rare case: the source in self's memory)
        if self.ndim > 1 and not scatter_path and idx.size:
            _check_first_slices(self, source, d, op)
        if not opmath:
            refuse_stale_read(self, source, op, "source", lambda: index_add_stale(
                _lay(self), _lay(source), idx, d, scatter_path, self._dtype.itemsize))
    if a is not None:
        vals = vals * a
    if idx.size and vals.size:
        if opmath:
            _opmath_add_at(tgt, d, idx, vals)
        else:
            _add_at(tgt, d, idx, vals)
    return target


def _slices_in_order(self: Tensor, source: Tensor, alpha: Any) -> bool:
    """Whether ``self.index_add_(dim, index, source, alpha=alpha)`` may be
    :func:`_add_slices_in_order`'s: ``self``'s elements share memory without a stride-0 dim, the
    source is outside its memory, a number alpha, outside autograd."""
    lay = self._layout
    if not may_share_elements(lay.shape, lay.strides) or L.has_internal_overlap(lay.shape, lay.strides):
        return False
    if shares_storage(source, self) or self._dtype is bool_ or alpha.__class__ not in (int, float):
        return False
    return not (GRAD_MODE.get() and (self.requires_grad or source.requires_grad))


def _scatter_add_in_order(self: Tensor, d: int, idx: np.ndarray, source: Tensor) -> None:
    """``index_add_`` into a ``self`` whose elements share memory, on PyTorch's scatter_add path
    (dim 0 or the last of a 2-d+ ``self``, alpha 1, an int64 index, ``source`` of ``self``'s shape
    but along ``d``): its CPU kernel calls ``self.scatter_add_(d, index_, source)`` with the index
    expanded over the other dims (stride 0 there), so :func:`.gather_scatter._scatter_add`'s walk in
    PyTorch's order (refused, nothing written, where scatter's threads split it)."""
    from .gather_scatter import _scatter_add  # (op-family modules never import each other at load)

    shape = list(source.shape)
    strides = [0] * len(shape)
    strides[d] = 1
    with silenced():  # (one index_add_ write recorded and counted: this one)
        index_ = _long_vector(idx).as_strided(shape, strides)
        _scatter_add(self, d, index_, source, True)


def _add_slices_in_order(self: Tensor, d: int, idx: np.ndarray, source: Tensor, alpha: Any, op: str) -> None:
    """``index_add_`` into a ``self`` whose elements share memory, as PyTorch's CPU kernel's loop
    over the index: ``self.select(d, idx[k]).add_(source.select(d, k), alpha=alpha)`` for each k in
    turn (each slice's add in its own loop's order: :mod:`strided.ops._support.overlap_updates`
    where a slice's own elements share memory). Refused (nothing written) where a slice's add would
    be split between threads."""
    lay = self._layout
    slice_shape = lay.shape[:d] + lay.shape[d + 1:]
    slice_strides = lay.strides[:d] + lay.strides[d + 1:]
    if may_share_elements(slice_shape, slice_strides) and parallel_chunks(L.product(slice_shape), torch_threads()) > 1:
        raise overlapping_write(lay, [], op)
    add = Tensor.add_.__inplace_of__  # (the op itself: one write recorded and counted, this one)
    with silenced():
        for k, i in enumerate(idx.tolist()):
            add(self.select(d, i), source.select(d, k), alpha=alpha)


def _opmath_add_at(out: np.ndarray, d: int, idx: np.ndarray, vals: np.ndarray) -> None:
    """:func:`_add_at` as PyTorch's ``scatter_add_`` path of ``index_add_`` runs it on float16 /
    bfloat16 (:data:`OPMATH_DTYPES`): the slices at ``idx`` summed in float32 and rounded once."""
    uniq, inv = np.unique(idx, return_inverse=True)
    acc = out[_key(d, uniq)].astype(np.float32)
    np.add.at(acc, _key(d, inv), vals.astype(np.float32))
    out[_key(d, uniq)] = acc.astype(out.dtype)


@method("index_add_")
def index_add_(self: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1) -> Tensor:
    """In place, add ``alpha * source``'s slices into ``self``'s slices at positions ``index`` along
    ``dim`` (repeated indices accumulate); ``source`` has ``self``'s shape but ``len(index)`` along
    ``dim``, and ``self``'s dtype.

    >>> strided.zeros(3).index_add_(0, strided.tensor([0, 0, 2]), strided.ones(3), alpha=2).tolist()
    [4.0, 0.0, 2.0]
    """
    return _index_add(self, dim, index, source, alpha, True)


@method("index_add")
def index_add(input: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1,
              out: Any = None) -> Tensor:  # noqa: A002
    """Out-of-place :func:`index_add_`: a new contiguous tensor.

    >>> strided.index_add(strided.zeros(3), 0, strided.tensor([0, 2]), strided.tensor([1.0, 2.0])).tolist()
    [1.0, 0.0, 2.0]
    """
    if out is not None:  # (PyTorch's out= takes only the result's dtype)
        return write_out(out, index_add(input, dim, index, source, alpha=alpha),
                         "index_add", (input, dim, index, source), "matmul")
    return _index_add(input, dim, index, source, alpha, False)


@backward("index_add", operands="any")
def index_add_backward(out: Tensor, input: Tensor, dim: int, index: Tensor, source: Tensor, *,  # noqa: A002
                       alpha: Any = 1) -> Any:
    """IndexAddBackward0: ``input`` gets the gradient itself (a view: nothing copied), ``source``
    the gradient's slices at ``index`` (times ``alpha``)."""

    def grad(g: Tensor) -> tuple:
        # (derivatives.yaml's rule as PyTorch 2.13 runs it, in its convention for complex
        # gradients: maybe_multiply(grad.index_select(dim, index), alpha), alpha itself, not its
        # conjugate (measured: alpha=0.5j, g=1 gives source.grad 0.5j, where add(alpha=0.5j)
        # gives -0.5j), the product skipped for a real alpha of 1 only. Conjugated around
        # g * alpha, strided gave conj(alpha) * g, and other signed zeros for real alphas.)
        picked = index_select(g, dim, index)
        if alpha.__class__ is not complex and alpha == 1:
            return g, picked
        return g, picked * alpha

    grad.pytorch_convention = True  # type: ignore[attr-defined]
    return "IndexAddBackward0", (input, source), grad, (index, source)  # (PyTorch saves source: its version is checked)


def _index_copy(self: Tensor, dim: Any, index: Any, source: Any, inplace: bool) -> Tensor:
    if not inplace:
        out = _fast_index_write(self, dim, index, source, False)
        if out is not None:
            return out
    op = "index_copy_" if inplace else "index_copy"
    self = tensor_of(self, op, "input", 1)
    index = tensor_of(index, op, "index", 3)
    source = tensor_of(source, op, "source", 4)
    if inplace:
        check_target(self, op)
    check_index_dtype(index, op, LONG,
                      f"index_copy_(): Expected a long tensor for index, but got {scalar_name(index._dtype)}")
    if index.ndim > 1:
        raise StridedIndexError(
            join_lines(f"index_copy_(): Index should have dimension 1 or 0 (got {index.ndim})",
                       "fix: flatten it (index.reshape(-1)); to write per element, use scatter_"))
    d = wrap_dim(dim, self.ndim)
    if source.ndim and self.ndim and source.ndim != self.ndim:
        raise StridedIndexError(
            join_lines(
                "index_copy_(): When source and destination are not scalars, their dimensionality must match. "
                f"Source dimensionality ({source.ndim}), destination dimensionality ({self.ndim})",
                f"the source has shape {source.shape}, the destination {self.shape}",
                "fix: reshape the source to the destination's number of dims (source.unsqueeze(d))",
            )
        )
    idx = index_array(index, self).reshape(-1)
    s_shape, t_shape = source.shape or (1,), self.shape or (1,)
    if len(s_shape) == len(t_shape) and s_shape[d] != idx.size:
        raise StridedIndexError(
            join_lines(
                f"index_copy_(): Number of indices ({idx.size}) should be equal to source.size(dim) ({s_shape[d]})",
                f"the source {source.shape} has one slice along dim {d} per index",
                f"fix: give as many indices as source.size({d})",
            )
        )
    for e, (n, m) in enumerate(zip(t_shape, s_shape)):
        if e != d and n != m:
            at = e if e < d else e - 1  # (PyTorch counts the dims of the slice, without dim)
            raise StridedRuntimeError(
                join_lines(
                    f"index_copy_(): Source/destination tensor must have same slice shapes. Destination slice "
                    f"shape: {n} at dimension {at} and source slice shape: {m} at dimension {at}.",
                    f"the destination {self.shape} and source {source.shape} must agree in every dim but {d}",
                    "fix: reshape or narrow the source to the destination's sizes",
                )
            )
    if source._dtype is not self._dtype:
        check_same_dtype(self, source, op,
                         "index_copy_(): self and source expected to have the same dtype, but got (self) "
                         f"{scalar_name(self._dtype)} and (source) {scalar_name(source._dtype)}")
    size = t_shape[d]
    check_bounds(idx, size, d, op, StridedIndexError,
                 "index_copy_(): index {index} is out of bounds for dimension {dim} with size {size}")
    support.check("index_copy", self._dtype, (self, source))
    target, tgt, vals = _write_plan(self, d, idx.size, index, source, op, inplace)
    if inplace:
        refuse_stale_read(self, source, op, "source", lambda: index_copy_stale(
            _lay(self), _lay(source), idx, index._layout.strides[0] if index.ndim else 1, d))
    # Note: PyTorch leaves a repeated index's result undefined; NumPy's assignment makes the
    # last write win.
    if not (inplace and _copy_in_torch_order(self, source, idx, index, d)):
        if tgt.flags.c_contiguous:
            # (a permuted source read row-major first, by the blocked copy: NumPy's assignment walks
            # it in the target's order, a cache miss per element; a transposed 2^20-element float32
            # source 6.9 -> 2.8 ms. The same values written in the same order: a temporary, not
            # reported, as row_major's other readers)
            vals = row_major(vals)
        tgt[_key(d, idx)] = vals
    return target


def _copy_in_torch_order(self: Tensor, source: Tensor, idx: np.ndarray, index: Tensor, d: int) -> bool:
    """``self.index_copy_(d, index, source)`` into a ``self`` whose elements share memory
    (``unfold`` windows, ``as_strided``; PyTorch lets them through as "too hard"): each shared
    location keeps the value ``index_copy_out``'s walk writes there last
    (:func:`.torch_overlap_writes.walk_survivors`, which refuses racing threads), where NumPy's
    assignment walks its own order. False (nothing written): ``self``'s elements do not share
    memory, the NumPy write is PyTorch's."""
    lay = self._layout
    if not may_share_elements(lay.shape, lay.strides):
        return False
    walk = index_copy_walk(_lay(self), _lay(source), idx, index._layout.strides[0] if index.ndim else 1, d)
    if walk is None:
        return True  # (no element: nothing written)
    _, perm, written, read = walk
    outer_first = perm[::-1]
    values = source._storage.array[read.transpose(outer_first).ravel()]
    positions, kept = walk_survivors(written.transpose(outer_first).ravel(), values)
    self._storage.array[positions] = kept
    return True


@method("index_copy_")
def index_copy_(self: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    """In place, copy ``source``'s slices into ``self``'s slices at positions ``index`` (int64)
    along ``dim``. Where an index repeats (PyTorch: undefined) the last slice wins.

    >>> strided.zeros(3).index_copy_(0, strided.tensor([2, 0]), strided.tensor([5.0, 6.0])).tolist()
    [6.0, 0.0, 5.0]
    """
    return _index_copy(self, dim, index, source, True)


@method("index_copy")
def index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor, *,
               out: Any = None) -> Tensor:  # noqa: A002
    """Out-of-place :func:`index_copy_`: a new contiguous tensor.

    >>> strided.index_copy(strided.zeros(3), 0, strided.tensor([1]), strided.tensor([9.0])).tolist()
    [0.0, 9.0, 0.0]
    """
    if out is not None:  # (PyTorch's out= takes only the result's dtype)
        return write_out(out, index_copy(input, dim, index, source),
                         "index_copy", (input, dim, index, source), "matmul")
    return _index_copy(input, dim, index, source, False)


@backward("index_copy", operands="any")
def index_copy_backward(out: Tensor, input: Tensor, dim: int, index: Tensor, source: Tensor) -> Any:  # noqa: A002
    """IndexCopyBackward0: ``input`` gets the gradient with the overwritten slices zeroed,
    ``source`` the gradient's slices at ``index``."""

    def grad(g: Tensor) -> tuple:
        return index_fill(g, dim, index, 0), index_select(g, dim, index)

    return "IndexCopyBackward0", (input, source), grad, (index, source)  # (PyTorch saves source: its version is checked)



# ---------------------------------------------------------------- index_reduce

_REDUCES = ("prod", "mean", "amax", "amin")
_BETA = "index_reduce() is in beta and the API may change at any time."
# Set while index_reduce's backward runs index_reduce itself: the beta warning is the user's
# call's, not the gradient's (context-local, so another thread's call still warns).
_QUIET: ContextVar[bool] = ContextVar("index_reduce_quiet", default=False)


def _index_reduce(self: Any, dim: Any, index: Any, source: Any, reduce: Any, include_self: Any,
                  inplace: bool) -> Tensor:
    op = "index_reduce_" if inplace else "index_reduce"
    self = tensor_of(self, op, "input", 1)
    index = tensor_of(index, op, "index", 3)
    source = tensor_of(source, op, "source", 4)
    if not isinstance(reduce, str):  # (PyTorch's parser: every argument's type before any value)
        raise StridedTypeError(join_lines(
            f"{op}(): argument 'reduce' (position 5) must be str, not {type(reduce).__name__}",
            "reduce names the reduction: 'prod', 'mean', 'amax' or 'amin'",
        ))
    if type(include_self) is not bool:
        raise StridedTypeError(join_lines(
            f"{op}(): argument 'include_self' must be bool, not {type(include_self).__name__}",
            "include_self=False reduces over the source slices only, True (the default) also over self's",
        ))
    if not _QUIET.get():
        warnings.warn(_BETA, UserWarning, stacklevel=user_site()[1])
    if not inplace and reduce in _REDUCES:
        out = _fast_index_reduce(self, dim, index, source, reduce, include_self)
        if out is not None:
            return out
    if reduce not in _REDUCES:
        raise StridedRuntimeError(join_lines(
            f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.",
            "fix: pass reduce='prod', 'mean', 'amax' or 'amin'; for a sum use index_add_",
        ))
    if inplace:
        check_target(self, op, updates=True)
    check_index_dtype(index, op, INT_OR_LONG, f"index_reduce_(): Expected dtype int32/int64 for index but got: "
                      f"{scalar_name(index._dtype)}")
    d = wrap_dim(dim, self.ndim)
    if source._dtype is not self._dtype:
        raise StridedRuntimeError(join_lines(
            f"index_reduce_(): self ({scalar_name(self._dtype)}) and source ({scalar_name(source._dtype)}) "
            "must have the same scalar type",
            f"fix: convert the source first: source.to(strided.{self._dtype.name})",
        ))
    idx = index_array(index, self).reshape(-1)
    _check_source(self, d, idx.size, source, "index_reduce_")
    _kernel_checks(self, d, idx, reduce, include_self, op)
    target, tgt, vals = _write_plan(self, d, idx.size, index, source, op, inplace)
    if idx.size and vals.size:
        _reduce_into(tgt, d, idx, vals, reduce, include_self)
    return target


_REDUCE_UFUNCS = {"prod": np.multiply, "mean": np.add, "amax": np.maximum, "amin": np.minimum}
# the binary kernel PyTorch's index_reduce of a >1-d tensor runs per index (mul_stub, maximum_stub,
# minimum_stub, add_stub), by reduction: the dtypes it has none for
_SLICE_KERNELS = {"amax": "maximum_cpu", "amin": "minimum_cpu", "mean": "add_stub"}


def _undispatched(dtype: Any) -> bool:
    """Outside PyTorch's ``AT_DISPATCH_ALL_TYPES_AND2(Half, BFloat16)``: bool, complex, uint16/32/64."""
    return dtype is bool_ or dtype.is_complex or (dtype.kind == "u" and dtype.itemsize > 1)


def _slice_kernel_missing(dtype: Any, reduce: str) -> bool:
    """Whether the per-slice kernel of a >1-d index_reduce has no ``dtype`` loop (complex and
    uint16+ have no maximum/minimum, uint16+ no add)."""
    wide_unsigned = dtype.kind == "u" and dtype.itemsize > 1
    return (reduce in ("amax", "amin") and (dtype.is_complex or wide_unsigned)) or (reduce == "mean" and wide_unsigned)


def _kernel_refuses(dtype: Any, reduce: str, include_self: bool, ndim: int) -> bool:
    """Whether :func:`_kernel_checks` may raise for the dtype (a fast path then stands aside)."""
    return (_undispatched(dtype) and (not include_self or ndim <= 1)) or _slice_kernel_missing(dtype, reduce) \
        or (dtype is bool_ and reduce == "mean")


def _kernel_checks(self: Tensor, d: int, idx: np.ndarray, reduce: str, include_self: bool, op: str) -> None:
    """PyTorch's CPU index_reduce (``index_reduce_func_impl``) refusals, in its order:

    - ``include_self=False``: its fill of the indexed slices dispatches over the real dtypes
      (NotImplementedError ``"index_reduce_func_exclude_input_init"`` for bool, complex and
      uint16/32/64), then ``index_fill_`` checks the index (``-size <= i < size``);
    - a >1-d tensor: nothing more for an empty index; else, index by index, the bounds check
      ("index out of range in self") then the slice's binary kernel: complex amax/amin has no
      ``maximum_cpu``/``minimum_cpu`` (so the first index decides which error comes first); bool's
      mean then fails at its floor division of the sums by the counts (``"div_floor_cpu"``);
    - a 0-d or 1-d tensor: the element loop dispatches over the real dtypes (``"index_func_"``),
      before the bounds check."""
    dt = self._dtype

    def missing(kernel: str) -> StridedNotImplementedError:
        return StridedNotImplementedError(join_lines(
            f'"{kernel}" not implemented for \'{TORCH_NAMES[dt]}\'',
            f"index_reduce(reduce='{reduce}', include_self={include_self}) of a {self.ndim}-d {dt.name} tensor: "
            f"PyTorch 2.13's CPU kernel has no {dt.name} loop here",
            "fix: reduce a real tensor (x.real and x.imag apart for complex), or convert first: x.to(strided.float64)"))

    size = (self.shape or (1,))[d]
    if not include_self:
        if _undispatched(dt):
            raise missing("index_reduce_func_exclude_input_init")
        bad = idx[(idx < -size) | (idx >= size)]
        if bad.size:
            raise StridedIndexError(join_lines(f"index {int(bad[0])} is out of bounds for dimension {d} with size {size}",
                                               f"{op}: every index must be in [0, {size})"))
    if self.ndim > 1:
        if not idx.size:
            return
        if _slice_kernel_missing(dt, reduce) and 0 <= idx[0] < size:
            raise missing(_SLICE_KERNELS[reduce])
    elif _undispatched(dt):
        raise missing("index_func_")
    check_bounds(idx, size, d, op, StridedIndexError, "index out of range in self")
    if dt is bool_ and reduce == "mean":
        raise missing("div_floor_cpu")


def _fast_index_reduce(self: Tensor, dim: Any, index: Tensor, source: Tensor, reduce: str,
                       include_self: bool) -> Tensor | None:
    """Out-of-place ``index_reduce`` of row-major operands whose int64 index is all in range
    (:func:`along_slices`) and whose source has the expected shape, so that every check below
    passes: a copy of ``self`` and :func:`_reduce_into` on the same arrays (the same writes in the
    same order). None when a precondition fails (nothing written)."""
    fast = along_slices(self, dim, index)
    if fast is None:
        return None
    flat, idx, d, _ = fast
    vals = slice_source(source, self, d, idx.size)
    if vals is None or _kernel_refuses(self._dtype, reduce, include_self, self.ndim):
        return None
    shape = self._layout.shape
    out = flat.copy()
    try:
        _reduce_into(out.reshape(shape), d, idx, vals.reshape(shape[:d] + (idx.size,) + shape[d + 1:]), reduce,
                     include_self, fresh=True)
    except _NaNSource:  # (a NaN in the source: the general path's NaN-exact ufunc.at)
        return None
    return adopted(out, _cinfo[shape][2], self._dtype)


def _reduce_into(tgt: np.ndarray, d: int, idx: np.ndarray, vals: np.ndarray, reduce: str, include_self: bool,
                 fresh: bool = False) -> None:
    """PyTorch's CPU index_reduce: each slice ``tgt[idx[i]]`` along ``d`` reduced with ``vals[i]``
    (NaN propagates through amax/amin, as there); without ``include_self`` the indexed slices start
    from the reduction's identity; ``mean`` divides by the count (floor division for integers).
    ``fresh``: ``tgt`` is the caller's own copy (prod and mean: :func:`_add_at`'s ``fresh``)."""
    key = _key(d, idx)
    if not include_self or reduce == "mean":  # (the slices hit: only these two need them)
        hit = np.unique(idx)
        hit_key = _key(d, hit)
    if not include_self:
        if reduce == "prod":
            tgt[hit_key] = 1
        elif reduce == "mean":
            tgt[hit_key] = 0
        else:  # the identity of amax / amin: the dtype's lowest / highest value
            info = np_finfo(tgt.dtype) if np_kind(tgt.dtype) in "fc" else np.iinfo(tgt.dtype) if tgt.dtype.kind in "iu" else None
            low, high = (-np.inf, np.inf) if np_kind(tgt.dtype) == "f" else (False, True) if info is None else (info.min, info.max)
            tgt[hit_key] = low if reduce == "amax" else high
    ufunc = _REDUCE_UFUNCS[reduce]
    if reduce in ("amax", "amin") and np_kind(tgt.dtype) == "f":
        zeros = _first_zeros(tgt, d, idx, vals, include_self)
        with np.errstate(invalid="ignore"):  # (a NaN propagates, as in PyTorch: no warning)
            if tgt.size and np.isnan(tgt.min()):
                ufunc.at(tgt, key, vals)
            else:  # (no NaN in the target; _add_at checks the source: a zero's sign is fixed below)
                _add_at(tgt, d, idx, vals, ufunc)
        if zeros is not None:  # (a zero extreme: the first zero's sign, see _first_zeros)
            pos, first = zeros
            moved = np.moveaxis(tgt, d, 0)
            tied = moved[pos] == 0
            moved[tuple(p[tied] for p in pos)] = first[tied]
        return
    if reduce == "amax" or reduce == "amin":
        ufunc.at(tgt, key, vals)  # (integers: no NaN or signed zero to decide)
    else:
        _add_at(tgt, d, idx, vals, ufunc, fresh)  # (large slices: one in-place call per index, the same order)
    if reduce == "mean":
        counts = np.bincount(idx, minlength=tgt.shape[d])[hit] + (1 if include_self else 0)
        shape = [1] * tgt.ndim
        shape[d] = hit.size
        counts = counts.reshape(shape).astype(tgt.dtype)
        if tgt.dtype.kind in "iu":
            tgt[hit_key] = np.floor_divide(tgt[hit_key], counts)
        else:
            tgt[hit_key] = tgt[hit_key] / counts


def _first_zeros(tgt: np.ndarray, d: int, idx: np.ndarray, vals: np.ndarray, include_self: bool) -> tuple | None:
    """For index_reduce's amax/amin of floats: ``(positions, zeros)``, the positions (in ``tgt``
    with ``d`` moved first) that a zero of ``vals`` reaches and the signed zero PyTorch leaves
    there if the extreme comes out zero: its kernel keeps the running value on a tie, so the
    first zero met (``tgt``'s own, when included). None when ``vals`` holds no zero."""
    m = idx.size
    v = np.moveaxis(vals, d, 0).reshape(m, -1)
    hit = (v == 0).reshape(-1)
    if not hit.any():
        return None
    rest = v.shape[1]
    keys = (idx[:, None] * rest + np.arange(rest)).reshape(-1)
    at, first = np.unique(keys[hit], return_index=True)  # (in (index, element) order: the first)
    zeros = v.reshape(-1)[hit][first]
    moved = np.moveaxis(tgt, d, 0)
    j, r = np.divmod(at, rest)
    pos = (j,) + np.unravel_index(r, moved.shape[1:]) if moved.ndim > 1 else (j,)
    if include_self:
        own = moved[pos]
        zeros = np.where(own == 0, own, zeros)
    return pos, zeros


@method("index_reduce_")
def index_reduce_(self: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                  include_self: bool = True) -> Tensor:
    """In place, reduce ``source``'s slices into ``self``'s slices at ``index`` along ``dim`` with
    ``reduce`` ("prod", "mean", "amax", "amin"); ``include_self=False`` leaves ``self``'s values
    out of the indexed slices. PyTorch's beta warning is raised, as there.

    >>> import warnings; warnings.simplefilter("ignore")
    >>> strided.ones(3).index_reduce_(0, strided.tensor([0, 0, 2]), strided.tensor([2.0, 3.0, 4.0]), "prod").tolist()
    [6.0, 1.0, 4.0]
    """
    return _index_reduce(self, dim, index, source, reduce, include_self, True)


@method("index_reduce")
def index_reduce(input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,  # noqa: A002
                 include_self: bool = True, out: Any = None) -> Tensor:
    """Out-of-place :func:`index_reduce_`: a new contiguous tensor."""
    if out is not None:  # (PyTorch's out= takes only the result's dtype)
        return write_out(out, index_reduce(input, dim, index, source, reduce, include_self=include_self),
                         "index_reduce", (input, dim, index, source, reduce), "matmul")
    if SLICES_C is not None and reduce.__class__ is str and reduce == "prod" and include_self.__class__ is bool:
        # the compiled products (the writes of _fast_index_reduce, in the same order) before the
        # argument checks, which they imply; the beta warning after it (nothing was written)
        out = SLICES_C(3 if include_self else 7, input, dim, index, source)
        if out is not None:
            if not _QUIET.get():
                warnings.warn(_BETA, UserWarning, stacklevel=user_site()[1])
            return out
    return _index_reduce(input, dim, index, source, reduce, include_self, False)


_PROD_DOUBLE = ("index_reduce(): Double backward is unsupported for source when >1 zeros in source are "
                "scattered to the same position in self")


@backward("index_reduce", operands="any", complex_grad=False)
def index_reduce_backward(out: Tensor, input: Tensor, dim: int, index: Tensor, source: Tensor,  # noqa: A002
                          reduce: str, *, include_self: bool = True) -> Any:
    """IndexReduceBackward0, PyTorch's index_reduce_backward (FunctionsManual.cpp), formula for
    formula:

    - ``prod``: ``self`` gets ``g * r' / self'`` with zeros of ``self`` replaced by 1 (``self'``)
      and ``r'`` the reduction recomputed from ``self'``; a source element gets ``g * r / src``,
      or, when it is the only zero reduced into its slice, ``g`` times the reduction with that
      zero replaced by 1. Where two or more zeros meet, the source's gradient is 0 and, under
      ``create_graph``, differentiating it raises PyTorch's RuntimeError;
    - ``mean``: ``g / N`` for both, ``N`` the count reduced into each slice (self included);
    - ``amax`` / ``amin``: ``g`` shared evenly among the elements equal to the result (self's
      and the sources'), as PyTorch distributes ties.

    Without ``include_self`` the indexed slices of ``self`` get 0 (after the formula: a tie
    with ``self``'s value still takes its share from the sources, as in PyTorch).
    """
    d = wrap_dim(dim, input.ndim)

    def reduce_again(target: Tensor, src: Tensor) -> Tensor:
        token = _QUIET.set(True)
        try:
            return index_reduce(target, d, index, src, reduce, include_self=include_self)
        finally:
            _QUIET.reset(token)

    def grad(g: Tensor) -> tuple:
        if reduce == "prod":
            masked_self = input.masked_fill(input == 0, 1)
            g_self = g * reduce_again(masked_self, source) / masked_self
            src_zero = source == 0
            n_zeros = index_add(grad_zeros(input.shape, input._dtype), d, index,
                                src_zero.to(input._dtype)).index_select(d, index)
            single_zero = src_zero & (n_zeros == 1)
            masked_src_result = reduce_again(input, source.masked_fill(single_zero, 1))
            g_src = (g * masked_src_result).index_select(d, index).where(
                single_zero, (g * out).index_select(d, index) / source.masked_fill(src_zero, 1))
            if bool((n_zeros > 1).any()):
                g_src = not_differentiable(g_src, "index_reduce", (g, input, source), message=_PROD_DOUBLE)
        elif reduce == "mean":
            n = index_add(grad_zeros(input.shape, g._dtype) + (1 if include_self else 0), d, index,
                          grad_zeros(source.shape, g._dtype) + 1)
            n = n.masked_fill(n == 0, 1)
            g_self = g / n
            g_src = g.index_select(d, index) / n.index_select(d, index)
        else:  # amax, amin
            value = out.index_select(d, index)
            self_is_result = (input == out).to(input._dtype)
            source_is_result = (source == value).to(input._dtype)
            shared = g / index_add(self_is_result, d, index, source_is_result)
            g_self = self_is_result * shared
            g_src = source_is_result * shared.index_select(d, index)
        if not include_self:
            g_self = index_fill(g_self, d, index, 0)
        return g_self, g_src

    return "IndexReduceBackward0", (input, source), grad, (input, source, index, out)


# ---------------------------------------------------------------- unravel_index


def unravel_index(indices: Any, shape: Any) -> tuple[Tensor, ...]:
    """The coordinates of flat ``indices`` in a row-major tensor of ``shape``: one int64 tensor
    per dim, each of ``indices``' shape (PyTorch's ``torch.unravel_index``). As PyTorch computes
    them, ``(indices[..., None] // coefs) % shape`` with ``coefs`` the row-major strides, so an
    index out of range wraps (12 in shape (3, 4) gives (0, 0); -1 gives (2, 3)); the results are
    the columns of one ``(..., ndim)`` tensor (views into it, as PyTorch's ``unbind``).

    >>> [t.tolist() for t in strided.unravel_index(strided.tensor([5, 7]), (3, 4))]
    [[1, 1], [1, 3]]
    """
    if not isinstance(indices, Tensor):
        raise StridedTypeError(join_lines(
            f"unravel_index(): argument 'indices' must be Tensor, not {type(indices).__name__}",
            "pass the flat indices as an integer tensor: strided.tensor([5, 7])",
        ))
    d = indices._dtype
    if d.is_complex or d.is_floating_point or d is bool_:
        raise StridedTypeError(join_lines(
            f"expected 'indices' to be integer dtype, but got torch.{d.name}",
            "flat indices are whole numbers; fix: indices.to(strided.int64)",
        ))
    if isinstance(shape, bool) or not isinstance(shape, (int, tuple, list)) and not is_index_scalar(shape):
        raise StridedTypeError(f"expected 'shape' to be int or sequence of ints, but got {type(shape)}")
    dims = [shape] if not isinstance(shape, (tuple, list)) else list(shape)
    for dim in dims:
        if isinstance(dim, bool) or not (isinstance(dim, int) or is_index_scalar(dim)):
            raise StridedTypeError(f"expected 'shape' sequence to only contain ints, but got {type(dim)}")
    dims = [int(dim) for dim in dims]
    if any(dim < 0 for dim in dims):
        raise StridedValueError(f"'shape' cannot have negative values, but got {tuple(dims)}")
    coefs = [1] * len(dims)
    for k in range(len(dims) - 2, -1, -1):
        coefs[k] = coefs[k + 1] * dims[k + 1]
    # PyTorch's torch.tensor(coefs) and, after its floor_divide, torch.tensor(shape): int64 or its
    # ValueError (the general path's _int64_vector raises it in the same order, where a zero dim
    # may first make the floor_divide raise)
    _check_int64(coefs)
    if 0 not in dims:
        _check_int64(dims)
    fast = _unravel_dense(indices, coefs, dims)
    if fast is not None:
        return fast
    coords = indices.unsqueeze(-1).floor_divide(_int64_vector(coefs)) % _int64_vector(dims)
    return coords.unbind(-1)


def _check_int64(values: list[int]) -> None:
    """PyTorch's ValueError where one of ``values`` does not fit in int64 (``torch.tensor(values,
    dtype=torch.int64)``: unravel_index's strides, then its shape)."""
    for v in values:
        if not -L.INT64_MAX - 1 <= v <= L.INT64_MAX:
            raise StridedValueError(join_lines(
                "Overflow when unpacking long long",
                f"unravel_index's shape or its row-major strides hold {v}, which does not fit in int64",
            ))


def _unravel_dense(indices: Tensor, coefs: list[int], dims: list[int]) -> tuple[Tensor, ...] | None:
    """:func:`unravel_index`'s coordinates of a plain int64 ``indices`` laid out row-major or densely
    permuted (a transpose, every dim of size >= 2), nobody listening (the general path reports its
    floor_divide and remainder): the general path's ``(..., ndim)`` int64 tensor (TensorIterator's
    layout: the coordinate dim innermost, the others in the input's memory order, so each
    element's coordinates lie at ndim times its input's place), computed over the input's storage
    run in memory order one dim at a time by NumPy's floor_divide and remainder by a Python int
    (NumPy divides by a scalar with libdivide's multiply: 1M indices in 2 dims ~21 -> ~8 ms), then
    unbound as the general path unbinds it; the copy kernel's ``unravel_rows`` writes all the
    columns in one pass where it is built (1M indices in 2 dims ~8 -> ~1 ms). None where that does
    not apply (a zero divisor: the general path's error)."""
    if OPEN or indices.__class__ is not Tensor or indices._dtype is not int64 or not dims or 0 in dims:
        return None
    lay = indices._layout
    shape, strides = lay.shape, lay.strides
    info = _cinfo[shape]
    if strides != info[0] and (min(shape, default=0) < 2 or not L.is_non_overlapping_and_dense(shape, strides)):
        return None
    flat = indices._storage.array[lay.offset: lay.offset + info[1]]
    if flat.shape[0] != info[1]:
        return None
    ndim = len(dims)
    out = np.empty(info[1] * ndim, np.int64)
    layout = Layout._trusted(shape + (ndim,), tuple(s * ndim for s in strides) + (1,), 0)
    run = getattr(native.kernel(), "unravel_rows", None) if native.active() else None
    if run is not None and run(flat, tuple(dims), out):
        return adopted(out, layout, int64).unbind(-1)
    columns = out.reshape(info[1], ndim)
    for j in range(ndim):
        column = columns[:, j]
        np.floor_divide(flat, coefs[j], out=column)
        np.remainder(column, dims[j], out=column)
    return adopted(out, layout, int64).unbind(-1)


def _int64_vector(values: list[int]) -> Tensor:
    """An int64 vector of ``values``: the op's own constants (not a ``tensor()`` of the user's);
    PyTorch's ValueError where one does not fit in int64."""
    _check_int64(values)
    return adopted(np.asarray(values, dtype=np.int64), Layout._trusted((len(values),), (1,), 0), int64)


seal(globals())  # (last: this module's ops with a backward rule become their recording entries)
# the kinds of this module's ops, in the op registry (after the seal: the forwards are the entries)
declare(Kind.COPY, "index_select")
declare(Kind.COMPUTE, "unravel_index")
declare(Kind.COMPUTE, "index_add index_copy index_fill index_reduce")
