"""strided: N-dimensional tensors whose memory you can see and trust.

Every tensor is one flat storage plus a layout (shape, strides, storage
offset). Views never copy; copies say so. Tensor methods follow PyTorch; the
module functions with ``order=``/``copy=`` follow NumPy.
"""

from . import array_api, autograd, describe, linalg, nn, ops, writes  # noqa: F401  (importing them installs their methods on Tensor)
from ._version import __version__
from .autograd import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .creation import (
    arange,
    empty,
    empty_like,
    empty_strided,
    eye,
    from_numpy,
    full,
    full_like,
    linspace,
    logspace,
    ones,
    ones_like,
    tensor,
    zeros,
    zeros_like,
)
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
from .ops import return_types
from .ops.advanced_indexing import index_put, index_put_
from .ops.binary_more import (
    addcdiv,
    addcmul,
    allclose,
    arctan2,
    atan2,
    copysign,
    equal,
    fmod,
    hypot,
    isclose,
    lerp,
    logical_and,
    logical_or,
    logical_xor,
)
from .ops.broadcasting import broadcasting
from .ops.complex_ops import (
    adjoint,
    angle,
    complex,
    conj,
    conj_physical,
    imag,
    is_complex,
    is_conj,
    polar,
    real,
    resolve_conj,
    view_as_complex,
    view_as_real,
)
from .ops.copies import (
    alias_copy,
    as_strided_copy,
    detach_copy,
    diagonal_copy,
    expand_copy,
    narrow_copy,
    permute_copy,
    select_copy,
    slice_copy,
    split_copy,
    split_with_sizes_copy,
    squeeze_copy,
    t_copy,
    transpose_copy,
    unbind_copy,
    unfold_copy,
    unsqueeze_copy,
    view_copy,
)
from .ops.distance import cdist
from .ops.einsum import einsum, einsum_plan
from .ops.elementwise import (
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
from .ops.extrema import argmax, argmin, max, min
from .ops.gather_scatter import (
    gather,
    scatter,
    scatter_add,
    scatter_reduce,
    take,
    take_along_dim,
)
from .ops.generator import Generator, default_generator, initial_seed, manual_seed, seed
from .ops.index_ops import (
    index_add,
    index_copy,
    index_fill,
    index_select,
)
from .ops.joining import (
    atleast_1d,
    atleast_2d,
    atleast_3d,
    broadcast_tensors,
    cat,
    column_stack,
    concat,
    concatenate,
    dsplit,
    dstack,
    hsplit,
    hstack,
    row_stack,
    stack,
    tensor_split,
    vsplit,
    vstack,
)
from .ops.masked import (
    argwhere,
    masked_fill,
    masked_scatter,
    masked_select,
    nonzero,
)
from .ops.matmul import bmm, dot, matmul, mm, outer
from .ops.nan_reductions import (
    amax,
    amin,
    aminmax,
    count_nonzero,
    logsumexp,
    nanmean,
    nansum,
    norm,
)
from .ops.promotion import promote_types, result_type
from .ops.random import (
    bernoulli,
    multinomial,
    normal,
    rand,
    rand_like,
    randint,
    randint_like,
    randn,
    randn_like,
    randperm,
)
from .ops.reductions import all, any, mean, prod, std, sum, var
from .ops.reorder import flip, fliplr, flipud, repeat_interleave, roll, rot90, tile
from .ops.scans import cummax, cummin, cumprod, cumsum, diff
from .ops.searching import bucketize, searchsorted
from .ops.sets import unique, unique_consecutive
from .ops.shifts import bitwise_left_shift, bitwise_right_shift, positive
from .ops.softmax import log_softmax, softmax
from .ops.sorting import argsort, kthvalue, msort, sort, topk
from .ops.triangles import block_diag, cartesian_prod, diag, diag_embed, diagflat, meshgrid, tril, triu
from .ops.unary_more import (
    acos,
    acosh,
    arccos,
    arccosh,
    arcsin,
    arcsinh,
    arctan,
    arctanh,
    asin,
    asinh,
    atan,
    atanh,
    ceil,
    cosh,
    deg2rad,
    erf,
    erfc,
    erfinv,
    exp2,
    expm1,
    fix,
    floor,
    frac,
    isfinite,
    isinf,
    isnan,
    isneginf,
    isposinf,
    log1p,
    log2,
    log10,
    logical_not,
    nan_to_num,
    rad2deg,
    reciprocal,
    round,
    rsqrt,
    sgn,
    sign,
    signbit,
    sinh,
    square,
    tan,
    trunc,
)
from .storage import Storage
from .tensor import Tensor

bool = bool_  # noqa: A001 - strided.bool mirrors torch.bool

__all__ = [
    "__version__", "enable_grad", "is_grad_enabled", "no_grad", "set_grad_enabled", "bitwise_left_shift", "bitwise_right_shift", "positive",
    "asarray", "from_dlpack", "StridedBufferError",
    "index_put", "index_put_",
    "adjoint", "angle", "cdouble", "cfloat", "complex", "complex128", "complex64", "conj", "conj_physical", "imag", "is_complex", "is_conj", "polar", "real", "resolve_conj", "uint16", "uint32", "uint64", "view_as_complex", "view_as_real",
    "argwhere", "gather", "index_add", "index_copy", "index_fill", "index_select", "masked_fill", "masked_scatter", "masked_select", "nonzero", "scatter", "scatter_add", "scatter_reduce", "take", "take_along_dim",
    "acos", "acosh", "allclose", "amax", "amin", "aminmax", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctan2", "arctanh", "asin", "asinh", "atan", "atan2", "atanh", "cdist", "ceil", "copysign", "cosh", "count_nonzero", "deg2rad", "equal", "erf", "erfc", "erfinv", "exp2", "expm1", "fix", "floor", "fmod", "frac", "hypot", "isclose", "isfinite", "isinf", "isnan", "isneginf", "isposinf", "lerp", "linalg", "log10", "log1p", "log2", "logical_and", "logical_not", "logical_or", "logical_xor", "logsumexp", "nan_to_num", "nanmean", "nansum", "norm", "rad2deg", "reciprocal", "round", "rsqrt", "sgn", "sign", "signbit", "sinh", "square", "tan", "trunc",
    "argsort", "bucketize", "cummax", "cummin", "cumprod", "cumsum", "diff", "kthvalue", "msort",
    "searchsorted", "sort", "topk", "unique", "unique_consecutive",
    "alias_copy", "as_strided_copy", "channels_last_3d", "detach_copy", "device", "diagonal_copy",
    "empty_strided", "expand_copy", "eye", "linspace", "logspace", "narrow_copy", "permute_copy",
    "select_copy", "slice_copy", "split_copy", "split_with_sizes_copy", "squeeze_copy", "t_copy",
    "transpose_copy", "unbind_copy", "unfold_copy", "unsqueeze_copy", "view_copy",
    "atleast_1d", "atleast_2d", "atleast_3d", "block_diag", "broadcast_tensors", "cartesian_prod", "cat",
    "column_stack", "concat", "concatenate", "diag", "diag_embed", "diagflat", "dsplit", "dstack", "flip",
    "fliplr", "flipud", "hsplit", "hstack", "meshgrid", "repeat_interleave", "roll", "rot90", "row_stack",
    "stack", "tensor_split", "tile", "tril", "triu", "vsplit", "vstack",
    "bernoulli", "default_generator", "Generator", "initial_seed", "manual_seed", "multinomial", "nn",
    "normal", "rand", "rand_like", "randint", "randint_like", "randn", "randn_like", "randperm", "seed",
    "abs", "add", "all", "any", "arange", "argmax", "argmin", "as_tensor", "ascontiguousarray",
    "asfortranarray", "addcdiv", "addcmul", "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor", "bmm", "bool",
    "bool_", "broadcast_shapes", "broadcast_to", "BroadcastError", "broadcasting",
    "BroadcastWarning", "channels_last", "clamp", "clip", "contiguous_format", "CopyRecord", "cos",
    "div", "divide", "dot", "draw", "einsum", "einsum_plan", "DType", "empty", "empty_like", "eq", "exp", "explain", "float16", "float32",
    "float64", "floor_divide", "from_numpy", "full", "full_like", "ge", "gt", "int16", "int32",
    "int64", "int8", "Layout", "le", "log", "log_softmax", "lt", "matmul", "max", "maximum",
    "may_share_memory", "mean", "min", "minimum", "mm", "mul", "multiply", "ne", "neg", "negative",
    "ones", "ones_like", "outer", "OverlapWriteError", "pow", "preserve_format", "prod",
    "promote_types", "ravel", "record_copies", "relu", "remainder", "reshape", "ReshapeRefusal",
    "result_type", "return_types", "shares_memory", "sigmoid", "sin", "softmax", "sqrt", "std",
    "Storage", "StridedError", "StridedIndexError", "StridedNotImplementedError",
    "StridedRuntimeError", "StridedTypeError", "StridedValueError", "sub", "subtract", "sum",
    "tanh", "Tensor", "tensor", "true_divide", "uint8", "var", "ViewError", "watch", "watch_torch", "where", "zeros",
    "zeros_like",
]

# Last: the face's names and Tensor's methods are complete; the in-place entries and the guards
# of the ops without a backward rule are made now, before any user code can bind a name.
_finish(globals())
