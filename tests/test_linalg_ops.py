"""strided.linalg (inv, solve, det, slogdet, svd, svdvals, qr, eigh, eigvalsh, cholesky, lstsq, pinv,
matrix_rank, norm, cross, matrix_power, vecdot) and tensordot against torch.linalg / torch: values,
shapes, strides, dtypes, gradients (and their nodes), second derivatives, gradcheck, errors.

The factors that are unique only up to sign (singular vectors, Q, eigenvectors) are compared by
invariants: reconstruction, orthonormality, |entries|, and gradients of sign-invariant losses."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from oracle_helpers import assert_same_tensor, case, compare, same_error

TOL = {"float32": (2e-4, 2e-5), "float64": (1e-9, 1e-10)}
RNG = np.random.default_rng(25)


def arr(*shape: int, dtype: str = "float64", layout: str = "contiguous", spd: bool = False) -> np.ndarray:
    """Random well-conditioned values; ``layout``: 'transposed' (each matrix a transposed view) or
    'sliced' (every other row of a bigger buffer); ``spd``: symmetric positive-definite."""
    a = RNG.standard_normal(shape)
    if spd:
        n = shape[-1]
        a = a @ np.swapaxes(a, -1, -2) + n * np.eye(n)
    elif len(shape) >= 2 and shape[-1] == shape[-2]:
        a = a + 3 * np.eye(shape[-1])
    a = a.astype(dtype)
    if len(shape) < 2:
        return a
    if layout == "transposed":
        a = np.ascontiguousarray(np.swapaxes(a, -1, -2))
        return np.swapaxes(a, -1, -2)
    if layout == "sliced":
        big = np.zeros(shape[:-2] + (2 * shape[-2], shape[-1]), dtype)
        big[..., ::2, :] = a
        return big[..., ::2, :]
    return a


def both(a: np.ndarray, grad: bool = False) -> tuple[torch.Tensor, st.Tensor]:
    t, s = torch.from_numpy(a.copy() if grad else a), st.from_numpy(a.copy() if grad else a)
    if grad:
        t.requires_grad_()
        s.requires_grad_()
    return t, s


LAYOUTS = ["contiguous", "transposed", "sliced"]
DTYPES = ["float32", "float64"]

# (name, torch call, strided call, input shapes, spd)
UNIQUE = [
    ("inv", lambda L, A: L.inv(A), [(3, 3)], False),
    ("inv_batched", lambda L, A: L.inv(A), [(2, 3, 3)], False),
    ("det", lambda L, A: L.det(A), [(2, 3, 3)], False),
    ("logabsdet", lambda L, A: L.slogdet(A).logabsdet, [(2, 3, 3)], False),
    ("sign", lambda L, A: L.slogdet(A).sign, [(3, 3)], False),
    ("solve", lambda L, A, B: L.solve(A, B), [(2, 3, 3), (2, 3, 2)], False),
    ("solve_broadcast", lambda L, A, B: L.solve(A, B), [(3, 3), (2, 3, 2)], False),
    ("solve_right", lambda L, A, B: L.solve(A, B, left=False), [(3, 3), (2, 3)], False),
    ("solve_vectors", lambda L, A, B: L.solve(A, B), [(4, 2, 3, 3), (4, 2, 3)], False),
    ("solve_vector", lambda L, A, B: L.solve(A, B), [(2, 3, 3), (3,)], False),
    ("cholesky", lambda L, A: L.cholesky(A), [(2, 3, 3)], True),
    ("cholesky_upper", lambda L, A: L.cholesky(A, upper=True), [(3, 3)], True),
    ("eigvalsh", lambda L, A: L.eigvalsh(A), [(2, 3, 3)], True),
    ("eigvalsh_U", lambda L, A: L.eigvalsh(A, UPLO="U"), [(3, 3)], False),
    ("svdvals", lambda L, A: L.svdvals(A), [(2, 4, 3)], False),
    ("pinv_tall", lambda L, A: L.pinv(A), [(2, 4, 3)], False),
    ("pinv_wide", lambda L, A: L.pinv(A), [(3, 4)], False),
    ("pinv_hermitian", lambda L, A: L.pinv(A, hermitian=True), [(3, 3)], True),
    ("lstsq", lambda L, A, B: L.lstsq(A, B).solution, [(2, 4, 3), (2, 4, 2)], False),
    ("lstsq_wide", lambda L, A, B: L.lstsq(A, B).solution, [(3, 4), (3, 2)], False),
    ("matrix_power3", lambda L, A: L.matrix_power(A, 3), [(2, 3, 3)], False),
    ("matrix_power5", lambda L, A: L.matrix_power(A, 5), [(3, 3)], False),
    ("matrix_power_neg", lambda L, A: L.matrix_power(A, -2), [(3, 3)], False),
    ("matrix_power0", lambda L, A: L.matrix_power(A, 0), [(2, 3, 3)], False),
    ("norm", lambda L, A: L.norm(A), [(3, 4)], False),
    ("norm_nuc", lambda L, A: L.norm(A, "nuc"), [(3, 4)], False),
    ("norm_dim", lambda L, A: L.norm(A, 3, dim=1), [(3, 4)], False),
    ("cross", lambda L, A, B: L.cross(A, B), [(4, 3), (4, 3)], False),
    ("cross_dim0", lambda L, A, B: L.cross(A, B, dim=0), [(3, 4), (3, 1)], False),
    ("vecdot", lambda L, A, B: L.vecdot(A, B), [(4, 3), (4, 3)], False),
]


@pytest.mark.parametrize(("name", "call", "shapes", "spd"), UNIQUE, ids=[u[0] for u in UNIQUE])
def test_values_shapes_strides(name, call, shapes, spd):
    for layout, dtype in itertools.product(LAYOUTS, DTYPES):
        with case(layout=layout, dtype=dtype):
            _values_shapes_strides(name, call, shapes, spd, dtype, layout)


def _values_shapes_strides(name, call, shapes, spd, dtype, layout) -> None:
    arrays = [arr(*s, dtype=dtype, layout=layout, spd=spd) for s in shapes]
    ts, ss = zip(*(both(a) for a in arrays), strict=True)
    compare(lambda: call(torch.linalg, *ts), lambda: call(st.linalg, *ss), TOL)


@pytest.mark.parametrize("dtype", DTYPES)
def test_module_functions_and_methods(dtype) -> None:
    a = arr(2, 3, 3, dtype=dtype, layout="transposed")
    t, s = both(a)
    b = arr(2, 3, 3, dtype=dtype)
    tb, sb = both(b)
    for tc, sc in [
        (lambda: torch.det(t), lambda: st.det(s)),
        (lambda: t.det(), lambda: s.det()),
        (lambda: torch.inverse(t), lambda: st.inverse(s)),
        (lambda: t.inverse(), lambda: s.inverse()),
        (lambda: torch.slogdet(t)[1], lambda: st.slogdet(s)[1]),
        (lambda: t.slogdet().logabsdet, lambda: s.slogdet().logabsdet),
        (lambda: torch.pinverse(t), lambda: st.pinverse(s)),
        (lambda: torch.logdet(t), lambda: st.logdet(s)),
        (lambda: (-t).logdet(), lambda: (-s).logdet()),
        (lambda: t.matrix_power(4), lambda: s.matrix_power(4)),
        (lambda: torch.matrix_power(t, 2), lambda: st.matrix_power(s, 2)),
        (lambda: torch.cross(t, tb, dim=1), lambda: st.cross(s, sb, dim=1)),
        (lambda: t.cross(tb), lambda: s.cross(sb)),
        (lambda: torch.tensordot(t, tb, dims=2), lambda: st.tensordot(s, sb, dims=2)),
        (lambda: torch.tensordot(t, tb, dims=([0, 2], [2, 1])), lambda: st.tensordot(s, sb, dims=([0, 2], [2, 1]))),
        (lambda: torch.tensordot(t, tb, dims=0), lambda: st.tensordot(s, sb, dims=0)),
    ]:
        compare(tc, sc, TOL)
    assert type(st.slogdet(s)).__name__ == "slogdet" and type(st.linalg.slogdet(s)).__name__ == "linalg_slogdet"
    with pytest.warns(UserWarning, match="without specifying the dim arg is deprecated"):
        st.cross(s, sb)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 4), (3, 3)])
@pytest.mark.parametrize("full", [True, False])
def test_svd_invariants(shape, full, dtype) -> None:
    a = arr(*shape, dtype=dtype, layout="transposed")
    t, s = both(a)
    tu, ts_, tv = torch.linalg.svd(t, full_matrices=full)
    U, S, Vh = st.linalg.svd(s, full_matrices=full)
    for x, y in ((U, tu), (Vh, tv)):
        assert x.shape == tuple(y.shape) and x.stride() == y.stride() and x.dtype.name == str(y.dtype)[6:]
        np.testing.assert_allclose(np.abs(x.numpy()), np.abs(y.numpy()), *TOL[dtype][:1], atol=TOL[dtype][0])
    assert_same_tensor(S, ts_, TOL)
    k = min(shape[-2:])
    rec = (U[..., :k] * S.unsqueeze(-2)).matmul(Vh[..., :k, :])
    np.testing.assert_allclose(rec.numpy(), a, rtol=TOL[dtype][0], atol=TOL[dtype][0] * 10)


@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 4)])
def test_qr(shape, mode) -> None:
    a = arr(*shape, layout="sliced")
    t, s = both(a)
    tq, tr = torch.linalg.qr(t, mode=mode)
    Q, R = st.linalg.qr(s, mode=mode)
    for x, y in ((Q, tq), (R, tr)):
        assert x.shape == tuple(y.shape) and x.stride() == y.stride()
        np.testing.assert_allclose(np.abs(x.numpy()), np.abs(y.numpy()), atol=1e-10)
    if mode != "r":
        np.testing.assert_allclose(Q.matmul(R).numpy(), a, atol=1e-10)


@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh(uplo) -> None:
    a = arr(2, 4, 4, layout="transposed")  # (not symmetric: only the UPLO triangle is read)
    t, s = both(a)
    tl, tv = torch.linalg.eigh(t, UPLO=uplo)
    L, V = st.linalg.eigh(s, UPLO=uplo)
    assert_same_tensor(L, tl, TOL)
    assert V.stride() == tv.stride()
    np.testing.assert_allclose(np.abs(V.numpy()), np.abs(tv.numpy()), atol=1e-10)


# ---------------------------------------------------------------- gradients

W = RNG.standard_normal((4, 4))


def _weights(x):
    """A fixed weighting of ``x``'s elements (so each output element's gradient differs)."""
    lib = torch if isinstance(x, torch.Tensor) else st
    w = np.resize(W, x.shape).astype(np.float64)
    return lib.from_numpy(np.ascontiguousarray(w)) if x.ndim else lib.tensor(0.7, dtype=lib.float64)


def loss(out):
    """A sign-invariant scalar of an op's output(s): sum(|factor| * w) over the factors."""
    parts = out if isinstance(out, tuple) else (out,)
    total = 0
    for p in parts:
        if p.dtype.is_floating_point and p.numel():
            total = total + (p.abs() * _weights(p)).sum()
    return total


GRADS = [
    ("inv", lambda L, A: L.inv(A), [(2, 3, 3)], False, "LinalgInvExBackward0"),
    ("inv_ex", lambda L, A: L.inv_ex(A).inverse, [(3, 3)], False, "LinalgInvExBackward0"),
    ("det", lambda L, A: L.det(A), [(2, 3, 3)], False, "LinalgDetBackward0"),
    ("slogdet", lambda L, A: L.slogdet(A).logabsdet, [(3, 3)], False, "LinalgSlogdetBackward0"),
    ("solve", lambda L, A, B: L.solve(A, B), [(3, 3), (2, 3, 2)], False, "LinalgSolveExBackward0"),
    ("solve_vec", lambda L, A, B: L.solve(A, B), [(2, 3, 3), (2, 3)], False, "LinalgSolveExBackward0"),
    ("solve_right", lambda L, A, B: L.solve(A, B, left=False), [(3, 3), (2, 3)], False, "LinalgSolveExBackward0"),
    ("svd_tall", lambda L, A: L.svd(A, full_matrices=False), [(4, 3)], False, "LinalgSvdBackward0"),
    ("svd_wide", lambda L, A: L.svd(A, full_matrices=False), [(2, 3, 4)], False, "LinalgSvdBackward0"),
    ("svd_full_square", lambda L, A: L.svd(A), [(3, 3)], False, "LinalgSvdBackward0"),
    ("svd_S", lambda L, A: L.svd(A).S, [(4, 3)], False, "LinalgSvdBackward0"),
    ("svdvals", lambda L, A: L.svdvals(A), [(2, 3, 4)], False, "LinalgSvdBackward0"),
    ("qr_tall", lambda L, A: L.qr(A), [(4, 3)], False, "LinalgQrBackward0"),
    ("qr_wide", lambda L, A: L.qr(A), [(3, 4)], False, "LinalgQrBackward0"),
    ("qr_R", lambda L, A: L.qr(A).R, [(2, 3, 3)], False, "LinalgQrBackward0"),
    ("eigh", lambda L, A: L.eigh(A), [(3, 3)], True, "LinalgEighBackward0"),
    ("eigh_vectors", lambda L, A: L.eigh(A).eigenvectors, [(2, 3, 3)], True, "LinalgEighBackward0"),
    ("eigvalsh", lambda L, A: L.eigvalsh(A), [(3, 3)], True, "LinalgEighBackward0"),
    ("cholesky", lambda L, A: L.cholesky(A), [(2, 3, 3)], True, "LinalgCholeskyExBackward0"),
    ("cholesky_upper", lambda L, A: L.cholesky(A, upper=True), [(3, 3)], True, "LinalgCholeskyExBackward0"),
    ("cholesky_ex", lambda L, A: L.cholesky_ex(A).L, [(2, 3, 3)], True, "LinalgCholeskyExBackward0"),
    ("cholesky_ex_upper", lambda L, A: L.cholesky_ex(A, upper=True).L, [(3, 3)], True, "LinalgCholeskyExBackward0"),
    ("solve_ex", lambda L, A, B: L.solve_ex(A, B).result, [(3, 3), (2, 3, 2)], False, "LinalgSolveExBackward0"),
    ("solve_ex_right", lambda L, A, B: L.solve_ex(A, B, left=False).result, [(3, 3), (2, 3)], False,
     "LinalgSolveExBackward0"),
    ("pinv_tall", lambda L, A: L.pinv(A), [(4, 3)], False, "LinalgPinvBackward0"),
    ("pinv_wide", lambda L, A: L.pinv(A), [(2, 3, 4)], False, "LinalgPinvBackward0"),
    ("lstsq", lambda L, A, B: L.lstsq(A, B).solution, [(4, 3), (4, 2)], False, "LinalgLstsqBackward0"),
    ("lstsq_vec", lambda L, A, B: L.lstsq(A, B).solution, [(4, 3), (4,)], False, "LinalgLstsqBackward0"),
    ("cross", lambda L, A, B: L.cross(A, B), [(2, 3), (1, 3)], False, "LinalgCrossBackward0"),
    ("matrix_power", lambda L, A: L.matrix_power(A, -3), [(3, 3)], False, None),
    ("tensordot", lambda L, A, B: (torch if L is torch.linalg else st).tensordot(A, B, dims=([0], [1])),
     [(3, 2), (2, 3)], False, None),
    ("norm2", lambda L, A: L.norm(A, 2), [(3, 3)], False, "AmaxBackward0"),
    ("logdet", lambda L, A: (torch if L is torch.linalg else st).logdet(A), [(2, 3, 3)], False, "WhereBackward0"),
]


@pytest.mark.parametrize(("name", "call", "shapes", "spd", "node"), GRADS, ids=[g[0] for g in GRADS])
def test_gradients_match_torch(name, call, shapes, spd, node) -> None:
    arrays = [arr(*s, layout="transposed" if len(s) > 1 else "contiguous", spd=spd) for s in shapes]
    ts, ss = zip(*(both(a, grad=True) for a in arrays), strict=True)
    tout, sout = call(torch.linalg, *ts), call(st.linalg, *ss)
    if node is not None:
        first = sout[0] if isinstance(sout, tuple) else sout
        assert first.grad_fn.name() == node == (tout[0] if isinstance(tout, tuple) else tout).grad_fn.name()
    loss(tout).backward()
    loss(sout).backward()
    for t, s in zip(ts, ss, strict=True):
        np.testing.assert_allclose(s.grad.numpy(), t.grad.numpy(), rtol=1e-7, atol=1e-9)


GRADCHECK = [
    ("inv", lambda A: st.linalg.inv(A), (3, 3)),
    ("det", lambda A: st.linalg.det(A), (2, 3, 3)),
    ("slogdet", lambda A: st.linalg.slogdet(A).logabsdet, (3, 3)),
    ("solve", lambda A: st.linalg.solve(A, A.sum(-1)), (3, 3)),
    ("svd", lambda A: loss(st.linalg.svd(A, full_matrices=False)), (3, 2)),
    ("qr", lambda A: loss(st.linalg.qr(A)), (2, 3)),
    ("eigh", lambda A: loss(st.linalg.eigh(A + A.mT)), (3, 3)),
    ("cholesky", lambda A: st.linalg.cholesky(A.matmul(A.mT) + st.eye(3, dtype=st.float64)), (3, 3)),
    ("pinv", lambda A: st.linalg.pinv(A), (2, 3)),
    ("lstsq", lambda A: st.linalg.lstsq(A, A[:, :1] ** 2).solution, (3, 2)),
    ("cross", lambda A: st.linalg.cross(A, A ** 2), (2, 3)),
]


@pytest.mark.parametrize(("name", "fn", "shape"), GRADCHECK, ids=[g[0] for g in GRADCHECK])
def test_gradcheck(name, fn, shape) -> None:
    x = st.from_numpy(arr(*shape)).requires_grad_()
    assert st.autograd.gradcheck(fn, (x,))


@pytest.mark.parametrize("name", ["inv", "det", "cholesky", "svdvals"])
def test_second_derivatives_match_torch(name) -> None:
    a = arr(3, 3, spd=True)
    ts, ss = both(a, grad=True)
    v = arr(3, 3, spd=False)

    def run(lib, L, x):
        out = getattr(L, name)(x)
        (g,) = lib.autograd.grad((out * _weights(out)).sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad((g * lib.from_numpy(v)).sum(), x)
        return gg

    np.testing.assert_allclose(run(st, st.linalg, ss).numpy(), run(torch, torch.linalg, ts).numpy(), rtol=1e-7,
                               atol=1e-9)


def test_det_gradient_of_singular_matrix() -> None:
    """A singular matrix's det gradient: the adjugate's transpose (its cofactors), finite, as
    PyTorch's SVD path gives it. (Checked against the cofactors worked out by hand: PyTorch's own
    answer for this matrix depends on the CPU it runs on; on an AVX-512 machine its LU meets
    an exact zero pivot and it returns zeros.)"""
    a = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]])
    ss = both(a, grad=True)[1]
    st.linalg.det(ss).backward()
    cofactors = np.array([[4.0, 4.0, -4.0], [-2.0, -2.0, 2.0], [0.0, 0.0, 0.0]])
    np.testing.assert_allclose(ss.grad.numpy(), cofactors, atol=1e-12)


@settings(max_examples=8, deadline=None)
@given(hs.integers(1, 4), hs.integers(1, 4), hs.sampled_from([(), (2,)]), hs.booleans())
def test_svd_gradient_any_shape(m, n, batch, transposed) -> None:
    a = arr(*batch, m, n, layout="transposed" if transposed else "contiguous")
    ts, ss = both(a, grad=True)
    loss(torch.linalg.svd(ts, full_matrices=False)).backward()
    loss(st.linalg.svd(ss, full_matrices=False)).backward()
    np.testing.assert_allclose(ss.grad.numpy(), ts.grad.numpy(), rtol=1e-6, atol=1e-8)


# ---------------------------------------------------------------- ranks, lstsq fields, empty inputs


def test_matrix_rank_and_lstsq_fields() -> None:
    a = np.array([[1.0, 2.0], [2.0, 4.0], [0.0, 0.0]])  # rank 1 (seed 004: "matrix rank 1, tensor rank 2")
    t, s = both(a)
    assert st.linalg.matrix_rank(s).item() == torch.linalg.matrix_rank(t).item() == 1
    for kw in ({"atol": 1.0}, {"rtol": 0.5}, {"atol": 0.0, "rtol": 0.0}, {"hermitian": False}):
        assert st.linalg.matrix_rank(s, **kw).item() == torch.linalg.matrix_rank(t, **kw).item()
    b3 = arr(2, 4, 3)
    tb, sb = both(b3)
    assert_same_tensor(st.linalg.matrix_rank(sb), torch.linalg.matrix_rank(tb), TOL)
    rhs = arr(2, 4, 2)
    tr, sr = both(rhs)
    for driver in ("gels", "gelsy", "gelsd", "gelss"):
        got, want = st.linalg.lstsq(sb, sr, driver=driver), torch.linalg.lstsq(tb, tr, driver=driver)
        for g, w in zip(got, want, strict=True):
            assert_same_tensor(g, w, TOL, strides=g.numel() > 0)


@pytest.mark.parametrize("name", ["inv", "det", "slogdet", "cholesky", "eigvalsh", "svdvals", "pinv", "matrix_rank"])
def test_empty_batches(name) -> None:
    for shape in [(0, 3, 3), (2, 0, 0)]:
        t, s = both(np.zeros(shape))
        tr, sr = getattr(torch.linalg, name)(t), getattr(st.linalg, name)(s)
        for g, w in zip(sr if isinstance(sr, tuple) else (sr,), tr if isinstance(tr, tuple) else (tr,), strict=True):
            assert_same_tensor(g, w, TOL, strides=False)


# ---------------------------------------------------------------- errors


def test_singular_errors_mirror_torch() -> None:
    sing = np.array([[1.0, 2.0], [2.0, 4.0]])
    cases = [
        (lambda L, A: L.inv(A), sing),
        (lambda L, A: L.inv(A), np.zeros((2, 2, 2))),
        (lambda L, A: L.inv(A), np.stack([np.eye(3), np.diag([1.0, 0.0, 1.0])])),
        (lambda L, A: L.solve(A, A), sing),
        (lambda L, A: L.cholesky(A), np.array([[1.0, 2.0], [2.0, 1.0]])),
        (lambda L, A: L.cholesky(A), np.array([[[1.0, 0.0], [0.0, 1.0]], [[-1.0, 0.0], [0.0, 1.0]]])),
        (lambda L, A: L.svd(A), np.array([[np.nan, 1.0], [1.0, 1.0]])),
    ]
    for call, a in cases:
        with pytest.raises(torch.linalg.LinAlgError) as t_info:
            call(torch.linalg, torch.from_numpy(a))
        with pytest.raises(st.linalg.LinAlgError) as s_info:
            call(st.linalg, st.from_numpy(a))
        assert isinstance(s_info.value, RuntimeError) and isinstance(s_info.value, st.StridedError)
        assert str(s_info.value).splitlines()[0] == str(t_info.value).splitlines()[0]
    assert st.linalg.det(st.from_numpy(sing)).item() == 0.0
    sign, logabs = st.linalg.slogdet(st.from_numpy(sing))
    assert sign.item() == 0.0 and logabs.item() == -np.inf
    # cholesky_ex / solve_ex: PyTorch's info per matrix; the failed matrix's values NaN (# Note)
    bad = np.stack([np.eye(2), np.array([[1.0, 2.0], [2.0, 1.0]]), sing + np.eye(2) * 0])
    for s_call in (lambda L, x: L.linalg.cholesky_ex(x), lambda L, x: L.linalg.solve_ex(x, x[..., 0])):
        sr, tr = s_call(st, st.from_numpy(bad)), s_call(torch, torch.from_numpy(bad))
        assert sr[1].tolist() == tr[1].tolist() and sr[1].dtype is st.int32 and type(sr).__name__ == type(tr).__name__
        np.testing.assert_allclose(sr[0][0].numpy(), tr[0][0].numpy(), rtol=1e-12)
        failed = [i for i, k in enumerate(sr[1].tolist()) if k]
        assert failed and all(np.isnan(sr[0][i].numpy()).all() for i in failed)
    inv, info = st.linalg.inv_ex(st.from_numpy(np.stack([np.eye(2), sing])))
    assert info.tolist() == torch.linalg.inv_ex(torch.from_numpy(np.stack([np.eye(2), sing]))).info.tolist()
    np.testing.assert_allclose(inv[0].numpy(), np.eye(2))


ERRORS = [
    lambda lib, L: L.inv(lib.ones(2, 3)),
    lambda lib, L: L.inv(lib.ones(3)),
    lambda lib, L: L.inv(lib.ones(2, 2, dtype=lib.int64)),
    lambda lib, L: L.inv(lib.ones(2, 2, dtype=lib.float16)),
    lambda lib, L: L.det(lib.ones(2, 3)),
    lambda lib, L: L.solve(lib.eye(2), lib.ones(3)),
    lambda lib, L: L.solve(lib.eye(2), lib.ones(2, dtype=lib.float64)),
    lambda lib, L: L.eigh(lib.ones(2, 3)),
    lambda lib, L: L.eigh(lib.eye(2), UPLO="X"),
    lambda lib, L: L.qr(lib.eye(2), mode="x"),
    lambda lib, L: L.svd(lib.ones(3)),
    lambda lib, L: L.cross(lib.ones(3, 2), lib.ones(3, 2)),
    lambda lib, L: L.cross(lib.ones(3, 3), lib.ones(3)),
    lambda lib, L: L.cross(lib.ones(3), lib.ones(3, dtype=lib.float64)),
    lambda lib, L: L.matrix_power(lib.ones(2, 3), 2),
    lambda lib, L: L.lstsq(lib.ones(3, 2), lib.ones(4, 2)),
    lambda lib, L: L.lstsq(lib.ones(3, 2), lib.ones(3, 2), driver="x"),
    lambda lib, L: L.pinv(lib.ones(3)),
    lambda lib, L: L.matrix_rank(lib.ones(3)),
    lambda lib, L: L.norm(lib.ones(2, 2, 2), 1),
    lambda lib, L: L.vecdot(lib.ones(3), lib.ones(3, dtype=lib.float64)),
    lambda lib, L: lib.tensordot(lib.ones(2, 3), lib.ones(2, 3), dims=1),
    lambda lib, L: lib.tensordot(lib.ones(2, 3), lib.ones(2, 3), dims=-1),
    lambda lib, L: lib.tensordot(lib.ones(2, 3), lib.ones(3, 2), dims=([1], [0, 1])),
    lambda lib, L: lib.cross(lib.ones(2, 4), lib.ones(2, 4)),
]


@pytest.mark.filterwarnings("ignore:Using torch.cross without:UserWarning")
@pytest.mark.parametrize("call", ERRORS, ids=[str(i) for i in range(len(ERRORS))])
def test_errors_mirror_torch(call) -> None:
    same_error(lambda: call(torch, torch.linalg), lambda: call(st, st.linalg))


def test_qr_mode_r_has_no_gradient() -> None:
    a = arr(3, 2)
    ts, ss = both(a, grad=True)
    same_error(lambda: torch.linalg.qr(ts, mode="r").R.sum().backward(),
               lambda: st.linalg.qr(ss, mode="r").R.sum().backward())


def test_complex_forward() -> None:
    a = (arr(3, 3) + 1j * arr(3, 3)).astype(np.complex128)
    t, s = both(a)
    np.testing.assert_allclose(st.linalg.inv(s).numpy(), torch.linalg.inv(t).numpy(), rtol=1e-10)
    np.testing.assert_allclose(st.linalg.det(s).numpy(), torch.linalg.det(t).numpy(), rtol=1e-10)
    # (the complex gradients: test_linalg_complex_grad.py)


_A, _B = arr(2, 4, 3), arr(2, 4)
EDGES = [
    ("lstsq_vector_residuals", lambda L, a, b: L.linalg.lstsq(a, b, driver="gelsd").residuals),
    ("lstsq_vector_solution", lambda L, a, b: L.linalg.lstsq(a, b, driver="gelsd").solution),
    ("lstsq_singular_values", lambda L, a, b: L.linalg.lstsq(a, b, driver="gelss").singular_values),
    ("lstsq_gels_rank", lambda L, a, b: L.linalg.lstsq(a, b, driver="gels").rank),
    ("inv_ex_check_errors", lambda L, a, b: L.linalg.inv_ex(a[:, :2, :2] * 0, check_errors=True).inverse),
    ("matrix_power_int", lambda L, a, b: L.linalg.matrix_power((a[0, :3] * 3).long(), 3)),
    ("matrix_power_int_negative", lambda L, a, b: L.linalg.matrix_power((a[0, :3] * 3).long(), -1)),
    ("pinv_atol_tensor", lambda L, a, b: L.linalg.pinv(a, atol=L.tensor([0.5, 2.0], dtype=L.float64))),
    ("matrix_rank_hermitian", lambda L, a, b: L.linalg.matrix_rank(a[:, :3] + a[:, :3].mT, hermitian=True)),
    ("matrix_rank_tol", lambda L, a, b: L.linalg.matrix_rank(a, tol=1.0)),
    ("norm_vector_inf", lambda L, a, b: L.linalg.norm(b, float("inf"))),
    ("norm_dim_pair", lambda L, a, b: L.linalg.norm(a, -1, dim=(0, 2))),
    ("det_empty", lambda L, a, b: L.linalg.det(a[:, :0, :0])),
    ("cross_broadcast", lambda L, a, b: L.linalg.cross(a[:, :1, :], a[:1, :, :])),
    ("tensordot_dims_too_many", lambda L, a, b: L.tensordot(a, a, dims=4)),
    ("svd_int", lambda L, a, b: L.linalg.svd(a.long())),
    ("eigvalsh_1x1", lambda L, a, b: L.linalg.eigvalsh(a[:, :1, :1])),
    ("solve_right_vector", lambda L, a, b: L.linalg.solve(a[0, :3], b[0, :3], left=False)),
    ("slogdet_negative", lambda L, a, b: L.linalg.slogdet(-a[:, :3]).sign),
    ("cholesky_ex_L", lambda L, a, b: L.linalg.cholesky_ex(a[:, :3] @ a[:, :3].mT + L.eye(3, dtype=L.float64)).L),
    ("cholesky_ex_upper", lambda L, a, b: L.linalg.cholesky_ex(a.mT @ a, upper=True).L),
    ("cholesky_ex_info", lambda L, a, b: L.linalg.cholesky_ex(a.mT @ a, upper=True).info),
    ("cholesky_ex_check_errors", lambda L, a, b: L.linalg.cholesky_ex(-a.mT @ a, check_errors=True).L),
    ("cholesky_ex_check_errors_one", lambda L, a, b: L.linalg.cholesky_ex(-a[0].mT @ a[0], check_errors=True).L),
    ("cholesky_ex_not_square", lambda L, a, b: L.linalg.cholesky_ex(a).L),
    ("cholesky_ex_empty", lambda L, a, b: L.linalg.cholesky_ex(a[:, :0, :0]).info),
    ("solve_ex", lambda L, a, b: L.linalg.solve_ex(a[:, :3], b[:, :3]).result),
    ("solve_ex_info", lambda L, a, b: L.linalg.solve_ex(a[:, :3], b[:, :3]).info),
    ("solve_ex_broadcast", lambda L, a, b: L.linalg.solve_ex(a[0, :3], a[:, :3], left=False).result),
    ("solve_ex_broadcast_info", lambda L, a, b: L.linalg.solve_ex(a[0, :3], a[:, :3], left=False).info),
    ("solve_ex_check_errors", lambda L, a, b: L.linalg.solve_ex(a[:, :3] * 0, b[:, :3], check_errors=True).result),
    ("solve_ex_check_errors_one", lambda L, a, b: L.linalg.solve_ex(a[0, :3] * 0, b[0, :3], check_errors=True).info),
    ("solve_ex_shapes", lambda L, a, b: L.linalg.solve_ex(a[:, :3], b).result),
]


@pytest.mark.parametrize(("name", "call"), EDGES, ids=[e[0] for e in EDGES])
def test_edge_cases_match_torch(name, call) -> None:
    (ta, sa), (tb, sb) = both(_A), both(_B)
    compare(lambda: call(torch, ta, tb), lambda: call(st, sa, sb), TOL)


def test_nan_inputs_as_torch() -> None:
    """NaN in a matrix: its inverse and solve are NaN everywhere (NumPy's LU alone can leave
    numbers); the SVD-based ops refuse it with PyTorch's text; cholesky fails at the NaN minor."""
    nan = np.nan
    a = np.stack([np.array([[nan, 0.0], [0.0, 1.0]]), np.eye(2) * 2])
    t, s = both(a)
    for call in (lambda L, x: L.inv(x), lambda L, x: L.solve(x, x), lambda L, x: L.det(x)):
        compare(lambda: call(torch.linalg, t), lambda: call(st.linalg, s), TOL)  # noqa: B023 - (called at once)
    for call in (lambda L, x: L.svdvals(x), lambda L, x: L.pinv(x), lambda L, x: L.matrix_rank(x),
                 lambda L, x: L.cholesky(x)):
        with pytest.raises(torch.linalg.LinAlgError) as t_info:
            call(torch.linalg, t)
        with pytest.raises(st.linalg.LinAlgError) as s_info:
            call(st.linalg, s)
        assert str(s_info.value).splitlines()[0] == str(t_info.value).splitlines()[0]
