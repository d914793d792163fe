"""``no_grad`` for ``strided.nn``'s own writes (initializers, ``load_state_dict``, gradient
clipping): grad mode off for this thread or asyncio task inside the block. (``strided.no_grad``
lives in the autograd layer, above ``nn``; both set the same context-local
:data:`strided.grad_mode.GRAD_MODE`.)"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from ..grad_mode import GRAD_MODE

__all__ = ["no_grad"]


@contextlib.contextmanager
def no_grad() -> Iterator[None]:
    """Ops inside record no graph.

    >>> from strided.nn._grad import no_grad
    >>> w = strided.ones(2, requires_grad=True)
    >>> with no_grad():
    ...     (w * 2).requires_grad
    False
    """
    token = GRAD_MODE.set(False)
    try:
        yield
    finally:
        GRAD_MODE.reset(token)
