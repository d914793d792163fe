"""``explain`` for strided tensors and PyTorch tensors: what a layout op would do, without doing it.

One source of truth: strided's own Tensor methods already follow PyTorch exactly (proven by
``tests/test_views_torch.py``), each parsing its arguments and carrying out a plan of
:mod:`strided.layout.plans`. So the prediction *runs the real strided method* on a data-less
**shadow**: a strided Tensor with ``x``'s layout over a data-free storage of ``x``'s storage
size (:class:`strided.dispatch.DataFree`, PyTorch's meta tensors: no memory). A copy of a
data-free tensor is data-free (no byte moves), and is reported to the listeners like any copy:
the run listens, in a fresh ``contextvars.Context``, and keeps the copies (bytes, why);
composite ops (``ravel`` = ``contiguous().view(-1)``) carry on naturally. No ``watch`` or ledger
open outside sees the shadow ops (the fresh context has no listeners of theirs). There is no
planning mode: the data-freeness is the tensor's, not the thread's.

Example::

    >>> x = torch.zeros(3, 4).t()
    >>> r = explain_torch(x, "view", (12,), {})
    >>> r.outcome, r.error_class
    ('error', 'RuntimeError')
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .. import dtypes as D
from ..dispatch import DataFree, data_free, listen
from ..layout import Layout, ReshapeRefusal, is_contiguous, layout_origin, product
from ..layout.dtype_view import DtypeViewRefusal, view_dtype_layout
from ..memory_format import MemoryFormat, channels_last, contiguous_format, preserve_format
from ..messages import copy_why
from ..ops.table import explained
from ..tensor import Tensor
from .dims import reshape_mapping
from .report import Explanation, Fix

__all__ = ["TORCH_OPS", "Source", "explain_torch", "source_of"]

# PyTorch's composite methods explain predicts too: ``ravel`` is ``contiguous().view(-1)``, no op
# of its own in strided's registry nor in PyTorch's dispatcher (CompositeImplicitAutograd)
_COMPOSITES = ("ravel",)
TORCH_OPS: tuple[str, ...] = (*explained(), *_COMPOSITES)
"""The layout ops ``explain`` predicts for strided and PyTorch tensors (Tensor method names), read
off the op registry (each op's declaration says whether explain predicts it)."""

_RESHAPES = ("view", "reshape", "flatten", "unflatten", "ravel")
_BUILTINS = (IndexError, NotImplementedError, TypeError, ValueError, RuntimeError)


@dataclass(frozen=True)
class Source:
    """What ``explain`` needs of a tensor: its layout, its storage size (elements), its element
    size, and a strided dtype standing in for it (same itemsize; PyTorch dtypes strided lacks,
    such as bfloat16 or complex64, are stood in for by one of the same size)."""

    library: str
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    offset: int
    itemsize: int
    storage_size: int
    dtype: D.DType
    dtype_name: str
    torch_dtype: Any = None
    device: Any = None
    conj: bool = False  # PyTorch's lazy conjugate / negative bits (a view to another dtype refuses them)
    neg: bool = False

    @property
    def layout(self) -> Layout:
        return Layout(self.shape, self.strides, self.offset)


_STAND_IN = {1: D.uint8, 2: D.int16, 4: D.int32, 8: D.int64}


def _stand_in(name: str, itemsize: int) -> D.DType:
    """strided's dtype of that name, else one of the same itemsize (a layout needs only the size)."""
    try:
        return D.to_dtype(name)
    except TypeError:
        # Note: complex128 (16 bytes) has no strided dtype of its size; float64 stands in, and
        # byte counts are computed from the real itemsize, never from the stand-in's.
        return _STAND_IN.get(itemsize, D.float64)


def source_of(x: Any) -> Source:
    """The :class:`Source` of a strided Tensor or a torch.Tensor (torch is not imported here)."""
    if isinstance(x, Tensor):
        lay = x.layout
        return Source("strided", lay.shape, lay.strides, lay.offset, x.dtype.itemsize,
                      x.untyped_storage().nbytes() // x.dtype.itemsize, x.dtype, x.dtype.name)
    itemsize = x.element_size()
    name = str(x.dtype).removeprefix("torch.")
    return Source("torch", tuple(x.shape), tuple(x.stride()), x.storage_offset(), itemsize,
                  x.untyped_storage().nbytes() // itemsize, _stand_in(name, itemsize), name, x.dtype, x.device,
                  x.is_conj(), x.is_neg())


# ---------------------------------------------------------------- the shadow and its run


def shadow(src: Source) -> Tensor:
    """A strided Tensor with ``src``'s layout over a data-free storage (no memory)."""
    t = object.__new__(Tensor)
    t._storage = data_free(src.storage_size, src.dtype)
    t._layout = src.layout
    t._dtype = src.dtype
    t._base = None
    t._ag = None
    return t


@dataclass(frozen=True)
class PlannedCopy:
    """One copy the shadow run asked for: the shape read, the elements and the why/reason."""

    shape: tuple[int, ...]
    numel: int
    reason: str
    why: Any


@dataclass(frozen=True)
class Run:
    """A shadow run: the shadow, the result (or None) or the exception, and the copies made."""

    shadow: Tensor
    result: Tensor | None
    error: BaseException | None
    copies: tuple[PlannedCopy, ...]


def run_shadow(src: Source, call: Callable[[Tensor], Any]) -> Run:
    """``call(shadow)`` in a fresh context: what it returned or raised, and the copies it asked
    for (data-free: none made), read off the op records of the run."""
    t = shadow(src)
    copies: list[PlannedCopy] = []

    def keep(record: Any) -> None:
        if record.kind == "copy" and getattr(record.output, "_storage", None).__class__ is DataFree:
            copies.append(PlannedCopy(record.shape, product(record.shape), record.plan, record.why))

    def go() -> Run:
        with listen(keep):
            try:
                out = call(t)
            except Exception as exc:  # noqa: BLE001 - the prediction is whatever strided raises
                return Run(t, None, exc, tuple(copies))
        return Run(t, out, None, tuple(copies))

    return contextvars.Context().run(go)


# ---------------------------------------------------------------- arguments


def _is_torch(value: Any) -> bool:
    return type(value).__module__.split(".", 1)[0] == "torch"


def _arg(value: Any) -> Any:
    """A torch argument in strided's terms: Size -> tuple, dtype -> strided dtype (stand-in),
    memory formats -> strided's; lists and tuples converted element by element."""
    if value.__class__ in (tuple, list):
        return value.__class__(_arg(v) for v in value)
    if not _is_torch(value):
        return value
    name = type(value).__name__
    if name == "Size":
        return tuple(value)
    if name == "dtype":
        return _stand_in(str(value).removeprefix("torch."), value.itemsize)
    if name == "memory_format":
        return {"torch.contiguous_format": contiguous_format, "torch.channels_last": channels_last,
                "torch.preserve_format": preserve_format}.get(str(value), MemoryFormat(str(value)))
    return value


def _spell(value: Any) -> str:
    """An argument as the user would write it."""
    if isinstance(value, D.DType):
        return f"strided.{value.name}"
    if isinstance(value, MemoryFormat):
        return repr(value)
    if _is_torch(value) and type(value).__name__ == "Size":
        return repr(tuple(value))
    if _is_torch(value) and type(value).__name__ == "Tensor":
        return "other"
    return repr(value)


def spell_call(name: str, op: str, args: tuple, kwargs: dict) -> str:
    """``x.op(a, b, k=v)`` as the user would write it."""
    parts = [_spell(a) for a in args] + [f"{k}={_spell(v)}" for k, v in kwargs.items()]
    return f"{name}.{op}({', '.join(parts)})"


# ---------------------------------------------------------------- the op's own quirks


def _to_call(src: Source, args: tuple, kwargs: dict) -> tuple[Callable[[Tensor], Any], bool, int]:
    """How to run ``to``: the shadow call, whether it returns ``x`` itself, the new itemsize.

    ``to(dtype)`` returns the tensor itself when the dtype is already ``x``'s (unless
    ``copy=True``), else a copy in ``preserve_format``'s strides (strided's ``to`` plan, which
    is PyTorch's ``_to_copy``). PyTorch's positional order is ``to(dtype, non_blocking, copy)``,
    strided's ``to(dtype, copy)``.
    """
    if src.library == "torch":
        return _torch_to_call(src, args, kwargs)
    kw = dict(kwargs)
    rest = list(args)
    target = rest.pop(0) if rest else kw.pop("dtype", None)
    copy = rest.pop(0) if rest else kw.pop("copy", False)
    if isinstance(target, Tensor) or (_is_torch(target) and type(target).__name__ == "Tensor"):
        target = target.dtype
    extra = {k: _arg(v) for k, v in kw.items()}
    conv = _arg(target)
    try:  # a DType, or a name strided reads as one ("float32")
        itemsize = D.to_dtype(conv).itemsize
    except (TypeError, ValueError):  # not a dtype: the shadow call raises, its error is the prediction
        itemsize = src.itemsize
    return (lambda t: t.to(conv, *rest, copy=copy, **extra)), False, itemsize


# PyTorch's keyword names for the arguments strided's methods take as *varargs*
# (``x.view(size=(2, 3))``, ``x.permute(dims=(1, 0))``).
_TORCH_KEYWORDS = {"view": "size", "reshape": "shape", "permute": "dims", "expand": "size",
                   "broadcast_to": "size"}


_VARARG_LISTS = frozenset({"view", "reshape", "expand", "broadcast_to", "permute", "squeeze"})
_LIST_ARGS = {"unflatten": (1,), "movedim": (0, 1), "as_strided": (0, 1)}


def _int_list(seq: Any) -> Any:
    """PyTorch's int-list parser type-checks only the first element: a Python bool after it is
    read as an int (``x.view(3, True)`` is ``x.view(3, 1)``)."""
    # Note: strided refuses a bool anywhere in a size or dim list (a truth value is not a count);
    # explain on a torch tensor predicts PyTorch's quirk.
    if seq.__class__ not in (tuple, list) or len(seq) < 2 or isinstance(seq[0], bool):
        return seq
    return seq.__class__(int(v) if v.__class__ is bool else v for v in seq)


def _torch_spelling(op: str, args: tuple, kwargs: dict) -> tuple[tuple, dict, BaseException | None]:
    """A torch call's arguments in the spelling strided's methods take (the same rules, other
    signatures), or PyTorch's own TypeError for a spelling PyTorch refuses and strided takes."""
    # Note: strided's Tensor methods take sizes and dims positionally only, and contiguous's
    # memory format positionally too; explain on a strided tensor predicts strided's signatures.
    kwargs = dict(kwargs)
    name = _TORCH_KEYWORDS.get(op)
    if name in kwargs and not args:
        args = (kwargs.pop(name),)
    if op in _VARARG_LISTS:
        args = (_int_list(args[0]),) if len(args) == 1 else tuple(_int_list(args))
    for i in _LIST_ARGS.get(op, ()):
        if i < len(args):
            args = (*args[:i], _int_list(args[i]), *args[i + 1:])
    if op == "view" and not args and list(kwargs) == ["dtype"]:
        args = (kwargs.pop("dtype"),)
    if op == "expand" and isinstance(kwargs.get("implicit"), bool):
        kwargs.pop("implicit")  # (autograd tracing's flag: no effect on the layout)
    if op == "squeeze" and len(args) > 1:
        args = (args,)  # squeeze(0, 1) is squeeze((0, 1))
    if op == "squeeze" and (args == (None,) or "dim" in kwargs and kwargs["dim"] is None):
        # Note: strided's squeeze(None) squeezes every size-1 dim (its default); PyTorch has no None
        got = "NoneType" if args else "dim=NoneType, "
        return args, kwargs, TypeError(f"squeeze() received an invalid combination of arguments - got ({got}), "
                                       "but expected one of:")
    if op == "contiguous" and args:
        return args, kwargs, TypeError(f"contiguous() takes 0 positional arguments but {len(args)} "
                                       f"{'was' if len(args) == 1 else 'were'} given")
    return args, kwargs, None


def _raises(exc: BaseException) -> Callable[[Tensor], Any]:
    def refused(t: Tensor) -> Any:
        raise exc

    return refused


def _torch_to_call(src: Source, args: tuple, kwargs: dict) -> tuple[Callable[[Tensor], Any], bool, int]:
    """PyTorch's ``Tensor.to``, read by PyTorch's own parser (``torch._C._nn._parse_to``, which
    ``nn.Module.to`` uses too: every overload, a dtype, a device, another tensor, ``None``, Python
    ``float``...) and decided by ATen's ``to_will_alias``: ``x`` itself when dtype, device and the
    memory format's suggestion all match and ``copy`` is false, else a copy (``_to_copy``) in
    preserve_format's strides or the memory format asked for."""
    import torch

    kw = dict(kwargs)
    copy = kw.pop("copy", False)
    try:
        try:
            device, dtype, _, fmt = torch._C._nn._parse_to(*args, **kw)
        except RuntimeError as exc:
            # the parser knows `copy` (in every overload's position) but refuses to return it
            if "copy" not in str(exc) or not args:
                raise
            device, dtype, _, fmt = torch._C._nn._parse_to(*args[:-1], **kw)
            copy = args[-1]
    except Exception as exc:  # noqa: BLE001 - PyTorch's own refusal (TypeError, ValueError, ...) is the prediction
        return _raises(exc), False, src.itemsize
    dtype = src.torch_dtype if dtype is None else dtype
    device = src.device if device is None else _with_index(torch, device)
    itemsize = dtype.itemsize
    if device.type != "meta" and src.device.type == "meta":  # (meta -> meta:0 is a copy, not this)
        return _raises(NotImplementedError("Cannot copy out of meta tensor; no data!")), False, itemsize
    suggested = torch.contiguous_format
    if len(src.shape) in (4, 5):
        meta = torch.empty_strided(src.shape, src.strides, device="meta")
        from torch._prims_common import suggest_memory_format

        suggested = suggest_memory_format(meta)
    if dtype == src.torch_dtype and device == src.device and not copy \
            and (fmt is None or fmt == torch.preserve_format or fmt == suggested):
        return (lambda t: t), True, itemsize
    if fmt is None or fmt == torch.preserve_format:
        stand = _stand_in(str(dtype).removeprefix("torch."), itemsize)
        return (lambda t: t.to(stand, copy=True)), False, itemsize
    target = _arg(fmt)
    return (lambda t: t.clone(memory_format=target)), False, itemsize


def _with_index(torch: Any, device: Any) -> Any:
    """ATen's ``ensure_has_index``: a device named without an index (``"cuda"``) means the current
    device of its kind (``cuda:0``), so ``x.to("cuda")`` of a tensor on ``cuda:0`` returns ``x``.
    A kind whose current device cannot be read here is compared as named."""
    if device.index is not None or device.type in ("cpu", "meta"):
        return device
    try:
        return torch.device(device.type, getattr(torch, device.type).current_device())
    except Exception:  # noqa: BLE001 - no such backend here, or none of its devices: nothing to fill in
        return device


def _contiguous_preserve_of_contiguous(op: str, args: tuple, kwargs: dict, src: Source) -> bool:
    """PyTorch's ``contiguous(memory_format=torch.preserve_format)`` returns a contiguous tensor
    itself (its contiguity test runs before the format check); only a non-contiguous one raises."""
    # Note: strided's Tensor.contiguous refuses preserve_format whatever the layout; explain on a
    # strided tensor predicts strided's own behaviour, on a torch tensor PyTorch's.
    fmt = args[0] if args else kwargs.get("memory_format")
    return op == "contiguous" and fmt is preserve_format and is_contiguous(src.shape, src.strides)


def _first_line(exc: BaseException) -> str:
    return str(exc).split("\n", 1)[0]


def builtin_name(exc: BaseException) -> str:
    """The builtin class a peer raises for ``exc`` (RuntimeError, IndexError, ...)."""
    return next((c.__name__ for c in _BUILTINS if isinstance(exc, c)), type(exc).__name__)


# ---------------------------------------------------------------- the prediction


def explain_torch(x: Any, op: str, args: tuple = (), kwargs: dict | None = None) -> Explanation:
    """What ``x.op(*args, **kwargs)`` would do, for a strided Tensor or a torch.Tensor ``x``.

    The :class:`~strided.diagnose.report.Explanation` has the outcome ("view": the result shares
    ``x``'s storage, also when it is ``x`` itself (``returns_self``); "copy"; or "error" with the
    builtin class and first line PyTorch raises), the result's shape, strides and storage offset,
    the bytes copied, the reason in ``x``'s numbers and the cheap fixes, each priced.
    Nothing runs on ``x``'s data and ``x`` is not touched.

    >>> explain_torch(strided.zeros(3, 4).t(), "reshape", (12,)).bytes_copied
    48
    """
    kwargs = dict(kwargs or {})
    if op not in TORCH_OPS:
        raise ValueError(f"explain: unknown op {op!r} for a {'PyTorch' if _is_torch(x) else 'strided'} tensor; "
                         f"accepted: {', '.join(TORCH_OPS)} (or a binary elementwise op)")
    src = source_of(x)
    call = spell_call("x", op, args, kwargs)
    refused: BaseException | None = None
    if src.library == "torch":
        args, kwargs, refused = _torch_spelling(op, tuple(args), kwargs)
    if src.library == "torch" and op == "view" and len(args) == 1 and not kwargs and _is_torch(args[0]) \
            and type(args[0]).__name__ == "dtype":
        return _view_dtype(src, args[0], call)
    if src.library == "strided" and op == "view" and len(args) == 1 and isinstance(args[0], D.DType) \
            and not kwargs:
        return _view_dtype(src, args[0], call)  # (the shadow's result would sit on a typed alias)
    out_itemsize = src.itemsize
    returns_self_forced = False
    if op == "to":
        fn, returns_self_forced, out_itemsize = _to_call(src, args, kwargs)
    else:
        cargs = tuple(_arg(a) for a in args)
        ckw = {k: _arg(v) for k, v in kwargs.items()}

        def fn(t: Tensor) -> Any:
            if refused is not None:
                raise refused
            if src.library == "torch" and _contiguous_preserve_of_contiguous(op, cargs, ckw, src):
                return t
            return getattr(t, op)(*cargs, **ckw)

    run = run_shadow(src, fn)
    base = dict(library=src.library, op=op, call=call, input_shape=src.shape, input_strides=src.strides,
                input_offset=src.offset, itemsize=src.itemsize)
    if run.error is not None:
        return _error_report(src, op, args, kwargs, run, base)
    res = run.result
    lay = res.layout
    returns_self = returns_self_forced or res is run.shadow
    mapping = reshape_mapping(src.shape, lay.shape) if op in _RESHAPES else None
    if res._storage is run.shadow._storage and not run.copies:
        reason = _view_reason(src, lay, returns_self)
        return Explanation(outcome="view", shape=lay.shape, strides=lay.strides, offset=lay.offset,
                           reason=reason, mapping=mapping, returns_self=returns_self, **base)
    nbytes = sum(c.numel for c in run.copies) * out_itemsize
    why = run.copies[0].why if run.copies else None
    reason = _copy_reason(src, run.copies, out_itemsize, call if op == "to" else "")
    fixes = _copy_fixes(src, op, lay.shape)
    return Explanation(outcome="copy", shape=lay.shape, strides=lay.strides, offset=lay.offset,
                       bytes_copied=nbytes, reason=reason, fixes=fixes, mapping=mapping, refusal=why, **base)


# PyTorch's ScalarType names: strided's table, plus the torch dtypes strided does not have
_SCALAR_NAMES = {**D.TORCH_NAME, "bfloat16": "BFloat16", "complex32": "ComplexHalf"}


def _view_dtype(src: Source, dtype: Any, call: str) -> Explanation:
    """PyTorch's ``x.view(dtype)``: the same bytes read as another dtype (a view). Of a different
    element size, the last dim must have stride 1 and is scaled; the other strides and the offset
    are rescaled (and must divide when the new element is larger).

    The rule is the layout layer's (:func:`strided.layout.dtype_view.view_dtype_layout`), the one
    strided's own ``Tensor.view(dtype)`` carries out; only the lazy-bit check is PyTorch's alone.
    """
    new = dtype.itemsize
    old = src.itemsize
    name = dtype.name if isinstance(dtype, D.DType) else str(dtype).removeprefix("torch.")
    base = dict(library=src.library, op="view", call=call, input_shape=src.shape, input_strides=src.strides,
                input_offset=src.offset, itemsize=old)

    def refuse(first: str, why: str) -> Explanation:
        return Explanation(outcome="error", error=f"RuntimeError: {first}",
                           reason=f"PyTorch raises RuntimeError: {first}\n{why}\n{_origin(src)}", **base)

    if src.conj or src.neg:  # (checked before the dtype: view(its own dtype) refuses them too)
        bit = "conjugate view tensors" if src.conj else "tensors with negative bit set"
        return refuse(f"torch.Tensor.view is not supported for {bit} when converting to a different dtype.",
                      "x's conjugation (or negation) is a lazy bit, not in its bytes: "
                      f"x.{'resolve_conj' if src.conj else 'resolve_neg'}() first materializes it")
    plan = view_dtype_layout(src.layout, old, new, _SCALAR_NAMES.get(src.dtype_name, src.dtype_name),
                             _SCALAR_NAMES.get(name, name))
    if isinstance(plan, DtypeViewRefusal):
        return refuse(plan.first, plan.why)
    return Explanation(outcome="view", shape=plan.shape, strides=plan.strides, offset=plan.offset,
                       reason=f"a view: the same bytes read as {name} ({new} bytes each)\n{_origin(src)}", **base)


def _origin(src: Source) -> str:
    origin = layout_origin(src.layout)
    return f"x: shape {src.shape}, strides {src.strides}, offset {src.offset} — {origin}"


def _view_reason(src: Source, lay: Layout, returns_self: bool) -> str:
    if returns_self:
        return ("returns x itself (the same tensor object, not a new view): nothing to change\n"
                + _origin(src))
    return "a view: a new layout over x's storage, no byte copied\n" + _origin(src)


def _copy_reason(src: Source, copies: tuple[PlannedCopy, ...], itemsize: int, to_call: str = "") -> str:
    """One line per copy (bytes, the ledger's reason and the plan's why), then x's layout.
    ``to_call`` names a conversion (whose ledger text would name strided's stand-in dtype)."""
    lines = []
    for c in copies:
        text = c.reason
        if to_call:
            text = f"{to_call}: a conversion writes new memory (in x's memory order when x is dense)"
        elif c.why is not None and copy_why(c.why) not in text:
            text = f"{text}: {copy_why(c.why)}"
        lines.append(f"copies {c.numel * itemsize:,} bytes ({c.numel} elements): {text}")
        if isinstance(c.why, ReshapeRefusal):
            lines.append(f"  ({c.why.reason()})")
    lines.append(_origin(src))
    return "\n".join(lines)


def _price(src: Source, fn: Callable[[Tensor], Any]) -> tuple[bool, int] | None:
    """(is a view of x, bytes copied) of ``fn`` on x's shadow, or None when it fails."""
    run = run_shadow(src, fn)
    if run.error is not None:
        return None
    return run.result._storage is run.shadow._storage, sum(c.numel for c in run.copies) * src.itemsize


def _memory_order(src: Source) -> tuple[int, ...] | None:
    """The permutation of x's dims that walks memory outermost-first, if not the identity."""
    order = tuple(sorted(range(len(src.shape)), key=lambda d: (-abs(src.strides[d]), d)))
    return None if order == tuple(range(len(src.shape))) else order


def _flat_view_fix(src: Source) -> Fix | None:
    """``x.permute(memory order).view(-1)`` when it is a view (checked with the plans)."""
    order = _memory_order(src)
    if order is None:
        return None
    priced = _price(src, lambda t: t.permute(*order).view(-1))
    if priced is None or not priced[0]:
        return None
    return Fix(f"x.permute{order}.view(-1)", 0,
               "the same elements in memory order, not x's order (fine for a sum, a norm, an elementwise op)")


def _copy_fixes(src: Source, op: str, new_shape: tuple[int, ...]) -> tuple[Fix, ...]:
    """For a reshape-like copy: a view of the same elements in memory order, when one exists."""
    if op in _RESHAPES and len(new_shape) == 1:
        fix = _flat_view_fix(src)
        return (fix,) if fix else ()
    return ()


def _error_report(src: Source, op: str, args: tuple, kwargs: dict, run: Run, base: dict) -> Explanation:
    exc = run.error
    cls = builtin_name(exc)
    first = _first_line(exc)
    peer = "PyTorch" if src.library == "torch" else "strided (as PyTorch)"
    lines = [f"{peer} raises {cls}: {first}"]
    details = [ln.strip() for ln in str(exc).splitlines()[1:] if ln.strip()]
    lines.extend(d for d in details if not d.startswith("fix:"))
    refusal = getattr(exc, "refusal", None)
    fixes: list[Fix] = []
    if isinstance(refusal, ReshapeRefusal) and op == "view":
        shape_args = ", ".join(map(str, refusal.new_shape))
        for text, fn in ((f"x.reshape({shape_args})", lambda t: t.reshape(refusal.new_shape)),
                         (f"x.contiguous().view({shape_args})", lambda t: t.contiguous().view(refusal.new_shape))):
            priced = _price(src, fn)
            if priced is not None:
                fixes.append(Fix(text, priced[1], "a new contiguous tensor" if priced[1] else ""))
        if len(refusal.new_shape) == 1:
            fix = _flat_view_fix(src)
            if fix:
                fixes.append(fix)
    else:
        lines.extend(d for d in details if d.startswith("fix:"))
    if not any(d.startswith("tensor: shape") for d in details):
        lines.append(_origin(src))
    return Explanation(outcome="error", error=f"{cls}: {first}", reason="\n".join(lines), fixes=tuple(fixes),
                       refusal=refusal, **base)
