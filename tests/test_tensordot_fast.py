"""tensordot(a, b, dims=1) of two matrices: the fast path (the compiled mm of the operands, then
the general path's reshape) must give the general path's result -- bits, shape, strides, dtype,
the result a view of the product -- for every layout, PyTorch's values, and leave autograd,
watched calls and other calls to the general path."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided as st
from strided.ops.linalg import matkernel, products


def _views(a: np.ndarray, dtype) -> list:
    """Tensors holding ``a`` (m, n): row-major, column-major, offset into a larger one, stepped."""
    m, n = a.shape
    big, wide = np.zeros((m + 2, n + 3)), np.zeros((m, 2 * n))
    big[1:m + 1, 3:], wide[:, ::2] = a, a
    return [st.tensor(a, dtype=dtype), st.tensor(a.T.copy(), dtype=dtype).mT,
            st.tensor(big, dtype=dtype)[1:m + 1, 3:], st.tensor(wide, dtype=dtype)[:, ::2]]


@pytest.mark.parametrize("dtype", [st.float32, st.float64])
def test_tensordot_of_matrices_is_the_general_paths_and_torchs(dtype, monkeypatch):
    rng = np.random.default_rng(31)
    tdt = torch.float32 if dtype == st.float32 else torch.float64
    taken = []
    fast = products._fast_tensordot
    monkeypatch.setattr(products, "_fast_tensordot", lambda a, b: (r := fast(a, b)) is not None and taken.append(1) or r)
    for m, n, p in [(3, 4, 3), (16, 16, 16), (2, 5, 7), (1, 4, 3), (4, 1, 3), (3, 4, 1), (40, 30, 20)]:
        a, b = rng.standard_normal((m, n)), rng.standard_normal((n, p))
        a[0, 0], b[-1, -1] = np.nan, -0.0
        for x in _views(a, dtype):
            for y in _views(b, dtype):
                got = st.tensordot(x, y, dims=1)
                with monkeypatch.context() as patch:
                    patch.setattr(products, "_fast_tensordot", lambda a, b: None)
                    want = st.tensordot(x, y, dims=1)
                assert got.dtype == want.dtype and got.shape == want.shape and got.stride() == want.stride()
                assert got.numpy().tobytes() == want.numpy().tobytes()
                assert (got._base is None) == (want._base is None)
        theirs = torch.tensordot(torch.tensor(a, dtype=tdt), torch.tensor(b, dtype=tdt), dims=1)
        ours = st.tensordot(st.tensor(a, dtype=dtype), st.tensor(b, dtype=dtype), dims=1)
        assert ours.shape == tuple(theirs.shape) and ours.stride() == theirs.stride()
        tol = 1e-4 if dtype == st.float32 else 1e-12
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=tol, atol=tol)
    assert len(taken) > 30 or not matkernel.ready()


def test_other_tensordot_calls_take_the_general_path(monkeypatch):
    called = []
    monkeypatch.setattr(products, "_fast_tensordot", lambda a, b: called.append(1))
    a, b = st.ones(3, 4), st.ones(4, 2)
    st.tensordot(a, b, dims=([1], [0]))
    st.tensordot(st.ones(2, 3, 4), st.ones(4, 2), dims=1)
    st.tensordot(a, b, dims=1, out=st.empty(3, 2))
    assert called == [1]  # (the 3-D one reaches the fast path and is declined there)
    monkeypatch.undo()
    x = st.ones(3, 4, requires_grad=True)
    y = st.tensordot(x, b, dims=1)
    assert y.grad_fn is not None
    y.sum().backward()
    assert x.grad.tolist() == [[2.0] * 4] * 3
    with pytest.raises(RuntimeError, match="contracted dimensions need to match"):
        st.tensordot(a, st.ones(3, 2), dims=1)
    with pytest.raises(RuntimeError, match="same dtype"):
        st.tensordot(a, b.double(), dims=1)
