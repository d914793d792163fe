"""Where in the user's code a call into strided came from (for warnings and the copy ledger)."""

from __future__ import annotations

import os
import sys

# .../strided/ : frames whose file lies below it belong to the library, not to the user
PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def user_site(skip: int = 1) -> tuple[str, int]:
    """``file:line`` of the innermost frame outside strided, and its ``stacklevel``.

    ``skip`` frames above this function's caller are passed over first; the
    stacklevel counts from the caller (1 = the caller itself), so passing it to
    ``warnings.warn`` from that caller attributes the warning to the user's line.
    """
    frame = sys._getframe(skip)
    depth = skip
    while frame is not None and frame.f_code.co_filename.startswith(PACKAGE_DIR):
        frame = frame.f_back
        depth += 1
    if frame is None:
        return "<unknown>", 1
    return f"{frame.f_code.co_filename}:{frame.f_lineno}", depth
