"""An :class:`~.einsum.EinsumPlan` as HTML (Jupyter's rich display of ``strided.einsum_plan``).

It sits beside the plan, in the ops layer, so the plan's ``_repr_html_`` needs nothing from the
diagnostics above it; :mod:`strided.diagnose.html` re-exports it. Self-contained: inline CSS,
no script, every text escaped.

>>> import strided
>>> plan = strided.einsum_plan("ij,jk->ik", (2, 3), (3, 4))
>>> "<table" in einsum_plan_html(plan) and "planned" in einsum_plan_html(plan)
True
"""

from __future__ import annotations

from typing import Any

__all__ = ["einsum_plan_html"]

_STYLE = ("<style>.strided-einsum{font-family:system-ui,sans-serif;font-size:13px}"
          ".strided-einsum table{border-collapse:collapse;margin:4px 0}"
          ".strided-einsum th,.strided-einsum td{border:1px solid #ddd;padding:2px 6px;text-align:left;"
          "font-family:DejaVu Sans Mono,Menlo,Consolas,monospace;font-size:12px}"
          ".strided-einsum th{background:#f3f3f3}.strided-einsum .num{text-align:right}</style>")


def einsum_plan_html(plan: Any) -> str:
    """``plan`` as an HTML fragment: its steps as a table (operands, equation, multiply-adds,
    result shape, bytes, how the operands reach the step) and the totals."""
    from html import escape  # (lazily: only a notebook asks)

    head = ("step", "operands", "equation", "multiply-adds", "result shape", "bytes", "operands reach it")
    rows = []
    for i, s in enumerate(plan.steps):
        ops = ", ".join(f"#{o}" for o in s.operands) + f" -> #{s.result}"
        how = "; ".join(str(r) for r in s.routes) or ("view" if s.madds == 0 else "reduction")
        cells = (str(i), ops, s.equation, f"{s.madds:,}", str(s.shape), f"{s.nbytes:,}", how)
        rows.append("<tr>" + "".join(f'<td{" class=num" if j in (3, 5) else ""}>{escape(c)}</td>'
                                     for j, c in enumerate(cells)) + "</tr>")
    return "".join([
        f'<div class="strided-html strided-einsum">{_STYLE}',
        f"<div>einsum <code>{escape(repr(plan.equation))}</code> ({escape(plan.dtype.name)})</div>",
        "<table><thead><tr>", *(f"<th>{h}</th>" for h in head), "</tr></thead><tbody>", *rows, "</tbody></table>",
        f"<div>multiply-adds: naive {plan.naive_madds:,}, planned {plan.planned_madds:,} "
        f"(speed-up {plan.speedup:.3g}x); largest intermediate {plan.largest_intermediate_bytes:,} bytes; "
        f"{plan.bytes_copied:,} bytes copied</div></div>"])
