"""One-call summaries of a tensor's layout, in words a learner can follow."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import layout as L

if TYPE_CHECKING:
    from .tensor import Tensor


def layout_origin(lay: L.Layout) -> str:
    """A short guess at how a layout arose, e.g. "the transpose of a contiguous (3, 4)"."""
    shape, strides = lay.shape, lay.strides
    if L.is_contiguous(shape, strides):
        return "contiguous"
    if any(n > 1 and s == 0 for n, s in zip(shape, strides)):
        dims = [d for d, (n, s) in enumerate(zip(shape, strides)) if n > 1 and s == 0]
        return f"expanded along dim{'s' if len(dims) > 1 else ''} {', '.join(map(str, dims))} (stride 0)"
    if any(s < 0 for s in strides):
        return "walks some dims backwards (negative strides)"
    order = sorted(range(len(shape)), key=lambda d: -abs(strides[d]))
    permuted = tuple(shape[d] for d in order)
    if L.is_contiguous(permuted, tuple(strides[d] for d in order)):
        inverse = tuple(order.index(d) for d in range(len(shape)))
        if len(shape) == 2:
            return f"the transpose of a contiguous {permuted}"
        return f"a permute{inverse} of a contiguous {permuted}"
    return "strided with gaps (a slice or step of a larger tensor)"


def describe(t: Tensor) -> str:
    """Shape, strides, offset, contiguity and what the tensor is a view of, on a few lines."""
    lay = t.layout
    lines = [
        f"shape {lay.shape}, strides {lay.strides}, storage offset {lay.offset}, dtype {t.dtype.name}",
        f"contiguous: {'yes' if t.is_contiguous() else 'no'} ({layout_origin(lay)})",
        f"storage: {t.untyped_storage().size()} elements ({t.untyped_storage().nbytes()} bytes); "
        f"this tensor addresses {t.numel()} of them",
    ]
    if t.base is not None:
        lines.append(
            f"view of a tensor with shape {t.base.shape}, strides {t.base.stride()} (shares its memory)"
        )
    else:
        lines.append("owns its storage (not a view)")
    return "\n".join(lines)
