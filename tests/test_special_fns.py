"""polygamma and the Bessel functions i1, i0e, i1e (issue 25) against PyTorch 2.13: values at the
poles, at +-inf, NaN and negative x; dtypes, layouts, ``out=`` and in place; PyTorch's errors;
first and second derivatives (and so digamma's and i0's second derivatives)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided as st

GRID = np.concatenate([
    [-3.5, -2.5, -2.0, -1.0, -0.5, -0.0, 0.0, 1e-12, 0.5, 1.0, 3.0, 9.5, 30.0, 31.0, 700.0, 1e3, 1e8,
     np.inf, -np.inf, np.nan],
    np.random.default_rng(0).uniform(-12.0, 40.0, 40),
])

FUNCS = {  # name -> (strided's, torch's)
    "i1": (lambda m, x: m.special.i1(x)),
    "i0e": (lambda m, x: m.special.i0e(x)),
    "i1e": (lambda m, x: m.special.i1e(x)),
    **{f"polygamma{n}": (lambda m, x, n=n: m.polygamma(n, x)) for n in range(6)},
    "polygamma12": (lambda m, x: m.polygamma(12, x)),
}


def _same(got: np.ndarray, want: np.ndarray, rtol: float) -> None:
    """Equal to ``rtol``, with PyTorch's infinities (and their signs) and NaNs where it has them."""
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(np.isposinf(got), np.isposinf(want))
    np.testing.assert_array_equal(np.isneginf(got), np.isneginf(want))
    fin = np.isfinite(want)
    np.testing.assert_allclose(got[fin], want[fin], rtol=rtol, atol=0)


@pytest.mark.parametrize("name", sorted(FUNCS))
def test_values_as_torch(name):
    """float64 over the grid to float64 rounding (digamma's own kernel, polygamma(0), to 1e-9);
    float32 and an int input (float32 result) to float32 rounding."""
    fn = FUNCS[name]
    _same(fn(st, st.tensor(GRID, dtype=st.float64)).numpy(), fn(torch, torch.tensor(GRID)).numpy(),
          1e-9 if name == "polygamma0" else 1e-13)
    # float32: PyTorch computes these in float32 (trigamma's reflection, n! as exp(lgamma)), strided
    # in float64 then rounds: float32 rounding apart, more near the poles, where the reflection
    # cancels (2e-5 at -2.5), so polygamma is compared at x > 0 there
    keep = (np.abs(GRID) < 80) & ((GRID > 0) if name.startswith("polygamma") else True)
    x32 = GRID[keep].astype(np.float32)
    _same(fn(st, st.tensor(x32)).numpy(), fn(torch, torch.tensor(x32)).numpy(), 1e-5)
    ints = [0, 1, 2, 7] if name.startswith("polygamma") else [-3, 0, 1, 2, 7]  # (float32 trigamma at -3: its sin)
    _same(fn(st, st.tensor(ints)).numpy(), fn(torch, torch.tensor(ints)).numpy(), 1e-5)


def test_layouts_out_and_inplace():
    """A transposed input gives a transposed result (the elementwise layout rule); ``out=`` and
    ``polygamma_`` write where told; the method and the function agree."""
    base = np.linspace(0.3, 4.0, 6).reshape(2, 3)
    for m in (st, torch):
        x = m.tensor(base, dtype=m.float64).t()
        y = m.polygamma(3, x)
        assert tuple(y.stride()) == (1, 3) and y.tolist() == x.polygamma(3).tolist()
        out = m.empty(3, 2, dtype=m.float64)
        assert m.polygamma(2, x, out=out) is out
        z = m.tensor(base, dtype=m.float64)
        col = z[:, 1]
        assert col.polygamma_(2) is col
    got = st.tensor(base, dtype=st.float64)
    got[:, 1].polygamma_(2)
    want = torch.tensor(base)
    want[:, 1].polygamma_(2)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-14)
    assert st.special.psi is st.digamma and st.special.polygamma is st.polygamma


@pytest.mark.parametrize("call", [
    lambda m: m.polygamma(-1, m.tensor([1.0])),
    lambda m: m.polygamma(1.5, m.tensor([1.0])),
    lambda m: m.polygamma(True, m.tensor([1.0])),
    lambda m: m.tensor([1 + 1j]).polygamma(0),
    lambda m: m.tensor([1 + 1j]).polygamma(1),
    lambda m: m.tensor([1 + 1j]).polygamma(2),
    lambda m: m.tensor([1, 2]).polygamma_(1),
    lambda m: m.special.i1(m.tensor([1 + 1j])),
    lambda m: m.special.i0e(m.tensor([1 + 1j])),
    lambda m: m.special.i1e(m.tensor([1 + 1j])),
])
def test_errors_as_torch(call):
    """PyTorch's class and first line (strided adds the why and the fix after it)."""
    with pytest.raises(Exception) as want:
        call(torch)
    with pytest.raises(Exception) as got:
        call(st)
    assert isinstance(got.value, type(want.value).__mro__[0].__mro__[-3]) or isinstance(got.value, type(want.value))
    assert str(got.value).splitlines()[0] == str(want.value).splitlines()[0]


GRADS = ["polygamma0", "polygamma1", "polygamma3", "i1", "i0e", "i1e", "digamma", "i0"]


def _grads(m, name: str, values: np.ndarray):
    fn = {"digamma": lambda m, x: x.digamma(), "i0": lambda m, x: x.i0(), **FUNCS}[name]
    x = m.tensor(values, dtype=m.float64, requires_grad=True)
    (g,) = m.autograd.grad(fn(m, x).sum(), x, create_graph=True)
    (h,) = m.autograd.grad((g * g).sum(), x, create_graph=True)
    (k,) = m.autograd.grad(h.sum(), x)
    return g.detach().numpy(), h.detach().numpy(), k.numpy()


@pytest.mark.parametrize("name", GRADS)
def test_three_orders_of_derivatives_as_torch(name):
    """First, second and third derivatives equal PyTorch's, at 0 too (i1's and i1e's 0.5 there)
    and at negative x."""
    values = np.array([-2.7, -0.6, 0.0, 0.4, 1.3, 5.0, 35.0])
    if name.startswith("polygamma") or name == "digamma":
        values = values[values != 0.0]
    for got, want in zip(_grads(st, name, values), _grads(torch, name, values)):
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-300)


@pytest.mark.parametrize("name", ["polygamma2", "i1", "i0e", "i1e"])
def test_gradcheck(name):
    x = st.tensor([[0.7, -1.3, 2.2], [4.1, -0.4, 1.1]], dtype=st.float64, requires_grad=True).t()
    fn = FUNCS[name]
    assert st.autograd.gradcheck(lambda t: fn(st, t), (x,))
    assert st.autograd.gradgradcheck(lambda t: fn(st, t), (x,))


def test_inplace_polygamma_records_as_torch():
    """``polygamma_`` on a non-leaf: PyTorch's node (PolygammaBackward1) and both derivatives."""
    res = []
    for m in (torch, st):
        x = m.tensor([0.7, 1.5, -2.5], dtype=m.float64, requires_grad=True)
        y = (x * 1).polygamma_(2)
        (g,) = m.autograd.grad(y.sum(), x, create_graph=True)
        (h,) = m.autograd.grad(g.sum(), x)
        res.append((y.grad_fn.name(), g.detach().numpy(), h.numpy()))
    assert res[1][0] == res[0][0] == "PolygammaBackward1"
    for got, want in zip(res[1][1:], res[0][1:]):
        np.testing.assert_allclose(got, want, rtol=1e-12)
