"""Last bits of gradients and complex kernels against PyTorch (session 29): each case drawn
from a seeded generator, compared bit for bit (signs of zero included) with torch's own."""

from __future__ import annotations

import numpy as np
import pytest

import strided

torch = pytest.importorskip("torch")

_COMPLEX = (np.complex64, np.complex128)


def _draw(rng: np.random.Generator, shape: tuple, dtype: type) -> np.ndarray:
    a = rng.standard_normal(shape)
    if dtype in _COMPLEX:
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


def _bits(a: np.ndarray) -> bytes:
    return np.ascontiguousarray(a).tobytes()


def _grads(op, x: np.ndarray, g: np.ndarray, transpose: bool) -> list:
    """The gradient of ``op(t)`` for ``g`` in torch and in strided, as arrays."""
    found = []
    for lib in (torch, strided):
        t = lib.from_numpy(x.copy())
        if transpose:
            t = t.transpose(0, -1)
        t.requires_grad_(True)
        op(t).backward(lib.from_numpy(g.copy()))
        found.append(t.grad.numpy())
    return found


@pytest.mark.parametrize("seed", range(4))
def test_cumprod_gradient_is_torchs_bits(seed):
    """PyTorch's cumprod_backward: conj(out) * g, its reversed running sum, divided by conj(x)
    (complex quotients rounded by their places in the loop), and its masks where a line holds a
    zero. strided's earlier NumPy formula differed in ~150 of 300 drawn cases (ulps)."""
    rng = np.random.default_rng(2900 + seed)
    for _ in range(60):
        nd = int(rng.integers(1, 4))
        shape = tuple(int(s) for s in rng.integers(1, 12, nd))
        dtype = (np.complex64, np.complex128, np.float32, np.float64)[int(rng.integers(0, 4))]
        x = _draw(rng, shape, dtype)
        if rng.random() < 0.3:
            x.flat[rng.integers(0, x.size, max(1, x.size // 8))] = 0
        transpose = nd > 1 and rng.random() < 0.3
        g = _draw(rng, shape[::-1] if transpose else shape, dtype)
        d = int(rng.integers(0, nd))
        want, got = _grads(lambda t, d=d: t.cumprod(d), x, g, transpose)
        assert got.shape == want.shape and _bits(got) == _bits(want), (shape, dtype, d, transpose)


def test_cumprod_second_derivative_is_torchs_bits():
    """create_graph without zeros: the same recorded steps, so the second derivative too."""
    rng = np.random.default_rng(29)
    for i in range(24):
        dtype = (np.complex64, np.complex128, np.float32, np.float64)[i % 4]
        shape = (int(rng.integers(2, 6)), int(rng.integers(2, 7)))
        x, g = _draw(rng, shape, dtype), _draw(rng, shape, dtype)
        found = []
        for lib in (torch, strided):
            t = lib.from_numpy(x.copy()).requires_grad_(True)
            (gx,) = lib.autograd.grad(t.cumprod(1), t, lib.from_numpy(g.copy()), create_graph=True)
            (gg,) = lib.autograd.grad(gx.abs().sum(), t)
            found.append((_bits(gx.detach().numpy()), _bits(gg.numpy())))
        assert found[0] == found[1], (shape, dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_logcumsumexp_is_torchs_bits(dtype):
    """PyTorch's CPU kernel keeps float32's running value in double (its acc_type) and rounds each
    step to float: strided's float32 steps (NumPy's float32 logaddexp) differed in the last bit in
    141 of 200 drawn float32 cases. Rows, columns, transposed inputs (the memory-order scan),
    and infinities, NaN and signed zeros among the values."""
    rng = np.random.default_rng(291)
    cases = [((3, 4), 1, 0), ((3, 4), 0, 0), ((64, 64), 0, 1), ((64, 64), 1, 1), ((4096,), 0, 0),
             ((50, 30, 7), 1, 1), ((50, 30, 7), 2, 0), ((9, 17), 1, 1), ((11, 1), 0, 0)]
    for shape, d, transpose in cases:
        x = (rng.standard_normal(shape) * 4).astype(dtype)
        x.flat[rng.integers(0, x.size, 5)] = [np.inf, -np.inf, np.nan, -0.0, 0.0]
        tx, sx = torch.from_numpy(x.copy()), strided.from_numpy(x.copy())
        if transpose:
            tx, sx = tx.transpose(0, -1), sx.transpose(0, -1)
        assert _bits(sx.logcumsumexp(d).numpy()) == _bits(tx.logcumsumexp(d).numpy()), (shape, d, transpose)
        out = strided.empty(sx.shape, dtype=sx.dtype)
        assert _bits(strided.logcumsumexp(sx, d, out=out).numpy()) == _bits(tx.logcumsumexp(d).numpy())


def _c64(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    return _draw(rng, shape, np.complex64)


@pytest.mark.parametrize("name", ["addcmul", "addcmul_"])
def test_complex64_addcmul_over_a_transposed_self_is_torchs_bits(name):
    """PyTorch's basic_loop over strided rows fuses ``value * t1`` (a loop constant times t1) at
    every place, in place or not; strided rounded it in place (~90% of calls differed) and at an
    odd row's last place out of place (~45%)."""
    rng = np.random.default_rng(2929)
    for _ in range(30):
        m, n = (int(s) for s in rng.integers(1, 40, 2))
        base, t1, t2 = _c64(rng, (n, m)), _c64(rng, (m, n)), _c64(rng, (m, n))
        value = complex(*rng.standard_normal(2))
        found = []
        for lib in (torch, strided):
            s = lib.from_numpy(base.copy()).t()
            found.append(_bits(getattr(s, name)(lib.from_numpy(t1), lib.from_numpy(t2), value=value).numpy()))
        assert found[0] == found[1], (m, n, value)


def test_cumprod_gradient_with_a_wider_dtype_is_torchs():
    """cumprod(dtype=float64) of a float32 input holding a zero: the masked steps run in float64,
    written into the float32 gradient as PyTorch's masked_scatter_ writes them."""
    x = np.random.default_rng(0).standard_normal((3, 5)).astype(np.float32)
    x[1, 2] = 0
    found = []
    for lib in (torch, strided):
        t = lib.from_numpy(x.copy()).requires_grad_(True)
        y = t.cumprod(1, dtype=lib.float64)
        y.backward(lib.ones_like(y))
        found.append((str(t.grad.dtype).split(".")[-1], _bits(t.grad.numpy())))
    assert found[0] == found[1]
