"""Two ops that build a new tensor around an input's elements: ``pad`` (constant mode: the input
placed inside a larger tensor filled with one value, or cropped by negative amounts) and
``one_hot`` (class indices spread along a new last dim). Both are re-exported by
``strided.nn.functional`` (``F.pad``, ``F.one_hot``), as in PyTorch; both write new memory (``pad``
is reported as a copy with its reason).

>>> pad(strided.ones(2, 3), (1, 2), value=7).shape
(2, 6)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...args import int_arg
from ...dispatch import copied, report, result, result_array
from ...dtypes import bool_, int64
from ...errors import StridedNotImplementedError, StridedRuntimeError, StridedTypeError, join_lines
from ...grad_mode import GRAD_MODE, requires_grad
from ...layout.formats import format_strides, suggest_format
from ...memory_format import MemoryFormat
from ...tensor import Tensor, tensor_arg

__all__ = ["one_hot", "pad"]


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """int64 ``(*tensor.shape, num_classes)`` with a 1 at each class index (``num_classes=-1``:
    the largest index + 1).

    >>> one_hot(strided.tensor([0, 2]), 3).tolist()
    [[1, 0, 0], [0, 0, 1]]
    """
    tensor_arg(tensor, "one_hot", "tensor")
    n = int_arg(num_classes, "one_hot", "num_classes", 2)
    if tensor._dtype is not int64:
        raise StridedRuntimeError(
            join_lines("one_hot is only applicable to index tensor of type LongTensor.",
                       f"the tensor is {tensor._dtype.name}; fix: F.one_hot(t.to(strided.int64))")
        )
    idx = tensor._np()
    if idx.size == 0:
        if n <= 0:
            raise StridedRuntimeError(
                join_lines("Can not infer total number of classes from empty tensor.",
                           "the tensor is empty; fix: give num_classes")
            )
    else:
        low, high = int(idx.min()), int(idx.max())
        if low < 0:
            raise StridedRuntimeError(join_lines("Class values must be non-negative.",
                                                 f"the smallest class value is {low}"))
        if n == -1:
            n = high + 1
        elif high >= n:
            raise StridedRuntimeError(
                join_lines("Class values must be smaller than num_classes.",
                           f"the largest class value is {high}, and num_classes is {n}",
                           f"fix: num_classes={high + 1} (or -1 to infer it)")
            )
    shape = tensor._layout.shape + (n,)
    out, arr = result_array(shape, int64)
    arr.fill(0)
    if idx.size:
        np.put_along_axis(arr, idx[..., None], 1, axis=-1)
    return report("one_hot", (tensor,), out)


_OTHER_MODES = ("reflect", "replicate", "circular")


def pad(input: Tensor, pad: Any, mode: str = "constant", value: float | None = None) -> Tensor:
    """Pad (or, with negative amounts, crop) the last dims: ``pad = (left, right)`` for the last
    dim, then ``(top, bottom)`` for the one before, ...; new elements are ``value`` (0 by
    default). Always new memory (a copy, recorded with its reason). ``mode`` "reflect",
    "replicate" or "circular" pads the last 1 to 3 dims of a batched or unbatched input with
    its own elements, as PyTorch's.

    >>> pad(strided.ones(2, 3), (1, 2), value=7).shape
    (2, 6)
    >>> pad(strided.arange(3.0).view(1, 3), (2, 1), mode="reflect").tolist()
    [[2.0, 1.0, 0.0, 1.0, 2.0, 1.0]]
    """
    tensor_arg(input, "pad")
    if mode != "constant" and mode not in _OTHER_MODES:
        raise StridedNotImplementedError(
            join_lines(f"Unrecognised padding mode {mode}",
                       "the modes are \"constant\", \"reflect\", \"replicate\" and \"circular\"")
        )
    if not isinstance(pad, (tuple, list)):
        raise StridedTypeError(
            join_lines(f"pad(): argument 'pad' (position 2) must be tuple of ints, not {type(pad).__name__}",
                       "e.g. F.pad(x, (1, 1)) pads the last dim by one on each side")
        )
    amounts = []
    for i, a in enumerate(pad):
        if isinstance(a, bool) or not isinstance(a, (int, np.integer)):
            raise StridedTypeError(
                join_lines(f"pad(): argument 'pad' (position 2) must be tuple of ints, but found element of type "
                           f"{type(a).__name__} at pos {i}", "pad amounts are whole numbers of elements")
            )
        amounts.append(int(a))
    shape = input._layout.shape
    if len(amounts) % 2:
        raise StridedRuntimeError(
            join_lines("Padding length must be divisible by 2",
                       f"pad holds {len(amounts)} numbers; give (left, right) pairs, last dim first")
        )
    if len(amounts) // 2 > len(shape):
        raise StridedRuntimeError(
            join_lines(f"Padding length should be less than or equal to two times the input dimension but got "
                       f"padding length {len(amounts)} and input of dimension {len(shape)}",
                       f"pad gives a (left, right) pair per dim, last dim first; the input has {len(shape)} dims")
        )
    if mode != "constant":
        return _pad_mode(input, amounts, mode, value)
    out_shape = list(shape)
    src: list[slice] = [slice(None)] * len(shape)
    dst: list[slice] = [slice(None)] * len(shape)
    for i in range(len(amounts) // 2):
        dim = len(shape) - 1 - i
        left, right = amounts[2 * i], amounts[2 * i + 1]
        size = shape[dim] + left + right
        if size < 0 or shape[dim] + min(left, 0) < 0 or shape[dim] + min(right, 0) < 0:
            raise StridedRuntimeError(
                join_lines("narrow(): length must be non-negative.",
                           f"dim {dim} has size {shape[dim]}; padding ({left}, {right}) would leave "
                           f"{shape[dim] + left + right} elements")
            )
        out_shape[dim] = size
        start, stop = max(0, -left), shape[dim] - max(0, -right)
        src[dim] = slice(start, max(start, stop))
        dst[dim] = slice(max(0, left), max(0, left) + max(0, stop - start))
    fill = 0 if value is None else value
    if GRAD_MODE.get() and requires_grad(input):
        return _pad_recorded(input, src, amounts, fill)
    out, arr = result_array(tuple(out_shape), input._dtype)
    with np.errstate(all="ignore"):
        arr.fill(fill if input._dtype is not bool_ else bool(fill))
    arr[tuple(dst)] = input._np()[tuple(src)]
    return copied("pad", (input,), out,
                  lambda: f"pad: {shape} padded by {tuple(amounts)} into new memory {tuple(out_shape)}")




def _pad_mode(input: Tensor, amounts: list[int], mode: str, value: Any) -> Tensor:
    """``pad`` with mode "reflect" (mirrored about the edge element, which is not repeated),
    "replicate" (the edge element repeated) or "circular" (wrapped around), with PyTorch's
    checks and texts. Each padded dim reads the input at an index array: one gather (a copy
    recorded as "pad"); an input that requires grad takes recorded ``index_select`` steps, so its
    gradient (the sum over every place an element was copied to) is PyTorch's."""
    shape = input._layout.shape
    ndim, k = len(shape), len(amounts) // 2
    if value is not None and value != 0:
        raise StridedRuntimeError(
            join_lines(f'Padding mode "{mode}" doesn\'t take in value argument',
                       "only mode=\"constant\" fills the new elements with a value",
                       f"fix: drop value=, or pad with mode=\"constant\", value={value!r}"))
    if not 1 <= k <= 3 or ndim not in (k + 1, k + 2):
        raise StridedNotImplementedError(
            join_lines(f"Padding size {len(amounts)} is not supported for {ndim}D input tensor.",
                       f"mode={mode!r} pads the last {k} dim(s) of a {k + 1}D (unbatched) or {k + 2}D "
                       "(batched) input", "fix: reshape the input to one of those ranks, or use mode=\"constant\""))
    lead = ndim - k - 1  # (1: a batch dim, which alone may be empty; 0: an unbatched input)
    if mode != "circular" and any(n == 0 for n in shape[lead:]):
        raise StridedRuntimeError(
            join_lines(f"Expected {k + 1}D or {k + 2}D (batch mode) tensor with possibly 0 batch size and other "
                       f"non-zero dimensions for input, but got: {list(shape)}",
                       f"mode={mode!r} reads the elements at the edge: an empty dim has none"))
    if mode == "circular":
        _check_circular(shape, amounts, k)
    else:
        _check_edge_modes(shape, amounts, k, mode)
        if input._dtype is bool_:  # (PyTorch's kernels have no bool instance; circular is copies)
            kernel = f"{'reflection' if mode == 'reflect' else 'replication'}_pad{k}d"
            raise StridedNotImplementedError(
                join_lines(f"\"{kernel}\" not implemented for 'Bool'",
                           "fix: pad t.to(strided.uint8) and compare the result with 0, or use mode=\"circular\""))
    picks = []
    for i in range(k):
        dim = ndim - 1 - i
        n, left, right = shape[dim], amounts[2 * i], amounts[2 * i + 1]
        if mode == "circular":  # (PyTorch wraps the cropped run: a negative amount crops first)
            kept = np.arange(max(0, -left), n - max(0, -right))
            m = len(kept)
            j = kept[np.arange(-max(0, left), m + max(0, right)) % m] if m else kept
        else:
            pos = np.arange(-left, n + right)
            j = np.clip(pos, 0, n - 1) if mode == "replicate" else np.abs(pos)
            if mode == "reflect":
                j = np.where(j >= n, 2 * (n - 1) - j, j)
        picks.append((dim, j.astype(np.int64)))
    # reflect and replicate keep a channels-last input's format (PyTorch's kernels allocate by
    # the input's suggest_memory_format); circular writes a new_empty, row-major
    fmt = "contiguous_format" if mode == "circular" else suggest_format(shape, input._layout.strides)
    if GRAD_MODE.get() and requires_grad(input):
        from ...creation import borrow_array

        t = input
        for dim, j in picks:
            t = t.index_select(dim, borrow_array(j, "from_numpy"))
        if fmt != "contiguous_format":
            t = t.contiguous(memory_format=MemoryFormat(fmt))
        return t
    arr = input._np()
    for dim, j in picks:
        arr = np.take(arr, j, axis=dim)
    out = result(arr.shape, input._dtype, None if fmt == "contiguous_format" else format_strides(arr.shape, fmt))
    out._np()[...] = arr
    return copied("pad", (input,), out,
                  lambda: f"pad: {shape} padded by {tuple(amounts)} (mode={mode!r}) into new memory {arr.shape}")

def _check_edge_modes(shape: tuple, amounts: list[int], k: int, mode: str) -> None:
    """PyTorch's checks of a "reflect" or "replicate" pad, in its order and texts: each reflected
    side less than its dim (last dim first, PyTorch's argument numbers), then the output size
    (its kernels' test: the last dim's at least 1, for 2-3 padded dims any one of them)."""
    ndim = len(shape)
    sizes, outs = [], []
    for i in range(k):
        dim = ndim - 1 - i
        n, left, right = shape[dim], amounts[2 * i], amounts[2 * i + 1]
        if mode == "reflect" and (left >= n or right >= n):
            raise StridedRuntimeError(
                join_lines(f"Argument #{4 + 2 * i}: Padding size should be less than the corresponding input "
                           f"dimension, but got: padding ({left}, {right}) at dimension {dim} of input {list(shape)}",
                           f"a reflection mirrors about the edge element, so dim {dim} (size {n}) gives at most "
                           f"{n - 1} on each side", "fix: smaller padding, or mode=\"replicate\""))
        sizes.append(n)
        outs.append(n + left + right)
    if (outs[0] if k == 1 else max(outs)) < 1:  # (PyTorch's kernels' own test)
        names = "WHD"[:k]
        given = f"W: {sizes[0]}"
        if k == 2:  # (PyTorch's texts, the replicate one's stray space too)
            given = f"H: {sizes[1]}, {given}" + (" " if mode == "replicate" else "")
        elif k == 3:
            given = f"D: {sizes[2]} H: {sizes[1]}, {given}"
        got = " ".join(f"{names[i]}: {outs[i]}" for i in reversed(range(k)))
        raise StridedRuntimeError(
            join_lines(f"input ({given}) is too small. Calculated output {got}",
                       f"the negative padding {tuple(amounts)} crops more than the input's last {k} dim(s) hold",
                       "fix: crop less (a negative amount removes that many elements)"))
    if min(outs) < 0:
        out_shape = list(shape[:ndim - k]) + outs[::-1]
        raise StridedRuntimeError(
            join_lines(f"Trying to create tensor with negative dimension {min(outs)}: {out_shape}",
                       f"the negative padding {tuple(amounts)} crops more than the input {list(shape)} holds",
                       "fix: crop less (a negative amount removes that many elements)"))


def _check_circular(shape: tuple, amounts: list[int], k: int) -> None:
    """PyTorch's checks of a "circular" pad, in its order (first padded dim first) and texts: at
    most one wrap per side, no negative size; and where one side crops, the other side's wrap must
    fit in what is kept (PyTorch's kernel would read its own unwritten output there: an error or
    undefined values, so strided refuses it)."""
    ndim = len(shape)
    for i in reversed(range(k)):
        dim = ndim - 1 - i
        n, left, right = shape[dim], amounts[2 * i], amounts[2 * i + 1]
        if left > n or right > n:
            raise StridedRuntimeError(
                join_lines("Padding value causes wrapping around more than once.",
                           f"dim {dim} has {n} elements; padding ({left}, {right}) wraps past all of them",
                           f"fix: padding of at most {n} on each side of dim {dim}"))
        if n + left + right < 0:
            raise StridedRuntimeError(
                join_lines("Negative padding value is resulting in an empty dimension",
                           f"dim {dim} has {n} elements; padding ({left}, {right}) leaves {n + left + right}",
                           "fix: crop less (a negative amount removes that many elements)"))
        kept = max(0, n - max(0, -left) - max(0, -right))
        if max(left, right) > kept and n + left + right > 0:  # (an empty result has no values to get wrong)
            raise StridedRuntimeError(
                join_lines("Padding value causes wrapping around more than once.",
                           f"dim {dim} keeps {kept} of its {n} elements after the crop of padding ({left}, {right}); "
                           f"a wrap of {max(left, right)} would pass all of them (PyTorch reads its own unwritten "
                           "output there: an error or undefined values)",
                           f"fix: padding of at most {kept} on the side opposite the crop"))


def _pad_recorded(input: Tensor, src: list, amounts: list, fill: Any) -> Tensor:
    """``pad`` of an input that requires grad, out of recorded ops (a crop, then ``cat`` with the
    fill on each padded side), so its gradient (and the gradient's) is PyTorch's: the gradient
    of the kept elements, nothing for the filled ones."""
    from ...creation import full
    from .joining import cat

    t = input[tuple(src)]
    for i in range(len(amounts) // 2):
        dim = input.dim() - 1 - i
        left, right = max(0, amounts[2 * i]), max(0, amounts[2 * i + 1])
        if left or right:
            parts = []
            for n in (left, right):
                shape = list(t.shape)
                shape[dim] = n
                parts.append(full(tuple(shape), fill, dtype=input._dtype))
            t = cat([parts[0], t, parts[1]], dim)
    return t if t._base is None else t.clone()
