"""erfinv's float32 loop (``erfinv_float32_block`` in kernels/_specialkernel.c) takes a vector path
(``erfinv_float32_central``) for a block of 64 elements that all lie where Giles' first polynomial
applies (|y| < 1, w < 6.25), and its lane-sorting path for any other block. The two are the same
operations, so the same bits: here each value is computed in a block of its own kind and again in
a block that one far, edge or NaN element sends down the sorting path, for float32 and float64
sources (the ``erfinv`` entry with a float32 destination and ``erfinv_float32``), in every layout
the op hands the kernel, and against PyTorch.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs
from hypothesis.extra import numpy as hnp

import strided
from float32_cases import UNARY_LAYOUTS
from strided.kernels import native

_KERNEL = native.special()
pytestmark = pytest.mark.skipif(_KERNEL is None or not hasattr(_KERNEL, "erfinv_float32"),
                                reason="the compiled special functions are not built")
_BLOCK = 64  # (the kernel's BLOCK)
# the far end of the central branch: w = 6.25 at |y| ~ 0.99863
_CENTRAL_EDGE = np.float32(0.9986)


def _central_values(rng: np.random.Generator, blocks: int) -> np.ndarray:
    """float32 values of the central branch: random, the zeros, tiny, subnormal, and those next to
    the branch's end."""
    x = rng.uniform(-0.9986, 0.9986, blocks * (_BLOCK - 1)).astype(np.float32)
    special = np.array([0.0, -0.0, 1e-45, -1e-45, 1.1754944e-38, 1e-30, 0.5, -0.5, _CENTRAL_EDGE, -_CENTRAL_EDGE,
                        np.nextafter(_CENTRAL_EDGE, np.float32(0))], dtype=np.float32)
    x[:special.size] = special
    return x


def _sorted_path(x: np.ndarray, spoiler: float) -> tuple[np.ndarray, np.ndarray]:
    """x laid out 63 to a block with ``spoiler`` as each block's last element (that block then
    takes the sorting path), and the mask of x's places in it."""
    blocks = x.reshape(-1, _BLOCK - 1)
    spoiled = np.concatenate([blocks, np.full((blocks.shape[0], 1), spoiler, x.dtype)], axis=1).ravel()
    mask = np.ones(spoiled.shape, bool).reshape(-1, _BLOCK)
    mask[:, -1] = False
    return spoiled, mask.ravel()


@pytest.mark.parametrize("entry", ["erfinv", "erfinv_float32"])
@pytest.mark.parametrize("source", [np.float32, np.float64])
@pytest.mark.parametrize("spoiler", [0.9999, -0.99999994, 1.0, -1.0, 2.0, np.nan])
def test_central_blocks_give_the_sorting_paths_bits(entry: str, source: type, spoiler: float) -> None:
    x = _central_values(np.random.default_rng(5), 512)
    assert np.all(np.abs(x) <= _CENTRAL_EDGE)
    fast = np.empty_like(x)
    getattr(_KERNEL, entry)(x.astype(source), fast)  # (every block central)
    spoiled, mask = _sorted_path(x, spoiler)
    slow = np.empty(spoiled.shape, np.float32)
    getattr(_KERNEL, entry)(spoiled.astype(source), slow)
    np.testing.assert_array_equal(fast.view(np.uint32), slow[mask].view(np.uint32))


@settings(max_examples=40, deadline=None)
@given(hnp.arrays(np.float32, hnp.array_shapes(min_dims=1, max_dims=1, min_side=0, max_side=300),
                  elements=hs.floats(-1.0, 1.0, width=32)),
       hs.sampled_from([0.9999, np.nan, 1.0]))
def test_any_length_and_mix(x: np.ndarray, spoiler: float) -> None:
    """Blocks of any length (a short last one) and any mix of kinds: each element as it comes out
    of a block spoiled after it (the sorting path), bit for bit."""
    out = np.empty_like(x)
    _KERNEL.erfinv_float32(x, out)
    for i in range(x.size):
        single = np.array([x[i], spoiler], np.float32)
        ref = np.empty_like(single)
        _KERNEL.erfinv_float32(single, ref)
        assert out[i:i + 1].view(np.uint32)[0] == ref[:1].view(np.uint32)[0], (x[i], out[i], ref[0])


@pytest.mark.parametrize("layout", list(UNARY_LAYOUTS))
def test_the_op_matches_pytorch_with_the_kernel_on_and_off(layout: str) -> None:
    base = np.random.default_rng(8).uniform(-0.999, 0.999, (96, 70)).astype(np.float32)
    view = UNARY_LAYOUTS[layout]
    s, t = view(strided.from_numpy(base)), view(torch.from_numpy(base))
    got, want = strided.erfinv(s), torch.erfinv(t)
    assert got.dtype == strided.float32 and got.shape == tuple(want.shape) and got.stride() == want.stride()
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=3e-7, atol=1e-30)
    with native.disabled():
        off = strided.erfinv(s)
    np.testing.assert_allclose(off.numpy(), got.numpy(), rtol=1.2e-7, atol=0)
