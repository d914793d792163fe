"""Reductions: sum, mean, prod, var, std, all, any (max/min/argmax/argmin live in ``extrema``).

Contract shared by every function here, following PyTorch 2.13:

* ``dim`` is None (reduce everything), an int, or a tuple/list of ints where
  PyTorch takes one (``prod`` takes one int only); out-of-range dims raise
  IndexError, repeated dims RuntimeError. For ``sum``/``mean``/``var``/``std``
  an empty tuple means every dim; for ``all``/``any`` it means none.
* ``keepdim`` keeps reduced dims with size 1.
* The result is a fresh, contiguous tensor; the input is read in place by NumPy
  whatever its strides (permuted, stepped, negative, stride-0 expanded).
* Result dtypes: ``sum``/``prod`` of bool and integer tensors give int64;
  ``mean``/``var``/``std`` refuse non-float tensors; ``all``/``any`` give bool
  (uint8 for uint8 input). float16 is accumulated in float32 and rounded once.
* ``sum`` and ``mean`` of float and complex tensors add in PyTorch's CPU order, bit for bit
  (one thread: :mod:`strided.kernels.torch_sum`, compiled), whatever the layout; ``mean`` is
  that sum divided by the count, as PyTorch's mean_out (float16 / bfloat16 summed as float32).
  NumPy's face (``strided.numpy_api``, the array API) keeps NumPy's sums.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any, SupportsIndex

import numpy as np

from ... import dtypes as _dtypes
from ... import layout as L
from ...args import check_keepdim
from ...callsite import user_site
from ...creation import eye, full_like
from ...dispatch import OPEN, adopted, report, result_array
from ...dtypes import (
    REDUCED_FLOATS,
    TORCH_NAME,
    DType,
    bfloat16,
    complex64,
    complex128,
    float32,
    float64,
    int64,
    real_of,
    uint8,
)
from ...dtypes import bool_ as bool_dtype
from ...errors import (
    StridedNotImplementedError,
    StridedOverflowError,
    StridedRuntimeError,
    StridedTypeError,
    join_lines,
)
from ...grad_mode import GRAD_MODE, INSIDE, SUBCLASSES, requires_grad
from ...gradients import in_pytorch_convention, record, recorded, records, seal
from ...kernels import native, npcore
from ...kernels import rows as _rows
from ...kernels.bf16_casts import copy_nans_as, number_nans
from ...kernels.fpstate import QUIET, quiet, quiet_call, quiet_reset, quiet_set, quietly
from ...kernels.memory import (
    copy_to_new,
    dense_layout,
    dense_run,
    numpy_view,
    outside_storage,
    reduced_cast_source,
)
from ...kernels.native import special, sums
from ...kernels.reduce import (
    line_products,
    logical_reduce_into,
    multiply_reduce,
    reduce_into,
    row_products,
    variance_into,
    variance_parts,
    welford_ties,
)
from ...layout.order import preserve_format_strides
from ...lazy_names import function_on_first_call
from ...numpy_keywords import NO
from ...numpy_keywords import call as numpy_call
from ...opdef import Kind, declare
from ...tensor import Tensor, tensor_arg
from .._support import gradtools as _gt
from .._support.fast_reduce import PLANS, cascade_reduce, fast_operand, fast_plan, fast_reduce
from .._support.front import compiled_front, kernel_entry
from .._support.gradtools import unreduce
from .._support.operands import _cinfo, flat_run
from .._support.out import _dtype_mismatch, check_out, write_out
from .._support.reduce_args import (
    numpy_axes,
    optional_dtype,
    reduced_count,
    reduced_shape,
    reduction_dims,
    shape_text,
)
from ..linalg import matkernel as _mk
from ..registry import backward, method, op

# (PyTorch's summation orders: loaded on the first reduction that needs one; see strided.lazy_names.function_on_first_call)
rounded = function_on_first_call("strided.kernels.torch_sum", "rounded", globals())
sum_array = function_on_first_call("strided.kernels.torch_sum", "sum_array", globals())


def _accumulator(out_dtype: DType) -> np.dtype:
    """The NumPy dtype sums and products run in: float16 accumulates in float32 (as PyTorch does)."""
    return np.dtype(np.float32) if out_dtype in REDUCED_FLOATS else out_dtype.numpy


def _integral_to_int64(t: Tensor, dtype: DType | None) -> DType:
    if dtype is not None:
        return dtype
    return int64 if t._dtype.kind in "biu" else t._dtype


def _converted_like_torch(x: np.ndarray, strides: tuple[int, ...], dtype: DType) -> np.ndarray:
    """``x`` (a tensor's elements, its layout ``strides``) converted to ``dtype`` as PyTorch's
    reductions with ``dtype=`` (or an ``out=`` of another dtype) take it: ``self.to(dtype)``
    (make_reduction), laid out in preserve_format's strides, which PyTorch's loop then walks in
    its own order in ``dtype``. (prod(float16, dtype=bfloat16) multiplies bfloat16 values, each
    product rounded to bfloat16; prod(float16, dtype=float32) takes float32's vectorized order;
    NumPy's reduce with dtype= multiplied in its accumulator and rounded once.) Not reported as a
    copy: the op's own working memory, as PyTorch's."""
    plan = preserve_format_strides(x.shape, strides)
    with quiet():
        storage = copy_to_new(x, tuple(plan), np.dtype(dtype.numpy), "prod(dtype=)", report=False)
    item = storage.array.itemsize
    return np.lib.stride_tricks.as_strided(storage.array, x.shape, tuple(s * item for s in plan))


def _sum_like(ufunc: np.ufunc, self: Tensor, dim: Any, keepdim: bool, dtype: Any, op: str,
              allow_tuple: bool = True) -> Tensor:
    tensor_arg(self, op)
    keepdim = check_keepdim(keepdim, op)
    dims = reduction_dims(self, dim, op, allow_tuple=allow_tuple)
    out_dtype = _integral_to_int64(self, optional_dtype(dtype))
    shape = self._layout.shape
    out, out_np = result_array(reduced_shape(shape, dims, keepdim), out_dtype)
    x = self._np()
    if x.dtype.kind == "c" and out_dtype.kind != "c":
        # complex summed as a real dtype: each element converted first (its real part), as PyTorch
        warnings.warn("Casting complex values to real discards the imaginary part", UserWarning, stacklevel=user_site()[1])
        if ufunc is not np.add:
            x = x.real
    elif x.dtype.kind == "V" and out_dtype.kind in "iu":
        # bfloat16 into an integer dtype: PyTorch converts each element through float
        # (-6.0625 -> uint8 is 250); ml_dtypes' own conversion gives 0 out of range
        x = reduced_cast_source(np.dtype(out_dtype.numpy), x)
    if ufunc is np.multiply and out_dtype.kind in "fcV" and x.size and (
            x.dtype != out_dtype.numpy or self._dtype.is_complex != out_dtype.is_complex):
        x = _converted_like_torch(x, self._layout.strides, out_dtype)
    axes = numpy_axes(dims, len(shape))
    if ufunc is np.add and out_dtype.kind in "fc":  # PyTorch's order of adds, bit for bit (torch_sum)
        with quiet():
            np.copyto(out_np, sum_array(x, axes, keepdim, out_dtype.numpy))
        return report(op, (self,), out)
    reduce_into(ufunc, x, axes, _accumulator(out_dtype), out_np, keepdim)
    return report(op, (self,), out)


@method("sum")
@records("sum")
def sum(self: Tensor, dim: SupportsIndex | Sequence[SupportsIndex] | None = None, keepdim: bool = False, *,  # noqa: A001
        dtype: Any = None, out: Any = None, axis: Any = NO, keepdims: Any = NO) -> Tensor:
    """Sum over ``dim`` (None: all dims). bool/int inputs give int64 unless ``dtype`` is given.

    ``dtype`` converts each element before adding (as PyTorch does). An empty
    reduction gives 0.

    >>> x = strided.arange(6).view(2, 3)
    >>> x.sum().item(), x.sum(0).tolist(), x.sum(1, keepdim=True).shape
    (15, [3, 5, 7], (2, 1))
    """
    if axis is not NO or keepdims is not NO:  # NumPy's axis=, keepdims= (strided.numpy_keywords)
        return numpy_call(sum, "sum", {"self": self, "dim": dim, "keepdim": keepdim, "dtype": dtype, "out": out},
                          {"axis": axis, "keepdims": keepdims}, {"dim": None, "keepdim": False})
    # its own entry. tracked: a full sum of a tensor in autograd, unwatched: the fast path below
    # is pure NumPy and the compiled kernel into fresh memory, so its result is recorded as it is
    # (gradients.recorded: the node record() gives it, without record() running sum again); any
    # other call, and the fast path's fallthrough, takes record()
    tracked = False
    if (type(self) is Tensor or type(self) in SUBCLASSES) and self._ag is not None and not INSIDE.get():
        if OPEN or dim is not None or keepdim is not False or dtype is not None or out is not None:
            return record("sum", sum, (self, dim, keepdim), {} if dtype is None and out is None else
                          {"dtype": dtype, "out": out})
        tracked = True
    if out is not None:
        return _into(out, lambda d: _sum_like(np.add, self, dim, keepdim, d, "sum"), dtype, "sum", self)
    if dim is None and keepdim is False and dtype is None and (type(self) is Tensor or type(self) in SUBCLASSES):
        # Fast path: a row-major float32/float64 tensor (summed in its own dtype) is one flat
        # run of its storage, TensorIterator's one coalesced dim: PyTorch's vectorized_inner_sum
        # of it by the compiled kernel; a 0-d result with the shared () layout.
        d = self._dtype
        if (d is float32 or d is float64) and (k := sums()) is not None:
            lay = self._layout
            info = _cinfo[lay.shape]
            n = info[1]
            if lay.strides == info[0] and n:
                arr = self._storage.array
                off = lay.offset
                if off or len(arr) != n:
                    arr = arr[off : off + n]
                    if len(arr) != n:  # (only a tensor unpickled past its storage: never read outside)
                        raise outside_storage(self._storage.array, lay)
                res = _zeros(1, arr.dtype)
                k.cascade(arr, d is float64, (n,), (arr.itemsize,), (0,), res)
                t = adopted(res, _SCALAR, d)
                if tracked:  # (OPEN is off: a watched call took record())
                    return recorded("sum", t, (self,))
                if OPEN:
                    report("sum", (self,), t)
                return t
    if tracked:
        return record("sum", sum, (self, dim, keepdim), {})
    if dtype is None:
        t = cascade_reduce(self, dim, keepdim)
        if t is not None:
            if OPEN:
                report("sum", (self,), t)
            return t
    return _sum_like(np.add, self, dim, keepdim, dtype, "sum")


_SCALAR = _cinfo[()][2]  # the 0-d layout every full sum shares
_zeros = np.zeros
# called positionally (array, axis, dtype, out, keepdims): cheaper than keywords
_multiply_reduce = multiply_reduce  # (PyTorch's order where its lines are contiguous)


def reduced_dims(dim: Any, ndim: int) -> tuple[int, ...]:
    """The dims a reduction's ``dim`` argument names, wrapped and sorted (None: all)."""
    if dim is None:
        return tuple(range(ndim))
    dims = tuple(dim) if isinstance(dim, (tuple, list)) else (dim,)
    return tuple(sorted(d % ndim if ndim else 0 for d in dims))


@backward("sum")
def _sum_backward(out: Tensor, x: Tensor, dim: Any = None, keepdim: bool = False, **kwargs: Any) -> Any:
    """Every element read once: the gradient expanded back over the summed dims (a view)."""
    shape = x._layout.shape
    dims = reduced_dims(dim, len(shape))
    if dim is None or (isinstance(dim, (tuple, list)) and not dim):
        # (PyTorch's sum_backward: grad.expand(sizes) of the 0-d gradient, so every dim, size-1
        # ones included, has stride 0: AccumulateGrad then gives a leaf's .grad the leaf's strides)
        return "SumBackward0", (x,), lambda g: (g.expand(shape) if not g._layout.shape else
                                                g.reshape((1,) * len(shape)).expand(shape),), ()
    return "SumBackward1", (x,), lambda g: (unreduce(g, shape, dims, keepdim),), ()


@method("prod")
def prod(self: Tensor, dim: int | None = None, keepdim: bool = False, *, dtype: Any = None,
         out: Any = None) -> Tensor:
    """Product over one ``dim`` (an int; None: all dims). bool/int inputs give int64.

    An empty reduction gives 1. Integer overflow wraps, as in PyTorch.

    >>> strided.tensor([[1, 2], [3, 4]]).prod(1).tolist()
    [2, 12]
    """
    if out is not None:
        return _into(out, lambda d: _sum_like(np.multiply, self, dim, keepdim, d, "prod", allow_tuple=False),
                     dtype, "prod", self)
    if dtype is None:  # (the general path's reduction, its parsing a memo lookup: see fast_reduce)
        if (dim is None or dim.__class__ is int) and keepdim.__class__ is bool and (t := _row_major_products(self, dim, keepdim)) is not None:
            if OPEN: report("prod", (self,), t)  # noqa: E701
            return t
        t = _compiled_products(self, dim, keepdim)
        if t is not None:
            return report("prod", (self,), t)
        # (over every element: what _compiled_products left, lines that do not tile their memory
        # walked as PyTorch walks them, the rest NumPy's own order, PyTorch's there)
        t = fast_reduce(_multiply_reduce, self, dim, keepdim)
        if t is not None:
            return report("prod", (self,), t)
    return _sum_like(np.multiply, self, dim, keepdim, dtype, "prod", allow_tuple=False)


def _row_major_products(self: Any, dim: Any, keepdim: bool) -> Tensor | None:
    """prod of a plain row-major float32 / float64 tensor whose storage is exactly its elements,
    over another dim by the compiled ``torch_prod_cols`` (the running products along it, NumPy's
    multiplies in its order), or over every dim (one row: its flat run) or its last (rows of
    ``shape[-1]``), by one call of the compiled ``torch_prod_rows``: the bits of :func:`strided.kernels.reduce.torch_row_products`,
    which :func:`_compiled_products` and NumPy's full reduce (rows shorter than PyTorch's four
    vectors: the kernel's running product from 1, NumPy's order) give. None where a product is NaN
    (its payload: the general path recomputes it by NumPy) or this does not apply."""
    # (the operand guard is written out here and in max's _full_extreme rather than shared:
    # a helper call costs ~7% of these sub-microsecond ops)
    if self.__class__ is not Tensor:
        return None
    d = self._dtype
    if d is not float32 and d is not float64:
        return None
    lay = self._layout
    shape = lay.shape
    info = _cinfo[shape]
    x = self._storage.array
    if len(shape) == 2 and lay.strides == (1, shape[0]) and (dim is None or dim.__class__ is int) \
            and not lay.offset and len(x) == info[1] and shape[0] > 1 and shape[1] > 1:
        return _transposed_products(self, x, dim, keepdim)
    if not shape or lay.strides != info[0] or lay.offset or len(x) != info[1] or not info[1]:
        return None
    plan = PLANS[(shape, lay.strides, dim, keepdim)]
    if plan is None or (k := special()) is None:
        return None
    res = _empty(info[1] // plan[2], d.numpy)
    axis = plan[0]
    if axis is not None and axis != len(shape) - 1:
        # (over an outer dim: the running products along it, a row at a time, NumPy's reduce's
        # multiplies in its order; a NaN product declines, as below)
        inner = info[0][axis]
        # (inner 1: only size-1 dims after it, a contiguous line to PyTorch's iterator, whose
        # vectorized row order _compiled_products takes)
        if inner == 1 or not k.torch_prod_cols(x, res, shape[axis], inner):
            return None
        return adopted(res, plan[1], d)
    # (strict: False where a product is NaN, its payload the general path's to decide; the
    # kernel's own test, cheaper than holds_nan's call after it)
    if not k.torch_prod_rows(x, res, plan[2], True):
        return None
    return adopted(res, plan[1], d)


def _transposed_products(self: Tensor, x: np.ndarray, dim: int | None, keepdim: bool) -> Tensor | None:
    """prod of a 2-D transpose whose storage is exactly its elements (strides (1, m)), read in
    memory order as PyTorch's iterator reads it (its dims sorted by stride, coalesced where they
    tile): over dim 1, the outer one in memory, torch_prod_cols' running products along it over
    the storage read as (n, m) (NumPy's reduce walks it the same way); over dim 0, the memory rows'
    products (torch_prod_rows, PyTorch's vectorized line order); over every dim, the storage as one
    line (torch_prod_rows, as a row-major tensor's). None where a product is NaN (the general path
    decides its payload) or this does not apply."""
    lay = self._layout
    m, n = lay.shape
    plan = PLANS[(lay.shape, lay.strides, dim, keepdim)]
    if plan is None or (k := special()) is None:
        return None
    if dim is None:  # (its layout remembered as dense: prod's compiled front takes the next call itself)
        dense_layout(lay.shape, lay.strides)
    res = _empty(m * n // plan[2], self._dtype.numpy)
    if plan[0] == 1:
        if not k.torch_prod_cols(x, res, n, m):
            return None
    elif not k.torch_prod_rows(x, res, plan[2], True):  # (strict: False where a product is NaN)
        return None
    return adopted(res, plan[1], self._dtype)


_empty = np.empty
_FLOAT32_MAX = float(np.finfo(np.float32).max)
_FLOAT32_TINY = float(np.finfo(np.float32).tiny)
_SHORT_FULL = 16  # (PyTorch's four vectors of float64; float32's 32 decline in line_products)


def _compiled_products(self: Any, dim: Any, keepdim: Any) -> Tensor | None:
    """prod of a float32 / float64 tensor over every dim or one int ``dim``, in PyTorch's order, by
    :func:`strided.kernels.reduce.line_products` (the compiled kernel, or its NumPy twin), where
    PyTorch's lines are contiguous: every element of a tensor whose elements tile their memory, or
    the dim innermost in its memory; None where the fast plan does not apply or that declines (the
    general path, which also takes PyTorch's order where it can)."""
    plan = fast_plan(self, dim, keepdim)
    if plan is None or (dim is None and plan[2] < _SHORT_FULL):  # (short: NumPy's order is PyTorch's)
        return None
    lay = self._layout
    shape = lay.shape
    if dim is not None and plan[0] == len(shape) - 1:  # (the last dim of a row-major tensor: its flat run's lines)
        flat = flat_run(self, _cinfo[shape])
        if flat is not None:
            r = row_products(flat, shape[-1])
            return None if r is None else adopted(r, plan[1], self._dtype)
    got = fast_operand(self, dim, keepdim)
    if got is None:
        return None
    a, plan = got
    r = line_products(a, plan[0])
    return None if r is None else adopted(r.reshape(-1), plan[1], self._dtype)


def _into(out: Any, compute: Any, dtype: Any, op: str, self: Tensor) -> Tensor:
    """``op(..., out=out)``: as PyTorch, ``out``'s dtype is the result dtype when ``dtype=`` is not
    given (``sum(int_tensor, out=float_out)`` sums in float); then :func:`strided.ops._support.out.write_out`."""

    out = check_out(out, op)
    if op == "mean":  # (its dtype checks first: dtype= or, without one, the input's)
        _float_result(self, dtype, op)
    given = optional_dtype(dtype)
    if given is not None and given is not out._dtype:  # (PyTorch's check of a dtype= out= disagrees with)
        raise _dtype_mismatch(given, out._dtype, op, "matmul")
    return write_out(out, compute(out._dtype if dtype is None else dtype), op, (self,))


def _to_out(result: Tensor, out: Any, op: str, self: Tensor, reduced: tuple | None = None) -> Tensor:
    """``result``, or (``out=`` given) ``result`` written into ``out`` (:func:`strided.ops._support.out.write_out`;
    ``reduced``: std/var's reduced dims and keepdim, for its check of an ``out`` over ``self``)."""
    if out is None:
        return result
    if op in _TRUTH_OPS:  # (PyTorch's check_result_is_bytebool, before any other of out='s)
        o = check_out(out, op)
        if o._dtype is not bool_dtype and o._dtype is not uint8:
            raise StridedRuntimeError(join_lines(
                f"{op} only supports bool tensor for result, got: {TORCH_NAME[o._dtype.name]}",
                f"out= is {o._dtype.name}; {op}'s result is bool (uint8 for a uint8 input)",
                "fix: a bool out= tensor, or convert the result afterwards"))
    return write_out(out, result, op, (self,), reduced=reduced)


_TRUTH_OPS = frozenset(("all", "any"))


def _float_result(self: Tensor, dtype: Any, op: str) -> DType:
    given = optional_dtype(dtype)
    if given is not None:
        if given.kind not in "fc":
            raise StridedRuntimeError(
                join_lines(
                    f"{op}(): could not infer output dtype. Optional dtype must be either a floating "
                    f"point or complex dtype. Got: {TORCH_NAME[given.name]}",
                    f"fix: pass dtype=strided.float32 (or float64) to average a {self._dtype.name} tensor",
                )
            )
        return given
    if self._dtype.kind not in "fc":
        raise StridedRuntimeError(
            join_lines(
                f"{op}(): could not infer output dtype. Input dtype must be either a floating point "
                f"or complex dtype. Got: {TORCH_NAME[self._dtype.name]}",
                f"the tensor of shape {shape_text(self.shape)} holds {self._dtype.name}; "
                f"fix: t.{op}(dtype=strided.float32) or t.to(strided.float32).{op}()",
            )
        )
    return self._dtype


@method("mean")
def mean(self: Tensor, dim: SupportsIndex | Sequence[SupportsIndex] | None = None, keepdim: bool = False, *,
         dtype: Any = None, out: Any = None) -> Tensor:
    """Arithmetic mean over ``dim``; float tensors only (or an explicit float ``dtype``).

    An empty reduction gives NaN, as in PyTorch.

    >>> strided.tensor([[1.0, 2.0], [3.0, 5.0]]).mean(dim=1).tolist()
    [1.5, 4.0]
    """
    if out is not None:
        written = _into(out, lambda d: mean(self, dim, keepdim, dtype=d), dtype, "mean", self)
        if written._dtype is bfloat16:
            _mean_nans(written, L.contiguous_strides(written._layout.shape))
        return written
    if dtype is None:
        t = cascade_reduce(self, dim, keepdim, mean=True)
        if t is not None:
            if t._dtype is bfloat16:
                _mean_nans(t)
            return report("mean", (self,), t)
    tensor_arg(self, "mean")
    keepdim = check_keepdim(keepdim, "mean")
    out_dtype = _float_result(self, dtype, "mean")
    dims = reduction_dims(self, dim, "mean")
    shape = self._layout.shape
    out, out_np = result_array(reduced_shape(shape, dims, keepdim), out_dtype)
    x = self._np()
    if x.dtype.kind == "c" and out_dtype.kind != "c":  # (as sum: the real parts, with PyTorch's warning)
        # (x stays complex: sum_array's dtype= conversion takes the real parts as PyTorch's dense
        # self.to(dtype); x.real's stride-2 view would be summed by the scalar loop, other bits)
        warnings.warn("Casting complex values to real discards the imaginary part", UserWarning, stacklevel=user_site()[1])
    # PyTorch's mean_out on CPU: sum_out (float16 / bfloat16 summed as float32: their float32
    # copy, torch_sum's dtype= conversion), then div_ by the count, then rounded to the dtype
    with quiet():  # (0/0 is NaN, silently)
        total = sum_array(x, numpy_axes(dims, len(shape)), keepdim, _accumulator(out_dtype))
        np.divide(total, total.dtype.type(reduced_count(shape, dims)), out=total)
        np.copyto(out_np, total if total.dtype == out_np.dtype else rounded(total, out_np.dtype), casting="unsafe")
    if out_dtype is bfloat16:
        _mean_nans(out)
    return report("mean", (self,), out)


def _mean_nans(t: Tensor, other: tuple[int, ...] | None = None) -> None:
    """PyTorch's NaN words in a bfloat16 mean ``t``: its mean_out sums into a float32 copy of the
    result (``result.to(float)``: preserve format), divides, and converts back with ``to``
    (:mod:`strided.kernels.bf16_casts`' copy rules); ``other``: the strides (in elements) of that
    float32 copy where ``t`` is not dense (an ``out=``: contiguous)."""
    lay = t._layout
    dense = L.is_non_overlapping_and_dense(lay.shape, lay.strides)
    strides = L.preserve_format_strides(lay.shape, lay.strides) if dense or other is None else other
    copy_nans_as(numpy_view(t._storage, lay), lay.shape, strides, np.float32)


@backward("mean")
def _mean_backward(out: Tensor, x: Tensor, dim: Any = None, keepdim: bool = False, **kwargs: Any) -> Any:
    shape = x._layout.shape
    dims = reduced_dims(dim, len(shape))
    n = reduced_count(shape, dims)  # (a 0-d x's dim 0 or -1: its one element)
    if dim is None:
        return "MeanBackward0", (x,), lambda g: (g.reshape((1,) * len(shape)).expand(shape) / n,), ()
    return "MeanBackward1", (x,), lambda g: (unreduce(g, shape, dims, keepdim) / n,), ()


# the compiled variance's limit (VAR_MAX in _specialkernel.c): beyond, NumPy's calls cost less than the data
_VAR_MAX = 8192


def _fast_variance(self: Any, dim: Any, keepdim: Any, op: str, root: bool, with_mean: bool = False
                   ) -> Any:
    """var / std with the default correction (1) of a float32 / float64 tensor over every dim or
    one int dim, more than one element per result: :func:`strided.kernels.reduce.variance_parts`
    itself (the general path's computation), its fresh result adopted, with the plan from
    :func:`strided.ops._support.fast_reduce.fast_plan` instead of the argument parsing; None where
    the general path must run (its errors, its warning). ``with_mean`` (``var_mean``/``std_mean``,
    the caller sure nothing records or listens): also the mean, the same pass's first sum. Rows
    along a row-major last dim (or every element) of at most ``_VAR_MAX`` elements are the compiled
    ``variance_rows`` (_specialkernel.c), variance_parts' NumPy operations in NumPy's order
    (its pairwise sums): the same bits in one call."""
    plan = fast_plan(self, dim, keepdim)
    if plan is None or plan[2] < 2:
        return None
    lay = plan[1]
    n = plan[2]
    d = self._dtype
    axis = plan[0]
    src = self._layout
    shape = src.shape
    if axis is None or axis == len(shape) - 1:  # contiguous rows: the compiled kernel, variance_parts' bits
        info = _cinfo[shape]
        # (float32 in its wide mode: variance_parts' float64 accumulation, PyTorch's)
        # (float64: PyTorch's own ways, kernels.torch_variance, below; the kernel's are NumPy's)
        k = special() if info[1] <= _VAR_MAX and src.strides == info[0] and d is not float64 else None
        if k is not None:
            x = self._storage.array[src.offset : src.offset + info[1]]
            # (a tensor unpickled past its storage: the general path refuses it; an unaligned from_numpy
            # view: the kernel refuses its buffer, variance_parts computes it)
            if len(x) == info[1] and x.flags.aligned:
                rows = info[1] // n
                v, m = _empty(rows, d.numpy), _empty(rows, d.numpy)
                # (False, nothing written, only past the kernel's VAR_MAX: should _VAR_MAX grow)
                done = k.variance_rows(x, v, m, n, n - 1.0, root, (2 if with_mean else 1) if d is float32 else 0)
                if done:
                    t = adopted(v, lay, d)
                    if with_mean:  # (2: an infinite mean, made PyTorch's below)
                        mt = adopted(m, lay, d)
                        return t, (mt if done is True else _welford_infinities(self, dim, keepdim, mt))
                    return report(op, (self,), t)
    if axis is None and d is float32 and not with_mean and _cinfo[shape][1] > _VAR_MAX:
        t = _whole_float32_variance(self, lay, root)
        if t is not None:
            return report(op, (self,), t)
    token = quiet_set(QUIET)
    try:
        squares, centre = variance_parts(self._np(), plan[0], d.numpy, n, np.float64(n - 1.0), root, with_mean,
                                         keepdim)
    finally:
        quiet_reset(token)
    t = adopted(squares.reshape(-1), lay, d)
    if with_mean:
        return t, _welford_infinities(self, dim, keepdim, adopted(centre.reshape(-1), lay, d))
    return report(op, (self,), t)


def _whole_float32_variance(self: Tensor, lay: L.Layout, root: bool) -> Tensor | None:
    """var (``root``: std) with correction 1 over every element of a float32 tensor laid out densely
    (row-major or any permutation of it, no gaps: a transpose), its result laid out as ``lay``:
    the compiled ``variance_one`` (:mod:`strided.kernels.rows`), variance_parts' NumPy steps over the
    elements in memory order, fused (NumPy's own order for such a layout: its reductions and
    elementwise subtract coalesce a dense layout into the one run); None where it is not taken
    (another layout, the kernel off, an unaligned or short buffer: the caller's NumPy steps).
    1M elements: 0.27 ms against NumPy's steps' 0.8 (an 8 MB float64 temporary written and read)."""
    k = _rows.variance_one()
    if k is None:
        return None
    src = self._layout
    shape = src.shape
    info = _cinfo[shape]
    if src.strides == info[0]:
        x = self._storage.array[src.offset : src.offset + info[1]]
        if len(x) != info[1]:  # (a tensor unpickled past its storage: the general path refuses it)
            return None
    else:  # (a transpose: its storage run in memory order, or None)
        dense = dense_run(self, info[1])
        if dense is None:
            return None
        x = dense[0]
    v = k(x, info[1] - 1.0, root)
    if v is None:
        return None
    return adopted(np.full(1, v, np.float32), lay, float32)


def _variance(self: Tensor, dim: Any, unbiased: Any, keepdim: bool, correction: Any, op: str,
              root: bool, into: DType | None = None) -> Tensor:
    """var / std of ``self`` (``root``: std); ``into``: the float dtype of an ``out=`` of another
    dtype than ``self``'s, which PyTorch computes in (``make_reduction``: ``self.to(out's dtype)``
    first, then the reduction in that dtype)."""
    if into is None and unbiased is None and correction is None and dim.__class__ is not bool:
        t = _fast_variance(self, dim, keepdim, op, root)
        if t is not None:
            return t
    tensor_arg(self, op)
    if isinstance(dim, bool):  # var(False): PyTorch's var(bool unbiased) overload
        if unbiased is not None:
            raise StridedTypeError(
                join_lines(
                    f"{op}(): got a bool for dim ({dim}) and also unbiased={unbiased}",
                    f"a bool in dim's place is read as unbiased (the {op}(unbiased) overload); "
                    f"pass one of them: {op}(dim=..., unbiased={unbiased}) or {op}(unbiased={dim})",
                )
            )
        dim, unbiased = None, dim
    if unbiased is not None and correction is not None:
        raise StridedTypeError(
            join_lines(
                f"{op}() received an invalid combination of arguments: both 'unbiased' and 'correction'",
                "unbiased=True is correction=1 and unbiased=False is correction=0; pass only correction",
            )
        )
    if unbiased is not None:
        if not isinstance(unbiased, (bool, np.bool_)):
            raise StridedTypeError(
                f"{op}() received an invalid combination of arguments: 'unbiased' must be bool, "
                f"not {type(unbiased).__name__}\n"
                f"  the second positional argument of {op}(dim, unbiased, keepdim) is 'unbiased'; "
                "to keep dims, pass keepdim=True by name"
            )
        correction = 1 if unbiased else 0
    else:
        correction = 1 if correction is None else _correction(correction, op)
    keepdim = check_keepdim(keepdim, op)
    if self._dtype.kind not in "fc":
        raise StridedRuntimeError(
            join_lines(
                "std and var only support floating point and complex dtypes",
                f"the tensor of shape {shape_text(self.shape)} holds {self._dtype.name}; "
                f"fix: t.to(strided.float32).{op}(...)",
            )
        )
    dims = reduction_dims(self, dim, op)
    shape = self._layout.shape
    axes = numpy_axes(dims, len(shape))
    acc = _accumulator(self._dtype if into is None else into)
    n = reduced_count(shape, dims)
    dof = n - float(correction)  # in float64, as PyTorch
    # As PyTorch: max(dof, 0) with NaN giving 0 (an inf result), and no warning for NaN.
    denominator = dof if dof > 0 else 0
    if dof <= 0:
        warnings.warn(
            f"{op}(): degrees of freedom is <= 0. Correction should be strictly less than the "
            "reduction factor (input numel divided by output numel).",  # (PyTorch's text, word for word)
            UserWarning,
            stacklevel=user_site(2)[1],  # the user's line, through any entry (autograd's slow path too)
        )
    out, out_np = result_array(reduced_shape(shape, dims, keepdim), real_of(self._dtype) if into is None else into)
    x = self._np()  # (complex: a real result)
    if into is not None:  # (PyTorch's self.to(out's dtype): float64 -> bfloat16 through float32)
        x = reduced_cast_source(np.dtype(into.numpy), x).astype(into.numpy)
    if not shape:  # a 0-d tensor: work on a (1,) view of it
        x, axes = x.reshape(1), (0,)
    # a float64 divisor: a correction near the float32 limit must not round the divisor to inf
    variance_into(x, axes, acc, n, np.float64(denominator), out_np, root, keepdim)
    if not n:  # (PyTorch fills an empty reduction's result with NaN: 0 / (0 - correction) is 0 where correction < 0)
        out_np.fill(np.nan)
    if out._dtype is bfloat16:  # (std_var_stub's Welford result through c10::BFloat16: a NaN is 0x7FC0)
        number_nans(out_np)
    return report(op, (self,), out)


_UINT64_END = 2**64


def _correction(value: Any, op: str) -> int | float:
    """``correction=`` read as PyTorch reads a Scalar: a real number, or the value of a 0-d tensor.

    bools count as 0/1; ints from -2**63 to 2**64 - 1 (PyTorch's int64 or uint64 Scalar), else
    OverflowError; a complex number only with a zero imaginary part (RuntimeError otherwise);
    any other type (str, Decimal, Fraction, arrays, tensors with dims) TypeError.
    """
    if isinstance(value, Tensor) and value.ndim == 0:
        value = value.item()
    if isinstance(value, (bool, np.bool_)):
        return int(value)
    if isinstance(value, (int, np.integer)):
        value = int(value)
        if not -(2**63) <= value < _UINT64_END:
            raise StridedOverflowError(
                join_lines(
                    "int too big to convert" if value > 0 else "can't convert negative int to unsigned",
                    f"{op}(correction={value}): correction is read as a 64-bit integer, from -2**63 "
                    "to 2**64 - 1; it is the number subtracted from the element count N "
                    "(1: Bessel's correction, 0: population variance)",
                )
            )
        return value
    if isinstance(value, (float, np.floating)):
        return float(value)
    if isinstance(value, (complex, np.complexfloating)):
        if value.imag != 0:
            raise StridedRuntimeError(
                join_lines(
                    "value cannot be converted to type double without overflow",
                    f"{op}(correction={value!r}) has an imaginary part; correction is a real number",
                )
            )
        return float(value.real)
    raise StridedTypeError(
        join_lines(
            f"{op}() received an invalid combination of arguments - got (correction={_type_name(value)}, ), "
            "but expected (Number correction)",
            f"got correction={value!r:.60}; correction is a real number subtracted from the element "
            "count N: an int or a float (1: Bessel's correction, 0: population variance), or a 0-d tensor",
        )
    )


def _type_name(value: Any) -> str:
    """PyTorch's name for an argument's type in parser messages (``decimal.Decimal``, ``Tensor``)."""
    if isinstance(value, Tensor):
        return "Tensor"
    kind = type(value)
    return kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"


def _out_float(self: Any, out: Any) -> DType | None:
    """The dtype std/var compute in for an ``out=`` of a real float dtype other than a real float
    ``self``'s (PyTorch's ``make_reduction(..., out_dtype)``: ``self.to(out's dtype)`` first), else
    None (``self``'s own; any refusal stays ``write_out``'s)."""
    if not isinstance(out, Tensor) or not isinstance(self, Tensor):
        return None
    d, o = self._dtype, out._dtype
    if o is d or d.kind != "f" or o.kind != "f":
        return None
    return o


def _variance_to_out(result: Tensor, out: Any, op: str, self: Tensor, dim: Any, keepdim: bool) -> Tensor:
    """std/var's ``result`` written into ``out`` (when given). A complex ``out`` of a real input is
    PyTorch's NotImplementedError where its reduction runs the kernel (``std_var_stub``: more than
    one output element of a nonempty input), whose dispatch knows only real floats; one output
    element runs ``std_var_all_cpu`` (float / double inputs only: a half one is its RuntimeError, also
    into a float32 / float64 out=), and no input element fills NaN, both written as any cast."""
    if out is None:
        return result
    if (isinstance(out, Tensor) and self._dtype.kind == "f" and L.product(self._layout.shape)
            and (out._dtype.kind == "c" or (out._dtype.kind == "f" and out._dtype not in REDUCED_FLOATS
                                            and self._dtype in REDUCED_FLOATS))):
        # (a float16 / bfloat16 input into a float32 / float64 out=: the reduction computes in the
        # out's dtype, so one output element runs std_var_all_cpu too, which refuses the half input)
        whole = L.product(result._layout.shape) <= 1
        if out._dtype.kind == "f" and not whole:
            return _to_out(result, out, op, self, (reduction_dims(self, dim, op), keepdim))
        if not whole or self._dtype in REDUCED_FLOATS:  # (std_var_all_cpu reads float and double inputs only)
            first, why = ((f"std_var_all: Unsupported dtype {TORCH_NAME[self._dtype.name]}",
                           "PyTorch's whole-tensor kernel reads float32 / float64 inputs only") if whole else
                          (f"\"std_cpu\" not implemented for '{TORCH_NAME[out._dtype.name]}'",
                           "PyTorch's reduction kernel has no complex output for a real input"))
            raise (StridedRuntimeError if whole else StridedNotImplementedError)(join_lines(
                first, f"{op}() of a {self._dtype.name} input into a {out._dtype.name} out=: {why}",
                f"fix: a real float out=, or {op}(x.float(), ...).to({out._dtype.name})"))
    return _to_out(result, out, op, self, (reduction_dims(self, dim, op), keepdim))


@method("var")
def var(self: Tensor, dim: Any = None, unbiased: bool | None = None, keepdim: bool = False, *,
        correction: float | None = None, out: Any = None) -> Tensor:
    """Variance over ``dim``: sum of squared deviations / max(N - correction, 0).

    ``correction`` defaults to 1 (Bessel); ``unbiased`` (True/False) is the older
    spelling of correction 1/0, still accepted by PyTorch 2.13 — give one, not both.
    Float tensors only. N - correction <= 0 warns and gives inf or NaN, as in PyTorch.

    >>> strided.tensor([1.0, 2.0, 3.0, 4.0]).var().item()
    1.6666666269302368
    """
    if out is None and unbiased is None and correction is None and dim.__class__ is not bool:
        # (_variance's first step, without its two callers' frames: no out=, nothing to convert)
        t = _fast_variance(self, dim, keepdim, "var", False)
        if t is not None:
            return t
    return _variance_to_out(_variance(self, dim, unbiased, keepdim, correction, "var", root=False,
                                      into=_out_float(self, out)), out, "var", self, dim, keepdim)


@method("std")
def std(self: Tensor, dim: Any = None, unbiased: bool | None = None, keepdim: bool = False, *,
        correction: float | None = None, out: Any = None) -> Tensor:
    """Standard deviation: the square root of :func:`var` with the same arguments.

    >>> strided.tensor([2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]).std(correction=0).item()
    2.0
    """
    if out is None and unbiased is None and correction is None and dim.__class__ is not bool:
        # (_variance's first step, without its two callers' frames: no out=, nothing to convert)
        t = _fast_variance(self, dim, keepdim, "std", True)
        if t is not None:
            return t
    return _variance_to_out(_variance(self, dim, unbiased, keepdim, correction, "std", root=True,
                                      into=_out_float(self, out)), out, "std", self, dim, keepdim)


def _whole_truth(self: Any, every: bool) -> Tensor | None:
    """``self.all()`` (``every``) or ``self.any()`` of a plain row-major tensor of a dtype NumPy
    counts as PyTorch tests it (NaN and either nonzero complex part are true, -0.0 is false; not
    uint8, whose result is uint8): the count of its nonzero elements against its size, one C pass
    (the bool reduction's buffered cast was 1 µs of a 2.5 µs ``all``); None where the reduction
    runs."""
    if self.__class__ is not Tensor or self._dtype not in _COUNTED:
        return None
    info = _cinfo[self._layout.shape]
    flat = flat_run(self, info)
    if flat is None:
        return None
    count = npcore.count_nonzero(flat)
    return adopted((_ONE if (count == info[1] if every else count) else _ZERO).copy(), _SCALAR, bool_dtype)


_COUNTED = frozenset(getattr(_dtypes, n) for n in ("bool_", "int8", "int16", "int32", "int64", "float16", "float32",
                                                  "float64", "complex64", "complex128"))
_ONE, _ZERO = np.ones(1, np.bool_), np.zeros(1, np.bool_)
_SCALAR = _cinfo[()][2]  # (the 0-d result's layout, shared)


def _fast_logical(ufunc: np.ufunc, self: Any, dim: Any, keepdim: Any) -> Tensor | None:
    """all / any along an int ``dim`` of a row-major float32 / float64 tensor, unwatched: the
    general path's one ``ufunc.reduce`` on the flat run read in the tensor's shape (the same
    elements, no view made) into a fresh flat bool result; None otherwise."""
    if dim.__class__ is not int:
        return None
    plan = fast_plan(self, dim, keepdim)
    if plan is None:
        return None
    lay = self._layout
    info = _cinfo[lay.shape]
    flat = flat_run(self, info)
    if flat is None:
        return None
    out_lay = plan[1]
    buf = _empty_array(info[1] // plan[2], np.bool_)
    ufunc.reduce(flat.reshape(lay.shape), axis=plan[0], out=buf if len(out_lay.shape) == 1 else buf.reshape(
        out_lay.shape), keepdims=keepdim)
    return adopted(buf, out_lay, bool_dtype)


_empty_array = np.empty


def _logical(ufunc: np.ufunc, self: Tensor, dim: Any, keepdim: bool, op: str) -> Tensor:
    plan = fast_plan(self, dim, keepdim)
    if plan is not None:  # the general path's reduction, its argument parsing a memo lookup
        lay = plan[1]
        buf = np.empty(L.product(lay.shape), np.bool_)
        logical_reduce_into(ufunc, self._np(), plan[0], buf.reshape(lay.shape), keepdim)
        return report(op, (self,), adopted(buf, lay, bool_dtype))
    tensor_arg(self, op)
    keepdim = check_keepdim(keepdim, op)
    # Note: as in PyTorch, an empty dim tuple reduces nothing for all/any (unlike sum).
    dims = reduction_dims(self, dim, op, empty_means_all=False)
    shape = self._layout.shape
    out_dtype = uint8 if self._dtype is uint8 else bool_dtype
    out, out_np = result_array(reduced_shape(shape, dims, keepdim), out_dtype)
    logical_reduce_into(ufunc, self._np(), numpy_axes(dims, len(shape)), out_np, keepdim)
    return report(op, (self,), out)


def var_mean(input: Tensor, dim: Any = None, unbiased: bool | None = None, keepdim: bool = False, *,  # noqa: A002
             correction: float | None = None) -> tuple[Tensor, Tensor]:
    """``(var, mean)`` over ``dim`` in one call (``torch.var_mean``; the arguments :func:`var`'s),
    each with its own gradient.

    >>> v, m = strided.var_mean(strided.tensor([1.0, 2.0, 3.0]))
    >>> v.item(), m.item()
    (1.0, 2.0)
    """
    if unbiased is None and correction is None:
        fast = _fast_moments(input, dim, keepdim, False)
        if fast is not None:
            return fast
    v = var(input, dim, unbiased, keepdim, correction=correction)
    return _moments(input, dim, unbiased, keepdim, correction, v, False)


def std_mean(input: Tensor, dim: Any = None, unbiased: bool | None = None, keepdim: bool = False, *,  # noqa: A002
             correction: float | None = None) -> tuple[Tensor, Tensor]:
    """``(std, mean)`` over ``dim`` in one call (``torch.std_mean``; the arguments :func:`std`'s).

    >>> s, m = strided.std_mean(strided.tensor([[1.0, 3.0]]), dim=1)
    >>> s.tolist(), m.tolist()
    ([1.4142135381698608], [2.0])
    """
    if unbiased is None and correction is None:
        fast = _fast_moments(input, dim, keepdim, True)
        if fast is not None:
            return fast
    s = std(input, dim, unbiased, keepdim, correction=correction)
    return _moments(input, dim, unbiased, keepdim, correction, s, True)


def _moments(x: Tensor, dim: Any, unbiased: Any, keepdim: bool, correction: Any, v: Tensor,
             root: bool) -> tuple[Tensor, Tensor]:
    """var_mean/std_mean's two results from ``v`` (``var``/``std``'s, recorded) and the mean (recorded,
    :func:`_wide_mean`), with PyTorch's var_mean values: its Welford updates give both, where
    ``var`` alone computes one result of float64 another way (``std_var_all_cpu``); the values are
    written over the recorded results' (their gradients are var's and mean's, as PyTorch's)."""
    m = _wide_mean(x, dim, keepdim)
    if (x._dtype is float64 or x._dtype is complex128) and x.numel():
        dims, _, corr = _variance_args(x, dim, unbiased, keepdim, correction)
        a = x._np()
        if not a.ndim:  # (a 0-d tensor: its one element as a (1,) row, as the general path reads it)
            a, dims = a.reshape(1), (0,)
        n = L.product([a.shape[d] for d in dims])
        dof = n - float(corr)
        token = quiet_set(QUIET)
        try:
            var, mean = variance_parts(a, dims, _accumulator(x._dtype), n, np.float64(dof if dof > 0 else 0.0),
                                       root, True, keepdim)
        finally:
            quiet_reset(token)
        np.copyto(v._np(), var.reshape(v._np().shape))
        np.copyto(m._np(), mean.reshape(m._np().shape))
        return v, m
    return v, _welford_infinities(x, dim, keepdim, m)


def _mean_axes(x: Tensor, dim: Any) -> tuple[int, ...]:
    """var_mean's reduced dims as NumPy axes of ``x._np()`` (every one for ``dim=None``)."""
    dims = reduction_dims(x, _mean_dims(dim), "var_mean")
    return tuple(range(x.ndim)) if dims is None else numpy_axes(dims, x.ndim)


def _wide_mean(x: Tensor, dim: Any, keepdim: bool) -> Tensor:
    """var_mean's mean: ``mean(x, dim)`` (its gradient too), with PyTorch's var_mean values for the
    floats narrower than float64 (float32, float16, bfloat16): its Welford mean runs in double and
    is rounded once, so the float64 mean rounded once gives its bits (``mean()`` itself sums in the
    dtype, or float32 for the halves: an ulp or more off in most rows)."""
    m = mean(x, _mean_dims(dim), keepdim)
    # (float64: var_mean's caller, _moments, writes Welford's mean over it, PyTorch's)
    if m._dtype in REDUCED_FLOATS or m._dtype is float32:
        a = x._np()
        axes = _mean_axes(x, dim)
        n = L.product([a.shape[d] for d in axes])
        if n:  # (no element: mean's NaN stands)
            wide = np.add.reduce(a, axis=axes, dtype=np.float64, keepdims=True) / n
            quietly(welford_ties, a, axes, n, wide)
            if m._dtype is not float32:  # (PyTorch's float32 mean rounded again to the half type)
                wide = quietly(wide.astype, np.float32)
            quietly(np.copyto, m._np(), wide if keepdim else wide.reshape(m._layout.shape), casting="unsafe")
    elif m._dtype is complex64:
        # (PyTorch's complex var_mean is var_mean of the real and the imaginary parts, float32 each:
        # each part's Welford mean in double, rounded once, as above; an infinity makes it NaN as
        # in _welford_infinities. mean() of the complex64 sums in float32: an ulp or more off)
        a = x._np()
        axes = _mean_axes(x, dim)
        n = L.product([a.shape[d] for d in axes])
        if n:
            value = np.empty(tuple(1 if d in axes else k for d, k in enumerate(a.shape)), np.complex64)
            token = quiet_set(QUIET)
            try:
                for part, into in ((a.real, value.real), (a.imag, value.imag)):
                    wide = np.asarray(np.add.reduce(part, axis=axes, dtype=np.float64, keepdims=True) / n)
                    welford_ties(part, axes, n, wide)
                    wide = wide.astype(np.float32)
                    _welford_infinities_np(part, axes, wide)
                    into[...] = wide
            finally:
                quiet_reset(token)
            np.copyto(m._np(), value.reshape(m._layout.shape))
    return m


_INF, _NEG_INF = float("inf"), float("-inf")


def _welford_infinities(x: Tensor, dim: Any, keepdim: bool, m: Tensor) -> Tensor:
    """``m`` (``mean(x, dim)``) as PyTorch's var_mean/std_mean give it where a row holds an
    infinity: they compute the mean by Welford's updates (``mean += (v - mean) / n``), in memory
    order, and an element after an infinity makes it NaN (``inf - inf``); only an infinity that is
    its row's last element, the one at the highest address, and its only one, leaves it infinite:
    ``var_mean([1., inf, 2.])`` has mean NaN, ``var_mean([1., 2., inf])`` inf. Rows with no
    infinity keep ``m``'s value; ``m`` is changed in place (a new result) and returned."""
    if m._dtype.kind != "f":
        return m
    # (a new result's storage holds its elements and no other: read flat, without a shaped view)
    flat = m._storage.array
    if flat.size <= 64:  # (a few Python floats compared in C: a tenth of np.isinf(...).any())
        few = flat.tolist()
        if _INF not in few and _NEG_INF not in few:
            return m
    elif not np.isinf(flat).any():
        return m
    values = m._np()
    _welford_infinities_np(x._np(), _mean_axes(x, dim), values)
    return m


def _welford_infinities_np(a: np.ndarray, axes: tuple[int, ...], values: np.ndarray) -> None:
    """:func:`_welford_infinities`' rule on NumPy arrays: the means ``values`` (of ``a`` over
    ``axes``, reduced dims kept or not) NaN in place where infinite but for one infinity at the end."""
    infinite = np.isinf(a)
    count = infinite.sum(axis=axes, keepdims=True)
    # (the last element Welford meets along each reduced dim: its end, unless the stride runs backwards)
    last = tuple((slice(a.shape[d] - 1, a.shape[d]) if a.strides[d] > 0 else slice(0, 1)) if d in axes
                 else slice(None) for d in range(a.ndim))
    alone_at_end = ((count == 1) & infinite[last]).reshape(values.shape)
    values[np.isinf(values) & ~alone_at_end] = np.nan


def _fast_moments(x: Any, dim: Any, keepdim: Any, root: bool) -> tuple[Tensor, Tensor] | None:
    """``var_mean``/``std_mean`` in one pass where nothing records (no autograd record on ``x``)
    or listens (no watch: the general path reports the two ops it runs): the variance's own mean
    is ``mean``'s result bit for bit (the same sum of the same view, divided by the same count)."""
    if OPEN or getattr(x, "_ag", None) is not None:  # (fast_plan checks the rest: a bool dim is unbiased)
        return None
    return _fast_variance(x, dim, keepdim, "std" if root else "var", root, with_mean=True)


def _mean_dims(dim: Any) -> Any:
    """var's ``dim`` as mean reads it: a bool in dim's place is var's ``unbiased`` (every dim)."""
    return None if isinstance(dim, bool) else dim


@method("all")
def all(self: Tensor, dim: Any = None, keepdim: bool = False, *, out: Any = None) -> Tensor:  # noqa: A001
    """True where every element along ``dim`` is nonzero (NaN counts as nonzero); empty: True.

    bool result, or uint8 for a uint8 tensor (PyTorch's rule).

    >>> strided.tensor([[1, 0], [1, 1]]).all(dim=1).tolist()
    [False, True]
    """
    if dim is None and keepdim is False and out is None and (t := _whole_truth(self, True)) is not None:
        if OPEN:
            report("all", (self,), t)
        return t
    if out is None and not OPEN and (t := _fast_logical(np.logical_and, self, dim, keepdim)) is not None:
        return t
    return _to_out(_logical(np.logical_and, self, dim, keepdim, "all"), out, "all", self)


@method("any")
def any(self: Tensor, dim: Any = None, keepdim: bool = False, *, out: Any = None) -> Tensor:  # noqa: A001
    """True where some element along ``dim`` is nonzero; empty: False. bool (uint8 for uint8).

    >>> strided.tensor([[1, 0], [0, 0]]).any(dim=1).tolist()
    [True, False]
    """
    if dim is None and keepdim is False and out is None and (t := _whole_truth(self, False)) is not None:
        if OPEN:
            report("any", (self,), t)
        return t
    if out is None and not OPEN and (t := _fast_logical(np.logical_or, self, dim, keepdim)) is not None:
        return t
    return _to_out(_logical(np.logical_or, self, dim, keepdim, "any"), out, "any", self)



# ---------------------------------------------------------------- backward rules (agmath)


def _others_product(a: np.ndarray, axis: int) -> np.ndarray:
    """For every element, the product of the OTHER elements along ``axis`` (exclusive products from
    both ends: exact where elements are zero, no division), as PyTorch's prod_safe_zeros_backward:
    each exclusive product a ``cumprod``, whose CPU kernel runs in ``acc_type`` (float32 in double,
    complex64 in complex128, float16 / bfloat16 in float32; 1e20 * 1e20 * 0 is 0 there, not NaN)
    and rounds each step's result to the dtype; the two then multiplied in the dtype."""
    a = np.moveaxis(a, axis, -1)
    if a.shape[-1] == 0:
        return np.moveaxis(np.ones_like(a), -1, axis)
    acc = _CUMPROD_ACC.get(a.dtype.char, np.float32 if a.dtype.itemsize == 2 and a.dtype.kind in "fV" else a.dtype)
    ones = np.ones((*a.shape[:-1], 1), acc)
    with quiet():
        left = np.cumprod(np.concatenate([ones, a[..., :-1].astype(acc)], -1), -1).astype(a.dtype)
        right = np.cumprod(np.concatenate([ones, a[..., :0:-1].astype(acc)], -1), -1)[..., ::-1].astype(a.dtype)
        return np.moveaxis(left * right, -1, axis)


_CUMPROD_ACC = {"f": np.float64, "F": np.complex128}  # (ATen's CPU acc_type of float32 / complex64)


def _recorded_others(x: Tensor) -> Tensor:
    """:func:`_others_product` along the last dim out of recorded ops (each element's row with it
    replaced by 1, multiplied out), so a second derivative at zeros is PyTorch's (the Hessian of
    the product, not 0: the NumPy one is a constant)."""
    from ...creation import tensor
    from ..elementwise.unary import where

    eye = tensor(np.eye(x._layout.shape[-1], dtype=bool))
    return where(eye, 1.0, x.unsqueeze(-2)).prod(-1)


@backward("prod")
def prod_backward(out: Tensor, x: Tensor, dim: Any = None, keepdim: bool = False, **kwargs: Any) -> Any:
    """The gradient of each element is g times the product of the others along the reduced dim
    (PyTorch's prod_backward, zeros included: one zero gets the product of the rest, the others 0).
    As PyTorch: without zeros it is ``g * out / x`` (an inf among the factors gives NaN there, as
    in PyTorch), and over all dims two zeros or more give zeros (not 0 * inf = NaN). Complex:
    PyTorch's convention, its formulas' ``(out / x).conj()`` and ``others.conj()`` (the holomorphic
    rule conjugated around had their values with other signs of zero: 10-0j where PyTorch has 10+0j)."""
    shape = x._layout.shape
    conj = _conj_if(x._dtype.is_complex)

    def grads(g: Tensor) -> tuple:
        a = x._np()
        zeros = int(np.count_nonzero(a == 0)) if shape else 1
        if zeros == 0:
            o = out if dim is None or keepdim else out.unsqueeze(dim)
            gx = g if dim is None or keepdim else g.unsqueeze(dim)
            return (gx * conj(o / x),)
        # create_graph: the others' product depends on x (PyTorch's prod_safe_zeros_backward, also
        # for two zeros or more over all dims, where without grad mode it gives zeros)
        recorded = GRAD_MODE.get() and requires_grad(x) and shape
        if dim is None and zeros > 1 and shape and not recorded:
            return (_gt.grad_zeros(shape, g._dtype),)
        if dim is None:
            gx = g.reshape(()).expand(shape) if shape else g.reshape(())
            if recorded:
                return (gx * conj(_recorded_others(x.reshape(-1)).reshape(shape)),)
            others = _others_product(a.reshape(-1), 0).reshape(shape)
        else:
            d = dim % len(shape) if shape else 0
            gx = _gt.unreduce(g, shape, (d,), keepdim)
            if recorded:
                return (gx * conj(_recorded_others(x.movedim(d, -1)).movedim(-1, d)),)
            others = _others_product(a.reshape(shape or (1,)), d).reshape(shape)
        return (gx * conj(_gt.from_numpy_result(others, x._dtype)),)

    # (PyTorch saves the result too: modified in place before backward, it raises, as here)
    return ("ProdBackward0" if dim is None else "ProdBackward1"), (x,), in_pytorch_convention(grads), (x, out)


def _conj_if(is_complex: bool) -> Callable[[Tensor], Tensor]:
    """``Tensor.conj`` for a complex rule written in PyTorch's convention; for a real one, nothing."""
    return Tensor.conj if is_complex else _same


def _same(t: Tensor) -> Tensor:
    return t


def _variance_args(x: Tensor, dim: Any, unbiased: Any, keepdim: bool, correction: Any) -> tuple:
    """(dims, keepdim, correction) as the forward read them."""
    if isinstance(dim, bool):  # x.var(True): the old (unbiased) overload
        dim, unbiased = None, dim
    if unbiased is not None:
        correction = 1 if unbiased else 0
    elif correction is None:
        correction = 1
    else:
        correction = _correction(correction, "var")
    dims = reduction_dims(x, dim, "var")
    n = len(x._layout.shape)
    return (tuple(range(n)) if dims is None else tuple(sorted(dims))), bool(keepdim), correction


def _var_grad(g: Tensor, x: Tensor, dims: tuple, keepdim: bool, correction: Any, every: bool) -> Tensor:
    """PyTorch's var_backward: ``(2 / (N - correction)) * g * (x - mean(x))``, multiplied in that
    order (other orders round otherwise); ``every`` (no dim given, or a 0-d ``x``) with
    ``N - correction <= 0``: ``g * where(x == mean(x), nan, inf)``, as PyTorch."""
    shape = x._layout.shape
    n = reduced_count(shape, dims)  # (a 0-d x's dim 0 or -1: its one element)
    dof = n - correction
    if every:
        mean = x.mean()
        if dof <= 0:
            # (real, as PyTorch's where of two scalars: a complex x's gradient is nan+0j, not nan+nanj)
            fill = full_like(x.real if x._dtype.is_complex else x, float("inf"))
            return g * fill.masked_fill(x == mean, float("nan"))
        return g * (2.0 / dof) * (x - mean)
    centered = x - x.mean(dims, keepdim=True)
    return _gt.unreduce(g, shape, dims, keepdim) * (2.0 / dof if dof else float("inf")) * centered


@backward("var")
def var_backward(out: Tensor, x: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
                 correction: Any = None, **kwargs: Any) -> Any:
    dims, keep, c = _variance_args(x, dim, unbiased, keepdim, correction)
    every = dim is None or isinstance(dim, bool) or not x._layout.shape
    return "VarBackward0", (x,), lambda g: (_var_grad(g, x, dims, keep, c, every),), (x,)


@backward("std")
def std_backward(out: Tensor, x: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
                 correction: Any = None, **kwargs: Any) -> Any:
    """PyTorch's std_backward: var_backward of g / (2 std), 0 where the std is 0."""
    dims, keep, c = _variance_args(x, dim, unbiased, keepdim, correction)

    def grads(g: Tensor) -> tuple:
        gv = (g / (out * 2)).masked_fill(out == 0, 0)
        return (_var_grad(gv, x, dims, keep, c, every),)

    every = dim is None or isinstance(dim, bool) or not x._layout.shape

    return "StdBackward0", (x,), grads, (x, out)



def _trace_rule(out: Tensor, x: Tensor) -> Any:
    """PyTorch's TraceBackward0 (trace_backward: zeros, the diagonal's places index_fill_'ed
    with the 0-d gradient): ``g`` on the input's main diagonal, +0.0 elsewhere (``masked_fill``
    with the 0-d ``g``: recorded, so differentiable again). (``g * eye`` made -0.0 off the
    diagonal where g's parts are negative, and its conjugated complex form -0.0 imaginary parts.)"""
    rows, cols = x._layout.shape

    def grads(g: Tensor) -> tuple:
        diagonal = eye(rows, cols, dtype=bool_dtype)
        return (_gt.grad_zeros((rows, cols), g._dtype).masked_fill(diagonal, g),)

    return "TraceBackward0", (x,), grads, ()


@op("trace", kind=Kind.COMPUTE, rule=_trace_rule)
def trace(self: Tensor) -> Tensor:
    """The sum of a matrix's main diagonal, as a 0-d tensor (integers summed in int64, as ``sum``);
    PyTorch's errors for a tensor that is no matrix and for bool.

    >>> strided.arange(12.).reshape(3, 4).trace()
    tensor(15.)
    """
    t = _mk.trace(self)  # (a float32/float64 matrix's diagonal: _trace_in_python's sum, in C)
    if t is not None:
        return t
    x = tensor_arg(self, "trace")
    shape = x._layout.shape
    if x._dtype is bool_dtype:  # (PyTorch's dtype dispatch comes before its dim check)
        raise StridedNotImplementedError(join_lines(
            "\"trace\" not implemented for 'Bool'", "fix: x.to(strided.int64).trace()"))
    if len(shape) != 2:
        raise StridedRuntimeError(join_lines(
            f"trace: expected a matrix, but got tensor with dim {len(shape)}",
            f"the tensor's shape is {shape}: trace sums the main diagonal of a 2-d tensor",
            "fix: x.diagonal(dim1=-2, dim2=-1).sum(-1) for a batch of matrices"))
    d = x._dtype
    if d is float32 or d is float64:
        total = _trace_in_python(x)
        if total is not None:
            # (a cast that can neither overflow nor underflow: no fpstate call)
            if d is float64 or _FLOAT32_TINY <= abs(total) <= _FLOAT32_MAX or total == 0.0:
                res = _empty(1, d.numpy)
                res[0] = total
            else:  # (past float32's range, or subnormal: quietly, as PyTorch's cast)
                res = quiet_call(np.array, (total,), d.numpy)
            return adopted(res, _SCALAR, d)
    acc = _TRACE_ACC.get(d.name)
    if acc is not None:
        # PyTorch's trace_cpu: ``sum = 0; sum += diag[i]`` in order, in acc_type (double for
        # float32: rounded once at the end), not sum's pairwise float32 reduction (whose last
        # bits differ in most float32 and float64 traces); cumsum is that running sum, and the
        # + 0.0 is the sum's start (a diagonal of -0.0 gives +0.0)
        diag = _diagonal(x)
        total = _compiled_trace(diag)
        if total is not None:
            return adopted(total, _cinfo[()][2], d)
        # (quietly: a sum that overflows to inf warns in NumPy, never in PyTorch)
        total = quietly(np.cumsum, diag, dtype=acc)[-1:] + acc(0) if diag.size else np.zeros(1, acc)
        return adopted(quietly(total.astype, d.numpy), _cinfo[()][2], d)
    return x.diagonal().sum()


def _diagonal(x: Tensor) -> np.ndarray:
    """The main diagonal of the matrix ``x`` as a NumPy view: a strided slice of the storage's
    buffer (element i at offset + i * (stride0 + stride1)), or, where that slice would not hold
    every element (a zero step, a layout past the buffer), numpy_view's checked view's diagonal."""
    lay = x._layout
    k = min(lay.shape)
    step = lay.strides[0] + lay.strides[1]
    if k and step > 0:
        diag = x._storage.array[lay.offset: lay.offset + (k - 1) * step + 1: step]
        if diag.shape[0] == k:
            return diag
    return numpy_view(x._storage, lay).diagonal()


def _compiled_trace(diag: np.ndarray) -> np.ndarray | None:
    """trace's sum of a float32/float64 ``diag`` of 1 to 4096 elements by the compiled running
    sum (``scan``: r_0 = x_0, r_k = r_{k-1} + x_k in double, the last stored as r + 0.0 rounded
    once to the dtype), as a fresh 1-element array: the cumsum path's operations and rounding,
    where NumPy's accumulate costs ~9 ns an element (1024: ~13 us -> ~3 us). None otherwise."""
    k = special()
    if k is None or not 0 < diag.size <= 4096 or diag.dtype not in _SCAN_TRACE:
        return None
    x = np.ascontiguousarray(diag)
    run = np.empty_like(x)
    if not k.scan(x, run, x.size, 1, False):
        return None
    return run[-1:].copy()


_SCAN_TRACE = (np.dtype(np.float32), np.dtype(np.float64))

def _trace_in_python(x: Tensor) -> float | None:
    """The float32/float64 trace's double sum, in PyTorch's order, as a Python float (None: take
    the NumPy path). The general path's ``np.cumsum(diag, float64)[-1] + 0.0`` adds ``d0 + d1``,
    then each next element, then ``+ 0.0``: the same double additions in the same order and
    operand order (so the same rounding and -0.0) as this loop over the diagonal read as Python
    floats (float32 to double is exact, as cumsum's cast); a NaN sum goes to the NumPy path (its
    sign and payload are not Python's to choose). Only for short diagonals (the loop is Python)
    over a storage the slice reads in bounds."""
    rows, cols = x._layout.shape
    n = rows if rows < cols else cols
    if n == 0 or n > 64:
        return None
    s0, s1 = x._layout.strides
    step = s0 + s1
    if step <= 0:  # (an expanded 0-stride matrix: NumPy's view reads it)
        return None
    off = x._layout.offset
    vals = x._storage.array[off : off + (n - 1) * step + 1 : step]
    if len(vals) != n:  # (past the storage: the general path raises its error)
        return None
    vals = vals.tolist()
    total = vals[0]
    for v in vals[1:]:
        total += v
    total += 0.0
    # (a NaN sum: which NaN operand Python's float + returns depends on the interpreter's state --
    # the generic add of a cold call returns the second, the specialized add the first -- so its
    # sign and payload are left to the NumPy path's, PyTorch's)
    return total if total == total else None


# trace's accumulator per dtype (PyTorch's at::acc_type on CPU); integers: sum's int64
_TRACE_ACC = {"float16": np.float32, "bfloat16": np.float32, "float32": np.float64, "float64": np.float64,
              "complex64": np.complex128, "complex128": np.complex128}

seal(globals())  # (last: this module's ops with a backward rule become their recording entries)


def _install_prod_front(namespace: dict[str, Any]) -> None:
    """Put a compiled front (:mod:`.._support.front`) before ``prod``'s entry (function and method):
    ``x.prod()`` of a plain row-major float32/float64 tensor of at least one dim at offset 0 over
    exactly its storage, outside autograd with nobody listening, makes
    :func:`_row_major_products`' ``torch_prod_rows`` call from C (one row of every element, strict:
    a NaN product answers False, whose payload the entry's NumPy path decides) into the fresh 0-d
    result; every other call goes to the entry."""
    k = native._compiled("_specialkernel")  # (the module itself: the front reads the switch per call)
    if k is None:
        return
    scalar = _cinfo[()][2]
    entry = namespace["prod"]
    # (dense: a transpose's product over every element is its storage run's in memory order, the
    # line PyTorch's iterator walks and _transposed_products multiplies)
    front = compiled_front(entry, 1, {d: (None, True, None, kernel_entry(k.torch_prod_rows, (0, True), d.numpy,
                                                                          whole=scalar))
                                      for d in (float32, float64)}, dense=(float32, float64))
    if Tensor.__dict__.get("prod") is entry:
        Tensor.prod = front  # type: ignore[method-assign]
    namespace["prod"] = front


_install_prod_front(globals())
# the kinds of this module's ops, in the op registry (after the seal: the forwards are the entries)
@method("sum_to_size")
def sum_to_size(self: Tensor, *size: Any) -> Tensor:
    """``self`` summed down to ``size``, a shape ``self`` broadcasts from (PyTorch's
    ``sum_to_size``: the dims ``size`` lacks, and those where it has 1, are summed; ``self``
    itself when the shapes are equal). A composite of ``sum`` and ``view``, as PyTorch's.

    >>> strided.ones(2, 3).sum_to_size(1, 3).tolist()
    [[2.0, 2.0, 2.0]]
    """
    target = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else tuple(size)
    shape = self._layout.shape
    lead = len(shape) - len(target)
    # (a loop: this module's ``any`` is the reduction)
    if lead < 0 or [t for t, n in zip(target, shape[lead:]) if t != 1 and t != n]:
        raise StridedRuntimeError(join_lines(
            f"size {{{list(target)}}} is not expandable to size {{{list(shape)}}}.",
            f"sum_to_size sums a tensor of shape {shape} down to a shape it could have been broadcast "
            "from: each of the target's dims must be 1 or the tensor's, and it may not have more dims",
            "fix: a target that broadcasts to the tensor's shape"))
    if target == shape:
        return self
    dims = tuple(range(lead)) + tuple(lead + i for i, t in enumerate(target) if t == 1 and shape[lead + i] != 1)
    out = self.sum(dims, keepdim=True) if dims else self
    return out.view(target) if lead else out


declare(Kind.COMPUTE, "sum prod mean var std all any var_mean std_mean")
