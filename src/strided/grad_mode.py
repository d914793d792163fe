"""Grad mode, a tensor's autograd record and version counter, and the recording entries: the
part of autograd that sits *below* the ops (the dispatch layer), so that an op is a recording
entry from the moment it is defined, and the factories and ``nn.functional`` need nothing from
the layer above.

- **grad mode** (:data:`GRAD_MODE`, :func:`is_grad_enabled`): whether ops record, per thread or
  asyncio task (a ContextVar), as PyTorch's is thread-local. ``no_grad`` and friends
  (:mod:`strided.autograd.mode`) set it.
- **the record**: a tensor outside autograd has ``_ag is None``; :class:`Meta` is the record of
  one inside it. :func:`requires_grad` is *the* "does this tensor need a gradient?" test.
- **version counters** (:func:`version`, :func:`bump`): in-place writes per storage, shared by
  all its views; ``out=`` writes count too.
- **entries** (:func:`track`, :func:`track_inplace`, :func:`guard`, :func:`guard_function`):
  the function a user calls *is* the entry. Its first test is one slot read (``x._ag is None``:
  no autograd record), after which the forward runs unchanged; only a tensor with a record
  takes the slow path, which runs the forward and hands the result to the recorder that
  :mod:`strided.autograd` registers at import (:func:`set_recorder`; the rule maker and the
  graph live up there). In-place entries test one global flag (:data:`STATE`: has any tensor
  ever required grad?) before paying for autograd's in-place checks. Every entry takes NumPy's
  ``axis=``/``keepdims=`` where PyTorch's op does (:mod:`strided.numpy_keywords`), renamed before
  the forward, the recorder and the listeners see the call.

:mod:`strided.gradients` (the registry of rules) applies these entries to each op as the module
that defines the op finishes defining it (``seal``): nothing is patched after ``import strided``.

>>> x = strided.ones(2, requires_grad=True)
>>> requires_grad(x), requires_grad(x.detach()), requires_grad(x * 2)
(True, False, True)
>>> with strided.no_grad():
...     requires_grad(x * 2)
False
"""

from __future__ import annotations

import functools
import inspect
import os
import sys
import weakref
import zlib
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

from . import dispatch as _dispatch
from .args import type_name
from .callsite import PACKAGE_DIR
from .dispatch import storage_root
from .dtypes import DType
from .entry_cache import compiled, fingerprint, remembered
from .errors import StridedNotImplementedError, StridedRuntimeError, StridedTypeError, join_lines
from .kernels.listeners import OPEN, listened, reporting
from .memory_format import MemoryFormat
from .numpy_keywords import ALIASES, NO, accepts, aliases_of, renamed
from .numpy_keywords import call as _numpy_call
from .storage import REBUILT_HOOKS

_getframe = sys._getframe

__all__ = [
    "COUNTERS", "GRAD_MODE", "INSIDE", "STATE", "count_write", "Meta", "RemovableHandle", "bump", "bump_writes", "grad_enabled_at_call", "guard",
    "guard_function",
    "check_flag", "is_grad_enabled", "last_write", "leaf", "needs_grad",
    "meta", "refuse_dlpack", "refuse_numpy", "refuse_out", "requires_grad", "set_recorder",
    "set_requires_grad", "track", "track_inplace", "unwatch", "version", "watch",
]

# ---------------------------------------------------------------- grad mode

# Whether ops record the graph in this thread or asyncio task (no_grad / enable_grad set it).
GRAD_MODE: ContextVar[bool] = ContextVar("strided_grad_mode", default=True)


def is_grad_enabled() -> bool:
    """Whether ops record the autograd graph here (this thread or asyncio task), as
    ``torch.is_grad_enabled``. A function, not ``GRAD_MODE.get`` itself, so that it pickles by
    name (a ContextVar's bound method does not); hot paths read ``GRAD_MODE.get()`` directly.

    >>> import strided
    >>> with strided.no_grad():
    ...     strided.is_grad_enabled()
    False
    """
    return GRAD_MODE.get()

# True while the forward of an op with a rule runs on tensors in the graph: the ops it calls
# inside need not record (its own node replaces theirs), and the guards of the ops without a rule
# stay quiet (the outer rule carries the gradient).
INSIDE: ContextVar[bool] = ContextVar("strided_inside_a_recorded_forward", default=False)

# "used": True once any tensor has required grad (set before the tensor's record, so another
# thread never sees a tensor that requires grad while in-place ops still skip autograd's checks).
# Until then in-place ops make the plain write (counted in the version all the same): the one
# global flag an in-place op pays.
STATE = {"used": False}

# Inference mode (:class:`strided.inference_mode`): whether it is on in this context, and the
# storages allocated inside such a block in any thread (held weakly). A tensor over one of them,
# a view included, is an inference tensor, as PyTorch's views of inference tensors are; a view
# made inside the block of a tensor made outside it is not. Entering a block sets STATE["used"],
# so in-place ops take the checked path that refuses writes to inference tensors outside one.
INFERENCE_MODE: ContextVar[bool] = ContextVar("strided_inference_mode", default=False)
INFERENCE_STORAGES: weakref.WeakSet = weakref.WeakSet()
# storages an out= write reached inside an inference block: memory that existed before the op, so
# the block's listener must not take it for new memory (PyTorch: a normal out stays normal)
OUT_TARGETS: weakref.WeakSet = weakref.WeakSet()


def note_out_target(out: Any) -> None:
    """Inside ``inference_mode``: ``out`` (an ``out=`` tensor about to be written) keeps being a
    normal tensor, as PyTorch's does; the block's listener skips its memory."""
    if INFERENCE_MODE.get():
        OUT_TARGETS.add(storage_root(out._storage))


def is_inference(t: Any) -> bool:
    """Whether ``t`` is an inference tensor: its memory was allocated inside ``inference_mode``."""
    # (the WeakSet's own set for the common empty answer: WeakSet.__len__ is Python code, on
    # every _version read; a set of dead references only goes on to the membership test)
    return bool(INFERENCE_STORAGES.data) and storage_root(t._storage) in INFERENCE_STORAGES


def refuse_inference(t: Any, what: str) -> None:
    """PyTorch's errors for an inference tensor used outside inference mode: ``what`` is "saved"
    (saved for backward by a recorded op), "requires_grad" or "inplace"."""
    if INFERENCE_MODE.get() or not is_inference(t):
        return
    first = {
        "saved": "Inference tensors cannot be saved for backward. Please do not use Tensors created in inference "
                 "mode in computation tracked by autograd. To work around this, you can make a clone to get a "
                 "normal tensor and use it in autograd, or use `torch.no_grad()` instead of "
                 "`torch.inference_mode()`.",
        "requires_grad": "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.",
        "inplace": "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone "
                   "to get a normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 "
                   "for more details.",
    }[what]
    raise StridedRuntimeError(join_lines(
        first, f"the tensor of shape {tuple(t._layout.shape)} was made inside strided.inference_mode()",
        "fix: t.clone() outside the block gives a normal tensor; or use strided.no_grad() for the block"))


# ---------------------------------------------------------------- the record


class RemovableHandle:
    """What ``register_hook`` returns: ``handle.remove()`` unregisters the hook. (It lives here,
    below ``tensor``, beside the :class:`Meta` whose hook lists it edits, so that the Tensor stub
    names it without pointing up at autograd.)"""

    def __init__(self, hooks: list, entry: Any) -> None:
        self._hooks, self._entry = hooks, entry

    def remove(self) -> None:
        if self._entry in self._hooks:
            self._hooks.remove(self._entry)


class Meta:
    """A tensor's autograd fields: ``requires_grad``, ``grad`` (a leaf's accumulated gradient),
    ``grad_fn`` (the Node that made it; None for a leaf), ``output_nr``, ``retains_grad``,
    ``hooks`` (register_hook), the leaf's AccumulateGrad node (made once, on demand, weakly held)
    and, for a view whose history is a view of its base's, ``view_version``: the storage's
    version when that history was recorded (an in-place write since makes it stale: autograd
    regenerates it as an ``AsStridedBackward0`` of the base's current history, as PyTorch does);
    ``creation``: PyTorch's CreationMeta of a view that may not be written in place with grad
    mode on: "no_grad" (made under no_grad from a tensor in the graph) or "multi_output" (an
    output of unbind / split / chunk, or a view of one); None for any other tensor."""

    __slots__ = ("requires_grad", "grad", "grad_fn", "output_nr", "retains_grad", "hooks", "acc", "view_version",
                 "creation")

    def __init__(self, requires_grad: bool = False, grad_fn: Any = None, output_nr: int = 0) -> None:
        self.requires_grad = requires_grad
        self.grad = None
        self.grad_fn = grad_fn
        self.output_nr = output_nr
        self.retains_grad = False
        self.hooks: list[Callable] | None = None
        self.acc: Any = None
        self.view_version: int | None = None
        self.creation: str | None = None


class ViewMeta(Meta):
    """The Meta of a view made under no_grad / inference_mode of a tensor in the graph (PyTorch's
    DifferentiableViewMeta with creation_meta NO_GRAD_MODE / INFERENCE_MODE): its
    ``requires_grad`` is its own flag (``own``: what ``requires_grad_`` sets) or its base's, read
    each time (``requires_grad_ || base_.requires_grad()``), so ``base.requires_grad_(False)``
    later turns it off and ``view.requires_grad_(False)`` leaves it on while the base requires
    grad. Only such views pay the property: every other tensor's Meta keeps the plain slot, the
    one the ops' recording tests read. (The slot it shadows stays unset, so the compiled recorder's
    slot read falls back to this attribute: ``meta_slot``.)"""

    __slots__ = ("own", "base")

    def __init__(self, base: Any) -> None:
        self.base = base  # (set first: Meta.__init__ writes requires_grad through the property)
        super().__init__()

    @property  # type: ignore[override]
    def requires_grad(self) -> bool:  # pyright: ignore[reportIncompatibleVariableOverride]
        if self.own:
            return True
        m = self.base._ag
        return m is not None and (m.requires_grad or m.grad_fn is not None)

    @requires_grad.setter
    def requires_grad(self, flag: bool) -> None:
        self.own = flag


def meta(t: Any) -> Meta:
    """``t``'s Meta, made when it has none yet."""
    m = t._ag
    if m is None:
        m = t._ag = Meta()
    return m


class SavedLater:
    """A node's named saved value (:func:`strided.gradients.named_saved`) made only when read
    (``node._saved_buffer``): ``make(node)`` computes it from the node (its saved tensors), so a
    forward in the graph does not pay for a value PyTorch keeps and strided's rule does not need
    (log_sigmoid's buffer)."""

    __slots__ = ("make",)

    def __init__(self, make: Callable[[Any], Any]) -> None:
        self.make = make


def requires_grad(t: Any) -> bool:
    """Whether the tensor ``t`` takes part in autograd (a leaf that requires grad, or a result of one)."""
    m = t._ag
    return m is not None and (m.requires_grad or m.grad_fn is not None)


def needs_grad(value: Any) -> bool:
    """:func:`requires_grad` for any argument: False for what is not a tensor (a number, None, a list).

    >>> needs_grad(2.0)
    False
    """
    return getattr(value, "_ag", None) is not None and hasattr(value, "_layout") and requires_grad(value)


def _requiring(values: Any) -> Any:
    """The first tensor among ``values`` (lists and tuples searched) that requires grad, or None."""
    for v in values:
        if isinstance(v, (list, tuple)):
            found = _requiring(v)
            if found is not None:
                return found
        elif getattr(v, "_ag", None) is not None and hasattr(v, "_layout") and requires_grad(v):
            return v  # (needs_grad, inlined: refuse_out runs this on every out= call)
    return None


def set_requires_grad(t: Any, flag: bool = True) -> Any:
    """``t.requires_grad_(flag)``: PyTorch's checks (only a leaf, only float or complex), then
    the record; returns ``t``.

    >>> set_requires_grad(strided.zeros(2)).requires_grad
    True
    """
    m = t._ag
    if m is not None and m.grad_fn is not None:
        if flag:
            return t
        raise StridedRuntimeError(join_lines(
            "you can only change requires_grad flags of leaf variables. If you want to use a computed "
            "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().",
            f"this tensor (shape {t._layout.shape}) was computed by {m.grad_fn.name()}",
            "fix: y = y.detach()"))
    if flag and not (t._dtype.is_floating_point or t._dtype.is_complex):
        raise StridedRuntimeError(join_lines(
            "only Tensors of floating point and complex dtype can require gradients",
            f"this tensor is {t._dtype.name}: its elements cannot move by an infinitesimal step",
            "fix: convert first: x = x.to(strided.float32).requires_grad_()"))
    if flag:
        refuse_inference(t, "requires_grad")
        STATE["used"] = True  # (before the record: see STATE)
        meta(t).requires_grad = True
    elif m is not None:
        m.requires_grad = False
    return t


def check_flag(requires_grad: Any, op: str) -> bool:
    """A factory's ``requires_grad=`` as PyTorch's parser takes it: a Python bool, or None (False);
    anything else (1, a NumPy bool, a tensor) is PyTorch's TypeError, not a truth value.

    >>> check_flag(None, "zeros")
    False
    """
    if requires_grad is None or isinstance(requires_grad, bool):
        return bool(requires_grad)
    raise StridedTypeError(join_lines(
        f"{op}(): argument 'requires_grad' must be bool, not {type_name(requires_grad)}",
        f"got requires_grad={requires_grad!r:.40}; fix: pass True or False (bool(x) if it is a flag)"))


def leaf(t: Any, requires_grad: Any, op: str) -> Any:
    """A factory's result ``t``, made a leaf that requires grad when ``requires_grad`` is True
    (the one tail of every ``requires_grad=`` factory; ``op`` names the factory in the
    TypeError for a flag that is not a bool: :func:`check_flag`)."""
    return set_requires_grad(t) if check_flag(requires_grad, op) else t


# ---------------------------------------------------------------- version counters

# storage (its root: typed aliases share their owner's counter) -> its record, a list
# [in-place writes so far, (op, code, offset) of the last watched write or None, watchers]: the
# version counter, shared by every view of the storage as PyTorch's is; the write the
# modified-saved-tensor error names; and how many saved-for-backward entries of live nodes hold a
# tensor of the storage (:func:`watch`, :func:`unwatch`). Every in-place write counts, from the
# first op of the process (PyTorch's VersionCounter does; ``_version`` is public); only a write to
# a watched storage pays the walk up the stack for the user's line, the error's only consumer.
# Only storages written in place, or saved for backward, are here (weak keys: it forgets dead
# storages). The hot paths (a version read, a bump) go to the dictionary under the
# weak keys directly (``_VDATA``): ``weakref.ref(root)`` without a callback is the storage's cached
# ref, which hashes and compares as the key, so a read is one dict lookup, no Python-level method.
_VERSIONS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_VDATA = _VERSIONS.data
_ref = weakref.ref
# A new record's key: a weak reference whose callback is the dictionary's own ``pop`` (C code),
# where ``_VERSIONS[root] = rec`` would run WeakKeyDictionary's __setitem__ and, when the storage
# dies, its ``_remove`` (two Python calls: an optimizer's step counts a write to a fresh temporary,
# ``denom.add_(eps)``, every step). Nothing iterates over _VERSIONS or deletes from it, which is
# what that method's bookkeeping is for.
_forget = _VDATA.pop

# The tensors with a version counter of their own (PyTorch: ``x.data`` shares x's memory but not
# its counter, so writes through it leave x's ``_version`` alone): id(root tensor) -> (a weak
# reference to it, its record, as _VERSIONS's). A view of such a tensor (its ``_base`` is the root)
# and a detach() of it share the root's record. Empty until the first ``.data``: the hot paths
# test the dict's truth and nothing else.
_OWN: dict[int, tuple] = {}
# (the in-place entry fronts' own count of a write, kernels/_front.h entry_count_fast, reads both)
STATE["counters"] = (_VDATA, _OWN)
# bump's common count made in C (kernels/_front.h count_write) for a forward that writes outside
# an in-place entry front (F.leaky_relu_): ``count_write(COUNTERS, t)`` adds one to the count where
# bump would do only that (True), else changes nothing (False: call bump). None: not built.
COUNTERS = STATE["counters"]
count_write = getattr(_dispatch._ADOPT, "count_write", None)


def own_counter(t: Any, rec: list | None = None) -> None:
    """Give the root tensor ``t`` a version counter of its own: ``rec`` (another tensor's record,
    which it then shares: detach) or a fresh one at 0 (``.data``)."""
    key = id(t)

    def forget(ref: Any, key: int = key) -> None:
        hit = _OWN.get(key)
        if hit is not None and hit[0] is ref:
            del _OWN[key]

    _OWN[key] = (_ref(t, forget), [0, None, 0] if rec is None else rec)


def keep_counter(t: Any) -> None:
    """Before ``t`` (a tensor about to be pointed at other memory: ``set_``) leaves its storage:
    it keeps the version record it has now as its own (:func:`own_counter`), shared with whatever
    shared it before (its views, its storage's other views), as PyTorch's tensor keeps its
    VersionCounter across ``set_``."""
    rec = _counter(t)
    if t._base is not None or _own_record(t) is not rec:  # (a view: set_ makes it a root of its own)
        own_counter(t, rec)


def _own_record(t: Any) -> list | None:
    """The record of ``t``'s own counter (:func:`own_counter`), if its root has one."""
    root = t if t._base is None else t._base
    hit = _OWN.get(id(root))
    if hit is not None and hit[0]() is root:
        return hit[1]
    return None


def version(t: Any) -> int:
    """``t._version``: in-place writes to ``t``'s storage so far (through any view)."""
    if _OWN:
        rec = _own_record(t)
        if rec is not None:
            return rec[0]
    rec = _VDATA.get(_ref(storage_root(t._storage)))
    return 0 if rec is None else rec[0]


def mark_rebuilt(storage: Any) -> None:
    """A storage just rebuilt by unpickling or deepcopy: its version is 1, as the ``set_`` of
    PyTorch's rebuild leaves it (see :meth:`strided.storage.Storage.__setstate__`)."""
    _VERSIONS[storage_root(storage)] = [1, None, 0]


REBUILT_HOOKS.append(mark_rebuilt)


def count_kernel_writes(t: Any, writes: int) -> Any:
    """``t``, an op's result, with ``writes`` more in-place writes counted in its ``_version``: the
    writes PyTorch's own kernel of the op makes into its result before returning it (``isclose``'s
    ``close.__ior__``, ``quantile``'s ``lerp_`` and ``squeeze_``; ``nanmean(out=)``'s ``div_``
    after its nansum's write, which the out= write already counted), which its ``_version``
    shows. The op's forward says how many; no user line is remembered (a fresh result: no node
    holds it yet; an out= tensor: its write just remembered the line)."""
    if writes:
        _counter(t)[0] += writes
    return t


def bump(t: Any, op: str | None = None, skip: int = 1) -> None:
    """Count one in-place write to ``t``'s storage: ``t._version`` goes up by one, as PyTorch's
    VersionCounter does for every write, from the first op of the process. Where a node alive
    holds a tensor of the storage saved for backward (the record's watchers, :func:`watch`), the
    write is also remembered as ``op`` (its name) at the user's line, the first frame outside
    strided above this one, for the modified-saved-tensor error (:func:`last_write`); no other
    write pays for that walk (an optimizer's step after backward: its tensors are watched by no
    node). The walk starts at ``sys._getframe(skip)``: the frames below it are strided's for sure
    (the caller's fixed chain, ``_count`` <- ``_run_inplace`` <- its caller: ``skip=4``).

    The write's site is kept as the frame's code object and instruction offset: its file and line
    are worked out only if the error is raised (:func:`last_write`).
    """
    # (_counter and _user_site, inlined: this runs on every counted write, where two calls are
    # a quarter of its cost; storage_root's flag test inlined too)
    rec = _own_record(t) if _OWN else None
    if rec is None:
        root = t._storage
        if _dispatch._ALIASED:
            root = storage_root(root)
        rec = _VDATA.get(_ref(root))
        if rec is None:  # (its first write: a node may hold it saved unwritten, so unwatched)
            rec = _VDATA[_ref(root, _forget)] = [1, None, 0]
            if not STATE["used"]:
                return  # (no node exists yet: nothing to remember but the count)
        else:
            rec[0] += 1
            if not rec[2]:
                rec[1] = None  # (an older write's line would be wrong: the error then names none)
                return
    else:
        rec[0] += 1
        if not rec[2]:
            rec[1] = None
            return
    if op is not None:
        frame = _getframe(skip)
        code = frame.f_code
        while code.co_filename.startswith(PACKAGE_DIR):
            frame = frame.f_back
            if frame is None:
                rec[1] = (op, None, None)
                return
            code = frame.f_code
        rec[1] = (op, code, frame.f_lasti)


def _counter(t: Any) -> list:
    """``t``'s version record ``[count, last write, watchers]``: its own (``x.data``'s) or its storage's."""
    rec = _own_record(t) if _OWN else None
    if rec is None:
        root = storage_root(t._storage)
        rec = _VDATA.get(_ref(root))
        if rec is None:
            rec = _VDATA[_ref(root, _forget)] = [0, None, 0]
    return rec


def _record(t: Any) -> list | None:
    """``t``'s version record, if it has one (no write to its storage yet, no ``.data``: None)."""
    rec = _own_record(t) if _OWN else None
    return _VDATA.get(_ref(storage_root(t._storage))) if rec is None else rec


def watch(t: Any) -> int:
    """Note that a node now holds ``t`` saved for backward: writes to its storage remember the
    user's line from now on (until :func:`unwatch`). Returns ``t``'s version, the one saved. A
    storage never written has no record, and none is made for it here (a save per recorded op):
    :func:`bump` looks the line up at the first write of every storage instead."""
    rec = _record(t)
    if rec is None:
        return 0
    rec[2] += 1
    return rec[0]


def unwatch(saved: tuple) -> None:
    """A node's saved entries ``(tensor, version, is_output)`` let go (backward freed them)."""
    for entry in saved:
        rec = _record(entry[0])
        if rec is not None and rec[2]:
            rec[2] -= 1


def _user_site(frame: Any) -> tuple:
    """(code, instruction offset) of the first frame from ``frame`` outwards outside strided."""
    while frame is not None and frame.f_code.co_filename.startswith(PACKAGE_DIR):
        frame = frame.f_back
    return (frame.f_code, frame.f_lasti) if frame is not None else (None, None)


def bump_writes(writes: Any) -> None:
    """:func:`bump` for each ``(tensor, op)`` of ``writes``, in order, with the user's line looked
    up once for all of them, and only if one of their storages is watched (a fused kernel's
    writes, :func:`strided.optim.adam`'s: one call site, several counted writes; each record ends
    as :func:`bump` would leave it)."""
    site = None
    used = STATE["used"]
    for t, op in writes:
        rec = _record(t)
        first = rec is None  # (as in bump: a first write looks the line up once autograd is used)
        if first:
            rec = _counter(t)
        rec[0] += 1
        if not (rec[2] or (first and used)):
            rec[1] = None  # (as in bump: no stale line)
            continue
        if site is None:
            site = _user_site(sys._getframe(1))
        rec[1] = (op, *site)


def last_write(t: Any) -> tuple[str, str] | None:
    """(op, file:line) of the last in-place write to ``t``'s storage, if one was recorded."""
    rec = _own_record(t) if _OWN else None
    if rec is None:
        rec = _VDATA.get(_ref(storage_root(t._storage)))
    if rec is None or rec[1] is None:
        return None
    op, code, at = rec[1]
    if code is None:
        return (op, "<unknown>")
    line = line_at(code, at)
    return (op, code.co_filename if line is None else f"{code.co_filename}:{line}")


def line_at(code: Any, at: int) -> int | None:
    """The source line of the instruction at byte offset ``at`` (a frame's ``f_lasti``) in
    ``code``: the frame's ``f_lineno`` when it ran that instruction.

    >>> frame = sys._getframe(); line_at(frame.f_code, frame.f_lasti) == frame.f_lineno
    True
    """
    for start, end, line in code.co_lines():
        if start <= at < end:
            return line
    return None


# ---------------------------------------------------------------- PyTorch's refusals


def refuse_numpy(t: Any, how: str) -> None:
    """PyTorch's refusal to hand NumPy the memory of a tensor that requires grad (``t.numpy()``,
    ``np.asarray(t)``, ``__array__``, ``__array_interface__``, a ufunc or NumPy function on it):
    NumPy's writes would skip the version counter and its results would carry no gradient. It
    does not depend on grad mode (PyTorch refuses under ``no_grad`` too)."""
    if t._ag is not None and requires_grad(t):
        raise StridedRuntimeError(join_lines(
            "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.",
            f"{how} would hand NumPy the memory of a tensor (shape {t._layout.shape}, {t._dtype.name}) that "
            "requires grad: NumPy's writes would skip its version counter, and what NumPy computes from it "
            "carries no gradient",
            "fix: t.detach().numpy() (the same memory, outside the graph), or strided's own ops, which record"))


def refuse_dlpack(t: Any) -> None:
    """PyTorch's refusal to export a tensor that requires grad through DLPack (a ``BufferError``)."""
    if t._ag is not None and requires_grad(t):
        from .errors import StridedBufferError

        raise StridedBufferError(join_lines(
            "Can't export tensors that require gradient, use tensor.detach()",
            f"the consumer would get the memory of a tensor (shape {t._layout.shape}) that requires grad, "
            "outside autograd: its writes would skip the version counter",
            "fix: np.from_dlpack(t.detach()) (the same memory, outside the graph)"))


def refuse_out(op: str, out: Any, inputs: tuple, reported: str | None = None) -> None:
    """PyTorch's refusal of ``op(..., out=out)`` when grad mode is on and an input or ``out``
    requires grad: an ``out=`` write records no node (its gradient would be silently lost).
    ``reported``: the name PyTorch's first line gives when it is not ``op``'s own (``hstack``
    and the other joins built on ``cat`` report ``cat()``)."""
    if not GRAD_MODE.get():
        return
    t = _requiring((out, *inputs))
    if t is not None:
        raise StridedRuntimeError(join_lines(
            f"{reported or op}(): functions with out=... arguments don't support automatic differentiation, but one of "
            "the arguments requires grad.",
            f"{'out' if t is out else 'an input'} (shape {t._layout.shape}) requires grad, and a write into "
            "out= records no step of the graph",
            f"fix: y = strided.{op}(...) without out=, or write under strided.no_grad()"))


# ---------------------------------------------------------------- the recorder (set by autograd)

# A rule maker's flags (strided.autograd.function reads them, kept on the maker as
# ``__strided_flags__``): READS_RESULT, its code may hold its first parameter (the op's result)
# in the rule or saved tensors (the recorder then walks the rule for it, to swap in the result's
# unowned alias); OUTPUT_ALIAS, it reads the result only to hold it there, so the fast recorder
# may hand it that alias in the first place (no walk; :func:`strided.gradients.saves_output`).
READS_RESULT, OUTPUT_ALIAS = 1, 4

# attach(out, maker, args, kwargs) -> out with its node; inplace(fwd, name, self, args, kwargs)
# -> the in-place op run with autograd's checks and history rewrite. strided.autograd registers
# both at import (it is imported by ``import strided`` before any op can run).
_RECORDER: dict[str, Callable[..., Any]] = {}


def set_recorder(attach: Callable[..., Any], inplace: Callable[..., Any],
                 fresh: Callable[..., Any] | None = None) -> None:
    """Register autograd's node builder and in-place handler (called once, by :mod:`strided.autograd`);
    ``fresh(out, maker, args)``: ``attach(out, maker, args, {})`` for a fast path's fresh result."""
    _RECORDER["attach"] = attach
    _RECORDER["inplace"] = inplace
    _RECORDER["fresh"] = fresh if fresh is not None else (lambda out, maker, args: attach(out, maker, args, {}))


# The Tensor class, registered by strided.tensor (this layer is below it): the entries' first
# test is ``x.__class__ is Tensor``, and only on a miss ``x.__class__ in SUBCLASSES`` (a
# subclass instance, an ``nn.Parameter``, is recorded as any tensor: never dropped from the graph).
_CLASS: dict[str, type] = {}

# Every strict subclass of Tensor, added by ``Tensor.__init_subclass__`` when the class is made
# (class creation holds the GIL: a set add is atomic; the set only grows).
SUBCLASSES: set[type] = set()


def use_tensor_class(cls: type) -> None:
    _CLASS["Tensor"] = cls


def is_tensor(x: Any) -> bool:
    """Whether ``x`` is a strided Tensor or an instance of a subclass (``nn.Parameter``): the
    exact class test first (the common case), then the subclass set (cheaper than isinstance
    for the numbers that most misses are)."""
    return x.__class__ is _CLASS["Tensor"] or x.__class__ in SUBCLASSES


# ---------------------------------------------------------------- the entries

Maker = Callable[..., Any]


def _slow(fwd: Callable, maker: Maker, args: tuple, kwargs: dict) -> Any:
    token = INSIDE.set(True)
    try:
        out = fwd(*args, **kwargs)
    finally:
        INSIDE.reset(token)
    if not GRAD_MODE.get():
        _mark_no_grad_views(out, args[0] if args else None)
        return out
    return _RECORDER["attach"](out, maker, args, kwargs)


def _fresh_slow(fresh: Callable) -> Callable:
    """:func:`_slow` for a forward with a fresh fast path (``fwd.__fresh__(*args)``: its result
    computed by pure NumPy into fresh memory, entering no other op, or None where the forward's
    other paths must run: F.linear's row-major product, log_softmax's rows): with nobody listening
    and no keyword but at its default None (the entry passes ``out=None``; :func:`attach` drops
    it), that result recorded as it is (:func:`strided.gradients.recorded`'s recorder) or, grad
    mode off, returned as it is (no view to mark), without running the forward's wrappers (grad
    mode set off around it, ``INSIDE``); any other call is :func:`_slow`'s."""

    def slow(fwd: Callable, maker: Maker, args: tuple, kwargs: dict) -> Any:
        if not OPEN:
            for v in kwargs.values():
                if v is not None:
                    return _slow(fwd, maker, args, kwargs)
            out = fresh(*args)
            if out is not None:
                return _RECORDER["fresh"](out, maker, args) if GRAD_MODE.get() else out
        return _slow(fwd, maker, args, kwargs)

    return slow


def _mark_no_grad_views(out: Any, source: Any) -> None:
    """Views of a tensor in the graph made under no_grad: their record says so (``creation``),
    so that writing one in place with grad mode on raises PyTorch's error instead of recording
    nothing (the base's gradient would silently miss the write, R3-09). Only this slow path
    pays: a source outside autograd takes the entry's fast path."""
    if source is None or getattr(source, "_ag", None) is None or not hasattr(source, "_storage") or (
            not requires_grad(source)):
        return
    sm = source._ag
    made = "inference_mode" if INFERENCE_MODE.get() or sm.creation == "inference_mode" else "no_grad"
    for piece in out if isinstance(out, (tuple, list)) else (out,):
        if (getattr(piece, "_base", None) is not None and piece is not source
                and storage_root(piece._storage) is storage_root(source._storage)):
            # (PyTorch's view of a tensor that requires grad requires grad itself, read from its
            # base each time (ViewMeta), with no grad_fn and no grad accumulator while its own flag
            # is off: graph.edge gives it none; its version now, for the refusal once its base or
            # another view of it is written: graph.mode_view_error)
            old = piece._ag
            if not (piece._dtype.is_floating_point or piece._dtype.is_complex):
                m = meta(piece)  # (an integer view, x.view(int32): never requires grad)
            else:
                m = piece._ag = ViewMeta(piece._base)
            if old is not None and m is not old:
                for name in ("grad", "grad_fn", "output_nr", "retains_grad", "hooks", "acc"):
                    setattr(m, name, getattr(old, name))
                m.own = old.requires_grad
            m.creation = made
            m.view_version = version(piece)


def any_tracked(values: Any) -> bool:
    """Whether any of ``values`` (or an item of a list or tuple among them) is a tensor with an
    autograd record: the test of the "any" operands entries (``cat``, ``stack``, ``einsum``)."""
    Tensor = _CLASS["Tensor"]
    for v in values:
        c = v.__class__
        if c is list or c is tuple or (c is not Tensor and c not in _PLAIN and c not in SUBCLASSES
                                       and isinstance(v, (list, tuple))):
            for i in v:  # (a loop, not any(generator): this is every cat/stack call's cost)
                if (i.__class__ is Tensor or i.__class__ in SUBCLASSES) and i._ag is not None:
                    return True
        elif (c is Tensor or c in SUBCLASSES) and v._ag is not None:
            return True
    return False


# (the arguments beside the tensors, cat's dim and out=None, settled by one test: never a tensor
# nor a sequence)
_PLAIN = frozenset((int, float, bool, type(None), str))
_SEQUENCES = frozenset((list, tuple))
# (a guard's plain arguments: those numbers and the factories' dtype= and memory_format=)
_GUARD_PLAIN = _PLAIN | frozenset((DType, MemoryFormat))


def items_tracked(values: list | tuple) -> bool:
    """Whether an item of the list or tuple ``values`` is a tensor with an autograd record (the
    test :func:`any_tracked` makes of a list among its values, one level deep)."""
    Tensor = _CLASS["Tensor"]
    for i in values:
        if (i.__class__ is Tensor or i.__class__ in SUBCLASSES) and i._ag is not None:
            return True
    return False


_FUNCTION = type(lambda: None)


def _wrap(wrapper: Callable, fwd: Callable) -> Callable:
    """``functools.update_wrapper(wrapper, fwd)``, the same attributes in the same order, spelt
    out for a plain Python ``fwd`` (every entry, guard and in-place entry of the import makes
    one: ~650 calls, a fifth of update_wrapper's cost each); anything else goes to
    ``update_wrapper`` itself (whose try/except covers attributes a builtin or partial lacks)."""
    if fwd.__class__ is not _FUNCTION:
        return functools.update_wrapper(wrapper, fwd)
    wrapper.__module__ = fwd.__module__
    wrapper.__name__ = fwd.__name__
    wrapper.__qualname__ = fwd.__qualname__
    wrapper.__doc__ = fwd.__doc__
    wrapper.__annotations__ = fwd.__annotations__
    wrapper.__dict__.update(fwd.__dict__)
    wrapper.__wrapped__ = fwd  # type: ignore[attr-defined]
    return wrapper


def _wrapping(fwd: Callable) -> Callable[[Callable], Callable]:
    """``functools.wraps(fwd)``, by :func:`_wrap`."""
    return lambda wrapper: _wrap(wrapper, fwd)


def track(fwd: Callable, maker: Maker, operands: str = "self", name: str | None = None, op: Any = "compute",
          key: str | None = None) -> Callable:
    """The entry of ``fwd``: ``fwd`` itself for tensors outside autograd, ``maker``'s node
    attached to the result when an input has an autograd record; with a ``name``, it also
    reports the op to the listeners open in this context (:func:`.kernels.listeners.listened`:
    one record of the kind of ``op``, its registry entry; the ops it runs inside fold into it).
    A bare call pays one flag test for the listeners (:data:`OPEN`) and one slot test per operand
    for autograd.

    ``operands``: "self" (only ``self`` may be a tensor: views, unary ops, reductions), "two"
    (the second argument may be one too: add, mul, matmul, ...), "dunder" (exactly
    ``(self, other)``: the operators, whose entry takes no ``*args``), "any" (tensors anywhere,
    inside lists and tuples too: ``cat``, ``stack``, ``einsum``).

    ``key``: the op's spelling, whose NumPy keywords (``axis=``, ``keepdims=``) the entry takes
    where PyTorch's does (:mod:`strided.numpy_keywords`; see :func:`_exact`).
    """
    Tensor, SUBS = _CLASS["Tensor"], SUBCLASSES
    fresh = getattr(fwd, "__fresh__", None)
    _slow_ = _slow if fresh is None else _fresh_slow(fresh)
    exact = _exact(fwd, maker, operands, name, op, key, _slow_) if operands in ("self", "two", "any") else None
    numpy = _numpy_of(fwd, key)
    # (the entry's values in one list, unpacked per call: one closure cell instead of eight or
    # nine, as track_inplace's; the last item is the entry itself, for its calls again)
    shared: list = [fwd, maker, name, op, numpy, _slow_, Tensor, SUBS, None]
    if exact is not None:
        _tracked = exact
    elif operands == "dunder":
        def _tracked(self: Any, other: Any) -> Any:
            fwd, maker, name, op, numpy, _slow_, Tensor, SUBS, _tracked = shared
            if OPEN and name is not None and reporting():
                return listened(name, op, _tracked, (self, other), {}, operands_of("dunder", (self, other), {}))
            if self._ag is None and ((other.__class__ is not Tensor and other.__class__ not in SUBS)
                                     or other._ag is None):
                return fwd(self, other)
            return _slow_(fwd, maker, (self, other), {})
    elif operands == "any":
        def _tracked(*args: Any, **kwargs: Any) -> Any:
            fwd, maker, name, op, numpy, _slow_, Tensor, SUBS, _tracked = shared
            if kwargs and numpy is not None and not numpy[2].isdisjoint(kwargs):
                return _tracked(*args, **_numpy_kwargs(numpy, args, kwargs))
            if OPEN and name is not None and reporting():
                return listened(name, op, _tracked, args, kwargs, operands_of("any", args, kwargs))
            if not any_tracked(args) and not any_tracked(kwargs.values()):
                return fwd(*args, **kwargs)
            return _slow_(fwd, maker, args, kwargs)
    elif operands == "two":
        def _tracked(self: Any, other: Any, *args: Any, **kwargs: Any) -> Any:
            fwd, maker, name, op, numpy, _slow_, Tensor, SUBS, _tracked = shared
            if kwargs and numpy is not None and not numpy[2].isdisjoint(kwargs):
                return _tracked(self, other, *args, **_numpy_kwargs(numpy, (self, other, *args), kwargs))
            if OPEN and name is not None and reporting():
                every = (self, other, *args)
                return listened(name, op, _tracked, every, kwargs, operands_of("two", every, kwargs))
            if ((self.__class__ is not Tensor and self.__class__ not in SUBS) or self._ag is None) and (
                    (other.__class__ is not Tensor and other.__class__ not in SUBS) or other._ag is None):
                return fwd(self, other, *args, **kwargs)
            return _slow_(fwd, maker, (self, other, *args), kwargs)
    else:
        def _tracked(self: Any, *args: Any, **kwargs: Any) -> Any:
            fwd, maker, name, op, numpy, _slow_, Tensor, SUBS, _tracked = shared
            if kwargs and numpy is not None and not numpy[2].isdisjoint(kwargs):
                return _tracked(self, *args, **_numpy_kwargs(numpy, (self, *args), kwargs))
            if OPEN and name is not None and reporting():
                every = (self, *args)
                return listened(name, op, _tracked, every, kwargs, operands_of("self", every, kwargs))
            if (self.__class__ is not Tensor and self.__class__ not in SUBS) or self._ag is None:
                return fwd(self, *args, **kwargs)
            return _slow_(fwd, maker, (self, *args), kwargs)
    if exact is None:
        _wrap(_tracked, fwd)
    shared[-1] = _tracked
    _tracked.__wrapped_maker__ = maker  # type: ignore[attr-defined]
    return _row_major_self(entry_front(_tracked, fwd, _FRONT_MODES[operands], numpy), fwd)


def _row_major_self(entry: Callable, fwd: Callable) -> Callable:
    """``entry`` behind a mode-5 entry front (see :func:`entry_front`) where ``fwd`` is marked
    ``__row_major_self__`` (the cinfo memo: ``contiguous``, which answers a row-major tensor with
    itself): that answer made in C for a plain Tensor outside autograd, nobody listening; every
    other call to ``entry``. ``entry`` itself otherwise, or where the kernel is not built."""
    cinfo = getattr(fwd, "__row_major_self__", None)
    if cinfo is None or _ENTRY_FRONT is None:
        return entry
    return _ENTRY_FRONT(entry, fwd, 5, _FRONT_PLAIN, _NO_ALIASES, 1, 1, OPEN, cinfo)


# ---------------------------------------------------------------- entry fronts


# track's operands -> the entry front's test of them (kernels/_front.h: 1 every argument, 2 the
# first, 3 the first two)
_FRONT_MODES = {"self": 2, "two": 3, "dunder": 3, "any": 1}
_ENTRY_FRONT = getattr(_dispatch._ADOPT, "entry_front", None)  # (None: not built, or STRIDED_NATIVE=0)


def entry_front(entry: Callable, fwd: Callable, mode: int, numpy: Numpy | None,
                direct: Callable | None = None, counted: str | None = None, sampler: tuple | None = None) -> Callable:
    """``entry`` (an op's recording entry or guard, whose plain call is ``fwd(*args, **kwargs)``)
    behind the copy kernel's entry front (``kernels/_front.h``): the call ``entry`` would pass
    straight to ``fwd`` (nobody listening, no NumPy keyword, its operands plain for ``mode``: 1
    every argument, 2 the first, 3 the first two) is made in C without ``entry``'s frame; every
    other call goes to ``entry``. ``entry`` itself where the kernel is not built, or for a
    forward that wraps another (``below_autograd``'s, whose parameters are not its own).

    Mode 5 (:func:`_row_major_self`, for a forward marked ``__row_major_self__``: ``contiguous``)
    answers a lone row-major plain Tensor outside autograd with itself, nobody listening.

    Mode 4 is :func:`track_inplace`'s entry: before any tensor has required grad (:data:`STATE`),
    or, for a ``counted`` write (the op's name), under no_grad with no inference tensor about (an
    optimizer's step), a call on a plain Tensor tries ``direct(self, args, kwargs)`` (its in-place
    fast write), then ``fwd``, as that entry does, and counts the write in the version: in C where
    :func:`bump` would only add one (the storage has a record no node watches: ``STATE["counters"]``),
    else by calling :func:`bump`.
    A ``sampler`` (an in-place sampler's ``__sampler__``: :func:`strided.ops.creation.random.compiled_sampler`)
    is tried before ``direct``: its common call drawn in C.

    A forward marked ``__inplace_kernel__`` (:func:`strided.ops._support.front.compiled_inplace`: an
    in-place op's compiled write) has its common call written in C, in mode 4 before ``sampler`` and
    ``direct`` (the write then counted as above), in modes 1 to 3 (an in-place op of a module's
    namespace, ``strided.selu_``: its recording entry or guard) where the front would call ``fwd``
    (counted as ``fwd`` counts it)."""
    if _ENTRY_FRONT is None or hasattr(fwd, "__wrapped__"):
        return entry
    params = _parameters(fwd)
    if params is None:
        return entry
    # (one pass over the parameters: this runs for every entry the import makes)
    positional = required = 0
    var_positional = False
    for p in params:
        kind = p.kind
        if kind is _POSITIONAL_OR_KEYWORD:
            positional += 1
            if p.default is _EMPTY:
                required += 1
        elif kind is _POSITIONAL_ONLY:
            return entry  # (a positional-only parameter: the entry's own binding)
        elif kind is _VAR_POSITIONAL:
            var_positional = True
    most = sys.maxsize if var_positional else positional
    aliases = frozenset(numpy[2]) if numpy is not None else _NO_ALIASES
    # (a forward may name more exact types that are never tensors nor hold any: from_numpy's array)
    plain = _FRONT_PLAIN + getattr(fwd, "__plain_types__", ())
    inplace = getattr(fwd, "__inplace_kernel__", None) if mode != 5 else None
    if mode == 4:
        return _ENTRY_FRONT(entry, fwd, mode, plain, aliases, required, most, OPEN, STATE, direct,
                            GRAD_MODE, INFERENCE_STORAGES.data, None if counted is None else bump, counted, sampler,
                            inplace)
    if inplace is not None:
        return _ENTRY_FRONT(entry, fwd, mode, plain, aliases, required, most, OPEN, None, None, None, None,
                            None, None, None, inplace)
    return _ENTRY_FRONT(entry, fwd, mode, plain, aliases, required, most, OPEN)


# the aliases of an entry that takes no NumPy keyword: one object for every such front (an empty
# frozenset is a new object each time: ~500 of them, each walked by every full collection and at exit)
_NO_ALIASES: frozenset[str] = frozenset()
# the exact types an entry front passes as plain arguments (the guards' numbers, strings, dtypes)
_FRONT_PLAIN = (int, float, bool, type(None), str, DType, MemoryFormat)
_POSITIONAL_OR_KEYWORD, _POSITIONAL_ONLY, _VAR_POSITIONAL = (inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                                             inspect.Parameter.POSITIONAL_ONLY,
                                                             inspect.Parameter.VAR_POSITIONAL)
_KEYWORD_ONLY, _VAR_KEYWORD = inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.VAR_KEYWORD
_EMPTY = inspect.Parameter.empty


# ---------------------------------------------------------------- NumPy's keywords (axis=, keepdims=)

Numpy = tuple[str, tuple[str, ...], frozenset[str]]


def _numpy_of(fwd: Callable, key: str | None) -> Numpy | None:
    """What a ``**kwargs`` entry of ``fwd`` needs to take NumPy's keywords where the op spelt
    ``key`` takes them (:mod:`strided.numpy_keywords`): (the op's name for errors, the forward's
    parameter names, the aliases it takes); None where it takes none."""
    if key is None or not accepts(key):
        return None
    params = _parameters(fwd)
    if params is None:
        return None
    names = tuple(p.name for p in params)
    aliases = aliases_of(names)
    if not aliases:
        return None
    # (the aliases are one of three tuples: one shared frozenset each, not one per entry)
    return getattr(fwd, "__name__", key), names, _ALIAS_SETS.setdefault(aliases, frozenset(aliases))


_ALIAS_SETS: dict[tuple[str, ...], frozenset[str]] = {}


def _refused_keyword(numpy: Numpy, error: TypeError, kwargs: dict) -> bool:
    """Whether ``error``, caught by an entry around its call into the forward, is Python's refusal
    of a NumPy keyword the forward does not take: raised by the call itself (no frame of the
    forward in its traceback: the forward never ran), with such a keyword among ``kwargs``."""
    tb = error.__traceback__
    return tb is not None and tb.tb_next is None and not numpy[2].isdisjoint(kwargs)


def _numpy_kwargs(numpy: Numpy, args: tuple, kwargs: dict) -> dict:
    """A ``**kwargs`` entry's keywords with NumPy's renamed (the entry is called again with
    them: a plain call never comes here; ``args`` includes ``self``)."""
    return renamed(numpy[0], numpy[1], args, kwargs)


_NUMBERS = (int, float, complex)


def operands_of(operands: str, args: tuple, kwargs: dict) -> tuple:
    """An op record's inputs: the tensors among the arguments (lists and tuples searched;
    ``out=`` is the result, not an input), and the numbers an operator reads as an operand
    (``x * 2.0``'s 2.0, ``clamp(x, 0, 1)``'s bounds: the second argument of "two"/"dunder"
    operands, every positional number of "any" ones unless tensors come in a list: ``cat``'s
    numbers are dims)."""
    found: list[Any] = []
    if operands == "any" and any(isinstance(v, (list, tuple)) for v in args):
        operands = "self"  # (cat, stack: the numbers are dims)
    for i, v in enumerate(args):
        if is_tensor(v):
            found.append(v)
        elif v.__class__ in _NUMBERS:
            if operands == "any" or (i == 1 and operands in ("two", "dunder")):
                found.append(v)
        elif isinstance(v, (list, tuple)):
            found.extend(t for t in v if is_tensor(t))
    for k, v in kwargs.items():
        if is_tensor(v) and k != "out":
            found.append(v)
    return tuple(found)


# The entries are compiled as code of a file inside the package, so the op records' user frame
# (file:line) and op name, read from the stack, see a frame of strided here.
_GENERATED = os.path.join(os.path.dirname(__file__), "<generated entry>")


def _exact(fwd: Callable, maker: Maker, operands: str = "self", name: str | None = None, op: Any = "compute",
           key: str | None = None, slow: Callable | None = None) -> Callable | None:
    """An entry with ``fwd``'s own parameter list (``t(self)``, ``transpose(self, dim0, dim1)``,
    ``sum(self, dim=None, keepdim=False, *, dtype=None, ...)``, ``cat(tensors, dim=0, *, out=None)``;
    not for a ``**kwargs`` forward, nor a ``*args`` one with "any" operands), so a call builds no
    ``**kwargs`` dict: about 50 ns instead of 200. ``operands``: which parameters the test reads
    ("self": the first, "two": the first two, "any": all of them, lists and tuples searched).

    ``key``: the op's spelling for :func:`strided.numpy_keywords.accepts` (``"Tensor.sum"``,
    ``"sum"``, ``"F.normalize"``); where it takes NumPy's keywords, the signature gains
    ``axis=``/``keepdims=`` (keyword-only, default "not given") and the required parameters
    from ``dim`` on default to "not given" too (``gather(input, axis=0, index=i)``); one
    identity test per such parameter sends a call that used them to
    :func:`strided.numpy_keywords.call`, which renames them and calls the entry again."""
    params = _parameters(fwd)
    if not params or params[0].kind is not _POSITIONAL_OR_KEYWORD:
        return None
    P = inspect.Parameter
    # (one pass over the parameters, the refusals and the form's key together: ~240 entries a run)
    var_positional = False
    signature = []
    for p in params:
        kind = p.kind
        if kind is _VAR_KEYWORD or kind is _POSITIONAL_ONLY:
            return None
        if kind is _VAR_POSITIONAL:
            var_positional = True
        signature.append((p.name, kind, p.default is _EMPTY))
    if operands == "any" and var_positional:
        return None
    takes_numpy = key is not None and not var_positional and accepts(key)
    # (a below_autograd forward with a fresh fast path, which it tries first on a positional call
    # with nobody listening: the entry makes that call itself, one frame and *args pack fewer)
    fresh, below, run = getattr(fwd, "__fresh_first__", (None, None, None))
    if run is not fwd:  # (a wrapper of below_autograd's _run, which copied its attributes: its own call)
        fresh = below = None
    shape = (operands, name is not None, takes_numpy, tuple(signature), fresh is not None)
    form = _EXACT_FORMS.get(shape)
    if form is None:
        form = _EXACT_FORMS[shape] = _remembered_form(shape, params)
    if form is None:
        return None
    source, numpy, unset_dims, canonical = form
    scope: dict[str, Any] = {"fwd": fwd, "fresh": fresh, "below": below, "maker": maker, "Tensor": _CLASS["Tensor"], "SUBS": SUBCLASSES,
                             "_slow": _slow if slow is None else slow,
                             "any_tracked": any_tracked, "OPEN": OPEN, "reporting": reporting, "listened": listened,
                             "operands_of": operands_of, "name": name, "op": op, "operands": operands}
    for p in params:
        if p.default is not P.empty:
            scope[f"_default_{p.name}"] = p.default
    if numpy:
        scope.update(NO=NO, _numpy_call=_numpy_call, _fname=fwd.__name__,
                     _defaults={p.name: p.default for p in params
                                if p.default is not P.empty and p.name not in canonical},
                     _unset={n: scope[f"_default_{n}"] for n in unset_dims})
    if operands == "any":
        scope.update(PLAIN=_PLAIN, SEQUENCES=_SEQUENCES, items_tracked=items_tracked)
    # (ops share parameter lists: compiled once each, and kept between processes like a .pyc)
    exec(compiled(source, _GENERATED), scope)  # noqa: S102 - an entry with the forward's signature
    return _wrap(scope["_tracked"], fwd)


# _exact's forms by the shape of a parameter list (operands, named, NumPy keywords taken, and each
# parameter's name, kind and whether it has a default): ~235 entries share ~110 forms, whose
# source text is written once each. Emptied with _PARAMETERS at the end of the import (its ~110
# forms would otherwise stay for the collector to walk at exit).
_EXACT_FORMS: dict[tuple, tuple[str, tuple[str, ...], list[str], set[str]] | None] = {}


def _remembered_form(shape: tuple, params: list[_Param]) -> tuple[str, tuple[str, ...], list[str], set[str]] | None:
    """:func:`_exact_form` of a parameter list of this ``shape`` (:func:`_exact`'s key), kept
    between processes by :func:`strided.entry_cache.remembered` (its source text was ~1% of
    ``import strided``): keyed by the shape, the parameter kinds as numbers, and the fingerprint
    of the code that writes it (this function's callees and the NumPy aliases), so an edit of
    either computes it afresh."""
    global _FORM_FINGERPRINT
    operands, named, takes_numpy, signature, fresh_first = shape
    if _FORM_FINGERPRINT is None:
        _FORM_FINGERPRINT = fingerprint(_exact_form, aliases_of) ^ zlib.crc32(repr(sorted(ALIASES.items())).encode())
    key = ("exact_form", _FORM_FINGERPRINT, operands, named, takes_numpy,
           tuple((n, int(kind), required) for n, kind, required in signature), fresh_first)
    return remembered(key, lambda: _exact_form(params, operands, named, takes_numpy, fresh_first))


_FORM_FINGERPRINT: int | None = None


def _exact_form(params: list[_Param], operands: str, named: bool, takes_numpy: bool, fresh_first: bool = False
                ) -> tuple[str, tuple[str, ...], list[str], set[str]] | None:
    """:func:`_exact`'s entry for a parameter list of this shape: (its source, which reads the
    forward's defaults as ``_default_<name>`` from its scope; the NumPy keywords it takes; the
    aliased parameters whose default it writes as NO; those parameters' names), or None where
    "two" operands have no second positional parameter. ``fresh_first``: the forward is a
    :func:`below_autograd` wrapper whose plain positional call, nobody listening, returns
    ``fresh(*args)`` where that is not None, else the forward with grad mode off; the entry (no
    keyword-only parameter: its call is positional) makes those two calls itself (the scope's
    ``fresh`` and ``below``), the same calls with the same arguments, one frame fewer."""
    P = inspect.Parameter
    numpy: tuple[str, ...] = aliases_of(p.name for p in params) if takes_numpy else ()
    canonical = {ALIASES[a] for a in numpy}
    first_aliased = min((i for i, p in enumerate(params) if p.name in canonical), default=None) if numpy else None
    heads, positional, keywords, missing = [], [], [], []
    defaulted = set()  # the parameters with a default: ``_default_<name>`` in the entry's scope
    starred = False  # (whether a head starting with "*" is written: "*args" or the bare "*")
    unset_dims: list[str] = []  # the aliased parameters with defaults (dim, keepdim): NO when left out
    for i, p in enumerate(params):
        head = p.name
        if first_aliased is not None and i >= first_aliased and p.kind is P.POSITIONAL_OR_KEYWORD and (
                p.default is P.empty):
            head += "=NO"  # (given by its NumPy name, or missing: _numpy_call tells)
            missing.append(p.name)
        if p.kind is P.VAR_POSITIONAL:
            head = f"*{p.name}"
            positional.append(head)
            starred = True
        elif p.kind is P.KEYWORD_ONLY:
            if not starred:
                heads.append("*")
                starred = True
            keywords.append(p.name)
        else:
            positional.append(p.name)
        if p.default is not P.empty:
            defaulted.add(p.name)
            if p.name in canonical:  # (left out: NO, so that dim=0 written out beside axis= is PyTorch's error)
                head += "=NO"
                unset_dims.append(p.name)
            else:
                head += f"=_default_{p.name}"
        heads.append(head)
    if numpy and not starred:
        heads.append("*")
    heads.extend(f"{a}=NO" for a in numpy)
    first = params[0].name
    test = f"(({first}.__class__ is not Tensor and {first}.__class__ not in SUBS) or {first}._ag is None)"
    if operands == "any":
        # each argument a plain tensor outside autograd, a plain number (dim, beta, out=None) or a
        # list or tuple of no recorded tensor, tested inline (any_tracked's call and loop are a
        # tenth of a small addmv); anything else asks any_tracked itself, whose answer it is
        plain = " and ".join(f"(({p.name}.__class__ is Tensor and {p.name}._ag is None) or {p.name}.__class__ in PLAIN"
                             f" or ({p.name}.__class__ in SEQUENCES and not items_tracked({p.name})))" for p in params)
        test = f"({plain}) or not any_tracked(({', '.join(p.name for p in params)},))"
    elif operands == "two":
        if len(params) < 2 or params[1].kind is not P.POSITIONAL_OR_KEYWORD:
            return None
        second = params[1].name
        test += f" and (({second}.__class__ is not Tensor and {second}.__class__ not in SUBS) or {second}._ag is None)"
    call = ", ".join(positional + [f"{k}={k}" for k in keywords])
    kwargs = "{" + ", ".join(f"{k!r}: {k}" for k in keywords) + "}"
    plain = " and ".join(f"{k} is _default_{k}" for k in keywords if k in defaulted)
    fast = (f"        if {plain}:\n            return fwd({', '.join(positional)})\n" if plain else "")
    forward = "fwd"
    if fresh_first and not keywords and "_fresh_out_" not in positional:  # (below_autograd's _run's steps: fresh first, then the forward below autograd)
        # (its result under a name no parameter has: ``out`` is one, F.normalize's out=)
        fast = f"        if not OPEN and (_fresh_out_ := fresh({call})) is not None:\n            return _fresh_out_\n"
        forward = "below"
    listen = (f"    if OPEN and reporting():\n"
              f"        return listened(name, op, _tracked, ({', '.join(positional)},), {kwargs}, "
              f"operands_of(operands, ({', '.join(positional)},), {kwargs}))\n") if named else ""
    aliased = ""
    if numpy:
        unset = " or ".join([f"{a} is not NO" for a in numpy] + [f"{m} is NO" for m in missing])
        bound = "{" + ", ".join(f"{p.name!r}: {p.name}" for p in params) + "}"
        given = "{" + ", ".join(f"{a!r}: {a}" for a in numpy) + "}"
        aliased = (f"    if {unset}:\n"
                   f"        return _numpy_call(_tracked, _fname, {bound}, {given}, _defaults, _unset)\n"
                   + "".join(f"    if {n} is NO:\n        {n} = _default_{n}\n" for n in unset_dims))
    source = (f"def _tracked({', '.join(heads)}):\n"
              f"{aliased}"
              f"{listen}"
              f"    if {test}:\n"
              f"{fast}"
              f"        return {forward}({call})\n"
              f"    return _slow(fwd, maker, ({', '.join(positional)},), {kwargs})\n")
    return source, numpy, unset_dims, canonical


class _Param:
    __slots__ = ("name", "kind", "default")

    def __init__(self, name: str, kind: Any, default: Any) -> None:
        self.name, self.kind, self.default = name, kind, default


def _parameters(fwd: Callable) -> list[_Param] | None:
    """``inspect.signature(fwd).parameters`` for a plain Python function (following
    ``__wrapped__`` as inspect does), read off its code object: a tenth of inspect's cost, paid
    for every op at import (once per function: an entry and its front both ask). None for
    anything else (a builtin, a partial). The list is shared: callers read it only."""
    try:
        # (.get: a miss, ~570 a run, raises no KeyError)
        found = _PARAMETERS.get(fwd, _UNREAD)
    except TypeError:  # (an unhashable callable)
        found = _UNREAD
    if found is not _UNREAD:
        return found
    found = _read_parameters(fwd)
    try:
        _PARAMETERS[fwd] = found
    except TypeError:  # (an unhashable callable)
        pass
    return found


_PARAMETERS: dict[Any, list[_Param] | None] = {}
_UNREAD = object()  # (_parameters' miss: None is a reading, "not a plain function")


def forget_parameters() -> None:
    """Drop :func:`_parameters`' table (called once the import has made its entries): ~2,000
    objects the collector would otherwise walk at every full collection and at exit; an entry
    made later (a lazily loaded module's) reads its forward's parameters again."""
    _PARAMETERS.clear()
    _EXACT_FORMS.clear()


def _read_parameters(fwd: Callable) -> list[_Param] | None:
    """:func:`_parameters`' reading of ``fwd``'s code object."""
    while hasattr(fwd, "__wrapped__"):
        fwd = fwd.__wrapped__
    code = getattr(fwd, "__code__", None)
    if code is None or not isinstance(fwd, type(_parameters)):
        return None
    # (the kinds and the empty default as module constants: ~570 forwards a run, ~1,600 parameters)
    empty = _EMPTY
    names = code.co_varnames
    n_pos, n_kw, flags = code.co_argcount, code.co_kwonlyargcount, code.co_flags
    defaults = fwd.__defaults__ or ()
    kwdefaults = fwd.__kwdefaults__ or {}
    out = []
    for i in range(code.co_posonlyargcount):
        out.append(_Param(names[i], _POSITIONAL_ONLY, empty))
    first_default = n_pos - len(defaults)
    for i in range(code.co_posonlyargcount, n_pos):
        out.append(_Param(names[i], _POSITIONAL_OR_KEYWORD, defaults[i - first_default] if i >= first_default
                          else empty))
    at = n_pos + n_kw
    if flags & _CO_VARARGS:
        out.append(_Param(names[at], _VAR_POSITIONAL, empty))
    for i in range(n_pos, n_pos + n_kw):
        out.append(_Param(names[i], _KEYWORD_ONLY, kwdefaults.get(names[i], empty)))
    if flags & _CO_VARKEYWORDS:
        out.append(_Param(names[at + (1 if flags & _CO_VARARGS else 0)], _VAR_KEYWORD, empty))
    return out


_CO_VARARGS, _CO_VARKEYWORDS = inspect.CO_VARARGS, inspect.CO_VARKEYWORDS


def track_inplace(fwd: Callable, name: str, reported: str | None = None, key: str | None = None) -> Callable:
    """The entry of an in-place method writing ``self``: the plain write until any tensor has
    required grad (one global flag), then autograd's checks and history rewrite; every write
    counted in the version (:func:`bump`), as PyTorch counts it, autograd used or not.
    With a ``reported`` name, listeners get one record of the write under it (a "compute" op
    whose output is ``self``: ``a += b`` reports ``add_``, ``t[i] = v`` ``setitem``). With a
    ``key`` (``"Tensor.cumsum_"``), it takes NumPy's keywords where PyTorch's method does.

    A method with a direct call (``fwd.__direct__(self, args, kwargs) -> bool``: the op's fast
    path for its common call, which writes ``self`` and returns True where every check of the
    method passes and the result is the method's, else False with nothing written) has it called
    first when nobody listens and the plain write is what this entry would do: before autograd is
    used, or under no_grad with no inference tensor about (an optimizer's step); the write is
    then counted as below. Any other call, or a False, takes the steps below. An in-place
    sampler marked ``__sampler__`` (:func:`strided.ops.creation.random.compiled_sampler`) has its
    common call drawn in C by the front in the same place, before ``__direct__``."""

    Tensor = _CLASS["Tensor"]
    counted = name not in ("resize_", "resize_as_")  # (a resize counts itself only when it resizes)
    numpy = _numpy_of(fwd, key)
    direct = getattr(fwd, "__direct__", None) if counted else None
    sampler = getattr(fwd, "__sampler__", None) if counted else None  # (the front's compiled draw)
    # (the entry's values in one list, unpacked per call: one closure cell instead of eight, ~1,000
    # fewer objects for the collector to walk at exit over the ~160 in-place entries; the list's
    # last item is the entry itself, for its calls again)
    shared: list = [direct, numpy, reported, fwd, counted, name, Tensor, None]

    @_wrapping(fwd)
    def _inplace_op(self: Any, *args: Any, **kwargs: Any) -> Any:
        direct, numpy, reported, fwd, counted, name, Tensor, _inplace_op = shared
        if direct is not None and not OPEN:
            if (not STATE["used"] or (not GRAD_MODE.get() and not INFERENCE_STORAGES.data)) and direct(self, args, kwargs):
                bump(self, name, 2)  # (as below: this frame and bump's are strided's)
                return self
        if kwargs and numpy is not None and not numpy[2].isdisjoint(kwargs):
            return _inplace_op(self, *args, **_numpy_kwargs(numpy, (self, *args), kwargs))
        if OPEN and reported is not None and reporting():
            every = (self, *args)
            return listened(reported, "write", _inplace_op, every, kwargs, operands_of("two", every, kwargs))
        if not STATE["used"]:  # (no ** when there are no keywords: an optimizer's m.mul_(b1))
            if not counted:  # (a resize: autograd's in-place path counts it only where the sizes change)
                return _RECORDER["inplace"](fwd, name, self, args, kwargs)
            out = fwd(self, *args, **kwargs) if kwargs else fwd(self, *args)
            bump(self, name, 2)  # (every write counts, autograd used or not: PyTorch's _version)
            return out
        plain = self.__class__ is Tensor or self.__class__ in SUBCLASSES
        if INFERENCE_STORAGES.data and plain:  # (the WeakSet's own set: its __len__ is Python code)
            refuse_inference(self, "inplace")
        if not GRAD_MODE.get() and counted and plain:
            # under no_grad (an optimizer's step): the plain write, counted in the version (as
            # autograd's in-place handler does with grad mode off, without its call)
            out = fwd(self, *args, **kwargs)
            bump(self, name, 2)  # (this frame and bump's: the caller's is the first that may be the user's)
            return out
        return _RECORDER["inplace"](fwd, name, self, args, kwargs)

    shared[-1] = _inplace_op
    _inplace_op.__inplace_of__ = fwd  # type: ignore[attr-defined]
    if not counted:  # (a resize: no C front, whose plain call would not count it where it resizes)
        return _inplace_op
    return entry_front(_inplace_op, fwd, 4, numpy, direct, name, sampler)


# The grad mode of the call into an op whose forward runs below autograd (None outside one):
# what ``F.silu(x, inplace=True)`` asks before it writes (grad mode itself is off in there).
_CALLER: ContextVar[bool | None] = ContextVar("strided_grad_mode_of_the_call", default=None)


def grad_enabled_at_call() -> bool:
    """Whether grad mode was on where the user called the op: :data:`GRAD_MODE`, or the mode
    outside the :func:`below_autograd` forward running now."""
    outer = _CALLER.get()
    return GRAD_MODE.get() if outer is None else outer


def below_autograd(fwd: Callable) -> Callable:
    """``fwd`` run with grad mode off: an nn.functional forward built from other ops (F.linear:
    a matmul, then ``add_`` of the bias) records none of their nodes, which the one node its rule
    attaches would replace anyway, and its in-place steps on its own fresh results take no
    history rewrite (a copy of the old values), as PyTorch's kernels run below its autograd key."""

    fresh = getattr(fwd, "__fresh__", None)

    def _below(*args: Any, **kwargs: Any) -> Any:
        caller = _CALLER.set(grad_enabled_at_call())
        token = GRAD_MODE.set(False)
        try:
            return fwd(*args, **kwargs)
        finally:
            GRAD_MODE.reset(token)
            _CALLER.reset(caller)

    if fresh is None:
        return _wrap(_below, fwd)

    @_wrapping(fwd)
    def _run(*args: Any, **kwargs: Any) -> Any:
        # a forward's fresh fast path (pure NumPy into fresh memory, entering no other op: grad
        # mode is nothing to it) first, when nobody listens and no keyword is given: the two
        # context variables' set and reset are a sixth of a small F.linear
        if not OPEN and not kwargs and (out := fresh(*args)) is not None:
            return out
        return _below(*args, **kwargs)

    # (read by _exact: an entry with the forward's parameter list makes _run's steps itself, so a
    # plain call runs fresh once, in one frame fewer; fresh may not be run twice for one call)
    # (_run itself last: a wrapper of _run copies its __dict__, and must not be passed over)
    _run.__fresh_first__ = (fresh, _below, _run)  # type: ignore[attr-defined]
    return _run


# ---------------------------------------------------------------- guards of the ops without a rule


def no_rule(name: str, t: Any, detached: str) -> StridedNotImplementedError:
    return StridedNotImplementedError(join_lines(
        f"{name}() is not differentiable yet in strided's autograd",
        f"its input (shape {t._layout.shape}) requires grad, and the gradient cannot flow "
        f"through {name}() in this version: its result would silently carry none",
        f"fix: compute it from the differentiable ops (add, mul, exp, sum, matmul, views, ...), or "
        f"outside the graph: {detached} or under strided.no_grad()"))


def guard(fwd: Callable, name: str, op: Any = None, operands: str = "self", key: str | None = None) -> Callable:
    """A Tensor method without a rule: given a tensor that requires grad (grad mode on), a float
    result with no history raises instead of silently cutting the gradient. With an ``op`` (its
    registry entry), it is also the op's reporting entry (see :func:`track`); with a ``key``
    (``"Tensor.argmax"``), it takes NumPy's keywords where PyTorch's method does."""
    numpy = _numpy_of(fwd, key)
    cuts = op is None or not op.layout_only  # (a layout-only op's plain result cuts no gradient)
    # (one closure cell instead of seven: see track_inplace; the last item is the entry itself)
    shared: list = [op, numpy, name, operands, fwd, cuts, None]

    @_wrapping(fwd)
    def _guard(self: Any, *args: Any, **kwargs: Any) -> Any:
        op, numpy, name, operands, fwd, cuts, _guard = shared
        if OPEN and op is not None and reporting():
            if kwargs and numpy is not None and not numpy[2].isdisjoint(kwargs):  # (the record: dim=, not axis=)
                return _guard(self, *args, **_numpy_kwargs(numpy, (self, *args), kwargs))
            every = (self, *args)
            return listened(name, op, _guard, every, kwargs, operands_of(operands, every, kwargs))
        try:
            out = fwd(self, *args, **kwargs)
        except TypeError as e:  # (no cost until raised: NumPy's keywords are renamed only once Python refused one)
            if numpy is None or not _refused_keyword(numpy, e, kwargs):
                raise
            return _guard(self, *args, **_numpy_kwargs(numpy, (self, *args), kwargs))
        if (cuts and is_tensor(self) and self._ag is not None and is_tensor(out) and out._ag is None
                and out is not self and (out._dtype.is_floating_point or out._dtype.is_complex)
                and requires_grad(self) and GRAD_MODE.get() and not INSIDE.get()):
            raise no_rule(name, self, f"x.detach().{name}(...)")
        return out

    shared[-1] = _guard
    _guard.__guards__ = name  # type: ignore[attr-defined]
    return _row_major_self(entry_front(_guard, fwd, 2, numpy), fwd)


def guard_function(fwd: Callable, name: str, detached: str | None = None, op: Any = None, key: str | None = None
                   ) -> Callable:
    """A module function without a rule (``strided.sort``, ``xp.sort``): given a tensor that
    requires grad (grad mode on), float results none of which has a history raise. With an
    ``op`` (its registry entry), it is also the op's reporting entry; with a ``key``
    (``"argmax"``), it takes NumPy's keywords where PyTorch's function does."""
    hint = detached or f"strided.{name}(x.detach(), ...)"
    numpy = _numpy_of(fwd, key)
    Tensor = _CLASS["Tensor"]
    # (one closure cell instead of seven: see track_inplace; the last item is the entry itself)
    shared: list = [op, numpy, name, fwd, Tensor, hint, None]

    @_wrapping(fwd)
    def _guard(*args: Any, **kwargs: Any) -> Any:
        op, numpy, name, fwd, Tensor, hint, _guard = shared
        if OPEN and op is not None and reporting():
            if kwargs and numpy is not None and not numpy[2].isdisjoint(kwargs):  # (the record: dim=, not axis=)
                return _guard(*args, **_numpy_kwargs(numpy, args, kwargs))
            return listened(name, op, _guard, args, kwargs, operands_of("any", args, kwargs))
        # (the common call, nothing to guard: any_tracked's loop inlined for plain tensors, numbers
        # and lists or tuples of them, a factory's sizes: its call was a fifth of a 2 µs op, two
        # calls with keywords; anything else asks it below)
        plain = False
        for v in (args if not kwargs else (*args, *kwargs.values())):
            c = v.__class__
            if c is Tensor:
                if v._ag is not None:
                    break
            elif c not in _GUARD_PLAIN and (c not in _SEQUENCES or items_tracked(v)):
                break
        else:
            if not kwargs:
                return fwd(*args)
            plain = True
        if not kwargs and not any_tracked(args):
            return fwd(*args)
        try:
            if plain or (not any_tracked(args) and not any_tracked(kwargs.values())):
                return fwd(*args, **kwargs)
            out = fwd(*args, **kwargs)
        except TypeError as e:  # (no cost until raised: NumPy's keywords are renamed only once Python refused one)
            if numpy is None or not _refused_keyword(numpy, e, kwargs):
                raise
            return _guard(*args, **_numpy_kwargs(numpy, args, kwargs))
        # (a result that is the caller's out= was judged by the op's out= rules: refused there,
        # or written as PyTorch writes a comparison's out=, whatever requires grad)
        if GRAD_MODE.get() and not INSIDE.get() and _cuts(op) and _cut(out) and out is not kwargs.get("out"):
            t = _requiring((args, tuple(kwargs.values())))
            if t is not None:
                raise no_rule(name, t, hint)
        return out

    shared[-1] = _guard
    _guard.__guards__ = name  # type: ignore[attr-defined]
    return entry_front(_guard, fwd, 1, numpy)


def _cuts(op: Any) -> bool:
    """Whether a guarded function's plain float result cuts the gradient: not for a layout-only
    op (its result reads no values) nor a no-history factory's (PyTorch's ``tensor(t)`` or
    ``linspace(0, t)`` is new data). Read per call (the flags are declared after the module's
    functions are wrapped); a module function, not one closure per guard (~100 at import)."""
    return op is None or not (op.layout_only or op.no_history)


def _cut(out: Any) -> bool:
    """Whether ``out`` (a tensor or a tuple of them) holds float results none of which has a history."""
    outs = out if isinstance(out, (tuple, list)) else (out,)
    floats = [o for o in outs if is_tensor(o) and (o._dtype.is_floating_point or o._dtype.is_complex)]
    return bool(floats) and all(o._ag is None for o in floats)
