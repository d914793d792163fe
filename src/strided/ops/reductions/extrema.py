"""max, min, argmax, argmin: the reductions that also say *where*.

Contracts (PyTorch 2.13):

* ``t.max()`` reduces everything to a 0-d tensor of ``t``'s dtype; on an empty
  tensor it raises RuntimeError (there is no identity to return).
* ``t.max(dim, keepdim=False)`` returns ``return_types.max(values, indices)``;
  ``indices`` are int64 and point at the first occurrence of the extreme value.
  A dim of size 0 raises IndexError. ``t.max(other_tensor)`` is ``maximum``.
* NaN propagates: a slice holding NaN has value NaN and the index of its first NaN.
* ``argmax(dim=None)`` indexes the tensor flattened in row-major order; bool
  tensors are refused, as PyTorch does.

Results are fresh contiguous tensors. The kernels (:mod:`strided.kernels.reduce`)
read the input in place; stride-0 (expanded) dims are read once. Where NumPy's
argmax/argmin would need a contiguous copy of what remains (the reduced dim is not
the innermost), that copy is made explicitly and shows in the copy ledger.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...args import check_keepdim
from ...dispatch import OPEN, adopted, report, result_array
from ...dtypes import bool_ as bool_dtype
from ...dtypes import float32, float64, int64
from ...errors import StridedIndexError, StridedRuntimeError, StridedTypeError, join_lines
from ...grad_mode import SUBCLASSES
from ...gradients import seal
from ...kernels.memory import write
from ...kernels.reduce import arg_extreme_along, arg_extreme_flat, extreme_all
from ...kernels.rows import arg_cols
from ...kernels.rows import extreme_all as extreme_all_kernel
from ...lazy_names import module_on_first_use
from ...opdef import Kind, declare
from ...tensor import Tensor, tensor_arg
from .._support import return_types
from .._support.fast_reduce import MAXIMUM, MINIMUM, fast_reduce, install_whole_extreme_fronts
from .._support.memo import Memo
from .._support.operands import _cinfo, flat_run
from .._support.out import write_out, write_pair_out
from .._support.reduce_args import reduced_shape, reduction_dims, shape_text
from .._support.support import check as _check_support
from ..elementwise.binary import extremum_backward
from ..elementwise.unary import where
from ..registry import backward, grad_zeros, method

# (helper modules only some calls need, loaded on first use: issue 23)
torch_extreme_reduce = module_on_first_use("strided.kernels.torch_extreme_reduce", globals())


def _empty_dim_error(op: str, t: Tensor, d: int) -> StridedIndexError:
    return StridedIndexError(
        join_lines(
            f"{op}(): Expected reduction dim {d} to have non-zero size.",
            f"the tensor has shape {shape_text(t.shape)}: dim {d} is empty, so there is no "
            f"{'largest' if op.endswith('max') else 'smallest'} element to point at",
        )
    )


def _one_dim(t: Tensor, dim: Any, op: str) -> int:
    d = reduction_dims(t, dim, op, allow_tuple=False)
    assert d is not None
    return d[0]


def _fast_pair(self: Any, dim: Any, keepdim: Any, largest: bool) -> tuple[Tensor, Tensor] | None:
    """(values, indices) of max / min along an int ``dim`` where :func:`_fast_arg` applies: the
    values read at the indices found; None otherwise."""
    indices = _fast_arg(self, dim, keepdim, largest)
    if indices is None:
        return None
    lay = self._layout
    shape = lay.shape
    d = dim % len(shape)
    if d == len(shape) - 1:
        where = _ROW_STARTS[(_cinfo[shape][1], shape[-1])] + indices._storage.array
    else:  # (each result's line starts at its outer block and inner place; the index steps by inner)
        inner = _cinfo[shape][0][d]
        where = _LINE_STARTS[(_cinfo[shape][1], shape[d], inner)] + indices._storage.array * inner
    if lay.offset:
        where += lay.offset
    return adopted(self._storage.array[where], indices._layout, self._dtype), indices


def _values_and_indices(self: Tensor, dim: Any, keepdim: bool, op: str) -> tuple[Tensor, Tensor]:
    if dim.__class__ is int:  # the fast path (see _fast_arg): the values read at the indices found
        pair = _fast_pair(self, dim, keepdim, op == "max")
        if pair is not None:
            return pair
    keepdim = check_keepdim(keepdim, op)
    d = _one_dim(self, dim, op)
    shape = self._layout.shape
    if shape and shape[d] == 0:
        raise _empty_dim_error(op, self, d)
    out_shape = reduced_shape(shape, (d,), keepdim)
    values, values_np = result_array(out_shape, self._dtype)
    indices, indices_np = result_array(out_shape, int64)
    if not shape:  # a 0-d tensor: its one element, at index 0
        write(values._storage, values._layout, self._np())
        write(indices._storage, indices._layout, 0)
        return values, indices
    # the values are read at the indices, so values[i] is always x[indices[i]] (NaN, -0.0)
    arg_extreme_along(self._np(), d, indices_np, keepdim, op == "max", values=values_np, name=f"{op}(dim)")
    return values, indices


def _torch_zero(t: Tensor, x: Tensor, largest: bool) -> Tensor:
    """``t`` (``max()`` / ``min()`` of every element of ``x``, fresh) with the zero's sign PyTorch's
    order gives where it is a zero (:func:`strided.kernels.torch_extreme_reduce.fix_all`)."""
    # (a fresh result: its storage holds its element alone)
    if x._dtype.is_floating_point and torch_extreme_reduce.has_zero(t._storage.array):
        torch_extreme_reduce.fix_all(x._np(), t._np(), largest)
    r = t._storage.array
    if x._dtype.is_floating_point and r[0] != r[0]:
        torch_extreme_reduce.whole_nan(r, x.numel())
    return t


def _full(self: Tensor, op: str) -> Tensor:
    if self.numel() == 0:
        raise StridedRuntimeError(
            join_lines(
                f"{op}(): Expected reduction dim to be specified for input.numel() == 0. Specify "
                "the reduction dim with the 'dim' argument.",
                f"the tensor has shape {shape_text(self.shape)} and no elements, so there is no "
                f"{'largest' if op == 'max' else 'smallest'} value; t.{op}(dim) works along a "
                "non-empty dim",
            )
        )
    out, out_np = result_array((), self._dtype)
    extreme_all(self._np(), out_np, op == "max")
    return report(op, (self,), _torch_zero(out, self, op == "max"))


def _extreme(self: Tensor, dim: Any, keepdim: bool, op: str) -> Any:
    if dim is None and keepdim is False:  # every element: the reductions' fast path
        t = fast_reduce(_MAX_REDUCE if op == "max" else _MIN_REDUCE, self, None, False)
        if t is not None:
            return report(op, (self,), _torch_zero(t, self, op == "max"))
    tensor_arg(self, op)
    if isinstance(dim, Tensor):  # max(other): elementwise, as in PyTorch
        if keepdim is not False:
            raise StridedTypeError(
                f"{op}() received an invalid combination of arguments - got (Tensor, Tensor, "
                f"{type(keepdim).__name__})\n"
                f"  {op}(other) is the elementwise {'maximum' if op == 'max' else 'minimum'} and takes no "
                f"keepdim; for a reduction along a dim, pass the dim as an int: {op}(dim, keepdim)"
            )
        return getattr(self, "maximum" if op == "max" else "minimum")(dim)
    _check_support(op if dim is None else op + ".dim", self._dtype, (self,))  # complex, uint16-64
    if dim is None:
        # Note: PyTorch's max() takes no keepdim and refuses dim=None; strided accepts both.
        out = _full(self, op)
        return out.reshape((1,) * self.ndim) if check_keepdim(keepdim, op) else out
    values, indices = _values_and_indices(self, dim, keepdim, op)
    return report(op, (self,), (return_types.max if op == "max" else return_types.min)(values, indices))


_SCALAR = _cinfo[()][2]  # (the 0-d result's layout, shared)


def _full_extreme(t: Any, mode: int) -> Tensor | None:
    """``t.max()`` (mode 1) / ``t.min()`` (0) of a plain row-major float32/float64 tensor of at
    least one dim whose storage is exactly its elements, by the compiled kernel
    (:func:`strided.kernels.rows.extreme_all`); None where the kernel's answer is a zero or NaN
    (NumPy's loop picks which: :func:`fast_reduce` recomputes) or it does not apply. The same
    bits as fast_reduce's kernel call, without its plan lookup (a third of a small max)."""
    # (the guard inline, as prod's _row_major_products: see there)
    if t.__class__ is not Tensor:
        return None
    d = t._dtype
    if d is not float32 and d is not float64:
        return None
    lay = t._layout
    shape = lay.shape
    info = _cinfo[shape]
    x = t._storage.array
    if not shape or lay.strides != info[0] or lay.offset or len(x) != info[1] or (k := extreme_all_kernel()) is None:
        return None
    res = _empty(1, d.numpy)
    return None if k(x, res, mode) else adopted(res, _SCALAR, d)


_empty = np.empty
_tuple_new = tuple.__new__  # (the named tuple made as its __new__ makes it, without that Python-level call)


@method("max")
def max(self: Tensor, dim: Any = None, keepdim: bool = False, *, out: Any = None) -> Any:  # noqa: A001
    """The largest element (0-d), or ``(values, indices)`` along ``dim``, or ``maximum(self, other)``.

    >>> x = strided.tensor([[1, 5], [7, 2]])
    >>> x.max().item(), x.max(dim=1).values.tolist(), x.max(dim=1).indices.tolist()
    (7, [5, 7], [1, 0])
    """
    if out is not None:  # (along a dim: a (values, indices) pair; otherwise one tensor)
        if isinstance(dim, int) and not isinstance(dim, bool):
            return write_pair_out(out, lambda: _extreme(self, dim, keepdim, "max"), "max", (self,))
        return write_out(out, _extreme(self, dim, keepdim, "max"),
                         "max", (self,) if dim is None else (self, dim))
    if dim is None and keepdim is False:
        if (t := _full_extreme(self, 1)) is None:
            t = fast_reduce(_MAX_REDUCE, self, None, False)
            if t is not None:
                _torch_zero(t, self, True)
        if t is not None:
            if OPEN: report("max", (self,), t)  # noqa: E701 - (_extreme's fast path, without its call)
            return t
    elif dim.__class__ is int and not OPEN and (pair := _fast_pair(self, dim, keepdim, True)) is not None:
        return _tuple_new(return_types.max, pair)  # (_extreme's fast path along a dim, without its calls)
    return _extreme(self, dim, keepdim, "max")


@method("min")
def min(self: Tensor, dim: Any = None, keepdim: bool = False, *, out: Any = None) -> Any:  # noqa: A001
    """The smallest element (0-d), or ``(values, indices)`` along ``dim``, or ``minimum(self, other)``.

    >>> x = strided.tensor([[1, 5], [7, 2]])
    >>> x.min().item(), x.min(dim=0).values.tolist()
    (1, [1, 2])
    """
    if out is not None:  # (along a dim: a (values, indices) pair; otherwise one tensor)
        if isinstance(dim, int) and not isinstance(dim, bool):
            return write_pair_out(out, lambda: _extreme(self, dim, keepdim, "min"), "min", (self,))
        return write_out(out, _extreme(self, dim, keepdim, "min"),
                         "min", (self,) if dim is None else (self, dim))
    if dim is None and keepdim is False:
        if (t := _full_extreme(self, 0)) is None:
            t = fast_reduce(_MIN_REDUCE, self, None, False)
            if t is not None:
                _torch_zero(t, self, False)
        if t is not None:
            if OPEN: report("min", (self,), t)  # noqa: E701 - (_extreme's fast path, without its call)
            return t
    elif dim.__class__ is int and not OPEN and (pair := _fast_pair(self, dim, keepdim, False)) is not None:
        return _tuple_new(return_types.min, pair)  # (_extreme's fast path along a dim, without its calls)
    return _extreme(self, dim, keepdim, "min")


def _extreme_rule(name: str) -> Any:
    """The rule of ``max`` / ``min``: all dims (ties share the gradient equally, PyTorch's
    evenly_distribute_backward), along a dim (the gradient goes to the index found), or the
    elementwise ``max(a, b)``."""

    def rule(out: Any, x: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
        if isinstance(dim, Tensor):  # max(a, b): the elementwise maximum
            return extremum_backward("MaximumBackward0" if name == "Max" else "MinimumBackward0", x, dim, out)
        shape = x._layout.shape
        if dim is None:
            def full(g: Tensor) -> tuple:
                # PyTorch's evenly_distribute_backward: the elements equal to the result share the
                # gradient, and a NaN result is the NaNs' (x == NaN is never true: 0/0 otherwise);
                # its CPU path is masked_fill_ of zeros, so the others get 0 whatever g is (an
                # infinite g, or no element equal after a .data write: not 0 * inf, NaN)
                mask = (x == out) | (x.isnan() & out.isnan())
                return (where(mask, g / mask.sum(), 0.0),)

            return f"{name}Backward1", (x,), full, (x, out)
        indices = out[1]
        d = dim % len(shape) if shape else 0

        def along(g: Tensor) -> tuple:
            idx = indices if keepdim or not shape else indices.unsqueeze(d)
            gk = g if keepdim or not shape else g.unsqueeze(d)
            return (grad_zeros(shape, g._dtype).scatter(d, idx, gk),)

        return f"{name}Backward0", (x,), along, (indices,)

    return rule


backward("max")(_extreme_rule("Max"))
backward("min")(_extreme_rule("Min"))


# (shape, dim, keepdim) -> the row-major Layout of a reduction of ``shape`` along ``dim``
_REDUCED_LAYOUTS = Memo(lambda key: _cinfo[key[0][:key[1]] + ((1,) if key[2] else ()) + key[0][key[1] + 1:]][2])


def _fast_arg(self: Any, dim: Any, keepdim: Any, largest: bool) -> Tensor | None:
    """argmax / argmin of a non-empty row-major float32 / float64 tensor along a dim (an int
    ``dim``) or flattened (None): NumPy's own argmax on the flat run reshaped (the general path's
    :func:`strided.kernels.reduce.arg_extreme_along` and ``arg_extreme_flat`` compute the same, through more views);
    None where that does not apply (the general path runs and raises PyTorch's errors)."""
    if (self.__class__ is not Tensor and self.__class__ not in SUBCLASSES) or not (dim is None or dim.__class__ is int) or keepdim.__class__ is not bool:
        return None
    d = self._dtype
    if (d is not float32 and d is not float64) or not _INTP_IS_INT64:
        return None
    lay = self._layout
    shape = lay.shape
    info = _cinfo[shape]
    nd = len(shape)
    if lay.strides != info[0] or not info[1] or not nd or (dim is not None and not -nd <= dim < nd):
        return None
    arr = self._storage.array  # (flat_run's answer, without its call where the storage is the run)
    if lay.offset or len(arr) != info[1]:
        arr = flat_run(self, info)
        if arr is None:
            return None
    # (the result's row-major layout from the shape memo: PLANS' entry for this call, without its
    # key tuple; a 1-d result is adopted as NumPy gives it, without a reshape)
    if dim is None:  # the flat run's index is the row-major one
        res = (arr.argmax if largest else arr.argmin)(None, None, keepdims=True)
        layout = _cinfo[(1,) * nd if keepdim else ()][2]
    else:
        # (along another dim than the last: NumPy's argmax along that axis, which moves it last
        # into a contiguous copy as the general path's arg_extreme_along does, then the same
        # first-extreme scan of each line: the same indices; (16, 16) along dim 0 19 -> ~2 us)
        d = dim % nd
        if OPEN and d != nd - 1:
            return None  # (watched: the general path's contiguous copy is in the ledger, as before)
        layout = _REDUCED_LAYOUTS[(shape, d, keepdim)]
        if d != nd - 1 and (k := arg_cols()) is not None:
            # (an outer dim: the compiled column scan, NumPy's indices without its copy that
            # moves the dim last; 1M float32 along dim 0 ~3.4 -> ~0.2 ms)
            inner = info[1] // _cinfo[shape[:d + 1]][1]
            res = _empty(info[1] // shape[d], np.int64)
            if k(arr, res, info[1] // (shape[d] * inner), shape[d], inner, largest):
                return adopted(res, layout, int64)
        x = arr.reshape(shape) if nd > 1 else arr
        res = (x.argmax if largest else x.argmin)(d, None, keepdims=keepdim)
    return adopted(res if res.ndim == 1 else res.reshape(-1), layout, int64)


def _fast_arg_transposed(self: Any, dim: Any, keepdim: Any, largest: bool) -> Tensor | None:
    """argmax / argmin (an int ``dim``) of a float32 / float64 2-D transpose of a row-major tensor
    (strides ``(1, m)``, both dims of size >= 2) along dim 0: that dim runs contiguously in memory,
    so NumPy's argmax along the last dim of the storage run viewed row-major ``(n, m)`` is the
    general path's call (which moves the axis last and reaches the same array through more views),
    into the result it makes. Not max / min's fast path (which reads values at row-major indices);
    None where this does not apply."""
    if (self.__class__ is not Tensor and self.__class__ not in SUBCLASSES) or dim.__class__ is not int \
            or keepdim.__class__ is not bool or (self._dtype is not float32 and self._dtype is not float64) \
            or not _INTP_IS_INT64:
        return None
    lay = self._layout
    shape = lay.shape
    if len(shape) != 2 or dim not in (0, -2):
        return None
    m, n = shape
    if m < 2 or n < 2 or lay.strides != (1, m):
        return None
    run = self._storage.array[lay.offset: lay.offset + m * n]
    if len(run) != m * n:
        return None
    out, out_np = result_array((1, n) if keepdim else (n,), int64)
    rows = run.reshape(n, m)
    (rows.argmax if largest else rows.argmin)(-1, out_np.reshape(n))
    return out


_MAX_REDUCE, _MIN_REDUCE = MAXIMUM, MINIMUM  # (np.maximum.reduce, np.minimum.reduce: fast_reduce's objects)
_INTP_IS_INT64 = np.dtype(np.intp) == np.dtype(np.int64)  # (NumPy's indices are intp)
# (numel, last dim's size) -> where each row of a row-major tensor starts in its flat run
_ROW_STARTS = Memo(lambda key: np.arange(0, key[0], key[1], dtype=np.int64))
# (numel, size along a dim, elements after it) -> where each line along that dim starts, in the
# reduced result's row-major order
_LINE_STARTS = Memo(lambda key: (np.arange(0, key[0], key[1] * key[2], dtype=np.int64)[:, None]
                                 + np.arange(key[2], dtype=np.int64)).reshape(-1))


def _arg(self: Tensor, dim: Any, keepdim: bool, op: str) -> Tensor:
    t = _fast_arg(self, dim, keepdim, op == "argmax")
    if t is None:
        t = _fast_arg_transposed(self, dim, keepdim, op == "argmax")
    if t is not None:
        return report(op, (self,), t)
    tensor_arg(self, op)
    keepdim = check_keepdim(keepdim, op)
    _check_support(op, self._dtype, (self,))  # complex, uint16-64
    if self._dtype is bool_dtype:
        raise StridedRuntimeError(
            join_lines(
                f"{op}(): does not support bool input",
                f"fix: t.to(strided.uint8).{op}(...) finds the first "
                f"{'True' if op == 'argmax' else 'False'}",
            )
        )
    largest = op == "argmax"
    shape = self._layout.shape
    if dim is None:
        if self.numel() == 0:
            raise StridedIndexError(
                join_lines(
                    f"{op}(): Expected reduction dim to be specified for input.numel() == 0.",
                    f"the tensor has shape {shape_text(shape)} and no elements; give a non-empty dim",
                )
            )
        out, out_np = result_array((1,) * len(shape) if keepdim else (), int64)
        arg_extreme_flat(self._np(), out_np, largest)
        return report(op, (self,), out)
    d = _one_dim(self, dim, op)
    if shape and shape[d] == 0:
        raise _empty_dim_error(op, self, d)
    out, out_np = result_array(reduced_shape(shape, (d,), keepdim), int64)
    if not shape:
        write(out._storage, out._layout, 0)
    else:
        arg_extreme_along(self._np(), d, out_np, keepdim, largest)
    return report(op, (self,), out)


@method("argmax")
def argmax(self: Tensor, dim: int | None = None, keepdim: bool = False, *, out: Any = None) -> Tensor:
    """Index (int64) of the first largest element along ``dim``; ``dim=None`` flattens row-major.

    >>> x = strided.tensor([[1, 5], [7, 2]])
    >>> x.argmax().item(), x.argmax(dim=1).tolist()
    (2, [1, 0])
    """
    if out is not None:  # (PyTorch's out= takes only the result's dtype)
        return write_out(out, argmax(self, dim, keepdim), "argmax", (self, dim, keepdim), "matmul")
    if not OPEN and (t := _fast_arg(self, dim, keepdim, True)) is not None:  # (_arg's fast path, without its call)
        return t
    return _arg(self, dim, keepdim, "argmax")


@method("argmin")
def argmin(self: Tensor, dim: int | None = None, keepdim: bool = False, *, out: Any = None) -> Tensor:
    """Index (int64) of the first smallest element along ``dim``; ``dim=None`` flattens row-major.

    >>> strided.tensor([[1, 5], [7, 2]]).argmin(dim=0).tolist()
    [0, 1]
    """
    if out is not None:  # (PyTorch's out= takes only the result's dtype)
        return write_out(out, argmin(self, dim, keepdim), "argmin", (self, dim, keepdim), "matmul")
    if not OPEN and (t := _fast_arg(self, dim, keepdim, False)) is not None:  # (_arg's fast path, without its call)
        return t
    return _arg(self, dim, keepdim, "argmin")


seal(globals())  # (last: this module's ops with a backward rule become their recording entries)


install_whole_extreme_fronts(globals(), (("max", 1), ("min", 0)))
# the kinds of this module's ops, in the op registry (after the seal: the forwards are the entries)
declare(Kind.COMPUTE, "max min argmax argmin")
