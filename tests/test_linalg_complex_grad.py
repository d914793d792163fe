"""Complex gradients of strided.linalg (issue 25) against PyTorch 2.13: complex64 and complex128
inputs, contiguous and transposed, batched; holomorphic ops (inv, solve, det, matrix_power) and
the ones whose formulas take conjugates themselves (slogdet's phase, cholesky, eigh/eigvalsh,
svd/svdvals, qr, pinv, lstsq, vector and matrix norms, whose complex forward is new too);
PyTorch's gauge refusal for a loss that depends on the
phase of the eigen/singular vectors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided as st
from oracle_helpers import case

TOL = {"complex64": 2e-4, "complex128": 1e-10}


def _eye3(L, dtype):
    return 3 * L.eye(3, dtype=dtype)


def _usv(L, d, a):
    """A phase-free function of all three SVD factors: U diag(S w) Vh."""
    U, S, Vh = L.linalg.svd(a, full_matrices=False)
    return (U * (S * L.tensor([1.0, 2.0], dtype=S.dtype)).to(U.dtype).unsqueeze(-2)) @ Vh


def _eig_mix(L, d, a):
    """A phase-free function of eigh's eigenvectors and values: V diag(L + 1) V^H."""
    w, V = L.linalg.eigh(a + a.mH)
    return (V * (w + 1).to(V.dtype).unsqueeze(-2)) @ V.mH


CASES = {  # name -> (call(L, dtype, *inputs), input shapes)
    "inv": (lambda L, d, a: L.linalg.inv(a + _eye3(L, d)), [(3, 3)]),
    "inv_ex": (lambda L, d, a: L.linalg.inv_ex(a + _eye3(L, d)).inverse, [(3, 3)]),
    "solve": (lambda L, d, a, b: L.linalg.solve(a + _eye3(L, d), b), [(3, 3), (3, 2)]),
    "solve_vector": (lambda L, d, a, b: L.linalg.solve(a + _eye3(L, d), b), [(3, 3), (3,)]),
    "solve_right": (lambda L, d, a, b: L.linalg.solve(a + _eye3(L, d), b, left=False), [(3, 3), (2, 3)]),
    "det": (lambda L, d, a: L.linalg.det(a), [(2, 3, 3)]),
    "det_singular": (lambda L, d, a: L.linalg.det(L.cat([a, a[:1]], 0)), [(2, 3)]),
    "slogdet": (lambda L, d, a: tuple(L.linalg.slogdet(a + _eye3(L, d))), [(3, 3)]),
    "slogdet_sign": (lambda L, d, a: L.linalg.slogdet(a + _eye3(L, d)).sign, [(3, 3)]),
    "logdet": (lambda L, d, a: L.logdet(a + _eye3(L, d)), [(3, 3)]),  # (complex: log(sign) + logabsdet)
    "matrix_power": (lambda L, d, a: L.linalg.matrix_power(a + _eye3(L, d), -2), [(3, 3)]),
    "cholesky": (lambda L, d, a: L.linalg.cholesky(a @ a.mH + _eye3(L, d)), [(2, 3, 3)]),
    "cholesky_upper": (lambda L, d, a: L.linalg.cholesky(a @ a.mH + _eye3(L, d), upper=True), [(3, 3)]),
    "eigvalsh": (lambda L, d, a: L.linalg.eigvalsh(a + a.mH), [(3, 3)]),
    "eigh": (_eig_mix, [(3, 3)]),
    "eigh_abs": (lambda L, d, a: L.linalg.eigh(a + a.mH).eigenvectors.abs(), [(3, 3)]),
    "svdvals": (lambda L, d, a: L.linalg.svdvals(a), [(3, 2)]),
    "svd_tall": (_usv, [(3, 2)]),
    "svd_wide": (_usv, [(2, 3)]),
    "svd_full_abs": (lambda L, d, a: tuple(t.abs() for t in L.linalg.svd(a)), [(3, 2)]),
    "qr_tall": (lambda L, d, a: tuple(L.linalg.qr(a)), [(3, 2)]),
    "qr_wide": (lambda L, d, a: tuple(t.abs() for t in L.linalg.qr(a)), [(2, 3)]),
    "pinv": (lambda L, d, a: L.linalg.pinv(a), [(2, 3)]),
    "lstsq": (lambda L, d, a, b: L.linalg.lstsq(a, b).solution, [(3, 2), (3, 2)]),
    "lstsq_vector": (lambda L, d, a, b: L.linalg.lstsq(a, b).solution, [(3, 2), (3,)]),
    "vector_norm": (lambda L, d, a: L.linalg.vector_norm(a, 3, dim=1), [(2, 3)]),
    "norm": (lambda L, d, a: L.linalg.norm(a), [(3, 3)]),
    "norm_nuc": (lambda L, d, a: L.linalg.norm(a, "nuc"), [(3, 3)]),
    **{f"matrix_norm_{o}": (lambda L, d, a, o=o: L.linalg.matrix_norm(a, o), [(2, 3, 3)])
       for o in ("fro", "nuc", 2, -2, 1, -1, float("inf"), -float("inf"))},
}


def _inputs(shapes, dtype, transposed=False):
    rng = np.random.default_rng(len(shapes) * 7 + len(shapes[0]))
    out = []
    for shape in shapes:
        a = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
        out.append(a.astype(dtype))
    return out


def _grads(L, name, arrays, dtype, transposed):
    call, _ = CASES[name]
    d = getattr(L, dtype)
    leaves = []
    views = []
    for a in arrays:
        if transposed and a.ndim >= 2:  # the input read through a transposed view of its leaf
            leaf = L.tensor(np.swapaxes(a, -1, -2).copy(), requires_grad=True)
            views.append(leaf.mT)
        else:
            leaf = L.tensor(a, requires_grad=True)
            views.append(leaf)
        leaves.append(leaf)
    outs = call(L, d, *views)
    outs = outs if isinstance(outs, tuple) else (outs,)
    rng = np.random.default_rng(11)
    loss = 0
    for o in outs:
        w = rng.standard_normal(tuple(o.shape)) + (1j * rng.standard_normal(tuple(o.shape)) if o.dtype.is_complex else 0)
        loss = loss + (o * L.tensor(w, dtype=o.dtype)).real.sum() if o.dtype.is_complex else \
            loss + (o * L.tensor(w, dtype=o.dtype)).sum()
    grads = L.autograd.grad(loss, leaves)
    return [g.resolve_conj().numpy() if L is torch else g.numpy() for g in grads]


@pytest.mark.parametrize("name", sorted(CASES))
def test_complex_gradients_as_torch(name):
    """Each op's gradient (of a real loss: a random complex weighting of every output) equals
    PyTorch's, on contiguous and transposed inputs."""
    for dtype in ["complex128", "complex64"]:
        with case(dtype=dtype):
            _complex_gradients_as_torch(name, dtype)


def _complex_gradients_as_torch(name, dtype):
    arrays = _inputs(CASES[name][1], dtype, False)
    for transposed in (False, True):
        want = _grads(torch, name, arrays, dtype, transposed)
        got = _grads(st, name, arrays, dtype, transposed)
        for g, w in zip(got, want):  # (dtype and shape too: a real norm of a complex input)
            assert g.dtype == w.dtype and g.shape == w.shape
            np.testing.assert_allclose(g, w, rtol=TOL[dtype], atol=TOL[dtype], err_msg=f"{name} {transposed}")


def test_second_derivative_of_inv_as_torch():
    a = _inputs([(3, 3)], "complex128", False)[0] + 3 * np.eye(3)
    res = []
    for L in (torch, st):
        x = L.tensor(a, requires_grad=True)
        (g,) = L.autograd.grad((L.linalg.inv(x) * L.tensor(a)).real.sum(), x, create_graph=True)
        (h,) = L.autograd.grad((g * g.conj()).real.sum(), x)
        res.append(h.resolve_conj().numpy() if L is torch else h.numpy())
    np.testing.assert_allclose(res[1], res[0], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("call", [
    lambda L, a: L.linalg.svd(a, full_matrices=False).U.sum().real,
    lambda L, a: L.linalg.svd(a, full_matrices=False).Vh[..., 0, :].sum().imag,
    lambda L, a: L.linalg.eigh(a + a.mH).eigenvectors.sum().real,
], ids=["svd_U", "svd_Vh", "eigh_V"])
def test_phase_dependent_losses_refused_as_torch(call):
    """A loss that changes when a singular/eigen vector is multiplied by e^{i phi}: PyTorch's
    RuntimeError and first line, never a number."""
    a = _inputs([(3, 3)], "complex128", False)[0]
    with pytest.raises(RuntimeError) as want:
        call(torch, torch.tensor(a, requires_grad=True)).backward()
    with pytest.raises(RuntimeError) as got:
        call(st, st.tensor(a, requires_grad=True)).backward()
    assert str(got.value).splitlines()[0] == str(want.value).splitlines()[0]


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_matrix_norm_values_and_dtype_as_torch(dtype):
    """matrix_norm of a complex batch: real values of the real dtype, every order; dtype= must be
    complex for a complex input (PyTorch's error)."""
    a = _inputs([(2, 3, 3)], dtype)[0]
    for o in ("fro", "nuc", 2, -2, 1, -1, float("inf"), -float("inf")):
        want = torch.linalg.matrix_norm(torch.tensor(a), o)
        got = st.linalg.matrix_norm(st.tensor(a), o)
        assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=TOL[dtype])
    with pytest.raises(RuntimeError, match="dtype should be complex for complex inputs"):
        st.linalg.matrix_norm(st.tensor(a), dtype=st.float64)


SECOND = ["inv", "solve", "det", "slogdet", "cholesky", "eigh", "svd_tall", "qr_tall", "pinv", "matrix_norm_nuc"]


@pytest.mark.parametrize("name", SECOND)
def test_complex_second_derivatives_as_torch(name):
    """The first derivative, taken with create_graph, differentiated again (of a real function
    of it, |g|^2 weighted) equals PyTorch's: the rules are differentiable for complex inputs too."""
    call, shapes = CASES[name]
    arrays = _inputs(shapes, "complex128")
    res = []
    for L in (torch, st):
        xs = [L.tensor(a, requires_grad=True) for a in arrays]
        outs = call(L, L.complex128, *xs)
        outs = outs if isinstance(outs, tuple) else (outs,)
        rng = np.random.default_rng(3)
        loss = sum((o * L.tensor(rng.standard_normal(tuple(o.shape)), dtype=o.dtype)).real.sum() for o in outs)
        first = L.autograd.grad(loss, xs, create_graph=True)
        second = L.autograd.grad(sum((g * g.conj()).real.sum() for g in first), xs)
        res.append([g.resolve_conj().detach().numpy() if L is torch else g.numpy() for g in second])
    for got, want in zip(res[1], res[0]):
        np.testing.assert_allclose(got, want, rtol=1e-8, atol=1e-10)
