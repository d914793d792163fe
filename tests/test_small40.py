"""Session 40's small-call paths against PyTorch 2.13 and against the paths they replace (small40):
``F.binary_cross_entropy_with_logits``' fresh path in one compiled call (``bce_logits_run``),
``logsumexp`` of a row-major tensor over one dim (``_lse_rows``, planned once per shape) and
``inner`` of two 2-D row-major tensors (``matkernel.linear``). Each must give the bits it gave
before (the previous steps, called directly) and PyTorch's where PyTorch's are modelled."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import strided as S
import strided.nn.functional as F
from strided.kernels import native
from strided.kernels.matmul import matmul_new
from strided.nn.functional.losses import _logits_loss
from strided.ops.reductions.nan_reductions import lse_steps

torch = pytest.importorskip("torch")
TF = torch.nn.functional

pytestmark = pytest.mark.usefixtures("torch_one_thread")

_SPECIALS = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-30, -1e-30, 88.7, -88.7, 1e30, -1e30, 17.0, -17.0])


def _bits(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    return a.view({4: np.uint32, 8: np.uint64}[a.itemsize])


def _same_words(got: np.ndarray, want: np.ndarray) -> None:
    """Equal shapes, dtypes and bits, NaN words included."""
    assert got.shape == want.shape and got.dtype == want.dtype
    assert (_bits(got) == _bits(want)).all(), int((_bits(got) != _bits(want)).sum())


def _same(got: np.ndarray, want: np.ndarray) -> None:
    """Equal bits; NaNs where PyTorch's are (their words not compared)."""
    assert got.shape == want.shape and got.dtype == want.dtype
    nan = np.isnan(want)
    assert (np.isnan(got) == nan).all()
    assert (_bits(got)[~nan] == _bits(want)[~nan]).all()


def _values(rng: np.random.Generator, shape: tuple, dtype: type, specials: bool, scale: float = 10.0) -> np.ndarray:
    a = np.asarray(rng.standard_normal(shape) * scale).astype(dtype)
    if specials and a.size:
        picks = rng.integers(0, a.size, max(1, a.size // 4))
        a.flat[picks] = rng.choice(_SPECIALS, picks.size).astype(dtype)
    return a


def _layout(a: np.ndarray, how: str):
    """(strided, torch) views of ``a``: plain, transposed, stepped, or a row-major slice at an offset."""
    if how == "T" and a.ndim >= 2:
        # (a fresh copy: np.ascontiguousarray keeps a size-1 dim's odd stride, which .copy() below
        # would not, and the two libraries would get different layouts, so different result strides)
        base = np.swapaxes(a, -1, -2).copy()
        return S.from_numpy(base).transpose(-1, -2), torch.from_numpy(base.copy()).transpose(-1, -2)
    if how == "step" and a.ndim:
        base = np.repeat(a, 2, axis=-1)
        return S.from_numpy(base)[..., ::2], torch.from_numpy(base.copy())[..., ::2]
    if how == "offset" and a.ndim:
        base = np.concatenate([a[:1], a])
        return S.from_numpy(base)[1:], torch.from_numpy(base.copy())[1:]
    return S.from_numpy(a.copy()), torch.from_numpy(a.copy())


# ---- F.binary_cross_entropy_with_logits


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 2, 7, 8, 9, 15, 16, 17, 31, 33, 64, 100, 1000])
def test_bce_logits_kernel_is_the_numpy_steps(dtype: type, n: int) -> None:
    """The compiled call gives the bits of the steps it replaces (log_sigmoid_run, then NumPy's
    (1 - y) * x - it, a NaN log_sigmoid kept), NaN words included, at every vector tail."""
    k = native.special()
    if k is None or getattr(k, "bce_logits_run", None) is None:
        pytest.skip("the special kernel is not built")
    rng = np.random.default_rng(n)
    x, y = _values(rng, (n,), dtype, True), _values(rng, (n,), dtype, True, 1.0)
    out = np.empty(n, dtype)
    assert k.bce_logits_run(x, y, out) is True
    with np.errstate(all="ignore"):
        want = _logits_loss(x, y, True)
    _same_words(out, want)


def test_bce_logits_kernel_refuses_what_it_cannot_take() -> None:
    k = native.special()
    if k is None or getattr(k, "bce_logits_run", None) is None:
        pytest.skip("the special kernel is not built")
    x, y = np.ones(8, np.float32), np.ones(8, np.float32)
    out = np.full(8, 7.0, np.float32)
    assert k.bce_logits_run(x, y.astype(np.float64), out) is False  # (dtypes differ)
    assert k.bce_logits_run(x, y[:7], out) is False  # (lengths differ)
    assert k.bce_logits_run(np.ones(16, np.float32)[::2], y, out) is False  # (not contiguous)
    assert k.bce_logits_run(x, y, x) is False  # (out overlaps x)
    assert k.bce_logits_run(x.astype(np.float16), y.astype(np.float16), out.astype(np.float16)) is False
    assert (out == 7.0).all()
    with pytest.raises(TypeError, match="takes 3 arguments"):
        k.bce_logits_run(x, y)


@settings(max_examples=60, deadline=None)
@given(shape=st.lists(st.integers(0, 6), min_size=0, max_size=3).map(tuple),
       dtype=st.sampled_from([np.float32, np.float64]), how=st.sampled_from(["plain", "T", "step", "offset"]),
       reduction=st.sampled_from(["none", "mean", "sum"]), specials=st.booleans(), seed=st.integers(0, 2**16))
def test_bce_logits_against_torch(shape: tuple, dtype: type, how: str, reduction: str, specials: bool,
                                  seed: int) -> None:
    rng = np.random.default_rng(seed)
    xs, xt = _layout(_values(rng, shape, dtype, specials), how)
    ys, yt = _layout(_values(rng, shape, dtype, specials, 1.0), how)
    got = F.binary_cross_entropy_with_logits(xs, ys, reduction=reduction)
    want = TF.binary_cross_entropy_with_logits(xt, yt, reduction=reduction)
    assert got.shape == tuple(want.shape)
    assert got.stride() == want.stride()  # (empty_like(target)'s: an empty loss's 0s, a size-1 dim's stride)
    if how == "plain":
        _same_words(got.numpy(), want.numpy())  # (the fresh path: PyTorch's NaN words too)
    else:
        _same(got.numpy(), want.numpy())


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_bce_logits_large_against_torch(reduction: str, torch_two_threads: None) -> None:
    rng = np.random.default_rng(5)
    x, y = _values(rng, (300, 201), np.float32, True), _values(rng, (300, 201), np.float32, False, 1.0)
    got = F.binary_cross_entropy_with_logits(S.from_numpy(x), S.from_numpy(y), reduction=reduction)
    _same_words(got.numpy(), TF.binary_cross_entropy_with_logits(torch.from_numpy(x), torch.from_numpy(y),
                                                                 reduction=reduction).numpy())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_bce_logits_gradients_against_torch(dtype: type, reduction: str) -> None:
    rng = np.random.default_rng(3)
    x, y = _values(rng, (4, 5), dtype, False), rng.random((4, 5)).astype(dtype)
    xs, ys = S.tensor(x, requires_grad=True), S.tensor(y, requires_grad=True)
    xt, yt = torch.tensor(x, requires_grad=True), torch.tensor(y, requires_grad=True)
    ls = F.binary_cross_entropy_with_logits(xs, ys, reduction=reduction)
    lt = TF.binary_cross_entropy_with_logits(xt, yt, reduction=reduction)
    _same(ls.detach().numpy(), lt.detach().numpy())
    g = rng.standard_normal(lt.shape).astype(dtype)
    ls.backward(S.tensor(g))
    lt.backward(torch.tensor(g))
    np.testing.assert_allclose(xs.grad.numpy(), xt.grad.numpy(), rtol=1e-5 if dtype is np.float32 else 1e-12)
    np.testing.assert_allclose(ys.grad.numpy(), yt.grad.numpy(), rtol=1e-5 if dtype is np.float32 else 1e-12)


def test_bce_logits_errors_as_torch() -> None:
    x = np.zeros((3, 4), np.float32)
    with pytest.raises(ValueError) as te:
        TF.binary_cross_entropy_with_logits(torch.from_numpy(x), torch.zeros(3, 5))
    with pytest.raises(ValueError) as se:
        F.binary_cross_entropy_with_logits(S.from_numpy(x), S.zeros(3, 5))
    assert str(se.value).splitlines()[0] == str(te.value)
    with pytest.raises(RuntimeError) as te:
        TF.binary_cross_entropy_with_logits(torch.from_numpy(x), torch.zeros(3, 4, dtype=torch.int64))
    with pytest.raises(RuntimeError) as se:
        F.binary_cross_entropy_with_logits(S.from_numpy(x), S.zeros(3, 4, dtype=S.int64))
    assert str(se.value).splitlines()[0] == str(te.value)
    with pytest.raises(ValueError):
        F.binary_cross_entropy_with_logits(S.from_numpy(x), S.from_numpy(x), reduction="most")
    with pytest.raises(ValueError):
        TF.binary_cross_entropy_with_logits(torch.from_numpy(x), torch.from_numpy(x), reduction="most")


def test_bce_logits_mixed_dtypes_against_torch() -> None:
    rng = np.random.default_rng(9)
    x, y = _values(rng, (3, 4), np.float32, True), rng.random((3, 4))
    got = F.binary_cross_entropy_with_logits(S.from_numpy(x), S.from_numpy(y), reduction="none")
    want = TF.binary_cross_entropy_with_logits(torch.from_numpy(x), torch.from_numpy(y), reduction="none")
    assert got.dtype == S.float64 and want.dtype == torch.float64
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, equal_nan=True)


# ---- logsumexp


@settings(max_examples=80, deadline=None)
@given(shape=st.lists(st.integers(1, 7), min_size=1, max_size=3).map(tuple),
       dtype=st.sampled_from([np.float32, np.float64]), how=st.sampled_from(["plain", "offset", "T", "step"]),
       keepdim=st.booleans(), specials=st.booleans(), data=st.data())
def test_logsumexp_against_torch_and_the_steps(shape: tuple, dtype: type, how: str, keepdim: bool,
                                               specials: bool, data: st.DataObject) -> None:
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    a = _values(np.random.default_rng(data.draw(st.integers(0, 2**16))), shape, dtype, specials)
    if specials and data.draw(st.booleans()):
        a[..., 0] = -np.inf  # (rows of -inf along the last dim's start; a whole -inf row where the dim is 1)
    s, t = _layout(a, how)
    got = S.logsumexp(s, dim, keepdim)
    want = torch.logsumexp(t, dim, keepdim)
    assert got.shape == tuple(want.shape) and got.stride() == want.stride()
    assert got.dtype == (S.float32 if dtype is np.float32 else S.float64)
    _same(got.numpy(), want.numpy())
    with np.errstate(all="ignore"):  # (the general steps on the same view: the same words)
        steps = lse_steps(s.numpy(), (dim % len(shape),), keepdim)
    _same_words(got.numpy(), steps)


@pytest.mark.parametrize("shape,dim", [((3, 4), -1), ((16, 16), 0), ((1, 1), 1), ((2, 1, 5), 1), ((300, 200), 1),
                                       ((300, 200), 0), ((5,), 0)])
def test_logsumexp_row_major_bits(shape: tuple, dim: int, torch_threads_as_assumed: None) -> None:
    a = _values(np.random.default_rng(1), shape, np.float32, True)
    _same(S.logsumexp(S.from_numpy(a), dim).numpy(), torch.logsumexp(torch.from_numpy(a), dim).numpy())
    _same(S.from_numpy(a).logsumexp(dim, keepdim=True).numpy(),
          torch.from_numpy(a).logsumexp(dim, keepdim=True).numpy())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_logsumexp_gradient_against_torch(dtype: type) -> None:
    a = _values(np.random.default_rng(2), (4, 6), dtype, False, 3.0)
    s, t = S.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    rs, rt = S.logsumexp(s, -1), torch.logsumexp(t, -1)
    _same(rs.detach().numpy(), rt.detach().numpy())
    g = np.arange(1, 5).astype(dtype)
    rs.backward(S.tensor(g))
    rt.backward(torch.tensor(g))
    np.testing.assert_allclose(s.grad.numpy(), t.grad.numpy(), rtol=1e-6 if dtype is np.float32 else 1e-13)


def test_logsumexp_errors_as_torch() -> None:
    a = np.zeros((3, 4), np.float32)
    for dim in (2, -3):
        with pytest.raises(IndexError) as te:
            torch.logsumexp(torch.from_numpy(a), dim)
        with pytest.raises(IndexError) as se:
            S.logsumexp(S.from_numpy(a), dim)
        assert str(se.value).splitlines()[0] == str(te.value)


# ---- inner


@settings(max_examples=80, deadline=None)
@given(r=st.integers(1, 20), c=st.integers(1, 20), k=st.integers(1, 20), dtype=st.sampled_from([np.float32, np.float64]),
       specials=st.booleans(), seed=st.integers(0, 2**16))
def test_inner_2d_is_the_matmul_it_replaces(r: int, c: int, k: int, dtype: type, specials: bool, seed: int) -> None:
    rng = np.random.default_rng(seed)
    a, b = _values(rng, (r, k), dtype, specials, 1.0), _values(rng, (c, k), dtype, specials, 1.0)
    got = S.inner(S.from_numpy(a), S.from_numpy(b))
    with np.errstate(all="ignore"):
        want = matmul_new(a, b.T, (r, c)).reshape(r, c)
    assert got.shape == (r, c) and got.stride() == (c, 1)
    _same_words(got.numpy(), want)
    if not specials:  # (huge terms cancel in each library's own order: only finite, tame values compared)
        np.testing.assert_allclose(got.numpy(), torch.inner(torch.from_numpy(a), torch.from_numpy(b)).numpy(),
                                   rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("shapes", [((8, 16), (4, 16)), ((33, 7), (9, 7)), ((64, 64), (64, 64))])
def test_inner_mkl_sized_against_torch(shapes: tuple) -> None:
    """Results of at least 8 x 4: PyTorch's gemm (the MKL route, where it runs) -- the bits the
    general path gives, the same as before."""
    rng = np.random.default_rng(4)
    a, b = (rng.standard_normal(s).astype(np.float32) for s in shapes)
    got = S.inner(S.from_numpy(a), S.from_numpy(b)).numpy()
    want = torch.inner(torch.from_numpy(a), torch.from_numpy(b)).numpy()
    from strided.kernels import blas_route

    if blas_route.lib() is not None:
        _same_words(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_inner_other_layouts_and_errors() -> None:
    rng = np.random.default_rng(6)
    a, b = rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal((5, 4)).astype(np.float32)
    sa, sb = S.from_numpy(a), S.from_numpy(b)
    # a transposed or 3-D operand: the general path, the same values
    np.testing.assert_allclose(S.inner(sa.T.contiguous().T, sb).numpy(), a @ b.T, rtol=1e-6)
    np.testing.assert_allclose(S.inner(sa.reshape(1, 3, 4), sb).numpy(), (a @ b.T).reshape(1, 3, 5), rtol=1e-6)
    with pytest.raises(RuntimeError) as te:
        torch.inner(torch.from_numpy(a), torch.zeros(5, 3))
    with pytest.raises(RuntimeError) as se:
        S.inner(sa, S.zeros(5, 3))
    assert str(se.value).splitlines()[0] == str(te.value).splitlines()[0]
    with pytest.raises(RuntimeError) as te:
        torch.inner(torch.from_numpy(a), torch.zeros(5, 4, dtype=torch.float64))
    with pytest.raises(RuntimeError) as se:
        S.inner(sa, S.zeros(5, 4, dtype=S.float64))
    assert str(se.value).splitlines()[0] == str(te.value).splitlines()[0]
    # autograd: the general path (the fast one is for tensors outside autograd)
    xs = S.tensor(a, requires_grad=True)
    S.inner(xs, sb).sum().backward()
    np.testing.assert_allclose(xs.grad.numpy(), np.broadcast_to(b.sum(0), (3, 4)), rtol=1e-6)


# ---- trapezoid (the sum by the compiled call planned per layout, for row- and column-major y)


@settings(max_examples=80, deadline=None)
@given(shape=st.lists(st.integers(1, 7), min_size=1, max_size=3).map(tuple),
       dtype=st.sampled_from([np.float32, np.float64]), how=st.sampled_from(["plain", "offset", "T", "step"]),
       dx=st.sampled_from([None, 0.5, 3]), specials=st.booleans(), data=st.data())
def test_trapezoid_against_torch(shape: tuple, dtype: type, how: str, dx, specials: bool,
                                 data: st.DataObject) -> None:
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    a = _values(np.random.default_rng(data.draw(st.integers(0, 2**16))), shape, dtype, specials)
    s, t = _layout(a, how)
    kw = {} if dx is None else {"dx": dx}
    if t.shape[dim] < 2:
        return
    got, want = S.trapezoid(s, dim=dim, **kw), torch.trapezoid(t, dim=dim, **kw)
    assert got.shape == tuple(want.shape) and got.stride() == want.stride()
    _same(got.numpy(), want.numpy())


# ---- empty (the plan, np.empty and adopt in fresh_filled's one call)


@pytest.mark.parametrize("args,kwargs", [((3, 4), {}), (((3, 4),), {}), ((1024, 1024), {}), ((0, 5), {}),
                                         ((2, 3), {"dtype": S.float64}), (((7,),), {"dtype": S.int64}),
                                         ((2, 3), {"dtype": "float16"})])
def test_empty_as_torch(args: tuple, kwargs: dict) -> None:
    for _ in range(2):  # (the first call makes the layout's plan, the second takes the fast path)
        t = S.empty(*args, **kwargs)
        tk = {"dtype": getattr(torch, str(kwargs["dtype"]).replace("strided.", ""))} if "dtype" in kwargs else {}
        want = torch.empty(*args, **tk)
        assert t.shape == tuple(want.shape) and t.stride() == want.stride()
        assert str(t.dtype).replace("strided.", "") == str(want.dtype).replace("torch.", "")
        assert t.numpy().flags.writeable and t.numpy().flags.c_contiguous


@pytest.mark.parametrize("args", [(-1,), (2, -3), ((2, -3),)])
def test_empty_errors_as_torch(args: tuple) -> None:
    with pytest.raises((RuntimeError, TypeError)) as te:
        torch.empty(*args)
    for _ in range(2):
        with pytest.raises(type(te.value)) as se:
            S.empty(*args)
        assert str(se.value).splitlines()[0] == str(te.value).splitlines()[0]


def test_empty_bad_dtype_and_allocation_errors() -> None:
    S.empty(3, 4)
    with pytest.raises(TypeError):  # (a float size: main's words, not PyTorch's "(position 1) ... not float")
        S.empty(2.0)
    with pytest.raises(TypeError):  # (a bool size, refused as PyTorch refuses it; main's words)
        S.empty(True, 2)
    with pytest.raises(TypeError):
        S.empty(3, 4, dtype="no such dtype")
    with pytest.raises(RuntimeError, match="not enough memory"):  # (a plan made, its allocation failing)
        S.empty(2**40, 2**20)
    with pytest.raises(RuntimeError, match="not enough memory"):
        S.empty(2**40, 2**20)


# ---- diag of a matrix (the memo's diagonal, copied, without the argument checks' calls)


@pytest.mark.parametrize("how", ["plain", "T", "step", "offset"])
@pytest.mark.parametrize("k", [0, 1, -1, 2, -3, 9, -9])
def test_diag_matrix_against_torch(how: str, k: int) -> None:
    a = _values(np.random.default_rng(7), (3, 4), np.float32, True)
    s, t = _layout(a, how)
    for _ in range(2):  # (the first call decides the diagonal's layout, the second takes the fast path)
        got, want = S.diag(s, k), torch.diag(t, k)
        assert got.shape == tuple(want.shape) and got.stride() == want.stride() and got.dtype == S.float32
        _same_words(got.numpy(), want.numpy())
        got.numpy()[...] = 0  # (a copy: the input keeps its values)
        _same_words(s.numpy(), t.numpy())


def test_diag_errors_as_torch() -> None:
    s, t = S.ones(2, 3, 4), torch.ones(2, 3, 4)
    with pytest.raises(RuntimeError) as te:
        torch.diag(t)
    with pytest.raises(RuntimeError) as se:
        S.diag(s)
    assert str(se.value).splitlines()[0] == str(te.value).splitlines()[0]
    with pytest.raises(TypeError):
        S.diag(S.ones(3, 3), 1.5)
    with pytest.raises(TypeError):
        torch.diag(torch.ones(3, 3), 1.5)
