"""Grad mode: ``no_grad``, ``enable_grad``, ``set_grad_enabled``, ``inference_mode`` (context-local; also decorators).
The mode itself is :data:`strided.grad_mode.GRAD_MODE` (below the ops, which read it)."""

from __future__ import annotations

import _thread  # (threading's primitives, without importing threading: ~0.6 ms of the import)
import functools
import inspect
import sys
from collections.abc import Callable
from typing import Any

from ..dispatch import storage_root
from ..grad_mode import GRAD_MODE, INFERENCE_MODE, INFERENCE_STORAGES, OUT_TARGETS, STATE, is_grad_enabled

__all__ = ["enable_grad", "inference_mode", "is_grad_enabled", "is_inference_mode_enabled", "no_grad", "set_grad_enabled"]


def _generator_in(ctx_factory: Callable[[], Any], fn: Callable) -> Callable:
    """``fn``, a generator function, with each of its steps run inside ``ctx_factory()`` (a fresh
    context manager per step), and the caller's mode back at every ``yield``: PyTorch's
    ``_wrap_generator``. (Entering the block once around ``fn(...)`` would leave it before the
    generator's first step runs.)"""

    @functools.wraps(fn)
    def generator_context(*args: Any, **kwargs: Any) -> Any:
        gen = fn(*args, **kwargs)
        try:
            with ctx_factory():
                response = gen.send(None)
            while True:
                try:
                    request = yield response
                except GeneratorExit:
                    with ctx_factory():
                        gen.close()
                    raise
                except BaseException:
                    with ctx_factory():
                        response = gen.throw(*sys.exc_info())
                else:
                    with ctx_factory():
                        response = gen.send(request)
        except StopIteration as e:
            return e.value

    return generator_context


class _Stacks:
    """The blocks a context-manager object has open, one stack per thread: an object shared by
    threads (a module-level ``NO_GRAD = no_grad()`` entered by workers) keeps each thread's
    entries apart, as PyTorch's thread-local guards do (one shared list popped another thread's
    token: ValueError)."""

    __slots__ = ("_by_thread",)

    def __init__(self) -> None:
        self._by_thread: dict[int, list] = {}

    def push(self, item: Any) -> None:
        self._by_thread.setdefault(_thread.get_ident(), []).append(item)

    def pop(self) -> Any:
        ident = _thread.get_ident()
        stack = self._by_thread[ident]
        item = stack.pop()
        if not stack:
            del self._by_thread[ident]  # (only this thread touches its own key)
        return item


class _GradMode:
    """Sets grad mode to ``self.mode`` inside a ``with`` block or a decorated function; the
    setting belongs to this thread or asyncio task (a ContextVar), as PyTorch's is thread-local."""

    mode = True

    def __init__(self) -> None:
        self._tokens = _Stacks()

    def __enter__(self) -> None:
        self._tokens.push(GRAD_MODE.set(self.mode))

    def __exit__(self, *exc: Any) -> None:
        GRAD_MODE.reset(self._tokens.pop())

    def __call__(self, fn: Callable) -> Callable:
        mode = self.mode
        if inspect.isgeneratorfunction(fn):
            return _generator_in(self.clone, fn)

        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> Any:
            token = GRAD_MODE.set(mode)
            try:
                return fn(*args, **kwargs)
            finally:
                GRAD_MODE.reset(token)

        return run

    def clone(self) -> _GradMode:
        return self.__class__()


class no_grad(_GradMode):  # noqa: N801 - PyTorch's name
    """Inside it ops record no graph (results need no gradient), e.g. a parameter update.

    >>> w = strided.ones(2, requires_grad=True)
    >>> (w * w).sum().backward()
    >>> with strided.no_grad():
    ...     w -= 0.1 * w.grad
    >>> w.tolist(), w.requires_grad, (w * 2).requires_grad
    ([0.800000011920929, 0.800000011920929], True, True)
    >>> with strided.no_grad():
    ...     (w * 2).requires_grad
    False
    """

    mode = False

    def __new__(cls, orig_func: Callable | None = None) -> Any:
        # PyTorch: ``@no_grad`` without the call decorates ``orig_func`` itself
        return super().__new__(cls) if orig_func is None else cls()(orig_func)


class enable_grad(_GradMode):  # noqa: N801
    """Turns recording back on inside a ``no_grad`` block."""

    mode = True

    def __new__(cls, orig_func: Callable | None = None) -> Any:
        return super().__new__(cls) if orig_func is None else cls()(orig_func)


class set_grad_enabled(_GradMode):  # noqa: N801
    """``set_grad_enabled(False)`` is ``no_grad()``; as a plain call it sets the mode at once."""

    def __init__(self, mode: bool) -> None:
        super().__init__()
        self.mode = bool(mode)
        self._now = GRAD_MODE.set(self.mode)  # PyTorch: the call itself sets it

    def __enter__(self) -> None:
        self._tokens.push(None)

    def __exit__(self, *exc: Any) -> None:
        self._tokens.pop()
        GRAD_MODE.reset(self._now)

    def clone(self) -> set_grad_enabled:
        return self.__class__(self.mode)


class inference_mode:  # noqa: N801 - PyTorch's name
    """``no_grad`` whose new tensors are *inference tensors* (``t.is_inference()``): a context
    manager and a decorator, as ``torch.inference_mode(mode=True)``.

    How far strided goes (PyTorch 2.13's rules, checked against it):

    - inside the block grad mode is off (nothing records), and every tensor whose memory an op
      allocates there is an inference tensor, as are its views, wherever they are made; a view
      made inside the block of a tensor from outside, or a tensor from outside written in place
      inside it, stays normal;
    - outside any block an inference tensor cannot be saved for backward by a recorded op, be
      written in place or be made to require grad: PyTorch's RuntimeErrors; ``clone()`` gives a
      normal tensor;
    - ``inference_mode(False)`` makes normal tensors again and turns grad mode on, as PyTorch's.

    Not mirrored: PyTorch's inference tensors skip version counting and view tracking (a speed
    trick); strided marks them by their storage instead, which it learns by listening to the op
    records while a block is open, so ops inside a block pay for the listening (the records),
    rather than run faster. Memory no op record reports (``from_numpy`` inside a block, which
    PyTorch marks) stays normal. The mode is context-local (this thread or asyncio task); the set of
    inference storages is shared by all threads and held weakly.

    >>> with strided.inference_mode():
    ...     y = strided.ones(2) * 2
    >>> y.is_inference(), y.requires_grad, strided.ones(2).is_inference()
    (True, False, False)
    >>> w = strided.ones(2, requires_grad=True)
    >>> w * y
    Traceback (most recent call last):
    ...
    strided.errors.StridedRuntimeError: Inference tensors cannot be saved for backward. Please do not use Tensors created in inference mode in computation tracked by autograd. To work around this, you can make a clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` instead of `torch.inference_mode()`.
    ...
    """

    def __new__(cls, mode: Any = True) -> Any:
        # PyTorch: ``@inference_mode`` without the call decorates the function given as ``mode``
        return super().__new__(cls) if isinstance(mode, bool) else cls()(mode)

    def __init__(self, mode: bool = True) -> None:
        self.mode = bool(mode)
        self._open = _Stacks()

    def __enter__(self) -> None:
        from ..kernels.listeners import listening

        grad = GRAD_MODE.set(not self.mode)  # (PyTorch: inference_mode(False) turns grad mode on)
        inference = INFERENCE_MODE.set(self.mode)
        block = None
        if self.mode:
            STATE["used"] = True  # (in-place ops take the checked path from now on: see grad_mode.STATE)
            block = listening(_mark_new_memory, "strided.inference_mode()")
            block.__enter__()
        self._open.push((grad, inference, block))

    def __exit__(self, *exc: Any) -> None:
        grad, inference, block = self._open.pop()
        if block is not None:
            block.__exit__(*exc)
        INFERENCE_MODE.reset(inference)
        GRAD_MODE.reset(grad)

    def __call__(self, fn: Callable) -> Callable:
        mode = self.mode
        if inspect.isgeneratorfunction(fn):
            return _generator_in(self.clone, fn)

        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> Any:
            with inference_mode(mode):
                return fn(*args, **kwargs)

        return run

    def clone(self) -> inference_mode:
        return self.__class__(self.mode)


def _mark_new_memory(record: Any) -> None:
    """The listener of an open ``inference_mode`` block: the storages of the tensors an op made
    (not a view, not a write into an existing tensor: a result sharing no input's storage) become
    inference storages, while this context is in inference mode."""
    if record.kind == "view" or not INFERENCE_MODE.get():
        return
    out = record.output
    inputs = {id(storage_root(i._storage)) for i in record.inputs if hasattr(i, "_storage")}
    for t in out if isinstance(out, (tuple, list)) else (out,):
        storage = getattr(t, "_storage", None)
        if storage is not None and id(storage_root(storage)) not in inputs \
                and storage_root(storage) not in OUT_TARGETS:  # (an out= write: memory made before the op)
            INFERENCE_STORAGES.add(storage_root(storage))


def is_inference_mode_enabled() -> bool:
    """Whether this context is inside an ``inference_mode()`` block (``torch.is_inference_mode_enabled``).

    >>> with strided.inference_mode():
    ...     strided.is_inference_mode_enabled()
    True
    """
    return INFERENCE_MODE.get()
