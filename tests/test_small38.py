"""small38: the small-size fast paths, side by side with PyTorch (bits) and with the general paths.

- hinge_embedding_loss's one-pass NumPy loss (:func:`composed_losses._hinge_rows`): PyTorch's bits
  for float32/float64, every reduction, margins of both signs (-0.0 too, which goes the general
  way), targets 1, -1 and others, NaN/inf/signed-zero inputs; layouts the fast path declines.
- nll_loss's fresh path (the quotient rounded once from Python's double): PyTorch's bits over
  many batch and class counts, "mean" and "sum", called positionally and by keyword.
- the exact entries of below-autograd forwards with a fresh path (grad_mode's ``fresh_first``):
  the same results as PyTorch by position and keyword, the op reported once to a listener, the
  forward's fresh path run once per call (a declined one too).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as TF
from hypothesis import given, settings
from hypothesis import strategies as st

import strided
import strided.nn.functional as F
from strided import dispatch

DTYPES = {"float32": (np.float32, strided.float32, torch.float32), "float64": (np.float64, strided.float64, torch.float64)}
SPECIAL = [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 1e-40, 3e38]


def _same(s: strided.Tensor, t: torch.Tensor) -> None:
    """Exactly PyTorch's result: shape, strides, dtype name and every bit."""
    a, b = s.numpy(), t.detach().numpy()
    assert a.shape == b.shape and a.dtype == b.dtype
    assert s.stride() == t.stride()
    assert a.tobytes() == b.tobytes(), (a, b)


@st.composite
def _hinge_case(draw: st.DrawFn) -> tuple:
    dt = draw(st.sampled_from(sorted(DTYPES)))
    shape = draw(st.sampled_from([(3, 4), (16, 16), (7,), (2, 3, 5), (0, 4), ()]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n = int(np.prod(shape))
    x = rng.standard_normal(n) * draw(st.sampled_from([1.0, 10.0]))
    special = draw(st.floats(0, 1))
    mask = rng.random(n) < special * 0.5
    x[mask] = rng.choice(SPECIAL, int(mask.sum()))
    t = rng.choice([1.0, -1.0, 0.5, np.nan, 1.0, -1.0], n)
    margin = draw(st.sampled_from([1.0, 0.0, -0.0, 2, 0.3, -1.5, 1e30]))
    red = draw(st.sampled_from(["mean", "sum", "none"]))
    return dt, x.reshape(shape), t.reshape(shape), margin, red


@settings(max_examples=150, deadline=None)
@given(_hinge_case())
def test_hinge_embedding_loss_torch_bits(case: tuple) -> None:
    dt, x, t, margin, red = case
    npd, _, _ = DTYPES[dt]
    x, t = x.astype(npd), t.astype(npd)
    with np.errstate(all="ignore"):
        got = F.hinge_embedding_loss(strided.tensor(x), strided.tensor(t), margin=margin, reduction=red)
        with dispatch.listen(lambda record: None):  # (a listener: the general chain, op by op)
            chain = F.hinge_embedding_loss(strided.tensor(x), strided.tensor(t), margin=margin, reduction=red)
    _same(got, torch.from_numpy(chain.numpy().copy()).as_strided(chain.shape, chain.stride()))
    want = TF.hinge_embedding_loss(torch.tensor(x), torch.tensor(t), margin=margin, reduction=red)
    if red != "none" and np.isnan(want.item()):
        # (the sum of NaNs of both signs: which sign PyTorch's float64 sum keeps is a divergence of
        # strided's sum that main has too, not of this path; the chain above checks this path's bits)
        assert np.isnan(got.item())
        return
    _same(got, want)


@pytest.mark.parametrize("dt", sorted(DTYPES))
@pytest.mark.parametrize("red", ["mean", "sum"])
def test_hinge_fast_path_equals_general_chain(dt: str, red: str) -> None:
    """The one-pass loss against the op chain it replaces (run here by a transposed input, which
    the fast path declines, on the same values laid out row-major) and against PyTorch."""
    npd, _, _ = DTYPES[dt]
    rng = np.random.default_rng(5)
    for shape in [(3, 4), (16, 16), (33, 65)]:
        x = rng.standard_normal(shape).astype(npd)
        t = rng.choice(np.array([1.0, -1.0], npd), shape)
        fast = F.hinge_embedding_loss(strided.tensor(x), strided.tensor(t), reduction=red)
        general = F.hinge_embedding_loss(strided.tensor(x.T.copy()).T, strided.tensor(t.T.copy()).T, reduction=red)
        want = TF.hinge_embedding_loss(torch.tensor(x), torch.tensor(t), reduction=red)
        _same(fast, want)
        torch_t = TF.hinge_embedding_loss(torch.tensor(x.T.copy()).T, torch.tensor(t.T.copy()).T, reduction=red)
        _same(general, torch_t)


def test_hinge_tracked_and_listened_go_the_general_way() -> None:
    """An input that requires grad gets its gradient (the chain records it), and a listener sees
    the loss reported as before."""
    x = np.array([[0.3, 2.0], [-1.0, 0.5]], np.float32)
    t = np.array([[1.0, -1.0], [-1.0, 1.0]], np.float32)
    sx = strided.tensor(x, requires_grad=True)
    tx = torch.tensor(x, requires_grad=True)
    F.hinge_embedding_loss(sx, strided.tensor(t)).backward()
    TF.hinge_embedding_loss(tx, torch.tensor(t)).backward()
    _same(sx.grad, tx.grad)
    records: list = []
    with dispatch.listen(records.append):
        out = F.hinge_embedding_loss(strided.tensor(x), strided.tensor(t))
    _same(out, TF.hinge_embedding_loss(torch.tensor(x), torch.tensor(t)))
    # (the composed loss reports its chain's ops, as main does: the fast path is not taken)
    assert [r.name for r in records if r.name != "tensor"] == [
        "new_zeros", "sub", "clamp_min", "ne", "where", "ne", "where", "add", "mean"]


@pytest.mark.parametrize("dt", sorted(DTYPES))
def test_nll_loss_fresh_torch_bits(dt: str) -> None:
    npd, _, _ = DTYPES[dt]
    rng = np.random.default_rng(0)
    for n in [1, 2, 3, 7, 16, 17, 100, 257, 1000]:
        for c in [1, 4, 16, 33]:
            x = (rng.standard_normal((n, c)) * rng.choice([1e-3, 1.0, 1e3])).astype(npd)
            t = rng.integers(0, c, n)
            for red in ["mean", "sum"]:
                want = TF.nll_loss(torch.tensor(x), torch.tensor(t), reduction=red)
                _same(F.nll_loss(strided.tensor(x), strided.tensor(t), reduction=red), want)
                _same(F.nll_loss(strided.tensor(x), strided.tensor(t), None, None, -100, None, red), want)
                _same(F.nll_loss(input=strided.tensor(x), target=strided.tensor(t), reduction=red), want)


def test_nll_loss_declined_cases_unchanged() -> None:
    """Targets the fast path hands on (ignored, out of range) keep their results and errors."""
    x = -np.abs(np.random.default_rng(1).standard_normal((4, 3))).astype(np.float32)
    t = np.array([0, -100, 2, 1])
    _same(F.nll_loss(strided.tensor(x), strided.tensor(t)), TF.nll_loss(torch.tensor(x), torch.tensor(t)))
    with pytest.raises(IndexError, match="Target 3 is out of bounds"):
        F.nll_loss(strided.tensor(x), strided.tensor(np.array([0, 3, 1, 1])))


@pytest.mark.parametrize("shape", [(3, 4), (16, 16), (2, 5, 8)])
def test_layer_norm_entry_positional_and_keywords(shape: tuple) -> None:
    rng = np.random.default_rng(2)
    n = shape[-1]
    x, w, b = (rng.standard_normal(s).astype(np.float32) for s in (shape, (n,), (n,)))
    sx, sw, sb = (strided.tensor(a) for a in (x, w, b))
    want = TF.layer_norm(torch.tensor(x), (n,), torch.tensor(w), torch.tensor(b))
    _same(F.layer_norm(sx, (n,), sw, sb), want)
    _same(F.layer_norm(sx, (n,), weight=sw, bias=sb), want)
    _same(F.layer_norm(sx, [n], sw, sb, 1e-5), want)
    # a transpose: declined by the fresh path, the forward runs (once)
    _same(F.layer_norm(strided.tensor(x.T.copy()).T if len(shape) == 2 else sx, (n,), sw, sb),
          TF.layer_norm(torch.tensor(x.T.copy()).T if len(shape) == 2 else torch.tensor(x), (n,),
                        torch.tensor(w), torch.tensor(b)))


def test_fresh_first_reported_once_to_a_listener() -> None:
    x = np.random.default_rng(3).standard_normal((1, 1, 4, 6)).astype(np.float32)
    records: list = []
    with dispatch.listen(records.append):
        out = F.avg_pool2d(strided.tensor(x), 2)
    _same(out, TF.avg_pool2d(torch.tensor(x), 2))
    assert [r.name for r in records if r.name != "tensor"] == ["avg_pool2d"]


def test_fresh_first_runs_the_fresh_path_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The entry calls the forward's fresh path itself; where it declines, the forward runs with
    grad mode off without a second try (a fresh path may draw or count)."""
    entry = F.avg_pool2d
    fresh, below, run = entry.__wrapped__.__fresh_first__
    assert run is entry.__wrapped__
    calls: list = []
    scope = entry.__globals__
    assert scope["fresh"] is fresh and scope["below"] is below

    def counting(*args: object) -> object:
        calls.append(args)
        return fresh(*args)

    monkeypatch.setitem(scope, "fresh", counting)
    x = np.random.default_rng(4).standard_normal((1, 1, 4, 6)).astype(np.float32)
    _same(entry(strided.tensor(x), 2), TF.avg_pool2d(torch.tensor(x), 2))
    _same(entry(strided.tensor(x), 2, padding=1), TF.avg_pool2d(torch.tensor(x), 2, padding=1))  # (declined)
    assert len(calls) == 2
    sx = strided.tensor(x, requires_grad=True)
    out = entry(sx, 2)  # (tracked: the recording path, the entry's fresh call not taken)
    assert len(calls) == 2 and out.grad_fn is not None


@pytest.mark.parametrize("shape,dim,sizes", [((3, 4), 0, [1, 2]), ((16, 16), 0, [1, 15]), ((16, 16), 1, [5, 5, 6]),
                                             ((2, 6, 3), -2, [2, 4]), ((4,), 0, [4]), ((5, 2), 0, [1, 1, 1, 1, 1])])
@pytest.mark.parametrize("layout", ["plain", "transposed", "offset"])
def test_split_with_sizes_memo_torch_views(shape: tuple, dim: int, sizes: list, layout: str) -> None:
    """The remembered piece layouts give PyTorch's views (shape, strides, offset, storage), each
    call new tensor objects over the input's storage, for every layout a call brings."""
    rng = np.random.default_rng(6)
    base = rng.standard_normal((shape[0] + 1, *shape[1:])).astype(np.float32)
    s_all, t_all = strided.tensor(base), torch.tensor(base)
    if layout == "offset":
        s, t = s_all[1:], t_all[1:]
    elif layout == "transposed" and len(shape) >= 2:
        s, t = s_all[: shape[0]].transpose(0, 1).transpose(0, 1), t_all[: shape[0]].transpose(0, 1).transpose(0, 1)
        s, t = strided.tensor(np.ascontiguousarray(base[: shape[0]].T)).T, torch.tensor(np.ascontiguousarray(base[: shape[0]].T)).T
    else:
        s, t = s_all[: shape[0]], t_all[: shape[0]]
    for _ in range(3):  # (the first call fills the memo, the next ones read it)
        got, want = s.split_with_sizes(sizes, dim), t.split_with_sizes(sizes, dim)
        got2 = strided.split_with_sizes(s, tuple(sizes), dim=dim)
        assert len(got) == len(want) == len(got2)
        for g, g2, w in zip(got, got2, want):
            assert g is not g2
            assert g.shape == w.shape and g.stride() == w.stride() and g.storage_offset() == w.storage_offset()
            assert g._storage is s._storage and (g._base is (s if s._base is None else s._base))
            _same(g, w)
    got[0].fill_(7.0)  # (a view: the input sees the write)
    t.split_with_sizes(sizes, dim)[0].fill_(7.0)
    _same(s.contiguous(), t.contiguous())


def test_split_with_sizes_declined_and_errors_unchanged() -> None:
    x = strided.arange(12.0).view(3, 4)
    assert [p.shape for p in x.split_with_sizes([0, 3])] == [(0, 4), (3, 4)]
    assert [p.shape for p in x.split_with_sizes([1] * 3)] == [(1, 4)] * 3
    with pytest.raises(RuntimeError, match="split_with_sizes expects split_sizes to sum exactly to 3"):
        x.split_with_sizes([1, 1])
    records: list = []
    with dispatch.listen(records.append):
        assert len(x.split_with_sizes([1, 2])) == 2
    assert [r.name for r in records] == ["split_with_sizes"]


@pytest.mark.parametrize("dt", sorted(DTYPES))
@pytest.mark.parametrize("shape", [(3, 3), (16, 16), (2, 4, 4)])
def test_matrix_power_torch_bits(dt: str, shape: tuple) -> None:
    npd, _, _ = DTYPES[dt]
    a = (np.random.default_rng(7).standard_normal(shape) / 2).astype(npd)
    sa = strided.tensor(a)
    for n in [0, 1, 2, 3, 4, 5, 7, 8]:
        got, want = strided.matrix_power(sa, n), torch.matrix_power(torch.tensor(a), n)
        assert got.shape == want.shape and got.stride() == want.stride()
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-4, atol=1e-4)
        # (the bits: strided's own matmuls in PyTorch's order of squarings; strided's small matmul
        # is not PyTorch's MKL sgemm bit for bit, on main as here)
        z, res, m = None, None, n
        while m > 0 and n > 1:
            bit, m = m % 2, m // 2
            z = sa if z is None else z.matmul(z)
            if bit:
                res = z if res is None else res.matmul(z)
        chain = {0: None, 1: sa, 2: sa.matmul(sa), 3: sa.matmul(sa).matmul(sa)}.get(n, res)
        if chain is not None:
            assert got.numpy().tobytes() == chain.numpy().tobytes()
        assert sa.matrix_power(n).numpy().tobytes() == got.numpy().tobytes()
    # (a negative power: the inverse's, whose bits below 65 rows are NumPy's LAPACK call, not MKL's)
    np.testing.assert_allclose(strided.matrix_power(strided.tensor(a), -2).numpy(),
                               torch.matrix_power(torch.tensor(a), -2).numpy(), rtol=1e-4, atol=1e-4)
    with pytest.raises(TypeError):
        strided.matrix_power(strided.tensor(a), True)
    with pytest.raises(RuntimeError, match="must be batches of square matrices"):
        strided.matrix_power(strided.tensor(np.ones((2, 3), npd)), 3)
    sa, ta = strided.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    strided.matrix_power(sa, 3).sum().backward()
    torch.matrix_power(ta, 3).sum().backward()
    np.testing.assert_allclose(sa.grad.numpy(), ta.grad.numpy(), rtol=1e-5, atol=1e-5)


def test_fresh_first_entry_keeps_every_argument() -> None:
    """The entry's fresh call binds its result to a name no parameter has: F.normalize's ``out=``
    still reaches the forward (its refusal), by keyword and by position."""
    x, o = strided.ones(3, 4), strided.empty(3, 4)
    with pytest.raises(NotImplementedError, match="out= is not supported"):
        F.normalize(x, out=o)
    with pytest.raises(NotImplementedError, match="out= is not supported"):
        F.normalize(x, 2.0, 1, 1e-12, o)
    _same(F.normalize(x), TF.normalize(torch.ones(3, 4)))
