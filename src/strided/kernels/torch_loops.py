"""Which elements PyTorch's CPU elementwise kernels compute in their scalar loop.

PyTorch's ``cpu_kernel_vec`` (``aten/src/ATen/native/cpu/Loops.h``) runs a vectorized function
over each inner row of the iteration in steps of ``2 * Vectorized<T>::size()`` elements and its
scalar function over the row's last ``len % step`` elements (``vectorized_loop``); a row whose
operands are neither all contiguous nor contiguous but for one stride-0 input runs the scalar
function throughout (``basic_loop``). Where the two functions round differently (float16 and
bfloat16 ``add(alpha=)``: ``vec::fmadd`` in float32 against ``self + alpha * other`` in the
reduced type, the product rounded first) the result depends on that split; this module
reproduces it:

- the rows: TensorIterator's dims, ordered by the operands' strides (``reorder_dimensions``,
  a fresh output left out of the comparison) and merged where they are contiguous together
  (``coalesce_dimensions``); a row is the first (fastest) merged dim;
- the parallel split: at ``GRAIN_SIZE`` (32768) elements or more, ``at::parallel_for`` over
  the flat iteration range cuts it into ``min(threads, ceil(n / 32768))`` equal chunks, and each
  chunk's pieces of rows are rows of their own. PyTorch's default thread count is the number of
  physical cores (``OMP_NUM_THREADS`` overrides it); strided takes ``OMP_NUM_THREADS`` or the CPUs
  this process may run on (:func:`torch_threads`), so above 32768 elements the bits match a
  PyTorch running that many threads.

The step is 32 elements for 2-byte types (measured on x86-64 PyTorch 2.13, AVX2 and AVX512
builds alike).
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence

import numpy as np

from ..layout.order import iteration_order

GRAIN_SIZE = 32768
HALF_STEP = 32  # 2 * Vectorized<Half>::size() (and BFloat16's)


def torch_threads() -> int:
    """The intra-op thread count assumed for PyTorch (see the module's note): ``OMP_NUM_THREADS``
    as the environment holds it now (a test's ``monkeypatch.setenv`` is seen), else the CPUs this
    process may run on, counted once (PyTorch fixes its own count once, at its start)."""
    env = _ENV_DATA.get(_OMP_KEY) if _ENV_DATA is not None else os.environ.get("OMP_NUM_THREADS")
    if env is not None:
        env = os.fsdecode(env) if env.__class__ is bytes else env
        if env.isdigit() and int(env) > 0:
            return int(env)
    global _CPUS
    if _CPUS is None:
        try:
            _CPUS = len(os.sched_getaffinity(0))
        except AttributeError:  # (not on Linux)
            _CPUS = os.cpu_count() or 1
    return _CPUS


# (torch_threads' reads, each large op's: os.environ.get of an absent name raises and catches a
# KeyError inside Mapping.get, ~2-4 us, and sched_getaffinity is a system call, ~2 us; piece_length
# took ~9 us of a 160 us hardsigmoid. os.environ's own dict of encoded names -- the one its
# __setitem__ / __delitem__ (monkeypatch.setenv) write -- answers in a dict lookup on POSIX.)
_ENV_DATA: dict | None = getattr(os.environ, "_data", None) if os.name == "posix" else None
_OMP_KEY = os.fsencode("OMP_NUM_THREADS")
_CPUS: int | None = None


def torch_vector_bytes() -> int:
    """The width in bytes of PyTorch's ``Vectorized<T>`` in the kernels it dispatches by CPU
    capability: 64 where it picks AVX512 (``ATEN_CPU_CAPABILITY=avx512``, or a CPU with
    avx512f, avx512bw, avx512vl and avx512dq, its condition), else 32 (AVX2). Read once; from
    /proc/cpuinfo's flags (not on Linux: 32)."""
    global _VECTOR_BYTES
    if _VECTOR_BYTES is None:
        asked = os.environ.get("ATEN_CPU_CAPABILITY", "").lower()
        if asked:
            _VECTOR_BYTES = 64 if asked == "avx512" else 32
        else:
            from .mkl_path import cpuinfo  # (a sibling kernel module, loaded when first asked)

            flags = cpuinfo()[1]
            _VECTOR_BYTES = 64 if {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= flags else 32
    return _VECTOR_BYTES


_VECTOR_BYTES: int | None = None


def parallel_chunks(numel: int, threads: int, grain: int = GRAIN_SIZE) -> int:
    """How many chunks ``at::parallel_for`` cuts a flat range of ``numel`` into with ``threads``
    threads and grain size ``grain``: one below the grain or on one thread, else
    ``min(threads, ceil(numel / grain))`` (each ``ceil(numel / chunks)`` long but the last)."""
    return 1 if numel < grain or threads <= 1 else min(threads, -(-numel // grain))


def piece_length(numel: int) -> int:
    """The length of each piece a flat run of ``numel`` elements is cut into by
    :func:`parallel_chunks` (on :func:`torch_threads` threads) but the last: ``numel`` itself
    below :data:`GRAIN_SIZE`. Each piece is a row of PyTorch's vector loop, with its own tail."""
    return numel if numel < GRAIN_SIZE else -(-numel // parallel_chunks(numel, torch_threads()))


def gelu_grain(numel: int, threads: int) -> int:
    """GeluKernelImpl's grain size (Activation.cpp): ``numel // threads`` past 16384 elements (its
    GELU_MIN_ELEMENTS_FOR_MULTI_THREADING), else :data:`GRAIN_SIZE`."""
    return max(1, numel // max(threads, 1)) if numel > 16384 else GRAIN_SIZE


def fresh_strides(shape: tuple[int, ...], inputs: Sequence[tuple[tuple[int, ...], tuple[int, ...]] | None]) -> list[int]:
    """A fresh output's strides (in elements) over ``shape``: dense, the inputs' dims fastest first
    (TensorIterator's; ``inputs`` as :func:`scalar_loop_mask`'s)."""
    out, size = [0] * len(shape), 1
    for d in iteration_order(shape, [operand_strides(shape, op) for op in inputs]):
        out[d], size = size, size * shape[d]
    return out


def operand_strides(shape: tuple[int, ...], op: tuple[tuple[int, ...], tuple[int, ...]] | None) -> list[int]:
    """An operand's strides over the broadcast ``shape`` (TensorIterator's: 0 where it broadcasts)."""
    n = len(shape)
    if op is None:
        return [0] * n
    s_shape, s_strides = op
    out = [0] * n
    for i in range(len(s_shape)):
        d = n - len(s_shape) + i
        out[d] = 0 if (s_shape[i] == 1 and shape[d] != 1) else s_strides[i]
    return out


def _loop_rows(shape: tuple[int, ...], out_strides: tuple[int, ...], fresh: bool,
               inputs: Sequence[tuple[tuple[int, ...], tuple[int, ...]] | None]) -> tuple[list[int], int, bool, int | None]:
    """TensorIterator's walk of ``shape`` (arguments as :func:`scalar_loop_mask`'s): the
    iteration order (``perm[k]``: the tensor dim at iteration dim k, 0 the fastest), the length
    of a row (the first merged dim), whether its vector loop takes the rows (every operand
    contiguous along them, or all but one stride-0 input) and that stride-0 input's index in
    ``inputs`` (None: none)."""
    ndim = len(shape)
    ins = [operand_strides(shape, op) for op in inputs]
    ops = [list(out_strides)] + ins
    compared = ins if fresh else ops
    perm = iteration_order(shape, compared)
    sizes = [shape[p] for p in perm]
    strides = [[st[p] for p in perm] for st in ops]
    # coalesce_dimensions: only the first merged dim (the row) and its strides matter here
    row, row_strides = sizes[0] if ndim else 1, [st[0] if ndim else 0 for st in strides]
    for k in range(1, ndim):
        if row == 1:
            row, row_strides = sizes[k], [st[k] for st in strides]
        elif sizes[k] == 1:
            continue
        elif all(row * rs == st[k] for rs, st in zip(row_strides, strides)):
            row *= sizes[k]
        else:
            break
    contiguous, scalar = all(s == 1 for s in row_strides), None
    if not contiguous:
        zeros = [i for i, s in enumerate(row_strides[1:]) if s == 0]
        contiguous = len(zeros) == 1 and all(s == 1 for i, s in enumerate(row_strides) if i != zeros[0] + 1)
        scalar = zeros[0] if contiguous else None
    return perm, row, contiguous, scalar


def loop_walk(shape: tuple[int, ...], out_strides: tuple[int, ...], fresh: bool,
              inputs: Sequence[tuple[tuple[int, ...], tuple[int, ...]] | None]) -> tuple[list[int], int, bool]:
    """TensorIterator's iteration order of ``shape`` (as :func:`torch_loop_order`'s), the length of
    its rows and whether its vector loop takes them (as :func:`vector_rows`), in one walk (arguments
    as :func:`scalar_loop_mask`'s): with the parallel chunks, all that decides which elements the
    scalar function computes (the compiled kernels cut a flat copy in that order at the rows)."""
    perm, row, vector, _ = _loop_rows(shape, out_strides, fresh, inputs)
    return perm, row, vector


def loop_rows(shape: tuple[int, ...], out_strides: tuple[int, ...], fresh: bool,
              inputs: Sequence[tuple[tuple[int, ...], tuple[int, ...]] | None]) -> tuple[list[int], int]:
    """TensorIterator's iteration order of ``shape`` (as :func:`torch_loop_order`'s) and the
    length of its rows (the dims merged first): what decides where each element falls in its
    vector loop (arguments as :func:`scalar_loop_mask`'s)."""
    perm, row, _, _ = _loop_rows(shape, out_strides, fresh, inputs)
    return perm, row


def torch_loop_order(shape: tuple[int, ...], out_strides: tuple[int, ...], fresh: bool,
                     inputs: Sequence[tuple[tuple[int, ...], tuple[int, ...]] | None]) -> list[int]:
    """TensorIterator's iteration order of ``shape`` (``perm[k]``: the tensor dim at iteration dim
    k, 0 the fastest; arguments as :func:`scalar_loop_mask`'s): the order :func:`loop_positions`'
    rows run in."""
    return _loop_rows(shape, out_strides, fresh, inputs)[0]


def vector_rows(shape: tuple[int, ...], out_strides: tuple[int, ...], fresh: bool,
                inputs: Sequence[tuple[tuple[int, ...], tuple[int, ...]] | None]) -> bool:
    """Whether PyTorch's vector loop takes the rows of this walk (arguments as
    :func:`scalar_loop_mask`'s); False: ``basic_loop``, its scalar function, for every element."""
    return _loop_rows(shape, out_strides, fresh, inputs)[2]


def _to_tensor_dims(flat: np.ndarray, shape: tuple[int, ...], perm: list[int]) -> np.ndarray:
    """An array over the flat iteration range (fastest iteration dim last) as an array of ``shape``."""
    ndim = len(shape)
    arr = flat.reshape([shape[p] for p in reversed(perm)])
    return np.transpose(arr, [ndim - 1 - perm.index(d) for d in range(ndim)])


def scalar_loop_mask(shape: tuple[int, ...], out_strides: tuple[int, ...], fresh: bool,
                     inputs: Sequence[tuple[tuple[int, ...], tuple[int, ...]] | None],
                     step: int = HALF_STEP, threads: int | None = None,
                     grain: int = GRAIN_SIZE) -> np.ndarray | None:
    """The elements (a bool array of ``shape``) PyTorch computes with its scalar function, or
    None where there are none. ``inputs``: each input's (shape, strides in elements), None for a
    number (a 0-d operand); ``fresh``: the output was allocated for the result (its strides then
    follow the inputs'), else it is an in-place target or ``out=``; ``grain``: the kernel's
    parallel grain size (:func:`gelu_grain` for gelu)."""
    numel = 1
    for s in shape:
        numel *= s
    if numel == 0:
        return None
    if numel == 1:
        return np.ones(shape, bool)
    perm, row, contiguous, _ = _loop_rows(shape, out_strides, fresh, inputs)
    if not contiguous:
        return np.ones(shape, bool)
    if numel < grain:  # (one chunk whatever the threads: not asked, a system call)
        chunks = 1
    else:
        chunks = parallel_chunks(numel, torch_threads() if threads is None else threads, grain)
    if chunks == 1 and row % step == 0:
        return None
    if chunks == 1:  # (each row's last row % step elements: no index arithmetic)
        mask = np.zeros((numel // row, row), bool)
        mask[:, row - row % step:] = True
    else:
        # the pieces: rows cut at the chunks' starts; each piece's last (length % step) elements
        # (found per piece, not per element: a 1M-element mask by index arithmetic took ~30 ms)
        chunk = -(-numel // chunks)
        starts = np.union1d(np.arange(0, numel, row, dtype=np.int64), np.arange(0, numel, chunk, dtype=np.int64))
        ends = np.append(starts[1:], numel)
        tails = (ends - starts) % step
        if not tails.any():
            return None
        keep = tails > 0
        first, count = ends[keep] - tails[keep], tails[keep]
        at = np.repeat(first - np.cumsum(count) + count, count) + np.arange(int(count.sum()), dtype=np.int64)
        mask = np.zeros(numel, bool)
        mask[at] = True
    return _to_tensor_dims(mask, shape, perm)


def loop_positions(shape: tuple[int, ...], out_strides: tuple[int, ...], fresh: bool,
                   inputs: Sequence[tuple[tuple[int, ...], tuple[int, ...]] | None],
                   threads: int | None = None, grain: int = GRAIN_SIZE,
                   strided_rows: bool = False) -> tuple[np.ndarray, np.ndarray, int | None] | None:
    """Each element's place in PyTorch's loops (arguments as :func:`scalar_loop_mask`'s): two
    int64 arrays of ``shape``, the element's index in its piece of a row (a row cut at the
    parallel chunks' starts) and that piece's length, and the index in ``inputs`` of the input
    the vector loop takes as a scalar (stride 0 along the rows; None: none); None where the
    vector loop takes no row (``basic_loop`` throughout: a strided row) or there is no element;
    ``strided_rows``: the places in ``basic_loop``'s rows too (the third value then None). For
    effects that depend on where in a vector block or in a scalar tail of a given length an
    element falls."""
    numel = 1
    for s in shape:
        numel *= s
    if numel == 0:
        return None
    perm, row, contiguous, scalar = _loop_rows(shape, out_strides, fresh, inputs)
    if not contiguous:
        if not strided_rows:
            return None
        scalar = None
    chunks = 1 if numel < grain else parallel_chunks(numel, torch_threads() if threads is None else threads, grain)
    idx = np.arange(numel, dtype=np.int64)
    if chunks == 1:
        pos, length = idx % row, np.full(numel, row, np.int64)
    else:
        chunk = -(-numel // chunks)
        starts = np.union1d(np.arange(0, numel, row, dtype=np.int64), np.arange(0, numel, chunk, dtype=np.int64))
        ends = np.append(starts[1:], numel)
        piece = np.searchsorted(starts, idx, side="right") - 1
        pos, length = idx - starts[piece], (ends - starts)[piece]
    return _to_tensor_dims(pos, shape, perm), _to_tensor_dims(length, shape, perm), scalar


def tail_block_mask(shape: tuple[int, ...], out_strides: tuple[int, ...], fresh: bool,
                    inputs: Sequence[tuple[tuple[int, ...], tuple[int, ...]] | None],
                    step: int, first: int, lanes: int, scalar: int | None = None) -> np.ndarray | None:
    """The elements (a bool array of ``shape``) at places ``first`` to ``first + (t - first) // lanes
    * lanes`` (exclusive) of each loop piece's tail (its last ``t = length % step`` elements) where
    PyTorch's vector loop takes the rows (arguments as :func:`scalar_loop_mask`'s): the whole
    blocks of ``lanes`` the compiler's own vector loop takes in a scalar tail after ``first``
    elements. None where there are none (or the rows are strided: ``basic_loop`` throughout;
    or, given ``scalar``, the vector loop does not take ``inputs[scalar]`` as its stride-0 input).
    Below the grain: one slice per row, no per-element index arithmetic."""
    numel = math.prod(shape)
    walk = _loop_rows(shape, out_strides, fresh, inputs) if numel else None
    if walk is None or not walk[2] or (scalar is not None and walk[3] != scalar):
        return None  # (no element, strided rows, or another input taken as the scalar)
    perm, row = walk[0], walk[1]
    if numel < GRAIN_SIZE:
        t = row % step
        count = (t - first) // lanes * lanes if t > first else 0
        if count <= 0:
            return None
        mask = np.zeros((numel // row, row), bool)
        mask[:, row - t + first : row - t + first + count] = True
        return _to_tensor_dims(mask.reshape(-1), shape, perm)
    # the pieces: rows cut at the parallel chunks' starts, found per piece as scalar_loop_mask
    # finds them (per element, through loop_positions, a 400k-element add(0.5, alpha=) took 13 ms)
    chunks = parallel_chunks(numel, torch_threads(), GRAIN_SIZE)
    chunk = -(-numel // chunks)
    if row % step == 0 and chunk % row == 0:
        return None  # (the chunks cut at rows, each of whole vectors: no piece has a tail)
    starts = np.union1d(np.arange(0, numel, row, dtype=np.int64), np.arange(0, numel, chunk, dtype=np.int64))
    ends = np.append(starts[1:], numel)
    tails = (ends - starts) % step
    counts = np.where(tails > first, (tails - first) // lanes * lanes, 0)
    keep = counts > 0
    if not keep.any():
        return None
    begin, count = (ends - tails + first)[keep], counts[keep]
    at = np.repeat(begin - np.cumsum(count) + count, count) + np.arange(int(count.sum()), dtype=np.int64)
    mask = np.zeros(numel, bool)
    mask[at] = True
    return _to_tensor_dims(mask, shape, perm)


def _element_bytes(shape: tuple[int, ...], lay_shape: Sequence[int], lay_strides: Sequence[int], offset: int,
                   itemsize: int) -> np.ndarray:
    """The byte offset in its storage of each element of a layout broadcast to ``shape`` (sizes
    aligned from the right), flat in row-major order (int64)."""
    n = len(shape)
    strides = [0] * n
    for i, (size, stride) in enumerate(zip(lay_shape, lay_strides)):
        d = n - len(lay_shape) + i
        strides[d] = 0 if (size == 1 and shape[d] != 1) else stride
    at = np.full((), offset * itemsize, np.int64)
    for d in range(n):
        at = at[..., None] + np.arange(shape[d], dtype=np.int64) * (strides[d] * itemsize)
    return at.reshape(-1)


# the elements a buffered unary kernel (*_vml_cpu) reads into its buffer at once, in bytes
VML_BUFFER_BYTES = 8 * 1024


def read_after_write(written: tuple[tuple[int, ...], tuple[int, ...], int, int],
                     read: tuple[tuple[int, ...], tuple[int, ...], int, int], copy: bool = False,
                     buffered: int | None = None) -> tuple | None:
    """Where an elementwise write into ``written`` (shape, strides, offset in elements, itemsize)
    reads ``read`` (the same, broadcast to ``written``'s shape; one storage) and PyTorch's loop
    reads an element after it has written it at another position (a vectorized row's block read
    whole before it is written): ``(read_at, element,
    written_at)`` (positions as index lists, the storage element), or None where every shared
    element is read where it is written or before it is written in the loop's order
    (TensorIterator's walk, :func:`_loop_rows`, on one thread: from :data:`GRAIN_SIZE` elements its
    threads walk chunks at once, so any element read at another position counts). A negative
    stride (no PyTorch layout: its spelling there, ``flip()``, is a copy read first) never counts;
    nor do layouts of other itemsizes meeting (a typed alias: any read of a written byte counts).
    ``copy``: the write is a copy (``copy_``, ``t[...] = v``), so an element written from itself
    keeps its value and may be read at any time. ``buffered``: PyTorch's ``*_vml_cpu`` unary
    kernels, which take each row in pieces read whole before any of it is written: a row whose
    output and input both step by one in blocks of ``buffered`` bytes (``vec::map``'s
    ``Vectorized<T>``, its last block partial; 0: one element at a time, for MKL's calls whose
    blocks are not known: left to right, so a refusal there may be one PyTorch's blocking would
    not need), any other in pieces of :data:`VML_BUFFER_BYTES` (copied into or out of a buffer);
    a later row still reads what an earlier one wrote."""
    shape, w_strides, w_offset, w_size = written
    r_shape, r_strides, r_offset, r_size = read
    if any(st < 0 for st in tuple(w_strides) + tuple(r_strides)):
        return None
    out = _element_bytes(shape, shape, w_strides, w_offset, w_size)
    into = _element_bytes(shape, r_shape, r_strides, r_offset, r_size)
    writer = None
    if w_size == r_size:
        order = np.argsort(out, kind="stable")
        ranked = out[order]
        at = np.minimum(np.searchsorted(ranked, into), ranked.size - 1)
        writer = order[at]
        elsewhere = (ranked[at] == into) & (writer != np.arange(into.size))
        if copy:
            elsewhere &= into[writer] != out[writer]
        if elsewhere.any() and into.size < GRAIN_SIZE:
            perm, row, vectorized, scalar = _loop_rows(shape, tuple(w_strides), False,
                                                       [(tuple(r_shape), tuple(r_strides))])
            when = np.arange(into.size, dtype=np.int64)
            if buffered is not None:
                piece = max(1, (buffered if vectorized and scalar is None else VML_BUFFER_BYTES) // w_size)
                when -= (when % row) % piece
            elif vectorized and row > 1:
                # a vectorized row loads a block of 2 * Vectorized<T>::size() elements before storing
                # it (64 bytes at least: AVX2's, and the generic build's 32-byte Vectorized): a read
                # in the block that writes the element is a read before the write; the row's last
                # row % block elements run one at a time (the scalar loop)
                block = max(1, 64 // w_size)
                at, tail = when % row, row - row % block
                when = np.where(at < tail, when - at % block, when)
            step = _to_tensor_dims(when, shape, perm).reshape(-1)
            elsewhere &= step > step[writer]
    else:
        lo, hi = out.min(), out.max() + w_size
        elsewhere = (into + r_size > lo) & (into < hi)
    if not elsewhere.any():
        return None
    k = int(np.argmax(elsewhere))

    def position(flat: int) -> list[int]:
        return [int(i) for i in np.unravel_index(flat, shape)] if shape else []

    return position(k), int(into[k]) // r_size, (position(int(writer[k])) if writer is not None else None)
