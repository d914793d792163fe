"""``optim.SGD``: stochastic gradient descent with momentum, dampening, Nesterov, weight decay.

The update is PyTorch 2.13's single-tensor one (``torch/optim/sgd.py``, ``_single_tensor_sgd``),
op for op, so a float32 run equals ``torch.optim.SGD(..., foreach=False)``'s:

    g = grad (negated if maximize);  g = g + weight_decay * p      (if weight_decay)
    buf = clone(g) on the first step, else buf * momentum + (1 - dampening) * g
    g = g + momentum * buf if nesterov else buf                       (if momentum)
    p -= lr * g

>>> import strided
>>> from strided import optim
>>> w = strided.tensor([1.0, -1.0], requires_grad=True)
>>> opt = optim.SGD([w], lr=0.1, momentum=0.9)
>>> for _ in range(2):
...     opt.zero_grad(); (w * w).sum().backward(); opt.step()
>>> [round(v, 4) for v in w.tolist()], sorted(opt.state[w])
([0.46, -0.46], ['momentum_buffer'])
"""

from __future__ import annotations

from typing import Any

from ..errors import StridedValueError
from .optimizer import Optimizer, Params, check_number, check_single_tensor

__all__ = ["SGD"]


class SGD(Optimizer):
    """Stochastic gradient descent, PyTorch's ``torch.optim.SGD`` (see the module's formulas)."""

    def __init__(self, params: Params, lr: float = 1e-3, momentum: float = 0, dampening: float = 0,
                 weight_decay: float = 0, nesterov: bool = False, *, maximize: bool = False,
                 foreach: bool | None = None, differentiable: bool = False, fused: bool | None = None) -> None:
        check_number("SGD", lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay)
        check_single_tensor("SGD", foreach=foreach, differentiable=differentiable, fused=fused)
        if lr < 0.0:
            raise StridedValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise StridedValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise StridedValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening, "weight_decay": weight_decay,
                    "nesterov": nesterov, "maximize": maximize, "foreach": foreach,
                    "differentiable": differentiable, "fused": fused}
        if nesterov and (momentum <= 0 or dampening != 0):
            raise StridedValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    _GROUP_DEFAULTS = {"nesterov": False, "maximize": False, "foreach": None, "differentiable": False,
                       "fused": False}

    def _update_group(self, group: dict[str, Any]) -> None:
        lr, momentum, dampening = group["lr"], group["momentum"], group["dampening"]
        weight_decay, nesterov, maximize = group["weight_decay"], group["nesterov"], group["maximize"]
        for param in self._params_with_grad(group):
            grad = param.grad if not maximize else -param.grad
            if weight_decay != 0:
                grad = grad.add(param, alpha=weight_decay)
            if momentum != 0:
                state = self.state[param]
                buf = state.get("momentum_buffer")
                if buf is None:
                    buf = grad.detach().clone()
                    state["momentum_buffer"] = buf
                else:
                    buf.mul_(momentum).add_(grad, alpha=1 - dampening)
                grad = grad.add(buf, alpha=momentum) if nesterov else buf
            param.add_(grad, alpha=-lr)
