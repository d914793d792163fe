"""``bench/bench_watch_torch.py --split``: its partial watches put the recorder back as it was.

The split's rows patch ``watch_torch``'s recorder, its per-op facts and the memory tally for the
time of a block; a watch made after the split must record exactly what one made before it does
(the same steps, bytes and memory numbers), or every later measurement and report in the process
would be wrong.
"""

from __future__ import annotations

import os
import sys

import pytest

torch = pytest.importorskip("torch")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))

import bench_watch_torch  # noqa: E402
import strided.diagnose.watch_torch as wt  # noqa: E402
from strided.diagnose.flow import MemoryTally  # noqa: E402
from strided.diagnose.watch_torch import watch_torch  # noqa: E402
from torch_gpt import GPT, batch  # noqa: E402


def _facts(model: GPT, idx: torch.Tensor, targets: torch.Tensor) -> tuple:
    with watch_torch() as w:
        model.zero_grad(set_to_none=True)
        model(idx, targets).backward()
    steps = tuple((s.name, s.kind, s.bytes_copied, s.bytes_allocated, s.module, s.where) for s in w.steps)
    return steps, w.memory.allocated_bytes, w.memory.peak_bytes, w.memory.peak_step


def test_split_restores_the_recorder(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    cfg = dict(vocab=32, C=16, heads=4, T=8, layers=2)
    monkeypatch.setattr(bench_watch_torch, "SMALL", dict(cfg, B=2))
    threads = torch.get_num_threads()
    torch.manual_seed(0)
    model = GPT(**cfg)
    idx, targets = batch(model, B=2, T=8, vocab=32)
    before = _facts(model, idx, targets)
    recorders, entry, allocated = wt._recorders, wt._op_entry, MemoryTally.allocated
    try:
        bench_watch_torch.split(quick=True)
    finally:
        torch.set_num_threads(threads)
    out = capsys.readouterr().out
    assert "- storages" in out and "- tally" in out and "fwd+bwd" in out
    assert (wt._recorders, wt._op_entry, MemoryTally.allocated) == (recorders, entry, allocated)
    after = _facts(model, idx, targets)
    assert after == before
    assert before[1] > 0 and before[2] > 0  # (the tally counted: a wrong restore would show here)
