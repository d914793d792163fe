"""Entry point of the ``strided`` console script: ``tour``, ``show``, ``explain``, ``watch``.

A top-level module, not a module of the package: importing anything inside ``strided`` runs
``strided/__init__.py`` (the whole library, ~60 ms), and ``strided --version``, ``strided --help``
and a usage error need none of it. The commands import the library when they run.
:mod:`strided.cli.main` re-exports this module (``python -m strided.cli.main`` works as before).

::

    strided tour [--lang en|zh] [--no-pause]     the memory model, one screen per step
    strided show "EXPR" [--svg FILE]             every step of EXPR pictured, views and copies marked
    strided explain "EXPR" [--svg FILE]          why the last step of EXPR is a view, a copy or an error
    strided watch [--html FILE] [--nproc N] script.py [args...]  run a script under strided.watch (and watch_torch)
    strided playground [--port N] [--no-browser] the same in a local web page (127.0.0.1 only, with a token)

EXPR is a chain over strided's constructors and Tensor methods, such as
``arange(12).reshape(3,4).permute(1,0).flatten()``; it is parsed, never ``eval``-ed
(:mod:`strided.cli.expr`). Exit codes: 0 success, 2 bad input or usage, 1 an error raised by the
user's script (``watch``). ``main(argv)`` returns the exit code instead of exiting, for tests.
"""

from __future__ import annotations

import argparse
import sys

__all__ = ["build_parser", "main"]

EXPR_HELP = (
    'a chain over strided\'s constructors and methods, e.g. "arange(12).reshape(3,4).permute(1,0).flatten()" '
    'or "zeros(2,3)[:, ::2].t()" (parsed, never eval-ed)'
)


def build_parser(arguments: bool = True) -> argparse.ArgumentParser:
    """The argument parser of the ``strided`` command (one subparser per command).

    ``arguments=False`` leaves out the commands' own arguments (and their -h): ``strided --help`` lists only the
    commands with their one-line help, so it builds just that (half of argparse's cost there).
    """
    parser = argparse.ArgumentParser(
        prog="strided",
        description="strided: see where every element of a tensor lives, and which operations copy.",
        epilog='start with:  strided tour\nthen try:    strided show "arange(12).reshape(3,4).t().flatten()"',
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="store_true", help="print strided's version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    tour = sub.add_parser("tour", add_help=arguments, help="a walk through the memory model, one step per screen",
                          description="A walk through strided's memory model: shapes, strides, views, copies, "
                                      "broadcasting. Enter goes on, q quits.")
    show = sub.add_parser("show", add_help=arguments, help="draw every step of an expression; mark views and copies",
                          description="Run EXPR step by step and draw each result, marking each step view or "
                                      "copy (with bytes). A step that fails is explained; the chain stops there "
                                      "(exit 0).")
    explain = sub.add_parser("explain", add_help=arguments, help="explain the last step of an expression: view, copy or error, and why",
                             description="Explain the last step of EXPR (or the step that fails): view, copy or "
                                         "error, why, and the cheap fixes. Exit 0 when explained, failing or not.")
    watch = sub.add_parser("watch", add_help=arguments, help="run a Python script under strided.watch and print its shape flow",
                           description="Run SCRIPT (as python SCRIPT ARGS would) under strided.watch, and under "
                                       "strided.watch_torch when PyTorch is installed and the script imports "
                                       "torch; print the steps, copies and broadcasts. Exit 1 if the script "
                                       "raises (what was recorded is still printed).")
    playground = sub.add_parser("playground", add_help=arguments, help="a local web page: expressions pictured, the tour, watch",
                                description="Serve the playground on 127.0.0.1 (loopback only): type an "
                                            "expression and see every step pictured, views and copies marked, "
                                            "what NumPy and PyTorch would do, the tour, and a watch view for "
                                            "short programs. Prints the URL, which carries a random token: "
                                            "only whoever has it can use the page. Ctrl-C stops it.")
    if not arguments:
        return parser

    tour.add_argument("--lang", choices=("en", "zh"), default="en", help="the language (default: en)")
    tour.add_argument("--no-pause", action="store_true",
                      help="print every step without waiting (also the case when stdin is not a terminal)")
    show.add_argument("expr", metavar="EXPR", help=EXPR_HELP)
    show.add_argument("--svg", metavar="FILE", help="also write every step's picture to FILE, one SVG document")
    show.add_argument("--html", metavar="FILE",
                      help="also write the steps (pictures, badges, explanations, NumPy/PyTorch) to FILE, "
                           "one self-contained HTML file")
    explain.add_argument("expr", metavar="EXPR", help=EXPR_HELP)
    explain.add_argument("--svg", metavar="FILE", help="write the before/after picture to FILE (SVG)")
    torch = watch.add_mutually_exclusive_group()
    torch.add_argument("--torch", dest="torch", action="store_true", default=None,
                       help="also run under watch_torch, whatever the script imports")
    torch.add_argument("--no-torch", dest="torch", action="store_false", help="never run under watch_torch")
    watch.add_argument("--html", metavar="FILE",
                       help="also write the whole report (memory plot, per-line summary, every step) to FILE, "
                            "one self-contained HTML page")
    watch.add_argument("--nproc", type=int, default=1, metavar="N",
                       help="run SCRIPT on N local processes, torchrun-style (RANK, WORLD_SIZE, MASTER_ADDR, "
                            "MASTER_PORT set), and print the collectives merged over the ranks")
    watch.add_argument("script", metavar="SCRIPT", help="the Python script to run")
    watch.add_argument("args", nargs=argparse.REMAINDER, metavar="ARGS", help="the script's own arguments")
    playground.add_argument("--port", type=int, default=0, metavar="N",
                            help="the port to listen on (default: a free one)")
    playground.add_argument("--no-browser", action="store_true", help="print the URL but do not open a browser")
    playground.add_argument("--allow-unsandboxed-watch", action="store_true",
                            help="where the watch view's sandbox (bubblewrap + seccomp, Linux) cannot be set up, "
                                 "run pasted programs anyway, as you, without isolation: only for programs you "
                                 "trust")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the ``strided`` command line on ``argv`` (default ``sys.argv[1:]``); return the exit code."""
    args = sys.argv[1:] if argv is None else argv
    if list(args) == ["--version"]:  # (answered before argparse: its first use costs ~10 ms of gettext look-ups)
        print(f"strided {_version()}")
        return 0
    parser = build_parser(arguments=list(args) not in (["-h"], ["--help"]))
    try:
        ns = parser.parse_args(args)
    except SystemExit as exc:  # --help (0) or a usage error (2): argparse has printed it
        return exc.code if isinstance(exc.code, int) else 2
    if ns.version:
        print(f"strided {_version()}")
        return 0
    if ns.command is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return _run(ns)
    except BrokenPipeError:  # the reader went away (strided show ... | head): not an error of ours
        _silence_stdout()
        return 0


def _run(ns: argparse.Namespace) -> int:
    if ns.command == "tour":
        return _tour(ns.lang, False if ns.no_pause else None)
    if ns.command == "show":
        from strided.cli.commands import show_command

        return show_command(ns.expr, ns.svg, html=ns.html)
    if ns.command == "explain":
        from strided.cli.commands import explain_command

        return explain_command(ns.expr, ns.svg)
    if ns.command == "playground":
        from strided.playground.server import serve  # (lazily: the server loads only for this command)

        return serve(ns.port, open_browser=not ns.no_browser, unsandboxed_watch=ns.allow_unsandboxed_watch)
    if ns.nproc > 1:
        from strided.cli.watch_launch import launch_watch

        return launch_watch(ns.script, ns.args, ns.nproc, ns.torch)
    from strided.cli.watch_script import watch_command

    return watch_command(ns.script, ns.args, ns.torch, html=ns.html)


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's final flush does not raise again."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # a stdout without a file descriptor (captured in tests)
        pass


def _tour(lang: str, pause: bool | None) -> int:
    try:
        from strided.cli.tour import run_tour
    except ImportError as exc:
        if exc.name != "strided.cli.tour":  # (an import error inside the tour is a bug to show)
            raise
        print("strided tour: the tour is not in this build of strided (strided.cli.tour is missing)",
              file=sys.stderr)
        return 2
    return int(run_tour(lang=lang, pause=pause) or 0)


def _version() -> str:
    """The installed distribution's version, as ``importlib.metadata.version("strided")`` says
    (read directly where that is certain to be its answer: see :func:`_dist_info_version`), or
    "(not installed)"."""
    found = _dist_info_version()
    if found is not None:
        return found
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("strided")
    except PackageNotFoundError:
        return "(not installed)"


def _dist_info_version(name: str = "strided") -> str | None:
    """The ``Version:`` of the first ``<name>-*.dist-info/METADATA`` on ``sys.path``, which is what
    ``importlib.metadata`` reads too, without importing it (its import costs ~50 ms, as much again
    as ``--version`` needs otherwise). None, so that the caller asks ``importlib.metadata``,
    wherever the answer could differ: a finder of distributions other than the path finder, a
    path entry that is not a directory (a zip), an ``.egg-info`` met first, a METADATA without a
    version."""
    import importlib.machinery
    import os

    if any(getattr(f, "find_distributions", None) is not None and f is not importlib.machinery.PathFinder
           for f in sys.meta_path):
        return None
    for entry in sys.path:
        try:
            listing = os.listdir(entry or ".")
        except OSError:
            if os.path.exists(entry or "."):  # (a zip or an unreadable directory: ask the library)
                return None
            continue
        for item in listing:
            low = item.lower()
            if not (low.startswith(name + "-") or low.startswith(name + ".")) or \
                    not low.endswith((".dist-info", ".egg-info")):
                continue
            if low.endswith(".egg-info"):
                return None
            try:
                with open(os.path.join(entry or ".", item, "METADATA"), encoding="utf-8") as f:
                    for line in f:
                        if not line.strip():
                            break
                        if line.startswith("Version:"):
                            return line.split(":", 1)[1].strip()
            except OSError:
                pass
            return None
    return None


if __name__ == "__main__":
    raise SystemExit(main())
