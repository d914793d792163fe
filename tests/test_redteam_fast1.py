"""Red team of the reduce / randcreate fast paths against torch 2.13: findings, one test each.

The norms of one element: where every reduced dim has size 1, PyTorch's vector norm is |x| for
every ord but 0 (no square to overflow or underflow: ``vector_norm(tensor([1e30]))`` is 1e30 in
float32), and so are ``norm``, ``dist``, ``linalg.norm`` and ``matrix_norm('fro')`` of 1x1
matrices, with the gradients that result implies (sgn(x) for ord 2)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import strided as st

ORDS = [2, 2.0, 1, 3, 0.5, -1, -2, math.inf, -math.inf, 0]


def _same(a: torch.Tensor, b: st.Tensor) -> None:
    assert tuple(a.shape) == tuple(b.shape)
    assert str(a.dtype).removeprefix("torch.") == b.dtype.name
    x, y = a.detach().numpy(), b.detach().numpy()
    np.testing.assert_array_equal(x, y)
    if x.dtype.kind == "f":  # (the signs of zeros too)
        np.testing.assert_array_equal(np.signbit(x) | np.isnan(x), np.signbit(y) | np.isnan(y))


@pytest.mark.parametrize("ordv", ORDS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_vector_norm_of_one_element_is_abs(ordv: float, dtype: str) -> None:
    big = 1e30 if dtype == "float32" else 1e300
    data = np.array([[big], [-1.0 / big], [-0.0], [np.nan], [-np.inf], [3.0]], dtype=dtype)
    for dim, keepdim in [(1, False), ((1,), True), (None, False)]:
        a = data[:1] if dim is None else data
        t = torch.from_numpy(a).requires_grad_()
        s = st.tensor(a, requires_grad=True)
        want = torch.linalg.vector_norm(t, ordv, dim=dim, keepdim=keepdim)
        got = st.linalg.vector_norm(s, ordv, dim=dim, keepdim=keepdim)
        _same(want, got)
        _same(t.norm(ordv, dim=dim, keepdim=keepdim), s.norm(ordv, dim=dim, keepdim=keepdim))
        if ordv == 0:
            continue
        want.sum().backward()
        got.sum().backward()
        np.testing.assert_allclose(t.grad.numpy(), s.grad.numpy(), rtol=1e-6, atol=0)


def test_euclidean_fast_paths_of_one_element() -> None:
    t = torch.tensor([[1e30, -1e-30]], dtype=torch.float32).t()  # (a transposed view)
    s = st.tensor([[1e30, -1e-30]]).t()
    _same(torch.linalg.vector_norm(t, dim=1), st.linalg.vector_norm(s, dim=1))
    _same(torch.norm(t, dim=1, keepdim=True), st.norm(s, dim=1, keepdim=True))
    _same(torch.linalg.vector_norm(t[:1]), st.linalg.vector_norm(s[:1]))
    _same(torch.dist(t[:1], torch.zeros(1, 1)), st.dist(s[:1], st.zeros(1, 1)))
    _same(torch.linalg.norm(t[:1]), st.linalg.norm(s[:1]))
    x = torch.tensor([-1e30]).requires_grad_()
    y = st.tensor([-1e30], requires_grad=True)
    torch.dist(x, torch.zeros(1)).backward()
    st.dist(y, st.zeros(1)).backward()
    assert y.grad.tolist() == x.grad.tolist() == [-1.0]


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64"])
def test_frobenius_of_1x1_matrices(dtype: str) -> None:
    a = np.array([[[1e30]], [[-2.0]], [[0.0]]], dtype=dtype) * (1 + 1j if dtype == "complex64" else 1)
    for view in (a, a.transpose(0, 2, 1)[1:]):
        _same(torch.linalg.matrix_norm(torch.from_numpy(view)), st.linalg.matrix_norm(st.tensor(view)))
        _same(torch.linalg.matrix_norm(torch.from_numpy(view), keepdim=True),
              st.linalg.matrix_norm(st.tensor(view), keepdim=True))
    t = torch.from_numpy(a.real.copy()).requires_grad_()
    s = st.tensor(a.real.copy(), requires_grad=True)
    torch.linalg.matrix_norm(t).sum().backward()
    st.linalg.matrix_norm(s).sum().backward()
    assert s.grad.tolist() == t.grad.tolist()


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_linspace_of_a_complex_dtype(dtype: str) -> None:
    """A complex dtype's linspace is its real dtype's ramp (imaginary parts 0), not 0 + the end
    (it read each bound as a float after a complex cast); cached and uncached alike."""
    rng = np.random.default_rng(3)
    cases = [(0.0, 1.0, 5), (-0.0, 1.0, 5), (True, 3, 4), (1, 0.0, 3), (0.1, 2.7, 33), (-0.0, -0.0, 2), (2.5, 1, 1)]
    cases += [(float(a), float(b), int(n)) for a, b, n in zip(rng.normal(size=20) * 100, rng.normal(size=20),
                                                              rng.integers(2, 40, 20), strict=True)]
    for start, end, steps in cases:
        for _ in range(2):
            want = torch.linspace(start, end, steps, dtype=getattr(torch, dtype))
            _same(want, st.linspace(start, end, steps, dtype=getattr(st, dtype)))


def test_logcumsumexp_of_negative_zero() -> None:
    """PyTorch's first running value is logaddexp(-inf, x) = x + 0.0: -0.0 becomes +0.0 (a 0-d
    input is copied and keeps it), on the fast path (row-major) and the general one (views)."""
    for dtype in ("float32", "float64", "float16"):
        a = np.array([[-0.0, -0.0, -np.inf], [-0.0, -np.inf, -0.0]], dtype=dtype)
        for dim in (0, 1, -1):
            for view in (a, a.T.copy().T, a[:, 1:]):
                _same(torch.from_numpy(view).logcumsumexp(dim), st.tensor(view).logcumsumexp(dim))
        _same(torch.tensor(-0.0).logcumsumexp(0), st.tensor(-0.0).logcumsumexp(0))


def _outcome(f: object) -> str:
    try:
        f()  # type: ignore[operator]
    except Exception as e:  # noqa: BLE001 - (the class and first line compared with torch's)
        return f"{type(e).__name__.removeprefix('Strided')}: {str(e).splitlines()[0]}"
    return "ok"


@pytest.mark.parametrize("dtype", ["complex64", "complex128", "bool", "float16", "int32"])
def test_samplers_without_a_kernel_for_the_dtype(dtype: str) -> None:
    """bernoulli_ on complex and geometric_ on bool or complex: PyTorch's NotImplementedError (they
    filled the tensor), after the p check, and nothing for an empty tensor; a refusal writes nothing."""
    td, sd = getattr(torch, dtype), getattr(st, dtype)
    calls = [("bernoulli_", (0.5,)), ("bernoulli_", (1.5,)), ("geometric_", (0.5,)), ("geometric_", (2.0,))]
    for name, args in calls:
        for n in (3, 0):
            want = _outcome(lambda: getattr(torch.zeros(n, dtype=td), name)(*args))  # noqa: B023
            target = st.zeros(n, dtype=sd)
            assert _outcome(lambda: getattr(target, name)(*args)) == want  # noqa: B023
            if want != "ok":
                assert not target.numpy().any()
    p = torch.full((3,), 0.5)
    assert _outcome(lambda: st.zeros(3, dtype=sd).bernoulli_(st.full((3,), 0.5))) == \
        _outcome(lambda: torch.zeros(3, dtype=td).bernoulli_(p))


def test_complex_vector_norm_converts_to_dtype_first() -> None:
    """dtype=complex128 on a complex64 input: |z| taken in complex128 (finite past float32's range),
    as PyTorch, not in complex64 (inf). (|z| itself may differ from torch's in the last bit.)"""
    a = (np.full((2, 3), 3e38, np.float32) * (1 + 1j)).astype(np.complex64)
    for view in (a, a[:, :1]):
        for ordv in (2, 1, 3, math.inf, 0):
            want = torch.linalg.vector_norm(torch.from_numpy(view), ordv, dim=1, dtype=torch.complex128)
            got = st.linalg.vector_norm(st.tensor(view), ordv, dim=1, dtype=st.complex128)
            assert got.dtype is st.float64 and bool(np.isfinite(got.numpy()).all())
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-15)
