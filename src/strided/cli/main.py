"""The ``strided`` command line: :mod:`strided_cli` (a top-level module, so that ``strided --version``
and ``--help`` answer without loading the library), under its historical name.

``python -m strided.cli.main ARGS`` runs the command as the console script does.
"""

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
    sys.exit(main())
