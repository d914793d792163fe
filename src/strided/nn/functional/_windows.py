"""What convolution and pooling share: the output size of a window sweep, and the input's windows
as ONE strided view.

A sweep of a ``k``-wide window every ``s`` elements (``d`` apart inside the window) over ``n``
elements reads, for output ``o`` and window offset ``i``, the element ``o * s + i * d``: a layout
with stride ``s * stride`` for the output dim and ``d * stride`` for the window dim, over the
same storage. No element is copied (the im2col matrix is never built); a window read twice is
read twice from the same memory.

>>> x = np.arange(5.0)
>>> window_view(x, (2,), (3,), (2,), (1,)).tolist()  # windows of 3, every 2 elements
[[0.0, 1.0, 2.0], [2.0, 3.0, 4.0]]
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided

__all__ = ["out_size", "window_view"]


def out_size(n: int, k: int, s: int, p: int, d: int, ceil_mode: bool = False) -> int:
    """The number of windows of ``k`` taps ``d`` apart, every ``s`` elements, over ``n`` elements
    padded by ``p`` on each side (PyTorch's pooling_output_shape with ``ceil_mode``: a last
    partial window counts when it starts inside the input or the left padding).

    >>> out_size(5, 3, 1, 0, 1), out_size(5, 2, 2, 0, 1), out_size(5, 2, 2, 0, 1, ceil_mode=True)
    (3, 2, 3)
    """
    span = d * (k - 1) + 1
    num = n + 2 * p - span + ((s - 1) if ceil_mode else 0)
    o = num // s + 1
    if ceil_mode and (o - 1) * s >= n + p:
        o -= 1
    return o


def window_view(x: np.ndarray, out: tuple[int, ...], kernel: tuple[int, ...], stride: tuple[int, ...],
                dilation: tuple[int, ...]) -> np.ndarray:
    """The windows of the last ``len(kernel)`` dims of ``x`` as one view: shape
    ``(*lead, *out, *kernel)``, no element copied (read-only: windows overlap)."""
    k = len(kernel)
    lead, lead_strides = x.shape[:-k], x.strides[:-k]
    sp = x.strides[x.ndim - k:]
    shape = lead + tuple(out) + tuple(kernel)
    strides = lead_strides + tuple(a * s for a, s in zip(sp, stride)) + tuple(a * d for a, d in zip(sp, dilation))
    return as_strided(x, shape, strides, writeable=False)
