"""``optim.Adam`` (and the update AdamW shares): Adam with L2 or decoupled weight decay, AMSGrad.

The update is PyTorch 2.13's single-tensor one (``torch/optim/adam.py``, ``_single_tensor_adam``,
the non-capturable branch), op for op, so a float32 run equals ``torch.optim.Adam(...,
foreach=False)``'s. Per parameter, with ``step`` a float32 0-d tensor counted up first:

    g = grad (negated if maximize)
    p *= 1 - lr * wd (decoupled: AdamW)   or   g = g + wd * p (Adam's L2)
    exp_avg.lerp_(g, 1 - beta1);  exp_avg_sq = exp_avg_sq * beta2 + (1 - beta2) * g * g
    bias_correction1 = 1 - beta1 ** step;  bias_correction2 = 1 - beta2 ** step   (Python floats)
    denom = sqrt(exp_avg_sq (or its running max: amsgrad)) / sqrt(bias_correction2) + eps
    p += -(lr / bias_correction1) * exp_avg / denom

Results: equal to PyTorch's to the bit. PyTorch's CPU ``sqrt`` is MKL's VML (``VML_HA``; not
correctly rounded: about 0.6% of float32 elements differ from NumPy's by an ulp); strided's is the
same VML call where pip MKL is installed (:mod:`strided.kernels.vml_route`), so runs are bit-equal
(``tests/test_adam34.py``). Without MKL (or with ``STRIDED_BLAS=openblas``) the root is NumPy's and
results drift within a few ulps after many steps: that root is then the only step that differs.

>>> import strided
>>> from strided import optim
>>> w = strided.tensor([1.0, -2.0], requires_grad=True)
>>> opt = optim.Adam([w], lr=0.1)
>>> (w * w).sum().backward(); opt.step()
>>> [round(v, 4) for v in w.tolist()], sorted(opt.state[w]), opt.state[w]["step"].item()
([0.9, -1.9], ['exp_avg', 'exp_avg_sq', 'step'], 1.0)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..creation import tensor, zeros_like
from ..dispatch import storage_root
from ..dtypes import float32
from ..errors import StridedKeyError, StridedRuntimeError, StridedValueError
from ..grad_mode import INFERENCE_STORAGES, SUBCLASSES, bump_writes
from ..kernels.adam_step import adam_update, ready
from ..kernels.fpstate import quiet
from ..kernels.listeners import OPEN
from ..memory_format import preserve_format
from ..ops._support.operands import _cinfo, flat_run
from ..ops.elementwise.binary import maximum
from ..ops.elementwise.complex_ops import view_as_real
from ..tensor import Tensor
from .optimizer import Optimizer, Params, check_number, check_single_tensor

__all__ = ["Adam"]


class Adam(Optimizer):
    """Adam, PyTorch's ``torch.optim.Adam`` (see the module's formulas)."""

    def __init__(self, params: Params, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, amsgrad: bool = False, *,
                 foreach: bool | None = None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False, fused: bool | None = None,
                 decoupled_weight_decay: bool = False) -> None:
        name = type(self).__name__
        check_number(name, lr=lr, eps=eps, weight_decay=weight_decay)
        # (foreach=True / fused=True taken as PyTorch's CPU optimizers take them: their updates there
        # equal foreach=False's bit for bit, the one update strided runs)
        check_single_tensor(name, capturable=capturable, differentiable=differentiable)
        if not 0.0 <= lr:
            raise StridedValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise StridedValueError(f"Invalid epsilon value: {eps}")
        check_number(name, **{"betas[0]": betas[0], "betas[1]": betas[1]})
        if not 0.0 <= betas[0] < 1.0:
            raise StridedValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise StridedValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise StridedValueError(f"Invalid weight_decay value: {weight_decay}")
        if not (isinstance(betas[0], float) and isinstance(betas[1], float)):
            raise StridedValueError("betas must be either both floats or both Tensors")
        defaults = {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay,
                    "amsgrad": amsgrad, "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable, "fused": fused,
                    "decoupled_weight_decay": decoupled_weight_decay}
        super().__init__(params, defaults)
        if fused and foreach:
            raise StridedRuntimeError("`fused` and `foreach` cannot be `True` together.")

    _GROUP_DEFAULTS = {"amsgrad": False, "maximize": False, "foreach": None, "capturable": False,
                       "differentiable": False, "decoupled_weight_decay": False, "fused": None}

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            for p in group["params"]:  # (an old state dict's step as a number: a float32 tensor now)
                p_state = self.state.get(p, {})
                if p_state and not hasattr(p_state["step"], "item"):
                    p_state["step"] = tensor(float(p_state["step"]), dtype=float32)

    def _update_group(self, group: dict[str, Any]) -> None:
        lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
        weight_decay, amsgrad, maximize = group["weight_decay"], group["amsgrad"], group["maximize"]
        decoupled = group["decoupled_weight_decay"]
        states = self.state
        if amsgrad:
            _check_amsgrad_state(group, states)
        flat = not OPEN and not INFERENCE_STORAGES.data  # (listeners get the ops, one by one; inference: its refusals)
        for param in group["params"]:
            grad = param.grad
            if grad is None:
                continue
            state = states[param]
            if len(state) == 0:
                state["step"] = tensor(0.0, dtype=float32)
                state["exp_avg"] = zeros_like(param, memory_format=preserve_format)
                state["exp_avg_sq"] = zeros_like(param, memory_format=preserve_format)
                if amsgrad:
                    state["max_exp_avg_sq"] = zeros_like(param, memory_format=preserve_format)
            if flat and _flat_update(param, grad, state, amsgrad, lr=lr, beta1=beta1, beta2=beta2, eps=eps,
                                     weight_decay=weight_decay, decoupled=decoupled, maximize=maximize):
                continue
            grad = param.grad if not maximize else -param.grad
            exp_avg, exp_avg_sq, step_t = state["exp_avg"], state["exp_avg_sq"], state["step"]
            step_t.add_(1)
            if weight_decay != 0:
                if decoupled:
                    param.mul_(1 - lr * weight_decay)
                else:
                    grad = grad.add(param, alpha=weight_decay)
            max_sq = state.get("max_exp_avg_sq")
            if param.is_complex():  # (PyTorch updates the real and imaginary parts as pairs of reals)
                grad, exp_avg, exp_avg_sq, param = (view_as_real(t) for t in (grad, exp_avg, exp_avg_sq, param))
                max_sq = view_as_real(max_sq) if max_sq is not None else None
            exp_avg.lerp_(grad, 1 - beta1)
            exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
            step = step_t.item()
            bias_correction1 = 1 - beta1**step
            bias_correction2 = 1 - beta2**step
            step_size = lr / bias_correction1
            bias_correction2_sqrt = bias_correction2**0.5
            if amsgrad:
                assert max_sq is not None
                max_sq.copy_(maximum(max_sq, exp_avg_sq))
                denom = (max_sq.sqrt() / bias_correction2_sqrt).add_(eps)
            else:
                denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
            param.addcdiv_(exp_avg, denom, value=-step_size)


def _check_amsgrad_state(group: dict[str, Any], states: Any) -> None:
    """PyTorch's KeyError for a group switched to ``amsgrad`` after its first steps (a state with
    no ``max_exp_avg_sq``), raised as PyTorch's ``_init_group`` raises it: before the group's
    first write (the update would otherwise count the step and move the averages first)."""
    for param in group["params"]:
        if param.grad is not None:
            state = states.get(param)
            if state and "max_exp_avg_sq" not in state:
                raise StridedKeyError("max_exp_avg_sq")


def _flat_update(param: Any, grad: Any, state: dict[str, Any], amsgrad: bool, **hyper: Any) -> bool:
    """The update of :meth:`Adam._update_group` in one kernel call (:func:`strided.kernels.adam_step.adam_update`:
    the same ufuncs on the same elements, so the same bits) when ``param``, its gradient and its
    state are row-major runs of one float32/float64 dtype and shape sharing no memory, and
    ``step`` is a float32 scalar of its own; the in-place writes are counted in the version
    counters as the ops count them. False (nothing written) for any other parameter: the ops."""
    step_t = state["step"]
    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
    max_sq = state.get("max_exp_avg_sq") if amsgrad else None
    tensors = (grad, param, exp_avg, exp_avg_sq) if max_sq is None else (grad, param, exp_avg, exp_avg_sq, max_sq)
    shape = param._layout.shape
    info = _cinfo[shape]
    runs = []
    for t in tensors:
        if (t.__class__ is not Tensor and t.__class__ not in SUBCLASSES) or t._layout.shape != shape:
            return False
        # (an empty tensor is a run whatever its strides: strided.tensor of an empty array keeps NumPy's zeros)
        runs.append(flat_run(t, info) if info[1] else t._storage.array[:0])
    if not ready(runs) or step_t.__class__ is not Tensor or step_t._dtype is not float32 or amsgrad and max_sq is None:
        return False
    step = flat_run(step_t, _cinfo[step_t._layout.shape])
    if step is None or len(step) != 1 or not step.flags.writeable:
        return False
    storages = {id(storage_root(t._storage)) for t in (*tensors, step_t)}
    if len(storages) != len(tensors) + 1:
        return False  # (two of them read one buffer: the ops judge the overlap)
    with quiet():
        np.add(step, np.float32(1), out=step)  # step_t.add_(1)
        adam_update(runs[1], runs[0], runs[2], runs[3], None if max_sq is None else runs[4],
                    step=float(step[0]), **hyper)
    writes = [(step_t, "add_")]  # (the ops' writes, in their order: one user line looked up for all)
    if hyper["weight_decay"] != 0 and hyper["decoupled"]:
        writes.append((param, "mul_"))
    writes += [(exp_avg, "lerp_"), (exp_avg_sq, "mul_"), (exp_avg_sq, "addcmul_")]
    if max_sq is not None:
        writes.append((max_sq, "copy_"))
    writes.append((param, "addcdiv_"))
    bump_writes(writes)
    return True
