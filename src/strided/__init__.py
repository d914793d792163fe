"""strided: N-dimensional tensors whose memory you can see and trust.

Every tensor is one flat storage plus a layout (shape, strides, storage
offset). Views never copy; copies say so. Tensor methods follow PyTorch; the
module functions with ``order=``/``copy=`` follow NumPy.
"""

from .creation import (
    arange,
    as_tensor,
    empty,
    empty_like,
    from_numpy,
    full,
    full_like,
    ones,
    ones_like,
    tensor,
    zeros,
    zeros_like,
)
from .dtypes import (
    DType,
    bool_,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
)
from .errors import (
    OverlapWriteError,
    StridedError,
    StridedIndexError,
    StridedRuntimeError,
    StridedTypeError,
    StridedValueError,
    ViewError,
)
from .kernels import CopyRecord, record_copies
from .layout import Layout, ReshapeRefusal
from .memory_format import channels_last, contiguous_format, preserve_format
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
from .storage import Storage
from .tensor import Tensor

bool = bool_  # noqa: A001 - strided.bool mirrors torch.bool

__all__ = [
    "CopyRecord", "DType", "Layout", "OverlapWriteError", "ReshapeRefusal", "Storage",
    "StridedError", "StridedIndexError", "StridedRuntimeError", "StridedTypeError",
    "StridedValueError", "Tensor", "ViewError",
    "arange", "as_tensor", "ascontiguousarray", "asfortranarray", "bool", "bool_",
    "broadcast_shapes", "broadcast_to", "channels_last", "contiguous_format", "empty",
    "empty_like", "float16", "float32", "float64", "from_numpy", "full", "full_like",
    "int8", "int16", "int32", "int64", "may_share_memory", "ones", "ones_like",
    "preserve_format", "ravel", "record_copies", "reshape", "shares_memory", "tensor",
    "uint8", "zeros", "zeros_like",
]
