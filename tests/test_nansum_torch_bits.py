"""nansum and nanmean give PyTorch's bits (its sum's cascade with each NaN read as 0; the mean
that nansum divided by the count) on every layout and size, NaN or not, and nansum of a tensor
without a NaN is its sum, as in PyTorch. Before: NumPy's pairwise sums (the last bits differed
from PyTorch's at most sizes, and ``x.nansum() != x.sum()`` for a tensor without a NaN)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided as S
from strided.kernels import native
from strided.layout import Layout


def _same(s: S.Tensor, t: torch.Tensor) -> None:
    a, b = s.numpy(), t.numpy()
    assert a.shape == b.shape and a.dtype == b.dtype
    assert a.tobytes() == b.tobytes(), (a, b)


def _data(n: int, dtype: type, rng: np.random.Generator, nan: float) -> np.ndarray:
    d = (rng.standard_normal(n) * 3).astype(dtype)
    d[rng.random(n) < nan] = np.nan
    d[rng.random(n) < 0.02] = -0.0
    return d


def _cstrides(shape: tuple[int, ...]) -> tuple[int, ...]:
    out, acc = [], 1
    for s in reversed(shape):
        out.append(acc)
        acc *= max(s, 1)
    return tuple(reversed(out))


def _layouts(shape: tuple[int, ...]) -> list[tuple[str, int, tuple[int, ...], int]]:
    """(name, storage size, strides, offset): row-major, reversed dims, the last dim stepped by 2,
    the first dim expanded (stride 0), an offset."""
    n = int(np.prod(shape))
    nd = len(shape)
    rev = _cstrides(tuple(reversed(shape)))[::-1]
    step = list(_cstrides(shape[:-1] + (shape[-1] * 2,)))
    step[-1] = 2
    out = [("rowmajor", n, _cstrides(shape), 0), ("reversed", n, rev, 0), ("stepped", 2 * n + 2, tuple(step), 0),
           ("offset", n + 3, _cstrides(shape), 3)]
    if nd >= 2:
        out.append(("expanded", n, (0,) + _cstrides(shape)[1:], 0))
    return out


SHAPES = [(1,), (3,), (7,), (17,), (4097,), (3, 4), (16, 16), (33, 129), (3, 100, 5), (5000, 1), (1, 5000)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("nan", [0.0, 0.05])
def test_nansum_and_nanmean_are_pytorchs(dtype: type, shape: tuple[int, ...], nan: float) -> None:
    rng = np.random.default_rng(len(shape) * 1000 + shape[-1])
    for _name, size, strides, offset in _layouts(shape):
        buf = _data(size, dtype, rng, nan)
        t = torch.from_numpy(buf).as_strided(shape, strides, offset)
        s = S.from_numpy(buf)._view(Layout(shape, strides, offset))
        for dim in [None, *range(len(shape)), -1]:
            for keepdim in (False, True):
                if dim is None and keepdim:
                    continue
                args = () if dim is None else (dim,)
                kw = {} if dim is None else {"keepdim": keepdim}
                _same(s.nansum(*args, **kw), t.nansum(*args, **kw))
                _same(s.nanmean(*args, **kw), t.nanmean(*args, **kw))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nansum_with_a_dtype_and_out_and_dim_tuples(dtype: type) -> None:
    rng = np.random.default_rng(3)
    a = _data(6 * 7 * 9, dtype, rng, 0.05).reshape(6, 7, 9)
    s, t = S.from_numpy(a), torch.from_numpy(a)
    _same(s.nansum((0, 2)), t.nansum((0, 2)))
    _same(s.nanmean((0, 2), keepdim=True), t.nanmean((0, 2), keepdim=True))
    _same(s.nansum(1, dtype=S.float64), t.nansum(1, dtype=torch.float64))
    _same(s.permute(2, 0, 1).nansum(1), t.permute(2, 0, 1).nansum(1))
    o, ot = S.empty(6, 9, dtype=s.dtype), torch.empty(6, 9, dtype=t.dtype)
    S.nansum(s, 1, out=o)
    torch.nansum(t, 1, out=ot)
    _same(o, ot)


def test_nansum_without_a_nan_is_the_sum_and_specials_are_pytorchs() -> None:
    rng = np.random.default_rng(4)
    a = (rng.standard_normal((16, 40)) * 3).astype(np.float32)
    s = S.from_numpy(a)
    assert s.nansum(1).numpy().tobytes() == s.sum(1).numpy().tobytes()
    assert s.nanmean(0).numpy().tobytes() == s.mean(0).numpy().tobytes()
    specials = np.float32([np.nan, np.inf, -np.inf, 1.0, np.nan, -0.0, 2.0, np.nan, 3.0, np.inf] * 5).reshape(5, 10)
    for x in (specials, specials.T.copy(), np.full((4, 9), np.nan, np.float32), np.full((2, 3), -0.0, np.float32)):
        s, t = S.from_numpy(x), torch.from_numpy(x)
        for dim in (None, 0, 1):
            args = () if dim is None else (dim,)
            _same(s.nansum(*args), t.nansum(*args))
            _same(s.nanmean(*args), t.nanmean(*args))


def test_the_numpy_loops_give_the_same_bits_as_the_kernel() -> None:
    rng = np.random.default_rng(5)
    a = _data(33 * 129, np.float32, rng, 0.05).reshape(33, 129)
    s = S.from_numpy(a)
    kernel = [s.nansum(), s.nansum(0), s.t().nansum(1)]
    with native.disabled():
        loops = [s.nansum(), s.nansum(0), s.t().nansum(1)]
    for k, n in zip(kernel, loops):
        assert k.numpy().tobytes() == n.numpy().tobytes()
