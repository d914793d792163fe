"""The ``strided`` command line: :mod:`strided_cli` (a top-level module, so that ``strided --version``
and ``--help`` answer without loading the library), under its historical name.

``python -m strided.cli.main ARGS`` runs the command as the console script does.
"""

import os
import sys

from strided_cli import (  # noqa: F401  (the names tests and callers use)
    EXPR_HELP,
    _dist_info_version,
    _run,
    _silence_stdout,
    _tour,
    _version,
    build_parser,
    main,
)

__all__ = ["build_parser", "main"]

if __name__ == "__main__":
    code = main()
    from strided.cli.watch_launch import COLLECTIVES_ENV

    if os.environ.get(COLLECTIVES_ENV):  # (a rank of `strided watch --nproc N`)
        # its report is printed and its collectives written: it shuts down as the interpreter
        # would (its threads joined, its atexit functions run, its output flushed) but leaves
        # before the modules' and C++ libraries' teardown, where a process group's threads
        # (gloo's) can abort a process that finished cleanly ("terminate called without an
        # active exception", exit -6), failing the launch
        import atexit
        import threading

        for thread in threading.enumerate():
            if thread is not threading.main_thread() and not thread.daemon:
                thread.join()
        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code if isinstance(code, int) else 0 if code is None else 1)
    sys.exit(code)
