"""More activations of ``torch.nn.functional`` as unary rows of :mod:`.activations`: ``hardsigmoid``,
``hardswish``, ``hardshrink``, ``softshrink``, ``threshold``, ``selu``, ``celu``, ``mish``,
``logsigmoid`` and ``rrelu`` (evaluation mode: ``leaky_relu`` at the slope ``(lower + upper) / 2``).
``relu6``, ``softsign``, ``tanhshrink`` and ``rrelu``'s training mode are compositions in
:mod:`strided.nn.functional.activations`, as PyTorch writes them.

Each is one :class:`.activations.Activation` row, run by the same :func:`.activations._run`
(float inputs only, but ``threshold``, which takes integers as PyTorch's kernel does; float16 and
bfloat16 computed in float32 and rounded once), with PyTorch's node name and its backward formula
(derivatives.yaml / its CPU backward kernels): the first-order gradient in one NumPy pass, the
``create_graph=True`` one from strided's recording ops, so it differentiates again.

Bits. PyTorch's kernels are written out in NumPy, in their order of operations:
``hardsigmoid`` ``min(max(x + 3, 0), 6) / 6``, ``hardswish`` ``x * min(max(x + 3, 0), 6) / 6``,
``hardshrink``, ``softshrink``, ``threshold`` (selections, parameters rounded to the input's
dtype), ``selu`` and ``celu`` (PyTorch's elu kernel: ``x * scale`` where ``x > 0``, else
``expm1(x * input_scale) * (alpha * scale)``, its expm1 SLEEF's / the C library's at PyTorch's
places, :func:`strided.kernels.sleef.torch_loop`) are PyTorch's bits in float32 and float64.
``logsigmoid`` (``min(x, 0) - log1p(exp(-|x|))``) is PyTorch's bits in float32 and float64 (SLEEF's
exp and log1p at every element, compiled: :func:`_logsigmoid_compiled`). ``mish``
(``x * tanh(log1p(exp(x)))``) is PyTorch's bits in float32 and float64 (SLEEF's exp, log1p and tanh
where its loop is vectorized, the C library's in its scalar tail, compiled: :func:`_mish_compiled`).

Their rules are registered as ``"F.<name>"``; ``hardshrink``, ``selu``, ``celu``, ``threshold`` and
``rrelu`` are also ``torch.<name>`` (and ``hardshrink`` a Tensor method), so those spellings name the
same op; so are the in-place ``torch.selu_`` / ``celu_`` / ``threshold_`` / ``rrelu_`` and their
``F.<name>_``. ``torch.rrelu(x, lower, upper, training=True, generator)`` (and ``F.rrelu``'s
training mode) draws its slopes with :func:`rrelu_noise` and multiplies.

>>> hardswish(strided.tensor([-4.0, 0.0, 1.0, 4.0])).tolist()  # doctest: +ELLIPSIS
[-0.0, 0.0, 0.666..., 4.0]
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from ...dispatch import OPEN, adopted, report, result_array
from ...dtypes import TORCH_NAME, DType, bfloat16, bool_, float16, float32, float64
from ...errors import StridedRuntimeError, join_lines
from ...grad_mode import SavedLater
from ...gradients import not_differentiable, seal
from ...kernels import native
from ...kernels.blocked import row_major
from ...kernels.elementwise import _TYPED0_DTYPES, _clip
from ...kernels.fpstate import QUIET, quiet_call, quiet_reset, quiet_retry, quiet_set
from ...kernels.sleef import ELU as _ELU_OP
from ...kernels.sleef import EXP as _EXP_OP
from ...kernels.sleef import EXPM1 as _EXPM1_OP
from ...kernels.sleef import LIBM_EXP as _LIBM_EXP_OP
from ...kernels.sleef import MISH as _MISH_OP
from ...kernels.sleef import MISH_T as _MISH_T_OP
from ...kernels.sleef import SELU as _SELU_OP
from ...kernels.sleef import SIGMOID as _SIGMOID_OP
from ...kernels.sleef import _chunk as _sleef_chunk
from ...kernels.sleef import _grain as _sleef_grain
from ...kernels.sleef import flat_call, step, torch_loop
from ...kernels.torch_loops import GRAIN_SIZE, piece_length
from ...opdef import OPDEFS, Kind, declare
from ...tensor import Tensor, tensor_arg
from .._support.front import compiled_front, compiled_inplace, kernel_entry
from .._support.gradtools import linear_backward
from .._support.operands import _cinfo, flat_run
from ..creation.generator import resolve
from ..registry import backward, method
from .activations import (
    _F32_MAX,
    _INT_C_NAMES,
    Activation,
    _all_greater_copy,
    _check_params,
    _fresh_of,
    _inplace,
    _leaky_relu,
    _leaky_relu_compiled,
    _num,
    _run,
    activation_rule_spec,
    bf16_narrow,
    bf16_wide,
    elu_inplace_table,
    elu_second,
    float_only,
    fresh_front,
    fused_grad,
    inplace_flat,
    kernel_grad,
    scalar_nan_grad,
    softplus,
)
from .torch_lanes import AVX2_PAIR, block_nans, lanes, nan_lanes, scalar_places
from .unary import where

__all__ = ["celu", "celu_", "hardshrink", "hardsigmoid", "hardsigmoid_", "hardswish", "hardswish_", "logsigmoid", "mish",
           "mish_", "rrelu", "rrelu_", "selu", "selu_", "softshrink", "threshold", "threshold_"]

# torch.nn.functional.selu's constants (PyTorch's SELU_ALPHA and SELU_SCALE, Activation.cpp)
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _c(v: float, x: np.ndarray) -> Any:
    """``v`` as a scalar of ``x``'s dtype (PyTorch's ``Scalar::to<scalar_t>()``: rounded once).
    A zero is converted uncached: the cache's keys ``0.0 == -0.0`` would hand ``-0.0`` the ``+0.0``
    met first (``threshold(x, 0.0, -0.0)`` wrote +0 after any row's ``_c(0, x)``)."""
    return _typed(v, x.dtype) if v else x.dtype.type(v)


@functools.lru_cache(maxsize=256)
def _typed(v: float, dtype: np.dtype) -> Any:
    # (cached: the rows' constants are a few numbers per dtype; the conversion was a fifth of a small op)
    return dtype.type(v)


@functools.lru_cache(maxsize=64)
def _elu_coefficients(alpha: float, scale: float, input_scale: float, dtype: np.dtype) -> tuple:
    """PyTorch's elu kernel's ``negcoef`` (``alpha * scale`` in the dtype), ``poscoef`` and ``negiptcoef``."""
    t = dtype.type
    return t(alpha) * t(scale), t(scale), t(input_scale), t(0)


# --- the piecewise rows -------------------------------------------------------------------------

# (the compiled unary_exact's codes of the piecewise rows: one pass, the bits of their NumPy forwards)
_HARDSIGMOID, _HARDSWISH, _HARDSHRINK, _SOFTSHRINK, _THRESHOLD = 6, 7, 8, 9, 10


def _exact_compiled(code: int) -> Callable[..., np.ndarray | None]:
    """The row's compiled pass for the small-op fast path (:func:`.activations._fast`'s flat run
    ``x``): the compiled ``unary_exact`` of ``code`` with the row's parameters (rounded to ``x``'s
    dtype there, as :func:`_c` rounds them), the same bits as the row's NumPy forward (the same IEEE
    operations in the same order, the same selections: tests/test_actfast33.py); None where it does
    not run (the kernel off, another dtype, a run it refuses): then the NumPy forward runs."""

    def compiled(x: np.ndarray, *params: float) -> np.ndarray | None:
        k = native.special()
        if k is None or x.dtype not in _TYPED0_DTYPES or not x.flags.c_contiguous:
            return None
        out = np.empty(x.shape, x.dtype)
        return out if k.unary_exact(x, out, code, *params) else None

    return compiled


def _pieces_compiled(code: int) -> Callable[..., np.ndarray | None]:
    """The compiled ``unary_exact`` of ``code`` over a flat run ``x`` cut where PyTorch's loop
    cuts it: each piece (:func:`strided.kernels.torch_loops.piece_length`: the whole run below
    GRAIN_SIZE elements or on one thread, else one parallel chunk) is a row of its vector loop, with
    its own vector blocks and scalar tail, so each piece is one call, its block-dependent words
    (softshrink's scalar zeros, the hard rows' vector NaNs) placed within that piece. ``params(n)``
    gives the call's parameters. None where the kernel does not run (then the NumPy forward)."""

    def compiled(x: np.ndarray, *params: float) -> np.ndarray | None:
        k = native.special()
        if k is None or x.ndim != 1 or x.dtype not in _TYPED0_DTYPES or not x.flags.c_contiguous:
            return None
        n = x.size
        out = np.empty(n, x.dtype)
        piece = piece_length(n) or 1
        for start in range(0, n, piece):  # (a few calls at most: one per chunk)
            stop = start + piece
            if not k.unary_exact(x[start:stop], out[start:stop], code, *params):
                return None
        return out

    return compiled


def _softshrink_compiled(x: np.ndarray, lambd: float) -> np.ndarray | None:
    """:func:`_softshrink`'s compiled pass on a flat run, piece by piece (:func:`_pieces_compiled`:
    each piece's scalar places are its tail of ``len % st`` elements, st the lanes
    :func:`.torch_lanes.scalar_places` counts, 0 for every element); None otherwise (then ``_softshrink``)."""
    return _SOFTSHRINK_PASS(x, lambd, lanes(x.dtype, AVX2_PAIR))


_SOFTSHRINK_PASS = _pieces_compiled(_SOFTSHRINK)


def _exact_front(code: int, *defaults: float,
                 units: Callable[[DType], tuple[int, bool]] | None = None) -> Callable[[np.dtype], tuple | None]:
    """The row's ``front``: :func:`_exact_compiled`'s ``unary_exact`` call at the default parameters
    ``defaults`` as a front's :func:`kernel_entry` (softshrink's with its lanes for the dtype, on runs
    of fewer than GRAIN_SIZE elements, as :func:`_softshrink_compiled`; hardsigmoid's and hardswish's
    with their vector NaN blocks ``units``, as :func:`_lanes_compiled`); None where not built."""

    def front(dtype: np.dtype) -> tuple | None:
        k = native._compiled("_specialkernel")  # (the module itself: the front reads the switch per call)
        run = getattr(k, "unary_exact", None)
        if code == _SOFTSHRINK:
            return kernel_entry(run, (code, *defaults, lanes(dtype, AVX2_PAIR)), dtype, GRAIN_SIZE - 1)
        if units is not None:
            unit, half = units(float32 if dtype == np.float32 else float64)
            return kernel_entry(run, (code, unit, int(half)), dtype, GRAIN_SIZE - 1)
        return kernel_entry(run, (code, *defaults), dtype)

    return front


def _lanes_compiled(code: int, units: Callable[[DType], tuple[int, bool]]) -> Callable[..., np.ndarray | None]:
    """hardsigmoid's / hardswish's compiled pass on a flat run, piece by piece
    (:func:`_pieces_compiled`): the forward, then the all-ones NaN word in the vector blocks ``units``
    gives (:func:`_vector_nans`' places for that run), only where the pass met a NaN; None otherwise
    (then the NumPy forward)."""
    run = _pieces_compiled(code)

    def compiled(x: np.ndarray) -> np.ndarray | None:
        unit, half = units(float32 if x.dtype == np.float32 else float64)
        return run(x, unit, int(half))

    return compiled


def _vector_nans(units: Callable[[DType], tuple[int, bool]]) -> Callable[..., np.ndarray | None]:
    """A row's ``vector_nans`` (:class:`.activations.Activation`): the NaN inputs PyTorch's loop
    takes in whole blocks of ``unit`` elements (its vectorized function; the rest of a piece of a
    row, its scalar tail, and strided rows run the scalar function, which keeps the input's NaN):
    there, its ``Vectorized`` maximum / minimum write the all-ones NaN word, and the division that
    follows keeps it. ``units(dtype)``: (unit, half): 0 for no vector lanes; ``half``: only the
    first half of each block's lanes keep that word (hardswish: measured, its compiled product
    ``x * c`` takes the input's NaN in the second Vectorized of each pair)."""

    def nans(values: np.ndarray, shape: tuple, strides: tuple, d: DType) -> np.ndarray | None:
        return block_nans(values, shape, strides, *units(d))

    return nans


def _hardsigmoid_units(d: DType) -> tuple[int, bool]:
    # (PyTorch's hardsigmoid kernel is its AVX2 build under AVX512 too: 2 Vectorized of 8 float32 /
    # 4 float64 / 16 float16 or bfloat16 lanes; measured, every lane all-ones)
    if not step():
        return 0, False
    return (16 if d is float32 else 8 if d is float64 else 32), False


def _hardswish_units(d: DType) -> tuple[int, bool]:
    # (PyTorch's hardswish kernel at the capability's width, step() = 2 Vectorized<float>: measured,
    # float16 keeps the input's NaN everywhere, bfloat16's 2 Vectorized<BFloat16> all-ones)
    s = step()
    if not s or d is float16:
        return 0, False
    return (s if d is float32 else s // 2 if d is float64 else 2 * s), d is not bfloat16


def _hardsigmoid(x: np.ndarray) -> np.ndarray:
    """PyTorch's ``min(max(x + 3, 0), 6) / 6`` (a NaN stays NaN: both bounds keep it)."""
    return np.minimum(np.maximum(x + _c(3, x), _c(0, x)), _c(6, x)) / _c(6, x)


def _hardsigmoid_grad(g: np.ndarray, x: np.ndarray) -> np.ndarray:
    # (PyTorch's hardsigmoid_backward: grad * one_sixth, one_sixth the float 1.0f / 6.0f for every
    # dtype, float64 included: g / 6 differs in the last bit of half the elements)
    return np.where((x > -3) & (x < 3), g * _c(float(np.float32(1.0) / np.float32(6.0)), g), _c(0, g))


def _hardsigmoid_recorded(g: Tensor, x: Tensor) -> Tensor:
    """The gradient under ``create_graph=True``: PyTorch has no derivative of hardsigmoid_backward
    (its node raises when differentiated), so strided gives the same refusal."""
    value = fused_grad(x, _hardsigmoid_grad, g, x)
    return not_differentiable(value, "hardsigmoid_backward", (g, x),
                              "derivative for aten::hardsigmoid_backward is not implemented")


HARDSIGMOID = Activation("hardsigmoid", "hardsigmoid_cpu", "HardsigmoidBackward0", _hardsigmoid,
                         _hardsigmoid_recorded, lambda x, g: _hardsigmoid_grad(g, x),
                         _lanes_compiled(_HARDSIGMOID, _hardsigmoid_units),
                         front=_exact_front(_HARDSIGMOID, units=_hardsigmoid_units),
                         vector_nans=_vector_nans(_hardsigmoid_units), bf16_step=bf16_narrow,
                         inplace_node="HardsigmoidBackward0")


def _hardswish(x: np.ndarray) -> np.ndarray:
    """PyTorch's ``x * min(max(x + 3, 0), 6) / 6``, in that order (``x * (c / 6)`` differs in a fifth)."""
    return x * np.minimum(np.maximum(x + _c(3, x), _c(0, x)), _c(6, x)) / _c(6, x)


def _hardswish_fused(x: np.ndarray, g: np.ndarray) -> np.ndarray:
    # (PyTorch's hardswish_backward: 0 at or below -3, g (x / 3 + 0.5) inside (-3, 3), g at or
    # above 3; a NaN x gives g where its loop runs the scalar function, NaN in its vector lanes)
    y = np.where(x <= -3, _c(0, g), np.where(x < 3, g * (x / _c(3, x) + _c(0.5, x)), g))
    return nan_lanes(x, y, lambda: g * x, 2, g)


def _hardswish_grad(g: Tensor, x: Tensor) -> Tensor:
    # (derivatives.yaml's hardswish_backward derivative: g / 3 only strictly inside (-3, 3))
    inner = where((x > -3) & (x < 3), x, x.detach())
    return where(x <= -3, 0.0, where(x < 3, g * (inner / 3 + 0.5), g))


HARDSWISH = Activation("hardswish", "hardswish_cpu", "HardswishBackward0", _hardswish, _hardswish_grad, _hardswish_fused,
                       _lanes_compiled(_HARDSWISH, _hardswish_units), front=_exact_front(_HARDSWISH, units=_hardswish_units),
                       vector_nans=_vector_nans(_hardswish_units), bf16_step=bf16_wide, inplace_node="HardswishBackward0")


def _shrunk(x: np.ndarray, lambd: float) -> np.ndarray:
    """Where ``-lambd <= x <= lambd`` (lambd rounded to ``x``'s dtype): the shrinks' zero band."""
    lo = _c(lambd, x)
    return (x >= -lo) & (x <= lo)


def _hardshrink(x: np.ndarray, lambd: float) -> np.ndarray:
    """PyTorch's ``(x >= -lambd && x <= lambd) ? 0 : x`` (a NaN stays itself), as ``|x| <= lambd``
    (the same selection in one NumPy call fewer)."""
    return np.where(np.abs(x) <= _c(lambd, x), _c(0, x), x)


def _softshrink(x: np.ndarray, lambd: float) -> np.ndarray:
    """PyTorch's ``x > l ? x - l : (x < -l ? x + l : 0)``, a NaN kept as it is (as PyTorch's).
    The zero band's sign is PyTorch's too: its vectorized function gives +0, its scalar one
    ``x * 0`` (-0 for a negative ``x``), so the elements its loop leaves to the scalar function
    (a row's tail, every element of a non-contiguous row, a 0-d input:
    :func:`strided.kernels.torch_loops.scalar_loop_mask`) take ``x * 0``."""
    lo = _c(lambd, x)
    # (x - clamp(x, -l, l): x - l above the band, x - (-l) == x + l exactly below it, x - x == +0
    # inside it (the vector lanes' zero), a NaN itself: the same bits in two NumPy calls, not five)
    y = np.subtract(x, _clip(x, -lo, lo))
    places = scalar_places(x, AVX2_PAIR)
    if places is None:
        return y
    if places.__class__ is slice:  # (a flat run's scalar tail)
        tail = y[places]
        tail[...] = np.where(tail == 0, x[places] * _c(0, x), tail)
        return y
    return np.where(places & (y == 0), x * _c(0, x), y)


def _shrink_rule_grad(node: str) -> Callable[..., Tensor]:
    def grad(g: Tensor, x: Tensor, lambd: float) -> Tensor:
        # (a NaN x: 0 in PyTorch's vector lanes, gg where its loop runs the scalar function)
        return linear_backward(node, lambda gg: scalar_nan_grad(where((x < -lambd) | (x > lambd), gg, 0.0), gg, x, AVX2_PAIR,
                                                                lambda: gg), g, (x,))

    return grad


def _shrink_fused(x: np.ndarray, g: np.ndarray, lambd: float) -> np.ndarray:
    # (PyTorch's shrink backward: g outside the zero band; a NaN x gives g where its loop runs the
    # scalar function, 0 in its vector lanes)
    return nan_lanes(x, np.where(_shrunk(x, lambd), _c(0, g), g), _c(0, g), AVX2_PAIR, g)


HARDSHRINK = Activation("hardshrink", "hardshrink_cpu", "HardshrinkBackward0", _hardshrink,
                        _shrink_rule_grad("HardshrinkBackwardBackward0"), _shrink_fused, _exact_compiled(_HARDSHRINK),
                        front=_exact_front(_HARDSHRINK, 0.5), typed=(0,))
SOFTSHRINK = Activation("softshrink", "softshrink_check", "SoftshrinkBackward0", _softshrink,
                        _shrink_rule_grad("SoftshrinkBackwardBackward0"), _shrink_fused, _softshrink_compiled,
                        front=_exact_front(_SOFTSHRINK, 0.5), bf16_step=bf16_narrow)


def _threshold(x: np.ndarray, th: float, value: float) -> np.ndarray:
    """PyTorch's ``x <= threshold ? value : x`` (both rounded to ``x``'s dtype; a NaN stays itself)."""
    return np.where(x <= _c(th, x), _c(value, x), x)


def _threshold_integers(d: DType, th: float, value: float) -> tuple[int, int]:
    """PyTorch's threshold of an integer tensor: both numbers checked against the dtype's range
    (``to<scalar_t>``: a number outside ``[min, max]``, NaN included, is its overflow error), then
    truncated to integers; bool refused as its kernel refuses it."""
    if d is bool_ or d.is_complex or d not in _INT_C_NAMES:
        raise float_only("threshold_cpu", d, "threshold")
    info = np.iinfo(d.numpy)
    out = []
    for v in (th, value):
        if not info.min <= v <= info.max:  # (PyTorch's checked conversion: 127.9 overflows int8, -0.5 uint8)
            raise StridedRuntimeError(join_lines(
                f"value cannot be converted to type {_INT_C_NAMES[d]} without overflow",
                f"threshold's number {v} is not inside {d.name}'s range [{info.min}, {info.max}]",
                "fix: numbers the input's dtype holds, or convert the input first: x.to(strided.float32)"))
        out.append(int(v))
    return out[0], out[1]


THRESHOLD = Activation(
    "threshold", "threshold_cpu", "ThresholdBackward0", _threshold,
    lambda g, x, th, value: linear_backward("ThresholdBackwardBackward0",
                                            lambda gg: where(x <= th, 0.0, gg), g, (x,)),
    lambda x, g, th, value: np.where(x <= _c(th, x), _c(0, g), g),
    _exact_compiled(_THRESHOLD), integers=_threshold_integers, overlap_ok=True, typed=(1,),
    inplace_node="ThresholdBackward1")


# --- the exponential rows -----------------------------------------------------------------------


def _elu_general(x: np.ndarray, alpha: float, scale: float, input_scale: float) -> np.ndarray:
    """PyTorch's elu kernel with all three coefficients: ``x * scale`` where ``x > 0``, else
    ``expm1(x * input_scale) * (alpha * scale)``, each coefficient rounded to ``x``'s dtype first
    and ``alpha * scale`` their product in it (``negcoef``); expm1 at PyTorch's places
    (:func:`strided.kernels.sleef.torch_loop`; NumPy's where it does not run)."""
    neg, pos, inp, zero = _elu_coefficients(alpha, scale, input_scale, x.dtype)
    xs = x if input_scale == 1.0 else _scaled_in_layout(x, inp)
    if xs.__class__ is not np.ndarray or not xs.ndim:
        # (a 0-d x, whose product is a NumPy scalar: PyTorch's one element is its scalar
        # function's, torch_loop's one-element run; NumPy's expm1 was an ulp off, celu_(0-d, 0.5))
        e = torch_loop(np.reshape(xs, (1,)), _EXPM1_OP)
        e = None if e is None else e.reshape(())
    else:
        e = torch_loop(xs, _EXPM1_OP)
    if e is None:
        e = np.expm1(xs)
    e = e * neg
    p = x if scale == 1.0 else x * pos
    return np.where(x > zero, p, e)


def _elu_compiled(x: np.ndarray, alpha: float, scale: float, input_scale: float) -> np.ndarray | None:
    """:func:`_elu_general` on a flat run ``x`` (the fast path's) with its products and selection
    in one compiled pass (``unary_exact`` code 11: ``x > 0 ? x * pos : e * neg`` over the
    exponentials, the same IEEE products as NumPy's, each element's selected one), after the same
    ``x * input_scale`` and torch_loop's expm1; None where the kernel or torch_loop does not run
    (then :func:`_elu_general`)."""
    k = native.special()
    if k is None or x.dtype not in _TYPED0_DTYPES or not x.flags.c_contiguous:
        return None
    neg, pos, inp, _ = _elu_coefficients(alpha, scale, input_scale, x.dtype)
    if input_scale == 1.0:
        xs = x
    else:  # (a flat run is C-contiguous: _scaled_in_layout's product, in the quiet state the forward runs in)
        token = quiet_set(QUIET)
        try:
            xs = x * inp
        finally:
            quiet_reset(token)
    call = _EXPM1_CALLS.get(x.dtype)
    if call is None:
        call = _EXPM1_CALLS[x.dtype] = flat_call(_EXPM1_OP, x.dtype) or ()
    if call and xs.flags.aligned and xs.ndim == 1 and len(xs) <= call[2] and native.sleef() is not None:
        e = np.empty(len(xs), x.dtype)  # (torch_loop's one-chunk call on a small flat run, made here)
        call[0](xs, e, *call[1])
    else:
        e = torch_loop(xs, _EXPM1_OP)
    if e is None or e.__class__ is not np.ndarray or e.dtype != x.dtype or e.shape != x.shape:
        return None
    return e if k.unary_exact(x, e, 11, float(pos), float(neg)) else None


_EXPM1_CALLS: dict[np.dtype, tuple] = {}  # (dtype -> flat_call(EXPM1)'s (run, extra, max_n), () where none)


def _scaled_in_layout(x: np.ndarray, c: Any) -> np.ndarray:
    """``x * c`` laid out with ``x``'s own strides (over a fresh buffer spanning them), so the
    expm1 of it runs at the places PyTorch's loop over ``x`` gives (its scalar and vectorized
    functions differ in the last bit: a product made contiguous moved a stepped input's elements
    into vector blocks); a plain product where ``x`` has a negative stride or is 0-d."""
    if x.__class__ is not np.ndarray or not x.ndim or x.size == 0 or min(x.strides) < 0 or x.flags.c_contiguous:
        return x * c
    span = sum((n - 1) * st for n, st in zip(x.shape, x.strides, strict=True)) // x.itemsize + 1
    out = np.lib.stride_tricks.as_strided(np.empty(span, x.dtype), x.shape, x.strides)
    np.multiply(x, c, out=out)
    return out


def _elu_grad(g: Tensor, x: Tensor, alpha: float, scale: float, input_scale: float) -> Tensor:
    # (the exp through x only where x < 0: PyTorch's elu double backward masks with self < 0)
    inner = where(x < 0, x, x.detach())
    value = where(x > 0, g * scale, g * input_scale * (alpha * scale) * (inner * input_scale).exp())
    return scalar_nan_grad(value, g, x, 2, lambda: g if scale == 1 else g * scale)


def _elu_fused(x: np.ndarray, g: np.ndarray, alpha: float, scale: float, input_scale: float) -> np.ndarray:
    # (PyTorch's elu_backward of the input: x <= 0 ? g * input_scale * negcoef * exp(x * input_scale) : g * scale
    # in its scalar function; a NaN x is NaN in its vector lanes, whose blend keeps g * scale only where x > 0)
    neg = _c(alpha, x) * _c(scale, x)
    y = np.where(x <= 0, g * _c(input_scale, x) * neg * np.exp(x * _c(input_scale, x)), g * _c(scale, x))
    return nan_lanes(x, y, lambda: g * x, 2, g)


SELU = Activation("selu", "elu_cpu", "EluBackward0",
                  lambda x: _elu_general(x, SELU_ALPHA, SELU_SCALE, 1.0),
                  lambda g, x: _elu_grad(g, x, SELU_ALPHA, SELU_SCALE, 1.0),
                  lambda x, g: _elu_fused(x, g, SELU_ALPHA, SELU_SCALE, 1.0),
                  lambda x: _elu_compiled(x, SELU_ALPHA, SELU_SCALE, 1.0),
                  result_backward=lambda: ("EluBackward1", SELU_ALPHA, SELU_SCALE, 1.0), bf16_step=bf16_wide,
                  second=elu_second(lambda: SELU, lambda: (SELU_ALPHA, SELU_SCALE, 1.0)), kernel_layout=True,
                  names=lambda x: {"alpha": SELU_ALPHA, "scale": SELU_SCALE, "input_scale": 1, "self": x})


def _celu_grad_scale(a: float) -> float:
    """celu's ``input_scale`` in its gradient: derivatives.yaml's ``1.0 / alpha.toFloat()``, alpha
    rounded to float first (the forward's is ``1.0 / alpha`` in double): PyTorch's own numbers."""
    return 1.0 / float(np.float32(a))


CELU = Activation("celu", "elu_cpu", "CeluBackward0",
                  lambda x, a: _elu_general(x, a, 1.0, 1.0 / a),
                  lambda g, x, a: _elu_grad(g, x, a, 1.0, _celu_grad_scale(a)),
                  lambda x, g, a: _elu_fused(x, g, a, 1.0, _celu_grad_scale(a)),
                  lambda x, a: _elu_compiled(x, a, 1.0, 1.0 / a),
                  result_backward=lambda a: ("CeluBackward1", a, 1.0, _celu_grad_scale(a)), bf16_step=bf16_wide,
                  second=elu_second(lambda: CELU, lambda a: (a, 1.0, _celu_grad_scale(a))), kernel_layout=True,
                  names=lambda x, a: {"alpha": a, "self": x})


def _exp(x: np.ndarray) -> np.ndarray:
    """``exp(x)`` with SLEEF's exp where PyTorch's vectorized loop takes it (float32 / float64)."""
    e = torch_loop(x, _EXP_OP) if x.__class__ is np.ndarray and x.ndim else None
    return np.exp(x) if e is None else e


def _mish(x: np.ndarray) -> np.ndarray:
    """PyTorch's ``x * tanh(log1p(exp(x)))``: its bits where the compiled pass runs
    (:func:`_mish_compiled`), else NumPy's ufuncs over SLEEF's exp where PyTorch's loop takes it
    (within a few ulps)."""
    res = _mish_compiled(x)
    if res is not None:
        return res
    return x * np.tanh(np.log1p(_exp(x)))


def _mish_compiled(x: np.ndarray) -> np.ndarray | None:
    """PyTorch's float32 / float64 mish of ``x`` (any layout; float16 / bfloat16 arrive in float32,
    PyTorch's compute type there): mish_kernel is a ``cpu_kernel_vec`` loop whose vectorized function
    is ``x * x.exp().log1p().tanh()`` (SLEEF's u10 functions) and whose scalar one takes the C
    library's, so the elements take :func:`strided.kernels.sleef.torch_loop`'s split (``MISH``; a NaN
    gives the all-ones word in the second Vectorized of each pair, as PyTorch's lanes do). None where
    the kernel does not run (then NumPy's ufuncs)."""
    if x.__class__ is not np.ndarray:
        return None
    return torch_loop(x, _MISH_OP)


def _mish_front(dtype: np.dtype) -> tuple | None:
    """The row's ``front``: :func:`_mish_compiled`'s one-chunk torch_loop call as a front's
    :func:`kernel_entry` (None where the kernel is not built)."""
    call = flat_call(_MISH_OP, dtype)
    return None if call is None else kernel_entry(call[0], call[1], dtype, call[2])


def _mish_fused(x: np.ndarray, g: np.ndarray) -> np.ndarray:
    # (PyTorch's mish_backward kernel: g (t + x s (1 - t t)), s = sigmoid(x), t = tanh(softplus(x)))
    res = _mish_grad_compiled(x, g)
    if res is not None:
        return res
    one = _c(1, x)
    s = one / (one + np.exp(-x))
    t = np.tanh(np.log1p(np.exp(x)))
    return g * (t + x * s * (one - t * t))


def _mish_grad_compiled(x: np.ndarray, g: np.ndarray) -> np.ndarray | None:
    """PyTorch's float32 / float64 mish_backward of ``x`` and ``g`` (one shape) as a fresh row-major
    array: its cpu_kernel_vec loop takes t = tanh(softplus(x)) and s = sigmoid(x) from SLEEF where
    vectorized, the C library in its tail (the SLEEF kernel's MISH_T and SIGMOID splits over ``x``:
    PyTorch's places where ``x`` and ``g`` share a dense layout), then ``g * fma(x s, fma(-t, t, 1), t)``,
    the fused steps its compiled AVX512 / AVX2 kernels take (measured), one IEEE step each under ATen's
    DEFAULT capability. A NaN's word is not PyTorch's lanes' (the value is NaN). None where the kernel
    does not run (then NumPy's formula, within a few ulps)."""
    k = native.sleef()
    if k is None or x.__class__ is not np.ndarray or g.__class__ is not np.ndarray or x.dtype != g.dtype \
            or x.shape != g.shape:
        return None
    t = torch_loop(x, _MISH_T_OP)
    s = torch_loop(x, _SIGMOID_OP) if t is not None else None
    if s is None:
        return None
    out = np.empty(x.shape, x.dtype)
    flat = [np.ascontiguousarray(a).reshape(-1) for a in (x, g, t, s)]
    k.mish_grad(*flat, out.reshape(-1), 1 if step() else 0)
    return out


def _mish_grad(g: Tensor, x: Tensor) -> Tensor:
    # (PyTorch's infinitely_differentiable_mish_backward, grad mode on)
    s = x.sigmoid()
    t = softplus(x).tanh()
    return g * (t + x * s * (1.0 - t * t))


MISH = Activation("mish", "mish_cpu", "MishBackward0", _mish, _mish_grad, _mish_fused, _mish_compiled,
                  front=_mish_front, bf16_step=bf16_wide, inplace_node="MishBackward0")


def _logsigmoid(x: np.ndarray) -> np.ndarray:
    """PyTorch's ``min(x, 0) - log1p(exp(-|x|))`` (no overflow at either end): its bits from the
    compiled pass (:func:`_logsigmoid_compiled`), else NumPy's ``log1p`` over SLEEF's exp where
    PyTorch's loop takes it (within a few ulps)."""
    values = _logsigmoid_compiled(x)
    if values is not None:
        return values
    return np.minimum(x, _c(0, x)) - np.log1p(_exp(-np.abs(x)))


def _logsigmoid_compiled(x: np.ndarray) -> np.ndarray | None:
    """PyTorch's float32 / float64 log_sigmoid of ``x`` (any layout) as a fresh row-major array, bit
    for bit: the compiled ``log_sigmoid_run`` (_sleef_log1p.h) takes SLEEF's exp and log1p at every
    element, as log_sigmoid_cpu_kernel does under AVX2 and AVX512 (its tail a partial vector, so an
    element's bits do not depend on its place: any layout, any thread count), a NaN giving the
    all-ones word (vec::minimum's NaN); float16 / bfloat16 arrive in float32, PyTorch's compute
    type there too. None where it does not run (the kernel not built, another dtype, ATen's DEFAULT
    capability, whose std::exp and std::log1p are not this)."""
    k = native.special()
    if k is None or x.dtype not in _TYPED0_DTYPES or not step():
        return None
    out = np.empty(x.shape, x.dtype)
    # (a transposed x read through the blocked copy: 1M float32 ~1 ms where NumPy's transposing
    # ascontiguousarray takes 5-7; the kernel's bits do not depend on an element's place)
    src = x if x.flags.c_contiguous else np.ascontiguousarray(row_major(x))
    return out if k.log_sigmoid_run(src, out) else None


def _logsigmoid_front(dtype: np.dtype) -> tuple | None:
    """The row's ``front``: :func:`_logsigmoid_compiled`'s ``log_sigmoid_run`` as a front's
    :func:`kernel_entry` (None under ATen's DEFAULT capability: then the entry runs)."""
    if not step():
        return None
    return kernel_entry(getattr(native._compiled("_specialkernel"), "log_sigmoid_run", None), (), dtype)


def _logsigmoid_fused(x: np.ndarray, g: np.ndarray) -> np.ndarray:
    """PyTorch's log_sigmoid_backward: ``(max_deriv - sign * (z / (1 + z))) * g`` with z the
    forward's buffer ``exp(-|x|)`` (SLEEF's exp at every element: log_sigmoid_cpu_kernel's own
    vector loop, :data:`_EXP_OP` over the whole run gives its bits); x < 0: max_deriv and sign 1,
    else 0 and -1, whose ``0 - (-1 * q)`` is ``q`` itself (a NaN ``q`` kept as it is: x86's
    product and difference return the NaN operand). The product in that order: a NaN of both
    factors is the first's. float32 / float64 are PyTorch's bits (NumPy's exp was an ulp off in
    ~17% of float32 elements, and +NaN where PyTorch's buffer gives -|NaN|'s NaN)."""
    one = _c(1, x)
    if x.ndim:
        nx = np.abs(x)
        np.negative(nx, out=nx)  # (-|x| in the fresh |x|: one temporary fewer)
        z = _exp_all(nx)
        q = z / np.add(one, z, out=nx)
    else:  # (a 0-d x: NumPy's scalars, no out=)
        z = _exp_all(np.negative(np.abs(x)))
        q = z / (one + z)
    return np.multiply(np.where(x < 0, one - q, q), g)


def _exp_all(x: np.ndarray) -> np.ndarray:
    """SLEEF's exp of every element of ``x`` (float32 / float64, the kernel built, AVX2 / AVX512
    capability: log_sigmoid_cpu_kernel's partial-vector tail; the C library's under DEFAULT, whose
    Vectorized exp is std::exp lane by lane), else NumPy's. A fresh array of ``x``'s shape."""
    k = native.sleef()
    if k is None or not isinstance(x, (np.ndarray, np.floating)) or x.dtype not in _TYPED0_DTYPES:
        return np.exp(x)
    if x.__class__ is not np.ndarray or not x.ndim:  # (a 0-d x, or its NumPy scalar: one element)
        return _exp_all(np.reshape(x, (1,))).reshape(())
    if not (x.flags.c_contiguous and x.flags.aligned):
        x = np.ascontiguousarray(x)  # (elementwise: any order gives the same values)
    st = step()
    op = _EXP_OP if st else _LIBM_EXP_OP
    res = np.empty(x.shape, x.dtype)  # (torch_loop's one-row call, made here: its checks were a third of a small call)
    if x.dtype == np.float32:
        k.run(x.reshape(-1), res.reshape(-1), op, 0, 0, st, -1)
    else:
        k.run_d(x.reshape(-1), res.reshape(-1), op, 0, 0, st // 2, -1)
    return res


# (row-major results whatever the input's layout: PyTorch's log_sigmoid_forward allocates them so)
LOGSIGMOID = Activation("logsigmoid", "log_sigmoid_cpu", "LogSigmoidBackward0", _logsigmoid,
                        lambda g, x: g * (-x).sigmoid(), _logsigmoid_fused, _logsigmoid_compiled, contiguous=True,
                        front=_logsigmoid_front, bf16_step=lambda: -1 if step() else 0,
                        second=("LogSigmoidBackwardBackward0", lambda gg, g, x: _logsigmoid_double(gg, g, x),
                                lambda g, x: {"buffer": _BUFFER, "grad_output": g, "self": x}),
                        names=lambda x: {"buffer": _BUFFER, "self": x}, kernel_layout=True)


def _logsigmoid_double(gg: Tensor, g: Tensor, x: Tensor) -> tuple:
    """LogSigmoidBackwardBackward0's gradients (derivatives.yaml): log_sigmoid_backward again
    towards ``g``; log_sigmoid_double_backward towards ``x``: ``(gg g) (z - 1) z``, z = sigmoid(x)."""
    z = x.sigmoid()
    return kernel_grad(LOGSIGMOID, gg, x, ()), (gg * g) * (z - 1) * z


def _logsigmoid_buffer(node: Any) -> Tensor:
    """PyTorch's saved ``buffer`` of log_sigmoid_forward, ``exp(-|x|)``, of the node's saved input
    (``_saved_self``: refused once a backward freed it), made when read."""
    return (-node._saved_self.detach().abs()).exp()


_BUFFER = SavedLater(_logsigmoid_buffer)

RRELU = Activation(
    "rrelu", "leaky_relu_cpu", "RreluWithNoiseBackward0", _leaky_relu,
    lambda g, x, k: linear_backward("RreluWithNoiseBackwardBackward0", lambda gg: where(x > 0, gg, gg * k), g, (x,)),
    lambda x, g, k: np.where(x > 0, g, g * k),
    lambda x, k: _leaky_relu_compiled(x, k), contiguous=True,
    # (in place, evaluation mode: PyTorch's rrelu_with_noise_ saves the result, and its backward is
    # leaky_relu_backward's from it; the noise it also saves is unused memory there, not given)
    leaky_result=lambda k: ("RreluWithNoiseBackward1", k, {"training": False}))


def _rule(row: Activation) -> Callable[..., Any]:
    """The backward rule of ``row``'s function, called with the function's own arguments:
    ``params(*args, **kwargs)`` are the row's parameters (as the function converts them)."""
    params_of = _PARAMS[row.name]

    def rule(out: Tensor, input: Tensor, *args: Any, **kwargs: Any) -> Any:
        return activation_rule_spec(row, input, params_of(*args, **kwargs))

    rule.__name__ = f"{row.name}_backward"
    return rule


def _lambd(fn: str) -> Callable[..., tuple]:
    return lambda lambd=0.5: (_num(lambd, fn, "lambd", 2),)


_PARAMS: dict[str, Callable[..., tuple]] = {
    "hardsigmoid": lambda: (),
    "hardswish": lambda: (),
    "hardshrink": _lambd("hardshrink"),
    "softshrink": _lambd("softshrink"),
    "threshold": lambda threshold, value: (_num(threshold, "threshold", "threshold", 2), _num(value, "threshold", "value", 3)),
    "selu": lambda: (),
    "celu": lambda alpha=1.0: (_num(alpha, "celu", "alpha", 2),),
    "mish": lambda: (),
    "logsigmoid": lambda: (),
    "rrelu": lambda lower=1.0 / 8, upper=1.0 / 3: (_slope(lower, upper),),
}

# (torch.hardshrink, torch.threshold, torch.selu, torch.celu, torch.rrelu: ops of torch's namespace, named so,
# whose nn.functional spelling F.<name> is an alias; the others are nn.functional's alone)
_TORCH_NAMED = frozenset(("hardshrink", "threshold", "selu", "celu", "rrelu"))

for _row in (HARDSIGMOID, HARDSWISH, HARDSHRINK, SOFTSHRINK, THRESHOLD, SELU, CELU, MISH, LOGSIGMOID, RRELU):
    if _row.name in _TORCH_NAMED:
        backward(_row.name, "F." + _row.name)(_rule(_row))
    else:
        backward("F." + _row.name)(_rule(_row))


def _float_param_dtype(input: Any) -> DType | None:
    return input._dtype if isinstance(input, Tensor) else None


def _rounded(input: Any, *values: float) -> tuple:
    """``values`` rounded to a float16 / bfloat16 input's dtype (PyTorch's hardshrink kernel
    converts lambd to ``scalar_t``: an element equal to the rounded lambd is in the zero band;
    softshrink and threshold compare with the float number, measured): as they are for other dtypes."""
    d = _float_param_dtype(input)
    if d is None or not d.is_floating_point or d.itemsize != 2:
        return values
    _check_params(HARDSHRINK, d, values)  # (past the dtype's max: PyTorch's overflow error, not an inf lambd)
    with np.errstate(all="ignore"):
        return tuple(float(np.asarray(v, dtype=np.float32).astype(d.numpy).astype(np.float64)) for v in values)


def hardsigmoid(input: Tensor) -> Tensor:
    """``min(max(x + 3, 0), 6) / 6`` elementwise (float tensors).

    >>> hardsigmoid(strided.tensor([-4.0, 0.0, 4.0])).tolist()
    [0.0, 0.5, 1.0]
    """
    return _run(HARDSIGMOID, input, ())


def hardsigmoid_(input: Tensor) -> Tensor:
    """In-place :func:`hardsigmoid` (``F.hardsigmoid(x, inplace=True)``)."""
    if input.__class__ is Tensor and inplace_flat(HARDSIGMOID, input, (), "hardsigmoid_"):
        return input  # (a plain row-major / dense float32 / float64 run: the compiled pass, copied back)
    return _inplace(HARDSIGMOID, hardsigmoid, input, ())


def hardswish(input: Tensor) -> Tensor:
    """``x * min(max(x + 3, 0), 6) / 6`` elementwise (float tensors).

    >>> hardswish(strided.tensor([-4.0, 4.0])).tolist()
    [-0.0, 4.0]
    """
    return _run(HARDSWISH, input, ())


def hardswish_(input: Tensor) -> Tensor:
    """In-place :func:`hardswish` (``F.hardswish(x, inplace=True)``)."""
    if input.__class__ is Tensor and inplace_flat(HARDSWISH, input, (), "hardswish_"):
        return input  # (a plain row-major / dense float32 / float64 run: the compiled pass, copied back)
    return _inplace(HARDSWISH, hardswish, input, ())


@method("hardshrink")
def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``0`` where ``-lambd <= x <= lambd``, else ``x`` (float tensors).

    >>> hardshrink(strided.tensor([-1.0, 0.25, 2.0])).tolist()
    [-1.0, 0.0, 2.0]
    """
    return _run(HARDSHRINK, input, _rounded(input, *_lambd("hardshrink")(lambd)))


# the largest finite value of each float dtype (softshrink's bound on lambd)
_DTYPE_MAX = {"float16": 65504.0, "bfloat16": 3.3895313892515355e38, "float32": float(np.finfo(np.float32).max),
              "float64": float(np.finfo(np.float64).max)}


def _check_lambd(input: Any, lambd: float) -> None:
    """PyTorch's softshrink_check: ``lambd`` in ``[0, the largest finite value of x's dtype]``."""
    d = _float_param_dtype(input)
    if d is None or not d.is_floating_point:
        return
    top = _DTYPE_MAX[d.name]
    if not 0 <= lambd <= top:
        raise StridedRuntimeError(join_lines(
            f"lambda must be in range [0, {top:g}] for input dtype {TORCH_NAME[d.name]}, but found {lambd:g}",
            "softshrink moves every element towards 0 by lambd, which must be a number >= 0 the dtype holds",
            f"fix: F.softshrink(x, {abs(lambd) if lambd == lambd else 0.5:g})"))


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``x - lambd`` where ``x > lambd``, ``x + lambd`` where ``x < -lambd``, else 0 (float tensors).

    >>> softshrink(strided.tensor([-1.0, 0.25, 2.0])).tolist()
    [-0.5, 0.0, 1.5]
    """
    (lam,) = _lambd("softshrink")(lambd)
    d = _float_param_dtype(input)
    if d is not None and not d.is_floating_point:
        raise float_only("softshrink_check", d, "softshrink")
    _check_lambd(input, lam)
    return _run(SOFTSHRINK, input, (lam,))  # (a half input compares with lambd in float, as PyTorch's)


def threshold(input: Tensor, threshold: float, value: float) -> Tensor:
    """``value`` where ``x <= threshold``, else ``x`` (float and integer tensors; an integer
    tensor's numbers truncated to integers, as PyTorch's).

    >>> threshold(strided.tensor([0.0, 1.0, 2.0]), 1.0, 9.0).tolist()
    [9.0, 9.0, 2.0]
    """
    return _run(THRESHOLD, input, _PARAMS["threshold"](threshold, value))


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    """In-place :func:`threshold` (``F.threshold_``, ``torch.threshold_``)."""
    params = _PARAMS["threshold"](threshold, value)
    # (a densely permuted run, a transpose, which the entry front's C write does not take: the
    # row's compiled pass over the run copied back; inplace_flat checks the first number's float32
    # range, the second's is checked here, a NaN or one beyond it left to the general path)
    if input.__class__ is Tensor and -_F32_MAX <= params[1] <= _F32_MAX \
            and inplace_flat(THRESHOLD, input, params, "threshold_"):
        return input
    return _inplace(THRESHOLD, _threshold_entry, input, params)


def selu(input: Tensor) -> Tensor:
    """``scale * x`` where ``x > 0``, else ``scale * alpha * (exp(x) - 1)``, with SELU's constants.

    >>> selu(strided.tensor([0.0, 1.0], dtype=strided.float64)).tolist()
    [0.0, 1.0507009873554805]
    """
    return _run(SELU, input, ())


def selu_(input: Tensor) -> Tensor:
    """In-place :func:`selu` (``F.selu(x, inplace=True)``, ``torch.selu_``)."""
    if input.__class__ is Tensor and inplace_flat(SELU, input, (), "selu_", _selu_inplace):
        return input
    return _inplace(SELU, selu, input, ())


def _alpha(alpha: Any, fn: str) -> float:
    a = _num(alpha, fn, "alpha", 2)
    if a == 0:
        raise StridedRuntimeError(join_lines("ZeroDivisionError: alpha cannot be 0 for CELU",
                                             "celu divides x by alpha before its exponential",
                                             "fix: a nonzero alpha (1.0 by default)"))
    return a


def celu(input: Tensor, alpha: float = 1.0) -> Tensor:
    """``x`` where ``x > 0``, else ``alpha * (exp(x / alpha) - 1)`` (float tensors).

    >>> celu(strided.tensor([-1.0, 2.0]), 2.0).tolist()  # doctest: +ELLIPSIS
    [-0.786..., 2.0]
    """
    return _run(CELU, input, (_alpha(alpha, "celu"),))


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """In-place :func:`celu` (``F.celu_``, ``torch.celu_``)."""
    if input.__class__ is Tensor and type(alpha) is float and alpha \
            and inplace_flat(CELU, input, (alpha,), "celu_", _celu_inplace if alpha == 1.0 else None):
        return input
    return _inplace(CELU, celu, input, (_alpha(alpha, "celu_"),))


def mish(input: Tensor) -> Tensor:
    """``x * tanh(softplus(x))`` elementwise (float tensors).

    >>> mish(strided.tensor([0.0])).tolist()
    [0.0]
    """
    return _run(MISH, input, ())


def mish_(input: Tensor) -> Tensor:
    """In-place :func:`mish` (``F.mish(x, inplace=True)``)."""
    return _inplace(MISH, mish, input, ())


def logsigmoid(input: Tensor) -> Tensor:
    """``log(sigmoid(x))`` as ``min(x, 0) - log1p(exp(-|x|))`` (float tensors).

    >>> logsigmoid(strided.tensor([0.0], dtype=strided.float64)).tolist()  # doctest: +ELLIPSIS
    [-0.693...]
    """
    return _run(LOGSIGMOID, input, ())


def _slope(lower: Any, upper: Any) -> float:
    """rrelu's evaluation slope ``(lower + upper) / 2`` (PyTorch's, in double)."""
    lo, hi = check_bounds(lower, upper)
    return (lo + hi) / 2


def check_bounds(lower: Any, upper: Any) -> tuple[float, float]:
    """rrelu's ``lower`` and ``upper`` as numbers, PyTorch's refusal where ``lower > upper``."""
    lo, hi = _num(lower, "rrelu", "lower", 2), _num(upper, "rrelu", "upper", 3)
    if lo > hi:
        raise StridedRuntimeError(join_lines("Lower bound should be less than or equal to the upper bound",
                                             f"rrelu draws its slopes from [lower, upper) = [{lo}, {hi})",
                                             f"fix: F.rrelu(x, {hi}, {lo})"))
    return lo, hi


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3) -> Tensor:
    """rrelu in evaluation mode: ``leaky_relu(x, (lower + upper) / 2)`` (PyTorch's
    ``rrelu_with_noise`` with ``training=False``; its node RreluWithNoiseBackward0). The training
    mode, which draws the slopes, is :func:`strided.nn.functional.rrelu`'s composition.

    >>> rrelu(strided.tensor([-1.0, 2.0], dtype=strided.float64), 0.1, 0.3).tolist()
    [-0.2, 2.0]
    """
    return _run(RRELU, input, (_slope(lower, upper),))


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3) -> Tensor:
    """In-place :func:`rrelu` in evaluation mode."""
    slope = _slope(lower, upper)
    # (on a tensor in the graph, _inplace calls the entry with these parameters as its own: rrelu's
    # are (lower, upper), so the slope goes as both bounds, whose mean is the slope itself; a finite
    # slope doubles without overflow, as lower + upper did)
    return _inplace(RRELU, lambda x, s: rrelu(x, s, s), input, (slope,))


# (the entries' fresh fast path, as activations' rows have it: _fast's result for a plain float32 /
# float64 tensor outside autograd, the function's own argument conversion first; softshrink has
# none: its check of lambd depends on the input's dtype, which the conversion does not see)
for _fn, _row in ((hardsigmoid, HARDSIGMOID), (hardswish, HARDSWISH), (hardshrink, HARDSHRINK), (threshold, THRESHOLD),
                  (selu, SELU), (mish, MISH), (logsigmoid, LOGSIGMOID)):
    _fn.__fresh__ = _fresh_of(_row, _PARAMS[_row.name])  # type: ignore[attr-defined]
celu.__fresh__ = _fresh_of(CELU, lambda alpha=1.0: (_alpha(alpha, "celu"),))  # type: ignore[attr-defined]
_threshold_general_fresh = threshold.__fresh__


def _threshold_fresh(input: Any, *args: Any) -> Tensor | None:
    """threshold's fresh fast path for its common call, ``threshold(x, th, v)`` with two exact floats
    (inside float32's range for a float32 ``x``) on a plain row-major float32 / float64 ``x``: the
    very call :func:`.activations._fast` comes to (THRESHOLD's compiled ``unary_exact`` code 10 over
    the flat run into a fresh run, adopted row-major, reported where a listener is open) without its
    frames (the parameters' conversion, ``_fast``, ``_flat_values``, the row's ``compiled``). Any
    other call, and a run the kernel refuses: the row's general fresh path (``_fresh_of``'s)."""
    if len(args) == 2 and input.__class__ is Tensor:
        th, v = args
        d = input._dtype
        if th.__class__ is float and v.__class__ is float and (
                d is float64 or (d is float32 and -_F32_MAX <= th <= _F32_MAX and -_F32_MAX <= v <= _F32_MAX)):
            info = _cinfo[input._layout.shape]
            arr = flat_run(input, info)
            k = native.special()
            if arr is not None and k is not None and arr.dtype in _TYPED0_DTYPES:
                out = np.empty(info[1], arr.dtype)
                if k.unary_exact(arr, out, _THRESHOLD, th, v):
                    t = adopted(out, info[2], d)
                    if OPEN:
                        report("threshold", (input,), t)
                    return t
    return _threshold_general_fresh(input, *args)


threshold.__fresh__ = _threshold_fresh  # type: ignore[attr-defined]
rrelu.__fresh__ = _fresh_of(RRELU, lambda lower=1.0 / 8, upper=1.0 / 3: (_slope(lower, upper),))  # type: ignore[attr-defined]



# (the common in-place call written in C by the entry front: selu_ / celu_ at alpha 1.0 by
# _sleefkernel's pass over the run, the same as inplace_flat's _selu_inplace / _celu_inplace; rrelu_
# in evaluation mode by _specialkernel's leaky_relu over the run, op 1, the slope (lower + upper) / 2)
_RRELU_INPLACE = {float32: (1, 0, 1 << 62), float64: (1, 0, 1 << 62)}
compiled_inplace(selu_, native._compiled("_sleefkernel"), "selu_", elu_inplace_table(_SELU_OP))
compiled_inplace(celu_, native._compiled("_sleefkernel"), "celu_", elu_inplace_table(_ELU_OP))
compiled_inplace(rrelu_, native._compiled("_specialkernel"), "rrelu_", _RRELU_INPLACE)
# (threshold_(x, th, v) with exact float numbers: _specialkernel's op 2 over the run, the compare and
# select of _threshold, both numbers rounded to the dtype; the forward where either is not a float)
compiled_inplace(threshold_, native._compiled("_specialkernel"), "threshold_",
                 {float32: (2, 0, 1 << 62), float64: (2, 0, 1 << 62)})

seal(globals(), functional=True)  # (last: the rows' functions become their recording entries)
_threshold_entry = threshold  # (threshold_'s argument name shadows the function: its entry, after the seal)



def _elu_flat(alpha: float, scale: float, op: int) -> tuple[Callable[..., np.ndarray], Callable[..., np.ndarray]]:
    """``(flat, inplace)`` for ``selu(x)`` / ``celu(x)`` (input_scale 1; ``alpha``, ``scale`` the op's
    own coefficients). ``flat(x, out=None)``: :func:`.activations._fast`'s values of a flat run
    ``x``, into ``out`` where given (``x`` itself for the in-place form: each element is read before
    its slot is written): the compiled one-pass ``op`` (sleef.SELU; sleef.ELU, celu at alpha 1,
    whose coefficients are 1: elu's own bits) of the run, else :func:`_elu_compiled`, else the
    forward; called in the quiet floating-point state (the compiled front's, _fast's).
    ``inplace(run)``: ``flat(run, run)`` keeping the floating-point state itself (the compiled pass
    touches none; the others run in the quiet state), for :func:`.activations.inplace_flat`."""
    made: dict[np.dtype, tuple] = {}

    def kernel(x: np.ndarray, out: np.ndarray | None) -> np.ndarray | None:
        c = made.get(x.dtype)
        if c is None and x.dtype in _TYPED0_DTYPES:
            c = made[x.dtype] = flat_call(op, x.dtype) or ()
        if c and x.flags.aligned and x.flags.c_contiguous and native.sleef() is not None:
            e = np.empty(len(x), x.dtype) if out is None else out
            extra = c[1]
            if len(x) > c[2]:  # (a longer run: cut at PyTorch's parallel chunks, as torch_loop cuts it;
                # the pieces, and so the bits, of the expm1-then-select path it replaces, in one pass)
                extra = (extra[0], 0, _sleef_chunk(len(x), None, _sleef_grain(op, len(x), None)), *extra[3:])
            if c[0](x, e, *extra):
                return e
        return None

    def flat(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        e = kernel(x, out)
        if e is not None:
            return e
        # (celu of a run whose every x > 0: x itself, x * 1, without the exponentials -- in place,
        # nothing to write (a NaN's minimum is NaN, -0.0's is not > 0); tried where its first
        # elements are, so a run of mixed signs does not pay the copy's fresh buffer)
        values = None
        if scale == 1.0 and x[:64].min(initial=1.0) > 0:
            if out is x:
                if x.min(initial=1.0) > 0:
                    return out
            else:
                values = _all_greater_copy(x, 0.0)
        if values is None:
            values = _elu_compiled(x, alpha, scale, 1.0)
        values = _elu_general(x, alpha, scale, 1.0) if values is None else values
        if out is None:
            return values
        np.copyto(out, values)
        return out

    def inplace(run: np.ndarray) -> np.ndarray:
        done = kernel(run, run)
        if done is not None:
            return done
        try:  # (fpstate.quietly, inlined)
            return quiet_call(flat, run, run)
        except RuntimeError as e:
            return quiet_retry(e, flat, run, run)

    return flat, inplace


_selu_flat, _selu_inplace = _elu_flat(SELU_ALPHA, SELU_SCALE, _SELU_OP)
_celu_flat, _celu_inplace = _elu_flat(1.0, 1.0, _ELU_OP)  # (celu at alpha 1.0: input_scale 1 / 1.0)


def flat_front(wrapper: Callable[..., Tensor], row: Activation) -> Callable[..., Tensor]:
    """``wrapper`` (``row``'s entry or nn.functional's wrapper) behind a compiled front: the
    one-argument call on a plain row-major (or densely permuted) float32 / float64 tensor outside
    autograd, nobody listening, runs ``row``'s fast-path values of the flat run (:func:`_selu_flat`,
    :func:`_celu_flat`: what :func:`.activations._fast` computes, in the same quiet state) from C;
    rows without one: :func:`.activations.fresh_front`."""
    fn = {"selu": _selu_flat, "celu": _celu_flat}.get(row.name)
    if fn is None:
        return fresh_front(wrapper, row)
    op = _SELU_OP if row is SELU else _ELU_OP
    table = {}
    for d in (float32, float64):
        call = flat_call(op, d.numpy)  # (tried first, from C: _selu_flat's / _celu_flat's own call)
        table[d] = (fn, False, None) if call is None else (fn, False, None, kernel_entry(call[0], call[1], d.numpy, call[2]))
    return compiled_front(wrapper, 1, table, dense=(float32, float64))


def _install_fronts() -> None:
    """Put a compiled front (:func:`flat_front`) before the sealed entries of ``hardshrink``
    (``torch.hardshrink``, ``Tensor.hardshrink``), ``selu`` and ``celu``, as ``nn.functional``'s
    wrappers have it; every other call goes to the entry."""
    names = globals()
    for name, row in (("hardshrink", HARDSHRINK), ("selu", SELU), ("celu", CELU)):
        entry = names[name]
        front = flat_front(entry, row)
        if Tensor.__dict__.get(name) is entry:
            setattr(Tensor, name, front)  # (the method the registry made)
        names[name] = front


_install_fronts()


def rrelu_noise(input: Any, lower: float, upper: float, generator: Any = None) -> Tensor:
    """rrelu's training noise: a slope from ``[lower, upper)`` (drawn in float64 from
    ``generator``, the default one for None, and rounded to the input's dtype) where ``x <= 0``, 1
    elsewhere (a NaN's too), laid out as the input's result."""
    x = tensor_arg(input, "rrelu")
    d = x._dtype
    if not d.is_floating_point or d is float16:  # (PyTorch's kernel takes float, double and bfloat16)
        raise float_only("rrelu_with_noise_out_cpu", d, "rrelu")
    arr = x._np()
    draws = resolve(generator, "rrelu").draw(lambda g: g.random(arr.shape))
    with np.errstate(all="ignore"):
        slopes = lower + (upper - lower) * draws
        values = np.where(arr <= 0, slopes, 1.0)
    noise, out = result_array(arr.shape, d)
    np.copyto(out, values, casting="unsafe")
    return noise


# (the sealed entries of the evaluation mode, which F.rrelu and F.rrelu_ call directly)
rrelu_eval, rrelu_eval_ = rrelu, rrelu_


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          generator: Any = None) -> Tensor:
    """``torch.rrelu`` (and ``F.rrelu``'s op): evaluation mode by default, :func:`rrelu_eval`;
    ``training``: ``noise * input`` with :func:`rrelu_noise` (``generator``'s draws, not PyTorch's
    stream; recorded as MulBackward0 where PyTorch names RreluWithNoiseBackward0: the same
    gradients).

    >>> rrelu(strided.tensor([-1.0, 2.0], dtype=strided.float64), 0.1, 0.3).tolist()
    [-0.2, 2.0]
    """
    if not training:
        return rrelu_eval(input, lower, upper)
    # (noise first: the product is row-major, as PyTorch's rrelu result, whatever the input's layout)
    return rrelu_noise(input, *check_bounds(lower, upper), generator) * input


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
           generator: Any = None) -> Tensor:
    """``torch.rrelu_`` (``F.rrelu_``'s op): :func:`rrelu` written into ``input``."""
    if not training:
        return rrelu_eval_(input, lower, upper)
    return input.mul_(rrelu_noise(input, *check_bounds(lower, upper), generator))


compiled_inplace(rrelu_, native._compiled("_specialkernel"), "rrelu_", _RRELU_INPLACE)  # (training=False only)


declare(Kind.COMPUTE, "F.hardsigmoid F.hardswish F.hardshrink F.softshrink F.threshold F.selu F.celu F.mish "
                      "F.logsigmoid F.rrelu")
# (torch.selu_, torch.celu_, torch.threshold_ and torch.rrelu_ are ops of torch's namespace, named so;
# nn.functional's F.<name>_ is the same function there, here a spelling of the same op)
declare(Kind.WRITE, "threshold_ selu_ celu_ rrelu_")
for _name in ("threshold_", "selu_", "celu_", "rrelu_"):
    OPDEFS[_name].add_spelling("F." + _name)
