"""Attaching op functions to Tensor as methods: ``@method("add", "__add__")`` in each op module.

The decorator is :func:`strided.tensor.installs_as` (shared with the write path), named here
for the op modules.
"""

from __future__ import annotations

from ..tensor import installs_as as method

__all__ = ["method"]
