"""The small row-major fast paths of prod / nansum / count_nonzero / cumsum / trace against
PyTorch, bit for bit (zeros' signs, NaN, inf), over the shapes and dims they take and those they
hand to the general path."""

import numpy as np
import pytest
import torch

import strided

SHAPES = [(1,), (5,), (3, 4), (16, 16), (2, 31), (2, 32), (3, 33), (17,), (4, 5, 40), (1, 1), (70, 3)]


def _samples(dt):
    rng = np.random.default_rng(7)
    for shp in SHAPES:
        for trial in range(8):
            a = (rng.standard_normal(shp) * (1, 3, 30, 0.5)[trial % 4]).astype(dt)
            m = rng.random(shp)
            if trial % 3 == 1:
                a[m < 0.15] = 0.0
                a[m > 0.85] = -0.0
            if trial % 4 == 2:
                a[m < 0.1] = np.nan
            if trial % 4 == 3:
                a[m < 0.1] = np.inf
                a[m > 0.93] = -np.inf
            yield a


def _same(r, e):
    rn, en = r.numpy(), e.numpy()
    assert rn.shape == en.shape and rn.dtype == en.dtype
    assert rn.tobytes() == en.tobytes(), (rn, en)


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_prod_row_major_bits(dt):
    for a in _samples(dt):
        s, t = strided.from_numpy(a), torch.from_numpy(a)
        _same(s.prod(), t.prod())
        for dim in (-1, a.ndim - 1, 0):
            for kd in (False, True):
                _same(s.prod(dim, keepdim=kd), t.prod(dim, keepdim=kd))


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_nansum_small_rows_are_pytorchs(dt):
    # (the small fast path is the sum's compiled cascade reading each NaN as 0: PyTorch's bits)
    cases = list(_samples(dt)) + [np.full((3, 4), -0.0, dt)]
    for a in cases:
        s, t = strided.from_numpy(a), torch.from_numpy(a)
        for dim in (None, -1, 0):
            for kd in (False, True):
                if dim is None:
                    _same(strided.nansum(s), torch.nansum(t))
                else:
                    _same(strided.nansum(s, dim, keepdim=kd), torch.nansum(t, dim, keepdim=kd))


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_count_nonzero_small_views(dt):
    """Every element counted once, for a tensor that is its storage and for views that are not
    (an offset, a transpose, a step), as PyTorch counts them."""
    for a in _samples(dt):
        s, t = strided.from_numpy(a), torch.from_numpy(a)
        views = [(s, t)]
        if a.ndim == 2 and a.shape[0] > 1:
            views += [(s[1:], t[1:]), (s.T, t.T), (s[:, ::2], t[:, ::2])]
        for sv, tv in views:
            _same(strided.count_nonzero(sv), torch.count_nonzero(tv))
            _same(strided.count_nonzero(sv, -1), torch.count_nonzero(tv, -1))


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_trace_small_bits(dt):
    """The trace's double sum written into the result: overflow past float32 (inf, no warning),
    subnormals, -0.0 diagonals, NaN and inf, as PyTorch's."""
    import warnings

    cases = [a for a in _samples(dt) if a.ndim == 2]
    big = np.full((3, 4), 3e38, dt)
    cases += [big, -big, np.full((3, 3), 1e-39 if dt == np.float32 else 1e-310, dt), np.full((2, 2), -0.0, dt)]
    for a in cases:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            _same(strided.trace(strided.from_numpy(a)), torch.trace(torch.from_numpy(a)))
