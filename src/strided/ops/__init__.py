"""Arithmetic on strided tensors, built on ``tensor`` and ``kernels``.

Importing this package installs the operator methods (``+``, ``sum``, ``@``, ...)
on :class:`strided.Tensor`; each op module registers its own with
:func:`strided.ops.registry.method`. The op families are subpackages (``elementwise``,
``reductions``, ``indexing``, ``shape``, ``linalg``, ``creation``); ``views``, ``copies``,
``conversions`` and ``inplace_views`` are the memory ops (``like_self``: ``new_zeros``, ``type_as``, ...); ``_support`` is the plumbing they share
(operand reading, ``out=``, promotion, memos); ``registry`` and ``table`` declare and list them.
"""

# (imported to register their methods on Tensor)
from .. import interop  # noqa: F401 - Tensor.__dlpack__ / __dlpack_device__ (a layer below ops)

# isort: off
from . import views  # noqa: F401 - first: the view ops declare rules (transpose's) that later modules' methods share
# isort: on
from . import conversions, copies, inplace_views, like_self  # noqa: F401
from .creation import legacy, random  # noqa: F401
from .elementwise import (  # noqa: F401
    binary,
    binary_math,
    binary_more,
    complex_ops,
    shifts,
    special,
    special_fns,
    unary_more,
)
from .indexing import advanced, gather_scatter, index_ops, masked  # noqa: F401
from .linalg import distance, factorizations, fused, inverses, matmul, norms, products  # noqa: F401
from .reductions import (  # noqa: F401
    counting,
    covariance,
    extrema,
    integration,
    nan_reductions,
    order_stats,
    scans,
    softmax,
    sums,
)
from .shape import joining, reorder, scatters, searching, sets, sorting, triangles  # noqa: F401
