"""Pictures for the command line: ``strided.diagnose.pictures`` when this build has it, else text.

The commands draw through these three functions only, so they work (with a plainer picture)
before the pictures package is merged, and in any build that lacks it:

- :func:`picture` — a Picture (``draw(..., format="auto")``) or, without the package, a
  :class:`TextPicture` holding ``describe()`` and the values;
- :func:`show` — print a picture: coloured on a colour terminal, plain text otherwise;
- :func:`svg_document` — several pictures in ONE standalone SVG document (a text-only SVG when
  the pictures package is missing: still well-formed, deterministic XML).

Fitting the terminal: :func:`terminal_width` (the columns of a terminal, 80 otherwise),
:func:`display_width` (a CJK character takes two columns), :func:`wrap` and :func:`reflow`
(word wrapping by display width), and :func:`show` with ``width``: a picture's panels stack
one under the other when they do not fit side by side, and no printed line is wider than
``width`` (a longer line wraps).

``rich`` is never imported here: the pictures package imports it lazily itself.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from typing import Any, TextIO
from xml.sax.saxutils import escape

from ..tensor import Tensor
from ..text_width import char_width, display_width

__all__ = [
    "DEFAULT_WIDTH", "TextPicture", "display_width", "have_pictures", "picture", "reflow", "relabel", "show",
    "svg_document", "terminal_width", "wrap",
]

DEFAULT_WIDTH = 80  # columns when the output is not a terminal (a pipe, a file, a StringIO)
MIN_WIDTH = 20  # below this a terminal is taken to be this wide (wrapping to 3 columns helps no one)


def terminal_width(out: Any) -> int:
    """The columns of ``out`` when it is a terminal (its window size), else :data:`DEFAULT_WIDTH`.

    Deliberately not ``$COLUMNS`` or ``sys.stdout``'s size: the width is that of the stream
    being written, so a snapshot written to a file is the same wherever it is made."""
    try:
        if out.isatty():
            return max(MIN_WIDTH, os.get_terminal_size(out.fileno()).columns)
    except (AttributeError, ValueError, OSError):  # no isatty / fileno, a closed stream, no size
        pass
    return DEFAULT_WIDTH


# a token is a run of spaces, one wide character (a line may break on either side of it, as
# CJK text does) with any closing punctuation that must not start a line, or a run of other text
# opening punctuation that must not end a line: it sticks to the token after it
_CLOSING = "，。、；：！？）」』】》"
_OPENING = "（「『【《“‘"
_WIDE = "\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef"
_TOKENS = re.compile(f" +|[{_OPENING}]+(?:[{_WIDE}][{_CLOSING},.;:!?)]*|[^ {_WIDE}{_OPENING}]+[{_CLOSING}]*)?"
                     f"|[{_WIDE}][{_CLOSING},.;:!?)]*|[^ {_WIDE}]+[{_CLOSING}]*")


def wrap(line: str, width: int, hang: str | None = None) -> list[str]:
    """``line`` broken at word boundaries (and between CJK characters) into lines of at most
    ``width`` display columns. Continuation lines start with ``hang`` (default: the line's own
    indent plus two spaces). A word longer than a whole line is cut, so no line is ever wider.

    >>> wrap("    ViewError: view size is not compatible", 24)
    ['    ViewError: view size', '      is not compatible']
    """
    line = line.rstrip()
    if display_width(line) <= width:
        return [line]
    indent = line[: len(line) - len(line.lstrip(" "))]
    if hang is None:
        hang = indent + "  "
    if display_width(hang) > width // 2:  # a deep indent would leave no room: hang less
        hang = " " * (width // 4)
    out: list[str] = []
    cur, cur_w = indent, display_width(indent)
    for tok in _TOKENS.findall(line[len(indent):]):
        w = display_width(tok)
        if tok.startswith(" "):
            if cur.strip():
                cur, cur_w = cur + tok, cur_w + w
            continue
        if cur_w + w > width and cur.strip():
            out.append(cur.rstrip())
            cur, cur_w = hang, display_width(hang)
        while cur_w + w > width:  # a single word wider than the room left: cut it
            room = width - cur_w
            head, tok = _cut(tok, room)
            out.append(cur + head)
            cur, cur_w = hang, display_width(hang)
            w = display_width(tok)
        cur, cur_w = cur + tok, cur_w + w
    if cur.strip():
        out.append(cur.rstrip())
    return out


def _cut(s: str, room: int) -> tuple[str, str]:
    """``s`` split after as many characters as fit in ``room`` columns (at least one)."""
    used = 0
    for i, ch in enumerate(s):
        used += char_width(ch)
        if used > room:
            return s[: max(i, 1)], s[max(i, 1):]
    return s, ""


def _is_wide(ch: str) -> bool:
    return char_width(ch) == 2


def reflow(text: str, width: int) -> list[str]:
    """Prose wrapped to ``width`` columns: consecutive unindented lines are one paragraph,
    refilled at word boundaries (CJK lines join without a space); an indented line (code, a
    table, a list item) keeps its own line and wraps under its indent; blank lines stay."""
    out: list[str] = []
    para = ""
    for line in text.split("\n"):
        if line and not line.startswith((" ", "\t")):
            if not para:
                para = line
            elif (_is_wide(para[-1]) and _is_wide(line[0])) or para[-1] in _CLOSING or line[0] in _OPENING:
                para += line
            else:
                para += " " + line
            continue
        if para:
            out += wrap(para, width, hang="")
            para = ""
        out += wrap(line, width) if line.strip() else [""]
    if para:
        out += wrap(para, width, hang="")
    return out


class TextPicture:
    """The fallback picture: the tensor's ``describe()`` and its values, as plain text."""

    def __init__(self, x: Tensor) -> None:
        self._text = f"{x.describe()}\n{x}"

    def text(self) -> str:
        return self._text

    def __str__(self) -> str:
        return self._text


def _pictures() -> Any:
    try:
        from ..diagnose import pictures
    except ImportError:
        return None
    return pictures


def have_pictures() -> bool:
    """Whether this build has ``strided.diagnose.pictures`` (else the pictures are text)."""
    return _pictures() is not None


def picture(x: Tensor, op: str | None = None, *args: Any, **kwargs: Any) -> Any:
    """``draw(x)`` (or ``draw(x, op, *args, **kwargs)``, before and after) as a Picture; the text
    fallback pictures ``x`` alone."""
    pictures = _pictures()
    if pictures is None:
        return TextPicture(x)
    if op is None:
        return pictures.draw(x, format="auto")
    return pictures.draw(x, op, *args, format="auto", **kwargs)


def show(pic: Any, out: TextIO, width: int | None = None, name: str | None = None,
         words: Callable[[str], str] | None = None, heads: dict[str, str] | None = None) -> None:
    """Print ``pic`` to ``out`` in at most ``width`` columns (default: :func:`terminal_width`):
    coloured through rich on a colour terminal, plain text otherwise. Panels that do not fit
    side by side are printed one under the other; a line still too wide wraps. ``name``: what
    the tensor is called where it is shown (the pictures call it ``x``; see :func:`relabel`).
    ``words``: a line's text in the reader's language (applied to the picture's titles,
    captions, headers and legends); ``heads``: the storage strip's row heads, likewise."""
    width = terminal_width(out) if width is None else width
    block = _fitted_block(pic, width, name, words, heads)
    if block is None and not isinstance(pic, TextPicture) and hasattr(pic, "show"):
        pic.show(file=out)  # a picture this module cannot lay out: as it shows itself
        return
    if block is None:  # the text fallback
        for line in str(pic).rstrip("\n").splitlines():
            for part in wrap(line, width):
                out.write(part + "\n")
        return
    from ..diagnose.pictures.text import plain

    if _colour_terminal(out):
        from rich.console import Console

        from ..diagnose.pictures.terminal import styled

        # rich wraps a line wider than the console at word boundaries, keeping its colours
        Console(file=out, width=width).print(styled(block))
        return
    for line in plain(block).splitlines():
        for part in wrap(line, width):
            out.write(part + "\n")


# the picture's own name for the tensor: a lone "x" ("x", "x's", "x.permute(1, 0)"), not a
# letter of a word, nor "x@" (the strip's column head, which stays as drawn)
_X = re.compile(r"(?<![\w.])x(?![\w@])")


def relabel(scene: Any, name: str) -> Any:
    """``scene`` with the tensor called ``name`` instead of ``x`` in its header, aside, panel
    titles, captions and storage labels (``draw`` always calls its argument ``x``)."""
    return rewrite(scene, lambda s: _X.sub(lambda _: name, s))


def rewrite(scene: Any, sub: Callable[[str], str]) -> Any:
    """``scene`` with ``sub`` applied to each line of its header, aside, panel titles, captions
    and storage labels."""
    from dataclasses import replace

    panels = tuple(replace(p, title=sub(p.title), caption=tuple(map(sub, p.caption)),
                           strip=replace(p.strip, label=sub(p.strip.label))) for p in scene.panels)
    return replace(scene, header=tuple(map(sub, scene.header)), panels=panels,
                   aside=tuple(map(sub, scene.aside)))


def _fitted_block(pic: Any, width: int, name: str | None = None, words: Callable[[str], str] | None = None,
                  heads: dict[str, str] | None = None) -> Any:
    """The picture's lines laid out for ``width`` columns (header lines wrapped, panels side by
    side only while they fit), or None when ``pic`` is not a pictures-package Picture."""
    scene = getattr(pic, "scene", None)
    if scene is None or isinstance(pic, TextPicture):
        return None
    if name is not None and name != "x":
        scene = relabel(scene, name)
    if words is not None:
        scene = rewrite(scene, words)

    def translated(block: Any) -> Any:
        """A panel's lines with their words (a line of one segment: a title, a caption, a
        legend) and strip row heads (padded to the columns the English head took) rewritten."""
        out = []
        for line in block:
            if len(line) == 1 and words is not None:
                line = [(words(line[0][0]), line[0][1])]
            elif line and heads and line[0][1] == "dim" and line[0][0].rstrip() in heads:
                text, new = line[0][0], heads[line[0][0].rstrip()]
                line = [(new + " " * max(1, display_width(text) - display_width(new)), "dim"), *line[1:]]
            out.append(line)
        return out

    return _layout(scene, width, translated if words is not None or heads else None)


def _layout(scene: Any, width: int, fix: Callable[[Any], Any] | None = None) -> Any:
    """Header lines wrapped to ``width``, then the panels (each through ``fix``) side by side
    while they fit, else one under the other."""
    from ..diagnose.pictures.text import hjoin, panel_block, words

    block: list[Any] = []
    for i, line in enumerate(scene.header):
        block += words(*wrap(line, width, hang="  "), style="title" if i == 0 else None)
    if scene.header:
        block.append([])
    parts = [panel_block(p) for p in scene.panels]
    if fix is not None:
        parts = [fix(p) for p in parts]
    if scene.aside:
        parts.append(words(*(part for line in scene.aside for part in wrap(line, width))))
    block += hjoin(parts, gap="  │  ", limit=width, strip_styled=True)
    return block


def _colour_terminal(out: Any) -> bool:
    """A terminal that shows colour (not ``TERM=dumb``, no ``NO_COLOR``), as the pictures
    package decides it."""
    try:
        tty = bool(out.isatty())
    except (AttributeError, ValueError, OSError):
        return False
    return tty and os.environ.get("TERM", "") != "dumb" and "NO_COLOR" not in os.environ


def svg_document(pics: list[Any], titles: list[str]) -> str:
    """One standalone SVG document holding ``pics``, each under its title."""
    pictures = _pictures()
    if pictures is not None and not any(isinstance(p, TextPicture) for p in pics):
        return pictures.svg_document(pics, titles)
    return text_svg([f"{t}\n{p}" for t, p in zip(titles, pics)])


def text_svg(blocks: list[str]) -> str:
    """A standalone SVG document of monospace text blocks, one under the other (the fallback)."""
    line_height, char_width, pad = 16, 7.8, 12
    lines: list[str] = []
    for block in blocks:
        lines.extend(block.splitlines())
        lines.append("")
    width = int(pad * 2 + char_width * max((len(line) for line in lines), default=1))
    height = pad * 2 + line_height * len(lines)
    body = []
    for i, line in enumerate(lines):
        if line:
            y = pad + line_height * (i + 1)
            body.append(f'<text x="{pad}" y="{y}" xml:space="preserve">{escape(line)}</text>')
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="monospace" font-size="13">\n'
        f'<rect width="{width}" height="{height}" fill="white"/>\n'
        + "\n".join(body)
        + "\n</svg>\n"
    )
