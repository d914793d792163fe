"""One Adam/AdamW update on flat runs: the ufuncs of ``optim.Adam``'s op-by-op step, in its order.

:class:`strided.optim.Adam` updates each parameter with nine tensor ops (``lerp_``, ``mul_``,
``addcmul_``, ``sqrt``, ``/``, ``add_``, ``addcdiv_``, ...). When a parameter, its gradient and
its state are flat runs of one float32/float64 dtype (the optimizer checks that), each of those
ops' fast paths is one or two ufunc calls on the runs; :func:`adam_update` makes those same
calls with the same operands (so the same bits) without the ops' per-call checks. The caller
counts the in-place writes in the version counters.

Call it with NumPy's warnings off (an overflowing update gives inf silently, as in PyTorch).

>>> p, g = np.array([1.0], np.float32), np.array([2.0], np.float32)
>>> m, v = np.zeros(1, np.float32), np.zeros(1, np.float32)
>>> adam_update(p, g, m, v, None, step=1.0, lr=0.1, beta1=0.9, beta2=0.999, eps=1e-8,
...             weight_decay=0.0, decoupled=False, maximize=False)
>>> float(p[0])
0.9000000357627869
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import vml_route
from .fused import fma, fma_into, lerp_into


def adam_update(p: np.ndarray, g: np.ndarray, m: np.ndarray, v: np.ndarray, vmax: np.ndarray | None, *,
                step: float, lr: float, beta1: float, beta2: float, eps: float, weight_decay: float,
                decoupled: bool, maximize: bool) -> None:
    """``p``, ``m``, ``v`` (and ``vmax``: amsgrad's running max) updated in place for the ``step``-th
    step (already counted), as the op-by-op update in :mod:`strided.optim.adam` computes them:
    ``g`` is read only. All arrays: 1-D, one length, one float32/float64 dtype, no two sharing memory.

    Every op of the update is elementwise, so a long run is updated a block of :data:`BLOCK`
    elements at a time, every op on one block before the next: the same ufuncs on the same values
    (the same bits; each block starts a whole number of 64-byte lines into the run, so NumPy's vector
    loops split it into vectors as they split the whole run),
    with the block's arrays still in cache from one op to the next, where the
    whole run's op-by-op passes go out to memory for each of the update's dozen ops."""
    n = len(p)
    hyper = (step, lr, beta1, beta2, eps, weight_decay, decoupled, maximize)
    if n <= BLOCK:
        _update(p, g, m, v, vmax, *hyper)
        return
    for i in range(0, n, BLOCK):
        j = i + BLOCK
        _update(p[i:j], g[i:j], m[i:j], v[i:j], None if vmax is None else vmax[i:j], *hyper)


# (elements a block: 128 KB of float32, the half dozen arrays of a block well inside L2 (measured
# best of 16384 to 131072 on a (1000, 1000) step: 0.8x torch against 0.9x at 131072); a multiple of 64
# elements, so that every block but the last is whole vectors for every loop)
BLOCK = 32768


def _update(p: np.ndarray, g: np.ndarray, m: np.ndarray, v: np.ndarray, vmax: np.ndarray | None, step: float,
            lr: float, beta1: float, beta2: float, eps: float, weight_decay: float, decoupled: bool,
            maximize: bool) -> None:
    """:func:`adam_update` of one run (a block), op by op."""
    t = p.dtype.type
    if maximize:
        g = np.negative(g)  # (-param.grad)
    if weight_decay != 0:
        if decoupled:
            np.multiply(p, t(1 - lr * weight_decay), out=p)  # param.mul_(1 - lr * wd)
        else:
            g = fma(p, t(float(weight_decay)), g)  # grad.add(param, alpha=wd): one rounding
    lerp_into(m, g, t(1 - beta1), m)  # exp_avg.lerp_(grad, 1 - beta1)
    np.multiply(v, t(beta2), out=v)  # exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
    value = 1 - beta2
    scaled = np.multiply(g, value) if value != 1 else None
    fma_into(scaled if scaled is not None else g, g, v, v)
    bias_correction1 = 1 - beta1**step
    bias_correction2 = 1 - beta2**step
    step_size = lr / bias_correction1
    bias_correction2_sqrt = bias_correction2**0.5
    if vmax is not None:
        np.maximum(vmax, v, out=vmax)  # max_sq.copy_(maximum(max_sq, exp_avg_sq))
        v = vmax
    # (each temporary below is written in place by the next ufunc, the first into ``scaled``'s
    # memory, read by now: the same ufuncs on the same values, so the same bits, with two fresh
    # arrays made instead of five: fewer passes over memory not in cache, measured ~20% of a
    # (1000, 1000) float32 step)
    # (sqrt / bias_correction2_sqrt).add_(eps); the root by MKL VML as PyTorch's exp_avg_sq.sqrt()
    # (kernels.vml_route), NumPy's correctly rounded one where that route does not run
    denom = scaled if scaled is not None else np.empty(v.shape, v.dtype)
    if not vml_route.apply("sqrt", v, denom):
        np.sqrt(v, out=denom)
    np.true_divide(denom, bias_correction2_sqrt, out=denom)
    np.add(denom, t(eps), out=denom)
    value = -step_size  # param.addcdiv_(exp_avg, denom, value=-step_size)
    if value != 1:
        quotient = np.multiply(m, value)
        np.true_divide(quotient, denom, out=quotient)
    else:
        quotient = np.true_divide(m, denom)
    np.add(p, quotient, out=p)


def ready(arrays: Any) -> bool:
    """Whether these flat runs may be handed to :func:`adam_update`: none is None, all writable
    but the first (the gradient), one dtype (float32 or float64) and one length."""
    first = arrays[0]
    if first is None or first.dtype not in _DTYPES:
        return False
    for a in arrays[1:]:
        if a is None or a.dtype != first.dtype or len(a) != len(first) or not a.flags.writeable:
            return False
    return True


_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
