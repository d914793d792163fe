"""The functional inverses of the views, with PyTorch's semantics: ``slice_scatter``,
``select_scatter``, ``diagonal_scatter`` and ``as_strided_scatter`` return a copy of ``input``
whose slice (row, diagonal, strided window) holds ``src``.

The copy keeps ``input``'s layout exactly, as PyTorch's ``clone_preserve_strides`` does: the
whole storage under ``input`` is copied (all of it, elements outside ``input``'s view included)
and the result is viewed with ``input``'s strides and storage offset, so the window of
``as_strided_scatter`` addresses the same storage positions it would in ``input``. A small view
of a large storage therefore copies the large storage: the copy ledger reports those bytes. An
``input`` whose elements overlap (an expanded tensor) cannot keep its strides (the write would
reach several elements): it is cloned to dense memory instead, as PyTorch does.

``src`` must have the slice's shape exactly (no broadcasting); its dtype is converted as
``copy_`` converts.

>>> x = strided.zeros(2, 3)
>>> strided.slice_scatter(x, strided.ones(2, 1), 1, 1, 2).tolist()
[[0.0, 1.0, 0.0], [0.0, 1.0, 0.0]]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ... import layout as L
from ...dispatch import OPEN, adopted
from ...dtypes import bool_
from ...errors import StridedRuntimeError, StridedTypeError, join_lines
from ...grad_mode import requires_grad
from ...gradients import grad_zeros, seal
from ...kernels.listeners import emit, listeners, silenced
from ...kernels.memory import numpy_view
from ...layout import Layout
from ...opdef import Kind, declare
from ...tensor import Tensor
from .._support.out import write_out
from ..indexing.fast_along import WINDOW_C
from ..registry import backward, method

__all__ = ["as_strided_scatter", "diagonal_scatter", "select_scatter", "slice_scatter"]


def _tensor(value: Any, op: str, name: str, position: int) -> Tensor:
    if not isinstance(value, Tensor):
        raise StridedTypeError(join_lines(
            f"{op}(): argument '{name}' (position {position}) must be Tensor, not {type(value).__name__}",
            f"{op} writes the tensor {name} into a copy of input",
            f"fix: wrap it: strided.full_like(<the slice>, {value!r})" if name == "src" else
            f"fix: pass a tensor: strided.tensor({value!r})"))
    return value


def _clone_preserve_strides(t: Tensor) -> Tensor:
    """A copy of ``t`` with ``t``'s strides and storage offset, over a copy of its whole storage
    (PyTorch's ``clone_preserve_strides``); a plain ``clone()`` when ``t``'s elements overlap."""
    lay = t._layout
    if L.has_internal_overlap(lay.shape, lay.strides):
        return t.clone()
    return adopted(t._storage.array.copy(), Layout._trusted(lay.shape, lay.strides, lay.offset), t._dtype)


def _scatter(op: str, input: Any, src: Any, window: Callable[[Tensor], Tensor],  # noqa: A002
             fast_window: Callable[[Layout], Layout | None] | None = None, distinct: bool = True,
             c_window: Callable[[Layout], Layout | None] | None = None) -> Tensor:
    """``input``'s copy (:func:`_clone_preserve_strides`) with ``window(copy)`` overwritten by ``src``.

    ``fast_window``: the window's layout computed from the copy's, where that is plain (None: take
    ``window``, whose view checks the arguments and raises PyTorch's errors). ``distinct``: the
    window's elements are distinct storage positions where the copy is contiguous (a slice, a row,
    a diagonal; not an ``as_strided`` window): other windows are checked. ``c_window``: the
    window's layout for the compiled write alone (default ``fast_window``), which checks it
    itself (bounds, distinct positions, src's shape) and answers None otherwise."""
    plan = c_window or fast_window
    if plan is not None and not OPEN and WINDOW_C is not None and type(input) is Tensor and type(src) is Tensor:
        lay = plan(input._layout)  # (the copy's layout is input's: the window is the same)
        if lay is not None and (out := WINDOW_C(input, src, lay)) is not None:
            return out  # (a row-major input's storage copied and src written in one C call)
    x = _tensor(input, op, "input", 1)
    s = _tensor(src, op, "src", 2)
    if not OPEN:  # (nobody listens: no inner step to silence, no record to make)
        return _write_window(op, x, s, window, fast_window, distinct)
    with silenced():  # (the op's own steps: one copy is reported below)
        out = _write_window(op, x, s, window, fast_window, distinct)
    if listeners():
        kept = out._storage.array.size != out.numel() or out._layout.strides != L.contiguous_strides(out._layout.shape)
        emit(op, "copy", (x, s), out,
             f"{op}: a copy of input ({'its whole storage, to keep its strides and offset' if kept else 'dense'})"
             f" with src written into the slice", out._storage.array.nbytes)
    return out


def _write_window(op: str, x: Tensor, s: Tensor, window: Callable[[Tensor], Tensor],
                  fast_window: Callable[[Layout], Layout | None] | None, distinct: bool) -> Tensor:
    out = _clone_preserve_strides(x)
    same_dtype = s._dtype is out._dtype
    lay = fast_window(out._layout) if fast_window is not None and same_dtype else None
    piece = None
    if lay is None:
        piece = window(out)
        lay = piece._layout
    if not distinct or not L.is_contiguous(out._layout.shape, out._layout.strides):
        _refuse_overlap(op, lay)  # (a slice of a kept layout whose own elements may overlap, too)
    if lay.shape != s._layout.shape:
        raise StridedRuntimeError(join_lines(
            f"expected src to have a size equal to the slice of self. src size = {list(s._layout.shape)}, "
            f"slice size = {list(lay.shape)}",
            f"{op} writes src into that slice of a copy of input; no broadcasting",
            "fix: give src the slice's shape (src.expand(...) or src.reshape(...))"))
    if same_dtype:
        # (out is fresh memory, so src cannot overlap the window: one NumPy write of the same
        # dtype, the bytes copy_ writes; an assignment, np.copyto's write without its Python wrapper)
        numpy_view(out._storage, lay)[...] = s._np()
    else:
        assert piece is not None
        piece.copy_(s)  # (copy_'s conversion between dtypes, its warnings and errors)
    return out


def _refuse_overlap(op: str, lay: Layout) -> None:
    """Refuse a slice whose elements share storage positions (an ``as_strided`` window that reaches
    a position twice; the slice of an input whose own elements overlap, kept by the copy): PyTorch
    refuses a stride-0 one so and writes any other in its own loop order, so which ``src``
    element lands on a shared position is undefined."""
    if L.overlaps(lay.shape, lay.strides) is not False:
        raise StridedRuntimeError(join_lines(
            "unsupported operation: more than one element of the written-to tensor refers to a single "
            "memory location. Please clone() the tensor before performing the operation.",
            f"{op}'s slice (shape {lay.shape}, strides {lay.strides}) reaches some storage positions more "
            "than once: which src element would land there is undefined",
            "fix: a slice whose elements are distinct positions (or input.contiguous() first)"))


def _slice(t: Tensor, dim: int, start: int | None, end: int | None, step: int) -> Tensor:
    if not t._layout.shape:
        raise _zero_dim("slice")
    if step <= 0:
        raise StridedRuntimeError(join_lines("slice step must be positive",
                                             f"the step is {step}; slice_scatter writes a forward slice",
                                             "fix: a positive step (flip src instead of stepping backwards)"))
    d = L.wrap_dim(dim, len(t._layout.shape))
    key = (slice(None),) * d + (slice(start, end, step),)
    return t[key]


def _slice_layout(lay: Layout, dim: Any, start: Any, end: Any, step: Any) -> Layout | None:
    """The layout of ``t[..., start:end:step, ...]`` along ``dim`` (PyTorch's slice: the bounds
    wrapped and clamped as Python's are, for a positive step), for int arguments; None for anything
    else (the view's own checks and errors)."""
    shape = lay.shape
    if (not shape or dim.__class__ is not int or step.__class__ is not int or step <= 0
            or not (start is None or start.__class__ is int) or not (end is None or end.__class__ is int)):
        return None
    ndim = len(shape)
    if not -ndim <= dim < ndim:
        return None
    d = dim % ndim
    begin, stop, _ = slice(start, end, step).indices(shape[d])
    n = len(range(begin, stop, step))
    stride = lay.strides[d]
    return Layout._trusted(shape[:d] + (n,) + shape[d + 1:], lay.strides[:d] + (stride * step,) + lay.strides[d + 1:],
                           lay.offset + begin * stride if n else lay.offset)


def _select_layout(lay: Layout, dim: Any, index: Any) -> Layout | None:
    """The layout of ``t.select(dim, index)`` for int arguments in range; None otherwise (the
    view's own checks and errors)."""
    shape = lay.shape
    if not shape or dim.__class__ is not int or index.__class__ is not int:
        return None
    ndim = len(shape)
    if not -ndim <= dim < ndim:
        return None
    d = dim % ndim
    n = shape[d]
    if not -n <= index < n:
        return None
    return Layout._trusted(shape[:d] + shape[d + 1:], lay.strides[:d] + lay.strides[d + 1:],
                           lay.offset + (index % n) * lay.strides[d])


def _diagonal_layout(lay: Layout, offset: Any, dim1: Any, dim2: Any) -> Layout | None:
    """The layout of ``t.diagonal(offset, dim1, dim2)`` for int arguments naming two dims (the
    other dims in order, then the diagonal; the offset moves only for a non-empty diagonal, as
    PyTorch's); None otherwise (the view's own checks and errors)."""
    shape = lay.shape
    ndim = len(shape)
    if ndim < 2 or offset.__class__ is not int or dim1.__class__ is not int or dim2.__class__ is not int \
            or not (-ndim <= dim1 < ndim and -ndim <= dim2 < ndim):
        return None
    d1, d2 = dim1 % ndim, dim2 % ndim
    if d1 == d2:
        return None
    n1, n2 = shape[d1], shape[d2]
    s1, s2 = lay.strides[d1], lay.strides[d2]
    size = max(min(n1, n2 - offset), 0) if offset >= 0 else max(min(n1 + offset, n2), 0)
    start = lay.offset if not size else lay.offset + (offset * s2 if offset >= 0 else -offset * s1)
    if ndim == 2:  # (a matrix's diagonal: nothing else to keep; the general form costs 1 us more)
        return Layout._trusted((size,), (s1 + s2,), start)
    rest = [e for e in range(ndim) if e != d1 and e != d2]
    return Layout._trusted(tuple([shape[e] for e in rest]) + (size,),
                           tuple([lay.strides[e] for e in rest]) + (s1 + s2,), start)


def _strided_layout(lay: Layout, size: Any, stride: Any, storage_offset: Any) -> Layout | None:
    """The window of ``as_strided(size, stride, storage_offset)`` over a copy of ``lay``'s storage
    (the offset defaulting to ``lay``'s) for tuples or lists of ints; None otherwise. Unchecked:
    the compiled write checks its bounds and distinct positions (the view's errors otherwise)."""
    if size.__class__ not in (tuple, list) or stride.__class__ not in (tuple, list) or len(size) != len(stride) \
            or not (storage_offset is None or storage_offset.__class__ is int):
        return None
    if any(v.__class__ is not int for v in size) or any(v.__class__ is not int for v in stride):
        return None
    return Layout._trusted(tuple(size), tuple(stride), lay.offset if storage_offset is None else storage_offset)


def _zero_dim(view: str) -> Exception:
    from ...errors import StridedIndexError

    return StridedIndexError(join_lines(f"{view}() cannot be applied to a 0-dim tensor.",
                                        "a 0-d tensor has no dim to take a slice of",
                                        "fix: reshape it first: t.reshape(1)"))


@method("slice_scatter")
def slice_scatter(input: Tensor, src: Tensor, dim: int = 0, start: int | None = None, end: int | None = None,  # noqa: A002
                  step: int = 1, *, out: Any = None) -> Tensor:
    """A copy of ``input`` with ``input[..., start:end:step, ...]`` (along ``dim``) set to ``src``.

    >>> strided.slice_scatter(strided.zeros(4), strided.ones(2), 0, 0, 4, 2).tolist()
    [1.0, 0.0, 1.0, 0.0]
    """
    if out is not None:  # (PyTorch's out= takes only the result's dtype)
        return write_out(out, slice_scatter(input, src, dim, start, end, step),
                         "slice_scatter", (input, src, dim, start, end, step), "matmul",
                         resize_row_major=True)
    return _scatter("slice_scatter", input, src, lambda t: _slice(t, dim, start, end, step),
                    lambda lay: _slice_layout(lay, dim, start, end, step))


@method("select_scatter")
def select_scatter(input: Tensor, src: Tensor, dim: int, index: int) -> Tensor:  # noqa: A002
    """A copy of ``input`` with ``input.select(dim, index)`` set to ``src``.

    >>> strided.select_scatter(strided.zeros(2, 2), strided.ones(2), 0, 1).tolist()
    [[0.0, 0.0], [1.0, 1.0]]
    """
    def window(t: Tensor) -> Tensor:
        if not t._layout.shape:
            raise _zero_dim("select")
        return t.select(dim, index)

    return _scatter("select_scatter", input, src, window, lambda lay: _select_layout(lay, dim, index))


@method("diagonal_scatter")
def diagonal_scatter(input: Tensor, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:  # noqa: A002
    """A copy of ``input`` with ``input.diagonal(offset, dim1, dim2)`` set to ``src``.

    >>> strided.diagonal_scatter(strided.zeros(2, 2), strided.ones(2)).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    return _scatter("diagonal_scatter", input, src, lambda t: t.diagonal(offset, dim1, dim2),
                    c_window=lambda lay: _diagonal_layout(lay, offset, dim1, dim2))


@method("as_strided_scatter")
def as_strided_scatter(input: Tensor, src: Tensor, size: Sequence[int], stride: Sequence[int],  # noqa: A002
                       storage_offset: int | None = None) -> Tensor:
    """A copy of ``input`` (its strides and offset, over a copy of its whole storage) with the
    window ``as_strided(size, stride, storage_offset)`` set to ``src``; the offset defaults to
    ``input``'s, and counts from the storage's start, as ``as_strided``'s does.

    >>> strided.as_strided_scatter(strided.zeros(2, 2), strided.ones(2), (2,), (3,)).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    return _scatter("as_strided_scatter", input, src, lambda t: t.as_strided(
        size, stride, t._layout.offset if storage_offset is None else storage_offset), distinct=False,
        c_window=lambda lay: _strided_layout(lay, size, stride, storage_offset))


# ---------------------------------------------------------------- gradients
# The result is input with a slice replaced: input's gradient is the incoming one with that slice
# zeroed (the same op, scattering zeros), src's the incoming one read at the slice.


@backward("slice_scatter", operands="two", complex_grad=False)
def slice_scatter_backward(out: Tensor, input: Tensor, src: Tensor, dim: int = 0, start: int | None = None,  # noqa: A002
                           end: int | None = None, step: int = 1) -> Any:
    """SliceScatterBackward0."""
    shape = src._layout.shape
    return "SliceScatterBackward0", (input, src), lambda g: (
        slice_scatter(g, grad_zeros(shape, g._dtype), dim, start, end, step),
        _slice(g, dim, start, end, step)), ()


@backward("select_scatter", operands="two", complex_grad=False)
def select_scatter_backward(out: Tensor, input: Tensor, src: Tensor, dim: int, index: int) -> Any:  # noqa: A002
    """SelectScatterBackward0."""
    shape = src._layout.shape
    return "SelectScatterBackward0", (input, src), lambda g: (
        select_scatter(g, grad_zeros(shape, g._dtype), dim, index), g.select(dim, index)), ()


@backward("diagonal_scatter", operands="two")
def diagonal_scatter_backward(out: Tensor, input: Tensor, src: Tensor, offset: int = 0, dim1: int = 0,  # noqa: A002
                              dim2: int = 1) -> Any:
    """DiagonalScatterBackward0."""
    shape = src._layout.shape
    return "DiagonalScatterBackward0", (input, src), lambda g: (
        diagonal_scatter(g, grad_zeros(shape, g._dtype), offset, dim1, dim2), g.diagonal(offset, dim1, dim2)), ()


@backward("as_strided_scatter", operands="two")
def as_strided_scatter_backward(out: Tensor, input: Tensor, src: Tensor, size: Sequence[int],  # noqa: A002
                                stride: Sequence[int], storage_offset: int | None = None) -> Any:
    """AsStridedScatterBackward0, for a contiguous ``input`` (PyTorch refuses another one when it
    requires grad).

    # Note: PyTorch 2.13's rule gives ``input`` the gradient read AT the window and zeros elsewhere
    # (its as_strided_scatter_backward copies the window's gradient into zeros), the complement of
    # the derivative. strided gives the derivative: the incoming gradient with the window's
    # elements zeroed; ``src``'s is the gradient read at the window, as PyTorch's.
    """
    lay = input._layout
    if requires_grad(input) and not L.is_contiguous(lay.shape, lay.strides):
        raise StridedRuntimeError(join_lines(
            "!self.requires_grad() || self.is_contiguous() INTERNAL ASSERT FAILED: as_strided_scatter is "
            "currently only supported for contiguous inputs",
            f"input (shape {lay.shape}, strides {lay.strides}) requires grad and is not contiguous; PyTorch "
            "differentiates as_strided_scatter only through a contiguous input",
            "fix: input.contiguous() first"))
    base, total = lay.offset, L.product(lay.shape)
    where = lay.offset if storage_offset is None else storage_offset
    storage_size = out._storage.array.size

    def window_of(g: Tensor) -> Tensor:
        # g's elements at their storage positions (input's, contiguous from its offset), in a
        # buffer of the storage's size: the window is read there
        buf = grad_zeros((storage_size,), g._dtype)
        buf[base:base + total] = g.reshape(-1)
        return buf.as_strided(size, stride, where)

    # (which of input's elements the window overwrites: fixed by the layouts alone)
    hit = np.zeros(storage_size, bool)
    np.lib.stride_tricks.as_strided(hit[where:], tuple(size), tuple(st * hit.itemsize for st in stride))[...] = True
    keep = adopted(~hit[base:base + total], Layout._trusted(lay.shape, L.contiguous_strides(lay.shape), 0), bool_)

    def grads(g: Tensor) -> tuple:
        return g * keep, window_of(g).clone()

    return "AsStridedScatterBackward0", (input, src), grads, ()


seal(globals())  # (last: this module's ops with a backward rule become their recording entries)
declare(Kind.COPY, "slice_scatter select_scatter diagonal_scatter as_strided_scatter")
