"""Arithmetic on strided tensors, built on ``tensor`` and ``kernels``.

Importing this package installs the operator methods (``+``, ``sum``, ``@``, ...)
on :class:`strided.Tensor`; each op module registers its own with
:func:`strided.ops.registry.method`.
"""

from . import elementwise, extrema, gather_scatter, index_ops, masked, matmul, reductions, softmax  # noqa: F401  (imported to register methods)  # noqa: F401,E402  (indexing functions: gather, scatter_, index_*, masked_*)
