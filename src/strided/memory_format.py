"""Memory formats, as in PyTorch: which dense stride order a copy should get."""

from __future__ import annotations


class MemoryFormat:
    """A named memory format (``strided.contiguous_format``, ``strided.channels_last``, ...)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"strided.{self.name}"


contiguous_format = MemoryFormat("contiguous_format")
channels_last = MemoryFormat("channels_last")
preserve_format = MemoryFormat("preserve_format")
