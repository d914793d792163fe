"""Kernels: the only code that touches element data.

A kernel builds a NumPy view of a storage for a layout (element strides times
the itemsize become byte strides) and lets NumPy do the work. Inputs are read
in place whatever their strides: permuted, sliced, negative-step and stride-0
expanded views are never copied to make a kernel convenient.

Every materialization (a new storage filled from existing data) goes through
:func:`copy_to_new`, so the copy ledger (:func:`record_copies`) sees all of them;
every fresh, not-yet-filled storage comes from :func:`new_storage`.

This module is the memory part of the kernels: views over storage, allocation,
the copy function and its ledger, checked writes, and growing a storage.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..callsite import user_site
from ..errors import StridedRuntimeError, join_lines
from ..layout import (
    INT64_MAX,
    Layout,
    check_layout,
    contiguous_strides,
    has_internal_overlap,
    is_non_overlapping_and_dense,
    overlaps,
    product,
    without_repeats,
)
from ..layout.core import may_share_elements
from ..lazy_names import function_on_first_call
from ..messages import overlapping_write
from ..storage import Storage, allocate
from . import blocked, native
from .bf16_casts import copy_nans, is_bf16, is_float_source, narrow_into
from .blocked import copy_into
from .fill import FILL_MIN, fill_dense
from .fpstate import quiet
from .listeners import OPEN, Listening, OpRecord, _listeners, emit, listening

# (PyTorch's index-loop walks: loaded on the first overlapping or racing write; see strided.lazy_names.function_on_first_call)
addresses = function_on_first_call("strided.kernels.torch_index_loops", "addresses", globals())

# (the walk of overlapping writes, loaded on the first such write)
last_writes = function_on_first_call("strided.kernels.torch_overlap_writes", "last_writes", globals())

_ndarray = np.ndarray


def numpy_view(storage: Storage, layout: Layout) -> np.ndarray:
    """A NumPy array over ``storage`` laid out as ``layout`` (zero-copy, writable if the storage is).

    On every kernel's path, so it does the least Python work it can: NumPy's own
    checks run first, and only a layout NumPy refuses takes :func:`_numpy_view_refused`.
    Never raises NumPy's ValueError: a layout NumPy cannot represent is a StridedRuntimeError.
    """
    arr = storage.array
    shape = layout.shape
    isz = arr.itemsize
    key = (shape, layout.strides, isz)
    plan = _view_plans.get(key)
    if plan is None:
        plan = _view_plan(key)
    if plan.__class__ is int:  # row-major: a slice of the buffer, reshaped (cheaper than building the view)
        start = layout.offset
        flat = arr if start == 0 and arr.shape[0] == plan else arr[start : start + plan]
        if flat.shape[0] == plan:  # (else past the buffer: the general construction explains it)
            return flat.reshape(shape)
        plan = tuple([s * isz for s in layout.strides])
    off = layout.offset * isz
    if off and 0 in shape:
        off = 0  # an empty layout addresses nothing; its offset may sit past the buffer's end
    elif not arr.size and 0 not in shape:
        raise outside_storage(arr, layout)  # (NumPy checks no bounds on a 0-byte buffer)
    try:
        return _ndarray(shape, arr.dtype, arr, off, plan)
    except ValueError:  # try costs nothing when nothing is raised
        return _numpy_view_refused(arr, layout, off)


# (shape, strides, itemsize) -> how :func:`numpy_view` builds the view: the element count (an
# int) when the strides are the shape's row-major ones and it has elements (a reshaped slice of
# the buffer), else the strides in bytes (NumPy's constructor). Programs view a few layouts many
# times; bounded (cleared when full). Threads may race on it harmlessly: an entry is a pure
# function of its key.
_view_plans: dict[tuple[tuple[int, ...], tuple[int, ...], int], Any] = {}


def _view_plan(key: tuple[tuple[int, ...], tuple[int, ...], int]) -> Any:
    shape, strides, isz = key
    n = product(shape)
    plan = n if n and strides == contiguous_strides(shape) else tuple([s * isz for s in strides])
    if len(_view_plans) >= 4096:
        _view_plans.clear()
    _view_plans[key] = plan
    return plan


def _numpy_view_refused(arr: np.ndarray, layout: Layout, off: int) -> np.ndarray:
    """The view NumPy refused, with the strides no element uses set to 0; else why it cannot be.

    A dim of size 0 or 1 never multiplies its stride by anything but 0 (and an empty
    layout uses no stride), so such a stride may be beyond what NumPy's byte strides
    hold (``t[::2**62]``) and is given as 0. What NumPy still refuses (more elements or
    bytes than it counts, as a huge expanded tensor has) is explained, not passed on raw.
    """
    isz = arr.itemsize
    shape = layout.shape
    empty = 0 in shape
    strides = tuple(0 if empty or n <= 1 else s * isz for n, s in zip(shape, layout.strides))
    try:
        return _ndarray(shape, arr.dtype, arr, off, strides)
    except ValueError as err:
        if not empty and (layout.offset + sum((n - 1) * s for n, s in zip(shape, layout.strides) if s > 0)
                          >= arr.shape[0]):
            raise outside_storage(arr, layout) from None  # (only a tensor unpickled past its storage)
        numel = product(shape)
        raise StridedRuntimeError(
            join_lines(
                f"the tensor of shape {shape} and strides {layout.strides} cannot be computed "
                f"with NumPy ({err})",
                f"it has {len(shape)} dims and {numel} elements of {isz} bytes "
                f"({numel * isz} bytes); a NumPy array has at most 64 dims and "
                f"{INT64_MAX} bytes, and it counts every repeated (stride-0) element",
                "fix: compute on a part of it (slicing, narrow, select), or on the tensor "
                "before expand (stride-0 dims repeat the same memory)",
            )
        ) from None


def outside_storage(array: np.ndarray, layout: Layout) -> StridedRuntimeError:
    """The error for a ``layout`` that reaches past a storage's ``array`` (PyTorch's ``setStorage: ... out of
    bounds`` line, from :func:`strided.layout.check_layout`).

    No op or view builds such a layout and unpickling refuses one (:mod:`strided.pickled`); the
    kernels that read a flat run of a storage without a NumPy bounds check call this when the
    run comes up short, so that even a tensor that got past those never reads outside its buffer.
    """
    try:
        check_layout(layout.shape, layout.strides, layout.offset, array.shape[0], array.itemsize)
    except StridedRuntimeError as err:
        return err
    return StridedRuntimeError(  # (not reached: a layout within its storage has its whole run there)
        f"the layout {layout} reaches past its storage of {array.shape[0]} elements"
    )


def flat_run(t: Any, info: tuple) -> Any:
    """The flat run of tensor ``t``'s storage (a NumPy array of ``info[1]`` elements, no copy) when
    ``t`` is row-major (``info``: its shape's row-major strides and element count, as
    ``ops._support.operands._cinfo`` keeps them), else None; None too for a tensor unpickled past
    its storage (the general paths refuse it with their error)."""
    lay = t._layout
    if lay.strides != info[0]:
        return None
    n = info[1]
    arr = t._storage.array
    if lay.offset or len(arr) != n:
        arr = arr[lay.offset : lay.offset + n]
        if len(arr) != n:
            return None
    return arr


def row_major_elements(t: Any, info: tuple) -> np.ndarray | None:
    """Tensor ``t``'s elements in row-major order as one flat NumPy array for a kernel to read:
    its storage's own run (:func:`flat_run`, no copy) where ``t`` is row-major, else a row-major
    temporary made by the blocked copy (:func:`blocked.row_major`) where ``t`` holds at least
    :data:`blocked.ROW_MAJOR_MIN` elements; None where ``t`` has no element, or is another layout
    smaller than that (the caller's general path is as cheap there). ``info`` is as for
    :func:`flat_run`. The temporary is not reported to the copy ledger (as the NumPy copy it
    replaces in the general paths)."""
    x = flat_run(t, info)
    if x is not None:
        return x if info[1] else None
    if info[1] < blocked.ROW_MAJOR_MIN:
        return None
    return blocked.row_major(t._np()).reshape(-1)


def dense_run(t: Any, numel: int) -> tuple[np.ndarray, Layout] | None:
    """The storage run of tensor ``t`` (``numel`` elements, no copy) in memory order, and the
    layout of ``t``'s shape and strides at offset 0, where ``t`` is permuted dense: every dim of
    size >= 2 and its strides a permutation of row-major ones (a transpose); else None (None too
    for a tensor unpickled past its storage).

    An elementwise op of one such operand lays its output out with the operand's strides
    (TensorIterator; empty_like's preserve_format too), so its kernel may run over this run in
    order and the result take that layout: the order of visits differs, never a value."""
    lay = t._layout
    layout = dense_layout(lay.shape, lay.strides)
    if layout is None:
        return None
    run = t._storage.array[lay.offset: lay.offset + numel]
    if len(run) != numel:
        return None
    return run, layout


def dense_layout(shape: tuple[int, ...], strides: tuple[int, ...]) -> Layout | None:
    """The layout ``(shape, strides, 0)`` where it is permuted dense (every dim of size >= 2, the
    strides a permutation of row-major ones), else None; remembered per (shape, strides)."""
    key = (shape, strides)
    layout = _DENSE.get(key, False)
    if layout is False:
        layout = None
        if len(shape) >= 2 and min(shape) >= 2 and is_non_overlapping_and_dense(shape, strides):
            layout = Layout._trusted(shape, strides, 0)
        if len(_DENSE) < 256:
            _DENSE[key] = layout
    return layout


# (shape, strides) -> dense_layout's answer (None: not permuted dense); a loop asks again
_DENSE: dict[tuple[tuple[int, ...], tuple[int, ...]], Layout | None] = {}


def tensor_view(t: Any) -> np.ndarray:
    """:func:`numpy_view` of a tensor's storage and layout."""
    return numpy_view(t._storage, t._layout)


# ---------------------------------------------------------------- the copy ledger


@dataclass(frozen=True)
class CopyRecord:
    """One materialization: how many bytes, why, of what, and the user code that asked.

    ``reason`` is the sentence; ``why`` the plan's value behind it where a plan decided the copy
    (a :class:`~strided.layout.ReshapeRefusal`, ``NotContiguous``, ``CopyRequested``, ...), else None.

    >>> with strided.record_copies() as copies:
    ...     y = strided.zeros(2, 3).t().contiguous()
    >>> copies[0].nbytes, copies[0].shape
    (24, (3, 2))
    """

    nbytes: int
    reason: str
    shape: tuple[int, ...]
    dtype: str
    where: str
    why: Any = None


class _Ledger(list):
    """A ``record_copies`` ledger: a list of :class:`CopyRecord`, and the listener that fills it."""

    __slots__ = ()
    __hash__ = object.__hash__  # (listeners are matched by identity)

    def __call__(self, record: OpRecord) -> None:
        if record.kind == "copy":
            self.append(CopyRecord(record.nbytes, record.plan, record.shape, str(record.dtype), record.where,
                                   record.why))


# The listeners open in this context, innermost last (the ledgers of open record_copies blocks
# among them): see :mod:`.listeners`. The name is the ledger's, which it generalises.
_ledgers = _listeners


def record_copies() -> Listening:
    """Collect a :class:`CopyRecord` for every copy strided makes inside the block.

    The block belongs to its thread or asyncio task (a ``contextvars`` context): copies
    made by other threads are not recorded. In nested blocks a copy goes to every open
    ledger (inner and outer); after the inner block ends, to the outer one only. The ledger
    is one listener of the op records (:func:`strided.dispatch.listen`) that keeps the copies.
    The block (a :class:`~strided.kernels.listeners.Listening`, whose ``as`` target is the ledger)
    is entered once and exited once, by the thread that entered it: another thread's exit, or a
    second one, raises RuntimeError and leaves the block for the entering thread to close.

    >>> x = strided.ones(2, 3)
    >>> with record_copies() as copies:
    ...     y = x.permute(1, 0).reshape(-1)
    >>> copies[0].nbytes, copies[0].reason
    (24, 'reshape(6): dims 0 and 1 cannot merge: stride[0] == size[1] * stride[1] = 2 * 3 = 6, but stride[0] is 1')
    """
    return listening(_Ledger(), "strided.record_copies()")


def new_storage(numel: int, dtype: np.dtype, shape: tuple[int, ...] | None = None) -> Storage:
    """THE allocation: a fresh, uninitialized storage of ``numel`` elements of ``dtype``.

    ``shape`` only feeds the error message (PyTorch's RuntimeError when the memory
    cannot be had). Nothing is copied, so the copy ledger is not told.
    """
    storage = _new_object(Storage)  # (np.empty's array is 1-D, contiguous and ours: Storage's checks hold)
    storage.array = allocate(numel, dtype, shape)
    storage._pinned = None  # resizable: strided owns the new buffer
    return storage


_new_object = object.__new__


def adopt(array: np.ndarray) -> Storage:
    """A storage over ``array``, a fresh 1-D C-contiguous result a kernel just computed.

    The small-op fast paths' allocation (NumPy allocated the ufunc's result): nothing is
    copied, so the ledger is not told. No checks, unlike ``Storage(array)`` (about 0.2 µs
    of a 1 µs op): the caller guarantees the array is 1-D, contiguous and owned by nobody else.
    """
    storage = _new_object(Storage)
    storage.array = array
    storage._pinned = None  # resizable: strided owns the new buffer
    return storage


def copy_to_new(
    source: np.ndarray,
    strides: tuple[int, ...],
    dtype: np.dtype,
    reason: str | Callable[[], str],
    capacity: int | None = None,
    report: bool = True,
    why: Any = None,
) -> Storage:
    """THE copy: a new storage holding ``source`` laid out with dense ``strides``.

    ``strides`` (in elements) must describe a non-overlapping, dense layout of
    ``source.shape`` starting at offset 0; the new storage holds exactly
    ``source.size`` elements, or ``capacity`` (>= that) with the rest left
    uninitialized. Values are cast to ``dtype`` (unsafe casting, as
    PyTorch's ``to`` does). Listeners get the bytes written, ``reason`` (a string, or a
    function rendering it, called only when someone listens), the plan's ``why`` value when a
    plan decided the copy, and the user's ``file:line``; ``report=False`` leaves the report to
    the caller (:func:`strided.dispatch.copy_of`, which knows the tensors).
    """
    buffer = None
    if capacity is None and source.__class__ is _ndarray:
        nbytes = source.nbytes
        if 0 < nbytes < native.MIN_BYTES and nbytes < blocked.MIN_BYTES and (
                source.dtype is dtype or source.dtype == dtype):
            key = (source.shape, strides)
            order = _flat_orders.get(key, False)
            if order is False:
                if len(_flat_orders) >= 4096:  # (bounded as _view_plans is)
                    _flat_orders.clear()
                order = _flat_orders[key] = _flat_order(*key)
            if order is not None:
                # too small to block (copy_into's limits), same dtype, written row- or column-major:
                # NumPy's flatten is the whole copy, in one call (empty + strided view + copyto: ~2 µs)
                buffer = source.flatten(order)
    numel = product(source.shape)
    if buffer is None:
        buffer = allocate(numel if capacity is None else capacity, dtype,
                          tuple(source.shape) if capacity is None else (capacity,))
        if numel:
            itemsize = buffer.itemsize
            dest = _ndarray(source.shape, dtype, buffer=buffer, offset=0,
                            strides=tuple([s * itemsize for s in strides]))
            if source.__class__ is _ndarray and source.dtype == dtype:
                copy_into(dest, source)  # (no cast: nothing to warn about, nothing to convert first)
            else:
                with quiet():  # casts wrap or saturate silently, as in PyTorch
                    _copy_values(dest, source)
    if OPEN and report and _listeners.get():
        # a copy no tensor holds (a snapshot, a grown storage): the shape and dtype stand in
        reason = reason if reason.__class__ is str else reason()  # rendered only when reported
        emit("copy", "copy", (), None, reason, numel * buffer.itemsize, tuple(source.shape), dtype, why=why)
    return adopt(buffer)


_flat_orders: dict[tuple, str | None] = {}  # (shape, strides) -> _flat_order's answer (layouts repeat)


def _flat_order(shape: tuple[int, ...], strides: tuple[int, ...]) -> str | None:
    """"C" when dense ``strides`` (in elements) place ``shape``'s elements in row-major order,
    "F" for column-major, None otherwise (size-1 dims address nothing and are skipped)."""
    expected = 1
    for d in range(len(shape) - 1, -1, -1):
        size = shape[d]
        if size != 1:
            if strides[d] != expected:
                break
            expected *= size
    else:
        return "C"
    expected = 1
    for d in range(len(shape)):
        size = shape[d]
        if size != 1:
            if strides[d] != expected:
                return None
            expected *= size
    return "F"


def _copy_values(dest: np.ndarray, source: np.ndarray) -> None:
    """``dest[...] = source`` (unsafe casting) into new memory, in strips when the two memory orders
    disagree (:func:`strided.kernels.blocked.copy_into`). float32/float64 into bfloat16: PyTorch's
    NaN words (:mod:`strided.kernels.bf16_casts`; one row in memory order by its compiled
    conversion)."""
    if dest.dtype.kind == "V" and is_bf16(dest.dtype) and source.__class__ is _ndarray and is_float_source(source):
        if not narrow_into(dest, source):
            copy_into(dest, _real_for(dest, source))
            copy_nans(dest, source)
        return
    copy_into(dest, _real_for(dest, source))


def _real_for(dest: np.ndarray, source: Any) -> Any:
    """A complex ``source`` written into a real (not bool) ``dest``: its real parts, with PyTorch's
    warning (NumPy would warn with its own ComplexWarning); then through
    :func:`reduced_cast_source`."""
    if isinstance(source, (np.ndarray, np.generic)) and source.dtype.kind == "c" and dest.dtype.kind not in "cb":
        warnings.warn("Casting complex values to real discards the imaginary part", UserWarning, stacklevel=user_site()[1])
        source = source.real
    return reduced_cast_source(dest.dtype, source)


def reduced_cast_source(dest: np.dtype, source: Any) -> Any:
    """``source`` as PyTorch converts it to a 2-byte float or from bfloat16 (a NumPy array or
    scalar; anything else as it is). PyTorch goes through float32, where NumPy and ml_dtypes
    round once:

    - float64 -> float16 or bfloat16: PyTorch rounds to float32 first, then to the 2-byte float
      (c10::Half and c10::BFloat16 are made from a float: 1 + 2**-8 + 2**-30 is bfloat16 1.0
      there, 1.0078125 rounded once);
    - int32 or int64 -> bfloat16: PyTorch rounds to float32 first (2**24 + 2**16 + 1 is
      bfloat16 2**24 there, 2**24 + 2**17 rounded once); int -> float16 needs no care (every int
      float16 holds is exact in float32, the others are inf either way);
    - bfloat16 -> int: ml_dtypes gives 0 for NaN, inf and any value out of the target's range
      (300 -> int8 is 0); PyTorch converts from float (x86: INT_MIN for NaN/inf, then wraps to
      the narrow type), as NumPy's float32 -> int does. bfloat16 -> float32 is exact.

    >>> import ml_dtypes
    >>> float(reduced_cast_source(np.dtype(ml_dtypes.bfloat16), np.array(1 + 2**-8 + 2**-30)))
    1.00390625
    """
    dtype = getattr(source, "dtype", None)
    if dtype is None:
        return source
    # (the cheap tests first: a dtype's .name is a Python property, slow on every write)
    kind = dtype.kind
    if (kind in "fc" and dest.itemsize == 2 and dtype.itemsize > 4 + 4 * (kind == "c")
            and dest.name in ("bfloat16", "float16")):
        return source.astype(np.float32 if kind == "f" else np.complex64)
    if kind == "V" and dest.kind in "iu" and dtype.name == "bfloat16":
        return source.astype(np.float32)
    if kind in "iu" and dtype.itemsize >= 4 and dest.itemsize == 2 and dest.name == "bfloat16":
        return source.astype(np.float32)  # (int32/int64 beyond 2**24 round twice in PyTorch)
    return source


def copy_array(source: np.ndarray, reason: str, dtype: np.dtype | None = None) -> np.ndarray:
    """A C-contiguous NumPy copy of ``source`` (cast to ``dtype``), made by :func:`copy_to_new`.

    For kernels that need a NumPy array they own (a snapshot, a contiguous operand
    NumPy insists on, ``__array__(copy=True)``): the copy is recorded in the ledger.
    """
    dtype = source.dtype if dtype is None else np.dtype(dtype)
    shape = tuple(source.shape)
    storage = copy_to_new(source, contiguous_strides(shape), dtype, reason)
    return storage.array.reshape(shape)


def grow_storage(storage: Storage, n: int) -> None:
    """Reallocate ``storage`` to hold ``n`` elements, keeping the old ones (new ones uninitialized).

    Every tensor sharing the storage sees the new buffer. The old elements move
    through :func:`copy_to_new`, so the ledger records them.
    """
    old = storage.array
    if n <= old.shape[0]:
        return
    storage.check_resizable(n)
    grown = copy_to_new(old, (1,), old.dtype, f"resize_ grew storage to {n} elements", capacity=n)
    storage.array = grown.array


def check_writable(
    storage: Storage, layout: Layout, op: str, aliasing_ok: bool = False, updates: bool = False
) -> None:
    """Refuse a write where two elements of ``layout`` share one memory location, or into
    read-only memory.

    ``aliasing_ok``: filling with one number, which PyTorch allows anywhere. Otherwise an
    expanded (stride-0) target is refused, as in PyTorch; and with ``updates`` (an in-place op
    that reads each element and writes it back, ``add_``), so is any target whose elements are
    known to overlap, where the result would depend on the order of the updates.
    """
    if not aliasing_ok and (
        has_internal_overlap(layout.shape, layout.strides)
        or (updates and elements_overlap(layout.shape, layout.strides))
    ):
        dims = [d for d, (n, s) in enumerate(zip(layout.shape, layout.strides)) if n > 1 and s == 0]
        raise overlapping_write(layout, dims, op)
    if not storage.array.flags.writeable:
        raise StridedRuntimeError(
            join_lines(
                f"{op}: the tensor's memory is read-only",
                "it shares memory its owner lent read-only: a NumPy array that is not writeable "
                "(strided.from_numpy, as_tensor, asarray) or a DLPack export marked read-only (from_dlpack)",
                "fix: write into a copy (t.clone()) or make the source writeable",
            )
        )


@functools.lru_cache(maxsize=1024)
def elements_overlap(shape: tuple[int, ...], strides: tuple[int, ...]) -> bool:
    """Whether two elements of the layout are known to share memory (cached: on every in-place op).

    # Note: PyTorch refuses only stride-0 aliasing and lets other overlapping layouts (the
    # windows of ``unfold(0, 2, 1)``, some ``as_strided``) through as "too hard": an in-place
    # op then updates a shared location once per element that reaches it, in its loop order
    # (``arange(4.).unfold(0, 2, 1).add_(1)`` adds 2 to the middle elements). For in-place
    # updates we refuse every overlap we can establish (``layout.overlaps``); only layouts too
    # large to list (``overlaps`` answers None) are let through, as in PyTorch. Plain writes
    # (copy_, t[...] = v) stay as in PyTorch: each location gets one of its values.
    """
    if has_internal_overlap(shape, strides):
        return True
    found = overlaps(shape, strides)
    return _listed_overlap(shape, strides) if found is None else found


# The most elements whose storage positions :func:`_listed_overlap` lists (8M int64 addresses:
# 64 MB); beyond it a layout too large to decide is let through, as PyTorch lets it.
LISTED_MAX = 1 << 23


def _listed_overlap(shape: tuple[int, ...], strides: tuple[int, ...]) -> bool:
    """Whether two elements of a layout whose dims do not nest, too large for
    :func:`~strided.layout.overlaps`' set, share a location: its positions listed with NumPy
    (an unfold of 40000 windows updated in place is PyTorch's updates in its order, not NumPy's
    one update per location). False beyond ``LISTED_MAX`` elements (not decided)."""
    numel = 1
    for n in shape:
        numel *= n
    if numel > LISTED_MAX:
        return False
    return bool(np.unique(addresses(shape, strides, 0).ravel()).size < numel)


def write_plain_loop(storage: Storage, layout: Layout, value: np.ndarray, inputs: list[list[int]] | None) -> None:
    """An ``out=`` op's result ``value`` (of ``layout.shape``) into ``out``, whose elements share
    memory without a stride-0 dim: each location keeps the value PyTorch's loop writes there last,
    the loop ordered by ``out``'s strides, then its ``inputs``' (each over the shape, 0 where
    broadcast; None: ``value``'s own, a copy's); racing threads refused past the grain
    (:func:`.torch_overlap_writes.walk_survivors`).
    For ops whose loop writes each element once from inputs that do not share ``out``'s memory."""
    dest = numpy_view(storage, layout)
    with quiet():
        positions, values = last_writes(layout, value, lambda walked: _cast_for(dest, walked), inputs)
        storage.array[positions] = values


def _write_in_torch_order(storage: Storage, dest: np.ndarray, layout: Layout, value: np.ndarray) -> None:
    """An array into a destination (``dest``: its NumPy view) whose elements may share memory:
    each location gets the value PyTorch's walk writes there last (:mod:`.torch_overlap_writes`),
    read before anything is written (an overlapping source is read as it was).

    ``value`` goes in as given and is cast on the walk: PyTorch orders the walk by the source's
    own strides, which a cast first (:func:`reduced_cast_source`'s float32 step) would make dense
    where the source is expanded; and its threads race only where the values cast differ."""
    with quiet():
        positions, values = last_writes(layout, value, lambda walked: _cast_for(dest, walked))
        storage.array[positions] = values


def _cast_for(dest: np.ndarray, source: np.ndarray) -> np.ndarray:
    """``source`` as written into ``dest``: in its dtype, converted as PyTorch converts."""
    return _real_for(dest, source).astype(dest.dtype, casting="unsafe")


def write(storage: Storage, layout: Layout, value: np.ndarray | object) -> None:
    """Write ``value`` (already broadcastable to ``layout.shape``) into the storage.

    A destination whose elements share memory without a stride-0 dim (``unfold`` windows) and an
    array of several values: each shared location keeps PyTorch's last write
    (:func:`_write_in_torch_order`; racing threads refused past the grain).
    A ``value`` that overlaps the destination is read as it was before the write:
    NumPy buffers such a source itself, except for a 1-d destination walking the
    same way as the source (it copies forward and trusts that to be safe, which it
    is not when the destination's stride is the larger), so that case is buffered here.
    """
    if 0 in layout.strides and np.ndim(value) == 0:
        # one value into stride-0 (repeated) elements: write each memory location once,
        # so a huge expanded tensor fills as PyTorch fills it
        layout = without_repeats(layout)
    dest = numpy_view(storage, layout)
    if not dest.flags.forc and value.__class__ is np.ndarray and value.size > 1 and may_share_elements(layout.shape, layout.strides):
        _write_in_torch_order(storage, dest, layout, value)
        return
    if dest.ndim == 1 and isinstance(value, np.ndarray) and value.ndim and np.may_share_memory(dest, value):
        value = copy_array(value, "write: the source overlaps the 1-d destination (read before writing)")
    with quiet():
        value = _real_for(dest, value)
        # (from the smaller of the two blocked copies' thresholds: the compiled kernel's, the strips')
        least = min(blocked.MIN_BYTES, native.MIN_BYTES)
        if dest.size >= FILL_MIN and np.ndim(value) == 0 and fill_dense(dest, value):
            return  # (one value into a dense run: the compiled store loop, np.copyto's bytes)
        if dest.nbytes >= least and not (isinstance(value, np.ndarray) and np.may_share_memory(dest, value)):
            copy_into(dest, value)  # in strips when the memory orders disagree
        else:
            # (an overlapping source takes the one call, where NumPy reads it before writing)
            np.copyto(dest, value, casting="unsafe")
