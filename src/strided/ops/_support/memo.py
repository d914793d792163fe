"""A bounded, self-filling dict for the ops' per-shape plans (layouts, dtypes, broadcast shapes).

Programs repeat the same few shapes and dtypes, so the ops remember their plans. A hit is a
plain dict lookup, cheaper than calling a ``functools.lru_cache`` function on the small-op
fast paths; the memo stops growing at ``limit`` entries instead of evicting.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any


class Memo(dict):
    """``memo[key]`` returns the remembered value or computes ``compute(key)`` (and remembers it
    while fewer than ``limit`` entries are held). ``memo.get(key)`` never computes."""

    __slots__ = ("compute", "limit")

    def __init__(self, compute: Callable[[Any], Any] | None = None, limit: int = 4096) -> None:
        super().__init__()
        self.compute = compute
        self.limit = limit

    def __missing__(self, key: Hashable) -> Any:
        value = self.compute(key)  # type: ignore[misc]
        self.put(key, value)
        return value

    def put(self, key: Hashable, value: Any) -> None:
        """Remember ``value`` for ``key`` unless the memo is full."""
        if len(self) < self.limit:
            self[key] = value
