"""The parameterized activations of ``torch.nn.functional`` as unary rows: ``silu``, ``softplus``,
``elu``, ``leaky_relu``, ``hardtanh`` (``relu``, ``sigmoid``, ``tanh`` are rows of
:mod:`strided.ops.elementwise.unary`, ``gelu`` of :mod:`strided.ops.elementwise.special`).

Each is one :class:`Activation` row: PyTorch's CPU kernel name (for the error on a non-float
input), its NumPy forward with the row's parameters (``alpha``, ``negative_slope``,
``beta``/``threshold``, ``min_val``/``max_val``), PyTorch's node name and its backward formula
(derivatives.yaml), written with strided's recording ops so a ``create_graph=True`` backward
differentiates it again. One function, :func:`_run`, runs every row: float inputs only, a
fresh output laid out as PyTorch's TensorIterator lays it out (or the input itself, in place),
float16 computed in float32 and rounded once.

Their rules are registered as ``"F.<name>"`` (``torch.Tensor`` has no ``silu`` method: these are
``nn.functional`` ops). The in-place forms (``silu_``, ...) back ``F.silu(x, inplace=True)``:
outside autograd they write ``x`` and count the write on its version counter; on a tensor in
the graph (grad mode on) they are ``x.copy_(silu(x.clone()))``, so autograd's in-place rules
apply as PyTorch's do (a leaf that requires grad is refused; a non-leaf's history is rewritten).

>>> silu(strided.tensor([0.0, 1.0], dtype=strided.float64)).tolist()  # doctest: +ELLIPSIS
[0.0, 0.731...]
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...dispatch import OPEN, adopted, report, result, result_array
from ...dtypes import (
    TORCH_NAME,
    DType,
    bfloat16,
    bool_,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    scalar_overflow,
    uint8,
)
from ...errors import (
    StridedNotImplementedError,
    StridedOverflowError,
    StridedRuntimeError,
    StridedTypeError,
    StridedValueError,
    join_lines,
)
from ...grad_mode import (
    _RECORDER,
    COUNTERS,
    GRAD_MODE,
    INFERENCE_STORAGES,
    STATE,
    SUBCLASSES,
    bump,
    count_write,
    entry_front,
    refuse_inference,
)
from ...grad_mode import _slow as _RECORDED_CALL
from ...gradients import NamedSaved, named_saved, seal
from ...kernels import check_writable, native, write
from ...kernels.blocked import copy_into
from ...kernels.elementwise import _ONE0, _TYPED0_DTYPES, _clip, typed0
from ...kernels.fpstate import QUIET, quiet_call, quiet_reset, quiet_retry, quiet_set
from ...kernels.memory import dense_run
from ...kernels.reduced_nans import all_ones_nans, has_nan, loop_nans
from ...kernels.sleef import ELU as _ELU_OP
from ...kernels.sleef import EXP_SPLIT as _EXP_SPLIT_OP
from ...kernels.sleef import EXPM1 as _EXPM1_OP
from ...kernels.sleef import SILU as _SILU_OP
from ...kernels.sleef import SOFTPLUS as _SOFTPLUS_OP
from ...kernels.sleef import flat_call, step, torch_loop
from ...kernels.torch_loops import scalar_loop_mask
from ...layout import elementwise_output_strides, preserve_format_strides
from ...layout import is_non_overlapping_and_dense as _dense
from ...opdef import Kind, declare
from ...tensor import Tensor, tensor_arg
from .._support.along import tensor_from_array
from .._support.front import compiled_front, compiled_inplace, kernel_entry
from .._support.gradtools import kernel_backward, linear_backward
from .._support.memo import Memo
from .._support.operands import _cinfo, _fresh_output, flat_run
from ..registry import backward
from .torch_lanes import nan_lanes, scalar_nans
from .unary import _compiled_clamp, where

__all__ = ["elu", "elu_", "hardtanh", "hardtanh_", "leaky_relu", "leaky_relu_", "silu", "silu_", "softplus"]


def compute_dtype(dtype: DType) -> np.dtype:
    """float16 is computed in float32 (PyTorch's CPU accumulation type), others in their own type."""
    return np.dtype(np.float32) if dtype.itemsize < 4 else dtype.numpy


def float_only(kernel: str, dtype: DType, op: str) -> StridedNotImplementedError:
    """PyTorch's NotImplementedError for ``F.<op>`` (CPU kernel ``kernel``) on a non-float ``dtype``."""
    return StridedNotImplementedError(
        join_lines(f'"{kernel}" not implemented for \'{TORCH_NAME[dtype.name]}\'',
                   f"{op} needs a float tensor, and the input is {dtype.name}",
                   f"fix: convert first: F.{op}(x.to(strided.float32))")
    )


@dataclass(frozen=True, eq=False)
class Activation:
    """One activation: ``forward(x, *params)`` on a NumPy array of the compute dtype;
    ``grad(g, x, *params)`` the input's gradient from strided's recording ops (what a
    ``create_graph=True`` backward runs); ``fused(x, g, *params)`` the same gradient in one NumPy
    pass (a first-order backward: nothing to record, one result instead of a chain of
    temporaries, as PyTorch's silu rule picks by grad mode); ``node`` PyTorch's node name;
    ``kernel`` PyTorch's CPU kernel (named when the input is not float); ``compiled(x, *params)``
    the forward's compiled pass alone for a 1-D contiguous float32 / float64 ``x`` (the small-op
    fast path's flat run), None where it does not take ``x`` (then ``forward`` runs): no NumPy
    arithmetic in it, so no floating-point state to quiet around it (a tenth of a small op)."""

    name: str
    kernel: str
    node: str
    forward: Callable[..., np.ndarray]
    grad: Callable[..., Tensor]
    fused: Callable[..., np.ndarray]
    compiled: Callable[..., np.ndarray | None] | None = None
    # ``integers(dtype, *params)``: the parameters for an integer input, for a row whose kernel
    # takes integers (threshold: PyTorch's ``Scalar::to<scalar_t>()``), raising PyTorch's refusals;
    # None: the row refuses every non-float input with :func:`float_only` (hardtanh: _integer_bounds)
    integers: Callable[..., tuple] | None = None
    # True: the result is row-major whatever the input's layout (PyTorch's rrelu_with_noise
    # allocates it so), not laid out as TensorIterator lays out the input's
    contiguous: bool = False
    # True: the in-place form writes an expanded (stride-0) target, each shared element its one
    # result, as PyTorch's threshold_ does (its kernel skips TensorIterator's overlap check)
    overlap_ok: bool = False
    # ``front(dtype)``: the :func:`.._support.front.kernel_entry` of the compiled pass ``compiled``
    # makes for the one-argument call (the default parameters) on a flat run of ``dtype`` (a numpy
    # dtype), for :func:`fresh_front`; None: the row has none there (or :func:`_front_kernel`'s own)
    front: Callable[[np.dtype], tuple | None] | None = None
    # ``vector_nans(values, shape, strides, dtype)``: where (a bool array of ``shape``, or None: nowhere)
    # PyTorch's vector lanes write the all-ones NaN word (0xFFFF...) for a NaN input, ``values`` the
    # input as the forward takes it, ``strides`` its layout's (in elements), ``dtype`` its DType;
    # the result's word there is made all-ones after the forward (hardsigmoid, hardswish)
    vector_nans: Callable[..., np.ndarray | None] | None = None
    # ``result_backward(*params)``: (node, alpha, scale, input_scale) of the node PyTorch's in-place
    # form of the row records on a tensor in the graph (elu_'s and selu_'s EluBackward1, celu_'s
    # CeluBackward1), whose gradient is elu_backward's from the result (:func:`_elu_inplace_in_graph`);
    # None: there, the row's in-place form is ``copy_`` of the out-of-place op of a clone
    result_backward: Callable[..., tuple[str, float, float, float]] | None = None
    # ``bf16_step()``: the elements per iteration of PyTorch's vector loop over a bfloat16 row
    # (:func:`bf16_wide` / :func:`bf16_narrow`), whose conversion back (``cvtfp32_bf16``) writes
    # every NaN result as 0xFFFF, where the scalar function's (a row's tail, a strided row, a 0-d
    # tensor) writes 0x7FC0 (:mod:`strided.kernels.reduced_nans`); 0: no vector loop (ATen's
    # DEFAULT capability), -1: every element a vector lane (log_sigmoid's own loop); None: the
    # cast's words (the NaN's sign kept), not measured for the row
    bf16_step: Callable[[], int] | None = None
    # ``typed``: the positions of the parameters PyTorch's kernel converts to the input's own dtype
    # (``Scalar::to<scalar_t>()``: c10::Half's overflow error for float16 past 65504) where the
    # others go to the compute type (float for float16 / bfloat16): hardtanh's bounds, threshold's
    # value, hardshrink's lambd (:func:`_check_params`)
    typed: tuple[int, ...] = ()
    # ``inplace_node``: the node PyTorch's in-place form of the row records on a tensor in the graph
    # when that node reads the old values (ThresholdBackward1 saves the original self): the row's
    # own out-of-place node over a copy of them, so named (:func:`_inplace_in_graph`)
    inplace_node: str | None = None
    # ``leaky_result(*params)``: (node, slope, named saved numbers) of a row whose in-place form
    # records leaky_relu_backward from the result (LeakyReluBackward1, RreluWithNoiseBackward1:
    # the result saved, so a later write of it fails the backward; a negative slope refused there)
    leaky_result: Callable[..., tuple[str, float, dict]] | None = None
    # ``second``: (node, double, names) of the node PyTorch records over the row's backward kernel
    # under create_graph (EluBackwardBackward0, SoftplusBackwardBackward0, ...; :func:`kernel_grad`):
    # ``double(gg, g, x, *params)`` the gradients towards the incoming gradient ``g`` and the input
    # ``x`` (derivatives.yaml's formulas), ``names(g, x, *params)`` its ``_saved_*``; None: the
    # row's ``grad`` recorded ops
    second: tuple[str, Callable[..., tuple], Callable[..., dict]] | None = None
    # ``names(x, *params)``: PyTorch's ``_saved_*`` of the row's own node (SoftplusBackward0's
    # beta, self, threshold); None: the node names none
    names: Callable[..., dict] | None = None
    # ``kernel_layout``: the first-order gradient is laid out as PyTorch's backward kernel's
    # TensorIterator lays out (grad_output, self) (elu_backward, softplus_backward,
    # log_sigmoid_backward: measured); False: row-major
    kernel_layout: bool = False


def bf16_wide() -> int:
    """``bf16_step`` of a kernel compiled at the capability's width: 2 ``Vectorized<BFloat16>``,
    64 elements under AVX512, 32 under AVX2 (measured: elu, selu, celu, softplus, silu, mish,
    hardswish, torch 2.13)."""
    return 2 * step()


def bf16_narrow() -> int:
    """``bf16_step`` of a kernel whose bfloat16 loop takes 32 elements under AVX512 and AVX2 alike
    (measured: hardsigmoid, leaky_relu, softshrink, torch 2.13); none under DEFAULT."""
    return 32 if step() else 0


def bf16_nan_words(out: Tensor, x: Tensor, step_: int, fresh: bool) -> None:
    """Give the NaNs of the bfloat16 result ``out`` of an elementwise op of ``x`` the words
    PyTorch's loop writes (``step_``: the row's ``bf16_step()``; ``fresh``: ``out`` was allocated
    for the result, else it is ``x`` written in place): 0xFFFF in its vector lanes, 0x7FC0 in its
    scalar function's elements (NumPy's cast keeps the NaN's sign: 0xFFC0 for a negative one)."""
    arr = out._np()
    if not has_nan(arr):
        return
    if step_ < 0:
        all_ones_nans(arr)
        return
    lay, xl = out._layout, x._layout
    scalar = (scalar_loop_mask(lay.shape, lay.strides, fresh, [(xl.shape, xl.strides)], step=step_)
              if step_ else np.ones(lay.shape, bool))
    loop_nans(arr, scalar)


def _silu_grad(g: Tensor, x: Tensor) -> Tensor:
    s = x.sigmoid()
    # PyTorch's infinitely_differentiable_silu_backward (grad mode on), in its order:
    # (g * s) * (1 + x (1 - s)); g * (s * (...)) was an ulp off in a fifth of float64 elements
    return g * s * (1 + x * (1 - s))


def _silu_fused(x: np.ndarray, g: np.ndarray) -> np.ndarray:
    s = 1 / (1 + np.exp(-x))
    return g * s * (1 + x * (1 - s))


def _silu(x: np.ndarray) -> np.ndarray:
    """``x / (1 + exp(-x))``, the 1 a 0-d array of ``x``'s dtype where it is float32 / float64 (a
    ufunc converts it in half the time of a Python int; the same bits) and the sum written over
    the exponential (fresh memory). float32 is PyTorch's bits where the compiled kernel runs
    (:func:`strided.kernels.sleef.torch_loop`: SLEEF's expf where PyTorch's loop is vectorized,
    the C library's where it is not), float64 likewise (SLEEF's expd); NumPy's ufuncs otherwise."""
    res = torch_loop(x, _SILU_OP)  # (float32 / float64: PyTorch's bits; None otherwise)
    if res is not None:
        return res
    e = np.exp(np.negative(x))
    one = _ONE0.get(x.dtype)
    if one is None or e.__class__ is not np.ndarray:  # (a 0-d x gives NumPy scalars: no out=)
        return x / (1 + e)
    np.add(one, e, out=e)
    return np.divide(x, e, out=e)


def _silu_compiled(x: np.ndarray) -> np.ndarray | None:
    return torch_loop(x, _SILU_OP)  # (None: neither float32 nor float64, or the kernel is off)


SILU = Activation("silu", "silu_cpu", "SiluBackward0", _silu, _silu_grad, _silu_fused, _silu_compiled,
                  bf16_step=bf16_wide, inplace_node="SiluBackward0")
# (PyTorch's softplus_backward: z / (z + 1) with z = exp(beta x) is sigmoid(beta x), without z's overflow)


def elu_second(row: Callable[[], Activation], coefs: Callable[..., tuple[float, float, float]]) -> tuple:
    """``second`` of an elu-kernel row (``row()`` the row, ``coefs(*params)`` its alpha, scale and
    input_scale): EluBackwardBackward0 with derivatives.yaml's formulas for ``elu_backward``: the
    kernel again towards the incoming gradient, elu_double_backward towards the input
    (``elu_backward(gg * g * input_scale, x) * (x < 0)``)."""
    def double(gg: Tensor, g: Tensor, x: Tensor, *params: Any) -> tuple:
        input_scale = coefs(*params)[2]
        to_x = kernel_grad(row(), gg * g * input_scale, x, params) * (x < 0).to(gg._dtype)
        return kernel_grad(row(), gg, x, params), to_x

    def names(g: Tensor, x: Tensor, *params: Any) -> dict:
        a, scale, input_scale = coefs(*params)
        return {"alpha": a, "scale": scale, "input_scale": input_scale, "is_result": False, "grad_output": g,
                "self_or_result": x}

    return "EluBackwardBackward0", double, names


def _softplus_double(gg: Tensor, g: Tensor, x: Tensor, b: float, t: float) -> tuple:
    """SoftplusBackwardBackward0's gradients (derivatives.yaml): softplus_backward again towards
    ``g``; softplus_double_backward towards ``x``: ``sigmoid_backward(gg g, sigmoid(x b)) (x b < t) b``."""
    xb = x * b
    y = xb.sigmoid()
    return kernel_grad(SOFTPLUS, gg, x, (b, t)), (gg * g) * (1 - y) * y * (xb < t).to(gg._dtype) * b


def _softplus(x: np.ndarray, b: float, t: float) -> np.ndarray:
    """``where(x b > t, x, log1p(exp(x b)) / b)``. float32 / float64 (float16 / bfloat16 arrive in
    float32, PyTorch's compute type) are PyTorch's bits where the compiled kernel runs
    (:func:`_softplus_compiled`); elsewhere NumPy's ufuncs, for ``b == 1`` without the product and
    the quotient (``x * 1.0`` and ``y / 1.0`` are ``x`` and ``y`` bit for bit: 3 NumPy calls fewer)."""
    res = _softplus_compiled(x, b, t)
    if res is not None:
        return res
    if b == 1.0:
        e = np.exp(x)
        if e.__class__ is not np.ndarray:  # (a 0-d x gives NumPy scalars: no out=)
            return np.where(np.greater(x, typed0(t, x.dtype)), x, np.log1p(e))
        np.log1p(e, out=e)
        # (greater_select rounds t to x's dtype as typed0 does: t's 0-d array only where NumPy compares;
        # a flat run, C-contiguous, straight to the kernel: _greater_select's tests were 0.45 us)
        k = native.special()
        if k is not None and x.dtype in _SELECT_DTYPES and k.greater_select(x, t, e):
            return e
        return e if _greater_select(x, t, e) else np.where(np.greater(x, typed0(t, x.dtype)), x, e)
    t = typed0(t, x.dtype)  # (exact: the same comparison, in half the time)
    xb = x * b
    return np.where(np.greater(xb, t), x, np.log1p(np.exp(xb)) / b)


def _softplus_compiled(x: np.ndarray, b: float, t: float) -> np.ndarray | None:
    """PyTorch's float32 / float64 softplus of ``x`` (any layout): softplus_kernel is a
    ``cpu_kernel_vec`` loop whose vectorized function blends ``(x b).exp().log1p() / b`` (SLEEF's exp
    and log1p) with ``x`` where ``x b > t`` and whose scalar function takes ``std::exp`` and
    ``std::log1p``, so the elements take :func:`strided.kernels.sleef.torch_loop`'s split
    (``SOFTPLUS``, ``b`` and ``t`` rounded to ``x``'s type in the kernel, as ``beta_.to<scalar_t>()``).
    None where the kernel does not run (then NumPy's ufuncs)."""
    if x.__class__ is not np.ndarray:
        return None
    return torch_loop(x, _SOFTPLUS_OP, params=(float(b), float(t)))


def _softplus_fused(x: np.ndarray, g: np.ndarray, b: float, t: float) -> np.ndarray:
    """softplus's first-order gradient, PyTorch's softplus_backward: ``z = exp(x b)``, then
    ``where(x b > t, g, g z / (z + 1))``; float32 / float64 with z from SLEEF's exp where its
    cpu_kernel_vec loop is vectorized and the C library's in its tail (``EXP_SPLIT`` over ``x b``'s
    flat run: PyTorch's bits where x and g share a dense layout), else NumPy's exp (within an ulp)."""
    xb = x * b
    z = torch_loop(xb, _EXP_SPLIT_OP) if xb.__class__ is np.ndarray else None
    if z is None:
        z = np.exp(xb)
    return np.where(np.greater(xb, typed0(t, xb.dtype)), g, g * z / (z + 1))


def _elu(x: np.ndarray, a: float) -> np.ndarray:
    """``where(x > 0, x, a expm1(x))``; where every ``x > 0`` (checked in the copying pass), ``x``
    copied without the exponentials. float32 / float64 are PyTorch's bits where the compiled kernel
    runs: its elu_kernel (Elu.h) is a ``cpu_kernel_vec`` loop whose vectorized function blends
    ``x >= 0 ? x * scale : expm1(x * input_scale) * (alpha * scale)`` (scale and input_scale 1 here)
    with SLEEF's expm1 (``Vectorized::expm1``) and whose scalar function takes ``std::expm1``, so the
    exponentials are :func:`strided.kernels.sleef.torch_loop`'s split of the two (``EXPM1``), times
    alpha (rounded to ``x``'s dtype, as PyTorch's ``alpha.to<scalar_t>()``; 1: no product, the same
    bits), and ``x`` itself where ``x >= 0``. NumPy's expm1 otherwise (float16's float32 values)."""
    y = _all_greater_copy(x, 0.0)
    if y is not None:
        return y
    if a == 1.0:  # (the kernel's ELU: the exponentials and the selection below in one pass, the same bits)
        y = torch_loop(x, _ELU_OP)
        if y is not None:
            return y
    e = torch_loop(x, _EXPM1_OP)  # (float32 / float64: PyTorch's bits; None otherwise)
    if e is None:
        e = np.expm1(x)
    if a != 1.0:
        if e.__class__ is np.ndarray:
            np.multiply(e, a, out=e)  # (a rounded to e's dtype: NumPy's weak Python scalar)
        else:  # (a 0-d x gives NumPy scalars: no out=)
            e = a * e
    # x where x >= 0: where x > 0 selects the same but at +-0, whose e = +-0 * a is x's own zero
    # for 0 <= a < inf (a NaN x takes e: a's product keeps x's NaN, as PyTorch's lanes do)
    if 0.0 <= a < float("inf"):
        if _greater_select(x, 0.0, e):
            return e
        return np.where(np.greater(x, typed0(0.0, x.dtype)), x, e)
    return np.where(np.greater_equal(x, typed0(0.0, x.dtype)), x, e)


def _elu_compiled(x: np.ndarray, a: float) -> np.ndarray | None:
    """:func:`_elu`'s compiled passes for a flat run ``x`` (the fast path's): ``x`` itself where
    every ``x > 0`` (whatever alpha); at alpha 1 (no product: no NumPy arithmetic) also the
    exponentials and the selection in one pass (torch_loop's flat-run call of the kernel's ELU: x
    where x > 0, else EXPM1's expm1), the same bits as :func:`_elu`'s; None otherwise (then ``_elu``)."""
    y = _all_greater_copy(x, 0.0)
    if y is not None or a != 1.0 or x.__class__ is not np.ndarray:
        return y
    return torch_loop(x, _ELU_OP)  # (float32 / float64: PyTorch's bits; None otherwise)


def _greater_select(x: np.ndarray, t: Any, e: np.ndarray) -> bool:
    """``e[...] = where(x > t, x, e)`` by the compiled ``greater_select`` in one pass (the same
    selection: ``t`` a number the float32/float64 dtype holds exactly, or one NumPy's weak scalar
    rounds as the kernel does), for ``x`` and ``e`` (a fresh array NumPy made from ``x``) both
    C-contiguous, or both column-major; False (``e`` untouched) otherwise: NumPy's where."""
    k = native.special()
    if k is None or e.__class__ is not np.ndarray or x.__class__ is not np.ndarray or x.dtype not in _SELECT_DTYPES \
            or e.dtype != x.dtype or e.shape != x.shape:
        return False  # (a 0-d x's NumPy scalars, other dtypes: NumPy's where)
    if not x.flags.c_contiguous and x.flags.f_contiguous and e.flags.f_contiguous:
        x, e = x.T, e.T  # (elementwise: the transposes pair up the same elements)
    return bool(k.greater_select(x, float(t), e))


_SELECT_DTYPES = frozenset((np.dtype(np.float32), np.dtype(np.float64)))


def _all_greater_copy(x: np.ndarray, t: float) -> np.ndarray | None:
    """A copy of ``x`` (its layout) where every element is ``> t`` (the compiled ``greater_copy``:
    one pass, stopping at the first block that holds one that is not); None otherwise, or where
    the kernel does not take ``x`` (float32/float64, C- or F-contiguous, aligned, not 0-d)."""
    k = native.special()
    if k is None or x.__class__ is not np.ndarray or x.dtype not in _SELECT_DTYPES or not x.ndim:
        return None
    y = np.empty_like(x)
    if not x.flags.c_contiguous and x.flags.f_contiguous and y.flags.f_contiguous:
        return y if k.greater_copy(x.T, float(t), y.T) else None
    return y if k.greater_copy(x, float(t), y) else None


def _leaky_relu(x: np.ndarray, k: float) -> np.ndarray:
    """``where(x > 0, x, x k)``, as PyTorch's kernel (``k`` rounded to ``x``'s dtype first; a
    signalling NaN comes out of the product quieted). A contiguous float32 / float64 ``x`` takes
    one pass of the compiled ``unary_exact`` (the same bits: tests/test_unary_exact_native.py);
    a column-major one too (a transpose), into a column-major result (np.where's layout for it:
    K order), both passed transposed, row-major (elementwise: the order of the walk is no matter).
    (``maximum(x, x k)``, one NumPy call fewer, returned a signalling NaN as it is.)"""
    k_ = native.special()
    if k_ is not None and x.__class__ is np.ndarray and x.dtype in _TYPED0_DTYPES:  # (bfloat16: no buffer format)
        if x.flags.c_contiguous:
            out = np.empty(x.shape, x.dtype)
            if k_.unary_exact(x, out, 2, k):
                return out
        elif x.flags.f_contiguous:
            out = np.empty(x.shape, x.dtype, order="F")
            if k_.unary_exact(x.T, out.T, 2, k):
                return out
    return np.where(x > 0, x, x * k)


def _leaky_relu_compiled(x: np.ndarray, k: float) -> np.ndarray | None:
    """:func:`_leaky_relu`'s compiled pass for a C-contiguous ``x``; None where it does not run."""
    k_ = native.special()
    if k_ is not None and x.dtype in _TYPED0_DTYPES and x.flags.c_contiguous:
        out = np.empty(x.shape, x.dtype)
        if k_.unary_exact(x, out, 2, k):
            return out
    return None


SOFTPLUS = Activation(
    "softplus", "softplus_cpu", "SoftplusBackward0",
    _softplus,
    lambda g, x, b, t: where(x * b > t, g, g * (x * b).sigmoid()),
    lambda x, g, b, t: _softplus_fused(x, g, b, t),
    _softplus_compiled, bf16_step=bf16_wide,
    second=("SoftplusBackwardBackward0", _softplus_double,
            lambda g, x, b, t: {"beta": b, "threshold": t, "grad_output": g, "self": x}),
    names=lambda x, b, t: {"beta": b, "threshold": t, "self": x}, kernel_layout=True)


def _elu_fused(x: np.ndarray, g: np.ndarray, a: float) -> np.ndarray:
    """PyTorch's elu_backward of the input at alpha ``a`` (scale and input_scale 1): its scalar
    function ``x <= 0 ? g * a * exp(x) : g``, so a NaN ``x`` gives ``g`` there, but NaN in its
    vector lanes (their blend keeps ``g`` only where ``x > 0``): :func:`.torch_lanes.nan_lanes`, two
    Vectorized per step (measured: rows of 40 and 70 float32 / float64 elements)."""
    return nan_lanes(x, np.where(x <= 0, g * a * np.exp(x), g), lambda: g * x, 2, g)


ELU = Activation(
    "elu", "elu_cpu", "EluBackward0",
    _elu,
    # (x's exp through x only where x < 0: PyTorch's elu_double_backward masks with self < 0, so
    # the second derivative at x == 0 is 0 while the first takes the exp branch there)
    lambda g, x, a: scalar_nan_grad(where(x > 0, g, g * (where(x < 0, x, x.detach()).exp() * a)), g, x, 2, lambda: g),
    _elu_fused,
    lambda x, a: _elu_compiled(x, a),
    result_backward=lambda a: ("EluBackward1", a, 1.0, 1.0), bf16_step=bf16_wide,
    second=elu_second(lambda: ELU, lambda a: (a, 1.0, 1.0)), kernel_layout=True,
    names=lambda x, a: {"alpha": a, "scale": 1, "input_scale": 1, "self": x})
LEAKY_RELU = Activation(
    "leaky_relu", "leaky_relu_cpu", "LeakyReluBackward0",
    _leaky_relu,
    lambda g, x, k: where(x > 0, g, g * k),
    lambda x, g, k: np.where(x > 0, g, g * k),
    lambda x, k: _leaky_relu_compiled(x, k), bf16_step=bf16_narrow,
    leaky_result=lambda k: ("LeakyReluBackward1", k, {"negative_slope": k}))
# (PyTorch: no gradient at or beyond the bounds)
HARDTANH = Activation(
    "hardtanh", "hardtanh_cpu", "HardtanhBackward0",
    # (np.clip's ufunc, without its Python wrapper; bounds a float32/float64 holds exactly as 0-d arrays)
    lambda x, lo, hi: _clip(x, typed0(lo, x.dtype), typed0(hi, x.dtype)),
    lambda g, x, lo, hi: where((x <= lo) | (x >= hi), 0.0, g),
    lambda x, g, lo, hi: np.where((x <= lo) | (x >= hi), 0, g),
    # (PyTorch's hardtanh is its clamp: the compiled clamp pass gives np.clip's bits, ties keeping
    # x's zero, bounds rounded to x's dtype; 2^20 float32 ~113 -> ~92 us. A NaN bound: None, np.clip)
    lambda x, lo, hi: _compiled_clamp(x, lo, hi), typed=(0, 1), inplace_node="HardtanhBackward0")


def _run(row: Activation, input: Any, params: tuple, inplace: bool = False, counted: bool = True) -> Tensor:
    """``row`` applied to ``input``: a fresh tensor, or (``inplace``) ``input`` written (after
    the checks, before anything is written) and its write counted (``counted``: autograd's
    in-place path counts it itself); reported at the op boundary."""
    if not inplace:
        t = _fast(row, input, params)
        if t is not None:
            return t
    x = tensor_arg(input, row.name + "_" if inplace else row.name)  # (PyTorch names selu_() in place)
    d = x._dtype
    if not d.is_floating_point:
        if row is HARDTANH:
            params = _integer_bounds(d, *params)
        elif row.integers is not None:
            params = row.integers(d, *params)
        else:
            raise float_only(row.kernel, d, row.name)
    name = row.name + "_" if inplace else row.name
    if inplace:
        check_writable(x._storage, x._layout, name, aliasing_ok=row.overlap_ok, updates=True)
    if d.is_floating_point:
        _check_params(row, d, params)
    compute = np.dtype(np.int64) if d in _INT_C_NAMES else compute_dtype(d)  # (hardtanh of integers)
    token = quiet_set(QUIET)  # (np.errstate costs more than the forward on a small tensor)
    try:
        xa = x._np().astype(compute, copy=False)
        bf16 = d is bfloat16 and row.bf16_step is not None  # (its NaN words after the write: bf16_nan_words)
        lanes = None if row.vector_nans is None or bf16 else row.vector_nans(xa, x._layout.shape, x._layout.strides, d)
        values = row.forward(xa, *params)
    finally:
        quiet_reset(token)
    if inplace:
        write(x._storage, x._layout, values)
        if counted:
            bump(x, name)  # (a saved tensor it changed must fail at backward)
        out = x
    else:
        out = _output(row, x, d)
        whole = _as_output(values, out, d, x)
        if whole is not None:
            out = whole
        else:
            token = quiet_set(QUIET)  # (float16's cast of a float32 beyond its range: inf, quietly, as PyTorch)
            try:
                # (blocked where the orders disagree: rrelu's row-major result of a transposed input,
                # NumPy's copy of 1M float32 ~5 ms, the compiled blocked copy's well under 1)
                copy_into(out._np(), values)
            finally:
                quiet_reset(token)
    if lanes is not None:  # (after the cast: the result dtype's own all-ones word)
        all_ones(out._np(), lanes)
    elif bf16:
        bf16_nan_words(out, x, row.bf16_step(), not inplace)
    if OPEN:
        report(name, (x,), out)
    return out


def all_ones(target: np.ndarray, where: np.ndarray) -> None:
    """Write the all-ones word (PyTorch's vector NaN, 0xFFFF...) into ``target`` at ``where``."""
    target.view(_UINTS[target.itemsize])[where] = ~_UINTS[target.itemsize](0)


_UINTS = {2: np.uint16, 4: np.uint32, 8: np.uint64}


_FAST_DTYPES = {float32: np.dtype(np.float32), float64: np.dtype(np.float64)}


def _output(row: Activation, x: Tensor, d: DType) -> Tensor:
    """The fresh output, laid out as PyTorch lays it out: TensorIterator's strides for the input,
    except hardtanh's, which PyTorch writes into ``empty_like(input)`` (preserve_format: a dense
    input's strides exactly, a size-1 dim's included: shape (3, 1) with strides (1, 1) gives
    (1, 1) there, where TensorIterator gives (1, 1)'s row-major (3, 1))."""
    if row is HARDTANH:
        lay = x._layout
        return result(lay.shape, d, preserve_format_strides(lay.shape, lay.strides))
    if row.contiguous:
        return result(x._layout.shape, d)
    return _fresh_output(x._layout.shape, d, [x], d)


def _as_output(values: np.ndarray, out: Tensor, d: DType, x: Tensor) -> Tensor | None:
    """The forward's fresh ``values`` as the result itself, where copying them into ``out`` (the
    fresh output PyTorch's layout rules give) would move the same bits into the same layout:
    ``values`` is a float32/float64 array of ``d``'s dtype, dense in row- or column-major order,
    writable, sharing no memory with the input, and laid out exactly as ``out`` (element
    strides, offset 0). A transposed input's forward (NumPy's K order) is laid out so; the copy
    was a whole extra pass (0.3 ms at 2^20 float32). None: the caller copies."""
    dtype = _FAST_DTYPES.get(d)
    if (dtype is None or values.__class__ is not np.ndarray or values.dtype != dtype or values.ndim == 0
            or not values.flags.writeable or out._layout.offset != 0):
        return None
    size = values.itemsize
    if tuple(st // size for st in values.strides) != out._layout.strides or values.shape != out._layout.shape:
        return None
    if values.flags.c_contiguous:
        flat = values.reshape(-1)
    elif values.flags.f_contiguous:
        flat = values.reshape(-1, order="F")  # (a view: F order is its memory order)
    else:
        return None
    if np.may_share_memory(values, x._storage.array):
        return None
    return adopted(flat, out._layout, d)


def _fast(row: Activation, x: Any, params: tuple) -> Tensor | None:
    """The small-op fast path of :func:`_run` for a fresh result: a row-major float32 / float64
    tensor, whose forward runs on the flat run of its storage (the same NumPy calls, in the
    same dtype, as the general path, on the same elements in the same order) and whose fresh
    1-D result becomes the output's storage (PyTorch's output of a row-major input is
    row-major; of a permuted dense one, its layout: :func:`strided.kernels.memory.dense_run`).
    None where the general path must run (another dtype or layout)."""
    if x.__class__ is not Tensor and x.__class__ not in SUBCLASSES:
        return None
    d = x._dtype
    if d is not float32 and d is not float64:
        return None
    info = _cinfo[x._layout.shape]
    # (hardtanh's output keeps a size-1 dim's stride: the general path's empty_like)
    arr = flat_run(x, info) if row is not HARDTANH or x._layout.strides == info[2].strides else None
    layout = info[2]
    if arr is None:  # (a transpose: the forward over its memory in order, laid out as x)
        if row.contiguous:
            return None  # (its row-major result: the general path)
        dense = dense_run(x, info[1])
        if dense is None:
            return None
        arr, layout = dense
    if d is float32:  # (float64 holds every Python float: nothing to refuse)
        for v in params:  # (_check_params's common case inlined: its call was a tenth of a small op)
            if not -_F32_MAX <= v <= _F32_MAX:
                _check_params(row, d, params)
                break
    values = _flat_values(row, arr, params, d)
    if values.dtype != arr.dtype:  # (the general path's copyto casts; never with Python-float params)
        values = values.astype(arr.dtype)
    t = adopted(values, layout, d)
    if OPEN:
        report(row.name, (x,), t)
    return t


def _flat_values(row: Activation, arr: np.ndarray, params: tuple, d: DType) -> np.ndarray:
    """The fast paths' values of ``row`` over a flat run ``arr`` of dtype ``d``: ``row.compiled``'s
    pass (it writes PyTorch's vector-lane NaN words itself), else (its None) the forward in the
    quiet floating-point state with the row's ``vector_nans`` words applied."""
    values = None if row.compiled is None else row.compiled(arr, *params)
    if values is None:
        try:  # (fpstate.quietly, inlined)
            values = quiet_call(row.forward, arr, *params)
        except RuntimeError as e:
            values = quiet_retry(e, row.forward, arr, *params)
        if row.vector_nans is not None:
            lanes = row.vector_nans(arr, arr.shape, (1,), d)
            if lanes is not None:
                all_ones(values, lanes)
    return values


_F32 = np.dtype(np.float32)
_F32_MAX = float(np.finfo(np.float32).max)


def _check_params(row: Activation, d: DType, params: tuple) -> None:
    """PyTorch's refusal of a parameter its kernel cannot hold for a float input of dtype ``d``:
    the row's ``typed`` parameters convert to ``d`` itself (c10::Half's error for float16), the
    others to the compute type (float for float16 / bfloat16 / float32); a finite value beyond
    that range is a RuntimeError, never a silent inf (``inf`` itself passes). The check is
    :func:`strided.dtypes.scalar_overflow`'s, PyTorch's ``c10::checked_convert``."""
    compute = d if d is float64 else float32
    for i, v in enumerate(params):
        target = d if i in row.typed else compute
        if target is float32 and -_F32_MAX <= v <= _F32_MAX:  # (the common case, without the full check)
            continue
        line = scalar_overflow(v, target)
        if line is not None:
            raise StridedRuntimeError(join_lines(
                line, f"{row.name}'s parameter {v} does not fit the {target.name} its kernel computes with",
                f"fix: a parameter inside {target.name}'s range, or a float64 input"))


def _num(v: Any, fn: str, arg: str, pos: int) -> float:
    """``v`` as PyTorch's ``Number`` argument ``arg`` (position ``pos``) of ``fn`` takes it: a
    Python or NumPy bool/int/float or a 0-d tensor; a complex number with a zero imaginary part as
    its real part, any other a RuntimeError; an int neither int64 nor uint64 holds an OverflowError; anything else
    (a string, None, a list, a tensor with dims) a TypeError, as PyTorch's argument parser says."""
    if type(v) is float:
        return v
    if isinstance(v, (bool, float, np.bool_, np.integer, np.floating)):
        return float(v)
    if isinstance(v, int):
        # (PyTorch's Scalar holds an int64 or, past int64's max, a uint64: what neither holds is
        # the parser's OverflowError; a kernel's checked conversion refuses more, later)
        if not -(2 ** 63) <= v < 2 ** 64:
            raise StridedOverflowError(join_lines(
                "int too big to convert" if v > 0 else "can't convert negative int to unsigned",
                f"{fn}'s {arg} is {v}, beyond int64 and uint64"))
        return float(v)
    if isinstance(v, (complex, np.complexfloating)):
        if v.imag == 0:
            return float(v.real)
        raise StridedRuntimeError(join_lines("value cannot be converted to type float without overflow",
                                             f"{fn}'s {arg} is the complex number {v}"))
    if isinstance(v, Tensor) and v.ndim == 0:
        return float(v)
    raise StridedTypeError(join_lines(
        f"{fn}(): argument '{arg}' (position {pos}) must be Number, not {'Tensor' if isinstance(v, Tensor) else type(v).__name__}",
        f"fix: pass a number, e.g. {fn}(x, 0.5)"))


def _in_autograd(x: Any) -> bool:
    """Whether an in-place write of ``x`` must go through autograd's in-place rules: grad mode on,
    and ``x`` or the tensor it views has an autograd record."""
    if not (STATE["used"] and GRAD_MODE.get()) or not isinstance(x, Tensor):
        return False
    return x._ag is not None or (x._base is not None and x._base._ag is not None)


def _inplace(row: Activation, entry: Callable[..., Tensor], input: Any, params: tuple) -> Tensor:
    """``row`` written into ``input``; on a float tensor in the graph, with the node PyTorch's
    in-place form records (the row's ``result_backward``, ``leaky_result`` or ``inplace_node``).

    # Note: a row with none of them (or a non-float tensor in the graph) is written as
    # ``input.copy_(entry(input.clone()))``: CopyBackwards over the activation of a clone of the
    # old values, the same gradient under another node name.
    """
    # (PyTorch refuses an inference tensor's in-place update outside the mode; a non-tensor input
    # goes on to _run's argument check, the TypeError PyTorch raises)
    if INFERENCE_STORAGES.data and isinstance(input, Tensor):
        refuse_inference(input, "inplace")
    if _in_autograd(input):
        if isinstance(input, Tensor) and input._dtype.is_floating_point:
            if row.result_backward is not None:
                return _elu_inplace_in_graph(row, input, params)
            if row.leaky_result is not None or row.inplace_node is not None:
                return _inplace_in_graph(row, entry, input, params)
        return input.copy_(entry(input.clone(), *params))
    return _run(row, input, params, inplace=True)


def _inplace_in_graph(row: Activation, entry: Callable[..., Tensor], input: Tensor, params: tuple) -> Tensor:
    """``row``'s in-place form on a tensor in the graph: autograd's in-place path (checks, version
    count, history; CopySlices for a view) with PyTorch's node: ``leaky_result``'s, which reads and
    saves the result (the old values an alias), or the out-of-place node (``entry``'s, over a copy
    of the old values, which it saves as PyTorch saves the original self) named ``inplace_node``."""
    if row.leaky_result is not None:
        rule = _leaky_result_rule(*row.leaky_result(*params))

        def twin(old: Tensor) -> Tensor:
            return _RECORDED_CALL(lambda t: _run(row, t, params), rule, (old,), {})
    else:
        def twin(old: Tensor) -> Tensor:
            new = entry(old, *params)
            m = new._ag
            if m is not None and m.grad_fn is not None:
                m.grad_fn._name = row.inplace_node
            return new

    return _RECORDER["inplace"](lambda x, _twin: _run(row, x, params, inplace=True, counted=False), row.name + "_",
                                input, (twin,), {})


def _leaky_result_rule(node: str, slope: float, saved: dict) -> Callable[..., Any]:
    """``node``'s rule (LeakyReluBackward1, RreluWithNoiseBackward1) over the old values ``old`` (its
    edge) and the result ``out`` (saved): PyTorch's leaky_relu_backward with ``is_result``, ``r > 0 ?
    g : g * slope`` (the input's mask for a slope >= 0, which it requires: a negative one is its
    backward's error)."""

    def rule(out: Tensor, old: Tensor) -> Any:
        def grads(g: Tensor) -> tuple:
            if slope < 0:
                raise StridedRuntimeError(join_lines(
                    "In-place leakyReLu backward calculation is triggered with a negative slope which is not "
                    "supported. This is caused by calling in-place forward function with a negative slope, please "
                    "call out-of-place version instead. File an issue at https://github.com/pytorch/pytorch if you "
                    "do require supporting in-place leakRelu backward calculation with negative slope",
                    f"the in-place op's slope is {slope}: from its result alone the input's sign cannot be told",
                    "fix: the out-of-place form, y = F.leaky_relu(x, slope)"))
            if GRAD_MODE.get():  # a create_graph backward: the recording ops (linear in g)
                return (linear_backward("LeakyReluBackwardBackward0", lambda gg: LEAKY_RELU.grad(gg, out, slope), g,
                                        (out,)),)
            return (fused_grad(out, lambda r, gg: LEAKY_RELU.fused(r, gg, slope), out, g),)

        return node, (old,), grads, named_saved((out,), result=out, **saved)

    return rule


def _elu_inplace_in_graph(row: Activation, input: Tensor, params: tuple) -> Tensor:
    """``row``'s in-place form (PyTorch's ``elu_``) on a tensor in the graph: autograd's in-place
    path (checks, version count, history; CopySlices for a view) with the row's ``result_backward``
    node (EluBackward1, CeluBackward1), whose gradient is derivatives.yaml's ``elu_backward(grad,
    alpha, scale, input_scale, is_result=true, result)``: from the result, not the input (a few
    ulps apart)."""
    rule = _elu_result_rule(*row.result_backward(*params))

    def twin(old: Tensor) -> Tensor:
        return _RECORDED_CALL(lambda t: _run(row, t, params), rule, (old,), {})

    return _RECORDER["inplace"](lambda x, _twin: _run(row, x, params, inplace=True, counted=False), "elu_", input,
                                (twin,), {})


def _elu_result_rule(node: str, alpha: float, scale: float, input_scale: float) -> Callable[..., Any]:
    """EluBackward1's (``node``'s) rule over the old values ``old`` (its edge) and the result ``out`` (saved):
    PyTorch's elu_backward kernel with ``is_result``: ``r <= 0 ? g * input_scale * (r + alpha *
    scale) : g * scale``, the coefficients rounded to the compute dtype (``alpha * scale`` a
    product there); under create_graph in recording ops, the result's own derivative only where
    ``r < 0`` (elu_double_backward's mask)."""

    def rule(out: Tensor, old: Tensor) -> Any:
        def grads(g: Tensor) -> tuple:
            if GRAD_MODE.get():
                t = compute_dtype(out._dtype).type
                inner = where(out < 0, out, out.detach())
                neg = float(t(alpha) * t(scale))
                return (where(out > 0, g * scale, g * input_scale * (inner + neg)),)
            return (fused_grad(out, lambda r, gg: _elu_result_fused(r, gg, alpha, scale, input_scale), out, g),)

        # (PyTorch's saved names: EluBackward1 keeps alpha, scale, input_scale; CeluBackward1 alpha only)
        # (scale / input_scale of 1 are elu_'s defaults, Scalar(1): an int, as PyTorch's attributes give them)
        more = {"alpha": alpha} if node == "CeluBackward1" else {"alpha": alpha, "scale": _int_one(scale),
                                                                  "input_scale": _int_one(input_scale)}
        return node, (old,), grads, named_saved((out,), result=out, **more)

    return rule


def _int_one(v: float) -> float | int:
    """``v``, or the int 1 where it is 1: elu_'s default ``scale`` / ``input_scale`` (never a user's
    number: F.elu / selu_ take alpha alone), which PyTorch saves as the integer Scalar it is."""
    return 1 if v == 1.0 else v


def _elu_result_fused(r: np.ndarray, g: np.ndarray, alpha: float, scale: float, input_scale: float) -> np.ndarray:
    """EluBackward1's first-order gradient in one NumPy pass, in the kernel's order of operations."""
    t = r.dtype.type
    return np.where(r <= 0, g * t(input_scale) * (r + t(alpha) * t(scale)), g * t(scale))


def _inplace_target(x: Tensor, param: float) -> tuple[int, int] | None:
    """The one run of storage a small-op in-place fast path writes, as ``(offset, n)``: for a
    row-major or densely permuted (its elements one run of storage in another order: a transpose)
    float32 / float64 ``x`` outside autograd (neither it nor its base has a record, so
    :func:`_inplace` would run :func:`_run` too), nobody listening, no inference tensor about,
    the parameter ``param`` inside float32's finite range for a float32 ``x``. None where the
    general path must run (it raises what is to be raised: a parameter beyond float32)."""
    # (the WeakSet's own set: its truth is WeakSet.__len__, Python code, a tenth of this call; a
    # set holding only dead references, as mid-iteration, sends the call to the general path)
    if x._ag is not None or OPEN or INFERENCE_STORAGES.data:  # (an inference tensor's refusal: the general path's)
        return None
    base = x._base
    if base is not None and base._ag is not None:
        return None
    d = x._dtype
    if d is not float32:
        if d is not float64:
            return None
    elif not -_F32_MAX <= param <= _F32_MAX:  # (_check_params's refusal, or inf: the general path)
        return None
    lay = x._layout
    info = _cinfo[lay.shape]
    if lay.strides != info[0] and not _dense(lay.shape, lay.strides):
        return None  # (a dense permutation, a transpose, is one run too: elementwise, order-free)
    return lay.offset, info[1]


def _counted(x: Tensor, name: str) -> None:
    """Count the in-place write of ``x`` as :func:`_run` counts it (PyTorch counts every write; a
    saved tensor it changed must fail at backward): in C where only the count changes (bump's
    Python call was a tenth of a small in-place op), else bump."""
    if count_write is None or not count_write(COUNTERS, x):
        bump(x, name)


def _inplace_fast(row: Activation, x: Tensor, param: float, code: int, name: str) -> bool:
    """The small-op fast path of the in-place ``leaky_relu_`` (``code`` 0) and ``elu_`` (1) on a
    plain tensor ``x`` (the caller tests its class and that ``param`` is a float) that
    :func:`_inplace_target` takes, its storage writable: the compiled ``activation_inplace``
    writes the elements where they lie (leaky_relu: the same product and selection as the
    general path's ``unary_exact``) or finds every one > 0 (elu: then each is its own result,
    nothing to write); elu's other inputs run the general path's forward on the flat run, copied
    back. The write is counted as :func:`_run` counts it. False (nothing written, nothing
    counted) where the general path must run: it raises what is to be raised (read-only memory,
    a parameter beyond float32)."""
    target = _inplace_target(x, param)
    if target is None:
        return False
    k = native.special()
    if k is None:
        return False
    offset, n = target
    done = k.activation_inplace(x._storage.array, offset, n, code, param)
    if done is None:
        return False  # (read-only, unaligned, byte-swapped or short storage: the general path)
    if not done:  # (elu with an element <= 0 or NaN)
        arr = x._storage.array[offset : offset + n]
        try:  # (fpstate.quietly, inlined)
            values = quiet_call(row.forward, arr, param)
        except RuntimeError as e:
            values = quiet_retry(e, row.forward, arr, param)
        np.copyto(arr, values, casting="unsafe")  # (fresh values of arr's dtype: the same bits)
    _counted(x, name)
    return True


def inplace_flat(row: Activation, x: Tensor, params: tuple, name: str,
                 flat: Callable[[np.ndarray], np.ndarray] | None = None) -> bool:
    """The small-op fast path of an in-place row without a compiled in-place pass (``selu_``,
    ``celu_``): on a plain tensor ``x`` that :func:`_inplace_target` takes (``params`` floats, at
    most one), its storage writable, the fast path's values of the flat run (``flat(run)`` where
    given: the fresh front's own function for these ``params``, keeping the floating-point state
    itself, which may write ``run`` itself and answer it; else ``row.compiled``, else the
    forward in the quiet state: what :func:`_fast` computes for the fresh result, at the same
    places of the same run, as PyTorch's loop over the coalesced run) copied back over it,
    the write counted as :func:`_run` counts it. False (nothing written, nothing counted) where
    the general path must run: it raises what is to be raised (read-only memory, a parameter
    beyond float32)."""
    target = _inplace_target(x, params[0] if params else 0.0)
    if target is None:
        return False
    offset, n = target
    arr = x._storage.array[offset : offset + n]
    if not arr.flags.writeable:
        return False
    values = _flat_values(row, arr, params, x._dtype) if flat is None else flat(arr)
    if values is not arr:  # (``flat`` may write the run itself)
        np.copyto(arr, values, casting="unsafe")  # (fresh values of arr's dtype: the same bits)
    _counted(x, name)
    return True


def fused_grad(like: Tensor, fn: Callable[..., np.ndarray], *arrays: Tensor, laid: tuple[Tensor, ...] = ()) -> Tensor:
    """A first-order gradient computed in one NumPy pass: ``fn`` of the tensors' views (float16
    in float32) into a fresh tensor of ``like``'s shape and dtype (recorded by nothing), laid out
    as TensorIterator lays out the operands ``laid`` (in PyTorch's kernel's order; none:
    row-major)."""
    compute = compute_dtype(like._dtype)
    shape = like._layout.shape
    if laid and any(t._layout.strides != _cinfo[shape][0] and any(t._layout.strides) for t in laid):
        # (an operand expanded from one element, stride 0 throughout, orders nothing: a sum's gradient)
        out = result(shape, like._dtype, _LAID[(shape, *(t._layout.strides for t in laid))])
        arr = out._np()
    else:
        out, arr = result_array(shape, like._dtype)
    with np.errstate(all="ignore"):
        values = fn(*(t._np().astype(compute, copy=False) for t in arrays))
    np.copyto(arr, np.broadcast_to(values, arr.shape), casting="unsafe")
    return out


def _laid_strides(key: tuple) -> tuple[int, ...]:
    """TensorIterator's output strides for operands of ``key = (shape, *strides)`` (one shape)."""
    return elementwise_output_strides(key[0], tuple((key[0], st) for st in key[1:]))


# (:func:`fused_grad`'s strides per (shape, *operand strides), planned once: a gradient of a
# sum arrives expanded, stride 0, on every backward)
_LAID = Memo(_laid_strides)


def scalar_nan_grad(value: Tensor, g: Tensor, x: Tensor, vectors: int, at_nan: Callable[[], Tensor]) -> Tensor:
    """A ``create_graph=True`` backward's recorded ``value`` with ``at_nan()`` (the backward
    kernel's scalar function's answer for a NaN input, recorded) where ``x`` is NaN and PyTorch's
    backward loop (over ``g``, then ``x``, ``vectors`` Vectorized per step) runs its scalar function:
    PyTorch runs that kernel (elu_backward, hardshrink_backward, ...) under create_graph too, so the
    first-order values equal the non-recorded backward's (:func:`.torch_lanes.scalar_nans`, over the
    arrays :func:`fused_grad` hands the fused backward)."""
    compute = compute_dtype(x._dtype)
    mask = scalar_nans(x._np().astype(compute, copy=False), vectors, g._np().astype(compute, copy=False))
    if mask is None:
        return value
    return where(tensor_from_array(mask, x._layout.shape, bool_), at_nan(), value)


def kernel_grad(row: Activation, g: Tensor, x: Tensor, params: tuple) -> Tensor:
    """``row``'s first derivative as PyTorch's backward kernel gives it (the fused pass's values,
    laid out as the kernel's TensorIterator lays out ``(g, x)`` where ``row.kernel_layout``); under create_graph
    behind ``row.second``'s node (:func:`.._support.gradtools.kernel_backward`)."""
    value = fused_grad(x, lambda xx, gg: row.fused(xx, gg, *params), x, g, laid=(g, x) if row.kernel_layout else ())
    if row.second is None or not GRAD_MODE.get():
        return value
    node, double, names = row.second
    return kernel_backward(node, value, (g, x), lambda gg, g_, x_: double(gg, g_, x_, *params),
                           lambda g_, x_: named_saved((g_, x_), **names(g_, x_, *params)))


def activation_rule_spec(row: Activation, input: Tensor, params: tuple) -> tuple:
    """The (node, inputs, grads, saved) of ``row``'s backward rule at ``input`` with ``params``:
    under create_graph :func:`kernel_grad` where the row names PyTorch's node over its kernel
    (``second``), else its ``grad`` recording ops; a first-order backward the fused pass. Its
    saved tensors named as PyTorch's (``row.names``) where the row says."""
    def grads(g: Tensor) -> tuple:
        if GRAD_MODE.get() and row.second is None:  # a create_graph backward: the recording ops
            if row is LEAKY_RELU or row is HARDTANH:  # (linear in g; x only through a mask)
                return (linear_backward(row.node.replace("Backward0", "BackwardBackward0"),
                                        lambda gg: row.grad(gg, input, *params), g, (input,)),)
            return (row.grad(g, input, *params),)
        return (kernel_grad(row, g, input, params),)

    if row.names is None:
        return row.node, (input,), grads, (input,)
    saved = NamedSaved((input,))
    key = (row.name, *params)
    table = _NAMES.get(key)
    if table is None:  # (the names' table per row and parameters, made once: read-only)
        table = named_saved((_SELF,), **row.names(_SELF, *params)).names
        if len(_NAMES) < 256:
            _NAMES[key] = table
    saved.names = table
    return row.node, (input,), grads, saved


# (:func:`activation_rule_spec`'s tables of PyTorch's saved names per (row, *params); ``_SELF``
# stands for the input, the node's saved tensor 0, while a table is made)
_NAMES: dict[tuple, dict] = {}
_SELF = object()


def _rule(row: Activation) -> Callable[..., Any]:
    def rule(out: Tensor, input: Tensor, *params: Any) -> Any:
        return activation_rule_spec(row, input, params)

    rule.__name__ = f"{row.name}_backward"
    return rule


for _row in (SILU, SOFTPLUS, ELU, LEAKY_RELU, HARDTANH):
    backward("F." + _row.name)(_rule(_row))


def silu(input: Tensor) -> Tensor:
    """``x * sigmoid(x)`` elementwise (float tensors).

    >>> silu(strided.tensor([0.0])).tolist()
    [0.0]
    """
    if input.__class__ is Tensor and input._dtype.is_complex:
        return _complex_silu(input)
    return _run(SILU, input, ())


def refuse_complex_grad(input: Any) -> None:
    """PyTorch's refusal of ``F.silu`` (out of place) of a complex tensor that requires grad,
    grad mode on, before it computes (its silu has no complex derivative). Called by the
    functional form, outside the entry (whose forward runs with grad mode off)."""
    if input.__class__ is Tensor and input._dtype.is_complex and input._ag is not None and GRAD_MODE.get():
        raise StridedRuntimeError(join_lines(
            "silu does not support automatic differentiation for outputs with complex dtype.",
            "PyTorch's silu has no complex derivative; fix: silu(x.detach()), or run it under no_grad()"))


def _complex_silu(x: Tensor) -> Tensor:
    """PyTorch's silu of a complex tensor (its kernel takes complex types, the other activations'
    do not): ``x / (1 + exp(-x))`` in the complex type, here as strided's own exp, sum and
    quotient (PyTorch's bits each, composed: complex128 PyTorch's silu bits wherever measured;
    complex64 within an ulp, the last bit of a few elements of a row's tail after its vector
    blocks differing, where PyTorch's compiled scalar loop rounds ``exp`` and the quotient its own
    way); an empty tensor gives an empty one. Gradient: the composed ops' (Wirtinger, as PyTorch's)."""
    return x / (1 + (-x).exp())


def silu_(input: Tensor) -> Tensor:
    """In-place :func:`silu` (``F.silu(x, inplace=True)``)."""
    if input.__class__ is Tensor and input._dtype.is_complex:  # (a recorded input: copy_'s rules and record)
        return input.copy_(_complex_silu(input.clone() if _in_autograd(input) else input))
    return _inplace(SILU, silu, input, ())


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """``log(1 + exp(beta * x)) / beta``, and ``x`` itself where ``beta * x > threshold`` (for stability).

    >>> softplus(strided.tensor([0.0, 30.0])).tolist()  # doctest: +ELLIPSIS
    [0.693..., 30.0]
    """
    return _run(SOFTPLUS, input, (_num(beta, "softplus", "beta", 2), _num(threshold, "softplus", "threshold", 3)))


def elu(input: Tensor, alpha: float = 1.0) -> Tensor:
    """``x`` where ``x > 0``, else ``alpha * (exp(x) - 1)``, elementwise (float tensors).

    >>> elu(strided.tensor([-1.0, 2.0])).tolist()  # doctest: +ELLIPSIS
    [-0.632..., 2.0]
    """
    return _run(ELU, input, (_num(alpha, "elu", "alpha", 2),))


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """In-place :func:`elu` (``F.elu(x, alpha, inplace=True)``)."""
    if input.__class__ is Tensor and type(alpha) is float and _inplace_fast(ELU, input, alpha, 1, "elu_"):
        return input
    return _inplace(ELU, elu, input, (_num(alpha, "elu_", "alpha", 2),))


def leaky_relu(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    """``x`` where ``x > 0``, else ``negative_slope * x``, elementwise (float tensors).

    >>> leaky_relu(strided.tensor([-1.0, 2.0], dtype=strided.float64), 0.1).tolist()
    [-0.1, 2.0]
    """
    return _run(LEAKY_RELU, input, (_num(negative_slope, "leaky_relu", "negative_slope", 2),))


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    """In-place :func:`leaky_relu` (``F.leaky_relu(x, negative_slope, inplace=True)``)."""
    if input.__class__ is Tensor and type(negative_slope) is float \
            and _inplace_fast(LEAKY_RELU, input, negative_slope, 0, "leaky_relu_"):
        return input
    return _inplace(LEAKY_RELU, leaky_relu, input, (_num(negative_slope, "leaky_relu_", "negative_slope", 2),))


def _bounds(min_val: Any, max_val: Any, fn: str = "hardtanh") -> tuple[float, float]:
    # (F.hardtanh compares the bounds as given before anything converts them: a string or None
    # is Python's own TypeError of that comparison, as PyTorch's, not float()'s ValueError)
    if min_val > max_val:
        raise StridedValueError(join_lines("min_val cannot be greater than max_val",
                                           f"min_val is {min_val} and max_val {max_val}"))
    return _num(min_val, fn, "min_val", 2), _num(max_val, fn, "max_val", 3)


# The C++ types of PyTorch's "value cannot be converted to type ... without overflow"
_INT_C_NAMES = {int8: "int8_t", uint8: "uint8_t", int16: "int16_t", int32: "int", int64: "int64_t"}


def _integer_bounds(d: DType, lo: float, hi: float) -> tuple[int, int]:
    """PyTorch's hardtanh on an integer tensor: the bounds truncated to integers (``toLong``, no
    type promotion: the result keeps the input's dtype), with its refusals: bool, uint8 with a
    negative limit, a limit the dtype cannot hold; complex and uint16/32/64 as its clamp refuses."""
    if d is bool_:
        raise StridedRuntimeError(join_lines("Bool inputs not supported for hardtanh",
                                             "hardtanh clamps numbers; the input is bool",
                                             "fix: convert first: F.hardtanh(x.to(strided.int64))"))
    if d.is_complex:
        raise StridedNotImplementedError(join_lines("clamp is not supported for complex types",
                                                    "hardtanh is a clamp, and complex numbers have no order",
                                                    "fix: hardtanh the real and imaginary parts apart"))
    values = []
    for v in (lo, hi):
        if not -(2.0 ** 63) <= v < 2.0 ** 63:
            raise _overflow("int64_t", v)
        values.append(int(v))  # (C++'s conversion: toward zero)
    if d not in _INT_C_NAMES:
        raise float_only("clamp_scalar_cpu", d, "hardtanh")
    if d is uint8 and min(values) < 0:
        raise StridedRuntimeError(join_lines("cannot do hardtanh on an unsigned type with negative limits",
                                             f"the input is uint8 and the limits are {lo} and {hi}",
                                             "fix: limits of 0 or more, or convert the input to a signed dtype"))
    info = np.iinfo(d.numpy)
    for v in values:
        if not info.min <= v <= info.max:
            raise _overflow(_INT_C_NAMES[d], v)
    return values[0], values[1]


def _overflow(ctype: str, v: Any) -> StridedRuntimeError:
    return StridedRuntimeError(join_lines(f"value cannot be converted to type {ctype} without overflow",
                                          f"hardtanh's limit {v} does not fit the input's dtype",
                                          "fix: a limit inside the dtype's range"))


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    """``x`` clamped to ``[min_val, max_val]``, elementwise. An integer tensor keeps its dtype, its
    limits truncated to integers (as PyTorch: ``hardtanh(int64 tensor, 0.5, 2.7)`` clamps to [0, 2]).

    >>> hardtanh(strided.tensor([-3.0, 0.5, 2.0])).tolist()
    [-1.0, 0.5, 1.0]
    """
    return _run(HARDTANH, input, _bounds(min_val, max_val))


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    """In-place :func:`hardtanh` (``F.hardtanh(x, min_val, max_val, inplace=True)``)."""
    return _inplace(HARDTANH, hardtanh, input, _bounds(min_val, max_val, "hardtanh_"))


def _fresh_of(row: Activation, params: Callable[..., tuple]) -> Callable[..., Tensor | None]:
    """The fresh fast path of ``row``'s function for its entry (``__fresh__``, read by
    :func:`strided.grad_mode.below_autograd` and :func:`strided.grad_mode.track`): :func:`_fast`'s
    result for the function's own arguments (``params`` converts them as the function does), or
    None where the function's other paths must run. The entry then skips the function's grad-mode
    switch and calls (a third of a small ``F.silu``); its result is pure NumPy into fresh memory."""

    def fresh(input: Any, *args: Any) -> Tensor | None:
        return _fast(row, input, params(*args))

    return fresh


def plain_fresh(row: Activation, input: Any, params: tuple) -> Tensor | None:
    """:func:`_fast`'s result where the recording entry would run it first (a plain tensor outside
    autograd, nobody listening: then grad mode and recording are nothing to it), else None. For
    ``strided.nn.functional``'s wrappers, which then skip the entry and its grad-mode switch (three
    Python calls of a small ``F.silu``'s seven)."""
    if input.__class__ is Tensor and input._ag is None and not OPEN:
        return _fast(row, input, params)
    return None


def fresh_front(wrapper: Callable[..., Tensor], row: Activation) -> Callable[..., Tensor]:
    """``wrapper`` (``strided.nn.functional``'s form of ``row``) behind a compiled front
    (:mod:`.._support.front`) for its one-argument call on a plain row-major float32 / float64
    tensor outside autograd (nobody listening): the compiled pass :func:`_fast` runs first, made
    in C (:func:`_front_kernel`); every other call, and that one where the pass does not run,
    goes to ``wrapper``. ``wrapper`` itself where ``row`` has no such pass."""
    table = {}
    for d in (float32, float64):
        kernel = _front_kernel(row, d.numpy)
        if kernel is not None:
            table[d] = (None, True, None, kernel)  # (no fn: where the kernel refuses, the wrapper runs)
    # (_fast's dense_run path: a transpose too; not for a row whose result is row-major whatever the input)
    return compiled_front(wrapper, 1, table, dense=() if row.contiguous else tuple(table))


def _front_kernel(row: Activation, dtype: np.dtype) -> tuple | None:
    """:func:`_fast`'s compiled pass for ``row`` at its default parameters on a flat run of
    ``dtype`` as a front's :func:`kernel_entry`: silu's and elu's torch_loop calls (one chunk;
    elu's the kernel's ELU, :func:`_elu_compiled`'s at alpha 1), hardtanh's clamp to [-1, 1] (clamp_scalar:
    np.clip's bits where the bounds are no zeros), leaky_relu's unary_exact pass at slope 0.01;
    softplus's torch_loop call (the kernel's SOFTPLUS at beta 1, threshold 20);
    a row's own ``front`` (activations_more's piecewise rows); None for the other rows."""
    if row.front is not None:
        return row.front(dtype)
    if row is SILU or row is ELU or row is SOFTPLUS:
        # (elu: the kernel's ELU, x where x > 0 else expm1, _elu_compiled's call; softplus: its
        # SOFTPLUS at the kernel's default parameters, beta 1 and threshold 20, F.softplus's)
        call = flat_call(_SILU_OP if row is SILU else _ELU_OP if row is ELU else _SOFTPLUS_OP, dtype)
        return None if call is None else kernel_entry(call[0], call[1], dtype, call[2])
    k = native._compiled("_specialkernel")  # (the module itself: the front reads the switch per call)
    if row is HARDTANH:
        # (np.clip's bits at the default bounds -1 and 1: no tie of signed zeros there, a NaN kept as it is)
        return kernel_entry(getattr(k, "clamp_scalar", None), (-1.0, 1.0, 3), dtype)
    if row is LEAKY_RELU:  # (_leaky_relu_compiled's call at the default slope, 0.01)
        return kernel_entry(getattr(k, "unary_exact", None), (2, 0.01), dtype)
    return None


silu.__fresh__ = _fresh_of(SILU, lambda: ())  # type: ignore[attr-defined]
softplus.__fresh__ = _fresh_of(SOFTPLUS, lambda beta=1.0, threshold=20.0: (_num(beta, "softplus", "beta", 2), _num(threshold, "softplus", "threshold", 3)))  # type: ignore[attr-defined]
elu.__fresh__ = _fresh_of(ELU, lambda alpha=1.0: (_num(alpha, "elu", "alpha", 2),))  # type: ignore[attr-defined]
leaky_relu.__fresh__ = _fresh_of(LEAKY_RELU, lambda negative_slope=0.01: (_num(negative_slope, "leaky_relu", "negative_slope", 2),))  # type: ignore[attr-defined]
hardtanh.__fresh__ = _fresh_of(HARDTANH, lambda min_val=-1.0, max_val=1.0: _bounds(min_val, max_val))  # type: ignore[attr-defined]

def elu_inplace_table(op: int) -> dict[DType, tuple[int, int, int]]:
    """The in-place capsule's table for the sleef ``op`` (SELU, ELU): per dtype, the op, the step and
    the run length of :func:`flat_call`'s own call, the pass ``_elu_flat``'s in-place form makes."""
    table = {}
    for d in (float32, float64):
        call = flat_call(op, d.numpy)
        if call is not None:
            table[d] = (op, call[1][3], call[2])
    return table


# (elu_(x) / elu_(x, 1.0), the common call, written in C by the entry front: _sleefkernel's ELU pass
# over the run (x where x > 0, else the kernel's expm1), _elu's torch_loop call at alpha 1 over the
# same one-chunk run, as celu_ at alpha 1 has it; the capsule refuses another alpha: the forward)
compiled_inplace(elu_, native._compiled("_sleefkernel"), "elu_", elu_inplace_table(_ELU_OP))
# (leaky_relu_(x, slope) with an exact float slope: _specialkernel's op 3 over the run, the same
# write as _inplace_fast's activation_inplace code 0, declining the slopes that path declines)
compiled_inplace(leaky_relu_, native._compiled("_specialkernel"), "leaky_relu_",
                 {float32: (3, 0, 1 << 62), float64: (3, 0, 1 << 62)})

seal(globals(), functional=True)  # (last: the rows' functions become their recording entries)
# the kinds of this module's ops, in the op registry (after the seal: the forwards are the entries)
declare(Kind.COMPUTE, "F.silu F.softplus F.elu F.leaky_relu F.hardtanh")
# (torch.nn.functional's in-place spellings: F.elu_(x) is F.elu(x, inplace=True))
declare(Kind.WRITE, "F.elu_ F.leaky_relu_")
# (F.elu_ and F.leaky_relu_ have no recording entry (F.elu(x, inplace=True)'s spellings, no rule of
# their own): their common call, the compiled write marked above, is made in C by an entry front
# (mode 2: a plain first operand outside autograd, nobody listening) whose every other call is the
# forward itself)
elu_ = entry_front(elu_, elu_, 2, None)
leaky_relu_ = entry_front(leaky_relu_, leaky_relu_, 2, None)
