"""How many terminal columns a text takes: the one measure of the text pictures and the command
line's wrapping (a CJK character takes two columns, a combining mark none).

>>> display_width("strides 步长")
12
"""

from __future__ import annotations

import unicodedata

__all__ = ["char_width", "display_width"]


def char_width(ch: str) -> int:
    """Columns one character takes in a terminal: 2 wide (CJK), 0 combining, else 1."""
    if unicodedata.combining(ch):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def display_width(s: str) -> int:
    """Columns ``s`` takes in a terminal: 2 for a wide (CJK) character, 0 for a combining one.

    >>> display_width("abc"), display_width("步长")
    (3, 4)
    """
    if s.isascii():  # the common case, and the fast one
        return len(s)
    return sum(char_width(ch) for ch in s)
