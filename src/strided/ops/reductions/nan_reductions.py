"""More reductions: ``amax``/``amin`` (dim tuples), ``aminmax``, ``nansum``, ``nanmean``,
``logsumexp``, ``count_nonzero`` and ``norm`` (PyTorch 2.13 semantics).

Contract shared with :mod:`strided.ops.reductions.sums`: ``dim`` is None / an int / a tuple (wrapped,
IndexError out of range, RuntimeError when repeated), ``keepdim`` keeps reduced dims with size
1, the result is a fresh contiguous tensor, the input is read in place by NumPy whatever its
strides. float16 is accumulated in float32 and rounded once. ``out=`` follows
:func:`strided.ops._support.out.write_out`.
"""

from __future__ import annotations

import warnings
from typing import Any, NamedTuple

import numpy as np

from ... import layout as L
from ...args import check_keepdim
from ...callsite import user_site
from ...dispatch import adopted, result_array
from ...dtypes import (
    REDUCED_FLOATS,
    TORCH_NAME,
    DType,
    bfloat16,
    default_float,
    float32,
    float64,
    int64,
    real_of,
)
from ...errors import (
    StridedIndexError,
    StridedNotImplementedError,
    StridedRuntimeError,
    StridedTypeError,
    join_lines,
)
from ...grad_mode import count_kernel_writes
from ...gradients import seal
from ...kernels import native, npcore, torch_loops, vml_route
from ...kernels.bf16_casts import copy_nans_as, number_nans
from ...kernels.elementwise import ufunc_kernel
from ...kernels.fpstate import QUIET, quiet_reset, quiet_set
from ...kernels.listeners import silenced
from ...kernels.memory import numpy_view, reduced_cast_source
from ...kernels.reduce import holds_nan, kept_run
from ...kernels.rows import MIN_ELEMENTS as _ROWS_MIN
from ...kernels.rows import add_reduce, max_reduce, min_reduce, minmax_reduce
from ...kernels.rows import extreme_all as extreme_all_kernel
from ...kernels.rows import lse_shift as _lse_shift
from ...kernels.sleef import exp_kernel
from ...lazy_names import function_on_first_call, module_on_first_use
from ...opdef import Kind, declare
from ...tensor import Tensor, tensor_arg
from .._support import gradtools, support
from .._support.fast_reduce import (
    CASCADE_PLANS,
    cascade_reduce,
    fast_operand,
    fast_plan,
    fast_reduce,
    install_whole_extreme_fronts,
    planned_sum,
    row_extremes,
    sure_extreme,
)
from .._support.front import compiled_front, kernel_entry
from .._support.memo import Memo
from .._support.operands import _cinfo
from .._support.out import _dtype_mismatch, check_out, write_out, write_pair_out
from .._support.promotion import TORCH_NAMES, promote_types
from .._support.reduce_args import numpy_axes, optional_dtype, reduced_shape, reduction_dims, shape_text
from ..registry import backward, method

# (PyTorch's summation orders: loaded on the first reduction that needs one; see strided.lazy_names.function_on_first_call)
sum_array = function_on_first_call("strided.kernels.torch_sum", "sum_array", globals())

# (helper modules only some calls need, loaded on first use: issue 23)
torch_extreme_reduce = module_on_first_use("strided.kernels.torch_extreme_reduce", globals())


class AminmaxResult(NamedTuple):
    """Result of ``aminmax``: the smallest and the largest values (shown as ``aminmax(min=..., max=...)``,
    as torch.return_types.aminmax).

    # Note: defined here rather than in :mod:`strided.ops._support.return_types` (another part of the
    # work edits that module); the lead may move it there as ``return_types.aminmax``.
    """

    min: Tensor
    max: Tensor


AminmaxResult.__name__ = AminmaxResult.__qualname__ = "aminmax"  # (its repr, as PyTorch's)


def _aminmax_remade(lo: Tensor, hi: Tensor) -> AminmaxResult:
    """An unpickled aminmax result (see below)."""
    return AminmaxResult(lo, hi)


# pickled through a module-level function: the class itself cannot be found by its qualname
# ('aminmax' in this module is the op), which made pickle.dumps(x.aminmax()) raise PicklingError
# where PyTorch's torch.return_types.aminmax pickles
AminmaxResult.__reduce__ = lambda self: (_aminmax_remade, tuple(self))  # type: ignore[method-assign,assignment]
_tuple_new = tuple.__new__
_SCALAR = _cinfo[()][2]  # (the 0-d result's layout, shared)


def _finish(result: Tensor, out: Any, op: str, inputs: tuple, same_dtype: str = "",
            reduced: tuple | None = None) -> Tensor:
    """A fresh result as it is (its entry reports it), or written into ``out=`` (``reduced``:
    amax/amin's reduced dims and keepdim, :func:`strided.ops._support.out.write_out`)."""
    if out is None:
        return result

    return write_out(out, result, op, inputs, same_dtype, reduced=reduced)


def _acc(d: DType) -> np.dtype:
    return np.dtype(np.float32) if d in REDUCED_FLOATS else d.numpy


class _Quiet:
    """NumPy's floating-point warnings off for a block (PyTorch gives inf/nan silently)."""

    def __enter__(self) -> None:
        self.token = quiet_set(QUIET)

    def __exit__(self, *exc: Any) -> None:
        quiet_reset(self.token)


# ---------------------------------------------------------------- amax, amin, aminmax


def _check_nonempty(t: Tensor, dims: tuple[int, ...] | None, op: str, given: Any = None) -> None:
    """PyTorch's errors for a max/min over nothing (there is no identity to return)."""
    shape = t._layout.shape
    if dims is None:
        if t.numel() == 0:
            raise StridedRuntimeError(
                join_lines(
                    f"{op}(): Expected reduction dim to be specified for input.numel() == 0. "
                    "Specify the reduction dim with the 'dim' argument.",
                    f"the tensor has shape {shape_text(shape)} and no elements; reduce along a non-empty "
                    f"dim instead, e.g. t.{op}(dim={next((d for d, n in enumerate(shape) if n), 0)})",
                )
            )
        return
    named = tuple(given) if isinstance(given, (tuple, list)) else (given,) * len(dims)
    for d, name in zip(dims, named):
        if shape and shape[d] == 0:
            raise StridedIndexError(
                join_lines(
                    f"{op}(): Expected reduction dim {name} to have non-zero size.",
                    f"the tensor has shape {shape_text(shape)}: dim {d} is empty, so there is no "
                    f"{'largest' if 'max' in op else 'smallest'} element",
                )
            )


def _extreme(t: Tensor, dim: Any, keepdim: bool, op: str, largest: bool, check: bool = True) -> Tensor:
    tensor_arg(t, op)
    keepdim = check_keepdim(keepdim, op)
    try:
        dims = reduction_dims(t, dim, op)
    except StridedRuntimeError:  # a repeated dim: PyTorch checks the dims' sizes first
        ndim = len(t._layout.shape)
        _check_nonempty(t, tuple(L.wrap_dim(int(d), ndim) for d in dim), op, dim)
        raise
    _check_nonempty(t, dims, op, dim)
    if check:
        support.check(op, t._dtype, (t,))  # complex (no order) and uint16/32/64: PyTorch has no kernel
    shape = t._layout.shape
    result, res_np = result_array(reduced_shape(shape, dims, keepdim), t._dtype)
    (np.maximum if largest else np.minimum).reduce(t._np(), axis=numpy_axes(dims, len(shape)), out=res_np,
                                                   keepdims=keepdim)
    return result


@method("amax")
def amax(input: Tensor, dim: Any = (), keepdim: bool = False, *, out: Any = None) -> Tensor:
    """The largest values over ``dim`` (an int or a tuple; () or None: every dim); NaN propagates.

    Unlike ``max(dim)`` no indices are returned and several dims reduce at once. An empty
    reduced dim is an IndexError (there is no identity).

    >>> strided.tensor([[1, 5], [7, 2]]).amax(dim=0).tolist()
    [7, 5]
    """
    if out is None:
        full = None if dim.__class__ is tuple and not dim else dim
        t = sure_extreme(input, full, keepdim, 1)  # (no zero, no NaN: no sign to fix)
        if t is not None:
            return t
        t = row_extremes(input, full, keepdim, 1, _torch_zeros)  # (a large 2-d tensor's rows)
        if t is not None:
            return t
        t = fast_reduce(_max_reduce, input, full, keepdim)
        if t is not None:
            return _torch_zeros(t, input, dim, keepdim, True)
    return _finish(_torch_zeros(_extreme(input, dim, keepdim, "amax", True), input, dim, keepdim, True),
                   out, "amax", (input,), "input", (reduction_dims(input, dim, "amax"), keepdim))


@method("amin")
def amin(input: Tensor, dim: Any = (), keepdim: bool = False, *, out: Any = None) -> Tensor:
    """The smallest values over ``dim`` (an int or a tuple; () or None: every dim); NaN propagates.

    >>> x = strided.tensor([[1, 5], [7, 2]])
    >>> x.amin().item(), x.amin(dim=1).tolist()
    (1, [1, 2])
    """
    if out is None:
        full = None if dim.__class__ is tuple and not dim else dim
        t = sure_extreme(input, full, keepdim, 0)  # (no zero, no NaN: no sign to fix)
        if t is not None:
            return t
        t = row_extremes(input, full, keepdim, 0, _torch_zeros)  # (a large 2-d tensor's rows)
        if t is not None:
            return t
        t = fast_reduce(_min_reduce, input, full, keepdim)
        if t is not None:
            return _torch_zeros(t, input, dim, keepdim, False)
    return _finish(_torch_zeros(_extreme(input, dim, keepdim, "amin", False), input, dim, keepdim, False),
                   out, "amin", (input,), "input", (reduction_dims(input, dim, "amin"), keepdim))


def _torch_zeros(t: Tensor, x: Tensor, dim: Any, keepdim: bool, largest: bool) -> Tensor:
    """``t`` (amax / amin of ``x``, fresh) with the zeros' signs PyTorch's reduction order gives
    where the extreme is a zero of both signs (:mod:`strided.kernels.torch_extreme_reduce`)."""
    # (a fresh result: its storage holds its elements alone)
    if x._dtype.is_floating_point and torch_extreme_reduce.has_zero(t._storage.array):
        res = t._np()
        if res.size:
            dims = reduction_dims(x, dim, "amax" if largest else "amin")
            torch_extreme_reduce.fix(x._np(), tuple(range(x.dim())) if dims is None else dims, keepdim, res,
                                     largest)
    r = t._storage.array
    # (float16 / bfloat16: a NaN of amax/amin is the canonical one, 0x7e00 / 0x7fc0, whatever the
    # input's, where PyTorch's scalar max_impl gives it: measured on whole, last-dim and
    # transposed reductions; along one outer dim, the columns its vectorized outer walk takes in
    # whole vectors keep vec::maximum's all-ones NaN, 0xffff: _vector_lane_nans)
    if r.size and ((r.dtype.char in "fd" and _scalar_combined(x, dim)) or x._dtype in REDUCED_FLOATS):
        nan = r != r
        if nan.any():  # (PyTorch's amax/amin NaN there: quiet_NaN(), sign and payload of the input's dropped)
            r[nan] = np.nan  # (NumPy's nan: the canonical 0x7fc00000 / 0x7ff8000000000000 / 0x7e00 / 0x7fc0)
            if x._dtype in REDUCED_FLOATS:
                _vector_lane_nans(r, nan, x, dim)
    return t


def _vector_lane_nans(r: np.ndarray, nan: np.ndarray, x: Tensor, dim: Any) -> None:
    """Give the NaN results ``nan`` of float16/bfloat16 amax/amin (``r``, flat, row-major) that
    PyTorch's ``vectorized_outer_reduction`` computes by vectors the all-ones NaN (0xffff) its
    ``vec::maximum``/``minimum`` makes: a reduction along one dim that does not step by one
    element, whose innermost kept run (:func:`strided.kernels.reduce.kept_run`) does; in each
    run, the columns of whole blocks of 4 vectors (64 elements of 32-byte vectors), below the
    parallel grain (measured against torch 2.13: 2-d and 3-d, either op, both dtypes)."""
    if dim is None or (dim.__class__ in (tuple, list) and len(dim) != 1):
        return
    a = (dim[0] if dim.__class__ in (tuple, list) else dim) % max(x.dim(), 1)
    xa = x._np()
    if xa.ndim < 2 or xa.shape[a] == 1 or xa.strides[a] == xa.itemsize or xa.size >= torch_loops.GRAIN_SIZE:
        return
    m = kept_run(xa, a)
    wide = (m // 64) * 64
    if not wide:
        return
    lanes = (np.arange(r.size) % m) < wide
    r.view(np.uint16)[nan & lanes] = 0xFFFF


def _scalar_combined(x: Tensor, dim: Any) -> bool:
    """Whether PyTorch's amax/amin of ``x`` over ``dim`` ends each result in its scalar ``max_impl``
    (a NaN result is then ``quiet_NaN()``): measured for every element, and for the last dim of a
    row-major tensor. Along an outer dim its vector lanes keep ``vec::maximum``'s all-ones NaN
    instead (the columns of whole vectors), not reproduced: NumPy's NaN stays there."""
    ndim = x.dim()
    if dim is None or (dim.__class__ is tuple and (not dim or len(dim) == ndim)) or ndim <= 1:
        return True
    last = dim[0] if dim.__class__ in (tuple, list) and len(dim) == 1 else dim
    return last.__class__ is int and last % ndim == ndim - 1 and x.is_contiguous()


# np.maximum/minimum.reduce's bits; the rows of a large 2-d float array by the compiled kernel
# (kernels/rows.py)
_max_reduce, _min_reduce = max_reduce, min_reduce


@method("aminmax")
def aminmax(input: Tensor, *, dim: int | None = None, keepdim: bool = False, out: Any = None) -> AminmaxResult:
    """``(min, max)`` over one ``dim`` (None: every element), as a named tuple.

    >>> strided.aminmax(strided.tensor([3, 1, 2]))
    aminmax(min=tensor(1), max=tensor(3))
    """
    if out is not None:
        return write_pair_out(out, lambda: aminmax(input, dim=dim, keepdim=keepdim), "aminmax", (input,))
    if dim is None and keepdim is False and input.__class__ is Tensor:
        # (every element of a small plain row-major float tensor: sure_extreme's two kernel calls
        # without its plan lookup and call; a zero or NaN met: the paths below, as before)
        d = input._dtype
        lay = input._layout
        shape = lay.shape
        info = _cinfo[shape]
        x = input._storage.array
        if ((d is float32 or d is float64) and shape and lay.strides == info[0] and not lay.offset
                and len(x) == info[1] < _ROWS_MIN and (k := extreme_all_kernel()) is not None):
            lo, hi = _empty(1, d.numpy), _empty(1, d.numpy)
            if not k(x, lo, 0) and not k(x, hi, 1):
                return _tuple_new(AminmaxResult, (adopted(lo, _SCALAR, d), adopted(hi, _SCALAR, d)))
    pair = sure_extreme(input, dim, keepdim, 2)  # (no zero, no NaN: no sign to fix)
    if pair is not None:
        return _tuple_new(AminmaxResult, pair)  # (AminmaxResult(*pair) without its Python __new__)
    got = fast_operand(input, dim, keepdim)  # (the reductions' fast path, as amin's and amax's: one view, one plan)
    if got is not None:
        x, plan = got
        d = input._dtype
        # (maximum/minimum raise no floating-point warning: NaN propagates quietly)
        lo, hi = minmax_reduce(x, plan[0])  # (one pass where the row kernel takes it)
        return _aminmax_zeros(AminmaxResult(adopted(lo.reshape(-1), plan[1], d), adopted(hi.reshape(-1), plan[1], d)),
                              input, dim, keepdim)
    tensor_arg(input, "aminmax")
    if dim is not None and isinstance(dim, (tuple, list)):
        reduction_dims(input, dim, "aminmax", allow_tuple=False)  # (its TypeError)
    dims = reduction_dims(input, dim, "aminmax", allow_tuple=False)
    shape = input._layout.shape
    empty = input.numel() == 0 if dims is None else bool(shape) and shape[dims[0]] == 0
    if empty and dims is not None:
        raise StridedIndexError(
            join_lines(f"aminmax: Expected reduction dim {dims[0]} to have non-zero size.",
                       f"the tensor has shape {shape_text(shape)}; reduce along a non-empty dim"))
    if empty:
        raise StridedRuntimeError(
            join_lines(
                "aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity.",
                f"the tensor has shape {shape_text(shape)}; reduce along a non-empty dim",
            )
        )
    # (a 0-d input with a dim: PyTorch copies it, no kernel for uint16/32/64, its own complex error)
    check = not (dim is not None and not shape)
    if not check and input._dtype.is_complex:
        raise StridedRuntimeError(join_lines(f"aminmax not implemented for {TORCH_NAMES[input._dtype]}",
                                             "complex numbers have no order; compare x.abs() or x.real"))
    lo = _extreme(input, dim, keepdim, "aminmax", False, check)
    hi = _extreme(input, dim, keepdim, "aminmax", True, check)
    pair = AminmaxResult(lo, hi)
    return _aminmax_zeros(pair, input, dim, keepdim)


def _aminmax_zeros(pair: AminmaxResult, x: Tensor, dim: Any, keepdim: bool) -> AminmaxResult:
    """``pair`` (fresh) with the zeros' signs PyTorch's ``aminmax`` gives: of every element its
    vectorized order (:func:`strided.kernels.torch_extreme_reduce.fix_all`), along a dim the
    first extreme element's (:func:`strided.kernels.torch_extreme_reduce.fix_first_along`); of
    every element, a NaN's bits as max()'s (:func:`strided.kernels.torch_extreme_reduce.whole_nan`)."""
    if dim is None and x._dtype.is_floating_point:
        for r in (pair[0]._storage.array, pair[1]._storage.array):
            if r.size == 1 and r[0] != r[0]:
                torch_extreme_reduce.whole_nan(r, x.numel())
    if not x._dtype.is_floating_point or not (torch_extreme_reduce.has_zero(pair[0]._storage.array)
                                            or torch_extreme_reduce.has_zero(pair[1]._storage.array)):
        return pair  # (no zero: fresh results, their storages are their elements)
    if dim is None:
        torch_extreme_reduce.fix_all(x._np(), pair[0]._np(), False)
        torch_extreme_reduce.fix_all(x._np(), pair[1]._np(), True)
    elif x.dim():
        d = reduction_dims(x, dim, "aminmax", allow_tuple=False)[0]
        torch_extreme_reduce.fix_first_along(x._np(), d, keepdim, pair[0]._np(), False)
        torch_extreme_reduce.fix_first_along(x._np(), d, keepdim, pair[1]._np(), True)
    return pair


# ---------------------------------------------------------------- nansum, nanmean


def _float_only(t: Tensor, op: str, style: str = "nanmean", complex_ok: bool = False) -> None:
    if not (t._dtype.is_floating_point or (complex_ok and t._dtype.is_complex)):
        first = (
            f"nanmean(): expected input to have floating point or complex dtype but got {TORCH_NAMES[t._dtype]}"
            if style == "nanmean"
            else f"{op}: Expected a floating point or complex tensor as input. Got {TORCH_NAMES[t._dtype]}"
        )
        raise StridedRuntimeError(
            join_lines(
                first,
                f"the tensor of shape {shape_text(t.shape)} holds {t._dtype.name}; "
                f"fix: convert first, e.g. t.to(strided.float32)",
            )
        )


def _fast_nan(x: Any, dim: Any, keepdim: Any, mean: bool, nan_met: bool = False) -> Tensor | None:
    """nansum (``mean``: nanmean) of a float32 / float64 tensor over every dim or one int dim, no
    ``dtype=``/``out=``: PyTorch's bits (:func:`_nansum_array`, then ``/ count`` for the mean, as
    PyTorch's nanmean divides its nansum), the fresh result adopted, the parsing a memo lookup
    (:func:`strided.ops._support.fast_reduce.fast_plan`); None where the general path must run
    (its errors). ``nan_met``: the caller's sum of ``x`` held a NaN (no plain sum first)."""
    got = fast_operand(x, dim, keepdim)
    if got is None:
        return None
    a, plan = got
    axis = plan[0]
    token = quiet_set(QUIET)
    try:
        axes = None if axis is None else (axis % a.ndim,)
        if nan_met:
            total, zeroed = sum_array(a, axes, True, None, nan_zero=True), True
        else:
            total, zeroed = _nansum_array(a, axes, True)
        if mean:
            count = _add_reduce(~np.isnan(a), axis, np.int64, None, True).astype(a.dtype) if zeroed \
                else a.dtype.type(a.size // max(total.size, 1))  # (no NaN: every element counts)
            total = total / count
    finally:
        quiet_reset(token)
    return adopted(total.reshape(-1), plan[1], x._dtype)


def _nansum_array(a: np.ndarray, axes: tuple[int, ...] | None, keepdim: bool,
                  dtype: np.dtype | None = None) -> tuple[np.ndarray, bool]:
    """``torch.nansum(a, axes, keepdim, dtype=dtype)`` of a float32 / float64 array, bit for bit
    (one thread), and whether a sum met a NaN: PyTorch's nansum is its sum's cascade with each NaN
    read as 0, in the order of adds its sum takes for ``a``'s own layout
    (:func:`strided.kernels.torch_sum.sum_array` with ``nan_zero``). (inf - inf gives NaN, as in
    PyTorch.)

    >>> _nansum_array(np.float32([1.0, np.nan, 2.0]), None, False)
    (array(3., dtype=float32), True)
    """
    total = sum_array(a, axes, keepdim, dtype)
    if not holds_nan(total):
        return total, False
    return sum_array(a, axes, keepdim, dtype, nan_zero=True), True


# (array, axis, dtype, out, keepdims), positional: np.add.reduce's bits, by the row kernel's
# pairwise sums where it takes the call (kernels/rows.py): 1M float32 nansum 173 -> ~60 us
_add_reduce = add_reduce


@method("nansum")
def nansum(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None,
           out: Any = None) -> Tensor:
    """Sum over ``dim`` treating NaN as 0; bool and integer tensors give int64 (as ``sum``).

    >>> strided.nansum(strided.tensor([1.0, float("nan"), 2.0])).item()
    3.0
    """
    if dtype is None and out is None:
        # (PyTorch's nansum: its sum's compiled cascade with each NaN read as 0, planned once)
        fast = cascade_reduce(input, dim, keepdim, nan_zero=True)
        if fast is not None:
            return fast
        fast = _fast_nan(input, dim, keepdim, mean=False)
        if fast is not None:
            return fast
    tensor_arg(input, "nansum")
    support.check("nansum", input._dtype, (input,))
    keepdim = check_keepdim(keepdim, "nansum")
    dims = reduction_dims(input, dim, "nansum")
    given = _result_dtype(input, optional_dtype(dtype), out, "nansum")
    rt = given or (input._dtype if input._dtype.is_floating_point else int64)
    _nansum_kernel(input, rt, dtype is None and out is not None)
    shape = input._layout.shape
    result, res_np = result_array(reduced_shape(shape, dims, keepdim), rt)
    x = input._np()
    axes = numpy_axes(dims, len(shape))
    with _Quiet():
        if input._dtype.is_floating_point and rt.is_floating_point:  # PyTorch's bits (x.to(rt) first)
            total = sum_array(x, _axes_tuple(axes, x.ndim), keepdim, rt.numpy, nan_zero=True)
        else:
            if input._dtype.is_floating_point:
                x = np.where(np.isnan(x), x.dtype.type(0), x)  # (a temporary: NaN -> 0)
                # (bfloat16 -> integer through float, as PyTorch: ml_dtypes gives 0 out of range)
                x = reduced_cast_source(np.dtype(rt.numpy), x)
            total = np.add.reduce(x, axis=axes, dtype=_acc(rt), keepdims=keepdim)
        np.copyto(res_np, total, casting="unsafe")
    return _finish(result, out, "nansum", (input,))


def _result_dtype(input: Tensor, given: DType | None, out: Any, op: str) -> DType | None:
    """The dtype a floating ``input``'s nansum computes in with ``out=`` (PyTorch's
    get_dtype_from_result: ``out``'s own dtype; a ``dtype=`` must be the same), else ``given``."""
    if out is None:
        return given
    o = check_out(out, op)._dtype
    if given is not None and given is not o and not (input._dtype.is_floating_point and given.is_floating_point):
        raise _dtype_mismatch(given, o, op, "matmul")  # (an integer input's, or a dtype= cast to first: sum's)
    if not input._dtype.is_floating_point:
        return given
    if given is not None and given != o:
        raise StridedRuntimeError(join_lines(
            f"nansum: provided dtype must match dtype of result. Got {TORCH_NAMES[o]} and {TORCH_NAMES[given]}.",
            f"out= is {o.name}, dtype= {given.name}; fix: pass one of them, or make them agree"))
    return o


def _nansum_kernel(input: Tensor, rt: DType, from_out: bool) -> None:
    """PyTorch's refusal of a floating ``input``'s nansum computed in a complex ``rt`` (its nansum
    kernel has no complex loop; an integer input's nansum is its sum, which has), or in an integer
    / bool ``rt`` taken from ``out=`` (a ``dtype=`` one is refused before, or converts first)."""
    if input._dtype.is_floating_point and (rt.is_complex or (from_out and not rt.is_floating_point)):
        raise StridedNotImplementedError(join_lines(
            f"\"nansum_cpu\" not implemented for '{TORCH_NAMES[rt]}'",
            f"a {input._dtype.name} tensor's nansum in {rt.name}; fix: nansum in a float dtype, then convert"))


def _axes_tuple(axes: Any, ndim: int) -> tuple[int, ...] | None:
    """A NumPy ``axis=`` argument (None, an int or a tuple) as :func:`sum_array`'s dims."""
    if axes is None:
        return None
    return tuple(a % ndim for a in (axes if isinstance(axes, tuple) else (axes,)))


@method("nanmean")
def nanmean(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None,
            out: Any = None) -> Tensor:
    """Mean over ``dim`` of the non-NaN elements (all NaN: NaN); float tensors only.

    >>> strided.nanmean(strided.tensor([1.0, float("nan"), 3.0])).item()
    2.0
    """
    if dtype is None and out is None:
        # (without a NaN, PyTorch's nanmean is its mean: every element counted)
        fast = cascade_reduce(input, dim, keepdim, mean=True)
        if fast is not None and not holds_nan(fast._storage.array):
            return fast
        fast = _fast_nan(input, dim, keepdim, mean=True, nan_met=fast is not None)
        if fast is not None:
            return fast
    tensor_arg(input, "nanmean")
    given = optional_dtype(dtype)
    if given is not None and given.kind not in "fc" and input._dtype.kind in "fc":
        raise StridedRuntimeError(join_lines(
            "nanmean(): could not infer output dtype. Optional dtype must be either a floating point or "
            f"complex dtype. Got: {TORCH_NAMES[given]}",
            "fix: pass dtype=strided.float32 (or float64), or none"))
    support.check("nanmean", input._dtype, (input,))  # (complex: PyTorch's nansum refuses it)
    _float_only(input, "nanmean")
    keepdim = check_keepdim(keepdim, "nanmean")
    dims = reduction_dims(input, dim, "nanmean")
    rt = _result_dtype(input, given, out, "nanmean") or input._dtype
    _nansum_kernel(input, rt, dtype is None and out is not None)
    shape = input._layout.shape
    result, res_np = result_array(reduced_shape(shape, dims, keepdim), rt)
    x = input._np()
    axes = numpy_axes(dims, len(shape))
    with _Quiet():
        nan = np.isnan(x)
        if rt.is_floating_point:  # PyTorch's nansum's bits (x.to(rt) first)
            total = sum_array(x, _axes_tuple(axes, x.ndim), keepdim, rt.numpy, nan_zero=True)
        else:
            total = np.add.reduce(np.where(nan, x.dtype.type(0), x), axis=axes, dtype=_acc(rt), keepdims=keepdim)
        count = np.add.reduce(~nan, axis=axes, dtype=np.int64, keepdims=keepdim)
        if rt in REDUCED_FLOATS:  # PyTorch: nansum(x) (rounded to the 2-byte dtype), then / count
            total = total.astype(rt.numpy).astype(_acc(rt))
            if count.ndim:  # (the int64 count promoted to the 2-byte dtype; a 0-d one is a CPU scalar,
                count = count.astype(rt.numpy)  # which PyTorch's div reads as a float, unrounded)
        np.copyto(res_np, total / count.astype(_acc(rt)), casting="unsafe")
    if out is None:
        return result
    # (PyTorch's nanmean(out=) is nansum(out=) then out.div_(count): two writes its _version counts)
    return count_kernel_writes(_finish(result, out, "nanmean", (input,)), 1)


# ---------------------------------------------------------------- logsumexp


def _fast_logsumexp(x: Any, dim: int, keepdim: Any) -> Tensor | None:
    """logsumexp of a float32 / float64 tensor over one int dim: the general path's NumPy calls
    on the same view (the steps after the max written in place into the one work array), their
    fresh result adopted, the parsing a memo lookup; None where the general path must run. A
    row-major tensor, the sum kernel built: :func:`_lse_rows` (the same steps, planned once per
    shape); else :func:`lse_steps`."""
    plan = fast_plan(x, dim, keepdim)
    if plan is None:
        return None
    lay = x._layout
    info = _cinfo[lay.shape]
    if lay.strides == info[0] and (k := native.sums()) is not None:  # (row-major: its flat run, reshaped)
        a = x._storage.array
        if lay.offset or len(a) != info[1]:
            a = a[lay.offset : lay.offset + info[1]]
            if len(a) != info[1]:  # (a tensor unpickled past its storage: the general path refuses it)
                return None
        rows = _LSE_ROWS[(lay.shape, plan[0], a.itemsize)]
        if rows is not None:
            token = quiet_set(QUIET)
            try:
                total = _lse_rows(a.reshape(lay.shape), plan[0], rows, k)
            finally:
                quiet_reset(token)
            return adopted(total, plan[1], x._dtype)
    got = fast_operand(x, dim, keepdim)
    if got is None:
        return None
    a, plan = got
    token = quiet_set(QUIET)
    try:
        total = lse_steps(a, (plan[0],), False)
    finally:
        quiet_reset(token)
    return adopted(total.reshape(-1), plan[1], x._dtype)


def _lse_rows(x: np.ndarray, axis: int, rows: tuple, k: Any) -> np.ndarray:
    """:func:`lse_steps` of a non-empty row-major ``x`` over ``axis`` (not kept), flat: the same
    calls in the same order on the same layouts (the max kept, an infinite max made 0, ``x - m``
    into a fresh row-major temporary, exp there, the sum kernel's call ``rows`` (:data:`_LSE_ROWS`:
    :func:`planned_sum`'s plan of that temporary), log, ``+ m``), so the same bits, without the per-call
    planning (the key's strides, the temporary's layout test). Over the last axis the compiled
    ``lse_shift`` (:mod:`strided.kernels.rows`) takes the max and ``x - m`` in one pass over each row
    (both exact: the same values; a NaN row's NaN is made the quiet NaN at the end all the same).
    The result: the reduced shape's row-major run, 1-d."""
    flat = _empty(rows[8], x.dtype)
    work = flat.reshape(x.shape)
    shift = _lse_shift() if axis == x.ndim - 1 else None
    if shift is not None:  # (the last axis: the max and x - m in one pass over each row, the same values)
        m = _empty(x.shape[:-1] + (1,), x.dtype)
        shift = shift(x, flat, m)
    if not shift:
        m = _MAX(x, axis, None, None, True)
        infinite = _isinf(m)  # (-inf rows: exp(-inf - 0) = 0, log 0 = -inf; +inf rows: +inf)
        if _count_nonzero(infinite):
            np.copyto(m, x.dtype.type(0), where=infinite)
        _subtract(x, m, out=work)
    d = flat.dtype
    _EXP(work, work, d)
    res = _zeros(rows[5], d)
    k.cascade(flat, rows[0], rows[1], rows[2], rows[3], res, 0)
    total = res.reshape(rows[4].shape)
    _LOG(total, total, d)
    _add(total, m.reshape(total.shape), out=total)
    return _canonical_nans(res)


def _lse_row_plan(key: tuple[tuple[int, ...], int, int]) -> tuple | None:
    """:data:`_LSE_ROWS`' entry for ``(shape, axis, itemsize)``: :func:`planned_sum`'s cascade plan of a
    fresh row-major temporary of that shape (its strides as NumPy lays it out) over ``axis``, with
    the element count appended; None where :func:`planned_sum` would not take the kernel's call."""
    shape, axis, isz = key
    n = L.product(shape)
    strides = np.empty(n, f"f{isz}").reshape(shape).strides
    plan = CASCADE_PLANS[(shape, tuple(st // isz for st in strides), axis, False, isz)]
    return None if plan is None else (*plan, n)


_LSE_ROWS = Memo(_lse_row_plan)
_MAX, _isinf, _empty, _zeros = np.maximum.reduce, np.isinf, np.empty, np.zeros
_subtract, _add = np.subtract, np.add


def lse_steps(x: np.ndarray, axes: tuple[int, ...], keepdim: bool) -> np.ndarray:
    """``logsumexp`` of a non-empty float32 / float64 array over ``axes`` (wrapped dims, none
    repeated) as a fresh row-major array of the reduced shape, bit for bit PyTorch 2.13's
    ``logsumexp_out_impl`` (one thread): the max ``m`` (kept dims; an infinite max: 0), then
    ``(x - m)`` into a temporary of TensorIterator's layout (:func:`strided.layout.elementwise_output_strides`:
    ``x``'s dim order), ``exp`` there in place (MKL VML where :mod:`strided.kernels.vml_route` runs,
    as ``exp``'s kernel), the sum in PyTorch's order over that layout
    (:func:`strided.kernels.torch_sum.sum_array`), ``log`` in place, ``+ m``. Floating-point
    warnings are the caller's to silence. No listener sees these steps (the caller reports once)."""
    m = np.maximum.reduce(x, axes, None, None, True)
    if not x.ndim:  # (a 0-d x's "max": NumPy's scalar, made an array to be written)
        m = np.array(m)
    infinite = np.isinf(m)  # (-inf rows: exp(-inf - 0) = 0, log 0 = -inf; +inf rows: +inf)
    if _count_nonzero(infinite):  # (a count is a fifth of np.where's cost)
        np.copyto(m, x.dtype.type(0), where=infinite)
    work, flat = _iterator_temporary(x, m.shape)
    np.subtract(x, m, out=work)
    _EXP(work, work, work.dtype)
    total = planned_sum(work, flat, axes)
    if keepdim:
        total = total.reshape(m.shape)
    _LOG(total, total, total.dtype)
    np.add(total, m if keepdim else m.reshape(total.shape), out=total)
    return _canonical_nans(total)


def _canonical_nans(total: np.ndarray) -> np.ndarray:
    """``total`` (logsumexp's result, written in place) with each NaN the standard quiet NaN
    (0x7fc00000 / 0x7ff8000000000000), as PyTorch's: a NaN row's max is amax's quiet_NaN(), and
    ``self - maxes`` (fmadd(maxes, -1, self)) keeps that word for the whole row."""
    nan = total != total
    if _count_nonzero(nan):
        total[nan] = np.nan
    return total


def _iterator_temporary(x: np.ndarray, m_shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """An uninitialised array of ``x``'s shape and dtype laid out as PyTorch's ``self - maxes``
    (``maxes`` row-major of ``m_shape``, stretched): TensorIterator's output strides, which decide
    the order :func:`sum_array` adds in; with its memory, a flat run (its first element first).
    A row-major or column-major ``x`` (dense, no ties of strides but size-1 dims', which no sum
    order reads) gives its own layout, as TensorIterator's sort of ``x``'s strides does."""
    flat = np.empty(x.size, x.dtype)
    if x.flags.c_contiguous:
        return flat.reshape(x.shape), flat
    if x.flags.f_contiguous:
        return flat.reshape(x.shape, order="F"), flat
    isz = x.itemsize
    strides = L.elementwise_output_strides(
        x.shape, ((x.shape, tuple(s // isz for s in x.strides)), (m_shape, L.contiguous_strides(m_shape))))
    return np.lib.stride_tricks.as_strided(flat, x.shape, tuple(s * isz for s in strides)), flat


_count_nonzero = np.count_nonzero
# exp's and log's float32 / float64 kernels (``strided.exp`` / ``strided.log``'s own: MKL VML's where
# kernels.vml_route runs, PyTorch's bits), called as ``(x, out, compute dtype)``
_EXP = vml_route.kernel("exp", exp_kernel)
_LOG = vml_route.kernel("log", ufunc_kernel(np.log))

# logsumexp's ``dim`` when not given: PyTorch's parser requires it (dim=() names every dim)
_DIM_MISSING: Any = object()


def _no_dims_refused(shape: tuple[int, ...]) -> StridedRuntimeError:
    """PyTorch 2.13's refusal of ``logsumexp(x, dim=())`` without keepdim on a non-empty x of 1 or
    more dims: its composite adds the max (amax over every dim, kept: shape [1, ...]) into the
    0-d sum in place, a broadcast that cannot write."""
    ones = ", ".join("1" for _ in shape)
    return StridedRuntimeError(join_lines(
        f"output with shape [] doesn't match the broadcast shape [{ones}]",
        "logsumexp with dim=() reduces every dim, and PyTorch's composite then fails unless keepdim=True",
        f"fix: name the dims: strided.logsumexp(x, dim={tuple(range(len(shape)))}), or keepdim=True"))


def logsumexp(input: Tensor, dim: Any = _DIM_MISSING, keepdim: bool = False, *, out: Any = None) -> Tensor:
    """``log(sum(exp(x)))`` over ``dim``, computed stably: the max is taken out first, so large
    inputs do not overflow; a row of -inf gives -inf, a row holding +inf gives +inf. Integer
    and bool inputs give the default float.

    >>> round(strided.logsumexp(strided.tensor([1000.0, 1000.0]), 0).item(), 4)  # 1000 + log(2), in float32
    1000.6932
    """
    if out is None and dim.__class__ is int:
        fast = _fast_logsumexp(input, dim, keepdim)
        if fast is not None:
            return fast
    tensor_arg(input, "logsumexp")
    if dim is _DIM_MISSING:  # (PyTorch's logsumexp has no default dim: every dim is spelt dim=())
        raise StridedTypeError(
            join_lines('logsumexp() missing 1 required positional arguments: "dim"',
                       f"fix: name the dims: strided.logsumexp(x, dim={tuple(range(input.ndim))})")
        )
    if dim is None:  # (PyTorch's logsumexp has no "every dim" None, unlike amax or nansum)
        raise StridedTypeError(
            join_lines("logsumexp(): argument 'dim' (position 2) must be tuple of ints, not NoneType",
                       f"fix: name the dims: strided.logsumexp(x, dim={tuple(range(input.ndim))})")
        )
    keepdim = check_keepdim(keepdim, "logsumexp")
    if isinstance(out, Tensor) and not (out._dtype.is_floating_point or out._dtype.is_complex):
        # (PyTorch's logsumexp_out checks out='s dtype first, before the dims and the shape)
        raise StridedRuntimeError(join_lines(
            f"logsumexp(): Expected floating point type for result tensor, but got: {TORCH_NAME[out._dtype.name]}",
            f"out= is {out._dtype.name}, but logsumexp's result is a floating point or complex number; "
            "fix: pass a float out= tensor, or convert afterwards: strided.logsumexp(x, dim).to(dtype)"))
    dims = reduction_dims(input, dim, "logsumexp")
    if not dims and not keepdim and input._layout.shape and L.product(input._layout.shape):
        raise _no_dims_refused(input._layout.shape)
    d = input._dtype
    rt = d if d.is_floating_point or d.is_complex else default_float()
    shape = input._layout.shape
    result, res_np = result_array(reduced_shape(shape, dims, keepdim), rt)
    axes = numpy_axes(dims, len(shape))
    acc = _acc(rt)
    # (an integer input with out=: PyTorch's logsumexp_out runs on input.to(the default float))
    source = input if rt is d else input.to(rt)  # (PyTorch's logsumexp_out: self.to(the default float))
    into = _lse_into(source, out, rt)
    if into is not None and (shape or d.is_complex) and L.product(shape):
        return _lse_out(source, out, into, axes, dims, keepdim)
    if into is not None and d.is_complex:  # (no element: sum_out's zeros, logged: -inf, after the cast's warning)
        warnings.warn("Casting complex values to real discards the imaginary part", UserWarning, stacklevel=user_site()[1])
        result, res_np = result_array(reduced_shape(shape, dims, keepdim), into)
        res_np[...] = -np.inf
        return write_out(out, result, "logsumexp", (input,))
    with _Quiet():
        if (rt is float32 or rt is float64) and L.product(shape):
            x = source._np()
            r = lse_steps(x, tuple(range(x.ndim)) if axes is None else axes, keepdim)
            np.copyto(res_np, r, casting="unsafe")
            return _finish(result, out, "logsumexp", (input,))
        x = input._np().astype(acc, copy=False)
        if x.size == 0:
            # an empty reduction: log(0) = -inf (no max to take out)
            np.copyto(res_np, np.log(np.add.reduce(np.exp(x), axis=axes, keepdims=keepdim)), casting="unsafe")
        else:
            # (complex: PyTorch takes the max of the real parts out, so the log keeps its branch)
            m = np.maximum.reduce(x.real if d.is_complex else x, axis=axes, keepdims=True)
            m = np.where(np.isinf(m), acc.type(0), m)  # -inf rows: exp(-inf - 0) = 0, log 0 = -inf
            if d in REDUCED_FLOATS:
                # PyTorch's logsumexp is composite (amax, sub, exp_, sum, log_, add_): each step
                # rounds to the 2-byte dtype, so its result differs by an ulp from one float32 pass
                def rnd(v: np.ndarray) -> np.ndarray:
                    return v.astype(d.numpy).astype(acc)
                s = rnd(np.add.reduce(rnd(np.exp(rnd(x - m))), axis=axes, keepdims=True))
                r = rnd(np.log(s)) + m
            else:  # (complex)
                s = np.add.reduce(np.exp(x - m), axis=axes, keepdims=True)
                r = np.log(s) + m
            np.copyto(res_np, r if keepdim else r.reshape(res_np.shape), casting="unsafe")
    return _finish(result, out, "logsumexp", (input,))


@method("logsumexp")
def _logsumexp_method(self: Tensor, dim: Any = _DIM_MISSING, keepdim: bool = False) -> Tensor:
    """``Tensor.logsumexp``: :func:`logsumexp` without ``out=``. PyTorch's method has none: an
    ``out=`` is Python's TypeError "logsumexp() got an unexpected keyword argument 'out'", as
    PyTorch's parser says it (where ``dim`` is missing too PyTorch names the missing ``dim`` first)."""
    return logsumexp(self, dim, keepdim)


_logsumexp_method.__name__ = _logsumexp_method.__qualname__ = "logsumexp"  # (the name in Python's TypeError)


def _lse_into(input: Tensor, out: Any, rt: DType) -> DType | None:
    """The dtype of an ``out=`` logsumexp writes otherwise than by a cast of its own result: a
    real float ``out`` of another dtype than a float ``input``'s (:func:`_lse_out`: PyTorch sums,
    logs and adds in the out's dtype), else None."""
    if not isinstance(out, Tensor) or rt is not input._dtype:
        return None
    o = out._dtype
    if rt.is_complex:  # (a real out: PyTorch's sum_out casts exp's complex values, its warning)
        return o if o.kind == "f" else None
    if rt is not float32 and rt is not float64 and rt not in REDUCED_FLOATS:
        return None
    return o if o is not rt and o.kind == "f" else None


def _lse_out(input: Tensor, out: Tensor, into: DType, axes: Any, dims: Any, keepdim: bool) -> Tensor:
    """logsumexp of a non-empty float32/float64 (or complex: the real parts of its ``exp``, PyTorch's
    cast, summed) ``input`` (with dims, over ``dims``: NumPy's ``axes``) into an ``out`` of the float dtype ``into``
    (not ``input``'s), as PyTorch's ``logsumexp_out_impl`` composes it: the max ``m`` (infinite: 0)
    taken out in ``input``'s dtype, ``exp`` there, ``sum_out`` into ``out`` (``input.to(into)``
    first, :func:`strided.kernels.torch_sum.sum_array`), ``log_`` in ``into``, then ``add_(m)``:
    in ``into`` where the result is 0-d (``m`` a 0-d tensor: ``into`` wins the promotion, ``m``
    rounded to it), else in the promoted dtype, through a contiguous temporary copied into ``out``.
    A bfloat16 ``out``'s NaN words: the 0-d add's scalar tail 0x7FC0, else that copy's
    (:mod:`strided.kernels.bf16_casts`)."""
    on = np.dtype(into.numpy)
    wide = _acc(into)

    def rounded(v: np.ndarray) -> np.ndarray:  # (to ``into`` and back to its arithmetic dtype)
        return reduced_cast_source(on, v).astype(on).astype(wide)

    x = input._np()
    complex_input = x.dtype.kind == "c"
    if complex_input:  # (sum_out's cast of exp's complex values: their real parts)
        warnings.warn("Casting complex values to real discards the imaginary part", UserWarning, stacklevel=user_site()[1])
    with _Quiet():
        # (complex: the max of the real parts, as the complex result's; sum_array's dtype= conversion
        # takes the real parts as PyTorch's dense cast, before its float sum)
        m = np.maximum.reduce(x.real if complex_input else x, axis=axes, keepdims=True)
        m = np.where(np.isinf(m), m.dtype.type(0), m)
        if complex_input:
            s = sum_array(np.exp(x - m), axes, True, on).astype(wide)
            lg = np.log(s)
        else:  # (exp and log: strided.exp's / strided.log's kernels, as lse_steps; exp_ on self - maxes' layout)
            work = _iterator_temporary(x, m.shape)[0]
            np.subtract(x, m, out=work)
            _EXP(work, work, work.dtype)
            s = sum_array(work, axes, True, on).astype(wide)
            if on == wide:  # (a float32 / float64 out's log_: VML's; a 2-byte out's keeps NumPy's float32 log)
                lg = np.empty_like(s)
                _LOG(s, lg, lg.dtype)
            else:
                lg = np.log(s)
        if complex_input:  # (real parts can sum below 0: PyTorch's log_ gives the positive quiet NaN there)
            lg = np.where(s < 0, np.abs(lg), lg)
        lg = rounded(lg)
        if not keepdim:
            lg, m = lg.reshape(reduced_shape(x.shape, dims, False)), m.reshape(reduced_shape(x.shape, dims, False))
        common = promote_types(into, real_of(input._dtype))  # (add_'s operand: the max, real)
        c = np.dtype(common.numpy)
        r = reduced_cast_source(on, lg.astype(c) + m.astype(c)).astype(on)
        if complex_input and on == np.float16:  # (a negative sum's NaN: PyTorch's float16 word is 0x7FFF,
            # measured over 1-d to 3-d inputs, any dims and keepdim; float32 / bfloat16 are the above's)
            r = np.array(r)  # (a 0-d sum gives a NumPy scalar)
            r.view(np.uint16)[(s < 0).reshape(r.shape)] = 0x7FFF
    result, res_np = result_array(r.shape, into)
    res_np[...] = r
    written = write_out(out, result, "logsumexp", (input,))
    if into is bfloat16:
        lay = written._layout
        view = numpy_view(written._storage, lay)
        if common is bfloat16:
            number_nans(view)
        else:
            copy_nans_as(view, lay.shape, L.contiguous_strides(lay.shape), np.dtype(common.numpy))
    return written


# ---------------------------------------------------------------- count_nonzero


# up to this many elements np.count_nonzero (less call overhead) counts a full reduction; beyond,
# the comparison and sum are faster on a float tensor (measured on 2**20 float32 elements)
_SMALL_COUNT = 4096
_empty, _INT64 = np.empty, np.dtype(np.int64)


def _dense_count(t: Tensor) -> int:
    """The count of ``t``'s non-zero elements by the copy kernel's count pass (``nonzero_rows``:
    AVX-512 compares and bit counts, a NaN counts, -0.0 does not), read from the storage's run
    that holds exactly its elements (a non-overlapping, dense layout in any order: a transpose's
    too, the count is the same whatever the order); -1 where that does not apply (a gap, an
    alias, a storage it does not fit, the kernel off or refusing the buffer).

    Why: over 2^20 float32 the comparison's bool temporary and its int64 sum were 0.7-0.8 ms
    (thread CPU time, loaded machine; PyTorch 0.7-1.0, NumPy's count 0.6-0.75)."""
    if not native.active():
        return -1
    lay = t._layout
    if not L.is_non_overlapping_and_dense(lay.shape, lay.strides):
        return -1
    n = _cinfo[lay.shape][1]
    run = t._storage.array[lay.offset : lay.offset + n]
    if len(run) != n:
        return -1
    return native.kernel().nonzero_rows(run, None)


@method("count_nonzero")
def count_nonzero(input: Tensor, dim: Any = None) -> Tensor:
    """How many elements are not zero over ``dim`` (an int, a tuple, or None: all), as int64.

    >>> strided.count_nonzero(strided.tensor([[0, 1], [2, 0]]), dim=0).tolist()
    [1, 1]
    """
    plan = fast_plan(input, dim, False)
    if plan is not None:  # (float32 / float64, dim None or an int: the plan instead of the parsing)
        if plan[0] is None and plan[2] <= _SMALL_COUNT:  # NumPy's count: an exact integer, as the sum below
            x = input._storage.array  # (a row-major tensor that is its storage: that flat run, no view made)
            lay = input._layout
            if lay.offset or len(x) != plan[2] or lay.strides != _cinfo[lay.shape][0]:
                x = input._np()
            res = _empty(1, _INT64)  # (np.array([n]) was twice this and the count's setitem)
            res[0] = npcore.count_nonzero(x)
        elif plan[0] is None and (n := _dense_count(input)) >= 0:
            res = _empty(1, _INT64)
            res[0] = n
        else:
            res = np.add.reduce(input._np() != 0, axis=plan[0], dtype=np.int64).reshape(-1)
        return adopted(res, plan[1], int64)
    tensor_arg(input, "count_nonzero")
    if dim is None:  # (with a dim PyTorch computes (x != 0).sum(dim), which takes every dtype)
        support.check("count_nonzero", input._dtype, (input,))
    dims = reduction_dims(input, dim, "count_nonzero")
    shape = input._layout.shape
    result, res_np = result_array(reduced_shape(shape, dims, False), int64)
    x = input._np()
    np.add.reduce(x != 0, axis=numpy_axes(dims, len(shape)), dtype=np.int64, out=res_np)
    return _finish(result, None, "count_nonzero", (input,))


# ---------------------------------------------------------------- norm


_fast_euclidean: Any = None  # linalg.norms.fast_euclidean, once norm has run


@method("norm")
def norm(input: Tensor, p: Any = "fro", dim: Any = None, keepdim: bool = False, dtype: Any = None, *,
         out: Any = None) -> Tensor:
    """PyTorch's ``torch.norm``: ``p="fro"`` (default) or a number is a vector norm over ``dim``
    (every element when None; the 2-norm for "fro"), ``p="nuc"`` a matrix norm over two dims.
    Float tensors only. Prefer :func:`strided.linalg.vector_norm` / ``matrix_norm``.

    >>> strided.norm(strided.tensor([3.0, 4.0])).item()
    5.0
    """
    if dtype is None and out is None and ((p.__class__ is str and p == "fro") or (p.__class__ in (int, float) and p == 2)):
        global _fast_euclidean
        if _fast_euclidean is None:  # (linalg.norms imports this module: looked up at the first call)
            from ..linalg.norms import fast_euclidean as _fast_euclidean
        fast = _fast_euclidean(input, dim, keepdim)
        if fast is not None:
            return fast
    tensor_arg(input, "norm")
    with silenced():  # (the linalg norm it runs is a step of this op: reported once, as "norm")
        res = _norm(input, p, dim, keepdim, dtype)
    # (PyTorch's norm writes only its own dtype into out=; "nuc" says so through matrix_norm)
    return _finish(res, out, "norm", (input,), "matrix_norm" if p == "nuc" else "matmul")


def _norm(input: Tensor, p: Any, dim: Any, keepdim: bool, dtype: Any) -> Tensor:
    from ..linalg.norms import matrix_norm, vector_norm

    if isinstance(p, str):
        if p == "fro" and (dim is None or isinstance(dim, int) or len(dim) <= 2):
            res = vector_norm(input, 2, dim, keepdim, dtype=dtype)
        elif p == "nuc":
            res = matrix_norm(input, "nuc", tuple(range(input.ndim)) if dim is None else dim, keepdim, dtype=dtype)
        else:
            raise StridedRuntimeError(
                join_lines(
                    f"norm(): unsupported p={p!r} with dim={dim!r}",
                    "p is 'fro', 'nuc' or a number; 'fro' takes at most two dims",
                )
            )
    else:
        res = vector_norm(input, p, dim, keepdim, dtype=dtype)
    return res


# ---------------------------------------------------------------- backward rules
# PyTorch's formulas (derivatives.yaml, FunctionsManual.cpp), on strided's own ops.


def _dims_of(x: Tensor, dim: Any, op: str) -> tuple[int, ...]:
    dims = reduction_dims(x, dim, op)
    return tuple(range(len(x._layout.shape))) if dims is None else tuple(sorted(dims))


def _extreme_rule(node: str, op: str) -> Any:
    def rule(out: Tensor, x: Tensor, dim: Any = (), keepdim: bool = False, **kwargs: Any) -> Any:
        """The ties of the extreme value share the gradient evenly (PyTorch's scale_grad_by_count)."""
        shape = x._layout.shape
        dims = _dims_of(x, dim, op)

        def grads(g: Tensor) -> tuple:
            mask = gradtools.keep(out, shape, dims, keepdim) == x
            return (gradtools.scale_by_count(gradtools.keep(g, shape, dims, keepdim), mask, dims),)

        return node, (x,), grads, (x, out)

    return rule


backward("amax")(_extreme_rule("AmaxBackward0", "amax"))
backward("amin")(_extreme_rule("AminBackward0", "amin"))


@backward("aminmax")
def aminmax_backward(out: Any, x: Tensor, *, dim: Any = None, keepdim: bool = False) -> Any:
    """Two differentiable outputs (min, max): each one's gradient shared by its ties, then added."""
    shape = x._layout.shape
    dims = _dims_of(x, dim, "aminmax")
    lo, hi = out

    def grads(g_min: Any, g_max: Any) -> tuple:
        total = None
        for g, value in ((g_min, lo), (g_max, hi)):
            if g is None:
                continue
            mask = gradtools.keep(value, shape, dims, keepdim) == x
            part = gradtools.scale_by_count(gradtools.keep(g, shape, dims, keepdim), mask, dims)
            total = part if total is None else total + part
        return (total,)

    return "AminmaxBackward0", (x,), grads, (x, lo, hi), "multi"


@backward("nansum")
def nansum_backward(out: Tensor, x: Tensor, dim: Any = None, keepdim: bool = False, **kwargs: Any) -> Any:
    """g times (x is a number): PyTorch's nansum_backward multiplies by the mask, so an inf or
    NaN g gives NaN where x is NaN (not 0)."""
    shape = x._layout.shape
    dims = _dims_of(x, dim, "nansum")
    return "NansumBackward0", (x,), lambda g: (gradtools.unreduce(g, shape, dims, keepdim) * x.isnan().logical_not(),
                                               ), (x,)


@backward("nanmean")
def nanmean_backward(out: Tensor, x: Tensor, dim: Any = None, keepdim: bool = False, **kwargs: Any) -> Any:
    """g / (the count of numbers) where x is a number, 0 where it is NaN.

    # Note: PyTorch computes nanmean as nansum(x) / count (its node is that division's,
    # DivBackward0, over a NansumBackward0); strided records one node under the same name.
    """
    shape = x._layout.shape
    dims = _dims_of(x, dim, "nanmean")

    def grads(g: Tensor) -> tuple:
        # (PyTorch's: g / count at the result's shape (a 0-d count a CPU scalar), then nansum's
        # backward, times the mask: an all-NaN slice (count 0) gives NaN where x is NaN)
        numbers = x.isnan().logical_not()
        count = numbers.sum(dims, keepdim=keepdim) if shape else numbers.to(x._dtype)
        return (gradtools.keep(g / count, shape, dims, keepdim) * numbers,)

    return "DivBackward0", (x,), grads, (x,)


@backward("logsumexp")
def logsumexp_backward(out: Tensor, x: Tensor, dim: Any = (), keepdim: bool = False, **kwargs: Any) -> Any:
    """g * exp(x - logsumexp(x)): the softmax of x over the reduced dims, times g."""
    shape = x._layout.shape
    dims = _dims_of(x, dim, "logsumexp")

    def grads(g: Tensor) -> tuple:
        r = gradtools.keep(out, shape, dims, keepdim)
        return (gradtools.keep(g, shape, dims, keepdim) * (x - r).exp(),)

    return "LogsumexpBackward0", (x,), grads, (x, out)


def norm_rule(out: Tensor, x: Tensor, p: Any, dim: Any, keepdim: bool, op: str) -> Any:
    """The node of a vector norm (``norm``, ``linalg.vector_norm``, ``matrix_norm`` "fro")."""
    if isinstance(p, str):
        if p != "fro":
            raise StridedRuntimeError(join_lines(
                f"{op}(p={p!r}) is not differentiable yet in strided's autograd",
                "only the vector norms (a number p, or 'fro') have a backward rule",
                f"fix: compute it outside the graph (x.detach().{op}(...)) or from differentiable ops"))
        p = 2.0
    p = float(p)
    dims = _dims_of(x, dim, op)
    # (no dim=, or an empty one, without keepdim: PyTorch's norm_backward unsqueezes nothing)
    whole = (dim is None or (isinstance(dim, (tuple, list)) and not dim)) and not keepdim
    return ("LinalgVectorNormBackward0", (x,),
            lambda g: (gradtools.norm_grad(g, x, out, p, dims, bool(keepdim), whole),), (x, out))


@backward("norm")
def norm_backward(out: Tensor, x: Tensor, p: Any = "fro", dim: Any = None, keepdim: bool = False,
                  dtype: Any = None, **kwargs: Any) -> Any:
    """PyTorch's norm_backward (``torch.norm`` is ``linalg.vector_norm``: LinalgVectorNormBackward0);
    ``p="nuc"`` is ``linalg.matrix_norm``'s."""
    if p == "nuc":
        from ..linalg.norms import matrix_norm_backward

        return matrix_norm_backward(out, x, "nuc", tuple(range(x.ndim)) if dim is None else dim, keepdim)
    return norm_rule(out, x, p, dim, keepdim, "norm")


seal(globals())  # (last: this module's ops with a backward rule become their recording entries)


def _install_aminmax_front(namespace: dict[str, Any]) -> None:
    """Put a compiled front (:mod:`.._support.front`) before ``aminmax``'s entry (function and
    method): ``x.aminmax()`` of a plain row-major float32/float64 tensor of at least one dim and
    fewer than ``rows.MIN_ELEMENTS`` elements, at offset 0 over exactly its storage, outside
    autograd with nobody listening, makes aminmax's two kernel calls from C (``extreme_pair``:
    both sure) into the two fresh 0-d results, made the named tuple; a zero or NaN met, and every
    other call, go to the entry."""
    k = native._compiled("_rowkernel")  # (the module itself: the front reads the switch per call)
    run = getattr(k, "extreme_pair", None)
    if run is None:
        return
    entry = namespace["aminmax"]
    front = compiled_front(entry, 1, {d: (None, True, None, kernel_entry(run, (), d.numpy, _ROWS_MIN - 1,
                                                                          (_SCALAR, AminmaxResult)))
                                      for d in (float32, float64)})
    if Tensor.__dict__.get("aminmax") is entry:
        Tensor.aminmax = front  # type: ignore[method-assign]
    namespace["aminmax"] = front


_install_aminmax_front(globals())


# amax() / amin() of every element: max()'s and min()'s front (the kernel call sure_extreme makes)
install_whole_extreme_fronts(globals(), (("amax", 1), ("amin", 0)))
# the kinds of this module's ops, in the op registry (after the seal: the forwards are the entries)
declare(Kind.COMPUTE, "amax amin aminmax nansum nanmean logsumexp count_nonzero norm")
