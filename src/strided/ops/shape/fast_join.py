"""The joins' fast path: row-major inputs of one dtype joined by one ``np.concatenate`` of their
flat runs, whose fresh 1-D result becomes the output's storage.

``cat``, ``stack`` and the ``*stack`` family (:mod:`strided.ops.shape.joining`) try
:func:`flat_join` first; it answers None whenever its cheap preconditions do not hold and the
general path (planner, promotion, memory format, error texts, the copy ledger's report) runs
instead. Where it answers, the result is the general path's bit for bit: same values (a byte copy),
dtype, shape, row-major strides and offset 0, in new memory.

Why row-major suffices: a row-major tensor of shape ``(a0, ..., a(n-1))`` is its flat run read
in that order, so joining row-major pieces along dim ``d`` is, in memory, ``outer`` rows
(``outer = a0 * ... * a(d-1)``) each the concatenation of every piece's row of
``a(d) * ... * a(n-1)`` elements: one 2-D ``np.concatenate`` along axis 1 (1-D when ``outer`` is 1).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ...dispatch import OPEN, adopted
from ...kernels.native import _enabled, _open_blocks, enabled_here, joiner, kernel
from ...tensor import Tensor
from .._support.operands import _cinfo

__all__ = ["atleast_shape", "flat_join", "wrap"]

_concatenate = np.concatenate
_empty = np.empty
# Up to this many bytes the compiled join (native.joiner) writes the result: NumPy's concatenate
# costs more than the copy below it (0.6 us for two 12-element runs, 1.3 us joined along dim 1)
_JOIN_BYTES = 1 << 16
# The shortest row (bytes) of every run for which the compiled join takes a larger join
# (kernels/_row_copy.h's RUN_LOOP_MIN: below it the rows are memcpy'd as NumPy's are)
_ROW_JOIN_MIN = 256
_prod = math.prod


def _compiled_join() -> Any:
    """The copy kernel's ``join_tensors`` (:func:`flat_join`'s checks and copy in one call, for
    joins of up to ``_JOIN_BYTES``), set up with the plan table; None where the kernel is not built
    (or built before it had the function), or with ``STRIDED_NATIVE=0``."""
    k = kernel()
    if k is None or not hasattr(k, "join_tensors"):
        return None
    k.join_setup(_cinfo, np.empty, _JOIN_BYTES)
    return k.join_tensors


_JOIN_C = _compiled_join()


def wrap(dim: Any, n: int) -> int | None:
    """``dim`` wrapped into ``range(n)`` when it is a plain int there (negative from the end), else
    None: the general path parses it and raises its errors."""
    if dim.__class__ is not int:
        return None
    if 0 <= dim < n:
        return dim
    if -n <= dim < 0:
        return dim + n
    return None


def atleast_shape(shape: tuple[int, ...], n: int) -> tuple[int, ...]:
    """The shape ``atleast_{n}d`` gives ``shape`` (``joining._atleast_layout``'s steps: 0-d to
    ``(1,) * n``; ``(k,)`` to ``(1, k)`` and ``(1, k, 1)``; ``(m, k)`` to ``(m, k, 1)``).

    >>> atleast_shape((4,), 3), atleast_shape((2, 3), 2), atleast_shape((), 1)
    ((1, 4, 1), (2, 3), (1,))
    """
    nd = len(shape)
    if nd >= n:
        return shape
    if nd == 0:
        return (1,) * n
    if nd == 1:
        shape = (1,) + shape
    return shape if n == 2 else shape + (1,)


def _interleaved_pair(runs: list, outer: int, itemsize: int) -> bool:
    """Whether the join is two runs of one 4- or 8-byte element per row (dstack's of two row-major
    matrices, a stack of two along a new last dim), which the compiled join interleaves with
    16-byte unpacks: a (1024, 1024) float32 dstack 0.58 ms (NumPy's concatenate) -> 0.25 ms."""
    return len(runs) == 2 and itemsize in (4, 8) and len(runs[0]) == len(runs[1]) == outer


def flat_join(tensors: Sequence[Any], shapes: Sequence[tuple[int, ...]] | None, d: int,
              stacked: bool = False) -> Tensor | None:
    """``tensors`` read as ``shapes`` (each a reshape of its tensor's own shape with the same
    elements; None: their own shapes, ``cat``'s) joined along dim ``d``, or None when the general
    path must run: nobody listens, every input is a non-empty row-major Tensor of the first's dtype,
    the shapes have one rank of 1 to 3 (4-d and 5-d joins may come out channels_last) and agree
    except in ``d``. The caller has checked that ``tensors[0]`` is a Tensor.

    ``stacked`` (``stack``'s join, ``shapes`` None): the own shapes are all equal and the join
    is along a new dim ``d``, each input read as its shape with a 1 inserted there.

    >>> a, b = strided.arange(6.).reshape(2, 3), strided.ones(2, 1)
    >>> flat_join([a, b], None, 1).tolist()
    [[0.0, 1.0, 2.0, 1.0], [3.0, 4.0, 5.0, 1.0]]
    >>> flat_join([a, a.t()], [a.shape, (3, 2)], 0) is None  # (a transposed input: general path)
    True
    """
    if OPEN:  # (a listener gets the general path's report)
        return None
    if shapes is None and _JOIN_C is not None and _enabled.get() and (not _open_blocks[0] or enabled_here()):
        # the compiled join's checks and copy (cat's and stack's joins): its answer is this
        # function's where every input passes; None leaves the decision to the loop below
        made = _JOIN_C(tensors, d, stacked)
        if made is not None:
            return made
    first = tensors[0]._layout.shape if shapes is None else shapes[0]
    nd = len(first)
    if not 0 < nd + stacked <= 3:
        return None
    dtype = tensors[0]._dtype
    head, tail = first[:d], (first[d:] if stacked else first[d + 1:])
    total = count = 0
    runs = []
    i = 0
    for t in tensors:
        if not isinstance(t, Tensor) or t._dtype is not dtype:
            return None
        lay = t._layout
        shape = lay.shape
        strides, n, _ = _cinfo[shape]
        if not n or lay.strides != strides:  # (empty: PyTorch's legacy skip of a (0,) input; not row-major)
            return None
        run = t._storage.array  # (kernels.memory.flat_run, inlined: a call per input is a tenth of a join)
        if lay.offset or len(run) != n:
            run = run[lay.offset : lay.offset + n]
            if len(run) != n:
                return None  # (unpickled past its storage: the general path's error)
        if shapes is not None:
            shape = shapes[i]
            i += 1
        if shape is not first and shape != first and (
                stacked or len(shape) != nd or shape[:d] != head or shape[d + 1:] != tail):
            return None
        total += 1 if stacked else shape[d]
        count += n
        runs.append(run)
    outer = _prod(head) if d else 1
    # (the compiled join: one copy per row of each run into a fresh buffer; large ones too where
    # the runs are cut into rows of 256 bytes or more, whose copies NumPy's concatenate makes by
    # memcpy at a speed that depends on the buffers' offsets: see kernels/_row_copy.h. Shorter
    # rows stay with NumPy: a row of one element per run, dstack's, ran 4x slower here.)
    k = joiner() if count * dtype.itemsize <= _JOIN_BYTES else None
    if k is None and outer > 1 and (min(len(r) for r in runs) // outer * dtype.itemsize >= _ROW_JOIN_MIN
                                    or _interleaved_pair(runs, outer, dtype.itemsize)):
        k = joiner()
    if k is not None:
        flat = _empty(count, dtype.numpy)
        k.join(flat, runs, outer)
    elif outer == 1:
        flat = _concatenate(runs)
    else:  # (reshape(-1) of the C-ordered result is a view of its buffer)
        flat = _concatenate([r.reshape(outer, -1) for r in runs], axis=1).reshape(-1)
    return adopted(flat, _cinfo[head + (total,) + tail][2], dtype)
