"""The tour as a guided path through the page: each step's text and pictures from ``strided tour``
and, where the step's code fits the ``strided show`` grammar, an expression the page runs beside it.

The texts are the tour's own (``cli/tour_text.py`` through :func:`strided.cli.tour.run_tour`, run
once per language with ``pause=False`` and split at its step headings), so the numbers in them
are the ones strided computes. The pictures are the tour's own too, taken as data (its
``pictures`` hook) instead of as text grids, and drawn the way the page draws its other
pictures: SVG (:func:`tour_picture`), one per panel, so that a narrow window stacks them. The expressions (:data:`TOUR_EXPRS`) are the tour steps' own
tensors spelt in the show grammar; steps whose code is not a chain (``resize_``, module-level
``strided.reshape(..., order=)``, the broadcasting bug, the closing words) have none, and the
attention step also fills the watch view with its program (:data:`ATTENTION_PROGRAM`).
"""

from __future__ import annotations

import io
import re
import threading
from typing import Any

from ..cli.render import relabel, rewrite
from ..cli.tour import STEPS, run_tour
from ..cli.tour_text import LANGS, text, translate
from .render import tour_step_html
from .show import EVAL_LOCK

__all__ = ["ATTENTION_PROGRAM", "TOUR_EXPRS", "tour_payload", "tour_picture"]

TOUR_EXPRS: dict[str, str] = {
    "arange": "arange(12).view(3, 4)",
    "permute": "arange(12).view(3, 4).permute(1, 0)",
    "view": "arange(12).view(3, 4).permute(1, 0).view(-1)",
    "flatten": "arange(120).view(2, 3, 4, 5).permute(0, 2, 3, 1).flatten(start_dim=1)",
    "broadcast": "arange(48).view(8, 1, 6, 1).expand(8, 7, 6, 5)[0, 0]",
    "attention": "arange(1024).view(2, 4, 8, 16).transpose(1, 2).view(2, 8, 64)",
}
"""The show-grammar expression of each tour step that has one (keyed by the step's name)."""

ATTENTION_PROGRAM = """\
import strided
x = strided.ones(2, 8, 64)
heads = x.view(2, 8, 4, 16).transpose(1, 2)
scores = (heads @ heads.transpose(-2, -1)).softmax(-1)
out = scores @ heads
merged = out.transpose(1, 2)
flat = merged.contiguous().view(2, 8, 64)
"""

_HEADING = re.compile(r"^═+ .* ═+$", re.MULTILINE)
_MARK = re.compile(r"^\x00picture (\d+)\x00$", re.MULTILINE)  # where the tour drew picture N
_cache: dict[str, dict[str, Any]] = {}
_lock = threading.Lock()


def tour_payload(lang: str = "en") -> dict[str, Any]:
    """The tour's steps for the page: ``{"ok": True, "lang": ..., "steps": [{"name", "title",
    "text", "parts", "html", "expr", "program"}, ...]}``; an unknown ``lang`` gives
    ``{"ok": False, "error": ...}``. ``text``: the step's prose (its pictures left out);
    ``parts``: the step in order, ``{"text": ...}`` or ``{"picture": ...}`` (a
    :func:`tour_picture`); ``html``: the parts as the page shows them (:func:`.render.tour_step_html`).
    Computed once per language (the tour runs strided to fill its numbers)."""
    if lang not in LANGS:
        return {"ok": False, "error": f"unknown language {lang!r}; the tour speaks {', '.join(LANGS)}"}
    with _lock:  # one run per language, even when two requests ask at once
        if lang not in _cache:
            with EVAL_LOCK:  # the tour runs strided (and sets the broadcasting mode) in this process
                _cache[lang] = _build(lang)
    return _cache[lang]


def tour_picture(picture: Any, name: str, lang: str) -> dict[str, Any]:
    """A picture of the tour as the page draws it: ``{"header": [line, ...], "panels": [svg, ...],
    "aside": [line, ...]}``, the tensor called ``name`` (the step's own name for it) and every
    word in ``lang``; each panel (a layout and its storage) is one standalone SVG document.

    >>> import strided
    >>> p = tour_picture(strided.draw(strided.arange(6).view(2, 3), "t"), "y", "zh")
    >>> len(p["panels"]), p["panels"][0].startswith("<?xml"), "之前：y" in p["panels"][0]
    (2, True, True)
    """
    from ..diagnose.pictures import Picture
    from ..diagnose.pictures.model import Scene

    scene = picture.scene if name == "x" else relabel(picture.scene, name)
    if lang != "en":
        scene = rewrite(scene, lambda line: translate(line, lang))
    panels = [_translated_svg(Picture(Scene((), (p,))).svg(), lang) for p in scene.panels]
    return {"header": list(scene.header), "panels": panels, "aside": list(scene.aside)}


# the one line the SVG composes itself (the scene's words are translated before it is drawn): the
# storage strip's label, which names its rows
_STRIP_LABEL = re.compile(r"(<text [^>]*>)([^<]*touched\): offset / value / read by[^<]*)(</text>)")


def _translated_svg(svg: str, lang: str) -> str:
    """The SVG with its storage strips' labels in ``lang``."""
    if lang == "en":
        return svg
    from html import escape, unescape

    return _STRIP_LABEL.sub(lambda m: m[1] + escape(translate(unescape(m[2]), lang), quote=False) + m[3], svg)


def _build(lang: str) -> dict[str, Any]:
    buf = io.StringIO()
    pictures: list[dict[str, Any]] = []

    def take(picture: Any, name: str) -> str:
        pictures.append(tour_picture(picture, name, lang))
        return f"\x00picture {len(pictures) - 1}\x00"

    # (the page lays the text out itself: no terminal width, so no heading or line is wrapped here)
    run_tour(lang, pause=False, out=buf, width=10_000, pictures=take)
    bodies = _HEADING.split(buf.getvalue())[1:]
    steps = []
    for (name, _), body in zip(STEPS, bodies):
        chunks = _MARK.split(body.strip("\n"))  # text, picture number, text, ...
        parts: list[dict[str, Any]] = []
        for i, chunk in enumerate(chunks):
            if i % 2:
                parts.append({"picture": pictures[int(chunk)]})
            elif chunk.strip("\n"):
                parts.append({"text": chunk.strip("\n")})
        steps.append({
            "name": name,
            "title": text(f"{name}.title", lang),
            "text": "\n\n".join(p["text"] for p in parts if "text" in p),
            "parts": parts,
            "html": tour_step_html(parts),
            "expr": TOUR_EXPRS.get(name, ""),
            "program": ATTENTION_PROGRAM if name == "attention" else "",
        })
    return {"ok": True, "lang": lang, "steps": steps}
