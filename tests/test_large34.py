"""The float32 erf and erfinv AVX-512 forms after session 34's speed work (kernels/_specialkernel.c):
erf8 evaluates one family of quarter polynomials of erf(a) / a (ERFQ_TAB) with |x| clamped below 4,
and erfinv8_fused_t's s = (f - 1) / (f + 1) comes from a refined reciprocal instead of a division.
Neither may move a bit: erf's fast form must give the scalar kernel's float32 (k_erf rounded once)
and erfinv's fast form the blocked form's, on the inputs where the new steps could go wrong (the
quarters' edges, the clamp, zeros, subnormals, NaN payloads, the central branch's edge), and the ops
must keep PyTorch's shapes, strides and values (within float32 tolerance: strided's erf is the
correctly rounded one, PyTorch's its own polynomial) on non-contiguous, expanded, 0-d and empty
tensors.
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


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).view(np.uint32)


def _near(v: np.ndarray, steps: int = 4) -> np.ndarray:
    """v and its float32 neighbours up to ``steps`` ulps either way."""
    out = [v]
    for direction in (np.float32(np.inf), np.float32(-np.inf)):
        w = v
        for _ in range(steps):
            with np.errstate(over="ignore"):
                w = np.nextafter(w, direction)
            out.append(w)
    return np.concatenate(out)


def _erf_edges() -> np.ndarray:
    quarters = np.arange(0, 17, dtype=np.float32) / np.float32(4)  # (the table's index changes here)
    clamp = np.float32(4.0 - 2.0**-20)
    special = np.array([0.0, 1e-45, 1e-40, 1.1754942e-38, 1.1754944e-38, 1e-30, 1e-8, 5.0, 40.0, 3.4028235e38,
                        np.inf], np.float32)
    pos = _near(np.concatenate([quarters, [clamp], special]))
    nans = np.array([0x7FC00000, 0xFFC00000, 0x7F800001, 0x7FC12345, 0xFFFFFFFF, 0x7FBFFFFF], np.uint32)
    return np.concatenate([pos, -pos, nans.view(np.float32)])


def _erf_fast_and_scalar(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    fast, slow = np.empty_like(x), np.empty_like(x)
    before = _KERNEL.erf_float32_form(-1)  # (the AVX-512 form where the CPU has it)
    try:
        _KERNEL.erf_float32(x, fast)
    finally:
        _KERNEL.erf_float32_form(before)
    _KERNEL.erf(x, slow)
    return fast, slow


def test_erf_fast_form_gives_the_scalar_bits_at_the_quarters_clamp_zeros_and_nans() -> None:
    x = _erf_edges()
    fast, slow = _erf_fast_and_scalar(x)
    assert _bits(fast).tolist() == _bits(slow).tolist()
    # (the signed zeros kept, infinities to +-1, NaN stays NaN)
    z, _ = _erf_fast_and_scalar(np.array([0.0, -0.0, np.inf, -np.inf, np.nan], np.float32))
    assert _bits(z[:2]).tolist() == [0, 0x80000000]
    assert z[2:4].tolist() == [1.0, -1.0] and np.isnan(z[4])


def test_erf_fast_form_gives_the_scalar_bits_on_dense_data_and_near_rounding_boundaries() -> None:
    rng = np.random.default_rng(34)
    dense = rng.uniform(-4.2, 4.2, 1 << 20).astype(np.float32)
    x64 = np.empty(dense.size)
    _KERNEL.erf(dense.astype(np.float64), x64)
    up = x64.astype(np.float32).astype(np.float64)
    near = dense[np.abs(x64 - up) > 0.45 * np.abs(np.spacing(up.astype(np.float32)).astype(np.float64))]
    assert near.size > 1000  # (results within 5% of an ulp of a float32 rounding boundary)
    patterns = rng.integers(0, 2**32, 1 << 18, dtype=np.uint64).astype(np.uint32).view(np.float32)
    for x in (dense, near, patterns, dense[:13]):
        fast, slow = _erf_fast_and_scalar(x)
        assert _bits(fast).tolist() == _bits(slow).tolist()


@settings(max_examples=40, deadline=None)
@given(hnp.arrays(np.float32, hs.integers(0, 300), elements=hs.floats(width=32, allow_nan=True)))
def test_erf_fast_form_any_length_and_value(x: np.ndarray) -> None:
    fast, slow = _erf_fast_and_scalar(x)
    assert _bits(fast).tolist() == _bits(slow).tolist()


def _erfinv_both(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    fast, blocked = np.empty_like(y), np.empty_like(y)
    before = _KERNEL.erf_float32_form(-1)
    try:
        _KERNEL.erfinv_float32(y, fast)
        _KERNEL.erf_float32_form(0)
        _KERNEL.erfinv_float32(y, blocked)
    finally:
        _KERNEL.erf_float32_form(before)
    return fast, blocked


def test_erfinv_fast_form_gives_the_blocked_bits() -> None:
    """erfinv8_fused's reciprocal steps: dense (-1, 1) data, the central branch's edge (|y| ~0.9986,
    where v = exp(-6.25)), v's split points (v near 2^k sqrt(1/2)), tiny y, +-1, NaN; lengths that
    leave partial groups of 64, 32 and 8."""
    rng = np.random.default_rng(3434)
    dense = rng.uniform(-1, 1, 1 << 20).astype(np.float32)
    # (|y| near 1 in about one element of 14: most groups of 8 mix central lanes with others, which
    # take the blocked form alone; NaN and +-1 among them)
    near_one = np.tanh(2 * rng.standard_normal(1 << 18)).astype(np.float32)
    near_one[::977] = np.nan
    near_one[5::1013] = 1.0
    near_one[7::1019] = -1.0
    edge = _near(np.float32([np.sqrt(1 - np.exp(-6.25))]), 64)
    splits = _near(np.sqrt(1 - np.sqrt(0.5) * 2.0 ** -np.arange(0, 20)).astype(np.float32), 8)
    small = np.float32([0.0, 1e-45, 1e-30, 2.0**-29, 2.0**-28, 1e-4, 0.5, 0.9, 1.0, np.nan, np.inf])
    special = np.concatenate([edge, splits, small])
    patterns = rng.integers(0, 2**32, 1 << 18, dtype=np.uint64).astype(np.uint32).view(np.float32)  # (|y| > 1, NaN)
    for y in (dense, near_one, np.concatenate([special, -special]), dense[:101], near_one[:77], dense[:5], patterns):
        fast, blocked = _erfinv_both(y)
        assert _bits(fast).tolist() == _bits(blocked).tolist()


@pytest.mark.parametrize("name", ["erf", "erfinv"])
@pytest.mark.parametrize("layout", ["transposed", "stepped", "expanded", "0-d", "empty"])
def test_the_ops_keep_pytorchs_layout_and_values(name: str, layout: str) -> None:
    rng = np.random.default_rng(7)
    base = rng.uniform(-0.99, 0.99, (40, 24)).astype(np.float32)
    if layout == "0-d":
        s, t = strided.tensor(0.375, dtype=strided.float32), torch.tensor(0.375, dtype=torch.float32)
    elif layout == "empty":
        s, t = strided.from_numpy(base[:0]).T, torch.from_numpy(base[:0]).T
    else:
        view = {"transposed": lambda a: a.T, "stepped": lambda a: a[::3, 1::2],
                "expanded": lambda a: a[:1].expand(5, 24)}[layout]
        s, t = view(strided.from_numpy(base)), view(torch.from_numpy(base))
    got, want = getattr(strided, name)(s), getattr(torch, name)(t)
    assert got.shape == tuple(want.shape) and got.stride() == want.stride() and got.dtype == strided.float32
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=3e-6, atol=1e-7)
    x = np.ascontiguousarray(np.broadcast_to(s.numpy(), got.shape)).reshape(-1)
    ref = np.empty_like(x)  # (strided's bits: its scalar kernel's float32, the blocked form's for erfinv)
    before = _KERNEL.erf_float32_form(0)
    try:
        getattr(_KERNEL, "erf" if name == "erf" else "erfinv_float32")(x, ref)
    finally:
        _KERNEL.erf_float32_form(before)
    assert _bits(got.numpy().reshape(-1)).tolist() == _bits(ref).tolist()
