"""``watch_torch``: the shape flow of PyTorch programs, forward and backward.

The backbone is a differential check: the copies the watch reports on a small GPT (forward and
backward) must equal, op for op and byte for byte, what an independent ``TorchDispatchMode``
written here counts. Then the planted bugs (a ``(B, 1) - (B,)`` broadcast, a ``view(B, h, T, d)``
head split) with their lines, exact reports on a known program, asked vs hidden copies, module
paths, backward lines, the table, PyTorch being optional, and misuse.
"""

from __future__ import annotations

import inspect
import os
import re
import subprocess
import sys

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs
from torch.utils._python_dispatch import TorchDispatchMode

import torch_gpt
from layout_strategies import specs
from strided.diagnose import watch_torch as wt
from strided.diagnose.dims import reshape_mapping
from strided.diagnose.watch_torch import TorchWatch, watch_torch
from strided.layout.reshape import torch_view_strides
from strided.refusals import ReshapeRefusal
from torch_gpt import GPT, batch, known_program
from view_oracle import new_shapes

GPT_FILE = "torch_gpt.py"


def line_of(marker: str) -> int:
    """The line number in torch_gpt.py of the comment ``# MARK: <marker>``."""
    lines = inspect.getsource(torch_gpt).splitlines()
    return next(i for i, text in enumerate(lines, 1) if text.rstrip().endswith(f"# MARK: {marker}"))


class CopyCounter(TorchDispatchMode):
    """An independent count of the materializing aten ops: (name, bytes) in the order they run.

    A copy moves existing data into new memory: clone, _to_copy, copy_, lift_fresh_copy,
    _reshape_copy, any other ``*_copy``; contiguous/resolve_conj/resolve_neg, and the composite
    reshape/flatten/ravel/reshape_as/to/type_as (seen whole under inference mode), when the
    result has its own storage. Bytes: the tensor written (copy_'s destination, else the result).
    """

    def __init__(self) -> None:
        super().__init__()
        self.copies: list[tuple[str, int]] = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        name = func.__name__.split(".")[0]
        written = None
        if name in ("clone", "_to_copy", "copy_", "copy", "lift_fresh_copy", "_reshape_copy") or \
                (name.endswith("_copy") and not name.endswith("_copy_")):
            written = args[0] if name == "copy_" else out
        elif name in ("contiguous", "resolve_conj", "resolve_neg", "reshape", "reshape_as", "flatten", "ravel",
                      "to", "type_as") and \
                out.untyped_storage().data_ptr() != args[0].untyped_storage().data_ptr():
            written = out
        if written is not None:
            self.copies.append((name, written.numel() * written.element_size()))
        return out


def run_gpt(**planted: bool) -> tuple[TorchWatch, CopyCounter]:
    torch.manual_seed(0)
    model = GPT(**planted)
    idx, targets = batch(model)
    with CopyCounter() as counter, watch_torch() as w:
        loss = model(idx, targets)
        loss.backward()
    return w, counter


@pytest.fixture(scope="module")
def planted() -> tuple[TorchWatch, CopyCounter]:
    return run_gpt(planted_view=True, planted_broadcast=True)


@pytest.fixture(scope="module")
def correct() -> tuple[TorchWatch, CopyCounter]:
    return run_gpt()


def base(name: str) -> str:
    """The aten name of a step name (a backward step reads ``clone [ViewBackward0]``)."""
    return name.split(" ")[0]


# ---------------------------------------------------------------------- the acceptance model


@pytest.mark.parametrize("which", ["planted", "correct"])
def test_gpt_copies_match_an_independent_count(which: str, request: pytest.FixtureRequest) -> None:
    w, counter = request.getfixturevalue(which)
    reported = [(base(c.name), c.nbytes) for c in w.copies]
    assert reported == counter.copies
    assert w.bytes_copied == sum(n for _, n in counter.copies)
    phases = {w.steps[c.step].extra["phase"] for c in w.copies}
    assert phases == {"forward", "backward"}  # both passes copy in this model


def test_gpt_planted_broadcast_is_bilateral_with_its_line(planted: tuple) -> None:
    w, _ = planted
    bilateral = [b for b in w.broadcasts if b.bilateral]
    assert len(bilateral) == 1
    b = bilateral[0]
    assert (b.name, b.shapes, b.result, b.stretched) == ("sub", ((2, 1), (2,)), (2, 2), ((1,), (0,)))
    assert b.where.endswith(f"{GPT_FILE}:{line_of('planted broadcast')}")
    assert "bilateral broadcast: sub((2, 1), (2,)) -> (2, 2)" in str(w)


def test_gpt_planted_view_is_a_regrouping_with_its_line(planted: tuple) -> None:
    w, _ = planted
    lines = {s.where.rsplit(":", 1)[1] for s in w.regroups}
    assert lines == {str(line_of("planted view"))}
    assert len(w.regroups) == 2  # one per layer
    assert [s.module for s in w.regroups] == ["h.0.attn", "h.1.attn"]
    assert all(s.mapping.describe() == "regroups input dims 1, 2 (8, 16) into output dims 1, 2, 3 (4, 8, 4)"
               for s in w.regroups)
    assert "regroups" in str(w)


def test_gpt_correct_split_and_merge_are_not_flagged(correct: tuple) -> None:
    w, _ = correct
    assert w.regroups == []
    assert not any(b.bilateral for b in w.broadcasts)
    # the user's split and merge were checked: a split and a merge at the marked lines
    split = [s for s in w.steps if s.mapping is not None and s.where.endswith(f":{line_of('head split')}")]
    merge = [s for s in w.steps if s.mapping is not None and s.where.endswith(f":{line_of('head merge')}")]
    assert [s.mapping.kind for s in split] == ["split", "split"]
    assert [s.mapping.kind for s in merge] == ["merge", "merge"]


def test_gpt_merge_copy_is_asked_in_its_module(correct: tuple) -> None:
    w, _ = correct
    merge_line = line_of("head merge")
    merges = [c for c in w.copies if c.where.endswith(f"{GPT_FILE}:{merge_line}")]
    assert [(c.name, c.nbytes, c.asked, c.module) for c in merges] == \
        [("clone", 1024, True, "h.0.attn"), ("clone", 1024, True, "h.1.attn")]
    assert merges[0].reason == "contiguous() on a non-contiguous tensor (2, 8, 4, 4) strides (128, 4, 32, 1)"
    # the matmul of q with k^T copies k^T behind the user's back
    hidden = [c for c in w.copies if not c.asked and w.steps[c.step].extra["phase"] == "forward"]
    assert hidden and all(c.reason.startswith("inside matmul(): ") for c in hidden)


def test_gpt_backward_ops_point_at_their_forward_lines(correct: tuple) -> None:
    w, _ = correct
    backward = [s for s in w.steps if s.extra["phase"] == "backward"]
    assert backward
    this_file = os.path.basename(__file__)
    # every backward op made by a forward node points into the model; the rest (AccumulateGrad)
    # at the .backward() call in this file
    for s in backward:
        expected = this_file if "[AccumulateGrad]" in s.name else GPT_FILE
        assert os.path.basename(s.where.rsplit(":", 1)[0]) == expected, s
    copies = [c for c in w.copies if "[" in c.name]
    assert copies and all(c.reason.startswith("backward of ") for c in copies)
    modules = {c.module for c in copies}
    assert modules <= {"h.0.attn", "h.1.attn", "h.0.attn.k", "h.1.attn.k", "h.0.attn.q", "h.1.attn.q",
                       "h.0.attn.v", "h.1.attn.v"}


def test_gpt_memory_is_counted(correct: tuple) -> None:
    w, _ = correct
    assert w.allocated_bytes == sum(s.bytes_allocated for s in w.steps)
    assert 0 < w.peak_bytes < w.allocated_bytes
    assert sum(1 for s in w.steps if s.kind == "alloc" and s.name == "embedding") == 2


# ---------------------------------------------------------------------- a known program, exactly


@pytest.fixture(scope="module")
def known() -> TorchWatch:
    with watch_torch() as w:
        known_program()
    return w


def test_known_program_copies(known: TorchWatch) -> None:
    assert [(c.name, c.nbytes, c.asked) for c in known.copies] == [
        ("clone", 4000, True), ("clone", 48, False), ("clone", 48, True), ("copy_", 12, True),
        ("clone", 480, False), ("_to_copy", 96, True)]
    assert known.bytes_copied == 4684
    reasons = [c.reason for c in known.copies]
    assert reasons == [
        "contiguous() on a non-contiguous tensor (100, 10) strides (1, 100)",
        "reshape of a non-contiguous input (3, 4) strides (1, 3) to (12,): "
        "stride[0] == size[1] * stride[1] = 4 * 3 = 12, but stride[0] is 1",
        "contiguous() on a non-contiguous tensor (4, 3) strides (0, 1); "
        "materializes an expanded tensor (stride 0 in dims (0,))",
        "t[...] = value writes (3,) into part of an existing tensor",
        "inside matmul(): clone makes (2, 3, 4, 5) strides (20, 40, 5, 1) contiguous",
        "dtype conversion float32 -> float64",
    ]


def test_known_program_memory(known: TorchWatch) -> None:
    # every storage made: a, b, c; x, y's copy, cat, ones(3), its copy, zeros(3); ones x2, q's copy,
    # the bmm; the double copy, ones(4, 1), the sum
    assert known.allocated_bytes == 4000 * 3 + 48 + 48 + 96 + 12 + 48 + 12 + 480 + 120 + 480 + 576 + 96 + 16 + 96
    # the peak: a is gone; in the matmul b, c, x, y, z, e are alive with both operands, q's
    # contiguous copy and the bmm result
    assert known.peak_bytes == 4000 + 4000 + 48 + 48 + 96 + 48 + 480 + 120 + 480 + 576
    kinds = [s.kind for s in known.steps]
    assert kinds.count("alloc") == 8 and kinds.count("copy") == 6 and kinds.count("compute") == 3


def test_known_program_steps_and_broadcast(known: TorchWatch) -> None:
    cat = next(s for s in known.steps if s.name == "cat")
    assert (cat.kind, cat.bytes_allocated, cat.bytes_copied) == ("alloc", 96, 0)
    [b] = known.broadcasts
    assert (b.name, b.shapes, b.stretched, b.bilateral) == ("add", ((4, 3), (4, 1)), ((), (1,)), False)
    assert known.regroups == []
    view = known.steps[-1]
    assert (view.name, view.kind, view.mapping.kind) == ("view", "view", "split")


def test_known_program_table_snapshot(known: TorchWatch) -> None:
    first = inspect.getsourcelines(known_program)[1]
    # (the step table moved to known.table() when print(w) got its summary; copy rows now carry
    # their category and reason, and the fix strided.explain gives)
    text = re.sub(r"torch_gpt\.py:(\d+)", lambda m: f"L+{int(m.group(1)) - first}", known.table())
    assert text == """\
watch_torch: 30 steps
#   op            kind     inputs               output        strides         bytes  marks  where
0   ones          alloc    -                    (1000,)       (1,)            4,000         L+2
1   mul           compute  (1000,)              (1000,)       (1,)            4,000         L+3
2   view          view     (1000,)              (10, 100)     (100, 1)                      L+5
3   t             view     (10, 100)            (100, 10)     (1, 100)                      L+5
4   clone         copy     (100, 10)            (100, 10)     (10, 1)         4,000  COPY   L+5
      layout copy: contiguous() on a non-contiguous tensor (100, 10) strides (1, 100)
5   ones          alloc    -                    (4, 3)        (3, 1)          48            L+6
6   t             view     (4, 3)               (3, 4)        (1, 3)                        L+7
7   clone         copy     (3, 4)               (3, 4)        (4, 1)          48     COPY   L+7
      layout copy: reshape of a non-contiguous input (3, 4) strides (1, 3) to (12,): stride[0] == size[1] * stride[1] = 4 * 3 = 12, but stride[0] is 1
      fix: x.permute(1, 0).view(-1)  (a view, 0 bytes; the same elements in memory order, not x's order (fine for a sum, a norm, an elementwise op))
8   _unsafe_view  view     (3, 4)               (12,)         (1,)                          L+7
9   cat           alloc    (4, 3) (4, 3)        (8, 3)        (3, 1)          96            L+8
10  ones          alloc    -                    (3,)          (1,)            12            L+9
11  expand        view     (3,)                 (4, 3)        (0, 1)                        L+9
12  clone         copy     (4, 3)               (4, 3)        (3, 1)          48     COPY   L+9
      layout copy: contiguous() on a non-contiguous tensor (4, 3) strides (0, 1); materializes an expanded tensor (stride 0 in dims (0,))
13  zeros         alloc    -                    (3,)          (1,)            12            L+10
14  select        view     (4, 3)               (3,)          (1,)                          L+10
15  copy_         copy     (3,) (3,)            (3,)          (1,)            12     COPY   L+10
      layout copy: t[...] = value writes (3,) into part of an existing tensor
16  ones          alloc    -                    (3, 2, 4, 5)  (40, 20, 5, 1)  480           L+11
17  transpose     view     (3, 2, 4, 5)         (2, 3, 4, 5)  (20, 40, 5, 1)                L+11
18  ones          alloc    -                    (5, 6)        (6, 1)          120           L+11
19  expand        view     (2, 3, 4, 5)         (2, 3, 4, 5)  (20, 40, 5, 1)                L+11
20  clone         copy     (2, 3, 4, 5)         (2, 3, 4, 5)  (60, 20, 5, 1)  480    COPY   L+11
      layout copy: inside matmul(): clone makes (2, 3, 4, 5) strides (20, 40, 5, 1) contiguous
21  _unsafe_view  view     (2, 3, 4, 5)         (6, 4, 5)     (20, 5, 1)                    L+11
22  expand        view     (5, 6)               (2, 3, 5, 6)  (0, 0, 6, 1)                  L+11
23  view          view     (2, 3, 5, 6)         (6, 5, 6)     (0, 6, 1)                     L+11
24  bmm           compute  (6, 4, 5) (6, 5, 6)  (6, 4, 6)     (24, 6, 1)      576           L+11
25  _unsafe_view  view     (6, 4, 6)            (2, 3, 4, 6)  (72, 24, 6, 1)                L+11
26  _to_copy      copy     (4, 3)               (4, 3)        (3, 1)          96     COPY   L+12
      layout copy: dtype conversion float32 -> float64
27  ones          alloc    -                    (4, 1)        (1, 1)          16            L+12
28  add           compute  (4, 3) (4, 1)        (4, 3)        (3, 1)          96            L+12
29  view          view     (4, 3)               (2, 2, 3)     (6, 3, 1)                     L+12
total: 6 copies, 4,684 bytes copied; 14,128 bytes allocated, peak 9,896; 0 bilateral broadcasts; \
0 regrouping reshapes"""


# ---------------------------------------------------------------------- fuzz: random layouts and ops


FUZZ_OPS = ("reshape", "reshape", "flatten", "contiguous", "clone", "transpose", "to64", "matmul", "add_row")


def fuzz_step(op: str, x: torch.Tensor, data: hs.DataObject) -> torch.Tensor:
    if op == "reshape":
        return x.reshape(data.draw(new_shapes(tuple(x.shape)), label="shape"))
    if op == "flatten":
        return x.flatten()
    if op == "contiguous":
        return x.contiguous()
    if op == "clone":
        return x.clone()
    if op == "transpose":
        return x.transpose(0, -1) if x.dim() else x
    if op == "to64":
        return x.to(torch.float64)
    if op == "matmul":
        return x @ torch.ones(x.shape[-1], 2, dtype=x.dtype) if x.dim() >= 1 else x
    return x + x.flatten()[:1].reshape((1,) * x.dim()) if x.numel() else x  # add_row: a broadcast


@settings(max_examples=150, deadline=None)
@given(spec=specs(max_dims=4), ops=hs.lists(hs.sampled_from(FUZZ_OPS), min_size=1, max_size=4), data=hs.data())
def test_fuzz_copies_match_the_count_and_reshapes_are_explained(spec, ops: list[str], data) -> None:
    """On hard layouts: every op's copies equal the independent count; a user's reshape copies
    exactly when torch's result has its own storage, its hidden copy names the stride equation
    that strided's layout algebra says fails, and its step carries the dim mapping."""
    x = torch.arange(spec.storage_size, dtype=torch.float32).as_strided(spec.shape, spec.strides, spec.offset)
    for op in ops:
        with CopyCounter() as counter, watch_torch() as w:
            try:
                y = fuzz_step(op, x, data)
            except RuntimeError:
                y = None
        assert [(base(c.name), c.nbytes) for c in w.copies] == counter.copies
        if y is None:
            continue
        if op == "reshape" and x.numel():
            owns = y.untyped_storage().data_ptr() != x.untyped_storage().data_ptr()
            assert bool(w.copies) == owns
            refusal = torch_view_strides(tuple(x.shape), tuple(x.stride()), tuple(y.shape))
            for c in w.copies:
                assert not c.asked and c.reason.startswith("reshape of a non-contiguous input")
                assert isinstance(refusal, ReshapeRefusal) and refusal.equation() in c.reason
            assert w.steps[-1].mapping == reshape_mapping(tuple(x.shape), tuple(y.shape))
        if op == "clone" or (op == "to64" and x.dtype != torch.float64) or (op == "contiguous" and w.copies):
            assert [c.asked for c in w.copies] == [True]
        if op == "contiguous":
            assert bool(w.copies) == (not x.is_contiguous())
        if op == "matmul":
            assert all(not c.asked and c.reason.startswith("inside matmul(): ") for c in w.copies)
        assert not any(b.bilateral for b in w.broadcasts)
        x = y


# ---------------------------------------------------------------------- smaller programs


def test_backward_copy_points_at_the_forward_line() -> None:
    x = torch.ones(4, 6, requires_grad=True)
    v = torch.ones(3, requires_grad=True)
    with watch_torch() as w:
        u = (x * 2).t().reshape(24)  # forward: a hidden copy; backward: a view back, a mul
        (u.sum() + v.sum()).backward()  # v's grad arrives expanded: AccumulateGrad copies it
    forward_line = inspect.currentframe().f_lineno - 2
    backward = [s for s in w.steps if s.name.endswith(("[UnsafeViewBackward0]", "[MulBackward0]", "[TBackward0]"))]
    assert len(backward) == 3 and all(s.where.endswith(f":{forward_line}") for s in backward)
    [hidden] = [c for c in w.copies if c.name == "clone"]
    assert (hidden.asked, hidden.nbytes) == (False, 96)
    assert hidden.where.endswith(f":{forward_line}")
    [accumulate] = [c for c in w.copies if c.name == "copy_ [AccumulateGrad]"]
    assert (accumulate.nbytes, accumulate.asked) == (12, False)
    assert accumulate.where.endswith(f":{forward_line + 1}")  # no forward op: the .backward() line
    assert accumulate.reason == ("AccumulateGrad copies the gradient (3,) strides (0,) into a new tensor "
                                 "laid out like its parameter; materializes an expanded tensor (stride 0 in dims (0,))")


def test_the_recorder_reads_tensors_with_no_torch_mode_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every op's record is made with both of torch's mode stacks empty and never re-enters the
    watch's own call recorder: the recorder's reads (``t.shape``, ``t.stride()``,
    ``t.untyped_storage()``, ...) are plain C reads, not calls through the watch's
    ``TorchFunctionMode`` (which would record them as the user's calls, and cost a Python call
    each). Forward ops run inside ``on_call`` (torch pops the function mode around its handler),
    backward ones inside ``.backward()``'s, a custom ``autograd.Function``'s backward and a
    tensor hook included."""
    seen: list[tuple[int, int]] = []
    nested: list[str] = []
    inside = [0]
    recorders = wt._recorders

    def spying(watch: TorchWatch) -> tuple:
        on_call, on_op = recorders(watch)

        def call(func, args, kwargs):  # noqa: ANN001, ANN202
            if inside[0]:
                nested.append(getattr(func, "__name__", repr(func)))
            return on_call(func, args, kwargs)

        def op(func, args, out):  # noqa: ANN001, ANN202
            seen.append((torch._C._len_torch_function_stack(), torch._C._len_torch_dispatch_stack()))
            inside[0] += 1
            try:
                return on_op(func, args, out)
            finally:
                inside[0] -= 1

        return call, op

    class Double(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):  # noqa: ANN001, ANN205
            return x * 2

        @staticmethod
        def backward(ctx, grad):  # noqa: ANN001, ANN205
            return grad.t().contiguous().t() * 2

    monkeypatch.setattr(wt, "_recorders", spying)
    torch.manual_seed(0)
    model = GPT(vocab=32, C=16, heads=4, T=8, layers=2)
    idx, targets = batch(model, B=2, T=8, vocab=32)
    x = torch.ones(3, 4, requires_grad=True)
    with watch_torch() as w:
        loss = model(idx, targets) + Double.apply(x).sum()
        x.register_hook(lambda g: g + 1)
        loss.backward()
    assert len(seen) == len(w.steps) > 300
    assert set(seen) == {(0, 0)}
    assert nested == []
    phases = {s.extra["phase"] for s in w.steps}
    assert phases == {"forward", "backward"}


def test_internal_reshapes_are_not_checked() -> None:
    with watch_torch() as w:
        torch.ones(2, 3, 4) @ torch.ones(4, 5)  # matmul folds (2, 3, 4) into (6, 4) internally
        torch.nn.functional.linear(torch.ones(2, 3, 4), torch.ones(5, 4))
    assert [s.name for s in w.steps if s.kind == "view"] and all(s.mapping is None for s in w.steps)


def test_module_paths() -> None:
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Sequential(torch.nn.ReLU(), torch.nn.Linear(4, 2)))
    with watch_torch() as w:
        model(torch.ones(5, 3))
    modules = [s.module for s in w.steps if s.kind == "compute"]
    assert modules == ["0", "1.0", "1.1"]
    with watch_torch() as w:
        torch.ones(2) + 1
    assert [s.module for s in w.steps] == ["", ""]


def test_asked_conversions() -> None:
    x = torch.ones(2, 3)
    with watch_torch() as w:
        x.to(torch.float64)
        x.clone()
        x.int()
        x.to(torch.float32)  # no copy: already float32
        x.contiguous()  # no copy: already contiguous
    assert [(c.name, c.nbytes, c.asked, c.reason) for c in w.copies] == [
        ("_to_copy", 48, True, "dtype conversion float32 -> float64"),
        ("clone", 24, True, "clone() of (2, 3) strides (3, 1)"),
        ("_to_copy", 24, True, "dtype conversion float32 -> int32"),
    ]


def test_conjugation_and_copy_variants() -> None:
    z = torch.ones(2, 3, dtype=torch.complex64)
    with watch_torch() as w:
        z.resolve_conj()  # nothing to resolve: no copy
        z.conj().resolve_conj()  # a lazy conjugation made real: a copy
        torch.permute_copy(z, (1, 0))  # a *_copy variant the user called
        z.real.clone()
    assert [(c.name, c.nbytes, c.asked) for c in w.copies] == [
        ("clone", 48, True), ("permute_copy", 48, True), ("clone", 24, True)]
    assert w.copies[1].reason == "permute_copy() copies (2, 3) strides (3, 1)"
    assert w.copies[2].reason == "clone() of (2, 3) strides (6, 2)"


def test_bilateral_broadcast_of_a_known_line() -> None:
    with watch_torch() as w:
        torch.ones(3, 1) - torch.ones(3)
        torch.ones(3, 4) * torch.ones(4)  # one-sided
        torch.ones(3) + 2  # a scalar: no broadcast
    line = inspect.currentframe().f_lineno - 3
    assert [(b.bilateral, b.where.endswith(f":{line + i}")) for i, b in enumerate(w.broadcasts)] == \
        [(True, True), (False, True)]
    assert "1 bilateral broadcasts" in str(w)


@pytest.mark.parametrize("mode", ["no_grad", "inference_mode"])
def test_without_autograd(mode: str) -> None:
    x = torch.ones(4, 3)
    with getattr(torch, mode)(), CopyCounter() as counter, watch_torch() as w:
        x.t().reshape(12)
        x.reshape(3, 4)  # a view
        x.t().flatten()
        x.to(torch.float64)
        x.to(torch.float32)  # no copy
    name = "reshape" if mode == "inference_mode" else "clone"  # inference mode sees composites whole
    flat = "flatten" if mode == "inference_mode" else "clone"
    assert [(c.name, c.nbytes, c.asked) for c in w.copies] == [
        (name, 48, False), (flat, 48, False), (w.copies[2].name, 96, True)]
    assert [(c.name, c.nbytes) for c in w.copies] == counter.copies
    assert w.copies[0].reason.startswith("reshape of a non-contiguous input (3, 4) strides (1, 3) to (12,): ")
    assert w.copies[2].reason == "dtype conversion float32 -> float64"


def test_nested_watches_see_their_own_ops() -> None:
    with watch_torch() as outer:
        torch.ones(2).t().contiguous()
        with watch_torch() as inner:
            torch.ones(3, 2).t().contiguous()
        torch.zeros(1)
    assert [s.name for s in inner.steps] == ["ones", "t", "clone"]
    assert [s.name for s in outer.steps] == ["ones", "t", "ones", "t", "clone", "zeros"]
    assert [c.nbytes for c in outer.copies] == [24] and [c.nbytes for c in inner.copies] == [24]


# ---------------------------------------------------------------------- misuse and cleanup


def test_entering_twice_is_a_value_error() -> None:
    w = watch_torch()
    with w:
        pass
    with pytest.raises(ValueError, match=r"entered only once; make a new watch_torch\(\) for each block"):
        with w:
            pass


def test_recording_an_op_leaves_no_object_for_the_garbage_collector() -> None:
    # Each object that outlives an op fills the collector's young generation, and the watched
    # program pays for the collections (at the small GPT, a third of the watch's own cost was
    # once collections). Views allocate nothing: recording 300 of them may leave no object
    # behind (the records are one flat list; each shape and strides tuple is kept once).
    import gc

    x = torch.ones(4, 3)
    with watch_torch() as w:
        x.t()  # (the first op's shape and strides tuples, kept from now on)
        enabled = gc.isenabled()
        gc.disable()
        try:
            before = gc.get_count()[0]
            for _ in range(300):
                x.t()
            grown = gc.get_count()[0] - before
        finally:
            if enabled:
                gc.enable()
    assert len(w.steps) == 301 and w.steps[-1].output.strides == (1, 3)
    assert grown < 30, f"{grown} new objects for 300 recorded views"


def test_an_exception_closes_cleanly_and_keeps_the_records() -> None:
    hooks = (dict(torch.nn.modules.module._global_forward_pre_hooks),
             dict(torch.nn.modules.module._global_forward_hooks))
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        with watch_torch() as w:
            torch.ones(4, 6).t().view(24)
    assert [s.name for s in w.steps] == ["ones", "t"]
    torch.ones(2) * 2  # after the block: not recorded, and no mode or hook left behind
    assert len(w.steps) == 2
    assert (dict(torch.nn.modules.module._global_forward_pre_hooks),
            dict(torch.nn.modules.module._global_forward_hooks)) == hooks
    assert not torch._C._is_torch_function_mode_enabled()


def test_user_code_is_what_torch_strided_and_stdlib_are_not() -> None:
    assert wt._is_library(torch.__file__)
    assert wt._is_library(os.__file__)
    assert wt._is_library(wt.__file__)
    assert not wt._is_library(__file__)
    site = os.path.join(os.path.dirname(os.__file__), "site-packages", "transformers", "model.py")
    assert not wt._is_library(site)  # a model library is the user's code


def test_no_torch_import_and_a_clear_error_without_torch() -> None:
    code = (
        "import sys\n"
        "import strided, strided.diagnose.watch_torch as wt\n"
        "assert 'torch' not in sys.modules, 'importing strided imported torch'\n"
        "sys.modules['torch'] = None\n"
        "try:\n"
        "    wt.watch_torch()\n"
        "except ImportError as e:\n"
        "    print(e)\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.strip() == ("watch_torch needs PyTorch, which is not installed here; "
                                  "install it with: pip install torch==2.13.0")
