"""The records a watch keeps, shared by ``watch`` (strided programs) and ``watch_torch`` (PyTorch).

A watch turns the ops a program runs into :class:`Step` rows — the shape flow of the program,
"the contract on paper" — and keeps three views of them (and the summary of
:mod:`.summary`: ``w.summary()``, ``w.table()``): the copies (:class:`CopyEvent`), the
broadcasts (:class:`Broadcast`) and the memory tally (:class:`MemoryTally`: every allocation,
and the peak of what was alive at once). :class:`Flow` holds them and prints the table; the two
watches differ only in where their steps come from.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..ops.shape.broadcasting import stretched_dims
from .dims import DimMapping
from .summary import LAYOUT_COPY, TABLE_LIMIT, SummaryRow, fix_for, render_summary, summarize, totals_line

__all__ = ["Broadcast", "CopyEvent", "Flow", "MemoryTally", "Step", "TensorInfo", "broadcast_of"]

Shape = tuple[int, ...]


@dataclass(frozen=True)
class TensorInfo:
    """An operand or result as the table shows it: ``shape``, ``strides`` (elements), ``dtype`` name."""

    shape: Shape
    strides: Shape
    dtype: str = ""

    def __str__(self) -> str:
        return f"{self.shape}"

    def __reduce__(self) -> tuple:
        # (a symbolic size or stride, a SymInt, does not pickle: it travels as its name)
        return (TensorInfo, (_named(self.shape), _named(self.strides), self.dtype))


class SymbolicDim(str):
    """A symbolic size or stride (a ``SymInt`` of a fake tensor traced with dynamic shapes) in a
    pickled report: its name, e.g. ``s0`` or ``2*s0``, which prints as the SymInt did
    (``(s0, 3)``, no quotes)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return str.__str__(self)


def _named(dims: tuple) -> tuple:
    """``dims`` with each number that is not an ``int`` (a SymInt) as its :class:`SymbolicDim`."""
    if all(type(d) is int for d in dims):
        return dims
    return tuple(d if type(d) is int else SymbolicDim(d) for d in dims)


@dataclass(frozen=True)
class Broadcast:
    """One broadcasting op: operand ``shapes`` (tensors; a 0-d one stands for a scalar), the
    ``result`` shape, for each operand the result dims it is ``stretched`` along, and whether it
    is ``bilateral`` — two or more operands with dims stretched, the ``(B,1) - (B,)`` kind."""

    name: str
    shapes: tuple[Shape, ...]
    result: Shape
    stretched: tuple[Shape, ...]
    bilateral: bool
    where: str = ""
    step: int = -1

    def describe(self) -> str:
        ops = " and ".join(f"{s} along dims {d}" for s, d in zip(self.shapes, self.stretched) if d)
        kind = "bilateral broadcast" if self.bilateral else "broadcast"
        return f"{kind}: {self.name}{tuple(self.shapes)} -> {self.result}; stretched: {ops or 'none'}"


def broadcast_of(name: str, shapes: Sequence[Shape], result: Shape, where: str = "", step: int = -1) -> Broadcast | None:
    """The :class:`Broadcast` of an elementwise op on tensor operands of ``shapes`` giving ``result``,
    or None when no operand is stretched. 0-d operands (scalars) are never counted as stretched."""
    stretched = tuple(stretched_dims(s, result) if s else () for s in shapes)
    if not any(stretched):
        return None
    bilateral = sum(1 for d in stretched if d) >= 2
    return Broadcast(name, tuple(tuple(s) for s in shapes), tuple(result), stretched, bilateral, where, step)


@dataclass(frozen=True)
class CopyEvent:
    """One copy: ``nbytes`` written into new memory by step ``step`` (``name``), ``reason`` in
    words, the user's ``where``, and ``asked``: whether the user's own call asked for it (``clone``,
    ``contiguous``, ``to``, ``copy_``) rather than it happening behind another op; ``category``:
    ``"layout copy"`` (the same elements in a new layout: a reshape that could not view,
    ``contiguous``, ``.to()``, a kernel's hidden copy) or ``"new result"`` (chosen or assembled
    elements: ``cat``, ``topk``, ``X[idx]``, ``gather``, ...), by the rule of :mod:`.summary`."""

    step: int
    name: str
    nbytes: int
    reason: str
    where: str
    shape: Shape = ()
    dtype: str = ""
    asked: bool = False
    module: str = ""
    category: str = ""  # "layout copy" or "new result" (see strided.diagnose.summary for the rule)


@dataclass
class Step:
    """One op as the watch saw it.

    ``kind``: "view", "copy", "compute" (a new result computed), "alloc" (new memory filled from
    nothing or assembled from parts: creation, ``cat``, ...) or "write" (an in-place op).
    ``bytes_copied`` is what a copy wrote; ``bytes_allocated`` the new memory the step made.
    ``mapping`` is the reshape dim mapping for reshape-like steps (``regroups`` says whether it
    mixes dims); ``broadcast`` the :class:`Broadcast` of an elementwise step that stretched an
    operand; ``module`` the ``nn.Module`` path it ran in (``watch_torch``), ``reason`` why it copied;
    ``category`` its summary category (``"layout copy"``, ``"new result"``, ``"alloc"`` or ``""``:
    see :mod:`.summary`).
    """

    index: int
    name: str
    kind: str
    inputs: tuple[TensorInfo, ...]
    output: TensorInfo | None
    where: str = ""
    bytes_copied: int = 0
    bytes_allocated: int = 0
    reason: str = ""
    module: str = ""
    mapping: DimMapping | None = None
    broadcast: Broadcast | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    category: str = ""

    @property
    def regroups(self) -> bool:
        return self.mapping is not None and self.mapping.kind == "regroup"

    @property
    def marks(self) -> str:
        """The table's marks column: ``COPY``, ``bilateral``, ``regroups``."""
        marks = []
        if self.kind == "copy":
            marks.append("COPY")
        if self.broadcast is not None and self.broadcast.bilateral:
            marks.append("bilateral")
        if self.regroups:
            marks.append("regroups")
        return " ".join(marks)


class _KeyedRef(weakref.ref):
    """A weak reference to a counted buffer's owner that knows the owner's key (its ``id``)."""

    __slots__ = ("key",)


class MemoryTally:
    """All memory allocated while watching, and the peak of what was alive at once.

    :meth:`allocated` registers a new buffer (any object that can be weakly referenced and dies
    with the memory: a strided ``Storage``, a torch ``UntypedStorage``'s owner, ...) with its
    bytes; when the object goes, its bytes stop counting as alive. Buffers made before the
    watch, or whose death cannot be observed, are not counted.

    With a ``clock`` (a function giving the index of the step being recorded now), every change
    of the alive bytes is also kept in :attr:`timeline` as ``(step, alive bytes after it)``, and
    :attr:`peak_step` is the step during which the peak was reached (-1: none): the memory-over-time
    plot (:mod:`strided.diagnose.plot`) reads them.
    """

    def __init__(self, clock: Callable[[], int] | None = None) -> None:
        self.allocated_bytes = 0
        self.alive_bytes = 0
        self.peak_bytes = 0
        self.clock = clock
        self.timeline: list[tuple[int, int]] = []
        self.peak_step = -1
        # id(owner) -> [the weak reference whose callback un-counts it, its bytes now] (kept
        # alive here: a weakref.ref with a callback is 10x cheaper to make than a weakref.finalize)
        self._seen: dict[int, list] = {}
        # (one bound method for every reference, which carries its owner's key itself: half the
        # cost of a functools.partial per buffer, on watch_torch's path for every new tensor;
        # made when the first buffer is counted, not here: the bound method is a reference cycle
        # through the tally, and a tally that counted nothing -- the one ``Flow.__init__`` makes
        # and ``watch_torch`` replaces, whose clock is the watch's -- then goes with its last
        # reference instead of waiting, the whole watch with it, for the garbage collector)
        self._on_collected: Any = None

    def allocated(self, owner: Any, nbytes: int) -> bool:
        """Count ``owner``'s ``nbytes`` as new and alive until ``owner`` is collected; False
        (nothing counted) if ``owner`` was counted already or cannot be weakly referenced."""
        key = id(owner)
        seen = self._seen
        if key in seen:
            return False
        callback = self._on_collected
        if callback is None:
            callback = self._on_collected = self._collected
        try:
            ref = _KeyedRef(owner, callback)
        except TypeError:
            return False
        ref.key = key
        seen[key] = [ref, nbytes]
        # (_grow, inlined: this runs once per new buffer)
        self.allocated_bytes += nbytes
        alive = self.alive_bytes = self.alive_bytes + nbytes
        clock = self.clock
        if clock is None:
            if alive > self.peak_bytes:
                self.peak_bytes = alive
            return True
        now = clock()  # (read once: the clock does not move inside this call)
        if alive > self.peak_bytes:
            self.peak_bytes = alive
            self.peak_step = now
        self.timeline.append((now, alive))
        return True

    def resized(self, owner: Any, nbytes: int) -> None:
        """``owner`` now holds a new buffer of ``nbytes`` (a storage grown by ``resize_``): the new
        buffer counts as allocated, and the old one (if counted) stops being alive once the new
        one exists — so the peak sees both at once, as the copy between them does."""
        entry = self._seen.get(id(owner))
        if entry is None:
            self.allocated(owner, nbytes)
            return
        self._grow(nbytes)
        self.alive_bytes -= entry[1]
        entry[1] = nbytes
        self._tick()

    def _grow(self, nbytes: int) -> None:
        self.allocated_bytes += nbytes
        self.alive_bytes += nbytes
        if self.alive_bytes > self.peak_bytes:
            self.peak_bytes = self.alive_bytes
            if self.clock is not None:
                self.peak_step = self.clock()
        self._tick()

    def _tick(self) -> None:
        """Keep the alive bytes now on the timeline, at the step being recorded (with a clock)."""
        if self.clock is not None:
            self.timeline.append((self.clock(), self.alive_bytes))

    def transient(self, nbytes: int) -> None:
        """Count ``nbytes`` that no object owns (a kernel's own copy) as new and alive, until
        :meth:`released` says they are gone."""
        self._grow(nbytes)

    def withdrawn(self, nbytes: int) -> None:
        """Take back ``nbytes`` counted by :meth:`transient` that turned out to be a buffer an
        object owns (counted again by :meth:`resized`): neither allocated twice nor alive."""
        self.allocated_bytes -= nbytes
        self.alive_bytes -= nbytes
        self._tick()

    def released(self, nbytes: int) -> None:
        """``nbytes`` counted by :meth:`transient` are no longer alive."""
        self.alive_bytes -= nbytes
        self._tick()

    def __getstate__(self) -> dict[str, Any]:
        """The totals and the timeline, as they are now: a pickled tally is a snapshot (its
        references to live buffers, and its clock, stay behind; it counts nothing more)."""
        state = dict(self.__dict__)
        state["_seen"] = {}
        state["clock"] = None
        state.pop("_on_collected", None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._on_collected = None

    def _collected(self, ref: _KeyedRef) -> None:
        """The callback of an owner's reference (its owner is being collected: its id is not
        reused before this runs): its bytes stop counting as alive."""
        entry = self._seen.pop(ref.key, None)
        if entry is not None:
            alive = self.alive_bytes = self.alive_bytes - entry[1]
            clock = self.clock
            if clock is not None:
                self.timeline.append((clock(), alive))


class Flow:
    """The steps a watch saw, in order, and what follows from them.

    Reports: :meth:`summary` (what to fix, as data), :meth:`table` (one row per step) and
    ``str(flow)`` (the summary, then the table's first 40 rows).

    Subclasses fill :attr:`steps` (and :attr:`memory`); a Flow is entered once (a second
    ``with`` raises ValueError) and keeps what it recorded after the block ends, also when an
    exception ended it.
    """

    title = "watch"

    def __init__(self) -> None:
        self.steps: list[Step] = []
        self.memory = MemoryTally(self._now)

    def _now(self) -> int:
        """The index of the step being recorded now (the memory tally's clock)."""
        return len(self.steps)

    def _open(self) -> bool:
        """Whether the block is recording now (entered, not yet exited)."""
        return False

    def _live_state(self) -> dict[str, Any]:
        """The attributes that belong to the recording, not to the report, and what a pickled
        copy has instead (hooks, modes, frames, weak references: they cannot leave the process)."""
        return {}

    def __getstate__(self) -> dict[str, Any]:
        """A finished report pickles: its steps and totals, without the recording machinery (the
        unpickled copy reports the same, and cannot be entered). An open block cannot: TypeError."""
        if self._open():
            raise TypeError(f"cannot pickle a {self.title}() block while it is open (it is still recording): "
                            f"pickle it after the with block ends")
        self.steps  # noqa: B018 (a lazily built report is built now, while its raw records are here)
        state = dict(self.__dict__)
        state.update(self._live_state())
        return state

    @property
    def copies(self) -> list[CopyEvent]:
        """The copies, in order, each with its reason and the user's line."""
        return [
            CopyEvent(s.index, s.name, s.bytes_copied, s.reason, s.where,
                      s.output.shape if s.output else (), s.output.dtype if s.output else "",
                      bool(s.extra.get("asked")), s.module, s.category)
            for s in self.steps if s.kind == "copy"
        ]

    @property
    def bytes_copied(self) -> int:
        return sum(s.bytes_copied for s in self.steps if s.kind == "copy")

    @property
    def broadcasts(self) -> list[Broadcast]:
        """Every step that stretched an operand (``bilateral`` marks the two-sided ones)."""
        return [s.broadcast for s in self.steps if s.broadcast is not None]

    @property
    def regroups(self) -> list[Step]:
        """The reshape steps whose output dims mix parts of two input dims."""
        return [s for s in self.steps if s.regroups]

    @property
    def allocated_bytes(self) -> int:
        return self.memory.allocated_bytes

    @property
    def peak_bytes(self) -> int:
        return self.memory.peak_bytes

    def summary(self) -> list[SummaryRow]:
        """What to fix, as data: the copies, new results, allocations, bilateral broadcasts and
        regrouping reshapes summed per source line (and module), ranked by bytes; see
        :mod:`strided.diagnose.summary` for the fields and the categories.

        >>> with strided.watch() as w:
        ...     for _ in range(2):
        ...         y = strided.zeros(3, 4).t().contiguous()
        >>> [(r.op, r.category, r.count, r.nbytes) for r in w.summary()]
        [('contiguous', 'layout copy', 2, 96), ('zeros', 'alloc', 2, 96)]
        """
        return summarize(self)

    def table(self, limit: int | None = None) -> str:
        """The step table: one row per op (``limit`` rows at most, then a line saying how many
        more), copy rows followed by their category, reason and fix, then the totals.

        >>> with strided.watch() as w:
        ...     z = strided.zeros(2, 3)
        >>> print(w.table(limit=0).splitlines()[2])
        … 1 more rows: w.table(limit=None)
        """
        return render_table(self, limit)

    def __str__(self) -> str:
        """The summary (:meth:`summary`), then the first 40 rows of :meth:`table`."""
        return render_summary(self) + "\n\n" + render_table(self, TABLE_LIMIT, totals=False)

    def _repr_html_(self) -> str:
        """Jupyter's rich display: totals, the memory plot, the per-line summary, the steps folded."""
        from .html import watch_html  # (lazily: only a notebook asks)

        return watch_html(self)


def render_table(flow: Flow, limit: int | None = None, totals: bool = True) -> str:
    """The shape flow as a compact table: one row per step (``limit`` at most), copies / bilateral
    broadcasts / regroupings marked, each copy followed by its category and reason (and
    ``strided.explain``'s fix where it has one), and (``totals``) a totals line."""
    header = ("#", "op", "kind", "inputs", "output", "strides", "bytes", "marks", "where")
    rows = []
    shown = flow.steps if limit is None else flow.steps[:max(limit, 0)]
    for s in shown:
        inputs = " ".join(str(t.shape) for t in s.inputs) or "-"
        out = str(s.output.shape) if s.output else "-"
        strides = str(s.output.strides) if s.output else "-"
        nbytes = f"{s.bytes_copied:,}" if s.kind == "copy" else (f"{s.bytes_allocated:,}" if s.bytes_allocated else "")
        name = f"{s.module}: {s.name}" if s.module else s.name
        rows.append((str(s.index), name, s.kind, inputs, out, strides, nbytes, s.marks, _short(s.where)))
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)]
    lines = [f"{flow.title}: {len(flow.steps)} steps" if totals else "steps (w.table()):"]
    lines.append("  ".join(h.ljust(w) for h, w in zip(header, widths)).rstrip())
    for s, r in zip(shown, rows):
        lines.append("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
        if s.kind == "copy":
            lines.append(f"      {s.category or 'copy'}: {s.reason}".rstrip().rstrip(":"))
            if s.category == LAYOUT_COPY:
                fix = fix_for(s)
                if fix:
                    lines.append(f"      fix: {fix}")
    if len(flow.steps) > len(shown):
        lines.append(f"… {len(flow.steps) - len(shown)} more rows: w.table(limit=None)")
    if not totals:
        return "\n".join(lines)  # (inside print(w): the summary above has the totals and the notes)
    lines.append(totals_line(flow))
    for s in shown:
        if s.broadcast is not None and s.broadcast.bilateral:
            lines.append(f"  step {s.index} at {_short(s.where)}: {s.broadcast.describe()}")
        if s.regroups:
            lines.append(f"  step {s.index} at {_short(s.where)}: {s.name} {s.mapping.describe()}")  # type: ignore[union-attr]
    return "\n".join(lines)


def _short(where: str) -> str:
    """``file:line`` with the file's directories dropped."""
    return where.rsplit("/", 1)[-1]
