"""HTML for the playground: the step cards, the watch result, the page, and the one-file export.

Python renders every fragment (the page's script only inserts them and wires the hover and the
toggles), so the live page and ``strided show "EXPR" --html FILE`` show the same thing from one
renderer. The page is :data:`TEMPLATE` (``static/page.html``) with the stylesheet and the script
inlined: no build step, nothing fetched from anywhere.
"""

from __future__ import annotations

import json
import re
from html import escape
from importlib import resources
from typing import Any

__all__ = ["export_html", "page_html", "steps_html", "summary_html", "tour_step_html", "watch_html"]

EXAMPLES: tuple[tuple[str, str], ...] = (
    ("arange(24).reshape(2,3,4).permute(2,0,1).reshape(4,6)", "permute, then reshape: still a view (no copy)"),
    ("arange(24).reshape(2,3,4).permute(2,0,1).reshape(6,4)", "the same, regrouped: a copy"),
    ("arange(12).reshape(3,4).t().view(12)", "view of a transpose: an error, explained"),
    ("arange(12).reshape(3,4)[:, ::2].contiguous()", "a strided slice made contiguous"),
    ("arange(4).view(4,1).expand(4,3)", "expand: stride 0, no copy"),
    ("arange(120).view(2,3,4,5).permute(0,2,3,1).flatten(start_dim=1)", "channels last, flattened"),
)
"""(expression, what it shows): the examples offered under the input."""


def _static(name: str) -> str:
    return resources.files(__package__).joinpath("static", name).read_text(encoding="utf-8")


def _svg_inline(svg: str) -> str:
    """A standalone SVG document as an element to place in HTML (without its XML declaration)."""
    return svg.split("?>", 1)[1].lstrip() if svg.startswith("<?xml") else svg


def _badge_text(step: dict[str, Any]) -> str:
    mark = step["mark"]
    # the badge always says view or copy (the page's contract), even for a constructor or a failure
    return mark if ("view" in mark or "copy" in mark) else f"{mark} · no view, no copy"


def step_html(step: dict[str, Any]) -> str:
    """One step card (``<section class="step">``): call, badge, picture, explanation, peers."""
    parts = [f'<section class="step kind-{escape(step["kind"])}" data-index="{step["index"]}">',
             f'<h3><span class="num">{step["index"]}.</span> <code class="call">{escape(step["text"])}</code> '
             f'<span class="badge badge-{escape(step["badge"])}">{escape(_badge_text(step))}</span></h3>']
    if step["explanation"]:
        parts.append(f'<pre class="explanation">{escape(step["explanation"])}</pre>')
    if step["svg"]:
        parts.append(f'<div class="picture" title="{escape(step["pictured"])}">{_svg_inline(step["svg"])}</div>')
    parts.append('<div class="peers">'
                 f'<div class="peer peer-numpy"><h4>NumPy</h4><pre>{escape(step["numpy"])}</pre></div>'
                 f'<div class="peer peer-torch"><h4>PyTorch</h4><pre>{escape(step["torch"])}</pre></div>'
                 '</div></section>')
    return "".join(parts)


def tour_step_html(parts: list[dict[str, Any]]) -> str:
    """One tour step's body (the ``parts`` of :func:`~.tour.tour_payload`): its prose in
    ``<pre class="tour-prose">`` blocks, each picture as a ``<figure class="tour-picture">``: its
    header lines, its panels' SVGs side by side while they fit (one under the other in a narrow
    window) and its aside (a predicted error). Every text is escaped."""
    out = []
    for part in parts:
        if "text" in part:
            out.append(f'<pre class="tour-prose">{escape(part["text"])}</pre>')
            continue
        pic = part["picture"]
        lines = "".join(f"<p>{escape(line)}</p>" for line in pic["header"])
        panels = "".join(f'<div class="picture">{_svg_inline(svg)}</div>' for svg in pic["panels"])
        aside = "".join(f"<p>{escape(line)}</p>" for line in pic["aside"])
        out.append('<figure class="tour-picture">'
                   + (f'<figcaption>{lines}</figcaption>' if lines else "")
                   + f'<div class="panels">{panels}</div>'
                   + (f'<div class="aside">{aside}</div>' if aside else "") + "</figure>")
    return "".join(out)


def steps_html(payload: dict[str, Any]) -> str:
    """All the step cards of a :func:`~.show.show_payload` answer (empty for an error answer)."""
    return "\n".join(step_html(s) for s in payload.get("steps", ()))


# a summary row's class: the colour of the step table's mark for the same kind of memory
_SUMMARY_CLASS = {"layout copy": "cat-copy", "new result": "cat-alloc", "alloc": "cat-alloc",
                  "bilateral broadcast": "cat-bilateral", "regroup": "cat-regroup"}


def summary_html(rows: list[dict[str, Any]]) -> str:
    """The watch's summary (the rows of ``w.summary()``, as :mod:`strided.diagnose.summary` ranks
    them: per source line, op and category, largest first) as a table; the module column only
    when a row has one. Every text is escaped."""
    if not rows:
        return ('<p class="watch-summary-empty">nothing to look at: no copies, allocations, '
                'bilateral broadcasts or regrouping reshapes</p>')
    module = any(r["module"] for r in rows)
    head = ("line", *(("module",) if module else ()), "op", "count", "category", "bytes", "reason", "fix")
    body = []
    for r in rows:
        cells = (r["line"], *((r["module"],) if module else ()), r["op"], f'×{r["count"]}', r["category"],
                 f'{r["bytes"]:,}' if r["bytes"] else "", r["reason"], r["fix"])
        body.append(f'<tr class="{_SUMMARY_CLASS.get(r["category"], "")}">'
                    + "".join(f"<td>{escape(str(c))}</td>" for c in cells) + "</tr>")
    return ('<div class="scroll"><table class="watch-table watch-summary"><thead><tr>'
            + "".join(f"<th>{h}</th>" for h in head) + "</tr></thead><tbody>" + "".join(body) + "</tbody></table></div>")


def watch_html(result: dict[str, Any]) -> str:
    """The watch view's answer: the totals, the summary (what to look at, per source line:
    :func:`summary_html`), the memory-over-time plot, the shape-flow table with copies,
    allocations and bilateral broadcasts marked (row classes ``copy``, ``alloc``, ``bilateral``),
    ``str(w)`` folded below it, the program's output, and the error line if it failed."""
    parts = []
    if result.get("error"):
        parts.append(f'<div class="watch-error">{escape(result["error"])}</div>')
    steps = result.get("steps")
    if steps is not None:
        head = ("#", "op", "kind", "inputs", "output", "strides", "bytes", "marks", "where")
        rows = []
        for s in steps:
            cls = " ".join(c for c in ("copy", "alloc", "bilateral") if s.get(c))
            cells = (s["index"], s["name"], s["kind"], s["inputs"], s["output"], s["strides"],
                     f'{s["bytes"]:,}' if s["bytes"] else "", s["marks"], s["where"])
            rows.append(f'<tr class="{cls}">' + "".join(f"<td>{escape(str(c))}</td>" for c in cells) + "</tr>")
        regroups = f', {result["regroups"]} regrouping reshapes' if "regroups" in result else ""
        kinds = result.get("copy_kinds")  # (a layout copy is not a new result: issue 24's point)
        split = (f' ({kinds["layout"]} layout copies, {kinds["new"]} new results, {kinds["data"]} from data;'
                 f' {result["bytes_copied"]:,} bytes copied)' if kinds
                 else f' ({result["bytes_copied"]:,} bytes copied)')
        parts.append(f'<p class="watch-totals">{result["copies"]} copies{split}, '
                     f'{result["allocated"]:,} bytes allocated (peak {result["peak"]:,}), '
                     f'{result["bilateral"]} bilateral broadcasts{regroups}</p>')
        if result.get("summary") is not None:
            parts.append(summary_html(result["summary"]))
        if result.get("memory"):  # the memory-over-time plot (its numbers type-checked; its texts escaped)
            from ..diagnose.plot import MemorySeries, memory_svg

            parts.append(f'<div class="watch-plot">{memory_svg(MemorySeries.from_dict(result["memory"]))}</div>')
        parts.append('<div class="scroll"><table class="watch-table watch-steps"><thead><tr>'
                     + "".join(f"<th>{h}</th>" for h in head)
                     + "</tr></thead><tbody>" + "".join(rows) + "</tbody></table></div>")
        total = result.get("steps_total", len(steps))
        if total > len(steps):
            parts.append(f'<p class="watch-more">… {total - len(steps):,} more steps (the table shows the first '
                         f'{len(steps):,} of {total:,})</p>')
        # (the same report as text, as print(w) gives it: folded, the tables above say it already)
        parts.append(f'<details><summary>as text: print(w)</summary>'
                     f'<pre class="watch-text">{escape(result.get("table", ""))}</pre></details>')
    if result.get("output"):
        parts.append(f'<h4>output</h4><pre class="watch-output">{escape(result["output"])}</pre>')
    return "".join(parts)


def _page(*, title: str, expr: str, steps: str, error: str, export: bool, config: dict[str, Any],
          nonce: str = "", watch_note: str = "") -> str:
    examples = "".join(f'<li><a href="?expr={escape(e)}" class="example" data-expr="{escape(e)}">'
                       f'<code>{escape(e)}</code></a> <span class="why">{escape(why)}</span></li>'
                       for e, why in EXAMPLES)
    values = {
        "TITLE": escape(title), "EXPR": escape(expr), "STEPS": steps, "EXAMPLES": examples,
        "ERROR": escape(error), "ERROR_HIDDEN": "" if error else "hidden", "EXPORT": "1" if export else "0",
        "CSS": _static("page.css"), "JS": _static("page.js"),
        # inside a <script> block: "</" must not end it early
        "CONFIG": json.dumps(config).replace("</", "<\\/"),
        "NONCE": escape(nonce), "WATCH_NOTE": escape(watch_note),
    }
    # one pass, so that text inserted for one placeholder is never read as another
    return re.sub(r"\{\{(\w+)\}\}", lambda m: values[m.group(1)], _static("page.html"))


def page_html(*, token: str = "", watch: dict[str, str] | None = None, nonce: str = "") -> str:
    """The playground's page as the server sends it (the script fills it from the JSON API).

    ``token`` goes into the page's config: its script sends it with every API call (the page is
    served only to a request that already carries it). ``watch`` is the server's watch status
    (``mode`` "sandbox" / "unsandboxed" / "off" and a ``note`` shown above the watch view).
    ``nonce`` marks the page's one script for its Content-Security-Policy."""
    watch = watch or {"mode": "off", "note": "the watch view is off"}
    return _page(title="strided playground", expr="", steps="", error="", export=False, nonce=nonce,
                 config={"export": False, "token": token, "watch": watch["mode"]}, watch_note=watch["note"])


def export_html(payload: dict[str, Any]) -> str:
    """One self-contained HTML file of a :func:`~.show.show_payload` answer: the same cards as the
    page (pictures inline, explanations, the NumPy/PyTorch toggle, hover), no server, no
    external assets."""
    expr = payload.get("expr", "")
    return _page(title=f"strided show {expr}", expr=expr, steps=steps_html(payload),
                 error=payload.get("error", "") if not payload.get("ok") else "", export=True,
                 config={"export": True})
