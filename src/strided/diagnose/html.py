"""HTML for notebooks and reports: watches, explanations, einsum plans and autograd graphs.

Jupyter shows an object's ``_repr_html_()``; the classes delegate to the functions here
(:func:`watch_html`, :func:`explanation_html`, :func:`einsum_plan_html`, :func:`graph_html`), and
:func:`report_page` wraps fragments into one self-contained page (``strided watch script.py
--html out.html``). The HTML is self-contained: inline CSS, inline SVG, no script, nothing
loaded from anywhere; every text from the program (op names, reasons, file names) is escaped.

A watch's summary is ``w.summary()`` (:mod:`.summary`: per source line, module path, op and
category, ranked by bytes), shown with its lines shortened (:func:`summary_rows`).

>>> import strided
>>> with strided.watch() as w:
...     x = strided.ones(3, 4).t().contiguous()
>>> html = watch_html(w)
>>> "<details" in html and "<svg" in html and "contiguous" in html
True
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from html import escape
from typing import Any

from ..ops.linalg.einsum_html import einsum_plan_html  # (beside the plan, in the ops layer; re-exported)

__all__ = ["LineRow", "einsum_plan_html", "explanation_html", "graph_html", "layout_html", "report_page", "short_where",
           "summary_rows", "watch_html"]

# One style sheet for every fragment, scoped under .strided-html so a notebook's own styles and
# ours leave each other alone (inline: a notebook's output may not load files).
STYLE = """<style>
.strided-html{font-family:system-ui,-apple-system,Segoe UI,sans-serif;font-size:13px;color:#222;line-height:1.4}
.strided-html table{border-collapse:collapse;margin:4px 0 8px 0}
.strided-html th,.strided-html td{border:1px solid #ddd;padding:2px 6px;text-align:left;vertical-align:top;
font-family:DejaVu Sans Mono,Menlo,Consolas,monospace;font-size:12px}
.strided-html th{background:#f3f3f3}
.strided-html tr.copy td{background:#fdf0e6}
.strided-html .num{text-align:right}
.strided-html .badge{display:inline-block;padding:0 6px;border-radius:3px;font-weight:600;font-size:12px}
.strided-html .badge.view{background:#e8f0fb;color:#2b4f88}
.strided-html .badge.copy{background:#fdebd8;color:#9a4a12}
.strided-html .badge.compute{background:#eee;color:#333}
.strided-html .badge.error{background:#fbe3e4;color:#9b1c20}
.strided-html pre{background:#f7f7f7;padding:6px;margin:4px 0;overflow-x:auto}
.strided-html summary{cursor:pointer;font-weight:600}
.strided-html .totals{margin:4px 0}
</style>"""


@dataclass(frozen=True)
class LineRow:
    """One row of the per-line summary as the HTML shows it: a row of ``w.summary()``
    (:class:`strided.diagnose.summary.SummaryRow`) with its ``file:line`` shortened (``line``) and
    ``nbytes`` named ``bytes``.

    ``category``: ``"layout copy"``, ``"new result"``, ``"alloc"``, ``"bilateral broadcast"`` or
    ``"regroup"``; ``reason`` the first step's, ``fix`` ``strided.explain``'s fix or ``""``.
    """

    line: str
    module: str
    op: str
    count: int
    category: str
    bytes: int
    reason: str = ""
    fix: str = ""


def short_where(where: str, files: dict[str, str] | None = None) -> str:
    """``file:line`` as shown: the file's directories dropped, or the file renamed by ``files``
    (a notebook cell's file becomes ``In [3]``).

    >>> short_where("/home/u/train.py:12"), short_where("/tmp/k/123.py:2", {"/tmp/k/123.py": "In [3]"})
    ('train.py:12', 'In [3]:2')
    """
    if files:
        path, sep, line = where.rpartition(":")
        if sep and path in files:
            return f"{files[path]}:{line}"
    return where.rsplit("/", 1)[-1]


def summary_rows(flow: Any, files: dict[str, str] | None = None) -> list[LineRow]:
    """The per-line summary of ``flow`` (a watch), ranked by bytes: the rows of ``flow.summary()``
    with their lines shortened (and renamed by ``files``, see :func:`short_where`).

    >>> import strided
    >>> with strided.watch() as w:
    ...     for _ in range(3):
    ...         y = strided.ones(2, 2).t().contiguous()
    >>> [(r.op, r.category, r.count) for r in summary_rows(w)][:1]
    [('contiguous', 'layout copy', 3)]
    """
    return [LineRow(short_where(r.where, files), r.module, r.op, r.count, r.category, r.nbytes, r.reason, r.fix)
            for r in flow.summary()]


def _table(head: tuple[str, ...], rows: list[tuple[Any, ...]], classes: list[str] | None = None,
           numeric: frozenset[int] = frozenset()) -> str:
    out = ["<table><thead><tr>", *(f"<th>{escape(h)}</th>" for h in head), "</tr></thead><tbody>"]
    for i, row in enumerate(rows):
        cls = f' class="{escape(classes[i])}"' if classes and classes[i] else ""
        out.append(f"<tr{cls}>")
        for j, cell in enumerate(row):
            num = ' class="num"' if j in numeric else ""
            out.append(f"<td{num}>{escape(str(cell))}</td>")
        out.append("</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def _bytes(n: int) -> str:
    return f"{n:,}" if n else ""


def watch_html(flow: Any, limit: int = 200, plot: bool = True, files: dict[str, str] | None = None) -> str:
    """A watch (``strided.watch()`` or ``strided.watch_torch()``) as an HTML fragment: the totals,
    the memory-over-time plot (inline SVG, :func:`~.plot.memory_svg`), the per-line summary and,
    folded in a ``<details>``, the step table (its first ``limit`` rows). ``files`` renames files
    in the lines shown (see :func:`short_where`). The summary shows its first ``limit`` lines too
    (a program of thousands of lines stays a page), each part then says how many more there are;
    a negative ``limit`` is refused (ValueError).

    >>> import strided
    >>> with strided.watch() as w:
    ...     pass
    >>> "0 steps" in watch_html(w)
    True
    """
    from .plot import format_bytes, memory_series, memory_svg

    _check_limit(limit)
    steps = list(flow.steps)
    series = memory_series(flow)
    if files and series.peak_where:
        series = replace(series, peak_where=short_where(series.peak_where, files))
    title = getattr(flow, "title", "watch")
    from .summary import copies_text

    peak = ""
    if series.peak_step >= 0:
        peak = f" at step {series.peak_step} ({series.peak_op}, {short_where(series.peak_where)})"
    parts = [f'<div class="strided-html strided-watch">{STYLE}',
             f"<div><b>{escape(title)}</b>: {len(steps)} steps</div>",
             f'<div class="totals">{escape(copies_text(flow))}, {escape(format_bytes(flow.bytes_copied))} copied; '
             f"{escape(format_bytes(flow.allocated_bytes))} allocated; peak "
             f"{escape(format_bytes(flow.peak_bytes))}{escape(peak)}</div>"]
    if plot and steps:
        parts.append(f'<div class="plot">{memory_svg(series)}</div>')
    all_rows = summary_rows(flow, files)
    rows = all_rows[:limit]
    if rows:
        parts.append("<div><b>per line</b></div>")
        parts.append(_table(("line", "module", "op", "count", "category", "bytes", "reason", "fix"),
                            [(r.line, r.module, r.op, r.count, r.category, _bytes(r.bytes), r.reason, r.fix)
                             for r in rows],
                            ["copy" if r.category == "layout copy" else "" for r in rows], frozenset({3, 5})))
    if len(all_rows) > limit:
        parts.append(f"<div>… {len(all_rows) - limit:,} more lines</div>")
    if steps:
        shown = steps[:limit]
        table = _table(("#", "op", "kind", "inputs", "output", "strides", "bytes", "marks", "where"),
                       [(s.index, f"{s.module}: {s.name}" if s.module else s.name, s.kind,
                         " ".join(str(t.shape) for t in s.inputs) or "-",
                         str(s.output.shape) if s.output else "-", str(s.output.strides) if s.output else "-",
                         _bytes(s.bytes_copied if s.kind == "copy" else s.bytes_allocated), s.marks,
                         short_where(s.where, files)) for s in shown],
                       ["copy" if s.kind == "copy" else "" for s in shown], frozenset({0, 6}))
        more = f"<div>… {len(steps) - limit:,} more steps</div>" if len(steps) > limit else ""
        parts.append(f"<details><summary>all {len(steps):,} steps</summary>{table}{more}</details>")
    parts.append("</div>")
    return "".join(parts)


def _check_limit(limit: int) -> None:
    """Refuse a negative row limit: ``rows[:-3]`` would show all but 3 and count the rest wrong."""
    if limit < 0:
        raise ValueError(f"limit must be 0 or more rows, got {limit}")


def explanation_html(e: Any) -> str:
    """An :class:`~.report.Explanation` as HTML: the outcome as a badge, the input and result
    layouts, the reason and the fixes.

    >>> import strided
    >>> e = strided.explain(strided.zeros(3, 4).t(), "view", 12)
    >>> 'badge error' in explanation_html(e)
    True
    """
    outcome = e.outcome
    head = e.call or f"{e.op}(...)"
    rows = [("input", str(e.input_shape), str(e.input_strides), str(e.input_offset))]
    if outcome != "error":
        rows.append(("result", str(e.shape), str(e.strides), str(e.offset)))
    verdict = {"view": "view: 0 bytes copied", "copy": f"copy: {e.bytes_copied:,} bytes",
               "compute": "compute: a new result"}.get(outcome, outcome)
    parts = [f'<div class="strided-html strided-explanation">{STYLE}',
             f"<div>{escape(e.library)}: <code>{escape(head)}</code> "
             f'<span class="badge {escape(outcome)}">{escape(verdict)}</span></div>']
    if e.error:
        parts.append(f"<pre>{escape(e.error)}</pre>")
    parts.append(_table(("", "shape", "strides", "offset"), rows))
    if e.reason:
        lines = [ln for ln in e.reason.splitlines() if not (e.error and ln.endswith(e.error))]
        parts.append(f"<pre>{escape(chr(10).join(lines))}</pre>")
    if e.mapping is not None and e.mapping.kind not in ("same", "empty"):
        parts.append(f"<div>dims: {escape(e.mapping.describe())}</div>")
    if e.fixes:
        parts.append("<div><b>fixes</b></div><ul>" + "".join(f"<li><code>{escape(str(f))}</code></li>" for f in e.fixes)
                     + "</ul>")
    parts.append("</div>")
    return "".join(parts)


def layout_html(e: Any) -> str:
    """A :class:`~.explain_layout.LayoutExplanation` (``strided.explain(x)``) as HTML: its text,
    escaped, in a ``<pre>`` (the layout's words line up in a monospace font).

    >>> import strided
    >>> "contiguous: C" in layout_html(strided.explain(strided.zeros(2, 3)))
    True
    """
    return f'<div class="strided-html strided-layout">{STYLE}<pre>{escape(str(e))}</pre></div>'


def graph_html(t: Any) -> str:
    """The backward graph of ``t`` (a tensor or a ``grad_fn`` node) as HTML: the picture of
    :func:`strided.autograd.graph_svg`.

    >>> import strided
    >>> x = strided.ones(2, requires_grad=True)
    >>> "<svg" in graph_html((x * 2).sum())
    True
    """
    from ..autograd.graph_picture import graph_svg

    return f'<div class="strided-html strided-graph">{graph_svg(t)}</div>'


def report_page(title: str, fragments: list[str]) -> str:
    """One self-contained HTML page: ``title`` and the ``fragments`` (HTML from the functions
    above) one after another. Nothing in it loads anything: no script, no link, no image file.

    >>> report_page("t <1>", ["<p>x</p>"]).count("<title>t &lt;1&gt;</title>")
    1
    """
    body = "\n".join(f"<section>{f}</section>" for f in fragments)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{escape(title)}</title>"
            "<style>body{margin:16px;font-family:system-ui,sans-serif}section{margin-bottom:24px}</style>"
            f"</head><body><h1 style=\"font-size:18px\">{escape(title)}</h1>\n{body}\n</body></html>\n")
