"""``strided tour``: the memory model in ten steps, one step per screen, in English or Chinese.

Every number and picture on the screens is computed while the tour runs: each step shows a few
lines of code, runs exactly those lines (the code is echoed as ``>>>`` lines, then executed), and
fills the text templates of :mod:`.tour_text` from the values strided gives back (strides,
``data_ptr`` equality, bytes copied, error messages, ``watch`` tables, ``explain`` outcomes,
pictures). Nothing on a screen is written out beforehand.

Run it as ``strided tour`` or ``python -m strided.cli.tour [--lang en|zh] [--no-pause]``; from
Python, :func:`run_tour`. Between steps it waits for Enter (``q`` then Enter quits); it never
waits when stdin is not a terminal, or with ``--no-pause``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import IO, Any

from . import render
from .tour_text import LANGS, README_SECTIONS, ZH_HEADS, text, translate, words

__all__ = ["STEPS", "main", "run_tour"]


class Screen:
    """One step's output: text from the templates, code echoed then run, live values, pictures.

    All the steps share one namespace (``ns``), as one interactive session would. Snippets are
    compiled under the file name ``<tour step N>``, so the line strided reports for a copy, a
    broadcast or a watch row names the step (and the line within the snippet), not this module.
    """

    def __init__(self, out: IO[str], lang: str, ns: dict[str, Any], number: int,
                 width: int = render.DEFAULT_WIDTH, pictures: PictureHook | None = None) -> None:
        self.out = out
        self.lang = lang
        self.ns = ns
        self.number = number
        self.width = width  # no line written is wider than this (display columns)
        self.pictures = pictures  # None: pictures are drawn as text; else they are handed to it

    # ---------------------------------------------------------------- writing

    def write(self, s: str = "") -> None:
        """Write ``s``, each line wrapped to the screen's width under its own indent."""
        for line in s.split("\n"):
            for part in render.wrap(line, self.width):
                self.out.write(part + "\n")

    def say(self, key: str, **values: Any) -> None:
        """The template ``key`` in this screen's language, filled with ``values``, reflowed to
        the screen's width (see :func:`.render.reflow`), then a blank line."""
        for line in render.reflow(text(key, self.lang, **values), self.width):
            self.out.write(line + "\n")
        self.write()

    def show(self, live: str, indent: str = "    ") -> None:
        """A value strided produced (a table, an error message), indented as output."""
        for line in live.splitlines():
            self.write((indent + line).rstrip())
        self.write()

    # ---------------------------------------------------------------- code

    def _echo(self, src: str) -> None:
        lines = src.strip("\n").splitlines()
        for i, line in enumerate(lines):
            self.write(("    >>> " if i == 0 or not line.startswith((" ", "\t")) else "    ... ") + line)
        if len(lines) > 1 and lines[-1].startswith((" ", "\t")):
            self.write("    ...")

    def _compile(self, src: str) -> Any:
        return compile(src.strip("\n") + "\n", f"<tour step {self.number}>", "exec")

    def run(self, src: str) -> dict[str, Any]:
        """Echo ``src`` as ``>>>`` lines and run it in the tour's namespace; return the namespace."""
        self._echo(src)
        exec(self._compile(src), self.ns)  # our own fixed snippets, never user input
        self.write()
        return self.ns

    def fails(self, src: str) -> BaseException:
        """Echo and run ``src``, which must raise; show the exception as Python would and return it."""
        self._echo(src)
        try:
            exec(self._compile(src), self.ns)
        except Exception as exc:  # noqa: BLE001 - the step shows whatever strided raised
            # the first line stays as raised (the peer's own words: a search still finds them);
            # the explanation under it is in the screen's language
            first, *rest = f"{type(exc).__name__}: {exc}".split("\n")
            self.show("\n".join([first, *(translate(line, self.lang) for line in rest)]))
            return exc
        raise AssertionError(f"tour step {self.number}: {src.strip()!r} was expected to raise")

    def value(self, expr: str) -> Any:
        """Evaluate an expression over the tour's namespace (a value to fill a template with)."""
        return eval(compile(expr, f"<tour step {self.number}>", "eval"), self.ns)  # our own fixed text

    # ---------------------------------------------------------------- pictures

    def picture(self, name: str, op: str | None = None, /, *args: Any, **kwargs: Any) -> None:
        """Draw the tensor the step calls ``name`` (an expression over the tour's namespace), and
        ``op`` on it, before and after, labelled with that name — see :func:`draw_picture`; or,
        when the tour was given a ``pictures`` hook, the hook's line in its place."""
        if self.pictures is not None:
            from ..diagnose.pictures import draw

            self.write(self.pictures(draw(self.value(name), op, *args, format="auto", **kwargs), name))
        else:
            draw_picture(self.out, self.value(name), op, *args, width=self.width, name=name, lang=self.lang,
                         **kwargs)
        self.write()


PictureHook = Callable[[Any, str], str]
"""``pictures(picture, name) -> line``: given each picture a step draws (a
:class:`strided.diagnose.pictures.Picture`, its tensor still called ``x``) and the name the step
calls that tensor, returns the line the tour writes in the picture's place."""


def draw_picture(out: IO[str], x: Any, op: str | None = None, /, *args: Any,
                 width: int = render.DEFAULT_WIDTH, name: str = "x", lang: str = "en", **kwargs: Any) -> None:
    """The one place the tour draws: ``strided.diagnose.pictures.draw`` (coloured through rich on
    a colour terminal, plain text otherwise) in at most ``width`` columns, its panels one under
    the other when they do not fit side by side, the tensor called ``name``, its words in
    ``lang`` (see :func:`.tour_text.translate`); or a plain-text stand-in while that module is
    missing."""
    try:
        from ..diagnose.pictures import draw
    except ImportError:
        for line in _fallback_picture(x, op, *args, **kwargs).splitlines():
            for part in render.wrap(line, width):
                out.write(part + "\n")
        return
    words = None if lang == "en" else (lambda line: translate(line, lang))
    render.show(draw(x, op, *args, format="auto", **kwargs), out, width, name=name, words=words,
                heads=ZH_HEADS if lang == "zh" else None)


def _fallback_picture(x: Any, op: str | None = None, /, *args: Any, **kwargs: Any) -> str:
    """A small text picture: each element as ``value@storage offset``, row by row (up to 2-D),
    and for an op the explanation of what it would do."""
    lines = []
    for tensor in (x,) if op is None else (x, getattr(x, op)(*args, **kwargs)):
        lay = tensor.layout
        lines.append(f"  shape {lay.shape}, strides {lay.strides}, offset {lay.offset}")
        values = tensor.tolist()
        rows = [values] if tensor.ndim == 1 else values if tensor.ndim == 2 else []
        for i, row in enumerate(rows):
            cells = []
            for j, v in enumerate(row):
                where = lay.offset + (i * lay.strides[0] + j * lay.strides[1] if tensor.ndim == 2
                                      else j * lay.strides[0])
                cells.append(f"{v}@{where}".rjust(7))
            lines.append("   " + "".join(cells))
    if op is not None:
        from ..diagnose.explain import explain

        lines.append("  " + str(explain(x, op, *args, **kwargs)).splitlines()[2].strip())
    return "\n".join(lines)


def _is_terminal(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


def _ptr(p: int) -> str:
    return f"{p:#x}"


def _kind(s: Screen, result: Any, source: Any) -> str:
    """"a view" or "a copy" in the screen's language, read off the two tensors' memory."""
    shares = result.untyped_storage() is source.untyped_storage()
    return text("view" if shares else "copy", s.lang)


def _grid(rows: list[list[Any]], indent: str = "    ") -> str:
    width = max(len(str(v)) for row in rows for v in row)
    return "\n".join(indent + " ".join(str(v).rjust(width) for v in row) for row in rows)


# ==================================================================== the ten steps


def step_arange(s: Screen) -> None:
    x = s.run("import strided\nx = strided.arange(12).view(3, 4)")["x"]
    st = x.stride()
    s.show(str(x))
    s.say("arange.layout", numel=x.numel(), nbytes=x.nbytes, itemsize=x.itemsize, shape=x.shape,
          strides=st, s0=st[0], s1=st[1], offset=x.storage_offset(),
          x21=x[2, 1].item(), off21=x.storage_offset() + 2 * st[0] + 1 * st[1])
    s.picture("x")


def step_permute(s: Screen) -> None:
    ns = s.run("y = x.permute(1, 0)")
    x, y = ns["x"], ns["y"]
    s.show(str(y))
    order = [v for row in y.tolist() for v in row]
    s.say("permute.layout", shape=y.shape, strides=y.stride(), px=_ptr(x.data_ptr()), py=_ptr(y.data_ptr()),
          same=x.data_ptr() == y.data_ptr(), order=", ".join(map(str, order)),
          s1=y.stride()[1], contiguous=y.is_contiguous())
    s.picture("x", "permute", 1, 0)


def step_view_reshape(s: Screen) -> None:
    y = s.ns["y"]
    s.say("view.fails", shape=y.shape, strides=y.stride())
    err = s.fails("y.view(-1)")
    predicted = s.value('strided.explain(y, "view", -1)')
    s.say("view.explained", error=type(err).__name__, outcome=predicted.outcome,
          error_class=predicted.error_class)
    ns = s.run("with strided.record_copies() as copies:\n    z = y.reshape(-1)")
    z, copies = ns["z"], ns["copies"]
    s.say("reshape.copies", values=z.tolist(), pz=_ptr(z.data_ptr()), py=_ptr(y.data_ptr()),
          same=z.data_ptr() == y.data_ptr(), ncopies=len(copies),
          nbytes=f"{sum(c.nbytes for c in copies):,}", reason=translate(copies[0].reason, s.lang) if copies else "-")
    ns = s.run("c = y.contiguous()\nv = c.view(-1)")
    c, v = ns["c"], ns["v"]
    s.say("contiguous.copies", strides=c.stride(), shape=c.shape, pc=_ptr(c.data_ptr()),
          same_y=c.data_ptr() == y.data_ptr(), same_v=v.data_ptr() == c.data_ptr(),
          vstrides=v.stride())
    s.picture("y", "reshape", -1)


def step_flatten(s: Screen) -> None:
    ns = s.run("imgs = strided.zeros(2, 3, 4, 5)\nfeats = imgs.flatten(start_dim=1)")
    imgs, feats = ns["imgs"], ns["feats"]
    s.say("flatten.view", shape=imgs.shape, strides=imgs.stride(), fshape=feats.shape,
          fstrides=feats.stride(), kind=_kind(s, feats, imgs), same=feats.data_ptr() == imgs.data_ptr())
    ns = s.run("nhwc = imgs.permute(0, 2, 3, 1)\nflat = nhwc.flatten(start_dim=1)")
    nhwc, flat = ns["nhwc"], ns["flat"]
    why = s.value('strided.explain(nhwc, "flatten", start_dim=1)')
    s.say("flatten.copy", shape=nhwc.shape, strides=nhwc.stride(), kind=_kind(s, flat, nhwc),
          same=flat.data_ptr() == nhwc.data_ptr(), reason=translate(why.reason.splitlines()[0], s.lang))
    s.run("import numpy as np\na = np.arange(12).reshape(3, 4)")
    rows = []
    for label, call in (
        ("imgs.flatten(start_dim=1)", 'strided.explain(imgs, "flatten", start_dim=1)'),
        ("nhwc.flatten(start_dim=1)", 'strided.explain(nhwc, "flatten", start_dim=1)'),
        ("a.flatten()", 'strided.explain(a, "flatten")'),
        ("np.ravel(a)", 'strided.explain(a, "ravel")'),
        ("a.T.flatten()", 'strided.explain(a.T, "flatten")'),
        ("np.ravel(a.T)", 'strided.explain(a.T, "ravel")'),
    ):
        r = s.value(call)
        rules = text("rules.strided" if r.library == "strided" else "rules.numpy", s.lang)
        rows.append((label, rules, text(f"outcome.{r.outcome}", s.lang, nbytes=f"{r.bytes_copied:,}")))
    s.say("flatten.table_intro")
    s.show(_table(rows, (text("col.call", s.lang), text("col.rules", s.lang), text("col.outcome", s.lang))))
    s.say("flatten.summary")


def step_resize(s: Screen) -> None:
    ns = s.run("t = strided.arange(6)\nstart = t.data_ptr()\nt.resize_(2, 2)")
    t = ns["t"]
    s.show(str(t))
    s.say("resize.shrink", size=t.untyped_storage().size(), pt=_ptr(t.data_ptr()),
          same=t.data_ptr() == ns["start"])
    t = s.run("t.resize_(6)")["t"]
    s.show(str(t))
    s.say("resize.regrow", values=t.tolist(), same=t.data_ptr() == ns["start"])
    old = t.untyped_storage().size()
    ns = s.run("with strided.record_copies() as copies:\n    t.resize_(3, 4)")
    t, copies = ns["t"], ns["copies"]
    lay = t.layout
    values = t.tolist()  # (the tail's values are whatever the allocator left: shown as "?")
    rows = [[values[i][j] if lay.offset + i * lay.strides[0] + j * lay.strides[1] < old else "?"
             for j in range(t.shape[1])] for i in range(t.shape[0])]
    s.show(_grid(rows), indent="")
    s.say("resize.grow", size=t.untyped_storage().size(), old=old, pstart=_ptr(ns["start"]),
          pt=_ptr(t.data_ptr()), same=t.data_ptr() == ns["start"],
          nbytes=f"{sum(c.nbytes for c in copies):,}", reason=translate(copies[0].reason, s.lang) if copies else "-",
          first=old, last=t.untyped_storage().size() - 1)


def step_order(s: Screen) -> None:
    ns = s.run("c = strided.reshape(x, (4, 3), order='C')\nf = strided.reshape(x, (4, 3), order='F')")
    x, c, f = ns["x"], ns["c"], ns["f"]
    left, right = _grid(c.tolist(), indent="").splitlines(), _grid(f.tolist(), indent="").splitlines()
    width = max(map(len, left))
    s.show("\n".join(f"{a.ljust(width)}      {b}" for a, b in zip(
        ["order='C'".ljust(width)] + left, ["order='F'"] + right)))
    s.say("order.values", cstrides=c.stride(), fstrides=f.stride(), ckind=_kind(s, c, x), fkind=_kind(s, f, x),
          csame=c.data_ptr() == x.data_ptr(), fsame=f.data_ptr() == x.data_ptr())
    s.say("order.copy_false", shape=s.ns["y"].shape, strides=s.ns["y"].stride())
    s.fails("strided.reshape(y, 12, copy=False)")
    ns = s.run("g = strided.reshape(y, 12, order='F', copy=False)")
    g, y = ns["g"], ns["y"]
    s.say("order.f_view", values=g.tolist(), kind=_kind(s, g, y), same=g.data_ptr() == y.data_ptr())


def step_broadcast(s: Screen) -> None:
    ns = s.run("a = strided.arange(48).view(8, 1, 6, 1)\nb = strided.arange(35).view(7, 1, 5)\nr = a + b")
    a, b, r = ns["a"], ns["b"], ns["r"]
    pad = (1,) * (r.ndim - b.ndim) + b.shape
    rule = "\n".join(f"    {name.ljust(8)}{'  '.join(str(n).rjust(2) for n in shape)}" for name, shape in (
        ("a", a.shape), ("b", pad), ("a + b", r.shape)))
    s.say("broadcast.rules", ashape=a.shape, bshape=b.shape, padded=pad, rshape=r.shape, aligned=rule)
    ns = s.run("ea = strided.broadcast_to(a, r.shape)\neb = strided.broadcast_to(b, r.shape)")
    ea, eb = ns["ea"], ns["eb"]
    s.say("broadcast.stride0", astrides=a.stride(), eastrides=ea.stride(), bstrides=b.stride(),
          ebstrides=eb.stride(), asame=ea.data_ptr() == a.data_ptr(),
          bsame=eb.data_ptr() == b.data_ptr(), rstrides=r.stride())
    s.say("broadcast.pictures", sa=ea[0, 0].shape, sta=ea[0, 0].stride(), sb=eb[0, 0].shape,
          stb=eb[0, 0].stride())
    s.picture("ea[0, 0]")
    s.picture("eb[0, 0]")
    s.say("broadcast.mismatch")
    s.fails("strided.broadcast_shapes((8, 1, 6, 1), (7, 5, 5))")
    e = s.value('strided.explain(a, "add", b)')
    s.say("broadcast.bilateral", bilateral=e.broadcast.bilateral,
          stretched_a=e.broadcast.stretched[0], stretched_b=e.broadcast.stretched[1])


def step_bug(s: Screen) -> None:
    ns = s.run(
        "pred = strided.arange(4, dtype=strided.float32).view(4, 1) + 0.5\n"
        "target = strided.arange(4, dtype=strided.float32)\n"
        "loss = ((pred - target) ** 2).mean()"
    )
    pred, target, loss = ns["pred"], ns["target"], ns["loss"]
    meant = s.value("((pred.squeeze(1) - target) ** 2).mean()")
    s.say("bug.silent", pshape=pred.shape, tshape=target.shape, dshape=s.value("(pred - target).shape"),
          loss=loss.item(), meant=meant.item())
    from ..ops.shape.broadcasting import get_broadcasting

    err = s.fails('with strided.broadcasting("raise"):\n    loss = ((pred - target) ** 2).mean()')
    s.say("bug.caught", error=type(err).__name__, mode=get_broadcasting()[0],
          is_value_error=issubclass(type(err), ValueError))
    loss = s.run("loss = ((pred.squeeze(1) - target) ** 2).mean()")["loss"]
    s.say("bug.fixed", loss=loss.item())


def step_attention(s: Screen) -> None:
    ns = s.run(
        "x = strided.ones(2, 8, 64)\n"
        "with strided.watch() as w:\n"
        "    heads = x.view(2, 8, 4, 16).transpose(1, 2)\n"
        "    scores = (heads @ heads.transpose(-2, -1)).softmax(-1)\n"
        "    out = scores @ heads\n"
        "    merged = out.transpose(1, 2)\n"
        "    flat = merged.contiguous().view(2, 8, 64)"
    )
    w = ns["w"]
    s.show(_watch_text(w, s.width - 4, s.lang))
    views = [st for st in w.steps if st.kind == "view"]
    copies = w.copies
    merged = ns["merged"]
    s.say("attention.table", nsteps=len(w.steps), nviews=len(views),
          views=", ".join(str(st.index) for st in views), ncopies=len(copies),
          copy_steps=", ".join(str(c.step) for c in copies), copy_names=", ".join(c.name for c in copies),
          nbytes=f"{w.bytes_copied:,}", mshape=merged.shape, mstrides=merged.stride())
    err = s.fails("merged.view(2, 8, 64)")
    s.say("attention.why", error=type(err).__name__)
    _attention_in_torch(s)


ATTENTION_LINES = (
    "    heads = x.view(2, 8, 4, 16).transpose(1, 2)\n"
    "    scores = (heads @ heads.transpose(-2, -1)).softmax(-1)\n"
    "    out = scores @ heads\n"
    "    merged = out.transpose(1, 2)\n"
    "    flat = merged.contiguous().view(2, 8, 64)"
)


def _attention_in_torch(s: Screen) -> None:
    """Step 9's five lines again, in PyTorch under ``strided.watch_torch()``: matmul's hidden
    clones of its transposed operands. PyTorch is optional: without it the screen says so."""
    try:
        import torch  # noqa: F401 - only asks whether PyTorch is there
    except ImportError:
        s.say("attention.no_torch")
        return
    s.say("attention.torch_intro")
    ns = s.run("import torch\nx = torch.ones(2, 8, 64)\nwith strided.watch_torch() as tw:\n" + ATTENTION_LINES)
    tw = ns["tw"]
    from ..diagnose.summary import render_summary

    s.show(render_summary(tw, words=words(s.lang)))
    hidden = [c for c in tw.copies if not c.asked]
    lines = sorted({int(c.where.rsplit(":", 1)[1]) for c in hidden if ":" in c.where})
    s.say("attention.torch", nsteps=len(tw.steps), ncopies=len(tw.copies), nbytes=f"{tw.bytes_copied:,}",
          nasked=len(tw.copies) - len(hidden), nhidden=len(hidden),
          hidden_bytes=f"{sum(c.nbytes for c in hidden):,}", hidden_lines=", ".join(map(str, lines)))


def _watch_text(w: Any, width: int, lang: str) -> str:
    """``str(w)`` (the summary, then the step table) when it fits in ``width`` columns and the
    tour speaks English; else the summary (in the tour's language) and a narrower table of the
    same steps, without the inputs and where columns (every input is the output of an earlier
    row; every where is this step's snippet), its heads and kinds in the tour's language."""
    full = str(w)
    if lang == "en" and max(map(render.display_width, full.splitlines())) <= width:
        return full
    from ..diagnose.summary import render_summary

    say = words(lang) or (lambda word: word)
    rows = []
    for st in w.steps:
        out = st.output
        nbytes = (f"{st.bytes_copied:,}" if st.kind == "copy"
                  else f"{st.bytes_allocated:,}" if st.bytes_allocated else "")
        rows.append((str(st.index), st.name, say(st.kind), str(out.shape) if out else "-",
                     str(out.strides) if out else "-", nbytes, st.marks))
    header = tuple(map(say, ("#", "op", "kind", "output", "strides", "bytes", "marks")))
    return (render_summary(w, words=words(lang)) + "\n\n" + text("watch.narrow", lang) + "\n"
            + _table(rows, header))


def step_next(s: Screen) -> None:
    s.say("next.intro")
    s.show("\n".join(f"- {text(key, s.lang)}" for key in README_SECTIONS), indent="    ")
    s.say("next.commands")


def _table(rows: list[tuple[str, ...]], header: tuple[str, ...]) -> str:
    widths = [max(_width(h), *(_width(r[i]) for r in rows)) for i, h in enumerate(header)]
    return "\n".join("  ".join(_ljust(c, w) for c, w in zip(row, widths)).rstrip()
                     for row in (header, *rows))


def _width(s: str) -> int:
    """Display width: a CJK character takes two columns of a terminal."""
    return sum(2 if "\u2e80" <= ch <= "\uffef" else 1 for ch in s)


def _ljust(s: str, width: int) -> str:
    return s + " " * (width - _width(s))


# (name, function): the order of the tour; the headings are the templates "<name>.title"
STEPS: tuple[tuple[str, Callable[[Screen], None]], ...] = (
    ("arange", step_arange),
    ("permute", step_permute),
    ("view", step_view_reshape),
    ("flatten", step_flatten),
    ("resize", step_resize),
    ("order", step_order),
    ("broadcast", step_broadcast),
    ("bug", step_bug),
    ("attention", step_attention),
    ("next", step_next),
)


# ==================================================================== driving the tour


@contextmanager
def _quiet_broadcasting() -> Iterator[None]:
    """Run the tour under the default ("allow") broadcasting mode, whatever the process set:
    the steps show strided's default behaviour; the block restores the caller's mode."""
    from ..ops.shape.broadcasting import broadcasting

    with broadcasting("allow"):
        yield


def run_tour(lang: str = "en", pause: bool | None = None, out: IO[str] | None = None,
             *, stdin: IO[str] | None = None, width: int | None = None, pictures: PictureHook | None = None) -> int:
    """Walk through the memory model, one step per screen; return the exit code (0).

    ``lang``: "en" or "zh". ``pause``: wait for Enter after each step (``q`` then Enter quits,
    as do the end of input and Ctrl-C at the prompt, all with exit code 0); None (the default)
    pauses only when ``stdin`` is a terminal.
    ``out``: where to print (default ``sys.stdout``); ``stdin``: where to read the key presses
    (default ``sys.stdin``). ``width``: the most display columns a printed line takes (default:
    ``out``'s terminal width, 80 when ``out`` is not a terminal); prose wraps at word
    boundaries and pictures stack their panels to stay inside it. ``pictures``: a
    :data:`PictureHook` that takes each picture instead of it being drawn as text (the
    playground's page draws them as SVG).

    >>> import io
    >>> buf = io.StringIO()
    >>> run_tour("en", pause=False, out=buf)
    0
    >>> "strides (4, 1)" in buf.getvalue()
    True
    """
    if lang not in LANGS:
        raise ValueError(f"run_tour: lang must be one of {', '.join(map(repr, LANGS))}, not {lang!r}")
    if pause is not None and not isinstance(pause, bool):
        raise TypeError(f"run_tour: pause must be True, False or None, not {type(pause).__name__}")
    out = sys.stdout if out is None else out
    stdin = sys.stdin if stdin is None else stdin
    if pause is None:
        pause = _is_terminal(stdin)
    width = render.terminal_width(out) if width is None else max(render.MIN_WIDTH, width)
    ns: dict[str, Any] = {"__name__": "__tour__"}
    total = len(STEPS)
    with _quiet_broadcasting():
        for number, (name, step) in enumerate(STEPS, 1):
            heading = f"{text('step', lang, n=number, total=total)} · {text(name + '.title', lang)}"
            banner = f"{'═' * 4} {heading} {'═' * 4}"
            if render.display_width(banner) > width:  # drop the closing bars, then wrap
                banner = f"{'═' * 4} {heading}"
            out.write("\n".join(render.wrap(banner, width, hang="     ")) + "\n\n")
            step(Screen(out, lang, ns, number, width, pictures))
            if pause and number < total:
                out.write(text("prompt", lang))
                out.flush()
                try:
                    answer = stdin.readline()
                except KeyboardInterrupt:
                    answer = ""
                if not answer or answer.strip().lower() in ("q", "quit", "exit"):
                    out.write(("\n" if not answer else "") + text("bye", lang) + "\n")
                    return 0
                out.write("\n")
    out.flush()
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m strided.cli.tour [--lang en|zh] [--no-pause]``; returns the exit code."""
    parser = argparse.ArgumentParser(
        prog="strided tour",
        description="A walk through strided's memory model: storage, strides, views and copies, "
                    "one step per screen (Enter goes on, q quits).")
    parser.add_argument("--lang", choices=LANGS, default="en", help="language of the tour (default: en)")
    parser.add_argument("--no-pause", action="store_true",
                        help="print every step at once (also the default when stdin is not a terminal)")
    args = parser.parse_args(argv)
    return run_tour(args.lang, pause=False if args.no_pause else None)


if __name__ == "__main__":
    raise SystemExit(main())
