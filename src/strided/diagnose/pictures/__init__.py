"""Pictures of memory layouts: ``draw(x)`` and ``draw(x, op, *args)``.

- :mod:`.source` — what a picture reads of an array (layout in storage coordinates, a few values);
- :mod:`.model` — the picture as data: logical grids, the storage strip, captions, elision;
- :mod:`.text` — plain text (and the styled lines the terminal renderer colours);
- :mod:`.terminal` — a rich renderable (rich is imported only there, lazily);
- :mod:`.svg` — a standalone, deterministic SVG document;
- :mod:`.draw` — :func:`draw` and :class:`Picture`.
"""

from .draw import Picture, draw
from .svg import svg_document

__all__ = ["Picture", "draw", "svg_document"]
