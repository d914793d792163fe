"""The backward pass: from the roots' gradients through the graph, in topological order.

1. Count, for every node reachable from the roots, how many edges lead into it.
2. Run a node once all its consumers have given it their gradients (summed per output: this
   is what makes diamonds and reuse, ``b = a + a; c = b * b``, exact; summed as PyTorch's
   InputBuffer sums them, into the first in place where nothing else holds it, so that the
   sum's strides are PyTorch's, :func:`_sum_into`).
3. Its rule turns the gradients of its outputs into gradients of its inputs; each is checked
   against the input's shape and dtype (summed over broadcast dims, cast), then handed on.
4. At an AccumulateGrad node the gradient is added into the leaf's ``.grad`` (or, for
   :func:`grad`, captured and returned), laid out by PyTorch's gradient layout contract
   (kept, copied with the leaf's strides or row-major; :func:`accumulate_into`).

Hooks: a tensor's ``register_hook`` functions run on its gradient before it is used (for a
non-leaf, before its producer runs); ``retain_grad`` is such a hook that keeps the gradient.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import layout as L
from ..dispatch import adopted, result
from ..errors import StridedRuntimeError, join_lines
from ..grad_mode import INSIDE
from ..gradients import sum_to
from ..kernels.listeners import OPEN
from ..layout import Layout
from ..memory_format import contiguous_format
from ..ops._support.operands import _cinfo
from ..tensor import Tensor
from . import graph as G
from .graph import _RECORDS, GRAD_MODE, AccumulateGrad, Node, edge


def _ones_like(t: Tensor) -> Tensor:
    out, arr = _fresh(t._layout.shape, t)
    arr[...] = 1
    return out


def _fresh(shape: tuple, like: Tensor) -> tuple[Tensor, np.ndarray]:
    out = result(shape, like._dtype)
    return out, out._np()


def _roots(tensors: Sequence[Tensor], grads: Sequence[Any] | None, what: str) -> list[tuple]:
    out = []
    for i, t in enumerate(tensors):
        if not G.requires_grad(t):
            raise StridedRuntimeError(join_lines(
                f"element {i} of tensors does not require grad and does not have a grad_fn",
                f"{what}[{i}] (shape {t._layout.shape}) was computed from no tensor that requires grad, "
                "or under strided.no_grad()",
                "fix: make an input require grad first: x = strided.tensor(..., requires_grad=True) "
                "or x.requires_grad_()"))
        g = None if grads is None else grads[i]
        if g is None:
            if L.product(t._layout.shape) != 1:
                raise StridedRuntimeError(join_lines(
                    "grad can be implicitly created only for scalar outputs",
                    f"{what}[{i}] has shape {t._layout.shape}: its gradient has as many elements, "
                    "and which to start from is yours to say",
                    "fix: reduce first (y.sum().backward()), or pass gradient=strided.ones_like(y)"))
            if t._dtype.kind == "c":  # (PyTorch's _make_grads: 1 is not the only unit gradient of a complex loss)
                raise StridedRuntimeError(join_lines(
                    f"grad can be implicitly created only for real scalar outputs but got torch.{t._dtype.name}",
                    f"{what}[{i}] is a complex scalar: autograd differentiates real-valued losses",
                    "fix: backward from a real loss (y.real, y.abs()), or pass gradient= explicitly"))
            g = _ones_like(t)
        elif not isinstance(g, Tensor):
            raise StridedRuntimeError("gradient must be a Tensor or None")
        elif g._layout.shape != t._layout.shape:
            raise StridedRuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of {g._layout.shape} and output[{i}] "
                f"has a shape of {t._layout.shape}.")
        elif (g._dtype.kind == "c") != (t._dtype.kind == "c"):  # (PyTorch's _make_grads check)
            raise StridedRuntimeError(join_lines(
                "For complex Tensors, both grad_output and output are required to have the same dtype. Mismatch "
                f"in dtype: grad_output[{i}] has a dtype of torch.{g._dtype.name} and output[{i}] has a "
                f"dtype of torch.{t._dtype.name}.",
                f"fix: a {'complex' if t._dtype.kind == 'c' else 'real'} gradient, e.g. gradient.to({t._dtype})"))
        out.append((t, g))
    return out


def _topology(starts: list[Node]) -> dict[Node, int]:
    """Node -> the number of edges into it from nodes reachable from ``starts``."""
    deps: dict[Node, int] = {}
    seen = set(starts)
    stack = list(starts)
    while stack:  # (each node is queued once: marked seen when queued)
        for nxt, _ in stack.pop().next_functions:
            if nxt is not None:
                deps[nxt] = deps.get(nxt, 0) + 1
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
    return deps


def _add(a: Any, b: Any) -> Any:
    if a is None:
        return b
    return a + b


def fit(g: Tensor, shape: tuple, dtype: Any, node: Node, i: int) -> Tensor:
    """The gradient of input ``i`` of ``node`` made to match that input: summed over the dims
    broadcasting stretched, cast to its dtype (PyTorch's validate_outputs: a complex gradient of
    a real input is its real part, without the cast's discarding warning)."""
    if g._layout.shape != shape:
        g = sum_to(g, shape, node, i)
    if g._dtype.is_complex and not dtype.is_complex:
        g = g.real
    if g._dtype is not dtype:
        g = g.to(dtype)
    return g


def _retain_marker(hook: Any) -> Any:
    """``hook`` itself when it is retain_grad's (which autograd.grad does not run, as in PyTorch)."""
    return hook if getattr(hook, "retains_grad", False) else None


def _run_hooks(hooks: list, g: Tensor) -> Tensor:
    for hook in hooks:
        new = hook(g)
        if new is not None:
            g = new
    return g


def run(roots: list[tuple], retain_graph: bool, create_graph: bool,
        capture: dict | None = None) -> dict:
    """The backward pass from ``roots`` ((tensor, gradient) pairs). With ``capture`` (edge ->
    index, for :func:`grad`) the gradients reaching those edges are returned instead of being
    accumulated into leaves; returns {index: gradient}."""
    buffers: dict[Node, list] = {}
    starts = []
    for t, g in roots:
        node, nr = edge(t)
        if node not in buffers:
            buffers[node] = [None] * node.n_outputs
            starts.append(node)
        buffers[node][nr] = _add(buffers[node][nr], g)
    deps = _topology(starts)
    ready = [n for n in starts if deps.get(n, 0) == 0]
    captured: dict[int, Any] = {}
    done: list[Node] = []  # released after the pass: CopySlices applies its op's node, which a
    # saved result's history (exp_ on a view, under create_graph) can reach directly as well
    token = GRAD_MODE.set(create_graph)
    # Without create_graph the rules' ops on saved tensors of the graph record nothing (grad mode
    # is off): INSIDE sends them straight to their forwards, past the recording entries' slow path.
    # It is set once for the whole pass (not per node); the hooks, which run user code, run with
    # the caller's value back (_outside). With create_graph the rules' ops record: INSIDE stays as it is.
    outer = INSIDE.get()
    inside = None if create_graph else INSIDE.set(True)
    # (the plain nodes, most of a pass, run in C where the copy kernel is built: engine_loop does
    # this loop's steps for each until ready is empty or its top node needs this body; a capture,
    # grad's or inputs=, runs here throughout)
    fast = _ENGINE_LOOP if capture is None else None
    try:
        while ready:
            if fast is not None:
                fast(ready, buffers, deps, done, retain_graph, fit, _skip, _sum_into)
                if not ready:
                    break
            node = ready.pop()
            grads = buffers.pop(node)
            if node.pre_hooks:  # tensor hooks and retain_grad of this node's outputs
                # (retain_grad's keeps what the other hooks of the tensor made of it: it runs last,
                # as in PyTorch)
                for nr, hook in sorted(node.pre_hooks, key=lambda e: getattr(e[1], "retains_grad", False)):
                    if grads[nr] is not None and not (capture is not None and hook is _retain_marker(hook)):
                        new = _outside(outer, inside, hook, grads[nr])
                        if new is not None:
                            grads[nr] = new
            if node.__class__ is AccumulateGrad:
                if grads[0] is not None:
                    leaf = node.variable
                    if leaf is not None and leaf._ag.hooks:
                        grads[0] = _outside(outer, inside, _run_hooks, leaf._ag.hooks, grads[0])
                if capture is not None:
                    _capture(node, grads, capture, captured)
                else:
                    _accumulate(node, grads, create_graph)
                continue
            if capture is not None:
                _capture(node, grads, capture, captured)
                if not node.next_functions:
                    continue
            # (Node.apply, inlined for a node with nothing to check: no saved tensor, not freed)
            # (one output, most nodes: a positional call, which CPython 3.11 runs inline, unlike ``*grads``)
            outs = ((node.rule(grads[0]) if len(grads) == 1 else node.rule(*grads))
                    if not node.saved and not node.own_outputs and not node.freed else node.apply(grads))
            # (Node.release frees saved tensors only: a node without any has nothing to release; a
            # CopySlices releases its op's node)
            if not retain_graph and (node.saved or node.__class__ is not Node):
                done.append(node)
            grads = None  # (PyTorch's engine lets go of a node's inputs before handing its outputs on)
            shapes = node.ctx
            edges = node.next_functions
            k = len(edges)
            passed: list = [None] * k
            # (a rule gives one gradient per edge and ctx one entry per input: the common case reads
            # them by index; shorter ones are padded with None, as a missing gradient. A list of our
            # own, each gradient taken out of it when handed on, as PyTorch moves it: a buffer may
            # then hold the only reference, which _sum_into looks for)
            outs = list(outs)
            if len(outs) < k:
                outs.extend((None,) * (k - len(outs)))
            if shapes is None or len(shapes) < k:
                shapes = (*(shapes or ()), *((None,) * (k - len(shapes or ()))))
            i = -1
            for nxt, nr in edges:
                i += 1
                if nxt is None:
                    continue
                g = outs[i]
                outs[i] = None
                left = deps[nxt] - 1
                deps[nxt] = left
                if g is not None:
                    meta = shapes[i]
                    if meta is not None and (g._layout.shape != meta[0] or g._dtype is not meta[1]):
                        g = fit(g, meta[0], meta[1], node, i)  # (fit leaves a gradient that matches as it is)
                    passed[i] = g._layout  # (what graph_text shows: the gradient's strides)
                    buf = buffers.get(nxt)
                    if buf is None:
                        if nxt.n_outputs == 1:
                            buffers[nxt] = [g]
                        else:
                            buf = buffers[nxt] = [None] * nxt.n_outputs
                            buf[nr] = g
                    elif buf[nr] is None:
                        buf[nr] = g
                    else:
                        _sum_into(buf, nr, g)
                    if left == 0:  # (its buffer holds this gradient)
                        ready.append(nxt)
                elif left == 0:
                    if nxt in buffers:
                        ready.append(nxt)
                    else:
                        _skip(nxt, deps, buffers, ready)
            node.passed = passed
            # (no reference to this node's gradients outlives its turn: an AccumulateGrad run
            # next may then find it holds a fresh gradient alone and keep it, _sole_owner)
            outs = g = None
        for node in done:
            node.release()
    finally:
        if inside is not None:
            INSIDE.reset(inside)
        GRAD_MODE.reset(token)
    return captured


# engine_loop: run's loop body for plain nodes, in C, in the module that builds the nodes (the
# Python body above is the reference and the fallback: an older build without it,
# STRIDED_NATIVE=0, tests setting this to None; a build older than its ``add`` argument, which
# would sum a buffer's gradients out of place)
_ENGINE_LOOP = getattr(_RECORDS, "engine_loop", None)
if _ENGINE_LOOP is not None and "skip, add)" not in (_ENGINE_LOOP.__doc__ or ""):
    _ENGINE_LOOP = None


def _outside(outer: bool, inside: Any, fn: Any, *args: Any) -> Any:
    """``fn(*args)`` (a hook: user code) with INSIDE at the caller's value ``outer``, when the
    pass set it (``inside``: its token, None under create_graph)."""
    if inside is None:
        return fn(*args)
    token = INSIDE.set(outer)
    try:
        return fn(*args)
    finally:
        INSIDE.reset(token)


def _capture(node: Node, grads: list, capture: dict, captured: dict) -> None:
    """Keep the gradients reaching the captured edges of ``node`` (:func:`grad`, ``inputs=``)."""
    for nr, g in enumerate(grads):
        k = capture.get((node, nr))
        if k is not None and g is not None:
            captured[k] = g


def _skip(node: Node, deps: dict, buffers: dict, ready: list) -> None:
    """``node`` got no gradient at all: its inputs' counts still go down (nothing flows)."""
    stack = [node]
    while stack:
        n = stack.pop()
        for nxt, _ in n.next_functions:
            if nxt is None:
                continue
            deps[nxt] -= 1
            if deps[nxt] == 0:
                if nxt in buffers:
                    ready.append(nxt)
                else:
                    stack.append(nxt)


def _sum_into(buf: list, nr: int, g: Tensor) -> None:
    """``buf[nr] = buf[nr] + g`` as PyTorch's ``InputBuffer::accumulate`` sums two gradients of
    one input: outside grad mode, into the first one in place (``old.add_(g)``, which keeps its
    strides) when the buffer held its only reference and no other tensor shares its memory
    (:func:`_reusable`); else out of place, ``old + g`` (TensorIterator's layout of the two).
    Where PyTorch would add in place but the memory may be seen from elsewhere (lent to NumPy,
    an array view of it alive) or ``old`` is in a graph (a hook's result), the sum goes into a
    copy of ``old`` with the same strides instead: the same numbers and layout, nothing shared
    written."""
    old = buf[nr]
    buf[nr] = None  # (the buffer's reference let go: ``old`` alone is what _reusable counts)
    if GRAD_MODE.get() or not _reusable(old):
        buf[nr] = old + g
    elif old._ag is None and _memory_alone(old):
        # (listeners get the op; without them a tensor no one else can reach needs no op record
        # nor version bump)
        buf[nr] = old.add_(g) if OPEN else _add_in_place(old, g)
    else:
        buf[nr] = old.clone().add_(g)  # (clone keeps a dense tensor's strides)


def _add_in_place(old: Tensor, g: Tensor) -> Tensor:
    """``old += g`` with PyTorch's numbers, ``old`` returned: NumPy's add on the arrays for real
    dtypes (PyTorch's ``a + alpha * b`` with alpha 1 is ``a + b`` there); strided's ``add_`` for
    complex ones, where PyTorch's multiply by alpha = 1+0j turns zeros' signs (and an infinite
    part's partner into NaN), which NumPy's add does not."""
    if g._dtype is old._dtype and not old._dtype.is_complex:
        _add_arrays(old, g)
        return old
    return old.add_(g)


def _add_arrays(old: Tensor, g: Tensor) -> None:
    """``old += g`` on their NumPy arrays (one dtype, one shape): the storages' flat arrays when
    both are row-major over exactly their elements (a view's construction costs more than a
    small add), else views of their layouts."""
    lay, gl = old._layout, g._layout
    info = _cinfo[lay.shape]
    a, b = old._storage.array, g._storage.array
    if lay.strides == gl.strides == info[0] and not lay.offset and not gl.offset and len(a) == len(b) == info[1]:
        a += b
    else:
        arr = old._np()
        arr += g._np()


def _reusable(t: Tensor) -> bool:
    """PyTorch's ``can_accumulate_inplace``: ``t`` a plain tensor, non-overlapping and dense,
    referenced by the caller alone (its local, here the parameter and getrefcount's argument)
    and the only tensor on its storage (views share the Storage object)."""
    if t.__class__ is not Tensor or sys.getrefcount(t) != 3:  # (_sum_into's ``old``, ``t``, the argument)
        return False
    lay = t._layout
    # (row-major, the usual case, is dense: the general test walks the dims)
    if lay.strides != _cinfo[lay.shape][0] and not _dense_for_grad(lay):
        return False
    return sys.getrefcount(t._storage) == 2  # (t's slot, the argument)


def _memory_alone(t: Tensor) -> bool:
    """Whether writing into ``t``'s memory can be seen by no one else: its Storage held by ``t``
    alone, never lent to NumPy nor borrowed from it (``_pinned``), its NumPy buffer held by that
    Storage alone and each array it is a view of (NumPy's ``base`` chain) by the view alone."""
    st = t._storage
    if st._pinned is not None or sys.getrefcount(st) != 3:  # (t's slot, ``st``, the argument)
        return False
    arr = st.array
    if not arr.flags.writeable or sys.getrefcount(arr) != 3:  # (st's slot, ``arr``, the argument)
        return False
    base = arr.base
    while base is not None:  # (NumPy's fresh result viewed flat: reshape(-1) of a 2-D product)
        if base.__class__ is not np.ndarray or sys.getrefcount(base) != 3:  # (the view's base, ``base``, the argument)
            return False
        base = base.base
    return True


def _accumulate(node: AccumulateGrad, grads: list, create_graph: bool) -> None:
    """Add ``grads[0]`` into the leaf's ``.grad`` (the engine's buffer list: its slot is emptied,
    so that a gradient no one else holds can become the leaf's ``.grad`` itself)."""
    leaf = node.variable
    g = grads[0]
    grads[0] = None
    if leaf is None or g is None:
        return
    m = leaf._ag  # (its hooks ran in run())
    if not m.requires_grad:
        return  # (PyTorch's AccumulateGrad::apply: a leaf set requires_grad_(False) since the graph was made)
    # (2: this frame's ``g`` and getrefcount's argument; any other holder keeps the copy)
    unheld = sys.getrefcount(g) == 2
    if m.grad is None and not create_graph and _STEAL and unheld and _sole_owner(g, leaf):
        m.grad = g  # (PyTorch's AccumulateGrad steals such a gradient instead of copying it)
        return
    # (a gradient no one else holds that PyTorch would steal, copied here for memory safety, a
    # view of the engine's buffer: the copy keeps its strides, as PyTorch's .grad has them)
    m.grad = accumulate_into(m.grad, g, leaf, create_graph, as_stolen=unheld and not create_graph)


_STEAL = True  # (tests turn it off to compare with the copy)


def _sole_owner(g: Tensor, like: Tensor) -> bool:
    """Whether the fresh gradient ``g``, which the caller found referenced by no one else, may
    become ``like``'s ``.grad`` as it is instead of a copy (PyTorch's AccumulateGrad steals a new
    gradient whose only reference is the engine's). The copy would be the same values in the
    same layout; keeping ``g`` is safe only when no other object can reach its memory:

    - ``g`` is a plain Tensor outside autograd, no view (``_base`` None), of ``like``'s dtype and
      shape, row-major at offset 0 over exactly its elements, and laid out as PyTorch's layout
      contract wants for ``like`` (:func:`obeys_layout_contract`: ``like`` row-major, or its
      strides differing only on size-1 dims, whose strides PyTorch does not look at);
    - its Storage is held by ``g`` alone, never lent to NumPy nor borrowed from it (``_pinned``),
      no listener is active (the copy ledger and watch see the same as with the copy);
    - its NumPy buffer is held by that Storage alone, and each array it is a view of (NumPy's
      ``base`` chain, ending at an array that owns its memory) by the view alone: a typed alias
      or a NumPy view of the buffer holds a reference there.
    """
    if g.__class__ is not Tensor or g._ag is not None or g._base is not None or OPEN:
        return False
    gl, lay = g._layout, like._layout
    if g._dtype is not like._dtype or gl.shape != lay.shape or gl.offset:
        return False
    info = _cinfo[lay.shape]
    # (both row-major, the usual case: the contract holds, row-major strides being never zero)
    if gl.strides != info[0] or (lay.strides != info[0] and not obeys_layout_contract(gl, lay)):
        return False
    return g._storage.array.shape[0] == info[1] and _memory_alone(g)


def obeys_layout_contract(g: Layout, like: Layout) -> bool:
    """PyTorch's ``obeys_layout_contract(grad, variable)`` (``torch/csrc/autograd/utils``), by
    which AccumulateGrad keeps a fresh gradient as the leaf's ``.grad``: for a non-overlapping
    and dense ``like``, ``g``'s strides equal ``like``'s on every dim of size other than 1 and
    are non-zero on the size-1 dims (a zero there marks a view); otherwise ``g`` contiguous as
    PyTorch's ``is_contiguous`` says (size-1 dims' strides not looked at, zero-size always)."""
    shape = like.shape
    if not _dense_for_grad(like):
        return L.is_contiguous(shape, g.strides)
    for size, gs, ls in zip(shape, g.strides, like.strides):
        if (gs != ls) if size != 1 else gs == 0:
            return False
    return True


def _dense_for_grad(lay: Layout) -> bool:
    """Whether a ``.grad`` made for a leaf of layout ``lay`` takes its strides (PyTorch's
    ``clone_obey_contract``: the leaf non-overlapping and dense, size-1 dims' strides, zero
    included, taken as they are); strided's negative strides, which PyTorch has not, give a
    row-major ``.grad`` instead."""
    # (PyTorch's flag is is_contiguous || the tiling test, and any zero-size tensor is contiguous)
    if 0 in lay.shape:
        return True
    return L.is_non_overlapping_and_dense(lay.shape, lay.strides) and all(
        s > 0 or (n == 1 and s == 0) for n, s in zip(lay.shape, lay.strides))


def clone_obey_contract(g: Tensor, like: Tensor) -> Tensor:
    """PyTorch's ``utils::clone_obey_contract``, the first ``.grad`` under create_graph (grad
    mode on: the copy is recorded, so the ``.grad`` can be differentiated again): a copy with
    ``like``'s strides where ``like`` is non-overlapping and dense (``new_empty_strided`` then
    ``copy_``), else a row-major clone."""
    lay = like._layout
    if _dense_for_grad(lay):
        return result(lay.shape, g._dtype, lay.strides).copy_(g)
    return g.clone(memory_format=contiguous_format)


def accumulate_into(old: Tensor | None, g: Tensor, like: Tensor, create_graph: bool, as_stolen: bool = False
                    ) -> Tensor:
    """``old + g`` as the new ``.grad``: the first one in memory of its own, laid out as ``like``
    when that is dense (PyTorch's gradient layout contract), later ones added in place.
    ``as_stolen``: no one else holds ``g``, so PyTorch's AccumulateGrad would keep it as it is
    where it obeys the contract (:func:`obeys_layout_contract`): the copy then takes ``g``'s
    strides (they differ from ``like``'s on size-1 dims only)."""
    if old is None:
        if create_graph:
            return clone_obey_contract(g, like)
        lay = like._layout
        gl = g._layout
        if g._dtype is like._dtype and gl.shape == lay.shape:
            info = _cinfo[lay.shape]
            if lay.strides == info[0] and gl.strides == info[0]:
                # both row-major: the copy below is a copy of g's flat run (the same elements in
                # the same order, into a fresh row-major result)
                n = info[1]
                src = g._storage.array
                if gl.offset or len(src) != n:
                    src = src[gl.offset : gl.offset + n]
                if len(src) == n:
                    return adopted(src.copy(), info[2], like._dtype)
        if as_stolen and obeys_layout_contract(gl, lay):
            strides = gl.strides
        else:
            strides = lay.strides if _dense_for_grad(lay) else None
        out = result(lay.shape, like._dtype, strides)
        out._np()[...] = g._np()
        return out
    if create_graph:
        return old + g
    return _add_in_place(old, g)


# ---------------------------------------------------------------- public entry points


def backward(tensors: Any, grad_tensors: Any = None, retain_graph: bool | None = None,
             create_graph: bool = False, inputs: Any = None) -> None:
    """Accumulate into ``.grad`` of the graph's leaves the gradient of ``tensors`` (PyTorch's
    ``torch.autograd.backward``)."""
    tensors = (tensors,) if isinstance(tensors, Tensor) else tuple(tensors)
    if grad_tensors is not None:
        grad_tensors = (grad_tensors,) if isinstance(grad_tensors, Tensor) else tuple(grad_tensors)
    if retain_graph is None:
        retain_graph = create_graph
    roots = _roots(tensors, grad_tensors, "tensors")
    if inputs is not None:
        inputs = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
        for t in inputs:  # (PyTorch's run_backward: a non-leaf input retains its grad from now on)
            if G.meta(t).grad_fn is not None:
                t.retain_grad()
        capture = {edge(t): k for k, t in enumerate(inputs)}
        got = run(roots, retain_graph, create_graph, capture)
        for k, t in enumerate(inputs):
            g = got.pop(k, None)
            if g is not None:
                _accumulate_input(t, g, create_graph)
        return
    run(roots, retain_graph, create_graph)


def _accumulate_input(t: Tensor, g: Tensor, create_graph: bool) -> None:
    """``t.grad`` after ``backward(inputs=...)`` captured ``g`` for it, as PyTorch's engine makes
    it there: a leaf's by its AccumulateGrad (``g``, which no one else holds, kept in its own
    layout where that obeys the contract), a non-leaf's by its retain_grad hook (a row-major
    clone, later gradients added out of place)."""
    m = G.meta(t)
    if m.grad_fn is None:
        # (3: the caller's ``g``, popped from the captures, this ``g`` and getrefcount's argument)
        unheld = sys.getrefcount(g) == 3
        m.grad = accumulate_into(m.grad, g, t, create_graph, as_stolen=unheld and not create_graph)
    else:
        m.grad = g.clone(memory_format=contiguous_format) if m.grad is None else m.grad + g


def grad(outputs: Any, inputs: Any, grad_outputs: Any = None, retain_graph: bool | None = None,
         create_graph: bool = False, allow_unused: bool | None = None) -> tuple:
    """The gradients of ``outputs`` with respect to ``inputs``, returned (no ``.grad`` changes).

    >>> x = strided.tensor([1.0, 2.0], requires_grad=True)
    >>> strided.autograd.grad((x * x).sum(), x)
    (tensor([2., 4.]),)
    """
    outputs = (outputs,) if isinstance(outputs, Tensor) else tuple(outputs)
    one = isinstance(inputs, Tensor)
    inputs = (inputs,) if one else tuple(inputs)
    if grad_outputs is not None:
        grad_outputs = (grad_outputs,) if isinstance(grad_outputs, Tensor) else tuple(grad_outputs)
    if retain_graph is None:
        retain_graph = create_graph
    for k, t in enumerate(inputs):
        if not G.requires_grad(t):
            raise StridedRuntimeError(join_lines(
                "One of the differentiated Tensors does not require grad",
                f"inputs[{k}] (shape {t._layout.shape}) does not require grad",
                "fix: x.requires_grad_() before computing the outputs from it"))
    roots = _roots(outputs, grad_outputs, "outputs")
    capture = {edge(t): k for k, t in enumerate(inputs)}
    got = run(roots, retain_graph, create_graph, capture)
    out = []
    for k, t in enumerate(inputs):
        g = got.get(k)
        if g is None and not allow_unused:
            raise StridedRuntimeError(join_lines(
                f"The differentiated Tensor at index {k} appears to not have been used in the graph. "
                "Set allow_unused=True if this is the desired behavior.",
                f"inputs[{k}] (shape {t._layout.shape}) is not on any path from the outputs",
                "fix: pass allow_unused=True (its gradient is then None)"))
        out.append(g)
    return tuple(out)


def warn_non_leaf_grad() -> None:
    warnings.warn(
        "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute "
        "won't be populated during autograd.backward(). If you indeed want the .grad field to be populated "
        "for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor "
        "by mistake, make sure you access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 "
        "for more informations.", UserWarning, stacklevel=3)
