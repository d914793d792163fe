"""In-place elementwise updates of a tensor whose elements share memory, in PyTorch's order.

PyTorch lets a target whose elements overlap without a stride-0 dim (the windows of
``unfold(0, 2, 1)``, an overlapping ``as_strided``) through its overlap check as "too hard", and
its loop then updates a shared location once per element that reaches it, one element after
another in TensorIterator's order: ``arange(4.).unfold(0, 2, 1).add_(1)`` adds 2 to the middle
elements, ``mul_(1.5)`` multiplies them by 1.5 twice. Within the loop's rows the elements are
distinct locations, so its vector blocks (read several, then write them) read what the
one-by-one walk reads.

The element reaching a location for the k-th time depends only on the k-1 writes before it to
that location (an elementwise op reads its own location and operands that do not alias the
target), so the updates run in rounds: round k writes every element's location's current value
into a scratch target of the same shape whose own elements do not overlap, laid out so that
PyTorch's loop walks it as it walks the target (the same order, rows of the same length, a row
contiguous where the target's is: each element computed by the same vector or scalar code),
applies the op to it in place (its own kernel, dtype rules and checks, the other operands as
given) and keeps the results of the elements reaching their location for the k-th time.
Nothing reaches the target before the last round has succeeded.

Refused (the op's existing overlap text, :class:`strided.errors.UpdatesInOrder`) where the
result would depend on more than the walk: from PyTorch's parallel grain with several threads
(:func:`strided.ops._support.operands._check_inplace` does not raise it there: its threads race
for the shared locations), an operand that shares the target's memory in another layout (read
at its own time in the walk) and a target or operand in autograd's graph.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...dispatch import adopted, shares_storage
from ...errors import UpdatesInOrder
from ...grad_mode import GRAD_MODE
from ...kernels import check_writable
from ...kernels.memory import write_plain_loop
from ...kernels.torch_loops import loop_rows
from ...layout import Layout, contiguous_strides
from ...lazy_names import function_on_first_call
from ...memory_format import contiguous_format
from ...tensor import Tensor
from .promotion import result_type

# (PyTorch's index-loop walks: loaded on the first overlapping or racing write; see strided.lazy_names.function_on_first_call)
addresses = function_on_first_call("strided.kernels.torch_index_loops", "addresses", globals())

__all__ = ["UpdatesInOrder", "updates_in_order"]

_trusted = Layout._trusted


def updates_in_order(fwd: Callable[..., Any], self: Tensor, args: tuple, kwargs: dict,
                     refusal: UpdatesInOrder) -> Tensor:
    """``fwd(self, *args, **kwargs)`` (an elementwise in-place op) into ``self``, whose elements
    share memory, as PyTorch's loop updates it (module docstring); raises ``refusal`` (nothing
    written) where that is not what PyTorch's result would be."""
    lay = self._layout
    shape = lay.shape
    operands = [a for a in (*args, *kwargs.values()) if isinstance(a, Tensor)]
    if _refused(self, operands):
        raise refusal
    if _cast_through_common(self, args, kwargs):
        return _copied_back(fwd, self, args, kwargs)
    inputs = [(lay.shape, lay.strides)] + [(a._layout.shape, a._layout.strides) for a in operands]
    perm, row = loop_rows(shape, lay.strides, False, inputs)
    outer_first = perm[::-1]
    where = addresses(shape, lay.strides, lay.offset).transpose(outer_first).ravel()
    locations, slot = np.unique(where, return_inverse=True)
    rank = _occurrence(slot)
    store = self._storage.array
    current = store[locations]  # (every location's value, updated round by round: a copy)
    scratch = _scratch(self, perm, row)
    at = addresses(shape, scratch._layout.strides, 0).transpose(outer_first).ravel()
    values = scratch._storage.array
    for k in range(int(rank.max()) + 1):
        values[at] = current[slot]
        fwd(scratch, *[scratch if _is_self(a, self) else a for a in args],
            **{name: scratch if _is_self(a, self) else a for name, a in kwargs.items()})
        chosen = rank == k  # (the elements reaching their location for the k-th time)
        current[slot[chosen]] = values[at[chosen]]
    store[locations] = current
    return self


def _cast_through_common(self: Tensor, args: tuple, kwargs: dict) -> bool:
    """Whether the op's common dtype (``self``'s and its operands') is not ``self``'s: then
    TensorIterator reads ``self`` through a cast copy and computes into a temporary that it copies
    back, so no element reads another's update (``int16.lt_(0.5)``, ``float16.add_(float32 t)``)."""
    operands = [a for a in (*args, *kwargs.values())
                if isinstance(a, (Tensor, bool, int, float, complex)) and not _is_self(a, self)]
    if not operands:
        return False
    try:
        return result_type(self, *operands) is not self._dtype
    except Exception:  # (no common dtype: the op's own call raises its error)
        return False


def _copied_back(fwd: Callable[..., Any], self: Tensor, args: tuple, kwargs: dict) -> Tensor:
    """``fwd`` over a row-major copy of ``self``'s elements (each read before any write: the
    op's own dtype rules and errors, nothing written before they pass), its result copied into
    ``self`` as PyTorch's copy from its contiguous temporary writes it (the last write wins at a
    shared location: :func:`strided.kernels.memory.write_plain_loop`)."""
    scratch = self.clone(memory_format=contiguous_format)
    fwd(scratch, *[scratch if _is_self(a, self) else a for a in args],
        **{name: scratch if _is_self(a, self) else a for name, a in kwargs.items()})
    lay = self._layout
    check_writable(self._storage, lay, "in-place update")
    write_plain_loop(self._storage, lay, scratch._np(), [list(contiguous_strides(lay.shape))])
    return self


def _refused(self: Tensor, operands: list[Tensor]) -> bool:
    """Whether PyTorch's result would depend on more than its walk's order (module docstring)."""
    if GRAD_MODE.get() and (self.requires_grad or any(a.requires_grad for a in operands)):
        return True  # (autograd's history of a target updated element by element: not modelled)
    return any(shares_storage(a, self) and not _is_self(a, self) for a in operands)


def _is_self(a: Any, self: Tensor) -> bool:
    """An operand that reads each element of ``self`` at its own location (``x.sub_(x)``): read
    in the walk, it is the target's current value."""
    return isinstance(a, Tensor) and (a is self or (
        a._storage is self._storage and a._layout == self._layout and a._dtype is self._dtype))


def _scratch(self: Tensor, perm: list[int], row: int) -> Tensor:
    """A tensor of ``self``'s shape and dtype whose elements do not share memory, which
    PyTorch's loop walks as it walks ``self`` (``perm``: its order, fastest first; ``row``: the
    length of its rows): dense along the dims merged into a row, stride 1 along the row where
    ``self``'s is 1 (its vector loop) and 2 elsewhere, a gap between rows so that no more dims
    merge."""
    lay = self._layout
    shape = lay.shape
    first = next((d for d in perm if shape[d] > 1), perm[0])
    step = 1 if lay.strides[first] == 1 else 2
    strides = [0] * len(shape)
    merged = 1
    for d in perm:
        if merged >= row:
            step += 1  # (past the row: a gap, so that this dim does not merge into it)
        strides[d] = step
        step *= shape[d]
        merged *= shape[d]
    size = sum((n - 1) * s for n, s in zip(shape, strides)) + 1
    base = adopted(np.zeros(size, self._storage.array.dtype), _trusted((size,), (1,), 0), self._dtype)
    return base.as_strided(shape, strides, 0)


def _occurrence(slot: np.ndarray) -> np.ndarray:
    """For each element of the walk, how many earlier elements reach its location (its round)."""
    order = np.argsort(slot, kind="stable")
    ranked = slot[order]
    starts = np.flatnonzero(np.r_[True, ranked[1:] != ranked[:-1]])
    first = np.repeat(starts, np.diff(np.r_[starts, ranked.size]))
    rank = np.empty_like(order)
    rank[order] = np.arange(ranked.size) - first
    return rank
