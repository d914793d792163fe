"""``clip_grad_norm_`` and ``clip_grad_value_``: scale or clamp the parameters' gradients in place
(no graph recorded), as PyTorch 2.13's ``torch.nn.utils``.

>>> import strided.nn as nn
>>> w = nn.Parameter(strided.ones(4))
>>> (w * 3).sum().backward()
>>> nn.utils.clip_grad_norm_([w], max_norm=1.0)
tensor(6.)
>>> round(w.grad.norm().item(), 4)
1.0
"""

from __future__ import annotations

from collections.abc import Iterable

from ...creation import tensor as make_tensor
from ...errors import StridedRuntimeError
from ...tensor import Tensor
from .._grad import no_grad

__all__ = ["clip_grad_norm_", "clip_grad_value_", "get_total_norm"]


def _tensors(parameters: Tensor | Iterable[Tensor]) -> list[Tensor]:
    return [parameters] if isinstance(parameters, Tensor) else list(parameters)


def get_total_norm(tensors: Tensor | Iterable[Tensor], norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach: bool | None = None) -> Tensor:
    """The ``norm_type``-norm of the norms of ``tensors`` (the norm of all their elements
    together); a 0-d float32 zero for no tensors. ``foreach`` is accepted and ignored."""
    tensors = _tensors(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return make_tensor(0.0)
    from ...linalg import vector_norm
    from ...ops.shape.joining import stack

    with no_grad():
        norms = [vector_norm(g, norm_type) for g in tensors]
        total = vector_norm(stack(norms), norm_type)
    if error_if_nonfinite and not bool(total.isfinite()):
        raise StridedRuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it cannot be "
            "clipped. To disable this error and scale the gradients by the non-finite norm anyway, set "
            "`error_if_nonfinite=False`")
    return total


def clip_grad_norm_(parameters: Tensor | Iterable[Tensor], max_norm: float, norm_type: float = 2.0,
                    error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:
    """Scale the gradients of ``parameters`` (those that have one) by
    ``min(1, max_norm / (total_norm + 1e-6))``, in place; returns the total norm (before
    clipping). ``error_if_nonfinite``: refuse (RuntimeError) a NaN or infinite total norm.
    ``foreach`` is accepted and ignored (one loop either way)."""
    parameters = _tensors(parameters)
    grads = [p.grad for p in parameters if p.grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    if grads:
        with no_grad():
            coef = (max_norm / (total + 1e-6)).clamp(max=1.0)
            for g in grads:
                g.mul_(coef.to(g.dtype) if coef.dtype is not g.dtype else coef)
    return total


def clip_grad_value_(parameters: Tensor | Iterable[Tensor], clip_value: float, foreach: bool | None = None) -> None:
    """Clamp every gradient of ``parameters`` to [-clip_value, clip_value], in place.

    >>> import strided.nn as nn
    >>> w = nn.Parameter(strided.ones(2)); (w * 5).sum().backward()
    >>> nn.utils.clip_grad_value_([w], 0.5); w.grad.tolist()
    [0.5, 0.5]
    """
    clip_value = float(clip_value)
    with no_grad():
        for p in _tensors(parameters):
            if p.grad is not None:
                p.grad.clamp_(min=-clip_value, max=clip_value)
