"""The norms of ``strided.linalg``: ``vector_norm``, ``matrix_norm`` and ``linalg_norm``
(``torch.linalg.norm``, which dispatches to the two), PyTorch 2.13's semantics, NumPy's ``linalg``
doing the work, each op beside its backward rule.

They take float tensors only, read the input in place (any strides), and return a fresh
contiguous tensor of the input's dtype (or ``dtype=``).

>>> strided.linalg.vector_norm(strided.tensor([3.0, 4.0])).item()
5.0
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...dispatch import OPEN, adopted, result, result_array
from ...dtypes import DType, float32, float64, real_of
from ...errors import StridedRuntimeError, StridedTypeError, join_lines
from ...gradients import seal
from ...kernels import native
from ...kernels.elementwise import complex_abs
from ...kernels.fpstate import QUIET, quiet_reset, quiet_set, quietly
from ...kernels.memory import dense_run, numpy_view
from ...kernels.reduce import euclidean_norms
from ...kernels.torch_loops import GRAIN_SIZE, parallel_chunks, torch_threads
from ...lazy_names import function_on_first_call
from ...opdef import Kind, declare
from ...tensor import Tensor, tensor_arg
from .._support.fast_reduce import fast_operand
from .._support.operands import _cinfo, flat_run
from .._support.out import write_out
from .._support.reduce_args import numpy_axes, optional_dtype, reduced_shape, reduction_dims, shape_text
from ..reductions.nan_reductions import _acc, _float_only, _Quiet

# (PyTorch's summation orders: loaded on the first reduction that needs one; see strided.lazy_names.function_on_first_call)
iterator_dims = function_on_first_call("strided.kernels.torch_sum", "iterator_dims", globals())
norm2_rows = function_on_first_call("strided.kernels.torch_sum", "norm2_rows", globals())
sum_array = function_on_first_call("strided.kernels.torch_sum", "sum_array", globals())

__all__ = ["linalg_norm", "matrix_norm", "vector_norm"]


def _input_dtype(x: Any, dtype: Any, op: str, complex_ok: bool = False) -> DType | None:
    """The ``dtype=`` given (None when absent), after checking ``x`` is a tensor; without a dtype
    the input must be floating point (or complex, with ``complex_ok``: PyTorch's linalg error)."""
    tensor_arg(x, op)
    given = optional_dtype(dtype)
    if given is None:
        _float_only(x, op, style="linalg", complex_ok=complex_ok)
    return given


def _check_norm_dtype(x: Tensor, given: DType, op: str) -> None:
    """PyTorch's checks of vector_norm's ``dtype=``, in its order: the input floating point or
    complex, then a float or complex dtype, complex exactly for a complex input, and no narrower
    than the input's (the dtype the input converts to, without losing range or precision)."""
    from .._support.promotion import TORCH_NAMES, promote_types

    _float_only(x, op, style="linalg", complex_ok=True)
    d, name, have = x._dtype, TORCH_NAMES[given], x._dtype.name
    if not (given.is_floating_point or given.is_complex):
        first = f"{op}: dtype should be floating point or complex, but got {name}"
        why = f"dtype={given.name} was asked for; a norm is computed and returned in a float or complex dtype"
    elif d.is_complex != given.is_complex:
        first = (f"{op}: dtype should be {'complex' if d.is_complex else 'real'} for "
                 f"{'complex' if d.is_complex else 'real'} inputs, but got {name}")
        why = f"the input of shape {x.shape} is {have} and dtype={given.name} was asked for"
    elif promote_types(d, given) is not given:
        first = (f"{op}: the dtype of the input ({TORCH_NAMES[d]}) should be convertible without narrowing "
                 f"to the specified dtype ({name})")
        why = f"the input of shape {x.shape} is {have}; {given.name} is narrower"
    else:
        return
    raise StridedRuntimeError(join_lines(first, why, f"fix: dtype=strided.{have} (the input's own, as without dtype=) "
                                         "or a wider dtype of its kind"))


def _ord_value(ord: Any, op: str) -> float:
    if isinstance(ord, bool) or not isinstance(ord, (int, float, np.integer, np.floating)):
        raise StridedTypeError(
            join_lines(
                f"{op}(): argument 'ord' must be Number, not {type(ord).__name__}",
                "ord is a number: 2 (Euclidean), 1, inf, -inf, 0 (count of nonzeros) or any real p",
            )
        )
    return float(ord)


_NUMBER = (int, float)


_SCALAR = _cinfo[()][2]  # (the row-major layout of a 0-d result)


def fast_euclidean(x: Any, dim: Any, keepdim: Any) -> Tensor | None:
    """The 2-norm of a float32 / float64 tensor over every dim or one int dim (no ``dtype=``):
    :func:`vector_norm`'s NumPy calls on the same view (|x|, squared in place, summed, the root
    in place), their fresh result adopted, the parsing a memo lookup
    (:func:`strided.ops._support.fast_reduce.fast_plan`); None where the general path must run.

    >>> fast_euclidean(strided.tensor([[3.0, 4.0]]), 1, False).tolist()
    [5.0]
    """
    if dim is None and keepdim is False and x.__class__ is Tensor and (x._dtype is float32 or x._dtype is float64):
        # (the common call, a row-major tensor's whole norm: fast_operand's flat run and plan
        # inlined -- its plan: every dim, the 0-d result, all the elements -- then the rows' call below)
        lay = x._layout
        info = _cinfo[lay.shape]
        if info[1] > 1 and lay.strides == info[0]:
            run = x._storage.array
            if lay.offset or len(run) != info[1]:
                run = run[lay.offset : lay.offset + info[1]]
        else:  # (a transpose: its run in memory order, the order PyTorch's iterator coalesces it to)
            dense = dense_run(x, info[1]) if info[1] > 1 else None
            run = None if dense is None else dense[0]
        if run is not None:
            if len(run) == info[1]:
                k = native.special()
                if k is not None:  # (norm2_rows' compiled call on the one row; False: a strided or misaligned run)
                    out = np.empty(1, run.dtype)
                    if k.torch_norm2_rows(run, out, info[1]):
                        return adopted(out, _SCALAR, x._dtype)
                if run.flags.c_contiguous:
                    return adopted(norm2_rows(run.reshape(1, -1)), _SCALAR, x._dtype)
    got = fast_operand(x, dim, keepdim)
    if got is None:
        return None
    a, plan = got
    if plan[2] != 1:
        # (a row-major operand's rows, or its whole run: PyTorch's last-dim kernel on them straight
        # -- _torch_norm2's rows are these -- without its layout analysis, ~4 us small)
        if a.flags.c_contiguous and (plan[0] is None or plan[0] == a.ndim - 1):
            return adopted(norm2_rows(a.reshape(-1, plan[2])), plan[1], x._dtype)
        if plan[0] == 0 and a.ndim == 2 and a.flags.f_contiguous:
            # (a transposed matrix's columns: its memory rows, _torch_norm2's run without its analysis)
            return adopted(norm2_rows(a.T), plan[1], x._dtype)
        token = quiet_set(QUIET)
        try:
            r = _torch_norm2(a, tuple(range(a.ndim)) if plan[0] is None else (plan[0],))
        finally:
            quiet_reset(token)
        if r is not None:  # (PyTorch's order: its last-dim kernel or its generic sequential one)
            return adopted(r.reshape(-1), plan[1], x._dtype)
        if _expanded_reduced(a, plan[0]):  # (a stride-0 reduced dim: PyTorch's generic serial order)
            res = np.empty(plan[1].shape, a.dtype)
            if _torch_general_norm(x, None if plan[0] is None else (plan[0],), keepdim, 2.0, res):
                return adopted(res.reshape(-1), plan[1], x._dtype)
            return None  # (no compiled kernel: vector_norm's general path)
    if plan[2] != 1:  # (the compiled pass: these NumPy calls' bits, without their two work arrays)
        r = euclidean_norms(a, plan[0])
        if r is not None:
            return adopted(r.reshape(-1), plan[1], x._dtype)
    if plan[2] == 1 and dim is not None and not x._layout.shape:
        return None  # (a 0-d tensor over an explicit dim: the plain formula, vector_norm's own path)
    token = quiet_set(QUIET)
    try:
        r = a = np.abs(a)
        if plan[2] != 1:  # (one element per norm: PyTorch returns |x|, with no square to overflow)
            np.multiply(a, a, out=a)
            r = _add_reduce(a, plan[0], None, None, True)
            np.sqrt(r, out=r)
    finally:
        quiet_reset(token)
    return adopted(r.reshape(-1), plan[1], x._dtype)


def _expanded_reduced(a: np.ndarray, axis: int | None) -> bool:
    """Whether ``a`` reduced over ``axis`` (None: every axis) reads an element more than once: a
    reduced axis of size > 1 with stride 0 (an expanded tensor). PyTorch's iterator keeps such an
    axis (it neither sorts by nor coalesces a 0 stride), so its generic kernel sums serially in
    :func:`strided.kernels.torch_sum.iterator_dims`' order -- not NumPy's pairwise sum."""
    axes = range(a.ndim) if axis is None else (axis,)
    return any(a.strides[ax] == 0 and a.shape[ax] > 1 for ax in axes)


_GRAIN = 32768  # (at::internal::GRAIN_SIZE: above it PyTorch's generic reduction may split a sum)


def _torch_norm2(a: np.ndarray, axes: tuple[int, ...]) -> np.ndarray | None:
    """PyTorch's CPU 2-norm bits of the real float32/float64 array ``a`` (the tensor's own view:
    its strides are PyTorch's) over ``axes``, the reduced axes dropped; None where strided does
    not follow PyTorch's order (the caller's NumPy sum then: pairwise, ~75% bit-equal):

    - the reduced dims one contiguous run (PyTorch's reduction iterator coalesces them into one,
      innermost, unit stride: ``vector_norm(x)`` of a dense tensor, ``dim=-1``, a dense matrix's
      Frobenius norm): its last-dim kernel, :func:`strided.kernels.torch_sum.norm2_rows`;
    - one strided reduced dim, fewer than 32768 elements: its generic kernel's sequential
      ``acc + x * x`` along the dim (``NormTwoOps``), the square root in the dtype."""
    if a.dtype not in (np.float32, np.float64) or not axes or not a.size:
        return None
    shape, strides = a.shape, a.strides
    axes = tuple(ax % a.ndim for ax in axes)
    red = sorted((ax for ax in axes if shape[ax] != 1), key=lambda ax: strides[ax])
    kept = [ax for ax in range(a.ndim) if ax not in axes]
    if not red or any(strides[ax] <= 0 for ax in red):
        return None
    out_shape = tuple(shape[ax] for ax in kept)
    run = strides[red[0]] == a.itemsize
    for lo, hi in zip(red, red[1:]):
        run = run and strides[hi] == strides[lo] * shape[lo]
    if run:
        count = math.prod(shape[ax] for ax in red)
        rows = a.transpose(kept + [ax for ax in axes if shape[ax] == 1] + red[::-1]).reshape(-1, count)
        return norm2_rows(rows).reshape(out_shape)
    if len(red) == 1 and a.size < _GRAIN:
        squares = np.multiply(a, a)
        total = np.take(np.add.accumulate(squares, axis=red[0]), -1, axis=red[0])
        return np.sqrt(total).reshape(out_shape)
    return None


_add_reduce = np.add.reduce  # (array, axis, dtype, out, keepdims): positional

_FAST = frozenset({float32, float64})
_np_empty = np.empty  # (matrix_norm's fast path's allocation: one global read)


def _frobenius(a: np.ndarray) -> Any:
    """matrix_norm's "fro" over the last two axes as ``np.linalg.norm`` computes it (NumPy's own
    expression, ``sqrt(add.reduce((x.conj() * x).real, axis))``: for real floats ``x.conj()`` is
    ``x``), for a non-empty float32/float64 array."""
    if a.shape[-1] == 1 and a.shape[-2] == 1:  # 1x1 matrices: PyTorch's vector norm of one element, |a|
        return np.abs(a[..., 0, 0])
    return np.sqrt(np.add.reduce(a * a, axis=(-2, -1)))


def _compiled_frobenius(A: Tensor, shape: tuple[int, ...]) -> np.ndarray | None:  # noqa: N803
    """:func:`_frobenius` of a float32/float64 ``A`` with non-empty matrices by the compiled
    :func:`strided.kernels.reduce.euclidean_norms` (no |a|: NumPy's ``x * x``), the norms as an
    array of ``shape[:-2]``: one matrix in any dense layout (its reduction is over every element,
    which NumPy walks in memory order), a row-major batch (each matrix one run); None otherwise
    (1x1 matrices, other layouts, no kernel: the caller's NumPy path)."""
    if shape[-1] == 1 and shape[-2] == 1:
        return None
    if len(shape) == 2:
        r = euclidean_norms(numpy_view(A._storage, A._layout), None, absolute=False)
    else:
        flat = flat_run(A, _cinfo[shape])
        if flat is None:
            return None
        r = euclidean_norms(flat.reshape(-1, shape[-2] * shape[-1]), 1, absolute=False)
    return None if r is None else r.reshape(shape[:-2])


def _into_new(shape: tuple[int, ...], dtype: DType, values: Any) -> Tensor:
    """A fresh contiguous ``dtype`` tensor of ``shape`` holding ``values`` (of that dtype)."""
    out = result(shape, dtype)
    out._storage.array[...] = values if shape == () else values.reshape(-1)
    return out


def vector_norm(x: Tensor, ord: Any = 2, dim: Any = None, keepdim: bool = False, *, dtype: Any = None,
                out: Any = None) -> Tensor:
    """The ``ord``-norm of ``x`` over ``dim`` (None: every element, as one vector).

    ord: 2 (default) sqrt(sum |x|^2); 1 sum |x|; inf max |x|; -inf min |x|; 0 the number of
    nonzeros; other p (sum |x|^p)^(1/p). ``dtype`` converts before computing.
    Empty input: 0 for ord >= 0 (inf and -inf and negative ord are refused: no identity).

    >>> strided.linalg.vector_norm(strided.tensor([3.0, -4.0])).item()
    5.0
    """
    if out is not None:  # (PyTorch's out= takes only the result's dtype)
        return write_out(out, vector_norm(x, ord, dim, keepdim, dtype=dtype),
                         "linalg.vector_norm", (x, ord, dim, keepdim), "matmul")
    if dtype is None and ord.__class__ in _NUMBER and ord == 2:
        fast = fast_euclidean(x, dim, keepdim)
        if fast is not None:
            return fast
    op = "linalg.vector_norm"
    given = _input_dtype(x, dtype, op, complex_ok=True)
    if given is not None:
        _check_norm_dtype(x, given, op)
    p = _ord_value(ord, op)
    dims = reduction_dims(x, dim, op)
    shape = x._layout.shape
    count = x.numel() if dims is None else math.prod(shape[d] for d in dims) if shape else x.numel()
    if count == 0 and (p < 0 or math.isinf(p)):
        raise StridedRuntimeError(
            join_lines(
                f"linalg.vector_norm cannot compute the {ord} norm on an empty tensor because the operation "
                "does not have an identity",
                f"the tensor has shape {shape_text(shape)}; use ord >= 0, or reduce over non-empty dims",
            )
        )
    rt = real_of(given or x._dtype)  # (the norm of a complex tensor is real: complex64 -> float32)
    result, res_np = result_array(reduced_shape(shape, dims, keepdim), rt)
    axes = numpy_axes(dims, len(shape))
    acc = _acc(rt)
    if count > 1 and not (p == 2 or p == 0 or math.isinf(p)) and (
            p != 1 or count <= _SERIAL_ONE or count < x.numel()):
        # (p == 1 over one long run stays NumPy's pairwise sum, within an ulp or so of PyTorch's: its
        # serial sum is a chain of dependent adds, ~3x slower, 1M float32 ~0.9 ms against ~0.28)
        with _Quiet():
            # (NormOps' serial sums, not NumPy's pairwise ones; dtype= converts first, as self.to(dtype))
            converted = None if given is None or given is x._dtype else _converted(x, given)
            if x._dtype.is_complex and (given is None or given is x._dtype):
                converted = _abs_of(x)
            if (given is None or given is x._dtype or converted is not None) and \
                    _torch_general_norm(x, dims, keepdim, p, res_np, converted):
                return result
    with _Quiet():
        # (a complex input converts to dtype= first, as PyTorch: |z| of complex128 does not overflow)
        # (|z| is complex_abs, the one the backward's inf-norm tie mask takes through x.abs())
        a = (complex_abs(x._np().astype((given or x._dtype).numpy, copy=False)) if x._dtype.is_complex
             else np.abs(x._np().astype(acc, copy=False))).astype(acc, copy=False)
        if count == 1 and p != 0 and not shape and dims is not None:
            r = _zero_d_norm(a, p)
        elif count == 1 and p != 0:  # one element per norm: PyTorch returns |x|, for every ord but 0
            r = a.reshape(res_np.shape)  # (the reduced dims all have size 1: the same order)
        elif p == 2:
            torch_order = None if x._dtype.is_complex or (given is not None and given is not x._dtype) else \
                _torch_norm2(x._np(), tuple(range(len(shape))) if axes is None else tuple(axes))
            if torch_order is not None:
                r = torch_order.reshape(res_np.shape)
            elif (given is None or given is x._dtype) and \
                    _torch_general_norm(x, dims, keepdim, 2.0, res_np, _abs_of(x) if x._dtype.is_complex else None):
                return result  # (NormTwoOps' serial sums: reduced dims that do not make one run, or complex)
            else:
                r = np.sqrt(np.add.reduce(a * a, axis=axes, keepdims=keepdim))
        elif p == 1:
            r = np.add.reduce(a, axis=axes, keepdims=keepdim)
        elif p == math.inf:
            r = np.maximum.reduce(a, axis=axes, keepdims=keepdim)
        elif p == -math.inf:
            r = np.minimum.reduce(a, axis=axes, keepdims=keepdim)
        elif p == 0:
            r = np.add.reduce(a != 0, axis=axes, keepdims=keepdim, dtype=acc)
        else:
            r = np.power(np.add.reduce(np.power(a, acc.type(p)), axis=axes, keepdims=keepdim), acc.type(1.0 / p))
        np.copyto(res_np, r, casting="unsafe")
    return result


def _zero_d_norm(a: np.ndarray, p: float) -> np.ndarray:
    """The ``p``-norm (``p != 0``) of a 0-d tensor over an explicit dim (0, -1, [0]) from ``a``, its
    |x| in the accumulation dtype: PyTorch reduces it as it reduces any run, by the plain formula
    -- sqrt(|x| * |x|) (1e38 float32 -> inf), (|x|^p)^(1/p) with the C library's pow (1e-45 ** 3
    -> 0) -- where over every dim (dim=None or ()) or for any one-element run of a tensor with
    dims it returns |x| itself."""
    if p == 2:
        return np.sqrt(a * a)
    if p == 1 or math.isinf(p):
        return a
    k = native.special()
    out = np.empty(1, a.dtype)
    if k is not None and a.dtype in _F32_F64 and k.norm_p_rows(a.reshape(1, 1), float(p), out, 1):
        return out.reshape(())
    return np.power(np.power(a, a.dtype.type(p)), a.dtype.type(1.0 / p))  # (NumPy's pow: maybe an ulp off)


def _torch_general_norm(x: Tensor, dims: tuple[int, ...] | None, keepdim: bool, p: float, res_np: np.ndarray,
                        converted: np.ndarray | None = None) -> bool:
    """PyTorch's vector norm of a general order ``p`` (or 1) of a float32/float64 ``x`` written into
    ``res_np``, bit for bit: NormOps (NormOneOps) in binary_kernel_reduce, each output's elements in
    TensorIterator's order (:func:`strided.kernels.torch_sum.iterator_dims`: reduced dims
    innermost, by stride), ``acc += pow(|x|, p)`` (``|x|``) in the element type with the C
    library's pow, then ``pow(acc, 1 / p)`` (the sum); one output of 32768 elements or more cut as at::parallel_for cuts it
    (:func:`strided.kernels.torch_loops.torch_threads` threads assumed). The compiled
    ``norm_p_rows``; False (nothing written) where it is not built or ``x`` is of another dtype.
    ``converted``: ``x`` converted to ``dtype=`` (PyTorch's ``self.to(dtype)``, laid out as ``x``
    where ``x`` is dense), read in its place."""
    k = native.special()
    dt = x._dtype.numpy if converted is None else converted.dtype
    if k is None or dt not in _F32_F64 or res_np.size == 0 or 0 in x._layout.shape:  # (empty: the general path)
        return False
    shape = x._layout.shape
    strides = x._layout.strides if converted is None else tuple(st // dt.itemsize for st in converted.strides)
    reduced = tuple(dims is None or d in dims for d in range(len(shape)))
    sizes, ins, outs = iterator_dims(shape, strides, reduced, keepdim)
    inner = next((i for i, o in enumerate(outs) if o != 0), len(outs))  # (the reduced dims: the first, fastest)
    count = math.prod(sizes[:inner])
    kept = sizes[inner:][::-1]
    itemsize = dt.itemsize
    if inner == 1 and len(kept) <= 1:  # (one reduced dim, at most one kept: the 2-D view itself)
        rows = _view(x, converted, (kept[0] if kept else 1, count),
                     ((ins[1] if kept else 0) * itemsize, ins[0] * itemsize))
    else:  # (slowest first, so that a row-major copy puts each output's elements in a row, in PyTorch's order)
        ordered = _view(x, converted, sizes[::-1], tuple(st * itemsize for st in ins[::-1]))
        rows = np.ascontiguousarray(ordered).reshape(-1, count)
    norms = np.empty(rows.shape[0], dt)
    chunks = parallel_chunks(count, torch_threads()) if rows.shape[0] == 1 and count >= GRAIN_SIZE else 1
    if not k.norm_p_rows(rows, float(p), norms, chunks):
        return False
    # (each norm to its place: the output strides of the kept dims, in elements of the result)
    target = np.ndarray(kept, res_np.dtype, res_np, 0, tuple(st * res_np.itemsize for st in outs[inner:][::-1]))
    np.copyto(target, norms.reshape(kept), casting="unsafe")
    return True


def _converted(x: Tensor, given: DType) -> np.ndarray | None:
    """PyTorch's ``x.to(given)`` of a real float ``x`` as an array (a dense ``x``'s layout kept, as
    NumPy's order "K" keeps it); None for a complex one or a non-float target."""
    if x._dtype.is_complex or not x._dtype.is_floating_point or given.numpy not in _F32_F64:
        return None
    return x._np().astype(given.numpy, order="K")


def _abs_of(x: Tensor) -> np.ndarray:
    """``|x|`` of a complex ``x`` (complex_abs: the C library's hypot, PyTorch's ``std::abs`` in its
    complex NormOps, whose sums run serially in its parts' dtype: no vectorized norm for complex),
    laid out as ``x`` (NumPy's order "K"): the ``converted`` operand :func:`_torch_general_norm` reads."""
    z = x._np()
    out = np.empty_like(z, dtype=z.real.dtype)
    complex_abs(z, out)
    return out


def _view(x: Tensor, converted: np.ndarray | None, shape: tuple[int, ...], strides: tuple[int, ...]) -> np.ndarray:
    """A view (byte ``strides``) of ``x``'s storage from its offset, or of ``converted`` from its start."""
    if converted is None:
        return np.ndarray(shape, x._dtype.numpy, x._storage.array, x._layout.offset * x._dtype.itemsize, strides)
    return np.lib.stride_tricks.as_strided(converted, shape, strides, writeable=False)


_F32_F64 = (np.dtype(np.float32), np.dtype(np.float64))
_SERIAL_ONE = 8192  # (the longest single sum of |x| taken serially, PyTorch's bits: ~8 us)


_MATRIX_ORDS = ("fro", "nuc", math.inf, -math.inf, 1, -1, 2, -2)


def matrix_norm(A: Tensor, ord: Any = "fro", dim: Any = (-2, -1), keepdim: bool = False, *,  # noqa: N803
                dtype: Any = None, out: Any = None) -> Tensor:
    """A matrix norm over the two dims ``dim`` (the last two by default), batched over the rest.

    ord: "fro" (default) sqrt(sum |a|^2); "nuc" the sum of singular values; 2 / -2 the largest /
    smallest singular value; 1 / -1 the max / min column sum of |a|; inf / -inf the max / min
    row sum of |a|. NumPy's ``linalg.norm`` computes them.

    >>> strided.linalg.matrix_norm(strided.tensor([[3.0, 0.0], [0.0, 4.0]]), ord=2).item()
    4.0
    """
    if out is not None:  # (PyTorch's out= takes only the result's dtype)
        return write_out(out, matrix_norm(A, ord, dim, keepdim, dtype=dtype),
                         "linalg.matrix_norm", (A, ord, dim, keepdim), "matrix_norm")
    if (ord.__class__ is str and ord == "fro" and keepdim is False and dtype is None and A.__class__ is Tensor and A._dtype in _FAST
            and dim.__class__ is tuple and dim == (-2, -1)):
        shape = A._layout.shape
        if len(shape) >= 2 and shape[-1] and shape[-2] and (shape[-1] != 1 or shape[-2] != 1):
            flat = flat_run(A, _cinfo[shape])
            if flat is not None:  # (row-major matrices: each one run, _torch_norm2's rows, straight)
                size = shape[-2] * shape[-1]
                # (norm2_rows' compiled call on the flat run itself, its rows counted by size; where
                # it declines (memory misaligned for its items), norm2_rows copies it, as before)
                if (k := native.special()) is not None and len(flat) and k.torch_norm2_rows(
                        flat, norms := _np_empty(len(flat) // size, flat.dtype), size):
                    return adopted(norms, _cinfo[shape[:-2]][2], A._dtype)
                norms = norm2_rows(flat.reshape(-1, size))
                return adopted(norms, _cinfo[shape[:-2]][2], A._dtype)
            # (one permuted dense matrix, a transpose: its storage run in memory order is the one
            # run _torch_norm2 finds, here without its axis sorting and views)
            found = dense_run(A, shape[0] * shape[1]) if len(shape) == 2 else None
            if found is not None:
                return adopted(norm2_rows(found[0].reshape(1, -1)), _cinfo[()][2], A._dtype)
            view = numpy_view(A._storage, A._layout)
            r = quietly(_torch_norm2, view, (-2, -1))
            if r is not None:  # (PyTorch's order: a dense matrix is one run for its last-dim kernel)
                return _into_new(shape[:-2], A._dtype, r)
        if len(shape) >= 2 and shape[-1] and shape[-2]:
            r = _compiled_frobenius(A, shape)
            if r is not None:
                return _into_new(shape[:-2], A._dtype, r)
            flat = flat_run(A, _cinfo[shape])
            if flat is not None:  # the common call: Frobenius norms of row-major float matrices
                return _into_new(shape[:-2], A._dtype, quietly(_frobenius, flat.reshape(shape)))
    op = "linalg.matrix_norm"
    given = _input_dtype(A, dtype, op, complex_ok=True)
    if given is not None:
        _check_norm_dtype(A, given, op)
    if A.ndim < 2:
        raise StridedRuntimeError(
            join_lines(
                "linalg.matrix_norm: The input tensor A must have at least 2 dimensions.",
                f"A has shape {shape_text(A.shape)}; for a vector use strided.linalg.vector_norm",
            )
        )
    if isinstance(ord, str):
        if ord not in ("fro", "nuc"):
            raise StridedRuntimeError(
                join_lines(f"linalg.matrix_norm: Order {ord} not supported.",
                           "ord is 'fro', 'nuc', 1, -1, 2, -2, inf or -inf")
            )
    elif isinstance(ord, bool) or not isinstance(ord, (int, float)) or ord not in _MATRIX_ORDS:
        raise StridedRuntimeError(
            join_lines(f"linalg.matrix_norm: Order {ord} not supported.",
                       "ord is 'fro', 'nuc', 1, -1, 2, -2, inf or -inf")
        )
    if not isinstance(dim, (tuple, list)) or len(dim) != 2:
        raise StridedRuntimeError(
            join_lines(
                "linalg.matrix_norm: dim must be a 2-tuple. Got "
                + (" ".join(str(d) for d in dim) if isinstance(dim, (tuple, list)) else str(dim)),
                "name the two dims of the matrices, e.g. dim=(-2, -1)",
            )
        )
    dims = reduction_dims(A, tuple(dim), op)
    assert dims is not None
    shape = A._layout.shape
    if ord not in ("fro",) and any(shape[d] == 0 for d in dims) and ord not in ("nuc",):
        raise StridedRuntimeError(
            join_lines(
                f"linalg.matrix_norm: The dim {dims[0] if shape[dims[0]] == 0 else dims[1]} of the input "
                f"must be non-empty for ord={ord}",
                f"A has shape {shape_text(shape)}",
            )
        )
    rt = real_of(given or A._dtype)  # (the norm of a complex matrix is real: complex64 -> float32)
    result, res_np = result_array(reduced_shape(shape, dims, keepdim), rt)
    acc = _acc(given or A._dtype)  # (a complex matrix is read as complex)
    with _Quiet():
        a = np.moveaxis(A._np().astype(acc, copy=False), dims, (-2, -1))
        if a.dtype.kind == "c" and ord not in ("nuc", 2, -2) and (ord != "fro" or a.shape[-2:] == (1, 1)):
            # |a| first (complex_abs: A.abs(), which the backward's sums compare against, where
            # NumPy's norm would take np.abs, 1 ulp off it in a third of elements: no tie found)
            a = complex_abs(a)
        if a.size == 0:
            r = np.zeros(a.shape[:-2], dtype=res_np.dtype)
        elif ord in ("nuc", 2, -2):
            # the SVD refuses NaN/inf: those matrices get NaN, the others their norm
            finite = np.isfinite(a)
            r = np.linalg.norm(np.where(finite, a, acc.type(0)), ord=ord, axis=(-2, -1))
            r = np.where(finite.all(axis=(-2, -1)), r, res_np.dtype.type(np.nan))
        elif ord in (1, -1, math.inf, -math.inf) and a.dtype.kind == "f" and a.dtype.itemsize >= 4:
            # PyTorch's amax/amin of A.abs().sum(...): its summation order (torch_sum), the same
            # sums the backward's tie mask (Tensor.sum) compares against
            sums = sum_array(np.abs(a), (a.ndim - 2,) if abs(ord) == 1 else (a.ndim - 1,), False)
            r = (np.max if ord > 0 else np.min)(sums, axis=-1)
        elif ord == "fro" and a.shape[-2:] == (1, 1):  # PyTorch's vector norm of one element: |a|
            r = np.abs(a[..., 0, 0])
        else:
            r = _torch_norm2(A._np(), tuple(dims)) if ord == "fro" and given in (None, A._dtype) else None
            if r is None and ord == "fro" and given in (None, A._dtype):
                # (PyTorch's Frobenius norm is vector_norm(A, 2, dim): NormTwoOps' serial sums where
                # the two dims do not make one run)
                if _torch_general_norm(A, tuple(dims), keepdim, 2.0, res_np, _abs_of(A) if A._dtype.is_complex else None):
                    return result
            if r is None:
                r = np.linalg.norm(a, ord=ord, axis=(-2, -1))
        if keepdim:
            for d in sorted(dims):
                r = np.expand_dims(r, d)
        np.copyto(res_np, r, casting="unsafe")
    return result


# ---------------------------------------------------------------- backward rules (agmath)

from .._support import gradtools  # noqa: E402 - (beside the rules)
from ..reductions.nan_reductions import norm_rule  # noqa: E402
from ..registry import backward  # noqa: E402


@backward("vector_norm")
def vector_norm_backward(out: Tensor, x: Tensor, ord: Any = 2, dim: Any = None, keepdim: bool = False,
                         **kwargs: Any) -> Any:
    """PyTorch's linalg_vector_norm_backward (norm_backward): LinalgVectorNormBackward0."""
    return norm_rule(out, x, ord, dim, keepdim, "linalg.vector_norm")


def _matrix_norm_grad(g: Tensor, A: Tensor, out: Tensor, ord: Any, dims: tuple[int, int],  # noqa: A002, N803
                      keepdim: bool) -> Tensor:
    """The gradient of ``matrix_norm(A, ord, dims)`` for ord +-1 / +-inf (the max / min over one dim of
    the sums of |a| over the other: the winning columns or rows share g, times sgn(a)), +-2 (the
    largest / smallest singular value: u v^T of its singular vectors) and "nuc" (U V^T)."""
    shape = A._layout.shape
    both = tuple(sorted(dims))
    gk = gradtools.keep(g, shape, both, keepdim)
    if ord in ("nuc", 2, -2, 2.0, -2.0):
        from .factorizations import linalg_svd

        # (the SVD taken with strided's recorded op: a create_graph backward differentiates it)
        U, _, Vh = linalg_svd(A.movedim(dims, (-2, -1)), full_matrices=False)  # noqa: N806
        if ord == "nuc":
            uv = U.matmul(Vh)
        else:
            k = 0 if ord > 0 else -1
            uv = U[..., :, k:k + 1 or None].matmul(Vh[..., k:k + 1 or None, :])
        return gk * uv.movedim((-2, -1), dims)
    summed, extreme = (dims[0], dims[1]) if abs(ord) == 1 else (dims[1], dims[0])
    sums = A.abs().sum(summed, keepdim=True)
    mask = sums == gradtools.keep(out, shape, both, keepdim)
    return A.sgn() * (gk * mask / mask.sum(extreme, keepdim=True))


@backward("matrix_norm")
def matrix_norm_backward(out: Tensor, A: Tensor, ord: Any = "fro", dim: Any = (-2, -1),  # noqa: A002, N803
                         keepdim: bool = False, **kwargs: Any) -> Any:
    """The Frobenius norm is the vector 2-norm over the two dims (PyTorch records that node:
    LinalgVectorNormBackward0); the other orders as PyTorch's composites end: Amax/AminBackward0
    (+-1, +-inf, +-2: a max or min of sums or of singular values), SumBackward1 ("nuc").

    # Note: the singular-value orders take the SVD in the backward pass (recorded, so the
    # gradient is differentiable again); PyTorch's node before the last one
    # (LinalgSvdBackward0, LinalgVectorNormBackward0) is not recorded.
    """
    if ord == "fro":
        return norm_rule(out, A, 2.0, dim, keepdim, "linalg.matrix_norm")
    n = len(A._layout.shape)
    dims = tuple(d % n for d in dim)
    if ord == "nuc":
        name = "SumBackward1"
    else:
        name = "AmaxBackward0" if float(ord) > 0 else "AminBackward0"
    return name, (A,), lambda g: (_matrix_norm_grad(g, A, out, ord, dims, bool(keepdim)),), (A, out)


def linalg_norm(A: Tensor, ord: Any = None, dim: Any = None, keepdim: bool = False, *,  # noqa: A002, N803
                dtype: Any = None, out: Any = None) -> Tensor:
    """``torch.linalg.norm``: with ``dim`` an int, or ``dim=None`` and ``ord=None``, a vector norm
    (of the flattened input); with ``dim`` a pair, or ``dim=None`` on a 2-d input with ``ord``
    given, a matrix norm; ``ord=None`` is 2 for vectors and 'fro' for matrices.

    >>> strided.linalg.norm(strided.tensor([[3.0, 0.0], [4.0, 0.0]])).item()
    5.0
    """
    if out is not None:  # (PyTorch's out= takes only the result's dtype)
        return write_out(out, linalg_norm(A, ord, dim, keepdim, dtype=dtype),
                         "linalg.norm", (A, ord, dim, keepdim),
                         "linalg.norm expected out tensor dtype {r} but got: {o}")
    if ord is None and dtype is None and not OPEN and A.__class__ is Tensor and A._ag is None \
            and (dim is None or dim.__class__ is int):
        # (the vector 2-norm below, vector_norm's own fast path on the same arguments, without
        # vector_norm's entry: a plain operand, nobody listening, so that entry would only call it)
        fast = fast_euclidean(A, None if dim is None else (dim,), keepdim)
        if fast is not None:
            return fast
    op = "linalg.norm"
    tensor_arg(A, op)
    if dim is not None and not isinstance(dim, (tuple, list)):
        dim = (dim,)
    if dim is not None:
        if len(dim) not in (1, 2):
            raise StridedRuntimeError(join_lines(
                f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got [{', '.join(map(str, dim))}]",
                "fix: one dim for a vector norm, two for a matrix norm; "
                "strided.linalg.vector_norm reduces any number of dims"))
        if len(dim) == 1:
            return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)
        return matrix_norm(A, "fro" if ord is None else ord, dim, keepdim, dtype=dtype)
    if ord is None:
        return vector_norm(A, 2, None, keepdim, dtype=dtype)
    if A.ndim == 2:
        return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype)
    if A.ndim == 1:
        return vector_norm(A, ord, None, keepdim, dtype=dtype)
    raise StridedRuntimeError(join_lines(
        f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got {A.ndim}D.",
        f"A has shape {shape_text(A.shape)}", "fix: name the dims: dim=(-2, -1) for matrices, dim=-1 for vectors"))


seal(globals())  # (last: this module's ops with a backward rule become their recording entries)
# the kinds of this module's ops, in the op registry (after the seal: the forwards are the entries)
declare(Kind.COMPUTE, "vector_norm matrix_norm linalg_norm")
