"""Hypothesis strategy shared by the copy-kernel suites (test_blocked_copies.py,
test_native_copies.py): writable destination views of every order and step."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as hs


@hs.composite
def dest_views(draw: hs.DrawFn, shape: tuple[int, ...], dtype: np.dtype) -> tuple[np.ndarray, Any]:
    """(a zeroed buffer, a function giving the same writable view with ``shape`` of it or of its
    copy): dense in a random order, or stepped (maybe backwards), three elements in."""
    ndim = len(shape)
    perm = draw(hs.permutations(range(ndim)))
    steps = [draw(hs.sampled_from([1, 1, 1, 2, -1])) for _ in range(ndim)]
    big = [shape[d] * abs(steps[d]) for d in range(ndim)]
    buffer = np.zeros(int(np.prod(big)) + 3, dtype)

    def view(buf: np.ndarray) -> np.ndarray:
        dense = buf[3:].reshape([big[d] for d in perm]).transpose(np.argsort(perm))
        return dense[tuple(slice(None, None, s) for s in steps) + (Ellipsis,)]

    return buffer, view
