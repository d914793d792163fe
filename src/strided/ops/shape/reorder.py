"""Reordering and repeating elements into new memory, with PyTorch's semantics: ``flip``,
``fliplr``, ``flipud``, ``roll``, ``rot90``, ``repeat``, ``tile``, ``repeat_interleave``.

Each is a copy (PyTorch's results never share the input's memory), reported to the copy ledger
with a reason; NumPy reads the input in place (a strided view of its storage) and writes straight
into the result's memory. Result strides follow PyTorch's: ``flip`` keeps a dense input's stride
order (``empty_like``'s preserve_format), ``rot90`` is a flip seen transposed, the others are
row-major.

# Note: NumPy's ``flip`` is a view with negative strides. PyTorch cannot express negative strides
# and copies; strided follows PyTorch here. A flipped *view* is available in strided through basic
# indexing with a negative step: ``t[::-1]`` (NumPy's semantics for slices).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import product
from typing import Any

import numpy as np

from ... import layout as L
from ...args import type_name
from ...dispatch import OPEN, adopted, copied, result, result_array
from ...dtypes import bool_, int64, uint16, uint32, uint64
from ...errors import (
    StridedIndexError,
    StridedNotImplementedError,
    StridedRuntimeError,
    StridedTypeError,
    join_lines,
)
from ...gradients import grad_zeros, in_pytorch_convention, seal
from ...kernels.blocked import copy_into, row_major
from ...kernels.memory import dense_run, flat_run
from ...layout import plans as P
from ...layout.order import iteration_order
from ...opdef import Kind, declare
from ...tensor import Tensor, tensor_arg
from .._support.memo import Memo
from .._support.operands import _cinfo
from .._support.promotion import TORCH_NAMES
from ..registry import backward, method
from .joining import dim_int

__all__ = ["flip", "fliplr", "flipud", "repeat", "repeat_interleave", "roll", "rot90", "tile"]


# ---------------------------------------------------------------- arguments


def _int_seq(value: Any, op: str, name: str, pos: int) -> tuple[int, ...]:
    """An int or a sequence of ints (PyTorch's IntArrayRef argument), as a tuple."""
    items = value if isinstance(value, (list, tuple)) else (value,)
    out = []
    for v in items:
        if isinstance(v, Tensor) and v.numel() == 1 and not v._dtype.is_floating_point \
                and not v._dtype.is_complex and v._dtype is not bool_:
            v = v.item()  # (PyTorch reads a one-element integer tensor as an int here: roll(t, torch.tensor(1)))
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise StridedTypeError(
                join_lines(
                    f"{op}(): argument '{name}' (position {pos}) must be tuple of ints, not {type(v).__name__}",
                    f"got {name}={value!r:.60}; pass an int or a tuple of ints",
                )
            )
        out.append(int(v))
    return tuple(out)


def _varargs(args: tuple, op: str, name: str) -> Any:
    """A method's ``*dims`` / ``*sizes``: ``t.flip(0, 1)`` or ``t.flip((0, 1))``."""
    if not args:
        raise StridedTypeError(
            join_lines(f'{op}() missing 1 required positional arguments: "{name}"',
                       f"pass the {name}: t.{op}(0) or t.{op}((0, 1))")
        )
    return args[0] if len(args) == 1 else args


def _flip_dims(dims: Any, ndim: int) -> tuple[int, ...]:
    """``flip``'s dims wrapped one by one, a repeat refused as soon as it is met (PyTorch's order)."""
    given = _int_seq(dims, "flip", "dims", 1)
    wrapped: list[int] = []
    for g in given:
        d = L.wrap_dim(g, ndim)
        if d in wrapped:
            raise StridedRuntimeError(
                join_lines(f"dim {d} appears multiple times in the list of dims",
                           f"flip dims {list(given)} name dim {d} twice; "
                           "flipping a dim twice is no flip: leave it out")
            )
        wrapped.append(d)
    return tuple(wrapped)


# ---------------------------------------------------------------- flip


_ALL = slice(None)
_REVERSED = slice(None, None, -1)


def _reversed(array: np.ndarray, dims: tuple[int, ...]) -> np.ndarray:
    """``np.flip(array, dims)`` (``dims`` wrapped, >= 0): a view with a reversing slice per dim
    (np.flip's axis normalising costs more than a small copy)."""
    return array[tuple([_REVERSED if d in dims else _ALL for d in range(array.ndim)])]


# ---------------------------------------------------------------- the fast paths
# flip, fliplr, flipud, rot90 and roll of a non-empty row-major tensor, nobody listening: the flat run
# seen in its shape, reversed or split by slicing (views), copied by one NumPy call into a fresh
# row-major array that becomes the result's storage. The general paths' values bit for bit (they
# copy the same elements), and their layouts: a row-major input's preserve_format strides are row-major.


def _shaped_run(t: Any) -> tuple[np.ndarray, tuple] | None:
    """A non-empty row-major tensor's flat run seen in its shape, with ``_cinfo``'s entry of the
    shape; None when a fast path may not run (someone listens, another layout, no elements)."""
    if OPEN or t.__class__ is not Tensor:
        return None
    shape = t._layout.shape
    info = _cinfo[shape]
    run = flat_run(t, info) if info[1] and shape else None
    return None if run is None else (run.reshape(shape), info)


def _plain_dims(dims: Any, ndim: int) -> tuple[int, ...] | None:
    """``dims`` (an int or a tuple of ints) wrapped into ``range(ndim)`` when each is a plain int
    there and none repeats; else None (the general path parses it and raises its errors)."""
    given = (dims,) if dims.__class__ is int else dims
    if given.__class__ is not tuple:
        return None
    out = []
    for d in given:
        if d.__class__ is not int or not -ndim <= d < ndim:
            return None
        d %= ndim
        if d in out:
            return None
        out.append(d)
    return tuple(out)


def _flip_key(key: tuple[tuple[int, ...], Any]) -> tuple | None:
    """:data:`_FLIP_KEYS`' entry: the reversing index of ``flip(t, dims)`` for a tensor of ``shape``
    (``key``), or None where :func:`_plain_dims` refuses ``dims``."""
    shape, dims = key
    wrapped = _plain_dims(dims, len(shape))
    return None if wrapped is None else tuple([_REVERSED if d in wrapped else _ALL for d in range(len(shape))])


# (shape, dims of plain ints) -> flip's reversing index (or None: the general path), per call a lookup
_FLIP_KEYS = Memo(_flip_key, limit=1024)


# (elements: up to this many, a fast path copies by one gather of the flat run through a remembered
# index, NumPy's fancy indexing: ~0.2 us at (3, 4), ~0.35 at (16, 16), where a reversed view's copy
# or two joined slices cost 0.5-1.4 us; above it the block copies below are the cheaper)
_GATHER_MAX = 1024


def _small_run(t: Any) -> tuple[np.ndarray, tuple] | None:
    """A row-major tensor's flat run and ``_cinfo``'s entry of its shape, for the gather fast paths:
    1 to :data:`_GATHER_MAX` elements, at least one dim, nobody listening; else None."""
    if OPEN or t.__class__ is not Tensor:
        return None
    info = _cinfo[t._layout.shape]
    if not 0 < info[1] <= _GATHER_MAX or not t._layout.shape:
        return None
    run = flat_run(t, info)
    return None if run is None else (run, info)


def _gather_index(shape: tuple[int, ...], reorder: Any) -> np.ndarray:
    """The read-only flat positions (intp) a fast path gathers: ``reorder`` (a function of an array)
    applied to the positions of a row-major ``shape``, flattened in row-major order, so that
    ``run[index]`` is ``reorder(run.reshape(shape)).flatten()`` element for element."""
    index = np.ascontiguousarray(reorder(np.arange(L.product(shape), dtype=np.intp).reshape(shape))).reshape(-1)
    index.setflags(write=False)
    return index


def _flip_gather(key: tuple[tuple[int, ...], Any]) -> np.ndarray | None:
    """:data:`_FLIP_GATHER`'s entry: ``flip(t, dims)``'s gather index for a small ``shape``, or None."""
    index = _FLIP_KEYS[key]
    return None if index is None else _gather_index(key[0], lambda a: a[index])


# (shape, dims of plain ints) -> a small flip's gather index (or None: the general path)
_FLIP_GATHER = Memo(_flip_gather, limit=256)


# (PyTorch's flip of these may raise, by layout: the general path asks _check_flip_dtype)
_WIDE_UNSIGNED = frozenset((uint16, uint32, uint64))


def _fast_flip(t: Any, dims: Any) -> Tensor | None:
    """``flip(t, dims)`` on the fast path, or None."""
    if dims.__class__ is list:  # (flip takes a list of dims as the tuple of them)
        dims = tuple(dims)
    if dims.__class__ is tuple:
        for d in dims:  # (1.0 and True hash as 1 does: each dim a plain int, as _plain_dims tests)
            if d.__class__ is not int:
                return None
    elif dims.__class__ is not int:
        return None
    small = _small_run(t)
    if small is not None and t._dtype not in _WIDE_UNSIGNED:
        index = _FLIP_GATHER[(t._layout.shape, dims)]
        return None if index is None else adopted(small[0][index], small[1][2], t._dtype)
    seen = _shaped_run(t)
    if seen is None:
        return _dense_flip(t, dims)
    if t._dtype in _WIDE_UNSIGNED:
        return None
    index = _FLIP_KEYS[(seen[0].shape, dims)]
    if index is None:
        return None
    view = seen[0][index]
    out = np.empty(view.shape, view.dtype)
    copy_into(out, view)  # (the compiled kernel reverses lines in registers; NumPy element by element)
    return adopted(out.reshape(-1), seen[1][2], t._dtype)


def _memory_axes(key: tuple[tuple[int, ...], tuple[int, ...]]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """:data:`_MEMORY_AXES`' entry: for a permuted dense (shape, strides) (distinct strides), the
    shape of its memory run in memory order and the axes that transpose that row-major run back
    into ``shape``'s order (``run.reshape(mshape).transpose(axes)`` has ``shape`` and ``strides``)."""
    shape, strides = key
    order = sorted(range(len(shape)), key=lambda d: -strides[d])  # (memory order: outermost first)
    axes = [0] * len(order)
    for k, d in enumerate(order):
        axes[d] = k
    return tuple(shape[d] for d in order), tuple(axes)


# (shape, strides) of a permuted dense layout -> (its memory run's shape, the axes back to shape's order)
_MEMORY_AXES = Memo(_memory_axes, limit=256)


def _dense_flip(t: Any, dims: Any) -> Tensor | None:
    """``flip(t, dims)`` of a permuted dense tensor (a transpose; every dim of size >= 2), nobody
    listening: its storage run seen in its shape, reversed along ``dims`` (a view), copied by the
    blocked copy into fresh memory laid out with ``t``'s strides (preserve_format's for a dense
    layout, the general path's); else None. The general path's values and layout without its
    steps (measured, thread CPU time, loaded 2-core Zen 4, a transposed 1024 x 1024 float32:
    fliplr ~133 -> ~123 us, flip(0) ~124 -> ~112, against the bare copy ~110-123, PyTorch ~111)."""
    if OPEN or t.__class__ is not Tensor or t._dtype in _WIDE_UNSIGNED:
        return None
    lay = t._layout
    numel = _cinfo[lay.shape][1]
    found = dense_run(t, numel)
    if found is None:
        return None
    index = _FLIP_KEYS[(lay.shape, dims)]
    if index is None:
        return None
    run, layout = found
    mshape, axes = _MEMORY_AXES[(lay.shape, lay.strides)]
    out = np.empty(numel, run.dtype)
    copy_into(out.reshape(mshape).transpose(axes), run.reshape(mshape).transpose(axes)[index])
    return adopted(out, layout, t._dtype)


def _roll_parts(shape: tuple[int, ...], dims: Any) -> tuple[int, int, int] | None:
    """A one-dim (or flattened: ``dims`` None) roll of ``shape`` as (outer, n, inner) runs, or None
    where ``dims`` is not one plain dim (the general path parses it)."""
    if dims is None:
        return 1, L.product(shape), 1
    wrapped = _plain_dims(dims, len(shape))
    if wrapped is None or len(wrapped) != 1:
        return None
    d = wrapped[0]
    return L.product(shape[:d]), shape[d], L.product(shape[d + 1:])


def _roll_gather(key: tuple[tuple[int, ...], int, Any]) -> np.ndarray | None:
    """:data:`_ROLL_GATHER`'s entry: a small ``roll(t, shift, dims)``'s gather index, or None."""
    shape, shift, dims = key
    parts = _roll_parts(shape, dims)
    if parts is None:
        return None
    outer, n, inner = parts
    cut = (n - shift % n) * inner
    return _gather_index(shape, lambda a: np.concatenate(
        (a.reshape(outer, n * inner)[:, cut:], a.reshape(outer, n * inner)[:, :cut]), axis=1))


# (shape, an int shift, dims None or an int) -> a small roll's gather index (or None)
_ROLL_GATHER = Memo(_roll_gather, limit=256)


def _fast_roll(t: Any, shifts: Any, dims: Any) -> Tensor | None:
    """``roll(t, shifts, dims)`` for one int shift along one dim, or flattened (``dims`` None), on
    the fast path: a small tensor by one gather; else the two parts of the rolled dim joined in
    swapped order by one ``np.concatenate`` (in memory: ``outer`` rows, each the rolled dim's tail
    then its head); else None."""
    if shifts.__class__ is not int:
        return None
    if dims is None or dims.__class__ is int:
        small = _small_run(t)
        if small is not None:
            index = _ROLL_GATHER[(t._layout.shape, shifts, dims)]
            return None if index is None else adopted(small[0][index], small[1][2], t._dtype)
    seen = _shaped_run(t)
    if seen is None:
        return None
    array, info = seen
    parts = _roll_parts(info[2].shape, dims)
    if parts is None:
        return None
    outer, n, inner = parts
    cut = (n - shifts % n) * inner  # (Python's % of a negative shift is the forward one)
    rows = array.reshape(outer, n * inner)
    flat = np.concatenate((rows[:, cut:], rows[:, :cut]), axis=1).reshape(-1)
    return adopted(flat, info[2], t._dtype)


def _rot90_plan(key: tuple[tuple[int, ...], int, tuple[int, int]]) -> tuple[tuple[int, ...], Any] | None:
    """:data:`_ROT90`'s entry for ``rot90(t, k, dims)`` of a tensor of ``shape``: (the reversing
    index of the flip the copy reads, the result's layout: row-major, transposed in ``dims`` for
    odd ``k``), or None where ``dims`` is not two plain distinct dims (the general path raises)."""
    shape, k, dims = key
    ndim = len(shape)
    wrapped = _plain_dims(dims, ndim) if ndim >= 2 else None
    if wrapped is None or len(wrapped) != 2:
        return None
    d0, d1 = wrapped
    k %= 4
    flipped = ((), (d1,), (d0, d1), (d0,))[k]
    index = tuple([_REVERSED if d in flipped else _ALL for d in range(ndim)])
    lay = _cinfo[shape][2]
    if k in (1, 3):
        perm = list(range(ndim))
        perm[d0], perm[d1] = d1, d0
        lay = L.Layout._trusted(tuple(lay.shape[p] for p in perm), tuple(lay.strides[p] for p in perm), 0)
    return index, lay


# (shape, k, dims of two ints) -> rot90's plan (or None: the general path)
_ROT90 = Memo(_rot90_plan, limit=1024)


def _rot90_gather(key: tuple[tuple[int, ...], int, tuple[int, int]]) -> tuple[np.ndarray, Any] | None:
    """:data:`_ROT90_GATHER`'s entry: a small rot90's (gather index, result layout), or None."""
    plan = _ROT90[key]
    return None if plan is None else (_gather_index(key[0], lambda a: a[plan[0]]), plan[1])


_ROT90_GATHER = Memo(_rot90_gather, limit=256)


def _fast_rot90(t: Any, k: Any, dims: Any) -> Tensor | None:
    """``rot90(t, k, dims)`` on the fast path: the input flipped (k = 1: along ``dims[1]``, 2: both,
    3: ``dims[0]``) copied row-major (a small one by one gather), then laid out transposed in
    ``dims`` for odd ``k`` (PyTorch's flip().transpose()); else None."""
    if (k.__class__ is not int or dims.__class__ is not tuple or len(dims) != 2 or dims[0].__class__ is not int
            or dims[1].__class__ is not int):  # (1.0 and True hash as 1 does: plain ints only)
        return None
    small = _small_run(t)
    if small is not None and t._dtype not in _WIDE_UNSIGNED:
        plan = _ROT90_GATHER[(t._layout.shape, k, dims)]
        return None if plan is None else adopted(small[0][plan[0]], plan[1], t._dtype)
    seen = _shaped_run(t)
    if seen is None or t._dtype in _WIDE_UNSIGNED:
        return None
    plan = _ROT90[(seen[0].shape, k, dims)]
    if plan is None:
        return None
    flat = np.empty(seen[0].size, seen[0].dtype)  # (copy_into: the blocked kernel reads a reversed
    copy_into(flat.reshape(seen[0].shape), seen[0][plan[0]])  # dim ~2.5x faster than flatten's loop)
    return adopted(flat, plan[1], t._dtype)


def _flip_is_generic(shape: tuple[int, ...], strides: tuple[int, ...], dims: Sequence[int]) -> bool:
    """Whether PyTorch's ``flip`` of this layout reaches its generic ``"flip_cpu"`` dispatch (no
    uint16/32/64 kernel there) rather than a copy or a dtype-free special case. Its flip: nothing
    to do (no flipped dim of size > 1 and nonzero stride, or <= 1 element) is a ``copy_``; else a
    TensorIterator over (out laid out as ``empty_like``, self, self with stride 0 on the flipped
    dims), dims ordered and merged as TensorIterator's, out's strides negated on the flipped ones;
    its kernel then takes a first dim read forwards and written backwards by one element
    (``cpu_hflip_vec``: a list of dtypes without these), a first dim contiguous in every operand
    (``cpu_vflip_memcpy`` / the channels-last flip: any dtype), the generic dispatch otherwise."""
    if L.product(shape) <= 1:  # (a 0-d tensor's dim 0 included)
        return False
    flipped = {d for d in dims if shape[d] > 1 and strides[d] != 0}
    if not flipped:
        return False
    ops = [list(L.preserve_format_strides(shape, strides)), list(strides),
           [0 if d in flipped else s for d, s in enumerate(strides)]]
    perm = iteration_order(shape, ops)
    sizes = [shape[p] for p in perm]
    st = [[o[p] for p in perm] for o in ops]
    prev = 0  # (TensorIterator's coalesce_dimensions)
    for dim in range(1, len(sizes)):
        if sizes[prev] == 1 or sizes[dim] == 1 or all(sizes[prev] * o[prev] == o[dim] for o in st):
            if sizes[prev] == 1:
                for o in st:
                    o[prev] = o[dim]
            sizes[prev] *= sizes[dim]
        else:
            prev += 1
            for o in st:
                o[prev] = o[dim]
            sizes[prev] = sizes[dim]
    out, own, dummy = (o[0] for o in st)
    if dummy == 0 and own != 0:
        out = -out
    if out == -1 and own == 1:
        return True  # (cpu_hflip_vec has no kernel for these dtypes: the generic dispatch)
    return not (out == 1 and own == 1 and dummy == 1)


def _check_flip_dtype(t: Tensor, dims: Sequence[int]) -> None:
    """PyTorch 2.13's ``"flip_cpu" not implemented for 'UInt16'`` (and UInt32/UInt64) where its
    flip of ``t``'s layout reaches the generic kernel (:func:`_flip_is_generic`): a contiguous
    uint16 matrix's ``flip(0)`` works (rows copied), its ``fliplr`` raises."""
    dtype = t._dtype
    if dtype.kind == "u" and dtype.itemsize > 1 and _flip_is_generic(t._layout.shape, t._layout.strides, dims):
        raise StridedNotImplementedError(join_lines(
            f"\"flip_cpu\" not implemented for '{TORCH_NAMES[dtype]}'",
            f"PyTorch 2.13 flips {dtype.name} only where its kernel copies whole rows (a contiguous inner "
            f"dim left in place); here shape {t._layout.shape}, strides {t._layout.strides}, dims {list(dims)}",
            "fix: convert first, e.g. x.to(strided.int64).flip(...), or index with a negative step (a view): x[::-1]"))


def _flipped(t: Tensor, dims: tuple[int, ...], op: str) -> Tensor:
    """``t`` with ``dims`` reversed, in new memory laid out as ``empty_like(t)`` (preserve_format)."""
    lay = t._layout
    _check_flip_dtype(t, dims)
    out = result(lay.shape, t._dtype, L.preserve_format_strides(lay.shape, lay.strides))
    if out.numel():
        copy_into(out._np(), _reversed(t._np(), dims) if dims and lay.shape else t._np())
    return copied(op, (t,), out, lambda: f"{op}: dims {list(dims)} reversed into new memory "
                  "(PyTorch's flip copies; t[::-1] is a view)")


def flip(input: Tensor, dims: int | Sequence[int]) -> Tensor:
    """``input`` with the order of elements along ``dims`` reversed, in new memory (``torch.flip``).

    # Note: PyTorch copies (NumPy's np.flip is a negative-stride view); strided follows PyTorch.
    # For the view, index with a negative step: t[::-1] (dim 0), t[:, ::-1] (dim 1).

    >>> strided.flip(strided.arange(3), (0,)).tolist()
    [2, 1, 0]
    """
    if not isinstance(dims, (list, tuple)):  # (the method takes t.flip(0); the function a sequence only)
        raise StridedTypeError(join_lines(
            f"flip(): argument 'dims' (position 2) must be tuple of ints, not {type_name(dims)}",
            f"got dims={dims!r:.60}; pass a tuple: strided.flip(t, (0,)) (or the method, t.flip(0))"))
    fast = _fast_flip(input, dims)
    if fast is not None:
        return fast
    t = tensor_arg(input, "flip")
    return _flipped(t, _flip_dims(dims, len(t._layout.shape)), "flip")


@method("flip")
def _flip_method(self: Tensor, *dims: Any) -> Tensor:
    """``flip(self, dims)``: a copy with the order of ``dims`` reversed.

    >>> strided.arange(4).view(2, 2).flip(0).tolist(), strided.arange(3).flip(0).tolist()
    ([[2, 3], [0, 1]], [2, 1, 0])
    """
    dims = _varargs(dims, "flip", "dims")
    return flip(self, dims if isinstance(dims, (list, tuple)) else (dims,))


@method("fliplr")
def fliplr(input: Tensor) -> Tensor:
    """``flip(input, 1)``; the input must have 2 or more dims (``torch.fliplr``).

    >>> strided.fliplr(strided.arange(4).view(2, 2)).tolist()
    [[1, 0], [3, 2]]
    """
    fast = _fast_flip(input, 1) if input.__class__ is Tensor and len(input._layout.shape) >= 2 else None
    if fast is not None:
        return fast
    t = tensor_arg(input, "fliplr")
    if len(t._layout.shape) < 2:
        raise StridedRuntimeError(
            join_lines("Input must be >= 2-d.", f"fliplr reverses dim 1; the tensor has shape {t._layout.shape}; "
                       "for 1-D use t.flip(0)")
        )
    return _flipped(t, (1,), "fliplr")


@method("flipud")
def flipud(input: Tensor) -> Tensor:
    """``flip(input, 0)``; the input must have 1 or more dims (``torch.flipud``).

    >>> strided.flipud(strided.arange(4).view(2, 2)).tolist()
    [[2, 3], [0, 1]]
    """
    fast = _fast_flip(input, 0)
    if fast is not None:
        return fast
    t = tensor_arg(input, "flipud")
    if not t._layout.shape:
        raise StridedRuntimeError(
            join_lines("Input must be >= 1-d.", "flipud reverses dim 0; a 0-d tensor has no dims to reverse")
        )
    return _flipped(t, (0,), "flipud")


def _reversed_view(g: Tensor, dims: Sequence[int]) -> Tensor:
    """``g`` with ``dims`` reversed: a view (negative strides), as ``g[::-1]`` is."""
    if not dims or not g._layout.shape:
        return g
    return g[tuple(slice(None, None, -1) if k in dims else slice(None) for k in range(len(g._layout.shape)))]


def _flip_rule(input: Tensor, flipped: tuple[int, ...]) -> Any:  # noqa: A002
    return "FlipBackward0", (input,), lambda g: (_reversed_view(g, flipped),), ()


@backward("flip")
def flip_backward(out: Tensor, input: Tensor, *dims: Any) -> Any:  # noqa: A002
    """FlipBackward0: the gradient flipped back — a view of it with negative strides (nothing
    copied; PyTorch copies). ``flip(input, dims)`` and the method ``input.flip(*dims)``."""
    if out._ag is not None:
        return None  # (the method form: the function it calls recorded the node)
    return _flip_rule(input, _flip_dims(dims[0] if len(dims) == 1 else dims, len(input._layout.shape)))


@backward("fliplr")
def fliplr_backward(out: Tensor, input: Tensor) -> Any:  # noqa: A002
    return _flip_rule(input, (1,))


@backward("flipud")
def flipud_backward(out: Tensor, input: Tensor) -> Any:  # noqa: A002
    return _flip_rule(input, (0,))


# ---------------------------------------------------------------- roll


def _roll_into(target: np.ndarray, source: np.ndarray, shifts: Sequence[int], dims: Sequence[int]) -> None:
    """``target[...] = np.roll(source, shifts, dims)`` without NumPy's intermediate: one block copy
    per combination of the two halves of each rolled dim (2**len(dims) copies, never per element),
    each by the blocked copy (``target`` is fresh memory: no overlap), which takes a permuted
    ``source``'s pieces through the compiled transpose (measured, thread CPU time, loaded 2-core
    Zen 4: a transposed 1024 x 1024 float32 roll(1, 0) ~4.0 ms by ``np.copyto``, PyTorch ~3.8)."""
    halves = []
    for s, d in zip(shifts, dims):
        n = source.shape[d]
        s %= n
        # source[a:b] lands at target[a+s:b+s] (mod n)
        halves.append([(d, slice(0, n - s), slice(s, n)), (d, slice(n - s, n), slice(0, s))])
    for combo in product(*halves):
        src = [slice(None)] * source.ndim
        dst = [slice(None)] * source.ndim
        for d, s_sl, d_sl in combo:
            src[d], dst[d] = s_sl, d_sl
        copy_into(target[tuple(dst)], source[tuple(src)])


@method("roll")
def roll(input: Tensor, shifts: int | Sequence[int], dims: int | Sequence[int] | None = None) -> Tensor:
    """Elements shifted cyclically by ``shifts`` along ``dims`` (new contiguous memory); with
    ``dims=None`` the tensor is rolled as if flattened, then given back its shape (``torch.roll``).

    >>> strided.roll(strided.arange(4), 1).tolist()
    [3, 0, 1, 2]
    """
    fast = _fast_roll(input, shifts, dims)
    if fast is not None:
        return fast
    t = tensor_arg(input, "roll")
    lay = t._layout
    shift = _int_seq(shifts, "roll", "shifts", 1)
    dim = () if dims is None else _int_seq(dims, "roll", "dims", 2)
    if not dim:
        dims = None  # PyTorch: no dims (None or empty) rolls the flattened tensor
    if not shift:
        raise StridedRuntimeError(join_lines("`shifts` required", "give at least one shift: t.roll(1, 0)"))
    if (dims is None and len(shift) != 1) or (dims is not None and len(shift) != len(dim)):
        raise StridedRuntimeError(
            join_lines(
                f"shifts and dimensions must align. shifts: {len(shift)}, dims:{len(dim)}",
                "give one shift per dim: t.roll((1, 2), (0, 1)); with no dims, one shift rolls the "
                "flattened tensor",
            )
        )
    n = L.product(lay.shape)
    if not n:
        # PyTorch: an empty tensor's roll is its clone (dims unchecked; preserve_format keeps its
        # strides), or, with no dims, the flattened clone viewed back to the shape
        if dims is None:  # (an empty tensor is contiguous, so contiguous() is the tensor itself)
            flat = P.view(lay, (0,))[0]
            flat = L.Layout._trusted((0,), L.preserve_format_strides(flat.shape, flat.strides), 0)
            strides = P.view(flat, lay.shape)[0].strides
        else:
            strides = L.preserve_format_strides(lay.shape, lay.strides)
        out = result(lay.shape, t._dtype, strides)
        return copied("roll", (t,), out, "roll: an empty tensor cloned into new memory")
    if not lay.shape and dim:
        raise StridedIndexError(
            join_lines(f"Dimension specified as {dim[0]} but tensor has no dimensions",
                       "a 0-d tensor has no dims to roll; t.roll(1) (no dims) returns a copy")
        )
    wrapped = tuple(L.wrap_dim(d, len(lay.shape)) for d in dim)
    if len(set(wrapped)) != len(wrapped):  # a dim named twice rolls by the sum of its shifts
        total: dict[int, int] = {}
        for s, d in zip(shift, wrapped):
            total[d] = total.get(d, 0) + s
        wrapped, shift = tuple(total), tuple(total.values())
    out, target = result_array(lay.shape, t._dtype)
    source = t._np()
    if dims is None:
        # (a permuted source's row-major copy by the blocked copy, NumPy's reshape walks it element by element)
        source = row_major(source).reshape(-1)
        target = target.reshape(-1)
        wrapped = (0,)
    _roll_into(target, source, shift, wrapped)
    how = f"by {list(shift)} along dims {list(wrapped)}" if dims is not None else f"by {shift[0]} as if flattened"
    return copied("roll", (t,), out, lambda: f"roll: elements shifted {how} into new memory")


@backward("roll")
def roll_backward(out: Tensor, input: Tensor, shifts: Any, dims: Any = None) -> Any:  # noqa: A002
    """RollBackward0: the gradient rolled back by the opposite shifts (a copy, as the forward)."""
    back = tuple(-k for k in _int_seq(shifts, "roll", "shifts", 1))
    return "RollBackward0", (input,), lambda g: (roll(g, back, dims),), ()


# ---------------------------------------------------------------- rot90


@method("rot90")
def rot90(input: Tensor, k: int = 1, dims: Sequence[int] = (0, 1)) -> Tensor:
    """Rotate by 90 degrees ``k`` times in the plane of ``dims`` (from the first towards the second),
    in new memory (``torch.rot90``); the result is laid out as PyTorch's (a flip, transposed).

    >>> strided.rot90(strided.arange(4).reshape(2, 2)).tolist()
    [[1, 3], [0, 2]]
    """
    fast = _fast_rot90(input, k, dims)
    if fast is not None:
        return fast
    t = tensor_arg(input, "rot90")
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise StridedTypeError(
            join_lines(f"rot90(): argument 'k' (position 1) must be int, not {type(k).__name__}",
                       f"k counts quarter turns: a whole number, got {k!r:.60}")
        )
    given = _int_seq(dims, "rot90", "dims", 2)
    lay = t._layout
    ndim = len(lay.shape)
    if len(given) != 2:
        raise StridedRuntimeError(
            join_lines(f"expected total rotation dims == 2, but got dims = {len(given)}",
                       "rot90 turns the plane of two dims: dims=(0, 1)")
        )
    if ndim < 2:
        raise StridedRuntimeError(
            join_lines(f"expected total dims >= 2, but got total dims = {ndim}",
                       f"the tensor has shape {lay.shape}; rot90 needs two dims to turn")
        )
    d0, d1 = (L.wrap_dim(d, ndim) for d in given)
    if d0 == d1:
        raise StridedRuntimeError(
            join_lines(f"expected rotation dims to be different, but got dim0 = {given[0]} and dim1 = {given[1]}",
                       f"both name dim {d0}; pick two different dims")
        )
    k = int(k) % 4
    if k:  # (PyTorch's rot90 flips first: dims[1] for k = 1, both for 2, dims[0] for 3)
        _check_flip_dtype(t, (d1,) if k == 1 else (d0, d1) if k == 2 else (d0,))
    src = t._np()
    preserve = L.preserve_format_strides(lay.shape, lay.strides)
    if k == 0:
        shape, strides, data = lay.shape, L.contiguous_strides(lay.shape), src
    elif k == 2:
        shape, strides, data = lay.shape, preserve, _reversed(src, (d0, d1))
    else:  # PyTorch: flip(dims[1]).transpose(d0, d1) for k=1, flip(dims[0]).transpose for k=3
        perm = list(range(ndim))
        perm[d0], perm[d1] = d1, d0
        shape = tuple(lay.shape[p] for p in perm)
        strides = tuple(preserve[p] for p in perm)
        data = _reversed(src, (d1,) if k == 1 else (d0,)).transpose(perm)
    out = result(shape, t._dtype, strides)
    if out.numel():
        np.copyto(out._np(), data)
    return copied("rot90", (t,), out,
                  lambda: f"rot90: turned {k} quarter turn{'s' if k != 1 else ''} in dims ({d0}, {d1}) into new memory")


@backward("rot90")
def rot90_backward(out: Tensor, input: Tensor, k: int = 1, dims: Sequence[int] = (0, 1)) -> Any:  # noqa: A002
    """Rot90Backward0: the gradient turned back by ``-k`` quarter turns — a flip (a view with
    negative strides) and a transpose (a view): nothing copied."""
    ndim = len(input._layout.shape)
    d0, d1 = (L.wrap_dim(d, ndim) for d in _int_seq(dims, "rot90", "dims", 2))
    back = -int(k) % 4

    def grad(g: Tensor) -> tuple:
        if back == 0:
            return (g,)
        if back == 2:
            return (_reversed_view(g, (d0, d1)),)
        return (_reversed_view(g, (d1,) if back == 1 else (d0,)).transpose(d0, d1),)

    return "Rot90Backward0", (input,), grad, ()


# ---------------------------------------------------------------- repeat, tile


def _repeat(t: Tensor, reps: tuple[int, ...], op: str) -> Tensor:
    lay = t._layout
    if len(reps) < len(lay.shape):
        raise StridedRuntimeError(
            join_lines(
                "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor",
                f"the tensor has {len(lay.shape)} dims (shape {lay.shape}) but repeat got {len(reps)} "
                f"count{'s' if len(reps) != 1 else ''} {reps}; give one per dim (1 keeps a dim), or use "
                "t.tile(...), which pads the counts with leading 1s",
            )
        )
    padded = (1,) * (len(reps) - len(lay.shape)) + lay.shape
    shape = tuple(r * s for r, s in zip(reps, padded))
    if any(n < 0 for n in shape):
        raise StridedRuntimeError(
            join_lines(
                f"Trying to create tensor with negative dimension {next(n for n in shape if n < 0)}: {list(shape)}",
                f"{op} counts {list(reps)} include a negative one; a count must be 0 or more "
                "(0 gives an empty result)",
            )
        )
    out, target = result_array(shape, t._dtype)
    if out.numel():
        # the result seen as (r0, s0, r1, s1, ...): every repetition block is the input, broadcast
        blocks = target.reshape(tuple(x for pair in zip(reps, padded) for x in pair))
        # (a source that is not row-major, a transpose's: first one blocked copy into row-major
        # memory, then the broadcast copy reads it in the destination's order; NumPy's broadcast
        # copy of the transposed source walked it a cache line per element, a (1024, 1024).t()
        # tile((2, 1)) 11 ms -> 2.5 ms. The same elements either way: only the visiting order.)
        src = row_major(t._np()).reshape(padded)
        np.copyto(blocks, src.reshape(tuple(x for s in padded for x in (1, s))))
    return copied(op, (t,), out, lambda: f"{op}: {len(reps)} repeat counts {list(reps)} written into new memory")


def _fast_repeat(t: Any, repeats: tuple) -> Tensor | None:
    """``t.repeat(*repeats)`` of a non-empty row-major tensor, the counts plain ints >= 0 (as
    varargs or one tuple / list), at least one per dim, nobody listening, a non-empty result:
    :func:`_repeat`'s one broadcast copy into a fresh row-major array, without its parsing and
    reporting steps (measured, thread CPU time, loaded 2-core Zen 4: (3, 4).repeat(2, 1) ~6.6 ->
    ~2 us; (1024, 1024) float32 ~217 -> ~205 us, the bare copy ~200); else None."""
    if len(repeats) == 1 and (repeats[0].__class__ is tuple or repeats[0].__class__ is list):
        repeats = tuple(repeats[0])
    for r in repeats:
        if r.__class__ is not int or r < 0:
            return None
    seen = _shaped_run(t)
    if seen is None or len(repeats) < len(seen[0].shape):
        return None
    src = seen[0]
    padded = (1,) * (len(repeats) - src.ndim) + src.shape
    shape = tuple([r * n for r, n in zip(repeats, padded)])
    info = _cinfo[shape]
    if not info[1]:
        return None
    flat = np.empty(info[1], src.dtype)
    np.copyto(flat.reshape(tuple([x for pair in zip(repeats, padded) for x in pair])),
              src.reshape(tuple([x for n in padded for x in (1, n)])))
    return adopted(flat, info[2], t._dtype)


@method("repeat")
def repeat(input: Tensor, *repeats: Any) -> Tensor:
    """The tensor repeated ``repeats[d]`` times along each dim (leading counts add dims), in new
    contiguous memory (``Tensor.repeat``).

    >>> strided.arange(2).repeat(2, 2).tolist()
    [[0, 1, 0, 1], [0, 1, 0, 1]]
    """
    fast = _fast_repeat(input, repeats)
    if fast is not None:
        return fast
    t = tensor_arg(input, "repeat")
    if len(repeats) == 1 and not isinstance(repeats[0], (int, np.integer)):
        reps = _int_seq(repeats[0], "repeat", "repeats", 1)
    else:
        reps = _int_seq(_varargs(repeats, "repeat", "repeats"), "repeat", "repeats", 1)
    return _repeat(t, reps, "repeat")


@method("tile")
def tile(input: Tensor, *dims: Any) -> Tensor:
    """``repeat`` with the counts padded by leading 1s to the tensor's number of dims (``torch.tile``).

    >>> strided.tile(strided.zeros(2, 3), (2,)).shape
    (2, 6)
    """
    t = tensor_arg(input, "tile")
    reps = _int_seq(_varargs(dims, "tile", "dims"), "tile", "dims", 1)
    ndim = len(t._layout.shape)
    if len(reps) < ndim:
        reps = (1,) * (ndim - len(reps)) + reps
    return _repeat(t, reps, "tile")


def _repeat_rule(input: Tensor, reps: tuple[int, ...]) -> Any:  # noqa: A002
    """RepeatBackward0 in PyTorch's steps (``repeat_backward``, so its sums' bits): the leading
    dims the repeat added summed one at a time (``sum(0)``), then the gradient seen as ``(r, s)``
    pairs for each dim repeated ``r > 1`` times (``s`` alone where ``r`` is 1) and summed over
    those ``r`` dims at once (one multi-dim sum over all the dims, as before, differed from
    PyTorch's in the last bits: test_attack42). A zero count: zeros."""
    shape = input._layout.shape
    lead = len(reps) - len(shape)
    sizes: list[int] = []
    summed: list[int] = []
    for r, s in zip(reps[lead:], shape):
        if r != 1:
            sizes.append(r)
            summed.append(len(sizes) - 1)
        sizes.append(s)

    def grad(g: Tensor) -> tuple:
        if all(r == 1 for r in reps):
            return (g.reshape(shape),)
        if 0 in reps:
            return (g.new_zeros(shape),)
        for _ in range(lead):
            g = g.sum(0)
        g = g.reshape(sizes)
        return (g.sum(summed) if summed else g,)

    return "RepeatBackward0", (input,), grad, ()


@backward("repeat")
def repeat_backward(out: Tensor, input: Tensor, *repeats: Any) -> Any:  # noqa: A002
    if len(repeats) == 1 and not isinstance(repeats[0], (int, np.integer)):
        return _repeat_rule(input, _int_seq(repeats[0], "repeat", "repeats", 1))
    return _repeat_rule(input, _int_seq(repeats, "repeat", "repeats", 1))


@backward("tile")
def tile_backward(out: Tensor, input: Tensor, *dims: Any) -> Any:  # noqa: A002
    """RepeatBackward0 (PyTorch's tile is a repeat with the counts padded by leading 1s)."""
    reps = _int_seq(dims[0] if len(dims) == 1 else dims, "tile", "dims", 1)
    ndim = len(input._layout.shape)
    return _repeat_rule(input, (1,) * (ndim - len(reps)) + reps)


# ---------------------------------------------------------------- repeat_interleave


def _counts(repeats: Any, size: int, d: int | None) -> np.ndarray | int:
    """``repeat_interleave``'s repeats: an int, or an int64 tensor of one count or one per element."""
    if isinstance(repeats, Tensor):
        lay = repeats._layout
        if len(lay.shape) > 1:
            raise StridedRuntimeError(
                join_lines("repeats must be 0-dim or 1-dim tensor",
                           f"repeats has shape {lay.shape}; flatten it or give one count per element")
            )
        if repeats._dtype.is_floating_point or repeats._dtype.is_complex or repeats._dtype.name == "bool":
            raise StridedNotImplementedError(
                join_lines(f"\"repeat_interleave_cpu\" not implemented for '{TORCH_NAMES[repeats._dtype]}'",
                           "repeats are counts: convert them, repeats.to(strided.int64)")
            )
        counts = repeats._np().reshape(-1).astype(np.int64)
        if counts.size == 1:
            counts = counts.reshape(())
        elif counts.size != size:
            where = f"input.size({d})" if d is not None else "input.size(0)"
            raise StridedRuntimeError(
                join_lines(
                    f"repeats must have the same size as input along dim, but got repeats.size(0) = "
                    f"{counts.size} and {where} = {size}",
                    "give one count per element along the dim, or a single count for all",
                )
            )
        if (counts < 0).any():
            raise StridedRuntimeError(join_lines("repeats can not be negative",
                                                 "every count must be 0 or more"))
        return counts if counts.ndim else int(counts)
    if isinstance(repeats, bool) or not isinstance(repeats, (int, np.integer)):
        raise StridedTypeError(
            join_lines(
                f"repeat_interleave() received an invalid combination of arguments - got "
                f"({type(repeats).__name__}), but expected one of:\n"
                " * (Tensor repeats, int dim = None, *, int output_size = None)\n"
                " * (int repeats, int dim = None, *, int output_size = None)",
                f"got repeats={repeats!r:.60}; pass an int or an integer tensor of counts",
            )
        )
    if repeats < 0:
        raise StridedRuntimeError(join_lines("Repeats must be non-negative",
                                             f"got repeats={repeats}; a count must be 0 or more"))
    return int(repeats)


def _fast_repeat_interleave(t: Any, repeats: int, dim: Any) -> Tensor | None:
    """``repeat_interleave(t, repeats, dim)`` for a positive int count on the fast path: one
    ``np.repeat`` of the flat run (seen in its shape along a plain int ``dim``), its fresh row-major
    result adopted; else None."""
    seen = _shaped_run(t)
    if seen is None:
        return None
    array, info = seen
    if dim is None:
        flat = np.repeat(array.reshape(-1), repeats)
        return adopted(flat, _cinfo[flat.shape][2], t._dtype)
    wrapped = _plain_dims(dim, array.ndim) if dim.__class__ is int else None
    if wrapped is None:
        return None
    d = wrapped[0]
    shape = info[2].shape
    out_shape = shape[:d] + (shape[d] * repeats,) + shape[d + 1:]
    return adopted(np.repeat(array, repeats, axis=d).reshape(-1), _cinfo[out_shape][2], t._dtype)


# repeat_interleave's general path: a repeat count up to this is written one strided copy per
# repeat, from a source of at least _BLOCKED_ELEMENTS (smaller ones: one broadcast copy, as before)
_FEW_REPEATS = 8
_BLOCKED_ELEMENTS = 1 << 12

_COUNTS_ONLY: Any = object()  # (repeat_interleave(counts): no repeats given, as PyTorch's second form)


def repeat_interleave(input: Tensor, repeats: Any = _COUNTS_ONLY, dim: int | None = None, *,
                      output_size: int | None = None) -> Tensor:
    """Each element repeated ``repeats`` times (an int, or a count per element along ``dim``) in
    place along ``dim`` (the flattened tensor when ``dim`` is None), in new memory
    (``torch.repeat_interleave``). ``repeat_interleave(counts)`` alone repeats each index ``i``
    ``counts[i]`` times.

    >>> strided.repeat_interleave(strided.tensor([1, 2]), 2).tolist()
    [1, 1, 2, 2]
    """
    if repeats.__class__ is int and repeats > 0 and output_size is None:
        fast = _fast_repeat_interleave(input, repeats, dim)
        if fast is not None:
            return fast
    t = tensor_arg(input, "repeat_interleave")
    if repeats is None:  # (None is no count: PyTorch refuses it too, rather than reading the other form)
        raise StridedTypeError(
            join_lines("repeat_interleave() received an invalid combination of arguments - got (Tensor, NoneType), "
                       "but expected (Tensor input, Tensor repeats, int dim = None) or (Tensor input, int repeats, "
                       "int dim = None) or (Tensor repeats)",
                       "pass the counts: strided.repeat_interleave(t, 2), or the counts alone: "
                       "strided.repeat_interleave(counts)"))
    if repeats is _COUNTS_ONLY:  # torch.repeat_interleave(repeats): the indices, each repeated
        counts = _counts(t, L.product(t._layout.shape), None)
        n = L.product(t._layout.shape)
        data = np.repeat(np.arange(n, dtype=np.int64), counts)
        out, target = result_array((data.size,), int64)
        target[...] = data
        return copied("repeat_interleave", (t,), out, "repeat_interleave: indices repeated into new memory")
    lay = t._layout
    if dim is None:
        d = None
        size = L.product(lay.shape)
    else:
        dim = dim_int(dim, "repeat_interleave")
        if not lay.shape:
            # PyTorch reads a 0-d input's dim against a 1-D view of it, and reports dim 1
            raise StridedIndexError(
                join_lines("Dimension out of range (expected to be in range of [-1, 0], but got 1)",
                           "the tensor is 0-d; leave dim out to repeat its one element: t.repeat_interleave(n)")
            )
        d = L.wrap_dim(dim, len(lay.shape))
        size = lay.shape[d]
    counts = _counts(repeats, size, d)
    total = size * counts if isinstance(counts, int) else int(counts.sum())
    if output_size is not None and output_size != total:
        if isinstance(counts, int):
            raise StridedRuntimeError(
                join_lines(f"repeat_interleave: Invalid output_size, expected {total} but got {output_size}",
                           f"{size} elements each repeated {counts} times make {total}")
            )
        raise StridedRuntimeError(
            join_lines("allocated size does not match required size",
                       f"the counts add up to {total} but output_size is {output_size}")
        )
    src = row_major(t._np())  # (NumPy's reshape copy of a transposed source is 5x slower)
    if d is None:
        src = src.reshape(-1)
        shape: tuple[int, ...] = (total,)
        axis = 0
    else:
        shape = lay.shape[:d] + (total,) + lay.shape[d + 1:]
        axis = d
    out, target = result_array(shape, t._dtype)
    if out.numel():
        if isinstance(counts, int):
            view = target.reshape(shape[:axis] + (size, counts) + shape[axis + 1:])
            if counts <= _FEW_REPEATS and src.size >= _BLOCKED_ELEMENTS:
                # one strided copy per repeat: NumPy's broadcast copy below runs an inner loop
                # of `counts` elements when the repeat axis is innermost (5x slower at 2^20)
                lead = (slice(None),) * (axis + 1)
                for k in range(counts):
                    view[lead + (k,)] = src
            else:
                # each element broadcast over a new axis of length counts: one copy, no index array
                np.copyto(view, np.expand_dims(src, axis + 1))
        else:
            np.take(src, np.repeat(np.arange(size), counts), axis=axis, out=target)
    return copied("repeat_interleave", (t,), out,
                  lambda: f"repeat_interleave: elements repeated along "
                  f"{'the flattened tensor' if d is None else f'dim {d}'} into new memory")


@method("repeat_interleave")
def _repeat_interleave_method(self: Tensor, repeats: Any = None, dim: int | None = None, *,
                              output_size: int | None = None) -> Tensor:
    """``repeat_interleave(self, repeats, dim)``: each element repeated ``repeats`` times.

    >>> strided.tensor([1, 2]).repeat_interleave(2).tolist()
    [1, 1, 2, 2]
    """
    if repeats is None:
        raise StridedTypeError(
            join_lines('repeat_interleave() missing 1 required positional arguments: "repeats"',
                       "pass the counts: t.repeat_interleave(2) or t.repeat_interleave(counts, dim=0)")
        )
    return repeat_interleave(self, repeats, dim, output_size=output_size)


@backward("repeat_interleave")
def repeat_interleave_backward(out: Tensor, input: Tensor, repeats: Any = _COUNTS_ONLY,  # noqa: A002
                               dim: int | None = None, *, output_size: int | None = None) -> Any:
    """One count for all: the gradient seen as ``(..., size, count, ...)`` summed over the count
    (PyTorch records ViewBackward0 over its expand and clone); counts per element:
    IndexSelectBackward0, each element's repeats summed (``index_add``)."""
    if out._ag is not None or repeats is _COUNTS_ONLY or repeats is None:
        return None  # (the method form: the function it calls recorded the node; the counts-only form)
    shape = input._layout.shape
    if dim is None:
        d, size = 0, L.product(shape)
        flat = (size,)
    else:
        d = L.wrap_dim(dim_int(dim, "repeat_interleave"), len(shape))
        size, flat = shape[d], shape
    counts = _counts(repeats, size, None if dim is None else d)
    if isinstance(counts, int):
        split = flat[:d] + (size, counts) + flat[d + 1:]
        # (a sum of g's elements: the same formula in PyTorch's convention for complex gradients)
        return "ViewBackward0", (input,), in_pytorch_convention(lambda g: (g.reshape(split).sum(d + 1).reshape(shape),)), ()
    from ..indexing.index_ops import index_add_

    positions = np.repeat(np.arange(size, dtype=np.int64), counts)

    def grad(g: Tensor) -> tuple:
        z = grad_zeros(flat, g._dtype)
        index = result_array(positions.shape, int64)[0]
        index._np()[...] = positions
        return (index_add_(z, d, index, g).reshape(shape),)

    return "IndexSelectBackward0", (input,), grad, ()  # (IndexSelectBackward0: REAL_LINEAR)


seal(globals())  # (last: this module's ops with a backward rule become their recording entries)
# the kinds of this module's ops, in the op registry (after the seal: the forwards are the entries)
declare(Kind.COPY, "flip fliplr flipud roll rot90 tile repeat_interleave repeat")
