"""PyTorch's CPU ``pow`` of float32 and float64 tensors bit for bit (``_sleefkernel.pow_run``, ``_sleef_pow.h``).

PyTorch 2.13's ``PowKernel.cpp`` runs ``pow`` as a ``cpu_kernel_vec`` loop: SLEEF's ``Sleef_powf16_u10``
(the AVX512 capability; ``Sleef_powd8_u10`` for float64, in steps of 16; under AVX2 ``Sleef_powf8_u10`` and
``Sleef_powd4_u10``, in steps of 16 and 8) where the loop is
vectorized, ``std::pow`` where it is not, the elements split as every such loop splits them (:mod:`strided.kernels.torch_loops`: a contiguous row in steps of
``2 * Vectorized<float>::size()``, its last ``len % step`` elements and every element of a strided
row scalar, each parallel chunk from 32768 elements a row of its own). The scalar function is
``powf(base, exp)`` for ``tensor ** tensor`` and ``number ** tensor`` (the number a 0-d operand
converted to the tensor's dtype), and ``pow((double)base, exp)`` rounded to float for ``tensor **
number`` (whose vectorized function takes ``float(exp)``: ``x ** 1e-50`` is 1 there, ``pow(x, 1e-50)``
in the scalar loop). SLEEF and the C library differ by an ulp in ~20% of elements, so the split
matters. The exponents 0.5, -0.5, -1, 2, 3 and -2 of a number exponent are PyTorch's other
kernels (the caller's own forms) and 0 and 1 its shortcuts: not here.

Where ATen's capability here is AVX512 (step 32) or AVX2 (step 16: ``Sleef_powf8_u10`` / ``Sleef_powd4_u10``,
``_sleef_pow8.h``, whose ``logkf`` takes the exponent and mantissa from the bits where AVX-512's uses
``vgetexp`` / ``vgetmant``: the same bits at every lane, so only the step differs). Under ``default``
(step 0) the vectorized function is ``std::pow`` lane by lane (``powf`` with the exponent rounded to
float for ``tensor ** number``), not ported: every function here then answers None / False and the
caller's NumPy ``power`` runs (within an ulp).
"""

from __future__ import annotations

import numpy as np

from . import native
from .sleef import _chunk, step
from .torch_loops import GRAIN_SIZE, scalar_loop_mask

_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)
_DTYPES = (_F32, _F64)
_SCALAR, _VECTOR, _ROW = 0, 1, 2  # pow_run's modes


_loaded: list = []  # [the compiled module or None, step]: read once


def _kernel():
    """The compiled module where PyTorch's float32 pow is reproducible here (ATen's AVX512 or AVX2
    capability: :func:`strided.kernels.sleef.step` 32 or 16), else None."""
    k = native.sleef()  # (None inside native.disabled())
    if k is None:
        return None
    if not _loaded:
        st = step()
        _loaded[:] = [k if st in (16, 32) else None, st]
    return _loaded[0]


def pow_scalar_loop(base: float, y: np.ndarray) -> np.ndarray | None:
    """``base ** y`` over the C-contiguous 1-D float32 (or float64) run ``y`` by PyTorch's scalar
    function alone, every element (its ``basic_loop``: ``number ** tensor`` where its loop takes no
    row vectorized, as pow_into computes such a call's elements), a fresh array; None where the
    kernel is not used (nothing computed). Each element's value is its own, whatever the order."""
    k = _kernel()
    dt = y.dtype
    if k is None or (dt is not _F32 and dt is not _F64):
        return None
    y = _aligned(y)
    res = np.empty(y.shape[0], dt)
    if res.size:
        k.pow_run(np.array([base], dt), y, res, _SCALAR, 0, 0, None)
    return res


def pow_flat(x: np.ndarray, y: np.ndarray) -> np.ndarray | None:
    """``x ** y`` of two C-contiguous 1-D float32 (or float64) arrays of one length and dtype as
    PyTorch computes them when they are one dense run (the binary fast path's flat runs): a fresh
    array, or None where the kernel is not used (nothing computed). (Lean: a 12-element call is
    ~1 µs, most of it this function's own.)"""
    if _kernel() is None:
        return None
    k, st = _loaded
    dt = x.dtype
    if y.dtype is not dt or (dt is not _F32 and dt is not _F64):  # (NumPy's built-in dtypes are singletons)
        return None
    x, y = _aligned(x), _aligned(y)
    n = x.shape[0]
    res = np.empty(n, dt)
    if n < GRAIN_SIZE:  # (one chunk: PyTorch's row, the step halved for double)
        k.pow_run(x, y, res, _ROW, st if dt is _F32 else st >> 1, 0, None)
    elif n:
        _row(k, x, y, res, None)
    return res


def _row(k, x: np.ndarray, y: np.ndarray, res: np.ndarray, e: float | None) -> None:
    """One flat run of PyTorch's loop (cut at its parallel chunks) into ``res``."""
    st = _loaded[1] // (res.itemsize // 4)  # (2 * Vectorized<double>::size(): half float's)
    n = res.shape[0]
    if n < GRAIN_SIZE:  # (one chunk whatever the threads)
        k.pow_run(x, y, res, _ROW, st, 0, e)
    else:
        k.pow_run(x, y, res, _ROW, st, _chunk(n, None, GRAIN_SIZE), e)


_F32_MAX = float(np.finfo(np.float32).max)


def _exponent(e: float, dtype: np.dtype) -> np.ndarray:
    """The vectorized function's exponent: ``Vectorized<T>(exp)``, the double rounded to float for
    float32 (out of float's range: the cast's infinity, without NumPy's overflow warning)."""
    if dtype is _F32 and abs(e) > _F32_MAX and e == e:
        with np.errstate(over="ignore"):
            return np.array([e], np.float64).astype(_F32)
    return np.array([e], dtype)


def pow_into(x: np.ndarray, y: np.ndarray | None, e: float | None, out: np.ndarray,
             loop_strides: tuple[int, ...], fresh: bool,
             ops: list[tuple[tuple[int, ...], tuple[int, ...]] | None]) -> bool:
    """``out[...] = x ** y`` (``y`` None: ``x ** e``, a number exponent) with PyTorch's bits, float32 or float64.

    ``x``, ``y``: arrays broadcastable to ``out``'s shape, a 0-d one a number's (or a 0-d tensor's)
    value; ``loop_strides`` and ``fresh``: the output PyTorch's loop walks (its strides in elements,
    and whether TensorIterator allocated it); ``ops``: the inputs as the loop reads them
    (:func:`strided.kernels.torch_loops.scalar_loop_mask`'s ``inputs``). False (nothing written)
    where the kernel is not used here or the operands and ``out`` are not all float32 or all float64."""
    k = _kernel()
    dt = out.dtype
    if k is None or dt not in _DTYPES or x.dtype != dt or (y is not None and y.dtype != dt):
        return False
    shape = out.shape
    yv = _exponent(e, dt) if y is None else y
    if out.size == 0:
        return True
    x, yv = _aligned(x), _aligned(yv)
    y = None if y is None else yv
    # (an unaligned out, a from_numpy view at an odd address: the path below, into a fresh array copied over)
    if out.flags.aligned and _dense_run(k, x, y, yv, e, out, loop_strides, fresh):
        return True
    xb = x.reshape(1) if x.ndim == 0 else np.ascontiguousarray(np.broadcast_to(x, shape)).reshape(-1)
    yb = yv.reshape(1) if yv.ndim == 0 or y is None else np.ascontiguousarray(np.broadcast_to(yv, shape)).reshape(-1)
    res = np.empty(shape, dt)
    flat = res.reshape(-1)
    st = _loaded[1] // (dt.itemsize // 4)
    mask = scalar_loop_mask(shape, loop_strides, fresh, ops, step=st)
    if mask is not None:
        m = mask.reshape(-1)
        count = int(m.sum())
        mask = True if count == m.size else m  # (a strided row: the scalar function throughout)
    if mask is True:
        k.pow_run(xb, yb, flat, _SCALAR, 0, 0, e)
    else:
        k.pow_run(xb, yb, flat, _VECTOR, 0, 0, e)
        if mask is not None:  # the scalar loop's elements
            part = np.empty(count, dt)
            k.pow_run(xb if xb.size == 1 else xb[mask], yb if yb.size == 1 else yb[mask], part, _SCALAR, 0, 0, e)
            flat[mask] = part
    np.copyto(out, res)
    return True


def _dense_run(k, x: np.ndarray, y: np.ndarray | None, yv: np.ndarray, e: float | None, out: np.ndarray,
               loop_strides: tuple[int, ...], fresh: bool) -> bool:
    """:func:`pow_into` straight into ``out`` where PyTorch's loop is one flat run in memory order:
    ``out`` dense and the array the loop walks, each tensor operand laid out as it (or 0-d), none
    sharing memory with ``out`` but by being it (``fresh``: ``out`` was made for the result, so
    shares none). False (nothing written) otherwise."""
    ost = out.strides
    if not ost or ost != tuple(v * out.itemsize for v in loop_strides):
        return False
    shape = out.shape
    xt, yt = x.ndim != 0, y is not None and y.ndim != 0
    if (xt and (x.shape != shape or x.strides != ost)) or (yt and (y.shape != shape or y.strides != ost)):
        return False
    order = None
    if not out.flags.c_contiguous:  # (a permuted dense one: its memory order)
        order = sorted(range(out.ndim), key=lambda d: -ost[d])
        if not out.transpose(order).flags.c_contiguous:
            return False
    if not fresh and ((xt and _overlaps(x, out)) or (yt and _overlaps(y, out))):
        return False
    xf = x.reshape(-1) if order is None or not xt else x.transpose(order).reshape(-1)  # (a 0-d one: its 1 element)
    yf = yv.reshape(1) if not yt else y.reshape(-1) if order is None else y.transpose(order).reshape(-1)
    _row(k, xf, yf, out.reshape(-1) if order is None else out.transpose(order).reshape(-1), e)
    return True


def _aligned(a: np.ndarray) -> np.ndarray:
    """``a``, or its copy where its data is not aligned to its dtype (a from_numpy view at an odd
    address: the kernel takes aligned native buffers only; the values are the same)."""
    return a if a.flags.aligned else a.copy()


def _overlaps(a: np.ndarray, out: np.ndarray) -> bool:
    """Whether ``a`` shares memory with ``out`` other than by being it (an in-place target)."""
    return bool(np.may_share_memory(a, out)) and a.ctypes.data != out.ctypes.data
