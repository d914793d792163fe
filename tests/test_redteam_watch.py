"""Red-team checks of ``watch_torch``'s per-watch caches (the file:line text cached per code
object and instruction): a report must name the line that ran, whatever else shares its code."""

from __future__ import annotations

import torch

from strided.diagnose.watch_torch import watch_torch

# The same function in two files at the same line: CPython's code objects compare equal (and hash
# alike) when only their co_filename differs, so a cache keyed by the code object alone would
# give the second file's ops the first file's name.
SOURCE = "def g(x):\n    return x.t().contiguous()\n"


def twins() -> tuple:
    a, b = {}, {}
    exec(compile(SOURCE, "/twin/a.py", "exec"), a)  # noqa: S102 - the point is two files' code
    exec(compile(SOURCE, "/twin/b.py", "exec"), b)  # noqa: S102
    assert a["g"].__code__ == b["g"].__code__  # (the hazard: equal code, different files)
    return a["g"], b["g"]


def test_the_same_code_in_two_files_keeps_each_file() -> None:
    g_a, g_b = twins()
    x = torch.ones(3, 4)
    with watch_torch() as w:
        g_a(x)
        g_b(x)
        g_a(x)
    assert [s.where for s in w.steps] == ["/twin/a.py:2"] * 2 + ["/twin/b.py:2"] * 2 + ["/twin/a.py:2"] * 2
    assert [c.where for c in w.copies] == ["/twin/a.py:2", "/twin/b.py:2", "/twin/a.py:2"]


def test_backward_hooks_of_twin_code_keep_each_file() -> None:
    # a tensor hook's ops are placed at the hook's own line (the backward path of the cache)
    src = "def hook(grad):\n    return grad.t().contiguous().t() * 1\n"
    a, b = {}, {}
    exec(compile(src, "/twin/hook_a.py", "exec"), a)  # noqa: S102
    exec(compile(src, "/twin/hook_b.py", "exec"), b)  # noqa: S102
    x = torch.ones(3, 4, requires_grad=True)
    y = torch.ones(3, 4, requires_grad=True)
    with watch_torch() as w:
        u = x * 2
        u.register_hook(a["hook"])
        v = y * 3
        v.register_hook(b["hook"])
        (u.sum() + v.sum()).backward()
    hooked = [s.where for s in w.steps if s.where.startswith("/twin/")]
    assert sorted(set(hooked)) == ["/twin/hook_a.py:2", "/twin/hook_b.py:2"]
    assert hooked.count("/twin/hook_a.py:2") == hooked.count("/twin/hook_b.py:2")
    assert torch.equal(x.grad, torch.full((3, 4), 2.0)) and torch.equal(y.grad, torch.full((3, 4), 3.0))



def test_symbolic_shapes_inside_the_block_run() -> None:
    # fake tensors with symbolic sizes (what make_fx's symbolic tracing and torch.export run on)
    # have SymInt sizes, which have no hash: keeping each shape once per watch must not make the
    # user's program raise
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.fx.experimental.symbolic_shapes import DimDynamic, ShapeEnv, StatelessSymbolicContext

    fake = FakeTensorMode(shape_env=ShapeEnv())
    dynamic = StatelessSymbolicContext(dynamic_sizes=[DimDynamic.DYNAMIC] * 2)
    a = fake.from_tensor(torch.ones(3, 4), symbolic_context=dynamic)
    with watch_torch() as w, fake:
        b = a.t().contiguous()
    assert b.shape == (a.shape[1], a.shape[0]) and b.stride() == (a.shape[0], 1)
    steps = [s for s in w.steps if s.name != "device"]  # (the fake kernels' device queries)
    assert [s.name for s in steps] == ["t", "clone"]
    shapes = [t.shape for s in steps for t in (*s.inputs, s.output)]
    assert shapes == [tuple(a.shape), tuple(b.shape), tuple(b.shape), tuple(b.shape)]
    assert not any(type(d) is int for shape in shapes for d in shape)  # the symbols, as read
