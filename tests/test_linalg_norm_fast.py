"""``linalg.norm``'s vector 2-norm fast path (ord and dtype not given, dim None or an int, a
plain tensor, nobody listening): the bits of ``vector_norm``'s (strided's own general call) and of
PyTorch's where they match, the result's history and the errors unchanged."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided

_CASES = [((3, 4), None), ((3, 4), 1), ((3, 4), -1), ((3, 4), 0), ((16, 16), None), ((16, 16), -1),
          ((2, 3, 5), 2), ((2, 3, 5), None), ((7,), 0), ((), None), ((1, 1), -1), ((0, 3), 1)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(("shape", "dim"), _CASES)
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("transposed", [False, True])
def test_matches_vector_norm_and_torch(dtype: str, shape: tuple, dim: int | None, keepdim: bool,
                                       transposed: bool) -> None:
    rng = np.random.default_rng(hash((shape, dim)) % 2**32)
    data = (rng.standard_normal(shape) * 3).astype(dtype)
    x = strided.tensor(data)
    tx = torch.tensor(data)
    if transposed and len(shape) >= 2:
        x, tx = x.transpose(0, -1), tx.transpose(0, -1)
    got = strided.linalg.norm(x, dim=dim, keepdim=keepdim)
    ref = strided.linalg.vector_norm(x, 2, None if dim is None else (dim,), keepdim)
    want = torch.linalg.norm(tx, dim=dim, keepdim=keepdim)
    assert got.shape == tuple(want.shape) and got.dtype is ref.dtype and got.is_contiguous()
    assert got.numpy().tobytes() == ref.numpy().tobytes()
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=2e-6 if dtype == "float32" else 1e-14)
    assert not got.requires_grad and got.grad_fn is None


def test_torch_bits_on_rows() -> None:
    data = np.random.default_rng(3).standard_normal((16, 16)).astype(np.float32)
    for dim in (None, -1):
        got = strided.linalg.norm(strided.tensor(data), dim=dim)
        want = torch.linalg.norm(torch.tensor(data), dim=dim)
        assert got.numpy().tobytes() == want.numpy().tobytes()


def test_requires_grad_keeps_history() -> None:
    data = np.random.default_rng(5).standard_normal((3, 4))
    x = strided.tensor(data, requires_grad=True)
    tx = torch.tensor(data, requires_grad=True)
    for dim in (None, 1):
        y, ty = strided.linalg.norm(x, dim=dim), torch.linalg.norm(tx, dim=dim)
        assert y.requires_grad and y.grad_fn.name() == ty.grad_fn.name()
        y.sum().backward()
        ty.sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12)
    with strided.no_grad():
        assert not strided.linalg.norm(x).requires_grad


def test_errors_unchanged() -> None:
    x = strided.ones(3, 4)
    with pytest.raises(IndexError) as e:
        strided.linalg.norm(x, dim=5)
    with pytest.raises(IndexError) as t:
        torch.linalg.norm(torch.ones(3, 4), dim=5)
    assert str(e.value).splitlines()[0] == str(t.value).splitlines()[0]
    with pytest.raises(RuntimeError) as e:
        strided.linalg.norm(strided.ones(3, dtype=strided.int64))
    with pytest.raises(RuntimeError) as t:
        torch.linalg.norm(torch.ones(3, dtype=torch.int64))
    assert str(e.value).splitlines()[0] == str(t.value).splitlines()[0]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("view", ["whole", "offset", "transposed", "one", "empty", "zero_d"])
def test_vector_norm_whole_run_bits(dtype: str, view: str) -> None:
    """vector_norm's (and dist's) whole-tensor 2-norm of a row-major run, at an offset too: PyTorch's
    bits, and those of the general path (dtype= given takes it)."""
    data = (np.random.default_rng(11).standard_normal((6, 7)) * 5).astype(dtype)
    x, tx = strided.tensor(data), torch.tensor(data)
    pick = {"whole": lambda t: t, "offset": lambda t: t[2:], "transposed": lambda t: t.t(),
            "one": lambda t: t[1:2, 3:4], "empty": lambda t: t[:0], "zero_d": lambda t: t[1, 1]}[view]
    x, tx = pick(x), pick(tx)
    got = strided.linalg.vector_norm(x)
    want = torch.linalg.vector_norm(tx)
    general = strided.linalg.vector_norm(x, dtype=x.dtype)
    assert got.shape == () and got.dtype is x.dtype and not got.requires_grad
    assert got.numpy().tobytes() == want.numpy().tobytes()
    assert got.numpy().tobytes() == general.numpy().tobytes()
    kept = strided.linalg.vector_norm(x, keepdim=True)
    assert kept.shape == tuple(torch.linalg.vector_norm(tx, keepdim=True).shape)
    assert kept.numpy().tobytes() == got.numpy().tobytes()
