"""The names of :mod:`strided.array_api` (the standard's constants, dtypes and functions), loaded
by the package on first use of any of them: ``import strided`` stays light (issue 23). Each
function records through strided's ops or refuses (``_autograd.wrap_namespace``, run last here,
before the package copies the names).
"""

from __future__ import annotations

import math

from ..dtypes import (
    bool_ as bool,  # noqa: A004 - the standard's name
)
from ..dtypes import (
    complex64,
    complex128,
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
from . import linalg
from ._autograd import wrap_namespace
from .creation import (
    arange,
    asarray,
    empty,
    empty_like,
    eye,
    from_dlpack,
    full,
    full_like,
    linspace,
    meshgrid,
    ones,
    ones_like,
    tril,
    triu,
    zeros,
    zeros_like,
)
from .data_types import astype, can_cast, finfo, iinfo, isdtype, result_type
from .elementwise import *  # noqa: F403 - the standard's 66 elementwise functions
from .elementwise import __all__ as _elementwise
from .indexing import take, take_along_axis
from .info import __array_namespace_info__
from .linear_algebra import matmul, matrix_transpose, tensordot, vecdot
from .manipulation import (
    broadcast_arrays,
    broadcast_to,
    concat,
    expand_dims,
    flip,
    moveaxis,
    permute_dims,
    repeat,
    reshape,
    roll,
    squeeze,
    stack,
    tile,
    unstack,
)
from .searching import argmax, argmin, count_nonzero, nonzero, searchsorted, where
from .sets import unique_all, unique_counts, unique_inverse, unique_values
from .sorting import argsort, sort
from .statistical import cumulative_prod, cumulative_sum, max, mean, min, prod, std, sum, var
from .utility import all, any, diff

__array_api_version__ = "2024.12"

e = math.e
inf = math.inf
nan = math.nan
pi = math.pi
newaxis = None

__all__ = [
    "__array_api_version__", "__array_namespace_info__", "e", "inf", "nan", "pi", "newaxis", "linalg",
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64",
    "complex64", "complex128",
    "arange", "asarray", "empty", "empty_like", "eye", "from_dlpack", "full", "full_like", "linspace",
    "meshgrid", "ones", "ones_like", "tril", "triu", "zeros", "zeros_like",
    "astype", "can_cast", "finfo", "iinfo", "isdtype", "result_type",
    *_elementwise,
    "take", "take_along_axis",
    "matmul", "matrix_transpose", "tensordot", "vecdot",
    "broadcast_arrays", "broadcast_to", "concat", "expand_dims", "flip", "moveaxis", "permute_dims", "repeat",
    "reshape", "roll", "squeeze", "stack", "tile", "unstack",
    "argmax", "argmin", "count_nonzero", "nonzero", "searchsorted", "where",
    "unique_all", "unique_counts", "unique_inverse", "unique_values",
    "argsort", "sort",
    "cumulative_prod", "cumulative_sum", "max", "mean", "min", "prod", "std", "sum", "var",
    "all", "any", "diff",
]

# Last: every function of the namespace records through strided's ops on tensors that require
# grad, or refuses (``_autograd``): made now, before anyone binds a name.
wrap_namespace(globals(), __all__)
wrap_namespace(vars(linalg), linalg.__all__)
