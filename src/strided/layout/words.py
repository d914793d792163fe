"""A layout described in words for people (used by view errors and ``describe``)."""

from __future__ import annotations

from .core import Layout, is_contiguous, overlaps


def layout_origin(lay: Layout) -> str:
    """A short guess at how a layout arose, e.g. "the transpose of a contiguous (3, 4)".

    Pure (no data): used by view errors (:mod:`strided.tensor`) and by
    :func:`strided.describe.describe`.
    """
    shape, strides = lay.shape, lay.strides
    if is_contiguous(shape, strides):
        return "contiguous"
    if any(n > 1 and s == 0 for n, s in zip(shape, strides)):
        dims = [d for d, (n, s) in enumerate(zip(shape, strides)) if n > 1 and s == 0]
        return f"expanded along dim{'s' if len(dims) > 1 else ''} {', '.join(map(str, dims))} with stride 0"
    overlap = overlaps(shape, strides)
    if overlap:
        return (
            "overlapping: some elements share memory locations (as the windows of an unfold "
            "with step < size, or an as_strided view, do)"
        )
    if any(s < 0 for s in strides):
        return "walks some dims backwards with negative strides"
    order = sorted(range(len(shape)), key=lambda d: -abs(strides[d]))
    permuted = tuple(shape[d] for d in order)
    if is_contiguous(permuted, tuple(strides[d] for d in order)):
        inverse = tuple(order.index(d) for d in range(len(shape)))
        if len(shape) == 2:
            return f"the transpose of a contiguous {permuted}"
        return f"a permute{inverse} of a contiguous {permuted}"
    if overlap is None:
        return "strided: too many elements to tell whether some share memory locations"
    return "strided with gaps (a slice or step of a larger tensor)"
