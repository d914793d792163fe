"""Arithmetic on strided tensors, built on ``tensor`` and ``kernels``.

Importing this package installs the operator methods (``+``, ``sum``, ``@``, ...)
on :class:`strided.Tensor`; each op module registers its own with
:func:`strided.ops.registry.method`.
"""

from . import advanced_indexing, elementwise, extrema, matmul, reductions, softmax  # noqa: F401  (imported to register methods)
