"""Adam's flat update (strided.kernels.adam_step.adam_update) with its temporaries written in
place and a long run updated block by block: bit for bit the update as it was before (each op's own fresh result: the reference
below), for every option that changes its tail (amsgrad, weight decay coupled or decoupled,
maximize, 1 - beta2 == 1, a step size of 1), float32 and float64, sizes that cross the
kernels' blocks, gradients over wide magnitudes with zeros, NaN and inf, several steps; the
gradient is never written. (``tests/test_optim.py`` and ``tests/test_optim_flat.py`` compare the
optimizer with torch.optim.)"""

from __future__ import annotations

import numpy as np
import pytest

from strided.kernels import vml_route
from strided.kernels.adam_step import adam_update
from strided.kernels.fpstate import quietly
from strided.kernels.fused import fma, fma_into, lerp_into


def _reference(p, g, m, v, vmax, *, step, lr, beta1, beta2, eps, weight_decay, decoupled, maximize) -> None:
    """The update as written before the in-place temporaries (session 34's base; its sqrt MKL VML's
    where the route runs, as the update's own since session 38)."""
    t = p.dtype.type
    if maximize:
        g = np.negative(g)
    if weight_decay != 0:
        if decoupled:
            np.multiply(p, t(1 - lr * weight_decay), out=p)
        else:
            g = fma(p, t(float(weight_decay)), g)
    lerp_into(m, g, t(1 - beta1), m)
    np.multiply(v, t(beta2), out=v)
    value = 1 - beta2
    fma_into(np.multiply(g, value) if value != 1 else g, g, v, v)
    step_size = lr / (1 - beta1**step)
    bias_correction2_sqrt = (1 - beta2**step) ** 0.5
    if vmax is not None:
        np.maximum(vmax, v, out=vmax)
        v = vmax
    root = vml_route.fresh("sqrt", v)  # (PyTorch's sqrt, MKL VML's, where that route runs: session 38)
    denom = np.true_divide(np.sqrt(v) if root is None else root, bias_correction2_sqrt)
    np.add(denom, t(eps), out=denom)
    value = -step_size
    np.add(p, np.true_divide(np.multiply(m, value) if value != 1 else m, denom), out=p)


def _bits(a: np.ndarray) -> np.ndarray:
    return a.view(np.uint32 if a.dtype == np.float32 else np.uint64)


HYPER = [
    {},
    {"amsgrad": True},
    {"weight_decay": 0.1},
    {"weight_decay": 0.05, "decoupled": True},
    {"maximize": True},
    {"beta2": 0.0},  # (1 - beta2 == 1: no scaled gradient, sqrt into a fresh array)
    {"lr": 1.0, "beta1": 0.0, "eps": 1e-30},  # (step size 1 at step 1: m / denom without a multiply)
    {"amsgrad": True, "maximize": True, "weight_decay": 0.01},
]


@pytest.mark.parametrize("extra", HYPER)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [0, 1, 7, 255, 257, 4099, 70001, 32768 * 2 + 77])
def test_adam_update_bits_unchanged(extra: dict, dtype: type, n: int) -> None:
    rng = np.random.default_rng(n + len(extra))
    hyper = {"lr": 1e-3, "beta1": 0.9, "beta2": 0.999, "eps": 1e-8, "weight_decay": 0.0, "decoupled": False,
             "maximize": False}
    amsgrad = extra.get("amsgrad", False)
    hyper.update({k: v for k, v in extra.items() if k != "amsgrad"})
    p = rng.standard_normal(n).astype(dtype)
    state_a = [p, np.zeros(n, dtype), np.zeros(n, dtype), np.zeros(n, dtype) if amsgrad else None]
    state_b = [None if a is None else a.copy() for a in state_a]
    for step in range(1, 5):
        g = (rng.standard_normal(n) * 10.0 ** rng.integers(-30, 3, n)).astype(dtype)
        if n > 10 and step == 3:  # (in the first block, and in the last where there are several)
            g[:3] = (0.0, np.nan, np.inf)
            g[-3:] = (-np.inf, -np.nan, -0.0)
        g_before = g.copy()
        quietly(_reference, state_a[0], g, *state_a[1:], step=float(step), **hyper)
        quietly(adam_update, state_b[0], g, *state_b[1:], step=float(step), **hyper)
        np.testing.assert_array_equal(_bits(g), _bits(g_before))  # (read only)
        for a, b in zip(state_a, state_b):
            if a is not None:
                np.testing.assert_array_equal(_bits(a), _bits(b))
