"""strided: N-dimensional tensors whose memory you can see and trust.

Every tensor is one flat storage plus a layout (shape, strides, storage
offset). Views never copy; copies say so. Tensor methods follow PyTorch; the
module functions with ``order=``/``copy=`` follow NumPy.
"""

from . import array_api, autograd, describe, face_ops, linalg, nn, ops, writes  # noqa: F401  (importing them installs their methods on Tensor)
from ._version import __version__
from .autograd import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .device import device  # (the class, as torch.device; the module stays strided.device's home)
from .diagnose.explain import explain
from .diagnose.pictures import draw
from .diagnose.watch import watch
from .diagnose.watch_torch import watch_torch
from .dtypes import (
    DType,
    bool_,
    cdouble,
    cfloat,
    complex64,
    complex128,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
)
from .errors import (
    BroadcastError,
    BroadcastWarning,
    OverlapWriteError,
    StridedBufferError,
    StridedError,
    StridedIndexError,
    StridedNotImplementedError,
    StridedRuntimeError,
    StridedTypeError,
    StridedValueError,
    ViewError,
)
from .face_ops import *  # noqa: F403 - the op functions, generated from the registry (tools/gen_face.py)
from .gradients import finish as _finish
from .interop import as_tensor, asarray, from_dlpack
from .kernels import CopyRecord, record_copies
from .layout import Layout, ReshapeRefusal
from .memory_format import channels_last, channels_last_3d, contiguous_format, preserve_format
from .numpy_api import (
    ascontiguousarray,
    asfortranarray,
    broadcast_shapes,
    broadcast_to,
    may_share_memory,
    ravel,
    reshape,
    shares_memory,
)
from .ops._support import return_types
from .ops._support.promotion import promote_types, result_type
from .ops.creation.generator import Generator, default_generator, initial_seed, manual_seed, seed
from .ops.elementwise.binary_more import allclose, equal
from .ops.elementwise.complex_ops import is_complex, is_conj
from .ops.linalg.einsum import einsum_plan
from .ops.shape.broadcasting import broadcasting
from .storage import Storage
from .tensor import Tensor

bool = bool_  # noqa: A001 - strided.bool mirrors torch.bool

# The names of the face that are no op (types, dtypes, settings, the NumPy-style functions,
# diagnostics); the op functions, factories and random draws included, come from the registry
# (face_ops).
__all__ = [
    "__version__", "allclose", "as_tensor", "asarray", "ascontiguousarray", "asfortranarray", "bool", "bool_",
    "broadcast_shapes", "broadcast_to", "BroadcastError", "broadcasting", "BroadcastWarning", "cdouble", "cfloat",
    "channels_last", "channels_last_3d", "complex128", "complex64", "contiguous_format", "CopyRecord",
    "default_generator", "device", "draw", "DType", "einsum_plan", "enable_grad", "equal", "explain", "float16",
    "float32", "float64", "from_dlpack", "Generator", "initial_seed", "int16", "int32", "int64", "int8",
    "is_complex", "is_conj", "is_grad_enabled", "Layout", "linalg", "manual_seed", "may_share_memory", "nn",
    "no_grad", "OverlapWriteError", "preserve_format", "promote_types", "ravel", "record_copies", "reshape",
    "ReshapeRefusal", "result_type", "return_types", "seed", "set_grad_enabled", "shares_memory", "Storage",
    "StridedBufferError", "StridedError", "StridedIndexError", "StridedNotImplementedError", "StridedRuntimeError",
    "StridedTypeError", "StridedValueError", "Tensor", "uint16", "uint32", "uint64", "uint8", "ViewError", "watch",
    "watch_torch",
]
__all__ += face_ops.__all__

# Last: the face's names and Tensor's methods are complete; the in-place entries and the guards
# of the ops without a backward rule are made now, before any user code can bind a name.
_finish(globals())
