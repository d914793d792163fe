"""Where in the user's code a call into strided came from (for warnings and the copy ledger)."""

from __future__ import annotations

import os
import sys
from typing import Any

# .../strided/ : frames whose file lies below it belong to the library, not to the user
PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def user_site(skip: int = 1) -> tuple[str, int]:
    """``file:line`` of the innermost frame outside strided, and its ``stacklevel``.

    ``skip`` frames above this function's caller are passed over first; the
    stacklevel counts from the caller (1 = the caller itself), so passing it to
    ``warnings.warn`` from that caller attributes the warning to the user's line.
    """
    frame, depth = _user_frame(skip)
    if frame is None:
        return "<unknown>", 1
    return f"{frame.f_code.co_filename}:{frame.f_lineno}", depth


def user_stacklevel(skip: int = 1) -> int:
    """:func:`user_site`'s stacklevel alone, for ``warnings.warn`` (its ``file:line`` text not made:
    a warning on a small op's every call, ``t.new_tensor(tensor)``'s, pays half as much)."""
    frame, depth = _user_frame(skip)
    return 1 if frame is None else depth


def _user_frame(skip: int) -> tuple[Any, int]:
    """The innermost frame outside strided, ``skip`` frames above the caller of the caller, and
    its stacklevel counted from that caller (None, when every frame is strided's)."""
    frame = sys._getframe(skip + 1)
    depth = skip
    while frame is not None and frame.f_code.co_filename.startswith(PACKAGE_DIR):
        frame = frame.f_back
        depth += 1
    return frame, depth
