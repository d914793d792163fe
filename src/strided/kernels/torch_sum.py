"""PyTorch's CPU float sum of rows, bit for bit (``cascade_sum`` in ATen's SumKernel.cpp).

Each output element of a sum over one dim is, in PyTorch 2.13's CPU kernel:

- the reduced dim contiguous and at least one vector long (``vectorized_inner_sum``): the row's
  whole vectors (8 float32 / 4 float64 lanes: 32-byte vectors, measured) summed lane-wise by
  ``row_sum``, then ``0 + the leftover elements`` one by one, then ``+ each lane`` in order;
- otherwise (a strided row, as the real parts of a complex tensor, or a short one:
  ``scalar_inner_sum``): ``row_sum`` of the elements;
- ``row_sum``: four interleaved accumulators (element ``4 i + k`` into ``k``) through
  ``multi_row_sum``, the leftover ``size % 4`` elements into the first, then the first plus the
  other three in order;
- ``multi_row_sum``: a 4-level cascade: level 0 sums ``2**p`` rows at a time
  (``p = max(4, ceil(log2(size)) // 4)``) and is added into level 1, which is added into level 2
  every ``2**(2p)`` rows, which is added into level 3 every ``2**(3p)``; at the end level 0 (the
  rows after the last whole step) plus levels 1, 2, 3 in that order.

Every partial sum is rounded in the row's dtype (float32 sums in float32). NumPy's pairwise sum
groups differently: about half of float32 row sums of random data differ from PyTorch's by an ulp.

:func:`sum_array` is ``torch.sum`` of a whole strided array, as PyTorch 2.13 runs it on one thread
(``torch.set_num_threads(1)``: more threads split the work differently), which is what
``Tensor.sum`` / ``Tensor.mean`` return. Before the kernel, TensorIterator (:func:`iterator_dims`)
moves the reduced dims to the front (fastest), orders the reduced dims by the input's strides and the
kept ones by the (row-major) result's, and merges dims that run on in memory; its serial loop then
calls the 2-d loop above for every index of the dims past the first two, and each partial sum is
added into the zeroed output (``out = out + partial``): where the first two dims are both reduced
(a sliced, expanded, or otherwise gapped input), an output gathers its partials one after another.
The 2-d loop picks ``vectorized_inner_sum`` (reduced dim of unit stride), ``vectorized_outer_sum``
(the second dim of unit stride: four vectors of columns at a time through ``multi_row_sum``, then
one vector through ``row_sum``, then single columns), ``scalar_inner_sum`` or
``scalar_outer_sum`` (four columns through ``multi_row_sum``, the rest through ``row_sum``).
Complex numbers add componentwise (a vector holds 4 complex64 / 2 complex128); float16 and
bfloat16 are read into float32 accumulators, a vector load of 16 elements being the float32 sum of
its two halves, the result rounded once, except where the first two dims are both reduced:
there PyTorch sums a float32 copy (``should_use_acc_buffer``). A ``dtype=`` other than the
input's sums the input converted (``self.to(dtype)``: same strides where the input is dense,
else row-major). A tensor with a negative stride (PyTorch has none) is summed as its row-major
copy, what ``torch.flip`` would give.

The loops run compiled (``strided.kernels._sumkernel``, :func:`strided.kernels.native.sums`); with
the kernel missing or switched off the NumPy steps here give the same bits (tests/test_torch_sum.py
compares both with ``torch.sum``).
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ..layout.order import insertion_order, preserve_format_strides
from . import native
from .memory import reduced_cast_source
from .native import kernel_run

_ILP = 4
_LEVELS = 4


def lanes(dtype: np.dtype) -> int:
    """``Vectorized<T>::size()`` of PyTorch's CPU sum kernel for ``dtype`` (32-byte vectors)."""
    return 32 // np.dtype(dtype).itemsize


def _sequential(blocks: np.ndarray, axis: int) -> np.ndarray:
    """``0 + b[0] + b[1] + ...`` along ``axis``, rounded at each step (NumPy's accumulate is sequential)."""
    if blocks.shape[axis] == 0:
        return np.zeros(blocks.shape[:axis] + blocks.shape[axis + 1:], blocks.dtype)
    return np.take(np.add.accumulate(blocks, axis=axis), -1, axis=axis) + blocks.dtype.type(0)


def _multi_row_sum(v: np.ndarray) -> np.ndarray:
    """``multi_row_sum`` over axis 1 of ``v`` (rows, size, ...): the cascade of the module's note."""
    size = v.shape[1]
    power = max(4, (size - 1).bit_length() // _LEVELS if size > 1 else 0)
    step = 1 << power
    blocks = size // step
    zero = np.zeros(v.shape[:1] + v.shape[2:], v.dtype)
    level1, level2, level3 = zero, zero, zero
    if blocks:
        sums = _sequential(v[:, :blocks * step].reshape(v.shape[:1] + (blocks, step) + v.shape[2:]), 2)
        for b in range(blocks):
            i = (b + 1) * step
            level1 = level1 + sums[:, b]
            if i & ((step - 1) << power):
                continue
            level2, level1 = level2 + level1, zero
            if i & ((step - 1) << (2 * power)):
                continue
            level3, level2 = level3 + level2, zero
    return ((_sequential(v[:, blocks * step:], 1) + level1) + level2) + level3


def _row_sum(v: np.ndarray) -> np.ndarray:
    """``row_sum`` over axis 1 of ``v`` (rows, size, ...): four interleaved accumulators."""
    size = v.shape[1]
    whole = size // _ILP
    parts = _multi_row_sum(v[:, :whole * _ILP].reshape(v.shape[:1] + (whole, _ILP) + v.shape[2:]))
    first = parts[:, 0]
    for i in range(whole * _ILP, size):
        first = first + v[:, i]
    for k in range(1, _ILP):
        first = first + parts[:, k]
    return first


def row_sums(x: np.ndarray, contiguous: bool = True) -> np.ndarray:
    """PyTorch's CPU sum of each row of ``x`` (rows, n), float32 or float64, in its dtype;
    ``contiguous``: the reduced dim has unit stride in PyTorch's tensor (else the scalar kernel).

    >>> x = np.float32([[0.1] * 10])
    >>> float(row_sums(x)[0]), float(np.sum(x))  # (torch.tensor(x).sum(-1): 1.0000001192092896)
    (1.0000001192092896, 1.0)
    """
    rows, n = x.shape
    width = lanes(x.dtype)
    if not (contiguous and n >= width):
        return _row_sum(x)
    vectors = n // width
    lanes_sum = _row_sum(x[:, :vectors * width].reshape(rows, vectors, width))
    total = np.zeros(rows, x.dtype)
    for k in range(vectors * width, n):
        total = total + x[:, k]
    for k in range(width):
        total = total + lanes_sum[:, k]
    return total


def norm2_rows(x: np.ndarray) -> np.ndarray:
    """PyTorch's CPU 2-norm of each row of ``x`` (rows, n), float32 or float64, where the row is
    its reduction's one contiguous run (``norm_kernel_tensor_iterator_impl``'s last-dim path:
    ``vector_norm(x)`` of a contiguous tensor, ``dim=-1``, a contiguous matrix's Frobenius norm).
    Its loop, measured bit for bit on PyTorch 2.13: lane ``l`` of a 32-byte vector accumulates
    ``x[k * W + l] ** 2`` over the row's whole vectors (each square rounded, then the sum), the
    lanes are added in order, then the leftover ``t = n % W`` elements: the first ``t - t % 4``
    as ``s + x * x`` (rounded twice), the last ``t % 4`` fused, ``fma(x, x, s)``; the square
    root in the dtype.

    >>> float(norm2_rows(np.float32([[3.0, 4.0]]))[0])
    5.0
    """
    rows, n = x.shape
    k = native.special()
    if k is not None and rows and n:
        out = np.empty(rows, x.dtype)
        if k.torch_norm2_rows(kernel_run(x), out, n):  # (the same loop, compiled)
            return out
    from .fused import fma  # (the NumPy loop's tail only)

    with np.errstate(over="ignore", invalid="ignore"):  # (inf and NaN silently, as PyTorch)
        width = lanes(x.dtype)
        whole = n - n % width
        squares = x[:, :whole] * x[:, :whole]
        if whole:
            # (NumPy reduces a non-innermost axis element by element, in order: each lane's sequential
            # sum, as accumulate's last element but ~3x faster; pairwise summation is only along the
            # innermost axis)
            lanes_sum = np.add.reduce(squares.reshape(rows, whole // width, width), axis=1)
            total = lanes_sum[:, 0] + x.dtype.type(0)
            for k in range(1, width):
                total = total + lanes_sum[:, k]
        else:
            total = np.zeros(rows, x.dtype)
        tail = n - whole
        plain = whole + tail - tail % 4
        for k in range(whole, n):
            v = x[:, k]
            total = total + v * v if k < plain else np.asarray(fma(v, v, total), x.dtype)
        return np.sqrt(total)


# ---- whole reductions: TensorIterator's dims, then cascade_sum's loops

_KINDS = {np.dtype(np.float32): 0, np.dtype(np.float64): 1, np.dtype(np.complex64): 2, np.dtype(np.complex128): 3}
_HALF_KIND = 4  # (the kernel's kind for the float32 copy of float16 / bfloat16 values)
_NAN_KINDS = {np.dtype(np.float32): 5, np.dtype(np.float64): 6}  # (nansum's: each NaN read as 0)


def _row_major_strides(shape: tuple[int, ...] | list[int]) -> list[int]:
    """PyTorch's contiguous strides (a size-0 or size-1 dim counts as 1)."""
    out = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        out[i] = out[i + 1] * max(shape[i + 1], 1)
    return out


@functools.lru_cache(maxsize=4096)  # (programs repeat their shapes; a hit is ~0.1 us, the plan ~10)
def iterator_dims(shape: tuple[int, ...], strides: tuple[int, ...], reduced: tuple[bool, ...], keepdim: bool
                  ) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """TensorIterator's (sizes, input strides, output strides) for a sum of a tensor of ``shape`` and
    element ``strides`` over the dims flagged in ``reduced``, fastest dim first, after its
    ``reorder_dimensions`` (the reduced dims first; then by the output's strides, ties by the
    input's; an ambiguous comparison looks further left, as its insertion sort does) and
    ``coalesce_dimensions``; the output strides in elements of the row-major result.

    >>> iterator_dims((3, 4), (4, 1), (True, True), False)
    ((12,), (1,), (0,))
    >>> iterator_dims((3, 4), (4, 1), (True, False), False)
    ((3, 4), (4, 1), (0, 1))
    """
    n = len(shape)
    keep = [1 if r else s for s, r in zip(shape, reduced)]
    if keepdim:
        ostr = _row_major_strides(keep)
    else:
        kept = iter(_row_major_strides([s for s, r in zip(shape, reduced) if not r]))
        ostr = [0 if r else next(kept) for r in reduced]
    ostr = [0 if keep[i] == 1 and shape[i] != 1 else ostr[i] for i in range(n)]  # (broadcast: stride 0)
    istr = list(strides)

    def should_swap(d0: int, d1: int) -> int:
        for st, is_out in ((ostr, True), (istr, False)):
            s0, s1 = st[d0], st[d1]
            if is_out and (s0 == 0) != (s1 == 0):
                return 1 if s1 == 0 else -1
            if s0 == 0 or s1 == 0:
                continue
            if s0 != s1:
                return -1 if s0 < s1 else 1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    perm = insertion_order(n, should_swap)
    sizes = [shape[p] for p in perm]
    ins = [istr[p] for p in perm]
    outs = [ostr[p] for p in perm]
    if n > 1:
        prev = 0
        for d in range(1, n):
            s0 = sizes[prev]
            if s0 == 1 or sizes[d] == 1 or (s0 * ins[prev] == ins[d] and s0 * outs[prev] == outs[d]):
                if s0 == 1:
                    ins[prev], outs[prev] = ins[d], outs[d]
                sizes[prev] *= sizes[d]
            else:
                prev += 1
                if prev != d:
                    sizes[prev], ins[prev], outs[prev] = sizes[d], ins[d], outs[d]
        del sizes[prev + 1:], ins[prev + 1:], outs[prev + 1:]
    return tuple(sizes), tuple(ins), tuple(outs)


def torch_to(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """``x`` converted to ``dtype`` laid out as PyTorch's ``self.to(dtype)`` (``_to_copy``, memory
    format preserved) lays it out: ``x``'s strides where ``x`` is non-overlapping and dense, else
    ``infer_dense_strides``' (packed, the dims in ``x``'s order in memory); ``x`` itself if of
    ``dtype``. A complex ``x`` to a real ``dtype``: its real parts (the caller warns, as PyTorch).
    The values convert as PyTorch's (:func:`strided.kernels.memory.reduced_cast_source`: float64
    to float16 / bfloat16 through float32)."""
    dtype = np.dtype(dtype)
    if x.dtype == dtype:
        return x
    values = x.real if x.dtype.kind == "c" and dtype.kind != "c" else x
    isz = x.itemsize
    strides = tuple(s // isz for s in x.strides)
    if x.ndim and x.size and min(strides) >= 0:
        strides = preserve_format_strides(x.shape, strides)
        span = 1 + sum((n - 1) * s for n, s in zip(x.shape, strides))
        out = np.lib.stride_tricks.as_strided(np.empty(span, dtype), x.shape, tuple(s * dtype.itemsize
                                                                                 for s in strides))
        np.copyto(out, reduced_cast_source(dtype, values), casting="unsafe")
        return out
    return reduced_cast_source(dtype, np.asarray(values, order="C")).astype(dtype)


def _float32_in_place(x: np.ndarray) -> np.ndarray:
    """A float32 copy of the float16 / bfloat16 ``x`` with ``x``'s element strides (the span of
    memory ``x`` addresses converted: the kernel reads it as PyTorch reads ``x``)."""
    isz = x.itemsize
    strides = [s // isz for s in x.strides]
    if not x.size:
        return x.astype(np.float32)
    lo = sum((n - 1) * s for n, s in zip(x.shape, strides) if s < 0)
    hi = sum((n - 1) * s for n, s in zip(x.shape, strides) if s > 0)
    flat = np.lib.stride_tricks.as_strided(x, (hi - lo + 1,), (isz,), writeable=False) if not lo else None
    if flat is None:  # (a negative stride: the caller made x row-major first; never here)
        return np.ascontiguousarray(x).astype(np.float32)
    wide = flat.astype(np.float32)
    return np.lib.stride_tricks.as_strided(wide, x.shape, tuple(4 * s for s in strides), writeable=False)


def sum_array(x: np.ndarray, axes: tuple[int, ...] | None, keepdim: bool, dtype: np.dtype | None = None,
              nan_zero: bool = False) -> np.ndarray:
    """``torch.sum(x, axes, keepdim, dtype=dtype)`` (one thread), bit for bit, as a fresh row-major
    array: ``x`` float32/float64/complex64/complex128/float16/bfloat16 (or anything ``dtype``, one of
    those, converts from), ``axes`` wrapped dims (None or empty: every dim). See the module doc.
    ``nan_zero`` (a float32 / float64 sum): ``torch.nansum``'s, each NaN read as 0 in the same
    adds (its cascade_sum<ignore_nan>).

    >>> x = np.float32([[0.1] * 10, [0.2] * 10])
    >>> sum_array(x, (1,), False).tolist(), float(sum_array(x, None, False))
    ([1.0000001192092896, 2.000000238418579], 2.999999761581421)
    """
    source = x  # (the acc-buffer path below converts the caller's input itself, as PyTorch's sum_out)
    if dtype is not None:
        x = torch_to(x, np.dtype(dtype))
    if any(s < 0 for s in x.strides):
        x = np.ascontiguousarray(x)  # (PyTorch's flip: a row-major copy)
    nan_half = nan_zero and x.dtype not in _NAN_KINDS
    if nan_zero and (nan_half or native.sums() is None):
        # (the NumPy loops, or a float16 / bfloat16 sum, whose loads zero each NaN before their two
        # halves add: a copy of the same layout, NaN -> 0)
        x, nan_zero = nan_zeroed(x), False
    n = x.ndim
    red = tuple(True for _ in range(n)) if not axes else tuple(d in axes for d in range(n))
    out_shape = tuple(1 if r else s for s, r in zip(x.shape, red)) if keepdim else \
        tuple(s for s, r in zip(x.shape, red) if not r)
    kind = _NAN_KINDS.get(x.dtype) if nan_zero else _KINDS.get(x.dtype)
    half = kind is None
    if half:
        isz = x.itemsize
        dims = iterator_dims(x.shape, tuple(s // isz for s in x.strides), red, keepdim)
        if len(dims[0]) >= 2 and dims[2][0] == 0 and dims[2][1] == 0:  # (should_use_acc_buffer)
            if nan_half:
                return _no_acc_buffer(x, dims, out_shape)
            # (sum_out's self.to(Float) of its own input: an int32 / float64 ``source`` rounded once,
            # to float32, not through float16 / bfloat16 first)
            return rounded(sum_array(torch_to(source, np.dtype(np.float32)), axes, keepdim, nan_zero=nan_half),
                           x.dtype)
        src, kind = _float32_in_place(x), _HALF_KIND
    else:
        src = x
    out = np.zeros(out_shape, np.float32 if half else x.dtype)
    if x.size:
        isz = src.itemsize
        sizes, ins, outs = iterator_dims(src.shape, tuple(s // isz for s in src.strides), red, keepdim)
        k = native.sums()
        if k is not None:
            osz = out.itemsize
            k.cascade(src, kind, sizes, tuple(s * isz for s in ins), tuple(s * osz for s in outs), out)
        else:
            _numpy_cascade(src, kind, sizes, ins, outs, out)
    return rounded(out, x.dtype) if half else out


def _no_acc_buffer(x: np.ndarray, dims: tuple, out_shape: tuple[int, ...]) -> np.ndarray:
    """``torch.nansum`` of the float16 / bfloat16 ``x`` (its NaNs already zeroed) over two or more
    reduced dims that do not coalesce (``dims``: :func:`iterator_dims`'s, the reduced ones first):
    nansum_out has no float32 accumulation buffer where sum_out has one, so cascade_sum's 2-D loop
    stores each partial sum over the innermost reduced dim into the 2-byte output as it goes
    (``out = T(float(out) + float(T(partial)))``: measured against torch), one partial per index of the other
    reduced dims, in TensorIterator's order. The partials are the kernel's, each reduced dim but the
    first given an output stride of its own in a float32 scratch array; then the rounded adds."""
    sizes, ins, outs = dims
    reduced = next(i for i, o in enumerate(outs) if o != 0) if any(outs) else len(outs)
    inner = math.prod(sizes[1:reduced])  # (the partials per output: the other reduced dims' indices)
    scratch_outs, step = [0], 1
    for size in sizes[1:reduced]:
        scratch_outs.append(step)
        step *= size
    scratch_outs += [o * inner for o in outs[reduced:]]
    src = _float32_in_place(x)
    scratch = np.zeros(inner * math.prod(out_shape), np.float32)
    k = native.sums()
    if k is not None:
        isz = src.itemsize
        k.cascade(src, _HALF_KIND, sizes, tuple(s * isz for s in ins), tuple(s * 4 for s in scratch_outs), scratch)
    else:
        _numpy_cascade(src, _HALF_KIND, sizes, ins, tuple(scratch_outs), scratch)
    partials = scratch.reshape(-1, inner)  # (a row per output, row-major; its partials in order)
    total = np.zeros(partials.shape[0], x.dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        for j in range(inner):  # (each partial rounded to the 2-byte type, then added to the output's)
            total = rounded(total.astype(np.float32) + rounded(partials[:, j], x.dtype).astype(np.float32), x.dtype)
    return total.reshape(out_shape)


def nan_zeroed(a: np.ndarray) -> np.ndarray:
    """A copy of ``a`` (strides not negative) with each NaN replaced by 0, laid out with ``a``'s
    own strides (a stride 0 included: the copy writes such an element once per index, with one
    value), so that a sum of it takes the adds a sum of ``a`` takes.

    >>> nan_zeroed(np.float32([1.0, np.nan])).tolist()
    [1.0, 0.0]
    """
    if a.size == 0:
        return a.copy()
    reach = 0  # (the last element's byte distance from the first)
    for n, st in zip(a.shape, a.strides):
        reach += (n - 1) * st
    z = np.lib.stride_tricks.as_strided(np.empty(1 + reach // a.itemsize, a.dtype), a.shape, a.strides)
    np.copyto(z, a)
    np.copyto(z, a.dtype.type(0), where=np.isnan(a))
    return z


def rounded(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """``x`` rounded to ``dtype`` (a float32 sum to float16 / bfloat16: inf beyond its range,
    silently, as PyTorch's; a bfloat16 NaN is c10's round_to_nearest_even's, 0x7FC0)."""
    with np.errstate(over="ignore", invalid="ignore"):
        out = x.astype(dtype)
    if dtype.kind == "V" and out.size:  # (bfloat16, ml_dtypes': NumPy's kind 'V')
        words = out.view(np.uint16)
        words[np.isnan(x)] = 0x7FC0
    return out


def _numpy_cascade(x: np.ndarray, kind: int, sizes: tuple[int, ...], ins: tuple[int, ...], outs: tuple[int, ...],
                   out: np.ndarray) -> None:
    """The compiled kernel's loops (``_sumkernel.c``) in NumPy steps, every output element's
    partial sums computed side by side: the same adds in the same order, so the same bits."""
    sizes, ins, outs = list(sizes), list(ins), list(outs)
    while len(sizes) < 2:
        sizes.append(1)
        ins.append(0)
        outs.append(0)
    isz = x.itemsize
    view = np.lib.stride_tricks.as_strided(x, tuple(reversed(sizes)), tuple(s * isz for s in reversed(ins)),
                                           writeable=False)
    if x.dtype.kind == "c":  # (componentwise: a trailing axis of the two parts)
        view = np.stack([view.real, view.imag], -1)
    n_dims = len(sizes)
    tail = view.shape[n_dims:]
    size0, size1, is0, is1, os0, os1 = sizes[0], sizes[1], ins[0], ins[1], outs[0], outs[1]
    swap = os0 != 0 and os1 == 0
    if swap:
        view = view.swapaxes(n_dims - 1, n_dims - 2)
        size0, size1, is0, is1, os0, os1 = size1, size0, is1, is0, os1, os0
    outer = view.shape[:n_dims - 2]
    ostr = list(reversed(outs[2:]))
    if os0 != 0 and os1 != 0:  # not a reduction: every element added into its own output
        parts = view + view.dtype.type(0)
        axes_out = ostr + [os1, os0]
    else:
        width = 32 // isz  # (a vector's elements: complex ones too)
        vecn = 2 * width if kind == _HALF_KIND else width
        rows = np.ascontiguousarray(view).reshape((-1, size0) + tail)
        if is0 == 1 and size0 >= vecn:  # vectorized_inner_sum
            nvec = size0 // vecn
            loads = rows[:, :nvec * vecn].reshape((rows.shape[0], nvec, vecn) + tail)
            if kind == _HALF_KIND:
                loads = loads[:, :, :width] + loads[:, :, width:]
            lanes_sum = _row_sum(loads)
            parts = np.zeros((rows.shape[0],) + tail, rows.dtype)
            for k in range(nvec * vecn, size0):
                parts = parts + rows[:, k]
            for k in range(width):
                parts = parts + lanes_sum[:, k]
        else:
            vec_outer = is1 == 1 and size1 >= vecn
            if vec_outer or is0 >= is1:  # the outer sums: the first whole groups by multi_row_sum alone
                group = 4 * width if vec_outer else 4
                cut = size1 - size1 % group
                cols = rows.reshape((-1, size1, size0) + tail)
                parts = np.concatenate([_multi_row_sum(cols[:, :cut].reshape((-1, size0) + tail)).reshape(
                    (cols.shape[0], cut) + tail), _row_sum(cols[:, cut:].reshape((-1, size0) + tail)).reshape(
                    (cols.shape[0], size1 - cut) + tail)], axis=1)
            else:  # scalar_inner_sum
                parts = _row_sum(rows)
        parts = parts.reshape(outer + (size1,) + tail)
        axes_out = ostr + [os1]
    # each output: 0 + its partials in the loops' order (outer dims, slowest first, then j)
    keep = [i for i, s in enumerate(axes_out) if s != 0]
    seq = [i for i, s in enumerate(axes_out) if s == 0]
    k_axes = len(axes_out)
    parts = parts.transpose(keep + seq + list(range(k_axes, parts.ndim)))
    kshape = parts.shape[:len(keep)]
    flat = parts.reshape((int(np.prod(kshape, dtype=np.int64)), -1) + tail)
    total = _sequential(flat, 1)
    osz = out.itemsize
    if out.dtype.kind == "c":
        real = out.reshape(-1).view(out.real.dtype)
        target = np.lib.stride_tricks.as_strided(real, kshape + (2,), tuple(2 * axes_out[i] * real.itemsize
                                                                            for i in keep) + (real.itemsize,))
    else:
        target = np.lib.stride_tricks.as_strided(out.reshape(-1), kshape, tuple(axes_out[i] * osz for i in keep))
    target[...] = total.reshape(target.shape)
