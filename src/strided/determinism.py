"""PyTorch's determinism switch, accepted for code written against torch.

Every strided kernel is deterministic (NumPy on one thread, no atomics), so the setting changes
no result; it is kept so that ``are_deterministic_algorithms_enabled()`` reads back what was set,
as PyTorch's does. Thread behaviour: one process-wide setting, as in PyTorch; a set is one
assignment of a tuple (atomic under the GIL), so readers see the old or the new pair, never a mix.

>>> use_deterministic_algorithms(True); are_deterministic_algorithms_enabled()
True
>>> use_deterministic_algorithms(False); are_deterministic_algorithms_enabled()
False
"""

from __future__ import annotations

from .errors import StridedTypeError, join_lines

# (mode, warn_only): PyTorch's two flags, read and written together
_STATE: tuple[bool, bool] = (False, False)


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """PyTorch's ``torch.use_deterministic_algorithms``: recorded; strided is always deterministic."""
    global _STATE
    for name, value in (("mode' (position 1)", mode), ("warn_only'", warn_only)):
        if type(value) is not bool:
            raise StridedTypeError(join_lines(
                # (PyTorch's text names its C++ setter)
                f"_set_deterministic_algorithms(): argument '{name} must be bool, not {type(value).__name__}",
                f"got {value!r:.40}; pass True or False",
            ))
    _STATE = (mode, warn_only)


def are_deterministic_algorithms_enabled() -> bool:
    """Whether ``use_deterministic_algorithms(True)`` is in force."""
    return _STATE[0]


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    """Whether it was set with ``warn_only=True``."""
    return _STATE[1]
