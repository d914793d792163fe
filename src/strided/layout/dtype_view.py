"""Layouts over the same bytes read as another dtype: ``view(dtype)``, ``real``/``imag``,
``view_as_real`` and ``view_as_complex``, with PyTorch's rules. Pure: layouts and itemsizes in,
a new :class:`Layout` or a :class:`DtypeViewRefusal` out (no data, no dtype objects).

PyTorch's ``view(dtype)`` (``aten/src/ATen/native/TensorConversions.cpp``, ``view_dtype``):

- same element size: the layout is unchanged, whatever it is;
- a different size: the tensor must have dims, its last dim stride 1 (even a size-1 last dim). Read as a smaller
  element (float32 -> int16, ratio 2) the last size, the other strides and the offset are
  multiplied by the ratio; read as a larger one (float32 -> float64) the last size, the offset
  and every other stride must divide by it, and are divided.

``real``/``imag`` of a complex layout is the float layout of its parts: strides doubled,
offset doubled (+1 for ``imag``); ``view_as_real`` adds a last dim of size 2, stride 1;
``view_as_complex`` undoes it (last dim size 2 stride 1, the other strides and the offset even).

>>> view_dtype_layout(Layout((2, 4), (4, 1), 0), 4, 8, "Float", "Double")
Layout(shape=(2, 2), strides=(2, 1), offset=0)
"""

from __future__ import annotations

from dataclasses import dataclass

from .core import Layout


@dataclass(frozen=True)
class DtypeViewRefusal:
    """Why the bytes cannot be read as the new dtype with a view: PyTorch's first line and why."""

    first: str  # PyTorch's RuntimeError text, e.g. "self.stride(-1) must be 1 to view Float as Short ..."
    why: str  # the rule that failed, in words
    check: str = ""  # which: "dim", "size", "offset" or "stride" (view(dtype)); picks the fix

    def reason(self) -> str:
        return f"{self.first}\n{self.why}"


def view_dtype_layout(layout: Layout, old_itemsize: int, new_itemsize: int, old_name: str,
                      new_name: str) -> Layout | DtypeViewRefusal:
    """The layout of ``view(dtype)`` (element sizes in bytes; names as PyTorch prints them, "Float"),
    or the refusal PyTorch raises."""
    if new_itemsize == old_itemsize:
        return layout
    shape, strides, offset = list(layout.shape), list(layout.strides), layout.offset
    what = f"to view {old_name} as {new_name} (different element sizes)"
    if not shape:
        return DtypeViewRefusal(f"self.dim() cannot be 0 {what}", "a 0-d tensor has no last dim to rescale",
                                "dim")
    # (PyTorch's order of checks: downsizing asks for stride(-1) == 1 first; upsizing for the last
    # size, then the offset, then stride(-1), then the other strides)
    stride_one = DtypeViewRefusal(f"self.stride(-1) must be 1 {what}, but got {strides[-1]}",
                                  "the bytes of one new element must lie side by side along the last dim",
                                  "stride")
    if old_itemsize > new_itemsize:
        if strides[-1] != 1:
            return stride_one
        ratio = old_itemsize // new_itemsize
        strides = [st * ratio for st in strides[:-1]] + [1]
        shape[-1] *= ratio
        offset *= ratio
    else:
        ratio = new_itemsize // old_itemsize
        if shape[-1] % ratio:
            return DtypeViewRefusal(f"self.size(-1) must be divisible by {ratio} {what}, but got {shape[-1]}",
                                    f"{ratio} old elements make one new one", "size")
        if offset % ratio:
            return DtypeViewRefusal(f"self.storage_offset() must be divisible by {ratio} {what}, but got {offset}",
                                    "the first element must start on a new element's boundary", "offset")
        if strides[-1] != 1:
            return stride_one
        for i, st in enumerate(strides[:-1]):
            if st % ratio:
                return DtypeViewRefusal(f"self.stride({i}) must be divisible by {ratio} {what}, but got {st}",
                                        "every step must land on a new element's boundary", "stride")
        strides = [st // ratio for st in strides[:-1]] + [1]
        shape[-1] //= ratio
        offset //= ratio
    return Layout(tuple(shape), tuple(strides), offset)


def part_layout(layout: Layout, imag: bool) -> Layout:
    """The float layout of a complex layout's real (or imaginary) parts: strides and offset
    doubled, +1 for the imaginary part (PyTorch's ``real``/``imag``)."""
    return Layout(layout.shape, tuple(2 * s for s in layout.strides), 2 * layout.offset + (1 if imag else 0))


def as_real_layout(layout: Layout) -> Layout:
    """``view_as_real``: the parts as a trailing dim of size 2, stride 1."""
    return Layout((*layout.shape, 2), (*(2 * s for s in layout.strides), 1), 2 * layout.offset)


def as_complex_layout(layout: Layout) -> Layout | DtypeViewRefusal:
    """``view_as_complex``: drop a trailing (2,) stride-1 dim and halve the rest, or PyTorch's refusal."""
    shape, strides = layout.shape, layout.strides
    if not shape:
        return DtypeViewRefusal("Input tensor must have one or more dimensions",
                                "the tensor is 0-d; its last dim must hold (real, imaginary) pairs")
    if shape[-1] != 2:
        return DtypeViewRefusal("Tensor must have a last dimension of size 2",
                                f"the last dim has size {shape[-1]}; it must hold (real, imaginary) pairs")
    if strides[-1] != 1:
        return DtypeViewRefusal("Tensor must have a last dimension with stride 1",
                                f"the last dim has stride {strides[-1]}; a pair must be two adjacent elements")
    odd = [i for i, s in enumerate(strides[:-1]) if s % 2]
    if odd:
        return DtypeViewRefusal("Tensor must have a stride divisible by 2 for all but last dimension",
                                f"stride({odd[0]}) is {strides[odd[0]]}; every pair must start on a "
                                "complex element's boundary")
    if layout.offset % 2:
        return DtypeViewRefusal("Tensor must have a storage_offset divisible by 2",
                                f"the offset is {layout.offset}; the first pair must start on a complex "
                                "element's boundary")
    return Layout(shape[:-1], tuple(s // 2 for s in strides[:-1]), layout.offset // 2)
