"""``watch_torch``'s compiled per-tensor reads (``strided.diagnose._watchrec.layouts``) must append
exactly what the recorder's Python loop appends, which stays as the fallback where the extension is
not built: every record of a watch is compared field by field with the extension and without it
(the same programs in one process: the op keys match), and ``layouts`` itself against a Python
reference of the loop on odd tensors (expanded, transposed, 0-d, zero-size, a ``Parameter``,
sparse COO, symbolic sizes), including what it raises and what it leaves appended before raising.
"""

from __future__ import annotations

from typing import Any

import pytest
import torch

from strided.diagnose import watch_torch as wt
from strided.diagnose.watch_torch import watch_torch
from torch_gpt import GPT, batch

native = pytest.importorskip("strided.diagnose._watchrec")


def python_layouts(fields: list, tensors: tuple, tuples: dict, strided: Any) -> None:
    """The recorder's Python loop (``on_op``), as the reference."""
    for t in tensors:
        shape = t.shape
        strides = t.stride()
        if strides and not strides[-1] and t.layout is not strided:
            raise RuntimeError("no strides")
        try:
            kept = tuples.get(shape)
            if kept is None:
                kept = tuple(shape)
                tuples[kept] = kept
            strides = tuples.setdefault(strides, strides)
        except TypeError:
            kept = tuple(shape)
        fields.extend((kept, strides, t.dtype))


def both(tensors: tuple, tuples: dict | None = None) -> tuple[Any, Any]:
    """(fields, tuples, error) of the C function and of the reference, from equal starting dicts."""
    results = []
    for f in (native.layouts, python_layouts):
        fields: list = ["header"]
        kept = dict(tuples or {})
        try:
            f(fields, tensors, kept, torch.strided)
            error = None
        except Exception as exc:  # noqa: BLE001
            error = (type(exc), str(exc))
        results.append((fields, kept, error))
    return results[0], results[1]


ODD = {
    "expanded": lambda: torch.ones(3, 1).expand(3, 4),
    "expanded-last-stride-0-dense": lambda: torch.ones(3).expand(2, 3).t(),
    "transposed": lambda: torch.arange(12.0).reshape(3, 4).t(),
    "zero-d": lambda: torch.tensor(2.5),
    "zero-size": lambda: torch.ones(0, 3),
    "sliced-int": lambda: torch.arange(40).reshape(4, 10)[1:, ::3],
    "parameter": lambda: torch.nn.Parameter(torch.ones(2, 5)),
    "bool-channels-last": lambda: torch.ones(2, 3, 4, 5, dtype=torch.bool).to(memory_format=torch.channels_last),
}


@pytest.mark.parametrize("name", sorted(ODD))
def test_layouts_equal_the_python_loop(name: str) -> None:
    t = ODD[name]()
    other = torch.ones(4, 3)
    got, want = both((t, other, t))
    assert got == want
    fields, tuples, error = got
    assert error is None and len(fields) == 1 + 9
    assert fields[1] == tuple(t.shape) and type(fields[1]) is tuple and fields[2] == t.stride()
    assert fields[3] is t.dtype
    # each distinct shape and strides tuple kept once: the repeated tensor's are the same objects
    assert fields[7] is fields[1] and fields[8] is fields[2]
    assert all(tuples[k] is k for k in tuples)


def test_layouts_reuse_the_tuples_already_kept() -> None:
    t = torch.ones(2, 3)
    shape, strides = (2, 3), (3, 1)
    got, want = both((t,), {shape: shape, strides: strides})
    assert got == want
    assert got[0][1] is not None and got[0][1] == shape
    (fields, _, _), (ref_fields, _, _) = got, want
    assert fields[1] == ref_fields[1] == shape and fields[2] == strides


def test_a_sparse_tensor_raises_no_strides_after_the_earlier_tensors() -> None:
    dense = torch.ones(2, 2)
    sparse = torch.eye(3).to_sparse()
    got, want = both((dense, sparse, dense))
    assert got == want
    fields, _, error = got
    assert error == (RuntimeError, "no strides")
    assert fields == ["header", (2, 2), (2, 1), torch.float32]  # (the recorder drops these, then reads carefully)


def test_an_empty_tuple_appends_nothing() -> None:
    got, want = both(())
    assert got == want == (["header"], {}, None)


def test_wrong_arguments_raise_type_error() -> None:
    with pytest.raises(TypeError):
        native.layouts([], ())


def test_symbolic_sizes_are_kept_as_read() -> None:
    from torch.fx.experimental.proxy_tensor import make_fx

    seen: list = []

    def f(x: torch.Tensor) -> torch.Tensor:
        y = x.t()
        for run in (native.layouts, python_layouts):
            fields: list = []
            tuples: dict = {}
            run(fields, (x, y), tuples, torch.strided)
            seen.append((run, fields, tuples))
        return y

    make_fx(f, tracing_mode="symbolic")(torch.ones(3, 4))
    (_, got, got_tuples), (_, want, want_tuples) = seen
    assert [str(v) for v in got] == [str(v) for v in want]
    assert got_tuples == want_tuples == {}  # (no hash: nothing kept once per watch)
    assert type(got[0]) is tuple and not all(type(d) is int for d in got[0])


def records(w: wt.TorchWatch) -> list[tuple]:
    """The raw records, the autograd counters (node number, counter after the op) made relative to
    the block's start: two blocks in one process number their nodes apart."""
    rows = []
    for i in range(len(w._records)):
        key, call, node_seq, node_name, kind, copied, allocated, where, peek, n_in, *tensors = w._records[i]
        rows.append((key, call, node_seq - w._seq_start if node_name and w._seq_start <= node_seq < 2 ** 63 else node_seq, node_name, kind, copied,
                     allocated, where, peek - w._seq_start, n_in, *tensors))
    return rows


def steps(w: wt.TorchWatch) -> list[tuple]:
    return [(s.name, s.kind, s.inputs, s.output, s.bytes_copied, s.bytes_allocated, s.where, s.module, s.reason,
             dict(s.extra)) for s in w.steps]


def watched_both_ways(program: Any, monkeypatch: pytest.MonkeyPatch) -> tuple[wt.TorchWatch, wt.TorchWatch]:
    with watch_torch() as fast:
        program()
    with monkeypatch.context() as m:
        m.setattr(wt, "_native_layouts", lambda: None)
        with watch_torch() as slow:
            program()
    return fast, slow


def test_a_gpt_forward_backward_records_the_same_with_and_without_the_extension(monkeypatch: pytest.MonkeyPatch) -> None:
    torch.manual_seed(0)
    model = GPT(vocab=16, C=8, heads=2, T=4, layers=2)
    idx, targets = batch(model, B=2, T=4, vocab=16)

    def program() -> None:
        model.zero_grad(set_to_none=True)
        model(idx, targets).backward()

    fast, slow = watched_both_ways(program, monkeypatch)
    assert len(fast._records) > 300
    assert records(fast) == records(slow)
    assert steps(fast) == steps(slow)
    assert (fast.allocated_bytes, fast.peak_bytes, fast.bytes_copied) == (slow.allocated_bytes, slow.peak_bytes,
                                                                         slow.bytes_copied)
    assert str(fast) == str(slow)


def test_odd_operands_record_the_same_with_and_without_the_extension(monkeypatch: pytest.MonkeyPatch) -> None:
    def program() -> None:
        x = torch.ones(3, 1).expand(3, 4).requires_grad_(False)
        s = torch.eye(3).to_sparse()
        y = (x * 2).t().contiguous()
        torch.stack([y, y, torch.ones(4, 3)])
        (s * 2).coalesce()
        torch.tensor(1.5) + torch.ones(0, 4)
        y[1:, ::2].reshape(-1)

    fast, slow = watched_both_ways(program, monkeypatch)
    assert records(fast) == records(slow)
    assert steps(fast) == steps(slow)
    # the sparse ops were recorded the careful way: no strides
    assert any(s.output is not None and s.output.strides == () for s in fast.steps)
