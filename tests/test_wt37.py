"""``watch_torch`` with the compiled per-op recorder keeps what the Python recorder keeps, on random
programs: odd layouts (permuted, sliced with steps, expanded, zero-size, 0-d), reshapes that copy
and that view, list and multi-output ops, in-place writes into views, and a backward through
them, run inside nested modules (so module paths are compared too).

Each program runs in two fresh blocks, compiled recorder on and off (``_NATIVE_RECORD``), and
every raw record field, call, reshape target, the memory tally (allocated, peak, its step, the
timeline), every built step and the printed report must match (``test_wtc36.both``).
"""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import example, given, settings
from hypothesis import strategies as st

from strided.diagnose import watch_torch as wt
from test_wtc36 import assert_same, both

pytestmark = pytest.mark.skipif(wt._native_record() is None, reason="the _watchrec extension is not built")


class Inner(torch.nn.Module):
    def __init__(self, steps: list[str], sl: slice) -> None:
        super().__init__()
        self.steps, self.sl = steps, sl

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for step in self.steps:
            if step == "permute":
                x = x.permute(tuple(reversed(range(x.dim()))))  # (any rank: reversed)
            elif step == "slice" and x.dim():
                x = x[self.sl]
            elif step == "expand":
                x = x[:1].expand(3, *x.shape[1:]) if x.dim() and x.shape[0] else x.expand(3) if not x.dim() else x
            elif step == "reshape":
                x = x.reshape(-1)
            elif step == "contiguous":
                x = x.contiguous()
            elif step == "add":
                x = x + x.sum()
            elif step == "cat":
                x = torch.cat([x, x.flip(0)]) if x.dim() else x * 2
            elif step == "topk":
                x = x.reshape(-1).topk(min(2, x.numel()))[0] if x.numel() else x * 3
            elif step == "write":
                y = x.clone()
                if y.dim() and y.shape[0]:
                    y[:1] = 0.5  # (an in-place write into a view: a CopySlices node in the backward)
                x = y
        return x


class Outer(torch.nn.Module):
    def __init__(self, inner: Inner) -> None:
        super().__init__()
        self.inner = inner

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.inner(x * 1.5)


STEPS = st.lists(st.sampled_from(["permute", "slice", "expand", "reshape", "contiguous", "add", "cat", "topk",
                                  "write"]), max_size=6)


@settings(max_examples=25, deadline=None)
@given(shape=st.sampled_from([(), (0, 3, 2), (2, 3, 4), (4, 1, 5), (3, 5, 2)]), steps=STEPS,
       backward=st.booleans(), step_size=st.integers(1, 2))
@example(shape=(0, 3, 2), steps=["write"], backward=False, step_size=1)  # (a copy that allocates nothing)
def test_random_programs_same_records(shape: tuple[int, ...], steps: list[str], backward: bool,
                                      step_size: int) -> None:
    model = Outer(Inner(steps, slice(None, None, step_size)))
    base = torch.arange(float(max(1, torch.Size(shape).numel()))).reshape(-1)[:torch.Size(shape).numel()]

    def program() -> Any:
        x = base.reshape(shape).clone().requires_grad_(backward)
        y = model(x)
        if backward:
            y.sum().backward()
        return y

    with pytest.MonkeyPatch.context() as monkeypatch:
        fast, slow, declined = both(program, monkeypatch)
    assert_same(fast, slow)
    assert declined == 0
    modules = {s[6] for s in fast["steps"]}
    assert "Outer" in modules  # (the outer module names the paths)
    # (a copy of a zero-size input allocates nothing: shape (0, 3, 2) with a copying step)
    if torch.Size(shape).numel() and any(s[2] == "copy" for s in fast["steps"]
                                         if s[11]["phase"] == "forward" and s[6] == "inner"):
        assert fast["memory"][0] > 0


def test_floors_leave_no_mode_or_wrapper_behind(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    """``bench_watch_torch --floors`` enters and leaves modes and the module-path wrapper around
    each pass: afterwards ``nn.Module.__call__`` is torch's own, no mode is left on, and a watch
    records what one made before the table did."""
    from torch.overrides import _get_current_function_mode
    from torch.utils._python_dispatch import _get_current_dispatch_mode

    from test_wt36 import _facts, bench_watch_torch  # (it puts bench/ on the path)
    from torch_gpt import GPT, batch

    cfg = dict(vocab=32, C=16, heads=4, T=8, layers=2)
    monkeypatch.setattr(bench_watch_torch, "SMALL", dict(cfg, B=2))
    threads = torch.get_num_threads()
    call = torch.nn.Module.__call__
    torch.manual_seed(0)
    model = GPT(**cfg)
    idx, targets = batch(model, B=2, T=8, vocab=32)
    before = _facts(model, idx, targets)
    try:
        bench_watch_torch.floors(quick=True)
    finally:
        torch.set_num_threads(threads)
    out = capsys.readouterr().out
    assert "fn mode" in out and "+ paths" in out and "fwd+bwd" in out
    assert torch.nn.Module.__call__ is call
    assert _get_current_function_mode() is None and _get_current_dispatch_mode() is None
    assert _facts(model, idx, targets) == before
