"""``strided.array_api``: the Python Array API standard (revision 2024.12) over strided tensors.

The array object is strided's :class:`~strided.Tensor` itself; ``t.__array_namespace__()``
returns this module, so code written against the standard runs on strided tensors::

    def softmax(x):
        xp = x.__array_namespace__()
        e = xp.exp(x - xp.max(x, axis=-1, keepdims=True))
        return e / xp.sum(e, axis=-1, keepdims=True)

Each group of the specification is one small module (``creation``, ``data_types``,
``elementwise``, ``indexing``, ``linear_algebra``, ``manipulation``, ``searching``, ``sets``,
``sorting``, ``statistical``, ``utility``, ``info``) and the ``linalg`` extension is
:mod:`strided.array_api.linalg`. The namespace speaks the standard (``axis=``, ``keepdims=``,
``copy=``, its promotion table); strided's own functions and Tensor methods keep PyTorch's.

# Note: where the standard and PyTorch disagree on the array object itself, Tensor keeps
PyTorch's behaviour: ``x.size`` is a method (``x.size()``), not the element count — use
``math.prod(x.shape)``; operators on uint16/uint32/uint64 tensors and mixes of those with signed
ints are refused as PyTorch 2.13 refuses them (the namespace's functions compute them);
``x.device`` is a :class:`strided.device`.
"""

from __future__ import annotations

import math
from typing import Any

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
from ..gradients import installs_as
from ..tensor import Tensor
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

_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12")


@installs_as("__array_namespace__")
def __array_namespace__(self: Tensor, /, *, api_version: str | None = None) -> Any:  # noqa: N807
    """The Array API namespace of strided tensors: :mod:`strided.array_api`.

    >>> strided.ones(2).__array_namespace__().__name__
    'strided.array_api'
    """
    if api_version is not None and api_version not in _VERSIONS:
        from ..errors import StridedValueError

        raise StridedValueError(
            f"__array_namespace__(): unsupported api_version {api_version!r}; "
            f"strided.array_api implements {', '.join(_VERSIONS)} (as 2024.12)")
    import sys

    return sys.modules[__name__]


@installs_as("to_device")
def to_device(self: Tensor, device: Any, /, *, stream: Any = None) -> Tensor:
    """The standard's ``x.to_device(device)``: strided has one device, the CPU, so ``x`` itself."""
    from ._core import device_arg

    device_arg(device, "to_device")
    return self


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
