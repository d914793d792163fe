"""The reductions' fast path: ``prod`` / ``amax`` / ``amin`` (and ``var`` / ``std``, ``aminmax``, the
full ``max`` / ``min``, the plan of ``softmax``; ``sum`` / ``mean``: :func:`cascade_reduce`) of a float32 or float64
tensor over every dim or one int dim, with no ``dtype=`` and no ``out=``.

The argument parsing of the general path (``reduction_dims``, ``reduced_shape``, ``check_keepdim``,
the result's allocation) costs several times the NumPy reduction on a small tensor; here it is one
memo lookup per (shape, strides, dim, keepdim) (:data:`PLANS`). The reduction itself is the one
the general path runs (the same ufunc's ``reduce`` on the same in-place view, accumulating in the
input's dtype), so the values are the same bit for bit; only its result is adopted instead of
being written into a preallocated one. Anything else (another dtype, a dim tuple, a bad dim, an
empty or 0-d tensor) answers None and the caller takes its general path, which raises PyTorch's errors.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ... import layout as L
from ...dispatch import adopted
from ...dtypes import float32, float64
from ...grad_mode import SUBCLASSES
from ...kernels import native, rows
from ...kernels.fpstate import quiet_call, quiet_retry
from ...kernels.memory import dense_layout, numpy_view
from ...kernels.native import sums
from ...lazy_names import function_on_first_call
from ...tensor import Tensor
from .front import compiled_front, kernel_entry
from .memo import Memo
from .operands import _cinfo

# (PyTorch's summation orders: loaded on the first reduction that needs one; see strided.lazy_names.function_on_first_call)
iterator_dims = function_on_first_call("strided.kernels.torch_sum", "iterator_dims", globals())
sum_array = function_on_first_call("strided.kernels.torch_sum", "sum_array", globals())

Plan = tuple[int | None, L.Layout, int]


def _plan(key: tuple[tuple[int, ...], tuple[int, ...], int | None, bool]) -> Plan | None:
    """(NumPy axis, the result's row-major layout, the count each result element reduces), or
    None where the general path must run (it raises, or handles an empty tensor)."""
    shape, _strides, dim, keepdim = key
    ndim = len(shape)
    if not ndim or 0 in shape or (dim is not None and not -ndim <= dim < ndim):  # (0-d: NumPy gives scalars)
        return None
    if dim is None:
        axis = None
        out_shape: tuple[int, ...] = (1,) * ndim if keepdim else ()
    else:
        axis = dim % ndim
        out_shape = shape[:axis] + ((1,) if keepdim else ()) + shape[axis + 1 :]
    count = L.product(shape) // L.product(out_shape)
    return axis, L.Layout._trusted(out_shape, L.contiguous_strides(out_shape), 0), count


# (shape, strides, dim, keepdim) -> Plan or None (the strides are in the key so that a caller
# may one day plan by memory order; today the plan depends on the shape alone)
PLANS = Memo(_plan)
MAXIMUM, MINIMUM = np.maximum.reduce, np.minimum.reduce  # (the objects extrema passes)
# the reduces whose full reduction takes the compiled extreme (its mode: 1 largest, 0 smallest)
_MODES = {MAXIMUM: 1, rows.max_reduce: 1, MINIMUM: 0, rows.min_reduce: 0}
_empty = np.empty


def fast_plan(t: Any, dim: Any, keepdim: Any) -> Plan | None:
    """The :data:`PLANS` entry for reducing ``t`` over ``dim`` when the fast path applies (a float32
    or float64 Tensor, ``dim`` None or an int, ``keepdim`` a bool, see the module doc), else None."""
    if (t.__class__ is not Tensor and t.__class__ not in SUBCLASSES) or keepdim.__class__ is not bool or not (dim is None or dim.__class__ is int):
        return None
    d = t._dtype
    if d is not float32 and d is not float64:
        return None
    lay = t._layout
    return PLANS[(lay.shape, lay.strides, dim, keepdim)]


def fast_operand(t: Any, dim: Any, keepdim: Any) -> tuple[np.ndarray, Plan] | None:
    """(the NumPy array a fast reduction of ``t`` over ``dim`` reads, its :data:`PLANS` entry), or
    None when the fast path does not apply (see the module doc). Over every element, a row-major
    tensor is read as its flat run (NumPy coalesces the dims alike: the same sums)."""
    plan = fast_plan(t, dim, keepdim)
    if plan is None:
        return None
    lay = t._layout
    if plan[0] is None:
        info = _cinfo[lay.shape]
        if lay.strides == info[0]:
            x = t._storage.array[lay.offset : lay.offset + info[1]]
            if len(x) != info[1]:  # (a tensor unpickled past its storage: the general path refuses it)
                return None
            return x, plan
    return numpy_view(t._storage, lay), plan


# The compiled reductions' wrappers (:mod:`strided.kernels.rows`) and the NumPy reduce each calls,
# with the same arguments, below ``rows.MIN_ELEMENTS`` elements
_SMALL = {rows.add_reduce: np.add.reduce, rows.max_reduce: np.maximum.reduce, rows.min_reduce: np.minimum.reduce}


def fast_reduce(reduce: Callable[..., np.ndarray], t: Any, dim: Any, keepdim: Any) -> Tensor | None:
    """``reduce`` (a ufunc's ``reduce``: ``np.add.reduce``, ``np.maximum.reduce``) of ``t`` over
    ``dim`` (None: every dim; an int), as the general path computes it, or None when the fast
    path does not apply (see the module doc). The caller reports the result."""
    # fast_operand (and its fast_plan), inlined: two calls are a tenth of a 1 µs reduction
    if (t.__class__ is not Tensor and t.__class__ not in SUBCLASSES) or keepdim.__class__ is not bool or not (dim is None or dim.__class__ is int):
        return None
    d = t._dtype
    if d is not float32 and d is not float64:
        return None
    lay = t._layout
    plan = PLANS[(lay.shape, lay.strides, dim, keepdim)]
    if plan is None:
        return None
    axis = plan[0]
    info = _cinfo[lay.shape]
    if lay.strides == info[0]:  # row-major: the flat run (numpy_view's own answer, without its call)
        x = t._storage.array
        if lay.offset or len(x) != info[1]:
            x = x[lay.offset : lay.offset + info[1]]
            if len(x) != info[1]:  # (a tensor unpickled past its storage: the general path refuses it)
                return None
        if axis is not None:
            x = x.reshape(lay.shape)
        elif (mode := _MODES.get(reduce)) is not None and (k := rows.extreme_all()) is not None:
            # the largest (smallest) element by the compiled row kernel, one row: where it is
            # neither a zero (-0.0 or 0.0: which one NumPy returns depends on its loop) nor NaN
            # (which payload) it is the one answer, NumPy's bits, without the ufunc reduce's cost
            # (as much as PyTorch's whole max on a small tensor); the kernel answers 0 then (1: a
            # zero or NaN, -1: not taken, an unaligned run: NumPy's reduce below)
            res = _empty(1, d.numpy)
            if not k(x, res, mode):
                return adopted(res, plan[1], d)
    else:
        x = numpy_view(t._storage, lay)
    if info[1] < rows.MIN_ELEMENTS:  # (the kernels' wrappers would call NumPy's reduce: called at once)
        reduce = _SMALL.get(reduce, reduce)
    # keepdims: an array always (a 0-d reduction), but a 2-d one along a dim is 1-d as it is
    kept = axis is None or x.ndim != 2
    try:  # fpstate.quietly, inlined: overflow gives inf silently, as in PyTorch
        res = quiet_call(reduce, x, axis, None, None, kept)
    except RuntimeError as e:
        res = quiet_retry(e, reduce, x, axis, None, None, kept)
    # (row-major order: a copy only if NumPy laid it out otherwise)
    return adopted(res if res.ndim == 1 else res.reshape(-1), plan[1], d)


def sure_extreme(t: Any, dim: Any, keepdim: Any, mode: int) -> Any:
    """amin (``mode`` 0), amax (1) or ``(amin, amax)`` (2) of a small (below ``rows.MIN_ELEMENTS``)
    row-major float32 / float64 tensor over every dim (``dim`` None) or its last (an int), or of any
    dense (row-major or permuted) one over every dim (amin, amax), fresh,
    by one call of the compiled row kernel (:func:`strided.kernels.rows.extreme_all`), where every
    result is neither a zero nor
    NaN: then it is the one answer, NumPy's and PyTorch's bits, and needs none of the zero-sign
    fixes (:mod:`strided.kernels.torch_extreme_reduce`). None otherwise (another layout or dim, a
    zero or NaN met, the kernel off: the caller's :func:`fast_reduce` or general path). The caller
    reports the result."""
    plan = fast_plan(t, dim, keepdim)
    if plan is None:
        return None
    d = t._dtype
    lay = t._layout
    shape = lay.shape
    info = _cinfo[shape]
    axis = plan[0]
    # (from rows.MIN_ELEMENTS on, fast_reduce's row kernels, tuned for large rows, keep the call
    # along a dim, as does aminmax's pair (the kernel's one pass gives both there); over every
    # element, the one row here too: a sure answer needs no zero-sign fix after it, and a densely
    # permuted tensor, a transpose, is that row in another order, whose extreme is the same one)
    if axis is None:
        # (a transpose's layout is remembered in the dense memo, dense_layout: the compiled front
        # of amax() / amin() / max() / min() then takes its next call itself)
        if (info[1] >= rows.MIN_ELEMENTS and mode == 2) or (
                lay.strides != info[0] and not (info[1] and (dense_layout(shape, lay.strides) is not None
                                                             or L.is_non_overlapping_and_dense(shape, lay.strides)))):
            return None
    elif lay.strides != info[0] or info[1] >= rows.MIN_ELEMENTS or axis != len(shape) - 1:
        return None
    if (k := rows.extreme_all()) is None:
        return None
    x = t._storage.array
    if lay.offset or len(x) != info[1]:
        x = x[lay.offset : lay.offset + info[1]]
        if len(x) != info[1]:  # (a tensor unpickled past its storage: the general path refuses it)
            return None
    count = info[1] // plan[2]  # (the rows: the results)
    res = _empty(count, d.numpy)
    if k(x, res, mode & 1, plan[2]):  # (a zero or NaN met (which one NumPy keeps depends on its loop), or not taken)
        return None
    if mode == 2:  # (two calls into two fresh arrays: cheaper than slicing one call's pair)
        hi = _empty(count, d.numpy)
        if k(x, hi, 1, plan[2]):
            return None
        return adopted(res, plan[1], d), adopted(hi, plan[1], d)
    return adopted(res, plan[1], d)



# ---- amax / amin along the unit-stride dim of a large 2-d tensor, one compiled call

# (row count, row stride and row length in elements, the result's layout), or None
RowPlan = tuple[int, int, int, L.Layout]


def _row_plan(key: tuple[tuple[int, ...], tuple[int, ...], int, bool]) -> RowPlan | None:
    """The rows of ``amax``/``amin`` over ``dim`` of a 2-d tensor of at least ``rows.MIN_ELEMENTS``
    elements where that dim steps by one element and the other by more (the layouts whose rows
    the kernel path of :func:`strided.kernels.rows.max_reduce` takes: ``rows._plan``), else None."""
    shape, strides, dim, keepdim = key
    if len(shape) != 2 or not -2 <= dim < 2 or L.product(shape) < rows.MIN_ELEMENTS:
        return None
    axis = dim % 2
    other = 1 - axis
    if strides[axis] != 1 or strides[other] <= 1 or shape[axis] < 1:
        return None  # (rows that repeat, slide by one element or step backwards: the general path)
    out_shape = (shape[other], 1) if keepdim and axis == 1 else (1, shape[other]) if keepdim else (shape[other],)
    return shape[other], strides[other], shape[axis], L.Layout._trusted(out_shape, L.contiguous_strides(out_shape), 0)


ROW_PLANS = Memo(_row_plan)


def row_extremes(t: Any, dim: Any, keepdim: Any, mode: int, fix: Callable[..., Tensor]) -> Tensor | None:
    """``t.amax(dim, keepdim)`` (``mode`` 1) / ``t.amin(dim, keepdim)`` (0) of a float32 / float64
    2-d tensor of at least ``rows.MIN_ELEMENTS`` elements along its unit-stride dim (a row-major
    matrix's dim 1, its transpose's dim 0), fresh, by one call of the compiled
    ``extreme_rows_at`` on the storage as it is (:data:`ROW_PLANS`); where every result is
    neither a zero nor NaN it is the one answer (NumPy's and PyTorch's bits). Otherwise the
    results are settled as the general path settles them: each zero or NaN result NumPy's
    (:func:`strided.kernels.rows.settle_extremes`), then ``fix(result, t, dim, keepdim, mode ==
    1)`` (the caller's zero-sign and NaN fix). None where it does not apply (another dtype,
    layout or dim, the kernel off or not taking the call): the caller's general path. The caller
    reports the result."""
    if (t.__class__ is not Tensor and t.__class__ not in SUBCLASSES) or dim.__class__ is not int or keepdim.__class__ is not bool:
        return None
    d = t._dtype
    if d is not float32 and d is not float64:
        return None
    lay = t._layout
    plan = ROW_PLANS[(lay.shape, lay.strides, dim, keepdim)]
    if plan is None or (k := rows.extreme_rows_at()) is None:
        return None
    count = plan[0]
    res = _empty(count, d.numpy)
    unsure = k(t._storage.array, lay.offset, count, plan[1], plan[2], res, mode)
    if unsure < 0:  # (not taken: unaligned, outside the storage)
        return None
    if unsure:  # (zeros and NaN: NumPy's, then the caller's fix, as on the general path)
        x = numpy_view(t._storage, lay)
        axis = dim % 2
        rows.settle_extremes(x, axis, mode, res, count, rows._plan(x, axis))
        return fix(adopted(res, plan[3], d), t, dim, keepdim, mode == 1)
    return adopted(res, plan[3], d)

# ---- sum / mean in PyTorch's order (strided.kernels.torch_sum), the compiled kernel's call planned

# (the kernel's argument tuples, the result's layout, its element count, the count each result
# reduces, the largest element offset read), or None where the general path must run
CascadePlan = tuple[int, tuple[int, ...], tuple[int, ...], tuple[int, ...], L.Layout, int, int, int]


def _cascade_plan(key: tuple[tuple[int, ...], tuple[int, ...], int | None, bool, int]) -> CascadePlan | None:
    shape, strides, dim, keepdim, itemsize = key
    ndim = len(shape)
    if not ndim or 0 in shape or (dim is not None and not -ndim <= dim < ndim) or min(strides) < 0:
        return None  # (0-d, empty, a bad dim: the general path; a negative stride: its row-major copy)
    if L.product(shape) * itemsize > _INT64_MAX:
        return None  # (a huge expanded tensor: the general path explains that NumPy cannot hold it)
    red = tuple(True for _ in shape) if dim is None else tuple(i == dim % ndim for i in range(ndim))
    if dim is None:
        out_shape: tuple[int, ...] = (1,) * ndim if keepdim else ()
    else:
        axis = dim % ndim
        out_shape = shape[:axis] + ((1,) if keepdim else ()) + shape[axis + 1 :]
    sizes, ins, outs = iterator_dims(shape, strides, red, keepdim)
    if max(ins) * itemsize > _INT64_MAX:
        return None  # (a huge step the kernel's byte strides cannot hold: a size-1 dim's; the general path)
    results = L.product(out_shape)
    return (itemsize == 8, sizes, tuple(s * itemsize for s in ins), tuple(s * itemsize for s in outs),
            L.Layout._trusted(out_shape, L.contiguous_strides(out_shape), 0), results,
            L.product(shape) // results, sum((n - 1) * s for n, s in zip(shape, strides)))


CASCADE_PLANS = Memo(_cascade_plan)
_INT64_MAX = 2**63 - 1
_zeros = np.zeros


def planned_sum(work: np.ndarray, flat: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """``sum_array(work, axes, False)`` (PyTorch's order over ``work``'s layout): over one axis by
    the compiled kernel's call planned once per layout (``sum``'s fast path's plan: ``flat`` is
    ``work``'s memory, ``work``'s first element at its start), else :func:`sum_array` itself."""
    k = native.sums()
    if len(axes) == 1 and k is not None:
        isz = work.itemsize
        plan = CASCADE_PLANS[(work.shape, tuple(s // isz for s in work.strides), axes[0], False, isz)]
        if plan is not None:
            res = np.zeros(plan[5], work.dtype)
            k.cascade(flat, plan[0], plan[1], plan[2], plan[3], res, 0)
            return res.reshape(plan[4].shape)
    return sum_array(work, axes, False)


def cascade_reduce(t: Any, dim: Any, keepdim: Any, mean: bool = False, nan_zero: bool = False) -> Tensor | None:
    """``t.sum(dim, keepdim)`` (``mean``: ``t.mean(dim, keepdim)``, the sums divided by the count;
    ``nan_zero``: ``t.nansum(dim, keepdim)``, each NaN read as 0 in the same adds)
    of a float32 / float64 tensor over every dim or one int dim, PyTorch's bits by the compiled
    kernel of :mod:`strided.kernels.torch_sum`, planned once per (shape, strides, dim, keepdim,
    itemsize) in :data:`CASCADE_PLANS`; None where the general path must run (another dtype, a dim
    tuple, a bad dim, an empty, 0-d or negatively strided tensor, the kernel not built or switched
    off: the general path's :func:`strided.kernels.torch_sum.sum_array` gives the same bits). The
    caller reports the result."""
    # (fast_plan's guard, written out again: a shared helper measured +0.1-0.2 us on every small sum)
    if (t.__class__ is not Tensor and t.__class__ not in SUBCLASSES) or keepdim.__class__ is not bool or not (dim is None or dim.__class__ is int):
        return None
    d = t._dtype
    if d is not float32 and d is not float64:
        return None
    lay = t._layout
    plan = CASCADE_PLANS[(lay.shape, lay.strides, dim, keepdim, d.itemsize)]
    if plan is None:
        return None
    k = sums()
    if k is None:
        return None
    arr = t._storage.array
    off = lay.offset
    if off + plan[7] >= len(arr):  # (a tensor unpickled past its storage: the general path refuses it)
        return None
    res = _zeros(plan[5], arr.dtype)
    # (mean: PyTorch's div_ by the count, a float of the dtype, in the kernel's call: 0 < count, no warning)
    k.cascade(arr[off:] if off else arr, plan[0] + 5 if nan_zero else plan[0], plan[1], plan[2], plan[3], res,
              plan[6] if mean else 0)
    return adopted(res, plan[4], d)


# ---- the compiled fronts of the whole extremes (max(), min(), amax(), amin())

_SCALAR = _cinfo[()][2]  # (the 0-d result's layout, shared)


def install_whole_extreme_fronts(namespace: dict[str, Any], modes: tuple[tuple[str, int], ...]) -> None:
    """Put a compiled front (:mod:`.front`) before the entries of the ops named in
    ``modes`` (name, 1 largest / 0 smallest; function and method): ``x.max()`` / ``x.amax()`` (no
    dim) of a plain float32/float64 tensor of at least one dim, row-major or a transpose, at offset
    0 over exactly its storage, outside autograd with nobody listening, makes the forward's kernel
    call from C (``extreme_one``: extreme_all's sure answer: no zero, no NaN met, so no zero sign
    or NaN bits to fix) into the fresh 0-d result; where it is not sure, and for every other call,
    the entry. A transpose too (``dense``: its storage run in memory order holds the same elements,
    and a sure extreme is one value whatever the order). Used for max/min and amax/amin
    (strided.ops.reductions.extrema, nan_reductions)."""
    k = native._compiled("_rowkernel")  # (the module itself: the front reads the switch per call)
    run = getattr(k, "extreme_one", None)
    if run is None:
        return
    for name, mode in modes:
        entry = namespace[name]
        front = compiled_front(entry, 1, {d: (None, True, None, kernel_entry(run, (mode,), d.numpy, whole=_SCALAR))
                                          for d in (float32, float64)}, dense=(float32, float64))
        if Tensor.__dict__.get(name) is entry:
            setattr(Tensor, name, front)
        namespace[name] = front
