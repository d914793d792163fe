"""``optim.RMSprop``: with smoothing ``alpha``, ``centered`` and ``momentum``.

The update is PyTorch 2.13's single-tensor one (``torch/optim/rmsprop.py``,
``_single_tensor_rmsprop``), op for op, so a float32 run equals ``torch.optim.RMSprop(...,
foreach=False)``'s:

    g = grad (negated if maximize);  g = g + wd * p  (if weight_decay);  step += 1
    square_avg = square_avg * alpha + (1 - alpha) * g * g
    avg = sqrt(square_avg - grad_avg^2) with grad_avg.lerp_(g, 1 - alpha) if centered else sqrt(square_avg)
    avg += eps
    buf = buf * momentum + g / avg; p -= lr * buf      (momentum > 0)
    p += -lr * g / avg                                 (otherwise)

>>> import strided
>>> from strided import optim
>>> w = strided.tensor([1.0], requires_grad=True)
>>> opt = optim.RMSprop([w], lr=0.01, centered=True, momentum=0.5)
>>> (w * w).sum().backward(); opt.step()
>>> sorted(opt.state[w])
['grad_avg', 'momentum_buffer', 'square_avg', 'step']
"""

from __future__ import annotations

from typing import Any

from ..creation import tensor, zeros_like
from ..dtypes import float32
from ..errors import StridedValueError
from ..memory_format import preserve_format
from ..ops.elementwise.complex_ops import view_as_real
from .optimizer import Optimizer, Params, check_number, check_single_tensor

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """RMSprop, PyTorch's ``torch.optim.RMSprop`` (see the module's formulas)."""

    def __init__(self, params: Params, lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8,
                 weight_decay: float = 0, momentum: float = 0, centered: bool = False,
                 capturable: bool = False, foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False) -> None:
        check_number("RMSprop", lr=lr, alpha=alpha, eps=eps, weight_decay=weight_decay, momentum=momentum)
        check_single_tensor("RMSprop", capturable=capturable, foreach=foreach, differentiable=differentiable)
        if not 0.0 <= lr:
            raise StridedValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise StridedValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise StridedValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise StridedValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise StridedValueError(f"Invalid alpha value: {alpha}")
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps, "centered": centered,
                    "weight_decay": weight_decay, "capturable": capturable, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable}
        super().__init__(params, defaults)

    _GROUP_DEFAULTS = {"momentum": 0, "centered": False, "foreach": None, "maximize": False,
                       "differentiable": False, "capturable": False}

    def _update_group(self, group: dict[str, Any]) -> None:
        lr, alpha, eps = group["lr"], group["alpha"], group["eps"]
        weight_decay, momentum, centered, maximize = (group["weight_decay"], group["momentum"],
                                                      group["centered"], group["maximize"])
        for param in self._params_with_grad(group):
            state = self.state[param]
            if len(state) == 0:
                state["step"] = tensor(0.0, dtype=float32)
                state["square_avg"] = zeros_like(param, memory_format=preserve_format)
                if momentum > 0:
                    state["momentum_buffer"] = zeros_like(param, memory_format=preserve_format)
                if centered:
                    state["grad_avg"] = zeros_like(param, memory_format=preserve_format)
            grad = param.grad if not maximize else -param.grad
            square_avg = state["square_avg"]
            state["step"].add_(1)
            if weight_decay != 0:
                grad = grad.add(param, alpha=weight_decay)
            complex_param = param.is_complex()
            if complex_param:  # (PyTorch updates the real and imaginary parts as pairs of reals)
                param, grad, square_avg = view_as_real(param), view_as_real(grad), view_as_real(square_avg)
            square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
            if centered:
                grad_avg = state["grad_avg"] if not complex_param else view_as_real(state["grad_avg"])
                grad_avg.lerp_(grad, 1 - alpha)
                avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
            else:
                avg = square_avg.sqrt()
            avg = avg.add_(eps)
            if momentum > 0:
                buf = state["momentum_buffer"] if not complex_param else view_as_real(state["momentum_buffer"])
                buf.mul_(momentum).addcdiv_(grad, avg)
                param.add_(buf, alpha=-lr)
            else:
                param.addcdiv_(grad, avg, value=-lr)
