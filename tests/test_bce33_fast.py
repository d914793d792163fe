"""Session 33's compiled small-call paths of ``F.binary_cross_entropy`` and ``F.linear``.

``bce_np`` (``_ufunc_chain.h``): the fresh path's range test and per-element losses in one C call
(NumPy's own log and log1p loops, then the same IEEE steps): the bytes of the NumPy expression it
replaces, the forward's bytes (a weight of ones: each loss times 1.0), PyTorch's values, and the
forward's errors for inputs outside [0, 1]. ``matkernel.linear``: ``np.matmul(x, w.T)``'s gemm
from C: NumPy's bytes, the general path's (``_FAST_LINEAR`` off), declined where NumPy would
make another call. Each: where the compiled path is taken and where it is not."""

from __future__ import annotations

import types

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import strided
import strided.nn.functional as F
from blas_reference import one_torch_thread, reference_matmul, route_takes
from strided.kernels import native
from strided.nn.functional import layers, losses
from strided.ops.linalg import matkernel

torch = pytest.importorskip("torch")
torch.set_num_threads(1)

_K = native.special()
_BCE = _K is not None and hasattr(_K, "bce_np")
needs_bce = pytest.mark.skipif(not _BCE, reason="the special kernel is not built with NumPy's headers")
needs_mm = pytest.mark.skipif(not matkernel.ready(), reason="the matrix kernel or NumPy's openblas is not here")

DTYPES = [(np.float32, strided.float32, torch.float32), (np.float64, strided.float64, torch.float64)]


def _numpy_bce(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The NumPy expression of the fresh path (and of the forward), as it was before bce_np."""
    with np.errstate(all="ignore"):
        return -(y * np.maximum(np.log(x), -100) + (1 - y) * np.maximum(np.log1p(-x), -100))


def _probabilities(n: int, dt: type, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """x and y in [0, 1] with the hard ones mixed in: 0, 1, -0.0, tiny (log clamped at -100),
    next to 1 (log1p clamped), the smallest subnormal."""
    rng = np.random.default_rng(seed)
    x, y = rng.random(n).astype(dt), rng.random(n).astype(dt)
    special = np.array([0.0, 1.0, -0.0, 1e-45 if dt is np.float32 else 1e-320, np.finfo(dt).smallest_subnormal,
                        np.nextafter(dt(1), dt(0)), np.exp(dt(-101)), 1 - np.finfo(dt).eps, 0.5], dt)
    if n:
        x[rng.integers(0, n, min(n, 2 * special.size))] = rng.choice(special, min(n, 2 * special.size))
        y[rng.integers(0, n, min(n, 6))] = rng.choice(np.array([0.0, 1.0, -0.0], dt), min(n, 6))
    return x, y


# ---------------------------------------------------------------- bce_np itself


@needs_bce
@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 2, 7, 16, 17, 511, 512, 513, 1500, 5000])
def test_bce_np_gives_the_numpy_expressions_bytes(dt, n):
    for seed in range(4):
        x, y = _probabilities(n + 1, dt, seed)
        for xs, ys in ((x[:n], y[:n]), (x[1:], y[1:])):  # (a run starting one element in, too)
            out = np.full(n, np.nan, dt)
            assert _K.bce_np(xs, ys, out) is True
            assert out.tobytes() == _numpy_bce(xs, ys).tobytes()


@needs_bce
@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_bce_np_over_a_sweep_of_x(dt):
    """Every 997th float32 pattern in [0, 1] (the float64 sweep: a log grid), with y 0, 1 and random."""
    if dt is np.float32:
        x = np.arange(0, int(np.float32(1).view(np.uint32)) + 1, 997, dtype=np.uint32).view(np.float32)
        x = np.concatenate([x, np.float32([1.0])])
    else:
        x = np.concatenate([np.float64([0.0, 1.0]), np.logspace(-320, 0, 200_000), 1 - np.logspace(-17, -1, 50_000)])
    for y in (np.zeros_like(x), np.ones_like(x), np.random.default_rng(5).random(x.size).astype(dt)):
        out = np.empty_like(x)
        assert _K.bce_np(x, y, out) is True
        assert out.tobytes() == _numpy_bce(x, y).tobytes()


@needs_bce
@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("bad", [np.nan, -np.nan, 1.0000001, -1e-30, -1.0, np.inf, -np.inf, 2.0])
@pytest.mark.parametrize("where", ["x", "y"])
def test_bce_np_declines_outside_the_unit_interval(dt, bad, where):
    x, y = _probabilities(600, dt, 1)
    (x if where == "x" else y)[550] = bad
    out = np.full(600, 7.0, dt)
    assert _K.bce_np(x, y, out) is False
    assert (out == 7.0).all()  # (nothing written)


@needs_bce
def test_bce_np_declines_what_it_does_not_take():
    x = np.full(4, 0.5, np.float32)
    assert _K.bce_np(x, x, x) is False  # (out overlaps x)
    assert _K.bce_np(x, x, np.empty(4)) is False  # (another format)
    assert _K.bce_np(x, x.astype(np.float64), np.empty(4, np.float32)) is False
    assert _K.bce_np(x, x, np.empty(5, np.float32)) is False  # (another length)
    assert _K.bce_np(np.full(8, 0.5, np.float32)[::2], x, np.empty(4, np.float32)) is False  # (a step)
    assert _K.bce_np(x.astype(np.float16), x.astype(np.float16), np.empty(4, np.float16)) is False
    assert _K.bce_np(x[:0], x[:0], np.empty(0, np.float32)) is False  # (nothing to do: the caller never asks)
    with pytest.raises(TypeError, match="takes 3 arguments"):
        _K.bce_np(x, x)


# ---------------------------------------------------------------- F.binary_cross_entropy


@pytest.mark.parametrize("shape", [(3, 4), (16, 16), (), (1,), (5, 1, 7), (40, 33)])
@pytest.mark.parametrize("dts", DTYPES)
@pytest.mark.parametrize("red", ["mean", "sum", "none"])
def test_bce_gives_the_forwards_bits_and_torchs_values(shape, dts, red):
    n = int(np.prod(shape))
    x, y = _probabilities(n, dts[0], 3)
    x, y = x.reshape(shape), y.reshape(shape)
    fast = F.binary_cross_entropy(strided.tensor(x), strided.tensor(y), reduction=red)
    # (a weight of ones: the forward itself, each loss times 1.0, exactly)
    forward = F.binary_cross_entropy(strided.tensor(x), strided.tensor(y), strided.ones(()).to(dts[1]),
                                     reduction=red)
    with native.disabled():  # (the NumPy calls of the fresh path)
        numpy = F.binary_cross_entropy(strided.tensor(x), strided.tensor(y), reduction=red)
    expected = torch.nn.functional.binary_cross_entropy(torch.from_numpy(x), torch.from_numpy(y), reduction=red)
    for got in (fast, numpy):
        assert got.dtype is forward.dtype and tuple(got.shape) == tuple(expected.shape)
        assert tuple(got.stride()) == tuple(expected.stride())
        assert got.numpy().tobytes() == forward.numpy().tobytes()
    np.testing.assert_allclose(fast.numpy(), expected.numpy(), rtol=2e-5 if dts[0] is np.float32 else 1e-12)


@pytest.mark.parametrize("layout", ["transposed", "sliced", "expanded", "empty"])
def test_bce_other_layouts_match_torch(layout):
    x, y = _probabilities(24, np.float32, 4)
    x, y = x.reshape(4, 6), y.reshape(4, 6)

    def make(a, lib):
        t = strided.tensor(a) if lib == "s" else torch.from_numpy(a.copy())
        return {"transposed": t.t(), "sliced": t[:, ::2], "expanded": t[:1].expand(4, 6), "empty": t[:0]}[layout]

    for red in ("mean", "sum", "none"):
        s = F.binary_cross_entropy(make(x, "s"), make(y, "s"), reduction=red)
        t = torch.nn.functional.binary_cross_entropy(make(x, "t"), make(y, "t"), reduction=red)
        assert tuple(s.shape) == tuple(t.shape) and tuple(s.stride()) == tuple(t.stride())
        np.testing.assert_allclose(s.numpy(), t.numpy(), rtol=2e-5)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from([0.0, 1.0, -0.0, 0.5, 1e-30, 1e-40, 0.999999, 0.25, 3e-39]), min_size=1, max_size=40),
       st.lists(st.floats(0.0, 1.0, width=32), min_size=1, max_size=40), st.sampled_from(["mean", "sum", "none"]))
def test_bce_hypothesis_against_the_forward(xs, ys, red):
    n = min(len(xs), len(ys))
    x, y = np.array(xs[:n], np.float32), np.array(ys[:n], np.float32)
    fast = F.binary_cross_entropy(strided.tensor(x), strided.tensor(y), reduction=red)
    forward = F.binary_cross_entropy(strided.tensor(x), strided.tensor(y), strided.ones(()), reduction=red)
    assert fast.numpy().tobytes() == forward.numpy().tobytes()


@pytest.mark.parametrize("bad", [1.5, float("nan"), -1e-30, float("inf")])
@pytest.mark.parametrize("dt", [strided.float32, strided.float64])
def test_bce_errors_are_the_forwards(bad, dt):
    good = strided.tensor([[0.5, 0.25, 1.0]], dtype=dt)
    bad_t = strided.tensor([[0.5, bad, 0.0]], dtype=dt)
    for args, which in (((bad_t, good), "input"), ((good, bad_t), "target")):
        with pytest.raises(RuntimeError) as fast:
            F.binary_cross_entropy(*args)
        with pytest.raises(RuntimeError) as forward:  # (a weight: the forward's own checks)
            F.binary_cross_entropy(*args, strided.ones((), dtype=dt))
        assert str(fast.value) == str(forward.value)
        assert str(fast.value).splitlines()[0] == f"all elements of {which} should be between 0 and 1"
        with pytest.raises(RuntimeError, match=f"all elements of {which} should be between 0 and 1"):
            torch.nn.functional.binary_cross_entropy(torch.tensor(args[0].numpy()), torch.tensor(args[1].numpy()))
    text = str(fast.value)
    assert ("1 NaN, of its 3 elements" in text) if bad != bad else ("1 below 0 or above 1" in text)


def _spy_bce(monkeypatch) -> list:
    """Count bce_np's calls (losses reads the kernel through its own ``special``)."""
    calls: list = []
    real = native.special()
    if real is None or not hasattr(real, "bce_np"):
        pytest.skip("no compiled bce_np")
    fake = types.SimpleNamespace(bce_np=lambda *a: calls.append(1) or real.bce_np(*a))
    monkeypatch.setattr(losses, "special", lambda: fake)
    return calls


def test_bce_compiled_path_taken_for_its_common_call_only(monkeypatch):
    calls = _spy_bce(monkeypatch)
    p = strided.tensor([[0.25, 0.5], [1.0, 0.0]])
    F.binary_cross_entropy(p, p)
    F.binary_cross_entropy(p, p, reduction="sum")
    F.binary_cross_entropy(p, p, reduction="none")
    assert len(calls) == 3
    x, y = _probabilities(5000, np.float64, 2)  # (float64, many blocks)
    F.binary_cross_entropy(strided.tensor(x), strided.tensor(y))
    assert len(calls) == 4
    with pytest.raises(RuntimeError, match="all elements of input should be between 0 and 1"):
        F.binary_cross_entropy(strided.tensor([2.0]), strided.tensor([1.0]))  # (asked, declined: the forward)
    assert len(calls) == 5


def test_bce_compiled_path_not_taken_elsewhere(monkeypatch):
    calls = _spy_bce(monkeypatch)
    p = strided.tensor([[0.25, 0.5], [1.0, 0.0]])
    F.binary_cross_entropy(p.t(), p.t())  # (a transpose: the forward)
    F.binary_cross_entropy(p, p, strided.ones(2))  # (a weight)
    F.binary_cross_entropy(p, p, size_average=False)  # (a legacy flag)
    F.binary_cross_entropy(p.clone().requires_grad_(), p)  # (autograd)
    F.binary_cross_entropy(p[:0], p[:0])  # (empty)
    with strided.watch():
        F.binary_cross_entropy(p, p)  # (a listener)
    assert calls == []
    F.binary_cross_entropy(p, p)
    assert calls == [1]


def test_bce_gradients_unchanged():
    x, y = _probabilities(12, np.float32, 7)
    x = np.clip(x, 0.01, 0.99).reshape(3, 4)
    s = strided.tensor(x, requires_grad=True)
    t = torch.tensor(x, requires_grad=True)
    ls = F.binary_cross_entropy(s, strided.tensor(y.reshape(3, 4)))
    lt = torch.nn.functional.binary_cross_entropy(t, torch.from_numpy(y.reshape(3, 4)))
    ls.backward()
    lt.backward()
    np.testing.assert_allclose(s.grad.numpy(), t.grad.numpy(), rtol=1e-5)


# ---------------------------------------------------------------- F.linear


@needs_mm
@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("nkm", [(2, 2, 2), (3, 4, 3), (16, 16, 16), (5, 7, 3), (33, 64, 40), (64, 64, 64), (2, 100, 9)])
def test_matkernel_linear_is_numpys_matmul(dt, nkm):
    n, k, m = nkm
    rng = np.random.default_rng(n * k * m)
    for special in (False, True):
        a, w = rng.standard_normal((n, k)).astype(dt), rng.standard_normal((m, k)).astype(dt)
        if special:
            a[0, 1], w[1, 0], w[-1, -1] = np.nan, np.inf, -0.0
        t = matkernel.linear(strided.tensor(a), strided.tensor(w))
        with np.errstate(all="ignore"):
            ref = reference_matmul(a, w.T)  # (NumPy's matmul, or PyTorch's where the MKL route takes it)
        assert t is not None and t.dtype.name == np.dtype(dt).name
        assert tuple(t.shape) == (n, m) and tuple(t.stride()) == (m, 1)
        assert t.numpy().tobytes() == ref.tobytes()


@needs_mm
def test_matkernel_linear_declines_what_numpy_makes_otherwise():
    a = strided.tensor(np.arange(12.0, dtype=np.float32).reshape(3, 4))
    assert matkernel.linear(a, a) is None  # (x @ x.T: NumPy's syrk)
    assert matkernel.linear(a[:1], a) is None  # (a size of 1: gemv)
    assert matkernel.linear(a, a[:1]) is None
    assert matkernel.linear(a[:, :1], a[:, :1]) is None
    assert matkernel.linear(a.t(), a.t()) is None  # (not row-major)
    assert matkernel.linear(a[:, ::2], a[:, ::2]) is None
    assert matkernel.linear(a, a.double()) is None  # (two dtypes)
    assert matkernel.linear(a.half(), a.half().clone()) is None
    assert matkernel.linear(a, strided.ones(3, 5)) is None  # (sizes that do not multiply)
    big = strided.ones(65, 65)
    assert matkernel.linear(big, big.clone()) is None  # (more than LIMIT multiply-adds: NumPy's call)
    assert matkernel.linear(a, 3) is None and matkernel.linear(np.ones((3, 4)), a) is None
    b = a.clone()
    assert matkernel.linear(a, b) is not None  # (the same values in another matrix: gemm)


@pytest.mark.parametrize("dts", DTYPES)
@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((16, 16), (16, 16)), ((8, 5), (7, 5)), ((1, 4), (3, 4)),
                                    ((3, 1), (2, 1)), ((3, 4), (1, 4)), ((0, 4), (3, 4))])
@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("layout", ["rowmajor", "offset", "transposed"])
def test_linear_matches_the_general_path_and_torch(monkeypatch, dts, shapes, bias, layout):
    rng = np.random.default_rng(9)
    a, w = rng.standard_normal(shapes[0]).astype(dts[0]), rng.standard_normal(shapes[1]).astype(dts[0])
    b = rng.standard_normal(shapes[1][0]).astype(dts[0])

    def lay(arr):
        if layout == "offset":
            return strided.tensor(np.concatenate([arr.reshape(-1), arr.reshape(-1)]))[arr.size:].view(arr.shape)
        if layout == "transposed":
            return strided.tensor(np.ascontiguousarray(arr.T)).t()
        return strided.tensor(arr)

    args = (lay(a), lay(w)) + ((strided.tensor(b),) if bias else ())
    fast = F.linear(*args)
    monkeypatch.setattr(layers, "_FAST_LINEAR", False)
    general = F.linear(*args)
    expected = torch.nn.functional.linear(torch.from_numpy(a), torch.from_numpy(w),
                                          torch.from_numpy(b) if bias else None)
    assert fast.dtype is general.dtype and tuple(fast.shape) == tuple(expected.shape)
    assert tuple(fast.stride()) == tuple(general.stride()) == tuple(expected.stride())
    if bias and route_takes(shapes[0][0], shapes[0][1], shapes[1][0], dts[0]):
        # (the MKL route: PyTorch's addmm, the bias filled in and one gemm with beta = 1, on the same
        # views; the general path's product-then-add rounds twice, which gives the same bits on an
        # AVX-512 CPU only: MKL's AVX2 kernels start their sums from the bias)
        with one_torch_thread():
            same_views = torch.nn.functional.linear(torch.from_numpy(lay(a).numpy()), torch.from_numpy(lay(w).numpy()),
                                                    torch.from_numpy(b))
        assert fast.numpy().tobytes() == same_views.numpy().tobytes()
    else:
        assert fast.numpy().tobytes() == general.numpy().tobytes()
    assert fast._version == 0 and fast._base is None
    np.testing.assert_allclose(fast.numpy(), expected.numpy(), rtol=1e-4 if dts[0] is np.float32 else 1e-12,
                               atol=1e-5 if dts[0] is np.float32 else 1e-12)


def test_linear_errors_unchanged():
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(3x4 and 5x3\)"):
        F.linear(strided.ones(3, 4), strided.ones(3, 5))
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(3x4 and 5x3\)"):
        torch.nn.functional.linear(torch.ones(3, 4), torch.ones(3, 5))


@needs_mm
def test_linear_compiled_path_taken_for_its_common_call_only(monkeypatch):
    made = []  # (the compiled product's tensors: its asks that it answered)
    real = matkernel.linear
    monkeypatch.setattr(matkernel, "linear", lambda *a: (lambda t: t is not None and made.append(t) or t)(real(*a)))
    x, w = strided.ones(3, 4), strided.ones(5, 4)
    F.linear(x, w)
    F.linear(x, w, strided.ones(5))
    assert len(made) == 2
    F.linear(x.clone().requires_grad_(), w)  # (autograd: the fresh path's result, recorded)
    assert len(made) == 3
    F.linear(x.t().contiguous().t(), w)  # (a transposed input: declined, NumPy's call)
    F.linear(x[:1], w)  # (a size of 1: NumPy's gemv)
    F.linear(x, w, strided.ones(1))  # (a bias that broadcasts: the general path)
    with strided.watch():
        F.linear(x, w)  # (a listener: the general path)
    assert len(made) == 3
