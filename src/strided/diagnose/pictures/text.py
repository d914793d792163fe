"""A picture as lines of styled segments: plain text (no ANSI) and, through
:mod:`.terminal`, coloured rich text laid out the same way.

A *block* is a list of lines; a line is a list of ``(text, style)`` segments. ``style`` is None
or a small token the terminal renderer understands: ``"title"``, ``"dim"``, ``"cell:#rrggbb"``
(a logical cell or the storage cell it reads: the same colour), ``"rep:#rrggbb"`` (a storage
cell read more than once), ``"skip"`` (a storage cell nobody reads). The plain text drops the
styles, so it carries the ties in words: each storage cell names the index that reads it.

A grid row is two text lines (values, then ``@offset``); the strip is three rows (offset,
value, read by) wrapped at :data:`STRIP_WIDTH` columns. Panels sit side by side while they fit in
:data:`WIDTH` columns, else one under the other.
"""

from __future__ import annotations

from ...text_width import display_width
from .model import Grid, Panel, Scene, Strip, StripCell, colour_of, index_label

__all__ = ["WIDTH", "Block", "hjoin", "scene_block", "plain"]

WIDTH = 132  # a scene's lines: two panels side by side
STRIP_WIDTH = 62  # a strip's rows wrap here, so a panel stays half a scene wide

Segment = tuple[str, str | None]
Line = list[Segment]
Block = list[Line]


def width(line: Line) -> int:
    """Display columns of a line (a translated label has CJK text: two columns a character)."""
    return sum(display_width(t) for t, _ in line)


def block_width(block: Block) -> int:
    return max((width(line) for line in block), default=0)


def words(*texts: str, style: str | None = None) -> Block:
    return [[(t, style)] for t in texts]


def hjoin(blocks: list[Block], gap: str = "   ", limit: int = WIDTH, strip_styled: bool = False) -> Block:
    """Blocks side by side (top-aligned) while they fit in ``limit`` display columns; the rest
    wrap below, after a blank line. Trailing blank segments are dropped from each line: unstyled
    ones always, styled ones too with ``strip_styled`` (the terminal tour's text, where a blank
    styled segment is padding, not a coloured cell)."""
    rows: list[list[Block]] = [[]]
    used = 0
    for b in blocks:
        w = block_width(b)
        if rows[-1] and used + len(gap) + w > limit:
            rows.append([])
            used = 0
        used += (len(gap) if rows[-1] else 0) + w
        rows[-1].append(b)
    out: Block = []
    for i, row in enumerate(rows):
        if i:
            out.append([])
        widths = [block_width(b) for b in row]
        for n in range(max(len(b) for b in row)):
            line: Line = []
            for j, (b, w) in enumerate(zip(row, widths)):
                part = b[n] if n < len(b) else []
                if j:
                    line.append((gap, None))
                line.extend(part)
                if j < len(row) - 1:
                    line.append((" " * (w - width(part)), None))
            out.append(_rstrip(line, strip_styled))
    return out


def _rstrip(line: Line, strip_styled: bool = False) -> Line:
    while line and (strip_styled or line[-1][1] is None) and not line[-1][0].strip():
        line = line[:-1]
    if line and (strip_styled or line[-1][1] is None):
        line = [*line[:-1], (line[-1][0].rstrip(), line[-1][1])]
    return line


def plain(block: Block) -> str:
    """The block as plain text: no styles, no trailing spaces."""
    return "\n".join("".join(t for t, _ in line).rstrip() for line in block)


# ---------------------------------------------------------------- grids


def grid_block(grid: Grid) -> Block:
    """Column labels on top, row labels on the left; each row two lines: values, ``@offset``."""
    ncols = len(grid.cells[0]) if grid.cells else 0
    texts: list[list[tuple[str, str]]] = []
    for row in grid.cells:
        texts.append([("…", "") if c is None else (c.value, f"@{c.offset}") for c in row])
    col_heads = [("…" if c is None else str(c)) for c in grid.col_labels] or [""] * ncols
    widths = [max([len(col_heads[j])] + [max(len(r[j][0]), len(r[j][1])) for r in texts]) for j in range(ncols)]
    row_heads = [("…" if r is None else str(r)) for r in grid.row_labels]
    lw = max((len(h) for h in row_heads), default=0)
    lead = " " * (lw + 1) if row_heads else ""
    out: Block = []
    if grid.label:
        out.append([(grid.label, "title")])
    if grid.col_labels:
        out.append([(lead, None)] + [(" " + h.rjust(w), "dim") for h, w in zip(col_heads, widths)])
    for i, row in enumerate(grid.cells):
        top: Line = [(row_heads[i].rjust(lw) + " ", "dim")] if row_heads else []
        bottom: Line = [(lead, None)] if row_heads else []
        for j, c in enumerate(row):
            w = widths[j]
            style = None if c is None else f"cell:{colour_of(c.rank)}"
            top += [(" ", None), (texts[i][j][0].rjust(w), style)]
            bottom += [(" ", None), (texts[i][j][1].rjust(w), style if c is not None else None)]
        out += [top] if grid.row_labels and grid.row_labels[i] is None else [top, bottom]
    return out


# ---------------------------------------------------------------- the storage strip


def _reader_text(c: StripCell) -> str:
    if c.offset is None:
        return "…"
    if c.count is None:
        return "?"
    if c.count == 0:
        return "·"
    more = f"+{c.count - 1}" if c.count > 1 else ""
    return index_label(c.readers[0]) + more


def _strip_style(c: StripCell) -> str | None:
    if c.offset is None:
        return None
    if c.skipped:
        return "skip"
    if c.rank is None:
        return None
    return f"{'rep' if c.repeated else 'cell'}:{colour_of(c.rank)}"


def strip_block(strip: Strip, limit: int = STRIP_WIDTH) -> Block:
    """Three rows (offset, value, read by) wrapped at ``limit`` columns, and a legend for the
    marks that appear."""
    if not strip.cells:
        return words(f"{strip.label}: none touched")
    span = f"{strip.lo}..{strip.hi}"
    out: Block = [[(f"{strip.label}, elements {span} ({strip.length} touched):", "title")]]
    traced = any(c.origin is not None for c in strip.cells)
    heads = ("offset", "value", "read by", "copied from") if traced else ("offset", "value", "read by")
    hw = max(map(len, heads)) + 1
    columns = [(("…" if c.offset is None else str(c.offset)), c.value, _reader_text(c),
                ("…" if c.offset is None else "?" if c.origin is None else str(c.origin)), _strip_style(c))
               for c in strip.cells]
    chunk: list = []
    used = hw

    def flush() -> None:
        for r, head in enumerate(heads):
            line: Line = [(head.ljust(hw), "dim")]
            for col, w in chunk:
                style = col[4] if 0 < r < 3 else ("dim" if col[4] else None)
                line += [(" ", None), (col[r].rjust(w), style)]
            out.append(line)

    for col in columns:
        w = max(len(t) for t in col[:len(heads)])
        if chunk and used + 1 + w > limit:
            flush()
            chunk, used = [], hw
        chunk.append((col, w))
        used += 1 + w
    flush()
    legend = []
    if any(c.repeated for c in strip.cells):
        legend.append("+n: read by n more indices (stride 0 or overlap)")
    if any(c.skipped for c in strip.cells):
        legend.append("·: skipped, no index reads it")
    if any(c.count is None and c.offset is not None for c in strip.cells):
        legend.append("?: too many elements to tell who reads it")
    if legend:
        out.append([("; ".join(legend), "dim")])
    return out


# ---------------------------------------------------------------- panels and scenes


def panel_block(panel: Panel) -> Block:
    out: Block = [[(panel.title, "title")]]
    out += words(*panel.caption)
    out.append([])
    if panel.empty:
        out += words(panel.empty)
    else:
        grids = [words("…", "") if g is None else grid_block(g) for g in panel.grids]
        out += hjoin(grids, gap="  ┆  ")
        out.append([])
    out += strip_block(panel.strip)
    return out


def scene_block(scene: Scene) -> Block:
    """The whole picture: the header, then the panels (and the aside) side by side when they fit."""
    out: Block = words(*scene.header, style=None)
    if scene.header:
        out[0] = [(scene.header[0], "title")]
        out.append([])
    parts = [panel_block(p) for p in scene.panels]
    if scene.aside:
        parts.append(words(*scene.aside))
    out += hjoin(parts, gap="  │  ")
    return out
