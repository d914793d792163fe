"""Pooling as strided windows: ``F.max_pool1d``/``max_pool2d`` and ``F.avg_pool1d``/``avg_pool2d``
with PyTorch 2.13's arguments (``ceil_mode``, ``return_indices``, ``count_include_pad``,
``divisor_override``), shapes and errors (class and first line).

The input (padded with -inf for max, 0 for average: a copy, as the convolution's) is read as
ONE window view ``(N, C, *out, *kernel)``; max runs over the kernel offsets keeping the first
maximum (NaN wins, as PyTorch's kernel) and its index in the unpadded plane; average sums the
view in place and divides by PyTorch's divisor. The gradients are PyTorch's: max pool routes
each output's gradient to its window's argmax (``scatter_add``: the first max of a tie; a
position that is the max of several windows gets each), average pool spreads ``g / divisor``
over each window (the convolution's input gradient with a ones kernel per channel). Both from
recording ops, so a second backward differentiates them again.

>>> F.max_pool2d(strided.arange(16.0).view(1, 1, 4, 4), 2).tolist()
[[[[5.0, 7.0], [13.0, 15.0]]]]
"""

from __future__ import annotations

import math
import struct
from typing import Any

import numpy as np

from ...dispatch import adopted, report, result, result_array
from ...dtypes import TORCH_NAME, bool_, float32, float64, int64
from ...errors import StridedIndexError, StridedNotImplementedError, StridedRuntimeError, join_lines
from ...grad_mode import GRAD_MODE, grad_enabled_at_call, requires_grad
from ...gradients import grad_zeros, seal
from ...kernels.blocked import copy_into
from ...kernels.rows import pool_windows
from ...layout.formats import suggest_format
from ...opdef import Kind, declare
from ...ops._support.gradtools import linked
from ...ops._support.memo import Memo
from ...ops._support.operands import _cinfo
from ...ops.registry import backward
from ...ops.shape.padding import pad
from ...tensor import Tensor, tensor_arg
from ._windows import out_size
from .conv import ConvGeometry, _grads_numpy, _grads_recorded, nchw_channels_last, windows
from .conv import channels_last_any as _channels_last_strides

__all__ = ["adaptive_avg_pool2d", "avg_pool1d", "avg_pool2d", "max_pool1d", "max_pool2d"]


def _ints(value: Any, n: int, op: str, name: str) -> tuple[int, ...]:
    """``value`` as ``n`` ints (PyTorch's pooling check: one int, or a tuple of 1 or ``n``)."""
    items = list(value) if isinstance(value, (list, tuple)) else [value]
    if len(items) not in (1, n):
        what = "a single int, or a tuple of two ints" if n == 2 else "a single int"
        prefix = f"{op}: " if name != "kernel_size" or n == 2 else f"{op}() "
        raise StridedRuntimeError(join_lines(f"{prefix}{name} must either be {what}",
                                             f"{op} pools {n} spatial dim(s); {name}={value!r}"))
    items = [int(v) for v in items]
    return tuple(items) * n if len(items) == 1 else tuple(items)


class _Pool:
    """One pooling's sizes (the batched input's ``n, c, spatial``; per dim ``kernel, stride,
    padding, dilation``, the right-hand ``extra`` padding ``ceil_mode`` reads, ``out``)."""

    def __init__(self, op: str, nsp: int, input: Tensor, kernel_size: Any, stride: Any, padding: Any,
                 dilation: Any, ceil_mode: bool, is_max: bool, with_indices: bool = False) -> None:
        tensor_arg(input, op)
        shape = input._layout.shape
        two = nsp == 2
        k = _ints(kernel_size, nsp, op, "kernel_size")
        s = k if stride is None or (isinstance(stride, (list, tuple)) and not stride) else \
            _ints(stride, nsp, op, "stride")
        p = _ints(padding, nsp, op, "padding")
        d = _ints(dilation, nsp, op, "dilation")
        if (two or not is_max or with_indices) and any(v < -2**31 or v >= 2**31 for v in (*k, *s, *p, *d)):
            # (PyTorch's 2-d kernels, which avg_pool1d and max_pool1d with indices run, take C ints)
            raise StridedRuntimeError(join_lines("value cannot be converted to type int without overflow",
                                                 f"{op}'s sizes are 32-bit ints: kernel_size={k}, stride={s}, "
                                                 f"padding={p}, dilation={d}"))
        if not two and (k[0] <= 0):
            raise StridedRuntimeError(join_lines(f"{op}() kernel_size must be greater than zero, but got {k[0]}",
                                                 "a window covers at least one element"))
        if len(shape) not in (nsp + 1, nsp + 2) or (len(shape) == nsp + 2 and shape[1] == 0):
            if is_max and not two:
                text = (f"max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for "
                        f"input, but got:{list(shape)}")
            elif not two:
                if len(shape) < 2:
                    text = (f"Expected 2 to 3 dimensions, but got {len(shape)}-dimensional tensor for argument #1 "
                            "'self' (while checking arguments for avg_pool1d)")
                else:
                    text = f"Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but " \
                           f"got:{list(shape)}"
            elif len(shape) in (3, 4):
                text = f"Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:" \
                       f"{list(shape)}"
            elif is_max:
                text = "non-empty 3D or 4D (batch mode) tensor expected for input"
            else:
                cls = StridedIndexError if len(shape) == 2 else StridedRuntimeError
                raise cls(join_lines(f"Dimension out of range (expected to be in range of [-{len(shape)}, "
                                     f"{len(shape) - 1}], but got -3)" if len(shape) == 2 else
                                     "non-empty 3D or 4D (batch mode) tensor expected for input",
                                     f"{op} takes (C, H, W) or (N, C, H, W); the input has shape {shape}"))
            raise StridedRuntimeError(join_lines(
                text, f"{op} takes (C, {'L' if not two else 'H, W'}) or (N, C, {'L' if not two else 'H, W'}) "
                      f"with C > 0; the input has shape {shape}"))
        if any(v == 0 for v in s):
            raise StridedRuntimeError(join_lines("stride should not be zero", "the windows move by at least one"))
        if any(v <= 0 for v in d):
            raise StridedRuntimeError(join_lines(
                f"dilation should be greater than zero, but got dilationH: {d[0]} dilationW: {d[-1]}",
                "dilation 1 is a dense window"))
        # PyTorch's 2-d max kernel (max_pool2d, max_pool1d with indices) checks the padding against
        # half the dilated window, then against half the kernel; max_pool1d's own kernel and the
        # average pools against half the kernel only
        two_d_max = is_max and (two or with_indices)
        for pi, ki, di in zip(p, k, d):
            if pi > ((ki - 1) * di + 1) // 2 if two_d_max else pi > ki // 2:
                if two_d_max or not is_max:
                    text = (f"pad should be at most half of effective kernel size, but got pad={pi}, "
                            f"kernel_size={ki} and dilation={di if is_max else 1}")
                else:
                    text = f"{op}() padding should be at most half of kernel size, but got padding={pi} and " \
                           f"kernel_size={ki}"
                raise StridedRuntimeError(join_lines(text, "padding is at most half the window"))
        if two_d_max and any(pi > ki // 2 for pi, ki in zip(p, k)):
            (kh, kw), (ph, pw) = ((1, *k), (0, *p)) if not two else (k, p)
            raise StridedRuntimeError(join_lines(
                f"pad should be smaller than or equal to half of kernel size, but got padW = {pw}, padH = {ph}, "
                f"kW = {kw}, kH = {kh}", "padding is at most half the kernel"))
        self.batched = len(shape) == nsp + 2
        full = shape if self.batched else (1, *shape)
        self.n, self.c, self.spatial = full[0], full[1], tuple(full[2:])
        self.kernel, self.stride, self.padding, self.dilation = k, s, p, d
        self.out = tuple(out_size(n, ki, si, pi, di, ceil_mode)
                         for n, ki, si, pi, di in zip(self.spatial, k, s, p, d))
        if any(o <= 0 for o in self.out):
            # (max_pool1d with return_indices runs PyTorch's 2-d kernel: its 2-d text)
            if is_max and not two and not with_indices:
                text = f"max_pool1d() Invalid computed output size: {self.out[0]}"
            else:
                sizes = "x".join(str(v) for v in (self.c, *([1] * (2 - nsp)), *self.spatial))
                outs = "x".join(str(v) for v in (self.c, *([1] * (2 - nsp)), *self.out))
                text = f"Given input size: ({sizes}). Calculated output size: ({outs}). Output size is too small"
            raise StridedRuntimeError(join_lines(text, f"the windows of {k} do not fit the input {self.spatial} "
                                                       f"padded by {p}"))
        # ceil_mode's last window may reach past the right padding: pad that far too (never read as data)
        self.extra = tuple(max(0, (o - 1) * si + (ki - 1) * di + 1 - (n + 2 * pi))
                           for o, si, ki, di, n, pi in zip(self.out, s, k, d, self.spatial, p))
        self.pads = tuple((pi, pi + e) for pi, e in zip(p, self.extra))

    def geometry(self) -> ConvGeometry:
        """The depthwise convolution this pooling's windows are (a ones kernel per channel)."""
        return ConvGeometry(True, self.n, self.c, self.spatial, self.c, self.c, self.kernel, self.stride,
                            self.dilation, self.pads, self.out)

    def positions(self) -> list[np.ndarray]:
        """Per spatial dim, the input index each (output, offset) pair reads: (out, kernel) ints
        (negative or past the end: padding)."""
        return [np.arange(o)[:, None] * s - p + np.arange(k)[None, :] * d
                for o, s, p, k, d in zip(self.out, self.stride, self.padding, self.kernel, self.dilation)]

    def dead(self) -> np.ndarray:
        """(out) bools: the windows with no tap inside the input (``ceil_mode`` with dilation can
        make a last window of padding only), and PyTorch's index for each: per dim its first tap
        at or after 0, though past the end, flattened. Their output (-inf) reads no element."""
        alive = None
        first = np.zeros((), dtype=np.int64)
        for pos, n in zip(self.positions(), self.spatial):
            inside = ((pos >= 0) & (pos < n)).any(1)
            alive = inside if alive is None else np.multiply.outer(alive, inside)
            first = np.add.outer(first * n, pos[np.arange(len(pos)), (pos >= 0).argmax(1)])
        assert alive is not None
        return ~alive, first


def _result(x: Tensor, shape: tuple[int, ...], dtype: Any, batched: bool) -> tuple[Tensor, np.ndarray]:
    """A fresh result of ``shape``: channels-last (the channels the unit-stride dim) where PyTorch's
    pooling makes it so (:func:`.conv.nchw_channels_last`), else contiguous."""
    lay = x._layout
    if batched and nchw_channels_last(lay.shape, lay.strides):
        out = result(shape, dtype, _channels_last_strides(shape))
        return out, out._np()
    return result_array(shape, dtype)


def _padded(x: Tensor, pool: _Pool, fill: float) -> Tensor:
    if not any(a or b for a, b in pool.pads):
        return x
    amounts = tuple(v for pair in reversed(pool.pads) for v in pair)
    return pad(x, amounts, value=fill)


# The integer dtypes each of PyTorch's CPU pooling kernels is compiled for (its dispatch macros)
_KERNEL_INTS = {"max_pool2d": ("uint8", "int8", "int16", "int32", "int64"), "avg_pool2d": ("int64",),
                "max_pool1d_impl": (), "adaptive_avg_pool2d": ()}


def _refuse_dtype(op: str, kernel: str, d: Any) -> None:
    """PyTorch's error where its CPU kernel ``kernel`` has no loop for the dtype ``d`` (bool,
    complex, and the integers it is not compiled for)."""
    if d is bool_ or d.is_complex or (not d.is_floating_point and d.name not in _KERNEL_INTS[kernel]):
        raise StridedNotImplementedError(join_lines(f"\"{kernel}\" not implemented for '{TORCH_NAME[d.name]}'",
                                                    f"PyTorch's {op} has no kernel for {d.name}",
                                                    "fix: input.to(strided.float32)"))


def _start(op: str, kernel: str, input: Tensor, pool: _Pool) -> tuple:
    """A pooling's start: PyTorch's error for a dtype its CPU kernel ``kernel`` lacks, the
    batched input, the result's shape and the fresh result (with the array over it)."""
    d = input._dtype
    _refuse_dtype(op, kernel, d)
    x = input if pool.batched else input.unsqueeze(0)
    shape = (pool.n, pool.c, *pool.out)
    if kernel == "max_pool1d_impl":  # (PyTorch's own 1-d max kernel writes a contiguous result, whatever the layout)
        return (x, shape, *result_array(shape, d))
    return (x, shape, *_result(x, shape, d, pool.batched))


def _max_pool(op: str, nsp: int, input: Tensor, kernel_size: Any, stride: Any, padding: Any, dilation: Any,
              ceil_mode: bool, return_indices: bool) -> Any:
    pool = _Pool(op, nsp, input, kernel_size, stride, padding, dilation, ceil_mode, True, return_indices)
    d = input._dtype
    # (max_pool1d without indices runs a kernel of its own; with them, or for an input that requires
    # grad in grad mode (PyTorch's max_pool1d then needs the indices), the 2-d one)
    impl = nsp == 1 and not return_indices and not (grad_enabled_at_call() and requires_grad(input))
    x, shape, out, arr = _start(op, "max_pool1d_impl" if impl else "max_pool2d", input, pool)
    inside = not any(a or b for a, b in pool.pads)  # (no padding: every tap of every window reads the input)
    if not return_indices and _native(x, out, pool, 0, 0):
        if not pool.batched:
            out = out.squeeze(0)
        return report(op, (input,), out)
    if inside and not return_indices:
        if arr.size:
            _max_inside(windows(x, pool.geometry())._np(), arr, pool.kernel, d.is_floating_point)
        if not pool.batched:
            out = out.squeeze(0)
        return report(op, (input,), out)
    idx_t, idx = _result(x, shape, int64, pool.batched)
    if arr.size:
        low = -np.inf if d.is_floating_point else np.iinfo(d.numpy).min
        xw = windows(_padded(x, pool, low), pool.geometry())._np()
        best = np.full(shape, low, dtype=d.numpy)
        where = np.zeros(shape, dtype=np.int64)
        taken = np.zeros(shape, dtype=bool)
        pos = pool.positions()
        for offset in np.ndindex(*pool.kernel):
            at = [p[:, i] for p, i in zip(pos, offset)]  # per dim: the input index of each output
            grids = np.meshgrid(*at, indexing="ij")
            valid = np.ones(pool.out, dtype=bool)
            flat = np.zeros(pool.out, dtype=np.int64)
            for g, n in zip(grids, pool.spatial):
                valid &= (g >= 0) & (g < n)
                flat = flat * n + g
            v = xw[(Ellipsis, *offset)]
            with np.errstate(invalid="ignore"):
                better = (v > best) | (np.isnan(v) if d.is_floating_point else False) | (~taken & valid)
            better &= valid
            np.copyto(best, v, where=better)
            np.copyto(where, np.broadcast_to(flat, shape), where=better)
            taken |= better
        dead, first = pool.dead()
        arr[...] = best
        idx[...] = np.where(dead, first, where)  # (PyTorch's index for a window of padding only)
    if not pool.batched:
        out, idx_t = out.squeeze(0), idx_t.squeeze(0)
    report(op, (input,), out)
    return (out, idx_t) if return_indices else out


def _max_inside(xw: np.ndarray, arr: np.ndarray, kernel: tuple[int, ...], floating: bool) -> None:
    """The values of a max pool with no padding into ``arr``: the general loop of :func:`_max_pool`
    with every tap valid and no indices kept. Its choice exactly: the first offset's value, then a
    later one where it is greater or NaN (the first maximum kept; of several NaNs the last, bits
    included), read from the window view ``xw`` (N, C, *out, *kernel) in place."""
    offsets = np.ndindex(*kernel)
    np.copyto(arr, xw[(Ellipsis, *next(offsets))])
    with np.errstate(invalid="ignore"):
        for offset in offsets:
            v = xw[(Ellipsis, *offset)]
            better = np.greater(v, arr)
            if floating:
                np.logical_or(better, np.isnan(v), out=better)
            np.copyto(arr, v, where=better)


def _native(x: Tensor, out: Tensor, pool: _Pool, mode: int, divisor: int) -> bool:
    """Whether the compiled ``pool_windows`` (``kernels/_pool_windows.h``: PyTorch's CPU loops)
    wrote ``pool``'s result into the fresh ``out`` (N, C, *out) from the batched float32 / float64
    ``x`` read from its strides: max (``mode`` 0), average counting the padding (1) or not (2),
    ``divisor`` non-zero: the override. False (nothing written) where not built, switched off, or
    not taken (another dtype): the NumPy path computes the same bits."""
    run = pool_windows()
    if run is None or (x._dtype is not float32 and x._dtype is not float64):
        return False
    lay, olay = x._layout, out._layout
    target, ostrides = out._storage.array, olay.strides
    staged = _channels_closest(lay.shape, lay.strides) and ostrides[1] != 1 and out.numel() >= _STAGED_MIN
    if staged:  # (written channels-last into a temporary, then copied into the result's layout)
        target = np.empty(out.numel(), x._dtype.numpy)
        ostrides = _channels_last_strides(olay.shape)
    try:
        if len(pool.kernel) == 1:  # (a 1-d pool: one row of height 1)
            n, c, w = lay.shape
            sn, sc, sw = lay.strides
            on, oc, ows = ostrides
            geometry = _GEOMETRY(n, c, 1, w, sn, sc, 0, sw, 1, pool.out[0], on, oc, 0, ows, 1, pool.kernel[0], 1,
                                 pool.stride[0], 0, pool.padding[0], 1, pool.dilation[0])
        else:
            (kh, kw), (dh, dw), (ph, pw), (lh, lw), (oh, ow) = (pool.kernel, pool.stride, pool.padding, pool.dilation,
                                                                pool.out)
            geometry = _GEOMETRY(*lay.shape, *lay.strides, oh, ow, *ostrides, kh, kw, dh, dw, ph, pw, lh, lw)
    except struct.error:  # (a size past Py_ssize_t: the NumPy path's checks raise PyTorch's error)
        return False
    if not run(x._storage.array, target, lay.offset, geometry, mode, divisor):
        return False
    if staged:
        it = target.itemsize
        copy_into(out._np(), np.lib.stride_tricks.as_strided(target, olay.shape, tuple(s * it for s in ostrides)))
    return True


# The fewest result elements staged channels-last by :func:`_native` (below, the strided writes stay in cache)
_STAGED_MIN = 1 << 14


def _channels_closest(shape: tuple[int, ...], strides: tuple[int, ...]) -> bool:
    """Whether the batched input (N, C, *spatial) has the channels as its closest dim, where
    ``pool_windows`` runs its channels-last loop (per output position, across the channels):
    that loop then writes a result whose channels are not its unit-stride dim (max_pool1d's
    contiguous result of a transposed input) one element per cache line, PyTorch's loop 1.5x
    slower than the same steps into a channels-last temporary and a blocked copy."""
    sc = abs(strides[1])
    return shape[1] > 1 and all(sc < abs(s) for s, size in zip(strides[2:], shape[2:]) if size > 1)


# pool_windows' geometry: 22 native Py_ssize_t, packed once (a call then converts three ints, not 27)
_GEOMETRY = struct.Struct("22n").pack


def _fresh_plan(key: tuple) -> tuple | None:
    """The common pooling call's plan for ``key`` = (spatial dims, input shape, input strides,
    kernel_size, stride) (ints or tuples of ints, stride None: the kernel's): for an input
    (N, C, *spatial) or (C, *spatial) with C > 0 whose result is row-major (not
    :func:`.conv.nchw_channels_last`) and whose channels are not the unit-stride dim, positive
    sizes whose windows fit the input: (the compiled ``pool_windows``' packed geometry, the result's element count, its
    Layout); None: the general path (which raises)."""
    nsp, shape, strides, kernel_size, stride = key
    nd = len(shape)
    if nd == nsp + 1:
        shape, strides = (1, *shape), (0, *strides)
    elif nd != nsp + 2 or (shape[1] > 1 and strides[1] == 1) or nchw_channels_last(shape, strides):
        return None
    k = (kernel_size,) * nsp if kernel_size.__class__ is int else kernel_size
    s = k if stride is None else (stride,) * nsp if stride.__class__ is int else stride
    if len(k) != nsp or len(s) != nsp or not shape[1]:
        return None
    out = []
    for n, ki, si in zip(shape[2:], k, s):
        if ki <= 0 or si <= 0 or n < ki or si >> 31:  # (a stride past int32: the general path's checks and errors)
            return None
        out.append((n - ki) // si + 1)
    rshape = (shape[0], shape[1], *out) if nd == nsp + 2 else (shape[1], *out)
    _, numel, layout = _cinfo[rshape]
    c, plane = shape[1], math.prod(out)
    if nsp == 1:  # (one row of height 1)
        geometry = (shape[0], c, 1, shape[2], strides[0], strides[1], 0, strides[2], 1, out[0], c * plane, plane, 0,
                    1, 1, k[0], 1, s[0], 0, 0, 1, 1)
    else:
        geometry = (*shape, *strides, out[0], out[1], c * plane, plane, out[1], 1, k[0], k[1], s[0], s[1], 0, 0, 1, 1)
    return _GEOMETRY(*geometry), numel, layout


_FRESH_PLANS = Memo(_fresh_plan)
_np_empty = np.empty  # (the fresh paths' allocation: one global read, not np's and its attribute's)


def _ints_only(value: Any) -> bool:
    """Whether ``value`` is an int or a tuple of ints (exactly: no bool, float or NumPy int, whose
    equal hashes would meet another call's plan)."""
    return value.__class__ is int or (value.__class__ is tuple and all(v.__class__ is int for v in value))


def _fresh_run(input: Any, nsp: int, kernel_size: Any, stride: Any, mode: int, divisor: int) -> Tensor | None:
    """The fresh paths' call: ``pool_windows`` (mode 0: max, 1: average) of a plain float32 /
    float64 Tensor into a new row-major result, by the plan :func:`_fresh_plan` memoizes; None
    (the general path) for any other input or sizes, or where the kernel is off or declines."""
    if input.__class__ is not Tensor or (kernel_size.__class__ is not int and not _ints_only(kernel_size)) or (
            stride is not None and stride.__class__ is not int and not _ints_only(stride)):
        return None
    d = input._dtype
    if d is not float32 and d is not float64:
        return None
    lay = input._layout
    plan = _FRESH_PLANS[(nsp, lay.shape, lay.strides, kernel_size, stride)]
    run = pool_windows()
    if plan is None or run is None:
        return None
    geometry, numel, layout = plan
    arr = _np_empty(numel, d.numpy)
    if not run(input._storage.array, arr, lay.offset, geometry, mode, divisor):
        return None
    return adopted(arr, layout, d)


def _max_pool1d_fresh(input: Any, kernel_size: Any = None, stride: Any = None, padding: Any = 0, dilation: Any = 1,
                      ceil_mode: Any = False, return_indices: Any = False) -> Tensor | None:
    """max_pool1d's fresh fast path (its entry's ``__fresh__``, tried outside autograd with nobody
    listening): no padding, dilation 1, no ``ceil_mode``, no indices, the geometry of
    :func:`_fresh_run`; PyTorch's loop in C, the general path's bits. None: the general path."""
    if padding.__class__ is not int or padding or dilation.__class__ is not int or dilation != 1 or ceil_mode \
            or return_indices:
        return None
    return _fresh_run(input, 1, kernel_size, stride, 0, 0)


def _max_pool2d_fresh(input: Any, kernel_size: Any = None, stride: Any = None, padding: Any = 0, dilation: Any = 1,
                      ceil_mode: Any = False, return_indices: Any = False) -> Tensor | None:
    """max_pool2d's fresh fast path: see :func:`_max_pool1d_fresh`."""
    if padding.__class__ is not int or padding or dilation.__class__ is not int or dilation != 1 or ceil_mode \
            or return_indices:
        return None
    return _fresh_run(input, 2, kernel_size, stride, 0, 0)


def _avg_pool1d_fresh(input: Any, kernel_size: Any = None, stride: Any = None, padding: Any = 0,
                      ceil_mode: Any = False, count_include_pad: Any = True) -> Tensor | None:
    """avg_pool1d's fresh fast path (see :func:`_max_pool1d_fresh`): no padding (so
    ``count_include_pad`` changes nothing), no ``ceil_mode``; each window's size the divisor."""
    if padding.__class__ is not int or padding or ceil_mode:
        return None
    return _fresh_run(input, 1, kernel_size, stride, 1, 0)


def _avg_pool2d_fresh(input: Any, kernel_size: Any = None, stride: Any = None, padding: Any = 0,
                      ceil_mode: Any = False, count_include_pad: Any = True,
                      divisor_override: Any = None) -> Tensor | None:
    """avg_pool2d's fresh fast path: see :func:`_avg_pool1d_fresh`; a positive int
    ``divisor_override`` divides instead."""
    if padding.__class__ is not int or padding or ceil_mode or (divisor_override is not None and (
            divisor_override.__class__ is not int or divisor_override <= 0)):
        return None
    return _fresh_run(input, 2, kernel_size, stride, 1, divisor_override or 0)


def _max_rule(op: str, nsp: int, out: Any, input: Tensor, *args: Any) -> Any:
    values, indices = out if isinstance(out, tuple) else (out, None)
    if indices is None:  # (the indices are recomputed: the forward handed back the values only)
        indices = _max_pool(op, nsp, input.detach(), *args[:5], True)[1]
    shape = input._layout.shape
    dead = _Pool(op, nsp, input, *args[:4], args[4] if len(args) > 4 else False, True).dead()[0]
    if dead.any():
        # a window of padding only reads no element: its gradient goes nowhere (PyTorch's index
        # for it may lie past the plane, where its kernel writes out of bounds)
        from ...creation import tensor as make_tensor

        keep = make_tensor(~dead)
        indices = indices.masked_fill(make_tensor(dead), 0)
    else:
        keep = None

    def grad(g: Tensor) -> tuple:  # (the values' gradient: the indices carry none, as sort's)
        plane = shape[-nsp:]
        size = int(np.prod(plane))
        lead = shape[:-nsp]
        if keep is not None:
            g = g * keep.to(g._dtype)
        src = g.reshape(*lead, int(np.prod(g._layout.shape[len(lead):])))
        zeros = grad_zeros((*lead, size), g._dtype)
        return (zeros.scatter_add(-1, indices.reshape(src._layout.shape), src).reshape(shape),)

    name = "MaxPool2DWithIndicesBackward0" if nsp == 2 else "SqueezeBackward1"
    # (PyTorch saves self too: written in place before backward, it raises)
    return name, (input,), linked("MaxPool2DWithIndicesBackwardBackward0", grad, input), (input, indices)


def _avg_pool(op: str, nsp: int, input: Tensor, kernel_size: Any, stride: Any, padding: Any, ceil_mode: bool,
              count_include_pad: bool, divisor_override: Any) -> Tensor:
    pool = _Pool(op, nsp, input, kernel_size, stride, padding, 1, ceil_mode, False)
    d = input._dtype
    if divisor_override is not None and int(divisor_override) == 0:
        raise StridedRuntimeError(join_lines("divisor must be not zero", "divisor_override divides each sum"))
    x, shape, out, arr = _start(op, "avg_pool2d", input, pool)
    override = 0 if divisor_override is None else int(divisor_override)
    if arr.size and not _native(x, out, pool, 1 if count_include_pad else 2, override):
        acc = np.float32 if d.itemsize < 4 and d.is_floating_point else (d.numpy if d.is_floating_point else np.int64)
        xw = windows(_padded(x, pool, 0), pool.geometry())._np()
        # PyTorch's order (cpu_avg_pool): from 0, the window's elements added one by one, row-major
        # (a padding tap adds +0.0 to a sum that is never -0.0: the same bits as skipping it)
        sums = np.zeros(shape, dtype=acc)
        with np.errstate(all="ignore"):
            for offset in np.ndindex(*pool.kernel):
                np.add(sums, xw[(Ellipsis, *offset)], out=sums, casting="unsafe")
        div = _divisors(pool, count_include_pad, divisor_override)
        with np.errstate(all="ignore"):
            if d.is_floating_point:
                np.copyto(arr, sums / div.astype(acc), casting="unsafe")
            else:  # (PyTorch's integer average truncates toward zero... as its kernel's division)
                np.copyto(arr, np.trunc(sums / div), casting="unsafe")
    return report(op, (input,), out.squeeze(0) if not pool.batched else out)


def _divisors(pool: _Pool, count_include_pad: bool, divisor_override: Any) -> np.ndarray:
    """PyTorch's divisor of each output: ``divisor_override``; else the window's size clipped to
    the padded input (``count_include_pad``) or to the input itself. One int64 for all when they
    are all the same (an override, or windows that all lie inside the input: no padding, no
    ``ceil_mode`` window past the end), broadcast against the sums as the full grid would be."""
    if divisor_override is not None:
        return np.int64(int(divisor_override))
    if not any(a or b for a, b in pool.pads):
        return np.int64(math.prod(pool.kernel))
    per_dim = []
    for o, s, p, k, n in zip(pool.out, pool.stride, pool.padding, pool.kernel, pool.spatial):
        start = np.arange(o) * s - p
        end = np.minimum(start + k, n + p)
        if not count_include_pad:
            start, end = np.maximum(start, 0), np.minimum(end, n)
        per_dim.append(end - start)
    div = per_dim[0]
    for more in per_dim[1:]:
        div = div[..., None] * more
    return div


def _avg_rule(op: str, nsp: int, out: Tensor, input: Tensor, kernel_size: Any, stride: Any = None,
              padding: Any = 0, ceil_mode: bool = False, count_include_pad: bool = True,
              divisor_override: Any = None) -> Any:
    pool = _Pool(op, nsp, input, kernel_size, stride, padding, 1, ceil_mode, False)
    div_np = _divisors(pool, count_include_pad, divisor_override)

    def grad(g: Tensor) -> tuple:
        div, arr = result_array(div_np.shape, g._dtype)
        arr[...] = div_np
        gb = g if pool.batched else g.unsqueeze(0)
        gs = gb / div
        ones = grad_zeros((pool.c, 1, *pool.kernel), g._dtype) + 1
        geo = pool.geometry()
        if not GRAD_MODE.get():
            gx = _grads_numpy(gs, _Like(gb, (pool.n, pool.c, *pool.spatial)), ones, geo, (True, False))[0]
        else:
            gx = _grads_recorded(gs, None, ones, geo, (True, False))[0]
        gx = gx if pool.batched else gx.squeeze(0)
        return (gx,)

    return ("AvgPool2DBackward0" if nsp == 2 else "SqueezeBackward1"), (input,), linked(
        "AvgPool2DBackwardBackward0", grad, input), (input,)  # (PyTorch saves self: its version is checked)


class _Like:
    """A stand-in for the input where a gradient rule needs only its shape and dtype."""

    def __init__(self, like: Tensor, shape: tuple[int, ...]) -> None:
        from ...layout import Layout, contiguous_strides

        self._layout = Layout._trusted(shape, contiguous_strides(shape), 0)
        self._dtype = like._dtype


def max_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
               ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """The maximum of each window of ``kernel_size`` elements every ``stride`` (default
    ``kernel_size``) along the last dim of (N, C, L) or (C, L); with ``return_indices`` also
    each maximum's index in L.

    >>> F.max_pool1d(strided.tensor([[1.0, 3.0, 2.0, 0.0]]), 2).tolist()
    [[3.0, 2.0]]
    """
    return _max_pool("max_pool1d", 1, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool2d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
               ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """The maximum of each (kH, kW) window of (N, C, H, W) or (C, H, W) (``stride`` defaults to
    ``kernel_size``; padding reads as -inf); with ``return_indices`` also each maximum's index
    ``h * W + w`` in its plane (int64).

    >>> v, i = F.max_pool2d(strided.tensor([[[1.0, 4.0], [3.0, 2.0]]]), 2, return_indices=True)
    >>> v.tolist(), i.tolist()
    ([[[4.0]]], [[[1]]])
    """
    return _max_pool("max_pool2d", 2, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def avg_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
               count_include_pad: bool = True) -> Tensor:
    """The mean of each window of ``kernel_size`` elements along the last dim of (N, C, L) or (C, L).

    >>> F.avg_pool1d(strided.tensor([[1.0, 3.0, 2.0, 0.0]]), 2).tolist()
    [[2.0, 1.0]]
    """
    return _avg_pool("avg_pool1d", 1, input, kernel_size, stride, padding, ceil_mode, count_include_pad, None)


def avg_pool2d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    """The mean of each (kH, kW) window of (N, C, H, W) or (C, H, W): the window's sum divided by
    ``divisor_override``, else its size (padding counted with ``count_include_pad``).

    >>> F.avg_pool2d(strided.arange(16.0).view(1, 1, 4, 4), 2).tolist()
    [[[[2.5, 4.5], [10.5, 12.5]]]]
    """
    return _avg_pool("avg_pool2d", 2, input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override)


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:
    """The mean of each of ``output_size`` (OH, OW) windows tiling the last two dims of
    (N, C, H, W) or (C, H, W): window ``i`` of ``n`` elements into ``o`` spans
    ``floor(i * n / o)`` to ``ceil((i + 1) * n / o)``. ``None`` keeps a dim's size.

    Where the windows tile evenly it is ``avg_pool2d`` (one window view); otherwise a mean per
    output row, then per output column (a rectangle's mean is the mean of its rows' means),
    ``OH + OW`` recording ops.

    # Note: PyTorch records AdaptiveAvgPool2DBackward0; strided records the ops it is made of
    # (AvgPool2DBackward0, or the means and a stack): the gradients are the same.

    >>> F.adaptive_avg_pool2d(strided.arange(16.0).view(1, 4, 4), 1).tolist()
    [[[7.5]]]
    """
    from ...ops.shape.joining import stack

    tensor_arg(input, "adaptive_avg_pool2d")
    shape = input._layout.shape
    if len(shape) not in (3, 4):
        raise StridedRuntimeError(join_lines(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {list(shape)}",
                                             "adaptive_avg_pool2d takes (C, H, W) or (N, C, H, W)"))
    sizes = list(output_size) if isinstance(output_size, (list, tuple)) else [output_size, output_size]
    if len(sizes) != 2:
        raise StridedRuntimeError(join_lines("adaptive_avg_pool2d: output_size must be 2",
                                             "give (OH, OW), or one int for both"))
    sizes = [shape[-2 + i] if v is None else int(v) for i, v in enumerate(sizes)]
    if any(v < 0 for v in sizes):
        raise StridedRuntimeError(join_lines(
            f"adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but received "
            f"{{{sizes[0]}, {sizes[1]}}}", "each output size counts windows"))
    _refuse_dtype("adaptive_avg_pool2d", "adaptive_avg_pool2d", input._dtype)
    (h, w), (oh, ow) = shape[-2:], sizes
    if oh and ow and h % oh == 0 and w % ow == 0 and input.numel():
        return avg_pool2d(input, (h // oh, w // ow))
    if not input.numel() or not oh or not ow:
        from ...creation import zeros

        return zeros((*shape[:-2], oh, ow), dtype=input._dtype)
    rows = stack([input[..., (i * h) // oh:-((-(i + 1) * h) // oh), :].mean(-2) for i in range(oh)], -2)
    out = stack([rows[..., (j * w) // ow:-((-(j + 1) * w) // ow)].mean(-1) for j in range(ow)], -1)
    if suggest_format(shape, input._layout.strides) == "channels_last" and \
            out._layout.strides != _channels_last_strides(out._layout.shape):
        # (PyTorch's result keeps a channels_last input's format, its exact strides, size-1 dims'
        # included: one copy of the small result)
        from ...memory_format import channels_last

        out = out.clone(memory_format=channels_last)
    return out


@backward("F.max_pool1d", operands="self")
def _max_pool1d_backward(out: Any, input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
                         dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """See :func:`_max_pool2d_backward`."""
    return _max_rule("max_pool1d", 1, out, input, kernel_size, stride, padding, dilation, ceil_mode)


@backward("F.max_pool2d", operands="self")
def _max_pool2d_backward(out: Any, input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
                         dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """Each output's gradient added at its window's argmax (``scatter_add`` over the flattened
    planes: linear in ``g``, so its own gradient is a gather, as PyTorch's double backward)."""
    return _max_rule("max_pool2d", 2, out, input, kernel_size, stride, padding, dilation, ceil_mode)


@backward("F.avg_pool1d", operands="self")
def _avg_pool1d_backward(out: Tensor, input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
                         ceil_mode: bool = False, count_include_pad: bool = True) -> Any:
    """See :func:`_avg_pool2d_backward`."""
    return _avg_rule("avg_pool1d", 1, out, input, kernel_size, stride, padding, ceil_mode, count_include_pad)


@backward("F.avg_pool2d", operands="self")
def _avg_pool2d_backward(out: Tensor, input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
                         ceil_mode: bool = False, count_include_pad: bool = True,
                         divisor_override: Any = None) -> Any:
    """``g / divisor`` spread over each window: the input gradient of a depthwise convolution
    with a ones kernel (the padding cropped)."""
    return _avg_rule("avg_pool2d", 2, out, input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override)


max_pool1d.__fresh__ = _max_pool1d_fresh  # type: ignore[attr-defined]
max_pool2d.__fresh__ = _max_pool2d_fresh  # type: ignore[attr-defined]
avg_pool1d.__fresh__ = _avg_pool1d_fresh  # type: ignore[attr-defined]
avg_pool2d.__fresh__ = _avg_pool2d_fresh  # type: ignore[attr-defined]

seal(globals(), functional=True)  # (last: the poolings become their recording entries)
declare(Kind.COMPUTE, "F.max_pool1d F.max_pool2d F.avg_pool1d F.avg_pool2d")
