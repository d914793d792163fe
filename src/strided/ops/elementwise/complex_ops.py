"""Complex numbers: the parts as views (``real``, ``imag``, ``view_as_real``, ``view_as_complex``),
conjugation (``conj``, ``conj_physical``, ``resolve_conj``, ``is_conj``, ``H``, ``mH``,
``adjoint``), ``angle``, ``polar``, ``complex`` and ``is_complex``, with PyTorch's semantics.

The views read a complex tensor's bytes as floats (or back) through the one primitive
:func:`strided.dispatch.reinterpreted`, with layouts from :mod:`strided.layout.dtype_view`:
``c.real`` of a complex64 tensor is a float32 view with strides and offset doubled (``imag``: +1),
so writing ``c.real[0] = 5`` changes ``c``.

# Note: PyTorch's ``conj()`` is lazy: a view with a "conjugate bit" that later ops resolve.
# strided has no such bit (its storage is a NumPy buffer, and a bit every kernel must honour
# would be a second layout rule), so ``conj()`` of a complex tensor is ``conj_physical()``: the
# conjugates written to new memory, reported to the copy ledger with that reason. ``is_conj()`` is
# therefore always False, ``resolve_conj()`` returns the tensor itself, and ``H``/``mH``/``adjoint``
# of a complex tensor are a copy (then a transposed view of it); of a real tensor they are views.
"""

from __future__ import annotations

import os
import warnings
from typing import Any

import numpy as np

from ... import layout as L
from ...args import is_number
from ...callsite import user_site
from ...dispatch import OPEN, adopted, copied, reinterpreted, report
from ...dispatch import result as fresh_result
from ...dtypes import (
    TORCH_NAME,
    DType,
    bfloat16,
    bool_,
    complex64,
    complex128,
    complex_of,
    float16,
    float32,
    float64,
    real_of,
)
from ...errors import StridedRuntimeError, StridedTypeError, join_lines
from ...gradients import installs_as, returns_input
from ...kernels import native
from ...kernels.elementwise import complex_angle
from ...kernels.fpstate import QUIET, quiet_call, quiet_reset, quiet_retry, quiet_set
from ...kernels.memory import dense_run
from ...layout import Layout
from ...layout.dtype_view import as_complex_layout, as_real_layout, part_layout
from ...opdef import Kind, declare
from ...tensor import Tensor, tensor_arg
from .._support import support
from .._support.front import compiled_front, kernel_entry
from .._support.memo import Memo
from .._support.operands import _broadcast, _cinfo, _fresh_output, _view, flat_run
from .._support.out import write_out
from .._support.overlap_updates import UpdatesInOrder, updates_in_order
from .._support.promotion import to_float
from .unary import NEG, _unary

__all__ = [
    "adjoint", "angle", "complex", "conj", "conj_physical", "imag", "is_complex", "is_conj", "polar",
    "real", "resolve_conj", "view_as_complex", "view_as_real",
]

# ---------------------------------------------------------------- the parts, as views


def real(input: Tensor) -> Tensor:
    """The real parts of a complex tensor, as a float view over its bytes (strides doubled);
    a real tensor itself, as PyTorch.

    >>> c = strided.tensor([1 + 2j, 3 - 4j]); r = strided.real(c); r.stride(), r.storage_offset()
    ((2,), 0)
    """
    tensor_arg(input, "real")
    if not input._dtype.is_complex:
        return input
    lay = input._layout
    return reinterpreted(input, real_of(input._dtype), _PARTS[(lay.shape, lay.strides, lay.offset, False)], "real")


def imag(input: Tensor) -> Tensor:
    """The imaginary parts of a complex tensor, as a float view (strides doubled, offset doubled + 1);
    PyTorch's RuntimeError for a real tensor.

    >>> strided.imag(strided.tensor([1 + 2j])).storage_offset()
    1
    """
    tensor_arg(input, "imag")
    if not input._dtype.is_complex:
        raise StridedRuntimeError(join_lines(
            "imag is not implemented for tensors with non-complex dtypes.",
            f"the tensor is {input._dtype.name}: its imaginary parts are all 0 and it has no memory for them",
            "fix: strided.zeros_like(x) for zeros, or x.to(strided.complex64).imag for a view of a complex copy"))
    lay = input._layout
    return reinterpreted(input, real_of(input._dtype), _PARTS[(lay.shape, lay.strides, lay.offset, True)], "imag")


# (shape, strides, offset, imag) -> the float layout of a complex layout's parts (built and checked once)
_PARTS = Memo(lambda key: part_layout(Layout._trusted(*key[:3]), imag=key[3]))


def _set_part(self: Tensor, value: Any, which: str) -> None:
    """``t.real = value`` / ``t.imag = value``: writes ``value`` into the parts (PyTorch's setter)."""
    part = real(self) if which == "real" else imag(self)
    if not isinstance(value, Tensor) and not is_number(value):
        raise StridedTypeError(join_lines(
            f"can't assign a {type(value).__name__} to a torch.{TORCH_NAME[part._dtype.name]}Tensor",
            f"t.{which} = value takes a tensor or a number; got {value!r:.60}",
            f"fix: t.{which} = strided.tensor(data)"))
    part.copy_(value)


def view_as_real(input: Tensor) -> Tensor:
    """A complex tensor's bytes as floats with a trailing dim of size 2 (real, imaginary), stride 1.

    >>> strided.view_as_real(strided.tensor([1 + 2j, 3 - 4j])).stride()
    (2, 1)
    """
    tensor_arg(input, "view_as_real")
    if not input._dtype.is_complex:
        raise StridedRuntimeError(join_lines(
            "view_as_real is only supported for complex tensors",
            f"the tensor is {input._dtype.name}",
            "fix: strided.view_as_real(x.to(strided.complex64)) views a complex copy"))
    lay = input._layout
    return reinterpreted(input, real_of(input._dtype), _AS_REAL[(lay.shape, lay.strides, lay.offset)], "view_as_real")


# (shape, strides, offset) -> the layout of view_as_real / view_as_complex (or its refusal): the
# layouts are checked objects whose construction costs most of these views
_AS_REAL = Memo(lambda key: as_real_layout(Layout._trusted(*key)))
_AS_COMPLEX = Memo(lambda key: as_complex_layout(Layout._trusted(*key)))


def view_as_complex(input: Tensor) -> Tensor:
    """A float tensor whose last dim holds (real, imaginary) pairs, read as complex (a view).

    PyTorch's requirements: float32 or float64 (float16 would be complex32, which strided lacks),
    at least one dim, a last dim of size 2 and stride 1, the other strides and the offset even.

    >>> strided.view_as_complex(strided.tensor([[1.0, 2.0]]))
    tensor([1.+2.j])
    """
    tensor_arg(input, "view_as_complex")
    d = input._dtype
    target = complex_of(d)
    if target is None:
        if d is float16:  # Note: PyTorch gives complex32 (ComplexHalf); strided has no such dtype
            raise StridedRuntimeError(join_lines(
                "view_as_complex: complex32 (ComplexHalf) is not supported by strided",
                "a float16 tensor's pairs would be complex32, which strided (like NumPy) does not have",
                "fix: strided.view_as_complex(x.to(strided.float32)) views a float32 copy"))
        raise StridedRuntimeError(join_lines(
            "view_as_complex is only supported for half, float and double tensors, but got a tensor of "
            f"scalar type: {TORCH_NAME[d.name]}",
            f"the tensor is {d.name}",
            "fix: strided.view_as_complex(x.to(strided.float32))"))
    lay = input._layout
    plan = _AS_COMPLEX[(lay.shape, lay.strides, lay.offset)]
    if plan.__class__ is not Layout:
        lay = input._layout
        raise StridedRuntimeError(join_lines(
            plan.first,
            f"x: shape {lay.shape}, strides {lay.strides}, offset {lay.offset}: {plan.why}",
            "fix: strided.view_as_complex(x.contiguous()) (with x's last dim of size 2)"))
    return reinterpreted(input, target, plan, "view_as_complex")


def is_complex(input: Tensor) -> bool:
    """Whether the dtype is complex64 or complex128.

    >>> strided.zeros(1, dtype=strided.complex64).is_complex(), strided.zeros(1).is_complex()
    (True, False)
    """
    return tensor_arg(input, "is_complex")._dtype.is_complex


_empty, _BOOL = np.empty, np.dtype(np.bool_)


@installs_as("isreal")
def isreal(input: Tensor) -> Tensor:  # noqa: A002 - torch's argument name
    """Whether each element is real (``torch.isreal``): its imaginary part is 0; every element of
    a tensor of a real dtype is (a new bool tensor, laid out as ``input``).

    >>> strided.isreal(strided.tensor([1 + 0j, 2j])).tolist(), strided.isreal(strided.ones(2)).tolist()
    ([True, False], [True, True])
    """
    x = input if input.__class__ is Tensor else tensor_arg(input, "isreal")
    if not x._dtype.is_complex:
        if not OPEN:  # (a row-major input: ones_like's result without its set-up; listeners see ones_like's)
            info = _cinfo[x._layout.shape]
            if x._layout.strides == info[0]:
                ones = _empty(info[1], _BOOL)
                ones.fill(True)  # (np.ones' Python layer was half of a small isreal)
                return adopted(ones, info[2], bool_)
        from ...creation import ones_like  # (the factories import the ops' layer: imported on use)

        return ones_like(x, dtype=bool_)
    return x.imag == 0


# ---------------------------------------------------------------- conjugation


def conj_physical(input: Tensor, *, out: Any = None) -> Tensor:
    """The conjugates in new memory (complex); a real tensor itself, as PyTorch.

    >>> strided.conj_physical(strided.tensor([1 + 2j]))
    tensor([1.-2.j])
    """
    if out is not None:  # (PyTorch's out= takes only the result's dtype)
        return write_out(out, conj_physical(input), "conj_physical", (input,), "found")
    tensor_arg(input, "conj_physical")
    if not input._dtype.is_complex:
        return input
    return _conjugated(input, "conj_physical")


def _conjugated(input: Tensor, name: str) -> Tensor:
    if not OPEN:  # (a row-major input, nobody listening: the conjugates of its flat run are the result)
        info = _cinfo[input._layout.shape]
        arr = flat_run(input, info)
        if arr is not None:
            return adopted(np.conjugate(arr), info[2], input._dtype)
        # (a permuted dense one, a transpose: its run's conjugates in memory order, with its strides
        # at offset 0, preserve_format's layout below, without the strided walk's set-up)
        dense = dense_run(input, info[1])
        if dense is not None:
            return adopted(np.conjugate(dense[0]), dense[1], input._dtype)
    lay = input._layout  # laid out as PyTorch's (a dense input's strides kept, size-1 dims included)
    out = fresh_result(lay.shape, input._dtype, L.preserve_format_strides(lay.shape, lay.strides))
    np.conjugate(_view(input), out=_view(out))
    return copied(name, (input,), out, lambda: (
        f"{name}: the {input._dtype.name} conjugates written to new memory (strided has no lazy "
        "conjugate bit; PyTorch's conj() would be a view)"))


def conj(input: Tensor) -> Tensor:
    """The complex conjugate. # Note: a copy (``conj_physical``), where PyTorch returns a lazy view
    with its conjugate bit set (see the module); a real tensor itself, as PyTorch.

    >>> with strided.record_copies() as c:
    ...     y = strided.tensor([1 + 2j]).conj()
    >>> c[-1].reason.startswith("conj")
    True
    """
    if input.__class__ is Tensor and not OPEN:  # (_conjugated's fast path inlined: a quarter of a small conj)
        d = input._dtype
        if not d.is_complex:
            return input
        lay = input._layout
        info = _cinfo[lay.shape]
        if lay.strides == info[0]:
            arr = input._storage.array
            n = info[1]
            if lay.offset or len(arr) != n:
                arr = arr[lay.offset : lay.offset + n]
            if len(arr) == n:
                return adopted(np.conjugate(arr), info[2], d)
    tensor_arg(input, "conj")
    if not input._dtype.is_complex:
        return input
    return _conjugated(input, "conj")


def conj_physical_(self: Tensor) -> Tensor:
    """In-place conjugation (imaginary parts negated through the ``imag`` view); real: unchanged.

    >>> x = strided.tensor([1 + 2j])
    >>> x.conj_physical_().tolist()
    [(1-2j)]
    """
    if self._dtype.is_complex:
        part = imag(self)
        # (neg_'s write without its entry: this method's own entry counts the one write in
        # _version, as PyTorch's conj_physical_ does; part.neg_() counted a second)
        try:
            _unary(NEG, part, part)
        except UpdatesInOrder as refusal:  # (neg_'s handling of a target whose elements share memory)
            updates_in_order(lambda t: _unary(NEG, t, t), part, (), {}, refusal)
        report("conj_physical_", (self,), self)
    return self


@returns_input("resolve_conj")
def resolve_conj(input: Tensor) -> Tensor:
    """``input`` itself: strided never holds a lazy conjugate (see the module's note).

    >>> x = strided.tensor([1j])
    >>> x.resolve_conj() is x
    True
    """
    return tensor_arg(input, "resolve_conj")


def is_conj(input: Tensor) -> bool:
    """Always False: strided's ``conj()`` writes the conjugates, it sets no bit (see the module).

    >>> strided.tensor([1j]).conj().is_conj()
    False
    """
    tensor_arg(input, "is_conj")
    return False


@returns_input("resolve_neg")
def resolve_neg(input: Tensor) -> Tensor:
    """``input`` itself: strided never holds a lazy negation (PyTorch's negative bit, set on the
    imaginary part of a lazily conjugated tensor; strided's ``conj()`` writes the values).

    >>> x = strided.tensor([1j])
    >>> x.resolve_neg() is x
    True
    """
    return tensor_arg(input, "resolve_neg")


def is_neg(input: Tensor) -> bool:
    """Always False: strided sets no negative bit (see :func:`resolve_neg`).

    >>> strided.tensor([1j]).conj().imag.is_neg()
    False
    """
    tensor_arg(input, "is_neg")
    return False


def _check_matrix(self: Tensor, what: str, batches: bool) -> None:
    nd = len(self._layout.shape)
    if (nd != 2) if not batches else (nd < 2):
        kind = "matrices (2-D tensors)" if not batches else "matrices or batches of matrices"
        raise StridedRuntimeError(join_lines(
            f"{what} is only supported on {kind}. Got {nd}-D tensor.",
            f"the tensor has shape {self._layout.shape}",
            "fix: x.conj() for a vector's conjugate; x.unsqueeze(0) makes it a 1-row matrix"))


def _h(self: Tensor) -> Tensor:
    """``t.H``: the conjugate transpose of a matrix (a copy then a view for complex; a view for real).

    >>> strided.tensor([[1j, 2]]).H.tolist()
    [[-1j], [(2-0j)]]
    """
    _check_matrix(self, "tensor.H", batches=False)
    return conj(self).transpose(0, 1)


def adjoint(input: Tensor) -> Tensor:
    """The conjugate transpose of the last two dims (a copy then a view for complex; a view for real).

    >>> strided.tensor([[1 + 2j, 3j]]).adjoint().tolist()
    [[(1-2j)], [-3j]]
    """
    if not tensor_arg(input, "adjoint")._layout.shape:  # (as PyTorch: itself, with its deprecation warning)
        warnings.warn("adjoint() is deprecated on 0-D tensors. Consider using x.conj().", UserWarning,
                      stacklevel=user_site()[1])  # (the user's line, through any entry)
        return conj(input)
    _check_matrix(input, "tensor.adjoint()", batches=True)
    return conj(input).transpose(-2, -1)


def _mh(self: Tensor) -> Tensor:
    """``t.mH``: :func:`adjoint`; a 0-d tensor gives itself with PyTorch's deprecation warning.

    >>> strided.zeros(4, 2, 3, dtype=strided.complex64).mH.shape
    (4, 3, 2)
    """
    if not self._layout.shape:
        warnings.warn("Tensor.mH is deprecated on 0-D tensors. Consider using x.conj().", UserWarning,
                      stacklevel=user_site()[1])
        return conj(self)
    _check_matrix(self, "tensor.mH", batches=True)
    return conj(self).transpose(-2, -1)


# ---------------------------------------------------------------- angle, polar, complex


def angle(input: Tensor, *, out: Any = None) -> Tensor:
    """The argument of each element in radians: ``atan2(imag, real)`` for complex inputs; a real
    input gives pi where it is below 0 and 0 elsewhere (-0.0 and +inf included), NaN stays NaN, as
    PyTorch's; the result is real (complex64 -> float32, integers -> float32).

    >>> strided.angle(strided.tensor([1, -2]))
    tensor([0.0000, 3.1416])
    """
    if out is not None:  # (into any dtype the result casts to, as PyTorch's)
        return write_out(out, angle(input), "angle", (input,))
    tensor_arg(input, "angle")
    d = input._dtype
    out_dtype = real_of(d) if d.is_complex else to_float(d)
    shape = input._layout.shape
    # PyTorch: a real input runs through TensorIterator (its strides); a complex one into a resized
    # empty output (row-major)
    if d.is_complex:  # (SLEEF's and the C library's atan2 of each element's parts: PyTorch's, see complex_angle)
        info = _cinfo[shape]
        arr = flat_run(input, info)
        values = complex_angle(arr if arr is not None else _view(input))  # (fresh; reshape: row-major)
        return report("angle", (input,), adopted(values.reshape(-1), info[2], out_dtype))
    out = _fresh_output(shape, out_dtype, [input], d)
    with np.errstate(all="ignore"):
        x = _view(input)
        # PyTorch's real angle: NaN stays (sign and all), x < 0 gives pi, anything else 0;
        # # Note: NumPy's angle is atan2(0, x), which gives pi for -0.0 (and -inf)
        if d.kind == "f" and x.dtype.kind == "f":  # (in x's dtype: a float64 round trip quiets a signalling NaN)
            values = np.where(x < 0, x.dtype.type(np.pi), x.dtype.type(0.0))
            nan = np.isnan(x)
            if nan.any():
                _real_angle_nans(values, x, nan, input, out)
        else:
            values = np.where(x < 0, np.pi, 0.0)
            if d.kind == "f":
                values = np.where(np.isnan(x), x, values)
        np.copyto(_view(out), values, casting="unsafe")
    return report("angle", (input,), out)


def _real_angle_nans(values: np.ndarray, x: np.ndarray, nan: np.ndarray, input: Tensor, out: Tensor) -> None:
    """Write the NaN elements ``nan`` of a float ``x`` into ``values`` (angle's result, fresh) as
    PyTorch's cpu_kernel_vec does: its scalar function returns ``x`` itself (sign and payload, a
    signalling NaN unquieted), its vectorized one the blend of ``quiet_NaN()`` (float16: 0x7e00;
    :func:`strided.kernels.torch_loops.scalar_loop_mask` says which elements each takes). angle's
    kernel is registered for the AVX2 build alone (``REGISTER_DISPATCH``): under the AVX512
    capability too its step is two 32-byte vectors (measured: 16 float32, 8 float64, 32 float16
    elements on AVX-512 and AVX2 alike); ``ATEN_CPU_CAPABILITY=default`` runs no vector lanes
    (every NaN kept, measured)."""
    np.copyto(values, x, where=nan)
    if os.environ.get("ATEN_CPU_CAPABILITY", "").strip().lower() == "default":
        return
    from ...kernels.torch_loops import HALF_STEP, scalar_loop_mask

    shape = input._layout.shape
    step = HALF_STEP if x.itemsize == 2 else 64 // x.itemsize
    scalar = scalar_loop_mask(shape, out._layout.strides, True, [(shape, input._layout.strides)], step=step)
    vector = nan if scalar is None else nan & ~scalar
    values[vector] = np.nan


def _pair(a: Any, b: Any, op: str, names: tuple[str, str]) -> tuple[DType, tuple[int, ...]]:
    """The complex dtype and broadcast shape of ``op(a, b)`` for two float tensors of one dtype."""
    for x, name, pos in ((a, names[0], 1), (b, names[1], 2)):
        if not isinstance(x, Tensor):
            raise StridedTypeError(join_lines(
                f"{op}(): argument '{name}' (position {pos}) must be Tensor, not {type(x).__name__}",
                f"fix: strided.{op}(x, strided.full_like(x, {x!r:.20})) for a constant {name}"))
    da, db = a._dtype, b._dtype
    if not (da.is_floating_point and db.is_floating_point) or da is bfloat16 or db is bfloat16:
        # (PyTorch's complex/polar take Half, Float and Double: no complex type of bfloat16)
        raise StridedRuntimeError(join_lines(
            f"Expected both inputs to be Half, Float or Double tensors but got {TORCH_NAME[da.name]} and "
            f"{TORCH_NAME[db.name]}",
            f"fix: convert first: strided.{op}(a.to(strided.float32), b.to(strided.float32))"))
    if da is not db:
        raise StridedRuntimeError(join_lines(
            f"Expected object of scalar type {TORCH_NAME[da.name]} but got scalar type {TORCH_NAME[db.name]} "
            "for second argument",
            f"{op} does not promote: {names[0]} is {da.name}, {names[1]} is {db.name}",
            f"fix: b.to(strided.{da.name})"))
    target = complex_of(da)
    if target is None:  # Note: PyTorch gives complex32 for float16; strided has no such dtype
        raise StridedRuntimeError(join_lines(
            f"{op}: complex32 (ComplexHalf) is not supported by strided",
            "float16 parts would make complex32, which strided (like NumPy) does not have",
            f"fix: strided.{op}(a.to(strided.float32), b.to(strided.float32))"))
    return target, _broadcast(op, [a, b], names)


def _rowmajor_parts(a: Any, b: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, Tensor] | None:
    """The fast path of ``polar``/``complex``: two row-major float32 (or float64) tensors of one
    shape and dtype give their elements as flat runs, the fresh contiguous complex result (the
    layout ``_fresh_output`` gives such operands) and its flat storage array (elementwise: the
    kernels need no shape); else None."""
    if a.__class__ is not Tensor or b.__class__ is not Tensor:
        return None
    d = a._dtype
    shape = a._layout.shape
    if b._dtype is not d or (d is not float32 and d is not float64) or b._layout.shape != shape:
        return None
    info = _cinfo[shape]
    x, y = flat_run(a, info), flat_run(b, info)
    if x is None or y is None:
        return None
    out = fresh_result(shape, complex_of(d))
    return x, y, out._storage.array, out


def _polar_into(r: np.ndarray, t: np.ndarray, o: np.ndarray) -> None:
    """``polar``'s kernel: the real and imaginary parts of ``o`` from magnitudes and angles."""
    np.multiply(r, np.cos(t), out=o.real)
    np.multiply(r, np.sin(t), out=o.imag)


_COMPLEX_NP = {float32: np.dtype(np.complex64), float64: np.dtype(np.complex128)}
_cos, _sin = np.cos, np.sin


def _polar_fast(r: Tensor, a: Tensor) -> Tensor | None:
    """polar's small-op fast path: two row-major float32 (float64) tensors of one shape give
    NumPy's cos and sin of the angles' flat run, then the two products into the fresh complex
    result's pairs in one compiled pass (``polar_parts``: NumPy's multiply's bits, NaN operands
    included; tests/test_polar_native.py), the result row-major as the general path lays it out.
    None (nothing made) where the general path must run, or the kernel is not built or off."""
    d = r._dtype
    la, lb = r._layout, a._layout
    shape = la.shape
    if a._dtype is not d or (d is not float32 and d is not float64) or lb.shape != shape:
        return None
    k = native.special()
    info = _cinfo[shape]
    if k is None or la.strides != info[0] or lb.strides != info[0]:
        return None
    n = info[1]
    x, t = r._storage.array, a._storage.array  # (flat_run, inlined twice: a tenth of a small polar)
    if la.offset or len(x) != n:
        x = x[la.offset : la.offset + n]
    if lb.offset or len(t) != n:
        t = t[lb.offset : lb.offset + n]
    if len(x) != n or len(t) != n:
        return None  # (unpickled past its storage: the general path's error)
    o = np.empty(n, _COMPLEX_NP[d])
    try:  # (cos(inf) is NaN, quietly: fpstate.quietly, inlined)
        c = quiet_call(_cos, t)
        s = quiet_call(_sin, t)
    except RuntimeError as e:
        c = quiet_retry(e, _cos, t)
        s = quiet_retry(e, _sin, t)
    return adopted(o, info[2], complex_of(d)) if k.polar_parts(x, c, s, o) else None


def polar(abs: Tensor, angle: Tensor, *, out: Any = None) -> Tensor:  # noqa: A002 - PyTorch's argument names
    """``abs * (cos(angle) + i sin(angle))`` elementwise (broadcast), complex of the inputs' float dtype.

    >>> strided.polar(strided.tensor([2.0]), strided.tensor([0.0]))
    tensor([2.+0.j])
    """
    if out is not None:  # (PyTorch's out= takes only the result's dtype)
        return write_out(out, polar(abs, angle),
                         'polar', (abs, angle),
                         "Expected object of scalar type {r} but got scalar type {o} for argument 'out'")
    if abs.__class__ is Tensor and angle.__class__ is Tensor:
        out = _polar_fast(abs, angle)
        if out is not None:
            return report("polar", (abs, angle), out) if OPEN else out
    fast = _rowmajor_parts(abs, angle)
    if fast is not None:  # (the general path's kernel, on the flat runs)
        r, t, o, out = fast
        token = quiet_set(QUIET)  # (cos(inf) is NaN, quietly)
        try:
            _polar_into(r, t, o)
        finally:
            quiet_reset(token)
        return report("polar", (abs, angle), out)
    if isinstance(abs, Tensor):  # (float16: PyTorch has no polar kernel; strided has no complex32)
        support.check("polar", abs._dtype, (abs, angle))
    target, shape = _pair(abs, angle, "polar", ("abs", "angle"))
    out = _fresh_output(shape, target, [abs, angle], abs._dtype)
    o = _view(out)
    r, t = _view(abs), _view(angle)
    with np.errstate(all="ignore"):
        _polar_into(r, t, o)
    return report("polar", (abs, angle), out)


def complex(real: Tensor, imag: Tensor, *,
            out: Any = None) -> Tensor:  # noqa: A001 - strided.complex mirrors torch.complex
    """A complex tensor from its real and imaginary parts (two float tensors of one dtype, broadcast).

    >>> strided.complex(strided.tensor([1.0]), strided.tensor([2.0]))
    tensor([1.+2.j])
    """
    if out is not None:  # (PyTorch's out= takes only the result's dtype)
        return write_out(out, complex(real, imag),
                         'complex', (real, imag),
                         "Expected object of scalar type {r} but got scalar type {o} for argument 'out'")
    fast = _rowmajor_parts(real, imag)
    if fast is not None:  # (the general path's two copies, from the flat runs)
        _parts_into(fast[0], fast[1], fast[2])
        return report("complex", (real, imag), fast[3])
    target, shape = _pair(real, imag, "complex", ("real", "imag"))
    out = _fresh_output(shape, target, [real, imag], real._dtype)
    _parts_into(_view(real), _view(imag), _view(out))
    return report("complex", (real, imag), out)


def _parts_into(x: np.ndarray, y: np.ndarray, o: np.ndarray) -> None:
    """``o.real = x`` and ``o.imag = y`` (``x`` and ``y`` broadcast to ``o``'s shape): the
    compiled ``interleave`` in one pass where the three are C-contiguous, or all column-major (a
    transposed pair's fresh output: the same elements, walked as their transposes), and it is
    built and on; the two copies into ``o``'s part views otherwise (the same bits)."""
    k = native.special()
    if k is not None and x.shape == y.shape == o.shape:
        if x.flags.c_contiguous and y.flags.c_contiguous and o.flags.c_contiguous:
            if k.interleave(x, y, o):
                return
        elif x.flags.f_contiguous and y.flags.f_contiguous and o.flags.f_contiguous and k.interleave(x.T, y.T, o.T):
            return
    np.copyto(o.real, x)
    np.copyto(o.imag, y)


# ---------------------------------------------------------------- Tensor methods

Tensor.real = property(real, lambda self, value: _set_part(self, value, "real"),  # type: ignore[attr-defined]
                       doc="The real parts: a view for complex tensors (strides doubled), the tensor itself otherwise.")
Tensor.imag = property(imag, lambda self, value: _set_part(self, value, "imag"),  # type: ignore[attr-defined]
                       doc="The imaginary parts of a complex tensor: a float view (strides doubled, offset + 1).")
Tensor.H = property(_h, doc="The conjugate transpose of a matrix.")  # type: ignore[attr-defined]
Tensor.mH = property(_mh, doc="The conjugate transpose of the last two dims.")  # type: ignore[attr-defined]
installs_as("conj")(conj)
installs_as("conj_physical")(conj_physical)
installs_as("conj_physical_")(conj_physical_)
installs_as("resolve_conj")(resolve_conj)
installs_as("is_conj")(is_conj)
installs_as("resolve_neg")(resolve_neg)
installs_as("is_neg")(is_neg)
installs_as("adjoint")(adjoint)
installs_as("angle")(angle)
installs_as("is_complex")(is_complex)


# ---------------------------------------------------------------- backward rules
# PyTorch's, in its conjugate convention for complex gradients (see
# strided.autograd.function.CONJUGATE_CONVENTION). Without them ``x.real`` or ``x.angle()`` of a
# complex tensor that requires grad would give a result outside the graph, and a sum mixing it
# with a recorded term would silently lose its part of the gradient.

from ...gradients import backward, seal  # noqa: E402 - (kept beside the rules: merges stay clean)


# (PyTorch takes a part as view_as_real(x).select(-1, k): its node is a SelectBackward0, whose
# gradient is the pair (g, 0) or (0, g) read as complex. Of a tensor with PyTorch's conjugate bit
# (x.conj(): strided's conj is a copy) it reads view_as_real(x._conj()), the imaginary part through
# a _neg_view: the pair passes one more conjugation (and a negation), so the gradient's signed
# zeros are others: x.conj().real's is 1+0j, not 1-0j)
@backward("real", operands="property")
def _real_backward(out: Tensor, x: Tensor) -> Any:
    if out is x:  # a real tensor's real is the tensor itself: no node
        return None
    bit = _torch_conj_bit(x)
    return "SelectBackward0", (x,), lambda g: (_part_grad(g, bit, 0),), ()


@backward("imag", operands="property")
def _imag_backward(out: Tensor, x: Tensor) -> Any:
    bit = _torch_conj_bit(x)
    return "SelectBackward0", (x,), lambda g: (_part_grad(g, bit, 1),), ()


def _torch_conj_bit(x: Tensor) -> bool:
    """Whether PyTorch's ``x`` has its conjugate bit set: ``x`` is the result of an odd run of
    ``conj()`` calls recorded by autograd (a conj of a conj clears it). Views of such a result
    (which keep PyTorch's bit) are not followed."""
    node, bit = x.grad_fn, False
    while node is not None and node.name() == "ConjBackward0":
        bit = not bit
        node = node.next_functions[0][0] if node.next_functions else None
    return bit


def _part_grad(g: Tensor, bit: bool, k: int) -> Tensor:
    """The gradient of part ``k`` (0 real, 1 imaginary) of a complex tensor as PyTorch's
    SelectBackward0 gives it: ``g`` at place ``k`` of a (real, imaginary) pair of zeros, read as
    complex; with the conjugate bit (:func:`_torch_conj_bit`) that pair conjugated, and for the
    imaginary part negated first (PyTorch's _neg_view): ``(g, -0.0)``, ``(-0.0, g)``."""
    from ..shape.joining import stack as _stack  # (its recording entry once sealed: imported at the call)

    zero = g.new_full(g.shape, -0.0 if bit else 0.0)
    # (stack and view_as_complex: recorded for a second derivative, where complex's compiled
    # front, called from here, is not)
    return view_as_complex(_stack([g, zero] if k == 0 else [zero, g], -1))


@backward("view_as_real")
def _view_as_real_backward(out: Tensor, x: Tensor) -> Any:
    """ViewAsRealBackward0: the (real, imaginary) pairs of the gradient read as complex
    (PyTorch's ``view_as_complex(grad.contiguous())``)."""
    return "ViewAsRealBackward0", (x,), lambda g: (view_as_complex(g.contiguous()),), ()


@backward("view_as_complex")
def _view_as_complex_backward(out: Tensor, x: Tensor) -> Any:
    """ViewAsComplexBackward0: the complex gradient's (real, imaginary) pairs (PyTorch's
    ``view_as_real(grad.contiguous())``; written in PyTorch's convention for complex gradients)."""
    return "ViewAsComplexBackward0", (x,), lambda g: (view_as_real(g.contiguous()),), ()


@backward("angle")
def _angle_backward(out: Tensor, x: Tensor) -> Any:
    """PyTorch's angle_backward: ``g * x / |x|^2 * i`` (0 at 0) for a complex ``x``; for a real
    one ``zeros_like(x, preserve_format)``: +0 whatever ``g`` is (NaN too), and no history under
    ``create_graph`` (PyTorch's first derivative does not require grad)."""

    def grads(g: Tensor) -> tuple:
        if not x._dtype.is_complex:
            from ...creation import zeros_like  # (creation sits above the ops)
            return (zeros_like(x),)
        r2 = x.abs() ** 2
        return ((g * x / r2 * 1j).masked_fill(r2 == 0, 0),)

    return "AngleBackward0", (x,), grads, (x,)


# (Both rules are written as the other complex-result rules are, the holomorphic derivative
# ``g * dz/dx`` with the real part taken for a real input; autograd.function conjugates them into
# PyTorch's convention, which gives its formulas: real(g) and imag(g) for complex, and
# polar_backward's real(conj(g) * sgn(z)) and real(conj(g) * z * 1j).)
@backward("complex")
def _complex_backward(out: Tensor, real: Tensor, imag: Tensor) -> Any:
    """ComplexBackward0: ``z = real + 1j * imag``, so ``dz/dreal = 1``, ``dz/dimag = 1j`` (the
    engine sums the gradients to broadcast inputs). PyTorch's node saves both inputs (its formulas
    read neither, but writing one in place before backward raises there)."""
    return "ComplexBackward0", (real, imag), lambda g: (g.real, (g * 1j).real), (real, imag)


@backward("polar")
def _polar_backward(out: Tensor, abs: Tensor, angle: Tensor) -> Any:  # noqa: A002 - PyTorch's names
    """PolarBackward0 from the result ``z = abs * exp(1j * angle)``: ``dz/dabs = sgn(z)`` (PyTorch's
    choice at abs = 0: 0), ``dz/dangle = 1j * z``."""
    return "PolarBackward0", (abs, angle), lambda g: ((g * out.sgn()).real, (g * (out * 1j)).real), (out,)


def _conj_rule(name: str) -> Any:
    def rule(out: Tensor, x: Tensor) -> Any:
        if out is x:  # a real tensor's conj is the tensor itself: no node
            return None
        return name, (x,), lambda g: (g.conj(),), ()

    return rule


backward("conj")(_conj_rule("ConjBackward0"))
backward("conj_physical")(_conj_rule("ConjPhysicalBackward0"))


seal(globals())  # (last: this module's ops with a backward rule become their recording entries)


def _install_fronts(namespace: dict[str, Any]) -> None:
    """Put a compiled front (:mod:`.._support.front`) before the entries of ``complex`` and
    ``polar``: their call on two plain row-major tensors of one float32 / float64 dtype and shape
    (outside autograd, nobody listening) makes the fast path's compiled pass from C as a kernel
    entry into the fresh complex run (complex: ``interleave``, :func:`_parts_into`'s; polar:
    :func:`_polar_run`, :func:`_polar_fast`'s steps); its False answer, and every other call,
    goes to the entry."""
    k = native._compiled("_specialkernel")  # (the module itself: the front reads the switch per call)
    if k is None:
        return
    # (polar: the compiled polar_np, NumPy's own cos and sin loops called from C, where the build
    # has it: _polar_run's bits, at most _POLAR_NP_MAX elements; else _polar_run's NumPy calls)
    polar_np = getattr(k, "polar_np", None)
    runs = {"complex": (k.interleave, 1 << 62), "polar": (polar_np, _POLAR_NP_MAX) if polar_np else (_polar_run(k), 1 << 62)}
    for name, (run, max_n) in runs.items():
        table = {d: (None, None, 0, complex_of(d), False, None, kernel_entry(run, (), _COMPLEX_NP[d], max_n))
                 for d in (float32, float64)}
        namespace[name] = compiled_front(namespace[name], 2, table)
    _install_angle_front(namespace, k)
    _install_conj_front(namespace)


def _install_conj_front(namespace: dict[str, Any]) -> None:
    """A compiled front before ``conj``'s entry (the function and the method): a plain row-major
    complex tensor at offset 0 over exactly its elements (outside autograd, nobody listening)
    gets ``np.conjugate`` of its flat run adopted from C, as :func:`conj`'s own fast path does
    (the same call on the same run: the same copy); a real tensor, and every other call, goes to
    the entry (a real tensor's conj is the tensor itself)."""
    entry = namespace["conj"]
    front = compiled_front(entry, 1, {d: (np.conjugate, True, None) for d in (complex64, complex128)})
    if Tensor.__dict__.get("conj") is entry:
        Tensor.conj = front  # type: ignore[method-assign]
    namespace["conj"] = front


def _install_angle_front(namespace: dict[str, Any], k: Any) -> None:
    """A compiled front before ``angle``'s entry: a plain row-major complex tensor's call runs
    :func:`complex_angle`'s kernel call from C (complex64: PyTorch's split of SLEEF's and the C
    library's atan2f over one parallel chunk, ``angle_run``: ``run2`` without the part copies;
    complex128: the compiled ``complex_angle``); every other call goes to the entry."""
    from ...kernels.sleef import GRAIN_SIZE, step  # (complex_angle's own constants)

    sleef = native._compiled("_sleefkernel")
    table = {}
    if sleef is not None and hasattr(sleef, "angle_run"):
        st = 8 if step() else 0  # (angle_complex64's step: the AVX2 kernel's 2 * Vectorized<complex<float>>::size())
        table[complex64] = (None, True, float32,
                            kernel_entry(sleef.angle_run, (1 if st else 0, -1, st), np.float32, GRAIN_SIZE - 1))
    if hasattr(k, "complex_angle"):
        table[complex128] = (None, True, float64, kernel_entry(k.complex_angle, (), np.float64))
    entry = namespace["angle"]
    front = compiled_front(entry, 1, table)
    if Tensor.__dict__.get("angle") is entry:
        Tensor.angle = front  # type: ignore[method-assign]
    namespace["angle"] = front


_POLAR_NP_MAX = 2048  # (polar_np's scratch: its cosines and sines on the C stack)


def _polar_run(k: Any) -> Any:
    """:func:`_polar_fast`'s steps on two flat runs into the fresh complex run ``o``: NumPy's cos
    and sin of the angles, quietly, then the compiled ``polar_parts`` (False where it refuses)."""

    def run(x: np.ndarray, t: np.ndarray, o: np.ndarray) -> bool:
        try:  # (cos(inf) is NaN, quietly: fpstate.quietly, inlined)
            c = quiet_call(_cos, t)
            s = quiet_call(_sin, t)
        except RuntimeError as e:
            c = quiet_retry(e, _cos, t)
            s = quiet_retry(e, _sin, t)
        return k.polar_parts(x, c, s, o)

    return run


_install_fronts(globals())
# the kinds of this module's ops, in the op registry (after the seal: the forwards are the entries)
declare(Kind.VIEW, "real imag view_as_real view_as_complex resolve_conj resolve_neg adjoint")
declare(Kind.COPY, "conj conj_physical")
declare(Kind.COMPUTE, "angle polar complex isreal")
