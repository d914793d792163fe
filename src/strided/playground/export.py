"""``strided show "EXPR" --html FILE``: the page's step cards as one self-contained HTML file."""

from __future__ import annotations

from .render import export_html
from .show import show_payload

__all__ = ["export_expr"]


def export_expr(expr: str) -> tuple[str, str]:
    """(the HTML document, the error line or "") for ``expr``: the same pictures, badges,
    explanations and NumPy/PyTorch toggle as the playground page, inline (CSS, script, SVG)."""
    payload = show_payload(expr)
    return export_html(payload), ("" if payload["ok"] else payload["error"])
