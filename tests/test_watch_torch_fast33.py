"""``watch_torch``'s recorder, made cheaper per op (issue #23), must keep every record exactly.

The recorder's fast path (per-op facts read once per op overload, the op run through its
``OpOverload._op``, the engine's own backward ops told at their first frame) is checked field by
field against a slow reference recorder written here: an outer ``TorchDispatchMode`` that sees
each op the watch sees (the watch's handler runs the op, which torch hands on to the next mode)
and reads everything the plain, careful way. Every raw field of every record is compared: the
op, the autograd node's number and class, the kind, bytes copied and allocated, the autograd
counter after the op, the inputs and outputs (shape, strides, dtype) — on a GPT forward +
backward, on odd layouts (expanded, transposed, 0-d, zero-size, list and keyword operands), and
on two threads each recording its own block at once.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

import pytest
import torch
from torch.utils._python_dispatch import TorchDispatchMode, _pop_mode_temporarily

from strided.diagnose import watch_torch as wt
from strided.diagnose.torch_ops import op_info
from strided.diagnose.watch_torch import watch_torch
from torch_gpt import GPT, batch


class Reference(TorchDispatchMode):
    """The records the watch should keep, read the slow way (entered outside the watch)."""

    def __init__(self) -> None:
        super().__init__()
        self.records: list[tuple] = []
        self._alive: dict[int, weakref.ref] = {}  # id(storage) -> its reference, while it lives

    def _new(self, storage: Any) -> bool:
        key = id(storage)
        if key in self._alive:
            return False
        self._alive[key] = weakref.ref(storage, lambda _, key=key: self._alive.pop(key, None))
        return True

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # noqa: ANN001, ANN204
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        info = op_info(func)
        ins = []
        for a in (*args, *(v for k, v in kwargs.items() if k != "out")):
            if isinstance(a, torch.Tensor):
                ins.append(a)
            elif info.lists and isinstance(a, (list, tuple)):
                ins.extend(x for x in a if isinstance(x, torch.Tensor))
        outs = [out] if isinstance(out, torch.Tensor) else \
            [t for t in out if isinstance(t, torch.Tensor)] if isinstance(out, (list, tuple)) else []
        kind = info.kind
        if kind == "maybe_copy":
            same = bool(outs) and bool(ins) and outs[0].untyped_storage().data_ptr() == \
                ins[0].untyped_storage().data_ptr() and outs[0].untyped_storage() is ins[0].untyped_storage()
            kind = "view" if same else "copy"
        allocates = kind not in ("view", "write") and info.name != "copy_"
        copied = 0
        if kind == "copy":
            target = (outs[0] if outs else None) if allocates else ins[0]
            copied = target.numel() * target.element_size() if target is not None else 0
        allocated = 0
        if allocates:
            for t in outs:
                storage = t.untyped_storage()
                if storage.nbytes() and storage.device.type != "meta" and self._new(storage):
                    allocated += storage.nbytes()
        node = torch._C._current_autograd_node()
        metas = []
        for t in (*ins, *outs):
            metas.append((tuple(t.shape), tuple(t.stride()), t.dtype))
        self.records.append((id(func), -1 if node is None else node._sequence_nr(),
                             "" if node is None else type(node).__name__, kind, copied, allocated,
                             torch._C._autograd._get_sequence_nr(), len(ins), tuple(metas)))
        return out


def raw_records(w: wt.TorchWatch) -> list[tuple]:
    """The watch's raw records, in the reference's form (the user's call and line left out:
    those are checked through the steps, against the other watch_torch tests' expectations)."""
    rows = []
    for i in range(len(w._records)):
        key, _call, node_seq, node_name, kind, copied, allocated, _where, peek, n_in, *tensors = w._records[i]
        metas = tuple(tuple(tensors[j:j + 3]) for j in range(0, len(tensors), 3))
        rows.append((key, node_seq, node_name, kind, copied, allocated, peek, n_in, metas))
    return rows


def watched(program: Any) -> tuple[wt.TorchWatch, Reference]:
    with Reference() as ref, watch_torch() as w:
        program()
    return w, ref


def gpt_program(seed: int = 0, **cfg: int) -> Any:
    torch.manual_seed(seed)
    model = GPT(**cfg) if cfg else GPT()
    B = 2
    idx, targets = batch(model, B=B, T=model.wpe.num_embeddings, vocab=model.wte.num_embeddings, seed=seed)

    def run() -> None:
        model.zero_grad(set_to_none=True)
        model(idx, targets).backward()

    return run


def test_gpt_forward_backward_records_equal_the_slow_reference() -> None:
    w, ref = watched(gpt_program())
    rows = raw_records(w)
    assert len(rows) == len(ref.records) > 300
    for i, (got, want) in enumerate(zip(rows, ref.records)):
        assert got == want, f"record {i}: {w.steps[i].name}"
    # both passes, every kind this model has, and the node numbers point into the block
    assert {s.extra["phase"] for s in w.steps} == {"forward", "backward"}
    assert {s.kind for s in w.steps} >= {"view", "copy", "compute", "alloc"}
    assert all(r[1] >= w._seq_start for r in rows if r[2])


def test_a_second_block_records_the_same_as_the_first() -> None:
    """Per-op facts cached across blocks (by op overload) give the same records as the first
    block, which made them."""
    program = gpt_program(seed=1, vocab=16, C=8, heads=2, T=4, layers=1)
    first, ref1 = watched(program)
    second, ref2 = watched(program)
    assert raw_records(first) == ref1.records and raw_records(second) == ref2.records
    assert [(s.name, s.kind, s.inputs, s.output, s.bytes_copied, s.bytes_allocated, s.where, s.module)
            for s in first.steps] == \
           [(s.name, s.kind, s.inputs, s.output, s.bytes_copied, s.bytes_allocated, s.where, s.module)
            for s in second.steps]


LAYOUTS = {
    "expanded": lambda: torch.ones(3, 1).expand(3, 4),
    "transposed": lambda: torch.arange(12.0).reshape(3, 4).t(),
    "zero-d": lambda: torch.tensor(2.5),
    "zero-size": lambda: torch.ones(0, 3),
    "sliced": lambda: torch.arange(20.0).reshape(4, 5)[1:, ::2],
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_odd_layouts_record_equal_the_slow_reference(layout: str) -> None:
    def program() -> None:
        x = LAYOUTS[layout]().requires_grad_()
        y = (x * 2).contiguous()
        z = torch.stack([y, y])  # a list operand
        torch.add(z, z, alpha=2)
        torch.nn.functional.layer_norm(z, z.shape[-1:])  # (zero-size: a norm of nothing)
        (z.sum() + y.float().mean()).backward()
        x.grad.clone()

    w, ref = watched(program)
    assert raw_records(w) == ref.records
    assert len(ref.records) > 5


def test_keyword_operands_and_copies_between_dtypes_equal_the_reference() -> None:
    def program() -> None:
        x = torch.ones(4, 3, dtype=torch.float64)
        x.to(torch.float32).t().reshape(12)
        torch.where(x > 0, x, torch.zeros(()))
        torch.nn.functional.scaled_dot_product_attention(torch.ones(1, 2, 3), torch.ones(1, 2, 3),
                                                        torch.ones(1, 2, 3), attn_mask=torch.ones(2, 2).bool())

    w, ref = watched(program)
    assert raw_records(w) == ref.records
    assert any(r[3] == "copy" for r in ref.records)


def test_two_threads_each_recording_their_own_block_equal_their_references() -> None:
    """Each thread's block sees only its thread's ops, each record whole and equal to that
    thread's reference, while the other thread records at the same time."""
    import sys

    results: dict[int, tuple] = {}
    errors: list[BaseException] = []
    start = threading.Barrier(2)

    def work(seed: int) -> None:
        try:
            program = gpt_program(seed=seed, vocab=16, C=8, heads=2, T=4, layers=1 + seed)
            start.wait(10)
            for _ in range(3):
                results[seed] = watched(program)
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=work, args=(seed,)) for seed in (0, 1)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
    finally:
        sys.setswitchinterval(switch)
    assert errors == []
    lengths = []
    for seed in (0, 1):
        w, ref = results[seed]
        assert raw_records(w) == ref.records
        lengths.append(len(ref.records))
    assert lengths[0] < lengths[1]  # (two layers record more than one: the threads' ops stayed apart)


def test_the_op_is_run_through_its_overload_as_its_call_would() -> None:
    """The handler runs an ``OpOverload`` through its ``_op`` (what its ``__call__`` does), and
    anything else by calling it: a subclass may override ``__call__``."""
    calls: list[str] = []

    class Overload(torch._ops.OpOverload):
        def __call__(self, /, *args, **kwargs):  # noqa: ANN002, ANN003, ANN204
            calls.append("subclass")
            return super().__call__(*args, **kwargs)

    add = torch.ops.aten.add.Tensor
    sub = Overload.__new__(Overload)
    sub.__dict__.update(add.__dict__)
    a = torch.ones(2)
    with watch_torch() as w, _pop_mode_temporarily() as mode:  # (as torch calls the handler)
        out = mode.__torch_dispatch__(sub, (), (a, a))
        plain = mode.__torch_dispatch__(add, (), (a, a))
    assert calls == ["subclass"]
    assert out.tolist() == plain.tolist() == [2.0, 2.0]
    assert [s.name for s in w.steps] == ["add", "add"]


def test_per_op_facts_say_collective_only_for_collectives() -> None:
    facts = wt._op_entry(torch.ops.aten.add.Tensor)
    assert facts[1:] == (False, "compute", True, False)
    assert facts[0] is op_info(torch.ops.aten.add.Tensor)
    reduce = torch.ops._c10d_functional.all_reduce.default
    assert wt._op_entry(reduce)[4] is True
    assert wt._op_entry(torch.ops.aten.view.default)[1:] == (False, "view", False, False)


def test_an_op_named_like_a_collective_outside_their_namespaces_is_not_one() -> None:
    lib = torch.library.Library("wop33_fast", "DEF")
    lib.define("all_reduce(Tensor x) -> Tensor")
    lib.impl("all_reduce", lambda x: x.clone(), "CompositeExplicitAutograd")
    op = torch.ops.wop33_fast.all_reduce.default
    assert op_info(op).name == "all_reduce" and wt._op_entry(op)[4] is False
    with watch_torch() as w:
        op(torch.ones(2))
    assert [s.kind for s in w.steps] != ["collective"]
