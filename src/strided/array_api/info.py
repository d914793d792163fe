"""The inspection API: ``__array_namespace_info__()`` (capabilities, default dtypes, dtypes, devices).

>>> import strided.array_api as xp
>>> xp.__array_namespace_info__().default_dtypes()["real floating"]
strided.float32
"""

from __future__ import annotations

from typing import Any

from ..device import device as _device
from ..dtypes import DEFAULT_FLOAT, DEFAULT_INT, DType, complex64
from ._core import device_arg
from .data_types import DTYPES, isdtype

__all__ = ["__array_namespace_info__", "Info"]


class Info:
    """What this namespace supports: strided computes on the CPU, in 13 dtypes."""

    __module__ = "strided.array_api"

    def capabilities(self) -> dict[str, Any]:
        """Boolean indexing and data-dependent shapes are supported; 64 dims at most (PyTorch's limit)."""
        return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": 64}

    def default_device(self) -> _device:
        return _device("cpu")

    def devices(self) -> list[_device]:
        return [_device("cpu")]

    def default_dtypes(self, *, device: Any = None) -> dict[str, DType]:
        """float32, complex64, int64 and int64 indices: strided's (PyTorch's) defaults."""
        device_arg(device, "default_dtypes")
        return {"real floating": DEFAULT_FLOAT, "complex floating": complex64, "integral": DEFAULT_INT,
                "indexing": DEFAULT_INT}

    def dtypes(self, *, device: Any = None, kind: Any = None) -> dict[str, DType]:
        """The supported dtypes by name, those of ``kind`` only when given."""
        device_arg(device, "dtypes")
        return {d.name: d for d in DTYPES if kind is None or isdtype(d, kind)}


def __array_namespace_info__() -> Info:  # noqa: N807 - the standard's name
    return Info()
