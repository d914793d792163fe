"""The view ops of Tensor: a new layout over the same storage, O(ndim), no byte copied.

``view``, ``view_as``, ``reshape``, ``reshape_as``, ``flatten``, ``unflatten``, ``permute``,
``transpose`` (``swapdims``/``swapaxes``), ``t``, ``T``, ``mT``, ``movedim``/``moveaxis``, ``expand``, ``expand_as``,
``broadcast_to``, ``unsqueeze``, ``squeeze``, ``narrow``, ``select``, ``split``, ``chunk``,
``unbind``, ``diagonal``, ``unfold``, ``as_strided``, ``__getitem__`` and ``view(dtype)``, each
with its backward rule declared beside it.

Each op parses its arguments, asks the layout layer for its decision (memoized there on the
layout and the parsed arguments: :mod:`strided.layout.memo`) and wraps it (:func:`_carry`): a
Layout is a view sharing the storage, a Copy (a reshape the strides cannot express) goes
through the one copy path with the plan's why in the ledger, a refusal is raised as
:mod:`strided.messages` renders it. The hot ops are their own recording entries
(:func:`strided.gradients.records`): one slot test when autograd is not in use.

>>> x = strided.arange(6).view(2, 3)
>>> y = x.t()
>>> y.shape, y.stride(), strided.shares_memory(x, y)
((3, 2), (1, 3), True)
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import layout as L
from ..args import (
    check_not_0d,
    check_piece_count,
    chunk_count,
    dims_arg,
    index_key,
    int_arg,
    missing,
    parse_sizes,
    split_sizes,
    split_step,
    type_name,
    unflatten_sizes,
)
from ..dispatch import OPEN, materialize, reinterpreted
from ..dtypes import TORCH_NAME, DType, to_dtype
from ..errors import StridedNotImplementedError, StridedRuntimeError, StridedTypeError, join_lines
from ..grad_mode import INSIDE
from ..gradients import (
    BACKWARD,
    backward,
    grad_zeros,
    record,
    records,
    restrided,
    scatter_into_view,
    seal,
    sum_to,
)
from ..indexing import AdvancedIndex, index_layout
from ..layout import Layout, memo
from ..layout import plans as P
from ..layout.core import _Unfrozen
from ..layout.dtype_view import view_dtype_layout
from ..layout.plans import Copy
from ..messages import copy_why, error, mt_error, t_error, transpose_deprecated, unbind_0d_error, view_refused
from ..numpy_keywords import NO, require
from ..numpy_keywords import call as numpy_call
from ..opdef import Kind, declare
from ..tensor import ADVANCED_INDEXING, Tensor, tensor_arg
from .registry import method

_trusted = Layout._trusted

_new = object.__new__


def narrow_tensor_start(start: Tensor) -> Any:
    """A tensor ``start`` of ``narrow``: its value when 0-d and integral (bool not), else PyTorch's error."""
    if start._dtype.kind == "b" and not start._layout.shape:
        return start  # int_arg's error for a bool: a bool is no size
    if start._layout.shape or start._dtype.kind not in "iu":
        raise StridedRuntimeError(
            "start must be an 0-dim integral Tensor.\n"
            f"  start is a {start._dtype.name} tensor of shape {start._layout.shape}\n"
            "  fix: pass an int, or a 0-d integer tensor (e.g. t[0] of an int64 tensor)"
        )
    return int(start.item())


# The memos are read as ``memo.PERMUTE.get(key)``, not through names imported from the memo module:
# CPython compiles a method call on an imported name (``PERMUTE.get(key)``) as an attribute load
# it cannot specialize for a dict, which cost about 60 ns a call here (measured).


def _carry(t: Tensor, plan: Any, op: str = "") -> Tensor:
    """Carry out ``plan`` for ``t``: a Layout (or a View plan) is a view, a Copy goes through the
    one copy path (``op`` labels it in the ledger's reason, with the plan's why), a refusal is
    raised with the peers' text.

    A bare Layout counts as a View: the movement deciders (``layout.permute_layout``, ...) are
    the plans' own View-or-refusal core, and the memos of :mod:`strided.layout.memo` give a View
    as its Layout (``layout.plans`` wraps the same results as values for readers).
    """
    cls = plan.__class__
    if cls is Layout:
        return t._view(plan)
    if cls is P.View:
        return t._view(plan[0])
    if cls is Copy:
        # the ledger's sentence: the op and the plan's why, rendered only when a ledger
        # listens, e.g. "reshape(12): dims 0 and 1 cannot merge: stride[0] == ..."
        return materialize(t, plan, lambda: f"{op}: {copy_why(plan.why)}")
    if cls is L.ReshapeRefusal:
        raise view_refused(plan, L.layout_origin(t._layout), t._dtype.itemsize)
    raise error(plan)


# ---------------------------------------------------------------- backward rules of the views
# Each view method below registers its gradient rule right after itself (strided.gradients has
# the contract). Three kinds, cheapest first:
# - a view back: the gradient of a permute is the gradient permuted back, of a view/reshape the
#   gradient reshaped (a view whenever its layout allows), of a squeeze/unsqueeze the gradient
#   with the size-1 dims put back. Nothing is copied.
# - a sum: the gradient of an expand is summed over the stretched dims (each input element was
#   read once per stretched position).
# - a scatter into the viewed layout (select, slicing, narrow, diagonal, unfold, as_strided): a
#   zero tensor in the input's shape, the same view taken of it and the incoming gradient added
#   there; where the view reads an element several times (overlapping unfold windows) the
#   additions accumulate, as PyTorch defines it.


def _reshaped_back(name: str | Callable[..., str]) -> Callable[..., Any]:
    """The rule of view, reshape, flatten, unflatten, squeeze, unsqueeze: the gradient reshaped
    back to the input's shape (a view of it whenever its strides allow). ``name``: the node's
    name, or a function of ``(out, x, args, kwargs)`` giving it."""

    def rule(out: Tensor, x: Tensor, *args: Any, **kwargs: Any) -> Any:
        if out is x:
            return None
        shape = x._layout.shape
        node = name(out, x, args, kwargs) if callable(name) else name
        return node, (x,), lambda g: (g.reshape(shape),), ()

    return rule


def _scattered_back(name: str | Callable[[tuple], str], method: str) -> Callable[..., Any]:
    """The rule of select, narrow, diagonal, unfold and a basic index: the gradient scattered
    into the same view (``method`` with the forward's arguments) of a zero tensor of the input's
    shape. ``name``: the node's name, or a function of the arguments giving it."""

    def rule(out: Tensor, x: Tensor, *args: Any, **kwargs: Any) -> Any:
        if out is x:
            return None
        if out._storage is not x._storage:  # an advanced index: a copy, PyTorch's IndexBackward0
            advanced = BACKWARD.get("index")
            if advanced is not None:
                return advanced[0](out, x, *args, **kwargs)
            raise StridedNotImplementedError(join_lines(
                "advanced indexing is not differentiable yet in strided's autograd",
                f"the index made a copy (shape {out._layout.shape}) of a tensor that requires grad",
                "fix: use basic indexing (ints, slices, None, ...), or gather/index_select on a "
                "detached tensor"))
        shape = x._layout.shape
        node = name(args) if callable(name) else name

        def grads(g: Tensor) -> tuple:
            return (scatter_into_view(shape, g, lambda z: getattr(z, method)(*args, **kwargs), f"{node}Backward0"),)

        return node, (x,), grads, ()

    return rule


def _pieces_back(name: str) -> Callable[..., Any]:
    """split, chunk, unbind: one node with an output per piece; the gradient of the input is a
    zero tensor with each piece's gradient added at the piece's place, a narrow (split, chunk)
    or a select (unbind) along the dim (pieces with no gradient contribute nothing)."""

    def rule(out: tuple, x: Tensor, *args: Any, **kwargs: Any) -> Any:
        shape = x._layout.shape
        unbind = name == "UnbindBackward0"
        dim = kwargs.get("dim", args[1] if not unbind and len(args) > 1 else args[0] if unbind and args else 0)
        d = dim % len(shape)
        starts = []
        shapes = [piece._layout.shape for piece in out]  # (not the pieces: the rule holds no output)
        at = 0
        for piece in out:
            starts.append(at)
            at += 1 if unbind else piece._layout.shape[d]

        def grads(*pieces: Any) -> tuple:
            like = next(g for g in pieces if g is not None)
            if any(g is not None and g._ag is not None for g in pieces):  # create_graph: differentiable
                return (_placed_pieces(d, shapes, pieces, unbind),)
            z = grad_zeros(shape, like._dtype)
            for start, piece_grad in zip(starts, pieces):
                if piece_grad is None:
                    continue
                place = z.select(d, start) if unbind else z.narrow(d, start, piece_grad._layout.shape[d])
                # (written, not added: the pieces are disjoint, and PyTorch's split/unbind_backward
                # cat or stack them, copies that keep a piece's -0.0, which +0.0 + -0.0 lost)
                place._np()[...] = piece_grad._np()
            return (z,)

        sizes = kwargs.get("split_size_or_sections", args[0] if args else None)
        node = "SplitWithSizesBackward0" if name == "SplitBackward0" and isinstance(sizes, (list, tuple)) else name
        return node, (x,), grads, (), "multi"

    return rule


def _placed_pieces(d: int, shapes: list, pieces: tuple, unbind: bool) -> Tensor:
    """PyTorch's split_with_sizes_backward / unbind_backward, differentiably (create_graph): the
    pieces' gradients, zeros of its ``shapes`` entry for a piece without one, concatenated (split,
    chunk) or stacked (unbind) along ``d``; so their signs of zero and the second derivative's
    nodes (CatBackward0, StackBackward0) are PyTorch's (a sum of placed pieces lost g's -0.0)."""
    from .shape.joining import cat, stack

    like = next(g for g in pieces if g is not None)
    full = [g if g is not None else grad_zeros(s, like._dtype) for g, s in zip(pieces, shapes)]
    return stack(full, d) if unbind else cat(full, d)


def _permuted_back(out: Tensor, x: Tensor, p: Sequence[int]) -> Any:
    """The gradient of a permutation ``p`` (the output's dim i is the input's dim p[i])."""
    inverse = tuple(int(i) for i in np.argsort(p))
    return "PermuteBackward0", (x,), lambda g: (g.permute(inverse),), ()


# ---------------------------------------------------------------- reshapes


@records("view")
def view(self: Tensor, *shape: Any, dtype: Any = None) -> Tensor:
    """The same elements as ``shape`` without copying; refuses when the strides cannot express it.

    ``view(dtype)`` reads the same bytes as another dtype (PyTorch's rules: see
    :func:`strided.layout.dtype_view.view_dtype_layout`).

    >>> x = strided.arange(12).view(3, 4)
    >>> x.shape, x.stride(), x.view(2, 6).stride()
    ((3, 4), (4, 1), (6, 1))
    """
    if dtype is not None or (len(shape) == 1 and _is_dtype(shape[0])):
        # Not recorded: PyTorch 2.13's view(dtype) is outside autograd (its result never requires
        # grad, whatever the dtypes), and a gradient through reinterpreted bits has no meaning.
        return _view_dtype(self, shape, dtype)
    if self._ag is not None and not INSIDE.get():  # its own recording entry (autograd's slow path)
        return record("view", view, (self, *shape), {})
    if not shape:
        raise missing("view", "size")
    lay = self._layout
    given = shape  # (parse_sizes unwraps it once: view(((4, 6),)) is refused, as PyTorch does)
    if len(shape) == 1 and shape[0].__class__ is tuple:
        shape = shape[0]
    for n in shape:
        if n.__class__ is not int:
            return _carry(self, P.view(lay, parse_sizes(given, "view")))
    key = (lay.shape, lay.strides, lay.offset, shape)
    plan = memo.VIEW.get(key)
    return self._view(plan) if plan is not None else _carry(self, memo.decide(memo.VIEW, key))


def view_as(self: Tensor, other: Tensor) -> Tensor:
    """A view with ``other``'s shape: ``view(other.shape)``.

    >>> strided.arange(6).view_as(strided.zeros(2, 3)).shape
    (2, 3)
    """
    return self.view(tensor_arg(other, "view_as", "other").shape)


backward("view", "view_as")(_reshaped_back("ViewBackward0"))


@records("reshape")
def reshape(self: Tensor, *shape: Any) -> Tensor:
    """A view when PyTorch's computeStride allows it, otherwise a contiguous copy.

    >>> x = strided.arange(6).view(2, 3)
    >>> strided.shares_memory(x.reshape(3, 2), x), strided.shares_memory(x.t().reshape(6), x)
    (True, False)
    """
    if self._ag is not None and not INSIDE.get():  # its own recording entry (autograd's slow path)
        return record("reshape", reshape, (self, *shape), {})
    if not shape:
        raise missing("reshape", "shape")
    lay = self._layout
    given = shape
    if len(shape) == 1 and shape[0].__class__ is tuple:
        shape = shape[0]
    itemsize = self._dtype.itemsize
    for n in shape:
        if n.__class__ is not int:
            plan = P.reshape(lay, parse_sizes(given, "reshape"), itemsize=itemsize)
            break
    else:
        key = (lay.shape, lay.strides, lay.offset, shape, itemsize)
        plan = memo.RESHAPE.get(key)
        if plan is not None:
            return self._view(plan)
        plan = memo.decide(memo.RESHAPE, key)
    op = f"reshape({', '.join(map(str, plan.layout.shape))})" if plan.__class__ is Copy else ""
    return _carry(self, plan, op)


def reshape_as(self: Tensor, other: Tensor) -> Tensor:
    """``reshape(other.shape)``: a view when the strides allow it, else a copy.

    >>> strided.arange(6).reshape_as(strided.zeros(3, 2)).shape
    (3, 2)
    """
    return self.reshape(tensor_arg(other, "reshape_as", "other").shape)


def _reshape_node(out: Tensor, x: Tensor, args: tuple, kwargs: dict) -> str:
    # a reshape PyTorch does as a copy shows as UnsafeViewBackward0 (over a CloneBackward0 in
    # PyTorch: # Note: strided records the copy and the view as one node)
    return "ViewBackward0" if out._storage is x._storage else "UnsafeViewBackward0"


backward("reshape", "reshape_as", "flatten")(_reshaped_back(_reshape_node))


@records("flatten")
def flatten(self: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """Merge dims ``start_dim..end_dim``; returns ``self`` when there is nothing to merge.

    >>> strided.zeros(2, 3, 4).flatten(1).shape
    (2, 12)
    """
    if self._ag is not None and not INSIDE.get():  # its own recording entry (autograd's slow path)
        return record("flatten", flatten, (self, start_dim, end_dim), {})
    lay = self._layout
    if start_dim.__class__ is int and end_dim.__class__ is int:
        key = (lay.shape, lay.strides, lay.offset, start_dim, end_dim, self._dtype.itemsize)
        plan = memo.FLATTEN.get(key)
        if plan is not None:
            return self._view(plan)
        plan = memo.decide(memo.FLATTEN, key)
    else:  # both types checked before either range, as PyTorch's parser does
        start_dim, end_dim = int_arg(start_dim, "flatten", "start_dim", 1), int_arg(end_dim, "flatten", "end_dim", 2)
        plan = P.flatten(lay, start_dim, end_dim, itemsize=self._dtype.itemsize)
    if plan.__class__ is P.View and plan[0].shape == lay.shape:
        return self  # nothing merges (as PyTorch: the tensor itself, not a view)
    return _carry(self, plan, f"flatten({start_dim}, {end_dim})")


@records("unflatten")
def unflatten(self: Tensor, dim: int = NO, sizes: Sequence[int] = NO, *, axis: int = NO) -> Tensor:
    """Split one dim into ``sizes`` (one -1 may be inferred); always a view.

    >>> strided.zeros(2, 12).unflatten(1, (3, -1)).shape
    (2, 3, 4)
    """
    if axis is not NO:  # NumPy's axis= (strided.numpy_keywords)
        return numpy_call(unflatten, "unflatten", {"self": self, "dim": dim, "sizes": sizes}, {"axis": axis}, {})
    if self._ag is not None and not INSIDE.get():  # its own recording entry (autograd's slow path)
        return record("unflatten", unflatten, (self, dim, sizes), {})
    lay = self._layout
    if dim.__class__ is int and sizes.__class__ is tuple:
        for n in sizes:
            if n.__class__ is not int:
                break
        else:
            key = (lay.shape, lay.strides, lay.offset, dim, sizes)
            plan = memo.UNFLATTEN.get(key)
            return self._view(plan) if plan is not None else _carry(self, memo.decide(memo.UNFLATTEN, key))
    require("unflatten", {"dim": dim, "sizes": sizes})  # (one left out: its default, NO, is no int)
    # PyTorch's parser checks both types first (the dim's, then the sizes'), then the sizes, then the dim
    dim = int_arg(dim, "unflatten", "dim", 1)
    return _carry(self, P.unflatten(lay, dim, unflatten_sizes(sizes, dim, lay.shape)))


backward("unflatten")(_reshaped_back("ViewBackward0"))


# ---------------------------------------------------------------- dims reordered


@records("permute")
def permute(self: Tensor, *dims: Any) -> Tensor:
    """The dims reordered: a view whose shape and strides are this one's in ``dims`` order.

    >>> strided.zeros(2, 3, 4).permute(2, 0, 1).stride()
    (1, 12, 4)
    """
    if self._ag is not None and not INSIDE.get():  # its own recording entry (autograd's slow path)
        return record("permute", permute, (self, *dims), {})
    lay = self._layout
    given = dims
    if len(dims) == 1 and dims[0].__class__ is tuple and dims[0]:  # permute((1, 0)): the same memo key
        dims = dims[0]
    for d in dims:
        if d.__class__ is not int:
            return _carry(self, L.permute_layout(lay, dims_arg(given)))
    if not dims:
        raise missing("permute", "dims")
    key = (lay.shape, lay.strides, lay.offset, dims)
    plan = memo.PERMUTE.get(key)
    return self._view(plan) if plan is not None else _carry(self, memo.decide(memo.PERMUTE, key))


@backward("permute")
def _permute_backward(out: Tensor, x: Tensor, *args: Any) -> Any:
    dims = args[0] if len(args) == 1 and isinstance(args[0], (tuple, list)) else args
    n = len(x._layout.shape)
    return _permuted_back(out, x, [d % n if n else 0 for d in dims])


@records("transpose")
def transpose(self: Tensor, dim0: int, dim1: int) -> Tensor:
    """Dims ``dim0`` and ``dim1`` swapped: a view.

    >>> strided.zeros(2, 3, 4).transpose(0, 2).shape
    (4, 3, 2)
    """
    if self._ag is not None and not INSIDE.get():  # its own recording entry (autograd's slow path)
        return record("transpose", transpose, (self, dim0, dim1), {})
    lay = self._layout
    if dim0.__class__ is int and dim1.__class__ is int:
        key = (lay.shape, lay.strides, lay.offset, dim0, dim1)
        plan = memo.TRANSPOSE.get(key)
        return self._view(plan) if plan is not None else _carry(self, memo.decide(memo.TRANSPOSE, key))
    # PyTorch's parser checks every argument's type before any range: transpose(3, ()) is a TypeError
    dim0, dim1 = int_arg(dim0, "transpose", "dim0", 1), int_arg(dim1, "transpose", "dim1", 2)
    return _carry(self, L.transpose_layout(lay, dim0, dim1))


# (swapaxes and swapdims, with their own keyword names, are strided.ops.inplace_views')
@backward("transpose", "swapaxes", "swapdims")
def _transpose_backward(out: Tensor, x: Tensor, dim0: int, dim1: int) -> Any:
    return "TransposeBackward0", (x,), lambda g: (g.transpose(dim0, dim1),), ()


@records("t")
def t(self: Tensor) -> Tensor:
    """The transpose of a tensor of at most 2 dims: a view.

    >>> strided.arange(6).view(2, 3).t().stride()
    (1, 3)
    """
    if self._ag is not None and not INSIDE.get():  # its own recording entry (autograd's slow path)
        return record("t", t, (self,), {})
    ndim = len(self._layout.shape)
    if ndim > 2:
        raise t_error(ndim)
    return self.transpose(0, 1) if ndim == 2 else self._view(self._layout)


@backward("t")
def _t_backward(out: Tensor, x: Tensor) -> Any:
    return "TBackward0", (x,), lambda g: (g.t(),), ()


def T(self: Tensor) -> Tensor:
    """All dims reversed; for ndim other than 2 PyTorch deprecates it, and we warn as it does.

    >>> strided.zeros(2, 3).T.shape
    (3, 2)
    """
    lay = self._layout
    if len(lay.shape) != 2:
        warnings.warn(transpose_deprecated(lay.shape, "T"), UserWarning, stacklevel=2)
    # (P.reverse's layout, made here without its View: a sixth of a small T)
    return self._view(_trusted(lay.shape[::-1], lay.strides[::-1], lay.offset))


@backward("T", operands="property")
def _T_backward(out: Tensor, x: Tensor) -> Any:  # all dims reversed
    n = len(x._layout.shape)
    return _permuted_back(out, x, range(n - 1, -1, -1))


def mT(self: Tensor) -> Tensor:
    """The last two dims swapped.

    >>> strided.zeros(5, 2, 3).mT.shape
    (5, 3, 2)
    """
    shape = self._layout.shape
    if not shape:  # PyTorch 2.13: the identity (the tensor itself), with a deprecation warning
        warnings.warn(transpose_deprecated(shape, "mT"), UserWarning, stacklevel=2)
        return self
    if len(shape) < 2:
        raise mt_error(shape)
    return self.transpose(-2, -1)


@backward("mT", operands="property")
def _mT_backward(out: Tensor, x: Tensor) -> Any:
    if out is x:
        return None
    return "TransposeBackward0", (x,), lambda g: (g.transpose(-2, -1),), ()


def movedim(self: Tensor, source: Any, destination: Any) -> Tensor:
    """Dim(s) ``source`` moved to ``destination``, the others kept in order: a view.

    >>> strided.zeros(2, 3, 4).movedim(0, -1).shape
    (3, 4, 2)
    """
    if isinstance(source, (tuple, list)) != isinstance(destination, (tuple, list)):
        # PyTorch's two overloads take (int, int) or (tuple, tuple), never one of each
        raise StridedTypeError(
            f"movedim() received an invalid combination of arguments - got ({type_name(source)}, "
            f"{type_name(destination)}), but expected one of:\n"
            " * (tuple of ints source, tuple of ints destination)\n"
            " * (int source, int destination)\n"
            "  give both as ints or both as tuples: movedim((0,), (1,)) or movedim(0, 1)"
        )
    src = tuple(source) if isinstance(source, (tuple, list)) else (source,)
    dst = tuple(destination) if isinstance(destination, (tuple, list)) else (destination,)
    lay = self._layout
    for d in src + dst:
        if d.__class__ is not int:
            return _carry(self, L.movedim_layout(lay, src, dst))  # (the decider reads other kinds)
    key = (lay.shape, lay.strides, lay.offset, src, dst)
    return _carry(self, memo.MOVEDIM.get(key) or memo.decide(memo.MOVEDIM, key))


moveaxis = movedim  # (NumPy's name, PyTorch's alias: torch.moveaxis is torch.movedim)


def swapdims(self: Tensor, dim0: int, dim1: int) -> Tensor:
    """``transpose(dim0, dim1)`` under PyTorch's alias, with its keyword names.

    >>> strided.zeros(2, 3, 4).swapdims(0, 2).shape
    (4, 3, 2)
    """
    return self.transpose(int_arg(dim0, "swapdims", "dim0", 1), int_arg(dim1, "swapdims", "dim1", 2))


def swapaxes(self: Tensor, axis0: int, axis1: int) -> Tensor:
    """``transpose(axis0, axis1)`` under NumPy's name, with PyTorch's keyword names for it.

    >>> strided.zeros(2, 3, 4).swapaxes(1, 2).stride()
    (12, 1, 4)
    """
    return self.transpose(int_arg(axis0, "swapaxes", "axis0", 1), int_arg(axis1, "swapaxes", "axis1", 2))


@backward("movedim", "moveaxis")
def _movedim_backward(out: Tensor, x: Tensor, source: Any, destination: Any) -> Any:
    n = len(x._layout.shape)
    if not n:  # a 0-d x: movedim(0 or -1, 0 or -1) is its alias, nothing to move back
        return _permuted_back(out, x, [])
    src = [s % n for s in (source if isinstance(source, (tuple, list)) else (source,))]
    dst = [d % n for d in (destination if isinstance(destination, (tuple, list)) else (destination,))]
    order: list[Any] = [None] * n
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(i for i in range(n) if i not in src)
    return _permuted_back(out, x, [o if o is not None else next(rest) for o in order])


# ---------------------------------------------------------------- stretching and size-1 dims


@records("expand")
def expand(self: Tensor, *sizes: Any) -> Tensor:
    """Stretch size-1 dims (stride 0) and add leading dims; -1 keeps a size.

    >>> y = strided.arange(3).expand(2, 3)
    >>> y.stride(), y.tolist()
    ((0, 1), [[0, 1, 2], [0, 1, 2]])
    """
    if self._ag is not None and not INSIDE.get():  # its own recording entry (autograd's slow path)
        return record("expand", expand, (self, *sizes), {})
    if not sizes:
        raise missing("expand", "size")
    lay = self._layout
    given = sizes
    if len(sizes) == 1 and sizes[0].__class__ is tuple:
        sizes = sizes[0]
    for n in sizes:
        if n.__class__ is not int:
            return _carry(self, L.expand_layout(lay, parse_sizes(given, "expand")))
    key = (lay.shape, lay.strides, lay.offset, sizes)
    plan = memo.EXPAND.get(key)
    return self._view(plan) if plan is not None else _carry(self, memo.decide(memo.EXPAND, key))


def expand_as(self: Tensor, other: Tensor) -> Tensor:
    """``expand(other.shape)``: size-1 dims stretched with stride 0, a view.

    >>> strided.zeros(3, 1).expand_as(strided.zeros(3, 4)).stride()
    (1, 0)
    """
    return self.expand(tensor_arg(other, "expand_as", "other").shape)


@records("broadcast_to")
def broadcast_to(self: Tensor, *shape: Any) -> Tensor:
    """``expand(shape)``, as ``torch.broadcast_to``: a view.

    >>> strided.arange(3).broadcast_to((2, 3)).stride()
    (0, 1)
    """
    if self._ag is not None and not INSIDE.get():  # its own recording entry (autograd's slow path)
        return record("broadcast_to", broadcast_to, (self, *shape), {})
    if not shape:
        raise missing("broadcast_to", "size")
    return self.expand(*shape)


@backward("expand", "expand_as", "broadcast_to")
def _expand_backward(out: Tensor, x: Tensor, *args: Any, **kwargs: Any) -> Any:
    shape = x._layout.shape
    return "ExpandBackward0", (x,), lambda g: (sum_to(g, shape),), ()


@records("unsqueeze")
def unsqueeze(self: Tensor, dim: int = NO, *, axis: int = NO) -> Tensor:
    """A size-1 dim inserted at ``dim``: a view.

    >>> strided.zeros(2, 3).unsqueeze(1).shape
    (2, 1, 3)
    """
    if axis is not NO:  # NumPy's axis= (strided.numpy_keywords)
        return numpy_call(unsqueeze, "unsqueeze", {"self": self, "dim": dim}, {"axis": axis}, {})
    if self._ag is not None and not INSIDE.get():  # its own recording entry (autograd's slow path)
        return record("unsqueeze", unsqueeze, (self, dim), {})
    lay = self._layout
    if dim.__class__ is int:
        key = (lay.shape, lay.strides, lay.offset, dim)
        plan = memo.UNSQUEEZE.get(key)
        return self._view(plan) if plan is not None else _carry(self, memo.decide(memo.UNSQUEEZE, key))
    require("unsqueeze", {"dim": dim})  # (left out: its default, NO, is no int)
    return _carry(self, L.unsqueeze_layout(lay, dim))  # (the decider reads other dim kinds)


backward("unsqueeze")(_reshaped_back("UnsqueezeBackward0"))


@records("squeeze")
def squeeze(self: Tensor, dim: int | Sequence[int] | None = None, *, axis: int | Sequence[int] | None = NO
            ) -> Tensor:
    """Size-1 dims removed (all of them, or those named by ``dim``): a view.

    >>> x = strided.zeros(2, 1, 3, 1)
    >>> x.squeeze().shape, x.squeeze(1).shape
    ((2, 3), (2, 3, 1))
    """
    if axis is not NO:  # NumPy's axis= (strided.numpy_keywords)
        return numpy_call(squeeze, "squeeze", {"self": self, "dim": dim}, {"axis": axis}, {"dim": None})
    if self._ag is not None and not INSIDE.get():  # its own recording entry (autograd's slow path)
        return record("squeeze", squeeze, (self, dim), {})
    lay = self._layout
    if dim is None or dim.__class__ is int:
        key = (lay.shape, lay.strides, lay.offset, dim)
        plan = memo.SQUEEZE.get(key)
        return self._view(plan) if plan is not None else _carry(self, memo.decide(memo.SQUEEZE, key))
    dims = tuple(dim) if isinstance(dim, (tuple, list)) else (dim,)
    return _carry(self, L.squeeze_layout(lay, dims))  # (the decider reads other dim kinds)


def _squeeze_node(out: Tensor, x: Tensor, args: tuple, kwargs: dict) -> str:
    dim = args[0] if args else kwargs.get("dim")
    if dim is None:
        return "SqueezeBackward0"
    return "SqueezeBackward2" if isinstance(dim, (tuple, list)) else "SqueezeBackward1"


backward("squeeze")(_reshaped_back(_squeeze_node))


# ---------------------------------------------------------------- parts of a tensor


@records("narrow")
def narrow(self: Tensor, dim: int = NO, start: int = NO, length: int = NO, *, axis: int = NO) -> Tensor:
    """``length`` elements of ``dim`` from ``start``: a view.

    >>> strided.arange(10).narrow(0, 2, 3).tolist()
    [2, 3, 4]
    """
    if axis is not NO:  # NumPy's axis= (strided.numpy_keywords)
        return numpy_call(narrow, "narrow", {"self": self, "dim": dim, "start": start, "length": length},
                          {"axis": axis}, {})
    if self._ag is not None and not INSIDE.get():  # its own recording entry (autograd's slow path)
        return record("narrow", narrow, (self, dim, start, length), {})
    lay = self._layout
    if dim.__class__ is int and start.__class__ is int and length.__class__ is int:
        key = (lay.shape, lay.strides, lay.offset, dim, start, length)
        plan = memo.NARROW.get(key)
        return self._view(plan) if plan is not None else _carry(self, memo.decide(memo.NARROW, key))
    require("narrow", {"dim": dim, "start": start, "length": length})  # (one left out: NO is no int)
    if isinstance(start, Tensor):  # narrow's Tensor overload: 0-d integral only (PyTorch)
        start = narrow_tensor_start(start)
    start = int_arg(start, "narrow", "start", 2, size=True)
    length = int_arg(length, "narrow", "length", 3, size=True)
    return _carry(self, L.narrow_layout(lay, dim, start, length))


backward("narrow")(_scattered_back("SliceBackward0", "narrow"))


@records("select")
def select(self: Tensor, dim: int = NO, index: int = NO, *, axis: int = NO) -> Tensor:
    """Element ``index`` of ``dim``, that dim removed: a view (``t[:, i]`` for dim 1).

    >>> strided.arange(6).view(2, 3).select(1, 2).tolist()
    [2, 5]
    """
    if axis is not NO:  # NumPy's axis= (strided.numpy_keywords)
        return numpy_call(select, "select", {"self": self, "dim": dim, "index": index}, {"axis": axis}, {})
    if self._ag is not None and not INSIDE.get():  # its own recording entry (autograd's slow path)
        return record("select", select, (self, dim, index), {})
    lay = self._layout
    if dim.__class__ is int and index.__class__ is int:
        key = (lay.shape, lay.strides, lay.offset, dim, index)
        plan = memo.SELECT.get(key)
        return self._view(plan) if plan is not None else _carry(self, memo.decide(memo.SELECT, key))
    require("select", {"dim": dim, "index": index})  # (one left out: its default, NO, is no int)
    index = int_arg(index, "select", "index", 2, size=True)
    return _carry(self, L.select_layout(lay, dim, index))


backward("select")(_scattered_back("SelectBackward0", "select"))


def split(self: Tensor, split_size: int | Sequence[int], dim: int = 0) -> tuple[Tensor, ...]:
    """Pieces of ``split_size`` along ``dim`` (the last may be smaller), or of the given sizes.

    >>> [p.tolist() for p in strided.arange(5).split(2)]
    [[0, 1], [2, 3], [4]]
    """
    shape = self._layout.shape
    check_not_0d(shape, "split")
    if split_size.__class__ is not int and not isinstance(split_size, (list, tuple)):
        split_size = _split_size(split_size, dim)
    step = split_step(split_size, dim, shape)  # PyTorch checks split_size before the dim
    d = L.wrap_dim(dim, len(shape))
    return _pieces(self, d, split_sizes(split_size, step, d, shape))


def _split_size(split_size: Any, dim: Any) -> Any:
    """``split_size`` as PyTorch 2.13's ``Tensor.split`` (torch/_tensor.py) passes it on: a
    one-element tensor as its ``int()``; an int (a bool too) to ``split``, which refuses a bool;
    anything else (a NumPy integer, a float, an array, a many-element tensor) to
    ``split_with_sizes``, whose parser wants a tuple of ints: their TypeErrors, their text."""
    if isinstance(split_size, Tensor) and split_size.numel() == 1:
        return int(split_size)
    if isinstance(split_size, bool):
        raise StridedTypeError(join_lines(
            f"split() received an invalid combination of arguments - got (Tensor, bool, {_py_type(dim)}), "
            "but expected one of:", f"split_size={split_size!r} is a bool, no piece length",
            f"fix: split({int(split_size)})"))
    if not isinstance(split_size, int):
        raise StridedTypeError(join_lines(
            "split_with_sizes(): argument 'split_sizes' (position 2) must be tuple of ints, not "
            f"{_py_type(split_size)}",
            "split takes a Python int piece length (PyTorch's Tensor.split sends anything else to "
            "split_with_sizes)", f"fix: split(int({split_size!r}))" if np.ndim(split_size) == 0 else
            "fix: a list of sizes"))
    return split_size


def _py_type(value: Any) -> str:
    """A value's type as CPython's ``tp_name`` (PyTorch's parser's messages): ``float``,
    ``numpy.int64``, ``Tensor``."""
    if isinstance(value, Tensor):
        return "Tensor"
    kind = type(value)
    return kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"


def split_with_sizes(self: Tensor, split_sizes: Sequence[int], dim: int = 0) -> tuple[Tensor, ...]:
    """Pieces of the given sizes along ``dim`` (they must add up to its size): views, as
    ``split`` with a list.

    >>> [p.tolist() for p in strided.arange(5).split_with_sizes([2, 3])]
    [[0, 1], [2, 3, 4]]
    """
    if not isinstance(split_sizes, (list, tuple)):
        raise StridedTypeError(join_lines(
            f"split_with_sizes(): argument 'split_sizes' (position 1) must be tuple of ints, not "
            f"{type(split_sizes).__name__}",
            "split_with_sizes takes the size of every piece",
            f"fix: a list of sizes, or split({split_sizes!r}) for pieces of one size"))
    # (the common call: Python ints >= 0 summing to the size of an int dim in range: the pieces
    # straight away, split's checks all passed; anything else through split, its errors)
    shape = self._layout.shape
    n = len(shape)
    if dim.__class__ is int and -n <= dim < n:
        d = dim + n if dim < 0 else dim
        total = 0
        for s in split_sizes:
            if s.__class__ is not int or s < 0:
                break
            total += s
        else:
            if total == shape[d]:
                if not OPEN and self.__class__ is Tensor and len(split_sizes) <= 8 and 0 not in split_sizes:
                    return _memo_pieces(self, d, split_sizes)
                return _pieces(self, d, split_sizes)
    return split(self, list(split_sizes), dim)


# (layout, dim, sizes) -> the pieces' layouts: a few sizes of a few shapes, as a model splits its
# activations each step; layouts are values, shared by the views that carry them
_PIECE_LAYOUTS: dict[tuple, tuple[Layout, ...]] = {}


def _memo_pieces(t: Tensor, d: int, sizes: Sequence[int]) -> tuple[Tensor, ...]:
    """:func:`_pieces` of a plain Tensor, nobody listening, for at most 8 ints > 0 adding up to
    the size of dim ``d`` (checked by the caller): the same views, their layouts remembered per
    (layout, ``d``, sizes) so that a repeated split builds only the tensors."""
    lay = t._layout
    key = (lay.shape, lay.strides, lay.offset, d, *sizes)
    layouts = _PIECE_LAYOUTS.get(key)
    if layouts is None:
        if len(_PIECE_LAYOUTS) > 256:
            _PIECE_LAYOUTS.clear()
        layouts = _PIECE_LAYOUTS[key] = tuple(p._layout for p in _pieces(t, d, sizes))
    storage, dtype = t._storage, t._dtype
    base = t if t._base is None else t._base
    out = []
    for pl in layouts:
        v = _new(Tensor)
        v._storage = storage
        v._layout = pl
        v._dtype = dtype
        v._base = base
        v._ag = None
        out.append(v)
    return tuple(out)


def _pieces(t: Tensor, d: int, sizes: Sequence[int]) -> tuple[Tensor, ...]:
    """Consecutive narrow views of ``sizes`` along dim ``d``."""
    out = []
    start = 0
    lay = t._layout
    shape, strides, offset = lay.shape, lay.strides, lay.offset
    head, tail, stride = shape[:d], shape[d + 1:], strides[d]
    if OPEN or t.__class__ is not Tensor:
        trusted = L.Layout._trusted
        for s in sizes:  # (the sizes are the user's, read by split_sizes: not memo keys)
            if s > 0:  # (narrow_layout's result, built directly: the sizes fit the dim, every piece a view)
                out.append(t._view(trusted(head + (s,) + tail, strides, offset + start * stride)))
            else:  # (an empty piece: narrow's offset rule for it)
                out.append(_carry(t, L.narrow_layout(lay, d, start, s)))
            start += s
        return tuple(out)
    # nobody listens, a plain Tensor: t._view and Layout._trusted written out in the loop, and
    # one shape tuple per distinct size (split(2) of 1024 rows: 512 pieces, ~300 -> ~200 us;
    # PyTorch ~265). The same objects, slot for slot.
    storage, dtype = t._storage, t._dtype
    base = t if t._base is None else t._base
    shapes: dict[int, tuple[int, ...]] = {}
    for s in sizes:
        if s > 0:
            piece_shape = shapes.get(s)
            if piece_shape is None:
                piece_shape = shapes[s] = head + (s,) + tail
            pl = _new(_Unfrozen)
            pl.shape = piece_shape
            pl.strides = strides
            pl.offset = offset + start * stride
            pl.__class__ = Layout
            v = _new(Tensor)
            v._storage = storage
            v._layout = pl
            v._dtype = dtype
            v._base = base
            v._ag = None
            out.append(v)
        else:
            out.append(_carry(t, L.narrow_layout(lay, d, start, s)))
        start += s
    return tuple(out)


def chunk(self: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    """At most ``chunks`` pieces of equal size (the last may be smaller).

    >>> [p.shape for p in strided.zeros(5, 2).chunk(2)]
    [(3, 2), (2, 2)]
    """
    shape = self._layout.shape
    chunks = chunk_count(chunks, dim, shape)
    d = L.wrap_dim(dim, len(shape))
    size = shape[d]
    step = (size + chunks - 1) // chunks
    if step == 0 and size == 0:
        check_piece_count(chunks, "chunk", shape, d)
        return _pieces(self, d, (0,) * chunks)
    return self.split(step, d)


def unbind(self: Tensor, dim: int = 0) -> tuple[Tensor, ...]:
    """The slices along ``dim``, that dim removed: views.

    >>> [r.tolist() for r in strided.arange(4).view(2, 2).unbind()]
    [[0, 1], [2, 3]]
    """
    shape = self._layout.shape
    if not shape:
        raise unbind_0d_error()
    d = L.wrap_dim(dim, len(shape))
    check_piece_count(shape[d], "unbind", shape, d)
    lay = self._layout
    out = []
    for i in range(shape[d]):
        key = (lay.shape, lay.strides, lay.offset, d, i)
        out.append(_carry(self, memo.SELECT.get(key) or memo.decide(memo.SELECT, key)))
    return tuple(out)


backward("split", "chunk")(_pieces_back("SplitBackward0"))
backward("split_with_sizes")(_pieces_back("SplitWithSizesBackward0"))
backward("unbind")(_pieces_back("UnbindBackward0"))


@records("diagonal")
def diagonal(self: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """The diagonal of dims ``dim1`` and ``dim2`` (shifted by ``offset``) as the last dim: a view.

    >>> x = strided.arange(9).view(3, 3)
    >>> x.diagonal().tolist(), x.diagonal(1).tolist()
    ([0, 4, 8], [1, 5])
    """
    if self._ag is not None and not INSIDE.get():  # its own recording entry (autograd's slow path)
        return record("diagonal", diagonal, (self, offset, dim1, dim2), {})
    lay = self._layout
    if offset.__class__ is int and dim1.__class__ is int and dim2.__class__ is int:
        key = (lay.shape, lay.strides, lay.offset, offset, dim1, dim2)
        plan = memo.DIAGONAL.get(key)
        return self._view(plan) if plan is not None else _carry(self, memo.decide(memo.DIAGONAL, key))
    offset = int_arg(offset, "diagonal", "offset", 1)
    dim1, dim2 = int_arg(dim1, "diagonal", "dim1", 2), int_arg(dim2, "diagonal", "dim2", 3)
    return _carry(self, L.diagonal_layout(lay, offset, dim1, dim2))


backward("diagonal")(_scattered_back("DiagonalBackward0", "diagonal"))


def unfold(self: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """Windows of ``size`` elements every ``step`` along ``dimension``, as a new last dim: a view.

    >>> w = strided.arange(5).unfold(0, 3, 1)
    >>> w.tolist(), w.stride()
    ([[0, 1, 2], [1, 2, 3], [2, 3, 4]], (1, 1))
    """
    size = int_arg(size, "unfold", "size", 2)
    step = int_arg(step, "unfold", "step", 3)
    lay = self._layout
    if dimension.__class__ is int and size.__class__ is int and step.__class__ is int:
        key = (lay.shape, lay.strides, lay.offset, dimension, size, step)
        return _carry(self, memo.UNFOLD.get(key) or memo.decide(memo.UNFOLD, key))
    return _carry(self, L.unfold_layout(lay, dimension, size, step))  # (the decider reads other dim kinds)


backward("unfold")(_scattered_back("UnfoldBackward0", "unfold"))


def as_strided(self: Tensor, size: Sequence[int], stride: Sequence[int], storage_offset: int | None = None) -> Tensor:
    """Any layout over this storage, checked against every Layout invariant and the storage's bounds.

    >>> strided.arange(6).as_strided((2, 2), (1, 2), 1).tolist()
    [[1, 3], [2, 4]]
    """
    offset = self._layout.offset if storage_offset is None else storage_offset
    shape, strides, offset = L.normalize_layout_args(size, stride, offset)
    # (remembered on the parsed layout and the storage's size: the storage bound is part of the answer)
    key = (shape, strides, offset, self._storage.array.shape[0], self._dtype.itemsize)
    plan = memo.AS_STRIDED.get(key)
    return self._view(plan) if plan is not None else _carry(self, memo.decide(memo.AS_STRIDED, key))


@backward("as_strided")
def _as_strided_backward(out: Tensor, x: Tensor, *args: Any, **kwargs: Any) -> Any:
    """PyTorch's as_strided_backward: a zero buffer over the storage's elements, the incoming
    gradient added at the view's positions (overlapping ones accumulate), then read back
    through the input's layout; where the input itself reads an element several times, each
    reading gets the element's gradient divided by their count."""
    xl, ol = x._layout, out._layout
    n = x._storage.array.shape[0]
    return "AsStridedBackward0", (x,), lambda g: (restrided(g, ol, xl, xl, n),), ()


# (named as the protocol it serves: the copy ledger and watch name an op after the outermost
# public function of strided on the stack, and this one counts as "__getitem__")
@records("__getitem__")
def __getitem__(self: Tensor, key: Any) -> Tensor:
    """``t[key]``: basic indexing always plans a View (plans.index); its layout is index_layout's.
    An advanced key (index_layout meets a tensor, list, array or bool) is a copy, made by
    strided.ops.indexing.advanced: the try costs the basic path nothing. A short list holding
    sequences, tensors, slices, None or ... is a tuple of indices (PyTorch 2.13: ``args.index_key``)."""
    if key.__class__ is list:
        key = index_key(key)
    if self._ag is not None and not INSIDE.get():  # its own recording entry (autograd's slow path)
        return record("__getitem__", __getitem__, (self, key), {})
    try:
        return self._view(index_layout(self._layout, key))
    except AdvancedIndex:
        return ADVANCED_INDEXING["getitem"](self, key)


def _index_node(args: tuple) -> str:
    """PyTorch's node for a basic index: the last step it records (``x[1, 1:3]`` is a
    select, then a slice: SliceBackward0).

    # Note: PyTorch records one node per step of a compound index; strided records one node
    # (the whole key is one view), named after PyTorch's last step.
    """
    steps = args[0] if isinstance(args[0], tuple) else (args[0],)
    last: Any = Ellipsis
    for k in steps:
        if k is not Ellipsis:
            last = k
    if last is Ellipsis:
        return "AliasBackward0"
    if isinstance(last, slice):
        return "SliceBackward0"
    if last is None or last is True or last is False:
        return "UnsqueezeBackward0"
    return "SelectBackward0"


backward("__getitem__")(_scattered_back(_index_node, "__getitem__"))


def _is_dtype(x: Any) -> bool:
    """Whether ``view``'s one argument is a dtype (strided's, or a torch.dtype read by name)."""
    # isinstance, not a class check: bfloat16 is a DType subclass (its NumPy dtype loads lazily)
    return isinstance(x, DType) or (x.__class__.__name__ == "dtype" and x.__class__.__module__ == "torch")


def _view_dtype(self: Tensor, shape: tuple, dtype: Any) -> Tensor:
    """``self.view(dtype)``: the same bytes as ``dtype``, through the one reinterpreting primitive."""
    if dtype is None:
        if len(shape) != 1:
            raise StridedTypeError(f"view() takes one dtype or sizes, got {len(shape)} arguments")
        dtype = shape[0]
    elif shape:
        raise StridedTypeError("view() got a dtype and sizes; pass one: view(dtype) or view(*sizes)")
    new = to_dtype(dtype)
    lay = self._layout
    plan = view_dtype_layout(lay, self._dtype.itemsize, new.itemsize, TORCH_NAME[self._dtype.name],
                             TORCH_NAME[new.name])
    if plan.__class__ is not Layout:
        fix = {"dim": f"fix: x.view(1).view(strided.{new.name}) gives it a last dim first",
               "size": f"fix: narrow the last dim to a multiple of {new.itemsize // self._dtype.itemsize} elements",
               "offset": f"fix: x.clone().view(strided.{new.name}) reads a fresh copy's bytes (offset 0)",
               }.get(plan.check, f"fix: x.contiguous().view(strided.{new.name}) reads a contiguous copy's bytes")
        raise StridedRuntimeError(join_lines(
            plan.first,
            f"x: shape {lay.shape}, strides {lay.strides}, offset {lay.offset} ({self._dtype.name}, "
            f"{self._dtype.itemsize} bytes each), read as {new.name} ({new.itemsize} bytes): {plan.why}",
            fix))
    return reinterpreted(self, new, plan)


# ---------------------------------------------------------------- the methods

_METHODS: tuple[tuple[Callable[..., Any], tuple[str, ...]], ...] = (
    (view, ("view",)), (view_as, ("view_as",)), (reshape, ("reshape",)), (reshape_as, ("reshape_as",)),
    (flatten, ("flatten",)), (unflatten, ("unflatten",)), (permute, ("permute",)),
    (transpose, ("transpose",)), (t, ("t",)), (movedim, ("movedim", "moveaxis")), (swapdims, ("swapdims",)),
    (swapaxes, ("swapaxes",)), (expand, ("expand",)),
    (expand_as, ("expand_as",)), (broadcast_to, ("broadcast_to",)), (unsqueeze, ("unsqueeze",)),
    (squeeze, ("squeeze",)), (narrow, ("narrow",)), (select, ("select",)), (split, ("split",)),
    (split_with_sizes, ("split_with_sizes",)), (chunk, ("chunk",)), (unbind, ("unbind",)), (diagonal, ("diagonal",)), (unfold, ("unfold",)),
    (as_strided, ("as_strided",)), (__getitem__, ("__getitem__",)),
)
for _fn, _names in _METHODS:
    method(*_names)(_fn)
Tensor.T = property(T)  # type: ignore[assignment]
Tensor.mT = property(mT)  # type: ignore[assignment]


seal(globals())  # (last: this module's ops with a backward rule become their recording entries)
# the kinds of this module's ops, in the op registry (after the seal: the forwards are the entries)
declare(Kind.VIEW, "view view_as reshape flatten unflatten permute transpose t T mT movedim expand expand_as unsqueeze "
                   "squeeze narrow select split split_with_sizes chunk unbind diagonal unfold as_strided __getitem__",
        explain="view reshape flatten unflatten permute transpose swapaxes swapdims t movedim moveaxis expand "
                "broadcast_to squeeze unsqueeze narrow select diagonal unfold as_strided")
