"""The tour as a guided path through the page: each step's text from ``strided tour`` and, where
the step's code fits the ``strided show`` grammar, an expression the page runs beside it.

The texts are the tour's own (``cli/tour_text.py`` through :func:`strided.cli.tour.run_tour`, run
once per language with ``pause=False`` and split at its step headings), so the numbers in them
are the ones strided computes. The expressions (:data:`TOUR_EXPRS`) are the tour steps' own
tensors spelt in the show grammar; steps whose code is not a chain (``resize_``, module-level
``strided.reshape(..., order=)``, the broadcasting bug, the closing words) have none, and the
attention step also fills the watch view with its program (:data:`ATTENTION_PROGRAM`).
"""

from __future__ import annotations

import io
import re
import threading
from typing import Any

from ..cli.tour import STEPS, run_tour
from ..cli.tour_text import LANGS, text
from .show import EVAL_LOCK

__all__ = ["ATTENTION_PROGRAM", "TOUR_EXPRS", "tour_payload"]

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
_cache: dict[str, dict[str, Any]] = {}
_lock = threading.Lock()


def tour_payload(lang: str = "en") -> dict[str, Any]:
    """The tour's steps for the page: ``{"ok": True, "lang": ..., "steps": [{"name", "title",
    "text", "expr", "program"}, ...]}``; an unknown ``lang`` gives ``{"ok": False, "error": ...}``.
    Computed once per language (the tour runs strided to fill its numbers)."""
    if lang not in LANGS:
        return {"ok": False, "error": f"unknown language {lang!r}; the tour speaks {', '.join(LANGS)}"}
    with _lock:  # one run per language, even when two requests ask at once
        if lang not in _cache:
            with EVAL_LOCK:  # the tour runs strided (and sets the broadcasting mode) in this process
                _cache[lang] = _build(lang)
    return _cache[lang]


def _build(lang: str) -> dict[str, Any]:
    buf = io.StringIO()
    # (the page lays the text out itself: no terminal width, so no heading or line is wrapped here)
    run_tour(lang, pause=False, out=buf, width=10_000)
    bodies = _HEADING.split(buf.getvalue())[1:]
    steps = []
    for (name, _), body in zip(STEPS, bodies):
        steps.append({
            "name": name,
            "title": text(f"{name}.title", lang),
            "text": body.strip("\n"),
            "expr": TOUR_EXPRS.get(name, ""),
            "program": ATTENTION_PROGRAM if name == "attention" else "",
        })
    return {"ok": True, "lang": lang, "steps": steps}
