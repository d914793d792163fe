"""logsumexp bit for bit against PyTorch 2.13 (lse39): PyTorch's own composite (amax, the infinite
maxes zeroed, ``self - maxes`` in TensorIterator's layout, exp_, sum in its order, log_, add_) run on
strided's exp / log / sum kernels, float32 and float64 (integer inputs through the default float),
any dim(s), keepdim, transposed and stepped layouts, out=, empty / 0-d / infinite / NaN rows.
PyTorch's sum is modelled at one thread (kernels.torch_sum): the comparisons run torch at one thread."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import strided as S
from strided import dispatch

torch = pytest.importorskip("torch")


pytestmark = pytest.mark.usefixtures("torch_one_thread")


def _bits(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    return a.view({4: np.uint32, 8: np.uint64}[a.itemsize])


def _same(got: np.ndarray, want: np.ndarray) -> None:
    """Equal bits; NaNs only where PyTorch's are (their words not compared: the max's NaN is either)."""
    assert got.shape == want.shape and got.dtype == want.dtype
    nan = np.isnan(want)
    assert (np.isnan(got) == nan).all()
    assert (_bits(got)[~nan] == _bits(want)[~nan]).all(), int((_bits(got)[~nan] != _bits(want)[~nan]).sum())


def _pair(a: np.ndarray, how: str):
    """(strided, torch) views of ``a`` laid out as ``how``: plain, transposed (its last two dims'
    memory order swapped) or stepped (every other element of a wider base)."""
    if how == "T":
        base = np.ascontiguousarray(np.swapaxes(a, -1, -2))
        return S.from_numpy(base).transpose(-1, -2), torch.from_numpy(base.copy()).transpose(-1, -2)
    if how == "step":
        base = np.repeat(a, 2, axis=-1)
        return S.from_numpy(base)[..., ::2], torch.from_numpy(base.copy())[..., ::2]
    return S.from_numpy(a.copy()), torch.from_numpy(a.copy())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("how", ["plain", "T", "step"])
@pytest.mark.parametrize("shape,dim", [((3, 4), -1), ((16, 16), -1), ((16, 16), 0), ((7, 33), 1),
                                       ((5, 300), -1), ((300, 5), 0), ((4, 5, 6), (0, 2)), ((4, 5, 6), 1)])
@pytest.mark.parametrize("keepdim", [False, True])
def test_bits_small(dtype: type, how: str, shape: tuple, dim, keepdim: bool) -> None:
    a = (np.random.default_rng(0).standard_normal(shape) * 4).astype(dtype)
    s, t = _pair(a, how)
    _same(S.logsumexp(s, dim, keepdim).numpy(), torch.logsumexp(t, dim, keepdim).numpy())
    _same(s.logsumexp(dim, keepdim=keepdim).numpy(), t.logsumexp(dim, keepdim=keepdim).numpy())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("how", ["plain", "T"])
@pytest.mark.parametrize("dim", [0, -1])
def test_bits_large(dtype: type, how: str, dim: int) -> None:
    """1M elements (past the rows kernels' and torch's parallel grain): every row torch's bits
    (was 59 to 566 rows of 1024 an ulp off: NumPy's exp and pairwise sum)."""
    a = np.random.default_rng(1).standard_normal((1024, 1024)).astype(dtype)
    s, t = _pair(a, how)
    _same(S.logsumexp(s, dim).numpy(), torch.logsumexp(t, dim).numpy())


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([np.float32, np.float64]), st.lists(st.integers(1, 9), min_size=1, max_size=4),
       st.integers(0, 2**31), st.booleans(), st.data())
def test_bits_any_layout_and_dims(dtype: type, shape: list, seed: int, keepdim: bool, data) -> None:
    """Random shapes, a random permutation of memory order, random dims (one int or a tuple)."""
    nd = len(shape)
    perm = data.draw(st.permutations(range(nd)))
    dims = data.draw(st.lists(st.integers(0, nd - 1), min_size=1, max_size=nd, unique=True))
    dim = dims[0] if len(dims) == 1 and data.draw(st.booleans()) else tuple(dims)
    base = (np.random.default_rng(seed).standard_normal([shape[p] for p in perm]) * 3).astype(dtype)
    inv = tuple(int(i) for i in np.argsort(perm))
    s = S.from_numpy(base.copy()).permute(*inv)
    t = torch.from_numpy(base.copy()).permute(*inv)
    _same(S.logsumexp(s, dim, keepdim).numpy(), torch.logsumexp(t, dim, keepdim).numpy())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_special_rows(dtype: type) -> None:
    """Rows of -inf (-inf), holding +inf (+inf), holding NaN (NaN), mixed with finite values."""
    a = np.random.default_rng(2).standard_normal((6, 11)).astype(dtype)
    a[0] = -np.inf
    a[1, 3] = np.inf
    a[2, 5] = np.nan
    a[3, :5] = -np.inf
    a[4, 2] = np.inf
    a[4, 7] = -np.inf
    a[5] = np.inf
    for dim in (0, 1, (0, 1)):
        for keepdim in (False, True):
            s, t = S.from_numpy(a.copy()), torch.from_numpy(a.copy())
            _same(S.logsumexp(s, dim, keepdim).numpy(), torch.logsumexp(t, dim, keepdim).numpy())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_empty_and_zero_d(dtype: type) -> None:
    for shape, dim, keepdim in (((0, 3), 0, False), ((0, 3), 1, True), ((2, 0), 1, False), ((), 0, False),
                                ((), (), True), ((1,), 0, False), ((2, 3), (), True)):
        a = np.random.default_rng(3).standard_normal(shape).astype(dtype)
        want = torch.logsumexp(torch.from_numpy(a.copy()), dim, keepdim)
        got = S.logsumexp(S.from_numpy(a.copy()), dim, keepdim)
        assert tuple(got.shape) == tuple(want.shape) and tuple(got.stride()) == tuple(want.stride())
        _same(got.numpy(), want.numpy())
    for v in (np.inf, -np.inf, np.nan, 3.5):
        _same(S.logsumexp(S.tensor(v, dtype=getattr(S, np.dtype(dtype).name)), 0).numpy(),
              torch.logsumexp(torch.tensor(v, dtype=getattr(torch, np.dtype(dtype).name)), 0).numpy())


@pytest.mark.parametrize("how", ["plain", "T"])
def test_integer_input_and_out(how: str) -> None:
    """An int64 input: the default float's result (PyTorch's self.to(float32) first); out= of the
    input's float dtype and of another float dtype."""
    a = np.random.default_rng(4).integers(-20, 20, (9, 37)).astype(np.int64)
    s, t = _pair(a, how)
    want = torch.logsumexp(t, 1)
    got = S.logsumexp(s, 1)
    assert got.dtype == S.float32
    _same(got.numpy(), want.numpy())
    f = np.random.default_rng(5).standard_normal((9, 37)).astype(np.float32)
    for od in ("float32", "float64"):
        so, to = S.empty(9, dtype=getattr(S, od)), torch.empty(9, dtype=getattr(torch, od))
        r = S.logsumexp(S.from_numpy(f.copy()), 1, out=so)
        torch.logsumexp(torch.from_numpy(f.copy()), 1, out=to)
        assert r is so
        _same(so.numpy(), to.numpy())


def test_records_one_op() -> None:
    """The steps are kernels, not ops: a listener sees one logsumexp record and none of exp / sum / log."""
    x = S.from_numpy(np.random.default_rng(6).standard_normal((8, 40)).astype(np.float32))
    for arg, dim in ((x, 1), (x, (0, 1)), (x.T, 0), (x.to(S.int64), 1)):
        records: list = []
        with dispatch.listen(records.append):
            S.logsumexp(arg, dim, keepdim=dim != 1)
        names = [r.name for r in records]
        assert names[-1] == "logsumexp" and not {"exp", "exp_", "sum", "log", "log_", "sub", "add_", "amax"} & set(names)
        if arg.dtype == S.float32:
            assert names == ["logsumexp"], names


def test_backward_unchanged() -> None:
    a = np.random.default_rng(7).standard_normal((5, 13))
    s = S.from_numpy(a.copy()).requires_grad_()
    t = torch.from_numpy(a.copy()).requires_grad_()
    S.logsumexp(s, 1).sum().backward()
    torch.logsumexp(t, 1).sum().backward()
    np.testing.assert_allclose(s.grad.numpy(), t.grad.numpy(), rtol=1e-13, atol=0)
