"""The op records and their listeners: the channel of :mod:`strided.dispatch`, at the bottom.

It lives in the kernels layer because the lowest thing that reports is the one copy function
(:func:`strided.kernels.copy_to_new`, which also serves copies no op asked for: a snapshot, a
grown storage); :mod:`strided.dispatch` re-exports it and reports the tensor-level ops.

Cost when nobody listens: one truth test of :data:`OPEN`, a module-level list that is
non-empty while any listener block is open in any thread. Only then is the context-local
:data:`_listeners` read, so a block belongs to its thread or asyncio task, as the copy
ledger's always did.
"""

from __future__ import annotations

import _thread  # (threading's primitives, without importing threading: ~0.6 ms of the import)
import contextlib
import sys
from collections.abc import Callable, Iterator
from contextvars import ContextVar, Token
from typing import Any

from ..callsite import PACKAGE_DIR
from ..errors import StridedRuntimeError, join_lines


class OpRecord:
    """One op as it happened: ``name``, ``kind`` ("view", "copy", "compute", or "alloc" for a
    factory's new memory read from no tensor: ``zeros``, ``arange``, ...), ``inputs`` (the
    tensors read), ``output`` (the tensor made or written; None for a copy no tensor holds), and
    ``plan``: for a copy the reason text, for a view the new layout, for a compute op None.

    ``why`` is the value a layout plan gave for a copy (``layout.plans.Copy.why``: the refusal
    that forced it, ``NotContiguous``, ``CopyRequested``), None when no plan decided it.
    ``nbytes`` is the bytes a copy wrote (0 otherwise); ``shape`` and ``dtype`` (a NumPy dtype)
    are the result's, also for a copy no tensor holds. ``where`` is the user's ``file:line``: the
    innermost frame outside the strided package.

    >>> x, records = strided.ones(2, 3), []
    >>> with strided.dispatch.listen(records.append):
    ...     y = x.permute(1, 0)
    >>> records[0].name, records[0].kind
    ('permute', 'view')
    """

    __slots__ = ("name", "kind", "inputs", "output", "plan", "nbytes", "why", "_shape", "_dtype", "where")

    def __init__(self, name: str, kind: str, inputs: tuple, output: Any, plan: Any = None,
                 nbytes: int = 0, shape: tuple[int, ...] | None = None, dtype: Any = None,
                 why: Any = None) -> None:
        self.why = why
        self.name = name
        self.kind = kind
        self.inputs = inputs
        self.output = output
        self.plan = plan
        self.nbytes = nbytes
        self._shape = shape
        self._dtype = dtype
        # The user's frame is found now (frames move on, so their lines must be read while the
        # op runs): the walk stops at the first frame outside strided, a few frames up.
        frame = sys._getframe(2)  # (the caller of emit)
        while frame is not None and frame.f_code.co_filename.startswith(PACKAGE_DIR):
            frame = frame.f_back
        self.where = "<unknown>" if frame is None else f"{frame.f_code.co_filename}:{frame.f_lineno}"

    @property
    def shape(self) -> tuple[int, ...]:
        """The result's shape."""
        return self.output._layout.shape if self._shape is None else self._shape

    @property
    def dtype(self) -> Any:
        """The result's NumPy dtype."""
        return self.output._dtype.numpy if self._dtype is None else self._dtype

    def __repr__(self) -> str:
        return f"OpRecord({self.name!r}, {self.kind!r}, {len(self.inputs)} inputs, plan={self.plan!r})"


Listener = Callable[[OpRecord], Any]

# Non-empty while a listener block is open anywhere (any thread): the one cheap check.
OPEN: list[object] = []

# The listeners open in this context (thread, asyncio task), innermost last. A tuple, never
# mutated: entering a block sets a longer tuple, leaving it the tuple without that listener.
_listeners: ContextVar[tuple[Listener, ...]] = ContextVar("strided_copy_ledgers", default=())
listeners = _listeners.get


class Listening:
    """A block that delivers this context's op records to ``listener`` (made by :func:`listening`).

    Entered once and exited once, in the thread that entered it: the records come from that
    thread's context, so no other thread can close the block. Exiting it from another thread,
    a second time or before entering raises RuntimeError and changes nothing, so the entering
    thread can still close it. ``what`` names the block in those errors (``record_copies()``).
    """

    __slots__ = ("listener", "what", "_mine", "_token", "_gate", "_thread", "_state")

    def __init__(self, listener: Listener, what: str = "strided.dispatch.listen()") -> None:
        self.listener = listener
        self.what = what
        self._mine: tuple = ()
        self._token: Token | None = None
        self._gate = object()  # (a ledger is a list: equal ledgers must not remove each other's gate)
        self._thread = 0
        self._state = "new"  # "new", "open", "closed"

    def __enter__(self) -> Any:
        if self._state != "new":
            raise StridedRuntimeError(join_lines(
                f"this {self.what} block was already entered",
                "a block records one stretch of code once",
                f"fix: make a new one for each block: with {self.what}: ..."))
        self._state = "open"
        self._thread = _thread.get_ident()
        self._mine = (*_listeners.get(), self.listener)
        self._token = _listeners.set(self._mine)
        OPEN.append(self._gate)
        return self.listener

    def __exit__(self, *exc: Any) -> bool:
        err = exit_refused(self.what, self._state, self._thread,
                           "it records the entering thread's ops, from that thread's context, which no other "
                           "thread can change: the block stays open, recording them, until that thread exits it")
        if err is not None:
            raise err
        self._state = "closed"
        OPEN.remove(self._gate)
        _close(self.listener, self._mine, self._token)  # type: ignore[arg-type]
        return False


def exit_refused(what: str, state: str, thread: int, why: str) -> StridedRuntimeError | None:
    """The error for exiting the recording block ``what`` now, or None when the exit is right.

    ``state`` is "new" (never entered), "closed" (already exited) or "open"; an open block may be
    exited only by ``thread``, the one that entered it (``why``: why no other thread can).
    Shared by :class:`Listening` and ``watch_torch``.
    """
    if state != "open":
        return StridedRuntimeError(join_lines(
            f"this {what} block was {'never entered' if state == 'new' else 'already exited'}",
            "a block is exited once, after it is entered; what it recorded stays",
            f"fix: let a with statement enter and exit it: with {what} as ...: ..."))
    here = _thread.get_ident()
    if here != thread:
        return StridedRuntimeError(join_lines(
            f"a {what} block must be exited in the thread that entered it (entered in thread {thread}, "
            f"exited in thread {here})",
            why,
            "fix: exit it in the thread that entered it (leave the with block there)"))
    return None


def listening(listener: Listener, what: str = "strided.dispatch.listen()") -> Listening:
    """Call ``listener(record)`` for every :class:`OpRecord` made in this context inside the block.

    Nested blocks each get every record; other threads' and tasks' records are not delivered.
    The block is a :class:`Listening`: entered once, exited once, by the thread that entered it.
    """
    return Listening(listener, what)


@contextlib.contextmanager
def silenced() -> Iterator[None]:
    """Deliver no record to this context's listeners inside the block: a diagnostic's own ops
    (``draw`` running an op to show its values) are not the user's. Costs nothing unused."""
    token = _listeners.set(())
    try:
        yield
    finally:
        _listeners.reset(token)


def _close(listener: Listener, mine: tuple, token: Token) -> None:
    """Stop delivering to ``listener``, matching it by identity (two empty ledgers are equal)."""
    now = _listeners.get()
    if now is mine:
        try:
            _listeners.reset(token)  # the usual, properly nested exit: exactly what was there
            return
        except ValueError:
            pass  # the token belongs to another context (a generator resumed elsewhere)
    # Blocks closed out of order (ExitStack misuse, another context): drop only this listener.
    _listeners.set(tuple(x for x in now if x is not listener))


def emit(*args: Any, **kwargs: Any) -> None:
    """Deliver ``OpRecord(*args, **kwargs)`` to this context's listeners, if any (call it only
    when :data:`OPEN`: that check is the caller's, so nothing is built when nobody listens).

    Inside an op entry that reports (:func:`listened`) the record is the op's data, not a step
    of its own: a copy is kept for the entry (its reason and bytes become the op's record when
    it made the op's result; any other copy is delivered as a copy when the op ends), a copy no
    tensor holds (a kernel's temporary) is delivered at once, and the rest (the views and
    computations the op is made of) is dropped: the entry's one record stands for them."""
    found = _listeners.get()
    if found:
        record = OpRecord(*args, **kwargs)
        note = _ENTRY.get()
        if note is not None and (record.kind != "copy" or record.output is not None):
            if record.kind == "copy":
                note.append(record)
            return
        for listener in found:
            listener(record)


def emit_step(*args: Any, **kwargs: Any) -> None:
    """Deliver ``OpRecord(*args, **kwargs)`` as a step of its own, also from inside a reporting
    op entry (delivered when the entry ends, before the entry's own record): for the inner view
    that IS an op's memory story, e.g. the window view a convolution reads its input through
    (``emit`` would fold it into the op's one record). Call it only when :data:`OPEN`."""
    found = _listeners.get()
    if found:
        record = OpRecord(*args, **kwargs)
        note = _ENTRY.get()
        if note is not None:
            note.append(record)  # (listened delivers every record that did not make the op's result)
            return
        for listener in found:
            listener(record)


# The reporting op entry running in this context (the list of copies it made), or None: ops run
# inside it report nothing of their own (see emit).
_ENTRY: ContextVar[list[OpRecord] | None] = ContextVar("strided_reporting_entry", default=None)


def reporting() -> bool:
    """Whether an op entry called now reports itself: a listener is open in this context and no
    other entry runs around this one. Ask only when :data:`OPEN` (the entry's one cheap check)."""
    return bool(_listeners.get()) and _ENTRY.get() is None  # (a block open in another thread: one read)


def listened(name: str, op: Any, run: Callable[..., Any], args: tuple, kwargs: dict, inputs: tuple) -> Any:
    """``run(*args, **kwargs)``, the op ``name`` (its entry's own path), reported as one record
    when it returns: the copy that made its result (a "copy" with its reason and bytes; one per
    piece of a result copied piece by piece, as ``split_copy``'s), else a
    view (its layout as plan) or the op's kind ("compute", "alloc"; an in-place write is a
    "compute" op whose output is its target); nothing when it handed back an input unchanged
    (``contiguous()`` of a contiguous tensor). ``op``: the op's registry entry (its ``kind``,
    read now: the op table gives kinds after the entries are made), or "write". ``inputs``: the
    record's inputs (tensors and the numbers an operator reads)."""
    kind = op if op.__class__ is str else ("compute" if op.kind is None else op.kind.value)
    copies: list[OpRecord] = []
    token = _ENTRY.set(copies)
    try:
        out = run(*args, **kwargs)
    finally:
        _ENTRY.reset(token)
    found = _listeners.get()
    if not found:
        return out
    mine = _storages_of(out)
    own = []
    for record in copies:
        if kind != "write" and _storage_of(record.output) in mine:  # (the result, or a piece of it: split_copy)
            own.append(record)
            continue
        for listener in found:
            listener(record)
    if len(own) > 1:  # a copy per piece (split_copy): each piece is a buffer of its own in the ledger
        for record in own:
            record.name, record.inputs = name, inputs
            for listener in found:
                listener(record)
        return out
    if kind == "write":  # (its output is its target: __setitem__ returns None)
        record = OpRecord(name, "compute", inputs, args[0])
    elif own:
        record = own[0]
        record._shape, record._dtype = record.shape, record.dtype  # (its own result's, before out replaces it)
        record.name, record.inputs, record.output = name, inputs, out
    elif any(out is i for i in inputs):
        return out
    else:
        first = out[0] if isinstance(out, (tuple, list)) and out else out
        lay = getattr(first, "_layout", None)
        record = OpRecord(name, kind, inputs, out, lay if kind == "view" and first is out else None,
                          shape=None if lay is None else lay.shape,
                          dtype=None if lay is None else first._dtype.numpy)
    for listener in found:
        listener(record)
    return out


def _storage_of(out: Any) -> Any:
    """The storage of a result: a tensor's, or the first tensor's of a tuple of them (None else)."""
    if isinstance(out, (tuple, list)):
        out = out[0] if out else None
    return getattr(out, "_storage", None)


def _storages_of(out: Any) -> list[Any]:
    """The storages of a result's tensors (a tuple's pieces each)."""
    return [t._storage for t in (out if isinstance(out, (tuple, list)) else (out,)) if hasattr(t, "_storage")]
