"""``python -m strided``: the ``strided`` command line (:func:`strided.cli.main.main`), for an
environment whose scripts directory is not on PATH.

Usage::

    python -m strided --version
    python -m strided explain "x.t().view(6)"
"""

import sys

from .cli.main import main

if __name__ == "__main__":
    sys.exit(main())
