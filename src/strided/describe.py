"""One-call summaries of a tensor's layout, in words a learner can follow.

A diagnostic layer above ``tensor``: it imports only from below (``layout``; ``Tensor``
for type hints only), so ``tensor`` never needs it except lazily in ``Tensor.describe``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .layout import layout_origin

__all__ = ["describe", "layout_origin"]  # layout_origin lives in layout (pure); re-exported here

if TYPE_CHECKING:
    from .tensor import Tensor


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
