"""``watch_torch``'s module paths (``h.0.attn``): a wrapper of ``nn.Module.__call__`` while a block
is open, in place of the two global module hooks it once used (with any global hook registered,
every module call takes PyTorch's slow hooked path).

Differential: each program runs under the watch as it is, and under the watch with its module
paths kept by the old mechanism (a global forward pre-hook and an ``always_call`` global forward
hook, swapped in here); both must give the same (op, module) for every step. Then the edges of
the wrapper itself: put in and taken out, threads, nested blocks, exceptions, a user's own hooks.
"""

from __future__ import annotations

import os
import sys
import threading
import warnings

import pytest
import torch

import strided.diagnose.watch_torch as wt
from strided.diagnose.watch_torch import watch_torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_gpt import GPT, batch  # noqa: E402

MODULE = torch.nn.modules.module


def _hooks_watch_modules(torch_: object, watch: wt.TorchWatch) -> None:
    """The old mechanism: two global hooks, checking the thread themselves."""

    def enter(module: object, args: object) -> None:
        if threading.get_ident() == watch._thread:
            watch._module_enter(module)

    def leave(module: object, args: object, out: object) -> None:
        if threading.get_ident() == watch._thread:
            watch._module_exit()

    watch._old_hooks = [MODULE.register_module_forward_pre_hook(enter),
                        MODULE.register_module_forward_hook(leave, always_call=True)]


def _hooks_unwatch_modules(torch_: object, watch: wt.TorchWatch) -> None:
    for hook in watch._old_hooks:
        hook.remove()


def _wrapper_in() -> bool:
    """Whether the watch's module wrapper is in: torch's ``Module.__call__`` runs the stub's code
    (how it goes in), or the wrapper is ``Module.__call__`` (where that was replaced before)."""
    call = torch.nn.Module.__dict__["__call__"]
    return call is wt._watched_module_call or call.__code__ is wt._module_call_stub.__code__


def _rows(w: wt.TorchWatch) -> list[tuple[str, str]]:
    return [(s.name, s.module) for s in w.steps]


def _both(program, monkeypatch: pytest.MonkeyPatch) -> tuple[list, list]:  # noqa: ANN001
    """(op, module) of every step of ``program()`` under the watch, and under the watch with the
    old global hooks keeping its module paths."""
    torch.manual_seed(0)
    with watch_torch() as new:
        program()
    with monkeypatch.context() as m:
        m.setattr(wt, "_watch_modules", _hooks_watch_modules)
        m.setattr(wt, "_unwatch_modules", _hooks_unwatch_modules)
        torch.manual_seed(0)
        with watch_torch() as old:
            program()
    return _rows(new), _rows(old)


class Twice(torch.nn.Module):
    """One submodule called twice, a functional op between, and a module called from a hook."""

    def __init__(self) -> None:
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)
        self.act = torch.nn.ReLU()
        self.inner = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Tanh())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.lin(x)
        x = x.t().contiguous().t()
        x = self.lin(self.act(x))
        return self.inner(x) * 2


class Raises(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x.t().contiguous()
        raise KeyError("no")


class Catches(torch.nn.Module):
    """A parent that catches its child's exception and goes on: the child is off the stack."""

    def __init__(self) -> None:
        super().__init__()
        self.bad = Raises()
        self.good = torch.nn.Linear(3, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        try:
            self.bad(x)
        except KeyError:
            x = x + 1
        return self.good(x).sum()


def _gpt() -> None:
    torch.manual_seed(0)
    model = GPT(vocab=32, C=16, heads=4, T=8, layers=2)
    idx, targets = batch(model, B=2, T=8, vocab=32)
    model(idx, targets).backward()


def _twice() -> None:
    Twice()(torch.ones(3, 4)).sum().backward()


def _catches() -> None:
    Catches()(torch.ones(2, 3))


def _own_hooks() -> None:
    # a module's own hooks: the ops of its pre-hook are its own, those of its forward hook its
    # parent's (PyTorch runs the global hooks first); a submodule called from a hook
    model = torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.Sequential(torch.nn.ReLU(), torch.nn.Linear(3, 2)))
    extra = torch.nn.Tanh()
    model[0].register_forward_pre_hook(lambda m, a: (a[0].t().contiguous().t(),))
    model[0].register_forward_hook(lambda m, a, out: extra(out) * 3)
    model[1][1].register_forward_hook(lambda m, a, out: out.clone(), always_call=True)
    model[1].register_forward_pre_hook(lambda m, a, k: ((a[0] + 1,), k), with_kwargs=True)
    model(torch.ones(2, 3)).sum().backward()


@pytest.mark.parametrize("program", [_gpt, _twice, _catches, _own_hooks])
def test_module_paths_equal_the_global_hooks(program, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    new, old = _both(program, monkeypatch)
    assert new == old and any(module for _, module in new)


def test_a_users_global_hooks_ops_are_the_modules(monkeypatch: pytest.MonkeyPatch) -> None:
    # global hooks registered before the block (the old hooks came after them): the ops of a
    # global forward hook belong to the module it runs for
    handles = [MODULE.register_module_forward_pre_hook(lambda m, a: None),
               MODULE.register_module_forward_hook(lambda m, a, out: out * 1 if isinstance(out, torch.Tensor) else None)]
    try:
        new, old = _both(_twice, monkeypatch)
    finally:
        for h in handles:
            h.remove()
    assert new == old and ("mul", "lin") in new


def test_named_paths_of_a_module_called_twice() -> None:
    with watch_torch() as w:
        Twice()(torch.ones(3, 4))
    assert [s.module for s in w.steps if s.name in ("addmm", "relu", "tanh", "mul")] == \
        ["lin", "act", "lin", "inner.0", "inner.1", "Twice"]


def test_the_wrapper_is_in_only_while_a_block_is_open_and_no_global_hook_is() -> None:
    before = torch.nn.Module.__dict__["__call__"]
    hooks = (dict(MODULE._global_forward_pre_hooks), dict(MODULE._global_forward_hooks))
    with watch_torch():
        assert _wrapper_in()
        assert (dict(MODULE._global_forward_pre_hooks), dict(MODULE._global_forward_hooks)) == hooks
        with watch_torch():
            assert _wrapper_in()
        assert _wrapper_in()
    assert torch.nn.Module.__dict__["__call__"] is before and not _wrapper_in()
    with pytest.raises(KeyError), watch_torch():
        torch.nn.Sequential(Raises())(torch.ones(2, 3))
    assert torch.nn.Module.__dict__["__call__"] is before and not wt._module_watches and not _wrapper_in()


def test_nested_blocks_each_keep_their_paths() -> None:
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Sequential(torch.nn.ReLU(), torch.nn.Linear(4, 2)))
    with watch_torch() as outer:
        model(torch.ones(5, 3))
        with watch_torch() as inner:
            model[1](torch.ones(5, 4))  # its own outermost module: paths relative to it
        model(torch.ones(5, 3))
    assert [s.module for s in inner.steps if s.kind == "compute"] == ["0", "1"]
    assert [s.module for s in outer.steps if s.kind == "compute"] == ["0", "1.0", "1.1", "0", "1", "0", "1.0", "1.1"]


def test_a_block_in_another_thread_keeps_its_own_paths() -> None:
    # two threads' blocks open at once, their ends interleaved: each sees its own modules only,
    # and the wrapper goes when the last one ends
    first_in, second_done = threading.Event(), threading.Event()
    seen = {}

    def other() -> None:
        with watch_torch() as w:
            first_in.wait(10)
            torch.nn.Sequential(torch.nn.ReLU())(torch.ones(2))
        seen["other"] = w
        second_done.set()

    before = torch.nn.Module.__dict__["__call__"]
    worker = threading.Thread(target=other)
    with watch_torch() as w:
        worker.start()
        torch.nn.Sequential(torch.nn.Identity(), torch.nn.Linear(2, 2))(torch.ones(2))
        first_in.set()
        assert second_done.wait(10)  # the other block has ended: the wrapper stays for this one
        assert _wrapper_in()
        torch.nn.Sequential(torch.nn.Tanh())(torch.ones(2))
    worker.join()
    assert torch.nn.Module.__dict__["__call__"] is before and not _wrapper_in()
    assert [s.module for s in w.steps if s.kind == "compute"] == ["1", "0"]
    assert [s.module for s in seen["other"].steps if s.kind == "compute"] == ["0"]


def test_a_users_global_hooks_and_own_call_patch_keep_working() -> None:
    called = []
    handle = MODULE.register_module_forward_hook(lambda m, a, out: called.append(type(m).__name__))
    try:
        with watch_torch() as w:
            torch.nn.Sequential(torch.nn.ReLU())(torch.ones(2))
    finally:
        handle.remove()
    assert called == ["ReLU", "Sequential"] and [s.module for s in w.steps if s.kind == "compute"] == ["0"]

    # a patch of Module.__call__ made inside the block (over the wrapper) outlives it: the
    # wrapper stays in that chain, doing nothing, and is never put in twice
    before = torch.nn.Module.__dict__["__call__"]
    calls = []
    try:
        with watch_torch():
            wrapped = torch.nn.Module.__call__

            def patched(self, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
                calls.append(1)
                return wrapped(self, *args, **kwargs)

            torch.nn.Module.__call__ = patched
        assert torch.nn.Module.__dict__["__call__"] is patched
        torch.nn.ReLU()(torch.ones(2))
        with watch_torch() as w:
            torch.nn.Sequential(torch.nn.ReLU())(torch.ones(2))
        assert torch.nn.Module.__dict__["__call__"] is patched
        assert [s.module for s in w.steps if s.kind == "compute"] == ["0"] and len(calls) == 3
    finally:
        torch.nn.Module.__call__ = before
        wt._module_call[1] = None


@pytest.mark.parametrize("how", ["torch.compile", "module.compile"])
def test_a_compiled_module_keeps_its_paths_and_warns_nothing(how: str) -> None:
    # with global module hooks, torch.compile(module) warned that they would fire twice
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Sequential(torch.nn.ReLU(), torch.nn.Linear(4, 2)))
    x = torch.ones(5, 3)
    want = model(x)
    if how == "torch.compile":
        compiled, prefix = torch.compile(model, backend="eager"), "_orig_mod."
    else:
        model.compile(backend="eager")
        compiled, prefix = model, ""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with watch_torch() as w:
            first, second = compiled(x), compiled(x)
    assert torch.equal(first, want) and torch.equal(second, want)
    assert [s.module for s in w.steps if s.kind == "compute"] == [prefix + p for p in ("0", "1.0", "1.1")] * 2
