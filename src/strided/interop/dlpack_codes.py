"""The DLPack type code of a capsule, read and rewritten in place: how bfloat16 crosses DLPack.

NumPy's DLPack speaks only its own dtypes, and bfloat16 (ml_dtypes') is not one of them. So a
bfloat16 tensor is exported as NumPy's capsule of its int16 view, with the capsule's type code
rewritten from kDLInt to kDLBfloat before any consumer sees it; and a bfloat16 capsule from a
producer (a torch tensor) is rewritten to kDLInt, read by ``np.from_dlpack`` as int16, and viewed
as bfloat16. Same memory, same bits, zero-copy both ways; only the 1-byte type code changes.

The byte's place is fixed by the DLPack ABI (``dlpack.h``): ``DLTensor`` is ``void* data``,
``DLDevice device`` (two int32), ``int32 ndim``, then ``DLDataType dtype`` (uint8 code, uint8
bits, uint16 lanes): the code is 20 bytes in. A legacy capsule ("dltensor") points at a
``DLManagedTensor``, whose ``DLTensor`` comes first; a versioned one ("dltensor_versioned") at a
``DLManagedTensorVersioned``: version (2 x uint32), manager_ctx, deleter, uint64 flags, then the
``DLTensor``, 32 bytes in.
"""

from __future__ import annotations

import ctypes
from typing import Any

KDL_INT = 0
KDL_BFLOAT = 4
_DTYPE_AT = {b"dltensor": 20, b"dltensor_versioned": 32 + 20}

_api = ctypes.pythonapi
_api.PyCapsule_GetName.restype = ctypes.c_char_p
_api.PyCapsule_GetName.argtypes = [ctypes.py_object]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def _code_byte(capsule: Any) -> Any:
    """The (code, bits) bytes of an unconsumed capsule's DLDataType, as a writable ctypes array."""
    name = _api.PyCapsule_GetName(capsule)
    if name not in _DTYPE_AT:  # (a consumed capsule is renamed "used_dltensor"...)
        raise BufferError(f"not an unconsumed DLPack capsule: {name!r}")
    address = _api.PyCapsule_GetPointer(capsule, name)
    return (ctypes.c_uint8 * 2).from_address(address + _DTYPE_AT[name])


def retype(capsule: Any, code_from: int, code_to: int, bits: int) -> bool:
    """Rewrite ``capsule``'s type code ``code_from`` to ``code_to`` when its elements have
    ``bits`` bits; returns whether it did."""
    field = _code_byte(capsule)
    if field[0] != code_from or field[1] != bits:
        return False
    field[0] = code_to
    return True


class Retyped:
    """A DLPack producer standing for ``producer``, whose bfloat16 capsules come out as int16
    (``np.from_dlpack`` reads those): :attr:`was_bfloat16` says whether one did."""

    def __init__(self, producer: Any) -> None:
        self.producer = producer
        self.was_bfloat16 = False

    def __dlpack_device__(self) -> Any:
        return self.producer.__dlpack_device__()

    def __dlpack__(self, **kwargs: Any) -> Any:
        capsule = self.producer.__dlpack__(**kwargs)
        self.was_bfloat16 = retype(capsule, KDL_BFLOAT, KDL_INT, 16)
        return capsule
