"""``draw``: a picture of where a tensor's elements live, or of what an op does to them.

``draw(x)`` pictures ``x``: its logical grid, the storage strip under it, a caption.
``draw(x, op, *args, **kwargs)`` pictures before and after side by side, with ``explain``'s
verdict on top (view or copy, bytes, why):

- a view is drawn with ``explain``'s predicted layout over ``x``'s own storage, its values read
  from that storage (the op is not run);
- a copy (or an elementwise op's new result) is drawn with the predicted layout over a new
  storage, in its own storage order; its values are those the op gives: ``draw`` runs the op
  on ``x`` (it never changes ``x``) and says so; where it cannot run it (an elementwise op
  against a bare shape), the values show as ``?``;
- a predicted error is written in place of the "after" panel.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import IO, Any

import numpy as np

from ...kernels.listeners import silenced
from ..distributed import is_dtensor
from ..explain import explain
from ..explain_broadcast import INFIX
from .model import Index, Panel, Scene, build_panel, caption_lines
from .source import Source, format_value, source_of

__all__ = ["FORMATS", "Picture", "draw"]

FORMATS = ("auto", "text", "svg")


class Picture:
    """A drawn picture: ``text()`` (plain, no ANSI codes), ``svg()`` (a standalone SVG document),
    a rich renderable (coloured), ``show()`` (rich on a colour terminal, plain text otherwise).
    ``str(picture) == picture.text()``. ``scene`` holds the data drawn
    (:class:`~.model.Scene`)."""

    def __init__(self, scene: Scene) -> None:
        self.scene = scene

    def text(self) -> str:
        from .text import plain, scene_block

        return plain(scene_block(self.scene))

    def svg(self) -> str:
        from .svg import svg_document

        return svg_document([self])

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return self.text()

    def _repr_svg_(self) -> str:  # Jupyter shows the SVG
        return self.svg()

    def __rich_console__(self, console: Any, options: Any) -> Any:
        from .terminal import renderable

        yield renderable(self.scene)

    def show(self, file: IO[str] | None = None) -> None:
        """Print the picture to ``file`` (default ``sys.stdout``): coloured through rich when
        ``file`` is a terminal that shows colour (not ``TERM=dumb``, no ``NO_COLOR``), plain
        text otherwise (a pipe, a file, a ``StringIO``)."""
        file = sys.stdout if file is None else file
        if _colour_terminal(file):
            from rich.console import Console

            Console(file=file).print(self)
        else:
            file.write(self.text() + "\n")


def _colour_terminal(file: Any) -> bool:
    isatty = getattr(file, "isatty", None)
    try:
        tty = bool(isatty()) if isatty is not None else False
    except (ValueError, OSError):  # a closed file
        return False
    return tty and os.environ.get("TERM", "") != "dumb" and "NO_COLOR" not in os.environ


def draw(x: Any, op: str | None = None, /, *args: Any, format: str = "auto", **kwargs: Any) -> Any:
    """Draw ``x`` (a strided Tensor, a numpy.ndarray or a torch.Tensor), or ``op`` on ``x``
    before and after, with ``op`` and its arguments as for ``strided.explain``. A PyTorch DTensor
    is drawn across ranks (:mod:`strided.diagnose.distributed.draw_dtensor`).

    ``format="auto"`` returns a :class:`Picture`; ``"text"`` its plain text; ``"svg"`` a
    standalone, deterministic SVG document (same input, same bytes).

    >>> print(draw(strided.arange(6).reshape(2, 3), format="text"))   # doctest: +SKIP
    x
    shape (2, 3), strides (3, 1), offset 0, int64 (8 bytes each)
    ...
    >>> draw(t, "permute", 1, 0).show()                               # doctest: +SKIP
    """
    if format not in FORMATS:
        raise ValueError(f"draw(..., format={format!r}): format must be one of {', '.join(map(repr, FORMATS))}")
    if op is None and (args or kwargs):
        raise TypeError("draw(x, op, *args): name the op first (a string), then its arguments")
    with _unwatched():
        if is_dtensor(x):  # across processes: ownership by rank, per-rank strips (no collective runs)
            from ..distributed.draw_dtensor import dtensor_scene

            scene = dtensor_scene(x, op, args, kwargs)
        else:
            src = source_of(x)
            scene = Scene((), (_before(src, "x"),)) if op is None else _scene(x, src, op, args, kwargs)
    picture = Picture(scene)
    if format == "text":
        return picture.text()
    if format == "svg":
        return picture.svg()
    return picture


@contextlib.contextmanager
def _unwatched() -> Iterator[None]:
    """Hide draw's own reads and op runs from ``strided.watch`` and ``strided.watch_torch``: they
    are the picture's, not the user's (PyTorch's modes are set aside only if torch is loaded)."""
    with contextlib.ExitStack() as stack:
        stack.enter_context(silenced())
        torch = sys.modules.get("torch")
        if torch is not None:
            from torch.utils._python_dispatch import _disable_current_modes

            stack.enter_context(_disable_current_modes())
            stack.enter_context(torch._C.DisableTorchFunction())
        yield


# ---------------------------------------------------------------- panels


def _safe(read: Any, k: int) -> str:
    try:
        return format_value(read(k))
    except Exception:  # a meta tensor, a freed buffer: the layout still draws
        return "?"


def _before(src: Source, title: str) -> Panel:
    facts = src.facts
    base = f"view of: {facts.base}" if facts is not None and facts.base else "owns its memory (not a view)"
    caption = caption_lines(src.shape, src.strides, src.offset, src.dtype, src.itemsize, base)

    def value_of(index: Index) -> str:
        return _safe(src.value_at, src.offset_of(index))

    return build_panel(title, src.shape, src.strides, src.offset, caption, value_of,
                       lambda k: _safe(src.value_at, k), f"{src.library} storage of x")


def _scene(x: Any, src: Source, op: str, args: tuple, kwargs: dict) -> Scene:
    r = explain(x, op, *args, **kwargs)
    call = r.call or op
    before = _before(src, "before: x")
    reason = [line for line in r.reason.splitlines() if line.strip()][:1]
    if r.outcome == "error":
        aside = [f"after: {call}", f"error: {r.error}"]
        aside += [line.strip() for line in r.reason.splitlines()[1:3] if line.strip()]
        aside += [f"fix: {f}" for f in r.fixes[:2]]
        return Scene((f"{call}: error (predicted by explain, not run)",), (before,), tuple(aside))
    assert r.shape is not None and r.strides is not None and r.offset is not None
    if r.outcome == "view":
        return _view_scene(x, src, before, r, call, op, args, kwargs)
    kind = "copy" if r.outcome == "copy" else "compute"
    what = (f"copy, {r.bytes_copied:,} bytes — a new storage, in the order shown" if kind == "copy"
            else "compute — a new result in a new storage, in the order shown")
    result = _run(x, src.library, op, args, kwargs)
    rs = None
    if result is not None and tuple(_shape(result)) == tuple(r.shape):
        rs = source_of(result)

        def value_of(index: Index) -> str:
            return _safe(rs.value_at, rs.offset_of(index))

        note = f"values: from running {call} (x unchanged); layout: as explain predicts"
    else:
        def value_of(index: Index) -> str:
            return "?"

        note = "values: not computed (the op cannot run on these arguments); layout: as explain predicts"
    base = (f"new storage: a copy of {r.bytes_copied:,} bytes" if kind == "copy"
            else "new storage: the op's result")
    # (a conversion or a promotion changes the dtype: the result says which)
    dtype, itemsize = (rs.dtype, rs.itemsize) if result is not None and rs is not None else (src.dtype, src.itemsize)
    caption = caption_lines(r.shape, r.strides, r.offset, dtype, itemsize, base)
    origin_of = _origins(src, before, op, args, kwargs, r.shape) if kind == "copy" else None
    notes = [note]
    if origin_of is not None:
        notes.append("colours: each element keeps its colour from x's storage; the \"copied from\" row gives its offset there")
    after = build_panel(f"after: {call}", r.shape, r.strides, r.offset, caption, value_of, None, "new storage",
                        colour_range=(before.strip.lo, before.strip.hi) if origin_of is not None else None,
                        origin_of=origin_of)
    return Scene((f"{call}: {what}", *reason, *notes), (before, after))


def _view_scene(x: Any, src: Source, before: Panel, r: Any, call: str, op: str, args: tuple,
                kwargs: dict) -> Scene:
    """A view: explain's layout over x's storage, read from that storage (the op is not run),
    every element in the colour it has in x. A view with another dtype (PyTorch's
    ``view(dtype)``) counts offsets in its own element size: the view itself (made, free) reads
    its values then."""
    offset = src.offset + r.offset if src.library == "numpy" else r.offset
    reader, dtype, itemsize, colours = src, src.dtype, src.itemsize, (before.strip.lo, before.strip.hi)
    if op == "view" and any(not isinstance(a, (int, tuple, list)) for a in args):
        result = _run(x, src.library, op, args, kwargs)
        reader = source_of(result) if result is not None else None
        dtype, itemsize = (reader.dtype, reader.itemsize) if reader is not None else ("?", 0)
        colours = None
    same = " (the same object)" if r.returns_self else ""
    header = (f"{call}: view, 0 bytes copied — a new layout over x's storage{same}",)
    caption = caption_lines(r.shape, r.strides, offset, dtype, itemsize, "a view of x: the same storage, 0 bytes copied")
    read = reader.value_at if reader is not None else None

    def value_of(index: Index) -> str:
        return "?" if read is None else _safe(read, offset + sum(a * s for a, s in zip(index, r.strides)))

    after = build_panel(f"after: {call}", r.shape, r.strides, offset, caption, value_of,
                        lambda k: "?" if read is None else _safe(read, k), f"{src.library} storage of x (the same)",
                        colour_range=colours if before.strip.cells else None)
    return Scene(header, (before, after))


ORIGIN_LIMIT = 1 << 22  # storage elements: past this, a copy's origins are not traced (memory)


def _origins(src: Source, before: Panel, op: str, args: tuple, kwargs: dict,
             shape: tuple[int, ...]) -> Any:
    """For a copy: ``index -> offset in x's storage`` the result's element was copied from, or None.

    No rule is re-derived: the op runs on a stand-in of ``x``'s layout whose every element holds
    its own storage offset (an ``arange`` of the touched storage, ``as_strided`` like ``x``, in
    ``x``'s library), so the result's values are the origins.
    """
    if not before.strip.cells or op == "to" or before.strip.hi + 1 > ORIGIN_LIMIT:
        return None
    lo, n = before.strip.lo, before.strip.hi + 1
    try:
        if src.library == "numpy":
            # offsets lo..hi (lo < 0 when x's memory is not an ndarray's and x walks backwards)
            base = np.arange(lo, n, dtype=np.int64)
            stand_in = np.lib.stride_tricks.as_strided(
                base[src.offset - lo:], src.shape, tuple(s * base.itemsize for s in src.strides), writeable=False)
        elif src.library == "torch":
            import torch

            stand_in = torch.arange(n).as_strided(src.shape, src.strides, src.offset)
        else:
            from ...creation import arange

            stand_in = arange(n).as_strided(src.shape, src.strides, src.offset)
    except Exception:
        return None
    result = _run(stand_in, src.library, op, args, kwargs)
    if result is None or _shape(result) != tuple(shape):
        return None
    rs = source_of(result)

    def origin_of(index: Index) -> int | None:
        try:
            v = rs.value_at(rs.offset_of(index))
        except Exception:
            return None
        return v if isinstance(v, int) and not isinstance(v, bool) else None

    return origin_of


def _shape(a: Any) -> tuple[int, ...]:
    return tuple(int(n) for n in a.shape)


def _run(x: Any, library: str, op: str, args: tuple, kwargs: dict) -> Any:
    """The op's result on ``x`` (None when it cannot be run here). Every op ``explain`` accepts
    returns a new array and leaves ``x`` as it was."""
    from ..explain_broadcast import _OPS as ELEMENTWISE

    try:
        if op in ELEMENTWISE:
            other = args[0] if args else None
            if isinstance(other, (tuple, list)):
                return None  # a bare shape: nothing to compute with
            fn = INFIX.get(ELEMENTWISE[op][1])
            if fn is not None:
                return fn(x, other)
            if library == "numpy":
                return getattr(np, op)(x, other)
            return getattr(x, op)(other)
        if library == "numpy":
            if op.startswith("ndarray."):
                return getattr(x, op.removeprefix("ndarray."))(*args, **kwargs)
            if op == "flatten":
                return x.flatten(*args, **kwargs)
            return getattr(np, op)(x, *args, **kwargs)
        if library == "torch":
            import torch

            with torch.no_grad():
                return getattr(x, op)(*args, **kwargs)
        return getattr(x, op)(*args, **kwargs)
    except Exception:
        return None
