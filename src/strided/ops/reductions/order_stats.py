"""Order statistics: ``median``, ``nanmedian``, ``quantile``, ``nanquantile`` and ``mode`` (PyTorch 2.13).

- ``median`` is the *lower* of the two middle values (``kthvalue`` at ``(n - 1) // 2 + 1``); NaN
  anywhere in a row makes its median NaN (the index is the first NaN's). ``nanmedian`` skips
  NaN (a row of NaN only: NaN). With ``dim`` both return ``(values, indices)``.
- ``quantile`` is PyTorch's composite: the input sorted (a recorded ``sort``), the ranks
  ``q * (n - 1)`` computed in the input's dtype, the neighbours gathered and ``lerp``-ed, so its
  gradient is those ops' own, as in PyTorch.
- ``mode``: the most frequent value of each row (the smallest among equally frequent ones) and
  the index of its *last* occurrence, as PyTorch's CPU kernel gives.

# Note: where a median value occurs several times, PyTorch's docs leave the index unspecified (its
# CPU kernel's nth_element picks one); strided gives the one NumPy's partition leaves at the middle.

>>> strided.tensor([3.0, 1.0, 2.0, 4.0]).median().item()
2.0
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...dispatch import OPEN, adopted
from ...dtypes import float32, float64, int32, int64, np_kind
from ...errors import (
    StridedIndexError,
    StridedRuntimeError,
    StridedTypeError,
    join_lines,
)
from ...grad_mode import count_kernel_writes
from ...gradients import seal
from ...kernels import native
from ...kernels.blocked import row_major
from ...kernels.fpstate import QUIET, quiet_reset, quiet_set
from ...kernels.native import kernel_run, special
from ...layout.order import preserve_format_strides
from ...lazy_names import function_on_first_call
from ...opdef import Kind, declare
from ...tensor import Tensor, tensor_arg
from .._support import gradtools, return_types, support
from .._support.along import flag, moved_last, one_dim, take_last, tensor_from_array
from .._support.front import compiled_front, kernel_entry
from .._support.operands import _cinfo, flat_run
from .._support.out import write_out, write_pair_out
from .._support.reduce_args import reduced_shape, shape_text
from ..elementwise.binary_more import lerp_arrays
from ..elementwise.unary import where
from ..registry import backward, method

# (PyTorch's selection and sort orders, written in Python: loaded on the first call that needs them)
median_position = function_on_first_call("strided.ops._support.stl_select", "median_position", globals())
mode_row = function_on_first_call("strided.ops._support.stl_select", "mode_row", globals())
sort_keys = function_on_first_call("strided.ops._support.torch_sort_order", "sort_keys", globals())

__all__ = ["median", "mode", "nanmedian", "nanquantile", "quantile"]


def _nonempty_dim(x: Tensor, d: int, op: str) -> None:
    shape = x._layout.shape
    if shape and shape[d] == 0 and x.numel() == 0 and all(s for i, s in enumerate(shape) if i != d):
        raise StridedIndexError(join_lines(
            f"{'median' if op == 'nanmedian' else op}(): Expected reduction dim {d} to have non-zero size.",  # (PyTorch's nanmedian says median)
            f"the tensor has shape {shape_text(shape)}: dim {d} is empty, so it has no {op}"))


def _middle(rows: np.ndarray, skip_nan: bool) -> tuple[np.ndarray, np.ndarray]:
    """(values, indices) of the lower median of each row of ``rows`` (..., n), n > 0."""
    n = rows.shape[-1]
    floating = np_kind(rows.dtype) in "fc"
    nan = np.isnan(rows) if floating else np.zeros(rows.shape, bool)
    if skip_nan:
        count = n - nan.sum(-1)
        k = np.maximum(count - 1, 0) // 2
    else:
        k = np.full(rows.shape[:-1], (n - 1) // 2)
    order = np.argsort(rows, axis=-1, kind="stable") if rows.ndim else np.zeros(1, np.int64)
    idx = take_last(order, k[..., None])[..., 0]
    if not skip_nan and floating:  # a NaN in the row: the first NaN
        any_nan = nan.any(-1)
        idx = np.where(any_nan, np.argmax(nan, -1), idx)
    values = take_last(rows, idx[..., None])[..., 0]
    return values, idx.astype(np.int64)


def _flat_middle(flat: np.ndarray, skip_nan: bool) -> np.generic:
    """The value :func:`_middle` gives for a non-empty 1-d real ``flat``: NumPy's partition (a
    tenth of a sort) finds the value; equal values have equal bits, but for a zero (-0.0 or 0.0)
    :func:`_stable_middle` tells which, as before. With a NaN, ``median`` gives the first NaN and
    ``nanmedian`` the lower median of the others (all NaN: the first NaN)."""
    if np_kind(flat.dtype) == "f":
        nan = np.isnan(flat)
        nans = int(np.count_nonzero(nan))
        if nans and (not skip_nan or nans == flat.size):
            return flat[int(nan.argmax())]
        values = flat[~nan] if nans else flat
        k = (values.size - 1) // 2
        middle = np.partition(values, k)[k]
        return _stable_middle(flat, skip_nan) if middle == 0 else middle
    k = (flat.size - 1) // 2
    return np.partition(flat, k)[k]


def _clone_order(whole: np.ndarray, x: Tensor) -> np.ndarray:
    """``x``'s elements (``whole``: its NumPy view) in the order PyTorch's median kernel reads them:
    the memory order of its ``clone()`` (a dense permuted tensor keeps its strides: no copy here),
    which decides which of -0.0 and 0.0 its ``std::nth_element`` leaves in the middle."""
    lay = x._layout
    strides = preserve_format_strides(lay.shape, lay.strides)
    order = sorted(range(len(strides)), key=lambda d: (-strides[d], d))
    return np.transpose(whole, order).reshape(-1)


def _stable_middle(flat: np.ndarray, skip_nan: bool) -> np.generic:
    """The value :func:`_middle` gives for a non-empty 1-d real ``flat``, from the values alone.

    A stable sort of the values puts the elements in the stable argsort's order (the same bits:
    which of -0.0 and 0.0 comes first, which NaN), NaN last in their own order: the lower median
    is at ``(n - 1) // 2`` (``nanmedian``: of the non-NaN count, the position of the first NaN),
    and a row with NaN (``median``) gives its first NaN, the first of the sorted NaN.
    """
    s = np.sort(flat, kind="stable")
    n = s.size
    if np_kind(s.dtype) != "f" or not np.isnan(s[-1]):
        return s[(n - 1) // 2]
    first_nan = int(np.isnan(s).argmax())
    return s[max(first_nan - 1, 0) // 2] if skip_nan else s[first_nan]


def _pytorch_median_bits(flat: np.ndarray, value: Any, skip_nan: bool) -> Any:
    """The median of all elements (``value``, from the stable sort) with the bits PyTorch's CPU
    kernel gives: ``median`` of elements with a NaN is its own quiet NaN (not the input's NaN),
    and where the median is a zero and both -0.0 and 0.0 occur, the one its ``std::nth_element``
    leaves in the middle (:func:`~.._support.stl_select.median_position`; for up to 4096 elements)."""
    if value != value:
        return value if skip_nan else np.array(np.nan, flat.dtype)[()]
    if value == 0:
        signs = np.signbit(flat[flat == 0])
        if signs.any() and not signs.all():
            kernel = special()
            if kernel is not None:
                pos = _compiled_median_position(kernel, flat, skip_nan)
            elif flat.size <= _SORT_STEPS_MAX:
                pos = median_position(flat.tolist(), skip_nan)
            else:  # (no kernel: the Python steps would take too long; the stable sort's zero)
                return value
            return value if pos is None else flat[pos]
    return value


def _compiled_median_position(kernel: Any, flat: np.ndarray, skip_nan: bool) -> int | None:
    """:func:`~.._support.stl_select.median_position`, compiled (``stl_nth``)."""
    # (kernel_run: memory borrowed at an odd address, which the kernel refuses, read from an aligned copy)
    keys = kernel_run(np.ascontiguousarray(flat, dtype=np.float64 if flat.dtype == np.float64 else np.float32))
    nans = int(np.count_nonzero(np.isnan(keys)))
    if nans and not skip_nan:
        return None
    nth = max(keys.size - nans - 1, 0) // 2
    return kernel.stl_nth(keys, nth, 0 if skip_nan else 2)


# The most elements the fast path sorts (beyond, NumPy's partition of the general path wins).
_FAST_MEDIAN_MAX = 1024


def _fast_flat_median(x: Any, skip_nan: bool) -> Tensor | None:
    """The median of all elements of a row-major float32/float64 ``x`` of 1 to
    :data:`_FAST_MEDIAN_MAX` elements, by one NumPy sort of its flat run, where no element is NaN
    and the middle value is not a zero: then every element order gives that value's one bit
    pattern (the general path's clone order, partition and NaN rules only decide between NaN
    bits and between -0.0 and 0.0), for median and nanmedian alike (no NaN to skip). None
    otherwise (the general path runs)."""
    if x.__class__ is not Tensor:
        return None
    d = x._dtype
    if d is not float32 and d is not float64:
        return None
    info = _cinfo[x._layout.shape]
    if not 0 < info[1] <= _FAST_MEDIAN_MAX:
        return None
    flat = flat_run(x, info)
    if flat is None:
        return None
    kernel = special() if info[1] <= 64 else None  # (beyond, NumPy's sort measured faster)
    if kernel is not None:
        # (the compiled selection, one line: the lower middle value, or the first NaN where there
        # is one, which like a zero is left to the general path)
        value, at = _empty(1, flat.dtype), _empty(1, np.int64)
        # (kernel_run: memory at an odd address read from an aligned copy, which the kernel takes)
        if kernel.stable_median(kernel_run(flat), value, at, info[1], 1, False):
            v = value[0]
            return None if v != v or v == 0 else adopted(value, _cinfo[()][2], d)
    s = np.sort(flat)
    k = (info[1] - 1) // 2
    last, value = s[-1], s[k]
    if last != last or value == 0:  # (a NaN sorts last; a zero: which sign is the general path's)
        return None
    return adopted(s[k:k + 1].copy(), _cinfo[()][2], d)


_MEDIAN_FAST = frozenset((float32, float64, int32, int64))
_empty = np.empty
_tuple_new = tuple.__new__  # (the named tuple made as its __new__ makes it, without that Python-level call)


def _fast_median_dim(x: Any, dim: Any, keepdim: Any, skip_nan: bool) -> Any:
    """median/nanmedian along an int ``dim`` of a non-empty row-major float32/float64/int32/int64
    tensor, nobody watching: the compiled ``stable_median`` (the element :func:`_middle`'s stable
    argsort puts at the lower middle, NaN rules included, so the same values and indices) in one
    call, the two results adopted. None when a precondition fails or the kernel is not built."""
    if OPEN or x.__class__ is not Tensor or dim.__class__ is not int or keepdim.__class__ is not bool:
        return None
    shape = x._layout.shape
    nd = len(shape)
    if not nd or not -nd <= dim < nd or x._dtype not in _MEDIAN_FAST:
        return None
    info = _cinfo[shape]
    flat = flat_run(x, info) if info[1] else None
    kernel = special()
    if flat is None or kernel is None:
        return None
    d = dim + nd if dim < 0 else dim
    m = info[1] // shape[d]
    values, idx = _empty(m, flat.dtype), _empty(m, np.int64)
    if not kernel.stable_median(kernel_run(flat), values, idx, shape[d], info[0][d], skip_nan):  # (an odd address: a copy)
        return None
    layout = _cinfo[shape[:d] + (1,) + shape[d + 1:] if keepdim else shape[:d] + shape[d + 1:]][2]
    kind = return_types.nanmedian if skip_nan else return_types.median
    return _tuple_new(kind, (adopted(values, layout, x._dtype), adopted(idx, layout, int64)))


def _median(x: Tensor, dim: Any, keepdim: bool, op: str, skip_nan: bool) -> Any:
    if dim is None:
        fast = _fast_flat_median(x, skip_nan)
        if fast is not None:
            return fast
    else:
        fast = _fast_median_dim(x, dim, keepdim, skip_nan)
        if fast is not None:
            return fast
    tensor_arg(x, op)
    shape = x._layout.shape
    if dim is None and 0 in shape:
        # PyTorch's median of no element is a float NaN converted to the input's dtype, before
        # any dtype check (bool True, int32 its lowest, complex nan+0j, uint8 0): strided's own
        # conversion gives those values (measured against torch 2.13, every dtype)
        return x.new_full((), float("nan"), dtype=float32).to(x._dtype)
    d = None
    if dim is not None:  # (PyTorch checks the dim and the reduced size before the dtype)
        d = one_dim(x, dim, op)
        keepdim = flag(keepdim, op, "keepdim")
        _nonempty_dim(x, d, op)
    # (bool and uint16/32/64 have no kernel, complex numbers no order: nanmedian's errors name
    # median's kernels, as PyTorch's)
    support.check("median" if dim is None else "median.dim", x._dtype, (x,))
    if dim is None:
        whole = x._np()
        flat = _clone_order(whole, x)
        kind = np_kind(flat.dtype)
        values = _flat_middle(flat, skip_nan) if kind in "biuf" else _middle(flat, skip_nan)[0]
        if kind == "f":
            values = _pytorch_median_bits(flat, values, skip_nan)
        return tensor_from_array(np.asarray(values), (), x._dtype)
    out_shape = reduced_shape(shape, (d,), keepdim) if shape else ()
    rows = moved_last(x, d)
    if rows.size == 0:
        values, idx = np.zeros(rows.shape[:-1], rows.dtype), np.zeros(rows.shape[:-1], np.int64)
    else:
        values, idx = _middle(rows, skip_nan)
    kind = return_types.median if op == "median" else return_types.nanmedian
    return kind(tensor_from_array(values, out_shape, x._dtype), tensor_from_array(idx, out_shape, int64))


def _order_out(out: Any, compute: Any, op: str, input: Tensor, dim: Any) -> Any:  # noqa: A002
    """median/nanmedian with out=: the (values, indices) pair along ``dim``; PyTorch has no out= for
    the median of all elements (its parser then asks for ``dim``)."""
    if dim is None:
        raise StridedTypeError(join_lines(
            f'{op}() missing 1 required positional arguments: "dim"',
            f"out= takes {op} along a dim, as (values, indices): {op}(x, dim, out=(values, indices)); "
            f"the {op} of all elements has no out= (y = x.{op}(), then y_out.copy_(y))"))
    return write_pair_out(out, compute, op, (input,), style="median")


@method("median")
def median(input: Tensor, dim: Any = None, keepdim: bool = False, *, out: Any = None) -> Any:  # noqa: A002
    """The lower median of all elements (a 0-d tensor), or with ``dim`` the ``(values, indices)``
    of each row's; NaN in a row makes it NaN.

    >>> strided.tensor([[1.0, 5.0, 2.0, 4.0]]).median(1)
    median(values=tensor([2.]), indices=tensor([2]))
    """
    if out is not None:
        return _order_out(out, lambda: median(input, dim, keepdim), "median", input, dim)
    return _median(input, dim, keepdim, "median", False)


@method("nanmedian")
def nanmedian(input: Tensor, dim: Any = None, keepdim: bool = False, *, out: Any = None) -> Any:  # noqa: A002
    """:func:`median` with NaN skipped (a row of NaN only gives NaN).

    >>> strided.tensor([1.0, float("nan"), 3.0, 2.0]).nanmedian().item()
    2.0
    """
    if out is not None:
        return _order_out(out, lambda: nanmedian(input, dim, keepdim), "nanmedian", input, dim)
    return _median(input, dim, keepdim, "nanmedian", True)


def _median_rule(node: str) -> Any:
    def rule(out: Any, x: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
        if dim is None:
            # PyTorch's evenly_distribute_backward: g shared among the elements equal to the result
            # (masked_fill_ of zeros on CPU: the others get 0 even where g / count is inf or NaN)
            def even(g: Tensor) -> tuple:
                mask = (x == out) | (x.isnan() & out.isnan()) if x._dtype.is_floating_point else x == out
                return (where(mask, g / mask.sum(), 0.0),)

            return f"{node}Backward0", (x,), even, (x, out)
        indices = out[1]
        return f"{node}Backward1", (x,), gradtools.selected_grads(x, indices, dim, keepdim), (indices,)

    return rule


backward("median")(_median_rule("Median"))
backward("nanmedian")(_median_rule("Nanmedian"))


# ---------------------------------------------------------------- quantile

_MODES = ("linear", "lower", "higher", "midpoint", "nearest")


def _fast_quantile(x: Any, q: Any, dim: Any, keepdim: Any, interpolation: Any) -> Tensor | None:
    """quantile/nanquantile of a float ``q`` in [0, 1] of all elements or along the last dim of a
    non-empty row-major float32/float64 tensor without NaN or zeros, untracked and unwatched:
    the general path's array steps on NumPy's sort of the rows (without NaN and zeros equal
    values have one bit pattern, so any sort gives the values PyTorch's sort gives; quantile and
    nanquantile then rank alike), without its tensor round trips. None when a precondition fails
    (the general path then runs)."""
    if OPEN or x.__class__ is not Tensor or x._ag is not None or q.__class__ is not float or not 0 <= q <= 1:
        return None
    d_x = x._dtype
    if (d_x is not float32 and d_x is not float64) or keepdim.__class__ is not bool or interpolation not in _MODES:
        return None
    shape = x._layout.shape
    nd = len(shape)
    info = _cinfo[shape]
    if dim is None:
        kept: tuple[int, ...] = (1,) * nd if keepdim else ()
    elif dim.__class__ is int and nd and (dim == -1 or dim == nd - 1):
        kept = shape[:-1] + (1,) if keepdim else shape[:-1]
    else:
        return None
    flat = flat_run(x, info) if info[1] else None
    if flat is None or np.count_nonzero(flat) != info[1] or _max_reduce(flat) != _max_reduce(flat):
        return None  # (a zero: which sign the sort leaves where; a NaN: the general path's ranks)
    n = info[1] if dim is None or not nd else shape[-1]
    a = np.sort(flat.reshape(-1, n), axis=-1)
    if dim is None:
        a = a.reshape(n)
    dt = d_x.numpy
    # one rank for every row (the general path's ranks broadcast it): its array steps on one element
    ranks = np.array([q], dt) * dt.type(n - 1)
    if interpolation == "lower":
        ranks = np.floor(ranks)
    elif interpolation == "higher":
        ranks = np.ceil(ranks)
    elif interpolation == "nearest":
        ranks = np.round(ranks)
    below = ranks.astype(np.int64)  # (no NaN rank: q is a number in [0, 1])
    rows = a.reshape(-1, n)
    found = rows[:, int(below[0])].copy()  # (the gather at one place of every row)
    if interpolation in ("linear", "midpoint"):
        weight = dt.type(0.5) if interpolation == "midpoint" else (ranks - below).astype(dt)[0]
        upper = rows[:, int(np.ceil(ranks)[0])].copy()
        token = quiet_set(QUIET)
        try:  # (lerp_arrays' same-shape branch, as the general path's (rows, 1) arrays take it)
            found = lerp_arrays(found, upper, np.full(found.shape, weight, dt))
        finally:
            quiet_reset(token)
    # (the general path's last steps: the (kept..., 1) result and its squeeze, a view)
    return adopted(np.ascontiguousarray(found).reshape(-1), _cinfo[kept + (1,)][2], d_x).squeeze(-1)


def _quantile(x: Tensor, q: Any, dim: Any, keepdim: bool, interpolation: str, op: str, skip_nan: bool) -> Tensor:
    fast = _fast_quantile(x, q, dim, keepdim, interpolation)
    if fast is not None:
        return fast
    tensor_arg(x, op)
    if not isinstance(q, Tensor):  # (PyTorch checks a number q first, as the double it is: 1 + 1e-9 is refused)
        number = float(q)
        if not 0 <= number <= 1:
            raise StridedRuntimeError(join_lines(f"quantile() q must be in the range [0, 1] but got {number:g}",
                                                 "q is a probability: 0 gives the minimum, 1 the maximum"))
    d_x = x._dtype
    if d_x.name not in ("float32", "float64"):
        raise StridedRuntimeError(join_lines(
            "quantile() input tensor must be either float or double dtype",
            f"the input of shape {shape_text(x.shape)} is {d_x.name}", "fix: x.double() (or x.float())"))
    if isinstance(q, Tensor):
        if q.ndim > 1:
            raise StridedRuntimeError(join_lines("quantile() q must be a scalar or 1D tensor",
                                                 f"q has shape {shape_text(q.shape)}", "fix: q.flatten()"))
        if q._dtype is not d_x:
            raise StridedRuntimeError(join_lines(
                "quantile() q tensor must be same dtype as the input tensor",
                f"q is {q._dtype.name}, the input {d_x.name}", f"fix: q.to(strided.{d_x.name})"))
        qs = q._np().reshape(-1).astype(d_x.numpy)
        scalar_q = q.ndim == 0
    else:
        qs = np.array([number], d_x.numpy)  # (the double rounded to the input's dtype, as PyTorch)
        scalar_q = True
    if interpolation not in _MODES:
        raise StridedRuntimeError(join_lines(
            f"quantile() interpolation must be one of linear, lower, higher, midpoint or nearest, but got {interpolation}",
            "fix: interpolation='linear' (the default)"))
    if x.numel() == 0:
        raise StridedRuntimeError(join_lines("quantile() input tensor must be non-empty",
                                             f"the input has shape {shape_text(x.shape)}"))
    if isinstance(q, Tensor):  # (PyTorch's q >= 0 && q <= 1: a NaN refused too; its messages say quantile())
        outside = ~((qs >= 0) & (qs <= 1))
        if outside.any():
            raise StridedRuntimeError(join_lines("quantile() q values must be in the range [0, 1]",
                                                 "q is a probability: 0 gives the minimum, 1 the maximum"))
    shape = x._layout.shape
    if not skip_nan and not OPEN and x._ag is None and x.numel() >= _SELECT_MIN:
        selected = _quantile_selected(x, qs, dim, keepdim, interpolation, op)
        if selected is not None:
            values, kept = selected
            return _quantile_shaped(values, kept, len(qs), scalar_q)
    if dim is None:
        rows = x.flatten().sort().values  # (n,)
        kept: tuple[int, ...] = (1,) * len(shape) if keepdim else ()
    else:
        d = one_dim(x, dim, op)
        rows = (x.movedim(d, -1) if shape else x.reshape(1)).sort(-1).values  # (..., n)
        kept = reduced_shape(shape, (d,), keepdim) if shape else ()
    a = rows._np()
    n = a.shape[-1]
    dt = d_x.numpy
    nan = np.isnan(a)
    if skip_nan:
        count = (n - nan.sum(-1, keepdims=True)).astype(dt)
        ranks = qs * (count - dt.type(1))
        ranks = np.where(ranks < 0, dt.type(0), ranks)
    else:
        ranks = np.broadcast_to(qs * dt.type(n - 1), a.shape[:-1] + qs.shape)
        ranks = np.where(nan.any(-1, keepdims=True), dt.type(n - 1), ranks)
    below, above, weights = _positions(ranks, interpolation, dt)
    interpolated = above is not None
    if OPEN or x._ag is not None:
        # (recorded, or differentiated: PyTorch's composite, gather and lerp, whose gradients
        # and records are theirs)
        values = rows.gather(-1, tensor_from_array(below, below.shape, int64))
        if interpolated:
            upper = rows.gather(-1, tensor_from_array(above, above.shape, int64))
            values = values.lerp(upper, tensor_from_array(weights, weights.shape, d_x))
    else:  # (the same gathers and lerp on the arrays: the same bits, a fresh row-major result)
        found = np.take_along_axis(a, below, -1)
        if interpolated:
            token = quiet_set(QUIET)
            try:
                found = lerp_arrays(found, np.take_along_axis(a, above, -1), weights)
            finally:
                quiet_reset(token)
        values = tensor_from_array(found, found.shape, d_x)
    return _quantile_shaped(values, kept, len(qs), scalar_q)


def _quantile_shaped(values: Tensor, kept: tuple[int, ...], nq: int, scalar_q: bool) -> Tensor:
    """The quantiles ``values`` (rest..., Q) viewed as (kept..., Q); then the Q dim moved first (a
    view: PyTorch's unsqueeze(0).transpose(0, -1).squeeze(-1), whose strides it keeps) or dropped
    for a number q."""
    values = values.reshape(*kept, nq)
    if scalar_q:
        return values.squeeze(-1)
    return values.unsqueeze(0).transpose(0, -1).squeeze(-1)


def _positions(ranks: np.ndarray, interpolation: str, dt: np.dtype
               ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    """The sorted positions quantile reads for its ``ranks`` (float, in the input's dtype): the
    lower one (int64), and for linear/midpoint the upper one and the interpolation weights (else
    None, None)."""
    ranks = ranks.astype(dt, copy=False)
    if interpolation == "lower":
        ranks = np.floor(ranks)
    elif interpolation == "higher":
        ranks = np.ceil(ranks)
    elif interpolation == "nearest":
        ranks = np.round(ranks)  # (half to even, as PyTorch's round_)
    below = np.where(ranks != ranks, dt.type(0), ranks).astype(np.int64)  # (a NaN rank, q NaN: 0)
    if interpolation not in ("linear", "midpoint"):
        return below, None, None
    weights = np.full(ranks.shape, 0.5, dt) if interpolation == "midpoint" else (ranks - below).astype(dt)
    above = np.ceil(ranks)
    return below, np.where(above != above, dt.type(0), above).astype(np.int64), weights


# the fewest elements quantile selects its order statistics for (below: the sort, as PyTorch)
_SELECT_MIN = 1 << 12


def _quantile_selected(x: Tensor, qs: np.ndarray, dim: Any, keepdim: bool, interpolation: str, op: str
                       ) -> tuple[Tensor, tuple[int, ...]] | None:
    """quantile's values (rest..., Q) and kept shape without the sort, for an input without NaN
    (nothing recorded or differentiated): np.partition puts at each wanted position the value the
    sort puts there, so the same gathers and lerp give the same bits. Equal floats are the same
    bits except 0.0 and -0.0, whose order among themselves is the sort's: where a value read is a
    zero (or the input holds a NaN: PyTorch then reads the last position, NaN's payload its
    sort's), None, and the caller sorts. Why: a selection is O(n) a row against the sort's
    O(n log n), 1M float32 elements in (1024) rows 29 -> ~9 ms."""
    shape = x._layout.shape
    if dim is None:
        view = x._np()
        kept: tuple[int, ...] = (1,) * len(shape) if keepdim else ()
    else:
        d = one_dim(x, dim, op)
        view = np.moveaxis(x._np(), d, -1)
        kept = reduced_shape(shape, (d,), keepdim)
    rows = row_major(view)
    own = rows is not view  # (row_major's fresh row-major copy, else the input's memory itself)
    if dim is None:
        rows = rows.reshape(-1)
    dt = rows.dtype
    if np.isnan(rows.max()):
        return None
    n = rows.shape[-1]
    below, above, weights = _positions(qs * dt.type(n - 1), interpolation, dt)
    # one q whose upper position is the next one: only the lower one is selected; the next
    # sorted value is then the least of those after it (a reduction, not a second selection)
    next_one = above is not None and len(below) == 1 and above[0] == below[0] + 1
    kth = np.unique(below if above is None or next_one else np.concatenate([below, above]))
    if own:
        rows.partition(kth, axis=-1)
    else:
        rows = np.partition(rows, kth, axis=-1)
    found = rows[..., below]
    if not found.all():
        return None
    if above is not None:
        upper = rows[..., above[0]:].min(-1, keepdims=True) if next_one else rows[..., above]
        if not upper.all():
            return None
        token = quiet_set(QUIET)
        try:
            found = lerp_arrays(found, upper, np.broadcast_to(weights, found.shape))
        finally:
            quiet_reset(token)
    found = np.ascontiguousarray(found)
    return tensor_from_array(found, found.shape, x._dtype), kept


def _quantile_writes(q: Any, interpolation: str) -> int:
    """The in-place writes PyTorch's quantile kernel makes into its result (its ``_version``):
    ``lerp_`` of the lower order statistics toward the upper ones (linear, midpoint), then
    ``squeeze_`` for a number q (or a 0-d one), ``unsqueeze_``, ``transpose_``, ``squeeze_`` for a
    1-d q (ATen counts each in-place view op as a write)."""
    return (interpolation in ("linear", "midpoint")) + (1 if not isinstance(q, Tensor) or q.ndim == 0 else 3)


@method("quantile")
def quantile(input: Tensor, q: Any, dim: Any = None, keepdim: bool = False, *,  # noqa: A002
             interpolation: str = "linear", out: Any = None) -> Tensor:
    """The ``q``-th quantiles (q a float or a 1-d tensor in [0, 1]; a tensor q adds a first dim)
    of all elements or along ``dim``; ``interpolation`` between the two neighbouring order
    statistics: 'linear', 'lower', 'higher', 'midpoint' or 'nearest'. NaN in a row gives NaN.

    >>> strided.tensor([1.0, 2.0, 3.0, 4.0]).quantile(0.5).item()
    2.5
    """
    if out is not None:  # (PyTorch's out= takes only the result's dtype)
        return write_out(out, quantile(input, q, dim, keepdim, interpolation=interpolation),
                         "quantile", (input, q, dim, keepdim),
                         "quantile() out tensor must be same dtype as the input tensor")
    return count_kernel_writes(_quantile(input, q, dim, keepdim, interpolation, "quantile", False),
                               _quantile_writes(q, interpolation))


@method("nanquantile")
def nanquantile(input: Tensor, q: Any, dim: Any = None, keepdim: bool = False, *,  # noqa: A002
                interpolation: str = "linear", out: Any = None) -> Tensor:
    """:func:`quantile` with NaN skipped (a row of NaN only gives NaN).

    >>> strided.tensor([1.0, float("nan"), 3.0]).nanquantile(0.5).item()
    2.0
    """
    if out is not None:  # (PyTorch's out= takes only the result's dtype)
        return write_out(out, nanquantile(input, q, dim, keepdim, interpolation=interpolation),
                         "nanquantile", (input, q, dim, keepdim),
                         "quantile() out tensor must be same dtype as the input tensor")
    return count_kernel_writes(_quantile(input, q, dim, keepdim, interpolation, "nanquantile", True),
                               _quantile_writes(q, interpolation))


# ---------------------------------------------------------------- mode


@method("mode")
def mode(input: Tensor, dim: int = -1, keepdim: bool = False, *, out: Any = None) -> Any:  # noqa: A002
    """``(values, indices)``: the most frequent value along ``dim`` (the smallest of equally
    frequent ones) and the index of one occurrence, PyTorch's: the last one in rows of up to 16
    elements, where PyTorch's CPU kernel runs a stable insertion sort; in longer rows (and with
    NaN, which PyTorch's sort cannot order) the one its ``std::sort`` leaves there, for tensors of
    up to 4096 elements (beyond, strided gives the last occurrence).

    >>> strided.tensor([[1, 2, 2, 1, 3]]).mode(1)
    mode(values=tensor([1]), indices=tensor([3]))
    """
    if out is None:
        fast = _fast_mode(input, dim, keepdim)
        if fast is not None:
            return fast
    if out is not None:
        return write_pair_out(out, lambda: mode(input, dim, keepdim), "mode", (input,), style="mode")
    op = "mode"
    tensor_arg(input, op)
    support.check(op, input._dtype, (input,))  # (complex: no order; uint16/32/64: no kernel)
    d = one_dim(input, dim, op)
    keepdim = flag(keepdim, op, "keepdim")
    _nonempty_dim(input, d, op)
    shape = input._layout.shape
    out_shape = reduced_shape(shape, (d,), keepdim) if shape else ()
    rows = moved_last(input, d)
    n = rows.shape[-1]
    if rows.size == 0:
        vals, idx = np.zeros(rows.shape[:-1], rows.dtype), np.zeros(rows.shape[:-1], np.int64)
    else:
        compiled = _compiled_mode(rows)  # (PyTorch's kernel step for step; None: not built)
        if compiled is not None:
            vals, idx = compiled
        else:
            vals, idx = _mode_rows(rows)
            if (n > 16 or np_kind(rows.dtype) == "f") and rows.size <= _SORT_STEPS_MAX:
                vals, idx = _pytorch_mode(rows, vals, idx)
    return return_types.mode(tensor_from_array(vals, out_shape, input._dtype), tensor_from_array(idx, out_shape, int64))


def _compiled_mode(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """``(values, int64 indices)`` of each row's mode (along the last axis of the non-empty
    ``rows``) by the compiled ``stl_mode``: PyTorch's kernel (``std::sort`` of the (value,
    position) pairs by ``<``, the last pair of the first longest run) in one pass; None where it
    is not built (or for uint64, which it does not take)."""
    kernel = special()
    if kernel is None or rows.dtype == np.uint64:
        return None
    keys = sort_keys(rows)
    m, n = keys.shape
    vals = np.empty(m, keys.dtype)
    idx = np.empty(m, np.int64)
    todo = _distinct_rows_mode(keys, vals, idx) if keys.size >= _DISTINCT_MIN and n > 16 else None
    if todo is None:
        kernel.stl_mode(keys, vals, idx, n)  # (fresh outputs: never an overlap)
    elif todo.size:  # (the rows with a tie or a NaN: the kernel's pair sort, on a fresh copy of them)
        v, i = np.empty(todo.size, keys.dtype), np.empty(todo.size, np.int64)
        kernel.stl_mode(keys[todo], v, i, n)
        vals[todo], idx[todo] = v, i
    shape = rows.shape[:-1]
    return vals.astype(rows.dtype, copy=False).reshape(shape), idx.reshape(shape)


# From this many elements (in rows of more than 16) mode looks for the rows whose keys are all distinct.
_DISTINCT_MIN = 1 << 14


def _distinct_rows_mode(keys: np.ndarray, vals: np.ndarray, idx: np.ndarray) -> np.ndarray | None:
    """PyTorch's mode of the rows of ``keys`` (2-d, C-contiguous) that hold no two equal keys and
    no NaN, written into ``vals`` and ``idx``: every run of such a sorted row is one pair long, so
    PyTorch's kernel answers the first, the smallest key, at its only position, whatever order its
    sort leaves among equals (there are none). NumPy's vectorized sort finds those rows, and the
    value is read from the row at that position (its own bits). Returns the rows left to the
    kernel (a tie: two equal keys, -0.0 and 0.0 too; or a NaN), or None, with nothing written, where
    most of up to 8 rows spread over ``keys`` have one (data with repeated values: little time
    spent looking; 1024 random float32 hold two equal ones about once in 25 rows). Why: 1024
    rows of 1024 distinct float32, the kernel's pair sort 49 ms (PyTorch's 46), this ~10 ms."""
    def tied(s: np.ndarray) -> np.ndarray:
        t = (s[:, 1:] == s[:, :-1]).any(axis=1)
        return t | np.isnan(s[:, -1]) if keys.dtype.kind == "f" else t  # (NumPy sorts NaN last)

    sample = np.unique(np.linspace(0, len(keys) - 1, 8).astype(np.intp))
    if 2 * np.count_nonzero(tied(np.sort(keys[sample], axis=-1))) > len(sample):
        return None
    at = keys.argmin(axis=-1)
    idx[...] = at
    vals[...] = np.take_along_axis(keys, at[:, None], axis=-1)[:, 0]
    return np.flatnonzero(tied(np.sort(keys, axis=-1)))


def _mode_rows(rows: np.ndarray, order: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(values, int64 indices)`` of each row's mode (along the last axis of the non-empty
    ``rows``) read off the rows sorted in ``order``: the value of the first longest run of equal
    values and the position of that run's last element. The default order, a stable sort's, gives
    the smallest of the most frequent values and its last occurrence (PyTorch's for rows of up to
    16 elements without NaN; :func:`_compiled_mode` is PyTorch's kernel for any row)."""
    n = rows.shape[-1]
    if order is None:
        order = rows.argsort(axis=-1, kind="stable")
    s = take_last(rows, order)
    # run lengths in the sorted rows: the length (less one) of the run ending at each position
    new = np.empty(s.shape, bool)
    new[..., 0] = True
    np.not_equal(s[..., 1:], s[..., :-1], out=new[..., 1:])
    pos = np.arange(n)
    length = pos - np.maximum.accumulate(pos * new, axis=-1)
    # the run length reaches its total at the run's last position: the first position of the
    # longest (argmax: the first maximum) is the end of the longest run of the smallest value,
    # and (the sort being stable) that value's last occurrence in the row; the value is read
    # from the sorted rows there (the same element)
    last = length.argmax(-1)[..., None]
    return take_last(s, last)[..., 0], take_last(order, last)[..., 0].astype(np.int64, copy=False)


_MODE_FAST = frozenset((float32, float64, int32, int64))


def _fast_mode(input: Any, dim: Any, keepdim: Any) -> Any:
    """mode along the last dim of a small row-major float32/float64/int32/int64 tensor with rows of
    2 to 16 elements and no NaN (PyTorch's insertion sort is then the stable sort): the flat run
    read as rows, :func:`_mode_rows`, and the two results adopted. None otherwise."""
    if type(input) is not Tensor or type(dim) is not int or keepdim.__class__ is not bool:
        return None
    shape = input._layout.shape
    nd = len(shape)
    if not nd or dim not in (-1, nd - 1) or input._dtype not in _MODE_FAST or not 1 < shape[-1] <= _SORT_STEPS_MAX:
        return None  # (rows of more than 16 elements: the compiled kernel only, below)
    info = _cinfo[shape]
    if not 0 < info[1] <= _SORT_STEPS_MAX:
        return None
    flat = flat_run(input, info)
    if flat is None:
        return None
    n = shape[-1]
    kernel = special()
    if kernel is not None and input._dtype is not int32:
        # (stl_mode on the flat run straight into flat results: _compiled_mode's call without its
        # key conversion, shapes and reshapes; float32/float64/int64 are their own keys)
        m = info[1] // n
        vals, idx = _empty(m, flat.dtype), _empty(m, np.int64)
        if kernel.stl_mode(flat, vals, idx, n):
            layout = _cinfo[shape[:-1] + (1,) if keepdim else shape[:-1]][2]
            return _tuple_new(return_types.mode, (adopted(vals, layout, input._dtype), adopted(idx, layout, int64)))
    rows = flat.reshape(-1, n)
    compiled = _compiled_mode(rows)
    if compiled is not None:
        vals, idx = compiled
    elif shape[-1] > 16 or (input._dtype.kind == "f" and np.isnan(_max_reduce(rows, axis=None))):
        return None  # (NaN propagates through the max: one pass)
    else:
        vals, idx = _mode_rows(rows)
    layout = _cinfo[shape[:-1] + (1,) if keepdim else shape[:-1]][2]
    return return_types.mode(adopted(vals, layout, input._dtype), adopted(idx, layout, int64))


_max_reduce = np.maximum.reduce


# up to this many elements, mode runs PyTorch's own sort (below): about 2 us per element in
# Python (10 ms for 4096), against 0.1 ms for the stable sort above
_SORT_STEPS_MAX = 1 << 12


def _pytorch_mode(rows: np.ndarray, vals: np.ndarray, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(vals, idx)`` with the rows where PyTorch's answer may differ redone by its own steps
    (:func:`~.._support.stl_select.mode_row`): rows of more than 16 elements (its ``std::sort`` is
    an insertion sort, stable, only up to 16: beyond, which occurrence ends the run is the
    introsort's) and rows with NaN (which compare false both ways: the insertion sort leaves them
    in place, and a NaN can be the mode)."""
    n = rows.shape[-1]
    flat = rows.reshape(-1, n)
    redo = np.arange(flat.shape[0]) if n > 16 else np.flatnonzero(np.isnan(flat).any(-1))
    if not redo.size:
        return vals, idx
    vals, idx = vals.reshape(-1).copy(), idx.reshape(-1).copy()
    for r in redo:
        idx[r] = j = mode_row(flat[r].tolist())
        vals[r] = flat[r, j]
    return vals.reshape(rows.shape[:-1]), idx.reshape(rows.shape[:-1])


@backward("mode")
def _mode_backward(out: Any, x: Tensor, dim: int = -1, keepdim: bool = False) -> Any:
    """ModeBackward0: the gradient goes to the index returned (value_selecting_reduction_backward)."""
    indices = out[1]
    return "ModeBackward0", (x,), gradtools.selected_grads(x, indices, dim, keepdim), (indices,)


seal(globals())  # (last: this module's ops with a backward rule become their recording entries)


def _install_median_fronts(namespace: dict[str, Any]) -> None:
    """Put a compiled front (:mod:`.._support.front`) before the entries of ``median`` and
    ``nanmedian`` (function and method): ``x.median()`` of a plain row-major float32/float64 tensor
    of 1 to :data:`_FAST_MEDIAN_MAX` elements and at least one dim, at offset 0 over exactly its
    storage, outside autograd with nobody listening, gets its lower middle value from C
    (``flat_median``, into the fresh 0-d result) where no element is NaN and that value is not a
    zero, which is :func:`_fast_flat_median`'s case (the one value every order gives); a NaN or
    a zero, and every other call, go to the entry."""
    k = native._compiled("_specialkernel")  # (the module itself: the front reads the switch per call)
    run = getattr(k, "flat_median", None)
    if run is None:
        return
    scalar = _cinfo[()][2]
    for name in ("median", "nanmedian"):
        entry = namespace[name]
        front = compiled_front(entry, 1, {d: (None, True, None, kernel_entry(run, (), d.numpy, _FAST_MEDIAN_MAX, scalar))
                                          for d in (float32, float64)})
        if Tensor.__dict__.get(name) is entry:
            setattr(Tensor, name, front)
        namespace[name] = front


_install_median_fronts(globals())
# the kinds of this module's ops, in the op registry (after the seal: the forwards are the entries)
declare(Kind.COMPUTE, "median nanmedian quantile nanquantile mode")
