"""Differential tests of the composed losses and layers of ``strided.nn.functional``
(huber_loss, soft_margin_loss, kl_div, poisson_nll_loss, gaussian_nll_loss, hinge_embedding_loss,
glu, prelu, cosine_similarity) against torch 2.13: values, first and second derivatives
(``create_graph=True``), error classes and first lines. Tolerance: rtol 1e-12 in float64
(the compositions follow torch's formula order; glu/prelu are fused kernels in torch), 1e-5 in float32.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import strided
import strided.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional

_CASES = {
    "huber": (lambda M, a, b: M.huber_loss(a, b, delta=0.7), "pm"),
    "huber_sum_w": (lambda M, a, b: M.huber_loss(a, b, reduction="sum", delta=1.3, weight=b * 0 + 2), "pm"),
    "soft_margin": (lambda M, a, b: M.soft_margin_loss(a, b), "pm"),
    "soft_margin_none": (lambda M, a, b: M.soft_margin_loss(a, b, reduction="none"), "pm"),
    "kl_batchmean": (lambda M, a, b: M.kl_div(a, b, reduction="batchmean"), "pp"),
    "kl_sum_logt": (lambda M, a, b: M.kl_div(a, b, reduction="sum", log_target=True), "pm"),
    "kl_none": (lambda M, a, b: M.kl_div(a, b, reduction="none"), "pp"),
    "poisson": (lambda M, a, b: M.poisson_nll_loss(a, b), "pp"),
    "poisson_full": (lambda M, a, b: M.poisson_nll_loss(a, b, log_input=False, full=True, reduction="sum"), "pp"),
    "gauss": (lambda M, a, b: M.gaussian_nll_loss(a, b, b * b + 0.1), "pm"),
    "gauss_full_none": (lambda M, a, b: M.gaussian_nll_loss(a, b, b.abs(), full=True, reduction="none"), "pm"),
    "hinge": (lambda M, a, b: M.hinge_embedding_loss(a, (b > 0).to(a.dtype) * 2 - 1, margin=0.5), "pm"),
    "glu": (lambda M, a, b: M.glu(a * b, dim=0 if a.shape[0] % 2 == 0 else -1), "pm"),
    "prelu": (lambda M, a, b: M.prelu(a, b[:1, 0] if a.dim() > 1 else b.reshape(-1)[:1]), "pm"),
    "cosine": (lambda M, a, b: M.cosine_similarity(a, b, dim=-1), "pm"),
    "cosine_bcast": (lambda M, a, b: M.cosine_similarity(a, b[:1], dim=0, eps=0.5), "pm"),
}


def _pair(rng: np.random.Generator, shape: tuple, kinds: str, dtype: str) -> tuple[np.ndarray, np.ndarray]:
    a = rng.standard_normal(shape).astype(dtype)
    b = rng.standard_normal(shape).astype(dtype)
    if kinds == "pp":
        a, b = np.abs(a) + 0.05, np.abs(b) + 0.05
    return a, b


def _run(M, fn, a_np, b_np, transpose, target_grad=True):
    lib = strided if M is F else torch
    a = lib.tensor(a_np, requires_grad=True)
    b = lib.tensor(b_np, requires_grad=target_grad)
    aa, bb = (a.t(), b.t()) if transpose else (a, b)  # (non-contiguous operands)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = fn(M, aa, bb)
    wrt = (a, b) if target_grad else (a,)
    grads = lib.autograd.grad(out.sum(), wrt, create_graph=True, allow_unused=True)
    second = [g for g in grads if g is not None and g.requires_grad]
    h = None
    if second:
        total = second[0].sum() if len(second) == 1 else second[0].sum() + second[1].sum()
        h = lib.autograd.grad(total, wrt, allow_unused=True)
    ga, gb = (tuple(grads) + (None,))[:2]
    return out, (ga, gb), h


def _np(t):
    return None if t is None else np.asarray(t.detach().numpy() if hasattr(t, "detach") and not isinstance(t, strided.Tensor) else t.detach().numpy())


def _close(x, y, dtype, scale=1.0):
    if x is None or y is None:
        # (an unused operand: strided may give None where torch gives None, or zeros)
        z = x if y is None else y
        assert z is None or not np.any(_np(z)), (x, y)
        return
    xs, ys = _np(x), _np(y)
    assert xs.shape == ys.shape
    tol = 1e-12 if dtype == "float64" else 2e-5
    np.testing.assert_allclose(xs, ys, rtol=tol, atol=tol * scale, equal_nan=True)


@settings(max_examples=40, deadline=None)
@given(name=st.sampled_from(sorted(_CASES)), rows=st.integers(2, 4).map(lambda r: r * 2),
       cols=st.integers(1, 5), dtype=st.sampled_from(["float32", "float64"]), transpose=st.booleans(),
       seed=st.integers(0, 2**31))
def test_against_torch(name, rows, cols, dtype, transpose, seed):
    fn, kinds = _CASES[name]
    a, b = _pair(np.random.default_rng(seed), (rows, cols), kinds, dtype)
    tg_ok = not name.startswith("soft_margin")  # (torch's kernel refuses a target that requires grad)
    so, sg, sh = _run(F, fn, a, b, transpose, tg_ok)
    to, tg, th = _run(TF, fn, a, b, transpose, tg_ok)
    assert so.dtype.__str__().split(".")[-1] == str(to.dtype).split(".")[-1]
    _close(so, to, dtype)
    for x, y in zip(sg, tg):
        _close(x, y, dtype)
    assert (sh is None) == (th is None)
    if sh is not None:
        # (float32 second derivatives that are 0 in exact arithmetic, e.g. cosine of one-element rows,
        # come out as rounding noise of size eps / |x|**2 in both libraries: absolute tolerance so scaled)
        scale = 1.0 if dtype == "float64" else max(1.0, 1.0 / float(np.min(np.abs(a))) ** 2)
        for x, y in zip(sh, th):
            _close(x, y, dtype, scale)


@pytest.mark.parametrize("name", ["huber", "soft_margin", "kl_none", "poisson", "gauss", "hinge", "cosine"])
def test_empty(name):
    fn, kinds = _CASES[name]
    a, b = np.zeros((0, 3)), np.zeros((0, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = fn(F, strided.tensor(a), strided.tensor(b))
        t = fn(TF, torch.tensor(a), torch.tensor(b))
    assert tuple(s.shape) == tuple(t.shape)
    np.testing.assert_array_equal(s.numpy(), t.numpy())


@pytest.mark.parametrize("name", ["huber", "soft_margin", "kl_batchmean", "poisson", "hinge"])
def test_zero_dim(name):
    fn, _ = _CASES[name]
    a, b = np.float64(0.3), np.float64(0.6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = fn(F, strided.tensor(a), strided.tensor(b))
        t = fn(TF, torch.tensor(a), torch.tensor(b))
    np.testing.assert_allclose(s.numpy(), t.numpy(), rtol=1e-15)


_ERRORS = {
    "huber delta 0": lambda M, L: M.huber_loss(L.ones(2), L.ones(2), delta=0.0),
    "huber bad reduction": lambda M, L: M.huber_loss(L.ones(2), L.ones(2), reduction="avg"),
    "kl bad reduction": lambda M, L: M.kl_div(L.ones(2), L.ones(2), reduction="x"),
    "poisson bad reduction": lambda M, L: M.poisson_nll_loss(L.ones(2), L.ones(2), reduction="x"),
    "gauss negative var": lambda M, L: M.gaussian_nll_loss(L.ones(2), L.ones(2), L.ones(2) - 2),
    "gauss negative float var": lambda M, L: M.gaussian_nll_loss(L.ones(2), L.ones(2), -1.0),
    "gauss var size": lambda M, L: M.gaussian_nll_loss(L.ones(2, 3), L.ones(2, 3), L.ones(3, 3)),
    "gauss bad reduction": lambda M, L: M.gaussian_nll_loss(L.ones(2), L.ones(2), L.ones(2), reduction="x"),
    "hinge shapes": lambda M, L: M.hinge_embedding_loss(L.ones(2), L.ones(3)),
    "soft_margin target grad": lambda M, L: M.soft_margin_loss(L.ones(2), L.ones(2, requires_grad=True)),
    "glu odd": lambda M, L: M.glu(L.ones(3)),
    "glu scalar": lambda M, L: M.glu(L.tensor(1.0)),
    "prelu channels": lambda M, L: M.prelu(L.ones(2, 4), L.ones(3)),
    "cosine shapes": lambda M, L: M.cosine_similarity(L.ones(2, 3), L.ones(2, 4)),
}


@pytest.mark.parametrize("case", sorted(_ERRORS))
def test_errors(case):
    fn = _ERRORS[case]
    with pytest.raises(Exception) as te:
        fn(TF, torch)
    with pytest.raises(Exception) as se:
        fn(F, strided)
    tname = type(te.value).__name__
    assert isinstance(se.value, {"RuntimeError": RuntimeError, "ValueError": ValueError}[tname]), (se.value, tname)
    assert str(se.value).splitlines()[0] == str(te.value).splitlines()[0]


def test_gauss_homoscedastic_and_kl_mean_warning():
    a, b = np.random.default_rng(1).standard_normal((2, (3, 4))[1:] if False else (3, 4)), np.ones((3, 4))
    v = np.full((3,), 0.5)
    s = F.gaussian_nll_loss(strided.tensor(a), strided.tensor(b), strided.tensor(v))
    t = TF.gaussian_nll_loss(torch.tensor(a), torch.tensor(b), torch.tensor(v))
    np.testing.assert_allclose(s.item(), t.item(), rtol=1e-14)
    with pytest.warns(UserWarning, match="batchmean"):
        F.kl_div(strided.tensor(a), strided.tensor(b))


def test_modules_match_torch():
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((4, 6)), rng.standard_normal((4, 6))
    pa, pb = np.abs(a) + 0.1, np.abs(b) + 0.1
    pairs = [
        (lambda n: n.HuberLoss(delta=0.5), a, b), (lambda n: n.SoftMarginLoss(reduction="sum"), a, b),
        (lambda n: n.KLDivLoss(reduction="batchmean", log_target=True), a, b),
        (lambda n: n.PoissonNLLLoss(log_input=False, full=True), pa, pb),
        (lambda n: n.HingeEmbeddingLoss(margin=0.3), a, np.sign(b)),
        (lambda n: n.CosineSimilarity(dim=0, eps=1e-3), a, b),
    ]
    for make, x, y in pairs:
        s = make(strided.nn)(strided.tensor(x), strided.tensor(y))
        t = make(torch.nn)(torch.tensor(x), torch.tensor(y))
        np.testing.assert_allclose(s.numpy(), t.numpy(), rtol=1e-13)
    s = strided.nn.GaussianNLLLoss(full=True)(strided.tensor(a), strided.tensor(b), strided.tensor(pa))
    t = torch.nn.GaussianNLLLoss(full=True)(torch.tensor(a), torch.tensor(b), torch.tensor(pa))
    np.testing.assert_allclose(s.item(), t.item(), rtol=1e-13)
    np.testing.assert_allclose(strided.nn.GLU(0)(strided.tensor(a)).numpy(), torch.nn.GLU(0)(torch.tensor(a)).numpy(),
                               rtol=1e-13)
    sp, tp = strided.nn.PReLU(6, init=0.1, dtype=strided.float64), torch.nn.PReLU(6, init=0.1, dtype=torch.float64)
    assert repr(sp) == repr(tp) and repr(strided.nn.GLU()) == repr(torch.nn.GLU())
    np.testing.assert_allclose(sp(strided.tensor(a)).detach().numpy(), tp(torch.tensor(a)).detach().numpy(), rtol=0)


FUSED = {"huber_loss", "soft_margin_loss", "glu", "prelu"}


@pytest.mark.parametrize("name", ["huber_loss", "soft_margin_loss", "kl_div", "poisson_nll_loss", "gaussian_nll_loss",
                                  "hinge_embedding_loss", "glu", "prelu", "cosine_similarity"])
def test_each_is_a_registry_op(name):
    """Each is declared once in its family module (``OPDEFS["F.<name>"]``, kind compute, forward the
    function ``F.<name>`` calls), so the registry's walkers (bench_ops, dump_results) reach it."""
    from strided.opdef import OPDEFS, Kind

    op = OPDEFS[f"F.{name}"]
    assert op.kind is Kind.COMPUTE and op.forward is not None
    assert op.home in ("strided.nn.functional.composed_losses", "strided.nn.functional.composed_layers")
    assert getattr(__import__(op.home, fromlist=["_"]), name) is getattr(F, name)
    # (the four PyTorch records as one fused node have a rule; the rest are compositions)
    assert (op.backward is not None) is (name in FUSED), name
