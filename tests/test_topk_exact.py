"""topk picks PyTorch's positions among equal values at every size (the compiled ``stl_topk_exact``).

PyTorch's CPU topk runs libstdc++'s partial_sort (k * 64 <= n) or nth_element and sort over
(value, position) pairs; neither is stable, so with ties, -0.0 and 0.0 or several NaN which
positions come back (and so where topk's gradient lands) is what those steps leave. Before, strided
reproduced them only on tensors up to 4096 elements; these tests build large tied tensors and
compare values, indices and gradients with PyTorch's, on both sides of the partial_sort threshold.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st_

import strided
from strided.kernels import native

pytestmark = pytest.mark.skipif(native.special() is None, reason="the special kernel is not built")


def _tied(rng: np.random.Generator, shape: tuple[int, ...], dtype: type, levels: int, specials: bool) -> np.ndarray:
    a = rng.integers(0, levels, shape).astype(dtype)
    if specials and np.dtype(dtype).kind == "f":
        a[rng.random(shape) < 0.1] = np.nan
        a[rng.random(shape) < 0.2] = -0.0
        a[rng.random(shape) < 0.1] = 0.0
    return a


def _both(a: np.ndarray, k: int, dim: int, largest: bool) -> tuple:
    ours = strided.topk(strided.from_numpy(a), k, dim=dim, largest=largest)
    theirs = torch.topk(torch.from_numpy(a), k, dim=dim, largest=largest)
    return ours, theirs


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
@pytest.mark.parametrize("k", [1, 2, 16, 17, 100])
def test_large_tied_rows_match_pytorch(dtype: type, k: int) -> None:
    rng = np.random.default_rng(k)
    for levels, specials in ((3, False), (50, True), (1000, False)):
        a = _tied(rng, (64, 1100), dtype, levels, specials)  # (70,400 elements: past the old 4096 limit)
        for largest in (True, False):
            (v, i), (tv, ti) = _both(a, k, -1, largest)
            assert np.array_equal(i.numpy(), ti.numpy())
            assert v.numpy().tobytes() == tv.numpy().tobytes()
            assert v.stride() == tv.stride() and i.stride() == ti.stride()


@pytest.mark.parametrize("layout", ["transposed", "dim0", "sliced", "3d"])
def test_layouts_match_pytorch(layout: str) -> None:
    rng = np.random.default_rng(3)
    a = _tied(rng, (300, 200), np.float32, 7, True)
    if layout == "transposed":
        a, dim = a.T, -1
    elif layout == "dim0":
        dim = 0
    elif layout == "sliced":
        a, dim = a[::2, 5:150], 1
    else:
        a, dim = a.reshape(6, 50, 200), 1
    for k in (1, 3, 40):
        (v, i), (tv, ti) = _both(a, k, dim, True)
        assert np.array_equal(i.numpy(), ti.numpy())
        assert v.numpy().tobytes() == tv.numpy().tobytes()
        assert i.shape == tuple(ti.shape) and i.stride() == ti.stride()


@settings(max_examples=60, deadline=None)
@given(rows=st_.integers(1, 6), n=st_.integers(2, 700), seed=st_.integers(0, 2**32 - 1),
       dtype=st_.sampled_from([np.float32, np.float64, np.int64]), largest=st_.booleans(),
       levels=st_.sampled_from([1, 2, 5, 100]))
def test_any_size_matches_pytorch(rows: int, n: int, seed: int, dtype: type, largest: bool, levels: int) -> None:
    rng = np.random.default_rng(seed)
    a = _tied(rng, (rows, n), dtype, levels, specials=True)
    k = int(rng.integers(1, n))
    (v, i), (tv, ti) = _both(a, k, -1, largest)
    assert np.array_equal(i.numpy(), ti.numpy())
    assert v.numpy().tobytes() == tv.numpy().tobytes()


def test_gradient_lands_where_pytorch_puts_it() -> None:
    rng = np.random.default_rng(9)
    a = _tied(rng, (40, 2000), np.float64, 4, False)
    x = strided.from_numpy(a.copy()).requires_grad_()
    tx = torch.from_numpy(a.copy()).requires_grad_()
    strided.topk(x, 3).values.sum().backward()
    torch.topk(tx, 3).values.sum().backward()
    assert np.array_equal(x.grad.numpy(), tx.grad.numpy())


def test_kernel_rejects_bad_arguments() -> None:
    kernel = native.special()
    x = np.zeros(10, np.float32)
    with pytest.raises(TypeError, match="stl_topk_exact.*6 arguments"):
        kernel.stl_topk_exact(x, x, x)
    with pytest.raises(ValueError, match="stl_topk_exact: x must be"):
        kernel.stl_topk_exact(x, np.zeros(2, np.int64), np.zeros(2, np.float32), 5, 5, 1)  # (k == n)
    idx = np.zeros(2, np.int64)
    assert kernel.stl_topk_exact(x, idx, x[:2], 5, 1, 1) is False  # (values overlap x)
