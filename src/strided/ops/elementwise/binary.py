"""Elementwise arithmetic with PyTorch's semantics, computed by NumPy ufuncs reading inputs in place.

Every op follows the same plan:

1. **dtype**: :func:`strided.result_type` over the operands (Python scalars
   included), then the op's rule (true division and ``exp``-like ops give the
   default float for integer inputs; comparisons give bool).
2. **shape**: the broadcast shape (PyTorch's error on a mismatch); loud
   broadcasting (:mod:`strided.ops.shape.broadcasting`) may warn or raise here.
3. **layout**: a fresh output whose strides follow PyTorch's TensorIterator
   (:func:`strided.layout.elementwise_output_strides`: the inputs' dimension
   order is kept), or, for in-place forms, the target itself after PyTorch's
   checks (writable, castable, shape kept). All checks come before any write,
   so a failed op leaves its target unchanged.
4. **kernel**: one NumPy ufunc call over zero-copy views of the inputs (stride-0,
   permuted and negative-step views included), ``out=`` a view of the output,
   computing in the promoted dtype (``dtype=``/``signature=`` with unsafe
   casting, as PyTorch casts to the common dtype). NumPy's floating-point
   warnings are silenced: PyTorch gives inf/nan silently.

This module holds the binary ops (arithmetic, comparisons, bitwise, maximum/minimum, with
their reflected and in-place forms); :mod:`strided.ops.elementwise.unary` holds the unary ops, ``clamp``
and ``where``; :mod:`strided.ops._support.operands` the plumbing both share.

Deliberate differences from PyTorch are marked ``# Note:`` where they live:
mixed-dtype inputs are cast while read, not copied (``operands._fresh_output``);
NumPy scalars count as Python scalars and NumPy arrays as tensors
(``operands._operand``); targets whose elements alias through non-zero strides
(:func:`binary`); ``clamp`` with one scalar and one tensor bound
(``unary._clamp``); negative strides (:func:`strided.layout.elementwise_output_strides`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ... import layout as L
from ...dispatch import OPEN, adopted, report, result_array, shares_storage
from ...dispatch import result as fresh_result
from ...dtypes import (
    CORE_DTYPES,
    REDUCED_FLOATS,
    DType,
    bfloat16,
    bool_,
    default_dependent,
    default_float,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    np_kind,
    scalar_overflow,
    uint8,
)
from ...errors import StridedRuntimeError, StridedTypeError, join_lines
from ...grad_mode import _RECORDER, GRAD_MODE, INSIDE, SUBCLASSES, bump
from ...gradients import grad_zeros, guards_itself, in_pytorch_convention, record, recorded, records, seal
from ...kernels import complex_forms, torch_extremes, torch_pow, vml_route
from ...kernels.elementwise import (
    assign,
    binary_into,
    float32_loop,
    half_into,
    int_pow_into,
    scalar_over_into,
    tensor_power,
)
from ...kernels.fpstate import quiet_call, quiet_retry, quietly, quietly_here
from ...kernels.fused import fma, fma_into
from ...kernels.memory import outside_storage, reduced_cast_source
from ...kernels.native import _compiled as _compiled_module
from ...kernels.native import active as native_active
from ...kernels.native import half as native_half
from ...kernels.native import special as native_special
from ...kernels.reduce import all_nonzero
from ...kernels.reduced_arith import bf16_alpha_fresh, bf16_into, bf16_scalar_fresh, reduced_loop
from ...kernels.reduced_nans import LOOP_SPLIT, flat_fix, has_nan, loop_nans, scalar_mask
from ...kernels.tiles import EXACT, against_every_input, fused_against_both
from ...kernels.torch_loops import (
    GRAIN_SIZE,
    HALF_STEP,
    loop_positions,
    parallel_chunks,
    scalar_loop_mask,
    tail_block_mask,
    torch_threads,
    torch_vector_bytes,
)
from ...opdef import OPDEFS, Kind, declare
from ...scalars import UInt64Scalar, checked, numpy_scalar, uint64_beyond_int64, wrapped
from ...tensor import Tensor
from .._support.front import compiled_front, kernel_entry
from .._support.memo import Memo
from .._support.operands import (
    _broadcast,
    _check_inplace,
    _check_partial_overlap,
    _check_uint64_scalars,
    _cinfo,
    _fresh_output,
    _kernel_arg,
    _not_implemented,
    _np_scalar,
    _operand,
    _shape_cache,
    _trusted,
    _view,
    check_inplace_shape,
)
from .._support.out import check_cast, into_out, write_out
from .._support.overlap_updates import UpdatesInOrder, updates_in_order
from .._support.promotion import operand_class, result_type_of_classes, to_float
from .._support.support import check as _check_support
from ..registry import backward, method, requires_grad
from ..shape.broadcasting import current as _broadcasting_now

# ---------------------------------------------------------------- binary ops


@dataclass(frozen=True, eq=False)  # identity hash: ops are dict keys on the hot path
class BinaryOp:
    """One binary op: its PyTorch name, NumPy ufunc and dtype rule.

    ``kind``: "arith" (result = promoted dtype), "div" (integers -> float32),
    "compare" (bool result, computed in the promoted dtype), "bitwise"
    (bool/integer only), "minmax" (tensors only).
    ``fast``: dtypes for which ``op(x, y)`` of two tensors of that dtype needs no
    check and no cast (the small-op fast path).
    """

    name: str
    ufunc: np.ufunc
    kind: str = "arith"
    kernel: str = ""  # PyTorch's kernel name in "not implemented for 'Bool'" errors
    no_bool: bool = False
    int_zero_check: bool = False
    fast: frozenset = frozenset()
    opmath_scalar: bool = False  # float16 op with a scalar second operand computes in float32
    # ``number * t`` is PyTorch's ``t.__rmul__(number)``, i.e. ``mul(t, number)``: the number stays
    # the second operand, so it takes the float16 opmath path above (``mul(0-d, t)`` does not)
    reflect_as_forward: bool = False
    tensor_other: bool = False  # both operands must be tensors (PyTorch's signature: atan2, hypot, logical_and)
    float_only: bool = False  # integer and bool operands are refused (NotImplementedError naming ``kernel``)
    int_only: bool = False  # float and bool operands are refused (gcd, lcm: NotImplementedError naming ``kernel``)
    complex_ok: bool = False  # with ``float_only``: complex operands are taken too (logaddexp)
    late_checks: bool = False  # the kernel's dtype refusals come after the broadcast check (PyTorch's order)
    symbol: str = ""  # its Python operator ("+", "==", "&"), where it has one
    # the flat-run fast path's compiled loop: ``native(x, y)`` -> a fresh array with ``ufunc``'s bits
    # or None (not built, off in this context, refused: the ufunc then), for two arrays of one shape
    # and of a dtype in ``native_dtypes``, from ``native_min`` elements on (below, NumPy's own loop
    # costs less than the compiled call's setup). strided.kernels.elementwise.binary_float_fresh.
    native: Callable[[np.ndarray, np.ndarray], np.ndarray | None] | None = None
    native_dtypes: frozenset = frozenset()
    native_min: int = 0
    # the compiled binary_float loop's code (0 fmod, 1 remainder, 3 hypot) where its bits are the
    # fast path's at every size: the front's float32 kernel entry on two tensors' runs, from C
    # without the Python setup that ``native_min`` keeps off small runs (-1: none)
    entry_code: int = -1
    # or a maker of that float32 entry (called once, as the front is built; its None: none), for a
    # native loop of another module (atan2's SLEEF row)
    entry_kernel: Callable[[], tuple | None] | None = None
    # "max" / "min": PyTorch's bits for ties of opposite zeros and NaNs depend on which of its
    # loops computed the element (strided.kernels.torch_extremes), fixed after NumPy's ufunc
    extreme: str = ""
    # the compiled binary_exact loop's code (0 fmax, 1 fmin, 3 copysign; heaviside has its own
    # front) where the ``native`` pass is that loop (kernels.elementwise.exact_loop): the front's
    # float32 / float64 kernel entry on two tensors' runs, that call from C without exact_loop's
    # Python (-1: none)
    exact_code: int = -1
    # the compiled bfloat16 loop's code (kernels.reduced_arith: 0 add, 1 sub, 2 mul, 3 div) where
    # ``native`` is that loop for bfloat16 too: the front's bfloat16 kernel entry on two tensors'
    # runs of every size, PyTorch's bits, NaNs included (-1: none)
    bf16_code: int = -1


_F32_ONLY = frozenset((float32,))
_FUSED_DTYPES = frozenset((float32, float64))  # (the compiled one-pass kernel's: kernels.tiles._fused_2d)
_ALL = frozenset(CORE_DTYPES)  # (complex and uint16/32/64 take the checked path: ops.support)
_FLOATS = frozenset(d for d in _ALL if d.is_floating_point)
_NO_BOOL = _ALL - {bool_}
_INTS = frozenset(d for d in _ALL if not d.is_floating_point)

# (float16's and bfloat16's compiled loops: NumPy's float16 ufuncs and ml_dtypes' bfloat16 ones
# convert each element by a scalar call, 6-8 ms for 1M elements against 0.1-0.2 ms here; from 128
# elements the call's setup is repaid; bfloat16's front entry takes every size: bf16_code)
_REDUCED = frozenset((float16, bfloat16))
ADD = BinaryOp("add", np.add, fast=_ALL | {bfloat16}, symbol="+", native=reduced_loop(0), native_dtypes=_REDUCED,
               native_min=128, bf16_code=0)
SUB = BinaryOp("sub", np.subtract, no_bool=True, fast=_NO_BOOL | {bfloat16}, symbol="-", native=reduced_loop(1),
               native_dtypes=_REDUCED, native_min=128, bf16_code=1)
MUL = BinaryOp("mul", np.multiply, fast=_ALL | {bfloat16}, opmath_scalar=True, reflect_as_forward=True, symbol="*",
               native=reduced_loop(2), native_dtypes=_REDUCED, native_min=128, bf16_code=2)
DIV = BinaryOp("div", np.true_divide, kind="div", fast=_FLOATS | {bfloat16}, opmath_scalar=True, symbol="/",
               native=reduced_loop(3), native_dtypes=_REDUCED, native_min=128, bf16_code=3)
class _TorchFloorDivide:
    """``np.floor_divide``, but float16 / bfloat16 as PyTorch's CPU kernel computes them when the
    divisor is not a scalar (one number, or an operand whose elements are all one: the general
    path's float32 "opmath" form, one rounding): ``div_floor_floating``'s steps ``fmod``,
    ``a - mod``, ``/ b``, ``- 1``, ``floor``, ``div - floor > 0.5``, ``+ 1`` each rounded to the
    dtype (``Vectorized<Half>`` / ``Vectorized<BFloat16>``'s operators, in its vector and tail loops
    alike), where NumPy rounds the float32 answer once: bfloat16 ``-11 // 0.1001`` is -111 in PyTorch
    (``a - mod`` = -10.9106 rounds to -10.9375, over 0.1001 to -109.5), -110 in NumPy. Other dtypes:
    ``np.floor_divide`` itself. Called as the kernels call a ufunc (``dtype=`` or ``signature=``)."""

    __name__ = "floor_divide"
    # (the fast path's kernel in the other dtypes: NumPy's ufunc itself, called from C without this
    # method's Python frame -- ~3 us on a (3, 4) float32 floor_divide: _fast_kernel)
    plain_ufunc = np.floor_divide
    own_dtypes = REDUCED_FLOATS

    def __call__(self, a: Any, b: Any, out: Any = None, **kwargs: Any) -> Any:
        compute = kwargs.get("dtype")
        if compute is None and kwargs.get("signature") is not None:
            compute = kwargs["signature"][-1]
        dt = np.result_type(a, b) if compute is None else np.dtype(compute)
        if dt.name not in ("float16", "bfloat16") or np.size(b) == 1:
            # (a one-element divisor is PyTorch's scalar form: float32, one rounding, as NumPy's
            # float16 loop; the general path has sent a 0-d or expanded one there already)
            return np.floor_divide(a, b, out=out, **kwargs)
        q = _reduced_floor_divide(np.asarray(a).astype(dt, copy=False), np.asarray(b).astype(dt, copy=False), dt)
        if out is None:
            return q if isinstance(a, np.ndarray) or isinstance(b, np.ndarray) else q[()]
        np.copyto(out, q, casting="unsafe")
        return out

    def __repr__(self) -> str:
        return "<kernel floor_divide (PyTorch's float16 / bfloat16 steps)>"


def _reduced_floor_divide(a: np.ndarray, b: np.ndarray, dt: np.dtype) -> np.ndarray:
    """PyTorch's ``div_floor_floating_vec`` over float16 / bfloat16 arrays ``a``, ``b`` of ``dt``: each
    operation in float32, its result rounded to ``dt`` (the caller silences NumPy's warnings). The
    rare branches (an infinite quotient, a zero divisor or quotient) are patched where they occur."""
    f32 = np.float32
    x, y = a.astype(f32), b.astype(f32)

    def r(v: np.ndarray) -> np.ndarray:
        return v.astype(dt).astype(f32)

    basic = r(x / y)
    mod = np.fmod(x, y)  # (exact: representable in dt)
    floor = r(x - mod)
    big = np.abs(basic) == np.inf
    if big.any():  # (PyTorch's fix-up for Sleef's fmod: an infinite quotient of a finite a divides a itself)
        floor = np.where(big & (np.abs(x) != np.inf), x, floor)
    div = r(floor / y)
    flip = (mod != 0) & ((y < 0) ^ (mod < 0))
    div = np.where(flip, r(div - f32(1)), div)
    fl = np.floor(div)
    fl = np.where(r(div - fl) > f32(0.5), r(fl + f32(1)), fl)
    zero = div == 0
    if zero.any():
        fl = np.where(zero, np.copysign(f32(0), basic), fl)
    by_zero = y == 0
    if by_zero.any():
        fl = np.where(by_zero, basic, fl)
    return fl.astype(dt)


FLOOR_DIVIDE = BinaryOp("floor_divide", _TorchFloorDivide(), kernel="div_floor_cpu", int_zero_check=True, fast=_FLOATS,
                        opmath_scalar=True, symbol="//", native=float32_loop(2), native_dtypes=_F32_ONLY,
                        native_min=64)


class _TorchRemainder:
    """``np.remainder`` with PyTorch's sign of a zero result: PyTorch computes ``fmod(a, b)`` and
    adds ``b`` where the signs disagree, so a zero remainder keeps the dividend's sign
    (``remainder(3.0, -1.0)`` is ``0.0``); NumPy gives it the divisor's (``-0.0``). Nonzero
    results are the same in both (NumPy's npy_divmod is that formula but for the zero). Called as
    the kernels call a ufunc: ``k(a, b, out=..., dtype=..., casting=...)``."""

    __name__ = "remainder"

    def __call__(self, a: Any, b: Any, out: Any = None, **kwargs: Any) -> Any:
        compute = kwargs.get("dtype")
        if out is not None and compute is not None and out.dtype != compute:
            # (the zero's sign is the compute dtype's: a nonzero remainder that the cast to a narrower
            # out rounds to zero keeps its own sign, as PyTorch casts its result: float16's
            # remainder_ of 1.5 by a float32 -0.1 is -2.2e-08 in float32, -0.0 in float16)
            np.copyto(out, self(a, b, **kwargs), casting="unsafe")
            return out
        if out is not None and type(a) is np.ndarray and np.may_share_memory(a, out):
            a = a.copy()  # (the sign is read after the call: an operand the output overwrites is kept)
        r = np.remainder(a, b, out=out, **kwargs)
        if np_kind(r.dtype) != "f":  # (bfloat16 is kind 'V' to NumPy: np_kind reads it as a float)
            return r
        if type(r) is not np.ndarray:  # a NumPy scalar (0-d operands, no out)
            return r.dtype.type(np.copysign(r, a)) if r == 0 else r
        zero = r == 0
        if zero.any():
            np.copyto(r, np.copysign(r, a), where=zero, casting="unsafe")
        return r

    def __repr__(self) -> str:
        return "<kernel remainder (PyTorch's sign of zero)>"


REMAINDER = BinaryOp("remainder", _TorchRemainder(), kernel="remainder_cpu", int_zero_check=True, fast=_FLOATS,
                     symbol="%", native=float32_loop(1), native_dtypes=_F32_ONLY, entry_code=1)


class _TruncDivide:
    """PyTorch's ``div(a, b, rounding_mode="trunc")`` kernel as a ufunc-like callable: floats
    ``trunc(a / b)`` (the quotient rounded once in the compute dtype, then truncated, as PyTorch's
    ``std::trunc(a / b)``: -0.0 where it truncates a negative quotient to zero); integers C's
    division, toward zero (the caller has refused a zero divisor; the most negative value over -1
    wraps, where PyTorch's CPU kernel dies of SIGFPE)."""

    __name__ = "div_trunc"

    def __call__(self, a: Any, b: Any, out: Any = None, dtype: Any = None, **kwargs: Any) -> Any:
        kind = np.dtype(dtype).kind if dtype is not None else np.result_type(a, b).kind
        if dtype is not None:  # (the operands cast into the compute dtype first, as the ufuncs' casting=:
            # a uint8 tensor over a 0-d int8 one computes in uint8)
            a = np.asarray(a).astype(dtype, copy=False)
            b = np.asarray(b).astype(dtype, copy=False)
        if kind not in "iu":  # (truncated in the compute dtype, then cast: float16 out of float32 opmath)
            q = np.true_divide(a, b, dtype=dtype)
            q = np.trunc(q, out=q) if type(q) is np.ndarray else q.dtype.type(np.trunc(q))
        else:
            q = self._c_division(a, b, dtype, kind)
        if out is None:
            return q
        np.copyto(out, q, casting="unsafe")
        return out

    @staticmethod
    def _c_division(a: Any, b: Any, dtype: Any, kind: str) -> Any:
        with np.errstate(all="ignore"):  # (INT_MIN // -1 wraps)
            q = np.floor_divide(a, b, dtype=dtype)
            if kind == "i":  # floor to trunc: one up where the division was inexact and the signs differ
                inexact = np.not_equal(np.multiply(q, b, dtype=dtype), np.asarray(a).astype(q.dtype, copy=False))
                q = q + (inexact & (np.less(a, 0) != np.less(b, 0))).astype(q.dtype)
        return q

    def __repr__(self) -> str:
        return "<kernel div_trunc (C division toward zero)>"


TRUNC_DIVIDE = BinaryOp("div_trunc", _TruncDivide(), kernel="div_trunc_cpu", int_zero_check=True, opmath_scalar=True)
# div's rounding modes: floor is floor_divide's kernel (PyTorch's floor_divide is div(..., "floor"))
_ROUNDED = {"floor": FLOOR_DIVIDE, "trunc": TRUNC_DIVIDE}
def _pow_entry() -> tuple | None:
    """The front's float32 kernel entry of pow: :func:`strided.kernels.torch_pow.pow_flat`'s own
    compiled call (PyTorch's loop over one row, ``pow_run(x, y, out, 2, step, 0, None)``) on two runs
    below PyTorch's parallel grain (from the grain on, pow_flat's chunks); None where PyTorch's pow
    is not reproduced here (no AVX512 capability: pow_flat's None, NumPy's power)."""
    k = torch_pow._kernel()
    if k is None:
        return None
    return kernel_entry(k.pow_run, (2, torch_pow._loaded[1], 0, None), np.float32, torch_pow.GRAIN_SIZE - 1)


POW = BinaryOp("pow", np.power, kind="pow", kernel="pow", fast=_FLOATS, symbol="**", native=torch_pow.pow_flat,
               native_dtypes=frozenset((float32, float64)), entry_kernel=_pow_entry)
BITWISE_AND = BinaryOp("bitwise_and", np.bitwise_and, kind="bitwise", kernel="bitwise_and_cpu", fast=_INTS,
                       symbol="&")
BITWISE_OR = BinaryOp("bitwise_or", np.bitwise_or, kind="bitwise", kernel="bitwise_or_cpu", fast=_INTS, symbol="|")
BITWISE_XOR = BinaryOp("bitwise_xor", np.bitwise_xor, kind="bitwise", kernel="bitwise_xor_cpu", fast=_INTS,
                       symbol="^")
EQ = BinaryOp("eq", np.equal, kind="compare", fast=_ALL, symbol="==")
NE = BinaryOp("ne", np.not_equal, kind="compare", fast=_ALL, symbol="!=")
LT = BinaryOp("lt", np.less, kind="compare", fast=_ALL, symbol="<")
LE = BinaryOp("le", np.less_equal, kind="compare", fast=_ALL, symbol="<=")
GT = BinaryOp("gt", np.greater, kind="compare", fast=_ALL, symbol=">")
GE = BinaryOp("ge", np.greater_equal, kind="compare", fast=_ALL, symbol=">=")
_EXTREME_NATIVE = frozenset((float32, float64))
_MAXIMUM_FRESH, _MINIMUM_FRESH = torch_extremes.MAXIMUM_FRESH, torch_extremes.MINIMUM_FRESH
_EXTREME_FRESH = (_MAXIMUM_FRESH, _MINIMUM_FRESH)  # (natives with a front kernel entry: _extreme_entry)
MAXIMUM = BinaryOp("maximum", np.maximum, kind="minmax", fast=_ALL, extreme="max",
                   native=torch_extremes.MAXIMUM_FRESH, native_dtypes=_EXTREME_NATIVE)
MINIMUM = BinaryOp("minimum", np.minimum, kind="minmax", fast=_ALL, extreme="min",
                   native=torch_extremes.MINIMUM_FRESH, native_dtypes=_EXTREME_NATIVE)


_dtype_cache = default_dependent(Memo())  # (op, operand kinds) -> (compute dtype, result dtype)


def _key(x: Any) -> Any:
    """What promotion depends on: a tensor's dtype and whether it is 0-d, or a scalar's type."""
    if type(x) is Tensor or type(x) in SUBCLASSES:
        return x._dtype if x._layout.shape else (x._dtype,)
    return type(x)


def _binary_dtypes(op: BinaryOp, a: Any, b: Any) -> tuple[DType, DType]:
    """(compute dtype, result dtype) of ``op(a, b)``, raising PyTorch's dtype errors (cached)."""
    key = (op, _key(a), _key(b))
    found = _dtype_cache.get(key)
    if found is None:
        found = _binary_dtypes_uncached(op, a, b)
        _dtype_cache.put(key, found)
    return found


def _binary_dtypes_uncached(op: BinaryOp, a: Any, b: Any) -> tuple[DType, DType]:
    kind = op.kind
    if op.no_bool and (_dtype_of(a) is bool_ or _dtype_of(b) is bool_):
        both = _dtype_of(a) is bool_ and _dtype_of(b) is bool_
        def desc(x: Any) -> str:
            return f"{x._dtype.name} tensor of shape {x.shape}" if isinstance(x, Tensor) else repr(x)

        operands = f"a is {desc(a)}, b is {desc(b)}"
        raise StridedRuntimeError(
            join_lines(
                "Subtraction, the `-` operator, with two bool tensors is not supported. "
                "Use the `^` or `logical_xor()` operator instead.",
                f"{operands}; strided has no logical_xor(): a ^ b (or a != b) is the "
                "elementwise xor of two masks",
                "to subtract them as numbers, convert first: a.to(strided.int64) - b.to(strided.int64)",
            )
            if both
            else join_lines(
                "Subtraction, the `-` operator, with a bool tensor is not supported. "
                "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.",
                f"{operands}; strided has no logical_not(): ~mask inverts a mask",
                "to subtract it as numbers, convert the bool tensor first: mask.to(strided.int64)",
            )
        )
    if kind == "minmax":  # PyTorch refuses a complex operand before it promotes
        for x in (a, b):
            if _dtype_of(x).is_complex:
                _check_support(op.name, _dtype_of(x), (a, b))
    rt = result_type_of_classes((operand_class(a), operand_class(b)))
    _check_support(op.name, rt, (a, b))  # complex / uint16-64 ops PyTorch has no kernel for
    if (type(b) is UInt64Scalar and kind != "pow") or (type(a) is UInt64Scalar and op is not DIV):
        # (its own cache key: see UInt64Scalar). PyTorch computes ``number / t`` as
        # reciprocal(t) * number, a float times the number, and reads ``t ** number``'s exponent
        # as int64 (_pow_exponent): no uint64 promotion in either.
        _check_uint64_scalars([a, b], op.name)
    if kind == "div":
        return to_float(rt), to_float(rt)
    if kind == "compare":
        return rt, bool_
    if kind == "bitwise" and rt.is_floating_point:
        raise _not_implemented(op.kernel, rt, (a, b), "bitwise ops take bool or integer tensors; "
                               "for masks compare first, e.g. (x > 0) & (y > 0)")
    if op.kernel and kind != "bitwise" and rt is bool_ and not op.late_checks:
        raise _not_implemented(op.kernel, rt, (a, b), "fix: convert a bool operand first, e.g. x.to(strided.int64)")
    return rt, rt


def _dtype_of(x: Any) -> DType | None:
    if isinstance(x, Tensor):
        return x._dtype
    return operand_class(x)[1]


def _check_int_divisor(op: BinaryOp, b: Any, compute: DType, size: int) -> None:
    if compute.kind in "fc" or not size:
        return
    if not isinstance(b, Tensor):
        zero = _np_scalar(b, compute) == 0
    elif b._dtype is compute:
        zero = not all_nonzero(_view(b))
    else:  # (as PyTorch reads it: converted to the compute dtype first, a 0-d int64 2**32 is an int32 0)
        zero = not all_nonzero(_view(b).astype(compute.numpy))
    if zero:
        raise StridedRuntimeError(
            join_lines(
                "ZeroDivisionError",
                f"{op.name} of integer tensors ({compute.name}) by a divisor that contains 0",
                "fix: convert to float first (x.to(strided.float32)) to get inf/nan, "
                "or mask the zeros with strided.where",
            )
        )


def binary(op: BinaryOp, a: Any, b: Any, target: Tensor | None = None, alpha: Any = None) -> Tensor:
    """:func:`_binary`, reported at the op boundary (:func:`strided.dispatch.report`)."""
    out = _binary(op, a, b, target, alpha)
    if OPEN:
        report(op.name if target is None else op.name + "_", (a, b), out)
    return out


def _binary(op: BinaryOp, a: Any, b: Any, target: Tensor | None = None, alpha: Any = None,
            loop_out: Tensor | None = None) -> Tensor:
    """Run ``op(a, b)`` into a fresh output, or into ``target`` (an in-place form: ``target`` is ``a``).
    ``alpha`` (add/sub only): ``b`` is scaled by it first, in the compute dtype.
    ``loop_out``: the ``out=`` tensor the fresh result will be written into (its layout decides
    PyTorch's loop, so which elements of a float16/bfloat16 ``alpha=`` its scalar loop computes).

    # Note: an in-place target whose elements alias through non-zero strides (an ``unfold``
    # with overlapping windows, equal strides from ``as_strided``) is written as if every input
    # element were read before any write (NumPy buffers overlapping operands); PyTorch lets such
    # writes through with a result that depends on its loop order. Stride-0 targets are
    # refused, and partial overlaps between target and input are refused, as in PyTorch.
    """
    name = op.name if target is None else op.name + "_"
    a = _operand(a, name)
    b = _operand(b, name)
    if not isinstance(a, Tensor) and not isinstance(b, Tensor):
        raise StridedTypeError(
            f"{name}(): argument 'input' (position 1) must be Tensor, not {type(a).__name__}\n"
            f"  both operands are numbers ({a!r}, {b!r}); make one a tensor: strided.tensor({a!r})"
        )
    if op.tensor_other and not (isinstance(a, Tensor) and isinstance(b, Tensor)):
        raise _tensor_args_error(op.name, a, b, inplace=target is not None)
    if op.kind == "minmax" and not (isinstance(a, Tensor) and isinstance(b, Tensor)):
        number = b if isinstance(a, Tensor) else a
        which = "'other' (position 2)" if isinstance(a, Tensor) else "'input' (position 1)"
        bound = "min" if op.name in ("maximum", "fmax") else "max"
        raise StridedTypeError(
            join_lines(
                f"{op.name}(): argument {which} must be Tensor, not "
                f"{type(number).__name__}",
                f"{op.name} takes two tensors, got the number {number!r}; use x.clamp({bound}={number!r}), "
                f"or wrap it: strided.{op.name}(x, strided.tensor({number!r}))",
            )
        )
    # (TensorIterator's order: the operands' shapes, then an in-place target's, before any dtype
    # check or missing kernel: a complex or uint16 operand of the wrong shape is a shape error)
    if op.no_bool or op.kind == "minmax":  # (sub's bool and maximum's complex refusals come before the shapes)
        kinds = (_dtype_of(a), _dtype_of(b))
        if (bool_ in kinds) if op.no_bool else any(k is not None and k.is_complex for k in kinds):
            _binary_dtypes(op, a, b)  # (raises)
    shape = _broadcast(name, [a, b], ("a", "b"))
    if target is not None:
        check_inplace_shape(target, name, shape)
    if op.kind == "pow" and _pow_shortcut(a, b):
        # PyTorch skips the kernel's dtype checks here (ADD's dtypes; MUL's for uint16/32/64, which
        # have a mul kernel and no add: uint16 ** 1 is a copy in PyTorch 2.13, uint16 ** 0 ones,
        # and 1 ** uint16 ones as well)
        compute, result = _binary_dtypes(MUL if _wide_unsigned(a) or _wide_unsigned(b) else ADD, a, b)
    elif op.kind == "pow" and _wide_unsigned(a) and type(b) is int and b < 0:
        _pow_exponent(b, a._dtype, name)  # raises: PyTorch refuses the power before the missing kernel
    else:
        compute, result = _binary_dtypes(op, a, b)
    alpha_np = None if alpha is None else _negatable(op, alpha, _alpha_scalar(alpha, result, compute, name))
    if op.late_checks and target is None:
        _late_checks(op, compute, a, b)
    if op is DIV and target is None and not isinstance(a, Tensor):
        return _scalar_over_tensor(a, b, compute)
    if op.kind == "pow" and not isinstance(b, Tensor) and not _pow_shortcut(a, b):
        b = _pow_exponent(b, compute, name)  # (PyTorch checks it before the in-place checks)
    if target is None:
        if op.kind == "pow" and not isinstance(b, Tensor):
            # PyTorch runs pow(tensor, scalar) as a unary op over base.to(result dtype)
            out = _fresh_output(shape, result, [a], result)
        elif op.kind == "pow" and not isinstance(a, Tensor):
            out = fresh_result(shape, result)  # pow(scalar, tensor): PyTorch's output is contiguous
        else:
            out = _fresh_output(shape, result, [a, b], compute)
    else:
        _check_inplace(target, name, result, shape)
        if op.late_checks:  # (PyTorch: the kernel's dtype refusal after TensorIterator's cast check)
            _late_checks(op, compute, a, b)
        _check_partial_overlap(target, [b], name)
        out = target
    if op.int_zero_check:
        _check_int_divisor(op, b, compute, L.product(shape))
    if op.kind == "pow":
        if _pow_shortcut(a, b):
            # PyTorch: x ** 0 and 1 ** x fill ones, x ** 1 copies x (any dtype, bool included)
            source = 1 if (isinstance(b, Tensor) or b == 0) else _view(a)
            assign(_view(out), source)
            return out
        if compute.kind not in "fc":
            _int_pow(a, b, compute, out)
            return out
        if compute is bfloat16 and not isinstance(b, Tensor) and float(b) in (3.0, -2.0, 0.5, -0.5):
            # PyTorch's bfloat16 x ** 3 and x ** -2 square in bfloat16 (rounded), then multiply or
            # divide (rounded again): not one rounding of the float32 power (float16's is that);
            # x ** 0.5 and x ** -0.5 are its sqrt and rsqrt kernels (-0.0 ** 0.5 is -0.0, not pow's 0.0)
            if float(b) == -0.5:  # (the elements of its scalar loop first: a is out in place)
                tail = _bfloat16_rsqrt_tail(a, out, target is None, loop_out)
            quietly(_bfloat16_pow, _view(a), float(b), _view(out))
            if float(b) == -0.5 and tail is not None:
                _view(out)[tail[0]] = tail[1]
            return out
        if (compute is float32 or compute is float64) and not isinstance(b, (Tensor, complex)) \
                and float(b) in (3.0, -2.0, 0.5, -0.5):
            quietly(_float_pow, _view(a), float(b), _view(out), compute.numpy)
            return out
        if (compute is float32 or compute is float64) and _torch_pow_into(a, b, compute, out, target is None, loop_out):
            return out
        if compute.is_complex and not isinstance(b, Tensor) and b in _COMPLEX_POW_SPECIAL:
            aliased = (target is not None and target is a) or (loop_out is not None and loop_out is a)
            if _complex_special_pow(a, b, compute, out, target is None, loop_out, aliased):
                return out
        elif compute.is_complex and _complex_pow(a, b, compute, out):
            return out
    if op.opmath_scalar and compute in REDUCED_FLOATS and _is_scalar_operand(b):
        # PyTorch's CPU mul/div of a float16 (bfloat16) tensor by a scalar (a Python number or an operand
        # whose elements are all one value) computes in float32 ("opmath") and rounds once. Only
        # the second operand is read exactly: the first (a 0-d float32 tensor, or the number of
        # ``1e5 // t``) is converted to float16 first, as TensorIterator converts every input.
        x = _kernel_arg(a, compute)  # (a number: rounded to float16 by _np_scalar)
        if isinstance(a, Tensor) and a._dtype is not compute:
            x = quiet_call(np.asarray(reduced_cast_source(compute.numpy, x)).astype, compute.numpy)
        compute = float32
        y = _kernel_arg(b, compute)
    else:
        x, y = _kernel_arg(a, compute), _kernel_arg(b, compute)  # (_np_scalar silences its own overflow)
    ufunc = tensor_power if op.kind == "pow" and isinstance(b, Tensor) else op.ufunc
    if compute.is_complex and (op is ADD or op is SUB):
        # PyTorch's complex add/sub is x + alpha * y with a complex product, alpha = 1 included
        # (sub: alpha negated as a number, c10::Scalar's minus): an inf or NaN part of y makes
        # the other part NaN ((1+0j) * (-inf+1j) is -inf+nanj) and zeros' signs follow the product
        if alpha_np is not None:
            _check_alpha_range(alpha, result, name, op is SUB)
        scale = 1 if alpha is None else (numpy_scalar(alpha) if isinstance(alpha, np.generic) else alpha)
        y = _scaled(y, compute.numpy.type(-scale if op is SUB else scale), compute)
        alpha_np, ufunc = None, np.add
    if alpha_np is not None:
        _check_alpha_range(alpha, result, name, op is SUB)
        if compute in _FUSED_DTYPES:
            # (each operand in the compute dtype first, as TensorIterator converts a 0-d operand of
            # another dtype: fma would otherwise compute in the wider one)
            cd = compute.numpy
            x, y = (v if v.dtype == cd else quiet_call(v.astype, cd) for v in (np.asarray(x), np.asarray(y)))
            if compute is float16:
                tail = _reduced_scalar_loop(op, a, b, x, y, alpha_np, out, target is None, loop_out)
            else:
                tail = _unfused_scalar_tail(op, a, b, x, y, alpha_np, out, target is None, loop_out)
            quietly_here(_fused_alpha, op, x, y, alpha_np, _view(out))  # (fma's kernel: native.disabled() seen)
            if tail is not None:
                _view(out)[tail[0]] = tail[1]
            return out
        if compute is bfloat16:
            # PyTorch's vectorized bfloat16 kernel: alpha rounded to bfloat16, x + alpha * y in
            # float32, rounded once; its scalar loop's elements are redone below
            f32 = np.float32
            # (a 0-d float32/float64 operand is converted to bfloat16 first, as TensorIterator
            # converts every input to the common dtype: read unrounded it gave other last bits)
            cd = compute.numpy
            x, y = (v if v.dtype == cd else quiet_call(v.astype, cd) for v in (np.asarray(x), np.asarray(y)))
            scale = f32(alpha_np if op is ADD else -alpha_np)
            # (one row walked as the result's own: the compiled loop does both of PyTorch's loops,
            # the fmadd of its vector steps and its scalar rest's rounded product, NaNs included)
            if _walks_own_rows(out, loop_out) and bf16_into(5, y, x, _view(out), float(scale)):
                return out
            tail = _reduced_scalar_loop(op, a, b, x, y, alpha_np, out, target is None, loop_out)
            # (the compiled fma(alpha, y, x) where the operands are one row: PyTorch's fmadd; else
            # the product, exact in float32 but for an underflow or overflow, then the sum)
            if not bf16_into(4, y, x, _view(out), float(scale)):
                binary_into(np.add, x, quietly(np.multiply, y, scale, dtype=f32), _view(out), np.dtype(f32), True, False)
            if tail is not None:
                _view(out)[tail[0]] = tail[1]
            _bfloat16_loop_nans(op.name, a, b, out, target is None, loop_out)
            return out
        y = _scaled(y, alpha_np, compute)
    compare = op.kind == "compare"
    cast = not (
        (not isinstance(a, Tensor) or a._dtype is compute)
        and (not isinstance(b, Tensor) or b._dtype is compute)
        and (out._dtype is compute or compare)
    )
    if op.extreme and compute.is_floating_point:
        _extreme_into(op, a, b, x, y, out, target is None, loop_out, compute)
        return out
    if op is DIV and compute.is_complex:
        # (an in-place target, or an out= that is an operand: PyTorch's tail loop then unfused)
        aliased = any(t is not None and (t is a or t is b) for t in (target, loop_out))
        x_np, y_np = np.asarray(x, compute.numpy), np.asarray(y, compute.numpy)
        if _complex_forms_into(complex_forms.DIV, (a, b), x_np, y_np, out, target is None, loop_out, compute, aliased):
            return out
    if op is MUL and compute.is_complex:
        _complex_mul_into(a, b, x, y, out, target is None, loop_out, compute,
                          aliased=target is not None and (target is a or target is b))
        return out
    # (one row's bits, as the fast path's; ml_dtypes' ufunc converts element by element. An out= of
    # another layout decides PyTorch's loop: its NaN words then by the general steps below)
    if op.bf16_code >= 0 and compute is bfloat16 and not cast \
            and _walks_own_rows(out, loop_out) \
            and bf16_into(op.bf16_code, x, y, _view(out)):
        return out
    binary_into(ufunc, x, y, _view(out), compute.numpy, cast, compare)
    if out._dtype is bfloat16 and op.name in LOOP_SPLIT:
        _bfloat16_loop_nans(op.name, a, b, out, target is None, loop_out)
    return out


def _bfloat16_loop_nans(name: str, a: Any, b: Any, out: Tensor, fresh: bool, loop_out: Tensor | None) -> None:
    """Give the NaNs of the bfloat16 result ``out`` of ``op(a, b)`` PyTorch's bits: 0xFFFF where
    its vector loop computed them, 0x7FC0 in its scalar loop (:mod:`strided.kernels.reduced_nans`;
    NumPy keeps the NaN's sign). Nothing to do (one test of the words) where there is no NaN."""
    view = _view(out)
    if not has_nan(view):
        return
    shape, strides, fresh = _loop_layout(out, fresh, loop_out)
    loop_nans(view, scalar_mask(name, shape, strides, fresh, [_loop_operand(t, bfloat16) for t in (a, b)]))


def _complex_mul_into(a: Any, b: Any, x: Any, y: Any, out: Tensor, fresh: bool, loop_out: Tensor | None,
                      compute: DType, aliased: bool = False) -> None:
    """Complex ``a * b`` into ``out`` with PyTorch's bits (NumPy's complex multiply contracts to
    fma: ~40% of complex64 products differed in the last bit). PyTorch's vectorized loop (AVX2
    ``operator*``) rounds each product, ``ac - bd`` and ``ad - b(-c)``; its scalar tail, compiled with
    the multiplies contracted, gives ``fma(a, c, -(bd))`` and ``fma(a, d, bc)`` (complex64: two
    elements at a time, an odd last element the rounded form); a strided row (basic_loop) takes
    the fma form throughout, a number or 0-d operand (the scalar kernel) and an operand constant
    along the rows the rounded form throughout (measured on PyTorch 2.13, x86-64:
    :func:`_complex_mul_fma_mask`; ``aliased``: ``out`` is an operand, an in-place form). Computed
    into a fresh array (an in-place target is an operand), then written."""
    cd = compute.numpy
    x, y = np.asarray(x, cd), np.asarray(y, cd)  # (a real operand: exact)
    # (an out= of another layout decides PyTorch's loop: the general steps below)
    if _walks_own_rows(out, loop_out) and _complex_mul_runs(x, y, _view(out)):
        return
    xb, yb = np.broadcast_arrays(x, y)
    p, q, c, d = xb.real, xb.imag, yb.real, yb.imag
    res = np.empty(out._layout.shape, cd)
    with np.errstate(all="ignore"):
        np.subtract(p * c, q * d, out=res.real)
        np.subtract(p * d, q * np.negative(c), out=res.imag)
        mask = _complex_mul_fma_mask(a, b, out, fresh, loop_out, compute, aliased)
        if mask is not None and mask.any():
            pm, qm, cm, dm = p[mask], q[mask], c[mask], d[mask]
            res.real[mask] = fma(pm, cm, -(qm * dm))
            res.imag[mask] = fma(pm, dm, qm * cm)
    assign(_view(out), res)


def _complex_mul_runs(x: np.ndarray, y: np.ndarray, out: np.ndarray) -> bool:
    """:func:`_complex_mul_into`'s forms by the compiled ``complex_mul_run`` where PyTorch's loop
    is one row in memory order: ``out`` dense (row- or column-major) with ``x`` (and ``y``, or
    ``y`` one number or 0-d: the scalar form) laid out as it, the same memory being x itself or
    fresh; the row cut at parallel_for's chunks from 32768 elements. False (nothing written)
    otherwise: the general steps then run."""
    k = native_special()
    if k is None or not out.size:
        return False
    if x.ndim == 0 and y.ndim:
        x, y = y, x  # (a number times a tensor: the same products, the tensor's loop)
    order = "C" if out.flags.c_contiguous else "F" if out.flags.f_contiguous else None
    if order is None or x.shape != out.shape or x.strides != out.strides:
        return False
    if y.ndim == 0:
        flat_y, rule = y.reshape(1), 1
    elif y.shape == out.shape and y.strides == out.strides:
        flat_y, rule = y.reshape(-1, order=order), 0
    else:
        return False
    n = out.size
    piece = n if n < GRAIN_SIZE else -(-n // parallel_chunks(n, torch_threads()))
    return bool(k.complex_mul_run(x.reshape(-1, order=order), flat_y, out.reshape(-1, order=order), piece, rule))


def _complex_mul_fma_mask(a: Any, b: Any, out: Tensor, fresh: bool, loop_out: Tensor | None,
                          compute: DType, aliased: bool = False) -> np.ndarray | None:
    """Where PyTorch's complex mul computes the fma form (see :func:`_complex_mul_into`): a bool
    array of the output's shape, or None (the rounded form everywhere). Measured on PyTorch 2.13
    x86-64 per tail length: a row's vector blocks (2 * Vectorized<complex>::size(): 8 complex64,
    4 complex128) round; its tail is the compiler's: complex128 fma throughout; complex64 fma in
    pairs, an odd last element rounded, or, where one operand is the same along the row (a number,
    a 0-d tensor, a stride-0 operand), fma at tail places 1 to 4 of tails of 5 to 7 only; a
    strided row (basic_loop): complex128 fma throughout, complex64 fma in pairs and an odd last
    element rounded, or rounded throughout where the output is an operand (``aliased``, an
    in-place form: the compiler's loop for overlapping memory is not vectorized)."""
    shape, strides, fresh = _loop_layout(out, fresh, loop_out)
    inputs = [_loop_operand(t, compute) for t in (a, b)]
    places = loop_positions(shape, strides, fresh, inputs)
    if places is None:  # (strided rows: basic_loop's, the compiler's loop over the whole row)
        if compute.itemsize == 16:
            return np.ones(shape, bool) if L.product(shape) else None
        if aliased:
            return None
        places = loop_positions(shape, strides, fresh, inputs, strided_rows=True)
        if places is None:
            return None
        pos, length, _ = places
        return pos < length - length % 2
    pos, length, scalar = places
    block = 64 // compute.itemsize
    tail = length % block
    start = length - tail
    if compute.itemsize == 16:
        return pos >= start
    if scalar is None and all(i is not None and i[0] for i in inputs):
        return (pos >= start) & (pos < start + tail - tail % 2)
    k = pos - start
    return (pos >= start) & (tail >= 5) & (k >= 1) & (k <= 4)


def _extreme_into(op: BinaryOp, a: Any, b: Any, x: Any, y: Any, out: Tensor, fresh: bool,
                  loop_out: Tensor | None, compute: DType) -> None:
    """maximum / minimum of floats into ``out`` with PyTorch's bits for ties of opposite zeros
    and NaNs (:mod:`strided.kernels.torch_extremes`): computed into a fresh array (the operands
    are read again after it, and an in-place target is one of them), then written. ``loop_out``:
    an ``out=`` the fresh ``out`` will be copied into, whose layout PyTorch's loop walks."""
    cd = compute.numpy
    # (another dtype converted as PyTorch converts it: through float32 into a 2-byte float)
    x, y = (v if v.dtype == cd else quiet_call(np.asarray(reduced_cast_source(cd, v)).astype, cd)
            for v in (np.asarray(x), np.asarray(y)))
    res = quietly(op.ufunc, x, y)
    torch_extremes.fix(op.extreme, (x, y), res, lambda: torch_extremes.loop_mask(
        *_loop_layout(out, fresh, loop_out), [_loop_operand(t, compute) for t in (a, b)], cd))
    assign(_view(out), res)


def _walks_own_rows(out: Tensor, loop_out: Tensor | None) -> bool:
    """Whether PyTorch's loop walks the rows of the result ``out`` itself: no out= (``loop_out``
    None: a fresh result or an in-place target), or an out= of the result's layout. An out= of
    another layout decides PyTorch's loop (along its rows the operands are strided: the scalar
    loop, its NaN words), so the compiled one-row kernels, which walk ``out``'s rows, do not run."""
    return loop_out is None or loop_out._layout.strides == out._layout.strides


def _loop_layout(out: Tensor, fresh: bool, loop_out: Tensor | None) -> tuple[tuple[int, ...], tuple[int, ...], bool]:
    """(shape, strides, fresh) of the output PyTorch's loop walks: ``out``, or an ``out=`` of the
    result's shape that the fresh ``out`` is copied into (another dtype: the row-major temporary
    TensorIterator writes in the compute dtype)."""
    shape, strides = out._layout.shape, out._layout.strides
    if loop_out is not None and loop_out._layout.shape == shape:
        strides = loop_out._layout.strides if loop_out._dtype is out._dtype else L.contiguous_strides(shape)
        fresh = False
    return shape, strides, fresh


def _loop_operand(t: Any, compute: DType) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """An input as PyTorch's loop reads it: (shape, strides), None for a number. An input of
    another dtype is read from its converted copy (``Tensor.to``: its strides where it is dense,
    else row-major)."""
    if not isinstance(t, Tensor):
        return None
    lay = t._layout
    if t._dtype is compute or L.is_non_overlapping_and_dense(lay.shape, lay.strides):
        return lay.shape, lay.strides
    return lay.shape, L.contiguous_strides(lay.shape)


def _late_checks(op: BinaryOp, compute: DType, a: Any, b: Any) -> None:
    """The dtype refusals of an op's kernel, made after the broadcast (and in-place cast) checks
    as PyTorch makes them: bool for every such op, integers for ``float_only`` (hypot; complex
    too unless ``complex_ok``), floats for ``int_only`` (gcd, lcm)."""
    if op.int_only and (compute.is_floating_point or compute is bool_):
        raise _not_implemented(op.kernel, compute, (a, b), "it takes integer tensors; fix: convert them first, "
                               "e.g. x.to(strided.int64)")
    if compute is bool_ or (op.float_only and not (compute.is_floating_point or (op.complex_ok and compute.is_complex))):
        raise _not_implemented(op.kernel, compute, (a, b), "fix: convert to float first, e.g. x.to(strided.float32)")


# In-place ops with a flat fast path (an optimizer's m.mul_(b1).add_(g, alpha=1 - b1)), for the
# float dtypes whose compute dtype is their own (float16's mul/div compute in float32: "opmath").
_FAST_INPLACE = ("add", "sub", "mul", "div")
_FLAT_INPLACE_DTYPES = (float32, float64)


def _inplace_flat(op: BinaryOp, self: Tensor, other: Any, alpha: Any) -> bool:
    """``self.<op>_(other, alpha=alpha)`` on the flat run of a row-major float32/float64 tensor,
    when ``other`` is a tensor of the same dtype and layout sharing no storage with it (or
    ``self`` itself), or a Python float (an int below 2**53): then every check of the general
    path passes (no promotion, no broadcast, no overlap, memory writable) and its kernel,
    ``binary_into`` over the same elements, runs on the flat runs. False (nothing written) for
    any other case, which the general path (:func:`_binary`) takes."""
    d = self._dtype
    if d not in _FLAT_INPLACE_DTYPES:
        return False
    la = self._layout
    shape = la.shape
    info = _cinfo[shape]
    if la.strides != info[0]:
        return False
    n = info[1]
    tb = type(other)
    if (tb is Tensor or tb in SUBCLASSES):
        lb = other._layout
        if other._dtype is not d or lb.shape != shape or lb.strides != la.strides or (
                other is not self and shares_storage(other, self)):  # (the overlap checks: the general path)
            return False
        y = other._storage.array
        if lb.offset or len(y) != n:
            y = y[lb.offset : lb.offset + n]
            if len(y) != n:
                return False
    elif tb is float or (tb is int and -_EXACT < other < _EXACT):
        # (what _kernel_arg gives the general path: _np_scalar's conversion, whose quiet context
        # only matters for a value float32 cannot hold, which takes it. Without alpha, a Python
        # float goes to the ufunc as it is: NumPy's weak scalar takes the array's dtype, the same
        # C cast as the dtype's constructor, without making the scalar object, a third of the op)
        if -_F32_SAFE < other < _F32_SAFE:
            y = other if tb is float and alpha is None else d.numpy.type(float(other))
        else:
            y = _np_scalar(other, d)
    else:
        return False
    x = self._storage.array
    if not x.flags.writeable:
        return False
    if la.offset or len(x) != n:
        x = x[la.offset : la.offset + n]
        if len(x) != n:
            return False
    if alpha is not None:
        if type(alpha) is float and -65504.0 <= alpha <= 65504.0:
            # (a float alpha every float dtype holds: _alpha_scalar's checks pass and its
            # conversion, scalars.wrapped, is the dtype's constructor; _check_alpha_range passes)
            if type(y) is np.ndarray:
                # (fma_into's compiled call, straight: the kernel takes the number as the dtype
                # holds it, as np.float32(alpha) does; C code, so no NumPy warning to quiet)
                k = native_special()
                if k is not None:
                    try:
                        if (k.fma32 if d is float32 else k.fma64)(-alpha if op is SUB else alpha, y, x, x):
                            return True
                    except (ValueError, BufferError):  # (not flat runs after all: fma_into's steps)
                        pass
            alpha_np = d.numpy.type(alpha)
        else:
            alpha_np = _negatable(op, alpha, _alpha_scalar(alpha, d, d, op.name + "_"))
            _check_alpha_range(alpha, d, op.name + "_", op is SUB)
        if type(y) is np.ndarray:  # (an optimizer's m.add_(g, alpha=1 - b1): _fused_alpha's roundings)
            quietly_here(fma_into, -alpha_np if op is SUB else alpha_np, y, x, x)  # (native.disabled() seen)
        else:
            redo = _unfused_flat_tail(op, x, y, alpha_np)  # (read before x is written: it is the operand)
            quietly_here(_fused_alpha, op, x, y, alpha_np, x)
            if redo is not None:
                x[redo[0]] = redo[1]
        return True
    if y.__class__ is float:
        # (a Python float inside float32's range: the compiled loop, NumPy's weak-scalar bits without
        # the ufunc's scalar conversion; it declines a NaN, and an older build lacks it)
        k = native_special()
        run = getattr(k, "scalar_inplace", None) if k is not None else None
        if run is not None and run(x, y, _SCALAR_INPLACE_CODES[op.name]):
            return True
    binary_into(op.ufunc, x, y, x, d.numpy, False, False)
    return True


# scalar_inplace's op codes (kernels/_scalar_inplace.h), for the ops of _FAST_INPLACE
_SCALAR_INPLACE_CODES = {"add": 0, "sub": 1, "mul": 2, "div": 3}


# The dtypes whose add/sub with alpha= round once, as PyTorch's CPU kernel computes them
# (``vec::fmadd(b, alpha, a)``; sub is add with -alpha): float16's kernel computes in float32 and
# is left to the general path's two roundings here.
# the compute dtypes whose add/sub with alpha= is one fused multiply-add: float16's as PyTorch's
# vectorized kernel, alpha rounded to float16 and fmadd in float32 (opmath) then float16
# (:func:`strided.kernels.fused.fma` computes float16 that way)
_FUSED_DTYPES = (float32, float64, float16)


def _reduced_scalar_loop(op: BinaryOp, a: Any, b: Any, x: Any, y: Any, alpha: Any, out: Tensor,
                         fresh: bool, loop_out: Tensor | None = None) -> tuple[np.ndarray, np.ndarray] | None:
    """The elements (a mask of ``out``'s shape, their values) of a float16 (bfloat16)
    ``add``/``sub`` with ``alpha=`` that
    PyTorch's CPU kernel computes in its scalar loop (:mod:`strided.kernels.torch_loops`: a row's
    last ``len % 32`` elements, every element of a row its vector loop cannot take):
    ``self + alpha * other`` in the reduced type, the product rounded to it before the sum (c10's
    ``Half``/``BFloat16`` operators compute each step in float32 and round), where the vector loop
    (the caller's result) is one ``fmadd`` in float32, rounded once. Computed before the caller
    writes ``out``: an in-place target is an operand. ``loop_out``: an ``out=`` of the result's
    shape that the fresh ``out`` will be copied into: PyTorch's loop walks that one, or (another
    dtype) the row-major temporary TensorIterator writes in the compute dtype and copies over it."""
    strides = out._layout.strides
    if loop_out is not None and loop_out._layout.shape == out._layout.shape:
        strides, fresh = loop_out._layout.strides if loop_out._dtype is out._dtype else L.contiguous_strides(out._layout.shape), False
    mask = scalar_loop_mask(out._layout.shape, strides, fresh, [_loop_operand(t, out._dtype) for t in (a, b)])
    if mask is None:
        return None
    f32, rt = np.float32, out._dtype.numpy
    shape = out._layout.shape
    xs = np.broadcast_to(np.asarray(x), shape)[mask].astype(f32)
    ys = np.broadcast_to(np.asarray(y), shape)[mask].astype(f32)
    with np.errstate(all="ignore"):
        product = (ys * f32(-alpha if op is SUB else alpha)).astype(rt).astype(f32)
        return mask, (xs + product).astype(rt)


# PyTorch's float32/float64 add/sub with alpha= and a scalar other on an AVX512 build (measured on
# 2.13, every tail length of both dtypes, aligned or not): its vector loop takes a piece's first
# length - length % step elements (step: one Vectorized, 64 bytes) with fmadd, rounded once; of the
# last t, the compiled scalar loop computes the first with a fused multiply-add too, the next
# (t - 1) // lanes * lanes (lanes: 16 bytes) as self + alpha * other rounded twice (the product,
# then the sum), the rest fused again; a strided row (basic_loop) is fused throughout.
_UNFUSED_FIRST = 1


def _unfused_steps(itemsize: int) -> tuple[int, int]:
    """(step, lanes) in elements of PyTorch's vector loop and of the compiler's in its scalar tail."""
    return 64 // itemsize, 16 // itemsize


def _two_roundings(op: BinaryOp, xs: np.ndarray, y: Any, alpha: Any, dtype: np.dtype) -> np.ndarray:
    """``xs + alpha * y`` (``- alpha * y`` for sub) in ``dtype``, the product rounded before the
    sum: PyTorch's scalar ``ufunc::add`` where the compiler did not fuse it."""
    scale = dtype.type(-alpha if op is SUB else alpha)
    return quietly(_product_then_sum, xs, np.asarray(y, dtype), scale)  # (an overflow: PyTorch's inf too)


def _product_then_sum(xs: np.ndarray, y: np.ndarray, scale: Any) -> np.ndarray:
    """``y * scale + xs``, each step rounded to their dtype (call it with NumPy's warnings off)."""
    return y * scale + xs  # (the product first: a NaN of both operands is the product's, as PyTorch's)


def _unfused_flat_tail(op: BinaryOp, x: np.ndarray, y: Any, alpha: Any) -> tuple[Any, np.ndarray] | None:
    """:func:`_unfused_scalar_tail` for an in-place target that is one flat float32/float64 run
    ``x`` (``y`` a number of its dtype): an index (a slice below the grain size) and its values."""
    if torch_vector_bytes() != 64 or x.dtype.itemsize not in (4, 8):
        return None
    at = _unfused_run(len(x), x.itemsize)
    return None if at is None else (at, _two_roundings(op, x[at], y, alpha, x.dtype))


def _unfused_run(n: int, itemsize: int) -> Any:
    """The places PyTorch rounds twice (the note above :data:`_UNFUSED_FIRST`) in one flat run of
    ``n`` elements that is both the output and the tensor operand: a slice below the grain size
    (one piece: no per-element arrays on an optimizer's small step), a mask past it; None: none."""
    step, lanes = _unfused_steps(itemsize)
    if n >= GRAIN_SIZE:
        return tail_block_mask((n,), (1,), False, [((n,), (1,)), None], step, _UNFUSED_FIRST, lanes)
    t = n % step
    count = (t - _UNFUSED_FIRST) // lanes * lanes if t > _UNFUSED_FIRST else 0
    return slice(n - t + _UNFUSED_FIRST, n - t + _UNFUSED_FIRST + count) if count > 0 else None


def _unfused_scalar_tail(op: BinaryOp, a: Any, b: Any, x: Any, y: Any, alpha: Any, out: Tensor,
                         fresh: bool, loop_out: Tensor | None = None) -> tuple[np.ndarray, np.ndarray] | None:
    """The elements (a mask of ``out``'s shape, their values) of a float32/float64 ``add``/``sub``
    with ``alpha=`` that PyTorch's CPU kernel rounds twice (the note at :data:`_UNFUSED_FIRST`;
    only its AVX512 build is known: None on another), where the caller's result is rounded once:
    where its vector loop takes ``other`` as its scalar, a number or a one-element tensor, or a
    tensor with stride 0 along the loop's rows (``x (R, n) + y (R, 1)``: measured, the same tail
    places; a stride-0 ``self`` and two dense operands are fused throughout). Arguments as
    :func:`_reduced_scalar_loop`'s; computed before the caller writes ``out`` (an in-place target
    is an operand)."""
    if torch_vector_bytes() != 64 or not isinstance(a, Tensor):
        return None
    one = not isinstance(b, Tensor) or L.product(b._layout.shape) == 1  # (one value: a stride-0 operand)
    if not one and b._layout.shape == out._layout.shape and 0 not in b._layout.strides:
        return None  # (other repeats along no dim: never the vector loop's scalar; the common case)
    strides = out._layout.strides
    if loop_out is not None and loop_out._layout.shape == out._layout.shape:
        strides, fresh = loop_out._layout.strides if loop_out._dtype is out._dtype else L.contiguous_strides(out._layout.shape), False
    shape = out._layout.shape
    xa = np.asarray(x)
    # (as the loop reads self: a self of another dtype from its converted copy, row-major where
    # it is not dense: x.half()[::2].add(y32, alpha=) walks contiguous rows with their tails)
    lay_shape, lay_strides = _loop_operand(a, out._dtype)
    if one and lay_shape == shape and lay_strides == strides == L.contiguous_strides(shape):
        # (row-major operand and output: one flat run, its places without TensorIterator's walk)
        at = _unfused_run(xa.size, xa.dtype.itemsize)
        if at is None:
            return None
        mask = np.zeros(xa.size, bool)
        mask[at] = True
        mask = mask.reshape(shape)
    else:
        step, lanes = _unfused_steps(xa.dtype.itemsize)
        other = None if one else _loop_operand(b, out._dtype)
        mask = tail_block_mask(shape, strides, fresh, [(lay_shape, lay_strides), other], step, _UNFUSED_FIRST, lanes,
                               scalar=1)
        if mask is None:
            return None
    # (y broadcast and masked too: a (1, 1) tensor's value, or a broadcast other's per element)
    ys = np.broadcast_to(np.asarray(y), shape)[mask]
    return mask, _two_roundings(op, np.broadcast_to(xa, shape)[mask], ys, alpha, xa.dtype)


def _fused_alpha(op: BinaryOp, x: Any, y: Any, alpha: Any, dest: np.ndarray) -> None:
    """``dest[...] = x + alpha * y`` (``x - alpha * y`` for sub) rounded once (:mod:`strided.kernels.fused`;
    float16 by the compiled half kernel where it takes the operands: the same bits)."""
    scale = -alpha if op is SUB else alpha
    if isinstance(scale, np.float16) and scale == scale and half_into(4, y, x, dest, float(scale)):
        return  # (a NaN alpha: fma's own order of NaN operands decides, left to it)
    if _fma_straight_into(scale, y, x, dest):
        return
    np.copyto(dest, fma(y, scale, x), casting="unsafe")


def _fma_straight_into(scale: Any, y: Any, x: Any, dest: np.ndarray) -> bool:
    """``dest[...] = scale * y + x`` by the compiled fma32/fma64 writing ``dest`` itself, where
    :func:`~strided.kernels.fused.fma` would make that same call into new memory (a number
    ``scale`` of ``dest``'s float32/float64 dtype, not NaN; ``x`` a C-contiguous array of that
    dtype and ``dest``'s shape; ``y`` an array of that dtype: 0-d (a number other), or of any
    layout broadcasting to ``dest``, which goes in as fma's contiguous broadcast copy of it):
    the same bits, without fma's fresh array and the copy out of it (a 512 x 784 add(y, alpha=)
    spent 1.5 ms there, the kernel 60 us). False: nothing written (another case, no kernel, or an
    operand overlapping ``dest`` other than element for element)."""
    dt = dest.dtype
    if not (isinstance(scale, (np.float32, np.float64)) and scale.dtype == dt and scale == scale
            and y.__class__ is np.ndarray and x.__class__ is np.ndarray and y.dtype == dt == x.dtype
            and x.shape == dest.shape and dest.flags.c_contiguous and x.flags.c_contiguous):
        return False
    k = native_special()
    if k is None:
        return False
    run = k.fma32 if dt == np.float32 else k.fma64
    try:
        if y.shape:
            if y.shape != dest.shape or not y.flags.c_contiguous:
                # (fused._compiled's run of it: read whole before dest is written)
                y = np.ascontiguousarray(np.broadcast_to(y, dest.shape))
            return bool(run(float(scale), y.reshape(-1), x.reshape(-1), dest.reshape(-1)))
        # (a number other: fma's call is run(y, scale broadcast, x); the broadcast run is one
        # block of scale reused over the elements, not an array of the whole shape)
        xs, ds = x.reshape(-1), dest.reshape(-1)
        n, first = xs.size, float(y)
        block = np.full(min(n, _FMA_BLOCK), scale, dt)
        for at in range(0, n, _FMA_BLOCK):
            m = min(_FMA_BLOCK, n - at)
            if not run(first, block[:m], xs[at : at + m], ds[at : at + m]):
                if at:  # (cannot happen: the first block's checks hold for every block)
                    raise AssertionError("fma kernel declined a later block")
                return False
        return True
    except (ValueError, BufferError):  # (not flat runs after all: fma's steps)
        return False


_FMA_BLOCK = 8192  # (elements of the reused scale block: 32-64 KB, in the L2 cache)


def _tensor_args_error(name: str, a: Any, b: Any, inplace: bool = False) -> StridedTypeError:
    """PyTorch's parser error for a number where the signature takes a tensor (atan2, hypot, ...);
    an in-place method's (``x.gcd_(2)``) names itself and counts after ``self``."""
    pos, which, value = (2, "other", b) if isinstance(a, Tensor) else (1, "input", a)
    if inplace:
        pos -= 1
    return StridedTypeError(
        join_lines(
            f"{name}{'_' if inplace else ''}(): argument '{which}' (position {pos}) must be Tensor, not "
            f"{type(value).__name__}",
            f"{name} takes two tensors, got the number {value!r}; wrap it: "
            f"strided.{name}(x, strided.tensor({value!r}))",
        )
    )


def _alpha_scalar(alpha: Any, result: DType, compute: DType, name: str) -> Any:
    """``alpha=`` checked as PyTorch's ``alpha_check``, as a NumPy scalar of the compute dtype."""
    if isinstance(alpha, np.generic) and alpha.dtype.kind in "biufc":
        alpha = numpy_scalar(alpha)  # (PyTorch's reading: np.True_ is 1.0, np.complex64 its real part)
    if not isinstance(alpha, (bool, int, float, complex)):
        raise StridedTypeError(
            join_lines(
                f"{name}(): argument 'alpha' must be Number, not {type(alpha).__name__}",
                f"alpha scales the second operand: x.{name}(y, alpha=2) is x {'+' if 'add' in name else '-'} 2 * y",
            )
        )
    if isinstance(alpha, bool) and result is not bool_:
        raise StridedRuntimeError(
            join_lines(
                "Boolean alpha only supported for Boolean results.",
                f"the result is {result.name}; pass a number: alpha={int(alpha)}",
            )
        )
    if isinstance(alpha, (float, complex)) and not (result.is_floating_point or result.is_complex):
        raise StridedRuntimeError(
            join_lines(
                "For integral input tensors, argument alpha must not be a floating point number.",
                f"the result is {result.name} and alpha={alpha!r}; pass an int alpha, or convert the "
                "tensors to float first (x.to(strided.float32))",
            )
        )
    if isinstance(alpha, complex) and not result.is_complex:
        raise StridedRuntimeError(
            join_lines(
                "For non-complex input tensors, argument alpha must not be a complex number.",
                f"the result is {result.name} and alpha={alpha!r}; pass a real alpha, or complex tensors",
            )
        )
    return _np_scalar(alpha, compute)


def _negatable(op: BinaryOp, alpha: Any, alpha_np: Any) -> Any:
    """``alpha_np`` (:func:`_alpha_scalar`'s) such that ``-alpha_np``, which every float path of
    sub computes, is PyTorch's scale of ``other``: it negates ``alpha`` as given (c10::Scalar's
    minus) before converting it, and an integral 0 negates to 0, converted to +0.0, where the
    negated float of ``alpha=0`` would be -0.0 (``x.sub(y, alpha=0)`` is +0.0 at ``x = -0.0``
    in PyTorch: -0.0 + 0.0 * y). A float alpha negates as its float: the same either way."""
    if (op is SUB and alpha_np == 0 and alpha.__class__ is not bool and isinstance(alpha, (int, np.integer))
            and alpha_np.dtype.kind not in "iub"):  # (bfloat16: "V")
        return -alpha_np  # (-0.0: its negation is +0.0)
    return alpha_np


_INT64_MIN = -(2**63)


def _check_alpha_range(alpha: Any, result: DType, name: str, negated: bool = False) -> None:
    """PyTorch's conversion of ``alpha`` (checked by :func:`_alpha_scalar`) to the result's dtype,
    which refuses a value outside its range (after the in-place checks, as in PyTorch). Sub
    (``negated``) is PyTorch's add of ``-alpha``, negated as the number given before it converts:
    ``alpha=128`` fits int8 there (-128), ``alpha=-128`` does not."""
    if isinstance(alpha, np.generic):
        alpha = numpy_scalar(alpha)
    if negated and alpha.__class__ is not bool and alpha != _INT64_MIN:  # (c10::Scalar's int64 minus wraps there)
        alpha = -alpha
    if result.is_complex:  # (a complex64/128 holds any alpha whose parts its float part holds)
        parts = (alpha.real, alpha.imag) if isinstance(alpha, complex) else (alpha,)
        if result.name == "complex128" or all(
                v != v or v in (_INF, -_INF) or -_F32_MAX <= v <= _F32_MAX for v in parts):
            return
    if not result.is_floating_point or not -65504 <= alpha <= 65504:  # (below float16's max every float dtype holds it)
        message = scalar_overflow(alpha, result)
        if message is not None:
            raise StridedRuntimeError(
                join_lines(
                    message,
                    f"alpha={alpha!r} is outside the range of {result.name}, the dtype {name} computes in",
                    "fix: a smaller alpha, or tensors of a wider dtype (x.to(strided.float64))",
                )
            )


def _scaled(y: Any, alpha: Any, compute: DType) -> Any:
    """``alpha * y`` in the compute dtype (a temporary the size of ``y``: add/sub with alpha=)."""
    return quietly(np.multiply, y, alpha, dtype=compute.numpy, casting="unsafe")


_ALPHA_OPS = ("add", "sub")


def _rounding(op: BinaryOp, rounding_mode: Any) -> BinaryOp:
    """The kernel of ``div(..., rounding_mode=...)`` (floor_divide's or :class:`_TruncDivide`), with
    PyTorch's errors for another mode or another op.

    >>> _rounding(DIV, "trunc").name
    'div_trunc'
    """
    if op is not DIV:
        raise StridedTypeError(join_lines(
            f"{op.name}() got an unexpected keyword argument 'rounding_mode'",
            "only div (divide, true_divide) takes rounding_mode=: x.div(y, rounding_mode='floor')"))
    if not isinstance(rounding_mode, str):  # (PyTorch's parser: a TypeError, before the kernel's check)
        raise StridedTypeError(join_lines(
            f"div(): argument 'rounding_mode' must be str or None, not {type(rounding_mode).__name__}",
            "fix: rounding_mode='trunc' (toward zero), 'floor' (toward -inf) or None (true division)"))
    found = _ROUNDED.get(rounding_mode)
    if found is None:
        raise StridedRuntimeError(join_lines(
            f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{rounding_mode}'",
            "fix: rounding_mode='trunc' (toward zero), 'floor' (toward -inf) or None (true division)"))
    return found


def _with_extras(op: BinaryOp, a: Any, b: Any, alpha: Any, out: Any, name: str = "") -> Any:
    """``op(a, b, alpha=..., out=...)``: the general path, then :func:`strided.ops._support.out.write_out`
    (``name``: the op out= is reported as, when not ``op``'s own: div's rounding modes)."""
    if alpha is not None and op.name not in _ALPHA_OPS:
        raise StridedTypeError(
            join_lines(
                f"{op.name}() got an unexpected keyword argument 'alpha'",
                "only add and sub take alpha= (x.add(y, alpha=2) is x + 2 * y)",
            )
        )
    if out is None:
        return binary(op, a, b, alpha=alpha)
    if isinstance(out, Tensor) and (out is a or out is b):  # (out=0 with b=0: the same int object)
        _check_operand_out(op, a, b, out)
    if op is FLOOR_DIVIDE and not name:
        return _floor_divide_out(a, b, out)
    if alpha is None and not name and _into_out(op, a, b, out):
        _binary(op, a, b, out)  # (the in-place form's walk, into out: no fresh result, no write)
        bump(out, f"{op.name}(out=...)")
        return out
    if op.late_checks and isinstance(out, Tensor) and isinstance(a, Tensor) and isinstance(b, Tensor):
        # (PyTorch: an out its result cannot be cast to is refused before the kernel's dtype refusal)
        check_cast(_binary_dtypes(op, a, b)[1], out, op.name)
    # (alpha=, maximum/minimum, complex mul, div and pow: out's layout decides PyTorch's loop, so the bits)
    # (and the bfloat16 NaN bits of kernels.reduced_nans' ops)
    loop_out = out if (alpha is not None or op.extreme or op is MUL or op is DIV or op is POW
                       or op.name in LOOP_SPLIT) and isinstance(out, Tensor) else None
    return write_out(out, _binary(op, a, b, None, alpha, loop_out), name or op.name, (a, b), plain_loop=True)


def _check_operand_out(op: BinaryOp, a: Any, b: Any, out: Tensor) -> None:
    """PyTorch's refusal of an ``out=`` that is one of the operands (TensorIterator's read-write
    output, which it never resizes) where the operands broadcast past its shape:
    ``add(x, y, out=y)`` with ``y`` of shape (1,) and ``x`` (16,) (strided resized ``y``)."""
    try:
        shape = np.broadcast_shapes(*(t._layout.shape for t in (a, b) if isinstance(t, Tensor)))
    except ValueError:
        return  # (shapes that do not broadcast: the general path's error)
    if shape != out._layout.shape:
        raise StridedRuntimeError(join_lines(
            f"output with shape {list(out._layout.shape)} doesn't match the broadcast shape {list(shape)}",
            f"{op.name}(out=...) was given one of its operands as out=, which PyTorch writes in place and "
            f"never resizes; the operands broadcast to {shape}",
            "fix: pass a fresh out= (or one of the broadcast shape), or drop out= and assign the result",
        ))


def _into_out(op: BinaryOp, a: Any, b: Any, out: Any) -> bool:
    """Whether ``op(a, b, out=out)`` may compute straight into ``out``
    (:func:`strided.ops._support.out.into_out`): two tensors of one shape (no broadcasting, whose
    warnings the general path gives) and a ufunc whose values do not depend on NumPy's walk
    (:data:`strided.kernels.tiles.EXACT`: add, sub, mul, div, comparisons, ...), so computing in
    ``out``'s layout gives the fresh result's bits."""
    if type(a) is not Tensor or type(b) is not Tensor or op.ufunc not in EXACT or op.kind == "pow":
        return False
    shape = a._layout.shape
    if b._layout.shape != shape or not isinstance(out, Tensor) or out._layout.shape != shape:
        return False
    strides = (a._layout.strides, b._layout.strides)
    # Against both inputs, the fresh result in the inputs' order and one blocked write are faster,
    # but for the compiled kernel's one pass (a 2-d float + - * / of one dtype: fused_against_both)
    against = against_every_input(shape, out._layout.strides, strides)
    if against and not fused_against_both(op.ufunc, shape, out._layout.strides, strides):
        return False
    try:  # (a refusal is the general path's to raise, in its order and with its names)
        compute, result = _binary_dtypes(op, a, b)
        if op.late_checks:
            _late_checks(op, compute, a, b)
    except (StridedRuntimeError, StridedTypeError):
        return False
    if against and not (result in _FUSED_DTYPES and a._dtype is result and b._dtype is result and native_active()):
        return False
    return into_out(out, shape, result, (a, b))


def _floor_divide_out(a: Any, b: Any, out: Any) -> Any:
    """``floor_divide(a, b, out=out)`` as PyTorch 2.13 runs it: floor_divide has no derivative,
    so its out= variant is not refused when an input requires grad; ``out`` takes a
    ``NotImplemented`` node (as an in-place write) whose backward raises. ``out`` itself
    requiring grad is refused, with PyTorch's ``aten::`` prefix."""
    from ...grad_mode import _requiring

    if not GRAD_MODE.get():
        return write_out(out, _binary(FLOOR_DIVIDE, a, b, None, None), "floor_divide", (a, b))
    if isinstance(out, Tensor) and _requiring((out,)) is not None:
        raise StridedRuntimeError(join_lines(
            "aten::floor_divide(): functions with out=... arguments don't support automatic differentiation, "
            "but one of the arguments requires grad.",
            f"out (shape {out._layout.shape}) requires grad, and a write into out= records no step of the graph",
            "fix: y = strided.floor_divide(...) without out=, or write under strided.no_grad()"))
    if _requiring((a, b)) is None:
        return write_out(out, _binary(FLOOR_DIVIDE, a, b, None, None), "floor_divide", (a, b))

    def fwd(target: Any, x: Any, y: Any) -> Any:
        token = GRAD_MODE.set(False)
        try:
            return write_out(target, _binary(FLOOR_DIVIDE, x, y, None, None), "floor_divide", (x, y), bump=False)
        finally:
            GRAD_MODE.reset(token)

    return _RECORDER["inplace"](fwd, "floor_divide.out", out, (a, b), {})


def _wide_unsigned(x: Any) -> bool:
    """A uint16/32/64 tensor: PyTorch 2.13 gives those few kernels (mul, not add or pow)."""
    return isinstance(x, Tensor) and x._dtype.kind == "u" and x._dtype.itemsize > 1


def _pow_shortcut(a: Any, b: Any) -> bool:
    """PyTorch's shortcuts: a Python exponent 0 or 1 (``x ** 0``, ``x ** 1``) or a Python base 1."""
    if isinstance(b, Tensor):
        return not isinstance(a, (Tensor, bool)) and a == 1  # a bool base is not "1" to PyTorch
    return b == 0 or b == 1


def _scalar_over_tensor(a: bool | int | float, b: Tensor, compute: DType) -> Tensor:
    """``a / b`` for a Python scalar ``a``, as PyTorch's ``__rtruediv__`` computes it:
    ``reciprocal(b) * a`` (the output layout and the rounding follow those two ops)."""
    lay = b._layout
    shape = lay.shape
    strides = lay.strides
    if b._dtype is not compute:
        strides = L.preserve_format_strides(shape, strides)
    first = L.elementwise_output_strides(shape, [(shape, strides)])
    out = fresh_result(shape, compute, L.elementwise_output_strides(shape, [(shape, first), ((), ())]))
    mul_dtype = float32 if compute in REDUCED_FLOATS else compute  # PyTorch's float16 "opmath" for scalars
    recip = compute
    if compute.is_complex and not b._dtype.is_complex:
        # (PyTorch's reciprocal of a real tensor is real, b's float dtype or the default float:
        # 1/0 is inf, and inf * (1-2j) is inf-infj where a complex reciprocal of 0j gives NaNs)
        recip = b._dtype if b._dtype.is_floating_point else default_float()
    scalar_over_into(_np_scalar(a, mul_dtype), _view(b), _view(out), recip.numpy, mul_dtype.numpy)
    if compute is bfloat16 and has_nan(_view(out)):
        # (the bits of the mul's loop, which rounds last, over the reciprocal's fresh result)
        loop_nans(_view(out), scalar_loop_mask(shape, out._layout.strides, True, [(shape, first), None]))
    return out


def _wrapped_number(a: bool | int | float, b: Tensor) -> Any:
    """``torch.div(number, t)``'s first operand: PyTorch's parser wraps the number into a 0-d tensor
    and the kernel divides (``a / b``, one rounding); only the reflected ``number / t`` is
    ``reciprocal(t) * number`` (two roundings: 2.5 / 3.0 differs by an ulp in float32). The
    0-d tensor takes the compute dtype, so promotion and the value's rounding stay the number's.
    An int outside int64 (parsed by _operand) stays a number: the general path's rules and errors."""
    if type(a) not in (bool, int, float, complex):  # (an int outside int64: a UInt64Scalar, or a refused one)
        return a
    compute = _binary_dtypes(DIV, a, b)[0]
    t, arr = result_array((), compute)
    arr[()] = _np_scalar(a, compute)
    return t


def _is_scalar_operand(x: Any) -> bool:
    """PyTorch's ``TensorIterator::is_scalar``: every element of the broadcast operand is the same one."""
    if not isinstance(x, Tensor):
        return True
    lay = x._layout
    return all(n <= 1 or s == 0 for n, s in zip(lay.shape, lay.strides))


def _pow_exponent(b: bool | int | float, compute: DType, op: str) -> Any:
    """A Python exponent checked as PyTorch checks it: for integer powers a negative one is
    refused, then it must fit int64 and the dtype (uint8 ** 300 is refused, not computed as
    uint8 ** 44); float16 checks it too (1e5 is refused), float32/64 take any. Returns it as a
    NumPy scalar of ``compute`` for the checked dtypes, unchanged otherwise."""
    if compute.kind not in "fc":
        if b < 0:
            raise StridedRuntimeError(
                join_lines(
                    "Integers to negative integer powers are not allowed.",
                    f"the base is {compute.name} and the exponent {b}; "
                    f"fix: use a float base (x.to(strided.float32) ** {b})",
                )
            )
        if b >= 2**63:
            checked(b, int64, op, "the exponent")
        return checked(b, compute, op, "the exponent")
    if compute in REDUCED_FLOATS:
        return checked(b, compute, op, "the exponent")
    return b


def _bfloat16_pow(x: np.ndarray, exponent: float, out: np.ndarray) -> None:
    """``out = x ** 3`` or ``x ** -2`` as PyTorch's bfloat16 kernel: the square rounded to bfloat16;
    ``x ** 0.5`` and ``x ** -0.5`` as its sqrt and rsqrt (``1 / sqrt(x)``) in float32, rounded once."""
    if exponent in (0.5, -0.5):
        root = np.sqrt(x.astype(np.float32))
        np.copyto(out, root if exponent == 0.5 else np.divide(np.float32(1), root), casting="unsafe")
        return
    square = np.multiply(x.astype(out.dtype, copy=False), x, dtype=out.dtype)
    if exponent == 3.0:
        np.multiply(square, x, out=out, signature=(out.dtype,) * 3, casting="unsafe")
    else:
        np.divide(out.dtype.type(1), square, out=out, signature=(out.dtype,) * 3, casting="unsafe")


def _bfloat16_rsqrt_tail(a: Tensor, out: Tensor, fresh: bool, loop_out: Tensor | None
                         ) -> tuple[np.ndarray, np.ndarray] | None:
    """The elements (a mask of ``out``'s shape, their values) of a bfloat16 ``a ** -0.5`` that
    PyTorch's kernel computes in its scalar loop (a row's last ``len % step`` elements, every
    element of a row its vector loop cannot take; the step ``2 * Vectorized<BFloat16>::size()``
    is :func:`torch_vector_bytes`: 64 under its AVX512 capability, 32 under AVX2): ``1 / sqrt(x)``
    with c10's ``BFloat16`` sqrt, the root rounded to bfloat16 before the division (its vector loop rounds once: the
    caller's :func:`_bfloat16_pow`). Computed before the caller writes ``out`` (an in-place target
    is the operand)."""
    shape, strides, fresh = _loop_layout(out, fresh, loop_out)
    mask = scalar_loop_mask(shape, strides, fresh, [_loop_operand(a, bfloat16)], step=torch_vector_bytes())
    if mask is None:
        return None
    bf = out._dtype.numpy
    x = np.broadcast_to(_view(a), shape)[mask].astype(np.float32)
    with np.errstate(all="ignore"):
        root = np.sqrt(x).astype(bf).astype(np.float32)
        return mask, np.divide(np.float32(1), root).astype(bf)


def _float_pow(x: np.ndarray, exponent: float, out: np.ndarray, dtype: np.dtype) -> None:
    """``out = x ** exponent`` for a float32/float64 ``x`` and exponent 3, -2, 0.5 or -0.5 as
    PyTorch's CPU kernel computes them: ``x * x * x``, ``1 / (x * x)``, its sqrt and rsqrt
    (``1 / sqrt(x)``) kernels, each step rounded, not one rounding of ``pow`` (NumPy's power
    differs by an ulp on about a third of the elements; ``-0.0 ** 0.5`` is -0.0, ``** -0.5`` -inf).
    The sqrt kernel is MKL VML's where :mod:`strided.kernels.vml_route` runs (as ``sqrt``'s: VML's
    vsSqrt is not the correctly rounded root at every element on every CPU), NumPy's otherwise."""
    x = x.astype(dtype, copy=False)
    if exponent == 0.5:
        _vml_sqrt(x, out)
    elif exponent == -0.5:
        np.divide(dtype.type(1), np.sqrt(x), out=out)
    else:
        square = np.multiply(x, x)
        if exponent == 3.0:
            np.multiply(square, x, out=out)
        else:
            np.divide(dtype.type(1), square, out=out)


def _vml_sqrt(x: np.ndarray, out: np.ndarray) -> None:
    """``out[...] = sqrt(x)`` (``x`` float32/float64, broadcastable to ``out``) as PyTorch's sqrt kernel:
    VML's in ``x``'s dtype where the route runs (then cast to ``out``'s), else NumPy's."""
    xb = np.broadcast_to(x, out.shape)
    if out.dtype == x.dtype and vml_route.apply("sqrt", xb, out):
        return
    root = vml_route.fresh("sqrt", xb) if out.dtype != x.dtype else None
    if root is not None:
        np.copyto(out, root, casting="unsafe")
    else:
        np.sqrt(x, out=out)


def _torch_pow_into(a: Any, b: Any, compute: DType, out: Tensor, fresh: bool, loop_out: Tensor | None) -> bool:
    """``out = a ** b`` with PyTorch's bits (:mod:`strided.kernels.torch_pow`: SLEEF's powf where its
    loop is vectorized, the C library's pow where it is not) for a ``compute`` dtype that module
    reproduces, tensor operands of that dtype and an exponent other than the special ones (the
    caller's). PyTorch runs ``tensor ** number`` as a unary loop over the base (its scalar function
    in double with the exponent as given), ``number ** tensor`` into a row-major output it makes
    itself (so not TensorIterator's fresh one). False (nothing written) otherwise."""
    for t in (a, b):
        if isinstance(t, Tensor) and t._dtype.is_complex:
            return False
    cd = compute.numpy
    shape, strides, fresh = _loop_layout(out, fresh, loop_out)
    if isinstance(b, Tensor):
        y, e = _converted(b, compute), None
        if isinstance(a, Tensor):
            x = _converted(a, compute)
        else:
            x = np.asarray(_np_scalar(a, compute), cd)  # (the wrapped number converted to the tensor's dtype)
            fresh = False
        ops = [_loop_operand(t, compute) if isinstance(t, Tensor) and t._layout.shape else None for t in (a, b)]
    else:
        if not isinstance(b, (int, float)) or not isinstance(a, Tensor):
            return False
        try:
            e = float(b)
        except OverflowError:
            return False
        if e in _COMPLEX_POW_SPECIAL:  # (PyTorch's own kernels for these: the caller's forms)
            return False
        x, y, ops = _converted(a, compute), None, [_loop_operand(a, compute)]
    return torch_pow.pow_into(x, y, e, _view(out), strides, fresh, ops)


def _converted(t: Tensor, compute: DType) -> np.ndarray:
    """A tensor operand's elements as PyTorch's loop reads them: in the compute dtype (TensorIterator's
    conversion of an operand of another dtype, a 0-d one included: the C cast, NumPy's ``astype``)."""
    v = _view(t)
    return v if t._dtype is compute else quiet_call(v.astype, compute.numpy)


# The Python exponents PyTorch's complex pow(tensor, scalar) sends to other kernels (sqrt, rsqrt,
# reciprocal, x * x, x * x * x, 1 / (x * x)); every other exponent, and every tensor one, is std::pow
_COMPLEX_POW_SPECIAL = (0.5, -0.5, -1.0, 2.0, 3.0, -2.0)


def _complex_special_pow(a: Any, b: Any, compute: DType, out: Tensor, fresh: bool, loop_out: Tensor | None,
                         aliased: bool) -> bool:
    """``out = a ** b`` for a complex ``compute`` and a Python exponent in
    :data:`_COMPLEX_POW_SPECIAL`, as PyTorch's pow_tensor_scalar_kernel sends it: 0.5 to its sqrt
    kernel (the C library's csqrt, NumPy's sqrt here), -0.5 to rsqrt (``1 / sqrt(z)``), -1 to
    reciprocal (``1 / z``), 2 to ``z * z``, 3 to ``z * z * z`` and -2 to ``1 / (z * z)``, each
    with its loops' fma forms (:mod:`strided.kernels.complex_forms`: ``x ** -1`` of 0j is inf +
    nanj, not pow's NaN). False (nothing written) where the compiled kernel is not built or
    off: NumPy's power then runs."""
    e = complex(b).real
    x = np.asarray(_kernel_arg(a, compute), compute.numpy)
    if e == 0.5:
        quietly(np.sqrt, x, out=_view(out))
        return True
    kind = {-0.5: complex_forms.RSQRT, -1.0: complex_forms.RECIPROCAL, 2.0: complex_forms.SQUARE,
            3.0: complex_forms.CUBE, -2.0: complex_forms.INVERSE_SQUARE}[e]
    return _complex_forms_into(kind, (a,), None, x, out, fresh, loop_out, compute, aliased)


def _complex_forms_into(kind: int, operands: tuple[Any, ...], x: np.ndarray | None, y: np.ndarray, out: Tensor,
                        fresh: bool, loop_out: Tensor | None, compute: DType, aliased: bool) -> bool:
    """:func:`strided.kernels.complex_forms.forms_into` with the modes of PyTorch's loop over
    ``out`` (or the ``out=`` tensor ``loop_out``) and ``operands`` (the op's tensors or numbers,
    as :func:`_loop_operand` reads them); ``x`` and ``y`` in ``compute``. False: nothing written."""
    shape, strides, fresh = _loop_layout(out, fresh, loop_out)
    inputs = [_loop_operand(t, compute) for t in operands]
    modes = complex_forms.modes(kind, shape, strides, fresh, inputs, compute.itemsize, aliased)
    return complex_forms.forms_into(kind, x, y, _view(out), modes)


def _complex_pow(a: Any, b: Any, compute: DType, out: Tensor) -> bool:
    """``out = a ** b`` in the complex ``compute`` dtype as PyTorch's kernels: ``std::pow`` of two
    complex numbers, the C library's ``cpow`` (compiled ``complex_pow``: glibc's
    ``cexp(b * clog(a))``, so ``0 ** 0`` is NaN and ``(-1e10) ** 1`` has an imaginary part where
    NumPy's power multiplies exactly); ``a`` or ``b`` may be a number (a Python exponent other than
    :data:`_COMPLEX_POW_SPECIAL`, or a base). The operands broadcast to ``out``'s shape and are
    read before ``out`` is written. False (nothing written) where the kernel is not built or off:
    NumPy's power then runs (the same values but in those cases)."""
    k = native_special()
    if k is None:
        return False
    shape = out._layout.shape
    dt = compute.numpy
    # (a real operand converted to the complex dtype first, as TensorIterator converts it)
    x, y = np.asarray(_kernel_arg(a, compute), dt), np.asarray(_kernel_arg(b, compute), dt)
    flat_x = np.ascontiguousarray(np.broadcast_to(x, shape)).reshape(-1)
    flat_y = y.reshape(1) if y.ndim == 0 else np.ascontiguousarray(np.broadcast_to(y, shape)).reshape(-1)
    res = np.empty(flat_x.shape, dt)
    if not k.complex_pow(flat_x, flat_y, res):
        return False
    assign(_view(out), res.reshape(shape))
    return True


def _int_pow(a: Any, b: Any, compute: DType, out: Tensor) -> None:
    """Integer powers with PyTorch's rules: a Python exponent arrives checked
    (:func:`_pow_exponent`); negative tensor exponents give 1 for base 1, +-1 for base -1 and
    0 otherwise (``powi``). A tensor exponent of another dtype (a 0-d int64 one) is converted to
    ``compute`` first, as TensorIterator converts it: int32 ``t ** tensor(2**31)`` has the exponent
    -2**31 (NumPy's power raised on the wrapped exponent: test_attack42)."""
    exp = _view(b) if isinstance(b, Tensor) else b
    if isinstance(b, Tensor) and b._dtype is not compute:
        exp = exp.astype(compute.numpy)
    int_pow_into(_kernel_arg(a, compute), exp, _view(out), compute.numpy)


def _make_binary(op: BinaryOp) -> tuple[Callable[..., Tensor], ...]:
    """(function, forward dunder, reflected dunder, in-place method) for one op."""

    by_numpy = op.kind != "compare" and op.kind != "minmax"  # (the operators PyTorch hands to NumPy)

    def checked(a: Any, b: Any) -> Any:
        if not isinstance(b, _KNOWN):
            return NotImplemented
        if by_numpy and isinstance(b, np.ndarray):
            return _numpy_operator(name, a, b)
        if uint64_beyond_int64(b):
            return _beyond_int64_operator(op, b)
        return binary(op, a, b)

    def plain(input: Any, other: Any) -> Tensor:
        return binary(op, input, other)

    # (results never float: see guards_itself; each dunder's rule is its op's: "__add__" is "add"'s)
    fn, dunder = _fast_binary(op, plain, checked, op.kind in ("compare", "bitwise") or op.int_only)

    ufunc = op.ufunc
    name = op.name
    # ``number - t`` (tanh's rule ``1 - y * y``), ``number + t``, ``number * t`` of a float32/float64
    # tensor: the forward's tensor-number fast path with the operands in the general path's order
    # (the same ufunc call on the same values: the number is NumPy's weak scalar, which takes the
    # tensor's dtype as _np_scalar does; the layout is the tensor-number plan's, which does not
    # depend on the operand order). div (reciprocal(t) * number), pow and the rest: general path.
    reflect_fast = _shared_set(frozenset((float32, float64)) if op in _REFLECT_FAST else frozenset())
    reflect_ints = _scalar_int_bounds(op.fast) if op in _REFLECT_FAST else {}  # (and integer tensors)

    def reflected(self: Tensor, other: Any) -> Tensor:
        tb = type(other)
        if (type(self) is Tensor or type(self) in SUBCLASSES) and (
                (self._dtype in reflect_fast and (tb is float or (tb is int and -_EXACT < other < _EXACT)))
                or (tb is int and (bounds := reflect_ints.get(self._dtype)) is not None
                    and bounds[0] <= other <= bounds[1])):
            la = self._layout
            plan = _flat_plans[(la.shape, la.strides)]
            lay = plan[2]
            if lay is not None:
                n = plan[0]
                x = self._storage.array
                o = la.offset
                if o or len(x) != n:
                    x = x[o : o + n]
                    if len(x) != n:
                        raise outside_storage(self._storage.array, la)
                first, second = (x, other) if op.reflect_as_forward else (other, x)
                try:
                    res = quiet_call(ufunc, first, second)
                except RuntimeError as e:
                    res = quiet_retry(e, ufunc, first, second)
                t = adopted(res, lay, self._dtype)
                if OPEN:
                    report(name, (self, other) if op.reflect_as_forward else (other, self), t)
                return t
        if not isinstance(other, _KNOWN) or uint64_beyond_int64(other):
            return NotImplemented
        if by_numpy and isinstance(other, np.ndarray):  # (ndarray <op> tensor: see numpy_operator)
            if op is DIV:
                return _numpy_operator("mul", self.reciprocal(), other)  # PyTorch's __rtruediv__
            return _numpy_operator(name, other, self)
        if op.reflect_as_forward or (op is ADD and (self._dtype.is_complex or isinstance(other, (complex, np.complexfloating)))):
            # (PyTorch's ``number + t`` is ``t.add(number)``: for complex results ``t + 1 * number``,
            # whose complex product differs from ``number + 1 * t`` at inf and NaN parts)
            return binary(op, self, other)
        return binary(op, other, self)

    fast_inplace = op.name in _FAST_INPLACE

    def inplace(self: Tensor, other: Any, *, alpha: Any = None, rounding_mode: Any = None) -> Tensor:
        try:
            if rounding_mode is not None:
                return binary(_rounding(op, rounding_mode), self, other, target=self)
            if alpha is not None and op.name not in _ALPHA_OPS:
                return _with_extras(op, self, other, alpha, None)  # (its error for alpha=)
            if fast_inplace and not OPEN and (type(self) is Tensor or type(self) in SUBCLASSES) and _inplace_flat(op, self, other, alpha):
                return self
            return binary(op, self, other, target=self, alpha=alpha)
        except UpdatesInOrder as refusal:  # (a target whose elements share memory: PyTorch's updates)
            return updates_in_order(inplace, self, (other,), {"alpha": alpha, "rounding_mode": rounding_mode}, refusal)

    if fast_inplace:
        alpha_ok = op.name in _ALPHA_OPS

        def direct(self: Tensor, args: tuple, kwargs: dict) -> bool:
            """The in-place entry's direct call (:func:`strided.grad_mode.track_inplace`):
            ``self.<op>_(other)`` or ``(other, alpha=a)`` where ``alpha=`` is this op's, on
            :func:`_inplace_flat`'s fast path, without this method's keyword parsing."""
            if len(args) != 1:
                return False
            alpha = None
            if kwargs:
                if not alpha_ok or len(kwargs) != 1 or "alpha" not in kwargs:
                    return False
                alpha = kwargs["alpha"]
            return (self.__class__ is Tensor or self.__class__ in SUBCLASSES) and _inplace_flat(op, self, args[0], alpha)

        inplace.__direct__ = direct  # type: ignore[attr-defined]

    fn.__name__ = fn.__qualname__ = op.name
    fn.__doc__ = (f"Elementwise ``{op.name}`` of tensors and/or Python scalars, with broadcasting "
                  "and PyTorch's dtype promotion; the output keeps the inputs' dim order.\n\n"
                  f"    >>> x = strided.ones(2, 3{', dtype=strided.int64' if op.name.startswith('bitwise') or op.int_only else ''}).t()\n"
                  f"    >>> x.{op.name}(x).stride(), x.{op.name}(x[:1]).shape  # x's strides: (1, 3); x[:1] broadcasts\n"
                  "    ((1, 3), (3, 2))\n")
    dunder.__name__ = f"__{op.name}__"
    inplace.__name__ = op.name + "_"
    inplace.__doc__ = f"In-place ``{op.name}``: writes into this tensor (through views); its shape and dtype stay."
    return fn, dunder, reflected, inplace


_KNOWN = (Tensor, bool, int, float, complex, np.ndarray, np.generic)


def _numpy_operator(name: str, first: Any, second: Any) -> Any:
    """``tensor <op> ndarray`` (either order): NumPy computes, as PyTorch's operators let it
    (:func:`strided.interop.numpy_protocols.numpy_operator`; imported here, on first use)."""
    from ...interop.numpy_protocols import numpy_operator

    return numpy_operator(name, first, second)


def _beyond_int64_operator(op: BinaryOp, value: Any) -> Any:
    """``t OP value`` for a NumPy uint64 above int64's range, as PyTorch answers it: arithmetic
    returns NotImplemented (NumPy's operator then computes, on the values); ``==``/``!=`` are
    Python's identity answers (False, True: PyTorch's NotImplemented on both sides); an order
    comparison is a TypeError (NumPy's fallback would compare a wrapped int64)."""
    if op.kind != "compare":
        return NotImplemented
    if op.name in ("eq", "ne"):
        return op.name == "ne"
    raise StridedTypeError(join_lines(
        f"'{op.symbol}' not supported between instances of 'Tensor' and 'numpy.uint64'",
        f"{value!r} is above int64's range, which PyTorch's parser refuses for a NumPy integer; "
        f"fix: compare with float({int(value)}), or with a uint64 tensor"))
_REFLECT_FAST = (ADD, SUB, MUL)  # the reflected dunders with a fast path (see _make_binary)
_SCALAR_INTS = frozenset((int8, int16, int32, int64, uint8))  # (op(t, int)'s fast path: see _fast_binary)


def _shared_set(dtypes: frozenset) -> frozenset:
    """One frozenset object for each distinct set of dtypes the ops' fast paths keep (the ~100
    per-op sets are a handful of values: (float32, float64), the empty set; each distinct object
    is walked by every full collection and at exit)."""
    return _SHARED_SETS.setdefault(dtypes, dtypes)


_SHARED_SETS: dict[frozenset, frozenset] = {}


def _scalar_int_bounds(dtypes: frozenset) -> dict[DType, tuple[int, int]]:
    """The integer dtypes among ``dtypes`` whose ``op(t, int)`` (and reflected ``int op t``) takes
    a fast path, each with the Python ints it then takes: those the dtype holds (NumPy's weak
    scalar is that value in the tensor's dtype, as PyTorch's wrapped number is; the arithmetic
    wraps in both). Other ints (beyond the dtype), bools and floats take the general path.
    One shared, read-only dict per set of dtypes (the ops' sets repeat: its ~420 ``np.iinfo`` calls
    at import were ~0.5% of ``import strided``'s instructions)."""
    bounds = _SHARED_BOUNDS.get(dtypes)
    if bounds is None:
        bounds = _SHARED_BOUNDS[dtypes] = {d: _INT_BOUNDS[d] for d in dtypes if d in _SCALAR_INTS}
    return bounds


_INT_BOUNDS = {d: (int(np.iinfo(d.numpy).min), int(np.iinfo(d.numpy).max)) for d in _SCALAR_INTS}
_SHARED_BOUNDS: dict[frozenset, dict[DType, tuple[int, int]]] = {}
_EXACT = 2**53  # Python ints below this convert to a float exactly
_INF = float("inf")
_F32_MAX = float(np.finfo(np.float32).max)
_F32_SAFE = 3.4e38  # numbers inside (-_F32_SAFE, _F32_SAFE) convert to float32 without overflow


def _fast_binary(op: BinaryOp, plain: Callable[[Any, Any], Any], checked: Callable[[Any, Any], Any],
                 guards: bool) -> tuple[Callable[[Any, Any], Any], Callable[[Any, Any], Any]]:
    """``op``'s function and forward dunder: each ``op`` with the small-op fast paths in front of
    its general path (``plain``, ``checked``), its own recording entry under the backward rule
    ``op.name`` (one slot test per tensor operand). With ``guards``, the function is its own guard
    entry too (:func:`strided.gradients.guards_itself`), around the same forward made without it.

    The forwards are made by one :func:`variant` each, inside this one scope: the ~16 per-op
    constants their fast paths read are cells of this scope, shared by the two or three forwards
    (not ~20 cells per forward: ~900 fewer tracked objects for every full collection and the
    interpreter's exit to walk), with the same one-``LOAD_DEREF`` reads; the compiled fronts share
    one table of entries."""
    ufunc = op.ufunc  # (pow's same-shape runs have no repeated exponent: NumPy's pow itself)
    broadcast_ufunc = tensor_power if op.kind == "pow" else ufunc  # (two tensors, one broadcast)
    fast = op.fast
    name = op.name
    # dtypes for which ``op(t, number)`` takes the fast path: a float tensor (not float16, whose
    # mul/div compute in float32) and a Python float (NumPy's weak scalar takes the tensor's
    # dtype, as PyTorch's wrapped number does); torch.maximum(t, 2) is a TypeError.
    # pow is left out: PyTorch lays out t ** number as a unary op (its output strides differ
    # from a binary op's for size-1 dims with odd strides), which the general path follows.
    fast_scalar = _shared_set(frozenset(d for d in fast if d.is_floating_point and d not in REDUCED_FLOATS)
                              if op.kind != "minmax" and op.name != "pow" and not op.tensor_other else frozenset())
    # integer dtype -> the Python ints op(t, int) takes the fast path with (_scalar_int_bounds)
    int_scalar = _scalar_int_bounds(fast) if op.kind != "minmax" and op.name != "pow" and not op.tensor_other else {}
    result_dtype = bool_ if op.kind == "compare" else None  # None: the operands' dtype
    native, native_dtypes, native_min = op.native, op.native_dtypes, op.native_min
    extreme = op.extreme
    pow_native = op.kind == "pow" and native is not None
    pow_square = op.kind == "pow"  # (``t ** 2``: see the square path in fn)
    loop_split = flat_fix(name) if name in LOOP_SPLIT else None  # (bfloat16 NaN bits: kernels.reduced_nans)
    # bfloat16 op(t, number): the compiled loop with PyTorch's scalar operand, the number rounded to
    # bfloat16 for add/sub (TensorIterator converts the wrapped number), to float32 for mul/div (their
    # kernels read it as opmath, BinaryOpsKernel.cpp's reduced-float scalar forms)
    bf16_code = op.bf16_code
    bf16_scalar = (float32 if op.opmath_scalar else bfloat16) if bf16_code >= 0 else None

    # (the common call in C: the same fast path's functions on the same runs; see _support.front)
    def fix(x: np.ndarray, y: Any, res: np.ndarray) -> None:
        torch_extremes.fix_flat(extreme, (x, y), res)

    table = {d: (_fast_kernel(ufunc, d), native if native is not None and d in native_dtypes else None,
                 0 if d is bfloat16 else native_min, result_dtype,
                 d in fast_scalar, fix if extreme and d.is_floating_point
                 else loop_split if d is bfloat16 else None)
             for d in fast} if ufunc is not None else {}
    entry = _float32_entry(op.entry_code) if op.entry_kernel is None else op.entry_kernel()
    if entry is not None and float32 in table and table[float32][1] is not None:
        table[float32] = (*table[float32], entry)
    if op.bf16_code >= 0 and bfloat16 in table and (bf16 := _bf16_entry(op.bf16_code)) is not None:
        table[bfloat16] = (*table[bfloat16], bf16)
    for d in (float32, float64) if op.exact_code >= 0 or native in _EXTREME_FRESH else ():
        exact = _exact_entry(op.exact_code, d) if op.exact_code >= 0 else _extreme_entry(native is _MAXIMUM_FRESH, d)
        if exact is not None and d in table and table[d][1] is not None and len(table[d]) == 6:
            table[d] = (*table[d], exact)

    def variant(slow: Callable[[Any, Any], Any], raw: Callable[..., Any] | None) -> Callable[[Any, Any], Any]:
        """One forward: ``slow`` its general path; with ``raw``, its own guard entry."""
        guarded = None

        @records(name)  # (its rule is its name's: one cell for both)
        def fn(input: Any, other: Any, *, alpha: Any = None, out: Any = None, rounding_mode: Any = None) -> Tensor:  # (a.sub(other=b))
            if guarded is not None and (OPEN or out is not None):  # (the calls its guard entry would act on)
                extras = {k: v for k, v in (("alpha", alpha), ("out", out), ("rounding_mode", rounding_mode)) if v is not None}
                return guarded()(input, other, **extras)
            # The autograd test is one slot read per tensor operand, folded into the fast path's own
            # type tests (the op is its own recording entry: no wrapper call). A tensor in autograd is
            # recorded: its fast path's result is given its node (strided.gradients.recorded); any other
            # path goes to strided.gradients.record, which runs fn again with INSIDE set, which then
            # takes the same paths as a plain call (so does a call inside another op's recorded forward).
            # Fast path: two tensors of one dtype and one dense layout (row-major or permuted, when
            # PyTorch's output takes exactly those strides), or such a tensor and a Python float.
            # Their elements pair up along the flat runs of the storages: the ufunc runs on those
            # runs and its fresh 1-D result becomes the output storage (no view objects, no layout
            # planning: the result's Layout is the per-layout plan's shared object).
            if (type(input) is Tensor or type(input) in SUBCLASSES) and alpha is None and out is None and rounding_mode is None:
                # tracked: an operand in autograd, outside another op's recorded forward. The fast
                # path below is pure NumPy and makes fresh memory: its result is recorded as it is
                # (gradients.recorded), without record() running fn again; every fallthrough to the
                # general path, and a watched call, takes record() instead.
                tracked = False
                if input._ag is not None and not INSIDE.get():
                    if OPEN:
                        return record(name, fn, (input, other), {})  # (alpha and out are None here)
                    tracked = True
                d = input._dtype
                la = input._layout
                tb = type(other)
                if (tb is Tensor or tb in SUBCLASSES):
                    if other._ag is not None and not tracked and not INSIDE.get():
                        if OPEN:
                            return record(name, fn, (input, other), {})
                        tracked = True
                    if other._dtype is not d or d not in fast:
                        return record(name, fn, (input, other), {}) if tracked else slow(input, other)
                    lb = other._layout
                    shape = la.shape
                    if lb.shape != shape:
                        if tracked:
                            return record(name, fn, (input, other), {})
                        return _broadcast_rowmajor(input, other, la, lb, broadcast)
                    strides = la.strides
                    if lb.strides != strides:
                        return record(name, fn, (input, other), {}) if tracked else slow(input, other)
                    info = _cinfo[shape]
                    if strides == info[0]:  # row-major: the output is too
                        lay = info[2]
                        n = info[1]
                    else:
                        plan = _flat_plans[(shape, strides)]
                        lay = plan[1]
                        if lay is None:
                            return record(name, fn, (input, other), {}) if tracked else slow(input, other)
                        n = plan[0]
                    y = other._storage.array
                    o = lb.offset
                    if o or len(y) != n:
                        y = y[o : o + n]
                        if len(y) != n:  # (only a tensor unpickled past its storage: never read outside)
                            raise outside_storage(other._storage.array, lb)
                elif (d in fast_scalar and (tb is float or (tb is int and -_EXACT < other < _EXACT))) or (
                        tb is int and (bounds := int_scalar.get(d)) is not None and bounds[0] <= other <= bounds[1]):
                    plan = _flat_plans[(la.shape, la.strides)]
                    lay = plan[2]
                    if lay is None:
                        return record(name, fn, (input, other), {}) if tracked else slow(input, other)
                    n = plan[0]
                    y = other
                elif pow_square and (tb is int or tb is float) and other == 2 and (d is float32 or d is float64) \
                        and type(input) is Tensor and la.strides == (info := _cinfo[la.shape])[0]:
                    # ``t ** 2`` of a row-major float32 / float64 tensor: PyTorch's pow kernel squares
                    # (pow_tensor_scalar_optimized_kernel's ``base * base``, NumPy's power of 2 the same
                    # bits), its output row-major as the general path's unary layout; in one multiply
                    n = info[1]
                    x = input._storage.array
                    o = la.offset
                    if o or len(x) != n:
                        x = x[o : o + n]
                        if len(x) != n:
                            raise outside_storage(input._storage.array, la)
                    try:  # (fpstate.quietly, inlined: an overflow to inf is silent, as the general path's)
                        res = quiet_call(np.multiply, x, x)
                    except RuntimeError as e:
                        res = quiet_retry(e, np.multiply, x, x)
                    t = adopted(res, info[2], d)
                    if OPEN:
                        report(name, (input, other), t)
                    return recorded(name, t, (input, other)) if tracked else t
                elif bf16_scalar is not None and d is bfloat16 and (tb is float or (tb is int and -_EXACT < other < _EXACT)) \
                        and native_half() is not None:
                    plan = _flat_plans[(la.shape, la.strides)]
                    lay = plan[2]
                    if lay is None:
                        return record(name, fn, (input, other), {}) if tracked else slow(input, other)
                    n = plan[0]
                    y = float(wrapped(other, bf16_scalar))  # (exact: a bfloat16 or float32 value)
                else:
                    return record(name, fn, (input, other), {}) if tracked else slow(input, other)
                x = input._storage.array
                o = la.offset
                if o or len(x) != n:
                    x = x[o : o + n]
                    if len(x) != n:
                        raise outside_storage(input._storage.array, la)
                res = None
                if d is bfloat16 and y.__class__ is float:  # (the bfloat16 scalar form above)
                    res = bf16_scalar_fresh(bf16_code, x, y)
                    if res is None:
                        return record(name, fn, (input, other), {}) if tracked else slow(input, other)
                elif native is not None and d in native_dtypes and (n >= native_min or d is bfloat16) \
                        and y.__class__ is np.ndarray:
                    res = native(x, y)  # (None: not built, off here, or refused; bfloat16: PyTorch's NaNs at every size)
                if res is None:
                    try:  # fpstate.quietly, inlined (a call is a tenth of a 1 µs op)
                        res = quiet_call(ufunc, x, y)
                    except RuntimeError as e:
                        res = quiet_retry(e, ufunc, x, y)
                    if extreme and d.is_floating_point:  # (the compiled loop's bits already)
                        torch_extremes.fix_flat(extreme, (x, y), res)
                    elif loop_split is not None and d is bfloat16:  # (PyTorch's NaN bits: kernels.reduced_nans)
                        loop_split(x, y, res)
                t = adopted(res, lay, result_dtype or d)
                if OPEN:
                    report(name, (input, other), t)
                return recorded(name, t, (input, other)) if tracked else t
            if op is DIV and rounding_mode is None and isinstance(input, (bool, int, float, complex, np.bool_, np.number)) \
                    and isinstance(other, Tensor):
                input = _wrapped_number(_operand(input, "div"), other)  # (a NumPy scalar: its value)
            if rounding_mode is not None:
                op_ = _rounding(op, rounding_mode)  # (its errors before autograd's record, as PyTorch's parser)
                if ((isinstance(input, Tensor) and input._ag is not None) or (isinstance(other, Tensor) and other._ag is not None)) \
                        and not INSIDE.get():
                    return record(name, fn, (input, other), {"out": out, "rounding_mode": rounding_mode})
                return binary(op_, input, other) if out is None else _with_extras(op_, input, other, None, out, "div")
            if ((isinstance(input, Tensor) and input._ag is not None) or (isinstance(other, Tensor) and other._ag is not None)) \
                    and not INSIDE.get():
                return record(name, fn, (input, other), {"alpha": alpha, "out": out})
            if alpha is None and out is None:
                return slow(input, other)
            if alpha is not None and op.bf16_code >= 0 and out is None and not OPEN and type(input) is Tensor \
                    and type(other) is Tensor and input._dtype is bfloat16 and other._dtype is bfloat16 \
                    and (res := _bfloat16_alpha(op, input, other, alpha)) is not None:
                return res
            return _with_extras(op, input, other, alpha, out)

        fn.__qualname__ = "_fast_binary.<locals>.fn"  # (its name before variant(): the dunders' reprs)
        if raw is not None:
            guarded = guards_itself(fn, raw, name)
        broadcast = (pow_native, native_dtypes, slow, broadcast_ufunc, extreme, result_dtype, name, loop_split)
        # (a transpose and its twin, or a float, too: fn's _flat_plans path)
        return compiled_front(fn, 2, table, dense=dense, plans=_flat_plans)

    dense = tuple(table)
    fn = variant(plain, None)
    if guards:
        fn = variant(plain, fn)
    return fn, variant(checked, None)


def _bfloat16_alpha(op: BinaryOp, a: Tensor, b: Tensor, alpha: Any) -> Tensor | None:
    """``add``/``sub(a, b, alpha=)`` of two row-major bfloat16 tensors of one shape (untracked) by the
    compiled loop over their runs, PyTorch's bits (kernels.reduced_arith op 5), with the general
    path's alpha checks and conversion in its order; None (nothing done) for any other operands,
    where the kernel is not built or off here: the general path then."""
    la, lb = a._layout, b._layout
    info = _cinfo[la.shape]
    if lb.shape != la.shape or la.strides != info[0] or lb.strides != info[0] or op.bf16_code > 1:
        return None
    n = info[1]
    x, y = a._storage.array[la.offset : la.offset + n], b._storage.array[lb.offset : lb.offset + n]
    if len(x) != n or len(y) != n:
        return None
    if alpha.__class__ is float and -_BF16_FINITE <= alpha <= _BF16_FINITE:
        alpha_np = x.dtype.type(np.float32(alpha))  # (_alpha_scalar's conversion, nothing to check or quiet)
    else:
        alpha_np = _negatable(op, alpha, _alpha_scalar(alpha, bfloat16, bfloat16, op.name))
    _check_alpha_range(alpha, bfloat16, op.name, op is SUB)
    res = bf16_alpha_fresh(x, y, float(np.float32(alpha_np if op is ADD else -alpha_np)))
    return None if res is None else adopted(res, info[2], bfloat16)


_BF16_FINITE = 3e38  # (a float no larger rounds to a finite float32 and bfloat16: no overflow to quiet)


def _broadcast_rowmajor(a: Tensor, b: Tensor, la: L.Layout, lb: L.Layout, each: tuple) -> Any:
    """:func:`_fast_binary`'s second fast path, for one op: ``each`` is that op's (pow_native,
    native_dtypes, slow, broadcast_ufunc, extreme, result_dtype, name), as _fast_binary names
    them. (One module function and a tuple per op, not a closure per op: ~570 fewer objects for the
    collector to walk at exit over the ~70 binary entries.)"""
    pow_native, native_dtypes, slow, broadcast_ufunc, extreme, result_dtype, name, loop_split = each
    # Second fast path: two row-major tensors of one dtype but different shapes (a bias
    # add). PyTorch's output is then row-major too (unless it is empty), which is what
    # NumPy allocates for the broadcast: the ufunc gets reshaped flat runs, no view objects.
    if pow_native and a._dtype in native_dtypes:  # (PyTorch's pow loop: the general path's torch_pow)
        return slow(a, b)
    plan = _broadcast_plans.get((la.shape, lb.shape))
    if plan is None:
        # first time (or an error, or not row-major shapes): the general path fills the
        # broadcast-shape cache the plan is made from
        if (la.shape, lb.shape) in _shape_cache:
            plan = _broadcast_plans[(la.shape, lb.shape)]
        if plan is None:
            return slow(a, b)
    # plan: (a's row-major strides, numel, 2-D shape or None; b's; the result's layout)
    if la.strides != plan[0] or lb.strides != plan[3] or _broadcasting_now().mode != "allow":
        return slow(a, b)
    x = a._storage.array
    o = la.offset
    n = plan[1]
    if o or len(x) != n:
        x = x[o : o + n]
        if len(x) != n:
            raise outside_storage(a._storage.array, la)
    if plan[2] is not None:  # (a 1-D operand broadcasts as it is)
        x = x.reshape(plan[2])
    y = b._storage.array
    o = lb.offset
    n = plan[4]
    if o or len(y) != n:
        y = y[o : o + n]
        if len(y) != n:
            raise outside_storage(b._storage.array, lb)
    if plan[5] is not None:
        y = y.reshape(plan[5])
    try:  # binary_broadcast_rowmajor, inlined (a call is a tenth of this op)
        res = quiet_call(broadcast_ufunc, x, y)
    except RuntimeError as e:
        res = quiet_retry(e, broadcast_ufunc, x, y)
    if extreme and a._dtype.is_floating_point:  # (both row-major, as the result)
        torch_extremes.fix(extreme, (x, y), res, lambda: torch_extremes.loop_mask(
            res.shape, L.contiguous_strides(res.shape), True, [(la.shape, la.strides), (lb.shape, lb.strides)],
            res.dtype))
    if loop_split is not None and a._dtype is bfloat16 and has_nan(res):  # (PyTorch's NaN bits: kernels.reduced_nans)
        loop_nans(res, scalar_mask(name, res.shape, L.contiguous_strides(res.shape), True,
                                   [(la.shape, la.strides), (lb.shape, lb.strides)]))
    t = adopted(res.ravel(), plan[6], result_dtype or a._dtype)  # (NumPy's result is C-contiguous)
    if OPEN:
        report(name, (a, b), t)
    return t


def _fast_kernel(kernel: Any, dtype: DType) -> Any:
    """The fast path's kernel for operands of ``dtype``: ``kernel`` itself, but NumPy's ufunc where a
    kernel with PyTorch's own steps in some dtypes (``own_dtypes``) names it as ``plain_ufunc`` for
    the others (their results are the ufunc's: the front then calls it from C)."""
    plain = getattr(kernel, "plain_ufunc", None)
    return kernel if plain is None or dtype in kernel.own_dtypes else plain


def _float32_entry(code: int) -> tuple | None:
    """The front's kernel entry (:func:`.._support.front.kernel_entry`) of the compiled
    ``binary_float`` loop ``code`` into a fresh float32 run (the ``native`` loop's own kernel, which
    refuses a misaligned operand: the native loop and the ufunc then run); None for ``code`` -1 or
    where the kernel is not built (the front reads the native switch per call)."""
    if code < 0:
        return None
    k = _compiled_module("_specialkernel")
    if k is None or not hasattr(k, "binary_float"):
        return None
    return kernel_entry(k.binary_float, (code,), np.float32)


def _bf16_entry(code: int) -> tuple | None:
    """The front's kernel entry of the compiled bfloat16 loop ``code`` (kernels.reduced_arith) into
    a fresh bfloat16 run: PyTorch's bits for one row below its grain size (one chunk; a longer run
    goes to the ``native`` pass, which cuts it as at::parallel_for); None where not built."""
    k = _compiled_module("_halfkernel")
    if k is None or not hasattr(k, "bf16"):
        return None
    return kernel_entry(k.bf16, (code, 0.0, 0, HALF_STEP), bfloat16, GRAIN_SIZE - 1)


def _exact_entry(code: int, dtype: DType) -> tuple | None:
    """The front's kernel entry of the compiled ``binary_exact`` loop ``code`` into a fresh run of
    ``dtype`` (float32 / float64): the call ``exact_loop(code)``'s ``native`` pass makes
    (``binary_exact_fresh`` is that loop into ``numpy.empty_like``), whose refusal (a misaligned or
    foreign buffer) hands over to that pass and the ufunc; None where the kernel is not built."""
    k = _compiled_module("_specialkernel")
    if k is None or not hasattr(k, "binary_exact"):
        return None
    return kernel_entry(k.binary_exact, (code,), dtype.numpy)


def _extreme_entry(is_max: bool, dtype: DType) -> tuple | None:
    """maximum / minimum's front kernel entry (``is_max``): the compiled ``torch_extreme`` loop of
    PyTorch's bits into a fresh run of ``dtype``, below GRAIN_SIZE elements, as one row: the call
    their native pass (torch_extremes.extreme_loop: ``torch_extreme_fresh``, that loop over one
    row of the run's length) makes; a row longer than the run is that one row. None where the
    kernel is not built."""
    k = _compiled_module("_specialkernel")
    if k is None or not hasattr(k, "torch_extreme"):
        return None
    limit = torch_extremes.GRAIN_SIZE - 1
    return kernel_entry(k.torch_extreme, (is_max, limit), dtype.numpy, limit)


def _flat_plan(key: tuple[tuple[int, ...], tuple[int, ...]]) -> tuple[int, L.Layout | None, L.Layout | None]:
    """(numel, the result Layout of ``op(t, t)``, that of ``op(t, number)``) for a tensor ``t`` of
    this (shape, strides) whose elements fill exactly the run ``[offset, offset + numel)`` of its
    storage, when PyTorch's output takes exactly these strides (a Layout is None otherwise)."""
    shape, strides = key
    info = _cinfo[shape]
    if strides == info[0]:
        # row-major: PyTorch's output is row-major too, but for the tensor-number form of an empty
        # tensor (no fast set-up: TensorIterator orders its dims by strides, equal ones the smaller
        # size inside, so (0, 1) with strides (1, 1) gives (1, 0); the compiled front leaves it here)
        if info[1]:
            return info[1], info[2], info[2]
        number = L.elementwise_output_strides(shape, [(shape, strides), ((), ())])
        return 0, info[2], info[2] if number == strides else _trusted(shape, number, 0)
    return info[1], _dense_plan_uncached((shape, strides, True)), _dense_plan_uncached((shape, strides, False))


def _dense_plan_uncached(key: tuple[tuple[int, ...], tuple[int, ...], bool]) -> L.Layout | None:
    shape, strides, two = key
    if (
        L.product(shape)
        and all(st > 0 for st in strides)
        and L.is_non_overlapping_and_dense(shape, strides)
    ):
        operands = [(shape, strides), (shape, strides) if two else ((), ())]
        if L.elementwise_output_strides(shape, operands) == strides:
            return _trusted(shape, strides, 0)
    return None


# (shape, strides) -> _flat_plan. Layouts are immutable, so every result of one plan shares the
# one Layout object.
_flat_plans = Memo(_flat_plan)


def _broadcast_plan(shapes: tuple[tuple[int, ...], tuple[int, ...]]) -> tuple | None:
    """For two row-major operands of these different shapes that broadcast to a non-empty shape:
    (a's row-major strides, numel and the shape its flat run is viewed as, None for 1-D; the same
    for b; the result's row-major Layout). None when the result is empty."""
    sa, sb = shapes
    shape = _shape_cache[shapes]
    ia, ib, out = _cinfo[sa], _cinfo[sb], _cinfo[shape]
    if not out[1]:
        return None
    return (ia[0], ia[1], sa if len(sa) != 1 else None, ib[0], ib[1], sb if len(sb) != 1 else None, out[2])


# (a's shape, b's shape) -> _broadcast_plan; filled only for shape pairs that broadcast (the
# general path puts them in the broadcast-shape cache first, with its errors and warnings).
_broadcast_plans = Memo(_broadcast_plan)


def _inplace_dunder(inplace: Callable[[Tensor, Any], Tensor]) -> Callable[[Tensor, Any], Tensor]:
    # (-> Tensor: type checkers take NotImplemented as any return type, as for every dunder)
    def op(self: Tensor, other: Any) -> Tensor:
        if not isinstance(other, _KNOWN):
            return NotImplemented
        return inplace(self, other)

    direct = getattr(inplace, "__direct__", None)
    if direct is not None:  # (``p -= lr * p.grad``: the method's direct call, for one operand and no keyword)
        op.__direct__ = lambda self, args, kwargs: not kwargs and direct(self, args, kwargs)  # type: ignore[attr-defined]
    return op


add, _add_d, _radd, add_ = _make_binary(ADD)
sub, _sub_d, _rsub, sub_ = _make_binary(SUB)
_sub_forward = sub  # (before seal(): the forward itself, which rsub calls inside its own recording entry)
mul, _mul_d, _rmul, mul_ = _make_binary(MUL)
div, _div_d, _rdiv, div_ = _make_binary(DIV)
floor_divide, _floor_divide_d, _rfloordiv, floor_divide_ = _make_binary(FLOOR_DIVIDE)
remainder, _remainder_d, _rremainder, remainder_ = _make_binary(REMAINDER)
pow, _pow_d, _rpow, pow_ = _make_binary(POW)  # noqa: A001 - strided.pow mirrors torch.pow
bitwise_and, _bitwise_and_d, _rand, bitwise_and_ = _make_binary(BITWISE_AND)
bitwise_or, _bitwise_or_d, _ror, bitwise_or_ = _make_binary(BITWISE_OR)
bitwise_xor, _bitwise_xor_d, _rxor, bitwise_xor_ = _make_binary(BITWISE_XOR)
eq, _eq_d, _req, eq_ = _make_binary(EQ)
ne, _ne_d, _rne, ne_ = _make_binary(NE)
lt, _lt_d, _rlt, lt_ = _make_binary(LT)
le, _le_d, _rle, le_ = _make_binary(LE)
gt, _gt_d, _rgt, gt_ = _make_binary(GT)
ge, _ge_d, _rge, ge_ = _make_binary(GE)
# PyTorch's (and NumPy's) long names of the comparisons: the same functions, strided.greater etc.
not_equal, less, less_equal, greater, greater_equal = ne, lt, le, gt, ge
maximum, _, _, _ = _make_binary(MAXIMUM)
minimum, _, _, _ = _make_binary(MINIMUM)

divide = div


def _true_divide_refusal(op: str, other: Any, kwargs: dict) -> StridedTypeError:
    """PyTorch's parser refusing any keyword of the method ``true_divide``/``true_divide_``
    (``rounding_mode=`` included, even None): only ``div`` rounds."""
    got = ", ".join([type(other).__name__.replace("ndarray", "numpy.ndarray")]
                    + [f"{k}={type(v).__name__}" for k, v in kwargs.items()])
    return StridedTypeError(join_lines(
        f"{op}() received an invalid combination of arguments - got ({got}), but expected one of:",
        " * (Tensor other)", " * (Number other)",
        "true_divide is division without rounding; fix: x.div(y, rounding_mode='floor') (or 'trunc')"))


def true_divide(input: Any, other: Any, *, out: Any = None) -> Tensor:
    """``input / other`` (PyTorch's ``true_divide``: :func:`div` without ``rounding_mode``, which it
    refuses as PyTorch does: a TypeError naming the unexpected keyword).

    >>> strided.true_divide(strided.tensor([3, 4]), 2)
    tensor([1.5000, 2.0000])
    """
    return div(input, other, out=out)


def _true_divide_method(self: Tensor, other: Any, **kwargs: Any) -> Tensor:
    if kwargs:
        raise _true_divide_refusal("true_divide", other, kwargs)
    return div(self, other)


def _true_divide_inplace(self: Tensor, other: Any, **kwargs: Any) -> Tensor:
    if kwargs:
        raise _true_divide_refusal("true_divide_", other, kwargs)
    return div_(self, other)


subtract = sub
multiply = mul


def rsub(input: Any, other: Any, *args: Any, alpha: Any = None) -> Tensor:
    """PyTorch's ``torch.rsub``: ``other - alpha * input`` (``sub(other, input, alpha=alpha)``),
    ``other`` a tensor or a number; a module function only (``torch.Tensor`` has no ``rsub``
    method; ``number - t`` is ``t.__rsub__``). ``alpha`` may be given by position only with a
    number ``other`` (PyTorch's ``rsub.Scalar`` signature), else PyTorch's TypeError.

    >>> strided.rsub(strided.tensor([1.0, 2.0]), 10, alpha=2).tolist()
    [8.0, 6.0]
    """
    if args or not isinstance(input, Tensor):
        alpha = _rsub_arguments(input, other, args, alpha)
    if alpha is None:
        return _sub_forward(other, input)  # (sub's own forward and fast paths, unrecorded: rsub records)
    return binary(SUB, other, input, alpha=alpha)


def _rsub_arguments(input: Any, other: Any, args: tuple, alpha: Any) -> Any:
    """``rsub``'s alpha from a third positional argument, where PyTorch's signatures take one
    (a number ``other``, no ``alpha=`` too); PyTorch's TypeError otherwise, or for a non-tensor
    ``input``."""
    if isinstance(input, Tensor) and len(args) == 1 and alpha is None and not isinstance(other, Tensor):
        return args[0]
    got = ", ".join(type(a).__name__ for a in (input, other, *args)) + (", alpha=" + type(alpha).__name__ if alpha is not None else "")
    raise StridedTypeError(join_lines(
        f"rsub() received an invalid combination of arguments - got ({got}), but expected one of:",
        " * (Tensor input, Tensor other, *, Number alpha = 1)",
        " * (Tensor input, Number other, Number alpha = 1)",
        "rsub(input, other) is other - alpha * input: input is a tensor, alpha a keyword when other is one"))

_METHODS: list[tuple[tuple[str, ...], Callable]] = [
    (("add",), add), (("__add__",), _add_d), (("__radd__",), _radd),
    (("add_",), add_), (("__iadd__",), _inplace_dunder(add_)),
    (("sub", "subtract"), sub), (("__sub__",), _sub_d), (("__rsub__",), _rsub),
    (("sub_", "subtract_"), sub_), (("__isub__",), _inplace_dunder(sub_)),
    (("mul", "multiply"), mul), (("__mul__",), _mul_d), (("__rmul__",), _rmul),
    (("mul_", "multiply_"), mul_), (("__imul__",), _inplace_dunder(mul_)),
    (("div", "divide"), div), (("__truediv__",), _div_d), (("__rtruediv__",), _rdiv),
    (("true_divide",), _true_divide_method), (("true_divide_",), _true_divide_inplace),
    (("div_", "divide_"), div_), (("__itruediv__",), _inplace_dunder(div_)),
    (("floor_divide",), floor_divide), (("__floordiv__",), _floor_divide_d),
    (("__rfloordiv__",), _rfloordiv), (("floor_divide_",), floor_divide_),
    (("__ifloordiv__",), _inplace_dunder(floor_divide_)),
    (("remainder",), remainder), (("__mod__",), _remainder_d), (("__rmod__",), _rremainder),
    (("remainder_",), remainder_), (("__imod__",), _inplace_dunder(remainder_)),
    (("pow",), pow), (("__pow__",), _pow_d), (("__rpow__",), _rpow),
    (("pow_",), pow_), (("__ipow__",), _inplace_dunder(pow_)),
    (("bitwise_and",), bitwise_and), (("__and__",), _bitwise_and_d), (("__rand__",), _rand),
    (("bitwise_and_",), bitwise_and_), (("__iand__",), _inplace_dunder(bitwise_and_)),
    (("bitwise_or",), bitwise_or), (("__or__",), _bitwise_or_d), (("__ror__",), _ror),
    (("bitwise_or_",), bitwise_or_), (("__ior__",), _inplace_dunder(bitwise_or_)),
    (("bitwise_xor",), bitwise_xor), (("__xor__",), _bitwise_xor_d), (("__rxor__",), _rxor),
    (("bitwise_xor_",), bitwise_xor_), (("__ixor__",), _inplace_dunder(bitwise_xor_)),
    (("eq",), eq), (("__eq__",), _eq_d),
    (("ne", "not_equal"), ne), (("__ne__",), _ne_d),
    (("lt", "less"), lt), (("__lt__",), _lt_d),
    (("le", "less_equal"), le), (("__le__",), _le_d),
    (("gt", "greater"), gt), (("__gt__",), _gt_d),
    (("ge", "greater_equal"), ge), (("__ge__",), _ge_d),
    # (in place: the comparison's 0/1 cast to the tensor's own dtype, as PyTorch's eq_)
    (("eq_",), eq_), (("ne_", "not_equal_"), ne_), (("lt_", "less_"), lt_), (("le_", "less_equal_"), le_),
    (("gt_", "greater_"), gt_), (("ge_", "greater_equal_"), ge_),
    (("maximum",), maximum), (("minimum",), minimum),
]


def inplace_example(names: tuple[str, ...], fn: Callable[..., Any]) -> None:
    """Add the example of an in-place binary method (a doctest) to ``fn``'s docstring: one column
    written through a view, the rest of the tensor untouched."""
    name = names[0]
    if not name.endswith("_") or name.startswith("__") or not fn.__doc__ or ">>>" in fn.__doc__:
        return
    ints = name.startswith("bitwise")
    fn.__doc__ += (f"\n\n    >>> x = strided.ones(2, 3{', dtype=strided.int64' if ints else ''})\n"
                   "    >>> col = x[:, 0]\n"
                   f"    >>> col.{name}(x[:, 1]) is col, x[:, 1:].tolist()  # column 0 written, in x's memory\n"
                   f"    (True, {[[1, 1], [1, 1]] if ints else [[1.0, 1.0], [1.0, 1.0]]})\n")


for _names, _fn in _METHODS:
    method(*_names)(_fn)
    inplace_example(_names, _fn)


# ---------------------------------------------------------------- backward rules (derivatives.yaml)
# Broadcasting needs no code here: the engine sums each gradient down to its input's shape and
# casts it to its dtype (PyTorch's validate_outputs), so ``x + bias`` gives ``bias`` the gradient
# summed over the batch. A number operand is an input the gradient does not flow to.


def _scale(g: Tensor, alpha: Any) -> Tensor:
    """PyTorch's ``maybe_multiply(g, alpha.conj())``: ``g`` itself for no alpha or 1."""
    return g if alpha is None or alpha == 1 else g * _conj_operand(alpha)


def _alpha_rule(alpha: Any, negate: bool, self_too: bool = True) -> Callable[[Tensor], tuple]:
    """add's / sub's (``negate``) rule as derivatives.yaml writes it: ``grad`` to self (with
    ``self_too``), ``maybe_multiply(grad, alpha.conj())`` (sub: ``-grad``, negated before it is
    scaled) to other; in PyTorch's convention for complex gradients (marked so the recording
    leaves it unconjugated: the holomorphic form conjugated around, and -(g * alpha), have the
    same values but other signs of zero: add(y, alpha=2)'s gradient 2-0j where PyTorch's is 2+0j)."""
    def grads(g: Tensor) -> tuple:
        other = _scale(-g if negate else g, alpha)
        return (g, other) if self_too else (other,)

    grads.pytorch_convention = True  # type: ignore[attr-defined]
    return grads


@backward("__add__", "__radd__", operands="dunder")
@backward("add", operands="two")
def _add_backward(out: Tensor, a: Any, b: Any, *, alpha: Any = None, **kwargs: Any) -> Any:
    if b.__class__ is float:  # (t + number: the number's gradient is never asked for; one shared rule)
        return "AddBackward0", (a, b), _first_only, ()
    return "AddBackward0", (a, b), _alpha_rule(alpha, False), ()


def _first_only(g: Tensor) -> tuple:
    """The rule of ``t + number``: the gradient passes to ``t`` as it is (the number takes none)."""
    return (g, None)


@backward("__sub__", operands="dunder", reflected=("__rsub__",))
@backward("sub", "subtract", operands="two")
def _sub_backward(out: Tensor, a: Any, b: Any, *, alpha: Any = None, **kwargs: Any) -> Any:
    if not isinstance(a, Tensor):  # number - tensor (reflected: __rsub__), PyTorch's rsub
        return "RsubBackward1", (b,), _alpha_rule(alpha, True, self_too=False), ()
    return "SubBackward0", (a, b), _alpha_rule(alpha, True), ()


@backward("rsub", operands="two")
def _rsub_backward(out: Tensor, a: Any, b: Any, *args: Any, alpha: Any = None, **kwargs: Any) -> Any:
    """derivatives.yaml's rsub: ``maybe_multiply(-grad, alpha.conj())`` to self (``a``), ``grad``
    to other (a tensor: RsubBackward0; a number: RsubBackward1, self's alone)."""
    alpha = args[0] if args else alpha

    def grads(g: Tensor) -> tuple:
        return (_scale(-g, alpha), g) if isinstance(b, Tensor) else (_scale(-g, alpha),)

    grads.pytorch_convention = True  # type: ignore[attr-defined]
    if not isinstance(b, Tensor):
        return "RsubBackward1", (a,), grads, ()
    return "RsubBackward0", (a, b), grads, ()


@backward("__mul__", "__rmul__", operands="dunder")
@backward("mul", "multiply", operands="two")
def _mul_backward(out: Tensor, a: Any, b: Any, **kwargs: Any) -> Any:
    if b.__class__ is float and not a._dtype.is_complex:
        # (t * number, a chain's y * 1.01: grads below with need_a, no tb, saved ())
        return "MulBackward0", (a, b), lambda g: (g * b, None), ()
    if a.__class__ is Tensor and b.__class__ is Tensor and not a._dtype.is_complex and not b._dtype.is_complex:
        # (two plain real tensors, a recorded w * b: the general steps below spelt out per case, no
        # closure cells for the flags; the same rule and saved tensors)
        ma, mb = a._ag, b._ag
        if ma is not None and (ma.requires_grad or ma.grad_fn is not None):
            if mb is not None and (mb.requires_grad or mb.grad_fn is not None):
                return "MulBackward0", (a, b), lambda g: (g * b, g * a), (a, b)
            return "MulBackward0", (a, b), lambda g: (g * b, None), (b,)
        if mb is not None and (mb.requires_grad or mb.grad_fn is not None):
            return "MulBackward0", (a, b), lambda g: (None, g * a), (a,)
        return "MulBackward0", (a, b), lambda g: (None, None), ()
    # (the result's dtype read from the operands: a maker that reads ``out`` costs every recorded
    # mul the release walk of strided.autograd.function._attached, ~1 us)
    ta, tb = isinstance(a, Tensor), isinstance(b, Tensor)
    complex_out = (a._dtype.is_complex if ta else _complex_number(a)) or (b._dtype.is_complex if tb else _complex_number(b))
    # (requires_grad, inlined: this runs per recorded mul)
    need_a = ta and a._ag is not None and (a._ag.requires_grad or a._ag.grad_fn is not None)
    need_b = tb and b._ag is not None and (b._ag.requires_grad or b._ag.grad_fn is not None)

    if complex_out:
        grads = _complex_mul_grads(a, b, need_a, need_b)
    else:
        def grads(g: Tensor) -> tuple:
            return (g * b if need_a else None, g * a if need_b else None)

    # (a saves b when a needs a gradient, and the other way round; spelt out: this runs per recorded mul)
    if need_a:
        saved = (a, b) if need_b else (b,) if tb else ()
    else:
        saved = (a,) if need_b and ta else ()
    return "MulBackward0", (a, b), grads, saved


def _complex_mul_grads(a: Any, b: Any, need_a: bool, need_b: bool) -> Callable[[Tensor], tuple]:
    """The rule of a complex ``a * b`` in PyTorch's own convention, its mul_tensor_backward:
    ``g * b.conj()`` and ``g * a.conj()``; marked so that the recording leaves it unconjugated
    (:data:`strided.autograd.function.PYTORCH_CONVENTION`: the holomorphic rule conjugated around,
    ``conj(conj(g) * b)``, has the same values but other signs of zero: ``(x * 2).real``'s
    gradient 2-0j where PyTorch's is 2+0j)."""

    def grads(g: Tensor) -> tuple:
        return (g * _conj_operand(b) if need_a else None, g * _conj_operand(a) if need_b else None)

    grads.pytorch_convention = True  # type: ignore[attr-defined]
    return grads


def _complex_number(x: Any) -> bool:
    """Whether the number ``x`` is complex (a Python or NumPy complex: it makes a product complex)."""
    return isinstance(x, (complex, np.complexfloating))


def _conj_operand(x: Any) -> Any:
    """``x.conj()`` as PyTorch's mul_tensor_backward takes it: a complex tensor's conjugate, a
    complex number's (a wrapped number there), anything real as it is."""
    if isinstance(x, Tensor):
        return x.conj() if x._dtype.is_complex else x
    return x.conjugate() if isinstance(x, (complex, np.complexfloating)) else x


def _square(r: Tensor) -> Tensor:
    return r * r


@backward("__truediv__", operands="dunder", reflected=("__rtruediv__",))
@backward("div", "divide", "true_divide", operands="two")
def _div_backward(out: Tensor, a: Any, b: Any, *, rounding_mode: Any = None, **kwargs: Any) -> Any:
    if rounding_mode is not None:  # a piecewise-constant quotient: PyTorch's DivBackward2, zero gradients
        ta, tb = isinstance(a, Tensor), isinstance(b, Tensor)
        return ("DivBackward2", (a if ta else None, b if tb else None),
                lambda g: (grad_zeros(a.shape, g._dtype) if ta else None, grad_zeros(b.shape, g._dtype) if tb else None), ())
    ta, tb = isinstance(a, Tensor), isinstance(b, Tensor)
    if not ta:  # number / tensor (the reflected operator; div(number, t) wraps the number)
        if b._dtype.is_complex or _complex_number(a):
            return "DivBackward0", (None, b), _complex_rdiv_grads(a, b), (b,)
        # PyTorch computes reciprocal(b) * number and differentiates those two nodes:
        # MulBackward0's g * number, then ReciprocalBackward0's -grad * (r * r), r = 1 / b
        # recomputed (the same bits as its saved result; recorded, so create_graph goes through
        # reciprocal's rule as PyTorch's). (-g * a / (b * b) was an ulp off in ~half the elements)
        return "MulBackward0", (None, b), lambda g: (None, -(g * a) * _square(b.reciprocal())), (b,)
    need_b = tb and requires_grad(b)
    saved = (a, b) if need_b else (b,) if tb else ()
    if a._dtype.is_complex or (b._dtype.is_complex if tb else _complex_number(b)):
        return "DivBackward0", (a, b), _complex_div_grads(a, b, need_b), saved

    def grads(g: Tensor) -> tuple:
        return (g / b, -g * ((a / b) / b) if need_b else None)  # (PyTorch's div_tensor_other_backward)

    return "DivBackward0", (a, b), grads, saved


def _complex_div_grads(a: Tensor, b: Any, need_b: bool) -> Callable[[Tensor], tuple]:
    """The rule of a complex ``a / b`` in PyTorch's convention, its div_tensor_self_backward and
    div_tensor_other_backward: ``g / b.conj()`` and ``-g * ((a / b) / b).conj()`` (the holomorphic
    rule conjugated around has their values with other signs of zero)."""

    def grads(g: Tensor) -> tuple:
        return (g / _conj_operand(b), -g * _conj_operand((a / b) / b) if need_b else None)

    return in_pytorch_convention(grads)


def _complex_rdiv_grads(a: Any, b: Tensor) -> Callable[[Tensor], tuple]:
    """The rule of ``number / b`` with a complex side: PyTorch's ``b.reciprocal() * number`` taken
    back through its two nodes' formulas, mul_tensor_backward's ``g * conj(number)`` and then
    ReciprocalBackward0's ``-grad * (r * r).conj()`` (``r`` the reciprocal)."""

    def grads(g: Tensor) -> tuple:
        r = b.reciprocal()
        return (None, -(g * _conj_operand(a)) * _conj_operand(r * r))

    return in_pytorch_convention(grads)


@backward("__floordiv__", operands="dunder", reflected=("__rfloordiv__",))
@backward("floor_divide", operands="two")
def _floor_divide_backward(out: Tensor, a: Any, b: Any, **kwargs: Any) -> Any:
    """PyTorch has no derivative for floor_divide: its result gets a ``NotImplemented`` node
    (so it requires grad) whose backward raises, rather than silently carrying no gradient."""

    def refuse(g: Tensor) -> tuple:
        raise StridedRuntimeError("derivative for aten::floor_divide is not implemented")

    return "NotImplemented", (a, b), refuse, ()


@backward("__pow__", operands="dunder", reflected=("__rpow__",))
@backward("pow", operands="two")
def _pow_backward(out: Tensor, a: Any, b: Any, **kwargs: Any) -> Any:
    ta, tb = isinstance(a, Tensor), isinstance(b, Tensor)
    if ta and not tb:  # tensor ** number
        # (PyTorch's pow_backward: row-major zeros for a 0 exponent, not g * 0, NaN where g is;
        # else grad * (exponent * self.pow(exponent - 1)), the exponent as a double: its order of
        # rounding, and pow's layout of the factor)
        if b == 0:
            return "PowBackward0", (a,), lambda g: (grad_zeros(a._layout.shape, a._dtype),), ()
        if a._dtype.is_complex or isinstance(b, complex):  # (its convention: grad * (...).conj())
            return "PowBackward0", (a,), in_pytorch_convention(lambda g: (g * (a ** (b - 1.0) * b).conj(),)), (a,)
        return "PowBackward0", (a,), lambda g: (g * (a ** (b - 1.0) * b),), (a,)
    if tb and not ta:  # number ** tensor
        return "PowBackward2", (b,), _pow_exponent_grads(a, b, out), (b, out)
    need_b = requires_grad(b)
    if out._dtype.is_complex:
        return "PowBackward1", (a, b), _complex_pow_grads(a, b, out, need_b), (a, b, out) if need_b else (a, b)

    def grads(g: Tensor) -> tuple:
        # PyTorch's pow_backward_self: 0 where the exponent is 0 (0 * 0 ** -1 would be NaN at a = 0)
        ga = (g * (b * a ** (b - 1))).masked_fill(b == 0, 0)  # (its order of rounding)
        gb = None
        if need_b:  # d(a**b)/db = a**b * log(a), taken as 0 where a == 0 and b >= 0
            # (PyTorch's test for a complex b: a real part >= 0 and no imaginary part)
            b_nonneg = (b.real >= 0) & (b.imag == 0) if b._dtype.is_complex else b >= 0
            # (PyTorch's form: g * where(mask, 0, out * log(a)), so the gradient's own derivative
            # is 0 there, not 0 * -inf)
            gb = g * (out * a.log()).masked_fill((a == 0) & b_nonneg, 0)
        return (ga, gb)

    return "PowBackward1", (a, b), grads, (a, b, out) if need_b else (a, b)


def _complex_pow_grads(a: Tensor, b: Tensor, out: Tensor, need_b: bool) -> Callable[[Tensor], tuple]:
    """The rule of a complex ``a ** b`` (two tensors) in PyTorch's convention, its
    pow_backward_self and pow_backward_exponent in their order: ``grad * (b * a.pow(b - 1)).conj()``,
    0 where ``b == 0``; ``grad * where(cond, 0, (out * a.log()).conj())``, ``a`` taken in the
    result's dtype (a real base's log is the complex one), ``cond``: ``a == 0`` and ``b`` real
    and >= 0. (Conjugated around, the same values with other signs of zero.)"""

    def grads(g: Tensor) -> tuple:
        ga = (g * (b * a ** (b - 1)).conj()).masked_fill(b == 0, 0)
        gb = None
        if need_b:
            b_nonneg = (b.real >= 0) & (b.imag == 0) if b._dtype.is_complex else b >= 0
            base = a if a._dtype == out._dtype else a.to(out._dtype)
            gb = g * (out * base.log()).conj().masked_fill((a == 0) & b_nonneg, 0)
        return (ga, gb)

    return in_pytorch_convention(grads)


def _pow_exponent_grads(a: Any, b: Tensor, out: Tensor) -> Callable[[Tensor], tuple]:
    """The gradient of ``a ** b`` (a number) in ``b``: PyTorch's pow_backward_exponent, in its
    convention for complex gradients, ``g * conj(out * log(a))``, ``a`` taken as complex for a
    complex ``b`` (its ``base.toComplexDouble()``: log(-1) is i*pi there, not NaN), and 0 where
    ``a`` is 0 and the exponent is >= 0 (a complex one: real part >= 0, no imaginary part).
    (Before: NaN for a negative real base of a complex exponent, TypeError for a complex base.)"""
    base = complex(a) if b._dtype.is_complex and not isinstance(a, complex) else a
    log_a = _scalar_log(base)

    def grads(g: Tensor) -> tuple:
        if base.__class__ is bool:  # (PyTorch's Scalar.log() of a bool: its own assertion fails)
            raise StridedRuntimeError(join_lines(
                'false INTERNAL ASSERT FAILED at "c10/core/Scalar.cpp":42, please report a bug to PyTorch. '
                "unknown ivalue tag 4",
                "PyTorch's gradient of True ** t (or False ** t) in t takes log of the bool base and fails",
                "fix: write the base as a number: 1.0 ** t"))
        d = out * log_a
        if d._dtype.is_complex:
            d = d.conj()
        if base == 0:
            nonneg = (b.imag == 0) & (b.real >= 0) if b._dtype.is_complex else b >= 0
            d = d.masked_fill(nonneg, 0)
        return (g * d,)

    grads.pytorch_convention = True  # type: ignore[attr-defined]
    return grads


def _scalar_log(x: Any) -> Any:
    """``Scalar.log()`` as PyTorch's: a complex number's by the C library's clog (NumPy's
    complex log: -inf+0j at 0, i*pi at -1), a real one's NaN below 0 and -inf at 0."""
    if isinstance(x, complex):
        with np.errstate(all="ignore"):
            return complex(np.log(np.complex128(x)))
    if x.__class__ is bool:
        return None  # (refused by the rule: PyTorch's Scalar.log() of a bool fails)
    import math

    return math.log(x) if x > 0 else float("nan") if x < 0 else float("-inf")


@backward("maximum", operands="two")
def _maximum_backward(out: Tensor, a: Tensor, b: Tensor) -> Any:
    return extremum_backward("MaximumBackward0", a, b, out)


@backward("minimum", operands="two")
def _minimum_backward(out: Tensor, a: Tensor, b: Tensor) -> Any:
    return extremum_backward("MinimumBackward0", a, b, out)


def extremum_backward(name: str, a: Tensor, b: Tensor, out: Tensor) -> Any:
    """maximum / minimum (and ``max(a, b)``): each side gets the gradient where it won; ties
    share it equally, as PyTorch's rule does (derivatives.yaml: ``where(a == b, g / 2, g)``,
    zeroed on the side that lost). A NaN loses no comparison, so both sides get the gradient,
    as in PyTorch (comparing with ``out`` would give neither side anything)."""

    def grads(g: Tensor) -> tuple:
        shared = (g * 0.5).where(a == b, g)
        a_lost, b_lost = (a < b, a > b) if name == "MaximumBackward0" else (a > b, a < b)
        return shared.masked_fill(a_lost, 0), shared.masked_fill(b_lost, 0)

    return name, (a, b), grads, (a, b)

# The unary ops, clamp and where live in .unary; re-exported so this module stays the one
# place to import elementwise functions from.
from .unary import (  # noqa: E402
    abs,
    bitwise_not,
    clamp,
    clip,
    cos,
    exp,
    log,
    neg,
    negative,
    relu,
    sigmoid,
    sin,
    sqrt,
    tanh,
    where,
)

__all__ = [
    "abs", "add", "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor", "clamp", "clip", "cos",
    "div", "divide", "eq", "exp", "floor_divide", "ge", "gt", "le", "log", "lt", "maximum",
    "minimum", "mul", "multiply", "ne", "neg", "negative", "pow", "relu", "remainder", "sigmoid",
    "sin", "sqrt", "sub", "subtract", "tanh", "true_divide", "where",
]


# ---------------------------------------------------------------- backward rules (agmath)


@backward("__mod__", operands="dunder")
@backward("remainder", operands="two")
def remainder_backward(out: Tensor, a: Any, b: Any, **kwargs: Any) -> Any:
    """remainder(a, b) = a - floor(a / b) * b: the gradient of a is g, of b -g * floor(a / b)."""
    if not isinstance(b, Tensor):
        return "RemainderBackward0", (a,), lambda g: (g,), ()

    def grads(g: Tensor) -> tuple:
        # PyTorch's a.div(b, rounding_mode="floor"), which is NaN where a / b is infinite (its
        # floor division goes through fmod): floor(a / b) would give inf there. Recorded under
        # create_graph as PyTorch's (its derivative is zero): b's gradient then requires grad,
        # and a second derivative through it is zeros rather than an error.
        return g, -g * a.div(b, rounding_mode="floor")

    return "RemainderBackward1", (a, b), grads, (a, b)


seal(globals())  # (last: this module's ops with a backward rule become their recording entries)
# the kinds of this module's ops, in the op registry (after the seal: the forwards are the entries)
declare(Kind.COMPUTE, "rsub", specs=(
    ADD, SUB, MUL, DIV, FLOOR_DIVIDE, REMAINDER, POW, BITWISE_AND,
    BITWISE_OR, BITWISE_XOR, EQ, NE, LT, LE, GT, GE,
    MAXIMUM, MINIMUM,
))
# the long names as spellings of their ops (a comparison has no backward rule to declare them)
for _alias, _name in (("not_equal", "ne"), ("less", "lt"), ("less_equal", "le"), ("greater", "gt"),
                      ("greater_equal", "ge")):
    OPDEFS[_name].add_spelling(_alias)
