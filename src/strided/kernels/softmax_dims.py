"""PyTorch's float32 ``softmax`` along a dim other than the last, bit for bit.

PyTorch 2.13 (``SoftMaxKernel.cpp``, ``_vec_softmax`` for ``scalar_t == opmath_type``) views the
contiguous input as ``(outer, dim, inner)`` and walks the flat ``outer * inner`` positions in
``at::parallel_for`` chunks (grain 0: one chunk per thread). At a position whose next
``Vectorized<float>::size()`` (16 under AVX512, 8 under AVX2) positions stay within its row of
``inner`` and within its chunk, one vector computes them: ``vec::maximum`` over the dim, then
``sum += (x - max).exp()`` in dim order (SLEEF's ``expf``), then ``e / sum`` (a division, not a
multiply by the reciprocal). Elsewhere its scalar loop does the same with ``std::max`` and
``std::exp`` (the C library's ``expf``): the rest of the row, or everything up to the chunk's end
once fewer than a vector's positions are left in it. Only the exponential differs between the two
(the maximum only in which NaN survives, and a NaN makes the whole column NaN either way), so
this module computes both exponentials and picks per position (:func:`vector_positions`).

float64 is the same loop over ``Vectorized<double>`` (SLEEF's ``expd``, the C library's ``exp``);
``log_softmax`` (SLEEF's ``logf``, not ported) is left to the NumPy formula.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from . import native, sleef
from .blocked import row_major
from .fpstate import quiet
from .torch_loops import torch_threads

_EXP, _LIBM_EXP = sleef.EXP, sleef.LIBM_EXP
_LIBM_EXP_D = 3  # (run_d's op: the C library's exp alone)


def vector_positions(outer: int, inner: int, lanes: int, threads: int) -> np.ndarray:
    """A flat bool mask over the ``outer * inner`` positions: True where ``_vec_softmax``'s vector
    branch computes the position (``lanes``: ``Vectorized<float>::size()``; ``threads``: the
    chunks of ``at::parallel_for``).

    >>> vector_positions(1, 20, 8, 1).astype(int).tolist()
    [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0]
    """
    n = outer * inner
    mask = np.tile(np.arange(inner) < inner - inner % lanes, outer)  # (one chunk: each row alike)
    chunks = min(max(threads, 1), n)
    if chunks > 1:
        size = -(-n // chunks)
        for b in range(0, n, size):
            e = min(b + size, n)
            # the row cut by the chunk's start, then the rows near its end (where fewer than a
            # vector's positions left send the scalar loop on to the end); the rows between as one chunk
            _walk(mask, b, min(e, b - b % inner + inner), e, inner, lanes)
            tail = max(b, e - inner - lanes)
            start = max(tail - tail % inner, b - b % inner + inner)
            if start < e:
                _walk(mask, start, e, e, inner, lanes)
    return mask


def _walk(mask: np.ndarray, idx: int, stop: int, end: int, inner: int, lanes: int) -> None:
    """``_vec_softmax``'s loop from ``idx`` (a position it visits) until ``stop``, in a chunk ending at
    ``end``: marks the vector branch's positions True, the scalar loop's False."""
    while idx < stop:
        i = idx % inner
        if i + lanes <= inner and idx + lanes <= end:
            m = min(idx - i + inner, end)
            v = (m - idx) // lanes * lanes
            mask[idx : idx + v] = True
            idx += v
        else:
            nxt = end if idx + lanes > end else idx - i + inner
            mask[idx:nxt] = False
            idx = nxt


def _dense(x: np.ndarray) -> np.ndarray:
    """``x`` as a C-contiguous array (itself where it is one): the blocked copy for a large permuted
    one (a transposed 1M float32 in ~0.3 ms, NumPy's ascontiguousarray ~4 ms), NumPy's below."""
    dense = row_major(x)
    return dense if dense.flags.c_contiguous else np.ascontiguousarray(dense)


def softmax_float32(x: np.ndarray, dim: int) -> np.ndarray | None:
    """PyTorch's float32 or float64 ``softmax(x, dim)`` for ``dim`` not the last, as a fresh
    C-contiguous array of ``x``'s shape (``x``: any strides; PyTorch computes on its contiguous
    copy); None where the compiled SLEEF kernel is not built or PyTorch's loop would not vectorize
    here (the caller's NumPy formula runs). float64: the same loop over ``Vectorized<double>``
    (half float32's lanes), SLEEF's expd (``run_d``) in its vector branch, the C library's exp in
    its scalar loop."""
    k = native.sleef()
    double = x.dtype == np.float64
    lanes = sleef.step() // (4 if double else 2)
    if k is None or not lanes or not (double or x.dtype == np.float32) or not x.size:
        return None
    shape = x.shape
    outer, size, inner = math.prod(shape[:dim]), shape[dim], math.prod(shape[dim + 1 :])
    dense = _dense(x).reshape(-1)
    compiled = None if double else compiled_float32(dense, outer, size, inner)
    if compiled is not None:
        return compiled.reshape(shape)
    run, libm_exp = (k.run_d, _LIBM_EXP_D) if double else (k.run, _LIBM_EXP)
    cube = dense.reshape(outer, size, inner)
    with quiet():
        top = np.maximum.reduce(cube, axis=1, keepdims=True)
        e = np.subtract(cube, top)
        flat = e.reshape(-1)
        scalar = None if inner < lanes else _scalar_positions(outer, size, inner, lanes, torch_threads())
        if inner < lanes:  # (rows of positions shorter than a vector: the scalar loop's throughout)
            run(flat, flat, libm_exp, 0, 0, 0, -1)
        else:
            picked = None if scalar is None else flat[scalar]  # (gathered before the exponentials)
            run(flat, flat, _EXP, 0, 0, -1, -1)  # (SLEEF's expf / expd at every element, in place)
            if picked is not None:  # (the C library's where the scalar loop runs)
                run(picked, picked, libm_exp, 0, 0, 0, -1)
                flat[scalar] = picked
        if inner > 1:  # (NumPy adds the (outer, inner) slices one after another along an outer axis)
            total = np.add.reduce(e, axis=1, keepdims=True)
        else:  # (along its contiguous axis NumPy's sum is pairwise: the dim order written out)
            total = e[:, :1].copy()
            for d in range(1, size):
                total += e[:, d : d + 1]
        np.divide(e, total, out=e)
    return e.reshape(shape)


def compiled_float32(flat: np.ndarray, outer: int, size: int, inner: int) -> np.ndarray | None:
    """:func:`softmax_float32` of the C-contiguous float32 run ``flat`` viewed as ``(outer, size,
    inner)`` (the dim in the middle) by the compiled ``softmax_dims``, the same steps in one call
    (the bits of the NumPy steps below: tests/test_small_order_paths.py compares them), as a fresh
    flat array; None where the kernel is not built, PyTorch's loop would not vectorize here, or an
    element is not finite (the NumPy steps decide which NaN comes out)."""
    k = native.sleef()
    lanes = sleef.step() // 2
    if k is None or not lanes or not hasattr(k, "softmax_dims"):
        return None
    out = np.empty(flat.shape, np.float32)
    if not flat.flags.aligned:  # (a from_numpy of memory at an odd address: the kernel's buffers are aligned)
        flat = flat.copy()
    if not k.softmax_dims(flat, out, outer, size, inner, _scalar_mask(outer, inner, lanes, torch_threads())):
        return None
    return out


@functools.lru_cache(maxsize=64)
def _scalar_mask(outer: int, inner: int, lanes: int, threads: int) -> np.ndarray | None:
    """One byte per ``(outer, inner)`` position, 1 where the scalar loop computes it (the C
    library's expf); None where there are none. Memoized by shape, as :func:`_scalar_positions`."""
    vec = vector_positions(outer, inner, lanes, threads)
    if vec.all():
        return None
    mask = (~vec).astype(np.uint8)
    mask.flags.writeable = False
    return mask


@functools.lru_cache(maxsize=64)
def _scalar_positions(outer: int, size: int, inner: int, lanes: int, threads: int) -> np.ndarray | None:
    """The flat indices (over ``(outer, size, inner)``) of the elements the scalar loop computes;
    None where there are none. Memoized by shape: a small softmax asks it at every call."""
    vec = vector_positions(outer, inner, lanes, threads)
    if vec.all():
        return None
    at = np.broadcast_to(~vec.reshape(outer, 1, inner), (outer, size, inner)).reshape(-1).nonzero()[0]
    at.flags.writeable = False
    return at


def torch_order(x: np.ndarray, axis: int, log: bool) -> np.ndarray | None:
    """PyTorch's (log_)softmax of float32/float64 ``x`` along ``axis`` where its kernel is
    reproduced, as a fresh C-contiguous array; None elsewhere (the NumPy formula runs). PyTorch
    computes on the input's contiguous copy: along the last dim that is the compiled rows' kernel
    (a permuted input along its last dim included); along another dim, float32 and float64 softmax are
    :func:`softmax_float32`'s (log_softmax there: not reproduced)."""
    if axis == x.ndim - 1:
        k = native.special()
        if k is None or x.dtype.char not in "fd" or not x.size:
            return None
        rows = _dense(x)
        out = np.empty(rows.shape, rows.dtype)
        return out if rows.flags.aligned and k.softmax_rows(rows, out, rows.shape[-1], log) else None
    return None if log else softmax_float32(x, axis)
