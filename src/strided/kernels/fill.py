"""Fill kernels: write one value, or a range, into a fresh tensor's memory.

They take the NumPy array of a storage (or a view of it) and write every element;
nothing is read from another tensor, so nothing is copied and the ledger is not told.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import native
from .bf16_casts import is_bf16, number_nans
from .fpstate import QUIET, quiet_reset, quiet_set
from .fused import fma_into

# From this many elements a C-contiguous array is filled by the compiled store loop (32-byte stores
# where the CPU has AVX2): ndarray.fill writes an element at a time (1M float32: ~130 us against
# the loop's ~55, PyTorch's fill_ ~45-55, thread time); below, fill's one call is cheaper than
# making the element the loop copies (~1 us)
FILL_MIN = 1 << 14


def fill(out: np.ndarray, value: bool | int | float | np.generic) -> None:
    """Write ``value`` (already checked to fit ``out``'s dtype) into every element of ``out``: the
    bytes ``out.fill(value)`` writes (the compiled loop copies the element ``fill`` makes)."""
    if out.dtype.kind == "V" and is_bf16(out.dtype):
        one = np.empty(1, out.dtype)
        one.fill(value)
        number_nans(one)  # (c10::BFloat16 of the number: a NaN is 0x7FC0, sign and payload dropped)
        if out.size >= FILL_MIN and out.flags.c_contiguous and out.flags.writeable \
                and (k := native.special()) is not None and k.fill_value(out, one):
            return
        out.fill(one[0])
        return
    if out.size >= FILL_MIN and out.flags.c_contiguous and out.flags.writeable \
            and (k := native.special()) is not None:
        one = np.empty(1, out.dtype)
        one.fill(value)
        if k.fill_value(out, one):
            return
    out.fill(value)


def fill_dense(dest: np.ndarray, value: Any) -> bool:
    """Whether ``dest[...] = value`` (a 0-d value, cast as ``np.copyto(dest, value, casting="unsafe")``
    casts it) was written by the compiled store loop: ``dest`` at least :data:`FILL_MIN` elements
    whose memory is one run in some order of its dims (row-major, a transpose, any permutation of
    a dense block). The loop writes the element ``np.copyto`` makes of ``value`` into every one, so
    the bytes are the ones ``np.copyto`` writes; False (nothing written) otherwise."""
    if dest.size < FILL_MIN or not dest.flags.writeable or (k := native.special()) is None:
        return False
    if not dest.flags.c_contiguous:
        dest = dest.transpose(sorted(range(dest.ndim), key=lambda d: -dest.strides[d]))
        if not dest.flags.c_contiguous:
            return False
    one = np.empty(1, dest.dtype)
    np.copyto(one, value, casting="unsafe")
    return bool(k.fill_value(dest, one))


_INT64 = 1 << 63
# From this many values an int64 range with Python int bounds is written by the compiled
# iota64_fill (below it NumPy's arange: its call costs less than the kernel's buffer checks).
_IOTA_MIN = 1 << 12


def arange_values(n: int, start: int | float, step: int | float, integral: bool) -> np.ndarray:
    """A fresh 1-d array of ``start + i * step`` for ``i < n``, computed in int64 (``integral``)
    or float64 (the values PyTorch's arange casts to its dtype)."""
    if integral and start.__class__ is int and step.__class__ is int and n >= _IOTA_MIN \
            and -_INT64 <= start < _INT64 and -_INT64 <= step < _INT64 and (k := native.special()) is not None:
        values = np.empty(n, np.int64)
        # (the same wrapped int64 values in one vectorized pass: NumPy's int64 fill is a scalar loop)
        if k.iota64_fill(values, start, step):
            return values
    values = np.arange(n, dtype=np.int64 if integral else np.float64)
    # (in place: the same two operations, each rounded (or wrapped) once, as ``i * step + start``,
    # without two more temporaries; start 0 and step 1 leave i as it is in either type)
    if integral:
        if step.__class__ is not int or start.__class__ is not int:  # (a NumPy integer: its own promotion)
            values = values * step + start
        elif step != 1 or start != 0:
            np.multiply(values, step, out=values)
            np.add(values, start, out=values)
    elif float(step) != 1.0 or float(start) != 0.0 or math.copysign(1.0, float(start)) < 0:
        np.multiply(values, float(step), out=values)
        np.add(values, float(start), out=values)
    return values


# PyTorch's CPU arange kernel (RangeFactoriesKernel.cpp) for a floating dtype T computes in
# T's accumulate type (float32 for float16 / bfloat16, float64 for float32 / float64): its scalar
# loop writes T(start + step * i); its vectorized loop, on whole pairs of vectors from the run's
# start, writes T(b + j * step) with b = T(start + step * i0) for the vector's first index i0
# (Vectorized<T>::arange takes its base as a T: rounded, for float16 to 11 bits) and j its lane.
# Its kernels are built with contraction on: each ``x + y * z`` is one fma, but for the lanes of a
# bfloat16 vector (measured: which one torch's bits match where the two differ). The vectors are 32
# bytes on x86 whatever the CPU (REGISTER_DISPATCH gives no AVX-512 kernel: the AVX2 one runs;
# the generic one without AVX2 is 32 bytes too, but has no fma). One call writes at most
# GRAIN_SIZE (32768) elements; a longer range is split among PyTorch's threads, each part
# vectorized from its own start: those parts are not known here, and the whole range is
# computed as one part (PyTorch's with one thread).
_VECTOR_BYTES = 32
_DIGITS = {"float16": 11, "bfloat16": 8, "float32": 24, "float64": 53}  # (significand bits)
# The same, by the NumPy dtype itself, filled on first use: a NumPy dtype's ``.name`` is a Python
# property that costs more than a small range (2 µs)
_DIGITS_OF: dict[np.dtype, int] = {}


def float_range(n: int, start: float, step: float, dtype: np.dtype) -> np.ndarray:
    """A fresh 1-d array of PyTorch's CPU ``arange`` values in the float ``dtype`` (float16,
    bfloat16, float32, float64): the scalar loop's ``T(fma(step, i, start))`` for the last ``n
    % (2 V)`` elements (V = 32 bytes / T's size), the vectorized loop's ``T(fma(j, step, b))``
    (bfloat16: ``T(b + j * step)``, two roundings) with the rounded base ``b = T(fma(step, i0,
    start))`` of each V-element vector for the rest, in the accumulate type (see the note above). A range of integers every one of which ``dtype``
    holds exactly is the same in every form: NumPy's plain values there."""
    acc = np.dtype(np.float32) if dtype.itemsize == 2 else np.dtype(np.float64)
    first, last = float(start), float(start) + float(step) * (n - 1)
    digits = _DIGITS_OF.get(dtype)
    if digits is None:
        digits = _DIGITS_OF[dtype] = _DIGITS[dtype.name]
    exact = 2.0 ** digits  # (every integer up to this is exact in dtype)
    if (float(start).is_integer() and float(step).is_integer() and abs(first) <= exact
            and abs(last) <= exact):
        return arange_values(n, start, step, False).astype(dtype)
    if dtype.itemsize >= 4:
        k = native.special()
        if k is not None:  # (the compiled float_range: these steps in one pass, the same bits)
            out = np.empty(n, dtype)
            if k.float_range(out, float(start), float(step)):
                return out
    token = quiet_set(QUIET)  # (an end past float16's range gives inf silently, as PyTorch)
    try:
        s, d = acc.type(start), acc.type(step)  # (PyTorch's Scalar.to<acc>(): a Python float rounded once)
        lanes = _VECTOR_BYTES // dtype.itemsize
        whole = n - n % (2 * lanes)
        work = np.empty(n, acc)
        # the scalar loop's tail: fma(step, i, start), i converted to acc as C converts (to nearest)
        fma_into(d, np.arange(whole, n, dtype=np.int64).astype(acc), np.full(n - whole, s), work[whole:])
        if whole:
            base = np.empty(whole // lanes, acc)
            fma_into(d, np.arange(0, whole, lanes, dtype=np.int64).astype(acc), np.full(base.shape[0], s), base)
            base = base.astype(dtype).astype(acc)  # (Vectorized<T>::arange's T base)
            lane = np.arange(lanes, dtype=acc)
            if dtype.name == "bfloat16":  # (its lanes' base + j * step are not contracted: two roundings)
                np.add(base[:, None], lane * d, out=work[:whole].reshape(-1, lanes))
            else:
                fma_into(d, np.tile(lane, base.shape[0]), np.repeat(base, lanes), work[:whole])
            work[:whole:lanes] = base  # (lane 0 is the base itself: -0.0 stays, where b + 0 * step is +0.0)
        out = work.astype(dtype)
    finally:
        quiet_reset(token)
    return out


def arange_into(out: np.ndarray, start: int | float, step: int | float, integral: bool) -> None:
    """``out[i] = start + i * step`` for the 1-d ``out``, computed in int64 (``integral``) or
    float64, then cast to ``out``'s dtype (unsafe casting, as PyTorch's arange)."""
    np.copyto(out, arange_values(out.shape[0], start, step, integral), casting="unsafe")
