"""The picture as plain data: logical grids, the storage strip, captions; no drawing.

A :class:`Panel` pictures one layout over one storage:

- ``grids``: the logical grid as 2-D slices (1-D: one row; 0-d: one cell; 3-D and more: one
  slice per leading index, labelled ``[i, j, :, :]``), each :class:`GridCell` holding the
  element's index, value and storage offset;
- ``strip``: one :class:`StripCell` per storage element in the range the layout touches, with
  the logical indices that read it (``count`` 0: skipped by a step or a transpose's other half;
  more than 1: read twice, by a stride-0 dim or overlapping windows);
- ``caption``: shape, strides, offset, contiguity (C / F / channels_last / none), what it is a
  view of — in the words of :mod:`strided.diagnose.explain_layout` and ``layout_origin``.

Large layouts are elided: at most :data:`MAX_SIDE` rows and columns per slice (first and last
ones around an ellipsis), :data:`MAX_SLICES` slices, :data:`MAX_STRIP` storage cells, so a
panel never holds more than a few hundred cells whatever the size. ``None`` stands for an
ellipsis wherever a cell, a row label or a slice may be.

Colours tie a logical cell to the storage cell it reads: a cell's ``rank`` is its storage
offset's place in the panel's colour range (by default the range the layout touches) scaled to
0..1, and :func:`colour_of` turns a rank into one fill colour. So the strip is painted as one
smooth run, and the grid shows the order memory walks it in (row by row when contiguous, column
by column for a transpose, one colour along a stride-0 dim); a view drawn with its input's range
keeps every element's colour.
"""

from __future__ import annotations

import colorsys
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ... import layout as L
from ...layout import Layout, index_span, layout_origin

__all__ = [
    "MAX_SIDE", "MAX_SLICES", "MAX_STRIP", "GridCell", "Grid", "StripCell", "Strip", "Panel",
    "Scene", "build_panel", "caption_lines", "colour_of", "elide", "index_label", "readers_at",
]

MAX_SIDE = 12  # rows or columns per slice before eliding to 4 first + … + 4 last
EDGE = 4
MAX_SLICES = 4  # 2-D slices of a 3-D+ layout before eliding to 2 first + … + 1 last
MAX_STRIP = 24  # storage cells before eliding to 12 first + … + 12 last
READERS_SHOWN = 3  # indices kept per storage cell (the count says how many there are)
ENUMERATE_LIMIT = 1 << 18  # non-nesting layouts up to this size have their readers listed

Index = tuple[int, ...]


@dataclass(frozen=True)
class GridCell:
    """A shown element: its ``index``, ``value`` text, storage ``offset`` and colour ``rank``;
    ``origin``: for a copy's result, the offset in the input's storage it was copied from."""

    index: Index
    value: str
    offset: int
    rank: float
    origin: int | None = None


@dataclass(frozen=True)
class Grid:
    """One 2-D slice. ``label``: ``"[1, :, :]"`` for a slice of a 3-D+ layout, else ``""``;
    ``row_labels`` / ``col_labels``: the indices shown (``None``: the ellipsis);
    ``cells[r][c]`` is None on an ellipsis row or column."""

    label: str
    row_labels: tuple[int | None, ...]
    col_labels: tuple[int | None, ...]
    cells: tuple[tuple[GridCell | None, ...], ...]


@dataclass(frozen=True)
class StripCell:
    """One storage element at ``offset`` (None: the ellipsis). ``readers``: the first few
    logical indices that read it (C order); ``count``: how many do (None: too many to tell);
    ``rank``: its colour rank (None when no index reads it); ``origin``: for a copy's new
    storage, the offset in the input's storage its element was copied from."""

    offset: int | None
    value: str
    readers: tuple[Index, ...]
    count: int | None
    rank: float | None
    origin: int | None = None

    @property
    def skipped(self) -> bool:
        return self.count == 0

    @property
    def repeated(self) -> bool:
        return self.count is not None and self.count > 1


@dataclass(frozen=True)
class Strip:
    """The storage range ``lo..hi`` (inclusive) the layout touches, as cells (empty when it
    touches nothing), and ``label``, a few words on what storage it is."""

    lo: int
    hi: int
    cells: tuple[StripCell, ...]
    label: str

    @property
    def length(self) -> int:
        return self.hi - self.lo + 1 if self.cells else 0


@dataclass(frozen=True)
class Panel:
    """One layout over one storage: see the module docstring. ``empty`` says why there is no
    grid (a zero-size layout), else it is None."""

    title: str
    caption: tuple[str, ...]
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    offset: int
    grids: tuple[Grid | None, ...]
    strip: Strip
    empty: str | None = None

    @property
    def cell_count(self) -> int:
        grid = sum(len(r) for g in self.grids if g is not None for r in g.cells)
        return grid + len(self.strip.cells)


# ---------------------------------------------------------------- small pieces


def elide(n: int, limit: int = MAX_SIDE, head: int = EDGE, tail: int = EDGE) -> list[int | None]:
    """``range(n)`` when ``n <= limit``, else its ``head`` first and ``tail`` last with a None
    (the ellipsis) between: ``elide(1000, 8, 3, 3) == [0, 1, 2, None, 997, 998, 999]``."""
    if n <= limit:
        return list(range(n))
    return [*range(head), None, *range(n - tail, n)]


def index_label(index: Sequence[int]) -> str:
    """``"1,2"`` for a 2-D index, ``"3"`` for 1-D, ``"()"`` for the 0-d element."""
    return ",".join(map(str, index)) if len(index) else "()"


def colour_of(rank: float) -> str:
    """A pale fill colour (``"#rrggbb"``) for a rank in 0..1: red through yellow, green and blue
    to violet along C order, light enough to carry black text."""
    r, g, b = colorsys.hls_to_rgb(0.82 * min(max(rank, 0.0), 1.0), 0.80, 0.70)
    return f"#{round(r * 255):02x}{round(g * 255):02x}{round(b * 255):02x}"


def _rank(offset: int, lo: int, hi: int) -> float:
    return 0.0 if hi <= lo else min(max((offset - lo) / (hi - lo), 0.0), 1.0)


# ---------------------------------------------------------------- who reads a storage element


def readers_at(shape: Sequence[int], strides: Sequence[int], offset: int,
               targets: Sequence[int]) -> dict[int, tuple[int | None, tuple[Index, ...]]]:
    """For each storage offset in ``targets``: (how many indices of the layout read it — None
    when too many to tell —, the first :data:`READERS_SHOWN` of them in C order).

    Dims of stride 0 multiply the readers; the other dims, when they nest (each stride steps
    past what the smaller ones span: ``strided.layout.nests``), decompose an offset in one way
    only, found greedily; layouts that do not nest (overlapping windows) are listed, up to
    :data:`ENUMERATE_LIMIT` elements.

    >>> readers_at((2, 3), (0, 1), 0, [1])
    {1: (2, ((0, 1), (1, 1)))}
    """
    shape, strides = tuple(shape), tuple(strides)
    if 0 in shape:
        return {k: (0, ()) for k in targets}
    zero = [d for d, (n, s) in enumerate(zip(shape, strides)) if n > 1 and s == 0]
    moving = [d for d, (n, s) in enumerate(zip(shape, strides)) if n > 1 and s != 0]
    repeat = int(np.prod([shape[d] for d in zero], dtype=np.int64)) if zero else 1
    found: dict[int, tuple[int | None, list[Index]]] = {}
    nested = L.nests(sorted((abs(strides[d]), shape[d]) for d in moving))
    moving_numel = int(np.prod([shape[d] for d in moving], dtype=np.int64)) if moving else 1
    if nested:
        # walk the dims from the largest |stride|: a negative stride counts from its far end
        base = offset + sum((shape[d] - 1) * strides[d] for d in moving if strides[d] < 0)
        order = sorted(moving, key=lambda d: -abs(strides[d]))
        for k in targets:
            rest, index = k - base, [0] * len(shape)
            ok = rest >= 0
            for d in order:
                if not ok:
                    break
                j, rest = divmod(rest, abs(strides[d]))
                ok = j < shape[d]
                index[d] = j if strides[d] > 0 else shape[d] - 1 - j
            ok = ok and rest == 0
            found[k] = (1, [tuple(index)]) if ok else (0, [])
    elif moving_numel <= ENUMERATE_LIMIT:
        offs = np.full((), offset, dtype=np.int64)
        for d in moving:
            offs = np.add.outer(offs, np.arange(shape[d], dtype=np.int64) * strides[d])
        flat = offs.ravel()
        msizes = [shape[d] for d in moving]
        for k in targets:
            hits = np.flatnonzero(flat == k)
            picks = []
            for h in hits[:READERS_SHOWN]:
                index = [0] * len(shape)
                for d, i in zip(moving, np.unravel_index(int(h), msizes) if msizes else ()):
                    index[d] = int(i)
                picks.append(tuple(index))
            found[k] = (int(hits.size), picks)
    else:
        return {k: (None, ()) for k in targets}
    out: dict[int, tuple[int | None, tuple[Index, ...]]] = {}
    for k, (count, picks) in found.items():
        if not count:
            out[k] = (0, ())
            continue
        # each reader repeats along the stride-0 dims; C order puts those with zeros there first
        expanded = []
        for pick in picks:
            # product() materializes its ranges: cap each at READERS_SHOWN, which keeps the first
            # READERS_SHOWN combos in C order the same (no coordinate of them reaches that value)
            combos = itertools.product(*(range(min(shape[d], READERS_SHOWN)) for d in zero))
            for combo in itertools.islice(combos, READERS_SHOWN):
                index = list(pick)
                for d, i in zip(zero, combo):
                    index[d] = i
                expanded.append(tuple(index))
        expanded.sort()
        out[k] = (count * repeat, tuple(expanded[:READERS_SHOWN]))
    return out


# ---------------------------------------------------------------- caption


def caption_lines(shape: Sequence[int], strides: Sequence[int], offset: int, dtype: str, itemsize: int,
                  base: str) -> tuple[str, ...]:
    """The caption: shape, strides, offset and dtype; contiguity (C / F / channels_last / none)
    with ``layout_origin``'s words; ``base`` (what the layout is a view of, or whose storage)."""
    shape, strides = tuple(shape), tuple(strides)
    kinds = [k for k, yes in (("C", L.is_contiguous(shape, strides)), ("F", L.is_f_contiguous(shape, strides)),
                              ("channels_last", len(shape) == 4 and L.is_channels_last_contiguous(shape, strides)))
             if yes]
    lo, _ = index_span([max(n, 1) for n in shape], strides)
    origin = layout_origin(Layout(shape, strides, max(offset, -lo)))
    return (
        f"shape {shape}, strides {strides}, offset {offset}, {dtype} ({itemsize} byte{'' if itemsize == 1 else 's'} each)",
        f"contiguous: {', '.join(kinds) if kinds else 'none'} — {origin}",
        base,
    )


# ---------------------------------------------------------------- the panel


def build_panel(title: str, shape: Sequence[int], strides: Sequence[int], offset: int,
                caption: Sequence[str], value_of: Callable[[Index], str],
                storage_value: Callable[[int], str] | None, storage_label: str,
                colour_range: tuple[int, int] | None = None,
                origin_of: Callable[[Index], int | None] | None = None) -> Panel:
    """The :class:`Panel` of the layout ``(shape, strides, offset)``.

    ``value_of(index)`` gives a shown element's text; ``storage_value(k)`` the text of storage
    element ``k`` (None: a strip cell shows its first reader's value, "?" when nobody reads it).
    ``colour_range``: the storage offsets (first, last) the colours run over (default: the
    range this layout touches). ``origin_of(index)``: for a copy's result, the offset in the
    input's storage the element came from; the cell then takes that storage cell's colour (with
    ``colour_range`` the input's), so a copy shows where it put each element. Only the shown
    cells are read.
    """
    shape, strides = tuple(int(n) for n in shape), tuple(int(s) for s in strides)
    numel = int(np.prod(shape, dtype=np.int64)) if shape else 1

    def offset_of(index: Index) -> int:
        return offset + sum(i * s for i, s in zip(index, strides))

    lo_rel, hi_rel = index_span(shape, strides)
    lo, hi = colour_range if colour_range is not None else (offset + lo_rel, offset + hi_rel - 1)

    def key(index: Index) -> tuple[int, int | None]:
        """(the offset the colour comes from, the origin when known)"""
        origin = origin_of(index) if origin_of is not None else None
        return (offset_of(index) if origin is None else origin), origin

    def cell(index: Index) -> GridCell:
        k, origin = key(index)
        return GridCell(index, value_of(index), offset_of(index), _rank(k, lo, hi), origin)

    if numel == 0:
        return Panel(title, tuple(caption), shape, strides, offset, (),
                     Strip(0, -1, (), storage_label),
                     empty=f"no elements: shape {shape} holds none, so it reads no storage")
    ndim = len(shape)
    grids: list[Grid | None] = []
    if ndim <= 2:
        grids.append(_grid("", (), shape, cell))
    else:
        lead_shape = shape[:-2]
        for flat in elide(int(np.prod(lead_shape)), MAX_SLICES, 2, 1):
            if flat is None:
                grids.append(None)
                continue
            lead = tuple(int(i) for i in np.unravel_index(flat, lead_shape))
            label = "[" + ", ".join([*map(str, lead), ":", ":"]) + "]"
            grids.append(_grid(label, lead, shape, cell))
    return Panel(title, tuple(caption), shape, strides, offset, tuple(grids),
                 _strip(shape, strides, offset, value_of, storage_value, storage_label,
                        lambda index: _rank(key(index)[0], lo, hi), lambda index: key(index)[1]))


def _grid(label: str, lead: Index, shape: Index, cell: Callable[[Index], GridCell]) -> Grid:
    ndim = len(shape)
    rows = elide(shape[-2]) if ndim >= 2 else [0]
    cols = elide(shape[-1]) if ndim >= 1 else [0]

    def at(r: int, c: int) -> Index:
        return (*lead, r, c) if ndim >= 2 else ((c,) if ndim == 1 else ())

    cells = tuple(tuple(None if r is None or c is None else cell(at(r, c)) for c in cols) for r in rows)
    return Grid(label, tuple(rows) if ndim >= 2 else (), tuple(cols) if ndim >= 1 else (), cells)


def _strip(shape: Index, strides: Index, offset: int, value_of: Callable[[Index], str],
           storage_value: Callable[[int], str] | None, label: str, rank_of: Callable[[Index], float],
           origin_of: Callable[[Index], int | None]) -> Strip:
    lo_rel, hi_rel = index_span(shape, strides)
    lo, hi = offset + lo_rel, offset + hi_rel - 1
    shown = [None if i is None else lo + i for i in elide(hi - lo + 1, MAX_STRIP, MAX_STRIP // 2, MAX_STRIP // 2)]
    who = readers_at(shape, strides, offset, [k for k in shown if k is not None])
    cells = []
    for k in shown:
        if k is None:
            cells.append(StripCell(None, "…", (), None, None))
            continue
        count, readers = who[k]
        if storage_value is not None:
            value = storage_value(k)
        else:
            value = value_of(readers[0]) if readers else "?"
        # the colour of the first reader: a storage cell and the logical cells reading it match
        rank = rank_of(readers[0]) if readers else (None if count == 0 else 0.0)
        cells.append(StripCell(k, value, readers, count, rank, origin_of(readers[0]) if readers else None))
    return Strip(lo, hi, tuple(cells), label)


@dataclass(frozen=True)
class Scene:
    """What one ``draw`` call pictures: ``header`` lines (for an op: the call, view or copy and
    why, in ``explain``'s words), the ``panels`` side by side (before, after), and ``aside``:
    lines standing in place of an "after" panel that cannot be drawn (a predicted error)."""

    header: tuple[str, ...]
    panels: tuple[Panel, ...]
    aside: tuple[str, ...] = ()

    @property
    def cell_count(self) -> int:
        return sum(p.cell_count for p in self.panels)
