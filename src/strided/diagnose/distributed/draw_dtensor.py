"""``strided.draw(dt)`` for a DTensor: the global grid coloured by owning rank, each rank's local
storage strip, the placements as caption — a :class:`~strided.diagnose.pictures.model.Scene`,
drawn by the same text / SVG / terminal renderers as every other picture.

- the global grid: each cell names the ranks that hold it (``r0``; ``r0,1`` when replicated
  over a mesh dim; ``P`` in front when the ranks hold partial values, whose sum is the element)
  and takes the colour of its first owner; ``@k`` is the element's row-major place in the
  global tensor;
- a panel per rank: its local layout (shape, strides, storage offset) over its local storage;
  each element shows the global index it holds (:mod:`.ownership`: PyTorch's own split).

``draw(dt, op, *args)`` pictures the *result* of ``op`` as ``explain`` predicts it (no collective
runs, no data: the cells hold global indices), with explain's verdict on top.
"""

from __future__ import annotations

from typing import Any

from ..pictures.model import (
    Grid,
    GridCell,
    Panel,
    Scene,
    Strip,
    build_panel,
    caption_lines,
    elide,
    index_label,
)
from .explain_dtensor import DTensorExplanation, RankLayout, explain_dtensor
from .ownership import Ownership, ownership
from .words import spell_placements

__all__ = ["dtensor_scene"]

MAX_RANK_PANELS = 4


def _contiguous(shape: tuple[int, ...]) -> tuple[int, ...]:
    strides, step = [], 1
    for s in reversed(shape):
        strides.append(step)
        step *= max(s, 1)
    return tuple(reversed(strides))


def _unravel(flat: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    out = []
    for s in reversed(shape):
        out.append(flat % s)
        flat //= s
    return tuple(reversed(out))


def _owner_label(own: Ownership, flat: int, rank_of: dict[tuple[int, ...], int]) -> tuple[str, float]:
    ranks = sorted(rank_of[c] for c in own.owners[flat])
    top = max(rank_of.values()) or 1
    label = ("P" if own.partial_dims else "") + "r" + ",".join(map(str, ranks))
    return label, ranks[0] / top


# a Partial's reduce op -> what the true value is, in words (PyTorch's Partial reduce ops)
_REDUCED = {"sum": "summed over those ranks", "avg": "the true value is the average over those ranks",
            "max": "the true value is the max over those ranks", "min": "the true value is the min over those ranks"}


def _partial_legend(placements: tuple) -> str:
    """The legend's words for the P mark: how the partial values make the true one, per reduce op
    (a Partial("max") is not a sum); empty without a Partial."""
    ops = sorted({str(p.reduce_op) for p in placements if getattr(p, "is_partial", lambda: False)()})
    if not ops:
        return ""
    return "; P: partial values, " + " / ".join(_REDUCED.get(op, f"reduced by {op} over those ranks") for op in ops)


def _global_panel(r: DTensorExplanation, own: Ownership, rank_of: dict[tuple[int, ...], int]) -> Panel:
    shape = r.shape or ()
    strides = _contiguous(shape)
    caption = (f"global shape {shape}, placements {spell_placements(r.placements or ())} on mesh {r.mesh_shape}",
               "each cell: the ranks holding it (r0,1: replicated" + _partial_legend(r.placements or ()) + ")",
               "@k: the element's row-major place in the global tensor; colour: its first owner")

    def cell(index: tuple[int, ...]) -> GridCell:
        flat = sum(i * s for i, s in zip(index, strides))
        label, colour = _owner_label(own, flat, rank_of)
        return GridCell(index, label, flat, colour)

    numel = 1
    for s in shape:
        numel *= s
    empty_strip = Strip(0, -1, (), "no single storage: each rank holds its part (the panels beside)")
    if numel == 0:
        return Panel("global, by owning rank", caption, shape, strides, 0, (), empty_strip,
                     empty=f"no elements: shape {shape} holds none")
    grids: list[Grid | None] = []
    leads = [()] if len(shape) <= 2 else [_unravel(f, shape[:-2]) if f is not None else None
                                          for f in elide(numel // max(1, shape[-1] * shape[-2]), 4, 2, 1)]
    for lead in leads:
        if lead is None:
            grids.append(None)
            continue
        rows = elide(shape[-2]) if len(shape) >= 2 else [0]
        cols = elide(shape[-1]) if len(shape) >= 1 else [0]

        def at(i: int, j: int, lead: tuple[int, ...] = lead) -> tuple[int, ...]:
            return (*lead, i, j) if len(shape) >= 2 else ((j,) if shape else ())

        cells = tuple(tuple(None if i is None or j is None else cell(at(i, j)) for j in cols) for i in rows)
        label = "[" + ", ".join([*map(str, lead), ":", ":"]) + "]" if len(shape) > 2 else ""
        grids.append(Grid(label, tuple(rows) if len(shape) >= 2 else (), tuple(cols) if shape else (), cells))
    return Panel("global, by owning rank", caption, shape, strides, 0, tuple(grids), empty_strip)


def _rank_panel(r: DTensorExplanation, row: RankLayout, own: Ownership, itemsize: int) -> Panel:
    local = own.local[row.coordinate]
    shape = tuple(local.shape)
    known = row.strides is not None and tuple(row.shape) == shape
    strides = row.strides if known and row.strides is not None else _contiguous(shape)
    offset = row.storage_offset if known and row.storage_offset is not None else 0
    base = f"rank {row.rank} at mesh {row.coordinate}: its block starts at global {row.global_offset}"
    caption = caption_lines(shape, strides, offset, r.dtype.removeprefix("torch."), itemsize, base)
    if not known:
        caption = (*caption, "local strides are known on that rank only (uneven shards): drawn row-major")

    def value_of(index: tuple[int, ...]) -> str:
        return index_label(_unravel(int(local[index]), r.shape or ()))

    return build_panel(f"rank {row.rank} local", shape, strides, offset, caption, value_of, None,
                       f"rank {row.rank}'s local storage (values: the global index held)")


def dtensor_scene(dt: Any, op: str | None, args: tuple, kwargs: dict) -> Scene:
    """The :class:`Scene` of DTensor ``dt`` (``op`` None) or of ``op``'s predicted result."""
    r = explain_dtensor(dt, op, args, kwargs)
    if r.error is not None:
        return Scene((f"{r.call}: error (predicted by explain, no collective run)",), (), (f"error: {r.error}",))
    own = ownership(r.shape or (), r.mesh_shape, r.placements or ())
    rank_of = {row.coordinate: row.rank for row in r.ranks}
    if op is None:
        header = [f"DTensor {spell_placements(r.placements or ())} of global shape {r.shape} on mesh {r.mesh_shape}"]
    else:
        verdict = ("local, no collective" if not r.collectives else
                   "; ".join(str(c) for c in r.collectives))
        header = [f"{r.call}: {verdict} (predicted by explain: no collective, no data)"]
    header += list(r.placement_words)
    panels = [_global_panel(r, own, rank_of)]
    panels += [_rank_panel(r, row, own, dt.element_size()) for row in r.ranks[:MAX_RANK_PANELS]]
    aside = (f"(ranks {MAX_RANK_PANELS}..{len(r.ranks) - 1} not drawn)",) if len(r.ranks) > MAX_RANK_PANELS else ()
    return Scene(tuple(header), tuple(panels), aside)
