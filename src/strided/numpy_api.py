"""NumPy-style module functions: ``order=`` and ``copy=`` with NumPy's view-or-copy rules.

These follow NumPy (``numpy.reshape``, ``numpy.ravel``, ...), including its
strides for size-1 dims and its ValueError texts, while the Tensor methods of
the same names follow PyTorch. Only the zero-size strides differ: NumPy 2 gives
fresh empty arrays all-zero strides, we keep the row-major ones (nothing is
addressed either way).

Each function parses its arguments, asks the layout layer for a plan
(:mod:`strided.layout.plans`: the NumPy flavour) and carries it out with
:func:`_execute`: a View shares the storage, a Copy goes through the one copy
kernel (the ledger records the plan's ``why``), a refusal is raised as rendered by
:mod:`strided.messages`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .args import parse_sizes
from .dispatch import materialize
from .errors import (
    StridedShapeMismatchError,
    StridedShapeTypeError,
    StridedTypeError,
    StridedValueError,
    join_lines,
)
from .grad_mode import INSIDE
from .gradients import record
from .layout import Layout, memo, plans
from .layout.plans import Copy, View
from .messages import copy_why, error
from .tensor import Tensor

_ORDERS = ("C", "F", "A", "K")


def _check_order(order: Any, allowed: str, op: str) -> str:
    """NumPy's order argument: None means 'C'; TypeError for a non-string, ValueError for a bad one."""
    if order is None:
        return "C"
    if not isinstance(order, str):
        raise StridedTypeError(
            join_lines(
                f"order must be str, not {type(order).__name__}",
                f"got order={order!r:.40}; pass one of {', '.join(repr(o) for o in allowed)}",
            )
        )
    upper = order.upper()
    if upper == "K" and "K" not in allowed:
        raise StridedValueError(
            join_lines(f"order '{order}' is not permitted for {op}ing",
                       "reshape reads and writes elements in 'C', 'F' or 'A' order; "
                       "strided.ravel(t, order='K') flattens in memory order")
        )
    if upper not in _ORDERS:
        raise StridedValueError(
            join_lines(f"order must be one of 'C', 'F', 'A', or 'K' (got {order!r})",
                       f"{op} takes order {', '.join(repr(o) for o in allowed)}")
        )
    return upper


def _execute(t: Tensor, plan: object, op: str, keep_self: bool = False) -> Tensor:
    """Carry out ``plan`` for ``t``: a view, a copy through the one copy kernel, or the refusal raised.

    ``keep_self``: a View of ``t``'s own layout returns ``t`` itself (``ascontiguousarray``
    of a contiguous tensor is the tensor, as in NumPy), not a new view.
    """
    if plan.__class__ is View:
        if keep_self and plan.layout is t._layout:  # type: ignore[attr-defined]
            return t
        return t._view(plan.layout)  # type: ignore[attr-defined]
    if plan.__class__ is Copy:  # the plan gives the final layout: nothing is re-laid afterwards
        return materialize(t, plan, lambda: f"{op}: {copy_why(plan.why)}")
    raise error(plan)


def reshape(t: Tensor, shape: Any, order: str = "C", copy: bool | None = None) -> Tensor:
    """``numpy.reshape``: a view when NumPy's no-copy rule allows (in ``order``), else a copy.

    ``copy=False`` raises ValueError when a copy is needed; ``copy=True`` always copies.

    >>> x = strided.arange(6).view(2, 3)
    >>> strided.reshape(x, (3, 2)).stride(), strided.reshape(x, (3, 2), order="F").tolist()
    ((2, 1), [[0, 4], [3, 2], [1, 5]])
    """
    _tensor(t, "reshape")
    if t._ag is not None and order == "C" and not INSIDE.get():
        # in C order its values are Tensor.reshape's: it records that op's node (ViewBackward0),
        # as torch.reshape does; other orders have no rule, and the face's guard refuses them
        return record("reshape", lambda t, shape: reshape(t, shape, "C", copy), (t, shape), {})
    if order == "C" and copy is None:  # the common call: its view remembered (layout.memo) on the parsed sizes
        sizes = (shape,) if shape.__class__ is int else shape
        if sizes.__class__ is tuple:
            lay = t._layout
            key = (lay.shape, lay.strides, lay.offset, sizes, t._dtype.itemsize)
            for n in sizes:  # (plain ints only: True and 2.0 would find the key of 1 and 2)
                if n.__class__ is not int:
                    break
            else:
                found = memo.NUMPY_RESHAPE.get(key)
                if found is not None:
                    return t._view(found)
    order = _check_order(order, "CFA", "reshape")
    if copy is not None:  # NumPy's copy converter: None, or anything bool() takes except a string
        if isinstance(copy, str):
            raise StridedValueError(
                "strings are not allowed for 'copy' keyword. Use True/False/None instead."
            )
        copy = bool(copy)
    new_shape = parse_sizes((shape,) if not isinstance(shape, (tuple, list)) else (tuple(shape),), "reshape")
    if order == "C" and copy is None:
        lay = t._layout
        plan = memo.decide(memo.NUMPY_RESHAPE, (lay.shape, lay.strides, lay.offset, new_shape, t._dtype.itemsize))
        if plan.__class__ is Layout:
            return t._view(plan)
    else:
        plan = plans.numpy_reshape(t._layout, new_shape, order, copy, itemsize=t._dtype.itemsize)
    return _execute(t, plan, f"reshape(order={order!r})" if copy is not True else "reshape(copy=True)")


def ravel(t: Tensor, order: str = "C") -> Tensor:
    """``numpy.ravel``: a 1-d view when the layout allows it in ``order``, else a copy.

    >>> x = strided.arange(6).view(2, 3)
    >>> strided.ravel(x.t()).tolist(), strided.ravel(x.t(), order="K").tolist()
    ([0, 3, 1, 4, 2, 5], [0, 1, 2, 3, 4, 5])
    """
    _tensor(t, "ravel")
    order = _check_order(order, _ORDERS, "ravel")
    return _execute(t, plans.numpy_ravel(t._layout, order, itemsize=t._dtype.itemsize), f"ravel(order={order!r})")


def broadcast_shapes(*shapes: Any) -> tuple[int, ...]:
    """The broadcast of ``shapes`` (align right; equal sizes or one of them 1), as
    ``torch.broadcast_shapes`` and ``numpy.broadcast_shapes`` compute it; an int is a 1-d shape,
    None is skipped (PyTorch's).

    Errors are PyTorch's first lines: ValueError "Attempting to broadcast a dimension with
    negative length!", RuntimeError "Input shapes should be of type ints, ..." for a shape that
    is a float (a TypeError too, as NumPy's), and for sizes that do not broadcast "Attempting to broadcast a dimension of
    length ..." — a :class:`~strided.errors.StridedShapeMismatchError`, a RuntimeError as
    PyTorch's and a ValueError as NumPy's (whose text is the second line).

    >>> strided.broadcast_shapes((2, 1), (3,), (1, 1))
    (2, 3)
    """
    # Note: PyTorch walks the shapes in order and each one's dims right to left, against the
    # shape broadcast so far; we walk the same way, so the same pair is named.
    for s in shapes:
        if s is not None and not isinstance(s, (tuple, list)) and _is_float_like(s):
            raise StridedShapeTypeError(join_lines(
                f"Input shapes should be of type ints, a tuple of ints, or a list of ints, got {s}",
                "NumPy: expected a sequence of integers or a single integer; fix: pass each shape as an "
                "int or a tuple of ints",
            ))
    parsed = [parse_sizes((tuple(s) if isinstance(s, (tuple, list)) else (s,),), "broadcast_shapes")
              for s in shapes if s is not None]
    ndim = max((len(s) for s in parsed), default=0)
    common = [1] * ndim
    for i, s in enumerate(parsed):
        for k in range(-1, -1 - len(s), -1):
            size = s[k]
            if size == common[k]:
                continue
            if common[k] == 1:
                if size < 0:
                    raise StridedValueError(join_lines(
                        "Attempting to broadcast a dimension with negative length!",
                        f"shape {s} (argument {i}) has the size {size} at dim {k}; NumPy: negative "
                        "dimensions are not allowed",
                    ))
                common[k] = size
            if size != 1 and size != common[k]:
                raise StridedShapeMismatchError(join_lines(
                    f"Attempting to broadcast a dimension of length {size} at {k}! Mismatching argument "
                    f"at index {i} had {shapes_in(shapes)[i]}; but expected shape should be broadcastable "
                    f"to {common}",
                    "NumPy: shape mismatch: objects cannot be broadcast to a single shape "
                    f"(aligned from the right, the sizes {common[k]} and {size} at dim {k} differ and "
                    "neither is 1)",
                ))
    return tuple(common)


def shapes_in(shapes: tuple[Any, ...]) -> list[Any]:
    """The shapes as the caller wrote them (an int as a 1-tuple), None skipped: PyTorch quotes them so."""
    return [(s,) if not isinstance(s, (tuple, list)) else s for s in shapes if s is not None]


def _is_float_like(value: Any) -> bool:
    return isinstance(value, float) or "float" in str(getattr(value, "dtype", ""))


def broadcast_to(t: Tensor, shape: Any) -> Tensor:
    """``numpy.broadcast_to``: a stride-0 view, or ValueError with NumPy's text.

    >>> strided.broadcast_to(strided.arange(3), (2, 3)).stride()
    (0, 1)
    """
    _tensor(t, "broadcast_to")
    if t._ag is not None and not INSIDE.get():  # its values are Tensor.broadcast_to's: that op's node
        return record("broadcast_to", lambda t, shape: broadcast_to(t, shape), (t, shape), {})
    target = parse_sizes((shape,) if not isinstance(shape, (tuple, list)) else (tuple(shape),), "broadcast_to")
    return _execute(t, plans.numpy_broadcast_to(t._layout, target), "broadcast_to")


def _tensor(t: Any, op: str) -> Tensor:
    """strided's NumPy-style functions take strided tensors only (NumPy would convert anything)."""
    if not isinstance(t, Tensor):
        raise StridedTypeError(
            f"{op}(): expected a strided.Tensor, got {type(t).__name__}\n"
            f"  got {t!r:.60}; strided does not convert data implicitly: pass strided.tensor(data)"
        )
    return t


def _np_views(a: Tensor, b: Tensor) -> tuple[np.ndarray, np.ndarray]:
    for x in (a, b):
        if not isinstance(x, Tensor):
            raise StridedTypeError(
                join_lines(
                    f"expected strided tensors, got {type(x).__name__}",
                    "both arguments must be strided tensors; wrap a NumPy array without copying: "
                    "strided.from_numpy(array)",
                )
            )
    return a._np(), b._np()


def shares_memory(a: Tensor, b: Tensor) -> bool:
    """Exact: do the two tensors touch a common byte? (NumPy's exact solver does the work.)

    >>> x = strided.arange(6)
    >>> strided.shares_memory(x[:3], x[3:]), strided.shares_memory(x[::2], x[1:])
    (False, True)
    """
    _np_views(a, b)
    if a._storage is not b._storage and a._storage.array.base is None and b._storage.array.base is None:
        return False
    return bool(np.shares_memory(*_np_views(a, b)))


def may_share_memory(a: Tensor, b: Tensor) -> bool:
    """Bounds only: do the memory ranges of the two tensors overlap?

    >>> x = strided.arange(6)
    >>> strided.may_share_memory(x[::2], x[1::2]), strided.shares_memory(x[::2], x[1::2])
    (True, False)
    """
    return bool(np.may_share_memory(*_np_views(a, b)))


def ascontiguousarray(t: Tensor) -> Tensor:
    """``t`` when C-contiguous (0-d becomes 1-d, as in NumPy); else a C-order copy.

    >>> x = strided.zeros(2, 3)
    >>> strided.ascontiguousarray(x) is x, strided.ascontiguousarray(x.t()).stride()
    (True, (2, 1))
    """
    _tensor(t, "ascontiguousarray")
    plan = plans.ascontiguousarray(t._layout, itemsize=t._dtype.itemsize)
    return _execute(t, plan, "ascontiguousarray()", keep_self=bool(t.ndim))


def asfortranarray(t: Tensor) -> Tensor:
    """``t`` when F-contiguous (0-d becomes 1-d, as in NumPy); else a column-major copy.

    >>> strided.asfortranarray(strided.zeros(2, 3)).stride()
    (1, 2)
    """
    _tensor(t, "asfortranarray")
    plan = plans.asfortranarray(t._layout, itemsize=t._dtype.itemsize)
    return _execute(t, plan, "asfortranarray()", keep_self=bool(t.ndim))
