"""``watch_torch``'s module wrapper goes in by swapping the code of torch's ``Module.__call__``
function (``_wrapped_call_impl``) for :func:`~strided.diagnose.watch_torch._module_call_stub`'s,
not by setting ``Module.__call__`` (which made CPython invalidate the attribute caches of every
``nn.Module`` subclass at each block's entry and exit).

Differential: each program's (op, module) rows under the watch equal those under the watch with
its module paths kept by two global module hooks (the mechanism before the wrapper); the hooks a
user registered fire in the same order with and without a block; the class is never written to
while a block is open; the code comes back however the block ends; where ``Module.__call__`` was
replaced before the block, the wrapper is set over it as before.
"""

from __future__ import annotations

import inspect
import os
import sys
import threading

import pytest
import torch

import strided.diagnose.watch_torch as wt
from strided.diagnose.watch_torch import watch_torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# (the module paths by two global hooks, the mechanism before the wrapper)
from test_watch_torch_module_paths import _hooks_unwatch_modules, _hooks_watch_modules  # noqa: E402

MODULE = torch.nn.modules.module
TORCH_CALL = torch.nn.Module.__dict__["_wrapped_call_impl"]
TORCH_CODE = TORCH_CALL.__code__


def _rows(program, monkeypatch: pytest.MonkeyPatch, old: bool) -> list[tuple[str, str]]:  # noqa: ANN001
    with monkeypatch.context() as m:
        if old:
            m.setattr(wt, "_watch_modules", _hooks_watch_modules)
            m.setattr(wt, "_unwatch_modules", _hooks_unwatch_modules)
        torch.manual_seed(0)
        with watch_torch() as w:
            program()
    return [(s.name, s.module) for s in w.steps]


class Recursive(torch.nn.Module):
    """A module that calls itself (reentrant), and a child that it calls at each depth."""

    def __init__(self) -> None:
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)

    def forward(self, x: torch.Tensor, depth: int = 2) -> torch.Tensor:
        x = self.lin(x).relu()
        return self(x, depth - 1) if depth else x.t().contiguous()


class Shared(torch.nn.Module):
    """The same child under two names, called through each, and a nested container."""

    def __init__(self) -> None:
        super().__init__()
        self.a = torch.nn.Linear(3, 3)
        self.b = self.a
        self.seq = torch.nn.Sequential(torch.nn.Sequential(torch.nn.Tanh(), self.a), torch.nn.ReLU())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.seq(self.b(self.a(x))) * 2


class Raising(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.lin(x).t().contiguous()
        raise ValueError("inside forward")


class Catching(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.bad, self.good = Raising(), torch.nn.Linear(3, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        try:
            self.bad(x)
        except ValueError:
            x = x * 3
        return self.good(x).sum()


def _recursive() -> None:
    Recursive()(torch.ones(2, 3)).sum().backward()


def _shared() -> None:
    Shared()(torch.ones(2, 3)).sum().backward()


def _catching() -> None:
    Catching()(torch.ones(2, 3)).backward()


def _kwargs_and_direct_forward() -> None:
    model = torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.GELU())
    model.forward(torch.ones(2, 3))  # forward called directly: no module call
    model(input=torch.ones(2, 3))  # a keyword argument through __call__
    torch.nn.Module.__call__(model[1], torch.ones(2))  # Module.__call__ called by its name


@pytest.mark.parametrize("program", [_recursive, _shared, _catching, _kwargs_and_direct_forward])
def test_module_paths_equal_the_global_hooks(program, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    new, old = _rows(program, monkeypatch, False), _rows(program, monkeypatch, True)
    assert new == old and any(module for _, module in new)


def test_reentrant_and_shared_modules_have_their_first_names() -> None:
    with watch_torch() as w:
        Recursive()(torch.ones(2, 3))
        Shared()(torch.ones(2, 3))
    assert [s.module for s in w.steps if s.name in ("addmm", "relu", "tanh", "clone")] == \
        ["lin", "Recursive", "lin", "Recursive", "lin", "Recursive", "Recursive",
         "a", "a", "seq.0.0", "a", "seq.1"]


def test_no_class_is_written_while_a_block_is_open() -> None:
    # the wrapper is torch's own function with other code: Module's __dict__ holds the same objects
    before = dict(torch.nn.Module.__dict__)
    signature = inspect.signature(torch.nn.Module.__call__)
    with watch_torch() as w:
        assert dict(torch.nn.Module.__dict__) == before
        assert torch.nn.Module.__call__ is TORCH_CALL and TORCH_CALL.__code__ is wt._module_call_stub.__code__
        assert inspect.signature(torch.nn.Module.__call__) == signature
        with watch_torch():
            torch.nn.Sequential(torch.nn.ReLU())(torch.ones(2))
        assert TORCH_CALL.__code__ is wt._module_call_stub.__code__  # (the outer block is still open)
        torch.nn.Sequential(torch.nn.ReLU())(torch.ones(2))
    assert dict(torch.nn.Module.__dict__) == before and TORCH_CALL.__code__ is TORCH_CODE
    assert [s.module for s in w.steps if s.name == "relu"] == ["0", "0"]


def test_the_code_comes_back_however_the_block_ends() -> None:
    with pytest.raises(ValueError, match="inside forward"), watch_torch():
        Raising()(torch.ones(2, 3))
    assert TORCH_CALL.__code__ is TORCH_CODE and not wt._module_watches
    # ... and a module called after the block runs torch's own code (no Python frame of the watch)
    seen = []

    def tracer(frame, event, arg):  # noqa: ANN001, ANN202
        if event == "call":
            seen.append(frame.f_code)

    sys.setprofile(tracer)
    try:
        torch.nn.ReLU()(torch.ones(2))
    finally:
        sys.setprofile(None)
    assert TORCH_CODE in seen
    assert not {wt._module_call_stub.__code__, wt._watched_module_call.__code__} & set(seen)


def test_a_users_hooks_fire_in_the_same_order() -> None:
    def program(log: list) -> torch.Tensor:
        model = torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.Sequential(torch.nn.ReLU(), torch.nn.Linear(3, 1)))
        for name, m in model.named_modules():
            m.register_forward_pre_hook(lambda mod, a, name=name: log.append(("pre", name)))
            m.register_forward_hook(lambda mod, a, out, name=name: log.append(("post", name)))
            m.register_forward_hook(lambda mod, a, out, name=name: log.append(("always", name)), always_call=True)
        return model(torch.ones(2, 3)).sum()

    handles = [MODULE.register_module_forward_pre_hook(lambda m, a: log.append(("global pre", type(m).__name__))),
               MODULE.register_module_forward_hook(lambda m, a, o: log.append(("global post", type(m).__name__)))]
    try:
        log: list = []
        program(log)
        plain = list(log)
        log.clear()
        with watch_torch() as w:
            program(log)
    finally:
        for h in handles:
            h.remove()
    assert log == plain and len(plain) == 25
    assert [s.module for s in w.steps if s.name in ("addmm", "relu")] == ["0", "1.0", "1.1"]


def test_a_call_replaced_before_the_block_is_wrapped_as_before() -> None:
    calls = []

    def replaced(self, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        calls.append(type(self).__name__)
        return TORCH_CALL(self, *args, **kwargs)

    torch.nn.Module.__call__ = replaced
    try:
        with watch_torch() as w:
            assert torch.nn.Module.__dict__["__call__"] is wt._watched_module_call
            assert TORCH_CALL.__code__ is TORCH_CODE
            torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.ReLU())(torch.ones(2))
        assert torch.nn.Module.__dict__["__call__"] is replaced
    finally:
        torch.nn.Module.__call__ = TORCH_CALL
    assert calls == ["Sequential", "Linear", "ReLU"]
    assert [s.module for s in w.steps if s.name in ("addmm", "relu")] == ["0", "1"]
    with watch_torch():  # torch's function back in Module.__call__: the code swap again
        assert torch.nn.Module.__dict__["__call__"] is TORCH_CALL
        assert TORCH_CALL.__code__ is wt._module_call_stub.__code__
    assert TORCH_CALL.__code__ is TORCH_CODE


def test_another_threads_module_calls_touch_no_block() -> None:
    # while the code is swapped every thread runs the stub; another thread's calls go straight on
    done = threading.Event()
    out = {}

    def other() -> None:
        out["y"] = torch.nn.Sequential(torch.nn.ReLU())(torch.ones(2))
        done.set()

    with watch_torch() as w:
        worker = threading.Thread(target=other)
        worker.start()
        assert done.wait(10)
        worker.join()
        torch.nn.Sequential(torch.nn.Tanh())(torch.ones(2))
    assert torch.equal(out["y"], torch.ones(2))
    assert [(s.name, s.module) for s in w.steps if s.kind == "compute"] == [("tanh", "0")]
