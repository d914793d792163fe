"""The autograd surface of Tensor: ``requires_grad``, ``grad``, ``grad_fn``, ``is_leaf``,
``requires_grad_``, ``retain_grad``, ``retains_grad``, ``register_hook``, ``backward``,
``detach_``, ``data``, ``_version``, ``as_subclass`` and ``is_inference`` (installed on Tensor by :func:`install`)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from ..args import type_name
from ..errors import StridedNotImplementedError, StridedRuntimeError, StridedTypeError, join_lines
from ..grad_mode import _OWN, SUBCLASSES, RemovableHandle, _own_record, own_counter, set_requires_grad
from ..grad_mode import is_inference as _is_inference
from ..memory_format import contiguous_format
from ..tensor import Tensor
from . import engine
from . import graph as G


def _get_requires_grad(self: Tensor) -> bool:
    return G.requires_grad(self)


def requires_grad_(self: Tensor, requires_grad: bool = True) -> Tensor:
    """Make this leaf record operations on it (or stop); returns ``self``.

    >>> w = strided.zeros(3).requires_grad_()
    """
    if not isinstance(requires_grad, bool):  # (PyTorch's parser: 1, None or a NumPy bool is no flag)
        raise StridedTypeError(join_lines(
            f"requires_grad_(): argument 'requires_grad' (position 1) must be bool, not {type_name(requires_grad)}",
            f"got {requires_grad!r:.40}; fix: t.requires_grad_(True) or t.requires_grad_(False)"))
    return set_requires_grad(self, requires_grad)  # (the checks live below the ops: strided.grad_mode)


def _set_requires_grad(self: Tensor, value: bool) -> None:
    if not isinstance(value, bool):  # (PyTorch's setter: a RuntimeError, not a truth value)
        raise StridedRuntimeError(join_lines(
            "requires_grad must be a bool",
            f"got {value!r:.40} ({type_name(value)}); fix: t.requires_grad = True (or False)"))
    requires_grad_(self, value)


def _get_grad(self: Tensor) -> Tensor | None:
    m = self._ag
    if m is None:
        return None
    if m.grad_fn is not None and not m.retains_grad:
        engine.warn_non_leaf_grad()
    return m.grad


def _set_grad(self: Tensor, value: Tensor | None) -> None:
    if value is not None:
        if not isinstance(value, Tensor):
            raise StridedRuntimeError(f"assigned grad expected to be a Tensor or None but got grad of type "
                                      f"{type(value).__name__}")
        if value._layout.shape != self._layout.shape:
            raise StridedRuntimeError("assigned grad has data of a different size")
        if value._dtype is not self._dtype:
            raise StridedRuntimeError("assigned grad has data of a different type")
    G.meta(self).grad = value


def _get_grad_fn(self: Tensor) -> Any:
    m = self._ag
    if m is None:
        return None
    if m.view_version is not None and m.view_version != G.version(self):
        G.regenerate_view(self)  # a view whose storage was written since: AsStridedBackward0
    return m.grad_fn


def _is_leaf(self: Tensor) -> bool:
    m = self._ag
    if m is not None and m.creation is not None and m.view_version is not None \
            and m.view_version != G.version(self):
        G.regenerate_view(self)  # (PyTorch's is_leaf asks for the grad_fn: that refusal, raised)
    return m is None or m.grad_fn is None


def retain_grad(self: Tensor) -> None:
    """Keep this non-leaf tensor's gradient in ``.grad`` during backward (a leaf keeps it anyway)."""
    m = self._ag
    if m is None or (m.grad_fn is None and not m.requires_grad):
        raise StridedRuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    if m.grad_fn is None or m.retains_grad:
        return
    m.retains_grad = True
    ref = _weak(self)

    def keep(g: Tensor) -> None:
        # (PyTorch's retain_grad hook: a row-major clone the first time, whatever g's strides;
        # later ones added out of place, grad + g)
        t = ref()
        if t is not None:
            mm = t._ag
            mm.grad = g.clone(memory_format=contiguous_format) if mm.grad is None else mm.grad + g

    keep.retains_grad = True  # type: ignore[attr-defined]
    m.grad_fn.register_prehook((m.output_nr, keep))


def _weak(t: Tensor) -> Any:
    import weakref

    return weakref.ref(t)


def _retains_grad(self: Tensor) -> bool:
    m = self._ag
    return m is not None and m.retains_grad


def register_hook(self: Tensor, hook: Callable[[Tensor], Tensor | None]) -> RemovableHandle:
    """Call ``hook(grad)`` when this tensor's gradient is computed; a tensor it returns replaces it.

    >>> x = strided.ones(2, requires_grad=True)
    >>> h = x.register_hook(lambda g: g * 2)
    >>> (x * 3).sum().backward(); x.grad.tolist()
    [6.0, 6.0]
    >>> h.remove()
    """
    m = self._ag
    if m is None or (m.grad_fn is None and not m.requires_grad):
        raise StridedRuntimeError(join_lines(
            "cannot register a hook on a tensor that doesn't require gradient",
            f"this tensor (shape {self._layout.shape}) is outside autograd",
            "fix: x.requires_grad_() first (a leaf), or compute it from one"))
    if m.grad_fn is None:
        if m.hooks is None:
            m.hooks = []
        m.hooks.append(hook)
        return RemovableHandle(m.hooks, hook)
    entry = (m.output_nr, hook)
    m.grad_fn.register_prehook(entry)
    return RemovableHandle(m.grad_fn.pre_hooks, entry)


def backward(self: Tensor, gradient: Tensor | None = None, retain_graph: bool | None = None,
             create_graph: bool = False, inputs: Any = None) -> None:
    """Accumulate the gradient of this tensor into ``.grad`` of the leaves it was computed from.

    >>> x = strided.tensor([1.0, 2.0], requires_grad=True); (x * x).sum().backward(); x.grad
    tensor([2., 4.])
    """
    engine.backward(self, gradient, retain_graph, create_graph, inputs)


def _detaching(raw: Callable) -> Callable:
    @functools.wraps(raw)
    def detach_(self: Tensor) -> Tensor:
        """Cut this tensor out of the graph in place (it becomes a leaf that needs no gradient)."""
        out = raw(self)
        self._ag = None
        return out

    return detach_


def as_subclass(self: Tensor, cls: type) -> Tensor:
    """``self``'s memory and layout as an instance of ``cls``, a subclass of Tensor (PyTorch's
    ``Tensor.as_subclass``): the way to make a ``class MyT(strided.Tensor)`` instance. Writes to
    either show in the other. Ops on it return plain Tensors (strided has no ``__torch_function__``).

    # Note: PyTorch's result of a tensor that requires grad stays in the graph (AliasBackward0);
    strided refuses that case (an error, never a result that silently drops the gradient).

    >>> class MyT(strided.Tensor):
    ...     pass
    >>> m = strided.ones(2).as_subclass(MyT)
    >>> type(m).__name__, type(m + 1).__name__
    ('MyT', 'Tensor')
    """
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise StridedTypeError("Creating a Tensor subclass from a class that does not inherit from Tensor is not "
                               "possible. Make sure your class inherits from Tensor.")
    if self._ag is not None and (G.requires_grad(self) or self._ag.grad_fn is not None):
        raise StridedNotImplementedError(join_lines(
            "as_subclass() of a tensor that requires grad is not supported by strided",
            f"this tensor (shape {self._layout.shape}) is in the autograd graph; PyTorch gives an alias "
            "with AliasBackward0, which strided does not record",
            "fix: x.detach().as_subclass(cls), then .requires_grad_() for a new leaf"))
    if cls is not Tensor:
        # (Tensor.__init_subclass__ registered it, unless a class between overrides that hook
        # without calling super(): the op entries would then take its instances for non-tensors
        # and drop them from the graph)
        SUBCLASSES.add(cls)
    t = object.__new__(cls)
    # its own base (a root over the shared storage, as PyTorch's ``p._base`` is None): views of it
    # are its views for autograd, so a write through ``p[0]`` of a value that requires grad
    # gives ``p`` the history, never the tensor it was made from
    t._storage, t._layout, t._dtype, t._base, t._ag = self._storage, self._layout, self._dtype, None, None
    if _OWN:  # (PyTorch's alias shares the version counter: of x.data's, when self has that one)
        rec = _own_record(self)
        if rec is not None:
            own_counter(t, rec)
    return t


def _data(self: Tensor) -> Tensor:
    """``self.detach()`` with a version counter of its own (PyTorch's ``.data``: in-place writes
    through it are not counted in ``self._version``, nor ``self``'s in its; its views and
    detaches share its counter)."""
    d = self.detach()
    own_counter(d)
    return d


def _set_data(self: Tensor, value: Tensor) -> None:
    raise StridedRuntimeError(join_lines(
        "setting .data is not supported by strided",
        "fix: write under strided.no_grad(): x.copy_(value)"))


def _version(self: Tensor) -> int:
    """In-place writes to this tensor's storage so far, every one counted from the first op of the
    process, as PyTorch's VersionCounter counts them (shared by views and detach(), not ``.data``)."""
    if _is_inference(self):  # (PyTorch: an inference tensor has no version counter to read)
        raise StridedRuntimeError(join_lines(
            "Inference tensors do not track version counter.",
            "this tensor was made under strided.inference_mode(); fix: make it outside, or read t.clone() made outside"))
    return G.version(self)


def is_inference(self: Tensor) -> bool:
    """Whether this is an inference tensor: made inside ``strided.inference_mode()`` (or a view
    of one). See :class:`strided.inference_mode` for what that refuses outside the block.

    >>> with strided.inference_mode():
    ...     t = strided.zeros(2)
    >>> t.is_inference(), t[:1].is_inference(), t.clone().is_inference()
    (True, True, False)
    """
    return _is_inference(self)


def install() -> None:
    """Put the autograd surface on Tensor."""
    Tensor.requires_grad = property(_get_requires_grad, _set_requires_grad,
                                    doc="Whether gradients are computed for this tensor.")
    Tensor.grad = property(_get_grad, _set_grad, doc="The accumulated gradient (leaves, retain_grad).")
    Tensor.grad_fn = property(_get_grad_fn, doc="The backward node that made this tensor; None for a leaf.")
    Tensor.is_leaf = property(_is_leaf, doc="Whether this tensor was made by no recorded op.")
    Tensor.retains_grad = property(_retains_grad, doc="Whether retain_grad() was called on this non-leaf.")
    Tensor.data = property(_data, _set_data, doc="This tensor detached from the graph (same memory).")
    Tensor._version = property(_version, doc="In-place writes to this tensor's storage so far.")
    Tensor.requires_grad_ = requires_grad_
    Tensor.is_inference = is_inference
    Tensor.retain_grad = retain_grad
    Tensor.register_hook = register_hook
    Tensor.backward = backward
    Tensor.detach_ = _detaching(Tensor.detach_)
    Tensor.as_subclass = as_subclass
