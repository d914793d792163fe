"""The updates PyTorch's CPU kernels compute with one rounding, so the optimizers equal PyTorch's
to the bit.

PyTorch 2.13's CPU kernels for ``add(other, alpha=)``, ``lerp`` (a number weight) and
``addcmul`` are fused multiply-adds (``vec::fmadd``; the compiler contracts the scalar loops
too): ``other * alpha + self``, ``(end - self) * w + self`` and ``(value * t1) * t2 + self``
are each rounded once, where NumPy's arithmetic rounds the product and the sum apart; over an
optimizer's steps the two drift apart by hundreds of ulps where updates cancel (measured:
about 10% of float32 elements differ after one ``add``). ``addcdiv``, ``mul``, ``div``, ``sqrt``
are not fused and strided's own ops already equal PyTorch's there. These helpers compute the
fused forms; the in-place ones write through ``copy_`` (the target's version counter moves as
for any in-place op):

- float32 and float16: a product of two float32 numbers is exact in float64; the sum is rounded
  to float64, then to the dtype; that double rounding differs from a true fma only when the
  float64 sum lies within 2**-29 ulp of a float32 tie.
- float64: Dekker's error-free product and Knuth's two-sum (``p + e == a * b``, ``s + t == p + c``
  exactly), then ``s + (t + e)``: the correctly rounded fma but for rare double-rounding ties.
- complex: the optimizers update ``view_as_real`` views, as PyTorch's; any other dtype takes the
  plain (unfused) arithmetic.

>>> import strided
>>> from strided.optim import _fused
>>> x = strided.tensor([1.0, 2.0]); _fused.add_(x, strided.tensor([10.0, 20.0]), 0.5).tolist()
[6.0, 12.0]
"""

from __future__ import annotations

import numpy as np

from ..kernels.fused import fma
from ..kernels.memory import tensor_view
from ..tensor import Tensor


def _num(value: float, like: np.ndarray) -> np.generic:
    """A number in the kernel's math type: PyTorch casts ``alpha``/``weight``/``value`` to it."""
    return like.dtype.type(value)


def _np(t: Tensor) -> np.ndarray:
    """The tensor's elements as a read-only NumPy view: the kernels' own view, so the storage is
    not marked as lent to NumPy (``t.numpy()`` would pin a parameter's storage for good)."""
    a = tensor_view(t)
    a.flags.writeable = False
    return a


def _wrap(array: np.ndarray) -> Tensor:
    from ..interop import as_tensor

    return as_tensor(np.asarray(array, order="C"))  # (not ascontiguousarray: it makes a 0-d array 1-d)


def add(input: Tensor, other: Tensor, alpha: float) -> Tensor:
    """``input + alpha * other`` (a new tensor), as PyTorch's ``add(other, alpha=alpha)`` rounds it."""
    x = _np(input)
    # (the result's layout is the one strided's add gives, PyTorch's TensorIterator choice)
    return input.add(other, alpha=alpha).copy_(_wrap(fma(_np(other), _num(alpha, x), x)))


def add_(target: Tensor, other: Tensor, alpha: float) -> Tensor:
    """In-place :func:`add`: PyTorch's ``target.add_(other, alpha=alpha)``."""
    x = _np(target)
    return target.copy_(_wrap(fma(_np(other), _num(alpha, x), x)))


def lerp_(target: Tensor, end: Tensor, weight: float) -> Tensor:
    """``target.lerp_(end, weight)`` for a number ``weight``, as PyTorch's kernel:
    ``fma(end - target, weight, target)`` for |weight| < 0.5, else ``fma(end - target, weight - 1, end)``."""
    a, b = _np(target), _np(end)
    w = _num(weight, a)
    diff = b - a
    res = fma(diff, w, a) if abs(w) < 0.5 else fma(diff, w - w.dtype.type(1), b)
    return target.copy_(_wrap(res))


def addcmul(input: Tensor, tensor1: Tensor, tensor2: Tensor, value: float) -> Tensor:
    """``input + value * tensor1 * tensor2`` (a new tensor), as PyTorch's ``addcmul`` rounds it:
    ``fma(value * tensor1, tensor2, input)``."""
    x = _np(input)
    return input.addcmul(tensor1, tensor2, value=value).copy_(_wrap(fma(_np(tensor1) * _num(value, x), _np(tensor2), x)))


def addcmul_(target: Tensor, tensor1: Tensor, tensor2: Tensor, value: float) -> Tensor:
    """In-place :func:`addcmul`: PyTorch's ``target.addcmul_(tensor1, tensor2, value=value)``."""
    x = _np(target)
    return target.copy_(_wrap(fma(_np(tensor1) * _num(value, x), _np(tensor2), x)))
