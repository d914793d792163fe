"""``watch_torch`` under hostile use: odd tensors, grad modes, threads, exceptions, library models.

Each test here pins something a user could do that once broke the watch (or could have): the
program under the watch must run exactly as without it, and the report must stay right.
"""

from __future__ import annotations

import inspect
import threading
import warnings

import pytest
import torch

from strided.diagnose.watch_torch import watch_torch


def here(offset: int = 0) -> str:
    """``:<line>`` of the caller's line plus ``offset``, to compare with a step's ``where``."""
    return f":{inspect.currentframe().f_back.f_lineno + offset}"


def names(w) -> list[str]:  # noqa: ANN001
    return [s.name for s in w.steps]


# ---------------------------------------------------------------------- tensors with no strides


@pytest.mark.parametrize("layout", ["coo", "csr"])
def test_sparse_tensors_run_and_are_recorded(layout: str) -> None:
    dense = torch.tensor([[0.0, 3.0], [4.0, 0.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's own "sparse CSR is beta" notice
        expected = (dense.to_sparse() if layout == "coo" else dense.to_sparse_csr()) @ torch.ones(2, 2)
        with watch_torch() as w:
            sparse = dense.to_sparse() if layout == "coo" else dense.to_sparse_csr()
            product = sparse @ torch.ones(2, 2)  # a sparse input to a dense op
            back = sparse.to_dense()
    assert torch.equal(product, expected) and torch.equal(back, dense)
    steps = w.steps
    assert steps and all(s.where.endswith(".py" + s.where[s.where.rindex(":"):]) for s in steps)
    [made] = [s for s in steps if s.output is not None and s.output.shape == (2, 2) and s.name.startswith("_to_sparse")]
    assert made.output.strides == ()  # a sparse tensor has no strides
    assert str(w).startswith("watch_torch: ")


def test_a_record_begun_before_a_tensor_refuses_its_strides_is_made_again_whole() -> None:
    # detach of a CSR tensor is a view: its record is begun before the tensor refuses stride(),
    # then made again with guarded reads; the records around it keep exactly their own fields
    dense = torch.tensor([[0.0, 3.0], [4.0, 0.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's own "sparse CSR is beta" notice
        with watch_torch() as w:
            ones = torch.ones(2, 3)
            sparse = dense.to_sparse_csr()
            sparse.detach()
            ones.t().contiguous()
    rows = [(s.name, s.kind, [(t.shape, t.strides) for t in s.inputs], (s.output.shape, s.output.strides),
             s.bytes_copied, s.bytes_allocated) for s in w.steps]
    assert rows == [
        ("ones", "alloc", [], ((2, 3), (3, 1)), 0, 24),
        ("_to_sparse_csr", "compute", [((2, 2), (2, 1))], ((2, 2), ()), 0, 0),
        ("detach", "view", [((2, 2), ())], ((2, 2), ()), 0, 0),
        ("t", "view", [((2, 3), (3, 1))], ((3, 2), (1, 3)), 0, 0),
        ("clone", "copy", [((3, 2), (1, 3))], ((3, 2), (2, 1)), 24, 24),
    ]
    # (the raw records, each 10 fields and 3 per tensor: nothing of the abandoned reads left in
    # the record before, which its Step would not show)
    assert [len(w._records[i]) for i in range(len(w._records))] == [13, 16, 16, 16, 16]


def test_meta_tensors_allocate_nothing() -> None:
    with watch_torch() as w:
        x = torch.empty(1000, 1000, device="meta")
        x.t().contiguous()
    assert [(c.name, c.nbytes) for c in w.copies] == [("clone", 4_000_000)]  # the copy is still a copy
    assert (w.allocated_bytes, w.peak_bytes) == (0, 0)  # but no memory was taken


# ---------------------------------------------------------------------- backward lines


def test_in_place_writes_into_views_point_their_backward_at_their_lines() -> None:
    x = torch.ones(4, 3, requires_grad=True)
    with watch_torch() as w:
        y = x * 1
        y[0].mul_(2)
        mul_line = here(-1)
        y[:, 1] = 5
        fill_line = here(-1)
        y.sum().backward()
    # each in-place write into a view gets a CopySlices node, made after the write ran
    mul = [s.where for s in w.steps if s.name == "mul [CopySlices]"]
    assert len(mul) == 1 and mul[0].endswith(mul_line)
    copy_slices = [s.where for s in w.steps if s.name.endswith("[CopySlices]")]
    assert {where.rsplit(":", 1)[1] for where in copy_slices} == {mul_line[1:], fill_line[1:]}


# ---------------------------------------------------------------------- threads


def test_another_threads_modules_do_not_leak_into_the_watch() -> None:
    inside, release = threading.Event(), threading.Event()

    class Blocking(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            inside.set()
            release.wait(10)
            return x

    other = torch.nn.Sequential(torch.nn.Identity(), Blocking())
    worker = threading.Thread(target=lambda: other(torch.ones(1)))
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU())
    with watch_torch() as w:
        worker.start()
        assert inside.wait(10)  # the other thread is now inside its modules' forward
        model(torch.ones(2, 3))
        release.set()
        worker.join()
    assert [s.module for s in w.steps if s.kind == "compute"] == ["0", "1"]
    assert not any(s.module.startswith(("Sequential", "Blocking")) for s in w.steps)


def test_another_threads_ops_are_not_recorded() -> None:
    done = threading.Event()

    def work() -> None:
        torch.ones(4, 3).t().contiguous()
        done.set()

    with watch_torch() as w:
        threading.Thread(target=work).start()
        assert done.wait(10)
        torch.ones(2)
    assert names(w) == ["ones"]


# ---------------------------------------------------------------------- user code inside backward


def test_an_op_handed_over_by_a_thread_with_no_python_frames_is_recorded(monkeypatch: pytest.MonkeyPatch) -> None:
    """On a GPU the autograd engine runs backward ops on a device thread of its own, carrying the
    watch's modes there: the dispatch handler is that thread's first Python frame, and the
    recorder's walk for the user's line must stop at the end of the stack, not ask past it
    (ValueError: call stack is not deep enough, seen on an H200). A thread started from C
    (``_thread.start_new_thread`` calls the handler itself) has the same shallow stack."""
    import _thread
    import sys
    import time

    from torch.utils._python_dispatch import _get_current_dispatch_mode

    failures: list = []
    monkeypatch.setattr(sys, "unraisablehook", failures.append)  # (where _thread reports a raise)
    a, b = torch.ones(3), torch.ones(3)
    with watch_torch() as w:
        _thread.start_new_thread(_get_current_dispatch_mode().__torch_dispatch__,  # type: ignore[union-attr]
                                 (torch.ops.aten.add.Tensor, (), (a, b)))
        deadline = time.monotonic() + 10
        while not (failures or w._records.starts) and time.monotonic() < deadline:
            time.sleep(0.001)
    assert [f.exc_value for f in failures] == []
    assert [s.name for s in w.steps] == ["add"] and w.steps[0].output.shape == (3,)


def test_two_threads_recording_at_once_keep_their_records_whole() -> None:
    """The autograd engine can run a GPU's backward ops on its device thread while the calling
    thread runs the CPU ones, both through one watch: each op's record must stay whole (before
    the recorder took a lock, records interleaved and steps came out without outputs)."""
    import _thread
    import sys

    from torch.utils._python_dispatch import _get_current_dispatch_mode

    def hammer(mode: object, x: torch.Tensor, done: threading.Event) -> None:
        try:
            for _ in range(1500):
                mode.__torch_dispatch__(torch.ops.aten.add.Tensor, (), (x, x))  # type: ignore[attr-defined]
        finally:
            done.set()

    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # (switch threads as often as the interpreter can)
    inputs, events = (torch.ones(3), torch.ones(2, 5)), [threading.Event(), threading.Event()]
    try:
        with watch_torch() as w:
            mode = _get_current_dispatch_mode()
            for x, done in zip(inputs, events):
                _thread.start_new_thread(hammer, (mode, x, done))
            assert all(done.wait(60) for done in events)
    finally:
        sys.setswitchinterval(switch)
    steps = w.steps
    assert len(steps) == 3000 and {s.name for s in steps} == {"add"}
    assert sorted(len(s.inputs) for s in steps) == [2] * 3000
    assert {(s.output.shape, s.inputs[0].shape) for s in steps} == {((3,), (3,)), ((2, 5), (2, 5))}


def test_a_copy_between_devices_names_them() -> None:
    """A copy across devices (host <-> GPU on a GPU machine; here cpu -> meta, the device a CPU-only
    build has) says which way it went; a copy within one device says nothing of devices."""
    x = torch.ones(4, 3)
    dest = torch.empty(4, 3, device="meta")
    with watch_torch() as w:
        x.to("meta")
        dest.copy_(x)
        x.t().contiguous()
    crossing = [s for s in w.steps if s.kind == "copy"]
    assert [s.extra.get("devices") for s in crossing] == [("cpu", "meta"), ("cpu", "meta"), None]
    assert crossing[0].reason == "to() copies (4, 3) strides (3, 1), from cpu to meta"
    assert crossing[1].reason.endswith(", from cpu to meta") and "from" not in crossing[2].reason


def test_a_tensor_hooks_ops_point_at_the_hook() -> None:
    x = torch.ones(3, 4, requires_grad=True)
    with watch_torch() as w:
        y = x.t() * 2
        forward_line = here(-1)
        y.register_hook(lambda g: g.contiguous() * 1)  # runs in backward: its copy is its own
        hook_line = here(-1)
        y.sum().backward()
    [copy] = [c for c in w.copies if c.name.startswith("clone")]
    assert copy.where.endswith(hook_line) and copy.nbytes == 48
    # the backward of y's own mul still points at the forward line
    assert [s.where for s in w.steps if s.name == "mul [MulBackward0]"][-1].endswith(forward_line)


class Doubler(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a: torch.Tensor) -> torch.Tensor:  # noqa: ANN001
        return a * 2

    @staticmethod
    def backward(ctx, grad: torch.Tensor) -> torch.Tensor:  # noqa: ANN001
        return grad.t().contiguous().t() * 2  # MARK: custom backward


def test_a_custom_functions_backward_ops_point_at_its_backward() -> None:
    line = next(i for i, text in enumerate(inspect.getsource(inspect.getmodule(Doubler)).splitlines(), 1)
                if text.endswith("# MARK: custom backward"))
    x = torch.ones(3, 4, requires_grad=True)
    with watch_torch() as w:
        Doubler.apply(x).sum().backward()
    custom = [s for s in w.steps if s.name.endswith("[DoublerBackward]")]
    assert [s.name.split(" ")[0] for s in custom] == ["t", "clone", "t", "mul"]
    assert all(s.where.endswith(f":{line}") for s in custom)
    assert torch.equal(x.grad, torch.full((3, 4), 2.0))


def test_wrapper_subclasses_and_nested_tensors_run_and_are_recorded() -> None:
    from torch.testing._internal.logging_tensor import LoggingTensor

    x = LoggingTensor(torch.ones(3, 4))  # a wrapper subclass: no storage of its own
    with watch_torch() as w:
        y = x.t().reshape(12) * 2
    assert type(y) is LoggingTensor
    assert names(w) == ["t", "clone", "_unsafe_view", "mul"] and [c.nbytes for c in w.copies] == [48]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "nested tensors are in prototype stage"
        nested = torch.nested.nested_tensor([torch.ones(2, 3), torch.ones(4, 3)])
    with watch_torch() as w:
        out = (nested * 2).transpose(1, 2).contiguous()
    assert out.is_nested and names(w) == ["mul", "transpose", "clone"]
    assert w.steps[-1].output.shape == ()  # a nested tensor has no single shape


def test_fake_tensors_count_no_memory_and_raise_no_warning() -> None:
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode():
        x = torch.ones(3, 4)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with watch_torch() as w:
                x.t().reshape(12)
    assert [c.nbytes for c in w.copies] == [48] and w.allocated_bytes == 0


# ---------------------------------------------------------------------- what already held, pinned


def test_library_models_point_at_the_users_line() -> None:
    torch.manual_seed(0)
    attention = torch.nn.MultiheadAttention(16, 4, batch_first=True)
    layer = torch.nn.TransformerEncoderLayer(16, 4, dim_feedforward=32, batch_first=True)
    x = torch.randn(2, 5, 16)
    with watch_torch() as w:
        out, _ = attention(x, x, x)
        attention_line = here(-1)
        layer(out).sum().backward()
        layer_line = here(-1)
    forward = {s.where.rsplit(":", 1)[1] for s in w.steps if s.extra["phase"] == "forward"}
    assert forward == {attention_line[1:], layer_line[1:]}
    # torch's own head split inside MultiheadAttention copies: each copy names the user's line
    copies = [c for c in w.copies if c.module == "MultiheadAttention"]
    assert copies and all(c.where.endswith(attention_line) for c in copies)


def test_grad_modes_nested_inside_the_block() -> None:
    x = torch.ones(3, 4, requires_grad=True)
    with torch.no_grad(), watch_torch() as w:
        x.t().reshape(12)  # no graph
        with torch.enable_grad():
            z = (x * 2).t().reshape(12).sum()
            line = here(-1)
        z.backward()
    backward = [s for s in w.steps if s.extra["phase"] == "backward" and "AccumulateGrad" not in s.name]
    assert [s.name for s in backward] == ["expand [SumBackward0]", "view [UnsafeViewBackward0]",
                                          "t [TBackward0]", "mul [MulBackward0]"]
    assert all(s.where.endswith(line) for s in backward)
    assert [c.nbytes for c in w.copies if "[" not in c.name] == [48, 48]


def test_retained_graph_and_autograd_grad_lines() -> None:
    x = torch.ones(3, 4, requires_grad=True)
    with watch_torch() as w:
        s = ((x * 3).t().reshape(12) ** 2).sum()
        line = here(-1)
        s.backward(retain_graph=True)
        s.backward()
        (g,) = torch.autograd.grad((x ** 3).sum(), x, create_graph=True)
        grad_line = here(-1)
        g.sum().backward()
    tagged = [s for s in w.steps if "[" in s.name and "AccumulateGrad" not in s.name]
    first, second = tagged[:7], tagged[7:14]
    assert [s.name for s in first] == [s.name for s in second]  # the same graph, run twice
    assert all(s.where.endswith(line) for s in first + second)
    in_grad = [s for s in tagged if s.extra.get("call") == "grad"]
    assert in_grad and all(s.where.endswith(grad_line) for s in in_grad)
    assert torch.equal(x.grad, 2 * 9 * x.detach() * 2 + 6 * x.detach())


def test_memory_counts_only_what_the_block_made() -> None:
    x = torch.ones(1000)  # before the block: not counted
    with watch_torch() as w:
        y = x * 2  # 4000 bytes
        del y  # freed before the next is made
        z = x + 1  # 4000
        z.view(10, 100)  # a view: nothing
        z.add_(1)  # in place: nothing
        kept = torch.cat([z, z])  # 8000, alive with z
    assert (w.allocated_bytes, w.peak_bytes) == (16000, 12000)
    assert kept.numel() == 2000


def test_exceptions_in_backward_and_forward_leave_no_mode_or_module_behind() -> None:
    x = torch.ones(3, requires_grad=True)
    y = x * 2

    def fail(grad: torch.Tensor) -> None:
        raise ValueError("hook says no")

    y.register_hook(fail)
    with pytest.raises(ValueError, match="hook says no"), watch_torch() as w:
        y.sum().backward()
    assert names(w) == ["sum", "ones_like", "expand [SumBackward0]"]

    class Fails(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            x.t().contiguous()
            raise KeyError("forward says no")

    model, other = torch.nn.Sequential(Fails()), torch.nn.Sequential(torch.nn.ReLU())
    with watch_torch() as w:
        with pytest.raises(KeyError):
            model(torch.ones(2, 3))
        other(torch.ones(2, 3))  # the failed forward's modules are off the stack
    assert [(s.name, s.module) for s in w.steps][-2:] == [("ones", ""), ("relu", "0")]
    assert not torch._C._is_torch_function_mode_enabled()
    assert not torch.nn.modules.module._global_forward_hooks


def test_nested_with_a_strided_watch_each_sees_its_own() -> None:
    import strided
    from strided.diagnose.watch import watch

    with watch() as sw, watch_torch() as tw:
        strided.ones((3, 4)).t().reshape(12)
        torch.ones(3, 4).t().reshape(12)
    assert [s.name for s in sw.steps] == ["ones", "t", "reshape"]
    assert names(tw) == ["ones", "t", "clone", "_unsafe_view"]


def test_a_block_open_across_a_yield_sees_the_callers_ops() -> None:
    # Like any torch mode, the watch records what runs while it is open, also the code that
    # runs while a generator holding it open is suspended (documented, not filtered).
    def steps():
        with watch_torch() as w:
            yield w
            torch.zeros(1)

    gen = steps()
    w = next(gen)
    torch.ones(2)
    next(gen, None)
    assert names(w) == ["ones", "zeros"]


@pytest.mark.parametrize("dtype", [torch.complex64, torch.bfloat16, torch.float16, torch.int8, torch.bool])
def test_dtypes_count_their_own_bytes(dtype: torch.dtype) -> None:
    x = torch.ones(3, 4, dtype=dtype)
    with watch_torch() as w:
        x.t().contiguous()
    [copy] = w.copies
    assert copy.nbytes == 12 * x.element_size() and copy.dtype == str(dtype).removeprefix("torch.")


def test_zero_size_and_zero_d_tensors() -> None:
    with watch_torch() as w:
        torch.ones(0, 3).t().reshape(0)  # an empty tensor is contiguous: a view
        torch.ones(2, 0, 3).permute(2, 0, 1).contiguous()  # likewise
        torch.ones(3, 0).t().clone()  # a copy of 0 bytes
        torch.ones(3, 0) - torch.ones(0)
        torch.tensor(2.0) * torch.ones(2)  # a 0-d operand is a scalar, not a broadcast
    assert [(c.name, c.nbytes) for c in w.copies] == [("clone", 0)]
    assert w.allocated_bytes == 8 + 8 and w.copies[0].shape == (0, 3)  # ones(2) and the product
    assert [b.stretched for b in w.broadcasts] == [((), (0,))]


def test_a_compiled_function_inside_the_block_runs_and_is_recorded() -> None:
    # Dynamo must never trace the watch's dispatch handler (torch keeps it out of every mode's
    # with a wrapper; the watch does the same without the wrapper's cost per op): tracing it
    # would warn, break the graph on the watch's own reads, or fail
    def f(x: torch.Tensor) -> torch.Tensor:
        return x.t().reshape(-1) * 2

    compiled = torch.compile(f, backend="eager")
    x = torch.ones(4, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with watch_torch() as w:
            y = compiled(x)
            line = here(-1)
    assert torch.equal(y, f(x))
    [copy] = w.copies
    assert (copy.name, copy.nbytes, copy.asked) == ("clone", 48, False)
    assert "mul" in names(w) and w.steps[0].where.rsplit(":", 1)[0] == __file__
    assert all(s.where.endswith((line, f"{inspect.getsourcelines(f)[1] + 1}")) for s in w.steps)


def test_keyword_only_tensors_are_inputs() -> None:
    q = torch.ones(1, 2, 4, 8)
    mask = torch.ones(4, 4)  # a float mask: passed on to the attention kernel as is
    with watch_torch() as w:
        torch.nn.functional.scaled_dot_product_attention(q, q, q, attn_mask=mask)
    [attention] = [s for s in w.steps if "attention" in s.name]
    assert [t.shape for t in attention.inputs] == [(1, 2, 4, 8)] * 3 + [(4, 4)]


def test_a_sparse_coo_tensor_has_no_strides_even_where_torch_reads_zeros() -> None:
    # PyTorch 2.13 answers a COO tensor's stride() with zeros instead of refusing it: a view of one
    # (detach) is still recorded with no strides, and an expanded dense tensor keeps its zeros
    dense = torch.tensor([[0.0, 3.0], [4.0, 0.0]])
    coo = dense.to_sparse()
    with watch_torch() as w:
        coo.detach()
        torch.tensor(1.0).expand(2, 3).clone()
    detach = [s for s in w.steps if s.name == "detach"][0]
    assert detach.inputs[0].strides == () and detach.output.strides == ()
    expand = [s for s in w.steps if s.name == "expand"][0]
    assert expand.output.strides == (0, 0)
