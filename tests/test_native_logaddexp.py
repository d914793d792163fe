"""logaddexp / logaddexp2 computed in float32: NumPy's float64 loop on the operands, rounded once
to float32. The compiled ``logaddexp_float32`` (kernels/_specialkernel.c: a vector loop with its
own exp and log1p, a rounding test, and the C library's formula for every unsure element) gives
those bits; NumPy's float64 loop gives them without it (``native.disabled()``, broadcasting, other
layouts). Here: the kernel against NumPy's float64 loop on edge values and random patterns, any
length, its refusals; the ops over every layout and dtype that computes in float32, with ``out=``
and autograd, against the same bits and against PyTorch.
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
from strided.kernels.elementwise import logaddexp_float32

_KERNEL = native.special()
pytestmark = pytest.mark.skipif(_KERNEL is None or not hasattr(_KERNEL, "logaddexp_float32"),
                                reason="the compiled special functions are not built")
NAMES = ["logaddexp", "logaddexp2"]

# zeros, ones, the log1p kernel's branch point (exp(-0.8814) = sqrt 2 - 1), exp's -700 limit, the
# float32 extremes, infinities
_VALUES = np.array([0.0, 1.0, 0.5, 0.8813736, 2.0, 20.0, 88.7, 103.9, 149.0, 700.0, 701.0, 1e4, 1e-45,
                    1.1754944e-38, 1e-30, 1e-8, 3.4028235e38, np.inf], dtype=np.float32)


def _reference(x: np.ndarray, y: np.ndarray, name: str) -> np.ndarray:
    with np.errstate(all="ignore"):
        return getattr(np, name)(x.astype(np.float64), y.astype(np.float64)).astype(np.float32)


def _kernel(x: np.ndarray, y: np.ndarray, name: str) -> np.ndarray:
    out = np.empty_like(x)
    assert _KERNEL.logaddexp_float32(x, y, out, name == "logaddexp2")
    return out


def _bits(a: np.ndarray) -> list:
    return np.ascontiguousarray(a).view(np.uint32).tolist()


def _edge_pairs() -> tuple[np.ndarray, np.ndarray]:
    v = np.concatenate([_VALUES, -_VALUES, np.nextafter(_VALUES, np.float32(np.inf)),
                        np.nextafter(_VALUES, np.float32(0)),
                        np.array([0x7FC00000, 0xFFC00000, 0x7F800001, 0x7FC12345], np.uint32).view(np.float32)])
    x, y = np.meshgrid(v, v)  # (every pair: equal operands, NaN with anything, inf with inf)
    return x.ravel(), y.ravel()


@pytest.mark.parametrize("name", NAMES)
def test_the_kernel_gives_numpys_float64_loop_rounded_once(name: str) -> None:
    rng = np.random.default_rng(12)
    n = 1 << 17
    patterns = [rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32).view(np.float32) for _ in range(2)]
    near = rng.uniform(-3, 3, n).astype(np.float32)
    cases = [_edge_pairs(), tuple(patterns),
             (rng.uniform(0.1, 0.9, n).astype(np.float32), rng.uniform(0.1, 0.9, n).astype(np.float32)),
             (rng.uniform(-150, 150, n).astype(np.float32), rng.uniform(-150, 150, n).astype(np.float32)),
             (near, -near + rng.uniform(-1e-3, 1e-3, n).astype(np.float32)),  # (sums near 0: cancellation)
             (near, near + np.float32(0.8813736))]  # (exp(-|t|) at the log1p kernel's branch point)
    for x, y in cases:
        assert _bits(_kernel(x, y, name)) == _bits(_reference(x, y, name))


@settings(max_examples=60, deadline=None)
@given(hs.integers(0, 700).flatmap(lambda n: hs.tuples(
    *[hnp.arrays(np.float32, n, elements=hs.floats(width=32, allow_nan=True, allow_infinity=True))] * 2)),
    hs.sampled_from(NAMES))
def test_the_same_bits_on_any_length(xy: tuple[np.ndarray, np.ndarray], name: str) -> None:
    """Lengths around the 256-element blocks, 0 included; every float32 (NaN, -0.0, subnormal)."""
    x, y = xy
    assert _bits(_kernel(x, y, name)) == _bits(_reference(x, y, name))


def test_refusals_and_the_numpy_route() -> None:
    x = np.linspace(-3, 3, 40, dtype=np.float32).reshape(8, 5)
    y = x[::-1].copy()
    out = np.empty_like(x)
    assert not _KERNEL.logaddexp_float32(x.T, y.T, out, False)  # (not C-contiguous)
    assert not _KERNEL.logaddexp_float32(x, y, x, False)  # (out overlaps x)
    assert not _KERNEL.logaddexp_float32(x.astype(np.float64), y, out, False)
    assert not _KERNEL.logaddexp_float32(x, y[:4], out, False)
    with pytest.raises(TypeError):
        _KERNEL.logaddexp_float32(x, y, out)
    for base2, name in ((False, "logaddexp"), (True, "logaddexp2")):
        want = _bits(_reference(x, y, name))
        assert _bits(logaddexp_float32(x, y, base2)) == want
        assert _bits(logaddexp_float32(x.T, y.T, base2).T) == want  # (NumPy's float64 loop)
        with native.disabled():
            assert _bits(logaddexp_float32(x, y, base2)) == want
        assert _bits(logaddexp_float32(x, y[:1], base2)) == _bits(_reference(x, np.broadcast_to(y[:1], x.shape), name))


_LAYOUTS = {
    "contiguous": lambda a, b: (a, b),
    "transposed": lambda a, b: (a.T, b.T),  # (the flat-run fast path: the kernel)
    "stepped": lambda a, b: (a[::2, 1::3], b[::2, 1::3]),
    "mixed": lambda a, b: (a, b.T.contiguous().T),  # (one row-major, one column-major)
    "broadcast": lambda a, b: (a, b[:1]),
    "expanded": lambda a, b: (a[:1].expand(a.shape[0], a.shape[1]), b),
    "0-d": lambda a, b: (a[2, 3], b[2, 3]),
    "empty": lambda a, b: (a[:0], b[:0]),
}


@pytest.mark.parametrize("layout", list(_LAYOUTS))
@pytest.mark.parametrize("name", NAMES)
def test_the_ops_on_every_layout(name: str, layout: str) -> None:
    """The same bits (NumPy's float64 loop rounded once) on every layout, with the kernels on and
    off, PyTorch's shape and strides, and its values within float32's tolerance."""
    rng = np.random.default_rng(4)
    a, b = (rng.uniform(-20, 20, (24, 18)).astype(np.float32) for _ in range(2))
    view = _LAYOUTS[layout]
    s, t = view(strided.from_numpy(a), strided.from_numpy(b)), view(torch.from_numpy(a), torch.from_numpy(b))
    got = getattr(strided, name)(*s)
    want = getattr(torch, name)(*t)
    assert got.dtype == strided.float32 and got.shape == tuple(want.shape) and got.stride() == want.stride()
    tx, ty = (np.broadcast_to(u.numpy(), want.shape) for u in t)
    assert _bits(got.numpy()) == _bits(_reference(tx, ty, name))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, atol=0)
    with native.disabled():
        assert _bits(getattr(strided, name)(*s).numpy()) == _bits(got.numpy())


@pytest.mark.parametrize("name", NAMES)
def test_out_autograd_and_method(name: str) -> None:
    rng = np.random.default_rng(6)
    a, b = (rng.uniform(-5, 5, (33, 9)).astype(np.float32) for _ in range(2))
    want = _bits(_reference(a, b, name))
    x, y = strided.from_numpy(a), strided.from_numpy(b)
    out = strided.empty((9, 33)).T  # (a column-major out: the general path writes into it)
    assert getattr(strided, name)(x, y, out=out) is out and _bits(out.numpy()) == want
    assert _bits(getattr(x, name)(y).numpy()) == want
    xs, ys = x.clone().requires_grad_(), y.clone().requires_grad_()
    r = getattr(strided, name)(xs, ys)
    assert _bits(r.detach().numpy()) == want
    r.sum().backward()
    xt, yt = torch.from_numpy(a).requires_grad_(), torch.from_numpy(b).requires_grad_()
    getattr(torch, name)(xt, yt).sum().backward()
    np.testing.assert_allclose(xs.grad.numpy(), xt.grad.numpy(), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(ys.grad.numpy(), yt.grad.numpy(), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", NAMES)
def test_reduced_floats_within_pytorchs_tolerance(name: str, dtype: str) -> None:
    """float16 / bfloat16 compute in float32 (as PyTorch's opmath): one more rounding, to the dtype."""
    rng = np.random.default_rng(2)
    a, b = (torch.from_numpy(rng.uniform(-8, 8, 300).astype(np.float32)).to(getattr(torch, dtype)) for _ in range(2))
    got = getattr(strided, name)(strided.from_numpy(a.float().numpy()).to(getattr(strided, dtype)),
                                 strided.from_numpy(b.float().numpy()).to(getattr(strided, dtype)))
    want = getattr(torch, name)(a, b)
    assert got.dtype == getattr(strided, dtype)
    tol = 1e-2 if dtype == "bfloat16" else 1e-3
    np.testing.assert_allclose(got.float().numpy(), want.float().numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("name", NAMES)
def test_edge_values_match_pytorch(name: str) -> None:
    """Infinities, NaN, zeros of either sign, huge and tiny operands: PyTorch's values (NaN where
    PyTorch's is NaN; absolute where the sum cancels: PyTorch's float32 logaddexp2(-1, -1) is
    -1.06e-8, the exact value 0)."""
    x, y = _edge_pairs()
    nan_payloads = np.isnan(x) | np.isnan(y)
    got = getattr(strided, name)(strided.from_numpy(x), strided.from_numpy(y)).numpy()
    want = getattr(torch, name)(torch.from_numpy(x), torch.from_numpy(y)).numpy()
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    keep = ~nan_payloads & ~np.isnan(want)
    np.testing.assert_allclose(got[keep], want[keep], rtol=1e-6, atol=2e-8)
