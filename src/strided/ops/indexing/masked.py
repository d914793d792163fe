"""Boolean-mask ops with PyTorch's semantics: ``masked_fill`` / ``masked_fill_``,
``masked_select``, ``masked_scatter`` / ``masked_scatter_``, and the positions of non-zero
elements: ``nonzero`` (``as_tuple=``), ``argwhere`` (and ``where(condition)`` with one argument,
in :mod:`strided.ops.elementwise.unary`).

The mask broadcasts with the tensor (in place: *to* the tensor's shape). NumPy reads both in
place through their strides (``np.copyto(..., where=mask)``, boolean indexing); reading ops
(``masked_select``, ``nonzero``) make new memory and are reported as copies.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import layout as L
from ...dispatch import OPEN, adopted, copied, result
from ...dtypes import CPP_NAME, bool_, int64
from ...errors import StridedRuntimeError, join_lines
from ...gradients import grad_zeros, linear, seal
from ...kernels import native
from ...kernels.blocked import copy_into, row_major
from ...kernels.listeners import silenced
from ...kernels.memory import dense_layout, dense_run
from ...layout import Layout
from ...messages import partial_overlap
from ...opdef import Kind, declare
from ...tensor import Tensor
from .._support import support
from .._support.index_common import check_target, fill_value, overlap, scalar_name, shares_memory, tensor_of
from .._support.operands import _cinfo, flat_run
from .._support.out import write_out
from .._support.promotion import TORCH_NAMES
from ..registry import backward, method
from .fast_along import FAST_DTYPES, MASKED_C, NONZERO_C

_trusted = Layout._trusted


def _check_mask(mask: Tensor, first: str, op: str) -> None:
    if mask._dtype is not bool_:
        raise StridedRuntimeError(
            join_lines(
                first,
                f"{op} was given a mask of dtype {mask._dtype.name} and shape {mask.shape}; a mask is a "
                "bool tensor, True where the op acts",
                "fix: compare to make one (mask != 0, x > 0), or convert: mask.to(strided.bool)",
            )
        )


def _expand_mask(self: Tensor, mask: Tensor, op: str) -> None:
    """``masked_scatter_``'s rule, as PyTorch's: the mask is expanded to the tensor's shape."""
    ms, ts = mask.shape, self.shape
    if len(ms) > len(ts):
        first = (f"expand(CPUBoolType{{{list(ms)}}}, size={list(ts)}): the number of sizes provided ({len(ts)}) "
                 f"must be greater or equal to the number of dimensions in the tensor ({len(ms)})")
    else:
        bad = [i for i in range(1, len(ms) + 1) if ms[-i] != 1 and ms[-i] != ts[-i]]
        if not bad:
            return
        d = len(ts) - bad[0]
        first = (f"The expanded size of the tensor ({ts[d]}) must match the existing size ({ms[-bad[0]]}) at "
                 f"non-singleton dimension {d}.  Target sizes: {list(ts)}.  Tensor sizes: {list(ms)}")
    raise StridedRuntimeError(
        join_lines(
            first,
            f"{op} expands the mask of shape {ms} to the tensor's shape {ts}: only its size-1 dims "
            "(and missing leading dims) can grow",
            f"fix: give the mask the tensor's shape, or use the out-of-place {op.rstrip('_')}, which "
            "broadcasts both",
        )
    )


def _shape_with(self: Tensor, mask: Tensor, op: str, inplace: bool) -> tuple[int, ...]:
    """The broadcast shape of ``self`` and ``mask``; in place it must be ``self``'s own shape."""
    # (PyTorch names the mask "tensor a" out of place, the written-to tensor in place)
    b = L.broadcast_pair(self.shape, mask.shape) if inplace else L.broadcast_pair(mask.shape, self.shape)
    if type(b) is not tuple:
        raise StridedRuntimeError(
            join_lines(
                f"The size of tensor a ({b.size_a}) must match the size of tensor b ({b.size_b}) at "
                f"non-singleton dimension {b.dim}",
                f"{op}: the mask of shape {mask.shape} does not broadcast with the tensor's {self.shape} "
                "(sizes aligned from the right must be equal or 1)",
                "fix: give the mask the tensor's shape, or size 1 in the dims it should repeat over",
            )
        )
    if inplace and b != self.shape:
        raise StridedRuntimeError(
            join_lines(
                f"output with shape {list(self.shape)} doesn't match the broadcast shape {list(b)}",
                f"{op} writes into the tensor of shape {self.shape}, which the mask of shape {mask.shape} "
                "would enlarge",
                f"fix: the out-of-place form ({op.rstrip('_')}) returns the broadcast shape",
            )
        )
    return b


def _mask_array(mask: Tensor, target: Tensor, shape: tuple[int, ...]) -> np.ndarray:
    """The mask read through its strides, broadcast to ``shape``; a copy when it shares memory
    with the ``target`` about to be written (read before writing)."""
    arr = mask._np()
    if shares_memory(mask, target):
        arr = arr.copy()
    return _broadcast(arr, shape)


def _broadcast(arr: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """``np.broadcast_to(arr, shape)`` for reading: ``arr`` itself when it has the shape already
    (np.broadcast_to's Python checks cost more than a small fill or selection)."""
    return arr if arr.shape == shape else np.broadcast_to(arr, shape)


def _fresh_from(self: Tensor, shape: tuple[int, ...]) -> Tensor:
    """A contiguous new tensor of ``shape`` holding ``self`` broadcast (out-of-place writes)."""
    out = result(shape, self._dtype)
    copy_into(out._np(), self._np())  # (blocked: a transposed self copies 5x faster than np.copyto)
    return out


def _fast_masked(self: Any, mask: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """``(flat, mask)``: the flat runs of a row-major ``self`` (float32/float64/int32/int64) and of
    a row-major bool ``mask`` of exactly its shape, non-empty, for the out-of-place masked_fill /
    masked_scatter (whose result is then a copy of ``self`` written at the mask: no broadcast,
    no sharing with the fresh result). None when a precondition fails."""
    if type(self) is not Tensor or type(mask) is not Tensor or mask._dtype is not bool_ or self._dtype not in FAST_DTYPES:
        return None
    shape = self._layout.shape
    if mask._layout.shape != shape:
        return None
    info = _cinfo[shape]
    if not info[1]:
        return None
    flat = flat_run(self, info)
    m = flat_run(mask, info)
    return None if flat is None or m is None else (flat, m)


# ---------------------------------------------------------------- masked_fill


def _filled_run(run: np.ndarray, mask: np.ndarray, value: Any) -> np.ndarray:
    """A fresh copy of the flat ``run`` with ``value`` (fill_value's number) where the flat bool
    ``mask`` is True: ``run.copy()`` then ``np.putmask``, or the same bits in one branchless
    compiled pass (``masked_fill_run``: NumPy's putmask branches per element, ~4 ms for 2^20
    float32 under a random mask, the pass ~0.15 ms), the value converted by putmask itself."""
    out = np.empty(run.size, run.dtype)
    k = native.kernel()
    if k is not None and native.active() and hasattr(k, "masked_fill_run"):
        fill = np.empty(1, run.dtype)
        np.putmask(fill, True, value)  # (putmask's own conversion of the number, and its warnings)
        if k.masked_fill_run(run, mask, out, fill):
            return out
    np.copyto(out, run)
    np.putmask(out, mask, value)
    return out


def _fill_in_place(dest: np.ndarray, mask: np.ndarray, value: Any) -> bool:
    """``np.putmask(dest, mask, value)`` for a C-contiguous ``dest`` and a bool ``mask`` of its
    shape, in the compiled branchless pass (:func:`_filled_run`'s, written over ``dest`` itself);
    False (nothing written) where it does not apply: the caller's putmask then."""
    k = native.kernel()
    if k is None or not native.active() or not hasattr(k, "masked_fill_run") or dest.size < 4096 \
            or not mask.flags.c_contiguous or mask.dtype != np.bool_:
        return False
    fill = np.empty(1, dest.dtype)
    np.putmask(fill, True, value)
    flat = dest.reshape(-1)
    return bool(k.masked_fill_run(flat, mask.reshape(-1), flat, fill))


# The largest input (bytes) _dense_masked takes: its fill runs into a temporary of that size
_DENSE_TEMP_BYTES = 1 << 28


def _dense_masked(self: Any, mask: Any) -> tuple[np.ndarray, np.ndarray, Layout] | None:
    """``(run, mask run, layout)`` for a permuted dense ``self`` (float32/float64/int32/int64) and
    a bool ``mask`` of exactly its shape and strides: their storage runs in memory order, and
    ``self``'s layout at offset 0 (a transpose; :func:`strided.kernels.memory.dense_run`). None
    when a precondition fails."""
    if type(self) is not Tensor or type(mask) is not Tensor or mask._dtype is not bool_ or self._dtype not in FAST_DTYPES:
        return None
    lay = self._layout
    if mask._layout.shape != lay.shape or mask._layout.strides != lay.strides:
        return None
    n = _cinfo[lay.shape][1]
    if n * self._dtype.itemsize > _DENSE_TEMP_BYTES:
        return None  # (its temporary is a second input-sized buffer beside the result)
    a, m = dense_run(self, n), dense_run(mask, n)
    return None if a is None or m is None else (a[0], m[0], a[1])


def _masked_fill(self: Any, mask: Any, value: Any, inplace: bool) -> Tensor:
    if not inplace and MASKED_C is not None and (out := MASKED_C(0, self, mask, value)) is not None:
        return out  # (the compiled copy and fill, below's putmask: a float within range, an int that fits)
    fast = None if inplace or value.__class__ not in (float, int) else _fast_masked(self, mask)
    if fast is not None:
        out = _filled_run(fast[0], fast[1], fill_value(value, self._dtype, "masked_fill_", fast[0].size))
        return adopted(out, _cinfo[self._layout.shape][2], self._dtype)
    dense = None if inplace or value.__class__ not in (float, int) else _dense_masked(self, mask)
    if dense is not None:
        # a transpose and its mask: filled in memory order, then the blocked copy into the
        # row-major result (PyTorch's clone(contiguous_format)); 2^20 float32 ~5.7 -> ~0.5 ms
        run, m, lay = dense
        filled = _filled_run(run, m, fill_value(value, self._dtype, "masked_fill_", run.size))
        out = result(lay.shape, self._dtype)
        copy_into(out._np(), np.lib.stride_tricks.as_strided(
            filled, lay.shape, tuple(st * filled.itemsize for st in lay.strides), writeable=False))
        return out
    op = "masked_fill_" if inplace else "masked_fill"
    self = tensor_of(self, op, "input", 1)
    mask = tensor_of(mask, op, "mask", 2)
    if inplace:
        # Note: as PyTorch (which warns it is deprecated), one value may fill an expanded
        # tensor: every memory location gets the one value. We do not warn.
        check_target(self, op, number_fill=True)
    _check_mask(mask, "masked_fill_ only supports boolean masks, but got mask with dtype "
                f"{CPP_NAME[mask._dtype.name]}", op)
    support.check("masked_fill", self._dtype, (self,))  # (uint16/32/64: PyTorch has no kernel)
    shape = _shape_with(self, mask, op, inplace)
    if inplace and shares_memory(mask, self) and overlap(self, mask) is L.OverlapStatus.PARTIAL:
        # PyTorch's assert_no_partial_overlap(self, mask): the mask may be the tensor itself, not part of it
        raise partial_overlap(op, self._layout, mask._layout, L.storage_extent(self._layout),
                              L.storage_extent(mask._layout), "fix: pass a copy of the mask: x.masked_fill_(mask.clone(), v)")
    v = fill_value(value, self._dtype, "masked_fill_", L.product(shape))
    if inplace:
        target = self
    else:
        target = _fresh_from(self, shape)
    dest = target._np()
    if mask.shape == shape and dest.flags.c_contiguous:
        m = _mask_array(mask, target, shape)
        if not _fill_in_place(dest, m, v):  # (a large one: the compiled pass, ~4 ms -> ~0.15 at 2^20)
            np.putmask(dest, m, v)  # (faster than copyto's where=)
    else:
        np.copyto(dest, v, casting="unsafe", where=_mask_array(mask, target, shape))
    return target


@method("masked_fill_")
def masked_fill_(self: Tensor, mask: Tensor, value: Any) -> Tensor:
    """In place, write ``value`` (a number or a 0-d tensor) where the bool ``mask`` (broadcast to
    this shape) is True; returns ``self``.

    >>> x = strided.tensor([-1.0, 2.0, -3.0])
    >>> x.masked_fill_(x < 0, 0).tolist()
    [0.0, 2.0, 0.0]
    """
    return _masked_fill(self, mask, value, True)


@method("masked_fill")
def masked_fill(input: Tensor, mask: Tensor, value: Any) -> Tensor:  # noqa: A002
    """Out-of-place :func:`masked_fill_`: a new contiguous tensor of the broadcast shape of
    ``input`` and ``mask``.

    >>> x = strided.tensor([1.0, -2.0, 3.0])
    >>> strided.masked_fill(x, x < 0, 0.0).tolist()
    [1.0, 0.0, 3.0]
    """
    return _masked_fill(input, mask, value, False)


@backward("masked_fill", operands="any")
def masked_fill_backward(out: Tensor, input: Tensor, mask: Tensor, value: Any) -> Any:  # noqa: A002
    """MaskedFillBackward0 (a number) / MaskedFillBackward1 (a 0-d tensor): the gradient with
    the filled positions zeroed; a tensor value gets the gradient's sum over them."""
    if not isinstance(value, Tensor):
        return "MaskedFillBackward0", (input,), lambda g: (masked_fill(g, mask, 0),), (mask,)

    def grad(g: Tensor) -> tuple:
        return masked_fill(g, mask, 0), masked_select(g, mask).sum()

    return "MaskedFillBackward1", (input, value), grad, (mask,)


# ---------------------------------------------------------------- masked_select


@method("masked_select")
def masked_select(input: Tensor, mask: Tensor, *, out: Any = None) -> Tensor:  # noqa: A002
    """The elements of ``input`` where ``mask`` is True (both broadcast together), in row-major
    order: a new 1-D tensor, reported as a copy.

    >>> x = strided.tensor([[1, -2], [-3, 4]])
    >>> x.masked_select(x > 0).tolist()
    [1, 4]
    """
    if out is not None:  # (PyTorch's out= takes only the result's dtype)
        return write_out(out, masked_select(input, mask),
                         "masked_select", (input, mask),
                         "masked_select(): self and result must have the same scalar type")
    input = tensor_of(input, "masked_select", "input", 1)  # noqa: A001
    mask = tensor_of(mask, "masked_select", "mask", 2)
    _check_mask(mask, "masked_select: expected BoolTensor for mask", "masked_select")
    shape = _shape_with(input, mask, "masked_select", False)
    if L.product(shape):
        support.check("masked_select", input._dtype, (input,))
    picked = _broadcast(input._np(), shape)[_broadcast(mask._np(), shape)]
    out = adopted(picked.reshape(-1), _trusted((picked.size,), (1,), 0), input._dtype)
    if OPEN:
        copied("masked_select", (input, mask), out,
               lambda: f"masked_select: the {out.numel()} elements where the mask is True copied into new memory")
    return out


@backward("masked_select", operands="two")
def masked_select_backward(out: Tensor, input: Tensor, mask: Tensor) -> Any:  # noqa: A002
    """MaskedSelectBackward0: the gradient written back where the mask (broadcast with the
    input) is True, into zeros (the engine sums over the dims the input was broadcast in)."""
    shape = tuple(np.broadcast_shapes(input._layout.shape, mask._layout.shape))

    def grad(g: Tensor) -> tuple:
        return (linear("MaskedScatterBackward0", g, lambda g: masked_scatter_(grad_zeros(shape, g._dtype), mask, g),
                       lambda gg: masked_select(gg, mask)),)

    return "MaskedSelectBackward0", (input,), grad, (input, mask)  # (PyTorch saves self: its version is checked)


# ---------------------------------------------------------------- masked_scatter


def _masked_scatter(self: Any, mask: Any, source: Any, inplace: bool) -> Tensor:
    if not inplace and MASKED_C is not None and (out := MASKED_C(1, self, mask, source)) is not None:
        return out  # (the compiled copy and ordered write, below's)
    fast = None if inplace or type(source) is not Tensor else _fast_masked(self, mask)
    if fast is not None and source._dtype is self._dtype:
        flat, m = fast
        count = int(np.count_nonzero(m))
        src = flat_run(source, _cinfo[source._layout.shape])
        if src is not None and count <= src.size:  # (else the general path's error)
            out = flat.copy()
            if count:
                _write_in_order(out, m, src, count)
            return adopted(out, _cinfo[self._layout.shape][2], self._dtype)
    op = "masked_scatter_" if inplace else "masked_scatter"
    self = tensor_of(self, op, "input", 1)
    mask = tensor_of(mask, op, "mask", 2)
    source = tensor_of(source, op, "source", 3)
    if inplace:
        check_target(self, op)
    _check_mask(mask, "masked_scatter_ only supports boolean masks, but got mask with dtype "
                f"{scalar_name(mask._dtype)}", op)
    if source._dtype is not self._dtype:
        raise StridedRuntimeError(
            join_lines(
                "masked_scatter: expected self and source to have same dtypes but got"
                f"{scalar_name(self._dtype)} and {scalar_name(source._dtype)}",
                f"fix: convert the source first: source.to(strided.{self._dtype.name})",
            )
        )
    support.check("masked_scatter", self._dtype, (self,))
    if inplace:
        _expand_mask(self, mask, op)
    shape = _shape_with(self, mask, op, inplace)
    if inplace:
        target = self
    else:
        target = _fresh_from(self, shape)
    m = _mask_array(mask, self if inplace else target, shape)
    if not inplace:
        # the fresh target is row-major: a row-major mask makes NumPy's boolean write one
        # sequential walk (a transposed one costs 3x more); the written order is the same
        m = row_major(m)
    count = int(np.count_nonzero(m))
    if count > source.numel():
        raise StridedRuntimeError(
            join_lines(
                "Number of elements of source < number of ones in mask",
                f"{op}: the mask has {count} True elements but the source only {source.numel()} "
                f"(shape {source.shape}); one source element is written per True, in row-major order",
                "fix: pass a source with at least as many elements as the mask has True values",
            )
        )
    if count:
        # (a temporary copy only for a non-contiguous source: blocked, NumPy's reshape copy is 5x slower)
        src = row_major(source._np()).reshape(-1)
        # Note: PyTorch 2.13 does not check a source that shares the tensor's memory and reads it
        # while writing (its result depends on its kernel's order); strided reads it all first,
        # so the result is that of masked_scatter_(mask, source.clone()).
        if shares_memory(source, target):
            src = src.copy()
        _write_in_order(target._np(), m, src, count)
    return target


# _write_in_order's fewest True values written through their positions (below: the boolean write)
_BY_POSITIONS = 1 << 12


def _write_in_order(arr: np.ndarray, mask: np.ndarray, src: np.ndarray, count: int) -> None:
    """``arr[mask] = src[:count]`` (``count`` the mask's True values): the first ``count`` values
    of the flat ``src`` written, in row-major order, where ``mask`` (of ``arr``'s shape) is True.
    When ``arr`` and ``mask`` are C-contiguous and ``count`` is at least ``_BY_POSITIONS``, through
    ``np.flatnonzero(mask)``'s positions: the same writes in the same order, 3x faster than
    NumPy's boolean write on a random mask (whose branch per element mispredicts)."""
    if count >= _BY_POSITIONS and arr.flags.c_contiguous and mask.flags.c_contiguous:
        arr.reshape(-1)[np.flatnonzero(mask)] = src[:count]
    else:
        arr[mask] = src[:count]


@method("masked_scatter_")
def masked_scatter_(self: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """In place, write ``source``'s elements, in order, into the positions where ``mask`` (broadcast
    to this shape) is True, in row-major order; ``source`` has this dtype and at least as many
    elements as the mask has True values.

    >>> x = strided.zeros(4)
    >>> x.masked_scatter_(strided.tensor([True, False, True, False]), strided.tensor([1.0, 2.0])).tolist()
    [1.0, 0.0, 2.0, 0.0]
    """
    return _masked_scatter(self, mask, source, True)


@method("masked_scatter")
def masked_scatter(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:  # noqa: A002
    """Out-of-place :func:`masked_scatter_`: a new contiguous tensor of the broadcast shape.

    >>> x = strided.zeros(4)
    >>> strided.masked_scatter(x, strided.tensor([True, False, True, False]), strided.tensor([1.0, 2.0])).tolist()
    [1.0, 0.0, 2.0, 0.0]
    """
    return _masked_scatter(input, mask, source, False)


@backward("masked_scatter", operands="any")
def masked_scatter_backward(out: Tensor, input: Tensor, mask: Tensor, source: Tensor) -> Any:  # noqa: A002
    """MaskedScatterBackward0: ``input`` gets the gradient with the written positions zeroed,
    ``source`` the gradient read at them, in order (zeros for the source elements not used)."""
    shape = source._layout.shape
    n = L.product(shape)

    def grad(g: Tensor) -> tuple:
        used = masked_select(g, mask)
        k = used.numel()

        def padded(used: Tensor) -> Tensor:
            flat = grad_zeros((n,), g._dtype)
            flat._np()[:k] = used._np()
            return flat

        flat = linear("ConstantPadNdBackward0", used, padded, lambda gg: gg[:k])
        return masked_fill(g, mask, 0), flat.view(shape)

    return "MaskedScatterBackward0", (input, source), grad, (mask,)


# ---------------------------------------------------------------- nonzero, argwhere


def _positions(input: Tensor) -> tuple[int, list[np.ndarray]]:
    """How many elements are non-zero and, per dim, their indices (row-major order)."""
    arr = input._np()
    if arr.ndim == 0:
        n = int(bool(arr))
        return n, []
    cols = list(np.nonzero(arr))
    return (cols[0].size if cols else 0), cols


# _unraveled's smallest input: below it np.nonzero's per-dim walk costs no more
_UNRAVEL_MIN = 1 << 12


def _unraveled(arr: np.ndarray) -> np.ndarray:
    """``np.concatenate(np.nonzero(arr))`` as int64 for a C-contiguous ``arr`` of 2 or more dims:
    the flat positions (``np.flatnonzero``: one pass, the same non-zero test) split into each
    dim's index with integer division by the row-major strides, written column after column
    into one buffer. np.nonzero's own multi-dim walk is 2-4x slower at 2^20 elements."""
    flat = np.flatnonzero(arr)
    n = flat.size
    shape = arr.shape
    out = np.empty(n * len(shape), np.int64)
    last = len(shape) - 1
    rest = flat  # the position within the dims not yet split off (flat is ours: updated in place)
    stride = arr.size // shape[0]
    for d in range(last):
        column = out[d * n:(d + 1) * n]
        below = out[(d + 1) * n:(d + 2) * n]
        if stride & (stride - 1) == 0:
            # a power of two (1024 columns): shift and mask, exact for these non-negative positions
            np.right_shift(rest, stride.bit_length() - 1, out=column)
            np.bitwise_and(rest, stride - 1, out=below if d == last - 1 else rest)
        else:
            np.floor_divide(rest, stride, out=column)
            # rest - column * stride, the product held in the next column's place (no temporary);
            # the last difference is that column itself
            np.multiply(column, stride, out=below)
            np.subtract(rest, below, out=below if d == last - 1 else rest)
        stride //= shape[d + 1]
    return out


def _compiled_positions(arr: np.ndarray) -> np.ndarray | None:
    """:func:`_unraveled`'s array for a C-contiguous ``arr`` from the copy kernel's
    ``nonzero_rows`` (a count pass, then one pass writing each position's indices row by row:
    2^20 float32, all non-zero, ~3.2 -> ~1.4 ms); None where the kernel is off or refuses the
    dtype (float32/float64/int32/int64/bool only)."""
    k = native.kernel()
    if k is None or not native.active() or not hasattr(k, "nonzero_rows"):
        return None
    count = k.nonzero_rows(arr, None)
    if count < 0:
        return None
    flat = np.empty(count * arr.ndim, np.int64)
    return flat if k.nonzero_rows(arr, flat) == count else None


def _nonzero_matrix(input: Tensor, name: str) -> Tensor:
    """The ``(n, ndim)`` int64 matrix of positions, laid out as PyTorch lays it out: column by
    column (strides ``(1, n)``)."""
    nd = input.ndim
    arr = input._np()
    if nd >= 2 and arr.size >= _UNRAVEL_MIN and not arr.flags.c_contiguous \
            and dense_layout(input._layout.shape, input._layout.strides) is not None:
        # a permuted dense input (a transpose): its blocked row-major copy (an unreported
        # temporary, the same elements) walked as a row-major one; np.nonzero's own walk of a
        # transposed 2^20-element float32 took ~11.7 ms (PyTorch ~7), this ~3.5
        arr = row_major(arr)
    if nd >= 2 and arr.size >= _UNRAVEL_MIN and arr.flags.c_contiguous:
        flat = _compiled_positions(arr)
        if flat is None:
            flat = _unraveled(arr)
        n = flat.size // nd
    else:
        n, cols = _positions(input)
        # (np.concatenate: a fresh contiguous array that owns its memory, as a storage's must be)
        flat = np.concatenate(cols) if cols else np.zeros(0, np.int64)
        if flat.dtype != np.int64:
            flat = flat.astype(np.int64)
    out = adopted(flat, _trusted((n, nd), (1, n), 0), int64)
    if OPEN:
        copied(name, (input,), out,
               lambda: f"{name}: the positions of {n} non-zero elements ({n} x {nd} int64) written to new memory")
    return out


def _small_positions(input: Any) -> Tensor | None:
    """:func:`_nonzero_matrix`'s result for a small row-major float32/float64/int32/int64 tensor
    of 1 or more dims (the copy kernel's ``nonzero_flat``: one pass to count, one to write, in
    np.nonzero's row-major order), unwatched; None otherwise (nothing made)."""
    if NONZERO_C is None or OPEN:
        return None
    flat = NONZERO_C(input)
    if flat is None:
        return None
    nd = len(input._layout.shape)
    n = len(flat) // nd
    return adopted(flat, _trusted((n, nd), (1, n), 0), int64)


def nonzero(input: Tensor, *, out: Any = None, as_tuple: bool = False) -> Any:  # noqa: A002
    """The positions of ``input``'s non-zero (True) elements, in row-major order: an ``(n, ndim)``
    int64 tensor (strides ``(1, n)``, as PyTorch's), or with ``as_tuple=True`` one 1-D int64 tensor
    per dim (a 0-d input counts as 1-D), ready to index with.

    >>> strided.tensor([[0, 3], [4, 0]]).nonzero().tolist()
    [[0, 1], [1, 0]]
    >>> [t.tolist() for t in strided.tensor([0, 5, 6]).nonzero(as_tuple=True)]
    [[1, 2]]
    """
    if out is None and as_tuple is False and (fast := _small_positions(input)) is not None:
        return fast
    input = tensor_of(input, "nonzero", "input", 1)  # noqa: A001
    support.check("nonzero", input._dtype, (input,))
    if out is not None:
        return _nonzero_out(input, out, as_tuple)
    if not as_tuple:
        return _nonzero_matrix(input, "nonzero")
    if input.ndim == 0:
        n, _ = _positions(input)
        out = adopted(np.zeros(n, np.int64), _trusted((n,), (1,), 0), int64)
        if OPEN:
            copied("nonzero", (input,), out, "nonzero: the position of the non-zero 0-d element")
        return (out,)
    positions = _nonzero_matrix(input, "nonzero")  # (reported: the one copy)
    with silenced():  # its columns are the result, not a view the user asked for
        return positions.unbind(1)


def _nonzero_out(input: Tensor, out: Any, as_tuple: bool) -> Tensor:  # noqa: A002
    """``nonzero(input, out=out)``: PyTorch's checks (no tuple form, an int64 ``out``), then the
    positions written through ``out`` (resized to the fresh result's ``(1, n)`` strides)."""
    if as_tuple:
        raise StridedRuntimeError(join_lines(
            "nonzero does not support the out kwarg when as_tuple is True",
            "as_tuple=True gives one tensor per dim; drop out=, or pass as_tuple=False for the (n, ndim) matrix",
        ))
    if isinstance(out, Tensor) and out._dtype is not int64:
        raise StridedRuntimeError(join_lines(  # (PyTorch's text, the missing space included)
            f"nonzero: Expected out tensor to have scalar type Long but got scalar type{TORCH_NAMES[out._dtype]}",
            f"nonzero writes int64 positions; out= is {out._dtype.name}",
            "fix: pass out=strided.empty(0, dtype=strided.int64)",
        ))
    return write_out(out, _nonzero_matrix(input, "nonzero"), "nonzero", (input,))


method("nonzero")(nonzero)


@method("argwhere")
def argwhere(input: Tensor) -> Tensor:  # noqa: A002
    """``nonzero(input)``: the ``(n, ndim)`` int64 positions of the non-zero elements.

    >>> strided.tensor([0.0, 2.0]).argwhere().tolist()
    [[1]]
    """
    if (fast := _small_positions(input)) is not None:
        return fast
    input = tensor_of(input, "argwhere", "input", 1)  # noqa: A001
    support.check("argwhere", input._dtype, (input,))
    return _nonzero_matrix(input, "argwhere")


seal(globals())  # (last: this module's ops with a backward rule become their recording entries)
# the kinds of this module's ops, in the op registry (after the seal: the forwards are the entries)
declare(Kind.COPY, "masked_select nonzero argwhere")
declare(Kind.COMPUTE, "masked_fill masked_scatter")
