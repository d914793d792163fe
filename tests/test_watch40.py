"""``watch_torch`` made cheaper per block and per module call (issue #23, session 40) must report
exactly what it did.

What changed: the line cache (``file:line`` per code object and instruction) is one per process,
not one per block, and starts over past ``_LINES_MAX`` entries; a ``MemoryTally`` makes its
callback (a bound method of itself: a reference cycle) only when it first counts a buffer, so a
watch nobody holds goes with its last reference, not at the garbage collector's next pass; the
compiled tally's timeline pairs are untracked by the collector when made; the module-call wrapper
keeps an inner module's path on the stack inline. Each is checked here on a GPT with a hidden copy,
a planted view and a planted broadcast, forward and backward: steps (name, kind, layouts, bytes,
line, module, reason), memory totals and timeline equal across blocks, with a fresh or a full line
cache, through the compiled recorder and the Python one.
"""

from __future__ import annotations

import gc
import pickle
import weakref
from typing import Any

import pytest
import torch

from strided.diagnose import watch_torch as wt
from strided.diagnose.flow import MemoryTally
from strided.diagnose.watch_torch import watch_torch
from torch_gpt import GPT, batch


def gpt_program(planted: bool = True) -> Any:
    """A GPT forward + backward, with a user's reshape that copies (a hidden copy)."""
    torch.manual_seed(0)
    model = GPT(vocab=16, C=8, heads=2, T=4, layers=2, planted_view=planted, planted_broadcast=planted)
    idx, targets = batch(model, B=2, T=4, vocab=16)

    def run() -> None:
        model.zero_grad(set_to_none=True)
        loss = model(idx, targets)
        flat = model.lm_head.weight.t().reshape(-1)  # a reshape that cannot be a view: a copy
        (loss + flat.sum() * 0).backward()

    return run


def report(w: wt.TorchWatch) -> tuple:
    """Everything the watch reports, as plain data."""
    steps = [(s.name, s.kind, s.inputs, s.output, s.bytes_copied, s.bytes_allocated, s.where, s.module,
              s.reason, s.category, dict(s.extra)) for s in w.steps]
    return (steps, w.allocated_bytes, w.peak_bytes, list(w.memory.timeline), w.bytes_copied,
            [(c.name, c.nbytes, c.asked, c.where, c.module) for c in w.copies],
            [(b.where, b.bilateral) for b in w.broadcasts], str(w.summary()))


def watched(program: Any) -> wt.TorchWatch:
    with watch_torch() as w:
        program()
    return w


def test_reports_equal_in_successive_blocks_fresh_cache_and_python_recorder(monkeypatch: pytest.MonkeyPatch) -> None:
    program = gpt_program()
    first = report(watched(program))
    second = report(watched(program))
    wt._LINES.clear()  # the process's line cache, started over
    fresh = report(watched(program))
    monkeypatch.setattr(wt, "_NATIVE_RECORD", [False])  # every op through the Python recorder
    python = report(watched(program))
    assert first == second == fresh == python
    steps = first[0]
    # what the guard covers: copies (the hidden reshape's among them), both phases, module paths, lines
    assert any(s[1] == "copy" and s[10].get("call") == "reshape" for s in steps)
    assert {s[10]["phase"] for s in steps} == {"forward", "backward"}
    assert {"h.0.attn", "h.1.mlp.0"} <= {s[7] for s in steps}
    assert all(s[6].startswith(__file__.rsplit(".", 1)[0].rsplit("/", 1)[0]) for s in steps if s[6])
    assert any(b[1] for b in first[6])  # the planted bilateral broadcast
    assert first[1] > 0 and first[2] > 0 and first[3]


def test_the_line_cache_starting_over_keeps_every_line(monkeypatch: pytest.MonkeyPatch) -> None:
    program = gpt_program()
    want = report(watched(program))
    monkeypatch.setattr(wt, "_LINES_MAX", 3)
    wt._LINES.clear()
    got = report(watched(program))
    assert got == want
    assert len(wt._LINES) <= 4  # (a line's two entries go in after a start over at 3)
    wt._LINES.clear()


def test_the_line_cache_is_shared_by_blocks() -> None:
    program = gpt_program()
    watched(program)
    size = len(wt._LINES)
    assert size > 0
    watched(program)
    assert len(wt._LINES) == size  # (the second block's lines were all found)


def test_a_dropped_watch_goes_with_its_last_reference() -> None:
    program = gpt_program()
    gc.collect()
    gc.disable()
    try:
        w = watched(program)
        assert w.allocated_bytes > 0
        ref = weakref.ref(w)
        del w
        assert ref() is None  # no reference cycle through the watch: freed without the collector
        tally = MemoryTally()
        tally_ref = weakref.ref(tally)
        del tally
        assert tally_ref() is None  # a tally that counted nothing holds no cycle
    finally:
        gc.enable()


class Owner:
    """A weakly referenceable stand-in for a buffer's owner."""


def test_the_python_tally_counts_and_uncounts_with_its_callback_made_late() -> None:
    clock = iter(range(100))
    tally = MemoryTally(lambda: next(clock))
    assert tally._on_collected is None
    a, b = Owner(), Owner()
    assert tally.allocated(a, 10) and tally.allocated(b, 5) and not tally.allocated(a, 10)
    assert (tally.allocated_bytes, tally.alive_bytes, tally.peak_bytes, tally.peak_step) == (15, 15, 15, 1)
    del a
    assert tally.alive_bytes == 5
    assert tally.timeline == [(0, 10), (1, 15), (2, 5)]
    copy = pickle.loads(pickle.dumps(tally))
    assert (copy.allocated_bytes, copy.alive_bytes, copy.timeline) == (15, 5, [(0, 10), (1, 15), (2, 5)])
    c = Owner()
    assert copy.allocated(c, 7)  # an unpickled tally still counts (without a clock)
    del c
    assert (copy.allocated_bytes, copy.alive_bytes) == (22, 5)
    del b
    assert tally.alive_bytes == 0 and tally.timeline[-1] == (3, 0)


def test_compiled_timeline_pairs_are_untracked_and_equal_the_python_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("strided.diagnose._watchrec")
    program = gpt_program(planted=False)
    # (a process's first block takes some Python paths while its caches fill -- its pairs are
    # tracked tuples, equal in value: run alone, this test would meet that block; one warm-up block)
    watched(program)
    native = watched(program)
    timeline = list(native.memory.timeline)  # (as the block left it: it grows as its storages die)
    assert timeline and all(type(p) is tuple and len(p) == 2 and not gc.is_tracked(p) for p in timeline)
    monkeypatch.setattr(wt, "_NATIVE_RECORD", [False])
    python = watched(program)
    assert list(python.memory.timeline) == timeline
    assert (python.allocated_bytes, python.peak_bytes) == (native.allocated_bytes, native.peak_bytes)


def test_nested_blocks_see_the_module_paths_of_a_lone_block() -> None:
    program = gpt_program()
    lone = watched(program)
    with watch_torch() as outer:
        with watch_torch() as inner:
            program()
    modules = [s.module for s in lone.steps]
    assert [s.module for s in inner.steps] == modules
    assert [s.module for s in outer.steps] == modules
    assert "h.1.attn" in modules and "GPT" in modules
    assert not outer._module_stack and not inner._module_stack


def test_a_module_raising_leaves_no_path_on_the_stack() -> None:
    class Boom(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            raise ValueError("boom")

    class Outer(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.inner = Boom()

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            try:
                self.inner(x)
            except ValueError:
                pass
            return x * 2

    model, x = Outer(), torch.ones(3)
    with watch_torch() as w:
        model(x)
        assert w._module_stack == []
    assert [s.module for s in w.steps] == ["Outer"]
