"""What should I fix? A watch's steps summed per source line, ranked by bytes.

``print(w)`` for :func:`strided.watch` and :func:`strided.watch_torch` opens with this summary;
a renderer (a notebook, HTML) reads the same thing as data:

- ``w.summary()`` -> ``list[SummaryRow]``: one row per (source line, ``nn.Module`` path, op,
  category), the steps of a loop's iterations grouped (a line run 125 times is one row with
  ``count`` 125), ranked by ``nbytes`` (largest first; then by count, then by first step).
  Fields: ``where`` (``file:line``), ``module`` (``""`` outside ``watch_torch`` modules), ``op``,
  ``category`` (below), ``count``, ``nbytes`` (summed over the group), ``reason`` (the first
  step's, in its own numbers), ``fix`` (``strided.explain``'s fix for that op and layout, or
  ``""``: never invented), ``steps`` (the step indices, for linking to ``w.table()``).
- ``w.table(limit=None)`` -> ``str``: the step table, one row per op; a copy row carries a line
  with its category and reason (and fix). ``limit`` rows at most, then
  ``… N more rows: w.table(limit=None)``. ``print(w)`` shows it with ``limit=40``.

Categories (:data:`CATEGORIES`), in the words a PyTorch user would use:

- ``"layout copy"``: the same elements moved into a new layout — a reshape/flatten that could
  not be a view, ``contiguous()``, ``clone()``, ``.to()``/``.float()``, ``copy_``, a ``*_copy``
  op, a kernel's hidden copy of an operand (matmul's clone of a transposed input). Often
  fixable: these are the hidden copies to hunt.
- ``"new result"``: new memory holding chosen or assembled elements — ``cat``/``stack``,
  ``topk``/``sort``, advanced indexing ``X[idx]``, ``gather``, ``index_select``, ``masked_select``,
  ``nonzero``, ``repeat``, ``flip``, ... The op's job is the new tensor; not a hidden cost.
- ``"alloc"``: new memory filled from nothing (``zeros``, ``empty``, ``arange``, ``randn``, ...).
- ``"bilateral broadcast"``: an elementwise op that stretched two operands (``(B,1) - (B,)``).
- ``"regroup"``: a reshape whose output dims mix parts of two input dims (the head-split bug).

The copy rule, decided by the op and never by the data: in :func:`strided.watch` a copy step is
a **new result** when the op is a copy-kind op of the registry (``strided.ops.table.OPS``) whose
family module is not one of the layout families (``strided.ops.copies``, ``conversions``,
``views``, ``elementwise.complex_ops``); an **alloc** when the op is a factory (``tensor(data)``
copying the user's data: "from data" in the totals); every other copy — those families, and copies a kernel
or a reshape made on its own — is a **layout copy**. In :func:`strided.watch_torch` every aten
copy op (``clone``, ``_to_copy``, ``copy_``, ``*_copy``, an allocating ``contiguous``) is a layout
copy, and the aten ops of :data:`TORCH_NEW_RESULT` (``cat``, ``index``, ``gather``, ``topk``, ...)
are new results (PyTorch counts them as allocations or computations, not copies; they are kept
out of ``w.copies``). The category is on each step (``Step.category``) and each ``CopyEvent``.

Computed results (``add``, ``matmul``'s output, ...) get no row: their memory counts in the
totals (allocated, peak) but they are the program's work, not something to fix.

Example::

    >>> x = strided.zeros(4, 6)
    >>> with strided.watch() as w:
    ...     for _ in range(3):
    ...         flat = x.t().reshape(24)      # a layout copy, 3 times
    >>> [(r.op, r.category, r.count, r.nbytes) for r in w.summary()]
    [('reshape', 'layout copy', 3, 288)]
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .flow import Flow, Step

__all__ = [
    "ALLOC",
    "BILATERAL",
    "CATEGORIES",
    "COLLECTIVE",
    "LAYOUT_COPY",
    "NEW_RESULT",
    "REGROUP",
    "SummaryRow",
    "TORCH_NEW_RESULT",
    "copies_text",
    "copy_kinds",
    "render_summary",
    "summarize",
]

LAYOUT_COPY = "layout copy"
NEW_RESULT = "new result"
ALLOC = "alloc"
BILATERAL = "bilateral broadcast"
REGROUP = "regroup"
COLLECTIVE = "collective"  # (a DTensor program's hidden collective: bytes moved between processes)
CATEGORIES = (LAYOUT_COPY, COLLECTIVE, NEW_RESULT, ALLOC, BILATERAL, REGROUP)
_RANK = {LAYOUT_COPY: 0, COLLECTIVE: 1, REGROUP: 2, BILATERAL: 3, NEW_RESULT: 4, ALLOC: 5}

# The registry's family modules whose copy-kind ops move the same elements into a new layout.
LAYOUT_FAMILIES = frozenset({"strided.ops.copies", "strided.ops.conversions", "strided.ops.views",
                             "strided.ops.elementwise.complex_ops"})

# aten ops (base names) whose result is chosen or assembled elements: new results, not copies.
TORCH_NEW_RESULT = frozenset({
    "cat", "concat", "concatenate", "stack", "hstack", "vstack", "dstack", "index_select", "embedding",
    "gather", "index", "_unsafe_index", "take", "take_along_dim", "masked_select", "nonzero", "argwhere",
    "repeat", "repeat_interleave", "tile", "topk", "sort", "argsort", "kthvalue", "unique", "_unique2",
    "unique_consecutive", "unique_dim", "flip", "roll", "rot90", "tril", "triu", "diag_embed", "block_diag",
})

# How many rows print(w) shows of the summary and of the step table before pointing at the rest.
SUMMARY_LIMIT = 20
TABLE_LIMIT = 40


def strided_copy_category(name: str) -> str:
    """The category of a strided copy step made by op ``name`` (see the module doc's rule).

    >>> strided_copy_category("cat"), strided_copy_category("contiguous"), strided_copy_category("matmul")
    ('new result', 'layout copy', 'layout copy')
    >>> strided_copy_category("tensor")
    'alloc'

    """
    category = _STRIDED.get(name)
    if category is None:
        from ..ops.table import OPS

        op = OPS.get(name)
        kind = getattr(getattr(op, "kind", None), "value", None)
        new = op is not None and kind == "copy" and op.home not in LAYOUT_FAMILIES
        # (a factory that copies, tensor(data): new memory the user asked for, an allocation)
        category = _STRIDED[name] = ALLOC if kind == "alloc" else NEW_RESULT if new else LAYOUT_COPY
    return category


_STRIDED: dict[str, str] = {}


def torch_category(name: str, kind: str) -> str:
    """The category of a ``watch_torch`` step of aten op ``name`` (base name) and watch ``kind``,
    or ``""`` for a step that gets no summary row of its own (views, computations, writes).

    >>> torch_category("clone", "copy"), torch_category("index", "alloc"), torch_category("zeros", "alloc")
    ('layout copy', 'new result', 'alloc')
    """
    if kind == "copy":
        return LAYOUT_COPY
    if kind in ("alloc", "compute") and name.removesuffix("_out") in TORCH_NEW_RESULT:
        return NEW_RESULT
    return ALLOC if kind == "alloc" else ""


@dataclass(frozen=True)
class SummaryRow:
    """One row of ``w.summary()``: the steps of one op at one source line (and module) in one
    category, grouped over a loop's iterations. ``nbytes``: bytes copied (copies), allocated
    (new results, allocs, broadcast results) or copied by the reshape (regroups; 0 for a view),
    summed. ``reason`` and ``fix`` are the first step's; ``fix`` is ``""`` where
    ``strided.explain`` has none."""

    where: str
    module: str
    op: str
    category: str
    count: int
    nbytes: int
    reason: str = ""
    fix: str = ""
    steps: tuple[int, ...] = ()


def step_rows(step: Step) -> list[tuple[str, int, str]]:
    """The (category, bytes, reason) entries one step contributes to the summary (none, one or two:
    a reshape that copies and regroups is both a layout copy and a regroup)."""
    out = []
    if step.kind == "collective":  # (its bytes: what it moves into each rank, the collective's output)
        out.append((COLLECTIVE, int(step.extra.get("bytes_out") or 0), step.reason))
    elif step.category:
        nbytes = step.bytes_copied if step.kind == "copy" else step.bytes_allocated
        out.append((step.category, nbytes, step.reason))
    if step.broadcast is not None and step.broadcast.bilateral:
        out.append((BILATERAL, step.bytes_allocated, step.broadcast.describe()))
    if step.regroups:
        out.append((REGROUP, step.bytes_copied, f"{step.name} {step.mapping.describe()}"))  # type: ignore[union-attr]
    return out


def summarize(flow: Flow) -> list[SummaryRow]:
    """The rows of ``flow.summary()`` (see the module doc), ranked by bytes."""
    groups: dict[tuple[str, str, str, str], list] = {}
    for s in flow.steps:
        for category, nbytes, reason in step_rows(s):
            key = (s.where, s.module, s.name, category)
            g = groups.get(key)
            if g is None:
                groups[key] = [0, 0, reason, s, [s.index]]
                g = groups[key]
            else:
                g[4].append(s.index)
            g[0] += 1
            g[1] += nbytes
    rows = []
    for (where, module, name, category), (count, nbytes, reason, first, steps) in groups.items():
        fix = fix_for(first) if category == LAYOUT_COPY else ""
        rows.append(SummaryRow(where, module, name, category, count, nbytes, reason, fix, tuple(steps)))
    # (ties of bytes: the fixable kinds first, then the more frequent, then the earlier)
    rows.sort(key=lambda r: (-r.nbytes, _RANK[r.category], -r.count, r.steps[0]))
    return rows


def fix_for(step: Step) -> str:
    """``strided.explain``'s first fix for a layout copy made by a reshape-like step, predicted on a
    data-free stand-in of the step's input (its shape and strides), or ``""`` when explain gives
    none (it gives one for a flattening reshape of a permuted tensor: a view in memory order)."""
    name = step.extra.get("call") or step.name
    if name not in _RESHAPE_NAMES or not step.inputs or step.output is None or step.bytes_copied <= 0:
        return ""
    # (watch_torch's copy behind a reshape is a clone of the input's shape: the call's target)
    src, target = step.inputs[0], tuple(step.extra.get("target") or step.output.shape)
    numel = 1
    for n in target:
        numel *= n
    if not numel or len(src.strides) != len(src.shape) or any(s < 0 for s in src.strides):
        return ""
    cached = _FIXES.get((src.shape, src.strides, target))
    if cached is not None:
        return cached
    try:
        from .explain import explain
        from .explain_torch import Source, _stand_in, shadow

        itemsize = step.bytes_copied // numel
        size = 1 + sum((n - 1) * s for n, s in zip(src.shape, src.strides))
        stand_in = shadow(Source("strided", src.shape, src.strides, 0, itemsize, size,
                                 _stand_in(src.dtype, itemsize), src.dtype))
        report = explain(stand_in, "reshape", *target)
        fix = str(report.fixes[0]) if report.outcome == "copy" and report.fixes else ""  # type: ignore[union-attr]
    except Exception:  # a diagnostic must never break the report it decorates
        fix = ""
    if len(_FIXES) > 1024:
        _FIXES.clear()
    _FIXES[(src.shape, src.strides, target)] = fix
    return fix


_RESHAPE_NAMES = frozenset({"reshape", "view", "flatten", "unflatten", "ravel", "reshape_as", "view_as"})
_FIXES: dict[tuple, str] = {}


def render_summary(flow: Flow, limit: int | None = SUMMARY_LIMIT, words: Callable[[str], str] | None = None) -> str:
    """The summary as text: a row per line and op (``limit`` rows at most), then the totals.

    ``words``: a text in the reader's language (the tour's Chinese): applied to the heading, the
    column heads, the categories, each reason and fix line and the totals; the columns are lined
    up by display width (a CJK character takes two columns).

    >>> import strided
    >>> with strided.watch() as w:
    ...     y = strided.ones(2, 3).t().contiguous()
    >>> render_summary(w, words=str.upper).splitlines()[1].split()
    ['WHERE', 'OP', 'CATEGORY', 'COUNT', 'BYTES']
    """
    say = words or (lambda s: s)
    rows = flow.summary()
    shown = rows if limit is None else rows[:limit]
    lines = [say(f"{flow.title}: {len(flow.steps)} steps; what to look at, by source line (largest first):")]
    if not rows:
        lines.append("  " + say("nothing: no copies, allocations, bilateral broadcasts or regrouping reshapes"))
    else:
        header = tuple(map(say, ("where", "module", "op", "category", "count", "bytes")))
        cells = [(_short(r.where), r.module, r.op, say(r.category), f"×{r.count}", f"{r.nbytes:,}") for r in shown]
        if not any(r.module for r in shown):
            header, cells = header[:1] + header[2:], [c[:1] + c[2:] for c in cells]
        widths = [max(_cols(h), *(_cols(c[i]) for c in cells)) for i, h in enumerate(header)]
        right = {len(header) - 2, len(header) - 1}

        def fmt(row: tuple[str, ...]) -> str:
            return "  " + "  ".join((" " * (w - _cols(c)) + c) if i in right else (c + " " * (w - _cols(c)))
                                    for i, (c, w) in enumerate(zip(row, widths))).rstrip()

        lines.append(fmt(header))
        for r, c in zip(shown, cells):
            lines.append(fmt(c))
            if r.reason:
                lines.append(f"      {say(r.reason)}")
            if r.fix:
                lines.append(f"      {say(f'fix: {r.fix}')}")
        if len(rows) > len(shown):
            lines.append("  " + say(f"… {len(rows) - len(shown)} more rows: w.summary()"))
    lines.append(say(totals_line(flow)))
    return "\n".join(lines)


def _cols(s: str) -> int:
    """Columns ``s`` takes in a terminal: two for a wide (CJK) character."""
    return sum(2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1 for ch in s)


def totals_line(flow: Flow) -> str:
    """The totals: copies (split by category), bytes copied, allocated, peak, bilateral broadcasts
    and regrouping reshapes."""
    bilateral = sum(1 for b in flow.broadcasts if b.bilateral)
    return (f"total: {copies_text(flow)}, {flow.bytes_copied:,} bytes copied; "
            f"{flow.allocated_bytes:,} bytes allocated, peak {flow.peak_bytes:,}; "
            f"{bilateral} bilateral broadcasts; {len(flow.regroups)} regrouping reshapes")


def copy_kinds(flow: Flow) -> dict[str, int]:
    """How many of ``flow.copies`` are layout copies, new results and data copied in (the
    playground's watch view sends these counts from its sandbox).

    >>> import strided
    >>> x, idx = strided.ones(4, 3), strided.tensor([0, 2])
    >>> with strided.watch() as w:
    ...     y = x.t().contiguous()
    ...     z = x[idx]
    >>> copy_kinds(w)
    {'layout': 1, 'new': 1, 'data': 0}
    """
    kinds = [c.category for c in flow.copies]
    return {"layout": kinds.count(LAYOUT_COPY), "new": kinds.count(NEW_RESULT), "data": kinds.count(ALLOC)}


def copies_text(flow: Flow) -> str:
    """``flow.copies`` counted, split by category when not all are layout copies (every total
    line says it the same way: print(w), the notebook's HTML, the magics' summary).

    >>> import strided
    >>> x, idx = strided.ones(4, 3), strided.tensor([0, 2])
    >>> with strided.watch() as w:
    ...     y = x.t().contiguous()
    ...     z = x[idx]
    >>> copies_text(w)
    '2 copies (1 layout, 48 bytes; 1 new results, 24 bytes)'
    """
    copies = flow.copies
    layout = [c for c in copies if c.category == LAYOUT_COPY]
    new = [c for c in copies if c.category == NEW_RESULT]
    data = [c for c in copies if c.category == ALLOC]  # (tensor(data): the user's data copied in)
    parts = [f"{len(layout)} layout, {sum(c.nbytes for c in layout):,} bytes"]
    if new:
        parts.append(f"{len(new)} new results, {sum(c.nbytes for c in new):,} bytes")
    if data:
        parts.append(f"{len(data)} from data, {sum(c.nbytes for c in data):,} bytes")
    split = f" ({'; '.join(parts)})" if new or data else ""
    return f"{len(copies)} copies{split}"


def _short(where: str) -> str:
    return where.rsplit("/", 1)[-1]
