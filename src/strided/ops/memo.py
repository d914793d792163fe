"""A bounded, self-filling dict for the ops' per-shape plans (layouts, dtypes, broadcast shapes).

Programs repeat the same few shapes and dtypes, so the ops remember their plans. A hit is a
plain dict lookup, cheaper than calling a ``functools.lru_cache`` function on the small-op
fast paths; the memo stops growing at ``limit`` entries instead of evicting. The class lives in
the layout layer (:class:`strided.layout.memo.Memo`), where the view ops' deciders are memoized
with it; the ops import it from here.
"""

from ..layout.memo import Memo

__all__ = ["Memo"]
