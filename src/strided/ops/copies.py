"""The copy ops: new memory filled from a tensor's elements, through the one copy path.

Tensor's copies: ``contiguous`` (``self`` when already contiguous in the format), ``clone``,
``ravel`` and the dtype copy :func:`as_dtype` (the core of ``Tensor.to``, which
:mod:`strided.ops.conversions` parses). Each asks :mod:`strided.layout.plans` for a Copy plan and
carries it out with :func:`strided.dispatch.materialize`, so the ledger gets its why.

The ``*_copy`` forms of the view ops (``narrow_copy``, ``permute_copy``, ``split_copy``, ...), as
PyTorch 2.13 has them: each is the view, then a contiguous copy of it in new memory.

One builder, :func:`copy_form`, makes them all from the view they copy: the view is taken with
the listeners silenced (it is an implementation step, not the user's op), then each result is
copied into new contiguous memory through the one copy path and reported as ONE copy named
after the ``*_copy`` op, with a reason, so the copy ledger and ``watch`` show it. A view that
already had to copy (``view_copy`` of a layout ``view`` cannot express) is not copied twice.

>>> x = strided.arange(6).reshape(2, 3)
>>> y = narrow_copy(x, 1, 1, 2)
>>> y.tolist(), y.untyped_storage() is x.untyped_storage()
([[1, 2], [4, 5]], False)
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import layout as L
from ..args import memory_format_error, type_name
from ..dispatch import OPEN, DataFree, adopted, copied, copy_of, materialize, result
from ..dtypes import to_dtype
from ..errors import StridedIndexError, StridedRuntimeError, StridedTypeError, join_lines
from ..grad_mode import count_kernel_writes
from ..gradients import seal
from ..kernels import blocked, native
from ..kernels.listeners import silenced
from ..kernels.memory import dense_layout, numpy_view
from ..layout import memo as layout_memo
from ..layout import plans as P
from ..memory_format import MemoryFormat, contiguous_format, is_dense_format, preserve_format
from ..messages import error
from ..numpy_keywords import aliases_of, renamed
from ..opdef import Kind, declare
from ..refusals import NotContiguous
from ..storage import Storage, allocate
from ..tensor import Tensor, tensor_arg
from ._support.memo import Memo
from ._support.operands import _cinfo, flat_run
from ._support.out import write_out
from .registry import backward, method

_is_contiguous = L.is_contiguous


# ---------------------------------------------------------------- Tensor's copies


@method("contiguous")
def contiguous(self: Tensor, memory_format: MemoryFormat = contiguous_format) -> Tensor:
    """``self`` if already contiguous in ``memory_format``; otherwise a dense copy.

    >>> x = strided.zeros(2, 3)
    >>> x.contiguous() is x, x.t().contiguous().stride()
    (True, (2, 1))
    """
    lay = self._layout
    if memory_format is contiguous_format or memory_format is preserve_format:
        # (row-major strides, remembered per shape, answer the common case without the walk;
        # the walk also accepts any stride on a size-1 dim)
        info = _cinfo[lay.shape]
        if lay.strides == info[0] or _is_contiguous(lay.shape, lay.strides):
            # the plan's first answer (a View of the layout itself), asked cheaply; PyTorch
            # returns a contiguous tensor itself for preserve_format too, and refuses only
            # the non-contiguous ones (below)
            return self
        nbytes = info[1] * self._dtype.itemsize
        if (memory_format is contiguous_format and not OPEN and self._storage.__class__ is Storage
                and 0 < nbytes < native.MIN_BYTES and nbytes < blocked.MIN_BYTES):
            # nobody listens, small: the plan's Copy (row-major strides, offset 0) without building
            # it, by copy_to_new's own copy of a layout too small for its kernels (their limits read
            # here as there): NumPy's C-order flatten of the view
            return adopted(row_major_copy(self._storage, lay, self._dtype), info[2], self._dtype)
    if not is_dense_format(memory_format):
        raise memory_format_error(memory_format, "contiguous")
    plan = P.contiguous(lay, memory_format.name, itemsize=self._dtype.itemsize)
    if plan.__class__ is P.Copy:
        return materialize(self, plan, (lambda: contiguous_reason(lay.shape, lay.strides, plan.why))
                           if memory_format is contiguous_format else f"contiguous({memory_format.name})")
    if plan.__class__ is P.View:
        return self
    raise error(plan)


contiguous.__row_major_self__ = _cinfo  # type: ignore[attr-defined]  # (its entry's compiled front answers
# a row-major tensor with itself in C: grad_mode._row_major_self, the test above without the call)


def contiguous_reason(shape: tuple[int, ...], strides: tuple[int, ...], why: Any) -> str:
    """Why ``contiguous()`` copies a layout, in its own numbers: the plan's ``why``
    (:class:`~strided.refusals.NotContiguous`: the dim whose stride is not the row-major one)
    in words.

    >>> from strided.refusals import NotContiguous
    >>> contiguous_reason((4, 3), (1, 4), NotContiguous("C", 1, 4, 1))
    'contiguous() of (4, 3) strides (1, 4): dim 1 has stride 4, row-major needs 1'
    >>> contiguous_reason((4, 3), (1, 0), NotContiguous("C", 1, 0, 1))
    'contiguous() of (4, 3) strides (1, 0): dim 1 has stride 0 (expanded), row-major needs 1'
    """
    head = f"contiguous() of {tuple(shape)} strides {tuple(strides)}"
    if not isinstance(why, NotContiguous) or why.dim < 0:
        return head
    expanded = " (expanded)" if why.stride == 0 else ""
    return f"{head}: dim {why.dim} has stride {why.stride}{expanded}, row-major needs {why.expected}"


_SMALL_CLONE_BYTES = 1 << 20


@method("clone")
def clone(self: Tensor, memory_format: MemoryFormat = preserve_format) -> Tensor:
    """A copy in new storage; ``preserve_format`` keeps dense strides, as PyTorch does.

    >>> x = strided.zeros(2, 3).t()
    >>> y = x.clone()
    >>> y.stride(), strided.shares_memory(x, y)
    ((1, 3), False)
    """
    if not isinstance(self, Tensor):  # (strided.clone([1.0]): PyTorch's TypeError, not a crash)
        self = tensor_arg(self, "clone")
    if memory_format is preserve_format and not OPEN:
        # the commonest case first: a row-major tensor whose storage is exactly its elements, in
        # a plain Storage (the branch below's answer: its copy, the shared row-major layout)
        lay = self._layout
        info = _cinfo[lay.shape]
        storage = self._storage
        if lay.strides == info[0] and not lay.offset and storage.__class__ is Storage:
            flat = storage.array
            if len(flat) == info[1] and 0 < flat.nbytes < _SMALL_CLONE_BYTES:
                return adopted(flat.copy(), info[2], self._dtype)
    if memory_format is not preserve_format and not is_dense_format(memory_format):
        raise memory_format_error(memory_format, "clone")
    lay = self._layout
    if memory_format is preserve_format and L.is_contiguous(lay.shape, lay.strides):
        # P.clone's answer for the common case, without building the plan: the strides kept
        storage = self._storage
        if not OPEN and storage.__class__ is Storage:
            # nobody listens: the elements are one run of the buffer, copied by NumPy in one call
            # (copy_of's answer; small only, so that a failed allocation still gets its error there)
            start = lay.offset
            n = L.product(lay.shape)
            flat = storage.array[start : start + n]
            if flat.shape[0] == n and 0 < flat.nbytes < _SMALL_CLONE_BYTES:  # (else copy_of explains)
                return adopted(flat.copy(), L.Layout._trusted(lay.shape, lay.strides, 0), self._dtype)
        return copy_of(self, lay.strides, "clone()", read=lay, layout=L.Layout._trusted(lay.shape, lay.strides, 0),
                       why=P.CLONE_WHY)
    plan = P.clone(lay, memory_format.name, itemsize=self._dtype.itemsize)
    if plan.__class__ is not P.Copy:
        raise error(plan)
    return materialize(self, plan, "clone()")


@backward("contiguous", "clone")
def _clone_backward(out: Tensor, x: Tensor, *args: Any, **kwargs: Any) -> Any:
    if out is x:
        return None  # contiguous() of a contiguous tensor: the tensor itself, no node
    return "CloneBackward0", (x,), lambda g: (g,), ()


def as_dtype(self: Tensor, dtype: Any, copy: bool = False) -> Tensor:
    """This tensor in ``dtype`` (or in ``other``'s dtype, for ``as_dtype(t, other)``): ``self``
    when already so (unless ``copy=True``), else a copy. The dtype form of ``Tensor.to``, which
    :mod:`strided.ops.conversions` parses.

    >>> x = strided.zeros(2)
    >>> as_dtype(x, strided.float32) is x, as_dtype(x, strided.int64).dtype
    (True, strided.int64)
    """
    target = dtype._dtype if isinstance(dtype, Tensor) else to_dtype(dtype)
    if target is self._dtype and not copy:
        return self
    return materialize(self, P.to(self._layout, itemsize=target.itemsize), f"to({target.name})", target)


@method("ravel")
def ravel(self: Tensor) -> Tensor:
    """PyTorch's ravel: ``contiguous().view(-1)``.

    >>> strided.arange(6).view(2, 3).t().ravel().tolist()
    [0, 3, 1, 4, 2, 5]
    """
    return self.contiguous().view(-1)


# ---------------------------------------------------------------- the *_copy forms

View = Callable[..., Any]  # (tensor, *args, **kwargs) -> a Tensor view, or a tuple of them


def _taking_axis(name: str, view: View) -> View:
    """``view`` taking NumPy's ``axis=`` for its ``dim=`` (:mod:`strided.numpy_keywords`), as
    PyTorch's copy forms (C++ ops) do: the forward and the backward rule both call it with the
    call's keywords, so both must rename (the entry around ``run`` sees no ``dim`` parameter)."""
    params = tuple(inspect.signature(view).parameters)
    aliases = frozenset(aliases_of(params))
    if not aliases:
        return view

    def taking(input: Tensor, *args: Any, **kwargs: Any) -> Any:  # noqa: A002
        if kwargs and not aliases.isdisjoint(kwargs):
            kwargs = renamed(name, params, (input, *args), kwargs)
        return view(input, *args, **kwargs)

    return taking


def copy_form(name: str, view: View, view_name: str,
              source: Callable[[Tensor, tuple, dict], Tensor] | None = None,
              fast: Callable[[Tensor, tuple], Any] | None = None, complex_grad: bool = True) -> Callable[..., Any]:
    """The function ``name(input, *args, **kwargs)``: ``view(input, *args, **kwargs)`` copied
    into new contiguous memory (each piece, for views that give a tuple), reported as one copy
    per result with the reason "<name>: the elements <view_name>() views, copied into new contiguous
    memory". ``source(input, args, kwargs)``: the tensor of ``input``'s values the unreported
    path views instead (``input`` itself, or an unreported copy of it in another layout whose
    view copies faster); the same elements, so the same result. ``fast(input, args)``: an
    unplanned form's own fast path for a plain call (no keyword, no out=, nobody listening), its
    result or None (the general path). ``complex_grad``: as :func:`strided.opdef.backward`'s.
    """
    reason = f"{name}: the elements {view_name}() views, copied into new contiguous memory"
    view = _taking_axis(name, view)
    planned = name not in _UNPLANNED
    plans = Memo(limit=256)  # (the form's plans: see _FORM_PLANS)

    def run(input: Tensor, *args: Any, out: Any = None, **kwargs: Any) -> Any:
        if not OPEN and out is None and not kwargs and input.__class__ is Tensor:
            made = _fast_form(plans, view, input, args, source is None) if planned else \
                fast(input, args) if fast is not None else None
            if made is not None:
                return made
            if planned and source is not None:
                # (the general path's source, made once: its own plan may take it fast)
                src = source(input, args, kwargs)
                made = _fast_form(plans, view, src, args) if src is not input else None
                if made is not None:
                    return made
                made = view(src, *args)
                return _fresh_one(input, made) if made.__class__ is Tensor else _fresh(input, made)
        if input.__class__ is not Tensor:  # (a plain tensor passes: the check's call was a tenth of a small copy)
            tensor_arg(input, name)
        if out is not None:
            return _into_out(out, run(input, *args, **kwargs), name, input)
        if OPEN:
            with silenced():  # the view and its copy are one op to the listeners: reported below
                made = view(input, *args, **kwargs)
                out = _fresh(input, made)
            if isinstance(out, tuple):
                for piece in out:
                    copied(name, (input,), piece, reason)
            else:
                copied(name, (input,), out, reason)
            return out
        made = view(input if source is None else source(input, args, kwargs), *args, **kwargs)
        return _fresh_one(input, made) if made.__class__ is Tensor else _fresh(input, made)

    run.__name__ = run.__qualname__ = name
    run.__doc__ = (f"``{view_name}`` as a copy: the same values as ``input.{view_name}(...)`` in new, "
                   f"contiguous memory (PyTorch's ``torch.{name}``). Reported to the copy ledger as a copy.")
    backward(name, complex_grad=complex_grad)(_copy_rule(name, view))
    return run


# ---------------------------------------------------------------- the copy forms' fast path
# A row-major input, its arguments plain (ints, None, lists or tuples of ints), no out=, nobody
# listening: the layouts of the view's pieces are remembered per (form, shape, dtype, arguments),
# decided once by the view itself on a stand-in of the same shape, strides and dtype, and each
# piece is the compiled gather of the input's storage through its layout (shifted by the input's
# offset), or the copy of its one contiguous run: the general path's bytes (the same gather, the
# same run copy, the same row-major result layout) without building the view tensors. A piece
# that is no run and past the gather's bytes leaves the whole call to the general path (its
# blocked copy). Large inputs with many small pieces gain most: unbind_copy of 1024 rows.
# as_strided reads the storage itself (its bounds, its offset), and alias/detach copy no view:
# they keep the general path.

_UNPLANNED = frozenset(("as_strided_copy", "alias_copy", "detach_copy"))
# The largest input (bytes) planned: its plan's stand-in is that many zero bytes, allocated once
# per layout (calloc's untouched pages), which must not fail where the copy itself would not
_PLAN_BYTES = 1 << 28

# _FORM_PLANS (one memo per copy form, made in copy_form): (shape, dtype, arguments) -> (False,
# result layout, run, piece layout) for a one-tensor form, (True, ((result layout, run, piece
# layout), ...)) for a form that gives pieces (see _form_plan), or False: the general path (the
# view refused the arguments, warned, or gave an empty piece)


def _arguments_key(args: tuple) -> tuple | None:
    """``args`` (not all plain ints: those are their own key) as a key that tells apart what the
    views parse apart (a list from a tuple; 1 from 1.0 or True, which hash alike: only plain ints
    pass), or None for any other argument."""
    key: list[Any] = []
    for a in args:
        c = a.__class__
        if c is int or a is None:
            key.append(a)
        elif c is tuple or c is list:
            for i in a:
                if i.__class__ is not int:
                    return None
            key.append((c, tuple(a)))
        else:
            return None
    return tuple(key)


def _form_plan(view: View, shape: tuple[int, ...], dtype: Any, args: tuple, layout: L.Layout | None = None
               ) -> tuple | bool:
    """The copy form's plan for an input of ``shape`` laid out as ``layout`` at offset 0 (None:
    row-major; else a dense permutation of it, a transpose) (see _FORM_PLANS above): per piece,
    (the result's layout, the piece's run (start, stop) in the input's storage run where the
    piece is one contiguous run of it, else its layout for the gather)."""
    info = _cinfo[shape]
    stand_in = adopted(np.zeros(info[1], dtype.numpy), info[2] if layout is None else layout, dtype)
    try:
        with warnings.catch_warnings(record=True) as warned, silenced():
            warnings.simplefilter("always")
            made = view(stand_in, *args)
    except Exception:  # noqa: BLE001 - the general path raises it again, with its own call
        return False
    if warned:
        return False
    multi = made.__class__ is tuple
    pieces = []
    for piece in made if multi else (made,):
        lay = piece._layout if piece.__class__ is Tensor else None
        if lay is None or piece._storage is not stand_in._storage or not L.product(lay.shape):
            return False
        n = L.product(lay.shape)
        run = (lay.offset, lay.offset + n) if _is_contiguous(lay.shape, lay.strides) else None
        if run is None and n * dtype.itemsize > _SMALL_BYTES:
            return False  # (past the gather's bytes: the general path's blocked copy)
        pieces.append((_cinfo[lay.shape][2], run, lay))
    return (True, tuple(pieces)) if multi else (False, *pieces[0])


def _fast_form(plans: Memo, view: View, t: Tensor, args: tuple, permuted: bool = False) -> Any:
    """A copy form's result by its remembered plan (``plans``: the form's memo), or None (the
    general path; also where the gather declines a piece, e.g. an expand past its byte limit).
    A piece that is one contiguous run of the input is its slice's copy (the gather's bytes; no
    compiled kernel, so whether they are on here does not matter); another is the gather.
    ``permuted``: a densely permuted input (a transpose) is planned too, per its strides (the
    general path's view and _fresh_one give the same bytes: the same gather of a small piece, the
    same run copy; a large scattered piece leaves the call to it), for forms without a
    ``source`` (whose general path reads a row-major copy of such an input instead)."""
    lay = t._layout
    shape = lay.shape
    info = _cinfo[shape]
    dtype = t._dtype
    storage = t._storage
    if storage.__class__ is not Storage or not 0 < info[1] * dtype.itemsize <= _PLAN_BYTES:
        return None
    layout = None
    if lay.strides != info[0]:
        layout = dense_layout(shape, lay.strides) if permuted else None
        if layout is None:
            return None
    for a in args:  # (plain ints, the common call, are their own key)
        if a.__class__ is not int:
            args_key = _arguments_key(args)
            if args_key is None:
                return None
            break
    else:
        args_key = args
    key = (shape, dtype, args_key) if layout is None else (shape, lay.strides, dtype, args_key)
    plan = plans.get(key)
    if plan is None:
        plan = _form_plan(view, shape, dtype, args, layout)
        plans.put(key, plan)
    if plan is False:
        return None
    offset = lay.offset
    if not plan[0]:
        run = plan[2]
        if run is not None:
            return adopted(storage.array[offset + run[0]:offset + run[1]].copy(), plan[1], dtype)
        pieces = ((plan[1], run, plan[3]),)
    else:
        pieces = plan[1]
    gather = _gather is not None and native._enabled.get() and (not native._open_blocks[0] or native.enabled_here())
    out = []
    for fresh, run, piece in pieces:
        if run is not None:
            flat = storage.array[offset + run[0]:offset + run[1]].copy()
        elif gather:
            flat = _gather(storage.array, offset + piece.offset, piece.shape, piece.strides, dtype.numpy)
            if flat is None:
                return None
        else:
            return None
        out.append(adopted(flat, fresh, dtype))
    return tuple(out) if plan[0] else out[0]


# PyTorch's names of the out= overloads of the copy forms that give several tensors (its count error names them)
_MULTI_OUT_NAMES = {"split_copy": "split_copy_Tensor_out()", "split_with_sizes_copy": "split_with_sizes_copy_out",
                    "unbind_copy": "unbind_copy_int_out"}


def _into_out(out: Any, made: Any, name: str, input: Tensor) -> Tensor | None:
    """``made`` written into ``out=`` with PyTorch's rules for the copy forms: the dtype must be the
    input's exactly; a resized ``out`` is contiguous. The forms that give several tensors take
    a tuple (or list) of outs, one per piece, and return None, as PyTorch does: ``split_copy``
    writes each as ``out[i].copy_(piece)`` (broadcast and cast, never resized); the others
    (``split_with_sizes_copy``, ``unbind_copy``) as a one-result out= (resized, same dtype)."""
    if isinstance(made, tuple):
        return _into_outs(out, made, name, input)
    return write_out(out, made, name, (input,), same_dtype="matmul")


def _into_outs(out: Any, made: tuple, name: str, input: Tensor) -> None:
    if not isinstance(out, (tuple, list)):
        raise StridedTypeError(join_lines(
            f"{name}(): argument 'out' must be tuple of Tensors, not {_kind(out)}",
            f"{name} gives {len(made)} tensors: pass out= as a tuple of {len(made)} tensors"))
    for i, o in enumerate(out):
        if not isinstance(o, Tensor):
            position = 2 if name == "unbind_copy" else 3  # out='s place in PyTorch's signature (self, ..., out)
            raise StridedTypeError(f"expected Tensor as element {i} in argument {position}, but got {_kind(o)}")
    if len(out) != len(made):
        raise StridedRuntimeError(join_lines(
            f"{_MULTI_OUT_NAMES.get(name, name)} expected an out= argument of size {len(made)}, got size {len(out)}",
            f"{name} gives {len(made)} tensors here, one out= tensor each"))
    copying = name == "split_copy"
    # Every out checked before the first write (PyTorch writes the earlier outs before it refuses a later one)
    for o, piece in zip(out, made):
        if copying and not _broadcasts_to(piece._layout.shape, o._layout.shape):
            o.copy_(piece)  # raises copy_'s own error: the piece does not broadcast to this out
        if not copying and o._dtype is not piece._dtype:
            write_out(o, piece, name, (input,), same_dtype="matmul")  # raises the out= dtype error
    for o, piece in zip(out, made):
        if copying:
            o.copy_(piece)
        else:
            # (PyTorch's out[i].resize_(...) where the shape differs, then out[i].copy_(piece), each
            # through its dispatcher: the resize counts a write in _version too)
            resized = o._layout.shape != piece._layout.shape
            count_kernel_writes(write_out(o, piece, name, (input,), same_dtype="matmul"), resized)
    return None


def _kind(x: Any) -> str:
    """A value's type as PyTorch's argument errors name it (a strided tensor is "Tensor")."""
    return "Tensor" if isinstance(x, Tensor) else type_name(x)


def _broadcasts_to(src: tuple[int, ...], dst: tuple[int, ...]) -> bool:
    """Whether ``copy_`` can write a ``src``-shaped tensor into a ``dst``-shaped one."""
    return len(src) <= len(dst) and all(a == b or a == 1 for a, b in zip(reversed(src), reversed(dst)))


# PyTorch 2.13's node names where they are not the view's name + "_copy"
_NODE_NAMES = {"narrow_copy": "NarrowCopyBackward0", "view_copy": "ViewBackward0_copy",
               "alias_copy": "AliasBackward0_copy", "split_with_sizes_copy": "SplitWithSizesBackward0_copy"}


def _copy_rule(name: str, view: View) -> Callable[..., Any]:
    """The backward rule of the copy form ``name``: the view's own (the copy passes the gradient
    through unchanged), under PyTorch's name ``<view's node>_copy``. The view is taken again here,
    recording its node (O(ndim): no data is read), and that node's backward is reused."""

    def rule(out: Any, input: Tensor, *args: Any, **kwargs: Any) -> Any:  # noqa: A002
        if name == "detach_copy":
            # Note: PyTorch 2.13 gives detach_copy's result a NotImplemented node (it requires grad
            # and fails in backward); strided's result is detached, as detach()'s is.
            return None
        with silenced():  # (an implementation step: the op was reported once, as its copy)
            made = view(input, *args, **kwargs)
        multi = isinstance(made, (tuple, list))
        if multi and not made:
            return None  # (no pieces, unbind_copy along a size-0 dim: nothing to record, as PyTorch's ())
        first = made[0] if multi else made
        node = first._ag.grad_fn if first is not None and first._ag is not None else None
        if first is input or node is None:  # alias: the gradient passes through
            return _NODE_NAMES.get(name, "AliasBackward0_copy"), (input,), lambda g: (g,), ()
        named = _NODE_NAMES.get(name, node.name() + "_copy")
        return (named, (input,), node.rule, (), "multi") if multi else (named, (input,), node.rule, ())

    rule.__name__ = f"{name}_backward"
    return rule


def _fresh(input: Tensor, made: Any) -> Any:
    """``made`` (a tensor or a tuple of them) in new contiguous memory."""
    if isinstance(made, (tuple, list)):
        return tuple(_fresh_one(input, piece) for piece in made)
    return _fresh_one(input, made)


# The most bytes the small-copy path takes: far below where the copy path's blocked (cache-tiled)
# copies start (strided.kernels.blocked), so it only saves that path's planning.
_SMALL_BYTES = 1 << 16


def row_major_copy(storage: Storage, lay: L.Layout, dtype: Any) -> Any:
    """The elements of ``lay`` over ``storage`` in row-major order, as a fresh 1-D NumPy array of
    ``dtype`` (its NumPy dtype is the storage's): the compiled gather
    (``strided.kernels._copykernel.gather``, ~0.3 µs) where it applies and the kernels are on here,
    else ``ndarray.flatten`` of the layout's NumPy view (the same bytes; building that view and
    the flatten were ~1.2 µs, two thirds of a small ``t_copy``). For small layouts: the gather
    takes at most 64 KiB (fast_join's limit) and leaves larger ones to the flatten."""
    if _gather is not None and native._enabled.get() and (not native._open_blocks[0] or native.enabled_here()):
        flat = _gather(storage.array, lay.offset, lay.shape, lay.strides, dtype.numpy)
        if flat is not None:
            return flat
    return numpy_view(storage, lay).flatten()


_gather = getattr(native._compiled("_copykernel"), "gather", None)  # (None: not built, or built before it)


def _fresh_one(input: Tensor, piece: Tensor) -> Tensor:
    lay = piece._layout
    if piece._storage is not input._storage and piece._base is None and L.is_contiguous(lay.shape, lay.strides):
        return piece  # the view op already copied (view_copy of a layout view cannot express)
    if not OPEN and piece._storage.__class__ is not DataFree:
        # small: one fresh row-major copy of the elements (the same bytes) adopted as the result
        info = _cinfo[lay.shape]
        d = piece._dtype
        if info[1] * d.itemsize <= _SMALL_BYTES:
            return adopted(row_major_copy(piece._storage, lay, d), info[2], d)
        # a row-major piece (t_copy of a transpose, expand_copy to its own shape): its storage
        # run's memcpy, without copy_of's planning (2^20 float32: ~110 -> ~95 us, torch ~95)
        run = flat_run(piece, info)
        if run is not None and run.dtype == d.numpy:
            return adopted(run.copy(), info[2], d)
    return copy_of(piece, L.contiguous_strides(lay.shape), "copy form")


# ---------------------------------------------------------------- the views, with PyTorch's signatures


def _alias(t: Tensor) -> Tensor:
    return t._view(t._layout)


def _as_strided(t: Tensor, size: Sequence[int], stride: Sequence[int], storage_offset: int | None = None) -> Tensor:
    return t.as_strided(size, stride, storage_offset)


def _diagonal(t: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    return t.diagonal(offset, dim1, dim2)


def _expand(t: Tensor, size: Sequence[int], *, implicit: bool = False) -> Tensor:
    return t.expand(tuple(size) if isinstance(size, (list, tuple)) else size)


def _narrow(t: Tensor, dim: int, start: Any, length: int) -> Tensor:
    return t.narrow(dim, start, length)


def _permute(t: Tensor, dims: Sequence[int]) -> Tensor:
    return t.permute(tuple(dims)) if isinstance(dims, (tuple, list)) else t.permute(dims)  # (() for 0-d)


def _select(t: Tensor, dim: int, index: int) -> Tensor:
    return t.select(dim, index)


def _slice(t: Tensor, dim: int = 0, start: int | None = None, end: int | None = None, step: int = 1) -> Tensor:
    shape = t._layout.shape
    if not shape:
        raise StridedIndexError(join_lines("slice() cannot be applied to a 0-dim tensor.",
                                           "a 0-d tensor has no dim to slice; reshape(1) makes it 1-d"))
    d = L.wrap_dim(dim, len(shape))
    if step <= 0:
        raise StridedRuntimeError(
            join_lines("slice step must be positive",
                       f"got step={step}; to reverse a dim use strided's flip (a copy), not a negative step"))
    return t[(slice(None),) * d + (slice(start, end, step),)]


def _split(t: Tensor, split_size: int, dim: int = 0) -> tuple[Tensor, ...]:
    # (PyTorch's split_copy takes one int: the list form is split_with_sizes_copy)
    if isinstance(split_size, (list, tuple)):
        raise _wrong_kind("split_copy", "split_size", split_size, "int",
                          "fix: pass one size (split_copy(t, 2)), or split_with_sizes_copy(t, [sizes])")
    return t.split(split_size, dim)


def _split_with_sizes(t: Tensor, split_sizes: Sequence[int], dim: int = 0) -> tuple[Tensor, ...]:
    if not isinstance(split_sizes, (list, tuple)):
        raise _wrong_kind("split_with_sizes_copy", "split_sizes", split_sizes, "tuple of ints",
                          "fix: pass the sizes as a list, e.g. split_with_sizes_copy(t, [1, 2])")
    return t.split(list(split_sizes), dim)


def _wrong_kind(op: str, name: str, value: Any, kind: str, fix: str) -> StridedTypeError:
    return StridedTypeError(
        join_lines(f"{op}(): argument '{name}' (position 2) must be {kind}, not {type(value).__name__}",
                   f"got {value!r:.60}", fix)
    )


def _squeeze(t: Tensor, dim: int | Sequence[int] | None = None) -> Tensor:
    return t.squeeze(dim)


def _t(t: Tensor) -> Tensor:
    return t.t()


def _transpose(t: Tensor, dim0: int, dim1: int) -> Tensor:
    return t.transpose(dim0, dim1)


def _unbind(t: Tensor, dim: int = 0) -> tuple[Tensor, ...]:
    return t.unbind(dim)


def _unfold(t: Tensor, dimension: int, size: int, step: int) -> Tensor:
    return t.unfold(dimension, size, step)


# From this many elements a permuted input's unfold_copy reads a row-major copy of it (below,
# the copy's own pass costs about what it saves)
_UNFOLD_SOURCE_MIN = 1 << 16


def _unfold_source(t: Tensor, args: tuple, kwargs: dict) -> Tensor:
    """unfold_copy's ``source``: a fresh row-major copy of a large permuted dense ``t`` (not
    reported: an intermediate) where the unfolded dim is the one ``t``'s memory runs along and
    there are two windows or more, else ``t`` itself (plain int arguments only; anything else,
    a refusal included, is the view's own business on ``t``).

    Why: the view of such a ``t`` copies in tiny two-element runs scattered across its memory
    (a transposed 1024 x 1024 float32 unfold(0, 2, 1): ~3.5 ms, PyTorch 2.6-3.0); the blocked
    transpose (~0.3 ms) and the row-major view's copy (~1.0 ms) are far cheaper. Measured worse,
    so left alone: windows along another dim of larger steps (unfold(1, 5, 3) of a transpose:
    0.7 ms direct, 1.2 through the copy) and one window (a plain copy of the input's memory)."""
    lay = t._layout
    shape = lay.shape
    nd = len(shape)
    if kwargs or len(args) != 3 or nd < 2 or t._storage.__class__ is DataFree:
        return t
    dim, size, step = args
    if dim.__class__ is not int or size.__class__ is not int or step.__class__ is not int or not -nd <= dim < nd:
        return t
    d = dim % nd
    if step < 1 or not 0 < size <= shape[d] or (shape[d] - size) // step < 1 or lay.strides[d] != 1:
        return t
    if L.product(shape) < _UNFOLD_SOURCE_MIN or L.is_contiguous(shape, lay.strides) \
            or min(shape) < 2 or not L.is_non_overlapping_and_dense(shape, lay.strides):
        return t
    src = result(shape, t._dtype)
    blocked.copy_into(src._np(), numpy_view(t._storage, lay))
    return src


def _leading_source(dim_at: int, rows_at: int | None) -> Callable[[Tensor, tuple, dict], Tensor]:
    """The ``source`` of a copy form that cuts pieces along a dim given as positional argument
    ``dim_at`` (default 0), each of the rows given by argument ``rows_at`` (an int, or a list or
    tuple of ints: the largest; None: one row, unbind's): see :func:`_rows_source`."""

    def source(t: Tensor, args: tuple, kwargs: dict) -> Tensor:
        rows: Any = 1 if rows_at is None else args[rows_at] if len(args) > rows_at else None
        if rows.__class__ is list or rows.__class__ is tuple:
            rows = max(rows, default=None) if all(r.__class__ is int for r in rows) else None
        return _rows_source(t, args[dim_at] if len(args) > dim_at else 0, rows, kwargs)

    return source


def _rows_source(t: Tensor, dim: Any, rows: Any, kwargs: dict) -> Tensor:
    """split_copy's / split_with_sizes_copy's / unbind_copy's ``source``: a fresh row-major copy
    of a large permuted dense ``t`` (not reported: an intermediate) where the pieces are cut along
    dim 0, each of at most ``rows`` rows and :data:`_SMALL_BYTES`, and ``t``'s memory does not run
    through dim 0 outermost (a transpose), so that each piece is one contiguous run of the copy;
    else ``t`` itself (plain ints only; anything else, a refusal included, is the view's own
    business on ``t``).

    Why: each small piece of such a ``t`` is gathered across its whole memory, one element per
    cache line (unbind_copy of a transposed 1024 x 1024 float32: ~4.8 ms, PyTorch ~4.7); the
    blocked transpose (~0.3 ms) and the copy's 1024 runs are far cheaper. A large piece is left to
    the blocked copy, which is that transpose already (split_with_sizes_copy(t, [1, 1023]) of
    the transpose: 0.3 ms direct, 0.5 through the source). The same elements, so the same pieces;
    their layouts are the view's of a row-major tensor, which for a cut along dim 0 are the ones
    copied out anyway (every piece comes out contiguous)."""
    lay = t._layout
    shape, strides = lay.shape, lay.strides
    nd = len(shape)
    if kwargs or nd < 2 or dim.__class__ is not int or not -nd <= dim < nd or dim % nd \
            or rows.__class__ is not int or t._storage.__class__ is DataFree:
        return t
    numel = L.product(shape)
    # (at most _PLAN_BYTES: the copy is a second input-sized buffer beside the pieces)
    if not _UNFOLD_SOURCE_MIN <= numel <= _PLAN_BYTES // t._dtype.itemsize or min(shape) < 2 \
            or strides[0] == max(strides) \
            or min(rows, shape[0]) * (numel // shape[0]) * t._dtype.itemsize > _SMALL_BYTES \
            or not L.is_non_overlapping_and_dense(shape, strides):
        return t
    src = result(shape, t._dtype)
    blocked.copy_into(src._np(), numpy_view(t._storage, lay))
    return src


def _unsqueeze(t: Tensor, dim: int) -> Tensor:
    return t.unsqueeze(dim)


def _view(t: Tensor, *size: Any) -> Tensor:
    # PyTorch's view_copy takes any layout: its values are those of reshape (which copies, once,
    # when the strides cannot express the view)
    return t.reshape(*size)


alias_copy = copy_form("alias_copy", _alias, "alias")
def _fast_as_strided_copy(t: Tensor, args: tuple) -> Tensor | None:
    """as_strided_copy's fast path: ``t.as_strided(*args)``'s layout, as its remembered decision
    (the as_strided memo, keyed on the parsed layout and the storage's size: a layout it has
    checked before), gathered straight from the storage into a fresh row-major result, the bytes
    :func:`_fresh_one` copies from the view, without making the view (past the small copies' size,
    copy_of's own allocation and blocked copy); None where the memo has no answer yet (the
    general path decides and remembers it) or the storage is not plain."""
    if not 2 <= len(args) <= 3 or t._storage.__class__ is not Storage:
        return None
    start = args[2] if len(args) == 3 else None
    # (as_strided's own parsing, in its order: its errors are the general path's)
    shape, strides, offset = L.normalize_layout_args(args[0], args[1], t._layout.offset if start is None else start)
    d = t._dtype
    storage = t._storage
    plan = layout_memo.AS_STRIDED.get((shape, strides, offset, storage.array.shape[0], d.itemsize))
    if plan is None:
        return None
    info = _cinfo[plan.shape]
    if info[1] * d.itemsize > _SMALL_BYTES:
        # large: THE copy's own steps (allocate, then copy_into from the layout's NumPy view: the
        # bytes copy_of writes) without the view tensor and copy_of's planning (2^20 float32
        # rows (512, 1024) of stride 2048: ~78 -> ~63 us, PyTorch ~52, its kernel alone ~54)
        flat = allocate(info[1], d.numpy, plan.shape)
        blocked.copy_into(flat.reshape(plan.shape), numpy_view(storage, plan))
        return adopted(flat, info[2], d)
    return adopted(row_major_copy(storage, plan, d), info[2], d)


as_strided_copy = copy_form("as_strided_copy", _as_strided, "as_strided", fast=_fast_as_strided_copy)
detach_copy = copy_form("detach_copy", _alias, "detach")
diagonal_copy = copy_form("diagonal_copy", _diagonal, "diagonal")
expand_copy = copy_form("expand_copy", _expand, "expand")
narrow_copy = copy_form("narrow_copy", _narrow, "narrow")
permute_copy = copy_form("permute_copy", _permute, "permute")
# (PyTorch records select_copy and slice_copy for real results only; the other copy forms' complex too)
select_copy = copy_form("select_copy", _select, "select", complex_grad=False)
slice_copy = copy_form("slice_copy", _slice, "slice", complex_grad=False)
split_copy = copy_form("split_copy", _split, "split", _leading_source(1, 0))
split_with_sizes_copy = copy_form("split_with_sizes_copy", _split_with_sizes, "split_with_sizes", _leading_source(1, 0))
squeeze_copy = copy_form("squeeze_copy", _squeeze, "squeeze")
t_copy = copy_form("t_copy", _t, "t")
transpose_copy = copy_form("transpose_copy", _transpose, "transpose")
unbind_copy = copy_form("unbind_copy", _unbind, "unbind", _leading_source(0, None))
unfold_copy = copy_form("unfold_copy", _unfold, "unfold", _unfold_source)
unsqueeze_copy = copy_form("unsqueeze_copy", _unsqueeze, "unsqueeze")
view_copy = copy_form("view_copy", _view, "view")

COPY_FORMS = (
    "alias_copy", "as_strided_copy", "detach_copy", "diagonal_copy", "expand_copy", "narrow_copy",
    "permute_copy", "select_copy", "slice_copy", "split_copy", "split_with_sizes_copy", "squeeze_copy",
    "t_copy", "transpose_copy", "unbind_copy", "unfold_copy", "unsqueeze_copy", "view_copy",
)
"""The ``strided.*_copy`` functions (PyTorch 2.13's, less the sparse and complex ones)."""

# Each copy form's example (run as a doctest): the values of the view, in new memory; the
# arguments suit a (2, 3) tensor, and the view they are compared with is the second item.
_EXAMPLES = {
    "alias_copy": ("", "x"), "as_strided_copy": ("(2, 2), (1, 2)", "x.as_strided((2, 2), (1, 2))"),
    "detach_copy": ("", "x.detach()"), "diagonal_copy": ("", "x.diagonal()"),
    "expand_copy": ("(2, 2, 3)", "x.expand(2, 2, 3)"), "narrow_copy": ("1, 1, 2", "x.narrow(1, 1, 2)"),
    "permute_copy": ("(1, 0)", "x.permute(1, 0)"), "select_copy": ("1, 2", "x.select(1, 2)"),
    "slice_copy": ("1, 0, 3, 2", "x[:, 0:3:2]"), "split_copy": ("1", "x.split(1)"),
    "split_with_sizes_copy": ("[1, 2], 1", "x.split([1, 2], 1)"), "squeeze_copy": ("", "x.squeeze()"),
    "t_copy": ("", "x.t()"), "transpose_copy": ("0, 1", "x.transpose(0, 1)"), "unbind_copy": ("", "x.unbind()"),
    "unfold_copy": ("1, 2, 1", "x.unfold(1, 2, 1)"), "unsqueeze_copy": ("0", "x.unsqueeze(0)"),
    "view_copy": ("3, 2", "x.view(3, 2)"),
}
for _name, (_args, _same) in _EXAMPLES.items():
    _call = f"strided.{_name}(x{', ' + _args if _args else ''})"
    _pieces = _name in ("split_copy", "split_with_sizes_copy", "unbind_copy")
    _values = "[p.tolist() for p in {}]" if _pieces else "{}.tolist()"
    _new = "any(strided.shares_memory(x, p) for p in y)" if _pieces else "strided.shares_memory(x, y)"
    globals()[_name].__doc__ += (
        f"\n\n    >>> x = strided.arange(6).view(2, 3)\n    >>> y = {_call}\n"
        f"    >>> {_values.format('y')} == {_values.format(_same)}, {_new}\n    (True, False)\n")

# PyTorch has narrow_copy as a Tensor method too (the other *_copy forms are functions only).
method("narrow_copy")(narrow_copy)


seal(globals())  # (last: this module's ops with a backward rule become their recording entries)
# the kinds of this module's ops, in the op registry (after the seal: the forwards are the entries)
declare(Kind.COPY, "contiguous clone " + " ".join(COPY_FORMS), explain="contiguous clone")
