"""strided.nn.functional against torch.nn.functional: values (to a dtype tolerance), shapes, strides,
dtypes, error classes and first lines; the copy ledger for pad; dropout's seeding."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as TF
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
import strided.nn.functional as F
from oracle_helpers import compare
from strided.ops.creation.generator import manual_seed

TOL = {"float16": (5e-3, 5e-3), "float32": (1e-5, 1e-6), "float64": (1e-12, 1e-12)}
RNG = np.random.default_rng(12)


def both(a: np.ndarray) -> tuple[torch.Tensor, st.Tensor]:
    """The same array (and so the same layout, permuted or sliced) in torch and strided."""
    a = np.asarray(a)
    return torch.from_numpy(a), st.from_numpy(a)


def floats(*shape: int, dtype: str = "float32", permuted: bool = False) -> np.ndarray:
    """Values of ``shape``; ``permuted``: a transposed view over a contiguous buffer."""
    if permuted:
        return (RNG.standard_normal(shape[::-1]) * 2).astype(dtype).T
    return (RNG.standard_normal(shape) * 2).astype(dtype)


def check(torch_call, strided_call, tol=TOL) -> None:
    compare(torch_call, strided_call, tol)


def same(name: str, targs: tuple, sargs: tuple, tkw: dict | None = None, skw: dict | None = None, **kw) -> None:
    """``torch.nn.functional.<name>(*targs)`` and ``strided.nn.functional.<name>(*sargs)`` agree
    (keywords ``kw`` to both, ``tkw``/``skw`` to one)."""
    tk, sk = {**kw, **(tkw or {})}, {**kw, **(skw or {})}
    compare(lambda: getattr(TF, name)(*targs, **tk), lambda: getattr(F, name)(*sargs, **sk), TOL)


# ---------------------------------------------------------------- activations


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("shape", [(3, 4), (), (0, 3), (2, 3, 4)])
def test_activations(dtype, shape):
    a = floats(*shape, dtype=dtype, permuted=len(shape) > 1) * 8
    t, s = both(a)
    check(lambda: TF.relu(t), lambda: F.relu(s))
    check(lambda: TF.silu(t), lambda: F.silu(s))
    check(lambda: TF.softplus(t), lambda: F.softplus(s))
    check(lambda: TF.softplus(t, beta=2, threshold=1), lambda: F.softplus(s, beta=2, threshold=1))


def test_activations_refuse_integers_and_silu_inplace_writes_through_views():
    t, s = both(np.arange(6).reshape(2, 3))
    check(lambda: TF.silu(t), lambda: F.silu(s))
    check(lambda: TF.softplus(t), lambda: F.softplus(s))
    check(lambda: TF.relu(t), lambda: F.relu(s))
    base = st.tensor([[1.0, -2.0], [3.0, 0.5]])
    out = F.silu(base.T, inplace=True)
    expect = TF.silu(torch.tensor([[1.0, -2.0], [3.0, 0.5]]))
    assert out._storage is base._storage
    np.testing.assert_allclose(base.numpy(), expect.numpy(), rtol=1e-6)


def test_softmax_dims_and_implicit_dim_warning():
    for shape in [(5,), (3, 4), (2, 3, 4), (2, 3, 4, 5)]:
        a = floats(*shape, permuted=True)
        t, s = both(a)
        same("softmax", (t,), (s,))
        with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
            F.softmax(s)
        same("log_softmax", (t, -1), (s, -1))
        same("log_softmax", (t, 0), (s, 0), {"dtype": torch.float64}, {"dtype": st.float64})


# ---------------------------------------------------------------- losses


def _targets(shape, classes, ignore=None):
    y = RNG.integers(0, classes, size=shape)
    if ignore is not None:
        y.ravel()[::3] = ignore
    return y


CE_CASES = [
    # (input shape, target shape, kwargs)
    ((6, 4), (6,), {}),
    ((6, 4), (6,), {"reduction": "sum"}),
    ((6, 4), (6,), {"reduction": "none"}),
    ((6, 4), (6,), {"weight": "w"}),
    ((6, 4), (6,), {"ignore_index": 1}),
    ((6, 4), (6,), {"ignore_index": -100, "weight": "w", "label_smoothing": 0.2}),
    ((6, 4), (6,), {"label_smoothing": 0.3, "reduction": "sum"}),
    ((6, 4), (6,), {"label_smoothing": 0.3, "reduction": "none", "ignore_index": 2}),
    ((2, 3, 5), (2, 5), {}),
    ((2, 3, 4, 5), (2, 4, 5), {"reduction": "none", "weight": "w"}),
    ((2, 3, 2, 2, 2), (2, 2, 2, 2), {"label_smoothing": 0.1}),
    ((4,), (), {}),
    ((0, 3), (0,), {}),
    ((0, 3), (0,), {"reduction": "sum"}),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", CE_CASES, ids=str)
def test_cross_entropy_and_nll_class_indices(case, dtype):
    shape, tshape, kwargs = case
    classes = shape[0] if len(shape) == 1 else shape[1]
    x = floats(*shape, dtype=dtype, permuted=len(shape) == 2)
    y = _targets(tshape, classes, kwargs.get("ignore_index") if kwargs.get("ignore_index", -100) != -100 else None)
    if kwargs.get("ignore_index") == -100:
        y.ravel()[::4] = -100
    tx, sx = both(x)
    ty, sy = both(y)
    tk, sk = dict(kwargs), dict(kwargs)
    if "weight" in kwargs:
        w = RNG.random(classes).astype(dtype) + 0.5
        tk["weight"], sk["weight"] = both(w)
    check(lambda: TF.cross_entropy(tx, ty, **tk), lambda: F.cross_entropy(sx, sy, **sk))
    tk.pop("label_smoothing", None)
    sk.pop("label_smoothing", None)
    check(lambda: TF.nll_loss(tx, ty, **tk), lambda: F.nll_loss(sx, sy, **sk))


@pytest.mark.parametrize("kwargs", [{}, {"label_smoothing": 0.25}, {"weight": True}, {"reduction": "none"},
                                    {"reduction": "sum", "weight": True, "label_smoothing": 0.5}])
def test_cross_entropy_probability_targets(kwargs):
    for shape in [(5, 3), (2, 3, 4)]:
        x = floats(*shape)
        p = RNG.random(shape).astype("float32")
        p /= p.sum(axis=1, keepdims=True)
        tx, sx = both(x)
        tp, sp = both(p)
        tk, sk = dict(kwargs), dict(kwargs)
        if kwargs.get("weight"):
            tk["weight"], sk["weight"] = both(RNG.random(3).astype("float32") + 0.5)
        same("cross_entropy", (tx, tp), (sx, sp), tk, sk)


def test_loss_errors_match_torch():
    tx, sx = both(floats(4, 3))
    cases = [
        (np.array([0, 3, 1, 2]), {}),  # out of range: IndexError
        (np.array([0, -1, 1, 2]), {}),
        (np.array([0.0, 2, 1, 2]), {}),  # float target of another shape
        (np.array([0, 2, 1, 2], dtype=np.int32), {}),
        (np.array([0, 2, 1]), {}),  # batch mismatch: ValueError
        (np.array([[0, 2, 1, 1]]), {}),
        (np.array([0, 2, 1, 2]), {"reduction": "bogus"}),
        (np.array([0, 2, 1, 2]), {"weight": np.ones(4, dtype=np.float32)}),
        (np.array([0, 2, 1, 2]), {"label_smoothing": 1.5}),
        (np.ones((4, 2), dtype=np.float32), {}),
    ]
    for y, kwargs in cases:
        ty, sy = both(y)
        tk, sk = dict(kwargs), dict(kwargs)
        if "weight" in kwargs:
            tk["weight"], sk["weight"] = both(kwargs["weight"])
        same("cross_entropy", (tx, ty), (sx, sy), tk, sk)
        tk.pop("label_smoothing", None)
        sk.pop("label_smoothing", None)
        same("nll_loss", (tx, ty), (sx, sy), tk, sk)
    tl, sl = both(np.arange(12).reshape(4, 3))
    ty, sy = both(np.array([0, 1, 2, 0]))
    check(lambda: TF.cross_entropy(tl, ty), lambda: F.cross_entropy(sl, sy))
    for shape, tshape in [((2, 3, 5), (2, 4)), ((2, 3, 5, 6), (2, 4))]:
        tx3, sx3 = both(floats(*shape))
        ty3, sy3 = both(np.zeros(tshape, dtype=np.int64))
        same("nll_loss", (tx3, ty3), (sx3, sy3))
    tli, sli = both(np.zeros((4, 3), dtype=np.int64))
    check(lambda: TF.cross_entropy(tx, tli), lambda: F.cross_entropy(sx, sli))  # long probability target


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_mse_loss(reduction):
    x = floats(4, 3, permuted=True)
    for other in [floats(4, 3), np.zeros((4, 3)), np.arange(12).reshape(4, 3), floats(3)]:
        tx, sx = both(x)
        to, so = both(other)
        same("mse_loss", (tx, to), (sx, so), reduction=reduction)
    with pytest.warns(UserWarning, match="Using a target size"):
        F.mse_loss(st.zeros(4, 3), st.zeros(3))
    ti, si = both(np.arange(6).reshape(2, 3))
    check(lambda: TF.mse_loss(ti, ti), lambda: F.mse_loss(si, si))
    tb, sb = both(floats(5))
    check(lambda: TF.mse_loss(tx, tb), lambda: F.mse_loss(sx, sb))
    check(lambda: TF.mse_loss(tx, tx, reduction="x"), lambda: F.mse_loss(sx, sx, reduction="x"))


# ---------------------------------------------------------------- layers


def test_linear():
    tx, sx = both(floats(4, 3, permuted=True))
    tw, sw = both(floats(5, 3))
    tb, sb = both(floats(5))
    check(lambda: TF.linear(tx, tw), lambda: F.linear(sx, sw))
    check(lambda: TF.linear(tx, tw, tb), lambda: F.linear(sx, sw, sb))
    t3, s3 = both(floats(2, 4, 3))
    check(lambda: TF.linear(t3, tw, tb), lambda: F.linear(s3, sw, sb))
    tb4, sb4 = both(floats(4))
    check(lambda: TF.linear(tx, tw, tb4), lambda: F.linear(sx, sw, sb4))
    tw4, sw4 = both(floats(5, 4))
    check(lambda: TF.linear(tx, tw4), lambda: F.linear(sx, sw4))


def test_dropout_is_seeded_scaled_and_checks_p():
    x = st.ones(2000)
    manual_seed(3)
    a = F.dropout(x, 0.25)
    manual_seed(3)
    b = F.dropout(x, 0.25)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    values = a.numpy()
    assert set(np.unique(values).tolist()) <= {0.0, float(np.float32(1 / 0.75))}
    kept = (values != 0).mean()
    assert abs(kept - 0.75) < 4 * np.sqrt(0.75 * 0.25 / 2000)
    assert F.dropout(x, training=False) is x
    assert F.dropout(x, 0.0) is x
    tx, sx = both(floats(3, 4, permuted=True))
    check(lambda: TF.dropout(tx, 1.0), lambda: F.dropout(sx, 1.0))
    check(lambda: TF.dropout(tx, 1.5), lambda: F.dropout(sx, 1.5))
    check(lambda: TF.dropout(tx.long(), 0.5), lambda: F.dropout(sx.to(st.int64), 0.5))
    base = st.ones(4, 6)
    out = F.dropout(base[:, ::2], 0.5, inplace=True)
    assert out._storage is base._storage
    assert set(np.unique(base.numpy()[:, ::2])) <= {0.0, 2.0}
    np.testing.assert_array_equal(base.numpy()[:, 1::2], 1.0)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_layer_norm(dtype):
    x = floats(3, 4, 5, dtype=dtype, permuted=True)
    tx, sx = both(x)
    tw, sw = both(floats(5, dtype=dtype))
    tb, sb = both(floats(5, dtype=dtype))
    check(lambda: TF.layer_norm(tx, (5,)), lambda: F.layer_norm(sx, (5,)))
    check(lambda: TF.layer_norm(tx, (5,), tw, tb), lambda: F.layer_norm(sx, (5,), sw, sb))
    check(lambda: TF.layer_norm(tx, [4, 5], eps=0.1), lambda: F.layer_norm(sx, [4, 5], eps=0.1))
    te, se = both(np.zeros((0, 5), dtype=dtype))
    check(lambda: TF.layer_norm(te, (5,)), lambda: F.layer_norm(se, (5,)))


def test_layer_norm_errors():
    tx, sx = both(floats(4, 3))
    for args in [((4,),), ((),), ((5, 4, 3),), ((4, 3),)]:
        same("layer_norm", (tx, *args), (sx, *args))
    tw, sw = both(np.ones(4, dtype=np.float32))
    check(lambda: TF.layer_norm(tx, (3,), tw), lambda: F.layer_norm(sx, (3,), sw))
    check(lambda: TF.layer_norm(tx, (3,), None, tw), lambda: F.layer_norm(sx, (3,), None, sw))
    td, sd = both(np.ones(3))
    check(lambda: TF.layer_norm(tx, (3,), td), lambda: F.layer_norm(sx, (3,), sd))
    check(lambda: TF.layer_norm(tx.long(), (3,)), lambda: F.layer_norm(sx.to(st.int64), (3,)))
    check(lambda: TF.layer_norm(tx, 3), lambda: F.layer_norm(sx, 3))


def test_one_hot():
    for data, n in [([0, 2, 1, 2], -1), ([0, 2, 1, 2], 5), ([[1, 0], [3, 3]], -1), (2, 3), ([], 3),
                    ([0, 2], 2), ([-1, 0], -1), ([], -1), ([0, 1], 0)]:
        arr = np.array(data, dtype=np.int64)
        t, s = both(arr)
        same("one_hot", (t, n), (s, n))
    t, s = both(np.array([0, 1], dtype=np.int32))
    check(lambda: TF.one_hot(t), lambda: F.one_hot(s))
    t, s = both(np.arange(6).reshape(2, 3).T)
    check(lambda: TF.one_hot(t), lambda: F.one_hot(s))


PAD_CASES = [((1, 2), {}), ((1, 2, 0, 1), {"value": 7.0}), ((-1, 1), {}), ((0, 0, 2, 0), {"value": -1.5}),
             ((1,), {}), ((1, 1, 1, 1, 1, 1), {}), ((-4, 0), {}), ((-2, -2), {}), ((1, 1), {"mode": "foo"}),
             ([1, 1], {}), ((1.0, 1), {})]


def test_pad():
    tx, sx = both(floats(4, 3, permuted=True))
    for p, kwargs in PAD_CASES:
        same("pad", (tx, p), (sx, p), **kwargs)
    ti, si = both(np.arange(6).reshape(2, 3))
    check(lambda: TF.pad(ti, (1, 1), value=1.5), lambda: F.pad(si, (1, 1), value=1.5))
    with st.record_copies() as copies:
        y = F.pad(sx, (1, 2))
    assert [c.nbytes for c in copies] == [y.numel() * 4]
    assert "pad" in copies[0].reason


def test_softmax_regression_losses_follow_torch():
    """A few SGD steps of softmax regression in torch (autograd); strided's forward loss on the
    same weights equals torch's at every step."""
    x = floats(32, 5)
    y = _targets((32,), 3)
    w = torch.zeros(3, 5, requires_grad=True)
    b = torch.zeros(3, requires_grad=True)
    sx, sy = st.from_numpy(x), st.from_numpy(y)
    for _ in range(4):
        loss = TF.cross_entropy(TF.linear(torch.from_numpy(x), w, b), torch.from_numpy(y))
        mine = F.cross_entropy(F.linear(sx, st.tensor(w.detach().numpy()), st.tensor(b.detach().numpy())), sy)
        assert mine.item() == pytest.approx(loss.item(), rel=1e-5)
        loss.backward()
        with torch.no_grad():
            w -= 0.5 * w.grad
            b -= 0.5 * b.grad
            w.grad = b.grad = None
    assert loss.item() < np.log(3)  # it learned something: the check compared moving weights


EDGE_CASES = [  # (function name, arrays, keywords; weight="w" means one weight per class)
 ("cross_entropy", (RNG.standard_normal((5, 4)).astype("float16"), RNG.integers(0, 4, 5)), {}),
 ("cross_entropy", (RNG.standard_normal((5, 4)).astype("float16"), RNG.integers(0, 4, 5)), {"label_smoothing": 0.1}),
 ("nll_loss", (RNG.standard_normal(4).astype("float32"), np.array([1])), {}),
 ("nll_loss", (RNG.standard_normal(4).astype("float32"), np.array([1])), {"reduction": "none"}),
 ("nll_loss", (RNG.standard_normal(4).astype("float32"), np.array(1)), {"reduction": "none"}),
 ("nll_loss", (RNG.standard_normal(4).astype("float32"), np.array([1, 2])), {}),
 ("cross_entropy", (RNG.standard_normal(4).astype("float32"), np.array(1)), {"reduction": "none"}),
 ("cross_entropy", (RNG.standard_normal(4).astype("float32"), np.array(-100)), {}),
 ("cross_entropy", (RNG.standard_normal(4).astype("float32"), RNG.random(4).astype("float32")), {}),
 ("cross_entropy", (RNG.standard_normal((3, 4)).astype("float32"), np.array([1, 2, 0], dtype=np.uint8)), {}),
 ("cross_entropy", (RNG.standard_normal((0, 4, 2)).astype("float32"), np.zeros((0, 2), dtype=np.int64)), {"reduction": "none"}),
 ("cross_entropy", (RNG.standard_normal((0, 4)).astype("float32"), np.zeros((0, 4), dtype=np.float32)), {}),
 ("cross_entropy", (RNG.standard_normal((3, 0)).astype("float32"), np.zeros((3,), dtype=np.int64)), {}),
 ("cross_entropy", (RNG.standard_normal(()).astype("float32"), np.array(0)), {}),
 ("nll_loss", (RNG.standard_normal(()).astype("float32"), np.array(0)), {}),
 ("cross_entropy", (RNG.standard_normal((3, 4)).astype("float32"), np.array([1, 2, 0])), {"weight": "w", "reduction": "none", "label_smoothing": 0.2}),
 ("cross_entropy", (RNG.standard_normal((3, 4)).astype("float32"), np.array([1, 2, 0])), {"ignore_index": 2, "weight": "w"}),
 ("mse_loss", (RNG.standard_normal((3, 4)).astype("float16"), RNG.standard_normal((3, 4)).astype("float16")), {}),
 ("mse_loss", (np.zeros((0, 3), dtype=np.float32), np.zeros((0, 3), dtype=np.float32)), {}),
 ("mse_loss", (np.float32(2.0), np.float32(1.0)), {}),
 ("softplus", (np.array([1.0, 50.0], dtype=np.float32),), {"beta": 0}),
 ("softplus", (np.array([1.0, -100.0, 100.0], dtype=np.float64),), {"beta": -1}),
 ("one_hot", (np.zeros((2, 0), dtype=np.int64),), {"num_classes": 3}),
 ("pad", (np.arange(6).reshape(2, 3) > 2,), {"pad": (1, 1), "value": 1}),
 ("pad", (np.arange(6, dtype=np.float32).reshape(2, 3),), {"pad": (1, 1, 1, 1)}),
 ("pad", (np.float32(1.0),), {"pad": ()}),
 ("pad", (np.arange(6, dtype=np.float32).reshape(2, 3),), {"pad": (-3, 1)}),
 ("layer_norm", (np.zeros((2, 3), dtype=np.float32),), {"normalized_shape": (3,)}),
 ("linear", (np.ones(3, dtype=np.float32), np.ones((2, 3), dtype=np.float32), np.ones(2, dtype=np.float32)), {}),
 ("linear", (np.ones((2, 3), dtype=np.float32), np.ones(3, dtype=np.float32)), {}),
 ("linear", (np.ones((2, 3), dtype=np.float32), np.ones(3, dtype=np.float32), np.float32(1)), {}),
 ("linear", (np.ones((2, 3)), np.ones((4, 3), dtype=np.float32)), {}),
 ("dropout", (np.ones((2, 3), dtype=np.float32),), {"p": -0.1}),
]


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_edge_cases_follow_torch():
    for name, arrays, kwargs in EDGE_CASES:
        targs, sargs = zip(*(both(a) for a in arrays))
        tk, sk = dict(kwargs), dict(kwargs)
        if kwargs.get("weight") == "w":
            tk["weight"], sk["weight"] = both(np.arange(1, 5, dtype=np.float32))
        same(name, targs, sargs, tk, sk)


@settings(max_examples=60, deadline=None)
@given(n=hs.integers(0, 4), c=hs.integers(1, 4), extra=hs.lists(hs.integers(1, 3), max_size=2),
       reduction=hs.sampled_from(["mean", "sum", "none"]), smoothing=hs.sampled_from([0.0, 0.0, 0.3]),
       weighted=hs.booleans(), probs=hs.booleans(), seed=hs.integers(0, 2**16))
def test_cross_entropy_fuzz(n, c, extra, reduction, smoothing, weighted, probs, seed):
    rng = np.random.default_rng(seed)
    shape = (n, c, *extra)
    x = rng.standard_normal(shape).astype("float64")
    if probs:
        y = rng.random(shape)
        y /= np.maximum(y.sum(axis=1, keepdims=True), 1e-9)
    else:
        y = rng.integers(-1, c, size=(n, *extra))
        y[y == -1] = -100  # some targets ignored
    tk = {"reduction": reduction, "label_smoothing": smoothing}
    sk = dict(tk)
    if weighted:
        tk["weight"], sk["weight"] = both(rng.random(c) + 0.5)
    tx, sx = both(x)
    ty, sy = both(y)
    same("cross_entropy", (tx, ty), (sx, sy), tk, sk)


@pytest.mark.parametrize("pad", [(1, 2), (1, 2, 0, 1), (-1, 1), (-1, 0, 2, -1), (0, 0)])
def test_pad_of_an_input_requiring_grad_is_differentiable_twice_as_torch(pad):
    # (red team) F.pad returned a tensor without grad_fn: the gradient through it was silently lost
    def run(L, F):
        x = L.tensor(np.arange(6.0).reshape(2, 3) / 7 + 0.3, dtype=L.float64, requires_grad=True)
        y = F.pad(x.t(), pad, value=0.5)
        w = L.tensor(np.random.default_rng(0).standard_normal(tuple(y.shape)), dtype=L.float64)
        (g,) = L.autograd.grad(((y ** 3) * w).sum() + x.sum(), x, create_graph=True)
        (g2,) = L.autograd.grad(g.sum(), x)
        return y.detach().numpy(), g.detach().numpy(), g2.numpy()

    for a, b in zip(run(st, F), run(torch, TF)):
        np.testing.assert_allclose(a, b, rtol=1e-12)


_PAD_MODE_CASES = [((2, 1), (2, 3)), ((2, 1), (2, 2, 3)), ((1, 1, -1, 2), (1, 1, 3, 4)), ((1, 1, 3, 0), (1, 3, 4)),
                   ((0, 1, 1, 0, 2, 1), (1, 2, 3, 3, 4)), ((-1, 2, 0, 1), (2, 3, 4)), ((3, 0), (1, 3)),
                   ((4, 0), (1, 3)), ((1, 1), (3,)), ((1, 1), (1, 1, 1, 1, 2)), ((1, 1, 1, 1), (1, 0, 3, 4)),
                   ((1, 1, 1, 1), (0, 1, 3, 4)), ((1, 1, 1, 1), (1, 1, 0, 4))]


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_pad_modes_give_torchs_values_gradients_and_errors(mode):
    for pad, shape in _PAD_MODE_CASES:
        a = floats(*shape, dtype="float64", permuted=True) if len(shape) > 1 else floats(*shape)
        tx, sx = both(a)  # (a transposed layout, except 1-D)
        check(lambda tx=tx, pad=pad: TF.pad(tx, pad, mode=mode), lambda sx=sx, pad=pad: F.pad(sx, pad, mode=mode))
        tg, sg = torch.tensor(a, requires_grad=True), st.tensor(a, requires_grad=True)
        try:
            ty = TF.pad(tg, pad, mode=mode)
        except (RuntimeError, NotImplementedError):
            continue  # (the error itself is compared above)
        w = np.random.default_rng(1).standard_normal(tuple(ty.shape))
        (ty * torch.tensor(w)).sum().backward()
        (F.pad(sg, pad, mode=mode) * st.tensor(w)).sum().backward()
        np.testing.assert_allclose(sg.grad.numpy(), tg.grad.numpy(), rtol=1e-12, atol=1e-12)
    ti, si = both(np.arange(12).reshape(1, 3, 4))  # integers too
    check(lambda: TF.pad(ti, (1, 2), mode=mode), lambda: F.pad(si, (1, 2), mode=mode))
    check(lambda: TF.pad(ti, (1, 2), mode=mode, value=0.0), lambda: F.pad(si, (1, 2), mode=mode, value=0.0))
    check(lambda: TF.pad(ti, (1, 2), mode=mode, value=1.0), lambda: F.pad(si, (1, 2), mode=mode, value=1.0))
    with st.record_copies() as copies:
        y = F.pad(st.ones(2, 3, 4).transpose(1, 2), (1, 1), mode=mode)
    assert [c.nbytes for c in copies] == [y.numel() * y.element_size()] and "pad" in copies[0].reason


def test_an_unknown_pad_mode_is_torchs_error():
    tx, sx = both(floats(2, 3))
    check(lambda: TF.pad(tx, (1, 1), mode="mirror"), lambda: F.pad(sx, (1, 1), mode="mirror"))


def test_linear_result_starts_at_version_zero_as_torchs():
    """F.linear's bias is added into the fresh product, but the result is new memory: its version
    counter reads 0, as PyTorch's addmm result does (contiguous and strided biases, float and int)."""
    for dtype in ("float32", "float64", "int64"):
        for bias_step in (1, 2):
            versions = []
            for lib in (st, torch):
                w = lib.ones(3, 2, dtype=getattr(lib, dtype))
                b = lib.arange(6, dtype=getattr(lib, dtype))[::bias_step][:3]
                x = lib.ones(4, 2, dtype=getattr(lib, dtype))
                out = (F if lib is st else TF).linear(x, w, b)
                versions.append((out._version, out.tolist()))
            assert versions[0] == versions[1]
