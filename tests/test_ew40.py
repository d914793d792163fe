"""ew40: the piecewise activations' compiled clips as the x86 max / min (issue 23's large hardsigmoid,
hardswish and softshrink rows).

``unary_exact``'s hardsigmoid, hardswish and softshrink passes bound ``x`` with ``c > v ? c : v`` /
``c < v ? c : v`` (one maxps / minps each) instead of the NaN tests and blends they compiled to before.
These tests hold the pass to the NumPy ufunc sequence it stands for (NaN kept, ties of zeros kept as x)
on random bit patterns, specials and every length around the vector blocks, and the public ops to
PyTorch on large inputs (past the parallel grain) in every layout, in place and under autograd.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as TF
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided
import strided.nn.functional as F
from strided.kernels import native
from strided.ops.elementwise import activations as A
from strided.ops.elementwise import activations_more as M

K = native.special()
pytestmark = pytest.mark.skipif(K is None, reason="the compiled special kernel is not built")

_U = {np.dtype(np.float32): np.uint32, np.dtype(np.float64): np.uint64}
SPECIAL32 = [0x7FC00000, 0xFFC00000, 0x7FA00001, 0xFF812345, 0x7F800000, 0xFF800000, 0, 0x80000000, 1, 0x80000001,
             0x40400000, 0xC0400000, 0x40C00000, 0xC0C00000, 0x3F000000, 0xBF000000, 0x403FFFFF, 0xC03FFFFF,
             0x7F7FFFFF, 0xFF7FFFFF]


def _words(n: int, dtype: type, seed: int) -> np.ndarray:
    """``n`` values of ``dtype``: random bit patterns, normal draws around the bounds (+-3, +-6,
    +-lambd) and the specials (NaNs with payloads and signs, infinities, signed zeros, bounds)."""
    rng = np.random.default_rng(seed)
    u = _U[np.dtype(dtype)]
    w = rng.integers(0, np.iinfo(u).max, n, dtype=u, endpoint=True)
    x = w.view(dtype).copy()
    x[1::2] = (rng.normal(0, 3, n) * rng.choice([1.0, 2.0, 1e-3], n)).astype(dtype)[1::2]
    with np.errstate(invalid="ignore"):  # (a signalling NaN widened to float64: quieted)
        specials = np.array(SPECIAL32, np.uint32).view(np.float32).astype(dtype)
    at = rng.integers(0, max(n, 1), size=min(n, 12))
    x[at] = specials[rng.integers(0, specials.size, size=at.size)]
    return x


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a.view(_U[a.dtype]), b.view(_U[b.dtype]))


def _reference(code: int, x: np.ndarray, *params: float) -> np.ndarray:
    """The NumPy ufunc sequence the pass stands for (before its lane NaN words)."""
    t = x.dtype.type
    with np.errstate(all="ignore"):
        if code == M._HARDSIGMOID:
            return np.minimum(np.maximum(x + t(3), t(0)), t(6)) / t(6)
        if code == M._HARDSWISH:
            return x * np.minimum(np.maximum(x + t(3), t(0)), t(6)) / t(6)
        lo = t(params[0])
        y = x - np.clip(x, -lo, lo)
        st = int(params[1])
        tail = np.arange(x.size) >= (x.size - x.size % st if st > 0 else 0)
        return np.where(tail & (y == 0), x * t(0), y)


CASES = [(M._HARDSIGMOID, (0.0, 0.0)), (M._HARDSIGMOID, (16.0, 0.0)), (M._HARDSWISH, (0.0, 0.0)),
         (M._HARDSWISH, (8.0, 1.0)), (M._SOFTSHRINK, (0.5, 16.0)), (M._SOFTSHRINK, (0.0, 8.0)),
         (M._SOFTSHRINK, (1.0 / 3, 0.0)), (M._SOFTSHRINK, (1e-40, 4.0)), (M._SOFTSHRINK, (3e38, 16.0))]


def _lane_nans(y: np.ndarray, x: np.ndarray, st: int, half: bool) -> np.ndarray:
    """``y`` with the all-ones word where the pass puts it: a NaN ``x`` in the first ``w`` lanes of each
    whole block of ``st`` elements (``w`` = st / 2 where ``half``)."""
    y = y.copy()
    if st <= 0:
        return y
    w = st // 2 if half else st
    lanes = np.zeros(x.size, bool)
    for b in range(0, x.size - st + 1, st):
        lanes[b:b + w] = True
    y.view(_U[y.dtype])[lanes & np.isnan(x)] = np.iinfo(_U[y.dtype]).max
    return y


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("code,params", CASES)
def test_pass_is_the_ufunc_sequence_at_every_length(code, params, dtype):
    for n in [*range(0, 71), 127, 128, 129, 1000, 4099]:
        x = _words(n, dtype, n)
        out = np.empty_like(x)
        assert K.unary_exact(x, out, code, *params) is True
        want = _reference(code, x, *params)
        if code != M._SOFTSHRINK:
            want = _lane_nans(want, x, int(params[0]), params[1] != 0)
        assert _same_bits(out, want), (code, params, n)


@settings(max_examples=60, deadline=None)
@given(words=hs.lists(hs.integers(0, 2**32 - 1), max_size=80), case=hs.sampled_from(CASES))
def test_pass_on_any_float32_words(words, case):
    code, params = case
    x = np.array(words, np.uint32).view(np.float32)
    out = np.empty_like(x)
    assert K.unary_exact(x, out, code, *params) is True
    want = _reference(code, x, *params)
    if code != M._SOFTSHRINK:
        want = _lane_nans(want, x, int(params[0]), params[1] != 0)
    assert _same_bits(out, want)


def _no_payloads(a: np.ndarray) -> np.ndarray:
    return np.where(np.isnan(a), np.nan, a)


def _layouts(a: np.ndarray) -> list:
    """``a`` (2-D) as strided and torch tensors of one layout each: contiguous, transposed, sliced
    columns, a reversed-free expanded view and a zero-size slice."""
    s, t = strided.tensor(a), torch.from_numpy(a.copy())
    return [(s, t), (s.t(), t.t()), (s[:, 1::3], t[:, 1::3]), (s[0].expand(3, a.shape[1]), t[0].expand(3, a.shape[1])),
            (s[:0], t[:0]), (s[2, 5], t[2, 5])]


CALLS = [
    ("hardsigmoid", F.hardsigmoid, TF.hardsigmoid),
    ("hardswish", F.hardswish, TF.hardswish),
    ("softshrink", F.softshrink, TF.softshrink),
    ("softshrink 0", lambda x: F.softshrink(x, 0.0), lambda t: TF.softshrink(t, 0.0)),
    ("softshrink 1.5", lambda x: F.softshrink(x, 1.5), lambda t: TF.softshrink(t, 1.5)),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name,fn,tfn", CALLS, ids=[c[0] for c in CALLS])
def test_large_layouts_match_torch(name, fn, tfn, dtype, torch_threads_as_assumed):
    a = _words(300 * 260, dtype, 7).reshape(300, 260)  # (past the parallel grain: pieces per chunk)
    a[np.abs(a) > 1e6] = 2.5  # (finite values near the bounds mostly; the specials kept)
    for s, t in _layouts(a):
        got, want = fn(s), tfn(t)
        assert got.shape == tuple(want.shape) and got.stride() == want.stride(), name
        g, w = got.numpy(), want.numpy()
        assert _same_bits(_no_payloads(g), _no_payloads(w)), name
        assert np.isnan(g).tolist() == np.isnan(w).tolist()


@pytest.mark.parametrize("name,fn,tfn", CALLS, ids=[c[0] for c in CALLS])
def test_large_contiguous_nan_words_match_torch(name, fn, tfn, torch_threads_as_assumed):
    # (the NaN words themselves: the pass's lane NaNs where PyTorch's vector loop writes all-ones)
    a = _words(1 << 16, np.float32, 11)
    a[np.abs(a) > 1e6] = -3.0
    assert _same_bits(fn(strided.tensor(a)).numpy(), tfn(torch.from_numpy(a.copy())).numpy()), name


@pytest.mark.parametrize("dtype", [strided.float16, strided.bfloat16])
@pytest.mark.parametrize("name,fn,tfn", CALLS, ids=[c[0] for c in CALLS])
def test_half_dtypes_match_torch(name, fn, tfn, dtype):
    a = np.linspace(-7, 7, 4 * 129, dtype=np.float32).reshape(4, 129)
    s = strided.tensor(a).to(dtype)
    t = torch.from_numpy(a).to(getattr(torch, dtype.name))
    for x, y in ((s, t), (s.t(), t.t())):
        got, want = fn(x).float().numpy(), tfn(y).float().numpy()
        assert np.array_equal(got, want, equal_nan=True), name


@pytest.mark.parametrize("name", ["hardsigmoid_", "hardswish_"])
def test_in_place_matches_torch(name):
    a = _words(5 * 7000, np.float32, 3).reshape(5, 7000)
    a[np.abs(a) > 1e6] = 3.0
    for pick in (lambda v: v, lambda v: v.t(), lambda v: v[:, ::2]):
        s = strided.tensor(a)
        t = torch.from_numpy(a.copy())
        r = getattr(F, name.rstrip("_"))(pick(s), inplace=True)
        getattr(TF, name.rstrip("_"))(pick(t), inplace=True)
        assert r.data_ptr() == pick(s).data_ptr()
        assert _same_bits(_no_payloads(s.numpy()), _no_payloads(t.numpy())), name


@pytest.mark.parametrize("name,fn,tfn", CALLS, ids=[c[0] for c in CALLS])
def test_backward_matches_torch(name, fn, tfn):
    rng = np.random.default_rng(5)
    a = (rng.normal(0, 3, (40, 33)) ).astype(np.float32)
    a[0, :6] = [-3.0, 3.0, 0.5, -0.5, 0.0, -0.0]
    g = rng.normal(0, 1, (33, 40)).astype(np.float32)
    x = strided.tensor(a, requires_grad=True)
    xt = torch.from_numpy(a.copy()).requires_grad_()
    fn(x.t()).backward(strided.tensor(g))
    tfn(xt.t()).backward(torch.from_numpy(g))
    assert _same_bits(x.grad.numpy(), xt.grad.numpy()), name


def test_large_fast_path_is_the_general_path(monkeypatch):
    # (the compiled pass against the NumPy forward the rows fall back to: kernels off, no fast path)
    a = _words(1 << 17, np.float32, 13).reshape(256, 512)
    for _, fn, _ in CALLS:
        fast = fn(strided.tensor(a)).numpy()
        with monkeypatch.context() as m:
            m.setattr(A, "_fast", lambda *args: None)
            with native.disabled():
                general = fn(strided.tensor(a)).numpy()
        assert _same_bits(fast, general)


# ---- div_rows: F.normalize's and F.cosine_similarity's quotients by a per-row norm ----------------


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_div_rows_is_numpys_broadcast_division(dtype):
    rng = np.random.default_rng(2)
    for rows, m in [(1, 1), (3, 7), (5, 8), (17, 33), (64, 1000), (2, 4099)]:
        x = _words(rows * m, dtype, rows + m).reshape(rows, m)
        with np.errstate(all="ignore"):
            den = np.abs(rng.normal(0, 2, rows)).astype(dtype)
        den[: min(rows, 3)] = np.array([0.0, np.inf, np.nan], dtype)[: min(rows, 3)]
        out = np.empty_like(x)
        assert K.div_rows(x, den, out) is True
        with np.errstate(all="ignore"):
            assert _same_bits(out, x / den.reshape(-1, 1)), (rows, m)


def test_div_rows_refuses_what_it_does_not_take():
    x = np.ones((4, 6), np.float32)
    assert K.div_rows(x, np.ones(4, np.float64), np.empty_like(x)) is False  # (d of another format)
    assert K.div_rows(x, np.ones(5, np.float32), np.empty_like(x)) is False  # (5 rows do not divide 24)
    assert K.div_rows(x, np.ones(8, np.float32)[::2], np.empty_like(x)) is False  # (d strided)
    assert K.div_rows(x, np.ones(4, np.float32), x) is False  # (out over x)
    assert K.div_rows(x, np.ones(4, np.float32), np.empty((4, 6), np.float64)) is False
    assert K.div_rows(np.ones(0, np.float32), np.ones(0, np.float32), np.empty(0, np.float32)) is True
    with pytest.raises(TypeError, match="takes 3 arguments"):
        K.div_rows(x, x)


def _torch_of(s: strided.Tensor) -> torch.Tensor:
    return torch.from_numpy(s.numpy().copy())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(512, 300), (3, 40, 64), (100_000, 2)])
def test_normalize_and_cosine_similarity_match_torch(shape, dtype):
    rng = np.random.default_rng(len(shape))
    a = rng.normal(0, 2, shape).astype(dtype)
    b = rng.normal(0, 2, shape).astype(dtype)
    a[0] = 0.0  # (a zero row: the norm clamped to eps)
    a.reshape(-1)[5] = np.nan
    sa, sb = strided.tensor(a), strided.tensor(b)
    ta, tb = torch.from_numpy(a.copy()), torch.from_numpy(b.copy())
    for dim in (-1, len(shape) - 1):
        got, want = F.normalize(sa, dim=dim), TF.normalize(ta, dim=dim)
        assert got.stride() == want.stride()
        assert _same_bits(_no_payloads(got.numpy()), _no_payloads(want.numpy()))
        got, want = F.cosine_similarity(sa, sb, dim=dim), TF.cosine_similarity(ta, tb, dim=dim)
        assert _same_bits(_no_payloads(got.numpy()), _no_payloads(want.numpy()))
    fast = [F.normalize(sa, dim=-1).numpy(), F.normalize(sa, dim=-1, eps=0.5).numpy(),
            F.cosine_similarity(sa, sb, dim=-1).numpy()]
    with native.disabled():  # (NumPy's broadcast division: the same bits)
        assert _same_bits(fast[0], F.normalize(sa, dim=-1).numpy())
        assert _same_bits(fast[1], F.normalize(sa, dim=-1, eps=0.5).numpy())
        assert _same_bits(fast[2], F.cosine_similarity(sa, sb, dim=-1).numpy())


def test_normalize_and_cosine_similarity_other_layouts_and_autograd():
    rng = np.random.default_rng(9)
    a = rng.normal(0, 1, (64, 48)).astype(np.float32)
    b = rng.normal(0, 1, (64, 48)).astype(np.float32)
    for pick in (lambda v: v, lambda v: v.t(), lambda v: v[:, ::2]):
        for dim in (0, 1):
            s = pick(strided.tensor(a))
            t = pick(torch.from_numpy(a.copy()))
            got, want = F.normalize(s, dim=dim), TF.normalize(t, dim=dim)
            assert got.shape == tuple(want.shape) and got.stride() == want.stride()
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, atol=1e-7)
    x = strided.tensor(a, requires_grad=True)
    xt = torch.from_numpy(a.copy()).requires_grad_()
    (F.cosine_similarity(x, strided.tensor(b)) * strided.tensor(np.arange(64, dtype=np.float32))).sum().backward()
    (TF.cosine_similarity(xt, torch.from_numpy(b)) * torch.arange(64, dtype=torch.float32)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=1e-5, atol=1e-6)


# ---- hinge_embedding_loss of permuted dense operands: the flat steps over their runs -------------


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("perm", [(1, 0), (2, 0, 1), (1, 2, 0)])
def test_hinge_of_permuted_operands_is_the_chains(perm, dtype, monkeypatch):
    from strided.nn.functional import composed_losses as CL

    rng = np.random.default_rng(len(perm))
    shape = (40, 3, 50)[: len(perm)]
    x = rng.normal(0, 2, shape).astype(dtype)
    y = rng.choice(np.array([1.0, -1.0, 0.5, np.nan], dtype), shape)
    x.reshape(-1)[:3] = [1.0, -1.0, 0.25]  # (at the margins; finite: a NaN or inf would be every reduction's value)
    sx, sy = strided.tensor(x).permute(*perm), strided.tensor(y).permute(*perm)
    tx, ty = torch.from_numpy(x.copy()).permute(*perm), torch.from_numpy(y.copy()).permute(*perm)
    for red in ("mean", "sum"):
        for margin in (1.0, 0.25, 2):
            fast = F.hinge_embedding_loss(sx, sy, margin, reduction=red).numpy()
            with monkeypatch.context() as m:
                m.setattr(CL, "_hinge_rows", lambda *a: None)
                chain = F.hinge_embedding_loss(sx, sy, margin, reduction=red).numpy()
            assert _same_bits(fast, chain), (red, margin)
            want = TF.hinge_embedding_loss(tx, ty, margin, reduction=red).numpy()
            assert np.isfinite(fast)
            np.testing.assert_allclose(fast, want, rtol=1e-5 if dtype == np.float32 else 1e-12)
    # (operands of two layouts, or a size-1 dim: the chain, the same values)
    got = F.hinge_embedding_loss(strided.tensor(x).permute(*perm), strided.tensor(y.copy()).permute(*perm).contiguous())
    want = TF.hinge_embedding_loss(tx, ty.contiguous())
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, equal_nan=True)


# ---- rrelu's row-major result of a permuted input: the blocked copy into it -----------------------


@pytest.mark.parametrize("dtype", [strided.float32, strided.float64, strided.float16, strided.bfloat16])
@pytest.mark.parametrize("perm", [(1, 0), (2, 0, 1)])
def test_rrelu_of_permuted_input_is_row_major_and_torchs(perm, dtype):
    shape = (300, 7, 260)[: len(perm)] if len(perm) == 3 else (300, 260)
    a = _words(int(np.prod(shape)), np.float32, 17).reshape(shape)
    a[np.abs(a) > 1e6] = -2.0
    s = strided.tensor(a).to(dtype).permute(*perm)
    t = torch.from_numpy(a.copy()).to(getattr(torch, dtype.name)).permute(*perm)
    for lower, upper in ((1.0 / 8, 1.0 / 3), (0.25, 0.25)):
        got, want = F.rrelu(s, lower, upper), TF.rrelu(t, lower, upper)
        assert got.stride() == want.stride() and got.is_contiguous()
        g, w = got.float().numpy(), want.float().numpy()
        assert _same_bits(_no_payloads(g), _no_payloads(w)), (dtype, lower)


# ---- torch_threads: OMP_NUM_THREADS read from os.environ's dict each call ------------------------


def test_torch_threads_follows_the_environment(monkeypatch):
    from strided.kernels import torch_loops as TL

    cpus = len(__import__("os").sched_getaffinity(0))
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    assert TL.torch_threads() == cpus
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    assert TL.torch_threads() == 3
    assert TL.piece_length(1 << 20) == -(-(1 << 20) // 3)
    for bad in ("0", "x", "", "-2"):
        monkeypatch.setenv("OMP_NUM_THREADS", bad)
        assert TL.torch_threads() == cpus
    monkeypatch.delenv("OMP_NUM_THREADS")
    assert TL.torch_threads() == cpus and TL.piece_length(100) == 100
