"""A picture as a standalone SVG document: deterministic (same input, same bytes), well-formed
XML, monospace text, one ``<title>`` tooltip per cell.

Logical cells and the storage cells they read share a fill colour (:func:`~.model.colour_of`
of the index's C-order rank). Storage cells read more than once have a thick dark border and
a ``×n`` badge; skipped ones are hatched grey. Every placement is computed from the model's
numbers with fixed formatting, and nothing depends on time, randomness or dict order of the
input, so the same picture always gives the same bytes.

Each logical cell is a ``<g class="cell" data-offset="N">`` and each storage cell a
``<g class="slot" data-offset="N">`` (N: the storage offset), so a page can link the two on hover.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from typing import TYPE_CHECKING
from xml.sax.saxutils import escape as _xml_escape
from xml.sax.saxutils import quoteattr

from .model import Grid, Panel, Scene, Strip, StripCell, colour_of, index_label

if TYPE_CHECKING:
    from .draw import Picture

__all__ = ["escape", "svg_document", "scene_svg"]

FONT = "DejaVu Sans Mono, Menlo, Consolas, monospace"
CHAR = 0.62  # a monospace glyph's width, in units of the font size
CELL_W, CELL_H = 48, 36
STRIP_W, STRIP_H = 44, 50
STRIP_ROW = 13  # storage cells per strip row
LABEL_W = 28  # room for row labels left of a grid
PAD = 16
LINE = 16  # caption line height

# (width, height, elements), elements placed relative to (0, 0)
Part = tuple[float, float, list[str]]


# characters XML 1.0 forbids (C0 controls but tab/newline/return, lone surrogates, U+FFFE/U+FFFF):
# one in a text (a file name, a tensor's name) would make the whole document unreadable as SVG
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def escape(text: str) -> str:
    """``text`` as SVG/XML character data: ``&``, ``<`` and ``>`` escaped, and every character XML
    forbids replaced by U+FFFD (so the document stays well-formed whatever a name holds).

    >>> escape("a<b\x1b.py")
    'a&lt;b\ufffd.py'
    """
    return _xml_escape(_NOT_XML.sub("\ufffd", text))


def _n(v: float) -> str:
    """A coordinate with a fixed format (no float noise, so the bytes stay the same)."""
    return f"{v:.1f}".rstrip("0").rstrip(".")


def _text(x: float, y: float, s: str, size: float = 12, anchor: str = "start", weight: str = "",
          fill: str = "#222") -> str:
    bold = ' font-weight="bold"' if weight else ""
    return (f'<text x="{_n(x)}" y="{_n(y)}" font-size="{_n(size)}" text-anchor="{anchor}" '
            f'fill="{fill}"{bold}>{escape(s)}</text>')


def _text_width(s: str, size: float) -> float:
    # a wide (CJK) glyph takes about a whole em, 1.6 times a monospace glyph's CHAR
    wide = sum(1 for ch in s if unicodedata.east_asian_width(ch) in ("W", "F"))
    return (len(s) + 0.6 * wide) * size * CHAR


def _move(part: Part, dx: float, dy: float) -> str:
    return f'<g transform="translate({_n(dx)},{_n(dy)})">' + "".join(part[2]) + "</g>"


def _lines(lines: Sequence[str], size: float = 12, first_bold: bool = False) -> Part:
    els = [_text(0, LINE * (i + 1) - 4, line, size, weight="bold" if first_bold and i == 0 else "")
           for i, line in enumerate(lines)]
    w = max((_text_width(line, size) for line in lines), default=0)
    return w, LINE * len(lines), els


def _fit(width: float, texts: list[tuple[str, float]]) -> float:
    """``width``, or wider when one of the (text, font size) pairs would overflow it."""
    return max([width] + [_text_width(t, size) + 8 for t, size in texts])


def _grid(grid: Grid) -> Part:
    cw = _fit(CELL_W, [(t, size) for row in grid.cells for c in row if c is not None
                       for t, size in ((c.value, 12), (f"@{c.offset}", 9))])
    els: list[str] = []
    top = 0.0
    if grid.label:
        els.append(_text(0, 13, grid.label, 12, weight="bold"))
        top = 20.0
    left = LABEL_W if grid.row_labels else 0
    if grid.col_labels:
        for j, c in enumerate(grid.col_labels):
            els.append(_text(left + j * cw + cw / 2, top + 12, "…" if c is None else str(c), 10,
                             "middle", fill="#777"))
        top += 16
    for i, row in enumerate(grid.cells):
        y = top + i * CELL_H
        if grid.row_labels:
            r = grid.row_labels[i]
            els.append(_text(left - 6, y + CELL_H / 2 + 4, "…" if r is None else str(r), 10, "end", fill="#777"))
        for j, c in enumerate(row):
            x = left + j * cw
            if c is None:
                els.append(_text(x + cw / 2, y + CELL_H / 2 + 4, "…", 12, "middle", fill="#777"))
                continue
            tip = f"x[{', '.join(map(str, c.index))}] = {c.value}, at storage offset {c.offset}"
            if c.origin is not None:
                tip = f"copied from x's storage[{c.origin}]; " + tip
            # class and data-offset: the playground page highlights the storage cell a logical cell reads
            els.append(f'<g class="cell" data-offset="{c.offset}"><title>{escape(tip)}</title>'
                       f'<rect x="{_n(x + 1)}" y="{_n(y + 1)}" width="{_n(cw - 2)}" height="{CELL_H - 2}" '
                       f'rx="3" fill="{colour_of(c.rank)}" stroke="#555" stroke-width="0.6"/>'
                       + _text(x + cw / 2, y + 15, c.value, 12, "middle")
                       + _text(x + cw / 2, y + 29, f"@{c.offset}", 9, "middle", fill="#555") + "</g>")
    ncols = max((len(r) for r in grid.cells), default=0)
    return left + ncols * cw, top + len(grid.cells) * CELL_H, els


def _strip_cell(c: StripCell, x: float, y: float, cell_w: float, height: float = STRIP_H) -> str:
    if c.offset is None:
        return _text(x + cell_w / 2, y + height / 2 + 4, "…", 12, "middle", fill="#777")
    if c.count is None:
        reader, tip, fill, stroke, sw = "?", "too many elements to tell which indices read it", "#eeeeee", "#555", 0.6
    elif c.count == 0:
        reader, tip, fill, stroke, sw = "·", "skipped: no index reads it", "url(#skip)", "#999", 0.6
    else:
        reader = index_label(c.readers[0])
        names = ", ".join(f"x[{', '.join(map(str, r))}]" for r in c.readers)
        more = f" and {c.count - len(c.readers)} more" if c.count > len(c.readers) else ""
        tip = f"read by {names}{more}"
        fill = colour_of(c.rank if c.rank is not None else 0.0)
        stroke, sw = ("#111", 2.5) if c.repeated else ("#555", 0.6)
    tip = f"storage[{c.offset}] = {c.value}: {tip}"
    if c.origin is not None:
        tip += f"; copied from x's storage[{c.origin}]"
    parts = [f'<g class="slot" data-offset="{c.offset}"><title>{escape(tip)}</title>',
             f'<rect x="{_n(x + 1)}" y="{_n(y + 1)}" width="{_n(cell_w - 2)}" height="{_n(height - 2)}" '
             f'fill="{fill}" stroke="{stroke}" stroke-width="{_n(sw)}"/>',
             _text(x + cell_w / 2, y + 12, str(c.offset), 9, "middle", fill="#555"),
             _text(x + cell_w / 2, y + 28, c.value, 12, "middle", fill="#222" if c.count else "#777"),
             _text(x + cell_w / 2, y + 43, reader, 9, "middle")]
    if c.origin is not None:  # (a copy's result: the offset in the input's storage it came from)
        parts.append(_text(x + cell_w / 2, y + 57, str(c.origin), 9, "middle", fill="#555"))
    if c.repeated:
        parts.append(_text(x + cell_w - 3, y + 10, f"×{c.count}", 8, "end", weight="bold", fill="#111"))
    parts.append("</g>")
    return "".join(parts)


def _strip(strip: Strip) -> Part:
    if not strip.cells:
        return _lines([f"{strip.label}: none touched"], 11)
    traced = any(c.origin is not None for c in strip.cells)
    label = (f"{strip.label}, elements {strip.lo}..{strip.hi} ({strip.length} touched): offset / value / read by"
             + (" / copied from" if traced else ""))
    height = STRIP_H + (12 if traced else 0)  # (a fourth line: where each element was copied from)
    els = [_text(0, 12, label, 11, weight="bold")]
    top = 18
    cw = _fit(STRIP_W, [(t, size) for c in strip.cells if c.offset is not None
                        for t, size in ((str(c.offset), 9), (c.value, 12),
                                        (index_label(c.readers[0]) if c.readers else "", 9))])
    for k, c in enumerate(strip.cells):
        row, col = divmod(k, STRIP_ROW)
        els.append(_strip_cell(c, col * cw, top + row * (height + 6), cw, height))
    rows = (len(strip.cells) + STRIP_ROW - 1) // STRIP_ROW
    width = max(min(len(strip.cells), STRIP_ROW) * cw, _text_width(label, 11))
    return width, top + rows * (height + 6), els


def _panel(panel: Panel) -> Part:
    els: list[str] = []
    head = _lines([panel.title, *panel.caption], 12, first_bold=True)
    els.append(_move(head, 0, 0))
    y, width = head[1] + 8, head[0]
    if panel.empty:
        note = _lines([panel.empty], 12)
        els.append(_move(note, 0, y))
        y += note[1] + 8
        width = max(width, note[0])
    else:
        x, tallest = 0.0, 0.0
        for g in panel.grids:
            part = _grid(g) if g is not None else (24.0, CELL_H + 36.0, [_text(8, CELL_H, "…", 16, fill="#777")])
            els.append(_move(part, x, y))
            x += part[0] + PAD
            tallest = max(tallest, part[1])
        width = max(width, x - PAD)
        y += tallest + 14
    strip = _strip(panel.strip)
    els.append(_move(strip, 0, y))
    return max(width, strip[0]), y + strip[1], els


def scene_svg(scene: Scene) -> Part:
    """The scene's elements at (0, 0): the header lines, then the panels (and the aside) left to right."""
    els: list[str] = []
    y, width = 0.0, 0.0
    if scene.header:
        head = _lines(scene.header, 12, first_bold=True)
        els.append(_move(head, 0, 0))
        y, width = head[1] + 10, head[0]
    x, tallest = 0.0, 0.0
    parts = [_panel(p) for p in scene.panels]
    if scene.aside:
        parts.append(_lines(scene.aside, 12, first_bold=True))
    for i, part in enumerate(parts):
        if i:
            els.append(f'<line x1="{_n(x - PAD)}" y1="{_n(y)}" x2="{_n(x - PAD)}" y2="{_n(y + part[1])}" '
                       'stroke="#bbb" stroke-width="1"/>')
        els.append(_move(part, x, y))
        x += part[0] + 2 * PAD
        tallest = max(tallest, part[1])
    return max(width, x - 2 * PAD), y + tallest, els


_DEFS = ('<defs><pattern id="skip" width="6" height="6" patternUnits="userSpaceOnUse" '
         'patternTransform="rotate(45)"><rect width="6" height="6" fill="#f2f2f2"/>'
         '<line x1="0" y1="0" x2="0" y2="6" stroke="#c8c8c8" stroke-width="2"/></pattern></defs>')


def svg_document(pictures: list[Picture], titles: list[str] | None = None) -> str:
    """Several pictures stacked in one standalone SVG document (a ``titles[i]`` line above
    picture ``i`` when given). Deterministic: the same pictures give the same bytes.

    >>> doc = svg_document([draw(x), draw(x, "permute", 1, 0)], ["x", "its transpose"])  # doctest: +SKIP
    """
    pictures = list(pictures)
    if titles is not None and len(titles) != len(pictures):
        raise ValueError(f"svg_document: {len(titles)} titles for {len(pictures)} pictures; give one per picture")
    for p in pictures:
        if not hasattr(p, "scene"):
            raise TypeError(f"svg_document: pictures must be Picture objects (draw(x)), not {type(p).__name__}")
    els: list[str] = []
    y, width = float(PAD), 0.0
    for i, p in enumerate(pictures):
        if titles is not None:
            els.append(_text(PAD, y + 16, titles[i], 16, weight="bold"))
            width = max(width, _text_width(titles[i], 16))
            y += 28
        part = scene_svg(p.scene)
        els.append(_move(part, PAD, y))
        width = max(width, part[0])
        y += part[1] + 2 * PAD
    w, h = width + 2 * PAD, y
    head = (f'<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{_n(w)}" height="{_n(h)}" '
            f'viewBox="0 0 {_n(w)} {_n(h)}" font-family={quoteattr(FONT)}>')
    background = f'<rect width="{_n(w)}" height="{_n(h)}" fill="#ffffff"/>'
    return head + "\n" + _DEFS + "\n" + background + "\n" + "\n".join(els) + "\n</svg>\n"
