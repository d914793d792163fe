"""Devices, as PyTorch names them: strided computes on the CPU only.

:class:`device` mirrors ``torch.device`` for the one type strided has (``device(type='cpu')``,
printed ``cpu``); :func:`parse_device` reads the ``device=`` argument every factory and ``to``
take: "cpu", "cpu:0", a :class:`device`, or a ``torch.device`` of type cpu (read by its
attributes, so torch is never imported). Any other device ("cuda", "mps", an int) is refused
with a RuntimeError that says strided is CPU-only.
"""

from __future__ import annotations

from typing import Any

from .errors import StridedRuntimeError, StridedTypeError, join_lines

# The device types PyTorch 2.13 names in its "Expected one of ..." error, in its order.
TORCH_DEVICE_TYPES = (
    "cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga", "maia",
    "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone",
)


class device:  # noqa: N801 - PyTorch's name
    """A device, as ``torch.device``: ``strided.device("cpu")``, ``strided.device("cpu:0")``,
    ``strided.device("cpu", 0)``. Only the type "cpu" exists in strided.

    >>> strided.device("cpu")
    device(type='cpu')
    >>> str(strided.device("cpu", 0))
    'cpu:0'
    """

    __slots__ = ("type", "index")

    type: str
    index: int | None

    def __init__(self, type: Any, index: int | None = None) -> None:  # noqa: A002 - PyTorch's name
        if isinstance(type, device):
            if index is not None:
                raise StridedRuntimeError(
                    "device(): a device object takes no index; give the type as a string: device('cpu', 0)")
            self.type, self.index = type.type, type.index
            return
        if not isinstance(type, str):
            raise StridedTypeError(
                join_lines(
                    f"device() received an invalid combination of arguments - got ({_type_name(type)})",
                    "give the device as a string: strided.device('cpu') (strided computes on the CPU only)",
                )
            )
        kind, parsed = _parse_string(type)
        if parsed is not None and index is not None:
            raise StridedRuntimeError(
                f"type (string) must not include an index because index was passed explicitly: {type}")
        if index is not None and (isinstance(index, bool) or not isinstance(index, int) or index < 0):
            raise StridedRuntimeError(f"Device index must not be negative; got {index!r}")
        self.type = kind
        self.index = parsed if parsed is not None else index
        check_cpu(self)

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other: object) -> bool:
        # as torch.device: cpu and cpu:0 are different values
        if not isinstance(other, device):
            return NotImplemented
        return self.type == other.type and self.index == other.index

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __reduce__(self) -> tuple[Any, ...]:
        return (device, (self.type, self.index))


def _type_name(value: Any) -> str:
    cls = value.__class__
    return cls.__qualname__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"


def _parse_string(text: str) -> tuple[str, int | None]:
    """``"cpu"`` -> ("cpu", None), ``"cpu:0"`` -> ("cpu", 0): PyTorch's device-string grammar and errors."""
    kind, sep, index = text.partition(":")
    if kind not in TORCH_DEVICE_TYPES:
        raise StridedRuntimeError(
            join_lines(
                f"Expected one of {', '.join(TORCH_DEVICE_TYPES)} device type at start of device string: {text}",
                "strided computes on the CPU only: pass device='cpu' (or leave device= out)",
            )
        )
    if not sep:
        return kind, None
    if not index.isdigit() or (len(index) > 1 and index[0] == "0"):
        raise StridedRuntimeError(
            join_lines(f"Invalid device string: '{text}'", "write a device as 'cpu' or 'cpu:0'"))
    return kind, int(index)


def check_cpu(found: device, op: str = "") -> device:
    """``found`` if it is a cpu device; else the RuntimeError that says strided is CPU-only."""
    if found.type == "cpu":
        return found
    where = f"{op}: " if op else ""
    raise StridedRuntimeError(
        join_lines(
            f"{where}device '{found}' is not available: strided computes on the CPU only",
            f"strided tensors live in NumPy arrays in main memory; there is no {found.type} backend",
            "fix: pass device='cpu' (or leave device= out); to run on an accelerator, move the data "
            "to PyTorch: torch.from_numpy(t.numpy()).to(...)",
        )
    )


def parse_device(value: Any, op: str = "") -> device:
    """The device that ``device=`` names (:data:`CPU` for None), refusing every non-cpu device.

    Takes a string ("cpu", "cpu:0"), a :class:`device`, or a ``torch.device`` (read by its
    ``type`` and ``index``; torch is not imported). An int is PyTorch's accelerator index: refused.

    >>> parse_device("cpu")
    device(type='cpu')
    """
    if value is None:
        return CPU
    if value.__class__ is device:
        return check_cpu(value, op)
    if isinstance(value, str):
        return check_cpu(device(value) if ":" in value else _cheap(value), op)
    cls = value.__class__
    if cls.__module__ == "torch" and cls.__name__ == "device":
        found = _new_device(str(value.type), value.index)
        return check_cpu(found, op)
    if isinstance(value, int) and not isinstance(value, bool):
        raise StridedRuntimeError(
            join_lines(
                f"{op + ': ' if op else ''}device {value} is an accelerator index, and strided computes on the "
                "CPU only",
                "PyTorch reads an int device as the index of an accelerator (cuda:N); strided has none",
                "fix: pass device='cpu' (or leave device= out)",
            )
        )
    raise StridedTypeError(
        join_lines(
            f"{op or 'device'}(): argument 'device' must be torch.device, not {_type_name(value)}",
            f"got {value!r:.60}; pass 'cpu', 'cpu:0' or strided.device('cpu')",
        )
    )


def _new_device(kind: str, index: int | None) -> device:
    d = object.__new__(device)
    d.type = kind
    d.index = index
    return d


def _cheap(text: str) -> device:
    """A device from an index-free string: "cpu" is the one common case, built once."""
    if text == "cpu":
        return CPU
    _parse_string(text)  # the unknown-type error
    return _new_device(text, None)


CPU = device("cpu")
"""The device every strided tensor lives on (``t.device``)."""


def is_device(value: Any) -> bool:
    """Whether ``value`` reads as a device (not a dtype) in ``to(...)``'s first argument."""
    if isinstance(value, (str, device)):
        return True
    cls = value.__class__
    return cls.__module__ == "torch" and cls.__name__ == "device"
