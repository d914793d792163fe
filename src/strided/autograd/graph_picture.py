"""``graph_svg``: the backward graph of a result as a picture (standalone SVG).

The same graph :func:`~.show.graph_text` prints, drawn top-down from the result's ``grad_fn`` to
the leaves' ``AccumulateGrad``: one box per node with its name, the gradient it hands to each
input (shape and dtype; after a backward pass, a stride-0 gradient is marked "expanded"), and the
bytes of the tensors it saved for backward. Two kinds of node are marked, because they are where
a backward pass reads or writes memory differently from the forward:

- **view** (blue): the backward of a view op (``t``, ``permute``, ``view``, ``expand``, ...) —
  the gradient is a view of the incoming one, nothing copied;
- **scatter** (orange): the backward of a slice-like view (select, slicing, diagonal, an index,
  ...) and ``CopySlices`` — the gradient lands in a zero tensor of the larger input's shape.

A node reached twice (a reused tensor) is drawn once, with one arrow per use. Every text is
escaped; the output is deterministic.

>>> import strided, strided.autograd
>>> x = strided.ones(2, 3, requires_grad=True)
>>> svg = strided.autograd.graph_svg((x.t() * x.t()).sum())
>>> svg.startswith("<svg") and "MulBackward0" in svg and 'data-kind="view"' in svg
True
"""

from __future__ import annotations

import math
import re
from typing import Any

from .graph import AccumulateGrad, Node
from .show import COPY_SLICES, SCATTERS

__all__ = ["graph_svg", "node_kind", "saved_bytes"]

# The backward of a view op: the gradient is a view of the incoming gradient (its name without
# the trailing "Backward<N>").
VIEWS = frozenset({"T", "Transpose", "Permute", "View", "ReshapeAlias", "UnsafeView", "Unsqueeze", "Squeeze",
                   "Expand", "Alias", "Flatten", "Unflatten", "Movedim", "ViewAsReal", "ViewAsComplex", "Real",
                   "Imag", "Conj", "Neg_view", "Detach", "Reshape"})

FONT = "DejaVu Sans Mono, Menlo, Consolas, monospace"
CHAR_W = 6.6  # a monospace glyph at 11 px
LINE_H = 14
PAD_X, PAD_Y = 8, 6
GAP_X, GAP_Y = 24, 46
MARGIN = 16
FILL = {"view": "#e8f0fb", "scatter": "#fdebd8", "leaf": "#eaf6ea", "op": "#f6f6f6"}
STROKE = {"view": "#4c72b0", "scatter": "#dd8452", "leaf": "#55a868", "op": "#888"}


def node_kind(node: Node) -> str:
    """``"leaf"`` (AccumulateGrad), ``"scatter"``, ``"view"`` or ``"op"`` (see the module doc)."""
    if node.__class__ is AccumulateGrad:
        return "leaf"
    name = node.name()
    if name in SCATTERS or name == COPY_SLICES:
        return "scatter"
    if re.sub(r"Backward\d*$", "", name) in VIEWS:
        return "view"
    return "op"


def saved_bytes(node: Node) -> int:
    """The bytes of the tensors ``node`` saved for its backward (0 once backward freed them)."""
    total = 0
    for entry in node.saved or ():
        t = entry[0]
        total += math.prod(t._layout.shape) * t._dtype.itemsize
    return total


def _lines(node: Node) -> list[str]:
    if node.__class__ is AccumulateGrad:
        leaf = node.variable
        if leaf is None:
            return ["AccumulateGrad", "(the leaf is gone)"]
        return ["AccumulateGrad", f"x.grad {leaf._layout.shape} {leaf._dtype.name}"]
    lines = [node.name()]
    passed = node.passed or ()
    for i, meta in enumerate(node.ctx or ()):
        if meta is None:
            continue  # (an input that is a number: no gradient box to draw)
        text = f"grad {i}: {meta[0]} {meta[1].name}"
        layout = passed[i] if i < len(passed) else None
        if layout is not None and 0 in layout.strides and 0 not in layout.shape:
            text += " expanded"
        lines.append(text)
    if node.saved:
        lines.append(f"saved: {len(node.saved)} tensor{'s' if len(node.saved) != 1 else ''}, {saved_bytes(node):,} B")
    elif node.freed:
        lines.append("saved: freed by backward")
    kind = node_kind(node)
    if kind == "scatter":
        lines.append("scatter into zeros of the input's shape")
    elif kind == "view":
        lines.append("view: nothing copied")
    return lines


def graph_svg(t: Any) -> str:
    """The backward graph of ``t`` (a tensor, or a ``grad_fn`` node) as one SVG document.

    Each node is a ``<g class="node" data-kind="op|view|scatter|leaf" data-name="...">``; each edge
    a ``<line class="edge">``. A tensor without a backward graph (a leaf, or one outside
    autograd) gives a small picture saying so.

    >>> import strided, strided.autograd
    >>> print(strided.autograd.graph_svg(strided.ones(2))[:4])
    <svg
    """
    from xml.sax.saxutils import escape, quoteattr  # (lazily: strided.autograd loads with strided)

    node = t if isinstance(t, Node) else (t._ag.grad_fn if getattr(t, "_ag", None) is not None else None)
    if node is None:
        return _message("a leaf: no backward graph")
    # the nodes in a depth-first order, each at its longest distance from the root (so every
    # arrow points down), reused nodes once
    order: list[Node] = []
    seen: set[int] = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        order.append(n)
        kids = [k for k, _ in n.next_functions if k is not None]
        stack.extend(reversed(kids))
    index = {id(n): i for i, n in enumerate(order)}
    depth = [0] * len(order)
    # longest path: relax in a topological order (Kahn's algorithm over the edges)
    parents = [0] * len(order)
    for n in order:
        for k, _ in n.next_functions:
            if k is not None:
                parents[index[id(k)]] += 1
    ready = [0]
    while ready:
        i = ready.pop()
        for k, _ in order[i].next_functions:
            if k is None:
                continue
            j = index[id(k)]
            depth[j] = max(depth[j], depth[i] + 1)
            parents[j] -= 1
            if parents[j] == 0:
                ready.append(j)
    rows: dict[int, list[int]] = {}
    for i in range(len(order)):
        rows.setdefault(depth[i], []).append(i)
    texts = [_lines(n) for n in order]
    sizes = [(max(len(s) for s in lines) * CHAR_W + 2 * PAD_X, len(lines) * LINE_H + 2 * PAD_Y) for lines in texts]
    row_w = {d: sum(sizes[i][0] for i in ids) + GAP_X * (len(ids) - 1) for d, ids in rows.items()}
    row_h = {d: max(sizes[i][1] for i in ids) for d, ids in rows.items()}
    width = max(row_w.values()) + 2 * MARGIN
    pos: dict[int, tuple[float, float]] = {}
    y = MARGIN
    for d in sorted(rows):
        x = MARGIN + (width - 2 * MARGIN - row_w[d]) / 2
        for i in rows[d]:
            pos[i] = (x, y)
            x += sizes[i][0] + GAP_X
        y += row_h[d] + GAP_Y
    height = y - GAP_Y + MARGIN + LINE_H
    els: list[str] = []
    for i, n in enumerate(order):
        x0, y0 = pos[i]
        for k, _ in n.next_functions:
            if k is None:
                continue
            j = index[id(k)]
            x1, y1 = pos[j]
            els.append(f'<line class="edge" x1="{_n(x0 + sizes[i][0] / 2)}" y1="{_n(y0 + sizes[i][1])}" '
                       f'x2="{_n(x1 + sizes[j][0] / 2)}" y2="{_n(y1)}" stroke="#777" marker-end="url(#arrow)"/>')
    for i, n in enumerate(order):
        x0, y0 = pos[i]
        kind = node_kind(n)
        name = texts[i][0]
        els.append(f'<g class="node" data-kind="{kind}" data-name={quoteattr(name)} '
                   f'data-saved-bytes="{saved_bytes(n)}" transform="translate({_n(x0)},{_n(y0)})">'
                   f'<title>{escape(name)}</title>'
                   f'<rect width="{_n(sizes[i][0])}" height="{_n(sizes[i][1])}" rx="4" fill="{FILL[kind]}" '
                   f'stroke="{STROKE[kind]}" stroke-width="{1.8 if kind != "op" else 1}"/>')
        for li, line in enumerate(texts[i]):
            weight = ' font-weight="bold"' if li == 0 else ""
            els.append(f'<text x="{PAD_X}" y="{_n(PAD_Y + LINE_H * (li + 1) - 3)}" font-size="11"{weight} '
                       f'fill="#222">{escape(line)}</text>')
        els.append("</g>")
    legend = ("blue: a view's backward (nothing copied); orange: a scatter into zeros of the input's shape; "
              "green: a leaf's gradient")
    els.append(f'<text x="{MARGIN}" y="{_n(height - 6)}" font-size="10" fill="#555">{escape(legend)}</text>')
    width = max(width, len(legend) * 6 + 2 * MARGIN)
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" class="strided-autograd-graph" width="{_n(width)}" '
            f'height="{_n(height)}" viewBox="0 0 {_n(width)} {_n(height)}" font-family="{FONT}" '
            f'data-nodes="{len(order)}">'
            '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" '
            'orient="auto-start-reverse"><path d="M0 0L10 5L0 10z" fill="#777"/></marker></defs>'
            f'<rect width="{_n(width)}" height="{_n(height)}" fill="#fff"/>')
    return head + "".join(els) + "</svg>"


def _message(text: str) -> str:
    from xml.sax.saxutils import escape

    w = len(text) * CHAR_W + 2 * MARGIN
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="strided-autograd-graph" width="{_n(w)}" height="40" '
            f'viewBox="0 0 {_n(w)} 40" font-family="{FONT}" data-nodes="0"><text x="{MARGIN}" y="24" '
            f'font-size="11" fill="#555">{escape(text)}</text></svg>')


def _n(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")
