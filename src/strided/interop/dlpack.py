"""DLPack both ways: ``Tensor.__dlpack__`` / ``__dlpack_device__`` and :func:`from_dlpack`.

NumPy already speaks DLPack for its arrays, and every strided tensor has a zero-copy ndarray
view (``t._np()``), so export is that view's ``__dlpack__`` after strided's own checks, and
import is ``np.from_dlpack`` wrapped without a copy (:func:`strided.creation.borrow_array`):
no capsule is built by hand. Both directions share memory; the only copies are the ones a
caller asks for with ``copy=True``, and they go through strided's copy path (the ledger).

A read-only tensor is exported to a DLPack 1.0 consumer as a writable copy (in the copy ledger),
never as its memory: consumers may ignore the read-only flag (PyTorch 2.13 does), see the Note
in :func:`dlpack_export`. strided refuses, with a clear error, what a consumer would mishandle:

- a negative stride on a dim of more than one element (PyTorch 2.13 aborts the whole process
  on such a DLPack tensor: ``computeStorageNbytes`` overflows);
- a read-only tensor asked for by a DLPack 0.x consumer (no ``max_version``): only DLPack 1.0
  capsules can say "read-only";
- a stream or device other than the CPU's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..creation import borrow_array
from ..device import parse_device
from ..dispatch import copy_of
from ..dtypes import SUPPORTED, bfloat16
from ..errors import StridedBufferError, StridedRuntimeError, StridedTypeError, join_lines
from ..grad_mode import refuse_dlpack
from ..gradients import installs_as
from ..kernels import copy_array
from ..layout import plans as P
from ..tensor import Tensor
from .dlpack_codes import KDL_BFLOAT, KDL_INT, Retyped, retype

KDL_CPU = 1
# DLPack device types whose memory the CPU reads directly (NumPy's from_dlpack takes them too):
# CPU, CUDA host (pinned), ROCm host, CUDA managed.
_HOST_DEVICES = {1: "CPU", 3: "CUDAHost", 11: "ROCMHost", 13: "CUDAManaged"}
_DEVICE_NAMES = {2: "CUDA", 4: "OpenCL", 7: "Vulkan", 8: "Metal", 9: "VPI", 10: "ROCm", 12: "ExtDev",
                 14: "OneAPI", 15: "WebGPU", 16: "Hexagon", 17: "MAIA"}


@installs_as("__dlpack_device__")
def dlpack_device(self: Tensor) -> tuple[int, int]:
    """DLPack's ``(device_type, device_id)``: ``(1, 0)``, the CPU (``kDLCPU``), for every tensor.

    >>> strided.zeros(2).__dlpack_device__()
    (1, 0)
    """
    return (KDL_CPU, 0)


@installs_as("__dlpack__")
def dlpack_export(
    self: Tensor,
    *,
    stream: Any = None,
    max_version: tuple[int, int] | None = None,
    dl_device: Any = None,
    copy: bool | None = None,
) -> Any:
    """A DLPack capsule over this tensor's memory (the producer half of ``np.from_dlpack(t)``,
    ``torch.from_dlpack(t)``, ``torch.as_tensor(t)``): any strides and offset, zero-copy.

    ``stream``: None (or -1, "no synchronization"): the CPU has no streams. ``max_version``:
    the consumer's highest DLPack version; (1, 0) or later gives a versioned capsule, which
    carries the read-only flag. ``dl_device``: None or ``(1, 0)``. ``copy``: True exports a
    new copy (recorded in the copy ledger); None and False share memory, so the storage is
    marked exported (``resize_`` may no longer move it).

    A read-only tensor is exported as a writable copy (recorded in the copy ledger), never as its
    memory: see the Note in the code.

    Raises BufferError for a negative stride (PyTorch aborts the process on one: export
    ``t.contiguous()`` or pass ``copy=True``), for a read-only tensor asked for by a DLPack
    0.x consumer, and for a device other than the CPU.

    >>> t = strided.arange(6.).reshape(2, 3).t()
    >>> a = np.from_dlpack(t)
    >>> a[0, 1] = 9.0
    >>> t[0, 1].item()
    9.0
    """
    refuse_dlpack(self)  # (PyTorch's __dlpack__ refuses too, before anything else)
    if stream is not None and stream != -1:
        raise _stream_error(stream)
    if dl_device is not None and tuple(dl_device) != (KDL_CPU, 0):
        raise _device_error(dl_device)
    arr = self._np()
    if copy:
        # Note: the copy is strided's (in the ledger), so the capsule's IS_COPIED flag is not set.
        arr = copy_array(arr, "__dlpack__(copy=True): the DLPack consumer asked for a copy")
        return _export(arr, max_version)
    backwards = _backward_dims(self)
    if backwards:
        raise _negative_strides_error(self, backwards)
    if not arr.flags.writeable:
        if max_version is None or tuple(max_version)[0] < 1:
            raise _readonly_legacy_error(self)
        # Note: read-only memory goes out as a writable copy, not as itself. A DLPack 1.0 capsule
        # carries the read-only flag, but a producer cannot tell a consumer that honours it
        # (NumPy) from one that ignores it (PyTorch 2.13: torch.from_dlpack and torch.as_tensor
        # hand out a writable tensor, whose writes change an immutable bytes object or an array
        # its owner lent read-only): both ask with max_version=(1, 0), torch.as_tensor from C.
        # A refusal would also break the consumers that copy anyway (torch.tensor(t) asks through
        # DLPack too). So the consumer gets a copy, in the copy ledger with this reason; NumPy's
        # zero-copy read-only view stays one np.asarray(t) away (the array interface carries
        # the flag, and NumPy honours it).
        arr = copy_array(arr, "__dlpack__: a read-only tensor, exported as a writable copy (a DLPack consumer "
                              "may ignore the read-only flag: PyTorch 2.13 does)")
        return _export(arr, max_version)
    capsule = _export(arr, max_version)
    self._storage.mark_exported("Tensor.__dlpack__ (DLPack: torch.from_dlpack, torch.as_tensor, np.from_dlpack, ...)")
    return capsule


def _export(arr: np.ndarray, max_version: Any) -> Any:
    """NumPy's capsule of ``arr``; a bfloat16 array goes as its int16 view, retyped (see dlpack_codes)."""
    if arr.dtype.name != "bfloat16":
        return arr.__dlpack__(max_version=max_version)
    capsule = arr.view(np.int16).__dlpack__(max_version=max_version)
    retype(capsule, KDL_INT, KDL_BFLOAT, 16)
    return capsule


def from_dlpack(x: Any, *, device: Any = None, copy: bool | None = None) -> Tensor:
    """A tensor over the memory of ``x``, any object with ``__dlpack__`` on the CPU (a torch
    tensor, a NumPy array, a JAX array, ...): its shape, strides and offset, zero-copy; writes
    show on both sides. A read-only producer (a NumPy array that is not writeable) gives a
    tensor that refuses writes.

    ``device``: None or the CPU. ``copy``: True makes a new copy (in the copy ledger); None and
    False share. A strided tensor gives a view of itself.

    Raises TypeError for a dtype strided cannot hold (a torch complex32) and BufferError for a
    device the CPU cannot read (CUDA memory): convert or move it first on its side.

    >>> import torch
    >>> x = torch.arange(6.).reshape(2, 3)[:, ::2]
    >>> t = strided.from_dlpack(x)
    >>> t.stride(), t.storage_offset()
    ((3, 2), 0)
    >>> t[1, 1] = -1.0
    >>> x[1, 1].item()
    -1.0
    """
    parse_device(device, "from_dlpack")
    if isinstance(x, Tensor):
        shared = x._view(x._layout)
        return _copied(shared, "from_dlpack(copy=True): a copy of a strided tensor") if copy else shared
    if not hasattr(x, "__dlpack__"):
        raise StridedTypeError(
            join_lines(
                f"from_dlpack expects an object with a __dlpack__ method, got {type(x).__name__}",
                "DLPack producers are arrays and tensors (torch, NumPy, JAX, CuPy, ...); a bare DLPack "
                "capsule is not taken (the protocol passes the producing object)",
                "fix: strided.from_dlpack(x) with x the array itself; strided.asarray(data) takes lists, "
                "buffers and NumPy arrays",
            )
        )
    if hasattr(x, "__dlpack_device__"):
        _check_host(x.__dlpack_device__(), x)
    try:
        array = np.from_dlpack(x)
    except RuntimeError as err:
        if "dtype" not in str(err).lower():
            raise
        array = _from_bfloat16(x)
        if array is None:
            raise _dtype_error(x, err) from err
    t = borrow_array(array, "from_dlpack")
    return _copied(t, "from_dlpack(copy=True): asked for a copy of the producer's memory") if copy else t


def _from_bfloat16(x: Any) -> np.ndarray | None:
    """``x``'s memory as a bfloat16 array when its capsule is bfloat16 (read as int16, then
    viewed: see dlpack_codes), else None."""
    producer = Retyped(x)
    try:
        array = np.from_dlpack(producer)
    except RuntimeError:  # (another dtype NumPy lacks: complex32, float8, ...)
        return None
    return array.view(bfloat16.numpy) if producer.was_bfloat16 else None


def _copied(t: Tensor, reason: str) -> Tensor:
    """A new copy of ``t`` in preserve-format strides, through the one copy path (the ledger)."""
    return copy_of(t, P.clone(t._layout, itemsize=t._dtype.itemsize).strides, reason)


def _backward_dims(t: Tensor) -> list[int]:
    """The dims whose stride is negative and that hold more than one element (a dim of size 0
    or 1 never steps, so its stride means nothing); none for an empty tensor."""
    shape, strides = t._layout.shape, t._layout.strides
    if 0 in shape:
        return []
    return [d for d, (n, s) in enumerate(zip(shape, strides)) if n > 1 and s < 0]


def _layout_line(t: Tensor) -> str:
    lay = t._layout
    return f"tensor: shape {lay.shape}, strides {lay.strides}, offset {lay.offset}, {t._dtype.name}"


def _negative_strides_error(t: Tensor, dims: list[int]) -> StridedBufferError:
    strides = t._layout.strides
    which = ", ".join(f"dim {d} (stride {strides[d]})" for d in dims)
    return StridedBufferError(
        join_lines(
            "Cannot export a tensor with negative strides through DLPack",
            _layout_line(t),
            f"{which} walk{'s' if len(dims) == 1 else ''} memory backwards; DLPack can describe that, "
            "but PyTorch 2.13 aborts the whole process on such a tensor (torch.from_dlpack, "
            "torch.as_tensor), so strided never hands one out",
            f"fix: export t.contiguous() (a copy of {t.numel() * t._dtype.itemsize} bytes with positive "
            "strides), or ask for a copy: np.from_dlpack(t, copy=True), torch.from_dlpack(t, copy=True); "
            "for NumPy, t.numpy() shares the memory as it is",
        )
    )


def _readonly_legacy_error(t: Tensor) -> StridedBufferError:
    return StridedBufferError(
        join_lines(
            "Cannot export readonly array since signalling readonly is unsupported by DLPack "
            "(supported by newer DLPack version).",
            _layout_line(t) + " — read-only: it shares a NumPy array that is not writeable or a "
            "read-only DLPack export",
            "the consumer asked for a DLPack 0.x capsule (no max_version), which cannot carry the read-only "
            "flag, so it would write into memory its owner lent read-only",
            "fix: a consumer that passes max_version=(1, 0) (np.from_dlpack, torch.from_dlpack do); or export a "
            "writable copy: t.clone(), or __dlpack__(copy=True)",
        )
    )


def _stream_error(stream: Any) -> StridedRuntimeError:
    return StridedRuntimeError(
        join_lines(
            "strided only supports stream=None.",
            f"got stream={stream!r}; strided tensors live in CPU memory, which has no streams to "
            "synchronize (stream=-1, 'no synchronization', is taken too)",
            "fix: call __dlpack__() without stream (from_dlpack does so for CPU producers)",
        )
    )


def _device_error(dl_device: Any) -> StridedBufferError:
    return StridedBufferError(
        join_lines(
            "unsupported device requested",
            f"dl_device={tuple(dl_device)!r}; strided tensors live in CPU memory, DLPack device (1, 0) (kDLCPU)",
            "fix: export to the CPU (dl_device=None or (1, 0)) and move the data on the consumer's side",
        )
    )


def _check_host(device: Any, x: Any) -> None:
    """Refuse a producer whose memory the CPU cannot read (a GPU's), naming it."""
    kind, index = int(device[0]), device[1]
    if kind in _HOST_DEVICES:
        return
    name = _DEVICE_NAMES.get(kind, f"device type {kind}")
    raise StridedBufferError(
        join_lines(
            f"from_dlpack: cannot read memory on DLPack device ({kind}, {index}) ({name})",
            f"the {type(x).__name__} lives on {name} device {index}; strided computes on the CPU only and "
            "shares memory, so it can only take CPU-readable memory",
            "fix: move it to the CPU on its side first, e.g. strided.from_dlpack(x.cpu()) for a torch tensor "
            "(a copy made by the producer)",
        )
    )


def _dtype_error(x: Any, err: BaseException) -> StridedTypeError:
    dtype = getattr(x, "dtype", None)
    name = str(dtype) if dtype is not None else "its dtype"
    return StridedTypeError(
        join_lines(
            f"can't convert a DLPack tensor of dtype {name}. The only supported types are: {SUPPORTED}",
            f"strided keeps its elements in NumPy arrays, and NumPy has no such dtype (NumPy said: {err})",
            "fix: convert it on its side first, e.g. x.float() for a torch tensor, then "
            "strided.from_dlpack(x.float())",
        )
    )


__all__ = ["KDL_CPU", "dlpack_device", "dlpack_export", "from_dlpack"]
