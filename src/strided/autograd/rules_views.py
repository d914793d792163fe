"""Backward rules of the views and copies: the gradient goes back to the input's layout.

One table, :data:`VIEW_RULES`: Tensor method -> rule maker. A maker is called after the forward
with ``(out, self, *args, **kwargs)`` and returns PyTorch's node name, the inputs, the backward
closure and the tensors it saved (views save none: only shapes and arguments).

Three kinds of backward, cheapest first:

- **a view back**: the gradient of a permute is the gradient permuted back, of a view/reshape
  the gradient reshaped (a view whenever its layout allows), of a squeeze/unsqueeze the
  gradient with the size-1 dims put back. Nothing is copied.
- **a sum**: the gradient of an ``expand`` is summed over the stretched dims (each input
  element was read once per stretched position).
- **a scatter into the viewed layout**: select, slicing, narrow, diagonal, unfold and
  ``as_strided``. The gradient is a new zero tensor in the input's shape; the same view is taken
  of it and the incoming gradient added there. Where the view reads one element several times
  (``unfold`` with overlapping windows, ``as_strided`` with overlapping strides) the additions
  accumulate (``numpy.add.at``), as PyTorch defines it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import layout as L
from ..dispatch import result
from ..tensor import Tensor
from .engine import sum_to


def zeros_of(shape: tuple, like: Tensor) -> Tensor:
    z = result(shape, like._dtype)
    z._storage.array[...] = 0
    return z


def scatter_into_view(shape: tuple, g: Tensor, take_view: Callable[[Tensor], Tensor]) -> Tensor:
    """A zero tensor of ``shape`` with ``g`` added into ``take_view(it)`` (overlaps accumulate)."""
    z = zeros_of(shape, g)
    v = take_view(z)
    lay = v._layout
    if L.overlaps(lay.shape, lay.strides) is False:
        v._np()[...] += g._np()
    else:
        np.add.at(z._storage.array, flat_indices(lay), g._np())
    return z


def flat_indices(lay: L.Layout) -> np.ndarray:
    """The storage index of every element of ``lay`` (an int64 array of its shape)."""
    idx = np.full(lay.shape, lay.offset, dtype=np.int64)
    for d, (n, s) in enumerate(zip(lay.shape, lay.strides)):
        shape = [1] * len(lay.shape)
        shape[d] = n
        idx = idx + (np.arange(n, dtype=np.int64) * s).reshape(shape)
    return idx


# ---------------------------------------------------------------- makers


def _reshaped(name: str) -> Callable:
    """view, reshape, flatten, unflatten, view_as, reshape_as, squeeze, unsqueeze: the gradient
    reshaped back to the input's shape (a view of it whenever its strides allow)."""

    def maker(out: Tensor, x: Tensor, *args: Any, **kwargs: Any) -> Any:
        if out is x:
            return None
        shape = x._layout.shape
        node = name(out, x, args, kwargs) if callable(name) else name
        return node, (x,), lambda g: (g.reshape(shape),), ()

    return maker


def _reshape_name(out: Tensor, x: Tensor, args: tuple, kwargs: dict) -> str:
    # a reshape PyTorch does as a copy shows as UnsafeViewBackward0 (over a CloneBackward0 in
    # PyTorch: # Note: strided records the copy and the view as one node)
    return "ViewBackward0" if out._storage is x._storage else "UnsafeViewBackward0"


def _squeeze_name(out: Tensor, x: Tensor, args: tuple, kwargs: dict) -> str:
    dim = args[0] if args else kwargs.get("dim")
    if dim is None:
        return "SqueezeBackward0"
    return "SqueezeBackward2" if isinstance(dim, (tuple, list)) else "SqueezeBackward1"


def _permute(out: Tensor, x: Tensor, *args: Any, **kwargs: Any) -> Any:
    # the output's dim i is the input's dim p[i]: read the permutation off the shapes is
    # ambiguous, so it is recomputed from the arguments as the forward parsed them
    dims = args[0] if len(args) == 1 and isinstance(args[0], (tuple, list)) else args
    n = len(x._layout.shape)
    p = [d % n if n else 0 for d in dims]
    inverse = tuple(int(i) for i in np.argsort(p))
    return "PermuteBackward0", (x,), lambda g: (g.permute(inverse),), ()


def _movedim(out: Tensor, x: Tensor, source: Any, destination: Any) -> Any:
    n = len(x._layout.shape)
    src = [s % n for s in (source if isinstance(source, (tuple, list)) else (source,))]
    dst = [d % n for d in (destination if isinstance(destination, (tuple, list)) else (destination,))]
    order = [None] * n
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(i for i in range(n) if i not in src)
    p = [o if o is not None else next(rest) for o in order]
    inverse = tuple(int(i) for i in np.argsort(p))
    return "PermuteBackward0", (x,), lambda g: (g.permute(inverse),), ()


def _reverse(out: Tensor, x: Tensor) -> Any:  # .T: all dims reversed
    n = len(x._layout.shape)
    return "PermuteBackward0", (x,), lambda g: (g.permute(tuple(range(n - 1, -1, -1))),), ()


def _transpose(out: Tensor, x: Tensor, dim0: int, dim1: int) -> Any:
    return "TransposeBackward0", (x,), lambda g: (g.transpose(dim0, dim1),), ()


def _mT(out: Tensor, x: Tensor) -> Any:
    if out is x:
        return None
    return "TransposeBackward0", (x,), lambda g: (g.transpose(-2, -1),), ()


def _t(out: Tensor, x: Tensor) -> Any:
    return "TBackward0", (x,), lambda g: (g.t(),), ()


def _expand(out: Tensor, x: Tensor, *args: Any, **kwargs: Any) -> Any:
    shape = x._layout.shape
    return "ExpandBackward0", (x,), lambda g: (sum_to(g, shape),), ()


def _scatter(name: str | Callable, raw: Callable) -> Callable:
    """select, narrow, slicing, diagonal, unfold: the gradient scattered into the same view of
    a zero tensor of the input's shape."""

    def maker(out: Tensor, x: Tensor, *args: Any, **kwargs: Any) -> Any:
        if out is x:
            return None
        if out._storage is not x._storage:
            return None  # advanced indexing (a copy): ops.advanced_indexing recorded its IndexBackward0
        shape = x._layout.shape
        node = name(args) if callable(name) else name
        return node, (x,), lambda g: (scatter_into_view(shape, g, lambda z: raw(z, *args, **kwargs)),), ()

    return maker


def _index_name(args: tuple) -> str:
    """PyTorch's node for a basic index: the last step it records (``x[1, 1:3]`` is a select,
    then a slice: SliceBackward0).

    # Note: PyTorch records one node per step of a compound index; strided records one node
    # (the whole key is one view), named after PyTorch's last step.
    """
    key = args[0]
    steps = key if isinstance(key, tuple) else (key,)
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


def _as_strided(out: Tensor, x: Tensor, size: Any, stride: Any, storage_offset: Any = None) -> Any:
    """The gradient of ``as_strided`` (PyTorch's as_strided_backward): a zero buffer over the
    storage's elements, the incoming gradient added at the view's positions (overlapping ones
    accumulate), then read back through the input's layout; where the input itself reads an
    element several times, each reading gets the element's gradient divided by their count."""
    xl, ol = x._layout, out._layout
    n = x._storage.array.shape[0]

    def backward(g: Tensor) -> tuple:
        buf = np.zeros(n, dtype=g._dtype.numpy)
        np.add.at(buf, flat_indices(ol), g._np())
        idx = flat_indices(xl)
        if L.overlaps(xl.shape, xl.strides) is not False:
            count = np.zeros(n, dtype=buf.dtype)
            np.add.at(count, idx, 1)
            buf = np.divide(buf, count, out=np.zeros_like(buf), where=count > 0)
        gx = result(xl.shape, g._dtype)
        gx._np()[...] = buf[idx]
        return (gx,)

    return "AsStridedBackward0", (x,), backward, ()


def _clone(out: Tensor, x: Tensor, *args: Any, **kwargs: Any) -> Any:
    if out is x:
        return None  # contiguous() of a contiguous tensor: the tensor itself, no node
    return "CloneBackward0", (x,), lambda g: (g,), ()


def _to(out: Tensor, x: Tensor, *args: Any, **kwargs: Any) -> Any:
    if out is x:
        return None
    dtype = x._dtype
    return "ToCopyBackward0", (x,), lambda g: (g.to(dtype) if g._dtype is not dtype else g,), ()


def _pieces(name: str) -> Callable:
    """split, chunk, unbind: one node with an output per piece; the gradient of the input is a
    zero tensor with each piece's gradient added at the piece's place, a narrow (split, chunk)
    or a select (unbind) along the dim (pieces with no gradient contribute nothing)."""

    def maker(out: tuple, x: Tensor, *args: Any, **kwargs: Any) -> Any:
        shape = x._layout.shape
        dim = kwargs.get("dim", args[1] if name == "SplitBackward0" and len(args) > 1 else
                         args[0] if name == "UnbindBackward0" and args else 0)
        d = dim % len(shape)
        starts = []
        at = 0
        for piece in out:
            starts.append(at)
            at += 1 if name == "UnbindBackward0" else piece._layout.shape[d]

        def backward(*grads: Any) -> tuple:
            like = next(g for g in grads if g is not None)
            z = zeros_of(shape, like)
            for start, piece_grad in zip(starts, grads):
                if piece_grad is None:
                    continue
                if name == "UnbindBackward0":
                    place = _raw_select(z, d, start)
                else:
                    place = _raw_narrow(z, d, start, piece_grad._layout.shape[d])
                place._np()[...] += piece_grad._np()
            return (z,)

        return name, (x,), backward, (), "multi"

    return maker


_raw_select = Tensor.select
_raw_narrow = Tensor.narrow


def view_rules() -> dict[str, tuple[Callable, str]]:
    """Tensor method -> (maker, which operands may be tensors). Built from the raw forwards (the
    scatter rules re-apply them to a zero tensor)."""
    raw = {name: getattr(Tensor, name) for name in ("select", "narrow", "diagonal", "unfold", "__getitem__")}
    reshape = _reshaped(_reshape_name)
    return {
        "view": (_reshaped("ViewBackward0"), "self"),
        "view_as": (_reshaped("ViewBackward0"), "self"),
        "reshape": (reshape, "self"),
        "reshape_as": (reshape, "self"),
        "flatten": (reshape, "self"),
        "unflatten": (_reshaped("ViewBackward0"), "self"),
        "squeeze": (_reshaped(_squeeze_name), "self"),
        "unsqueeze": (_reshaped("UnsqueezeBackward0"), "self"),
        "permute": (_permute, "self"),
        "movedim": (_movedim, "self"),
        "moveaxis": (_movedim, "self"),
        "transpose": (_transpose, "self"),
        "swapaxes": (_transpose, "self"),
        "swapdims": (_transpose, "self"),
        "t": (_t, "self"),
        "T": (_reverse, "property"),
        "mT": (_mT, "property"),
        "expand": (_expand, "self"),
        "expand_as": (_expand, "self"),
        "broadcast_to": (_expand, "self"),
        "select": (_scatter("SelectBackward0", raw["select"]), "self"),
        "narrow": (_scatter("SliceBackward0", raw["narrow"]), "self"),
        "diagonal": (_scatter("DiagonalBackward0", raw["diagonal"]), "self"),
        "unfold": (_scatter("UnfoldBackward0", raw["unfold"]), "self"),
        "__getitem__": (_scatter(_index_name, raw["__getitem__"]), "self"),
        "as_strided": (_as_strided, "self"),
        "split": (_pieces("SplitBackward0"), "self"),
        "chunk": (_pieces("SplitBackward0"), "self"),
        "unbind": (_pieces("UnbindBackward0"), "self"),
        "contiguous": (_clone, "self"),
        "clone": (_clone, "self"),
        "to": (_to, "self"),
        "float": (_to, "self"),
        "double": (_to, "self"),
        "half": (_to, "self"),
    }
