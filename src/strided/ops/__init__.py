"""Arithmetic on strided tensors, built on ``tensor`` and ``kernels``.

Importing this package installs the operator methods (``+``, ``sum``, ``@``, ...)
on :class:`strided.Tensor`; each op module registers its own with
:func:`strided.ops.registry.method`.
"""

# (imported to register their methods on Tensor)
from .. import interop  # noqa: F401 - Tensor.__dlpack__ / __dlpack_device__ (a layer below ops)

# isort: off
from . import views  # noqa: F401 - first: the view ops declare rules (transpose's) that later modules' methods share
# isort: on
from . import (  # noqa: F401
    advanced_indexing,
    binary_more,
    complex_ops,
    conversions,
    copies,
    distance,
    elementwise,
    extrema,
    gather_scatter,
    index_ops,
    inplace_views,
    joining,
    masked,
    matmul,
    nan_reductions,
    random,
    reductions,
    reorder,
    scans,
    searching,
    sets,
    shifts,
    softmax,
    sorting,
    special,
    triangles,
    unary_more,
)
