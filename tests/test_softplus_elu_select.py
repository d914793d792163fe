"""F.softplus and F.elu (alpha 1): PyTorch's loops' splits (softplus: SLEEF's exp and log1p
vectorized, the C library's in the tail, tests/test_bits34.py; elu: SLEEF's / the C library's
expm1, tests/test_sleef_expm1.py); elu's ``where(x > t, x, ...)`` selection written over that fresh
array by the compiled ``greater_select`` in one pass (row-major or all column-major). Both:
PyTorch's bits; for thresholds float32 holds exactly and those it rounds, NaN and infinities, every
layout; PyTorch's values; the kernel's refusals.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs
from hypothesis.extra import numpy as hnp

import strided
import strided.nn.functional as F
from float32_cases import NAN_PAYLOADS
from oracle_helpers import case
from strided.kernels import native
from strided.ops.elementwise import activations as A

_KERNEL = native.special()
pytestmark = pytest.mark.skipif(_KERNEL is None or not hasattr(_KERNEL, "greater_select"),
                                reason="the compiled special functions are not built")


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).view(np.uint32 if a.dtype == np.float32 else np.uint64)


@settings(max_examples=50, deadline=None)
@given(hnp.arrays(np.float32, hs.integers(0, 300), elements=hs.floats(width=32)),
       hs.sampled_from([0.0, 20.0, 20.3, -1.5, 1e39, -np.inf]))
def test_the_kernel_is_numpys_where(x: np.ndarray, t: float) -> None:
    y = np.cos(x)
    with np.errstate(over="ignore"):
        ref = np.where(np.greater(x, t), x, y)
    assert _KERNEL.greater_select(x, t, y)
    assert _bits(y).tolist() == _bits(ref).tolist()


def test_refusals() -> None:
    x = np.linspace(-1, 1, 8, dtype=np.float32)
    assert not _KERNEL.greater_select(x, 0.0, x)  # (y overlaps x)
    assert not _KERNEL.greater_select(x, 0.0, np.empty(8))
    assert not _KERNEL.greater_select(x[::2], 0.0, np.empty(4, np.float32))
    assert not A._greater_select(x, 0.0, np.empty((2, 4), np.float32))  # (shapes differ)
    with pytest.raises(TypeError):
        _KERNEL.greater_select(x, "t", np.empty_like(x))


_VIEWS = {"row-major": lambda t: t, "transposed": lambda t: t.T, "stepped": lambda t: t[::2, 1::3],
          "0-d": lambda t: t[2, 3], "empty": lambda t: t[:0]}
_CALLS = {
    "softplus": (lambda M, t: M.softplus(t), lambda t: torch.nn.functional.softplus(t)),
    "softplus threshold": (lambda M, t: M.softplus(t, threshold=0.3), lambda t: torch.nn.functional.softplus(t, 1, 0.3)),
    "softplus beta": (lambda M, t: M.softplus(t, beta=2.0), lambda t: torch.nn.functional.softplus(t, 2.0)),
    "elu": (lambda M, t: M.elu(t), lambda t: torch.nn.functional.elu(t)),
    "elu alpha": (lambda M, t: M.elu(t, 0.5), lambda t: torch.nn.functional.elu(t, 0.5)),
}


@pytest.mark.parametrize("call", list(_CALLS))
def test_the_ops_bits_and_pytorchs_values(call):
    for view, dtype in itertools.product(
            list(_VIEWS),
            ["float32", "float64"]):
        with case(view=view, dtype=dtype):
            _the_ops_bits_and_pytorchs_values(view, call, dtype)


def _the_ops_bits_and_pytorchs_values(view: str, call: str, dtype: str) -> None:
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((30, 20)) * 12).astype(dtype)
    with np.errstate(invalid="ignore"):
        x[0, :7] = np.concatenate([[np.inf, -np.inf, 0.0, -0.0], NAN_PAYLOADS[:3]]).astype(dtype)
    s = _VIEWS[view](strided.from_numpy(x))
    ours, theirs = _CALLS[call]
    got = ours(F, s)
    want = theirs(_VIEWS[view](torch.from_numpy(x)))
    ref = want  # (PyTorch's expm1 / exp and log1p splits: its bits, NaNs' too)
    np.testing.assert_array_equal(_bits(got.numpy()), _bits(ref.numpy()))
    assert got.shape == tuple(want.shape) and got.stride() == want.stride()
    nan = np.isnan(want.numpy())
    np.testing.assert_array_equal(np.isnan(got.numpy()), nan)
    tol = 2e-6 if dtype == "float32" else 1e-14
    np.testing.assert_allclose(got.numpy()[~nan], want.numpy()[~nan], rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_forwards_with_and_without_the_kernel(dtype: type) -> None:
    """The rows' forwards themselves: softplus's PyTorch's bits (the kernel's SOFTPLUS) and, without
    the kernel, within a few ulps of them; elu's: NumPy's where over the same exponentials (the
    torch_loop split) bit for bit."""
    x = (np.random.default_rng(4).standard_normal((64, 33)) * 25).astype(dtype)
    for v in (x, x.T, np.asfortranarray(x)):
        got = A._softplus(v, 1.0, 20.0)
        want = torch.nn.functional.softplus(torch.from_numpy(v)).numpy()
        np.testing.assert_array_equal(_bits(got), _bits(want))
        with native.disabled():
            ref = A._softplus(v, 1.0, 20.0)
        np.testing.assert_allclose(ref, want, rtol=4 * np.finfo(dtype).eps, atol=0)
        for a in (1.0, 0.5, -0.5):
            got = A._elu(v, a)
            e = A.torch_loop(v, A._EXPM1_OP)
            with np.errstate(over="ignore"):
                ref = np.where(v >= 0, v, e * np.asarray(a, dtype))
            np.testing.assert_array_equal(_bits(got), _bits(ref))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_greater_copy_is_x_only_where_every_element_passes(dtype: type) -> None:
    """``greater_copy`` (F.elu's all-positive input: x itself, no expm1): True and y == x where
    every x > t; False where one element is not, in the first block, the last element, past a
    block's end, or a NaN; the kernel's refusals as greater_select's."""
    x = np.random.default_rng(5).uniform(0.1, 0.9, 5000).astype(dtype)
    y = np.empty_like(x)
    assert _KERNEL.greater_copy(x, 0.0, y) and _bits(y).tolist() == _bits(x).tolist()
    assert not _KERNEL.greater_copy(x, 0.5, np.empty_like(x))
    for at, bad in itertools.product((0, 2047, 2048, 4999), (0.0, -1.0, np.nan)):
        z = x.copy()
        z[at] = bad
        assert not _KERNEL.greater_copy(z, 0.0, np.empty_like(z))
    assert not _KERNEL.greater_copy(x[::2], 0.0, np.empty(2500, dtype))
    assert not _KERNEL.greater_copy(x, 0.0, np.empty(5000, np.float16))


@pytest.mark.parametrize("layout", ["row-major", "transposed", "stepped"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_elu_of_all_positive_inputs(layout: str, dtype: str) -> None:
    """F.elu where every element is positive: x itself (the copying pass), PyTorch's bits and
    strides, and the NumPy path's; one element at 0 or NaN anywhere: the general path's bits."""
    base = np.random.default_rng(6).uniform(0.1, 0.9, (64, 70)).astype(dtype)
    view = {"row-major": lambda a: a, "transposed": lambda a: a.T, "stepped": lambda a: a[::2, 1::3]}[layout]
    for poke in (None, (0, 0), (63, 69), (40, 5)):
        for value in (0.0, np.nan):
            arr = base.copy()
            if poke is not None:
                arr[poke] = value
            s, t = view(strided.from_numpy(arr)), view(torch.from_numpy(arr))
            got, want = F.elu(s), torch.nn.functional.elu(t)
            assert got.stride() == want.stride()
            assert _bits(got.numpy()).tolist() == _bits(want.numpy()).tolist()
            with native.disabled():
                assert _bits(F.elu(s).numpy()).tolist() == _bits(got.numpy()).tolist()
            if poke is None:
                break


def test_elu_higher_derivatives_at_zero_follow_torch():
    """PyTorch's elu_double_backward masks with ``self < 0``: at x == 0 the first derivative takes
    the exp branch (alpha) but the second is 0. Before, strided's rule differentiated alpha*exp(x)
    there too: F.elu's second derivative at 0.0 / -0.0 was alpha * scale**2 (0.845 here), not 0."""
    import torch.nn.functional as TF

    got, want = [], []
    for m, elu, out in ((torch, TF.elu, want), (strided, F.elu, got)):
        a = m.tensor([0.0, -0.0, 1.0, -3.0, 0.5], dtype=m.float64, requires_grad=True)
        y = elu(a * 1.3, 0.5)
        g, = m.autograd.grad(y.sum(), a, create_graph=True)
        gg, = m.autograd.grad((g * g).sum(), a, create_graph=True)
        ggg, = m.autograd.grad(gg.sum(), a)
        out.extend([g.detach().tolist(), gg.detach().tolist(), ggg.tolist()])
    assert got == want
