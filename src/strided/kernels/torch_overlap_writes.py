"""Plain writes into a destination whose elements share memory, in PyTorch's order.

``copy_`` and ``t[...] = v`` into a layout whose elements overlap without a stride-0 dim (the
windows of ``unfold(0, 2, 1)``, some ``as_strided``) are "too hard" for PyTorch's overlap check,
so it writes them: its TensorIterator walks the elements in :func:`~strided.layout.order.
iteration_order` (the dims by the destination's strides, then the source's), and a location
reached by several elements keeps the value of the last one. NumPy's ``copyto`` walks its own
order, so its survivor can differ (``b.unfold(0, 2, 1).mT.swapaxes(0, -1).copy_(...)``: torch
leaves ``[0, 1, 2, 3, 4, 9]``, NumPy's walk ``[0, 5, 6, 7, 8, 9]``). This module writes PyTorch's
survivors; :func:`walk_survivors` does it for any walk given in order (the index writes:
``t[idx] = v``/``index_put_``, ``index_copy_``, ``scatter_``, each with its kernel's own walk).

From ``GRAIN_SIZE`` elements PyTorch splits the walk between its threads, and which thread's
write lands last is a race: where two different values reach one location there (and more than
one thread is assumed, :func:`~strided.kernels.torch_loops.torch_threads`), the write is refused.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..errors import StridedRuntimeError, join_lines
from ..layout import Layout
from ..layout.core import may_share_elements  # noqa: F401  (its home before; kept importable from here)
from ..layout.order import iteration_order
from .torch_index_loops import addresses
from .torch_loops import GRAIN_SIZE, torch_threads


def last_writes(
    layout: Layout, value: np.ndarray, cast: Callable[[np.ndarray], np.ndarray] | None = None,
    inputs: list[list[int]] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """``(positions, values)``: each storage position (in elements) the layout reaches, once, and
    the value of ``value`` (broadcast to ``layout.shape``) that PyTorch's walk writes there last.

    The walk's order comes from ``value``'s own strides (an expanded source's stride-0 dims
    included); ``cast`` (elementwise, into the destination's dtype) is applied to the walked
    values, and two values race only where their cast bits differ (-0.0 and 0.0 do, 1.2 and 1.7
    written as ints do not). ``inputs``: the strides (over ``layout.shape``, 0 where broadcast)
    of the operands that order the walk after the destination's, where they are not ``value``'s
    (an ``out=`` op's inputs: its result is ``value``).

    >>> lay = Layout((2, 2), (1, 1), 0)  # [[0, 1], [1, 2]]
    >>> [a.tolist() for a in last_writes(lay, np.array([[10., 11.], [12., 13.]]))]
    [[0, 1, 2], [10.0, 12.0, 13.0]]
    """
    shape = layout.shape
    src = np.broadcast_to(value, shape)
    if inputs is None:
        inputs = [[s // src.itemsize if n > 1 else 0 for n, s in zip(shape, src.strides)]]
    outer_first = iteration_order(shape, [layout.strides, *inputs])[::-1]
    where = addresses(shape, layout.strides, layout.offset).transpose(outer_first).ravel()
    values = src.transpose(outer_first).ravel()
    if cast is not None:
        values = cast(values)
    return walk_survivors(where, values)


def walk_survivors(where: np.ndarray, values: np.ndarray,
                   parallel: bool | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(positions, values)`` for writes made one after another: ``values[k]`` into storage
    position ``where[k]`` (flat arrays in the walk's order); each position once, sorted, with the
    last value written there. Where PyTorch's threads run the walk in chunks (``parallel``; None:
    from ``GRAIN_SIZE`` writes, with more than one thread assumed), two values of different bits
    for one position are refused (the threads race for it).

    >>> [a.tolist() for a in walk_survivors(np.array([3, 1, 3]), np.array([10, 11, 12]))]
    [[1, 3], [11, 12]]
    """
    # (the first of each position in the reversed walk is the last write of the walk)
    positions, first = np.unique(where[::-1], return_index=True)
    last = where.size - 1 - first
    grain = GRAIN_SIZE if parallel is None else None  # (a caller's own decision: its op's grain)
    if parallel is None:
        parallel = where.size >= GRAIN_SIZE and torch_threads() > 1
    if parallel:
        _refuse_a_race(where, values, positions, values[last], grain)
    return positions, values[last]


def _refuse_a_race(where: np.ndarray, values: np.ndarray, positions: np.ndarray, survivors: np.ndarray,
                   grain: int | None) -> None:
    """Raise where a location gets two different values (PyTorch's threads race for it; ``grain``:
    the walk's parallel grain, named in the text, or None where the op's own grain decided)."""
    slot = np.searchsorted(positions, where)
    differs = (_bits(survivors)[slot] != _bits(values)).any(axis=1)
    if not differs.any():
        return
    at = int(where[int(np.argmax(differs))])
    raise StridedRuntimeError(join_lines(
        "unsupported operation: the written-to tensor's elements share memory location "
        f"{at} and receive different values",
        f"PyTorch writes its {where.size} elements from several threads at once"
        + (f" (from {grain} elements)" if grain is not None else " (past its parallel grain)")
        + ", so which value stays there is a race",
        "fix: write into a tensor whose elements do not share memory (t.clone(), or "
        "t.contiguous()), or give the shared locations one value",
    ))


def _bits(values: np.ndarray) -> np.ndarray:
    """Each value's bytes, one row per value: what a racing write leaves is compared bit for bit
    (0.0 and -0.0 differ, and so do NaNs of two signs)."""
    return np.ascontiguousarray(values).view(np.uint8).reshape(values.size, values.itemsize)
