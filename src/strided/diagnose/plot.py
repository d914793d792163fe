"""The memory-over-time plot of a watch: bytes allocated so far and bytes alive, step by step.

:func:`memory_series` reads a watch (``strided.watch()`` or ``strided.watch_torch()``) into plain
numbers (:class:`MemorySeries`); :func:`memory_svg` draws them as one standalone SVG document —
our own few lines of SVG, no plotting library: the picture is two polylines, two axes and a
marker, and the rest of strided's pictures are hand-made SVG too (:mod:`.pictures.svg`).

The peak (the most bytes alive at once) is marked with a dot at its step and a label naming the
step's op and the user's line. Output is deterministic (same numbers, same bytes) and every text
in it is escaped, so a tensor name or a file name can never become markup.

>>> import strided
>>> with strided.watch() as w:
...     a = strided.zeros(100)
...     b = a + 1
>>> s = memory_series(w)
>>> s.allocated, s.live, s.peak_step
((400, 800), (400, 800), 1)
>>> memory_svg(s).startswith("<svg")
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from xml.sax.saxutils import quoteattr

from .pictures.svg import escape  # (XML's escape, and no character XML forbids)

__all__ = ["MemorySeries", "format_bytes", "memory_series", "memory_svg"]

WIDTH, HEIGHT = 640, 260
LEFT, RIGHT, TOP, BOTTOM = 70, 20, 40, 42  # margins around the plotting area
MAX_POINTS = 800  # more steps than this are drawn in buckets (each bucket's most bytes): a polyline per pixel
FONT = "DejaVu Sans Mono, Menlo, Consolas, monospace"
ALLOCATED_COLOUR = "#4c72b0"
LIVE_COLOUR = "#dd8452"
PEAK_COLOUR = "#c44e52"


@dataclass(frozen=True)
class MemorySeries:
    """A watch's memory, one value per step.

    ``allocated[i]``: bytes allocated by steps 0..i (the running total of ``Step.bytes_allocated``).
    ``live[i]``: the most bytes alive at once while step i ran: the highest point an allocation of
    the step reached, or what was alive after it if more (frees since the step before count as
    step i's, so a tensor dropped between two ops shows at the next one); a step that changed
    nothing keeps what was alive after the one before. ``peak_step``: the step during which the peak
    (``peak_bytes``) was reached, -1 when nothing was allocated; ``peak_where`` its ``file:line``
    and ``peak_op`` its op's name. ``exact_live`` is False when the watch kept no timeline of
    frees (then ``live`` is the running total, an upper bound).
    """

    allocated: tuple[int, ...]
    live: tuple[int, ...]
    peak_step: int
    peak_bytes: int
    peak_where: str = ""
    peak_op: str = ""
    title: str = "watch"
    exact_live: bool = True

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON-able numbers and strings (what the playground's child process sends)."""
        return {"allocated": list(self.allocated), "live": list(self.live), "peak_step": self.peak_step,
                "peak_bytes": self.peak_bytes, "peak_where": self.peak_where, "peak_op": self.peak_op,
                "title": self.title, "exact_live": self.exact_live}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> MemorySeries:
        """The series back from :meth:`as_dict`'s output, every field checked and converted (the
        dict may come from an untrusted process: numbers become ints, texts strings).

        >>> MemorySeries.from_dict({"allocated": [8], "live": [8], "peak_step": 0, "peak_bytes": 8}).live
        (8,)
        """
        allocated = tuple(int(v) for v in d.get("allocated", ()))
        live = tuple(int(v) for v in d.get("live", ()))
        if len(allocated) != len(live):
            raise ValueError("a memory series needs as many allocated values as live ones")
        return cls(allocated, live, int(d.get("peak_step", -1)), int(d.get("peak_bytes", 0)),
                   str(d.get("peak_where", "")), str(d.get("peak_op", "")), str(d.get("title", "watch")),
                   bool(d.get("exact_live", True)))


def memory_series(flow: Any) -> MemorySeries:
    """The per-step memory of ``flow`` (a ``Watch`` or ``TorchWatch``, during or after its block).

    Live bytes come from the watch's memory timeline (each allocation and each free, stamped with
    the step being recorded); frees after the block's last step are left out.

    >>> import strided
    >>> with strided.watch() as w:
    ...     x = strided.ones(3)
    >>> memory_series(w).peak_bytes
    12
    """
    steps = list(flow.steps)
    n = len(steps)
    memory = flow.memory
    allocated: list[int] = []
    total = 0
    for s in steps:
        total += s.bytes_allocated
        allocated.append(total)
    timeline = list(getattr(memory, "timeline", ()))
    peak_step = getattr(memory, "peak_step", -1)
    exact = getattr(memory, "clock", None) is not None
    if exact:
        live = [-1] * n
        before = 0
        for step, alive in timeline:
            # a growth's value (a high point) counts; a free's only as the step's last value, below
            if 0 <= step < n and alive > before and alive > live[step]:
                live[step] = alive
            before = alive
        # a step with no change keeps what was alive after the one before: the last value of its
        # changes (not their maximum)
        last_of = {}
        for step, alive in timeline:
            last_of[step] = alive
        carried = 0
        for i in range(n):
            carried = last_of.get(i, carried)
            live[i] = max(live[i], carried)
    else:
        live = list(allocated)
        peak_step = next((i for i, v in enumerate(allocated) if v >= memory.peak_bytes and v), -1)
    peak_bytes = memory.peak_bytes
    if not 0 <= peak_step < n or peak_bytes <= 0:
        peak_step = -1
    where = steps[peak_step].where if peak_step >= 0 else ""
    op = steps[peak_step].name if peak_step >= 0 else ""
    return MemorySeries(tuple(allocated), tuple(live), peak_step, peak_bytes, where, op,
                        getattr(flow, "title", "watch"), exact)


def format_bytes(n: int) -> str:
    """``n`` bytes in words a reader takes in at a glance: ``512 B``, ``1.5 KiB``, ``3 MiB``.

    >>> format_bytes(1536), format_bytes(12), format_bytes(3 * 2**20)
    ('1.5 KiB', '12 B', '3 MiB')
    """
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(value) < 1024 or unit == "GiB":
            return f"{int(value)} {unit}" if unit == "B" else f"{value:.3g} {unit}"
        value /= 1024
    return f"{n} B"  # pragma: no cover - the loop always returns


def _n(v: float) -> str:
    """A coordinate with a fixed format (no float noise: the same numbers give the same bytes)."""
    return f"{v:.1f}".rstrip("0").rstrip(".")


def _text(x: float, y: float, s: str, size: int = 11, anchor: str = "start", fill: str = "#222",
          cls: str = "", halo: bool = False) -> str:
    klass = f" class={quoteattr(cls)}" if cls else ""
    # a white outline under the glyphs keeps a label readable where it crosses a line
    outline = ' stroke="#fff" stroke-width="3" paint-order="stroke"' if halo else ""
    return (f'<text{klass} x="{_n(x)}" y="{_n(y)}" font-size="{size}" text-anchor="{anchor}" '
            f'fill="{fill}"{outline}>{escape(s)}</text>')


def _buckets(values: tuple[int, ...], reduce: Any) -> list[tuple[float, int]]:
    """(position, value) pairs: one per step, or one per bucket of steps (``reduce`` of its values)
    when there are more than :data:`MAX_POINTS`; positions are in steps."""
    n = len(values)
    if n <= MAX_POINTS:
        return [(float(i), v) for i, v in enumerate(values)]
    out = []
    for b in range(MAX_POINTS):
        lo, hi = b * n // MAX_POINTS, (b + 1) * n // MAX_POINTS
        out.append(((lo + hi - 1) / 2, reduce(values[lo:hi])))
    return out


def memory_svg(source: Any, width: int = WIDTH, height: int = HEIGHT) -> str:
    """The memory-over-time plot of ``source`` (a watch, or a :class:`MemorySeries`) as a standalone
    SVG document of ``width`` x ``height`` pixels.

    Two lines over the steps: bytes allocated so far (blue) and bytes alive (orange); a red dot
    (``<circle class="peak" data-step="K">``) at the peak, labelled with its bytes, op and line.
    The root element carries ``class="strided-memory-plot"``, ``data-steps`` and ``data-peak-step``.
    An empty watch gives a small picture saying so.

    >>> svg = memory_svg(MemorySeries((8, 16), (8, 8), 0, 8, "train.py:3", "zeros"))
    >>> 'data-peak-step="0"' in svg, "train.py:3" in svg
    (True, True)
    """
    s = source if isinstance(source, MemorySeries) else memory_series(source)
    n = len(s.allocated)
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" class="strided-memory-plot" width="{width}" '
            f'height="{height}" viewBox="0 0 {width} {height}" data-steps="{n}" data-peak-step="{s.peak_step}" '
            f'font-family="{FONT}" role="img">')
    title = f"{s.title}: memory over {n} step{'s' if n != 1 else ''}"
    parts = [head, f"<title>{escape(title)}</title>",
             f'<rect x="0" y="0" width="{width}" height="{height}" fill="#fff"/>',
             _text(LEFT, 18, title, 12, fill="#111")]
    top_value = max(max(s.allocated, default=0), max(s.live, default=0), s.peak_bytes)
    if n == 0 or top_value == 0:
        why = "no steps recorded" if n == 0 else "no memory allocated"
        parts.append(_text(width / 2, height / 2, why, 12, "middle", "#666", "empty"))
        parts.append("</svg>")
        return "".join(parts)
    x0, x1 = LEFT, width - RIGHT
    y0, y1 = height - BOTTOM, TOP  # y0: the bottom (0 bytes)

    def x(step: float) -> float:
        return (x0 + x1) / 2 if n == 1 else x0 + (x1 - x0) * step / (n - 1)

    def y(value: float) -> float:
        return y0 - (y0 - y1) * value / top_value

    # axes, with 0 and the top value on the left and the first and last step below
    parts.append(f'<path d="M{x0} {y1}V{y0}H{x1}" stroke="#888" fill="none"/>')
    parts.append(_text(x0 - 6, y0 + 4, "0", 10, "end", "#555"))
    parts.append(_text(x0 - 6, y1 + 4, format_bytes(top_value), 10, "end", "#555"))
    parts.append(f'<path d="M{x0} {_n(y1)}H{x1}" stroke="#eee" fill="none"/>')
    parts.append(_text(x(0), y0 + 16, "0", 10, "middle", "#555"))
    if n > 1:
        parts.append(_text(x(n - 1), y0 + 16, str(n - 1), 10, "middle", "#555"))
    parts.append(_text((x0 + x1) / 2, y0 + 32, "step", 10, "middle", "#555"))
    for cls, values, colour, label in (("allocated", s.allocated, ALLOCATED_COLOUR, "allocated so far"),
                                       ("live", s.live, LIVE_COLOUR, "alive" if s.exact_live else "alive (upper bound)")):
        points = _buckets(values, max)
        if len(points) == 1:  # one step: a dot (a polyline of one point draws nothing)
            parts.append(f'<circle class="{cls}" cx="{_n(x(0))}" cy="{_n(y(points[0][1]))}" r="3" fill="{colour}"/>')
        else:
            pts = " ".join(f"{_n(x(p))},{_n(y(v))}" for p, v in points)
            parts.append(f'<polyline class="{cls}" points="{pts}" fill="none" stroke="{colour}" '
                         f'stroke-width="1.8" stroke-linejoin="round"><title>{escape(label)}</title></polyline>')
    # the legend, top right
    lx = x1 - 250
    for i, (colour, label) in enumerate(((ALLOCATED_COLOUR, "allocated so far"),
                                         (LIVE_COLOUR, "alive" if s.exact_live else "alive (upper bound)"))):
        parts.append(f'<rect x="{_n(lx + i * 130)}" y="10" width="12" height="4" fill="{colour}"/>')
        parts.append(_text(lx + i * 130 + 16, 16, label, 10, fill="#333"))
    if s.peak_step >= 0:
        px, py = x(s.peak_step), y(s.peak_bytes)
        where = s.peak_where.rsplit("/", 1)[-1]
        label = f"peak {format_bytes(s.peak_bytes)} at step {s.peak_step}" + (f" ({s.peak_op})" if s.peak_op else "") \
            + (f", {where}" if where else "")
        anchor = "end" if px > (x0 + x1) / 2 else "start"
        tx = px - 8 if anchor == "end" else px + 8
        parts.append(f'<line x1="{_n(px)}" y1="{_n(py)}" x2="{_n(px)}" y2="{y0}" stroke="{PEAK_COLOUR}" '
                     f'stroke-dasharray="3 3"/>')
        parts.append(f'<circle class="peak" data-step="{s.peak_step}" cx="{_n(px)}" cy="{_n(py)}" r="4.5" '
                     f'fill="{PEAK_COLOUR}"><title>{escape(label)}</title></circle>')
        parts.append(_text(tx, max(py - 8, TOP - 6), label, 11, anchor, PEAK_COLOUR, "peak-label", halo=True))
    parts.append("</svg>")
    return "".join(parts)
