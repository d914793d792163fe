"""More unary elementwise ops, table-driven: tests (``isnan``, ``isinf``, ...), rounding (``floor``,
``ceil``, ``round(decimals=)``, ``trunc``/``fix``, ``frac``), signs (``sign``, ``sgn``, ``signbit``),
exponentials and logarithms, ``erf``/``erfc``/``erfinv``, ``digamma``, ``lgamma``, ``sinc``, the trig/hyperbolic families,
``logical_not`` and ``nan_to_num`` — with their in-place ``_`` forms where PyTorch has them.

Every op is one :class:`MoreUnary` row (its dtype rule, the dtypes it refuses, its kernel) run by
one function, :func:`_run`, with the plan of :mod:`strided.ops.elementwise.unary`: dtype, an output laid
out as PyTorch's TensorIterator lays it out (:func:`strided.ops._support.operands._fresh_output`) or the
in-place target after PyTorch's checks (all made before anything is written), then NumPy
reading the input in place.

Dtype rules (PyTorch 2.13): ``"float"`` ops give the default float (float32) for bool and
integer input; ``"same"`` ops keep the dtype (``floor`` of an int tensor is an int tensor,
``sign`` keeps ints; ``square`` of bool is int64); ``"bool"`` ops give bool.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

import numpy as np

from ... import gradients
from ... import layout as L
from ...dispatch import OPEN, adopted, result
from ...dtypes import (
    DType,
    bfloat16,
    bool_,
    complex64,
    complex128,
    float32,
    float64,
    from_numpy_dtype,
    int64,
    np_finfo,
    scalar_overflow,
)
from ...errors import StridedRuntimeError, StridedTypeError, join_lines
from ...grad_mode import SUBCLASSES
from ...gradients import guards_itself, seal
from ...kernels import check_writable, complex_forms, native, npcore, special, vml_route
from ...kernels.elementwise import complex_abs, reciprocal_into
from ...kernels.fpstate import QUIET, quiet_call, quiet_reset, quiet_retry, quiet_set, quietly
from ...kernels.memory import dense_run, numpy_view
from ...kernels.reduced_nans import VML_ALL_ONES, all_ones_nans
from ...kernels.sleef import ATANH, COSH, SINH, exp2_loop, expm1_map, flat_call, hyper_loop, log1p_map
from ...kernels.sleef import EXP2 as _EXP2_OP
from ...kernels.sleef import EXPM1 as _EXPM1_OP
from ...kernels.sleef import LOG1P as _LOG1P_OP
from ...kernels.torch_loops import GRAIN_SIZE, fresh_strides, scalar_loop_mask, torch_vector_bytes
from ...opdef import Kind, declare
from ...tensor import Tensor
from .._support import gradtools, support
from .._support.front import compiled_front, kernel_entry
from .._support.memo import Memo
from .._support.operands import _check_inplace, _cinfo, _fresh_output, _not_implemented, _view, flat_run
from .._support.out import out_layout_scratch, refuse_other_dtype, write_out
from .._support.overlap_updates import UpdatesInOrder, updates_in_order
from .._support.promotion import TORCH_NAMES, to_float
from ..registry import backward, method
from .unary import not_a_tensor_input, where

# (input view, output view, compute NumPy dtype, input DType, extra arguments) -> None
Kernel = Callable[..., None]


@dataclass(frozen=True, eq=False)
class MoreUnary:
    """One unary op: its name, dtype rule, refused dtype kinds and kernel.

    ``rule``: "float" (bool/int -> float32), "same" (keeps the dtype; bool -> int64 when
    ``bool_to_long``) or "bool" (a bool result). ``refuse``: "bool" and/or "int" — inputs for
    which PyTorch has no kernel (NotImplementedError naming ``kernel_name``).
    ``inplace``: PyTorch has the ``name_`` form.
    """

    name: str
    kernel: Kernel
    rule: str = "float"
    refuse: frozenset = frozenset()
    kernel_name: str = ""
    inplace: bool = True
    bool_to_long: bool = False
    aliases: tuple[str, ...] = ()
    # for an alias's copy of the op (fix is trunc): the op PyTorch's refusals are named after
    canonical: str = ""
    # the output is not laid out as one TensorIterator op lays it out (see :func:`_composite_strides`):
    # "always" as ``empty_like(input)`` (nan_to_num, deg2rad, rad2deg); "isinf" / "isfinite" as
    # PyTorch's composites of those names
    like: str = ""
    # out= must have the input's dtype (PyTorch's all-same-dtype check, before the kernel's): "always",
    # or "not_complex" (a complex input's own refusal first); see strided.ops._support.out.refuse_other_dtype
    out_same_dtype: str = ""


def _ufunc(uf: np.ufunc) -> Kernel:
    def run(x: np.ndarray, out: np.ndarray, compute: np.dtype, d: DType) -> None:
        uf(x, out=out, dtype=compute, casting="unsafe")

    return run


def _complex_c10(uf: np.ufunc, kind: int) -> Kernel:
    """``uf``, but a complex compute dtype takes c10's function as PyTorch computes it
    (:mod:`strided.kernels.complex_forms` op ``kind``: log1p, expm1, the C library's acos, log2,
    log10) where the compiled kernel runs: NumPy's complex log1p / expm1 / arccos (complex128) /
    log2 / log10 are other formulas (log1p of random complex64 numbers: 46% of PyTorch's bits; at special parts the
    class differed)."""
    def run(x: np.ndarray, out: np.ndarray, compute: np.dtype, d: DType) -> None:
        if compute.kind == "c" and out.dtype == compute \
                and complex_forms.forms_into(kind, None, x.astype(compute, copy=False), out,
                                             complex_forms.fixed_mode(kind, compute.itemsize)):
            return
        uf(x, out=out, dtype=compute, casting="unsafe")

    return run


def _sleef_map(run: Callable[[np.ndarray, np.ndarray], np.ndarray | None], chars: str,
               rest: Kernel) -> Kernel:
    """A kernel giving PyTorch's bits through ``run`` (a SLEEF vec::map over every element, None
    where the compiled kernel does not run) when the compute dtype is one of ``chars`` and the
    result is of it (an integer or bool input converted first, as PyTorch converts it); else
    ``rest``'s."""

    def kernel(x: np.ndarray, out: np.ndarray, compute: np.dtype, d: DType) -> None:
        if compute.char in chars and out.dtype == compute and x.dtype.kind in "biuf":
            xf = x if x.dtype == compute else (x.astype(compute) if x.dtype.kind != "f" else None)
            res = run(xf, out) if xf is not None else None
            if res is not None:
                if res is not out:
                    np.copyto(out, res)
                return
        if "f" in chars and x.dtype == _F16 and out.dtype == _F16 and _half_map(run, x, out) is not None:
            return
        rest(x, out, compute, d)

    return kernel


def _half_map(run: Callable[[np.ndarray, np.ndarray], np.ndarray | None], x: np.ndarray,
              out: np.ndarray | None) -> np.ndarray | None:
    """A float16 ``x`` through a float32 SLEEF map ``run``, rounded to float16 (into ``out`` where
    given): PyTorch's ``vec::map`` over ``Vectorized<Half>`` converts each half to float, takes the
    float function and converts back (a NaN word kept: log1p's all-ones 0xFFFF below -1, where
    NumPy's float16 log1p gave 0xFE00). None where ``run`` does not run."""
    res = run(x.astype(np.float32), None)
    if res is None:
        return None
    if out is None:
        return res.astype(_F16)
    np.copyto(out, res, casting="unsafe")
    return out


_F16 = np.dtype(np.float16)
# expm1: float32 / float64 through SLEEF's expm1 (strided.kernels.sleef.expm1_map); complex:
# c10's formula, float16: SLEEF's float32 expm1, rounded
_expm1 = _sleef_map(expm1_map, "fd", _complex_c10(np.expm1, complex_forms.EXPM1))
# log1p: float32 / float64 through SLEEF's log1p (strided.kernels.sleef.log1p_map); complex: c10's
# formula, float16: SLEEF's float32 log1p, rounded
_log1p = _sleef_map(log1p_map, "fd", _complex_c10(np.log1p, complex_forms.LOG1P))


_BF16_OR_F16 = ("float16", "bfloat16")


def _exp2(x: np.ndarray, out: np.ndarray, compute: np.dtype, d: DType) -> None:
    """exp2: PyTorch's bits where the compiled kernel runs (:func:`strided.kernels.sleef.exp2_loop`:
    its cpu_kernel_vec loop's SLEEF / C library split, ordered by ``out``'s layout as TensorIterator
    orders it; float32 and float64; float16 / bfloat16 upcast to float32 keeping ``x``'s strides and
    rounded once, as their ``Vectorized`` and scalar functions compute it; an integer input
    converted first, as PyTorch's float promotion); else NumPy's ``np.exp2``."""
    if out.dtype == compute and compute in _F32_F64 and x.dtype.kind in "biuf" and x.__class__ is np.ndarray:
        res = exp2_loop(x if x.dtype == compute else x.astype(compute), out)
        if res is not None:
            if res is not out:
                np.copyto(out, res)
            return
    if out.dtype == x.dtype and x.dtype.name in _BF16_OR_F16 and x.__class__ is np.ndarray:
        from .special import _upcast_strided  # (gelu's module: loaded with the package's ops already)

        res = exp2_loop(_upcast_strided(x), None, lanes=2)
        if res is not None:
            np.copyto(out, res, casting="unsafe")
            return
    np.exp2(x, out=out, dtype=compute, casting="unsafe")


def _promoted(x: np.ndarray, compute: np.dtype) -> np.ndarray:
    """The integer / bool ``x`` as ``compute`` laid out as PyTorch's promoted temporary:
    :func:`strided.kernels.torch_sum.torch_to` (``infer_dense_strides`` for a non-dense ``x``),
    NumPy's row-major ``astype`` where that is its layout (1 us where torch_to takes 20): a row-major
    ``x``, or one whose nonzero strides of its dims longer than 1 fall strictly from the first dim
    to the last (an expanded one: infer_dense_strides leaves its stride-0 dims in place)."""
    if x.flags.c_contiguous:
        return x.astype(compute)
    steps = [st for st, n in zip(x.strides, x.shape) if n > 1 and st]
    if all(a > b > 0 for a, b in zip(steps, steps[1:])) and (not steps or steps[-1] > 0):
        return x.astype(compute, order="C")
    from ...kernels.torch_sum import torch_to  # (here: `import strided` leaves torch_sum out, test_start34)

    return torch_to(x, compute)


# sinh, cosh, atanh: the op's SLEEF code (strided.kernels.sleef.hyper_loop)
_HYPER = {"sinh": SINH, "cosh": COSH, "atanh": ATANH}


def _hyper(name: str, uf: np.ufunc) -> Kernel:
    """sinh / cosh / atanh: PyTorch's bits for a float32 / float64 result where the compiled kernel
    runs (:func:`strided.kernels.sleef.hyper_loop`: its cpu_kernel_vec loop's SLEEF / C library
    split, ordered by ``out``'s layout; an integer or bool input converted first in the layout of
    PyTorch's promoted temporary, :func:`strided.kernels.torch_sum.torch_to`: NumPy's ``astype`` of an
    expanded input is column-major, which took the scalar function where PyTorch takes the vector one); else NumPy's ``uf`` (float16, bfloat16, complex)."""
    op = _HYPER[name]

    def run(x: np.ndarray, out: np.ndarray, compute: np.dtype, d: DType) -> None:
        if out.dtype == compute and compute in _F32_F64 and x.dtype.kind in "biuf" and x.__class__ is np.ndarray \
                and (x.dtype == compute or x.dtype.kind != "f"):
            res = hyper_loop(x if x.dtype == compute else _promoted(x, compute), op, out)
            if res is not None:
                if res is not out:
                    np.copyto(out, res)
                return
        uf(x, out=out, dtype=compute, casting="unsafe")

    return run


def _hyper_fresh(name: str, uf: np.ufunc) -> Callable[[np.ndarray], np.ndarray]:
    """sinh / cosh / atanh of a flat run (the fast path's): :func:`_hyper`'s bits, else NumPy's."""
    op = _HYPER[name]

    def fresh(x: np.ndarray) -> np.ndarray:
        r = hyper_loop(x, op)
        return uf(x) if r is None else r

    return fresh


def _exp2_fresh(x: np.ndarray) -> np.ndarray:
    """exp2 of a flat run (the fast path's): :func:`_exp2`'s bits (float32 / float64 through the
    compiled split loop), else NumPy's."""
    r = exp2_loop(x)
    return np.exp2(x) if r is None else r


def _angle(uf: np.ufunc, num: float, den: float) -> Kernel:
    """deg2rad / rad2deg as PyTorch's one multiplication for float32 and float64:
    ``x * (num / den)``, the double quotient rounded once to the compute type (PyTorch's
    ``self * M_180_PI``: a double scalar read as float32 opmath; NumPy's float32 loop divides
    ``180.0f / NPY_PIf`` in float32, 57.295776 where PyTorch has 57.29578: tests/test_redteam_erf9.py;
    deg2rad's two factors agree). np.multiply's SIMD loop takes 0.3 ms for 2^20 float32 where
    NumPy's deg2rad loop takes 1.1 (a scalar call per element). Other compute dtypes (float16: NumPy computes it in float32 and
    rounds) keep ``uf``."""
    factors = {np.dtype(np.float32): np.array(np.float32(num / den)),
               np.dtype(np.float64): np.array(np.float64(num) / np.float64(den))}
    for f in factors.values():
        f.flags.writeable = False

    def run(x: np.ndarray, out: np.ndarray, compute: np.dtype, d: DType) -> None:
        factor = factors.get(compute)
        if factor is None:
            uf(x, out=out, dtype=compute, casting="unsafe")
        else:
            np.multiply(x, factor, out=out, dtype=compute, casting="unsafe")

    run.__name__ = uf.__name__
    return run


def _special(fn: Callable[[np.ndarray], np.ndarray]) -> Kernel:
    """A :mod:`strided.kernels.special` function (float64 in, fresh float64 out) as a kernel."""

    name = fn.__name__

    fn32 = special.FLOAT32.get(name, fn)  # (a cheaper form for a float32 result, if any)

    def run(x: np.ndarray, out: np.ndarray, compute: np.dtype, d: DType) -> None:
        if not special.into(name, x, out):  # (the compiled kernel writes out directly)
            np.copyto(out, (fn32 if out.dtype == _F32 else fn)(x), casting="unsafe")

    return run


def _special_fresh(fn: Callable[[np.ndarray], np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
    """The small-op fast path's form of a special function: a fresh array of the input's dtype
    (float32 rounded once from float64, as the kernel above). Called directly, not through
    ``quiet_call`` (whose fresh Context would hide :func:`strided.kernels.native.disabled`): the
    compiled kernel raises no floating-point warnings, and the NumPy formulas run quietly."""
    name = fn.__name__
    formulas = getattr(fn, "__wrapped__", fn)  # (the NumPy formulas themselves: no second check)
    fn32 = special.FLOAT32.get(name, fn)
    formulas32 = getattr(fn32, "__wrapped__", fn32)

    def run(x: np.ndarray) -> np.ndarray:  # (x: flat, contiguous float32/float64: no checks)
        out = np.empty(x.shape, x.dtype)
        k = native.special()
        if k is not None:  # (unaligned, a from_numpy view at an odd address: an aligned copy, the kernel's bits)
            special.run_compiled(k, name, x if x.flags.aligned else x.copy(), out)  # (i0, digamma: PyTorch's code)
        else:
            r = quietly(formulas32 if x.dtype == _F32 else formulas, x)
            quietly(np.copyto, out, r, casting="unsafe")  # (float64 -> float32 overflows to inf quietly)
        return out

    # (erf, erfc, erfinv: MKL VML's first where the route runs -- their compiled fronts call it, and
    # come here where it declined: unaligned memory, which the route copies first)
    return vml_route.fresh_first(name, run) if name in vml_route.CODE and vml_route.possible() else run


def _isposinf(x: np.ndarray, out: np.ndarray) -> None:
    np.equal(x, np.inf, out=out)  # (only +inf equals +inf: one NumPy call, not isinf & x > 0)


def _isneginf(x: np.ndarray, out: np.ndarray) -> None:
    np.equal(x, -np.inf, out=out)


def _float_test(uf: Callable[..., Any], integral: bool) -> Kernel:
    """isnan/isinf/...: the ufunc on floats and complex numbers (NumPy's and PyTorch's complex rules
    agree: isnan and isinf when either part is, isfinite when both parts are); a constant for bool
    and integer input."""

    def run(x: np.ndarray, out: np.ndarray, compute: np.dtype, d: DType) -> None:
        if d.is_floating_point or d.is_complex:
            uf(x, out=out)
        else:
            out[...] = integral

    return run


def _copy_ints(float_kernel: Kernel) -> Kernel:
    """floor/ceil/trunc: integers are returned as they are (a copy), floats go to the ufunc."""

    def run(x: np.ndarray, out: np.ndarray, compute: np.dtype, d: DType, *args: Any) -> None:
        if d.is_floating_point:
            float_kernel(x, out, compute, d, *args)
        else:
            np.copyto(out, x, casting="unsafe")

    return run


def _round(x: np.ndarray, out: np.ndarray, compute: np.dtype, d: DType, decimals: int = 0) -> None:
    """Round half to even; with ``decimals`` as PyTorch: rint(x * 10**d) / 10**d (rint(x / 10**-d)
    * 10**-d for negative d), computed in the compute dtype."""
    if not decimals:
        np.rint(x, out=out, dtype=compute, casting="unsafe")
        return
    if compute.itemsize == 2:  # PyTorch's float16 / bfloat16 kernel scales and rounds in float32 (opmath), rounds once
        compute = _F32
    # (10**decimals beyond float64 is inf, as C's pow gives it: the results are NaN, not Python's OverflowError)
    p = compute.type(10.0 ** abs(decimals) if abs(decimals) <= 308 else np.inf)
    scaled = np.multiply(x, p, dtype=compute) if decimals > 0 else np.divide(x, p, dtype=compute)
    scaled = np.rint(scaled)  # (not out=scaled: a 0-d input gives a NumPy scalar, which has no buffer)
    if decimals > 0:
        np.divide(scaled, p, out=out, dtype=compute, casting="unsafe")
    else:
        np.multiply(scaled, p, out=out, dtype=compute, casting="unsafe")


def _frac(x: np.ndarray, out: np.ndarray, compute: np.dtype, d: DType) -> None:
    """x - trunc(x) (inf gives NaN, as PyTorch). The truncation goes straight into ``out`` where
    that holds the compute dtype and shares no memory with ``x`` (no temporary: a fresh 4 MB one
    costs its page faults, ~0.15 ms at 2^20 float32); the same two ufuncs either way."""
    if x.dtype == compute and out.dtype == compute and _frac_compiled(x, out):
        return
    if out.dtype == compute and not np.may_share_memory(x, out):
        np.trunc(x, out=out, dtype=compute, casting="unsafe")
        np.subtract(x, out, out=out, dtype=compute, casting="unsafe")
    else:
        np.subtract(x, np.trunc(x, dtype=compute), out=out, dtype=compute, casting="unsafe")


def _frac_fresh(x: np.ndarray) -> np.ndarray:
    """:func:`_frac` of a flat float32 / float64 run: the compiled one pass where it runs, else
    the difference written over the truncation."""
    r = np.empty_like(x)
    if _frac_compiled(x, r):
        return r
    np.trunc(x, out=r)
    return np.subtract(x, r, out=r)


def _frac_compiled(x: np.ndarray, out: np.ndarray) -> bool:
    """Whether the compiled ``frac`` (one pass of x - trunc(x): the bits of NumPy's two ufuncs;
    every float32 pattern compared, tests/test_unary_scaled.py samples) wrote ``out``: float32 /
    float64 arrays of one dtype, both row-major or both column-major, the same memory or disjoint,
    the kernels built and on in this context."""
    k = native.special()
    return (k is not None and x.__class__ is np.ndarray and out.__class__ is np.ndarray and x.dtype in _F32_F64
            and hasattr(k, "frac") and k.frac(x, out))


_any = np.logical_or.reduce  # (the ufunc's reduce: ndarray.any goes through a Python wrapper)


def _halves_over(x: np.ndarray, size: np.ndarray, out: np.ndarray, real: np.dtype) -> None:
    """``out = (x.real / size) + (x.imag / size) j`` computed in ``real`` (complex ``x`` and
    ``out``, float ``size`` = ``complex_abs(x)``, strided's ``abs``): PyTorch's vectorized complex
    sgn (its contiguous runs) divides each part by ``abs_()``, a hypot; NumPy's complex abs is 1
    ulp off hypot in about a third of elements. PyTorch's scalar loop (non-contiguous inputs, the last
    elements of a run shorter than two vectors) takes the complex quotient ``z / (|z| + 0j)``
    instead, which rounds twice and gives NaN + inf j for a subnormal |z| and 0.99999994j for a
    huge one where this gives 1j: this follows the vectorized path, bit for bit wherever Sleef's
    hypot equals the C library's (all of random complex64 parts but those whose |z| is near the
    subnormals; about 99.4% of complex128 parts near 1: see complex_abs). Each part is read
    before its own write (``x`` may be ``out``)."""
    np.divide(x.real, size, out=out.real, dtype=real, casting="unsafe")
    np.divide(x.imag, size, out=out.imag, dtype=real, casting="unsafe")


def _sgn_step(itemsize: int) -> int:
    """PyTorch's sgn loop step for a complex itemsize: cpu_kernel_vec's 2 * Vectorized<T>::size()
    (sgn's kernel is dispatched by CPU capability: measured 16 complex64 / 8 complex128 elements
    on an AVX512 machine, so 8 / 4 under AVX2); kept in :data:`_SGN_STEPS`."""
    step = _SGN_STEPS[itemsize] = 2 * torch_vector_bytes() // itemsize
    _sgn_front_kernels(itemsize, step)
    return step


_SGN_STEPS: dict[int, int] = {}
# the sgn fronts' tables (:func:`_install_fronts`: the dicts the fronts read), whose complex
# entries gain their compiled pass at the first complex call (:func:`_sgn_front_kernels`)
_SGN_TABLES: list[dict[Any, tuple]] = []


def _sgn_front_kernels(itemsize: int, step: int) -> None:
    """Give the sgn fronts' complex entries of ``itemsize`` :func:`_sgn_fresh`'s compiled pass as
    their kernel (``complex_sgn`` of ``step``, below GRAIN_SIZE elements, where no scalar tail
    follows), once :func:`_sgn_step` knows the step: it is read from /proc/cpuinfo, which the
    import does not pay for, so the entries get it at the first complex sgn."""
    k = native._compiled("_specialkernel")
    for table in _SGN_TABLES:
        for d in (complex64, complex128):
            entry = table.get(d)
            if entry is not None and entry[3] is None and d.itemsize == itemsize and k is not None:
                table[d] = (*entry[:3], kernel_entry(getattr(k, "complex_sgn", None), (step,), d.numpy,
                                                     GRAIN_SIZE - 1))


def _sgn_scalar_loop(z: np.ndarray, out: np.ndarray, mask: np.ndarray) -> None:
    """Rewrite ``out`` (complex sgn by :func:`_halves_over`, the vectorized loop's) where ``mask``
    (a bool array of its shape, :func:`.torch_loops.scalar_loop_mask`) says PyTorch runs its
    scalar loop; ``z``: the input's elements there (``x[mask]``, read before any in-place write).
    The scalar loop is ``sgn_impl``'s ``z / c10::complex(|z|, 0)``, c10's division by a complex
    (NumPy's algorithm) with d = 0: ``rat = 0 / |z|``, ``scl = 1 / (|z| + 0 * rat)``, parts
    ``(a + b * rat) * scl`` and ``(b - a * rat) * scl`` (a part times the reciprocal: two
    roundings), ``0`` where ``z == 0``."""
    if not z.size:
        return
    real = z.real.dtype
    h = complex_abs(z)
    a, b = z.real.astype(real), z.imag.astype(real)
    rat = np.divide(real.type(0), h, dtype=real)
    scl = np.divide(real.type(1), h + real.type(0) * rat, dtype=real)
    parts = np.empty(z.shape, z.dtype)
    np.multiply(a + b * rat, scl, out=parts.real)
    np.multiply(b - a * rat, scl, out=parts.imag)
    parts[(a == 0) & (b == 0)] = 0
    out[mask] = parts


def _sgn_flat_tail(x: np.ndarray, out: np.ndarray) -> None:
    """:func:`_sgn_scalar_loop` for a flat run ``x`` written into a fresh flat ``out`` (one
    row: its last ``n % step`` elements, or the parallel chunks' tails past 32768 elements)."""
    n = x.shape[0]
    if n < GRAIN_SIZE:
        tail = n % _sgn_step(x.dtype.itemsize)
        if tail:
            _sgn_scalar_loop(x[n - tail:], out[n - tail:], np.ones(tail, bool))
        return
    mask = scalar_loop_mask((n,), (1,), True, [((n,), (1,))], step=_sgn_step(x.dtype.itemsize))
    if mask is not None:
        _sgn_scalar_loop(x[mask], out, mask)


def _sign(x: np.ndarray, out: np.ndarray, compute: np.dtype, d: DType) -> None:
    """-1, 0 or 1; bool stays; NaN gives 0 as PyTorch's (0 < x) - (x < 0)."""
    if d is bool_:
        np.copyto(out, x, casting="unsafe")
    elif d.is_complex:  # sgn: z / |z|, 0 at 0 (PyTorch's: an infinite part gives NaN, NumPy's sign does not)
        # (no errstate: every caller runs the kernels with NumPy's warnings off, fpstate.QUIET)
        size = complex_abs(x)  # (before out is written: x may be out, in place)
        _halves_over(x, size, out, np.finfo(compute).dtype)  # (a complex dtype's finfo: its parts')
        zero = np.equal(size, 0)
        if _any(zero, None):  # (copyto's where= only where a zero is: its Python wrapper costs ~1 us)
            np.copyto(out, 0, where=zero)
    elif not d.is_floating_point:
        np.sign(x, out=out, dtype=compute, casting="unsafe")
    elif not _compiled(x, out, 0):
        np.subtract(x > 0, x < 0, out=out, dtype=compute, casting="unsafe")


def _compiled(x: np.ndarray, out: np.ndarray, code: int, *params: float) -> bool | int:
    """Whether the compiled ``unary_exact`` (sign: code 0; nan_to_num: 1, with its three values;
    rsqrt: 3; logit's quotient: 4, which answers 2 where some quotient is NaN or negative) wrote ``out`` from ``x``: only for C-contiguous (or both column-major), aligned,
    non-overlapping float32/float64 arrays of one dtype and size, with the compiled kernels built
    and on in this context. Its bits are the NumPy kernel's it stands in for (exact ops:
    tests/test_unary_exact_native.py)."""
    k = native.special()
    if k is None or x.__class__ is not np.ndarray or out.__class__ is not np.ndarray or x.dtype not in _F32_F64:
        return False  # (the dtype first: bfloat16 has no buffer format)
    if x.flags.f_contiguous and out.flags.f_contiguous and not x.flags.c_contiguous:
        x, out = x.T, out.T  # (both column-major, a permuted tensor's: elementwise, any order will do)
    if not (x.flags.aligned and out.flags.aligned):
        # (memory at an odd address, from_numpy's of such a buffer, which the kernel's buffer
        # checks refuse: an aligned copy read, an aligned array written and copied into out, for
        # the kernel's bits rather than the NumPy formula's); not in place, as over aligned memory
        # (the kernel refuses overlapping buffers: logit's caller reads x again after)
        if np.may_share_memory(x, out):
            return False
        work = np.empty_like(out, order="K")
        written = k.unary_exact(x if x.flags.aligned else x.copy(order="K"), work, code, *params)
        if written:
            np.copyto(out, work)
        return written
    return k.unary_exact(x, out, code, *params)


def _signbit(x: np.ndarray, out: np.ndarray, compute: np.dtype, d: DType) -> None:
    if d.is_floating_point:
        np.signbit(x, out=out)
    elif d is bool_:
        out[...] = False
    else:
        np.less(x, 0, out=out)


def _rsqrt(x: np.ndarray, out: np.ndarray, compute: np.dtype, d: DType) -> None:
    if x.dtype == compute and _compiled(x, out, 3):  # (one pass, the same two roundings)
        return
    if compute.kind == "c" and out.dtype == compute \
            and complex_forms.forms_into(complex_forms.RSQRT, None, x.astype(compute, copy=False), out, 1):
        return  # (PyTorch's 1 / csqrt(z), its fused scale: see complex_forms)
    r = np.sqrt(x, dtype=compute)
    np.divide(compute.type(1), r, out=out, dtype=compute, casting="unsafe")


def _reciprocal(x: np.ndarray, out: np.ndarray, compute: np.dtype, d: DType) -> None:
    reciprocal_into(x, out, compute)


def _reciprocal_fresh(x: np.ndarray) -> np.ndarray:
    return reciprocal_into(x, np.empty_like(x), x.dtype) if x.dtype.kind == "c" else np.divide(_ONE0[x.dtype], x)


def _square(x: np.ndarray, out: np.ndarray, compute: np.dtype, d: DType) -> None:
    """``x * x``. A float32/float64 ``x`` in its own dtype: np.square, the same IEEE product (bit
    for bit, NaN payloads and subnormals included: checked over random bit patterns) in NumPy's
    unary loop, which outruns the two-operand multiply (2^20 float32: ~98 -> ~86 us)."""
    if x.dtype == compute and compute in _F32_F64:
        np.square(x, out=out)
    elif compute.kind == "c" and out.dtype == compute and _complex_square(x.astype(compute, copy=False), out):
        return
    else:
        np.multiply(x, x, out=out, dtype=compute, casting="unsafe")


def _complex_square(x: np.ndarray, out: np.ndarray) -> bool:
    """PyTorch's complex square, ``pow(x, 2)``: ``x * x`` rounded in its vector blocks, fused in
    its tails and strided rows (:mod:`strided.kernels.complex_forms`), the places read from the
    arrays' layouts (``out`` is a view of the result, or of the target in place). False: the
    compiled kernel is not built or off, nothing written."""
    size = out.itemsize
    if any(s % size for s in out.strides + x.strides):
        return False
    shape = out.shape
    strides = tuple(s // size for s in out.strides)
    inputs = [(x.shape, tuple(s // size for s in x.strides))]
    modes = complex_forms.modes(complex_forms.SQUARE, shape, strides, False, inputs, size, False)
    return complex_forms.forms_into(complex_forms.SQUARE, None, x, out, modes)


def _logical_not(x: np.ndarray, out: np.ndarray, compute: np.dtype, d: DType) -> None:
    if out.dtype == np.bool_ and x.dtype != np.bool_:
        # (the same answer: NaN is true, -0.0 false; NumPy's equal has SIMD loops, its logical_not
        # of a non-bool array none: 1M float32 0.66 -> 0.06 ms)
        np.equal(x, 0, out=out)
    else:
        np.logical_not(x, out=out, casting="unsafe")


def _nan_to_num(x: np.ndarray, out: np.ndarray, compute: np.dtype, d: DType,
                nan: float = 0.0, posinf: float | None = None, neginf: float | None = None) -> None:
    """NaN -> ``nan``, +inf -> ``posinf`` (default: the dtype's largest), -inf -> ``neginf``
    (default: its lowest); integers and bool are copied unchanged."""
    bounds = _BOUNDS.get(compute)
    if bounds is not None and d.is_floating_point and _compiled(
            x, out, 1, nan, bounds[0] if posinf is None else posinf, bounds[1] if neginf is None else neginf):
        return  # (float32/float64: one pass, the bits of the copies below)
    if d.is_floating_point and np.isfinite(x).all():  # (the common case: nothing to replace, 3 NumPy calls)
        np.copyto(out, x, casting="unsafe")
        return
    values = np.array(x, dtype=compute, copy=True)  # (a copy: x may be out itself, in place)
    # a complex number's real and imaginary parts are replaced each on its own (PyTorch, NumPy)
    parts = (values.real, values.imag) if d.is_complex else (values,) if d.is_floating_point else ()
    for part in parts:
        info = np_finfo(part.dtype)
        kind = part.dtype.type
        np.copyto(part, kind(nan), where=np.isnan(part), casting="unsafe")
        np.copyto(part, kind(info.max if posinf is None else posinf), where=np.isposinf(part), casting="unsafe")
        np.copyto(part, kind(info.min if neginf is None else neginf), where=np.isneginf(part), casting="unsafe")
    np.copyto(out, values, casting="unsafe")


# nan_to_num's default posinf and neginf for the compiled kernel's dtypes, as Python floats
_BOUNDS = {np.dtype(t): (float(np.finfo(t).max), float(np.finfo(t).min)) for t in (np.float32, np.float64)}
_BOOL = frozenset({"bool"})
_NOT_FLOAT = frozenset({"bool", "int"})


def _logit_kernel(x: np.ndarray, out: np.ndarray, compute: np.dtype, d: DType, eps: float | None = None,
                  contiguous: bool | None = None) -> None:
    """PyTorch's logit kernel: ``log(z / (1 - z))`` in the compute dtype, ``z`` = x clamped to
    ``[eps, 1 - eps]`` when ``eps`` is given and not negative in the dtype (NaN stays NaN). A
    float16/bfloat16 input keeps every step in its own dtype, as PyTorch does: its bounds ``eps``
    and ``1 - eps`` rounded to it (float16's ``1 - 1e-4`` is 1.0, so its logit(1.0) is inf), then
    ``1 - z``, the quotient and the log. ``contiguous``: whether PyTorch's TensorIterator is
    contiguous (its MKL path: the NaN bits of :func:`_logit_nan_bits`), given by :func:`logit` for
    an ``out=`` it writes through a fresh result; None: ``out`` is the real output (fresh or ``x``)."""
    n = x.dtype
    narrow = n != compute and n.kind not in "biuc" and n.itemsize < compute.itemsize
    z = x if narrow else np.asarray(x, dtype=compute)
    if eps is not None:
        # PyTorch converts eps to the result's dtype first: beyond it, its error (never an inf clamp)
        line = scalar_overflow(eps, from_numpy_dtype(out.dtype) or d)
        if line is not None:
            raise StridedRuntimeError(join_lines(
                line, f"logit's eps {eps} is beyond the range of its {out.dtype} result",
                "fix: an eps inside [0, 0.5], e.g. x.logit(eps=1e-6)"))
        lo = compute.type(eps)
        if narrow:
            lo = n.type(lo)
    if eps is not None and lo >= 0:  # (PyTorch: eps < 0 in the dtype clamps nothing, as no eps)
        hi = compute.type(1) - compute.type(lo)
        if narrow:
            hi = n.type(hi)
        z = np.where(z < lo, lo, np.where(z > hi, hi, z))
    if narrow:  # (each step rounded to float16/bfloat16, as PyTorch's Vectorized<Half> rounds them)
        np.copyto(out, np.log(z / (n.type(1) - z)), casting="unsafe")
        return
    if z is x and out.dtype == compute and contiguous is not False:
        written = _compiled(x, out, 4)  # (the quotient in one compiled pass, into out)
        if written:
            np.log(out, out=out)  # (NumPy's log over it)
            if written == 2:  # (some quotient NaN or negative: rare)
                quotient = x / (compute.type(1) - x)
                _logit_nan_bits(quotient, out, positive=True)
            return
    quotient = z / (compute.type(1) - z)
    # (the log written straight into out, cast there as copyto casts it: one NumPy call fewer)
    np.log(quotient, out=out, dtype=compute, casting="unsafe")
    if not _all_nonnegative(quotient):  # (some quotient NaN or negative: rare)
        if contiguous is None:  # (an integer input is cast to a contiguous float first)
            contiguous = x.dtype != compute or _iterator_contiguous(x, out)
        _logit_nan_bits(quotient, out, compute == _F64 or contiguous)


def _all_nonnegative(a: np.ndarray) -> bool:
    """Whether every element of ``a`` is >= 0 (no NaN): its minimum, which NumPy's propagates a NaN
    into (a SIMD reduction, no bool array: 2^19 float32 ~26 us against ~40 for greater_equal + all)."""
    return a.size == 0 or bool(np.minimum.reduce(a, axis=None) >= 0)


def _iterator_contiguous(x: np.ndarray, out: np.ndarray) -> bool:
    """Whether PyTorch's TensorIterator over ``x`` and ``out`` (one dtype) is contiguous (one element,
    or both dense with the same strides: one coalesced unit-stride dim), where its logit takes MKL."""
    if x.size <= 1:
        return True
    kept = [(size, a, b) for size, a, b in zip(x.shape, x.strides, out.strides) if size != 1]
    if any(a != b for _, a, b in kept):
        return False
    expected = x.itemsize
    for size, stride, _ in sorted(kept, key=lambda p: p[1]):
        if stride != expected:
            return False
        expected *= size
    return True


def _logit_nan_bits(quotient: np.ndarray, out: np.ndarray, positive: bool) -> None:
    """``out`` (NumPy's log of logit's ``quotient``) with PyTorch's NaN bits: a NaN quotient's own
    (its log keeps them; NumPy's float32 log makes every NaN 0x7fc00000), and where the quotient is
    negative, +NaN if ``positive`` (NumPy's log gives x86's default NaN there, -NaN). PyTorch's
    +NaN: MKL's vsLn/vdLn on its contiguous path (float32 and float64; an integer input, cast to
    a contiguous float first, too), the C library's ``log`` in its float64 scalar loop; its float32
    scalar loop's ``logf`` gives -NaN, NumPy's already (``positive`` False). Not modelled: the
    SLEEF vector blocks of an expanded input (NaNs with a payload)."""
    np.copyto(out, quotient, where=np.isnan(quotient), casting="unsafe")
    if positive:
        np.copyto(out, np.nan, where=np.less(quotient, 0), casting="unsafe")


def _sinc(x: np.ndarray, out: np.ndarray, compute: np.dtype, d: DType) -> None:
    """PyTorch's sinc kernel: 1 at 0, else ``sin(pi x) / (pi x)`` in the compute dtype (pi rounded
    to it: float32's ``sinc(1.0)`` is -2.78e-08, not 0), with the C library's sine as PyTorch's
    (the compiled ``unary_exact`` code 5); NumPy's sine where that is not built (its float32 sine
    is an ulp off the C library's on ~13% of inputs)."""
    if compute in _PI:
        # (in the input's memory order: its dims sorted by stride, so a permuted tensor is read
        # and its result, laid out as it, written without two transposing copies)
        order = sorted(range(x.ndim), key=lambda i: -abs(x.strides[i]))
        back = sorted(range(x.ndim), key=order.__getitem__)
        xs = x.transpose(order).astype(compute, order="C", copy=False)  # (0-d stays 0-d)
        res = np.empty(xs.shape, compute)
        if _compiled(xs, res, 5):
            np.copyto(out, res.transpose(back), casting="unsafe")
            return
    xs = x if x.dtype == compute else np.asarray(x, dtype=compute)
    product = xs * _PI[compute] if compute in _PI else xs * np_finfo(compute).dtype.type(np.pi)
    np.copyto(out, np.where(xs == 0, compute.type(1), np.sin(product) / product), casting="unsafe")


_PI = {np.dtype(t): t(np.pi) for t in (np.float32, np.float64)}  # (pi rounded to the compute dtype)


def _sinc_fresh(x: np.ndarray) -> np.ndarray:
    """:func:`_sinc` of a flat float32 / float64 run into a fresh array: the same ufuncs on the
    same elements (the quotient written over the sine, the ones put where ``x`` is 0), without
    the kernel's output buffer and copy; the compiled C-library loop first (see :func:`_sinc`)."""
    res = np.empty(x.shape, x.dtype)
    if _compiled(x, res, 5):
        return res
    return _sinc_numpy(x)


def _sinc_direct(x: np.ndarray) -> np.ndarray:
    """:func:`_sinc_fresh` called directly, not through ``quiet_call`` (the fronts' and fast
    path's ``direct`` form, as the special functions'): the compiled loop (no NumPy arithmetic,
    nothing to quiet) seen through this context's :func:`strided.kernels.native.disabled`, which
    ``quiet_call``'s shared context hides; the NumPy formulas quietly."""
    res = np.empty(x.shape, x.dtype)
    k = native.special()
    if k is not None and k.unary_exact(x if x.flags.aligned else x.copy(), res, 5):  # (x: a flat run)
        return res
    return quietly(_sinc_numpy, x)


def _sinc_numpy(x: np.ndarray) -> np.ndarray:
    """:func:`_sinc_fresh`'s NumPy formulas (the quotient written over the sine, ones at 0)."""
    product = np.multiply(x, _PI0[x.dtype])
    q = np.sin(product)
    np.divide(q, product, out=q)
    np.copyto(q, _ONE0[x.dtype], where=x == 0)
    return q


def _float(name: str, kernel: Kernel, *aliases: str) -> MoreUnary:
    """A "float" op; those PyTorch computes with MKL VML (kernels.vml_route.OPS: erf erfc erfinv
    log10 tan asin acos atan) take VML first for float32/float64 (PyTorch's bits), ``kernel`` where
    the route does not run."""
    if name in vml_route.CODE:
        kernel = vml_route.kernel(name, kernel)
    return MoreUnary(name, kernel, "float", aliases=aliases)


TABLE: tuple[MoreUnary, ...] = (
    MoreUnary("isnan", _float_test(np.isnan, False), "bool", inplace=False),
    MoreUnary("isinf", _float_test(np.isinf, False), "bool", inplace=False, like="isinf"),
    MoreUnary("isfinite", _float_test(np.isfinite, True), "bool", inplace=False, like="isfinite"),
    MoreUnary("isposinf", _float_test(_isposinf, False), "bool", inplace=False),
    MoreUnary("isneginf", _float_test(_isneginf, False), "bool", inplace=False),
    MoreUnary("signbit", _signbit, "bool", inplace=False),
    MoreUnary("logical_not", _logical_not, "bool"),
    MoreUnary("floor", _copy_ints(_ufunc(np.floor)), "same", _BOOL, "floor_vml_cpu", out_same_dtype="not_complex"),
    MoreUnary("ceil", _copy_ints(_ufunc(np.ceil)), "same", _BOOL, "ceil_vml_cpu", out_same_dtype="not_complex"),
    MoreUnary("trunc", _copy_ints(_ufunc(np.trunc)), "same", _BOOL, "trunc_vml_cpu", aliases=("fix",), out_same_dtype="not_complex"),
    MoreUnary("round", _copy_ints(_round), "same", _BOOL, "round_vml_cpu", out_same_dtype="always"),
    MoreUnary("frac", _frac, "same", _NOT_FLOAT, "frac_cpu", out_same_dtype="always"),
    MoreUnary("sign", _sign, "same", out_same_dtype="not_complex"),
    MoreUnary("sgn", _sign, "same", out_same_dtype="always"),
    MoreUnary("square", _square, "same", bool_to_long=True),
    MoreUnary("nan_to_num", _nan_to_num, "same", like="always"),
    _float("log1p", _log1p),
    _float("expm1", _expm1),
    _float("log2", _complex_c10(np.log2, complex_forms.LOG2)),
    _float("log10", _complex_c10(np.log10, complex_forms.LOG10)),
    _float("exp2", _exp2),
    _float("rsqrt", _rsqrt),
    _float("reciprocal", _reciprocal),
    _float("erf", _special(special.erf)),
    _float("erfc", _special(special.erfc)),
    _float("erfinv", _special(special.erfinv)),
    _float("digamma", _special(special.digamma)),
    _float("lgamma", _special(special.lgamma)),
    _float("sinc", _sinc),
    MoreUnary("i0", _special(special.i0), "float", kernel_name="i0_vml_cpu"),
    MoreUnary("logit", _logit_kernel, "float", kernel_name="logit_cpu"),
    _float("tan", _ufunc(np.tan)),
    _float("asin", _ufunc(np.arcsin), "arcsin"),
    _float("acos", _complex_c10(np.arccos, complex_forms.ACOS), "arccos"),
    _float("atan", _ufunc(np.arctan), "arctan"),
    _float("sinh", _hyper("sinh", np.sinh)),
    _float("cosh", _hyper("cosh", np.cosh)),
    _float("asinh", _ufunc(np.arcsinh), "arcsinh"),
    _float("acosh", _ufunc(np.arccosh), "arccosh"),
    _float("atanh", _hyper("atanh", np.arctanh), "arctanh"),
    MoreUnary("deg2rad", _angle(np.deg2rad, np.pi, 180.0), "float", like="always"),
    MoreUnary("rad2deg", _angle(np.rad2deg, 180.0, np.pi), "float", like="always"),
)
OPS = {op.name: op for op in TABLE}


def _constants(value: float) -> dict[np.dtype, np.ndarray]:
    """``value`` as a read-only 0-d array of each fast-path dtype (float32, float64): an operand
    of the dtype's own loop, as the NumPy scalar ``dtype.type(value)`` is, with the same bits,
    but a ufunc converts a 0-d array in half the time (0.35 against 0.7 us per small call)."""
    out = {}
    for t in (np.float32, np.float64):
        a = np.array(value, t)
        a.flags.writeable = False
        out[np.dtype(t)] = a
    return out


# the fast paths' constants (_constants)
_ONE0, _ZERO0, _PI0, _INF0, _NEG_INF0 = (_constants(v) for v in (1.0, 0.0, np.pi, np.inf, -np.inf))


def _sign_fresh(x: np.ndarray) -> np.ndarray:
    """:func:`_sign` of a flat float32 / float64 run: the compiled ``unary_exact`` where it runs,
    else NumPy's sign (+0.0 for either zero, as ``(x > 0) - (x < 0)``) with its NaN made 0. The same bits as the kernel's subtraction of two
    bool arrays, which casts them in a buffered loop (half again as slow on small runs)."""
    r = np.empty(x.shape, x.dtype)
    if _compiled(x, r, 0):
        return r
    r = np.sign(x)
    np.copyto(r, _ZERO0[x.dtype], where=r != r)
    return r


def _sgn_fresh(x: np.ndarray) -> np.ndarray:
    """``sgn`` of a flat float32 / float64 / complex64 / complex128 run: :func:`_sign_fresh` for the
    floats; for complex, :func:`_sign`'s ``z / |z|`` (the same divide loop: the float ``|z|`` cast to
    the complex dtype, exactly) and its 0 where ``|z|`` is 0, that write skipped when no ``|z|`` is
    0 (a count, a quarter of the masked write's cost; NaN counts as non-zero, as in ``size == 0``)."""
    if x.dtype not in _COMPLEX:
        return _sign_fresh(x)
    k = native.special()
    r = np.empty(x.shape, x.dtype)
    # (the steps below in one compiled pass, their bits: tests/test_sgn_native.py, with the row's
    # scalar tail where PyTorch runs one chunk: below 32768 elements)
    if k is not None and k.complex_sgn(x, r, _SGN_STEPS.get(x.itemsize) or _sgn_step(x.itemsize)):
        if x.shape[0] >= GRAIN_SIZE:
            _sgn_flat_tail(x, r)
        return r
    size = complex_abs(x)
    _halves_over(x, size, r, size.dtype)
    if _count_nonzero(size) != size.shape[0]:
        np.copyto(r, 0, where=size == 0)
    _sgn_flat_tail(x, r)  # (PyTorch's scalar loop at the row's end)
    return r


def _rsqrt_fresh(x: np.ndarray) -> np.ndarray:
    """:func:`_rsqrt` of a flat float32 / float64 run: the compiled ``unary_exact`` (code 3) where
    it runs, else the quotient written over the root."""
    r = np.empty(x.shape, x.dtype)
    if _compiled(x, r, 3):
        return r
    r = np.sqrt(x)
    return np.divide(_ONE0[x.dtype], r, out=r)


# The small-op fast path (:func:`_make`): for a row-major float32 / float64 input, each op's
# kernel on floats as a function of the flat input returning a fresh array of the result dtype:
# the same ufuncs, in the same dtype (the compute dtype of these is the input's), as the rows'
# kernels above (a change there must be made here too; test_small_op_paths compares both paths).
# The special functions compute in float64 and round once, as their rows (the same kernel).
# Left out: the composites laid out otherwise (``like``), and the ops with more arguments
# (round, nan_to_num). isinf and isfinite (``like``) are in: a row-major or dense input's composite
# is laid out as the input (_fast_run's layouts), and without AVX-512 (fp_test declines) their
# front then runs NumPy's class test in C rather than the general path (~2 us a call).
_FRESH: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "isnan": np.isnan, "isinf": np.isinf, "isfinite": np.isfinite, "signbit": np.signbit, "logical_not": lambda x: np.equal(x, 0),  # (see _logical_not)
    "isposinf": lambda x: np.equal(x, _INF0[x.dtype]), "isneginf": lambda x: np.equal(x, _NEG_INF0[x.dtype]),
    "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc,
    "frac": _frac_fresh,
    "sign": lambda x: _sign_fresh(x),
    "sgn": lambda x: _sgn_fresh(x),
    "square": lambda x: np.square(x),  # (float32/float64: _square's np.square, x * x's bits)
    "log1p": lambda x: _log1p_fresh(x), "expm1": lambda x: _expm1_fresh(x), "log2": np.log2, "log10": np.log10,
    "exp2": lambda x: _exp2_fresh(x),
    "rsqrt": lambda x: _rsqrt_fresh(x),
    "reciprocal": _reciprocal_fresh,
    "sinc": _sinc_fresh, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan,
    "sinh": _hyper_fresh("sinh", np.sinh), "cosh": _hyper_fresh("cosh", np.cosh), "asinh": np.arcsinh,
    "acosh": np.arccosh, "atanh": _hyper_fresh("atanh", np.arctanh),
}
def _log1p_fresh(x: np.ndarray) -> np.ndarray:
    """log1p of a flat run: :func:`_log1p`'s (SLEEF's at every element where the kernel runs), else
    NumPy's."""
    r = _half_map(log1p_map, x, None) if x.dtype == _F16 else log1p_map(x)
    return np.log1p(x) if r is None else r


def _expm1_fresh(x: np.ndarray) -> np.ndarray:
    """expm1 of a flat run: :func:`_expm1`'s (SLEEF's at every element where the kernel runs: an
    unaligned run too, read from an aligned copy), else NumPy's."""
    r = _half_map(expm1_map, x, None) if x.dtype == _F16 else expm1_map(x)
    return np.expm1(x) if r is None else r


def _unary_exact_first(code: int) -> Callable[[np.ndarray], np.ndarray | None]:
    """The compiled ``unary_exact`` ``code`` of a flat float32 / float64 run into a fresh array,
    tried first by the fast path without quiet_call (no NumPy arithmetic in it: nothing to quiet);
    None where it does not run (then the op's :data:`_FRESH` function runs, quietly)."""

    def first(x: np.ndarray) -> np.ndarray | None:
        k = native.special()
        if k is None:
            return None
        r = np.empty(x.shape, x.dtype)
        return r if k.unary_exact(x, r, code) else None

    return first


def _frac_first(x: np.ndarray) -> np.ndarray | None:
    """:func:`_frac_fresh`'s compiled pass alone (as :func:`_unary_exact_first`'s)."""
    r = np.empty(x.shape, x.dtype)
    return r if _frac_compiled(x, r) else None


# the ops whose fresh function is one compiled pass (the codes of _sign_fresh and _rsqrt_fresh)
# (expm1: SLEEF's at every element, expm1_map; None where not built: then _FRESH's np.expm1)
_FIRST = {"sign": _unary_exact_first(0), "rsqrt": _unary_exact_first(3), "frac": _frac_first,  # (see _FIRST_CODES)
          "expm1": lambda x: expm1_map(x), "log1p": lambda x: log1p_map(x)}
# (the VML ops, where the environment lets kernels.vml_route run: MKL VML's pass into a fresh
# array, None where it does not run after all; their fronts call it in C: _front_kernel)
_VML = vml_route.possible()
if _VML:
    _FIRST.update({op.name: partial(vml_route.fresh, op.name) for op in TABLE if op.name in vml_route.CODE})
    # (and the fronts' own function, run where their C call declined -- unaligned memory, which
    # vml_route copies first: VML's bits there too, not the ufunc's)
    _FRESH.update({name: vml_route.fresh_first(name, fn) for name, fn in _FRESH.items() if name in vml_route.CODE})
# the special functions: called without quiet_call (see _special_fresh)
def _logit_fresh(x: np.ndarray) -> np.ndarray:
    """``logit(x)`` without eps of a flat float32 / float64 run into a fresh array: the forward's
    own steps (:func:`_logit_kernel`'s for a float input and no eps: the compiled quotient, then
    NumPy's log over it; NumPy's quotient where that is not built), for the compiled
    front of ``logit(x)`` (one positional argument: an eps or ``out`` goes to the entry)."""
    out = np.empty(x.shape, x.dtype)
    k = native.special()
    written = k is not None and k.unary_exact(x, out, 4)
    if written:  # (_logit_kernel's steps for this case, inlined)
        np.log(out, out=out)
        if written == 2:
            _logit_nan_bits(x / (x.dtype.type(1) - x), out, positive=True)
        return out
    quotient = x / (x.dtype.type(1) - x)
    np.log(quotient, out=out)
    if not _all_nonnegative(quotient):  # (a fresh result: PyTorch's contiguous path)
        _logit_nan_bits(quotient, out, positive=True)
    return out


_FRESH["logit"] = _logit_fresh  # (quietly: NumPy's log warns at 0 and beyond [0, 1])
_FRESH_DIRECT = {name: _special_fresh(getattr(special, name))
                 for name in ("erf", "erfc", "erfinv", "digamma", "lgamma", "i0")}
_FRESH_DIRECT["sinc"] = _sinc_direct
_FRESH.update(_FRESH_DIRECT)
_F32_F64 = (np.dtype(np.float32), np.dtype(np.float64))
_F32 = _F32_F64[0]
_F64 = _F32_F64[1]


def _result_dtype(op: MoreUnary, d: DType) -> DType:
    if op.rule == "float":
        return to_float(d)
    if op.rule == "bool":
        return bool_
    return int64 if (d is bool_ and op.bool_to_long) else d


def _composite_strides(like: str, d: DType, shape: tuple[int, ...], strides: tuple[int, ...]) -> tuple[int, ...]:
    """The strides of an op PyTorch writes as a composite of other ops (so its output is laid out
    by the last of them, each laid out by TensorIterator from its own operands' strides), or as
    ``empty_like``.

    - "always": ``empty_like(input)``'s (preserve-format) strides.
    - "isinf": integers and bool ``zeros_like``; floats ``x.abs() == inf``; complex numbers
      ``isinf(x.real) |= isinf(x.imag)``, laid out as the float isinf of the real part (a view with
      strides twice the input's, in real elements).
    - "isfinite": integers and bool ``ones_like``; floats ``(x == x) * (x.abs() != inf)``;
      complex numbers ``isfinite(x.real) &= isfinite(x.imag)``, as the float isfinite of the real part.

    The chain matters where the ops' layouts differ: ``x == x`` of a (1, 1, 2) tensor with strides
    (2, 1, 2) gives strides (1, 1, 1) (its dim order), which count as contiguous, so the product
    of the two comparisons takes TensorIterator's contiguous fast set-up: (2, 2, 1).

    >>> _composite_strides("isfinite", strided.float32, (1, 1, 2), (2, 1, 2))
    (2, 2, 1)
    """
    if like == "always" or not (d.is_floating_point or d.is_complex):
        return L.preserve_format_strides(shape, strides)
    if d.is_complex:
        strides = tuple(2 * s for s in strides)  # x.real: every stride counted in real elements
    out = L.elementwise_output_strides
    compared = out(shape, [(shape, out(shape, [(shape, strides)])), ((), ())])  # x.abs() == inf (or != inf)
    if like == "isinf":
        return compared
    return out(shape, [(shape, out(shape, [(shape, strides), (shape, strides)])), (shape, compared)])  # (x == x) * ...


def run_unary(op: MoreUnary, x: Any, target: Tensor | None = None, args: tuple = (), out: Any = None) -> Tensor:
    """``op(x, *args)`` into a fresh output (TensorIterator's strides) or into ``target`` (``x``
    itself, after PyTorch's in-place checks), or written into ``out=`` (:func:`strided.ops._support.out.write_out`);
    the op's entry reports it."""
    if out is not None:
        if op.out_same_dtype and isinstance(x, Tensor):
            refuse_other_dtype(out, x._dtype, op.name, op.out_same_dtype)
        # (round with decimals is not PyTorch's buffered round_vml_cpu kernel: its out= reads
        # are judged as any elementwise op's)
        scratch = out_layout_scratch(out, x, _result_dtype(op, x._dtype)) if isinstance(x, Tensor) else None
        return write_out(out, _run(op, x, scratch, args), op.name, (x,), unbuffered=op.name == "round" and bool(args),
                         plain_loop=True)
    result = _run(op, x, target, args)
    return result


def _run(op: MoreUnary, x: Any, target: Tensor | None, args: tuple) -> Tensor:
    if target is None:
        t = _fast_run(op, x, args)
        if t is not None:
            return t
    name = op.name if target is None else op.name + "_"
    if not isinstance(x, Tensor):
        raise not_a_tensor_input(x, name, op.name)
    d = x._dtype
    if target is not None:
        check_writable(target._storage, target._layout, name)  # (PyTorch checks stride-0 overlap first)
    support.check(op.canonical or op.name, d, (x,))  # PyTorch's refusals for complex and uint16/32/64
    if (d is bool_ and "bool" in op.refuse) or (
        not d.is_floating_point and d is not bool_ and "int" in op.refuse
    ):
        raise _not_implemented(op.kernel_name, d, (x,), f"fix: convert first, e.g. x.to(strided.float32).{name}()")
    rt = _result_dtype(op, d)
    shape = x._layout.shape
    if target is None and op.like:
        out = result(shape, rt, _composite_strides(op.like, d, shape, x._layout.strides))
    elif target is None:
        out = _fresh_output(shape, rt, [x], d if op.rule == "bool" else rt)
    else:
        _check_inplace(target, name, rt, shape)
        out = target
    # float16 computes in float32 and rounds once (PyTorch's "opmath"); the special functions
    # compute in float64 (their kernels are float64)
    compute = rt.numpy
    if op.rule == "float" and compute.itemsize == 2:  # (float16 or bfloat16: not .name, a 1 µs property)
        compute = np.dtype(np.float32)
    if op.rule == "bool":
        compute = d.numpy
    token = quiet_set(QUIET)
    try:
        xv = _view(x)
        if op.name == "sgn" and d.is_complex:
            # (PyTorch's scalar loop's elements, found before an in-place write changes x)
            lay, ol = x._layout, out._layout
            mask = scalar_loop_mask(lay.shape, ol.strides, target is None, [(lay.shape, lay.strides)],
                                    step=_sgn_step(d.itemsize))
            z = xv[mask] if mask is not None else None
            op.kernel(xv, _view(out), compute, d, *args)
            if z is not None:
                _sgn_scalar_loop(z, _view(out), mask)
        else:
            op.kernel(xv, _view(out), compute, d, *args)
    finally:
        quiet_reset(token)
    if rt is bfloat16 and (op.canonical or op.name) in VML_ALL_ONES:
        all_ones_nans(_view(out))  # (PyTorch's vectorized conversion's NaN: kernels.reduced_nans)
    return out


def _fast_run(op: MoreUnary, x: Any, args: tuple) -> Tensor | None:
    """:func:`_run`'s fresh result for a row-major float32 / float64 tensor, without its general
    set-up: no refusal applies to these dtypes, the compute dtype is the input's, and the output
    of a row-major input is row-major (TensorIterator's strides, and the composites' and
    ``empty_like``'s of ``like``); the op's own kernel (the same NumPy calls) writes a fresh flat
    array that becomes the output's storage. None where the general path must run."""
    if (x.__class__ is not Tensor and x.__class__ not in SUBCLASSES) or op.name in _SPECIAL:
        return None
    d = x._dtype
    np_d = d.numpy
    if np_d not in _F32_F64 and not (np_d in _COMPLEX and op.name == "sgn"):  # (sgn: complex kernels too)
        return None
    info = _cinfo[x._layout.shape]
    if not info[1] and op.like == "isinf":  # (empty: the general path lays out the composite x.abs() == inf)
        return None
    arr = flat_run(x, info)
    layout = info[2]
    if arr is None:  # (a transpose: the kernel over its memory in order, a ~20 us layout set-up saved)
        # (complex sgn too: PyTorch's TensorIterator coalesces a permuted dense input and its output,
        # laid out alike, into one flat run, so its vector and scalar loops visit the memory run
        # exactly as a contiguous input's: the flat run's steps below give its bits)
        dense = dense_run(x, info[1])
        if dense is None:
            return None
        arr, layout = dense
    token = quiet_set(QUIET)
    try:
        if np_d in _COMPLEX:  # (sgn: the flat run's one compiled pass, PyTorch's scalar loop at its end)
            res = _sgn_fresh(arr)
        else:
            res = np.empty(info[1], _BOOL_NP if op.rule == "bool" else np_d)
            op.kernel(arr, res, np_d, d, *args)
    finally:
        quiet_reset(token)
    return adopted(res, layout, bool_ if op.rule == "bool" else d)



# the special functions' rows (their float64 kernels dominate; :mod:`strided.kernels.special`)
_SPECIAL = frozenset(("erf", "erfc", "erfinv", "digamma", "lgamma", "i0"))
_BOOL_NP = np.dtype(np.bool_)
_COMPLEX = (np.dtype(np.complex64), np.dtype(np.complex128))
_count_nonzero = npcore.count_nonzero  # (the C function, without np.count_nonzero's Python layer)


def _fresh_fast(fresh: Callable[[np.ndarray], np.ndarray], input: Tensor, direct: bool = False,
                rule_bool: bool = False, dtypes: tuple[np.dtype, ...] = _F32_F64,
                first: Callable[[np.ndarray], np.ndarray | None] | None = None,
                dense: bool = False, empty: bool = True) -> Tensor | None:
    """The small-op fast path (:data:`_FRESH`): ``fresh`` of a row-major float32 / float64
    tensor's flat run (quietly, unless ``direct``) as the storage of a row-major result (bool
    for ``rule_bool``); None where the general path must run (a dtype not in ``dtypes``, another
    layout, a tensor unpickled past its storage, which the general path refuses). ``first``: a
    compiled pass tried before ``fresh`` without quieting (:data:`_FIRST`). ``dense``: a permuted
    dense tensor (a transpose) too, its run in memory order and the result with its strides, as
    :func:`_fast_run` takes it (round: the other table ops' compiled fronts take a transpose
    before this runs; not for :data:`_SPECIAL`, which _fast_run leaves to the general path).
    ``empty``: whether an empty tensor takes the row-major path (not isinf's: its composite
    ``x.abs() == inf`` orders an empty tensor's dims by strides, :func:`_composite_strides`; its
    empty result is made here with those strides, remembered per layout: nothing is computed, and
    the general path refuses no empty float32 / float64 tensor)."""
    d = input._dtype
    if d.numpy not in dtypes:  # float16 computes in float32 (the slow path's "opmath")
        return None
    info = _cinfo[input._layout.shape]
    if not (empty or info[1]):
        lay = input._layout
        return adopted(np.empty(0, _BOOL_NP), _EMPTY_ISINF[lay.shape, lay.strides], bool_)
    layout = info[2]
    arr = flat_run(input, info)  # (row-major: the output is too, TensorIterator)
    if arr is None:
        got = dense_run(input, info[1]) if dense else None
        if got is None:
            return None
        arr, layout = got
    if first is not None and (res := first(arr)) is not None:
        pass
    elif direct:
        res = fresh(arr)
    else:
        try:  # fpstate.quietly, inlined
            res = quiet_call(fresh, arr)
        except RuntimeError as e:
            res = quiet_retry(e, fresh, arr)
    return adopted(res, layout, bool_ if rule_bool else d)


# isinf's result layout for an empty float tensor's (shape, strides): the composite's strides
# (x.abs() == inf), as the general path lays them out (a float32 input's; float64's are the same)
_EMPTY_ISINF = Memo(lambda key: L.Layout._trusted(key[0], _composite_strides("isinf", float32, *key), 0))


def _make(op: MoreUnary) -> tuple[Callable[..., Tensor], Callable[..., Tensor] | None]:
    fresh = _FRESH.get(op.canonical or op.name)
    direct = (op.canonical or op.name) in _FRESH_DIRECT
    first = _FIRST.get(op.canonical or op.name)
    rule_bool = op.rule == "bool"
    empty = op.like != "isinf"  # (see _fresh_fast)
    dtypes = _F32_F64 + _COMPLEX if op.name == "sgn" else _F32_F64  # (sgn: its complex kernel too)

    guarded: list[Callable[[], Callable[..., Tensor]]] = []

    def build(own: bool) -> Callable[..., Tensor]:
        def plain(input: Any, *, out: Any = None) -> Tensor:
            if own and (OPEN or out is not None):  # (the calls its guard entry would act on)
                return guarded[0]()(input) if out is None else guarded[0]()(input, out=out)
            if fresh is not None and out is None and (input.__class__ is Tensor or input.__class__ in SUBCLASSES):
                t = _fresh_fast(fresh, input, direct, rule_bool, dtypes, first, empty=empty)
                if t is not None:
                    return t
            return run_unary(op, input, out=out)

        return plain

    plain = build(False)
    if rule_bool:  # (bool results, no rule: its own guard entry, see guards_itself)
        raw, plain = plain, build(True)
        guarded.append(guards_itself(plain, raw, op.name))
        raw.__name__ = raw.__qualname__ = op.name
    def inplace(self: Tensor) -> Tensor:
        try:
            return run_unary(op, self, target=self)
        except UpdatesInOrder as refusal:  # (a target whose elements share memory: PyTorch's updates)
            return updates_in_order(inplace, self, (), {}, refusal)

    plain.__name__ = plain.__qualname__ = op.name
    plain.__doc__ = (f"Elementwise ``{op.name}`` (PyTorch semantics, dtype rule {op.rule!r}); a fresh "
                     "tensor keeping the input's dim order.\n\n"
                     "    >>> x = strided.ones(2, 3).t()\n"
                     f"    >>> x.{op.name}().shape, x.{op.name}().stride()  # x's strides: (1, 3)\n"
                     "    ((3, 2), (1, 3))\n")
    inplace.__name__ = inplace.__qualname__ = op.name + "_"
    inplace.__doc__ = (f"In-place ``{op.name}``: writes into this tensor; its dtype must hold the result.\n\n"
                       "    >>> x = strided.ones(2, 3)\n"
                       "    >>> col = x[:, 0]\n"
                       f"    >>> col.{op.name}_() is col, x[:, 1:].tolist()  # column 0 written, in x's memory\n"
                       "    (True, [[1.0, 1.0], [1.0, 1.0]])\n")
    return plain, (inplace if op.inplace else None)


FUNCTIONS: dict[str, Callable[..., Tensor]] = {}

for _op in TABLE:
    if _op.name in ("round", "nan_to_num", "logit"):
        continue  # (their own signatures below)
    for _name in (_op.name, *_op.aliases):
        # an alias (arcsin, fix, ...) is the op under its own name: records and messages name
        # what the user called, as binary_more's arctan2 does
        _fn, _inplace = _make(_op if _name == _op.name else replace(_op, name=_name, canonical=_op.name))
        FUNCTIONS[_name] = _fn
        method(_name)(_fn)
        if _inplace is not None:
            FUNCTIONS[_name + "_"] = _inplace
            method(_name + "_")(_inplace)


def _decimals(decimals: Any, d: DType, name: str) -> int:
    if isinstance(decimals, bool) or not isinstance(decimals, (int, np.integer)):
        raise StridedTypeError(
            join_lines(
                f"{name}(): argument 'decimals' must be int, not {type(decimals).__name__}",
                "decimals counts places after the point (negative: before it), e.g. x.round(decimals=2)",
            )
        )
    if decimals and not d.is_floating_point:
        raise _not_implemented("round_cpu", d, (), "round(decimals=) takes float tensors; "
                               "fix: x.to(strided.float32).round(decimals=...)")
    return int(decimals)


def round(input: Any, *, decimals: int = 0, out: Any = None) -> Tensor:  # noqa: A001 - strided.round mirrors torch.round
    """Round half to even (``round(2.5) == 2``), to ``decimals`` places (negative: tens, hundreds).

    Integer tensors come back unchanged (``decimals`` must then be 0); bool is refused.

    >>> strided.round(strided.tensor([0.5, 1.5, 1.25], dtype=strided.float64), decimals=1).tolist()
    [0.5, 1.5, 1.2]
    """
    if decimals.__class__ is not int:
        _decimals_type(decimals, "round")
    if not decimals and out is None and (input.__class__ is Tensor or input.__class__ in SUBCLASSES):
        t = _fresh_fast(np.rint, input, dense=True)  # (the kernel's rint, as _round runs it for decimals=0)
        if t is not None:
            return t
    d = input._dtype if isinstance(input, Tensor) else None
    args = (_decimals(decimals, d, "round"),) if d is not None and decimals else ()
    return run_unary(OPS["round"], input, args=args, out=out)


def round_(self: Tensor, *, decimals: int = 0) -> Tensor:
    """In-place :func:`round`.

    >>> strided.tensor([0.5, 1.5, 2.7]).round_().tolist()
    [0.0, 2.0, 3.0]
    """
    if decimals.__class__ is not int:
        _decimals_type(decimals, "round_")
    args = (_decimals(decimals, self._dtype, "round_"),) if decimals else ()
    try:
        return run_unary(OPS["round"], self, target=self, args=args)
    except UpdatesInOrder as refusal:  # (a target whose elements share memory: PyTorch's updates)
        return updates_in_order(round_, self, (), {"decimals": decimals}, refusal)


def _decimals_type(decimals: Any, op: str) -> None:
    """PyTorch's parser on ``decimals=``: an int (a NumPy integer too), not a bool, float or None."""
    if isinstance(decimals, bool) or not isinstance(decimals, (int, np.integer)):
        raise StridedTypeError(join_lines(
            f"{op}(): argument 'decimals' must be int, not {type(decimals).__name__}",
            f"decimals= counts decimal places; fix: {op}(decimals={int(decimals) if isinstance(decimals, float) and decimals == int(decimals) else 0})"))


def _finite_arg(value: Any, name: str, op: str) -> float | None:
    if value is None:
        return None
    if not isinstance(value, (int, float, np.integer, np.floating)):  # (a bool too: PyTorch reads it as 0.0 / 1.0)
        raise StridedTypeError(
            join_lines(
                f"{op}(): argument '{name}' must be float, not {type(value).__name__}",
                f"{name}= is the number that replaces the matching values, e.g. x.{op}({name}=0.0)",
            )
        )
    return float(value)


def nan_to_num(input: Any, nan: float = 0.0, posinf: float | None = None,
               neginf: float | None = None, *, out: Any = None) -> Tensor:
    """NaN, +inf and -inf replaced by ``nan`` (0.0), ``posinf`` and ``neginf`` (by default the
    dtype's largest and lowest finite values); integer and bool tensors come back as they are.

    >>> strided.nan_to_num(strided.tensor([float("nan"), float("inf")]), posinf=9.0).tolist()
    [0.0, 9.0]
    """
    if nan.__class__ is float and posinf is None and neginf is None:  # (the defaults: nothing to parse)
        if out is None and input.__class__ is Tensor and (t := _nan_to_num_fresh(input, nan)) is not None:
            return t
        args = (nan, None, None)
    else:
        args = (_nan_arg(nan, "nan_to_num"), _finite_arg(posinf, "posinf", "nan_to_num"),
                _finite_arg(neginf, "neginf", "nan_to_num"))
    if isinstance(out, Tensor) and isinstance(input, Tensor) and out._dtype is not input._dtype:
        # (PyTorch's nan_to_num_out checks the dtypes before anything else: no cast into out)
        raise StridedRuntimeError(join_lines(
            f"nan_to_num: dtype of out: {TORCH_NAMES[out._dtype]} should be same as input: "
            f"{TORCH_NAMES[input._dtype]}",
            f"out= is {out._dtype.name} but the input is {input._dtype.name}; nan_to_num never casts "
            f"into out: pass an out of dtype strided.{input._dtype.name}, or convert after"))
    return run_unary(OPS["nan_to_num"], input, args=args, out=out)


def _nan_to_num_fresh(x: Tensor, nan: float) -> Tensor | None:
    """nan_to_num's default bounds for a row-major float32 / float64 ``x``: the compiled pass
    :func:`_nan_to_num` takes first (``unary_exact`` code 1, the same call on the same flat run:
    its bits) into a fresh row-major result, without :func:`run_unary`'s layers and quiet block
    (C code: no NumPy warning). None where those must run (another dtype or layout, the kernel
    not built or off)."""
    bounds = _BOUNDS.get(x._dtype.numpy)
    lay = x._layout
    info = _cinfo[lay.shape]
    if bounds is None or lay.strides != info[0]:
        return None
    k = native.special()
    n = info[1]
    arr = x._storage.array
    if lay.offset or len(arr) != n:
        arr = arr[lay.offset : lay.offset + n]
    if k is None or len(arr) != n:
        return None
    res = np.empty(n, arr.dtype)
    return adopted(res, info[2], x._dtype) if k.unary_exact(arr, res, 1, nan, bounds[0], bounds[1]) else None


def _nan_arg(nan: Any, op: str) -> float:
    """``nan=`` as a float, 0.0 for None (its -0.0 kept: ``x or 0.0`` would make it 0.0)."""
    value = _finite_arg(nan, "nan", op)
    return 0.0 if value is None else value


def nan_to_num_(self: Tensor, nan: float = 0.0, posinf: float | None = None,
                neginf: float | None = None) -> Tensor:
    """In-place :func:`nan_to_num`.

    >>> strided.tensor([float("nan"), 1.0]).nan_to_num_(nan=-1.0).tolist()
    [-1.0, 1.0]
    """
    args = (_nan_arg(nan, "nan_to_num_"), _finite_arg(posinf, "posinf", "nan_to_num_"),
            _finite_arg(neginf, "neginf", "nan_to_num_"))
    if isinstance(self, Tensor) and not (self._dtype.is_floating_point or self._dtype.is_complex):
        # PyTorch's nan_to_num_ of an integer or bool tensor is self.copy_(self), which returns at
        # once: nothing is written or checked (an expanded tensor is fine)
        return self
    try:
        return run_unary(OPS["nan_to_num"], self, target=self, args=args)
    except UpdatesInOrder as refusal:  # (a target whose elements share memory: PyTorch's updates)
        return updates_in_order(nan_to_num_, self, (nan, posinf, neginf), {}, refusal)


def _eps(eps: Any, name: str) -> tuple:
    if eps is None:
        return ()
    if not isinstance(eps, (int, float, np.integer, np.floating)):  # (a bool too: PyTorch reads it as 0.0 / 1.0)
        raise StridedTypeError(join_lines(
            f"{name}(): argument 'eps' must be float, not {type(eps).__name__}",
            "eps clamps the input to [eps, 1 - eps] first, e.g. x.logit(eps=1e-6)",
        ))
    return (float(eps),)


def logit(input: Any, eps: float | None = None, *, out: Any = None) -> Tensor:
    """``log(x / (1 - x))``, the inverse of sigmoid; with ``eps`` the input is clamped to
    ``[eps, 1 - eps]`` first (so 0 and 1 give finite values). Integer and bool inputs give float32.

    >>> strided.logit(strided.tensor([0.5, 0.0, 1.0]), eps=0.25).tolist()
    [0.0, -1.0986123085021973, 1.0986123085021973]
    """
    args = _eps(eps, "logit")
    if out is not None and isinstance(input, Tensor) and isinstance(out, Tensor):
        # (out= is written through a fresh result: the kernel is told whether PyTorch's iteration
        # over input and out is contiguous, which picks its NaN bits)
        args = (args[0] if args else None, _out_contiguous(input, out))
    return run_unary(OPS["logit"], input, args=args, out=out)


def _out_contiguous(x: Tensor, out: Tensor) -> bool | None:
    """Whether PyTorch's TensorIterator over ``x`` and ``out=`` is contiguous: both dense with the
    same strides (an integer input's float copy keeps a dense input's strides, else is row-major),
    or one element. None where ``out`` is resized or cast (written as a fresh result is)."""
    shape = x._layout.shape
    if out._layout.shape != shape or out._dtype is not _result_dtype(OPS["logit"], x._dtype):
        return None
    if L.product(shape) <= 1:
        return True
    strides = x._layout.strides
    if not x._dtype.is_floating_point:
        strides = L.preserve_format_strides(shape, strides)
    same = all(a == b for size, a, b in zip(shape, strides, out._layout.strides) if size != 1)
    return same and L.is_non_overlapping_and_dense(shape, strides)


def logit_(self: Tensor, eps: float | None = None) -> Tensor:
    """In-place :func:`logit`.

    >>> strided.tensor([0.5]).logit_().tolist()
    [0.0]
    """
    try:
        return run_unary(OPS["logit"], self, target=self, args=_eps(eps, "logit_"))
    except UpdatesInOrder as refusal:  # (a target whose elements share memory: PyTorch's updates)
        return updates_in_order(logit_, self, (eps,), {}, refusal)


for _name, _fn in (("round", round), ("round_", round_), ("nan_to_num", nan_to_num),
                   ("nan_to_num_", nan_to_num_), ("logit", logit), ("logit_", logit_)):
    FUNCTIONS[_name] = _fn
    method(_name)(_fn)

# the module-level names the lead exports (strided.isnan, strided.floor_, ...)
isnan = FUNCTIONS["isnan"]
isinf = FUNCTIONS["isinf"]
isfinite = FUNCTIONS["isfinite"]
isposinf = FUNCTIONS["isposinf"]
isneginf = FUNCTIONS["isneginf"]
signbit = FUNCTIONS["signbit"]
logical_not = FUNCTIONS["logical_not"]
logical_not_ = FUNCTIONS["logical_not_"]
floor = FUNCTIONS["floor"]
floor_ = FUNCTIONS["floor_"]
ceil = FUNCTIONS["ceil"]
ceil_ = FUNCTIONS["ceil_"]
trunc = FUNCTIONS["trunc"]
trunc_ = FUNCTIONS["trunc_"]
fix = FUNCTIONS["fix"]
fix_ = FUNCTIONS["fix_"]
frac = FUNCTIONS["frac"]
frac_ = FUNCTIONS["frac_"]
sign = FUNCTIONS["sign"]
sign_ = FUNCTIONS["sign_"]
sgn = FUNCTIONS["sgn"]
sgn_ = FUNCTIONS["sgn_"]
square = FUNCTIONS["square"]
square_ = FUNCTIONS["square_"]
log1p = FUNCTIONS["log1p"]
log1p_ = FUNCTIONS["log1p_"]
expm1 = FUNCTIONS["expm1"]
expm1_ = FUNCTIONS["expm1_"]
log2 = FUNCTIONS["log2"]
log2_ = FUNCTIONS["log2_"]
log10 = FUNCTIONS["log10"]
log10_ = FUNCTIONS["log10_"]
exp2 = FUNCTIONS["exp2"]
exp2_ = FUNCTIONS["exp2_"]
rsqrt = FUNCTIONS["rsqrt"]
rsqrt_ = FUNCTIONS["rsqrt_"]
reciprocal = FUNCTIONS["reciprocal"]
reciprocal_ = FUNCTIONS["reciprocal_"]
erf = FUNCTIONS["erf"]
erf_ = FUNCTIONS["erf_"]
erfc = FUNCTIONS["erfc"]
erfc_ = FUNCTIONS["erfc_"]
erfinv = FUNCTIONS["erfinv"]
erfinv_ = FUNCTIONS["erfinv_"]
digamma = FUNCTIONS["digamma"]
digamma_ = FUNCTIONS["digamma_"]
lgamma = FUNCTIONS["lgamma"]
lgamma_ = FUNCTIONS["lgamma_"]
sinc = FUNCTIONS["sinc"]
sinc_ = FUNCTIONS["sinc_"]
i0 = FUNCTIONS["i0"]
i0_ = FUNCTIONS["i0_"]
tan = FUNCTIONS["tan"]
tan_ = FUNCTIONS["tan_"]
asin = FUNCTIONS["asin"]
asin_ = FUNCTIONS["asin_"]
arcsin = FUNCTIONS["arcsin"]
arcsin_ = FUNCTIONS["arcsin_"]
acos = FUNCTIONS["acos"]
acos_ = FUNCTIONS["acos_"]
arccos = FUNCTIONS["arccos"]
arccos_ = FUNCTIONS["arccos_"]
atan = FUNCTIONS["atan"]
atan_ = FUNCTIONS["atan_"]
arctan = FUNCTIONS["arctan"]
arctan_ = FUNCTIONS["arctan_"]
sinh = FUNCTIONS["sinh"]
sinh_ = FUNCTIONS["sinh_"]
cosh = FUNCTIONS["cosh"]
cosh_ = FUNCTIONS["cosh_"]
asinh = FUNCTIONS["asinh"]
asinh_ = FUNCTIONS["asinh_"]
arcsinh = FUNCTIONS["arcsinh"]
arcsinh_ = FUNCTIONS["arcsinh_"]
acosh = FUNCTIONS["acosh"]
acosh_ = FUNCTIONS["acosh_"]
arccosh = FUNCTIONS["arccosh"]
arccosh_ = FUNCTIONS["arccosh_"]
atanh = FUNCTIONS["atanh"]
atanh_ = FUNCTIONS["atanh_"]
arctanh = FUNCTIONS["arctanh"]
arctanh_ = FUNCTIONS["arctanh_"]
deg2rad = FUNCTIONS["deg2rad"]
deg2rad_ = FUNCTIONS["deg2rad_"]
rad2deg = FUNCTIONS["rad2deg"]
rad2deg_ = FUNCTIONS["rad2deg_"]


# ---------------------------------------------------------------- backward rules
# PyTorch's formulas (derivatives.yaml), on strided's own ops; ``x`` is the input, ``y`` the result.

_LN2 = float(np.log(2.0))
# (PyTorch's derivatives.yaml literal: the double 2.3025850929940455, an ulp below NumPy's
# log(10.0), 2.302585092994046; with NumPy's, log10's float64 gradients were an ulp off in 94%)
_LN10 = 2.3025850929940456
_TWO_OVER_SQRT_PI = float(2.0 / np.sqrt(np.pi))
_HALF_SQRT_PI = float(0.5 * np.sqrt(np.pi))


def _special_fns() -> Any:
    """:mod:`strided.ops.elementwise.special_fns`, whose ops (polygamma, special_i1) are digamma's
    and i0's derivatives; imported when a gradient is first taken (it builds on this module)."""
    from . import special_fns

    return special_fns


def _sinc_grad(g: Tensor, x: Tensor, y: Tensor) -> Tensor:
    """PyTorch's sinc_backward: ``g (pi x cos(pi x) - sin(pi x)) / (pi x**2)``, 0 where ``pi x**2``
    is 0 (written as PyTorch writes it, so its own derivative there is PyTorch's NaN)."""
    xpi = x * float(np.pi)
    sq = x * x * float(np.pi)
    # (sinc is holomorphic: written without PyTorch's .conj(), as the other holomorphic rules here,
    # the engine's convention for complex inputs)
    return (g * ((xpi * xpi.cos() - xpi.sin()) / sq)).masked_fill(sq == 0, 0)


def _zero_grad(g: Tensor, x: Tensor, y: Tensor) -> Tensor:
    return gradtools.zeros(x._layout.shape, g._dtype)


def _sgn_grad(g: Tensor, x: Tensor, y: Tensor) -> Tensor:
    """PyTorch's sgn_backward: 0 for a real ``x``; for a complex one (not holomorphic: written in
    PyTorch's conjugate convention, :data:`strided.autograd.function.CONJUGATE_CONVENTION`)
    ``(g - sgn * sgn * conj(g)) / (2 |x|)``, 0 where ``x`` is 0 (its steps: the value of
    ``(g - sgn * re(g * conj(sgn))) / |x|``, which rounded otherwise in ~60% of elements)."""
    if not x._dtype.is_complex:
        return _zero_grad(g, x, y)
    s = y  # (the saved result: PyTorch's sgn_backward reads it, and it is x.sgn())
    r = x.abs()
    return ((g - (s * s) * g.conj()) / (2.0 * r)).masked_fill(r == 0, 0)


# name -> (PyTorch's node, backward(g, x, y), what it saves: "x", "y", "xy" or ""; with "real" in it:
# PyTorch records the op for real results only, see strided.opdef.backward's complex_grad)
_GRADS: dict[str, tuple[str, Callable[[Tensor, Tensor, Tensor], Tensor], str]] = {
    "log1p": ("Log1PBackward0", lambda g, x, y: g / (x + 1), "x"),
    "expm1": ("Expm1Backward0", lambda g, x, y: g * (y + 1), "y"),
    "log2": ("Log2Backward0", lambda g, x, y: g / (x * _LN2), "x"),
    "log10": ("Log10Backward0", lambda g, x, y: g / (x * _LN10), "x"),
    "exp2": ("Exp2Backward0", lambda g, x, y: g * y * _LN2, "y"),  # (PyTorch's order: grad * result * M_LN2)
    # (PyTorch's -0.5 * grad * result.pow(3): its second derivative goes through pow's rule)
    "rsqrt": ("RsqrtBackward0", lambda g, x, y: -0.5 * g * y.pow(3), "y"),
    "reciprocal": ("ReciprocalBackward0", lambda g, x, y: g * -(y * y), "y"),
    # (PyTorch's square is pow(x, 2): pow_backward's grad * (2.0 * x.pow(1.0)), whose pow sets the
    # factor's layout, on size-1 dims too, where x * 2 keeps other strides)
    "square": ("PowBackward0", lambda g, x, y: g * (x.pow(1.0) * 2.0), "x"),
    "sinh": ("SinhBackward0", lambda g, x, y: g * x.cosh(), "x"),
    "cosh": ("CoshBackward0", lambda g, x, y: g * x.sinh(), "x"),
    "tan": ("TanBackward0", lambda g, x, y: g * (y * y + 1), "y"),
    "asin": ("AsinBackward0", lambda g, x, y: g * (1 - x * x).rsqrt(), "x"),
    "acos": ("AcosBackward0", lambda g, x, y: g * -(1 - x * x).rsqrt(), "x"),
    "atan": ("AtanBackward0", lambda g, x, y: g / (x * x + 1), "x"),
    "asinh": ("AsinhBackward0", lambda g, x, y: g * (x * x + 1).rsqrt(), "x"),
    # (PyTorch's forms: for complex x two factors, which keep the branch cut acosh itself has)
    "acosh": ("AcoshBackward0", lambda g, x, y: g * ((x + 1).rsqrt() * (x - 1).rsqrt() if x._dtype.is_complex
                                                     else (x * x - 1).rsqrt()), "x"),
    "atanh": ("AtanhBackward0", lambda g, x, y: g / (1 - x * x), "x"),
    "erf": ("ErfBackward0", lambda g, x, y: g * ((-(x * x)).exp() * _TWO_OVER_SQRT_PI), "x"),
    "erfc": ("ErfcBackward0", lambda g, x, y: g * ((-(x * x)).exp() * -_TWO_OVER_SQRT_PI), "x"),
    # (PyTorch saves self and computes erfinv again: 0.5 * sqrt(pi) * exp(self.erfinv().pow(2)))
    "erfinv": ("ErfinvBackward0", lambda g, x, y: g * ((x.erfinv() ** 2).exp() * _HALF_SQRT_PI), "x"),
    "lgamma": ("LgammaBackward0", lambda g, x, y: g * x.digamma(), "x"),
    "sinc": ("SincBackward0", _sinc_grad, "x"),
    "digamma": ("DigammaBackward0", lambda g, x, y: g * _special_fns().polygamma(1, x), "x"),
    "i0": ("I0Backward0", lambda g, x, y: g * _special_fns().special_i1(x), "x"),
    "sign": ("SignBackward0", _zero_grad, ""),
    "sgn": ("SgnBackward0", lambda g, x, y: _sgn_grad(g, x, y), "xy"),  # (sgn_backward(self, grad, result))
    "trunc": ("TruncBackward0", _zero_grad, ""),
    "floor": ("FloorBackward0", _zero_grad, ""),
    "ceil": ("CeilBackward0", _zero_grad, ""),
    "frac": ("FracBackward0", lambda g, x, y: g, ""),
    "deg2rad": ("Deg2RadBackward0", lambda g, x, y: g * float(np.pi / 180), ""),
    "rad2deg": ("Rad2DegBackward0", lambda g, x, y: g * float(180 / np.pi), ""),
    "nan_to_num": ("NanToNumBackward0", lambda g, x, y: g * x.isfinite(), "x real"),
}


# name -> PyTorch's formula for a complex result, backward(g, x, y), as derivatives.yaml (and
# FunctionsManual.cpp) write it: its conj()s, its operations in its order, so its signs of zero
# (the holomorphic rule above conjugated around has its values, but other signs of zero)
_COMPLEX_GRADS: dict[str, Callable[[Tensor, Tensor, Tensor], Tensor]] = {
    "log1p": lambda g, x, y: g / (x + 1).conj(),
    "expm1": lambda g, x, y: g * (y.conj() + 1),
    "log2": lambda g, x, y: g / (x.conj() * 0.6931471805599453),
    "log10": lambda g, x, y: g / (x.conj() * 2.3025850929940456),
    "exp2": lambda g, x, y: g * y.conj() * _LN2,
    "rsqrt": lambda g, x, y: -0.5 * g * y.pow(3).conj(),
    "reciprocal": lambda g, x, y: -g * (y * y).conj(),
    "square": lambda g, x, y: g * (2.0 * x.pow(1.0)).conj(),  # (pow_backward(g, x, 2))
    "sinh": lambda g, x, y: g * x.cosh().conj(),
    "cosh": lambda g, x, y: g * x.sinh().conj(),
    "tan": lambda g, x, y: g * (1 + y.pow(2)).conj(),
    "asin": lambda g, x, y: g * (-x * x + 1).rsqrt().conj(),
    "acos": lambda g, x, y: g * -((-x * x + 1).rsqrt()).conj(),
    "atan": lambda g, x, y: g / (x * x + 1).conj(),
    "asinh": lambda g, x, y: g * (x.pow(2) + 1).rsqrt().conj(),
    "acosh": lambda g, x, y: g * ((x + 1).rsqrt() * (x - 1).rsqrt()).conj(),
    "atanh": lambda g, x, y: g * 1 / (1 - x.pow(2)).conj(),
}


def _unary_rule(name: str) -> Callable[..., Any]:
    node, grad, saves = _GRADS[name]
    complex_grad = _COMPLEX_GRADS.get(name)

    def rule(out: Tensor, x: Any, *args: Any, **kwargs: Any) -> Any:
        saved = ((x, out) if saves.startswith("xy") else (x,) if saves.startswith("x")
                 else (out,) if saves.startswith("y") else ())
        if complex_grad is not None and out._dtype.is_complex:
            return node, (x,), gradients.in_pytorch_convention(lambda g: (complex_grad(g, x, out),)), saved
        return node, (x,), lambda g: (grad(g, x, out),), saved

    rule.__name__ = f"{name}_backward"
    return rule


for _name, _op in OPS.items():
    if _name in _GRADS:
        backward(_name, *_op.aliases, complex_grad="real" not in _GRADS[_name][2])(_unary_rule(_name))


@backward("round")
def round_backward(out: Tensor, x: Any, *args: Any, decimals: int = 0, **kwargs: Any) -> Any:
    """Zero (a step function); ``decimals=`` is PyTorch's second overload (RoundBackward1)."""
    name = "RoundBackward1" if decimals else "RoundBackward0"
    return name, (x,), lambda g: (gradtools.zeros(x._layout.shape, g._dtype),), ()


@backward("logit")
def logit_backward(out: Tensor, x: Any, eps: Any = None, **kwargs: Any) -> Any:
    """PyTorch's logit_backward kernel: ``g / (x (1 - x))``; outside [0, 1] NaN without ``eps``,
    and 0 where ``eps`` clamped ``x``. Its scalar function gives ``g * inf`` where x is 0 or 1 (a
    signed zero counts as 0), its vectorized one the quotient itself (``g / -0.0`` at x = -0.0):
    :func:`_logit_grad_denominator`."""
    def grad(g: Tensor) -> tuple:
        gx = g / _logit_grad_denominator(g, x)
        if eps is None:
            gx = gx.masked_fill((x < 0) | (x > 1), float("nan"))
        else:
            gx = gx.masked_fill((x < eps) | (x > 1 - eps), 0)
        return (gx,)
    return "LogitBackward0", (x,), grad, (x,)


def _logit_grad_denominator(g: Tensor, x: Tensor) -> Tensor:
    """``x (1 - x)`` as PyTorch's logit_backward kernel divides ``g`` by it: plus 0.0 (x = -0.0 then
    gives +0.0, as its scalar function's ``g * inf`` at x == 0) at the elements its scalar function
    takes (:func:`.torch_loops.scalar_loop_mask`: a short row's every element, a row's last
    ``len % (2 * lanes)``; strided rows), as it is in its vector blocks, whose lambda has no
    branch for 0 and 1 (measured on PyTorch 2.13, AVX2: float64 (8,) of -0.0 gives -inf, (9,) its
    last +inf; with ``eps`` = 0 too)."""
    d = x * (1 - x)
    xa = numpy_view(x._storage, x._layout)
    zero = xa == 0
    if not zero.any() or not np.signbit(xa[zero]).any():
        return d  # (no -0.0: d has no -0.0 where the masks keep it, and both loops agree; a quick pass)
    shape = d._layout.shape
    if g._layout.shape != shape:  # (not PyTorch's loop over g and x alone: every element as before)
        return d + 0.0
    ops = [(t._layout.shape, t._layout.strides) for t in (g, x)]
    mask = scalar_loop_mask(shape, tuple(fresh_strides(shape, ops)), True, ops,
                            step=2 * torch_vector_bytes() // d._dtype.itemsize)
    if mask is None:
        return d
    if mask.all():
        return d + 0.0
    from ...creation import from_numpy  # (a sibling layer, loaded when first needed)
    return where(from_numpy(mask.copy()), d + 0.0, d)


seal(globals())  # (last: this module's ops with a backward rule become their recording entries)


def _install_fronts(namespace: dict[str, Any]) -> None:
    """Put a compiled front (:mod:`.._support.front`) before each entry whose fast path is one
    :data:`_FRESH` function of the flat run: the common call runs that function in C; every other
    call goes to the entry (the sealed recording entry, or the op's own guard). A compiled pass
    the fast path makes first is made in C too (:func:`_front_kernel`). isinf and isfinite, which
    have no such function, take a front for their compiled class test alone (:data:`_FP_TEST_CODES`)."""
    for name in FUNCTIONS:
        op = _OP_OF.get(name)
        if op is None or name.endswith("_"):
            continue
        fresh = _FRESH.get(op.name)
        if fresh is None and op.name not in _FP_TEST_CODES:
            continue
        result = bool_ if op.rule == "bool" else None
        dtypes = (float32, float64, complex64, complex128) if op.name == "sgn" else (float32, float64)
        entry = Tensor.__dict__.get(name)
        if entry is None or namespace.get(name) is not entry:
            continue
        kernels = {d: _front_kernel(op.name, d.numpy) for d in dtypes}
        if (op.name in _FIRST or fresh is None) and None in kernels.values():
            continue  # (its compiled first pass not built: the entry's own path)
        # (a transpose too, where _fast_run takes it: float32 / float64, not the special functions)
        dense = () if op.name in _SPECIAL else (float32, float64)
        table = {d: (fresh, op.name in _FRESH_DIRECT, result, kernels[d]) for d in dtypes}
        front = compiled_front(entry, 1, table, dense=dense)
        if op.name == "sgn" and front is not entry:
            # (the dict the front reads, its own: compiled_front hands the kernel a copy of table)
            _SGN_TABLES.append(getattr(front, "__front_table__", None) or table)
        setattr(Tensor, name, front)
        namespace[name] = front


def _front_kernel(name: str, dtype: np.dtype) -> tuple | None:
    """The compiled pass the fast path of op ``name`` makes first on a flat run of ``dtype``, as
    a front's :func:`kernel_entry`: the :data:`_FIRST` ones (``unary_exact``'s code, ``frac``, expm1's
    :func:`strided.kernels.sleef.flat_call`), and
    the special functions' kernels (:func:`_special_fresh`'s call), logit's ``logit_np``
    (:func:`_logit_fresh`'s two steps); None for the others, and
    where the special kernels are not built."""
    if name in vml_route.CODE and _VML and dtype in _F32_F64:  # (MKL VML's call; False: the fast path's)
        return kernel_entry(vml_route.runner(), (vml_route.CODE[name],), dtype)
    k = native._compiled("_specialkernel")  # (the module itself: the front reads the switch per call)
    if k is None or dtype not in _F32_F64:
        return None
    if name in _FIRST_CODES:
        return kernel_entry(k.unary_exact, (_FIRST_CODES[name],), dtype)
    if name == "logit":  # (_logit_fresh's calls in C: the quotient, then NumPy's own log loop in place)
        return kernel_entry(getattr(k, "logit_np", None), (), dtype)
    if name == "frac":
        return kernel_entry(getattr(k, "frac", None), (), dtype)
    if name == "expm1" or name == "log1p":  # (expm1_map's / log1p_map's call on a flat run: the sleef kernel's)
        call = flat_call(_EXPM1_OP if name == "expm1" else _LOG1P_OP, dtype, elementwise=True)
        return None if call is None else kernel_entry(*call[:2], dtype, call[2])
    if name == "exp2" or name in _HYPER:  # (exp2_loop's / hyper_loop's one-chunk call on a flat run: the sleef kernel's)
        call = flat_call(_HYPER.get(name, _EXP2_OP), dtype)
        return None if call is None else kernel_entry(*call[:2], dtype, call[2])
    if name in _FP_TEST_CODES:  # (a bool result; fp_test refuses an x not aligned to its element)
        return kernel_entry(getattr(k, "fp_test", None), (_FP_TEST_CODES[name],), _BOOL_NP)
    if name in _FRESH_DIRECT and name != "sinc":
        return kernel_entry(*special.compiled_call(k, name, dtype), dtype)
    return None


# The class tests' fp_test codes (AVX-512's vfpclass, NumPy's bytes: see _fp_tests.h): their front runs
# the kernel on a row-major or dense run, its refusal goes to the _FRESH ufunc.
_FP_TEST_CODES = {"isnan": 0, "isinf": 1, "isfinite": 2, "isposinf": 3, "isneginf": 4}
_FIRST_CODES = {"sign": 0, "rsqrt": 3, "sgn": 0}  # (_FIRST's unary_exact codes; sgn of a float: _sign_fresh's)
_OP_OF = {n: o for o in TABLE for n in (o.name, *o.aliases)}  # (each spelling -> its table op)
_install_fronts(globals())
# the kinds of this module's ops, in the op registry (after the seal: the forwards are the entries)
declare(Kind.COMPUTE, "isnan isinf isfinite isposinf isneginf signbit logical_not floor ceil trunc fix frac sign sgn square "
                      "log1p expm1 log2 log10 exp2 rsqrt reciprocal erf erfc erfinv digamma lgamma sinc i0 logit tan asin arcsin acos arccos atan arctan "
                      "sinh cosh asinh arcsinh acosh arccosh atanh arctanh deg2rad rad2deg round nan_to_num")
