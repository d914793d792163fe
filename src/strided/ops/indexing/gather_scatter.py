"""``gather``, ``take``, ``take_along_dim`` and the scatter family (``scatter``, ``scatter_add``,
``scatter_reduce`` and their in-place forms), with PyTorch's semantics.

Along ``dim``, ``gather`` reads ``out[i][j] = self[index[i][j]][j]`` (for ``dim=0``) and
``scatter_`` writes ``self[index[i][j]][j] = src[i][j]``. Both are computed on the flat storage:
:func:`~strided.ops._support.index_common.storage_index` turns the index into storage positions of any
strided layout, then one ``np.take`` (read), ``np.put`` (write) or ``ufunc.at`` (accumulate) does
the work, reading permuted and expanded inputs in place.

Reading ops make new memory and are reported as copies (:func:`strided.dispatch.copied`); the
writes check everything first (index dtype, shapes, every index value, the target's
writability), so a failed call leaves the target untouched.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from ... import layout as L
from ...callsite import user_site
from ...dispatch import OPEN, adopted, copied, result, shares_storage
from ...dtypes import DType, int64, np_kind
from ...errors import StridedIndexError, StridedRuntimeError, StridedTypeError, join_lines
from ...gradients import grad_zeros, linear, seal
from ...kernels import native, numpy_view, write
from ...kernels.blocked import copy_into, row_major
from ...kernels.listeners import silenced
from ...kernels.memory import dense_layout
from ...kernels.torch_loops import operand_strides
from ...layout import Layout
from ...layout.core import may_share_elements
from ...layout.order import iteration_order
from ...lazy_names import function_on_first_call
from ...messages import overlapping_write
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
    check_target,
    fill_value,
    index_array,
    opmath_at,
    refuse_stale_read,
    scalar_name,
    shares_memory,
    storage_blocks,
    storage_index,
    tensor_of,
    wrap_dim,
)
from .._support.operands import _cinfo, flat_run
from .._support.out import write_out
from ..elementwise.unary import where as _where
from ..registry import backward, method
from .fast_along import ALONG_C, FAST_DTYPES, along_positions, source_run

# (PyTorch's index-loop walks: loaded on the first overlapping or racing write; see strided.lazy_names.function_on_first_call)
addresses = function_on_first_call("strided.kernels.torch_index_loops", "addresses", globals())
filled_stale = function_on_first_call("strided.kernels.torch_index_loops", "filled_stale", globals())
scatter_stale = function_on_first_call("strided.kernels.torch_index_loops", "scatter_stale", globals())
scatter_walk = function_on_first_call("strided.kernels.torch_index_loops", "scatter_walk", globals())

# (the walks of overlapping writes, loaded on the first such write)
walk_survivors = function_on_first_call("strided.kernels.torch_overlap_writes", "walk_survivors", globals())

_trusted = Layout._trusted
# From this many index elements gather takes the compiled walk (_specialkernel.gather_nd): NumPy's
# positions (index * stride + the other dims' grid) and take cost two passes more over the index
# (1M float32 along dim 1, thread time: 2.1 ms against the walk's ~0.6, PyTorch's 1.2)
_NATIVE_GATHER = 1 << 12

# ---------------------------------------------------------------- shared pieces


def _as_1d(t: Tensor) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Shape and strides the kernels see: a 0-d tensor is one element along one dim (PyTorch's
    gather/scatter treat it so)."""
    lay = t._layout
    return (lay.shape, lay.strides) if lay.shape else ((1,), (0,))


def _same_rank(self: Tensor, index: Tensor, noun: str) -> None:
    if max(self.ndim, 1) != max(index.ndim, 1):
        raise StridedRuntimeError(
            join_lines(
                f"Index tensor must have the same number of dimensions as {noun} tensor",
                f"{noun} has shape {self.shape} ({self.ndim} dims) but the index has shape {index.shape} "
                f"({index.ndim} dims); the index names one position along dim for every element it reads",
                "fix: give the index the same number of dims, e.g. index.unsqueeze(d) or "
                "index.view(...) (to broadcast it, use take_along_dim)",
            )
        )


def _fresh(shape: tuple[int, ...], flat: np.ndarray, dtype: DType) -> Tensor:
    """A contiguous result over ``flat``, a fresh array NumPy just computed."""
    return adopted(np.ascontiguousarray(flat).reshape(-1), _trusted(shape, L.contiguous_strides(shape), 0), dtype)


def _gather_kernel(self: Tensor, d: int, idx: np.ndarray) -> np.ndarray | None:
    """``self`` gathered along ``d`` at ``idx`` (a flat array in ``idx``'s row-major order), or
    None when an index is outside ``[0, size)`` (the caller then raises with the details).

    The bounds are checked block by block, just before the block is read (its index values are
    then read from memory once, not once for the check and again for the positions); a bad
    value is still refused before the result is seen, and ``mode="wrap"`` keeps every read
    inside the storage meanwhile (and skips NumPy's own error path: faster than "clip")."""
    shape, strides = _as_1d(self)
    size = shape[d]
    arr = self._storage.array
    out = np.empty(idx.size, arr.dtype)
    if idx.size >= _NATIVE_GATHER and idx.flags.c_contiguous and (k := native.special()) is not None:
        # the compiled walk: one pass over the index, its bounds checked as each value is read
        done = k.gather_nd(arr, self._layout.offset, strides, idx, out, idx.shape or (1,), d, size)
        if done != -2:
            return out if done == -1 else None
    unsigned = idx.view(np.uint64) if idx.ndim else idx.reshape(1).view(np.uint64)
    per = unsigned.size // unsigned.shape[0] if unsigned.size else 1
    for start, stop, base, lin in storage_blocks(idx, strides, d, self._layout.offset):
        if int(unsigned[start // per : stop // per].max()) >= size:
            return None
        np.take(arr[base:], lin, out=out[start:stop], mode="wrap")
    return out


# ---------------------------------------------------------------- gather


@method("gather")
def gather(input: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False,
           out: Any = None) -> Tensor:  # noqa: A002
    """``out[i][j][k] = input[index[i][j][k]][j][k]`` (for ``dim=0``): values of ``input`` picked
    along ``dim`` at the positions in ``index``; the result has ``index``'s shape and is new memory.

    ``index`` is int64 (or int32) with ``input``'s number of dims, no larger than ``input`` in the
    other dims (it need not broadcast: smaller is a corner). An index outside ``[0, size)`` is a
    RuntimeError naming it.

    >>> x = strided.tensor([[1, 2], [3, 4]])
    >>> x.gather(1, strided.tensor([[0, 0], [1, 0]])).tolist()
    [[1, 1], [4, 3]]
    """
    if out is not None:  # (PyTorch's out= takes only the result's dtype)
        return write_out(out, gather(input, dim, index, sparse_grad=sparse_grad),
                         "gather", (input, dim, index), "matmul")
    if not OPEN:  # (a watched call takes the general path: it reports the copy)
        if ALONG_C is not None and (out := ALONG_C(0, input, dim, index, None)) is not None:
            return out
        fast = along_positions(input, dim, index)
        if fast is not None:
            return adopted(fast[0].take(fast[1]), _cinfo[index._layout.shape][2], input._dtype)
    input = tensor_of(input, "gather", "input", 1)  # noqa: A001
    index = tensor_of(index, "gather", "index", 3)
    check_index_dtype(index, "gather", INT_OR_LONG, "gather(): Expected dtype int32/int64 for index")
    _same_rank(input, index, "input")
    d = wrap_dim(dim, input.ndim)
    shape, _ = _as_1d(input)
    ishape = index.shape or (1,)
    for e, (n, m) in enumerate(zip(ishape, shape)):
        if e != d and n > m:
            raise StridedRuntimeError(
                join_lines(
                    f"Size does not match at dimension {e} expected index {list(index.shape)} to be no "
                    f"larger than self {list(input.shape)} apart from dimension {d}",
                    f"gather reads input[..., index[i], ...] along dim {d} and the other dims position by "
                    f"position: the index's size {n} at dim {e} is larger than the input's {m}",
                    f"fix: slice the index (index.narrow({e}, 0, {m})), or use take_along_dim, which "
                    "broadcasts the input and the index",
                )
            )
    idx = index_array(index)
    if idx.size and support.refused("gather", input._dtype):  # (uint16/32/64: PyTorch has no kernel;
        check_bounds(idx, shape[d], d, "gather", StridedRuntimeError,  # it checks the indices first)
                     "index {index} is out of bounds for dimension {dim} with size {size}")
        support.check("gather", input._dtype, (input, index))
    flat = _gather_kernel(input, d, idx)
    if flat is None:
        check_bounds(idx, shape[d], d, "gather", StridedRuntimeError,
                     "index {index} is out of bounds for dimension {dim} with size {size}")
    out = _fresh(index.shape, flat, input._dtype)
    if OPEN:
        copied("gather", (input, index), out,
               lambda: f"gather: {out.numel()} elements picked along dim {d} into new memory")
    return out


@backward("gather")
def gather_backward(out: Tensor, input: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False) -> Any:  # noqa: A002
    """GatherBackward0: the gradient added back where each element was read (repeated positions
    summed): ``zeros.scatter_add_(dim, index, grad)``."""
    shape = input._layout.shape

    def grad(g: Tensor) -> tuple:  # (linear in g: its own adjoint is the gather, for create_graph)
        return (linear("ScatterAddBackward0", g, lambda g: scatter_add_(grad_zeros(shape, g._dtype), dim, index, g),
                       lambda gg: gather(gg, dim, index)),)

    return "GatherBackward0", (input,), grad, (input, index)  # (PyTorch saves self: its version is checked)


def _unbroadcast_take(input: Any, dim: Any, indices: Any) -> Tensor | None:  # noqa: A002
    """``take_along_dim(input, indices, dim)`` where nothing broadcasts (``indices`` int64 of
    ``input``'s sizes in every dim but ``dim``, at least :data:`_NATIVE_GATHER` of them) and
    every index lies in ``[0, size)``: gather's kernel (the compiled walk over any layout of the
    input), the same elements in the same fresh row-major result. None where any of that fails
    (a negative index, which take_along_dim counts from the end, included): the general path
    decides, and raises. (A transposed 1024 x 1024 float32 input: ~9.5 ms through the general
    path's storage positions, PyTorch ~5.7, gather's walk ~3.2.)"""
    if input.__class__ is not Tensor or indices.__class__ is not Tensor or indices._dtype is not int64 \
            or dim.__class__ is not int:
        return None
    shape, ishape = input._layout.shape, indices._layout.shape
    nd = len(shape)
    if not nd or len(ishape) != nd or not -nd <= dim < nd or support.refused("take_along_dim", input._dtype):
        return None
    d = dim % nd
    if shape[:d] + shape[d + 1:] != ishape[:d] + ishape[d + 1:] or L.product(ishape) < _NATIVE_GATHER:
        return None
    flat = _gather_kernel(input, d, index_array(indices))
    return None if flat is None else _fresh(ishape, flat, input._dtype)


def _along_gather(input: Any, dim: Any, indices: Any) -> Tensor | None:  # noqa: A002
    """take_along_dim's call that is a gather (nothing broadcasts: ``indices`` of ``input``'s sizes
    in every dim but ``dim``, an int; int64 indices, as take_along_dim wants them) made by the
    compiled gather (:data:`.fast_along.ALONG_C`, op 0: plain row-major operands, every index in
    range; its None, and any other call: None), the result the fast path below makes from the same
    positions."""
    if input.__class__ is not Tensor or indices.__class__ is not Tensor or dim.__class__ is not int \
            or indices._dtype is not int64:
        return None
    shape, ishape = input._layout.shape, indices._layout.shape
    nd = len(shape)
    if len(ishape) != nd or not -nd <= dim < nd:
        return None
    d = dim % nd
    if shape[:d] != ishape[:d] or shape[d + 1:] != ishape[d + 1:]:
        return None
    return ALONG_C(0, input, dim, indices, None)


def take_along_dim(input: Tensor, indices: Tensor, dim: int | None = None, *,
                   out: Any = None) -> Tensor:  # noqa: A002
    """NumPy's ``take_along_axis``: ``input`` and ``indices`` broadcast in every dim but ``dim``,
    then :func:`gather`; with ``dim=None`` both are read flattened (a 1-D result).

    As in PyTorch, a negative index counts from the end along ``dim`` (not with ``dim=None``).
    ``indices`` must be int64.

    >>> x = strided.tensor([[10, 30, 20]])
    >>> x.take_along_dim(strided.tensor([[0, 2, 1]]), 1).tolist()   # (indices as argsort gives them)
    [[10, 20, 30]]
    """
    if out is not None:  # (PyTorch's out= takes only the result's dtype)
        return write_out(out, take_along_dim(input, indices, dim),
                         "take_along_dim", (input, indices, dim), "matmul")
    if ALONG_C is not None and not OPEN and (gathered := _along_gather(input, dim, indices)) is not None:
        return gathered
    fast = None if dim is None or OPEN else along_positions(input, dim, indices)
    if fast is not None:  # (a gather when nothing broadcasts: the input's sizes in every other dim)
        d, shape, ishape = fast[2], input._layout.shape, indices._layout.shape
        if shape[:d] + shape[d + 1:] == ishape[:d] + ishape[d + 1:]:
            return adopted(fast[0].take(fast[1]), _cinfo[ishape][2], input._dtype)
    if dim is not None and not OPEN and (gathered := _unbroadcast_take(input, dim, indices)) is not None:
        return gathered
    input = tensor_of(input, "take_along_dim", "input", 1)  # noqa: A001
    indices = tensor_of(indices, "take_along_dim", "indices", 2)
    check_index_dtype(indices, "take_along_dim", LONG,
                      f"torch.take_along_dim(): dtype of indices should be Long but got "
                      f"{scalar_name(indices._dtype)}")
    idx = index_array(indices)
    if dim is None:
        # Note: PyTorch 2.13 flattens with view(-1), so a non-contiguous or expanded input raises
        # "view size is not compatible ..."; strided reads any layout flattened.
        n = input.numel()
        if idx.size:  # (before the bounds: PyTorch's kernel checks them)
            support.check("take_along_dim", input._dtype, (input, indices))
        # (as PyTorch: the flattened form is a gather, which does not count from the end)
        idx = check_bounds(idx.reshape(-1), n, 0, "take_along_dim", StridedRuntimeError,
                           "index {index} is out of bounds for dimension {dim} with size {size}", what="indices")
        out = _fresh((idx.size,), _take_flat(input, idx), input._dtype)
    else:
        if input.ndim != indices.ndim:
            raise StridedRuntimeError(
                join_lines(
                    "torch.take_along_dim(): input and indices should have the same number of dimensions, "
                    f"but got {input.ndim} dimensions for input, and {indices.ndim} dimensions for indices",
                    f"input has shape {input.shape}, indices {indices.shape}",
                    "fix: unsqueeze the indices (or the input) until both have the same number of dims",
                )
            )
        if input.ndim == 0:  # (PyTorch's dim check for a 0-d input: no dims to take along)
            raise StridedIndexError(
                join_lines(f"Dimension specified as {dim} but tensor has no dimensions",
                           "a 0-d tensor has no dims: take_along_dim(x, indices) (dim=None) reads it flattened"))
        d = wrap_dim(dim, input.ndim)
        shape_in, shape_ix = list(_as_1d(input)[0]), list(idx.shape or (1,))
        other_in, other_ix = shape_in[:d] + [1] + shape_in[d + 1:], shape_ix[:d] + [1] + shape_ix[d + 1:]
        b = L.broadcast_pair(tuple(other_in), tuple(other_ix))
        if type(b) is not tuple:
            raise StridedRuntimeError(
                join_lines(
                    f"The size of tensor a ({b.size_a}) must match the size of tensor b ({b.size_b}) at "
                    f"non-singleton dimension {b.dim}",
                    f"take_along_dim broadcasts input {input.shape} and indices {indices.shape} in every "
                    f"dim but {d}",
                    "fix: give the indices size 1 or the input's size in the other dims",
                )
            )
        size = shape_in[d]
        # Note: PyTorch 2.13 reads every index modulo the size here (5 on a size-2 dim reads
        # position 1); strided counts from the end for -size..-1 only and refuses the rest.
        idx = check_bounds(idx, size, d, "take_along_dim", StridedRuntimeError,
                           "index {index} is out of bounds for dimension {dim} with size {size}",
                           negative_ok=True, what="indices")
        if idx.size:
            support.check("take_along_dim", input._dtype, (input, indices))
        ishape = list(b)
        ishape[d] = shape_ix[d]
        idx = np.broadcast_to(idx.reshape(shape_ix), ishape)
        # the input read through stride 0 where it broadcasts (no copy)
        in_shape = list(b)
        in_shape[d] = size
        _, strides = _as_1d(input)
        strides = tuple(0 if n != m else s for n, m, s in zip(shape_in, in_shape, strides))
        lin = storage_index(idx, strides, d, input._layout.offset)
        out_shape = tuple(ishape) if input.ndim else ()
        out = _fresh(out_shape, np.take(input._storage.array, lin), input._dtype)
    if OPEN:
        copied("take_along_dim", (input, indices), out,
               lambda: f"take_along_dim: {out.numel()} elements picked into new memory")
    return out


method("take_along_dim")(take_along_dim)


@backward("take_along_dim", operands="two")
def take_along_dim_backward(out: Tensor, input: Tensor, indices: Tensor, dim: int | None = None) -> Any:  # noqa: A002
    """GatherBackward0 (PyTorch's take_along_dim is a gather of the broadcast operands): the
    gradient added back where each element was read, summed over the dims the input was
    broadcast in (by the engine).

    With ``dim`` PyTorch's gather reads a broadcast copy of ``indices`` made in the forward: the
    rule reads a snapshot too (``indices`` written in place afterwards changes nothing, as in
    PyTorch); the flattened form reads ``indices`` itself, saved with its version."""
    shape = input._layout.shape
    if dim is not None:
        with silenced():  # (the rule's own snapshot, not a user's copy)
            indices = indices.detach().clone()

    def grad(g: Tensor) -> tuple:
        if dim is None:  # the flattened form: positions into input's row-major order
            return (linear("PutBackward0", g, lambda g: _added_flat(shape, index_array(indices).reshape(-1), g),
                           lambda gg: take(gg, indices)),)
        d = wrap_dim(dim, len(shape))
        size = shape[d]
        idx = index_array(indices)
        idx = np.broadcast_to(np.where(idx < 0, idx + size, idx), g._layout.shape)
        read = list(g._layout.shape)
        read[d] = size  # the input as the forward read it: broadcast in every dim but d
        def added(g: Tensor) -> Tensor:
            z = grad_zeros(tuple(read), g._dtype)
            _scatter_into(z, d, idx, g._np(), "add")
            return z

        return (linear("ScatterAddBackward0", g, added, lambda gg: take_along_dim(gg, indices, d)),)

    # (PyTorch's gather saves its self, a view of input: input written in place raises at backward)
    return "GatherBackward0", (input,), grad, (input, indices) if dim is None else (input,)


def _added_flat(shape: tuple[int, ...], idx: np.ndarray, g: Tensor) -> Tensor:
    """Zeros of ``shape`` with ``g``'s elements added at row-major positions ``idx`` (negative
    ones counting from the end; repeated ones summed)."""
    z = grad_zeros(shape, g._dtype)
    n = L.product(shape)
    if idx.size:
        np.add.at(z._storage.array, np.where(idx < 0, idx + n, idx), g._np().reshape(-1))
    return z


def _take_flat(input: Tensor, idx: np.ndarray) -> np.ndarray:
    """``input``'s elements at row-major positions ``idx`` (non-negative, checked), read in place."""
    lay = input._layout
    arr = input._storage.array
    if L.is_contiguous(lay.shape, lay.strides):
        return np.take(arr, idx + lay.offset if lay.offset else idx)
    if 4 * idx.size >= L.product(lay.shape):
        # many picks: the input copied row-major first by the blocked kernel (a 1M-element
        # transpose ~1 ms) costs less than the positions' divisions below (~8 ms for 1M picks)
        dense = np.empty(lay.shape, arr.dtype)
        copy_into(dense, input._np())
        return np.take(dense.reshape(-1), idx)
    lin = np.full(idx.shape, lay.offset, dtype=np.int64)
    rest = idx
    for n, s in zip(reversed(lay.shape), reversed(lay.strides)):
        if s:
            lin += (rest % n) * s
        rest = rest // n
    return np.take(arr, lin)


@method("take")
def take(input: Tensor, index: Tensor, *, out: Any = None) -> Tensor:  # noqa: A002
    """``input`` read as if flattened (row-major), at the positions in ``index``: a new tensor of
    ``index``'s shape. A negative index counts from the end; outside ``[-numel, numel)`` is PyTorch's
    IndexError. ``index`` must be int64.

    >>> strided.tensor([[4, 3], [5, 7]]).take(strided.tensor([0, 3, -1])).tolist()
    [4, 7, 7]
    """
    if out is not None:  # (PyTorch's out= takes only the result's dtype)
        return write_out(out, take(input, index),
                         "take", (input, index),
                         "take(): self and out expected to have the same dtype, but got self.dtype = {r} and out.dtype = {o}")
    if not OPEN and type(input) is Tensor and type(index) is Tensor and index._dtype is LONG[0]:
        # row-major operands: one np.take of the flat runs (it wraps negative positions; one out
        # of range raises, and the checked path below gives PyTorch's error)
        iinfo = _cinfo[index._layout.shape]
        flat = flat_run(input, _cinfo[input._layout.shape]) if input._dtype in FAST_DTYPES and iinfo[1] else None
        idx = flat_run(index, iinfo) if flat is not None and flat.size else None
        if idx is not None:
            try:
                return adopted(flat.take(idx), iinfo[2], input._dtype)
            except IndexError:
                pass
    input = tensor_of(input, "take", "input", 1)  # noqa: A001
    index = tensor_of(index, "take", "index", 2)
    check_index_dtype(index, "take", LONG,
                      f"take(): Expected a long tensor for index, but got {scalar_name(index._dtype)}")
    n = input.numel()
    if n == 0 and index.numel():
        raise StridedIndexError(
            join_lines("take(): tried to take from an empty tensor",
                       f"the input has shape {input.shape} (no elements) and the index {index.shape}",
                       "fix: take from a non-empty tensor, or pass an empty index"))
    idx = index_array(index)
    lay = input._layout
    values = None
    if idx.size and L.is_contiguous(lay.shape, lay.strides):
        # one NumPy call on the input's elements: np.take wraps negative positions and refuses
        # out-of-range ones itself (then the check below raises PyTorch's error)
        try:
            values = input._storage.array[lay.offset:lay.offset + n].take(idx)
        except IndexError:
            values = None
    if values is None:
        idx = check_bounds(idx, n, 0, "take", StridedIndexError,
                           "out of range: tried to access index {index} on a tensor of {size} elements.",
                           negative_ok=True)
    if idx.size:
        support.check("take", input._dtype, (input, index))
    out = _fresh(index.shape, _take_flat(input, idx) if values is None else values, input._dtype)
    if OPEN:
        copied("take", (input, index), out, lambda: f"take: {out.numel()} elements picked into new memory")
    return out


@backward("take")
def take_backward(out: Tensor, input: Tensor, index: Tensor) -> Any:  # noqa: A002
    """TakeBackward0: the gradient added at the flattened positions read (PyTorch's
    ``put_(index, grad, accumulate=True)`` into zeros)."""
    shape = input._layout.shape
    return "TakeBackward0", (input,), lambda g: (linear(
        "PutBackward0", g, lambda g: _added_flat(shape, index_array(index).reshape(-1), g), lambda gg: take(gg, index)),), (
        input, index)  # (PyTorch saves self: its version is checked)


# ---------------------------------------------------------------- put_


def _put_walk(self: Tensor, index: Tensor, source: Tensor, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``put_``'s walk, as PyTorch's ``cpu_take_put_kernel`` runs it: TensorIterator's order over
    ``source`` and ``index`` viewed as ``source``'s shape (no output: the source's strides lead).
    Returns, in that order, the storage element of ``self`` each step writes (``idx``: row-major
    positions, already wrapped and checked), the value it writes and the source's storage element
    it reads."""
    shape = source._layout.shape
    istrides = L.torch_view_strides(index._layout.shape, index._layout.strides, shape)
    if not isinstance(istrides, tuple):  # (reshape copies: a row-major index)
        istrides = L.contiguous_strides(shape)
    slay = source._layout
    perm = iteration_order(shape, [operand_strides(shape, (shape, slay.strides)),
                                   operand_strides(shape, (shape, istrides))])
    outer_first = perm[::-1]
    lay = self._layout
    if L.is_contiguous(lay.shape, lay.strides):
        at = idx + lay.offset
    else:
        at = addresses(lay.shape, lay.strides, lay.offset).reshape(-1)[idx]
    written = at.reshape(shape).transpose(outer_first).ravel()
    values = source._np().transpose(outer_first).ravel()
    read = addresses(shape, slay.strides, slay.offset).transpose(outer_first).ravel()
    return written, values, read


def _put_stale(written: np.ndarray, read: np.ndarray) -> tuple | None:
    """The first step of the walk that reads a source element an earlier step wrote (strided reads
    the source first, so it would give another number): ``(step, storage element, earlier step)``,
    or None."""
    first = {}
    for k, w in enumerate(written.tolist()):
        first.setdefault(w, k)
    for k, r in enumerate(read.tolist()):
        j = first.get(r)
        if j is not None and j < k:
            return k, r, j
    return None


def _put_args(index: Any, source: Any, accumulate: Any, op: str) -> None:
    """PyTorch's argument parser's refusals for ``put_`` / ``put`` (before anything else)."""
    for value, name, pos in ((index, "index", 1), (source, "source", 2)):
        if not isinstance(value, Tensor):
            raise StridedTypeError(join_lines(
                f"{op}(): argument '{name}' (position {pos}) must be Tensor, not {type(value).__name__}",
                f"fix: pass a tensor: strided.tensor({name})"))
    if type(accumulate) is not bool:
        raise StridedTypeError(join_lines(
            f"{op}(): argument 'accumulate' must be bool, not {type(accumulate).__name__}",
            "accumulate=True adds the source into self (repeated positions summed), False writes it"))


def _put(self: Any, index: Any, source: Any, accumulate: Any, op: str = "put_") -> Tensor:
    """``self.put_(index, source, accumulate)``: every check first, then the writes (``op``: the
    name the argument parser's errors give, ``put`` for the out-of-place form; the kernel's own
    errors say ``put_()`` in both, as PyTorch's clone-then-put_)."""
    _put_args(index, source, accumulate, op)
    check_target(self, "put_")
    check_index_dtype(index, "put_", LONG,
                      f"put_(): Expected a long tensor for index, but got {scalar_name(index._dtype)}")
    if source._dtype is not self._dtype:
        raise StridedRuntimeError(join_lines(
            "put_(): self and source expected to have the same dtype, but got self.dtype = "
            f"{scalar_name(self._dtype)} and source.dtype = {scalar_name(source._dtype)}",
            f"fix: convert the source first: source.to(strided.{self._dtype.name})"))
    if source.numel() != index.numel():
        raise StridedIndexError(join_lines(
            "put_(): Expected source and index to have the same number of elements, but got "
            f"source.numel() = {source.numel()}, index.numel() = {index.numel()}",
            "each index names the flattened position one source element goes to"))
    n = self.numel()
    if n == 0 and index.numel():
        raise StridedIndexError(join_lines("put_(): Tried to put elements into an empty tensor",
                                           "fix: put into a non-empty tensor, or pass an empty index"))
    check_no_overlap(self, index, "put_", "index")
    check_no_overlap(self, source, "put_", "source")
    if index.numel() == 0:
        return self
    idx = check_bounds(index_array(index).reshape(-1), n, 0, "put_", StridedIndexError,
                       "out of range: tried to access index {index} on a tensor of {size} elements.",
                       negative_ok=True)
    support.check("put", self._dtype, (self, index, source))
    written, values, read = _put_walk(self, index, source, idx)
    if source._storage is self._storage:  # (a layout PyTorch does not check: its loop's reads)
        refuse_stale_read(self, source, "put_", "source", lambda: _put_stale(written, read))
        values = values.copy()
    store = self._storage.array
    if accumulate:
        # (PyTorch's serial loop: ``indexed[idx] += value`` one step at a time, in self's dtype)
        np.add.at(store, written, values)
    else:
        lay = self._layout
        parallel = None if may_share_elements(lay.shape, lay.strides) else False
        positions, kept = walk_survivors(written, values, parallel)
        store[positions] = kept
    return self


def _put_compiled() -> Callable[..., Any] | None:
    """The copy kernel's ``put_tensors`` (see ``_put_scatter.h``), set up with
    :func:`~strided.kernels.memory.dense_layout`, or None where the kernel is not built (or built
    before it had it), or with ``STRIDED_NATIVE=0``."""
    k = native.kernel()
    if ALONG_C is None or k is None or not hasattr(k, "put_tensors"):  # (ALONG_C: index_setup was run)
        return None
    k.put_setup(dense_layout)
    return k.put_tensors


# put_tensors(self, index, source, accumulate, inplace): every check of _put and its writes in one
# C call, where the operands are plain (exact Tensors of float32/float64/int32/int64/bool, self
# row-major or permuted dense, index and source row-major, every index in range, no overlap in
# place): put's new Tensor, or True (put_: self written), or None with nothing done (the path
# below decides and raises). A (3, 4) put: ~23 us of Python checks, walk and clone -> one call.
_PUT_C = _put_compiled()


def _put_direct(self: Tensor, args: tuple, kwargs: dict) -> bool:
    """``put_``'s direct write for its in-place entry (:func:`strided.grad_mode.track_inplace`):
    True where the compiled walk wrote ``self`` (every check passed), else False, nothing written."""
    if _PUT_C is None or not 2 <= len(args) <= 3:
        return False
    accumulate = args[2] if len(args) == 3 else False
    if kwargs:
        if len(args) != 2 or len(kwargs) != 1 or "accumulate" not in kwargs:
            return False
        accumulate = kwargs["accumulate"]
    return _PUT_C(self, args[0], args[1], accumulate, True) is not None


@method("put_")
def put_(self: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """In place, write ``source``'s elements at the positions ``index`` (int64) of ``self`` read as
    if flattened (row-major); ``accumulate=True`` adds them instead, repeated positions summed.
    A negative index counts from the end; ``source`` has ``index``'s number of elements and
    ``self``'s dtype. Where a position repeats without ``accumulate`` the last write of PyTorch's
    walk wins.

    # Note: stricter than PyTorch: an index out of range raises before anything is written
    # (PyTorch has written the steps before it).

    >>> strided.zeros(2, 2).put_(strided.tensor([3, -4]), strided.tensor([1.0, 2.0])).tolist()
    [[2.0, 0.0], [0.0, 1.0]]
    """
    if _PUT_C is not None and not OPEN and _PUT_C(self, index, source, accumulate, True) is not None:
        return self
    return _put(self, index, source, accumulate)


put_.__direct__ = _put_direct  # type: ignore[attr-defined]  # (the in-place entry's first call)


@method("put")
def put(input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:  # noqa: A002
    """:func:`put_` on a copy of ``input`` (PyTorch's ``clone()``: its layout where dense).

    >>> strided.put(strided.zeros(3), strided.tensor([1, 1]), strided.ones(2), True).tolist()
    [0.0, 2.0, 0.0]
    """
    if _PUT_C is not None and not OPEN and (out := _PUT_C(input, index, source, accumulate, False)) is not None:
        return out
    input = tensor_of(input, "put", "input", 1)  # noqa: A001
    _put_args(index, source, accumulate, "put")
    out = input.clone()
    with silenced():  # (the write into the fresh copy is this op's own work, not a user's step)
        return _put(out, index, source, accumulate, "put")


@backward("put", operands="any")
def put_backward(out: Tensor, input: Tensor, index: Tensor, source: Tensor,  # noqa: A002
                 accumulate: bool = False) -> Any:
    """PutBackward0: ``input`` gets the gradient (zeroed at the positions written, unless
    ``accumulate``), ``source`` the gradient read at ``index``, in ``source``'s shape."""
    shape = source.shape

    def grad(g: Tensor) -> tuple:
        gself = g if accumulate else put(g, index, grad_zeros(shape, g._dtype), False)
        return gself, take(g, index).reshape(shape)

    return "PutBackward0", (input, source), grad, (index, source)  # (PyTorch saves source: its version is checked)


# ---------------------------------------------------------------- scatter


_REDUCE_LEGACY = {"add": np.add, "multiply": np.multiply}
# the ufunc each reduction accumulates with (ufunc.at: repeated positions accumulate)
_ACCUMULATE = {"add": np.add, "sum": np.add, "multiply": np.multiply, "prod": np.multiply,
               "amax": np.maximum, "amin": np.minimum}
_REDUCE = ("sum", "prod", "mean", "amax", "amin")


def _scatter_checks(self: Tensor, dim: Any, index: Any, src: Any, op: str, src_pos: int = 4) -> tuple[int, np.ndarray]:
    """Every check of a scatter (before anything is written): argument kinds, index dtype and
    rank, the source's dtype, the shapes, every index value. Returns the wrapped dim and the
    index as int64 (a copy when it shares memory with ``self``)."""
    index = tensor_of(index, op, "index", 3)
    check_index_dtype(index, op, INT_OR_LONG, "scatter(): Expected dtype int32/int64 for index")
    _same_rank(self, index, "self")
    d = wrap_dim(dim, self.ndim)
    shape, _ = _as_1d(self)
    ishape = index.shape or (1,)
    if isinstance(src, Tensor):
        if src._dtype is not self._dtype:
            raise StridedRuntimeError(
                join_lines(
                    "scatter(): Expected self.dtype to be equal to src.dtype",
                    f"{op} writes a {src._dtype.name} src into a {self._dtype.name} tensor; scatter does "
                    "not convert",
                    f"fix: convert the source first: src.to(strided.{self._dtype.name})",
                )
            )
        sshape = src.shape or (1,)
        if len(sshape) != len(ishape):
            raise StridedRuntimeError(
                join_lines(
                    "Index tensor must have the same number of dimensions as src tensor",
                    f"the index has shape {index.shape} and src {src.shape}",
                    "fix: give src the index's number of dims",
                )
            )
    else:
        sshape = ishape
    bad = [e for e, n in enumerate(ishape) if (e != d and n > shape[e]) or n > sshape[e]]
    if bad:
        e = bad[0]
        raise StridedRuntimeError(
            join_lines(
                f"Expected index {list(index.shape)} to be no larger than self {list(self.shape)} apart "
                f"from dimension {d} and to be no larger size than src {list(sshape if isinstance(src, Tensor) else index.shape)}",
                f"{op} writes self[..., index[i], ...] = src[i] along dim {d}: at dim {e} the index has "
                f"size {ishape[e]}, self {shape[e]}, src {sshape[e]}",
                f"fix: slice the index to fit (index.narrow({e}, 0, n)) or give src the index's shape",
            )
        )
    idx = index_array(index, self)
    check_bounds(idx, shape[d], d, op, StridedRuntimeError,
                 "index {index} is out of bounds for dimension {dim} with size {size}")
    return d, idx.reshape(ishape)


def _src_values(src: Any, idx: np.ndarray, self: Tensor, op: str) -> Any:
    """What a scatter writes, one value per index position: ``src`` cut to the index's shape
    (read before writing when it shares memory with the target), or the one number."""
    if not isinstance(src, Tensor):
        return fill_value(src, self._dtype, op, idx.size)
    arr = src._np().reshape(src.shape or (1,))
    arr = arr[tuple(slice(0, n) for n in idx.shape)]
    if shares_memory(src, self):
        return arr.copy()
    return arr


def _scatter_into(self: Tensor, d: int, idx: np.ndarray, values: Any, reduce: str | None) -> None:
    """Write (``reduce=None``: the last write of a repeated position wins) or accumulate
    (``"add"``, ``"multiply"``, and scatter_reduce's ``"sum"`` ... ``"amin"``) ``values`` into ``self``."""
    if idx.size == 0:
        return
    shape, strides = _as_1d(self)
    arr = self._storage.array
    scalar = np.ndim(values) == 0
    # (a number as the target's dtype: ufunc.at with a Python number takes NumPy's slow path,
    # about 30x slower per element; the value was already checked for that dtype)
    # (a transposed source's values in the index's row-major order by the blocked copy: np.ravel
    # walks a transpose element by element, 3.5-10 ms for 1M float32 against ~0.3)
    if scalar:
        vals = np.asarray(values, dtype=arr.dtype)
    else:
        vals = row_major(values).reshape(-1) if isinstance(values, np.ndarray) else np.ravel(values)
    if reduce is not None and arr.dtype.name in OPMATH_DTYPES:
        lin = storage_index(idx, strides, d, self._layout.offset).reshape(-1)
        opmath_at(_ACCUMULATE[reduce], arr, lin, vals)
        return
    if (idx.size >= _NATIVE_GATHER and (reduce is None or reduce == "add" or reduce == "sum")
            and idx.flags.c_contiguous and (k := native.special()) is not None
            and k.scatter_nd(arr, self._layout.offset, strides, idx, vals.reshape(-1), idx.shape or (1,), d,
                             shape[d], reduce is not None)):
        return  # (the compiled walk: the writes or np.add.at's additions, in the index's order)
    # (blocks in row-major order of the index: a repeated position's last write is the last one)
    for start, stop, base, lin in storage_blocks(idx, strides, d, self._layout.offset):
        v = vals if scalar else vals[start:stop]
        if reduce is None:
            # (NumPy's 1-D index write, in the index's order: every position was checked, and
            # it runs 3x faster than np.put's element-by-element memmove)
            arr[base:][lin] = v
        else:
            _ACCUMULATE[reduce].at(arr[base:], lin, v)  # (np.add.at: NumPy 2's fast 1-D path)


def _scatter_reduce_into(self: Tensor, d: int, idx: np.ndarray, vals: np.ndarray, reduce: str,
                         include_self: bool) -> None:
    """scatter_reduce's accumulation into ``self`` (checked): ``include_self=False`` first sets
    every position that receives a value to the reduction's identity; ``"mean"`` divides each
    position by the number of values it received (plus one for its own, with include_self),
    rounding down for integer dtypes, as PyTorch does."""
    if idx.size == 0:
        return
    if include_self and (reduce == "sum" or reduce == "prod"):
        # scatter_add's accumulation: the same ufunc.at over the same positions in the same
        # order, block by block (positions in cache, not one 8 MB array per 2^20 indices)
        _scatter_into(self, d, idx, vals, reduce)
        return
    _, strides = _as_1d(self)
    lin = storage_index(idx, strides, d, self._layout.offset).reshape(-1)
    _reduce_at(self._storage.array, lin, np.ravel(vals), reduce, include_self)


def _reduce_at(arr: np.ndarray, lin: np.ndarray, flat: np.ndarray, reduce: str, include_self: bool) -> None:
    """:func:`_scatter_reduce_into`'s work on the storage array ``arr``: ``flat``'s values reduced
    into the storage positions ``lin`` (1-D, checked, one per value, in the index's row-major order)."""
    dt = arr.dtype
    if not include_self:
        if reduce in ("sum", "mean"):
            ident: Any = 0
        elif reduce == "prod":
            ident = 1
        elif np_kind(dt) == "f":
            ident = -np.inf if reduce == "amax" else np.inf
        elif dt.kind == "b":
            ident = reduce == "amin"
        else:
            info = np.iinfo(dt)
            ident = info.min if reduce == "amax" else info.max
        arr[lin] = ident
    if reduce == "mean":
        uniq, counts = np.unique(lin, return_counts=True)
        if dt.name in OPMATH_DTYPES:
            opmath_at(np.add, arr, lin, flat)  # (the sums rounded once, then divided: measured)
        else:
            np.add.at(arr, lin, flat)
        counts = counts + 1 if include_self else counts
        if np_kind(dt) in "fc":
            arr[uniq] = arr[uniq] / counts.astype(dt)
        else:
            arr[uniq] = np.floor_divide(arr[uniq], counts).astype(dt)
        return
    if reduce in ("amax", "amin") and np_kind(dt) == "f":
        hit = np.equal(flat, 0)
        if _any(hit):
            _zero_ties(arr, lin, flat, hit, reduce, include_self)
            return
    if dt.name in OPMATH_DTYPES and reduce in ("sum", "prod"):
        opmath_at(_ACCUMULATE[reduce], arr, lin, flat)
        return
    _ACCUMULATE[reduce].at(arr, lin, flat)


_any = np.logical_or.reduce  # (the ufunc itself: ndarray.any's Python wrapper costs as much again)


def _zero_ties(arr: np.ndarray, lin: np.ndarray, flat: np.ndarray, hit: np.ndarray, reduce: str,
               include_self: bool) -> None:
    """amax/amin of floats with a zero among ``flat`` (where ``hit``): the reduction, and each position whose
    extreme comes out zero gets the sign PyTorch leaves. Its kernel keeps the running value on a
    tie (``std::max(acc, x)``), so the first zero met: ``self``'s (when included and zero), else
    the first zero of ``flat`` written there; NumPy's maximum/minimum can take a later one."""
    at, zeros = lin[hit], flat[hit]
    if include_self:
        own = arr[at]
        zeros = np.where(own == 0, own, zeros)
    _ACCUMULATE[reduce].at(arr, lin, flat)
    tied = arr[at] == 0
    # (written last to first: at a repeated position the first zero is the last write, and stays)
    arr.put(at[tied][::-1], zeros[tied][::-1])


def _out_of_place(self: Tensor) -> Tensor:
    """The fresh contiguous copy an out-of-place write starts from (PyTorch's ``clone`` into a
    contiguous result for scatter, index_add, masked_fill, ...). (copy_into: np.copyto, in
    tiles when ``self`` is not row-major: a transposed 1024 x 1024 float32 7 ms -> ~1 ms.)"""
    out = result(self._layout.shape, self._dtype)
    copy_into(out._np(), self._np())
    return out


# the compiled scatters (fast_along.ALONG_C's op codes): put, sum, product; the rest take NumPy
_ALONG_OPS = {None: 1, "add": 2, "sum": 2, "prod": 3}


def _fast_scatter(self: Any, dim: Any, index: Any, src: Any, reduce: str | None, include_self: bool = True,
                  ) -> Tensor | None:
    """The out-of-place scatter (``reduce=None``), scatter_add (``"add"``) or scatter_reduce of
    row-major operands whose index is all in range (:func:`along_positions`) and whose ``src`` has
    exactly the index's shape: the copy of ``self`` and one NumPy write on its flat array, the
    general path's calls on the same positions in the same order. None when a precondition fails
    (float16/bfloat16 among them: FAST_DTYPES and the compiled walk take neither; PyTorch sums
    them in float32, the general path's opmath_at)."""
    if ALONG_C is not None and (op := _ALONG_OPS.get(reduce)) is not None:
        # (the compiled walk: the same writes in the same order, see fast_along.ALONG_C)
        out = ALONG_C(op if include_self else op + 4, self, dim, index, src)
        if out is not None:
            return out
    fast = along_positions(self, dim, index)
    if fast is None:
        return _large_scatter(self, dim, index, src, reduce) if include_self else None
    vals = source_run(src, self, index)
    if vals is None:
        return None
    flat, pos, _ = fast
    arr = flat.copy()  # (the general path's result() + copyto: the same fresh contiguous bytes)
    if reduce is None:
        arr.put(pos, vals, mode="clip")
    else:
        _reduce_at(arr, pos, vals, reduce, include_self)
    return adopted(arr, _cinfo[self._layout.shape][2], self._dtype)


def _large_scatter(self: Any, dim: Any, index: Any, src: Any, reduce: str | None) -> Tensor | None:
    """:func:`_fast_scatter` above ``_SMALL`` index elements, for the writes (``reduce=None``) and the
    sums (``"add"``, ``"sum"``, include_self): row-major operands as :func:`along_positions` takes
    them and ``src`` exactly the index's shape. A NumPy copy of ``self``'s run, then the compiled walk
    (``scatter_nd``, the general path's own call on the same positions in the same order) with its
    range test in the walk: where an index value is outside ``[0, size)`` the copy is dropped and
    None sends the call to the general path, which raises PyTorch's error (its separate test of
    every value, a min/max pass over the index, ~120 us on 1M, is not needed on the way through)."""
    if reduce not in (None, "add", "sum") or type(self) is not Tensor or type(index) is not Tensor:
        return None
    if index._dtype is not int64 or type(dim) is not int or self._dtype not in FAST_DTYPES:
        return None
    shape, ishape = self._layout.shape, index._layout.shape
    nd = len(shape)
    if nd == 0 or len(ishape) != nd:
        return None
    d = dim + nd if dim < 0 else dim
    if not 0 <= d < nd or any(ishape[e] > shape[e] for e in range(nd) if e != d):
        return None
    iinfo, info = _cinfo[ishape], _cinfo[shape]
    if iinfo[1] <= _NATIVE_GATHER or (k := native.special()) is None:
        return None
    idx, flat, vals = flat_run(index, iinfo), flat_run(self, info), source_run(src, self, index)
    if idx is None or flat is None or vals is None:
        return None
    arr = flat.copy()  # (the general path's result() + copy_into: the same fresh contiguous bytes)
    if k.scatter_nd(arr, 0, info[0], idx, vals, ishape, d, shape[d], reduce is not None, True) != -1:
        return None
    return adopted(arr, info[2], self._dtype)


# dtypes whose storage array orders as the tensor's values (scatter_reduce's amax/amin replay)
_ORDERED = frozenset(("float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8"))


def _lay(t: Tensor) -> tuple:
    """A tensor's (shape, strides, offset), in elements."""
    lay = t._layout
    return lay.shape, lay.strides, lay.offset


def _scatter_target(self: Tensor, dim: Any, index: Any, src: Any, op: str, inplace: bool,
                    updates: bool = True, supported: Callable[[], None] | None = None,
                    order: str = "add", pick: str | None = None) -> tuple[Tensor, int, np.ndarray, Any]:
    """Check a scatter-family call before anything is written; returns ``(target, d, idx, values)``:
    the tensor to write (``self`` in place, else a fresh copy of it), the wrapped dim, the index as
    an array and ``src``'s values for the target. ``order``: how PyTorch's loop writes, for a
    ``src`` over ``self``'s memory that it lets through (:func:`.torch_index_loops.scatter_stale`):
    "copy", "add" (every write changes its element) or "fill" (``include_self=False``: every
    indexed element set first); ``pick``: scatter_reduce's "amax" / "amin" (a stale read
    refused only where the values show it); ``updates``: the call reads the target's values;
    ``supported``: the dtype check of the op's kernel, run unless the index is empty (PyTorch's
    kernels then run none)."""
    if inplace:
        check_target(self, op, updates=updates)
    d, idx = _scatter_checks(self, dim, index, src, op)
    if idx.size and supported is not None:
        supported()
    if inplace:
        check_no_overlap(self, index, op, "index")
        check_no_overlap(self, src, op, "src")
        # (float16/bfloat16: PyTorch's kernel works on a float32 copy, the source read first)
        if self._dtype.name in OPMATH_DTYPES:
            if order == "fill":  # (only the identity fill is written before the source is read)
                refuse_stale_read(self, src, op, "src", lambda: filled_stale(_lay(self), _lay(src), idx, d))
        else:
            refuse_stale_read(self, src, op, "src", lambda: scatter_stale(
                _lay(self), _lay(src), _lay(index), idx, d, order != "copy", order == "fill",
                pick if self._dtype.name in _ORDERED else None, self._storage.array))
        target = self
    else:
        target = _out_of_place(self)
    return target, d, idx, _src_values(src, idx, target, op)


def _scatter_in_torch_order(self: Tensor, d: int, index: Tensor, idx: np.ndarray, src: Tensor, values: Any) -> bool:
    """``self.scatter_(d, index, src)`` into a ``self`` whose elements share memory (``unfold``
    windows, ``as_strided``; PyTorch lets them through as "too hard"): each shared location keeps
    the value ``cpu_scatter_gather_base_kernel``'s walk writes there last
    (:func:`.torch_index_loops.scatter_walk`; racing chunks refused by
    :func:`.torch_overlap_writes.walk_survivors`), where NumPy's assignment walks its own order.
    A float16/bfloat16 ``self`` is scattered as PyTorch does it, into a contiguous copy (its
    float32 one: the same values) copied back, that copy's walk keeping the survivors
    (``values``: ``src``'s for the index, :func:`_src_values`'s). False (nothing written):
    ``self``'s elements do not share memory, and the general write is taken."""
    lay = self._layout
    if not may_share_elements(lay.shape, lay.strides):
        return False
    if self._dtype.name in OPMATH_DTYPES:
        copy = np.array(numpy_view(self._storage, lay), order="C")
        tmp = adopted(copy.reshape(-1), Layout._trusted(lay.shape, L.contiguous_strides(lay.shape), 0), self._dtype)
        _scatter_into(tmp, d, idx, values, None)
        write(self._storage, lay, copy)  # (copy_'s walk: kernels.memory._write_in_torch_order)
        return True
    walk = scatter_walk(_lay(self), _lay(src), _lay(index), idx, d)
    if walk is None:
        return True  # (no element: nothing written)
    time, written, read, parallel = walk
    order = np.argsort(time.reshape(-1), kind="stable")
    values = src._storage.array[read.reshape(-1)[order]]
    positions, kept = walk_survivors(written.reshape(-1)[order], values, parallel)
    self._storage.array[positions] = kept
    return True


def _check_reduce_legacy(reduce: Any, op: str) -> None:
    if reduce is not None and reduce not in _REDUCE_LEGACY:
        raise StridedRuntimeError(
            join_lines(
                "reduce argument must be either add or multiply.",
                f"{op} was given reduce={reduce!r}",
                "fix: reduce='add' or 'multiply'; for sum, prod, mean, amax or amin use scatter_reduce",
            )
        )


def _scatter(self: Tensor, dim: Any, index: Any, src: Any, value: Any, reduce: Any, inplace: bool) -> Tensor:
    if not inplace and reduce is None and value is None:
        out = _fast_scatter(self, dim, index, src, None)
        if out is not None:
            return out
    op = "scatter_" if inplace else "scatter"
    self = tensor_of(self, op, "input", 1)
    if src is None and value is None:
        raise StridedTypeError(
            join_lines(f"{op}() received an invalid combination of arguments - got no src and no value, but "
                       "expected (int dim, Tensor index, Tensor src) or (int dim, Tensor index, Number value)",
                       f"fix: x.{op}(dim, index, src) or x.{op}(dim, index, value=1.0)"))
    source = src if src is not None else value
    if src is not None and not isinstance(src, Tensor):
        source = src  # a number given positionally (PyTorch's scatter(dim, index, value))
    _check_reduce_legacy(reduce, op)
    in_order = inplace and reduce is not None and isinstance(source, Tensor) and _adds_in_order(self, source)
    if reduce is not None and isinstance(source, Tensor):
        warnings.warn(
            "The reduce argument of torch.scatter with Tensor src is deprecated and will be removed in a "
            "future PyTorch release. Use torch.scatter_reduce instead for more reduction options.",
            UserWarning, stacklevel=user_site()[1])
    target, d, idx, values = _scatter_target(
        self, dim, index, source, op, inplace, updates=reduce is not None and not in_order,
        order="copy" if reduce is None else "add",
        supported=lambda: support.check("scatter" if isinstance(source, Tensor) else "scatter.value",
                                        self._dtype, (self,)))
    if in_order:  # (reduce= into a self whose elements share memory: the same walk as scatter_add_)
        _scatter_add_in_torch_order(target, d, index, idx, source, values, op, reduce)
        return target
    if not (inplace and reduce is None and isinstance(source, Tensor)
            and _scatter_in_torch_order(self, d, index, idx, source, values)):
        _scatter_into(target, d, idx, values, reduce)
    return target


@method("scatter_")
def scatter_(self: Tensor, dim: int, index: Tensor, src: Any = None, *, value: Any = None,
             reduce: str | None = None) -> Tensor:
    """In place, ``self[index[i][j]][j] = src[i][j]`` (for ``dim=0``; ``src`` a tensor of self's
    dtype, or ``value=`` a number written everywhere the index points); returns ``self``.

    ``reduce="add"`` / ``"multiply"`` accumulate instead (PyTorch's legacy form; scatter_reduce has
    more). Where an index repeats without ``reduce`` — PyTorch leaves the result undefined — the
    last write wins (row-major order of the index). Everything is checked before anything is
    written: a failed call leaves ``self`` untouched.

    >>> strided.zeros(3).scatter_(0, strided.tensor([2, 0]), strided.tensor([5.0, 6.0])).tolist()
    [6.0, 0.0, 5.0]
    """
    return _scatter(self, dim, index, src, value, reduce, True)


@method("scatter")
def scatter(input: Tensor, dim: int, index: Tensor, src: Any = None, *, value: Any = None,  # noqa: A002
            reduce: str | None = None, out: Any = None) -> Tensor:
    """Out-of-place :func:`scatter_`: a new contiguous tensor, ``input`` with the values written.

    >>> strided.scatter(strided.zeros(3, dtype=strided.int64), 0, strided.tensor([2, 0]), strided.tensor([5, 7])).tolist()
    [7, 0, 5]
    """
    if out is not None:  # (PyTorch's out= takes only the result's dtype)
        return write_out(out, scatter(input, dim, index, src, value=value, reduce=reduce),
                         "scatter", (input, dim, index, src), "matmul")
    return _scatter(input, dim, index, src, value, reduce, False)


def _scatter_add(self: Tensor, dim: Any, index: Any, src: Any, inplace: bool) -> Tensor:
    if not inplace:
        out = _fast_scatter(self, dim, index, src, "add")
        if out is not None:
            return out
    op = "scatter_add_" if inplace else "scatter_add"
    self = tensor_of(self, op, "input", 1)
    src = tensor_of(src, op, "src", 4)
    in_order = inplace and _adds_in_order(self, src)
    target, d, idx, values = _scatter_target(
        self, dim, index, src, op, inplace, updates=not in_order,
        supported=lambda: support.check("scatter_add", self._dtype, (self, src)))
    if in_order:
        _scatter_add_in_torch_order(target, d, index, idx, src, values, op)
    else:
        _scatter_into(target, d, idx, values, "add")
    return target


def _adds_in_order(self: Tensor, src: Tensor) -> bool:
    """Whether ``self.scatter_add_(..., src)`` is :func:`_scatter_add_in_torch_order`'s: ``self``'s
    elements share memory without a stride-0 dim, ``src`` is outside its memory (read at its own
    time in the walk otherwise: the refusal stays)."""
    lay = self._layout
    return (may_share_elements(lay.shape, lay.strides) and not L.has_internal_overlap(lay.shape, lay.strides)
            and not shares_storage(src, self))


def _scatter_add_in_torch_order(self: Tensor, d: int, index: Tensor, idx: np.ndarray, src: Tensor, values: Any,
                                op: str, reduce: str = "add") -> None:
    """``self.scatter_add_(d, index, src)`` into a ``self`` whose elements share memory: PyTorch's
    ``cpu_scatter_gather_base_kernel`` adds each value to its location in turn, in its walk's order
    (:func:`.torch_index_loops.scatter_walk`; ``np.add.at`` in that order), a shared location once
    per element reaching it; refused (nothing written) where its threads split the walk (they
    race). A float16/bfloat16 ``self`` is added into PyTorch's contiguous float32 copy, copied back
    (that copy's walk keeps each shared location's last value), as :func:`_scatter_in_torch_order`.
    ``reduce``: "add", or ``scatter_(reduce="multiply")``'s "multiply" (the same kernel's walk)."""
    lay = self._layout
    if self._dtype.name in OPMATH_DTYPES:
        copy = np.array(numpy_view(self._storage, lay), order="C")
        tmp = adopted(copy.reshape(-1), Layout._trusted(lay.shape, L.contiguous_strides(lay.shape), 0), self._dtype)
        _scatter_into(tmp, d, idx, values, reduce)
        write(self._storage, lay, copy)  # (copy_'s walk: kernels.memory._write_in_torch_order)
        return
    walk = scatter_walk(_lay(self), _lay(src), _lay(index), idx, d)
    if walk is None:
        return  # (no element: nothing written)
    time, written, read, parallel = walk
    if parallel:
        raise overlapping_write(lay, [], op)
    order = np.argsort(time.reshape(-1), kind="stable")
    _ACCUMULATE[reduce].at(self._storage.array, written.reshape(-1)[order], src._storage.array[read.reshape(-1)[order]])


@method("scatter_add_")
def scatter_add_(self: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    """In place, ``self[index[i][j]][j] += src[i][j]`` (for ``dim=0``): repeated indices accumulate.

    >>> strided.zeros(3).scatter_add_(0, strided.tensor([2, 2, 0]), strided.ones(3)).tolist()
    [1.0, 0.0, 2.0]
    """
    return _scatter_add(self, dim, index, src, True)


@method("scatter_add")
def scatter_add(input: Tensor, dim: int, index: Tensor, src: Tensor, *,
                out: Any = None) -> Tensor:  # noqa: A002
    """Out-of-place :func:`scatter_add_`: a new contiguous tensor.

    >>> strided.scatter_add(strided.zeros(3, dtype=strided.int64), 0, strided.tensor([2, 2, 0]), strided.tensor([1, 2, 3])).tolist()
    [3, 0, 3]
    """
    if out is not None:  # (PyTorch's out= takes only the result's dtype)
        return write_out(out, scatter_add(input, dim, index, src),
                         "scatter_add", (input, dim, index, src), "matmul")
    return _scatter_add(input, dim, index, src, False)


def _scatter_reduce(self: Tensor, dim: Any, index: Any, src: Any, reduce: Any, include_self: bool,
                    inplace: bool) -> Tensor:
    if not inplace and reduce.__class__ is str and reduce in _REDUCE and include_self.__class__ is bool:
        out = _fast_scatter(self, dim, index, src, reduce, include_self)
        if out is not None:
            return out
    op = "scatter_reduce_" if inplace else "scatter_reduce"
    self = tensor_of(self, op, "input", 1)
    src = tensor_of(src, op, "src", 4)
    if not isinstance(reduce, str):
        raise StridedTypeError(
            join_lines(f"{op}(): argument 'reduce' (position 5) must be str, not {type(reduce).__name__}",
                       "reduce is one of 'sum', 'prod', 'mean', 'amax', 'amin'"))
    if reduce not in _REDUCE:
        raise StridedRuntimeError(
            join_lines(
                f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}",
                f"{op} was given reduce={reduce!r}",
                "fix: one of 'sum', 'prod', 'mean', 'amax', 'amin'",
            )
        )
    def supported() -> None:  # PyTorch's kernels: none for uint16/32/64, complex amax/amin or bool mean
        if not include_self:
            support.check("scatter_reduce.exclude_self", self._dtype, (self, src))
        support.check(f"scatter_reduce.{reduce}" if reduce in ("mean", "amax", "amin") else "scatter_reduce",
                      self._dtype, (self, src))

    # (sum / prod with include_self into a self whose elements share memory: scatter_add_'s walk,
    # ReduceAdd / ReduceMultiply in the same kernel; the others still refused)
    in_order = (inplace and include_self is True and reduce in ("sum", "prod") and isinstance(src, Tensor)
                and _adds_in_order(self, src))
    target, d, idx, values = _scatter_target(self, dim, index, src, op, inplace, updates=not in_order,
                                             supported=supported, order="add" if include_self else "fill",
                                             pick=reduce if reduce in ("amax", "amin") else None)
    if in_order:
        _scatter_add_in_torch_order(target, d, index, idx, src, values, op, reduce)
    else:
        _scatter_reduce_into(target, d, idx, values, reduce, bool(include_self))
    return target


@method("scatter_reduce_")
def scatter_reduce_(self: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *,
                    include_self: bool = True) -> Tensor:
    """In place, reduce ``src[i][j]`` into ``self[index[i][j]][j]`` (for ``dim=0``) with ``reduce``
    in ``"sum"``, ``"prod"``, ``"mean"``, ``"amax"``, ``"amin"``; with ``include_self=False`` the
    positions written start from the values scattered alone (``self``'s own value left out).
    Positions no index points to keep their value. ``"mean"`` rounds down for integer dtypes.

    >>> x = strided.tensor([1.0, 1.0, 1.0])
    >>> x.scatter_reduce_(0, strided.tensor([0, 0, 2]), strided.tensor([4.0, 6.0, 8.0]), "amax").tolist()
    [6.0, 1.0, 8.0]
    """
    return _scatter_reduce(self, dim, index, src, reduce, include_self, True)


@method("scatter_reduce")
def scatter_reduce(input: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *,  # noqa: A002
                   include_self: bool = True, out: Any = None) -> Tensor:
    """Out-of-place :func:`scatter_reduce_`: a new contiguous tensor.

    >>> x, i = strided.zeros(2), strided.tensor([0, 0, 1])
    >>> strided.scatter_reduce(x, 0, i, strided.tensor([3.0, 5.0, 1.0]), "amax").tolist()
    [5.0, 1.0]
    """
    if out is not None:  # (PyTorch's out= takes only the result's dtype)
        return write_out(out, scatter_reduce(input, dim, index, src, reduce, include_self=include_self),
                         "scatter_reduce", (input, dim, index, src, reduce), "matmul")
    return _scatter_reduce(input, dim, index, src, reduce, include_self, False)


# ---------------------------------------------------------------- gradients of the scatters


def _read_part(src: Tensor, index: Tensor) -> Tensor:
    """The part of ``src`` a scatter reads: its leading ``index.shape`` block (a view)."""
    ishape = index._layout.shape
    if src._layout.shape == ishape:
        return src
    return src[tuple(slice(0, n) for n in ishape)]


def _padded(g: Tensor, shape: tuple[int, ...]) -> Tensor:
    """``g`` (the gradient of the part of a source a scatter read) in a zero tensor of the
    source's ``shape``: the elements it never read get no gradient.

    # Note: PyTorch raises "returned an invalid gradient" for a source larger than the index;
    # strided gives those elements a zero gradient.
    """
    if g._layout.shape == shape:
        return g
    part = tuple(slice(0, n) for n in g._layout.shape)

    def padded(g: Tensor) -> Tensor:
        z = grad_zeros(shape, g._dtype)
        z._np()[part] = g._np()
        return z

    return linear("ConstantPadNdBackward0", g, padded, lambda gg: gg[part])


def _not_implemented(op: str) -> Any:
    def grad(*_: Any) -> tuple:
        raise StridedRuntimeError(join_lines(
            f"derivative for aten::{op} is not implemented",
            f"{op}(..., reduce=...) (the legacy form) has no gradient in PyTorch nor in strided",
            "fix: use scatter_reduce(dim, index, src, 'sum' / 'prod' / 'mean' / 'amax' / 'amin'), which has one"))
    return grad


@backward("scatter", operands="any")
def scatter_backward(out: Tensor, input: Tensor, dim: int, index: Tensor, src: Any = None, *,  # noqa: A002
                     value: Any = None, reduce: str | None = None) -> Any:
    """ScatterBackward0 (a tensor ``src``) / ScatterBackward1 (a number): ``input`` gets the
    gradient with the written positions zeroed, ``src`` the gradient read at them."""
    if reduce is not None:
        return "NotImplemented", (input, src), _not_implemented("scatter"), ()
    if not isinstance(src, Tensor):
        return "ScatterBackward1", (input,), lambda g: (scatter(g, dim, index, 0),), (index,)
    shape = src._layout.shape

    def grad(g: Tensor) -> tuple:
        return scatter(g, dim, index, 0), _padded(gather(g, dim, index), shape)

    return "ScatterBackward0", (input, src), grad, (index,)


@backward("scatter_add", operands="any")
def scatter_add_backward(out: Tensor, input: Tensor, dim: int, index: Tensor, src: Tensor) -> Any:  # noqa: A002
    """ScatterAddBackward0: ``input`` gets the gradient itself (nothing copied), ``src`` the
    gradient read where each element was added."""
    shape = src._layout.shape
    return "ScatterAddBackward0", (input, src), lambda g: (g, _padded(gather(g, dim, index), shape)), (index,)


@backward("scatter_reduce", operands="any", complex_grad=False)
def scatter_reduce_backward(out: Tensor, input: Tensor, dim: int, index: Tensor, src: Tensor,  # noqa: A002
                            reduce: str, *, include_self: bool = True) -> Any:
    """ScatterReduceBackward0, PyTorch's ``scatter_reduce_backward`` for each reduction: "sum"
    passes the gradient through, "mean" divides it by each position's count, "amax"/"amin"
    share it evenly among the elements equal to the result, "prod" multiplies by the product
    of the others (zeros handled exactly, as PyTorch does). With ``include_self=False`` the
    written positions of ``input`` get none."""
    shape = src._layout.shape
    part = _read_part(src, index)

    def grad(g: Tensor) -> tuple:
        if reduce == "sum":
            g_self, g_src = g, gather(g, dim, index)
        elif reduce == "mean":
            n = grad_zeros(g._layout.shape, g._dtype)
            if include_self:
                n = n + 1
            n = scatter_add(n, dim, index, grad_zeros(index._layout.shape, g._dtype) + 1)
            n = n.masked_fill(n == 0, 1)
            g_self = g / n
            g_src = gather(g, dim, index) / gather(n, dim, index)
        elif reduce in ("amax", "amin"):
            value = gather(out, dim, index)
            self_is = (input == out).to(g._dtype)
            src_is = (part == value).to(g._dtype)
            spread = g / scatter_add(self_is, dim, index, src_is)
            g_self = self_is * spread
            g_src = src_is * gather(spread, dim, index)
        else:  # prod
            masked_self = input.masked_fill(input == 0, 1)
            g_self = g * scatter_reduce(masked_self, dim, index, part, "prod", include_self=include_self) / masked_self
            src_zero = part == 0
            zeros_at = gather(scatter_add(grad_zeros(g._layout.shape, g._dtype), dim, index, src_zero.to(g._dtype)),
                              dim, index)
            single = src_zero & (zeros_at == 1)
            without = scatter_reduce(input, dim, index, part.masked_fill(single, 1), "prod", include_self=include_self)
            g_src = _where(single, gather(g * without, dim, index),
                          gather(g * out, dim, index) / part.masked_fill(src_zero, 1))
        if not include_self:
            g_self = scatter(g_self, dim, index, 0)
        return g_self, _padded(g_src, shape)

    saved = (input, src, out, index)  # (PyTorch saves them all, for every reduce: their versions are checked)
    return "ScatterReduceBackward0", (input, src), grad, saved


seal(globals())  # (last: this module's ops with a backward rule become their recording entries)
# the kinds of this module's ops, in the op registry (after the seal: the forwards are the entries)
declare(Kind.COPY, "gather take take_along_dim put")
declare(Kind.COMPUTE, "scatter scatter_add scatter_reduce")
