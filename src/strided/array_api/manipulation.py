"""Manipulation functions of the standard over strided's views and NumPy's copies.

Views where the standard allows one (``permute_dims``, ``expand_dims``, ``squeeze``,
``broadcast_to``, ``moveaxis``, ``unstack``, ``reshape`` when the layout allows), new memory
otherwise (``concat``, ``stack``, ``tile``, ``repeat``, ``roll``, ``flip``) — reported to the copy
ledger with a reason.

>>> import strided.array_api as xp
>>> x = xp.reshape(xp.arange(6), (2, 3))
>>> xp.permute_dims(x, (1, 0)).shape
(3, 2)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import StridedValueError, join_lines
from ..layout import layout_origin, plans
from ..messages import view_refused
from ..tensor import Tensor
from ._core import check_array, moved, normalize_axis

__all__ = ["broadcast_arrays", "broadcast_to", "concat", "expand_dims", "flip", "moveaxis", "permute_dims",
           "repeat", "reshape", "roll", "squeeze", "stack", "tile", "unstack"]


def _axes(axis: Any, ndim: int, op: str) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (int, np.integer)):
        axis = (int(axis),)
    out = tuple(normalize_axis(int(a), ndim, op) for a in axis)
    if len(set(out)) != len(out):
        raise StridedValueError(f"array_api.{op}(): repeated axis in {tuple(axis)}")
    return out


def broadcast_arrays(*arrays: Tensor) -> list[Tensor]:
    """The arrays broadcast to one shape: views (stride 0 along the broadcast dims)."""
    shape = np.broadcast_shapes(*(a.shape for a in arrays))
    return [a.expand(shape) for a in arrays]


def broadcast_to(x: Tensor, /, shape: Any) -> Tensor:
    """``x`` broadcast to ``shape``: a view (NumPy's rules: new dims on the left, size-1 dims stretch).

    >>> xp.broadcast_to(xp.asarray([1, 2]), (3, 2)).shape
    (3, 2)
    """
    shape = tuple(int(s) for s in shape)
    np.broadcast_shapes(x.shape, shape)  # NumPy's ValueError when the shapes do not broadcast
    if np.broadcast_shapes(x.shape, shape) != shape:
        raise StridedValueError(f"array_api.broadcast_to(): cannot broadcast shape {x.shape} to {shape}")
    return x.expand(shape)


def concat(arrays: Any, /, *, axis: int | None = 0) -> Tensor:
    """The arrays joined along ``axis`` (None: flattened first) into new memory, in the promoted dtype."""
    views = [a._np() for a in arrays]
    if axis is None:
        views = [v.reshape(-1) for v in views]
        axis = 0
    return moved("concat", tuple(arrays), np.concatenate(views, axis=axis),
                 f"{len(views)} arrays joined along axis {axis} into new memory")


def stack(arrays: Any, /, *, axis: int = 0) -> Tensor:
    """The arrays (one shape) stacked along a new ``axis`` into new memory."""
    return moved("stack", tuple(arrays), np.stack([a._np() for a in arrays], axis=axis),
                 f"{len(arrays)} arrays stacked along a new axis {axis} into new memory")


def expand_dims(x: Tensor, /, axis: int = 0) -> Tensor:
    """``x`` with a size-1 dimension inserted at ``axis`` (in ``-x.ndim - 1 .. x.ndim``): a view."""
    n = x.ndim + 1
    if not -n <= axis < n:
        from ..errors import StridedIndexError

        raise StridedIndexError(f"array_api.expand_dims(): axis {axis} is out of bounds for the result's {n} dims")
    return x.unsqueeze(axis % n)


def flip(x: Tensor, /, *, axis: Any = None) -> Tensor:
    """``x`` with the order of elements reversed along ``axis`` (None: every axis), as new memory.

    # Note: NumPy returns a negative-stride view; strided's tensors, like PyTorch's, have no
    negative strides, so the flip is a copy (reported to the ledger).
    """
    axes = _axes(axis, x.ndim, "flip")
    return moved("flip", (x,), np.flip(x._np(), axes).copy(), f"axes {axes} reversed into new memory")


def moveaxis(x: Tensor, source: Any, destination: Any, /) -> Tensor:
    """``x`` with axes moved from ``source`` to ``destination``: a view."""
    return x.movedim(source, destination)


def permute_dims(x: Tensor, /, axes: Any) -> Tensor:
    """``x`` with its axes in the order ``axes``: a view (strides permuted)."""
    return x.permute(*axes)


def repeat(x: Tensor, repeats: Any, /, *, axis: int | None = None) -> Tensor:
    """Each element of ``x`` repeated ``repeats`` times (an int or an array of counts) along ``axis``
    (None: ``x`` flattened first), into new memory."""
    counts = repeats._np() if isinstance(repeats, Tensor) else repeats
    data = x._np().reshape(-1) if axis is None else x._np()
    return moved("repeat", (x, repeats), np.repeat(data, counts, axis=0 if axis is None else axis),
                 "elements repeated into new memory")


def reshape(x: Tensor, /, shape: Any, *, copy: bool | None = None) -> Tensor:
    """``x`` in ``shape``: a view when the layout allows, else a copy (``copy=None``); always new
    memory with ``copy=True``; ``copy=False`` refuses with strided's layout explanation (ValueError)
    where a copy would be needed.

    >>> t = xp.permute_dims(xp.reshape(xp.arange(6), (2, 3)), (1, 0))
    >>> xp.reshape(t, (6,), copy=False)
    Traceback (most recent call last):
    ...
    strided.errors.StridedValueError: array_api.reshape(copy=False): ...
    """
    shape = tuple(int(s) for s in shape)
    # PyTorch's reshape plan decides view-or-copy once; copy= only reads it (a bad shape's refusal
    # is raised by x.reshape, whatever copy= says, as torch.reshape raises it)
    plan = plans.reshape(x._layout, shape, itemsize=x._dtype.itemsize)
    if copy is False and plan.__class__ is plans.Copy:
        raise StridedValueError(
            join_lines("array_api.reshape(copy=False): the new shape needs a copy of this layout, "
                       "and copy=False forbids one",
                       str(view_refused(plan.why, layout_origin(x._layout), x._dtype.itemsize)),
                       "fix: copy=None (a view where possible, else a copy) or copy=True"))
    out = x.reshape(shape)
    return out.clone() if copy and plan.__class__ is plans.View else out


def roll(x: Tensor, /, shift: Any, *, axis: Any = None) -> Tensor:
    """``x`` rolled by ``shift`` along ``axis`` (None: flattened, then the shape restored), new memory."""
    return moved("roll", (x,), np.roll(x._np(), shift, axis=axis), f"elements rolled by {shift} into new memory")


def squeeze(x: Tensor, /, axis: Any) -> Tensor:
    """``x`` without the size-1 dimensions ``axis``: a view; ValueError if one is not of size 1."""
    axes = _axes(axis, x.ndim, "squeeze")
    for a in axes:
        if x.shape[a] != 1:
            raise StridedValueError(
                join_lines(f"array_api.squeeze(): cannot select an axis to squeeze out which has size not "
                           f"equal to one (axis {a} has size {x.shape[a]})",
                           f"shape {x.shape}: squeeze only axes of size 1"))
    return x.squeeze(axes) if axes else x[...]


def tile(x: Tensor, repetitions: Any, /) -> Tensor:
    """``x`` repeated ``repetitions`` times along each axis, into new memory."""
    return moved("tile", (x,), np.tile(x._np(), tuple(repetitions)), f"tiled {tuple(repetitions)} into new memory")


def unstack(x: Tensor, /, *, axis: int = 0) -> tuple[Tensor, ...]:
    """The slices of ``x`` along ``axis``: views."""
    check_array(x, "unstack")
    return x.unbind(normalize_axis(axis, x.ndim, "unstack"))
