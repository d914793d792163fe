"""``watch_torch``: the shape flow of real PyTorch code, forward and backward.

Inside ``with watch_torch() as w:`` every aten op PyTorch runs — the forward ops and the backward
ops the autograd engine runs — is recorded through PyTorch's own dispatch hooks (one patch, for
module paths: see the last but one item):

- a ``TorchDispatchMode`` sees each aten op with its tensors: a :class:`~.flow.Step` per op (view,
  copy, alloc, compute or write; see :mod:`.torch_ops` for what counts as what), new storages
  for the memory tally, elementwise ops for broadcasts;
- a ``TorchFunctionMode`` sees the user's own Python calls (``x.reshape(...)``, ``F.linear``,
  ``.contiguous()``, ``loss.backward()``): it gives every aten op run inside a call the user's
  line, the method name (so a ``.contiguous()`` the user asked for is told apart from the clone
  behind a ``reshape`` that could not be a view) and the dim mapping of a user's reshape (so only
  the user's reshapes are checked for regroupings, never torch's internal ones);
- DTensor programs: an aten op with DTensor arguments is handed back to DTensor (as
  ``CommDebugMode`` does), so its collectives and local ops are recorded on the local tensors; each
  collective is a step of kind "collective" (:mod:`.distributed.watch_collectives`); in a
  distributed program (torch.distributed initialized, world size > 1) the block's exit gathers
  every rank's collective steps to rank 0 (``w.ranks``, ``w.merged``, the end of ``print(w)``) —
  a collective itself, so every rank must exit its block (see ``gather_rows`` there);
- a wrapper of ``nn.Module.__call__``, put in by the first open block and taken out by the last
  (not global module hooks: with any, every module call takes PyTorch's slow hooked path; see
  ``_watched_module_call``; put in by swapping the code of torch's own ``__call__`` function, no
  class attribute set: see ``_module_call_stub``) gives the module path, e.g. ``h.0.attn`` — relative to the outermost
  module called, which itself is named by its class;
- a backward op points at the line (and module) of the forward op that made its autograd node:
  each op keeps the autograd sequence counter it saw (autograd numbers a node just before the op
  that makes it runs; a ``CopySlices`` just after the in-place write into a view that makes it),
  the backward op asks ``torch._C._current_autograd_node()`` for its node's number. Ops no
  forward op made (``AccumulateGrad``) point at the ``.backward()`` line; backward ops run by the
  user's own Python code (a tensor hook, a custom ``autograd.Function``'s backward) at that code.

Cost: the recorders do the least they can while the block runs — read each op's shapes, strides,
dtypes and storages, the user's line, the autograd counter — into one flat list (each distinct
shape or strides tuple kept once: recording an op leaves no new object for the garbage collector
to walk); steps, reasons, dim mappings and backward lines are worked out when ``w.steps`` is
first read. The dispatch mode keeps Dynamo out of its handler once, when its class is made, not
through the wrapper torch puts around every mode's handler (see ``_keep_dynamo_out``), runs an
aten ``OpOverload`` through its ``_op`` (what its ``__call__`` does, one Python frame less), and
reads what it needs of each op overload once (``_OPS``); the per-op recorder is one call of a small
C helper (``_watchrec.record``, CPython API only) that keeps the same record as the Python
``on_op``, which it hands the ops it does not know how to record (collectives, copies between
devices, tensors without storage or strides, ...), and which records every op where the helper is
not built; the helper also counts each new storage in the memory tally and un-counts it when it dies
(``MemoryTally.allocated`` and the callback of its weak reference, in C: no Python call per storage);
the function mode's recorder of the user's calls is one C call too (``_watchrec.call``: the call's
name, line and module path, its context). The users' lines are cached once per process (per code
object and instruction, see ``_LINES``), not per block; a block's timeline pairs are made untracked
by the garbage collector, and a watch no one holds any more goes with its last reference (no
reference cycle runs through it), so a program that watches each step leaves the collector little
to walk. ``bench/bench_watch_torch.py`` measures it.

Threads: torch keeps its modes per thread, so a block sees only the ops of the thread it runs in
(the ``nn.Module.__call__`` wrapper, which is global, is filtered to that thread too). Like any torch mode it sees
all the ops that thread runs while the block is open — also the caller's, while a generator that
holds a block open is suspended at a ``yield``. For the same reason a block is exited by the
thread that entered it, innermost first; any other exit is refused (RuntimeError) before anything
changes, so the entering thread can still close the block. The exception is the autograd
engine's own threads: torch carries the modes of the thread that called ``.backward()`` to them
(on a GPU, a device thread runs the GPU's backward ops, beside the calling thread running the
CPU ones), so those ops are recorded, one at a time under the recorder's lock, and they point at
the lines of the forward ops that made their nodes as on the CPU (checked on an H200 with
``tools/cuda_check.py``). A copy between devices says which way it went (``from cpu to cuda:0``
in its reason, ``extra["devices"]``).

Tensors with no strides or no storage (sparse, nested, wrapper subclasses) are recorded with
strides ``()`` (and shape ``()`` where torch has none) and count no memory; neither do meta and
fake tensors.

Memory: ``allocated_bytes`` counts every storage that an op inside the block created (``nbytes``
of each output storage of a non-view, non-write op, once per storage); a storage stops being alive
when its last tensor goes (a ``weakref.ref`` callback on the ``UntypedStorage``: torch keeps one
Python object per storage, alive exactly as long as the storage). ``peak_bytes`` is the most alive
at once. Memory made before the block, or outside the aten ops (``torch.from_numpy``, the data of
``torch.tensor([...])``), scratch memory inside a kernel, and memory an ``out=`` or in-place op
grows an existing storage by (a resize), is not counted.

Under ``torch.inference_mode()`` PyTorch hands composite ops to the dispatch mode whole
(``aten.reshape``, ``aten.matmul``, ``aten.linear``) instead of the ops they decompose into: a
whole ``reshape``/``flatten``/``to`` that allocates is reported as the copy, but a copy *inside*
a whole ``matmul`` cannot be seen there.

Reports: ``print(w)`` opens with the summary of :mod:`.summary` — per source line and module
path, a loop's iterations grouped, ranked by bytes: layout copies (``clone``/``_to_copy``/``copy_``
with their reasons and ``strided.explain``'s fix where it has one), new results (``cat``,
``index``, ``gather``, ``topk``, ...: see :data:`~.summary.TORCH_NEW_RESULT`), allocations,
bilateral broadcasts, regrouping reshapes — then the totals and the first 40 rows of
``w.table()``. ``w.summary()`` gives the same rows as data.

Example::

    >>> with watch_torch() as w:
    ...     y = torch.ones(4, 3).t().reshape(12)
    >>> [(c.name, c.nbytes, c.asked) for c in w.copies]
    [('clone', 48, False)]
"""

from __future__ import annotations

import os
import sys
import sysconfig
import threading
from functools import partial
from types import FunctionType
from typing import Any

from ..callsite import PACKAGE_DIR
from ..errors import StridedRuntimeError, join_lines
from ..kernels.listeners import exit_refused
from ..layout.reshape import torch_view_strides
from ..refusals import ReshapeRefusal
from .dims import reshape_mapping
from .distributed.watch_collectives import (
    COLLECTIVE_NAMES,
    collective_reason,
    collective_record,
    dtensor_type,
    gather_rows,
    merged_summary,
    note_dtensor_op,
)
from .distributed.watch_collectives import (
    NAMESPACES as COLLECTIVE_NAMESPACES,
)
from .flow import Flow, MemoryTally, Step, TensorInfo, _KeyedRef, broadcast_of
from .summary import NEW_RESULT, torch_category
from .torch_ops import _CACHE, ASKED_CALLS, RESHAPE_CALLS, SILENT_CALLS, op_info

__all__ = ["TorchWatch", "watch_torch"]

INSTALL_HINT = "watch_torch needs PyTorch, which is not installed here; install it with: pip install torch==2.13.0"


def _require_torch() -> Any:
    try:
        import torch
    except ImportError as exc:
        raise ImportError(INSTALL_HINT) from exc
    return torch


def watch_torch() -> TorchWatch:
    """Record the PyTorch ops run inside a ``with`` block, forward and backward.

    Returns a :class:`TorchWatch`; after (or during) the block it has ``steps``, ``copies`` (each
    with bytes, reason, the user's line, the ``nn.Module`` path and ``asked``), ``broadcasts``,
    ``regroups``, ``bytes_copied``, ``allocated_bytes``, ``peak_bytes``; ``w.summary()`` (what to fix:
    rows per source line and module path, ranked by bytes), ``w.table(limit=None)`` (one row per
    aten op), and ``str(w)``: the summary, then the table's first 40 rows (then, on rank 0 of a
    distributed program, ``w.merged``: every rank's collectives, merged at the block's exit).
    Raises ImportError (with the install command) when PyTorch is not installed.

    >>> with watch_torch() as w:
    ...     z = torch.ones(3, 1) - torch.ones(3)
    >>> w.broadcasts[0].bilateral
    True
    """
    _require_torch()
    return TorchWatch()


# A user's Python call as the watch keeps it: name, where, module (three fields in turn in the flat
# ``TorchWatch._calls``: no object per call); a record refers to it by its number, and a reshape
# call's result shape is in ``TorchWatch._targets``.
_NAME, _WHERE, _MODULE, _TARGET = range(4)


class _Record:
    """One aten op as it ran, kept raw; :class:`Step` rows are built from it when asked for.

    The raw fields the recorder keeps (in :class:`_Records`) are only ints, strings, dtypes and
    tuples of ints (so that the garbage collector stops tracking them at its first pass and never
    walks the records again): the op's key in the :data:`~.torch_ops._CACHE`, the index of the user's
    call (-1: none), the autograd node's number and class name (a backward op), kind, bytes
    copied and allocated, the user's line found on the stack (for ops outside any call and for
    backward ops), ``peek`` (the autograd sequence counter after the op: a node the op made has
    number ``peek - 1``), the number of inputs, then shape, strides and dtype of each input and
    each output in turn. Here
    ``inputs``/``outputs`` are tuples of ``(shape, strides, dtype)`` and ``call`` is resolved to
    ``(name, where, module, target)``."""

    __slots__ = ("info", "inputs", "outputs", "call", "node_seq", "node_name", "kind", "copied", "allocated",
                 "where", "peek", "mapping")

    def __init__(self, watch: TorchWatch, key: int, call: int, node_seq: int, node_name: str, kind: str,
                 copied: int, allocated: int, where: str, peek: int, n_in: int, *tensors: Any) -> None:
        self.info = _CACHE[key]
        metas = tuple(tensors[i:i + 3] for i in range(0, len(tensors), 3))
        self.inputs, self.outputs = metas[:n_in], metas[n_in:]  # ((shape, strides, dtype), ...)
        self.call = (*watch._calls[3 * call:3 * call + 3], watch._targets.get(call)) if call >= 0 else None
        self.node_seq = node_seq
        self.node_name = node_name
        self.kind = kind
        self.copied = copied
        self.allocated = allocated
        self.where = where  # the user's line found from the stack: for backward ops, and ops outside any call
        self.peek = peek
        self.mapping: Any = None

    @property
    def call_name(self) -> str:
        return self.call[_NAME] if self.call is not None else ""


class _Records:
    """The raw records, each a run of fields in one flat list (see :class:`_Record` for them).

    Flat, so that recording an op makes no new object that outlives it (its fields are ints,
    strings, dtypes and tuples kept once per watch): a tuple per op would be one more object for
    the garbage collector's young generation, i.e. more collections of the watched program.
    ``records[i]`` is record ``i``'s fields as a tuple; ``len(records)`` the number of records."""

    __slots__ = ("fields", "starts")

    def __init__(self) -> None:
        self.fields: list[Any] = []
        self.starts: list[int] = []  # where each record's fields start

    def __len__(self) -> int:
        return len(self.starts)

    def __getitem__(self, index: int) -> tuple:
        starts = self.starts
        end = starts[index + 1] if index + 1 < len(starts) else len(self.fields)
        return tuple(self.fields[starts[index]:end])


class TorchWatch(Flow):
    """The flow of PyTorch ops seen inside one ``with watch_torch()`` block (see :func:`watch_torch`).

    Entered once (a second ``with`` raises ValueError); an exception in the block ends it cleanly
    and what was recorded stays. Nested watches each see the ops of their own block. Exited once,
    by the thread that entered it, innermost block first: any other exit raises RuntimeError and
    changes nothing (see :meth:`_check_exit`), so the block can still be closed properly.
    """

    title = "watch_torch"

    def __init__(self) -> None:
        self._torch = _require_torch()
        super().__init__()
        self._records = _Records()  # raw, see _Record for the fields
        self.memory = MemoryTally(self._records.starts.__len__)  # (its clock: the op being recorded now)
        self._calls: list[str] = []  # the user's calls, flat: name, where, module of each in turn
        self._targets: dict[int, tuple[int, ...]] = {}  # call index -> result shape of a reshape call
        self._reshapes: dict[int, tuple] = {}  # record index -> (source shape, result shape) of a user's reshape
        self._first_at_peek: dict[int, int] = {}  # autograd counter value -> first record that saw it
        self._last_write_at_peek: dict[int, int] = {}  # ... and the last in-place op that saw it
        self._seq_start = 0
        self._thread = 0  # the thread the block runs in: torch's modes see only its ops
        self._entered = False
        self._context: list[int] = [-1]  # [index of the user's call now running], shared with the recorders
        self._module_stack: list[str] = []
        self._paths: dict[int, str] = {}
        self._roots: dict[int, dict[int, str]] = {}
        self._keep: list[Any] = []
        self._modes: tuple[Any, Any] | None = None
        # DTensor programs: record index -> a collective's facts; the DTensor op now running
        self._collectives: dict[int, tuple] = {}
        self._dtensor_op: list[tuple | None] = [None]
        self._devices: dict[int, tuple[str, str]] = {}  # record index -> (from, to) of a copy between devices
        # rank 0 of a distributed program: every rank's collective rows, gathered at exit
        self.ranks: dict[int, list[dict[str, Any]]] | None = None

    # ------------------------------------------------------------------ entering and leaving

    def __enter__(self) -> TorchWatch:
        if self._entered:
            raise ValueError("a watch_torch() block can be entered only once; "
                             "make a new watch_torch() for each block")
        self._entered = True
        torch = self._torch
        # Autograd nodes made from here on (in this thread) are numbered from this counter on.
        self._seq_start = torch._C._autograd._get_sequence_nr()
        self._thread = threading.get_ident()
        function_mode, dispatch_mode = _mode_classes(torch)
        on_call, on_op = _recorders(self)
        self._modes = (function_mode(on_call), dispatch_mode(on_op, dtensor_type(), self._on_dtensor_op))
        self._modes[0].__enter__()
        self._modes[1].__enter__()
        _watch_modules(torch, self)  # (last: nothing after it can fail and leave it in)
        return self

    def __exit__(self, *exc: Any) -> bool:
        self._check_exit()
        if self._modes is not None:
            self._modes[1].__exit__(*exc)
            self._modes[0].__exit__(*exc)
            self._modes = None
        _unwatch_modules(self._torch, self)
        self._module_stack.clear()
        self._roots.clear()
        self._keep.clear()
        self._context[0] = -1
        self.ranks = gather_rows(self, raised=exc[0] is not None)
        return False

    @property
    def merged(self) -> str | None:
        """Rank 0 of a distributed program (torch.distributed initialized, world size > 1), after
        the block: the collectives of every rank's block merged — per line, module, phase and
        collective: the count per rank and the bytes, ranked by bytes (the table ``strided watch
        --nproc`` prints); None on the other ranks and outside distributed programs. See
        :func:`~.distributed.watch_collectives.gather_rows` for the contract: the exit gathers,
        so every rank must exit its block."""
        return None if self.ranks is None else merged_summary(self.ranks)

    def __str__(self) -> str:
        merged = self.merged
        return super().__str__() + ("" if merged is None else "\n\n" + merged)

    def _check_exit(self) -> None:
        """Refuse an exit that torch would get wrong, before anything changes (so the entering
        thread can still close the block): torch keeps its modes per thread and pops the
        innermost one, whoever asks. Refused: a block never entered or already exited, an exit
        from another thread (torch's own error there, "trying to pop from empty mode stack",
        would leave the block half closed), and one while a mode entered later is still on
        (torch would pop that mode instead, and this block would go on recording)."""
        state = "open" if self._modes is not None else "closed" if self._entered else "new"
        err = exit_refused("strided.watch_torch()", state, self._thread,
                           "torch keeps its dispatch modes per thread: only the entering thread can remove this "
                           "block's, which stay on (recording that thread's ops) until it does")
        if err is not None:
            raise err
        from torch.overrides import _get_current_function_mode
        from torch.utils._python_dispatch import _get_current_dispatch_mode

        function_mode, dispatch_mode = self._modes
        if _get_current_dispatch_mode() is not dispatch_mode or _get_current_function_mode() is not function_mode:
            raise StridedRuntimeError(join_lines(
                "strided.watch_torch() blocks must be exited in the reverse order they were entered",
                "a torch mode entered after this block (another watch_torch() block, a TorchDispatchMode or "
                "a TorchFunctionMode, such as the one torch.set_default_device installs) is still on; torch removes "
                "the innermost mode, which is that one",
                "fix: exit the inner block or mode first (nested with statements do)"))

    def _open(self) -> bool:
        return self._modes is not None

    def _live_state(self) -> dict[str, Any]:
        # The raw records (and what resolves them) stay behind: the pickled copy has its steps
        # built. (The raw records' op keys are ids of this process's aten ops; they can hold
        # SymInts, which do not pickle.) Entering the copy is refused, as for the original.
        return {"_torch": None, "_records": _Records(), "_calls": [], "_targets": {}, "_reshapes": {},
                "_first_at_peek": {}, "_last_write_at_peek": {}, "_collectives": {}, "_devices": {}, "_dtensor_op": [None],
                "_context": [-1], "_module_stack": [], "_paths": {}, "_roots": {}, "_keep": [],
                "_modes": None, "_entered": True}

    # ------------------------------------------------------------------ modules

    def _on_dtensor_op(self, func: Any, args: tuple, kwargs: dict) -> None:
        self._dtensor_op[0] = note_dtensor_op(func, args, kwargs)

    def _module_enter(self, module: Any) -> None:
        """``module`` is being called in this block's thread (see :func:`_watched_module_call`,
        which does the second branch, an inner module's path, inline): its path goes on the module stack."""
        stack = self._module_stack
        if not stack:
            # The outermost module names the others: paths relative to it, like ``h.0.attn``
            # (worked out once per outermost module and watch: a model's forward runs many times).
            paths = self._roots.get(id(module))
            if paths is None:
                paths = self._roots[id(module)] = {id(m): name for name, m in module.named_modules() if name}
                self._keep.append(module)  # so that its id stays its own while the watch runs
            self._paths = paths
            stack.append(type(module).__name__)
        else:
            stack.append(self._paths.get(id(module), type(module).__name__))

    def _module_exit(self) -> None:
        """A module call in this block's thread has ended, returning or raising. (The stack can
        be empty: a block entered inside a module's forward sees that forward end.) Inline in
        :func:`_watched_module_call` too."""
        if self._module_stack:
            self._module_stack.pop()

    # ------------------------------------------------------------------ the records as steps

    @property  # type: ignore[override]
    def steps(self) -> list[Step]:
        """One :class:`Step` per aten op, in the order they ran (built from the raw records)."""
        built = self._steps
        for i in range(len(built), len(self._records)):
            built.append(self._step(i, self._records[i]))
        return built

    @steps.setter
    def steps(self, value: list[Step]) -> None:
        self._steps = list(value)

    def _step(self, index: int, raw: tuple) -> Step:
        r = _Record(self, *raw)
        if _symbolic(r):
            return self._symbolic_step(index, r)
        self._first_at_peek.setdefault(r.peek, index)
        if r.kind == "write":
            self._last_write_at_peek[r.peek] = index
        reshape = self._reshapes.get(index)
        if reshape is not None:
            r.mapping = reshape_mapping(*reshape)
        where, module = self._where_of(r)
        name = r.info.name if not r.node_name else f"{r.info.name} [{r.node_name}]"
        inputs = tuple(TensorInfo(s, st, _dtype_name(d)) for s, st, d in r.inputs)
        outputs = tuple(TensorInfo(s, st, _dtype_name(d)) for s, st, d in r.outputs)
        output = outputs[0] if outputs else (inputs[0] if r.kind == "write" and inputs else None)
        step = Step(index, name, r.kind, inputs, output, where=where, bytes_copied=r.copied,
                    bytes_allocated=r.allocated, module=module, mapping=r.mapping)
        step.extra["phase"] = "backward" if r.node_name else "forward"
        if r.call is not None:
            step.extra["call"] = r.call[_NAME]
            if r.call[_TARGET] is not None:
                step.extra["target"] = r.call[_TARGET]  # a reshape call's result shape (for its fix)
        if r.kind == "copy":
            asked = not r.node_name and r.call is not None and _asks_for_copy(r.call[_NAME])
            step.extra["asked"] = asked
            step.reason = _copy_reason(r, asked)
            crossing = self._devices.get(index)
            if crossing is not None:
                step.extra["devices"] = crossing
                step.reason += f", from {crossing[0]} to {crossing[1]}"
        collective = self._collectives.get(index)
        if collective is not None:
            step.kind = "collective"
            step.extra.update(zip(("collective", "mesh_dim", "group_size", "bytes_in", "bytes_out", "dtensor_op"),
                                  collective))
            step.reason = collective_reason(collective)
        step.category = torch_category(r.info.name, r.kind) if collective is None else "collective"
        if step.category == NEW_RESULT and output is not None:
            # (torch counts these as allocations: no copy reason; say what the new memory holds)
            step.reason = f"{r.info.name}: a new {output.shape} result of elements chosen from its inputs"
        if r.info.pointwise and len(inputs) >= 2 and output is not None:
            step.broadcast = broadcast_of(r.info.name, [t.shape for t in inputs], output.shape, where, index)
        return step

    def _symbolic_step(self, index: int, r: _Record) -> Step:
        """The step of an op with a symbolic size or stride (a ``SymInt``: a fake tensor traced with
        dynamic shapes by ``torch.compile``, ``make_fx`` or ``torch.export``): its shapes and strides
        hold the SymInts as read (printed by name, pickled as :class:`~.flow.SymbolicDim`), its
        bytes are unknown (0), and what needs the
        numbers — the copy's reason in the tensors' own numbers, a reshape's dim mapping, a
        broadcast — is left out rather than guessed (reading a SymInt's value would also add a
        guard to the program being traced)."""
        self._first_at_peek.setdefault(r.peek, index)
        if r.kind == "write":
            self._last_write_at_peek[r.peek] = index
        where, module = self._where_of(r)
        name = r.info.name if not r.node_name else f"{r.info.name} [{r.node_name}]"
        inputs = tuple(TensorInfo(s, st, _dtype_name(d)) for s, st, d in r.inputs)
        outputs = tuple(TensorInfo(s, st, _dtype_name(d)) for s, st, d in r.outputs)
        output = outputs[0] if outputs else (inputs[0] if r.kind == "write" and inputs else None)
        step = Step(index, name, r.kind, inputs, output, where=where, bytes_copied=_known(r.copied),
                    bytes_allocated=_known(r.allocated), module=module)
        step.extra["phase"] = "backward" if r.node_name else "forward"
        if r.call is not None:
            step.extra["call"] = r.call[_NAME]
        if r.kind == "copy":
            step.extra["asked"] = not r.node_name and r.call is not None and _asks_for_copy(r.call[_NAME])
            step.reason = f"{r.info.name} of a tensor with symbolic sizes or strides"
        step.category = torch_category(r.info.name, r.kind)
        return step

    def _where_of(self, r: _Record) -> tuple[str, str]:
        """The user's line and module of an op: a backward op's are those of the forward op that
        made its autograd node. Autograd makes a node just before the op runs, so that op is the
        first to see the counter past the node's number — except a ``CopySlices``, made just after
        an in-place write into a view: the last write that saw the counter at its number. A
        backward op that the user's own Python code ran (a tensor hook, a custom
        ``autograd.Function``'s backward) points at that code instead."""
        if r.node_name and r.call is not None and r.where and r.where != r.call[_WHERE]:
            return r.where, r.call[_MODULE]
        if r.node_name and r.node_seq >= self._seq_start:
            if r.node_name == "CopySlices":
                forward = self._last_write_at_peek.get(r.node_seq)
            else:
                forward = self._first_at_peek.get(r.node_seq + 1)
            if forward is not None:
                return self._where_of(_Record(self, *self._records[forward]))
        if r.call is not None:
            return r.call[_WHERE], r.call[_MODULE]
        return r.where, ""


# ---------------------------------------------------------------------- module paths

# The module paths (``h.0.attn``) come from a wrapper of ``torch.nn.Module.__call__``, put in
# place by the first open block (of any thread) and taken out by the last. Not from global
# module hooks: with any global hook registered, every module call of every thread takes
# PyTorch's slow hooked path in ``Module._call_impl`` (a closure, a set, the hook dicts walked
# twice), about as costly as the watch's modes themselves on a small model. The wrapper costs
# one Python call per module call, and only while a block is open.
#
# How it goes in: not by setting ``Module.__call__`` (any attribute set on a class makes CPython
# invalidate the attribute caches of the class and of every subclass -- each ``nn.Module``
# class of the program -- about 50 us, then every module method looked up again: 3% of the small
# GPT's forward in a block per forward), but by giving torch's own ``Module.__call__`` function
# (``_wrapped_call_impl``) the code of :func:`_module_call_stub`, which calls the wrapper, and its
# own code back at the end (no class is touched). The same function object stays
# ``Module.__call__``, so Dynamo (``torch.compile``), which checks it by identity, sees the
# module call unpatched: it may then trace a module's ``forward`` without calling ``__call__``,
# but under the watch's modes it does not compile (it runs the module as eager code, every
# module call through ``__call__``), so a compiled module's submodules keep their paths
# (tests/test_watch_torch_module_paths.py, tests/test_watch42.py). Where ``Module.__call__`` is not
# torch's function any more (someone replaced it before the block), the wrapper is set as
# ``Module.__call__`` over it, as it always was.
_module_watches: dict[int, list[TorchWatch]] = {}  # thread id -> its open blocks, entered order
_module_lock = threading.Lock()
_get_ident = threading.get_ident
# [Module.__call__ as found when the wrapper went in (what the wrapper calls: for the code swap, a
# copy of torch's function with the code it had), how the wrapper is in: None (not), "code" (the
# stub's code in torch's function), "class" (set as ``Module.__call__``: still in place or in a chain
# someone built on it, then it is never put in twice), torch's register_module_forward_hook]
_module_call: list[Any] = [None, None, None]


def _module_call_stub(self: Any, *args: Any, **kwargs: Any) -> Any:
    """The code torch's ``Module.__call__`` function runs while a block is open (see above): it
    runs with that function's globals, torch's ``torch.nn.modules.module``, in which the wrapper
    is put under this name."""
    return _strided_watched_module_call(self, *args, **kwargs)


def _watched_module_call(self: Any, *args: Any, **kwargs: Any) -> Any:
    """``torch.nn.Module.__call__`` while a watch block is open: the call runs as before (its own
    hooks and compiled form included), with its path on the module stack of each block open in
    this thread for the call's time, taken off when it returns or raises (as an
    ``always_call`` forward hook was). Other threads' modules touch no block: torch's modes,
    and so the blocks, are per thread. The ops of a global forward hook (a user's) are the
    module's it runs for — as they were with the old hooks for one registered before the
    block; one registered inside the block now gets the same, not the caller's."""
    watches = _module_watches.get(_get_ident())
    if not watches:
        return _module_call[0](self, *args, **kwargs)
    for watch in watches:
        stack = watch._module_stack
        if stack:  # (TorchWatch._module_enter of an inner module, inline: two Python calls less per module)
            stack.append(watch._paths.get(id(self), type(self).__name__))
        else:
            watch._module_enter(self)
    if self._forward_hooks:
        return _call_before_own_hooks(self, watches, args, kwargs)
    try:
        return _module_call[0](self, *args, **kwargs)
    finally:
        for watch in watches:
            stack = watch._module_stack
            if stack:  # (TorchWatch._module_exit, inline)
                stack.pop()


# (the name :func:`_module_call_stub` calls the wrapper by, in torch's module; here too, for the linters)
_strided_watched_module_call = _watched_module_call


def _call_before_own_hooks(module: Any, watches: list[TorchWatch], args: tuple, kwargs: dict) -> Any:
    """Call ``module``, which has forward hooks of its own, its path on ``watches``' stacks until
    its forward returns or raises — before its own forward hooks run, which PyTorch runs after
    the global ones: the ops of its hooks belong to its caller (a DTensor ``RowwiseParallel``
    layer's all-reduce is its parent's), as they did when the paths came from a global
    ``always_call`` forward hook. One such hook is put in for the call's time: the module runs
    PyTorch's hooked path anyway."""
    off = [False]

    def leave(called: Any, args: Any, out: Any) -> None:
        if called is module and not off[0]:
            off[0] = True
            for watch in watches:
                watch._module_exit()

    handle = _module_call[2](leave, always_call=True)
    try:
        return _module_call[0](module, *args, **kwargs)
    finally:
        handle.remove()
        if not off[0]:
            for watch in watches:
                watch._module_exit()


def _watch_modules(torch: Any, watch: TorchWatch) -> None:
    """``watch`` (being entered in this thread) now keeps its module stack; the wrapper goes in
    if it is not in place (see above for how)."""
    module = torch.nn.Module
    with _module_lock:
        _module_watches.setdefault(watch._thread, []).append(watch)
        if _module_call[1]:
            return
        register = torch.nn.modules.module.register_module_forward_hook
        call = module.__dict__.get("__call__")
        impl = module.__dict__.get("_wrapped_call_impl")
        stub = _module_call_stub.__code__
        if call is impl and type(call) is FunctionType and len(stub.co_freevars) == len(call.__code__.co_freevars):
            found = _module_call[0]
            if found is None or found.__code__ is not call.__code__:
                found = FunctionType(call.__code__, call.__globals__, call.__name__, call.__defaults__,
                                     call.__closure__)
                found.__kwdefaults__, found.__qualname__ = call.__kwdefaults__, call.__qualname__
            call.__globals__["_strided_watched_module_call"] = _watched_module_call
            _module_call[:] = [found, "code", register]
            call.__code__ = stub
        else:
            _module_call[:] = [module.__call__, "class", register]
            module.__call__ = _watched_module_call


def _unwatch_modules(torch: Any, watch: TorchWatch) -> None:
    """``watch`` (being exited) no longer keeps its module stack; the last open block takes the
    wrapper out: torch's function gets its own code back (unless someone gave it other code
    since), or ``Module.__call__`` its function back -- unless someone replaced it after the
    wrapper went in (a chain that may call it): then it stays, doing nothing while no block is
    open, and is not put in twice."""
    module = torch.nn.Module
    with _module_lock:
        watches = _module_watches.get(watch._thread, [])
        for i in range(len(watches) - 1, -1, -1):
            if watches[i] is watch:
                del watches[i]
                break
        if not watches:
            _module_watches.pop(watch._thread, None)
        if _module_watches:
            return
        # (the call it wrapped stays in _module_call[0]: another thread can be inside the
        # wrapper now, about to call it)
        if _module_call[1] == "code":
            call = module.__dict__.get("_wrapped_call_impl")
            if call is not None and call.__code__ is _module_call_stub.__code__:
                call.__code__ = _module_call[0].__code__
            _module_call[1] = None
        elif _module_call[1] == "class" and module.__dict__.get("__call__") is _watched_module_call:
            module.__call__ = _module_call[0]
            _module_call[1] = None


def _recorders(watch: TorchWatch) -> tuple[Any, Any]:
    """The two functions the modes call, ``on_call(func, args, kwargs)`` for each user's Python
    call and ``on_op(func, args, out)`` for each aten op run.

    They run once per call and per op, so they are closures over what they touch (no attribute
    lookups), read only metadata (each distinct shape or strides tuple kept once) and leave
    every word of the report — steps, reasons, dim mappings, the backward ops' lines — to
    :meth:`TorchWatch._step`, run when ``w.steps`` is read.
    """
    torch = watch._torch
    tensor = torch.Tensor
    is_tensor = tensor.__instancecheck__  # (isinstance(x, torch.Tensor) as a C function)
    records = watch._records.starts  # (its length: the number of records, the index of the next)
    new_record = records.append
    fields = watch._records.fields
    extend = fields.extend
    calls = watch._calls
    targets = watch._targets
    reshapes = watch._reshapes
    context = watch._context
    stack = watch._module_stack
    tally = watch.memory
    collectives = watch._collectives
    devices = watch._devices
    lock = threading.Lock()
    dtensor_op = watch._dtensor_op
    seen = tally._seen  # (checked inline first: most outputs' storages are counted already)
    tuples: dict[tuple, tuple] = {}  # every shape and strides tuple recorded, each kept once
    keep = tuples.setdefault
    lines = _LINES  # (id(code), f_lasti) -> 'file:line', id(code) -> code (see _line_text)
    node_names: dict[type, str] = {}  # autograd node class -> its name
    cpu = torch.device("cpu")
    current_node = torch._C._current_autograd_node
    peek = torch._C._autograd._get_sequence_nr
    ops = _OPS
    getframe = sys._getframe
    # the Python function through which torch enters the autograd engine (backward, autograd.grad)
    engine = getattr(getattr(torch.autograd.graph, "_engine_run_backward", None), "__code__", None)

    def on_call(func: Any, args: tuple, kwargs: dict) -> Any:
        """A user's Python-level torch call: run it with its context set."""
        name = getattr(func, "__name__", "")
        if name in SILENT_CALLS:
            return func(*args, **kwargs)
        call = len(calls) // 3
        calls.extend((name, _user_where(getframe(1).f_back, lines), stack[-1] if stack else ""))
        previous = context[0]
        context[0] = call
        first = len(records)
        try:
            out = func(*args, **kwargs)
        finally:
            context[0] = previous
        if name in RESHAPE_CALLS and len(records) > first and args:
            note_reshape(call, args, out)
        return out

    def note_reshape(call: int, args: tuple, out: Any) -> None:
        """The user's reshape-like call number ``call`` has run ops, the last of them its result:
        keep its result shape (for the copy's reason and fix) and its source shape (for the dim mapping)."""
        source = args[0]
        if isinstance(source, tensor) and isinstance(out, tensor) \
                and source.numel() == out.numel() and source.dtype == out.dtype:
            target = targets[call] = tuple(out.shape)
            reshapes[len(records) - 1] = (tuple(source.shape), target)

    strided = torch.strided
    layouts = _native_layouts()

    def on_op(func: Any, args: tuple, out: Any) -> None:
        """An aten op has run: keep its record and count the memory it made."""
        # (one op at a time: on a GPU the autograd engine runs backward ops on a device thread
        # of its own while the calling thread runs the CPU ones, both through this recorder;
        # a record is several appends to one flat list, which two threads would interleave)
        with lock:
            key = id(func)
            entry = ops.get(key)
            if entry is None:
                entry = ops[key] = _op_entry(func)
            info, lists, kind, allocates, collective = entry
            if lists:
                ins = []
                for a in args:
                    if isinstance(a, tensor):
                        ins.append(a)
                    elif type(a) is list or type(a) is tuple:
                        ins.extend([x for x in a if isinstance(x, tensor)])
            else:
                ins = [*filter(is_tensor, args)]  # (no comprehension frame: 0.25 us less per op)
            outs = (out,) if isinstance(out, tensor) else _tensors(out, tensor)
            index = len(records)
            if collective:
                collectives[index] = collective_record(func.namespace, info.name, args, out, dtensor_op[0])
            node = current_node()
            call = context[0]
            try:
                copied = allocated = 0
                if kind == "maybe_copy":
                    same = bool(outs) and bool(ins) and \
                        outs[0].untyped_storage()._cdata == ins[0].untyped_storage()._cdata
                    kind = "view" if same else "copy"
                if kind == "copy":
                    target = (outs[0] if outs else None) if allocates else ins[0]
                    if target is not None:
                        copied = target.nbytes
                        # (host <-> device: copy_(destination, source), else input -> output)
                        source = ins[1] if not allocates and len(ins) > 1 else ins[0] if ins else target
                        if source.device != target.device:
                            devices[index] = (str(source.device), str(target.device))
                if allocates and kind != "view":
                    for t in outs:
                        # (one Python object per storage, alive exactly as long as the storage)
                        storage = t.untyped_storage()
                        if id(storage) not in seen:
                            nbytes = storage.nbytes()
                            # (the storage of a meta tensor, or of a fake one, holds no memory)
                            # (a CPU storage is told by comparing device objects: reading ``.type``
                            # builds a string each time, 5x the comparison)
                            if nbytes and (storage.device == cpu or storage.device.type != "meta") \
                                    and tally.allocated(storage, nbytes):
                                allocated += nbytes
                # The record's fields go straight into the flat list: its header, then the shape,
                # strides and dtype of each tensor (no list of them, no tuple of the whole record).
                start = len(fields)
                new_record(start)
                if node is None:
                    extend((key, call, -1, "", kind, copied, allocated,
                            _user_where(getframe(1).f_back, lines) if call < 0 else "", peek(), len(ins)))
                else:
                    # (the user's line too: a backward op run by the user's own Python code — a tensor
                    # hook, a custom autograd.Function's backward — points there)
                    cls = type(node)
                    name = node_names.get(cls)
                    if name is None:  # (a node class's __name__ is a new string at each read)
                        name = node_names[cls] = cls.__name__
                    # (the engine's own ops, most of them, are told at the first frame: the one
                    # that entered the engine; see _code_in_backward)
                    frame = getframe(1).f_back
                    extend((key, call, node._sequence_nr(), name, kind, copied, allocated,
                            "" if frame is not None and frame.f_code is engine
                            else _code_in_backward(frame, engine, lines), peek(), len(ins)))
                if layouts is not None:
                    # (the loop below, in C: see _watchrec.c; same fields, same errors)
                    layouts(fields, (*ins, *outs), tuples, strided)
                else:
                    for t in (*ins, *outs):  # (one loop: the same three reads for inputs and outputs)
                        # (each shape and strides tuple kept once per watch: a repeated one — most are —
                        # costs a dict lookup instead of a tuple that lives as long as the watch; fewer
                        # new long-lived objects, fewer garbage collections of the watched program)
                        shape = t.shape
                        strides = t.stride()
                        if strides and not strides[-1] and t.layout is not strided:
                            # (a sparse COO tensor's stride() is all zeros in PyTorch 2.13, not a refusal:
                            # recorded as having none, the careful way; a dense tensor with a last stride
                            # of 0, an expanded one, pays this one attribute read)
                            raise RuntimeError("no strides")
                        try:
                            kept = tuples.get(shape)  # (a torch.Size equals, and hashes as, its tuple)
                            if kept is None:
                                kept = tuple(shape)
                                tuples[kept] = kept
                            strides = keep(strides, strides)
                        except TypeError:
                            # a symbolic size or stride (a SymInt: a fake tensor traced by make_fx or
                            # torch.export) has no hash: kept as read, not once per watch
                            kept = tuple(shape)
                        extend((kept, strides, t.dtype))
            except (RuntimeError, NotImplementedError):
                # a tensor with no storage or no strides (sparse, ...): each read guarded, the
                # record (if begun) made again from them
                if len(records) > index:
                    del records[index:]
                    del fields[start:]
                kind, copied, allocated, metas = careful(info, ins, outs)
                new_record(len(fields))
                if node is None:
                    extend((key, call, -1, "", kind, copied, allocated,
                            _user_where(getframe(1).f_back, lines) if call < 0 else "", peek(), len(ins), *metas))
                else:
                    extend((key, call, node._sequence_nr(), node_name(node), kind, copied, allocated,
                            _code_in_backward(getframe(1).f_back, engine, lines), peek(), len(ins), *metas))

    record = _native_record() if _NATIVE_RECORD[0] else None
    if record is not None:
        # on_op in one C call (``_watchrec.record``), the closure above for the ops it declines;
        # the state is what the closure reads, in the order of the C side's S_* (see _watchrec.c)
        # (the tally's ``allocated`` and the callback of its weak references in C too, where the tally's
        # method is the one they mirror: not where something replaced it, as the --split benchmark does)
        native_tally = type(tally).allocated is _TALLY_ALLOCATED and _native_collector() is not None
        state = (lock.acquire, lock.release, ops, tensor, context, records, fields, tuples, strided, seen,
                 tally.allocated, tally if native_tally else None, _KeyedRef,
                 _native_collector()(tally) if native_tally else None, cpu, current_node, peek, node_names, engine,
                 partial(_user_where, lines=lines), partial(_code_in_backward, engine=engine, lines=lines), on_op)
        fast = partial(record, state)
        # on_call too (``_watchrec.call``): the same calls, lines and context, in one C call
        calls_state = (calls, SILENT_CALLS, RESHAPE_CALLS, context, stack, records, _LIBRARY, _is_library, lines,
                       _line_text, note_reshape, on_call)
        on_call_fast = partial(_native_call(), calls_state)
    else:
        fast, on_call_fast = on_op, on_call

    def node_name(node: Any) -> str:
        """The class name of an autograd node (cached, as in ``on_op``)."""
        cls = type(node)
        name = node_names.get(cls)
        if name is None:
            name = node_names[cls] = cls.__name__
        return name

    def careful(info: Any, ins: list, outs: Any) -> tuple[str, int, int, list]:
        """``on_op``'s reads for tensors that lack some of what a strided tensor has: no storage
        (sparse, nested, a wrapper subclass), no strides (a non-strided layout: ``()``), no sizes
        (nested: ``()``). Storage-less tensors share nothing and count no memory."""
        storages = [_storage_of(t) for t in outs]
        kind, copied, allocated = info.kind, 0, 0
        if kind == "maybe_copy":
            first = _storage_of(ins[0]) if ins else None
            same = bool(storages) and storages[0] is not None and first is not None \
                and storages[0]._cdata == first._cdata
            kind = "view" if same else "copy"
        if kind == "copy":
            target = (outs[0] if outs else None) if info.allocates else ins[0]
            if target is not None:
                copied = _guarded(lambda: target.numel() * target.element_size(), 0)
        if info.allocates and kind != "view":
            for storage in storages:
                nbytes = _guarded(partial(_memory_of, storage), 0) if storage is not None else 0
                if nbytes and tally.allocated(storage, nbytes):
                    allocated += nbytes
        metas: list = []
        for t in [*ins, *outs]:
            metas += (_guarded(partial(_shape_of, t), ()), _guarded(partial(_strides_of, t), ()), t.dtype)
        return kind, copied, allocated, metas

    return on_call_fast, fast


# ---------------------------------------------------------------------- reasons


def _copy_reason(r: _Record, asked: bool) -> str:
    """Why a copy happened, in words and the tensors' own numbers."""
    name = r.info.name
    src = r.inputs[0] if r.inputs else None
    out = r.outputs[0] if r.outputs else src
    if name == "copy_" and len(r.inputs) > 1:
        src, out = r.inputs[1], r.inputs[0]  # copy_(destination, source)
    layout = f"{src[0]} strides {src[1]}" if src is not None else ""
    expanded = _expanded_note(src)
    if name in ("_to_copy", "to", "type_as") and src is not None and out is not None and src[2] != out[2]:
        text = f"dtype conversion {_dtype_name(src[2])} -> {_dtype_name(out[2])}"
    elif name == "copy_":
        text = f"copy_() writes {out[0] if out else ''} into an existing tensor"
        if r.call is not None and r.call_name == "__setitem__":
            text = f"t[...] = value writes {out[0] if out else ''} into part of an existing tensor"
        if r.node_name == "AccumulateGrad":
            text = f"AccumulateGrad copies the gradient {layout} into a new tensor laid out like its parameter"
    elif r.call is not None and not r.node_name and r.call_name in RESHAPE_CALLS and src is not None:
        text = f"{r.call_name} of a non-contiguous input {layout}"
        target = r.call[_TARGET]
        if target is not None:
            refusal = torch_view_strides(tuple(src[0]), tuple(src[1]), target)
            text += f" to {target}"
            if isinstance(refusal, ReshapeRefusal):
                text += f": {refusal.equation()}"
    elif asked and r.call is not None:
        text = {"contiguous": f"contiguous() on a non-contiguous tensor {layout}",
                "clone": f"clone() of {layout}"}.get(r.call_name, f"{r.call_name}() copies {layout}")
    elif r.node_name.startswith(("View", "UnsafeView", "Reshape")) and src is not None:
        text = f"reshape of a non-contiguous gradient {layout}"
    elif src is not None:
        text = f"{name} makes {layout} contiguous"
    else:
        text = name
    if r.node_name and r.node_name != "AccumulateGrad":
        text = f"backward of {r.node_name}: {text}"
    elif not asked and r.call is not None and r.call_name not in RESHAPE_CALLS and not r.node_name:
        text = f"inside {r.call_name}(): {text}"
    return text + expanded


def _asks_for_copy(call: str) -> bool:
    """Whether a user's call by this name asks for a copy (``clone``, ``.to()``, ``permute_copy``, ...)."""
    return call in ASKED_CALLS or call.endswith("_copy") or call.endswith("_copy_")


def _expanded_note(src: Any) -> str:
    if src is None:
        return ""
    dims = tuple(d for d, (n, s) in enumerate(zip(src[0], src[1])) if s == 0 and n > 1)
    return f"; materializes an expanded tensor (stride 0 in dims {dims})" if dims else ""


def _dtype_name(dtype: Any) -> str:
    return str(dtype).removeprefix("torch.")


# ---------------------------------------------------------------------- helpers


def _known(nbytes: Any) -> int:
    """A byte count, or 0 where it is symbolic (unknown until the program runs)."""
    return nbytes if type(nbytes) is int else 0


def _symbolic(r: _Record) -> bool:
    """Whether any size or stride of the op's tensors, or its bytes, is symbolic (not an ``int``)."""
    if type(r.copied) is not int or type(r.allocated) is not int:
        return True
    return any(type(d) is not int for meta in (*r.inputs, *r.outputs) for dims in meta[:2] for d in dims)



# id(op) -> what the recorder reads of it per op, unpacked in one step: its OpInfo, ``lists``,
# ``kind``, ``allocates``, and whether it is a collective (kept alive by torch_ops._KEEP, through
# op_info: an id stays its op's)
_OPS: dict[int, tuple] = {}


def _op_entry(func: Any) -> tuple:
    """The recorder's per-op facts of the aten op ``func`` (see :data:`_OPS`)."""
    info = _CACHE.get(id(func)) or op_info(func)
    collective = info.name in COLLECTIVE_NAMES and func.namespace in COLLECTIVE_NAMESPACES
    return info, info.lists, info.kind, info.allocates, collective


def _tensors(out: Any, tensor: type) -> list[Any]:
    """The tensors ``out`` holds: itself, or those of a list or tuple (one level down)."""
    if isinstance(out, tensor):
        return [out]
    if isinstance(out, (list, tuple)):
        return [t for t in out if isinstance(t, tensor)]
    return []


def _storage_of(t: Any) -> Any:
    """``t``'s ``UntypedStorage``, or None for a tensor that has none (sparse, ...)."""
    return _guarded(t.untyped_storage, None)


def _memory_of(storage: Any) -> int:
    """The bytes of memory ``storage`` holds (none for a meta or fake tensor's)."""
    return storage.nbytes() if storage.device.type != "meta" else 0


def _shape_of(t: Any) -> tuple[int, ...]:
    return tuple(t.shape)


def _strides_of(t: Any) -> tuple[int, ...]:
    """``t``'s strides; ``()`` for a layout that has none (sparse, ...)."""
    import torch

    return t.stride() if t.layout == torch.strided else ()


def _guarded(read: Any, default: Any) -> Any:
    """``read()``, or ``default`` where torch refuses it for this kind of tensor."""
    try:
        return read()
    except (RuntimeError, NotImplementedError):
        return default


_LIBRARY: dict[str, bool] = {}
_PREFIXES: list[tuple[str, ...]] = []


def _is_library(filename: str) -> bool:
    """Whether a frame's file belongs to torch, strided or the standard library (cached per file)."""
    known = _LIBRARY.get(filename)
    if known is not None:
        return known
    if not _PREFIXES:
        import torch

        paths = sysconfig.get_paths()  # (once: each call expands every install path, ~0.4 ms)
        roots = (paths["stdlib"], paths["platstdlib"])
        stdlib = tuple({os.path.realpath(p) + os.sep for p in roots} | {p + os.sep for p in roots})
        _PREFIXES.append((os.path.dirname(os.path.abspath(torch.__file__)) + os.sep, PACKAGE_DIR))
        _PREFIXES.append(stdlib)
    ours, stdlib = _PREFIXES
    # Third-party libraries (site-packages: transformers, ...) count as user code.
    known = (filename.startswith(ours) or filename.startswith("<frozen")
             or (filename.startswith(stdlib) and "-packages" + os.sep not in filename))
    _LIBRARY[filename] = known
    return known


def _code_in_backward(frame: Any, engine: Any, lines: dict) -> str:
    """``file:line`` of the user's code that runs a backward op (a tensor hook, a custom
    ``autograd.Function``'s backward), or "" for an op the autograd engine runs itself: the first
    frame outside torch, strided and the stdlib met before the frame ``engine`` that entered the
    engine (without ``engine``, the first such frame: the ``.backward()`` line, which the watch
    tells apart from a hook's because it is the backward call's own line); ``lines``: see
    :func:`_line_text`."""
    known = _LIBRARY
    while frame is not None:
        code = frame.f_code
        if code is engine:
            return ""
        library = known.get(code.co_filename)
        if library is None:
            library = _is_library(code.co_filename)
        if not library:
            return _line_text(frame, code, lines)
        frame = frame.f_back
    return ""


def _line_text(frame: Any, code: Any, lines: dict) -> str:
    """``file:line`` of ``frame`` (running ``code``), cached in ``lines`` per code object and
    instruction offset: the same few lines recur for every op, and working out a line number
    scans the code's line table. The code object is keyed by its ``id``, not by itself: hashing
    a code object hashes its name, constants and names each time (0.5-1 us for a model's
    ``forward``, as much as the rest of recording a call), and code objects that match in all but
    their file compare equal (the same function in two files), so an equality key would need the
    file too. ``lines`` keeps each code object it has seen (under ``id(code)``) so that the id
    stays its own while the cache lives."""
    key = (id(code), frame.f_lasti)
    where = lines.get(key)
    if where is None:
        if len(lines) >= _LINES_MAX:
            lines.clear()  # (both kinds of keys at once: an id is never left without its code)
        where = lines[key] = f"{code.co_filename}:{frame.f_lineno}"
        lines[key[0]] = code
    return where


# The watches' line cache (see _line_text), one per process, not per block: a model's forward
# asks for the same few dozen lines in every block, and working them out again in each new block
# was ~2 us a line. It keeps the code objects it has seen alive (a few per user's line), at most
# _LINES_MAX entries: then it starts over.
_LINES: dict = {}
_LINES_MAX = 1 << 16


def _user_where(frame: Any, lines: dict) -> str:
    """``file:line`` of the first frame from ``frame`` outwards outside torch, strided and the
    stdlib; ``lines``: see :func:`_line_text`."""
    known = _LIBRARY  # (looked up inline: one call per frame was most of this walk's cost)
    while frame is not None:
        code = frame.f_code
        library = known.get(code.co_filename)
        if library is None:
            library = _is_library(code.co_filename)
        if not library:
            return _line_text(frame, code, lines)
        frame = frame.f_back
    return "<unknown>"


# [the compiled module ``strided.diagnose._watchrec``, or None where it is not built], once found
# (each block asks for its functions: an import statement per ask cost ~5 us of the block's start)
_WATCHREC: list[Any] = []


def _watchrec_function(name: str) -> Any:
    """The function ``name`` of ``strided.diagnose._watchrec``, or None where it is not built."""
    if not _WATCHREC:
        try:
            from . import _watchrec
        except ImportError:  # pragma: no cover - built without a C compiler
            _WATCHREC.append(None)
        else:
            _WATCHREC.append(_watchrec)
    return getattr(_WATCHREC[0], name, None)


def _native_layouts() -> Any:
    """The compiled per-tensor reads of the recorder (``strided.diagnose._watchrec.layouts``), or
    None where the extension is not built (then ``on_op``'s Python loop reads the same fields)."""
    return _watchrec_function("layouts")


def _native_record() -> Any:
    """The compiled ``on_op`` (``strided.diagnose._watchrec.record``), or None where the extension
    is not built (then ``on_op`` is the Python closure of :func:`_recorders`)."""
    return _watchrec_function("record")


def _native_call() -> Any:
    """The compiled ``on_call`` (``strided.diagnose._watchrec.call``); only asked for where
    :func:`_native_record` found the extension."""
    return _watchrec_function("call")


def _native_collector() -> Any:
    """The compiled ``MemoryTally._collected`` maker (``strided.diagnose._watchrec.collector``: the
    callback of a tally's weak references, bound to the tally), or None where the extension is not built."""
    return _watchrec_function("collector")


# The method the compiled tally mirrors (``_watchrec.tally_allocated``): a watch whose tally's
# ``allocated`` is another (replaced, subclassed) calls that one instead.
_TALLY_ALLOCATED = MemoryTally.allocated


# Whether new watches record each op through the compiled ``record`` (where built): a switch for
# the tests and benchmarks that compare it with the Python recorder, which must give the same records.
_NATIVE_RECORD = [True]


_MODES: list[tuple[Any, Any]] = []
_DTENSOR_MODULE = "torch.distributed.tensor"


def _mode_classes(torch: Any) -> tuple[Any, Any]:
    """The two mode classes, defined on first use so that importing this module never imports torch."""
    if _MODES:
        return _MODES[0]
    from torch._ops import OpOverload
    from torch.overrides import TorchFunctionMode
    from torch.utils._python_dispatch import TorchDispatchMode

    class _FunctionMode(TorchFunctionMode):
        def __init__(self, on_call: Any) -> None:
            super().__init__()
            self.on_call = on_call

        def __torch_function__(self, func: Any, types: Any, args: tuple = (), kwargs: Any = None) -> Any:
            return self.on_call(func, args, kwargs or {})

    def dispatch(self: Any, func: Any, types: Any, args: tuple = (), kwargs: Any = None) -> Any:
        # (``types`` holds only tensor subclasses with a dispatch of their own: empty for plain
        # tensors, so the DTensor checks cost one test per op)
        if types and self.on_dtensor is not None:
            if self.dtensor is None and _DTENSOR_MODULE in sys.modules:
                self.dtensor = dtensor_type()  # (the script imported DTensor inside the block)
            if self.dtensor is not None and self.dtensor in types:
                # DTensor runs it (as under CommDebugMode): its redistribution's collectives and
                # the local op come back here on plain tensors, each recorded as a step of its own
                self.on_dtensor(func, args, kwargs or {})
                return NotImplemented
        if not kwargs:
            # (an aten OpOverload's ``__call__`` is ``self._op(*args, **kwargs)``: called straight,
            # one Python frame less per op; a subclass, which may override it, is called as is)
            out = func._op(*args) if type(func) is OpOverload else func(*args)
            self.on_op(func, args, out)
            return out
        out = func(*args, **kwargs)
        # keyword-only tensors are inputs too (an attention mask, ...); ``out=`` is the result
        tensors = [v for k, v in kwargs.items() if k != "out" and isinstance(v, torch.Tensor)]
        self.on_op(func, (*args, *tensors) if tensors else args, out)
        return out

    dynamo_kept_out = _keep_dynamo_out(dispatch)

    class _DispatchMode(TorchDispatchMode):
        def __init__(self, on_op: Any, dtensor: type | None = None, on_dtensor: Any = None) -> None:
            super().__init__()
            self.on_op = on_op
            self.dtensor = dtensor
            self.on_dtensor = on_dtensor

        __torch_dispatch__ = dispatch

        if dynamo_kept_out:
            @classmethod
            def _should_skip_dynamo(cls) -> bool:
                return False  # (Dynamo is kept out by _keep_dynamo_out, at no cost per op)

    _MODES.append((_FunctionMode, _DispatchMode))
    return _MODES[0]


def _keep_dynamo_out(handler: Any) -> bool:
    """Keep Dynamo (``torch.compile``) out of a dispatch mode's ``handler`` and all it calls, as
    PyTorch's own wrapper does, without the wrapper's cost per op; False where this torch has no
    way to (then the caller keeps the wrapper).

    PyTorch wraps every ``TorchDispatchMode``'s ``__torch_dispatch__``, when the class is made,
    in ``torch._dynamo.disable``: a compiled region that runs an aten op under the mode must
    neither compile the handler's frame nor inline it into a graph. That wrapper is two Python
    frames and half a dozen Python calls on every op (about 1 us, a tenth of the watch's own
    work per op), and its first call imports ``torch._dynamo`` (seconds). The same two promises,
    made once: the handler's code is marked for Dynamo's frame hook as skipped, it and every
    frame it calls (what the wrapper's ``set_eval_frame(None)`` does for each call), and the
    function carries the flag Dynamo's tracer reads to refuse inlining it (the wrapper's)."""
    try:
        from torch._C._dynamo.eval_frame import _FrameAction, _FrameExecStrategy, set_code_exec_strategy
    except ImportError:  # pragma: no cover - a torch build without Dynamo
        return False
    set_code_exec_strategy(handler.__code__, _FrameExecStrategy(_FrameAction.SKIP, _FrameAction.SKIP))
    handler._torchdynamo_disable = True
    return True
