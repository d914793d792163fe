"""Convolutions as strided windows: ``F.conv1d`` and ``F.conv2d`` with PyTorch 2.13's signatures,
shapes, strides and errors (class and first line).

The memory story, step by step (``strided.watch()`` shows each):

1. padding, if any, is a copy (``F.pad``: new memory, recorded with its reason); a channels_last
   input is padded channels_last, so the channels stay the unit-stride dim;
2. the input's windows are ONE view (``as_strided``): shape ``(N, C, *out, *kernel)``, no
   element copied: the im2col matrix is never built;
3. the contraction reads that view in place: for each kernel offset, one batched matmul of the
   weight's (out, in) slice with the windows at that offset (a strided view BLAS reads as it
   is), accumulated into the result. ``bench/bench_conv.py`` compares this with one einsum over
   the whole window view.

While nobody listens, a depthwise conv2d (one input and one output channel per group: the
small one-channel image included) that step 3 would read row by row is one compiled call with
the same multiplies and adds in the same order (:func:`_conv2d_depthwise_fresh`): no pad copy,
no views, the same bits. Any listener (``watch``, ``record_copies``) sees the steps above.

The backward rule (``ConvolutionBackward0``) computes the input's gradient by adding each
offset's contribution into a window view of a zero padded buffer (within one offset the windows'
positions are distinct, so the adds never collide), the weight's as one product per offset and
the bias's as a sum. Under ``create_graph=True`` the same formulas run on strided's recording
ops (pad, slices, einsum, stack), so a second backward differentiates them again.

>>> x = strided.ones(1, 1, 4, 4); w = strided.ones(1, 1, 3, 3)
>>> F.conv2d(x, w).tolist()
[[[[9.0, 9.0], [9.0, 9.0]]]]
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...args import int_arg
from ...dispatch import report, result
from ...dtypes import TORCH_NAME, bool_, float32, float64
from ...errors import StridedNotImplementedError, StridedRuntimeError, join_lines
from ...grad_mode import GRAD_MODE, SUBCLASSES, requires_grad
from ...gradients import seal
from ...kernels.blocked import row_major
from ...kernels.listeners import OPEN, emit_step
from ...kernels.native import _compiled
from ...layout import channels_last_strides, contiguous_strides
from ...layout.formats import suggest_format
from ...opdef import Kind, declare
from ...ops._support.memo import Memo
from ...ops.registry import backward
from ...ops.shape.padding import pad
from ...tensor import Tensor, tensor_arg
from ._common import array_like
from ._windows import out_size, window_view

__all__ = ["conv1d", "conv2d"]


@dataclass(frozen=True)
class ConvGeometry:
    """One convolution's sizes, read from its arguments: ``batched`` (the input had a batch dim),
    ``n, c, spatial`` the (batched) input's sizes, ``o, groups, kernel``, and per spatial dim
    ``stride, dilation, pads`` ((left, right) pairs) and ``out`` (the output's sizes)."""

    batched: bool
    n: int
    c: int
    spatial: tuple[int, ...]
    o: int
    groups: int
    kernel: tuple[int, ...]
    stride: tuple[int, ...]
    dilation: tuple[int, ...]
    pads: tuple[tuple[int, int], ...]
    out: tuple[int, ...]

    @property
    def padded(self) -> tuple[int, ...]:
        return tuple(s + a + b for s, (a, b) in zip(self.spatial, self.pads))

    @property
    def pad_amounts(self) -> tuple[int, ...]:
        """The pads as ``F.pad`` takes them: last dim first."""
        return tuple(v for pair in reversed(self.pads) for v in pair)


def _dims_text(sizes: tuple[int, ...]) -> str:
    return " x ".join(str(s) for s in sizes)


def _int_list(value: Any, nsp: int, op: str, name: str, pos: int) -> tuple[int, ...]:
    """An int (``nsp`` copies) or a list of ints (bools read as 0 and 1, as PyTorch's parser)."""
    if not isinstance(value, (list, tuple)):
        return (int_arg(value, op, name, pos),) * nsp
    return tuple(int(v) if isinstance(v, bool) else int_arg(v, op, name, pos) for v in value)


def _geometry(op: str, nsp: int, input: Tensor, weight: Tensor, bias: Tensor | None, stride: Any, padding: Any,
              dilation: Any, groups: Any) -> ConvGeometry:
    """Check a convolution's arguments in PyTorch's order, with its errors; the sizes it runs with."""
    tensor_arg(input, op)
    tensor_arg(weight, op, "weight", 2)
    if bias is not None:
        tensor_arg(bias, op, "bias", 3)
    shape = input._layout.shape
    if len(shape) not in (nsp + 1, nsp + 2):
        raise StridedRuntimeError(join_lines(
            f"Expected {nsp + 1}D (unbatched) or {nsp + 2}D (batched) input to {op}, but got input of size: "
            f"{list(shape)}",
            f"{op} takes (C, {'L' if nsp == 1 else 'H, W'}) or (N, C, {'L' if nsp == 1 else 'H, W'})",
            "fix: x.unsqueeze(0) adds a batch dim; x.reshape(...) to regroup the dims"))
    if isinstance(padding, str) and padding not in ("same", "valid"):
        raise StridedRuntimeError(join_lines(f"Invalid padding string: '{padding}'",
                                             "padding is a number, a tuple, 'same' or 'valid'"))
    wshape = weight._layout.shape
    k = len(wshape) - 2
    params = {}
    for name, value, pos in (("stride", stride, 4), ("padding", padding, 5), ("dilation", dilation, 6)):
        if isinstance(value, str):
            continue
        # PyTorch's parser makes an int one value per spatial dim of the op; its convolution
        # then repeats a one-element list for each kernel dim (expand_param_if_needed)
        items = _int_list(value, nsp, op, name, pos)
        if len(items) == 1:
            items = items * k
        if len(items) != k:
            raise StridedRuntimeError(join_lines(
                f"expected {name} to be a single integer value or a list of {k} values to match the convolution "
                f"dimensions, but got {name}={list(items)}",
                f"the weight of shape {wshape} has {k} kernel dim(s); {op} takes a weight "
                f"(out_channels, in_channels / groups, {'kW' if nsp == 1 else 'kH, kW'})"))
        params[name] = items
    st, dl = params["stride"], params["dilation"]
    if any(s <= 0 for s in st):
        raise StridedRuntimeError(join_lines("non-positive stride is not supported",
                                             f"stride={list(st)}: the windows move by at least one element"))
    if not isinstance(padding, str) and any(p < 0 for p in params["padding"]):
        raise StridedRuntimeError(join_lines("negative padding is not supported",
                                             "fix: crop the input first (x[..., a:b]) instead of a negative pad"))
    if any(d <= 0 for d in dl):
        raise StridedRuntimeError(join_lines(f"dilation should be greater than zero, but got {list(dl)}",
                                             "dilation 1 is a dense kernel"))
    groups = int_arg(groups, op, "groups", 7)
    if groups <= 0:
        raise StridedRuntimeError(join_lines("non-positive groups is not supported",
                                             "groups=1 connects every input channel to every output channel"))
    o = wshape[0]
    if o % groups:
        raise StridedRuntimeError(join_lines(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but got weight of "
            f"size [{list(wshape)}] instead",
            f"each of the {groups} groups makes out_channels / groups outputs; the weight has {o} out_channels"))
    batched = len(shape) == nsp + 2
    full = shape if batched else (1, *shape)
    n, c, spatial = full[0], full[1], tuple(full[2:])
    if c != wshape[1] * groups:
        shown = list(shape) if batched else [1, *shape]
        raise StridedRuntimeError(join_lines(
            f"Given groups={groups}, weight of size {list(wshape)}, expected input{shown} to have "
            f"{wshape[1] * groups} channels, but got {c} channels instead",
            f"the channels are dim {1 if batched else 0} of the input; the weight's dim 1 times groups must equal them"))
    if bias is not None and (bias.ndim != 1 or bias._layout.shape[0] != o):
        raise StridedRuntimeError(join_lines(
            f"Given weight of size {list(wshape)}, expected bias to be 1-dimensional with {o} elements, but got "
            f"bias of size {list(bias._layout.shape)} instead", "the bias holds one value per output channel"))
    kernel = tuple(wshape[2:])
    if padding == "valid":
        pads = tuple((0, 0) for _ in kernel)
    elif padding == "same":
        if any(s != 1 for s in st):
            raise StridedRuntimeError(join_lines("padding='same' is not supported for strided convolutions",
                                                 f"stride={list(st)}; 'same' keeps the size only at stride 1",
                                                 "fix: give the padding as numbers"))
        totals = [d * (kk - 1) for d, kk in zip(dl, kernel)]
        pads = tuple((t // 2, t - t // 2) for t in totals)  # (PyTorch puts the odd element on the right)
    else:
        pads = tuple((p, p) for p in params["padding"])
    padded = tuple(s + a + b for s, (a, b) in zip(spatial, pads))
    span = tuple(d * (kk - 1) + 1 for d, kk in zip(dl, kernel))
    if any(p < s for p, s in zip(padded, span)):
        raise StridedRuntimeError(join_lines(
            f"Calculated padded input size per channel: ({_dims_text(padded)}). Kernel size: ({_dims_text(span)}). "
            "Kernel size can't be greater than actual input size",
            f"the input's spatial sizes {spatial} padded by {[list(p) for p in pads]} are smaller than the "
            f"(dilated) kernel", "fix: more padding, a smaller kernel or dilation"))
    if input._dtype is not weight._dtype or (bias is not None and bias._dtype is not weight._dtype):
        other = weight if input._dtype is not weight._dtype else bias
        raise StridedRuntimeError(join_lines(
            f"expected scalar type {TORCH_NAME[input._dtype.name]} but found {TORCH_NAME[other._dtype.name]}",
            f"the input is {input._dtype.name} and the {'weight' if other is weight else 'bias'} "
            f"{other._dtype.name}: a convolution does not promote",
            f"fix: weight.to(strided.{input._dtype.name})"))
    if input._dtype is bool_:  # (PyTorch's CPU kernel for both conv1d and conv2d names itself)
        raise StridedNotImplementedError(join_lines(
            "\"slow_conv2d_cpu\" not implemented for 'Bool'",
            f"{op} computes with numbers; the input is bool", "fix: input.to(strided.float32)"))
    if input._dtype.is_complex:
        # Note: PyTorch convolves complex inputs (three real convolutions); strided does not yet
        raise StridedNotImplementedError(join_lines(
            f"\"{op}\" not implemented for '{TORCH_NAME[input._dtype.name]}'",
            f"strided's {op} computes with real numbers; the input is {input._dtype.name}",
            f"fix: convolve the real and imaginary parts: {op}(x.real, w.real) - {op}(x.imag, w.imag), ..."))
    out = tuple(out_size(p, kk, s, 0, d) for p, kk, s, d in zip(padded, kernel, st, dl))
    return ConvGeometry(batched, n, c, spatial, o, groups, kernel, st, dl, pads, out)


def _plain_ints(value: Any, nsp: int) -> tuple[int, ...] | None:
    """``value`` (stride, padding or dilation) as :func:`_geometry` reads it, for the plain
    spellings only: an int, or a list or tuple of one or ``nsp`` ints; None for anything else."""
    if value.__class__ is int:
        return (value,) * nsp
    if value.__class__ is tuple or value.__class__ is list:
        for v in value:
            if v.__class__ is not int:
                return None
        if len(value) == nsp:
            return tuple(value)
        if len(value) == 1:
            return (value[0],) * nsp
    return None


def _plain_geometry(nsp: int, input: Any, weight: Any, bias: Any, stride: Any, padding: Any, dilation: Any,
                    groups: Any) -> ConvGeometry | None:
    """:func:`_geometry`'s result for the common call, without its general parsing: a batched
    float32/float64 input, a weight of ``nsp`` kernel dims, one dtype, plain ints (see
    :func:`_plain_ints`; no padding string) that pass every check of :func:`_geometry`. None for
    any other call (nothing checked is reported): :func:`_geometry` then reads it, with its errors."""
    if not isinstance(input, Tensor) or not isinstance(weight, Tensor) or (
            bias is not None and not isinstance(bias, Tensor)):
        return None
    d = input._dtype
    if (d is not float32 and d is not float64) or weight._dtype is not d or (bias is not None and bias._dtype is not d):
        return None
    shape, wshape = input._layout.shape, weight._layout.shape
    if len(shape) != nsp + 2 or len(wshape) != nsp + 2 or groups.__class__ is not int or groups <= 0:
        return None
    st, pd, dl = _plain_ints(stride, nsp), _plain_ints(padding, nsp), _plain_ints(dilation, nsp)
    if st is None or pd is None or dl is None or min(st) <= 0 or min(pd) < 0 or min(dl) <= 0:
        return None
    o, c = wshape[0], shape[1]
    if o % groups or c != wshape[1] * groups or (bias is not None and bias._layout.shape != (o,)):
        return None
    spatial, kernel = shape[2:], wshape[2:]
    out = []
    for size, p, kk, s, dd in zip(spatial, pd, kernel, st, dl):
        span = dd * (kk - 1) + 1
        if size + 2 * p < span:
            return None
        out.append((size + 2 * p - span) // s + 1)  # (out_size's count)
    return ConvGeometry(True, shape[0], c, spatial, o, groups, kernel, st, dl, tuple((p, p) for p in pd), tuple(out))


def _channels_last(x: Tensor) -> bool:
    """Whether a batched 2-D input is laid out channels_last (PyTorch's suggest_memory_format: the
    result keeps it)."""
    lay = x._layout
    return len(lay.shape) == 4 and lay.shape[1] > 1 and x.is_contiguous(memory_format=_CL()) and \
        not x.is_contiguous()


def nchw_channels_last(shape: tuple[int, ...], strides: tuple[int, ...]) -> bool:
    """PyTorch's ``suggest_memory_format() == ChannelsLast`` for (N, C, H, W) strides (size-1 and
    ambiguous layouts by its rules: :func:`suggest_format`), and for (N, C, L) ones read as its
    1-d kernels read them, ``unsqueeze(2)``'d to (N, C, 1, L): the new dim's stride ``L * stride[2]``."""
    if len(shape) == 3:
        shape, strides = (*shape[:2], 1, shape[2]), (*strides[:2], shape[2] * strides[2], strides[2])
    return suggest_format(shape, strides) == "channels_last"


def channels_last_any(shape: tuple[int, ...]) -> tuple[int, ...]:
    """The strides of (N, C, *spatial) with C the unit-stride dim and the spatial dims row-major after
    it (channels_last's for 4-d; a 1-d kernel's (N, C, 1, L) channels-last result squeezed for 3-d)."""
    step = shape[1]
    rest = []
    for size in reversed(shape[2:]):
        rest.append(step)
        step *= size
    return (step, 1, *reversed(rest))


def _result_channels_last(x: Tensor, weight: Tensor) -> bool:
    """Whether PyTorch's convolution of the batched ``x`` (N, C, *spatial) writes a channels-last
    result: where the input's or the weight's strides read as channels-last (its backends'
    ``mkldnn_conv_use_channels_last`` / ``thnn_conv_use_channels_last``, by
    :func:`nchw_channels_last`). A 1-d convolution runs as a 2-d one over ``input.contiguous()``
    and the weight, both ``unsqueeze(2)``'d (a contiguous input keeps its size-1 dims' strides)."""
    xl, wl = x._layout, weight._layout
    xs = xl.strides if len(xl.shape) == 4 or x.is_contiguous() else contiguous_strides(xl.shape)
    return _READS_CL[(xl.shape, xs)] or _READS_CL[(wl.shape, wl.strides)]


# (shape, strides) -> nchw_channels_last: remembered, a dict lookup on the fresh paths' every call
_READS_CL = Memo(lambda key: nchw_channels_last(*key))


def _cat_keeps_cl(geo: ConvGeometry, input: Tensor) -> bool:
    """Whether PyTorch's result of a channels_last input stays channels_last. Its kernel for the
    dtypes oneDNN does not take (float64, the integers) convolves a grouped input group by group
    and concatenates: the result takes the format ``cat`` reads off one group's result, which is
    contiguous where that is ambiguous (one output channel per group over a 1 x 1 plane)."""
    if geo.groups == 1 or input._dtype.name in ("float32", "float16", "bfloat16"):
        return True
    one = (geo.n, geo.o // geo.groups, *geo.out)
    return suggest_format(one, channels_last_strides(one)) == "channels_last"


def _CL() -> Any:
    from ...memory_format import channels_last
    return channels_last


def _padded(x: Tensor, geo: ConvGeometry, channels_last: bool) -> Tensor:
    """The (batched) input padded by ``geo.pads``: ``x`` itself when nothing is padded (a view),
    else ``F.pad``'s copy, made channels_last when the input is, so the channels keep unit stride."""
    if not any(a or b for a, b in geo.pads):
        return x
    if channels_last:
        return pad(x.permute(0, 2, 3, 1), (0, 0, *geo.pad_amounts)).permute(0, 3, 1, 2)
    return pad(x, geo.pad_amounts)


def windows(xp: Tensor, geo: ConvGeometry) -> Tensor:
    """The windows of the padded input ``xp`` (N, C, *padded) as one strided view
    (N, C, *out, *kernel): ``as_strided`` over its storage, no element copied.

    >>> x, w = strided.ones(1, 2, 5, 5), strided.ones(3, 2, 3, 3)
    >>> win = windows(x, _geometry("conv2d", 2, x, w, None, 2, 0, 1, 1))
    >>> win.shape, win.stride(), strided.shares_memory(win, x)
    ((1, 2, 2, 2, 3, 3), (50, 25, 10, 2, 5, 1), True)
    """
    lay = xp._layout
    sp = lay.strides[2:]
    shape = (geo.n, geo.c, *geo.out, *geo.kernel)
    strides = (*lay.strides[:2], *(a * s for a, s in zip(sp, geo.stride)), *(a * d for a, d in zip(sp, geo.dilation)))
    view = xp.as_strided(shape, strides, lay.offset)
    if OPEN:  # the window view is the convolution's memory story: a step of its own in watch
        emit_step("as_strided", "view", (xp,), view, view._layout)
    return view


def _acc_dtype(x: Tensor) -> np.dtype:
    """The dtype the products accumulate in: float32 for the 2-byte floats (PyTorch's CPU
    accumulation type), int64 for the integers, the dtype itself otherwise."""
    d = x._dtype
    if d.is_floating_point:
        return np.dtype(np.float32) if d.itemsize < 4 else d.numpy
    return np.dtype(np.int64)


def _grouped(a: np.ndarray, groups: int) -> np.ndarray:
    """``a`` (N, C, ...) as (N, groups, C / groups, ...): a view (splitting a dim never copies)."""
    return a.reshape(a.shape[0], groups, a.shape[1] // groups, *a.shape[2:])


def contract_per_offset(xw: np.ndarray, w: np.ndarray, groups: int, acc: np.dtype) -> np.ndarray:
    """The convolution of the window view ``xw`` (N, C, *out, *kernel) with the weight ``w``
    (O, C / groups, *kernel): for each kernel offset, one batched matmul reading the windows at
    that offset in place, accumulated: (N, G, O / G, *out), a view of the sum. Its matrices are
    (out[-1], C / G) @ (C / G, O / G) when the channels have unit stride (channels_last), else
    (O / G, C / G) @ (C / G, out[-1]): each the orientation BLAS reads without a copy."""
    nsp = w.ndim - 2
    xg = _grouped(xw, groups)  # (N, G, Cg, *out, *kernel)
    # (np.moveaxis's views as the transposes it makes, without its axis normalisation: a third
    # of a small convolution's time)
    # (*kernel, G, Og, Cg): each offset's weight slice contiguous (a small temporary BLAS can read)
    wg = np.ascontiguousarray(w.reshape(groups, w.shape[0] // groups, *w.shape[1:]).transpose(
        *range(3, 3 + nsp), 0, 1, 2), dtype=acc)
    unit_channels = xg.strides[2] == xg.itemsize and xg.shape[2] > 1
    rest = tuple(range(3, 3 + nsp))  # (the out dims of each offset's (N, G, Cg, *out) slice)
    # unit channels: Cg last ((..., out[-1], Cg) @ (Cg, Og)); else Cg before out[-1] ((Og, Cg) @ (..., Cg, out[-1]))
    order = (0, 1, *rest, 2) if unit_channels else (0, 1, *rest[:-1], 2, rest[-1])
    lead = (1, groups, *([1] * (nsp - 1)))
    total = None
    for offset in itertools.product(*[range(k) for k in w.shape[2:]]):  # (np.ndindex's order)
        xk = xg[(Ellipsis, *offset)]  # (N, G, Cg, *out): the windows' elements at this offset
        wk = wg[offset]  # (G, Og, Cg)
        if unit_channels:  # (..., out[-1], Cg) @ (Cg, Og)
            part = np.matmul(xk.transpose(order), np.swapaxes(wk, -1, -2).reshape(*lead, *wk.shape[2:0:-1]),
                             dtype=acc)
        else:  # (Og, Cg) @ (..., Cg, out[-1])
            part = np.matmul(wk.reshape(*lead, *wk.shape[1:]), xk.transpose(order), dtype=acc)
        if total is None:
            total = part
        else:
            total += part
    assert total is not None
    # (N, G, *out[:-1], out[-1], Og) or (N, G, *out[:-1], Og, out[-1]) -> (N, G, Og, *out)
    d = total.ndim
    back = (0, 1, d - 1, *range(2, d - 1)) if unit_channels else (0, 1, d - 2, *range(2, d - 2), d - 1)
    return total.transpose(back)


def contract_rows(xp: np.ndarray, w: np.ndarray, geo: ConvGeometry, acc: np.dtype) -> np.ndarray | None:
    """The 2-D convolution of the padded input ``xp`` (N, C, Hp, Wp) as one BLAS product per
    (image, kernel offset): a row-major plane (or a channels-last one) read as a "wide" view
    whose index ``j = oh * R + ow`` runs through whole padded rows (``R`` elements apart), so
    the (H, W) output positions are ONE strided dim, ``(C, (OH - 1) * R + OW)`` in place, and
    BLAS gets long matrices instead of one short row per output row. The positions ``ow >= OW``
    of each wide row are computed and dropped. Returns (N, G, Og, OH, OW), a view of the sum, or
    None where the layout has no such view (a row stride of the windows that is not the unit, a
    non-row-major plane) or the dropped part would be over 1.5 times the kept one."""
    if len(geo.kernel) != 2:
        return None
    it = xp.itemsize
    sn, sc, sh_, sw_ = xp.strides
    wp, (oh, ow), (st_h, st_w) = geo.padded[1], geo.out, geo.stride
    g = geo.groups
    cg, og = geo.c // g, geo.o // g
    cl = sc == it and sw_ == geo.c * it and sh_ == wp * geo.c * it
    if cl:  # channels-last: (wide, Cg) @ (Cg, Og), rows st_w pixels apart
        if (st_h * wp) % st_w:
            return None
        pitch = st_h * wp // st_w
        x_strides = (sn, cg * it, st_w * sw_, it)
    elif st_w == 1 and sw_ == it and sh_ == wp * it:  # row-major: (Og, Cg) @ (Cg, wide)
        pitch = st_h * wp
        x_strides = (sn, cg * sc, sc, it)
    else:
        return None
    wide = (oh - 1) * pitch + ow
    if wide > 2.5 * oh * ow:
        return None
    # the weight's (Og, Cg) slices made contiguous once (a small temporary, O * C * kH * kW
    # elements): a slice of (O, C, kH, kW) has a non-unit inner stride, which BLAS cannot read
    wg = np.ascontiguousarray(np.moveaxis(w.reshape(g, og, cg, *geo.kernel), (3, 4), (0, 1)), dtype=acc)
    dh, dw = geo.dilation
    view = _Viewer(xp)
    total = None
    for i, j in np.ndindex(*geo.kernel):
        at = i * dh * sh_ + j * dw * sw_  # (bytes to the windows' element at this offset)
        if cg == 1 and og == 1 and not cl:  # depthwise: a multiply, not (1, 1) @ (1, wide) products
            xk = view(at, (geo.n, g, 1, wide), x_strides)
            part = np.multiply(xk, wg[i, j][None], dtype=acc)
        elif cl:
            xk = view(at, (geo.n, g, wide, cg), x_strides)
            part = np.matmul(xk, np.swapaxes(wg[i, j], -1, -2)[None], dtype=acc)
        else:
            xk = view(at, (geo.n, g, cg, wide), x_strides)
            part = np.matmul(wg[i, j][None], xk, dtype=acc)
        if total is None:
            total = part
        else:
            total += part
    assert total is not None
    t = total.strides
    view = _Viewer(total)
    if cl:  # (N, G, wide, Og) -> (N, G, Og, OH, OW)
        return view(0, (geo.n, g, og, oh, ow), (t[0], t[1], t[3], pitch * t[2], t[2]))
    return view(0, (geo.n, g, og, oh, ow), (t[0], t[1], t[2], pitch * t[3], t[3]))


class _Viewer:
    """Read-only views of ``a``'s memory: NumPy's ``as_strided`` without its Python wrapper (a
    few microseconds a call, and :func:`contract_rows` makes one per kernel offset). A view
    ``at`` bytes past ``a``'s first element is NumPy's constructor over ``a``'s contiguous owner
    (bounds checked there); where ``a`` has no such owner, the array interface ``as_strided``
    itself builds, shifted by ``at``."""

    def __init__(self, a: np.ndarray) -> None:
        self.a = a
        self.interface = a.__array_interface__
        root = a.base if a.base is not None else a
        self.root = root if isinstance(root, np.ndarray) and root.flags.c_contiguous else None
        if self.root is not None:
            self.start = self.interface["data"][0] - root.__array_interface__["data"][0]

    def __call__(self, at: int, shape: tuple[int, ...], strides: tuple[int, ...]) -> np.ndarray:
        if self.root is not None and self.start + at >= 0:
            try:
                v = np.ndarray(shape, self.a.dtype, self.root, self.start + at, strides)
            except ValueError:  # (NumPy's bounds check: the interface's view below, unchecked as as_strided)
                pass
            else:
                v.flags.writeable = False
                return v
        interface = dict(self.interface, data=(self.interface["data"][0] + at, True), shape=shape, strides=strides)
        interface.pop("mask", None)
        v = np.asarray(_Interface(interface, self.a))
        if v.dtype != self.a.dtype:  # (the interface spells a dtype NumPy does not know, bfloat16, as bytes)
            v.dtype = self.a.dtype
        return v


class _Interface:
    """An object NumPy reads as an array through ``__array_interface__`` (``as_strided``'s way):
    ``base`` keeps the memory's owner alive."""

    def __init__(self, interface: dict, base: np.ndarray) -> None:
        self.__array_interface__ = interface
        self.base = base


def _conv(op: str, nsp: int, input: Tensor, weight: Tensor, bias: Tensor | None, stride: Any, padding: Any,
          dilation: Any, groups: Any) -> Tensor:
    if nsp == 2 and not OPEN and (
            fast := _conv2d_depthwise_fresh(input, weight, bias, stride, padding, dilation, groups)) is not None:
        return fast
    plain = _plain_geometry(nsp, input, weight, bias, stride, padding, dilation, groups)
    if nsp == 1 and plain is not None and not OPEN and (
            fast := _conv1d_one_channel(input, weight, bias, plain)) is not None:
        return fast
    geo = plain or _geometry(op, nsp, input, weight, bias, stride, padding, dilation, groups)
    x = input if geo.batched else input.unsqueeze(0)
    cl = _channels_last(x)  # (the input's reading: how it is padded; the result's format is PyTorch's rule)
    shape = (geo.n, geo.o, *geo.out)
    keep = _result_channels_last(x, weight) and _cat_keeps_cl(geo, input)
    out = result(shape, input._dtype, channels_last_any(shape) if keep else None)
    arr = out._np()
    if out.numel():
        xp = _padded(x, geo, cl)
        # (the window view: made first while someone listens, its step in watch's story; else
        # only where contract_rows declines, the one reader of it)
        xw = windows(xp, geo)._np() if OPEN else None
        acc = _acc_dtype(input)
        values = contract_rows(xp._np(), weight._np(), geo, acc)
        if values is None:
            if xw is None:
                xw = windows(xp, geo)._np()
            values = contract_per_offset(xw, weight._np(), geo.groups, acc)  # (N, G, Og, *out)
        if bias is not None:
            values = values + bias._np().astype(acc, copy=False).reshape(geo.groups, -1, *([1] * nsp))
        if values.dtype == arr.dtype:  # (nothing to cast: no floating-point flag to silence)
            np.copyto(_grouped(arr, geo.groups), values)
        else:
            with np.errstate(all="ignore"):
                np.copyto(_grouped(arr, geo.groups), values, casting="unsafe")
    elif bias is not None:
        arr[...] = 0
    if not geo.batched:
        out = out.squeeze(0)
    inputs = tuple(t for t in (input, weight, bias) if t is not None)
    return report(op, inputs, out)


_FAST_CONV = True  # (tests turn it off to compare with the general path)
_kernel: list = [None]  # (the compiled module, once found: _compiled's environment test is a fifth of a call)


def _depthwise_kernel() -> Any:
    """The compiled module with ``conv2d_depthwise`` (found once), or None (not built, or _FAST_CONV off)."""
    k = _kernel[0]
    if k is None:
        if not _FAST_CONV or (k := _compiled("_matkernel")) is None or not hasattr(k, "conv2d_depthwise"):
            return None
        _kernel[0] = k
    return k


class _Layout4:
    """A 4-D layout (shape, strides, offset: what ``conv2d_depthwise`` reads of a weight's) for a
    conv1d weight (O, 1, kW) read as (O, 1, 1, kW)."""

    __slots__ = ("shape", "strides", "offset")

    def __init__(self, shape: tuple[int, ...], strides: tuple[int, ...], offset: int) -> None:
        self.shape, self.strides, self.offset = shape, strides, offset


def _conv1d_one_channel(input: Tensor, weight: Tensor, bias: Tensor | None, geo: ConvGeometry) -> Tensor | None:
    """conv1d (``geo`` its plain geometry, nobody listening) where each group has one input channel
    and either the input has one channel (C == groups == 1: every output channel reads it) or one
    output channel (C == groups == O: depthwise), width stride 1, with a bias none of whose values
    is zero, at least 4096 results: the compiled ``conv2d_depthwise`` over the (N, O, 1, L) view that
    reads input channel ``o // (O / C)`` for output channel o (channel stride 0 where C == 1; the
    padding's zeros read in place). Its operations are the general path's (:func:`contract_per_offset`
    with (Og, 1) @ (1, L) products: per output element one product per kernel offset, summed in
    offset order, then ``+ bias``); the two differ only in the sign of a zero sum (the matmul adds
    its product to +0.0), which the nonzero bias removes (``+-0 + b`` is ``b``). None (nothing made)
    otherwise, and where a result is NaN (its payload is NumPy's operand order's): the general path
    then runs."""
    if (k := _depthwise_kernel()) is None:
        return None
    if not _FAST_CONV or bias is None or geo.stride != (1,) or geo.groups != geo.c or not (geo.c == 1 or geo.o == geo.c):
        return None
    c_in, c_w, c_b = input.__class__, weight.__class__, bias.__class__
    if ((c_in is not Tensor and c_in not in SUBCLASSES) or (c_w is not Tensor and c_w not in SUBCLASSES)
            or (c_b is not Tensor and c_b not in SUBCLASSES)):
        return None
    n, o, (ow,) = geo.n, geo.o, geo.out
    if n * o * ow < 4096 or not np.all(bias._np()) or _result_channels_last(input, weight):
        return None  # (small: the general path's call is as cheap; its result is row-major)
    x = input._np()
    if x.strides[2] != x.itemsize:
        # (the signals' elements apart, a transposed batch: each output row would read a column of
        # cache lines; PyTorch too convolves a contiguous copy. The same products in the same
        # order on a row-major copy (a temporary, as the general path's own arrays): the same bits)
        x = row_major(x)
    sn, sc, sl = x.strides
    xv = np.lib.stride_tricks.as_strided(x, (n, o, 1, x.shape[2]), (sn, 0 if geo.c == 1 else sc, 0, sl))
    wl = weight._layout
    w4 = _Layout4((o, 1, 1, wl.shape[2]), (wl.strides[0], wl.strides[1], wl.strides[2], wl.strides[2]), wl.offset)
    out = result((n, o, ow), input._dtype)
    pw, (dw,) = geo.pads[0][0], geo.dilation  # (_plain_geometry's pads: (p, p))
    done = k.conv2d_depthwise(xv, weight._storage.array, w4, bias._storage.array, bias._layout, out._storage.array,
                              0, pw, 1, 1, dw)
    return out if done else None


def _conv2d_depthwise_fresh(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
                            padding: Any = 0, dilation: Any = 1, groups: Any = 1) -> Tensor | None:
    """conv2d's fresh fast path (:func:`strided.grad_mode.track`'s ``__fresh__``, also taken by
    :func:`_conv` while nobody listens): a batched float32/float64 conv2d whose every group has one
    input and one output channel (``groups == C == O``: one image channel and a (1, 1, kH, kW)
    weight is the common small case) and whose windows :func:`contract_rows` reads through its
    depthwise branch (no channels_last, unit width stride, a row-major plane), computed by one
    compiled call (``_matkernel.conv2d_depthwise``) with that branch's operations in its order:
    per output element the products ``x * w`` over the kernel offsets, summed left to right, then
    ``+ bias``; the padding's zeros read in place instead of F.pad's copy. The same bits, NaN
    results aside (a NaN's payload follows NumPy's operand order: there the call declines).
    None (nothing made) for every other call, including each one :func:`_geometry` would refuse:
    the general path then runs, with its errors."""
    if (k := _depthwise_kernel()) is None:
        return None
    if not _FAST_CONV:
        return None
    c_in, c_w = input.__class__, weight.__class__
    if ((c_in is not Tensor and c_in not in SUBCLASSES) or (c_w is not Tensor and c_w not in SUBCLASSES)
            or (bias is not None and bias.__class__ is not Tensor and bias.__class__ not in SUBCLASSES)):
        return None
    d = input._dtype
    if (d is not float32 and d is not float64) or weight._dtype is not d or (bias is not None and bias._dtype is not d):
        return None
    shape, wshape = input._layout.shape, weight._layout.shape
    if len(shape) != 4 or len(wshape) != 4 or groups.__class__ is not int:
        return None
    n, c, h, w = shape
    o, _, kh, kw = wshape
    if not (n and c) or groups != c or o != c or wshape[1] != 1 or (bias is not None and bias._layout.shape != (o,)):
        return None
    st, pd, dl = _plain_ints(stride, 2), _plain_ints(padding, 2), _plain_ints(dilation, 2)
    if st is None or pd is None or dl is None:
        return None
    (sh, sw), (ph, pw), (dh, dw) = st, pd, dl
    if sw != 1 or sh < 1 or ph < 0 or pw < 0 or dh < 1 or dw < 1 or not (kh and kw):
        return None
    hp, wp = h + 2 * ph, w + 2 * pw
    if hp < dh * (kh - 1) + 1 or wp < dw * (kw - 1) + 1:
        return None
    oh, ow = (hp - dh * (kh - 1) - 1) // sh + 1, wp - dw * (kw - 1)
    if _channels_last(input) or _result_channels_last(input, weight):  # (its result is row-major)
        return None
    x = input._np()
    it = x.itemsize
    _, sc, sh_, sw_ = x.strides
    if not (ph or pw):  # (padded: F.pad's fresh row-major copy, which contract_rows reads as rows)
        if sc == it and sw_ == c * it and sh_ == wp * c * it:
            return None  # (contract_rows' channels-last reading)
        if sw_ != it or sh_ != wp * it:
            # no row-major plane: the general path's contract_per_offset, whose (1, 1) @ (1, OW)
            # products start from +0.0 (matmul's sum), the kernel's from the first product: the
            # two differ only in the sign of a zero sum, which a bias none of whose values is
            # zero removes (``+-0 + b`` is ``b``); on a row-major copy the kernel's same steps
            if bias is None or not np.all(bias._np()):
                return None
            x = np.ascontiguousarray(row_major(x))
    elif sw_ != it:  # (a column-major plane: the kernel's steps on a row-major copy, read along rows)
        x = row_major(x)
    if (oh - 1) * sh * wp + ow > 2.5 * oh * ow:  # (contract_rows' limit on the dropped positions)
        return None
    out = result((n, o, oh, ow), d)
    # (the weight, bias and result as their flat storages and layouts: no NumPy view to build)
    done = k.conv2d_depthwise(x, weight._storage.array, weight._layout, None if bias is None else bias._storage.array,
                              None if bias is None else bias._layout, out._storage.array, ph, pw, sh, dh, dw)
    # (False: a NaN came out, the general path recomputes it with NumPy's payload; None: declined)
    return out if done else None


def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1, padding: Any = 0,
           dilation: Any = 1, groups: int = 1) -> Tensor:
    """The 1-D convolution (PyTorch's cross-correlation) of ``input`` (N, C, L) or (C, L) with
    ``weight`` (O, C / groups, kW), plus ``bias`` (O,): a fresh tensor (N, O, L_out).

    >>> F.conv1d(strided.arange(5.0).view(1, 1, 5), strided.ones(1, 1, 2)).tolist()
    [[[1.0, 3.0, 5.0, 7.0]]]
    """
    return _conv("conv1d", 1, input, weight, bias, stride, padding, dilation, groups)


def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1, padding: Any = 0,
           dilation: Any = 1, groups: int = 1) -> Tensor:
    """The 2-D convolution (PyTorch's cross-correlation) of ``input`` (N, C, H, W) or (C, H, W)
    with ``weight`` (O, C / groups, kH, kW), plus ``bias`` (O,): a fresh tensor (N, O, H_out,
    W_out), channels_last when the input is. ``padding`` is a number, a pair, ``'valid'`` or
    ``'same'``.

    >>> F.conv2d(strided.ones(1, 2, 5, 5), strided.ones(3, 2, 3, 3), padding=1, stride=2).shape
    (1, 3, 3, 3)
    """
    return _conv("conv2d", 2, input, weight, bias, stride, padding, dilation, groups)


conv2d.__fresh__ = _conv2d_depthwise_fresh  # type: ignore[attr-defined]


# ---------------------------------------------------------------- backward


def _conv_rule(op: str, nsp: int, out: Tensor, input: Tensor, weight: Tensor, bias: Tensor | None, stride: Any,
               padding: Any, dilation: Any, groups: Any) -> Any:
    geo = _geometry(op, nsp, input, weight, bias, stride, padding, dilation, groups)
    need = (requires_grad(input), requires_grad(weight), bias is not None and requires_grad(bias))

    def grad(g: Tensor) -> tuple:
        gb = g.sum((0, *range(2, 2 + nsp)) if geo.batched else tuple(range(1, 1 + nsp))) if need[2] else None
        if not GRAD_MODE.get():
            gx, gw = _grads_numpy(g, input, weight, geo, need)
        else:
            gx, gw = _grads_recorded(g, input, weight, geo, need)
        return gx, gw, gb

    saved = tuple(t for t, keep in ((input, need[1]), (weight, need[0])) if keep)
    # Note: PyTorch records an unbatched convolution as the batched one and a squeeze; strided
    # records one node, named as PyTorch's outermost.
    return "ConvolutionBackward0" if geo.batched else "SqueezeBackward1", (input, weight, bias), grad, saved


@backward("F.conv1d", operands="any")
def _conv1d_backward(out: Tensor, input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
                     padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Any:
    """See :func:`_conv_rule`."""
    return _conv_rule("conv1d", 1, out, input, weight, bias, stride, padding, dilation, groups)


@backward("F.conv2d", operands="any")
def _conv2d_backward(out: Tensor, input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
                     padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Any:
    """The input's gradient: each kernel offset's ``weight[:, :, offset]^T @ g`` added into the
    windows of a zero padded buffer at that offset, the padding cropped; the weight's: per
    offset, ``g`` contracted with the windows at that offset over the batch and output
    positions; the bias's: ``g`` summed over all but the channel dim."""
    return _conv_rule("conv2d", 2, out, input, weight, bias, stride, padding, dilation, groups)


def _grads_numpy(g: Tensor, input: Tensor, weight: Tensor, geo: ConvGeometry, need: tuple) -> tuple:
    """The first-order gradients of the input and weight, in NumPy over window views."""
    acc = _acc_dtype(input)
    nsp = len(geo.kernel)
    G = geo.groups
    Og, Cg = geo.o // G, geo.c // G
    ga = g._np().astype(acc, copy=False).reshape(geo.n, G, Og, *geo.out)
    wg = weight._np().astype(acc, copy=False).reshape(G, Og, Cg, *geo.kernel)
    lead = (1, G, *([1] * (nsp - 1)))
    gx = gw = None
    # g arranged (N, G, *out[:-1], Og, out[-1]): the matrices of the per-offset products
    gm = np.moveaxis(ga, 2, -2)
    if need[0]:
        buf = np.zeros((geo.n, G, Cg, *geo.padded), dtype=acc)
        bw = np.lib.stride_tricks.as_strided(
            buf, (geo.n, G, Cg, *geo.out, *geo.kernel),
            buf.strides[:3] + tuple(a * s for a, s in zip(buf.strides[3:], geo.stride))
            + tuple(a * d for a, d in zip(buf.strides[3:], geo.dilation)))
        for offset in np.ndindex(*geo.kernel):
            wt = np.ascontiguousarray(np.swapaxes(wg[(Ellipsis, *offset)], -1, -2)).reshape(*lead, Cg, Og)
            part = np.matmul(wt, gm)  # (N, G, *out[:-1], Cg, out[-1])
            target = bw[(Ellipsis, *offset)]  # distinct positions within one offset: += never collides
            target += np.moveaxis(part, -2, 2)
        crop = tuple(slice(a, a + s) for (a, _), s in zip(geo.pads, geo.spatial))
        values = buf.reshape(geo.n, geo.c, *geo.padded)[(slice(None), slice(None), *crop)]
        gx = array_like(values if geo.batched else values[0], input)
    if need[1]:
        x = input._np() if geo.batched else input._np()[None]
        xp = np.pad(x, ((0, 0), (0, 0), *geo.pads)) if any(a or b for a, b in geo.pads) else x
        xg = _grouped(window_view(xp, geo.out, geo.kernel, geo.stride, geo.dilation), G)
        vals = np.empty((G, Og, Cg, *geo.kernel), dtype=acc)
        batch_axes = (0, *range(2, 2 + nsp - 1))
        for offset in np.ndindex(*geo.kernel):
            xk = np.moveaxis(xg[(Ellipsis, *offset)], 2, -1).astype(acc, copy=False)  # (N, G, *out, Cg)
            vals[(Ellipsis, *offset)] = np.matmul(gm, xk).sum(axis=batch_axes)  # (G, Og, Cg)
        gw = array_like(vals.reshape(weight._layout.shape), weight)
    return gx, gw


def _spread(t: Tensor, dim: int, step: int) -> Tensor:
    """``t`` with ``step - 1`` zeros after each element along ``dim`` (the last ones dropped):
    the scatter of a stride-``step`` read, from recording ops."""
    if step == 1:
        return t
    from ...creation import zeros_like
    from ...ops.shape.joining import stack

    z = zeros_like(t.detach())
    s = stack([t, *([z] * (step - 1))], dim + 1).flatten(dim, dim + 1)
    return s.narrow(dim, 0, (t.shape[dim] - 1) * step + 1)


def _grads_recorded(g: Tensor, input: Tensor, weight: Tensor, geo: ConvGeometry, need: tuple) -> tuple:
    """The gradients of the input and weight from strided's recording ops (for ``create_graph``)."""
    from ...ops.linalg.einsum import einsum
    from ...ops.shape.joining import stack

    nsp = len(geo.kernel)
    G = geo.groups
    Og, Cg = geo.o // G, geo.c // G
    gb = g if geo.batched else g.unsqueeze(0)
    gr = gb.reshape(geo.n, G, Og, *geo.out)
    sp = "hw"[2 - nsp:]
    gx = gw = None
    if need[0]:
        total = None
        for offset in np.ndindex(*geo.kernel):
            wk = weight[(slice(None), slice(None), *offset)].reshape(G, Og, Cg)
            piece = einsum(f"goc,ngo{sp}->ngc{sp}", wk, gr).reshape(geo.n, geo.c, *geo.out)
            amounts: list[int] = []
            for dim in range(nsp):
                piece = _spread(piece, 2 + dim, geo.stride[dim])
                left = offset[dim] * geo.dilation[dim]
                amounts[:0] = [left, geo.padded[dim] - left - piece.shape[2 + dim]]
            piece = pad(piece, tuple(amounts))
            total = piece if total is None else total + piece
        assert total is not None
        crop = tuple(slice(a, a + s) for (a, _), s in zip(geo.pads, geo.spatial))
        gx = total[(slice(None), slice(None), *crop)]
        gx = gx if geo.batched else gx.squeeze(0)
    if need[1]:
        x = input if geo.batched else input.unsqueeze(0)
        xp = pad(x, geo.pad_amounts) if any(a or b for a, b in geo.pads) else x
        parts = []
        for offset in np.ndindex(*geo.kernel):
            key = tuple(slice(k * d, k * d + (o - 1) * s + 1, s)
                        for k, d, o, s in zip(offset, geo.dilation, geo.out, geo.stride))
            xk = xp[(slice(None), slice(None), *key)].reshape(geo.n, G, Cg, *geo.out)
            parts.append(einsum(f"ngo{sp},ngc{sp}->goc", gr, xk))
        gw = stack(parts, -1).reshape(geo.o, Cg, *geo.kernel)
    return gx, gw


seal(globals(), functional=True)  # (last: the convolutions become their recording entries)
declare(Kind.COMPUTE, "F.conv1d F.conv2d")
