"""``strided.finfo`` / ``strided.iinfo``: the numeric limits of a dtype, with PyTorch's fields.

``finfo(dtype)`` has ``bits``, ``eps``, ``max``, ``min``, ``tiny``, ``smallest_normal``,
``resolution`` and ``dtype`` (the name, a str, as PyTorch's); a complex dtype gives the limits of
its real part's dtype, as PyTorch's does. ``iinfo(dtype)`` has ``bits``, ``max``, ``min`` and
``dtype``. The values are Python floats / ints read from NumPy's ``finfo`` / ``iinfo``, which
describe the same IEEE and two's-complement types. The objects are immutable and compare equal
when their dtype is the same.

>>> strided.finfo(strided.float32).eps
1.1920928955078125e-07
>>> strided.iinfo(strided.uint8)
iinfo(min=0, max=255, dtype=uint8)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .dtypes import DType, bool_, default_float, np_finfo, real_of
from .errors import StridedTypeError

__all__ = ["finfo", "iinfo"]


def _dtype_arg(value: Any, kind: str) -> DType:
    """The DType of ``value`` (a strided DType, or a torch dtype by its name), or PyTorch's TypeError."""
    if isinstance(value, DType):
        return value
    if getattr(type(value), "__module__", "") == "torch" and type(value).__name__ == "dtype":
        from .dtypes import to_dtype

        return to_dtype(value)
    raise StridedTypeError(f"{kind}(): argument 'type' (position 1) must be torch.dtype, not {type(value).__name__}")


class _Info:
    """The shared immutable record of :class:`finfo` and :class:`iinfo` (fields set once)."""

    __slots__ = ()
    _FIELDS: tuple[str, ...] = ()

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"attribute '{name}' of 'strided.{type(self).__name__}' objects is not writable")

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.dtype == self.dtype  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self).__name__, self.dtype))  # type: ignore[attr-defined]

    def __repr__(self) -> str:
        # PyTorch prints the numbers as C++ streams do: 6 significant digits (printf's %g)
        shown = ", ".join(f"{f}={getattr(self, f):g}" for f in self._FIELDS)
        return f"{type(self).__name__}({shown}, dtype={self.dtype})"  # type: ignore[attr-defined]


class finfo(_Info):  # noqa: N801 - torch.finfo's name
    """Machine limits of a floating dtype (the default dtype when none is given; a complex dtype
    gives its real part's), as ``torch.finfo``.

    >>> f = strided.finfo(strided.float16)
    >>> f.bits, f.max, f.tiny, f.resolution, f.dtype
    (16, 65504.0, 6.103515625e-05, 0.001, 'float16')
    """

    __slots__ = ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype")
    _FIELDS = ("resolution", "min", "max", "eps", "smallest_normal", "tiny")
    bits: int
    eps: float
    max: float
    min: float
    tiny: float
    smallest_normal: float
    resolution: float
    dtype: str

    def __init__(self, type: Any = None) -> None:  # noqa: A002 - torch's keyword name
        d = default_float() if type is None else _dtype_arg(type, "finfo")
        if not (d.is_floating_point or d.is_complex):
            raise StridedTypeError(
                "torch.finfo() requires a floating point input type. Use torch.iinfo to handle 'torch.finfo'\n"
                f"  {d!r} is an integer dtype: strided.iinfo({d!r}) gives its limits"
            )
        d = real_of(d) if d.is_complex else d
        info = np_finfo(d.numpy)
        put = object.__setattr__
        put(self, "bits", int(info.bits))
        for name in ("eps", "max", "min", "tiny", "smallest_normal"):
            put(self, name, float(getattr(info, name)))
        # (PyTorch's resolution is the Python float 10**-digits; NumPy's is that number rounded to the dtype)
        put(self, "resolution", float(f"1e-{info.precision}"))
        put(self, "dtype", d.name)


class iinfo(_Info):  # noqa: N801 - torch.iinfo's name
    """Machine limits of an integer dtype, as ``torch.iinfo`` (bool has none: TypeError).

    >>> i = strided.iinfo(strided.int32)
    >>> i.bits, i.min, i.max, i.dtype
    (32, -2147483648, 2147483647, 'int32')
    """

    __slots__ = ("bits", "max", "min", "dtype")
    _FIELDS = ("min", "max")
    bits: int
    max: int
    min: int
    dtype: str

    def __init__(self, type: Any) -> None:  # noqa: A002 - torch's keyword name
        d = _dtype_arg(type, "iinfo")
        if d is bool_:
            raise StridedTypeError("torch.bool is not supported by torch.iinfo\n  a bool holds False and True only")
        if d.kind not in "iu":
            raise StridedTypeError(
                "torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'\n"
                f"  {d!r} is not an integer dtype: strided.finfo({d!r}) gives its limits"
            )
        info = np.iinfo(d.numpy)
        put = object.__setattr__
        put(self, "bits", int(info.bits))
        put(self, "max", int(info.max))
        put(self, "min", int(info.min))
        put(self, "dtype", d.name)
