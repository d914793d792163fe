"""The backward graph: a tensor's autograd record (:class:`Meta`), the nodes (:class:`Node`,
:class:`AccumulateGrad`), saved tensors with their versions, and the grad mode.

A tensor outside autograd has ``_ag is None``. A leaf that requires grad has a Meta with
``requires_grad`` and no ``grad_fn``; a result computed from it has a Meta whose ``grad_fn`` is
the Node that made it (``output_nr`` says which of that node's outputs it is). A Node knows the
edges to its inputs' nodes (``next_functions``, as PyTorch spells them: ``(node, output_nr)``
pairs, ``(None, 0)`` for an input that needs no gradient) and a backward rule mapping the
gradient of its output to the gradients of its inputs.

>>> x = strided.ones(3, requires_grad=True); y = (x * 2).sum()
>>> y.grad_fn, y.grad_fn.next_functions
(<SumBackward0>, ((<MulBackward0>, 0),))
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

from .. import gradients as _gradients
from ..dispatch import storage_root
from ..errors import StridedRuntimeError, join_lines

# ---------------------------------------------------------------- grad mode

# Whether ops record the graph in this thread or asyncio task (no_grad / enable_grad set it).
GRAD_MODE: ContextVar[bool] = ContextVar("strided_grad_mode", default=True)
is_grad_enabled = GRAD_MODE.get


# ---------------------------------------------------------------- version counters

# storage (its root: typed aliases share their owner's counter) -> how many in-place writes it
# has taken. Shared by every view of the storage, as PyTorch's version counter is. Only storages
# written in place since autograd was first used are here (weak keys: it forgets dead storages).
_VERSIONS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def version(t: Any) -> int:
    """``t._version``: in-place writes to ``t``'s storage so far (through any view)."""
    return _VERSIONS.get(storage_root(t._storage), 0)


def bump(t: Any) -> None:
    """Count one in-place write to ``t``'s storage."""
    root = storage_root(t._storage)
    _VERSIONS[root] = _VERSIONS.get(root, 0) + 1


# ---------------------------------------------------------------- tensor records


class Meta:
    """A tensor's autograd fields: ``requires_grad``, ``grad`` (a leaf's accumulated gradient),
    ``grad_fn`` (the Node that made it; None for a leaf), ``output_nr``, ``retains_grad``,
    ``hooks`` (register_hook) and the leaf's :class:`AccumulateGrad` node (made once, on demand)."""

    __slots__ = ("requires_grad", "grad", "grad_fn", "output_nr", "retains_grad", "hooks", "acc")

    def __init__(self, requires_grad: bool = False, grad_fn: Node | None = None, output_nr: int = 0) -> None:
        self.requires_grad = requires_grad
        self.grad = None
        self.grad_fn = grad_fn
        self.output_nr = output_nr
        self.retains_grad = False
        self.hooks: list[Callable] | None = None
        self.acc: Any = None


requires_grad = _gradients.requires_grad  # (beside the rules it serves: strided.gradients)


def meta(t: Any) -> Meta:
    """``t``'s Meta, made when it has none yet."""
    m = t._ag
    if m is None:
        m = t._ag = Meta()
    return m


def edge(t: Any) -> tuple[Node | None, int]:
    """The edge from a consumer of ``t`` to ``t``'s producer: (grad_fn, output_nr), or
    (AccumulateGrad, 0) for a leaf that requires grad, or (None, 0)."""
    m = t._ag
    if m is None:
        return (None, 0)
    if m.grad_fn is not None:
        return (m.grad_fn, m.output_nr)
    if m.requires_grad:
        if m.acc is None or m.acc() is None:
            acc = AccumulateGrad(t)
            m.acc = weakref.ref(acc)
            return (acc, 0)
        return (m.acc(), 0)
    return (None, 0)


# ---------------------------------------------------------------- nodes


class Node:
    """One backward step: ``name`` (PyTorch's, e.g. ``MulBackward0``), ``next_functions`` (an
    edge per differentiable input), ``rule(*grads) -> grads`` (a closure; one gradient per edge,
    None for none), ``ctx`` (each input's (shape, dtype), which the engine fits the gradients to)
    and ``saved`` (tensors the rule reads, with the version each had when saved, checked before
    the rule runs).

    After a backward without ``retain_graph`` a node that saved tensors drops its rule (and with
    it what the closure held) and refuses a second backward with PyTorch's error; a node that
    saved nothing (an add, a view) can run again, as in PyTorch.
    """

    __slots__ = ("_name", "next_functions", "rule", "ctx", "saved", "freed", "n_outputs", "outputs_meta",
                 "pre_hooks", "__weakref__")

    def __init__(self, name: str, rule: Callable, next_functions: tuple, ctx: Any = None,
                 saved: tuple = (), n_outputs: int = 1) -> None:
        self._name = name
        self.rule = rule
        self.next_functions = next_functions
        self.ctx = ctx
        self.saved = tuple((t, version(t)) for t in saved)
        self.freed = False
        self.n_outputs = n_outputs
        self.outputs_meta: list = [None] * n_outputs  # (shape, dtype) of each output
        self.pre_hooks = None

    def name(self) -> str:
        """PyTorch's name of this node's class (``MulBackward0``, ...)."""
        return self._name

    def register_hook(self, hook: Callable) -> None:
        """Not in this slice (PyTorch's Node.register_hook runs after the node)."""
        raise NotImplementedError("Node.register_hook is not supported yet; use Tensor.register_hook")

    def __repr__(self) -> str:
        return f"<{self._name} object at {id(self):#x}>"

    def apply(self, grads: list) -> tuple:
        """The rule on the gradients of this node's outputs: the gradients of its inputs."""
        if self.freed:
            raise StridedRuntimeError(join_lines(
                "Trying to backward through the graph a second time (or directly access saved tensors "
                "after they have already been freed). Saved intermediate values of the graph are freed "
                "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
                "backward through the graph a second time or if you need to access saved tensors after "
                "calling backward.",
                f"{self._name} saved tensors for its backward; the first backward through it freed them",
                "fix: y.backward(retain_graph=True) the first time, or recompute y"))
        for t, v in self.saved:
            now = version(t)
            if now != v:
                raise modified_error(self, t, v, now)
        return self.rule(*grads)

    def release(self) -> None:
        """Free what the rule needed (backward without retain_graph)."""
        if self.saved:
            self.freed = True
            self.saved = ()
            self.rule = None

    def register_prehook(self, hook: Callable) -> None:
        if self.pre_hooks is None:
            self.pre_hooks = []
        self.pre_hooks.append(hook)


def modified_error(node: Node, t: Any, saved: int, now: int) -> StridedRuntimeError:
    from ..dtypes import TORCH_NAME

    kind = "".join(w.capitalize() for w in TORCH_NAME[t._dtype.name].removeprefix("torch.").split("_"))
    shape = ", ".join(map(str, t._layout.shape))
    m = t._ag
    if m is not None and m.grad_fn is not None:
        what = f"output {m.output_nr} of {m.grad_fn._name}"
    else:
        what = "a leaf tensor" if m is not None and m.requires_grad else "a tensor that needs no gradient"
    return StridedRuntimeError(join_lines(
        "one of the variables needed for gradient computation has been modified by an inplace operation: "
        f"[torch.{_tensor_type(kind)} [{shape}]], which is {what}, is at version {now}; expected version "
        f"{saved} instead. Hint: enable anomaly detection to find the operation that failed to compute "
        "its gradient, with torch.autograd.set_detect_anomaly(True).",
        f"{node._name} saved this tensor (shape {t._layout.shape}) for its backward; {now - saved} in-place "
        "write(s) to its storage (through it or a view sharing the storage) came after",
        "fix: do the in-place op out of place (y = y + 1, not y += 1), or write into a clone: y = y.clone()"))


def _tensor_type(kind: str) -> str:
    names = {"Float64": "DoubleTensor", "Float32": "FloatTensor", "Float16": "HalfTensor",
             "Bfloat16": "BFloat16Tensor", "Int64": "LongTensor", "Int32": "IntTensor",
             "Int16": "ShortTensor", "Int8": "CharTensor", "Uint8": "ByteTensor", "Bool": "BoolTensor"}
    return names.get(kind, kind + "Tensor")


class AccumulateGrad(Node):
    """The node of a leaf that requires grad: the engine adds the incoming gradient into
    ``variable.grad`` (it holds the leaf weakly: the leaf owns the node's only strong reference)."""

    __slots__ = ("_leaf",)

    def __init__(self, leaf: Any) -> None:
        super().__init__("torch::autograd::AccumulateGrad", None, ())
        self._leaf = weakref.ref(leaf)

    def __repr__(self) -> str:
        return f"<AccumulateGrad object at {id(self):#x}>"

    @property
    def variable(self) -> Any:
        return self._leaf()
