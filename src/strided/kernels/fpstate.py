"""Silencing NumPy's floating-point warnings cheaply (PyTorch gives inf/nan silently).

``with np.errstate(all="ignore")`` costs about 1.3 µs, more than a whole ufunc call on a
small tensor; setting NumPy's error-state context variable directly costs ~0.1 µs. The
private name is looked up once, with ``np.errstate`` as the fallback. Use as::

    with quiet():
        ...

or, on the hottest paths, ``token = quiet_set(QUIET)`` ... ``quiet_reset(token)`` in a
``try``/``finally`` (saves the context manager's method calls).
"""

from __future__ import annotations

from typing import Any

import numpy as np

try:  # pragma: no branch
    from numpy._core._ufunc_config import _extobj_contextvar, _make_extobj  # type: ignore[attr-defined]

    QUIET = _make_extobj(all="ignore")
    quiet_set = _extobj_contextvar.set
    quiet_reset = _extobj_contextvar.reset
except (ImportError, AttributeError):  # pragma: no cover - other NumPy versions
    def quiet_set(_: object) -> object:
        state = np.errstate(all="ignore")
        state.__enter__()
        return state

    def quiet_reset(state: Any) -> None:
        state.__exit__(None, None, None)

    QUIET = None


class quiet:  # noqa: N801 - used like a function: ``with quiet():``
    """Context manager: NumPy's floating-point warnings off inside the block."""

    __slots__ = ("_token",)

    def __enter__(self) -> None:
        self._token = quiet_set(QUIET)

    def __exit__(self, *exc: object) -> None:
        quiet_reset(self._token)
