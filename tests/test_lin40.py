"""Session 40's large linalg rows: the matmul family's permuted, sliced and expanded batches (their
operands and inputs copied row-major by the blocked copy on the MKL route), cholesky's zeroed
triangle on the MKL route (the compiled tri_copy in place), and lstsq on those layouts: PyTorch's
bits where the existing tests assert them (the MKL route: tests/test_mkl37.py), its values to
LAPACK's accuracy otherwise, and the same bits as the NumPy fallback each replaced step had."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided
from strided.kernels import blas_route
from strided.ops.linalg import mkl_lapack

torch = pytest.importorskip("torch")

from test_mkl37 import MKL, bits  # noqa: E402  (the route's switch and the bit view its tests use)

# (the MKL route's gemm bits are PyTorch's on one thread: tests/test_mkl37.py)
pytestmark = pytest.mark.usefixtures("torch_one_thread")
LAYOUTS = ("rowmajor", "reversed", "batch_inner", "sliced", "expanded")


def batch(rng: np.random.Generator, shape: tuple[int, ...], dtype: type, how: str) -> tuple:
    """The same batch of matrices as a strided and a torch tensor laid out as ``how`` says:
    row-major; ``reversed`` (every dim's order reversed in memory: the transpose of a row-major
    (c, r, B), BLAS takes no matrix of it as it is); ``batch_inner`` (the batch dim innermost,
    each matrix row-major over it); ``sliced`` (every other column); ``expanded`` (one matrix
    repeated along the batch, stride 0)."""
    if how == "reversed":
        base = rng.standard_normal(shape[::-1]).astype(dtype)
        perm = tuple(range(len(shape)))[::-1]
        return strided.tensor(base).permute(*perm), torch.from_numpy(base).permute(*perm)
    if how == "batch_inner" and len(shape) == 3:
        base = rng.standard_normal((shape[1], shape[2], shape[0])).astype(dtype)
        return strided.tensor(base).permute(2, 0, 1), torch.from_numpy(base).permute(2, 0, 1)
    if how == "sliced":
        base = rng.standard_normal((*shape[:-1], 2 * shape[-1])).astype(dtype)
        return strided.tensor(base)[..., ::2], torch.from_numpy(base)[..., ::2]
    if how == "expanded" and len(shape) == 3:
        base = rng.standard_normal((1, *shape[1:])).astype(dtype)
        return strided.tensor(base).expand(*shape), torch.from_numpy(base).expand(*shape)
    base = rng.standard_normal(shape).astype(dtype)
    return strided.tensor(base), torch.from_numpy(base)


def check(s: strided.Tensor, t: torch.Tensor, exact: bool) -> None:
    """Shape, dtype, row-major strides and PyTorch's bits (``exact``) or values (float32 tolerance)."""
    a, b = s.numpy(), t.numpy()
    assert a.shape == b.shape and a.dtype == b.dtype
    assert s.stride() == t.stride()
    if exact:
        assert np.array_equal(bits(a), bits(b))
    else:
        np.testing.assert_allclose(a, b, rtol=2e-4 if a.dtype == np.float32 else 1e-10, atol=1e-3)


def on_route(n: int, k: int, p: int) -> bool:
    return MKL and n >= blas_route.MIN_ROWS and p >= blas_route.MIN_COLS and k > 0 and n * k * p >= blas_route.BMM_LOOP


PRODUCTS = {
    "bmm": lambda m, i, a, b: m.bmm(a, b),
    "matmul": lambda m, i, a, b: m.matmul(a, b),
    "baddbmm": lambda m, i, a, b: m.baddbmm(i, a, b, beta=0.5, alpha=2.0),
    "baddbmm_beta1": lambda m, i, a, b: m.baddbmm(i, a, b),
    "addbmm": lambda m, i, a, b: m.addbmm(i[0], a, b, beta=0.5),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("op", sorted(PRODUCTS))
@pytest.mark.parametrize("how", LAYOUTS)
def test_batched_products_on_layouts(dtype: type, op: str, how: str) -> None:
    rng = np.random.default_rng(40)
    for B, n, k, p in [(4, 96, 80, 72), (3, 300, 260, 270), (2, 9, 100, 8)]:
        a, ta = batch(rng, (B, n, k), dtype, how)
        b, tb = batch(rng, (B, k, p), dtype, "reversed" if how == "rowmajor" else how)
        i, ti = batch(rng, (B, n, p), dtype, how)
        f = PRODUCTS[op]
        got = f(strided, i, a, b)
        # (PyTorch's bits for bmm/matmul on the route; baddbmm/addbmm are the rounded product plus
        # beta * input, not PyTorch's one gemm with beta: its values, as on main)
        check(got, f(torch, ti, ta, tb), on_route(n, k, p) and op in ("bmm", "matmul"))
        # every operand row-major first: the same bits (the blocked copies change no value)
        same = f(strided, i.contiguous(), a.contiguous(), b.contiguous())
        if how in ("reversed", "batch_inner", "expanded"):  # (layouts BLAS takes only as copies)
            assert np.array_equal(bits(got.numpy()), bits(same.numpy()))


@pytest.mark.parametrize("op", sorted(PRODUCTS))
def test_batched_products_zero_sizes(op: str) -> None:
    rng = np.random.default_rng(41)
    f = PRODUCTS[op]
    for B, n, k, p in [(0, 96, 80, 72), (3, 96, 0, 72), (3, 0, 80, 72), (3, 96, 80, 0)]:
        for how in ("rowmajor", "reversed"):
            a, ta = batch(rng, (B, n, k), np.float32, how)
            b, tb = batch(rng, (B, k, p), np.float32, how)
            i, ti = batch(rng, (max(B, 1), n, p), np.float32, how)
            if op != "addbmm":
                i, ti = i[:B], ti[:B]
            check(f(strided, i, a, b), f(torch, ti, ta, tb), True)


def test_batched_product_broadcast_batch() -> None:
    rng = np.random.default_rng(42)
    a, ta = batch(rng, (4, 96, 80), np.float32, "reversed")
    b, tb = batch(rng, (1, 80, 72), np.float32, "reversed")
    check(a @ b, ta @ tb, MKL)  # (b's one matrix broadcast over a's batch: not copied per matrix)
    check(a[0] @ b.expand(4, 80, 72), ta[0] @ tb.expand(4, 80, 72), MKL)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("how", ("rowmajor", "transposed", "sliced", "expanded_row", "vector", "scalar", "column"))
def test_addmm_input_layouts(dtype: type, how: str) -> None:
    rng = np.random.default_rng(43)
    n, k, p = 200, 150, 100
    x, tx = batch(rng, (n, k), dtype, "reversed")
    y, ty = batch(rng, (k, p), dtype, "rowmajor")
    if how == "transposed":
        i, ti = batch(rng, (n, p), dtype, "reversed")
    elif how == "expanded_row":
        base = rng.standard_normal((1, p)).astype(dtype)
        i, ti = strided.tensor(base).expand(n, p), torch.from_numpy(base).expand(n, p)
    elif how in ("vector", "scalar", "column"):  # (broadcast to (n, p) into the result)
        base = rng.standard_normal({"vector": (p,), "scalar": (), "column": (n, 1)}[how]).astype(dtype)
        i, ti = strided.tensor(base), torch.from_numpy(base)
    else:
        i, ti = batch(rng, (n, p), dtype, how)
    for beta, alpha in ((0.5, 2.0), (1, 1), (0, 1)):
        got = strided.addmm(i, x, y, beta=beta, alpha=alpha)
        check(got, torch.addmm(ti, tx, ty, beta=beta, alpha=alpha), MKL)
        assert np.array_equal(bits(got.numpy()), bits(strided.addmm(i.contiguous(), x, y, beta=beta, alpha=alpha).numpy()))


@settings(max_examples=25, deadline=None)
@given(B=hs.integers(0, 3), n=hs.integers(1, 90), k=hs.integers(0, 70), p=hs.integers(1, 70),
       ha=hs.sampled_from(LAYOUTS), hb=hs.sampled_from(LAYOUTS), hi=hs.sampled_from(LAYOUTS),
       op=hs.sampled_from(sorted(PRODUCTS)), seed=hs.integers(0, 2**16))
def test_batched_products_hypothesis(B: int, n: int, k: int, p: int, ha: str, hb: str, hi: str, op: str,
                                     seed: int) -> None:
    rng = np.random.default_rng(seed)
    a, ta = batch(rng, (B, n, k), np.float32, ha)
    b, tb = batch(rng, (B, k, p), np.float32, hb)
    i, ti = batch(rng, (max(B, 1), n, p), np.float32, hi)
    if op != "addbmm":
        i, ti = i[:B], ti[:B]
    s, t = PRODUCTS[op](strided, i, a, b), PRODUCTS[op](torch, ti, ta, tb)
    # (PyTorch's bits on the route; below it its own small loops, which strided models elsewhere)
    check(s, t, on_route(n, k, p) and B > 0 and op in ("bmm", "matmul"))
    # (no claim that the bits are those of row-major copies of the operands: a transposed operand
    # goes to BLAS as it is, with its transpose flag, and the gemm adds in another order, as
    # PyTorch's does -- bmm of a reversed (1, 5, 10) operand and of its copy differ by an ulp in
    # both libraries; what is claimed is PyTorch's bits on the route, checked above)


# ---------------------------------------------------------------- cholesky on the MKL route


def spd(rng: np.random.Generator, shape: tuple[int, ...], dtype: type) -> np.ndarray:
    a = rng.standard_normal(shape).astype(dtype)
    n = shape[-1]
    return (a @ np.swapaxes(a, -1, -2) + n * np.eye(n, dtype=dtype)).astype(dtype)


def layouts_of(a: np.ndarray) -> list[tuple[strided.Tensor, torch.Tensor]]:
    """``a`` row-major, column-major (each matrix), with its batch dim innermost, and sliced."""
    out = [(strided.tensor(a), torch.from_numpy(a))]
    f = np.ascontiguousarray(np.swapaxes(a, -1, -2))
    out.append((strided.tensor(f).transpose(-1, -2), torch.from_numpy(f).transpose(-1, -2)))
    if a.ndim == 3:
        inner = np.ascontiguousarray(np.moveaxis(a, 0, -1))
        out.append((strided.tensor(inner).permute(2, 0, 1), torch.from_numpy(inner).permute(2, 0, 1)))
    wide = np.concatenate([a, a], -1)
    out.append((strided.tensor(wide)[..., : a.shape[-1]], torch.from_numpy(wide)[..., : a.shape[-1]]))
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(65, 65), (130, 130), (2, 100, 100), (0, 70, 70)])
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_triangle_zeroed(dtype: type, shape: tuple, upper: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(44)
    a = spd(rng, shape, dtype)
    for s, t in layouts_of(a):
        got = strided.linalg.cholesky(s, upper=upper)
        ex = strided.linalg.cholesky_ex(s, upper=upper)
        want = torch.linalg.cholesky(t, upper=upper)
        g = got.numpy()
        assert got.shape == tuple(want.shape) and got.stride() == want.stride() and g.dtype == dtype
        np.testing.assert_allclose(g, want.numpy(), rtol=1e-4 if dtype == np.float32 else 1e-12, atol=1e-5)
        n = shape[-1]
        other = np.tril(np.ones((n, n), bool), -1) if upper else np.triu(np.ones((n, n), bool), 1)
        assert not bits(g[..., other]).any()  # (+0.0 exactly: no -0.0, no leftover of A)
        assert np.array_equal(bits(ex.L.numpy()), bits(g)) and not ex.info.numpy().any()
        if g.size and MKL:
            # the NumPy fallback of the zeroing (no compiled kernel): the same bits
            with monkeypatch.context() as mp:
                mp.setattr(mkl_lapack.native, "special", lambda: None)
                fallback = strided.linalg.cholesky(s, upper=upper).numpy()
            assert np.array_equal(bits(fallback), bits(g))


def test_cholesky_not_positive_definite_still_raises() -> None:
    a = spd(np.random.default_rng(45), (80, 80), np.float32)
    a[40, 40] = -1e6
    with pytest.raises(RuntimeError, match="not positive-definite"):
        strided.linalg.cholesky(strided.tensor(a))
    assert int(strided.linalg.cholesky_ex(strided.tensor(a)).info) == int(torch.linalg.cholesky_ex(torch.from_numpy(a)).info)


# ---------------------------------------------------------------- lstsq on layouts


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(100, 80, 3), (2, 90, 90, 2)])
def test_lstsq_layouts_torchs_values(dtype: type, shape: tuple) -> None:
    """gelsy (PyTorch's default) on a well-conditioned full-rank system in every layout: PyTorch's
    rank and its solution to LAPACK's accuracy (its pivots are uninitialised in 2.13: not its bits)."""
    rng = np.random.default_rng(46)
    *lead, m, n, k = shape
    a = rng.standard_normal((*lead, m, n)).astype(dtype) + 4 * np.eye(m, n, dtype=dtype)
    b = rng.standard_normal((*lead, m, k)).astype(dtype)
    for (sa, ta), (sb, tb) in zip(layouts_of(a), layouts_of(b), strict=False):
        got, want = strided.linalg.lstsq(sa, sb), torch.linalg.lstsq(ta, tb)
        assert got.solution.shape == tuple(want.solution.shape)
        assert got.solution.stride() == want.solution.stride()
        assert np.array_equal(got.rank.numpy(), want.rank.numpy())
        np.testing.assert_allclose(got.solution.numpy(), want.solution.numpy(),
                                   rtol=1e-3 if dtype == np.float32 else 1e-10, atol=1e-4)
