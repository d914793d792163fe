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

from typing import Any

import numpy as np

from ..kernels.memory import tensor_view
from ..tensor import Tensor

_SPLIT = 134217729.0  # 2**27 + 1: Dekker's splitter for float64


def _halves(x: Any) -> tuple[Any, Any]:
    c = _SPLIT * x
    hi = c - (c - x)
    return hi, x - hi


def fma(a: Any, b: Any, c: Any) -> np.ndarray:
    """``a * b + c`` rounded once (see the module's note), in the operands' common dtype."""
    a, b, c = np.asarray(a), np.asarray(b), np.asarray(c)
    dt = np.result_type(a, b, c)
    if dt in (np.float32, np.float16):
        wide = np.asarray(np.multiply(a, b, dtype=np.float64))  # (cast in the ufunc's buffers: no float64 copies of a, b, c)
        np.add(wide, c, out=wide)
        return wide.astype(dt)
    if dt != np.float64:
        return np.asarray(a * b + c)
    with np.errstate(over="ignore", invalid="ignore"):
        out, plain = _fma64(a, b, c)
        # Dekker's split overflows above 2**996: where the fused result is not finite but the plain
        # one is, the same sum over a and b scaled by 2**-32 each and c by 2**-64 (exact: powers of
        # two, unless a factor turns subnormal), scaled back.
        redo = ~np.isfinite(out) & np.isfinite(plain)
        if redo.any():
            scaled, _ = _fma64(a * _HALF_DOWN, b * _HALF_DOWN, c * _DOWN)
            out = np.where(redo, scaled * _UP, out)
    # (an infinite or nan product or sum makes the error terms nan: the plain result is the answer)
    return np.where(np.isfinite(out), out, plain)


_HALF_DOWN, _DOWN, _UP = 2.0**-32, 2.0**-64, 2.0**64


def _fma64(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Dekker's product and Knuth's sum: (the fused ``a * b + c``, the plain one)."""
    p = a * b
    ah, al = _halves(a)
    bh, bl = _halves(b)
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    s = p + c
    bb = s - p
    t = (p - (s - bb)) + (c - bb)
    return s + (t + e), s


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


def _fits(target: Tensor, *others: Tensor) -> bool:
    """Whether ``others`` broadcast to ``target``'s shape, as an in-place op's operands must (a
    state loaded from another optimizer can disagree): else the caller runs strided's own
    in-place op, which refuses them with PyTorch's error before writing anything."""
    try:
        return all(np.broadcast_shapes(target._layout.shape, o._layout.shape) == target._layout.shape
                   for o in others)
    except ValueError:
        return False


def add(input: Tensor, other: Tensor, alpha: float) -> Tensor:
    """``input + alpha * other`` (a new tensor), as PyTorch's ``add(other, alpha=alpha)`` rounds it."""
    x = _np(input)
    # (the result's layout is the one strided's add gives, PyTorch's TensorIterator choice)
    return input.add(other, alpha=alpha).copy_(_wrap(fma(_np(other), _num(alpha, x), x)))


def add_(target: Tensor, other: Tensor, alpha: float) -> Tensor:
    """In-place :func:`add`: PyTorch's ``target.add_(other, alpha=alpha)``."""
    if not _fits(target, other):
        return target.add_(other, alpha=alpha)
    x = _np(target)
    return target.copy_(_wrap(fma(_np(other), _num(alpha, x), x)))


def lerp_(target: Tensor, end: Tensor, weight: float) -> Tensor:
    """``target.lerp_(end, weight)`` for a number ``weight``, as PyTorch's kernel:
    ``fma(end - target, weight, target)`` for |weight| < 0.5, else ``fma(end - target, weight - 1, end)``."""
    if not _fits(target, end):
        return target.lerp_(end, weight)
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
    if not _fits(target, tensor1, tensor2):
        return target.addcmul_(tensor1, tensor2, value=value)
    x = _np(target)
    return target.copy_(_wrap(fma(_np(tensor1) * _num(value, x), _np(tensor2), x)))
