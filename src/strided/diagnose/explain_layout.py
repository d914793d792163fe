"""``explain(x)`` with no op: a tensor's layout described, for strided, NumPy and PyTorch alike.

:class:`LayoutExplanation` holds the shape, strides (elements), offset, C / F / channels_last
contiguity, the *chunks* (the runs of adjacent dims whose strides chain, so a view may merge
them: PyTorch's ``computeStride`` cuts a layout at the same places), whether any element is
reachable twice (stride 0, overlapping windows), and what it is a view of. ``str()`` prints it.

Example::

    >>> print(explain_layout(strided.zeros(3, 4).t(), "strided"))
    strided: shape (4, 3), strides (1, 4), offset 0, float32 (4 bytes each)
    ...
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .. import layout as L
from ..describe import distinct_locations
from ..layout import Layout, index_span, layout_origin

__all__ = ["Chunk", "LayoutExplanation", "chunks_of", "explain_layout"]

Shape = tuple[int, ...]


@dataclass(frozen=True)
class Chunk:
    """A run of adjacent ``dims`` that walk memory as one evenly strided dim of ``size``
    elements with step ``stride``: a view may merge them (or split them) freely."""

    dims: tuple[int, ...]
    size: int
    stride: int

    def describe(self, shape: Shape) -> str:
        sizes = tuple(shape[d] for d in self.dims)
        if len(self.dims) == 1:
            return f"dim {self.dims[0]} ({sizes[0]}) alone, stride {self.stride}"
        return (f"dims {self.dims[0]}..{self.dims[-1]} {sizes} chain into one run of {self.size} "
                f"with stride {self.stride}")


def chunks_of(shape: Sequence[int], strides: Sequence[int]) -> tuple[Chunk, ...]:
    """The runs of adjacent dims that merge (PyTorch's ``computeStride`` chunks): dims
    ``d-1`` and ``d`` are in one run when ``stride[d-1] == size[d] * stride[d]`` (continued
    through the run) or dim ``d-1`` has size 1; trailing size-1 dims join the last run.

    >>> chunks_of((2, 3, 4), (12, 4, 1))
    (Chunk(dims=(0, 1, 2), size=24, stride=1),)
    """
    shape, strides = tuple(shape), tuple(strides)
    if not shape:
        return ()
    out: list[Chunk] = []
    end = len(shape) - 1
    numel = 1
    base = strides[-1]
    for d in range(len(shape) - 1, -1, -1):
        numel *= shape[d]
        if d == 0 or (shape[d - 1] != 1 and strides[d - 1] != numel * base):
            out.append(Chunk(tuple(range(d, end + 1)), numel, base))
            end = d - 1
            numel = 1
            if d > 0:
                base = strides[d - 1]
    out.reverse()
    if len(out) > 1 and out[-1].size == 1:
        # trailing size-1 dims hold one element: they merge with anything (computeStride lets a
        # chunk of numel 1 through), so they join the chunk before them
        last = out.pop()
        out[-1] = Chunk(out[-1].dims + last.dims, out[-1].size, out[-1].stride)
    return tuple(out)


@dataclass(frozen=True)
class LayoutExplanation:
    """A layout described: see the module docstring. ``repeats`` is True when some element is
    reachable through two indices (None: too many elements to tell); ``distinct`` counts the
    memory locations addressed (None when unknown). ``base`` describes what ``x`` is a view of
    (``"shape (3, 4), strides (4, 1)"``), or is None when ``x`` owns its memory."""

    library: str
    shape: Shape
    strides: Shape
    offset: int
    itemsize: int
    dtype: str
    c_contiguous: bool
    f_contiguous: bool
    channels_last: bool
    chunks: tuple[Chunk, ...]
    repeats: bool | None
    distinct: int | None
    origin: str
    base: str | None
    numel: int

    def __str__(self) -> str:
        lines = [f"{self.library}: shape {self.shape}, strides {self.strides}, offset {self.offset}, "
                 f"{self.dtype} ({self.itemsize} bytes each)"]
        kinds = [k for k, yes in (("C", self.c_contiguous), ("F", self.f_contiguous),
                                  ("channels_last", self.channels_last)) if yes]
        lines.append(f"  contiguous: {', '.join(kinds) if kinds else 'no'} — {self.origin}")
        if self.chunks:
            n = len(self.chunks)
            lines.append(f"  {n} chunk{'s' if n > 1 else ''} (a view can merge dims only within one):")
            lines.extend(f"    {c.describe(self.shape)}" for c in self.chunks)
        if self.repeats is None:
            lines.append(f"  {self.numel} elements; too many to tell whether some share memory")
        elif self.repeats:
            at = f" at {self.distinct} distinct locations" if self.distinct is not None else ""
            lines.append(f"  {self.numel} elements{at}: some are reachable twice (stride 0 or overlap); "
                         "writing into it is refused or ambiguous, a copy materializes every repeat")
        else:
            lines.append(f"  {self.numel} elements, each at its own memory location")
        lines.append(f"  view of: {self.base}" if self.base else "  owns its memory (not a view)")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        """Jupyter's rich display (:func:`strided.diagnose.html.layout_html`)."""
        from .html import layout_html

        return layout_html(self)


def explain_layout(x: Any, library: str) -> LayoutExplanation:
    """The :class:`LayoutExplanation` of a strided Tensor, a numpy.ndarray or a torch.Tensor
    (``library`` says which; nothing is read from the data)."""
    if library == "strided":
        lay = x.layout
        shape, strides, offset = lay.shape, lay.strides, lay.offset
        itemsize, dtype = x.dtype.itemsize, x.dtype.name
        b = x.base
        base = None if b is None else f"a strided tensor of shape {b.shape}, strides {b.stride()}"
    elif library == "torch":
        shape, strides, offset = tuple(x.shape), tuple(x.stride()), x.storage_offset()
        itemsize, dtype = x.element_size(), str(x.dtype).removeprefix("torch.")
        b = x._base
        base = None if b is None else f"a torch tensor of shape {tuple(b.shape)}, strides {tuple(b.stride())}"
    else:
        itemsize, dtype = x.itemsize, x.dtype.name
        shape, strides = x.shape, tuple(s // itemsize for s in x.strides)
        root = x
        while isinstance(getattr(root, "base", None), type(x)):
            root = root.base
        offset = 0
        base = None
        if root is not x:
            offset = (x.__array_interface__["data"][0] - root.__array_interface__["data"][0]) // itemsize
            base = f"a numpy array of shape {root.shape}, strides {tuple(s // itemsize for s in root.strides)}"
        elif x.base is not None:
            base = f"a {type(x.base).__name__} (memory NumPy does not own)"
    numel = L.product(shape)
    lo, _ = index_span([max(n, 1) for n in shape], strides)
    safe = Layout(shape, strides, max(offset, -lo))  # (NumPy's offsets may sit before the root)
    distinct = distinct_locations(safe)
    overlap = L.overlaps(shape, strides)
    repeats = None if overlap is None and distinct is None else bool(overlap) or (
        distinct is not None and distinct < numel)
    return LayoutExplanation(
        library=library, shape=shape, strides=strides, offset=offset, itemsize=itemsize, dtype=dtype,
        c_contiguous=L.is_contiguous(shape, strides), f_contiguous=L.is_f_contiguous(shape, strides),
        channels_last=len(shape) == 4 and L.is_channels_last_contiguous(shape, strides),
        chunks=chunks_of(shape, strides), repeats=repeats, distinct=distinct,
        origin=layout_origin(safe), base=base, numel=numel,
    )
