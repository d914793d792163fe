"""PyTorch's complex quotients and small powers, bit for bit (x86-64, PyTorch 2.13's CPU kernels).

PyTorch divides complex numbers with c10::complex's ``operator/`` (Smith's algorithm, NumPy's
too), both in its vectorized loop (``Vectorized<complex>::operator/`` and ``reciprocal`` store
the lanes and divide one by one) and in its scalar tail; its compiler contracts the
``p + q * r`` steps of that algorithm into fused multiply-adds or not by where an element falls
in its loops, so NumPy's division (never fused) differed in the last bit for ~40% of random
complex64 quotients. Its complex product is rounded in the vector loop (``ac - bd``,
``ad - b(-c)``) and fused in the compiled scalar loops. The compiled ``complex_forms`` kernel
(:mod:`strided.kernels._specialkernel`) computes each element in the form a ``modes`` array
names; the functions here give those modes, as measured per place on PyTorch 2.13 (AVX512
capability, one thread; tests/test_cplx25.py):

- ``x / y`` (op 0; bits: scl, re, im fused): every step fused, except for complex64 in a tail
  (after a row's whole blocks of 2 * Vectorized<complex>::size() elements, AVX2's 8) of odd length, whose
  last element fuses ``c + d * rat`` only (the compiler's tail runs pairs); a tail where the
  output is an input (an in-place form) fuses ``c + d * rat`` only throughout, and so do
  strided rows (basic_loop) then; other strided rows as a tail. complex128 fuses throughout.
- ``1 / y`` (reciprocal, ``** -1``; op 1) and ``1 / sqrt(y)`` (rsqrt, ``** -0.5``; op 5): the
  scale fused everywhere (the other steps are exact with a = 1, b = 0).
- ``y ** 2`` (op 2): the vector blocks rounded, the tails and strided rows fused.
- ``y ** 3`` (op 3, two products): the vector blocks rounded; complex128 fused elsewhere;
  complex64 tails and strided rows fuse both products in runs of 4 (AVX512's build; AVX2's: 2,
  measured on an AVX2 CPU) from the start and only the first after them; strided rows of an
  in-place form only the first.
- ``y ** -2`` (op 4: product, then the reciprocal's scale): the vector blocks round the product
  and fuse the scale; elsewhere both fused.
- log1p (op 6: c10's CPU formula, ``log(u) * (z / (u - 1))`` with u = z + 1, the product and
  quotient fused), expm1 (op 7: ``fma(expm1(x), cos(y), -2 sin(y/2)^2)``, ``e^x sin(y)``) and acos
  (op 8: complex64 the C library's cacosf, complex128 ``(pi/2, 0) - casin(z)``): one form
  everywhere (:func:`fixed_mode`).
- addcmul's ``(value * t1) * t2`` (op 11, x * y; bit 0 fused), AVX2's blocks: the vector blocks
  rounded; complex128 fused elsewhere; complex64 tails fused in runs of 4 from the start,
  strided rows in pairs (an odd last element rounded), or rounded throughout where the output is
  an input. addcdiv's ``(value * t1) / t2`` (op 0, :data:`ADDCDIV`'s modes): fused everywhere.
- log10 and log2 (ops 9, 10): the C library's clog, each part divided by log(10) or log(2) in the
  dtype (Vectorized's ``log() / log2_``; its scalar loop gave the same bits at every place
  measured; log2's mode 8, bits 0-2 c10's division by (log 2, 0) left in the kernel).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import numpy as np

from ..layout.core import contiguous_strides
from . import native
from .torch_loops import loop_positions, piece_length, torch_vector_bytes

DIV, RECIPROCAL, SQUARE, CUBE, INVERSE_SQUARE, RSQRT, LOG1P, EXPM1, ACOS, LOG10, LOG2, MUL = range(12)
ADDCDIV = 100  # (modes only: addcdiv's quotient, x / y fused throughout)
SCALE = 101  # (modes only: addcmul's first product, value * t1: MUL's, but fused at every place off the vector blocks)

Operand = tuple[tuple[int, ...], tuple[int, ...]] | None

# (one mode for every element: the ops whose form does not depend on the place)
_EVERYWHERE = {RECIPROCAL: 1, RSQRT: 1, LOG1P: 0, EXPM1: 0, ACOS: 0, LOG10: 0, LOG2: 8}


def forms_into(op: int, x: np.ndarray | None, y: np.ndarray, out: np.ndarray,
               modes: int | np.ndarray) -> bool:
    """``out`` = op(x, y) (see the module's note; ``x`` only for :data:`DIV` and :data:`MUL`) in
    out's complex dtype, each element in the form ``modes`` names (one int, or an array of out's
    shape or of its size in row-major order). The operands broadcast to out's shape and are all
    read before out is written (out may be one of them). False (nothing written) where the
    compiled kernel is not built or off, or the dtypes are not out's."""
    k = native.special()
    if k is None or out.dtype.kind != "c" or y.dtype != out.dtype or (x is not None and x.dtype != out.dtype):
        return False
    shape = out.shape
    if not out.size:
        return True
    fy = _flat(y, shape)
    fx = fy if x is None else _flat(x, shape)  # (x unread by the one-operand ops)
    if isinstance(modes, int):
        fm = _ONE_MODE.get(modes)
        if fm is None:
            fm = _ONE_MODE[modes] = np.full(1, modes, np.uint8)
    else:  # (out's shape, or flat in row-major order: _run_modes)
        fm = np.ascontiguousarray(modes, np.uint8).reshape(-1)
    if out.flags.c_contiguous and out.flags.writeable and k.complex_forms(op, fx, fy, out.reshape(-1), fm):
        return True  # (straight into out: refused where it partly overlaps an operand)
    res = np.empty(out.size, out.dtype)
    if not k.complex_forms(op, fx, fy, res, fm):
        return False
    np.copyto(out, res.reshape(shape))
    return True


_ONE_MODE: dict[int, np.ndarray] = {}  # (a one-element modes array per mode: read only by the kernel)


def _flat(a: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """``a`` as the kernel reads it: one element (a constant), or broadcast to ``shape``,
    row-major and flat (a copy unless it already is)."""
    a = np.asarray(a)
    if a.size == 1:
        return np.ascontiguousarray(a.reshape(1))
    if a.shape != shape:
        a = np.broadcast_to(a, shape)
    return np.ascontiguousarray(a).reshape(-1)


def fixed_mode(op: int, itemsize: int) -> int:
    """The one mode of an op whose form does not depend on the place (log1p, expm1, acos, log2,
    log10, reciprocal, rsqrt) for a complex ``itemsize``: complex128's acos is ``(pi/2, 0) - casin(z)``
    (Vectorized<complex<double>>::acos, and its scalar loop gives the same bits), complex64's
    the C library's cacosf."""
    if op == ACOS:
        return 1 if itemsize == 16 else 0
    return _EVERYWHERE[op]


def modes(op: int, shape: tuple[int, ...], strides: tuple[int, ...], fresh: bool,
          inputs: Sequence[Operand], itemsize: int, aliased: bool) -> int | np.ndarray:
    """Each element's form (``forms_into``'s ``modes``) for ``op`` where PyTorch's loop walks an
    output of ``shape`` and ``strides`` (``fresh``: allocated for the result) over ``inputs``
    (torch_loops' operands); ``aliased``: the output is an input (an in-place form)."""
    if op in _EVERYWHERE:
        return fixed_mode(op, itemsize)
    if not math.prod(shape):
        return 0
    wide = itemsize == 16
    if (op == DIV and wide) or op == ADDCDIV:
        return 7
    # (2 * Vectorized<complex>::size(): pow's kernel is dispatched by CPU capability, AVX512's
    # 16 complex64 here; div's and addcmul's have no AVX512 build, AVX2's 8, measured on
    # in-place forms and tails)
    block = 2 * (32 if op in (DIV, MUL, SCALE) else torch_vector_bytes()) // itemsize
    if _one_run(shape, strides, inputs):
        n = math.prod(shape)
        if op == MUL and not wide and _scalar_input(inputs, n):
            op = _MUL_BESIDE_SCALAR
        if n <= _CACHED_RUN:
            return _cached_run_modes(op, n, block, wide, aliased)
        return _run_modes(op, n, block, wide, aliased)
    places = loop_positions(shape, strides, fresh, inputs)
    if places is None:  # (strided rows: basic_loop, the compiler's loop over each whole row)
        if op == SCALE:
            # (value * t1 with value a loop constant: fused at every place of a strided row, in
            # place or not, whatever the second product does; measured on PyTorch 2.13, complex64
            # addcmul/addcmul_ over a transposed self, (3, 4) to (9, 33): rounding it there, as
            # the second product, differed in ~90% of in-place calls)
            return 1
        return _strided_rows(op, shape, strides, fresh, inputs, wide, aliased)
    pos, length, scalar = places
    if op == MUL and not wide and scalar is not None:  # (an input of stride 0 along the rows)
        op = _MUL_BESIDE_SCALAR
    tail = length % block
    return _place_modes(op, pos - (length - tail), tail, wide, aliased)


def _place_modes(op: int, k: np.ndarray, tail: np.ndarray | int, wide: bool, aliased: bool) -> np.ndarray:
    """The modes of elements at places ``k`` in their row's tail of length ``tail`` (a negative
    ``k``: in the vector blocks before it)."""
    vector = k < 0
    if op == SCALE:
        return np.where(vector, 0, 1).astype(np.uint8)
    if op == DIV:
        fused = np.zeros(k.shape, bool) if aliased else k < tail - tail % 2
        return np.where(vector | fused, 7, 1).astype(np.uint8)
    if op == SQUARE or (op == MUL and wide):
        return np.where(vector, 0, 1).astype(np.uint8)
    if op == _MUL_BESIDE_SCALAR:
        # (cpu_kernel_vec's row with a stride-0 input, vectorized_loop's S != 0: its compiled tail
        # fuses runs of 4 from the start, then a pair, an odd last element rounded; in place,
        # rounded throughout. Measured on PyTorch 2.13: addcmul(x, t1 0-d or (1,), t2) of (n,)
        # and (2, n), n = 2..19, and its in-place form)
        run = 0 if aliased else tail - tail % 2
        return np.where(~vector & (k < run), 1, 0).astype(np.uint8)
    if op == MUL:
        return np.where(~vector & (k < tail - tail % 4), 1, 0).astype(np.uint8)
    if op == INVERSE_SQUARE:
        return np.where(vector, 2, 3).astype(np.uint8)
    # CUBE
    if wide:
        return np.where(vector, 0, 3).astype(np.uint8)
    run = _cube_run()
    return np.where(vector, 0, np.where(k < tail - tail % run, 3, 1)).astype(np.uint8)


def _cube_run() -> int:
    """How many complex64 elements the compiled scalar loops of ``y ** 3`` (PowKernel's build for
    the CPU capability) take at once, both products fused, before the rest fuse the first only:
    4 in the AVX512 build, 2 in the AVX2 build (measured on PyTorch 2.13: AVX512 on Ice Lake; AVX2
    on an AMD EPYC without AVX-512, tails of lengths 1-20 and strided rows of 1-19)."""
    return 4 if torch_vector_bytes() == 64 else 2


_MUL_BESIDE_SCALAR = 102  # (modes only: complex64 MUL in a one-run row with a stride-0 input)


def _scalar_input(inputs: Sequence[Operand], n: int) -> bool:
    """Whether one input of a row of ``n`` (> 1) elements is a tensor of one element (stride 0
    along the row: vectorized_loop's scalar operand; a Python number is no operand here)."""
    return n > 1 and any(op is not None and math.prod(op[0]) == 1 for op in inputs)


def _one_run(shape: tuple[int, ...], strides: tuple[int, ...], inputs: Sequence[Operand]) -> bool:
    """Whether PyTorch's loop is one row over the whole output in row-major order, vectorized: the
    output row-major and every input a number, one element, or row-major of the output's shape,
    at most one of them broadcast (cpu_kernel_vec vectorizes a row with one stride-0 input; with
    two its basic_loop takes the row)."""
    dense = contiguous_strides(shape)
    if not _same_strides(shape, strides, dense):
        return False
    broadcast = 0
    for op in inputs:
        if op is not None and math.prod(op[0]) == 1:
            broadcast += 1
        elif op is not None and (op[0] != shape or not _same_strides(shape, op[1], dense)):
            return False
    return broadcast <= 1 or math.prod(shape) == 1


def _same_strides(shape: tuple[int, ...], strides: tuple[int, ...], dense: tuple[int, ...]) -> bool:
    """Equal strides but along dims of size 1 (which no walk steps along)."""
    return tuple(strides) == dense or all(n == 1 or s == t for n, s, t in zip(shape, strides, dense))


_CACHED_RUN = 4096  # (the longest run whose modes are kept: a small op's ~10 us of NumPy calls)


@functools.lru_cache(maxsize=256)
def _cached_run_modes(op: int, n: int, block: int, wide: bool, aliased: bool) -> np.ndarray:
    """:func:`_run_modes`, kept (read-only) for runs up to :data:`_CACHED_RUN` elements."""
    modes = _run_modes(op, n, block, wide, aliased)
    modes.flags.writeable = False
    return modes


def _run_modes(op: int, n: int, block: int, wide: bool, aliased: bool) -> np.ndarray:
    """:func:`modes` of one row of ``n`` elements, cut into parallel_for's chunks from
    :data:`GRAIN_SIZE` on: each chunk's vector blocks filled at once, its tail by
    :func:`_place_modes` (a flat 1M-element run: ~20 ms by per-element places, ~0.3 ms so)."""
    piece = piece_length(n)
    out = np.empty(n, np.uint8)
    vector = int(_place_modes(op, np.full(1, -1), 0, wide, aliased)[0])
    for start in range(0, n, piece):
        length = min(piece, n - start)
        tail = length % block
        end = start + length - tail
        out[start:end] = vector
        out[end:start + length] = _place_modes(op, np.arange(tail), tail, wide, aliased)
    return out


def _strided_rows(op: int, shape: tuple[int, ...], strides: tuple[int, ...], fresh: bool,
                  inputs: Sequence[Operand], wide: bool, aliased: bool) -> int | np.ndarray:
    """:func:`modes` where PyTorch's loop takes strided rows (basic_loop)."""
    if op == SQUARE or op == INVERSE_SQUARE or (op == MUL and wide):
        return 3 if op == INVERSE_SQUARE else 1
    if op == CUBE and wide:
        return 3
    unfused = 0 if op == MUL else 1  # (addcmul's rounds both products; div and ** 3 fuse their first step)
    if aliased:  # (the compiler's loop over overlapping memory: one element at a time)
        return unfused
    places = loop_positions(shape, strides, fresh, inputs, strided_rows=True)
    if places is None:
        return unfused
    pos, length, _ = places
    run = _cube_run() if op == CUBE else 2
    fused = {DIV: 7, CUBE: 3, MUL: 1}[op]
    return np.where(pos < length - length % run, fused, unfused).astype(np.uint8)
