"""Joining and splitting tensors, with PyTorch's semantics: ``cat`` (``concat``, ``concatenate``),
``stack``, ``hstack``, ``vstack`` (``row_stack``), ``dstack``, ``column_stack`` (copies: new memory
filled from the inputs, reported to the copy ledger with a reason), and ``tensor_split``,
``hsplit``, ``vsplit``, ``dsplit``, ``broadcast_tensors``, ``atleast_1d/2d/3d`` (views: new layouts
over the inputs' storage, planned by :mod:`strided.layout`).

The joining ops share one kernel, :func:`_join`: the inputs are read in place (a NumPy view of
each layout, expanded and permuted ones included) and written by ``np.concatenate`` straight into
the result's memory. The result is laid out as PyTorch lays out ``cat``'s: channels_last when every
input suggests it, else row-major.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ... import layout as L
from ...dispatch import OPEN, copied, memory_overlap, result, result_array, shares_storage
from ...dtypes import DType, bfloat16
from ...errors import StridedRuntimeError, StridedTypeError, StridedValueError, join_lines
from ...grad_mode import refuse_out
from ...gradients import grad_zeros, scatter_pieces, seal
from ...kernels import native, numpy_view
from ...kernels.bf16_casts import copy_nans_as
from ...kernels.blocked import copy_into
from ...kernels.memory import reduced_cast_source
from ...kernels.native import _enabled, _open_blocks
from ...layout import Layout, memo
from ...layout import plans as P
from ...layout.formats import format_strides, suggest_format
from ...opdef import Kind, declare
from ...tensor import Tensor, tensor_arg
from .._support.memo import Memo
from .._support.out import check_out, resized_layout, write_out
from .._support.promotion import TORCH_NAMES, can_cast, promote_types
from ..registry import backward, method
from . import fast_join as _fj
from .broadcasting import broadcast_all
from .fast_join import atleast_shape, flat_join, wrap

__all__ = [
    "atleast_1d", "atleast_2d", "atleast_3d", "broadcast_tensors", "cat", "column_stack", "concat",
    "concatenate", "dsplit", "dstack", "hsplit", "hstack", "row_stack", "stack", "tensor_split", "vsplit",
    "vstack",
]

Part = tuple[Tensor, Layout]  # an input tensor and the layout of its storage to read


# ---------------------------------------------------------------- arguments


def tensor_list(tensors: Any, op: str, name: str = "tensors") -> list[Tensor]:
    """The tensors of a list or tuple argument, with PyTorch's TypeErrors for anything else.

    >>> a, b = strided.ones(2), strided.zeros(3)
    >>> tensor_list((a, b), "cat") == [a, b]
    True
    >>> tensor_list(a, "cat")
    Traceback (most recent call last):
    ...
    strided.errors.StridedTypeError: cat(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor
    ...
    """
    if not isinstance(tensors, (list, tuple)):
        raise StridedTypeError(
            join_lines(
                f"{op}(): argument '{name}' (position 1) must be tuple of Tensors, not {_tp_name(tensors)}",
                f"{op} takes a list or tuple of tensors: strided.{op}([a, b])"
                + ("; to split one tensor into its rows first, use list(t) or t.unbind(0)"
                   if isinstance(tensors, Tensor) else ""),
            )
        )
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise StridedTypeError(
                join_lines(
                    f"expected Tensor as element {i} in argument 0, but got {_tp_name(t)}",
                    f"element {i} of the list given to {op} is {t!r:.60}; "
                    "make it a tensor first: strided.tensor(value)",
                )
            )
    return list(tensors)


def _tp_name(value: Any) -> str:
    """The type's name as PyTorch's argument errors print it (CPython's ``tp_name``): ``list`` and
    a Python class's bare name (``Foo``, ``Tensor``), module-qualified for other C types
    (``numpy.ndarray``)."""
    if isinstance(value, Tensor):
        return "Tensor"
    cls = type(value)
    if cls.__module__ == "builtins" or cls.__flags__ & (1 << 9):  # (Py_TPFLAGS_HEAPTYPE: a class statement's)
        return cls.__name__
    return f"{cls.__module__}.{cls.__name__}"


def dim_int(dim: Any, op: str) -> int:
    """A ``dim`` keyword as PyTorch's parser takes it: an int (TypeError otherwise)."""
    if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)):
        raise StridedTypeError(
            join_lines(
                f"{op}(): argument 'dim' must be int, not {type(dim).__name__}",
                f"got dim={dim!r:.60}; name the dim by its position, e.g. {op}(tensors, dim=0)",
            )
        )
    return int(dim)


def _nonempty(tensors: list[Tensor], op: str) -> None:
    if not tensors:
        raise StridedRuntimeError(
            join_lines(
                # (PyTorch's row_stack is vstack and reports its name)
                f"{'vstack' if op == 'row_stack' else op} expects a non-empty TensorList",
                f"{op} was given no tensors; pass at least one: strided.{op}([a, b])",
            )
        )


# ---------------------------------------------------------------- memory format


def output_format(layouts: Sequence[Layout]) -> str:
    """``cat``'s output memory format: the one every input suggests, else "contiguous_format".

    A channels-last answer has the result's rank (the inputs' own), so ``format_strides`` of it
    never returns its wrong-rank refusal here."""
    found = None
    for lay in layouts:
        f = suggest_format(lay.shape, lay.strides)
        if f == "contiguous_format" or (found is not None and f != found):
            return "contiguous_format"
        found = f
    return found or "contiguous_format"


# ---------------------------------------------------------------- the join kernel


def _skipped(lay: Layout) -> bool:
    """PyTorch's legacy rule: a 1-D tensor of size 0 is left out of ``cat`` whatever its shape."""
    return lay.shape == (0,)


def _cat_plan(parts: Sequence[Part], dim: Any, op: str) -> tuple[tuple[int, ...], int, DType, str]:
    """Check ``cat``'s inputs as PyTorch's ``cat_meta`` does; returns (result shape, wrapped dim,
    result dtype, memory format)."""
    for i, (_, lay) in enumerate(parts):
        if not lay.shape:
            raise StridedRuntimeError(
                join_lines(
                    f"zero-dimensional tensor (at position {i}) cannot be concatenated",
                    f"tensor {i} is 0-d (a single number); give it a dim first: t.reshape(1) "
                    "(or t.unsqueeze(0)), or join 0-d tensors with strided.stack",
                )
            )
    valid = next((i for i, (_, lay) in enumerate(parts) if not _skipped(lay)), None)
    dtype = parts[0][0]._dtype
    for t, _ in parts[1:]:
        dtype = promote_types(dtype, t._dtype)
    fmt = output_format([lay for _, lay in parts])
    if valid is None:  # every input is a 1-D empty tensor: the result is one too
        return (0,), 0, dtype, "contiguous_format"
    first = parts[valid][1].shape
    d = L.wrap_dim(dim, len(first))
    total = 0
    for i, (_, lay) in enumerate(parts):
        if _skipped(lay):
            continue
        shape = lay.shape
        if len(shape) != len(first):
            raise StridedRuntimeError(
                join_lines(
                    f"Tensors must have same number of dimensions: got {len(first)} and {len(shape)}",
                    f"tensor {valid} has shape {first} and tensor {i} has shape {shape}; "
                    "reshape one (unsqueeze / flatten) so both have the same number of dims",
                )
            )
        for k in range(len(first)) if shape != first else ():  # (equal shapes: nothing to compare)
            if k != d and shape[k] != first[k]:
                raise StridedRuntimeError(
                    join_lines(
                        f"Sizes of tensors must match except in dimension {d}. Expected size {first[k]} "
                        f"but got size {shape[k]} for tensor number {i} in the list.",
                        f"{op} along dim {d} joins tensors whose other dims agree; tensor {valid} has "
                        f"shape {first}, tensor {i} has shape {shape} (they differ in dim {k})",
                    )
                )
        total += shape[d]
    out_shape = first[:d] + (total,) + first[d + 1:]
    return out_shape, d, dtype, fmt


def _as_written(arrays: list[np.ndarray], dest: np.dtype) -> list[np.ndarray]:
    """``arrays`` as PyTorch converts them to ``dest`` (an int32/int64 joined into bfloat16 goes
    through float32 first: :func:`strided.kernels.memory.reduced_cast_source`); most often the
    list itself, untouched."""
    if all(a.dtype == dest for a in arrays):
        return arrays
    return [reduced_cast_source(dest, a) for a in arrays]


def _join(parts: Sequence[Part], d: int, shape: tuple[int, ...], dtype: DType, fmt: str) -> Tensor:
    """A fresh ``dtype`` tensor of ``shape`` (strides of ``fmt``) holding ``parts`` joined along dim
    ``d``: ``np.concatenate`` reads each input in place and writes into the result's memory."""
    if fmt == "contiguous_format":
        out, target = result_array(shape, dtype)
    else:
        out = result(shape, dtype, format_strides(shape, fmt))
        target = out._np()
    arrays = _as_written([numpy_view(t._storage, lay) for t, lay in parts if not _skipped(lay)], dtype.numpy)
    if arrays and 0 not in shape:
        _concatenate_into(arrays, d, target)
    return out


# From this many bytes of result a join copies part by part through the blocked copy (below the
# compiled kernel's threshold every part would be one plain np.copyto anyway).
_PART_COPY_BYTES = native.MIN_BYTES


def _concatenate_into(arrays: Sequence[np.ndarray], d: int, target: np.ndarray) -> None:
    """``np.concatenate(arrays, axis=d, out=target, casting="unsafe")``; a large result gets each
    input copied into its slice by :func:`strided.kernels.blocked.copy_into`, blocked where their
    memory orders disagree (np.concatenate walks a transposed input element by element: 5-10x the
    blocked copy of a 4 MB transposed input). A 3-d result that interleaves its inputs element by
    element (``dstack`` of two transposed matrices of 4- or 8-byte elements) is made in one pass over both where the
    compiled pair join takes it (:func:`strided.kernels.native.interleave_join`)."""
    if len(arrays) == 1:
        copy_into(target, arrays[0])
    elif target.nbytes < _PART_COPY_BYTES:
        np.concatenate(arrays, axis=d, out=target, casting="unsafe")
    elif not (d == target.ndim - 1 == 2 and all(a.shape[d] == 1 for a in arrays)
              and native.interleave_join(target, [a[..., 0] for a in arrays])):
        at = 0
        for a in arrays:
            n = a.shape[d]
            _part_into(target[(slice(None),) * d + (slice(at, at + n),)], a)
            at += n


def _innermost_dim(a: np.ndarray) -> int | None:
    """The dim of ``a`` (longer than 1) with the smallest stride: the one its memory runs along."""
    dims = [k for k in range(a.ndim) if a.shape[k] > 1]
    return min(dims, key=lambda k: abs(a.strides[k])) if dims else None


def _part_into(dest: np.ndarray, a: np.ndarray) -> None:
    """``copy_into(dest, a)`` for one part of a large join. Where ``dest`` (a slice of the result)
    runs along a dim with gaps (``dstack``'s slice of every other element) and ``a`` runs along
    another dim (a permuted part), the blocked copy's tiles write scattered single elements (a
    transposed 1M-element float32 part: 3 ms); the part is then first copied blocked into dense
    memory laid out as ``dest`` (0.3 ms) and that copied in order (0.3 ms). The values are the
    same copies, only visited in another order."""
    inner = _innermost_dim(dest)
    if (a.nbytes >= _PART_COPY_BYTES and a.dtype == dest.dtype and a.shape == dest.shape and inner is not None
            and abs(dest.strides[inner]) > dest.itemsize and _innermost_dim(a) != inner):
        dense = np.empty_like(dest)  # (order K: dense, its dims in dest's memory order)
        copy_into(dense, a)
        np.copyto(dest, dense)
        return
    copy_into(dest, a)


def _joined(name: str, tensors: Sequence[Tensor], out: Tensor, d: int, how: str = "joined") -> Tensor:
    """Report the joining op ``name`` to the copy ledger and return ``out``."""
    return copied(name, tuple(tensors), out,
                  lambda: f"{name}: {len(tensors)} tensor{'s' if len(tensors) != 1 else ''} {how} along dim {d} "
                  "into new memory")


def _parts(tensors: Sequence[Tensor]) -> list[Part]:
    return [(t, t._layout) for t in tensors]


def _join_out(out: Any, name: str, tensors: Any, join: Any, along: tuple[Any, Any] | None = None) -> Tensor:
    """``name(tensors, ..., out=out)``: ``join(tensors)`` (the op without out=) written into ``out``
    with PyTorch's rules for its joins: autograd's refusal first; a dtype the promoted inputs
    cannot be cast to is a TypeError (the text names torch.cat, as PyTorch's stack and hstack do
    too); an ``out`` that shares any memory with an input (even all of it) is refused; a
    wrong-shaped ``out`` is resized, with PyTorch's warning when it had elements (write_out).
    The inputs are cast straight to ``out``'s dtype (an int64 through a float32 result would round).
    Everything is checked before anything is written.

    >>> o = strided.empty(3)
    >>> strided.cat([strided.ones(1), strided.zeros(2)], out=o) is o, o.tolist()
    (True, [1.0, 0.0, 0.0])
    """
    out = check_out(out, name)
    tensors = tensor_list(tensors, name)
    # (PyTorch's joins but stack run as cat and its refusal names cat(), concat's and hstack's too)
    refuse_out(name, out, tuple(tensors), "stack" if name == "stack" else "cat")
    made = join(tensors)
    # (PyTorch resizes out before it looks for overlaps: an empty view of an input's memory that
    # the join's result would cover is refused, an expanded out of another shape is written)
    lay = resized_layout(out, made)
    for t in tensors:
        if shares_storage(t, out) and memory_overlap(t, out, lay) in (L.OverlapStatus.FULL, L.OverlapStatus.PARTIAL):
            raise StridedRuntimeError(join_lines(
                "unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
                "single memory location. Please clone() the tensor before performing the operation.",
                f"{name}(out=...): out (shape {out.shape}) shares memory with an input (shape {t.shape}); the "
                "join would read what it has already written",
                f"fix: pass a fresh out tensor, or clone the input: {name}([x.clone(), ...], out=x)"))
    if not can_cast(made._dtype, out._dtype):
        raise StridedTypeError(join_lines(
            f"torch.cat(): input types can't be cast to the desired output type {TORCH_NAMES[out._dtype]}",
            f"{name} of these inputs is {made._dtype.name}, out= is {out._dtype.name} (no float into an "
            "integer tensor, nothing but bool into bool)",
            f"fix: out=strided.empty(0, dtype=strided.{made._dtype.name}), or convert the inputs first"))
    common = made._dtype
    if common is not out._dtype:
        made = join([t.to(out._dtype) for t in tensors])
    written = write_out(out, made, name, tuple(tensors), resize_first=True)
    if along is not None and written._dtype is bfloat16 and common is not bfloat16 and common.kind in "fc":
        _part_nans(written, tensors, common, *along)
    return written


def _as_part(shape: tuple[int, ...], d: int) -> tuple[int, ...]:
    """cat's part of an input: the input itself."""
    return shape


def _unsqueezed(shape: tuple[int, ...], d: int) -> tuple[int, ...]:
    """stack's part of an input: the input with a size-1 dim inserted at ``d``."""
    return shape[:d] + (1,) + shape[d:]


def _hstack_along(tensors: Any) -> tuple[Any, Any] | None:
    """hstack's join for :func:`_part_nans`: cat of the atleast_1d parts along dim 0 where every
    part is 1-d, else along dim 1 (None: not a sequence of tensors; the join refuses it)."""
    if not isinstance(tensors, (list, tuple)) or not all(isinstance(t, Tensor) for t in tensors):
        return None
    flat = all(len(atleast_shape(t._layout.shape, 1)) == 1 for t in tensors)
    return (0 if flat else 1, lambda shape, d: atleast_shape(shape, 1))


def _part_nans(out: Tensor, tensors: Sequence[Tensor], common: DType, dim: Any, part: Any) -> None:
    """PyTorch's NaN words in a bfloat16 ``out`` of a join (cat along ``dim`` of the parts
    ``part(shape, dim)`` makes of each input's shape: stack's unsqueezed, hstack's atleast_1d,
    ...) of float or complex inputs: each part is copied in through a contiguous temporary of the
    inputs' common dtype (cat_out's TensorIterator, cast_common_dtype_to_outputs), into its slice
    of ``out`` (:mod:`strided.kernels.bf16_casts`' rows)."""
    lay = out._layout
    d = wrap(dim, len(lay.shape))
    if d is None:
        return
    whole = numpy_view(out._storage, lay)
    at = 0
    for t in tensors:
        shape = part(t._layout.shape, d)
        if shape == (0,):  # (cat's legacy rule: a 1-D empty part is left out)
            continue
        n = shape[d]
        copy_nans_as(whole[(slice(None),) * d + (slice(at, at + n),)], shape, L.contiguous_strides(shape), common.numpy)
        at += n


# ---------------------------------------------------------------- cat and stack


def cat(tensors: Sequence[Tensor], dim: int = 0, *, out: Tensor | None = None) -> Tensor:
    """Join ``tensors`` along an existing dim into new memory (PyTorch's ``torch.cat``).

    The dtype is the promotion of all inputs; a 1-D tensor of size 0 is skipped whatever the
    other shapes (PyTorch's legacy rule); the result is channels_last when every input is.

    >>> strided.cat([strided.zeros(2, 3), strided.ones(2, 1)], dim=1).shape
    (2, 4)
    """
    if out is None and dim.__class__ is int and not OPEN and (k := _fj._JOIN_C) is not None \
            and _enabled.get() and not _open_blocks[0] and (made := k(tensors, dim, False)) is not None:
        return made  # (flat_join's compiled join, without its call: it checks the rest)
    if out is None and tensors.__class__ in (list, tuple) and tensors and isinstance(tensors[0], Tensor):  # _cat's fast path, without its call
        nd = len(tensors[0]._layout.shape)
        d = dim if dim.__class__ is int and 0 <= dim < nd else wrap(dim, nd)
        if d is not None and (made := flat_join(tensors, None, d)) is not None:
            return made
    if out is not None:
        return _join_out(out, "cat", tensors, lambda ts: _cat(ts, dim, "cat"), (dim, _as_part))
    return _cat(tensors, dim, "cat")


def _cat(tensors: Sequence[Tensor], dim: Any, name: str) -> Tensor:
    """``cat``, reported as ``name`` (its aliases report their own names)."""
    if tensors.__class__ in (list, tuple) and tensors and isinstance(tensors[0], Tensor):  # the fast path
        d = wrap(dim, len(tensors[0]._layout.shape))
        if d is not None and (out := flat_join(tensors, None, d)) is not None:
            return out
    tensors = tensor_list(tensors, name)  # (concat and concatenate name themselves in the type errors)
    if not tensors:
        # Note: PyTorch's first line names torch.cat; it is kept so a search finds the same answers.
        raise StridedValueError(
            join_lines("torch.cat(): expected a non-empty list of Tensors",
                       "cat was given no tensors; pass at least one: strided.cat([a, b], dim=0)")
        )
    dim = dim_int(dim, "cat")
    parts = _parts(tensors)
    shape, d, dtype, fmt = _cat_plan(parts, dim, "cat")
    return _joined(name, tensors, _join(parts, d, shape, dtype, fmt), d)


def concat(tensors: Sequence[Tensor], dim: int = 0, *, out: Tensor | None = None) -> Tensor:
    """``cat`` under PyTorch's alias name (reported as ``concat``).

    >>> strided.concat([strided.zeros(1, 2), strided.ones(2, 2)]).shape
    (3, 2)
    """
    if out is not None:
        return _join_out(out, "concat", tensors, lambda ts: _cat(ts, dim, "concat"), (dim, _as_part))
    return _cat(tensors, dim, "concat")


def concatenate(tensors: Sequence[Tensor], dim: int = 0, *, out: Tensor | None = None) -> Tensor:
    """``cat`` under NumPy's name (reported as ``concatenate``).

    >>> strided.concatenate([strided.zeros(2, 1), strided.ones(2, 2)], 1).tolist()
    [[0.0, 1.0, 1.0], [0.0, 1.0, 1.0]]
    """
    if out is not None:
        return _join_out(out, "concatenate", tensors, lambda ts: _cat(ts, dim, "concatenate"), (dim, _as_part))
    return _cat(tensors, dim, "concatenate")


# ---------------------------------------------------------------- gradients of the joins


def _pieces_of(g: Tensor, shapes: Sequence[tuple[int, ...]], joined: Sequence[tuple[int, ...]], d: int) -> tuple:
    """The gradient of each joined input: its slice of ``g`` along ``d`` (a narrow: a view of
    ``g``), reshaped from the shape it was joined as (``joined``: ``atleast_2d``'s ``(1, n)`` for
    ``vstack``, ...) to its own (a view too). An input the join skipped (PyTorch's legacy rule for
    a 1-D tensor of size 0) gets an empty gradient."""
    out = []
    start = 0
    lay = g._layout
    for shape, as_joined in zip(shapes, joined):
        if as_joined is None:
            out.append(grad_zeros(shape, g._dtype))
            continue
        n = as_joined[d]
        # (a recorded narrow when g is in the graph: create_graph differentiates through it)
        piece = g.narrow(d, start, n) if g._ag is not None else g._view(L.slice_dim(lay, d, start, start + n, 1))
        start += n
        out.append(piece if as_joined == shape else piece.reshape(shape))
    return tuple(out)


def _join_rule(name: str, tensors: Sequence[Tensor], joined: Sequence[Layout | None], d: int) -> Any:
    tensors = list(tensors)
    shapes = [t._layout.shape for t in tensors]
    as_joined = [None if lay is None else lay.shape for lay in joined]
    return name, tuple(tensors), lambda g: _pieces_of(g, shapes, as_joined, d), ()


@backward("cat", "concat", "concatenate", operands="any")
def cat_backward(out: Tensor, tensors: Sequence[Tensor], dim: int = 0) -> Any:
    """CatBackward0: each input's gradient is its slice of the gradient (a view: nothing copied)."""
    tensors = list(tensors)
    d = L.wrap_dim(dim_int(dim, "cat"), len(out._layout.shape))
    return _join_rule("CatBackward0", tensors, _unskipped([t._layout for t in tensors], out), d)


def _check_same_shapes(tensors: Sequence[Tensor]) -> None:
    first = tensors[0]._layout.shape
    for i, t in enumerate(tensors):
        if t._layout.shape != first:
            raise StridedRuntimeError(
                join_lines(
                    f"stack expects each tensor to be equal size, but got {list(first)} at entry 0 and "
                    f"{list(t._layout.shape)} at entry {i}",
                    "stack puts equal-shaped tensors side by side along a new dim; to join tensors "
                    "of different sizes along an existing dim use strided.cat",
                )
            )


def _stack(tensors: list[Tensor], dim: Any, op: str = "stack") -> tuple[Tensor, int]:
    """``stack``'s result (not reported) and the wrapped dim: PyTorch's ``cat`` of the inputs
    along ``dim`` viewed with the new dim split off, or, for a new last dim, ``cat`` of the inputs
    unsqueezed there (the two give the memory formats PyTorch's do)."""
    _nonempty(tensors, op)
    dim = dim_int(dim, op)
    ndim = len(tensors[0]._layout.shape)
    d = L.wrap_dim(dim, ndim + 1)
    _check_same_shapes(tensors)
    n = len(tensors)
    if d < ndim:
        parts = _parts(tensors)
        shape, _, dtype, fmt = _cat_plan(parts, d, op)
        # PyTorch: cat(tensors, d).view(sizes with n inserted at d), which always is a view
        size = tensors[0]._layout.shape[d]
        out_shape = tensors[0]._layout.shape[:d] + (n, size) + tensors[0]._layout.shape[d + 1:]
        joined = Layout._trusted(shape, format_strides(shape, fmt), 0)
        out = result(out_shape, dtype, P.view(joined, out_shape)[0].strides)
        if 0 not in out_shape:
            # the result's memory seen as the cat it is: one np.concatenate (np.stack's own
            # expand_dims of every input costs more than the copy at small sizes)
            _concatenate_into(_as_written([t._np() for t in tensors], dtype.numpy), d,
                              numpy_view(out._storage, joined))
        return out, d
    parts = [(t, L.unsqueeze(t._layout, ndim)) for t in tensors]
    shape, _, dtype, fmt = _cat_plan(parts, d, op)
    out = result(shape, dtype, format_strides(shape, fmt))
    if 0 not in out._layout.shape:
        arrays = _as_written([t._np() for t in tensors], dtype.numpy)
        target = out._np()
        if ndim:
            # a new last dim: one strided copy per input into its slice (np.stack's concatenate
            # of the inputs seen with a size-1 last dim walks the same memory, about 15% slower)
            # (_part_into: np.copyto, in tiles where the input's memory order is not the result's,
            # through a dense temporary where the slice's gaps defeat the tiles: a transposed
            # 1024 x 1024 float32 pair 10 ms -> 1.3 ms; or, a large transposed pair of 4- or 8-byte
            # elements, the compiled pair join, one pass over both: native.interleave_join, 0.56 ms)
            if not (target.nbytes >= _PART_COPY_BYTES and native.interleave_join(target, arrays)):
                for i, a in enumerate(arrays):
                    _part_into(target[..., i], a)
        else:
            np.stack(arrays, axis=d, out=target, casting="unsafe")
    return out, d


def stack(tensors: Sequence[Tensor], dim: int = 0, *, out: Tensor | None = None) -> Tensor:
    """Join equal-shaped ``tensors`` along a new dim ``dim`` into new memory (``torch.stack``).

    >>> strided.stack([strided.zeros(2, 3), strided.ones(2, 3)], dim=1).shape
    (2, 2, 3)
    """
    if out is None and dim.__class__ is int and not OPEN and (k := _fj._JOIN_C) is not None \
            and _enabled.get() and not _open_blocks[0] and (made := k(tensors, dim, True)) is not None:
        return made  # (flat_join's compiled join, without its call: it checks the rest)
    if out is None and tensors.__class__ in (list, tuple) and tensors and isinstance(tensors[0], Tensor):  # the fast path
        nd = len(tensors[0]._layout.shape)
        d = dim if dim.__class__ is int and 0 <= dim <= nd else wrap(dim, nd + 1)
        if d is not None and (made := flat_join(tensors, None, d, True)) is not None:
            return made
    if out is not None:
        return _join_out(out, "stack", tensors, lambda ts: stack(ts, dim), (dim, _unsqueezed))
    tensors = tensor_list(tensors, "stack")
    out, d = _stack(tensors, dim)
    return _joined("stack", tensors, out, d, "stacked")


@backward("stack", operands="any")
def stack_backward(out: Tensor, tensors: Sequence[Tensor], dim: int = 0) -> Any:
    """StackBackward0: each input's gradient is the gradient selected at its index along the new
    dim (a view)."""
    tensors = list(tensors)
    d = L.wrap_dim(dim_int(dim, "stack"), len(out._layout.shape))

    def grad(g: Tensor) -> tuple:
        if g._ag is not None:  # (recorded selects: create_graph differentiates through them)
            return tuple(g.select(d, k) for k in range(len(tensors)))
        lay = g._layout
        return tuple(g._view(L.select(lay, d, k)) for k in range(len(tensors)))

    return "StackBackward0", tuple(tensors), grad, ()


def _atleast_layout(lay: Layout, n: int) -> Layout:
    """The layout ``atleast_{n}d`` gives, by PyTorch's steps: a 0-d tensor reshaped to ``(1,) * n``;
    ``(k,)`` unsqueezed to ``(1, k)`` (and ``(1, k, 1)``); ``(m, k)`` to ``(m, k, 1)``."""
    nd = len(lay.shape)
    if nd >= n:
        return lay
    if nd == 0:
        return P.view(lay, (1,) * n)[0]
    if nd == 1:
        lay = L.unsqueeze(lay, 0)
    return lay if n == 2 else L.unsqueeze(lay, 2)


_SEQUENCES = (list, tuple)

# The compiled join's call (dim, stacked) that is hstack's, vstack's, dstack's, column_stack's join
# of inputs of the first's rank (the index; None: the general path's): inputs of the op's rank or
# more are joined as cat joins them, lower ones (1-D rows, 1-D columns, 2-D dstack) of one shape
# are their stack along the new dim the op reads them with. The compiled join declines inputs
# of another rank or shape than the first's, empty ones, more than 3 dims, mixed dtypes.
_HSTACK = (None, (0, False), (1, False), (1, False))
_VSTACK = (None, (0, True), (0, False), (0, False))
_DSTACK = (None, None, (2, True), (2, False))
_COLUMN_STACK = (None, (1, True), (1, False), (1, False))


def _compiled_join(tensors: Any, joins: tuple) -> Tensor | None:
    """A stacking op's result by the compiled join (``joins``: its calls, above), or None: someone
    listens, the kernel is off or declines, the inputs are no list or tuple of Tensors first."""
    if OPEN or tensors.__class__ not in _SEQUENCES or not tensors or tensors[0].__class__ is not Tensor:
        return None
    nd = len(tensors[0]._layout.shape)
    call = joins[nd] if nd < 4 else None
    if call is None or (k := _fj._JOIN_C) is None or not _enabled.get() or _open_blocks[0]:
        return None
    return k(tensors, call[0], call[1])


def _stack_family(name: str, tensors: Any, ndim: int, pick_dim: Any) -> Tensor:
    if tensors.__class__ in (list, tuple) and tensors and isinstance(tensors[0], Tensor):  # the fast path
        first = tensors[0]._layout.shape
        # (inputs of ndim dims or more are read as they are: their own shapes, without the list;
        # flat_join declines a lower-dim input among them, read below as at least ndim-d)
        if len(first) >= ndim and (out := flat_join(tensors, None, pick_dim(first))) is not None:
            return out
        shapes = [atleast_shape(t._layout.shape, ndim) if isinstance(t, Tensor) else () for t in tensors]
        out = flat_join(tensors, shapes, pick_dim(shapes[0]))
        if out is not None:
            return out
    tensors = tensor_list(tensors, name)
    _nonempty(tensors, name)
    parts = [(t, _atleast_layout(t._layout, ndim)) for t in tensors]
    d = pick_dim(parts[0][1].shape)
    shape, d, dtype, fmt = _cat_plan(parts, d, name)
    return _joined(name, tensors, _join(parts, d, shape, dtype, fmt), d)


def _family_rule(name: str, ndim: int, pick_dim: Any) -> Any:
    """The backward rule of one of ``hstack``, ``vstack``, ``row_stack``, ``dstack``: CatBackward0
    over the inputs as the join read them (at least ``ndim`` dims)."""

    def rule(out: Tensor, tensors: Sequence[Tensor]) -> Any:
        tensors = list(tensors)
        joined = [_atleast_layout(t._layout, ndim) for t in tensors]
        d = pick_dim(joined[0].shape)
        return _join_rule("CatBackward0", tensors, _unskipped(joined, out), d)

    rule.__name__ = f"{name}_backward"
    return backward(name, operands="any")(rule)


def _unskipped(joined: Sequence[Layout], out: Tensor) -> list[Layout | None]:
    """``joined`` with None for the inputs a join skipped (a 1-D tensor of size 0 among others)."""
    if len(joined) == 1 or len(out._layout.shape) == 1:
        return list(joined)
    return [None if _skipped(lay) else lay for lay in joined]


def hstack(tensors: Sequence[Tensor], *, out: Tensor | None = None) -> Tensor:
    """Join along dim 1 (dim 0 for 1-D inputs), 0-d inputs read as 1-D (``torch.hstack``).

    >>> strided.hstack([strided.tensor([1, 2]), strided.tensor([3])]).tolist()
    [1, 2, 3]
    """
    if out is None and (made := _compiled_join(tensors, _HSTACK)) is not None:
        return made
    if out is not None:
        return _join_out(out, "hstack", tensors, hstack, _hstack_along(tensors))
    return _stack_family("hstack", tensors, 1, lambda shape: 0 if len(shape) == 1 else 1)


def vstack(tensors: Sequence[Tensor], *, out: Tensor | None = None) -> Tensor:
    """Join along dim 0, inputs read as at least 2-D (1-D ``(n,)`` as ``(1, n)``) (``torch.vstack``).

    >>> strided.vstack([strided.tensor([1, 2]), strided.tensor([[3, 4], [5, 6]])]).tolist()
    [[1, 2], [3, 4], [5, 6]]
    """
    if out is None and (made := _compiled_join(tensors, _VSTACK)) is not None:
        return made
    if out is not None:
        return _join_out(out, "vstack", tensors, vstack, (0, lambda shape, d: atleast_shape(shape, 2)))
    return _stack_family("vstack", tensors, 2, lambda shape: 0)


def row_stack(tensors: Sequence[Tensor], *, out: Tensor | None = None) -> Tensor:
    """``vstack`` under its alias name (reported as ``row_stack``).

    >>> strided.row_stack([strided.tensor([1, 2]), strided.tensor([3, 4])]).tolist()
    [[1, 2], [3, 4]]
    """
    if out is None and (made := _compiled_join(tensors, _VSTACK)) is not None:
        return made
    if out is not None:
        return _join_out(out, "row_stack", tensors, row_stack, (0, lambda shape, d: atleast_shape(shape, 2)))
    return _stack_family("row_stack", tensors, 2, lambda shape: 0)


def dstack(tensors: Sequence[Tensor], *, out: Tensor | None = None) -> Tensor:
    """Join along dim 2, inputs read as at least 3-D (``torch.dstack``).

    >>> strided.dstack([strided.zeros(2, 3), strided.ones(2, 3)]).shape
    (2, 3, 2)
    """
    if out is None and (made := _compiled_join(tensors, _DSTACK)) is not None:
        return made
    if out is not None:
        return _join_out(out, "dstack", tensors, dstack, (2, lambda shape, d: atleast_shape(shape, 3)))
    return _stack_family("dstack", tensors, 3, lambda shape: 2)


def _column_shape(shape: tuple[int, ...]) -> tuple[int, ...]:
    """The shape ``column_stack`` reads a tensor of ``shape`` as: 0-d and 1-D ones as a column."""
    return shape if len(shape) > 1 else (L.product(shape), 1)


def column_stack(tensors: Sequence[Tensor], *, out: Tensor | None = None) -> Tensor:
    """Join along dim 1, 0-d and 1-D inputs read as columns ``(n, 1)`` (``torch.column_stack``).

    >>> strided.column_stack([strided.zeros(3), strided.ones(3, 2)]).shape
    (3, 3)
    """
    if out is None and (made := _compiled_join(tensors, _COLUMN_STACK)) is not None:
        return made
    if out is not None:
        # (PyTorch's column_stack_out: each 0-d / 1-D input reshaped to a column, then hstack_out,
        # a cat along dim 1 of those parts: each part's NaN words as cat's)
        along = (1, lambda shape, d: _column_shape(shape)) if isinstance(tensors, (list, tuple)) and all(
            isinstance(t, Tensor) for t in tensors) else None
        return _join_out(out, "column_stack", tensors, column_stack, along)
    if tensors.__class__ in (list, tuple) and tensors and isinstance(tensors[0], Tensor):  # the fast path
        shapes = [_column_shape(t._layout.shape) if isinstance(t, Tensor) else () for t in tensors]
        out = flat_join(tensors, shapes, 1)
        if out is not None:
            return out
    tensors = tensor_list(tensors, "column_stack")
    _nonempty(tensors, "column_stack")
    parts = []
    for t in tensors:
        lay = t._layout
        if len(lay.shape) <= 1:
            n = L.product(lay.shape)
            stride = lay.strides[0] if lay.shape else 1
            lay = L.Layout._trusted((n, 1), (stride, 1), lay.offset)
        parts.append((t, lay))
    shape, d, dtype, fmt = _cat_plan(parts, 1, "column_stack")
    return _joined("column_stack", tensors, _join(parts, d, shape, dtype, fmt), d)


_family_rule("hstack", 1, lambda shape: 0 if len(shape) == 1 else 1)
_family_rule("vstack", 2, lambda shape: 0)
_family_rule("row_stack", 2, lambda shape: 0)
_family_rule("dstack", 3, lambda shape: 2)


@backward("column_stack", operands="any")
def column_stack_backward(out: Tensor, tensors: Sequence[Tensor]) -> Any:
    """CatBackward0: 0-d and 1-D inputs were joined as columns ``(n, 1)``."""
    tensors = list(tensors)
    joined = [Layout._trusted((L.product(t._layout.shape), 1), (1, 1), 0) if len(t._layout.shape) <= 1
              else t._layout for t in tensors]
    return _join_rule("CatBackward0", tensors, _unskipped(joined, out), 1)


# ---------------------------------------------------------------- views: atleast, broadcast_tensors


def _atleast(name: str, n: int, tensors: tuple) -> Any:
    if len(tensors) == 1 and isinstance(tensors[0], Tensor):
        t = tensors[0]
        lay = _atleast_layout(t._layout, n)
        return t if lay is t._layout else t._view(lay)
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if len(tensors) == 1 and not isinstance(tensors[0], Tensor):
        raise StridedTypeError(
            join_lines(
                f"{name}() received an invalid combination of arguments - got ({type(tensors[0]).__name__}), "
                "but expected one of:\n * (Tensor input)\n * (tuple of Tensors tensors)",
                f"make a tensor first: strided.{name}(strided.tensor(value))",
            )
        )
    tensors = tuple(tensor_list(tensors, name))
    one = globals()[name]  # (the module's current binding: it records each view once autograd is in use)
    return tuple(one(t) for t in tensors)


def atleast_1d(*tensors: Any) -> Any:
    """A 0-d tensor as shape (1,) (a view); others unchanged. Several tensors (or one list) give a tuple.

    >>> strided.atleast_1d(strided.tensor(3.0)).shape
    (1,)
    """
    return _atleast("atleast_1d", 1, tensors)


def atleast_2d(*tensors: Any) -> Any:
    """0-d as (1, 1), 1-D ``(n,)`` as ``(1, n)`` (views); others unchanged.

    >>> strided.atleast_2d(strided.tensor(1.0)).shape, strided.atleast_2d(strided.zeros(3)).shape
    ((1, 1), (1, 3))
    """
    return _atleast("atleast_2d", 2, tensors)


def atleast_3d(*tensors: Any) -> Any:
    """0-d as (1, 1, 1), 1-D ``(n,)`` as ``(1, n, 1)``, 2-D ``(m, n)`` as ``(m, n, 1)`` (views).

    >>> strided.atleast_3d(strided.zeros(3)).shape, strided.atleast_3d(strided.zeros(2, 3)).shape
    ((1, 3, 1), (2, 3, 1))
    """
    return _atleast("atleast_3d", 3, tensors)


@backward("atleast_1d", "atleast_2d", "atleast_3d", operands="any")
def atleast_backward(out: Any, *tensors: Any) -> Any:
    """ViewBackward0 (a 0-d input) / UnsqueezeBackward0: the gradient reshaped back (a view).
    Several tensors: each view recorded its own node (``_atleast`` calls the one-tensor form)."""
    if not isinstance(out, Tensor) or len(tensors) != 1 or tensors[0] is out:
        return None
    x = tensors[0]
    shape = x._layout.shape
    return ("ViewBackward0" if not shape else "UnsqueezeBackward0"), (x,), lambda g: (g.reshape(shape),), ()


def broadcast_tensors(*tensors: Tensor) -> tuple[Tensor, ...]:
    """The tensors expanded (views, stride 0 where stretched) to their common broadcast shape.

    >>> [t.shape for t in strided.broadcast_tensors(strided.zeros(2, 1), strided.zeros(3))]
    [(2, 3), (2, 3)]
    """
    key = None
    if len(tensors) == 2 and tensors[0].__class__ is Tensor and tensors[1].__class__ is Tensor:
        la, lb = tensors[0]._layout, tensors[1]._layout
        key = (la.shape, la.strides, la.offset, lb.shape, lb.strides, lb.offset)
        got = _BROADCAST_PAIRS.get(key)
        if got is not None:  # (the pair's expanded layouts, made before: the checks below passed)
            return tensors[0]._view(got[0]), tensors[1]._view(got[1])
    tensors = tensor_list(tensors, "broadcast_tensors")
    if not tensors:
        return ()
    shape = broadcast_all([t._layout.shape for t in tensors])
    out = tuple(t._view(_expanded(t._layout, shape)) for t in tensors)
    if key is not None:
        _BROADCAST_PAIRS.put(key, (out[0]._layout, out[1]._layout))
    return out


# (a's shape, strides, offset, b's) -> broadcast_tensors(a, b)'s two layouts, for two plain tensors
# whose broadcast the general path made (a pure function of the key; Layouts are immutable)
_BROADCAST_PAIRS = Memo(limit=1024)


def _expanded(lay: Layout, shape: tuple[int, ...]) -> Layout:
    """``L.expand(lay, shape)``, remembered (layout.memo.EXPAND; shape is broadcast_all's plain ints)."""
    key = (lay.shape, lay.strides, lay.offset, shape)
    got = memo.EXPAND.get(key) or memo.decide(memo.EXPAND, key)
    return got if got.__class__ is Layout else L.expand(lay, shape)  # (else expand's error)


@backward("broadcast_tensors", operands="any")
def broadcast_tensors_backward(out: tuple, *tensors: Tensor) -> Any:
    """ExpandBackward0: one node for all the expanded views; each input's gradient is its
    output's gradient summed over the stretched dims (by the engine).

    # Note: PyTorch records one ExpandBackward0 per output (none for an output that needed no
    # expansion); strided records one node with an output per tensor.
    """
    if not tensors:
        return None
    return "ExpandBackward0", tuple(tensors), lambda *grads: grads, (), "multi"


# ---------------------------------------------------------------- splits (views)


def _slice_views(t: Tensor, d: int, bounds: Sequence[tuple[int, int]]) -> tuple[Tensor, ...]:
    """The views ``t`` sliced ``start:stop`` along ``d`` for each of ``bounds`` (clamped to the dim:
    :func:`_split_bounds`). A non-empty piece's layout is built directly (``slice_dim``'s result for
    step 1: same strides, the offset moved to ``start``); an empty one takes ``slice_dim``'s offset rule."""
    lay = t._layout
    shape, strides, offset = lay.shape, lay.strides, lay.offset
    head, tail, stride = shape[:d], shape[d + 1:], strides[d]
    trusted = Layout._trusted
    return tuple(t._view(trusted(head + (stop - start,) + tail, strides, offset + start * stride)) if stop > start
                 else t._view(L.slice_dim(lay, d, start, stop, 1)) for start, stop in bounds)


def _split_arg_error(op: str, value: Any, prefix: str = "") -> StridedTypeError:
    got = type(value).__name__
    return StridedTypeError(
        join_lines(
            f"{op}() received an invalid combination of arguments - got ({got}), but expected one of:\n"
            f" * ({prefix}tuple of ints indices, int dim = 0)\n"
            f" * ({prefix}Tensor tensor_indices_or_sections, int dim = 0)\n"
            f" * ({prefix}int sections, int dim = 0)",
            f"got {value!r:.60}; pass a number of sections (int) or a list of split indices (ints)",
        )
    )


def _int_list(values: Any, op: str) -> list[int] | None:
    out = []
    for v in values:
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            return None
        out.append(int(v))
    return out


def _sections_or_indices(value: Any, op: str) -> int | list[int]:
    """``tensor_split``'s second argument: an int (sections), a sequence of ints (indices), or an
    integer tensor (0-d: sections; 1-D: indices), with PyTorch's errors."""
    if isinstance(value, Tensor):
        lay = value._layout
        if len(lay.shape) > 1:
            raise StridedRuntimeError(
                join_lines(
                    "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                    f"one-dimensional tensor, but got a tensor with {len(lay.shape)} dims",
                    f"the indices tensor has shape {lay.shape}; flatten it (t.flatten()) or pass an int",
                )
            )
        if value._dtype.name != "int64":
            from .._support.promotion import TORCH_NAMES

            raise StridedRuntimeError(
                join_lines(
                    "tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
                    f"{TORCH_NAMES[value._dtype]}",
                    f"the indices tensor is {value._dtype.name}; convert it: t.to(strided.int64)",
                )
            )
        data = value._np()
        return int(data) if not lay.shape else [int(i) for i in data.tolist()]
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return int(value)
    if isinstance(value, (list, tuple)):
        ints = _int_list(value, op)
        if ints is not None:
            return ints
    raise _split_arg_error(op, value)


def _tensor_split(t: Tensor, spec: int | list[int], d: int) -> tuple[Tensor, ...]:
    return _slice_views(t, d, _split_bounds(t._layout.shape[d], spec, d))


# (op, shape, strides, offset, dim as given, number of sections or ("at", indices)) -> the pieces'
# layouts of a split that passed the op's checks before (they read nothing else): a loop's
# repeated split builds no layout again. Layouts are immutable, so pieces may share them.
_SPLITS = Memo(limit=1024)


def _sections_key(op: str, t: Any, sections: Any, dim: Any) -> tuple | None:
    """:data:`_SPLITS`'s key of a split of plain tensor ``t`` along ``dim`` (a plain int) into
    ``sections`` (a plain int) or at ``sections`` (a list or tuple of plain ints), else None (the
    general path parses the arguments)."""
    if t.__class__ is not Tensor or dim.__class__ is not int:
        return None
    if sections.__class__ is not int:
        if sections.__class__ is not list and sections.__class__ is not tuple:
            return None
        for i in sections:  # (2.0 and True hash as 2 and 1 do: each index a plain int)
            if i.__class__ is not int:
                return None
        sections = ("at", tuple(sections))
    lay = t._layout
    return op, lay.shape, lay.strides, lay.offset, dim, sections


def _remembered(t: Tensor, key: tuple | None, pieces: tuple[Tensor, ...]) -> tuple[Tensor, ...]:
    """``pieces`` (``t``'s split), their layouts remembered under ``key`` (None: nothing)."""
    if key is not None:
        _SPLITS.put(key, tuple(p._layout for p in pieces))
    return pieces


def _split_bounds(size: int, spec: int | list[int], d: int) -> list[tuple[int, int]]:
    """``(start, stop)`` of each piece of a dim of ``size`` split by ``spec`` (a number of
    sections, or the indices to split at)."""
    if isinstance(spec, int):
        if spec <= 0:
            raise StridedRuntimeError(
                join_lines(
                    f"number of sections must be larger than 0, got {spec}",
                    f"tensor_split into {spec} sections; ask for 1 or more pieces (dim {d} has size {size})",
                )
            )
        base, extra = divmod(size, spec)
        bounds = []
        start = 0
        for i in range(spec):
            stop = start + base + (1 if i < extra else 0)
            bounds.append((start, stop))
            start = stop
        return bounds
    starts = [0, *spec]
    stops = [*spec, size]
    bounds = []
    for start, stop in zip(starts, stops):
        # PyTorch's at::slice: negative bounds wrap, both clamp to [0, size], and stop >= start
        start = min(max(start + size if start < 0 else start, 0), size)
        stop = min(max(stop + size if stop < 0 else stop, start), size)
        bounds.append((start, stop))
    return bounds


@method("tensor_split")
def tensor_split(input: Tensor, indices_or_sections: Any = None, dim: int = 0, *, sections: Any = None,
                 indices: Any = None, tensor_indices_or_sections: Any = None) -> tuple[Tensor, ...]:
    """Split ``input`` along ``dim`` into views: ``sections`` pieces as equal as possible (the first
    ``size % sections`` one longer), or at the given indices (``torch.tensor_split``).

    >>> [p.shape for p in strided.zeros(7, 3).tensor_split(3)]
    [(3, 3), (2, 3), (2, 3)]
    """
    if sections is None and indices is None and tensor_indices_or_sections is None and \
            (key := _sections_key("tensor_split", input, indices_or_sections, dim)) is not None:
        layouts = _SPLITS.get(key)
        if layouts is not None:  # (the checks below passed for this layout and these arguments)
            return tuple(map(input._view, layouts))
    else:
        key = None
    tensor_arg(input, "tensor_split")
    given = [v for v in (indices_or_sections, sections, indices, tensor_indices_or_sections) if v is not None]
    if len(given) != 1:
        raise StridedTypeError(
            join_lines(
                "tensor_split() missing 1 required positional arguments: \"indices_or_sections\"",
                "pass a number of sections or a list of indices: t.tensor_split(3) or t.tensor_split([1, 4])",
            )
        )
    spec = _sections_or_indices(given[0], "tensor_split")
    shape = input._layout.shape
    if not shape:
        raise StridedRuntimeError(
            join_lines(
                "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims",
                "a 0-d tensor has no dim to split; reshape it first: t.reshape(1)",
            )
        )
    d = L.wrap_dim(dim_int(dim, "tensor_split"), len(shape))
    return _remembered(input, key, _tensor_split(input, spec, d))


def _directional_split(op: str, t: Tensor, spec: Any, min_dims: int, d: int) -> tuple[Tensor, ...]:
    key = _sections_key(op, t, spec, d)
    if key is not None:
        layouts = _SPLITS.get(key)
        if layouts is not None:  # (the checks below passed for this layout and number of sections)
            return tuple(map(t._view, layouts))
    shape = t._layout.shape  # (t is checked to be a tensor by the caller)
    if len(shape) < min_dims:
        raise StridedRuntimeError(
            join_lines(  # (PyTorch's text says "dimension" whatever the number)
                f"torch.{op} requires a tensor with at least {min_dims} dimension, but got a tensor with "
                f"{len(shape)} dimensions!",
                f"the tensor has shape {shape}; {op} splits dim {d}"
                + (" (dim 0 for a 1-D tensor)" if op == "hsplit" else ""),
            )
        )
    if isinstance(spec, (float, bool, str)) or spec is None:
        raise StridedTypeError(
            join_lines(
                f"{op}() received an invalid combination of arguments - got ({type(spec).__name__}), but "
                "expected one of:\n * (int sections)\n * (tuple of ints indices)",
                f"got {spec!r:.60}; pass a number of sections (int) or a list of split indices",
            )
        )
    parsed = _sections_or_indices(spec, op)
    if isinstance(parsed, int) and (parsed == 0 or shape[d] % parsed != 0):
        raise StridedRuntimeError(
            join_lines(
                f"torch.{op} attempted to split along dimension {d}, but the size of the dimension "
                f"{shape[d]} is not divisible by the split_size {parsed}!",
                f"pick a number of sections that divides {shape[d]}, or split unevenly with "
                f"t.tensor_split({parsed}, dim={d})",
            )
        )
    return _remembered(t, key, _tensor_split(t, parsed, d))


@method("hsplit")
def hsplit(input: Tensor, indices_or_sections: Any) -> tuple[Tensor, ...]:
    """``tensor_split`` along dim 1 (dim 0 for 1-D); equal sections must divide the size (views).

    >>> [p.tolist() for p in strided.hsplit(strided.arange(4).view(1, 4), 2)]
    [[[0, 1]], [[2, 3]]]
    """
    tensor_arg(input, "hsplit")
    d = 0 if len(input._layout.shape) == 1 else 1
    return _directional_split("hsplit", input, indices_or_sections, 1, d)


@method("vsplit")
def vsplit(input: Tensor, indices_or_sections: Any) -> tuple[Tensor, ...]:
    """``tensor_split`` along dim 0 of a tensor of 2 or more dims (views).

    >>> [p.shape for p in strided.vsplit(strided.zeros(4, 2), 2)]
    [(2, 2), (2, 2)]
    """
    tensor_arg(input, "vsplit")
    return _directional_split("vsplit", input, indices_or_sections, 2, 0)


@method("dsplit")
def dsplit(input: Tensor, indices_or_sections: Any) -> tuple[Tensor, ...]:
    """``tensor_split`` along dim 2 of a tensor of 3 or more dims (views).

    >>> [p.shape for p in strided.dsplit(strided.zeros(2, 2, 4), 2)]
    [(2, 2, 2), (2, 2, 2)]
    """
    tensor_arg(input, "dsplit")
    return _directional_split("dsplit", input, indices_or_sections, 3, 2)



# ---------------------------------------------------------------- gradients of the splits


def _split_rule(input: Tensor, spec: Any, op: str, d: int) -> Any:  # noqa: A002
    """SliceBackward0 for the pieces of a split (views): one node with an output per piece; the
    input's gradient is zeros with each piece's gradient added at its place (pieces may overlap
    for decreasing indices).

    # Note: PyTorch records one SliceBackward0 per piece; strided one node for all of them.
    """
    shape = input._layout.shape
    bounds = _split_bounds(shape[d], _sections_or_indices(spec, op), d)

    def grad(*grads: Any) -> tuple:
        like = next(g for g in grads if g is not None)
        if len(bounds) == 1 and bounds[0] == (0, shape[d]):
            return (like,)  # the one piece is the whole tensor: its gradient is the input's
        if any(g is not None and g._ag is not None for g in grads):  # create_graph: differentiable
            return (scatter_pieces(shape, [(g, lambda z, a=start, b=stop: z.narrow(d, a, b - a))
                                           for (start, stop), g in zip(bounds, grads) if g is not None and stop > start],
                                   "SliceBackwardBackward0"),)
        z = grad_zeros(shape, like._dtype)
        for (start, stop), g in zip(bounds, grads):
            if g is not None and stop > start:
                z._view(L.slice_dim(z._layout, d, start, stop, 1))._np()[...] += g._np()
        return (z,)

    return "SliceBackward0", (input,), grad, (), "multi"


@backward("tensor_split")
def tensor_split_backward(out: tuple, input: Tensor, indices_or_sections: Any = None, dim: int = 0, *,  # noqa: A002
                          sections: Any = None, indices: Any = None, tensor_indices_or_sections: Any = None) -> Any:
    spec = next(v for v in (indices_or_sections, sections, indices, tensor_indices_or_sections) if v is not None)
    d = L.wrap_dim(dim_int(dim, "tensor_split"), len(input._layout.shape))
    return _split_rule(input, spec, "tensor_split", d)


@backward("hsplit")
def hsplit_backward(out: tuple, input: Tensor, indices_or_sections: Any) -> Any:  # noqa: A002
    return _split_rule(input, indices_or_sections, "hsplit", 0 if len(input._layout.shape) == 1 else 1)


@backward("vsplit")
def vsplit_backward(out: tuple, input: Tensor, indices_or_sections: Any) -> Any:  # noqa: A002
    return _split_rule(input, indices_or_sections, "vsplit", 0)


@backward("dsplit")
def dsplit_backward(out: tuple, input: Tensor, indices_or_sections: Any) -> Any:  # noqa: A002
    return _split_rule(input, indices_or_sections, "dsplit", 2)


seal(globals())  # (last: this module's ops with a backward rule become their recording entries)
# the kinds of this module's ops, in the op registry (after the seal: the forwards are the entries)
declare(Kind.VIEW, "atleast_1d atleast_2d atleast_3d broadcast_tensors tensor_split hsplit vsplit dsplit")
declare(Kind.COPY, "cat concat concatenate stack hstack vstack row_stack dstack column_stack")
