"""A picture as a rich renderable: the plain text's lines (:mod:`.text`), coloured.

Logical cells and the storage cells they read share a background colour; storage cells read
more than once are bold and underlined, skipped ones dim and struck through. rich is imported
here only, inside the function, so ``import strided`` never loads it.
"""

from __future__ import annotations

from typing import Any

from .model import Scene
from .text import Block, scene_block

__all__ = ["renderable", "styled"]


def styled(block: Block) -> Any:
    """The block as one ``rich.text.Text`` (its styles mapped to rich styles)."""
    from rich.style import Style
    from rich.text import Text

    styles: dict[str | None, Any] = {None: None, "title": Style(bold=True), "dim": Style(dim=True),
                                     "skip": Style(dim=True, strike=True)}

    def style(token: str | None) -> Any:
        if token not in styles:
            kind, colour = token.split(":", 1)  # type: ignore[union-attr]
            styles[token] = Style(bgcolor=colour, color="black", bold=kind == "rep", underline=kind == "rep")
        return styles[token]

    text = Text(no_wrap=True, overflow="ignore")
    for n, line in enumerate(block):
        if n:
            text.append("\n")
        for chunk, token in line:
            text.append(chunk, style(token))
    return text


def renderable(scene: Scene) -> Any:
    """The scene as a rich renderable."""
    return styled(scene_block(scene))
