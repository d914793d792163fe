"""More binary elementwise ops as rows of the one binary table (:class:`strided.ops.elementwise.binary.BinaryOp`):
``hypot``, ``atan2``/``arctan2``, ``copysign``, ``fmod``, ``logical_and/or/xor`` (with in-place
forms), and the comparisons built on the elementwise ops: ``lerp``, ``isclose``, ``allclose``,
``equal``.

Each row runs through :func:`strided.ops.elementwise.binary`, so it broadcasts, promotes and lays
out its result exactly as ``+`` does. Dtype rules (PyTorch 2.13): ``atan2``/``copysign`` give
the default float for integer inputs (kind "div"), ``hypot`` refuses integers, ``fmod`` keeps
the promoted dtype (an integer divisor of 0 is an error), ``logical_*`` give bool.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ...args import is_number, type_name
from ...dispatch import OPEN, adopted, shares_storage
from ...dtypes import REDUCED_FLOATS, bool_, float32, float64, get_default_dtype, np_finfo, scalar_overflow
from ...errors import StridedRuntimeError, StridedTypeError, join_lines
from ...grad_mode import SUBCLASSES, count_kernel_writes, requires_grad
from ...gradients import in_pytorch_convention as _in_pytorch_convention
from ...gradients import seal
from ...kernels import complex_forms, native
from ...kernels.elementwise import arctan2, assign, complex_abs, exact_loop, float32_loop
from ...kernels.fpstate import QUIET, quiet_reset, quiet_set, quietly, quietly_here
from ...kernels.fused import fma, fma_into, lerp_into
from ...kernels.memory import write
from ...kernels.sleef import atan2_flat
from ...kernels.sleef import step as sleef_step
from ...kernels.torch_loops import (
    GRAIN_SIZE,
    loop_positions,
    piece_length,
    scalar_loop_mask,
    torch_loop_order,
)
from ...opdef import Kind, declare
from ...scalars import numpy_scalar, parse_int, wrapped
from ...tensor import Tensor
from .._support import gradtools, support
from .._support.front import compiled_front, kernel_entry
from .._support.operands import (
    _broadcast,
    _check_inplace,
    _check_partial_overlap,
    _cinfo,
    _fresh_output,
    _view,
    flat_run,
)
from .._support.out import write_out
from .._support.overlap_updates import UpdatesInOrder, updates_in_order
from .._support.promotion import TORCH_NAMES, result_type
from ..registry import backward, method, op
from .binary import _ALL, _F32_ONLY, _FLOATS, BinaryOp, _flat_plans, _make_binary, inplace_example

HYPOT = BinaryOp("hypot", np.hypot, kernel="hypot_cpu", fast=_FLOATS, tensor_other=True, float_only=True,
                 late_checks=True, native=float32_loop(3), native_dtypes=_F32_ONLY, native_min=256, entry_code=3)
# (kernels.elementwise.arctan2: np.arctan2 with PyTorch's float32/float64 bits where they are cheap)
# (native: the fast path's dense float32 runs straight to SLEEF's loop, PyTorch's bits, without
# arctan2's dtype planning and the ufunc call's floating-point state)
def _atan2_entry() -> tuple | None:
    """The front's float32 kernel entry of atan2: :func:`atan2_flat`'s own compiled call (SLEEF's
    row, ``run2(y, x, out, vectorized, -1, step)``) on two runs below PyTorch's parallel grain (one
    row of its loop; from the grain on, atan2_flat's chunks), the step read once as atan2_flat
    reads it; None where the module is not built (the front reads the switch per call)."""
    k = native._compiled("_sleefkernel")
    if k is None:
        return None
    st = sleef_step()
    return kernel_entry(k.run2, (1 if st else 0, -1, st), np.float32, GRAIN_SIZE - 1)


ATAN2 = BinaryOp("atan2", arctan2, kind="div", fast=_FLOATS, tensor_other=True, native=atan2_flat,
                 native_dtypes=_F32_ONLY, native_min=2, entry_kernel=_atan2_entry)
ARCTAN2 = BinaryOp("arctan2", arctan2, kind="div", fast=_FLOATS, tensor_other=True, native=atan2_flat,
                   native_dtypes=_F32_ONLY, native_min=2, entry_kernel=_atan2_entry)  # (its own name in messages)
# (two float32/float64 tensors of one dense layout: one pass of the compiled binary_exact, np.copysign's bits)
COPYSIGN = BinaryOp("copysign", np.copysign, kind="div", fast=_FLOATS, native=exact_loop(3),
                    native_dtypes=frozenset((float32, float64)), exact_code=3)
FMOD = BinaryOp("fmod", np.fmod, kernel="fmod_cpu", int_zero_check=True, fast=_FLOATS, late_checks=True,
                native=float32_loop(0), native_dtypes=_F32_ONLY, native_min=64, entry_code=0)


def _truths(combine: np.ufunc) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """A logical op's flat-run kernel (a BinaryOp's ``native``) for two non-bool arrays of one shape
    and dtype: each operand's truth (``!= 0``: NaN true, -0.0 false) combined by ``combine`` on the
    bools. NumPy's comparisons have SIMD loops and its logical ufuncs on non-bool inputs none:
    1M float32 logical_and 0.86 -> 0.15 ms, the same bools."""
    def run(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        a = np.not_equal(x, 0)
        return combine(a, np.not_equal(y, 0), out=a)

    return run


_NOT_BOOL = frozenset(d for d in _ALL if d is not bool_)
LOGICAL_AND = BinaryOp("logical_and", np.logical_and, kind="compare", fast=_ALL, tensor_other=True,
                       native=_truths(np.logical_and), native_dtypes=_NOT_BOOL, native_min=4096)
LOGICAL_OR = BinaryOp("logical_or", np.logical_or, kind="compare", fast=_ALL, tensor_other=True,
                      native=_truths(np.logical_or), native_dtypes=_NOT_BOOL, native_min=4096)
LOGICAL_XOR = BinaryOp("logical_xor", np.logical_xor, kind="compare", fast=_ALL, tensor_other=True,
                       native=_truths(np.not_equal), native_dtypes=_NOT_BOOL, native_min=4096)

hypot, _, _, hypot_ = _make_binary(HYPOT)
atan2, _, _, atan2_ = _make_binary(ATAN2)
copysign, _, _, copysign_ = _make_binary(COPYSIGN)
fmod, _, _, fmod_ = _make_binary(FMOD)
logical_and, _, _, logical_and_ = _make_binary(LOGICAL_AND)
logical_or, _, _, logical_or_ = _make_binary(LOGICAL_OR)
logical_xor, _, _, logical_xor_ = _make_binary(LOGICAL_XOR)
arctan2, _, _, arctan2_ = _make_binary(ARCTAN2)

_METHODS: list[tuple[tuple[str, ...], Callable]] = [
    (("hypot",), hypot), (("hypot_",), hypot_),
    (("atan2",), atan2), (("atan2_",), atan2_), (("arctan2",), arctan2), (("arctan2_",), arctan2_),
    (("copysign",), copysign), (("copysign_",), copysign_),
    (("fmod",), fmod), (("fmod_",), fmod_),
    (("logical_and",), logical_and), (("logical_and_",), logical_and_),
    (("logical_or",), logical_or), (("logical_or_",), logical_or_),
    (("logical_xor",), logical_xor), (("logical_xor_",), logical_xor_),
]

# ---------------------------------------------------------------- lerp


def _lerp(input: Any, end: Any, weight: Any, target: Tensor | None, loop_out: Any = None) -> Tensor:
    """``input + weight * (end - input)`` with PyTorch's rules: float tensors of one dtype (no
    promotion: "expected dtype float for `end` but got dtype double"), ``weight`` a number or a
    tensor of that dtype; all three broadcast. Computed as PyTorch's kernel does, from the nearer
    end: ``input + w * (end - input)`` for |w| < 0.5, else ``end - (end - input) * (1 - w)``."""
    name = "lerp" if target is None else "lerp_"
    for arg, what, pos in ((input, "input", 1), (end, "end", 2)):
        if not isinstance(arg, Tensor):
            raise StridedTypeError(
                join_lines(
                    f"{name}(): argument '{what}' (position {pos}) must be Tensor, not {type(arg).__name__}",
                    f"lerp(input, end, weight) takes two tensors and a weight (a number or a tensor); "
                    f"wrap it: strided.tensor({arg!r:.40})",
                )
            )
    if type(weight) is int:  # (PyTorch's parser: an int weight beyond [-2**63, 2**64) is its OverflowError)
        parse_int(weight, name)
    d = input._dtype
    if not (d.is_floating_point or d.is_complex):  # (PyTorch's lerp kernels take complex too)
        from .._support.operands import _not_implemented

        raise _not_implemented("lerp_kernel_scalar" if not isinstance(weight, Tensor) else "lerp_kernel_tensor",
                               d, (input,), "fix: convert to float first, e.g. x.to(strided.float32)")
    for arg, what in ((end, "end"), (weight, "weight")):
        if isinstance(arg, Tensor) and arg._dtype is not d:
            raise StridedRuntimeError(
                join_lines(
                    f"expected dtype {TORCH_NAMES[d].lower()} for `{what}` but got dtype "
                    f"{TORCH_NAMES[arg._dtype].lower()}",
                    f"lerp does not promote: input is {d.name}, {what} is {arg._dtype.name}; "
                    f"fix: convert it, e.g. {what}.to(strided.{d.name})",
                )
            )
    if not isinstance(weight, (Tensor, bool, int, float, complex, np.generic)):  # (complex: checked below, as PyTorch)
        raise StridedTypeError(
            join_lines(
                f"{name}(): argument 'weight' (position 3) must be Tensor or Number, not {type(weight).__name__}",
                "weight is a number (0.5: the midpoint) or a tensor of input's dtype",
            )
        )
    if isinstance(weight, np.generic) and weight.dtype.kind in "biufc" and not isinstance(weight, complex):
        weight = numpy_scalar(weight)  # (PyTorch's Scalar: np.complex64 is its real part; complex128 checked below)
    operands = [input, end, weight]
    shape = _broadcast(name, operands, ("input", "end", "weight"))
    if target is None:
        # (a number weight is no operand of PyTorch's TensorIterator: lerp_Scalar's result is laid
        # out by input and end alone, a (1, 17) view of strides (1, 1) gives (17, 1); a 0-d tensor
        # weight is one, and that view then keeps (1, 1))
        out = _fresh_output(shape, d, operands if isinstance(weight, Tensor) else operands[:2], d)
    else:
        _check_inplace(target, name, d, shape)
        _check_partial_overlap(target, [end, weight], name)
        out = target
    compute = np.dtype(np.float32) if d in REDUCED_FLOATS else d.numpy
    if not isinstance(weight, Tensor):
        math_type = float32 if d in REDUCED_FLOATS else d
        message = scalar_overflow(weight, math_type)  # (PyTorch's weight.to<opmath_t>() in the kernel)
        if message is not None:
            raise StridedRuntimeError(join_lines(
                message,
                f"weight={weight!r} is outside the range of {math_type.name}, the dtype {name} computes in",
                "fix: a smaller weight, or tensors of a wider dtype (input.to(strided.float64))"))
    # (a number as PyTorch's weight.to<opmath_t>(): an int beyond 2**53 rounded once to float32)
    w = _view(weight) if isinstance(weight, Tensor) else compute.type(wrapped(weight, math_type))
    token = quiet_set(QUIET)
    try:
        a = _view(input).astype(compute, copy=False)
        b = _view(end).astype(compute, copy=False)
        w = np.asarray(w, dtype=compute)
        kind = "tensor" if isinstance(weight, Tensor) else "number"
        # (PyTorch's iteration: a number weight is no operand of it (lerp_kernel_scalar_weight); an
        # out= of the result's shape is its output, walked in its own layout)
        walked = loop_out if isinstance(loop_out, Tensor) and loop_out._layout.shape == shape else out
        walk = lambda: (shape, walked._layout.strides, target is None and walked is out,  # noqa: E731
                        [(t._layout.shape, t._layout.strides) for t in (input, end, weight) if isinstance(t, Tensor)])
        runs = _same_dense_runs(a, b, _view(out)) if w.ndim == 0 and compute.kind == "f" else None
        if runs is not None and walked._layout.strides == out._layout.strides:
            # (one layout, dense, walked in memory order: lerp_into's compiled passes over the runs)
            n = len(runs[0])
            fix = lerp_loop_fixes(runs[0], runs[1], w, kind, d, lambda: _flat_walk(n, kind == "tensor"))
            lerp_into(runs[0], runs[1], w[()], runs[2])
            apply_lerp_fixes(runs[2], fix)
            return out
        dest = _view(out)
        if compute.kind == "c" and (res := _complex_lerp(a, b, w, walk(), kind == "tensor", dest)) is not None:
            if res is not dest:  # (else written straight into out)
                np.copyto(dest, res, casting="unsafe")
            return out
        res = lerp_arrays(a, b, w)
        if compute.kind == "f":
            apply_lerp_fixes(res, lerp_loop_fixes(a, b, w, kind, d, walk))
        np.copyto(_view(out), res, casting="unsafe")
    finally:
        quiet_reset(token)
    return out


def _paired_weight_test(low: np.ndarray, walk: tuple, vector: np.ndarray, pos: np.ndarray | None = None) -> np.ndarray:
    """complex64 lerp with a weight tensor: in PyTorch's vector blocks (AVX2's is_lerp_weight_small
    for complex<float>, its |w|^2 lanes arranged by pairs) each odd element of a row's pair takes
    the even one's choice of end (``low``: |w| < 0.5 per element; ``walk``: the loop's shape,
    output strides, whether fresh, tensor operands; ``vector``: the vector places; ``pos``: the
    loop_positions' places where the caller has them)."""
    shape, strides, fresh, inputs = walk
    flat = low.reshape(-1)
    paired = flat.copy()
    if complex_forms._one_run(shape, strides, inputs):  # (one row-major run: places by flat index)
        idx = np.nonzero(vector.reshape(-1))[0]
        odd = idx[(idx % piece_length(flat.size)) % 2 == 1]  # (each parallel piece's blocks from its start)
        paired[odd] = flat[odd - 1]
        return paired.reshape(shape)
    if pos is None:
        pos, _, _ = loop_positions(shape, strides, fresh, inputs)
    perm = torch_loop_order(shape, strides, fresh, inputs)
    order = np.arange(flat.size).reshape(shape).transpose(perm[::-1]).reshape(-1)  # (iteration order)
    odd = np.nonzero(vector.reshape(-1)[order] & (pos.reshape(-1)[order] % 2 == 1))[0]
    paired[order[odd]] = flat[order[odd - 1]]
    return paired.reshape(shape)


def _complex_lerp(a: np.ndarray, b: np.ndarray, w: np.ndarray, walk: tuple, tensor_weight: bool,
                  dest: np.ndarray | None = None) -> np.ndarray | None:
    """Complex lerp as PyTorch's kernel computes each place (see :func:`_complex_lerp_emulated`):
    the compiled kernel where it is built and takes the buffers, else the emulation. None where
    neither runs (the compiled forms not built). ``dest``: where the result goes, returned itself
    when the kernel wrote it there (C-contiguous, of the compute dtype, apart from the operands)."""
    res = _complex_lerp_compiled(a, b, w, walk, tensor_weight, dest)
    return res if res is not None else _complex_lerp_emulated(a, b, w, walk, tensor_weight)


def _lerp_places(walk: tuple, itemsize: int) -> int | np.ndarray:
    """complex lerp's place modes (complex_forms' SCALE: 0 a vector place, 1 a scalar one; one int
    or an array over the shape, row-major) where PyTorch's loop is ``walk`` (shape, output
    strides, whether fresh, tensor operands)."""
    shape, strides, fresh, inputs = walk
    if _lerp_rows(walk):
        return 1  # (strided rows, basic_loop: lerp's compiled scalar loop fuses every product, measured)
    return complex_forms.modes(complex_forms.SCALE, shape, strides, fresh, inputs, itemsize, False)


_NO_PLACES = np.empty(0, np.uint8)  # (complex_lerp's vec for one row-major run: the kernel finds the places)
_NO_VECTOR = np.zeros(1, np.uint8)  # (complex_lerp's vec for strided rows: no vector place)


def _complex_lerp_compiled(a: np.ndarray, b: np.ndarray, w: np.ndarray, walk: tuple,
                           tensor_weight: bool, dest: np.ndarray | None = None) -> np.ndarray | None:
    """:func:`_complex_lerp_emulated`'s bits from the compiled ``complex_lerp`` (_complex_lerp.h)
    in one pass: one row-major run (the common dense case) has its vector places and complex64's
    pairs found by the kernel; other layouts pass the emulation's places and paired weight test.
    None where the kernel is not built or refuses the buffers (misaligned memory), or where a
    result has a NaN part (its NaN bits are the emulation's to give): the emulation then runs."""
    k = native.special()
    shape, strides, fresh, inputs = walk
    n = math.prod(shape)
    if k is None or not n or not hasattr(k, "complex_lerp"):
        return None
    compute = a.dtype
    pair = tensor_weight and compute.itemsize == 8
    block = 64 // compute.itemsize  # (2 * Vectorized<complex>::size(), AVX2's: complex_forms.modes' SCALE block)
    flat = lambda v, shape: native.kernel_run(complex_forms._flat(v, shape))  # noqa: E731
    low = _NO_PLACES  # (the kernel tests the weights, but the pairs of given places)
    order = _memory_run(shape, strides, inputs)
    if order is not None:  # (one run in memory order: the kernel finds the places)
        vec, piece = _NO_PLACES, piece_length(n)
        if order != tuple(range(len(shape))):  # (the operands and the result in that order)
            back = tuple(np.argsort(order))
            a, b, w = (_in_order(v, shape, order) for v in (a, b, w))
            dest = None if dest is None else dest.transpose(order)
            shape = tuple(shape[d] for d in order)
            res = _complex_lerp_kernel(k, a, b, w, dest, shape, (low, vec, piece, block, pair))
            return None if res is None else res if res is dest else res.transpose(back)
    else:  # (the places of _lerp_places from one loop_positions: strided rows have no vector place)
        places = loop_positions(shape, strides, fresh, inputs)
        vec, piece = _NO_VECTOR, n
        if places is not None:
            pos, length, _ = places
            vector = pos < length - length % block  # (complex_forms.modes' SCALE: before the row piece's tail)
            if pair and bool(np.any(vector)):  # (the pairs in PyTorch's iteration order)
                low = flat(_paired_weight_test(np.broadcast_to(w.real * w.real + w.imag * w.imag < 0.25, shape),
                                               walk, vector, pos), shape)
            vec = complex_forms._flat(vector.astype(np.uint8), shape)
    res = _complex_lerp_kernel(k, a, b, w, dest, shape, (low, vec, piece, block, pair))
    return res


def _complex_lerp_kernel(k: Any, a: np.ndarray, b: np.ndarray, w: np.ndarray, dest: np.ndarray | None,
                         shape: tuple[int, ...], places: tuple) -> np.ndarray | None:
    """The ``complex_lerp`` call over ``a``, ``b``, ``w`` (broadcast to ``shape``, row-major);
    ``places``: its low, vec, piece, block, pair. Into ``dest`` where it takes the
    result (:func:`_takes_result`), else a fresh array; None where the kernel refused or a result
    has a NaN part."""
    flat = lambda v: native.kernel_run(complex_forms._flat(v, shape))  # noqa: E731
    operands = (flat(a), flat(b), flat(w))
    compute = operands[0].dtype
    out = dest if _takes_result(dest, shape, compute, (a, b, w) + operands) else np.empty(shape, compute)
    nans = k.complex_lerp(*operands, places[0], places[1], out.reshape(-1), *places[2:])
    # (-1: buffers refused; a NaN result: its sign and payload are the emulation's NumPy steps', which
    # the compiled instruction order need not pass on: the emulation redoes the whole result)
    return out if nans == 0 else None


def _memory_run(shape: tuple[int, ...], strides: tuple[int, ...],
                inputs: Sequence[tuple[tuple[int, ...], tuple[int, ...]] | None]) -> tuple[int, ...] | None:
    """The dims in the output's memory order (slowest first) where PyTorch's loop is one run in
    that order (complex_forms._one_run of every operand so permuted: TensorIterator orders the
    dims by the output's strides and coalesces them), else None."""
    nd = len(shape)
    if complex_forms._one_run(shape, strides, inputs):  # (the common case first: row-major)
        return tuple(range(nd))
    order = tuple(sorted(range(nd), key=lambda d: -strides[d]))  # (stable: size-1 dims keep their place)
    if order == tuple(range(nd)):
        return None
    permuted = []
    for operand in inputs:
        if operand is None:
            permuted.append(None)
            continue
        pad = nd - len(operand[0])
        full_shape, full_strides = (1,) * pad + tuple(operand[0]), (0,) * pad + tuple(operand[1])
        permuted.append((tuple(full_shape[d] for d in order), tuple(full_strides[d] for d in order)))
    ok = complex_forms._one_run(tuple(shape[d] for d in order), tuple(strides[d] for d in order), permuted)
    return order if ok else None


def _in_order(v: np.ndarray, shape: tuple[int, ...], order: tuple[int, ...]) -> np.ndarray:
    """``v`` (broadcast to ``shape``) with its dims in ``order``; one element as it is."""
    v = np.asarray(v)
    return v if v.size == 1 else np.broadcast_to(v, shape).transpose(order)


def _takes_result(dest: np.ndarray | None, shape: tuple[int, ...], compute: np.dtype,
                  operands: tuple[np.ndarray, ...]) -> bool:
    """Whether the kernel may write the result straight into ``dest``: C-contiguous, writable,
    aligned, of ``shape`` and the compute dtype, and apart from every operand, the arrays given and
    their flat copies (the emulation may still have to read them after: a NaN result)."""
    if dest is None or dest.size < 4096:  # (a small result: the copy costs less than the checks)
        return False
    return dest.shape == shape and dest.dtype == compute and dest.flags.c_contiguous \
        and dest.flags.writeable and dest.flags.aligned and not any(np.may_share_memory(dest, x) for x in operands)


def _lerp_weight_small(w: np.ndarray, vector: np.ndarray, walk: tuple, pair: bool) -> np.ndarray:
    """PyTorch's is_lerp_weight_small for complex weights ``w`` at each place (``vector``: the
    vector places, over the shape), as measured on x86-64: Vectorized's ``abs_2_() < 0.25`` at a
    vector place (re * re + im * im, each step rounded; with ``pair``, complex64's weight tensor,
    each odd element of a row's pair takes the even one's), elsewhere the scalar ``re * re + im *
    im < 0.25`` contracted to fma(re, re, im * im); number weights too (measured: 0-d, tails,
    strided rows; |w| near 0.5). (Before, NumPy's np.abs(w) < 0.5: it differed where |w| is
    within ulps of 0.5.)"""
    re, im = w.real, w.imag
    rounded = re * re + im * im < 0.25
    scalar = fma(re, re, im * im) < 0.25
    at_vector = np.broadcast_to(rounded, vector.shape)
    if pair and bool(np.any(vector)):
        at_vector = _paired_weight_test(at_vector, walk, vector)
    return np.where(vector, at_vector, scalar)


def _lerp_rows(walk: tuple) -> bool:
    """Whether PyTorch's loop ``walk`` (shape, output strides, whether fresh, tensor operands) takes
    strided rows (basic_loop: no vector places)."""
    shape, strides, fresh, inputs = walk
    return math.prod(shape) > 1 and not complex_forms._one_run(shape, strides, inputs) and \
        loop_positions(shape, strides, fresh, inputs) is None


def _complex_lerp_emulated(a: np.ndarray, b: np.ndarray, w: np.ndarray, walk: tuple,
                           tensor_weight: bool) -> np.ndarray | None:
    """Complex lerp as PyTorch's kernel computes each place (``walk``: the loop's shape, output
    strides, whether fresh, tensor operands): its vector blocks ``fmadd(coeff, end - input, base)``
    (coeff w or w - 1, base input or end, by |w| < 0.5; the product rounded, then the sum), its
    scalar places ``input + w * (end - input)`` or ``end - (end - input) * (1 - w)`` with the
    product fused (complex_forms' MUL forms; strided rows fuse every one). None where the compiled
    forms are not built."""
    shape, strides, fresh, inputs = walk
    compute = a.dtype
    if math.prod(shape) == 0:  # (no element: no loop positions to pair)
        return np.empty(shape, compute)
    diff = np.subtract(b, a)
    if diff.shape != shape:
        diff = np.broadcast_to(diff, shape)
    place = _lerp_places(walk, compute.itemsize)
    flags = np.asarray(place) == 0  # (one mode, or one per element in row-major order)
    vector = np.full(shape, bool(flags)) if flags.ndim == 0 else flags.reshape(shape)
    one = compute.type(1)
    low = _lerp_weight_small(w, vector, walk, tensor_weight and compute.itemsize == 8)
    if low.ndim == 0:  # (a number weight: one end for every element)
        out = np.empty(shape, compute)
        if bool(low):
            if not complex_forms.forms_into(complex_forms.MUL, w, diff, out, place):
                return None
            return np.add(a, out, out=out)
        far = np.empty(shape, compute)
        if not (complex_forms.forms_into(complex_forms.MUL, w - one, diff, out, 0)
                and (flags.ndim == 0 and bool(flags)
                     or complex_forms.forms_into(complex_forms.MUL, diff, one - w, far, 1))):
            return None
        return np.where(vector, b + out, b - far)
    near, far_vec, far_one = (np.empty(shape, compute) for _ in range(3))
    if not (complex_forms.forms_into(complex_forms.MUL, w, diff, near, place)
            and complex_forms.forms_into(complex_forms.MUL, w - one, diff, far_vec, 0)
            and complex_forms.forms_into(complex_forms.MUL, diff, one - w, far_one, 1)):
        return None
    return np.where(low, a + near, np.where(vector, b + far_vec, b - far_one))


def lerp_arrays(a: np.ndarray, b: np.ndarray, w: np.ndarray) -> np.ndarray:
    """PyTorch's lerp kernel on NumPy arrays of one compute dtype (float32, float64 or complex;
    they broadcast), from the nearer end: ``fmadd(w, b - a, a)`` for |w| < 0.5, else
    ``fmadd(w - 1, b - a, b)``, each rounded once (complex: the kernel's two roundings). Call it
    with NumPy's warnings off (:func:`~strided.kernels.fpstate.quiet_set`, in the caller's
    context: :func:`fma`'s kernel switch is a context variable)."""
    compute = a.dtype
    diff = np.subtract(b, a)
    low = np.abs(w) < 0.5
    if compute.kind == "f":  # PyTorch's kernel: fmadd(w, diff, a) or fmadd(w - 1, diff, end), rounded once
        if w.ndim == 0:
            return fma(w, diff, a) if low else fma(w - compute.type(1), diff, b)
        if w.shape == diff.shape == a.shape == b.shape and w.dtype == compute:
            # (no broadcasting: flat runs for fma_into's compiled loops, fma's same bits)
            wf, df = np.ascontiguousarray(w).reshape(-1), np.ascontiguousarray(diff).reshape(-1)
            near, far = np.empty(df.shape, compute), np.empty(df.shape, compute)
            fma_into(wf, df, np.ascontiguousarray(a).reshape(-1), near)
            fma_into(wf - compute.type(1), df, np.ascontiguousarray(b).reshape(-1), far)
            return np.where(low, near.reshape(w.shape), far.reshape(w.shape))
        return np.where(low, fma(w, diff, a), fma(w - compute.type(1), diff, b))
    return np.where(low, a + w * diff, b - diff * (compute.type(1) - w))  # (complex: two roundings)


# PyTorch's lerp loop step (cpu_kernel_vec's 2 * Vectorized<T>::size() as its lerp kernels run on
# x86-64, measured on 2.13: 16 float32, 8 float64, 32 float16/bfloat16), by the tensor's itemsize
_LERP_STEP = {2: 32, 4: 16, 8: 8}
# Where PyTorch's lerp returns (end - input)'s NaN (D) rather than the weight's (W) when both are
# NaN: the compiler's operand order in each copy of the fused multiply-add (its two unrolled
# vector steps, its auto-vectorized scalar tail's 8/4/2/1-wide parts, each specialization of
# cpu_kernel_vec for a stride-0 operand), measured on PyTorch 2.13 x86-64 (bfloat16's NaNs are its
# conversion's own and complex's another kernel: not modelled). By (weight: "number" or "tensor",
# dtype, the operand the vector loop takes as a scalar): the pattern over one vector block of
# _LERP_STEP elements and, space-separated, the scalar tail's for each tail length 1 .. step - 1,
# run-length coded ("D4W4": DDDDWWWW). A strided row (basic_loop) is all D for a number weight
# and all W for a tensor one.
_NAN_ORDER = {
    ("number", "float16", None): ("D24W8", "D1 D2 D3 D4 D5 D6 D7 D8 D9 D10 D11 D12 D13 D14 D15 D16 D17 D18 "
                                           "D19 D20 D21 D22 D23 D24 D25 D26 D27 D28 D29 D30 D31"),
    ("number", "float16", "input"): ("D24W8", "D1 D2 D3 D4 D5 D6 D7 D8 D9 D10 D11 D12 D13 D14 D15 D16 D17 "
                                              "D18 D19 D20 D21 D22 D23 D24 D25 D26 D27 D28 D29 D30 D31"),
    ("number", "float16", "end"): ("D24W8", "W1 W1D1 W1D2 W1D3 W1D4 W1D5 W1D6 W1D7 W1D8 W1D9 W1D10 W1D11 "
                                            "W1D12 W1D13 W1D14 W1D15 W1D16 W1D17 W1D18 W1D19 W1D20 W1D21 "
                                            "W1D22 W1D23 W1D24 W1D25 W1D26 W1D27 W1D28 W1D29 W1D30"),
    ("tensor", "float16", None): ("W24D8", "W1 W2 W3 W4 W5 W6 W7 W8 W9 W10 W11 W12 W13 W14 W15 W16 W17 W18 "
                                           "W19 W20 W21 W22 W23 W24 W25 W26 W27 W28 W29 W30 W31"),
    ("tensor", "float16", "input"): ("W32", "W1 W2 W3 W4 W5 W6 W7 W8 W9 W10 W11 W12 W13 W14 W15 W16 W17 W18 "
                                            "W19 W20 W21 W22 W23 W24 W25 W26 W27 W28 W29 W30 W31"),
    ("tensor", "float16", "end"): ("W32", "W1 W2 W3 W4 W5 W6 W7 W8 W9 W10 W11 W12 W13 W14 W15 W16 W17 W18 "
                                          "W19 W20 W21 W22 W23 W24 W25 W26 W27 W28 W29 W30 W31"),
    ("tensor", "float16", "weight"): ("D32", "W1 W2 W3 W4 W5 W6 W7 W8 W9 W10 W11 W12 W13 W14 W15 W16 W17 "
                                             "W18 W19 W20 W21 W22 W23 W24 W25 W26 W27 W28 W29 W30 W31"),
    ("number", "float32", None): ("D8W8", "W1 W2 W3 W4 W5 W6 W6D1 W8 W9 W10 W10D1 W12 W13 W14 W14D1"),
    ("number", "float32", "input"): ("D8W8", "W1 W2 W3 W4 W5 W6 W7 W8 W9 W10 W11 W12 W13 W14 W15"),
    ("number", "float32", "end"): ("D8W8", "W1 W2 W3 W4 W5 W6 W7 W8 W9 W10 W11 W12 W13 W14 W15"),
    ("tensor", "float32", None): ("W16", "W1 W2 W3 W4 W5 W6 W6D1 W8 W9 W10 W10D1 W12 W13 W14 W14D1"),
    ("tensor", "float32", "input"): ("W16", "W1 W2 W3 D4 D4W1 D4W2 D4W3 D8 D8W1 D8W2 D8W3 D12 D12W1 D12W2 "
                                            "D12W3"),
    ("tensor", "float32", "end"): ("W16", "W1 W2 W3 D4 D4W1 D4W2 D4W3 W8 W9 W10 W11 W8D4 W8D4W1 W8D4W2 "
                                          "W8D4W3"),
    ("tensor", "float32", "weight"): ("D16", "W1 W2 W3 D4 D4W1 D4W2 D4W2D1 W8 W9 W10 W10D1 W8D4 W8D4W1 "
                                             "W8D4W2 W8D4W2D1"),
    ("number", "float64", None): ("D4W4", "W1 D2 D2W1 W4 W5 W4D2 W4D2W1"),
    ("number", "float64", "input"): ("D4W4", "W1 W2 W3 W4 W5 W6 W7"),
    ("number", "float64", "end"): ("D4W4", "W1 W2 W3 W4 W5 W6 W7"),
    ("tensor", "float64", None): ("W8", "D1 W2 W2D1 W4 W4D1 W6 W6D1"),
    ("tensor", "float64", "input"): ("W8", "D1 W2 W2D1 W4 W4D1 W6 W6D1"),
    ("tensor", "float64", "end"): ("W8", "D1 D2 D3 D4 D5 D6 D7"),
    ("tensor", "float64", "weight"): ("D8", "D1 D2 D3 W4 W4D1 W4D2 W4D3"),
}


def _rle(code: str) -> list[bool]:
    """A run-length coded pattern of :data:`_NAN_ORDER` as one bool per element (True: D)."""
    out: list[bool] = []
    for letter, count in re.findall(r"([DW])(\d+)", code):
        out += [letter == "D"] * int(count)
    return out


@functools.cache
def _nan_table(key: tuple) -> np.ndarray:
    """:data:`_NAN_ORDER`'s entry as a (step, step) bool table: row 0 the vector block's pattern,
    row k the pattern of a scalar tail of k elements (padded)."""
    vector, tails = _NAN_ORDER[key]
    rows = [_rle(vector)] + [_rle(t) for t in tails.split()]
    step = len(rows[0])
    return np.array([r + [False] * (step - len(r)) for r in rows])


def _nan_from_diff(kind: str, d: Any, walk: tuple, shape: tuple) -> np.ndarray | None:
    """Where (a bool array of ``shape``) PyTorch's lerp returns the difference's NaN rather than
    the weight's (:data:`_NAN_ORDER`); None where that is not modelled (dtype, layout)."""
    places = loop_positions(*walk)
    if places is None:  # (a strided row: basic_loop, the scalar function throughout)
        return np.full(shape, kind == "number")
    pos, length, scalar = places
    operands = ("input", "end", "weight")
    key = (kind, d.name, None if scalar is None else operands[scalar])
    if key not in _NAN_ORDER:
        return None
    rows = _nan_table(key)
    step = rows.shape[1]
    tail = length % step
    in_tail = pos >= length - tail
    return np.where(in_tail, rows[tail, np.where(in_tail, pos - (length - tail), 0)], rows[0, pos % step])


def _flat_walk(n: int, one_weight: bool) -> tuple:
    """PyTorch's iteration of two flat runs of ``n`` (and a one-element weight tensor, stride 0):
    one row, as :func:`lerp_loop_fixes`' ``walk``."""
    return (n,), (1,), True, [((n,), (1,)), ((n,), (1,))] + ([((), ())] if one_weight else [])


def lerp_loop_fixes(a: np.ndarray, b: np.ndarray, w: np.ndarray, kind: str, d: Any,
                    walk_of: Callable[[], tuple]) -> tuple | None:
    """Where PyTorch's lerp differs from :func:`lerp_arrays`' vector formula, planned before the
    result is written (an in-place result may be ``a``): None in the common case (no weight of 1
    or NaN), else (zero flips, NaN positions, NaN values) for :func:`apply_lerp_fixes`.

    Its scalar loop computes ``end - (end - input) * (1 - w)`` fused, where the vector loop
    computes ``fmadd(w - 1, end - input, end)``: the same magnitude, but for ``w == 1`` and
    ``end == -0.0`` the zero's sign is flipped (``lerp(0., -0., 1.)`` is 0.0 in its scalar loop,
    -0.0 in its vector loop). And for a NaN weight with a NaN ``end - input``, some of its loops
    return the difference's NaN, not the weight's (:data:`_NAN_ORDER`). ``a``, ``b``, ``w``:
    the compute-dtype operands (broadcastable to the result); ``kind``: "number" or "tensor"
    (the weight); ``d``: the tensor dtype; ``walk_of``: PyTorch's iteration (called only here), the
    arguments (shape, out_strides, fresh, inputs) of :func:`scalar_loop_mask`."""
    if w.dtype.kind != "f":
        return None
    if w.ndim == 0:
        if w != 1 and w == w:  # (the common case, no array passes)
            return None
    else:  # (two passes, no temporaries kept: a sum is NaN where a NaN is)
        total = _add_reduce(w, axis=None)
        if total == total and not _count_nonzero(_equal(w, 1)):
            return None
    one, nan = w == 1, np.isnan(w)
    walk = walk_of()
    mask = scalar_loop_mask(*walk, step=_LERP_STEP[d.itemsize])
    shape = np.broadcast_shapes(a.shape, b.shape, w.shape)
    flips = None
    if mask is not None and one.any():
        flips = mask & one & (b == 0) & np.signbit(b) & np.isfinite(a)
    if not nan.any() or d.name not in ("float16", "float32", "float64"):
        return flips, None, None
    with np.errstate(invalid="ignore"):
        diff = np.subtract(b, a)
    places = nan & np.isnan(diff)
    if not places.any():
        return flips, None, None
    # (a number weight is no operand of PyTorch's iteration; a tensor one is its third input)
    order = _nan_from_diff(kind, d, walk, shape)
    if order is None:
        return flips, None, None
    places = places & order
    return flips, places, np.broadcast_to(diff, shape)[places] if places.any() else None


def apply_lerp_fixes(res: np.ndarray, fix: tuple | None) -> None:
    """Write :func:`lerp_loop_fixes`' plan into ``res`` (the vector formula's result, of the
    result's shape or its flat run): flip the planned zeros, put the planned NaNs."""
    if fix is None:
        return
    flips, places, values = fix
    if flips is not None and flips.any():
        np.negative(res, out=res, where=np.broadcast_to(flips, res.shape))
    if values is not None:
        res[np.broadcast_to(places, res.shape)] = values


def _lerp_flat(input: Any, end: Any, weight: Any, target: Tensor | None) -> Tensor | None:
    """:func:`_lerp` on flat runs (an optimizer's ``exp_avg.lerp_(grad, 1 - beta1)``): for
    ``input`` and ``end`` of one float32/float64 dtype and shape, both row-major (or both of one
    dense permuted layout: the result takes it, as PyTorch's), a Python float
    ``weight``, and in place (``target``, which is ``input``) an ``end`` sharing none of its memory
    and a writable target, :func:`_lerp`'s checks all pass and its computation runs on the same
    elements (so the same bits), laid out as the general path lays it out. None
    for any other call (nothing written): the general path."""
    if (type(input) is not Tensor and type(input) not in SUBCLASSES) or (
            type(end) is not Tensor and type(end) not in SUBCLASSES) or type(weight) is not float:
        return None
    d = input._dtype
    if d not in _FLAT_DTYPES or end._dtype is not d or (d is float32 and _F32_MAX < abs(weight) < math.inf):
        return None  # (a weight beyond float32: the general path refuses it, as PyTorch does)
    la, lb = input._layout, end._layout
    info = _cinfo[la.shape]
    if lb.shape != la.shape or (target is not None and end is not input and shares_storage(end, input)):
        return None
    layout = info[2]
    if la.strides == info[0]:
        a, b = flat_run(input, info), flat_run(end, info)
    else:  # (one dense permutation shared by both, a transpose: their storage runs in memory order,
        # the result laid out so, as TensorIterator walks and lays out two such operands)
        n, layout, _ = _flat_plans[(la.shape, la.strides)]
        if layout is None or lb.strides != la.strides:
            return None
        a, b = input._storage.array[la.offset: la.offset + n], end._storage.array[lb.offset: lb.offset + n]
        if len(a) != n or len(b) != n:
            return None
    if a is None or b is None or (target is not None and not a.flags.writeable):
        return None
    compute = d.numpy
    if weight == 1.0 or weight != weight:
        # (PyTorch's scalar tail and NaN order: planned before an in-place write, applied after)
        fix = lerp_loop_fixes(a, b, np.asarray(weight, compute), "number", d, lambda: _flat_walk(len(a), False))
        out = a if target is not None else np.empty(info[1], compute)
        quietly(lerp_into, a, b, compute.type(weight), out)
        apply_lerp_fixes(out, fix)
        return target if target is not None else adopted(out, layout, d)
    if (k := native.special()) is not None:
        # (lerp_into's compiled pass alone: no NumPy arithmetic, nothing to quiet; the weight as the
        # Python float it is: the kernel's (float) cast rounds it as compute.type(weight) does; in
        # place, its output is ``a`` itself, as lerp_into's call below passes it: an optimizer's
        # ``exp_avg.lerp_(grad, 1 - beta1)`` without the quiet block and the NumPy scalar)
        if target is not None:
            if k.lerp_runs(a, b, weight, a):
                return target
        else:
            out = np.empty(info[1], compute)
            if k.lerp_runs(a, b, weight, out):
                return adopted(out, layout, d)
    out = a if target is not None else np.empty(info[1], compute)
    token = quiet_set(QUIET)
    try:
        lerp_into(a, b, compute.type(weight), out)
    finally:
        quiet_reset(token)
    return target if target is not None else adopted(out, layout, d)


def lerp(input: Any, end: Any, weight: Any, *, out: Any = None) -> Tensor:
    """Linear interpolation ``input + weight * (end - input)``, broadcast; float tensors of one
    dtype; ``out=`` takes the result with PyTorch's out rules.

    >>> strided.lerp(strided.tensor([0.0, 10.0]), strided.tensor([10.0, 20.0]), 0.5).tolist()
    [5.0, 15.0]
    """
    if out is not None:
        return write_out(out, _lerp(input, end, weight, None, out), "lerp", (input, end, weight), through_temporary=True)
    if not OPEN:
        fast = _lerp_flat(input, end, weight, None)
        if fast is not None:
            return fast
    return _lerp(input, end, weight, None)


def lerp_(self: Tensor, end: Any, weight: Any) -> Tensor:
    """In-place :func:`lerp`.

    >>> x = strided.tensor([0.0, 10.0])
    >>> x.lerp_(strided.tensor([10.0, 20.0]), 0.5).tolist()
    [5.0, 15.0]
    """
    if not OPEN:
        fast = _lerp_flat(self, end, weight, self)
        if fast is not None:
            return fast
    try:
        return _lerp(self, end, weight, self)
    except UpdatesInOrder as refusal:  # (a target whose elements share memory: PyTorch's updates)
        return updates_in_order(lerp_, self, (end, weight), {}, refusal)


# ---------------------------------------------------------------- isclose, allclose, equal


def _same_dtype(a: Any, b: Any, op: str) -> None:
    for x, pos in ((a, 1), (b, 2)):
        if not isinstance(x, Tensor):
            raise StridedTypeError(
                join_lines(
                    f"{op}(): argument '{'input' if pos == 1 else 'other'}' (position {pos}) must be "
                    f"Tensor, not {type(x).__name__}",
                    f"{op} compares two tensors; wrap the number: strided.tensor({x!r:.40})",
                )
            )
    if a._dtype is not b._dtype:
        raise StridedRuntimeError(
            join_lines(
                f"{TORCH_NAMES[a._dtype]} did not match {TORCH_NAMES[b._dtype]}",
                f"{op} compares tensors of one dtype; input is {a._dtype.name}, other is {b._dtype.name}",
                f"fix: convert one, e.g. other.to(strided.{a._dtype.name})",
            )
        )


def isclose(input: Any, other: Any, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Tensor:
    """``|input - other| <= atol + rtol * |other|`` elementwise (bool), broadcast; both tensors of one
    dtype. Infinities are close only to themselves; NaNs only under ``equal_nan``.

    >>> strided.isclose(strided.tensor([1.0, 2.0]), strided.tensor([1.0 + 1e-9, 2.1])).tolist()
    [True, False]
    """
    _same_dtype(input, other, "isclose")
    for value, what in ((rtol, "rtol"), (atol, "atol")):
        if value < 0:
            raise StridedRuntimeError(
                join_lines(
                    f"{what} must be greater than or equal to zero, but got {value}",
                    f"isclose tests |input - other| <= atol + rtol * |other|; a negative {what} makes "
                    "nothing close",
                )
            )
    d = input._dtype
    operands = [input, other]
    shape = _broadcast("isclose", operands, ("input", "other"))
    out = _fresh_output(shape, bool_, operands, d)
    x, y = _view(input), _view(other)
    token = quiet_set(QUIET)
    try:
        if not (d.is_floating_point or d.is_complex) and rtol == 0 and atol == 0:
            np.equal(x, y, out=_view(out))  # (a complex NaN pair is still close under equal_nan: below)
        else:
            # PyTorch's formula (torch._refs.isclose) in its dtypes: a float's own (complex: the
            # distances are real, |x - y| <= atol + |rtol * y|, in the real dtype); bool and
            # integers cast to the default float dtype first (no uint8 difference wraps; an
            # integer that dtype cannot hold is rounded, as in PyTorch), their equality exact
            inexact = d.is_floating_point or d.is_complex
            compute = d.numpy if inexact else get_default_dtype().numpy
            real = np_finfo(compute).dtype.type
            xf = x.astype(compute, copy=False)
            yf = y.astype(compute, copy=False)
            close = np.equal(xf, yf) if inexact else np.equal(x, y)
            if d.is_complex:  # PyTorch's atol + (rtol * y).abs(): the parts scaled, then |z| as strided.abs
                error = complex_abs(xf - yf)
                within = error <= real(atol) + complex_abs(yf * real(rtol))
            else:  # (|rtol * y| is rtol * |y| exactly for a real y)
                error = np.abs(xf - yf)
                within = error <= real(atol) + real(rtol) * np.abs(yf)
            # (PyTorch's isfinite(actual_error): an infinite or NaN operand, and also a difference
            # of finite ones that overflows the dtype (3e38 and -3e38 in float32), is not close)
            close |= within & np.isfinite(error)
            if equal_nan and inexact:
                close |= np.isnan(xf) & np.isnan(yf)
            np.copyto(_view(out), close)
    finally:
        quiet_reset(token)
    # PyTorch's isclose (ATen's, not the refs') ors its parts into its result in place: NaN pairs
    # under equal_nan for a float or complex dtype, then the finite closeness unless both
    # tolerances are 0; each ``close.__ior__`` counts in the result's ``_version``
    return count_kernel_writes(out, (equal_nan and (d.is_floating_point or d.is_complex)) + (rtol != 0 or atol != 0))


def allclose(input: Any, other: Any, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:
    """True when :func:`isclose` holds everywhere (a Python bool).

    >>> strided.allclose(strided.tensor([1.0]), strided.tensor([1.0 + 1e-9]))
    True
    """
    return bool(isclose(input, other, rtol, atol, equal_nan)._np().all())


def equal(input: Any, other: Any) -> bool:
    """True when both tensors have the same shape and the same elements (a Python bool).

    Tensors of different dtypes are compared after promotion (as PyTorch 2.13); a shape
    mismatch is False, not an error. NaN is never equal.

    >>> strided.equal(strided.tensor([1, 2]), strided.tensor([1.0, 2.0]))
    True
    """
    _ = result_type(input, other) if isinstance(input, Tensor) and isinstance(other, Tensor) else None
    if not isinstance(input, Tensor) or not isinstance(other, Tensor):
        _same_dtype(input, other, "equal")
    if input._layout.shape != other._layout.shape:
        return False
    return bool(np.array_equal(input._np(), other._np()))


_METHODS += [
    (("lerp",), lerp), (("lerp_",), lerp_), (("isclose",), isclose), (("allclose",), allclose),
    (("equal",), equal),
]
for _names, _fn in _METHODS:
    method(*_names)(_fn)
    if _fn in (hypot_, atan2_, arctan2_, copysign_, fmod_, logical_and_, logical_or_, logical_xor_):
        inplace_example(_names, _fn)


# ---------------------------------------------------------------- backward rules
# PyTorch's formulas (derivatives.yaml), on strided's own ops. A number operand gets no gradient
# (its edge is empty, as PyTorch's wrapped-number edges are); broadcasting is summed by the engine.


def _is_tensor(v: Any) -> bool:
    return isinstance(v, Tensor)


@backward("atan2", "arctan2", operands="two")
def atan2_backward(out: Tensor, a: Any, b: Any, **kwargs: Any) -> Any:
    """d/da atan2(a, b) = b / (a^2 + b^2), d/db = -a / (a^2 + b^2), as PyTorch's atan2_backward:
    the reciprocal is taken as 0 where it is infinite (at (0, 0): 0 and -0, not 0/0)."""

    def grads(g: Tensor) -> tuple:
        recip = (a * a + b * b).reciprocal()
        recip = recip.masked_fill(recip.isinf(), 0)
        return g * b * recip, g * -a * recip

    return "Atan2Backward0", (a, b), grads, (a, b)


@backward("hypot", operands="two")
def hypot_backward(out: Tensor, a: Any, b: Any, **kwargs: Any) -> Any:
    """d/da hypot(a, b) = a / hypot(a, b) (and b / hypot for b), in PyTorch's order
    (derivatives.yaml: ``grad * self / result``; (g / result) * self was an ulp off in a third)."""

    def grads(g: Tensor) -> tuple:
        return g * a / out, g * b / out

    return "HypotBackward0", (a, b), grads, (a, b, out)


@backward("fmod", operands="two")
def fmod_backward(out: Tensor, a: Any, b: Any, **kwargs: Any) -> Any:
    """fmod(a, b) = a - trunc(a / b) * b: the gradient of a is g, of b -g * trunc(a / b)."""
    if not _is_tensor(b):
        return "FmodBackward0", (a,), lambda g: (g,), ()
    return "FmodBackward1", (a, b), lambda g: (g, -g * (a / b).trunc()), (a, b)


@backward("copysign", operands="two")
def copysign_backward(out: Tensor, a: Any, b: Any, **kwargs: Any) -> Any:
    """|a| with b's sign: the gradient of a is g * (result / a), 0 where a == 0; b gets zero."""

    def grad_a(g: Tensor) -> Tensor:
        return g * (out / a).masked_fill(a == 0, 0)

    if not _is_tensor(b):
        return "CopysignBackward1", (a,), lambda g: (grad_a(g),), (a, out)
    return "CopysignBackward0", (a, b), lambda g: (grad_a(g), gradtools.zeros(b._layout.shape, g._dtype)), (a, out)


@backward("lerp", operands="any")
def lerp_backward(out: Tensor, a: Any, end: Any, weight: Any) -> Any:
    """a + w (end - a): the gradients are g (1 - w), g w and (weight a tensor) g (end - a), as
    derivatives.yaml writes them in PyTorch's convention for complex gradients (each factor
    conjugated; conjugated around, the same values with other signs of zero)."""
    if not _is_tensor(weight):
        # (derivatives.yaml: a complex weight's conj, a real one as a double)
        w = complex(weight).conjugate() if isinstance(weight, complex) else float(weight)
        return "LerpBackward0", (a, end), _in_pytorch_convention(lambda g: (g * (1 - w), g * w)), ()

    def grads(g: Tensor) -> tuple:
        # (C++'s 1 - weight: weight-shaped 1 minus weight, as strided's rsub gives)
        return g * (1 - weight).conj(), g * weight.conj(), g * (end - a).conj()

    # (PyTorch saves self and end, read only by weight's gradient, only where weight requires grad)
    saved = (a, end, weight) if requires_grad(weight) else (weight,)
    return "LerpBackward1", (a, end, weight), _in_pytorch_convention(grads), saved


# ---------------------------------------------------------------- addcmul, addcdiv (an Adam step's ops)
# Each is one declaration (@op: the method, the registry entry, the rule, the in-place variant).


def _addc_rule(node: str, divide: bool) -> Callable[..., Any]:
    """``input + value * t1 * t2`` (or ``/ t2``): derivatives.yaml's formulas in their order, in
    PyTorch's convention for complex gradients: g, ``g * (t2 * value).conj()`` and
    ``g * (t1 * value).conj()``; addcdiv: ``g * (value / t2).conj()`` (C++'s Scalar / Tensor:
    ``t2``-shaped ``value`` divided by ``t2``) and ``-g * (value * t1 / (t2 * t2)).conj()``.
    The engine sums each to its input's shape. (Conjugated around, the holomorphic form had the
    same values, other signs of zero: 12 of 12 complex cases of each differed from PyTorch's.)"""

    def rule(out: Tensor, input: Any, tensor1: Any, tensor2: Any, *, value: Any = 1, **kwargs: Any) -> Any:
        def grads(g: Tensor) -> tuple:
            if divide:
                return (g, g * (tensor2.new_full(tensor2.shape, value) / tensor2).conj(),
                        -g * (tensor1 * value / (tensor2 * tensor2)).conj())
            return g, g * (tensor2 * value).conj(), g * (tensor1 * value).conj()

        grads.pytorch_convention = True  # type: ignore[attr-defined]
        # (PyTorch saves a factor only for the other factor's gradient, and only where that other
        # factor requires grad (its codegen's should_compute_output guard); addcdiv's divisor is in
        # both formulas, always saved: so a factor outside the graph may be written before backward)
        t1, t2 = isinstance(tensor1, Tensor) and requires_grad(tensor1), isinstance(tensor2, Tensor) and requires_grad(tensor2)
        saved = ((tensor1,) if t2 else ()) + ((tensor2,) if t1 or divide else ())
        return node, (input, tensor1, tensor2), grads, saved

    return rule


def _is_value(value: Any) -> bool:
    """Whether ``value=`` is what PyTorch's parser takes as a Number there: a Python or NumPy
    number (bool, int, float, complex) or a 0-d tensor (a one-element (1,) tensor is refused)."""
    return is_number(value) or (isinstance(value, Tensor) and value.ndim == 0)


def _value_error(name: str, value: Any) -> StridedTypeError:
    """PyTorch's parser error for a ``value=`` that is not a Number (``name``: the op as called)."""
    return StridedTypeError(join_lines(
        f"{name}(): argument 'value' must be Number, not {'Tensor' if isinstance(value, Tensor) else type_name(value)}",
        f"value scales the {'quotient' if 'div' in name else 'product'}: x.{name}(t1, t2, value=0.5); a "
        "one-element tensor v: value=v.item()"))


def _addc(name: str, input: Any, tensor1: Any, tensor2: Any, value: Any, out: Any, divide: bool,
          target: Tensor | None = None) -> Tensor:
    """addcmul / addcdiv (``name``) after :func:`_addc_fresh` declined (the functions call it first);
    ``target``: the in-place form's tensor (complex: :func:`_complex_addc_inplace`)."""
    for arg, what, pos in ((input, "input", 1), (tensor1, "tensor1", 2), (tensor2, "tensor2", 3)):
        if not isinstance(arg, Tensor):
            raise StridedTypeError(join_lines(
                f"{name}(): argument '{what}' (position {pos}) must be Tensor, not {type(arg).__name__}",
                f"{name} takes three tensors; wrap the number: strided.tensor({arg!r:.40})"))
    if divide and not (tensor1._dtype.is_floating_point or tensor1._dtype.is_complex) and not (
            tensor2._dtype.is_floating_point or tensor2._dtype.is_complex):
        raise StridedRuntimeError(join_lines(
            "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform a "
            "true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as (input + "
            "value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + value * "
            "tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter implementation: "
            "(input + value * tensor1 / tensor2), for all dtypes.",
            f"tensor1 is {tensor1._dtype.name} and tensor2 {tensor2._dtype.name}",
            "fix: tensor1.to(strided.float32) (a true division), or input + value * (tensor1 / tensor2).trunc()"))
    if not _is_value(value):
        raise _value_error(name, value)
    d = result_type(input, tensor1, tensor2)  # (the three at once, as TensorIterator: a 0-d input is one of them)
    if not divide:
        support.check(name, d, (input, tensor1, tensor2))  # (bool and the wide unsigned: no addcmul kernel)
    if isinstance(value, np.generic) and value.dtype.kind in "biufc":
        value = numpy_scalar(value)  # (PyTorch's Scalar: np.complex64 is its real part, np.True_ 1.0)
    # (PyTorch's value.to<math type>(): a complex value with an imaginary part is refused for a real
    # dtype, 1+0j is read as 1.0; the value never joins the type promotion)
    message = scalar_overflow(value, float32 if d in REDUCED_FLOATS else d)
    if message is not None:
        raise StridedRuntimeError(join_lines(
            message,
            f"value={value!r} is outside the range of {(float32 if d in REDUCED_FLOATS else d).name}, the dtype {name} "
            "computes in",
            "fix: a smaller value, or tensors of a wider dtype (input.to(strided.float64))"))
    if isinstance(value, complex) and not d.is_complex:
        value = value.real
    if not (d.is_floating_point or d.is_complex) and d is not bool_:
        value = int(value)  # (PyTorch converts value to the integer dtype: 1.5 counts as 1)
    # computed in the common dtype, in PyTorch's order: input + (value * t1) * t2; float16 and
    # bfloat16 as PyTorch's reduced-float kernel, in float32 (value * t1 rounded to float32, then
    # addcmul's fmadd with t2 and input, or addcdiv's / t2 and + input) and rounded once to the
    # dtype: step by step in float16, 2 * 60000 - 60000 was inf and 1.1 * 1.3 - 1.4 ulps off
    compute = float32 if d in REDUCED_FLOATS else d
    # (TensorIterator converts an operand of another dtype to the common one first: a float32
    # tensor2 of a bfloat16 addcmul is rounded to bfloat16, then read in float32 with the others)
    a, b, c = ((t if t._dtype is d else t.to(d)).to(compute) for t in (input, tensor1, tensor2))
    if d.is_complex and (done := _complex_addc((input, tensor1, tensor2), (a, b, c), value, d, out, divide,
                                                target)) is not None:
        return write_out(out, done, name, (input, tensor1, tensor2), through_temporary=True) if out is not None else done
    scaled = b * value if value != 1 else b
    if divide:
        q = scaled / c
        result = a + q
        if compute in _FLAT_DTYPES:  # (a NaN quotient's word, x's NaN or not: PyTorch's kernel)
            _nan_quotients(_view(q), _view(result))
    else:
        result = a + scaled * c
    if not divide and compute in _FLAT_DTYPES:
        # (PyTorch's addcmul kernel: fmadd(value * t1, t2, input), rounded once; the layout is
        # the one the ops above gave, the values are rewritten in place in that fresh result)
        runs = _same_dense_runs(_view(scaled), _view(c), _view(a), _view(result))
        if runs is not None:  # (one pass of fma_into over the memory-order runs: the same bits)
            quietly_here(fma_into, *runs)
        else:
            quietly(np.copyto, _view(result), quietly_here(fma, _view(scaled), _view(c), _view(a)), casting="unsafe")
    if compute is not d:
        result = result.to(d)
    if out is not None:
        return write_out(out, result, name, (input, tensor1, tensor2), through_temporary=True)
    # (the two binary ops above lay out their results pair by pair; PyTorch's one TensorIterator
    # orders the dims by all three operands: addcmul(c, c, f) of row-major c and column-major f
    # with a size-1 dim is (7, 1, 7) there, (7, 1, 1) pair by pair)
    laid = _fresh_output(result._layout.shape, d, [input, tensor1, tensor2], d)
    if laid._layout.strides != result._layout.strides:
        assign(_view(laid), _view(result))
        return laid
    return result


_FLAT_DTYPES = (float32, float64)


def _complex_addc_inplace(self: Tensor, tensor1: Any, tensor2: Any, value: Any, divide: bool) -> bool:
    """``self.addcmul_`` / ``addcdiv_`` of a complex ``self``: the registry's in-place steps
    (:func:`strided.ops.registry._inplace_of`: the overlap check, the result, the cast check, the
    write), the result computed with ``self`` as the output PyTorch's loop walks (an in-place
    strided row rounds every complex64 product: its loop over overlapping memory). False where
    an operand is not a plain tensor (the registry's path, with its errors)."""
    if tensor1.__class__ is not Tensor or tensor2.__class__ is not Tensor or self._ag is not None \
            or tensor1._ag is not None or tensor2._ag is not None:
        return False
    name = "addcdiv_" if divide else "addcmul_"
    _check_partial_overlap(self, [tensor1, tensor2], name)
    result = _addc(name[:-1], self, tensor1, tensor2, value, None, divide, target=self)
    _check_inplace(self, name, result._dtype, result._layout.shape)
    write(self._storage, self._layout, result._np())
    return True


def _complex_addc(given: tuple[Tensor, ...], converted: tuple[Tensor, ...], value: Any, d: Any, out: Any,
                  divide: bool, target: Tensor | None = None) -> Tensor | None:
    """Complex addcmul / addcdiv as PyTorch's kernel: ``input + (value * t1) * t2`` (or ``/ t2``),
    the value a complex number (1 too: an infinite part of t1 makes its partner NaN, as in
    PyTorch), the products and quotient with the fma forms of that kernel's loops
    (:mod:`strided.kernels.complex_forms`), and a plain sum (strided's complex add multiplies by
    alpha = 1 + 0j, which made inf + x NaN). ``given``: the three tensors as passed (their layouts
    order the loop), ``converted``: in ``d``; ``target``: the in-place form's tensor (the output
    PyTorch walks, an operand). A fresh tensor laid out as PyTorch's, or None (nothing done) where
    the compiled kernel does not run: the general steps then."""
    x, y, z = (_view(t) for t in converted)
    shape = np.broadcast_shapes(x.shape, y.shape, z.shape)
    laid = _fresh_output(shape, d, list(given), d)
    walked = target if target is not None and target._layout.shape == shape else (
        out if isinstance(out, Tensor) and out._layout.shape == shape and out._dtype is d else laid)
    aliased = target is not None or (isinstance(out, Tensor) and any(out is t for t in given))
    inputs = [(t._layout.shape, t._layout.strides) for t in converted]
    kind = complex_forms.ADDCDIV if divide else complex_forms.MUL
    modes = complex_forms.modes(kind, shape, walked._layout.strides, walked is laid, inputs, d.itemsize, aliased)
    # (value * t1) is computed per element in the same loop as the rest: rounded in its vector
    # blocks, fused elsewhere (addcmul: at every other place; addcdiv: as addcmul's second product)
    scaled = np.empty(shape, d.numpy)
    smodes = complex_forms.modes(complex_forms.MUL if divide else complex_forms.SCALE, shape, walked._layout.strides,
                                 walked is laid, inputs, d.itemsize, aliased)
    q = np.empty(shape, d.numpy)
    if not (complex_forms.forms_into(complex_forms.MUL, np.array([value], d.numpy), y, scaled, smodes)
            and complex_forms.forms_into(complex_forms.DIV if divide else complex_forms.MUL, scaled, z, q, modes)):
        return None
    quietly(np.add, x, q, out=_view(laid))
    return laid


def _same_dense_runs(*arrays: np.ndarray) -> list[np.ndarray] | None:
    """The arrays as 1-D views in their memory order, where all have one float32/float64 dtype,
    one shape and one set of strides and are each dense row- or column-major (element i of every
    run is then the same index of each array: an elementwise kernel may walk the runs); None
    otherwise. (addcmul's general path: a transposed input's operands and fresh result are all
    column-major, and fma_into's one compiled pass replaces fma's float64 temporaries.)"""
    first = arrays[0]
    if first.dtype not in (np.float32, np.float64) or first.ndim == 0:
        return None
    order = "C" if first.flags.c_contiguous else "F" if first.flags.f_contiguous else None
    if order is None:
        return None
    for arr in arrays[1:]:
        if arr.__class__ is not np.ndarray or arr.dtype != first.dtype or arr.shape != first.shape \
                or arr.strides != first.strides or not arr.flags[order + "_CONTIGUOUS"]:
            return None
    return [arr.reshape(-1, order=order) for arr in arrays]


_F32_MAX = float(np.finfo(np.float32).max)
_add_reduce, _count_nonzero, _equal = np.add.reduce, np.count_nonzero, np.equal
_empty = np.empty
_EXACT = 2**53  # (an int below it converts to a float exactly: binary's fast paths take it as it is)


def _addc_runs(input: Any, tensor1: Any, tensor2: Any, value: Any, inplace: bool) -> tuple[list, Any] | None:
    """The flat runs of ``input``, ``tensor1``, ``tensor2`` when the fast paths of addcmul/addcdiv
    apply (see :func:`_addc_flat`), and the result's Layout: three tensors of one float32/float64
    dtype, shape and strides, all row-major (out of place also any one dense layout whose
    elementwise result PyTorch lays out with the same strides, a permuted tensor's: the binary
    ops' flat-run plan, under which each element of every run is the same index of each tensor),
    a Python float (or an int below 2**53) ``value`` that the dtype holds; in place, no operand
    but ``input`` itself shares ``input``'s memory and ``input`` is writable. None for any other
    call (the general path, with its checks and errors)."""
    if (type(input) is not Tensor and type(input) not in SUBCLASSES) or (
            type(tensor1) is not Tensor and type(tensor1) not in SUBCLASSES) or (
            type(tensor2) is not Tensor and type(tensor2) not in SUBCLASSES):
        return None
    d = input._dtype
    if d not in _FLAT_DTYPES or tensor1._dtype is not d or tensor2._dtype is not d:
        return None
    tv = type(value)
    if not (tv is float or (tv is int and -_EXACT < value < _EXACT)):
        return None
    if d is float32 and tv is float and _F32_MAX < abs(value) < math.inf:
        return None  # (beyond float32: the general path refuses it, as PyTorch does)
    la = input._layout
    info = _cinfo[la.shape]
    strides, n, layout = la.strides, info[1], info[2]
    if strides != info[0]:
        if inplace:
            return None
        n, layout, _ = _flat_plans[(la.shape, strides)]
        if layout is None:
            return None
    runs = []
    for t in (input, tensor1, tensor2):
        lay = t._layout
        if lay.shape != la.shape or lay.strides != strides or (
                inplace and t is not input and shares_storage(t, input)):
            return None  # (an operand sharing self's memory: the general path judges the overlap)
        arr = t._storage.array
        if lay.offset or len(arr) != n:
            arr = arr[lay.offset : lay.offset + n]
            if len(arr) != n:
                return None
        runs.append(arr)
    if inplace and not runs[0].flags.writeable:
        return None
    return runs, layout


def _addc_flat(divide: bool) -> Callable[..., bool]:
    """The fast path of ``addcmul_`` / ``addcdiv_`` (an Adam step's): for a row-major float32 or
    float64 target and two operands of its dtype and layout, and a Python float (or an int below
    2**53) ``value``, the general path's three ops are the ufuncs of their flat fast paths
    (``tensor1 * value``, then ``* tensor2`` or ``/ tensor2``, then ``input +``) on the flat
    runs, its in-place checks all pass, and its write puts each sum into its own element: the
    sum is written there directly. An operand sharing the target's memory (other than the target
    itself) takes the general path, which refuses a partial overlap as PyTorch does. False for
    any other call (nothing written)."""
    ufunc = np.true_divide if divide else np.multiply

    def flat(self: Any, *args: Any, **kwargs: Any) -> bool:
        if kwargs:  # (PyTorch's parser: a value that is not a Number is refused under the in-place name)
            v = kwargs.get("value", 1)
            if v.__class__ is not float and v.__class__ is not int and not _is_value(v) and len(args) == 2 and (
                    isinstance(args[0], Tensor) and isinstance(args[1], Tensor)):
                raise _value_error("addcdiv_" if divide else "addcmul_", v)
        if OPEN or len(args) != 2 or (kwargs and (len(kwargs) > 1 or "value" not in kwargs)):
            return False  # (any other spelling of the call: the general path, with its errors)
        if self.__class__ is Tensor and self._dtype.is_complex:
            return _complex_addc_inplace(self, args[0], args[1], kwargs.get("value", 1), divide)
        found = _addc_runs(self, args[0], args[1], kwargs.get("value", 1), True)
        if found is None:
            return False
        x, y1, y2 = found[0]
        value = kwargs.get("value", 1)
        if _compiled(x, y1, y2, value, ufunc, x):  # (C code: no NumPy warning to quiet)
            return True
        # (one quiet block for the ufuncs, in this context: fma_into's kernel sees native.disabled())
        quietly_here(_addc_kernel, x, y1, y2, value, ufunc, x, False)
        return True

    return flat


def _addc_direct(divide: bool) -> Callable[[Any, tuple, dict], bool]:
    """The in-place entry's direct call of ``self.addcmul_(t1, t2, value=v)`` / ``addcdiv_``
    (:func:`strided.grad_mode.track_inplace`: nobody listening, the plain write wanted):
    :func:`_addc_flat`'s fast path with its tests inlined for the common call (two plain tensor
    operands, at most ``value=``, as an optimizer's step spells it) and the compiled kernel
    called straight, before the registry's entry and its keyword parsing. The same conditions
    as :func:`_addc_runs` in place: ``self``, ``t1``, ``t2`` row-major float32/float64 of one
    dtype, shape and strides, no operand but ``self`` itself sharing its storage, a float (or
    int below 2**53) ``value`` the dtype holds, ``self`` writable (the kernel asks for a writable
    buffer: a read-only one raises there, before anything is written). False (nothing written)
    for any other call: the entry's general path, with its errors."""
    ufunc = np.true_divide if divide else np.multiply

    def direct(self: Any, args: tuple, kwargs: dict) -> bool:
        if len(args) != 2:
            return False
        value = 1
        if kwargs:
            if len(kwargs) != 1 or "value" not in kwargs:
                return False
            value = kwargs["value"]
            tv = value.__class__
            if not (tv is float or (tv is int and -_EXACT < value < _EXACT)):
                return False
        t1, t2 = args
        c = self.__class__
        if ((c is not Tensor and c not in SUBCLASSES) or (t1.__class__ is not Tensor and t1.__class__ not in SUBCLASSES)
                or (t2.__class__ is not Tensor and t2.__class__ not in SUBCLASSES)):
            return False
        d = self._dtype
        if (d is not float32 and d is not float64) or t1._dtype is not d or t2._dtype is not d:
            return False
        if d is float32 and value.__class__ is float and _F32_MAX < abs(value) < math.inf:
            return False
        la, l1, l2 = self._layout, t1._layout, t2._layout
        shape, strides = la.shape, la.strides
        if l1.shape != shape or l2.shape != shape or l1.strides != strides or l2.strides != strides:
            return False
        info = _cinfo[shape]
        if strides != info[0]:
            return False
        s = self._storage
        if (t1 is not self and shares_storage(t1, self)) or (t2 is not self and shares_storage(t2, self)):
            return False  # (an operand sharing self's memory: the general path judges the overlap)
        n = info[1]
        x, y1, y2 = s.array, t1._storage.array, t2._storage.array
        if la.offset or len(x) != n:
            x = x[la.offset : la.offset + n]
        if l1.offset or len(y1) != n:
            y1 = y1[l1.offset : l1.offset + n]
        if l2.offset or len(y2) != n:
            y2 = y2[l2.offset : l2.offset + n]
        k = native.special()
        if k is not None and len(x) == n and len(y1) == n and len(y2) == n:
            try:  # (C code: no NumPy warning to quiet; False: declined, nothing written)
                if (k.addcdiv_runs if divide else k.addcmul_runs)(x, y1, y2, float(value) if value != 1 else None, x):
                    return True
            except (ValueError, BufferError):  # (not flat runs after all, or read-only: the steps below judge)
                pass
        if len(x) != n or len(y1) != n or len(y2) != n or not x.flags.writeable:
            return False
        # (one quiet block for the ufuncs, in this context: fma_into's kernel sees native.disabled())
        quietly_here(_addc_kernel, x, y1, y2, value, ufunc, x, False)
        return True

    return direct


def _compiled(x: np.ndarray, y1: np.ndarray, y2: np.ndarray, value: Any, ufunc: np.ufunc, out: np.ndarray) -> bool:
    """:func:`_addc_kernel`'s compiled pass alone (``addcdiv_runs`` or ``addcmul_runs``): whether it
    ran (False: not built, off here, or declined, with nothing written in place)."""
    k = native.special()
    if k is not None:
        try:
            return (k.addcdiv_runs if ufunc is not np.multiply else k.addcmul_runs)(
                x, y1, y2, float(value) if value != 1 else None, out)
        except (ValueError, BufferError):  # (not flat runs after all: NumPy's steps take them)
            pass
    return False


def _addc_kernel(x: np.ndarray, y1: np.ndarray, y2: np.ndarray, value: Any, ufunc: np.ufunc, out: np.ndarray,
                 compiled: bool = True) -> None:
    """``out[...] = x + ufunc(y1 * value, y2)`` (``y1`` itself when ``value`` is 1), the product
    whole first; ``out`` may be ``x``. Where the compiled kernels are built and on, the division's
    three ufuncs run as one pass of ``addcdiv_runs`` (the same roundings, and NumPy's loop wherever
    an operation meets two NaNs, or in place wherever an operand holds a NaN:
    tests/test_addc_native.py), the multiplication's product and fma as one of ``addcmul_runs``
    (its multiply and fma_into's loops on blocks of the product, NumPy's where value is NaN).
    ``compiled=False``: the caller tried that pass already (:func:`_compiled`)."""
    if compiled and _compiled(x, y1, y2, value, ufunc, out):
        return
    scaled = np.multiply(y1, value) if value != 1 else y1
    if ufunc is np.multiply:  # (PyTorch's addcmul kernel: fmadd(value * t1, t2, input), rounded once)
        # (fma_into's NaN is its first NaN operand's, as PyTorch's: t1's before t2's before input's)
        fma_into(scaled, y2, x, out)
    else:
        q = ufunc(scaled, y2)
        np.add(x, q, out=out)
        _nan_quotients(q, out)


def _nan_quotients(q: np.ndarray, out: np.ndarray) -> None:
    """addcdiv's sum ``out = x + q`` given the quotient's NaN word wherever ``q`` is NaN, ``x``'s
    NaN or not: PyTorch's float32 / float64 kernel (``self + value * t1 / t2``) keeps the
    quotient's in its vector and scalar loops alike (AVX512, AVX2 and default capabilities, torch
    2.13), where NumPy's add (and strided's, PyTorch's add) keeps its first operand's, ``x``'s
    (test_attack42). ``q`` broadcasts to ``out``."""
    nan = np.isnan(q)
    if nan.any():
        np.copyto(out, q, where=nan)


def _addc_fresh(input: Any, tensor1: Any, tensor2: Any, value: Any, divide: bool) -> Tensor | None:
    """Out-of-place addcmul/addcdiv on :func:`_addc_runs`' flat runs: the general path's ufuncs
    on the same elements, the layout it gives; None where that path must run. Three plain
    row-major float32/float64 tensors of one dtype and shape and a float (or int below 2**53)
    ``value`` the dtype holds go straight to the compiled pass :func:`_addc_kernel` would try
    first (the same call into a fresh run: its bits), without the general tests' loop and the
    quiet block around the kernel (C code: no NumPy warning); the rest as before."""
    if input.__class__ is Tensor and tensor1.__class__ is Tensor and tensor2.__class__ is Tensor:
        d = input._dtype
        tv = value.__class__
        la = input._layout
        shape = la.shape
        info = _cinfo[shape]
        if ((d is float32 or d is float64) and tensor1._dtype is d and tensor2._dtype is d
                and (tv is float or (tv is int and -_EXACT < value < _EXACT))
                and (d is float64 or tv is int or not _F32_MAX < abs(value) < math.inf)
                and la.strides == info[0]):
            l1, l2 = tensor1._layout, tensor2._layout
            k = native.special()
            if k is not None and l1.shape == shape and l2.shape == shape and l1.strides == la.strides \
                    and l2.strides == la.strides:
                n = info[1]
                # (the three runs as _addc_direct cuts them, written out: a shared helper measured +0.1 us,
                # 7%, on both paths)
                x, y1, y2 = input._storage.array, tensor1._storage.array, tensor2._storage.array
                if la.offset or len(x) != n:
                    x = x[la.offset : la.offset + n]
                if l1.offset or len(y1) != n:
                    y1 = y1[l1.offset : l1.offset + n]
                if l2.offset or len(y2) != n:
                    y2 = y2[l2.offset : l2.offset + n]
                res = _empty(n, x.dtype)
                try:  # (False: declined, e.g. a NaN value: the steps below)
                    if (k.addcdiv_runs if divide else k.addcmul_runs)(x, y1, y2, None if value == 1 else float(value), res):
                        return adopted(res, info[2], d)
                except (ValueError, BufferError):  # (runs cut short by a storage unpickled past its end)
                    pass
    found = _addc_runs(input, tensor1, tensor2, value, False)
    if found is None:
        return None
    (x, y1, y2), layout = found
    res = np.empty(len(x), x.dtype)
    quietly_here(_addc_kernel, x, y1, y2, value, np.true_divide if divide else np.multiply, res)
    return adopted(res, layout, input._dtype)


@op("addcmul", kind=Kind.COMPUTE, rule=_addc_rule("AddcmulBackward0", False), operands="any", inplace="addcmul_",
    inplace_flat=_addc_flat(False), inplace_direct=_addc_direct(False))
def addcmul(input: Any, tensor1: Any, tensor2: Any, *, value: Any = 1, out: Any = None) -> Tensor:
    """``input + value * tensor1 * tensor2`` elementwise, broadcast, in the three's promoted dtype.

    >>> strided.addcmul(strided.ones(2), strided.tensor([2.0, 3.0]), strided.tensor([4.0, 5.0]), value=0.5).tolist()
    [5.0, 8.5]
    """
    if out is None and not OPEN and (fresh := _addc_fresh(input, tensor1, tensor2, value, False)) is not None:
        return fresh
    return _addc("addcmul", input, tensor1, tensor2, value, out, divide=False)


@op("addcdiv", kind=Kind.COMPUTE, rule=_addc_rule("AddcdivBackward0", True), operands="any", inplace="addcdiv_",
    inplace_flat=_addc_flat(True), inplace_direct=_addc_direct(True))
def addcdiv(input: Any, tensor1: Any, tensor2: Any, *, value: Any = 1, out: Any = None) -> Tensor:
    """``input + value * tensor1 / tensor2`` elementwise, broadcast (an Adam step's update); integer
    ``tensor1`` and ``tensor2`` are refused, as PyTorch refuses them.

    >>> strided.addcdiv(strided.ones(2), strided.tensor([2.0, 3.0]), strided.tensor([4.0, 6.0])).tolist()
    [1.5, 1.5]
    """
    if out is None and not OPEN and (fresh := _addc_fresh(input, tensor1, tensor2, value, True)) is not None:
        return fresh
    return _addc("addcdiv", input, tensor1, tensor2, value, out, divide=True)

seal(globals())  # (last: this module's ops with a backward rule become their recording entries)


def _install_addc_fronts(namespace: dict[str, Any]) -> None:
    """A ternary compiled front (:mod:`.._support.front`) before the entries of ``addcmul`` and
    ``addcdiv`` (function and method): ``op(x, t1, t2)`` of three plain row-major float32/float64
    tensors of one dtype and shape (offset 0, each storage exactly its elements; no keyword, so
    value 1), outside autograd with nobody listening, makes :func:`_addc_fresh`'s compiled call,
    ``addcmul_runs(x, t1, t2, out)`` into a fresh run, from C; its refusal (two NaNs meeting) and
    every other call go to the entry, which runs the whole path."""
    k = native._compiled("_specialkernel")  # (the module itself: the front reads the switch per call)
    if k is None:
        return
    for name, run in (("addcmul", k.addcmul_runs), ("addcdiv", k.addcdiv_runs)):
        entry = namespace[name]
        front = compiled_front(entry, 3, {d: (kernel_entry(run, (), d.numpy),) for d in (float32, float64)})
        if Tensor.__dict__.get(name) is entry:
            setattr(Tensor, name, front)
        namespace[name] = front


_install_addc_fronts(globals())
# the kinds of this module's ops, in the op registry (after the seal: the forwards are the entries)
declare(Kind.COMPUTE, "arctan2 lerp isclose",
        specs=(HYPOT, ATAN2, COPYSIGN, FMOD, LOGICAL_AND, LOGICAL_OR, LOGICAL_XOR))
