"""amax / amin / aminmax of small row-major float tensors by one call of the compiled row kernel
(:func:`strided.ops._support.fast_reduce.sure_extreme`): the same bits as PyTorch, zeros' signs and
NaN included (those rows fall back), and the kernel's ``length`` argument."""

import numpy as np
import pytest
import torch

import strided
from strided.kernels import rows


def _cases():
    rng = np.random.default_rng(7)
    for shape in [(3, 4), (16, 16), (5,), (2, 3, 4), (1, 1)]:
        for dtype in (np.float32, np.float64):
            a = rng.standard_normal(shape).astype(dtype)
            yield a
            b = a.copy()
            b.flat[0] = -0.0  # (a zero may be the extreme: the fallback's signs)
            b.flat[-1] = 0.0
            yield np.abs(b)
            c = a.copy()
            c.flat[len(c.flat) // 2] = np.nan
            yield c


def _same(g, w):
    """Equal values with the same zero signs; NaN where PyTorch has NaN (its payload is not
    compared: where PyTorch's loops make 0xffffffff, strided's fallback gives NumPy's, as on main)."""
    assert np.array_equal(g, w, equal_nan=True)
    assert (np.signbit(g) == np.signbit(w))[~np.isnan(w)].all()
    if not np.isnan(w).any():
        assert g.tobytes() == w.tobytes()


@pytest.mark.parametrize("a", list(_cases()), ids=lambda a: f"{a.shape}-{a.dtype}")
@pytest.mark.parametrize("dim", [None, -1, 0])
@pytest.mark.parametrize("keepdim", [False, True])
def test_bits_match_torch(a, dim, keepdim):
    s, t = strided.from_numpy(a), torch.from_numpy(a)
    for op in ("amax", "amin"):
        if dim is None:
            got, want = getattr(strided, op)(s, keepdim=keepdim), getattr(torch, op)(t, (), keepdim)
        else:
            got, want = getattr(strided, op)(s, dim, keepdim), getattr(torch, op)(t, dim, keepdim)
        assert got.shape == tuple(want.shape) and got.stride() == want.stride()
        _same(got.numpy(), want.numpy())
    got, want = strided.aminmax(s, dim=dim, keepdim=keepdim), torch.aminmax(t, dim=dim, keepdim=keepdim)
    for g, w in zip(got, want):
        assert g.shape == tuple(w.shape) and g.stride() == w.stride()
        _same(g.numpy(), w.numpy())
    assert type(got).__name__ == "aminmax" and got.min is got[0]


def test_kernel_rows_and_refusals():
    k = rows.extreme_all()
    if k is None:
        pytest.skip("row kernel not built")
    x = np.array([3.0, -1.0, 2.0, 5.0, 4.0, 6.0], dtype=np.float32)
    out = np.empty(2, np.float32)
    assert k(x, out, 1, 3) == 0 and out.tolist() == [3.0, 6.0]
    assert k(x, out, 0, 3) == 0 and out.tolist() == [-1.0, 4.0]
    both = np.empty(4, np.float32)
    assert k(x, both, 2, 3) == 0 and both.tolist() == [-1.0, 4.0, 3.0, 6.0]
    assert k(x, out, 1, 4) == -1  # (a length that does not divide the run: not taken)
    assert k(x, np.empty(1, np.float32), 1, 3) == -1  # (out too small)
    assert k(np.array([0.0, 1.0, -2.0, 0.0]), np.empty(2), 1, 2) == 1  # (a zero: the caller recomputes)
    assert k(x, out, 1) == 0 and out[0] == 6.0  # (no length: one row, as before)
    with pytest.raises(ValueError):
        k(x, out, 1, 0)
    with pytest.raises(ValueError):
        k(x, out, 3, 3)
