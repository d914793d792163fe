"""``strided.nn``: the neural-network helpers small models need (``strided.nn.functional``).

It sits at the ops level: it builds on the ops (``matmul``, ``log_softmax``, ...) and the random
samplers (``dropout``), and nothing below imports it.
"""

from . import functional

__all__ = ["functional"]
