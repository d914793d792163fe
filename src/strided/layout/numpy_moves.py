"""NumPy's flavour of the movement ops and of the copies that always copy, as plans.

``numpy.transpose``, ``swapaxes``, ``moveaxis``, ``squeeze``, ``expand_dims``, ``numpy.copy``
(order K) and ``ndarray.flatten``: each a pure function of the layout and already-converted
int arguments, returning a :class:`~.plans.View`, a :class:`~.plans.Copy` or a
:class:`~.refusals.NumpyAxisRefusal` in NumPy's order of checks. They sit beside the NumPy
reshape rules of :mod:`.plans` (``numpy_reshape``, ``numpy_ravel``, ...), which they reuse.

Where NumPy differs from PyTorch (the Tensor methods' rules in :mod:`.movement`):

- axis errors are NumPy's ``AxisError`` (``axis 3 is out of bounds for array of dimension 2``);
- ``expand_dims`` is a NumPy reshape, so its new size-1 dims get the reshape's strides;
- a fresh empty array has all-zero strides (``numpy.copy``, ``flatten``).

Example::

    >>> numpy_moveaxis(Layout((2, 3, 4), (12, 4, 1)), (0,), (2,))
    View(Layout(shape=(3, 4, 2), strides=(4, 1, 12), offset=0))
    >>> numpy_copy(Layout((3, 4), (1, 3)), itemsize=8).layout.strides
    (1, 3)
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..refusals import CopyRequested, NumpyAxisRefusal, Shape
from .core import Layout, _trusted, contiguous_strides, fortran_strides, is_contiguous, is_f_contiguous
from .plans import Copy, Plan, View, _dense_copy, numpy_reshape
from .reshape import numpy_keep_order


def numpy_axis(axis: int, ndim: int, op: str, prefix: str = "") -> int | NumpyAxisRefusal:
    """NumPy's ``check_and_adjust_axis``: ``axis`` wrapped into ``[0, ndim)``, or the AxisError."""
    if -ndim <= axis < ndim:
        return axis + ndim if axis < 0 else axis
    return NumpyAxisRefusal("bounds", op, ndim, axis, prefix)


def numpy_axes(axes: Sequence[int], ndim: int, op: str, prefix: str = "") -> Shape | NumpyAxisRefusal:
    """NumPy's ``normalize_axis_tuple``: each axis wrapped, then repeats refused."""
    wrapped = []
    for a in axes:
        w = numpy_axis(a, ndim, op, prefix)
        if w.__class__ is not int:
            return w
        wrapped.append(w)
    for i, w in enumerate(wrapped):
        if w in wrapped[:i]:
            return NumpyAxisRefusal("repeated", op, ndim, w, prefix)
    return tuple(wrapped)


def _permuted(layout: Layout, perm: Sequence[int]) -> View:
    return View(_trusted(tuple(layout.shape[d] for d in perm), tuple(layout.strides[d] for d in perm),
                         layout.offset))


def numpy_transpose(layout: Layout, axes: Sequence[int] | None = None) -> Plan:
    """``numpy.transpose(a, axes)``: all dims reversed (``axes=None``) or permuted; always a View,
    or a refusal: "count" (not one axis per dim), "bounds", "repeated" (checked axis by axis)."""
    ndim = len(layout.shape)
    if axes is None:
        return _permuted(layout, range(ndim - 1, -1, -1))
    if len(axes) != ndim:
        return NumpyAxisRefusal("count", "transpose", ndim, len(axes))
    seen: list[int] = []
    for a in axes:  # NumPy checks bounds and repeats in one pass, axis by axis
        w = numpy_axis(a, ndim, "transpose")
        if w.__class__ is not int:
            return w
        if w in seen:
            return NumpyAxisRefusal("repeated", "transpose", ndim, w)
        seen.append(w)  # type: ignore[arg-type]
    return _permuted(layout, seen)


def numpy_swapaxes(layout: Layout, axis1: int, axis2: int) -> Plan:
    """``numpy.swapaxes(a, axis1, axis2)``: a View, or the AxisError naming ``axis1``/``axis2``."""
    ndim = len(layout.shape)
    a1 = numpy_axis(axis1, ndim, "swapaxes", "axis1")
    if a1.__class__ is not int:
        return a1
    a2 = numpy_axis(axis2, ndim, "swapaxes", "axis2")
    if a2.__class__ is not int:
        return a2
    perm = list(range(ndim))
    perm[a1], perm[a2] = perm[a2], perm[a1]  # type: ignore[index]
    return _permuted(layout, perm)


def numpy_moveaxis(layout: Layout, source: Sequence[int], destination: Sequence[int]) -> Plan:
    """``numpy.moveaxis(a, source, destination)`` (both already sequences of ints): a View, or a
    refusal in NumPy's order: source's bounds and repeats, destination's, then the lengths."""
    ndim = len(layout.shape)
    src = numpy_axes(source, ndim, "moveaxis", "source")
    if src.__class__ is not tuple:
        return src
    dst = numpy_axes(destination, ndim, "moveaxis", "destination")
    if dst.__class__ is not tuple:
        return dst
    if len(src) != len(dst):  # type: ignore[arg-type]
        return NumpyAxisRefusal("length", "moveaxis", ndim)
    order = [n for n in range(ndim) if n not in src]  # type: ignore[operator]
    for d, s in sorted(zip(dst, src)):  # type: ignore[call-overload]
        order.insert(d, s)
    return _permuted(layout, order)


def numpy_squeeze(layout: Layout, axis: int | Sequence[int] | None = None) -> Plan:
    """``numpy.squeeze(a, axis)``: a View without the size-1 dims (all of them, ``axis=None``), or a
    refusal: "bounds", "repeated", or "squeeze" (a selected dim whose size is not 1).

    ``axis`` is an int (a 0-d array accepts 0 and -1, as NumPy does for old code) or a tuple.
    """
    shape, strides = layout.shape, layout.strides
    ndim = len(shape)
    if axis is None:
        keep = [d for d in range(ndim) if shape[d] != 1]
    else:
        if isinstance(axis, int):
            if ndim == 0 and axis in (0, -1):
                return View(layout)
            axis = (axis,)
        chosen = numpy_squeeze_axes(axis, ndim)
        if chosen.__class__ is not tuple:
            return chosen
        for d in range(ndim):
            if d in chosen and shape[d] != 1:
                return NumpyAxisRefusal("squeeze", "squeeze", ndim, d)
        keep = [d for d in range(ndim) if d not in chosen]
    return View(_trusted(tuple(shape[d] for d in keep), tuple(strides[d] for d in keep), layout.offset))


def numpy_squeeze_axes(axes: Sequence[int], ndim: int) -> Shape | NumpyAxisRefusal:
    """The axes of ``squeeze(axis=tuple)`` wrapped, checked one by one for bounds and repeats
    (NumPy's ``PyArray_ConvertMultiAxis``; the sizes are checked after all of them)."""
    chosen: list[int] = []
    for a in axes:
        w = numpy_axis(a, ndim, "squeeze")
        if w.__class__ is not int:
            return w
        if w in chosen:
            return NumpyAxisRefusal("repeated", "squeeze", ndim, w)
        chosen.append(w)  # type: ignore[arg-type]
    return tuple(chosen)


def numpy_expand_dims(layout: Layout, axis: Sequence[int], *, itemsize: int) -> Plan:
    """``numpy.expand_dims(a, axis)`` (``axis`` a sequence of ints): NumPy's ``a.reshape`` with
    size-1 dims inserted, so the new dims get the reshape's strides; or a refusal."""
    out_ndim = len(axis) + len(layout.shape)
    axes = numpy_axes(axis, out_ndim, "expand_dims")
    if axes.__class__ is not tuple:
        return axes
    rest = iter(layout.shape)
    shape = tuple(1 if d in axes else next(rest) for d in range(out_ndim))  # type: ignore[operator]
    return numpy_reshape(layout, shape, itemsize=itemsize)


def _fresh(shape: Shape, strides: Shape) -> Shape:
    # Note: NumPy gives a freshly allocated empty array all-zero strides (PyTorch keeps dense ones).
    return (0,) * len(shape) if 0 in shape else strides


def numpy_copy(layout: Layout, order: str = "K", *, itemsize: int) -> Copy:
    """``numpy.copy(a, order=)``: always a Copy into fresh memory.

    Order "K" (the default) keeps the input's memory order: a C-contiguous input is copied in
    C order, an F-contiguous one in F order, any other has its dims sorted by decreasing
    ``|stride|`` (ties in index order; size-1 and stride-0 dims sorted like any other, unlike
    NumPy's iterator) and laid out densely in that order. "A" is "F" for an F- and not
    C-contiguous input, else "C". An empty copy has all-zero strides.
    """
    shape, strides = layout.shape, layout.strides
    c_contig, f_contig = is_contiguous(shape, strides), is_f_contiguous(shape, strides)
    if order == "A":
        order = "F" if f_contig and not c_contig else "C"
    elif order == "K" and (c_contig or f_contig):
        order = "C" if c_contig else "F"
    if 0 in shape:
        dense = _fresh(shape, ())  # (never the dense strides, which may not fit int64)
    elif order == "C":
        dense = contiguous_strides(shape)
    elif order == "F":
        dense = fortran_strides(shape)
    else:
        perm = sorted(range(len(shape)), key=lambda d: -abs(strides[d]))  # sorted() is stable
        out = [0] * len(shape)
        step = 1
        for d in reversed(perm):
            out[d] = step
            step *= shape[d]
        dense = tuple(out)
    return _dense_copy(layout, dense, itemsize, CopyRequested("np.copy()"))


def numpy_flatten(layout: Layout, order: str = "C", *, itemsize: int) -> Copy:
    """``ndarray.flatten(order=)``: always a 1-d Copy into fresh memory, read in ``order`` ("C",
    "F", "A" or "K": memory order, NumPy's iterator's, without flipping negative strides)."""
    shape, strides = layout.shape, layout.strides
    c_contig, f_contig = is_contiguous(shape, strides), is_f_contiguous(shape, strides)
    if order == "A":
        order = "F" if f_contig and not c_contig else "C"
    if order == "K":
        # a contiguous input is read in its own order (as NumPy's iterator would find it)
        order = "C" if c_contig else "F" if f_contig else "K"
    if order == "F":
        perm: Sequence[int] = range(len(shape) - 1, -1, -1)
    elif order == "K":
        perm = numpy_keep_order(shape, strides)
    else:
        perm = range(len(shape))
    read = _permuted(layout, perm).layout
    n = math.prod(shape)
    result = _trusted((n,), _fresh((n,), (1,)), 0)
    return _dense_copy(read, contiguous_strides(read.shape), itemsize, CopyRequested("flatten()"), result)


__all__ = [
    "numpy_axes", "numpy_axis", "numpy_copy", "numpy_expand_dims", "numpy_flatten", "numpy_moveaxis",
    "numpy_squeeze", "numpy_squeeze_axes", "numpy_swapaxes", "numpy_transpose",
]
