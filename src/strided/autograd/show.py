"""``graph_text``: the backward graph of a result, as a tree a learner can read.

Each line is one node with what it hands on: the shape and dtype of the gradient it passes to
each input, and, for the nodes that scatter into a view of a larger tensor (select, slicing,
diagonal, unfold, as_strided, split, unbind), a note that they build a zero tensor of the input's
shape and add the gradient into the viewed elements. A node reached twice (a diamond, a reused
tensor) is printed once and referred to after.

>>> x = strided.ones(2, 3, requires_grad=True)
>>> print(graph_text((x.t() * 2).sum()))
SumBackward0 -> (3, 2) float32
└── MulBackward0 -> (3, 2) float32, a number
    └── TBackward0 -> (2, 3) float32
        └── AccumulateGrad: x.grad (2, 3) float32
"""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor
from .graph import AccumulateGrad, Node

SCATTERS = {"SelectBackward0", "SliceBackward0", "DiagonalBackward0", "UnfoldBackward0", "AsStridedBackward0",
            "SplitBackward0", "UnbindBackward0"}


def graph_text(t: Tensor) -> str:
    """The backward graph of ``t`` (see the module doc); a leaf or a tensor outside autograd says so."""
    m = t._ag
    if m is None or m.grad_fn is None:
        return "a leaf: no backward graph" + (" (requires grad)" if m is not None and m.requires_grad else "")
    lines: list[str] = []
    seen: dict[Node, int] = {}
    _walk(m.grad_fn, "", "", lines, seen)
    return "\n".join(lines)


def _describe(node: Node) -> str:
    if node.__class__ is AccumulateGrad:
        leaf = node.variable
        if leaf is None:
            return "AccumulateGrad: (the leaf is gone)"
        return f"AccumulateGrad: x.grad {leaf._layout.shape} {leaf._dtype.name}"
    metas = node.ctx or ()
    parts = [f"{m[0]} {m[1].name}" if m is not None else "a number" for m in metas]
    text = f"{node.name()} -> " + ", ".join(parts)
    if node.name() in SCATTERS:
        text += "  (scatters into a view of a zero tensor of the input's shape)"
    if node.freed:
        text += "  [freed by backward]"
    return text


def _walk(node: Node, lead: str, branch: str, lines: list, seen: dict[Node, Any]) -> None:
    if node in seen:
        name = "AccumulateGrad" if node.__class__ is AccumulateGrad else node.name()
        lines.append(f"{lead}{branch}{name} (#{seen[node]}, above)")
        return
    seen[node] = len(seen) + 1
    lines.append(f"{lead}{branch}{_describe(node)}")
    kids = [n for n, _ in node.next_functions if n is not None]
    child_lead = lead + ("    " if branch in ("", "└── ") else "│   ")
    for i, kid in enumerate(kids):
        _walk(kid, child_lead if branch else "", "└── " if i == len(kids) - 1 else "├── ", lines, seen)
