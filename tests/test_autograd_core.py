"""strided.autograd's machinery against torch.autograd: in-place ops (CopySlices, version counters,
the leaf errors), the user surface (accumulation, retain_graph, hooks, grad(), grad mode), the
graph printout and the guard against ops without a rule."""

from __future__ import annotations

import threading

import numpy as np
import pytest
import torch

import strided
import strided.autograd as ag

RNG = np.random.default_rng(7)


def _leaves():
    """x: a non-contiguous (4, 6) float64 leaf (a transposed, stepped slice); z: a (6,) leaf; the
    same values in both libraries."""
    big = RNG.standard_normal((12, 5))
    zv = RNG.standard_normal(6)
    xs = strided.from_numpy(big.copy())[::2, 1:].t().requires_grad_()
    # (detached: torch's slice of a tensor would be a view of one that is no leaf of the graph)
    xt = torch.from_numpy(big.copy())[::2, 1:].t().detach().requires_grad_()
    zs = strided.tensor(zv.copy(), requires_grad=True)
    zt = torch.tensor(zv.copy(), requires_grad=True)
    return (xs, zs), (xt, zt)


def _names(node):
    return [None if n is None else n.name() for n, _ in node.next_functions]


# ---------------------------------------------------------------- in-place programs

# Each program leaves its result in `y` (the tensor whose history the in-place op rewrote);
# `lib` is strided or torch.
INPLACE = [
    "y = x * 1; y[0].mul_(2)",
    "y = x.clone(); y[:, 1] = z[:4]",
    "y = x.clone(); y[1] = z",
    "y = x.clone(); y[0] = 3.0",
    "y = x.clone(); y[1:3, ::2] = z[:3]",
    "y = x.clone(); y.t()[1].add_(z[:4])",
    "y = x.contiguous(); y.view(24)[2:8].mul_(z)",
    "y = x.clone(); y[[0, 2]] = z",
    "y = x.clone(); y[lib.tensor([3, 1])] = z * 2",
    "y = x.clone(); y[y > 0] = 0.0",
    "y = x.clone(); y.t()[[0, 2]] = 1.5",
    "y = x * 2; y.exp_()",
    "y = x * 2; y.add_(z)",
    "y = x * 2; y.add_(z, alpha=3)",
    "y = x * 2; y.mul_(z)",
    "y = x * 2; y.sub_(z, alpha=2)",
    "y = x * 2; y.div_(z)",
    "y = x * 2; y.pow_(2)",
    "y = x.sigmoid() * 1; y += 1",
    "y = x * 1; y *= z",
    "y = x * 1; y /= z; y -= x",
    "y = x * 1; y.zero_()",
    "y = x * 1; y.fill_(2.0)",
    "y = x * 1; y.fill_(z[0])",
    "y = x * 1; y.copy_(z)",
    "y = x * 1; y.masked_fill_(y > 0, 1.0)",
    "y = x * 1; y.masked_fill_(y > 0, z[0])",
    "y = x * 1; y.index_put_((lib.tensor([0, 2]),), z)",
    "y = x * 1; y.index_put_((lib.tensor([0, 0]),), z, accumulate=True)",
    "y = lib.zeros(4, 6, dtype=lib.float64); y[:, 0] = z[:4]",
    "y = lib.zeros(4, 6, dtype=lib.float64); y.add_(x)",
    "y = x * 1; v = y[1:3]; w = y[:, 2]; v.mul_(3); y = w * 1",
    "y = x.contiguous(); v = y.view(24); v.add_(1); y = v.view(4, 6) * y",
    "y = x * 1; y[0].zero_(); y[1].exp_(); y = y * 1",
    "y = x * 1; y[0].sin_(); y = y[0] * 1",
    "y = x.clone(); y.relu_(); y = y * 1; y[::2].neg_()",
    "y = x * 1; y[0] += z; y[:, 1:] *= 2; y[1] -= z",
    "y = x * 1; y.t()[0] /= z[:4]",
    "y = x * 1; y.t_(); y.mul_(z[:4])",
    "y = x * 1; v = y[1:3]; v.t_(); v.mul_(2); v.exp_()",
    "y = x * 1; y.unsqueeze_(0); y.squeeze_(); y.transpose_(0, 1); y.sqrt_()",
    "y = x * 1; y.as_strided_((3, 3), (1, 3)); y.sigmoid_()",
]


def _run(program, lib, x, z):
    env = {"x": x, "z": z, "lib": lib, "ag": lib.autograd}
    exec(program, env)
    return env["y"]


@pytest.mark.parametrize("program", INPLACE)
def test_inplace_program_matches_torch(program):
    (xs, zs), (xt, zt) = _leaves()
    ys, yt = _run(program, strided, xs, zs), _run(program, torch, xt, zt)
    assert ys.grad_fn.name() == yt.grad_fn.name()
    assert _names(ys.grad_fn) == _names(yt.grad_fn)
    np.testing.assert_allclose(ys.detach().numpy(), yt.detach().numpy(), rtol=0, atol=1e-12)
    w = RNG.standard_normal(tuple(yt.shape))
    (ys * strided.from_numpy(w.copy())).sum().backward()
    (yt * torch.from_numpy(w.copy())).sum().backward()
    for s, t in ((xs, xt), (zs, zt)):
        if t.grad is None:
            assert s.grad is None
        else:
            np.testing.assert_allclose(s.grad.numpy(), t.grad.numpy(), rtol=0, atol=1e-10)


@pytest.mark.parametrize("program", ["y[0].mul_(2); y[:, 1] = 3.0", "y.t()[1:3].exp_()", "y[y > 2] = x[0, 0] ** 2",
                                     "y.view(-1)[::5].div_(x[0, 1])", "y.index_put_((lib.tensor([1]),), x[0])"])
def test_gradcheck_through_inplace_writes(program):
    def f(x):
        y = x * 1
        exec(program, {"y": y, "x": x, "lib": strided})
        return y

    x = strided.from_numpy(RNG.standard_normal((3, 4)) + 2).requires_grad_()
    assert ag.gradcheck(f, (x,))


def test_random_fills_give_a_zero_gradient():
    (xs, _), (xt, _) = _leaves()
    for x in (xs, xt):
        y = x * 1
        y.uniform_()
        assert y.grad_fn.name() == "UniformBackward0"
        (y * x).sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), y.detach().numpy(), rtol=0, atol=0)
    with pytest.raises(RuntimeError) as info:
        (xs * 1).resize_(24)
    assert str(info.value).splitlines()[0] == "cannot resize variables that require grad"


def test_inplace_on_a_view_gives_the_view_an_as_strided_history():
    (xs, _), (xt, _) = _leaves()
    for x in (xs, xt):
        b = x * 1
        v, other = b[0], b[:, 1]
        v.mul_(2)
        assert b.grad_fn.name() == "torch::autograd::CopySlices"
        assert v.grad_fn.name() == other.grad_fn.name() == "AsStridedBackward0"
        assert v.grad_fn.next_functions[0][0] is b.grad_fn
        assert v._version == b._version == other._version == 1


def test_versions_are_shared_by_all_views_and_counted_under_no_grad():
    (xs, _), (xt, _) = _leaves()
    for x in (xs, xt):
        with (ag if x is xs else torch.autograd).no_grad():
            x[0].add_(1)
            x.t()[1].mul_(2)
        assert x._version == 2
        assert x[1]._version == 2


def test_the_inplace_copy_of_the_old_values_is_in_the_ledger():
    (xs, _), _ = _leaves()
    y = xs * 1
    with strided.record_copies() as c:
        y.exp_()
    assert [r.reason for r in c] == ["exp_: the old values autograd reads"]
    assert c[0].nbytes == 4 * 6 * 8
    with strided.record_copies() as c:
        y.add_(1)  # add's rule never reads the old values: no copy
    assert len(c) == 0


# ---------------------------------------------------------------- the in-place errors


def _error(program, lib, x, z):
    with pytest.raises(RuntimeError) as info:
        _run(program, lib, x, z)
    return info


ERRORS = [
    "y = x; x.add_(1)",
    "y = x; x[0].add_(1)",
    "y = x; x.t()[1:3] = 0.0",
    "y = x.exp(); y.add_(1); y.sum().backward()",
    "y = x * 1; s = y.sin(); y.add_(1); s.sum().backward()",
    "y = x * 1; s = y.sin(); y[0].add_(1); s.sum().backward()",
    "c = lib.ones(4, 6, dtype=lib.float64); y = x * c; c.add_(1); y.sum().backward()",
    "y = x * x\nwith ag.no_grad(): x.add_(1)\ny.sum().backward()",
    "y = x * 1; y[0].zero_(); y[1].exp_(); y[2:].tanh_(); y.sum().backward()",
    "y = x.clone(); y.relu_(); y[::2].neg_(); y.sum().backward()",
    "y = x.exp(); y[0] = 0.0; y.sum().backward()",
    "y = x.sigmoid(); y.mul_(2); y.add_(1); y.sum().backward()",
    "y = (x * x).sum(); y.backward(); y.backward()",
    "y = x.exp(); y.backward()",
]


@pytest.mark.parametrize("program", ERRORS)
def test_inplace_and_backward_errors_match_torch(program):
    (xs, zs), (xt, zt) = _leaves()
    es, et = _error(program, strided, xs, zs), _error(program, torch, xt, zt)
    assert str(es.value).splitlines()[0] == str(et.value).splitlines()[0]
    assert isinstance(es.value, RuntimeError)


def test_the_modified_tensor_error_names_the_saver_the_write_and_the_fix():
    (xs, _), _ = _leaves()
    y = xs.exp()
    y.add_(1)
    with pytest.raises(RuntimeError) as info:
        y.sum().backward()
    text = str(info.value)
    assert "which is output 0 of Exp, is at version 1; expected version 0 instead" in text
    assert "ExpBackward0 saved this tensor (the output of ExpBackward0, shape (4, 6))" in text
    assert "add_ at " in text and "test_autograd_core.py" in text
    assert "y = y.clone()" in text


def test_a_refused_write_leaves_the_target_and_its_history_alone():
    (xs, _), _ = _leaves()
    y = xs * 1
    before = y.detach().numpy().copy()
    with pytest.raises(RuntimeError):
        y.add_(strided.ones(5, dtype=strided.float64))
    np.testing.assert_array_equal(y.detach().numpy(), before)
    assert y.grad_fn.name() == "MulBackward0" and y._version == 0
    with pytest.raises(RuntimeError):
        xs.mul_(2)
    assert xs.is_leaf and xs._version == 0


def test_detached_tensors_are_written_on_their_own():
    (xs, zs), (xt, zt) = _leaves()
    for x, z in ((xs, zs), (xt, zt)):
        d = x.detach()
        d.mul_(z)  # no view of x for autograd: d takes the history, x stays a leaf
        assert d.grad_fn.name() == "MulBackward0" and x.is_leaf and x._version == 1


# ---------------------------------------------------------------- the user surface


def test_gradients_accumulate_across_backward_calls_and_diamonds_are_exact():
    (xs, _), (xt, _) = _leaves()
    for x in (xs, xt):
        b = x + x
        c = b * b  # a diamond: b reaches c twice
        c.sum().backward(retain_graph=True)
        c.sum().backward()
    np.testing.assert_allclose(xs.grad.numpy(), xt.grad.numpy(), rtol=0, atol=1e-10)
    np.testing.assert_allclose(xs.grad.numpy(), 16 * xs.detach().numpy(), rtol=1e-12)


def test_retain_grad_hooks_and_removal_match_torch():
    (xs, _), (xt, _) = _leaves()
    out = {}
    for x in (xs, xt):
        y = x * 2
        y.retain_grad()
        seen = []
        h = y.register_hook(lambda g: g * 3)  # replaces the gradient flowing on
        x.register_hook(lambda g, seen=seen: seen.append(g.shape))
        (y * y).sum().backward(retain_graph=True)
        h.remove()
        (y * y).sum().backward()
        out[x is xs] = (y.grad.detach().numpy().copy(), x.grad.numpy().copy(), len(seen), y.is_leaf, y.retains_grad)
    for a, b in zip(out[True], out[False]):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-10)


def test_next_functions_and_is_leaf():
    (xs, zs), (xt, zt) = _leaves()
    for x, z in ((xs, zs), (xt, zt)):
        y = (x * z).sum(0) + 1
        assert _names(y.grad_fn) == ["SumBackward1", None]
        assert _names(y.grad_fn.next_functions[0][0]) == ["MulBackward0"]
        assert _names(y.grad_fn.next_functions[0][0].next_functions[0][0]) == [
            "torch::autograd::AccumulateGrad", "torch::autograd::AccumulateGrad"]
        assert y.grad_fn.next_functions[0][0].next_functions[0][0].next_functions[0][0].variable is x
        assert x.is_leaf and not y.is_leaf and (x * 1).detach().is_leaf


def test_grad_with_grad_outputs_retain_graph_and_allow_unused():
    (xs, zs), (xt, zt) = _leaves()
    w = RNG.standard_normal((4, 6))
    got = []
    for lib, x, z in ((strided, xs, zs), (torch, xt, zt)):
        y = x.exp() * 2
        unused = z * 1
        gx, gz = lib.autograd.grad(y, (x, z), grad_outputs=lib.from_numpy(w.copy()), retain_graph=True,
                                   allow_unused=True)
        assert gz is None and x.grad is None and unused.grad_fn is not None
        (gx2,) = lib.autograd.grad(y.sum(), x)
        with pytest.raises(RuntimeError) as info:
            lib.autograd.grad(y.sum(), (x, z))
        got.append((gx.numpy(), gx2.numpy(), str(info.value).splitlines()[0]))
    np.testing.assert_allclose(got[0][0], got[1][0], rtol=0, atol=1e-10)
    np.testing.assert_allclose(got[0][1], got[1][1], rtol=0, atol=1e-10)
    assert got[0][2] == got[1][2]


def test_backward_with_a_gradient_on_a_non_scalar():
    (xs, _), (xt, _) = _leaves()
    w = RNG.standard_normal((6, 4))
    xs.t().sin().backward(gradient=strided.from_numpy(w.copy()))
    xt.t().sin().backward(gradient=torch.from_numpy(w.copy()))
    np.testing.assert_allclose(xs.grad.numpy(), xt.grad.numpy(), rtol=0, atol=1e-10)


def test_detach_shares_memory_and_cuts_the_graph():
    (xs, _), _ = _leaves()
    d = xs.detach()
    assert d.data_ptr() == xs.data_ptr() and d.stride() == xs.stride()
    assert not d.requires_grad and d.grad_fn is None
    with ag.no_grad():
        d[0, 0] = 7.0
    assert xs[0, 0].item() == 7.0


def test_grad_mode_context_managers_and_decorators():
    (xs, _), _ = _leaves()
    with ag.no_grad():
        assert not (xs * 2).requires_grad
        with ag.enable_grad():
            assert (xs * 2).requires_grad
    with ag.set_grad_enabled(False):
        assert not ag.is_grad_enabled()
    assert ag.is_grad_enabled()

    @ag.no_grad()
    def off():
        return xs * 2

    @ag.enable_grad()
    def on():
        return xs * 2

    assert not off().requires_grad
    with ag.no_grad():
        assert on().requires_grad
    ag.set_grad_enabled(False)
    try:
        assert not (xs * 2).requires_grad
    finally:
        ag.set_grad_enabled(True)
    assert (xs * 2).requires_grad


def test_grad_mode_is_thread_local():
    (xs, _), _ = _leaves()
    inside, other = threading.Event(), threading.Event()
    seen = {}

    def worker():
        inside.wait()
        seen["other thread"] = (xs * 2).requires_grad
        other.set()

    t = threading.Thread(target=worker)
    t.start()
    with ag.no_grad():
        inside.set()
        other.wait()
        seen["this thread"] = (xs * 2).requires_grad
    t.join()
    assert seen == {"other thread": True, "this thread": False}


FACTORIES = [
    "lib.tensor([1.0, 2.0], requires_grad=True)", "lib.zeros(2, 3, requires_grad=True)",
    "lib.ones(2, 3, requires_grad=True)", "lib.full((2, 3), 1.5, requires_grad=True)",
    "lib.empty(2, 3, requires_grad=True)", "lib.arange(4.0, requires_grad=True)",
    "lib.linspace(0, 1, 5, requires_grad=True)", "lib.logspace(0, 1, 5, requires_grad=True)",
    "lib.rand(2, 3, requires_grad=True)", "lib.randn(2, 3, requires_grad=True)",
    "lib.eye(3, requires_grad=True)", "lib.zeros_like(lib.ones(2), requires_grad=True)",
    "lib.ones_like(lib.ones(2), requires_grad=True)", "lib.full_like(lib.ones(2), 3.0, requires_grad=True)",
    "lib.empty_like(lib.ones(2), requires_grad=True)", "lib.rand_like(lib.ones(2), requires_grad=True)",
    "lib.randn_like(lib.ones(2), requires_grad=True)", "lib.empty_strided((2, 3), (1, 2), requires_grad=True)",
]


@pytest.mark.parametrize("expr", FACTORIES)
def test_factories_take_requires_grad(expr):
    for lib in (strided, torch):
        t = eval(expr, {"lib": lib})
        assert t.requires_grad and t.is_leaf
        (t * 2).sum().backward()
        assert t.grad is not None and float(t.grad.sum()) == 2 * t.numel()


# ---------------------------------------------------------------- the graph, explained


def test_graph_text_shows_gradient_strides_after_backward_and_marks_the_scatters():
    x = strided.ones(2, 3, dtype=strided.float64, requires_grad=True)
    b = x * 1
    b[0].mul_(2)
    y = (b[:, 1:] * 3).sum()
    before = ag.graph_text(y).splitlines()
    assert before[0] == "SumBackward0 -> (2, 2) float64"
    y.backward()
    text = ag.graph_text(y)
    lines = text.splitlines()
    # the sum's gradient is one value expanded (stride 0); the slice scatters into a zero (2, 3)
    assert lines[0] == "SumBackward0 -> (2, 2) float64 strides (0, 0) (expanded: nothing copied)"
    assert lines[2] == ("    └── SliceBackward0 -> (2, 3) float64 strides (3, 1)  "
                        "[scatter: into a view of a zero tensor of the input's shape]")
    assert "torch::autograd::CopySlices -> (2, 3) float64 strides (3, 1), a number  [an in-place write into a " \
           "view of this tensor: outside the view the gradient passes unchanged, inside it MulBackward0's rule " \
           "runs]" in text
    assert lines[-2].startswith("scatter: the gradient of a view lands in the viewed elements")


# ---------------------------------------------------------------- ops without a rule


def test_module_functions_without_a_rule_refuse_instead_of_cutting_the_gradient():
    import strided.gradients

    (xs, _), _ = _leaves()
    # histc has no rule (polar, the example here before, has PyTorch's PolarBackward0 now)
    assert "histc" not in strided.gradients.BACKWARD
    with pytest.raises(NotImplementedError) as info:
        strided.histc(xs)
    assert str(info.value).splitlines()[0] == "histc() is not differentiable yet in strided's autograd"
    assert "strided.histc(x.detach(), ...)" in str(info.value)
    with ag.no_grad():
        assert strided.histc(xs).shape == (100,)
    assert strided.histc(xs.detach()).shape == (100,)


RESIZE_CASES = {
    "same_size": lambda lib: lib.zeros(3).resize_(3),
    "same_size_tuple": lambda lib: lib.zeros(3).resize_((3,)),
    "same_size_2d": lambda lib: lib.zeros(2, 3).resize_(2, 3),
    "same_size_transposed": lambda lib: lib.zeros(3, 2).t().resize_(2, 3),
    "same_size_contiguous_format": lambda lib: lib.zeros(3).resize_(3, memory_format=lib.contiguous_format),
    "same_size_channels_last": lambda lib: lib.zeros(2, 2, 2, 2).resize_(2, 2, 2, 2, memory_format=lib.channels_last),
    "smaller": lambda lib: lib.zeros(3).resize_(2),
    "larger": lambda lib: lib.zeros(3).resize_(4),
    "same_numel_new_shape": lambda lib: lib.zeros(6).resize_(2, 3),
    "resize_as_same": lambda lib: lib.zeros(3).resize_as_(lib.ones(3)),
    "resize_as_other": lambda lib: lib.zeros(3).resize_as_(lib.ones(4)),
}


@pytest.mark.parametrize("case", list(RESIZE_CASES))
def test_resize_counts_a_version_only_when_the_sizes_change_like_torch(case):
    """torch 2.13: resize_ (and resize_as_) to the sizes a tensor already has leaves _version as
    it was; new sizes count one write (resize_as_ once, not twice)."""
    got = []
    for lib in (strided, torch):
        x = lib.ones(2, requires_grad=True)
        (x * 2).sum().backward()  # autograd in use: strided counts versions from here on
        t = RESIZE_CASES[case](lib)
        got.append((t._version, tuple(t.shape), tuple(t.stride())))
    assert got[0] == got[1]
