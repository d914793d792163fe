"""strided: N-dimensional tensors whose memory you can see and trust.

Every tensor is one flat storage plus a layout (shape, strides, storage
offset). Views never copy; copies say so. Tensor methods follow PyTorch; the
module functions with ``order=``/``copy=`` follow NumPy.
"""

from . import ops  # noqa: E402,F401  (installs arithmetic methods on Tensor)
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
from .errors import (  # noqa: E402
    BroadcastError,
    BroadcastWarning,
    OverlapWriteError,
    StridedError,
    StridedIndexError,
    StridedNotImplementedError,
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
from .ops import return_types  # noqa: E402
from .ops.broadcasting import broadcasting  # noqa: E402
from .ops.elementwise import (  # noqa: E402
    abs,
    add,
    bitwise_and,
    bitwise_not,
    bitwise_or,
    bitwise_xor,
    clamp,
    clip,
    cos,
    div,
    divide,
    eq,
    exp,
    floor_divide,
    ge,
    gt,
    le,
    log,
    lt,
    maximum,
    minimum,
    mul,
    multiply,
    ne,
    neg,
    negative,
    pow,
    relu,
    remainder,
    sigmoid,
    sin,
    sqrt,
    sub,
    subtract,
    tanh,
    true_divide,
    where,
)
from .ops.extrema import argmax, argmin, max, min  # noqa: E402
from .ops.matmul import bmm, dot, matmul, mm, outer  # noqa: E402
from .ops.promotion import promote_types, result_type  # noqa: E402
from .ops.reductions import all, any, mean, prod, std, sum, var  # noqa: E402
from .ops.softmax import log_softmax, softmax  # noqa: E402
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

# elementwise arithmetic, dtype promotion and loud broadcasting (issue 3)
__all__ += [
    "BroadcastError", "BroadcastWarning", "StridedNotImplementedError", "abs", "add",
    "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor", "broadcasting", "clamp", "clip",
    "cos", "div", "divide", "eq", "exp", "floor_divide", "ge", "gt", "le", "log", "lt", "maximum",
    "minimum", "mul", "multiply", "ne", "neg", "negative", "pow", "promote_types", "relu",
    "remainder", "result_type", "sigmoid", "sin", "sqrt", "sub", "subtract", "tanh",
    "true_divide", "where",
]

# reductions and matrix products (issue 3)
__all__ += [
    "all", "any", "argmax", "argmin", "bmm", "dot", "log_softmax", "matmul", "max", "mean", "min",
    "mm", "outer", "prod", "return_types", "softmax", "std", "sum", "var",
]
