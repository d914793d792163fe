"""Attaching op functions to Tensor as methods, and their backward rules beside them.

``@method("add", "__add__")`` in each op module installs a function as Tensor methods (the
decorator is :func:`strided.gradients.installs_as`, shared with the write path).

``@backward("mul", "multiply", operands="two")`` registers the op's gradient rule, written right
after its forward in the same module. The registry and the helpers rules share
(:func:`sum_to`, :func:`scatter_into_view`, :func:`grad_zeros`, :func:`flat_indices`,
:func:`requires_grad`) live in :mod:`strided.gradients` (below :mod:`strided.tensor`, whose views
register their rules too); this module re-exports them for the ops. See that module's doc for
the rule contract.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any

from ..gradients import BACKWARD, backward, flat_indices, grad_zeros, requires_grad, scatter_into_view, sum_to
from ..gradients import installs_as as method
from ..kernels.memory import write
from ..opdef import Kind, define
from ..tensor import Tensor

__all__ = ["BACKWARD", "backward", "flat_indices", "method", "op", "requires_grad", "scatter_into_view", "sum_to",
           "grad_zeros"]


def op(name: str, *, kind: Kind, rule: Callable[..., Any] | None = None, operands: str = "self",
       aliases: tuple[str, ...] = (), inplace: str | None = None, inplace_flat: Callable[..., bool] | None = None,
       inplace_direct: Callable[[Tensor, tuple, dict], bool] | None = None
       ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Declare an op in one place, on its forward: the Tensor method ``name`` (and ``aliases``),
    its entry in the op registry (``kind``, the forward), its backward ``rule`` (the contract of
    :mod:`strided.gradients`; ``operands`` as there) and, with ``inplace="<name>_"``, the in-place
    method derived from the forward (PyTorch's in-place checks, then the result written into
    ``self``; its autograd history is the out-of-place rule's, as PyTorch's derivatives.yaml
    defaults it; ``inplace_flat(self, *args, **kwargs) -> bool``: a fast path that writes ``self``
    itself and returns True in the cases where it gives the same result, False otherwise;
    ``inplace_direct(self, args, kwargs) -> bool``: the same for the in-place entry to call
    first, before this method, when nobody listens and the plain write is wanted: see
    :func:`strided.grad_mode.track_inplace`). The module exports the forward as its function; ending the module with
    ``seal(globals())`` makes it the recording entry, and the face re-exports it.

    >>> op = strided.opdef.OPDEFS["addcmul"]
    >>> op.kind.value, op.backward is not None, callable(Tensor.addcmul_)
    ('compute', True, True)
    """

    module = sys._getframe(1).f_globals.get("__name__", "?")  # (the family module: it seals)

    def declare(forward: Callable[..., Any]) -> Callable[..., Any]:
        for spelling in (name, *aliases):
            setattr(Tensor, spelling, forward)
        define(name, kind, forward, home=module)
        if rule is not None:
            backward(name, *aliases, operands=operands, module=module)(rule)
        if inplace is not None:
            setattr(Tensor, inplace, _inplace_of(forward, inplace, inplace_flat, inplace_direct))
        return forward

    return declare


# The registry's in-place ops whose loop updates each element from its own location alone
# (:func:`strided.ops._support.operands._check_inplace`'s ``elementwise``); addmm_ and the other
# products read whole rows and columns of the target.
_ELEMENTWISE_INPLACE = frozenset({"addcmul_", "addcdiv_"})


def _inplace_of(forward: Callable[..., Any], name: str, flat: Callable[..., bool] | None = None,
                direct: Callable[[Tensor, tuple, dict], bool] | None = None) -> Callable[..., Any]:
    """``self.<name>(...)``: ``forward(self, ...)`` computed, then written into ``self`` after
    PyTorch's in-place checks (no operand partly overlapping self; the result's dtype casts to
    self's; broadcasting may not enlarge self; self's memory writable, no overlapping elements); first ``flat``, the op's fast path,
    when it has one (see :func:`op`)."""
    from ._support.operands import _check_inplace, _check_partial_overlap
    from ._support.overlap_updates import UpdatesInOrder, updates_in_order

    @functools.wraps(forward)
    def inplace(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        try:
            if flat is not None and flat(self, *args, **kwargs):
                return self
            # (PyTorch's assert_no_partial_overlap: an operand sharing part of self's memory is refused)
            _check_partial_overlap(self, [*args, *kwargs.values()], name)
            result = forward(self, *args, **kwargs)
            _check_inplace(self, name, result._dtype, result._layout.shape, name in _ELEMENTWISE_INPLACE)
        except UpdatesInOrder as refusal:  # (a target whose elements share memory: PyTorch's updates)
            return updates_in_order(inplace, self, args, kwargs, refusal)
        write(self._storage, self._layout, result._np())
        return self

    inplace.__name__ = inplace.__qualname__ = name
    if direct is not None:
        inplace.__direct__ = direct  # type: ignore[attr-defined]  # (the in-place entry's first call)
    inplace.__doc__ = f"In-place ``{name[:-1]}``: the result written into this tensor (its shape and dtype stay)."
    return inplace
