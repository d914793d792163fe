"""Compiled fronts: an elementwise op's most common call run in C, every other call in Python.

A small elementwise op (``strided.exp(x)``, ``x + y`` on a (3, 4) tensor) spends more time in
its Python forward's checks than in NumPy's loop. :func:`compiled_front` puts the copy kernel's
``Front`` (``src/strided/kernels/_front.h``) before such a forward: for one call shape (no
keyword, a plain Tensor outside autograd, a dtype of the op's fast table, a row-major layout at
offset 0, no listener open; binary: a twin tensor or a Python float) it runs the forward's own
fast path in C (the same function on the same flat run, through the same quiet NumPy error
state, the result adopted as the forward adopts it), and hands every other call to the forward
unchanged. A unary front given ``dense`` dtypes takes a permuted dense operand of those too (a
transpose at offset 0: its storage run in memory order, the result laid out with its strides),
where its forward's fast path does the same (:func:`strided.kernels.memory.dense_run`). Results, errors, warnings, records and gradients are the forward's own; the front
is the forward to everything else (its attributes, ``inspect``, pickling, method binding).

Without the compiled kernel, or with ``STRIDED_NATIVE=0``, the forward itself is the entry.

>>> import strided
>>> x = strided.ones(3, 4)
>>> strided.exp(x).tolist() == strided.exp.__front_fallback__(x).tolist()  # (a Front: its fallback)
True
"""

from __future__ import annotations

import copyreg
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from ...dtypes import bfloat16
from ...kernels import memory, native
from ...kernels.fpstate import QUIET, quiet_call
from ...kernels.listeners import OPEN
from ...kernels.native import _compiled
from .operands import _cinfo

__all__ = ["compiled_front", "compiled_inplace", "fallback_of", "kernel_entry", "public_entry"]

_KERNEL = _compiled("_copykernel")
_FRONT = getattr(_KERNEL, "front", None) if QUIET is not None else None


def compiled_front(forward: Callable[..., Any], arity: int, table: dict[Any, tuple],
                   dense: Any = (), plans: dict | None = None) -> Callable[..., Any]:
    """``forward`` behind a compiled front for its common call (see the module doc), or
    ``forward`` itself where the kernel is not built or ``table`` is empty.

    ``table``: DType -> the fast path's entry for that dtype (unary: ``(fn, direct, result_dtype)``,
    ``fn(run)`` of the flat run, called directly instead of in the quiet context where ``direct``,
    the result's dtype (None: the input's), optionally a fourth item, a :func:`kernel_entry` tried
    before ``fn`` (``fn`` None: the forward runs where the kernel does not); binary:
    ``(fn, native, native_min, result_dtype, scalar, fix)``, ``fn(run_a, run_b)``, the compiled
    loop tried first on two tensors' runs of ``native_min`` elements or more (None: none; its None
    answer: ``fn`` runs), the result's dtype (None: the operands'), whether ``op(t, float)`` takes
    the path, ``fix(run_a, run_b, result)`` called after ``fn`` (None: nothing); ``fn`` None: the
    forward runs where ``fn`` would), optionally a seventh item, a :func:`kernel_entry` whose
    ``run(run_a, run_b, out, *extra)`` is tried first on two tensors' runs. A binary front's entry
    may instead be a last-dim entry ``(None, direct, result_dtype, kernel)``: ``op(t, dim)`` (or
    ``dim=``) along ``t``'s last dim calls ``run(run, out, row_length, *extra)`` (softmax). A ternary
    front's (arity 3) entries are ``(kernel,)``, a :func:`kernel_entry` whose ``run(run_x, run_y,
    run_z, out, *extra)`` is tried on three twin tensors' runs (no keyword; its False answer, and
    every other call: the forward) (addcmul, addcdiv).

    ``dense``: the dtypes whose forward's fast path takes a permuted dense operand the way a
    row-major one is taken, over its storage run in memory order, its result laid out with the
    operand's strides (:func:`strided.kernels.memory.dense_run`); the front then takes such an
    operand at offset 0 whose layout the forward has met before (the memo ``dense_layout`` fills),
    with the entry's kernel and ``fn`` as for a row-major run. A binary front takes ``plans``
    instead, its forward's memo ``(shape, strides) -> (numel, Layout of op(t, t), Layout of op(t,
    number))`` (None: that form's general path), and a twin of the same strides or a Python float
    (where the entry takes floats). Only for ops whose every element is computed alone (no
    reduction, no last-dim entry, no position-dependent pass beyond the run's own order)."""
    if _FRONT is None or not table:
        return forward
    table = _shared_entries(table)
    if dense:
        made = _FRONT(forward, arity, table, _cinfo, OPEN, quiet_call, np.empty, native._enabled,
                      native._open_blocks, memory._DENSE if plans is None else plans, _shared_dense(dense))
    else:
        made = _FRONT(forward, arity, table, _cinfo, OPEN, quiet_call, np.empty, native._enabled, native._open_blocks)
    if type(made) not in copyreg.dispatch_table:
        copyreg.pickle(type(made), _reduce_front)
    return made


# Where a public front may live under another name than its forward's module and qualified name
# (``strided.allclose`` is the front, ``strided.ops....allclose`` its forward; ``strided.arctan2``'s
# forward is defined as ``arctan2`` in a module that never binds that name).
_PUBLIC_HOMES = ("strided", "strided.linalg", "strided.special", "strided.nn.functional")


def _reduce_front(front: Any) -> Any:
    """How a compiled front pickles (registered with :mod:`copyreg`, as NumPy registers its
    ufuncs'): as a function does, by its forward's qualified name in its forward's module, where
    that name is the front itself; else as :func:`public_entry` of the public namespace that holds
    it. Anything else: the qualified name, and pickle's own error saying it is not found."""
    fallback = front.__front_fallback__
    qualname = fallback.__qualname__
    module = sys.modules.get(fallback.__module__)
    found = module
    for part in qualname.split("."):
        found = getattr(found, part, None)
    if found is front:
        return qualname
    for home in _PUBLIC_HOMES:
        namespace = sys.modules.get(home)
        if namespace is None:
            continue
        if getattr(namespace, fallback.__name__, None) is front:
            return public_entry, (home, fallback.__name__)
        name = next((k for k, v in vars(namespace).items() if v is front), None)
        if name is not None:
            return public_entry, (home, name)
    return qualname


def public_entry(home: str, name: str) -> Any:
    """The public function ``name`` of strided's namespace ``home`` (what an unpickled front
    refers to; only strided's own modules are looked in).

    >>> import pickle, strided
    >>> pickle.loads(pickle.dumps(strided.allclose)) is strided.allclose
    True
    """
    if home not in _PUBLIC_HOMES:
        raise ValueError(f"public_entry: {home!r} is not one of strided's public namespaces {list(_PUBLIC_HOMES)}")
    __import__(home)
    return getattr(sys.modules[home], name)


def _shared_dense(dense: Any) -> frozenset:
    """``frozenset(dense)``, one object per distinct set of dtypes (the ~130 fronts with dense
    dtypes have a handful of sets: the floating dtypes, the binary ops' fast dtypes; the front
    only tests membership in it). Each object saved is a tracked container fewer for every full
    collection and the interpreter's exit to walk."""
    dtypes = frozenset(dense)
    return _DENSE_SETS.setdefault(dtypes, dtypes)


_DENSE_SETS: dict[frozenset, frozenset] = {}


def _shared_entries(table: dict[Any, tuple]) -> dict[Any, tuple]:
    """``table`` with its entries made of the very same objects (``is``, item by item) shared: one
    tuple where a comprehension made one per dtype (a binary op's nine ``(fn, native, ...)``). The
    front only reads them; each tuple saved is a tracked container fewer for every full collection
    and the interpreter's exit to walk (~400 over the import)."""
    seen: dict[tuple[int, ...], tuple] = {}
    return {d: seen.setdefault(tuple(map(id, entry)), entry) for d, entry in table.items()}


class _LazyBfloat16:
    """``np.empty``'s dtype argument for a bfloat16 kernel entry: ml_dtypes' dtype, looked up when a
    result is made (a bfloat16 tensor exists then), not when strided is imported."""

    __slots__ = ()

    @property
    def dtype(self) -> np.dtype:
        return bfloat16.numpy


_LAZY_BFLOAT16 = _LazyBfloat16()


def kernel_entry(run: Callable[..., Any] | None, extra: tuple, dtype: np.dtype,
                 max_n: int = 1 << 62, whole: Any = None) -> tuple | None:
    """A unary front's compiled first pass: ``run(x, out, *extra)`` of the flat run ``x`` into
    ``out = np.empty(len(x), dtype)`` (``whole``, a 0-d Layout: a whole reduction's kernel, ``out =
    np.empty(1, dtype)`` adopted with that Layout, an ``x`` of at least one dim; or (Layout, a named
    tuple type): ``run(x, first, second, *extra)`` into two such results, returned as that tuple),
    made in C where the kernels are on in the caller's context
    (:func:`strided.kernels.native.disabled` off, no such block open: else the forward runs), ``x``
    holds at most ``max_n`` elements and is aligned to ``dtype`` (strided's bfloat16: ml_dtypes'
    dtype, which ``import strided`` does not import, found when a result is made); ``run``'s False answer, or a
    refused ``x``, hands over to the entry's ``fn``. The contract on ``run``: exactly what the
    forward's fast path computes for ``x`` (its own compiled pass, called the same way). None
    (no first pass) where ``run`` is None (its module not built)."""
    if run is None:
        return None
    if dtype is bfloat16:  # (ml_dtypes' dtype looked up when a result is made, not at import)
        entry = (run, tuple(extra), _LAZY_BFLOAT16, int(max_n), 2)
        return entry if whole is None else (*entry, whole)
    dtype = np.dtype(dtype)
    entry = (run, tuple(extra), dtype, int(max_n), dtype.alignment)
    return entry if whole is None else (*entry, whole)


def compiled_inplace(fwd: Callable[..., Any], kernel: Any, name: str, table: dict[Any, tuple[int, int, int]]) -> None:
    """Mark the in-place forward ``fwd`` (``self`` first, then its parameters) with
    ``__inplace_kernel__``: the spec its entry front (:func:`strided.grad_mode.entry_front`, modes 2
    and 4; ``kernels/_front.h``, ``entry_inplace``) writes the common call by, in C, through the
    compiled module ``kernel``'s ``inplace`` capsule (``_specialkernel``, ``_sleefkernel``: each
    documents its ops). ``table``: DType (float32 / float64) -> ``(op, ival, most)``, the capsule's op
    and int argument for that dtype and the most elements it writes; ``name``: the write's name in
    its version count (what the forward passes to ``bump``).

    The contract on the capsule's op: exactly the values the forward's fast path writes (its own
    loop over the same flat run). The front takes a plain float32 / float64 tensor outside autograd
    (its base too), nobody listening, no inference tensor about, row-major at offset 0 over exactly
    its storage or a permutation of that (a transpose: the same flat run over memory, in which an
    elementwise write's order does not matter), writable and aligned, its float parameters exact floats (the others left out or
    given as their default object: ``training=False``); it writes, counts the write as the forward
    counts it, and returns ``self``. Every other call, and every refusal, runs the forward
    unchanged. Without the compiled module, or with ``STRIDED_NATIVE=0``, ``fwd`` is left unmarked.

    A required parameter (no default: threshold_'s ``threshold`` and ``value``) is a float one: the
    spec's default for it is the type ``float`` itself, which the front reads as "an exact float,
    given" (left out: the forward's TypeError)."""
    capsule = getattr(kernel, "inplace", None) if kernel is not None else None
    if capsule is None or _FRONT is None:
        return
    from ...grad_mode import COUNTERS, INFERENCE_STORAGES, bump

    code = fwd.__code__
    names = code.co_varnames[1:code.co_argcount]
    given = fwd.__defaults__ or ()
    defaults = (float,) * (len(names) - len(given)) + tuple(given)  # (float: a required float parameter)
    entries = {d: (op, ival, d.itemsize, most) for d, (op, ival, most) in table.items()}
    fwd.__inplace_kernel__ = (capsule, names, defaults, entries, native._open_blocks, native._enabled, _cinfo,  # type: ignore[attr-defined]
                              INFERENCE_STORAGES.data, COUNTERS, bump, name)


def fallback_of(entry: Callable[..., Any]) -> Callable[..., Any]:
    """The Python forward behind ``entry`` (``entry`` itself when it is no front)."""
    return getattr(entry, "__front_fallback__", entry)
