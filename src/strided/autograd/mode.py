"""Grad mode: ``no_grad``, ``enable_grad``, ``set_grad_enabled`` (context-local; also decorators).
The mode itself is :data:`strided.grad_mode.GRAD_MODE` (below the ops, which read it)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from ..grad_mode import GRAD_MODE, is_grad_enabled

__all__ = ["enable_grad", "is_grad_enabled", "no_grad", "set_grad_enabled"]


class _GradMode:
    """Sets grad mode to ``self.mode`` inside a ``with`` block or a decorated function; the
    setting belongs to this thread or asyncio task (a ContextVar), as PyTorch's is thread-local."""

    mode = True

    def __init__(self) -> None:
        self._tokens: list = []

    def __enter__(self) -> None:
        self._tokens.append(GRAD_MODE.set(self.mode))

    def __exit__(self, *exc: Any) -> None:
        GRAD_MODE.reset(self._tokens.pop())

    def __call__(self, fn: Callable) -> Callable:
        mode = self.mode

        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> Any:
            token = GRAD_MODE.set(mode)
            try:
                return fn(*args, **kwargs)
            finally:
                GRAD_MODE.reset(token)

        return run

    def clone(self) -> _GradMode:
        return self.__class__()


class no_grad(_GradMode):  # noqa: N801 - PyTorch's name
    """Inside it ops record no graph (results need no gradient), e.g. a parameter update.

    >>> w = strided.ones(2, requires_grad=True)
    >>> (w * w).sum().backward()
    >>> with strided.no_grad():
    ...     w -= 0.1 * w.grad
    >>> w.tolist(), w.requires_grad, (w * 2).requires_grad
    ([0.800000011920929, 0.800000011920929], True, True)
    >>> with strided.no_grad():
    ...     (w * 2).requires_grad
    False
    """

    mode = False


class enable_grad(_GradMode):  # noqa: N801
    """Turns recording back on inside a ``no_grad`` block."""

    mode = True


class set_grad_enabled(_GradMode):  # noqa: N801
    """``set_grad_enabled(False)`` is ``no_grad()``; as a plain call it sets the mode at once."""

    def __init__(self, mode: bool) -> None:
        super().__init__()
        self.mode = bool(mode)
        self._now = GRAD_MODE.set(self.mode)  # PyTorch: the call itself sets it

    def __enter__(self) -> None:
        self._tokens.append(None)

    def __exit__(self, *exc: Any) -> None:
        self._tokens.pop()
        GRAD_MODE.reset(self._now)

    def clone(self) -> set_grad_enabled:
        return self.__class__(self.mode)
