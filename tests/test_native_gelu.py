"""F.gelu's compiled exact form (``gelu`` in kernels/_specialkernel.c, taken by
``strided.kernels.special.gelu_into``) against the float64 formula it fuses: the same bits on every
input (float32: erf_float32's stages and a rounding test, the unsure elements recomputed by the
scalar erf; float64: the scalar erf), and the op against PyTorch with the kernel on and off, over
the layouts it takes (contiguous, transposed, 0-d, empty, in place) and those it leaves to the
NumPy formula (sliced, expanded, float16).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs
from hypothesis.extra import numpy as hnp

import strided
import strided.nn.functional as SF
from float32_cases import UNARY_LAYOUTS, neighbours
from strided.kernels import native, special

_KERNEL = native.special()
_TORCH_BITS = native.sleef() is not None and native.sleef().capability() in (8, 16)  # (AVX2 or AVX512: see the float32 tests)
pytestmark = pytest.mark.skipif(_KERNEL is None or not hasattr(_KERNEL, "gelu"),
                                reason="the compiled special functions are not built")

# erf's thresholds at u = x sqrt(1/2) (0.46875, 4, the clamp at 40) as x, where 1 + erf cancels
# (x below -5), the float32 extremes
_EDGES = np.array([0.0, 0.46875 * math.sqrt(2), 0.5, 1.0, 2.0, 4 * math.sqrt(2), 5.0, 5.3, 6.0, 8.0, 8.3,
                   9.0, 10.0, 13.0, 20.0, 40 * math.sqrt(2), 60.0, 1e-45, 1.1754944e-38, 1e-30, 1e-8,
                   3.4028235e38, np.inf], dtype=np.float32)


def _edges() -> np.ndarray:
    return neighbours(_EDGES, 3)


def _formula(x: np.ndarray) -> np.ndarray:
    """The ops layer's float64 formula with the compiled scalar erf, rounded once to x's dtype."""
    with np.errstate(all="ignore"):
        x64 = x.astype(np.float64)
        erf = np.empty_like(x64)
        _KERNEL.erf(x64 * math.sqrt(0.5), erf)
        return (0.5 * x64 * (1.0 + erf)).astype(x.dtype)


def _bits(a: np.ndarray) -> np.ndarray:
    return a.view(np.uint32 if a.dtype == np.float32 else np.uint64)


def _kernel(x: np.ndarray) -> np.ndarray:
    out = np.empty_like(x)
    assert _KERNEL.gelu(x, out)
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_same_bits_as_the_formula_on_edges_and_random_patterns(dtype: type) -> None:
    rng = np.random.default_rng(23)
    width = np.uint32 if dtype == np.float32 else np.uint64
    patterns = rng.integers(0, np.iinfo(width).max, 1 << 18, dtype=np.uint64).astype(width).view(dtype)
    dense = rng.uniform(-12, 12, 1 << 18).astype(dtype)  # (the cancelling range below -5 included)
    normal = rng.standard_normal(1 << 18).astype(dtype) * 3
    with np.errstate(invalid="ignore"):  # (the NaN patterns)
        edges = _edges().astype(dtype)
    for x in (edges, patterns, dense, normal):
        np.testing.assert_array_equal(_bits(_kernel(x)), _bits(_formula(x)))


@settings(max_examples=60, deadline=None)
@given(hnp.arrays(np.float32, hnp.array_shapes(min_dims=1, max_dims=1, min_side=0, max_side=700),
                  elements=hs.floats(width=32, allow_nan=True, allow_infinity=True)))
def test_the_same_bits_on_any_length(x: np.ndarray) -> None:
    """Lengths around the 256-element blocks, 0 included; every float32 (NaN, -0.0, subnormal)."""
    assert _bits(_kernel(x)).tolist() == _bits(_formula(x)).tolist()


def test_in_place_column_major_and_refusals() -> None:
    x = np.random.default_rng(3).uniform(-9, 9, (300, 7)).astype(np.float32)
    ref = _formula(x)
    y = x.copy()
    assert _KERNEL.gelu(y, y)  # (src and dst the same memory)
    np.testing.assert_array_equal(_bits(y), _bits(ref))
    f, out = np.asfortranarray(x), np.empty(x.shape, np.float32, order="F")
    assert _KERNEL.gelu(f, out)
    np.testing.assert_array_equal(_bits(out), _bits(ref))
    assert not _KERNEL.gelu(x, np.empty(x.shape))  # (float32 into float64: the NumPy formula's job)
    assert not special.gelu_into(x[:, ::2], np.empty((300, 4), np.float32))  # (not contiguous)
    assert not special.gelu_into(x, np.empty((300, 7), np.float32, order="F"))  # (two memory orders)
    assert not special.gelu_into(x.astype(np.float16), np.empty((300, 7), np.float16))
    with native.disabled():
        assert not special.gelu_into(x, np.empty_like(x))
    with pytest.raises(ValueError, match="one length"):
        _KERNEL.gelu(x, np.empty(5, np.float32))


_LAYOUTS = {**UNARY_LAYOUTS, "expanded": lambda a: a[:1].expand(5, a.shape[1])}  # (expanded: NumPy's formula)


@pytest.mark.parametrize("layout", list(_LAYOUTS))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_the_op_matches_the_formula_and_pytorch(layout: str, dtype: str) -> None:
    """F.gelu: with the kernel, the formula's bits; without (NumPy's erf), within one float32
    rounding; both within PyTorch's tolerance, with PyTorch's shape, strides and dtype; under
    autograd the same forward values."""
    base = np.random.default_rng(7).uniform(-7, 7, (40, 33)).astype(dtype)
    view = _LAYOUTS[layout]
    s, t = view(strided.from_numpy(base)), view(torch.from_numpy(base))
    got = SF.gelu(s)
    want = torch.nn.functional.gelu(t)
    assert got.dtype == getattr(strided, dtype) and got.shape == tuple(want.shape) and got.stride() == want.stride()
    # with the compiled loops: PyTorch's own bits (strided.kernels.sleef.gelu_float32; float64: its
    # GELU_D loop, SLEEF's erf, bits36)
    ref = want.numpy() if _TORCH_BITS else _formula(np.ascontiguousarray(t.numpy()))
    np.testing.assert_array_equal(_bits(np.ascontiguousarray(got.numpy())), _bits(np.ascontiguousarray(ref)))
    tol = 2e-6 if dtype == "float32" else 1e-13
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=tol, atol=tol)
    with native.disabled():
        off = SF.gelu(s)
    # (off: the float64 formula, rounded once; PyTorch's float32 erf is within ~2e-7 of erf, its
    # float64 one SLEEF's, whose 1 + erf cancels where x is very negative: PyTorch's tolerance)
    np.testing.assert_allclose(off.numpy(), got.numpy(), rtol=tol, atol=tol)
    leaf = strided.from_numpy(base.copy()).requires_grad_()
    graph = SF.gelu(view(leaf))
    np.testing.assert_array_equal(_bits(np.ascontiguousarray(graph.detach().numpy())),
                                  _bits(np.ascontiguousarray(got.numpy())))
    if got.numel():
        graph.sum().backward()
        tl = torch.from_numpy(base.copy()).requires_grad_()
        torch.nn.functional.gelu(view(tl)).sum().backward()
        np.testing.assert_allclose(leaf.grad.numpy(), tl.grad.numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_edge_values_match_pytorch(dtype: torch.dtype) -> None:
    """-inf, NaN, -0.0, huge, tiny and subnormal inputs, and the cancelling range, as PyTorch's
    (NaN where PyTorch's is NaN: -inf gives NaN as 0.5 x (1 + erf) gives it in both). PyTorch's
    float32 answers at +inf and near float32's largest depend on its path (one element: inf, its
    scalar loop; 16 or more: NaN and inf, its vector loop's float32 product overflowing): strided
    gives the scalar loop's, x itself, which is PyTorch's float64 answer too."""
    x = torch.from_numpy(_edges()).to(dtype)
    got = SF.gelu(strided.from_numpy(x.numpy())).numpy()
    want = torch.nn.functional.gelu(x).numpy()
    if _TORCH_BITS and dtype == torch.float32:  # PyTorch's own kernels, bit for bit (+inf: NaN, as oneDNN's)
        assert got.tobytes() == want.tobytes()
        return
    huge = (x.abs() > 1e38).numpy() & (x > 0).numpy()
    np.testing.assert_array_equal(got[huge], x.numpy()[huge])
    np.testing.assert_array_equal(np.isnan(got[~huge]), np.isnan(want[~huge]))
    finite = ~np.isnan(want) & ~huge
    # (absolute: below x = -5, 1 + erf cancels and PyTorch's float32 erf leaves ~6e-8 |x|)
    atol = 1e-6 if dtype == torch.float32 else 1e-15
    np.testing.assert_allclose(got[finite], want[finite], rtol=2e-6, atol=atol)
    assert np.signbit(got[(x == 0).numpy()]).tolist() == np.signbit(want[(x == 0).numpy()]).tolist()


def test_the_tanh_form_is_untouched() -> None:
    """approximate="tanh" keeps its float32 NumPy formula (no kernel): the same values with the
    kernels on and off, within PyTorch's tolerance."""
    x = torch.linspace(-8, 8, 1001)
    s = strided.from_numpy(x.numpy())
    got = SF.gelu(s, approximate="tanh").numpy()
    with native.disabled():
        off = SF.gelu(s, approximate="tanh").numpy()
    np.testing.assert_array_equal(_bits(got), _bits(off))
    np.testing.assert_allclose(got, torch.nn.functional.gelu(x, approximate="tanh").numpy(), rtol=2e-6, atol=1e-6)
