"""Pictures for the command line: ``strided.diagnose.pictures`` when this build has it, else text.

The commands draw through these three functions only, so they work (with a plainer picture)
before the pictures package is merged, and in any build that lacks it:

- :func:`picture` — a Picture (``draw(..., format="auto")``) or, without the package, a
  :class:`TextPicture` holding ``describe()`` and the values;
- :func:`show` — print a picture: coloured on a colour terminal, plain text otherwise;
- :func:`svg_document` — several pictures in ONE standalone SVG document (a text-only SVG when
  the pictures package is missing: still well-formed, deterministic XML).

``rich`` is never imported here: the pictures package imports it lazily itself.
"""

from __future__ import annotations

from typing import Any, TextIO
from xml.sax.saxutils import escape

from ..tensor import Tensor

__all__ = ["TextPicture", "have_pictures", "picture", "show", "svg_document"]


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


def show(pic: Any, out: TextIO) -> None:
    """Print ``pic`` to ``out``: its own ``show`` (rich colours on a colour terminal), else its text."""
    if not isinstance(pic, TextPicture) and hasattr(pic, "show"):
        pic.show(file=out)
    else:
        print(str(pic), file=out)


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
