"""``watch_torch``'s compiled per-op recorder (``_watchrec.record``) keeps exactly the records of
the Python one.

Each program runs twice in fresh blocks, once with the compiled recorder (the default where the
extension is built) and once with the Python closure alone (``_NATIVE_RECORD`` off), and
everything the watch keeps is compared field by field: every raw field of every record (the
op, the user's call and line, the autograd node's number and class, kind, bytes copied and
allocated, the counter after the op, each tensor's shape, strides and dtype), the user's calls,
the reshape targets, the memory tally (allocated, peak, the step of the peak, the timeline),
and the built steps (names, kinds, reasons, lines, module paths, extras) and the printed report.
The programs cover what the compiled path records itself (a GPT forward + backward, odd
layouts, list and multi-output ops, in-place writes, ops outside any user's call, backward ops
run by user code, composite ops under inference mode, meta tensors) and what it hands back to
the Python recorder (a sparse tensor, a storage-less wrapper), which must not change either.
"""

from __future__ import annotations

import sys
from typing import Any

import pytest
import torch

from strided.diagnose import watch_torch as wt
from strided.diagnose.watch_torch import watch_torch
from torch_gpt import GPT, batch

pytestmark = pytest.mark.skipif(wt._native_record() is None, reason="the _watchrec extension is not built")


def everything(w: wt.TorchWatch) -> dict[str, Any]:
    """All the watch kept, as plain data (steps as their fields, the tally as its numbers)."""
    records = [w._records[i] for i in range(len(w._records))]
    steps = [(s.index, s.name, s.kind, s.inputs, s.output, s.where, s.module, s.bytes_copied, s.bytes_allocated,
              s.reason, s.category, dict(s.extra), s.mapping, repr(s.broadcast)) for s in w.steps]
    m = w.memory
    return {"records": records, "seq_start": w._seq_start, "starts": list(w._records.starts), "calls": list(w._calls),
            "targets": dict(w._targets), "reshapes": dict(w._reshapes), "devices": dict(w._devices),
            "memory": (m.allocated_bytes, m.alive_bytes, m.peak_bytes, m.peak_step, list(m.timeline)),
            "steps": steps, "text": str(w), "summary": repr(w.summary())}


def both(program: Any, monkeypatch: pytest.MonkeyPatch) -> tuple[dict, dict, int]:
    """``program``'s watch with the compiled recorder and with the Python one, and how many ops the
    compiled one handed to the Python closure (its ``on_op`` frames)."""
    declined = [0]

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code.co_name == "on_op" and frame.f_code.co_filename == wt.__file__:
            declined[0] += 1

    with watch_torch():
        program()  # (the ops' facts read once, as any first block does: the compiled recorder declines ops new to it)
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
        got[native] = everything(w)
    return got[True], got[False], declined[0]


def assert_same(fast: dict, slow: dict) -> None:
    assert len(fast["records"]) == len(slow["records"]) > 0
    for i, (a, b) in enumerate(zip(fast["records"], slow["records"])):
        a, b = relative(a, fast["seq_start"]), relative(b, slow["seq_start"])
        assert a == b, f"record {i}"
        assert [type(x) for x in a] == [type(x) for x in b], f"record {i}'s field types"
    for name in slow:
        if name not in ("records", "seq_start"):
            assert fast[name] == slow[name], name


def relative(record: tuple, seq_start: int) -> tuple:
    """A raw record with its autograd numbers (node, counter) counted from the block's start:
    the counter is the process's, further on in the second block. (An AccumulateGrad node's
    number is counted down from 2**64 - 1 per node made in the process: kept as "high".)"""
    node_seq = record[2] if record[2] < 0 else "high" if record[2] >= 1 << 63 else record[2] - seq_start
    return (*record[:2], node_seq, *record[3:8], record[8] - seq_start, *record[9:])


def gpt_program(layers: int = 2) -> Any:
    torch.manual_seed(0)
    model = GPT(vocab=32, C=16, heads=2, T=8, layers=layers)
    idx, targets = batch(model, B=2, T=8, vocab=32)

    def run() -> None:
        model.zero_grad(set_to_none=True)
        model(idx, targets).backward()
        with torch.no_grad():
            model(idx, targets)

    return run


def test_gpt_forward_backward_same_records_all_recorded_in_c(monkeypatch: pytest.MonkeyPatch) -> None:
    fast, slow, declined = both(gpt_program(), monkeypatch)
    assert_same(fast, slow)
    assert len(fast["records"]) > 300
    assert declined == 0  # (every op of a plain CPU model: none handed back)
    assert {s[11]["phase"] for s in fast["steps"]} == {"forward", "backward"}
    assert fast["memory"][0] > 0 and fast["memory"][2] > 0


class Double(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
        return x * 2

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> torch.Tensor:
        return grad.t().contiguous().t() * 2  # (user code in the backward: its own lines)


PROGRAMS = {
    "expanded": lambda: (torch.ones(3, 1).expand(3, 4) * 2).contiguous(),
    "transposed reshape copy": lambda: torch.arange(12.0).reshape(3, 4).t().reshape(12),
    "zero-d and zero-size": lambda: (torch.tensor(2.5) + torch.ones(0, 3), torch.ones(0, 3).sum(0)),
    "sliced": lambda: torch.arange(20.0).reshape(4, 5)[1:, ::2].clone(),
    "lists and several outputs": lambda: (torch.cat([torch.ones(2, 3), torch.zeros(1, 3)]),
                                         torch.ones(4, 3).max(1), torch.ones(6).split(2),
                                         torch.stack((torch.ones(2), torch.ones(2)))),
    "in place and out=": lambda: (torch.ones(3).add_(1), torch.add(torch.ones(3), 1, out=torch.empty(3)),
                                  torch.ones(4, 4)[1:3].copy_(torch.zeros(2, 4))),
    "dtype conversions": lambda: (torch.ones(4, 3, dtype=torch.float64).to(torch.float32).t().reshape(12),
                                  torch.ones(3).half().float(), torch.ones(2, 2).type_as(torch.ones(1, dtype=torch.int32))),
    "setitem": lambda: torch.zeros(4, 4).__setitem__((slice(None), 1), torch.ones(4)),
    "meta": lambda: (torch.ones(3, 4, device="meta") * 2).t().contiguous(),
    "keywords": lambda: torch.nn.functional.scaled_dot_product_attention(
        torch.ones(1, 2, 3), torch.ones(1, 2, 3), torch.ones(1, 2, 3), attn_mask=torch.ones(2, 2).bool()),
}


def autograd_program() -> None:
    x = torch.arange(6.0).reshape(2, 3).requires_grad_()
    y = Double.apply(x)
    y.register_hook(lambda g: g + 1)
    z = y.t().reshape(6)
    z[1:3] = 0.0  # (an in-place write into a view: a CopySlices node)
    (z * z).sum().backward()
    x.grad.clone()


def inference_program() -> None:
    with torch.inference_mode():
        x = torch.arange(12.0).reshape(3, 4)
        x.t().reshape(12)  # (whole composites: reshape a maybe_copy that copies)
        x.reshape(4, 3)  # (... and one that is a view)
        x.flatten().contiguous()
        torch.matmul(x, x.t())


def outside_calls_program() -> None:
    # ops run outside any user's Python call: inside a silent call's function (no call of their own)
    x = torch.ones(3, 4)
    _ = x.mT.real  # (a property's op: its __get__ is a silent call)
    with torch._C.DisableTorchFunction():
        torch.mul(x, x)
        x.t().contiguous()


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_odd_programs_same_records(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    fast, slow, declined = both(PROGRAMS[name], monkeypatch)
    assert_same(fast, slow)
    assert declined == 0


@pytest.mark.parametrize("program", [autograd_program, inference_program, outside_calls_program],
                         ids=["autograd", "inference", "outside calls"])
def test_autograd_inference_and_outside_calls_same_records(program: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    fast, slow, declined = both(program, monkeypatch)
    assert_same(fast, slow)
    assert declined == 0
    if program is autograd_program:
        wheres = {s[5] for s in fast["steps"] if s[11]["phase"] == "backward"}
        assert len(wheres) > 1  # (backward ops at their forward lines and at the user's backward code)
    if program is inference_program:
        assert {s[2] for s in fast["steps"]} >= {"view", "copy"}
    if program is outside_calls_program:
        assert any(r[1] == -1 and r[3] == "" and r[7] for r in fast["records"])  # (a forward op with its line)


def sparse_program() -> None:
    i = torch.tensor([[0, 1], [1, 0]])
    s = torch.sparse_coo_tensor(i, torch.ones(2), (2, 2))
    (s * 2).to_dense() + torch.ones(2, 2)
    s.coalesce()


def test_what_the_c_recorder_hands_back_is_recorded_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    """Sparse tensors (no strides, a storage torch refuses) go to the Python recorder's careful
    path: the same records, and only those ops handed back."""
    fast, slow, declined = both(sparse_program, monkeypatch)
    assert_same(fast, slow)
    assert 0 < declined < len(fast["records"])
    assert any(() in r[10:] for r in fast["records"])  # (a tensor recorded with no strides)


def test_the_compiled_recorder_refuses_a_wrong_state() -> None:
    record = wt._native_record()
    with pytest.raises(TypeError):
        record((), None, (), None)
