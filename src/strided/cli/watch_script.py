"""``strided watch script.py [args...]``: run a Python script under ``watch`` and print the report.

The script runs as ``python script.py args...`` would run it: as ``__main__`` (``runpy``), with
``sys.argv == [script, *args]`` and its directory first on ``sys.path`` (both restored after).
It runs under :func:`strided.watch`, and also under :func:`strided.watch_torch` when PyTorch is
installed and the script imports ``torch`` (an ``import torch`` / ``from torch...`` anywhere in
its source: a script that never touches torch does not pay for importing it).

With ``html`` (``--html FILE``) the whole report is also written to FILE as one self-contained
HTML page (:func:`strided.diagnose.html.report_page`): per watch, the totals, the memory-over-time
plot with its peak's line, the per-line summary and every step; no script, nothing loaded.

Exit codes: 0 the script ended normally (or by ``sys.exit(0)``), 1 it raised (the report of what
was recorded is still printed, then the script's traceback, from its own frames, on stderr; a
``sys.exit(n)`` passes ``n`` on), 2 no such file or not Python.
"""

from __future__ import annotations

import ast
import os
import runpy
import sys
import traceback
from contextlib import ExitStack
from typing import Any, TextIO

from ..diagnose.watch import watch

__all__ = ["imports_torch", "watch_command"]


def imports_torch(tree: ast.AST) -> bool:
    """Whether the parsed script imports ``torch`` (or one of its modules) anywhere."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "torch" for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").split(".")[0] == "torch":
            return True
    return False


def _torch_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("torch") is not None


def watch_command(script: str, args: list[str], torch: bool | None = None, out: TextIO | None = None,
                  err: TextIO | None = None, html: str | None = None) -> int:
    """Run ``script`` with ``args`` under ``watch`` (and ``watch_torch`` when ``torch`` is True, or,
    for None, when PyTorch is installed and the script imports it); print the report(s); with
    ``html`` also write them to that file as one HTML page; return the exit code (2 when the page
    cannot be written and the script itself succeeded).

    >>> watch_command("train.py", ["--steps", "3"])  # doctest: +SKIP
    watch: ...
    0
    """
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    path = os.path.abspath(script)
    try:
        with open(path, "rb") as f:
            source = f.read()
    except OSError as exc:
        print(f"strided watch: cannot open the script {script!r}: {exc.strerror or exc}", file=err)
        return 2
    try:
        tree = ast.parse(source, filename=script)
    except (SyntaxError, ValueError) as exc:
        print(f"strided watch: {script!r} is not a Python script: {exc}", file=err)
        return 2
    if torch is None:
        torch = imports_torch(tree) and _torch_available()
    elif torch and not _torch_available():
        print("strided watch: --torch needs PyTorch, which is not installed here", file=err)
        return 2

    watches: list[Any] = []
    error: BaseException | None = None
    code = 0
    saved_argv, saved_path = sys.argv, list(sys.path)
    sys.argv = [script, *args]
    sys.path.insert(0, os.path.dirname(path))
    try:
        with ExitStack() as stack:
            watches.append(stack.enter_context(watch()))
            if torch:
                from ..diagnose.watch_torch import watch_torch

                watches.append(stack.enter_context(watch_torch()))
            runpy.run_path(path, run_name="__main__")
    except SystemExit as exc:  # the script's own sys.exit(n): n is the exit code
        code = _exit_code(exc.code, err)
    except KeyboardInterrupt:
        code = 130
        print("strided watch: interrupted", file=err)
    except Exception as exc:  # noqa: BLE001 - any error the user's script raises is reported
        error = exc
        code = 1
    finally:
        sys.argv = saved_argv
        sys.path[:] = saved_path
    _write_collectives(watches)
    shown = [w for w in watches if w.steps or len(watches) == 1 or w is watches[-1]]
    for w in shown:
        # (a file name that is not UTF-8 holds lone surrogates: a strict UTF-8 terminal would
        # refuse the whole report, so they are shown as their escapes, \udcff, as in --html)
        print(str(w).encode("utf-8", "backslashreplace").decode("utf-8"), file=out)
    first = ""
    if error is not None:
        first = str(error).strip().splitlines()[0] if str(error).strip() else ""
        print(f"strided watch: the script raised {type(error).__name__}: {first}", file=err)
        _print_traceback(error, path, err)
    if html is not None:
        failure = f"the script raised {type(error).__name__}: {first}" if error is not None else ""
        if not _write_html(html, script, args, shown, failure, err) and code == 0:
            return 2
    return code


def _write_collectives(watches: list[Any]) -> None:
    """Under ``strided watch --nproc N`` (the launcher sets the variable): this rank's collective
    steps, as JSON, for the launcher to merge."""
    target = os.environ.get("STRIDED_WATCH_COLLECTIVES")
    if not target:
        return
    import json

    from ..diagnose.distributed.watch_collectives import collective_rows

    rows = [row for w in watches if hasattr(w, "_collectives") for row in collective_rows(w)]
    with open(target, "w") as f:
        json.dump(rows, f)


def _write_html(target: str, script: str, args: list[str], watches: list[Any], failure: str, err: TextIO) -> bool:
    """Write the watches' report to ``target`` as one HTML page; False (said on ``err``) if it cannot."""
    from html import escape

    from ..diagnose.html import report_page, watch_html

    fragments = [watch_html(w) for w in watches]
    if failure:
        fragments.insert(0, f'<p style="color:#9b1c20">{escape(failure)}</p>')
    title = "strided watch " + " ".join([script, *args])
    # rendered and encoded before the file is opened (a failure leaves no half-written file); a
    # name that is not UTF-8 (a file name's undecodable bytes arrive as lone surrogates) is written
    # as its escape, \udcff, rather than stopping the report
    page = report_page(title, fragments).encode("utf-8", "backslashreplace")
    try:
        with open(target, "wb") as f:
            f.write(page)
    except OSError as exc:
        print(f"strided watch: cannot write the HTML report {target!r}: {exc.strerror or exc}", file=err)
        return False
    return True


def _exit_code(code: Any, err: TextIO) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=err)  # sys.exit("message"): Python prints it and exits 1
    return 1


def _print_traceback(error: BaseException, path: str, err: TextIO) -> None:
    """The traceback from the script's first frame on (runpy's and ours are not the user's)."""
    tb = error.__traceback__
    while tb is not None and os.path.abspath(tb.tb_frame.f_code.co_filename) != path:
        tb = tb.tb_next
    lines = traceback.format_exception(type(error), error, tb if tb is not None else error.__traceback__)
    err.write("".join(lines))
