"""sort, argsort, msort, topk, kthvalue: ordering the elements along one dim (PyTorch 2.13).

Contracts shared by every function here:

* NaN orders as the largest value, as in PyTorch: last in an ascending sort, first in a
  descending one, picked first by ``topk(largest=True)``; ``-0.0`` and ``0.0`` are equal.
* ``stable=True`` keeps equal elements in their original order, in both directions (PyTorch's
  indices exactly). Without it PyTorch's CPU kernel leaves ties in the order of GCC's
  ``std::sort``, and so does strided (:mod:`.._support.torch_sort_order`): the same indices, and
  the same bits where equal values differ in them (-0.0 and 0.0).
* Results are always new memory, reported with :func:`strided.dispatch.copied` (the copy ledger
  and ``watch`` show them with a reason). ``sort``/``argsort``/``msort`` give results the strides
  PyTorch's ``empty_like`` would (the input's own when it is dense, else its memory order);
  ``topk``/``kthvalue`` give contiguous results. Indices are int64.
* The input is read in place by NumPy (permuted, stepped, expanded: no defensive copy).
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from ... import layout as L
from ...args import int_arg
from ...dispatch import OPEN, adopted, copied
from ...dtypes import bool_ as bool_dtype
from ...dtypes import float32, float64, int32, int64, np_kind
from ...errors import (
    StridedIndexError,
    StridedNotImplementedError,
    StridedRuntimeError,
    StridedTypeError,
    join_lines,
)
from ...gradients import seal
from ...kernels.blocked import row_major
from ...kernels.native import kernel_run, special
from ...layout.order import preserve_format_strides
from ...lazy_names import function_on_first_call
from ...numpy_keywords import NO, unexpected
from ...opdef import Kind, declare
from ...tensor import Tensor, tensor_arg
from .._support import gradtools, return_types, support
from .._support.along import (
    flag,
    moved_last,
    one_dim,
    take_in_place,
    take_last,
    take_moved,
    tensor_from_array,
    tensor_from_moved,
)
from .._support.memo import Memo
from .._support.operands import _cinfo, flat_run
from .._support.out import write_out, write_pair_out
from .._support.reduce_args import reduced_shape, shape_text
from ..registry import backward, method

# (PyTorch's sort and selection orders, written in Python: loaded on the first call that needs them)
top_k_row = function_on_first_call("strided.ops._support.stl_select", "top_k_row", globals())
torch_argsort = function_on_first_call("strided.ops._support.torch_sort_order", "argsort", globals(), "torch_argsort")
numpy_argsort = function_on_first_call("strided.ops._support.torch_sort_order", "numpy_argsort", globals())
sorted_values = function_on_first_call("strided.ops._support.torch_sort_order", "sorted_values", globals())


def argsort_last(x: np.ndarray, descending: bool, stable: bool) -> np.ndarray:
    """Indices (int64, fresh, C-contiguous) that sort ``x`` along its last axis, NaN largest, in
    PyTorch's order among equal elements too (:func:`.._support.torch_sort_order.argsort`)."""
    return torch_argsort(x, descending, stable)


def _sort_parts(self: Tensor, dim: Any, descending: Any, stable: Any, op: str) -> tuple[int, np.ndarray, np.ndarray]:
    tensor_arg(self, op)
    d = one_dim(self, dim, op)
    support.check(op, self._dtype, (self,))  # (complex: no order)
    descending = flag(descending, op, "descending")
    stable = flag(stable, op, "stable")
    x = moved_last(self, d)
    return d, x, argsort_last(x, descending, stable)


def _sort_reason(self: Tensor, d: int, what: str) -> str:
    return (f"{what}: a {shape_text(self.shape)} {self._dtype.name} tensor ordered along dim {d} into new memory "
            "(values, and int64 indices of where each came from)")


def _sorted_row_major(self: Tensor, x: np.ndarray, d: int, idx: np.ndarray,
                      strides: tuple[int, ...]) -> tuple[Tensor, Tensor] | None:
    """sort's (values, indices) in the common case, rows along the last dim and row-major results
    (None otherwise): both arrays are fresh and C-contiguous in the result's order already, the
    values read at ``idx`` by one fancy index (the same elements :func:`take_moved` reads)."""
    shape = self._layout.shape
    if d != len(shape) - 1 or not idx.size or strides != L.contiguous_strides(shape):
        return None
    return tensor_from_array(take_last(x, idx), shape, self._dtype), tensor_from_array(idx, shape, int64)


_OVERLOADS = (" * (*, bool stable, int dim = -1, bool descending = False)",
              " * (int dim = -1, bool descending = False)")


def _no_bool_dim(op: str, dim: Any, descending: Any, stable: Any) -> None:
    """PyTorch's parser refusing a bool ``dim`` (``t.sort(True)``: no overload takes it) with its
    TypeError, before the generic "must be int" of :func:`one_dim`.

    # Note: PyTorch's two signatures are ``(dim=-1, descending=False)`` and
    # ``(*, stable, dim=-1, descending=False)``, so it also refuses ``t.sort(0, stable=True)``;
    # strided takes that call (dim 0, stable), the meaning it has in the second signature: the
    # registry's NumPy keywords (``t.sort(axis=0)``) need the plain parameter list.
    """
    if isinstance(dim, bool):
        given = ["bool"] + (["bool" if isinstance(descending, bool) else type(descending).__name__]
                            if descending is not False else [])
        raise StridedTypeError(join_lines(
            f"{op}() received an invalid combination of arguments - got ({', '.join(given)}"
            f"{', stable=bool' if stable is not None else ''}), but expected one of:",
            *_OVERLOADS,
            f"a bool is no dim; fix: {op}(dim=0, descending=True)"))


# the small sorts that take the compiled std::sort straight from the flat run (see _fast_sort)
_SORT_KEYS = {float32: None, float64: None, int64: None, int32: np.dtype(np.int64)}
_SORT_FAST_MAX = 1 << 12
# (ndim, dim) -> the axes with dim moved last (np.moveaxis' permutation, without its parsing) and
# the permutation back
_MOVED_LAST = Memo(lambda key: (tuple(i for i in range(key[0]) if i != key[1]) + (key[1],),
                                tuple(range(key[1])) + (key[0] - 1,) + tuple(range(key[1], key[0] - 1))))


def _fast_sort(self: Any, dim: Any, descending: Any, stable: Any, values: bool = True) -> Any:
    """sort (``values=False``: argsort) along a dim of a small row-major float32/float64/
    int32/int64 tensor, ``stable`` not asked, nobody listening: the compiled ``std::sort`` order
    (:mod:`.._support.torch_sort_order`) straight from the flat run, as the general path computes
    it; ``(values or None, int64 indices, their layout)``, or None where the general path runs."""
    if OPEN or type(self) is not Tensor or type(dim) is not int or descending.__class__ is not bool \
            or stable is not None and stable is not False:
        return None
    keys = _SORT_KEYS.get(self._dtype, 0)
    shape = self._layout.shape
    nd = len(shape)
    if keys == 0 or not nd or not -nd <= dim < nd:
        return None
    info = _cinfo[shape]
    d = dim % nd
    n = shape[d]
    if not 0 < info[1] <= _SORT_FAST_MAX:
        return None
    kernel = special()
    flat = flat_run(self, info) if kernel is not None else None
    if flat is None:
        return None
    if d == nd - 1:
        rows = flat.reshape(info[1] // n, n)
    else:  # (another dim: its lines made rows by a transposing copy, the general path's moved order)
        perm, back = _MOVED_LAST[(nd, d)]
        rows = flat.reshape(shape).transpose(perm).copy().reshape(info[1] // n, n)
    sorting = rows if keys is None else rows.astype(keys)
    idx = np.empty(rows.shape, np.int64)
    out = np.empty(sorting.shape, sorting.dtype) if values else None  # (the kernel writes the sorted keys)
    kernel.stl_argsort(kernel_run(sorting), idx, n, 1 if descending else 0, out)
    if out is not None and keys is not None:
        out = out.astype(rows.dtype)  # (int32 keys sorted as int64: exact back)
    if d != nd - 1:  # (back to the row-major result: the dim in its place)
        moved = shape[:d] + shape[d + 1:] + (n,)
        idx = idx.reshape(moved).transpose(back).copy()
        if out is not None:
            out = out.reshape(moved).transpose(back).copy()
    return (out.reshape(-1) if values else None), idx.reshape(-1), info[2]


def _sort(self: Tensor, dim: Any = -1, descending: Any = False, stable: Any = None, out: Any = None) -> Any:
    """:func:`sort` once its two signatures are told apart (:func:`_overload`)."""
    if out is None:
        fast = _fast_sort(self, dim, descending, stable)
        if fast is not None:
            values, idx, layout = fast
            return return_types.sort(adopted(values, layout, self._dtype), adopted(idx, layout, int64))
    _no_bool_dim("sort", dim, descending, stable)
    if out is not None:
        return write_pair_out(out, lambda: _sort(self, dim, descending, stable), "sort",
                              (self,), overlap="copy")
    d, x, idx = _sort_parts(self, dim, descending, False if stable is None else stable, "sort")
    shape = self._layout.shape
    strides = preserve_format_strides(shape, self._layout.strides)
    fast = _sorted_row_major(self, x, d, idx, strides)
    if fast is not None:
        return copied("sort", (self,), return_types.sort(*fast), lambda: _sort_reason(self, d, "sort"))
    indices = tensor_from_moved(idx, shape, d, int64, strides)
    if d < len(shape) - 1 and strides == L.contiguous_strides(shape):
        # the indices were written back in place (a transposing copy); the values are read at
        # them directly in that order, contiguous reads and writes, instead of being gathered
        # in the moved order and transposed too
        values = tensor_from_array(take_in_place(self, d, indices._np()), shape, self._dtype)
    else:
        values = tensor_from_moved(take_moved(self, d, idx), shape, d, self._dtype, strides)
    return copied("sort", (self,), return_types.sort(values, indices), lambda: _sort_reason(self, d, "sort"))


def _argsort(self: Tensor, dim: Any = -1, descending: Any = False, stable: Any = None) -> Tensor:
    """:func:`argsort` once its two signatures are told apart (:func:`_overload`)."""
    fast = _fast_sort(self, dim, descending, stable, values=False)
    if fast is not None:
        return adopted(fast[1], fast[2], int64)
    _no_bool_dim("argsort", dim, descending, stable)
    d, x, idx = _sort_parts(self, dim, descending, False if stable is None else stable, "argsort")
    shape = self._layout.shape
    out = tensor_from_moved(idx, shape, d, int64, preserve_format_strides(shape, self._layout.strides))
    return copied("argsort", (self,), out,
                  lambda: f"argsort: int64 indices ordering a {shape_text(shape)} tensor along dim {d}")


class _Unset:
    """The default of sort/argsort's keywords: "not given" (``stable=None`` given picks
    PyTorch's ``stable=`` signature; left out, the other)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<not given>"


UNSET: Any = _Unset()


_SORT_OVERLOADS = {"sort": (" * (Tensor input, *, bool? stable, int dim = -1, bool descending = False, tuple of Tensors out = None)",
                             " * (Tensor input, int dim = -1, bool descending = False, *, tuple of Tensors out = None)"),
                    "argsort": (" * (Tensor input, *, bool stable, int dim = -1, bool descending = False)",
                                " * (Tensor input, int dim = -1, bool descending = False)")}


def _type_name(v: Any) -> str:
    return "Tensor" if isinstance(v, Tensor) else type(v).__name__


def _overload(op: str, args: tuple, stable: Any, dim: Any, descending: Any, axis: Any) -> tuple[Any, Any, Any]:
    """``(dim, descending, stable)`` of a sort/argsort call as PyTorch's parser binds it to one of
    its two signatures, ``(dim=-1, descending=False)`` and ``(*, stable, dim=-1, descending=False)``
    (stable ``bool?`` for sort, ``bool`` for argsort): ``stable`` given (even None) takes the second,
    where ``dim`` and ``descending`` are keywords only, so ``sort(x, 0, stable=True)`` is its
    TypeError, not a stable sort along 0. NumPy's ``axis=`` spells ``dim`` (not beside it)."""
    if axis is not NO and (dim is not UNSET or args):  # (dim twice: strided.numpy_keywords' error)
        raise unexpected(op, "axis")
    given = [_type_name(a) for a in args]
    named = {k: v for k, v in (("dim", dim), ("descending", descending), ("stable", stable), ("axis", axis))
             if v is not UNSET and v is not NO}
    bad = len(args) > 2 or (stable is not UNSET and args) or (args and dim is not UNSET) or \
        (len(args) > 1 and descending is not UNSET) or (op == "argsort" and stable is None)
    if bad:
        got = ", ".join(given + [f"{k}={_type_name(v)}" for k, v in named.items()])
        raise StridedTypeError(join_lines(
            f"{op}() received an invalid combination of arguments - got ({got}), but expected one of:",
            *_SORT_OVERLOADS[op],
            f"with stable= give dim and descending by name: {op}(x, dim=0, descending=True, stable=True)"))
    if axis is not NO:
        dim = axis
    if args:
        dim = args[0]
        if len(args) > 1:
            descending = args[1]
    return (-1 if dim is UNSET else dim, False if descending is UNSET else descending,
            None if stable is UNSET else stable)


@method("sort")
def sort(self: Tensor, *args: Any, stable: Any = UNSET, dim: Any = UNSET, descending: Any = UNSET, out: Any = None,
         axis: Any = NO) -> Any:
    """The elements along ``dim`` in order: ``return_types.sort(values, indices)``, NaN largest.

    ``stable=True`` keeps ties in their original order; otherwise ties come in the order of
    PyTorch's CPU kernel (GCC's ``std::sort``): PyTorch's indices exactly, either way. PyTorch's
    two signatures: ``sort(dim=-1, descending=False)`` and ``sort(*, stable, dim=-1,
    descending=False)`` (with ``stable``, ``dim`` and ``descending`` by name only).

    >>> strided.tensor([3., float("nan"), 1.]).sort(descending=True)
    sort(values=tensor([nan, 3., 1.]), indices=tensor([1, 0, 2]))
    """
    if stable is UNSET and axis is NO and dim is UNSET and descending is UNSET and len(args) < 3:
        # (the common calls, dims and flags by position: nothing to tell apart)
        return _sort(self, args[0] if args else -1, args[1] if len(args) == 2 else False, None, out)
    if not args and axis is NO:  # (every argument by name: either signature takes it)
        return _sort(self, -1 if dim is UNSET else dim, False if descending is UNSET else descending,
                     None if stable is UNSET else stable, out)
    d, desc, st = _overload("sort", args, stable, dim, descending, axis)
    return _sort(self, d, desc, st, out)


@method("argsort")
def argsort(self: Tensor, *args: Any, stable: Any = UNSET, dim: Any = UNSET, descending: Any = UNSET,
            axis: Any = NO) -> Tensor:
    """The int64 indices that sort ``self`` along ``dim`` (``sort(...).indices``); PyTorch's two
    signatures as :func:`sort`'s (``stable`` a bool there, not None).

    >>> strided.tensor([3, 1, 2]).argsort().tolist(), strided.tensor([3, 1, 2]).argsort(descending=True).tolist()
    ([1, 2, 0], [0, 2, 1])
    """
    if stable is UNSET and axis is NO and dim is UNSET and descending is UNSET and len(args) < 3:
        return _argsort(self, args[0] if args else -1, args[1] if len(args) == 2 else False, None)
    if not args and axis is NO and stable is not None:  # (every argument by name; argsort's stable a bool)
        return _argsort(self, -1 if dim is UNSET else dim, False if descending is UNSET else descending,
                        None if stable is UNSET else stable)
    d, desc, st = _overload("argsort", args, stable, dim, descending, axis)
    return _argsort(self, d, desc, st)


def _shown_sort(self: Tensor, dim: int = -1, descending: bool = False, *, stable: bool | None = None,
                out: Any = None) -> Any: ...  # (the signature shown: inspect, stubs)


def _shown_argsort(self: Tensor, dim: int = -1, descending: bool = False, *, stable: bool | None = None) -> Tensor: ...


sort.__signature__ = inspect.signature(_shown_sort)  # type: ignore[attr-defined]
argsort.__signature__ = inspect.signature(_shown_argsort)  # type: ignore[attr-defined]


@method("msort")
def msort(self: Tensor, *, out: Any = None) -> Tensor:
    """The values of ``sort(dim=0)``: each column sorted ascending (NaN last).

    >>> strided.msort(strided.tensor([[3, 1], [2, 4]])).tolist()
    [[2, 1], [3, 4]]
    """
    if out is not None:  # (PyTorch's out= takes only the result's dtype)
        return write_out(out, msort(self), "msort", (self,), "matmul")
    if not OPEN and type(self) is Tensor and self._dtype in _FAST_DTYPES and self._layout.shape:
        info = _cinfo[self._layout.shape]  # (a row-major tensor: np.sort along axis 0 of its flat run)
        flat = flat_run(self, info) if info[1] else None
        if flat is not None:
            return adopted(sorted_values(flat.reshape(self._layout.shape), axis=0).reshape(-1), info[2], self._dtype)
    tensor_arg(self, "msort")
    d = one_dim(self, 0, "msort")
    support.check("msort", self._dtype, (self,))
    x = moved_last(self, d)
    shape = self._layout.shape
    # the values alone: np.sort (NaN last, as argsort) is twice as fast as argsort and a gather;
    # where equal values differ in bits (-0.0 and 0.0), PyTorch's order of them (sorted_values)
    out = tensor_from_moved(sorted_values(x), shape, d, self._dtype,
                            preserve_format_strides(shape, self._layout.strides))
    return copied("msort", (self,), out, lambda: f"msort: a {shape_text(shape)} tensor sorted along dim 0 "
                                                  "into new memory")


# ---------------------------------------------------------------- selection


def _k(self: Tensor, k: Any, d: int, op: str, lowest: int) -> int:
    """``k`` read as PyTorch's int, checked against the size of dim ``d`` (``lowest`` is 0 for topk,
    1 for kthvalue's 1-based k)."""
    k = int_arg(k, op, "k", 1)
    shape = self._layout.shape
    n = shape[d] if shape else 1
    if lowest <= k <= n:
        return k
    if op == "topk":
        first = "selected index k out of range"
    else:
        first = f"kthvalue(): selected number k out of range for dimension {d}"
    raise StridedRuntimeError(
        join_lines(
            first,
            f"k is {k}, but dim {d} of the tensor of shape {shape_text(shape)} has {n} element"
            f"{'s' if n != 1 else ''}: k must be from {lowest} to {n}",
        )
    )


def _not_bool(self: Tensor, op: str) -> None:
    if self._dtype is bool_dtype:
        if op == "topk":
            raise StridedRuntimeError(
                join_lines("topk does not support bool dtypes on CPU",
                           "fix: t.to(strided.uint8).topk(...) orders True above False")
            )
        raise StridedNotImplementedError(
            join_lines(f"\"{op}_cpu\" not implemented for 'Bool'",
                       f"fix: t.to(strided.uint8).{op}(...) orders False below True")
        )


def _top_by_argpartition(x: np.ndarray, k: int, largest: bool) -> np.ndarray:
    """Positions (in no order) of the ``k`` largest or smallest along the last axis, 0 < k < n.
    argpartition puts NaN last, as the largest: the k largest are the last k."""
    n = x.shape[-1]
    cand = np.argpartition(x, n - k if largest else k - 1, axis=-1)
    return cand[..., n - k:] if largest else cand[..., :k]


def _top_by_threshold(x: np.ndarray, k: int, largest: bool) -> np.ndarray | None:
    """As :func:`_top_by_argpartition` for floating ``x``, faster: ``np.partition`` of the values
    (not of indices, which argpartition moves and compares through) finds each row's k-th value,
    and the positions are the elements on its side of it. Rows where that picks more than k
    (ties with the k-th value) keep what is beyond it and the first elements equal to it. None
    when a NaN is among those picked (comparisons cannot select NaN: the caller then uses
    argpartition)."""
    n = x.shape[-1]
    kth = n - k if largest else k - 1
    part = np.partition(x, kth, axis=-1)
    if np.isnan(part[..., kth:] if largest else part[..., :k]).any():
        return None
    mask = np.empty(x.shape, np.bool_)  # (C order: its flat positions are row-major)
    (np.greater_equal if largest else np.less_equal)(x, part[..., kth:kth + 1], out=mask)
    lead = x.shape[:-1]
    rows = mask.size // n
    flat = np.flatnonzero(mask)
    if flat.size == rows * k:  # (each row has at least k: exactly k in every row)
        return (flat % n).reshape(lead + (k,))
    # some rows have more than k reaching the k-th value (ties with it): keep, in every row, all
    # beyond it and the first (by position) of those equal to it until there are k (which of
    # equal values PyTorch picks is unspecified); worked on the candidates only
    row = flat // n
    counts = np.bincount(row, minlength=rows)
    thr = part[..., kth].reshape(-1)
    same = np.flatnonzero(x[np.unravel_index(flat, x.shape)] == thr[row])  # (into flat)
    same_row = row[same]
    same_counts = np.bincount(same_row, minlength=rows)
    rank = np.arange(same.size) - (np.cumsum(same_counts) - same_counts)[same_row]
    need = k - (counts - same_counts)
    keep = np.ones(flat.size, np.bool_)
    keep[same[rank >= need[same_row]]] = False
    return (flat[keep] % n).reshape(lead + (k,))


# up to this many elements, topk of a dtype without the compiled steps (_exact_topk) orders ties
# as PyTorch does in Python (_pytorch_ties); a row with ties costs about 2 us per element there
# (8 ms for 4096 int16 elements of 10 values, against 0.2 ms), so beyond it ties stay in NumPy's order
_TIES_MAX = 1 << 12


_COMPILED_TOPK = frozenset((np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.int64)))


def _exact_topk(x: np.ndarray, k: int, largest: bool) -> tuple[np.ndarray, np.ndarray] | None:
    """(values, int64 positions) of the ``k`` largest (smallest) of each row of ``x`` (dim last) as
    PyTorch's CPU kernel picks and orders them, ties included, by the compiled ``stl_topk_exact``
    (its steps on every row, at its speed); None where the kernel is not built or does not take
    the dtype. 0 < k < n."""
    kernel = special()
    if kernel is None or x.dtype not in _COMPILED_TOPK:
        return None
    x = kernel_run(x)
    n = x.shape[-1]
    values, order = np.empty(x.shape[:-1] + (k,), x.dtype), np.empty(x.shape[:-1] + (k,), np.int64)
    if not kernel.stl_topk_exact(x.reshape(-1), order.reshape(-1), values.reshape(-1), n, k, 1 if largest else 0):
        return None
    return values, order


def _pytorch_ties(x: np.ndarray, idx: np.ndarray, k: int, largest: bool) -> np.ndarray | None:
    """``idx`` (the top ``k`` positions of each row of ``x``, in order) with the rows that hold equal
    values (ties, -0.0 and 0.0, two NaN) redone as PyTorch's CPU kernel picks and orders them
    (:func:`~.._support.stl_select.top_k_row`, sorted); None when no row changes or ``x`` is large.
    A row of distinct values has one answer, which ``idx`` already is."""
    n = x.shape[-1]
    if not 0 < k or n < 2 or x.size > _TIES_MAX:
        return None
    s = np.sort(x, axis=-1)  # (NaN last)
    # only the k picked and the next one decide: a row strictly increasing there has one answer
    # (equal values, -0.0 and 0.0, or a NaN there: PyTorch's steps, which also give the one answer
    # for a lone NaN)
    w = s[..., max(n - k - 1, 0):] if largest else s[..., : k + 1]
    tie = ~np.greater(w[..., 1:], w[..., :-1]).all(-1)
    if not tie.any():
        return None
    rows = x.reshape(-1, n)
    out = np.array(idx, np.int64).reshape(-1, k)
    for r in np.flatnonzero(tie.reshape(-1)):
        out[r] = top_k_row(rows[r].tolist(), k, largest)
    return out.reshape(idx.shape)


# the dtypes of the small-call fast paths (topk, msort): PyTorch has kernels for all of them
_FAST_DTYPES = frozenset((float32, float64, int32, int64))
_empty = np.empty
_all = np.logical_and.reduce  # (the ufunc itself: ndarray.all's Python wrapper costs as much again)
_tuple_new = tuple.__new__


# (shape, k) -> the row-major Layout of ``shape`` with its last dim k (topk's results)
_LAST_K = Memo(lambda key: _cinfo[key[0][:-1] + (key[1],)][2])


def _fast_topk(self: Any, k: Any, dim: Any, largest: Any) -> Any:
    """topk along the last dim of a small row-major float32/float64/int32/int64 tensor whose rows
    have no equal values among their top ``k + 1`` (then which positions are picked, and their
    order, is the one answer, which PyTorch's kernel gives too): one argsort of the rows and one
    take of their sorted values. None when a precondition fails, a row has such a tie (the
    general path then runs PyTorch's selection steps) or the call is watched."""
    if OPEN or type(self) is not Tensor or type(k) is not int or type(dim) is not int or largest.__class__ is not bool:
        return None
    lay = self._layout
    shape = lay.shape
    nd = len(shape)
    if not nd or (dim != -1 and dim != nd - 1) or self._dtype not in _FAST_DTYPES:
        return None
    n = shape[-1]
    info = _cinfo[shape]
    if not 0 < k < n or info[1] > _TIES_MAX:
        return None
    flat = self._storage.array  # (flat_run's answer, without its call where the storage is the run)
    if lay.offset or len(flat) != info[1] or lay.strides != info[0]:
        flat = flat_run(self, info)
        if flat is None:
            return None
    kernel = special() if self._dtype is not int32 else None
    if kernel is not None:
        # the compiled std::sort (sort's own, NaN largest) in the picking order, the first k
        # values and their positions of each row in one call, which answers False where the
        # window that decides (the k picked and the next one) is not strictly decreasing
        # (increasing): equal values (-0.0 == 0.0 too) or a NaN, left to the general path
        m = info[1] // n * k
        d = self._dtype
        values, order = _empty(m, d.numpy), _empty(m, np.int64)
        # (misaligned memory, which from_numpy may borrow, is refused too: the general path then)
        if not kernel.stl_topk(flat, order, values, n, k, 1 if largest else 0):
            return None
        layout = _LAST_K[(shape, k)]
        # (the named tuple made as its __new__ makes it, without that Python-level call)
        return _tuple_new(return_types.topk, (adopted(values, layout, d), adopted(order, layout, int64)))
    x = flat.reshape(info[1] // n, n)
    order = x.argsort(axis=-1)  # (NaN last)
    s = x.copy()
    s.sort(axis=-1)  # (the same order: the values picked are distinct)
    # the window that decides: the k picked and the next one (beside them on the sorted row)
    w = s[:, n - k - 1:] if largest else s[:, : k + 1]
    # strictly increasing there: no equal values (-0.0 == 0.0 too) and no NaN (NaN > x is False:
    # a row with a NaN in the window is left to the general path, tied or not)
    if not _all(np.greater(w[:, 1:], w[:, :-1]), axis=None):
        return None
    if largest:
        order, s = order[:, :n - k - 1:-1], s[:, :n - k - 1:-1]
    else:
        order, s = order[:, :k], s[:, :k]
    layout = _cinfo[shape[:-1] + (k,)][2]
    return return_types.topk(adopted(s.flatten(), layout, self._dtype), adopted(order.flatten(), layout, int64))


@method("topk")
def topk(self: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True, *,  # noqa: A002
         out: Any = None) -> Any:
    """The ``k`` largest (or smallest) elements along ``dim``: ``return_types.topk(values, indices)``.

    NaN counts as the largest value. Results are contiguous, with ``dim`` of size ``k``.
    # Note: strided always returns them in order (largest first, or smallest first), also with
    # ``sorted=False`` where PyTorch's order is unspecified. Among equal values (ties, -0.0 and
    # 0.0, NaN) PyTorch's CPU kernel picks and orders positions by libstdc++'s unstable
    # nth_element / partial_sort / sort; strided runs the same steps (PyTorch's indices exactly,
    # and so its gradients): compiled on every row of a float32, float64 or int64 tensor, and in
    # Python (``stl_select``) on the rows with equal values of a tensor of another dtype up to
    # 4096 elements; beyond that size, such ties come in NumPy's partition's order. The values
    # are exact.

    >>> strided.tensor([1., 5., 3.]).topk(2)
    topk(values=tensor([5., 3.]), indices=tensor([1, 2]))
    """
    if out is None and sorted.__class__ is bool:
        fast = _fast_topk(self, k, dim, largest)
        if fast is not None:
            return fast
    if out is not None:
        return write_pair_out(out, lambda: topk(self, k, dim, largest, sorted), "topk", (self,))
    tensor_arg(self, "topk")
    d = one_dim(self, dim, "topk")
    k = _k(self, k, d, "topk", 0)
    largest = flag(largest, "topk", "largest")
    flag(sorted, "topk", "sorted")
    _not_bool(self, "topk")
    shape = self._layout.shape
    if shape or self._dtype.is_complex:  # (PyTorch's 0-d path runs no kernel: it takes uint16/32/64)
        support.check("topk", self._dtype, (self,))
    x = moved_last(self, d)
    if x.ndim > 1 and x.strides[-1] != x.itemsize:
        # (the runs along dim made contiguous first by the blocked copy: NumPy's partition and
        # the masks below walk each run, and across memory every element is a cache miss:
        # topk(3, 0) of 1024 x 1024 float32 21 -> ~6 ms)
        x = row_major(x)
    n = x.shape[-1]
    if not shape:
        k = 1  # PyTorch: a 0-d tensor's topk(0) is the element too
    out_shape = shape[:d] + (k,) + shape[d + 1:] if shape else ()
    if shape and 0 < k < n:
        picked = _exact_topk(x, k, largest)  # (PyTorch's steps on every row, compiled: its speed)
        if picked is not None:
            return copied("topk", (self,), return_types.topk(
                tensor_from_moved(picked[0], out_shape, d, self._dtype), tensor_from_moved(picked[1], out_shape, d, int64)),
                lambda: (f"topk: the {k} {'largest' if largest else 'smallest'} of each run of {n} along dim {d} of "
                         f"a {shape_text(shape)} tensor, into new memory (values, and int64 indices)"))
    if k == n or k == 0:
        cand = None
        part = x[..., :k]
    else:
        cand = _top_by_threshold(x, k, largest) if np_kind(x.dtype) == "f" else None
        if cand is None:
            cand = _top_by_argpartition(x, k, largest)
        part = take_last(x, cand)
    order = numpy_argsort(part, largest, None)  # (rows with ties: _pytorch_ties below)
    idx = order if cand is None else take_last(cand, order)
    tied = _pytorch_ties(x, idx, k, largest) if shape else None
    values = tensor_from_moved(take_last(part, order) if tied is None else take_last(x, tied), out_shape, d,
                               self._dtype)
    idx = idx if tied is None else tied
    indices = tensor_from_moved(np.ascontiguousarray(idx, dtype=np.int64), out_shape, d, int64)
    return copied("topk", (self,), return_types.topk(values, indices), lambda: (
        f"topk: the {k} {'largest' if largest else 'smallest'} of each run of {n} along dim {d} of a "
        f"{shape_text(shape)} tensor, into new memory (values, and int64 indices)"))


@method("kthvalue")
def kthvalue(self: Tensor, k: int, dim: int = -1, keepdim: bool = False, *, out: Any = None) -> Any:
    """The ``k``-th smallest element (1-based) along ``dim``: ``return_types.kthvalue(values, indices)``.

    NaN counts as the largest value. Where the k-th value occurs more than once the index is the
    place PyTorch's CPU quickselect returns: compiled for float32/float64/int32/int64 at any size;
    for other dtypes in Python (:mod:`strided.ops._support.quick_select`) on rows of up to
    :data:`TIE_ELEMENTS` tied elements in all, beyond that one of the places, as PyTorch documents
    it: unspecified.

    >>> strided.tensor([4., 1., 3.]).kthvalue(2)
    kthvalue(values=tensor(3.), indices=tensor(2))
    """
    if out is None:
        fast = _fast_kthvalue(self, k, dim, keepdim)
        if fast is not None:
            return fast
    else:
        return write_pair_out(out, lambda: kthvalue(self, k, dim, keepdim), "kthvalue", (self,), style="kthvalue", overlap="any")
    tensor_arg(self, "kthvalue")
    d = one_dim(self, dim, "kthvalue")
    keepdim = flag(keepdim, "kthvalue", "keepdim")
    shape = self._layout.shape
    if shape and shape[d] == 0:
        raise StridedIndexError(
            join_lines(
                f"kthvalue(): Expected reduction dim {d} to have non-zero size.",
                f"the tensor has shape {shape_text(shape)}: dim {d} is empty, so it has no k-th value",
            )
        )
    k = _k(self, k, d, "kthvalue", 1)
    if shape:  # (PyTorch's 0-d path runs no kernel, so it takes bool)
        _not_bool(self, "kthvalue")
        support.check("kthvalue", self._dtype, (self,))
    x = moved_last(self, d)
    exact = _exact_kthvalue(x, k) if shape else None
    if exact is not None:  # (PyTorch's quickselect on every row, compiled)
        kth, pos = exact
    else:
        pos = x.argpartition(k - 1, axis=-1)[..., k - 1:k]  # (np.argpartition's own call, without its wrapper)
        kth = take_last(x, pos)
        tied = _tie_positions(x, kth, pos, k)
        if tied is not pos:  # (-0.0 and 0.0 tie: the value is read again at PyTorch's place)
            pos, kth = tied, take_last(x, tied)
    # the moved order (dim d last, size 1) is the row-major order of the result, keepdim or not
    out_shape = reduced_shape(shape, (d,), keepdim) if shape else ()
    values = tensor_from_array(kth, out_shape, self._dtype)
    indices = tensor_from_array(pos, out_shape, int64)
    return copied("kthvalue", (self,), return_types.kthvalue(values, indices), lambda: (
        f"kthvalue: the {k}-th smallest along dim {d} of a {shape_text(shape)} tensor, into new memory "
        "(values, and int64 indices)"))


def _exact_kthvalue(x: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray] | None:
    """(values, int64 positions), each of shape ``(..., 1)``, of the ``k``-th smallest of each row
    of ``x`` (dim last, non-empty rows) by the compiled ``torch_kthvalue``: PyTorch's quickselect
    on every row (the place of a tied k-th value its kernel's, at any size); None where the kernel
    is not built or does not take the dtype."""
    kernel = special()
    if kernel is None or x.dtype not in _EXACT_KTH:
        return None
    x = kernel_run(row_major(x))  # (the blocked copy for a large transpose; C order, aligned, always)
    n = x.shape[-1]
    values, idx = np.empty(x.shape[:-1] + (1,), x.dtype), np.empty(x.shape[:-1] + (1,), np.int64)
    if not kernel.torch_kthvalue(x.reshape(-1), values.reshape(-1), idx.reshape(-1), n, k):
        return None
    return values, idx


_EXACT_KTH = frozenset(np.dtype(t) for t in (np.float32, np.float64, np.int32, np.int64))


def _fast_kthvalue(self: Any, k: Any, dim: Any, keepdim: Any) -> Any:
    """kthvalue along the last dim of a non-empty row-major float32/float64/int32/int64 tensor by
    the compiled ``torch_kthvalue`` (PyTorch's quickselect itself, so the place of a tied k-th
    value is its kernel's for every row, as the general path's :func:`_tie_positions` gives):
    one call for all rows, the two results adopted. None when a precondition fails (the general
    path then checks and runs), the kernel is not built or the call is watched."""
    if OPEN or type(self) is not Tensor or type(k) is not int or type(dim) is not int or keepdim.__class__ is not bool:
        return None
    shape = self._layout.shape
    nd = len(shape)
    if not nd or (dim != -1 and dim != nd - 1) or self._dtype not in _FAST_DTYPES:
        return None
    n = shape[-1]
    info = _cinfo[shape]
    if not 0 < k <= n or not info[1]:
        return None
    kernel = special()
    if kernel is None:
        return None
    flat = flat_run(self, info)
    if flat is None:
        return None
    m = info[1] // n
    values, idx = _empty(m, flat.dtype), _empty(m, np.int64)
    if not kernel.torch_kthvalue(kernel_run(flat), values, idx, n, k):
        return None
    layout = _cinfo[shape[:-1] + (1,) if keepdim else shape[:-1]][2]
    return _tuple_new(return_types.kthvalue, (adopted(values, layout, self._dtype), adopted(idx, layout, int64)))


# Rows with ties at their k-th value whose tied elements together are at most this many take
# PyTorch's quickselect in Python (a few microseconds per element); beyond, NumPy's choice.
TIE_ELEMENTS = 1 << 18


def _tie_positions(x: np.ndarray, kth: np.ndarray, pos: np.ndarray, k: int) -> np.ndarray:
    """``pos`` (NumPy's argpartition places, shape ``(..., 1)``) with each row whose k-th value
    occurs more than once (``==``, NaN equal to NaN) given PyTorch's place instead."""
    n = x.shape[-1] if x.ndim else 1
    if n < 2 or not x.size:
        return pos
    same = x == kth
    if x.dtype.kind == "f":
        same |= np.isnan(x) & np.isnan(kth)
    # (the ufuncs' reduce: np.count_nonzero(axis=) and ndarray.any go through Python wrappers)
    tied = np.add.reduce(same, -1) > 1
    if not np.logical_or.reduce(tied, None) or int(np.count_nonzero(tied)) * n > TIE_ELEMENTS:
        return pos
    from .._support.quick_select import quick_select_position  # (only rows with ties: not at import)

    rows = x.reshape(-1, n)
    fixed = pos.reshape(-1).copy()
    for r in np.flatnonzero(tied.reshape(-1)):
        fixed[r] = quick_select_position(rows[r].tolist(), k - 1)
    return fixed.reshape(pos.shape)


# ---------------------------------------------------------------- backward rules
# The values of sort / topk / kthvalue are elements of the input: each one's gradient goes back
# to the place it came from (a scatter at the indices into zeros: PyTorch's
# value_selecting_reduction_backward and sort_backward).


def _selected_rule(node: str, reduces: bool = False) -> Any:
    def rule(out: Any, x: Tensor, *args: Any, **kwargs: Any) -> Any:
        values, indices = out
        if node == "KthvalueBackward0":
            dim = args[1] if len(args) > 1 else kwargs.get("dim", -1)
            keepdim = args[2] if len(args) > 2 else kwargs.get("keepdim", False)
        elif node == "TopkBackward0":
            dim, keepdim = (args[1] if len(args) > 1 else kwargs.get("dim", -1)), True
        else:  # (sort: its entry's keywords default to UNSET, "not given"; axis= spells dim)
            dim = args[0] if args else kwargs.get("dim", -1)
            dim, keepdim = (kwargs.get("axis", -1) if dim is UNSET else dim), True
            dim = -1 if dim is NO else dim
        grads = gradtools.selected_grads(x, indices, dim, keepdim)
        name = node
        if node == "SortBackward0" and kwargs.get("stable", UNSET) is not UNSET:
            name = "SortBackward1"  # (PyTorch's node of its ``stable=`` signature, whatever the value)
        return name, (x,), grads, (indices,)

    return rule


backward("sort")(_selected_rule("SortBackward0"))
backward("topk")(_selected_rule("TopkBackward0"))
backward("kthvalue")(_selected_rule("KthvalueBackward0"))


@backward("msort")
def msort_backward(out: Tensor, x: Tensor) -> Any:
    """``sort(dim=0).values``: the order is found again (an argsort) when the gradient comes."""

    def grads(g: Tensor) -> tuple:
        if not x.ndim:
            return (g,)
        return (gradtools.grad_zeros(x._layout.shape, g._dtype).scatter(0, x.argsort(0), g),)

    return "SortBackward0", (x,), grads, (x,)


seal(globals())  # (last: this module's ops with a backward rule become their recording entries)
# the kinds of this module's ops, in the op registry (after the seal: the forwards are the entries)
declare(Kind.COPY, "sort argsort msort topk kthvalue")
