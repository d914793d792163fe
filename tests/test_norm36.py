"""F.layer_norm's fresh path and F.batch_norm's evaluation rows (session 36): the compiled passes
(``_rowkernel``'s ln_center / ln_scale / bn_eval) and the trimmed Python around them give the general
path's bits exactly, and PyTorch's values (layer_norm: its bits since normbits36, see
test_normbits36.py; batch_norm: NumPy's formulas, a few ulps from PyTorch's alpha/beta form), over layouts the
fast paths take and the ones they hand on (transposed, stepped, expanded, empty, 0-d statistics),
weight / bias None, eps, float64, autograd; training batch_norm's running statistics; nll_loss."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import strided
import strided.nn.functional as F
from strided.kernels import native
from strided.kernels import rows as R
from strided.nn.functional import layers as Ly

torch.set_num_threads(1)
DTYPES = [np.float32, np.float64]


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).view(np.uint8)


def _close(got: np.ndarray, want: np.ndarray, dtype) -> None:
    tol = 2e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * 10, equal_nan=True)


def _data(rng, shape, dtype, specials=True):
    x = (rng.standard_normal(shape) * rng.uniform(0.1, 10) + rng.uniform(-5, 5)).astype(dtype)
    if specials and x.size > 6:
        x.reshape(-1)[[1, 4]] = [-0.0, 1e4]
    return x


def _extreme(rng, shape, dtype):
    """Values with a NaN, infinities and a 1e30 (whose square overflows float32): compared with the
    general path's bits only (# Note: PyTorch's Welford moments give NaN rows where strided's
    formula gives zeros for a 1e30 among float32 values, before this change too)."""
    x = _data(rng, shape, dtype, specials=False)
    flat = x.reshape(-1)
    flat[rng.integers(0, flat.size, min(4, flat.size))] = [np.nan, np.inf, -np.inf, 1e30][: min(4, flat.size)]
    return x


def _layout(x: np.ndarray, kind: str) -> strided.Tensor:
    """``x``'s values in a strided tensor laid out as ``kind`` (the same values)."""
    if kind == "rowmajor":
        return strided.tensor(x)
    if kind == "transposed":
        return strided.tensor(np.ascontiguousarray(x.T)).T
    if kind == "stepped":
        big = np.zeros((x.shape[0], 2 * x.shape[1]), x.dtype)
        big[:, ::2] = x
        return strided.tensor(big)[:, ::2]
    if kind == "offset":
        return strided.tensor(np.concatenate([np.zeros((1, x.shape[1]), x.dtype), x]))[1:]
    raise AssertionError(kind)


# ------------------------------------------------------------------------------------- layer_norm

LN_SHAPES = [(3, 4), (16, 16), (1, 1), (7, 1), (1, 9), (5, 33), (2, 130), (4, 1000), (2, 3, 7)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", LN_SHAPES)
@pytest.mark.parametrize("affine", ["none", "weight", "bias", "both"])
def test_layer_norm_fresh_is_the_forward_and_torch(dtype, shape, affine):
    rng = np.random.default_rng(hash((shape, affine)) % 2**32)
    x = _data(rng, shape, dtype)
    n = shape[-1]
    w = rng.standard_normal(n).astype(dtype) if affine in ("weight", "both") else None
    b = rng.standard_normal(n).astype(dtype) if affine in ("bias", "both") else None
    S = [None if a is None else strided.tensor(a) for a in (x, w, b)]
    T = [None if a is None else torch.tensor(a) for a in (x, w, b)]
    fresh = Ly._layer_norm_fresh(S[0], (n,), S[1], S[2], 1e-5)
    assert fresh is not None
    entry = F.layer_norm(S[0], (n,), S[1], S[2])  # (positional: the entry takes the fresh path)
    general = F.layer_norm(S[0], (n,), S[1], S[2], eps=1e-5)  # (a keyword: the forward itself)
    with native.disabled():  # (the fresh path's NumPy steps: PyTorch's values, not its bits)
        plain = Ly._layer_norm_fresh(S[0], [n], S[1], S[2], 1e-5)
    for t in (entry, general):
        assert t.shape == fresh.shape and t.stride() == fresh.stride() and t.dtype == fresh.dtype
        assert np.array_equal(_bits(t.numpy()), _bits(fresh.numpy()))
    want = TF.layer_norm(T[0], (n,), T[1], T[2]).numpy()
    assert np.array_equal(_bits(fresh.numpy()), _bits(want))
    _close(plain.numpy(), want, dtype)
    sx = strided.tensor(_extreme(rng, shape, dtype))
    got = F.layer_norm(sx, (n,), S[1], S[2])
    assert np.array_equal(_bits(got.numpy()), _bits(F.layer_norm(sx, (n,), S[1], S[2], eps=1e-5).numpy()))


@pytest.mark.parametrize("kind", ["transposed", "stepped", "offset"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_layer_norm_other_layouts(kind, dtype):
    rng = np.random.default_rng(11)
    x = _data(rng, (6, 5), dtype)
    sx = _layout(x, kind)
    w, b = rng.standard_normal(5).astype(dtype), rng.standard_normal(5).astype(dtype)
    got = F.layer_norm(sx, (5,), strided.tensor(w), strided.tensor(b), 1e-3)
    want = F.layer_norm(strided.tensor(x), (5,), strided.tensor(w), strided.tensor(b), eps=1e-3)
    assert np.array_equal(_bits(got.numpy()), _bits(want.numpy()))
    _close(got.numpy(), TF.layer_norm(torch.tensor(x), (5,), torch.tensor(w), torch.tensor(b), 1e-3).numpy(), dtype)


def test_layer_norm_declined_calls():
    x = strided.ones(2, 3)
    assert Ly._layer_norm_fresh(x, (3,), None, None, 1) is None  # (an int eps: the forward)
    assert Ly._layer_norm_fresh(x, (2, 3), None, None, 1e-5) is None  # (two normalized dims)
    assert Ly._layer_norm_fresh(x, (4,), None, None, 1e-5) is None  # (the forward's error)
    assert Ly._layer_norm_fresh(x.to(strided.float16), (3,), None, None, 1e-5) is None
    assert Ly._layer_norm_fresh(strided.ones(0, 3), (3,), None, None, 1e-5) is None
    assert Ly._layer_norm_fresh(x, (3,), strided.ones(3, dtype=strided.float64), None, 1e-5) is None
    assert Ly._layer_norm_fresh(x, (3,), strided.ones(6)[::2], None, 1e-5) is None  # (a stepped weight)
    with pytest.raises(RuntimeError, match="Given normalized_shape=\\[4\\]"):
        F.layer_norm(x, (4,))
    # expanded and empty inputs: the forward, PyTorch's values
    e = strided.tensor(np.arange(4.0, dtype=np.float32)).expand(3, 4)
    _close(F.layer_norm(e, (4,)).numpy(), TF.layer_norm(torch.arange(4.0).expand(3, 4), (4,)).numpy(), np.float32)
    assert F.layer_norm(strided.ones(0, 3), (3,)).shape == (0, 3)


@pytest.mark.parametrize("dtype", DTYPES)
def test_layer_norm_autograd_through_fresh_path(dtype):
    rng = np.random.default_rng(3)
    x, w, b, g = (rng.standard_normal(s).astype(dtype) for s in ((4, 6), 6, 6, (4, 6)))
    results = []
    for kw in ({}, {"eps": 1e-5}):  # the fresh path recorded, then the forward recorded
        sx, sw, sb = (strided.tensor(a, requires_grad=True) for a in (x, w, b))
        y = F.layer_norm(sx, (6,), sw, sb, **kw)
        assert y.grad_fn.name() == "NativeLayerNormBackward0"
        y.backward(strided.tensor(g))
        results.append((y.detach().numpy(), sx.grad.numpy(), sw.grad.numpy(), sb.grad.numpy()))
    for a, c in zip(*results):
        assert np.array_equal(_bits(a), _bits(c))
    tx, tw, tb = (torch.tensor(a, requires_grad=True) for a in (x, w, b))
    TF.layer_norm(tx, (6,), tw, tb).backward(torch.tensor(g))
    for got, t in zip(results[0][1:], (tx, tw, tb)):
        _close(got, t.grad.numpy(), dtype)


# ------------------------------------------------------------------------------------- batch_norm

BN_SHAPES = [(3, 4), (16, 16), (1, 1), (5, 1), (1, 7), (64, 300)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", BN_SHAPES)
@pytest.mark.parametrize("affine", ["none", "weight", "bias", "both"])
def test_batch_norm_eval_rows_are_the_general_path(dtype, shape, affine):
    rng = np.random.default_rng(hash((shape, affine, 1)) % 2**32)
    x = _data(rng, shape, dtype)
    c = shape[1]
    rm = rng.uniform(-2, 2, c).astype(dtype)
    rv = rng.uniform(0, 2, c).astype(dtype)
    rv[0] = 0.0
    w = rng.standard_normal(c).astype(dtype) if affine in ("weight", "both") else None
    b = rng.standard_normal(c).astype(dtype) if affine in ("bias", "both") else None
    S = [None if a is None else strided.tensor(a) for a in (x, rm, rv, w, b)]
    T = [None if a is None else torch.tensor(a) for a in (x, rm, rv, w, b)]
    fast = F.batch_norm(*S, training=False)
    general = F.batch_norm(*S, False, 0.1, np.float64(1e-5))  # (not a plain float eps: the general path)
    with native.disabled():
        plain = F.batch_norm(*S, eps=1e-5)
    for t in (general, plain):
        assert t.shape == fast.shape and t.stride() == fast.stride()
        assert np.array_equal(_bits(t.numpy()), _bits(fast.numpy()))
    _close(fast.numpy(), TF.batch_norm(*T, training=False).numpy(), dtype)
    sx = strided.tensor(_extreme(rng, shape, dtype))
    got = F.batch_norm(sx, *S[1:])
    assert np.array_equal(_bits(got.numpy()), _bits(F.batch_norm(sx, *S[1:], False, 0.1, np.float64(1e-5)).numpy()))


@pytest.mark.parametrize("kind", ["transposed", "stepped", "offset"])
def test_batch_norm_eval_other_layouts(kind):
    rng = np.random.default_rng(5)
    x = _data(rng, (6, 5), np.float32)
    rm, rv, w, b = (rng.uniform(0.1, 2, 5).astype(np.float32) for _ in range(4))
    stats = [strided.tensor(a) for a in (rm, rv, w, b)]
    got = F.batch_norm(_layout(x, kind), *stats[:2], *stats[2:])
    want = F.batch_norm(strided.tensor(x), *stats[:2], *stats[2:], False, 0.1, np.float64(1e-5))
    assert np.array_equal(_bits(got.numpy()), _bits(want.numpy()))
    # stepped statistics: the general path
    st = strided.tensor(np.repeat(rm, 2))[::2]
    got = F.batch_norm(strided.tensor(x), st, stats[1], stats[2], stats[3])
    assert np.array_equal(_bits(got.numpy()), _bits(want.numpy()))
    # expanded input, empty batch: the general path, PyTorch's values
    e = torch.tensor(x[0]).expand(3, 5)
    _close(F.batch_norm(strided.tensor(x[0]).expand(3, 5), *stats[:2]).numpy(),
           TF.batch_norm(e, torch.tensor(rm), torch.tensor(rv)).numpy(), np.float32)
    assert F.batch_norm(strided.ones(0, 5), *stats[:2]).shape == (0, 5)


def test_batch_norm_eval_errors_unchanged():
    x = strided.ones(3, 4)
    with pytest.raises(RuntimeError, match="running_mean should contain 4 elements not 3"):
        F.batch_norm(x, strided.zeros(3), strided.ones(4))
    with pytest.raises(RuntimeError, match="expected scalar type Float but found Double"):
        F.batch_norm(x, strided.zeros(4, dtype=strided.float64), strided.ones(4, dtype=strided.float64),
                     strided.ones(4))
    with pytest.raises(RuntimeError, match="running_mean must be defined in evaluation mode"):
        F.batch_norm(x, None, strided.ones(4))


def test_bn_eval_kernel_refuses_what_it_does_not_take():
    k = R.bn_eval()
    if k is None:
        pytest.skip("the compiled row kernel is not built")
    x = np.ones((3, 4), np.float32)
    out = np.empty_like(x)
    st = np.ones(4, np.float32)
    assert k(x, out, st, st, None, None, 1e-5) is True
    five = np.ones(5, np.float32)
    assert k(x, out, five, five, None, None, 1e-5) is False  # (C does not divide the elements)
    assert k(x, out, st, st, five, None, 1e-5) is False  # (a weight of another length)
    assert k(x, out, st.astype(np.float64), st, None, None, 1e-5) is False  # (mixed kinds)
    assert k(x, out[:, ::2].copy(), st, st, None, None, 1e-5) is False  # (a short out)
    assert k(x, x, st, st, None, None, 1e-5) is False  # (in place: not taken)
    ro = np.empty_like(x)
    ro.flags.writeable = False
    assert k(x, ro, st, st, None, None, 1e-5) is False
    ln = R.ln_rows()
    m3, r3 = np.empty(3, np.float32), np.empty(3, np.float32)
    assert ln(x, out, m3, r3, st, None, 1e-5) is True
    assert ln(x, out, np.empty(5, np.float32), np.empty(5, np.float32), None, None, 1e-5) is False  # (12 / 5)
    assert ln(x, out, m3, r3, five, None, 1e-5) is False  # (a weight of another length)
    assert ln(x, out, m3, np.empty(2, np.float32), None, None, 1e-5) is False
    assert ln(x, x, m3, r3, None, None, 1e-5) is False


@pytest.mark.parametrize("dtype", DTYPES)
def test_ln_rows_kernel_is_torchs_steps(dtype):
    """The compiled rows against torch.native_layer_norm (y, mean, rstd bits; was: against the NumPy
    ufuncs, until normbits36 gave the kernel PyTorch's steps), over every row length to 300 and some
    longer, with NaN, infinities, -0.0 and huge values."""
    k = R.ln_rows()
    if k is None:
        pytest.skip("the compiled row kernel is not built")
    rng = np.random.default_rng(17)
    for n in (*range(1, 300), 511, 1024, 4099):
        x = _data(rng, (2, n), dtype, specials=False)
        if n > 8 and n % 7 == 0:
            x[0, rng.integers(0, n, 3)] = [np.nan, np.inf, -0.0]
            x[1, 2] = 1e30 if n % 2 else -1e300
        w = rng.standard_normal(n).astype(dtype) if n % 3 else None
        b = rng.standard_normal(n).astype(dtype) if n % 2 else None
        y1 = np.empty_like(x)
        m1, r1 = np.empty((2, 1), dtype), np.empty(2, dtype)
        eps = 10.0 ** -(n % 8)
        with np.errstate(all="ignore"):
            assert k(x, y1, m1, r1, w, b, float(dtype(eps))) is True
        t = [None if a is None else torch.from_numpy(a) for a in (x, w, b)]
        y2, m2, r2 = (v.numpy() for v in torch.native_layer_norm(t[0], [n], t[1], t[2], eps))
        for p, q in ((y1, y2), (m1, m2), (r1.reshape(2, 1), r2)):
            if n > 8 and n % 7 == 0:  # (a NaN and an inf in one row: the NaN's sign may differ, see
                # test_normbits36's note; everything else to the bit)
                assert np.array_equal(np.isnan(p), np.isnan(q)), n
                p, q = np.where(np.isnan(p), 0, p), np.where(np.isnan(q), 0, q)
            assert np.array_equal(_bits(p), _bits(q)), n


@pytest.mark.parametrize("dtype", DTYPES)
def test_batch_norm_training_updates_running_stats_in_place(dtype):
    rng = np.random.default_rng(9)
    x = _data(rng, (8, 3), dtype, specials=False)
    rm, rv = np.zeros(3, dtype), np.ones(3, dtype)
    srm, srv, trm, trv = strided.tensor(rm), strided.tensor(rv), torch.tensor(rm), torch.tensor(rv)
    versions = (srm._version, srv._version) if hasattr(srm, "_version") else None
    sy = F.batch_norm(strided.tensor(x), srm, srv, None, None, True, 0.3, 1e-5)
    ty = TF.batch_norm(torch.tensor(x), trm, trv, None, None, True, 0.3, 1e-5)
    _close(sy.numpy(), ty.numpy(), dtype)
    _close(srm.numpy(), trm.numpy(), dtype)
    _close(srv.numpy(), trv.numpy(), dtype)
    if versions is not None:
        assert (srm._version, srv._version) == versions
    # evaluation with the updated statistics: the rows path
    _close(F.batch_norm(strided.tensor(x), srm, srv).numpy(), TF.batch_norm(torch.tensor(x), trm, trv).numpy(), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_batch_norm_eval_autograd(dtype):
    rng = np.random.default_rng(2)
    x, rm, w, b, g = (rng.standard_normal(s).astype(dtype) for s in ((5, 4), 4, 4, 4, (5, 4)))
    rv = rng.uniform(0.5, 2, 4).astype(dtype)
    sx, sw, sb = (strided.tensor(a, requires_grad=True) for a in (x, w, b))
    y = F.batch_norm(sx, strided.tensor(rm), strided.tensor(rv), sw, sb)
    assert y.grad_fn.name() == "NativeBatchNormBackward0"
    y.backward(strided.tensor(g))
    tx, tw, tb = (torch.tensor(a, requires_grad=True) for a in (x, w, b))
    TF.batch_norm(tx, torch.tensor(rm), torch.tensor(rv), tw, tb).backward(torch.tensor(g))
    for s, t in ((sx, tx), (sw, tw), (sb, tb)):
        _close(s.grad.numpy(), t.grad.numpy(), dtype)


# --------------------------------------------------------------------------------------- nll_loss


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("case", ["plain", "ignored", "weighted", "transposed"])
def test_nll_loss_like_torch(dtype, reduction, case):
    rng = np.random.default_rng(4)
    logp = -np.abs(rng.standard_normal((7, 5))).astype(dtype)
    target = rng.integers(0, 5, 7)
    kw: dict = {"reduction": reduction}
    if case == "ignored":
        target[[1, 3]] = 2
        kw["ignore_index"] = 2
    sx = strided.tensor(logp) if case != "transposed" else strided.tensor(np.ascontiguousarray(logp.T)).T
    sk, tk = dict(kw), dict(kw)
    if case == "weighted":
        wt = rng.uniform(0.1, 2, 5).astype(dtype)
        sk["weight"], tk["weight"] = strided.tensor(wt), torch.tensor(wt)
    got = F.nll_loss(sx, strided.tensor(target), **sk)
    want = TF.nll_loss(torch.tensor(logp), torch.tensor(target), **tk)
    assert got.shape == tuple(want.shape)
    assert np.array_equal(_bits(got.numpy()), _bits(want.numpy()))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", ["plain", "offset", "stepped_target", "nan", "ignore_in_range", "big"])
def test_nll_loss_mean_rows_bits(dtype, case):
    rng = np.random.default_rng(8)
    n, c = (300, 7) if case == "big" else (6, 4)
    logp = -np.abs(rng.standard_normal((n, c))).astype(dtype)
    target = rng.integers(0, c, n)
    if case == "nan":
        logp[2, target[2]] = np.nan
    sx, st = strided.tensor(logp), strided.tensor(target)
    kw = {}
    if case == "offset":
        sx = strided.tensor(np.concatenate([logp, logp]))[n:]
        st = strided.tensor(np.concatenate([target[:1], target]))[1:]
    elif case == "stepped_target":
        st = strided.tensor(np.repeat(target, 2))[::2]
    elif case == "ignore_in_range":
        target[0] = 1
        st = strided.tensor(target)
        kw = {"ignore_index": 1}
    args = (sx, st, None, None, kw.get("ignore_index", -100))
    got = F.nll_loss(*args)  # (positional: the entry's fresh path)
    want = TF.nll_loss(torch.tensor(logp), torch.tensor(target), **kw)
    assert got.shape == ()
    assert got.dtype == (strided.float32 if dtype == np.float32 else strided.float64)
    assert np.array_equal(_bits(got.numpy()), _bits(want.numpy()))
    general = F.nll_loss(sx, st, reduction="mean", **kw)
    assert np.array_equal(_bits(got.numpy()), _bits(general.numpy()))


def test_nll_loss_rows_errors_and_grad():
    logp = -np.abs(np.random.default_rng(1).standard_normal((5, 3))).astype(np.float32)
    with pytest.raises(IndexError, match="Target 3 is out of bounds"):
        F.nll_loss(strided.tensor(logp), strided.tensor(np.array([0, 1, 3, 0, 0])))
    x = strided.tensor(logp, requires_grad=True)
    target = np.array([0, 1, 2, 0, 1])
    y = F.nll_loss(x, strided.tensor(target))
    assert y.grad_fn.name() == "NllLossBackward0"
    y.backward()
    tx = torch.tensor(logp, requires_grad=True)
    TF.nll_loss(tx, torch.tensor(target)).backward()
    assert np.array_equal(_bits(x.grad.numpy()), _bits(tx.grad.numpy()))


@pytest.mark.parametrize("eps", [1e300, float("inf"), float("nan"), 0.0])
def test_layer_norm_extreme_eps_quiet_and_same(eps):
    import warnings

    x = strided.tensor(np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fresh = F.layer_norm(x, (4,), None, None, eps)
        general = F.layer_norm(x, (4,), eps=eps)
    assert np.array_equal(_bits(fresh.numpy()), _bits(general.numpy()))
    _close(fresh.numpy(), TF.layer_norm(torch.from_numpy(x.numpy()), (4,), eps=eps).numpy(), np.float32)
