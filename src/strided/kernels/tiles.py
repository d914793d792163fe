"""Blocked walks: one ufunc call over operands whose memory orders disagree, walked in tiles.

When the output and an input run contiguously along different dims (``M.T + M``: the output
follows ``M.T``, column-major, while ``M`` is row-major), NumPy's iterator finds no axis order
that suits every operand and keeps the logical (C) order, so one or two operands are walked
with a large stride and every element misses the cache (2-3x NumPy's own time for ``M + M``).
PyTorch's TensorIterator, and :func:`strided.kernels.blocked.copy_into` for copies, walk such
mixes in cache-sized blocks instead. Here the tiles are made without a Python loop: each operand is viewed
(zero-copy) with the two conflicting dims split into (blocks, tile) and the dims ordered
``rest..., a-blocks, b-blocks, b-tile, a-tile`` (``a``: the output's contiguous dim, ``b``: the
other operand's), and ``order="C"`` tells the ufunc to walk exactly that order. Sizes that are
not a multiple of the tile leave at most three edge regions, each one more call of the same kind.

When only one input runs against the output and nothing is cast (or only into the output's
dtype, that input already of it), a faster way is taken first (:func:`_through_out`): that input
is copied into the output's own memory by a blocked copy (:mod:`.blocked`), and one plain call
then finds every operand in the output's order. :func:`unary_into` does the same for ``sqrt`` and
``abs`` into an ``out=`` of another order.

Only the walk changes: the output keeps its layout, values are the ufunc's own (bit for bit), and
no new memory is used, so the copy ledger sees nothing. Several calls read an input after earlier
calls wrote the output, so an input that may share memory with the output (other than the output
itself, read and written element by element) takes the single plain call, where NumPy reads
overlapping inputs before writing.

>>> m = np.arange(9.0).reshape(3, 3)
>>> out = np.empty((3, 3), order="F")  # column-major, as m.T: m is walked against its order
>>> ufunc_into(np.add, (m.T, m), out, {})
>>> bool((out == m.T + m).all())
True
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import native
from .blocked import copy_into

# Tile sizes (elements), measured on a (2048, 2048) float32 ``M.T + M`` and a permuted
# (256, 64, 128) add: 256 along the output's contiguous dim (long runs for the two streams that
# agree) by 64 along the other operand's (its 256 cache lines stay in L1 over the 64 steps).
TILE_A = 256
TILE_B = 64
# Below this many elements the plain call is already cheap and the plan would cost more.
MIN_NUMEL = 1 << 16

_reshape = np.reshape
_may_share = np.may_share_memory


# The ufuncs whose every element is one correctly rounded operation (or exact), so NumPy's
# contiguous (SIMD) loop and its strided loop give the same bits: only these are walked in
# tiles or through the output; the others (complex multiply and divide, the transcendental
# ufuncs: their SIMD loops differ from the strided loop in the last bit — complex64 multiply,
# found by tests/test_blocked_copies.py) take the one plain call, bits as NumPy gives them.
EXACT = frozenset({np.add, np.subtract, np.multiply, np.true_divide, np.maximum, np.minimum, np.fmax, np.fmin,
                    np.equal, np.not_equal, np.less, np.less_equal, np.greater, np.greater_equal, np.logical_and,
                    np.logical_or, np.logical_xor, np.bitwise_and, np.bitwise_or, np.bitwise_xor, np.copysign})


def ufunc_into(ufunc: np.ufunc, inputs: tuple[Any, ...], out: np.ndarray, kwargs: dict[str, Any]) -> None:
    """``ufunc(*inputs, out=out, **kwargs)``, walked in tiles when the memory orders disagree
    (for the :data:`EXACT` ufuncs on real, integer and bool dtypes; one plain call otherwise).

    ``inputs`` are NumPy arrays that broadcast to ``out.shape`` or NumPy/Python scalars.
    The caller silences floating-point warnings.
    """
    if out.size >= MIN_NUMEL and ufunc in EXACT and out.dtype.kind in "biuf":
        pair = _conflict(inputs, out)
        if pair is not None:
            if not (_fused_2d(ufunc, inputs, out, kwargs) or _through_out(ufunc, inputs, out, kwargs)):
                _tiled(ufunc, inputs, out, kwargs, *pair)
            return
    ufunc(*inputs, out=out, **kwargs)


# The unary ufuncs whose every element is one correctly rounded operation or exact (sqrt, |x|),
# so NumPy's contiguous and strided loops give the same bits: only these go through the output
# (:func:`unary_into`). (np.negative is not here: NumPy 2.4's in-place negative misreads some
# strides, see strided.kernels.elementwise.neg_kernel; exp, log, sin, ...: their SIMD loops are
# NumPy's build's to choose, and may differ from the strided loop in the last bit.)
EXACT_UNARY = frozenset({np.sqrt, np.absolute})


def unary_into(ufunc: np.ufunc, x: np.ndarray, out: np.ndarray) -> None:
    """``ufunc(x, out=out)``; when ``x`` runs against ``out``'s memory order (an :data:`EXACT_UNARY`
    ufunc, one dtype, at least :data:`MIN_NUMEL` elements, no shared memory), ``x`` is first copied
    into ``out`` by the blocked copy (:func:`strided.kernels.blocked.copy_into`) and the ufunc
    then runs in place, walked in ``out``'s order: ``sqrt(x.t(), out=o)`` of a 32 MB float32 x,
    about 3.3x a memcpy against 5.5x for NumPy's one call walking ``x`` across its rows. The caller
    silences floating-point warnings.

    >>> m = np.arange(6.0).reshape(2, 3)
    >>> out = np.empty((3, 2))
    >>> unary_into(np.sqrt, m.T, out)
    >>> bool((out == np.sqrt(m.T)).all())
    True
    """
    if (out.size >= MIN_NUMEL and ufunc in EXACT_UNARY and x.dtype == out.dtype and x.ndim == out.ndim
            and _conflict((x,), out) is not None and not _may_share(x, out)):
        if ufunc is np.sqrt and _fused_2d(ufunc, (x,), out, {}):
            return
        copy_into(out, x)
        ufunc(out, out=out)
        return
    ufunc(x, out=out)


# The ops of the compiled one-pass kernel (kernels/_copykernel.c ``apply2d``): SSE2's IEEE
# operations, the bits NumPy's loops give.
_FUSED_OPS = {np.add: 0, np.subtract: 1, np.multiply: 2, np.true_divide: 3, np.sqrt: 4}
_FLOAT32, _FLOAT64 = np.dtype(np.float32), np.dtype(np.float64)
_FUSED_DTYPES = frozenset({_FLOAT32, _FLOAT64})


def _fused_2d(ufunc: np.ufunc, inputs: tuple[Any, ...], out: np.ndarray, kwargs: dict[str, Any]) -> bool:
    """Compute a 2-d float32/float64 ``+ - * /`` (two inputs) or ``sqrt`` (one) whose inputs run
    along or across the output's rows in one cache-blocked pass (the compiled ``apply2d``: each
    input tile transposed in registers where it runs across, the op on whole vectors): every
    operand read and written once, where :func:`_through_out` copies the input into the output
    first and reads the output again. Measured on 32 MB float32 (thread CPU time against a
    memcpy): ``add(x.t(), y, out=o)`` 2.3x against 3.0x through the output, ``x.t() + y`` into new
    memory 3.5x against 3.8x, ``sqrt(x.t(), out=o)`` 2.6x against 3.0x; float64 3.4x against 3.6x.
    Where the CPU has AVX-512F the kernel's blocks are 16 x 16 floats (8 x 8 doubles), one 64-byte
    register per row, started on whole cache lines (session 16, C harness against the 4 x 4 SSE
    walk: ``add(x.t(), y, out=o)`` 3.1-3.3x -> 2.6-2.9x, 64 MB float64 with a widened float32
    input 4.4-4.7x -> 3.1-3.5x, ``x.t() + y`` into new memory 4.8-5.1x -> 4.3-4.8x).
    The bits are NumPy's: SSE2's add, sub, mul, div and sqrt are the IEEE operations NumPy's loops
    perform; where both operands of ``+`` or ``*`` are NaN the first one's comes out, quieted, as
    from NumPy's contiguous loop (its strided loops may give the second's: which of two NaNs an
    IEEE operation returns is unspecified, and is NumPy's compiler's choice there). The caller has checked that no input may
    share memory with ``out`` other than as ``out`` itself.

    A cast into a float64 output (``kwargs`` exactly ``{"dtype": float64, "casting": "unsafe"}``,
    what :func:`strided.kernels.binary_into` passes for a float32 operand of a float64 op) is
    taken too: its float32 inputs are read and widened in the kernel (exact, as NumPy's cast), so
    the op sees the float64 values NumPy's loop would. 64 MB float64 ``x.t() + y`` with a float32
    ``x``: the widening walk reads 32 MB instead of a float64 copy's 64 MB written and read again.

    False (nothing done) otherwise: no kernel (not built, ``STRIDED_NATIVE=0``, disabled in this
    context), another ufunc, another cast (``kwargs``), another dtype or byte order, another ndim or a
    broadcast input, an operand that runs along neither dim, a misaligned one, an output whose
    rows overlap."""
    op = _FUSED_OPS.get(ufunc)
    if op is None or len(inputs) != (1 if op == 4 else 2) or out.ndim != 2 or out.dtype not in _FUSED_DTYPES:
        return False
    # A cast into a float64 output (``dtype=float64``): its float32 inputs are read widened.
    cast = bool(kwargs)
    if cast and not (out.dtype == _FLOAT64 and _cast_into_out(kwargs, out.dtype)):
        return False
    itemsize = out.itemsize
    if not out.dtype.isnative or not out.flags.aligned or not out.flags.writeable:
        return False
    if out.strides[1] != itemsize:  # (the output runs along dim 0: the same plane, transposed)
        if out.strides[0] != itemsize:
            return False
        out = out.T
        inputs = tuple(x.T if type(x) is np.ndarray else x for x in inputs)
    nb, na = out.shape
    if nb > 1 and abs(out.strides[0]) < na * itemsize:
        return False  # (rows that overlap: the output's elements are not distinct)
    operands = []
    widen = 0
    for k, x in enumerate(inputs):
        if type(x) is not np.ndarray or x.shape != out.shape or not x.flags.aligned:
            return False
        if x.dtype != out.dtype:
            if not cast or x.dtype != _FLOAT32:
                return False
            widen |= 1 << k
        unit = x.itemsize
        if x.strides[1] == unit:
            operands.append((_address(x), x.strides[0], False))
        elif x.strides[0] == unit:
            operands.append((_address(x), x.strides[1], True))
        else:
            return False
    kernel = native.kernel() if native.active() else None
    if kernel is None:
        return False
    if op == 4:
        operands.append(operands[0])  # (y unused)
    (xa, xs, xt), (ya, ys, yt) = operands
    kernel.apply2d(op, itemsize, nb, na, _address(out), out.strides[0], xa, xs, xt, ya, ys, yt, widen)
    return True


def _address(a: np.ndarray) -> int:
    return int(a.__array_interface__["data"][0])


def _through_out(ufunc: np.ufunc, inputs: tuple[Any, ...], out: np.ndarray, kwargs: dict[str, Any]) -> bool:
    """Compute through the output when one input alone runs against it and nothing is cast: copy
    that input into ``out`` (a blocked copy, :func:`strided.kernels.blocked.copy_into`), then one
    plain call with ``out`` in its place, every operand now walked in the output's order. About
    1.5x faster than the tiled walk (measured on 32 MB ``M.T + N``: 3.7x a memcpy against 6.0x
    for float32, 3.0x against 4.5x for float64). Tried and not kept (32 MB float32 ``x.T + y``,
    new output, against 4.0-4.4x here): the input copied band by band into a cache-sized buffer
    and each band computed from it, 4.7-5.4x (the copy's cost is its reads across the rows, not
    its writes); the ufunc fused into the compiled copy, tile by tile in cache, 3.7-4.2x (within
    the noise). The values are exact: the copy has the input's dtype, so the ufunc runs the same
    loop on the same bits.

    A cast is taken when it is one into the output's own dtype (``kwargs`` exactly
    ``{"dtype": out.dtype, "casting": "unsafe"}``, what :func:`strided.kernels.binary_into` passes
    when an input's dtype differs from the compute dtype the output holds) and the input against
    the output already has that dtype: its copy is exact and the ufunc sees the same input dtypes,
    so it picks the same loop and casts the other inputs as before. (32 MB float32 ``x.t() + y``
    with a float64 ``y``: 16x a 32 MB memcpy, from 20x in the tiled walk, whose buffered casts
    over 4-d tile views cost most.) An input against the output that needs the cast is not
    copied with it: the ufunc's loop for the new input dtypes could differ (NumPy resolves
    ``dtype=`` from the inputs' dtypes).

    False (nothing done) otherwise: another cast (a comparison's signature, another output
    dtype), inputs of another dtype without a cast, a complex input, a second input against the
    output's order, or any other input that shares memory with ``out`` (the copy would
    overwrite it before it is read)."""
    if kwargs and not _cast_into_out(kwargs, out.dtype):
        return False
    a = _innermost(out.shape, out.strides, out.ndim)
    ndim = out.ndim
    against = None
    for k, x in enumerate(inputs):
        if type(x) is not np.ndarray or not x.ndim:
            continue
        d = _innermost(x.shape, x.strides, ndim)
        if d is not None and d != a:
            if against is not None or x.dtype != out.dtype:
                return False  # two inputs against the output (the tiled walk serves both), or a cast
            against = k
        elif x.dtype != out.dtype and not (kwargs and x.dtype.kind in "biuf"):
            return False
        elif _may_share(x, out):
            return False  # (out itself, or a view of it: the copy would overwrite it)
    if against is None:
        return False
    copy_into(out, inputs[against])
    ufunc(*inputs[:against], out, *inputs[against + 1:], out=out, **kwargs)
    return True


def _cast_into_out(kwargs: dict[str, Any], dtype: np.dtype) -> bool:
    """Whether ``kwargs`` only ask the ufunc to compute in ``dtype`` (the output's), casting its
    inputs to it: ``{"dtype": dtype, "casting": "unsafe"}``."""
    compute = kwargs.get("dtype")
    return len(kwargs) == 2 and kwargs.get("casting") == "unsafe" and compute is not None \
        and np.dtype(compute) == dtype


def against_every_input(shape: tuple[int, ...], out_strides: tuple[int, ...],
                        input_strides: tuple[tuple[int, ...], ...]) -> bool:
    """Whether an output of ``shape`` and ``out_strides`` runs against every input of that shape
    (``input_strides``) that has a memory order: its contiguous dim is none of theirs. Then
    computing straight into it is a walk against every operand, slower than a fresh result in
    the inputs' order plus one blocked copy (2048x2048 float32 ``add(x, y, out=o.t())``: 7.4x
    a memcpy against 3.8x; ``lt`` into a bool ``out``: 5.9x against 1.6x).

    >>> against_every_input((3, 4), (1, 3), ((4, 1), (0, 1)))
    True
    >>> against_every_input((3, 4), (1, 3), ((4, 1), (1, 3)))
    False
    """
    ndim = len(shape)
    a = _innermost(shape, out_strides, ndim)
    if a is None:
        return False
    found = False
    for strides in input_strides:
        d = _innermost(shape, strides, ndim)
        if d == a:
            return False
        found = found or d is not None
    return found


def fused_against_both(ufunc: np.ufunc, shape: tuple[int, ...], out_strides: tuple[int, ...],
                       input_strides: tuple[tuple[int, ...], ...]) -> bool:
    """Whether :func:`_fused_2d` would compute a two-input float op whose output runs against both
    inputs straight into that output (the caller has checked that the output and both inputs
    have one dtype, float32 or float64, and that the compiled kernel is on): a 2-d ``+ - * /``
    of at least :data:`MIN_NUMEL` elements (below, :func:`ufunc_into` makes one plain call)
    whose output and inputs each have a unit (element) stride in one dim. Then
    :func:`against_every_input`'s fresh result plus a blocked write is slower than the kernel's
    one pass, which reads both inputs across the output's rows in register tiles (32 MB float32
    ``add(x.t(), y.t(), out=o)``, C harness, thread CPU time against a memcpy: 1.9-2.2x, against
    4.0x through a fresh result).

    >>> fused_against_both(np.add, (512, 256), (1, 512), ((256, 1), (256, 1)))
    True
    >>> fused_against_both(np.maximum, (512, 256), (1, 512), ((256, 1), (256, 1)))
    False
    >>> fused_against_both(np.add, (3, 4), (1, 3), ((4, 1), (4, 1)))  # (small: one plain call)
    False
    """
    if (_FUSED_OPS.get(ufunc, 4) == 4 or len(shape) != 2 or len(input_strides) != 2 or min(shape) < 2
            or shape[0] * shape[1] < MIN_NUMEL):
        return False
    return all(1 in (s[0], s[1]) for s in (out_strides, *input_strides))


def _innermost(shape: tuple[int, ...], strides: tuple[int, ...], ndim: int) -> int | None:
    """The dim (numbered as in an ``ndim``-d array, shapes aligned right) with the smallest
    nonzero byte stride among dims longer than 1; None if every dim repeats or is 1 long."""
    best = None
    best_stride = 0
    lead = ndim - len(shape)
    for d, (n, s) in enumerate(zip(shape, strides)):
        if n > 1 and s:
            s = -s if s < 0 else s
            if best is None or s < best_stride:
                best, best_stride = d + lead, s
    return best


def _conflict(inputs: tuple[Any, ...], out: np.ndarray) -> tuple[int, int] | None:
    """``(a, b)``: the output's contiguous dim and the first input's that differs, when no input
    may overlap the output (except the output itself); else None."""
    ndim = out.ndim
    shape = out.shape
    a = _innermost(shape, out.strides, ndim)
    if a is None:
        return None
    b = None
    for x in inputs:
        if type(x) is not np.ndarray or not x.ndim:
            continue
        d = _innermost(x.shape, x.strides, ndim)
        if d is not None and d != a:
            b = d
            break
    if b is None:
        return None
    for x in inputs:
        if type(x) is np.ndarray and _may_share(x, out) and not _same_view(x, out):
            return None  # several calls would read what an earlier one wrote
    return a, b


def _same_view(x: np.ndarray, out: np.ndarray) -> bool:
    return (x.shape == out.shape and x.strides == out.strides
            and x.__array_interface__["data"][0] == out.__array_interface__["data"][0])


def _tiled(ufunc: np.ufunc, inputs: tuple[Any, ...], out: np.ndarray, kwargs: dict[str, Any],
           a: int, b: int) -> None:
    """The blocked walk over the whole shape: the main block grid, then up to three edges."""
    shape = out.shape
    ndim = out.ndim
    inputs = tuple(np.broadcast_to(x, shape) if type(x) is np.ndarray and x.shape != shape else x
                   for x in inputs)
    out_strides = out.strides
    rest = sorted((d for d in range(ndim) if d != a and d != b), key=lambda d: -abs(out_strides[d]))
    na, nb = shape[a], shape[b]
    ta, tb = min(TILE_A, na), min(TILE_B, nb)
    ma, mb = na - na % ta, nb - nb % tb  # the parts covered by whole tiles
    for lo_a, hi_a, t_a in ((0, ma, ta), (ma, na, na - ma)):
        for lo_b, hi_b, t_b in ((0, mb, tb), (mb, nb, nb - mb)):
            if hi_a > lo_a and hi_b > lo_b:
                region = [slice(None)] * ndim
                region[a] = slice(lo_a, hi_a)
                region[b] = slice(lo_b, hi_b)
                key = tuple(region)
                views = [_blocks(x[key], a, b, t_a, t_b, rest) if type(x) is np.ndarray else x
                         for x in (*inputs, out)]
                ufunc(*views[:-1], out=views[-1], order="C", **kwargs)


def _blocks(v: np.ndarray, a: int, b: int, ta: int, tb: int, rest: list[int]) -> np.ndarray:
    """``v`` (zero-copy) with dims ``a`` and ``b`` split into (blocks, tile), in the walk's order
    ``rest..., a-blocks, b-blocks, b-tile, a-tile``."""
    shape = v.shape
    split: list[int] = []
    pos = [0] * v.ndim
    for d, n in enumerate(shape):
        pos[d] = len(split)
        if d == a:
            split += [n // ta, ta]
        elif d == b:
            split += [n // tb, tb]
        else:
            split.append(n)
    # Splitting a dim never needs a copy; copy=False makes NumPy refuse rather than copy.
    blocked = _reshape(v, split, copy=False)
    return blocked.transpose([pos[d] for d in rest] + [pos[a], pos[b], pos[b] + 1, pos[a] + 1])
