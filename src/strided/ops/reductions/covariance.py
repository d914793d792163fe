"""``cov``: the covariance matrix of the rows of a (variables, observations) tensor, with
frequency and importance weights, as PyTorch 2.13 computes it (aten/native/Correlation.cpp).

``cov(input, *, correction=1, fweights=None, aweights=None)``: ``input`` is 0-, 1- or 2-D (a
vector is one variable); ``fweights`` integer counts and ``aweights`` float weights, one per
observation, non-negative; ``w = fweights * aweights``. The weighted mean is taken off and
``(x - mean) @ (w * (x - mean)).T`` divided by ``sum(w) - correction`` (with aweights:
``sum(w) - correction * sum(w * aweights) / sum(w)``); a factor <= 0 warns and divides by 0. The
result is squeezed (a 0-d variance for one variable). A composition of recorded ops, so its gradient is theirs.

One divergence: for a single observation with exactly one kind of weights, PyTorch zeroes the
centred input *in place* (writing zeros into the caller's tensor); strided computes the same
result without touching the input.

>>> strided.cov(strided.tensor([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]])).tolist()
[[1.0, -1.0], [-1.0, 1.0]]
"""

from __future__ import annotations

import warnings
from typing import Any

from ...callsite import user_site
from ...errors import StridedRuntimeError, join_lines
from ...opdef import Kind, declare
from ...tensor import Tensor, tensor_arg
from .._support.promotion import TORCH_NAMES
from ..registry import method

__all__ = ["cov"]


def _weights(w: Any, name: str, kind: str, n: int) -> Tensor:
    w = tensor_arg(w, "cov", name)
    if w.ndim > 1:
        raise StridedRuntimeError(join_lines(
            f"cov(): expected {name} to have one or fewer dimensions but got {name} with {w.ndim} dimensions",
            f"{name} has shape {tuple(w.shape)}: one weight per observation", f"fix: {name}.flatten()"))
    ok = (w._dtype.kind in "iu") if kind == "integral" else w._dtype.is_floating_point
    if not ok:
        raise StridedRuntimeError(join_lines(
            f"cov(): expected {name} to have {kind} dtype but got {name} with {TORCH_NAMES[w._dtype]} dtype",
            f"fix: {name}.to(strided.{'int64' if kind == 'integral' else 'float32'})"))
    if w.numel() != n:
        raise StridedRuntimeError(join_lines(
            f"cov(): expected {name} to have the same numel as there are observations in the input but got "
            f"{w.numel()} != {n}", "one weight per column of the input"))
    if n and not bool(w.min() >= 0):
        raise StridedRuntimeError(join_lines(f"cov(): {name} cannot be negative",
                                             f"{name} has a weight below 0: {w.min().item()}"))
    return w


@method("cov")
def cov(input: Tensor, *, correction: int = 1, fweights: Tensor | None = None,  # noqa: A002
        aweights: Tensor | None = None) -> Tensor:
    """The covariance of the rows of ``input`` (module doc).

    >>> strided.cov(strided.tensor([1.0, 2.0, 3.0, 4.0]), correction=0).item()
    1.25
    """
    x = tensor_arg(input, "cov")
    if x.ndim > 2:
        raise StridedRuntimeError(join_lines(
            f"cov(): expected input to have two or fewer dimensions but got an input with {x.ndim} dimensions",
            f"input has shape {tuple(x.shape)}: rows are variables, columns observations",
            "fix: .reshape(variables, -1)"))
    if x._dtype.kind == "b":
        raise StridedRuntimeError(join_lines("cov(): bool dtype is not supported for input",
                                             "fix: input.to(strided.float32)"))
    x = x.reshape(1, -1) if x.ndim < 2 else x
    n = x.shape[1]
    fw = None if fweights is None else _weights(fweights, "fweights", "integral", n)
    aw = None if aweights is None else _weights(aweights, "aweights", "floating point", n)
    w = fw if aw is None else (aw if fw is None else fw * aw)
    if w is not None:
        w_sum = w.sum()
        if not bool(w_sum != 0):
            raise StridedRuntimeError(join_lines("cov(): weights sum to zero, can't be normalized",
                                                 "every observation has weight 0"))
        avg = (x * w).sum(1) / w_sum
    else:
        w_sum = n
        avg = x.sum(1) / n
    if w is None:
        norm: Any = n - correction
    elif correction == 0:
        norm = w_sum
    elif aw is None:
        norm = w_sum - correction
    elif fw is None and n == 1 and correction == 1:
        norm = 0  # (PyTorch's corner case, as NumPy's result)
    else:
        norm = w_sum - correction * (w * aw).sum() / w_sum
    if bool(norm <= 0):
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of "
                      "observations.", UserWarning, stacklevel=user_site()[1])
        norm = norm.new_zeros(()) if isinstance(norm, Tensor) else 0  # (PyTorch's zero_(): +0, never -0)
    if n == 1 and (fw is None) != (aw is None):
        # (PyTorch's corner case: one observation, one kind of weights: the centred input is 0)
        centred = x.new_zeros(x.shape) if x._dtype.is_floating_point or x._dtype.is_complex else x.new_zeros(x.shape).float()
    else:
        centred = x - avg.unsqueeze(1)
    other = centred * w if w is not None else centred
    other = other.t()
    c = centred.mm(other.conj() if other._dtype.is_complex else other)
    return c.true_divide(norm).squeeze()  # (a Python int divides as PyTorch's 0-d int64 tensor does)


declare(Kind.COMPUTE, "cov")
