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

import numpy as np

from ...callsite import user_site
from ...dispatch import OPEN, adopted
from ...dtypes import float32, float64
from ...errors import StridedRuntimeError, join_lines
from ...kernels import blas_route
from ...kernels.fpstate import quiet
from ...kernels.reduce import holds_nan
from ...opdef import Kind, declare
from ...tensor import Tensor, tensor_arg
from .._support.operands import _cinfo, flat_run
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
    if fweights is None and aweights is None:
        fast = _fast_cov(input, correction)
        if fast is not None:
            return fast
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


def _fast_cov(x: Any, correction: Any) -> Tensor | None:
    """cov's common call -- a plain row-major 2-D float32/float64 tensor outside autograd (and out
    of a watched call), no weights, an int ``correction`` below the observations' count (at
    least 2) -- as the general path's steps on NumPy arrays instead of tensors: strided's own row
    sums, then ``/ n``, the centring, ``centred @ centred.T`` (the general path's ``mm`` of a
    matrix and its own transpose: MKL's gemm where :mod:`strided.kernels.blas_route` takes it, else
    this ``np.matmul`` call on these views, NumPy's syrk) and
    ``/ (n - correction)``, each an IEEE operation of the dtype, then the same squeeze. None
    (nothing returned; the general path recomputes it) where the result holds a NaN: which of two
    NaN operands an elementwise step keeps is its loop's choice, and with no NaN at the end none
    arose on the way."""
    if x.__class__ is not Tensor or x._dtype not in _FLOATS or x._ag is not None or OPEN:
        return None
    shape = x._layout.shape
    if len(shape) != 2 or correction.__class__ is not int or shape[1] < 2 or shape[1] - correction <= 0:
        return None
    m, n = shape
    run = flat_run(x, _cinfo[shape])
    if run is None:
        return None
    avg = x.sum(1)._np()
    with quiet():  # (np.errstate(all="ignore") at a tenth of its cost: strided's ops warn of nothing)
        centred = run.reshape(shape) - (avg / n)[:, None]
        c = blas_route.matmul(centred, centred.T)  # (with MKL installed: mm's route, PyTorch's gemm)
        if c is None:
            c = np.matmul(centred, centred.T)
        np.divide(c, n - correction, out=c)
    flat = c.reshape(-1)
    if holds_nan(flat):
        return None
    return adopted(flat, _cinfo[(m, m)][2], x._dtype).squeeze()


_FLOATS = frozenset((float32, float64))


declare(Kind.COMPUTE, "cov")
