"""The one place refusals become text: the peer's first line, the reason, the fix.

The layout algebra returns refusals (:mod:`strided.refusals`), small values with
the numbers that failed; this module renders them, from refusals and layouts only
(never Tensors), so the same words can describe a strided tensor, a NumPy array or a
PyTorch tensor. :func:`error` builds the exception the peers raise for the refusal (a
strided subclass of their builtin class); the raising wrappers of the algebra call it.

A ground module: it imports only :mod:`strided.errors` and :mod:`strided.refusals` (its
sibling in the ground), and renders each refusal by its type.

Example::

    >>> from strided.refusals import DimOutOfRange
    >>> print(error(DimOutOfRange(dim=3, ndim=2)))
    Dimension out of range (expected to be in range of [-2, 1], but got 3)
      the tensor has 2 dims; dims count from 0 to 1, or from -2 to -1 from the end
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from . import refusals as R
from .errors import (
    OverlapWriteError,
    StridedAxisError,
    StridedError,
    StridedIndexError,
    StridedOverflowError,
    StridedRuntimeError,
    StridedTypeError,
    StridedValueError,
    ViewError,
    join_lines,
)
from .refusals import INT64_MAX, MAX_DIMS


def _dims(n: int) -> str:
    return f"{n} dim{'s' if n != 1 else ''}"


def _args(shape: Sequence[int]) -> str:
    return ", ".join(str(n) for n in shape)


# ---------------------------------------------------------------- reshape as a view


def reshape_equation(r: Any) -> str:
    """The stride equation a :class:`ReshapeRefusal` failed, in the layout's own numbers."""
    o, i = r.outer, r.inner
    shape, strides = r.old_shape, r.old_strides
    rhs = f"(elements in dims {i}..) * (their base stride)"
    n = 1
    for j in range(i, len(shape)):  # the block from ``inner`` on: sizes times its last stride
        n *= shape[j]
        if n * strides[j] == r.needed_stride:
            names = " * ".join(f"size[{k}]" for k in range(i, j + 1))
            nums = " * ".join(str(shape[k]) for k in range(i, j + 1))
            rhs = f"{names} * stride[{j}] = {nums} * {strides[j]}"
            break
    return f"stride[{o}] == {rhs} = {r.needed_stride}, but stride[{o}] is {r.old_strides[o]}"


def reshape_reason(r: Any) -> str:
    """One sentence on what a :class:`ReshapeRefusal`'s failed equation means for memory."""
    o = r.outer
    s = r.old_strides[o]
    if r.needed_stride == 0 and s != 0:
        return (
            f"dim {r.inner} is expanded (stride 0): it repeats the same memory while "
            f"dim {o} moves on, so no single stride can walk the merged dim"
        )
    if s == 0:
        return (
            f"dim {o} is expanded (stride 0): its entries share memory, "
            "so no single stride can walk the merged dim"
        )
    if abs(s) < abs(r.needed_stride) or (s < 0) != (r.needed_stride < 0):
        return f"walking dim {o} jumps back through memory instead of past the end of dim {r.inner}"
    return f"dim {o} steps over a gap: the merged entries are not one evenly spaced run"


def view_refused(r: Any, origin: str, itemsize: int) -> ViewError:
    """PyTorch's ``view`` error for a :class:`ReshapeRefusal`, with the layout's story and a fix.

    ``origin`` is :func:`strided.layout.layout_origin` of the old layout (or ""), ``itemsize``
    prices the copy the fix makes.
    """
    args = _args(r.new_shape)
    nbytes = math.prod(r.old_shape) * itemsize
    return ViewError(
        join_lines(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead.",
            f"tensor: shape {r.old_shape}, strides {r.old_strides}" + (f" — {origin}" if origin else ""),
            f"view({args}) must merge dims {r.outer} and {r.inner} into its dim "
            f"{r.new_dim}, which needs {reshape_equation(r)}: {reshape_reason(r)}.",
            f"fix: .reshape({args}) copies {nbytes} bytes into a new contiguous tensor; "
            f"or .contiguous().view({args}).",
        ),
        r,
    )


# ---------------------------------------------------------------- sizes and dims


def _too_many_dims(r: Any) -> StridedRuntimeError:
    return StridedRuntimeError(
        join_lines(
            f"maximum supported dimension for a tensor is currently {MAX_DIMS}, found {r.ndim}",
            f"{r.op} would have {r.ndim} dims; strided computes through NumPy arrays, which have "
            f"at most {MAX_DIMS}",
            "fix: merge dims with .reshape(...) or .flatten(start_dim, end_dim), or drop "
            "size-1 dims with .squeeze()",
        )
    )


def _numel_overflow(r: Any) -> StridedRuntimeError:
    return StridedRuntimeError(
        join_lines(
            "numel: integer multiplication overflow",
            f"{r.op} would have sizes {list(r.shape)}: {math.prod(r.shape)} elements, more than "
            f"int64 counts ({INT64_MAX})",
            "fix: smaller sizes; to repeat values without memory, expand only as far as "
            "the elements can be counted",
        )
    )


def _stride_overflow(r: Any) -> StridedRuntimeError:
    return StridedRuntimeError(
        join_lines(
            "Stride calculation overflowed",
            f"{r.order} strides for sizes {list(r.shape)} (a zero-size dim counts as 1) give dim "
            f"{r.dim} the stride {r.stride}, more than int64 holds ({INT64_MAX})",
            "fix: smaller sizes; an empty tensor needs no memory: strided.empty_strided(sizes, "
            "[1] * len(sizes)) makes one with small strides",
        )
    )


def _multiple_inferred(r: Any) -> StridedRuntimeError:
    return StridedRuntimeError(
        f"only one dimension can be inferred\n  shape {list(r.shape)} has more than one -1"
    )


def _invalid_size(r: Any) -> StridedRuntimeError:
    return StridedRuntimeError(
        join_lines(
            f"invalid shape dimension {r.size} at index {r.index} of shape {list(r.shape)}",
            f"sizes must be 0 or more, or -1 for the one dim inferred from the "
            f"{r.numel} elements; size {r.size} at index {r.index} is neither",
        )
    )


def _ambiguous_inferred(r: Any) -> StridedRuntimeError:
    example = [0 if j == r.index else s for j, s in enumerate(r.shape)]
    return StridedRuntimeError(
        join_lines(
            f"cannot reshape tensor of 0 elements into shape {list(r.shape)} because the "
            "unspecified dimension size -1 can be any value and is ambiguous",
            f"the other sizes multiply to 0, so every size at index {r.index} gives "
            f"0 elements; write the size you mean instead of -1, e.g. {example}",
        )
    )


def _numel_mismatch(r: Any) -> StridedRuntimeError:
    return StridedRuntimeError(
        join_lines(
            f"shape '{list(r.shape)}' is invalid for input of size {r.numel}",
            f"the requested shape holds {r.known} elements"
            + (" times the inferred dim" if r.inferred else "")
            + f", the tensor holds {r.numel}; the product of the sizes must match",
        )
    )


def _flatten_order(r: Any) -> StridedRuntimeError:
    return StridedRuntimeError(
        join_lines(
            "flatten() has invalid args: start_dim cannot come after end_dim",
            f"start_dim={r.start_dim} is dim {r.start} and end_dim={r.end_dim} is dim {r.end} of shape "
            f"{r.shape}; flatten merges dims start_dim..end_dim, so pass them in that order",
        )
    )


def _unflatten(r: Any) -> StridedRuntimeError:
    shape, dim, sizes = r.shape, r.dim, r.sizes
    if r.check == "empty":
        return StridedRuntimeError(
            join_lines(
                "unflatten: sizes must be non-empty",
                f"sizes name the new dims that dim {dim!r} of shape {shape} splits into; "
                "give at least one, e.g. (2, -1), with product equal to that dim's size",
            )
        )
    if r.check == "zero_dim":
        return StridedRuntimeError(
            join_lines(
                f"unflatten: Dimension specified as {dim} but tensor has no dimensions",
                "a 0-d tensor has no dim to split; use .reshape(...) or .view(...) to give it a shape",
            )
        )
    d = r.wrapped
    n = shape[d]
    known = math.prod(s for s in sizes if s != -1)
    k = next((f for f in range(2, n) if n % f == 0), n)
    return StridedRuntimeError(
        join_lines(
            f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim "
            f"{dim} ({n}) in the input tensor",
            f"dim {d} of shape {shape} has {n} entries, but the sizes"
            + (" other than -1" if -1 in sizes else "")
            + f" multiply to {known}"
            + (f", which does not divide {n}" if -1 in sizes else "")
            + f"; the product must be {n}, e.g. unflatten({dim}, ({k}, -1))",
        )
    )


def _channels_last_rank(r: Any) -> StridedRuntimeError:
    rank, dims, order = (5, "(N, C, D, H, W)", "N, D, H, W, C") if r.format == "channels_last_3d" \
        else (4, "(N, C, H, W)", "N, H, W, C")
    return StridedRuntimeError(
        join_lines(
            f"required rank {rank} tensor to use {r.format} format, but got shape {tuple(r.shape)}",
            f"{r.format} orders the {rank} dims {dims} as {order}; this tensor has "
            f"{len(r.shape)} dims. Use the default memory_format (contiguous_format), or "
            f".reshape(...) to {rank} dims first",
        )
    )


def _dim_out_of_range(r: Any) -> StridedIndexError:
    span = r.ndim if r.ndim > 0 else 1
    return StridedIndexError(
        join_lines(
            f"Dimension out of range (expected to be in range of [{-span}, {span - 1}], "
            f"but got {r.dim})",
            f"the tensor has {_dims(r.ndim)}; dims count from 0 to {span - 1}, or from -{span} "
            "to -1 from the end",
        )
    )


def _repeated_dims(r: Any) -> StridedRuntimeError:
    if r.op == "squeeze":
        d = r.wrapped[-1]
        return StridedRuntimeError(
            f"dim {d} appears multiple times in the list of dims\n  squeeze dims "
            f"{list(r.given)} name dim {d} more than once"
        )
    if r.op.startswith("movedim "):
        name = r.op.split()[1]
        return StridedRuntimeError(
            f"movedim: repeated dim in `{name}` ({list(r.given)})\n  after wrapping negative "
            f"dims the {name} dims are {list(r.wrapped)}; each dim may appear once"
        )
    return StridedRuntimeError(
        f"{r.op}(): duplicate dims are not allowed.\n  dims {tuple(r.given)} name the same "
        f"dim more than once (after wrapping: {r.wrapped})"
    )


def _permute_length(r: Any) -> StridedRuntimeError:
    ndim = len(r.shape)
    return StridedRuntimeError(
        join_lines(
            "permute(sparse_coo): number of dimensions in the tensor input does not match "
            "the length of the desired ordering of dimensions i.e. "
            f"input.dim() = {ndim} is not equal to len(dims) = {len(r.dims)}",
            f"the tensor has shape {r.shape}; pass one entry per dim, "
            f"a reordering of {tuple(range(ndim))}",
        )
    )


def _movedim_length(r: Any) -> StridedRuntimeError:
    source, destination = r.source, r.destination
    return StridedRuntimeError(
        join_lines(
            f"movedim: Invalid source or destination dims: source ({list(source)} dims) should "
            f"contain the same number of dims as destination ({list(destination)} dims)",
            f"source names {len(source)} dim(s) and destination {len(destination)}; "
            "pair each moved dim with one new position, e.g. "
            f"movedim({tuple(source)[:1] or (0,)}, {tuple(destination)[:1] or (0,)}) "
            "moves one dim",
        )
    )


def _zero_dim(r: Any) -> StridedError:
    if r.op == "select":
        return StridedIndexError(
            join_lines(
                "select() cannot be applied to a 0-dim tensor.",
                "the tensor is 0-d (shape ()): it has no dim to select from; "
                "use .item() for its value, or .unsqueeze(0).select(0, 0) for a 1-element view",
            )
        )
    return StridedRuntimeError(
        join_lines(
            "narrow() cannot be applied to a 0-dim tensor.",
            "the tensor is 0-d (shape ()): it has no dim to narrow; "
            ".unsqueeze(0) gives a 1-d view of its one element",
        )
    )


def _index_out_of_range(r: Any) -> StridedIndexError:
    size, d = r.size, r.dim
    return StridedIndexError(
        join_lines(
            f"select(): index {r.index} out of range for tensor of size {list(r.shape)} "
            f"at dimension {d}",
            f"dim {d} has size {size}: valid indices are {-size}..{size - 1}"
            if size
            else f"dim {d} has size 0: there is nothing to select",
        )
    )


def _zero_step(r: Any) -> StridedValueError:
    return StridedValueError(
        join_lines(
            "slice step cannot be zero",
            f"dim {r.dim} has size {r.size}; use a step of 1 or more, or a negative step "
            "to walk it backwards (as in NumPy)",
        )
    )


def _narrow(r: Any) -> StridedError:
    shape, d, start, length = r.shape, r.dim, r.start, r.length
    if r.check == "length":
        return StridedRuntimeError(
            join_lines(
                "narrow(): length must be non-negative.",
                f"got length {length} for dim {d} of shape {shape}; a length counts "
                "entries forward from start (0 gives an empty view); to take entries before "
                "start, move start back by the length",
            )
        )
    size = shape[d]
    if r.check == "start":
        return StridedIndexError(
            join_lines(
                f"start out of range (expected to be in range of [{-size}, {size}], but got {start})",
                f"dim {d} of shape {shape} has size {size}: start must be in {-size}..{size} "
                "(negative counts from the end; start == size gives an empty view)",
            )
        )
    return StridedRuntimeError(
        join_lines(
            f"start ({start}) + length ({length}) exceeds dimension size ({size}).",
            f"dim {d} of shape {shape} has {size} entries; the largest length from "
            f"start {start} is {size - start}",
        )
    )


def _same_dims(r: Any) -> StridedRuntimeError:
    shape, d1 = r.shape, r.dim
    return StridedRuntimeError(
        join_lines(
            f"diagonal dimensions cannot be identical {r.dim1}, {r.dim2}",
            f"dim1={r.dim1} and dim2={r.dim2} both name dim {d1} of shape {shape}; a diagonal "
            "needs two different dims"
            + (
                f", e.g. diagonal({r.offset}, {d1}, {(d1 + 1) % len(shape)})"
                if len(shape) >= 2
                else f"; a {len(shape)}-d tensor has none (unsqueeze one or use a 2-d tensor)"
            ),
        )
    )


def _unfold(r: Any) -> StridedRuntimeError:
    d, size, shape, max_size = r.dim, r.size, r.shape, r.max_size
    if r.check == "size":
        return StridedRuntimeError(
            join_lines(
                f"maximum size for tensor at dimension {d} is {max_size} but size is {size}",
                f"a window of {size} does not fit in dim {d} of shape {shape}, which has "
                f"{max_size} entries; use unfold({r.dimension}, {max_size}, step) or smaller",
            )
        )
    if r.check == "negative":
        return StridedRuntimeError(
            join_lines(
                f"size is {size} but must be >= 0",
                f"size is the window length along dim {d} of shape {shape}: "
                f"0..{max_size} entries",
            )
        )
    return StridedRuntimeError(
        join_lines(
            f"step is {r.step} but must be > 0",
            f"step is how far each window starts after the previous one along dim {d}; "
            f"step={max(size, 1)} gives windows that do not overlap, step=1 every window",
        )
    )


# ---------------------------------------------------------------- expand


def expand_fix(shape: Sequence[int], dim: int, target: int, sizes: Sequence[int]) -> str:
    """A fix for expanding tensor dim ``dim`` of size ``shape[dim]`` to ``target``."""
    size = shape[dim]
    if size > 0 and target > 0 and target % size == 0:
        reps = target // size
        tiled = list(shape[:dim]) + [reps] + list(shape[dim:])
        final = list(shape[:dim]) + [target] + list(shape[dim + 1 :])
        then = "" if final == list(sizes) else f", then .expand({_args(sizes)})"
        return (
            f"fix: to repeat the {size} entries {reps} times, add a size-1 dim and expand it: "
            f".unsqueeze({dim}).expand({_args(tiled)}).reshape({_args(final)}) "
            f"(reshape copies){then}; or expand to size {size} at that dim"
        )
    return (
        f"fix: keep size {size} (or -1) at that target dim, or .unsqueeze({dim}) to add a new "
        "size-1 dim that can be expanded"
    )


def _expand(r: Any) -> StridedRuntimeError:
    return StridedRuntimeError(
        join_lines(
            f"The expanded size of the tensor ({r.target}) must match the existing size "
            f"({r.size}) at non-singleton dimension {r.dim}.  Target sizes: {list(r.sizes)}.  "
            f"Tensor sizes: {list(r.shape)}",
            f"only size-1 dims can be expanded (they get stride 0); tensor dim {r.tensor_dim} "
            f"(target dim {r.dim}) has size {r.size}, not 1",
            expand_fix(r.shape, r.tensor_dim, r.target, r.sizes),
        )
    )


def _expand_too_few(r: Any) -> StridedRuntimeError:
    return StridedRuntimeError(
        join_lines(
            f"expand(Tensor{{{list(r.shape)}}}, size={list(r.sizes)}): the number of "
            f"sizes provided ({len(r.sizes)}) must be greater or equal to the number of dimensions "
            f"in the tensor ({len(r.shape)})",
            "expand can add leading dims but never drop one; "
            "use .squeeze() or .reshape(...) to drop dims first",
        )
    )


def _expand_new_dim_inferred(r: Any) -> StridedRuntimeError:
    tdim, ndim = len(r.shape), len(r.sizes)
    return StridedRuntimeError(
        join_lines(
            f"The expanded size of the tensor (-1) isn't allowed in a leading, "
            f"non-existing dimension {r.dim}",
            f"the tensor has {tdim} dim(s), shape {r.shape}, so target dims 0..{ndim - tdim - 1} "
            f"of {list(r.sizes)} are new and have no size to keep; give target dim {r.dim} "
            "an explicit size",
        )
    )


def _negative_size(r: Any) -> StridedRuntimeError:
    return StridedRuntimeError(
        join_lines(
            f"Trying to create tensor with negative dimension {r.size}: {list(r.sizes)}",
            f"target dim {r.dim} asks for size {r.size}; sizes are 0 or more, and -1 "
            "keeps the tensor's own size",
        )
    )


# ---------------------------------------------------------------- NumPy's texts


def np_shape_text(shape: Sequence[int]) -> str:
    """NumPy's ``convert_shape_to_string``: leading negative sizes dropped, later ones "newaxis"."""
    i = 0
    while i < len(shape) and shape[i] < 0:
        i += 1
    if i == len(shape):
        return "()"
    parts = [str(shape[i])] + ["newaxis" if s < 0 else str(s) for s in shape[i + 1 :]]
    return "(" + ",".join(parts) + ("," if i == 0 and len(shape) == 1 else "") + ")"


def _numpy_broadcast(r: Any) -> StridedValueError:
    shape, target = r.shape, r.target
    if r.check == "scalar":
        return StridedValueError(
            join_lines("cannot broadcast a non-scalar to a scalar array",
                       f"the tensor has shape {shape}; only a 0-d tensor broadcasts to shape ()")
        )
    if r.check == "negative":
        return StridedValueError(
            join_lines("all elements of broadcast shape must be non-negative",
                       f"requested shape {target}; broadcast_to takes no -1 (Tensor.expand does)")
        )
    if r.check == "ndim":
        return StridedValueError(
            join_lines("input operand has more dimensions than allowed by the axis remapping",
                       f"the tensor has {len(shape)} dims {shape}, the requested shape {target} "
                       f"only {len(target)}; broadcasting adds dims but never removes them",
                       "fix: drop size-1 dims first with .squeeze() or strided.reshape")
        )
    return StridedValueError(
        join_lines(
            "operands could not be broadcast together with remapped shapes "
            f"[original->remapped]: {np_shape_text(shape)}  and requested shape {np_shape_text(target)}",
            "each dim of the tensor (aligned right) must equal the target size or be 1",
        )
    )


def _numpy_reshape(r: Any) -> StridedValueError:
    if r.check == "unknown":
        return StridedValueError(
            join_lines("can only specify one unknown dimension",
                       f"shape {r.target} has more than one negative size; give all but one")
        )
    return StridedValueError(
        join_lines(
            f"cannot reshape array of size {r.numel} into shape {np_shape_text(r.target)}",
            f"the array has shape {r.shape}; the requested sizes must multiply to {r.numel}",
        )
    )


def numpy_axis_line(r: Any) -> str:
    """NumPy's first line for a :class:`NumpyAxisRefusal` (its AxisError's or ValueError's)."""
    if r.check == "bounds":
        line = f"axis {r.axis} is out of bounds for array of dimension {r.ndim}"
        return f"{r.prefix}: {line}" if r.prefix else line
    if r.check == "repeated":
        if r.op == "transpose":
            return "repeated axis in transpose"
        if r.op == "squeeze":
            return "duplicate value in 'axis'"
        return f"repeated axis in `{r.prefix}` argument" if r.prefix else "repeated axis"
    if r.check == "count":
        return "axes don't match array"
    if r.check == "length":
        return "`source` and `destination` arguments must have the same number of elements"
    return "cannot select an axis to squeeze out which has size not equal to one"


def _numpy_axis(r: Any) -> StridedValueError:
    first = numpy_axis_line(r)
    if r.check == "bounds":
        span = f"from {-r.ndim} to {r.ndim - 1}" if r.ndim else "none: the array is 0-d"
        return StridedAxisError(join_lines(first, f"the array has {_dims(r.ndim)}; axes count {span}"))
    detail = {
        "repeated": f"axis {r.axis} is named twice; name each axis once",
        "count": f"{r.op} got {r.axis} axes for an array of {_dims(r.ndim)}; give a reordering of "
                 f"{tuple(range(r.ndim))}",
        "length": "give one destination per source axis",
        "squeeze": f"axis {r.axis} does not have size 1; squeeze only removes size-1 axes",
    }[r.check]
    return StridedValueError(join_lines(first, detail))


def _no_copy(r: Any) -> StridedValueError:
    return StridedValueError(
        join_lines(
            "Unable to avoid creating a copy while reshaping.",
            f"shape {r.shape} with strides {r.strides} cannot be read in {r.order} order "
            f"as {r.new_shape} with fixed strides",
            "fix: pass copy=None (copy when needed) or make it contiguous first "
            "(strided.ascontiguousarray / asfortranarray)",
        )
    )


# ---------------------------------------------------------------- tensor-level texts (from shapes)


def transpose_deprecated(shape: Sequence[int], name: str) -> str:
    """PyTorch's deprecation warning for ``x.T`` (not 2-d) or ``x.mT`` (0-d) of ``shape``."""
    if not shape:
        return f"Tensor.{name} is deprecated on 0-D tensors. This function is the identity in these cases."
    return (
        "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
        "deprecated and it will throw an error in a future release. Consider `x.mT` to "
        "transpose batches of matrices or `x.permute(*reversed(range(x.ndim)))` to reverse "
        f"the dimensions of a tensor (this one has shape {tuple(shape)})."
    )


def mt_error(shape: Sequence[int]) -> StridedRuntimeError:
    """PyTorch's error for ``x.mT`` of a 1-d ``shape``."""
    return StridedRuntimeError(
        join_lines(
            f"tensor.mT is only supported on matrices or batches of matrices. Got {len(shape)}-D tensor.",
            f"the tensor has shape {tuple(shape)}: there are no two last dims to swap; "
            ".unsqueeze(0).mT gives a column (n, 1) view, .unsqueeze(-1).mT a row (1, n)",
        )
    )


def unbind_0d_error() -> StridedIndexError:
    """PyTorch's error for ``unbind`` of a 0-d tensor."""
    return StridedIndexError(
        join_lines(
            "Dimension specified as 0 but tensor has no dimensions",
            "the tensor is 0-d (shape ()): there is no dim to unbind; "
            "use .item() for its value, or .unsqueeze(0).unbind() for a 1-tuple of views",
        )
    )


# ---------------------------------------------------------------- copies: why, for the ledger


def copy_why(why: Any) -> str:
    """A short sentence for the copy ledger: why a plan copies, from its ``why`` value."""
    cls = why.__class__
    if cls is R.ReshapeRefusal:
        return (
            f"dims {why.outer} and {why.inner} cannot merge: {reshape_equation(why)}"
        )
    if cls is R.NotContiguous:
        if why.dim < 0:
            return f"not {why.order}-contiguous"
        return (
            f"not {why.order}-contiguous: dim {why.dim} has stride {why.stride}, "
            f"{why.order} order needs {why.expected}"
        )
    if cls is R.CopyRequested:
        return f"{why.op} always copies"
    if cls is R.NoCopyRefusal and why.refusal is not None:
        return copy_why(why.refusal)
    return cls.__name__


def _layout_refusal(r: Any) -> StridedError:
    """The texts of ``layout.check_layout``'s invariants (PyTorch's first lines where it has one)."""
    shape, strides, offset = r.shape, r.strides, r.offset
    if r.rule == "length":
        return StridedRuntimeError(
            join_lines(
                "mismatch in length of strides and shape",
                f"shape {shape} has {len(shape)} dims, strides {strides} has {len(strides)}",
                "give one stride per size, e.g. as_strided(size, stride) with "
                "len(size) == len(stride)",
            )
        )
    if r.rule == "int64":
        v = (shape if r.what == "size" else strides)[r.index]
        return StridedTypeError(
            join_lines(
                f"argument '{r.what}' failed to unpack the object at pos {r.index + 1} with error "
                '"Overflow when unpacking long long"',
                f"{r.what}[{r.index}] is {v}, which does not fit in int64 ({-INT64_MAX - 1}..{INT64_MAX})",
            )
        )
    if r.rule == "size":
        return StridedRuntimeError(
            join_lines(
                f"Trying to create tensor with negative dimension {shape[r.index]}: {list(shape)}",
                f"size[{r.index}] is {shape[r.index]}; every size must be 0 or more",
            )
        )
    if r.rule == "offset_int64":
        return StridedOverflowError(
            f"Overflow when unpacking long long\n  storage offset {offset} does not fit in int64"
        )
    if r.rule == "offset":
        return StridedRuntimeError(
            join_lines(
                f"Tensor: invalid storage offset {offset}",
                "the storage offset counts elements from the start of the storage and must "
                "be 0 or more; pass storage_offset >= 0 (as_strided's default is the "
                "tensor's own storage_offset())",
            )
        )
    if r.rule == "reach":
        return StridedRuntimeError(
            join_lines(
                f"Tensor: invalid storage offset: sizes {list(shape)}, strides {list(strides)} "
                f"and storage offset {offset} reach storage index {r.low}",
                "a dim with a negative stride walks back from the offset, so the offset must be "
                f"at least the sum of (size - 1) * -stride over those dims ({offset - r.low})",
                f"fix: use storage offset {offset - r.low} or more, or shorten the reversed dims",
            )
        )
    if r.rule == "bytes":
        return StridedRuntimeError(
            join_lines(
                f"Storage size calculation overflowed with sizes={list(shape)} and "
                f"strides={list(strides)}",
                f"the last element sits at index {r.high} (offset {offset}), so the storage would "
                f"need {(r.high + 1) * r.itemsize} bytes, more than int64 counts ({INT64_MAX})",
                "fix: smaller sizes, strides or offset",
            )
        )
    if r.rule == "storage":
        return StridedRuntimeError(
            join_lines(
                f"setStorage: sizes {list(shape)}, strides {list(strides)}, storage offset "
                f"{offset}, and itemsize {r.itemsize} requiring a storage size of "
                f"{(r.high + 1) * r.itemsize} are out of bounds for storage of size "
                f"{r.storage_size * r.itemsize}",
                f"the last element would sit at index {r.high} of a storage of {r.storage_size} elements",
            )
        )
    if r.rule == "size_overflow":
        bad = next(i for i, n in enumerate(shape) if n < 0)
        return StridedRuntimeError(join_lines(
            f"Storage size calculation overflowed with sizes={list(shape)} and strides={list(strides)}",
            f"size[{bad}] is {shape[bad]}; every size must be 0 or more"))
    # "negative_stride"
    return StridedRuntimeError(
        f"as_strided: Negative strides are not supported at the moment, got strides: {list(strides)}\n"
        "  fix: slice with a negative step (t[::-1]) to walk a dim backwards"
    )


_RENDER: dict[type, Callable[[Any], StridedError]] = {
    R.LayoutRefusal: _layout_refusal,
    R.TooManyDims: _too_many_dims,
    R.NumelOverflow: _numel_overflow,
    R.StrideOverflow: _stride_overflow,
    R.MultipleInferred: _multiple_inferred,
    R.InvalidSize: _invalid_size,
    R.AmbiguousInferred: _ambiguous_inferred,
    R.NumelMismatch: _numel_mismatch,
    R.FlattenOrder: _flatten_order,
    R.UnflattenRefusal: _unflatten,
    R.ChannelsLastRank: _channels_last_rank,
    R.DimOutOfRange: _dim_out_of_range,
    R.RepeatedDims: _repeated_dims,
    R.PermuteLength: _permute_length,
    R.MovedimLength: _movedim_length,
    R.ZeroDimRefusal: _zero_dim,
    R.IndexOutOfRange: _index_out_of_range,
    R.ZeroStep: _zero_step,
    R.NarrowRefusal: _narrow,
    R.SameDims: _same_dims,
    R.UnfoldRefusal: _unfold,
    R.ExpandRefusal: _expand,
    R.ExpandTooFewSizes: _expand_too_few,
    R.ExpandNewDimInferred: _expand_new_dim_inferred,
    R.NegativeSize: _negative_size,
    R.NumpyBroadcastRefusal: _numpy_broadcast,
    R.NumpyReshapeRefusal: _numpy_reshape,
    R.NoCopyRefusal: _no_copy,
    R.NumpyAxisRefusal: _numpy_axis,
}


def error(refusal: Any) -> StridedError:
    """The exception for ``refusal``: the peer's builtin class, its first line, reason and fix.

    A :class:`ReshapeRefusal` needs the layout's story and an itemsize: use :func:`view_refused`.
    Every error made here carries its refusal as ``.refusal``.
    """
    err = _RENDER[refusal.__class__](refusal)
    err.refusal = refusal  # type: ignore[attr-defined]
    return err


# ---------------------------------------------------------------- broadcasting (PyTorch's and loud)


def aligned_shapes(shapes: Sequence[tuple[str, Sequence[int]]], ndim: int) -> tuple[list[str], list[int]]:
    """Render shapes right-aligned, one column per result dim; returns lines and column centres."""
    widths = [1] * ndim
    for _, s in shapes:
        for k, n in enumerate(s):
            d = ndim - len(s) + k
            widths[d] = max(widths[d], len(str(n)))
    label_w = max(len(name) for name, _ in shapes)
    lines = []
    for name, s in shapes:
        cells = []
        for d in range(ndim):
            k = d - ndim + len(s)
            cells.append(str(s[k]).rjust(widths[d]) if k >= 0 else " " * widths[d])
        lines.append(f"{name.ljust(label_w)}  (" + "  ".join(cells) + ")")
    centres = []
    pos = label_w + 3
    for d in range(ndim):
        centres.append(pos + widths[d] - 1)
        pos += widths[d] + 2
    return lines, centres


def broadcast_mismatch(a: Sequence[int], b: Sequence[int], r: Any) -> StridedRuntimeError:
    """PyTorch's ``infer_size`` error for shapes ``a`` and ``b`` and their :class:`BroadcastMismatch`
    ``r``, with both shapes aligned right and a marker under the dim that fails."""
    dim = r.dim
    ndim = max(len(a), len(b))
    sa = a[dim - ndim + len(a)]
    sb = b[dim - ndim + len(b)]
    lines, centres = aligned_shapes([("tensor a", a), ("tensor b", b)], ndim)
    marker = " " * centres[dim] + f"^ dim {dim}: {sa} vs {sb}"
    err = StridedRuntimeError(
        join_lines(
            f"The size of tensor a ({sa}) must match the size of tensor b ({sb}) at "
            f"non-singleton dimension {dim}",
            f"shapes aligned right (a missing leading dim counts as 1): a {a}, b {b}",
            *lines,
            marker,
            "along each dim the sizes must be equal or one of them 1; line the dims up "
            "with .unsqueeze(d), .reshape(...) or .permute(...)",
        )
    )
    err.refusal = r  # type: ignore[attr-defined]
    return err


def _stretch_text(s: Sequence[int], dims: tuple[int, ...], result: Sequence[int]) -> str:
    lead = len(result) - len(s)
    parts = []
    for d in dims:
        k = d - lead
        was = "missing" if k < 0 else "1"
        parts.append(f"dim {d} ({was} -> {result[d]})")
    return ", ".join(parts)


def both_stretched_message(
    op: str, shapes: Sequence[Sequence[int]], names: Sequence[str], stretched: list, result: Sequence[int]
) -> str:
    """Loud broadcasting's text for an op whose operands were both stretched (``{where}`` is
    left for the caller to fill with the user's line)."""
    shape_list = " and ".join(f"{n} {s}" for n, s in zip(names, shapes) if s)
    details = [f"{n} {s} is stretched along {_stretch_text(s, dims, result)}" for n, s, dims in stretched]
    lines, _ = aligned_shapes([(n, s) for n, s in zip(names, shapes) if s] + [("result", result)], len(result))
    return join_lines(
        f"{op}: broadcasting stretched both operands: {shape_list} give {result}",
        *details,
        *lines,
        "at {where}",
        "each operand grows along a dim the other supplies, as in (B, 1) - (B,) -> (B, B); "
        "if you meant it, make it explicit with .expand(...); if not, line the dims up "
        "(e.g. .squeeze(-1) or .unsqueeze(-1))",
    )


def rank_promotion_message(op: str, promoted: list, result: Sequence[int]) -> str:
    """Loud broadcasting's text for operands given new leading dims (``rank_promotion=True``)."""
    details = [f"{n} {s} gets {len(result) - len(s)} new leading dim(s)" for n, s in promoted]
    return join_lines(
        f"{op}: broadcasting promoted the rank of an operand to {len(result)} dims (result {result})",
        *details,
        "at {where}",
        "rank_promotion=True flags this; make it explicit with .reshape(...) or .expand(...), "
        "or use strided.broadcasting(mode, rank_promotion=False)",
    )


# ---------------------------------------------------------------- writes that alias


def partial_overlap(
    op: str, written: Any, read: Any, written_extent: tuple[int, int], read_extent: tuple[int, int], fix: str
) -> OverlapWriteError:
    """PyTorch's error for an op that reads memory it also writes, not element for element:
    the ``written`` and ``read`` layouts (shape, strides, offset) and the storage ranges
    ``[lo, hi)`` each touches, which meet."""
    lo, hi = max(written_extent[0], read_extent[0]), min(written_extent[1], read_extent[1])
    return OverlapWriteError(
        join_lines(
            "unsupported operation: some elements of the input tensor and the written-to tensor "
            "refer to a single memory location. Please clone() the tensor before performing the operation.",
            f"{op} writes into shape {written.shape}, strides {written.strides}, offset {written.offset} "
            f"while reading shape {read.shape}, strides {read.strides}, offset {read.offset} of the same "
            f"storage (storage elements {lo}..{hi - 1} are both read and written)",
            fix,
        )
    )


def read_after_write(op: str, written: Any, read: Any, where: tuple, fix: str) -> OverlapWriteError:
    """strided's refusal of an elementwise write whose input shares memory with the target in a
    layout PyTorch calls "too hard" to check, where PyTorch's loop would read an element after
    writing it at another position (``where``: :func:`strided.kernels.torch_loops.read_after_write`'s
    answer; ``written`` / ``read``: the two layouts)."""
    read_at, element, written_at = where
    return OverlapWriteError(
        join_lines(
            f"{op}: at position {read_at} the op reads storage element {element}, "
            + (f"which it writes at position {written_at} first" if written_at is not None else "which it also writes"),
            f"the target (shape {written.shape}, strides {written.strides}) and the input (shape {read.shape}, "
            f"strides {read.strides}) share that memory in a layout PyTorch does not check: its loop would read "
            "that element after writing it (a number that depends on its loop order); strided refuses rather "
            "than give another",
            fix,
        )
    )


def overlapping_write(layout: Any, dims: Sequence[int], op: str) -> OverlapWriteError:
    """PyTorch's error for writing into a layout whose elements share memory: ``dims`` are its
    expanded (stride-0) dims, or empty when other steps reach the same locations (unfold windows)."""
    if dims:
        dim_text = ", ".join(f"dim {d} (size {layout.shape[d]}, stride 0)" for d in dims)
        why = (
            f"{dim_text} {'is' if len(dims) == 1 else 'are'} expanded, so its entries alias one "
            "element each"
        )
    else:
        why = (
            "steps along its dims reach the same memory locations again (as the overlapping "
            "windows of unfold(dim, size, step) with step < size do), so a shared location would "
            "be updated once per element that reaches it, in an order that would decide the result"
        )
    return OverlapWriteError(
        join_lines(
            "unsupported operation: more than one element of the written-to tensor refers to a "
            "single memory location. Please clone() the tensor before performing the operation.",
            f"{op} would write into shape {layout.shape} with strides {layout.strides}: {why}",
            "fix: t = t.clone() (or t.contiguous()) gives every element its own memory",
        )
    )


# ---------------------------------------------------------------- Python protocols of a tensor


def format_spec_error(spec: str, shape: Sequence[int]) -> StridedTypeError:
    """``format(t, spec)`` of a tensor that is not 0-d (Python's text for a bad spec)."""
    return StridedTypeError(
        join_lines(
            "unsupported format string passed to Tensor.__format__",
            f"the spec {spec!r} formats one number, and the tensor has shape "
            f"{tuple(shape)} ({math.prod(shape)} elements); format t.item() of a "
            "1-element tensor, or each value: [format(v, spec) for v in t.tolist()]",
        )
    )


def contains_error(element: Any, dtype_name: str, shape: Sequence[int]) -> StridedRuntimeError:
    """PyTorch's error for ``x in t`` with an ``x`` that is neither a tensor nor a number."""
    return StridedRuntimeError(
        join_lines(
            f"Tensor.__contains__ only supports Tensor or scalar, but you passed in a {type(element)}.",
            f"`x in t` compares x with every element of the {dtype_name} tensor of shape "
            f"{tuple(shape)}; pass a Python number or a tensor (strided.tensor(data) makes one)",
        )
    )


def len_0d_error() -> StridedTypeError:
    """PyTorch's error for ``len()`` of a 0-d tensor."""
    return StridedTypeError(
        join_lines(
            "len() of a 0-d tensor",
            "the tensor is 0-d (shape ()): it has no first dim to count; "
            ".numel() is its element count (1), .item() its value",
        )
    )


def delitem_error(key: Any) -> StridedTypeError:
    """PyTorch's error for ``del t[key]``."""
    return StridedTypeError(
        join_lines(
            "Tensor does not support deleting items",
            f"del t[{key!r:.40}] would remove elements, but a tensor's shape is fixed by its layout",
            "fix: keep the others with a mask, t[mask], or strided.cat of the slices around the "
            "item (both copy)",
        )
    )


def iter_0d_error() -> StridedTypeError:
    """PyTorch's error for iterating over a 0-d tensor."""
    return StridedTypeError(
        join_lines(
            "iteration over a 0-d tensor",
            "the tensor is 0-d (shape ()): it has no first dim to iterate over; "
            ".item() gives its value, .unsqueeze(0) a 1-element 1-d view",
        )
    )


def array_copy_error(dtype_name: str, asked: str) -> StridedValueError:
    """NumPy 2's error for ``np.asarray(t, dtype=..., copy=False)`` when the dtype needs a copy."""
    return StridedValueError(
        join_lines(
            "Unable to avoid copy while creating an array as requested.",
            f"the tensor holds {dtype_name} and NumPy asked for {asked} with "
            "copy=False: converting makes a new array; np.asarray(t, dtype) allows the copy, "
            f"np.asarray(t, copy=False) (or t.numpy()) is the {dtype_name} memory itself",
        )
    )


def t_error(ndim: int) -> StridedRuntimeError:
    """PyTorch's error for ``t()`` of a tensor with more than 2 dims."""
    return StridedRuntimeError(
        f"t() expects a tensor with <= 2 dimensions, but self is {ndim}D\n"
        "  fix: .transpose(dim0, dim1) or .mT swaps the last two dims of a batch"
    )


def item_error(shape: Sequence[int]) -> StridedRuntimeError:
    """PyTorch's error for ``item()`` of a tensor that does not hold exactly one element."""
    return StridedRuntimeError(
        f"a Tensor with {math.prod(shape)} elements cannot be converted to Scalar\n"
        f"  shape {tuple(shape)}; select one element first, e.g. t[0].item() or t.reshape(-1)[i].item()"
    )


def bool_error(shape: Sequence[int]) -> StridedRuntimeError:
    """PyTorch's error for the truth value of a tensor that does not hold exactly one element."""
    n = math.prod(shape)
    return StridedRuntimeError(
        join_lines(
            f"Boolean value of Tensor with {'more than one value' if n else 'no values'} is ambiguous",
            f"the tensor has shape {tuple(shape)} ({n} elements); say which truth you "
            "mean: .all() (every element) or .any() (at least one)",
        )
    )


def index_error(dtype_name: str, shape: Sequence[int]) -> StridedTypeError:
    """PyTorch's error for using a float or multi-element tensor as an index (``__index__``)."""
    return StridedTypeError(
        join_lines(
            "only integer tensors of a single element can be converted to an index",
            f"the tensor is {dtype_name} with shape {tuple(shape)} "
            f"({math.prod(shape)} elements); an index needs one integer: .item() of a 1-element "
            "integer tensor, or .to(strided.int64) first",
        )
    )


def not_a_tensor(value: Any, type_name: str, op: str, name: str, pos: int) -> StridedTypeError:
    """PyTorch's argument error for a value that is not a tensor where one is needed."""
    return StridedTypeError(
        f"{op}(): argument '{name}' (position {pos}) must be Tensor, not {type_name}\n"
        f"  got {value!r:.60}; make a tensor first with strided.tensor(data)"
    )


def not_built_directly() -> StridedTypeError:
    """The error for ``strided.Tensor(...)``: tensors come from the factories."""
    return StridedTypeError(
        "strided.Tensor is not built directly; use strided.tensor(data), "
        "strided.from_numpy(array) or strided.zeros(...)"
    )


def is_contiguous_format_error(memory_format: Any, is_format: bool) -> StridedError:
    """PyTorch's error for ``is_contiguous(memory_format)`` with a format it cannot judge
    (``preserve_format``: RuntimeError) or a value that is no format at all (TypeError)."""
    cls = StridedRuntimeError if is_format else StridedTypeError
    return cls(
        f"is_contiguous(): argument 'memory_format' must be torch.memory_format, not "
        f"{type(memory_format).__name__}\n"
        f"  got {memory_format!r:.60}; use strided.contiguous_format or strided.channels_last"
    )
