"""The op boundary: THE allocator of fresh results, and the op records listeners receive.

Every tensor an op makes is built here: :func:`result` (fresh, uninitialized, dense memory),
:func:`result_array` (the same, with the NumPy array kernels write into), :func:`adopted`
(an array NumPy just computed becomes the result's storage: the small-op fast paths, which
inline its five lines where a call would cost them; :func:`adopted` is the one spelling),
:func:`borrowed` (``from_numpy``'s zero-copy wrap), :func:`copy_of` (a tensor's data copied
into new dense memory) and :func:`view_of` (a new layout over the same storage). Besides these,
only ``Tensor._view`` (a view's own constructor, on the view hot path) and the explainers'
memory-free stand-ins (:func:`strided.diagnose.explain_torch.shadow`, the dtype probes of
:mod:`strided.diagnose.explain_broadcast`) build a ``Tensor`` object.

Every op reports an :class:`OpRecord` (name, kind "view" / "copy" / "compute" / "alloc", inputs, output,
plan or reason, the user's ``file:line``) to the listeners open in this thread or task
(:func:`listen`); ``record_copies`` is one such listener. When nobody listens the report costs
one truth test (``if OPEN:``), the copy ledger's old price.

It sits below :mod:`strided.tensor` (imports layout, kernels, storage and ground only): the
tensor layer hands it the class it builds (:func:`install`).
"""

from __future__ import annotations

import _thread  # (threading's primitives, without importing threading: ~0.6 ms of the import)
import math
import sys
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from . import layout as L
from .callsite import PACKAGE_DIR
from .dtypes import DType, from_numpy_dtype
from .errors import StridedRuntimeError, StridedTypeError, join_lines
from .kernels.fpstate import QUIET, quiet_reset, quiet_set
from .kernels.listeners import OPEN, Listener, Listening, OpRecord, emit, listeners, listening
from .kernels.memory import adopt, copy_to_new, new_storage, numpy_view, reduced_cast_source
from .kernels.native import _compiled
from .layout import Layout
from .storage import _BORROWED, Storage, allocate

__all__ = [
    "OPEN", "DataFree", "OpRecord", "adopted", "borrowed", "copied", "copy_array_of", "copy_of", "created", "data_free",
    "install", "listen", "materialize",
    "memory_overlap", "reinterpreted", "report", "result", "result_array", "shares_storage", "storage_root", "view_of",
    "zeroed_result",
]

_new = object.__new__
_trusted = Layout._trusted
_prod = math.prod  # (L.product, without its call)

_Tensor: Any = None  # strided.tensor.Tensor, handed over by the tensor layer (install)


def install(tensor_class: type) -> None:
    """Name the class every result is built as (``strided.creation`` calls it with ``Tensor``)."""
    global _Tensor
    _Tensor = tensor_class
    if _ADOPT is not None:
        _ADOPT.adopt_types(tensor_class, Storage)


def listen(listener: Listener) -> Listening:
    """Call ``listener(record)`` with an :class:`OpRecord` for every op run inside the block.

    The block belongs to its thread or asyncio task; nested blocks each get every record. It is
    entered once and exited once, by the thread that entered it (RuntimeError otherwise).
    Views (``kind="view"``, ``plan`` the new layout), copies (``"copy"``, ``plan`` the reason,
    ``nbytes``) and computing ops (``"compute"``: arithmetic, reductions, matmul, ...) are all
    reported, after the result is made; an in-place op reports its target as ``output``. The
    factories (``zeros``, ``arange``, ``*_like``, ...) report ``"alloc"``; ``from_numpy`` a view.

    >>> x, seen = strided.ones(2, 3), []
    >>> with strided.dispatch.listen(seen.append):
    ...     y = (x.T + 1).sum()
    >>> [(r.name, r.kind) for r in seen]
    [('T', 'view'), ('add', 'compute'), ('sum', 'compute')]
    """
    return listening(listener)


def report(name: str, inputs: tuple, output: Any) -> Any:
    """Report the compute op ``name`` that made (or wrote) ``output`` from ``inputs`` (tensors and
    numbers) to the listeners, if any; returns ``output``. The small-op fast paths test
    :data:`OPEN` themselves first, to skip the call."""
    if OPEN:
        emit(name, "compute", inputs, output)
    return output


def copied(name: str, inputs: tuple, output: Any, reason: str | Callable[[], str]) -> Any:
    """Report the op ``name`` whose result ``output`` is new memory filled from ``inputs``' elements
    (advanced indexing, ``cat``, ``repeat``, ``sort``, ...: ops that always copy) as a "copy" with
    ``reason`` (a string, or a function rendering it, called only when someone listens) and the
    result's bytes, so the copy ledger and ``watch`` show it; returns ``output``. A tuple of new
    tensors (``sort``'s values and indices) is one record counting all their bytes.

    >>> a, b = strided.ones(2), strided.zeros(3)
    >>> with strided.record_copies() as copies:
    ...     y = strided.cat([a, b])
    >>> copies[0].reason
    'cat: 2 tensors joined along dim 0 into new memory'
    """
    if OPEN and listeners():
        text = reason if reason.__class__ is str else reason()
        if isinstance(output, _Tensor):
            emit(name, "copy", inputs, output, text, output.numel() * output._dtype.itemsize)
        else:  # several new tensors: the record's shape and dtype are the first's
            first = output[0]
            emit(name, "copy", inputs, output, text, sum(t.numel() * t._dtype.itemsize for t in output),
                 first._layout.shape, first._dtype.numpy)
    return output


def created(name: str, inputs: tuple, output: Any, kind: str = "alloc") -> None:
    """Report the creation op ``name`` (``zeros``, ``arange``, ``empty_like``, ...) that made
    ``output`` (kind "alloc": new memory read from no tensor), or ``from_numpy``'s wrap (kind
    "view": memory shared with the user's array). Call only when :data:`OPEN`."""
    emit(name, kind, inputs, output, output._layout if kind == "view" else None)


# ---------------------------------------------------------------- allocation


def result(shape: tuple[int, ...], dtype: DType, strides: tuple[int, ...] | None = None) -> Any:
    """THE fresh result: an uninitialized ``dtype`` tensor of ``shape``, contiguous unless
    ``strides`` (dense, offset 0) are given; PyTorch's error for a negative size.

    >>> result((2, 3), strided.float32).stride()
    (3, 1)
    """
    try:
        plan = _result_plans.get((shape, strides))
    except TypeError:  # (a list from a caller: the layout is made of tuples)
        shape, strides = tuple(shape), None if strides is None else tuple(strides)
        plan = None
    if plan is None:
        plan = _result_plan(shape, strides)
    n, layout = plan
    try:
        array = _empty(n, dtype.numpy)
    except (ValueError, MemoryError, OverflowError):
        return _make(new_storage(n, dtype.numpy, shape), layout, dtype)  # (its error)
    return adopted(array, layout, dtype)  # (np.empty's array is 1-D, contiguous, ours)


_empty = np.empty


def zeroed_result(shape: tuple[int, ...], dtype: DType) -> Any:
    """:func:`result` (contiguous, ``shape`` a tuple) with every byte 0: ``zeros``' and ``eye``'s
    large results. ``np.zeros`` is calloc, whose memory comes zeroed from the kernel or by one
    memset: a write pass fewer than the fresh result then ``fill(0)`` (2^20 float32, thread time:
    eye ~51 -> ~48.5 us, PyTorch's ~48; zeros ~47 -> ~46, PyTorch's ~45). All-zero bytes are 0 in
    every dtype (+0.0, as fill's 0)."""
    n, layout = _result_plans.get((shape, None)) or _result_plan(shape, None)
    return adopted(allocate(n, dtype.numpy, shape, zeroed=True), layout, dtype)


# (shape, strides or None) -> (element count, the result's Layout at offset 0): Layouts are
# immutable, so every fresh result of one layout shares the one object. Bounded (cleared when
# full); an entry is a pure function of its key, so racing threads only repeat work.
_result_plans: dict[tuple[tuple[int, ...], tuple[int, ...] | None], tuple[int, Layout]] = {}


def _result_plan(shape: tuple[int, ...], strides: tuple[int, ...] | None) -> tuple[int, Layout]:
    """:func:`result`'s plan for a layout, after PyTorch's error for a negative size (never remembered)."""
    for s in shape:
        if s < 0:
            raise StridedRuntimeError(
                join_lines(
                    f"Trying to create tensor with negative dimension {s}: {list(shape)}",
                    f"size[{shape.index(s)}] is {s}; every size must be 0 or more "
                    "(0 gives an empty tensor)",
                )
            )
    plan = (L.product(shape), _trusted(shape, L.contiguous_strides(shape) if strides is None else strides, 0))
    if len(_result_plans) >= 4096:
        _result_plans.clear()
    _result_plans[(shape, strides)] = plan
    return plan


def result_array(shape: tuple[int, ...], dtype: DType) -> tuple[Any, np.ndarray]:
    """A fresh contiguous result and the NumPy array over its memory that kernels write into
    (reshaping the new buffer is cheaper than building a second view of it)."""
    storage = new_storage(L.product(shape), dtype.numpy, shape)
    return _make(storage, _trusted(shape, L.contiguous_strides(shape), 0), dtype), storage.array.reshape(shape)


def adopted(array: np.ndarray, layout: Layout, dtype: DType) -> Any:
    """A result over ``array``, a fresh 1-D C-contiguous array NumPy just computed (nothing is
    copied); ``layout`` is dense over it.

    Where the copy kernel is built (and ``STRIDED_NATIVE`` is not 0 at import), the name is its
    ``adopt``, which makes the same two objects with the same slots in C: ~0.1 us instead of
    ~0.25, on every small op's result (this body is the reference and the fallback)."""
    storage = _new(Storage)  # kernels.memory.adopt, inlined: a call is a tenth of a 1 µs op
    storage.array = array
    storage._pinned = None  # resizable: strided owns the new buffer
    t = _new(_Tensor)
    t._storage = storage
    t._layout = layout
    t._dtype = dtype
    t._base = None
    t._ag = None
    return t


_adopted_python = adopted
_ADOPT = _compiled("_copykernel")
if _ADOPT is not None and hasattr(_ADOPT, "adopt"):  # (an older build lacks it: the Python body)
    adopted = _ADOPT.adopt  # noqa: F811 - the same objects, made in C (see adopted's doc)
else:
    _ADOPT = None


def fresh_filled(sizes: tuple, plans: dict, limit: int, maker: Callable[..., np.ndarray], np_dtype: np.dtype,
                 value: Any, dtype: DType) -> Any:
    """A factory's common call (``full``, ``zeros``, ``ones``, ``t.new_zeros``...): a fresh row-major
    tensor of ``maker(count, np_dtype)`` (``numpy.empty`` or ``numpy.zeros``), ``array.fill(value)``
    unless ``value`` is None (the caller checked that it fits), adopted with ``dtype``; nothing
    reported. ``sizes`` as ``strided.creation._plain_plan`` takes them (one tuple of ints in a
    1-tuple, or the ints), every one an ``int`` exactly, ``(sizes, None)`` a key of ``plans``
    (``_result_plans``: only layouts the general path built) of at most ``limit`` elements; else
    None (nothing made: the general path runs). Where the copy kernel is built the name is its
    ``fresh`` (``_fresh_fill.h``): the same steps in one C call; this body is the reference."""
    if sizes.__class__ is not tuple:
        return None
    if len(sizes) == 1 and sizes[0].__class__ is tuple:
        sizes = sizes[0]
    elif not sizes:
        return None
    for s in sizes:
        if s.__class__ is not int:
            return None
    plan = plans.get((sizes, None))
    if plan is None or plan[0] > limit:
        return None
    array = maker(plan[0], np_dtype)
    if value is not None:
        array.fill(value)
    return adopted(array, plan[1], dtype)


_fresh_filled_python = fresh_filled
if _ADOPT is not None and hasattr(_ADOPT, "fresh"):  # (an older build lacks it: the Python body)
    fresh_filled = _ADOPT.fresh  # noqa: F811 - the same steps in C (see fresh_filled's doc)


def borrow_memo(array: np.ndarray, plans: dict, pinned: Any) -> Any:
    """``from_numpy``'s common call: for an exact ``numpy.ndarray`` whose ``(shape, strides, dtype)``
    is a key of ``plans`` (``strided.creation._borrow_plans``) with a ``(Layout, DType)`` plan, the
    tensor over ``array.ravel("K")`` (a C- or F-contiguous array's memory order: a view) with that
    layout and dtype, its storage pinned with ``pinned`` (:func:`borrowed`'s storage); else None
    (nothing made: the caller's path runs). Nothing reported. Where the copy kernel is built the name
    is its ``borrow_memo`` (``_borrow_memo.h``): the same steps in one C call; this body is the
    reference."""
    plan = plans.get((array.shape, array.strides, array.dtype))
    if not plan:
        return None
    t = adopted(array.ravel("K"), plan[0], plan[1])
    t._storage._pinned = pinned
    return t


_borrow_memo_python = borrow_memo
if _ADOPT is not None and hasattr(_ADOPT, "borrow_memo"):  # (an older build lacks it: the Python body)
    borrow_memo = _ADOPT.borrow_memo  # noqa: F811 - the same steps in C (see borrow_memo's doc)


def borrowed(flat: np.ndarray, layout: Layout, dtype: DType) -> Any:
    """A tensor over the user's memory (``from_numpy``): ``flat`` is 1-D contiguous and not
    strided's, so its storage may never move: :func:`adopted`'s two objects (in C where built), the
    storage then pinned as ``Storage(flat, resizable=False)`` pins it (the same slots; the class's
    own checks of ``flat`` are the callers' contract here)."""
    t = adopted(flat, layout, dtype)
    t._storage._pinned = _BORROWED
    return t


def copy_of(
    source: Any,
    strides: tuple[int, ...],
    reason: str | Callable[[], str],
    dtype: DType | None = None,
    *,
    read: Layout | None = None,
    layout: Layout | None = None,
    why: Any = None,
) -> Any:
    """``source``'s elements copied (through THE copy, :func:`strided.kernels.copy_to_new`) into a
    new dense tensor with ``strides``, cast to ``dtype``; reported as a "copy" with ``reason`` (a
    string, or a function rendering it when someone listens) and the plan's ``why``, named after
    the Tensor method that asked (``contiguous``, ``reshape``, ``to``, ...).

    ``read`` is the layout of ``source``'s storage to read (default: its own) and ``layout`` the
    result's (default: ``strides`` over the read shape); a Copy plan gives both.
    """
    dtype = dtype or source._dtype
    read = source._layout if read is None else read
    if layout is None:
        layout = _trusted(read.shape, strides, 0)
    if source._storage.__class__ is DataFree:  # a copy of no data is no data (explain's runs)
        storage: Storage = data_free(L.index_span(layout.shape, layout.strides)[1], dtype)  # (dense: lo is 0)
    else:
        storage = copy_to_new(numpy_view(source._storage, read), strides, dtype.numpy, reason, report=False)
    t = _make(storage, layout, dtype)
    if OPEN and listeners():  # (a block open in another thread: render and walk nothing here)
        text = reason if reason.__class__ is str else reason()
        emit(_caller_method(), "copy", (source,), t, text, L.product(read.shape) * dtype.numpy.itemsize, why=why)
    return t


def materialize(source: Any, plan: Any, reason: str | Callable[[], str], dtype: DType | None = None) -> Any:
    """Carry out a Copy plan (:class:`strided.layout.plans.Copy`) of ``source`` through
    :func:`copy_of`: read ``plan.read``, write it densely with ``plan.strides``, lay the result
    out as ``plan.layout`` (listeners get ``reason`` and the plan's ``why``)."""
    return copy_of(source, plan.strides, reason, dtype, read=plan.read, layout=plan.layout, why=plan.why)


class DataFree(Storage):
    """A storage of a size and no data (PyTorch's meta tensors): a zero-stride array of one
    element stands for every element. Ops run on a tensor over one (``explain``'s shadow) plan
    exactly as on real data, and their copies (:func:`copy_of`) are data-free storages too: no
    byte is moved or allocated, and the copy is reported to the listeners as any other."""

    __slots__ = ()


def data_free(n: int, dtype: DType) -> DataFree:
    """A :class:`DataFree` storage of ``n`` elements of ``dtype``."""
    storage = _new(DataFree)
    storage.array = np.broadcast_to(np.zeros(1, dtype.numpy), (n,))
    storage._pinned = "hold no data (a data-free storage: explain's stand-in)"
    return storage


def copy_array_of(array: np.ndarray, reason: str, dtype: DType, owned: bool = False,
                  strides: tuple[int, ...] | None = None) -> Any:
    """A NumPy array's elements copied into a new ``dtype`` tensor (reported as a copy with no
    tensor input), contiguous unless ``strides`` (in elements, dense) are given. ``owned``:
    ``array`` is a fresh C-contiguous array nobody else holds (``tensor()``'s ``np.array`` of the
    user's lists), so its buffer becomes the storage when it has the dtype already, and its cast
    (the same unsafe cast the copy makes) otherwise: one pass over the data instead of two. The
    report is the same either way."""
    shape = tuple(array.shape)
    if strides is not None and strides != L.contiguous_strides(shape):
        storage = copy_to_new(array, strides, dtype.numpy, reason, report=False)
        t = _make(storage, _trusted(shape, tuple(strides), 0), dtype)
        if OPEN:
            emit("tensor", "copy", (), t, reason, L.product(shape) * dtype.numpy.itemsize)
        return t
    storage = None
    if owned and array.flags.c_contiguous:
        token = quiet_set(QUIET)  # casts wrap or saturate silently, as in the copy
        try:
            storage = adopt(reduced_cast_source(dtype.numpy, array).astype(dtype.numpy, copy=False).reshape(-1))
        except MemoryError:  # (the copy below raises PyTorch's error)
            pass
        finally:
            quiet_reset(token)
    if storage is None:
        storage = copy_to_new(array, L.contiguous_strides(shape), dtype.numpy, reason, report=False)
    t = _make(storage, _trusted(shape, L.contiguous_strides(shape), 0), dtype)
    if OPEN:
        emit("tensor", "copy", (), t, reason, L.product(shape) * dtype.numpy.itemsize)
    return t


def reinterpreted(source: Any, dtype: DType, layout: Layout, name: str | None = None) -> Any:
    """A view of ``source``'s bytes read as ``dtype`` through ``layout`` (counted in ``dtype``'s
    elements): THE primitive behind ``view(dtype)``, ``real``/``imag``, ``view_as_real`` and
    ``view_as_complex``. Nothing is copied; writes through either side land in the same bytes.

    A Storage holds one NumPy array of one element type, so the view gets a *typed alias*: a
    second Storage over the same buffer, one per (storage, dtype), so that ``c.real`` and
    ``c.imag`` share one. ``untyped_storage()`` answers with the storage that owns the bytes
    (:func:`storage_root`), so, as in PyTorch, every view of them reports one storage. The two
    Storage objects are tied: neither may move any more (``resize_`` beyond the buffer is
    refused with the reason), since a reallocation of one would silently detach the other.
    ``strided.shares_memory`` and ``data_ptr()`` see the same memory; the view's ``base`` is
    ``source``'s root, as for every view.

    >>> c = strided.tensor([1 + 2j]); r = reinterpreted(c, strided.float32, c.layout)
    """
    storage = source._storage
    if storage.array.dtype != dtype.numpy:
        found = None
        if storage.__class__ is not _TypedAlias:  # (an alias's own aliases are its root's: _typed_alias)
            try:  # (an alias made before, from the storage's own slot: _typed_alias's hit, inlined)
                found = storage._aliases.get(dtype.numpy)
            except AttributeError:  # (none made yet: the slot is unset)
                pass
        storage = found if found is not None else _typed_alias(storage, dtype)
    t = _make(storage, layout, dtype)
    base = source._base
    t._base = source if base is None else base
    if OPEN:
        view_of(source, t, name)
    return t


# alias -> a weak reference to the storage it aliases (a storage's own aliases are in its
# ``_aliases`` slot: they live as long as it does, or the tensors over them).
_ROOT_OF: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_ALIASED = False  # whether any typed alias was ever made


class _TypedAlias(Storage):
    """A Storage over another storage's bytes as another element type (see :func:`reinterpreted`).

    Pickled and deep-copied as "that storage, read as this dtype", so a tensor and its
    ``real``/``imag``/``view(dtype)`` views still share one buffer after the round trip, as
    strided's other views do (PyTorch keeps it through deepcopy; # Note: not through pickle).
    """

    __slots__ = ()

    def __reduce__(self) -> tuple[object, ...]:
        root = storage_root(self)
        if root is self:  # (the owner is gone: these bytes are all that is left)
            return (Storage, (self.array,))
        return (_alias_from, (root, self.array.dtype.str))


def _alias_from(root: Storage, dtype: str) -> Storage:
    """Unpickling a typed alias: ``root``'s bytes read as ``dtype`` (a NumPy dtype string). A
    crafted pickle naming a dtype strided does not have (or not a dtype at all) is refused."""
    try:
        found = from_numpy_dtype(np.dtype(dtype))
    except (TypeError, ValueError):
        found = None
    if found is None or not isinstance(root, Storage):
        raise StridedTypeError(join_lines(
            f"cannot unpickle a storage alias read as {dtype!r} over {type(root).__name__}: not a strided dtype "
            "over a Storage",
            "while unpickling a typed alias (view(dtype), real/imag, view_as_real)",
            "fix: the pickle was not written by strided (or was altered): rebuild the tensor from data you trust"))
    return _typed_alias(root, found)


def shares_storage(a: Any, b: Any) -> bool:
    """Whether tensors ``a`` and ``b`` read one buffer: one storage, or typed aliases of one
    (``view(dtype)``, ``real``/``imag``, ``view_as_real``). One identity test unless an alias was ever made."""
    sa, sb = a._storage, b._storage
    return sa is sb or (_ALIASED and storage_root(sa) is storage_root(sb))


def memory_overlap(a: Any, b: Any, b_layout: Layout | None = None) -> L.OverlapStatus:
    """PyTorch's ``get_overlap_status`` of two tensors' memory (:func:`strided.layout.overlap_status`);
    typed aliases of one buffer (different dtypes) are compared in bytes, as PyTorch compares
    data pointers. ``b_layout``: read ``b``'s storage through this layout instead of its own.

    >>> t = strided.zeros(4, dtype=strided.float64)
    >>> memory_overlap(t, t.view(strided.int64)[:2])
    <OverlapStatus.PARTIAL: ...>
    """
    lb = b._layout if b_layout is None else b_layout
    if a._storage is b._storage:
        return L.overlap_status(a._layout, lb)
    if not shares_storage(a, b):
        return L.OverlapStatus.NONE
    return L.overlap_status(_in_bytes(a._layout, a._dtype.itemsize), _in_bytes(lb, b._dtype.itemsize))


def _in_bytes(lay: Layout, size: int) -> Layout:
    """``lay`` (of ``size``-byte elements) counted in bytes: one more, innermost dim walks each element's bytes."""
    return _trusted((*lay.shape, size), (*(s * size for s in lay.strides), 1), lay.offset * size)


def storage_root(storage: Storage) -> Storage:
    """The storage that owns ``storage``'s bytes: itself, or the one a typed alias reads."""
    # (a plain flag: no dictionary is consulted before the first alias is made; only a typed
    # alias is a key of _ROOT_OF, so a plain Storage is its own root without the weak look-up)
    if _ALIASED and storage.__class__ is _TypedAlias:
        ref = _ROOT_OF.get(storage)
        if ref is not None:
            root = ref()  # (not ``ref() or storage``: an empty Storage has len 0, so is falsy)
            return storage if root is None else root
    return storage


def _typed_alias(storage: Storage, dtype: DType) -> Storage:
    """The Storage over ``storage``'s bytes as ``dtype`` elements (made once per pair; both pinned)."""
    # (only a typed alias is a key of _ROOT_OF: a plain Storage is its own root, without the
    # weak-key look-up, a third of a view_as_real call)
    ref = _ROOT_OF.get(storage) if storage.__class__ is _TypedAlias else None
    root = ref() if ref is not None else None
    if root is None:  # (compared with None: an empty Storage is falsy)
        root = storage
    if dtype.numpy == root.array.dtype:
        return root
    try:  # (the root's own slot: a weak-key dictionary's look-up was a third of a small view_as_real)
        found = root._aliases.get(dtype.numpy)
    except AttributeError:  # (no alias made over root yet: the slot is unset)
        found = None
    if found is not None:
        return found
    with _ALIAS_LOCK:  # (two threads must not each make one: the pair would have two storages)
        return _new_alias(root, dtype)


_ALIAS_LOCK = _thread.allocate_lock()


def _new_alias(root: Storage, dtype: DType) -> Storage:
    """Make (or, when another thread just did, find) ``root``'s alias as ``dtype``; under the lock."""
    try:
        aliases = root._aliases
    except AttributeError:  # (root's first alias: the dictionary lives as long as root, as its aliases)
        aliases = root._aliases = {}
    found = aliases.get(dtype.numpy)
    if found is not None:
        return found
    arr = root.array
    n = arr.nbytes // dtype.itemsize
    if root.__class__ is DataFree:  # no memory behind it
        typed = np.broadcast_to(np.zeros(1, dtype.numpy), (n,))
    else:  # the same buffer, its tail bytes that make no whole element left out (as PyTorch)
        typed = np.ndarray((n,), dtype.numpy, arr)
    alias = _new(_TypedAlias)
    alias.array = typed
    alias._pinned = (f"are a {root.array.dtype} storage's bytes read as {dtype.name} (a view made by "
                     "view(dtype), real, imag, view_as_real or view_as_complex)")
    if root._pinned is None:
        root._pinned = (f"are also read as {dtype.name} by a view (view(dtype), real, imag, view_as_real "
                        "or view_as_complex) over their own bytes, which would go on reading the old buffer")
    aliases[dtype.numpy] = alias
    _ROOT_OF[alias] = weakref.ref(root)
    global _ALIASED
    _ALIASED = True
    return alias


def view_of(source: Any, view: Any, name: str | None = None) -> None:
    """Report ``view``, just made over ``source``'s storage (call only when :data:`OPEN`).

    The op's name is the Tensor method that asked (read from the stack, as nothing is paid
    for it when nobody listens)."""
    if not listeners():
        return  # a block is open in another thread only: no stack walk for nobody
    if name is None:
        name = _caller_method()
    emit(name, "view", (source,), view, view._layout)


def _caller_method() -> str:
    """The op the user called that asked for the view or copy: the outermost frame in strided
    whose function is public (``__getitem__`` counts), so ``flatten`` is not named ``reshape``."""
    frame = sys._getframe(2)
    name = "view"
    while frame is not None and frame.f_code.co_filename.startswith(PACKAGE_DIR):
        code = frame.f_code.co_name
        if not code.startswith("_") or code == "__getitem__":
            name = code
        frame = frame.f_back
    return name


def _make(storage: Storage, layout: Layout, dtype: DType) -> Any:
    t = _new(_Tensor)
    t._storage = storage
    t._layout = layout
    t._dtype = dtype
    t._base = None
    t._ag = None
    return t
