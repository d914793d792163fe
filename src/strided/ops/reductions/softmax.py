"""softmax and log_softmax along one dim, numerically stable.

Contract (PyTorch 2.13): ``dim`` is required and is one int; float tensors only
(integer and bool tensors raise NotImplementedError, as PyTorch's kernels do)
unless ``dtype=`` names a float type, which the input is converted to first.
The result is a fresh contiguous tensor of the input's (or ``dtype``'s) type.
The maximum along ``dim`` is subtracted before exponentiating, so large
inputs do not overflow; float16 is computed in float32 and rounded once.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from ...callsite import user_site
from ...dispatch import OPEN, adopted, report, result_array
from ...dtypes import TORCH_NAME, float32, float64
from ...errors import StridedNotImplementedError, StridedTypeError, join_lines
from ...grad_mode import SUBCLASSES
from ...gradients import seal
from ...kernels import sleef
from ...kernels.blocked import copy_into
from ...kernels.fpstate import QUIET, quiet_reset, quiet_set, quietly
from ...kernels.fused import fma_into
from ...kernels.memory import numpy_view
from ...kernels.native import _compiled, special
from ...kernels.reduce import softmax_into
from ...lazy_names import function_on_first_call
from ...opdef import Kind, declare
from ...tensor import Tensor, tensor_arg
from .._support.fast_reduce import PLANS
from .._support.front import compiled_front, kernel_entry
from .._support.operands import _cinfo
from .._support.out import write_out
from .._support.reduce_args import numpy_axes, optional_dtype, reduction_dims
from ..registry import backward, method

# (helper modules only some calls need, loaded on first use: issue 23)
compiled_float32 = function_on_first_call("strided.kernels.softmax_dims", "compiled_float32", globals())
torch_order = function_on_first_call("strided.kernels.softmax_dims", "torch_order", globals())


def _fast_softmax(self: Any, dim: Any, log: bool) -> Tensor | None:
    """The fast path of a float32 / float64 tensor along an int ``dim`` with no ``dtype=``: the
    plan is a memo lookup (:data:`strided.ops._support.fast_reduce.PLANS`) and the computation is
    :func:`strided.kernels.reduce.softmax_into`'s, step for step in the input's dtype, its last
    step writing into its own work array when that is row-major; rows along a row-major last dim
    are :func:`strided.kernels.reduce.softmax_rows`'s compiled kernel, as there. None where it does not apply
    (the general path then runs, and raises PyTorch's errors)."""
    if (self.__class__ is not Tensor and self.__class__ not in SUBCLASSES) or dim.__class__ is not int:
        return None
    d = self._dtype
    if d is not float32 and d is not float64:
        return None
    lay = self._layout
    shape = lay.shape
    if shape and (dim == -1 or dim == len(shape) - 1):  # the compiled rows of a row-major tensor, as softmax_into
        info = _cinfo[shape]
        k = special()
        if k is not None and lay.strides == info[0] and info[1]:
            x = self._storage.array
            if lay.offset or len(x) != info[1]:  # (the storage's array itself where it is the run)
                x = x[lay.offset : lay.offset + info[1]]
            # (a tensor unpickled past its storage: the general path refuses it; an unaligned from_numpy
            # view: read from an aligned copy, as the kernel takes its buffers, for the same bits)
            if len(x) == info[1]:
                if not x.flags.aligned:
                    x = x.copy()
                out = _empty(info[1], d.numpy)
                k.softmax_rows(x, out, shape[-1], log)  # (True: a fresh out overlaps nothing)
                return adopted(out, info[2], d)
    elif d is float32 and not log and shape and -len(shape) <= dim < len(shape) - 1:
        # float32 softmax along another dim of a row-major tensor: PyTorch's _vec_softmax by the
        # compiled softmax_dims in one call ((16, 16) along dim 0: ~19.6 -> ~3 us)
        info = _cinfo[shape]
        if lay.strides == info[0] and info[1]:
            x = self._storage.array
            if lay.offset or len(x) != info[1]:
                x = x[lay.offset : lay.offset + info[1]]
            if len(x) == info[1]:
                a = dim % len(shape)
                inner = info[0][a]
                rows = compiled_float32(x, info[1] // (shape[a] * inner) if shape[a] else 0, shape[a], inner)
                if rows is not None:
                    return adopted(rows, info[2], d)
    plan = PLANS[(shape, lay.strides, dim, True)]
    if plan is None or not shape:
        return None
    axis = plan[0]
    x = numpy_view(self._storage, lay)
    rows = torch_order(x, axis, log)
    if rows is not None:
        return adopted(rows.reshape(-1), _cinfo[lay.shape][2], d)
    token = quiet_set(QUIET)
    try:
        top = _max_reduce(x, axis, None, None, True)
        shifted = np.subtract(x, top)  # the kernel's fresh work array, laid out as x
        # (the last step writes in place, in the work array's own order: NumPy's elementwise loop
        # writing a transposed order costs ~30x a contiguous one, 7 ms for 1M; then one blocked copy)
        if log:
            total = _add_reduce(np.exp(shifted), axis, None, None, True)
            np.subtract(shifted, np.log(total), out=shifted)
        else:
            np.exp(shifted, out=shifted)
            total = _add_reduce(shifted, axis, None, None, True)
            np.divide(shifted, total, out=shifted)
    finally:
        quiet_reset(token)
    out = shifted
    if not out.flags.c_contiguous:
        out = np.empty(lay.shape, d.numpy)
        copy_into(out, shifted)
    return adopted(out.reshape(-1), _cinfo[lay.shape][2], d)


_max_reduce, _add_reduce = np.maximum.reduce, np.add.reduce
_empty = np.empty


def _softmax(self: Tensor, dim: Any, dtype: Any, op: str, log: bool) -> Tensor:
    if dtype is None:
        t = _fast_softmax(self, dim, log)
        if t is not None:
            return report(op, (self,), t)
    tensor_arg(self, op)
    if dim is None:
        raise StridedTypeError(
            join_lines(
                f"{op}() missing 1 required positional arguments: \"dim\"",
                f"{op} normalizes along one dim; e.g. t.{op}(-1) for the last",
            )
        )
    dims = reduction_dims(self, dim, op, allow_tuple=False)
    assert dims is not None
    shape = self._layout.shape
    out_dtype = optional_dtype(dtype) or self._dtype
    if 0 in shape:  # Note: as PyTorch, an empty tensor skips the kernel, so any dtype passes
        return report(op, (self,), result_array(shape, out_dtype)[0])
    if not out_dtype.is_floating_point:
        last = "lastdim_" if (not shape or dims[0] == len(shape) - 1) else ""
        raise StridedNotImplementedError(
            join_lines(
                f'"{op}_{last}kernel_impl" not implemented for \'{TORCH_NAME[out_dtype.name]}\'',
                f"{op} needs a float tensor; fix: t.{op}({dim}, dtype=strided.float32)",
            )
        )
    out, out_np = result_array(shape, out_dtype)
    compute = np.dtype(np.float32) if out_dtype.itemsize < 4 else out_dtype.numpy
    axes = numpy_axes(dims, len(shape))
    x = self._np()
    if x.dtype.kind == "c":  # (a complex input with a float dtype=: PyTorch converts it first, the imaginary parts dropped)
        warnings.warn("Casting complex values to real discards the imaginary part", UserWarning, stacklevel=user_site()[1])
        x = x.real
    if not shape:  # a 0-d tensor: work on a (1,) view of it
        x, out_np, axes = x.reshape(1), out_np.reshape(1), (0,)
    softmax_into(x, axes, compute, out_np, log)
    return report(op, (self,), out)


@method("softmax")
def softmax(self: Tensor, dim: int | None = None, dtype: Any = None, *, out: Any = None) -> Tensor:
    """exp(x - max) / sum(exp(x - max)) along ``dim``; each slice sums to 1. ``out=`` (torch.softmax's):
    of the result's dtype exactly, resized as PyTorch's out= rules say.

    >>> strided.tensor([[0.0, 0.0], [0.0, 1e9]]).softmax(dim=1).tolist()
    [[0.5, 0.5], [0.0, 1.0]]
    """
    if out is not None:
        return write_out(out, _softmax(self, dim, dtype, "softmax", log=False), "softmax", (self,),
                         same_dtype="matmul")
    if dtype is None and (t := _fast_softmax(self, dim, False)) is not None:  # (_softmax's fast path, without its call)
        if OPEN:
            report("softmax", (self,), t)
        return t
    return _softmax(self, dim, dtype, "softmax", log=False)


def _softmax_dim(x: Tensor, dim: Any) -> int:
    n = len(x._layout.shape)
    if dim is None:  # PyTorch's deprecated implicit choice
        dim = 0 if n in (0, 1, 3) else 1
    return dim % n if n else 0


@backward("softmax")
def _softmax_backward(out: Tensor, x: Tensor, dim: Any = None, dtype: Any = None, **kwargs: Any) -> Any:
    """PyTorch's _softmax_backward_data: y * (g - sum(g * y, dim))."""
    d = _softmax_dim(x, dim)
    return "SoftmaxBackward0", (x,), lambda g: (_softmax_grad(out, d, g),), (out,)


def _softmax_grad(out: Tensor, d: int, g: Tensor) -> Tensor:
    """``out * (g - sum(g * out, d))``, as PyTorch computes it along a contiguous last dim
    (``_vec_host_softmax_backward_lastdim``) for a row-major float32/float64 ``out`` where nothing
    records (as :func:`_log_softmax_grad`): each row's sum of the rounded products ``g * out`` in
    ``vec::map2_reduce_all``'s order (:func:`_reduce_all_rows`; its multiply and add are not fused),
    then ``(g - sum) * out``. Before: a float32 (4, 64) gradient differed from PyTorch's in 77 of 256
    elements (an ulp; NumPy's pairwise sum), float64's in 92; after: none (tests/test_softmax39.py).
    A row whose sum is not finite (a NaN or an infinity met) keeps the recorded ops: which NaN comes
    out is theirs to choose."""
    lay = out._layout
    if (out._dtype is float32 or out._dtype is float64) and d == len(lay.shape) - 1 and not lay.offset \
            and g._dtype is out._dtype and not (g.requires_grad or out.requires_grad) \
            and lay.strides == _cinfo[lay.shape][0]:
        n = lay.shape[-1]
        y = numpy_view(out._storage, lay).reshape(math.prod(lay.shape[:-1]), n)
        gs = np.ascontiguousarray(numpy_view(g._storage, g._layout), y.dtype).reshape(y.shape)
        total = _reduce_all_rows(quietly(np.multiply, gs, y))
        if total is not None and bool(quietly(np.isfinite, total).all()):
            grad = np.subtract(gs, total)
            np.multiply(grad, y, out=grad)
            return adopted(grad.reshape(-1), lay, out._dtype)
    return out * (g - (g * out).sum(d, keepdim=True))


@method("log_softmax")
def log_softmax(self: Tensor, dim: int | None = None, dtype: Any = None, *, out: Any = None) -> Tensor:
    """(x - max) - log(sum(exp(x - max))) along ``dim``: the log of :func:`softmax`, computed stably;
    ``out=`` as softmax's.

    >>> strided.tensor([0.0, 0.0]).log_softmax(dim=0).tolist()
    [-0.6931471824645996, -0.6931471824645996]
    """
    if out is not None:
        return write_out(out, _softmax(self, dim, dtype, "log_softmax", log=True), "log_softmax", (self,),
                         same_dtype="matmul")
    if dtype is None and (t := _fast_softmax(self, dim, True)) is not None:  # (_softmax's fast path, without its call)
        if OPEN:
            report("log_softmax", (self,), t)
        return t
    return _softmax(self, dim, dtype, "log_softmax", log=True)


def _log_softmax_fresh(self: Any, dim: Any = None, dtype: Any = None) -> Tensor | None:
    """log_softmax's fresh fast path for its entry (:func:`strided.grad_mode.track`'s ``__fresh__``):
    :func:`_fast_softmax`'s result (pure NumPy or the compiled rows, fresh memory) where it applies
    and no ``dtype=`` is given, else None (the forward's own steps)."""
    return _fast_softmax(self, dim, True) if dtype is None else None


log_softmax.__fresh__ = _log_softmax_fresh  # type: ignore[attr-defined]


@backward("log_softmax")
def _log_softmax_backward(out: Tensor, x: Tensor, dim: Any = None, dtype: Any = None, **kwargs: Any) -> Any:
    """PyTorch's _log_softmax_backward_data: g - exp(y) * sum(g, dim)."""
    d = _softmax_dim(x, dim)
    return "LogSoftmaxBackward0", (x,), lambda g: (_log_softmax_grad(out, d, g),), (out,)


def _log_softmax_grad(out: Tensor, d: int, g: Tensor) -> Tensor:
    """``g - exp(out) * sum(g, d)``, as PyTorch computes it along a contiguous last dim
    (``_vec_host_softmax_backward_lastdim``) for a row-major float32/float64 ``out`` where nothing
    records (``g`` and ``out`` not requiring grad; a double backward keeps the recorded ops): its
    ``Vectorized::exp`` over whole rows (a partial vector at the tail) is SLEEF's expf/expd at
    every element, not ``exp``'s kernel (MKL's, which ``Tensor.exp`` approximates), and its
    ``x - y.exp() * Vec(sum)`` is compiled into one fused multiply-add. Before: cross_entropy's
    float32 (128, 10) gradient differed from PyTorch's in 117 of 1280 elements (an ulp), float64's
    in 84; after: none. The row sum is ``vec::reduce_all``'s (:func:`_reduce_all_rows`, under
    the AVX512 or AVX2 capability)."""
    lay = out._layout
    if (out._dtype is float32 or out._dtype is float64) and d == len(lay.shape) - 1 and not lay.offset \
            and g._dtype is out._dtype and not (g.requires_grad or out.requires_grad) \
            and lay.strides == _cinfo[lay.shape][0]:
        e = sleef.torch_loop(numpy_view(out._storage, lay), sleef.EXP)
        if e is not None:
            gs = np.ascontiguousarray(numpy_view(g._storage, g._layout), e.dtype).reshape(-1)
            rows = gs.reshape(math.prod(lay.shape[:-1]), lay.shape[-1])  # (d is the last dim: one at least)
            total = _reduce_all_rows(rows)
            if total is None:
                t = g.sum(d, keepdim=True)
                total = numpy_view(t._storage, t._layout).reshape(-1, 1)
            probe = float(np.add.reduce(total, axis=None)) + float(np.add.reduce(e, axis=None))
            if probe != probe:
                # (a NaN among the sums or the exponentials (or sums of infinities of both signs, harmless):
                # which NaN comes out, its sign included, is the recorded ops' choice, as PyTorch's; the
                # fused form below would negate the sum's)
                return g - out.exp() * g.sum(d, keepdim=True)
            scale = np.empty(rows.shape, e.dtype)
            np.negative(total, out=scale)  # (each row's -sum along it; broadcast_to's call is dearer)
            grad = np.empty(e.size, e.dtype)
            quietly(fma_into, scale.reshape(-1), np.ascontiguousarray(e).reshape(-1), gs, grad)  # (fma32/fma64: one rounding)
            return adopted(grad, lay, out._dtype)
    return g - out.exp() * g.sum(d, keepdim=True)


def _reduce_all_rows(rows: np.ndarray) -> np.ndarray | None:
    """Each row's sum (an ``(R, 1)`` array) in ``vec::reduce_all``'s order under PyTorch's AVX512
    or AVX2 capability (:func:`sleef.step`: 32 or 16, twice the float32 lanes): a row shorter than
    a vector (16 float32, 8 float64 lanes; under AVX2 8 and 4) left to right; else lane-wise sums of
    its whole vectors, its tail added into the first lanes, then the lanes reduced: float32 by
    ``vec_reduce_all``'s halvings (AVX512: lane ``i`` plus lane ``i + 8``, then ``+ 4``, ``+ 2``,
    ``+ 1``; AVX2's shuffles the same from ``+ 4``), float64 left to right (the generic form).
    None under another (``ATEN_CPU_CAPABILITY=default``, no SLEEF kernel here): the caller's sum."""
    float32_step = sleef.step()
    if not float32_step:
        return None
    n, lanes = rows.shape[1], 2 * float32_step // rows.itemsize  # (bytes a vector: 4 * step / 2)
    if n == 0:
        return np.zeros((rows.shape[0], 1), rows.dtype)
    if n < lanes:  # (np.add.accumulate adds left to right, in the rows' dtype)
        return np.add.accumulate(rows, axis=1)[:, -1:]
    acc = rows[:, :lanes].copy()
    whole = n - n % lanes
    for start in range(lanes, whole, lanes):
        acc += rows[:, start : start + lanes]
    if whole < n:
        acc[:, : n - whole] += rows[:, whole:]
    if rows.dtype == np.float32:
        half = lanes // 2
        while half:
            acc = acc[:, :half] + acc[:, half : 2 * half]
            half //= 2
        return acc
    return np.add.accumulate(acc, axis=1)[:, -1:]


seal(globals())  # (last: this module's ops with a backward rule become their recording entries)


def _install_fronts(namespace: dict[str, Any]) -> None:
    """Put a compiled front (:mod:`.._support.front`) before the entries of ``softmax`` and
    ``log_softmax``: ``x.softmax(dim)`` of a plain row-major float32 / float64 tensor with
    elements along its last dim (``dim`` -1 or ndim - 1, positional or keyword; no dtype),
    outside autograd with nobody listening, makes :func:`_fast_softmax`'s compiled
    ``softmax_rows`` call from C (a last-dim entry); every other call goes to the entry."""
    k = _compiled("_specialkernel")  # (the module itself: the front reads the switch per call)
    if k is None:
        return
    for name, log in (("softmax", False), ("log_softmax", True)):
        entry = namespace[name]
        front = compiled_front(entry, 2, {d: (None, True, None, kernel_entry(k.softmax_rows, (log,), d.numpy))
                                          for d in (float32, float64)})
        if Tensor.__dict__.get(name) is entry:
            setattr(Tensor, name, front)
        namespace[name] = front


_install_fronts(globals())
# the kinds of this module's ops, in the op registry (after the seal: the forwards are the entries)
declare(Kind.COMPUTE, "softmax log_softmax")
