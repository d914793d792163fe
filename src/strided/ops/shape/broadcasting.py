"""Broadcasting of operand shapes, with PyTorch's error, and *loud* broadcasting.

Shapes (NumPy's three rules): align right, pad the shorter shape with 1s on
the left, and along each dim the sizes must be equal or one of them 1.

Loud broadcasting catches the silent bug in which ``pred`` of shape (B, 1)
minus ``target`` of shape (B,) gives (B, B): an operation where *both*
operands are stretched (each one grows along a dim the other one supplies; a
missing leading dim counts as size 1). Ordinary broadcasting, where only one
side grows (a bias (D,) added to (B, T, D), a Python scalar, a 0-d tensor), is
never flagged.

``strided.broadcasting(mode, rank_promotion=False)`` sets the mode:

- ``"allow"`` (the default): say nothing;
- ``"warn"``: a :class:`strided.BroadcastWarning` attributed to the user's line;
- ``"raise"``: a :class:`strided.BroadcastError` (a ValueError).

With ``rank_promotion=True`` any tensor operand with dims that gets new
leading dims is flagged as well (a (D,) bias added to (B, T, D) then needs an
explicit ``bias.expand(...)`` or ``reshape``); Python scalars and 0-d tensors
are still never flagged.

Where the setting lives
-----------------------
The setting is context-local, as NumPy 2's ``errstate`` and ``decimal.localcontext`` are:

- a *plain call* ``strided.broadcasting("warn")`` outside any ``with`` block sets the
  **process-wide default** at once (every thread without a block of its own sees it);
- ``with strided.broadcasting("raise"):`` sets the mode for its own **context** only (this
  thread, or this asyncio task and the tasks it starts), and its exit restores exactly what that
  context saw at entry; other threads never see the block;
- a plain call made *inside* a ``with`` block takes effect at once for its caller and lasts until
  that block ends (it edits the block's setting, as ``np.seterr`` inside ``np.errstate`` does).

# Note: PyTorch has no loud broadcasting; the contextvars scoping follows NumPy's errstate.

Mechanism: one ``ContextVar`` holds the active :class:`_Settings`. Its default is the one
mutable process-wide default; each ``with`` block pushes an immutable layer that remembers the
layer below it and the ``broadcasting`` object that opened it, and its exit sets the variable
back to that layer's ``below``. Readers (the per-op mode check) do one ``ContextVar.get``.

The hard part is that ``__init__`` runs before ``__enter__``: if ``__init__`` applied the mode as
a plain call, another thread would see a ``with`` block's mode between the two. So ``__init__``
looks at the caller's next bytecode instruction: when it is the start of a ``with`` statement
(``BEFORE_WITH`` on Python 3.11-3.13, ``COPY`` + ``LOAD_SPECIAL`` on 3.14),
the call is the ``with`` expression and changes nothing until ``__enter__``. Otherwise (a plain
call, or an object made now and entered later: a helper that returns it,
``ExitStack.enter_context``) it applies at once as a plain call, and ``__enter__`` withdraws
that plain call again before it scopes the block. The process default is the newest plain call
still in force, kept in a short list, and a withdrawal removes its own entry by identity, so
threads that interleave such blocks never put back each other's values. Only in the moment
between such an object's creation and its ``__enter__`` do other threads see its mode: write
``with strided.broadcasting(...):`` on the ``with`` line itself to avoid even that.

A plain call racing an op in another thread may be seen by that op as the old setting, the new
one, or (for one op) the new mode with the old ``rank_promotion``: no lock on the read path.
"""

from __future__ import annotations

import _thread  # (threading's primitives, without importing threading: ~0.6 ms of the import)
import opcode
import sys
import warnings
import weakref
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from functools import lru_cache
from types import CodeType, FrameType, TracebackType

import numpy as np

from ... import layout as L
from ...callsite import user_site
from ...errors import BroadcastError, BroadcastWarning, StridedTypeError, StridedValueError, join_lines
from ...messages import both_stretched_message, broadcast_mismatch, rank_promotion_message

Shape = tuple[int, ...]

_MODES = ("allow", "warn", "raise")


class _Settings:
    """One layer of the setting: ``mode``, ``rank_promotion``, the layer ``below`` it and the
    ``broadcasting`` object whose ``with`` block ``opened_by`` it (None for the process default)."""

    __slots__ = ("mode", "rank_promotion", "below", "opened_by")

    def __init__(
        self, mode: str, rank_promotion: bool, below: _Settings | None, opened_by: broadcasting | None
    ) -> None:
        self.mode = mode
        self.rank_promotion = rank_promotion
        self.below = below
        self.opened_by = opened_by


# The process-wide default: the only mutable layer (plain calls outside blocks edit it in place).
_PROCESS = _Settings("allow", False, None, None)
_process_lock = _thread.allocate_lock()


class _PlainCall:
    """One plain call's contribution to the process default: its setting and a weak reference
    to the ``broadcasting`` object that made it (None once nothing can enter it any more)."""

    __slots__ = ("mode", "rank_promotion", "owner")

    def __init__(self, mode: str, rank_promotion: bool, owner: weakref.ref | None) -> None:
        self.mode = mode
        self.rank_promotion = rank_promotion
        self.owner = owner

    def settled(self) -> bool:
        """True when no ``with`` can withdraw this call any more (its object is gone)."""
        return self.owner is None or self.owner() is None


# The plain calls in force, oldest first; the process default is the last one's setting. A
# plain call whose object is later entered as a ``with`` block withdraws itself from this list
# by identity, wherever it sits, so interleaved threads cannot put back each other's values.
_plain_calls: list[_PlainCall] = [_PlainCall("allow", False, None)]


_active: ContextVar[_Settings] = ContextVar("strided_broadcasting", default=_PROCESS)

#: The settings the calling context sees (``current().mode``): the hot-path read, one C call.
current = _active.get


class broadcasting:  # noqa: N801 - used like a function: strided.broadcasting("warn")
    """Set how strided reports risky broadcasts: ``"allow"``, ``"warn"`` or ``"raise"``.

    ``strided.broadcasting("warn")`` sets the process-wide default (or, inside a ``with``
    block, the block's setting); ``with strided.broadcasting("raise"): ...`` sets it for this
    thread or asyncio task until the block ends, then restores exactly what was there.
    ``rank_promotion=True`` also flags any tensor with dims that broadcasting gives new leading
    dims. Both arguments are checked before anything changes.

    >>> with strided.broadcasting("raise"):
    ...     strided.ones(3, 1) + strided.ones(3)
    Traceback (most recent call last):
    ...
    strided.errors.BroadcastError: add: broadcasting stretched both operands: a (3, 1) and b (3,) give (3, 3)
    ...
    """

    __slots__ = ("mode", "rank_promotion", "_undo", "__weakref__")

    def __init__(self, mode: str, rank_promotion: bool = False) -> None:
        mode, rank_promotion = _validated(mode, rank_promotion)
        self.mode = mode
        self.rank_promotion = rank_promotion
        self._undo: Callable[[], None] | None = None
        if not _is_with_expression(sys._getframe(1)):
            self._undo = _apply_now(self)

    def __enter__(self) -> broadcasting:
        # An object made by a plain call and entered later (a helper that returns it,
        # ExitStack.enter_context) withdraws its process-wide effect now: from here on the
        # block is scoped to this context like any other.
        undo, self._undo = self._undo, None
        if undo is not None:
            undo()
        _active.set(_Settings(self.mode, self.rank_promotion, _active.get(), self))
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        _close_layer(self)

    def __repr__(self) -> str:
        return f"strided.broadcasting({self.mode!r}, rank_promotion={self.rank_promotion})"


def _validated(mode: object, rank_promotion: object) -> tuple[str, bool]:
    """Both arguments checked (nothing is changed before this returns)."""
    if not isinstance(mode, str) or mode not in _MODES:
        raise StridedValueError(
            f"broadcasting(): mode must be one of {', '.join(repr(m) for m in _MODES)}, not {mode!r:.60}"
        )
    # Note: only real booleans (and NumPy's bool scalars): bool("no") is True, and an array's
    # truth is ambiguous, so neither may pass for a flag.
    if not isinstance(rank_promotion, (bool, np.bool_)):
        raise StridedTypeError(
            join_lines(
                f"broadcasting(): argument 'rank_promotion' must be bool, not {type(rank_promotion).__name__}",
                f"got {rank_promotion!r:.60}; only True or False says whether a tensor that gets new "
                "leading dims is flagged",
                f"fix: strided.broadcasting({mode!r}, rank_promotion=True) (or False)",
            )
        )
    return mode, bool(rank_promotion)


def _apply_now(owner: broadcasting) -> Callable[[], None]:
    """Apply a plain call at once; return how to withdraw it if its object is then entered."""
    top = _active.get()
    if top.opened_by is not None:  # inside a with block: edit that block's setting
        layer = _Settings(owner.mode, owner.rank_promotion, top.below, top.opened_by)
        _active.set(layer)

        def undo_layer() -> None:
            if _active.get() is layer:
                _active.set(top)

        return undo_layer
    call = _PlainCall(owner.mode, owner.rank_promotion, weakref.ref(owner))
    with _process_lock:
        # Everything below the newest settled call is shadowed for good: drop it (bounded list).
        keep = max(i for i, c in enumerate(_plain_calls) if c.settled())
        del _plain_calls[:keep]
        _plain_calls.append(call)
        _publish_process_default()

    def withdraw() -> None:
        with _process_lock:
            for i, c in enumerate(_plain_calls):
                if c is call:
                    del _plain_calls[i]
                    _publish_process_default()
                    return

    return withdraw


def _publish_process_default() -> None:
    """Make the newest plain call in force the process default (caller holds the lock)."""
    newest = _plain_calls[-1]
    _PROCESS.mode, _PROCESS.rank_promotion = newest.mode, newest.rank_promotion


def _close_layer(owner: broadcasting) -> None:
    """Pop the innermost layer ``owner`` opened in this context (and any left open above it)."""
    layer = _active.get()
    while layer.opened_by is not None:
        if layer.opened_by is owner:
            _active.set(layer.below)
            return
        layer = layer.below  # type: ignore[assignment]
    # Not found: the block was entered in another context (e.g. a generator resumed elsewhere);
    # this context never saw it, so there is nothing to restore here.


_CACHE = opcode.opmap.get("CACHE", -1)
_WITH_OPENERS = frozenset(opcode.opmap[n] for n in ("BEFORE_WITH", "SETUP_WITH") if n in opcode.opmap)
_COPY = opcode.opmap.get("COPY", -1)
_LOAD_SPECIAL = opcode.opmap.get("LOAD_SPECIAL", -1)


def _is_with_expression(frame: FrameType) -> bool:
    """Whether the call being made in ``frame`` is the expression of a ``with`` statement."""
    return _call_opens_with(frame.f_code, frame.f_lasti)


@lru_cache(maxsize=256)
def _call_opens_with(code: CodeType, lasti: int) -> bool:
    """The instruction after the call at byte ``lasti`` (its inline caches skipped) starts a ``with``.

    Any pattern not recognised answers False: the call then acts as a plain call, which is
    still correct for a ``with`` from ``__enter__`` on (see the module docstring).
    """
    raw = code.co_code
    i = lasti
    if i < 0 or i >= len(raw):
        return False
    if raw[i] != _CACHE:  # 3.12+: f_lasti is the CALL itself; 3.11: its last cache entry
        i += 2
    while i < len(raw) and raw[i] == _CACHE:
        i += 2
    if i >= len(raw):
        return False
    op = raw[i]
    if op in _WITH_OPENERS:
        return True
    # 3.14: with x:  ->  COPY 1; LOAD_SPECIAL __exit__; ...
    return op == _COPY and i + 2 < len(raw) and raw[i + 2] == _LOAD_SPECIAL


def get_broadcasting() -> tuple[str, bool]:
    """The (mode, rank_promotion) the calling thread or task sees now."""
    s = _active.get()
    return s.mode, s.rank_promotion


# ---------------------------------------------------------------- shapes


def broadcast_pair(a: Shape, b: Shape) -> Shape:
    """PyTorch's ``infer_size``: the broadcast shape of ``a`` and ``b``, or RuntimeError."""
    shape = L.broadcast_pair(a, b)
    if type(shape) is not tuple:
        raise broadcast_mismatch(a, b, shape)
    return shape


def broadcast_all(shapes: Sequence[Shape]) -> Shape:
    """Fold :func:`broadcast_pair` over ``shapes`` ("tensor a" is the shape so far)."""
    out = shapes[0]
    for s in shapes[1:]:
        out = broadcast_pair(out, s)
    return out


# ---------------------------------------------------------------- loud broadcasting


def stretched_dims(shape: Shape, result: Shape) -> tuple[int, ...]:
    """Dims of ``result`` (counted in the result) along which ``shape`` is stretched (size 1 or missing -> >1)."""
    lead = len(result) - len(shape)
    return tuple(
        d for d in range(len(result))
        if result[d] > 1 and (d < lead or shape[d - lead] == 1)
    )


def check_loud(op: str, shapes: Sequence[Shape], names: Sequence[str], result: Shape) -> None:
    """Warn or raise (per the current mode) for a broadcast that stretched two operands.

    ``shapes`` are the shapes of the tensor operands (Python scalars excluded),
    ``names`` what to call them ("a", "b", ...). Does nothing in "allow" mode.
    """
    settings = _active.get()  # read once: the mode and the flag of one moment
    if settings.mode == "allow":
        return
    stretched = []
    for name, s in zip(names, shapes):
        if not s:
            continue  # a 0-d tensor is a scalar: never flagged
        dims = stretched_dims(s, result)
        if dims:
            stretched.append((name, s, dims))
    promoted = [(n, s) for n, s in zip(names, shapes) if s and len(s) < len(result)]
    if len(stretched) >= 2:
        message = both_stretched_message(op, shapes, names, stretched, result)
    elif settings.rank_promotion and promoted:
        message = rank_promotion_message(op, promoted, result)
    else:
        return
    where, depth = user_site()
    message = message.replace("{where}", where)
    if settings.mode == "raise":
        raise BroadcastError(message)
    warnings.warn(message, BroadcastWarning, stacklevel=depth)
