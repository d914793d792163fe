"""Memory formats, as in PyTorch: which dense stride order a copy should get."""

from __future__ import annotations

from typing import Any


class MemoryFormat:
    """A named memory format (``strided.contiguous_format``, ``strided.channels_last``, ...).

    There is one instance per name, as in PyTorch: formats are compared with ``is``, so
    ``MemoryFormat(name)``, pickle, ``copy`` and ``deepcopy`` all give back that instance.
    """

    __slots__ = ("name",)

    def __new__(cls, name: str) -> MemoryFormat:
        found = _BY_NAME.get(name)
        if found is None:
            found = super().__new__(cls)
            found.name = name
            _BY_NAME[name] = found
        return found

    def __reduce__(self) -> tuple[Any, ...]:
        return (MemoryFormat, (self.name,))

    def __repr__(self) -> str:
        return f"strided.{self.name}"

    def short_name(self) -> str:
        """The name PyTorch's messages use: ``preserve`` for ``preserve_format``, else the name."""
        return self.name.removesuffix("_format")


_BY_NAME: dict[str, MemoryFormat] = {}


contiguous_format = MemoryFormat("contiguous_format")
channels_last = MemoryFormat("channels_last")
preserve_format = MemoryFormat("preserve_format")
channels_last_3d = MemoryFormat("channels_last_3d")

DENSE_FORMATS = (contiguous_format, channels_last, channels_last_3d)
"""The formats a dense copy can be written in (``contiguous``, ``empty``, ``resize_``, ``to``)."""


def is_dense_format(value: Any) -> bool:
    """Whether ``value`` is one of :data:`DENSE_FORMATS` (by identity: any value may be passed)."""
    return value is contiguous_format or value is channels_last or value is channels_last_3d
