"""The unreduced layouts of ``F.binary_cross_entropy_with_logits``, ``F.binary_cross_entropy``,
``F.logsigmoid`` and ``F.softplus`` against PyTorch 2.13 on every layout (session 40, bce40).

PyTorch's decompositions fix each result's strides (aten/src/ATen/native/Loss.cpp, Activation.cpp):

- with logits: ``(1 - target).mul_(input).sub_(log_sigmoid(input))`` then ``.mul_(weight)``; the
  C++ ``1 - target`` is ``empty_like(target, preserve_format).fill_(1).sub_(target)`` and every later
  step writes in place, so the loss has ``empty_like(target)``'s strides: the target's own where it is
  dense (an empty target counts as contiguous, so its strides, 0s included, are kept; a size-1 dim
  keeps its stride), else the target's memory order made dense;
- without logits: ``empty_like(input)`` filled through squeezed views, then ``.mul_(weight)``: the
  input's preserve_format strides;
- log_sigmoid: ``empty_like(input, contiguous_format)``: row-major whatever the input;
- softplus: TensorIterator's output (a structured unary op).

Each case builds the same ``as_strided`` view of the same values in both libraries and compares
shape, strides, dtype and values (bits where strided gives PyTorch's bits)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as S
import strided.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional

pytestmark = pytest.mark.usefixtures("torch_one_thread")

_SIZES = [0, 1, 1, 2, 3, 5]


def _bits(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    return a.view({4: np.uint32, 8: np.uint64}[a.itemsize])


def _check(got: S.Tensor, want: torch.Tensor, exact: bool = True) -> None:
    """Equal shape, strides and dtype; equal bits (NaN words aside) or, not ``exact``, values
    within a few ulps."""
    g, w = got.detach().numpy(), want.detach().numpy()
    assert got.shape == tuple(want.shape) and g.dtype == w.dtype
    assert tuple(got.stride()) == tuple(want.stride()), (got.stride(), want.stride())
    nan = np.isnan(w)
    assert (np.isnan(g) == nan).all()
    if exact:
        assert (_bits(g)[~nan] == _bits(w)[~nan]).all()
    else:
        np.testing.assert_allclose(g, w, rtol=4 * np.finfo(w.dtype).eps, atol=0)


@hs.composite
def layouts(draw: hs.DrawFn, shape: tuple) -> tuple[tuple, int]:
    """Strides and offset of a view of ``shape``: dims in any memory order, stepped, a size-1 dim
    with any stride, expanded dims (stride 0), an empty view with NumPy's all-0 strides."""
    nd = len(shape)
    order = draw(hs.permutations(range(nd)))
    acc = draw(hs.sampled_from([1, 1, 1, 2]))
    strides = [0] * nd
    for d in reversed(order):
        strides[d] = acc
        acc *= max(shape[d], 1)
    for d in range(nd):
        if shape[d] == 1 and draw(hs.booleans()):
            strides[d] = draw(hs.sampled_from([0, 1, 3, 20]))
        elif draw(hs.integers(0, 6)) == 0:
            strides[d] = 0
    if 0 in shape and draw(hs.booleans()):
        strides = [0] * nd
    return tuple(strides), draw(hs.integers(0, 2))


def _pair(values: np.ndarray, shape: tuple, lay: tuple[tuple, int]) -> tuple[S.Tensor, torch.Tensor]:
    """The same view (``as_strided``) of the same storage in strided and in torch."""
    strides, offset = lay
    span = offset + 1 + sum((n - 1) * s for n, s in zip(shape, strides) if n)
    store = values[: max(span, 1)] if values.size >= span else np.resize(values, span)
    store = np.ascontiguousarray(store)
    return (S.from_numpy(store.copy()).as_strided(shape, strides, offset),
            torch.from_numpy(store.copy()).as_strided(shape, strides, offset))


_shapes = hs.lists(hs.sampled_from(_SIZES), min_size=0, max_size=4).map(tuple)
_dtypes = hs.sampled_from([np.float32, np.float64])


def _logits(rng: np.random.Generator, dtype: type) -> np.ndarray:
    return (rng.standard_normal(400) * 8).astype(dtype)


def _probs(rng: np.random.Generator, dtype: type) -> np.ndarray:
    return rng.random(400).astype(dtype)


@settings(max_examples=300, deadline=None)
@given(shape=_shapes, dtype=_dtypes, reduction=hs.sampled_from(["none", "none", "mean", "sum"]),
       seed=hs.integers(0, 2**16), data=hs.data())
def test_bce_logits_layouts_against_torch(shape: tuple, dtype: type, reduction: str, seed: int,
                                          data: hs.DataObject) -> None:
    """Every layout of input and target, with and without weight and pos_weight (each broadcast from
    a trailing part of the shape, any layout): PyTorch's strides (the target's empty_like) and bits."""
    rng = np.random.default_rng(seed)
    xs, xt = _pair(_logits(rng, dtype), shape, data.draw(layouts(shape)))
    ys, yt = _pair(_probs(rng, dtype), shape, data.draw(layouts(shape)))
    kw_s, kw_t = {}, {}
    for name in ("weight", "pos_weight"):
        if data.draw(hs.booleans()):
            sub = shape[data.draw(hs.integers(0, len(shape))):]
            kw_s[name], kw_t[name] = _pair(_probs(rng, dtype) * 3, sub, data.draw(layouts(sub)))
    got = F.binary_cross_entropy_with_logits(xs, ys, reduction=reduction, **kw_s)
    want = TF.binary_cross_entropy_with_logits(xt, yt, reduction=reduction, **kw_t)
    _check(got, want)


@settings(max_examples=200, deadline=None)
@given(shape=_shapes, dtype=_dtypes, reduction=hs.sampled_from(["none", "none", "mean", "sum"]),
       seed=hs.integers(0, 2**16), data=hs.data())
def test_bce_layouts_against_torch(shape: tuple, dtype: type, reduction: str, seed: int,
                                   data: hs.DataObject) -> None:
    """binary_cross_entropy unreduced: the input's empty_like strides whatever the target's and the
    weight's layouts (its values within ulps: PyTorch's kernel groups the two terms otherwise)."""
    rng = np.random.default_rng(seed)
    xs, xt = _pair(_probs(rng, dtype), shape, data.draw(layouts(shape)))
    ys, yt = _pair(_probs(rng, dtype), shape, data.draw(layouts(shape)))
    kw_s, kw_t = {}, {}
    if data.draw(hs.booleans()):
        sub = shape[data.draw(hs.integers(0, len(shape))):]
        kw_s["weight"], kw_t["weight"] = _pair(_probs(rng, dtype), sub, data.draw(layouts(sub)))
    got = F.binary_cross_entropy(xs, ys, reduction=reduction, **kw_s)
    want = TF.binary_cross_entropy(xt, yt, reduction=reduction, **kw_t)
    _check(got, want, exact=False)


@settings(max_examples=200, deadline=None)
@given(shape=_shapes, dtype=_dtypes, seed=hs.integers(0, 2**16), data=hs.data())
def test_logsigmoid_softplus_layouts_against_torch(shape: tuple, dtype: type, seed: int,
                                                   data: hs.DataObject) -> None:
    """logsigmoid: row-major always (PyTorch's contiguous empty_like); softplus: TensorIterator's."""
    rng = np.random.default_rng(seed)
    xs, xt = _pair(_logits(rng, dtype), shape, data.draw(layouts(shape)))
    _check(F.logsigmoid(xs), TF.logsigmoid(xt))
    _check(F.softplus(xs), TF.softplus(xt), exact=False)
    _check(F.softplus(xs, 2.0, 3.0), TF.softplus(xt, 2.0, 3.0), exact=False)


@pytest.mark.parametrize("case", ["empty", "empty_T", "size1_T", "size1_3d"])
@pytest.mark.parametrize("fast", [True, False])
def test_lead_probe_cases(case: str, fast: bool) -> None:
    """The lead's probe: empty results keep the target's strides ((0, 3) -> (0, 0)), a transposed
    target with a size-1 dim keeps them ((4, 1) from (1, 4).mT -> (1, 4)); on the fast path (no
    weight) and the general one (a weight of ones)."""
    rng = np.random.default_rng(0)
    shape = {"empty": (0, 3), "empty_T": (3, 0), "size1_T": (1, 4), "size1_3d": (2, 1, 3)}[case]
    v, w = rng.standard_normal(shape).astype(np.float32), rng.random(shape).astype(np.float32)
    s, t, sw, tw = S.tensor(v), torch.tensor(v), S.tensor(w), torch.tensor(w)
    if case != "empty":
        s, t, sw, tw = s.mT, t.mT, sw.mT, tw.mT
    kw_s, kw_t = ({}, {}) if fast else ({"weight": S.ones(s.shape[-1:])}, {"weight": torch.ones(t.shape[-1:])})
    _check(F.binary_cross_entropy_with_logits(s, sw, reduction="none", **kw_s),
           TF.binary_cross_entropy_with_logits(t, tw, reduction="none", **kw_t))
    _check(F.binary_cross_entropy(sw, s.sigmoid(), reduction="none", **kw_s),
           TF.binary_cross_entropy(tw, t.sigmoid(), reduction="none", **kw_t), exact=False)
