"""``gradcheck``: autograd's gradients against finite differences (float64 inputs)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import StridedRuntimeError, join_lines
from ..tensor import Tensor
from . import engine
from .mode import no_grad


def _outputs(fn: Callable, inputs: tuple) -> tuple[Tensor, ...]:
    out = fn(*inputs)
    return (out,) if out.__class__ is Tensor else tuple(out)


def gradcheck(fn: Callable[..., Any], inputs: Any, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
              raise_exception: bool = True) -> bool:
    """Whether ``fn``'s autograd Jacobian matches central finite differences, for every input that
    requires grad (float64, as PyTorch asks). Raises with the first mismatch unless
    ``raise_exception=False``.

    # Note: perturbs one element at a time through the input's own memory (a Python loop over
    # the elements, like PyTorch's: the inputs of a check are small).

    >>> x = strided.rand(3, dtype=strided.float64, requires_grad=True)
    >>> strided.autograd.gradcheck(lambda t: (t * t).sum(), (x,))
    True
    """
    inputs = (inputs,) if inputs.__class__ is Tensor else tuple(inputs)
    diff = [t for t in inputs if t.__class__ is Tensor and t.requires_grad]
    outs = _outputs(fn, inputs)
    for k, out in enumerate(outs):
        n_out = out.numel()
        numeric = []
        for t in diff:
            arr = t._np()
            jac = np.zeros((arr.size, n_out))
            for i, ix in enumerate(np.ndindex(arr.shape)):
                old = arr[ix]
                with no_grad():
                    arr[ix] = old + eps
                    hi = _outputs(fn, inputs)[k]._np().ravel().copy()
                    arr[ix] = old - eps
                    lo = _outputs(fn, inputs)[k]._np().ravel().copy()
                arr[ix] = old
                jac[i] = (hi - lo) / (2 * eps)
            numeric.append(jac)
        for j in range(n_out):
            onehot = np.zeros(n_out)
            onehot[j] = 1
            g = _like(out, onehot)
            grads = engine.grad(out, diff, g, retain_graph=True, allow_unused=True)
            for t, num, got in zip(diff, numeric, grads):
                analytic = np.zeros(t.numel()) if got is None else got._np().ravel()
                if not np.allclose(analytic, num[:, j], atol=atol, rtol=rtol):
                    if not raise_exception:
                        return False
                    raise StridedRuntimeError(join_lines(
                        f"Jacobian mismatch for output {k} with respect to input {inputs.index(t)},",
                        f"numerical:{num[:, j]}\nanalytical:{analytic}",
                        f"(column {j} of the Jacobian: output element {j})"))
    return True


def _like(out: Tensor, values: np.ndarray) -> Tensor:
    from ..dispatch import result

    g = result(out._layout.shape, out._dtype)
    g._np()[...] = values.reshape(out._layout.shape)
    return g
