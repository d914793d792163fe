"""The float32 erf/erfc kernels (``erf_float32``, ``erfc_float32`` in kernels/_specialkernel.c)
against the scalar kernels ``erf`` / ``erfc`` they replace for float32 arrays: the same bits on
every input (the fast loops approximate, and recompute every element whose float32 rounding that
could move; all 2^32 float32 patterns were checked once in C, and erf's AVX-512 form over every
float32 of magnitude <= 4.5, Dec 2026, erfc's AVX-512 form against its blocked stages over all 2^32
patterns, small25, and again with its polynomial groups for |x| < 2, elem28; here a sample: random bit patterns over every exponent, the branch edges and
their neighbours, NaN payloads, zeros, subnormals, infinities), erf and erfc in both of their
forms (``erf_float32_form``), and the ops against PyTorch with the kernel on and off.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs
from hypothesis.extra import numpy as hnp

import strided
from strided.kernels import native

_KERNEL = native.special()
pytestmark = [pytest.mark.usefixtures("vml_route_off"), pytest.mark.skipif(_KERNEL is None or not hasattr(_KERNEL, "erf_float32"),
                                reason="the compiled special functions are not built")]
NAMES = ["erf", "erfc"]

# Cody's thresholds (0.46875, 4, the clamp at 40), the exp table's steps, 0.5, 1 and the float32 extremes
_EDGES32 = np.array([0.0, 0.46875, 0.5, 1.0, 2.0, 3.9, 4.0, 5.0, 6.0, 9.0, 10.0, 10.06, 26.5, 40.0, 41.0,
                     1e-45, 1.1754944e-38, 1e-30, 1e-8, 3.4028235e38, np.inf], dtype=np.float32)


@pytest.fixture(params=[-1, 0], ids=["avx512-form", "blocked-stages"], autouse=True)
def _erf_form(request: pytest.FixtureRequest):
    """Every test twice: erf_float32's AVX-512 form (where the CPU has it) and its blocked stages."""
    before = _KERNEL.erf_float32_form(request.param)
    yield
    _KERNEL.erf_float32_form(before)


def _edges() -> np.ndarray:
    e = np.concatenate([_EDGES32, -_EDGES32])
    near = [e]
    for direction in (np.inf, -np.inf):
        step = e
        for _ in range(3):
            with np.errstate(over="ignore"):  # (the largest float32 steps to inf)
                step = np.nextafter(step, np.float32(direction))
            near.append(step)
    grid = np.arange(-41 * 16, 41 * 16 + 1, dtype=np.float32) / np.float32(16)  # (every ys step, every quarter)
    nans = np.array([0x7FC00000, 0xFFC00000, 0x7F800001, 0x7FC12345, 0xFFFFFFFF], dtype=np.uint32).view(np.float32)
    return np.concatenate(near + [grid, np.nextafter(grid, np.float32(1)), nans])


def _bits(a: np.ndarray) -> np.ndarray:
    return a.view(np.uint32)


def _both(name: str, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(fast, scalar) results of ``name`` on float32 ``x``."""
    fast, slow = np.empty_like(x), np.empty_like(x)
    getattr(_KERNEL, name + "_float32")(x, fast)
    getattr(_KERNEL, name)(x, slow)
    return fast, slow


@pytest.mark.parametrize("name", NAMES)
def test_the_same_bits_as_the_scalar_kernel_on_edges_and_random_patterns(name: str) -> None:
    rng = np.random.default_rng(11)
    patterns = rng.integers(0, 2**32, 1 << 19, dtype=np.uint64).astype(np.uint32).view(np.float32)
    dense = rng.uniform(-11, 11, 1 << 18).astype(np.float32)  # (where the values are neither 0, 1 nor 2)
    for x in (_edges(), patterns, dense):
        fast, slow = _both(name, x)
        np.testing.assert_array_equal(_bits(fast), _bits(slow), err_msg=name)


@settings(max_examples=60, deadline=None)
@given(hnp.arrays(np.float32, hnp.array_shapes(min_dims=1, max_dims=1, min_side=0, max_side=700),
                  elements=hs.floats(width=32, allow_nan=True, allow_infinity=True)),
       hs.sampled_from(NAMES))
def test_the_same_bits_on_any_length(x: np.ndarray, name: str) -> None:
    """Lengths around the 256-element blocks, 0 included; every float32 (NaN, -0.0, subnormal)."""
    fast, slow = _both(name, x)
    assert _bits(fast).tolist() == _bits(slow).tolist()


@pytest.mark.parametrize("name", NAMES)
def test_in_place_and_column_major(name: str) -> None:
    x = np.random.default_rng(3).uniform(-5, 5, (300, 7)).astype(np.float32)
    ref = np.empty_like(x)
    getattr(_KERNEL, name)(x, ref)
    y = x.copy()
    getattr(_KERNEL, name + "_float32")(y, y)  # (src and dst the same memory)
    np.testing.assert_array_equal(_bits(y), _bits(ref))
    f, out = np.asfortranarray(x), np.empty(x.shape, np.float32, order="F")
    getattr(_KERNEL, name + "_float32")(f, out)
    np.testing.assert_array_equal(_bits(out), _bits(ref))


@pytest.mark.parametrize("name", NAMES)
def test_near_the_float32_rounding_boundaries(name: str) -> None:
    """The AVX-512 forms' certification: inputs whose erf (erfc) lies close to a float32 rounding
    boundary (found with the float64 kernel) and the subnormal results take k_erf's (k_erfc's) bits."""
    rng = np.random.default_rng(12)
    x = np.concatenate([rng.uniform(-4.5, 4.5, 1 << 21), rng.uniform(-1e-3, 1e-3, 1 << 16),
                        rng.uniform(3.5, 10.1, 1 << 18)]).astype(np.float32)  # (erfc's far interval too)
    x64 = np.empty(x.size)
    getattr(_KERNEL, name)(x.astype(np.float64), x64)
    up = x64.astype(np.float32).astype(np.float64)
    near = np.abs(x64 - up) > 0.45 * np.abs(np.spacing(up.astype(np.float32)).astype(np.float64))
    assert near.sum() > 100  # (within 5% of an ulp of a boundary)
    tiny = np.array([1e-45, -1e-45, 3e-39, -1.1e-38, 1.2e-38, 9.19, 9.2, 10.05, 10.06], np.float32)
    for v in (x[near], tiny):
        fast, slow = _both(name, v)
        assert _bits(fast).tolist() == _bits(slow).tolist()
    with pytest.raises(ValueError, match="form"):
        _KERNEL.erf_float32_form(2)


def test_bad_buffers_are_refused() -> None:
    x = np.zeros(4, np.float32)
    with pytest.raises(ValueError, match="float32"):
        _KERNEL.erf_float32(x.astype(np.float64), x)
    with pytest.raises(ValueError, match="float32"):
        _KERNEL.erfc_float32(x, np.zeros(4))
    with pytest.raises(ValueError, match="one length"):
        _KERNEL.erf_float32(x, np.zeros(5, np.float32))
    with pytest.raises(ValueError, match="memory order"):
        _KERNEL.erf_float32(np.zeros((3, 2), np.float32), np.zeros((3, 2), np.float32, order="F"))
    with pytest.raises(TypeError):
        _KERNEL.erf_float32(x)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped"])
def test_the_op_gives_the_scalar_kernels_bits_and_matches_pytorch(name: str, layout: str) -> None:
    """strided.erf / erfc on float32: the fast kernel on, the scalar kernel's bits (its float64
    twin's, rounded once); off (NumPy formulas), within float64 rounding; both within PyTorch's
    float32 tolerance; shape, strides and dtype as PyTorch's."""
    base = np.random.default_rng(9).uniform(-6, 6, (64, 48)).astype(np.float32)
    view = {"contiguous": lambda a: a, "transposed": lambda a: a.T, "stepped": lambda a: a[::2, 1::3]}[layout]
    s, t = view(strided.from_numpy(base)), view(torch.from_numpy(base))
    got = getattr(strided, name)(s)
    want = getattr(torch, name)(t)
    ref = np.empty(got.shape, np.float32)
    getattr(_KERNEL, name)(np.ascontiguousarray(view(base)), ref)
    np.testing.assert_array_equal(_bits(np.ascontiguousarray(got.numpy())), _bits(ref))
    assert got.dtype == strided.float32 and got.shape == tuple(want.shape) and got.stride() == want.stride()
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=2e-6, atol=1e-7)
    with native.disabled():
        off = getattr(strided, name)(s)
    np.testing.assert_allclose(off.numpy(), got.numpy(), rtol=1.2e-7, atol=0)


def test_erfc_groups_below_two_take_k_erfcs_bits() -> None:
    """erfc's AVX-512 form computes a group of 8 whose |x| are all below 2 from erf8's polynomials
    (1 -+ erf, certified, _erfc_poly.h): such groups only here (dense data in (-2, 2), inputs near
    a float32 rounding boundary of k_erfc, the quarters' and 0.25's edges, the floats just below 2,
    lengths that leave a partial group), each float32 the scalar kernel's k_erfc rounded once."""
    rng = np.random.default_rng(2028)
    dense = rng.uniform(-2, 2, 1 << 20).astype(np.float32)
    x64 = np.empty(dense.size)
    _KERNEL.erfc(dense.astype(np.float64), x64)
    up = x64.astype(np.float32).astype(np.float64)
    near = dense[np.abs(x64 - up) > 0.45 * np.abs(np.spacing(up.astype(np.float32)).astype(np.float64))]
    assert near.size > 50
    below = np.float32(2.0).view(np.uint32) - np.arange(1, 4097, dtype=np.uint32)
    edges = np.arange(0, 8, dtype=np.float32) / np.float32(4)
    edges = np.concatenate([edges, np.nextafter(edges, np.float32(2)), np.nextafter(edges, np.float32(-1)),
                            below.view(np.float32), np.float32([0.46875, 1e-45, 1e-30, -0.0])])
    for v in (dense, near, np.concatenate([edges, -edges]), dense[:1003]):
        out = np.empty_like(v)
        _KERNEL.erfc_float32(v, out)
        ref = np.empty(v.size)
        _KERNEL.erfc(v.astype(np.float64), ref)
        assert _bits(out).tolist() == _bits(ref.astype(np.float32)).tolist()
