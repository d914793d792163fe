"""Elementwise kernels: NumPy ufuncs over zero-copy views of the inputs, into an output.

Contract shared by every kernel here:

- inputs are NumPy views over storage (:func:`strided.kernels.numpy_view`), read in
  place whatever their strides (stride-0, permuted, negative-step), or NumPy scalars
  already converted to the compute dtype;
- ``out`` is a view of memory the caller allocated (:func:`strided.kernels.new_storage`)
  or of an in-place target the caller has checked; it has the broadcast shape;
- values are computed in ``compute`` (a NumPy dtype) and cast into ``out`` with unsafe
  casting, as PyTorch casts to the common dtype;
- NumPy's floating-point warnings are silenced (PyTorch gives inf/nan silently);
- read before write: an input may share memory with ``out`` (an in-place target's own
  elements, a clamp bound that is the target), so a kernel reads every input in one ufunc
  call (NumPy buffers overlapping operands) or, when it writes ``out`` in several passes, only
  in the first; :func:`where_into`, the exception, only ever writes a fresh output.

:func:`binary_broadcast_rowmajor` is a small-op fast path: it lets the ufunc allocate its
result, which the caller hands to :func:`strided.dispatch.adopted` as the new storage (cheaper
than an ``out=`` buffer for a 12-element add). The flat-run fast paths (a ufunc over the 1-D runs
of dense storages) inline :mod:`strided.kernels.fpstate`'s quiet call in the ops themselves.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..layout.order import preserve_format_strides
from . import native, npcore
from .complex_forms import RECIPROCAL, forms_into
from .fpstate import QUIET, quiet_call, quiet_reset, quiet_retry, quiet_set
from .memory import reduced_cast_source
from .sleef import SIGMOID, angle_complex64, atan2_flat, atan2_float32, torch_loop
from .tiles import MIN_NUMEL, ufunc_into
from .torch_loops import GRAIN_SIZE, fresh_strides, piece_length, scalar_loop_mask, torch_vector_bytes

# NumPy's clip ufunc (``np.clip`` is a Python wrapper around it that costs ~3x more per call):
# min(max(x, lo), hi) with NaN propagation, as PyTorch's clamp, in a single pass.
_clip: np.ufunc = np._core.umath.clip

# ---------------------------------------------------------------- fast paths (fresh results)


def binary_broadcast_rowmajor(ufunc: np.ufunc, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """A fresh 1-D array holding ``ufunc(x, y)`` for two row-major arrays that broadcast; NumPy's
    fresh result is row-major: its flat run."""
    try:
        res = quiet_call(ufunc, x, y)
    except RuntimeError as e:
        res = quiet_retry(e, ufunc, x, y)
    return res.ravel()  # (a view: NumPy's fresh result is C-contiguous)


# ---------------------------------------------------------------- general kernels

# On hot paths ``np.dtype.name`` (a Python property, about 1 µs: as much as a ufunc on a small
# tensor) is read only for a dtype of kind "V", as ml_dtypes' bfloat16 is to NumPy (its dtype is
# not looked up here: that would import ml_dtypes with strided).
_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)
_F16 = np.dtype(np.float16)


def _cast_to(compute: np.dtype) -> dict[str, Any]:
    """The keywords of a binary ufunc call computing in ``compute`` from inputs of any dtype.
    (NumPy 2 finds no cast for ``dtype=`` with an extension dtype's loop, ml_dtypes' bfloat16:
    its full signature does.)"""
    if compute.kind == "V" and compute.name == "bfloat16":
        return {"signature": (compute, compute, compute), "casting": "unsafe"}
    return {"dtype": compute, "casting": "unsafe"}


def binary_into(ufunc: np.ufunc, x: Any, y: Any, out: np.ndarray, compute: np.dtype,
                cast: bool, compare: bool) -> None:
    """``out[...] = ufunc(x, y)`` computed in ``compute``.

    ``cast=False`` says nothing needs casting (inputs and ``out`` already hold
    ``compute``, or a comparison's bool output): the costly dtype keywords are skipped.
    ``compare``: ``out`` is bool, computed from ``compute`` inputs.
    A large ``out`` whose memory order disagrees with an input's is walked in tiles
    (:func:`strided.kernels.tiles.ufunc_into`).
    """
    if cast and compute.itemsize == 2:
        # (PyTorch makes a 2-byte float from a float: an int32/int64 or float64 operand rounds
        # through float32 first; NumPy's cast inside the ufunc rounds once)
        x, y = reduced_cast_source(compute, x), reduced_cast_source(compute, y)
    if not cast and compute == _F16 and out.size >= 128 and ufunc in HALF_OPS and half_into(HALF_OPS[ufunc], x, y, out):
        return  # (NumPy's float16 loop's bits, without its scalar conversions: half_into)
    token = quiet_set(QUIET)
    try:
        if out.size >= MIN_NUMEL:
            if not cast:
                kwargs = {}
            elif compare:
                kwargs = {"signature": (compute, compute, np.bool_), "casting": "unsafe"}
            else:
                kwargs = _cast_to(compute)
            ufunc_into(ufunc, (x, y), out, kwargs)
        elif not cast:
            ufunc(x, y, out=out)
        elif compare:
            ufunc(x, y, out=out, signature=(compute, compute, np.bool_), casting="unsafe")
        else:
            ufunc(x, y, out=out, **_cast_to(compute))
    finally:
        quiet_reset(token)


class _TensorPower:
    """``np.power`` for a *tensor* exponent, as C's ``pow`` (PyTorch's kernel) computes it.

    NumPy's float32/float64 power loop takes ``sqrt`` when the exponent repeats along the inner
    loop and is 0.5 (a 0-d or broadcast exponent); ``sqrt(-inf)`` is NaN and ``sqrt(-0.0)``
    -0.0, where ``pow`` gives inf and 0.0. Those elements are set after the call. (A *Python*
    exponent 0.5 is PyTorch's ``sqrt`` too: callers pass ``np.power`` itself then.)
    """

    __name__ = "power"

    def __call__(self, x: Any, y: Any, out: np.ndarray | None = None, **kwargs: Any) -> Any:
        res = np.power(x, y, out=out, **kwargs)
        ys = y if type(y) is np.ndarray else np.asarray(y)
        if ys.dtype.kind != "f" or res.dtype.kind != "f":
            return res
        if ys.ndim == 0:
            if ys.item() != 0.5:
                return res
            everywhere = True
        elif ys.shape == res.shape and 0 not in ys.strides:
            return res  # (the sqrt loop needs a repeated exponent: a 0-d one, or a zero stride)
        else:
            # the exponent's distinct elements (each zero-stride dim read once)
            halves = ys[tuple(slice(0, 1) if st == 0 else slice(None) for st in ys.strides)] == 0.5
            if not halves.any():
                return res
            everywhere = bool(halves.all())
        if not isinstance(res, np.ndarray) or not res.ndim:
            xs = np.asarray(x)
            return np.asarray(np.where((xs == 0) | (xs == -np.inf), np.abs(xs), res), dtype=res.dtype)[()]
        xs = np.asarray(x)
        if everywhere:
            # sqrt's only wrong results: -0.0 (adding +0.0 makes it +0.0 and changes nothing else)
            # and NaN from -inf (NaN is rare: looked for once)
            np.add(res, 0.0, out=res)
            nan = np.isnan(res)
            if nan.any():
                np.copyto(res, np.inf, where=nan & (xs == -np.inf))
            return res
        hit = (ys == 0.5) & ((xs == -np.inf) | (xs == 0))
        if hit.any():
            np.copyto(res, np.abs(xs), where=hit, casting="unsafe")  # (|-inf| is inf, |-0.0| is 0.0)
        return res


tensor_power = _TensorPower()


def assign(out: np.ndarray, source: Any) -> None:
    """``out[...] = source`` (broadcast, unsafe cast); ``source`` must not overlap ``out``
    (use :func:`strided.kernels.write` for a source that may)."""
    np.copyto(out, source, casting="unsafe")


def reciprocal_into(x: np.ndarray, out: np.ndarray, compute: np.dtype) -> np.ndarray:
    """``out = 1 / x`` in ``compute``, as PyTorch's reciprocal: a complex one is the division
    ``1 / z`` (NumPy's ``np.reciprocal`` of a complex number rounds otherwise: the sign of a zero
    part differs), and ``1 / 0j`` is ``inf + nanj`` with a positive NaN (c10::complex divides by
    the zero parts, ``1 / |0|`` and ``0 / |0|``; NumPy's division sets the NaN's sign bit).
    ``out`` may be ``x`` (in place). Returns ``out``. A complex one by the compiled kernel where
    it is built: c10's division with PyTorch's fused scale, its bits (NumPy's unfused division
    differed in the last bit for ~7% of random complex64 numbers; :mod:`.complex_forms`)."""
    if compute.kind == "c" and _complex_reciprocal(x, out, compute):
        return out
    zero = x == 0 if compute.kind == "c" else None  # (before the division: out may be x)
    np.divide(compute.type(1), x, out=out, dtype=compute, casting="unsafe")
    if zero is not None and zero.any():
        out.imag[np.broadcast_to(zero, out.shape)] = np.nan  # (np.nan: the quiet NaN, sign bit clear)
    return out


def _complex_reciprocal(x: np.ndarray, out: np.ndarray, compute: np.dtype) -> bool:
    """:func:`reciprocal_into` of a complex ``compute`` by :func:`.complex_forms.forms_into`
    (False: not built or off, nothing written)."""
    y = np.asarray(x).astype(compute, copy=False)
    work = out if out.dtype == compute else np.empty(out.shape, compute)
    if not forms_into(RECIPROCAL, None, y, work, 1):
        return False
    if work is not out:
        np.copyto(out, work, casting="unsafe")
    return True


def scalar_over_into(a: Any, b: np.ndarray, out: np.ndarray, compute: np.dtype, mul_dtype: np.dtype) -> None:
    """``out = reciprocal(b) * a`` (PyTorch's ``scalar / tensor``): the reciprocal in
    ``compute``, the product in ``mul_dtype`` (float32 for float16: PyTorch's "opmath");
    ``a`` is a NumPy scalar of ``mul_dtype``."""
    token = quiet_set(QUIET)
    try:
        if compute.kind == "c":
            reciprocal_into(b, out, compute)  # (NumPy's complex reciprocal is not 1 / z: see there)
        else:
            np.reciprocal(b, out=out, dtype=compute, casting="unsafe")
        np.multiply(out, a, out=out, dtype=mul_dtype, casting="unsafe")
    finally:
        quiet_reset(token)


def int_pow_into(base: Any, exp: Any, out: np.ndarray, compute: np.dtype) -> None:
    """Integer ``base ** exp`` into ``out`` with PyTorch's ``powi`` rules for negative
    exponents (signed ``compute`` only): 1 for base 1, +-1 for base -1, 0 otherwise."""
    token = quiet_set(QUIET)
    try:
        negative = np.less(exp, 0) if compute.kind == "i" else None
        if negative is not None and negative.any():
            safe_exp = np.where(negative, 0, exp).astype(compute, copy=False)
            powers = np.power(base, safe_exp, dtype=compute, casting="unsafe")
            base_arr = np.asarray(base, dtype=compute)
            odd = np.bitwise_and(exp, 1, dtype=compute, casting="unsafe").astype(bool)
            special = np.where(base_arr == 1, 1, np.where(base_arr == -1, np.where(odd, -1, 1), 0))
            np.copyto(out, np.where(negative, special, powers), casting="unsafe")
        else:
            np.power(base, exp, out=out, dtype=compute, casting="unsafe")
    finally:
        quiet_reset(token)


def clamp_into(x: np.ndarray, lo: Any, hi: Any, out: np.ndarray, compute: np.dtype) -> None:
    """``out = min(max(x, lo), hi)`` in ``compute``; ``lo`` or ``hi`` may be None (no bound).

    One ufunc call whatever the bounds (or one blocked walk, :mod:`.tiles`, which never runs on an
    output that an input may overlap): NumPy reads every input as it was before the call
    writes ``out``, so a bound that is (a view of) the target itself is read before it is
    overwritten (``y.clamp_(min=lo, max=y)`` leaves ``y`` as it was, as in PyTorch). Two passes
    (maximum into ``out``, then minimum of ``out`` and ``hi``) would read such a ``hi`` after
    the first pass wrote it.
    """
    saved = tied_zeros(x, lo, hi, out.shape) if compute.kind not in "biu" else None
    token = quiet_set(QUIET)
    try:
        if lo is None:
            ufunc_into(np.minimum, (x, hi), out, {"dtype": compute, "casting": "unsafe"})
        elif hi is None:
            ufunc_into(np.maximum, (x, lo), out, {"dtype": compute, "casting": "unsafe"})
        else:  # (NumPy's clip has no bfloat16 loop: compared in float32, which holds every bfloat16)
            wide = _F32 if compute.kind == "V" and compute.name == "bfloat16" else compute
            ufunc_into(_clip, (x, lo, hi), out, {"dtype": wide, "casting": "unsafe"})
        keep_tied_zeros(saved, out)
    finally:
        quiet_reset(token)


_count_nonzero = npcore.count_nonzero  # (the C function, without np.count_nonzero's Python layer)


def _array(bound: Any) -> bool:
    return isinstance(bound, np.ndarray) and bound.ndim > 0


def tied_zeros(x: Any, lo: Any, hi: Any, shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray] | None:
    """Where PyTorch's clamp keeps a zero of ``x`` that NumPy may replace, and those zeros: (mask
    of the result's ``shape``, ``x``'s values there), or None. PyTorch's clamp keeps ``x`` where
    it ties a bound (``x < lo ? lo : x``, then ``> hi``); only zeros tie with other bits (-0.0
    against 0.0), and NumPy's maximum/minimum/clip hand back either zero depending on the loop
    (SIMD: the second operand's). Read before the clamp writes (``clamp_`` overwrites ``x``);
    :func:`keep_tied_zeros` writes them back. Costs a pass only when a bound is 0
    (``clamp(x, -1, 1)`` pays nothing); a NaN bound is no tie.

    Number bounds only: with a tensor bound PyTorch's own answer depends on where the element
    falls (its SIMD lanes return the bound's zero, its scalar tail ``x``'s: 4 of 100 elements
    keep -0.0 in ``clamp(full((100,), -0.0), min=zeros(100))``), so NumPy's is left as it is.

    >>> tied_zeros(np.array([-0.0, 1.0]), 0.0, None, (2,))
    (array([ True, False]), array([-0.]))
    """
    if _array(lo) or _array(hi) or not (lo == 0 or hi == 0):  # (None == 0 is False)
        return None
    if not ((lo is None or lo <= 0) and (hi is None or hi >= 0)):  # (a bound moves every zero)
        return None
    if _count_nonzero(x) == np.size(x):  # (no zero: one C pass, no bool array nor any()'s Python wrapper)
        return None
    keep = np.broadcast_to(x == 0, shape)
    return keep, np.broadcast_to(x, shape)[keep]


def keep_tied_zeros(saved: tuple[np.ndarray, np.ndarray] | None, out: np.ndarray) -> None:
    """Write back the zeros :func:`tied_zeros` saved (nothing when it found none)."""
    if saved is not None:
        out[saved[0]] = saved[1]


def where_into(condition: np.ndarray, a: Any, b: Any, out: np.ndarray) -> None:
    """``out = a where condition else b`` in two passes, so ``out`` must not overlap
    ``condition`` or ``a`` (``where`` has no in-place form: ``out`` is always fresh)."""
    if out.dtype.itemsize == 2:  # (PyTorch's conversion to a 2-byte float: see binary_into)
        a, b = reduced_cast_source(out.dtype, a), reduced_cast_source(out.dtype, b)
    token = quiet_set(QUIET)
    try:
        np.copyto(out, b, casting="unsafe")
        np.copyto(out, a, casting="unsafe", where=condition)
    finally:
        quiet_reset(token)


# ---------------------------------------------------------------- unary kernels
#
# Each takes (input view, output view, compute dtype); the caller silences FP warnings.

UnaryKernel = Callable[[np.ndarray, np.ndarray, np.dtype], None]


def ufunc_kernel(ufunc: np.ufunc) -> UnaryKernel:
    """The unary kernel that is just ``ufunc(x, out=out)`` computed in the compute dtype."""

    def run(x: np.ndarray, out: np.ndarray, compute: np.dtype) -> None:
        ufunc(x, out=out, dtype=compute, casting="unsafe")

    return run


_C64 = np.dtype(np.complex64)


def complex_abs(z: Any, out: np.ndarray | None = None) -> Any:
    """``|z|`` of a complex64 / complex128 array (or NumPy complex scalar), in its parts' dtype:
    the C library's ``hypot(z.real, z.imag)``, correctly rounded. Every ``|z|`` of a complex
    value in strided (``abs``, ``sgn``, the norms, ``var``, ``isclose``, the backward rules' tie
    masks) is this function, so a value compared against another ``|z|`` is the same bits.

    PyTorch's CPU ``abs`` of a complex tensor is ``std::abs`` (the C library's ``cabs``, this
    hypot) in its scalar loop: non-contiguous inputs, every element of a contiguous run shorter
    than two vectors and a run's last elements past a whole number of vector pairs. Its
    vectorized loop (the rest of a contiguous run) is Sleef's ``hypot_u05``, which is not
    correctly rounded: 1 ulp off this in about 0.55% of complex128 elements with parts near 1
    (0.02% over wide magnitudes) and in results near the subnormals (both parts below about
    1e-38 / 1e-308, complex64 too); which elements those loops take depends on the CPU's vector
    width and PyTorch's thread split, so strided follows the scalar loop throughout. NumPy's
    ``np.absolute`` of complex is 1 ulp off this in about 35% of elements with parts near 1.

    A row-major complex64 array of 64 elements or more takes the compiled ``complex64_abs``
    (hypotf's bits four at a time: 1M elements 4.4 -> 0.7 ms) where it is built and on; a
    column-major one too, as its row-major transpose."""
    if z.__class__ is np.ndarray and z.dtype == _C64 and z.size >= 64 and not z.flags.c_contiguous \
            and z.flags.f_contiguous and (out is None or out.flags.f_contiguous):
        # (column-major, a transpose's: elementwise, so the row-major walk of the transposes)
        res = complex_abs(z.T, None if out is None else out.T)
        return res.T
    if z.__class__ is np.ndarray and z.dtype == _C64 and z.size >= 64 and z.flags.c_contiguous:
        k = native.special()
        if k is not None and hasattr(k, "complex64_abs"):
            res = np.empty(z.shape, _F32) if out is None else out
            if k.complex64_abs(z, res):
                return res
    return np.hypot(z.real, z.imag, out=out)


def complex_angle(z: np.ndarray) -> np.ndarray:
    """A fresh array of ``atan2(z.imag, z.real)`` of ``z``'s shape (row-major but for a dense
    complex64 ``z``, laid out as ``z``) for a complex64 / complex128 array, float32 / float64.
    A dense complex64 ``z``: PyTorch's own bits, SLEEF's ``atan2f_u10`` where its loop is
    vectorized and the C library's ``atan2f`` where it is not (:func:`strided.kernels.sleef.angle_complex64`).
    Otherwise the C library's ``atan2f`` / ``atan2``, PyTorch's scalar loop's ``std::arg`` bit for
    bit (non-contiguous inputs); complex128's vectorized loop (Sleef's ``atan2_u10``, 1 ulp off the
    C library in about 2.5%) is not followed. NumPy's ``arctan2`` (SVML where NumPy has it) differs
    from those in about 40% (float32) / 8% (float64) of elements. The compiled ``complex_angle``
    where it is built and on; else the C library called element by element (ctypes); NumPy's
    arctan2 only where no C library is found."""
    if z.dtype == np.complex64:  # (dense: PyTorch's own split of SLEEF's and the C library's)
        res = angle_complex64(z)
        if res is not None:
            return res
    z = np.ascontiguousarray(z)
    out = np.empty(z.shape, z.real.dtype)
    k = native.special()
    if k is not None and hasattr(k, "complex_angle") and k.complex_angle(z, out):
        return out
    libm = _libm_atan2()
    if libm is None:
        return np.arctan2(z.imag, z.real)
    fn = libm[0] if out.dtype == _F32 else libm[1]
    flat = out.reshape(-1)
    for i, v in enumerate(z.reshape(-1).tolist()):
        flat[i] = fn(v.imag, v.real)
    return out


_F32_RUN = (4,)  # (a contiguous 1-D float32 array's strides)


def _to_float32(a: np.ndarray) -> np.ndarray:
    """``a`` cast to float32 as PyTorch's ``.to(torch.float32)`` lays the copy out (empty_like's
    preserve_format strides: ``a``'s own where dense, else dense in its dims' order), so the
    loop's split of SLEEF steps and scalar tail (read off the strides) is PyTorch's. NumPy's
    ``astype`` agrees on dense arrays but puts an expand's 0-stride dim innermost."""
    if a.ndim < 2 or 0 not in a.strides or any(s % a.itemsize for s in a.strides):
        return a.astype(_F32)
    strides = preserve_format_strides(a.shape, [s // a.itemsize for s in a.strides])
    res = np.lib.stride_tricks.as_strided(np.empty(a.size, _F32), a.shape, [s * 4 for s in strides])
    np.copyto(res, a, casting="unsafe")
    return res


def arctan2(x: Any, y: Any, out: np.ndarray | None = None, **kwargs: Any) -> Any:
    """``np.arctan2`` (called as the ufunc is: ``out=``, ``dtype=``/``signature=``, ``casting=``)
    with PyTorch's CPU bits where they are cheap to reach. PyTorch computes a float32 ``atan2``
    with Sleef's ``atan2f_u10`` over a contiguous run's whole 32-element steps and the C
    library's ``atan2f`` over the rest; NumPy's float32 ``arctan2`` (SVML) equals that in about
    62% of elements, ``atan2`` in float64 rounded to float32 in about 97% (Sleef's 1-ulp result
    is the correctly rounded one that often). float64: the C library's ``atan2`` (PyTorch's
    scalar loop, and Sleef's ``atan2_u10`` but about 2% of its vector loop), where NumPy's
    differs in about 10%. Other dtypes: ``np.arctan2`` itself. (# Note: the rest is Sleef's
    rounding; following it would take Sleef's code.) A plain function, not a callable object:
    small ops call it once per op and a function call is the cheaper one."""
    if out is None and not kwargs and type(x) is np.ndarray and type(y) is np.ndarray and x.dtype is _F32 \
            and y.dtype is _F32:  # (two native float32 arrays: the common call, straight on)
        # (flat runs of one length, the binary fast path's call: run2 itself checks that they are
        # contiguous and of one length)
        r = atan2_flat(x, y) if x.ndim == 1 and x.shape == y.shape and x.strides == _F32_RUN \
            else atan2_float32(x, y)
        if r is not None:  # (None: the compiled kernel is not used)
            return r
    sig = kwargs.get("signature")
    compute = np.dtype(kwargs["dtype"]) if kwargs.get("dtype") is not None else \
        np.dtype(sig[0]) if sig is not None else np.result_type(x, y)
    if compute == _F32:
        # (an integer or float64 operand: PyTorch casts it to float32, then runs the same loop)
        xs, ys = (_to_float32(a) if isinstance(a, np.ndarray) and a.dtype != _F32 else a for a in (x, y))
        r = atan2_float32(xs, ys, out)  # (PyTorch's bits: SLEEF's and the C library's, as it splits them)
        if r is None:
            r = np.arctan2(np.asarray(x, np.float64), np.asarray(y, np.float64))
        elif out is not None and r is out:
            return out
    elif compute == np.float64 and hasattr(native.special(), "complex_angle"):
        # (without the compiled kernel, complex_angle calls the C library element by element:
        # NumPy's arctan2 then, as before)
        x, y = np.broadcast_arrays(np.asarray(x, np.float64), np.asarray(y, np.float64))
        z = np.empty(x.shape, np.complex128)
        z.real, z.imag = y, x
        r = complex_angle(z)
    else:
        return np.arctan2(x, y, out=out, **kwargs)
    if out is None:
        return r.astype(compute, copy=False)
    np.copyto(out, r, casting="unsafe")
    return out




@functools.cache
def _libm_atan2() -> tuple[Callable[[float, float], float], Callable[[float, float], float]] | None:
    """The C library's (atan2f, atan2) through ctypes, or None where no C math library is found."""
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("m") or ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        lib = ctypes.CDLL(name)
        single, double = lib.atan2f, lib.atan2
    except (OSError, AttributeError):
        return None
    single.restype, single.argtypes = ctypes.c_float, [ctypes.c_float, ctypes.c_float]
    double.restype, double.argtypes = ctypes.c_double, [ctypes.c_double, ctypes.c_double]
    return single, double


def sigmoid_kernel(x: np.ndarray, out: np.ndarray, compute: np.dtype) -> None:
    """1 / (1 + exp(-x)), in float32 at least (float16 would underflow exp(-x) early). float32 is
    PyTorch's bits where the compiled kernel runs (:func:`strided.kernels.sleef.torch_loop`: SLEEF's
    expf in its vectorized loop, the C library's in its scalar one, element by element as PyTorch
    splits them), else NumPy's ufuncs (within an ulp or two of PyTorch's)."""
    if (compute == _F32 and x.dtype == _F32) or (compute == _F64 and x.dtype == _F64):
        res = torch_loop(x, SIGMOID, out)  # (x is read whole before out, which may be x, is written)
        if res is not None:
            if res is not out:
                np.copyto(out, res, casting="unsafe")
            return
    if compute.kind == "c":
        _complex_sigmoid(x, out, compute)
        return
    half = compute == _F16 or (compute.kind == "V" and compute.name == "bfloat16")
    work_dtype = _F32 if half else compute
    work = out if out.dtype == work_dtype else np.empty(out.shape, work_dtype)
    if np.may_share_memory(x, work):  # in place: avoid NumPy 2.4's np.negative(x, out=x) bug
        np.multiply(x, work_dtype.type(-1), out=work, dtype=work_dtype, casting="unsafe")
    else:
        np.negative(x, out=work, dtype=work_dtype, casting="unsafe")
    np.exp(work, out=work)
    np.add(work, 1, out=work)
    np.reciprocal(work, out=work)
    if work is not out:
        np.copyto(out, work, casting="unsafe")


def _complex_sigmoid(x: np.ndarray, out: np.ndarray, compute: np.dtype) -> None:
    """Complex sigmoid as PyTorch's: ``1 / (1 + exp(-z))``, the exponential the C library's
    (NumPy's complex exp: the same bits), ``1 + w`` adding 1 to the real part and 0 to the
    imaginary one, the quotient c10's division with its fused scale (:func:`reciprocal_into`;
    NumPy's reciprocal rounded otherwise: ~30% of complex64 results differed, and an in-place
    multiply by -1 made an infinite part's partner NaN). The sign of -0 vs 0 - z is lost in the
    ``+ 0`` (PyTorch's vector loop negates as 0 - z, its tail as -z: the same results)."""
    # (a fresh array: out may be x; made first, as np.negative of a 0-d x returns a scalar, which
    # the in-place steps below cannot write)
    w = np.negative(x, out=np.empty(x.shape, compute), dtype=compute)
    np.exp(w, out=w)
    np.add(w, compute.type(1), out=w)
    reciprocal_into(w, out, compute)


def sigmoid_fresh(x: np.ndarray) -> np.ndarray:
    """:func:`sigmoid_kernel` of a float32 / float64 array into a fresh array: the same four ufuncs
    in ``x``'s dtype (the bits), without the kernel's overlap test, and with the 1 as a 0-d array
    of the dtype (a ufunc converts it in half the time of a Python int): sigmoid's fast path.
    float32 and float64 take the compiled kernel where it runs (PyTorch's bits: see :func:`sigmoid_kernel`)."""
    res = torch_loop(x, SIGMOID)  # (None for another dtype, or without the kernel)
    if res is not None:
        return res
    work = np.negative(x)
    np.exp(work, out=work)
    np.add(work, _ONE0[x.dtype], out=work)
    return np.reciprocal(work, out=work)


def typed0(value: Any, dtype: np.dtype) -> Any:
    """``value`` as a read-only 0-d array of ``dtype`` where ``dtype`` is float32 / float64 and the
    Python number ``value`` converts to it exactly (the bits of any ufunc it is an operand of
    are then those of the number itself: NumPy's weak scalar converts to the same value); else
    ``value`` as it is. Why: a ufunc converts a Python number (a comparison especially) in about
    twice the time of a 0-d array of the loop's dtype, on a 1 us op. Cached (a few hundred)."""
    c = value.__class__
    if c is not float and c is not int:  # (bool, NumPy scalars, tensors: as they are)
        return value
    # (the key tells -0.0 from 0.0, which are equal and hash alike, by the sign bit)
    key = (value, value == 0 and math.copysign(1.0, value) < 0, dtype)
    a = _TYPED0.get(key)
    if a is not None:
        return a
    if dtype not in _TYPED0_DTYPES or (c is int and not -2**53 < value < 2**53):
        return value
    with np.errstate(over="ignore"):  # (1e40 to float32 is inf: not exact, and no warning)
        exact = float(dtype.type(value)) == value  # (float(): not a float32 compare)
    if not exact:
        return value  # (NaN too: it equals nothing, and is left as it is)
    a = np.array(value, dtype)
    a.flags.writeable = False
    if len(_TYPED0) > 256:
        _TYPED0.clear()
    _TYPED0[key] = a
    return a


_TYPED0: dict[tuple[Any, bool, np.dtype], np.ndarray] = {}
_TYPED0_DTYPES = frozenset((np.dtype(np.float32), np.dtype(np.float64)))
_ONE0 = {d: typed0(1.0, d) for d in _TYPED0_DTYPES}


def relu_kernel(x: np.ndarray, out: np.ndarray, compute: np.dtype) -> None:
    """max(x, 0), as PyTorch's clamp_min(x, 0): NaN stays NaN and -0.0 stays -0.0 (NumPy's
    maximum of -0.0 and 0.0 may give either zero, depending on the dtype's loop).

    A float32/float64 ``x`` and ``out`` of one dtype, both row-major or both column-major (a
    transposed tensor's relu keeps its layout), run the compiled loop over their memory in order
    (:func:`relu_array`'s, the same bits): 1M float32 transposed 730 -> ~110 us."""
    if x.dtype == out.dtype == compute and x.dtype.char in "fd" and x.strides == out.strides:
        k = native.special()
        if k is not None and x.flags.aligned and out.flags.aligned:
            if x.ctypes.data == out.ctypes.data and (run := _dense_run(out)) is not None:
                # (in place, x.relu_(), over a row-major or permuted dense run: the elementwise
                # write in memory order, as the entry front's C write; no copy of x)
                if k.activation_inplace(run, 0, len(run), 2, 0.0):
                    return
            if x.flags.f_contiguous and not x.flags.c_contiguous:
                x, out = x.T, out.T  # (both column-major: their memory in order, elementwise)
            if x.flags.c_contiguous and out.flags.c_contiguous and k.relu(x, out):
                return  # (False: they overlap; the formula below, elementwise, takes them either way)
    if np.may_share_memory(x, out):
        x = x.copy()  # (the zeros are read after the write)
    np.maximum(x, compute.type(0), out=out, dtype=compute, casting="unsafe")
    if compute.kind != "i":  # (ints have no -0)
        np.copyto(out, x, where=x == 0, casting="unsafe")


def _dense_run(a: np.ndarray) -> np.ndarray | None:
    """``a``'s elements as one 1-D view in memory order where ``a`` is writable and non-overlapping
    and dense (its dims, taken by decreasing stride, C-contiguous: a row-major array or a
    permutation of one), else None."""
    if not a.flags.writeable:
        return None
    if a.flags.c_contiguous:
        return a.reshape(-1)
    t = a.transpose(sorted(range(a.ndim), key=lambda d: -a.strides[d]))
    return t.reshape(-1) if t.flags.c_contiguous else None


def _relu_into(k: Any, x: np.ndarray) -> np.ndarray | None:
    """The compiled relu into a fresh array (a build without relu_fresh); None where it does not apply."""
    if x.dtype.char in "fd" and x.flags.c_contiguous and x.flags.aligned:
        out = np.empty(x.shape, x.dtype)
        if k.relu(x, out):  # (always: a fresh out overlaps nothing)
            return out
    return None


def relu_array(x: np.ndarray) -> np.ndarray:
    """``relu_kernel`` into a new array of ``x``'s (float) dtype: relu's fast path. A contiguous
    float32 / float64 ``x`` is one pass of the compiled ``relu`` where it is built (the same bits:
    NumPy's maximum returns a NaN operand unchanged, and the zeros are ``x``'s).

    >>> relu_array(np.array([-1.0, -0.0, 2.0])).tolist()
    [0.0, -0.0, 2.0]
    """
    k = native.special()
    # (relu_fresh: None unless x is C-contiguous, aligned (unaligned: a from_numpy view) native
    # float32 / float64; an older build without it takes relu's own checks)
    if k is not None and (out := k.relu_fresh(x) if hasattr(k, "relu_fresh") else _relu_into(k, x)) is not None:
        return out
    out = np.maximum(x, x.dtype.type(0))
    np.copyto(out, x, where=x == 0)
    return out


def neg_kernel(x: np.ndarray, out: np.ndarray, compute: np.dtype) -> None:
    """``-x``. In place (``out`` is ``x``'s memory) it multiplies by -1 instead: NumPy 2.4's
    ``np.negative(x, out=x)`` reads the wrong elements when x's stride in bytes is itemsize**2
    (e.g. a float64 view with step 8), found by the in-place differential test. Complex:
    :func:`complex_neg_into`."""
    if compute.kind == "c":
        complex_neg_into(x, out, compute)
    elif np.may_share_memory(x, out):
        minus_one = np.asarray(-1, dtype=np.int64).astype(compute)[()]  # wraps for unsigned, as PyTorch
        np.multiply(x, minus_one, out=out, dtype=compute, casting="unsafe")
    else:
        np.negative(x, out=out, dtype=compute, casting="unsafe")


def complex_neg_into(x: np.ndarray, out: np.ndarray, compute: np.dtype) -> None:
    """Complex ``-x`` as PyTorch's neg: its vector loop computes ``0 - z`` (AVX2's
    ``Vectorized<complex>::neg``: a +0 part gives +0, a NaN part keeps its sign), its scalar loop
    ``-z`` (-0, the NaN's sign flipped); the scalar loop's elements are a row's tail past its
    blocks of 2 * Vectorized::size() (AVX2's 8 complex64 / 4 complex128) and strided rows
    (measured on PyTorch 2.13: tests/test_cplx25.py). ``out`` may be ``x`` (in place; no
    multiply by -1, which makes an infinite part's partner NaN)."""
    zero = compute.type(0)
    step = 64 // compute.itemsize
    if x.dtype == compute and x.shape == out.shape and (
            (x.flags.c_contiguous and out.flags.c_contiguous) or (x.flags.f_contiguous and out.flags.f_contiguous)):
        # one row in memory order, cut into parallel_for's pieces: each piece's tail by slices
        # (a 1M-element complex64 run: ~0.3 ms, where the bool mask below took ~3 ms)
        order = "C" if x.flags.c_contiguous else "F"
        flat_x, flat_out = x.reshape(-1, order=order), out.reshape(-1, order=order)
        n = flat_x.shape[0]
        if n < GRAIN_SIZE:  # (one piece)
            tail = n % step
            end = np.negative(flat_x[n - tail:]) if tail else None  # (before the write: out may be x)
            np.subtract(zero, flat_x, out=flat_out)
            if tail:
                flat_out[n - tail:] = end
            return
        piece = piece_length(n)
        tails = [slice(min(s + piece, n) - min(piece, n - s) % step, min(s + piece, n)) for s in range(0, n, piece)]
        ends = [np.negative(flat_x[t]) for t in tails]
        np.subtract(zero, flat_x, out=flat_out)
        for t, v in zip(tails, ends):
            flat_out[t] = v
        return
    res = np.subtract(zero, x, dtype=compute)
    size = out.itemsize
    mask = None
    if all(s % size == 0 for s in out.strides + x.strides):
        mask = scalar_loop_mask(out.shape, tuple(s // size for s in out.strides), False,
                                [(x.shape, tuple(s // size for s in x.strides))], step=step)
    else:  # (a misaligned view: every element as the scalar loop)
        np.negative(x, out=res, dtype=compute)
    if mask is not None:
        res[mask] = np.negative(np.broadcast_to(x, res.shape)[mask], dtype=compute)
    np.copyto(out, res)


# ---------------------------------------------------------------- compiled float32 binary loops


def binary_float_fresh(x: np.ndarray, y: np.ndarray, code: int) -> np.ndarray | None:
    """A fresh array of the compiled ``binary_float`` loop ``code`` (0 fmod, 1 remainder,
    2 floor_divide, 3 hypot: NumPy's bits, strided's remainder's sign of zero; see
    _specialkernel.c) of two float32 arrays of one shape, or None where the loop is not built or
    is off in this context (:mod:`strided.kernels.native`) or refuses them (another dtype, a
    non-contiguous or misaligned operand): the caller then calls its ufunc.

    >>> r = binary_float_fresh(np.array([5.5, -5.5], np.float32), np.array([2.0, 2.0], np.float32), 0)
    >>> r is None or r.tolist() == [1.5, -1.5]
    True
    """
    k = native.special()
    if k is None or x.shape != y.shape:
        return None
    res = np.empty(x.shape, _F32)
    return res if k.binary_float(x, y, res, code) else None


def float32_loop(code: int) -> Callable[[np.ndarray, np.ndarray], np.ndarray | None]:
    """``binary_float_fresh(x, y, code)`` as a two-operand kernel (a BinaryOp's ``native``)."""
    return functools.partial(binary_float_fresh, code=code)


# The float16 ops of the compiled half kernel (its op codes; 4 is the fused alpha * y + x).
HALF_OPS = {np.add: 0, np.subtract: 1, np.multiply: 2, np.true_divide: 3}


def half_into(code: int, x: Any, y: Any, out: np.ndarray, alpha: float = 0.0) -> bool:
    """``out[...] = x op y`` for float16 arrays by the compiled half kernel (``code`` as
    kernels.reduced_arith.reduced_loop's; 4: ``fma(alpha, x, y)`` in float32, rounded once to float16, as
    ``strided.kernels.fused.fma``): True when it ran; False (nothing written) when the kernel is
    not built or off here, or the operands are not three float16 arrays of one shape laid out
    alike and densely (all row-major or all column-major), or an operand overlaps ``out``
    otherwise than as the same elements (in place)."""
    k = native.half()
    if k is None or out.dtype != _F16 or (runs := paired_runs(x, y, out)) is None:
        return False
    k.binary(code, *runs, alpha)
    return True


def paired_runs(x: Any, y: Any, out: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """``(x, y, out)`` as three C-contiguous arrays whose elements pair up along memory (the
    transposes of three column-major ones), for a compiled loop over one flat run: None unless x
    and y are arrays of ``out``'s dtype and shape, all three laid out alike and densely (all
    row-major or all column-major), ``out`` writable and overlapping an operand only as the same
    elements (in place)."""
    if (type(x) is not np.ndarray or type(y) is not np.ndarray or x.dtype != out.dtype or y.dtype != out.dtype
            or x.shape != out.shape or y.shape != out.shape or not out.flags.writeable):
        return None
    if not (x.flags.c_contiguous and y.flags.c_contiguous and out.flags.c_contiguous):
        if not (x.flags.f_contiguous and y.flags.f_contiguous and out.flags.f_contiguous):
            return None
        x, y, out = x.T, y.T, out.T  # (column-major: the same elements pair up along memory)
    for v in (x, y):
        if v.ctypes.data != out.ctypes.data and np.may_share_memory(v, out):
            return None
    return x, y, out


def exact_loop(code: int) -> Callable[[np.ndarray, np.ndarray], np.ndarray | None]:
    """The compiled ``binary_exact`` loop ``code`` (0 fmax, 1 fmin, 2 heaviside: PyTorch's bits,
    NaN payloads included; 3 copysign: NumPy's; see _specialkernel.c) as a two-operand kernel (a BinaryOp's ``native``):
    a fresh array for two float32 or float64 arrays of one shape and dtype, None where the loop is
    not built, off in this context, or refuses them (the caller then calls its ufunc).

    >>> r = exact_loop(0)(np.array([-0.0, 1.0]), np.array([0.0, np.nan]))
    >>> r is None or [str(v) for v in r] == ["-0.0", "1.0"]
    True
    """
    def fresh(x: np.ndarray, y: np.ndarray) -> np.ndarray | None:
        # (one C call that makes its own output: no np.empty call, no partial; a fifth of a small fmax)
        k = native.special()
        if k is None or x.shape != y.shape or x.dtype is not y.dtype:
            return None
        return k.binary_exact_fresh(x, y, code)

    return fresh


def logaddexp_loop(base2: bool) -> Callable[[np.ndarray, np.ndarray], np.ndarray | None]:
    """The compiled float32/float64 ``logaddexp`` (``logaddexp2`` with ``base2``) as a two-operand
    kernel (a BinaryOp's ``native``): a fresh array with ``np.logaddexp``'s (``np.logaddexp2``'s)
    bits for two C-contiguous arrays of one shape and one of those dtypes, None where the loop is
    not built, off in this context, not used on this machine, or refuses them (the caller then calls
    its ufunc).

    >>> r = logaddexp_loop(False)(np.zeros(3, np.float32), np.ones(3, np.float32))
    >>> r is None or r.tolist() == np.logaddexp(np.zeros(3, np.float32), np.ones(3, np.float32)).tolist()
    True
    """
    return functools.partial(logaddexp_fresh, base2=base2)


def logaddexp_fresh(x: np.ndarray, y: np.ndarray, base2: bool) -> np.ndarray | None:
    """See :func:`logaddexp_loop`."""
    k = native.special()
    dt = x.dtype
    if (k is None or (dt != _F32 and dt != _F64) or y.dtype != dt or x.shape != y.shape
            or not x.flags.c_contiguous or not y.flags.c_contiguous or not _logaddexp_agrees(k, base2, dt)):
        return None
    res = np.empty(x.shape, dt)
    run = k.logaddexp_float32 if dt == _F32 else k.logaddexp_float64
    return torch_lane_nans(res, x, y) if run(x, y, res, base2) else None


_LOGADDEXP_AGREES: dict[tuple[bool, str], bool] = {}
_NAN_SIGN = {np.dtype(np.float32): np.uint32(0x80000000), np.dtype(np.float16): np.uint16(0x8000)}


def torch_nan_signs(res: np.ndarray) -> np.ndarray:
    """NumPy's logaddexp/logaddexp2 result as PyTorch's: a float32 or float16 NaN gets its sign
    bit set (payload kept), as PyTorch's kernels return it at every length and position
    (``logaddexp(nan, 1.0)`` is 0xffc00000); in place where ``res`` is a writable array (returned).
    float64 is left as NumPy gives it (PyTorch's sign there depends on the loop: not modelled)."""
    sign = _NAN_SIGN.get(res.dtype)
    if sign is None:
        return res
    # (float16: integer passes on its bits; NumPy's float16 isnan converts element by element)
    nan = np.isnan(res) if sign.dtype.itemsize == 4 else (res.view(np.uint16) & 0x7FFF) > 0x7C00
    if nan.any():
        if not (isinstance(res, np.ndarray) and res.flags.writeable):
            res = np.array(res)
        bits = res.view(sign.dtype)
        np.bitwise_or(bits, sign, out=bits, where=nan)
    return res


_DEFAULT_NAN = {np.dtype(np.float32): np.uint32(0x7FC00000), np.dtype(np.float16): np.uint16(0x7E00)}


def torch_lane_nans(res: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """:func:`torch_nan_signs`' result ``res`` of ``logaddexp(x, y)`` (or logaddexp2; ``x`` and
    ``y`` the operands as broadcast by the caller, ``res`` writable, of their broadcast shape) with
    the NaNs of an AVX2 PyTorch's vector lanes: there a float32/float16 NaN its vectorized loop
    computes is the default NaN, +0x7fc00000 (+0x7e00), whatever the operands' payloads (seen on
    an AMD AVX2 CPU with torch 2.13), while its scalar loop's keep the sign-set word. The vector
    elements are those outside :func:`scalar_loop_mask` for a fresh output (steps of 16 float32s,
    32 float16s: ``Vectorized<Half>`` holds twice the lanes). Unchanged under AVX-512 (every NaN
    sign-set there, as modelled) and for float64."""
    canon = _DEFAULT_NAN.get(res.dtype)
    if canon is None or not isinstance(res, np.ndarray) or res.ndim == 0 or torch_vector_bytes() != 32:
        return res
    # (float16: integer passes on its bits, as torch_nan_signs)
    nan = np.isnan(res) if canon.dtype.itemsize == 4 else (res.view(np.uint16) & 0x7FFF) > 0x7C00
    if not nan.any():
        return res
    if not res.flags.writeable:
        res = np.array(res)
    bits = res.view(canon.dtype)
    ops = [None if a.ndim == 0 else (a.shape, tuple(v // a.itemsize for v in a.strides)) for a in (x, y)]
    shape = res.shape
    step = 16 if res.dtype.itemsize == 4 else 32  # (2 * Vectorized<T>::size() under AVX2)
    scalar = scalar_loop_mask(shape, tuple(fresh_strides(shape, ops)), True, ops, step=step)
    vector = nan if scalar is None else nan & ~np.broadcast_to(scalar, shape)
    bits[vector] = canon
    return res


def _logaddexp_agrees(k: Any, base2: bool, dt: np.dtype) -> bool:
    """Whether the compiled loop gives NumPy's own bits in this process, checked once per base and
    dtype on every pair of special values, 2^14 pairs of spread bit patterns, 2^14 near pairs and
    2^14 pairs of ordinary numbers: the loop ports the C library's exp/exp2/log1p (checked against
    them at its first use, in C), which a NumPy built otherwise (its own exp or log1p, fused
    operations) would not call."""
    agrees = _LOGADDEXP_AGREES.get((base2, dt.char))
    if agrees is None:
        ufunc = np.logaddexp2 if base2 else np.logaddexp
        with np.errstate(over="ignore"):  # (1.7e308 is inf in float32)
            special = np.array([0.0, -0.0, 1.0, -1.0, 0.5, 88.0, -88.0, 128.0, -128.0, 512.0, -512.0, 1e-30, 1e-17,
                                1e-45, 5e-324, 3e38, -3e38, 1.7e308, np.inf, -np.inf, np.nan]).astype(dt)
        rng = np.random.default_rng(14)
        u = np.dtype(f"u{dt.itemsize}")
        bits = rng.integers(0, np.iinfo(u).max, (2, 1 << 14), dtype=u, endpoint=True)
        near = bits[0] ^ (bits[1] >> u.type(dt.itemsize * 8 - 22))  # (pairs a few ulps to 2^22 ulps apart)
        plain = rng.uniform(-16, 16, 1 << 14).astype(dt)
        x = np.concatenate([np.repeat(special, len(special)), bits[0].view(dt), bits[0].view(dt), plain])
        y = np.concatenate([np.tile(special, len(special)), bits[1].view(dt), near.view(dt),
                            (plain - rng.uniform(0, 2, 1 << 14) ** 6).astype(dt)])
        got = np.empty_like(x)
        with np.errstate(all="ignore"):
            want = torch_nan_signs(ufunc(x, y))  # (the loop writes PyTorch's float32 NaNs)
        run = k.logaddexp_float32 if dt == _F32 else k.logaddexp_float64
        agrees = bool(run(x, y, got, base2)) and got.tobytes() == want.tobytes()
        _LOGADDEXP_AGREES[(base2, dt.char)] = agrees
    return agrees
