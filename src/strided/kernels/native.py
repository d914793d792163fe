"""The compiled kernels, loaded on first use, and their switch: the copy kernel
(``strided.kernels._copykernel``, below) and the special functions
(``strided.kernels._specialkernel``, :func:`special`, used by :mod:`strided.kernels.special`) and
the bounded-integer draw (``strided.kernels._randkernel``, :func:`rand`, used by the random samplers).

:func:`strided.kernels.blocked.copy_into` hands a copy between two memory orders of at least
:data:`MIN_BYTES` to :func:`copy` when :func:`takes` says the kernel takes it; otherwise (no
compiled kernel, the switch off, a cast, an element size or alignment the kernel does not take)
the NumPy strips run as before, from their own larger threshold. The
kernel moves bytes only: it runs when source and destination have the same dtype, so the
result is the bytes ``np.copyto`` leaves, element for element (tests/test_native_copies.py
runs both paths over random layouts and compares the bytes).

Why a compiled kernel: NumPy's strips cost a Python-level ``np.copyto`` per strip and NumPy's
per-element loop inside it: 2.7-2.8x a memcpy of the same bytes for a 32 MB float32 transpose
copied into existing memory, 6-9x for 1- and 2-byte elements. The C kernel (64 x 256 tiles cut
into SSE2 register transposes: 16x16 for 1 byte, 8x8 for 2, 4x4 for 4, 2x2 for 8) moves each cache
line once: 2.3x for float32, 2.9-3.9x for int16 and int8, float64 and complex128 2-2.4x (where
the strips were already near the memory's limit, the same); from 256 KB it also beats NumPy's
single call (bench/bench_copies.py prints both paths; measured on a loaded 2-core machine,
thread CPU time). A 3-d permute whose destination's last dim is short (under 512 bytes) and
runs on through the dim outside it, while the source runs along the destination's outermost
(``permute(2, 1, 0)``), is tiled along both dims as one run: float32 2.1-2.2x, from 2.9-3.1x with
64-element runs. Session 17: where both run along a short last dim (under 64 bytes: ``(N, M,
3).permute(1, 0, 2)``) the run is folded into one element and transposed as such (float32
(2048, 1365, 3) 13-14x -> 2.5-2.6x a memcpy into existing memory); where the source's unit-stride
dim is that short and another dim continues its run while the destination runs along a third
(``(N, M, 4).permute(2, 1, 0)``), the AVX-512 blocks read the run across both dims and store each
destination row through its own pointer (6-9x -> 2.3-2.5x). Session 18: copies of 8 MB or more
whose destination rows lie 64 KB or more apart (3-d permutes) or run through two dims store the
destination's whole lines by streaming stores (no read of the line first), and the run-through
planes' blocks start on whole lines too (float32 ``(64, 256, 512).permute(2, 1, 0)`` 2.65-3.4x ->
1.9-2.4x into existing memory). With AVX-512 (session 16) the 16 x 16 / 8 x 8 blocks start on whole cache lines (NumPy's large
buffers sit 16 bytes past one, so every 64-byte block row straddled two lines and the second
half was written a tile later): a 32 MB float32 transpose into existing memory 1.8-2.3x ->
1.3-1.4x. A ``contiguous()`` pays the first touch of its new pages on top (0.5-1
memcpy), which no copy kernel avoids (touching each new page first, in address order, was
slower: 3.8-3.9x against 3.2-3.5x for a 32 MB float32 transpose; register transposes of 8 x 8
with AVX2, tiles of 16 to 256 by 64 to 1024, software prefetch of the next rows and a staging
buffer per tile measured no faster or slower, the last 1.3-1.7x; bands of source rows
outermost were faster into existing memory for ``permute(2, 0, 1)``, 2.0-2.2x against 2.5-2.7x,
but slower into new memory for 2-d transposes, 3.9x against 3.1-3.2x: a new page was first
touched, zeroed, and left the cache before the rest of it was written). Why a CPython extension built
by setuptools (setup.py, ``optional=True``) rather than a ctypes library or a JIT: it needs
only the C compiler and Python headers that ``pip install -e .`` already finds, no run-time
dependency (Numba's install is hundreds of MB and its first call compiles for a second), the
call parses six plain arguments (no ctypes marshalling, about 1 us) and releases the GIL.
Without a compiler the build skips the extension and everything here answers False.

The switch: ``STRIDED_NATIVE=0`` in the environment (read at a kernel's first use) turns both
kernels off for the process; :func:`disabled` turns them off in one block of one thread or task
(a context variable: other threads keep their own setting).

>>> import numpy as np
>>> with disabled():
...     takes(np.empty((3, 2)), np.arange(6.0).reshape(2, 3).T)
False
"""

from __future__ import annotations

import _thread  # (threading's primitives, without importing threading: ~0.6 ms of the import)
import importlib
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from types import ModuleType
from typing import Any

import numpy as np

# Element sizes the kernel copies (bool, ints, float16/32/64, complex64/128, datetimes); kinds
# whose bytes are not the whole value (objects: references; strings, records) never go there.
_SIZES = frozenset({1, 2, 4, 8, 16})
_KINDS = frozenset("biufcmM")

# Below this many bytes the plain np.copyto is as fast (measured on 2-d transposes, thread CPU
# time: float32 and float64 at 64 KB 16-28 us against 13-16 us plain, at 256 KB 40 us against
# 58-104 us; int8 wins from 64 KB). The NumPy strips only win from 2 MB (blocked.MIN_BYTES).
MIN_BYTES = 1 << 18

_enabled: ContextVar[bool] = ContextVar("strided_native_copies", default=True)
_kernel: ModuleType | None = None
_loaded = False


def kernel() -> ModuleType | None:
    """The compiled module, imported on the first call (None: not built, or ``STRIDED_NATIVE=0``).

    >>> kernel() is None or hasattr(kernel(), "copy")
    True
    """
    global _kernel, _loaded
    if not _loaded:
        _kernel = _compiled("_copykernel")  # (None: the NumPy path)
        _loaded = True  # (two threads racing here both import the same module: harmless)
    return _kernel


def _compiled(name: str) -> ModuleType | None:
    """The compiled module ``strided.kernels.<name>``; None with ``STRIDED_NATIVE=0`` or when the
    install built it not (no C compiler: the NumPy path or formulas)."""
    if os.environ.get("STRIDED_NATIVE", "1") == "0":
        return None
    # (a module loaded already: its entry, without import_module's machinery; ~230 asks a run)
    module = sys.modules.get(f"{__package__}.{name}")
    if module is not None:
        return module
    try:
        return importlib.import_module(f"{__package__}.{name}")
    except ImportError:
        return None


_special: ModuleType | None = None
_special_loaded = False


def special() -> ModuleType | None:
    """The compiled special functions, imported on the first call; None when not built, with
    ``STRIDED_NATIVE=0``, or inside :func:`disabled` (this context or thread only).

    >>> with disabled():
    ...     special() is None
    True
    """
    global _special, _special_loaded
    if not _special_loaded:
        _special = _compiled("_specialkernel")  # (None: the NumPy formulas)
        _special_loaded = True  # (a race imports the same module twice: harmless)
    return _special if _enabled.get() and (not _open_blocks[0] or enabled_here()) else None


_rand: ModuleType | None = None
_rand_loaded = False


def rand() -> ModuleType | None:
    """The compiled bounded-integer draw (``strided.kernels._randkernel``), imported on the first
    call; None when not built, with ``STRIDED_NATIVE=0``, or inside :func:`disabled` (this context
    or thread only): then the samplers call NumPy's ``Generator.integers``, which draws the same numbers.

    >>> with disabled():
    ...     rand() is None
    True
    """
    global _rand, _rand_loaded
    if not _rand_loaded:
        _rand = _compiled("_randkernel")  # (None: NumPy's Generator.integers)
        _rand_loaded = True  # (a race imports the same module twice: harmless)
    return _rand if _enabled.get() and (not _open_blocks[0] or enabled_here()) else None


_randdist: ModuleType | None = None
_randdist_loaded = False


def randdist() -> ModuleType | None:
    """The in-place samplers' compiled draws through NumPy's own distribution functions
    (``strided.kernels._randdist``, linked against NumPy's ``libnpyrandom``), imported on the first
    call; None when not built, with ``STRIDED_NATIVE=0``, or inside :func:`disabled` (this context
    or thread only): then the samplers call ``numpy.random.Generator``, which draws the same numbers.

    >>> with disabled():
    ...     randdist() is None
    True
    """
    global _randdist, _randdist_loaded
    if not _randdist_loaded:
        module = _compiled("_randdist")  # (None: NumPy's Generator methods)
        # (its distribution code is the build's NumPy's, linked in: under another NumPy at run time
        # its draws could differ from numpy.random's, so the samplers take NumPy's calls)
        _randdist = module if module is not None and getattr(module, "numpy_version", None) == np.__version__ else None
        _randdist_loaded = True  # (a race imports the same module twice: harmless)
    return _randdist if _enabled.get() and (not _open_blocks[0] or enabled_here()) else None


_half: ModuleType | None = None
_half_loaded = False


def half() -> ModuleType | None:
    """The compiled float16 arithmetic (``strided.kernels._halfkernel``: add, sub, mul, div and
    the fused ``alpha * y + x`` through float32, NumPy's bits), imported on the first call; None
    when not built, with ``STRIDED_NATIVE=0``, or inside :func:`disabled` (this context or thread
    only): then NumPy's float16 loops run, which give the same bits.

    >>> with disabled():
    ...     half() is None
    True
    """
    global _half, _half_loaded
    if not _half_loaded:
        _half = _compiled("_halfkernel")  # (None: NumPy's loops)
        _half_loaded = True  # (a race imports the same module twice: harmless)
    return _half if _enabled.get() and (not _open_blocks[0] or enabled_here()) else None


_sleef: ModuleType | None = None
_sleef_loaded = False


def sleef() -> ModuleType | None:
    """The compiled float32 sigmoid / silu of PyTorch's loops (``strided.kernels._sleefkernel``:
    SLEEF's expf where PyTorch vectorizes, the C library's where it does not), imported on the first
    call; None when not built, with ``STRIDED_NATIVE=0``, or inside :func:`disabled` (this context
    or thread only): then NumPy's ufuncs run (:mod:`strided.kernels.sleef` says whose bits).

    >>> with disabled():
    ...     sleef() is None
    True
    """
    global _sleef, _sleef_loaded
    if not _sleef_loaded:
        _sleef = _compiled("_sleefkernel")  # (None: NumPy's ufuncs)
        _sleef_loaded = True  # (a race imports the same module twice: harmless)
    return _sleef if _enabled.get() and (not _open_blocks[0] or enabled_here()) else None



# (a list, filled on the first call, not a global rebound: a module's names stay the same objects
# after the first use, which tests/test_autograd_entries.py checks of every strided module)
_sums: list[ModuleType | None] = []


def sums() -> ModuleType | None:
    """The compiled PyTorch-order float sum (``strided.kernels._sumkernel``, used by
    :mod:`strided.kernels.torch_sum`), imported on the first call; None when not built, with
    ``STRIDED_NATIVE=0``, or inside :func:`disabled` (this context or thread only): then
    torch_sum's NumPy steps run, which give the same bits.

    >>> with disabled():
    ...     sums() is None
    True
    """
    if not _sums:
        _sums.append(_compiled("_sumkernel"))  # (None: torch_sum's NumPy steps; a race appends twice: harmless)
    return _sums[0] if _enabled.get() and (not _open_blocks[0] or enabled_here()) else None


def active() -> bool:
    """Whether a large copy in this context would use the compiled kernel.

    >>> with disabled():
    ...     active()
    False
    """
    return _enabled.get() and (not _open_blocks[0] or enabled_here()) and kernel() is not None


def joiner() -> ModuleType | None:
    """The compiled module for the joins' small copies (its ``join``: ``cat`` / ``stack``'s flat
    join), or None where copies take NumPy's path (not built, ``STRIDED_NATIVE=0``, inside
    :func:`disabled`).

    >>> with disabled():
    ...     joiner() is None
    True
    """
    k = _kernel if _loaded else kernel()
    return k if k is not None and _enabled.get() and (not _open_blocks[0] or enabled_here()) else None


# The blocks of disabled() open in each thread, mirrored outside the context variable: many
# fast paths run NumPy inside a prebuilt context (kernels.fpstate.quiet_call) where every context
# variable reads its default, so every accessor here (kernel use, special(), rand(), takes())
# reads this too: inside disabled() no compiled kernel runs, whichever context calls it. The
# mirror counts blocks per asyncio task (key None outside one): tasks of one event loop share its
# thread, and a block open in one task suspended at an ``await`` must leave another task's kernels
# on, as the context variable does (the prebuilt context runs in the caller's task).
_disabled_in_thread = _thread._local()
# How many disabled() blocks are open in all threads together: while none is (every call but a
# test's), no thread's mirror is set and enabled_here() reads the context variable alone (it runs
# once per op).
_open_blocks = [0]
_open_blocks_lock = _thread.allocate_lock()


def _task() -> Any:
    """The asyncio task running in this thread, or None (no event loop running; asyncio not
    imported: then there is no task)."""
    aio = sys.modules.get("asyncio")
    if aio is None:
        return None
    loop = aio._get_running_loop()
    return None if loop is None else aio.current_task(loop)


def enabled_here() -> bool:
    """Whether the compiled kernels are on for this call: no :func:`disabled` block open in this
    context, nor in this thread's current asyncio task (or outside any task: in this thread),
    the latter seen from inside another context too.

    >>> with disabled():
    ...     enabled_here()
    False
    """
    if not _open_blocks[0]:  # (no thread is inside a block: its mirror cannot be set)
        return _enabled.get()
    if not _enabled.get():
        return False
    depths = getattr(_disabled_in_thread, "depths", None)
    return not (depths and depths.get(_task()))


@contextmanager
def disabled() -> Iterator[None]:
    """Copies in this block (this thread or task only) take the NumPy path.

    >>> with disabled():
    ...     active()
    False
    """
    token = _enabled.set(False)
    depths = getattr(_disabled_in_thread, "depths", None)
    if depths is None:
        depths = _disabled_in_thread.depths = {}
    task = _task()
    depths[task] = depths.get(task, 0) + 1
    with _open_blocks_lock:
        _open_blocks[0] += 1
    try:
        yield
    finally:
        with _open_blocks_lock:
            _open_blocks[0] -= 1
        if depths[task] == 1:
            del depths[task]  # (a finished task's key is not kept alive)
        else:
            depths[task] -= 1
        _enabled.reset(token)


def takes(dest: np.ndarray, source: np.ndarray) -> bool:
    """Whether :func:`copy` would copy ``source`` into ``dest``: the kernel is built and on in this
    context, the two have one dtype whose bytes are its whole value (no cast, no objects), of 1,
    2, 4, 8 or 16 bytes, and both arrays are aligned (the destination writable)."""
    dtype = dest.dtype
    return (source.dtype == dtype and dtype.kind in _KINDS and dtype.itemsize in _SIZES
            and dtype.char != "g"  # (long double: 16 bytes of which 6 are padding)
            and dest.flags.writeable and dest.flags.aligned and source.flags.aligned
            and _enabled.get() and (not _open_blocks[0] or enabled_here()) and kernel() is not None)


def copy(dest: np.ndarray, source: np.ndarray, groups: list[tuple[int, int, int]]) -> None:
    """Copy ``source`` (already broadcast to ``dest.shape``) into ``dest`` with the compiled
    kernel; the caller has checked :func:`takes`.

    ``groups``: (size, dest stride, source stride) in bytes, the coalesced dims in the
    destination's memory order (:func:`strided.kernels.blocked._coalesced`). The caller
    guarantees that the destination's elements are distinct and that the two do not overlap.

    >>> dest, src = np.empty((3, 2)), np.arange(6.0).reshape(2, 3)
    >>> if takes(dest, src.T):
    ...     copy(dest, src.T, [(3, 16, 8), (2, 8, 24)])
    ... else:
    ...     dest[...] = src.T
    >>> dest.tolist()
    [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]
    """
    k = _kernel
    assert k is not None, "native.copy without native.takes"
    k.copy(_address(dest), _address(source), dest.itemsize, [n for n, _, _ in groups],
           [d for _, d, _ in groups], [s for _, _, s in groups])


def interleave_join(dest: np.ndarray, sources: list[np.ndarray]) -> bool:
    """``dest[..., q] = sources[q]`` for a pair of transposed inputs of 4- or 8-byte elements by the
    compiled pair join (``pair_join``: one pass over both, their blocks transposed in registers),
    True when done; False (nothing written) where it does not apply: ``dest`` not a C-contiguous
    (n0, n1, 2) array of 4- or 8-byte elements, a source not of ``dest``'s dtype and shape (n0, n1)
    or not running along dim 0 (stride one element there), the kernel off, absent (a CPU with
    neither AVX-512 nor AVX2) or refusing (:func:`takes`). The caller guarantees that no source overlaps ``dest`` (a fresh result).

    >>> a = np.arange(6, dtype=np.float32).reshape(3, 2)
    >>> dest = np.empty((2, 3, 2), np.float32)
    >>> if not interleave_join(dest, [a.T, (a + 10).T]):
    ...     dest[...] = np.stack([a.T, (a + 10).T], -1)
    >>> dest[1].tolist()
    [[1.0, 11.0], [3.0, 13.0], [5.0, 15.0]]
    """
    k = _kernel if _loaded else kernel()
    size = dest.itemsize
    if (k is None or not hasattr(k, "pair_join") or len(sources) != 2 or dest.ndim != 3 or size not in (4, 8)
            or dest.shape[2] != 2 or not dest.flags.c_contiguous):
        return False
    shape = dest.shape[:2]
    for a in sources:
        if a.__class__ is not np.ndarray or a.shape != shape or a.strides[0] != size or not takes(dest, a):
            return False
    a, b = sources
    return bool(k.pair_join(_address(dest), size, shape[0], shape[1], _address(a), a.strides[1], _address(b), b.strides[1]))


def _address(a: np.ndarray) -> int:
    """The address of ``a``'s element [0, ..., 0] (its offset included)."""
    data: Any = a.__array_interface__["data"]
    return int(data[0])


def kernel_run(x: np.ndarray) -> np.ndarray:
    """``x`` as the compiled kernels' buffer checks take it: itself where it is C-contiguous and
    aligned, else a C-contiguous aligned copy (memory borrowed by ``from_numpy`` at an address that
    is no multiple of the element size exports a format the kernels refuse, "=f": read from the
    copy, it gives the bits aligned memory gives)."""
    return x if x.flags.c_contiguous and x.flags.aligned else np.array(x, order="C")
