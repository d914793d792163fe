"""``strided.__version__``: the installed distribution's version, else the source tree's pyproject.

>>> from strided._version import __version__
>>> __version__.count(".") >= 1
True
"""

from __future__ import annotations

import pathlib
import re
from importlib import metadata

# pyproject.toml of a source checkout (src/strided/_version.py -> ../../pyproject.toml)
_PYPROJECT = pathlib.Path(__file__).resolve().parents[2] / "pyproject.toml"


def resolve_version(distribution: str = "strided") -> str:
    """The version of ``distribution`` as installed (``importlib.metadata``); when it is not
    installed (``PYTHONPATH=src``), the ``version`` in the source tree's ``pyproject.toml``;
    ``"0+unknown"`` when neither is there.

    >>> resolve_version() == metadata.version("strided")
    True
    """
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return pyproject_version()


def pyproject_version(path: pathlib.Path = _PYPROJECT) -> str:
    """The ``version = "..."`` of ``[project]`` in ``path``, or ``"0+unknown"``."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return "0+unknown"
    # (a regex, not tomllib: the [project] table's first version line is all that is needed)
    project = text.split("[project]", 1)[-1].split("\n[", 1)[0]
    found = re.search(r'^version\s*=\s*"([^"]+)"', project, re.M)
    return found.group(1) if found else "0+unknown"


__version__: str = resolve_version()

__all__ = ["__version__", "pyproject_version", "resolve_version"]
