"""Hypothesis strategies for hard layouts, torch-free (the layout-level suites use them alone;
``layouts.py`` builds them in PyTorch, NumPy and strided).

A layout spec is (storage_size, shape, strides, offset) in elements.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as hs

from strided.layout import contiguous_strides, index_span


@dataclass(frozen=True)
class Spec:
    storage_size: int
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    offset: int

    @property
    def has_negative(self) -> bool:
        return any(s < 0 for s in self.strides)

    def __iter__(self):
        """``size, shape, strides, offset = spec``."""
        return iter((self.storage_size, self.shape, self.strides, self.offset))


@hs.composite
def specs(draw, min_dims: int = 0, max_dims: int = 4, max_size: int = 5, negative: bool = False,
          shape: tuple[int, ...] | None = None, expand: bool = True) -> Spec:
    """Layouts that favour the hard cases: permuted, stepped, expanded (stride 0; unless not
    ``expand``), size-1 dims with odd strides, zero-size dims, 0-d, and (if ``negative``) negative
    steps. ``shape``, when given, fixes the shape and only the layout is drawn."""
    if shape is None:
        ndim = draw(hs.integers(min_dims, max_dims))
        shape = tuple(
            draw(hs.one_of(hs.just(1), hs.just(0), hs.integers(1, max_size), hs.integers(2, max_size)))
            for _ in range(ndim)
        )
    ndim = len(shape)
    steps = [draw(hs.sampled_from([1, 1, 1, 2, 3])) for _ in range(ndim)]
    pads = [draw(hs.sampled_from([0, 0, 1])) for _ in range(ndim)]
    parent = tuple(max(s, 1) * k + p for s, k, p in zip(shape, steps, pads))
    base = contiguous_strides(parent)
    perm = draw(hs.permutations(range(ndim))) if ndim else []
    strides = [base[perm[d]] * steps[d] for d in range(ndim)]
    for d in range(ndim):
        kind = draw(hs.sampled_from(["keep", "keep", "keep", "expand", "odd1", "neg"]))
        if kind == "expand" and expand:
            strides[d] = 0
        elif kind == "odd1" and shape[d] == 1:
            strides[d] = draw(hs.integers(0, 7))
        elif kind == "neg" and negative:
            strides[d] = -strides[d]
    # the offset keeps every index of the frame (a size-0 dim counted as size 1) at or past the
    # storage's start, as Layout's invariant asks; the storage holds the elements addressed
    lo, _ = index_span([max(n, 1) for n in shape], strides)
    _, hi = index_span(shape, strides)
    offset = -lo + draw(hs.integers(0, 3))
    storage_size = hi + offset + draw(hs.integers(0, 2))
    return Spec(storage_size, shape, tuple(strides), offset)
