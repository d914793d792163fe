"""F.linear's row-major fast path (``layers._linear_rowmajor``: the product and the bias's add
straight from the flat runs) against the general path (``_FAST_LINEAR`` off) and PyTorch: the
same bits, shape, strides, dtype, fresh memory, version and nodes; every layout, dtype or shape
it does not take falls through to the general path."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import strided
import strided.nn.functional as F
from strided.nn.functional import layers

torch = pytest.importorskip("torch")

_SPECIALS = (np.nan, np.inf, -np.inf, -0.0, 0.0, 1e30, -1e-30)


def _array(rng, shape, dtype, special):
    a = rng.standard_normal(shape).astype(dtype)
    if special and a.size:
        a.flat[rng.integers(0, a.size)] = _SPECIALS[rng.integers(0, len(_SPECIALS))]
    return a


def _make(a, dtype, how, grad, cls=None):
    """A tensor of ``a``'s values laid out ``how``: row-major, transposed (a (c, r) storage read
    through t()), at an offset, or with a step (every other column)."""
    if how == "transposed":
        t = strided.tensor(np.ascontiguousarray(a.T), dtype=dtype).t()
    elif how == "offset":
        t = strided.tensor(np.concatenate([np.zeros((1,) + a.shape[1:], a.dtype), a]), dtype=dtype)[1:]
    elif how == "step":
        wide = np.repeat(a, 2, axis=-1)
        t = strided.tensor(wide, dtype=dtype)[..., ::2]
    else:
        t = strided.tensor(a, dtype=dtype)
    t = t.detach()
    if cls is not None:
        return cls(t, requires_grad=grad)
    return t.requires_grad_(grad)


def _observe(x, w, b):
    out = F.linear(x, w, b)
    node = out.grad_fn
    seen = (out.detach().numpy().tobytes(), out.shape, out.stride(), out.storage_offset(), out.dtype,
            out._version, out._base is None, node.name() if node is not None else None,
            not any(strided.shares_memory(out, t) for t in (x, w, b) if t is not None))
    if node is not None and out.numel():
        # (a gradient with every value: not the ones of sum's, whose products are exact)
        gout = strided.tensor(np.random.default_rng(5).standard_normal(out.shape), dtype=out.dtype)
        out.backward(gout)
        seen += tuple(t.grad.numpy().tobytes() if t is not None and t.grad is not None else None for t in (x, w, b))
    return seen


def _both(monkeypatch, build):
    fast = _observe(*build())
    monkeypatch.setattr(layers, "_FAST_LINEAR", False)
    try:
        slow = _observe(*build())
    finally:
        monkeypatch.setattr(layers, "_FAST_LINEAR", True)
    return fast, slow


@settings(max_examples=60, deadline=None)
@given(n=st.integers(0, 5), k=st.integers(0, 5), m=st.integers(0, 5), seed=st.integers(0, 2**16),
       dtype=st.sampled_from(["float32", "float64"]), bias=st.booleans(), special=st.booleans(),
       grad=st.booleans(), xhow=st.sampled_from(["plain", "plain", "transposed", "offset", "step"]),
       whow=st.sampled_from(["plain", "plain", "transposed", "offset"]), param=st.booleans(), xgrad=st.booleans(),
       bgrad=st.booleans())
def test_bit_identical_to_the_general_path(n, k, m, seed, dtype, bias, special, grad, xhow, whow, param, xgrad,
                                           bgrad):
    """Forward and first-order gradients (the rule's row-major path: both products and the
    bias's sum) against the general path, for every combination of which inputs need one."""
    rng = np.random.default_rng(seed)
    xa, wa, ba = _array(rng, (n, k), dtype, special), _array(rng, (m, k), dtype, special), _array(rng, (m,), dtype, special)
    sd = getattr(strided, dtype)
    cls = strided.nn.Parameter if param else None

    def build():
        return (_make(xa, sd, xhow, xgrad), _make(wa, sd, whow, grad, cls),
                _make(ba, sd, "plain", bgrad, cls) if bias else None)

    mp = pytest.MonkeyPatch()
    try:
        fast, slow = _both(mp, build)
    finally:
        mp.undo()
    assert fast == slow


@pytest.mark.parametrize("case", ["float16", "int64", "bias_step", "bias_one", "x3d", "w_float64"])
def test_other_cases_fall_through_unchanged(monkeypatch, case):
    def build():
        rng = np.random.default_rng(3)
        x = strided.tensor(rng.standard_normal((3, 4)), dtype=strided.float32)
        w = strided.tensor(rng.standard_normal((5, 4)), dtype=strided.float32)
        b = strided.tensor(rng.standard_normal(5), dtype=strided.float32)
        if case == "float16":
            x, w, b = x.half(), w.half(), b.half()
        elif case == "int64":
            x, w, b = (strided.tensor(rng.integers(-3, 3, s)) for s in ((3, 4), (5, 4), (5,)))
        elif case == "bias_step":
            b = strided.tensor(rng.standard_normal(10), dtype=strided.float32)[::2]
        elif case == "bias_one":
            b = strided.tensor(rng.standard_normal(1), dtype=strided.float32)
        elif case == "x3d":
            x = strided.tensor(rng.standard_normal((2, 3, 4)), dtype=strided.float32)
        elif case == "w_float64":
            w, b = w.double(), b.double()
        return x, w, b

    def run():
        try:
            return _observe(*build())
        except RuntimeError as e:
            return type(e), str(e).splitlines()[0]

    fast = run()
    monkeypatch.setattr(layers, "_FAST_LINEAR", False)
    assert run() == fast


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_matches_torch(dtype):
    rng = np.random.default_rng(7)
    xa, wa, ba = (rng.standard_normal(s).astype(dtype) for s in ((32, 16), (8, 16), (8,)))
    xa[0, 0], xa[1, 1] = np.nan, -0.0
    ours = F.linear(strided.tensor(xa), strided.tensor(wa, requires_grad=True), strided.tensor(ba))
    theirs = torch.nn.functional.linear(torch.tensor(xa), torch.tensor(wa, requires_grad=True), torch.tensor(ba))
    assert ours.stride() == theirs.stride() and str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    assert ours.grad_fn.name() == theirs.grad_fn.name()
    assert ours._version == theirs._version == 0
    tol = 1e-5 if dtype == "float32" else 1e-12  # (two BLAS libraries: summation orders differ)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=tol, atol=tol)
    assert np.array_equal(np.isnan(ours.detach().numpy()), np.isnan(theirs.detach().numpy()))


def test_a_watched_call_takes_the_general_path(monkeypatch):
    """A listener (watch) sees the general path's records: the fast path never runs under one."""
    calls = []
    real = layers._matmul  # (the fast path's own product: it is also F.linear's __fresh__, bound at import)
    monkeypatch.setattr(layers, "_matmul", lambda *a: calls.append(1) or real(*a))
    compiled = layers._mk.linear  # (its compiled product, asked first: counted too)
    monkeypatch.setattr(layers._mk, "linear", lambda *a: calls.append(1) or compiled(*a))
    with strided.watch():
        F.linear(strided.ones(3, 4), strided.ones(5, 4), strided.ones(5))
    assert calls == []
    F.linear(strided.ones(3, 4), strided.ones(5, 4), strided.ones(5))
    assert calls == [1]
