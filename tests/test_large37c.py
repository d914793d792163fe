"""Session 37's large-row paths (issue #23: 1M-element rows at the faster peer's speed), against
PyTorch bit for bit (values, NaN words, signed zeros), strides and dtypes:

- ``F.glu`` of a row-major input past PyTorch's parallel grain: the compiled ``glu_rows`` now
  cuts its rows at PyTorch's chunks itself (one pass; before, ``rows_loop`` over a copied half and
  a NumPy product) -- the same bits as that old path, checked here against it, but for NaN words
  where both halves are NaN in a chunk's scalar tail (the old product gave a's NaN; PyTorch's,
  and now strided's, is sigmoid's);
- ``F.glu`` of a permuted dense input (a transpose): the same compiled pass over its memory run,
  the result in the input's dim order (before, the composition b.sigmoid() * a).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import strided
import strided.nn.functional as F
from strided.kernels import native, sleef
from strided.kernels.fpstate import QUIET, quiet_reset, quiet_set

pytestmark = pytest.mark.usefixtures("torch_threads_as_assumed")  # (conftest.py: PyTorch's chunks as assumed)

_UINT = {np.dtype(np.float32): np.uint32, np.dtype(np.float64): np.uint64}
needs_sleef = pytest.mark.skipif(native.sleef() is None, reason="the compiled kernel is not built")


def _bits(a) -> np.ndarray:
    a = np.ascontiguousarray(a.numpy() if hasattr(a, "numpy") else a)
    return a.view(_UINT[a.dtype]) if a.dtype in _UINT else a


def _same(s, t) -> None:
    """shape, strides, dtype and every bit (NaN words and signed zeros included)."""
    assert tuple(s.shape) == tuple(t.shape)
    assert s.stride() == t.stride()
    assert str(s.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    np.testing.assert_array_equal(_bits(s), _bits(t))


def _data(shape, dtype, rng) -> np.ndarray:
    """Normal values times 6 (past sigmoid's saturation both ways), every 7th NaN of either sign,
    +-inf and -0 sprinkled, NaN in both halves at some places."""
    a = np.asarray(rng.standard_normal(shape) * 6, dtype)
    flat = a.reshape(-1)
    flat[::7] = np.nan
    flat[2::14] = -np.nan
    flat[3::11] = np.inf
    flat[4::13] = -np.inf
    flat[5::17] = -0.0
    return a


def _old_rowmajor_glu(a: np.ndarray, dim: int) -> np.ndarray:
    """The path past the grain before session 37: rows_loop's sigmoid of the second half (copied
    out in order, cut at rows and chunks), times the first half by NumPy (sigmoid's NaN first)."""
    k = dim % a.ndim
    outer = int(np.prod(a.shape[:k]))
    row = a.shape[k] // 2 * int(np.prod(a.shape[k + 1:]))
    halves = a.reshape(outer, 2, row)
    s = sleef.rows_loop(np.ascontiguousarray(halves[:, 1]), sleef.SIGMOID, max(row, 1))
    token = quiet_set(QUIET)
    try:
        return np.multiply(s.reshape(outer, row), halves[:, 0]).reshape(a.shape[:k] + (a.shape[k] // 2,) + a.shape[k + 1:])
    finally:
        quiet_reset(token)


@needs_sleef
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_glu_rowmajor_past_the_grain_equals_the_old_path_and_torch(dtype):
    rng = np.random.default_rng(37)
    shapes = [((256, 256), -1), ((256, 256), 0), ((4, 20000), -1), ((2, 40000), 0), ((3, 22222), 1),
              ((70000,), 0), ((5, 66, 200), 1), ((33, 2, 1000), 1), ((1, 131078), -1), ((130, 514), 1)]
    for shape, dim in shapes:
        a = _data(shape, dtype, rng)
        got = F.glu(strided.tensor(a), dim)
        _same(got, TF.glu(torch.from_numpy(a), dim))
        # (the old path's NumPy product could give a's NaN where both halves are NaN -- PyTorch
        # keeps sigmoid's, as the new pass does: every other bit is the old path's)
        old = _old_rowmajor_glu(a, dim)
        keep = ~np.isnan(old)
        np.testing.assert_array_equal(np.isnan(got.numpy()), ~keep)
        np.testing.assert_array_equal(_bits(got)[keep], _bits(old)[keep])


@needs_sleef
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_glu_permuted_dense_bits_and_strides_equal_torch(dtype):
    rng = np.random.default_rng(38)
    count = 0
    for shape in [(4, 6), (6, 4), (3, 4, 6), (2, 4, 6, 2), (64, 130), (300, 220), (2, 3, 4, 5), (512, 260)]:
        a = _data(shape, dtype, rng)
        for perm in itertools.permutations(range(len(shape))):
            s, t = strided.tensor(a).permute(*perm), torch.from_numpy(a).permute(*perm)
            for d in range(-len(shape), len(shape)):
                if t.shape[d] % 2 == 0:
                    _same(F.glu(s, d), TF.glu(t, d))
                    _same(F.glu(s, dim=d), TF.glu(t, dim=d))
                    count += 1
    assert count > 150


@needs_sleef
def test_glu_large_transpose_and_other_layouts():
    """The bench's rows (1024 x 1024 float32, contiguous and transposed), sliced, channels-last,
    expanded and zero-size inputs (the last three: the general path), against PyTorch."""
    rng = np.random.default_rng(39)
    a = _data((1024, 1024), np.float32, rng)
    for d in (0, 1, -1):
        _same(F.glu(strided.tensor(a), d), TF.glu(torch.from_numpy(a), d))
        _same(F.glu(strided.tensor(a).t(), d), TF.glu(torch.from_numpy(a).t(), d))
        _same(F.glu(strided.tensor(a)[:, 2:], d), TF.glu(torch.from_numpy(a)[:, 2:], d))
    c = _data((2, 6, 8, 10), np.float32, rng)
    sc = strided.tensor(c).contiguous(memory_format=strided.channels_last)
    tc = torch.from_numpy(c).contiguous(memory_format=torch.channels_last)
    for d in range(4):
        _same(F.glu(sc, d), TF.glu(tc, d))
    e = _data((1, 8), np.float32, rng)
    _same(F.glu(strided.tensor(e).expand(6, 8), 1), TF.glu(torch.from_numpy(e).expand(6, 8), 1))
    z = np.zeros((0, 8), np.float32)
    _same(F.glu(strided.tensor(z), 1), TF.glu(torch.from_numpy(z), 1))
    _same(F.glu(strided.tensor(z).t(), 0), TF.glu(torch.from_numpy(z).t(), 0))


def test_glu_permuted_gradients_equal_torch():
    rng = np.random.default_rng(40)
    a = rng.standard_normal((40, 300)).astype(np.float32)
    g = rng.standard_normal((150, 40)).astype(np.float32)
    s = strided.tensor(a, requires_grad=True)
    t = torch.tensor(a, requires_grad=True)
    ys, yt = F.glu(s.t(), 0), TF.glu(t.t(), 0)
    _same(ys.detach(), yt.detach())
    ys.backward(strided.tensor(g))
    yt.backward(torch.from_numpy(g))
    np.testing.assert_array_equal(_bits(s.grad), _bits(t.grad))


# ---------------------------------------------------------------- embedding


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_embedding_layouts_equal_torch(dtype):
    """Row-major, transposed (the column-major gather, past 2^14 elements), sliced and stepped
    weights; vector, matrix, 0-d and empty int64 / int32 indices (repeats included)."""
    rng = np.random.default_rng(41)
    base = np.asarray(rng.standard_normal((300, 200)) * 4, dtype)
    if dtype != np.int64:
        base.reshape(-1)[::9] = np.nan
        base.reshape(-1)[1::10] = -0.0
    weights = [lambda m: m, lambda m: m.t(), lambda m: m[::2, 1:], lambda m: m.t()[::3], lambda m: m.t()[:, 5:150]]
    for pick in weights:
        sw, tw = pick(strided.tensor(base)), pick(torch.from_numpy(base))
        n = tw.shape[0]
        for ishape in [(n,), (7, 90), (), (0,), (3, 0), (500,)]:
            for idt in (np.int64, np.int32):
                idx = rng.integers(0, n, ishape).astype(idt)
                _same(F.embedding(strided.tensor(idx), sw), TF.embedding(torch.from_numpy(idx), tw))
                _same(F.embedding(strided.tensor(idx).t() if idx.ndim == 2 else strided.tensor(idx), sw),
                      TF.embedding(torch.from_numpy(idx).t() if idx.ndim == 2 else torch.from_numpy(idx), tw))


def test_embedding_large_transposed_weight_and_errors():
    rng = np.random.default_rng(42)
    w = rng.standard_normal((1024, 1024)).astype(np.float32)
    idx = rng.integers(0, 1024, 1024)
    for sw, tw in ((strided.tensor(w), torch.from_numpy(w)), (strided.tensor(w).t(), torch.from_numpy(w).t())):
        _same(F.embedding(strided.tensor(idx), sw), TF.embedding(torch.from_numpy(idx), tw))
    bad = idx.copy()
    bad[5] = 1024
    with pytest.raises(IndexError, match="index out of range in self"):
        F.embedding(strided.tensor(bad), strided.tensor(w).t())
    with pytest.raises(IndexError, match="index out of range in self"):
        F.embedding(strided.tensor(-bad), strided.tensor(w).t())


def test_embedding_transposed_weight_gradient_equals_torch():
    rng = np.random.default_rng(43)
    w = rng.standard_normal((200, 100)).astype(np.float32)
    idx = rng.integers(0, 100, (30, 10))
    g = rng.standard_normal((30, 10, 200)).astype(np.float32)
    sw, tw = strided.tensor(w, requires_grad=True), torch.tensor(w, requires_grad=True)
    ys, yt = F.embedding(strided.tensor(idx), sw.t()), TF.embedding(torch.from_numpy(idx), tw.t())
    _same(ys.detach(), yt.detach())
    ys.backward(strided.tensor(g))
    yt.backward(torch.from_numpy(g))
    np.testing.assert_allclose(sw.grad.numpy(), tw.grad.numpy(), rtol=1e-6, atol=1e-6)


# ---------------------------------------------------------------- pooling rows


def _pool_data(shape, dtype, rng) -> np.ndarray:
    a = np.asarray(rng.standard_normal(shape), dtype)
    flat = a.reshape(-1)
    flat[::13] = np.nan
    flat[6::26] = -np.nan
    flat[3::17] = -np.inf
    flat[4::19] = np.inf
    flat[5::23] = -0.0
    flat[7::23] = 0.0
    flat[8::29] = flat[9::29] if flat[9::29].size == flat[8::29].size else flat[8::29]  # (ties)
    return a


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_pool_rows_equal_torch(dtype):
    """The unit-stride row loops (max: four float lanes a tap; average: the taps across a row),
    output rows of 8 or more: every window stride 1, 2, 3, kernels 1 to 4, dilation, ceil_mode,
    padding (the bounds-checked loop), 1-d and 2-d, row-major and sliced rows; every bit vs PyTorch."""
    rng = np.random.default_rng(44)
    count = 0
    for length in (16, 17, 33, 64, 130):
        a = _pool_data((2, 3, length), dtype, rng)
        for s, t in ((strided.tensor(a), torch.from_numpy(a)), (strided.tensor(a)[:, ::2], torch.from_numpy(a)[:, ::2]),
                     (strided.tensor(a)[..., 1:], torch.from_numpy(a)[..., 1:])):
            for k, st, dil, ceil in itertools.product((1, 2, 3, 4), (1, 2, 3), (1, 2), (False, True)):
                if (k - 1) * dil + 1 > t.shape[-1]:
                    continue
                _same(F.max_pool1d(s, k, st, 0, dil, ceil), TF.max_pool1d(t, k, st, 0, dil, ceil))
                count += 1
                if dil == 1:
                    _same(F.avg_pool1d(s, k, st, 0, ceil), TF.avg_pool1d(t, k, st, 0, ceil))
            _same(F.max_pool1d(s, 3, 2, 1), TF.max_pool1d(t, 3, 2, 1))
            _same(F.avg_pool1d(s, 3, 2, 1), TF.avg_pool1d(t, 3, 2, 1))
    b = _pool_data((2, 2, 9, 40), dtype, rng)
    for k, st in (((2, 2), (2, 2)), ((3, 2), (1, 2)), ((2, 3), (2, 1)), ((3, 3), (2, 3))):
        _same(F.max_pool2d(strided.tensor(b), k, st), TF.max_pool2d(torch.from_numpy(b), k, st))
        _same(F.max_pool2d(strided.tensor(b), k, st, dilation=2), TF.max_pool2d(torch.from_numpy(b), k, st, dilation=2))
        _same(F.avg_pool2d(strided.tensor(b), k, st), TF.avg_pool2d(torch.from_numpy(b), k, st))
        _same(F.avg_pool2d(strided.tensor(b), k, st, divisor_override=5),
              TF.avg_pool2d(torch.from_numpy(b), k, st, divisor_override=5))
    assert count > 300


def test_max_pool1d_bench_rows_equal_torch():
    rng = np.random.default_rng(45)
    a = _pool_data((1, 1024, 1024), np.float32, rng)
    for s, t in ((strided.tensor(a), torch.from_numpy(a)), (strided.tensor(a).transpose(1, 2), torch.from_numpy(a).transpose(1, 2))):
        _same(F.max_pool1d(s, 2), TF.max_pool1d(t, 2))
        _same(F.avg_pool1d(s, 2), TF.avg_pool1d(t, 2))
    x = strided.tensor(a[:, :8, :64].copy(), requires_grad=True)
    y = torch.tensor(a[:, :8, :64].copy(), requires_grad=True)
    xs, ys = F.max_pool1d(x, 2), TF.max_pool1d(y, 2)
    _same(xs.detach(), ys.detach())


# ---------------------------------------------------------------- logsigmoid


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_logsigmoid_layouts_equal_torch(dtype):
    """A non-row-major input's row-major copy is now copy_into's blocked copy (was NumPy's
    ascontiguousarray): transposed, sliced, stepped, expanded, channels-last, 0-d and empty."""
    rng = np.random.default_rng(46)
    a = _pool_data((300, 260), dtype, rng) * 20
    s, t = strided.tensor(a), torch.from_numpy(a)
    for f in (lambda m: m, lambda m: m.t(), lambda m: m[::2, 3:], lambda m: m.t()[::3],
              lambda m: m[:1].expand(5, 260), lambda m: m[0, 0], lambda m: m[:0]):
        _same(F.logsigmoid(f(s)), TF.logsigmoid(f(t)))
    c = _pool_data((2, 6, 8, 10), dtype, rng) * 20
    _same(F.logsigmoid(strided.tensor(c).contiguous(memory_format=strided.channels_last)),
          TF.logsigmoid(torch.from_numpy(c).contiguous(memory_format=torch.channels_last)))
    big = _pool_data((1024, 1024), np.float32, rng) * 20
    _same(F.logsigmoid(strided.tensor(big).t()), TF.logsigmoid(torch.from_numpy(big).t()))
    x = strided.tensor(a, requires_grad=True)
    y = torch.tensor(a, requires_grad=True)
    F.logsigmoid(x.t()).sum().backward()
    TF.logsigmoid(y.t()).sum().backward()
    np.testing.assert_array_equal(_bits(x.grad), _bits(y.grad))
