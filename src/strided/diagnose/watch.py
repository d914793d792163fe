"""``watch``: the shape flow of a strided program — its steps, copies, broadcasts, allocations, peak.

A :class:`Watch` is one more listener of the op records (:func:`strided.dispatch.listen`), beside
the copy ledger of ``record_copies``: every op run inside its block, in this thread or asyncio
task, becomes a :class:`~.flow.Step`. Nothing is re-derived: the kind, the copy's reason and its
bytes are the op record's; the broadcast and the reshape dim mapping are read off the shapes.

Example::

    >>> with watch() as w:
    ...     q = strided.zeros(2, 5, 12)
    ...     heads = q.view(2, 3, 5, 4)          # the classic bug: regroups T and h*d
    >>> [s.kind for s in w.steps], w.regroups[0].mapping.kind
    (['alloc', 'view'], 'regroup')
    >>> print(w)           # the summary by source line, ranked by bytes, then the step table
    watch: 2 steps; what to look at, by source line (largest first):
      where  op     category  count  bytes
      ...    zeros  alloc        ×1    480
      ...    view   regroup      ×1      0
          view regroups input dims 1, 2 (5, 12) into output dims 1, 2, 3 (3, 5, 4)
    total: 0 copies, 0 bytes copied; 480 bytes allocated, peak 480; 0 bilateral broadcasts; 1 regrouping reshapes
    <BLANKLINE>
    steps (w.table()):
    #  op     kind   inputs      output        strides         bytes  marks     where
    0  zeros  alloc  -           (2, 5, 12)    (60, 12, 1)     480              ...
    1  view   view   (2, 5, 12)  (2, 3, 5, 4)  (60, 20, 4, 1)         regroups  ...

The summary is data too: ``w.summary()`` (rows with line, module, op, category, count, bytes,
reason, fix) and ``w.table(limit=None)`` (the step table as text); see
:mod:`strided.diagnose.summary`. A copy is a ``"layout copy"`` (reshape that could not view,
``contiguous()``, ``.to()``, a kernel's hidden copy) or a ``"new result"`` (``cat``, ``topk``,
``X[idx]``, ``gather``, ...): ``w.copies[i].category``.

When no watch (or other listener) is open anywhere the ops pay one truth test; a watch open in
another thread costs this one a context-variable read per op, and only an open watch in this
context pays for building its steps (and reading the stack for the user's line).
"""

from __future__ import annotations

import inspect
import sys
from typing import Any

from ..dispatch import OpRecord
from ..kernels.listeners import exit_refused, listening
from ..layout import CopyRequested, contiguous_strides
from ..ops.table import OPS
from ..tensor import Tensor
from .dims import reshape_mapping
from .flow import Flow, Step, TensorInfo, broadcast_of
from .summary import ALLOC, strided_copy_category

__all__ = ["Watch", "watch"]

# The elementwise ops (their table entries carry a BinaryOp / UnaryOp descriptor) and the two
# other ops that broadcast their tensor operands element by element.
ELEMENTWISE = frozenset(name for name, entry in OPS.items() if entry.spec is not None) | {"where", "clamp"}

# Ops whose output re-reads the input's row-major elements in a new shape: their dims map (every
# spelling of the registry's view, reshape and unflatten ops, and ravel, PyTorch's composite
# contiguous().view(-1))
RESHAPES = frozenset(n for op in ("view", "reshape", "unflatten") for n in OPS[op].names if not n.startswith("_")) \
    | {"ravel"}

# Copies the user's own call asked for (the rest hide behind reshape, flatten, a kernel, ...).
ASKED = frozenset({"clone", "contiguous", "to", "copy_", "tensor", "as_tensor"})

# Writes into an existing target: they allocate nothing (in-place ops end with "_").
WRITES = frozenset({"copy_", "fill_", "zero_", "setitem"})


class Watch(Flow):
    """The steps of the strided ops run inside one ``with`` block, in this thread or task.

    After (or during) the block: :attr:`steps` (:class:`~.flow.Step`), :attr:`copies`
    (:class:`~.flow.CopyEvent`, ``asked`` for clone / contiguous / to / copy_ / tensor),
    :attr:`bytes_copied` (equal to what a ``record_copies()`` ledger around the same code sums),
    :attr:`broadcasts` (elementwise ops that stretched an operand, ``bilateral`` marked),
    :attr:`regroups`, :attr:`allocated_bytes` and :attr:`peak_bytes` (only storages made inside
    the block count; a storage stops being alive when its last tensor goes), and ``str(w)``.

    A watch is entered once (a second ``with`` raises ValueError); an exception leaving the
    block closes it and keeps what it recorded. Nested watches each see their own block's ops.
    It is exited once, by the thread that entered it: an exit from another thread, or a second
    one, raises RuntimeError and changes nothing (the entering thread can still close it).
    """

    title = "watch"

    def __init__(self) -> None:
        super().__init__()
        self._block: Any = None
        self._entered = False
        self._transient = 0  # bytes of a copy no tensor holds, alive until the next step
        # The generator frame the watch was opened in, if any: a generator shares its caller's
        # context (PEP 568 was never accepted), so while it is suspended the caller's ops would
        # reach this watch too; they are told apart by whether that frame is on the stack.
        self._home: Any = None

    def __enter__(self) -> Watch:
        if self._entered:
            raise ValueError(
                "this watch was already entered: a watch records one block and keeps it; "
                "open a new one for another block (with strided.watch() as w2: ...)"
            )
        self._entered = True
        frame = sys._getframe(1)
        if frame.f_code.co_flags & (inspect.CO_GENERATOR | inspect.CO_ASYNC_GENERATOR):
            self._home = frame
        self._block = listening(self._record, "strided.watch()")
        self._block.__enter__()
        return self

    def _open(self) -> bool:
        return self._block is not None and self._block._state == "open"

    def _live_state(self) -> dict[str, Any]:
        # (a pickled copy counts as exited: entering it again is refused, as for the original)
        return {"_block": None, "_home": None, "_entered": True}

    def __exit__(self, *exc: Any) -> bool:
        if self._block is None:
            raise exit_refused("strided.watch()", "new", 0, "")  # type: ignore[misc]
        # From another thread, or a second time: RuntimeError, and the block stays as it was
        # (the entering thread can still close it).
        self._block.__exit__(*exc)
        self._release_transient()
        return False  # an exception passes on; what was recorded stays

    # ------------------------------------------------------------ one op record -> one step

    def _record(self, record: OpRecord) -> None:
        if self._home is not None and not _running(self._home):
            return  # the caller's op, run while the generator that opened the watch is suspended
        kind = record.kind
        name = record.name
        if kind == "compute" and (name in WRITES or name.endswith("_")):
            kind = "write"
        inputs = tuple(_info(t) for t in record.inputs if isinstance(t, Tensor))
        output, outputs = _outputs(record)
        step = Step(len(self.steps), name, kind, inputs, output, record.where)
        if name == "resize_" and kind == "alloc":
            self._grown(step, record.output)
            self.steps.append(step)
            return
        if kind == "copy":
            step.bytes_copied = record.nbytes
            step.reason = record.plan if isinstance(record.plan, str) else str(record.plan)
            step.extra["asked"] = name in ASKED or isinstance(record.why, CopyRequested)
            step.category = strided_copy_category(name)
        elif kind == "alloc":
            step.category = ALLOC
            if record.why is not None:
                step.extra["why"] = record.why
        if kind in ("alloc", "copy", "compute"):
            step.bytes_allocated = self._allocations(record, outputs)
        else:
            self._release_transient()
        if name in RESHAPES and inputs and output is not None and _numel(inputs[0].shape) == _numel(output.shape):
            step.mapping = reshape_mapping(inputs[0].shape, output.shape)
        if kind in ("compute", "write") and name.rstrip("_") in ELEMENTWISE and output is not None:
            step.broadcast = broadcast_of(name, [t.shape for t in inputs], output.shape, step.where, step.index)
        self.steps.append(step)

    def _allocations(self, record: OpRecord, outputs: tuple[Tensor, ...]) -> int:
        """Count the new storages of a step's results (not an input's: an op that hands back an
        operand made nothing); a copy no tensor holds lives until the next step is recorded."""
        memory = self.memory
        made = 0
        read = {id(t._storage) for t in record.inputs if isinstance(t, Tensor)}
        for t in outputs:
            storage = t._storage
            if id(storage) not in read and memory.allocated(storage, storage.nbytes()):
                made += storage.nbytes()
        self._release_transient()  # (after the new results: both were alive at once)
        if record.output is None and record.kind == "copy":
            # a kernel's own copy (an operand made contiguous, a snapshot): no tensor holds it, so
            # its death cannot be observed; it is alive while the op that asked for it runs.
            memory.transient(record.nbytes)
            self._transient = record.nbytes
            made += record.nbytes
        return made

    def _grown(self, step: Step, t: Tensor) -> None:
        """``resize_`` grew ``t``'s storage: the grow copy just recorded wrote into the new buffer
        (not a buffer of its own), and the new buffer replaces the old one."""
        if self._transient and self.steps:
            self.memory.withdrawn(self._transient)
            self.steps[-1].bytes_allocated -= self._transient
            self._transient = 0
        nbytes = t._storage.nbytes()
        self.memory.resized(t._storage, nbytes)
        step.bytes_allocated = nbytes

    def _release_transient(self) -> None:
        if self._transient:
            self.memory.released(self._transient)
            self._transient = 0


def watch() -> Watch:
    """A :class:`Watch`: ``with watch() as w:`` records the strided ops run inside the block.

    >>> with watch() as w:
    ...     a = strided.zeros(4, 1)
    ...     d = a - strided.zeros(4)        # (4, 1) - (4,): both operands stretched
    >>> w.broadcasts[0].bilateral, w.peak_bytes
    (True, 96)
    """
    return Watch()


# TensorInfo values already made, by (shape, strides, dtype name): a program repeats a few
# layouts, and a frozen dataclass costs 1 µs to build where a lookup costs 0.1 µs.
_INFOS: dict[tuple, TensorInfo] = {}


def _info(t: Tensor) -> TensorInfo:
    layout = t._layout
    key = (layout.shape, layout.strides, t._dtype.name)
    info = _INFOS.get(key)
    if info is None:
        if len(_INFOS) >= 4096:
            _INFOS.clear()
        info = _INFOS[key] = TensorInfo(*key)
    return info


def _outputs(record: OpRecord) -> tuple[TensorInfo | None, tuple[Tensor, ...]]:
    """The step's output as the table shows it, and the result tensors (a tuple result, such as
    ``max(dim)``'s values and indices, shows its first)."""
    out = record.output
    if isinstance(out, Tensor):
        return _info(out), (out,)
    if isinstance(out, tuple):
        tensors = tuple(t for t in out if isinstance(t, Tensor))
        return (_info(tensors[0]) if tensors else None), tensors
    if out is None and record.kind == "copy":
        # a copy no tensor holds: its shape and dtype stand in, laid out dense as THE copy makes it
        shape = tuple(record.shape)
        return TensorInfo(shape, contiguous_strides(shape), str(record.dtype)), ()
    return None, ()


def _running(frame: Any) -> bool:
    """Whether ``frame`` is on the current call stack (its code is running now, not suspended)."""
    f = sys._getframe(2)
    while f is not None:
        if f is frame:
            return True
        f = f.f_back
    return False


def _numel(shape: tuple[int, ...]) -> int:
    n = 1
    for s in shape:
        n *= s
    return n
