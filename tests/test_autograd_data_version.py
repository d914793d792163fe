"""``x.data`` has a version counter of its own, and an in-place op whose operand is its own
target (``y.mul_(y)``) builds no reference cycle: both against PyTorch."""

from __future__ import annotations

import gc
import weakref

import pytest

import strided

torch = pytest.importorskip("torch")


def _versions(lib):
    """The version counters PyTorch's .data/detach/view rules give, read after writes through each."""
    x = lib.ones(3, requires_grad=True) * 1
    assert x._version == 0  # (strided counts writes once autograd or a version read is first seen)
    d = x.data
    e = d[1:]
    f = d.detach()
    e.add_(1)
    f.mul_(2)
    out = [x._version, d._version, e._version, f._version]
    x.add_(1)
    out += [x._version, d._version, e._version, x.data._version, x.detach()._version]
    return out


def test_data_has_its_own_version_counter():
    assert _versions(strided) == _versions(torch)
    assert _versions(strided)[:2] == [0, 2]  # (the writes through .data never reach x's counter)


def test_data_write_does_not_trip_the_saved_tensor_check():
    """The escape hatch PyTorch users rely on: a write through ``y.data`` is not seen by the nodes
    that saved ``y`` (the gradient then reads the new values, as PyTorch's does)."""
    got = {}
    for lib in (strided, torch):
        w = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = w * 2
        z = y * y
        y.data.mul_(3)
        z.sum().backward()
        got[lib.__name__] = (w.grad.tolist(), y._version)
    assert got["strided"] == got["torch"]


def test_a_write_through_the_tensor_itself_still_raises():
    for lib in (strided, torch):
        w = lib.tensor([1.0, 2.0], requires_grad=True)
        y = w * 2
        z = y * y
        d = y.data  # (a .data alive beside y changes nothing for y's own writes)
        y.mul_(3)
        assert d._version == 0
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            z.sum().backward()


def test_data_of_a_view_and_its_views_share_one_fresh_counter():
    for lib in (strided, torch):
        base = lib.zeros(4, requires_grad=True) * 1
        v = base[1:]
        vd = v.data
        vd[0:1].add_(1)
        assert (vd._version, v._version, base._version) == (1, 0, 0), lib.__name__


def _alive_without_gc(build):
    """Weak references to what ``build()`` returns and whether they survive the last strong
    reference with the cyclic collector off (reference counting alone)."""
    gc.collect()
    gc.disable()
    try:
        refs = build()
        return [r() is not None for r in refs]
    finally:
        gc.enable()


@pytest.mark.parametrize("view", [False, True])
@pytest.mark.parametrize("op", ["mul_", "add_"])
@pytest.mark.parametrize("backward", [False, True])
def test_inplace_op_on_itself_builds_no_cycle(view, op, backward):
    def build():
        y0 = strided.ones(4, requires_grad=True)
        y = y0 * 2
        if view:
            y = y[1:].view(3)
        getattr(y, op)(y)
        refs = [weakref.ref(y.grad_fn), weakref.ref(y)]
        if y._base is not None:
            refs += [weakref.ref(y._base), weakref.ref(y._base.grad_fn)]
        if backward:
            try:
                y.sum().backward()
            except RuntimeError:
                assert op == "mul_"  # (mul_ saved y before writing it: PyTorch's version error)
        return refs

    assert _alive_without_gc(build) == [False] * (4 if view else 2)


@pytest.mark.parametrize("view", [False, True])
def test_inplace_op_on_itself_keeps_torch_gradients_and_errors(view):
    got = {}
    for lib in (strided, torch):
        for op in ("mul_", "add_"):
            y0 = lib.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
            y = y0 * 2
            if view:
                y = y[1:].view(3)
            getattr(y, op)(y)
            try:
                (y * 3.0).sum().backward()
                got[lib.__name__, op] = y0.grad.tolist()
            except RuntimeError as e:
                got[lib.__name__, op] = str(e).split(":")[0]
    assert got["strided", "mul_"] == got["torch", "mul_"]
    assert got["strided", "add_"] == got["torch", "add_"]


def test_exp_on_a_view_builds_no_cycle():
    """The node of an op that saves its own result (exp_) saved an alias whose base was the real
    base: base -> CopySlices -> ExpBackward0 -> alias -> base."""

    def build():
        b = strided.ones(4, requires_grad=True) * 1
        v = b[1:]
        v.exp_()
        return [weakref.ref(b), weakref.ref(b.grad_fn), weakref.ref(v)]

    assert _alive_without_gc(build) == [False, False, False]
    b0 = strided.tensor([0.0, 1.0, 2.0], requires_grad=True)
    t0 = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
    for x in (b0, t0):
        b = x * 1
        b[1:].exp_()
        b.sum().backward()
    assert b0.grad.tolist() == pytest.approx(t0.grad.tolist(), rel=1e-6)  # (exp: NumPy's and PyTorch's kernels differ by an ulp)
