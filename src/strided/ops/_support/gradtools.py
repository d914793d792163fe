"""Small helpers the backward rules of the math ops share (reductions put back, zeros, dims).

The rules sit beside their forwards (``@backward`` in each ops module); what several of them need
lives here, in the ops layer (the autograd layer above is not importable from a rule's module):

- :func:`zeros` — a zero gradient of a shape, as a stride-0 view of one zero (no memory per element);
- :func:`unreduce` — a reduction's gradient (or result) with the reduced dims put back as size 1,
  expanded to the input's shape: a view, nothing copied;
- :func:`keep` — the same with the reduced dims as size 1, not expanded (to broadcast against);
- :func:`scale_by_count`, :func:`norm_grad` — PyTorch's shared formulas (ties of an extreme share
  the gradient; the p-norm's derivative), used by amax/amin/aminmax and the norms;
- :func:`needs_grad` — whether autograd wants an operand's gradient (skip the others' work);
- :func:`from_numpy_result` — a tensor over a NumPy array a rule computed (one kernel, no element
  loop in Python; the array itself when it is fresh);
- :func:`threshold_grad` — relu's gradient, ``g.masked_fill(y <= 0, 0)``, by bit masks on a
  first-order backward (a masked fill with a random mask is slow in NumPy: ~10x).

>>> g = strided.ones(3)
>>> unreduce(g, (3, 4), (1,), False).shape
(3, 4)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...dispatch import adopted, result, result_array
from ...dtypes import DType
from ...grad_mode import (
    GRAD_MODE,
    needs_grad,  # (re-exported: the rules' one test of an operand)
    requires_grad,
)
from ...grad_mode import _slow as _recorded
from ...gradients import grad_zeros
from ...kernels import native
from ...kernels.fpstate import quietly
from ...kernels.listeners import OPEN
from ...layout import Layout
from ...tensor import Tensor


def zeros(shape: tuple[int, ...], dtype: DType) -> Tensor:
    """A zero tensor of ``shape``: one zero element, expanded (stride 0) — the gradient of an op whose
    derivative is zero everywhere (sign, floor, ...) costs no memory per element."""
    z = result((), dtype)
    z._storage.array[...] = 0
    return z.expand(shape) if shape else z


def unreduce(g: Tensor, shape: tuple[int, ...], dims: tuple[int, ...], keepdim: bool) -> Tensor:
    """``g`` (shaped as a reduction over ``dims`` of a ``shape`` tensor) with the reduced dims put back
    as size 1 and expanded to ``shape``: a view of ``g``."""
    return keep(g, shape, dims, keepdim).expand(shape) if shape else g.reshape(())


def keep(g: Tensor, shape: tuple[int, ...], dims: tuple[int, ...], keepdim: bool) -> Tensor:
    """``g`` with the reduced ``dims`` present as size 1 (as ``keepdim=True`` gives): a view."""
    if not shape:
        return g.reshape(())
    if not keepdim:
        for d in dims:
            g = g.unsqueeze(d)
    return g


def from_numpy_result(arr: np.ndarray, dtype: DType) -> Tensor:
    """A contiguous tensor holding ``arr`` (cast to ``dtype``): ``arr``'s own memory when it is a
    fresh C-contiguous array of that dtype that a rule just computed (nothing copied), else a new
    buffer filled from it. Never pass a view of a tensor's storage (it would be shared)."""
    if arr.flags.owndata and arr.flags.c_contiguous and arr.dtype == dtype.numpy and arr.ndim:
        return adopted(arr.reshape(-1), Layout.contiguous(arr.shape), dtype)
    out, dest = result_array(arr.shape, dtype)
    dest[...] = arr
    return out


def scale_by_count(g: Tensor, mask: Tensor, dims: tuple[int, ...]) -> Tensor:
    """PyTorch's scale_grad_by_count: ``g`` shared evenly among the positions ``mask`` marks in each
    reduced group (the ties of an amax / amin)."""
    return (g / mask.sum(dims, keepdim=True)) * mask if dims else g * mask


def norm_grad(g: Tensor, x: Tensor, norm: Tensor, p: float, dims: tuple[int, ...], keepdim: bool,
              whole: bool = False) -> Tensor | None:
    """PyTorch's norm_backward: the gradient of the ``p``-norm of ``x`` over ``dims`` (``norm`` its
    result): None for p == 0 (PyTorch's undefined gradient: the input gets none, as if unused);
    sgn(x) g for 1; g x / norm for 2 (0 where the norm is 0); the ties of
    |x| == norm sharing g for +-inf; sgn(x) |x|^(p-1) g / norm^(p-1) otherwise. ``whole``: the
    norm of every element without ``dim=`` (PyTorch unsqueezes nothing then: ``g`` and ``norm``
    stay 0-d, so the products take ``x``'s strides, size-1 dims' included)."""
    shape = x._layout.shape
    if p == 0:
        return None
    if not whole:
        g = keep(g, shape, dims, keepdim)
        norm = keep(norm, shape, dims, keepdim)
    if p == 1:
        return x.sgn() * g
    # (masked_fill_ in place on the fresh quotient, as PyTorch's: it keeps the quotient's strides,
    # x's own, where masked_fill's result takes the mask's too)
    if p == 2:
        return g * (x / norm).masked_fill_(norm == 0, 0)
    if p in (float("inf"), float("-inf")):
        a = x.abs()
        mask = (a == norm) | a.isnan()
        return x.sgn() * scale_by_count(g, mask, dims)
    if p < 1:
        scaled = x.sgn() * x.abs().pow(p - 1).masked_fill(x == 0, 0)
        return scaled * g * norm.pow(1 - p)
    scaled = x.sgn() * x.abs().pow(p - 1) if p < 2 else x * x.abs().pow(p - 2)
    return scaled * (g / norm.pow(p - 1)).masked_fill(norm == 0, 0)


# float dtype -> the signed integer of its width: the bits a mask of all ones or all zeros keeps
_BITS = {np.dtype(np.float16): np.int16, np.dtype(np.float32): np.int32, np.dtype(np.float64): np.int64}


def linear_backward(node: str, grad: Callable[[Tensor], Tensor], g: Tensor, saved: tuple[Tensor, ...]) -> Tensor:
    """``grad(g)``, a first derivative linear in ``g`` whose other inputs ``saved`` (the op's
    input) enter only through masks, indices or constants, with PyTorch's graph under
    ``create_graph=True``: its recorded ops (their own rules give the derivative towards ``g``)
    behind one node ``node`` (PyTorch's ``...BackwardBackward0``) over it and ``saved``, which
    passes the gradient on and gives each of ``saved`` zeros. So the gradient requires grad where
    ``g`` or a saved input does, and its derivative in the saved inputs is a zero tensor, as
    PyTorch's (leaky_relu_backward, hardtanh_backward, max_pool2d_with_indices_backward,
    nll_loss_backward, ...), not None: without the node the gradient of a loss was a constant,
    ``requires_grad`` False, and differentiating it again raised instead of giving zeros.
    Outside grad mode (a first-order backward): ``grad(g)``. (The node's forward is a copy, made
    only under create_graph.)"""
    value = grad(g)
    if not (GRAD_MODE.get() and (value._ag is not None or any(t._ag is not None for t in saved))):
        return value

    def rule(out: Tensor, v: Tensor, *rest: Tensor) -> Any:
        def grads(gg: Tensor) -> tuple:
            return (gg, *(grad_zeros(t._layout.shape, gg._dtype) for t in rest))

        return node, (v, *rest), grads, ()

    return _recorded(lambda v, *rest: v.clone(), rule, (value, *saved), {})


def kernel_backward(node: str, value: Tensor, operands: tuple[Tensor, ...],
                    grads: Callable[..., tuple], saved: Callable[..., tuple] | None = None) -> Tensor:
    """``value``, a first derivative a backward kernel computed (PyTorch runs its kernel under
    ``create_graph=True`` too: the first-order values, bit for bit), as the output of ``node``
    (PyTorch's ``...BackwardBackward0``) over ``operands`` (the incoming gradient and the saved
    inputs it was computed from): ``grads(gg, *operands)`` gives one gradient per operand (None
    where none), from recording ops (derivatives.yaml's formulas for the kernel), so a third
    backward differentiates them again. ``saved(*operands)``: the node's saved tensors (a
    :class:`strided.gradients.NamedSaved` names PyTorch's ``_saved_*``); None: the operands.
    Recorded only where an operand requires grad; else ``value`` itself."""
    if not GRAD_MODE.get() or not any(requires_grad(t) for t in operands):
        return value

    def rule(out: Tensor, v: Tensor, *ops: Tensor) -> Any:
        return node, (v, *ops), lambda gg: (None, *grads(gg, *ops)), ops if saved is None else saved(*ops)

    return _recorded(lambda v, *rest: v.clone(), rule, (value.detach(), *operands), {})


def linked(node: str, grad: Callable[[Tensor], tuple], x: Tensor) -> Callable[[Tensor], tuple]:
    """A one-input rule's ``grad`` (``g -> (gradient,)``, linear in ``g``) whose recorded form is
    :func:`linear_backward`'s node ``node`` over ``(g, x)``: zero towards ``x``, as PyTorch's
    ``MaxPool2DWithIndicesBackwardBackward0`` or ``NllLossBackwardBackward0``."""
    def grads(g: Tensor) -> tuple:
        return (linear_backward(node, lambda gg: grad(gg)[0], g, (x,)),)

    return grads


def threshold_grad(g: Tensor, y: Tensor) -> Tensor:
    """``g.masked_fill(y <= 0, 0)``: relu's gradient (PyTorch's threshold_backward: zero where
    the result is <= 0, so a NaN result passes the gradient on), a new contiguous tensor.

    On a first-order backward (grad mode off, no listeners) of a float16/32/64 gradient of ``y``'s
    shape it is computed as ``g``'s bits AND ``(y <= 0) - 1`` (all ones where kept, all zeros
    where filled): the same values bit for bit (NaN payloads and signs kept, a filled element
    +0.0) without NumPy's slow masked writes; where the compiled kernels are built and on, for
    row-major operands of one float32/float64 dtype, as one pass of ``threshold_keep`` (the same
    selection: tests/test_threshold_keep.py). Otherwise the recorded ops themselves.

    >>> threshold_grad(strided.tensor([1.0, -2.0, 3.0]), strided.tensor([1.0, 0.0, float("nan")])).tolist()
    [1.0, 0.0, 3.0]
    """
    if OPEN or (GRAD_MODE.get() and (g._ag is not None or y._ag is not None)):
        return g.masked_fill(y <= 0, 0)
    shape = g._layout.shape
    bits = _BITS.get(g._dtype.numpy)
    if bits is None or y._layout.shape != shape or not (y._dtype.is_floating_point and y._dtype.numpy in _BITS):
        return g.masked_fill(y <= 0, 0)
    out, arr = result_array(shape, g._dtype)
    k = native.special()
    if k is not None and y._dtype is g._dtype:
        try:  # (the same selection of bits in one compiled pass, without the bool-to-integer cast)
            if k.threshold_keep(g._np(), y._np(), arr):
                return out
        except (ValueError, BufferError):  # (a strided operand: NumPy's steps below take it)
            pass
    keep = np.subtract(quietly(np.less_equal, y._np(), 0), 1, dtype=bits)  # (True -> 0, False -> -1: all ones)
    np.bitwise_and(g._np().view(bits), keep, out=arr.view(bits))
    return out


def selected_grads(x: Tensor, indices: Tensor, dim: int, keepdim: bool) -> Callable[[Tensor], tuple]:
    """The backward of an op whose values are elements of ``x`` picked at ``indices`` along ``dim``
    (sort, topk, kthvalue, median, mode): PyTorch's value_selecting_reduction_backward, each
    value's gradient scattered back to the index it was taken from, zeros elsewhere."""
    shape = x._layout.shape
    d = dim % len(shape) if shape else 0

    def grads(g: Tensor) -> tuple:
        if not shape:
            return (g,)
        idx, gk = (indices, g) if keepdim else (indices.unsqueeze(d), g.unsqueeze(d))
        return (grad_zeros(shape, g._dtype).scatter(d, idx, gk),)

    return grads


def frozen_key(key: Any) -> Any:
    """An index key with its lists (at any depth) copied, for a backward rule to read later:
    PyTorch turns a list into an index tensor when it indexes, so a list the caller changes
    afterwards must not move the gradient.

    >>> k = [0, 2]; f = frozen_key((k,)); k[0] = 1; f
    ([0, 2],)
    """
    if isinstance(key, (list, tuple)):
        return type(key)(frozen_key(k) for k in key)
    return key


def key_tensors(key: Any) -> tuple[Tensor, ...]:
    """The tensors of an index key (in its tuples and lists, at any depth): what an indexing
    rule reads at backward, to be saved with their versions as PyTorch saves its index tensors
    (one written in place before backward then raises PyTorch's error instead of sending the
    gradient to the new positions)."""
    if isinstance(key, Tensor):
        return (key,)
    if isinstance(key, (list, tuple)):
        return tuple(t for k in key for t in key_tensors(k))
    return ()


__all__ = ["frozen_key", "key_tensors", "from_numpy_result", "needs_grad", "threshold_grad", "norm_grad", "scale_by_count", "keep", "unreduce", "zeros", "grad_zeros", "selected_grads"]
