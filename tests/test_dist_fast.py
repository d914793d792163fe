"""``dist``'s p = 2 fast path (two plain row-major float32/float64 tensors of one dtype and shape):
the bits of the general path (``vector_norm(a - b)``) and of PyTorch's, the result's history, and
every other call (broadcast, promotion, grads, one element, errors) left to the general path."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided
from strided.ops.linalg.distance import _fast_dist
from strided.ops.linalg.norms import vector_norm


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(3, 4), (16, 16), (2,), (37,), (5, 3, 7), (1, 9)])
def test_bits_of_general_path_and_torch(dtype: str, shape: tuple) -> None:
    rng = np.random.default_rng(len(shape) * 100 + shape[-1])
    a = (rng.standard_normal(shape) * 10).astype(dtype)
    b = rng.standard_normal(shape).astype(dtype)
    if shape == (37,):
        a[3], b[5] = np.inf, -np.inf
    x, y = strided.tensor(a), strided.tensor(b)
    assert _fast_dist(x, y) is not None  # (the path under test is taken)
    got = strided.dist(x, y)
    general = vector_norm(x - y, 2)
    want = torch.dist(torch.tensor(a), torch.tensor(b))
    assert got.shape == () and got.dtype is x.dtype and not got.requires_grad and got.grad_fn is None
    assert got.numpy().tobytes() == general.numpy().tobytes()
    assert got.numpy().tobytes() == want.numpy().tobytes()
    assert x.dist(y).numpy().tobytes() == got.numpy().tobytes()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(16, 16), (37, 5), (5, 3, 7)])
def test_transposed_pairs_bits_of_general_path_and_torch(dtype: str, shape: tuple) -> None:
    """Two permuted dense tensors of one layout: their runs in memory order, the bits of the
    general path's difference (laid out as they are) and its norm, and of PyTorch's."""
    rng = np.random.default_rng(shape[0])
    a = (rng.standard_normal(shape) * 10).astype(dtype)
    b = rng.standard_normal(shape).astype(dtype)
    perm = tuple(reversed(range(len(shape))))
    x, y = (strided.tensor(v.transpose(perm).copy()).permute(*perm) for v in (a, b))
    tx, ty = (torch.from_numpy(v.transpose(perm).copy()).permute(*perm) for v in (a, b))
    assert _fast_dist(x, y) is not None
    got = strided.dist(x, y)
    assert got.numpy().tobytes() == vector_norm(x - y, 2).numpy().tobytes()
    assert got.numpy().tobytes() == torch.dist(tx, ty).numpy().tobytes()
    assert _fast_dist(x, y.contiguous()) is None  # (two layouts: the general path)


def test_other_calls_take_the_general_path() -> None:
    x = strided.ones(3, 4)
    assert _fast_dist(x, strided.ones(4)) is None  # broadcast
    assert _fast_dist(x, strided.ones(3, 4, dtype=strided.float64)) is None  # promotion
    assert _fast_dist(x.t(), strided.ones(4, 3)) is None  # not row-major
    assert _fast_dist(strided.ones(1), strided.zeros(1)) is None  # one element
    data = np.arange(12.0).reshape(3, 4)
    t = torch.dist(torch.tensor(data), torch.ones(4, dtype=torch.float32))
    s = strided.dist(strided.tensor(data), strided.ones(4))
    assert s.dtype is strided.float64 and s.numpy().tobytes() == t.numpy().tobytes()


def test_grad_keeps_history() -> None:
    data = np.random.default_rng(2).standard_normal((2, 3, 4))
    for which in (0, 1):
        xs = [strided.tensor(data[0]), strided.tensor(data[1])]
        ts = [torch.tensor(data[0]), torch.tensor(data[1])]
        xs[which].requires_grad_()
        ts[which].requires_grad_()
        y, ty = strided.dist(*xs), torch.dist(*ts)
        # (Note: strided's node is LinalgVectorNormBackward0, PyTorch's DistBackward0: the general
        # path's, unchanged by the fast path, which a tensor that requires grad does not take)
        assert y.requires_grad and ty.requires_grad and y.grad_fn is not None
        y.backward()
        ty.backward()
        np.testing.assert_allclose(xs[which].grad.numpy(), ts[which].grad.numpy(), rtol=1e-12)


def test_errors_unchanged() -> None:
    with pytest.raises(TypeError) as e:
        strided.dist([1.0, 2.0], strided.ones(2))
    with pytest.raises(TypeError) as t:
        torch.dist([1.0, 2.0], torch.ones(2))
    assert str(e.value).splitlines()[0] == str(t.value).splitlines()[0]
    with pytest.raises(RuntimeError) as e:
        strided.dist(strided.ones(3, 4), strided.ones(2, 4))
    with pytest.raises(RuntimeError) as t:
        torch.dist(torch.ones(3, 4), torch.ones(2, 4))
    assert str(e.value).splitlines()[0] == str(t.value).splitlines()[0]
