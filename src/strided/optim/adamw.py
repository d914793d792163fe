"""``optim.AdamW``: Adam with decoupled weight decay (``p *= 1 - lr * weight_decay`` before the
moments), PyTorch's ``torch.optim.AdamW``: Adam's update with ``decoupled_weight_decay=True`` and
``weight_decay=1e-2`` by default.

>>> import strided
>>> from strided import optim
>>> w = strided.tensor([1.0], requires_grad=True)
>>> opt = optim.AdamW([w], lr=0.1, weight_decay=0.5)
>>> (w * 0.0).sum().backward(); opt.step()   # a zero gradient: only the decay moves w
>>> round(w.item(), 6)
0.95
"""

from __future__ import annotations

from typing import Any

from .adam import Adam
from .optimizer import Params

__all__ = ["AdamW"]


class AdamW(Adam):
    """AdamW, PyTorch's ``torch.optim.AdamW`` (see :mod:`strided.optim.adam` for the update)."""

    def __init__(self, params: Params, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 1e-2, amsgrad: bool = False, *,
                 maximize: bool = False, foreach: bool | None = None, capturable: bool = False,
                 differentiable: bool = False, fused: bool | None = None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:  # (a state loaded into AdamW always decays decoupled, as PyTorch's)
            group["decoupled_weight_decay"] = True
