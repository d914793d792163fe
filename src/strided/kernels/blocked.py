"""Blocked copies: ``dest[...] = source`` between two layouts whose memory orders disagree.

A copy whose destination runs contiguously along one dim and whose source runs along another
(``t.t().contiguous()``, a permuted ``clone()``, ``copy_`` from a transposed tensor) walks one of
the two with a large stride. NumPy's ``copyto`` walks in the destination's order, so each source
element read sits on its own cache line, and that line is gone by the time the walk comes back
for its neighbour: 10-13x a memcpy of the same bytes for float32, 4-6x for float64 (measured on a
transposed 32 MB tensor, where PyTorch takes 5-7x and 4-5x).

:func:`copy_into` instead cuts the destination's contiguous dim (and any dims between it and the
source's contiguous dim, in the destination's order) into short strips and copies strip by strip,
one ``np.copyto`` each; the source's contiguous dim and the dims outside it stay whole inside
each call. Inside a strip NumPy's walk still follows the destination, but now each step of the
source's contiguous dim touches only :data:`STRIP` source lines, which stay in L1 for the next 64
bytes' worth of steps: every source line is read from memory once. Measured (thread CPU time)
on 32-64 MB transposes and 3-d permutes, against a memcpy of the same bytes into existing memory:
float32 3-4x (NumPy's own copy 10-13x, PyTorch 5-7x), float64 2-2.5x (NumPy 4-6x), complex128
about 1.6x. Elements of 1 and 2 bytes stay slow (int8 about 10x, float16 6x, from 20x and 10x):
there NumPy's per-element cost, not the cache, sets the time. The values, the destination's
layout and the casting are exactly ``np.copyto``'s: only the order in which elements are visited
changes.

Where it is built, a compiled kernel (:mod:`.native`: C tiles with SSE2, AVX2 or AVX-512 register
transposes) takes the copies with no cast instead, from :data:`strided.kernels.native.MIN_BYTES` (256 KB):
measured on a loaded 2-core machine, copy_ of a 32 MB transpose into existing memory, int8
3.4-3.9x a memcpy (strips 8-9x), int16 2.9-3x (5.7-6.4x), float32 2.3x (2.7-2.8x), float64 2.1-2.4x
(2.2-2.4x), complex128 2x (2.1x). The strips remain for casts and for machines without a compiler.

The dims are first coalesced (dims that are adjacent in both arrays' memory orders merge), so a
3-d permute that moves one dim behind two others is the 2-d transpose it really is. Below
:data:`MIN_BYTES` (or the kernel's threshold), or when both arrays already run along the same
dim, one plain ``np.copyto`` is as fast and is what runs.

The caller guarantees that ``source`` does not overlap ``dest`` (several calls: a later one would
read what an earlier one wrote; NumPy buffers an overlapping source only within one call).

>>> src = np.arange(12.0).reshape(3, 4)
>>> dest = np.empty((4, 3))
>>> copy_into(dest, src.T, min_bytes=0)
>>> bool((dest == src.T).all())
True
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from . import native

# The destination's elements per source step in one strip (see the module doc): 64 to 256
# measured alike on 32 MB float32 and float64 transposes (16 or 32: the inner loop is too short
# and NumPy's per-loop cost shows, 1.5-2x slower; 512: the lines no longer stay in L1, 2x slower).
STRIP = 128
# Below this many bytes (of the destination, and of the source's distinct elements) the copy
# fits in L2 and the single plain call wins: measured on transposes, strips are 1.1-1.3x slower
# at 1 MB and 0.6-0.9x (faster) from 2 MB, for float32, float64 and complex128.
MIN_BYTES = 2 << 20
# The fewest elements one strip's call copies when the source's contiguous dim is short (a
# (4, n) from an (n, 4).T): a strip widens past STRIP rather than pay a Python call per few
# hundred elements; its source lines (a few per step) still stay in L2.
MIN_CALL = 1 << 15

_copyto = np.copyto


def copy_into(dest: np.ndarray, source: Any, min_bytes: int | None = None) -> None:
    """``np.copyto(dest, source, casting="unsafe")``, blocked when the memory orders disagree.

    ``source``: a NumPy array broadcastable to ``dest.shape``, or a scalar; it must not overlap
    ``dest``. ``min_bytes``: the fewest bytes of ``dest``, and of the source's distinct elements,
    that are copied blocked (default: :data:`MIN_BYTES` for the NumPy strips,
    :data:`strided.kernels.native.MIN_BYTES` for the compiled kernel, which takes same-dtype
    copies only and wins from smaller sizes).
    """
    if source.__class__ is np.ndarray and dest.flags.c_contiguous and source.flags.c_contiguous \
            and source.shape == dest.shape and source.dtype == dest.dtype:
        # (one run on both sides, no cast: the plan below would answer "one call" after ~5 us of
        # Python; 2^20 float32 clone 117-124 -> 109-116 us, NumPy's copy 96-100)
        _copyto(dest, source, casting="unsafe")
        return
    limit = MIN_BYTES if min_bytes is None else min_bytes
    fast_limit = native.MIN_BYTES if min_bytes is None else min_bytes
    nbytes = dest.nbytes
    # (the size first: small copies, most of them, pay no more than this test)
    if nbytes >= (limit if limit < fast_limit else fast_limit) and dest.size and type(source) is np.ndarray \
            and source.ndim:
        if dest.flags.f_contiguous and source.flags.f_contiguous and source.shape == dest.shape \
                and source.dtype == dest.dtype:
            # (one run on both sides in one memory order, a transpose's clone: NumPy's copy walks
            # it as one run; the plan below found the same after its checks, 2^20 float32 of a
            # transposed tensor(t) 1.06-1.13x torch's)
            _copyto(dest, source, casting="unsafe")
            return
        fast = native.takes(dest, source)
        if not fast and nbytes >= fast_limit and _cast_then_copy(dest, source, fast_limit):
            return
        if fast and fast_limit < limit:
            limit = fast_limit
        if nbytes >= limit:
            plan = _plan(dest, source, limit, fast)
            if plan is not None:
                source, order, groups, b = plan
                if fast:
                    native.copy(dest, source, groups)
                    return
                views = _strip_views(dest, source, order, groups, b)
                if views is not None:
                    d, s, chunks = views
                    for key in _keys(d.shape, chunks):
                        _copyto(d[key], s[key], casting="unsafe")
                    return
    _copyto(dest, source, casting="unsafe")


# The casts that _cast_then_copy makes in the source's own order: (source kinds, destination
# kinds). Each is a function of the element alone, which NumPy's contiguous and strided cast
# loops compute alike (int to float: the rounding to nearest of the one conversion; float to
# float, int to int, bool: exact, rounded or wrapped). Left out: float to int (an out-of-range
# value is undefined in C and the loops may differ), complex sources (NumPy's ComplexWarning),
# float16 destinations (NumPy's half conversion differs by loop: software or F16C), uint64 to
# float (no x86 instruction before AVX-512: a compiler's vectorized emulation may round otherwise).
_CAST_FIRST = {"b": "biufc", "i": "iufc", "u": "iufc", "f": "fc"}


def _cast_then_copy(dest: np.ndarray, source: np.ndarray, limit: int) -> bool:
    """``np.copyto(dest, source, casting="unsafe")`` for a ``source`` of another dtype whose memory
    order disagrees with ``dest``'s: the cast first, into a temporary of ``dest``'s dtype laid out
    in ``source``'s memory order (one walk of both in that order, NumPy's contiguous cast loop),
    then the compiled same-dtype blocked copy of that into ``dest``. The same values as NumPy's
    strips (the cast is elementwise, see :data:`_CAST_FIRST`) at a third of their cost: a
    transposed 2^20-element int64 source into float32, 3.1 ms -> 0.6 ms. True when done; False
    (nothing written) where it does not apply: a cast outside :data:`_CAST_FIRST`, a broadcast
    source, the compiled copy off or refusing, or orders that agree (one plain call is best)."""
    if type(source) is not np.ndarray or source.dtype == dest.dtype or source.shape != dest.shape \
            or 0 in source.strides \
            or dest.dtype.char == "e" or dest.dtype.kind not in _CAST_FIRST.get(source.dtype.kind, "") \
            or (source.dtype.kind == "u" and source.itemsize == 8 and dest.dtype.kind in "fc"):
        return False
    if _plan(dest, source, limit, True) is None:
        return False  # (orders that agree, before any temporary: a freed 8 MB one costs the next
        # allocation its pages again, a transposed-layout to(float64) 0.2 -> 1.3 ms)
    cast = np.empty_like(source, dtype=dest.dtype, order="K")  # (the source's memory order, dense)
    if not native.takes(dest, cast):
        return False
    plan = _plan(dest, cast, limit, True)
    if plan is None:
        return False
    _copyto(cast, source, casting="unsafe")
    native.copy(dest, plan[0], plan[2])
    return True


# row_major's smallest copied source: below it NumPy's own copy is as fast as the blocked one
ROW_MAJOR_MIN = 1 << 12


def row_major(src: np.ndarray) -> np.ndarray:
    """``src`` itself when it is C-contiguous or smaller than :data:`ROW_MAJOR_MIN` elements (the
    caller's NumPy call reads it as it is), else a new row-major copy made by :func:`copy_into` (a
    transposed 2^20-element float32 source in about 1 ms, where NumPy's ``reshape`` or boolean
    indexing copy takes 5-7 ms). A temporary for a kernel to read: the caller reports nothing to
    the copy ledger for it (as for the NumPy copy it replaces)."""
    if src.flags.c_contiguous or src.size < ROW_MAJOR_MIN:
        return src
    dense = np.empty(src.shape, src.dtype)
    copy_into(dense, src)
    return dense


def _strips(dest: np.ndarray, source: np.ndarray, limit: int
            ) -> tuple[np.ndarray, np.ndarray, list[int]] | None:
    """Views of ``dest`` and ``source`` over their coalesced dims in the destination's memory order
    (outermost first), and the chunk length of each dim for the strips; None where one call is
    best (:func:`_plan`)."""
    plan = _plan(dest, source, limit)
    return None if plan is None else _strip_views(dest, *plan)


# _plan's answers for a source of the destination's own shape, keyed on the two layouts, the
# item sizes and the arguments (large copies repeat their layouts; the plan is ~3.5 us of Python)
_plans: dict[tuple, Any] = {}


def _plan(dest: np.ndarray, source: np.ndarray, limit: int, reversed_lines: bool = False
          ) -> tuple[np.ndarray, list[int], list[tuple[int, int, int]], int] | None:
    """:func:`_planned`'s answer, remembered where ``source`` has ``dest``'s shape (the answer is
    a function of the shapes, strides, item sizes and arguments only)."""
    if source.shape != dest.shape:
        return _planned(dest, source, limit, reversed_lines)
    key = (dest.shape, dest.strides, source.strides, dest.itemsize, source.itemsize, limit, reversed_lines)
    got = _plans.get(key, False)
    if got is False:
        plan = _planned(dest, source, limit, reversed_lines)
        got = None if plan is None else plan[1:]
        if len(_plans) >= 1024:
            _plans.clear()
        _plans[key] = got
    return None if got is None else (source, *got)


def _planned(dest: np.ndarray, source: np.ndarray, limit: int, reversed_lines: bool = False
             ) -> tuple[np.ndarray, list[int], list[tuple[int, int, int]], int] | None:
    """(``source`` broadcast to ``dest.shape``, the dims in the destination's memory order, their
    coalesced groups (size, dest stride, source stride), the group the source runs along); None
    where one call is best: the two run along the same dim, the source along none, the
    destination may write one location twice, or the source's own elements (a broadcast one
    repeats them) take less than ``limit`` bytes and stay in cache anyway. ``reversed_lines``
    (the compiled kernel copies): also where the two run along the same dim, the source
    backwards one element at a time (a flip: the kernel reverses its lines in registers, NumPy
    element by element)."""
    if source.shape != dest.shape:
        if source.ndim > dest.ndim:
            return None  # (leading 1s, which np.copyto drops and broadcast_to refuses)
        try:
            source = np.broadcast_to(source, dest.shape)
        except ValueError:
            return None  # np.copyto says why, in its words, as before
    order, groups = _coalesced(dest.shape, dest.strides, source.strides)
    # (the source backwards along the destination's own last dim, elements the kernel reverses)
    backwards = reversed_lines and groups and groups[-1][1] == dest.itemsize == -groups[-1][2] \
        and dest.itemsize in (4, 8)
    if len(groups) < 2 and not backwards:
        return None
    shape = tuple(n for n, _, _ in groups)
    distinct = 1
    for n, _, s in groups:
        distinct *= n if s else 1
    if distinct * source.itemsize < limit:
        return None
    b = _innermost(shape, tuple(s for _, _, s in groups))
    if b is None or not _disjoint(groups, dest.itemsize):
        return None
    if b == len(shape) - 1 and not backwards and not (reversed_lines and groups[-1][1] == groups[-1][2] == dest.itemsize):
        return None  # (the kernel takes runs shared by both: it folds a short one into its element)
    return source, order, groups, b


def _strip_views(dest: np.ndarray, source: np.ndarray, order: list[int], groups: list[tuple[int, int, int]],
                 b: int) -> tuple[np.ndarray, np.ndarray, list[int]] | None:
    """The views and chunk lengths of the NumPy strips for a :func:`_plan` (None: one plain call)."""
    shape = tuple(n for n, _, _ in groups)
    try:  # (splitting into merged dims never copies: copy=False makes NumPy refuse rather than copy)
        d_view = dest.transpose(order).reshape(shape, copy=False)
        s_view = source.transpose(order).reshape(shape, copy=False)
    except ValueError:  # pragma: no cover - the merge rule is NumPy's own; kept as a guard
        return None
    # Dims inside the source's contiguous dim (in the destination's order) are cut, from the
    # innermost out, until a strip holds STRIP elements; the others stay whole.
    chunks = list(shape)
    whole = 1  # the elements of one strip step: the dims outside the cut ones stay whole
    for n in shape[:b + 1]:
        whole *= n
    room = max(STRIP, MIN_CALL // whole)  # (few whole elements: wider strips, fewer calls)
    for d in range(len(shape) - 1, b, -1):
        chunks[d] = max(1, min(shape[d], room))
        room //= chunks[d]
    return d_view, s_view, chunks


def _coalesced(shape: tuple[int, ...], d_strides: tuple[int, ...], s_strides: tuple[int, ...]
               ) -> tuple[list[int], list[tuple[int, int, int]]]:
    """The dims longer than 1 in the destination's memory order (outermost first), and the groups
    (size, dest stride, source stride) they merge into: a dim merges into the next outer one when
    both arrays step over it exactly as over the whole inner dim (NumPy's no-copy reshape rule)."""
    order = sorted((d for d in range(len(shape)) if shape[d] > 1), key=lambda d: -abs(d_strides[d]))
    order += [d for d in range(len(shape)) if shape[d] <= 1]  # (size 1: merged away by the reshape)
    groups: list[tuple[int, int, int]] = []
    for d in order:
        n = shape[d]
        if n <= 1:
            continue
        if groups:
            gn, gd, gs = groups[-1]
            if gd == n * d_strides[d] and gs == n * s_strides[d]:
                groups[-1] = (gn * n, d_strides[d], s_strides[d])
                continue
        groups.append((n, d_strides[d], s_strides[d]))
    return order, groups


def _disjoint(groups: list[tuple[int, int, int]], itemsize: int) -> bool:
    """Whether the destination's elements are all distinct memory (each dim steps past the whole
    of the dims inside it), so that the order of the writes cannot change what is left: a
    destination that may write one location twice takes the single call, as before."""
    inner = itemsize  # bytes spanned by the dims inside (none: one element)
    for n, d, _ in reversed(groups):
        d = -d if d < 0 else d
        if d < inner:
            return False
        inner = d * n
    return True


def _innermost(shape: tuple[int, ...], strides: tuple[int, ...]) -> int | None:
    """The dim with the smallest nonzero stride (None when every stride is 0: a repeated value)."""
    best = None
    best_stride = 0
    for d, s in enumerate(strides):
        s = -s if s < 0 else s
        if s and (best is None or s < best_stride):
            best, best_stride = d, s
    return best


def _keys(shape: tuple[int, ...], chunks: list[int]) -> Any:
    """The index tuples of the strips: every dim cut into ``chunks`` (a whole dim: one slice)."""
    whole = slice(None)
    axes = [[whole] if c >= n else [slice(i, i + c) for i in range(0, n, c)] for n, c in zip(shape, chunks)]
    return itertools.product(*axes)
