"""Unary elementwise ops (``-x``, ``abs``, ``exp``, ``log``, ``sqrt``, ``sin``, ``cos``, ``tanh``,
``sigmoid``, ``relu``, ``~x``), ``clamp`` and ``where``, with PyTorch's semantics.

Same plan as :mod:`strided.ops.elementwise.binary`: dtype (``exp``-like ops give float32 for
integer/bool input), broadcast shape, an output laid out as PyTorch's TensorIterator lays it
out (or the in-place target after PyTorch's checks), then NumPy ufuncs reading the inputs in
place.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ... import layout as L
from ...dispatch import OPEN, adopted, report
from ...dispatch import result as fresh_result
from ...dtypes import (
    ALL_DTYPES,
    REDUCED_FLOATS,
    DType,
    bfloat16,
    bool_,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    real_of,
    uint8,
)
from ...errors import StridedNotImplementedError, StridedRuntimeError, StridedTypeError, join_lines
from ...grad_mode import GRAD_MODE, INSIDE, SUBCLASSES, bump
from ...grad_mode import _slow as recorded
from ...gradients import grad_zeros, guards_itself, in_pytorch_convention, record, records, saves_output, seal
from ...gradients import recorded as recorded_fast
from ...kernels import torch_extremes, vml_route
from ...kernels.elementwise import (
    UnaryKernel,
    _clip,
    assign,
    clamp_into,
    complex_abs,
    keep_tied_zeros,
    neg_kernel,
    relu_array,
    relu_kernel,
    sigmoid_fresh,
    sigmoid_kernel,
    tied_zeros,
    ufunc_kernel,
    where_into,
)
from ...kernels.fpstate import QUIET as _QUIET
from ...kernels.fpstate import quiet_call, quiet_retry
from ...kernels.fpstate import quiet_reset as _quiet_reset
from ...kernels.fpstate import quiet_set as _quiet_set
from ...kernels.memory import dense_run, outside_storage, reduced_cast_source
from ...kernels.native import _compiled as _compiled_module
from ...kernels.native import special
from ...kernels.reduced_arith import bf16_through_float32
from ...kernels.reduced_nans import VML_ALL_ONES, all_ones_nans
from ...kernels.sleef import LIBM_EXP, exp_fresh, exp_kernel, flat_call, tanh_fresh, tanh_kernel
from ...kernels.sleef import SIGMOID as SLEEF_SIGMOID
from ...kernels.sleef import TANH as SLEEF_TANH
from ...kernels.tiles import EXACT_UNARY, unary_into
from ...opdef import Kind, declare
from ...scalars import UInt64Scalar, checked, filled
from ...tensor import Tensor
from .._support.front import compiled_front, compiled_inplace, kernel_entry
from .._support.gradtools import threshold_grad
from .._support.operands import (
    _broadcast,
    _check_inplace,
    _check_partial_overlap,
    _check_uint64_scalars,
    _cinfo,
    _fresh_output,
    _not_implemented,
    _operand,
    _view,
    flat_run,
)
from .._support.out import into_out, out_layout_scratch, refuse_other_dtype, write_out
from .._support.overlap_updates import UpdatesInOrder, updates_in_order
from .._support.promotion import TORCH_NAMES, operand_class, result_type_of_classes, to_float
from .._support.support import check as _check_support
from ..registry import backward, method

# ---------------------------------------------------------------- unary ops


@dataclass(frozen=True)
class UnaryOp:
    """One unary op: ``float_out`` ops give the default float for integer/bool input."""

    name: str
    compute: UnaryKernel  # (input view, output view, compute NumPy dtype): a kernels.elementwise kernel
    float_out: bool = False
    bool_error: str = ""  # message for a bool input, if refused
    bool_not_implemented: str = ""  # kernel name for a NotImplementedError on bool
    ufunc: np.ufunc | None = None  # the plain ufunc, if ``compute`` is just that (small-op fast path)
    # out= must have the input's dtype (PyTorch: "Found dtype ... but expected ..."): "always", or for a
    # complex input "abs" / "not_complex" (see strided.ops._support.out.refuse_other_dtype); "" casts
    out_same_dtype: str = ""

    def __post_init__(self) -> None:
        # the ops PyTorch computes with MKL VML (exp log sqrt sin cos tanh): their float32/float64
        # by VML, PyTorch's bits, where kernels.vml_route runs; ``compute`` where it does not
        if self.name in vml_route.CODE:
            object.__setattr__(self, "compute", vml_route.kernel(self.name, self.compute))


NEG = UnaryOp(
    "neg", neg_kernel,
    bool_error="Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
    "to invert a mask, use the `~` or `logical_not()` operator instead.", ufunc=np.negative, out_same_dtype="always")
ABS = UnaryOp("abs", ufunc_kernel(np.absolute), bool_not_implemented="abs_cpu", ufunc=np.absolute,
              out_same_dtype="abs")
EXP = UnaryOp("exp", exp_kernel, float_out=True, ufunc=np.exp)  # (float32: the C library's expf, kernels.sleef)
LOG = UnaryOp("log", ufunc_kernel(np.log), float_out=True, ufunc=np.log)
SQRT = UnaryOp("sqrt", ufunc_kernel(np.sqrt), float_out=True, ufunc=np.sqrt)
SIN = UnaryOp("sin", ufunc_kernel(np.sin), float_out=True, ufunc=np.sin)
COS = UnaryOp("cos", ufunc_kernel(np.cos), float_out=True, ufunc=np.cos)
TANH = UnaryOp("tanh", tanh_kernel, float_out=True, ufunc=np.tanh)  # (float32: tanh from double, kernels.sleef)
SIGMOID = UnaryOp("sigmoid", sigmoid_kernel, float_out=True)
RELU = UnaryOp("relu", relu_kernel, bool_error="Boolean inputs not supported for relu")
BITWISE_NOT = UnaryOp("bitwise_not", ufunc_kernel(np.invert), out_same_dtype="always")


def unary(op: UnaryOp, x: Any, target: Tensor | None = None) -> Tensor:
    """:func:`_unary`, reported at the op boundary (:func:`strided.dispatch.report`)."""
    out = _unary(op, x, target)
    if OPEN:
        report(op.name if target is None else op.name + "_", (x,), out)
    return out


def not_a_tensor_input(x: Any, name: str, base: str) -> StridedTypeError:
    """PyTorch's TypeError for an input ``x`` of op ``name`` (``exp`` or ``exp_``, whose function
    is ``strided.<base>``) that is not a Tensor (the caller tests, so the hot path makes no call)."""
    return StridedTypeError(
        join_lines(
            f"{name}(): argument 'input' (position 1) must be Tensor, not {type(x).__name__}",
            f"got {x!r:.60}; make a tensor first: strided.{base}(strided.tensor(data))",
        )
    )


def _unary(op: UnaryOp, x: Any, target: Tensor | None = None) -> Tensor:
    """Run ``op(x)`` into a fresh output (TensorIterator's strides) or into ``target`` (``x`` itself)."""
    name = op.name if target is None else op.name + "_"
    if not isinstance(x, Tensor):
        raise not_a_tensor_input(x, name, op.name)
    d = x._dtype
    if d is bool_:
        if op.bool_error:
            raise StridedRuntimeError(
                join_lines(
                    op.bool_error,
                    f"the input is a bool tensor of shape {x.shape}; "
                    + (
                        "strided has no logical_not(): ~mask inverts a mask; to negate it as "
                        "numbers, convert first: -mask.to(strided.int64)"
                        if op is NEG
                        else f"convert it first: x.to(strided.float32).{op.name}()"
                    ),
                )
            )
        if op.bool_not_implemented:
            raise _not_implemented(op.bool_not_implemented, d)
    if op is BITWISE_NOT and d.is_floating_point:
        raise _not_implemented("bitwise_not_cpu", d)
    _check_support(op.name, d, (x,))  # complex / uint16-64 kernels PyTorch lacks
    compute = to_float(d) if op.float_out else d
    lay = x._layout
    if op is ABS and d.is_complex:  # |z| is real: complex64 -> float32, as PyTorch
        return _complex_abs(x, target)
    if target is None:
        if compute is d and (dense := dense_run(x, _cinfo[lay.shape][1])) is not None:
            return _dense_unary(op, d, *dense)
        out = _fresh_output(lay.shape, compute, [x], compute)
    else:
        _check_inplace(target, name, compute, lay.shape)
        out = target
    token = _quiet_set(_QUIET)
    try:
        op.compute(_view(x), _view(out), compute.numpy)
    finally:
        _quiet_reset(token)
    if out._dtype is bfloat16 and op.name in VML_ALL_ONES:
        all_ones_nans(_view(out))  # (PyTorch's vectorized conversion's NaN: kernels.reduced_nans)
    return out


def _dense_unary(op: UnaryOp, d: DType, run: np.ndarray, layout: L.Layout) -> Tensor:
    """``op`` of a permuted dense tensor whose storage run is ``run`` (its result dtype ``d``,
    the input's): the kernel over the run in memory order, adopted with ``layout`` (the input's
    strides: TensorIterator's output). The same kernel on the same elements as the general path,
    without its output set-up (a transposed 2^20 float32 neg ~96 -> ~91 us)."""
    res = np.empty(run.shape, d.numpy)
    token = _quiet_set(_QUIET)
    try:
        op.compute(run, res, d.numpy)
    finally:
        _quiet_reset(token)
    if d is bfloat16 and op.name in VML_ALL_ONES:
        all_ones_nans(res)  # (PyTorch's vectorized conversion's NaN: kernels.reduced_nans)
    return adopted(res, layout, d)


def _complex_abs(x: Tensor, target: Tensor | None) -> Tensor:
    """``abs`` of a complex tensor: a real result (PyTorch refuses the in-place form)."""
    if target is not None:
        raise StridedRuntimeError(
            join_lines(
                "In-place abs is not supported for complex tensors.",
                f"|z| of the {x._dtype.name} tensor is {real_of(x._dtype).name}, which its elements cannot hold",
                "fix: y = x.abs() (a new real tensor)",
            )
        )
    lay = x._layout  # PyTorch allocates it with empty_like(x, real dtype): x's dense strides kept
    out = fresh_result(lay.shape, real_of(x._dtype), L.preserve_format_strides(lay.shape, lay.strides))
    token = _quiet_set(_QUIET)
    try:
        complex_abs(_view(x), out=_view(out))  # (PyTorch's scalar loop's hypot: see complex_abs)
    finally:
        _quiet_reset(token)
    return out


def _make_unary(op: UnaryOp) -> tuple[Callable[[Any], Tensor], Callable[[Tensor], Tensor]]:
    def inplace(self: Tensor) -> Tensor:
        try:
            return unary(op, self, target=self)
        except UpdatesInOrder as refusal:  # (a target whose elements share memory: PyTorch's updates)
            return updates_in_order(inplace, self, (), {}, refusal)
        except StridedTypeError:
            if not isinstance(self, Tensor):  # (no target: PyTorch's error still names relu_(), not relu())
                raise not_a_tensor_input(self, op.name + "_", op.name) from None
            raise

    fn = _fast_unary(op)
    if op is BITWISE_NOT:  # (integer and bool results, no rule: its own guard entry, see guards_itself)
        fn.__name__ = fn.__qualname__ = op.name
        fn = _fast_unary(op, fn)
    fn.__name__ = fn.__qualname__ = op.name
    fn.__doc__ = (f"Elementwise ``{op.name}`` (PyTorch semantics); a fresh tensor keeping the input's dim order.\n\n"
                  f"    >>> x = strided.ones(2, 3{', dtype=strided.int64' if op.name == 'bitwise_not' else ''}).t()\n"
                  f"    >>> x.{op.name}().shape, x.{op.name}().stride()  # x's strides: (1, 3)\n"
                  "    ((3, 2), (1, 3))\n")
    inplace.__name__ = op.name + "_"
    inplace.__doc__ = (f"In-place ``{op.name}``: writes into this tensor; its dtype must hold the result.\n\n"
                       f"    >>> x = strided.ones(2, 3{', dtype=strided.int64' if op.name == 'bitwise_not' else ''})\n"
                       "    >>> col = x[:, 0]\n"
                       f"    >>> col.{op.name}_() is col, x[:, 1:].tolist()  # column 0 written, in x's memory\n"
                       f"    (True, {[[1, 1], [1, 1]] if op.name == 'bitwise_not' else [[1.0, 1.0], [1.0, 1.0]]})\n")
    return fn, inplace


def _fast_unary(op: UnaryOp, raw: Callable[..., Tensor] | None = None) -> Callable[[Any], Tensor]:
    """``op`` with a fast path for row-major float tensors: the ufunc runs on the flat run of
    the storage and its fresh 1-D result becomes the output storage (PyTorch's output of a
    contiguous input is contiguous). With ``raw`` (this function made without it), it is its
    own guard entry too (:func:`strided.gradients.guards_itself`)."""
    ufunc = op.ufunc
    name = op.name
    # relu is max(x, 0) with -0.0 kept (relu_kernel; relu_array on a fresh array)
    zero = None
    if op is RELU:
        ufunc = relu_array
    # The dtypes the fast path takes: a plain ufunc (or relu) runs in any float dtype; an op whose
    # kernel is several NumPy calls (sigmoid, bitwise_not) runs its kernel into a fresh flat array,
    # only where the general path computes in the tensor's own dtype (sigmoid: float32/float64, as
    # float16 works in float32; bitwise_not: the integer dtypes and bool PyTorch has a kernel for).
    if ufunc is not None:
        fast_dtypes = frozenset(d for d in ALL_DTYPES if d.is_floating_point)
    elif op is BITWISE_NOT:
        fast_dtypes = frozenset((bool_, uint8, int8, int16, int32, int64))
    else:
        fast_dtypes = frozenset((float32, float64))
    if op is SIGMOID:  # (its kernel's ufuncs as a function of the flat run: float32/float64 only, as above)
        ufunc = sigmoid_fresh
    if op is BITWISE_NOT:  # (its kernel is np.invert in the input's own dtype: the ufunc on the run)
        ufunc = np.invert
    if op is EXP:  # (np.exp but for float32: the C library's expf, kernels.sleef.exp_fresh)
        ufunc = exp_fresh
    if op is TANH:  # (np.tanh but for float32: tanh from double, kernels.sleef.tanh_fresh)
        ufunc = tanh_fresh
    if name in vml_route.CODE:  # (float32/float64: MKL VML's, PyTorch's bits, where the route runs)
        ufunc = vml_route.fresh_first(name, ufunc)
    compute = op.compute
    vml = name in VML_ALL_ONES  # (its bfloat16 NaNs are 0xFFFF: kernels.reduced_nans)
    bf16_run = _BF16_THROUGH_FLOAT32.get(name)  # (bfloat16 by the float32 kernel: None, not built)
    guarded = None

    @records(name)
    def fn(input: Any, *, out: Any = None) -> Tensor:  # (PyTorch's argument name: strided.exp(input=t))
        if guarded is not None and (OPEN or out is not None):  # (the calls its guard entry would act on)
            return guarded()(input) if out is None else guarded()(input, out=out)
        if (type(input) is Tensor or type(input) in SUBCLASSES):
            # tracked (in autograd, outside another op's recorded forward, unwatched, no out=): the
            # fast path below is pure NumPy into fresh memory, so its result is recorded as it is
            # (gradients.recorded) without record() running fn again; any other path takes record().
            tracked = False
            if input._ag is not None and not INSIDE.get():  # its own recording entry: one slot test
                if out is not None or OPEN:
                    return record(name, fn, (input,), {"out": out} if out is not None else {})
                tracked = True
            if out is not None:
                return _unary_out(op, input, out)
            d = input._dtype
            if d in fast_dtypes:
                lay = input._layout
                info = _cinfo[lay.shape]
                layout = info[2]
                if lay.strides == info[0]:
                    n = info[1]
                    arr = input._storage.array
                    off = lay.offset
                    if off or len(arr) != n:
                        arr = arr[off : off + n]
                        if len(arr) != n:  # (only a tensor unpickled past its storage: never read outside)
                            raise outside_storage(input._storage.array, lay)
                elif (dense := dense_run(input, info[1])) is not None:
                    arr, layout = dense  # (a transpose: the same pass over its memory in order, laid out as it)
                    n = info[1]
                else:
                    arr = None
                if arr is not None:
                    if ufunc is None:  # (the kernel writes a fresh array: it never overlaps the input)
                        res = np.empty(n, d.numpy)
                        token = _quiet_set(_QUIET)
                        try:
                            compute(arr, res, d.numpy)
                        finally:
                            _quiet_reset(token)
                    elif ufunc is relu_array:  # called here, not in quiet_call's shared Context, which
                        # would hide native.disabled(); relu warns of nothing. (relu_array's compiled
                        # case inline: relu_fresh's answer, None where relu_array's formula decides)
                        if _RELU_FRESH is None or (k := special()) is None or (res := k.relu_fresh(arr)) is None:
                            res = relu_array(arr)
                    elif bf16_run is not None and d is bfloat16 and (res := quiet_call(bf16_run, arr)) is not None:
                        pass  # (PyTorch's bits, NaNs 0xFFFF, by the float32 kernel)
                    else:
                        try:  # fpstate.quietly, inlined (a call is a tenth of a 1 µs op)
                            res = quiet_call(ufunc, arr) if zero is None else quiet_call(ufunc, arr, zero)
                        except RuntimeError as e:
                            res = quiet_retry(e, ufunc, arr) if zero is None else quiet_retry(e, ufunc, arr, zero)
                        if vml and d is bfloat16:  # (PyTorch's vectorized NaN: kernels.reduced_nans)
                            all_ones_nans(res)
                    t = adopted(res, layout, d)
                    if OPEN:
                        report(name, (input,), t)
                    return recorded_fast(name, t, (input,)) if tracked else t
            if tracked:
                return record(name, fn, (input,), {})
        if out is not None:
            return _unary_out(op, input, out)
        return unary(op, input)

    if raw is not None:
        guarded = guards_itself(fn, raw, name)
    # (the common call in C: the same fast path's function on the same run; see _support.front)
    # (bfloat16 of a VML-style op stays out of the C table: fn's fast path rewrites its NaNs)
    # (bfloat16 of a VML-style op: the ufunc then its NaNs made 0xFFFF, or sqrt's compiled kernel)
    table = {d: (_all_ones_after(ufunc, bf16_run) if vml and d is bfloat16 else ufunc, ufunc is relu_array, None,
                 _front_kernel(op, d)) for d in fast_dtypes} if ufunc is not None and zero is None else {}
    return compiled_front(fn, 1, table, dense=fast_dtypes)  # (fn's dense_run path: a transpose in C too)


# bfloat16 ops PyTorch computes as float32 then rounds (its VML-style kernels' vector conversion)
# where the float32 kernel here gives PyTorch's float32 bits: compiled, the result's every bit
# equals PyTorch's over all 65536 bfloat16 inputs (tests/test_bfloat16_native.py)
# (exp, tanh: their float32 kernel's op, for the fused one-pass loop; log's np.log is NumPy's own
# SIMD loop, out of reach of compiled code here: its three passes)
_BF16_THROUGH_FLOAT32 = {name: bf16_through_float32(f, op) for name, f, op in
                         (("exp", exp_fresh, LIBM_EXP), ("log", np.log, None), ("tanh", tanh_fresh, SLEEF_TANH))}


def _all_ones_after(ufunc: Callable[[np.ndarray], np.ndarray],
                    first: Callable[[np.ndarray], np.ndarray | None] | None = None) -> Callable[[np.ndarray], np.ndarray]:
    """``ufunc`` of a flat bfloat16 run with PyTorch's vectorized NaN bits, every NaN 0xFFFF
    (:mod:`strided.kernels.reduced_nans`): the front's function for a VML-style op's bfloat16
    (``first``: tried before, its None answer: ``ufunc``)."""
    def run(x: np.ndarray) -> np.ndarray:
        if first is not None and (res := first(x)) is not None:
            return res
        res = ufunc(x)
        all_ones_nans(res)
        return res

    return run


def _front_kernel(op: UnaryOp, d: DType) -> tuple | None:
    """The compiled pass the fast path's function makes on a small flat run of ``d`` (sigmoid:
    :func:`sigmoid_fresh`'s torch_loop; exp, tanh: :func:`exp_fresh` / :func:`tanh_fresh`'s float32
    kernel; sqrt: ``fp_sqrt``, np.sqrt's bits), for the front to make in C; None for the other ops
    (their function runs); bfloat16 sqrt: the compiled float32 root rounded, PyTorch's bits."""
    if d is bfloat16 and op is SQRT:  # (PyTorch's bits, NaN 0xFFFF: kernels/_halfkernel.c bf16_sqrt)
        k = _compiled_module("_halfkernel")
        return kernel_entry(getattr(k, "bf16_sqrt", None) if k is not None else None, (), bfloat16)
    if d is not float32 and d is not float64:  # (and no d.numpy: bfloat16's imports ml_dtypes)
        return None
    if op.name in vml_route.CODE and _VML:  # (MKL VML's call; its False answer: the fast path's function)
        return kernel_entry(vml_route.runner(), (vml_route.CODE[op.name],), d.numpy)
    if op is SIGMOID:
        call = flat_call(SLEEF_SIGMOID, d.numpy)
    elif op is EXP or op is TANH:
        call = flat_call(LIBM_EXP if op is EXP else SLEEF_TANH, d.numpy, elementwise=True)
    elif op is SQRT:  # (np.sqrt's bits by a 512-bit loop, NumPy's being 128-bit: see _fp_tests.h)
        k = _compiled_module("_specialkernel")
        run = getattr(k, "fp_sqrt", None) if k is not None else None
        return None if run is None else kernel_entry(run, (), d.numpy)
    else:
        return None
    return None if call is None else kernel_entry(call[0], call[1], d.numpy, call[2])


def _unary_out(op: UnaryOp, x: Any, out: Any) -> Tensor:
    """``op(x, out=out)``: :func:`_unary`, then :func:`strided.ops._support.out.write_out`; or, for a
    large float32/float64 ``sqrt`` or ``abs`` whose checks all pass (:func:`strided.ops._support.out.into_out`),
    straight into ``out`` (:func:`strided.kernels.tiles.unary_into`: the same bits, without the fresh
    result and its transposing write when ``x`` runs against ``out``)."""
    # (neg's refusal of a bool input comes first in PyTorch: it is checked before the iterator's)
    if op.out_same_dtype and isinstance(x, Tensor) and not (op.bool_error and x._dtype.kind == "b"):
        refuse_other_dtype(out, x._dtype, op.name, op.out_same_dtype)
    if (op.ufunc in EXACT_UNARY and not (_VML and op.name in vml_route.CODE) and type(x) is Tensor and x._dtype in _INTO_OUT_DTYPES
            and into_out(out, x._layout.shape, x._dtype, (x,))):
        token = _quiet_set(_QUIET)
        try:
            unary_into(op.ufunc, _view(x), _view(out))
        finally:
            _quiet_reset(token)
        bump(out, f"{op.name}(out=...)")
        return out
    # (a kernel whose vector and scalar loops differ runs over out's own layout, as PyTorch's)
    scratch = None if op is ABS else out_layout_scratch(
        out, x, to_float(x._dtype) if op.float_out and isinstance(x, Tensor) else getattr(x, "_dtype", None))
    return write_out(out, _unary(op, x, scratch), op.name, (x,), plain_loop=True)


# (float16 and bfloat16 keep the general path: NumPy's loops for them compute through float32)
_INTO_OUT_DTYPES = frozenset((float32, float64))
_VML = vml_route.possible()  # (the environment lets MKL VML run: its ops' compiled fronts call it)


neg, neg_ = _make_unary(NEG)
abs, abs_ = _make_unary(ABS)  # noqa: A001 - strided.abs mirrors torch.abs
absolute = abs  # (torch.absolute: the alias)
exp, exp_ = _make_unary(EXP)
log, log_ = _make_unary(LOG)
sqrt, sqrt_ = _make_unary(SQRT)
sin, sin_ = _make_unary(SIN)
cos, cos_ = _make_unary(COS)
tanh, tanh_ = _make_unary(TANH)
sigmoid, sigmoid_ = _make_unary(SIGMOID)
# (the special kernel's relu_fresh where this build has it: relu's fast path calls it itself)
_RELU_FRESH = getattr(_compiled_module("_specialkernel"), "relu_fresh", None)
relu, relu_ = _make_unary(RELU)
# (x.relu_() written in C by its entry front: relu_kernel's compiled loop, run over the tensor's own
# run; op 0 of _specialkernel's in-place capsule)
compiled_inplace(relu_, _compiled_module("_specialkernel"), "relu_", {float32: (0, 0, 1 << 62), float64: (0, 0, 1 << 62)})
bitwise_not, bitwise_not_ = _make_unary(BITWISE_NOT)
negative = neg


# ---------------------------------------------------------------- backward rules (derivatives.yaml)


def _unary_rule(name: str, grad: Callable[[Tensor, Tensor, Tensor], Tensor], saves: str,
                complex_grad: Callable[[Tensor, Tensor, Tensor], Tensor] | None = None) -> Callable:
    """A unary rule: ``grad(g, x, out)``; ``saves`` names what it reads ("x", "out", "").
    ``complex_grad(g, x, out)``: PyTorch's formula for a complex result, its conj()s and its
    operations in its order (then not conjugated around: the same signs of zero as PyTorch's)."""

    if saves == "out":
        @saves_output  # (the fast recorder hands it the result's alias: no walk of the rule)
        def rule_of_out(out: Tensor, x: Tensor, *args: Any, **kwargs: Any) -> Any:
            if complex_grad is not None and out._dtype.is_complex:
                return name, (x,), in_pytorch_convention(lambda g: (complex_grad(g, x, out),)), (out,)
            return name, (x,), lambda g: (grad(g, x, out),), (out,)

        return rule_of_out

    # (a maker whose code never reads ``out``: the recorder then skips the walk of its rule for the
    # output to swap for an alias, function._maker_flags; one maker for both cases would read it)
    def rule(out: Tensor, x: Tensor, *args: Any, **kwargs: Any) -> Any:
        saved = (x,) if saves == "x" else ()
        if complex_grad is not None and x._dtype.is_complex:
            return name, (x,), in_pytorch_convention(lambda g: (complex_grad(g, x, None),)), saved
        return name, (x,), lambda g: (grad(g, x, None),), saved

    return rule


backward("neg", "negative", "__neg__")(_unary_rule("NegBackward0", lambda g, x, y: -g, ""))
# (one rule for every spelling: sgn is sign for real x and z / |z| for complex, as PyTorch's abs)
backward("abs", "absolute", "__abs__")(_unary_rule("AbsBackward0", lambda g, x, y: g * x.sgn(), "x"))
# (the last arguments: PyTorch's formulas for complex results, as derivatives.yaml writes them)
backward("exp")(_unary_rule("ExpBackward0", lambda g, x, y: g * y, "out", lambda g, x, y: g * y.conj()))
backward("log")(_unary_rule("LogBackward0", lambda g, x, y: g / x, "x", lambda g, x, y: g.div(x.conj())))
backward("sqrt")(_unary_rule("SqrtBackward0", lambda g, x, y: g / (2 * y), "out",
                             lambda g, x, y: g / (2 * y.conj())))
backward("cos")(_unary_rule("CosBackward0", lambda g, x, y: -g * x.sin(), "x", lambda g, x, y: g * -x.sin().conj()))


_FUSED = frozenset((float32, float64))  # (the dtypes whose mul and sub run NumPy's ufunc as they are)


def _tanh_grad_run(g: np.ndarray, y: np.ndarray) -> np.ndarray:
    t = np.multiply(y, y)
    np.subtract(1, t, out=t)
    return np.multiply(g, t, out=t)


def _sin_grad_run(g: np.ndarray, x: np.ndarray) -> np.ndarray:
    t = vml_route.fresh("cos", x)  # (x.cos()'s own bits: MKL VML's where that route runs, as PyTorch's)
    if t is None:
        t = np.cos(x)
    return np.multiply(g, t, out=t)


def _fused_grad(run: Callable[[np.ndarray, np.ndarray], np.ndarray], g: Tensor, y: Tensor) -> Tensor | None:
    """``run(g, y)`` on the flat runs of two row-major float32 or float64 tensors of one shape and
    dtype, when nothing records or listens, as a fresh tensor of their layout; None for anything
    else. ``run`` is the ufunc calls the ops of a rule's formula make on those runs (the ops' own
    fast paths: NumPy's ufunc on the flat runs, row-major results), in their order, so the same
    bits, into one buffer: no intermediate tensors."""
    d = g._dtype
    if (not OPEN and g.__class__ is Tensor and y.__class__ is Tensor and d is y._dtype and d in _FUSED
            and g._layout.shape == y._layout.shape
            and (not GRAD_MODE.get() or (g._ag is None and y._ag is None))):
        info = _cinfo[g._layout.shape]
        ga = flat_run(g, info)
        ya = flat_run(y, info) if ga is not None else None
        if ya is not None:
            try:  # (fpstate.quietly, inlined: NumPy's floating-point warnings off, as each op has them)
                res = quiet_call(run, ga, ya)
            except RuntimeError as e:
                res = quiet_retry(e, run, ga, ya)
            return adopted(res, info[2], d)
    return None


def _sin_grad(g: Tensor, x: Tensor, _out: Any) -> Tensor:
    """sin's gradient ``g * x.cos()``: :func:`_fused_grad`'s two ufuncs (cos, then the product)
    where it applies, else the ops themselves (recorded under create_graph)."""
    res = _fused_grad(_sin_grad_run, g, x)
    return g * x.cos() if res is None else res


def _tanh_grad(g: Tensor, _x: Any, y: Tensor) -> Tensor:
    """tanh's gradient ``g * (1 - y * y)`` (``y``: tanh's result): :func:`_fused_grad`'s three
    ufuncs where it applies; anything else, the ops themselves (recorded under create_graph)."""
    res = _fused_grad(_tanh_grad_run, g, y)
    if res is not None:
        return res
    d = g._dtype
    if d in REDUCED_FLOATS and y._dtype is d:
        # (PyTorch's tanh_backward kernel for float16/bfloat16 computes in float32 and rounds once;
        # the three 2-byte ops would round three times: a different gradient in most elements)
        gf, yf = g.float(), y.float()
        return (gf * (1 - yf * yf)).to(d)
    return g * (1 - y * y)


def _sigmoid_grad(g: Tensor, _x: Any, y: Tensor) -> Tensor:
    """sigmoid's gradient (``y``: sigmoid's result) in the order of PyTorch's sigmoid_backward
    kernel, so the same bits: ``g * (1 - y) * y`` for real float32/float64 (``g * (y * (1 - y))``
    rounds differently; float16 too, in 2-byte ops, as PyTorch's kernel for it), ``g * ((1 - y) * y)``
    for complex, and for bfloat16 the real formula in float32 rounded once.

    >>> x = strided.tensor([0.0, 1.0], requires_grad=True); x.sigmoid().sum().backward(); x.grad
    tensor([0.2500, 0.1966])
    """
    d = g._dtype
    if d.is_complex:
        return g * ((1 - y) * y)
    if d is bfloat16 and y._dtype is d:
        yf = y.float()
        return (g.float() * (1 - yf) * yf).to(d)
    return g * (1 - y) * y


# (each rule's grad(g, x, out) itself, not a lambda calling it: one call less per node in backward)
backward("sin")(_unary_rule("SinBackward0", _sin_grad, "x", lambda g, x, y: g * x.cos().conj()))
def _tanh_complex_grad(g: Tensor, x: Tensor, y: Tensor) -> Tensor:
    """PyTorch's complex tanh_backward kernel, ``a * conj(1 - b * b)`` (``b``: tanh's result), with
    the signs of zero of each loop: its vectorized loop's ``1 - b * b`` has the imaginary part
    ``0 - (b * b).imag`` (+0.0 for a zero one, conjugated to -0.0); its scalar loop's (c10::complex,
    the elements :func:`.torch_loops.scalar_loop_mask` finds: a short row's every element, a row's
    last ``len % (2 * lanes)``) comes out conjugated as ``(b * b).imag`` itself, either sign
    (measured against torch 2.13: 3000 of 3000 drawn pairs each way)."""
    from ...creation import from_numpy
    from ...kernels.torch_loops import fresh_strides, scalar_loop_mask, torch_vector_bytes
    from .complex_ops import complex as _complex

    b2 = y * y
    f = (1 - b2).conj()
    shape = g._layout.shape
    if y._layout.shape == shape:
        ops = [(t._layout.shape, t._layout.strides) for t in (g, y)]
        mask = scalar_loop_mask(shape, tuple(fresh_strides(shape, ops)), True, ops,
                                step=2 * torch_vector_bytes() // y._dtype.itemsize)
        if mask is not None:
            f = where(from_numpy(mask.copy()), _complex(f.real, b2.imag), f)  # (copy: C order, 0-d kept)
    return g * f


# (PyTorch's tanh_backward and sigmoid_backward kernels for complex: a * conj(1 - b * b), a * conj((1 - b) * b))
backward("tanh")(_unary_rule("TanhBackward0", _tanh_grad, "out", _tanh_complex_grad))
backward("sigmoid")(_unary_rule("SigmoidBackward0", _sigmoid_grad, "out", lambda g, x, y: g * ((1 - y) * y).conj()))


def _threshold_backward(grad_output: Tensor, result: Tensor) -> Tensor:
    """relu's gradient, PyTorch's ``aten::threshold_backward(grad, result, 0)``: ``grad_output``
    zeroed where relu's result is <= 0 (a NaN result passes the gradient on). Under
    ``create_graph=True`` it gets the node PyTorch gives it, ``ThresholdBackwardBackward0`` (zero
    towards the result), so relu's gradient is differentiable as PyTorch's, not a constant.

    (Not a registry op: PyTorch has no public spelling of it either, only ``torch.ops.aten``;
    relu's rule records it through the recorder, as an op's entry would.)
    """
    if GRAD_MODE.get() and (grad_output._ag is not None or result._ag is not None):
        return recorded(threshold_grad, _threshold_backward_rule, (grad_output, result), {})
    return threshold_grad(grad_output, result)


def _threshold_backward_rule(out: Tensor, grad_output: Tensor, result: Tensor) -> Any:
    # (derivatives.yaml: grad_output -> threshold_backward(grad, self, threshold); self -> zeros)
    def grads(gg: Tensor) -> tuple[Tensor, Tensor]:
        return _threshold_backward(gg, result), grad_zeros(result._layout.shape, gg._dtype)

    return "ThresholdBackwardBackward0", (grad_output, result), grads, (result,)


# (PyTorch's threshold_backward: zero where the result is <= 0, so a NaN passes the gradient on)
backward("relu")(_unary_rule("ReluBackward0", lambda g, x, y: _threshold_backward(g, y), "out"))


def _invert(self: Tensor) -> Tensor:
    """``~x``: bitwise not of a bool or integer tensor (TypeError for floats and complex, as in PyTorch)."""
    if self._dtype.kind in "fc":
        raise StridedTypeError(
            join_lines(
                "~ (operator.invert) is only implemented on integer and Boolean-type tensors",
                f"the tensor is {self._dtype.name}; for a mask use a comparison (x > 0) and invert that",
            )
        )
    return bitwise_not(self)  # (its fast path and its reports: ~x is x.bitwise_not())


_METHODS: list[tuple[tuple[str, ...], Callable]] = [
    (("__invert__",), _invert),
    (("neg", "negative", "__neg__"), neg), (("neg_", "negative_"), neg_),
    (("abs", "absolute", "__abs__"), abs), (("abs_", "absolute_"), abs_),
    (("exp",), exp), (("exp_",), exp_), (("log",), log), (("log_",), log_),
    (("sqrt",), sqrt), (("sqrt_",), sqrt_), (("sin",), sin), (("sin_",), sin_),
    (("cos",), cos), (("cos_",), cos_), (("tanh",), tanh), (("tanh_",), tanh_),
    (("sigmoid",), sigmoid), (("sigmoid_",), sigmoid_), (("relu",), relu), (("relu_",), relu_),
    (("bitwise_not",), bitwise_not), (("bitwise_not_",), bitwise_not_),
]


# ---------------------------------------------------------------- clamp and where


def _fast_bound(v: Any, d: DType, shape: tuple[int, ...] = (), info: tuple = ()) -> Any:
    """A Python float (or an int float64 holds exactly) bound as the general path's
    :func:`strided.scalars.checked` makes it for a float32 / float64 result; a tensor bound of
    dtype ``d``, row-major of ``shape`` (``info``: its ``_cinfo``), as its flat run (nothing to
    broadcast or convert; the output is row-major, as TensorIterator lays out same-layout
    operands); None when absent; ``_NO_FAST`` when the general path must decide (another type or
    layout, a float32 overflow: its error)."""
    if v is None:
        return None
    tv = type(v)
    if tv is Tensor or tv in SUBCLASSES:
        if not info or v._dtype is not d or v._layout.shape != shape:
            return _NO_FAST
        run = flat_run(v, info)
        return _NO_FAST if run is None else run
    if tv is float or (tv is int and -_EXACT_INT < v < _EXACT_INT):
        f = float(v)
        if d is float32 and (f > _F32_MAX or f < -_F32_MAX) and f - f == 0.0:  # finite beyond float32: refused there
            return _NO_FAST
        return d.numpy.type(f)  # (float32(finite f <= max) rounds, never overflows)
    return _NO_FAST


_EXACT_INT = 2**53
_F32_MAX = float(np.finfo(np.float32).max)


def _beyond_f32(v: float | None) -> bool:
    """Whether the float bound ``v`` is finite beyond float32's range (refused there: the general
    path's error, as :func:`_fast_bound` leaves it)."""
    return v is not None and (v > _F32_MAX or v < -_F32_MAX) and v - v == 0.0
_NO_FAST = object()


def _fast_clamp(x: Any, min: Any, max: Any) -> Tensor | None:  # noqa: A002
    """``clamp`` of a row-major float32 / float64 tensor between Python numbers: the clip ufunc
    (or maximum / minimum for one bound) on the flat run, in the tensor's dtype (the result dtype
    :func:`_clamp` finds for these operands), with the bounds converted as there. None where the
    general path must run."""
    if (x.__class__ is not Tensor and x.__class__ not in SUBCLASSES) or (min is None and max is None):
        return None
    d = x._dtype
    if d is not float32 and d is not float64:
        return None
    lay = x._layout
    info = _cinfo[lay.shape]
    if (min is None or min.__class__ is float) and (max is None or max.__class__ is float) and (
            d is float64 or ((min is None or -_F32_MAX <= min <= _F32_MAX) and (max is None or -_F32_MAX <= max <= _F32_MAX))
            or not (_beyond_f32(min) or _beyond_f32(max))):  # (in float32's range: no call; else NaN, inf, beyond)
        # Python float bounds (the common call): straight to the compiled pass, which casts them to
        # the dtype as _fast_bound's numpy scalar does (C's double-to-float rounding), without it
        arr = flat_run(x, info)
        k = special() if arr is not None else None
        if k is not None and arr.flags.aligned:
            res = np.empty(info[1], d.numpy)
            if k.clamp_scalar(arr, res, 0.0 if min is None else min, 0.0 if max is None else max,
                              (min is not None) + 2 * (max is not None)):
                return adopted(res, info[2], d)
    lo, hi = _fast_bound(min, d, lay.shape, info), _fast_bound(max, d, lay.shape, info)
    if lo is _NO_FAST or hi is _NO_FAST:
        return _permuted_extreme(x, min, max)
    numbers = lo.__class__ is not np.ndarray and hi.__class__ is not np.ndarray
    arr = flat_run(x, info)
    if arr is None:
        return _dense_clamp(x, lo, hi, info[1]) if numbers else None
    if numbers:
        res = _compiled_clamp(arr, lo, hi)  # (None: NumPy's below)
        if res is not None:
            return adopted(res, info[2], d)
    elif lo is None or hi is None:  # (one tensor bound: PyTorch's maximum / minimum, its bits)
        res = torch_extremes.MAXIMUM_FRESH(arr, lo) if hi is None else torch_extremes.MINIMUM_FRESH(arr, hi)
        if res is not None:
            return adopted(res, info[2], d)
    token = _quiet_set(_QUIET)
    try:
        if lo is None:
            res = np.minimum(arr, hi)
        elif hi is None:
            res = np.maximum(arr, lo)
        else:
            res = _clip(arr, lo, hi)
        keep_tied_zeros(tied_zeros(arr, lo, hi, arr.shape), res)  # (-0.0 clamped at 0 stays -0.0, as in PyTorch)
    finally:
        _quiet_reset(token)
    if not numbers:  # (a tensor bound: PyTorch's bits of ties and NaNs depend on its loop; one row here)
        if lo is None or hi is None:
            torch_extremes.fix_flat("min" if lo is None else "max", (arr, hi if lo is None else lo), res)
        else:
            torch_extremes.fix_flat("clamp", (arr, lo, hi), res)
    return adopted(res, info[2], d)


def _one_tensor_bound(x: Any, bound: Tensor, is_min: bool) -> Tensor | None:
    """``clamp_min`` (``is_min``) / ``clamp_max`` of a row-major float32 / float64 tensor by a
    plain tensor bound of its dtype and shape: :func:`_fast_clamp`'s tensor-bound path (PyTorch's
    maximum / minimum bits on the two flat runs) without its number tests; None where
    :func:`_clamp` must run."""
    d = x._dtype if x.__class__ is Tensor else None
    if (d is not float32 and d is not float64) or bound._dtype is not d or bound._layout.shape != x._layout.shape:
        return None
    info = _cinfo[x._layout.shape]
    arr, run = flat_run(x, info), flat_run(bound, info)
    if arr is None or run is None:
        return None
    res = (torch_extremes.MAXIMUM_FRESH if is_min else torch_extremes.MINIMUM_FRESH)(arr, run)
    if res is None:
        return None
    t = adopted(res, info[2], d)
    if OPEN:
        report("clamp", (x, bound), t)
    return t


def _permuted_extreme(x: Tensor, min: Any, max: Any) -> Tensor | None:  # noqa: A002
    """``clamp_min`` / ``clamp_max`` (one bound, a tensor) of a float32 / float64 ``x`` laid out
    densely but not row-major (a transpose) by a bound of its dtype, shape and strides: PyTorch's
    loop walks the two as one contiguous row in memory order (TensorIterator merges the permuted
    dims), so the compiled maximum / minimum with its bits runs on the two storage runs, the result
    laid out with those strides (the general path: NumPy's maximum, then a pass for zeros and NaNs,
    2.3x the time). None where that does not apply."""
    bound = max if min is None else min
    if (min is None) == (max is None) or (type(bound) is not Tensor and type(bound) not in SUBCLASSES):
        return None
    la, lb = x._layout, bound._layout
    if bound._dtype is not x._dtype or lb.shape != la.shape or lb.strides != la.strides:
        return None
    from .binary import _flat_plans  # (binary imports this module)

    n, lay, _ = _flat_plans[(la.shape, la.strides)]
    if lay is None or n < 2:
        return None
    xr = x._storage.array[la.offset: la.offset + n]
    br = bound._storage.array[lb.offset: lb.offset + n]
    if len(xr) != n or len(br) != n:
        return None
    res = torch_extremes.extreme_fresh(min is not None, xr, br)
    return None if res is None else adopted(res, lay, x._dtype)


def _compiled_clamp(run: np.ndarray, lo: Any, hi: Any) -> np.ndarray | None:
    """The clamp of the 1-D contiguous ``run`` by number bounds (numpy scalars of its dtype, or None)
    in one compiled pass (NumPy's maximum/minimum: ~3x PyTorch's time on float32), ties keeping
    ``run``'s zero as in PyTorch; None where the kernel is off or refuses (a NaN bound, unaligned)."""
    k = special()
    if k is None or not run.flags.aligned:
        return None
    res = np.empty(run.shape, run.dtype)
    if k.clamp_scalar(run, res, 0.0 if lo is None else float(lo), 0.0 if hi is None else float(hi),
                      (lo is not None) + 2 * (hi is not None)):
        return res
    return None


def _dense_clamp(x: Tensor, lo: Any, hi: Any, numel: int) -> Tensor | None:
    """:func:`_fast_clamp` of a permuted dense ``x`` (every dim of size >= 2, its strides a
    permutation of row-major ones: a transpose) by number bounds: the compiled pass over its
    storage run in memory order, the result laid out with ``x``'s strides (TensorIterator's output
    for one dense operand). None where that does not apply (the general path runs)."""
    dense = dense_run(x, numel)  # (its layout remembered: a loop's calls skip the dense test)
    if dense is None:
        return None
    res = _compiled_clamp(dense[0], lo, hi)
    return None if res is None else adopted(res, dense[1], x._dtype)


def _clamp(x: Any, min: Any, max: Any, target: Tensor | None,  # noqa: A002
           loop_out: Tensor | None = None, one_bound_op: bool = False) -> Tensor:
    """``clamp`` into a fresh result (``target`` None) or in place; ``loop_out``: the ``out=`` the
    fresh result will be copied into (its layout decides PyTorch's loop for tensor bounds);
    ``one_bound_op``: called as ``clamp_min`` / ``clamp_max`` (whose tensor-bound form is
    PyTorch's ``maximum`` / ``minimum`` kernel, with its checks and messages)."""
    if target is None and (loop_out is None or not (isinstance(min, Tensor) or isinstance(max, Tensor))):
        t = _fast_clamp(x, min, max)
        if t is not None:
            if OPEN:  # (the operands' tuple only for a listener: a tenth of this call otherwise)
                report("clamp", tuple(v for v in (x, min, max) if v is not None), t)
            return t
    # Note: PyTorch refuses one scalar and one tensor bound together (a TypeError from its
    # argument parser); we accept the mix and broadcast the tensor bound.
    name = "clamp" if target is None else "clamp_"
    if not isinstance(x, Tensor):
        raise StridedTypeError(
            join_lines(
                f"{name}(): argument 'input' (position 1) must be Tensor, not {type(x).__name__}",
                f"got {x!r:.60}; make a tensor first: strided.clamp(strided.tensor(data), min, max)",
            )
        )
    if min is None and max is None:
        raise StridedRuntimeError(
            join_lines(
                "torch.clamp: At least one of 'min' or 'max' must not be None",
                f"{name}() was given neither bound for the {x._dtype.name} tensor of shape {x.shape}; "
                f"pass min=, max= or both, e.g. x.{name}(min=0) or x.{name}(0, 1)",
            )
        )
    if x._dtype.is_floating_point:
        min, max = _real_bound(min, x, name), _real_bound(max, x, name)
    lo = _operand(min, name) if min is not None else None
    hi = _operand(max, name) if max is not None else None
    bounds = [v for v in (lo, hi) if v is not None]
    operands = [x, *bounds]
    if not x._dtype.is_floating_point and any(type(v) is UInt64Scalar for v in bounds):
        _check_uint64_scalars(operands, name)  # (PyTorch promotes only for a non-float input)
    rt = result_type_of_classes(tuple(operand_class(v) for v in operands))
    tensor_bound = any(isinstance(v, Tensor) for v in bounds)
    if target is not None and ((one_bound_op and tensor_bound) or (not x._dtype.is_floating_point and not tensor_bound)):
        # (PyTorch's clamp_ with number bounds refuses a promotion of a non-floating tensor
        # before it looks at complex bounds: its RuntimeError, not NotImplementedError)
        _check_inplace(target, name, rt, target._layout.shape, cpp_target=not tensor_bound)
    # (complex only: the uint16-64 and per-dtype tables name clamp_min.tensor's kernel already)
    alone = ".alone" if one_bound_op and tensor_bound and rt.is_complex else ""
    _check_support(_clamp_kernel(min, max, bounds) + alone, rt, tuple(operands))
    if rt is bool_:
        tensors = [isinstance(v, Tensor) for v in bounds]
        if not any(tensors):
            kernel = ("clamp_scalar_cpu" if len(bounds) == 2 else
                      "clamp_min_scalar_cpu" if min is not None else "clamp_max_scalar_cpu")
            raise _not_implemented(kernel, rt, tuple(operands))
        if len(bounds) == 2:
            raise _not_implemented("clamp_cpu", rt, tuple(operands))
    names = ("input", "min", "max") if min is not None and max is not None else (
        ("input", "min") if min is not None else ("input", "max"))
    shape = _broadcast(name, operands, names)
    if target is None:
        if all(not isinstance(v, Tensor) for v in bounds):
            # PyTorch runs clamp(tensor, scalars) as a unary op over input.to(result dtype)
            out = _fresh_output(shape, rt, [x], rt)
        else:
            out = _fresh_output(shape, rt, operands, rt)
    else:
        _check_inplace(target, name, rt, shape)
        # (one bound: clamp of an element by itself is that element)
        _check_partial_overlap(target, bounds, name, idempotent=min is None or max is None)
        out = target
    if lo is not None and hi is not None and rt.is_floating_point and (_nan_number(lo) or _nan_number(hi)):
        # PyTorch's clamp with two number bounds, one NaN, fills NaN before it converts them
        # (float32.clamp(nan, 1e300) is NaN, not the overflow of 1e300)
        _view(out)[...] = np.nan
        return report(name, (x, *bounds), out)
    # A Python bound must fit the result dtype: PyTorch refuses uint8.clamp(0, 300) rather
    # than wrap 300 to 44 (checked before anything is written).
    lo_arg = _bound_arg(lo, rt, name, "min")
    hi_arg = _bound_arg(hi, rt, name, "max")
    if rt.is_floating_point and any(isinstance(v, Tensor) for v in bounds):
        _tensor_bound_clamp(x, lo, hi, lo_arg, hi_arg, out, target is None, loop_out, rt)
        return report(name, (x, *bounds), out)
    clamp_into(_view(x), lo_arg, hi_arg, _view(out), rt.numpy)
    return report(name, (x, *bounds), out)


def _tensor_bound_clamp(x: Tensor, lo: Any, hi: Any, lo_arg: Any, hi_arg: Any, out: Tensor, fresh: bool,
                        loop_out: Tensor | None, rt: Any) -> None:
    """A float clamp with a tensor bound (``clamp(x, lo, hi)``, ``clamp_min(x, t)``, ...) into
    ``out``, with PyTorch's bits for ties of opposite zeros and NaNs, which depend on the loop that
    computes the element (:mod:`strided.kernels.torch_extremes`; one bound is maximum / minimum):
    computed into ``out`` where it is ``fresh``, else into a fresh array (the operands are read
    again after it, and an in-place ``out`` is one of them), then written."""
    from .binary import _loop_layout, _loop_operand

    cd = rt.numpy
    if cd.itemsize == 2:  # (operands of another dtype converted as PyTorch does: through float32)
        lo_arg, hi_arg = (_reduced(v, cd) for v in (lo_arg, hi_arg))
    xa = _reduced(_view(x), cd) if cd.itemsize == 2 else _view(x)
    # (a fresh out is no operand: computed there, in its own walk, with no copy after)
    direct = fresh and out._dtype is rt
    res = _view(out) if direct else np.empty(out._layout.shape, cd)
    clamp_into(xa, lo_arg, hi_arg, res, cd)
    tensors = [t for t in (x, lo, hi) if t is not None]
    def mask() -> np.ndarray | None:
        return torch_extremes.loop_mask(*_loop_layout(out, fresh, loop_out), [_loop_operand(t, rt) for t in tensors], cd)

    args = [np.asarray(xa)] + [np.asarray(v) if isinstance(t, Tensor) else v for t, v in ((lo, lo_arg), (hi, hi_arg))
                               if t is not None]
    if lo is not None and hi is not None:
        torch_extremes.fix("clamp", args, res, mask)
    else:
        torch_extremes.fix("max" if lo is not None else "min", args, res, mask)
    if not direct:
        assign(_view(out), res)


def _reduced(v: Any, cd: np.dtype) -> Any:
    """An array operand ``v`` of another dtype in the 2-byte float ``cd``, converted as PyTorch
    converts it (through float32: :func:`strided.kernels.memory.reduced_cast_source`); anything
    else as it is."""
    if not isinstance(v, np.ndarray) or v.dtype == cd:
        return v
    return quiet_call(np.asarray(quiet_call(reduced_cast_source, cd, v)).astype, cd)


def _nan_number(v: Any) -> bool:
    """Whether ``v`` is a number (not a tensor) that is NaN."""
    return isinstance(v, (float, np.floating)) and v != v


def _real_bound(bound: Any, x: Tensor, op: str) -> Any:
    """A number bound of ``clamp(x, ...)`` for a floating ``x`` as PyTorch reads it: its clamp
    keeps a floating tensor's dtype and converts each number bound to double, so a complex one
    with a zero imaginary part is its real part (``x.clamp(1+0j)`` clamps at 1.0) and any other
    is its conversion error. Other bounds (tensors, real numbers, None) pass unchanged; the
    one-bound ops ``clamp_min``/``clamp_max`` refuse complex bounds before this. Only a Python
    ``complex`` (``np.complex128`` included: its subclass) is complex to PyTorch's argument parser;
    ``np.complex64`` and ``np.clongdouble`` reach it as floats (their real parts, whatever the
    imaginary one), as :func:`_operand` reads them: they pass unchanged."""
    if not isinstance(bound, complex):
        return bound
    if bound.imag != 0:
        raise StridedRuntimeError(join_lines(
            "value cannot be converted to type double without overflow",
            f"{op}() was given {bound!r} as a bound of a {x._dtype.name} tensor; PyTorch reads a floating "
            "tensor's clamp bounds as real numbers: pass the real part, or clamp .real and .imag apart"))
    return float(bound.real)


def _no_complex_bound(bound: Any, op: str) -> None:
    """``clamp_min``/``clamp_max``'s refusal of a complex number bound (PyTorch's
    NotImplementedError, whatever the input's dtype, even ``1+0j``); a Python ``complex`` only, as
    in :func:`_real_bound` (PyTorch clamps at ``np.complex64``'s real part)."""
    if isinstance(bound, complex):
        raise StridedNotImplementedError(join_lines(
            "clamp is not supported for complex types",
            f"{op}() was given the complex bound {bound!r}; pass a real number (clamp(min=) reads "
            "a floating tensor's complex bound with a zero imaginary part as its real part)"))


def _clamp_kernel(min: Any, max: Any, bounds: list) -> str:  # noqa: A002
    """The name :mod:`strided.ops._support.support` knows this clamp by (PyTorch's kernels differ by case)."""
    which = "clamp" if min is not None and max is not None else "clamp_min" if min is not None else "clamp_max"
    return which + ".tensor" if any(isinstance(v, Tensor) for v in bounds) else which


def _bound_arg(bound: Any, rt: DType, op: str, which: str) -> Any:
    """A clamp bound for the kernel: a tensor's NumPy view, a Python number checked against
    the result dtype (:func:`strided.scalars.checked`), or None."""
    if bound is None or isinstance(bound, Tensor):
        return None if bound is None else _view(bound)
    return checked(bound, rt, op, f"{which}=")


def _mixed_bounds(op: str, min: Any, max: Any, out: Any = None) -> None:  # noqa: A002
    """PyTorch's refusal of a tensor bound (with dims) beside a number bound: its ``clamp`` has a
    tensors overload and a numbers one (a 0-d tensor passes as a number; None fits either), and
    no call mixes them (a TypeError from its argument parser)."""
    kinds = [None if b is None else ("Tensor" if b.ndim else None) if isinstance(b, Tensor) else "Number"
             for b in (min, max)]
    if "Tensor" not in kinds or "Number" not in kinds:
        return
    got = ", ".join(["Tensor"] + [f"{n}={type(b).__name__}" for n, b in (("min", min), ("max", max))]
                    + (["out=Tensor"] if out is not None else []))
    raise StridedTypeError(
        f"{op}() received an invalid combination of arguments - got ({got}), but expected one of:\n"
        " * (Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None)\n"
        " * (Tensor input, Number min = None, Number max = None, *, Tensor out = None)\n"
        "  fix: both bounds tensors (strided.tensor(0.5) for the number) or both numbers")


def _refuse_promoting_itself(input: Any, min: Any, max: Any, out: Any, name: str) -> None:  # noqa: A002
    """clamp / clamp_min / clamp_max's ``out=`` the integer (or bool) ``input`` itself with number
    bounds: PyTorch's clamp meta takes that as its in-place form and refuses a promoted result
    type naming the tensor's C++ type ("result type Float can't be cast to the desired output
    type long int"), where another ``out=`` (a view of the input too) gets the unary op's
    exact-dtype check. Nothing here where ``out`` is not ``input`` or a bound is a tensor."""
    if out is not input or not isinstance(input, Tensor) or input._dtype.is_floating_point:
        return
    bounds = [v for v in (min, max) if v is not None]
    if not bounds or any(isinstance(v, Tensor) for v in bounds):
        return
    operands = (input, *(_operand(v, name) for v in bounds))
    rt = result_type_of_classes(tuple(operand_class(v) for v in operands))
    if rt is not input._dtype:
        _check_inplace(input, name + "_", rt, input._layout.shape, cpp_target=True)


def clamp(input: Any, min: Any = None, max: Any = None, *, out: Any = None) -> Tensor:  # noqa: A002
    """``min(max(input, min), max)`` elementwise; bounds are Python scalars or tensors (broadcast).

    The result dtype is ``result_type(input, min, max)`` (an int tensor clamped at 0.5 is
    float32). If ``min > max`` every element becomes ``max``, as in PyTorch. ``out=``: see
    :func:`strided.ops._support.out.write_out`.

    >>> strided.tensor([-2, 0, 5]).clamp(min=-1, max=3).tolist()
    [-1, 0, 3]
    """
    if min is not None and max is not None and (isinstance(min, Tensor) or isinstance(max, Tensor)):
        _mixed_bounds("clamp", min, max, out)  # (no Tensor bound: nothing it could refuse)
    if out is not None:
        _refuse_promoting_itself(input, min, max, out, "clamp")
        # (number bounds: PyTorch runs a unary op, whose out= must have the result's dtype exactly)
        same = "" if isinstance(min, Tensor) or isinstance(max, Tensor) else "found"
        loop_out = out if isinstance(out, Tensor) else None
        return write_out(out, _clamp(input, min, max, None, loop_out), "clamp", (input, min, max), same_dtype=same,
                         plain_loop=True)
    return _clamp(input, min, max, None)


def clamp_min(input: Any, min: Any, *, out: Any = None) -> Tensor:  # noqa: A002
    """:func:`clamp` with a lower bound only (``torch.clamp_min``), the gradient clamp's.

    >>> strided.tensor([-2.0, 0.5]).clamp_min(0).tolist()
    [0.0, 0.5]
    """
    if out is not None:  # (as clamp's out=: a number bound takes only the result's dtype, a tensor casts)
        _refuse_promoting_itself(input, min, None, out, "clamp_min")
        # (a tensor bound: PyTorch's loop walks out's layout, which decides its NaN words, as clamp's out=)
        res = (_clamp(input, min, None, None, out, one_bound_op=True) if isinstance(min, Tensor) and isinstance(out, Tensor)
               else clamp_min(input, min))
        return write_out(out, res, "clamp_min", (input, min), "" if isinstance(min, Tensor) else "found")
    if min.__class__ is Tensor and (t := _one_tensor_bound(input, min, True)) is not None:
        return t
    _no_complex_bound(min, "clamp_min")
    return _clamp(input, min, None, None, one_bound_op=True)  # (clamp's body: this op's own entry has recorded and reported)


def clamp_max(input: Any, max: Any, *, out: Any = None) -> Tensor:  # noqa: A002
    """:func:`clamp` with an upper bound only (``torch.clamp_max``), the gradient clamp's.

    >>> strided.clamp_max(strided.tensor([1, 5]), 2.5).tolist()
    [1.0, 2.5]
    """
    if out is not None:  # (as clamp's out=: a number bound takes only the result's dtype, a tensor casts)
        _refuse_promoting_itself(input, None, max, out, "clamp_max")
        # (a tensor bound: PyTorch's loop walks out's layout, which decides its NaN words, as clamp's out=)
        res = (_clamp(input, None, max, None, out, one_bound_op=True) if isinstance(max, Tensor) and isinstance(out, Tensor)
               else clamp_max(input, max))
        return write_out(out, res, "clamp_max", (input, max), "" if isinstance(max, Tensor) else "found")
    if max.__class__ is Tensor and (t := _one_tensor_bound(input, max, False)) is not None:
        return t
    _no_complex_bound(max, "clamp_max")
    return _clamp(input, None, max, None, one_bound_op=True)  # (clamp's body: this op's own entry has recorded and reported)


def clamp_(self: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
    """In-place :func:`clamp`.

    >>> x = strided.tensor([-2.0, 0.5, 3.0])
    >>> x.clamp_(0.0, 1.0).tolist(), x.tolist()
    ([0.0, 0.5, 1.0], [0.0, 0.5, 1.0])
    """
    if min is not None and max is not None:
        _mixed_bounds("clamp_", min, max)
    try:
        return _clamp(self, min, max, self)
    except UpdatesInOrder as refusal:  # (a target whose elements share memory: PyTorch's updates)
        return updates_in_order(clamp_, self, (min, max), {}, refusal)


def clamp_min_(self: Tensor, min: Any) -> Tensor:  # noqa: A002
    """In-place :func:`clamp_min`.

    >>> x = strided.tensor([-2.0, 0.5])
    >>> x.clamp_min_(0.0) is x, x.tolist()
    (True, [0.0, 0.5])
    """
    _no_complex_bound(min, "clamp_min_")
    try:
        return _clamp(self, min, None, self, one_bound_op=True)
    except UpdatesInOrder as refusal:  # (a target whose elements share memory: PyTorch's updates)
        return updates_in_order(clamp_min_, self, (min,), {}, refusal)


def clamp_max_(self: Tensor, max: Any) -> Tensor:  # noqa: A002
    """In-place :func:`clamp_max`.

    >>> x = strided.tensor([-2.0, 0.5])
    >>> x.clamp_max_(0.0) is x, x.tolist()
    (True, [-2.0, 0.0])
    """
    _no_complex_bound(max, "clamp_max_")
    try:
        return _clamp(self, None, max, self, one_bound_op=True)
    except UpdatesInOrder as refusal:  # (a target whose elements share memory: PyTorch's updates)
        return updates_in_order(clamp_max_, self, (max,), {}, refusal)


def _clamp_direct(self: Tensor, args: tuple, kwargs: dict) -> bool:
    """The in-place entry's direct call of ``clamp_`` (:func:`strided.grad_mode.track_inplace`):
    ``self.clamp_(min, max)``, ``clamp_(min)``, ``clamp_(min=, max=)`` of a plain row-major float32 /
    float64 tensor with writable memory, by Python float bounds inside float32's finite range (or ints
    of at most 2**24, exact in both dtypes): :func:`_fast_clamp`'s compiled ``clamp_scalar`` pass (the
    general path's bits, its signed zeros and NaNs) into a fresh run, copied over ``self``'s. Then
    every check of :func:`clamp_` passes (no promotion, no overlap, no tensor bound). False (nothing
    written) for any other call, which the method takes as before."""
    if kwargs:
        if args or not kwargs.keys() <= _CLAMP_KEYS:
            return False
        lo, hi = kwargs.get("min"), kwargs.get("max")
    elif len(args) == 1:
        lo, hi = args[0], None
    elif len(args) == 2:
        lo, hi = args
    else:
        return False
    return _clamp_inplace_flat(self, lo, hi)


_CLAMP_KEYS = frozenset(("min", "max"))


def _exact_bound(v: Any) -> bool:
    """A bound :func:`_clamp_inplace_flat` takes: None, a Python float in float32's finite range, or
    an int of at most 2**24 in magnitude (exact in float32 and float64, as the general path converts it)."""
    return v is None or (v.__class__ is float and -_F32_MAX <= v <= _F32_MAX) or (
        v.__class__ is int and -16777216 <= v <= 16777216)


def _clamp_inplace_flat(self: Tensor, lo: Any, hi: Any) -> bool:
    """``self`` clamped in place to ``[lo, hi]`` (None: no such bound) on its flat run, where
    :func:`_clamp_direct` says so; False (nothing written) otherwise."""
    if self.__class__ is not Tensor or (lo is None and hi is None) or not (_exact_bound(lo) and _exact_bound(hi)):
        return False
    d = self._dtype
    if d is not float32 and d is not float64:
        return False
    info = _cinfo[self._layout.shape]
    arr = flat_run(self, info)
    if arr is None or not arr.flags.writeable or not arr.flags.aligned:
        return False
    k = special()
    if k is None:
        return False
    res = np.empty(info[1], d.numpy)
    if not k.clamp_scalar(arr, res, 0.0 if lo is None else float(lo), 0.0 if hi is None else float(hi),
                          (lo is not None) + 2 * (hi is not None)):
        return False
    arr[...] = res
    return True


clamp_.__direct__ = _clamp_direct  # type: ignore[attr-defined]  # (the in-place entry's first call)
clamp_min_.__direct__ = lambda self, args, kwargs: (  # type: ignore[attr-defined]
    not kwargs and len(args) == 1 and args[0] is not None and _clamp_inplace_flat(self, args[0], None))
clamp_max_.__direct__ = lambda self, args, kwargs: (  # type: ignore[attr-defined]
    not kwargs and len(args) == 1 and args[0] is not None and _clamp_inplace_flat(self, None, args[0]))

clip = clamp


_ONE_ARG = object()  # where(condition) alone: nonzero(condition, as_tuple=True)


def _fast_where(condition: Any, input: Any, other: Any) -> Tensor | None:  # noqa: A002
    """``where`` of a row-major bool condition between row-major float32 / float64 tensors of its
    shape and dtype (or three tensors of one dense permuted layout: a transpose), or one such
    tensor and a Python number (converted and refused as the general
    path's ``filled`` does): ``np.where`` on the flat runs picks the same elements the general
    path's two copies write (a pure selection). None where the general path must run."""
    if (condition.__class__ is not Tensor and condition.__class__ not in SUBCLASSES) or condition._dtype is not bool_:
        return None
    tensor = input if isinstance(input, Tensor) else other
    if (tensor.__class__ is not Tensor and tensor.__class__ not in SUBCLASSES):
        return None
    d = tensor._dtype
    if d is not float32 and d is not float64:
        return None
    lc = condition._layout
    shape = lc.shape
    info = _cinfo[shape]
    strides, n = info[0], info[1]
    if input.__class__ is Tensor and other.__class__ is Tensor:
        # (two plain tensors: the runs cut inline, the selection by the compiled select_runs into
        # np.empty, its bits, where it is built and on: np.where alone was ~0.9 us of a (3, 4) where)
        li, lo = input._layout, other._layout
        k = special()
        if (k is None or input._dtype is not d or other._dtype is not d or li.shape != shape or lo.shape != shape
                or li.strides != lc.strides or lo.strides != lc.strides):
            return None if k is not None else _where_runs(condition, input, other, d, shape, info)
        layout = info[2]
        if lc.strides != strides:
            # one dense permutation shared by the three (a transpose): TensorIterator walks them as
            # one run in memory order and lays the result out so; else the general path
            from .binary import _flat_plans  # (binary imports this module)

            n, layout, _ = _flat_plans[(shape, lc.strides)]
            if layout is None:
                return None
        c, x, y = condition._storage.array, input._storage.array, other._storage.array
        if lc.offset or len(c) != n:
            c = c[lc.offset : lc.offset + n]
        if li.offset or len(x) != n:
            x = x[li.offset : li.offset + n]
        if lo.offset or len(y) != n:
            y = y[lo.offset : lo.offset + n]
        res = np.empty(n, x.dtype)
        if len(c) == n and len(x) == n and len(y) == n and k.select_runs(c, x, y, res):
            return adopted(res, layout, d)
        if layout is not info[2]:
            return None
    return _where_runs(condition, input, other, d, shape, info)


def _where_runs(condition: Any, input: Any, other: Any, d: Any, shape: tuple, info: tuple) -> Tensor | None:  # noqa: A002
    """:func:`_fast_where`'s NumPy selection: the flat runs (or a number's 0-d array) through
    ``np.where``; None where the general path must run."""
    strides, n = info[0], info[1]
    runs = []
    for v in (condition, input, other):
        if isinstance(v, Tensor):  # (flat_run, inlined: three calls are a fifth of a small where)
            lay = v._layout
            if (v._dtype is not d and v is not condition) or lay.shape != shape or lay.strides != strides:
                return None
            arr = v._storage.array
            if lay.offset or len(arr) != n:
                arr = arr[lay.offset : lay.offset + n]
                if len(arr) != n:  # (a tensor unpickled past its storage: the general path refuses it)
                    return None
        else:
            arr = _fast_bound(v, d)
            if arr is None or arr is _NO_FAST:  # (None is no number: the general path says so)
                return None
        runs.append(arr)
    return adopted(np.where(runs[0], runs[1], runs[2]), info[2], d)


_UINT8_WARNED = [False]


def _warn_uint8_condition() -> None:
    """PyTorch's TORCH_WARN_ONCE for a uint8 ``where`` condition: a UserWarning, the first time
    in the process only; the condition is then read as ``condition != 0``."""
    if not _UINT8_WARNED[0]:
        _UINT8_WARNED[0] = True
        warnings.warn("where received a uint8 condition tensor. This behavior is deprecated and will be removed "
                      "in a future version of PyTorch. Use a boolean condition instead.", UserWarning, stacklevel=3)


def where(condition: Any, input: Any = _ONE_ARG, other: Any = _ONE_ARG, *, out: Any = None) -> Any:  # noqa: A002
    """``input`` where ``condition`` is True, else ``other``; all three broadcast together.

    ``condition`` must be a bool tensor (a uint8 one is read as ``!= 0``, with PyTorch's
    deprecation warning, once); ``input``/``other`` are tensors or Python scalars,
    and the result dtype is ``result_type(input, other)``. With ``condition`` alone, as in
    PyTorch, the tuple of its non-zero positions: ``nonzero(condition, as_tuple=True)``.

    >>> x = strided.tensor([-1.0, 2.0, -3.0])
    >>> strided.where(x > 0, x, 0.0).tolist()
    [0.0, 2.0, 0.0]
    """
    if input is _ONE_ARG and other is _ONE_ARG:
        from ..indexing.masked import nonzero  # (masked sits beside this module; imported on use)

        return nonzero(condition, as_tuple=True)
    if input is _ONE_ARG or other is _ONE_ARG:
        raise StridedTypeError(
            join_lines(
                "where() missing required argument 'input' or 'other'",
                "where takes one argument (the positions of the non-zero elements) or three "
                "(condition, input, other)",
            )
        )
    if not isinstance(condition, Tensor):
        raise StridedTypeError(
            join_lines(
                f"where(): argument 'condition' (position 1) must be Tensor, not {type(condition).__name__}",
                f"got {condition!r:.60}; the condition is a bool tensor, usually a comparison: "
                "strided.where(x > 0, a, b)",
            )
        )
    if out is not None:
        # (PyTorch's where has no out= overload with a Python input or other: a TypeError)
        for value, name, pos in ((input, "input", 2), (other, "other", 3)):
            if not isinstance(value, Tensor):
                raise StridedTypeError(join_lines(
                    f"where(): argument '{name}' (position {pos}) must be Tensor, not {type(value).__name__}",
                    "where(..., out=) takes tensors only",
                    f"fix: pass a tensor, e.g. strided.tensor({value!r:.30}), or leave out= out"))
    byte = condition._dtype is uint8
    if byte:
        _warn_uint8_condition()
    elif condition._dtype is not bool_:
        raise StridedRuntimeError(
            join_lines(
                "where expected condition to be a boolean tensor, but got a tensor with dtype "
                f"{TORCH_NAMES[condition._dtype]}",
                "fix: compare explicitly, e.g. strided.where(mask != 0, a, b)",
            )
        )
    if out is None and not byte:
        t = _fast_where(condition, input, other)
        if t is not None:
            return report("where", (condition, input, other), t)
    a = _operand(input, "where")
    b = _operand(other, "where")
    if type(a) is UInt64Scalar or type(b) is UInt64Scalar:
        _check_uint64_scalars([a, b], "where")
    rt = result_type_of_classes((operand_class(a), operand_class(b)))
    operands = [condition, a, b]
    shape = _broadcast("where", operands, ("condition", "input", "other"))
    # PyTorch writes a Python operand into a one-element tensor of the result dtype first
    # (a fill_): 300 is refused for uint8, 1e40 for float32; float16 is not checked there.
    x = _view(a) if isinstance(a, Tensor) else filled(a, rt, "where", 1, "input")
    y = _view(b) if isinstance(b, Tensor) else filled(b, rt, "where", 1, "other")
    # (a uint8 condition: PyTorch's condition.to(kBool) first, a copy laid out by preserve_format,
    # which is the layout _fresh_output gives an operand of another dtype: skip_first off)
    result = _fresh_output(shape, rt, operands, rt, skip_first=not byte)
    where_into(_view(condition) if not byte else _view(condition) != 0, x, y, _view(result))
    if out is not None:

        return write_out(out, result, "where", (condition, a, b), "where")  # (out's dtype exactly, as PyTorch)
    return report("where", (condition, a, b), result)


@backward("where", operands="any")
def where_backward(out: Any, *args: Any, **kwargs: Any) -> Any:
    """WhereBackward0: each operand gets the gradient where it was picked (zeros elsewhere;
    the engine sums over the dims it was broadcast in). Called for ``where(condition, input,
    other)`` and for the method ``input.where(condition, other)``."""
    first = args[0] if args else None
    # input.where(condition, other): a first tensor that is no condition (bool, or PyTorch's
    # deprecated uint8: an integer input has no gradient either way)
    method = isinstance(first, Tensor) and first._dtype is not bool_ and first._dtype is not uint8
    bound = dict(zip(("input", "condition", "other") if method else ("condition", "input", "other"), args))
    bound.update(kwargs)
    condition, input, other = bound["condition"], bound.get("input", _ONE_ARG), bound.get("other", _ONE_ARG)  # noqa: A001
    if input is _ONE_ARG or other is _ONE_ARG:
        return None  # where(condition): positions, no gradient

    def grad(g: Tensor) -> tuple:
        return (where(condition, g, 0) if isinstance(input, Tensor) else None,
                where(condition, 0, g) if isinstance(other, Tensor) else None)

    return "WhereBackward0", (input, other), grad, (condition,)


def _where_method(self: Tensor, condition: Any, other: Any) -> Tensor:
    """``self.where(condition, other)`` is ``strided.where(condition, self, other)``.

    >>> x = strided.tensor([1.0, -1.0])
    >>> x.where(x > 0, 0.0).tolist()
    [1.0, 0.0]
    """
    return where(condition, self, other)


_METHODS += [
    (("clamp", "clip"), clamp), (("clamp_", "clip_"), clamp_), (("clamp_min",), clamp_min),
    (("clamp_max",), clamp_max), (("clamp_min_",), clamp_min_), (("clamp_max_",), clamp_max_),
    (("where",), _where_method),
]

for _names, _fn in _METHODS:
    method(*_names)(_fn)


# ---------------------------------------------------------------- backward rules (agmath)


@backward("clamp", "clip", operands="any")
def clamp_backward(out: Tensor, x: Tensor, min: Any = None, max: Any = None, **kwargs: Any) -> Any:  # noqa: A002
    """PyTorch's clamp_backward (number bounds: ClampBackward1) and clamp_backward_min_max (tensor
    bounds: ClampBackward0): the gradient passes where ``min <= x <= max``; a tensor bound gets it
    where it was the value taken (``x < min``, and ``min < max``; ``x > max``, or ``max < min``)."""
    lo, hi = min, max
    tensors = isinstance(lo, Tensor) or isinstance(hi, Tensor)

    def grads(g: Tensor) -> tuple:
        inside = None
        if lo is not None:
            inside = x >= lo
        if hi is not None:
            inside = (x <= hi) if inside is None else inside & (x <= hi)
        gx = where(inside, g, 0.0)
        if not tensors:
            return (gx,)
        glo = ghi = None
        if isinstance(lo, Tensor):
            took = x < lo
            if hi is not None:
                took = took & (lo < hi)
            glo = where(took, g, 0.0)
        if isinstance(hi, Tensor):
            took = x > hi
            if lo is not None:
                took = took | (hi < lo)
            ghi = where(took, g, 0.0)
        return gx, glo, ghi

    saved = tuple(t for t in (x, lo, hi) if isinstance(t, Tensor))
    if tensors:
        # Note: PyTorch refuses a number and a tensor bound together; strided accepts the mix and
        # records ClampBackward0 (the number bound gets no edge)
        return "ClampBackward0", (x, lo, hi), grads, saved
    return "ClampBackward1", (x,), grads, saved


@backward("clamp_min", operands="any")
def clamp_min_backward(out: Tensor, x: Tensor, min: Any) -> Any:  # noqa: A002
    """ClampMinBackward0 (a number bound) / ClampMinBackward1 (a tensor bound): clamp's rule,
    under PyTorch's names."""
    _, _, grads, saved = clamp_backward(out, x, min, None)
    if isinstance(min, Tensor):
        return "ClampMinBackward1", (x, min), lambda g: grads(g)[:2], saved
    return "ClampMinBackward0", (x,), grads, saved


@backward("clamp_max", operands="any")
def clamp_max_backward(out: Tensor, x: Tensor, max: Any) -> Any:  # noqa: A002
    """ClampMaxBackward0 / ClampMaxBackward1: clamp's rule, under PyTorch's names."""
    _, _, grads, saved = clamp_backward(out, x, None, max)
    if isinstance(max, Tensor):
        return "ClampMaxBackward1", (x, max), lambda g: (lambda r: (r[0], r[2]))(grads(g)), saved
    return "ClampMaxBackward0", (x,), grads, saved


seal(globals())  # (last: this module's ops with a backward rule become their recording entries)


def _install_bound_fronts(namespace: dict[str, Any]) -> None:
    """Put a compiled front (:mod:`.._support.front`) before the entries of ``clamp_min`` and
    ``clamp_max``: their call by a tensor bound of the input's dtype, shape and row-major layout
    (float32 / float64, outside autograd, nobody listening) runs :func:`_one_tensor_bound`'s
    compiled maximum / minimum (PyTorch's bits) from C; its None answer, and every other call (a
    number bound, another layout), goes to the entry."""
    for name, loop in (("clamp_min", torch_extremes.MAXIMUM_FRESH), ("clamp_max", torch_extremes.MINIMUM_FRESH)):
        entry = namespace[name]
        if Tensor.__dict__.get(name) is not entry:
            continue
        # (no fn: where the loop answers None, the entry's general path runs, as _one_tensor_bound's None)
        front = compiled_front(entry, 2, {d: (None, loop, 0, None, False, None) for d in (float32, float64)})
        setattr(Tensor, name, front)
        namespace[name] = front


_install_bound_fronts(globals())
# the kinds of this module's ops, in the op registry (after the seal: the forwards are the entries)
declare(Kind.COMPUTE, "clamp where clamp_min clamp_max", specs=(NEG, ABS, EXP, LOG, SQRT, SIN, COS, TANH, SIGMOID, RELU, BITWISE_NOT))
# (torch.relu_: the in-place relu of torch's namespace, an op of its own there; nn.functional's
# relu_ is its own function, input.relu_())
declare(Kind.WRITE, "relu_")
