"""Hostile tests of session 35's C paths: the C ``make_node`` / C-made AccumulateGrad (rec35) and the
C in-place fronts for relu_/selu_/celu_/rrelu_ (inplace35), differential against torch."""

import gc
import sys
import threading

import numpy as np
import pytest

import strided as st
import strided.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional

INPLACE = ["relu", "selu", "celu"]


def _bits(a):
    a = np.ascontiguousarray(a)
    return a.view(np.uint8).tobytes()


def test_relu_inplace_loop_no_growth():
    x = st.tensor(np.random.randn(4, 5).astype(np.float32))
    x.relu_()
    gc.collect()
    n0, r0 = len(gc.get_objects()), sys.getrefcount(x)
    for _ in range(10000):
        x.relu_()
    gc.collect()
    assert sys.getrefcount(x) == r0
    assert len(gc.get_objects()) - n0 < 100
    assert x._version == 10001


def test_backward_loop_no_growth():
    w = st.tensor(np.ones(3, np.float32), requires_grad=True)
    (w * 3).sum().backward()
    gc.collect()
    n0 = len(gc.get_objects())
    for _ in range(5000):
        (w * 3).sum().backward()
    gc.collect()
    assert len(gc.get_objects()) - n0 < 100
    assert w.grad.tolist() == [15003.0] * 3


@pytest.mark.parametrize("name", INPLACE)
@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_inplace_on_offset_strided_view_bits(name, dt):
    base = np.random.RandomState(0).randn(5, 6).astype(dt) * 3
    base[0, 0] = -0.0
    s, t = st.tensor(base.copy()), torch.tensor(base.copy())
    sv, tv = s[1:, ::2], t[1:, ::2]
    rs = getattr(F, name)(sv, inplace=True)
    rt = getattr(TF, name)(tv, inplace=True)
    assert rs is sv and rt is tv
    assert _bits(s.numpy()) == _bits(t.numpy())
    assert sv._version == tv._version


def test_readonly_numpy_refused():
    a = np.arange(6, dtype=np.float32) - 3
    a.flags.writeable = False
    t = st.from_numpy(a)
    for f in (lambda: t.relu_(), lambda: F.selu(t, inplace=True), lambda: F.celu(t, inplace=True)):
        with pytest.raises(RuntimeError, match="read-only"):
            f()
    assert a.tolist() == [-3.0, -2.0, -1.0, 0.0, 1.0, 2.0]


@pytest.mark.parametrize("name", INPLACE)
def test_expanded_self_refused_like_torch(name):
    s = st.tensor(np.array([-1.0, 2.0], np.float32))[:1].expand(3)
    t = torch.tensor([-1.0, 2.0])[:1].expand(3)
    with pytest.raises(RuntimeError) as et:
        getattr(TF, name)(t, inplace=True)
    with pytest.raises(RuntimeError) as es:
        getattr(F, name)(s, inplace=True)
    assert str(es.value).splitlines()[0] == str(et.value)


def test_numpy_shared_memory_written():
    a = np.array([-1.0, 0.5, -2.0], np.float64)
    s = st.from_numpy(a)
    F.selu(s, inplace=True)
    assert _bits(a) == _bits(torch.selu(torch.tensor([-1.0, 0.5, -2.0], dtype=torch.float64)).numpy())


@pytest.mark.parametrize("name", INPLACE)
def test_saved_tensor_modified_through_c_path(name):
    w0 = np.random.RandomState(1).randn(5).astype(np.float32)
    w, tw = st.tensor(w0, requires_grad=True), torch.tensor(w0, requires_grad=True)
    z, tz = (w * 2).exp(), (tw * 2).exp()
    getattr(F, name)(z, inplace=True)
    getattr(TF, name)(tz, inplace=True)
    with pytest.raises(RuntimeError) as et:
        tz.sum().backward()
    with pytest.raises(RuntimeError) as es:
        z.sum().backward()
    assert str(es.value).splitlines()[0] == str(et.value).splitlines()[0]


@pytest.mark.parametrize("name", INPLACE)
def test_leaf_requires_grad_refused(name):
    w = st.tensor(np.ones(3, np.float32), requires_grad=True)
    tw = torch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError) as et:
        getattr(TF, name)(tw, inplace=True)
    with pytest.raises(RuntimeError) as es:
        getattr(F, name)(w, inplace=True)
    assert str(es.value).splitlines()[0] == str(et.value).splitlines()[0]
    assert w._version == tw._version == 0


@pytest.mark.parametrize("name", INPLACE)
def test_inplace_grad_bits_vs_torch(name):
    w0 = np.random.RandomState(2).randn(4, 3).astype(np.float64)
    w, tw = st.tensor(w0, requires_grad=True), torch.tensor(w0, requires_grad=True)
    y, ty = w * 1.5, tw * 1.5
    getattr(F, name)(y[:, 1:], inplace=True)
    getattr(TF, name)(ty[:, 1:], inplace=True)
    (y * y).sum().backward()
    (ty * ty).sum().backward()
    assert _bits(y.detach().numpy()) == _bits(ty.detach().numpy())
    assert _bits(w.grad.numpy()) == _bits(tw.grad.numpy())


def test_hooks_on_leaf_with_c_accumulate_grad():
    w, tw = st.tensor(np.ones(3, np.float32), requires_grad=True), torch.ones(3, requires_grad=True)
    seen, tseen = [], []
    w.register_hook(lambda g: g * 2)
    tw.register_hook(lambda g: g * 2)
    w.register_hook(lambda g: seen.append(g.tolist()))
    tw.register_hook(lambda g: tseen.append(g.tolist()))
    for _ in range(2):
        (w * 3).relu_().sum().backward()
        (tw * 3).relu_().sum().backward()
    assert seen == tseen
    assert w.grad.tolist() == tw.grad.tolist()


def test_retain_grad_nonleaf_and_two_graphs_share_leaf():
    w, tw = st.tensor(np.ones(3, np.float32), requires_grad=True), torch.ones(3, requires_grad=True)
    a, ta = w * 2, tw * 2
    a.retain_grad()
    ta.retain_grad()
    b, tb = (w * 5).sum(), (tw * 5).sum()
    (a * a).sum().backward()
    (ta * ta).sum().backward()
    b.backward()
    tb.backward()
    assert a.grad.tolist() == ta.grad.tolist()
    assert w.grad.tolist() == tw.grad.tolist()


def test_leaf_freed_while_graph_lives():
    w = st.tensor(np.ones(3, np.float32), requires_grad=True)
    g = (w * w).sum()
    del w
    gc.collect()
    g.backward()  # must not crash; the grad goes nowhere


def test_threads_record_concurrently():
    ws = [st.tensor(np.ones(3, np.float32), requires_grad=True) for _ in range(4)]

    def run(w):
        for _ in range(500):
            (w * 2).relu_().sum().backward()

    ths = [threading.Thread(target=run, args=(w,)) for w in ws]
    for t in ths:
        t.start()
    for t in ths:
        t.join()
    assert all(w.grad.tolist() == [1000.0] * 3 for w in ws)


@pytest.mark.parametrize("name", INPLACE)
def test_grad_modes_nesting(name):
    w = st.tensor(np.array([-1.0, 2.0], np.float32), requires_grad=True)
    with st.no_grad():
        y = w * 1
        with st.enable_grad():
            z = w * 1
            getattr(F, name)(z, inplace=True)
        getattr(F, name)(y, inplace=True)
    assert not y.requires_grad and z.requires_grad
    z.sum().backward()
    tw = torch.tensor([-1.0, 2.0], requires_grad=True)
    tz = tw * 1
    getattr(TF, name)(tz, inplace=True)
    tz.sum().backward()
    assert _bits(w.grad.numpy()) == _bits(tw.grad.numpy())
    with st.inference_mode():
        u = st.tensor(np.array([-1.0, 2.0], np.float32))
        getattr(F, name)(u, inplace=True)
    assert _bits(u.numpy()) == _bits(getattr(TF, name)(torch.tensor([-1.0, 2.0])).numpy())


@pytest.mark.parametrize("name", ["relu", "selu", "celu", "rrelu"])
@pytest.mark.parametrize("arg", [None, 1.0])
def test_non_tensor_inplace_error_class(name, arg):
    with pytest.raises(TypeError):
        getattr(TF, name)(arg, inplace=True)
    with pytest.raises(TypeError):
        getattr(F, name)(arg, inplace=True)


def test_relu_non_tensor_inplace_error_text():
    for f, tf in ((lambda a: F.relu(a, inplace=True), lambda a: TF.relu(a, inplace=True)), (F.relu_, TF.relu_)):
        with pytest.raises(TypeError) as et:
            tf(None)
        with pytest.raises(TypeError) as es:
            f(None)
        assert str(es.value).splitlines()[0] == str(et.value)


def test_non_tensor_inplace_error_text():
    with pytest.raises(TypeError) as et:
        TF.selu(None, inplace=True)
    with pytest.raises(TypeError) as es:
        F.selu(None, inplace=True)
    assert str(es.value).splitlines()[0] == str(et.value)


def test_watch_opened_mid_loop_sees_c_inplace_writes():
    """A listener opened mid-loop: the C in-place front steps aside and each write is a step."""
    from strided.diagnose.watch import watch

    x = st.tensor(np.array([-1.0, 2.0], np.float32), requires_grad=True)
    tx = torch.tensor([-1.0, 2.0], requires_grad=True)
    w = None
    for i in range(4):
        if i == 2:
            w = watch()
            w.__enter__()
        y = x * 1
        y.relu_()
        y = y * 1
        F.selu(y, inplace=True)
        y = y * 1
        F.celu(y, inplace=True)
        y.sum().backward()
        ty = tx * 1
        ty.relu_()
        ty = ty * 1
        TF.selu(ty, inplace=True)
        ty = ty * 1
        TF.celu(ty, inplace=True)
        ty.sum().backward()
    w.__exit__(None, None, None)
    names = [s.name for s in w.steps]
    half = len(names) // 2
    assert names[:half] == names[half:]
    assert names.count("relu_") == 2
    assert sum(1 for s in w.steps if s.kind == "write") == 6
    assert _bits(x.grad.numpy()) == _bits(tx.grad.numpy())
