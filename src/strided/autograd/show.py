"""``graph_text``: the backward graph of a result, as a tree a learner can read.

Each line is one node with what it hands on to each input: the gradient's shape and dtype and,
once a backward pass has run through the node, the gradient's strides (a stride 0 is an expanded
view: the gradient of a sum or an expand reads one value many times and copies nothing). The
nodes whose gradient is a **scatter into a view of a larger tensor** are marked: the gradient of
a view (select, slicing, diagonal, unfold, as_strided, split, unbind, an index) lands in the
viewed elements of a zero tensor of the base's shape, and every other element gets 0, because
the view read only its own elements of the base's storage. CopySlices (the base's history after
an in-place write into a view of it) is marked too: outside the view the base's gradient passes
unchanged, inside it the in-place op's rule runs. A node reached twice (a diamond, a reused
tensor) is printed once and referred to after.

>>> x = strided.ones(2, 3, requires_grad=True)
>>> y = (x.t() * 2).sum()
>>> print(graph_text(y))
SumBackward0 -> (3, 2) float32
└── MulBackward0 -> (3, 2) float32, a number
    └── TBackward0 -> (2, 3) float32
        └── AccumulateGrad: x.grad (2, 3) float32
>>> y.backward(); print(graph_text(y).splitlines()[0])
SumBackward0 -> (3, 2) float32 strides (0, 0) (expanded: nothing copied)
"""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor
from .graph import AccumulateGrad, Node

# The nodes whose backward writes the incoming gradient into a view of a zero tensor of the
# (larger) input's shape.
SCATTERS = {"SelectBackward0", "SliceBackward0", "DiagonalBackward0", "UnfoldBackward0", "AsStridedBackward0",
            "SplitBackward0", "UnbindBackward0", "IndexBackward0"}
COPY_SLICES = "torch::autograd::CopySlices"

_SCATTER_NOTE = "  [scatter: into a view of a zero tensor of the input's shape]"
_LEGEND = ("scatter: the gradient of a view lands in the viewed elements of a zero tensor shaped like the "
           "tensor it viewed;\n  every other element's gradient is 0, since the view read only its own "
           "elements of the storage")


def graph_text(t: Tensor) -> str:
    """The backward graph of ``t`` (see the module doc); a leaf or a tensor outside autograd says so."""
    m = t._ag
    if m is None or m.grad_fn is None:
        return "a leaf: no backward graph" + (" (requires grad)" if m is not None and m.requires_grad else "")
    lines: list[str] = []
    seen: dict[Node, int] = {}
    _walk(t.grad_fn, "", "", lines, seen)
    if any(_scatters(n) for n in seen):
        lines.append(_LEGEND)
    return "\n".join(lines)


def _scatters(node: Node) -> bool:
    return node.name() in SCATTERS or node.name() == COPY_SLICES


def _gradient(meta: Any, layout: Any) -> str:
    """One input's gradient: shape and dtype, and its strides when a backward pass recorded them."""
    if meta is None:
        return "a number"
    text = f"{meta[0]} {meta[1].name}"
    if layout is not None:
        text += f" strides {layout.strides}"
        if 0 in layout.strides and 0 not in layout.shape:
            text += " (expanded: nothing copied)"
    return text


def _describe(node: Node) -> str:
    if node.__class__ is AccumulateGrad:
        leaf = node.variable
        if leaf is None:
            return "AccumulateGrad: (the leaf is gone)"
        return f"AccumulateGrad: x.grad {leaf._layout.shape} {leaf._dtype.name}"
    metas = node.ctx or ()
    passed = node.passed or ()
    parts = [_gradient(m, passed[i] if i < len(passed) else None) for i, m in enumerate(metas)]
    text = f"{node.name()} -> " + ", ".join(parts)
    if node.name() in SCATTERS:
        text += _SCATTER_NOTE
    elif node.name() == COPY_SLICES:
        fn = getattr(node, "fn", None)
        inner = f"{fn.name()}'s rule" if fn is not None else "the in-place op's rule"
        text += (f"  [an in-place write into a view of this tensor: outside the view the gradient passes "
                 f"unchanged, inside it {inner} runs]")
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
