"""``gradcheck`` and ``gradgradcheck``: autograd's first and second derivatives against finite
differences (float64 inputs), as ``torch.autograd.gradcheck`` / ``gradgradcheck``."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import StridedRuntimeError, StridedValueError, join_lines
from ..tensor import Tensor
from . import engine


def _outputs(fn: Callable, inputs: tuple) -> tuple[Tensor, ...]:
    out = fn(*inputs)
    return (out,) if isinstance(out, Tensor) else tuple(out)


def _check_inputs(inputs: tuple) -> None:
    """PyTorch's checks of gradcheck's inputs, before ``fn`` runs: a warning for an input that
    requires grad in a dtype other than float64 / complex128, a RuntimeError for one with a
    stride of 0 along a dim of more than one element (an expanded input: nudging one element
    moves several), a ValueError when no input requires grad."""
    from ..dtypes import complex128, float64

    any_input = False
    for idx, t in enumerate(inputs):
        if not (isinstance(t, Tensor) and t.requires_grad):
            continue
        if t._dtype is not float64 and t._dtype is not complex128:
            warnings.warn(f"Input #{idx} requires gradient and is not a double precision floating point or complex. "
                          "This check will likely fail if all the inputs are not of double precision floating point "
                          "or complex. ", UserWarning, stacklevel=3)
        # (PyTorch's test is stride > 0; a negative stride, which only strided's views have (a
        # flip is PyTorch's copy), nudges one element as a positive one does: let through)
        if not all(st != 0 or n <= 1 for st, n in zip(t._layout.strides, t._layout.shape)):
            raise StridedRuntimeError(join_lines(
                f"The {idx}th input has a dimension with stride 0. gradcheck only supports inputs that are "
                "non-overlapping to be able to compute the numerical gradients correctly. You should call "
                ".contiguous on the input before passing it to gradcheck.",
                f"input {idx} has shape {t._layout.shape} and strides {t._layout.strides}; fix: pass t.contiguous()"))
        any_input = True
    if not any_input:
        raise StridedValueError(join_lines(
            "gradcheck expects at least one input tensor to require gradient, but none of them have "
            "requires_grad=True.",
            "fix: x.requires_grad_() on the inputs to differentiate (float64 ones)"))


def gradcheck(fn: Callable[..., Any], inputs: Any, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
              raise_exception: bool = True, fast_mode: bool = False) -> bool:
    """Whether ``fn``'s autograd Jacobian matches central finite differences, for every input that
    requires grad (float64, as PyTorch asks). Raises with the first mismatch unless
    ``raise_exception=False``.

    # Note: perturbs one element at a time through the input's own memory (a Python loop over
    # the elements, like PyTorch's: the inputs of a check are small). ``fast_mode=True`` (as
    # PyTorch's) checks one random projection instead, ``v . J u``: two evaluations of ``fn`` and
    # one backward per output, whatever the sizes. An output that does not require grad (a
    # derivative that is constant) must have a zero numerical Jacobian.

    >>> x = strided.rand(3, dtype=strided.float64, requires_grad=True)
    >>> strided.autograd.gradcheck(lambda t: (t * t).sum(), (x,))
    True
    """
    inputs = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
    _check_inputs(inputs)
    diff = [t for t in inputs if isinstance(t, Tensor) and t.requires_grad]
    outs = _outputs(fn, inputs)
    if fast_mode:
        return _fast(fn, inputs, diff, outs, eps, atol, rtol, raise_exception)
    for k, out in enumerate(outs):
        n_out = out.numel()
        numeric = []
        for t in diff:
            arr = t._np()
            jac = np.zeros((arr.size, n_out))
            for i, ix in enumerate(np.ndindex(arr.shape)):
                old = arr[ix]
                arr[ix] = old + eps  # (grad mode as it is: fn may differentiate inside, gradgradcheck)
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
            grads = (engine.grad(out, diff, g, retain_graph=True, allow_unused=True) if out.requires_grad
                     else (None,) * len(diff))
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


def _fast(fn: Callable, inputs: tuple, diff: list, outs: tuple, eps: float, atol: float, rtol: float,
          raise_exception: bool) -> bool:
    """gradcheck's fast mode: for random ``u`` (one per input) and ``v`` (per output), the
    directional derivative ``v . (f(x + eps u) - f(x - eps u)) / 2 eps`` against ``sum_i u_i .
    grad(v . f, x_i)``."""
    rng = np.random.default_rng(0)
    us = [rng.uniform(-1, 1, t._np().shape) for t in diff]
    olds = [t._np().copy() for t in diff]

    def shifted(sign: float) -> list[np.ndarray]:
        for t, u, old in zip(diff, us, olds):  # (grad mode as it is: fn may differentiate inside)
            t._np()[...] = old + sign * eps * u
        got = [o._np().copy() for o in _outputs(fn, inputs)]
        for t, old in zip(diff, olds):
            t._np()[...] = old
        return got

    hi, lo = shifted(1.0), shifted(-1.0)
    for k, out in enumerate(outs):
        v = rng.uniform(-1, 1, out._layout.shape)
        numeric = float(np.sum(v * (hi[k] - lo[k]) / (2 * eps)))
        analytic = 0.0
        if out.requires_grad:
            grads = engine.grad(out, diff, _like(out, v), retain_graph=True, allow_unused=True)
            analytic = sum(float(np.sum(g._np() * u)) for g, u in zip(grads, us) if g is not None)
        if not np.isclose(analytic, numeric, atol=atol, rtol=rtol):
            if not raise_exception:
                return False
            raise StridedRuntimeError(join_lines(
                f"Jacobian mismatch for output {k} (fast mode: one random projection v . J u),",
                f"numerical:{numeric}\nanalytical:{analytic}"))
    return True


def gradgradcheck(fn: Callable[..., Any], inputs: Any, grad_outputs: Any = None, *, eps: float = 1e-6,
                  atol: float = 1e-5, rtol: float = 1e-3, raise_exception: bool = True,
                  fast_mode: bool = False) -> bool:
    """Whether ``fn``'s second derivatives match finite differences of its first derivatives:
    :func:`gradcheck` of ``(inputs, grad_outputs) -> autograd.grad(fn(inputs), inputs,
    grad_outputs, create_graph=True)``, as ``torch.autograd.gradgradcheck`` (the gradients are
    checked with respect to the inputs *and* the grad_outputs). ``grad_outputs``: random float64
    tensors of the outputs' shapes (requiring grad) by default.

    >>> x = strided.rand(3, dtype=strided.float64, requires_grad=True)
    >>> strided.autograd.gradgradcheck(lambda t: (t * t * t).sum(), (x,))
    True
    """
    from ..creation import tensor as _tensor

    inputs = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
    n = len(inputs)
    if grad_outputs is None:
        rng = np.random.default_rng(1)
        grad_outputs = tuple(_tensor(rng.uniform(-1, 1, o._layout.shape), dtype=o._dtype, requires_grad=True)
                             for o in _outputs(fn, inputs))
    grad_outputs = (grad_outputs,) if isinstance(grad_outputs, Tensor) else tuple(grad_outputs)

    def first(*args: Any) -> tuple:
        ins, gos = args[:n], args[n:]
        outs = _outputs(fn, ins)
        diff = [t for t in ins if isinstance(t, Tensor) and t.requires_grad]
        pairs = [(o, g) for o, g in zip(outs, gos) if o.requires_grad]
        grads = engine.grad([o for o, _ in pairs], diff, [g for _, g in pairs], create_graph=True,
                            allow_unused=True)
        return tuple(g if g is not None else _zeros_like(t) for g, t in zip(grads, diff))

    return gradcheck(first, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol, raise_exception=raise_exception,
                     fast_mode=fast_mode)


def _zeros_like(t: Tensor) -> Tensor:
    return _like(t, np.zeros(t._layout.shape))


def _like(out: Tensor, values: np.ndarray) -> Tensor:
    from ..dispatch import result

    g = result(out._layout.shape, out._dtype)
    g._np()[...] = values.reshape(out._layout.shape)
    return g
