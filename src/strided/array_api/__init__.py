"""``strided.array_api``: the Python Array API standard (revision 2024.12) over strided tensors.

The array object is strided's :class:`~strided.Tensor` itself; ``t.__array_namespace__()``
returns this module, so code written against the standard runs on strided tensors::

    def softmax(x):
        xp = x.__array_namespace__()
        e = xp.exp(x - xp.max(x, axis=-1, keepdims=True))
        return e / xp.sum(e, axis=-1, keepdims=True)

Each group of the specification is one small module (``creation``, ``data_types``,
``elementwise``, ``indexing``, ``linear_algebra``, ``manipulation``, ``searching``, ``sets``,
``sorting``, ``statistical``, ``utility``, ``info``) and the ``linalg`` extension is
:mod:`strided.array_api.linalg`. The namespace speaks the standard (``axis=``, ``keepdims=``,
``copy=``, its promotion table); strided's own functions and Tensor methods keep PyTorch's.

# Note: where the standard and PyTorch disagree on the array object itself, Tensor keeps
PyTorch's behaviour: ``x.size`` is a method (``x.size()``), not the element count — use
``math.prod(x.shape)``; operators on uint16/uint32/uint64 tensors and mixes of those with signed
ints are refused as PyTorch 2.13 refuses them (the namespace's functions compute them);
``x.device`` is a :class:`strided.device`.
"""

from __future__ import annotations

import _thread  # (threading's primitives, without importing threading: ~0.6 ms of the import)
import sys
from typing import Any

from ..gradients import installs_as
from ..tensor import Tensor

_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12")


@installs_as("__array_namespace__")
def __array_namespace__(self: Tensor, /, *, api_version: str | None = None) -> Any:  # noqa: N807
    """The Array API namespace of strided tensors: :mod:`strided.array_api`.

    >>> strided.ones(2).__array_namespace__().__name__
    'strided.array_api'
    """
    if api_version is not None and api_version not in _VERSIONS:
        from ..errors import StridedValueError

        raise StridedValueError(
            f"__array_namespace__(): unsupported api_version {api_version!r}; "
            f"strided.array_api implements {', '.join(_VERSIONS)} (as 2024.12)")
    return sys.modules[__name__]


@installs_as("to_device")
def to_device(self: Tensor, device: Any, /, *, stream: Any = None) -> Tensor:
    """The standard's ``x.to_device(device)``: strided has one device, the CPU, so ``x`` itself."""
    from ._core import device_arg

    device_arg(device, "to_device")
    return self


# The namespace itself loads on first use (PEP 562), so ``import strided`` does not pay for it;
# the two Tensor methods above are here so that they exist from ``import strided`` on.
_LOADING: list[bool] = []  # non-empty while _namespace imports (its own lookups must not reload it)
# Held while the namespace loads: another thread's first lookup waits for every name instead of
# finding the namespace half-copied (the loading thread's own lookups re-enter it: an RLock).
_LOCK = _thread.RLock()


def _load() -> dict[str, Any]:
    """Import :mod:`._namespace` and copy its names (``__all__``, ``__array_api_version__``) into
    this package, once: every later lookup is a plain one. ``__all__`` is copied last, so that a
    package that has it has every name."""
    space = globals()
    if "__all__" in space:
        return space
    with _LOCK:
        if "__all__" in space or _LOADING:
            return space
        _LOADING.append(True)
        try:
            import importlib

            names = importlib.import_module("strided.array_api._namespace")
        finally:
            _LOADING.clear()
        for name in (*names.__all__, "__array_api_version__", "__all__"):
            space.setdefault(name, getattr(names, name))
    return space


def __getattr__(name: str) -> Any:
    """A name of the standard's namespace, the namespace loaded on first use (see :func:`_load`)."""
    try:
        return _load()[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None


def __dir__() -> list[str]:
    """The namespace's names (loading it), as ``dir`` of a module imported eagerly would list them."""
    return sorted(_load())
