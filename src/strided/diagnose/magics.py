"""IPython / Jupyter magics: ``%load_ext strided`` gives ``%%watch``, ``%%watch_torch`` and ``%explain``.

::

    %load_ext strided

    %%watch                      # the cell runs under strided.watch(); its summary shows below
    q = strided.zeros(2, 5, 12)
    heads = q.view(2, 3, 5, 4)

    %%watch_torch --limit 50     # the same for PyTorch code (strided.watch_torch())
    loss = model(x).sum(); loss.backward()

    %explain x.view(12)          # strided.explain(x, "view", 12), shown as HTML

Under the cell: the totals, the memory-over-time plot, the per-line summary and the steps (folded)
in a notebook; the per-line summary as text in a terminal IPython. The watch is kept in the
user's namespace as ``_watch`` (or the name given with ``--name``). An exception in the cell is
shown after the summary of what ran before it.

IPython is imported only inside :func:`load_ipython_extension`: strided does not need it.
"""

from __future__ import annotations

import argparse
import ast
import shlex
import sys
from typing import Any

__all__ = ["load_ipython_extension", "summary_text"]


def summary_text(flow: Any, limit: int = 20, files: dict[str, str] | None = None) -> str:
    """The per-line summary of a watch as plain text (what a terminal shows under the cell).

    >>> import strided
    >>> with strided.watch() as w:
    ...     y = strided.ones(2, 3).t().contiguous()
    >>> print(summary_text(w).splitlines()[0])
    watch: 3 steps, 1 copies, 24 bytes copied, 48 bytes allocated, peak 48
    """
    from .html import _check_limit, summary_rows
    from .summary import copies_text

    _check_limit(limit)
    steps = flow.steps
    # (the copies as print(w) counts them: new results told apart from layout copies)
    lines = [f"{flow.title}: {len(steps)} steps, {copies_text(flow)}, {flow.bytes_copied:,} bytes copied, "
             f"{flow.allocated_bytes:,} bytes allocated, peak {flow.peak_bytes:,}"]
    rows = summary_rows(flow, files)
    for r in rows[:limit]:
        where = f"{r.line} {r.module}".strip()
        text = f"  {where}: {r.op} {r.count} x {r.category}"
        if r.bytes:
            text += f", {r.bytes:,} bytes"
        if r.reason:
            text += f" ({r.reason})"
        if r.fix:
            text += f"; fix: {r.fix}"
        lines.append(text)
    if len(rows) > limit:
        lines.append(f"  ... {len(rows) - limit} more lines")
    return "\n".join(lines)


def _rows(text: str) -> int:
    """``--limit``'s value: a count of rows, 0 or more (a negative slice would show the wrong rows)."""
    n = int(text)
    if n < 0:
        raise ValueError(f"--limit must be 0 or more, got {n}")
    return n


def _parser(name: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=f"%%{name}", add_help=False, exit_on_error=False)
    p.add_argument("--name", default="_watch", help="the user-namespace name the watch is kept under")
    p.add_argument("--limit", type=_rows, default=200, help="the most step rows shown")
    p.add_argument("--no-plot", action="store_true", help="leave the memory plot out")
    return p


def run_watched(ipython: Any, line: str, cell: str, torch: bool) -> Any:
    """Run ``cell`` in ``ipython``'s user namespace under a watch (``watch_torch`` when ``torch``),
    display its summary, keep it in the namespace and return it. ``line`` holds the options
    (``--name NAME``, ``--limit N``, ``--no-plot``)."""
    from IPython.display import display

    from .html import watch_html

    name = "watch_torch" if torch else "watch"
    try:
        opts = _parser(name).parse_args(shlex.split(line))
    except (argparse.ArgumentError, SystemExit, ValueError) as exc:
        print(f"%%{name}: {exc}; options: --name NAME, --limit N, --no-plot")
        return None
    make: Any
    if torch:
        from .watch_torch import watch_torch as make
    else:
        from .watch import watch as make
    source = ipython.transform_cell(cell)
    # the cell's code under a file name IPython keeps in linecache: tracebacks show its lines, and
    # the watch's file:line points into it
    number = _cell_number(ipython)
    filename = ipython.compile.cache(source, number)
    code = ipython.compile(source, filename, "exec")
    w = make()
    failed: tuple | None = None
    with w:
        try:
            exec(code, ipython.user_ns)  # the user's own cell: what the magic is for
        except Exception:  # noqa: BLE001 - shown below, after the summary of what ran
            failed = sys.exc_info()
    ipython.user_ns[opts.name] = w
    files = {filename: f"In[{number}]"}  # (the cell's lines, numbered as IPython's tracebacks number them)
    display({"text/plain": summary_text(w, files=files),
             "text/html": watch_html(w, limit=opts.limit, plot=not opts.no_plot, files=files)}, raw=True)
    if failed is not None:
        etype, value, tb = failed
        ipython.showtraceback((etype, value, tb.tb_next or tb))  # (from the cell's own frame on)
    return None


def _cell_number(ipython: Any) -> int:
    """The number of the cell running now (``In[5]``): the one IPython gave the code that called
    the magic (found on the stack), else the shell's execution count."""
    frame: Any = sys._getframe(1)
    while frame is not None:
        named = ipython.compile.format_code_name(frame.f_code.co_filename)
        if named is not None:
            digits = "".join(c for c in named[1] if c.isdigit())
            if digits:
                return int(digits)
        frame = frame.f_back
    return int(ipython.execution_count)


def explain_line(ipython: Any, line: str) -> Any:
    """``%explain EXPR``: ``x.op(args)`` is ``strided.explain(x, "op", args)``; any other
    expression (a tensor) is ``strided.explain(value)``, its layout. Names are read from the
    user's namespace. Returns the explanation (IPython shows it)."""
    from .explain import explain

    text = line.strip()
    try:
        tree = ast.parse(text, mode="eval").body
    except SyntaxError as exc:
        print(f"%explain: not an expression: {exc.msg}; try %explain x.view(12)")
        return None
    ns = ipython.user_ns

    def value(node: ast.expr) -> Any:
        return eval(compile(ast.Expression(node), "<%explain>", "eval"), ns)  # the user's own names

    if isinstance(tree, ast.Call) and isinstance(tree.func, ast.Attribute):
        target = value(tree.func.value)
        args = [value(a) for a in tree.args]
        kwargs = {k.arg: value(k.value) for k in tree.keywords if k.arg is not None}
        return explain(target, tree.func.attr, *args, **kwargs)
    return explain(value(tree))


def load_ipython_extension(ipython: Any) -> None:
    """Register ``%%watch``, ``%%watch_torch`` and ``%explain`` (``%load_ext strided`` calls this).

    >>> load_ipython_extension(get_ipython())  # doctest: +SKIP
    """
    from IPython.core.magic import Magics, cell_magic, line_magic, magics_class

    @magics_class
    class StridedMagics(Magics):
        @cell_magic
        def watch(self, line: str, cell: str) -> None:
            """Run the cell under strided.watch() and show its summary (``--name``, ``--limit``, ``--no-plot``)."""
            return run_watched(self.shell, line, cell, torch=False)

        @cell_magic
        def watch_torch(self, line: str, cell: str) -> None:
            """Run the cell under strided.watch_torch() and show its summary (``--name``, ``--limit``, ``--no-plot``)."""
            return run_watched(self.shell, line, cell, torch=True)

        @line_magic
        def explain(self, line: str) -> Any:
            """``%explain x.view(12)``: what the op would do (view, copy or error) and why."""
            return explain_line(self.shell, line)

    ipython.register_magics(StridedMagics)
