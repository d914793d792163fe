"""A leaf's first gradient kept as it is when the engine holds it alone (PyTorch's AccumulateGrad
steals it) instead of copied: the same values, dtype, shape and strides as the copy (``_STEAL``
off) and as PyTorch, and never memory that anything else can reach."""

import numpy as np
import pytest

import strided
import strided.nn.functional as F
from strided.autograd import engine

torch = pytest.importorskip("torch")


def _grads_of(build, steal, monkeypatch):
    monkeypatch.setattr(engine, "_STEAL", steal)
    leaves, extra = build(strided)
    return [(t.grad.numpy().tobytes(), t.grad.shape, t.grad.stride(), str(t.grad.dtype)) for t in leaves], leaves, extra


def _linear(lib):
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal((6, 5)).astype(np.float32))
    w = lib.tensor(rng.standard_normal((4, 5)).astype(np.float32), requires_grad=True)
    b = lib.tensor(rng.standard_normal(4).astype(np.float32), requires_grad=True)
    (F.linear(x, w, b) if lib is strided else torch.nn.functional.linear(x, w, b)).relu().sum().backward()
    return [w, b], None


def _shared(lib):
    """add hands the same gradient object to both leaves; a + a gives one leaf it twice."""
    a = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
    c = lib.tensor([0.5, 0.0, -1.0], requires_grad=True)
    y = a + c
    (y * y + a + a).sum().backward()
    return [a, c], None


def _add_only(lib):
    """add's rule hands one gradient object to both of its inputs."""
    a = lib.tensor([[1.0, -2.0], [3.0, 4.0]], requires_grad=True)
    c = lib.tensor([[0.5, 0.0], [-1.0, 2.0]], requires_grad=True)
    (a + c).backward(lib.ones(2, 2))
    return [a, c], None


def _hook_keeps(lib):
    """A hook that keeps the gradient it is shown: the leaf's .grad must not be that tensor."""
    kept = []
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    a.register_hook(lambda g: kept.append(g))
    (a * 3.0).sum().backward()
    return [a], kept


def _hook_returns_numpy(lib):
    """A hook returning a tensor over the user's NumPy array: the .grad must not share it."""
    arr = np.array([5.0, 6.0], np.float32)
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    a.register_hook(lambda g: lib.from_numpy(arr))
    (a * 3.0).sum().backward()
    return [a], arr


def _hook_returns_view(lib):
    big = lib.arange(6.0)
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    a.register_hook(lambda g: big[2:4])
    (a * 3.0).sum().backward()
    return [a], big


def _double(lib):
    w = lib.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=lib.float64, requires_grad=True)
    (w.t() @ w).sum().backward()
    return [w], None


BUILDS = [_linear, _shared, _add_only, _hook_keeps, _hook_returns_numpy, _hook_returns_view, _double]


@pytest.mark.parametrize("build", BUILDS)
def test_same_gradients_as_the_copy_and_torch(build, monkeypatch):
    kept, leaves, extra = _grads_of(build, True, monkeypatch)
    copied, _, _ = _grads_of(build, False, monkeypatch)
    assert kept == copied
    t_leaves, _ = build(torch)
    for (raw, shape, stride, _), t in zip(kept, t_leaves):
        assert tuple(shape) == tuple(t.grad.shape) and stride == t.grad.stride()
        np.testing.assert_allclose(np.frombuffer(raw, t.grad.numpy().dtype).reshape(shape), t.grad.numpy(),
                                   rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("build", BUILDS)
def test_kept_gradient_shares_memory_with_nothing_else(build, monkeypatch):
    _, leaves, extra = _grads_of(build, True, monkeypatch)
    grads = [t.grad for t in leaves]
    for i, g in enumerate(grads):
        for h in grads[i + 1:]:
            assert not strided.shares_memory(g, h)
    if isinstance(extra, list):  # the hook's kept gradients
        for h in extra:
            assert not strided.shares_memory(grads[0], h)
    elif isinstance(extra, np.ndarray):
        assert not np.shares_memory(grads[0].numpy(), extra)
        extra[...] = 99.0
        assert grads[0].tolist() == [5.0, 6.0]
    elif extra is not None:
        assert not strided.shares_memory(grads[0], extra)


def test_second_backward_accumulates_into_the_kept_gradient_alone(monkeypatch):
    a = strided.tensor([1.0, 2.0], requires_grad=True)
    c = strided.tensor([3.0, 4.0], requires_grad=True)
    (a * 2.0 + c * 5.0).sum().backward()
    (a * 2.0 + c * 5.0).sum().backward()
    assert a.grad.tolist() == [4.0, 4.0] and c.grad.tolist() == [10.0, 10.0]
    ta = torch.tensor([1.0, 2.0], requires_grad=True)
    (ta * 2.0).sum().backward()
    (ta * 2.0).sum().backward()
    assert ta.grad.tolist() == a.grad.tolist()


def test_the_kept_gradient_is_the_product_itself():
    """The point of it: the weight's gradient (a fresh product) is kept, not copied; the bias's
    (a reshaped sum: a view) and a gradient that is not row-major like the leaf are copied."""
    seen = []
    real = engine._sole_owner
    try:
        engine._sole_owner = lambda g, like: seen.append(real(g, like)) or seen[-1]
        _linear(strided)
    finally:
        engine._sole_owner = real
    assert True in seen


def test_watched_backward_copies(monkeypatch):
    a = strided.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    real = engine._sole_owner
    monkeypatch.setattr(engine, "_sole_owner", lambda g, like: seen.append(real(g, like)) or seen[-1])
    with strided.watch():
        (a * 3.0).sum().backward()
    assert seen == [False]
    assert a.grad.tolist() == [3.0, 3.0]
