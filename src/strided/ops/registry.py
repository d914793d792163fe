"""Attaching op functions to Tensor as methods, and their backward rules beside them.

``@method("add", "__add__")`` in each op module installs a function as Tensor methods (the
decorator is :func:`strided.tensor.installs_as`, shared with the write path).

``@backward("mul", "multiply", operands="two")`` registers the op's gradient rule, written right
after its forward in the same module. The registry and the helpers rules share
(:func:`sum_to`, :func:`scatter_into_view`, :func:`grad_zeros`, :func:`flat_indices`,
:func:`requires_grad`) live in :mod:`strided.gradients` (below :mod:`strided.tensor`, whose views
register their rules too); this module re-exports them for the ops. See that module's doc for
the rule contract.
"""

from __future__ import annotations

from ..gradients import BACKWARD, backward, flat_indices, grad_zeros, requires_grad, scatter_into_view, sum_to
from ..tensor import installs_as as method

__all__ = ["BACKWARD", "backward", "flat_indices", "method", "requires_grad", "scatter_into_view", "sum_to",
           "grad_zeros"]
