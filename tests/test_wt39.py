"""``watch_torch``'s compiled call recorder (``_watchrec.call``, the function mode's ``on_call``)
keeps exactly what the Python ``on_call`` keeps.

Each program runs in two fresh blocks, the compiled recorders on and off (``_NATIVE_RECORD``), and
everything the watch keeps is compared (test_wtc36's ``everything``: the raw records with their
call indexes and lines, the user's calls (name, line, module path), the reshape targets and source
shapes, the tally, the built steps and the printed report and summary). The programs stress what
``call`` does itself: a call's name (none: ""), silent calls, keywords, calls that raise (the
context restored), nested calls, reshape-like calls that copy and that do not, calls from a file
the watch has not met yet and from a line not cached yet, a GPT's forward and backward, and a
nested block. The compiled path is also checked to be the one that ran (no Python ``on_call``
frame), and the context to be -1 again after each call, raising or not.
"""

from __future__ import annotations

import sys
from typing import Any

import pytest
import torch

from strided.diagnose import watch_torch as wt
from strided.diagnose.watch_torch import watch_torch
from test_wtc36 import assert_same, everything
from torch_gpt import GPT, batch

pytestmark = pytest.mark.skipif(wt._native_record() is None, reason="the _watchrec extension is not built")


def both(program: Any, monkeypatch: pytest.MonkeyPatch) -> tuple[dict, dict, int]:
    """``program``'s watch with the compiled recorders and with the Python ones, and how many
    Python ``on_call`` frames ran with the compiled ones on."""
    python_calls = [0]

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code.co_name == "on_call" and frame.f_code.co_filename == wt.__file__:
            python_calls[0] += 1

    with watch_torch():
        program()  # (the ops' facts read once, as any first block does)
    got = {}
    for native in (True, False):
        monkeypatch.setattr(wt, "_NATIVE_RECORD", [native])
        if native:
            sys.setprofile(profile)
        try:
            with watch_torch() as w:
                program()
        finally:
            sys.setprofile(None)
        assert w._context == [-1]
        got[native] = everything(w)
    return got[True], got[False], python_calls[0]


class Nameless:
    """A callable with no ``__name__``, handed to the function mode as a torch call."""

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        return x * 2


def raising_program() -> None:
    x = torch.arange(12.0).reshape(3, 4)
    for bad in (lambda: x.view(5), lambda: x.t().view(12), lambda: torch.cat([x, torch.ones(2)])):
        try:
            bad()
        except RuntimeError:
            pass
    (x + 1).t().contiguous()  # (recorded under its own call, after the failed ones)


def calls_program() -> None:
    x = torch.arange(24.0).reshape(2, 3, 4)
    torch.sum(x, dim=0, keepdim=True)
    torch.nn.functional.softmax(x.transpose(0, 2), dim=-1)
    x.size(), x.shape, x.numel(), x.stride(), x.is_contiguous()  # (silent calls)
    torch.overrides.handle_torch_function(Nameless(), (x,), x)
    x.transpose(1, 2).reshape(2, 12)  # (a reshape that copies: its target and mapping)
    x.reshape(6, 4).view(24).flatten().unflatten(0, (4, 6)).view_as(x).reshape_as(x).ravel()
    x.permute(2, 0, 1).flatten(1)
    torch.einsum("abc,abd->cd", x, x)  # (a Python call running other calls: nested)


def new_file_program() -> None:
    """Calls from code in a file the watch has not met (its library answer not cached), each line new."""
    code = compile("y = x.t().reshape(-1)\nz = (y * 2).sum()\n", "/nonexistent/wt39_user_script.py", "exec")
    exec(code, {"x": torch.ones(3, 4)})


def gpt_program() -> Any:
    torch.manual_seed(0)
    model = GPT(vocab=32, C=16, heads=2, T=8, layers=2)
    idx, targets = batch(model, B=2, T=8, vocab=32)

    def run() -> None:
        model.zero_grad(set_to_none=True)
        model(idx, targets).backward()

    return run


def nested_program() -> None:
    x = torch.ones(4, 3)
    with watch_torch() as inner:
        x.t().reshape(12)
    assert len(inner.steps) > 0
    x.t().contiguous()


PROGRAMS = {"raising": raising_program, "calls": calls_program, "new file": new_file_program, "gpt": gpt_program(),
            "nested": nested_program}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_compiled_on_call_keeps_the_same_calls(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    fast, slow, python_calls = both(PROGRAMS[name], monkeypatch)
    assert_same(fast, slow)
    assert python_calls == 0
    assert len(fast["calls"]) > 0


def test_the_calls_are_what_the_user_wrote(monkeypatch: pytest.MonkeyPatch) -> None:
    """Independently of the Python recorder: names (a nameless call's is ""), lines in this file,
    the reshape targets of the user's reshapes."""
    fast, _, _ = both(calls_program, monkeypatch)
    calls = fast["calls"]
    names = calls[0::3]
    assert "size" not in names and "numel" not in names  # (silent)
    assert {"sum", "softmax", "", "reshape", "view", "flatten", "unflatten", "einsum"} <= set(names)
    assert all(where.startswith(__file__ + ":") for where in calls[1::3])
    assert (2, 12) in fast["targets"].values()
    assert ((2, 4, 3), (2, 12)) in fast["reshapes"].values()
    assert any(s[2] == "copy" and s[11].get("call") == "reshape" for s in fast["steps"])


def test_new_file_calls_point_at_it(monkeypatch: pytest.MonkeyPatch) -> None:
    fast, _, _ = both(new_file_program, monkeypatch)
    script = {where for where in fast["calls"][1::3] if not where.startswith(__file__)}
    assert script == {"/nonexistent/wt39_user_script.py:1", "/nonexistent/wt39_user_script.py:2"}


def test_a_raising_call_leaves_the_context_as_it_was() -> None:
    with watch_torch() as w:
        x = torch.ones(3, 4)
        with pytest.raises(RuntimeError):
            x.view(5)
        assert w._context == [-1]
        x.t().contiguous()
    steps = [s for s in w.steps if s.extra.get("call") == "contiguous"]
    assert len(steps) == 1 and steps[0].kind == "copy" and steps[0].extra["asked"]


def test_the_compiled_call_refuses_a_wrong_state() -> None:
    with pytest.raises(TypeError):
        wt._native_call()((), None, (), {})
