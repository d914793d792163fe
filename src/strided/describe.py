"""One-call summaries of a tensor's layout, in words a learner can follow.

The first module of the diagnostics layer, above ``tensor``: it imports only from below
(``layout``, ``tensor``) and installs :func:`describe` as ``Tensor.describe`` when imported
(``strided/__init__`` imports it), so ``tensor`` never imports upward.
"""

from __future__ import annotations

import numpy as np

from .layout import Layout, layout_origin, nests, product
from .tensor import Tensor

__all__ = ["describe", "layout_origin"]  # layout_origin lives in layout (pure); re-exported here


def describe(t: Tensor) -> str:
    """Shape, strides, offset, contiguity and what the tensor is a view of, on a few lines.

    Installed as ``Tensor.describe``: ``t.describe()`` is ``describe(t)``. Example, for
    ``strided.zeros(3, 4).t()``: ``shape (4, 3), strides (1, 4), storage offset 0, dtype float32``
    on its first line, then contiguity, storage and base.

    >>> print(strided.zeros(2, 3).t().describe())
    shape (3, 2), strides (1, 3), storage offset 0, dtype float32
    contiguous: no (the transpose of a contiguous (2, 3))
    ...
    """
    lay = t.layout
    lines = [
        f"shape {lay.shape}, strides {lay.strides}, storage offset {lay.offset}, dtype {t.dtype.name}",
        f"contiguous: {'yes' if t.is_contiguous() else 'no'} ({layout_origin(lay)})",
        f"storage: {t.untyped_storage().nbytes() // t.itemsize} elements ({t.untyped_storage().nbytes()} bytes); "
        + _addressed(lay),
    ]
    if t.base is not None:
        lines.append(
            f"view of a tensor with shape {t.base.shape}, strides {t.base.stride()} (shares its memory)"
        )
    else:
        lines.append("owns its storage (not a view)")
    return "\n".join(lines)


def _addressed(lay: Layout) -> str:
    """How many elements the layout names, and at how many memory locations when that differs."""
    numel = lay.numel
    distinct = distinct_locations(lay)
    if distinct is None:
        return f"this tensor names {numel} elements; some share memory locations (overlapping strides)"
    if distinct < numel:
        return (
            f"this tensor names {numel} elements at {distinct} distinct locations "
            "(stride-0 or overlapping dims repeat them)"
        )
    return f"this tensor addresses {numel} of them"


def distinct_locations(lay: Layout, limit: int = 1 << 20) -> int | None:
    """How many distinct storage elements the layout touches (None if too large to count).

    Dims with stride 0 repeat elements; when the remaining dims nest without
    overlap (each stride reaches past everything the smaller strides span) the
    count is their product. Otherwise the offsets are enumerated, up to ``limit``.
    """
    if lay.numel == 0:
        return 0
    dims = sorted((abs(st), n) for n, st in zip(lay.shape, lay.strides) if n > 1 and st != 0)
    if nests(dims):
        return product([n for _, n in dims])
    if lay.numel > limit:
        return None
    offsets = np.zeros((), dtype=np.int64)
    for stride, size in dims:
        offsets = np.add.outer(offsets, np.arange(size, dtype=np.int64) * stride).ravel()
    return int(np.unique(offsets).size)


Tensor.describe = describe  # type: ignore[method-assign]  (installed from above: see the module docstring)
